//! Integers (and an `f32`) passed to annotated helpers as literals or as
//! bindings nothing else types: `scaled(x, 2)` for `n: usize`,
//! `let t = 1; cross_entropy(z, t)`. The plain function types them by the
//! callee's parameter; the compiled adjoint passes its arguments through a
//! generic conversion, where a second way to convert an integer once made
//! Rust fall back to `i32` and convert it to the parameter's type as 0:
//! `f_grad` returned the value and gradient of `scaled(x, 0)` with no
//! error.
//!
//! Oracles: closed forms, and the tape. Every caller is checked to take
//! the compiled path.

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree};

#[differentiable]
fn scaled(x: f64, n: usize) -> f64 {
    x * n as f64
}

#[differentiable]
fn mixed(x: f64, k: u32, m: i64, b: u8) -> f64 {
    x * x * k as f64 + x * m as f64 + b as f64
}

#[differentiable]
fn literals(x: f64) -> f64 {
    scaled(x, 2) + mixed(x, 3, -4, 5)
}

#[test]
fn integer_literals_reach_the_helper_as_written() {
    assert_eq!(literals_grad_path(), GradientPath::Compiled);
    let x = 1.5;
    let got = agree("literals", literals_grad(x), literals_grad_tape(x));
    // 2x + 3x² − 4x + 5, and its derivative.
    assert_agree(
        "literals",
        &[got.value],
        &[2.0 * x + 3.0 * x * x - 4.0 * x + 5.0],
    );
    assert_agree("literals", &[got.gradient], &[2.0 + 6.0 * x - 4.0]);
}

/// `−ln softmax(z)[target]`, called with a `usize` from an untyped `let`.
#[differentiable]
fn softmax(z: &[f64]) -> Vec<f64> {
    let m = z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

#[differentiable]
fn cross_entropy(z: &[f64], #[constant] target: usize) -> f64 {
    let p = softmax(z);
    -p[target].ln()
}

#[differentiable]
fn loss_of_class_one(z: &[f64]) -> f64 {
    let t = 1;
    cross_entropy(z, t) + cross_entropy(z, 2)
}

#[test]
fn an_untyped_binding_and_a_literal_pick_the_class_they_name() {
    assert_eq!(loss_of_class_one_grad_path(), GradientPath::Compiled);
    let z = vec![0.3, -1.2, 0.8, 2.0];
    let got = agree(
        "loss_of_class_one",
        loss_of_class_one_grad(&z),
        loss_of_class_one_grad_tape(&z),
    );
    // Each term's gradient is p − e_target.
    let total: f64 = z.iter().map(|v| v.exp()).sum();
    let p: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
    let want: Vec<f64> = (0..4)
        .map(|i| 2.0 * p[i] - f64::from(u8::from(i == 1)) - f64::from(u8::from(i == 2)))
        .collect();
    assert_agree("loss_of_class_one", &got.gradient, &want);
    assert_agree("loss_of_class_one", &[got.value], &[-p[1].ln() - p[2].ln()]);
}

/// A vector-valued helper and a model's method taking an index.
#[differentiable]
fn scaled_rows(v: &[f64], n: usize) -> Vec<f64> {
    v.iter().map(|x| x * n as f64).collect()
}

#[derive(Clone, Debug, Parameters)]
struct Gains {
    g: Vec<f64>,
}

#[differentiable]
impl Gains {
    fn nth(&self, x: f64, k: usize) -> f64 {
        self.g[k] * x
    }
}

#[differentiable]
fn indexed(gains: &Gains, v: &[f64]) -> f64 {
    let r = scaled_rows(v, 3);
    gains.nth(r[0], 1) + gains.nth(r[1], 0)
}

#[test]
fn a_vector_helper_and_a_method_take_their_index_literals() {
    assert_eq!(indexed_grad_path(), GradientPath::Compiled);
    let gains = Gains {
        g: vec![0.5, -2.0, 4.0],
    };
    let v = vec![1.5, -0.25];
    // g₁·3v₀ + g₀·3v₁.
    let value = -2.0 * 3.0 * 1.5 + 0.5 * 3.0 * -0.25;
    let want = [3.0 * -0.25, 3.0 * 1.5, 0.0, 3.0 * -2.0, 3.0 * 0.5];
    for got in [
        indexed_grad(&gains, &v).expect("compiled"),
        indexed_grad_tape(&gains, &v).expect("tape"),
    ] {
        assert_agree("indexed", &[got.value], &[value]);
        let (g, v_bar) = &got.gradient;
        assert_agree("indexed", &[g.g.clone(), v_bar.clone()].concat(), &want);
    }
}

/// A float literal for an `f32` parameter: the callee sees `0.1_f32`, as
/// the plain function does.
#[differentiable]
fn scaled32(x: f64, #[constant] s: f32) -> f64 {
    x * x * f64::from(s)
}

#[differentiable]
fn with_f32(x: f64) -> f64 {
    scaled32(x, 0.1)
}

#[test]
fn a_float_literal_for_an_f32_parameter_is_that_f32() {
    assert_eq!(with_f32_grad_path(), GradientPath::Compiled);
    let x = 1.5;
    let got = agree("with_f32", with_f32_grad(x), with_f32_grad_tape(x));
    let s = f64::from(0.1_f32);
    assert_eq!(got.value, x * x * s);
    assert_eq!(got.gradient, 2.0 * x * s);
}

/// An index chosen by a branch on tracked values, its type inferred only
/// from the indexing after `%` (found by probing: the recording twin's
/// probe of `k` asked for a trait of `usize` it did not have, E0277).
#[differentiable]
fn chosen_index(x: &[f64]) -> f64 {
    let k = if x[0] > x[1] { 0 } else { 1 };
    let j = (k + 1) % 2;
    x[k] * 3.0 + x[j] * x[j]
}

#[test]
fn an_integer_chosen_by_a_tracked_branch_builds_and_indexes() {
    assert_eq!(chosen_index_grad_path(), GradientPath::Compiled);
    for (x, want) in [([0.9, 0.2], [3.0, 0.4]), ([0.1, 0.7], [0.2, 3.0])] {
        let got = agree(
            "chosen_index",
            chosen_index_grad(&x),
            chosen_index_grad_tape(&x),
        );
        assert_agree("chosen_index", &got.gradient, &want);
    }
}

/// Data with no number in it (token ids, index pairs, a mask, a name)
/// passes through unannotated, as an integer parameter does: a bigram
/// model's loss as a student first writes it, `tokens: &[usize]`.
#[differentiable]
fn bigram_nll(logits: &[Vec<f64>], tokens: &[usize], mask: [bool; 3], name: &str) -> f64 {
    assert!(!name.is_empty());
    let mut loss = 0.0;
    for (k, pair) in tokens.windows(2).enumerate() {
        if mask[k % 3] {
            let row = &logits[pair[0]];
            let total: f64 = row.iter().map(|v| v.exp()).sum();
            loss += total.ln() - row[pair[1]];
        }
    }
    loss
}

#[differentiable]
fn pair_sums(x: &[f64], pairs: &[(usize, usize)], order: Vec<usize>) -> f64 {
    let mut s = 0.0;
    for &(i, j) in pairs {
        s += x[i] * x[j];
    }
    for k in order {
        s += x[k];
    }
    s
}

#[differentiable]
fn through_callers(logits: &[Vec<f64>], x: &[f64]) -> f64 {
    let tokens = vec![0, 2, 1, 1];
    bigram_nll(logits, &tokens, [true, false, true], "train")
        + pair_sums(x, &[(0, 1), (1, 1)], vec![2, 0])
}

#[test]
fn data_with_no_number_in_it_passes_through_unannotated() {
    assert_eq!(bigram_nll_grad_path(), GradientPath::Compiled);
    assert_eq!(pair_sums_grad_path(), GradientPath::Compiled);
    assert_eq!(through_callers_grad_path(), GradientPath::Compiled);
    let logits = vec![
        vec![0.3, -0.4, 1.1],
        vec![0.0, 0.7, -0.2],
        vec![-1.0, 0.5, 0.25],
    ];
    let tokens = [0, 2, 1, 1];
    let mask = [true, false, true];
    let got = agree(
        "bigram_nll",
        bigram_nll_grad(&logits, &tokens, mask, "train"),
        bigram_nll_grad_tape(&logits, &tokens, mask, "train"),
    );
    // Pairs (0→2) at k = 0 and (1→1) at k = 2 count; (2→1) at k = 1 is
    // masked. Each counted row's gradient is softmax(row) − e_next.
    let softmax = |row: &[f64]| {
        let total: f64 = row.iter().map(|v| v.exp()).sum();
        row.iter().map(|v| v.exp() / total).collect::<Vec<f64>>()
    };
    let mut want = vec![vec![0.0; 3]; 3];
    let mut value = 0.0;
    for (row, next) in [(0, 2), (1, 1)] {
        let p = softmax(&logits[row]);
        value -= p[next].ln();
        for c in 0..3 {
            want[row][c] += p[c] - if c == next { 1.0 } else { 0.0 };
        }
    }
    assert_agree("bigram_nll", &[got.value], &[value]);
    assert_agree("bigram_nll", &got.gradient.concat(), &want.concat());

    let x = vec![0.5, -1.5, 2.0];
    let got = agree(
        "pair_sums",
        pair_sums_grad(&x, &[(0, 1), (1, 1)], vec![2, 0]),
        pair_sums_grad_tape(&x, &[(0, 1), (1, 1)], vec![2, 0]),
    );
    // x₀x₁ + x₁² + x₂ + x₀.
    assert_agree(
        "pair_sums",
        &got.gradient,
        &[x[1] + 1.0, x[0] + 2.0 * x[1], 1.0],
    );

    let got = agree(
        "through_callers",
        through_callers_grad(&logits, &x),
        through_callers_grad_tape(&logits, &x),
    );
    let (logits_bar, x_bar) = got.gradient;
    assert_agree("through_callers", &logits_bar.concat(), &want.concat());
    assert_agree(
        "through_callers",
        &x_bar,
        &[x[1] + 1.0, x[0] + 2.0 * x[1], 1.0],
    );
}
