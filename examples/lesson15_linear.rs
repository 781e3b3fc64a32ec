//! Lesson 15, linear layer: W̄ = xᵀȳ, b̄ = ȳ, x̄ = ȳWᵀ, and over a minibatch
//! W̄ = XᵀȲ with no 1/B.
//!
//! `cargo run --example lesson15_linear`

#[path = "support/exercises.rs"]
mod exercises;
#[path = "support/lesson15.rs"]
mod lesson15;

use exercises::{batch_probe_grad, linear_probe_grad};
use lesson15::{outer, row_times_transpose, Rng};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rng = Rng::new(16);
    let w: [[f64; 3]; 5] = rng.matrix(0.5);
    let b: [f64; 3] = rng.vector(0.5);
    let x = [0.1, -0.3, 0.2, 0.4, -0.1];
    let y_bar = [1.0, -0.5, 0.25];

    let (dw, db, dx) = linear_probe_grad(w, b, x, y_bar)?.gradient;
    let xt_ybar = outer(&x, &y_bar);
    println!("upstream ȳ = {y_bar:?}");
    println!("W̄ (5×3), autodiff | xᵀȳ:");
    for (row, expected) in dw.iter().zip(&xt_ybar) {
        println!("  {row:+.4?} | {expected:+.4?}");
    }
    println!("b̄ = {db:+.4?} (ȳ)");
    println!("x̄ = {dx:+.4?}");
    println!("ȳWᵀ = {:+.4?}", row_times_transpose(&y_bar, &w));

    let x_batch: [[f64; 5]; 4] = rng.matrix(1.0);
    let y_bar_batch: [[f64; 3]; 4] = rng.matrix(1.0);
    let (dw_batch, db_batch, _) = batch_probe_grad(w, b, x_batch, y_bar_batch)?.gradient;
    let mut sum_of_examples = [[0.0; 3]; 5];
    for (x_r, y_r) in x_batch.iter().zip(&y_bar_batch) {
        for (acc, o) in sum_of_examples
            .iter_mut()
            .flatten()
            .zip(outer(x_r, y_r).iter().flatten())
        {
            *acc += o;
        }
    }
    let worst = dw_batch
        .iter()
        .flatten()
        .zip(sum_of_examples.iter().flatten())
        .map(|(a, e)| (a - e).abs())
        .fold(0.0, f64::max);
    println!("minibatch of 4: max |W̄ - XᵀȲ| = {worst:.1e} (a sum, no 1/B); b̄ = {db_batch:+.4?}");
    Ok(())
}
