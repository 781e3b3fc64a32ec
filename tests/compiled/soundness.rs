//! The compiled adjoint's silent wrong answers, each reduced to the
//! program that showed it: every function here is compiled (its
//! `f_adjoint` returns `Some` on a fresh stack and leaves the stack empty),
//! and `f_grad` agrees with a closed form (or dual numbers written by hand),
//! with central differences (`f_check`) and with the tape (`f_grad_tape`).
//! Before the fixes each of these returned `Ok` with a wrong value or
//! gradient, or failed to build, or panicked.
//!
//! Bound: the closed forms and the tape evaluate the same derivative in
//! other orders, over at most a few dozen operations of magnitude ≲ 10³, so
//! they differ by a few ulps; `AGREE` = 1e-12 of the largest component is
//! well above that and far below any of the errors these tests pin.

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{assert_agree, compiled};

fn sech2(x: f64) -> f64 {
    let c = x.cosh();
    1.0 / (c * c)
}

// ---------------------------------------------------------------------
// Two saved results of the same method in one statement.
// ---------------------------------------------------------------------

#[differentiable]
fn two_tanh_in_a_loop(x: f64) -> f64 {
    let mut s = 0.0;
    for _ in 0..2 {
        s += (x * 2.0).tanh() * (x * 3.0).tanh();
    }
    s
}

#[test]
fn two_saved_results_of_one_method_in_a_loop_keep_their_own_slots() {
    for x in [0.37, -0.8, 1.3] {
        let got = compiled(|stack| two_tanh_in_a_loop_adjoint(stack, x));
        let (a, b) = ((2.0 * x).tanh(), (3.0 * x).tanh());
        assert_eq!(got.value, two_tanh_in_a_loop(x));
        assert!((got.value - 2.0 * a * b).abs() < 1e-15);
        let want = 2.0 * (2.0 * sech2(2.0 * x) * b + a * 3.0 * sech2(3.0 * x));
        assert_agree("two tanh", &[got.gradient], &[want]);
        let grad = two_tanh_in_a_loop_grad(x).unwrap();
        let tape = two_tanh_in_a_loop_grad_tape(x).unwrap();
        assert_agree("two tanh tape", &[grad.gradient], &[tape.gradient]);
        assert!(two_tanh_in_a_loop_check(x).unwrap().passed());
    }
}

#[differentiable]
fn nested_exp_behind_return(x: f64) -> f64 {
    if x > -5.0 {
        return x.exp().exp().exp();
    }
    x
}

#[test]
fn a_chain_of_one_method_behind_an_early_return() {
    let x = 0.37_f64;
    let got = compiled(|stack| nested_exp_behind_return_adjoint(stack, x));
    let (e1, e2) = (x.exp(), x.exp().exp());
    let e3 = e2.exp();
    assert_eq!(got.value, e3);
    assert_agree("exp exp exp", &[got.gradient], &[e3 * e2 * e1]);
    let tape = nested_exp_behind_return_grad_tape(x).unwrap();
    assert_agree("exp exp exp tape", &[got.gradient], &[tape.gradient]);
}

#[differentiable]
fn two_sin_in_a_branch(x: f64, y: f64) -> f64 {
    let mut s = x;
    if y > 0.0 {
        s = (x * y).sin() + (x + y).sin() * s;
    } else {
        s -= y;
    }
    s
}

#[test]
fn two_saved_results_of_one_method_in_a_branch() {
    let (x, y) = (0.37, 0.9);
    let got = compiled(|stack| two_sin_in_a_branch_adjoint(stack, x, y));
    let want_x = y * (x * y).cos() + (x + y).cos() * x + (x + y).sin();
    let want_y = x * (x * y).cos() + (x + y).cos() * x;
    assert_agree(
        "two sin",
        &[got.gradient.0, got.gradient.1],
        &[want_x, want_y],
    );
}

// ---------------------------------------------------------------------
// A call of an annotated function whose arguments carry no derivative.
// ---------------------------------------------------------------------

#[differentiable]
fn sq(a: f64) -> f64 {
    a * a
}

#[differentiable]
fn tanh_times_constant_call(x: f64) -> f64 {
    let mut s = x;
    for i in 0..2 {
        s = s.tanh() * sq(i as f64 + 1.0);
    }
    s
}

#[test]
fn an_annotated_call_on_constants_leaves_the_stack_aligned() {
    for x in [0.37, -1.2] {
        let got = compiled(|stack| tanh_times_constant_call_adjoint(stack, x));
        let t = x.tanh();
        assert_eq!(got.value, 4.0 * t.tanh());
        let want = 4.0 * sech2(t) * sech2(x);
        assert_agree("tanh sq", &[got.gradient], &[want]);
        let tape = tanh_times_constant_call_grad_tape(x).unwrap();
        assert_agree("tanh sq tape", &[got.gradient], &[tape.gradient]);
        assert!(tanh_times_constant_call_check(x).unwrap().passed());
    }
}

// ---------------------------------------------------------------------
// A `let` of a block with effects and a constant value.
// ---------------------------------------------------------------------

#[differentiable]
#[allow(clippy::let_unit_value)]
fn block_with_effects(x: f64, y: f64) -> f64 {
    let mut y = y;
    let _a = {
        y += x * y;
        0.5
    };
    y
}

#[test]
fn a_constant_valued_block_keeps_its_effects() {
    let (x, y) = (0.37, 0.58);
    let got = compiled(|stack| block_with_effects_adjoint(stack, x, y));
    assert_eq!(got.value, y + x * y);
    assert_agree("block", &[got.gradient.0, got.gradient.1], &[y, 1.0 + x]);
    let tape = block_with_effects_grad_tape(x, y).unwrap().gradient;
    assert_agree("block tape", &[tape.0, tape.1], &[y, 1.0 + x]);
}

// ---------------------------------------------------------------------
// A dead binding that overflows where the tape rejects it is the tape's
// error, not `Ok`.
// ---------------------------------------------------------------------

#[differentiable]
#[allow(unused_variables)]
fn dead_overflow(x: f64) -> f64 {
    let unused = x.exp() * 1e308 * 10.0;
    let unread = (x * 1000.0).exp();
    x * 2.0
}

#[test]
fn a_dead_binding_that_overflows_is_the_tapes_error() {
    // At 0.37 `x.exp() * 1e308 * 10.0` is +∞ with finite local
    // derivatives and is never read: an infinite intermediate the tape
    // takes, so both paths answer.
    for got in [dead_overflow_grad(0.37), dead_overflow_grad_tape(0.37)] {
        assert_eq!(got.unwrap().gradient, 2.0);
    }
    // At 0.8, `exp(800)` overflows with an infinite derivative: the tape's
    // error, on both paths.
    let tape = dead_overflow_grad_tape(0.8).unwrap_err();
    let compiled = dead_overflow_grad(0.8).unwrap_err();
    assert_eq!(tape.code(), "non-finite-result");
    assert_eq!(compiled.to_string(), tape.to_string());
    // Where nothing overflows, the compiled path answers.
    let ok = compiled_at(-800.0);
    assert_eq!(ok.gradient, 2.0);
}

fn compiled_at(x: f64) -> ValueAndGradient<f64> {
    compiled(|stack| dead_overflow_adjoint(stack, x))
}

// ---------------------------------------------------------------------
// An adjoint that reaches only a constant: `s.sqrt()` of a sum that ran
// no trip is √0, whose derivative is ∞. The tape adds it into the node of
// `s`'s constant start and rejects it; the compiled adjoint dropped it
// there and returned `Ok` (`norm(&[])`).
// ---------------------------------------------------------------------

#[differentiable]
fn norm_plus(x: &[f64], y: f64) -> f64 {
    let mut s = 0.0;
    for v in x {
        s += v * v;
    }
    s.sqrt() + y
}

#[differentiable]
fn norm_by_chain(x: &[f64], y: f64) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt() * y
}

#[differentiable]
fn norm_after_reset(x: &[f64], y: f64) -> f64 {
    let mut s = y * y;
    let t = s.sqrt();
    s = 0.0;
    for v in x {
        s += v * v;
    }
    s.sqrt() + t
}

#[differentiable]
fn norms_per_row(x: &[f64], y: f64, rows: usize) -> f64 {
    let mut total = y;
    for _ in 0..rows {
        let mut acc = 0.0;
        for v in x {
            acc += v * v;
        }
        total += acc.sqrt();
    }
    total
}

#[differentiable]
fn root_of_a_zeroed_row(x: &[f64], y: f64) -> f64 {
    let mut v = vec![0.0; 2];
    for i in 0..x.len().min(2) {
        v[i] = x[i] * 1.0;
    }
    v[0].sqrt() + y
}

#[test]
fn an_infinite_adjoint_of_a_constant_start_is_the_tapes_error() {
    type Grad = fn(&[f64], f64) -> Result<ValueAndGradient<(Vec<f64>, f64)>, ScalarAutodiffError>;
    let cases: [(&str, Grad, Grad); 5] = [
        ("norm_plus", norm_plus_grad, norm_plus_grad_tape),
        ("norm_by_chain", norm_by_chain_grad, norm_by_chain_grad_tape),
        (
            "norm_after_reset",
            norm_after_reset_grad,
            norm_after_reset_grad_tape,
        ),
        (
            "norms_per_row",
            |x, y| norms_per_row_grad(x, y, 2),
            |x, y| norms_per_row_grad_tape(x, y, 2),
        ),
        (
            "root_of_a_zeroed_row",
            root_of_a_zeroed_row_grad,
            root_of_a_zeroed_row_grad_tape,
        ),
    ];
    for (name, grad, tape) in cases {
        assert_eq!(
            grad_path(name),
            GradientPath::Compiled,
            "{name} takes the compiled path"
        );
        // Nothing reaches `s`: √0 has an infinite derivative, the tape's
        // error on both paths.
        let (got, want) = (grad(&[], 1.5).unwrap_err(), tape(&[], 1.5).unwrap_err());
        assert_eq!(got.to_string(), want.to_string(), "{name} at []");
        assert_eq!(want.code(), "non-finite-local-derivative", "{name}");
        // Away from 0 both answer, with the closed form's gradient.
        let x = [0.6, -0.8];
        let got = grad(&x, 1.5).unwrap();
        let want = tape(&x, 1.5).unwrap();
        assert_eq!(got.value, want.value, "{name}");
        assert_agree(name, &got.gradient.0, &want.gradient.0);
        assert_agree(name, &[got.gradient.1], &[want.gradient.1]);
    }
    // The closed forms: ∂‖x‖/∂xᵢ = xᵢ/‖x‖ = xᵢ for ‖x‖ = 1.
    let got = norm_plus_grad(&[0.6, -0.8], 1.5).unwrap();
    assert_agree("norm_plus closed form", &got.gradient.0, &[0.6, -0.8]);
    let got = root_of_a_zeroed_row_grad(&[4.0], 1.5).unwrap();
    assert_agree("root of a row", &got.gradient.0, &[0.25]);
    // With no row run, `acc` is never made: nothing to reject.
    let none = norms_per_row_grad(&[], 1.5, 0).unwrap();
    assert_eq!(none.gradient, (vec![], 1.0));
}

fn grad_path(name: &str) -> GradientPath {
    match name {
        "norm_plus" => norm_plus_grad_path(),
        "norm_by_chain" => norm_by_chain_grad_path(),
        "norm_after_reset" => norm_after_reset_grad_path(),
        "norms_per_row" => norms_per_row_grad_path(),
        _ => root_of_a_zeroed_row_grad_path(),
    }
}

// ---------------------------------------------------------------------
// Valid code that did not build.
// ---------------------------------------------------------------------

#[differentiable]
fn hh(a: f64, b: f64) -> f64 {
    a * b + b
}

#[differentiable]
fn recip_as_argument(x: f64) -> f64 {
    hh(x, x.recip())
}

#[test]
fn a_saved_method_result_as_a_call_argument() {
    let x = 0.37_f64;
    let got = compiled(|stack| recip_as_argument_adjoint(stack, x));
    // x * (1/x) + 1/x: derivative -1/x².
    assert_agree("hh", &[got.gradient], &[-1.0 / (x * x)]);
}

#[differentiable]
fn early_constant_return(x: f64) -> f64 {
    let y = if x > 0.0 { x } else { return 0.0 };
    y * y
}

#[test]
fn a_return_of_a_constant_inside_an_expression() {
    let got = compiled(|stack| early_constant_return_adjoint(stack, 0.37));
    assert_agree("early", &[got.gradient], &[0.74]);
    let got = compiled(|stack| early_constant_return_adjoint(stack, -0.37));
    assert_eq!((got.value, got.gradient), (0.0, 0.0));
}

#[differentiable]
fn left_by_return(x: f64) -> f64 {
    let mut y = x;
    loop {
        if y > 10.0 {
            return y;
        }
        y *= 3.0;
    }
}

#[test]
fn a_loop_left_only_by_return() {
    // 0.37 · 3⁴ = 29.97 > 10 after four rounds.
    let got = compiled(|stack| left_by_return_adjoint(stack, 0.37));
    assert_eq!(got.value, left_by_return(0.37));
    assert_agree("left by return", &[got.gradient], &[81.0]);
}

// ---------------------------------------------------------------------
// `push` onto a `Vec` that did not start empty.
// ---------------------------------------------------------------------

#[differentiable]
fn features(x: &[f64]) -> f64 {
    let mut f = x.to_vec();
    f.push(x[0] * x[1]);
    f[0] + f[1]
}

#[differentiable]
fn features_product(x: &[f64]) -> f64 {
    let mut f = x.to_vec();
    f.push(x[0] * x[1]);
    f[2] * f[0]
}

#[test]
fn push_after_to_vec() {
    let x = [2.0, 3.0];
    let got = features_grad(&x).unwrap();
    assert_eq!(got.value, 5.0);
    assert_eq!(got.gradient, vec![1.0, 1.0]);
    let got = compiled(|stack| features_product_adjoint(stack, &x));
    // x0² x1: (2 x0 x1, x0²)
    assert_eq!(got.value, 12.0);
    assert_agree("features product", &got.gradient, &[12.0, 4.0]);
    let tape = features_product_grad_tape(&x).unwrap().gradient;
    assert_agree("features product tape", &tape, &[12.0, 4.0]);
}

#[differentiable]
fn grow(mut v: Vec<f64>) -> f64 {
    v.push(v[0] * 2.0);
    v[1]
}

#[test]
fn push_onto_a_parameter_by_value() {
    let got = grow_grad(vec![1.5, 4.0]).unwrap();
    assert_eq!(got.value, 4.0);
    assert_eq!(got.gradient, vec![0.0, 1.0]);
    let got = grow_grad(vec![1.5]).unwrap();
    assert_eq!(got.value, 3.0);
    assert_eq!(got.gradient, vec![2.0]);
}

#[differentiable]
fn biased(x: &[f64], w: &[f64]) -> f64 {
    let mut feats = x.to_vec();
    feats.push(1.0);
    let mut s = 0.0;
    for i in 0..feats.len() {
        s += feats[i] * w[i];
    }
    s
}

#[test]
fn a_bias_feature_pushed_after_to_vec() {
    let (x, w) = ([2.0, 3.0], [0.5, -1.0, 0.25]);
    let got = biased_grad(&x, &w).unwrap();
    assert_eq!(got.value, 2.0 * 0.5 - 3.0 + 0.25);
    assert_eq!(got.gradient.0, vec![0.5, -1.0]);
    assert_eq!(got.gradient.1, vec![2.0, 3.0, 1.0]);
    let tape = biased_grad_tape(&x, &w).unwrap();
    assert_eq!(tape.gradient, got.gradient);
}

#[test]
fn a_program_can_ask_which_path_a_gradient_takes() {
    use autodiff::GradientPath;
    assert_eq!(features_grad_path(), GradientPath::Compiled);
    assert_eq!(sq_grad_path(), GradientPath::Compiled);
    // A parameter's adjoint is shaped like the argument: `grow` keeps the
    // tape, and says where and why.
    assert_eq!(
        grow_grad_path(),
        GradientPath::Tape {
            construct: ".push() onto a parameter",
            line: line_of("    v.push(v[0] * 2.0);"),
        }
    );
}

/// The 1-based line of `text` in this file.
fn line_of(text: &str) -> u32 {
    let source = include_str!("soundness.rs");
    let index = source.lines().position(|line| line == text).expect("line");
    index as u32 + 1
}

// ---------------------------------------------------------------------
// A constant `break` value beside a tracked one (random programs).
// ---------------------------------------------------------------------

#[differentiable]
fn constant_break_beside_tracked(x: f64) -> f64 {
    let mut n = 0;
    let y = loop {
        if n >= 3 {
            break x * 2.0;
        }
        n += 1;
        if x > 0.0 {
            break (0.5_f64).cos();
        }
    };
    y * x
}

#[test]
fn a_constant_break_value_is_lifted_beside_a_tracked_one() {
    // Did not build: the tape's `break (0.5).cos()` stayed an `f64` where
    // `break x * 2.0` is a `Scalar`.
    for (x, y) in [(0.37, 0.5_f64.cos()), (-0.37, -0.74)] {
        let got = compiled(|stack| constant_break_beside_tracked_adjoint(stack, x));
        assert_eq!(got.value, y * x);
        let want = if x > 0.0 { y } else { 4.0 * x };
        assert_agree("constant break", &[got.gradient], &[want]);
        let tape = constant_break_beside_tracked_grad_tape(x).unwrap();
        assert_agree("constant break tape", &[tape.gradient], &[want]);
    }
}

// ---------------------------------------------------------------------
// A `loop` whose value nothing tracked reaches (random programs).
// ---------------------------------------------------------------------

#[differentiable]
fn untracked_loop_value(x: f64) -> f64 {
    let mut s = x;
    let mut n = 0;
    let k = loop {
        if n >= 2 {
            break 0.5_f64.cos();
        }
        n += 1;
        s = s.sin() * x;
    };
    s * k
}

#[test]
fn a_loop_with_an_untracked_value_builds() {
    // Did not build: the forward sweep's stop on a non-finite value was
    // `break;` in a loop whose `break`s carry an `f64`.
    let x = 0.37_f64;
    let got = compiled(|stack| untracked_loop_value_adjoint(stack, x));
    let k = 0.5_f64.cos();
    let s1 = x.sin() * x;
    assert_eq!(got.value, s1.sin() * x * k);
    // s2 = sin(s1)·x, s1 = sin(x)·x.
    let ds1 = x.cos() * x + x.sin();
    let want = k * (s1.cos() * ds1 * x + s1.sin());
    assert_agree("untracked loop value", &[got.gradient], &[want]);
    let tape = untracked_loop_value_grad_tape(x).unwrap();
    assert_agree("untracked loop value tape", &[tape.gradient], &[want]);
}

// ---------------------------------------------------------------------
// A `return` as the last statement of a block a jump can leave earlier
// (random programs).
// ---------------------------------------------------------------------

#[differentiable]
fn return_ends_an_exited_block(x: f64) -> f64 {
    let mut acc = x * 0.5;
    if x > 0.25 {
        let mut m = 0;
        let _y = loop {
            if m >= 3 {
                break x;
            }
            m += 1;
            acc /= 1.25 + 0.25 * (1.8 - x).sin();
        };
        return acc.sin();
    }
    acc * 2.0
}

#[test]
fn a_return_that_ends_a_block_records_how_the_block_was_left() {
    // The block's reverse reads how it was left; the `return` left it
    // without saying, so the compiled path failed and reran the tape.
    for x in [0.84375, 0.4, -0.3] {
        let got = compiled(|stack| return_ends_an_exited_block_adjoint(stack, x));
        let want = if x > 0.25 {
            // acc = (x/2)/d³ with d = 1.25 + 0.25 sin(1.8 − x).
            let d = 1.25 + 0.25 * (1.8 - x).sin();
            let acc = 0.5 * x / (d * d * d);
            let dd = -0.25 * (1.8 - x).cos();
            let dacc = 0.5 / (d * d * d) - 1.5 * x * dd / (d * d * d * d);
            acc.cos() * dacc
        } else {
            1.0
        };
        assert_agree("return ends a block", &[got.gradient], &[want]);
        let tape = return_ends_an_exited_block_grad_tape(x).unwrap();
        assert_agree("return ends a block, tape", &[tape.gradient], &[want]);
    }
}

// ---------------------------------------------------------------------
// A `match` whose arm binds a value that is not `Copy`.
// ---------------------------------------------------------------------

#[differentiable]
fn match_moves_a_vec(x: f64, #[constant] pair: Option<Vec<f64>>) -> f64 {
    let mut s = x * x;
    match pair {
        Some(w) => {
            s += w[0] * x + w[1];
        }
        None => {
            s -= x;
        }
    }
    s
}

#[test]
fn a_match_arm_that_moves_its_value_builds() {
    // Did not build: the reverse matched `pair` again after the forward
    // had moved it into `w`.
    let cases = [
        (0.75_f64, Some(vec![1.0, 2.0]), 2.5_f64),
        (-0.5, None, -2.0),
    ];
    for (x, pair, want) in cases {
        let got = compiled(|stack| match_moves_a_vec_adjoint(stack, x, pair.clone()));
        assert_eq!(got.value, match_moves_a_vec(x, pair.clone()));
        assert_agree("match moves", &[got.gradient], &[want]);
        let tape = match_moves_a_vec_grad_tape(x, pair).unwrap();
        assert_agree("match moves, tape", &[tape.gradient], &[want]);
    }
}

// ---------------------------------------------------------------------
// A local `Vec` read in a branch condition (`v.len()`, `v.iter().any(..)`): the
// condition's observation took the `Vec` by value, and valid code did not
// build (borrow of moved value).
// ---------------------------------------------------------------------

// A `Vec` on purpose: the moved binding was one.
#[allow(clippy::useless_vec)]
#[differentiable]
fn vec_in_conditions(x: f64, y: f64) -> f64 {
    let v = vec![x, y, x * y];
    let mut s = 0.0;
    if v.len() > 2 && !v.is_empty() {
        s += v[2] * x;
    }
    while s < 10.0 && v.iter().any(|t| *t > 0.0) {
        s += v[0] + 1.0;
    }
    s * v[1]
}

#[test]
fn a_vec_read_in_a_condition_is_not_moved() {
    for (x, y) in [(0.5, 1.5), (-0.5, 2.0)] {
        let grad = vec_in_conditions_grad(x, y).unwrap();
        let direct = compiled(|stack| vec_in_conditions_adjoint(stack, x, y));
        assert_eq!(direct.gradient, grad.gradient);
        let tape = vec_in_conditions_grad_tape(x, y).unwrap();
        // s = x²y + k(x + 1) after k passes of the `while`, then s·y.
        let mut s = x * x * y;
        let mut k = 0.0;
        while s < 10.0 {
            s += x + 1.0;
            k += 1.0;
        }
        let want = [(2.0 * x * y + k) * y, x * x * y + s];
        assert_eq!(grad.value, s * y);
        assert_agree(
            "vec_in_conditions",
            &[grad.gradient.0, grad.gradient.1],
            &want,
        );
        assert_agree(
            "vec_in_conditions vs tape",
            &[grad.gradient.0, grad.gradient.1],
            &[tape.gradient.0, tape.gradient.1],
        );
    }
}

// ---------------------------------------------------------------------
// A binding that hides a loop variable of the same name: its reverse read
// the loop variable's value (seed 17309's f5_16, through an inlined
// closure whose parameter shared the loop variable's name).
// ---------------------------------------------------------------------

#[differentiable]
fn closure_parameter_named_as_the_loop_variable(x: f64, y: f64) -> f64 {
    let act = |t: f64| t * t * 1.5;
    let v = vec![x, x * x];
    let mut s = 0.0;
    for t in v {
        s += t * act(y);
    }
    s
}

#[differentiable]
fn block_let_hides_the_loop_variable(x: f64, y: f64) -> f64 {
    let v = [x, x * x];
    let mut s = 0.0;
    for t in v.iter() {
        let a = {
            let t: f64 = y;
            t * t * 1.5
        };
        s += *t * a;
    }
    s
}

#[differentiable]
fn let_rebinds_the_loop_variable(x: f64, y: f64) -> f64 {
    let v = [x, x * x];
    let mut s = 0.0;
    for &t in v.iter() {
        let t = t * y;
        let t = t * t;
        s += t;
    }
    s
}

#[differentiable]
fn match_arm_hides_the_loop_variable(x: f64, y: f64) -> f64 {
    let w = [x, 2.0 * x];
    let mut s = 0.0;
    for t in w.iter() {
        let q = *t * y;
        let m = match q {
            t if t > 10.0 => t,
            t => t * t,
        };
        s += m;
    }
    s
}

#[test]
fn a_binding_that_hides_a_loop_variable_is_read_in_the_reverse() {
    type Case = (
        &'static str,
        fn(&mut autodiff::__adjoint::Stack, f64, f64) -> Option<ValueAndGradient<(f64, f64)>>,
        fn(f64, f64) -> Result<ValueAndGradient<(f64, f64)>, ScalarAutodiffError>,
        fn(f64, f64) -> Result<ValueAndGradient<(f64, f64)>, ScalarAutodiffError>,
        fn(f64, f64) -> [f64; 2],
    );
    let cases: [Case; 4] = [
        (
            "closure parameter",
            closure_parameter_named_as_the_loop_variable_adjoint,
            closure_parameter_named_as_the_loop_variable_grad,
            closure_parameter_named_as_the_loop_variable_grad_tape,
            // s = 1.5 y² (x + x²)
            |x, y| [1.5 * y * y * (1.0 + 2.0 * x), 3.0 * y * (x + x * x)],
        ),
        (
            "block let",
            block_let_hides_the_loop_variable_adjoint,
            block_let_hides_the_loop_variable_grad,
            block_let_hides_the_loop_variable_grad_tape,
            |x, y| [1.5 * y * y * (1.0 + 2.0 * x), 3.0 * y * (x + x * x)],
        ),
        (
            "let rebinds",
            let_rebinds_the_loop_variable_adjoint,
            let_rebinds_the_loop_variable_grad,
            let_rebinds_the_loop_variable_grad_tape,
            // s = y² (x² + x⁴)
            |x, y| {
                [
                    y * y * (2.0 * x + 4.0 * x.powi(3)),
                    2.0 * y * (x * x + x.powi(4)),
                ]
            },
        ),
        (
            "match arm",
            match_arm_hides_the_loop_variable_adjoint,
            match_arm_hides_the_loop_variable_grad,
            match_arm_hides_the_loop_variable_grad_tape,
            // every t·y ≤ 10: s = (xy)² + (2xy)² = 5x²y²
            |x, y| [10.0 * x * y * y, 10.0 * x * x * y],
        ),
    ];
    for (name, adjoint, grad, tape, want) in cases {
        for (x, y) in [(0.7, 1.3), (-1.453125, 1.21875), (0.9375, -0.375)] {
            let got = compiled(|stack| adjoint(stack, x, y));
            assert_agree(name, &[got.gradient.0, got.gradient.1], &want(x, y));
            let grad = grad(x, y).unwrap();
            assert_eq!(grad.gradient, got.gradient, "{name}: f_grad is the adjoint");
            let tape = tape(x, y).unwrap();
            assert_agree(
                name,
                &[grad.gradient.0, grad.gradient.1],
                &[tape.gradient.0, tape.gradient.1],
            );
        }
    }
}

// ---------------------------------------------------------------------
// Two saved values whose names would be one.
// ---------------------------------------------------------------------

/// `a[i + 1]` and `a[i - 1]` of a `Vec` the loop rewrites are saved for
/// the reverse under names made from their text: both were `a_i_1`, the
/// second pop hid the first, and both reads got `a[i - 1]`.
#[differentiable]
#[allow(clippy::assign_op_pattern)]
fn smooth(x: &[f64]) -> f64 {
    let mut a = x.to_vec();
    for i in 1..a.len() - 1 {
        a[i] = (a[i + 1] * a[i - 1]).sin() + a[i];
    }
    a.iter().sum()
}

#[allow(clippy::assign_op_pattern)]
fn smooth_dual(x: &[crate::oracle::Dual]) -> crate::oracle::Dual {
    let mut a = x.to_vec();
    for i in 1..a.len() - 1 {
        a[i] = (a[i + 1] * a[i - 1]).sin() + a[i];
    }
    a.iter()
        .fold(crate::oracle::Dual::constant(0.0), |s, &v| s + v)
}

#[test]
fn two_saved_elements_whose_text_names_them_alike_keep_their_own_names() {
    let x = vec![0.7, -1.3, 0.4, 1.1];
    let got = compiled(|stack| smooth_adjoint(stack, &x));
    let grad = smooth_grad(&x).expect("compiled");
    let tape = smooth_grad_tape(&x).expect("tape");
    let want = crate::oracle::dual_gradient(&x, smooth_dual);
    for g in [&got.gradient, &grad.gradient, &tape.gradient] {
        assert_agree("smooth", g, &want);
    }
    assert!(smooth_check(&x).expect("a check").passed());
}

/// From seed 19909's `g4_16`: inside an `iter_mut` loop, `(j as f64)` and
/// `(x0.len() as f64)` were both saved as `operand`, and the reverse
/// divided by the index where the body divides by the length: at `j = 0`
/// a division by zero, so `f_adjoint` gave up where the tape answers (at
/// another index, a wrong number).
#[differentiable]
#[allow(clippy::useless_vec)] // as the program that showed it wrote
fn two_casts(x0: &[f64]) -> f64 {
    let mut w201 = vec![x0[0] * x0[1], x0[1]];
    for (j, o) in w201.iter_mut().enumerate() {
        *o = (*o * 0.5).sin() + x0[1] * ((j as f64) + 1.0);
    }
    let y202 = w201[0] * w201[1];
    let y202 = y202.sin() + y202;
    let mut w203 = vec![y202, 0.34375, 1.46875];
    for (j, o) in w203.iter_mut().enumerate() {
        *o = (*o * 1.25).sin()
            + (((x0.iter().sum::<f64>() / x0.len() as f64)
                * (x0.iter().sum::<f64>() / x0.len() as f64))
                + 0.5)
                .powi(-1)
                * ((j as f64) + 1.0);
    }
    w203[0] * w203[2] + y202
}

#[allow(clippy::useless_vec)]
fn two_casts_dual(x0: &[crate::oracle::Dual]) -> crate::oracle::Dual {
    use crate::oracle::Dual;
    let mut w201 = vec![x0[0] * x0[1], x0[1]];
    for (j, o) in w201.iter_mut().enumerate() {
        *o = (*o * 0.5).sin() + x0[1] * (j as f64 + 1.0);
    }
    let y202 = w201[0] * w201[1];
    let y202 = y202.sin() + y202;
    let mut w203 = vec![y202, Dual::constant(0.34375), Dual::constant(1.46875)];
    let n = x0.len() as f64;
    for (j, o) in w203.iter_mut().enumerate() {
        let mean = x0.iter().fold(Dual::constant(0.0), |s, &v| s + v) * (1.0 / n);
        *o = (*o * 1.25).sin() + (mean * mean + 0.5).powi(-1) * (j as f64 + 1.0);
    }
    w203[0] * w203[2] + y202
}

#[test]
fn two_saved_casts_in_one_statement_keep_their_own_names() {
    for x in [vec![-1.09375, 0.125], vec![0.5, -0.75]] {
        let got = compiled(|stack| two_casts_adjoint(stack, &x));
        let tape = two_casts_grad_tape(&x).expect("tape");
        let want = crate::oracle::dual_gradient(&x, two_casts_dual);
        for g in [&got.gradient, &tape.gradient] {
            assert_agree("two_casts", g, &want);
        }
    }
}
