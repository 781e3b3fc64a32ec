//! Lesson 15, two-layer MLP: `#[differentiable]` against the backward pass
//! written right to left by hand, and against its costate relabelling.
//!
//! `cargo run --example lesson15_mlp`

#[path = "support/exercises.rs"]
mod exercises;
#[path = "support/lesson15.rs"]
mod lesson15;

use exercises::{mlp_loss, mlp_loss_check, mlp_loss_grad, mlp_setup};
use lesson15::{mlp_backward, mlp_costate};

fn max_abs_difference<'a>(
    a: impl IntoIterator<Item = &'a f64>,
    b: impl IntoIterator<Item = &'a f64>,
) -> f64 {
    a.into_iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (w1, w2, x, t) = mlp_setup();
    let result = mlp_loss_grad(w1, w2, x, t)?;
    let (dw1, dw2, dx) = result.gradient;
    let by_hand = mlp_backward(&w1, &w2, &x, t);
    let costate = mlp_costate(&w1, &w2, &x, t);

    println!(
        "L = {:.15} (plain twin {:.15})",
        result.value,
        mlp_loss(w1, w2, x, t)
    );
    println!("dL/dW2 = {dw2:.6?}");
    println!("dL/dx  = {dx:.6?}");
    println!("dL/dW1 =");
    for row in &dw1 {
        println!("  {row:.6?}");
    }
    println!(
        "max |autodiff - by hand|: W1 {:.1e}  W2 {:.1e}  x {:.1e}",
        max_abs_difference(dw1.iter().flatten(), by_hand.w1.iter().flatten()),
        max_abs_difference(&dw2, &by_hand.w2),
        max_abs_difference(&dx, &by_hand.x),
    );
    println!(
        "max |costate - by hand|: W1 {:.1e}  W2 {:.1e}  x {:.1e}  (the same arithmetic renamed)",
        max_abs_difference(costate.w1.iter().flatten(), by_hand.w1.iter().flatten()),
        max_abs_difference(&costate.w2, &by_hand.w2),
        max_abs_difference(&costate.x, &by_hand.x),
    );
    print!("{}", mlp_loss_check(w1, w2, x, t)?);
    Ok(())
}
