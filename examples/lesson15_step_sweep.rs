//! Lesson 15, the finite-difference step: relative error of a central
//! difference at W₁(2,1) for ε from 1e−2 to 1e−9 traces a U with its floor
//! near ε_mach^(1/3) ≈ 6e−6.
//!
//! `cargo run --example lesson15_step_sweep`

#[path = "support/exercises.rs"]
mod exercises;
#[path = "support/lesson15.rs"]
mod lesson15;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let steps = [1e-2, 1e-4, 1e-5, 1e-7, 1e-9];
    let errors = exercises::step_sweep(&steps)?;
    for (eps, error) in steps.iter().zip(&errors) {
        let bar = "#".repeat((error.log10() + 13.0).max(0.0) as usize * 3);
        println!("eps = {eps:<6e}  relative error = {error:.3e}  {bar}");
    }
    println!(
        "default step at |x| ≤ 1: {:.3e} (cube root of machine epsilon)",
        autodiff::default_step(0.0)
    );
    Ok(())
}
