//! `f_jvp`, `f_hvp` and `f_hessian` of `#[differentiable]` functions,
//! methods and models, against closed forms, against central differences
//! of `f_grad` (the Hessian is the gradient's Jacobian), and for symmetry.
#![allow(clippy::needless_range_loop)] // matrices indexed as the maths writes them

#[path = "support/oracle.rs"]
#[allow(dead_code)]
mod oracle;

use autodiff::prelude::*;
use autodiff::Parameters;
use oracle::{assert_all_close_named, close};

/// `(g(h) − g(−h)) / 2h` of a gradient `g(t)` taken at `x + t·v`: the
/// Hessian along `v` by central differences.
fn along(grad_at: impl Fn(f64) -> Vec<f64>, h: f64) -> Vec<f64> {
    grad_at(h)
        .iter()
        .zip(grad_at(-h))
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect()
}

/// Column `j` of the Hessian by central differences of a gradient:
/// `(∇f(x + h eⱼ) − ∇f(x − h eⱼ)) / 2h`.
fn gradient_differences(grad: impl Fn(&[f64]) -> Vec<f64>, x: &[f64], j: usize) -> Vec<f64> {
    let h = 1e-5 * x[j].abs().max(1.0);
    along(
        |t| {
            let mut moved = x.to_vec();
            moved[j] += t;
            grad(&moved)
        },
        h,
    )
}

/// Checks `f_hessian` at `x` against central differences of `f_grad`,
/// its symmetry, and `f_hvp` along `v` against `H·v`.
fn check_all(
    grad: impl Fn(&[f64]) -> Vec<f64>,
    hessian: &Hessian,
    hvp: &[f64],
    x: &[f64],
    v: &[f64],
    what: &str,
) {
    let n = x.len();
    assert_eq!((hessian.rows(), hessian.cols()), (n, n), "{what}");
    for j in 0..n {
        let column = gradient_differences(&grad, x, j);
        let got: Vec<f64> = (0..n).map(|i| hessian.get(i, j)).collect();
        assert_all_close_named(&got, &column, 1e-6, &format!("{what}: H column {j}"));
    }
    assert!(
        hessian.max_asymmetry() <= 1e-10,
        "{what}: asymmetry {}",
        hessian.max_asymmetry()
    );
    let product = hessian.times(v).unwrap();
    assert_all_close_named(hvp, &product, 1e-12, &format!("{what}: hvp vs H·v"));
}

#[differentiable]
fn rosenbrock(p: [f64; 2]) -> f64 {
    let a = 1.0 - p[0];
    let b = p[1] - p[0] * p[0];
    a * a + 100.0 * b * b
}

#[test]
fn rosenbrock_hessian_is_the_closed_form() -> Result<(), ScalarAutodiffError> {
    for p in [[-1.2, 1.0], [1.0, 1.0], [0.3, -0.7]] {
        let (x, y) = (p[0], p[1]);
        let want = [
            [1200.0 * x * x - 400.0 * y + 2.0, -400.0 * x],
            [-400.0 * x, 200.0],
        ];
        let h = rosenbrock_hessian(p)?;
        for i in 0..2 {
            for j in 0..2 {
                assert!(
                    close(h.get(i, j), want[i][j], 1e-14),
                    "H[{i}][{j}] at {p:?}"
                );
            }
        }
        let v = [0.3, -2.0];
        let result = rosenbrock_hvp(p, v)?;
        assert_eq!(result.value, rosenbrock(p));
        assert_eq!(result.gradient, rosenbrock_grad(p)?.gradient);
        for i in 0..2 {
            let want_i = want[i][0] * v[0] + want[i][1] * v[1];
            assert!(close(result.hvp[i], want_i, 1e-14), "hvp[{i}]");
        }
        let forward = rosenbrock_jvp(p, v)?;
        let g = result.gradient;
        assert_eq!(forward.value, rosenbrock(p));
        assert!(close(forward.tangent, g[0] * v[0] + g[1] * v[1], 1e-14));
    }
    Ok(())
}

/// Loops, a data-dependent branch, an early return, a call of another
/// annotated function, several parameter kinds.
#[differentiable]
fn smooth_part(a: f64, b: f64) -> f64 {
    (a * b).sin() + a.exp() / (1.0 + b * b)
}

#[differentiable]
fn mixed(w: &[f64], s: f64, #[constant] steps: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..steps {
        let k = i % w.len();
        let z = w[k] * s + (i as f64) * 0.1;
        if z > 0.5 {
            total += z.tanh() * z;
        } else {
            total += smooth_part(z, w[0]).powi(2) / 3.0;
        }
        if total > 20.0 {
            return total.ln() * s;
        }
    }
    total + w.iter().map(|v| v * v * v).sum::<f64>() * s.sqrt()
}

#[test]
fn loops_branches_returns_and_calls_match_central_differences_of_the_gradient(
) -> Result<(), ScalarAutodiffError> {
    let steps = 7;
    for (w, s) in [
        (vec![0.3, -0.8, 1.1], 0.9),
        (vec![1.4, 0.2], 2.5),
        (vec![-0.4, 0.6, 0.05, 0.9], 1.7),
    ] {
        let grad = |x: &[f64]| -> Vec<f64> {
            let n = x.len() - 1;
            let result = mixed_grad(&x[..n], x[n], steps).unwrap();
            let mut out = result.gradient.0;
            out.push(result.gradient.1);
            out
        };
        let mut x = w.clone();
        x.push(s);
        let v: Vec<f64> = (0..x.len()).map(|i| 0.5 - 0.3 * i as f64).collect();
        let n = w.len();
        let hessian = mixed_hessian(&w, s, steps)?;
        let result = mixed_hvp(&w, s, steps, (v[..n].to_vec(), v[n]))?;
        let mut hvp = result.hvp.0.clone();
        hvp.push(result.hvp.1);
        check_all(grad, &hessian, &hvp, &x, &v, "mixed");
        // The gradient part is f_grad's.
        let first = mixed_grad(&w, s, steps)?;
        assert_eq!(result.value, first.value);
        assert_all_close_named(&result.gradient.0, &first.gradient.0, 1e-15, "gradient");
        // Forward mode is ∇f · v.
        let forward = mixed_jvp(&w, s, steps, (v[..n].to_vec(), v[n]))?;
        let dot: f64 = grad(&x).iter().zip(&v).map(|(g, v)| g * v).sum();
        assert!(
            close(forward.tangent, dot, 1e-13),
            "{} vs {dot}",
            forward.tangent
        );
    }
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Quadratic {
    a: [[f64; 2]; 2],
    b: [f64; 2],
    #[constant]
    scale: f64,
}

#[differentiable]
impl Quadratic {
    /// ½ xᵀAx + b·x, scaled, for a point x: its Hessian in (A, b) is 0,
    /// in the model it is not (the loss below squares it).
    fn value_at(&self, x: [f64; 2]) -> f64 {
        let mut total = 0.0;
        for i in 0..2 {
            for j in 0..2 {
                total += 0.5 * x[i] * self.a[i][j] * x[j];
            }
            total += self.b[i] * x[i];
        }
        total * self.scale
    }

    fn loss(&self, x: [f64; 2], #[constant] target: f64) -> f64 {
        let e = self.value_at(x) - target;
        e * e
    }
}

#[test]
fn a_model_method_has_model_shaped_hvp_and_a_hessian_over_its_components(
) -> Result<(), ScalarAutodiffError> {
    let model = Quadratic {
        a: [[1.0, 0.4], [-0.2, 2.0]],
        b: [0.5, -1.5],
        scale: 0.7,
    };
    let x = [0.8, -0.3];
    let target = 0.25;
    let flat = model.scalars();
    let n = flat.len() + 2;
    let rebuild = |p: &[f64]| {
        let mut m = model.clone();
        m.set_from_slice(&p[..flat.len()]).unwrap();
        (m, [p[flat.len()], p[flat.len() + 1]])
    };
    let grad = |p: &[f64]| -> Vec<f64> {
        let (m, x) = rebuild(p);
        let result = m.loss_grad(x, target).unwrap();
        let mut out = result.gradient.0.scalars();
        out.extend(result.gradient.1);
        out
    };
    let mut point = flat.clone();
    point.extend(x);
    let v: Vec<f64> = (0..n).map(|i| ((i * 7 % 5) as f64 - 2.0) * 0.25).collect();
    let (mut direction_model, direction_x) = rebuild(&v);
    direction_model.scale = 123.0; // a constant field of a direction is not read
    let hessian = model.loss_hessian(x, target)?;
    let result = model.loss_hvp(x, target, (direction_model, direction_x))?;
    assert_eq!(result.hvp.0.scale, model.scale, "constants are the model's");
    let mut hvp = result.hvp.0.scalars();
    hvp.extend(result.hvp.1);
    check_all(grad, &hessian, &hvp, &point, &v, "model");
    Ok(())
}

#[differentiable]
fn kinks(x: [f64; 3]) -> f64 {
    relu(x[0]) * 3.0 + x[1].abs() * 2.0 + x[2].max(0.5) * x[0]
}

#[test]
fn kinks_have_second_derivative_zero() -> Result<(), ScalarAutodiffError> {
    // relu, abs and max are piecewise linear: the only second derivative
    // is the product x[2] · x[0] (on the piece where x[2] > 0.5).
    let h = kinks_hessian([0.7, -0.2, 1.5])?;
    let want = [[0.0, 0.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]];
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(h.get(i, j), want[i][j], "({i}, {j})");
        }
    }
    // At the kinks themselves too.
    let h = kinks_hessian([0.0, 0.0, 0.5])?;
    assert_eq!(h.get(0, 0), 0.0);
    assert_eq!(h.get(1, 1), 0.0);
    Ok(())
}

#[differentiable]
fn power(a: f64, b: f64) -> f64 {
    a.powf(b)
}

#[test]
fn a_power_at_exponent_zero_keeps_its_mixed_second_derivative() -> Result<(), ScalarAutodiffError> {
    // ∂²(aᵇ)/∂a∂b = aᵇ⁻¹(1 + b ln a): 1/a at b = 0, where the first
    // derivative by the base, b·aᵇ⁻¹, is 0 (found by the random programs,
    // seed 16001: f_hvp gave 0 for it).
    let h = power_hessian(2.0, 0.0)?;
    assert_eq!(h.get(0, 1), 0.5);
    assert_eq!(h.get(1, 0), 0.5);
    // ∂²/∂a² = b(b−1)aᵇ⁻², 0 at b = 0; ∂²/∂b² = ln²a · aᵇ.
    assert_eq!(h.get(0, 0), 0.0);
    assert!((h.get(1, 1) - 2.0_f64.ln().powi(2)).abs() < 1e-15);
    Ok(())
}

#[differentiable]
fn pointy(x: f64, y: f64) -> f64 {
    x.powf(1.5) + y * x
}

#[test]
fn an_infinite_second_derivative_is_an_error_where_first_order_is_fine() {
    // d/dx x^1.5 = 1.5 √x = 0 at 0; its derivative is infinite.
    assert!(pointy_grad(0.0, 1.0).is_ok());
    assert!(pointy_jvp(0.0, 1.0, (1.0, 1.0)).is_ok());
    let error = pointy_hvp(0.0, 1.0, (1.0, 0.0)).unwrap_err();
    assert_eq!(error.code(), "non-finite-second-derivative");
    assert!(error.to_string().contains("x.powf(1.5)"), "{error}");
    let error = pointy_hessian(0.0, 1.0).unwrap_err();
    assert_eq!(error.code(), "non-finite-second-derivative");
    // Away from 0 it is 0.75/√x.
    let h = pointy_hessian(0.25, 1.0).unwrap();
    assert!(close(h.get(0, 0), 1.5, 1e-15));
    assert_eq!(h.get(0, 1), 1.0);
}

#[differentiable]
fn log_sum_exp(v: &[f64]) -> f64 {
    let m = v.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s = v.iter().map(|x| (x - m).exp()).sum::<f64>();
    m + s.ln()
}

/// `ln Σ eᶻ` as first written, without the max taken out (probe 19):
/// with logits near 400 its Hessian came out as `diag(p)`, without the
/// `−p pᵀ` part, as `Ok` on both paths. `∂(1/s)/∂s = −1/s²` is below the
/// smallest `f64` there, and its product with `ṡ = s·v` was 0, where the
/// tangent `−v/s` is not.
#[differentiable]
fn naive_log_sum_exp(z: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..z.len() {
        s += z[i].exp();
    }
    s.ln()
}

#[differentiable]
fn ln_of_exp(x: f64) -> f64 {
    x.exp().ln()
}

#[test]
fn a_hessian_through_large_exponentials_keeps_every_term() -> Result<(), ScalarAutodiffError> {
    for z in [
        [4.0_f64, 3.0],
        [360.0, 359.0],
        [400.0, 399.0],
        [700.0, 701.5],
    ] {
        let s: f64 = z.iter().map(|v| (v - z[0]).exp()).sum();
        let p: Vec<f64> = z.iter().map(|v| (v - z[0]).exp() / s).collect();
        for h in [
            naive_log_sum_exp_hessian(&z)?,
            autodiff::__private::second_order_on_tape(|| naive_log_sum_exp_hessian(&z))?,
        ] {
            for i in 0..2 {
                for j in 0..2 {
                    let want = if i == j { p[i] } else { 0.0 } - p[i] * p[j];
                    assert!(
                        (h.get(i, j) - want).abs() < 1e-12,
                        "{z:?} ({i}, {j}): {} vs {want}",
                        h.get(i, j)
                    );
                }
            }
        }
    }
    for x in [300.0, 360.0, 400.0, 700.0] {
        for hvp in [
            ln_of_exp_hvp(x, 1.0)?,
            autodiff::__private::second_order_on_tape(|| ln_of_exp_hvp(x, 1.0))?,
        ] {
            assert!(close(hvp.gradient, 1.0, 1e-15));
            assert!(hvp.hvp.abs() < 1e-12, "{x}: {}", hvp.hvp);
        }
        assert!(ln_of_exp_hessian(x)?.get(0, 0).abs() < 1e-12);
    }
    Ok(())
}

#[derive(Clone, Debug, Parameters)]
struct Row {
    w: Vec<f64>,
}

#[differentiable]
impl Row {
    fn length(&self) -> f64 {
        let mut s = 0.0;
        for i in 0..self.w.len() {
            s += self.w[i] * self.w[i];
        }
        s.sqrt()
    }
}

#[test]
fn a_hessian_of_no_components_still_runs_the_body() {
    use autodiff::__adjoint::compiled_hessians;
    // `ln` of an empty sum: no column to compute, but the value is −∞,
    // the tape's error on every path (the compiled one answered an empty
    // `Ok` before).
    let tape = autodiff::__private::second_order_on_tape(|| log_sum_exp_hessian(&[])).unwrap_err();
    assert_eq!(tape.code(), "non-finite-result");
    assert_eq!(
        log_sum_exp_grad(&[]).unwrap_err().to_string(),
        tape.to_string()
    );
    assert_eq!(
        log_sum_exp_hessian(&[]).unwrap_err().to_string(),
        tape.to_string()
    );
    // √0 of a model's empty row: its derivative is infinite.
    let empty = Row { w: vec![] };
    let error = empty.length_hessian().unwrap_err();
    assert_eq!(error.code(), "non-finite-local-derivative");
    assert_eq!(
        empty.length_grad().unwrap_err().to_string(),
        error.to_string()
    );
    // With components, both are compiled and are the closed forms:
    // diag(p) − p pᵀ, and (I − u uᵀ)/‖w‖.
    let before = compiled_hessians();
    let h = log_sum_exp_hessian(&[0.5, -1.0]).unwrap();
    let (a, b) = (0.5_f64.exp(), (-1.0_f64).exp());
    let p = [a / (a + b), b / (a + b)];
    for i in 0..2 {
        for j in 0..2 {
            let want = if i == j { p[i] } else { 0.0 } - p[i] * p[j];
            assert!(close(h.get(i, j), want, 1e-14), "({i}, {j})");
        }
    }
    let h = Row { w: vec![3.0, 4.0] }.length_hessian().unwrap();
    let u = [0.6, 0.8];
    for i in 0..2 {
        for j in 0..2 {
            let want = (if i == j { 1.0 } else { 0.0 } - u[i] * u[j]) / 5.0;
            assert!(close(h.get(i, j), want, 1e-14), "({i}, {j})");
        }
    }
    assert_eq!(compiled_hessians(), before + 2, "compiled");
}

#[differentiable]
fn dot_self(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a * a).sum()
}

#[test]
fn a_direction_of_the_wrong_shape_is_a_typed_error_naming_the_parameter() {
    let error = dot_self_hvp(&[1.0, 2.0], vec![1.0]).unwrap_err();
    assert_eq!(error.code(), "direction-mismatch");
    assert_eq!(
        error.to_string(),
        "the direction for `v` has 1 components, but `v` has 2"
    );
    let error = dot_self_jvp(&[1.0, 2.0], vec![1.0, 2.0, 3.0]).unwrap_err();
    assert_eq!(error.code(), "direction-mismatch");
    let error = dot_self_jvp(&[1.0, 2.0], vec![2.0, f64::NAN]).unwrap_err();
    assert_eq!(
        error.to_string(),
        "the direction for `v` has non-finite component NaN at index 1"
    );
    let error = dot_self_hvp(&[1.0, 2.0], vec![f64::INFINITY, 0.0]).unwrap_err();
    assert_eq!(error.code(), "non-finite-direction");
    // The right shape: 6·diag(v).
    let h = dot_self_hessian(&[1.0, 2.0]).unwrap();
    assert_eq!([h.get(0, 0), h.get(0, 1), h.get(1, 1)], [6.0, 0.0, 12.0]);
    let shown = h.to_string();
    assert_eq!(shown, "Hessian (2 × 2)\n[ 6   0]\n[ 0  12]\n");
}

#[differentiable]
fn first_only(x: f64, _y: f64) -> f64 {
    x * 2.0
}

#[test]
fn an_output_that_ignores_a_parameter_has_zero_rows_for_it() -> Result<(), ScalarAutodiffError> {
    let h = first_only_hessian(1.0, 3.0)?;
    assert_eq!((h.rows(), h.get(1, 1), h.get(0, 0)), (2, 0.0, 0.0));
    let result = first_only_hvp(1.0, 3.0, (1.0, 1.0))?;
    assert_eq!(result.gradient, (2.0, 0.0));
    assert_eq!(result.hvp, (0.0, 0.0));
    Ok(())
}

#[differentiable]
fn product(v: &[f64; 3], scale: [f64; 1]) -> f64 {
    v[0] * v[1] * v[2] * scale[0]
}

#[test]
fn every_parameter_kind_gives_its_gradient_shape() -> Result<(), ScalarAutodiffError> {
    // A reference to an array has a `Vec` gradient, as in `f_grad`.
    let result = product_hvp(&[1.0, 2.0, 3.0], [1.0], (vec![1.0, 0.0, 0.0], [0.0]))?;
    assert_eq!(
        result.gradient,
        product_grad(&[1.0, 2.0, 3.0], [1.0])?.gradient
    );
    // Column 0 of H: (0, v₂s, v₁s, v₁v₂) = (0, 3, 2, 6).
    assert_eq!(result.hvp, (vec![0.0, 3.0, 2.0], [6.0]));
    Ok(())
}

#[differentiable]
fn owned(v: Vec<f64>, q: Quadratic) -> f64 {
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * v[i] * q.b[i % 2];
    }
    s * q.a[0][1]
}

#[test]
fn parameters_taken_by_value_give_the_same_shapes() -> Result<(), ScalarAutodiffError> {
    let q = Quadratic {
        a: [[0.0, 2.0], [0.0, 0.0]],
        b: [1.0, 3.0],
        scale: 5.0,
    };
    let v = vec![1.0, -1.0, 0.5];
    // ∂²/∂vᵢ² = 2·b[i % 2]·a01; along e₀ only v₀ and the factors it meets move.
    let mut along = q.zeroed();
    along.scale = 0.0;
    let result = owned_hvp(v.clone(), q.clone(), (vec![1.0, 0.0, 0.0], along))?;
    assert_eq!(result.hvp.0, vec![4.0, 0.0, 0.0]);
    assert_eq!(result.hvp.1.scale, 5.0, "the model's constant");
    // ∂²/∂v₀∂b₀ = 2v₀·a01 = 4, ∂²/∂v₀∂a01 = 2v₀·b₀ = 2.
    assert_eq!((result.hvp.1.b, result.hvp.1.a[0][1]), ([4.0, 0.0], 2.0));
    let h = owned_hessian(v, q)?;
    assert_eq!(h.rows(), 3 + 6);
    assert!(h.max_asymmetry() <= 1e-12);
    Ok(())
}

#[test]
fn a_hessian_multiplies_a_vector_of_its_size_only() {
    let h = autodiff::Hessian::from_rows(vec![vec![2.0, 1.0], vec![1.0, 3.0]]).unwrap();
    assert_eq!(h.times(&[1.0, -1.0]), Some(vec![1.0, -2.0]));
    assert_eq!(h.times(&[1.0]), None);
    assert_eq!(h.row(1), Some(&[1.0, 3.0][..]));
    assert!(autodiff::Hessian::from_rows(vec![vec![1.0]; 2]).is_none());
    let empty = autodiff::Hessian::from_rows(Vec::new()).unwrap();
    assert_eq!(empty.times(&[]), Some(Vec::new()));
}

#[differentiable]
fn scaled(x: f64) -> f64 {
    let mut s = x;
    for i in 0..3 {
        s = s * 1e200 + (i as f64) * 0.0;
    }
    s
}

#[test]
fn a_tangent_that_overflows_names_its_operands_and_iteration() {
    // At x = 1e-300 every value is finite (1e-100, 1e100, 1e300), but the
    // derivative along 1 is 1e200 after the first step and 1e400 after the
    // second: forward mode fails at i = 1, on the product.
    assert!(scaled(1e-300).is_finite());
    let error = scaled_jvp(1e-300, 1.0).unwrap_err();
    assert_eq!(error.code(), "non-finite-tangent");
    let message = error.to_string();
    assert!(
        message.starts_with("mul of 1e-100 and 1e200 produced non-finite tangent inf"),
        "{message}"
    );
    assert!(message.ends_with("i = 1)"), "{message}");
}

/// A value the output never reads (a dead `let`, as a student leaves
/// one) whose tangent overflows: `x⁴·1e300` at `x = 1e10`.
#[differentiable]
fn dead_overflow(x: f64) -> f64 {
    let _unused = x * x * x * x * 1e-300 * x.exp();
    x.sin() * x
}

#[test]
fn a_tangent_that_overflows_where_the_output_does_not_read_it_is_no_error(
) -> Result<(), ScalarAutodiffError> {
    // At x = 700: x⁴·1e-300·eˣ ≈ 2.4e15 is finite, and so is its own
    // derivative, but along 1e300 the dead value's tangent overflows;
    // the output, x·sin x, reads none of it. Seed 19201's f3_16 failed
    // f_jvp this way while f_grad answered (the reverse never reaches
    // a value the output does not read).
    let x: f64 = 700.0;
    let v = 1e300;
    let want = (x.sin() + x * x.cos()) * v;
    let jvp = dead_overflow_jvp(x, v)?;
    assert_eq!(jvp.value, dead_overflow(x));
    assert!(close(jvp.tangent, want, 1e-12), "{} vs {want}", jvp.tangent);
    // H·v = (2 cos x − x sin x)·v.
    let hvp = dead_overflow_hvp(x, v)?;
    let second = (2.0 * x.cos() - x * x.sin()) * v;
    assert!(close(hvp.hvp, second, 1e-12), "{} vs {second}", hvp.hvp);
    // A tangent the output reads still fails (the test above).
    assert!(dead_overflow_grad(x)?.gradient.is_finite());
    Ok(())
}

#[test]
fn a_gradient_after_a_second_order_call_runs_its_reverse_pass() -> Result<(), ScalarAutodiffError> {
    // `f_hvp` records through the tape path on a tape that keeps the
    // output instead of running the reverse pass; its buffers go to the
    // next `Tape::new` on this thread, which must not keep outputs too.
    let p = [-1.2, 1.0];
    let (x, y) = (p[0], p[1]);
    let want = [
        -2.0 * (1.0 - x) - 400.0 * x * (y - x * x),
        200.0 * (y - x * x),
    ];
    rosenbrock_hvp(p, [1.0, 0.0])?;
    rosenbrock_hessian(p)?;
    rosenbrock_jvp(p, [1.0, 0.0])?;
    let tape = rosenbrock_grad_tape(p)?.gradient;
    for i in 0..2 {
        assert!(close(tape[i], want[i], 1e-12), "tape gradient [{i}]");
    }
    assert_eq!(rosenbrock_grad(p)?.gradient, tape);
    rosenbrock_hvp(p, [0.0, 1.0])?;
    let own = Tape::new();
    let a = own.variable(3.0)?;
    a.mul(a)?.backward()?;
    assert_eq!(a.gradient(), Some(6.0));
    Ok(())
}

/// Thirteen parameters: more than the runtime's tuples take, so the
/// direction's checks and the result's shape are written out.
#[differentiable]
#[allow(clippy::too_many_arguments)]
fn thirteen(
    a: f64,
    b: f64,
    c: f64,
    d: f64,
    e: f64,
    f: f64,
    g: f64,
    h: f64,
    i: f64,
    j: f64,
    k: f64,
    l: f64,
    m: [f64; 2],
) -> f64 {
    a * b + c * d + e * f + g * h + i * j + k * l + m[0] * m[1] * a
}

#[test]
fn many_parameters_have_the_same_second_order_items() -> Result<(), ScalarAutodiffError> {
    let x = [
        1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
    ];
    let m = [0.5, -1.5];
    let one = (
        1.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        0.0,
        [0.0, 1.0],
    );
    let result = thirteen_hvp(
        x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], m, one,
    )?;
    // Along a and m₁: ∂²/∂a∂b = 1, ∂²/∂a∂m₁ = m₀, ∂²/∂m₀∂a = m₁,
    // ∂²/∂m₀∂m₁ = a.
    assert_eq!(result.hvp.1, 1.0);
    assert_eq!(result.hvp.0, m[0]);
    assert_eq!(result.hvp.12, [m[1] + x[0], m[0]]);
    assert_eq!(result.gradient.0, x[1] + m[0] * m[1]);
    let forward = thirteen_jvp(
        x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], m, one,
    )?;
    assert_eq!(forward.tangent, result.gradient.0 + result.gradient.12[1]);
    let hessian = thirteen_hessian(
        x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], x[10], x[11], m,
    )?;
    assert_eq!(
        (hessian.rows(), hessian.get(0, 1), hessian.get(12, 13)),
        (14, 1.0, x[0])
    );
    Ok(())
}

// f_hvp through the compiled adjoint on dual numbers (forward over
// reverse through the generated sweep), against the tape's f_hvp
// (`f_hvp_tape`) and central differences of f_grad.

/// A network layer by hand: loops, a `#[constant]`, `i as f64`, literals
/// on either side of tracked values, `tanh`, `exp`, `max` of two tracked
/// values.
#[differentiable]
fn layer_loss(w: &[[f64; 3]], b: &[f64], #[constant] x: &[f64], #[constant] target: f64) -> f64 {
    let mut out = 0.0;
    for j in 0..w.len() {
        let mut z: f64 = b[j];
        for i in 0..x.len() {
            z += w[j][i] * x[i] + 0.01 * (i as f64);
        }
        let h = z.tanh().max(0.5 * z - 3.0);
        out += h * (1.0 + (j as f64)) - 0.1 * z.exp();
    }
    let e = out - target;
    2.0 * e * e
}

/// Branches, an early `return`, a `while` with `break`, a comparison with
/// the constant first, `powi`, `sin`, `ln`.
#[differentiable]
fn branchy(x: f64, v: [f64; 3], #[constant] limit: f64) -> f64 {
    let mut s = 0.0;
    let mut k = 0;
    while k < 3 {
        if 0.0 < v[k] {
            s += v[k] * x.sin();
        } else {
            s -= 0.5 * v[k].powi(2);
        }
        if s > limit {
            break;
        }
        k += 1;
    }
    if s > 2.0 * limit {
        return (s * s + 1.0).ln() * x;
    }
    let t = if x > 1.0 { x * s } else { s - x };
    let t = t.max(-50.0) + x.abs().powf(2.5);
    t * t + x.powi(3) / 3.0
}

/// `x.powf(y)` of two tracked values: at `x = 0` its gradient is finite,
/// its second derivative by `x` is not.
#[differentiable]
fn tracked_power(x: f64, y: f64) -> f64 {
    x.powf(y) + y * x
}

/// `f_hvp` ran its compiled adjoint on dual numbers exactly once during
/// `run`.
fn compiled_once<T>(run: impl FnOnce() -> T) -> T {
    let before = autodiff::__adjoint::compiled_hvps();
    let out = run();
    assert_eq!(
        autodiff::__adjoint::compiled_hvps(),
        before + 1,
        "f_hvp was not compiled"
    );
    out
}

#[test]
fn compiled_hvp_of_loops_and_constants_matches_the_tape_and_central_differences(
) -> Result<(), ScalarAutodiffError> {
    let x = [0.4, -0.7, 1.2];
    let w = vec![[0.3, -0.2, 0.5], [-0.6, 0.1, 0.4], [0.2, 0.8, -0.3]];
    let b = vec![0.1, -0.2, 0.3];
    let dw = vec![[0.5, 0.1, -0.2], [0.3, -0.4, 0.2], [0.1, 0.0, 0.6]];
    let db = vec![-0.3, 0.2, 0.7];
    let flat = |w: &[[f64; 3]], b: &[f64]| -> Vec<f64> {
        let mut out: Vec<f64> = w.iter().flatten().copied().collect();
        out.extend_from_slice(b);
        out
    };
    let unflat = |p: &[f64]| -> (Vec<[f64; 3]>, Vec<f64>) {
        let w = p[..9].chunks(3).map(|r| [r[0], r[1], r[2]]).collect();
        (w, p[9..].to_vec())
    };
    let result = compiled_once(|| layer_loss_hvp(&w, &b, &x, 0.3, (dw.clone(), db.clone())))?;
    let tape = autodiff::__private::second_order_on_tape(|| {
        layer_loss_hvp(&w, &b, &x, 0.3, (dw.clone(), db.clone()))
    })?;
    let (got, want) = (
        flat(&result.hvp.0, &result.hvp.1),
        flat(&tape.hvp.0, &tape.hvp.1),
    );
    assert_all_close_named(&got, &want, 1e-13, "layer: compiled vs tape H·v");
    let first = layer_loss_grad(&w, &b, &x, 0.3)?;
    assert!(close(result.value, first.value, 1e-15));
    assert_all_close_named(
        &flat(&result.gradient.0, &result.gradient.1),
        &flat(&first.gradient.0, &first.gradient.1),
        1e-14,
        "layer: gradient",
    );
    // Central differences of f_grad along the direction.
    let p = flat(&w, &b);
    let v = flat(&dw, &db);
    let grad_at = |t: f64| {
        let point: Vec<f64> = p.iter().zip(&v).map(|(p, v)| p + t * v).collect();
        let (w, b) = unflat(&point);
        let g = layer_loss_grad(&w, &b, &x, 0.3).unwrap().gradient;
        flat(&g.0, &g.1)
    };
    let differences = along(grad_at, 1e-5);
    assert_all_close_named(&got, &differences, 1e-5, "layer: central differences");
    Ok(())
}

#[test]
fn compiled_hvp_through_branches_breaks_and_returns_matches_the_tape(
) -> Result<(), ScalarAutodiffError> {
    // Points that take each exit: the tail, the early return, the break.
    for (x, v, limit) in [
        (0.8, [0.5, -0.3, 0.9], 5.0),
        (1.6, [0.9, 1.2, 0.7], 0.4),
        (0.3, [-0.2, 0.4, 0.6], 0.1),
        (1.3, [1.5, 1.4, -0.8], 100.0),
    ] {
        let (dx, dv) = (0.7, [0.2, -0.5, 0.3]);
        let result = compiled_once(|| branchy_hvp(x, v, limit, (dx, dv)))?;
        let tape =
            autodiff::__private::second_order_on_tape(|| branchy_hvp(x, v, limit, (dx, dv)))?;
        let mut got = vec![result.hvp.0];
        got.extend(result.hvp.1);
        let mut want = vec![tape.hvp.0];
        want.extend(tape.hvp.1);
        assert_all_close_named(&got, &want, 1e-13, "branchy: compiled vs tape");
        let grad_at = |t: f64| {
            let moved = [v[0] + t * dv[0], v[1] + t * dv[1], v[2] + t * dv[2]];
            let g = branchy_grad(x + t * dx, moved, limit).unwrap().gradient;
            vec![g.0, g.1[0], g.1[1], g.1[2]]
        };
        let differences = along(grad_at, 1e-6);
        assert_all_close_named(&got, &differences, 1e-5, "branchy: central differences");
    }
    Ok(())
}

#[test]
fn a_body_with_calls_runs_the_callees_dual_sweeps() -> Result<(), ScalarAutodiffError> {
    // `mixed` calls `smooth_part`, another annotated function: its f_hvp
    // runs the callee's dual sweep through the dual pair, and agrees with
    // the tape and with central differences of f_grad, on each exit.
    for (w, s, steps) in [
        (vec![0.3, -0.8], 0.9, 4),
        (vec![0.7, 0.4], 1.7, 9),
        (vec![-0.2, 0.5], 0.4, 3),
    ] {
        let (dw, ds) = (vec![0.1, 0.2], 0.3);
        let result = compiled_once(|| mixed_hvp(&w, s, steps, (dw.clone(), ds)))?;
        let tape = autodiff::__private::second_order_on_tape(|| {
            mixed_hvp(&w, s, steps, (dw.clone(), ds))
        })?;
        let flat = |v: &(Vec<f64>, f64)| {
            let mut out = v.0.clone();
            out.push(v.1);
            out
        };
        assert_all_close_named(
            &flat(&result.hvp),
            &flat(&tape.hvp),
            1e-12,
            "mixed: compiled vs tape",
        );
        let first = mixed_grad(&w, s, steps)?;
        assert_eq!(result.value, first.value);
        assert_all_close_named(
            &flat(&result.gradient),
            &flat(&first.gradient),
            1e-13,
            "mixed: gradient",
        );
        let grad_at = |t: f64| {
            let moved: Vec<f64> = w.iter().zip(&dw).map(|(w, d)| w + t * d).collect();
            flat(&mixed_grad(&moved, s + t * ds, steps).unwrap().gradient)
        };
        let differences = along(grad_at, 1e-6);
        assert_all_close_named(
            &flat(&result.hvp),
            &differences,
            1e-5,
            "mixed: central differences",
        );
    }
    Ok(())
}

/// A helper without a dual sweep (a macro reads a tracked value): a
/// caller's dual sweep fails at the call, and its f_hvp reruns the tape.
#[differentiable]
fn exp_pair(v: &[f64]) -> f64 {
    debug_assert!(v[0].is_finite(), "{}", v[0]);
    match v.len() {
        0 | 1 => 0.0,
        _ => v[0].exp() * v[1].exp(),
    }
}

#[differentiable]
fn calls_exp_pair(w: &[f64], s: f64) -> f64 {
    s * s * exp_pair(w) + w[0] * s
}

#[test]
fn a_callee_without_a_dual_sweep_sends_the_callers_hvp_to_the_tape(
) -> Result<(), ScalarAutodiffError> {
    let (w, s) = (vec![0.3, -0.6], 1.2);
    let direction = (vec![0.4, 0.1], -0.5);
    let before = autodiff::__adjoint::compiled_hvps();
    let result = calls_exp_pair_hvp(&w, s, direction.clone())?;
    assert_eq!(
        autodiff::__adjoint::compiled_hvps(),
        before,
        "reran the tape"
    );
    let tape =
        autodiff::__private::second_order_on_tape(|| calls_exp_pair_hvp(&w, s, direction.clone()))?;
    assert_eq!(result.hvp, tape.hvp);
    // Closed form: f = s² e^(w0 + w1) + w0 s.
    let e = (w[0] + w[1]).exp();
    let (v0, v1, vs) = (direction.0[0], direction.0[1], direction.1);
    let hw = s * s * e * (v0 + v1) + (2.0 * s * e + 1.0) * vs;
    let hw1 = s * s * e * (v0 + v1) + 2.0 * s * e * vs;
    let hs = (2.0 * s * e + 1.0) * v0 + 2.0 * s * e * v1 + 2.0 * e * vs;
    assert_all_close_named(&result.hvp.0, &[hw, hw1], 1e-12, "exp_pair: H·v (w)");
    assert!(close(result.hvp.1, hs, 1e-12), "exp_pair: H·v (s)");
    Ok(())
}

#[test]
fn a_non_finite_second_derivative_of_the_compiled_path_is_the_tapes_error() {
    assert!(tracked_power_grad(0.0, 1.5).is_ok());
    let before = autodiff::__adjoint::compiled_hvps();
    let error = tracked_power_hvp(0.0, 1.5, (1.0, 0.0)).unwrap_err();
    assert_eq!(
        autodiff::__adjoint::compiled_hvps(),
        before,
        "reran the tape"
    );
    assert_eq!(error.code(), "non-finite-second-derivative");
    // Away from 0 it runs compiled and agrees with the tape.
    let result = compiled_once(|| tracked_power_hvp(0.25, 1.5, (1.0, -0.5))).unwrap();
    let tape =
        autodiff::__private::second_order_on_tape(|| tracked_power_hvp(0.25, 1.5, (1.0, -0.5)))
            .unwrap();
    assert!(
        close(result.hvp.0, tape.hvp.0, 1e-13),
        "{:?} {:?}",
        result.hvp,
        tape.hvp
    );
    assert!(
        close(result.hvp.1, tape.hvp.1, 1e-13),
        "{:?} {:?}",
        result.hvp,
        tape.hvp
    );
}

// f_jvp (the dual sweep's forward sweep) and f_hessian (one dual sweep
// per column) through the compiled adjoint on dual numbers, against their
// tape twins (`f_jvp_tape`, `f_hessian_tape`), central differences and
// closed forms.

/// `run` went through the compiled path once by the counter `count`.
fn once_by<T>(count: fn() -> u64, what: &str, run: impl FnOnce() -> T) -> T {
    let before = count();
    let out = run();
    assert_eq!(count(), before + 1, "{what} was not compiled");
    out
}

/// The components of `layer_loss`'s parameters, and back.
fn layer_flat(w: &[[f64; 3]], b: &[f64]) -> Vec<f64> {
    let mut out: Vec<f64> = w.iter().flatten().copied().collect();
    out.extend_from_slice(b);
    out
}

fn layer_unflat(p: &[f64]) -> (Vec<[f64; 3]>, Vec<f64>) {
    let w = p[..9].chunks(3).map(|r| [r[0], r[1], r[2]]).collect();
    (w, p[9..].to_vec())
}

#[test]
fn compiled_jvp_is_the_forward_sweep_and_matches_the_tape_and_central_differences(
) -> Result<(), ScalarAutodiffError> {
    use autodiff::__adjoint::{compiled_hvps, compiled_jvps};
    let x = [0.4, -0.7, 1.2];
    let w = vec![[0.3, -0.2, 0.5], [-0.6, 0.1, 0.4], [0.2, 0.8, -0.3]];
    let b = vec![0.1, -0.2, 0.3];
    let (dw, db) = (
        vec![[0.5, 0.1, -0.2], [0.3, -0.4, 0.2], [0.1, 0.0, 0.6]],
        vec![-0.3, 0.2, 0.7],
    );
    let hvps = compiled_hvps();
    let jvp = once_by(compiled_jvps, "layer_loss_jvp", || {
        layer_loss_jvp(&w, &b, &x, 0.3, (dw.clone(), db.clone()))
    })?;
    assert_eq!(compiled_hvps(), hvps, "f_jvp ran no reverse sweep");
    let tape = autodiff::__private::second_order_on_tape(|| {
        layer_loss_jvp(&w, &b, &x, 0.3, (dw.clone(), db.clone()))
    })?;
    assert_eq!(jvp.value, layer_loss(&w, &b, &x, 0.3));
    assert!(close(jvp.value, tape.value, 1e-15));
    assert!(
        close(jvp.tangent, tape.tangent, 1e-13),
        "{jvp:?} vs {tape:?}"
    );
    // ∇f · v from the compiled gradient, and central differences of f.
    let (p, v) = (layer_flat(&w, &b), layer_flat(&dw, &db));
    let g = layer_loss_grad(&w, &b, &x, 0.3)?.gradient;
    let dot: f64 = layer_flat(&g.0, &g.1)
        .iter()
        .zip(&v)
        .map(|(g, v)| g * v)
        .sum();
    assert!(
        close(jvp.tangent, dot, 1e-13),
        "{} vs ∇f·v {dot}",
        jvp.tangent
    );
    let f_at = |t: f64| {
        let moved: Vec<f64> = p.iter().zip(&v).map(|(p, v)| p + t * v).collect();
        let (w, b) = layer_unflat(&moved);
        layer_loss(&w, &b, &x, 0.3)
    };
    let h = 1e-5;
    let difference = (f_at(h) - f_at(-h)) / (2.0 * h);
    assert!(
        close(jvp.tangent, difference, 1e-7),
        "{} vs {difference}",
        jvp.tangent
    );
    // Through branches, a `break` and an early `return`.
    for (x, v, limit) in [
        (0.8, [0.5, -0.3, 0.9], 5.0),
        (1.6, [0.9, 1.2, 0.7], 0.4),
        (0.3, [-0.2, 0.4, 0.6], 0.1),
    ] {
        let (dx, dv) = (0.7, [0.2, -0.5, 0.3]);
        let jvp = once_by(compiled_jvps, "branchy_jvp", || {
            branchy_jvp(x, v, limit, (dx, dv))
        })?;
        let tape =
            autodiff::__private::second_order_on_tape(|| branchy_jvp(x, v, limit, (dx, dv)))?;
        assert!(
            close(jvp.tangent, tape.tangent, 1e-13),
            "{jvp:?} vs {tape:?}"
        );
        let (gx, gv) = branchy_grad(x, v, limit)?.gradient;
        let dot = gx * dx + gv.iter().zip(dv).map(|(g, d)| g * d).sum::<f64>();
        assert!(
            close(jvp.tangent, dot, 1e-13),
            "{} vs ∇f·v {dot}",
            jvp.tangent
        );
    }
    Ok(())
}

#[test]
fn compiled_hessian_is_the_closed_form_and_matches_the_tape_and_central_differences(
) -> Result<(), ScalarAutodiffError> {
    use autodiff::__adjoint::compiled_hessians;
    for p in [[-1.2, 1.0], [1.0, 1.0], [0.3, -0.7]] {
        let (x, y) = (p[0], p[1]);
        let want = [
            [1200.0 * x * x - 400.0 * y + 2.0, -400.0 * x],
            [-400.0 * x, 200.0],
        ];
        let h = once_by(compiled_hessians, "rosenbrock_hessian", || {
            rosenbrock_hessian(p)
        })?;
        for i in 0..2 {
            for j in 0..2 {
                assert!(
                    close(h.get(i, j), want[i][j], 1e-14),
                    "H[{i}][{j}] at {p:?}"
                );
            }
        }
    }
    let x = [0.4, -0.7, 1.2];
    let w = vec![[0.3, -0.2, 0.5], [-0.6, 0.1, 0.4], [0.2, 0.8, -0.3]];
    let b = vec![0.1, -0.2, 0.3];
    let hessian = once_by(compiled_hessians, "layer_loss_hessian", || {
        layer_loss_hessian(&w, &b, &x, 0.3)
    })?;
    let tape = autodiff::__private::second_order_on_tape(|| layer_loss_hessian(&w, &b, &x, 0.3))?;
    let entries = |h: &Hessian| -> Vec<f64> {
        (0..h.rows())
            .flat_map(|i| (0..h.cols()).map(move |j| (i, j)))
            .map(|(i, j)| h.get(i, j))
            .collect()
    };
    assert_all_close_named(
        &entries(&hessian),
        &entries(&tape),
        1e-13,
        "layer: compiled vs tape",
    );
    let (dw, db) = (
        vec![[0.5, 0.1, -0.2], [0.3, -0.4, 0.2], [0.1, 0.0, 0.6]],
        vec![-0.3, 0.2, 0.7],
    );
    let hvp = layer_loss_hvp(&w, &b, &x, 0.3, (dw.clone(), db.clone()))?;
    let grad = |p: &[f64]| {
        let (w, b) = layer_unflat(p);
        let g = layer_loss_grad(&w, &b, &x, 0.3).unwrap().gradient;
        layer_flat(&g.0, &g.1)
    };
    check_all(
        grad,
        &hessian,
        &layer_flat(&hvp.hvp.0, &hvp.hvp.1),
        &layer_flat(&w, &b),
        &layer_flat(&dw, &db),
        "layer",
    );
    for (x, v, limit) in [(0.8, [0.5, -0.3, 0.9], 5.0), (1.6, [0.9, 1.2, 0.7], 0.4)] {
        let hessian = once_by(compiled_hessians, "branchy_hessian", || {
            branchy_hessian(x, v, limit)
        })?;
        let tape = autodiff::__private::second_order_on_tape(|| branchy_hessian(x, v, limit))?;
        assert_all_close_named(&entries(&hessian), &entries(&tape), 1e-13, "branchy");
        let d = [0.7, 0.2, -0.5, 0.3];
        let hvp = branchy_hvp(x, v, limit, (d[0], [d[1], d[2], d[3]]))?;
        let mut product = vec![hvp.hvp.0];
        product.extend(hvp.hvp.1);
        let grad = |p: &[f64]| {
            let (gx, gv) = branchy_grad(p[0], [p[1], p[2], p[3]], limit)
                .unwrap()
                .gradient;
            vec![gx, gv[0], gv[1], gv[2]]
        };
        check_all(
            grad,
            &hessian,
            &product,
            &[x, v[0], v[1], v[2]],
            &d,
            "branchy",
        );
    }
    Ok(())
}

/// Rows of rows and a running product that overflows by a constant
/// factor: what the lifting and the split of the compiled `f_hvp` check,
/// as the dual sweep checks neither its parameters nor its gradient.
#[differentiable]
fn rows_scaled(w: &[[f64; 3]], b: f64, #[constant] scale: f64) -> f64 {
    let mut s = b;
    for row in 0..w.len() {
        for k in 0..3 {
            s += (w[row][k] * w[row][k]).tanh() * scale;
        }
    }
    s * scale
}

#[test]
fn a_non_finite_parameter_direction_or_gradient_of_the_compiled_hvp_is_the_tapes_error() {
    use autodiff::__adjoint::{compiled_hessians, compiled_hvps};
    let w = [[0.5, -0.25, 1.0], [0.75, 0.1, -0.3]];
    let along = || (vec![[1.0, 0.5, -0.5], [0.0, 2.0, 1.0]], 0.25);
    // Ordinary values: compiled, and the tape's numbers.
    let result = compiled_once(|| rows_scaled_hvp(&w, 0.3, 2.0, along())).unwrap();
    let tape = autodiff::__private::second_order_on_tape(|| rows_scaled_hvp(&w, 0.3, 2.0, along()))
        .unwrap();
    assert_eq!(result.value, tape.value);
    for (got, want) in result
        .hvp
        .0
        .iter()
        .flatten()
        .zip(tape.hvp.0.iter().flatten())
    {
        assert!(close(*got, *want, 1e-13), "{got} {want}");
    }
    // A parameter that is not finite, in the second row: the tape's error,
    // which names it.
    let mut bad = w;
    bad[1][2] = f64::NAN;
    let before = compiled_hvps();
    let error = rows_scaled_hvp(&bad, 0.3, 2.0, along()).unwrap_err();
    assert_eq!(compiled_hvps(), before, "reran the tape");
    // (As text: the error holds the NaN, which is not equal to itself.)
    let first_order = rows_scaled_grad(&bad, 0.3, 2.0).unwrap_err();
    assert_eq!(error.to_string(), first_order.to_string());
    assert_eq!(error.code(), "non-finite-leaf");
    // A direction component that is not finite, in the second row: the
    // direction's error, naming the parameter and the flat index.
    let mut direction = along();
    direction.0[1][1] = f64::INFINITY;
    let error = rows_scaled_hvp(&w, 0.3, 2.0, direction).unwrap_err();
    assert_eq!(error.code(), "non-finite-direction");
    assert!(error.to_string().contains("`w`"), "{error}");
    assert!(error.to_string().contains("index 4"), "{error}");
    // A finite value whose gradient overflows: ∂/∂w carries scale² = ∞
    // where w is tiny (∂/∂b is scale, finite). The compiled split gives
    // up, and the error is the tape's.
    let tiny = [[1e-160; 3]; 2];
    for b in [0.3, -1e-100] {
        assert!(rows_scaled(&tiny, b, 1e200).is_finite());
        let before = compiled_hvps();
        let error = rows_scaled_hvp(&tiny, b, 1e200, along()).unwrap_err();
        assert_eq!(compiled_hvps(), before, "reran the tape");
        assert_eq!(
            error,
            autodiff::__private::second_order_on_tape(|| rows_scaled_hvp(&tiny, b, 1e200, along()))
                .unwrap_err()
        );
        let before = compiled_hessians();
        let error = rows_scaled_hessian(&tiny, b, 1e200).unwrap_err();
        assert_eq!(compiled_hessians(), before, "reran the tape");
        assert_eq!(
            error,
            autodiff::__private::second_order_on_tape(|| rows_scaled_hessian(&tiny, b, 1e200))
                .unwrap_err()
        );
    }
}

#[test]
fn a_non_finite_value_on_the_compiled_jvp_or_hessian_is_the_tapes_answer() {
    use autodiff::__adjoint::{compiled_hessians, compiled_jvps};
    // ∂²/∂x² of x^y is infinite at x = 0: the compiled Hessian gives up
    // and the tape names the operation; its first order is finite, and
    // f_jvp is Ok, compiled or not, with the tape's numbers.
    let before = compiled_hessians();
    let error = tracked_power_hessian(0.0, 1.5).unwrap_err();
    assert_eq!(compiled_hessians(), before, "reran the tape");
    assert_eq!(
        error.code(),
        autodiff::__private::second_order_on_tape(|| tracked_power_hessian(0.0, 1.5))
            .unwrap_err()
            .code()
    );
    assert_eq!(error.code(), "non-finite-second-derivative");
    let jvp = tracked_power_jvp(0.0, 1.5, (1.0, 0.5)).unwrap();
    let tape =
        autodiff::__private::second_order_on_tape(|| tracked_power_jvp(0.0, 1.5, (1.0, 0.5)))
            .unwrap();
    assert_eq!((jvp.value, jvp.tangent), (tape.value, tape.tangent));
    // A tangent that overflows: the compiled forward sweep gives up, and
    // the error is the tape's, naming the operation and the iteration.
    let before = compiled_jvps();
    let error = scaled_jvp(1e-300, 1.0).unwrap_err();
    assert_eq!(compiled_jvps(), before, "reran the tape");
    assert_eq!(error.code(), "non-finite-tangent");
    assert!(error.to_string().ends_with("i = 1)"), "{error}");
    // A direction of the wrong shape is the same typed error as the tape's.
    let error = layer_loss_jvp(&[[0.0; 3]], &[0.0], &[1.0; 3], 0.0, (vec![], vec![0.0]));
    assert_eq!(error.unwrap_err().code(), "direction-mismatch");
}

// Iterator chains (read as `for` loops over the items) and `for` loops
// over a slice's items, on the compiled dual sweep.

#[differentiable]
fn chained(w: &[f64], x: [f64; 4], #[constant] c: &[f64]) -> f64 {
    let dot: f64 = w.iter().zip(x.iter()).map(|(a, b)| a * b).sum();
    let energy = w.iter().copied().map(|e| (-0.5 * e).exp()).sum::<f64>();
    let even = x.iter().step_by(2).map(|v| v.tanh()).sum::<f64>();
    let mut weighted = 0.0;
    for (k, v) in w.iter().enumerate() {
        weighted += v * c[k] * (k as f64 + 1.0);
    }
    let mut squares = 0.0;
    for v in x.iter().rev() {
        squares += v * v * 0.25;
    }
    let horner = x.iter().fold(0.0, |acc, &q| acc * dot + q);
    dot * energy + even * weighted + squares.sqrt() + horner
}

#[test]
fn compiled_second_order_through_iterator_chains_matches_the_tape_and_central_differences(
) -> Result<(), ScalarAutodiffError> {
    use autodiff::__adjoint::{compiled_hessians, compiled_jvps};
    let c = [0.3, -0.4, 0.9];
    let w = vec![0.5, -0.8, 1.1];
    let x = [0.2, -0.6, 0.9, 1.4];
    let (dw, dx) = (vec![0.3, 0.1, -0.7], [0.4, -0.2, 0.5, 0.6]);
    let hvp = compiled_once(|| chained_hvp(&w, x, &c, (dw.clone(), dx)))?;
    let tape =
        autodiff::__private::second_order_on_tape(|| chained_hvp(&w, x, &c, (dw.clone(), dx)))?;
    let flat = |g: &(Vec<f64>, [f64; 4])| -> Vec<f64> {
        let mut out = g.0.clone();
        out.extend(g.1);
        out
    };
    assert_all_close_named(
        &flat(&hvp.hvp),
        &flat(&tape.hvp),
        1e-13,
        "chained: compiled vs tape",
    );
    assert_all_close_named(
        &flat(&hvp.gradient),
        &flat(&chained_grad(&w, x, &c)?.gradient),
        1e-14,
        "gradient",
    );
    let grad = |p: &[f64]| {
        let g = chained_grad(&p[..3], [p[3], p[4], p[5], p[6]], &c)
            .unwrap()
            .gradient;
        flat(&g)
    };
    let point: Vec<f64> = w.iter().chain(&x).copied().collect();
    let direction: Vec<f64> = dw.iter().chain(&dx).copied().collect();
    let hessian = once_by(compiled_hessians, "chained_hessian", || {
        chained_hessian(&w, x, &c)
    })?;
    check_all(
        grad,
        &hessian,
        &flat(&hvp.hvp),
        &point,
        &direction,
        "chained",
    );
    let jvp = once_by(compiled_jvps, "chained_jvp", || {
        chained_jvp(&w, x, &c, (dw.clone(), dx))
    })?;
    let dot: f64 = flat(&hvp.gradient)
        .iter()
        .zip(&direction)
        .map(|(g, v)| g * v)
        .sum();
    assert!(
        close(jvp.tangent, dot, 1e-13),
        "{} vs ∇f·v {dot}",
        jvp.tangent
    );
    assert!(close(
        jvp.tangent,
        autodiff::__private::second_order_on_tape(|| chained_jvp(&w, x, &c, (dw, dx)))?.tangent,
        1e-13
    ));
    Ok(())
}

/// `relu(z)` and `sigmoid(z)` in path form: the dual sweep takes them
/// (imported over the prelude's inside `f_adjoint_dual`).
#[differentiable]
fn activated(w: &[f64], #[constant] x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..w.len() {
        let z = w[i] * x[i] + 0.1;
        s += relu(z) * sigmoid(z * w[i]) + sigmoid(0.5);
    }
    s * s
}

#[test]
fn relu_and_sigmoid_as_functions_run_compiled_and_agree() -> Result<(), ScalarAutodiffError> {
    let x = [0.9, -1.3, 0.4];
    for w in [[0.7, 0.5, -1.1], [-0.4, -0.9, 0.8]] {
        let v = vec![0.3, -0.2, 0.6];
        let result = compiled_once(|| activated_hvp(&w, &x, v.clone()))?;
        let tape = autodiff::__private::second_order_on_tape(|| activated_hvp(&w, &x, v.clone()))?;
        assert_all_close_named(&result.hvp, &tape.hvp, 1e-12, "activated: compiled vs tape");
        let grad_at = |t: f64| {
            let moved: Vec<f64> = w.iter().zip(&v).map(|(w, v)| w + t * v).collect();
            activated_grad(&moved, &x).unwrap().gradient
        };
        assert_all_close_named(
            &result.hvp,
            &along(grad_at, 1e-6),
            1e-5,
            "activated: central differences",
        );
    }
    Ok(())
}

/// A layer factored into helpers that take constant data (`x`) beside
/// tracked rows (`&w1[j]`) and numbers: the dual pair lifts the plain rows
/// (`__adjoint::Rows`) where the helper's parameter is differentiable.
#[differentiable]
fn unit(w: &[f64], b: f64, x: &[f64]) -> f64 {
    let mut z = b;
    for i in 0..x.len() {
        z += w[i] * x[i];
    }
    z.tanh()
}

#[differentiable]
fn inner(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(p, q)| p * q).sum()
}

#[differentiable]
fn factored_layer(
    w1: &[[f64; 3]],
    b1: &[f64],
    w2: &[f64],
    #[constant] x: &[f64],
    #[constant] target: f64,
) -> f64 {
    let mut y = 0.0;
    for j in 0..w1.len() {
        y += w2[j] * unit(&w1[j], b1[j], x);
    }
    let error = y - target + 0.1 * inner(w2, x) + inner(x, w2);
    error * error
}

#[test]
fn helpers_given_constant_data_run_compiled_and_agree() -> Result<(), ScalarAutodiffError> {
    let w1 = vec![[0.3, -0.2, 0.5], [0.1, 0.4, -0.6], [-0.3, 0.2, 0.2]];
    let (b1, w2) = (vec![0.1, -0.1, 0.05], vec![0.7, -0.4, 0.9]);
    let x = [0.5, -1.0, 0.3];
    let direction = (
        vec![[0.1, 0.0, -0.2], [0.3, 0.1, 0.0], [0.0, -0.1, 0.2]],
        vec![0.2, 0.1, -0.3],
        vec![0.05, 0.2, -0.1],
    );
    let flat = |p: &(Vec<[f64; 3]>, Vec<f64>, Vec<f64>)| {
        let mut out: Vec<f64> = p.0.iter().flatten().copied().collect();
        out.extend(&p.1);
        out.extend(&p.2);
        out
    };
    let result = compiled_once(|| factored_layer_hvp(&w1, &b1, &w2, &x, 0.3, direction.clone()))?;
    let tape = autodiff::__private::second_order_on_tape(|| {
        factored_layer_hvp(&w1, &b1, &w2, &x, 0.3, direction.clone())
    })?;
    assert_all_close_named(
        &flat(&result.hvp),
        &flat(&tape.hvp),
        1e-12,
        "factored: compiled vs tape",
    );
    let grad_at = |t: f64| {
        let moved = (
            w1.iter()
                .zip(&direction.0)
                .map(|(w, d)| std::array::from_fn(|i| w[i] + t * d[i]))
                .collect::<Vec<[f64; 3]>>(),
            b1.iter()
                .zip(&direction.1)
                .map(|(b, d)| b + t * d)
                .collect::<Vec<f64>>(),
            w2.iter()
                .zip(&direction.2)
                .map(|(w, d)| w + t * d)
                .collect::<Vec<f64>>(),
        );
        flat(
            &factored_layer_grad(&moved.0, &moved.1, &moved.2, &x, 0.3)
                .unwrap()
                .gradient,
        )
    };
    assert_all_close_named(
        &flat(&result.hvp),
        &along(grad_at, 1e-6),
        1e-5,
        "factored: central differences",
    );
    Ok(())
}

// Calls between dual sweeps, in the shapes course code calls helpers:
// in a loop on an accumulator, a helper calling a helper, one value
// passed twice, an expression argument, `#[constant]` and integer
// parameters, a helper that returns early, a call in a loop left by
// `break`. Each through `f_jvp`, `f_hvp` and `f_hessian`, compiled,
// against the tape, central differences of `f_grad` and symmetry.

#[differentiable]
fn damp(a: f64, b: f64) -> f64 {
    if a > 1.5 {
        return a.ln() + b;
    }
    a * b.tanh() + 0.5 * a * a
}

#[differentiable]
fn scaled_damp(a: f64, #[constant] k: f64, n: usize) -> f64 {
    damp(a * k, a) * n as f64 + sigmoid(a)
}

#[differentiable]
fn calls_in_shapes(x: &[f64]) -> f64 {
    let mut s = 0.2;
    for i in 0..x.len() {
        s = damp(s, x[i]) + scaled_damp(x[i], 0.7, i + 1);
    }
    let twice = damp(x[0], x[0]) + damp(x[0] * x[1], 2.0);
    let mut t = x[2];
    for _ in 0..4 {
        t = damp(t, x[1]) * 0.5;
        if t > 3.0 {
            break;
        }
    }
    s * twice + t
}

#[test]
fn calls_between_dual_sweeps_give_jvp_hvp_and_hessian() -> Result<(), ScalarAutodiffError> {
    use autodiff::__adjoint::{compiled_hessians, compiled_hvps, compiled_jvps};
    let grad = |p: &[f64]| calls_in_shapes_grad(p).unwrap().gradient;
    for x in [
        vec![0.4, -0.7, 1.2],
        vec![1.1, 0.9, -0.3],
        vec![2.0, 0.3, 0.8],
    ] {
        let v = vec![0.3, -0.5, 0.2];
        let jvp = once_by(compiled_jvps, "calls_in_shapes_jvp", || {
            calls_in_shapes_jvp(&x, v.clone())
        })?;
        let jvp_tape =
            autodiff::__private::second_order_on_tape(|| calls_in_shapes_jvp(&x, v.clone()))?;
        assert_eq!(jvp.value, calls_in_shapes(&x));
        assert!(
            close(jvp.tangent, jvp_tape.tangent, 1e-12),
            "{jvp:?} vs {jvp_tape:?}"
        );
        let dot: f64 = grad(&x).iter().zip(&v).map(|(g, v)| g * v).sum();
        assert!(
            close(jvp.tangent, dot, 1e-12),
            "{} vs ∇f·v {dot}",
            jvp.tangent
        );
        let hvp = once_by(compiled_hvps, "calls_in_shapes_hvp", || {
            calls_in_shapes_hvp(&x, v.clone())
        })?;
        let hvp_tape =
            autodiff::__private::second_order_on_tape(|| calls_in_shapes_hvp(&x, v.clone()))?;
        assert_all_close_named(&hvp.hvp, &hvp_tape.hvp, 1e-12, "calls: hvp vs tape");
        let hessian = once_by(compiled_hessians, "calls_in_shapes_hessian", || {
            calls_in_shapes_hessian(&x)
        })?;
        let tape = autodiff::__private::second_order_on_tape(|| calls_in_shapes_hessian(&x))?;
        for i in 0..3 {
            for j in 0..3 {
                assert!(
                    close(hessian.get(i, j), tape.get(i, j), 1e-12),
                    "H[{i}][{j}] {} vs tape {}",
                    hessian.get(i, j),
                    tape.get(i, j)
                );
            }
        }
        check_all(grad, &hessian, &hvp.hvp, &x, &v, "calls");
    }
    Ok(())
}

/// An integer counter beside a tracked `let mut` (`let mut k = 0; while k
/// < 4 { ..; k += 1; }`): `mut` was read as a binding's name, so once a
/// tracked `let mut` made it active every `let mut` looked tracked, and
/// the counter's `0` kept `f_hvp` on the tape.
#[differentiable]
fn counted(x: &[f64]) -> f64 {
    let mut t = x[2];
    let mut k = 0;
    while k < 4 {
        t = (t * x[1]).tanh() + x[0] * k as f64;
        k += 1;
    }
    t * t
}

#[test]
fn a_counter_beside_a_tracked_let_mut_runs_compiled() -> Result<(), ScalarAutodiffError> {
    let x = [0.4, -0.7, 1.2];
    let v = vec![0.3, -0.5, 0.2];
    let result = compiled_once(|| counted_hvp(&x, v.clone()))?;
    let tape = autodiff::__private::second_order_on_tape(|| counted_hvp(&x, v.clone()))?;
    assert_all_close_named(&result.hvp, &tape.hvp, 1e-12, "counted: compiled vs tape");
    let grad_at = |t: f64| {
        let moved: Vec<f64> = x.iter().zip(&v).map(|(x, v)| x + t * v).collect();
        counted_grad(&moved).unwrap().gradient
    };
    assert_all_close_named(
        &result.hvp,
        &along(grad_at, 1e-6),
        1e-5,
        "counted: central differences",
    );
    Ok(())
}

/// An `if` value one of whose arms is a plain number (`1.25`) beside a
/// tracked one, as the body's value and bound by `let`, and a helper
/// called with plain arguments only (the plain function): the dual sweep
/// lifts the plain arm to a dual with tangent 0.
#[differentiable]
fn mixed_arms(x: &[f64]) -> f64 {
    let y = if x[0] > 0.5 { 1.25 } else { x[0] * x[1] };
    let c = damp(0.75, 0.5);
    let z = y * x[2] + c;
    if z > 2.0 {
        0.5
    } else if z < -1.0 {
        z * z
    } else {
        (z * x[1]).sin()
    }
}

#[test]
fn if_values_with_a_plain_arm_run_compiled_and_agree() -> Result<(), ScalarAutodiffError> {
    let v = vec![0.3, -0.5, 0.2];
    // Each arm of each `if`: y's both, then z > 2, z < -1 and between.
    for x in [
        vec![0.9, 0.4, 2.0],
        vec![0.2, 0.4, 0.7],
        vec![0.2, -3.0, 3.0],
        vec![0.9, 0.4, -2.0],
    ] {
        let result = compiled_once(|| mixed_arms_hvp(&x, v.clone()))?;
        let tape = autodiff::__private::second_order_on_tape(|| mixed_arms_hvp(&x, v.clone()))?;
        assert_eq!(result.value, mixed_arms(&x));
        assert_all_close_named(
            &result.hvp,
            &tape.hvp,
            1e-12,
            "mixed arms: compiled vs tape",
        );
        assert_all_close_named(
            &result.gradient,
            &mixed_arms_grad(&x)?.gradient,
            1e-13,
            "mixed arms: gradient",
        );
        let grad_at = |t: f64| {
            let moved: Vec<f64> = x.iter().zip(&v).map(|(x, v)| x + t * v).collect();
            mixed_arms_grad(&moved).unwrap().gradient
        };
        assert_all_close_named(
            &result.hvp,
            &along(grad_at, 1e-6),
            1e-5,
            "mixed arms: central differences",
        );
    }
    Ok(())
}

/// Parts of a row passed to a helper (`&x[1..3]`, `&x[..2]`) and walked
/// (`x[1..].iter()`), and arrays by value (a tracked one and a literal):
/// a part of a row is a row on dual numbers too.
#[differentiable]
fn head_of(s: &[f64]) -> f64 {
    s[0] * s.len() as f64 + s.iter().map(|v| v * v).sum::<f64>()
}

#[differentiable]
fn parts_of_a_row(x: &[f64], p: [f64; 2]) -> f64 {
    let parts = head_of(&x[1..3]) + head_of(&x[..2]) * head_of(&x[2..]).sin();
    parts + x[1..].iter().map(|v| v.sin()).sum::<f64>() + pair_product(p) * pair_product([1.0, 0.5])
}

#[differentiable]
fn pair_product(p: [f64; 2]) -> f64 {
    p[0] * p[1].exp()
}

#[test]
fn parts_of_rows_and_arrays_reach_helpers_compiled() -> Result<(), ScalarAutodiffError> {
    let (x, p) = (vec![0.7, -0.3, 1.2, 0.4], [0.4, 0.2]);
    let direction = (vec![0.3, -0.5, 0.2, 0.1], [0.3, 0.1]);
    let flat = |g: &(Vec<f64>, [f64; 2])| {
        let mut out = g.0.clone();
        out.extend(g.1);
        out
    };
    let result = compiled_once(|| parts_of_a_row_hvp(&x, p, direction.clone()))?;
    let tape =
        autodiff::__private::second_order_on_tape(|| parts_of_a_row_hvp(&x, p, direction.clone()))?;
    assert_all_close_named(
        &flat(&result.hvp),
        &flat(&tape.hvp),
        1e-12,
        "parts: compiled vs tape",
    );
    let grad_at = |t: f64| {
        let moved: Vec<f64> = x.iter().zip(&direction.0).map(|(x, v)| x + t * v).collect();
        let q = [p[0] + t * direction.1[0], p[1] + t * direction.1[1]];
        flat(&parts_of_a_row_grad(&moved, q).unwrap().gradient)
    };
    assert_all_close_named(
        &flat(&result.hvp),
        &along(grad_at, 1e-6),
        1e-5,
        "parts: central differences",
    );
    Ok(())
}

/// Two parts of one row passed to one call (`dot_of(&x[..2], &x[1..3])`)
/// and the whole row twice: the callee's adjoints of its two parameters
/// are added back into the same row's, on dual numbers as on `f64`s.
#[differentiable]
fn dot_of(a: &[f64], b: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..a.len() {
        s += a[i] * b[i];
    }
    s
}

#[differentiable]
fn overlapping_parts(x: &[f64]) -> f64 {
    dot_of(&x[..2], &x[1..3]) * dot_of(x, x).sqrt()
}

#[test]
fn overlapping_parts_of_one_row_reach_a_helper_compiled() -> Result<(), ScalarAutodiffError> {
    let x = vec![0.5, 1.2, -0.7, 0.9];
    let direction = vec![1.0, -0.5, 0.5, 0.25];
    let result = compiled_once(|| overlapping_parts_hvp(&x, direction.clone()))?;
    let tape =
        autodiff::__private::second_order_on_tape(|| overlapping_parts_hvp(&x, direction.clone()))?;
    assert_all_close_named(&result.hvp, &tape.hvp, 1e-12, "overlap: compiled vs tape");
    let grad_at = |t: f64| {
        let moved: Vec<f64> = x.iter().zip(&direction).map(|(x, v)| x + t * v).collect();
        overlapping_parts_grad(&moved).unwrap().gradient
    };
    assert_all_close_named(
        &result.hvp,
        &along(grad_at, 1e-6),
        1e-5,
        "overlap: central differences",
    );
    Ok(())
}

/// Local `Vec`s of numbers on the dual sweep: bound empty (`vec![]`,
/// `Vec::new()`) and grown by `push` (a constant too), collected by a typed `let` and summed, copied from
/// constant rows and from `vec![x; n]`, written by element (`+=` reading
/// the same `Vec`), and a layer loop that rebinds `h = next`.
#[differentiable]
fn pushed_and_summed(x: &[f64]) -> f64 {
    // `vec![]`, as `Vec::new()` in `layer_loop`: typed by its pushes.
    let mut v = vec![];
    for i in 0..x.len() {
        v.push(x[i] * x[i]);
    }
    v.push(0.5);
    let e: Vec<f64> = x.iter().map(|a| a.exp()).collect();
    let s: f64 = e.iter().sum();
    v[0] * v[1] + v[4] * v[2] + e[0] / s
}

#[differentiable]
fn copied_rows(x: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut h = vec![c[0], c[1]];
    h[0] *= x[1];
    let mut g = c.to_vec();
    g[1] += x[0] * x[2];
    g[2] += g[1].tanh() * g[2];
    let r = vec![x[3]; 3];
    h[0] + h[1].sin() * g[1] + r[2] * g[0] * r[1] + g[2]
}

#[differentiable]
fn layer_loop(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for _ in 0..3 {
        let mut next = Vec::new();
        for j in 0..h.len() {
            next.push((h[j] * 0.7 + h[(j + 1) % h.len()] * 0.3).tanh());
        }
        h = next;
    }
    h.iter().sum()
}

#[test]
fn local_vecs_run_the_compiled_hvp() -> Result<(), ScalarAutodiffError> {
    let x = vec![0.3, -0.8, 0.5, 1.1];
    let v = vec![1.0, 0.5, -0.3, 0.2];
    let c = [0.4, 1.5, -0.2];
    let moved = |t: f64| -> Vec<f64> { x.iter().zip(&v).map(|(x, v)| x + t * v).collect() };
    type Grad<'a> = &'a dyn Fn(&[f64]) -> Vec<f64>;
    type Case<'a> = (&'a str, Hvp<Vec<f64>>, Hvp<Vec<f64>>, Grad<'a>);
    let cases: [Case; 3] = [
        (
            "pushed and summed",
            compiled_once(|| pushed_and_summed_hvp(&x, v.clone()))?,
            autodiff::__private::second_order_on_tape(|| pushed_and_summed_hvp(&x, v.clone()))?,
            &|p| pushed_and_summed_grad(p).unwrap().gradient,
        ),
        (
            "copied rows",
            compiled_once(|| copied_rows_hvp(&x, &c, v.clone()))?,
            autodiff::__private::second_order_on_tape(|| copied_rows_hvp(&x, &c, v.clone()))?,
            &|p| copied_rows_grad(p, &c).unwrap().gradient,
        ),
        (
            "layer loop",
            compiled_once(|| layer_loop_hvp(&x, v.clone()))?,
            autodiff::__private::second_order_on_tape(|| layer_loop_hvp(&x, v.clone()))?,
            &|p| layer_loop_grad(p).unwrap().gradient,
        ),
    ];
    for (name, compiled, tape, grad) in cases {
        assert_eq!(
            compiled.value.to_bits(),
            tape.value.to_bits(),
            "{name}: value"
        );
        assert_all_close_named(&compiled.gradient, &tape.gradient, 1e-12, name);
        assert_all_close_named(&compiled.hvp, &tape.hvp, 1e-12, name);
        let differences = along(|t| grad(&moved(t)), 1e-6);
        assert_all_close_named(&compiled.hvp, &differences, 1e-5, name);
    }
    Ok(())
}

/// Rows of weights, and a model of them: a direction with the right count
/// of components in `Vec`s of other lengths (the transposed matrix) would
/// pair the wrong components.
#[differentiable]
fn weighted_rows(w: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for (i, row) in w.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            s += v * v * (i + 2 * j + 1) as f64;
        }
    }
    s
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Rows {
    w: Vec<Vec<f64>>,
}

#[differentiable]
impl Rows {
    fn energy(&self) -> f64 {
        weighted_rows(&self.w)
    }
}

#[test]
fn a_direction_shaped_otherwise_with_the_same_count_is_a_typed_error() {
    let w = vec![vec![1.0, 2.0, 3.0], vec![4.0, 5.0, 6.0]];
    let transposed = vec![vec![1.0, 4.0], vec![2.0, 5.0], vec![3.0, 6.0]];
    let message = "the direction for `w` has 6 components, but `w` has 6 in `Vec`s of other lengths: it must have the same shape";
    for error in [
        weighted_rows_hvp(&w, transposed.clone()).unwrap_err(),
        weighted_rows_jvp(&w, transposed.clone()).unwrap_err(),
    ] {
        assert_eq!(error.code(), "direction-mismatch");
        assert_eq!(error.to_string(), message);
    }
    let error = weighted_rows_hessian(&w)
        .map(|_| ())
        .and_then(|()| weighted_rows_hvp(&w, vec![vec![0.0; 2], vec![0.0; 4]]).map(|_| ()));
    assert_eq!(error.unwrap_err().code(), "direction-mismatch");
    let model = Rows { w: w.clone() };
    let error = model
        .energy_hvp(Rows {
            w: transposed.clone(),
        })
        .unwrap_err();
    assert_eq!(error.code(), "direction-mismatch");
    assert!(error.to_string().contains("other lengths"), "{error}");
    // Shaped right: H = diag(2·(i + 2j + 1)), so H·w scales each weight.
    let want: Vec<Vec<f64>> = w
        .iter()
        .enumerate()
        .map(|(i, row)| {
            row.iter()
                .enumerate()
                .map(|(j, v)| 2.0 * (i + 2 * j + 1) as f64 * v)
                .collect()
        })
        .collect();
    assert_eq!(weighted_rows_hvp(&w, w.clone()).unwrap().hvp, want);
    assert_eq!(model.energy_hvp(model.clone()).unwrap().hvp.w, want);
}

/// The stable softmax's cross-entropy as students write it: the maximum by
/// `fold(f64::NEG_INFINITY, f64::max)` or by a running `max` in a loop,
/// then the exponentials collected and summed. Both run the compiled
/// `f_hvp` (a fold from −∞ read as a loop whose accumulator starts there).
#[differentiable]
fn softmax_xent_fold(z: &[f64], #[constant] target: usize) -> f64 {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    -(e[target] / s).ln()
}

#[differentiable]
fn softmax_xent_loop(z: &[f64], #[constant] target: usize) -> f64 {
    let mut m = z[0];
    for i in 1..z.len() {
        m = m.max(z[i]);
    }
    let smallest = z.iter().map(|v| v * 0.5).fold(f64::INFINITY, f64::min);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    -(e[target] / s).ln() + 0.1 * smallest * smallest
}

#[test]
fn a_softmax_with_its_maximum_runs_the_compiled_hvp() -> Result<(), ScalarAutodiffError> {
    let z = vec![0.3, 1.2, -0.4, 0.8];
    let v = vec![1.0, 0.5, -0.2, 0.3];
    let moved = |t: f64| -> Vec<f64> { z.iter().zip(&v).map(|(z, v)| z + t * v).collect() };
    // The softmax's Hessian in closed form: diag(p) − p pᵀ, so H·v = p ⊙ v − p (p·v).
    let e: Vec<f64> = z.iter().map(|a| a.exp()).collect();
    let total: f64 = e.iter().sum();
    let p: Vec<f64> = e.iter().map(|a| a / total).collect();
    let pv: f64 = p.iter().zip(&v).map(|(p, v)| p * v).sum();
    let want: Vec<f64> = p.iter().zip(&v).map(|(p, v)| p * v - p * pv).collect();
    let fold = compiled_once(|| softmax_xent_fold_hvp(&z, 1, v.clone()))?;
    assert_all_close_named(&fold.hvp, &want, 1e-12, "fold: closed form");
    let tape =
        autodiff::__private::second_order_on_tape(|| softmax_xent_fold_hvp(&z, 1, v.clone()))?;
    assert_all_close_named(&fold.hvp, &tape.hvp, 1e-12, "fold: tape");
    let looped = compiled_once(|| softmax_xent_loop_hvp(&z, 1, v.clone()))?;
    let tape =
        autodiff::__private::second_order_on_tape(|| softmax_xent_loop_hvp(&z, 1, v.clone()))?;
    assert_all_close_named(&looped.hvp, &tape.hvp, 1e-12, "loop: tape");
    let differences = along(
        |t| softmax_xent_loop_grad(&moved(t), 1).unwrap().gradient,
        1e-6,
    );
    assert_all_close_named(&looped.hvp, &differences, 1e-5, "loop: central differences");
    Ok(())
}

/// Row `i` of `w` times `x`: a helper taking rows of rows, called with the
/// caller's tracked weights and with its constant table.
#[differentiable]
fn row_dot(w: &[Vec<f64>], i: usize, x: &[f64]) -> f64 {
    let mut s = 0.0;
    for j in 0..x.len() {
        s += w[i][j] * x[j];
    }
    s
}

/// A layer written with a student's matrices, `Vec`s of rows: by slice,
/// by `&Vec`, and as a `#[constant]` table passed on to the helper.
#[allow(clippy::ptr_arg)] // `&Vec<Vec<f64>>` as students write it
#[differentiable]
fn rows_net(
    w1: &[Vec<f64>],
    b1: &[f64],
    w2: &Vec<Vec<f64>>,
    #[constant] x: &[f64],
    #[constant] table: &[Vec<f64>],
) -> f64 {
    let mut y = 0.0;
    for i in 0..b1.len() {
        let mut s = b1[i];
        for j in 0..x.len() {
            s += w1[i][j] * x[j];
        }
        let h: f64 = w1[i].iter().zip(x).map(|(a, b)| a * b).sum();
        y += w2[0][i] * s.tanh() + row_dot(w1, i, x).sin() * row_dot(table, i, b1) + h * h;
    }
    y * y
}

#[test]
fn rows_of_rows_run_the_compiled_second_order_items() -> Result<(), ScalarAutodiffError> {
    type Point = (Vec<Vec<f64>>, Vec<f64>, Vec<Vec<f64>>);
    let w1 = vec![vec![0.3, -0.2, 0.5], vec![0.1, 0.4, -0.6]];
    let b1 = vec![0.1, -0.3];
    let w2 = vec![vec![0.7, -0.9]];
    let x = [0.5, -1.0, 2.0];
    let table = vec![vec![0.2, 1.5], vec![-0.7, 0.4]];
    let d: Point = (
        vec![vec![1.0, 0.5, -0.5], vec![0.2, -0.1, 0.3]],
        vec![0.4, 0.6],
        vec![vec![-0.3, 0.8]],
    );
    let flat = |p: &Point| -> Vec<f64> {
        let mut out: Vec<f64> = p.0.iter().flatten().copied().collect();
        out.extend(&p.1);
        out.extend(p.2.iter().flatten());
        out
    };
    let moved = |t: f64| -> Point {
        let shift = |a: &[Vec<f64>], b: &[Vec<f64>]| -> Vec<Vec<f64>> {
            a.iter()
                .zip(b)
                .map(|(r, s)| r.iter().zip(s).map(|(a, b)| a + t * b).collect())
                .collect()
        };
        let b: Vec<f64> = b1.iter().zip(&d.1).map(|(a, b)| a + t * b).collect();
        (shift(&w1, &d.0), b, shift(&w2, &d.2))
    };
    let result = compiled_once(|| rows_net_hvp(&w1, &b1, &w2, &x, &table, d.clone()))?;
    let tape = autodiff::__private::second_order_on_tape(|| {
        rows_net_hvp(&w1, &b1, &w2, &x, &table, d.clone())
    })?;
    assert_all_close_named(
        &flat(&result.hvp),
        &flat(&tape.hvp),
        1e-12,
        "rows: compiled vs tape H·v",
    );
    let first = rows_net_grad(&w1, &b1, &w2, &x, &table)?;
    assert_all_close_named(
        &flat(&result.gradient),
        &flat(&first.gradient),
        1e-14,
        "rows: gradient",
    );
    let differences = along(
        |t| {
            let (w1, b1, w2) = moved(t);
            flat(&rows_net_grad(&w1, &b1, &w2, &x, &table).unwrap().gradient)
        },
        1e-5,
    );
    assert_all_close_named(
        &flat(&result.hvp),
        &differences,
        1e-5,
        "rows: central differences",
    );
    // Forward mode and the Hessian on the same dual sweep.
    let before = autodiff::__adjoint::compiled_jvps();
    let jvp = rows_net_jvp(&w1, &b1, &w2, &x, &table, d.clone())?;
    assert_eq!(
        autodiff::__adjoint::compiled_jvps(),
        before + 1,
        "f_jvp was not compiled"
    );
    let jvp_tape = autodiff::__private::second_order_on_tape(|| {
        rows_net_jvp(&w1, &b1, &w2, &x, &table, d.clone())
    })?;
    assert!(close(jvp.tangent, jvp_tape.tangent, 1e-12));
    let gradient = flat(&first.gradient);
    let along_d: f64 = gradient.iter().zip(flat(&d)).map(|(g, v)| g * v).sum();
    assert!(close(jvp.tangent, along_d, 1e-12));
    let before = autodiff::__adjoint::compiled_hessians();
    let hessian = rows_net_hessian(&w1, &b1, &w2, &x, &table)?;
    assert_eq!(
        autodiff::__adjoint::compiled_hessians(),
        before + 1,
        "f_hessian was not compiled"
    );
    let hessian_tape =
        autodiff::__private::second_order_on_tape(|| rows_net_hessian(&w1, &b1, &w2, &x, &table))?;
    assert_eq!((hessian.rows(), hessian.cols()), (10, 10));
    for i in 0..10 {
        for j in 0..10 {
            assert!(
                close(hessian.get(i, j), hessian_tape.get(i, j), 1e-12),
                "H[{i}][{j}]"
            );
        }
    }
    assert_all_close_named(
        &hessian.times(&flat(&d)).unwrap(),
        &flat(&result.hvp),
        1e-12,
        "rows: H·v",
    );
    Ok(())
}

#[test]
fn a_direction_of_ragged_rows_is_a_typed_error_and_rows_with_a_nan_are_the_tapes() {
    let w1 = vec![vec![0.3, -0.2, 0.5], vec![0.1, 0.4, -0.6]];
    let (b1, w2, x) = (vec![0.1, -0.3], vec![vec![0.7, -0.9]], [0.5, -1.0, 2.0]);
    let table = vec![vec![0.2, 1.5], vec![-0.7, 0.4]];
    // Six numbers for `w1`'s six, in rows of other lengths.
    let ragged = (
        vec![vec![1.0, 0.5], vec![0.2, -0.1, 0.3, 0.0]],
        vec![0.4, 0.6],
        vec![vec![-0.3, 0.8]],
    );
    match rows_net_hvp(&w1, &b1, &w2, &x, &table, ragged) {
        Err(ScalarAutodiffError::DirectionMismatch { parameter, .. }) => {
            assert_eq!(parameter, "w1")
        }
        other => panic!("expected a direction mismatch, got {other:?}"),
    }
    let nan = (
        vec![vec![1.0, f64::NAN, 0.5], vec![0.2, -0.1, 0.3]],
        vec![0.4, 0.6],
        vec![vec![-0.3, 0.8]],
    );
    match rows_net_hvp(&w1, &b1, &w2, &x, &table, nan) {
        Err(ScalarAutodiffError::NonFiniteDirection {
            parameter, index, ..
        }) => {
            assert_eq!((parameter, index), ("w1", 1));
        }
        other => panic!("expected a non-finite direction, got {other:?}"),
    }
}

/// `x` written as `∛(x³)`: at 0 the cube's tangent is 0 and the root's
/// derivative infinite, a product the forward sweep cannot know (the
/// derivative is 1). `f_grad` and the tape's `f_jvp` report the infinite
/// derivative.
#[differentiable]
fn cube_root_of_cube(x: f64) -> f64 {
    (x * x * x).cbrt()
}

/// The distance of two points: at equal points the root's derivative is
/// infinite where the squares' tangents are 0.
#[differentiable]
fn distance(p: &[f64], q: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..p.len() {
        s += (p[i] - q[i]) * (p[i] - q[i]);
    }
    s.sqrt()
}

/// `x²` by `powf`: at 0 the partial by the constant exponent, `xʸ ln x`,
/// is not finite, but the exponent does not move.
#[differentiable]
fn square_by_powf(x: f64) -> f64 {
    x.powf(2.0) + x
}

#[test]
fn an_infinite_derivative_times_a_zero_tangent_is_never_a_silent_jvp() {
    // Where f_grad reports the infinite derivative, f_jvp reports it too
    // (the tape's), rather than a directional derivative of 0.
    let grad = cube_root_of_cube_grad(0.0).unwrap_err();
    let jvp = cube_root_of_cube_jvp(0.0, 1.0).unwrap_err();
    assert_eq!(jvp, grad);
    assert!(
        matches!(jvp, ScalarAutodiffError::NonFiniteLocalDerivative { .. }),
        "{jvp:?}"
    );
    let (p, q) = (vec![1.0, 2.0], vec![1.0, 2.0]);
    let grad = distance_grad(&p, &q).unwrap_err();
    let jvp = distance_jvp(&p, &q, (vec![1.0, 0.0], vec![0.0, 0.0])).unwrap_err();
    assert_eq!(jvp, grad);
    // Away from the point, the compiled forward sweep answers.
    let before = autodiff::__adjoint::compiled_jvps();
    let jvp = cube_root_of_cube_jvp(0.5, 1.0).unwrap();
    assert_eq!(autodiff::__adjoint::compiled_jvps(), before + 1);
    assert!(close(jvp.tangent, 1.0, 1e-12));
    let jvp = distance_jvp(&[1.0, 2.0], &[4.0, 6.0], (vec![1.0, 0.0], vec![0.0, 0.0])).unwrap();
    assert!(close(jvp.tangent, -0.6, 1e-12));
    // A constant whose partial is not finite moves nothing: the same
    // answer as the tape's, `2x + 1`.
    for x in [0.0, 0.3, 1.7] {
        let jvp = square_by_powf_jvp(x, 1.0).unwrap();
        let tape =
            autodiff::__private::second_order_on_tape(|| square_by_powf_jvp(x, 1.0)).unwrap();
        assert_eq!(jvp.tangent, tape.tangent, "{x}");
        assert!(close(jvp.tangent, 2.0 * x + 1.0, 1e-12), "{x}");
    }
}

/// An untracked `if` value (it ends in a constant) whose arm binds tracked
/// values, one by an `if` with a plain arm: printed as written on dual
/// numbers it would not build (seed 20213's `f0_15`), so `f_hvp` takes the
/// tape.
#[differentiable]
fn tracked_inside_a_plain_value(x: f64, v: &[f64]) -> f64 {
    let mut total = x * v[0];
    for i in 0..1 {
        let unused = if v[i] < x {
            let t = x.min(-0.25) * 2.0;
            #[allow(unused_variables)]
            let y = if v[1] < 0.3 {
                t.cos()
            } else {
                (4.0_f64).sqrt()
            };
            0.0625
        } else {
            0.5
        };
        total += unused * x * x;
    }
    total
}

#[test]
fn a_tracked_let_inside_an_untracked_value_builds_and_agrees() -> Result<(), ScalarAutodiffError> {
    for (x, v) in [(0.7, vec![0.2, 0.1]), (0.1, vec![0.9, 0.5])] {
        let (dx, dv) = (0.5, vec![-0.3, 0.8]);
        let result = tracked_inside_a_plain_value_hvp(x, &v, (dx, dv.clone()))?;
        let differences = along(
            |t| {
                let moved: Vec<f64> = v.iter().zip(&dv).map(|(a, b)| a + t * b).collect();
                let g = tracked_inside_a_plain_value_grad(x + t * dx, &moved)
                    .unwrap()
                    .gradient;
                vec![g.0, g.1[0], g.1[1]]
            },
            1e-6,
        );
        let got = vec![result.hvp.0, result.hvp.1[0], result.hvp.1[1]];
        assert_all_close_named(&got, &differences, 1e-6, "plain value: central differences");
    }
    Ok(())
}

/// Rows of rows walked one row at a time (`for r in w`, `w.iter()`,
/// `&w[1..]`), each row a `Vec` of duals (found by probing: these kept
/// the tape's second order).
#[allow(clippy::ptr_arg)] // `&Vec<Vec<f64>>` as students write it
#[differentiable]
fn walked_rows(w: &Vec<Vec<f64>>, x: &[f64], #[constant] table: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for r in w {
        s += r[0] * r[0] + r[1].sin();
    }
    for r in w.iter() {
        s += (r[0] * x[0] + r[1] * x[1]).tanh();
    }
    for r in &w[1..] {
        s += r[0] * r[1] * w[0][0];
    }
    for q in table {
        s += q[0] * x[1];
    }
    s
}

/// The same name for a tracked row and a row of data: its adjoint would
/// be shaped on `f64`s over the data and take duals, so this body keeps
/// the dual sweep off (it did not build).
#[differentiable]
fn one_name_for_two_rows(w: &[Vec<f64>], #[constant] table: &[Vec<f64>]) -> f64 {
    let mut s = 0.0;
    for r in w {
        s += r[0] * r[1];
    }
    for r in table {
        s += r[0] * s;
    }
    s
}

#[test]
fn rows_walked_by_a_for_run_the_compiled_hvp() -> Result<(), ScalarAutodiffError> {
    let w = vec![vec![0.3, -0.2], vec![0.1, 0.4], vec![-0.5, 0.6]];
    let (x, table) = (vec![0.7, -1.1], vec![vec![0.25, 2.0], vec![-1.5, 0.5]]);
    let d = (
        vec![vec![1.0, 0.5], vec![0.2, -0.1], vec![0.3, 0.9]],
        vec![0.4, -0.6],
    );
    let flat = |g: &(Vec<Vec<f64>>, Vec<f64>)| -> Vec<f64> {
        let mut out: Vec<f64> = g.0.iter().flatten().copied().collect();
        out.extend(&g.1);
        out
    };
    let result = compiled_once(|| walked_rows_hvp(&w, &x, &table, d.clone()))?;
    let tape =
        autodiff::__private::second_order_on_tape(|| walked_rows_hvp(&w, &x, &table, d.clone()))?;
    assert_all_close_named(
        &flat(&result.hvp),
        &flat(&tape.hvp),
        1e-12,
        "walked rows: tape",
    );
    let differences = along(
        |t| {
            let w: Vec<Vec<f64>> = w
                .iter()
                .zip(&d.0)
                .map(|(r, s)| r.iter().zip(s).map(|(a, b)| a + t * b).collect())
                .collect();
            let x: Vec<f64> = x.iter().zip(&d.1).map(|(a, b)| a + t * b).collect();
            flat(&walked_rows_grad(&w, &x, &table).unwrap().gradient)
        },
        1e-5,
    );
    assert_all_close_named(
        &flat(&result.hvp),
        &differences,
        1e-6,
        "walked rows: central differences",
    );
    Ok(())
}

/// A layer of a model read through the model's twin on dual numbers: a
/// trained matrix of rows and bias, a `#[constant]` switch and a
/// `#[constant]` number that mixes with tracked values.
#[derive(Clone, Debug, PartialEq, Parameters)]
struct DualLayer {
    w: Vec<Vec<f64>>,
    b: Vec<f64>,
    #[constant]
    squash: bool,
    #[constant]
    gain: f64,
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct DualNet {
    layers: Vec<DualLayer>,
    head: [f64; 2],
}

/// A loss written as a free function over the model, its forward inline.
#[differentiable]
fn dual_net_loss(net: &DualNet, #[constant] x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for k in 0..net.layers.len() {
        let mut next = Vec::new();
        for j in 0..net.layers[k].b.len() {
            let mut s = net.layers[k].b[j];
            for i in 0..h.len() {
                s += net.layers[k].w[j][i] * h[i];
            }
            if net.layers[k].squash {
                s = s.tanh();
            }
            next.push(s * net.layers[k].gain);
        }
        h = next;
    }
    let mut total = 0.0;
    for i in 0..h.len() {
        total += h[i] * h[i] * net.head[i % 2];
    }
    total
}

#[differentiable]
impl DualNet {
    /// The same loss as a method.
    fn loss(&self, #[constant] x: &[f64]) -> f64 {
        let mut h = x.to_vec();
        for k in 0..self.layers.len() {
            let mut next = Vec::new();
            for j in 0..self.layers[k].b.len() {
                let mut s = self.layers[k].b[j];
                for i in 0..h.len() {
                    s += self.layers[k].w[j][i] * h[i];
                }
                if self.layers[k].squash {
                    s = s.tanh();
                }
                next.push(s * self.layers[k].gain);
            }
            h = next;
        }
        let mut total = 0.0;
        for i in 0..h.len() {
            total += h[i] * h[i] * self.head[i % 2];
        }
        total
    }
}

fn dual_net() -> DualNet {
    DualNet {
        layers: vec![
            DualLayer {
                w: vec![vec![0.3, -0.2, 0.5], vec![0.1, 0.4, -0.6]],
                b: vec![0.1, -0.1],
                squash: true,
                gain: 1.5,
            },
            DualLayer {
                w: vec![vec![0.7, -0.3], vec![0.2, 0.9]],
                b: vec![0.05, 0.2],
                squash: false,
                gain: 0.5,
            },
        ],
        head: [1.3, -0.7],
    }
}

#[test]
fn a_model_is_read_through_its_twin_on_dual_numbers_as_a_parameter_and_as_self(
) -> Result<(), ScalarAutodiffError> {
    use autodiff::__adjoint::{compiled_hessians, compiled_jvps};
    let net = dual_net();
    let x = [0.5, -1.0, 2.0];
    let flat = net.scalars();
    let v: Vec<f64> = (0..flat.len())
        .map(|i| (0.37 * (i + 1) as f64).sin())
        .collect();
    let mut direction = net.clone();
    direction.set_from_slice(&v).unwrap();
    direction.layers[0].gain = 99.0; // a constant of the direction is not read
    let at = |p: &[f64]| {
        let mut moved = net.clone();
        moved.set_from_slice(p).unwrap();
        moved
    };
    let grad = |p: &[f64]| dual_net_loss_grad(&at(p), &x).unwrap().gradient.scalars();
    for (what, result, tape) in [
        (
            "free function",
            compiled_once(|| dual_net_loss_hvp(&net, &x, direction.clone()))?,
            dual_net_loss_hvp_tape(&net, &x, direction.clone())?,
        ),
        (
            "method",
            compiled_once(|| net.loss_hvp(&x, direction.clone()))?,
            net.loss_hvp_tape(&x, direction.clone())?,
        ),
    ] {
        assert_all_close_named(
            &result.hvp.scalars(),
            &tape.hvp.scalars(),
            1e-13,
            &format!("{what}: compiled vs tape H·v"),
        );
        assert_all_close_named(
            &result.gradient.scalars(),
            &grad(&flat),
            1e-14,
            &format!("{what}: gradient"),
        );
        // Constants are the model's, in the gradient and in H·v.
        assert_eq!(result.gradient.layers[0].gain, 1.5, "{what}");
        assert_eq!(result.hvp.layers[1].gain, 0.5, "{what}");
        assert!(result.hvp.layers[0].squash && !result.hvp.layers[1].squash);
        let differences = along(
            |t| {
                let moved: Vec<f64> = flat.iter().zip(&v).map(|(p, v)| p + t * v).collect();
                grad(&moved)
            },
            1e-5,
        );
        assert_all_close_named(
            &result.hvp.scalars(),
            &differences,
            1e-6,
            &format!("{what}: central differences"),
        );
    }
    // Forward mode and the Hessian run the same sweep.
    let jvps = compiled_jvps();
    let forward = dual_net_loss_jvp(&net, &x, direction.clone())?;
    assert_eq!(compiled_jvps(), jvps + 1, "f_jvp was not compiled");
    let dot: f64 = grad(&flat).iter().zip(&v).map(|(g, v)| g * v).sum();
    assert!(
        close(forward.tangent, dot, 1e-13),
        "{} vs {dot}",
        forward.tangent
    );
    let hessians = compiled_hessians();
    let hessian = net.loss_hessian(&x)?;
    assert_eq!(
        compiled_hessians(),
        hessians + 1,
        "f_hessian was not compiled"
    );
    let hvp = dual_net_loss_hvp(&net, &x, direction.clone())?
        .hvp
        .scalars();
    check_all(grad, &hessian, &hvp, &flat, &v, "model on duals");
    Ok(())
}

#[test]
fn a_model_on_dual_numbers_rejects_what_the_tape_rejects_and_changes_nothing() {
    let net = dual_net();
    let x = [0.5, -1.0, 2.0];
    // A direction of another shape: the tape's typed error naming `net`.
    let mut short = net.clone();
    short.layers[1].b.pop();
    let error = dual_net_loss_hvp(&net, &x, short.clone()).unwrap_err();
    assert_eq!(
        error,
        dual_net_loss_hvp_tape(&net, &x, short).unwrap_err(),
        "the same error as the tape's"
    );
    assert!(error.to_string().contains("net"), "{error}");
    // A weight that is not finite: the tape's labelled error, and the
    // model as it was.
    let mut bad = net.clone();
    bad.layers[0].w[1][2] = f64::NAN;
    let before = bad.clone();
    let error = dual_net_loss_hvp(&bad, &x, net.clone()).unwrap_err();
    // (Its value is NaN, so compared as written.)
    assert_eq!(
        format!("{error:?}"),
        format!(
            "{:?}",
            dual_net_loss_hvp_tape(&bad, &x, net.clone()).unwrap_err()
        )
    );
    assert!(error.to_string().contains("net"), "{error}");
    assert_eq!(bad.scalars().len(), before.scalars().len());
    assert!(bad.layers[0].w[1][2].is_nan() && bad.layers[0].w[0] == before.layers[0].w[0]);
    // A direction that is not finite.
    let mut wild = net.clone();
    wild.head[1] = f64::INFINITY;
    assert_eq!(
        dual_net_loss_hvp(&net, &x, wild.clone()).unwrap_err(),
        dual_net_loss_hvp_tape(&net, &x, wild).unwrap_err()
    );
}

#[differentiable]
impl DualLayer {
    /// One unit of the layer, `tanh(b + w·x)`.
    fn unit(&self, x: &[f64], #[constant] j: usize) -> f64 {
        let mut s = self.b[j];
        for i in 0..x.len() {
            s += self.w[j][i] * x[i];
        }
        s.tanh()
    }
}

/// A free helper taking a model.
#[differentiable]
fn first_unit(layer: &DualLayer, x: &[f64]) -> f64 {
    let mut s = layer.b[0];
    for i in 0..x.len() {
        s += layer.w[0][i] * x[i];
    }
    s * layer.gain
}

/// A model and the input both differentiable, a method and a helper
/// called on the model, read as numbers.
#[differentiable]
fn layer_calls(layer: &DualLayer, x: &[f64]) -> f64 {
    let a = layer.unit(x, 1);
    let b = first_unit(layer, x);
    a * b + layer.unit(x, 0) * x[2]
}

#[test]
fn calls_that_take_a_model_run_their_dual_sweeps_with_the_callers_twin(
) -> Result<(), ScalarAutodiffError> {
    let layer = dual_net().layers[0].clone();
    let x = vec![0.5, -1.0, 2.0];
    let mut direction = layer.clone();
    direction
        .set_from_slice(&[0.2, -0.4, 0.1, 0.3, 0.5, -0.6, 0.7, 0.25])
        .unwrap();
    let dx = vec![-0.3, 0.6, 0.15];
    let result = compiled_once(|| layer_calls_hvp(&layer, &x, (direction.clone(), dx.clone())))?;
    let tape = layer_calls_hvp_tape(&layer, &x, (direction.clone(), dx.clone()))?;
    let flat = |pair: &(DualLayer, Vec<f64>)| {
        let mut out = pair.0.scalars();
        out.extend_from_slice(&pair.1);
        out
    };
    assert_all_close_named(
        &flat(&result.hvp),
        &flat(&tape.hvp),
        1e-13,
        "compiled vs tape",
    );
    assert_eq!(result.hvp.0.gain, layer.gain, "constants are the model's");
    let point = flat(&(layer.clone(), x.clone()));
    let v = flat(&(direction.clone(), dx.clone()));
    let grad = |p: &[f64]| {
        let mut moved = layer.clone();
        moved.set_from_slice(&p[..8]).unwrap();
        flat(&layer_calls_grad(&moved, &p[8..]).unwrap().gradient)
    };
    let differences = along(
        |t| {
            let moved: Vec<f64> = point.iter().zip(&v).map(|(p, v)| p + t * v).collect();
            grad(&moved)
        },
        1e-5,
    );
    assert_all_close_named(
        &flat(&result.hvp),
        &differences,
        1e-6,
        "central differences",
    );
    let hessian = layer_calls_hessian(&layer, &x)?;
    check_all(
        grad,
        &hessian,
        &flat(&result.hvp),
        &point,
        &v,
        "model and input",
    );
    Ok(())
}

/// `match` on values with no derivative (a count, an index, a
/// comparison), as a statement with a guard and as a value (a block or a
/// `match` inside an operand too), whose arms give tracked and plain
/// numbers: the dual sweep takes them, so `f_hvp` is compiled.
#[differentiable]
fn matched(x: &[f64], w: f64) -> f64 {
    let mut t = w;
    for k in 0..x.len() {
        match k % 3 {
            0 => t = x[k].sin() * t + w,
            1 if x[k] > w => {
                t += x[k].tanh();
            }
            1 => t -= 0.5,
            _ => {}
        }
        let c = match x[k] > 0.0 {
            true => 2.0,
            false => x[k] * x[k],
        };
        t = t + c * w - {
            let r = x[k] - w;
            r * r
        } / (1.0
            + match k {
                0 => 0.0,
                _ => x[k - 1].abs(),
            });
    }
    t
}

#[test]
fn a_match_runs_on_the_dual_sweep() -> Result<(), ScalarAutodiffError> {
    for (x, w) in [
        (vec![0.3, -0.7, 1.1, 0.4], 0.8),
        (vec![-1.2, 0.5, 2.25], -1.5),
        (vec![0.9, 1.9, -0.2, 0.6, 2.0], 0.1),
    ] {
        let grad = |p: &[f64]| -> Vec<f64> {
            let n = p.len() - 1;
            let result = matched_grad(&p[..n], p[n]).unwrap();
            let mut out = result.gradient.0;
            out.push(result.gradient.1);
            out
        };
        let mut p = x.clone();
        p.push(w);
        let v: Vec<f64> = (0..p.len()).map(|i| 0.4 - 0.25 * i as f64).collect();
        let n = x.len();
        let before = autodiff::__adjoint::compiled_hvps();
        let result = matched_hvp(&x, w, (v[..n].to_vec(), v[n]))?;
        assert_eq!(
            autodiff::__adjoint::compiled_hvps(),
            before + 1,
            "f_hvp ran the dual sweep"
        );
        let tape = autodiff::__private::second_order_on_tape(|| {
            matched_hvp(&x, w, (v[..n].to_vec(), v[n]))
        })?;
        assert_eq!(result.value, tape.value);
        assert_all_close_named(&result.hvp.0, &tape.hvp.0, 1e-12, "hvp vs the tape's");
        assert!(close(result.hvp.1, tape.hvp.1, 1e-12));
        let mut hvp = result.hvp.0.clone();
        hvp.push(result.hvp.1);
        let hessian = matched_hessian(&x, w)?;
        check_all(grad, &hessian, &hvp, &p, &v, "matched");
    }
    Ok(())
}

#[differentiable]
fn wave(x: f64) -> f64 {
    x.sin() * x
}

/// A call saved for the reverse in a body with an early `return` before
/// it (`let q = wave(..)`, whose reverse starts from the `return` without
/// it): its dual sweep stands a poisoned dual where the call never ran.
/// The random programs' seed 20269 had one that did not build (`Dual`
/// was not `Poisoned`).
#[differentiable]
fn with_counts(x: f64, n: usize, k: u32, m: i64) -> f64 {
    x * n as f64 + (k as f64) * x.sin() - (m as f64) * 0.25 * x * x
}

#[differentiable]
fn returns_before_a_saved_call(x: f64, #[constant] z: f64, y: f64, w: f64) -> f64 {
    let mut acc = (-0.5 * z).sin().exp();
    let q = wave(-1.5 * -0.0625);
    let c = wave(q);
    let mut n = 0;
    while c > -0.92 && n < 6 {
        n += 1;
        if y <= 0.5 {
            return relu((2.0 * w.sin()).powi(2));
        }
    }
    acc += (-y).min((y * y + 0.5).powi(-1));
    #[allow(unused_variables)]
    let t = with_counts(2.0 * (x * x + 0.5).powi(-1).sin(), 2, 1, 0)
        .sin()
        .exp();
    1.5_f64.powf(0.3) + wave((acc * acc + 0.5).recip()) + acc
}

#[test]
fn a_poisoned_saved_call_builds_and_both_exits_match_the_tape() -> Result<(), ScalarAutodiffError> {
    for (x, y, w) in [(0.3, 0.2, 0.9), (0.3, 0.7, 0.9), (-1.1, 1.4, 0.2)] {
        let direction = (0.6, -0.4, 0.5);
        let before = autodiff::__adjoint::compiled_hvps();
        let result = returns_before_a_saved_call_hvp(x, 0.1, y, w, direction)?;
        assert_eq!(autodiff::__adjoint::compiled_hvps(), before + 1, "compiled");
        let tape = autodiff::__private::second_order_on_tape(|| {
            returns_before_a_saved_call_hvp(x, 0.1, y, w, direction)
        })?;
        assert_eq!(result.value, tape.value);
        let got = [result.hvp.0, result.hvp.1, result.hvp.2];
        let want = [tape.hvp.0, tape.hvp.1, tape.hvp.2];
        assert_all_close_named(&got, &want, 1e-12, "hvp vs the tape's");
    }
    Ok(())
}

/// A `#[constant]` whose type hides a lifetime (`Cow<str>`, a struct
/// holding a borrow, written without it): its second-order items are
/// written out, since a trait impl could not name that lifetime.
mod hidden_lifetimes {
    use autodiff::prelude::*;
    use std::borrow::Cow;

    pub struct Data<'a> {
        pub xs: &'a [f64],
    }

    #[differentiable]
    pub fn by_name(x: f64, #[constant] name: Cow<str>) -> f64 {
        x * x * name.len() as f64
    }

    #[allow(elided_lifetimes_in_paths)]
    #[differentiable]
    pub fn by_data(x: f64, #[constant] d: &Data) -> f64 {
        (x * d.xs[0]).sin()
    }
}

#[test]
fn a_constant_whose_type_hides_a_lifetime_builds_its_second_order_items(
) -> Result<(), ScalarAutodiffError> {
    use hidden_lifetimes::*;
    // x² · 2 at x = 1.5: f'' = 4.
    let hvp = by_name_hvp(1.5, std::borrow::Cow::Borrowed("ab"), 1.0)?;
    assert_eq!((hvp.value, hvp.gradient, hvp.hvp), (4.5, 6.0, 4.0));
    let jvp = by_name_jvp(1.5, std::borrow::Cow::Borrowed("ab"), 0.5)?;
    assert_eq!((jvp.value, jvp.tangent), (4.5, 3.0));
    assert_eq!(
        by_name_hessian(1.5, std::borrow::Cow::Borrowed("ab"))?.get(0, 0),
        4.0
    );
    // sin(2x): f'' = −4 sin(2x).
    let xs = [2.0];
    let data = Data { xs: &xs };
    let x = 0.3_f64;
    let hvp = by_data_hvp(x, &data, 1.0)?;
    assert!((hvp.gradient - 2.0 * (2.0 * x).cos()).abs() < 1e-14);
    assert!((hvp.hvp + 4.0 * (2.0 * x).sin()).abs() < 1e-14);
    Ok(())
}

/// One item name for the items of a tracked list and, in a second loop,
/// of a `#[constant]` one: by name the second loop's `v` carries a
/// derivative, so its adjoint has the type of what is added into it, a
/// dual in `f_hvp`'s sweep (which did not build before, or kept such
/// bodies on the tape, as rows of rows were). Also the same
/// two loops written as one `for` over `w.iter().chain(c.iter())`
/// numbered by `enumerate`.
mod one_name_for_two_lists {
    use autodiff::prelude::*;

    #[differentiable]
    pub fn two_loops(w: &[f64], #[constant] c: &[f64]) -> f64 {
        let mut s = 1.0;
        for v in w.iter().copied() {
            s *= v;
        }
        for v in c.iter().copied() {
            s *= v;
        }
        s
    }

    #[differentiable]
    pub fn rows_by_one_name(w: &[Vec<f64>], #[constant] c: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for r in c {
            s += r[0] * r[1];
        }
        for r in w {
            s += r[0] * r[1] * r[0];
        }
        for r in c.iter().rev() {
            s -= r[1];
        }
        s
    }

    /// A linear model's squared error with an L2 penalty, each loop
    /// naming its items `wi` (`for wi in w` of the slice itself).
    #[differentiable]
    pub fn penalised(w: &[f64], #[constant] x: &[f64], #[constant] y: f64) -> f64 {
        let mut z = 0.0;
        for (wi, xi) in w.iter().zip(x) {
            z += wi * xi;
        }
        let mut penalty = 0.0;
        for wi in w {
            penalty += wi * wi;
        }
        for wi in x {
            z += wi * 0.1;
        }
        (z - y) * (z - y) + 0.01 * penalty
    }

    #[differentiable]
    pub fn numbered(w: &[f64], #[constant] c: &[f64]) -> f64 {
        let mut s = 1.0;
        for (i, v) in w.iter().copied().chain(c.iter().copied()).enumerate() {
            s = s * v + i as f64;
        }
        s
    }
}

#[test]
fn one_item_name_for_a_tracked_and_a_constant_list() -> Result<(), ScalarAutodiffError> {
    use one_name_for_two_lists::*;
    let w = [0.5, -1.5, 2.0];
    let c = [3.0, 0.25];
    let d = vec![1.0, -0.5, 0.25];
    // s = w0·w1·w2·Πc: ∂²s/∂wi∂wj = Πc·Π_{k≠i,j} wk, 0 on the diagonal.
    let pc: f64 = c.iter().product();
    let hessian = |i: usize, j: usize| {
        if i == j {
            0.0
        } else {
            pc * (0..3)
                .filter(|&k| k != i && k != j)
                .map(|k| w[k])
                .product::<f64>()
        }
    };
    let hvp = compiled_once(|| two_loops_hvp(&w, &c, d.clone()))?;
    for i in 0..3 {
        let want: f64 = (0..3).map(|j| hessian(i, j) * d[j]).sum();
        assert!(
            (hvp.hvp[i] - want).abs() < 1e-13,
            "{i}: {} {want}",
            hvp.hvp[i]
        );
    }
    let on_tape = autodiff::__private::second_order_on_tape(|| two_loops_hvp(&w, &c, d.clone()))?;
    assert_eq!(hvp.value.to_bits(), on_tape.value.to_bits());
    // H = 2·x·xᵀ + 0.02·I.
    let x = [1.0, 0.5, -0.25];
    let hvp = compiled_once(|| penalised_hvp(&w, &x, 0.3, d.clone()))?;
    let xd: f64 = x.iter().zip(&d).map(|(a, b)| a * b).sum();
    for i in 0..3 {
        let want = 2.0 * x[i] * xd + 0.02 * d[i];
        assert!(
            (hvp.hvp[i] - want).abs() < 1e-13,
            "{i}: {} {want}",
            hvp.hvp[i]
        );
    }
    // Rows: s = Σ_r w_r0²·w_r1 + constants, so row r's Hessian-vector
    // product is [2·w_r1·d0 + 2·w_r0·d1, 2·w_r0·d0].
    let rows = vec![vec![0.5, -1.5], vec![2.0, 0.75]];
    let data = vec![vec![3.0, 0.25], vec![-1.0, 2.0], vec![0.5, 0.5]];
    let dr = vec![vec![1.0, -0.5], vec![0.25, 2.0]];
    let hvp = compiled_once(|| rows_by_one_name_hvp(&rows, &data, dr.clone()))?;
    for (r, (row, d)) in rows.iter().zip(&dr).enumerate() {
        let want = [
            2.0 * row[1] * d[0] + 2.0 * row[0] * d[1],
            2.0 * row[0] * d[0],
        ];
        for k in 0..2 {
            assert!((hvp.hvp[r][k] - want[k]).abs() < 1e-13, "{r} {k}");
        }
    }
    // The numbered chain: against the tape's second order and central
    // differences of the compiled gradient.
    let hvp = compiled_once(|| numbered_hvp(&w, &c, d.clone()))?;
    let on_tape = autodiff::__private::second_order_on_tape(|| numbered_hvp(&w, &c, d.clone()))?;
    let h = 1e-5;
    let at = |t: f64| -> Vec<f64> {
        let moved: Vec<f64> = w.iter().zip(&d).map(|(a, b)| a + t * b).collect();
        numbered_grad(&moved, &c).unwrap().gradient
    };
    let (plus, minus) = (at(h), at(-h));
    for i in 0..3 {
        let central = (plus[i] - minus[i]) / (2.0 * h);
        assert!((hvp.hvp[i] - on_tape.hvp[i]).abs() < 1e-12);
        assert!(
            (hvp.hvp[i] - central).abs() < 1e-6,
            "{i}: {} {central}",
            hvp.hvp[i]
        );
        assert!((hvp.gradient[i] - on_tape.gradient[i]).abs() < 1e-12);
    }
    assert_eq!(numbered_grad_path(), autodiff::GradientPath::Compiled);
    Ok(())
}

/// Loops over rows zipped with rows or numbers, as students write a
/// layer and a data set: each item a row of duals, or a number.
mod zipped_rows {
    use autodiff::prelude::*;

    /// A layer's rows beside its biases, then each row beside the input.
    #[differentiable]
    pub fn layer(w: &[Vec<f64>], b: &[f64], x: &[f64]) -> f64 {
        let mut out = Vec::new();
        for (row, bias) in w.iter().zip(b) {
            let mut z = *bias;
            for (a, v) in row.iter().zip(x) {
                z += a * v;
            }
            out.push(z.tanh());
        }
        out.iter().map(|o| o * o).sum()
    }

    /// A data set's rows beside their targets, the rows differentiable.
    #[differentiable]
    pub fn regression(w: &[f64], xs: &[Vec<f64>], #[constant] ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let mut p = 0.0;
            for (a, b) in w.iter().zip(x) {
                p += a * b;
            }
            loss += (p - y).powi(2);
        }
        loss / ys.len() as f64
    }

    /// The same over constant data, and a logistic loss.
    #[differentiable]
    pub fn logistic(w: &[f64], #[constant] xs: &[Vec<f64>], #[constant] ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (x, y) in xs.iter().zip(ys.iter()) {
            let mut z = 0.0;
            for (a, b) in w.iter().zip(x.iter()) {
                z += a * b;
            }
            let p = z.sigmoid();
            loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        }
        loss
    }

    /// Numbered, rows of arrays indexed, a row beside a number.
    #[differentiable]
    pub fn numbered(w: &[[f64; 2]], v: &[f64]) -> f64 {
        let mut s = 0.0;
        for (i, (row, vi)) in w.iter().zip(v).enumerate() {
            s += (row[0] * vi + row[1] * i as f64).sin() * row[1];
        }
        s
    }

    #[differentiable]
    pub fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(p, q)| p * q).sum()
    }

    /// The layer again, each row passed to a helper: the row a `Vec` of
    /// duals the helper's dual pair takes.
    #[differentiable]
    pub fn layer_by_helper(w: &[Vec<f64>], b: &[f64], x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (row, bias) in w.iter().zip(b) {
            s += (dot(row, x) + bias).tanh();
        }
        s
    }

    /// Two matrices' rows side by side.
    #[differentiable]
    pub fn two_matrices(a: &[Vec<f64>], b: &[Vec<f64>]) -> f64 {
        let mut s = 0.0;
        for (ra, rb) in a.iter().zip(b) {
            for (p, q) in ra.iter().zip(rb.iter()) {
                s += (p * q).exp() - p * p * q;
            }
        }
        s
    }
}

/// `f_hvp` of the functions above, compiled, against the tape's and
/// central differences of the compiled gradient along the direction.
#[test]
fn loops_over_rows_zipped_with_rows_or_numbers_have_a_compiled_hvp(
) -> Result<(), ScalarAutodiffError> {
    use zipped_rows::*;
    let h = 1e-5;
    // Central differences of `grad` (flattened) at `x ± h·d`.
    let central = |grad: &dyn Fn(f64) -> Vec<f64>| -> Vec<f64> {
        let (plus, minus) = (grad(h), grad(-h));
        plus.iter()
            .zip(&minus)
            .map(|(p, m)| (p - m) / (2.0 * h))
            .collect()
    };
    let moved = |x: &[Vec<f64>], d: &[Vec<f64>], t: f64| -> Vec<Vec<f64>> {
        x.iter()
            .zip(d)
            .map(|(r, s)| r.iter().zip(s).map(|(a, b)| a + t * b).collect())
            .collect()
    };
    let moved1 = |x: &[f64], d: &[f64], t: f64| -> Vec<f64> {
        x.iter().zip(d).map(|(a, b)| a + t * b).collect()
    };
    let flat = |rows: &[Vec<f64>]| -> Vec<f64> { rows.iter().flatten().copied().collect() };
    let agree = |got: Vec<f64>, tape: Vec<f64>, want: Vec<f64>, what: &str| {
        assert_eq!(got.len(), want.len(), "{what}");
        for (k, ((g, t), c)) in got.iter().zip(&tape).zip(&want).enumerate() {
            assert!(
                (g - t).abs() <= 1e-12 * (1.0 + t.abs()),
                "{what} {k}: {g} tape {t}"
            );
            assert!(
                (g - c).abs() <= 1e-6 * (1.0 + c.abs()),
                "{what} {k}: {g} central {c}"
            );
        }
    };

    let w = vec![vec![0.1, 0.2, -0.4], vec![-0.3, 0.4, 0.25]];
    let b = vec![0.5, -0.5];
    let x = vec![1.0, 2.0, -0.7];
    let (dw, db, dx) = (
        vec![vec![0.3, -0.1, 0.2], vec![0.7, 0.05, -0.4]],
        vec![0.2, 0.9],
        vec![-0.5, 0.25, 1.0],
    );
    let direction = || (dw.clone(), db.clone(), dx.clone());
    let hvp = compiled_once(|| layer_hvp(&w, &b, &x, direction()))?;
    let tape = autodiff::__private::second_order_on_tape(|| layer_hvp(&w, &b, &x, direction()))?;
    let all = |(gw, gb, gx): (Vec<Vec<f64>>, Vec<f64>, Vec<f64>)| [flat(&gw), gb, gx].concat();
    let want = central(&|t| {
        all(
            layer_grad(&moved(&w, &dw, t), &moved1(&b, &db, t), &moved1(&x, &dx, t))
                .unwrap()
                .gradient,
        )
    });
    agree(all(hvp.hvp), all(tape.hvp), want, "layer");
    let hvp = compiled_once(|| layer_by_helper_hvp(&w, &b, &x, direction()))?;
    let tape =
        autodiff::__private::second_order_on_tape(|| layer_by_helper_hvp(&w, &b, &x, direction()))?;
    let want = central(&|t| {
        all(
            layer_by_helper_grad(&moved(&w, &dw, t), &moved1(&b, &db, t), &moved1(&x, &dx, t))
                .unwrap()
                .gradient,
        )
    });
    agree(all(hvp.hvp), all(tape.hvp), want, "layer by helper");

    let wl = vec![0.1, 0.2];
    let xs = vec![vec![1.0, 2.0], vec![0.5, -1.0], vec![0.3, 0.3]];
    let ys = vec![1.0, 0.0, -2.0];
    let (dwl, dxs) = (
        vec![1.0, -0.5],
        vec![vec![0.1, 0.2], vec![-0.3, 0.5], vec![0.9, -0.1]],
    );
    let direction = || (dwl.clone(), dxs.clone());
    let hvp = compiled_once(|| regression_hvp(&wl, &xs, &ys, direction()))?;
    let tape =
        autodiff::__private::second_order_on_tape(|| regression_hvp(&wl, &xs, &ys, direction()))?;
    let all = |(gw, gx): (Vec<f64>, Vec<Vec<f64>>)| [gw, flat(&gx)].concat();
    let want = central(&|t| {
        all(
            regression_grad(&moved1(&wl, &dwl, t), &moved(&xs, &dxs, t), &ys)
                .unwrap()
                .gradient,
        )
    });
    agree(all(hvp.hvp), all(tape.hvp), want, "regression");

    // A logistic loss over constant data: H = Σ p(1−p)·x·xᵀ.
    let labels = vec![1.0, 0.0, 1.0];
    let hvp = compiled_once(|| logistic_hvp(&wl, &xs, &labels, dwl.clone()))?;
    let closed: Vec<f64> = (0..2)
        .map(|i| {
            xs.iter()
                .map(|x| {
                    let z: f64 = wl.iter().zip(x).map(|(a, b)| a * b).sum();
                    let p = 1.0 / (1.0 + (-z).exp());
                    let xd: f64 = x.iter().zip(&dwl).map(|(a, b)| a * b).sum();
                    p * (1.0 - p) * x[i] * xd
                })
                .sum()
        })
        .collect();
    for i in 0..2 {
        assert!((hvp.hvp[i] - closed[i]).abs() < 1e-13, "logistic {i}");
    }

    let wa = vec![[0.3, -0.8], [1.1, 0.4], [-0.2, 0.9]];
    let v = vec![0.7, -1.3, 0.2];
    let (dwa, dv) = (
        vec![[0.5, 0.1], [-0.2, 0.3], [0.4, -0.6]],
        vec![0.3, 0.8, -0.1],
    );
    let hvp = compiled_once(|| numbered_hvp(&wa, &v, (dwa.clone(), dv.clone())))?;
    let tape = autodiff::__private::second_order_on_tape(|| {
        numbered_hvp(&wa, &v, (dwa.clone(), dv.clone()))
    })?;
    let rows = |a: &[[f64; 2]]| -> Vec<Vec<f64>> { a.iter().map(|r| r.to_vec()).collect() };
    let arrays = |a: Vec<Vec<f64>>| -> Vec<[f64; 2]> { a.iter().map(|r| [r[0], r[1]]).collect() };
    let all = |(gw, gv): (Vec<[f64; 2]>, Vec<f64>)| [flat(&rows(&gw)), gv].concat();
    let want = central(&|t| {
        let at = arrays(moved(&rows(&wa), &rows(&dwa), t));
        all(numbered_grad(&at, &moved1(&v, &dv, t)).unwrap().gradient)
    });
    agree(all(hvp.hvp), all(tape.hvp), want, "numbered");

    let a = vec![vec![0.3, -0.5], vec![0.8, 0.1], vec![-0.4, 0.6]];
    let bm = vec![vec![1.2, 0.4], vec![-0.7, 0.9]];
    let (da, dbm) = (
        vec![vec![0.1, 0.2], vec![-0.3, 0.4], vec![0.5, 0.6]],
        vec![vec![0.7, -0.8], vec![0.9, 0.1]],
    );
    let direction = || (da.clone(), dbm.clone());
    let hvp = compiled_once(|| two_matrices_hvp(&a, &bm, direction()))?;
    let tape =
        autodiff::__private::second_order_on_tape(|| two_matrices_hvp(&a, &bm, direction()))?;
    let all = |(ga, gb): (Vec<Vec<f64>>, Vec<Vec<f64>>)| [flat(&ga), flat(&gb)].concat();
    let want = central(&|t| {
        all(two_matrices_grad(&moved(&a, &da, t), &moved(&bm, &dbm, t))
            .unwrap()
            .gradient)
    });
    agree(all(hvp.hvp), all(tape.hvp), want, "two matrices");
    for path in [
        layer_grad_path(),
        regression_grad_path(),
        logistic_grad_path(),
        numbered_grad_path(),
        two_matrices_grad_path(),
    ] {
        assert_eq!(path, autodiff::GradientPath::Compiled);
    }
    Ok(())
}

/// Sums written with their type (`x.iter().sum::<f64>()`), as a mean and
/// a variance are, and a float literal written with its suffix
/// (`10000f64`), as positional encodings are.
mod typed_sums {
    use autodiff::prelude::*;

    #[differentiable]
    pub fn batch_norm(x: &[f64], gamma: f64, beta: f64) -> f64 {
        let n = x.len() as f64;
        let mean = x.iter().sum::<f64>() / n;
        let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
        let y: Vec<f64> = x
            .iter()
            .map(|v| gamma * (v - mean) / (var + 1e-5).sqrt() + beta)
            .collect();
        y.iter().map(|v| v.powi(3)).sum()
    }

    #[differentiable]
    pub fn sums_everywhere(x: &[f64]) -> f64 {
        let mut t: f64 = x.iter().sum();
        t += x.iter().sum::<f64>().sin();
        if t > 100.0 {
            return -x.iter().sum::<f64>();
        }
        t * t + x.iter().sum::<f64>()
    }

    #[differentiable]
    pub fn positional(theta: f64, #[constant] d: usize) -> f64 {
        let mut s = 0.0;
        for i in 0..d {
            let freq = 1.0 / 10000f64.powf(2.0 * i as f64 / d as f64);
            s += (theta * freq).sin().powi(2) + 0.5 * (theta * freq).cos();
        }
        s
    }
}

#[test]
fn typed_sums_and_suffixed_literals_have_a_compiled_hvp() -> Result<(), ScalarAutodiffError> {
    use typed_sums::*;
    let h = 1e-5;
    let x = [0.3, -1.2, 0.8, 0.5];
    let d = vec![0.1, 0.7, -0.4, 0.2];
    let moved = |t: f64| -> Vec<f64> { x.iter().zip(&d).map(|(a, b)| a + t * b).collect() };
    let close = |got: f64, want: f64, tol: f64, what: &str| {
        assert!(
            (got - want).abs() <= tol * (1.0 + want.abs()),
            "{what}: {got} against {want}"
        );
    };

    let (dg, db) = (0.3, -0.2);
    let hvp = compiled_once(|| batch_norm_hvp(&x, 1.2, 0.1, (d.clone(), dg, db)))?;
    let tape = autodiff::__private::second_order_on_tape(|| {
        batch_norm_hvp(&x, 1.2, 0.1, (d.clone(), dg, db))
    })?;
    let grad = |t: f64| {
        batch_norm_grad(&moved(t), 1.2 + t * dg, 0.1 + t * db)
            .unwrap()
            .gradient
    };
    let (plus, minus) = (grad(h), grad(-h));
    for i in 0..4 {
        close(hvp.hvp.0[i], tape.hvp.0[i], 1e-12, "batch norm, tape");
        close(
            hvp.hvp.0[i],
            (plus.0[i] - minus.0[i]) / (2.0 * h),
            1e-6,
            "batch norm",
        );
    }
    close(
        hvp.hvp.1,
        (plus.1 - minus.1) / (2.0 * h),
        1e-6,
        "batch norm, gamma",
    );
    close(
        hvp.hvp.2,
        (plus.2 - minus.2) / (2.0 * h),
        1e-6,
        "batch norm, beta",
    );

    // s = Σx: f = (s + sin s)² + s, so H = (2(1 + cos s)² − 2(s + sin s) sin s)·11ᵀ.
    let hvp = compiled_once(|| sums_everywhere_hvp(&x, d.clone()))?;
    let s: f64 = x.iter().sum();
    let along: f64 = d.iter().sum();
    let curvature = 2.0 * (1.0 + s.cos()).powi(2) - 2.0 * (s + s.sin()) * s.sin();
    for i in 0..4 {
        close(hvp.hvp[i], curvature * along, 1e-13, "sums everywhere");
    }

    // f = Σ sin²(θ fᵢ) + cos(θ fᵢ)/2: f'' = Σ fᵢ²(2 cos(2θ fᵢ) − cos(θ fᵢ)/2).
    let theta = 0.7;
    let hvp = compiled_once(|| positional_hvp(theta, 6, 1.0))?;
    let closed: f64 = (0..6)
        .map(|i| {
            let f = 1.0 / 10000f64.powf(2.0 * i as f64 / 6.0);
            f * f * (2.0 * (2.0 * theta * f).cos() - 0.5 * (theta * f).cos())
        })
        .sum();
    close(hvp.hvp, closed, 1e-13, "positional");
    Ok(())
}

/// `clamp` and `mul_add` on a tracked value: a binary cross-entropy whose
/// probabilities are clamped away from 0 and 1, as course code guards its
/// `ln`, and fused products.
mod clamped {
    use autodiff::prelude::*;

    #[differentiable]
    pub fn bce(w: &[f64], #[constant] xs: &[Vec<f64>], #[constant] ys: &[f64]) -> f64 {
        let mut loss = 0.0;
        for (x, y) in xs.iter().zip(ys) {
            let z: f64 = w.iter().zip(x).map(|(a, b)| a * b).sum();
            let p = z.sigmoid().clamp(1e-7, 1.0 - 1e-7);
            loss -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        }
        loss
    }

    #[differentiable]
    pub fn fused(a: f64, b: f64, c: f64) -> f64 {
        let t = a.mul_add(b, c);
        let u = (a * a).mul_add(2.0, b);
        t * t + u.sin() + a.clamp(b, c + 3.0)
    }
}

#[test]
fn clamp_and_mul_add_have_a_compiled_hvp() -> Result<(), ScalarAutodiffError> {
    use clamped::*;
    let h = 1e-5;
    // The third sample's probability, σ(30), is clamped: it adds nothing
    // to the Hessian, H = Σ_{unclamped} p(1−p)·x·xᵀ.
    let xs = vec![vec![1.0, 2.0], vec![0.5, -1.0], vec![100.0, 0.0]];
    let ys = vec![1.0, 0.0, 1.0];
    let w = [0.3, -0.2];
    let d = vec![1.0, 0.5];
    let hvp = compiled_once(|| bce_hvp(&w, &xs, &ys, d.clone()))?;
    let tape = autodiff::__private::second_order_on_tape(|| bce_hvp(&w, &xs, &ys, d.clone()))?;
    let closed: Vec<f64> = (0..2)
        .map(|i| {
            xs[..2]
                .iter()
                .map(|x| {
                    let z = w[0] * x[0] + w[1] * x[1];
                    let p = 1.0 / (1.0 + (-z).exp());
                    p * (1.0 - p) * x[i] * (x[0] * d[0] + x[1] * d[1])
                })
                .sum()
        })
        .collect();
    for i in 0..2 {
        assert!(
            (hvp.hvp[i] - closed[i]).abs() < 1e-13,
            "bce {i}: {} {}",
            hvp.hvp[i],
            closed[i]
        );
        assert_eq!(hvp.hvp[i].to_bits(), tape.hvp[i].to_bits(), "bce {i}");
        assert_eq!(
            hvp.gradient[i].to_bits(),
            tape.gradient[i].to_bits(),
            "bce {i}"
        );
    }
    // Inside, clamped above, and at a tie with the lower bound (½ each).
    let v = (1.0, -0.5, 0.25);
    for (a, b, c) in [(0.3, 0.7, -0.2), (3.0, 0.7, -0.5), (0.5, 0.5, -1.0)] {
        let hvp = compiled_once(|| fused_hvp(a, b, c, v))?;
        let tape = autodiff::__private::second_order_on_tape(|| fused_hvp(a, b, c, v))?;
        let grad = |t: f64| {
            let g = fused_grad(a + t * v.0, b + t * v.1, c + t * v.2)
                .unwrap()
                .gradient;
            [g.0, g.1, g.2]
        };
        let (plus, minus) = (grad(h), grad(-h));
        let got = [hvp.hvp.0, hvp.hvp.1, hvp.hvp.2];
        let on_tape = [tape.hvp.0, tape.hvp.1, tape.hvp.2];
        for k in 0..3 {
            assert!(
                (got[k] - on_tape[k]).abs() <= 1e-12 * (1.0 + on_tape[k].abs()),
                "fused {k}"
            );
            // Away from the tie, where central differences straddle no kink.
            if a != b {
                let central = (plus[k] - minus[k]) / (2.0 * h);
                assert!(
                    (got[k] - central).abs() < 1e-6,
                    "fused {k}: {} {central}",
                    got[k]
                );
            }
        }
    }
    Ok(())
}

/// A `loop` whose value is tracked, left by `break` with a tracked value
/// or a plain one (lifted on duals), as a Newton iteration is written.
mod loop_values {
    use autodiff::prelude::*;

    #[differentiable]
    pub fn newton_root(a: f64, #[constant] tol: f64) -> f64 {
        let mut x = a;
        let mut n = 0;
        let root = loop {
            if n >= 30 {
                break 0.5;
            }
            let next = 0.5 * (x + a / x);
            if (next - x).abs() < tol {
                break next;
            }
            x = next;
            n += 1;
        };
        root * root.sin()
    }
}

#[test]
fn a_loops_tracked_value_has_a_compiled_hvp() -> Result<(), ScalarAutodiffError> {
    use loop_values::*;
    let a = 2.0;
    // Converged, one step short of it (`tol` = 10) and never (`tol` = 0).
    for tol in [1e-12, 10.0, 0.0] {
        let hvp = compiled_once(|| newton_root_hvp(a, tol, 1.0))?;
        let tape = autodiff::__private::second_order_on_tape(|| newton_root_hvp(a, tol, 1.0))?;
        let h = 1e-5;
        let central = (newton_root_grad(a + h, tol).unwrap().gradient
            - newton_root_grad(a - h, tol).unwrap().gradient)
            / (2.0 * h);
        assert!(
            (hvp.hvp - tape.hvp).abs() <= 1e-12 * (1.0 + tape.hvp.abs()),
            "{tol}"
        );
        assert!(
            (hvp.hvp - central).abs() < 1e-6,
            "{tol}: {} {central}",
            hvp.hvp
        );
        assert!((hvp.gradient - tape.gradient).abs() <= 1e-12 * (1.0 + tape.gradient.abs()));
    }
    // Never converged (`tol` = 0): the plain `0.5` is the value, which no
    // parameter moves.
    let stuck = newton_root_hvp(a, 0.0, 1.0)?;
    assert_eq!((stuck.gradient, stuck.hvp), (0.0, 0.0));
    // Converged to √2: f'' by its closed form.
    let s = a.sqrt();
    let (ds, dds) = (0.5 / s, -0.25 / (a * s));
    let g1 = s.sin() + s * s.cos();
    let g2 = 2.0 * s.cos() - s * s.sin();
    let closed = g2 * ds * ds + g1 * dds;
    let hvp = newton_root_hvp(a, 1e-12, 1.0)?;
    assert!((hvp.hvp - closed).abs() < 1e-12, "{} {closed}", hvp.hvp);
    Ok(())
}
