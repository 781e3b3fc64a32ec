//! Lesson 15, one causal attention head (T = 4, d_model = 4, d_k = d_v = 3):
//! `#[differentiable]` against the four-step backward pass by hand, central
//! differences at every parameter, and X̄ = X̄_Q + X̄_K + X̄_V.
//!
//! `cargo run --example lesson15_attention`

#[path = "support/exercises.rs"]
mod exercises;
#[path = "support/lesson15.rs"]
mod lesson15;

use exercises::{attention_probe_check, attention_probe_grad};
use lesson15::{attention_backward, random_head};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let h = random_head(8);
    let result = attention_probe_grad(h.x, h.wq, h.wk, h.wv, h.o_bar)?;
    let (dx, dwq, _, _) = result.gradient;
    let by_hand = attention_backward(&h.x, &h.wq, &h.wk, &h.wv, &h.o_bar);
    println!(
        "L = Σ Ō ⊙ O = {:.12} (by hand {:.12})",
        result.value, by_hand.loss
    );

    let check = attention_probe_check(h.x, h.wq, h.wk, h.wv, h.o_bar)?;
    let spot = check.components[16 + 3]; // W_Q(2, 1), one-based, after the 16 entries of X
    println!(
        "W_Q(2,1): analytic {:.10}, central difference {:.10}, relative error {:.1e}",
        spot.analytic, spot.numerical, spot.relative_error
    );
    println!(
        "all {} parameters: passed = {}, largest scaled error {:.1e}",
        check.components.len(),
        check.passed(),
        check.max_scaled_error()
    );
    println!("X̄ = X̄_Q + X̄_K + X̄_V (fan-in at X), row by row:");
    for (t, row) in dx.iter().enumerate() {
        let branches: [f64; 4] = std::array::from_fn(|r| {
            by_hand.x_from_q[t][r] + by_hand.x_from_k[t][r] + by_hand.x_from_v[t][r]
        });
        println!("  autodiff {row:+.6?}  branches {branches:+.6?}");
    }
    println!(
        "W̄_Q row 2: autodiff {:+.6?}  by hand {:+.6?}",
        dwq[1], by_hand.wq[1]
    );
    Ok(())
}
