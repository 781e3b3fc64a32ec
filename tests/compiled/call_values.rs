//! A vector-valued call read in place: indexed (`-softmax(&z)[k].ln()`,
//! `project(cam, p)[1]`, `layer(&w, &x)[i]` in a loop, `grid(x)[i][j]`
//! of nested arrays) or destructured (`let (a, b) = pair(x);`, `let [u,
//! v] = project(cam, p);`, `let (h, s) = step(&x);` of a `Vec` and a
//! number), at the top level and in a loop. The adjoint binds the call
//! first (`let softmax_out = softmax(&z);`), so its cotangent is zero but
//! at the element or field read, which gets that read's adjoint.
//!
//! Oracles: closed forms (softmax's `p − eₖ`, the products' and `tanh`'s
//! derivatives written out), and the tape. Every function is checked to
//! take the compiled path, and its adjoint to answer itself with nothing
//! left on the stack.
//!
//! Bound: each component is a short sum of products of values of
//! magnitude ≤ 3: the paths and the closed forms agree to a few ulps,
//! far inside `AGREE` (1e-12 of the largest component).

// Index loops on purpose: they are the constructs under test.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree, compiled};
use crate::attention_layers::softmax;

fn probabilities(z: &[f64]) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

/// The loss, the call indexed where it is made.
#[differentiable]
fn nll(z: &[f64], #[constant] target: usize) -> f64 {
    -softmax(z)[target].ln()
}

#[test]
fn an_indexed_softmax_is_p_minus_the_target() {
    assert_eq!(nll_grad_path(), GradientPath::Compiled);
    let z = [2.0, 1.0, 0.5, -0.5];
    for target in 0..4 {
        let got = compiled(|stack| nll_adjoint(stack, &z, target));
        agree("nll", nll_grad(&z, target), nll_grad_tape(&z, target));
        let mut want = probabilities(&z);
        want[target] -= 1.0;
        assert_agree("nll", &got.gradient, &want);
        assert_eq!(got.value.to_bits(), nll(&z, target).to_bits());
    }
}

/// ADBench's shape: a camera and a point to an image point.
#[differentiable]
fn project(cam: [f64; 3], p: [f64; 2]) -> [f64; 2] {
    [cam[0] * p[0] + cam[2], cam[1] * p[0] * p[1]]
}

#[differentiable]
fn second_coordinate(cam: [f64; 3], p: [f64; 2]) -> f64 {
    project(cam, p)[1] * 2.0 + project(cam, p)[0]
}

#[test]
fn an_indexed_array_valued_call() {
    assert_eq!(second_coordinate_grad_path(), GradientPath::Compiled);
    let (cam, p) = ([1.5, -0.5, 0.25], [2.0, -1.25]);
    let got = compiled(|stack| second_coordinate_adjoint(stack, cam, p));
    agree(
        "second_coordinate",
        second_coordinate_grad(cam, p),
        second_coordinate_grad_tape(cam, p),
    );
    // 2 c₁ p₀ p₁ + c₀ p₀ + c₂.
    let (cam_bar, p_bar) = got.gradient;
    assert_agree(
        "second_coordinate camera",
        &cam_bar,
        &[p[0], 2.0 * p[0] * p[1], 1.0],
    );
    assert_agree(
        "second_coordinate point",
        &p_bar,
        &[2.0 * cam[1] * p[1] + cam[0], 2.0 * cam[1] * p[0]],
    );
}

/// `tanh(W x)`.
#[differentiable]
fn layer(w: &[Vec<f64>], x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..w.len() {
        let mut s = 0.0;
        for j in 0..x.len() {
            s += w[i][j] * x[j];
        }
        out.push(s.tanh());
    }
    out
}

/// `Σᵢ cᵢ tanh(W x)ᵢ`, the layer called (and indexed) once per trip.
#[differentiable]
fn read_out(w: &[Vec<f64>], x: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..c.len() {
        total += c[i] * layer(w, x)[i];
    }
    total
}

#[test]
fn an_indexed_call_in_a_loop() {
    assert_eq!(read_out_grad_path(), GradientPath::Compiled);
    let w = vec![vec![0.5, -1.0, 0.25], vec![1.5, 0.75, -0.5]];
    let (x, c) = ([1.0, -0.5, 2.0], [2.0, -1.0]);
    let got = compiled(|stack| read_out_adjoint(stack, &w, &x, &c));
    agree(
        "read_out",
        read_out_grad(&w, &x, &c),
        read_out_grad_tape(&w, &x, &c),
    );
    // ∂/∂Wᵢⱼ = cᵢ (1 − hᵢ²) xⱼ, ∂/∂xⱼ = Σᵢ cᵢ (1 − hᵢ²) Wᵢⱼ.
    let h: Vec<f64> = (0..2)
        .map(|i| (0..3).map(|j| w[i][j] * x[j]).sum::<f64>().tanh())
        .collect();
    let (w_bar, x_bar) = &got.gradient;
    for i in 0..2 {
        let want: Vec<f64> = (0..3).map(|j| c[i] * (1.0 - h[i] * h[i]) * x[j]).collect();
        assert_agree("read_out W̄", &w_bar[i], &want);
    }
    let want: Vec<f64> = (0..3)
        .map(|j| (0..2).map(|i| c[i] * (1.0 - h[i] * h[i]) * w[i][j]).sum())
        .collect();
    assert_agree("read_out x̄", x_bar, &want);
}

/// A 2×2 array of products.
#[differentiable]
fn grid(x: f64, y: f64) -> [[f64; 2]; 2] {
    [[x * x, x * y], [y * x, y * y]]
}

/// `Σᵢⱼ grid(x, y)ᵢⱼ · (i + 2j + 1)`, one element per trip.
#[differentiable]
fn weighted_grid(x: f64, y: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..2 {
        for j in 0..2 {
            total += grid(x, y)[i][j] * (i + 2 * j + 1) as f64;
        }
    }
    total
}

#[test]
fn an_indexed_call_of_nested_arrays() {
    assert_eq!(weighted_grid_grad_path(), GradientPath::Compiled);
    let (x, y) = (1.25, -0.75);
    let got = compiled(|stack| weighted_grid_adjoint(stack, x, y));
    agree(
        "weighted_grid",
        weighted_grid_grad(x, y),
        weighted_grid_grad_tape(x, y),
    );
    // x² + 3xy + 2yx + 4y²: ∂x = 2x + 5y, ∂y = 5x + 8y.
    let (gx, gy) = got.gradient;
    assert_agree(
        "weighted_grid",
        &[gx, gy],
        &[2.0 * x + 5.0 * y, 5.0 * x + 8.0 * y],
    );
}

#[differentiable]
fn pair(x: f64) -> (f64, f64) {
    (x * x, x.sin())
}

/// `x² sin x`, by a tuple pattern.
#[differentiable]
fn paired(x: f64) -> f64 {
    let (a, b) = pair(x);
    a * b
}

#[test]
fn a_tuple_pattern_bound_to_a_call() {
    assert_eq!(paired_grad_path(), GradientPath::Compiled);
    for x in [0.5, -1.25, 2.0] {
        let got = compiled(|stack| paired_adjoint(stack, x));
        agree("paired", paired_grad(x), paired_grad_tape(x));
        let want = 2.0 * x * x.sin() + x * x * x.cos();
        assert_agree("paired", &[got.gradient], &[want]);
    }
}

/// `u v` of the projected point, by an array pattern.
#[differentiable]
fn image_area(cam: [f64; 3], p: [f64; 2]) -> f64 {
    let [u, v] = project(cam, p);
    u * v
}

#[test]
fn an_array_pattern_bound_to_a_call() {
    assert_eq!(image_area_grad_path(), GradientPath::Compiled);
    let (cam, p) = ([1.5, -0.5, 0.25], [2.0, -1.25]);
    let got = compiled(|stack| image_area_adjoint(stack, cam, p));
    agree(
        "image_area",
        image_area_grad(cam, p),
        image_area_grad_tape(cam, p),
    );
    let u = cam[0] * p[0] + cam[2];
    let v = cam[1] * p[0] * p[1];
    let (cam_bar, p_bar) = got.gradient;
    // ∂(uv) = v ∂u + u ∂v.
    assert_agree(
        "image_area camera",
        &cam_bar,
        &[v * p[0], u * p[0] * p[1], v],
    );
    assert_agree(
        "image_area point",
        &p_bar,
        &[v * cam[0] + u * cam[1] * p[1], u * cam[1] * p[0]],
    );
}

/// A hidden state and a score: `(tanh x, x₀ x₁)`.
#[differentiable]
fn step(x: &[f64]) -> (Vec<f64>, f64) {
    let mut h = Vec::new();
    for i in 0..x.len() {
        h.push(x[i].tanh());
    }
    (h, x[0] * x[1])
}

/// `(h₀ + 2 h₂) s` of one step.
#[differentiable]
fn scored(x: &[f64]) -> f64 {
    let (h, s) = step(x);
    (h[0] + 2.0 * h[2]) * s
}

fn scored_oracle(x: &[f64]) -> Vec<f64> {
    let h: Vec<f64> = x.iter().map(|v| v.tanh()).collect();
    let s = x[0] * x[1];
    let r = h[0] + 2.0 * h[2];
    vec![
        (1.0 - h[0] * h[0]) * s + r * x[1],
        r * x[0],
        2.0 * (1.0 - h[2] * h[2]) * s,
    ]
}

#[test]
fn a_tuple_of_a_vec_and_a_number_bound_to_a_call() {
    assert_eq!(scored_grad_path(), GradientPath::Compiled);
    let x = [0.5, -1.5, 1.25];
    let got = compiled(|stack| scored_adjoint(stack, &x));
    agree("scored", scored_grad(&x), scored_grad_tape(&x));
    assert_agree("scored", &got.gradient, &scored_oracle(&x));
}

/// The patterns in a loop: one pair and one step per trip, from values
/// the loop reads afresh.
#[differentiable]
fn unrolled(x: &[f64], #[constant] rows: usize) -> f64 {
    let mut total = 0.0;
    for t in 0..x.len() {
        let (a, b) = pair(x[t]);
        total += a * b;
    }
    for r in 0..rows {
        let row = vec![x[r], x[r + 1], x[r + 2]];
        let (h, s) = step(&row);
        let cam = [x[r], 1.0, 0.5];
        let point = [h[1], s];
        let [u, v] = project(cam, point);
        total += (h[0] + 2.0 * h[2]) * s + u * v;
    }
    total
}

#[test]
fn patterns_bound_to_calls_in_a_loop() {
    assert_eq!(unrolled_grad_path(), GradientPath::Compiled);
    let x = [0.5, -1.5, 1.25, 0.75];
    let got = compiled(|stack| unrolled_adjoint(stack, &x, 2));
    agree("unrolled", unrolled_grad(&x, 2), unrolled_grad_tape(&x, 2));
    let mut want: Vec<f64> = x
        .iter()
        .map(|x| 2.0 * x * x.sin() + x * x * x.cos())
        .collect();
    for r in 0..2 {
        let row = [x[r], x[r + 1], x[r + 2]];
        for (k, g) in scored_oracle(&row).iter().enumerate() {
            want[r + k] += g;
        }
        // u v with u = x_r h₁ + 0.5, v = h₁ s; h₁ = tanh x_{r+1}, s = x_r x_{r+1}.
        let (h1, s) = (row[1].tanh(), row[0] * row[1]);
        let (u, v) = (row[0] * h1 + 0.5, h1 * s);
        let dh1 = 1.0 - h1 * h1;
        // ∂u: x_r → h₁, x_{r+1} → x_r h₁'; ∂v: x_r → h₁ x_{r+1},
        // x_{r+1} → h₁' s + h₁ x_r.
        want[r] += v * h1 + u * h1 * row[1];
        want[r + 1] += v * row[0] * dh1 + u * (dh1 * s + h1 * row[0]);
    }
    assert_agree("unrolled", &got.gradient, &want);
}

/// A call read in place inside a condition that runs only sometimes
/// (`&&`'s right side) is left in place: the body keeps the tape there,
/// with the reason, and the tape's gradient.
#[differentiable]
fn guarded(z: &[f64]) -> f64 {
    if z[0] > 0.0 && softmax(z)[0] > 0.5 {
        z[0] * z[1]
    } else {
        z[1]
    }
}

#[test]
fn a_call_under_a_short_circuit_keeps_the_tape() {
    assert!(matches!(guarded_grad_path(), GradientPath::Tape { .. }));
    let z = [2.0, -1.0];
    let grad = guarded_grad(&z).unwrap();
    assert_agree("guarded", &grad.gradient, &[z[1], z[0]]);
}

/// A layer as a model: `W x + b`.
#[derive(Clone, Debug, Parameters)]
struct Affine {
    w: Vec<Vec<f64>>,
    b: Vec<f64>,
}

#[differentiable]
impl Affine {
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        let mut out = Vec::new();
        for i in 0..self.w.len() {
            let mut s = self.b[i];
            for j in 0..x.len() {
                s += self.w[i][j] * x[j];
            }
            out.push(s);
        }
        out
    }
}

/// `Σᵢ cᵢ tanh((W x + b)ᵢ)`, the method's value indexed where it is
/// called, once per trip.
#[differentiable]
fn affine_read_out(model: &Affine, x: &[f64], #[constant] c: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..c.len() {
        total += c[i] * model.forward(x)[i].tanh();
    }
    total
}

#[test]
fn a_methods_value_indexed_in_a_loop() {
    assert_eq!(affine_read_out_grad_path(), GradientPath::Compiled);
    let model = Affine {
        w: vec![vec![0.5, -1.0, 0.25], vec![1.5, 0.75, -0.5]],
        b: vec![0.1, -0.2],
    };
    let (x, c) = ([1.0, -0.5, 2.0], [2.0, -1.0]);
    let got = compiled(|stack| affine_read_out_adjoint(stack, &model, &x, &c));
    let tape = affine_read_out_grad_tape(&model, &x, &c).expect("the tape's gradient");
    let (model_bar, x_bar) = &got.gradient;
    let (tape_model, tape_x) = &tape.gradient;
    // δᵢ = cᵢ (1 − hᵢ²): W̄ᵢⱼ = δᵢ xⱼ, b̄ᵢ = δᵢ, x̄ⱼ = Σᵢ δᵢ Wᵢⱼ.
    let delta: Vec<f64> = (0..2)
        .map(|i| {
            let h = ((0..3).map(|j| model.w[i][j] * x[j]).sum::<f64>() + model.b[i]).tanh();
            c[i] * (1.0 - h * h)
        })
        .collect();
    for i in 0..2 {
        let want: Vec<f64> = (0..3).map(|j| delta[i] * x[j]).collect();
        assert_agree("affine W̄", &model_bar.w[i], &want);
        assert_agree("affine W̄ (tape)", &model_bar.w[i], &tape_model.w[i]);
    }
    assert_agree("affine b̄", &model_bar.b, &delta);
    assert_agree("affine b̄ (tape)", &model_bar.b, &tape_model.b);
    let want: Vec<f64> = (0..3)
        .map(|j| (0..2).map(|i| delta[i] * model.w[i][j]).sum())
        .collect();
    assert_agree("affine x̄", x_bar, &want);
    assert_agree("affine x̄ (tape)", x_bar, tape_x);
    assert!((got.value - tape.value).abs() < 1e-12);
}

/// In a loop that `break`s, a call read in place as a statement of the
/// loop's body: bound first, saved per trip, and popped by an iteration's
/// reverse only where the iteration got past it (the last one `break`s
/// before it).
#[differentiable]
fn until_large(z: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..z.len() {
        if total > 0.5 {
            break;
        }
        total += softmax(z)[i] * z[i];
    }
    total
}

#[test]
fn a_call_read_in_place_in_a_loop_that_breaks_compiles() {
    assert_eq!(until_large_grad_path(), GradientPath::Compiled);
    // Breaks after one item, after two, and never.
    for z in [[2.0, -1.0, 0.5], [0.5, 1.0, -2.0], [-0.5, 0.25, 0.3]] {
        let got = compiled(|stack| until_large_adjoint(stack, &z));
        agree(
            "until_large",
            until_large_grad(&z),
            until_large_grad_tape(&z),
        );
        // Σ_{i<k} pᵢ zᵢ over the k items summed before the break:
        // ∂/∂zⱼ = pⱼ (zⱼ + 1)·[j < k] − pⱼ Σ_{i<k} pᵢ zᵢ.
        let p = probabilities(&z);
        let mut k = 0;
        let mut total = 0.0;
        while k < 3 && total <= 0.5 {
            total += p[k] * z[k];
            k += 1;
        }
        let want: Vec<f64> = (0..3)
            .map(|j| {
                let inside = if j < k { p[j] * (z[j] + 1.0) } else { 0.0 };
                inside - p[j] * total
            })
            .collect();
        assert_agree("until_large", &[got.value], &[total]);
        assert_agree("until_large", &got.gradient, &want);
    }
}

#[differentiable]
fn square_and_self(x: f64) -> Vec<f64> {
    vec![x * x, x]
}

/// A statement that writes before it reads the call (`{ y *= 2.0; y }`
/// runs first): binding the call before the statement would read `y`
/// before the write, so the call is left in place, and the gradient is
/// the one of the code as written.
#[differentiable]
fn written_before_the_call(x: f64) -> f64 {
    let mut y = x;
    let t = {
        y *= 2.0;
        y
    } + square_and_self(y)[0];
    t + y
}

#[test]
fn a_call_after_a_write_in_its_statement_is_read_after_the_write() {
    let x = 0.75;
    let grad = agree(
        "written_before_the_call",
        written_before_the_call_grad(x),
        written_before_the_call_grad_tape(x),
    );
    // 2x + (2x)² + 2x
    assert_agree(
        "written_before_the_call",
        &[grad.gradient],
        &[4.0 + 8.0 * x],
    );
    assert_eq!(grad.value, 2.0 * x + 4.0 * x * x + 2.0 * x);
}

/// `cᵀ ∂p/∂z = (diag(p) − p pᵀ) c`: the pullback of `c` through softmax.
fn pullback(z: &[f64], c: &[f64]) -> Vec<f64> {
    let p = probabilities(z);
    let pc: f64 = p.iter().zip(c).map(|(p, c)| p * c).sum();
    p.iter().zip(c).map(|(p, c)| p * (c - pc)).collect()
}

/// A call indexed as a branch's value, iterated by `for`, taken by a call
/// of a call, and borrowed as another helper's argument.
#[differentiable]
fn in_an_arm(z: &[f64]) -> f64 {
    let y = if z[0] > 0.0 { softmax(z)[0] } else { z[1] };
    y * z[2]
}

#[differentiable]
fn iterated(z: &[f64]) -> f64 {
    let mut total = 0.0;
    for p in softmax(z) {
        total += p * p;
    }
    total
}

#[differentiable]
fn twice(z: &[f64]) -> f64 {
    softmax(&softmax(z))[1]
}

#[differentiable]
fn product_of_two(p: &[f64]) -> f64 {
    p[0] * p[1]
}

#[differentiable]
fn passed_on(z: &[f64]) -> f64 {
    product_of_two(&softmax(z))
}

#[test]
fn a_call_read_in_place_in_an_arm_a_for_a_call_and_an_argument() {
    for name in [
        in_an_arm_grad_path(),
        iterated_grad_path(),
        twice_grad_path(),
        passed_on_grad_path(),
    ] {
        assert_eq!(name, GradientPath::Compiled);
    }
    let z = [0.5, -1.0, 2.0];
    let p = probabilities(&z);

    let got = compiled(|stack| in_an_arm_adjoint(stack, &z));
    agree("in_an_arm", in_an_arm_grad(&z), in_an_arm_grad_tape(&z));
    let mut want = pullback(&z, &[z[2], 0.0, 0.0]);
    want[2] += p[0];
    assert_agree("in_an_arm", &got.gradient, &want);
    let other = [-0.5, -1.0, 2.0];
    let got = compiled(|stack| in_an_arm_adjoint(stack, &other));
    assert_agree("in_an_arm, other arm", &got.gradient, &[0.0, 2.0, -1.0]);

    let got = compiled(|stack| iterated_adjoint(stack, &z));
    agree("iterated", iterated_grad(&z), iterated_grad_tape(&z));
    let twice_p: Vec<f64> = p.iter().map(|p| 2.0 * p).collect();
    assert_agree("iterated", &got.gradient, &pullback(&z, &twice_p));

    let got = compiled(|stack| twice_adjoint(stack, &z));
    agree("twice", twice_grad(&z), twice_grad_tape(&z));
    let inner = pullback(&p, &[0.0, 1.0, 0.0]);
    assert_agree("twice", &got.gradient, &pullback(&z, &inner));

    let got = compiled(|stack| passed_on_adjoint(stack, &z));
    agree("passed_on", passed_on_grad(&z), passed_on_grad_tape(&z));
    assert_agree(
        "passed_on",
        &got.gradient,
        &pullback(&z, &[p[1], p[0], 0.0]),
    );
}

/// A tuple pattern bound to a call whose argument is bound again before
/// (`x0` swapped in a loop's branch, read again after it): the argument is
/// saved for the callee's rerun, so the adjoint answers itself (found by
/// the random programs, seed 17509 `g2_11`, whose compiled sweep reran
/// the tape).
#[differentiable]
fn swapped_before(x0: f64, x1: f64, x2: f64) -> f64 {
    let mut t = 0.0;
    for _ in 0..1 {
        if x2 < x1 {
            let (x0, x2) = (x2, x0);
            t += x0 - x2;
        }
    }
    let (a, b) = pair(x0);
    a * b + x1 + t
}

#[test]
fn a_pattern_bound_to_a_call_whose_argument_was_bound_again() {
    assert_eq!(swapped_before_grad_path(), GradientPath::Compiled);
    let (x0, x1, x2) = (0.140625, -0.625, -1.5);
    let got = compiled(|stack| swapped_before_adjoint(stack, x0, x1, x2));
    agree(
        "swapped_before",
        swapped_before_grad(x0, x1, x2),
        swapped_before_grad_tape(x0, x1, x2),
    );
    // x0² sin x0 + x1 + (x2 − x0), the branch taken (x2 < x1).
    let (g0, g1, g2) = got.gradient;
    assert_agree(
        "swapped_before",
        &[g0, g1, g2],
        &[2.0 * x0 * x0.sin() + x0 * x0 * x0.cos() - 1.0, 1.0, 1.0],
    );
}

/// A call indexed where a statement reads it, beside what does not stop
/// the statement before it: a `vec!` of its arguments, a compound
/// assignment, an `if` value in the same expression. Bound before the
/// statement, it compiles. One after an `if` whose arm can `return` is
/// left in place by the first binding (the statement may stop before the
/// call); once the `if` value is a `let` of its own before the statement
/// (`chains`), the call is bound after it, and compiles too.
// `vec!` on purpose: the macro in the call's arguments is under test.
#[allow(clippy::useless_vec)]
#[differentiable]
fn beside_blocks(x: f64, y: f64) -> f64 {
    let mut acc = y;
    acc += softmax(&vec![x, acc])[0];
    let t = (if x > 0.0 { x } else { y }) * softmax(&vec![y, acc * x])[1];
    acc * t
}

#[allow(clippy::useless_vec)]
#[differentiable]
fn after_a_returning_arm(x: f64, y: f64) -> f64 {
    let t = (if x > 5.0 { return y } else { x }) * softmax(&vec![y, x])[1];
    t * y
}

fn beside_blocks_by_hand(x: f64, y: f64) -> (f64, [f64; 2]) {
    // p = softmax([x, y])[0] = σ(x − y); q = softmax([y, a·x])[1] = σ(a·x − y).
    let sig = |v: f64| 1.0 / (1.0 + (-v).exp());
    let p = sig(x - y);
    let a = y + p;
    let (da_dx, da_dy) = (p * (1.0 - p), 1.0 - p * (1.0 - p));
    let q = sig(a * x - y);
    let dq = q * (1.0 - q);
    let (dq_dx, dq_dy) = (dq * (da_dx * x + a), dq * (da_dy * x - 1.0));
    let (s, ds_dx, ds_dy) = if x > 0.0 {
        (x, 1.0, 0.0)
    } else {
        (y, 0.0, 1.0)
    };
    let t = s * q;
    let (dt_dx, dt_dy) = (ds_dx * q + s * dq_dx, ds_dy * q + s * dq_dy);
    (a * t, [da_dx * t + a * dt_dx, da_dy * t + a * dt_dy])
}

#[test]
fn a_call_beside_a_vec_a_compound_assignment_and_an_if_value_compiles() {
    assert_eq!(beside_blocks_grad_path(), GradientPath::Compiled);
    assert_eq!(after_a_returning_arm_grad_path(), GradientPath::Compiled);
    // x y σ(x − y) (softmax([y, x])[1] = σ(x − y)), or y where x > 5
    // returns first.
    for (x, y) in [(0.7, -0.4), (6.0, 0.5), (-1.1, 0.6)] {
        let got = agree(
            "after_a_returning_arm",
            after_a_returning_arm_grad(x, y),
            after_a_returning_arm_grad_tape(x, y),
        );
        let (value, gradient) = if x > 5.0 {
            (y, [0.0, 1.0])
        } else {
            let s = 1.0 / (1.0 + (y - x).exp());
            let ds = s * (1.0 - s);
            (x * y * s, [y * s + x * y * ds, x * s - x * y * ds])
        };
        assert_agree("after_a_returning_arm", &[got.value], &[value]);
        assert_agree(
            "after_a_returning_arm",
            &[got.gradient.0, got.gradient.1],
            &gradient,
        );
    }
    for (x, y) in [(0.7, -0.4), (-1.1, 0.6)] {
        let got = compiled(|stack| beside_blocks_adjoint(stack, x, y));
        agree(
            "beside_blocks",
            beside_blocks_grad(x, y),
            beside_blocks_grad_tape(x, y),
        );
        let (value, gradient) = beside_blocks_by_hand(x, y);
        assert_agree("beside_blocks", &[got.value], &[value]);
        assert_agree(
            "beside_blocks",
            &[got.gradient.0, got.gradient.1],
            &gradient,
        );
        agree(
            "after_a_returning_arm",
            after_a_returning_arm_grad(x, y),
            after_a_returning_arm_grad_tape(x, y),
        );
    }
}

/// A chain over a call's value as the right operand of an operator whose
/// left operand writes nothing (the closure in the statement keeps the
/// rewrite to the calls evaluated first): `Σ p²` of a softmax, plus a
/// read of `z`.
#[differentiable]
fn peaked(z: &[f64]) -> f64 {
    z[0] + 0.5 * softmax(z).iter().map(|p| p * p).sum::<f64>()
}

#[test]
fn a_chain_over_a_call_as_a_right_operand_is_compiled() {
    assert_eq!(peaked_grad_path(), GradientPath::Compiled);
    for z in [[2.0, 1.0, 0.5, -0.5], [-1.0, 0.25, 3.0, 0.0]] {
        let got = compiled(|stack| peaked_adjoint(stack, &z));
        agree("peaked", peaked_grad(&z), peaked_grad_tape(&z));
        // ∂/∂z_j (z₀ + ½ Σ pᵢ²) = δ_j0 + p_j² − p_j Σ pᵢ².
        let p = probabilities(&z);
        let squares: f64 = p.iter().map(|v| v * v).sum();
        let want: Vec<f64> = (0..4)
            .map(|j| f64::from(u8::from(j == 0)) + p[j] * p[j] - p[j] * squares)
            .collect();
        assert_agree("peaked", &got.gradient, &want);
        assert_eq!(got.value.to_bits(), peaked(&z).to_bits());
    }
}
