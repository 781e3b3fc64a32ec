//! Chapter 14's demo: a reused square, repeated passes, zeroing, detach, a
//! nonlinear chain, a numerical cross-check and rejected requests.
//!
//! The graphs come from ordinary functions annotated with
//! `#[differentiable]`: each `_tape` twin records one labelled node per
//! operation, and the ledger of a pass finds nodes by those labels.
//!
//! `cargo run --quiet --example scalar_autodiff` prints the chapter's ten lines.

use autodiff::prelude::*;
use autodiff::{scalar_gradient_check, BackwardNode, BackwardPass};

/// A power of two: `x ± h` and `2h` are exact in binary, so for `2x²` the
/// central difference is exact and the scaled error prints as zero.
const GRADCHECK_STEP: f64 = 1.0 / 1024.0;
const GRADCHECK_TOLERANCE: f64 = 1e-9;

/// `x*x` records two edges to `x`, `square + square` two to `square`.
#[differentiable]
fn reused_square(x: f64) -> f64 {
    let square = x * x;
    square + square
}

/// `detach(x)` keeps the value and drops the edge.
#[differentiable]
fn with_detach(x: f64) -> f64 {
    x * x + detach(x) * 3.0
}

/// A two-operation elementary chain.
#[differentiable]
fn nonlinear(x: f64) -> f64 {
    x.tanh().exp()
}

/// `d big/dx = 1e308`: a second pass overflows `x`'s stored sum.
#[differentiable]
fn huge(x: f64) -> f64 {
    x * 1e308
}

/// The node the pass reached that `#[differentiable]` labelled `text`.
fn node(pass: &BackwardPass<'_>, text: &str) -> Result<BackwardNode, String> {
    pass.nodes()
        .into_iter()
        .find(|node| node.label.is_some_and(|label| label.text == text))
        .ok_or_else(|| format!("no node labelled `{text}`"))
}

/// Stored gradients of `x`, `square` and `loss`, read through the ledger
/// (which reads the tape's current stored gradients each time).
fn grads(pass: &BackwardPass<'_>, x: Scalar<'_>, loss: Scalar<'_>) -> Result<String, String> {
    let stored = |node: BackwardNode| node.stored_gradient.unwrap_or(f64::NAN);
    let square = stored(node(pass, "square")?);
    let loss = loss.gradient().unwrap_or(f64::NAN);
    let x = x.gradient().unwrap_or(f64::NAN);
    Ok(format!(
        "x_grad={x:.12} square_grad={square:.12} loss_grad={loss:.12}"
    ))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let tape = Tape::new();
    let x = tape.variable(2.0)?;
    let loss = reused_square_tape(&tape, x)?;
    let first = loss.backward()?;
    println!(
        "reused square: x={:.12} square={:.12} loss={:.12}",
        x.value(),
        node(&first, "square")?.value,
        loss.value()
    );
    println!("one backward: {}", grads(&first, x, loss)?);
    loss.backward()?;
    println!("repeated backward: {}", grads(&first, x, loss)?);
    loss.zero_grad();
    println!("zero_grad: {}", grads(&first, x, loss)?);
    loss.backward()?;
    println!("after zero: {}", grads(&first, x, loss)?);

    let tape = Tape::new();
    let x = tape.variable(2.0)?;
    let loss = with_detach_tape(&tape, x)?;
    let pass = loss.backward()?;
    let detached = node(&pass, "detach(x)")?;
    println!(
        "detach: expression=x*x+detach(x)*3 value={:.12} x_grad={:.12} detached_grad={}",
        loss.value(),
        x.gradient().unwrap_or(f64::NAN),
        detached
            .stored_gradient
            .map_or_else(|| "none".to_owned(), |g| format!("{g:.12}"))
    );

    let input = 0.5;
    let chain = nonlinear_grad(input)?;
    println!(
        "nonlinear: expression=exp(tanh(x)) input={input:.12} value={:.12} gradient={:.12}",
        chain.value, chain.gradient
    );

    // Reverse mode against central differences of the plain twin.
    let reverse = reused_square_grad(2.0)?;
    let check = scalar_gradient_check(
        2.0,
        reverse.gradient,
        GRADCHECK_STEP,
        GRADCHECK_TOLERANCE,
        reused_square,
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
    let big = huge_tape(&tape, x)?;
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
