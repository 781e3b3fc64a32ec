//! Calls of vector-valued helpers where the caller's forward binding is
//! gone by its reverse sweep: bound inside a loop or a branch (`for t in
//! .. { let p = softmax(&z[t]); .. }`), pushed onto a `Vec` in a loop
//! (the attention head's `a.push(softmax(&s))`), with arguments the loop
//! rebuilds every trip. Each trip saves the value and the arguments that
//! change on the call site's own stack, and the reverse reruns the helper
//! from them with the binding's adjoint as its cotangent.
//!
//! Oracles: softmax's Jacobian in closed form, `∂p/∂z = diag(p) − p pᵀ`
//! (lesson 15), so `∂(−ln pₖ)/∂z = p − eₖ`; a rotation's closed form
//! (`R(θ)` applied n times is `R(nθ)`); and the tape. Every function is
//! checked to take the compiled path, and its adjoint to run there with
//! nothing left on the stack.
//!
//! Bound: each component is a short sum of products of probabilities and
//! inputs of magnitude ≤ 3: the paths and the closed forms agree to a few
//! ulps, far inside `AGREE` (1e-12 of the largest component).

// Index loops on purpose: they are the constructs under test.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree, compiled, compiled_agrees, Grad};
use crate::attention_layers::{matmul, rows, softmax, Head, Linear};
use crate::oracle::{dual_value_and_gradient, Dual};

/// A point `(x, y)` turned by `theta`.
#[differentiable]
fn rotate(x: f64, y: f64, theta: f64) -> [f64; 2] {
    [
        x * theta.cos() - y * theta.sin(),
        x * theta.sin() + y * theta.cos(),
    ]
}

/// The plain softmax, the oracle's.
fn probabilities(z: &[f64]) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    e.iter().map(|v| v / s).collect()
}

/// `cᵀ ∂p/∂z = (diag(p) − p pᵀ) c`: the pullback of `c` through softmax.
fn pullback(z: &[f64], c: &[f64]) -> Vec<f64> {
    let p = probabilities(z);
    let pc: f64 = p.iter().zip(c).map(|(p, c)| p * c).sum();
    p.iter().zip(c).map(|(p, c)| p * (c - pc)).collect()
}

/// The loop: one softmax per row, bound inside the loop.
#[differentiable]
fn nll_rows(z: &[Vec<f64>], #[constant] y: &[usize]) -> f64 {
    let mut loss = 0.0;
    for t in 0..z.len() {
        let p = softmax(&z[t]);
        loss -= p[y[t]].ln();
    }
    loss
}

#[test]
fn a_call_bound_in_a_loop_reruns_from_its_row() {
    assert_eq!(nll_rows_grad_path(), GradientPath::Compiled);
    let z = vec![
        vec![2.0, 1.0, 0.5, -0.5],
        vec![-1.0, 0.25, 3.0, 0.0],
        vec![0.5, 0.5, -2.0, 1.5],
    ];
    let y = [0, 2, 3];
    let got = compiled(|stack| nll_rows_adjoint(stack, &z, &y));
    agree(
        "nll_rows",
        nll_rows_grad(&z, &y),
        nll_rows_grad_tape(&z, &y),
    );
    for t in 0..3 {
        // ∂(−ln p_y)/∂z = p − e_y.
        let mut want = probabilities(&z[t]);
        want[y[t]] -= 1.0;
        assert_agree(&format!("nll_rows row {t}"), &got.gradient[t], &want);
    }
    assert_eq!(got.value.to_bits(), nll_rows(&z, &y).to_bits());
}

/// The argument is built in the loop, so the trip saves it: `s = x_t w`.
#[differentiable]
fn scores_in_loop(x: &[f64], #[constant] w: &[f64]) -> f64 {
    let mut loss = 0.0;
    for t in 0..x.len() {
        let mut s = vec![0.0; w.len()];
        for j in 0..w.len() {
            s[j] = x[t] * w[j];
        }
        let p = softmax(&s);
        loss -= p[t % w.len()].ln() * p[0];
    }
    loss
}

#[test]
fn an_argument_rebuilt_every_trip_is_saved_for_the_rerun() {
    assert_eq!(scores_in_loop_grad_path(), GradientPath::Compiled);
    let (x, w) = ([0.5, -1.25, 2.0, 0.75], [1.0, -0.5, 2.0]);
    let got = compiled(|stack| scores_in_loop_adjoint(stack, &x, &w));
    agree(
        "scores_in_loop",
        scores_in_loop_grad(&x, &w),
        scores_in_loop_grad_tape(&x, &w),
    );
    let want: Vec<f64> = (0..x.len())
        .map(|t| {
            let s: Vec<f64> = w.iter().map(|w| x[t] * w).collect();
            let p = probabilities(&s);
            let k = t % w.len();
            // L_t = −ln(p_k) p_0: its cotangent on p, pulled back to s,
            // then ∂s_j/∂x_t = w_j.
            let mut c = vec![0.0; w.len()];
            c[k] -= p[0] / p[k];
            c[0] -= p[k].ln();
            pullback(&s, &c).iter().zip(&w).map(|(g, w)| g * w).sum()
        })
        .collect();
    assert_agree("scores_in_loop", &got.gradient, &want);
}

/// The argument read again after the call: the trip saves a copy of it
/// (where nothing after the call reads it, as above, it moves to the
/// call's site instead).
#[differentiable]
fn scores_read_after(x: &[f64], #[constant] w: &[f64]) -> f64 {
    let mut loss = 0.0;
    for t in 0..x.len() {
        let mut s = vec![0.0; w.len()];
        for j in 0..w.len() {
            s[j] = x[t] * w[j];
        }
        let p = softmax(&s);
        loss += p[0] * s[1];
        let q = softmax(&s);
        loss -= q[t % w.len()].ln();
    }
    loss
}

#[test]
fn an_argument_read_after_the_call_is_saved_as_a_copy() {
    assert_eq!(scores_read_after_grad_path(), GradientPath::Compiled);
    let (x, w) = ([0.5, -1.25, 2.0, 0.75], [1.0, -0.5, 2.0]);
    agree(
        "scores_read_after",
        scores_read_after_grad(&x, &w),
        scores_read_after_grad_tape(&x, &w),
    );
    scores_read_after_check(&x, &w).unwrap();
}

/// A call bound inside a branch: its arguments are there again, its
/// value is saved.
#[differentiable]
fn in_branch(z: &[f64]) -> f64 {
    if z[0] > 0.0 {
        let p = softmax(z);
        p[0] * p[1]
    } else {
        z[1] * z[2]
    }
}

#[test]
fn a_call_bound_in_a_branch_compiles() {
    assert_eq!(in_branch_grad_path(), GradientPath::Compiled);
    let z = [0.5, -1.0, 2.0];
    let got = compiled(|stack| in_branch_adjoint(stack, &z));
    agree("in_branch", in_branch_grad(&z), in_branch_grad_tape(&z));
    let p = probabilities(&z);
    assert_agree(
        "in_branch",
        &got.gradient,
        &pullback(&z, &[p[1], p[0], 0.0]),
    );
    let other = [-0.5, -1.0, 2.0];
    let got = compiled(|stack| in_branch_adjoint(stack, &other));
    assert_agree("in_branch, other arm", &got.gradient, &[0.0, 2.0, -1.0]);
}

/// A point turned `n` times: the call's arguments are numbers the loop
/// overwrites, its value an array.
#[differentiable]
fn turned(x: f64, y: f64, theta: f64, #[constant] n: usize) -> f64 {
    let mut px = x;
    let mut py = y;
    for _ in 0..n {
        let r = rotate(px, py, theta);
        px = r[0];
        py = r[1];
    }
    2.0 * px + py
}

#[test]
fn an_array_valued_call_whose_arguments_the_loop_overwrites() {
    assert_eq!(turned_grad_path(), GradientPath::Compiled);
    let (x, y, theta, n) = (1.5, -0.5, 0.3, 4);
    let got = compiled(|stack| turned_adjoint(stack, x, y, theta, n));
    agree(
        "turned",
        turned_grad(x, y, theta, n),
        turned_grad_tape(x, y, theta, n),
    );
    // R(θ)ⁿ = R(nθ): L = 2(x c − y s) + (x s + y c) with c, s of nθ.
    let (s, c) = (n as f64 * theta).sin_cos();
    let k = n as f64;
    let want = [
        2.0 * c + s,
        -2.0 * s + c,
        k * (2.0 * (-x * s - y * c) + (x * c - y * s)),
    ];
    let (gx, gy, gt) = got.gradient;
    assert_agree("turned", &[gx, gy, gt], &want);
}

/// `Σ C ⊙ (A B)`. `matmul` (the attention example's) grows each row, a
/// `Vec`, by `push` inside the loop, then pushes it whole; the helper's own
/// compiled reverse (its `⟨C, A B⟩`) takes both.
#[differentiable]
fn probed_product(a: &[Vec<f64>], b: &[Vec<f64>], #[constant] c: &[Vec<f64>]) -> f64 {
    let p = matmul(a, b);
    let mut total = 0.0;
    for i in 0..p.len() {
        for j in 0..p[i].len() {
            total += c[i][j] * p[i][j];
        }
    }
    total
}

#[test]
fn rows_grown_in_a_loop_and_pushed_whole() {
    assert_eq!(probed_product_grad_path(), GradientPath::Compiled);
    let a = vec![vec![1.0, -2.0, 0.5], vec![0.25, 3.0, -1.0]];
    let b = vec![vec![2.0, 0.5], vec![-1.5, 1.0], vec![0.75, -0.25]];
    let c = vec![vec![1.0, -0.5], vec![2.0, 0.25]];
    let got = compiled(|stack| probed_product_adjoint(stack, &a, &b, &c));
    agree(
        "probed_product",
        probed_product_grad(&a, &b, &c),
        probed_product_grad_tape(&a, &b, &c),
    );
    // Ā = C Bᵀ, B̄ = Aᵀ C.
    let (a_bar, b_bar) = &got.gradient;
    for i in 0..2 {
        let want: Vec<f64> = (0..3)
            .map(|k| (0..2).map(|j| c[i][j] * b[k][j]).sum())
            .collect();
        assert_agree("probed_product Ā", &a_bar[i], &want);
    }
    for k in 0..3 {
        let want: Vec<f64> = (0..2)
            .map(|j| (0..2).map(|i| a[i][k] * c[i][j]).sum())
            .collect();
        assert_agree("probed_product B̄", &b_bar[k], &want);
    }
}

/// Lesson 15's causal head from helpers, as the attention example writes
/// it: one softmax per row pushed onto `a` in the loop that builds the row
/// of scores, `Σ Ō ⊙ softmax_row(QKᵀ/√d) V`.
#[differentiable]
fn head(
    x: &[Vec<f64>],
    wq: &[Vec<f64>],
    wk: &[Vec<f64>],
    wv: &[Vec<f64>],
    #[constant] o_bar: &[Vec<f64>],
) -> f64 {
    let q = matmul(x, wq);
    let k = matmul(x, wk);
    let v = matmul(x, wv);
    let scale = 1.0 / (q[0].len() as f64).sqrt();
    let mut a = Vec::new();
    for i in 0..q.len() {
        let mut s = Vec::new();
        for j in 0..k.len() {
            let mut dot = 0.0;
            for c in 0..q[i].len() {
                dot += q[i][c] * k[j][c];
            }
            s.push(dot * scale + if j <= i { 0.0 } else { -1e3 });
        }
        a.push(softmax(&s));
    }
    let o = matmul(&a, &v);
    let mut total = 0.0;
    for i in 0..o.len() {
        for c in 0..o[i].len() {
            total += o_bar[i][c] * o[i][c];
        }
    }
    total
}

#[test]
fn a_softmax_pushed_in_a_loop_gives_lesson_15s_backward_pass() {
    assert_eq!(head_grad_path(), GradientPath::Compiled);
    for seed in [3, 8] {
        let h = crate::lesson15::random_head(seed);
        let (x, wq, wk, wv, o_bar) = (
            rows(&h.x),
            rows(&h.wq),
            rows(&h.wk),
            rows(&h.wv),
            rows(&h.o_bar),
        );
        let got = compiled(|stack| head_adjoint(stack, &x, &wq, &wk, &wv, &o_bar));
        agree(
            "head",
            head_grad(&x, &wq, &wk, &wv, &o_bar),
            head_grad_tape(&x, &wq, &wk, &wv, &o_bar),
        );
        // The lesson's backward pass by hand masks exactly; a score of
        // −1000 below e^−1000 = 0 in f64 is the same mask.
        let by_hand = crate::lesson15::attention_backward(&h.x, &h.wq, &h.wk, &h.wv, &h.o_bar);
        let (x_bar, wq_bar, wk_bar, wv_bar) = &got.gradient;
        let flat = |m: &[Vec<f64>]| m.concat();
        let flat3 = |m: &[[f64; 3]; 4]| m.concat();
        let flat4 = |m: &[[f64; 4]; 4]| m.concat();
        assert_agree("head X̄", &flat(x_bar), &flat4(&by_hand.x));
        assert_agree("head W̄_Q", &flat(wq_bar), &flat3(&by_hand.wq));
        assert_agree("head W̄_K", &flat(wk_bar), &flat3(&by_hand.wk));
        assert_agree("head W̄_V", &flat(wv_bar), &flat3(&by_hand.wv));
        assert!((got.value - by_hand.loss).abs() < 1e-12);
    }
}

/// A vector chosen by a branch whose arms call helpers: each arm's call
/// is seeded with `h_bar`.
#[differentiable]
fn chosen(z: &[f64], #[constant] sharpen: bool) -> f64 {
    let h = if sharpen {
        let doubled = vec![2.0 * z[0], 2.0 * z[1], 2.0 * z[2]];
        softmax(&doubled)
    } else if z[0] > 5.0 {
        z.to_vec()
    } else {
        softmax(z)
    };
    h[0] * h[1] + h[2]
}

#[test]
fn a_vector_bound_to_a_branch_of_calls() {
    assert_eq!(chosen_grad_path(), GradientPath::Compiled);
    let z = [0.5, -1.0, 2.0];
    for sharpen in [false, true] {
        let got = compiled(|stack| chosen_adjoint(stack, &z, sharpen));
        agree(
            "chosen",
            chosen_grad(&z, sharpen),
            chosen_grad_tape(&z, sharpen),
        );
        let k = if sharpen { 2.0 } else { 1.0 };
        let s: Vec<f64> = z.iter().map(|v| k * v).collect();
        let p = probabilities(&s);
        let want: Vec<f64> = pullback(&s, &[p[1], p[0], 1.0])
            .iter()
            .map(|g| k * g)
            .collect();
        assert_agree("chosen", &got.gradient, &want);
    }
}

/// A call bound in a loop and never read: its cotangent is zeros shaped
/// like its value, and the rest of the loop is differentiated as written.
#[differentiable]
fn unread_in_loop(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for t in 0..x.len() {
        let _probabilities = softmax(&x[t..]);
        total += x[t] * x[t];
    }
    total
}

#[test]
fn a_call_bound_in_a_loop_and_never_read() {
    assert_eq!(unread_in_loop_grad_path(), GradientPath::Compiled);
    let x = [0.5, -1.0, 2.0];
    let got = compiled(|stack| unread_in_loop_adjoint(stack, &x));
    agree(
        "unread_in_loop",
        unread_in_loop_grad(&x),
        unread_in_loop_grad_tape(&x),
    );
    assert_agree("unread_in_loop", &got.gradient, &[1.0, -2.0, 4.0]);
}

#[test]
fn the_attention_examples_layers_compile_through_their_methods() {
    let h = crate::lesson15::random_head(8);
    let (x, o_bar) = (rows(&h.x), rows(&h.o_bar));
    let head = Head {
        wq: Linear { w: rows(&h.wq) },
        wk: Linear { w: rows(&h.wk) },
        wv: Linear { w: rows(&h.wv) },
    };
    // The example's probe, `Σ Ō ⊙ head(X)`, calls the head's `forward`,
    // which calls `matmul`, `softmax` and the projections' `forward`.
    assert_eq!(head.probe_grad_path(), GradientPath::Compiled);
    // The example's mask, `−∞` above the diagonal: softmax's compiled
    // reverse takes an infinite score as the tape does (`exp(−∞) = 0`),
    // so `compiled` gets an answer from the sweep, no rerun of the tape.
    let mask: Vec<Vec<f64>> = (0..4)
        .map(|i| {
            (0..4)
                .map(|j| if j <= i { 0.0 } else { f64::NEG_INFINITY })
                .collect()
        })
        .collect();
    let got = compiled(|stack| head.probe_adjoint(stack, &x, &mask, &o_bar));
    let tape = head
        .probe_grad_tape(&x, &mask, &o_bar)
        .expect("the tape's gradient");
    let by_hand = crate::lesson15::attention_backward(&h.x, &h.wq, &h.wk, &h.wv, &h.o_bar);
    let (head_bar, x_bar) = &got.gradient;
    let (tape_head, tape_x) = &tape.gradient;
    let flat = |m: &[Vec<f64>]| m.concat();
    for (name, got, tape, want) in [
        ("W̄_Q", &head_bar.wq.w, &tape_head.wq.w, by_hand.wq.concat()),
        ("W̄_K", &head_bar.wk.w, &tape_head.wk.w, by_hand.wk.concat()),
        ("W̄_V", &head_bar.wv.w, &tape_head.wv.w, by_hand.wv.concat()),
    ] {
        assert_agree(name, &flat(got), &want);
        assert_agree(name, &flat(got), &flat(tape));
    }
    assert_agree("X̄", &flat(x_bar), &by_hand.x.concat());
    assert_agree("X̄", &flat(x_bar), &flat(tape_x));
    assert!((got.value - by_hand.loss).abs() < 1e-12);
}

/// A vector-valued call never read, in a loop with a `break` (seed
/// 17401's g0_23: it once reported the compiled path and then reran the
/// tape at every call, then kept the tape): saved per trip as a statement
/// of the loop's body, its cotangent zeros shaped like the saved value.
#[differentiable]
fn unread_call_in_a_loop_that_breaks(x: f64, y: f64) -> f64 {
    let mut n = 0;
    let mut s = 0.0;
    loop {
        if n >= 3 {
            break;
        }
        n += 1;
        let _turned = rotate(x, y, 0.5);
        s += x * y;
    }
    s
}

/// The same in a body with an early `return` (seed 17403's g1_16): kept
/// the tape until a call bound at the top of such a body was saved where
/// it is made; compiled now, its zero cotangent shaped like the saved
/// value, and nothing popped for it where the `return` left first.
#[differentiable]
fn unread_call_before_a_return(x: f64, y: f64) -> f64 {
    if x > 10.0 {
        return x;
    }
    let _turned = rotate(x, y, 0.5);
    x * y
}

#[test]
fn an_unread_vector_call_in_a_body_with_return_runs_compiled() {
    assert_eq!(
        unread_call_before_a_return_grad_path(),
        GradientPath::Compiled
    );
    for (x, y, want) in [(0.5, -1.5, [-1.5, 0.5]), (12.0, -1.5, [1.0, 0.0])] {
        let reruns = autodiff::__adjoint::tape_reruns();
        let got = compiled(|stack| unread_call_before_a_return_adjoint(stack, x, y));
        let grad = agree(
            "unread call",
            unread_call_before_a_return_grad(x, y),
            unread_call_before_a_return_grad_tape(x, y),
        );
        assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
        assert_eq!(got.value, if x > 10.0 { x } else { x * y });
        for g in [&got, &grad] {
            assert_agree("unread call", &[g.gradient.0, g.gradient.1], &want);
        }
    }
}

#[test]
fn an_unread_vector_call_in_a_loop_that_breaks_runs_compiled() {
    // A statement of the loop's body: each iteration's reverse pops the
    // saved value where its exit came after the `let` (the last
    // iteration's `break` came before it, so nothing is popped there).
    assert_eq!(
        unread_call_in_a_loop_that_breaks_grad_path(),
        GradientPath::Compiled
    );
    let reruns = autodiff::__adjoint::tape_reruns();
    let got = compiled(|stack| unread_call_in_a_loop_that_breaks_adjoint(stack, 0.5, -1.5));
    let grad = agree(
        "unread call",
        unread_call_in_a_loop_that_breaks_grad(0.5, -1.5),
        unread_call_in_a_loop_that_breaks_grad_tape(0.5, -1.5),
    );
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns);
    assert_eq!(got.value, 3.0 * 0.5 * -1.5);
    for g in [&got, &grad] {
        assert_agree(
            "unread call",
            &[g.gradient.0, g.gradient.1],
            &[3.0 * -1.5, 3.0 * 0.5],
        );
    }
}

/// A vector passed to a vector-valued helper as an expression, not a
/// place (`v.clone()`, `x.to_vec()`): its part of the gradient goes into
/// an adjoint shaped like it, then through the expression. The generated
/// adjoint gave that part an adjoint of one number and did not build.
#[differentiable]
fn scale_all(v: Vec<f64>, k: f64) -> Vec<f64> {
    v.iter().map(|a| a * k).collect()
}

/// `k x₀ x₁ + k x₁²`.
#[differentiable]
fn cloned_argument(x: &[f64], k: f64) -> f64 {
    let v = x.to_vec();
    let w = scale_all(v.clone(), k);
    w[0] * v[1] + w[1] * v[1]
}

/// The same in a loop that rewrites `v`: `k x₀ x₁ + k x₁²`.
#[differentiable]
fn cloned_argument_in_a_loop(x: &[f64], k: f64) -> f64 {
    let mut v = x.to_vec();
    let mut s = 0.0;
    for i in 0..2 {
        let w = scale_all(v.clone(), k);
        s += w[i] * v[1];
        v[0] *= k;
    }
    s
}

/// `k² x₀ x₁`.
#[differentiable]
fn copied_argument(x: &[f64], k: f64) -> f64 {
    let w = scale_all(x.to_vec(), k);
    w[0] * w[1]
}

#[test]
fn a_vector_passed_as_an_expression_is_compiled() {
    let (x, k) = ([1.5, -0.7], 1.3);
    let (x0, x1) = (x[0], x[1]);
    let d_k = x0 * x1 + x1 * x1;
    let want_sum = [k * x1, k * x0 + 2.0 * k * x1, d_k];
    for (name, path, compiled_run, tape) in [
        (
            "cloned_argument",
            cloned_argument_grad_path(),
            cloned_argument_grad(&x, k),
            cloned_argument_grad_tape(&x, k),
        ),
        (
            "cloned_argument_in_a_loop",
            cloned_argument_in_a_loop_grad_path(),
            cloned_argument_in_a_loop_grad(&x, k),
            cloned_argument_in_a_loop_grad_tape(&x, k),
        ),
    ] {
        assert_eq!(path, GradientPath::Compiled, "{name}");
        let got = agree(name, compiled_run, tape);
        let flat = [got.gradient.0[0], got.gradient.0[1], got.gradient.1];
        assert_agree(name, &flat, &want_sum);
    }
    assert_eq!(copied_argument_grad_path(), GradientPath::Compiled);
    let got = compiled(|stack| copied_argument_adjoint(stack, &x, k));
    let flat = [got.gradient.0[0], got.gradient.0[1], got.gradient.1];
    assert_agree(
        "copied_argument",
        &flat,
        &[k * k * x1, k * k * x0, 2.0 * k * x0 * x1],
    );
    let tape = copied_argument_grad_tape(&x, k).expect("the tape's gradient");
    assert_agree(
        "copied_argument vs tape",
        &flat,
        &[tape.gradient.0[0], tape.gradient.0[1], tape.gradient.1],
    );
}

/// `k² s₀ s₁` of an array `s = [k x₀, x₁]` passed as `s.to_vec()`: the
/// `Vec`'s adjoint goes back into the array's.
#[differentiable]
fn array_to_vec_argument(x: &[f64], k: f64) -> f64 {
    let s = [k * x[0], x[1]];
    let w = scale_all(s.to_vec(), k);
    w[0] * w[1]
}

#[test]
fn an_array_passed_as_a_vec_is_compiled() {
    assert_eq!(array_to_vec_argument_grad_path(), GradientPath::Compiled);
    let (x, k) = ([1.5, -0.7], 1.3);
    let got = agree(
        "array_to_vec_argument",
        array_to_vec_argument_grad(&x, k),
        array_to_vec_argument_grad_tape(&x, k),
    );
    // k³ x₀ x₁.
    let want = [
        k.powi(3) * x[1],
        k.powi(3) * x[0],
        3.0 * k * k * x[0] * x[1],
    ];
    let flat = [got.gradient.0[0], got.gradient.0[1], got.gradient.1];
    assert_agree("array_to_vec_argument", &flat, &want);
}

/// Three numbers from three inputs, for `total_of`.
#[differentiable]
fn layer3(x: &[f64]) -> Vec<f64> {
    vec![x[0] * x[1], x[1].sin(), x[0] + x[2]]
}

/// Takes the layer's `Vec` by value.
#[differentiable]
fn total_of(h: Vec<f64>) -> f64 {
    h[0] * h[1] + h[2] * h[2]
}

#[differentiable]
fn square(t: f64) -> f64 {
    t * t
}

/// A call's value only passed on by value (`let h = layer(x);
/// total(h)`): the macro cannot tell a number from a vector there, and
/// read it as a number, which failed the compiled sweep at run time at
/// every call while `f_grad_path()` said `Compiled` (README, "Layers as
/// helpers"). Taken as it is, its adjoint goes back whole, a `Vec` or a
/// number (`s` here).
#[differentiable]
fn passed_on(x: &[f64]) -> f64 {
    let h = layer3(x);
    let s = square(x[2]);
    total_of(h) + square(s)
}

/// The same in a loop, the value bound again every trip.
#[differentiable]
fn passed_on_in_a_loop(x: &[f64]) -> f64 {
    let mut acc = 0.0;
    for _ in 0..2 {
        let h = layer3(x);
        acc += total_of(h);
    }
    acc
}

#[test]
fn a_vector_only_passed_on_by_value_runs_compiled() {
    assert_eq!(passed_on_grad_path(), GradientPath::Compiled);
    assert_eq!(passed_on_in_a_loop_grad_path(), GradientPath::Compiled);
    for x in [[0.3_f64, -0.7, 1.1], [1.5, 0.25, -2.0]] {
        let (a, b, c) = (x[0], x[1], x[2]);
        // total = a b sin b + (a + c)²
        let total = [
            b * b.sin() + 2.0 * (a + c),
            a * b.sin() + a * b * b.cos(),
            2.0 * (a + c),
        ];
        let reruns = autodiff::__adjoint::tape_reruns();
        let alone = compiled(|stack| passed_on_adjoint(stack, &x));
        let got = agree("passed_on", passed_on_grad(&x), passed_on_grad_tape(&x));
        assert_eq!(alone.gradient, got.gradient);
        let want = [total[0], total[1], total[2] + 4.0 * c * c * c];
        assert_agree("passed_on", &got.gradient, &want);
        let alone = compiled(|stack| passed_on_in_a_loop_adjoint(stack, &x));
        let got = agree(
            "passed_on_in_a_loop",
            passed_on_in_a_loop_grad(&x),
            passed_on_in_a_loop_grad_tape(&x),
        );
        assert_eq!(
            autodiff::__adjoint::tape_reruns(),
            reruns,
            "f_grad reran the tape"
        );
        assert_eq!(alone.gradient, got.gradient);
        assert_agree(
            "passed_on_in_a_loop",
            &got.gradient,
            &total.map(|t| 2.0 * t),
        );
    }
}

/// Calls whose arguments are calls: pushed in a loop onto a `Vec` made
/// of numbers (`v.push(square(square(x) * k + sin y))`, which kept the
/// tape as "a vector-valued call of a call": a call pushed onto a `Vec`
/// of numbers is a number; random programs, seed 17501's f3_8), and a
/// `Vec` passed by value to a helper where it is made (`total_of(layer3(
/// ..))`, which reran the tape at every call): bound first, passed on as
/// it is.
#[differentiable]
fn calls_of_calls(x: f64, y: f64) -> f64 {
    let mut v = vec![0.5; 2];
    for k in 0..2 {
        v.push(square(square(x) * (k as f64 + 1.0) + y.sin()));
    }
    let z = [x, y, 0.25];
    v[2] * v[3] + v[0] + total_of(layer3(&z))
}

#[test]
fn calls_of_calls_run_compiled() {
    assert_eq!(calls_of_calls_grad_path(), GradientPath::Compiled);
    for (x, y) in [(0.3_f64, -0.7_f64), (1.25, 0.5)] {
        // a_k = (x² (k + 1) + sin y)²; total = x y sin y + (x + 0.25)².
        let u = [x * x + y.sin(), 2.0 * x * x + y.sin()];
        let a = u.map(|u| u * u);
        let da_dx = [2.0 * u[0] * 2.0 * x, 2.0 * u[1] * 4.0 * x];
        let da_dy = [2.0 * u[0] * y.cos(), 2.0 * u[1] * y.cos()];
        let want = [
            a[1] * da_dx[0] + a[0] * da_dx[1] + y * y.sin() + 2.0 * (x + 0.25),
            a[1] * da_dy[0] + a[0] * da_dy[1] + x * y.sin() + x * y * y.cos(),
        ];
        let reruns = autodiff::__adjoint::tape_reruns();
        let alone = compiled(|stack| calls_of_calls_adjoint(stack, x, y));
        let got = agree(
            "calls_of_calls",
            calls_of_calls_grad(x, y),
            calls_of_calls_grad_tape(x, y),
        );
        assert_eq!(
            autodiff::__adjoint::tape_reruns(),
            reruns,
            "f_grad reran the tape"
        );
        assert_eq!(alone.gradient, got.gradient);
        assert_agree("calls_of_calls", &[got.gradient.0, got.gradient.1], &want);
    }
}

/// `a sin b`, for a value passed on with another argument.
#[differentiable]
fn scaled(a: f64, b: f64) -> f64 {
    a * b.sin()
}

/// A helper's value with no derivative, bound in a loop and only passed
/// on to a helper whose other argument the loop changes: saved per trip
/// for that helper's rerun (random programs, seed 19105's f1_11 kept the
/// tape: "a call whose argument changes before the reverse sweep").
#[differentiable]
fn constant_passed_on_in_a_loop(x: f64) -> f64 {
    let mut acc = x;
    for k in 0..3 {
        let q = square(0.5 * k as f64 + 0.25);
        acc += scaled(q, acc);
    }
    acc
}

#[test]
fn a_constant_passed_on_in_a_loop_runs_compiled() {
    assert_eq!(
        constant_passed_on_in_a_loop_grad_path(),
        GradientPath::Compiled
    );
    for x in [0.3_f64, -1.1, 2.0] {
        // acc ← acc + q_k sin acc, so d acc ← d acc (1 + q_k cos acc).
        let (mut acc, mut d) = (x, 1.0);
        for k in 0..3 {
            let q = (0.5 * k as f64 + 0.25).powi(2);
            d *= 1.0 + q * acc.cos();
            acc += q * acc.sin();
        }
        let reruns = autodiff::__adjoint::tape_reruns();
        let alone = compiled(|stack| constant_passed_on_in_a_loop_adjoint(stack, x));
        let got = agree(
            "constant_passed_on_in_a_loop",
            constant_passed_on_in_a_loop_grad(x),
            constant_passed_on_in_a_loop_grad_tape(x),
        );
        assert_eq!(
            autodiff::__adjoint::tape_reruns(),
            reruns,
            "f_grad reran the tape"
        );
        assert_eq!(alone.gradient, got.gradient);
        assert_agree("constant_passed_on_in_a_loop", &[got.gradient], &[d]);
    }
}

/// An array-valued helper whose elements the caller reads into other
/// bindings: `let t = p[1];`, `v.push(p[k] * 0.5)`, and a tuple `let`
/// that swaps such an element with another binding before a `loop` breaks
/// with it. The shape of what is made of the call's elements is known
/// only once the call's is (seeds 19215 f1_0 and f5_26 kept the tape:
/// "a binding whose shape the reverse sweep cannot see").
#[differentiable]
fn pair(a: f64, b: f64) -> [f64; 2] {
    [a * b, (a * a + 0.5).ln() - b]
}

#[differentiable]
fn element_then_number(x: f64, y: f64) -> f64 {
    let p = pair(x, y);
    let t = p[1];
    let mut acc = x;
    for _ in 0..3 {
        acc = acc * 0.5 + t * t;
    }
    acc
}

#[differentiable]
fn pushed_elements_iterated(x: f64, y: f64) -> f64 {
    let p = pair(x, y);
    let mut v = vec![x.sin()];
    for k in 0..2 {
        v.push(p[k] * 0.5);
    }
    let mut s = 0.0;
    for e in v {
        s += e * e;
    }
    s
}

#[differentiable]
fn swapped_then_broken(x: f64, y: f64) -> f64 {
    let p = pair(x, y);
    let t = p[1];
    let mut n = 0;
    let acc = x;
    let (mut acc, t) = (t, acc);
    let z = loop {
        if n >= 2 {
            break acc;
        }
        n += 1;
        acc *= 0.75 + 0.25 * t.sin();
    };
    z + t
}

/// The three above in dual numbers: `which` picks one.
fn elements_dual(which: usize, x: Dual, y: Dual) -> Dual {
    let p = [x * y, (x * x + 0.5).ln() - y];
    match which {
        0 => {
            let t = p[1];
            let mut acc = x;
            for _ in 0..3 {
                acc = acc * 0.5 + t * t;
            }
            acc
        }
        1 => {
            let v = [x.sin(), p[0] * 0.5, p[1] * 0.5];
            v.iter().fold(Dual::constant(0.0), |s, &e| s + e * e)
        }
        _ => {
            let (mut acc, t) = (p[1], x);
            for _ in 0..2 {
                acc = acc * (t.sin() * 0.25 + 0.75);
            }
            acc + t
        }
    }
}

#[test]
fn what_is_made_of_a_calls_elements_runs_compiled() {
    type Fns = (
        fn() -> GradientPath,
        fn(f64, f64) -> Grad<(f64, f64)>,
        fn(f64, f64) -> Grad<(f64, f64)>,
    );
    let fns: [(&str, Fns); 3] = [
        (
            "element_then_number",
            (
                element_then_number_grad_path,
                element_then_number_grad,
                element_then_number_grad_tape,
            ),
        ),
        (
            "pushed_elements_iterated",
            (
                pushed_elements_iterated_grad_path,
                pushed_elements_iterated_grad,
                pushed_elements_iterated_grad_tape,
            ),
        ),
        (
            "swapped_then_broken",
            (
                swapped_then_broken_grad_path,
                swapped_then_broken_grad,
                swapped_then_broken_grad_tape,
            ),
        ),
    ];
    for (which, (name, (path, grad, tape))) in fns.into_iter().enumerate() {
        assert_eq!(path(), GradientPath::Compiled, "{name}");
        for (x, y) in [(0.3, -0.7), (-1.2, 0.4), (1.6, 2.1)] {
            let reruns = autodiff::__adjoint::tape_reruns();
            let got = agree(name, grad(x, y), tape(x, y));
            assert_eq!(
                autodiff::__adjoint::tape_reruns(),
                reruns,
                "{name}: f_grad reran the tape"
            );
            let (value, gradient) =
                dual_value_and_gradient(&[x, y], |a| elements_dual(which, a[0], a[1]));
            assert_agree(name, &[got.value], &[value]);
            assert_agree(name, &[got.gradient.0, got.gradient.1], &gradient);
        }
    }
}

/// A tuple-valued helper whose `Vec` a pattern takes, read through
/// `dbg!` into bindings (a tuple, inside a loop): the adjoint of `dbg!(e)`
/// is shaped like `e`'s (seed 19243 f2_28 kept the tape: "a binding whose
/// shape the reverse sweep cannot see").
#[differentiable]
fn scaled_pair(a: f64, b: f64) -> (f64, Vec<f64>) {
    let t = b.tanh();
    (a * t, vec![t * t, a * b])
}

#[differentiable]
fn printed_elements(x: f64, y: f64) -> f64 {
    let (c, w) = scaled_pair(x, y);
    let mut acc = c;
    for k in 0..2 {
        let p = (dbg!(w[k]), w.iter().sum::<f64>());
        acc = acc * 0.5 + p.0 * p.1;
    }
    let q = dbg!(w[1]);
    acc + q
}

fn printed_elements_dual(x: Dual, y: Dual) -> Dual {
    let t = y.tanh();
    let (c, w) = (x * t, [t * t, x * y]);
    let mut acc = c;
    for k in 0..2 {
        acc = acc * 0.5 + w[k] * (w[0] + w[1]);
    }
    acc + w[1]
}

#[test]
fn printed_elements_of_a_tuple_calls_vec_run_compiled() {
    assert_eq!(printed_elements_grad_path(), GradientPath::Compiled);
    for (x, y) in [(0.3, -0.7), (-1.2, 0.4)] {
        let reruns = autodiff::__adjoint::tape_reruns();
        let got = agree(
            "printed_elements",
            printed_elements_grad(x, y),
            printed_elements_grad_tape(x, y),
        );
        assert_eq!(
            autodiff::__adjoint::tape_reruns(),
            reruns,
            "f_grad reran the tape"
        );
        let (value, gradient) =
            dual_value_and_gradient(&[x, y], |a| printed_elements_dual(a[0], a[1]));
        assert_agree("printed_elements", &[got.value], &[value]);
        assert_agree(
            "printed_elements",
            &[got.gradient.0, got.gradient.1],
            &gradient,
        );
    }
}

/// An element of a tuple call's `Vec` (`u = w[0]`, whose shape the macro
/// cannot see: the tuple's type is the callee's) broken out of a `loop`
/// inside a branch's value: `u * u` shows it is a number, and so is the
/// loop's value (seed 19273 f2_21 kept the tape: "a binding whose shape
/// the reverse sweep cannot see").
#[differentiable]
fn element_out_of_a_loop(x: f64, y: f64) -> f64 {
    let v = if x < 1.0 {
        let (c, w) = scaled_pair(x, y);
        let u = w[0];
        let mut n = 0;
        let top = loop {
            if n >= 2 {
                break u;
            }
            n += 1;
        };
        c + top * u * u
    } else {
        x
    };
    v * y
}

fn element_out_of_a_loop_dual(x: Dual, y: Dual) -> Dual {
    let v = if x.value < 1.0 {
        let t = y.tanh();
        let (c, u) = (x * t, t * t);
        c + u * u * u
    } else {
        x
    };
    v * y
}

#[test]
fn a_tuple_calls_element_broken_out_of_a_loop_runs_compiled() {
    assert_eq!(element_out_of_a_loop_grad_path(), GradientPath::Compiled);
    for (x, y) in [(0.3, -0.7), (-1.2, 0.4), (1.5, 0.2)] {
        compiled_agrees(
            "element_out_of_a_loop",
            &[x, y],
            |stack| element_out_of_a_loop_adjoint(stack, x, y),
            || element_out_of_a_loop_grad(x, y),
            || element_out_of_a_loop_grad_tape(x, y),
            |a| element_out_of_a_loop_dual(a[0], a[1]),
        );
    }
}

/// A tuple call taken apart after an exit that leaves before it, and a
/// binding made of its `Vec` (`let u = w[0];`): in a branch after a
/// `return` inside it, and in a loop's body after a `break`. Where the
/// exit came first nothing is popped for the call, and nothing made of
/// it is recomputed in the reverse either (seed 19275 g0_16 panicked in
/// `f_grad` indexing the empty stand-in this way).
#[differentiable]
fn parts_after_an_exit(x: f64, y: f64) -> f64 {
    let mut s = y;
    if x > 0.0 {
        if x > 2.0 {
            return x * s;
        }
        let (c, w) = scaled_pair(x, y);
        let u = w[0];
        s += u * c;
    }
    let mut n = 0;
    loop {
        if n > 1 {
            break;
        }
        n += 1;
        let (c, w) = scaled_pair(s, x);
        let u = w[1];
        s = s * 0.5 + u * c;
    }
    s
}

fn parts_after_an_exit_dual(x: Dual, y: Dual) -> Dual {
    let pair = |a: Dual, b: Dual| {
        let t = b.tanh();
        (a * t, [t * t, a * b])
    };
    let mut s = y;
    if x.value > 0.0 {
        if x.value > 2.0 {
            return x * s;
        }
        let (c, w) = pair(x, y);
        s = s + w[0] * c;
    }
    for _ in 0..2 {
        let (c, w) = pair(s, x);
        s = s * 0.5 + w[1] * c;
    }
    s
}

#[test]
fn parts_of_a_tuple_call_after_an_exit_run_compiled() {
    assert_eq!(parts_after_an_exit_grad_path(), GradientPath::Compiled);
    for (x, y) in [(0.3, -0.7), (2.5, 0.4), (-1.2, 0.9)] {
        compiled_agrees(
            "parts_after_an_exit",
            &[x, y],
            |stack| parts_after_an_exit_adjoint(stack, x, y),
            || parts_after_an_exit_grad(x, y),
            || parts_after_an_exit_grad_tape(x, y),
            |a| parts_after_an_exit_dual(a[0], a[1]),
        );
    }
}

/// Two items of one slice passed to one call (`scaled_pair(x[0], x[1])`):
/// each a `&mut` of all of `x_bar` in the callee's reverse, which does not
/// borrow-check; the second takes its part in an adjoint of its own, added
/// into `x_bar[1]` after the call (seed 19281 g0_31 did not build).
#[differentiable]
fn items_of_one_slice(x: &[f64], y: f64) -> f64 {
    let mut s = y;
    if x[2] > 0.0 {
        let (c, w) = scaled_pair(x[0], x[1]);
        s += c * w[1];
    }
    let (c, w) = scaled_pair(x[2], x[2]);
    s * c + w[0]
}

fn items_of_one_slice_dual(x: &[Dual], y: Dual) -> Dual {
    let pair = |a: Dual, b: Dual| {
        let t = b.tanh();
        (a * t, [t * t, a * b])
    };
    let mut s = y;
    if x[2].value > 0.0 {
        let (c, w) = pair(x[0], x[1]);
        s = s + c * w[1];
    }
    let (c, w) = pair(x[2], x[2]);
    s * c + w[0]
}

#[test]
fn items_of_one_slice_passed_to_one_call_run_compiled() {
    assert_eq!(items_of_one_slice_grad_path(), GradientPath::Compiled);
    for (x, y) in [([0.3, -0.7, 0.9], 0.4), ([-1.2, 0.4, -0.5], 1.1)] {
        let got = compiled(|stack| items_of_one_slice_adjoint(stack, &x, y));
        agree(
            "items_of_one_slice",
            items_of_one_slice_grad(&x, y),
            items_of_one_slice_grad_tape(&x, y),
        );
        let point = [x[0], x[1], x[2], y];
        let (value, gradient) =
            dual_value_and_gradient(&point, |a| items_of_one_slice_dual(&a[..3], a[3]));
        assert_agree("items_of_one_slice", &[got.value], &[value]);
        let mut flat = got.gradient.0.clone();
        flat.push(got.gradient.1);
        assert_agree("items_of_one_slice", &flat, &gradient);
    }
}

/// A vector-valued helper the function below indexes where it calls it.
#[differentiable]
fn widened(a: f64, b: f64) -> Vec<f64> {
    vec![a * b, a.sin(), b]
}

/// A NaN (the square root of a negative number, which the tape rejects)
/// that the compiled sweep sees at `tanh`, then a vector-valued call
/// indexed in place: the sweep has given up when it reaches the call, and
/// its forward still runs as written until `f_grad` reruns the tape. The
/// call's value was an empty stand-in there, and `[2]` panicked (found by
/// random seed 19735); it is now the plain function's value.
#[differentiable]
fn nan_then_index(x: f64) -> f64 {
    let y = (x - 2.0).sqrt().tanh();
    widened(x, 1.5)[2] * x + y
}

#[test]
fn a_vector_call_after_the_sweep_gave_up_is_indexed_without_a_panic() {
    assert_eq!(nan_then_index_grad_path(), GradientPath::Compiled);
    // Finite: compiled, and the tape's numbers.
    let (ok, tape) = (
        nan_then_index_grad(3.0).unwrap(),
        nan_then_index_grad_tape(3.0).unwrap(),
    );
    assert_eq!((ok.value, ok.gradient), (tape.value, tape.gradient));
    // Below 2 (√ of a negative number is NaN): the compiled sweep gives up
    // before the call, `f_grad` reruns the tape, whose labelled error it returns, and
    // nothing panics. (As text: the error holds the NaN.)
    let reruns = autodiff::__adjoint::tape_reruns();
    let error = nan_then_index_grad(1.0).unwrap_err();
    assert_eq!(autodiff::__adjoint::tape_reruns(), reruns + 1);
    let tape = nan_then_index_grad_tape(1.0).unwrap_err();
    assert_eq!(error.to_string(), tape.to_string());
}

/// Early returns of constant results from vector-valued helpers:
/// `(0.0, Vec::new())`, `[0.0, 0.0]`, `vec![0.0; n]`. The recording twin
/// took them as written, `f64`s where its output holds tape values, and
/// the crate did not build.
#[differentiable]
fn centred(v: &[f64]) -> (f64, Vec<f64>) {
    if v.is_empty() {
        return (0.0, Vec::new());
    }
    let m = v.iter().sum::<f64>() / v.len() as f64;
    (m, v.iter().map(|x| x - m).collect())
}

#[differentiable]
fn ends(v: &[f64]) -> [f64; 2] {
    if v.len() < 2 {
        return [0.0, 0.0];
    }
    [v[0], v[v.len() - 1]]
}

#[differentiable]
fn doubled_or_zeros(v: &[f64], #[constant] keep: bool) -> Vec<f64> {
    if !keep {
        return vec![0.0; v.len()];
    }
    v.iter().map(|x| 2.0 * x).collect()
}

#[differentiable]
fn spread_loss(v: &[f64], #[constant] keep: bool) -> f64 {
    let (m, d) = centred(v);
    let e = ends(v);
    let w = doubled_or_zeros(v, keep);
    let mut total = m * e[1];
    for i in 0..d.len() {
        total += d[i] * d[i] + w[i] * e[0];
    }
    total
}

#[test]
fn a_vector_valued_helper_may_return_constants_early() {
    for (v, keep) in [
        (vec![1.5, -0.5, 2.0], true),
        (vec![1.5, -0.5, 2.0], false),
        (vec![0.75], true),
    ] {
        let grad = agree(
            "spread_loss",
            spread_loss_grad(&v, keep),
            spread_loss_grad_tape(&v, keep),
        );
        let want = crate::oracle::dual_gradient(&v, |v| {
            use crate::oracle::Dual;
            let n = v.len() as f64;
            let m = v.iter().fold(Dual::constant(0.0), |s, &x| s + x) * (1.0 / n);
            let (e0, e1) = if v.len() < 2 {
                (Dual::constant(0.0), Dual::constant(0.0))
            } else {
                (v[0], v[v.len() - 1])
            };
            let mut total = m * e1;
            for &x in v {
                let w = if keep { x * 2.0 } else { Dual::constant(0.0) };
                total = total + (x - m) * (x - m) + w * e0;
            }
            total
        });
        assert_agree("spread_loss", &grad.gradient, &want);
        assert!(spread_loss_check(&v, keep).unwrap().passed());
    }
}

/// A vector-valued call's binding read only through runs of it
/// (`zip(&p[..])`, `p[1..]`): taken for a number, its value went through
/// `scalar_of` and the generated code did not build (seed 19959's
/// `f4_6`).
#[differentiable]
fn three(x: &[f64]) -> Vec<f64> {
    vec![x[0] * x[1], x[0].sin(), x[1]]
}

#[differentiable]
fn through_runs(w: &[f64], x: &[f64]) -> f64 {
    let p = three(x);
    let dot = w.iter().zip(&p[..]).map(|(p, q)| p * q).sum::<f64>();
    dot + p[1..].iter().sum::<f64>()
}

#[test]
fn a_vector_calls_binding_read_through_runs_of_it() {
    assert_eq!(through_runs_grad_path(), GradientPath::Compiled);
    let (w, x) = (vec![0.5, -0.25, 1.0], vec![0.7, 1.4]);
    let grad = agree(
        "through_runs",
        through_runs_grad(&w, &x),
        through_runs_grad_tape(&w, &x),
    );
    let point = [w.clone(), x.clone()].concat();
    let want = crate::oracle::dual_gradient(&point, |q| {
        let (w, x) = (&q[..3], &q[3..]);
        let p = [x[0] * x[1], x[0].sin(), x[1]];
        w[0] * p[0] + w[1] * p[1] + w[2] * p[2] + p[1] + p[2]
    });
    assert_agree(
        "through_runs",
        &[grad.gradient.0.clone(), grad.gradient.1.clone()].concat(),
        &want,
    );
}

/// `zip(&p[..])` of a local in a body with an early `return`, whose top
/// level the reverse sweep does not see: the local's items are saved as
/// `zip(p.iter())`'s are (seed 0x6f00d's `f3_9` kept the tape). A call's
/// value, a local array, each read whole.
#[differentiable]
fn runs_after_a_return(w: &[f64], x: &[f64]) -> f64 {
    let p = three(x);
    let q = [x[0] * x[0], x[1], w[0]];
    if w[2] > 4.0 {
        return -x[0];
    }
    let dot = w.iter().zip(&p[..]).map(|(a, b)| a * b).sum::<f64>();
    dot * w.iter().zip(&q[..]).map(|(a, b)| a * b.sin()).sum::<f64>()
}

#[test]
fn zip_of_a_whole_local_after_an_early_return_is_compiled() {
    assert_eq!(runs_after_a_return_grad_path(), GradientPath::Compiled);
    for w in [vec![0.5, -0.25, 1.0], vec![0.5, -0.25, 5.0]] {
        let x = vec![0.7, 1.4];
        let grad = agree(
            "runs_after_a_return",
            runs_after_a_return_grad(&w, &x),
            runs_after_a_return_grad_tape(&w, &x),
        );
        let point = [w.clone(), x.clone()].concat();
        let want = crate::oracle::dual_gradient(&point, |v| {
            let (w, x) = (&v[..3], &v[3..]);
            if w[2].value > 4.0 {
                return -x[0];
            }
            let p = [x[0] * x[1], x[0].sin(), x[1]];
            let q = [x[0] * x[0], x[1], w[0]];
            (w[0] * p[0] + w[1] * p[1] + w[2] * p[2])
                * (w[0] * q[0].sin() + w[1] * q[1].sin() + w[2] * q[2].sin())
        });
        assert_agree(
            "runs_after_a_return",
            &[grad.gradient.0.clone(), grad.gradient.1.clone()].concat(),
            &want,
        );
    }
}

/// `zip(&v[..])` of a `Vec` written after each trip reads it: its items
/// are saved per trip, as `zip(v.iter())`'s are.
#[differentiable]
fn runs_of_a_changing_vec(w: &[f64], x: f64) -> f64 {
    let mut v = vec![x, x * 2.0, x.sin()];
    let mut s = 0.0;
    for k in 0..2 {
        s += w.iter().zip(&v[..]).map(|(a, b)| a * b).sum::<f64>();
        v[k] = s * x;
    }
    s
}

#[test]
fn zip_of_a_whole_vec_that_changes_is_compiled() {
    assert_eq!(runs_of_a_changing_vec_grad_path(), GradientPath::Compiled);
    let (w, x) = (vec![0.5, -0.25, 1.0], 0.7);
    let grad = agree(
        "runs_of_a_changing_vec",
        runs_of_a_changing_vec_grad(&w, x),
        runs_of_a_changing_vec_grad_tape(&w, x),
    );
    let point = [w.clone(), vec![x]].concat();
    let want = crate::oracle::dual_gradient(&point, |p| {
        let (w, x) = (&p[..3], p[3]);
        let mut v = [x, x * 2.0, x.sin()];
        let mut s = crate::oracle::Dual::constant(0.0);
        for k in 0..2 {
            s = s + w[0] * v[0] + w[1] * v[1] + w[2] * v[2];
            v[k] = s * x;
        }
        s
    });
    assert_agree(
        "runs_of_a_changing_vec",
        &[grad.gradient.0.clone(), vec![grad.gradient.1]].concat(),
        &want,
    );
}

/// Rows of softmaxes pushed in a loop, in a body with an early `return`:
/// whether the pushed call returns a number or a vector is not known
/// where the reverse sweep shapes the adjoint, so the tape computes it
/// (this built nothing before: the adjoint took the rows for numbers).
#[differentiable]
fn rows_pushed_before_a_return(z: &[f64]) -> f64 {
    let mut rows = Vec::new();
    for _ in 0..2 {
        rows.push(softmax(z));
    }
    if z[0] > 5.0 {
        return 1.0;
    }
    -rows[1][2].ln()
}

#[test]
fn rows_of_vector_calls_pushed_in_a_body_with_return_keep_the_tape() {
    let z = [0.5, 1.2, -0.7, 0.9];
    let got = rows_pushed_before_a_return_grad(&z).unwrap();
    // −ln p₂ has gradient p − e₂.
    let mut want = probabilities(&z);
    want[2] -= 1.0;
    assert_agree("rows before a return", &got.gradient, &want);
    assert_eq!(got.value, -probabilities(&z)[2].ln());
    assert!(matches!(
        rows_pushed_before_a_return_grad_path(),
        GradientPath::Tape { construct, .. } if construct.starts_with("a call pushed onto a Vec in a body with return")
    ));
}

/// A vector call's value moved into another binding, put in a `Vec` of
/// rows, and a tuple call's value taken apart later (found by probing:
/// none built, E0608/E0382). Each keeps the tape, named, with the tape's
/// gradient.
#[differentiable]
fn moved_call(z: &[f64]) -> f64 {
    let p = softmax(z);
    let q = p;
    q[0] * 3.0 + q[2]
}

#[allow(clippy::useless_vec)] // a `Vec` of rows, as written
#[differentiable]
fn rows_of_calls(a: &[f64], b: &[f64]) -> f64 {
    let m = vec![softmax(a), softmax(b)];
    m[1][0] * m[0][2]
}

#[differentiable]
fn sines_and_squares(x: &[f64]) -> (Vec<f64>, f64) {
    let v: Vec<f64> = x.iter().map(|a| a.sin()).collect();
    let s = x.iter().map(|a| a * a).sum::<f64>();
    (v, s)
}

#[differentiable]
fn tuple_taken_apart_later(x: &[f64]) -> f64 {
    let t = sines_and_squares(x);
    let (v, s) = t;
    v[0] * s
}

#[test]
fn vector_calls_moved_or_collected_build_and_keep_the_tape() {
    let (a, b) = (vec![0.3, -0.4, 1.1], vec![0.5, 0.2, -0.9]);
    for path in [
        moved_call_grad_path(),
        rows_of_calls_grad_path(),
        tuple_taken_apart_later_grad_path(),
    ] {
        assert!(matches!(path, GradientPath::Tape { .. }), "{path:?}");
    }
    // 3 p₀ + p₂: the pullback of (3, 0, 1).
    let got = moved_call_grad(&a).unwrap();
    assert_agree("moved_call", &got.gradient, &pullback(&a, &[3.0, 0.0, 1.0]));
    // softmax(b)₀ · softmax(a)₂.
    let got = rows_of_calls_grad(&a, &b).unwrap();
    let (pa, pb) = (probabilities(&a), probabilities(&b));
    assert_agree(
        "rows_of_calls a",
        &got.gradient.0,
        &pullback(&a, &[0.0, 0.0, pb[0]]),
    );
    assert_agree(
        "rows_of_calls b",
        &got.gradient.1,
        &pullback(&b, &[pa[2], 0.0, 0.0]),
    );
    // sin x₀ · Σ x²: ∂/∂x₀ = cos x₀ Σ x² + 2 x₀ sin x₀, ∂/∂xᵢ = 2 xᵢ sin x₀.
    let got = tuple_taken_apart_later_grad(&a).unwrap();
    let squares: f64 = a.iter().map(|v| v * v).sum();
    let want: Vec<f64> = (0..3)
        .map(|i| {
            let own = if i == 0 { a[0].cos() * squares } else { 0.0 };
            own + 2.0 * a[i] * a[0].sin()
        })
        .collect();
    assert_agree("tuple_taken_apart_later", &got.gradient, &want);
}

/// A closure's parameter named like a vector call's binding (`let p =
/// softmax(z); .. .map(|p| ..)`, names students reuse): the loop the
/// closure is read as binds it under a name of its own (found by probing:
/// it kept the tape, blamed on another line).
#[differentiable]
fn closure_named_like_a_call(z: &[f64], w: &[f64]) -> f64 {
    let p = softmax(z);
    let s = p[0];
    let h: f64 = w.iter().map(|p| p * 2.0).sum();
    let q: f64 = w.iter().zip(z).map(|(p, s)| p * s).sum();
    h * s + q
}

#[test]
fn a_closure_parameter_named_like_a_calls_binding_is_compiled() {
    assert_eq!(
        closure_named_like_a_call_grad_path(),
        GradientPath::Compiled
    );
    let (z, w) = (vec![0.3, -0.4, 1.1], vec![0.5, 0.2, -0.9]);
    let got = agree(
        "closure_named_like_a_call",
        closure_named_like_a_call_grad(&z, &w),
        closure_named_like_a_call_grad_tape(&z, &w),
    );
    // h·p₀ + Σ wᵢzᵢ, h = 2 Σ w.
    let h: f64 = w.iter().map(|v| 2.0 * v).sum();
    let mut want_z = pullback(&z, &[h, 0.0, 0.0]);
    for (g, v) in want_z.iter_mut().zip(&w) {
        *g += v;
    }
    let p0 = probabilities(&z)[0];
    let want_w: Vec<f64> = z.iter().map(|v| 2.0 * p0 + v).collect();
    assert_agree("closure_named_like_a_call z", &got.gradient.0, &want_z);
    assert_agree("closure_named_like_a_call w", &got.gradient.1, &want_w);
}

// ---------------------------------------------------------------------
// Found by probe 18: a skinning chain as hand tracking writes it, a `Vec`
// of the 2×2 matrices helpers return, `world[0] = local(x₀)`, `world[i] =
// world[i − 1] · local(xᵢ)`. Pushed in the arms of an `if`, it did not
// build (the `Vec` was taken to hold numbers: a call's value is one unless
// the body shows otherwise, and the body indexed only the `Vec`); pushed
// as `w.push(mul2(w[i - 1], local(x[i])))`, it kept the tape ("a
// vector-valued call of a call": the inner call was not bound first in a
// statement that writes). A value pushed onto a `Vec` indexed deeper is
// a row as deep; a method called on a binding evaluates its arguments
// first, whose calls are bound before the statement.
// ---------------------------------------------------------------------

#[differentiable]
fn joint(a: f64) -> [[f64; 2]; 2] {
    [[a.cos(), -a.sin()], [a.sin(), 2.0 * a.cos()]]
}

#[differentiable]
fn compose(a: [[f64; 2]; 2], b: [[f64; 2]; 2]) -> [[f64; 2]; 2] {
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
fn skinned_in_branches(x: &[f64]) -> f64 {
    let mut world = Vec::new();
    for i in 0..x.len() {
        let local = joint(x[i]);
        if i == 0 {
            world.push(local);
        } else {
            world.push(compose(world[i - 1], local));
        }
    }
    let mut s = 0.0;
    for i in 0..world.len() {
        s += world[i][0][1] * (i as f64 + 1.0) + world[i][1][1];
    }
    s
}

#[differentiable]
fn skinned_by_push(x: &[f64]) -> f64 {
    let mut world: Vec<[[f64; 2]; 2]> = Vec::new();
    world.push(joint(x[0]));
    for i in 1..x.len() {
        world.push(compose(world[i - 1], joint(x[i])));
    }
    let mut s = 0.0;
    for i in 0..world.len() {
        s += world[i][0][1] * (i as f64 + 1.0) + world[i][1][1];
    }
    s
}

/// The matrices bound by `let`, pushed, then walked by `for m in &w`
/// and read two deep (probe 22: E0608, the `Vec` taken to hold numbers).
#[differentiable]
fn skinned_walked(x: &[f64]) -> f64 {
    let mut world = Vec::new();
    for i in 0..x.len() {
        let local = joint(x[i]);
        world.push(local);
    }
    let mut s = 0.0;
    for (i, m) in world.iter().enumerate() {
        s += m[0][1] * (i as f64 + 1.0) + m[1][1];
    }
    for m in &world {
        s += m[1][0] * m[0][0];
    }
    s
}

/// The chain started by `vec![joint(..)]`, grown by pushes and walked
/// (probe 22: E0308, since before this session): the `Vec` is taken to
/// hold numbers, which the walk's `m[1][0]` contradicts, so this keeps
/// the tape with that reason rather than failing to build.
#[differentiable]
fn chained_from_a_list(x: &[f64]) -> f64 {
    let mut world = vec![joint(0.1)];
    for i in 0..x.len() {
        world.push(compose(world[i], joint(x[i])));
    }
    let mut s = 0.0;
    for m in &world {
        s += m[1][0] * m[0][0];
    }
    s
}

/// [`joint`] on dual numbers, the oracle's.
fn joint_dual(a: Dual) -> [[Dual; 2]; 2] {
    [[a.cos(), -a.sin()], [a.sin(), a.cos() * 2.0]]
}

/// [`compose`] on dual numbers, the oracle's.
fn compose_dual(a: [[Dual; 2]; 2], b: [[Dual; 2]; 2]) -> [[Dual; 2]; 2] {
    let mut out = [[Dual::constant(0.0); 2]; 2];
    for i in 0..2 {
        for j in 0..2 {
            out[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j];
        }
    }
    out
}

fn chained_dual(x: &[Dual]) -> Dual {
    let mut world = vec![joint_dual(Dual::constant(0.1))];
    for (i, &a) in x.iter().enumerate() {
        let next = compose_dual(world[i], joint_dual(a));
        world.push(next);
    }
    let mut s = Dual::constant(0.0);
    for m in &world {
        s = s + m[1][0] * m[0][0];
    }
    s
}

fn skinned_walked_dual(x: &[Dual]) -> Dual {
    let mut s = Dual::constant(0.0);
    for (i, &a) in x.iter().enumerate() {
        let m = joint_dual(a);
        s = s + m[0][1] * (i as f64 + 1.0) + m[1][1] + m[1][0] * m[0][0];
    }
    s
}

fn skinned_dual(x: &[Dual]) -> Dual {
    let mut world = vec![joint_dual(x[0])];
    for i in 1..x.len() {
        let next = compose_dual(world[i - 1], joint_dual(x[i]));
        world.push(next);
    }
    let mut s = Dual::constant(0.0);
    for (i, m) in world.iter().enumerate() {
        s = s + m[0][1] * (i as f64 + 1.0) + m[1][1];
    }
    s
}

#[test]
fn a_vec_of_matrices_helpers_return() {
    assert_eq!(skinned_in_branches_grad_path(), GradientPath::Compiled);
    assert_eq!(skinned_by_push_grad_path(), GradientPath::Compiled);
    let x = [0.3, -0.7, 1.1, 0.4];
    compiled_agrees(
        "skinned_in_branches",
        &x,
        |stack| skinned_in_branches_adjoint(stack, &x),
        || skinned_in_branches_grad(&x),
        || skinned_in_branches_grad_tape(&x),
        skinned_dual,
    );
    assert!(matches!(
        chained_from_a_list_grad_path(),
        GradientPath::Tape { construct, .. } if construct.contains("indexed more times")
    ));
    let got = agree(
        "chained_from_a_list",
        chained_from_a_list_grad(&x),
        chained_from_a_list_grad_tape(&x),
    );
    assert_agree(
        "chained_from_a_list",
        &got.gradient,
        &crate::oracle::dual_gradient(&x, chained_dual),
    );
    assert_eq!(skinned_walked_grad_path(), GradientPath::Compiled);
    compiled_agrees(
        "skinned_walked",
        &x,
        |stack| skinned_walked_adjoint(stack, &x),
        || skinned_walked_grad(&x),
        || skinned_walked_grad_tape(&x),
        skinned_walked_dual,
    );
    compiled_agrees(
        "skinned_by_push",
        &x,
        |stack| skinned_by_push_adjoint(stack, &x),
        || skinned_by_push_grad(&x),
        || skinned_by_push_grad_tape(&x),
        skinned_dual,
    );
}

// ---------------------------------------------------------------------
// The course's logits walked row by row: a helper's `Vec<Vec<f64>>`
// bound, each row borrowed (`let row = &lg[t];`) and read by index, by
// `iter()` or passed whole to another helper. The row's own indexing
// shows the value is a matrix (probe 23 found it kept the tape: "a
// binding whose shape the reverse sweep cannot see").
// ---------------------------------------------------------------------

#[differentiable]
fn row_logits(w: &[Vec<f64>], x: &[Vec<f64>]) -> Vec<Vec<f64>> {
    let mut out = Vec::new();
    for xi in x {
        let mut row = Vec::new();
        for r in w {
            row.push(r.iter().zip(xi).map(|(a, b)| a * b).sum::<f64>());
        }
        out.push(row);
    }
    out
}

#[differentiable]
fn cross_entropy_by_rows(
    w: &[Vec<f64>],
    #[constant] x: &[Vec<f64>],
    #[constant] y: &[usize],
) -> f64 {
    let lg = row_logits(w, x);
    let mut loss = 0.0;
    for t in 0..y.len() {
        let row = &lg[t];
        let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let lse = m + row.iter().map(|v| (v - m).exp()).sum::<f64>().ln();
        loss += lse - row[y[t]];
    }
    loss / y.len() as f64
}

#[differentiable]
fn probabilities_by_rows(w: &[Vec<f64>], #[constant] x: &[Vec<f64>]) -> f64 {
    let lg = row_logits(w, x);
    let mut total = 0.0;
    for t in 0..x.len() {
        let row = &lg[t];
        let p = softmax(row);
        total += p[0] * (t as f64 + 1.0);
    }
    total
}

fn row_logits_dual(v: &[Dual], x: &[Vec<f64>], classes: usize) -> Vec<Vec<Dual>> {
    let d = x[0].len();
    x.iter()
        .map(|xi| {
            (0..classes)
                .map(|c| {
                    (0..d).fold(Dual::constant(0.0), |s, j| {
                        s + v[c * d + j] * Dual::constant(xi[j])
                    })
                })
                .collect()
        })
        .collect()
}

fn softmax_dual(z: &[Dual]) -> Vec<Dual> {
    let m = z.iter().fold(f64::NEG_INFINITY, |m, v| m.max(v.value));
    let e: Vec<Dual> = z.iter().map(|v| (*v - Dual::constant(m)).exp()).collect();
    let s = e.iter().fold(Dual::constant(0.0), |s, v| s + *v);
    e.iter().map(|v| *v / s).collect()
}

#[test]
fn rows_of_a_helpers_matrix_borrowed_by_index_compile() {
    let w = vec![vec![0.1, 0.2], vec![-0.3, 0.4], vec![0.5, -0.6]];
    let x = vec![vec![1.0, 2.0], vec![-1.0, 0.5], vec![0.3, -0.7]];
    let y = [2, 0, 1];
    let point: Vec<f64> = w.iter().flatten().copied().collect();
    assert_eq!(cross_entropy_by_rows_grad_path(), GradientPath::Compiled);
    assert_eq!(probabilities_by_rows_grad_path(), GradientPath::Compiled);
    let flat = |g: &Vec<Vec<f64>>| g.iter().flatten().copied().collect::<Vec<f64>>();
    let got = agree(
        "cross_entropy_by_rows",
        cross_entropy_by_rows_grad(&w, &x, &y),
        cross_entropy_by_rows_grad_tape(&w, &x, &y),
    );
    let (value, want) = dual_value_and_gradient(&point, |v| {
        let lg = row_logits_dual(v, &x, 3);
        let mut loss = Dual::constant(0.0);
        for (t, &yt) in y.iter().enumerate() {
            let p = softmax_dual(&lg[t]);
            loss = loss - p[yt].ln();
        }
        loss / Dual::constant(y.len() as f64)
    });
    assert_agree("cross_entropy_by_rows", &flat(&got.gradient), &want);
    assert_agree("cross_entropy_by_rows value", &[got.value], &[value]);
    let got = agree(
        "probabilities_by_rows",
        probabilities_by_rows_grad(&w, &x),
        probabilities_by_rows_grad_tape(&w, &x),
    );
    let (_, want) = dual_value_and_gradient(&point, |v| {
        let lg = row_logits_dual(v, &x, 3);
        let mut total = Dual::constant(0.0);
        for (t, row) in lg.iter().enumerate() {
            total = total + softmax_dual(row)[0] * Dual::constant(t as f64 + 1.0);
        }
        total
    });
    assert_agree("probabilities_by_rows", &flat(&got.gradient), &want);
}

// Another binding of a borrowed row's name, indexed otherwise, is no row
// of the helper's value (probe 24: E0277 and E0308, the depth was read
// from every binding of the name).

#[differentiable]
fn row_values(w: &[f64]) -> Vec<f64> {
    let mut o = Vec::new();
    for v in w {
        o.push(v * v);
    }
    o
}

#[differentiable]
#[allow(clippy::redundant_slicing)]
fn borrowed_row_named_twice(w: &[f64], m: &[Vec<f64>]) -> f64 {
    let l = row_logits(&[w.to_vec()], &[w.to_vec(), w.to_vec()]);
    let mut s = 0.0;
    for t in 0..2 {
        let row = &l[t];
        s += row[0] * row[0];
    }
    let row = &m[..];
    s + row[1][0]
}

#[differentiable]
fn borrowed_number_named_twice(w: &[f64], #[constant] x: &[f64]) -> f64 {
    let v = row_values(w);
    let mut s = 0.0;
    for t in 0..v.len() {
        let r = &v[t];
        s += r * r;
    }
    let r = x;
    s + r[0]
}

#[test]
fn a_borrowed_rows_name_bound_again_builds() {
    let w = [0.3, 0.5];
    let m = vec![vec![1.0, 2.0], vec![3.0, 4.0]];
    let got = agree(
        "borrowed_row_named_twice",
        borrowed_row_named_twice_grad(&w, &m),
        borrowed_row_named_twice_grad_tape(&w, &m),
    );
    // s = 2 (w·w)²: ∂w = 8 (w·w) w; ∂m[1][0] = 1.
    let ww = w[0] * w[0] + w[1] * w[1];
    assert_agree(
        "borrowed_row_named_twice",
        &got.gradient.0,
        &[8.0 * ww * w[0], 8.0 * ww * w[1]],
    );
    assert_agree(
        "borrowed_row_named_twice m",
        &got.gradient.1.concat(),
        &[0.0, 0.0, 1.0, 0.0],
    );
    let got = agree(
        "borrowed_number_named_twice",
        borrowed_number_named_twice_grad(&w, &[1.0]),
        borrowed_number_named_twice_grad_tape(&w, &[1.0]),
    );
    // s = Σ w⁴: 4 w³.
    assert_agree(
        "borrowed_number_named_twice",
        &got.gradient,
        &[4.0 * w[0].powi(3), 4.0 * w[1].powi(3)],
    );
}
