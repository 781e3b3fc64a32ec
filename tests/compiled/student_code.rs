//! Valid code from probes written as students and ADBench's definitions
//! write it, which failed to build: each now builds, and its gradient is
//! checked against a closed form and the tape (and its `f_hvp`, where the
//! dual sweep runs, against the closed Hessian). Where the compiled
//! adjoint takes it, the test says so; where it keeps the tape, the test
//! checks the construct `f_grad_path` names.

use autodiff::prelude::*;
use autodiff::{GradientPath, Parameters};

use super::support::{agree, assert_agree, compiled};

// ---------------------------------------------------------------------
// A closure with a typed parameter, called on a `map`'s item taken by
// pattern (`|&v| sq(v)`): the dual sweep (`f_hvp`) bound the parameter
// as `let v: f64 = v` of a dual.
// ---------------------------------------------------------------------

#[differentiable]
fn sum_of_squares_by_closure(x: &[f64]) -> f64 {
    let sq = |v: f64| v * v;
    x.iter().map(|&v| sq(v)).sum()
}

#[test]
fn a_typed_closure_parameter_given_a_patterns_item() {
    let x = [0.5, -1.0, 2.0];
    assert_eq!(
        sum_of_squares_by_closure_grad_path(),
        GradientPath::Compiled
    );
    let got = compiled(|stack| sum_of_squares_by_closure_adjoint(stack, &x));
    assert_agree("Σv²", &got.gradient, &[1.0, -2.0, 4.0]);
    agree(
        "Σv² tape",
        sum_of_squares_by_closure_grad(&x),
        sum_of_squares_by_closure_grad_tape(&x),
    );
    // H = 2I.
    let before = autodiff::__adjoint::compiled_hvps();
    let hvp = sum_of_squares_by_closure_hvp(&x, vec![1.0, 0.5, -2.0]).unwrap();
    assert_eq!(autodiff::__adjoint::compiled_hvps(), before + 1);
    assert_agree("H v", &hvp.hvp, &[2.0, 1.0, -4.0]);
}

// ---------------------------------------------------------------------
// `let mut rows: Vec<Vec<f64>> = vec![Vec::new(); 2];`: the recording
// twin lifted the rows with their items' type known from nothing.
// ---------------------------------------------------------------------

#[differentiable]
fn squares_dealt_into_rows(x: &[f64]) -> f64 {
    let mut rows: Vec<Vec<f64>> = vec![Vec::new(); 2];
    for i in 0..x.len() {
        rows[i % 2].push(x[i] * x[i]);
    }
    rows[0].iter().sum::<f64>() + 3.0 * rows[1].iter().sum::<f64>()
}

#[test]
fn rows_typed_on_their_let_and_made_empty() {
    let x = [0.5, -1.0, 2.0];
    let got = squares_dealt_into_rows_grad(&x).unwrap();
    assert_eq!(got.value, 0.25 + 3.0 + 4.0);
    assert_agree("dealt", &got.gradient, &[1.0, -6.0, 4.0]);
    agree(
        "dealt tape",
        squares_dealt_into_rows_grad(&x),
        squares_dealt_into_rows_grad_tape(&x),
    );
}

// ---------------------------------------------------------------------
// `out.iter_mut().zip(&d.w)`: a bias or a weight added into a fresh
// `Vec` from a model's field. The loop was not read as an index loop (its
// source a field, not a local), and the recording twin wrote a `Scalar`
// into a `Vec` of `f64`s.
// ---------------------------------------------------------------------

#[derive(Clone, Debug, Parameters)]
struct Dense {
    w: Vec<f64>,
    b: Vec<f64>,
}

#[differentiable]
fn dense_sum(d: &Dense, x: f64) -> f64 {
    let mut out = vec![0.0; d.w.len()];
    for (o, wi) in out.iter_mut().zip(&d.w) {
        *o = wi * x;
    }
    for (o, bi) in out.iter_mut().zip(d.b.iter()) {
        *o += bi;
    }
    out.iter().map(|o| o * o).sum()
}

#[differentiable]
impl Dense {
    fn forward_sum(&self, x: f64) -> f64 {
        let mut out = vec![0.0; self.w.len()];
        for (o, wi) in out.iter_mut().zip(&self.w) {
            *o = wi * x;
        }
        for (o, bi) in out.iter_mut().zip(&self.b[..]) {
            *o += bi;
        }
        out.iter().map(|o| o * o).sum()
    }
}

#[test]
fn a_vec_written_through_iter_mut_zipped_with_a_models_field() {
    let d = Dense {
        w: vec![1.0, -2.0],
        b: vec![0.5, 0.25],
    };
    let x = 0.75;
    // Σ (wᵢx + bᵢ)²: ∂/∂wᵢ = 2oᵢx, ∂/∂bᵢ = 2oᵢ, ∂/∂x = Σ 2oᵢwᵢ.
    let o = [1.0 * x + 0.5, -2.0 * x + 0.25];
    let want_w = [2.0 * o[0] * x, 2.0 * o[1] * x];
    let want_b = [2.0 * o[0], 2.0 * o[1]];
    let want_x = 2.0 * o[0] * 1.0 + 2.0 * o[1] * -2.0;
    assert_eq!(dense_sum_grad_path(), GradientPath::Compiled);
    let got = compiled(|stack| dense_sum_adjoint(stack, &d, x));
    assert_agree("w", &got.gradient.0.w, &want_w);
    assert_agree("b", &got.gradient.0.b, &want_b);
    assert_agree("x", &[got.gradient.1], &[want_x]);
    let tape = dense_sum_grad_tape(&d, x).unwrap();
    assert_agree("tape w", &tape.gradient.0.w, &want_w);
    let method = d.forward_sum_grad(x).unwrap();
    assert_eq!(method.value, got.value);
    assert_agree("method w", &method.gradient.0.w, &want_w);
    assert_agree("method b", &method.gradient.0.b, &want_b);
    assert_agree("method x", &[method.gradient.1], &[want_x]);
    assert!(d.forward_sum_check(x).unwrap().passed());
}

// ---------------------------------------------------------------------
// `opt.unwrap_or(d)` of a tracked `Option` or a tracked default: the
// recording twin passed a plain `0.0` where the `Option` held a `Scalar`
// (and `unwrap_or` was no method the macro knew).
// ---------------------------------------------------------------------

#[differentiable]
fn reduced_or_zero(x: &[f64]) -> f64 {
    x.iter().copied().reduce(|a, b| a * 0.5 + b).unwrap_or(0.0)
}

#[differentiable]
fn last_or_zero_times(v: &[f64], y: f64) -> f64 {
    v.last().copied().unwrap_or(0.0) * y + v.first().copied().unwrap_or(y)
}

#[differentiable]
fn last_by_reference(v: &[f64], #[constant] c: &[f64], y: f64) -> f64 {
    let r = c.first().unwrap_or(&y);
    *r * v[0] + *v.last().unwrap_or(&y)
}

#[test]
fn unwrap_or_of_a_tracked_option_or_default() {
    // ((x0·½ + x1)·½ + x2): ∂ = (¼, ½, 1).
    let got = reduced_or_zero_grad(&[1.0, 2.0, 3.0]).unwrap();
    assert_eq!(got.value, 4.25);
    assert_agree("reduce", &got.gradient, &[0.25, 0.5, 1.0]);
    let empty = reduced_or_zero_grad(&[]).unwrap();
    assert_eq!((empty.value, empty.gradient.len()), (0.0, 0));
    // v_last·y + v_first, and y alone when `v` is empty.
    let got = last_or_zero_times_grad(&[1.0, 2.0], 3.0).unwrap();
    assert_eq!(got.value, 7.0);
    assert_agree("last", &got.gradient.0, &[1.0, 3.0]);
    assert_eq!(got.gradient.1, 2.0);
    let got = last_or_zero_times_grad(&[], 3.0).unwrap();
    assert_eq!((got.value, got.gradient.1), (3.0, 1.0));
    // `c` empty: y·v0 + v_last; else c0·v0 + v_last.
    let got = last_by_reference_grad(&[1.0, 2.0], &[], 3.0).unwrap();
    assert_eq!(got.value, 5.0);
    assert_agree("by ref", &got.gradient.0, &[3.0, 1.0]);
    assert_eq!(got.gradient.1, 1.0);
    let got = last_by_reference_grad(&[2.0], &[4.0], 3.0).unwrap();
    assert_eq!(got.value, 10.0);
    assert_agree("by ref c", &got.gradient.0, &[5.0]);
    assert_eq!(got.gradient.1, 0.0);
    // The compiled adjoint reads an element's `unwrap_or` as the element
    // or the default (`chains::options`), and agrees with the tape.
    for v in [&[1.0, 2.0][..], &[]] {
        agree(
            "last tape",
            last_or_zero_times_grad(v, 3.0),
            last_or_zero_times_grad_tape(v, 3.0),
        );
    }
    assert_eq!(last_or_zero_times_grad_path(), GradientPath::Compiled);
}

// ---------------------------------------------------------------------
// `flat_map` and `flatten` of rows: rustc's inference error and a
// "tracked" error on the rows, where the tape takes them.
// ---------------------------------------------------------------------

#[differentiable]
fn flat_squares(w: &[Vec<f64>]) -> f64 {
    w.iter().flat_map(|r| r.iter()).map(|v| v * v).sum::<f64>()
}

#[differentiable]
fn flattened_scaled(w: &[Vec<f64>], y: f64) -> f64 {
    let mut s = 0.0;
    for v in w.iter().flatten() {
        s += v * y;
    }
    s
}

#[test]
fn rows_walked_by_flat_map_and_flatten() {
    let w = vec![vec![1.0, 2.0], vec![3.0]];
    let got = flat_squares_grad(&w).unwrap();
    assert_eq!(got.value, 14.0);
    assert_eq!(got.gradient, vec![vec![2.0, 4.0], vec![6.0]]);
    let hvp = flat_squares_hvp(&w, vec![vec![1.0, 0.0], vec![-1.0]]).unwrap();
    assert_eq!(hvp.hvp, vec![vec![2.0, 0.0], vec![-2.0]]);
    let got = flattened_scaled_grad(&w, 2.0).unwrap();
    assert_eq!(got.value, 12.0);
    assert_eq!(got.gradient, (vec![vec![2.0, 2.0], vec![2.0]], 6.0));
}

// ---------------------------------------------------------------------
// A local array given a vector call's value by `=` and then passed whole
// to another annotated function (`global = matmul3(global, local);
// apply3(global, p)`): the compiled adjoint read the call's value as a
// number. It keeps the tape and says why.
// ---------------------------------------------------------------------

#[differentiable]
fn pair_of(s: f64) -> [f64; 2] {
    [s, 2.0 * s]
}

#[differentiable]
fn sum_pair(m: [f64; 2]) -> f64 {
    m[0] + m[1]
}

#[differentiable]
fn diagonal(s: f64) -> [[f64; 2]; 2] {
    [[s, 0.0], [0.0, s]]
}

#[differentiable]
fn trace(m: [[f64; 2]; 2]) -> f64 {
    m[0][0] + m[1][1]
}

#[differentiable]
#[allow(unused_assignments)]
fn pair_reassigned(s: f64) -> f64 {
    let mut g = [1.0, 0.0];
    g = pair_of(s);
    sum_pair(g)
}

#[differentiable]
#[allow(unused_assignments)]
fn matrix_reassigned(s: f64) -> f64 {
    let mut g = diagonal(1.0);
    g = diagonal(s * s);
    trace(g)
}

/// The same, read by index in a loop: compiled (the index shows the
/// value is a matrix).
#[differentiable]
fn matrix_powered(s: f64) -> f64 {
    let mut g = diagonal(1.0);
    for _ in 0..2 {
        g = diagonal(g[0][0] * s);
    }
    trace(g)
}

#[test]
fn an_array_given_a_calls_value_by_assignment_then_passed_on() {
    // 3s; and trace(diag(s²)) = 2s², ∂ = 4s.
    let got = pair_reassigned_grad(0.5).unwrap();
    assert_eq!((got.value, got.gradient), (1.5, 3.0));
    let got = matrix_reassigned_grad(0.5).unwrap();
    assert_eq!((got.value, got.gradient), (0.5, 2.0));
    let powered = agree(
        "powered",
        matrix_powered_grad(0.5),
        matrix_powered_grad_tape(0.5),
    );
    assert_eq!((powered.value, powered.gradient), (0.5, 2.0));
    assert_eq!(matrix_powered_grad_path(), GradientPath::Compiled);
    for path in [pair_reassigned_grad_path(), matrix_reassigned_grad_path()] {
        assert!(
            matches!(&path, GradientPath::Tape { construct, .. }
                if construct.contains("a call's value assigned to a binding that may hold a vector")),
            "{path:?}"
        );
    }
}

// ---------------------------------------------------------------------
// Natural constructs that kept the tape, now compiled.
// ---------------------------------------------------------------------

/// `for (x, y) in data` of constant pairs, each `x` a row zipped with the
/// weights: the row was not known to be a reference into `data`.
#[differentiable]
fn logistic_loss(w: &[f64], b: f64, #[constant] data: &[(Vec<f64>, f64)]) -> f64 {
    let mut total = 0.0;
    for (x, y) in data {
        let z = w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>() + b;
        let p = sigmoid(z);
        total -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
    }
    total / data.len() as f64
}

/// A row borrowed by a `let` in a loop and walked by `zip`: its items
/// were "values that change" (the borrow was not made again in the
/// reverse sweep).
#[differentiable]
fn embedded_scores(table: &[Vec<f64>], #[constant] tokens: &[usize], w: &[f64]) -> f64 {
    let mut total = 0.0;
    for &tok in tokens {
        let e = &table[tok];
        let s: f64 = e.iter().zip(w).map(|(a, b)| a * b).sum();
        total += s.tanh();
    }
    total / tokens.len() as f64
}

/// `for (k, pair) in x.chunks(2).enumerate()`, as a mixture's means are
/// walked by component.
#[differentiable]
fn weighted_pairs(x: &[f64], a: &[f64]) -> f64 {
    let mut s = 0.0;
    for (k, pair) in x.chunks(2).enumerate() {
        s += a[k] * pair[0] * pair[1];
    }
    let mut t = 0.0;
    for (j, w) in x.windows(2).enumerate() {
        t += (j as f64 + 1.0) * (w[1] - w[0]).powi(2);
    }
    s + t
}

#[test]
fn natural_loops_over_rows_pairs_and_chunks_are_compiled() {
    let reruns = autodiff::__adjoint::tape_reruns();
    // Logistic regression: ∂/∂w = Σ (p − y) x / n, ∂/∂b = Σ (p − y) / n.
    let data = vec![(vec![0.5, -1.0], 1.0), (vec![2.0, 0.25], 0.0)];
    let (w, b) = ([0.3, -0.7], 0.1);
    assert_eq!(logistic_loss_grad_path(), GradientPath::Compiled);
    let got = agree(
        "logistic",
        logistic_loss_grad(&w, b, &data),
        logistic_loss_grad_tape(&w, b, &data),
    );
    let (mut want_w, mut want_b) = ([0.0; 2], 0.0);
    for (x, y) in &data {
        let z = w[0] * x[0] + w[1] * x[1] + b;
        let p = 1.0 / (1.0 + (-z).exp());
        want_w[0] += (p - y) * x[0] / 2.0;
        want_w[1] += (p - y) * x[1] / 2.0;
        want_b += (p - y) / 2.0;
    }
    assert_agree("logistic w", &got.gradient.0, &want_w);
    assert_agree("logistic b", &[got.gradient.1], &[want_b]);
    // Embeddings: ∂/∂e_tok = (1 − tanh² s) w / T for each use, ∂/∂w =
    // Σ (1 − tanh² s) e_tok / T.
    let table = vec![vec![0.5, -0.25], vec![1.0, 0.75], vec![-0.5, 2.0]];
    let (tokens, w) = ([2_usize, 0, 2], [0.4, -0.3]);
    assert_eq!(embedded_scores_grad_path(), GradientPath::Compiled);
    let got = agree(
        "embed",
        embedded_scores_grad(&table, &tokens, &w),
        embedded_scores_grad_tape(&table, &tokens, &w),
    );
    let mut want_table = vec![vec![0.0; 2]; 3];
    let mut want_w = [0.0; 2];
    for &tok in &tokens {
        let e = &table[tok];
        let s = e[0] * w[0] + e[1] * w[1];
        let d = (1.0 - s.tanh().powi(2)) / 3.0;
        for j in 0..2 {
            want_table[tok][j] += d * w[j];
            want_w[j] += d * e[j];
        }
    }
    for (row, want) in got.gradient.0.iter().zip(&want_table) {
        assert_agree("embed table", row, want);
    }
    assert_agree("embed w", &got.gradient.1, &want_w);
    // Chunks and windows, enumerated.
    let (x, a) = ([0.5, -1.0, 2.0, 0.25], [1.5, -2.0]);
    assert_eq!(weighted_pairs_grad_path(), GradientPath::Compiled);
    let got = agree(
        "pairs",
        weighted_pairs_grad(&x, &a),
        weighted_pairs_grad_tape(&x, &a),
    );
    let mut want_x = [a[0] * x[1], a[0] * x[0], a[1] * x[3], a[1] * x[2]];
    for j in 0..3 {
        let d = 2.0 * (j as f64 + 1.0) * (x[j + 1] - x[j]);
        want_x[j + 1] += d;
        want_x[j] -= d;
    }
    assert_agree("pairs x", &got.gradient.0, &want_x);
    assert_agree("pairs a", &got.gradient.1, &[x[0] * x[1], x[2] * x[3]]);
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns, "compiled");
}

// ---------------------------------------------------------------------
// Models and helpers (a probe of models and training).
// ---------------------------------------------------------------------

#[differentiable]
fn double_row(a: &[f64]) -> Vec<f64> {
    a.iter().map(|p| 2.0 * p).collect()
}

#[differentiable]
fn sum_sq(a: &[f64]) -> f64 {
    a.iter().map(|p| p * p).sum()
}

#[derive(Clone, Debug, Parameters)]
struct Embedding {
    wte: Vec<Vec<f64>>,
}

/// A model's row bound by a `let` (cloned or borrowed), then passed
/// whole to a helper: its adjoint was shaped as a number (the field read
/// by one index, the binding never indexed), E0308.
#[differentiable]
fn row_then_helper(m: &Embedding, #[constant] tok: usize) -> f64 {
    let h = m.wte[tok].clone();
    let e = &m.wte[1 - tok];
    let d = double_row(e);
    sum_sq(&h) + d[0] * d[1]
}

/// `Vec::<f64>::new()` grown by tracked values: the recording twin kept
/// its `f64`, E0308.
#[differentiable]
#[allow(clippy::needless_range_loop)]
fn grown_by_turbofish(x: &[f64]) -> f64 {
    let mut v = Vec::<f64>::with_capacity(x.len());
    for i in 0..x.len() {
        v.push(x[i] * x[i]);
    }
    let mut s = 0.0;
    for i in 0..v.len() {
        s += v[i] * (i as f64 + 1.0);
    }
    s
}

/// A plain generic helper called with a turbofish on constants: refused
/// as if it were an annotated call.
fn smoothing<const K: usize>() -> f64 {
    0.1 / K as f64
}

#[differentiable]
fn smoothed(x: f64) -> f64 {
    x * smoothing::<4>() + std::mem::size_of::<f64>() as f64
}

#[derive(Clone, Debug, Parameters)]
struct Scorer {
    w: Vec<f64>,
}

#[differentiable]
impl Scorer {
    fn score(&self, #[constant] x: &[f64]) -> f64 {
        self.w.iter().zip(x).map(|(a, b)| a * b).sum::<f64>()
    }
}

#[derive(Clone, Debug, Parameters)]
struct Gained {
    layers: Vec<Scorer>,
    gains: Vec<f64>,
}

#[differentiable]
impl Gained {
    /// Layers walked by `zip` with another field: the item was not known
    /// to be a model, and its method was looked up on the twin (E0599).
    fn zipped(&self, #[constant] x: &[f64]) -> f64 {
        let mut s = 0.0;
        for (layer, g) in self.layers.iter().zip(&self.gains) {
            s += g * layer.score(x);
        }
        s
    }
}

#[test]
fn models_rows_and_helpers_that_did_not_build() {
    // sum_sq(row tok) + 4·e0·e1 of the other row.
    let m = Embedding {
        wte: vec![vec![1.0, 2.0], vec![3.0, -4.0]],
    };
    let got = row_then_helper_grad(&m, 1).unwrap();
    let tape = row_then_helper_grad_tape(&m, 1).unwrap();
    assert_eq!(got.value, 25.0 + 4.0 * 2.0);
    assert_eq!(got.value, tape.value);
    assert_eq!(got.gradient.wte, vec![vec![8.0, 4.0], vec![6.0, -8.0]]);
    assert_eq!(tape.gradient.wte, got.gradient.wte);
    assert_eq!(row_then_helper_grad_path(), GradientPath::Compiled);
    // Σ (i + 1)·xᵢ²: ∂ = 2(i + 1)xᵢ, H = diag(2(i + 1)).
    let got = compiled(|stack| grown_by_turbofish_adjoint(stack, &[1.0, -2.0]));
    assert_eq!(got.value, 9.0);
    assert_agree("turbofish", &got.gradient, &[2.0, -8.0]);
    let hvp = grown_by_turbofish_hvp(&[1.0, -2.0], vec![1.0, 1.0]).unwrap();
    assert_agree("turbofish H v", &hvp.hvp, &[2.0, 4.0]);
    // 0.025x + 8.
    let got = compiled(|stack| smoothed_adjoint(stack, 2.0));
    assert_eq!((got.value, got.gradient), (8.05, 0.025));
    // Σ gₖ wₖ·x: ∂/∂wₖ = gₖ x, ∂/∂gₖ = wₖ·x.
    let net = Gained {
        layers: vec![Scorer { w: vec![1.0, 2.0] }, Scorer { w: vec![3.0, 4.0] }],
        gains: vec![0.5, -1.0],
    };
    let x = [0.5, 0.25];
    let got = net.zipped_grad(&x).unwrap();
    let tape = net.zipped_grad_tape(&x).unwrap();
    assert_eq!(got.value, 0.5 - 2.5);
    assert_eq!(got.value, tape.value);
    assert_eq!(got.gradient.gains, vec![1.0, 2.5]);
    assert_eq!(tape.gradient.gains, vec![1.0, 2.5]);
    for (layer, g) in got.gradient.layers.iter().zip([0.5, -1.0]) {
        assert_eq!(layer.w, vec![g * x[0], g * x[1]]);
    }
    assert!(net.zipped_check(&x).unwrap().passed());
    assert_eq!(net.zipped_grad_path(), GradientPath::Compiled);
}

/// A `Vec` collected from an array's copies, then grown, in a body with
/// `return`: the collect is read as pushes of the copied items, whose
/// shape the analysis did not see (pushed as if each were an array, which
/// a body with `return` does not take).
#[differentiable]
#[allow(clippy::iter_cloned_collect)]
fn collected_then_grown(x: &[f64], y: f64) -> f64 {
    if y > 10.0 {
        return y;
    }
    let a = [x[0] * y, x[1] + y];
    let mut v: Vec<f64> = a.iter().cloned().collect();
    for i in 0..2 {
        v.push(v[i] * v[i]);
    }
    v[2] + v[3] * y
}

#[test]
fn a_collected_vec_grown_in_a_body_with_return_is_compiled() {
    // (x0 y)² + (x1 + y)² y.
    let (x, y) = ([0.5, -1.5], 2.0);
    assert_eq!(collected_then_grown_grad_path(), GradientPath::Compiled);
    let got = compiled(|stack| collected_then_grown_adjoint(stack, &x, y));
    let s = x[1] + y;
    assert_eq!(got.value, (x[0] * y).powi(2) + s * s * y);
    assert_agree(
        "collected x",
        &got.gradient.0,
        &[2.0 * x[0] * y * y, 2.0 * s * y],
    );
    assert_agree(
        "collected y",
        &[got.gradient.1],
        &[2.0 * x[0] * x[0] * y + 2.0 * s * y + s * s],
    );
    agree(
        "collected tape",
        collected_then_grown_grad(&x, y),
        collected_then_grown_grad_tape(&x, y),
    );
    // The early return: y alone.
    let got = collected_then_grown_grad(&x, 11.0).unwrap();
    assert_eq!((got.value, got.gradient.1), (11.0, 1.0));
}

/// An element through `unwrap()` (`*x.last().unwrap()`, `x.first()
/// .copied().unwrap()`) and a `match` on `x.first()` whose `None` arm
/// returns: each kept the tape ("a binding whose shape the reverse sweep
/// cannot see").
#[differentiable]
fn ends_unwrapped(x: &[f64], w: f64) -> f64 {
    let first = match x.first() {
        Some(v) => *v,
        None => return 0.0,
    };
    let last = *x.last().unwrap();
    let again = x.first().copied().unwrap();
    w * first * last + again.sin() + x.last().unwrap() * w
}

#[derive(Clone, Debug, Parameters)]
struct Tail {
    w: f64,
    v: Vec<f64>,
}

#[differentiable]
impl Tail {
    fn last_times(&self) -> f64 {
        let l = self.v.last().unwrap();
        l * self.w
    }
}

#[test]
fn elements_through_unwrap_and_a_returning_match_are_compiled() {
    // w·x0·xn + sin x0 + xn·w.
    let (x, w) = ([0.5, -1.0, 2.0], 1.5);
    assert_eq!(ends_unwrapped_grad_path(), GradientPath::Compiled);
    let got = compiled(|stack| ends_unwrapped_adjoint(stack, &x, w));
    assert_eq!(got.value, ends_unwrapped(&x, w));
    assert_agree(
        "ends x",
        &got.gradient.0,
        &[w * x[2] + x[0].cos(), 0.0, w * x[0] + w],
    );
    assert_agree("ends w", &[got.gradient.1], &[x[0] * x[2] + x[2]]);
    agree(
        "ends tape",
        ends_unwrapped_grad(&x, w),
        ends_unwrapped_grad_tape(&x, w),
    );
    // `None => return 0.0`.
    let empty = ends_unwrapped_grad(&[], w).unwrap();
    assert_eq!((empty.value, empty.gradient.1), (0.0, 0.0));
    let tail = Tail {
        w: 3.0,
        v: vec![0.5, 0.7, 0.9],
    };
    assert_eq!(tail.last_times_grad_path(), GradientPath::Compiled);
    let got = tail.last_times_grad().unwrap();
    assert_eq!((got.gradient.w, got.gradient.v), (0.9, vec![0.0, 0.0, 3.0]));
}

#[differentiable]
fn cube(a: f64) -> f64 {
    a * a * a
}

/// A call pushed onto a `Vec` made empty and given a number too, in a
/// body with `return`: one type of item, so the call's value is a number
/// (it kept the tape: "whether it returns a number or a vector is not
/// known there"; random programs, seed 20371 f7_1).
#[differentiable]
fn pushed_call_with_return(x: f64, y: f64) -> f64 {
    let mut v = vec![];
    v.push(x * y);
    if x > 10.0 {
        return v[0];
    }
    for _ in 0..2 {
        v.push(cube(x));
    }
    v[0] + v[1] * y + v[2]
}

#[test]
fn a_call_pushed_beside_a_number_in_a_body_with_return_is_compiled() {
    // xy + x³y + x³.
    let (x, y) = (0.5, -2.0);
    assert_eq!(pushed_call_with_return_grad_path(), GradientPath::Compiled);
    let got = compiled(|stack| pushed_call_with_return_adjoint(stack, x, y));
    assert_eq!(got.value, x * y + x.powi(3) * y + x.powi(3));
    assert_agree(
        "pushed",
        &[got.gradient.0, got.gradient.1],
        &[y + 3.0 * x * x * y + 3.0 * x * x, x + x.powi(3)],
    );
    agree(
        "pushed tape",
        pushed_call_with_return_grad(x, y),
        pushed_call_with_return_grad_tape(x, y),
    );
    let early = pushed_call_with_return_grad(11.0, y).unwrap();
    assert_eq!((early.value, early.gradient), (11.0 * y, (y, 11.0)));
}

#[differentiable]
fn pairs_of(x: [f64; 3]) -> [[f64; 2]; 3] {
    [[x[0], x[1]], [x[1] * x[2], x[0]], [x[2].sin(), x[0] * x[1]]]
}

/// An array-valued call's value taken apart by a nested array pattern:
/// "a `let` with a pattern bound to `p`" kept the tape.
#[differentiable]
fn taken_apart(x: [f64; 3]) -> f64 {
    let p = pairs_of(x);
    let [[a, b], [c, d], [e, f]] = p;
    a * d - b * c + e * f
}

#[test]
fn an_array_calls_value_taken_apart_by_a_pattern_is_compiled() {
    // x0² − x1²x2 + x0x1 sin x2.
    let x = [0.5, -1.0, 2.0];
    assert_eq!(taken_apart_grad_path(), GradientPath::Compiled);
    let got = compiled(|stack| taken_apart_adjoint(stack, x));
    let want = [
        2.0 * x[0] + x[1] * x[2].sin(),
        -2.0 * x[1] * x[2] + x[0] * x[2].sin(),
        -x[1] * x[1] + x[0] * x[1] * x[2].cos(),
    ];
    assert_agree("taken apart", &got.gradient, &want);
    agree(
        "taken apart tape",
        taken_apart_grad(x),
        taken_apart_grad_tape(x),
    );
}

#[differentiable]
fn squared(a: f64) -> f64 {
    a * a
}

/// A causal row's maximum by `max_by(partial_cmp(..).unwrap())` over a
/// row that starts at −∞, with a helper called after the sweep has met
/// the −∞ (which the tape takes and the compiled sweep leaves to it):
/// the helper's value was a stand-in NaN, the student's `unwrap` of
/// `partial_cmp` panicked inside `f_grad` (found by a probe of lesson 15's
/// attention). The helper now gives its plain value there, and the tape
/// answers.
#[differentiable]
fn causal_row_max(x: &[f64]) -> f64 {
    let mut loss = 0.0;
    for t in 0..2 {
        let mut s = vec![f64::NEG_INFINITY; 2];
        for j in 0..=t {
            s[j] = squared(x[j]);
        }
        let m = s
            .iter()
            .copied()
            .max_by(|a, b| a.partial_cmp(b).unwrap())
            .unwrap();
        loss += m;
    }
    loss
}

#[test]
fn a_helper_after_a_value_the_tape_takes_gives_its_plain_value() {
    // max(x0²) + max(x0², x1²) at x = (0.5, −0.7): x0² + x1².
    let x = [0.5, -0.7];
    let got = agree(
        "causal max",
        causal_row_max_grad(&x),
        causal_row_max_grad_tape(&x),
    );
    assert_eq!(got.value, 0.25 + 0.49);
    assert_agree("causal max", &got.gradient, &[1.0, -1.4]);
    assert!(causal_row_max_check(&x).unwrap().passed());
}

// ---------------------------------------------------------------------
// A model's `#[constant]` enum field choosing the activation, read by
// `match self.act` or `self.act == Act::Relu`: both twins read it as a
// number (`Primal`, `Observed`), which an enum is not.
// ---------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq)]
enum Act {
    Relu,
    Tanh,
    Scaled(f64),
}

#[derive(Clone, Debug, Parameters)]
struct Unit {
    w: f64,
    #[constant]
    act: Act,
}

#[derive(Clone, Debug, Parameters)]
struct Stack2 {
    units: Vec<Unit>,
}

impl crate::oracle::Flat for Unit {
    fn flat(&self, out: &mut Vec<f64>) {
        out.push(self.w);
    }
}

impl crate::oracle::Flat for Stack2 {
    fn flat(&self, out: &mut Vec<f64>) {
        self.units.iter().for_each(|unit| unit.flat(out));
    }
}

#[differentiable]
impl Unit {
    fn by_match(&self, x: f64) -> f64 {
        match self.act {
            Act::Relu => relu(self.w * x),
            Act::Tanh => (self.w * x).tanh(),
            Act::Scaled(_) => self.w * self.w * x,
        }
    }

    fn by_local(&self, x: f64) -> f64 {
        let act = self.act;
        let z = self.w * x;
        match act {
            Act::Tanh => z.tanh(),
            _ => z * z,
        }
    }

    fn by_eq(&self, x: f64) -> f64 {
        if self.act == Act::Relu {
            relu(self.w * x)
        } else if self.act != Act::Tanh {
            self.w * self.w * x
        } else {
            (self.w * x).tanh()
        }
    }
}

#[differentiable]
fn stacked(s: &Stack2, x: f64) -> f64 {
    let mut h = x;
    for k in 0..s.units.len() {
        h = match s.units[k].act {
            Act::Tanh => (s.units[k].w * h).tanh(),
            _ => s.units[k].w * h,
        };
    }
    h * h
}

#[test]
fn a_models_constant_enum_field_chooses_the_activation() {
    let x = 0.8;
    assert_eq!(Unit::__ad_by_match_grad_path(), GradientPath::Compiled);
    assert_eq!(Unit::__ad_by_eq_grad_path(), GradientPath::Compiled);
    assert_eq!(Unit::__ad_by_local_grad_path(), GradientPath::Compiled);
    assert_eq!(stacked_grad_path(), GradientPath::Compiled);
    for act in [Act::Relu, Act::Tanh, Act::Scaled(1.5)] {
        let w = 0.6;
        let u = Unit { w, act };
        let t = (w * x).tanh();
        // (value, ∂w, ∂x), by hand for each activation.
        let want_match = match act {
            Act::Relu => (w * x, x, w),
            Act::Tanh => (t, x * (1.0 - t * t), w * (1.0 - t * t)),
            Act::Scaled(_) => (w * w * x, 2.0 * w * x, w * w),
        };
        let want_eq = match act {
            Act::Relu => (w * x, x, w),
            Act::Tanh => (t, x * (1.0 - t * t), w * (1.0 - t * t)),
            Act::Scaled(_) => (w * w * x, 2.0 * w * x, w * w),
        };
        let want_local = match act {
            Act::Tanh => (t, x * (1.0 - t * t), w * (1.0 - t * t)),
            _ => (w * w * x * x, 2.0 * w * x * x, 2.0 * w * w * x),
        };
        for (name, got, tape, want) in [
            (
                "match",
                u.by_match_grad(x),
                u.by_match_grad_tape(x),
                want_match,
            ),
            (
                "let",
                u.by_local_grad(x),
                u.by_local_grad_tape(x),
                want_local,
            ),
            ("==", u.by_eq_grad(x), u.by_eq_grad_tape(x), want_eq),
        ] {
            let got = agree(name, got, tape);
            assert_agree(name, &[got.value], &[want.0]);
            assert_agree(name, &[got.gradient.0.w, got.gradient.1], &[want.1, want.2]);
            assert_eq!(
                got.gradient.0.act, act,
                "{name}: the constant field is carried"
            );
        }
        // The dual sweep reads the same field: H of by_match in (w, x).
        let hvp = u
            .by_match_hvp(x, (Unit { w: 1.0, act }, 0.0))
            .unwrap_or_else(|e| panic!("{act:?}: {e}"));
        let h_ww = match act {
            Act::Relu => 0.0,
            Act::Tanh => -2.0 * t * (1.0 - t * t) * x * x,
            Act::Scaled(_) => 2.0 * x,
        };
        assert_agree("H_ww", &[hvp.hvp.0.w], &[h_ww]);
    }
    // Two units, one each way: h = w1·tanh(w0·x)... by the chain rule.
    let s = Stack2 {
        units: vec![
            Unit {
                w: 0.7,
                act: Act::Tanh,
            },
            Unit {
                w: -1.3,
                act: Act::Relu,
            },
        ],
    };
    let t = (0.7 * x).tanh();
    let h = -1.3 * t;
    let got = agree("stacked", stacked_grad(&s, x), stacked_grad_tape(&s, x));
    assert_agree("stacked value", &[got.value], &[h * h]);
    assert_agree(
        "stacked gradient",
        &[
            got.gradient.0.units[0].w,
            got.gradient.0.units[1].w,
            got.gradient.1,
        ],
        &[
            2.0 * h * -1.3 * x * (1.0 - t * t),
            2.0 * h * t,
            2.0 * h * -1.3 * 0.7 * (1.0 - t * t),
        ],
    );
}

// ---------------------------------------------------------------------
// A nested array literal of tracked values (a rotation's matrix, `[[c,
// -s], [s, c]]`): its rows' seeds lost their shape, so every such body
// kept the tape, and a helper returning one ran its reverse as `f_vjp`
// on the tape (as slow as the tape, with the caller's path `Compiled`).
// ---------------------------------------------------------------------

#[differentiable]
fn rotation_z(t: f64) -> [[f64; 3]; 3] {
    let (s, c) = t.sin_cos();
    [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
}

#[differentiable]
fn rotated_x(t: f64, p: [f64; 3]) -> f64 {
    let r = rotation_z(t);
    let mut q = [0.0; 3];
    for i in 0..3 {
        for j in 0..3 {
            q[i] += r[i][j] * p[j];
        }
    }
    q[0] * q[0] + 2.0 * q[1]
}

#[differentiable]
fn cubic_by_matrix(x: &[f64]) -> f64 {
    let m = [[x[0], x[1] * x[0]], [x[1].sin(), 2.0]];
    let t = [
        [[x[0], m[0][1]], [1.0, x[1]]],
        [[m[1][0], x[0]], [x[1], 0.5]],
    ];
    m[0][0] * m[1][1] + m[0][1] * m[1][0] + t[1][0][0] * t[0][1][1] - t[0][0][1]
}

#[test]
fn a_nested_array_literal_is_compiled() {
    assert_eq!(cubic_by_matrix_grad_path(), GradientPath::Compiled);
    assert_eq!(rotated_x_grad_path(), GradientPath::Compiled);
    let (a, b) = (0.7, -0.4);
    // 2a + a·b·sin b + sin b · b − a·b.
    let got = compiled(|stack| cubic_by_matrix_adjoint(stack, &[a, b]));
    assert_agree(
        "value",
        &[got.value],
        &[2.0 * a + a * b * b.sin() + b.sin() * b - a * b],
    );
    assert_agree(
        "gradient",
        &got.gradient,
        &[
            2.0 + b * b.sin() - b,
            a * b.sin() + a * b * b.cos() + b.sin() + b * b.cos() - a,
        ],
    );
    agree(
        "tape",
        cubic_by_matrix_grad(&[a, b]),
        cubic_by_matrix_grad_tape(&[a, b]),
    );
    // R_z(t) p: q0 = c p0 − s p1, q1 = s p0 + c p1.
    let (t, p): (f64, [f64; 3]) = (0.3, [1.5, -0.5, 2.0]);
    let (s, c) = t.sin_cos();
    let (q0, q1) = (c * p[0] - s * p[1], s * p[0] + c * p[1]);
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree("R_z p", rotated_x_grad(t, p), rotated_x_grad_tape(t, p));
    // The helper's reverse is compiled too: no `f_vjp` on the tape.
    assert_eq!(autodiff::__adjoint::tape_reruns(), before);
    assert_agree("value", &[got.value], &[q0 * q0 + 2.0 * q1]);
    assert_agree(
        "gradient",
        &[
            got.gradient.0,
            got.gradient.1[0],
            got.gradient.1[1],
            got.gradient.1[2],
        ],
        &[
            2.0 * q0 * -q1 + 2.0 * q0,
            2.0 * q0 * c + 2.0 * s,
            2.0 * q0 * -s + 2.0 * c,
            0.0,
        ],
    );
}

// ---------------------------------------------------------------------
// A helper returning a tuple (`(f64, f64)`, a number and a row): its
// reverse ran `f_vjp` on the tape, as slow as the tape, the caller's path
// `Compiled`; it is now the compiled adjoint of `⟨cotangent, value⟩`, a
// tuple's items summed in turn.
// ---------------------------------------------------------------------

#[differentiable]
fn polar(x: f64, y: f64) -> (f64, f64) {
    ((x * x + y * y).sqrt(), (y / x).atan())
}

#[differentiable]
fn spread(x: &[f64]) -> (f64, [f64; 2], Vec<f64>) {
    let mut row = Vec::new();
    for v in x {
        row.push(v * v);
    }
    (x[0] * x[1], [x[1].sin(), 2.0 * x[0]], row)
}

#[differentiable]
fn from_tuples(x: &[f64]) -> f64 {
    let (r, theta) = polar(x[0], x[1]);
    let (p, pair, row) = spread(x);
    r * theta + p * pair[0] - pair[1] * row[1] + row[0]
}

#[test]
fn a_tuple_valued_helpers_reverse_is_compiled() {
    assert_eq!(from_tuples_grad_path(), GradientPath::Compiled);
    let x = [0.8, -0.6];
    let (a, b) = (x[0], x[1]);
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree("tuples", from_tuples_grad(&x), from_tuples_grad_tape(&x));
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        before,
        "both helpers' reverses compiled"
    );
    let r = (a * a + b * b).sqrt();
    let theta = (b / a).atan();
    // f = rθ + ab·sin b − 2a·b² + a².
    assert_agree(
        "value",
        &[got.value],
        &[r * theta + a * b * b.sin() - 2.0 * a * b * b + a * a],
    );
    let (r_a, r_b) = (a / r, b / r);
    let (t_a, t_b) = (-b / (r * r), a / (r * r));
    assert_agree(
        "gradient",
        &got.gradient,
        &[
            r_a * theta + r * t_a + b * b.sin() - 2.0 * b * b + 2.0 * a,
            r_b * theta + r * t_b + a * b.sin() + a * b * b.cos() - 4.0 * a * b,
        ],
    );
}

// ---------------------------------------------------------------------
// A layer taken by `last().unwrap()` or `first().unwrap()` and its
// annotated method called: the recording twin did not see a model's
// part through them (E0599 `forward` on the twin), and the compiled
// adjoint read `let last = (&layers[n - 1]);` as a number's borrow.
// ---------------------------------------------------------------------

#[derive(Clone, Debug, Parameters)]
struct Gate {
    w: Vec<f64>,
}

impl crate::oracle::Flat for Gate {
    fn flat(&self, out: &mut Vec<f64>) {
        out.extend(&self.w);
    }
}

#[derive(Clone, Debug, Parameters)]
struct Gates {
    layers: Vec<Gate>,
}

impl crate::oracle::Flat for Gates {
    fn flat(&self, out: &mut Vec<f64>) {
        self.layers.iter().for_each(|layer| layer.flat(out));
    }
}

#[differentiable]
impl Gate {
    fn forward(&self, x: &[f64]) -> Vec<f64> {
        self.w.iter().zip(x).map(|(a, b)| (a * b).tanh()).collect()
    }
}

#[differentiable]
impl Gates {
    fn by_last(&self, #[constant] x: &[f64]) -> f64 {
        let last = self.layers.last().unwrap();
        let o = last.forward(x);
        o[0] * o[1]
    }

    fn by_first(&self, #[constant] x: &[f64]) -> f64 {
        let o = self.layers.first().unwrap().forward(x);
        o[0] * o[1]
    }
}

#[test]
fn a_layer_taken_by_last_or_first_calls_its_method() {
    assert_eq!(Gates::__ad_by_last_grad_path(), GradientPath::Compiled);
    let gates = Gates {
        layers: vec![Gate { w: vec![0.3, 0.5] }, Gate { w: vec![-0.2, 0.1] }],
    };
    let x = [1.0, 2.0];
    // tanh(w0 x0) tanh(w1 x1) of the layer read.
    let want = |w: &[f64]| {
        let (a, b) = ((w[0] * x[0]).tanh(), (w[1] * x[1]).tanh());
        (a * b, x[0] * (1.0 - a * a) * b, x[1] * a * (1.0 - b * b))
    };
    for (name, got, tape, layer) in [
        (
            "last",
            gates.by_last_grad(&x),
            gates.by_last_grad_tape(&x),
            1,
        ),
        (
            "first",
            gates.by_first_grad(&x),
            gates.by_first_grad_tape(&x),
            0,
        ),
    ] {
        let got = agree(name, got, tape);
        let (value, d0, d1) = want(&gates.layers[layer].w);
        assert_agree(name, &[got.value], &[value]);
        let mut expected = vec![0.0; 4];
        expected[2 * layer] = d0;
        expected[2 * layer + 1] = d1;
        assert_agree(
            name,
            &crate::oracle::Flat::components(&got.gradient),
            &expected,
        );
    }
}

// ---------------------------------------------------------------------
// A helper returning five or six items built nowhere else than its tail
// (a chain's `collect()` among them): five and six items failed to
// build (`Adjoint` had tuples of four), and a `collect()` in the tail
// kept the helper's reverse on the tape.
// ---------------------------------------------------------------------

#[differentiable]
fn six(x: &[f64]) -> (f64, f64, Vec<f64>, f64, [f64; 2], f64) {
    (
        x[0],
        x[1] * x[0],
        x.iter().map(|v| v.sin() * v).collect(),
        1.5,
        [x[1], 2.0 * x[0]],
        if x[0] > 0.0 { x[0] * x[0] } else { x[1] },
    )
}

#[differentiable]
fn five(x: &[f64]) -> (f64, f64, f64, f64, f64) {
    (x[0], x[1], x[0] * x[1], 1.0, x[1].sin())
}

#[differentiable]
fn from_five_and_six(x: &[f64]) -> f64 {
    let (a, b, c, d, e) = five(x);
    let (p, q, s, k, pair, t) = six(x);
    a * b + c * d + e + p * q - s[1] * k + pair[0] * pair[1] + t
}

#[test]
fn a_helper_of_six_items_is_compiled() {
    assert_eq!(from_five_and_six_grad_path(), GradientPath::Compiled);
    let x = [0.5, -0.75];
    let (u, v) = (x[0], x[1]);
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree(
        "five and six",
        from_five_and_six_grad(&x),
        from_five_and_six_grad_tape(&x),
    );
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        before,
        "no f_vjp on the tape"
    );
    // 2uv + sin v + u²v − 1.5 v sin v + 2uv + u².
    assert_agree(
        "value",
        &[got.value],
        &[2.0 * u * v + v.sin() + u * u * v - 1.5 * v * v.sin() + 2.0 * u * v + u * u],
    );
    assert_agree(
        "gradient",
        &got.gradient,
        &[
            2.0 * v + 2.0 * u * v + 2.0 * v + 2.0 * u,
            2.0 * u + v.cos() + u * u - 1.5 * (v.sin() + v * v.cos()) + 2.0 * u,
        ],
    );
}

// ---------------------------------------------------------------------
// A row of a matrix parameter taken apart by a pattern at a loop's
// index (`let [a, b, c] = m[i];`): only a literal index was split, so
// the body kept the tape (36× the plain function in a probe's GMM).
// ---------------------------------------------------------------------

// Written as a student indexes rows.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn rows_taken_apart(m: [[f64; 3]; 2]) -> f64 {
    let mut s = 0.0;
    for i in 0..2 {
        let [a, b, c] = m[i];
        s += a * b + c * c;
    }
    for k in 0..1 {
        let [[p, q, _], [r, _, t]] = [m[k], m[k + 1]];
        s += p * t - q * r;
    }
    s
}

#[test]
fn a_row_taken_apart_at_a_loops_index_is_compiled() {
    assert_eq!(rows_taken_apart_grad_path(), GradientPath::Compiled);
    let m = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]];
    let got = agree(
        "rows",
        rows_taken_apart_grad(m),
        rows_taken_apart_grad_tape(m),
    );
    let [[a0, b0, c0], [a1, b1, c1]] = m;
    assert_agree(
        "value",
        &[got.value],
        &[a0 * b0 + c0 * c0 + a1 * b1 + c1 * c1 + a0 * c1 - b0 * a1],
    );
    assert_agree(
        "gradient",
        &got.gradient.concat(),
        &[b0 + c1, a0 - a1, 2.0 * c0, b1 - b0, a1, 2.0 * c1 + a0],
    );
}

/// A local matrix literal taken apart whole, and a local point.
#[differentiable]
fn local_matrix_taken_apart(x: &[f64]) -> f64 {
    let m = [[x[0], -x[1]], [x[1] * 2.0, x[0]]];
    let [[a, b], [c, d]] = m;
    let p = [x[0] - 0.5, 0.25];
    let [u, v] = p;
    a * d - b * c + u * v
}

#[test]
fn a_local_matrix_taken_apart_is_compiled() {
    assert_eq!(local_matrix_taken_apart_grad_path(), GradientPath::Compiled);
    let x = [0.7, -0.3];
    let got = agree(
        "local matrix",
        local_matrix_taken_apart_grad(&x),
        local_matrix_taken_apart_grad_tape(&x),
    );
    // x0² + 2 x1² + (x0 − 0.5) / 4.
    assert_agree(
        "value",
        &[got.value],
        &[x[0] * x[0] + 2.0 * x[1] * x[1] + (x[0] - 0.5) * 0.25],
    );
    assert_agree("gradient", &got.gradient, &[2.0 * x[0] + 0.25, 4.0 * x[1]]);
}

// ---------------------------------------------------------------------
// A `for` over a range whose bounds change (`0..j` of a `while`'s
// counter, `0..o.len()` of a local) in a body with `return` or a loop
// that jumps: the forward saves the range for the reverse, which was
// refused there, so a Cholesky factorisation with its not-positive-
// definite guard kept the tape (20× the plain function in a probe).
// ---------------------------------------------------------------------

/// −log det of `A = L Lᵀ` by a hand-written Cholesky, 0 where `A` is not
/// positive definite (`n` by `n`, row-major).
#[differentiable]
fn cholesky_log_det(a: &[f64], n: usize) -> f64 {
    let mut l = vec![0.0; n * n];
    let mut j = 0;
    let mut log_det = 0.0;
    while j < n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= l[j * n + k] * l[j * n + k];
        }
        if d <= 0.0 {
            return 0.0;
        }
        let djj = d.sqrt();
        l[j * n + j] = djj;
        log_det += 2.0 * djj.ln();
        let mut i = j + 1;
        while i < n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= l[i * n + k] * l[j * n + k];
            }
            l[i * n + j] = s / djj;
            i += 1;
        }
        j += 1;
    }
    -log_det
}

/// `Σ o[k]·x0` over a local's length, and a triangle of a loop's counter
/// left by `continue` and `break`, in a body with `return`.
#[allow(clippy::needless_range_loop)]
#[differentiable]
fn ranges_that_change(x: &[f64]) -> f64 {
    let o = [x[1], x[0] * x[1], 0.5];
    let mut s = 0.0;
    for k in 0..o.len() {
        s += o[k] * x[0];
    }
    let mut n = 0;
    loop {
        n += 1;
        if n == 2 {
            continue;
        }
        for m in 0..n {
            s += x[m % 2] * (m as f64 + 1.0);
            if s > 1e6 {
                return s;
            }
        }
        if n >= 4 {
            break;
        }
    }
    if s < -1e6 {
        return 0.0;
    }
    s
}

#[test]
fn a_range_whose_bounds_change_is_saved_in_a_body_with_return() {
    assert_eq!(cholesky_log_det_grad_path(), GradientPath::Compiled);
    assert_eq!(ranges_that_change_grad_path(), GradientPath::Compiled);
    // A = B Bᵀ + I: −log det A, whose gradient is −A⁻ᵀ on the entries
    // Cholesky reads (the lower triangle; the upper one is never read).
    let a = [4.0, 1.0, 0.5, 1.0, 3.0, 0.25, 0.5, 0.25, 2.0];
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree(
        "cholesky",
        cholesky_log_det_grad(&a, 3),
        cholesky_log_det_grad_tape(&a, 3),
    );
    assert_eq!(autodiff::__adjoint::tape_reruns(), before);
    let det = 4.0 * (3.0 * 2.0 - 0.25 * 0.25) - 1.0 * (1.0 * 2.0 - 0.25 * 0.5)
        + 0.5 * (1.0 * 0.25 - 3.0 * 0.5);
    assert_agree("value", &[got.value], &[-f64::ln(det)]);
    assert!(cholesky_log_det_check(&a, 3).unwrap().passed());
    // Not positive definite: the guard's constant, gradient zero.
    let b = [1.0, 2.0, 0.0, 2.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    let got = agree(
        "not positive definite",
        cholesky_log_det_grad(&b, 3),
        cholesky_log_det_grad_tape(&b, 3),
    );
    assert_agree("guard", &got.gradient, &[0.0; 9]);
    // s = x0 (x1 + x0 x1 + 0.5) + Σ over n = 1, 3, 4 of Σ_{m<n} x[m % 2] (m + 1).
    let x = [0.75, -0.5];
    let got = agree(
        "ranges",
        ranges_that_change_grad(&x),
        ranges_that_change_grad_tape(&x),
    );
    let (u, v) = (x[0], x[1]);
    // n = 1: u; n = 3: u + 2v + 3u; n = 4: u + 2v + 3u + 4v.
    let tail = u + (4.0 * u + 2.0 * v) + (4.0 * u + 6.0 * v);
    assert_agree("value", &[got.value], &[u * (v + u * v + 0.5) + tail]);
    assert_agree(
        "gradient",
        &got.gradient,
        &[v + 2.0 * u * v + 0.5 + 9.0, u + u * u + 8.0],
    );
    // Left by the `return` inside the triangle's `for`, at n = 1.
    let x = [2e6, 1.0];
    let got = agree(
        "returned inside the range",
        ranges_that_change_grad(&x),
        ranges_that_change_grad_tape(&x),
    );
    let (u, v) = (x[0], x[1]);
    assert_agree("value", &[got.value], &[u * (v + u * v + 0.5) + u]);
    assert_agree(
        "gradient",
        &got.gradient,
        &[v + 2.0 * u * v + 0.5 + 1.0, u + u * u],
    );
}

// ---------------------------------------------------------------------
// A vector helper's values pushed onto a `Vec` and read as rows
// (`qs.push(build_q(..)); .. qs[c][j]`): a pushed call was taken as a
// number, so the rows' second index was "past the shape" and the body
// kept the tape (28× the plain function in a probe's GMM).
// ---------------------------------------------------------------------

#[differentiable]
fn doubled(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| 2.0 * v).collect()
}

#[differentiable]
fn squared_items(x: &[f64]) -> Vec<f64> {
    x.iter().map(|v| v * v).collect()
}

#[allow(clippy::needless_range_loop)]
#[differentiable]
fn rows_of_helper_values(x: &[f64]) -> f64 {
    let mut qs = Vec::new();
    for c in 0..3 {
        if c == 1 {
            qs.push(squared_items(x));
        } else {
            qs.push(doubled(x));
        }
    }
    let mut s = 0.0;
    for c in 0..3 {
        for j in 0..x.len() {
            s += qs[c][j] * (c as f64 + 1.0) * x[j];
        }
    }
    s + qs[2][0] * qs[1][1]
}

#[test]
fn helper_values_pushed_as_rows_are_compiled() {
    assert_eq!(rows_of_helper_values_grad_path(), GradientPath::Compiled);
    let x = [0.5, -1.25, 2.0];
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree(
        "rows",
        rows_of_helper_values_grad(&x),
        rows_of_helper_values_grad_tape(&x),
    );
    assert_eq!(autodiff::__adjoint::tape_reruns(), before);
    // Σ (2·1 + 2·3) x_j² + 2 x_j³ + 2 x0 · x1².
    let value: f64 =
        x.iter().map(|v| 8.0 * v * v + 2.0 * v * v * v).sum::<f64>() + 2.0 * x[0] * x[1] * x[1];
    assert_agree("value", &[got.value], &[value]);
    let mut gradient: Vec<f64> = x.iter().map(|v| 16.0 * v + 6.0 * v * v).collect();
    gradient[0] += 2.0 * x[1] * x[1];
    gradient[1] += 4.0 * x[0] * x[1];
    assert_agree("gradient", &got.gradient, &gradient);
}

// ---------------------------------------------------------------------
// A model's enum field with a variant that carries its constant
// (`Act::Scaled(slope) => ..`, a leaky slope): the arm binds a name, so the `match` was
// read as one on a number with a derivative and the method kept the
// tape, which every compiled caller then reran.
// ---------------------------------------------------------------------

#[differentiable]
impl Stack2 {
    fn run(&self, x: f64) -> f64 {
        let mut h = x;
        for k in 0..self.units.len() {
            let z = self.units[k].w * h;
            h = match self.units[k].act {
                Act::Scaled(slope) => {
                    if z > 0.0 {
                        z
                    } else {
                        slope * z
                    }
                }
                _ => z.tanh(),
            };
        }
        h * h
    }
}

#[test]
fn a_variant_carrying_its_constant_is_compiled() {
    assert_eq!(Stack2::__ad_run_grad_path(), GradientPath::Compiled);
    let net = Stack2 {
        units: vec![
            Unit {
                w: 0.7,
                act: Act::Tanh,
            },
            Unit {
                w: -1.2,
                act: Act::Scaled(0.2),
            },
        ],
    };
    let x = 0.9;
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree("sloped", net.run_grad(x), net.run_grad_tape(x));
    assert_eq!(autodiff::__adjoint::tape_reruns(), before);
    // h1 = tanh(0.7 x) > 0, z2 = −1.2 h1 < 0, h2 = 0.2 z2.
    let t = (0.7 * x).tanh();
    let h2 = 0.2 * -1.2 * t;
    assert_agree("value", &[got.value], &[h2 * h2]);
    let dt = 1.0 - t * t;
    assert_agree(
        "gradient",
        &crate::oracle::Flat::components(&got.gradient),
        &[
            2.0 * h2 * 0.2 * -1.2 * x * dt,
            2.0 * h2 * 0.2 * t,
            2.0 * h2 * 0.2 * -1.2 * 0.7 * dt,
        ],
    );
}

// ---------------------------------------------------------------------
// Two build failures on valid loops (found by a probe): a bound chosen
// by a condition on a tracked value (`let m = if x[0] > 0.0 { 3 } else
// { 1 }; for k in 0..m`), which the recording twin took for a tracked
// value and lost its integer type (E0277 `[Scalar]` indexed by `i32`),
// and an inclusive range stepped (`(0..=n).step_by(2)`), whose reverse
// `rev` needs what `RangeInclusive` is not (`ExactSizeIterator`).
// ---------------------------------------------------------------------

#[differentiable]
fn bound_by_a_condition(x: &[f64]) -> f64 {
    let m = if x[0] > 0.0 { 3 } else { 1 };
    let mut s = 0.0;
    for k in 0..m {
        s += x[k + 1] * x[0];
    }
    s
}

/// The same integer, with arithmetic on it in the `let` (found by a
/// probe after the fix above: the recording twin added it as a tracked
/// value, E0277 and E0271).
#[differentiable]
fn index_by_a_condition(x: &[f64]) -> f64 {
    let k = if x[0] > 0.0 { 1 } else { 0 } + 1;
    let m = 1 + if x[0] > 0.0 { 2 } else { 1 } * 2 / 2;
    x[k] * x[k] + x[m - 1]
}

#[differentiable]
fn inclusive_steps(x: &[f64]) -> f64 {
    let n = x.len() - 1;
    let mut s = 0.0;
    for k in (0..=n).step_by(2) {
        s += x[k] * x[k];
    }
    for k in (1..=n).rev().step_by(2) {
        s += x[k] * 3.0;
    }
    s
}

#[test]
fn an_integer_bound_chosen_by_a_tracked_condition_and_inclusive_steps() {
    assert_eq!(bound_by_a_condition_grad_path(), GradientPath::Compiled);
    assert_eq!(inclusive_steps_grad_path(), GradientPath::Compiled);
    let x = [0.5, 1.0, 2.0, 3.0];
    let got = agree(
        "bound",
        bound_by_a_condition_grad(&x),
        bound_by_a_condition_grad_tape(&x),
    );
    assert_agree("value", &[got.value], &[0.5 * 6.0]);
    assert_agree("gradient", &got.gradient, &[6.0, 0.5, 0.5, 0.5]);
    let x = [-0.5, 1.0, 2.0, 3.0];
    let got = agree(
        "bound",
        bound_by_a_condition_grad(&x),
        bound_by_a_condition_grad_tape(&x),
    );
    assert_agree("gradient", &got.gradient, &[1.0, -0.5, 0.0, 0.0]);
    // x0 < 0: k = 1, m = 2, x1² + x1; x0 > 0: k = 2, m = 3, x2² + x2.
    for (x, k) in [([-0.5, 1.0, 2.0, 3.0], 1), ([0.5, 1.0, 2.0, 3.0], 2)] {
        let got = agree(
            "index",
            index_by_a_condition_grad(&x),
            index_by_a_condition_grad_tape(&x),
        );
        let mut want = [0.0; 4];
        want[k] = 2.0 * x[k] + 1.0;
        assert_agree("gradient", &got.gradient, &want);
    }
    // x0² + x2² + 3 (x3 + x1).
    let x = [0.3, -0.2, 0.5, 0.7];
    let got = agree(
        "inclusive",
        inclusive_steps_grad(&x),
        inclusive_steps_grad_tape(&x),
    );
    assert_agree("value", &[got.value], &[0.09 + 0.25 + 3.0 * (0.7 - 0.2)]);
    assert_agree("gradient", &got.gradient, &[0.6, 3.0, 1.0, 3.0]);
}

// ---------------------------------------------------------------------
// Found by the random programs: `*x.last().unwrap()` as a `match` arm's
// value was not read as the element it is (the arm kept the tape), and
// a matrix literal holding a `dbg!` was not taken for numbers, so its
// pattern `let` kept the tape.
// ---------------------------------------------------------------------

#[differentiable]
fn last_in_an_arm_and_a_printed_matrix(x: &[f64]) -> f64 {
    let a = match x[0] > 0.5 {
        true => *x.last().unwrap() * 2.0,
        false => x[0],
    };
    let m = [[dbg!(x[0]), a], [0.5, x[1] * a]];
    let [[p, q], [_, s]] = m;
    p * q + s
}

#[test]
fn a_last_in_an_arm_and_a_printed_matrix_are_compiled() {
    assert_eq!(
        last_in_an_arm_and_a_printed_matrix_grad_path(),
        GradientPath::Compiled
    );
    // a = 2 x2: 2 x0 x2 + 2 x1 x2.
    let x = [0.75, -0.5, 1.5];
    let got = agree(
        "arm",
        last_in_an_arm_and_a_printed_matrix_grad(&x),
        last_in_an_arm_and_a_printed_matrix_grad_tape(&x),
    );
    assert_agree("value", &[got.value], &[2.0 * x[2] * (x[0] + x[1])]);
    assert_agree(
        "gradient",
        &got.gradient,
        &[2.0 * x[2], 2.0 * x[2], 2.0 * (x[0] + x[1])],
    );
}

// ---------------------------------------------------------------------
// A running maximum from −∞ over an item (`if terms[c] > best { best =
// terms[c]; }`, a log-sum-exp's shift written by hand): only a name was
// taken for the candidate, so the −∞ start was observed and every call
// reran the tape (a probe's GMM, 27× the plain function).
// ---------------------------------------------------------------------

#[allow(clippy::needless_range_loop)]
#[differentiable]
fn log_sum_exp_by_hand(x: &[f64]) -> f64 {
    let mut best = f64::NEG_INFINITY;
    let mut terms = vec![0.0; x.len()];
    for c in 0..x.len() {
        terms[c] = 2.0 * x[c];
        if terms[c] > best {
            best = terms[c];
        }
    }
    let mut s = 0.0;
    for c in 0..x.len() {
        s += (terms[c] - best).exp();
    }
    s.ln() + best
}

#[test]
fn a_running_maximum_over_an_item_stays_compiled() {
    let x = [0.5, 2.0, -1.0];
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree(
        "lse",
        log_sum_exp_by_hand_grad(&x),
        log_sum_exp_by_hand_grad_tape(&x),
    );
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        before,
        "no rerun on the −∞ start"
    );
    let z: f64 = x.iter().map(|v| (2.0 * v).exp()).sum();
    assert_agree("value", &[got.value], &[z.ln()]);
    let softmax: Vec<f64> = x.iter().map(|v| 2.0 * (2.0 * v).exp() / z).collect();
    assert_agree("gradient", &got.gradient, &softmax);
    // No item: the −∞ start reaches the value, the tape's error.
    assert!(log_sum_exp_by_hand_grad(&[]).is_err());
    assert!(log_sum_exp_by_hand_grad_tape(&[]).is_err());
}

/// Found by the random programs: a `match` whose block arm reads a
/// tracked name and ends in a constant was lifted arm by arm while its
/// binding stayed plain (E0368 `-=` on a `Scalar`).
#[differentiable]
fn an_arm_reads_and_ends_in_a_constant(x0: f64) -> f64 {
    let mut acc = match x0 >= -0.45 {
        true => 0.25,
        false => {
            let _b = x0.cos();
            sigmoid(2.0 * (-1.85_f64).sin())
        }
    };
    acc -= 0.125;
    acc * 2.0 + x0
}

#[test]
fn an_arm_that_reads_a_tracked_name_and_ends_in_a_constant_builds() {
    for x in [0.3, -0.9] {
        let got = agree(
            "arm",
            an_arm_reads_and_ends_in_a_constant_grad(x),
            an_arm_reads_and_ends_in_a_constant_grad_tape(x),
        );
        assert_agree("gradient", &[got.gradient], &[1.0]);
    }
}

/// Found by the random programs: a running minimum that a tuple swap
/// binds again (`let (y, best) = (best, y);`) reran the tape on every
/// call. The swap split into one `let` per name binds `best` twice, and
/// the renaming of names bound again ran before that split.
#[differentiable]
fn a_running_minimum_swapped(x: &[f64], b: f64) -> f64 {
    let mut best = f64::INFINITY;
    let mut terms = vec![0.0; x.len()];
    for c in 0..x.len() {
        terms[c] = (b * x[c]).sin();
        if terms[c] < best {
            best = terms[c];
        }
    }
    let y = if b > 1.0 { best * best } else { 0.25 };
    let (y, best) = (best, y);
    3.0 * y + best
}

#[test]
fn a_running_minimum_swapped_by_a_tuple_stays_compiled() {
    let x = [0.5, 2.0, -1.0];
    for b in [0.3, 1.5] {
        let before = autodiff::__adjoint::tape_reruns();
        let got = agree(
            "swap",
            a_running_minimum_swapped_grad(&x, b),
            a_running_minimum_swapped_grad_tape(&x, b),
        );
        assert_eq!(autodiff::__adjoint::tape_reruns(), before, "no rerun");
        // The minimum is at the item whose sine is least.
        let (c, m) = x.iter().map(|v| (b * v).sin()).enumerate().fold(
            (0, f64::INFINITY),
            |(k, m), (j, t)| if t < m { (j, t) } else { (k, m) },
        );
        let dm_db = x[c] * (b * x[c]).cos();
        let dm_dx = b * (b * x[c]).cos();
        let (value, d_best) = if b > 1.0 {
            (3.0 * m + m * m, 3.0 + 2.0 * m)
        } else {
            (3.0 * m + 0.25, 3.0)
        };
        assert_agree("value", &[got.value], &[value]);
        let mut dx = [0.0; 3];
        dx[c] = d_best * dm_dx;
        assert_agree("x", &got.gradient.0, &dx);
        assert_agree("b", &[got.gradient.1], &[d_best * dm_db]);
    }
}

// ---------------------------------------------------------------------
// Plain helpers known by where their value goes (`lower::by_use`): a
// model's `fn dim(&self) -> usize` in a plain `impl` or in the annotated
// one, a `bool` helper as a condition, `argmax(&logits)` as an index.
// Each was read as an annotated call (E0599 `dim_tape`, "`argmax` is not
// #[differentiable]").
// ---------------------------------------------------------------------

#[derive(Clone, Debug, Parameters)]
struct Heads {
    w: Vec<f64>,
    b: f64,
    #[constant]
    heads: usize,
    #[constant]
    doubled: bool,
}

impl Heads {
    fn dim(&self) -> usize {
        self.w.len()
    }

    fn head_dim(&self) -> usize {
        self.w.len() / self.heads
    }

    fn is_doubled(&self) -> bool {
        self.doubled
    }
}

impl crate::oracle::Flat for Heads {
    fn flat(&self, out: &mut Vec<f64>) {
        out.extend(&self.w);
        out.push(self.b);
    }
}

fn heads_of(model: &Heads) -> usize {
    model.heads
}

fn argmax(v: &[f64]) -> usize {
    let mut k = 0;
    for i in 1..v.len() {
        if v[i] > v[k] {
            k = i;
        }
    }
    k
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
impl Heads {
    fn width(&self) -> usize {
        self.w.len()
    }

    /// A mean over `0..n` with `let n = self.dim();`, divided by `n as f64`.
    fn mean_score(&self, x: &[f64]) -> f64 {
        let n = self.dim();
        let mut s = self.b;
        for i in 0..n {
            s += self.w[i] * x[i];
        }
        s / n as f64
    }

    /// The annotated block's own helper as a bound; a `bool` helper as a
    /// condition.
    fn gated_score(&self, x: &[f64]) -> f64 {
        let mut s = self.b;
        for i in 0..self.width() {
            s += self.w[i] * x[i];
        }
        if self.is_doubled() {
            s * 2.0
        } else {
            s
        }
    }

    /// Heads of `head_dim()` each, a buffer `vec![0.0; self.dim()]`, and
    /// the largest term found by a plain `argmax`.
    fn head_score(&self, x: &[f64]) -> f64 {
        let hd: usize = self.head_dim();
        let mut terms = vec![0.0; self.dim()];
        let mut t = 0.0;
        for h in 0..self.heads {
            for j in 0..hd {
                let i = h * hd + j;
                terms[i] = self.w[i] * x[i];
                t += terms[i].tanh();
            }
        }
        let k = argmax(&terms);
        t + terms[k] * self.b
    }

    /// A plain helper given a field and one given the model itself.
    fn top_weight(&self) -> f64 {
        self.w[argmax(&self.w)] * heads_of(self) as f64
    }
}

/// A cross-entropy at the plain `argmax` of the logits, and the largest
/// scaled logit read as `z[argmax(&z)]`.
#[differentiable]
fn loss_at_argmax(logits: &[f64], w: f64) -> f64 {
    let k = argmax(logits);
    let z: Vec<f64> = logits.iter().map(|v| v * w).collect();
    let m = z[argmax(&z)];
    let s: f64 = z.iter().map(|v| (v - m).exp()).sum();
    m + s.ln() - z[k]
}

#[test]
fn plain_helpers_used_as_counts_indices_and_conditions() {
    let heads = Heads {
        w: vec![0.3, -0.7, 1.2, 0.4],
        b: 0.5,
        heads: 2,
        doubled: true,
    };
    let x = [1.0, 2.0, -0.5, 0.25];
    let before = autodiff::__adjoint::tape_reruns();
    for (name, path) in [
        ("mean", heads.mean_score_grad_path()),
        ("gated", heads.gated_score_grad_path()),
        ("heads", heads.head_score_grad_path()),
        ("top", heads.top_weight_grad_path()),
        ("argmax", loss_at_argmax_grad_path()),
    ] {
        assert_eq!(path, GradientPath::Compiled, "{name}");
    }
    // s / n: ∂w = x / 4, ∂b = 1 / 4, ∂x = w / 4.
    let got = agree(
        "mean",
        heads.mean_score_grad(&x),
        heads.mean_score_grad_tape(&x),
    );
    assert_agree("∂w", &got.gradient.0.w, &[0.25, 0.5, -0.125, 0.0625]);
    assert_agree("∂b", &[got.gradient.0.b], &[0.25]);
    assert_agree("∂x", &got.gradient.1, &[0.075, -0.175, 0.3, 0.1]);
    // Doubled: ∂w = 2x, ∂x = 2w.
    let got = agree(
        "gated",
        heads.gated_score_grad(&x),
        heads.gated_score_grad_tape(&x),
    );
    assert_agree("∂w", &got.gradient.0.w, &[2.0, 4.0, -1.0, 0.5]);
    assert_agree("∂x", &got.gradient.1, &[0.6, -1.4, 2.4, 0.8]);
    // t = Σ tanh(wᵢxᵢ) + b·wₖxₖ at k = argmax(wᵢxᵢ): the terms are 0.3,
    // −1.4, −0.6 and 0.1, so k = 0.
    let got = agree(
        "heads",
        heads.head_score_grad(&x),
        heads.head_score_grad_tape(&x),
    );
    let terms: Vec<f64> = (0..4).map(|i| heads.w[i] * x[i]).collect();
    let k = argmax(&terms);
    assert_eq!(k, 0);
    let mut dw: Vec<f64> = (0..4)
        .map(|i| (1.0 - terms[i].tanh().powi(2)) * x[i])
        .collect();
    dw[k] += heads.b * x[k];
    assert_agree("∂w", &got.gradient.0.w, &dw);
    assert_agree("∂b", &[got.gradient.0.b], &[terms[k]]);
    // w₂ · heads: the largest weight, times 2.
    let got = agree("top", heads.top_weight_grad(), heads.top_weight_grad_tape());
    assert_agree("∂w", &got.gradient.w, &[0.0, 0.0, 2.0, 0.0]);
    // The loss at the argmax: ∂/∂zⱼ = softmax(z)ⱼ − [j = k].
    let logits = [0.3, 1.5, -0.2];
    let w = 0.8;
    let got = agree(
        "argmax",
        loss_at_argmax_grad(&logits, w),
        loss_at_argmax_grad_tape(&logits, w),
    );
    let z: Vec<f64> = logits.iter().map(|v| v * w).collect();
    let total: f64 = z.iter().map(|v| v.exp()).sum();
    let p: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
    let dz: Vec<f64> = (0..3).map(|j| p[j] - f64::from(j == 1)).collect();
    let dlogits: Vec<f64> = dz.iter().map(|d| d * w).collect();
    let dw: f64 = (0..3).map(|j| dz[j] * logits[j]).sum();
    assert_agree("∂logits", &got.gradient.0, &dlogits);
    assert_agree("∂w", &[got.gradient.1], &[dw]);
    assert_eq!(autodiff::__adjoint::tape_reruns(), before, "no rerun");
    // Second order through the plain helper: H·v against differences of
    // the gradient.
    let v = (vec![0.5, -1.0, 0.25], 1.0);
    let hvp = loss_at_argmax_hvp(&logits, w, v.clone()).unwrap();
    let h = 1e-5;
    let at = |t: f64| {
        let l: Vec<f64> = (0..3).map(|j| logits[j] + t * v.0[j]).collect();
        loss_at_argmax_grad(&l, w + t * v.1).unwrap().gradient
    };
    let (up, down) = (at(h), at(-h));
    for j in 0..3 {
        let fd = (up.0[j] - down.0[j]) / (2.0 * h);
        assert!(
            (hvp.hvp.0[j] - fd).abs() < 1e-7,
            "H v [{j}]: {} vs {fd}",
            hvp.hvp.0[j]
        );
    }
    assert!((hvp.hvp.1 - (up.1 - down.1) / (2.0 * h)).abs() < 1e-7);
}

// ---------------------------------------------------------------------
// Found by the random programs (seed 20475 g17_5): a helper's value of
// constants assigned to a tracked number (`acc = t;` with `let t =
// h(c);`) did not build in the dual sweep (E0308, `Dual` expected): the
// sweep took the value, whose shape it did not know, for a whole vector
// and did not lift the `f64`.
// ---------------------------------------------------------------------

#[differentiable]
fn half_sine(v: f64) -> f64 {
    (0.5 * v).sin()
}

#[differentiable]
fn assigned_a_helper_of_constants(x: &[f64], #[constant] z: &[f64]) -> f64 {
    let mut acc = x[0] * x[0];
    let t = half_sine(z[0]);
    if z[1] > 0.0 {
        acc = t;
    }
    acc + acc * x[1] + x[0] * x[1] * x[1]
}

#[test]
fn a_helper_of_constants_assigned_to_a_tracked_number() {
    let x = [0.7, -0.4];
    let (x0, x1) = (x[0], x[1]);
    for z in [[0.8, 1.0], [0.8, -1.0]] {
        let got = agree(
            "assigned",
            assigned_a_helper_of_constants_grad(&x, &z),
            assigned_a_helper_of_constants_grad_tape(&x, &z),
        );
        let t = (0.5_f64 * z[0]).sin();
        let (gradient, hessian) = if z[1] > 0.0 {
            (
                [x1 * x1, t + 2.0 * x0 * x1],
                [[0.0, 2.0 * x1], [2.0 * x1, 2.0 * x0]],
            )
        } else {
            (
                [2.0 * x0 + 2.0 * x0 * x1 + x1 * x1, x0 * x0 + 2.0 * x0 * x1],
                [
                    [2.0 + 2.0 * x1, 2.0 * x0 + 2.0 * x1],
                    [2.0 * x0 + 2.0 * x1, 2.0 * x0],
                ],
            )
        };
        assert_agree("gradient", &got.gradient, &gradient);
        let v = [0.5, -1.5];
        let before = autodiff::__adjoint::compiled_hvps();
        let hvp = assigned_a_helper_of_constants_hvp(&x, &z, v.to_vec()).unwrap();
        assert_eq!(autodiff::__adjoint::compiled_hvps(), before + 1);
        let want: Vec<f64> = hessian
            .iter()
            .map(|row| row[0] * v[0] + row[1] * v[1])
            .collect();
        assert_agree("H v", &hvp.hvp, &want);
    }
}

// ---------------------------------------------------------------------
// A helper's vector assigned to a row (probes 11 and 12): `m[1] =
// twice(x);`, `world[b] = mul2(world[b - 1], local);` (a skinning chain),
// `hs[t] = norm(&hs[t]);`. Each failed to build (E0308, the row's adjoint
// set to `0.0`); they compile now, the call bound by a `let` first and
// its value taken whole. A chain whose branch gives the call's vector or
// another (`if b == 0 { local } else { mul2(..) }`) keeps the tape.
// ---------------------------------------------------------------------

#[differentiable]
fn mul2(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> [[f64; 2]; 2] {
    [
        [
            a[0][0] * b[0][0] + a[0][1] * b[1][0],
            a[0][0] * b[0][1] + a[0][1] * b[1][1],
        ],
        [
            a[1][0] * b[0][0] + a[1][1] * b[1][0],
            a[1][0] * b[0][1] + a[1][1] * b[1][1],
        ],
    ]
}

#[differentiable]
fn unit_row(x: &[f64]) -> Vec<f64> {
    let s: f64 = x.iter().map(|v| v * v).sum();
    x.iter().map(|v| v / s.sqrt()).collect()
}

#[differentiable]
fn skinning_chain(x: &[f64]) -> f64 {
    let mut world = [[[0.0; 2]; 2]; 3];
    world[0] = [[x[0], 1.0], [0.0, x[0]]];
    for b in 1..3 {
        let local = [[x[b], 1.0], [0.5, x[b]]];
        world[b] = mul2(world[b - 1], local);
    }
    world[2][0][1] + world[1][1][1] * world[2][1][0]
}

#[differentiable]
fn skinning_chain_by_branch(x: &[f64]) -> f64 {
    let mut world = [[[0.0; 2]; 2]; 3];
    for b in 0..3 {
        let local = [[x[b], 1.0], [0.5, x[b]]];
        let wb = if b == 0 {
            local
        } else {
            mul2(world[b - 1], local)
        };
        world[b] = wb;
    }
    world[2][0][1] + world[1][1][1] * world[2][1][0]
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn rows_normalised_in_place(x: &[f64]) -> f64 {
    let mut hs = vec![vec![0.0; 2]; 2];
    hs[0] = vec![x[0], x[1]];
    hs[1] = vec![x[2], x[0] * x[1]];
    for t in 0..hs.len() {
        hs[t] = unit_row(&hs[t]);
    }
    hs[0][0] + hs[1][1] * hs[0][1]
}

/// The skinning chains on dual numbers, the oracle.
#[allow(clippy::needless_range_loop)]
fn skinning_oracle(x: &[crate::oracle::Dual], by_branch: bool) -> crate::oracle::Dual {
    use crate::oracle::Dual;
    let c = Dual::constant;
    let mul = |a: [[Dual; 2]; 2], b: [[Dual; 2]; 2]| {
        let mut out = [[c(0.0); 2]; 2];
        for i in 0..2 {
            for j in 0..2 {
                out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
            }
        }
        out
    };
    let mut world = [[[c(0.0); 2]; 2]; 3];
    if !by_branch {
        world[0] = [[x[0], c(1.0)], [c(0.0), x[0]]];
    }
    for b in 0..3 {
        let local = [[x[b], c(1.0)], [c(0.5), x[b]]];
        if b == 0 {
            if by_branch {
                world[0] = local;
            }
        } else {
            world[b] = mul(world[b - 1], local);
        }
    }
    world[2][0][1] + world[1][1][1] * world[2][1][0]
}

fn rows_oracle(x: &[crate::oracle::Dual]) -> crate::oracle::Dual {
    let unit = |row: [crate::oracle::Dual; 2]| {
        let s = (row[0] * row[0] + row[1] * row[1]).sqrt();
        [row[0] / s, row[1] / s]
    };
    let h0 = unit([x[0], x[1]]);
    let h1 = unit([x[2], x[0] * x[1]]);
    h0[0] + h1[1] * h0[1]
}

#[test]
fn a_helpers_vector_assigned_to_a_row() {
    let x = [1.5, -2.0, 0.5];
    let before = autodiff::__adjoint::tape_reruns();
    assert_eq!(skinning_chain_grad_path(), GradientPath::Compiled);
    assert_eq!(rows_normalised_in_place_grad_path(), GradientPath::Compiled);
    let got = agree(
        "chain",
        skinning_chain_grad(&x),
        skinning_chain_grad_tape(&x),
    );
    let want = crate::oracle::dual_gradient(&x, |d| skinning_oracle(d, false));
    assert_agree("chain", &got.gradient, &want);
    let got = agree(
        "rows",
        rows_normalised_in_place_grad(&x),
        rows_normalised_in_place_grad_tape(&x),
    );
    assert_agree(
        "rows",
        &got.gradient,
        &crate::oracle::dual_gradient(&x, rows_oracle),
    );
    assert_eq!(autodiff::__adjoint::tape_reruns(), before, "no rerun");
    // By a branch: the tape, which says why.
    let GradientPath::Tape { construct, .. } = skinning_chain_by_branch_grad_path() else {
        panic!("the branch's call compiled");
    };
    assert!(construct.contains("branch"), "{construct}");
    let got = skinning_chain_by_branch_grad(&x).unwrap();
    let want = crate::oracle::dual_gradient(&x, |d| skinning_oracle(d, true));
    assert_agree("by branch", &got.gradient, &want);
}

// ---------------------------------------------------------------------
// Found by the random programs (seed 20483 f7_0): a binding of a tracked
// name bound again to a constant (`let mut acc = z;` in a loop, or `let
// (z, mut acc) = (acc, z);`) is recorded by the recording twin, which
// reads names and not scopes, so the tape reports its overflow; the
// compiled adjoint, reading the renamed binding as a constant, returned
// `Ok`. It is active there now too, and both return the tape's error.
// ---------------------------------------------------------------------

#[differentiable]
fn a_tracked_name_bound_again_to_a_constant(x: f64, #[constant] z: f64) -> f64 {
    let mut acc = x * 0.5;
    for _ in 0..2 {
        let mut acc = z;
        for _ in 0..12 {
            acc = acc * acc * 0.5;
        }
        let _t = acc.sin();
    }
    acc += x * x;
    acc
}

#[test]
fn a_tracked_name_bound_again_to_a_constant_fails_as_the_tape_does() {
    // z = 0.5 stays finite: the gradient 0.5 + 2x.
    let got = agree(
        "finite",
        a_tracked_name_bound_again_to_a_constant_grad(0.3, 0.5),
        a_tracked_name_bound_again_to_a_constant_grad_tape(0.3, 0.5),
    );
    assert_agree("gradient", &[got.gradient], &[0.5 + 2.0 * 0.3]);
    // z = 3 overflows at the eleventh squaring: the tape's error on both
    // paths.
    let compiled = a_tracked_name_bound_again_to_a_constant_grad(0.3, 3.0);
    let tape = a_tracked_name_bound_again_to_a_constant_grad_tape(0.3, 3.0);
    assert!(tape.is_err());
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));
}

// ---------------------------------------------------------------------
// Found by probe 11 (GMM written naturally): `*t = sq;` after an inner
// loop in a `for (k, t) in terms.iter_mut().enumerate()` body was read
// as a product of the loop's block and `t` (E0308, `Scalar` into an
// `f64`): before `iter_mut`'s item, a `*` always dereferences.
// ---------------------------------------------------------------------

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn terms_written_after_an_inner_loop(x: &[f64]) -> f64 {
    let mut terms = vec![0.0; x.len()];
    for (k, t) in terms.iter_mut().enumerate() {
        let mut sq = 0.0;
        for r in 0..x.len() {
            sq += x[r] * x[k];
        }
        *t = sq;
    }
    terms[0] * terms[1]
}

#[test]
fn an_iter_mut_item_written_after_an_inner_loop() {
    let x = [2.0, 3.0];
    assert_eq!(
        terms_written_after_an_inner_loop_grad_path(),
        GradientPath::Compiled
    );
    let got = agree(
        "terms",
        terms_written_after_an_inner_loop_grad(&x),
        terms_written_after_an_inner_loop_grad_tape(&x),
    );
    // x₀ x₁ S² with S = x₀ + x₁.
    let s = x[0] + x[1];
    assert_agree(
        "gradient",
        &got.gradient,
        &[
            x[1] * s * s + 2.0 * x[0] * x[1] * s,
            x[0] * s * s + 2.0 * x[0] * x[1] * s,
        ],
    );
}

// ---------------------------------------------------------------------
// Found by probe 12: a `#[constant]` enum passed on to another annotated
// function (`act_fn(x[i], act)`) failed to build (E0277, `Act:
// Adjoint`): the compiled call gave it an adjoint shaped like it. A
// parameter passed through whose type holds no `f64` takes none.
// ---------------------------------------------------------------------

#[differentiable]
fn activated(x: f64, #[constant] act: Act, #[constant] times: usize) -> f64 {
    let y = match act {
        Act::Relu => relu(x),
        Act::Tanh => x.tanh(),
        Act::Scaled(k) => k * x * x,
    };
    y * times as f64
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn activated_sum(x: &[f64], #[constant] act: Act, #[constant] times: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += activated(x[i], act, times);
    }
    s
}

/// The variants written at the call, an item of a slice of them, and a
/// copy through a reference (probe 13).
#[differentiable]
#[allow(clippy::needless_range_loop, clippy::clone_on_copy)]
fn activated_by_variants(x: &[f64], #[constant] acts: &[Act], #[constant] act: &Act) -> f64 {
    let mut s = activated(x[0], Act::Tanh, 1) + activated(x[1], Act::Scaled(0.5), 2);
    for i in 0..x.len() {
        s += activated(x[i], acts[i], 1) + activated(x[i], *act, 1);
        s += activated(x[i], act.clone(), 1);
    }
    s
}

#[test]
fn constant_enums_written_out_or_taken_from_a_slice() {
    let x = [0.5, -1.0];
    let acts = [Act::Relu, Act::Scaled(1.5)];
    assert_eq!(activated_by_variants_grad_path(), GradientPath::Compiled);
    let got = agree(
        "variants",
        activated_by_variants_grad(&x, &acts, &Act::Tanh),
        activated_by_variants_grad_tape(&x, &acts, &Act::Tanh),
    );
    let tanh = |v: f64| 1.0 - v.tanh().powi(2);
    // tanh(x₀) + 2·0.5x₁²; relu(x₀) + 1.5x₁²; twice tanh of each.
    let want = [
        tanh(0.5) + 1.0 + 2.0 * tanh(0.5),
        2.0 * 0.5 * 2.0 * x[1] + 2.0 * 1.5 * x[1] + 2.0 * tanh(-1.0),
    ];
    assert_agree("gradient", &got.gradient, &want);
}

#[test]
fn a_constant_enum_passed_on_to_an_annotated_function() {
    let x = [0.5, -1.0];
    assert_eq!(activated_sum_grad_path(), GradientPath::Compiled);
    let before = autodiff::__adjoint::tape_reruns();
    for act in [Act::Relu, Act::Tanh, Act::Scaled(1.5)] {
        let got = agree(
            "activated",
            activated_sum_grad(&x, act, 2),
            activated_sum_grad_tape(&x, act, 2),
        );
        let (want, second): (Vec<f64>, Vec<f64>) = x
            .iter()
            .map(|&v| match act {
                Act::Relu => (if v > 0.0 { 2.0 } else { 0.0 }, 0.0),
                Act::Tanh => {
                    let t = v.tanh();
                    (2.0 * (1.0 - t * t), 2.0 * (-2.0 * t * (1.0 - t * t)))
                }
                Act::Scaled(k) => (2.0 * 2.0 * k * v, 2.0 * 2.0 * k),
            })
            .unzip();
        assert_agree("gradient", &got.gradient, &want);
        // The Hessian is diagonal: H·1 is the second derivatives.
        let hvp = activated_sum_hvp(&x, act, 2, vec![1.0, 1.0]).unwrap();
        assert_agree("H 1", &hvp.hvp, &second);
    }
    assert_eq!(autodiff::__adjoint::tape_reruns(), before, "no rerun");
}

// ---------------------------------------------------------------------
// Found by probe 12: a model taken apart by a struct pattern (`let Layer
// { w, b } = layer;`, `let Net { out, .. } = self;`) failed to build
// (E0308, `LayerOnTape` expected): the recording twin holds the model's
// twin, not its type. Both twins read it as its fields (`parts`).
// ---------------------------------------------------------------------

#[derive(Clone, Debug, Parameters)]
struct Affine {
    w: Vec<f64>,
    b: f64,
}

#[derive(Clone, Debug, Parameters)]
struct AffineNet {
    layers: Vec<Affine>,
    out: f64,
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn affine_by_pattern(layer: &Affine, #[constant] x: &[f64]) -> f64 {
    let Affine { w, b } = layer;
    let mut s = *b;
    for i in 0..w.len() {
        s += w[i] * x[i];
    }
    s * s
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
impl AffineNet {
    fn by_patterns(&self, x: &[f64]) -> f64 {
        let Affine { w, b: bias } = &self.layers[0];
        let AffineNet { out, .. } = self;
        let mut s = *bias;
        for i in 0..w.len() {
            s += w[i] * x[i];
        }
        for layer in &self.layers {
            let Affine { w, .. } = layer;
            s += w[0] * s.tanh();
        }
        s * out
    }
}

impl crate::oracle::Flat for Affine {
    fn flat(&self, out: &mut Vec<f64>) {
        out.extend(&self.w);
        out.push(self.b);
    }
}

impl crate::oracle::Flat for AffineNet {
    fn flat(&self, out: &mut Vec<f64>) {
        self.layers.iter().for_each(|layer| layer.flat(out));
        out.push(self.out);
    }
}

#[test]
fn a_model_taken_apart_by_a_struct_pattern() {
    let layer = Affine {
        w: vec![0.5, -1.0],
        b: 0.1,
    };
    let x = [1.0, 2.0];
    assert_eq!(affine_by_pattern_grad_path(), GradientPath::Compiled);
    let got = agree(
        "affine",
        affine_by_pattern_grad(&layer, &x),
        affine_by_pattern_grad_tape(&layer, &x),
    );
    // s = b + w·x = −1.4, f = s²: ∂w = 2s x, ∂b = 2s.
    assert_agree("∂w", &got.gradient.w, &[-2.8, -5.6]);
    assert_agree("∂b", &[got.gradient.b], &[-2.8]);
    let net = AffineNet {
        layers: vec![
            layer,
            Affine {
                w: vec![0.3, 0.2],
                b: -0.4,
            },
        ],
        out: 1.5,
    };
    assert_eq!(net.by_patterns_grad_path(), GradientPath::Compiled);
    let got = agree(
        "net",
        net.by_patterns_grad(&x),
        net.by_patterns_grad_tape(&x),
    );
    // On dual numbers: [w00, w01, b0, w10, w11, b1, out].
    let at = [0.5, -1.0, 0.1, 0.3, 0.2, -0.4, 1.5];
    let want = crate::oracle::dual_gradient(&at, |p| {
        let mut s = p[2] + p[0] * x[0] + p[1] * x[1];
        for w0 in [p[0], p[3]] {
            s = s + w0 * s.tanh();
        }
        s * p[6]
    });
    assert_agree(
        "∂ model",
        &crate::oracle::Flat::components(&got.gradient.0),
        &want,
    );
}

// ---------------------------------------------------------------------
// `matches!` (probes 6, 10, 12) was refused, and a method that used it
// left its callers with four more errors. It is a plain macro now, read
// on primal values like `assert!`: a `bool`.
// ---------------------------------------------------------------------

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn branches_by_matches(x: &[f64], #[constant] act: Act) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        let v = x[i] * 2.0;
        if matches!(v, t if t > 0.5) && matches!(act, Act::Tanh) {
            s += v.tanh();
        } else if matches!(x.first(), Some(&u) if u < 0.0) {
            s -= v * v;
        } else {
            s += v;
        }
    }
    s
}

#[differentiable]
impl Unit {
    fn by_matches(&self, x: f64) -> f64 {
        let z = self.w * x;
        if matches!(self.act, Act::Tanh | Act::Scaled(_)) {
            z.tanh()
        } else {
            relu(z)
        }
    }
}

#[test]
fn matches_reads_primal_values() {
    assert_eq!(branches_by_matches_grad_path(), GradientPath::Compiled);
    for x in [[0.5, 0.1, -0.3], [-0.5, 1.0, 0.2]] {
        for act in [Act::Relu, Act::Tanh] {
            let got = agree(
                "matches",
                branches_by_matches_grad(&x, act),
                branches_by_matches_grad_tape(&x, act),
            );
            let want: Vec<f64> = x
                .iter()
                .map(|&xi| {
                    let v = 2.0 * xi;
                    if v > 0.5 && act == Act::Tanh {
                        2.0 * (1.0 - v.tanh().powi(2))
                    } else if x[0] < 0.0 {
                        -4.0 * v
                    } else {
                        2.0
                    }
                })
                .collect();
            assert_agree("gradient", &got.gradient, &want);
        }
    }
    for act in [Act::Relu, Act::Tanh, Act::Scaled(0.5)] {
        let unit = Unit { w: 0.5, act };
        let got = agree(
            "unit",
            unit.by_matches_grad(1.5),
            unit.by_matches_grad_tape(1.5),
        );
        let dz = if act == Act::Relu {
            1.0
        } else {
            1.0 - (0.75_f64).tanh().powi(2)
        };
        assert_agree("∂w", &[got.gradient.0.w], &[dz * 1.5]);
    }
}

// ---------------------------------------------------------------------
// Found by probe 11 (bundle adjustment's guarded rotation): an array a
// branch or a block builds and gives as its value (`if c { let mut out
// = [0.0; 3]; for .. { out[i] = .. } out } else { [..] }`) kept the tape
// ("a binding without an adjoint"), and as a helper's body its callers
// reran the tape on every call while `f_grad_path` said `Compiled`. The
// binding's adjoint is shaped by the other arm, or by the array's `let`.
// ---------------------------------------------------------------------

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn guarded_scaling(r: [f64; 3]) -> [f64; 3] {
    if r[0] > 0.0 {
        let mut out = [0.0; 3];
        for i in 0..3 {
            out[i] = r[i] * r[0];
        }
        out
    } else {
        [r[0], r[1] * r[2], r[2]]
    }
}

#[differentiable]
fn uses_guarded_scaling(r: [f64; 3]) -> f64 {
    let y = guarded_scaling(r);
    y[0] + 2.0 * y[1] + 3.0 * y[2]
}

#[differentiable]
fn array_of_a_block(r: [f64; 3]) -> f64 {
    let y = {
        let mut out = [0.0; 3];
        out[0] = r[0] * r[1];
        out
    };
    y[0] + 2.0 * y[1] + 3.0 * y[2]
}

#[test]
fn an_array_built_in_a_branch_is_its_value() {
    assert_eq!(uses_guarded_scaling_grad_path(), GradientPath::Compiled);
    assert_eq!(array_of_a_block_grad_path(), GradientPath::Compiled);
    for r in [[0.5, -0.2, 0.3], [-0.5, 0.7, 0.3]] {
        let before = autodiff::__adjoint::tape_reruns();
        let got = agree(
            "guarded",
            uses_guarded_scaling_grad(r),
            uses_guarded_scaling_grad_tape(r),
        );
        assert_eq!(autodiff::__adjoint::tape_reruns(), before, "no rerun");
        // r₀ > 0: r₀(r₀ + 2r₁ + 3r₂); else r₀ + 2r₁r₂ + 3r₂.
        let want = if r[0] > 0.0 {
            [2.0 * r[0] + 2.0 * r[1] + 3.0 * r[2], 2.0 * r[0], 3.0 * r[0]]
        } else {
            [1.0, 2.0 * r[2], 2.0 * r[1] + 3.0]
        };
        assert_agree("gradient", &got.gradient, &want);
        let got = agree(
            "block",
            array_of_a_block_grad(r),
            array_of_a_block_grad_tape(r),
        );
        assert_agree("block", &got.gradient, &[r[1], r[0], 0.0]);
    }
}

// ---------------------------------------------------------------------
// Found by probe 13: a row given a helper's vector of another length
// than it had (`m[1] = grow(&m[0]);`, `grow` pushing one item) made
// `f_grad` panic (index out of bounds): the row's adjoint keeps the shape
// it was declared with. The forward sweep now checks the row's shape and
// hands over to the tape where it changed.
// ---------------------------------------------------------------------

#[differentiable]
fn grown_by_one(x: &[f64]) -> Vec<f64> {
    let mut v = x.to_vec();
    v.push(x[0] * x[1]);
    v
}

#[differentiable]
#[allow(clippy::useless_vec)]
fn a_row_given_a_longer_vector(x: &[f64]) -> f64 {
    let mut m = vec![x.to_vec(), x.to_vec()];
    m[1] = grown_by_one(&m[0]);
    m[1][3] * m[0][0]
}

#[test]
fn a_row_whose_length_changes_hands_over_to_the_tape() {
    let x = [0.7, -1.3, 0.4];
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree(
        "grown",
        a_row_given_a_longer_vector_grad(&x),
        a_row_given_a_longer_vector_grad_tape(&x),
    );
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        before + 1,
        "the tape answered"
    );
    // x₀ x₁ · x₀.
    assert_agree(
        "gradient",
        &got.gradient,
        &[2.0 * x[0] * x[1], x[0] * x[0], 0.0],
    );
}

// ---------------------------------------------------------------------
// Found by probe 13: a plain helper returning `Option<usize>` used as an
// index through `unwrap_or`, `unwrap`, a `match` binding it, or tested by
// `is_some()`, was read as an annotated call (it failed to build).
// ---------------------------------------------------------------------

fn first_negative(v: &[f64]) -> Option<usize> {
    v.iter().position(|a| *a < 0.0)
}

#[differentiable]
fn at_the_first_negative(x: &[f64]) -> f64 {
    let k = first_negative(x).unwrap_or(0);
    let by_unwrap = x[first_negative(x).unwrap()] * 2.0;
    let by_match = match first_negative(x) {
        Some(j) => x[j] * x[0],
        None => x[1],
    };
    let tested = if first_negative(x).is_some() {
        x[2]
    } else {
        0.0
    };
    x[k] * x[k] + by_unwrap + by_match + tested
}

#[test]
fn an_optional_index_from_a_plain_helper() {
    let x = [0.7, -1.3, 0.4];
    assert_eq!(at_the_first_negative_grad_path(), GradientPath::Compiled);
    let got = agree(
        "optional",
        at_the_first_negative_grad(&x),
        at_the_first_negative_grad_tape(&x),
    );
    // k = 1: x₁² + 2x₁ + x₁x₀ + x₂.
    assert_agree(
        "gradient",
        &got.gradient,
        &[x[1], 2.0 * x[1] + 2.0 + x[0], 1.0],
    );
}

// ---------------------------------------------------------------------
// Found by probe 13: a plain helper's index bound to a name that is bound
// again (`let k = argmax(x); .. let k = argmin(x);`, `let k = k + 1;`)
// was read as an annotated call. Such a `let` counts by its name's uses
// up to the next `let` of the name, and through that `let`'s value.
// ---------------------------------------------------------------------

fn argmin(v: &[f64]) -> usize {
    let mut k = 0;
    for i in 1..v.len() {
        if v[i] < v[k] {
            k = i;
        }
    }
    k
}

#[differentiable]
fn indices_bound_again(x: &[f64]) -> f64 {
    let k = argmax(x);
    let y = x[k] * 2.0;
    let k = argmin(x);
    let z = x[k] * y;
    let k = argmax(x);
    let k = k + 1;
    z + x[k]
}

#[test]
fn a_plain_index_bound_again() {
    let x = [0.7, 1.3, 0.4, -1.1];
    assert_eq!(indices_bound_again_grad_path(), GradientPath::Compiled);
    let got = agree(
        "again",
        indices_bound_again_grad(&x),
        indices_bound_again_grad_tape(&x),
    );
    // argmax 1, argmin 3: 2x₁x₃ + x₂.
    assert_agree(
        "gradient",
        &got.gradient,
        &[0.0, 2.0 * x[3], 1.0, 2.0 * x[1]],
    );
}

// ---------------------------------------------------------------------
// Found by probe 13: a model's `#[constant]` integer field passed on to
// an annotated function (`activated(.., self.act, self.times)`) failed to
// build (E0277, `usize: AddFrom<usize>`): the dual sweep's zero of an
// integer is the integer, which nothing added into. It adds nothing.
// ---------------------------------------------------------------------

#[derive(Clone, Debug, Parameters)]
struct Repeated {
    w: Vec<f64>,
    #[constant]
    act: Act,
    #[constant]
    times: usize,
}

impl crate::oracle::Flat for Repeated {
    fn flat(&self, out: &mut Vec<f64>) {
        out.extend(&self.w);
    }
}

#[differentiable]
impl Repeated {
    #[allow(clippy::needless_range_loop)]
    fn total(&self, x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += activated(self.w[i] * x[i], self.act, self.times);
        }
        s
    }
}

#[test]
fn a_constant_integer_field_passed_on() {
    let x = [0.5, -1.0];
    for act in [Act::Tanh, Act::Scaled(1.5)] {
        let net = Repeated {
            w: vec![0.8, 0.3],
            act,
            times: 3,
        };
        assert_eq!(net.total_grad_path(), GradientPath::Compiled);
        let before = autodiff::__adjoint::tape_reruns();
        let got = agree("field", net.total_grad(&x), net.total_grad_tape(&x));
        assert_eq!(autodiff::__adjoint::tape_reruns(), before, "no rerun");
        // 3·a(wᵢxᵢ): ∂/∂wᵢ = 3a′(wᵢxᵢ)xᵢ, ∂²/∂wᵢ² = 3a″(wᵢxᵢ)xᵢ².
        let (first, second): (Vec<f64>, Vec<f64>) = (0..2)
            .map(|i| {
                let u = net.w[i] * x[i];
                let (d1, d2) = match act {
                    Act::Tanh => {
                        let t = u.tanh();
                        (1.0 - t * t, -2.0 * t * (1.0 - t * t))
                    }
                    Act::Scaled(k) => (2.0 * k * u, 2.0 * k),
                    Act::Relu => unreachable!(),
                };
                (3.0 * d1 * x[i], 3.0 * d2 * x[i] * x[i])
            })
            .unzip();
        assert_agree("gradient", &got.gradient.0.w, &first);
        let direction = Repeated {
            w: vec![1.0, 1.0],
            act,
            times: 3,
        };
        let hvp = net.total_hvp(&x, (direction, vec![0.0, 0.0])).unwrap();
        assert_agree("H 1", &hvp.hvp.0.w, &second);
    }
}

// ---------------------------------------------------------------------
// Found by probe 14: a plain helper of integers given an `enumerate`'s
// index (`v * pe(2, i, n)` in `for (i, v) in x.iter().enumerate()`, a
// `map(|(i, v)| ..)` or a `fold(.., |acc, (i, v)| ..)`) failed to build:
// the recording twin took every name of a tracked loop's pattern as
// tracked, the index too, and the helper as one given a tracked value.
// ---------------------------------------------------------------------

fn position_code(t: usize, i: usize, d: usize) -> f64 {
    let angle = t as f64 / 100f64.powf((2 * (i / 2)) as f64 / d as f64);
    if i % 2 == 0 {
        angle.sin()
    } else {
        angle.cos()
    }
}

#[differentiable]
fn encoded(x: &[f64]) -> f64 {
    let n = x.len();
    let mut s = 0.0;
    for (i, v) in x.iter().enumerate() {
        s += v * v * position_code(2, i, n);
    }
    let mapped: f64 = x
        .iter()
        .enumerate()
        .map(|(i, v)| v * position_code(3, i, n))
        .sum();
    let folded = x
        .iter()
        .enumerate()
        .fold(0.0, |acc, (i, v)| acc + v * v * v * position_code(1, i, n));
    s + mapped + folded
}

#[test]
fn a_plain_helper_of_an_enumerated_index() {
    let x = [0.5, -0.3, 1.2, 0.1];
    let n = x.len();
    assert_eq!(encoded_grad_path(), GradientPath::Compiled);
    let got = agree("encoded", encoded_grad(&x), encoded_grad_tape(&x));
    // Σ xᵢ² p₂(i) + Σ xᵢ p₃(i) + Σ xᵢ³ p₁(i).
    let p = |t, i| position_code(t, i, n);
    let want: Vec<f64> = (0..n)
        .map(|i| 2.0 * x[i] * p(2, i) + p(3, i) + 3.0 * x[i] * x[i] * p(1, i))
        .collect();
    assert_agree("gradient", &got.gradient, &want);
    let hvps = autodiff::__adjoint::compiled_hvps();
    let hvp = encoded_hvp(&x, vec![1.0, 0.0, 0.0, 0.0]).unwrap();
    assert_eq!(autodiff::__adjoint::compiled_hvps(), hvps + 1);
    // H e₀: 2p₂(0) + 6x₀p₁(0) at 0.
    assert_agree(
        "H e0",
        &hvp.hvp,
        &[2.0 * p(2, 0) + 6.0 * x[0] * p(1, 0), 0.0, 0.0, 0.0],
    );
}

// ---------------------------------------------------------------------
// Found by probe 15: `f_grad` panicked where the plain function does not
// (`while j > 0 && v[j - 1] > v[j]`, `if j == 0 { .. } else if v[j - 1]
// > 0.0`): the compiled adjoint checked every tracked value a condition
// reads before the condition ran, also one behind a guard that is
// false. Each is now checked where the condition reads it.
// ---------------------------------------------------------------------

#[differentiable]
fn insertion_sorted(x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && v[j - 1] > v[j] {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
    v[0] + 2.0 * v[1] * v[1] + 3.0 * v[v.len() - 1]
}

#[differentiable]
fn first_past(x: &[f64], #[constant] t: f64) -> f64 {
    let v: Vec<f64> = x.iter().map(|a| a * 2.0).collect();
    let mut i = 0;
    while i < v.len() && v[i] < t {
        i += 1;
    }
    let mut s = 0.0;
    for j in 0..v.len() {
        if j == 0 || v[j - 1] < v[j] {
            s += v[j] * v[j];
        } else if j + 1 == v.len() {
            s += v[j];
        }
    }
    s + x[0] * i as f64
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn monotonic_stack(x: &[f64]) -> f64 {
    let mut st: Vec<f64> = Vec::new();
    for i in 0..x.len() {
        let t = x[i] * x[i];
        while !st.is_empty() && st[st.len() - 1] < t {
            st.pop();
        }
        st.push(t);
    }
    st.iter().sum()
}

#[test]
fn a_tracked_value_behind_a_guard() {
    let x = [0.7, -1.3, 0.4];
    for path in [
        insertion_sorted_grad_path(),
        first_past_grad_path(),
        monotonic_stack_grad_path(),
    ] {
        assert_eq!(path, GradientPath::Compiled);
    }
    let before = autodiff::__adjoint::tape_reruns();
    // Sorted: x₁ < x₂ < x₀, so x₁ + 2x₂² + 3x₀.
    let got = agree(
        "sorted",
        insertion_sorted_grad(&x),
        insertion_sorted_grad_tape(&x),
    );
    assert_agree("sorted", &got.gradient, &[3.0, 1.0, 4.0 * x[2]]);
    // v = 2x = [1.4, −2.6, 0.8]; i stops at 0 (1.4 ≥ 1); j = 0 squares
    // v₀, j = 1 takes neither arm, j = 2 squares v₂ (−2.6 < 0.8).
    let got = agree(
        "first past",
        first_past_grad(&x, 1.0),
        first_past_grad_tape(&x, 1.0),
    );
    assert_agree("first past", &got.gradient, &[8.0 * x[0], 0.0, 8.0 * x[2]]);
    // Squares [0.49, 1.69, 0.16]: 1.69 pops 0.49, the stack ends
    // [1.69, 0.16].
    let got = agree(
        "stack",
        monotonic_stack_grad(&x),
        monotonic_stack_grad_tape(&x),
    );
    assert_agree("stack", &got.gradient, &[0.0, 2.0 * x[1], 2.0 * x[2]]);
    assert_eq!(autodiff::__adjoint::tape_reruns(), before, "no rerun");
    // The dual sweep checks the same way: H = diag(0, 4, 0) for the sort.
    let hvp = insertion_sorted_hvp(&x, vec![1.0, 1.0, 1.0]).unwrap();
    assert_agree("H 1", &hvp.hvp, &[0.0, 0.0, 4.0]);
}

// ---------------------------------------------------------------------
// Found by the random programs: `v.extend_from_slice(&m.w)` of a model's
// field kept the tape (the body does not show the field's shape); it
// extends a `Vec` of numbers, so it is a slice of them.
// ---------------------------------------------------------------------

#[differentiable]
fn extended_by_a_field(layer: &Affine, x: f64) -> f64 {
    let mut v = vec![x * x];
    v.extend_from_slice(&layer.w);
    v[0] * v[1] + v[2] * layer.b
}

#[test]
fn a_model_field_appended_to_a_vec() {
    let layer = Affine {
        w: vec![0.5, -1.5],
        b: 0.25,
    };
    assert_eq!(extended_by_a_field_grad_path(), GradientPath::Compiled);
    let got = agree(
        "extended",
        extended_by_a_field_grad(&layer, 0.8),
        extended_by_a_field_grad_tape(&layer, 0.8),
    );
    // x² w₀ + w₁ b.
    assert_agree("w", &got.gradient.0.w, &[0.64, 0.25]);
    assert_agree(
        "b, x",
        &[got.gradient.0.b, got.gradient.1],
        &[-1.5, 1.6 * 0.5],
    );
}

/// The same behind a `match` guard: on an index, `0 => .., _ if v[j - 1]
/// > 0.0 => ..`, and on a tracked number, `t if j > 0 && v[j - 1] > 0.0`.
#[differentiable]
fn guarded_arms(x: &[f64]) -> f64 {
    let v: Vec<f64> = x.iter().map(|a| a * 2.0).collect();
    let mut s = 0.0;
    for j in 0..v.len() {
        s += match j {
            0 => v[0],
            _ if v[j - 1] > 0.0 => v[j] * v[j],
            _ => v[j],
        };
        let y = x[j];
        s += match y {
            t if t < 0.0 => t * t,
            t if j > 0 && v[j - 1] > 0.0 => t * v[j - 1],
            t => t,
        };
    }
    s
}

#[test]
fn a_tracked_value_behind_a_match_guard() {
    let x = [0.7, -1.3, 0.4];
    assert_eq!(guarded_arms_grad_path(), GradientPath::Compiled);
    let got = agree("guards", guarded_arms_grad(&x), guarded_arms_grad_tape(&x));
    // v = 2x = [1.4, −2.6, 0.8]. First match: v₀ + v₁² + v₂ (v₁ < 0);
    // second: x₀ + x₁² + x₂ (x₁ < 0, v₁ < 0).
    assert_agree(
        "gradient",
        &got.gradient,
        &[2.0 + 1.0, 8.0 * x[1] + 2.0 * x[1], 2.0 + 1.0],
    );
    let hvp = guarded_arms_hvp(&x, vec![0.0, 1.0, 0.0]).unwrap();
    assert_agree("H e1", &hvp.hvp, &[0.0, 10.0, 0.0]);
}

// ---------------------------------------------------------------------
// Found by probe 15: a layer taken apart by a struct pattern in a `for`
// over `layers.iter().enumerate()` (`for (k, layer) in ..`) failed to
// build (E0308, `LayerOnTape` expected): only a `for` whose pattern is
// the item itself noted the item as a reference.
// ---------------------------------------------------------------------

#[differentiable]
fn enumerated_layers(net: &AffineNet, #[constant] x: f64) -> f64 {
    let mut h = x;
    for (k, layer) in net.layers.iter().enumerate() {
        let Affine { w, b } = layer;
        h = (w[0] * h + b).tanh() * (k as f64 + 1.0);
    }
    h * net.out
}

/// The same through `zip`, which keeps the tape ("a for over .zip()").
#[differentiable]
fn zipped_layers(net: &AffineNet, #[constant] scales: &[f64]) -> f64 {
    let mut h = 0.0;
    for (layer, scale) in net.layers.iter().zip(scales) {
        let Affine { w, .. } = layer;
        h += w[0] * scale;
    }
    h
}

#[test]
fn a_layer_taken_apart_in_an_enumerated_loop() {
    let net = AffineNet {
        layers: vec![
            Affine {
                w: vec![0.5],
                b: 0.1,
            },
            Affine {
                w: vec![-0.3],
                b: 0.2,
            },
        ],
        out: 1.5,
    };
    let x = 0.7;
    assert_eq!(enumerated_layers_grad_path(), GradientPath::Compiled);
    let got = agree(
        "enumerated",
        enumerated_layers_grad(&net, x),
        enumerated_layers_grad_tape(&net, x),
    );
    // h₁ = tanh(w₀x + b₀), h₂ = 2 tanh(w₁h₁ + b₁), y = h₂·o.
    let (w0, b0, w1, b1, o) = (0.5, 0.1, -0.3, 0.2, 1.5);
    let h1 = (w0 * x + b0).tanh();
    let d1 = 1.0 - h1 * h1;
    let t2 = (w1 * h1 + b1).tanh();
    let d2 = 2.0 * (1.0 - t2 * t2);
    let want = [
        o * d2 * w1 * d1 * x,
        o * d2 * w1 * d1,
        o * d2 * h1,
        o * d2,
        2.0 * t2,
    ];
    let mut flat = Vec::new();
    crate::oracle::Flat::flat(&got.gradient, &mut flat);
    assert_agree("gradient", &flat, &want);
    let got = agree(
        "zipped",
        zipped_layers_grad(&net, &[0.5, 2.0]),
        zipped_layers_grad_tape(&net, &[0.5, 2.0]),
    );
    let mut flat = Vec::new();
    crate::oracle::Flat::flat(&got.gradient, &mut flat);
    assert_agree("zipped", &flat, &[0.5, 0.0, 2.0, 0.0, 0.0]);
}

// ---------------------------------------------------------------------
// Found by probe 15: a function named `stack` (or `args`) failed to build
// (E0618): the pair named the plain function at the macro's site, where
// its own parameter of that name hid it.
// ---------------------------------------------------------------------

#[differentiable]
fn stack(x: &[f64]) -> f64 {
    x[0] * x[1]
}

#[differentiable]
fn args(x: &[f64]) -> f64 {
    stack(x) * x[0]
}

#[test]
fn functions_named_like_the_pairs_parameters() {
    let x = [1.5, -2.0];
    assert_eq!(args_grad_path(), GradientPath::Compiled);
    let got = agree("args", args_grad(&x), args_grad_tape(&x));
    // x₀² x₁.
    assert_agree("gradient", &got.gradient, &[2.0 * x[0] * x[1], x[0] * x[0]]);
}

// ---------------------------------------------------------------------
// Found by probe 16: a vector-valued call iterated where it is made
// (`layer(w, x).iter().map(|v| v.tanh()).sum()`, a helper's body
// `layer(w, x).iter().map(..).collect()`, a model's
// `self.l1.forward(x).iter()..`) kept the tape ("a closure"), and a
// caller of such a helper reran it every call: the call was bound first
// only in a statement with nothing that may write, and a closure may.
// The call a statement evaluates first is bound first whatever follows.
// ---------------------------------------------------------------------

#[differentiable]
fn elementwise(w: &[f64], x: &[f64]) -> Vec<f64> {
    w.iter().zip(x).map(|(a, b)| a * b).collect()
}

#[differentiable]
fn squashed_sum(w: &[f64], x: &[f64]) -> f64 {
    elementwise(w, x).iter().map(|v| v.tanh()).sum()
}

#[differentiable]
fn squashed(w: &[f64], x: &[f64]) -> Vec<f64> {
    elementwise(w, x).iter().map(|v| v.tanh()).collect()
}

#[differentiable]
fn squashed_product(w: &[f64], x: &[f64]) -> f64 {
    let y = squashed(w, x);
    y[0] * y[1]
}

#[test]
fn a_vector_call_iterated_where_it_is_made() {
    let (w, x) = (vec![0.3, -0.2, 0.5], vec![1.0, 0.5, 2.0]);
    assert_eq!(squashed_sum_grad_path(), GradientPath::Compiled);
    assert_eq!(squashed_product_grad_path(), GradientPath::Compiled);
    let before = autodiff::__adjoint::tape_reruns();
    let got = agree(
        "sum",
        squashed_sum_grad(&w, &x),
        squashed_sum_grad_tape(&w, &x),
    );
    let d = |i: usize| 1.0 - (w[i] * x[i]).tanh().powi(2);
    // Σ tanh(wᵢxᵢ).
    assert_agree(
        "w",
        &got.gradient.0,
        &[d(0) * x[0], d(1) * x[1], d(2) * x[2]],
    );
    assert_agree(
        "x",
        &got.gradient.1,
        &[d(0) * w[0], d(1) * w[1], d(2) * w[2]],
    );
    // tanh(w₀x₀)·tanh(w₁x₁).
    let got = agree(
        "product",
        squashed_product_grad(&w, &x),
        squashed_product_grad_tape(&w, &x),
    );
    let t = |i: usize| (w[i] * x[i]).tanh();
    assert_agree(
        "w",
        &got.gradient.0,
        &[d(0) * x[0] * t(1), t(0) * d(1) * x[1], 0.0],
    );
    assert_eq!(autodiff::__adjoint::tape_reruns(), before, "no rerun");
}

/// Random seed 20530: a `zip` closure's `(p, q)` over a tracked array and
/// a constant slice, beside `min_by(|p, q| ..)` over the constant: the
/// recording twin, which reads names, not scopes, took `p` as tracked and
/// `q` not, and `p.partial_cmp(q)` did not build. Both sides of a tracked
/// `zip` are read alike.
#[differentiable]
#[allow(clippy::redundant_slicing)]
fn zipped_beside_a_min(x: &[f64], #[constant] z: &[f64]) -> f64 {
    let m = *z.iter().min_by(|p, q| p.partial_cmp(q).unwrap()).unwrap();
    let a = [x[0], x[1]];
    a.iter().zip(&z[..]).map(|(p, q)| p * q).sum::<f64>() + m
}

#[test]
fn a_zip_closure_beside_a_min_by_of_the_same_names() {
    let (x, z) = ([0.5, 0.2], [0.3, 0.1]);
    assert_eq!(zipped_beside_a_min_grad_path(), GradientPath::Compiled);
    let got = agree(
        "zipped",
        zipped_beside_a_min_grad(&x, &z),
        zipped_beside_a_min_grad_tape(&x, &z),
    );
    assert_agree("gradient", &got.gradient, &z);
}

// ---------------------------------------------------------------------
// Found by probe 17: a `Vec` assigned an `if`, `match` or block value
// whose arms call layers (`h = if c { shrink(&h) } else { grow(&h) };`)
// failed to build (E0308): the value, taken out into a `let`, was swept
// as a number. A `let` of a branch or block whose value is a call's is
// a vector call's binding, as `let h = if c { f(x) } else { g(x) };` was.
// A vector chosen by a branch from other values (`if c { x[1..].to_vec()
// } else { x.to_vec() }`), whose arms' lengths may differ, keeps the tape.
// ---------------------------------------------------------------------

#[differentiable]
fn pairwise(h: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..h.len() - 1 {
        out.push(h[i] * h[i + 1] + h[i]);
    }
    out
}

#[differentiable]
fn branch_chosen_layers(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    h = if h[0] > 0.0 {
        pairwise(&h)
    } else {
        widen_again(&h)
    };
    h = {
        let t = pairwise(&h);
        widen_again(&t)
    };
    h[0] + h[h.len() - 1]
}

#[differentiable]
fn widen_again(h: &[f64]) -> Vec<f64> {
    let mut out = h.to_vec();
    out.push(h[0] * h[h.len() - 1]);
    out
}

#[differentiable]
fn branch_chosen_copies(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    let first = h[0];
    h = if first > 0.0 {
        x[1..].to_vec()
    } else {
        x.to_vec()
    };
    h[0] * h[h.len() - 1]
}

fn pairwise_dual(h: &[crate::oracle::Dual]) -> Vec<crate::oracle::Dual> {
    (0..h.len() - 1).map(|i| h[i] * h[i + 1] + h[i]).collect()
}

fn widen_again_dual(h: &[crate::oracle::Dual]) -> Vec<crate::oracle::Dual> {
    let mut out = h.to_vec();
    out.push(h[0] * h[h.len() - 1]);
    out
}

#[test]
fn a_vec_assigned_a_branch_of_layers() {
    assert_eq!(branch_chosen_layers_grad_path(), GradientPath::Compiled);
    // Each arm's copy, of its own length, bound by a `let` of the top
    // level the adjoint shapes when the reverse starts.
    assert_eq!(branch_chosen_copies_grad_path(), GradientPath::Compiled);
    for x in [[0.5, 0.2, 0.3], [-0.5, 0.2, 0.3]] {
        let got = agree(
            "layers",
            branch_chosen_layers_grad(&x),
            branch_chosen_layers_grad_tape(&x),
        );
        let want = crate::oracle::dual_gradient(&x, |p| {
            let h = if p[0].value > 0.0 {
                pairwise_dual(p)
            } else {
                widen_again_dual(p)
            };
            let h = widen_again_dual(&pairwise_dual(&h));
            h[0] + h[h.len() - 1]
        });
        assert_agree("layers", &got.gradient, &want);
        let got = agree(
            "copies",
            branch_chosen_copies_grad(&x),
            branch_chosen_copies_grad_tape(&x),
        );
        let want = if x[0] > 0.0 {
            [0.0, x[2], x[1]]
        } else {
            [x[2], 0.0, x[0]]
        };
        assert_agree("copies", &got.gradient, &want);
    }
}

// ---------------------------------------------------------------------
// Found by probe 16: `for (i, v) in x.into_iter().enumerate()` over a
// `Vec` parameter kept the tape ("a `for` over .enumerate()"): only
// `iter()` and the bare name were read as the items of a place.
// `into_iter()` walks what `for v in x` walks: a `Vec`'s items copied (the
// forward borrows it, as for `for v in x`), a slice's by reference, an
// array's by value.
// ---------------------------------------------------------------------

#[differentiable]
#[allow(clippy::into_iter_on_ref)]
fn walked_into(x: Vec<f64>, y: &[f64]) -> f64 {
    let mut s = 0.0;
    for (i, v) in x.into_iter().enumerate() {
        s += v * v * (i as f64 + 1.0);
    }
    for t in y.into_iter() {
        s += t * 3.0;
    }
    let a = [y[0], y[1] * 2.0];
    for (k, u) in a.into_iter().enumerate() {
        s += u * u * k as f64;
    }
    s
}

#[test]
fn a_for_over_into_iter() {
    let (x, y) = (vec![0.5, -0.3], [0.2, 0.7]);
    assert_eq!(walked_into_grad_path(), GradientPath::Compiled);
    let got = agree(
        "into_iter",
        walked_into_grad(x.clone(), &y),
        walked_into_grad_tape(x.clone(), &y),
    );
    // Σ (i + 1) xᵢ² + 3 Σ y + 4y₁².
    assert_agree("x", &got.gradient.0, &[2.0 * x[0], 4.0 * x[1]]);
    assert_agree("y", &got.gradient.1, &[3.0, 3.0 + 8.0 * y[1]]);
}

// ---------------------------------------------------------------------
// Found by probe 18: ADBench's LSTM objective counts its predictions
// (`count += ypred.len()`), which kept the tape: a statement that reads a
// tracked `Vec` was taken to carry a derivative even where it reads only
// its length.
// ---------------------------------------------------------------------

#[differentiable]
fn counted_mean(x: &[f64]) -> f64 {
    let mut count = 0;
    let mut total = 0.0;
    for _ in 0..2 {
        let y: Vec<f64> = x.iter().map(|v| v * v).collect();
        total += y[0] + y[1];
        count += y.len();
        if y.is_empty() {
            count += 1;
        }
    }
    count += x.len();
    total / count as f64
}

#[test]
fn a_count_of_a_tracked_vecs_length() {
    assert_eq!(counted_mean_grad_path(), GradientPath::Compiled);
    let x = [0.5, -1.5, 2.0];
    let got = agree("counted", counted_mean_grad(&x), counted_mean_grad_tape(&x));
    // 2(x₀² + x₁²) / 3n.
    let n = 3.0 * x.len() as f64;
    assert_agree(
        "counted",
        &got.gradient,
        &[4.0 * x[0] / n, 4.0 * x[1] / n, 0.0],
    );
}

// ---------------------------------------------------------------------
// Found by the random programs (seed 20542 f14_11): a helper's value
// pushed onto an empty `Vec` in a body with `return` kept the tape
// (whether the helper returns a number or a vector is not known there),
// though the body adds the `Vec`'s items as numbers (`.. + v[1]`).
// ---------------------------------------------------------------------

#[differentiable]
fn doubled_sine(x: f64) -> f64 {
    x.sin() * 2.0
}

#[differentiable]
fn pushed_then_returned(x0: f64, b: f64) -> f64 {
    let mut v = vec![];
    for _ in 0..2 {
        v.push(doubled_sine(2.0 * (x0 * x0).sin()));
    }
    v.push(doubled_sine(b) * 3.0);
    v.reverse();
    if b >= 0.5 {
        return (b * 0.25).min(doubled_sine(-0.9));
    }
    b * b + v[1] + v[0].exp()
}

#[test]
fn a_helper_pushed_in_a_body_with_return() {
    assert_eq!(pushed_then_returned_grad_path(), GradientPath::Compiled);
    let (x0, b) = (0.3_f64, 0.2_f64);
    let got = agree(
        "pushed",
        pushed_then_returned_grad(x0, b),
        pushed_then_returned_grad_tape(x0, b),
    );
    // b² + h(s) + exp(3h(b)) with h = 2 sin, s = 2 sin x₀².
    let s = 2.0 * (x0 * x0).sin();
    let dx0 = 2.0 * s.cos() * 2.0 * (x0 * x0).cos() * 2.0 * x0;
    let db = 2.0 * b + (6.0 * b.sin()).exp() * 6.0 * b.cos();
    assert_agree("pushed", &[got.gradient.0, got.gradient.1], &[dx0, db]);
    let got = agree(
        "returned",
        pushed_then_returned_grad(x0, 0.7),
        pushed_then_returned_grad_tape(x0, 0.7),
    );
    assert_agree("returned", &[got.gradient.0, got.gradient.1], &[0.0, 0.0]);
}

// ---------------------------------------------------------------------
// Names the generated adjoint uses for itself (`value` for the output,
// `value_bar` for its seed), written by a student as a binding or a
// parameter: found by probe 23, where `let value = x * x;` made the
// binding's adjoint shadow the seed and `f_grad` returned 0 as `Ok`.
// ---------------------------------------------------------------------

#[differentiable]
fn output_named_value(x: f64) -> f64 {
    let value = x * x;
    value * 2.0
}

#[differentiable]
fn parameter_named_value(x: f64, value: f64) -> f64 {
    value * x.exp()
}

#[differentiable]
fn value_in_a_branch(x: f64) -> f64 {
    if x > 0.0 {
        let value = x * 3.0;
        return value * value;
    }
    x
}

#[differentiable]
fn values_destructured(x: &[f64]) -> f64 {
    let (value, other) = (x[0] * x[1], x[1]);
    value + other * value
}

#[differentiable]
fn scaled_by_value(x: &[f64], value: &[f64]) -> Vec<f64> {
    vec![x[0] * value[0], x[1] + value[0].tanh()]
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn calls_with_value(x: &[f64]) -> f64 {
    let value = scaled_by_value(x, x);
    let mut s = value[0] + value[1];
    for i in 0..x.len() {
        s += output_named_value(x[i]) + parameter_named_value(x[i], value[1]);
    }
    s
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct ValueScorer {
    w: Vec<f64>,
}

#[differentiable]
#[allow(clippy::needless_range_loop)]
impl ValueScorer {
    fn score(&self, #[constant] x: &[f64]) -> f64 {
        let mut value = 0.0;
        for i in 0..x.len() {
            value += self.w[i] * x[i];
        }
        value.tanh()
    }
}

#[test]
fn a_binding_or_parameter_named_value_keeps_its_gradient() -> Result<(), ScalarAutodiffError> {
    use crate::oracle::{dual_gradient, Dual};
    let x = 0.7;
    // d(2x²) = 4x; d(v eˣ) = (v eˣ, eˣ); d(9x²) = 18x.
    let g = output_named_value_grad(x)?;
    assert_eq!(output_named_value_grad_path(), GradientPath::Compiled);
    assert_agree("output_named_value", &[g.gradient], &[4.0 * x]);
    let g = parameter_named_value_grad(x, 2.0)?;
    assert_agree(
        "parameter_named_value",
        &[g.gradient.0, g.gradient.1],
        &[2.0 * x.exp(), x.exp()],
    );
    let h = parameter_named_value_hvp(x, 2.0, (1.0, 0.0))?;
    assert_agree(
        "parameter_named_value hvp",
        &[h.hvp.0, h.hvp.1],
        &[2.0 * x.exp(), x.exp()],
    );
    let g = value_in_a_branch_grad(x)?;
    assert_agree("value_in_a_branch", &[g.gradient], &[18.0 * x]);
    let point = [0.7, -0.4];
    let g = agree(
        "values_destructured",
        values_destructured_grad(&point),
        values_destructured_grad_tape(&point),
    );
    let want = dual_gradient(&point, |v| {
        let value = v[0] * v[1];
        value + v[1] * value
    });
    assert_agree("values_destructured", &g.gradient, &want);
    // A vector-valued helper with a parameter named `value`, called by a
    // loss that binds `value` and calls the two helpers above.
    let vjp = scaled_by_value_vjp(&point, &point, vec![1.0, 2.0])?;
    let want = dual_gradient(&[0.7, -0.4, 0.7, -0.4], |v| {
        v[0] * v[2] + (v[1] + v[2].tanh()) * Dual::constant(2.0)
    });
    assert_agree(
        "scaled_by_value vjp",
        &[vjp.gradient.0, vjp.gradient.1].concat(),
        &want,
    );
    let g = agree(
        "calls_with_value",
        calls_with_value_grad(&point),
        calls_with_value_grad_tape(&point),
    );
    assert_eq!(calls_with_value_grad_path(), GradientPath::Compiled);
    let want = dual_gradient(&point, |v| {
        let value = [v[0] * v[0], v[1] + v[0].tanh()];
        let mut s = value[0] + value[1];
        for &xi in v {
            s = s + Dual::constant(2.0) * xi * xi + value[1] * xi.exp();
        }
        s
    });
    assert_agree("calls_with_value", &g.gradient, &want);
    // A model's method accumulating into `value`.
    let m = ValueScorer { w: vec![0.3, -0.2] };
    let x = [1.0, 2.0];
    let g = m.score_grad(&x)?;
    let t = m.score_grad_tape(&x)?;
    let s = 1.0 - (0.3f64 - 0.4).tanh().powi(2);
    assert_agree("Scorer::score", &g.gradient.w, &[s * 1.0, s * 2.0]);
    assert_agree("Scorer::score tape", &t.gradient.w, &[s * 1.0, s * 2.0]);
    Ok(())
}

// ---------------------------------------------------------------------
// A `Vec` each arm of an `if` or a `match` gives, with lengths of their
// own (`let h = if flag { x.to_vec() } else { vec![..] };`), at the top
// of a body: its adjoint is shaped like the binding when the reverse
// starts (probe 23 found it kept the tape: "a vector chosen by a
// branch"). Moved into another binding after, it keeps the tape.
// ---------------------------------------------------------------------

#[differentiable]
#[allow(clippy::needless_range_loop)]
fn vector_chosen(x: &[f64], #[constant] flag: bool) -> f64 {
    let h = if flag {
        x.to_vec()
    } else {
        vec![x[0] * 2.0, x[1].sin(), x[0] * x[1]]
    };
    let mut s = 0.0;
    for i in 0..h.len() {
        s += h[i] * h[i] * (i as f64 + 1.0);
    }
    s
}

#[differentiable]
fn vector_chosen_by_match(x: &[f64], #[constant] k: usize) -> f64 {
    let h = match k {
        0 => vec![x[0].exp()],
        1 => x.to_vec(),
        _ => vec![x[1], x[0] * x[1], x[0]],
    };
    let mut s = h[0];
    for v in h {
        s += v * v;
    }
    s
}

#[differentiable]
fn vector_chosen_then_moved(x: &[f64], #[constant] flag: bool) -> f64 {
    let h = if flag {
        x.to_vec()
    } else {
        vec![x[0] * 2.0, x[1].sin(), x[0] * x[1]]
    };
    let y = h;
    y[0] * y[1]
}

#[test]
fn a_vector_chosen_by_a_branch_compiles() {
    use crate::oracle::{dual_gradient, Dual};
    let x = [0.5, -0.7];
    assert_eq!(vector_chosen_grad_path(), GradientPath::Compiled);
    assert_eq!(vector_chosen_by_match_grad_path(), GradientPath::Compiled);
    assert!(matches!(
        vector_chosen_then_moved_grad_path(),
        GradientPath::Tape { construct, .. } if construct.contains("chosen by a branch")
    ));
    for flag in [true, false] {
        let got = agree(
            "vector_chosen",
            vector_chosen_grad(&x, flag),
            vector_chosen_grad_tape(&x, flag),
        );
        let want = dual_gradient(&x, |v| {
            let h = if flag {
                v.to_vec()
            } else {
                vec![v[0] * Dual::constant(2.0), v[1].sin(), v[0] * v[1]]
            };
            h.iter().enumerate().fold(Dual::constant(0.0), |s, (i, t)| {
                s + *t * *t * Dual::constant(i as f64 + 1.0)
            })
        });
        assert_agree("vector_chosen", &got.gradient, &want);
        let moved = vector_chosen_then_moved_grad(&x, flag).unwrap();
        let want = dual_gradient(&x, |v| {
            if flag {
                v[0] * v[1]
            } else {
                v[0] * Dual::constant(2.0) * v[1].sin()
            }
        });
        assert_agree("vector_chosen_then_moved", &moved.gradient, &want);
    }
    for k in 0..3 {
        let got = agree(
            "vector_chosen_by_match",
            vector_chosen_by_match_grad(&x, k),
            vector_chosen_by_match_grad_tape(&x, k),
        );
        let want = dual_gradient(&x, |v| {
            let h = match k {
                0 => vec![v[0].exp()],
                1 => v.to_vec(),
                _ => vec![v[1], v[0] * v[1], v[0]],
            };
            h.iter().fold(h[0], |s, t| s + *t * *t)
        });
        assert_agree("vector_chosen_by_match", &got.gradient, &want);
        // Its second order, against the tape's.
        let hvp = vector_chosen_by_match_hvp(&x, k, vec![1.0, -0.5]).unwrap();
        let h = 1e-6;
        let up = vector_chosen_by_match_grad(&[x[0] + h, x[1] - 0.5 * h], k).unwrap();
        let down = vector_chosen_by_match_grad(&[x[0] - h, x[1] + 0.5 * h], k).unwrap();
        for j in 0..2 {
            let fd = (up.gradient[j] - down.gradient[j]) / (2.0 * h);
            assert!(
                (hvp.hvp[j] - fd).abs() < 1e-6,
                "hvp {j}: {} vs {fd}",
                hvp.hvp[j]
            );
        }
    }
}
