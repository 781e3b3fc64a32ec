//! A student's names never meet the generated code's. The items a function
//! with a model gets (the dual pair `__forward_dual`/`__reverse_dual`, and
//! `f_hvp`, `f_jvp`, `f_hessian`, which run the dual sweep) bind their own
//! `stack`, `args`, `bars`, `value_bar`, `result`, `flat`, `lifted_0`, ...:
//! a parameter of the same name beside a model used to be shadowed by them
//! (E0308: expected `&mut DualStack`, found `Dual`; "`PenOnDuals` is not a
//! model"). Each function here builds, takes the compiled path, agrees
//! with the tape, and its `f_hvp` matches the closed form.

use autodiff::__adjoint::{compiled_hvps, tape_reruns};
use autodiff::prelude::*;
use autodiff::GradientPath;

use super::models::agree_model;

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Pen {
    w: Vec<f64>,
}

#[differentiable]
fn with_stack(m: &Pen, stack: f64) -> f64 {
    m.w[0] * stack + m.w[1]
}

#[differentiable]
fn with_flat(m: &Pen, flat: f64) -> f64 {
    m.w[0] * flat + m.w[1]
}

#[differentiable]
fn with_result(m: &Pen, result: f64) -> f64 {
    m.w[0] * result + m.w[1]
}

#[differentiable]
fn with_lifted(m: &Pen, lifted_0: f64) -> f64 {
    m.w[0] * lifted_0 + m.w[1]
}

#[differentiable]
fn with_args(m: &Pen, args: f64, bars: f64) -> f64 {
    m.w[0] * args + m.w[1] * bars
}

#[differentiable]
fn with_value_bar(m: &Pen, value_bar: f64, answer: f64) -> f64 {
    m.w[0] * value_bar + m.w[1] * answer
}

#[differentiable]
fn with_constant_stack(m: &Pen, #[constant] stack: &[f64], #[constant] lifted_0: &[f64]) -> f64 {
    m.w[0] * stack[0] + m.w[1] * lifted_0[0]
}

/// A model built from a local that bears a generated name, and a call
/// into a function with a model and a colliding parameter.
#[differentiable]
fn with_locals(m: &Pen, x: f64) -> f64 {
    let stack = m.w[0] * x;
    let result = stack * stack;
    let flat = with_stack(m, result);
    flat + result
}

#[differentiable]
impl Pen {
    fn scaled(&self, #[constant] stack: &[f64]) -> f64 {
        self.w[0] * stack[0] + self.w[1]
    }

    fn weighed(&self, result: f64, flat: f64) -> f64 {
        self.w[0] * result * flat + self.w[1]
    }
}

fn pen() -> Pen {
    Pen { w: vec![0.3, -0.4] }
}

/// `m.w[0] * s + m.w[1]` at `s`, by every path: value `w0 s + w1`,
/// gradient `([s, 1], w0)`, Hessian along `(dw, ds)` is
/// `([ds, 0], dw0)`.
macro_rules! affine_in_one {
    ($name:literal, $grad:ident, $tape:ident, $hvp:ident, $path:ident) => {{
        let m = pen();
        let s = 1.3;
        assert_eq!($path(), GradientPath::Compiled, $name);
        let before = tape_reruns();
        let got = $grad(&m, s).unwrap();
        assert_eq!(tape_reruns(), before, "{}: stayed compiled", $name);
        let tape = $tape(&m, s).unwrap();
        assert_eq!(got.gradient.1, tape.gradient.1, $name);
        agree_model(
            $name,
            Ok(autodiff::ValueAndGradient {
                value: got.value,
                gradient: got.gradient.0.clone(),
            }),
            Ok(autodiff::ValueAndGradient {
                value: tape.value,
                gradient: tape.gradient.0,
            }),
        );
        assert!((got.value - (0.3 * s - 0.4)).abs() < 1e-15, $name);
        assert_eq!(got.gradient.0.w, vec![s, 1.0], $name);
        assert_eq!(got.gradient.1, 0.3, $name);
        let hvps = compiled_hvps();
        let hvp = $hvp(
            &m,
            s,
            (
                Pen {
                    w: vec![0.5, -0.25],
                },
                2.0,
            ),
        )
        .unwrap();
        assert_eq!(compiled_hvps(), hvps + 1, "{}: f_hvp compiled", $name);
        assert_eq!(hvp.hvp.0.w, vec![2.0, 0.0], $name);
        assert_eq!(hvp.hvp.1, 0.5, $name);
    }};
}

#[test]
fn parameters_named_as_generated_bindings_beside_a_model() {
    affine_in_one!(
        "stack",
        with_stack_grad,
        with_stack_grad_tape,
        with_stack_hvp,
        with_stack_grad_path
    );
    affine_in_one!(
        "flat",
        with_flat_grad,
        with_flat_grad_tape,
        with_flat_hvp,
        with_flat_grad_path
    );
    affine_in_one!(
        "result",
        with_result_grad,
        with_result_grad_tape,
        with_result_hvp,
        with_result_grad_path
    );
    affine_in_one!(
        "lifted_0",
        with_lifted_grad,
        with_lifted_grad_tape,
        with_lifted_hvp,
        with_lifted_grad_path
    );
}

#[test]
fn two_parameters_named_as_generated_bindings() {
    let m = pen();
    for (name, got, tape) in [
        (
            "args",
            with_args_grad(&m, 1.5, -2.0),
            with_args_grad_tape(&m, 1.5, -2.0),
        ),
        (
            "value_bar",
            with_value_bar_grad(&m, 1.5, -2.0),
            with_value_bar_grad_tape(&m, 1.5, -2.0),
        ),
    ] {
        let (got, tape) = (got.unwrap(), tape.unwrap());
        // w0 a + w1 b: ([a, b], w0, w1).
        assert_eq!(got.gradient.0.w, vec![1.5, -2.0], "{name}");
        assert_eq!((got.gradient.1, got.gradient.2), (0.3, -0.4), "{name}");
        assert_eq!(got.gradient, tape.gradient, "{name}");
    }
    assert_eq!(with_args_grad_path(), GradientPath::Compiled);
    assert_eq!(with_value_bar_grad_path(), GradientPath::Compiled);
    // The Hessian of w0 a + w1 b in (w0, w1, a, b): ones between w0 and
    // a, and w1 and b.
    let h = with_args_hessian(&m, 1.5, -2.0).unwrap();
    let want = [
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
    ];
    for (i, row) in want.iter().enumerate() {
        for (j, &entry) in row.iter().enumerate() {
            assert_eq!(h.get(i, j), entry, "hessian ({i}, {j})");
        }
    }
    let jvp = with_value_bar_jvp(&m, 1.5, -2.0, (Pen { w: vec![1.0, 0.0] }, 0.0, 1.0)).unwrap();
    // d/dt of w0 a + w1 b along (dw0 = 1, db = 1): a + w1.
    assert!((jvp.tangent - (1.5 - 0.4)).abs() < 1e-15);
}

#[test]
fn constant_slices_and_methods_named_as_generated_bindings() {
    let m = pen();
    let got = with_constant_stack_grad(&m, &[2.0], &[3.0]).unwrap();
    assert_eq!(got.gradient.w, vec![2.0, 3.0]);
    assert_eq!(
        got.gradient,
        with_constant_stack_grad_tape(&m, &[2.0], &[3.0])
            .unwrap()
            .gradient
    );
    assert_eq!(with_constant_stack_grad_path(), GradientPath::Compiled);
    let got = m.scaled_grad(&[2.0]).unwrap();
    assert_eq!(got.gradient.w, vec![2.0, 1.0]);
    assert_eq!(got.gradient, m.scaled_grad_tape(&[2.0]).unwrap().gradient);
    let hvp = m
        .weighed_hvp(1.5, -2.0, (Pen { w: vec![1.0, 0.0] }, 0.0, 0.0))
        .unwrap();
    // w0 r f + w1: the mixed second derivatives along dw0 = 1 are (0, 0)
    // for the model, f for r and r for f.
    assert_eq!(hvp.hvp.0.w, vec![0.0, 0.0]);
    assert_eq!((hvp.hvp.1, hvp.hvp.2), (-2.0, 1.5));
}

#[test]
fn locals_named_as_generated_bindings_beside_a_model() {
    let m = pen();
    let x = 0.7;
    assert_eq!(with_locals_grad_path(), GradientPath::Compiled);
    // s = w0 x, r = s², f = w0 r + w1, value f + r = (w0 + 1) w0² x² + w1.
    let got = with_locals_grad(&m, x).unwrap();
    let (w0, w1) = (0.3, -0.4);
    let want_w0 = (3.0 * w0 * w0 + 2.0 * w0) * x * x;
    let want_x = 2.0 * (w0 + 1.0) * w0 * w0 * x;
    assert!((got.value - ((w0 + 1.0) * w0 * w0 * x * x + w1)).abs() < 1e-15);
    assert!((got.gradient.0.w[0] - want_w0).abs() < 1e-14);
    assert_eq!(got.gradient.0.w[1], 1.0);
    assert!((got.gradient.1 - want_x).abs() < 1e-14);
    let tape = with_locals_grad_tape(&m, x).unwrap();
    assert!((got.gradient.1 - tape.gradient.1).abs() < 1e-15);
    // d²/dx² along dx = 1: 2 (w0 + 1) w0².
    let hvp = with_locals_hvp(&m, x, (Pen { w: vec![0.0, 0.0] }, 1.0)).unwrap();
    assert!((hvp.hvp.1 - 2.0 * (w0 + 1.0) * w0 * w0).abs() < 1e-14);
}

/// A binding called `value` takes the function's value's name (`value`
/// becomes `value_2`), and the saved old item of `value[2] /= ..` was
/// popped as `value_2` too: `f_grad` returned that popped number as the
/// function's value, with the right gradient and no error (seed 20612).
#[differentiable]
fn value_named_by_the_student(x: f64, y: f64) -> f64 {
    let mut value = [x.sin(); 3];
    value[2] += 1.0;
    value[2] /= 1.25 + 0.25 * (2.0 * y).tanh();
    x * y + value[0]
}

#[test]
fn a_saved_item_of_a_binding_called_value_is_not_the_functions_value() {
    assert_eq!(
        value_named_by_the_student_grad_path(),
        GradientPath::Compiled
    );
    let (x, y) = (0.7, -0.4);
    let want = value_named_by_the_student(x, y);
    assert_eq!(want, x * y + x.sin());
    for got in [
        value_named_by_the_student_grad(x, y).expect("compiled"),
        value_named_by_the_student_grad_tape(x, y).expect("tape"),
    ] {
        assert_eq!(got.value.to_bits(), want.to_bits());
        // ∂/∂x = y + cos x, ∂/∂y = x: `value[2]` reaches nothing.
        assert!((got.gradient.0 - (y + x.cos())).abs() < 1e-15);
        assert!((got.gradient.1 - x).abs() < 1e-15);
    }
    let hvp = value_named_by_the_student_hvp(x, y, (1.0, 0.0)).expect("hvp");
    assert_eq!(hvp.value.to_bits(), want.to_bits());
    // The Hessian's first column: (−sin x, 1).
    assert!((hvp.hvp.0 + x.sin()).abs() < 1e-15 && (hvp.hvp.1 - 1.0).abs() < 1e-15);
}

/// A comparator's names bound to a tracked value elsewhere in the body:
/// the macro reads names, not scopes, so `a` looked tracked and `b` did
/// not, and the recording twin compared an `f64` with a `&&f64` (E0277
/// on valid code, found by the random programs).
#[differentiable]
fn comparator_names_bound_again(x: &[f64], #[constant] c: &[f64]) -> f64 {
    let top = *c.iter().max_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
    let low = *c.iter().min_by(|p, a| p.total_cmp(a)).unwrap();
    let a = x[0] * x[1];
    let s = x[1].sin();
    a * top + s * low
}

#[test]
fn a_comparators_names_bound_to_tracked_values_elsewhere_still_build() {
    let (x, c) = ([0.7, -0.4], [0.5, 2.0, -1.5]);
    let (top, low) = (2.0, -1.5);
    for got in [
        comparator_names_bound_again_grad(&x, &c).expect("compiled"),
        comparator_names_bound_again_grad_tape(&x, &c).expect("tape"),
    ] {
        assert_eq!(got.value, x[0] * x[1] * top + x[1].sin() * low);
        assert!((got.gradient[0] - x[1] * top).abs() < 1e-15);
        assert!((got.gradient[1] - (x[0] * top + x[1].cos() * low)).abs() < 1e-15);
    }
    assert_eq!(
        comparator_names_bound_again_grad_path(),
        GradientPath::Compiled
    );
}
