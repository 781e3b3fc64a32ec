//! `mul_add` and `clamp`, the two three-operand methods the runtime composes
//! of recorded operations: `mul_add`'s value is the plain twin's fused result
//! bit for bit (not `a * b + c` rounded twice), and `clamp` sends its
//! gradient to the operand it returns and panics where `f64::clamp` does.

use autodiff::prelude::*;

#[differentiable]
fn fused(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

#[test]
fn mul_add_keeps_the_fused_value_and_has_derivatives_b_a_1() -> Result<(), ScalarAutodiffError> {
    // 0.1 * 10 rounds to 1 exactly, so the unfused value is 0; the fused
    // one keeps the representation error of 0.1 (about 5.55e-17).
    let (a, b, c) = (0.1, 10.0, -1.0);
    assert_eq!(a * b + c, 0.0);
    let want = f64::mul_add(a, b, c);
    assert_ne!(want, 0.0);
    let got = fused_grad(a, b, c)?;
    assert_eq!(got.value.to_bits(), want.to_bits());
    assert_eq!(got.value.to_bits(), fused(a, b, c).to_bits());
    assert_eq!(got.gradient, (b, a, 1.0));
    Ok(())
}

#[differentiable]
fn clamped(x: f64, lo: f64, hi: f64) -> f64 {
    x.clamp(lo, hi)
}

#[test]
fn clamp_sends_the_gradient_to_the_operand_it_returns() -> Result<(), ScalarAutodiffError> {
    for (x, want_value, want_gradient) in [
        (0.5, 0.5, (1.0, 0.0, 0.0)),
        (-3.0, -1.0, (0.0, 1.0, 0.0)),
        (4.0, 2.0, (0.0, 0.0, 1.0)),
    ] {
        let got = clamped_grad(x, -1.0, 2.0)?;
        assert_eq!(got.value, want_value);
        assert_eq!(got.value, clamped(x, -1.0, 2.0));
        assert_eq!(got.gradient, want_gradient);
    }
    Ok(())
}

#[test]
#[should_panic(expected = "min > max")]
fn clamp_with_crossed_bounds_panics_in_the_recording_twin_as_in_the_plain_one() {
    let _ = clamped_grad(0.5, 2.0, -1.0);
}

#[differentiable]
fn tiny_power(x: f64) -> f64 {
    x.powi(i32::MIN)
}

#[test]
fn powi_of_i32_min_does_not_overflow() -> Result<(), ScalarAutodiffError> {
    // d/dx x^n = n x^(n-1) (n - 1 does not fit in an i32). At x = 2 both
    // underflow to zero; at x = -1, n - 1 is odd, so the derivative is -n.
    let got = tiny_power_grad(2.0)?;
    assert_eq!((got.value, got.gradient), (0.0, 0.0));
    let got = tiny_power_grad(-1.0)?;
    assert_eq!(got.gradient, -(i32::MIN as f64));
    Ok(())
}
