//! Lesson 15, softmax + cross-entropy: z̄ = p − 1_y, bounded and zero-sum,
//! and a score function: E[p − y] = 0 and E[(p − y)²] = p(1 − p).
//!
//! `cargo run --example lesson15_softmax`

#[path = "support/exercises.rs"]
mod exercises;
#[path = "support/lesson15.rs"]
mod lesson15;

use exercises::{cross_entropy_check, cross_entropy_grad};
use lesson15::softmax;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let z = [2.0, 1.0, 0.5, -0.5];
    let result = cross_entropy_grad(z, 0)?;
    let p = softmax(z);
    println!("z = {z:?}, target class 1 (index 0)");
    println!("L = {:.4}", result.value);
    println!("z̄ (autodiff) = {:+.4?}", result.gradient);
    println!(
        "p − 1_y      = {:+.4?}",
        std::array::from_fn::<f64, 4, _>(|j| p[j] - f64::from(u8::from(j == 0)))
    );
    println!(
        "z̄₃ = {:.4}; Σ z̄ = {:.1e}",
        result.gradient[2],
        result.gradient.iter().sum::<f64>()
    );
    let check = cross_entropy_check(z, 0)?;
    println!(
        "central differences: passed = {}, largest scaled error {:.1e}",
        check.passed(),
        check.max_scaled_error()
    );

    let mut mean = [0.0; 4];
    let mut second = [0.0; 4];
    for (class, weight) in p.iter().enumerate() {
        let score = cross_entropy_grad(z, class)?.gradient;
        for j in 0..4 {
            mean[j] += weight * score[j];
            second[j] += weight * score[j] * score[j];
        }
    }
    println!("E[p − y]     = {mean:.6?}");
    println!("E[(p − y)²]  = {second:.6?}");
    println!("p (1 − p)    = {:.6?}", p.map(|v| v * (1.0 - v)));
    Ok(())
}
