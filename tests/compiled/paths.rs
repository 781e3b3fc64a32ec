//! The compiled adjoint (`f_grad`) against the tape (`f_grad_tape`) on
//! lesson 15's exercises and on functions written to exercise each
//! construct it compiles, at several random points; against central
//! differences (`f_check`, which calls `f_grad`); and what it saves.
//!
//! Agreement bound: both paths are exact reverse mode over the same
//! operations, but they add each adjoint's contributions in different
//! orders (the tape edge by edge, the adjoint statement by statement), and
//! `tanh` reads `1 − tanh²` where the tape computes `1/cosh²`. Each adjoint
//! here is a sum of at most a few dozen terms of magnitude ≲ 10, so the two
//! differ by a few ulps times the condition of those sums, below 1e-13 of
//! the largest gradient component; the bound `AGREE` = 1e-12 leaves a
//! margin of ~10× over that and is still 10⁹ times smaller than any wrong
//! derivative rule would make the difference.

// Index loops on purpose: they are the constructs under test.
#![allow(clippy::needless_range_loop)]

use crate::xorshift;

use autodiff::__adjoint::{with_stack, Stack};

use crate::exercises;
use autodiff::prelude::*;

use super::support::agree;

fn array<const N: usize>(rng: &mut xorshift::Rng, scale: f64) -> [f64; N] {
    std::array::from_fn(|_| rng.uniform(scale))
}

fn matrix<const R: usize, const C: usize>(rng: &mut xorshift::Rng, scale: f64) -> [[f64; C]; R] {
    std::array::from_fn(|_| array(rng, scale))
}

const POINTS: usize = 6;

#[test]
fn lesson_15_exercises_agree_with_the_tape() {
    let mut rng = xorshift::Rng(0x9E37_79B9_7F4A_7C15);
    for _ in 0..POINTS {
        let (w1, w2, x) = (
            matrix(&mut rng, 1.0),
            array(&mut rng, 1.0),
            array(&mut rng, 1.0),
        );
        let t = rng.uniform(1.0);
        agree(
            "mlp_loss",
            exercises::mlp_loss_grad(w1, w2, x, t),
            exercises::mlp_loss_grad_tape(w1, w2, x, t),
        );
        assert!(exercises::mlp_loss_check(w1, w2, x, t).unwrap().passed());

        let (w, b, x, y_bar) = (
            matrix(&mut rng, 1.0),
            array(&mut rng, 1.0),
            array(&mut rng, 1.0),
            array(&mut rng, 1.0),
        );
        agree(
            "linear_probe",
            exercises::linear_probe_grad(w, b, x, y_bar),
            exercises::linear_probe_grad_tape(w, b, x, y_bar),
        );
        let (xb, yb) = (matrix(&mut rng, 1.0), matrix(&mut rng, 1.0));
        agree(
            "batch_probe",
            exercises::batch_probe_grad(w, b, xb, yb),
            exercises::batch_probe_grad_tape(w, b, xb, yb),
        );

        let z = array(&mut rng, 3.0);
        for target in 0..4 {
            agree(
                "cross_entropy",
                exercises::cross_entropy_grad(z, target),
                exercises::cross_entropy_grad_tape(z, target),
            );
        }
        assert!(exercises::cross_entropy_check(z, 2).unwrap().passed());

        let (xa, wq, wk, wv, o_bar) = (
            matrix(&mut rng, 1.0),
            matrix(&mut rng, 1.0),
            matrix(&mut rng, 1.0),
            matrix(&mut rng, 1.0),
            matrix(&mut rng, 1.0),
        );
        agree(
            "attention_probe",
            exercises::attention_probe_grad(xa, wq, wk, wv, o_bar),
            exercises::attention_probe_grad_tape(xa, wq, wk, wv, o_bar),
        );
        assert!(exercises::attention_probe_check(xa, wq, wk, wv, o_bar)
            .unwrap()
            .passed());
        let (q, k, v) = (
            matrix(&mut rng, 1.0),
            matrix(&mut rng, 1.0),
            matrix(&mut rng, 1.0),
        );
        agree(
            "attention_from_qkv",
            exercises::attention_from_qkv_grad(q, k, v, o_bar),
            exercises::attention_from_qkv_grad_tape(q, k, v, o_bar),
        );

        let width = exercises::WIDTH;
        let h: Vec<f64> = (0..width).map(|_| rng.uniform(1.0)).collect();
        let g: Vec<f64> = (0..width).map(|_| rng.uniform(1.0)).collect();
        let layers: Vec<Vec<Vec<f64>>> = (0..3)
            .map(|_| {
                (0..width)
                    .map(|_| (0..width).map(|_| rng.uniform(0.3)).collect())
                    .collect()
            })
            .collect();
        for residual in [false, true] {
            agree(
                "stack_readout",
                exercises::stack_readout_grad(h.clone(), &layers, residual, &g),
                exercises::stack_readout_grad_tape(h.clone(), &layers, residual, &g),
            );
        }
    }
}

#[test]
fn the_lesson_mlp_saves_only_its_tanh_inputs_and_outputs() {
    let (w1, w2, x, t) = exercises::mlp_setup();
    let mut stack = Stack::new();
    let result = exercises::mlp_loss_adjoint(&mut stack, w1, w2, x, t).expect("finite");
    assert_eq!(result.value, exercises::mlp_loss(w1, w2, x, t));
    // Three hidden units, two pushes each (`z` for tanh's derivative,
    // `z_tanh` for `w2_bar`): Vec's allocations go 4, 8. The reverse of
    // `z`'s sum, run with its loops swapped, keeps the list of the three
    // `z_bar`s (`Stack::sums`), in Vec's smallest allocation, 4.
    assert!(stack.is_empty());
    assert_eq!(stack.capacity_bytes(), (8 + 4) * size_of::<f64>());
    // The thread's stack after a gradient holds nothing either.
    exercises::mlp_loss_grad(w1, w2, x, t).unwrap();
    assert!(with_stack(|stack| stack.is_empty()));
}

// ---------------------------------------------------------------------------
// One function per construct.
// ---------------------------------------------------------------------------

/// Overwrites read by their own derivative: the old `y` is saved.
#[differentiable]
fn chain(x: f64, steps: usize) -> f64 {
    let mut y = x;
    for _ in 0..steps {
        y = y * (1.5 - y) * 0.5 + x;
    }
    y
}

/// `*=`, `/=`, `-=`, shadowing and a branch on a value that changes.
#[differentiable]
fn compounds(x: f64, y: f64) -> f64 {
    let mut a = x + 1.0;
    a *= y;
    a /= 1.0 + x * x;
    a -= y.sin();
    let a = a * a;
    let b = if a > 0.5 { a.sqrt() } else { a * 3.0 };
    let mut c = b;
    if c < 1.0 {
        c *= x;
    } else {
        c = c / y + x;
    }
    c + a
}

/// Element loops, `enumerate`, a reversed range, nested arrays, `sum`.
#[differentiable]
fn loops(w: [[f64; 3]; 2], v: &[f64], #[constant] k: usize) -> f64 {
    let mut total = 0.0;
    for row in w.iter() {
        for &a in row.iter() {
            total += a * a;
        }
    }
    for (i, x) in v.iter().enumerate() {
        total += x * (i as f64 + 1.0);
    }
    let mut acc = [0.0; 3];
    for j in (0..3).rev() {
        acc[j] = w[0][j] * w[1][j] + acc[(j + 1) % 3];
    }
    for i in 0..v.len() {
        total += v[i].exp() * acc[i % 3];
    }
    total + v.iter().sum::<f64>() * k as f64
}

/// A helper that `calls` calls: their adjoints call each other.
#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

#[differentiable]
fn calls(x: &[f64], w: [f64; 2]) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        total += softplus(x[i] * w[0]) + w[1] * softplus(x[i]);
    }
    total + softplus(total * 0.1) + pair(w, 2.0)
}

#[differentiable]
fn pair(w: [f64; 2], #[constant] s: f64) -> f64 {
    w[0].max(w[1]) * s + w[0].min(w[1]).abs() + (w[1] * w[1] + 1.0).powf(w[0])
}

/// A local `Vec` and whole-array assignment, as lesson 15's stacks.
#[differentiable]
fn layers(h: Vec<f64>, #[constant] m: &[[f64; 3]; 3]) -> f64 {
    let mut state = h.clone();
    for _ in 0..2 {
        let mut next = vec![0.0; 3];
        for j in 0..3 {
            for i in 0..3 {
                next[j] += state[i] * m[i][j];
            }
            next[j] = next[j].tanh();
        }
        state = next;
    }
    state[0] * state[1] + state[2]
}

/// `while` on a value that changes, `match` on an integer and on an
/// `Option` with guards, as a statement and as a value.
#[differentiable]
fn branches(x: f64, kind: u8, #[constant] eps: Option<f64>) -> f64 {
    let mut v = x * x + 1.0;
    let mut count = 0;
    while v > 0.5 {
        v = v.sqrt() * 0.7;
        count += 1;
    }
    let mut total = v * count as f64;
    match kind {
        0 => total += x.tanh(),
        1 => total -= sigmoid(x),
        _ => {
            total *= x;
        }
    }
    let clipped = match eps {
        Some(e) if x > 1.0 + e => (1.0 + e) * total,
        Some(e) if x < 1.0 - e => (1.0 - e) * total * x,
        _ => total * x,
    };
    clipped + v
}

/// `push` into a local `Vec`, a block value, `+=` of an `if`, `*item`,
/// a shadowed parameter and an integer bound that shadows its parameter.
#[differentiable]
fn collected(z: &[f64], k: usize) -> f64 {
    let k = k.min(z.len());
    let mut m = z[0];
    for v in z.iter() {
        m = m.max(*v);
    }
    let mut exps = Vec::new();
    for i in 0..k {
        exps.push((z[i] - m).exp());
    }
    let mut total = 0.0;
    for i in 0..k {
        total += if exps[i] > 0.5 {
            exps[i]
        } else {
            exps[i] * exps[i]
        };
    }
    let inner = {
        let t = total * 2.0;
        t + m
    };
    let m = inner.ln();
    m * exps[0]
}

/// `break` and `continue` in `for` over a range and over items, and in
/// `while`, inside branches on values that change.
#[differentiable]
fn jumps(x: &[f64], #[constant] limit: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        if x[i] < -0.5 {
            continue;
        }
        total += x[i] * x[i];
        if total > limit {
            break;
        }
        total *= 1.1;
    }
    let mut product = 1.0;
    for v in x.iter() {
        product *= v.tanh() + 1.5;
        if product > 2.0 * limit {
            total += product;
            break;
        }
    }
    let mut scale = total + 1.0;
    let mut steps = 0;
    while scale > 1.0 {
        steps += 1;
        if steps % 2 == 0 {
            scale *= 0.9;
            continue;
        }
        scale = scale.sqrt() * 0.8;
        if steps == 5 {
            break;
        }
    }
    scale * total + product
}

/// Early `return`s: at the top level, from inside a branch of a loop, and
/// from a nested loop; a `while` with `break` after them.
#[differentiable]
fn returns(x: &[f64], #[constant] limit: f64) -> f64 {
    if x[0] > 1.2 {
        return x[0] * x[0];
    }
    let mut total = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            total += x[i] * x[i];
        } else {
            total += softplus(x[i]);
        }
        for j in 0..i {
            if x[j] * x[i] > limit {
                return total.sqrt() * x[j];
            }
        }
        if total > limit {
            return total.sqrt();
        }
    }
    let mut scale = total;
    let mut steps = 0;
    while scale > 1.0 {
        scale = scale.sqrt() * 0.9;
        steps += 1;
        if steps == 3 {
            break;
        }
        scale += 0.01 * total;
    }
    scale * total
}

#[test]
fn each_construct_agrees_with_the_tape_and_central_differences() {
    // Each of them is compiled: a function that keeps the tape has no
    // `_adjoint`, and this would not build.
    let _compiled = (
        chain_adjoint,
        compounds_adjoint,
        loops_adjoint,
        calls_adjoint,
        pair_adjoint,
        layers_adjoint,
        branches_adjoint,
        collected_adjoint,
        jumps_adjoint,
        returns_adjoint,
    );
    let mut rng = xorshift::Rng(0x2545_F491_4F6C_DD1D);
    for _ in 0..POINTS {
        let x = 0.5 + rng.uniform(0.4);
        for steps in [0, 1, 7, 100] {
            agree("chain", chain_grad(x, steps), chain_grad_tape(x, steps));
        }
        let (a, b) = (rng.uniform(2.0), rng.uniform(2.0) + 3.0);
        agree("compounds", compounds_grad(a, b), compounds_grad_tape(a, b));
        assert!(compounds_check(a, b).unwrap().passed());

        let w: [[f64; 3]; 2] = matrix(&mut rng, 1.0);
        let v: Vec<f64> = (0..5).map(|_| rng.uniform(1.0)).collect();
        agree("loops", loops_grad(w, &v, 3), loops_grad_tape(w, &v, 3));
        assert!(loops_check(w, &v, 3).unwrap().passed());

        let wp = array(&mut rng, 1.0);
        agree("calls", calls_grad(&v, wp), calls_grad_tape(&v, wp));
        assert!(calls_check(&v, wp).unwrap().passed());
        agree("pair", pair_grad(wp, 2.0), pair_grad_tape(wp, 2.0));

        let b = 2.0 * rng.uniform(2.0);
        for kind in 0..3 {
            for eps in [None, Some(0.25)] {
                agree(
                    "branches",
                    branches_grad(b, kind, eps),
                    branches_grad_tape(b, kind, eps),
                );
            }
        }
        assert!(branches_check(b, 2, Some(0.25)).unwrap().passed());

        let z: Vec<f64> = (0..6).map(|_| rng.uniform(2.0)).collect();
        for k in [1, 3, 6, 9] {
            agree(
                "collected",
                collected_grad(&z, k),
                collected_grad_tape(&z, k),
            );
        }
        assert!(collected_check(&z, 4).unwrap().passed());

        let xs: Vec<f64> = (0..7).map(|_| rng.uniform(1.5)).collect();
        for limit in [0.3, 1.0, 3.0, 100.0] {
            agree("jumps", jumps_grad(&xs, limit), jumps_grad_tape(&xs, limit));
        }
        assert!(jumps_check(&xs, 1.0).unwrap().passed());

        for limit in [0.2, 0.9, 2.5, 50.0] {
            agree(
                "returns",
                returns_grad(&xs, limit),
                returns_grad_tape(&xs, limit),
            );
            let big: Vec<f64> = xs.iter().map(|v| v * 3.0).collect();
            agree(
                "returns",
                returns_grad(&big, limit),
                returns_grad_tape(&big, limit),
            );
        }
        assert!(returns_check(&xs, 50.0).unwrap().passed());

        let m = matrix(&mut rng, 1.0);
        let h: Vec<f64> = (0..3).map(|_| rng.uniform(1.0)).collect();
        agree(
            "layers",
            layers_grad(h.clone(), &m),
            layers_grad_tape(h.clone(), &m),
        );
        assert!(layers_check(h, &m).unwrap().passed());
    }
}
