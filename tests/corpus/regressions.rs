//! Once wrong values or panics: `#[cfg(..)]` on body statements and `let`s
//! compiles out the same statement in every twin (the recording twin used
//! to drop it and run the compiled-out code), and `powi(i32::MIN)` no
//! longer overflows `n - 1` in the engine.

use super::oracle::*;
use autodiff::prelude::*;

// `y` is mutated only in the compiled-out block.
#[allow(unused_mut)]
#[differentiable]
fn without_debug_scale(x: f64) -> f64 {
    let mut y = x;
    #[cfg(any())]
    {
        y = y * 10.0;
    }
    y + 1.0
}

#[test]
fn a_cfg_block_compiled_out_in_every_twin() -> TestResult {
    let got = without_debug_scale_grad(2.0)?;
    assert_eq!(without_debug_scale(2.0), 3.0);
    assert_eq!(got.value, 3.0);
    assert_eq!(got.gradient, 1.0);
    Ok(())
}

// A `#[cfg]` block that ends a branch: the recording twin dropped its
// attribute and ran it (value 5 for 0.5 at x = 0.5, through `f_grad` as
// well while statement attributes kept the tape).
#[allow(unused_mut)]
#[differentiable]
fn cfg_block_ending_a_branch(x: f64) -> f64 {
    let mut y = x;
    if x > 0.0 {
        #[cfg(any())]
        {
            y = y * 10.0;
        }
    }
    y * x
}

#[test]
fn a_cfg_block_ending_a_branch_is_compiled_out_of_every_twin() -> TestResult {
    for x in [0.5, -0.25] {
        let want = (x * x, 2.0 * x);
        assert_eq!(cfg_block_ending_a_branch(x), want.0);
        let got = cfg_block_ending_a_branch_grad(x)?;
        assert_eq!((got.value, got.gradient), want);
        let tape = cfg_block_ending_a_branch_grad_tape(x)?;
        assert_eq!((tape.value, tape.gradient), want);
    }
    assert_eq!(
        cfg_block_ending_a_branch_grad_path(),
        autodiff::GradientPath::Compiled
    );
    Ok(())
}

#[differentiable]
fn cfg_let(x: f64) -> f64 {
    #[cfg(not(any()))]
    let k = 2.0;
    #[cfg(any())]
    let k = 100.0;
    k * x * x
}

#[test]
fn cfg_on_let_statements_picks_one_binding() -> TestResult {
    let got = cfg_let_grad(3.0)?;
    assert_eq!((got.value, got.gradient), (18.0, 12.0));
    assert_eq!(cfg_let(3.0), 18.0);
    Ok(())
}

/// A `#[cfg(any())]` block holding a layer loop (`h = next; h.push(..)`),
/// whose saved shapes the compiled adjoint keeps in lists it takes from
/// the stack: the lists are given back under the block's `cfg` too (given
/// back unconditionally, the adjoint named lists that do not exist and
/// did not build; random seed 20672).
#[differentiable]
fn cfg_block_with_layers(x: f64) -> f64 {
    let mut acc = x * x;
    #[cfg(any())]
    {
        let mut h = Vec::new();
        h.push(x);
        for k in 0..2 {
            let mut next = Vec::new();
            for j in 0..k + 1 {
                next.push(h[0] * j as f64);
            }
            h = next;
            h.push(h[0] * 0.5);
        }
        acc += h[0];
    }
    acc *= 3.0;
    acc
}

#[test]
fn a_cfg_block_with_saved_shapes_builds_and_is_left_out() -> TestResult {
    assert_eq!(
        cfg_block_with_layers_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let got = cfg_block_with_layers_grad(1.5)?;
    assert_eq!((got.value, got.gradient), (6.75, 9.0));
    assert_eq!(cfg_block_with_layers(1.5), 6.75);
    Ok(())
}

#[differentiable]
fn tiny_power(x: f64) -> f64 {
    x.powi(i32::MIN)
}

#[test]
fn powi_of_i32_min_has_derivative_n_x_to_the_n_minus_one() -> TestResult {
    // x^n at x = ±1 is 1; n·x^(n−1) is n at 1 and −n at −1 (n − 1 is odd).
    let n = i32::MIN as f64;
    for (x, want) in [(1.0, n), (-1.0, -n)] {
        let got = tiny_power_grad(x)?;
        assert_eq!(got.value, tiny_power(x));
        assert_eq!(got.value, 1.0);
        assert_eq!(got.gradient, want);
    }
    Ok(())
}
