//! `detach(x)` where a plain value is needed: `detach(x) as i64`, a plain
//! method on `detach(x)`, a plain function of it and `detach(a) % b`
//! compute with the value and pass no gradient through it, on the tape and
//! in the compiled adjoint alike. Oracles: the derivative worked by hand with the cast
//! value held constant (a step function's derivative is 0 between its
//! jumps), and central differences away from the jumps.

use autodiff::prelude::*;

use crate::oracle::assert_all_close_named;

/// `x · trunc(x)`: between the jumps its derivative is `trunc(x)`.
#[differentiable]
fn bucketed(x: f64) -> f64 {
    let index = detach(x) as i64;
    x * index as f64
}

/// `v[⌊x⌋] · x`: an index from a tracked value, its derivative `v[⌊x⌋]`
/// in `x` and `x` in that one element of `v`.
#[differentiable]
fn looked_up(x: f64, v: &[f64]) -> f64 {
    let k = detach(x).floor() as usize;
    v[k] * x
}

/// A plain method and a plain function of `detach(x)`: `x · (bits mod 7)`.
#[differentiable]
fn hashed(x: f64) -> f64 {
    let raw = detach(x).to_bits();
    let shifted = u64::wrapping_add(raw, 1);
    x * ((shifted % 7) as f64)
}

#[test]
fn a_cast_of_detach_passes_no_gradient_through_the_cast() -> Result<(), ScalarAutodiffError> {
    for x in [2.5_f64, -1.75, 0.3, 7.9] {
        let want = x.trunc();
        for (path, got) in [
            ("f_grad", bucketed_grad(x)?),
            ("f_grad_tape", bucketed_grad_tape(x)?),
        ] {
            assert_eq!(got.value.to_bits(), bucketed(x).to_bits(), "{path}");
            assert_all_close_named(&[got.gradient], &[want], 0.0, path);
        }
        assert!(bucketed_check(x).unwrap().passed());
    }
    Ok(())
}

#[test]
fn an_index_from_detach_reads_one_element() -> Result<(), ScalarAutodiffError> {
    let v = [10.0, 20.0, 30.0];
    let x = 1.5;
    // ∂/∂x = v[1], ∂/∂v = x at index 1 only.
    let want = [20.0, 0.0, 1.5, 0.0];
    for (path, got) in [
        ("f_grad", looked_up_grad(x, &v)?),
        ("f_grad_tape", looked_up_grad_tape(x, &v)?),
    ] {
        assert_eq!(got.value, 30.0, "{path}");
        let (gx, gv) = got.gradient;
        assert_all_close_named(&[gx, gv[0], gv[1], gv[2]], &want, 0.0, path);
    }
    Ok(())
}

#[test]
fn a_plain_method_and_function_of_detach_are_constants() -> Result<(), ScalarAutodiffError> {
    for x in [1.25_f64, -3.5, 1e-3] {
        let want = ((x.to_bits().wrapping_add(1) % 7) as f64, hashed(x));
        for (path, got) in [
            ("f_grad", hashed_grad(x)?),
            ("f_grad_tape", hashed_grad_tape(x)?),
        ] {
            assert_eq!(got.value.to_bits(), want.1.to_bits(), "{path}");
            assert_all_close_named(&[got.gradient], &[want.0], 0.0, path);
        }
    }
    Ok(())
}

#[test]
fn the_paths_taken() {
    use autodiff::GradientPath;
    assert_eq!(bucketed_grad_path(), GradientPath::Compiled);
    assert_eq!(looked_up_grad_path(), GradientPath::Compiled);
    // `let raw = detach(x).to_bits();` binds a `u64` the reverse sweep
    // cannot size: the tape, whose gradient the test above checks.
    assert!(matches!(
        hashed_grad_path(),
        GradientPath::Tape { line: 30, .. }
    ));
}

/// `%` of a detached operand: `a · (a mod 3)`, the remainder held constant.
#[differentiable]
fn phase(a: f64) -> f64 {
    let r = detach(a) % 3.0;
    a * r
}

/// The remainder for `a / b ≥ 0` written with an exact derivative, as the
/// error for `a % b` suggests: ∂/∂a = 1, ∂/∂b = −⌊a/b⌋.
#[differentiable]
fn remainder(a: f64, b: f64) -> f64 {
    a - b * detach(a / b).floor()
}

#[test]
fn a_remainder_of_detach_and_the_suggested_form_have_exact_gradients(
) -> Result<(), ScalarAutodiffError> {
    for a in [7.5_f64, 1.25, 10.0] {
        for (path, got) in [
            ("f_grad", phase_grad(a)?),
            ("f_grad_tape", phase_grad_tape(a)?),
        ] {
            assert_eq!(got.value.to_bits(), phase(a).to_bits(), "{path}");
            assert_all_close_named(&[got.gradient], &[a % 3.0], 0.0, path);
        }
    }
    for (a, b) in [(7.5_f64, 2.0_f64), (1.25, 0.5), (10.0, 3.0)] {
        let want = [1.0, -(a / b).floor()];
        for (path, got) in [
            ("f_grad", remainder_grad(a, b)?),
            ("f_grad_tape", remainder_grad_tape(a, b)?),
        ] {
            assert!((got.value - a % b).abs() < 1e-12, "{path}");
            assert_all_close_named(&[got.gradient.0, got.gradient.1], &want, 0.0, path);
        }
    }
    Ok(())
}

#[differentiable]
fn scaled(w: f64, #[constant] scale: f64) -> f64 {
    w * scale
}

/// `detach(x)` to a `#[constant]` parameter: `w·x + x` with the first `x`
/// held constant, ∂/∂w = x, ∂/∂x = 1; and a plain `f64` and a literal to
/// the same parameter.
#[differentiable]
fn scaled_by_detached(w: f64, x: f64) -> f64 {
    scaled(w, detach(x)) + x + scaled(w, 2.0) * scaled(x, 0.5)
}

#[test]
fn detach_passes_a_tracked_value_to_a_constant_parameter() -> Result<(), ScalarAutodiffError> {
    let (w, x) = (1.5, -0.75);
    // w·x + x + (2w)(0.5x) = 2wx + x: ∂/∂w = x + x = 2x, but the first
    // term's x is detached, so ∂/∂x = 1 + w (from the last term) only.
    let want = [2.0 * x, 1.0 + w];
    for (path, got) in [
        ("f_grad", scaled_by_detached_grad(w, x)?),
        ("f_grad_tape", scaled_by_detached_grad_tape(w, x)?),
    ] {
        assert_eq!(got.value, scaled_by_detached(w, x), "{path}");
        assert_all_close_named(&[got.gradient.0, got.gradient.1], &want, 0.0, path);
    }
    Ok(())
}
