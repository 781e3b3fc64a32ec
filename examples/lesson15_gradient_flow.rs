//! Lesson 15, gradient flow through 12 layers at RMS gains 0.7, 1.0 and 1.3,
//! and a residual stack whose branch has gain 0.7: per-layer gradient norms
//! (each the costate from one reverse pass) and geometric-mean stage gains.
//!
//! `cargo run --example lesson15_gradient_flow`

#[path = "support/exercises.rs"]
mod exercises;
#[path = "support/lesson15.rs"]
mod lesson15;

use exercises::{layer_costates, WIDTH};
use lesson15::{geometric_mean_gain, norm, random_stack};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let regimes = [
        ("gain 0.7 (vanish)", 0.7, false, 33),
        ("gain 1.0 (stable)", 1.0, false, 33),
        ("gain 1.3 (explode)", 1.3, false, 33),
        ("0.7 + identity (residual)", 0.7, true, 34),
    ];
    println!("width {WIDTH}, 12 layers; ‖gradient‖ at the input of layer k, k = 12 down to 1");
    for (name, gain, residual, seed) in regimes {
        let stack = random_stack(WIDTH, 12, gain, seed);
        let costates = layer_costates(&stack.layers, residual, &stack.g, &stack.h)?;
        let norms: Vec<f64> = costates.iter().map(|c| norm(c)).collect();
        let listed: Vec<String> = norms.iter().rev().map(|n| format!("{n:.3}")).collect();
        println!("{name:<26} {}", listed.join(" "));
        let design = if residual {
            (1.0 + gain * gain).sqrt()
        } else {
            gain
        };
        println!(
            "{:<26} L1/L12 = {:.3}, geometric-mean stage gain {:.3} (design {:.3})",
            "",
            norms[0] / norms[11],
            geometric_mean_gain(&norms),
            design
        );
    }
    Ok(())
}
