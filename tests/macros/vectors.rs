//! Functions that return vectors: `Vec<f64>`, arrays (nested) and tuples,
//! free and as methods; their `_vjp`, `_jacobian`, `_jvp` and `_check`;
//! and scalar losses that call them, on both paths. Oracles: closed forms
//! (softmax's `diag(p) − p pᵀ`, a linear layer's weights), the same
//! functions written out by hand on dual numbers, and central differences.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

// `softmax` and `matmul`, and what `#[differentiable]` writes beside them
// (`softmax_vjp`, `softmax_jacobian`, ...): the attention example's.
use crate::attention_layers::{
    matmul, softmax, softmax_check, softmax_jacobian, softmax_jvp, softmax_vjp,
};
use crate::oracle::{assert_all_close, assert_close, Dual};

#[differentiable]
fn nll(z: &[f64], target: usize) -> f64 {
    let p = softmax(z);
    -p[target].ln()
}

fn plain_softmax(z: &[f64]) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
    z.iter().map(|v| (v - m).exp() / s).collect()
}

const Z: [f64; 4] = [0.3, -1.2, 2.0, 0.7];

#[test]
fn softmax_jacobian_is_diag_p_minus_p_p_transpose() {
    let p = plain_softmax(&Z);
    let jacobian = softmax_jacobian(&Z).unwrap();
    assert_eq!((jacobian.rows(), jacobian.cols()), (4, 4));
    for i in 0..4 {
        for j in 0..4 {
            let delta = if i == j { p[i] } else { 0.0 };
            assert_close(jacobian.get(i, j), delta - p[i] * p[j], 1e-14);
        }
    }
    let check = softmax_check(&Z).unwrap();
    assert!(check.passed(), "{check}");
    assert_eq!(check.rows.len(), 4);
    assert!(format!("{jacobian}").starts_with("Jacobian (4 × 4)"));
}

#[test]
fn softmax_vjp_and_jvp_are_the_jacobian_products() {
    let p = plain_softmax(&Z);
    let u = vec![0.5, -1.0, 2.0, 0.25];
    let vjp = softmax_vjp(&Z, u.clone()).unwrap();
    assert_all_close(&vjp.value, &p, 1e-15);
    // Jᵀu = p ⊙ (u − p·u), J symmetric.
    let pu: f64 = p.iter().zip(&u).map(|(a, b)| a * b).sum();
    let want: Vec<f64> = (0..4).map(|i| p[i] * (u[i] - pu)).collect();
    assert_all_close(&vjp.gradient, &want, 1e-14);
    let jvp = softmax_jvp(&Z, u.clone()).unwrap();
    assert_all_close(&jvp.value, &p, 1e-15);
    assert_all_close(&jvp.tangent, &want, 1e-14);
}

#[test]
fn a_scalar_loss_composes_a_vector_valued_helper_on_both_paths() {
    let p = plain_softmax(&Z);
    for target in 0..4 {
        let want: Vec<f64> = (0..4)
            .map(|i| p[i] - if i == target { 1.0 } else { 0.0 })
            .collect();
        for result in [nll_grad(&Z, target), nll_grad_tape(&Z, target)] {
            let result = result.unwrap();
            assert_close(result.value, -p[target].ln(), 1e-14);
            assert_all_close(&result.gradient, &want, 1e-14);
        }
        assert!(nll_check(&Z, target).unwrap().passed());
    }
    // The compiled adjoint itself answers, its stack left empty: the call's
    // reverse took `p_bar` as the cotangent.
    assert_eq!(nll_grad_path(), GradientPath::Compiled);
    for target in 0..4 {
        let compiled = compiled(|stack| nll_adjoint(stack, &Z, target));
        assert_all_close(
            &compiled.gradient,
            &nll_grad_tape(&Z, target).unwrap().gradient,
            1e-14,
        );
    }
    // The call itself indexed compiles too: bound by a `let` first.
    assert_eq!(softmax_first_grad_path(), GradientPath::Compiled);
    let compiled = compiled(|stack| softmax_first_adjoint(stack, &Z));
    assert_all_close(
        &compiled.gradient,
        &softmax_first_grad_tape(&Z).unwrap().gradient,
        1e-14,
    );
    // ∂ ln p₀ / ∂z = e₀ − p.
    let want: Vec<f64> = (0..4)
        .map(|i| if i == 0 { 1.0 } else { 0.0 } - p[i])
        .collect();
    assert_all_close(&compiled.gradient, &want, 1e-14);
    assert!(softmax_first_check(&Z).unwrap().passed());
}

#[differentiable]
fn softmax_first(z: &[f64]) -> f64 {
    softmax(z)[0].ln()
}

/// The compiled adjoint's answer, which must be there, with the stack it
/// ran on left empty.
fn compiled<G>(
    run: impl FnOnce(&mut autodiff::__adjoint::Stack) -> Option<ValueAndGradient<G>>,
) -> ValueAndGradient<G> {
    autodiff::__adjoint::with_stack(|stack| {
        let result = run(stack).expect("compiled and finite");
        assert!(
            stack.is_empty(),
            "the reverse popped what the forward pushed"
        );
        result
    })
}

/// ADBench's projection, written as a helper returning `[f64; 2]`.
#[differentiable]
fn project(cam: [f64; 3], x: [f64; 2]) -> [f64; 2] {
    let s = cam[2].exp();
    [s * x[0] + cam[0], s * x[1] + cam[1]]
}

#[differentiable]
fn reprojection(cam: [f64; 3], x: [f64; 2], #[constant] seen: [f64; 2]) -> f64 {
    let p = project(cam, x);
    let (dx, dy) = (p[0] - seen[0], p[1] - seen[1]);
    dx * dx + dy * dy
}

#[test]
fn an_array_valued_helper_has_the_closed_form_jacobian() {
    let (cam, x) = ([0.5, -0.25, 0.3], [1.5, -2.0]);
    let s = 0.3_f64.exp();
    let jacobian = project_jacobian(cam, x).unwrap();
    // Columns: cam[0], cam[1], cam[2], x[0], x[1].
    let want = [[1.0, 0.0, s * x[0], s, 0.0], [0.0, 1.0, s * x[1], 0.0, s]];
    for i in 0..2 {
        assert_all_close(jacobian.row(i).unwrap(), &want[i], 1e-14);
    }
    let vjp = project_vjp(cam, x, [1.0, 2.0]).unwrap();
    assert_all_close(&vjp.value, &[s * 1.5 + 0.5, -s * 2.0 - 0.25], 1e-15);
    assert_all_close(
        &vjp.gradient.0,
        &[1.0, 2.0, s * x[0] + 2.0 * s * x[1]],
        1e-14,
    );
    assert_all_close(&vjp.gradient.1, &[s, 2.0 * s], 1e-14);
    let seen = [0.1, 0.2];
    let result = reprojection_grad(cam, x, seen).unwrap();
    let tape = reprojection_grad_tape(cam, x, seen).unwrap();
    let (dx, dy) = (s * x[0] + cam[0] - seen[0], s * x[1] + cam[1] - seen[1]);
    let want_cam = [2.0 * dx, 2.0 * dy, 2.0 * (dx * s * x[0] + dy * s * x[1])];
    assert_eq!(reprojection_grad_path(), GradientPath::Compiled);
    let compiled = compiled(|stack| reprojection_adjoint(stack, cam, x, seen));
    for result in [result, tape, compiled] {
        assert_close(result.value, dx * dx + dy * dy, 1e-14);
        assert_all_close(&result.gradient.0, &want_cam, 1e-13);
        assert_all_close(&result.gradient.1, &[2.0 * dx * s, 2.0 * dy * s], 1e-13);
    }
}

/// A tuple of a number and a vector.
#[differentiable]
fn polar(x: f64, y: f64) -> (f64, [f64; 2]) {
    let r = x.hypot(y);
    (r, [x / r, y / r])
}

#[differentiable]
fn uses_polar(x: f64, y: f64) -> f64 {
    let (r, unit) = polar(x, y);
    r * unit[0] + unit[1]
}

#[test]
fn a_tuple_valued_helper_destructured_by_its_caller() {
    let (x, y) = (0.6, -0.8);
    let jacobian = polar_jacobian(x, y).unwrap();
    assert_eq!((jacobian.rows(), jacobian.cols()), (3, 2));
    // r = 1 here: ∂r = (x, y); ∂(x/r) = (1 − x², −xy); ∂(y/r) = (−xy, 1 − y²).
    assert_all_close(jacobian.row(0).unwrap(), &[x, y], 1e-14);
    assert_all_close(jacobian.row(1).unwrap(), &[1.0 - x * x, -x * y], 1e-14);
    assert_all_close(jacobian.row(2).unwrap(), &[-x * y, 1.0 - y * y], 1e-14);
    let vjp = polar_vjp(x, y, (1.0, [0.0, 0.0])).unwrap();
    assert_close(vjp.value.0, 1.0, 1e-15);
    assert_all_close(&[vjp.gradient.0, vjp.gradient.1], &[x, y], 1e-14);
    // r·(x/r) + y/r = x + y/r: ∂x = 1 − xy/r³, ∂y = 1/r − y²/r³.
    for result in [uses_polar_grad(x, y), uses_polar_grad_tape(x, y)] {
        let result = result.unwrap();
        assert_close(result.value, x + y, 1e-15);
        assert_all_close(
            &[result.gradient.0, result.gradient.1],
            &[1.0 - x * y, 1.0 - y * y],
            1e-14,
        );
    }
    // The pattern bound to the call compiles: `let polar_out = polar(x,
    // y);`, then its fields.
    assert_eq!(uses_polar_grad_path(), GradientPath::Compiled);
    let compiled = compiled(|stack| uses_polar_adjoint(stack, x, y));
    assert_all_close(
        &[compiled.gradient.0, compiled.gradient.1],
        &[1.0 - x * y, 1.0 - y * y],
        1e-14,
    );
}

// Nested: `matmul` returning rows, then a helper of a helper.
#[differentiable]
fn row_softmax(a: &[Vec<f64>], b: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let s = matmul(a, b);
    s.iter().map(|row| softmax(row)).collect()
}

#[differentiable]
fn trace_loss(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
    let p = row_softmax(a, b);
    let mut total = 0.0;
    for i in 0..p.len() {
        total += p[i][i].ln();
    }
    -total
}

fn dual_trace_loss(a: &[Vec<Dual>], b: &[Vec<Dual>]) -> Dual {
    let mut total = Dual::constant(0.0);
    for i in 0..a.len() {
        let row: Vec<Dual> = (0..b[0].len())
            .map(|j| (0..b.len()).fold(Dual::constant(0.0), |s, k| s + a[i][k] * b[k][j]))
            .collect();
        let m = row.iter().fold(f64::NEG_INFINITY, |m, v| m.max(v.value));
        let s = row
            .iter()
            .fold(Dual::constant(0.0), |s, v| s + (*v - m).exp());
        total = total + ((row[i] - m).exp() / s).ln();
    }
    -total
}

#[test]
fn helpers_of_helpers_through_nested_vectors() {
    let a = vec![vec![0.2, -0.5, 1.0], vec![0.7, 0.1, -0.3]];
    let b = vec![vec![0.4, -1.1], vec![0.9, 0.3], vec![-0.2, 0.8]];
    let result = trace_loss_grad(&a, &b).unwrap();
    let tape = trace_loss_grad_tape(&a, &b).unwrap();
    // The dual-number oracle, one input component at a time.
    let flat_a: Vec<f64> = a.iter().flatten().copied().collect();
    let flat_b: Vec<f64> = b.iter().flatten().copied().collect();
    let n = flat_a.len() + flat_b.len();
    let mut want = Vec::new();
    for seeded in 0..n {
        let lift = |flat: &[f64], offset: usize, cols: usize| -> Vec<Vec<Dual>> {
            flat.chunks(cols)
                .enumerate()
                .map(|(r, row)| {
                    row.iter()
                        .enumerate()
                        .map(|(c, &v)| Dual::input(v, offset + r * cols + c == seeded))
                        .collect()
                })
                .collect()
        };
        let da = lift(&flat_a, 0, 3);
        let db = lift(&flat_b, flat_a.len(), 2);
        want.push(dual_trace_loss(&da, &db));
    }
    assert_eq!(trace_loss_grad_path(), GradientPath::Compiled);
    let compiled = compiled(|stack| trace_loss_adjoint(stack, &a, &b));
    for result in [&result, &tape, &compiled] {
        assert_close(result.value, want[0].value, 1e-14);
        let got: Vec<f64> = result
            .gradient
            .0
            .iter()
            .flatten()
            .chain(result.gradient.1.iter().flatten())
            .copied()
            .collect();
        let expected: Vec<f64> = want.iter().map(|d| d.tangent).collect();
        assert_all_close(&got, &expected, 1e-13);
    }
    let check = row_softmax_check(&a, &b).unwrap();
    assert!(check.passed(), "{check}");
    let jacobian = row_softmax_jacobian(&a, &b).unwrap();
    assert_eq!((jacobian.rows(), jacobian.cols()), (4, 12));
}

/// A layer as a method returning a `Vec`, in an annotated `impl`.
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Linear {
    w: Vec<Vec<f64>>,
    b: Vec<f64>,
}

#[differentiable]
impl Linear {
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        for i in 0..self.b.len() {
            let mut s = self.b[i];
            for j in 0..x.len() {
                s += self.w[i][j] * x[j];
            }
            out.push(s);
        }
        out
    }

    fn loss(&self, x: &[f64], #[constant] target: usize) -> f64 {
        let z = self.forward(x);
        let p = softmax(&z);
        -p[target].ln()
    }
}

#[test]
fn a_layer_method_returning_a_vector() {
    let layer = Linear {
        w: vec![vec![0.5, -0.3], vec![0.1, 0.8], vec![-0.6, 0.2]],
        b: vec![0.1, 0.0, -0.2],
    };
    let x = [1.5, -0.5];
    let cot = vec![1.0, -2.0, 0.5];
    let vjp = layer.forward_vjp(&x, cot.clone()).unwrap();
    let (model_bar, x_bar) = vjp.gradient;
    // ∂/∂w[i][j] = u_i x_j, ∂/∂b = u, ∂/∂x = Wᵀu.
    for i in 0..3 {
        assert_all_close(&model_bar.w[i], &[cot[i] * x[0], cot[i] * x[1]], 1e-15);
    }
    assert_all_close(&model_bar.b, &cot, 1e-15);
    let wtu: Vec<f64> = (0..2)
        .map(|j| (0..3).map(|i| layer.w[i][j] * cot[i]).sum())
        .collect();
    assert_all_close(&x_bar, &wtu, 1e-15);
    assert!(layer.forward_check(&x).unwrap().passed());
    // The loss: ∂/∂z = p − onehot, then through the layer.
    let z = layer.forward(&x);
    let p = plain_softmax(&z);
    let dz: Vec<f64> = (0..3)
        .map(|i| p[i] - if i == 2 { 1.0 } else { 0.0 })
        .collect();
    assert_eq!(layer.loss_grad_path(), GradientPath::Compiled);
    let compiled = compiled(|stack| Linear::__ad_loss_adjoint(stack, &layer, &x, 2));
    for result in [
        layer.loss_grad(&x, 2),
        layer.loss_grad_tape(&x, 2),
        Ok(compiled),
    ] {
        let (model_bar, _) = result.unwrap().gradient;
        assert_all_close(&model_bar.b, &dz, 1e-14);
        for i in 0..3 {
            assert_all_close(&model_bar.w[i], &[dz[i] * x[0], dz[i] * x[1]], 1e-14);
        }
    }
}

#[test]
fn a_cotangent_of_another_shape_or_not_finite_is_a_typed_error() {
    let error = softmax_vjp(&Z, vec![1.0, 2.0]).unwrap_err();
    assert_eq!(error.code(), "cotangent-mismatch");
    assert_eq!(
        error.to_string(),
        "the cotangent has 2 components, but the function's output has 4"
    );
    // Rows of other lengths with the same count (a 3 × 2 matrix for a
    // 2 × 3 output) would pair the wrong components.
    let a = vec![vec![0.5, -1.0], vec![1.5, 0.25]];
    let b = vec![vec![1.0, 0.0, -0.5], vec![0.5, 2.0, 1.0]];
    let error =
        row_softmax_vjp(&a, &b, vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![0.0, 0.0]]).unwrap_err();
    assert_eq!(error.code(), "cotangent-mismatch");
    assert_eq!(
        error.to_string(),
        "the cotangent has 6 components, but the function's output has 6 in `Vec`s of other lengths: it must have the same shape"
    );
    assert!(row_softmax_vjp(&a, &b, vec![vec![1.0, 0.0, 0.0], vec![0.0; 3]]).is_ok());
    let error = softmax_vjp(&Z, vec![1.0, f64::NAN, 0.0, 0.0]).unwrap_err();
    assert_eq!(error.code(), "non-finite-cotangent");
    assert!(error.to_string().contains("at index 1"), "{error}");
    // A good call after the refused ones is unchanged.
    let p = plain_softmax(&Z);
    assert_all_close(&softmax_vjp(&Z, vec![0.0; 4]).unwrap().value, &p, 1e-15);
    let error = project_vjp([0.0; 3], [0.0; 2], [f64::INFINITY, 0.0]).unwrap_err();
    assert_eq!(error.code(), "non-finite-cotangent");
}

#[differentiable]
fn logs(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| v.ln()).collect()
}

#[differentiable]
fn sum_of_logs(x: &[f64]) -> f64 {
    let l = logs(x);
    l.iter().sum()
}

#[test]
fn an_error_inside_a_vector_valued_helper_is_labelled_on_every_path() {
    let x = [1.0, -0.5, 2.0];
    for error in [
        logs_jacobian(&x).unwrap_err(),
        logs_vjp(&x, vec![1.0; 3]).unwrap_err(),
        logs_jvp(&x, vec![1.0; 3]).unwrap_err(),
        sum_of_logs_grad(&x).unwrap_err(),
        sum_of_logs_grad_tape(&x).unwrap_err(),
    ] {
        assert_eq!(error.code(), "non-finite-result", "{error}");
        assert!(error.to_string().contains("v.ln()"), "{error}");
    }
    // And the tape answers the next call as if nothing happened.
    let good = sum_of_logs_grad(&[1.0, 0.5, 2.0]).unwrap();
    assert_all_close(&good.gradient, &[1.0, 2.0, 0.5], 1e-15);
}

#[differentiable]
fn scaled(a: f64, b: f64) -> f64 {
    a * b
}

/// A call's value pushed onto a `Vec<f64>` bound with its type: a number
/// there, compiled.
#[differentiable]
fn pushed_onto_typed(x: f64) -> f64 {
    let start = [x * 2.0];
    let mut v: Vec<f64> = start.iter().map(|t| t * 1.5).collect();
    for _ in 0..1 {
        v.push(scaled(0.5, x).abs());
    }
    v[1] + v[0]
}

/// A call's value bound with a type that is not a number keeps the tape.
#[differentiable]
fn typed_as_rows(z: &[f64]) -> f64 {
    let rows: Vec<Vec<f64>> = vec![softmax(z), softmax(z)];
    rows[0][0] + rows[1][1]
}

#[test]
fn calls_read_as_numbers_beside_typed_bindings() {
    // 3x + |x/2| at x = 0.8: 3.5.
    let compiled = compiled(|stack| pushed_onto_typed_adjoint(stack, 0.8));
    assert_close(compiled.value, 2.8, 1e-15);
    assert_close(compiled.gradient, 3.5, 1e-15);
    assert_eq!(pushed_onto_typed_grad_path(), GradientPath::Compiled);
    let p = plain_softmax(&Z);
    let result = typed_as_rows_grad(&Z).unwrap();
    assert_close(result.value, p[0] + p[1], 1e-15);
    let want: Vec<f64> = (0..4)
        .map(|j| {
            let d = |i: usize| if i == j { p[i] } else { 0.0 } - p[i] * p[j];
            d(0) + d(1)
        })
        .collect();
    assert_all_close(&result.gradient, &want, 1e-14);
    assert!(matches!(
        typed_as_rows_grad_path(),
        GradientPath::Tape { .. }
    ));
}

/// A vector-valued function returning constant data as it is (`c.to_vec()`):
/// its Jacobian is zero, and a caller's gradient through it too.
#[differentiable]
fn constant_rows(x: &[f64], #[constant] c: &[f64]) -> Vec<f64> {
    let _ = x;
    c.to_vec()
}

#[differentiable]
fn through_constant_rows(x: &[f64], #[constant] c: &[f64]) -> f64 {
    let v = constant_rows(x, c);
    v[0] * x[0] + v[1]
}

#[test]
fn a_vector_function_may_return_constant_data() {
    let (x, c) = ([0.3, -0.8], [2.0, 1.0]);
    let jacobian = constant_rows_jacobian(&x, &c).unwrap();
    assert_eq!((jacobian.rows(), jacobian.cols()), (2, 2));
    assert!((0..2).all(|i| (0..2).all(|j| jacobian.get(i, j) == 0.0)));
    let got = through_constant_rows_grad(&x, &c).unwrap();
    assert_eq!(got.gradient, vec![2.0, 0.0]);
    assert_eq!(got.value, 2.0 * 0.3 + 1.0);
}

/// The components of `x` above `threshold`, scaled: empty when none is.
#[differentiable]
fn scaled_above(x: &[f64], #[constant] threshold: f64) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..x.len() {
        if x[i] > threshold {
            out.push(2.0 * x[i]);
        }
    }
    out
}

#[test]
fn an_empty_output_has_a_jacobian_as_wide_as_the_inputs() {
    let x = [0.5, -1.0, 2.0];
    let jacobian = scaled_above_jacobian(&x, 10.0).unwrap();
    assert_eq!((jacobian.rows(), jacobian.cols()), (0, 3));
    assert_eq!(jacobian.transpose_times(&[]), Some(vec![0.0; 3]));
    let jacobian = scaled_above_jacobian(&x, 1.0).unwrap();
    assert_eq!((jacobian.rows(), jacobian.cols()), (1, 3));
    assert_all_close(jacobian.row(0).unwrap(), &[0.0, 0.0, 2.0], 1e-15);
    let vjp = scaled_above_vjp(&x, 10.0, Vec::new()).unwrap();
    assert_eq!(vjp.gradient, vec![0.0; 3]);
}
