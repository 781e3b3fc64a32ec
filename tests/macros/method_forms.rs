//! `theta.sin_cos()` and the activations in method form (`x.relu()`,
//! `x.sigmoid()`), through the tape and the compiled adjoint: values equal
//! the plain twin's bit for bit, gradients match closed forms and a
//! dual-number forward pass (`support/oracle.rs`), and the tape records
//! `sin_cos` as the table's `sin` and `cos` nodes, each with its label.

use autodiff::prelude::*;
use autodiff::{GradientPath, ScalarOperation};

use crate::oracle::{assert_all_close_named, Dual};

#[differentiable]
fn arm(theta: f64, r: f64) -> f64 {
    let (s, c) = theta.sin_cos();
    r * c + s * s
}

#[test]
fn sin_cos_has_the_closed_form_gradient_on_both_paths() -> Result<(), ScalarAutodiffError> {
    for (theta, r) in [(0.3, 2.0), (-2.1, 0.5), (4.0, -1.5)] {
        let (s, c) = (f64::sin(theta), f64::cos(theta));
        // ∂/∂θ = −r sin θ + 2 sin θ cos θ, ∂/∂r = cos θ.
        let want = [-r * s + 2.0 * s * c, c];
        for (path, got) in [
            ("f_grad", arm_grad(theta, r)?),
            ("f_grad_tape", arm_grad_tape(theta, r)?),
        ] {
            assert_eq!(got.value.to_bits(), arm(theta, r).to_bits(), "{path}");
            assert_all_close_named(&[got.gradient.0, got.gradient.1], &want, 1e-14, path);
        }
    }
    assert_eq!(arm_grad_path(), GradientPath::Compiled);
    Ok(())
}

#[test]
fn sin_cos_records_a_sin_node_and_a_cos_node_each_labelled() {
    let tape = Tape::new();
    let theta = tape.variable(0.7).unwrap();
    let r = tape.variable(2.0).unwrap();
    let out = arm_tape(&tape, theta, r).unwrap();
    let pass = out.backward().unwrap();
    let nodes = pass.nodes();
    let find = |operation: ScalarOperation| {
        let found: Vec<_> = nodes.iter().filter(|n| n.operation == operation).collect();
        assert_eq!(found.len(), 1, "one {operation:?} node");
        found[0].clone()
    };
    let (sin, cos) = (find(ScalarOperation::Sin), find(ScalarOperation::Cos));
    assert_eq!(sin.operands, [theta.index()]);
    assert_eq!(cos.operands, [theta.index()]);
    assert_eq!(sin.value, f64::sin(0.7));
    assert_eq!(cos.value, f64::cos(0.7));
    let (sin_label, cos_label) = (sin.label.unwrap(), cos.label.unwrap());
    assert_eq!(sin_label.text, "theta.sin()");
    assert_eq!(cos_label.text, "theta.cos()");
    assert!(sin_label.line > 0 && sin_label.line == cos_label.line);
    // Each node's adjoint is its own: s_bar = 2s, c_bar = r.
    assert_eq!(sin.pass_adjoint, Some(2.0 * f64::sin(0.7)));
    assert_eq!(cos.pass_adjoint, Some(2.0));
}

/// The pattern rebinds the receiver's name: both components read the old
/// `x`, as Rust evaluates them before it binds.
#[differentiable]
fn rebound(x: f64) -> f64 {
    let (x, c) = x.sin_cos();
    x * c
}

#[test]
fn sin_cos_into_the_receivers_own_name_reads_it_before_rebinding() -> Result<(), ScalarAutodiffError>
{
    for x in [0.4_f64, -1.2, 2.9] {
        // sin x cos x = sin(2x)/2: derivative cos 2x.
        let want = (2.0 * x).cos();
        for (path, got) in [
            ("f_grad", rebound_grad(x)?),
            ("f_grad_tape", rebound_grad_tape(x)?),
        ] {
            assert_eq!(got.value.to_bits(), rebound(x).to_bits(), "{path}");
            assert_all_close_named(&[got.gradient], &[want], 1e-14, path);
        }
    }
    assert_eq!(rebound_grad_path(), GradientPath::Compiled);
    Ok(())
}

/// A rotation by `2·angle`, the receiver an expression, and `sin_cos`
/// also read by field and inside a loop.
#[differentiable]
fn rotated(p: [f64; 2], angle: f64) -> f64 {
    let (s, c) = (2.0 * angle).sin_cos();
    let x = c * p[0] - s * p[1];
    let y = s * p[0] + c * p[1];
    let mut total = x * y;
    for k in 0..3 {
        let t = angle * k as f64;
        total += t.sin_cos().1 * y;
    }
    total + p[1].sin_cos().0
}

fn rotated_dual(p: [Dual; 2], angle: Dual) -> Dual {
    let two_angle = angle * 2.0;
    let (s, c) = (two_angle.sin(), two_angle.cos());
    let x = c * p[0] - s * p[1];
    let y = s * p[0] + c * p[1];
    let mut total = x * y;
    for k in 0..3 {
        total = total + (angle * k as f64).cos() * y;
    }
    total + p[1].sin()
}

#[test]
fn sin_cos_of_an_expression_matches_dual_numbers_on_both_paths() -> Result<(), ScalarAutodiffError>
{
    let (p, angle) = ([1.3, -0.4], 0.9);
    let want: Vec<f64> = (0..3)
        .map(|seed| {
            let d = |k: usize, v: f64| Dual::input(v, seed == k);
            rotated_dual([d(0, p[0]), d(1, p[1])], d(2, angle)).tangent
        })
        .collect();
    for (path, got) in [
        ("f_grad", rotated_grad(p, angle)?),
        ("f_grad_tape", rotated_grad_tape(p, angle)?),
    ] {
        assert_eq!(got.value.to_bits(), rotated(p, angle).to_bits(), "{path}");
        let (g, a) = got.gradient;
        assert_all_close_named(&[g[0], g[1], a], &want, 1e-13, path);
    }
    assert!(rotated_check(p, angle).unwrap().passed());
    assert_eq!(rotated_grad_path(), GradientPath::Compiled);
    Ok(())
}

#[differentiable]
fn unit_methods(w: [f64; 2], x: f64) -> f64 {
    let h = (w[0] * x).relu();
    let g = (w[1] * x + h).sigmoid();
    g * h + x.relu()
}

#[differentiable]
fn unit_functions(w: [f64; 2], x: f64) -> f64 {
    let h = relu(w[0] * x);
    let g = sigmoid(w[1] * x + h);
    g * h + relu(x)
}

fn unit_dual(w: [Dual; 2], x: Dual) -> Dual {
    let h = (w[0] * x).relu();
    let g = (w[1] * x + h).sigmoid();
    g * h + x.relu()
}

#[test]
fn relu_and_sigmoid_as_methods_are_the_functions_on_both_paths() -> Result<(), ScalarAutodiffError>
{
    // Both sides of each kink: w₀x above and below 0, x above and below 0.
    for (w, x) in [([1.5, -0.7], 0.8), ([-1.5, 0.7], 0.8), ([1.5, 0.3], -0.6)] {
        let want: Vec<f64> = (0..3)
            .map(|seed| {
                let d = |k: usize, v: f64| Dual::input(v, seed == k);
                unit_dual([d(0, w[0]), d(1, w[1])], d(2, x)).tangent
            })
            .collect();
        assert_eq!(unit_methods(w, x).to_bits(), unit_functions(w, x).to_bits());
        for (path, got) in [
            ("f_grad", unit_methods_grad(w, x)?),
            ("f_grad_tape", unit_methods_grad_tape(w, x)?),
        ] {
            assert_eq!(got.value.to_bits(), unit_methods(w, x).to_bits(), "{path}");
            let (g, b) = got.gradient;
            assert_all_close_named(&[g[0], g[1], b], &want, 1e-14, path);
        }
    }
    // The method form takes the path the function form takes.
    assert_eq!(unit_methods_grad_path(), unit_functions_grad_path());
    assert_eq!(unit_methods_grad_path(), GradientPath::Compiled);
    Ok(())
}

#[test]
fn the_method_form_records_the_tables_relu_and_sigmoid_nodes() {
    let tape = Tape::new();
    let w = [tape.variable(1.5).unwrap(), tape.variable(-0.7).unwrap()];
    let x = tape.variable(0.8).unwrap();
    let out = unit_methods_tape(&tape, w, x).unwrap();
    let pass = out.backward().unwrap();
    let operations: Vec<ScalarOperation> = pass.nodes().iter().map(|n| n.operation).collect();
    assert_eq!(
        operations
            .iter()
            .filter(|op| **op == ScalarOperation::Relu)
            .count(),
        2
    );
    assert!(operations.contains(&ScalarOperation::Sigmoid));
}

/// A model's own method named `relu`, with an argument: a call of that
/// method, not the activation.
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Gate {
    w: f64,
}

impl Gate {
    #[differentiable]
    fn relu(&self, x: f64) -> f64 {
        (self.w * x).relu() * 3.0
    }
}

#[differentiable]
fn gated(gate: &Gate, x: f64) -> f64 {
    gate.relu(x) + x
}

#[test]
fn a_model_method_named_relu_is_called_as_the_method() -> Result<(), ScalarAutodiffError> {
    let gate = Gate { w: 2.0 };
    // 3·relu(w x) + x at w x = 1 > 0: ∂/∂w = 3x, ∂/∂x = 3w + 1.
    let got = gated_grad(&gate, 0.5)?;
    assert_eq!(got.value, 3.5);
    assert_eq!(got.gradient, (Gate { w: 1.5 }, 7.0));
    let got = gated_grad_tape(&gate, 0.5)?;
    assert_eq!(got.gradient, (Gate { w: 1.5 }, 7.0));
    Ok(())
}

/// The pair kept whole, read by field and matched: both paths agree with
/// the closed form ∂/∂θ (sin θ cos θ + 3 sin θ) = cos 2θ + 3 cos θ.
#[differentiable]
fn kept_pair(theta: f64) -> f64 {
    let pair = theta.sin_cos();
    // Two arms of one value: the guard reads the primal cosine.
    let product = match theta.sin_cos() {
        (s, c) if c >= 0.0 => s * c,
        (s, c) => c * s,
    };
    product + 3.0 * pair.0
}

#[test]
fn a_sin_cos_pair_kept_whole_is_read_by_field_and_by_match() -> Result<(), ScalarAutodiffError> {
    for theta in [0.2_f64, -1.1, 2.5] {
        let want = (2.0 * theta).cos() + 3.0 * theta.cos();
        for (path, got) in [
            ("f_grad", kept_pair_grad(theta)?),
            ("f_grad_tape", kept_pair_grad_tape(theta)?),
        ] {
            assert_eq!(got.value.to_bits(), kept_pair(theta).to_bits(), "{path}");
            assert_all_close_named(&[got.gradient], &[want], 1e-14, path);
        }
    }
    Ok(())
}
