//! The compiled adjoint (`f_grad`) on functions that take models
//! (`#[derive(Parameters)]` structs): by value and by `&`, nested structs,
//! `Vec` fields, a `Vec` and a slice of models (also walked by `for layer
//! in &net.layers` and `.iter()`), constant fields, a call
//! that passes part of a model to another annotated function, and a
//! method on `&self`. Each function is checked three ways:
//!
//! - it really runs the compiled path: its `f_adjoint` answers on a
//!   stack (`Some`) with exactly what `f_grad` returns;
//! - against an independent oracle: the gradient written out by hand, or
//!   central differences (`f_check`) for every component;
//! - against the tape (`f_grad_tape`): same value, every component within
//!   `AGREE` of the largest. Both paths are exact reverse mode over the
//!   same operations but add each adjoint's contributions in different
//!   orders (the tape edge by edge, the adjoint statement by statement) and
//!   read `tanh'` as `1 − tanh²` where the tape uses `1/cosh²`. Every
//!   adjoint here sums at most a few dozen terms of magnitude below 10, so
//!   the two differ by a few ulps times that sum's condition, under 1e-14
//!   of the largest component; `AGREE` = 1e-12 leaves a margin of 100× and
//!   is still far below what a wrong or missing derivative would give.
//!
//! A non-finite model field makes `f_grad` rerun the tape, which returns
//! its typed, labelled error: checked against `f_grad_tape`'s own.

// Index loops on purpose: a #[differentiable] body reads the weights the
// way the formulas index them.
#![allow(clippy::needless_range_loop)]

use autodiff::__adjoint::with_stack;
use autodiff::prelude::*;

use super::support::{assert_agree, Grad};

/// `f_grad` and `f_grad_tape` agree in value (exactly) and in every
/// component of the model's scalars (`Parameters::scalars`, within
/// `AGREE`), and the constants are the same: stricter than
/// `support::agree`, which a model's gradient does not go through.
/// Returns `f_grad`'s result.
pub(super) fn agree_model<M: Parameters + PartialEq + std::fmt::Debug>(
    name: &str,
    compiled: Grad<M>,
    tape: Grad<M>,
) -> autodiff::ValueAndGradient<M> {
    let compiled = compiled.unwrap_or_else(|e| panic!("{name}: compiled: {e}"));
    let tape = tape.unwrap_or_else(|e| panic!("{name}: tape: {e}"));
    let (c, t) = (compiled.gradient.scalars(), tape.gradient.scalars());
    assert_agree(name, &c, &t);
    // Constants carried alike: the tape's gradient with the compiled
    // scalars written in is the compiled gradient.
    let mut carried = tape.gradient.clone();
    carried.set_from_slice(&c).unwrap();
    assert_eq!(carried, compiled.gradient, "{name}: constants");
    assert_eq!(compiled.value, tape.value, "{name}: value");
    compiled
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Affine {
    w: [f64; 2],
    b: f64,
    #[constant]
    label: &'static str,
    /// Read in arithmetic: the sweep writes an adjoint into the adjoint's
    /// copy of it, which the gradient must not carry.
    #[constant]
    offset: f64,
}

fn affine(w0: f64, w1: f64, b: f64, label: &'static str) -> Affine {
    Affine {
        w: [w0, w1],
        b,
        label,
        offset: 0.25,
    }
}

#[differentiable]
fn squared_error(model: Affine, #[constant] x: [f64; 2], #[constant] y: f64) -> f64 {
    let e = model.w[0] * x[0] + model.w[1] * x[1] + model.b + model.offset - y;
    e * e
}

#[test]
fn a_model_by_value_gets_the_hand_written_gradient_without_a_tape() {
    let model = affine(2.0, -1.0, 0.5, "affine");
    let (x, y) = ([3.0, 4.0], 1.0);
    let compiled = with_stack(|stack| squared_error_adjoint(stack, model.clone(), x, y))
        .expect("the compiled path answers");
    let result = squared_error_grad(model.clone(), x, y).unwrap();
    assert_eq!(result, compiled);
    // e = 2·3 − 1·4 + 0.5 + 0.25 − 1 = 1.75: ∂/∂w = 2e·x = [10.5, 14],
    // ∂/∂b = 2e = 3.5; the constants as the model has them.
    assert_eq!(result.value, 1.75 * 1.75);
    assert_eq!(
        result.gradient,
        Affine {
            w: [10.5, 14.0],
            b: 3.5,
            label: "affine",
            offset: 0.25,
        }
    );
    agree_model(
        "squared_error",
        squared_error_grad(model.clone(), x, y),
        squared_error_grad_tape(model.clone(), x, y),
    );
    assert!(squared_error_check(model, x, y).unwrap().passed());
}

#[path = "../support/nested_net.rs"]
mod nested_net;
use nested_net::{net, Net};

/// Two tanh layers read through `net.layers[k]`, an integer constant read
/// into a binding, `net.layers.len()`, a `Vec<Vec<f64>>` field.
#[differentiable]
fn forward(net: &Net, #[constant] x: [f64; 2]) -> f64 {
    let width = net.width;
    let mut h = [x[0], x[1]];
    for k in 0..net.layers.len() {
        let mut next = [0.0; 2];
        for j in 0..width {
            let mut s = net.layers[k].b[j];
            for i in 0..2 {
                s += net.layers[k].w[j][i] * h[i];
            }
            next[j] = s.tanh();
        }
        h = next;
    }
    let extra = net.table[0][0] * net.table[1][0] + net.table[1][1];
    net.scale * (net.out[0] * h[0] + net.out[1] * h[1]) + extra
}

#[test]
fn a_nested_model_by_reference_matches_central_differences_and_the_tape() {
    let net = net();
    let mut points = vec![[0.7, -1.1], [0.0, 0.0], [-2.0, 0.3]];
    points.push([1.5, 1.5]);
    for x in points {
        let compiled =
            with_stack(|stack| forward_adjoint(stack, &net, x)).expect("the compiled path answers");
        let result = forward_grad(&net, x).unwrap();
        assert_eq!(result, compiled);
        // The product term, by hand: ∂/∂t00 = t10, ∂/∂t10 = t00, ∂/∂t11 = 1.
        assert_eq!(result.gradient.table, [vec![-0.1], vec![0.3, 1.0]]);
        assert_eq!(
            (result.gradient.name.as_str(), result.gradient.width),
            ("net", 2)
        );
        // ∂/∂scale is the weighted sum the scale multiplies: by hand from
        // the forward pass.
        let mut h = x;
        for layer in &net.layers {
            let mut next = [0.0; 2];
            for j in 0..2 {
                next[j] = (layer.b[j] + layer.w[j][0] * h[0] + layer.w[j][1] * h[1]).tanh();
            }
            h = next;
        }
        let d_scale = net.out[0] * h[0] + net.out[1] * h[1];
        assert!((result.gradient.scale - d_scale).abs() <= 1e-15 * d_scale.abs().max(1.0));
        let check = forward_check(&net, x).unwrap();
        assert!(check.passed(), "{check}");
        agree_model("forward", forward_grad(&net, x), forward_grad_tape(&net, x));
    }
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct TwoAffine {
    first: Affine,
    second: Affine,
}

#[differentiable]
fn affine_out(model: &Affine, #[constant] x: [f64; 2]) -> f64 {
    model.w[0] * x[0] + model.w[1] * x[1] + model.b
}

/// A compiled caller passing parts of its model to a compiled callee:
/// through the forward/reverse pair, no tape on either side.
#[differentiable]
fn chained(model: TwoAffine, #[constant] x: [f64; 2]) -> f64 {
    let h = affine_out(&model.first, x);
    let y = affine_out(&model.second, x) * h;
    y * y
}

#[test]
fn a_part_of_a_model_passed_to_another_annotated_function() {
    let model = TwoAffine {
        first: affine(1.0, 2.0, 0.5, "first"),
        second: affine(3.0, -1.0, 0.25, "second"),
    };
    let x = [1.0, 2.0];
    let compiled = with_stack(|stack| chained_adjoint(stack, model.clone(), x))
        .expect("the compiled path answers");
    let result = chained_grad(model.clone(), x).unwrap();
    assert_eq!(result, compiled);
    // h = 1 + 4 + 0.5 = 5.5, s = 3 − 2 + 0.25 = 1.25, y = s·h = 6.875:
    // ∂/∂second.w = 2y·h·x, ∂/∂first.w = 2y·s·x, ∂/∂b likewise without x.
    let (y, h, s) = (6.875, 5.5, 1.25);
    let expected = TwoAffine {
        first: Affine {
            w: [2.0 * y * s, 2.0 * y * s * 2.0],
            b: 2.0 * y * s,
            ..model.first.clone()
        },
        second: Affine {
            w: [2.0 * y * h, 2.0 * y * h * 2.0],
            b: 2.0 * y * h,
            ..model.second.clone()
        },
    };
    assert_eq!(result.gradient, expected);
    assert_eq!(result.value, y * y);
    agree_model(
        "chained",
        chained_grad(model.clone(), x),
        chained_grad_tape(model.clone(), x),
    );
    assert!(chained_check(model, x).unwrap().passed());
}

/// A `Vec` of models by value, a slice and an array of them.
#[differentiable]
fn members(
    pair: [Affine; 2],
    others: &[Affine],
    crowd: Vec<Affine>,
    #[constant] x: [f64; 2],
) -> f64 {
    let mut total = pair[0].b * pair[1].b;
    for m in 0..others.len() {
        total += others[m].w[0] * x[0] * pair[0].w[1];
    }
    let mut sum = 0.0;
    for m in 0..crowd.len() {
        sum += crowd[m].w[0] * x[0] + crowd[m].w[1] * x[1] + crowd[m].b;
    }
    total + sum * sum
}

#[test]
fn arrays_slices_and_vecs_of_models() {
    let pair = [affine(1.0, 2.0, 3.0, "p0"), affine(4.0, 5.0, 6.0, "p1")];
    let others = vec![affine(0.5, 0.0, 0.0, "o0"), affine(-1.0, 0.0, 0.0, "o1")];
    let crowd = vec![affine(1.0, 0.0, 0.0, "c0"), affine(0.0, 1.0, 1.0, "c1")];
    let x = [2.0, 3.0];
    let compiled =
        with_stack(|stack| members_adjoint(stack, pair.clone(), &others, crowd.clone(), x))
            .expect("the compiled path answers");
    let result = members_grad(pair.clone(), &others, crowd.clone(), x).unwrap();
    assert_eq!(result, compiled);
    let (dpair, dothers, dcrowd) = result.gradient.clone();
    // total = b0·b1 + Σ o.w0·x0·p0.w1: ∂/∂b0 = b1 = 6, ∂/∂b1 = b0 = 3,
    // ∂/∂p0.w1 = Σ o.w0·x0 = (0.5 − 1)·2 = −1, ∂/∂o.w0 = x0·p0.w1 = 4.
    assert_eq!((dpair[0].b, dpair[1].b, dpair[0].w[1]), (6.0, 3.0, -1.0));
    assert_eq!((dothers[0].w[0], dothers[1].w[0]), (4.0, 4.0));
    // sum = 1·2 + 1·3 + 1 = 6: ∂/∂w = 2·6·x = [24, 36], ∂/∂b = 12.
    assert_eq!((dcrowd[0].w, dcrowd[1].b), ([24.0, 36.0], 12.0));
    let labels: Vec<_> = dpair
        .iter()
        .chain(&dothers)
        .chain(&dcrowd)
        .map(|m| (m.label, m.offset))
        .collect();
    assert_eq!(
        labels,
        [
            ("p0", 0.25),
            ("p1", 0.25),
            ("o0", 0.25),
            ("o1", 0.25),
            ("c0", 0.25),
            ("c1", 0.25)
        ]
    );
    let tape = members_grad_tape(pair.clone(), &others, crowd.clone(), x).unwrap();
    assert_eq!(result, tape);
    assert!(members_check(pair, &others, crowd, x).unwrap().passed());
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Line {
    a: f64,
    b: f64,
}

impl Line {
    /// A method on `&self` with no method calls inside: compiled.
    #[differentiable]
    fn loss(&self, #[constant] x: f64, #[constant] y: f64) -> f64 {
        let d = self.a * x + self.b - y;
        (d * d).ln_1p()
    }
}

impl Line {
    /// Called on a model below, through its forward/reverse pair.
    #[differentiable]
    fn at(&self, #[constant] x: f64) -> f64 {
        self.a * x + self.b
    }
}

/// Calls an annotated method on its model twice: compiled, each call
/// through the method's pair.
#[differentiable]
fn squared_at(line: &Line, #[constant] x: f64) -> f64 {
    line.at(x) * line.at(x)
}

/// A closure over the model, read as its body where it is called:
/// compiled.
#[differentiable]
fn closure_at(line: &Line, #[constant] x: f64) -> f64 {
    let affine = |t: f64| line.a * t + line.b;
    affine(x)
}

/// A `#[cfg]` on a `let` is not compiled yet, so this one keeps the tape
/// ...
#[differentiable]
fn cfg_at(line: &Line, #[constant] x: f64) -> f64 {
    #[cfg(not(any()))]
    let t = x;
    line.a * t + line.b
}

/// ... and a caller that passes it a model reruns on the tape: the pair
/// of a function on the tape would push the whole model's gradient at
/// every call, which costs more than one tape for the caller.
#[differentiable]
fn outer(line: &Line, #[constant] x: f64) -> f64 {
    let v = squared_at(line, x);
    3.0 * v + line.b * cfg_at(line, x)
}

/// Without the tape callee, the same caller compiles.
#[differentiable]
fn outer_compiled(line: &Line, #[constant] x: f64) -> f64 {
    let v = squared_at(line, x);
    3.0 * v + line.b * line.at(x)
}

#[test]
fn a_compiled_caller_passes_its_model_to_annotated_functions_and_methods() {
    let line = Line { a: 0.5, b: -1.0 };
    let x = 3.0;
    let squared = with_stack(|stack| squared_at_adjoint(stack, &line, x)).unwrap();
    // u² with u = a x + b = 0.5: ∂/∂a = 2u·x = 3, ∂/∂b = 2u = 1.
    assert_eq!(squared.gradient, Line { a: 3.0, b: 1.0 });
    // a x + b: ∂/∂a = x, ∂/∂b = 1.
    let closure = with_stack(|stack| closure_at_adjoint(stack, &line, x)).unwrap();
    assert_eq!(closure.gradient, Line { a: 3.0, b: 1.0 });
    assert_eq!(
        closure_at_grad_tape(&line, x).unwrap().gradient,
        closure.gradient
    );
    assert!(with_stack(|stack| outer_adjoint(stack, &line, x)).is_none());
    let compiled = with_stack(|stack| outer_compiled_adjoint(stack, &line, x)).unwrap();
    // outer = 3u² + b·u: ∂/∂a = 6u·x + b·x = 9 − 3 = 6,
    // ∂/∂b = 6u + u + b = 3 + 0.5 − 1 = 2.5; both ways.
    for result in [compiled, outer_grad(&line, x).unwrap()] {
        assert_eq!(result.value, 3.0 * 0.25 - 0.5);
        assert_eq!(result.gradient, Line { a: 6.0, b: 2.5 });
    }
    agree_model("outer", outer_grad(&line, x), outer_grad_tape(&line, x));
    agree_model(
        "outer_compiled",
        outer_compiled_grad(&line, x),
        outer_compiled_grad_tape(&line, x),
    );
    assert!(outer_check(&line, x).unwrap().passed());
    assert!(outer_compiled_check(&line, x).unwrap().passed());
}

#[test]
fn a_method_on_a_model_compiles() {
    let line = Line { a: 0.5, b: -1.0 };
    let (x, y) = (2.0, 1.5);
    let compiled =
        with_stack(|stack| line.loss_adjoint(stack, x, y)).expect("the compiled path answers");
    let result = line.loss_grad(x, y).unwrap();
    assert_eq!(result, compiled);
    // d = 1 − 1 − 1.5 = −1.5, L = ln(1 + d²): ∂/∂a = 2d·x/(1 + d²),
    // ∂/∂b = 2d/(1 + d²).
    let d: f64 = -1.5;
    let k = 2.0 * d / (1.0 + d * d);
    assert!((result.gradient.a - k * x).abs() <= 1e-15);
    assert!((result.gradient.b - k).abs() <= 1e-15);
    agree_model("loss", line.loss_grad(x, y), line.loss_grad_tape(x, y));
    assert!(line.loss_check(x, y).unwrap().passed());
}

/// A method taking its model by value (`fn at(self, ..)`), called from
/// another annotated body: on a model the caller takes by value, and on a
/// `Copy` model it borrows (`p.at(x)` with `p: &Point`). Both were build
/// failures (the recording twin took the model's twin by value where the
/// caller hands it over by reference; the pair moved the caller's model).
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Ramp {
    a: f64,
    b: f64,
}

#[differentiable]
impl Ramp {
    fn at(self, #[constant] x: f64) -> f64 {
        self.a * x + self.b
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Parameters)]
struct Point {
    a: f64,
    b: f64,
}

#[differentiable]
impl Point {
    fn spread(self, #[constant] x: f64) -> f64 {
        self.a * x * self.b
    }
}

#[differentiable]
fn ramp_squared(ramp: Ramp, #[constant] x: f64) -> f64 {
    let y = ramp.at(x);
    y * y
}

#[differentiable]
fn point_scaled(p: &Point, #[constant] x: f64) -> f64 {
    let y = p.spread(x);
    y * p.a
}

#[test]
fn a_method_taking_its_model_by_value_is_called_from_annotated_bodies() {
    let ramp = Ramp { a: 0.5, b: -0.25 };
    let x = 2.0;
    let compiled = with_stack(|stack| ramp_squared_adjoint(stack, ramp.clone(), x))
        .expect("the compiled path answers");
    let result = ramp_squared_grad(ramp.clone(), x).unwrap();
    assert_eq!(result, compiled);
    // y = a·x + b = 0.75: ∂/∂a = 2y·x, ∂/∂b = 2y.
    let y = 0.75;
    assert_eq!(result.value, y * y);
    assert_eq!(
        result.gradient,
        Ramp {
            a: 2.0 * y * x,
            b: 2.0 * y
        }
    );
    agree_model(
        "ramp_squared",
        ramp_squared_grad(ramp.clone(), x),
        ramp_squared_grad_tape(ramp.clone(), x),
    );
    // H = 2 [[x², x], [x, 1]].
    let hvp = ramp_squared_hvp(ramp.clone(), x, Ramp { a: 1.0, b: 0.5 })
        .unwrap()
        .hvp;
    assert_eq!(
        hvp,
        Ramp {
            a: 2.0 * (x * x + 0.5 * x),
            b: 2.0 * (x + 0.5)
        }
    );

    let p = Point { a: 0.7, b: 1.3 };
    let compiled =
        with_stack(|stack| point_scaled_adjoint(stack, &p, x)).expect("the compiled path answers");
    let result = point_scaled_grad(&p, x).unwrap();
    assert_eq!(result, compiled);
    // f = a²·x·b: ∂/∂a = 2a·x·b, ∂/∂b = a²·x.
    assert!((result.gradient.a - 2.0 * p.a * x * p.b).abs() <= 1e-15);
    assert!((result.gradient.b - p.a * p.a * x).abs() <= 1e-15);
    agree_model(
        "point_scaled",
        point_scaled_grad(&p, x),
        point_scaled_grad_tape(&p, x),
    );
    assert!(point_scaled_check(&p, x).unwrap().passed());
}

/// The same error, variant, operation, label and value (NaN compares
/// unequal to itself, so the fields are compared as printed).
fn same_error(compiled: ScalarAutodiffError, tape: ScalarAutodiffError) {
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));
    assert_eq!(compiled.to_string(), tape.to_string());
}

#[test]
fn a_non_finite_weight_gives_the_tapes_labelled_error() {
    // A weight the body reads, NaN and both infinities; the model is
    // borrowed, so left as it was.
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let mut broken = net();
        broken.layers[1].w[0][1] = bad;
        let kept = broken.clone();
        let compiled = forward_grad(&broken, [0.7, -1.1]).unwrap_err();
        let tape = forward_grad_tape(&broken, [0.7, -1.1]).unwrap_err();
        assert!(
            compiled.to_string().contains("must be finite"),
            "{compiled}"
        );
        same_error(compiled, tape);
        assert_eq!(format!("{broken:?}"), format!("{kept:?}"));

        let mut model = affine(2.0, -1.0, 0.5, "affine");
        model.b = bad;
        let compiled = squared_error_grad(model.clone(), [3.0, 4.0], 1.0).unwrap_err();
        let tape = squared_error_grad_tape(model, [3.0, 4.0], 1.0).unwrap_err();
        same_error(compiled, tape);
    }
    // A model whose weights are finite but whose value overflows: the
    // tape's error on the operation, through the compiled path too.
    let mut big = affine(1e200, 1e200, 0.0, "big");
    big.offset = 0.0;
    let compiled = squared_error_grad(big.clone(), [1e200, 1e200], 0.0).unwrap_err();
    let tape = squared_error_grad_tape(big, [1e200, 1e200], 0.0).unwrap_err();
    assert!(compiled.to_string().contains("non-finite"), "{compiled}");
    same_error(compiled, tape);
}

/// A model nobody reads a field of still has its weights checked: the
/// tape records every weight as a variable and rejects a NaN one.
#[differentiable]
fn only_the_bias(model: &Affine) -> f64 {
    model.b * 2.0
}

#[test]
fn an_unread_non_finite_weight_is_still_the_tapes_error() {
    let mut model = affine(1.0, 2.0, 3.0, "m");
    let ok = only_the_bias_grad(&model).unwrap();
    assert_eq!(
        (ok.value, ok.gradient.w, ok.gradient.b),
        (6.0, [0.0, 0.0], 2.0)
    );
    model.w[1] = f64::NAN;
    same_error(
        only_the_bias_grad(&model).unwrap_err(),
        only_the_bias_grad_tape(&model).unwrap_err(),
    );
    assert!(with_stack(|stack| only_the_bias_adjoint(stack, &model)).is_none());
}

/// `for layer in net.layers.iter()`, reading each layer's fields.
#[differentiable]
fn layers_by_iter(net: &Net, #[constant] x: [f64; 2]) -> f64 {
    let mut h = [x[0], x[1]];
    for layer in net.layers.iter() {
        let mut next = [0.0; 2];
        for j in 0..2 {
            next[j] = (layer.b[j] + layer.w[j][0] * h[0] + layer.w[j][1] * h[1]).tanh();
        }
        h = next;
    }
    net.out[0] * h[0] + net.out[1] * h[1]
}

/// `for layer in &net.layers`, the same network.
#[differentiable]
fn layers_by_ref(net: &Net, #[constant] x: [f64; 2]) -> f64 {
    let mut h = [x[0], x[1]];
    for layer in &net.layers {
        let mut s = [0.0; 2];
        for j in 0..2 {
            s[j] = layer.b[j];
            for i in 0..2 {
                s[j] += layer.w[j][i] * h[i];
            }
        }
        h = [s[0].tanh(), s[1].tanh()];
    }
    net.out[0] * h[0] + net.out[1] * h[1]
}

/// The hand-written backward pass of both: `(value, ∂/∂w, ∂/∂b per layer, ∂/∂out)`.
#[allow(clippy::type_complexity)]
fn layers_by_hand(net: &Net, x: [f64; 2]) -> (f64, Vec<([[f64; 2]; 2], Vec<f64>)>, [f64; 2]) {
    let mut inputs = Vec::new();
    let mut h = x;
    for layer in &net.layers {
        inputs.push(h);
        let mut next = [0.0; 2];
        for j in 0..2 {
            next[j] = (layer.b[j] + layer.w[j][0] * h[0] + layer.w[j][1] * h[1]).tanh();
        }
        h = next;
    }
    let value = net.out[0] * h[0] + net.out[1] * h[1];
    let d_out = h;
    let mut g_h = net.out;
    let mut out_h = h;
    let mut grads = vec![([[0.0; 2]; 2], vec![0.0; 2]); net.layers.len()];
    for (k, layer) in net.layers.iter().enumerate().rev() {
        let input = inputs[k];
        let g_z = [
            g_h[0] * (1.0 - out_h[0] * out_h[0]),
            g_h[1] * (1.0 - out_h[1] * out_h[1]),
        ];
        for j in 0..2 {
            grads[k].1[j] = g_z[j];
            for i in 0..2 {
                grads[k].0[j][i] = g_z[j] * input[i];
            }
        }
        g_h = [
            g_z[0] * layer.w[0][0] + g_z[1] * layer.w[1][0],
            g_z[0] * layer.w[0][1] + g_z[1] * layer.w[1][1],
        ];
        out_h = input;
    }
    (value, grads, d_out)
}

#[test]
fn a_for_over_model_layers_reads_their_fields_compiled() {
    let net = net();
    for x in [[0.7, -1.1], [0.0, 0.0], [-2.0, 0.3]] {
        let (value, grads, d_out) = layers_by_hand(&net, x);
        type Run = fn(&Net, [f64; 2]) -> Grad<Net>;
        let runs: [(&str, Run, Run); 2] = [
            ("iter", layers_by_iter_grad, layers_by_iter_grad_tape),
            ("ref", layers_by_ref_grad, layers_by_ref_grad_tape),
        ];
        for (name, fast, tape) in runs {
            let got = fast(&net, x).unwrap();
            assert!((got.value - value).abs() <= 1e-15, "{name}: value");
            for (k, (w, b)) in grads.iter().enumerate() {
                let layer = &got.gradient.layers[k];
                assert_agree(name, layer.w.as_flattened(), w.as_flattened());
                assert_agree(name, &layer.b, b);
            }
            assert_agree(name, &got.gradient.out, &d_out);
            agree_model(name, fast(&net, x), tape(&net, x));
        }
        let compiled = with_stack(|stack| layers_by_iter_adjoint(stack, &net, x))
            .expect("the compiled path answers");
        assert_eq!(compiled, layers_by_iter_grad(&net, x).unwrap());
        let compiled = with_stack(|stack| layers_by_ref_adjoint(stack, &net, x))
            .expect("the compiled path answers");
        assert_eq!(compiled, layers_by_ref_grad(&net, x).unwrap());
        assert!(layers_by_iter_check(&net, x).unwrap().passed());
    }
    assert_eq!(layers_by_iter_grad_path(), autodiff::GradientPath::Compiled);
    assert_eq!(layers_by_ref_grad_path(), autodiff::GradientPath::Compiled);
}

/// A model whose weights the body reads through iterator chains over a
/// field: `max_by`, `chunks`, a `zip` dot product, a `fold`, `windows`
/// (each kept the tape, "a closure": the chains took only a binding as
/// their source, seed 19249 f0_2 and f2_1).
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Weights {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
fn through_chains(m: &Weights, x: &[f64]) -> f64 {
    let top = *m.w.iter().max_by(|p, q| p.partial_cmp(q).unwrap()).unwrap();
    let squares = m.w.chunks(1).map(|c| c[0] * c[0]).sum::<f64>();
    let dot = m.w.iter().zip(x.iter()).map(|(a, b)| a * b).sum::<f64>();
    let folded = m.w.iter().fold(m.b, |acc, t| acc * 0.5 + t);
    let steps = m.w.windows(2).map(|p| (p[1] - p[0]).powi(2)).sum::<f64>();
    top * m.b + squares + dot.tanh() + folded * x[0] + steps
}

fn through_chains_dual(
    w: &[crate::oracle::Dual],
    b: crate::oracle::Dual,
    x: &[crate::oracle::Dual],
) -> crate::oracle::Dual {
    let top = if w[0].value >= w[1].value && w[0].value >= w[2].value {
        w[0]
    } else if w[1].value >= w[2].value {
        w[1]
    } else {
        w[2]
    };
    let squares = w[0] * w[0] + w[1] * w[1] + w[2] * w[2];
    let dot = w[0] * x[0] + w[1] * x[1] + w[2] * x[2];
    let folded = ((b * 0.5 + w[0]) * 0.5 + w[1]) * 0.5 + w[2];
    let steps = (w[1] - w[0]).powi(2) + (w[2] - w[1]).powi(2);
    top * b + squares + dot.tanh() + folded * x[0] + steps
}

#[test]
fn chains_over_a_models_field_run_compiled() {
    assert_eq!(through_chains_grad_path(), autodiff::GradientPath::Compiled);
    for (w, b, x) in [
        ([0.3, -0.8, 0.5], 0.7, [1.0, -0.5, 0.25]),
        ([-1.2, 0.4, 0.1], -0.3, [0.2, 0.9, -1.1]),
    ] {
        let m = Weights { w: w.to_vec(), b };
        let compiled = with_stack(|stack| through_chains_adjoint(stack, &m, &x))
            .expect("the compiled path answers");
        let got = through_chains_grad(&m, &x).unwrap();
        assert_eq!(compiled.gradient, got.gradient);
        let tape = through_chains_grad_tape(&m, &x).unwrap();
        assert_eq!(got.value, tape.value);
        let mut flat = got.gradient.0.scalars();
        flat.extend(&got.gradient.1);
        let mut tape_flat = tape.gradient.0.scalars();
        tape_flat.extend(&tape.gradient.1);
        assert_agree("through_chains vs tape", &flat, &tape_flat);
        let mut at = w.to_vec();
        at.push(b);
        at.extend(x);
        let want =
            crate::oracle::dual_gradient(&at, |a| through_chains_dual(&a[..3], a[3], &a[4..]));
        assert_agree("through_chains vs dual", &flat, &want);
    }
}

/// `[m.w[1]; 3]` and `vec![m.b; 2]` of a model's fields, whose shapes the
/// macro does not see: each item's adjoint is summed into zeros shaped
/// like the value (kept the tape: "an array of repeated arrays", seed
/// 19253 f0_8).
// `vec![m.b; 2]` on purpose: the `Vec` form is under test beside the array.
#[allow(clippy::useless_vec)]
#[differentiable]
fn repeated_fields(m: &Weights, x: f64) -> f64 {
    let mut a = [m.w[1]; 3];
    let v = vec![m.b; 2];
    a[0] *= x;
    a[2] += v[1] * x;
    a[0] * a[1] + a[2] * v[0]
}

#[test]
fn repeated_fields_of_a_model_run_compiled() {
    assert_eq!(
        repeated_fields_grad_path(),
        autodiff::GradientPath::Compiled
    );
    for (w1, b, x) in [(0.7, -0.4, 1.3), (-1.1, 0.6, -0.2)] {
        let m = Weights {
            w: vec![0.5, w1, -0.25],
            b,
        };
        let got = repeated_fields_grad(&m, x).unwrap();
        let tape = repeated_fields_grad_tape(&m, x).unwrap();
        assert_eq!(got.value, tape.value);
        let flat = |g: &(Weights, f64)| [g.0.scalars(), vec![g.1]].concat();
        assert_agree(
            "repeated_fields vs tape",
            &flat(&got.gradient),
            &flat(&tape.gradient),
        );
        // f = w1²·x + (w1 + b·x)·b
        let want = [
            0.0,
            2.0 * w1 * x + b,
            0.0,
            w1 + 2.0 * b * x,
            w1 * w1 + b * b,
        ];
        assert_agree(
            "repeated_fields vs closed form",
            &flat(&got.gradient),
            &want,
        );
    }
}

/// A model's fields whose shape the body shows only by use: a `loop`'s
/// value broken out as `m.w[2]` (an item of a field indexed elsewhere),
/// and a `Vec` of `m.b` (a field in arithmetic) that `insert` then grows
/// (both kept the tape: "a binding whose shape the reverse sweep cannot
/// see", seeds 19261 f5_5 and 19267 f2_31).
#[allow(clippy::useless_vec)]
#[differentiable]
fn fields_by_use(m: &Weights, x: f64) -> f64 {
    let mut k = 0;
    let top = loop {
        k += 1;
        if k > 2 {
            break m.w[2];
        }
    };
    let mut v = vec![m.b; 2];
    v.insert(1, m.w[0] * x);
    v.push(top * m.b);
    v[0] * v[1] + v[2] * x + v[3]
}

fn fields_by_use_dual(
    w: &[crate::oracle::Dual],
    b: crate::oracle::Dual,
    x: crate::oracle::Dual,
) -> crate::oracle::Dual {
    let top = w[2];
    let v = [b, w[0] * x, b, top * b];
    v[0] * v[1] + v[2] * x + v[3]
}

#[test]
fn a_models_field_shaped_by_its_use_runs_compiled() {
    assert_eq!(fields_by_use_grad_path(), autodiff::GradientPath::Compiled);
    for (w, b, x) in [([0.3, -0.8, 0.5], 0.7, 1.5), ([-1.2, 0.4, 0.1], -0.3, -0.6)] {
        let m = Weights { w: w.to_vec(), b };
        let reruns = autodiff::__adjoint::tape_reruns();
        let got = fields_by_use_grad(&m, x).unwrap();
        assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
        let tape = fields_by_use_grad_tape(&m, x).unwrap();
        assert_eq!(got.value, tape.value);
        let flat = |g: &(Weights, f64)| [g.0.scalars(), vec![g.1]].concat();
        assert_agree(
            "fields_by_use vs tape",
            &flat(&got.gradient),
            &flat(&tape.gradient),
        );
        let mut at = w.to_vec();
        at.extend([b, x]);
        let want = crate::oracle::dual_gradient(&at, |a| fields_by_use_dual(&a[..3], a[3], a[4]));
        assert_agree("fields_by_use vs dual", &flat(&got.gradient), &want);
    }
}

impl Line {
    /// `a·t + b·u`.
    #[differentiable]
    fn mixed(&self, t: f64, u: f64) -> f64 {
        self.a * t + self.b * u
    }
}

/// A number for a helper's argument.
#[differentiable]
fn halved(t: f64) -> f64 {
    0.5 * t.sin()
}

/// An accumulator started from a field of an item of a slice of models
/// (`lines[1].b`), folded through a method one of whose arguments is a
/// helper's value. The field's type was unknown there (only `m.b` of a model by
/// name was read as a number), so the call's arguments could not be
/// saved per trip and the function kept the tape.
#[differentiable]
#[allow(clippy::redundant_slicing)] // `&ms[..]`, as the program that showed it wrote
fn folded(lines: &[Line], #[constant] x: f64) -> f64 {
    let mut acc = lines[1].b;
    for line in &lines[..] {
        acc = line.mixed(acc, halved(x));
    }
    lines[0].mixed(acc, 2.0) + lines[1].b * 0.5
}

#[test]
fn an_accumulator_from_a_field_of_a_slice_item_compiles() {
    assert_eq!(folded_grad_path(), autodiff::GradientPath::Compiled);
    let lines = vec![Line { a: 0.5, b: -1.0 }, Line { a: -1.5, b: 0.25 }];
    let x = 0.75;
    let compiled = with_stack(|stack| folded_adjoint(stack, &lines, x)).expect("compiled");
    // h = sin(x)/2; acc₀ = b₁; acc₁ = a₀·acc₀ + b₀·h;
    // acc₂ = a₁·acc₁ + b₁·h; f = a₀·acc₂ + 2·b₀ + b₁/2.
    let h = 0.5 * x.sin();
    let (a0, b0, a1, b1) = (0.5, -1.0, -1.5, 0.25);
    let acc1 = a0 * b1 + b0 * h;
    let acc2 = a1 * acc1 + b1 * h;
    let want = [
        Line {
            a: acc2 + a0 * a1 * b1,
            b: 2.0 + a0 * a1 * h,
        },
        Line {
            a: a0 * acc1,
            b: a0 * (a1 * a0 + h) + 0.5,
        },
    ];
    for result in [compiled, folded_grad(&lines, x).unwrap()] {
        assert!((result.value - (a0 * acc2 + 2.0 * b0 + b1 / 2.0)).abs() <= 1e-15);
        for (got, want) in result.gradient.iter().zip(&want) {
            assert!((got.a - want.a).abs() <= 1e-14, "{got:?} vs {want:?}");
            assert!((got.b - want.b).abs() <= 1e-14, "{got:?} vs {want:?}");
        }
    }
    assert!(folded_check(&lines, x).unwrap().passed());
}

/// A layer's index beside it (`for (k, layer) in ..iter().enumerate()`)
/// and a closure whose item is a layer (`.map(|l| l.norm2())`): each item
/// is a model, whose methods the loop calls. Both failed to build (six
/// errors naming the tape's `LineOnTape`).
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Stack2 {
    lines: Vec<Line>,
}

impl Line {
    #[differentiable]
    fn norm2(&self) -> f64 {
        self.a * self.a + self.b * self.b
    }
}

#[differentiable]
impl Stack2 {
    fn run(&self, #[constant] x: f64) -> f64 {
        let mut h = x;
        for (k, line) in self.lines.iter().enumerate() {
            h = line.mixed(h, k as f64 + 1.0);
        }
        let penalty: f64 = self.lines.iter().map(|l| l.norm2()).sum();
        h + 0.5 * penalty
    }
}

#[test]
fn an_enumerated_layer_and_a_closure_over_layers_call_their_methods() {
    let stack = Stack2 {
        lines: vec![Line { a: 0.5, b: -1.0 }, Line { a: -1.5, b: 0.25 }],
    };
    let x = 0.75;
    assert_eq!(stack.run_grad_path(), autodiff::GradientPath::Compiled);
    // h₁ = a₀x + b₀·1, h₂ = a₁h₁ + b₁·2; f = h₂ + ½Σ(a² + b²).
    let (a0, b0, a1, b1) = (0.5, -1.0, -1.5, 0.25);
    let h1 = a0 * x + b0;
    let want = [a1 * x + a0, a1 + b0, h1 + a1, 2.0 + b1];
    let value = a1 * h1 + 2.0 * b1 + 0.5 * (a0 * a0 + b0 * b0 + a1 * a1 + b1 * b1);
    let compiled = with_stack(|stack_| stack.run_adjoint(stack_, x)).expect("compiled");
    for result in [
        compiled,
        stack.run_grad(x).unwrap(),
        stack.run_grad_tape(x).unwrap(),
    ] {
        assert!((result.value - value).abs() <= 1e-15);
        let got: Vec<f64> = result
            .gradient
            .lines
            .iter()
            .flat_map(|l| [l.a, l.b])
            .collect();
        assert_agree("run", &got, &want);
    }
    assert!(stack.run_check(x).unwrap().passed());
}

/// A model's loss over a batch as a chain whose closure indexes a
/// vector-valued method's value in place (`xs.iter().zip(ys).map(|(x, y)|
/// (self.out(x)[0] - y).powi(2)).sum()`): kept the tape, since the call
/// was bound by a `let` before the chain was read as a loop. The loop's
/// body is now bound again.
#[derive(Clone, Debug, Parameters)]
struct Scorer {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
impl Scorer {
    fn out(&self, x: &[f64]) -> Vec<f64> {
        let s = self.w.iter().zip(x).map(|(w, v)| w * v).sum::<f64>() + self.b;
        vec![s.tanh(), self.b * s]
    }

    fn batch(&self, #[constant] xs: &[Vec<f64>], #[constant] ys: &[f64]) -> f64 {
        xs.iter()
            .zip(ys)
            .map(|(x, y)| (self.out(x)[0] - y).powi(2) + self.out(x)[1])
            .sum::<f64>()
    }
}

#[test]
fn a_batch_loss_indexing_a_methods_vector_in_a_closure_is_compiled() {
    let m = Scorer {
        w: vec![0.3, -0.5],
        b: 0.1,
    };
    let xs = vec![vec![1.0, 2.0], vec![-0.5, 0.3], vec![0.7, -1.1]];
    let ys = vec![0.2, -0.4, 0.9];
    assert_eq!(m.batch_grad_path(), autodiff::GradientPath::Compiled);
    let got = m.batch_grad(&xs, &ys).expect("finite");
    let tape = m.batch_grad_tape(&xs, &ys).expect("finite");
    // By hand: s = w·x + b, loss term (tanh s − y)² + b s.
    let (mut gw, mut gb) = (vec![0.0; 2], 0.0);
    for (x, y) in xs.iter().zip(&ys) {
        let s = m.w[0] * x[0] + m.w[1] * x[1] + m.b;
        let t = s.tanh();
        let ds = 2.0 * (t - y) * (1.0 - t * t) + m.b;
        gw[0] += ds * x[0];
        gw[1] += ds * x[1];
        gb += ds + s;
    }
    for g in [&got.gradient, &tape.gradient] {
        assert_agree(
            "batch",
            &[g.w.clone(), vec![g.b]].concat(),
            &[gw.clone(), vec![gb]].concat(),
        );
    }
}

/// A bigram table as course code keeps it: rows of a `Vec<Vec<f64>>` field
/// looked up by token, and a context length stored as an integer.
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Bigram {
    table: Vec<Vec<f64>>,
    scale: f64,
    #[constant]
    offset: usize,
}

impl Bigram {
    /// A row borrowed by a `let` and read through it (the field's shape
    /// shows only there).
    #[differentiable]
    fn borrowed_row(&self, #[constant] t: usize) -> f64 {
        let row = &self.table[t];
        row[0] * row[1] * self.scale
    }

    /// Rows cloned into a `collect`, then read as a matrix.
    #[differentiable]
    fn embedded(&self, #[constant] tokens: &[usize]) -> f64 {
        let emb: Vec<Vec<f64>> = tokens.iter().map(|&t| self.table[t].clone()).collect();
        let copy = self.table[tokens[0]].clone();
        emb[0][0] * emb[1][1] + copy[1].sin()
    }

    /// Rows collected from the field, then walked by a `for`; a row
    /// walked by a `zip` (each found by probing: neither built, the
    /// field taken for a row of numbers).
    #[differentiable]
    fn walked_rows(&self, #[constant] tokens: &[usize]) -> f64 {
        let rows: Vec<Vec<f64>> = tokens.iter().map(|&t| self.table[t].clone()).collect();
        let mut s = 0.0;
        for r in &rows {
            s += r[0] * r[1];
        }
        let row = &self.table[tokens[0]];
        let z: Vec<f64> = row
            .iter()
            .zip(&rows[1])
            .map(|(a, b)| a * b * self.scale)
            .collect();
        s + z[0] + z[1]
    }

    /// An integer field in integer arithmetic, read as an index.
    #[differentiable]
    fn shifted(&self, #[constant] tokens: &[usize]) -> f64 {
        let k = self.offset + 1;
        let n = tokens.len() - self.offset;
        self.table[k][0] * self.scale - self.table[n][1]
    }
}

#[test]
fn a_models_rows_and_integer_fields_read_through_bindings_are_compiled() {
    let model = Bigram {
        table: vec![vec![0.5, -1.5], vec![2.0, 0.25], vec![-0.75, 1.25]],
        scale: 1.5,
        offset: 1,
    };
    assert_eq!(
        model.borrowed_row_grad_path(),
        autodiff::GradientPath::Compiled
    );
    assert_eq!(model.embedded_grad_path(), autodiff::GradientPath::Compiled);
    assert_eq!(model.shifted_grad_path(), autodiff::GradientPath::Compiled);
    assert_eq!(
        model.walked_rows_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let walked = agree_model(
        "walked_rows",
        model.walked_rows_grad(&[2, 1]),
        model.walked_rows_grad_tape(&[2, 1]),
    );
    // Σ r₀r₁ over rows 2 and 1, plus s·(t₂₀t₁₀ + t₂₁t₁₁).
    let (t1, t2, scale) = (&model.table[1], &model.table[2], model.scale);
    assert_eq!(
        walked.gradient.table[2],
        [t2[1] + scale * t1[0], t2[0] + scale * t1[1]]
    );
    assert_eq!(
        walked.gradient.table[1],
        [t1[1] + scale * t2[0], t1[0] + scale * t2[1]]
    );
    assert_eq!(walked.gradient.scale, t2[0] * t1[0] + t2[1] * t1[1]);
    let row = agree_model(
        "borrowed_row",
        model.borrowed_row_grad(2),
        model.borrowed_row_grad_tape(2),
    );
    // ∂(a·b·s): b·s, a·s, a·b of row 2.
    assert_eq!(row.gradient.table[2], [1.25 * 1.5, -0.75 * 1.5]);
    assert_eq!(row.gradient.scale, -0.75 * 1.25);
    assert_eq!(row.gradient.table[0], [0.0, 0.0]);
    let tokens = [2, 1];
    let embedded = agree_model(
        "embedded",
        model.embedded_grad(&tokens),
        model.embedded_grad_tape(&tokens),
    );
    // emb[0][0]·emb[1][1] + sin(table[2][1]).
    assert_eq!(embedded.gradient.table[2], [0.25, 1.25_f64.cos()]);
    assert_eq!(embedded.gradient.table[1], [0.0, -0.75]);
    let shifted = agree_model(
        "shifted",
        model.shifted_grad(&tokens),
        model.shifted_grad_tape(&tokens),
    );
    // k = 2, n = 1: table[2][0]·s − table[1][1].
    assert_eq!(shifted.gradient.table[2], [1.5, 0.0]);
    assert_eq!(shifted.gradient.table[1], [0.0, -1.0]);
    assert_eq!(shifted.gradient.scale, -0.75);
    assert_eq!(shifted.gradient.offset, 1);
}

/// A matrix held by a model.
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Table {
    w: Vec<Vec<f64>>,
}

/// A row of a model borrowed by one `let` and read through another
/// (`let r2 = row;`, `let r3 = &r2;`): the field's depth is the row's
/// indices plus those of every binding of it. The second binding read
/// `m.w[0]` as a number and did not build (E0608, `row_bar = 0.0`).
#[differentiable]
fn rebound_rows(m: &Table, #[constant] x: &[f64]) -> f64 {
    let row = &m.w[0];
    let r2 = row;
    let mut s = r2[0] * x[0] + r2[1] * x[1];
    for k in 0..m.w.len() {
        let line = &m.w[k];
        let r3 = &line;
        s += (r3[1] - r3[0]).tanh() * x[k];
    }
    s
}

fn rebound_rows_dual(w: &[crate::oracle::Dual], x: &[f64]) -> crate::oracle::Dual {
    let mut s = w[0] * x[0] + w[1] * x[1];
    for k in 0..2 {
        s = s + (w[2 * k + 1] - w[2 * k]).tanh() * x[k];
    }
    s
}

#[test]
fn a_models_row_read_through_a_second_binding_runs_compiled() {
    assert_eq!(rebound_rows_grad_path(), autodiff::GradientPath::Compiled);
    for (w, x) in [
        ([0.3, -0.8, 0.5, 1.1], [1.0, -0.5]),
        ([-1.2, 0.4, 0.1, -0.7], [0.2, 0.9]),
    ] {
        let m = Table {
            w: vec![w[..2].to_vec(), w[2..].to_vec()],
        };
        let compiled = with_stack(|stack| rebound_rows_adjoint(stack, &m, &x))
            .expect("the compiled path answers");
        let got = rebound_rows_grad(&m, &x).unwrap();
        assert_eq!(compiled.gradient, got.gradient);
        let tape = rebound_rows_grad_tape(&m, &x).unwrap();
        assert_eq!(got.value, tape.value);
        assert_agree(
            "rebound_rows vs tape",
            &got.gradient.scalars(),
            &tape.gradient.scalars(),
        );
        let want = crate::oracle::dual_gradient(&w, |a| rebound_rows_dual(a, &x));
        assert_agree("rebound_rows vs dual", &got.gradient.scalars(), &want);
    }
}

// ---------------------------------------------------------------------
// Found by probe 18: ADBench's bundle adjustment written on a model,
// `self.cams[c].project(self.pts[p])` with `pts: Vec<[f64; 3]>`, and
// `dot(m.c, m.pts[0])`, did not build (E0368, `+=` on `[f64; 3]`): the
// macro, which does not see the struct's fields, took `pts` to hold one
// level because the body indexes it once, and a row passed as it is to a
// call for a number. A part passed whole to a call says nothing of what
// it holds; the field's shape is then read from its value.
// ---------------------------------------------------------------------

#[derive(Clone, Debug, Parameters)]
struct Scene {
    c: [f64; 3],
    pts: Vec<[f64; 3]>,
    w: Vec<f64>,
}

#[differentiable]
fn dot3(c: [f64; 3], x: [f64; 3]) -> f64 {
    c[0] * x[0] + c[1] * x[1] + c[2] * x[2]
}

#[differentiable]
fn norm3(x: [f64; 3]) -> f64 {
    (x[0] * x[0] + x[1] * x[1] + x[2] * x[2]).sqrt()
}

#[differentiable]
fn times(a: f64, b: f64) -> f64 {
    a * b
}

#[differentiable]
fn scene_total(m: &Scene) -> f64 {
    dot3(m.c, m.pts[0])
        + norm3(m.pts[1])
        + dot3(m.pts[1], m.pts[0])
        + times(m.w[0], m.w[1])
        + m.pts[1][2] * 2.0
}

#[derive(Clone, Debug, Parameters)]
struct Lens {
    c: [f64; 3],
}

impl Lens {
    #[differentiable]
    fn project(&self, x: [f64; 3]) -> [f64; 2] {
        [x[0] - self.c[0], x[1] * self.c[2]]
    }
}

#[derive(Clone, Debug, Parameters)]
struct Rig {
    cams: Vec<Lens>,
    pts: Vec<[f64; 3]>,
}

impl Rig {
    #[differentiable]
    fn reprojection(&self) -> f64 {
        let mut t = 0.0;
        for i in 0..self.pts.len() {
            let p = self.cams[i % 2].project(self.pts[i]);
            t += p[0] * p[1];
        }
        t
    }
}

#[test]
fn a_models_row_passed_as_it_is_to_a_call() {
    let m = Scene {
        c: [0.1, 0.2, 0.3],
        pts: vec![[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]],
        w: vec![0.3, 0.7],
    };
    assert_eq!(scene_total_grad_path(), autodiff::GradientPath::Compiled);
    let got = scene_total_grad(&m).unwrap();
    let tape = scene_total_grad_tape(&m).unwrap();
    // ∂/∂c = p₀, ∂/∂p₀ = c + p₁, ∂/∂p₁ = p₁/|p₁| + p₀ + 2e₂, ∂/∂w = (w₁, w₀).
    let (p0, p1) = (m.pts[0], m.pts[1]);
    let n = (p1[0] * p1[0] + p1[1] * p1[1] + p1[2] * p1[2]).sqrt();
    let want_p1: Vec<f64> = (0..3)
        .map(|k| p1[k] / n + p0[k] + if k == 2 { 2.0 } else { 0.0 })
        .collect();
    for g in [&got.gradient, &tape.gradient] {
        crate::oracle::assert_all_close(&g.c, &p0, 1e-15);
        crate::oracle::assert_all_close(&g.pts[0], &[0.6, -0.8, 2.3], 1e-15);
        crate::oracle::assert_all_close(&g.pts[1], &want_p1, 1e-15);
        crate::oracle::assert_all_close(&g.w, &[0.7, 0.3], 1e-15);
    }
    // H·v along the model itself: c ↔ p₀ and p₀ ↔ p₁ cross, and the norm's
    // Hessian has p₁ in its kernel.
    let hvp = scene_total_hvp(&m, m.clone()).unwrap().hvp;
    crate::oracle::assert_all_close(&hvp.c, &p0, 1e-15);
    crate::oracle::assert_all_close(&hvp.pts[0], &[0.6, -0.8, 2.3], 1e-15);
    crate::oracle::assert_all_close(&hvp.pts[1], &p0, 1e-12);

    let rig = Rig {
        cams: vec![
            Lens { c: [0.1, 0.2, 0.3] },
            Lens {
                c: [-0.4, 0.5, 1.5],
            },
        ],
        pts: vec![[1.0, 2.0, 3.0], [0.5, -1.0, 2.0], [0.25, 0.75, -1.0]],
    };
    assert_eq!(
        rig.reprojection_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let got = rig.reprojection_grad().unwrap();
    let tape = rig.reprojection_grad_tape().unwrap();
    // t = Σᵢ (xᵢ₀ − cⱼ₀)·xᵢ₁·cⱼ₂ with j = i mod 2.
    let mut cams = [[0.0; 3]; 2];
    let mut pts = [[0.0; 3]; 3];
    for (i, x) in rig.pts.iter().enumerate() {
        let c = rig.cams[i % 2].c;
        cams[i % 2][0] -= x[1] * c[2];
        cams[i % 2][2] += (x[0] - c[0]) * x[1];
        pts[i][0] = x[1] * c[2];
        pts[i][1] = (x[0] - c[0]) * c[2];
    }
    for g in [&got.gradient, &tape.gradient] {
        for j in 0..2 {
            crate::oracle::assert_all_close(&g.cams[j].c, &cams[j], 1e-14);
        }
        for i in 0..3 {
            crate::oracle::assert_all_close(&g.pts[i], &pts[i], 1e-14);
        }
    }
}

// ---------------------------------------------------------------------
// A `for` over an array of a model's parts (`for layer in [&net.l1,
// &net.l2]`), each a layer whose method returns a `Vec`: did not build
// (E0277, the recording twin lifted the array's items as numbers; probe
// 23). It runs on the tape, which names the construct.
// ---------------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Parameters)]
struct ListedDense {
    w: Vec<Vec<f64>>,
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct ListedNet {
    l1: ListedDense,
    l2: ListedDense,
}

#[differentiable]
impl ListedDense {
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        self.w
            .iter()
            .map(|r| r.iter().zip(x).map(|(a, b)| a * b).sum::<f64>().tanh())
            .collect()
    }
}

#[differentiable]
fn listed_layers_loss(net: &ListedNet, #[constant] x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for layer in [&net.l1, &net.l2] {
        h = layer.forward(&h);
    }
    h.iter().sum::<f64>()
}

#[test]
fn a_for_over_an_array_of_a_models_parts_builds_and_is_exact() {
    use crate::oracle::{dual_gradient, Dual};
    let net = ListedNet {
        l1: ListedDense {
            w: vec![vec![0.3, -0.7], vec![1.1, 0.4]],
        },
        l2: ListedDense {
            w: vec![vec![0.8, -1.2]],
        },
    };
    let x = [0.5, -1.0];
    assert!(matches!(
        listed_layers_loss_grad_path(),
        autodiff::GradientPath::Tape { construct, .. } if construct.contains("a for over")
    ));
    let got = listed_layers_loss_grad(&net, &x).unwrap();
    let flat =
        |n: &ListedNet| -> Vec<f64> { n.l1.w.iter().chain(&n.l2.w).flatten().copied().collect() };
    let want = dual_gradient(&flat(&net), |v| {
        let layer = |w: &[Dual], rows: usize, h: &[Dual]| -> Vec<Dual> {
            (0..rows)
                .map(|r| {
                    (0..h.len())
                        .fold(Dual::constant(0.0), |s, j| s + w[r * h.len() + j] * h[j])
                        .tanh()
                })
                .collect()
        };
        let h0 = [Dual::constant(x[0]), Dual::constant(x[1])];
        let h1 = layer(&v[..4], 2, &h0);
        let h2 = layer(&v[4..], 1, &h1);
        h2[0]
    });
    assert_agree("listed_layers_loss", &flat(&got.gradient), &want);
    assert!(listed_layers_loss_check(&net, &x).unwrap().passed());
}

// A method taking the model by value, called on a copy of it
// (`m.clone().reg(x)`): did not build (E0599, the copy was not taken for
// a model; probe 23). Closed form: reg = x·Σw², twice, at x and x².

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Penalised {
    w: Vec<f64>,
}

#[differentiable]
impl Penalised {
    fn reg(self, lam: f64) -> f64 {
        self.w.iter().map(|v| v * v).sum::<f64>() * lam
    }
}

#[differentiable]
fn penalties_of_copies(m: &Penalised, x: f64) -> f64 {
    let c = m.clone();
    c.reg(x) + m.clone().reg(x * x)
}

#[test]
fn a_by_value_method_on_a_models_copy_builds_and_is_exact() {
    let m = Penalised { w: vec![1.0, 2.0] };
    let x = 0.3;
    let scale = x + x * x;
    let squares = 5.0;
    let got = penalties_of_copies_grad(&m, x).unwrap();
    let tape = penalties_of_copies_grad_tape(&m, x).unwrap();
    let want = [2.0 * scale, 4.0 * scale, squares * (1.0 + 2.0 * x)];
    for g in [&got, &tape] {
        assert_agree(
            "penalties_of_copies",
            &[g.gradient.0.w.clone(), vec![g.gradient.1]].concat(),
            &want,
        );
    }
    // H·v along (w: [1, 0], x: 1): ∂/∂w (2w·scale) + ∂/∂x (2w·scale).
    let hvp = penalties_of_copies_hvp(&m, x, (Penalised { w: vec![1.0, 0.0] }, 1.0)).unwrap();
    let want = [
        2.0 * scale + 2.0 * (1.0 + 2.0 * x),
        4.0 * (1.0 + 2.0 * x),
        2.0 * (1.0 + 2.0 * x) + 2.0 * squares,
    ];
    assert_agree(
        "penalties_of_copies hvp",
        &[hvp.hvp.0.w.clone(), vec![hvp.hvp.1]].concat(),
        &want,
    );
}

// The same copy bound `mut`, listed in an array walked by a `for` and in
// a `vec!` (probe 24: E0277, the twin by value did not lift).

#[differentiable]
impl Penalised {
    fn reg_ref(&self, lam: f64) -> f64 {
        let mut s = 0.0;
        for v in &self.w {
            s += v * v;
        }
        s * lam
    }
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct PenalisedPair {
    l1: Penalised,
    l2: Penalised,
}

#[differentiable]
#[allow(unused_mut)]
fn penalty_of_a_mut_copy(m: &Penalised, x: f64) -> f64 {
    let mut c = m.clone();
    c.reg(x)
}

#[differentiable]
fn penalties_of_listed_copies(net: &PenalisedPair, x: f64) -> f64 {
    let mut s = 0.0;
    for layer in [net.l1.clone(), net.l2.clone()] {
        s += layer.reg(x);
    }
    s
}

#[differentiable]
#[allow(clippy::useless_vec)]
fn penalties_of_a_vec_of_copies(m: &Penalised, x: f64) -> f64 {
    let v = vec![m.clone(), m.clone()];
    v[0].reg_ref(x) + v[1].reg_ref(x * x)
}

#[test]
fn copies_of_a_model_bound_mut_or_listed_build_and_are_exact() {
    let m = Penalised { w: vec![1.0, 2.0] };
    let x = 0.3;
    let g = penalty_of_a_mut_copy_grad(&m, x).unwrap();
    assert_agree(
        "penalty_of_a_mut_copy",
        &[g.gradient.0.w, vec![g.gradient.1]].concat(),
        &[2.0 * x, 4.0 * x, 5.0],
    );
    let g = penalties_of_a_vec_of_copies_grad(&m, x).unwrap();
    let scale = x + x * x;
    assert_agree(
        "penalties_of_a_vec_of_copies",
        &[g.gradient.0.w, vec![g.gradient.1]].concat(),
        &[2.0 * scale, 4.0 * scale, 5.0 * (1.0 + 2.0 * x)],
    );
    let net = PenalisedPair {
        l1: Penalised { w: vec![1.0, 2.0] },
        l2: Penalised { w: vec![-0.5] },
    };
    let g = penalties_of_listed_copies_grad(&net, x).unwrap();
    assert_agree(
        "penalties_of_listed_copies",
        &[g.gradient.0.l1.w, g.gradient.0.l2.w, vec![g.gradient.1]].concat(),
        &[2.0 * x, 4.0 * x, -x, 5.25],
    );
}
