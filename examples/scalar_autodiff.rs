//! Chapter 14's demo: a reused square, repeated passes, zeroing, detach, a
//! nonlinear chain, a numerical cross-check and rejected requests.
//!
//! `cargo run --quiet --example scalar_autodiff` prints the chapter's ten lines.

use autodiff::prelude::*;
use autodiff::scalar_gradient_check;

/// A power of two: `x ± h` and `2h` are exact in binary, so for `2x²` the
/// central difference is exact and the scaled error prints as zero.
const GRADCHECK_STEP: f64 = 1.0 / 1024.0;
const GRADCHECK_TOLERANCE: f64 = 1e-9;

fn grads(scalars: [Scalar<'_>; 3]) -> String {
    let [x, square, loss] = scalars.map(|s| s.gradient().unwrap_or(f64::NAN));
    format!("x_grad={x:.12} square_grad={square:.12} loss_grad={loss:.12}")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Reused square: x*x stores two edges to x, square+square two to square.
    let tape = Tape::new();
    let x = tape.variable(2.0)?;
    let square = x.mul(x)?;
    let loss = square.add(square)?;
    println!(
        "reused square: x={:.12} square={:.12} loss={:.12}",
        x.value(),
        square.value(),
        loss.value()
    );
    loss.backward()?;
    println!("one backward: {}", grads([x, square, loss]));
    loss.backward()?;
    println!("repeated backward: {}", grads([x, square, loss]));
    loss.zero_grad();
    println!("zero_grad: {}", grads([x, square, loss]));
    loss.backward()?;
    println!("after zero: {}", grads([x, square, loss]));

    // Detach keeps the value and drops the edge.
    let tape = Tape::new();
    let x = tape.variable(2.0)?;
    let detached = x.detach()?;
    let loss = x.mul(x)?.add(detached.mul(tape.constant(3.0)?)?)?;
    loss.backward()?;
    println!(
        "detach: expression=x*x+detach(x)*3 value={:.12} x_grad={:.12} detached_grad={}",
        loss.value(),
        x.gradient().unwrap_or(f64::NAN),
        detached
            .gradient()
            .map_or_else(|| "none".to_owned(), |g| format!("{g:.12}"))
    );

    // A two-operation elementary chain.
    let tape = Tape::new();
    let x = tape.variable(0.5)?;
    let y = x.tanh()?.exp()?;
    y.backward()?;
    println!(
        "nonlinear: expression=exp(tanh(x)) input={:.12} value={:.12} gradient={:.12}",
        x.value(),
        y.value(),
        x.gradient().unwrap_or(f64::NAN)
    );

    // Reverse mode against central differences of the plain function.
    let tape = Tape::new();
    let x = tape.variable(2.0)?;
    let square = x.mul(x)?;
    let loss = square.add(square)?;
    loss.backward()?;
    let check = scalar_gradient_check(
        x.value(),
        x.gradient().unwrap_or(f64::NAN),
        GRADCHECK_STEP,
        GRADCHECK_TOLERANCE,
        |v| 2.0 * v * v,
    )?;
    println!(
        "gradcheck: expression=2*x*x analytic={:.12} numerical={:.12} scaled_error={:.12e} pass={}",
        check.analytic,
        check.numerical,
        check.scaled_error,
        check.passed()
    );

    // Three rejected requests; none may move a stored gradient.
    let tape = Tape::new();
    let x = tape.variable(1.0)?;
    let big = x.mul(1e308)?; // d big/dx = 1e308: a second pass overflows x's stored sum
    big.backward()?;
    let before = [x, big].map(|s| s.gradient().map(f64::to_bits));
    let rejected = [
        tape.constant(1.0)?.backward().err(),
        big.backward_with_seed(f64::INFINITY).err(),
        big.backward().err(),
    ];
    let after = [x, big].map(|s| s.gradient().map(f64::to_bits));
    let codes: Vec<&str> = rejected
        .iter()
        .map(|e| e.as_ref().map_or("accepted", |e| e.code()))
        .collect();
    println!(
        "typed errors: {}; gradients unchanged={}",
        codes.join(" | "),
        before == after
    );
    println!("chapter 15 handoff: replace scalar edges with tensor vector-Jacobian products");
    Ok(())
}
