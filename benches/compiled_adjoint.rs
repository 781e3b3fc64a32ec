//! The compiled adjoint, written by hand the way `#[differentiable]` is to
//! generate it (see the design in `docs/compiled-adjoint.md`), for five workloads: the
//! 64→64→1 tanh MLP, a 10⁶-step chain with overwrites, a 10⁶-element sum, a
//! function with branches, an early `return`, a call of another annotated
//! function and a `while` with `break`, and lesson 15's two-layer MLP; and
//! one more that only the macro writes, an iterator chain with a closure
//! (`zip`, `map`, `sum` over 10⁴ pairs).
//!
//! Each `*_adjoint` is one generated item: the forward sweep (the body on
//! `f64`, pushing what the reverse sweep reads), the reverse sweep (one
//! adjoint statement per operand occurrence, in reverse source order, under
//! the source line it reverses), and the finiteness verdict. Each
//! `*_grad_compiled` is what `f_grad` becomes: the adjoint on the thread's
//! stack, and the tape (today's `f_grad`) when the adjoint saw a value the
//! tape would reject, so errors keep their labels.
//!
//! Under `cargo test` this checks every compiled gradient against the tape
//! gradient and central differences, and the error contract; under
//! `cargo bench --bench compiled_adjoint` (`-- --rounds N`, `--only WORD` for
//! the workloads whose name contains `WORD`) it prints one table per
//! workload: plain twin, compiled adjoint, tape `f_grad`.

// Index loops on purpose: the generated code mirrors the student's loops.
#![allow(clippy::needless_range_loop)]
// `common` and lesson 15's support both include the splitmix generator by
// path; each keeps its own copy, as in the binaries they come from.
#![allow(clippy::duplicate_mod)]

mod common;
#[path = "../examples/support/exercises.rs"]
mod exercises;
#[path = "../examples/support/lesson15.rs"]
mod lesson15;

use std::process::ExitCode;

use autodiff::__adjoint::{self as adjoint, zero, Real, Saves, Stack};
use autodiff::prelude::*;
use autodiff::{gradient_check, DEFAULT_TOLERANCE};
use common::{max_error, Mlp, Numbers, Row};

const INPUTS: usize = 64;

/// The row of the generated `f_grad` (the macro's compiled adjoint).
const GENERATED: &str = "generated f_grad";
/// The row of the hand-written expansion the generated one is held to.
const HAND: &str = "hand-written adjoint";
const HIDDEN: usize = 64;

/// The gradient of an `f_grad`: value and gradient, or the tape's error.
type Grad<G> = Result<ValueAndGradient<G>, ScalarAutodiffError>;

// ---------------------------------------------------------------------------
// (a) The 64→64→1 tanh MLP of `benches/annotated_mlp.rs`.
// ---------------------------------------------------------------------------

/// `(b₂ + Σⱼ w₂ⱼ·tanh(b₁ⱼ + Σᵢ W₁ⱼᵢ·xᵢ) − t)²`.
#[differentiable]
fn mlp_loss(
    w1: &[[f64; INPUTS]],
    b1: &[f64],
    w2: &[f64],
    b2: f64,
    #[constant] x: &[f64],
    #[constant] target: f64,
) -> f64 {
    let mut y = b2;
    for j in 0..w1.len() {
        let mut z = b1[j];
        for i in 0..x.len() {
            z += w1[j][i] * x[i];
        }
        y += w2[j] * z.tanh();
    }
    let error = y - target;
    error * error
}

type MlpGradient = (Vec<[f64; INPUTS]>, Vec<f64>, Vec<f64>, f64);

/// The compiled adjoint of `mlp_loss`. Saves one value per hidden unit (the
/// `tanh` output its derivative reads); every other value a derivative
/// reads is a parameter, which nothing overwrites.
fn mlp_loss_adjoint_by_hand(
    stack: &mut Stack,
    w1: &[[f64; INPUTS]],
    b1: &[f64],
    w2: &[f64],
    b2: f64,
    x: &[f64],
    target: f64,
) -> Option<ValueAndGradient<MlpGradient>> {
    // Forward sweep.
    let mut y = b2;
    for j in 0..w1.len() {
        let mut z = b1[j];
        for i in 0..x.len() {
            z += w1[j][i] * x[i];
        }
        stack.observe(z);
        let z_tanh = z.tanh();
        stack.push(z);
        stack.push(z_tanh);
        y += w2[j] * z_tanh;
    }
    let error = y - target;
    let value = error * error;

    // Reverse sweep.
    let value_bar = 1.0;
    let mut w1_bar = zero(&w1);
    let mut b1_bar = zero(&b1);
    let mut w2_bar = zero(&w2);
    let mut b2_bar = zero(&b2);
    // error * error
    let mut error_bar = 0.0;
    error_bar += value_bar * error;
    error_bar += value_bar * error;
    // let error = y - target;
    let mut y_bar = 0.0;
    y_bar += error_bar;
    for j in (0..w1.len()).rev() {
        let z_tanh = stack.pop();
        let z = stack.pop();
        // y += w2[j] * z.tanh();
        w2_bar[j] += y_bar * z_tanh;
        let z_tanh_bar = y_bar * w2[j];
        let mut z_bar = 0.0;
        z_bar += z_tanh_bar * adjoint::rules::tanh_partial(z);
        for i in (0..x.len()).rev() {
            // z += w1[j][i] * x[i];
            w1_bar[j][i] += z_bar * x[i];
        }
        // let mut z = b1[j];
        b1_bar[j] += z_bar;
    }
    // let mut y = b2;
    b2_bar += y_bar;

    stack.observe(value);
    stack.observe_param(&w1, &w1_bar);
    stack.observe_param(&b1, &b1_bar);
    stack.observe_param(&w2, &w2_bar);
    stack.observe_param(&b2, &b2_bar);
    stack.finite().then_some(ValueAndGradient {
        value,
        gradient: (w1_bar, b1_bar, w2_bar, b2_bar),
    })
}

/// What `mlp_loss_grad` becomes.
fn mlp_loss_grad_compiled(
    w1: &[[f64; INPUTS]],
    b1: &[f64],
    w2: &[f64],
    b2: f64,
    x: &[f64],
    target: f64,
) -> Grad<MlpGradient> {
    match adjoint::with_stack(|stack| mlp_loss_adjoint_by_hand(stack, w1, b1, w2, b2, x, target)) {
        Some(result) => Ok(result),
        None => mlp_loss_grad_tape(w1, b1, w2, b2, x, target),
    }
}

/// The network's parameters in the annotated function's shapes.
struct MlpParameters {
    w1: Vec<[f64; INPUTS]>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
    x: Vec<f64>,
    target: f64,
}

impl MlpParameters {
    fn new() -> Self {
        let mlp = Mlp::new(INPUTS, HIDDEN);
        let (w1, b1, w2, &b2) = mlp.split(&mlp.params);
        Self {
            w1: w1
                .chunks(INPUTS)
                .map(|row| row.try_into().expect("rows of INPUTS"))
                .collect(),
            b1: b1.to_vec(),
            w2: w2.to_vec(),
            b2,
            x: mlp.x.clone(),
            target: mlp.target,
        }
    }

    fn flat(&self) -> Vec<f64> {
        let mut flat: Vec<f64> = self.w1.iter().flatten().copied().collect();
        flat.extend(&self.b1);
        flat.extend(&self.w2);
        flat.push(self.b2);
        flat
    }

    fn loss_at(&self, flat: &[f64]) -> f64 {
        let (w1, rest) = flat.split_at(HIDDEN * INPUTS);
        let (b1, rest) = rest.split_at(HIDDEN);
        let (w2, b2) = rest.split_at(HIDDEN);
        let w1: Vec<[f64; INPUTS]> = w1
            .chunks(INPUTS)
            .map(|row| row.try_into().expect("rows of INPUTS"))
            .collect();
        mlp_loss(&w1, b1, w2, b2[0], &self.x, self.target)
    }

    fn compiled(&self) -> Grad<MlpGradient> {
        let p = self;
        mlp_loss_grad_compiled(&p.w1, &p.b1, &p.w2, p.b2, &p.x, p.target)
    }

    fn tape(&self) -> Grad<MlpGradient> {
        let p = self;
        mlp_loss_grad_tape(&p.w1, &p.b1, &p.w2, p.b2, &p.x, p.target)
    }
}

fn flat_mlp(gradient: &MlpGradient) -> Vec<f64> {
    let (w1, b1, w2, b2) = gradient;
    let mut flat: Vec<f64> = w1.iter().flatten().copied().collect();
    flat.extend(b1);
    flat.extend(w2);
    flat.push(*b2);
    flat
}

// ---------------------------------------------------------------------------
// (b) A chain of overwrites: every step's derivative reads the old `y`.
// ---------------------------------------------------------------------------

/// `y ← ½·y·(1.5 − y) + x`, `steps` times from `y = x`: a contraction to a
/// fixed point, so its value and gradient stay finite at any length.
#[differentiable]
fn chain(x: f64, steps: usize) -> f64 {
    let mut y = x;
    for _ in 0..steps {
        y = y * (1.5 - y) * 0.5 + x;
    }
    y
}

/// The compiled adjoint of `chain`: the old `y` of every step is saved (the
/// step's derivatives read it and the step overwrites it), nothing else.
fn chain_adjoint_by_hand(stack: &mut Stack, x: f64, steps: usize) -> Option<ValueAndGradient<f64>> {
    // Forward sweep.
    let mut y = x;
    for _ in 0..steps {
        stack.push(y);
        y = y * (1.5 - y) * 0.5 + x;
    }
    let value = y;

    // Reverse sweep.
    let value_bar = 1.0;
    let mut x_bar = zero(&x);
    // y
    let mut y_bar = value_bar;
    for _ in (0..steps).rev() {
        let y = stack.pop();
        // y = y * (1.5 - y) * 0.5 + x;
        let assigned_bar = y_bar;
        y_bar = 0.0;
        x_bar += assigned_bar;
        let product_bar = assigned_bar * 0.5;
        y_bar += product_bar * (1.5 - y);
        let difference_bar = product_bar * y;
        y_bar -= difference_bar;
    }
    // let mut y = x;
    x_bar += y_bar;

    stack.observe(value);
    stack.observe_param(&x, &x_bar);
    stack.finite().then_some(ValueAndGradient {
        value,
        gradient: x_bar,
    })
}

/// What `chain_grad` becomes.
fn chain_grad_compiled(x: f64, steps: usize) -> Grad<f64> {
    match adjoint::with_stack(|stack| chain_adjoint_by_hand(stack, x, steps)) {
        Some(result) => Ok(result),
        None => chain_grad_tape(x, steps),
    }
}

/// The same adjoint generic over the number type ([`Real`]), as a second
/// emitter for forward-over-reverse would write it: literals become
/// `R::lit`, saves go through [`Saves`]. Timed against `chain_adjoint_by_hand` at
/// `R = f64` to show what the door costs.
// Out of line like `chain_adjoint_by_hand` (which rustc chose not to inline), so
// the two rows differ in the number type only, not in where they sit.
#[inline(never)]
fn chain_by_hand_generic<R: Real, S: Saves<R>>(stack: &mut S, x: R, steps: usize) -> (R, R) {
    // Forward sweep.
    let mut y = x;
    for _ in 0..steps {
        stack.save(y);
        y = y * (R::lit(1.5) - y) * R::lit(0.5) + x;
    }
    let value = y;

    // Reverse sweep.
    let mut x_bar = R::lit(0.0);
    let mut y_bar = R::lit(1.0);
    for _ in (0..steps).rev() {
        let y = stack.restore();
        let assigned_bar = y_bar;
        y_bar = R::lit(0.0);
        x_bar += assigned_bar;
        let product_bar = assigned_bar * R::lit(0.5);
        y_bar += product_bar * (R::lit(1.5) - y);
        let difference_bar = product_bar * y;
        y_bar -= difference_bar;
    }
    x_bar += y_bar;
    (value, x_bar)
}

// ---------------------------------------------------------------------------
// (c) A sum over a slice.
// ---------------------------------------------------------------------------

#[differentiable]
fn total(x: &[f64]) -> f64 {
    x.iter().sum()
}

/// The compiled adjoint of `total`: nothing saved (a sum's derivative reads
/// nothing); every item's adjoint is the value's.
fn total_adjoint_by_hand(stack: &mut Stack, x: &[f64]) -> Option<ValueAndGradient<Vec<f64>>> {
    // Forward sweep.
    let value: f64 = x.iter().sum();

    // Reverse sweep.
    let value_bar = 1.0;
    let mut x_bar = zero(&x);
    // x.iter().sum()
    for item_bar in x_bar.iter_mut() {
        *item_bar += value_bar;
    }

    stack.observe(value);
    stack.observe_param(&x, &x_bar);
    stack.finite().then_some(ValueAndGradient {
        value,
        gradient: x_bar,
    })
}

/// What `total_grad` becomes.
fn total_grad_compiled(x: &[f64]) -> Grad<Vec<f64>> {
    match adjoint::with_stack(|stack| total_adjoint_by_hand(stack, x)) {
        Some(result) => Ok(result),
        None => total_grad_tape(x),
    }
}

// ---------------------------------------------------------------------------
// (f) An iterator chain with a closure: the macro reads it as the loop it
// stands for (`emit/adjoint/chains/`); no hand-written twin.
// ---------------------------------------------------------------------------

/// `Σᵢ (xᵢ − yᵢ)²` as students write it.
#[differentiable]
fn squared_distance(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| (a - b) * (a - b)).sum()
}

/// The chain is compiled (this names its adjoint), and its gradient is
/// `2(x − y)`, `−2(x − y)`, as on the tape.
fn check_squared_distance() -> Result<(), String> {
    let _compiled = squared_distance_adjoint;
    let mut numbers = Numbers::new(0xD15C);
    let x: Vec<f64> = (0..100).map(|_| numbers.next_f64()).collect();
    let y: Vec<f64> = (0..100).map(|_| numbers.next_f64()).collect();
    let got = squared_distance_grad(&x, &y).map_err(|e| e.to_string())?;
    let tape = squared_distance_grad_tape(&x, &y).map_err(|e| e.to_string())?;
    let want_x: Vec<f64> = x.iter().zip(&y).map(|(a, b)| 2.0 * (a - b)).collect();
    let want_y: Vec<f64> = want_x.iter().map(|g| -g).collect();
    let errors = [
        max_error(&got.gradient.0, &want_x),
        max_error(&got.gradient.1, &want_y),
        max_error(&got.gradient.0, &tape.gradient.0),
        max_error(&got.gradient.1, &tape.gradient.1),
    ];
    if got.value != squared_distance(&x, &y) || errors.iter().any(|e| *e > 1e-12) {
        return Err(format!(
            "squared_distance: value {} vs {}, gradient errors {errors:?}",
            got.value,
            squared_distance(&x, &y)
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// (d) Branches, an early return, a call, a while loop with break.
// ---------------------------------------------------------------------------

/// `ln(1 + eˣ)`: an annotated helper that `piecewise` calls.
#[differentiable]
fn softplus(x: f64) -> f64 {
    (1.0 + x.exp()).ln()
}

/// `softplus`'s forward piece: what a caller's forward sweep calls. Pushes
/// `eˣ`, which both derivatives read and which is not an argument.
fn softplus_forward_by_hand(stack: &mut Stack, x: f64) -> f64 {
    stack.observe(x);
    let x_exp = x.exp();
    stack.push(x_exp);
    (1.0 + x_exp).ln()
}

/// `softplus`'s reverse piece: what the caller's reverse sweep calls at the
/// reversed call, with the same arguments and the adjoint of the result.
#[allow(unused_variables)] // every argument is passed; not every one is read
fn softplus_reverse_by_hand(stack: &mut Stack, x: f64, value_bar: f64, x_bar: &mut f64) {
    let x_exp = stack.pop();
    // (1.0 + x.exp()).ln()
    let sum_bar = value_bar / (1.0 + x_exp);
    // 1.0 + x.exp()
    let x_exp_bar = sum_bar;
    *x_bar += x_exp_bar * x_exp;
}

/// `softplus`'s own `f_adjoint`: its two pieces back to back.
fn softplus_adjoint_by_hand(stack: &mut Stack, x: f64) -> Option<ValueAndGradient<f64>> {
    let value = softplus_forward_by_hand(stack, x);
    let mut x_bar = zero(&x);
    softplus_reverse_by_hand(stack, x, 1.0, &mut x_bar);
    stack.observe(value);
    stack.observe_param(&x, &x_bar);
    stack.finite().then_some(ValueAndGradient {
        value,
        gradient: x_bar,
    })
}

fn softplus_grad_compiled(x: f64) -> Grad<f64> {
    match adjoint::with_stack(|stack| softplus_adjoint_by_hand(stack, x)) {
        Some(result) => Ok(result),
        None => softplus_grad_tape(x),
    }
}

/// Squares of the positive items and softplus of the others, summed, with a
/// square root as soon as the sum passes `limit`; otherwise the sum, shrunk
/// by a few square-root steps, times itself.
#[differentiable]
fn piecewise(x: &[f64], #[constant] limit: f64) -> f64 {
    let mut total = 0.0;
    for i in 0..x.len() {
        if x[i] > 0.0 {
            total += x[i] * x[i];
        } else {
            total += softplus(x[i]);
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

/// The compiled adjoint of `piecewise`. Control records: the return point
/// (0 the tail, 1 the early `return`), the `for` loop's trip count only
/// when it returned early (otherwise `x.len()`, stable), the `while` loop's
/// trip count and exit (0 its condition, 1 the `break`). The `if x[i] > 0.0`
/// is not recorded: its condition reads only stable values, so the reverse
/// sweep evaluates it again. The body's own bindings live in the labelled
/// block, so the tail pushes the two its reverse reads (`total`, `scale`).
fn piecewise_adjoint_by_hand(
    stack: &mut Stack,
    x: &[f64],
    limit: f64,
) -> Option<ValueAndGradient<Vec<f64>>> {
    // Forward sweep: a labelled block, so that a `return` can leave it for
    // the reverse sweep.
    let value = 'forward: {
        let mut total = 0.0;
        for i in 0..x.len() {
            if x[i] > 0.0 {
                total += x[i] * x[i];
            } else {
                total += softplus_forward_by_hand(stack, x[i]);
            }
            stack.observe(total);
            if total > limit {
                let total_sqrt = total.sqrt();
                stack.push(total_sqrt);
                stack.push_trips(i + 1);
                stack.push_arm(1);
                break 'forward total_sqrt;
            }
        }
        let mut scale = total;
        let mut steps = 0;
        let (mut while_trips, mut while_exit) = (0, 0);
        while {
            stack.observe(scale);
            scale > 1.0
        } {
            while_trips += 1;
            let scale_sqrt = scale.sqrt();
            stack.push(scale_sqrt);
            scale = scale_sqrt * 0.9;
            steps += 1;
            if steps == 3 {
                while_exit = 1;
                break;
            }
            scale += 0.01 * total;
        }
        stack.push_arm(while_exit);
        stack.push_trips(while_trips);
        // The block's bindings that this path's reverse reads leave scope here.
        stack.push(total);
        stack.push(scale);
        stack.push_arm(0);
        scale * total
    };

    // Reverse sweep.
    let value_bar = 1.0;
    let mut x_bar = zero(&x);
    let mut total_bar = 0.0;
    let for_trips = match stack.pop_arm() {
        0 => {
            let scale = stack.pop();
            let total = stack.pop();
            // scale * total
            let mut scale_bar = 0.0;
            scale_bar += value_bar * total;
            total_bar += value_bar * scale;
            // while scale > 1.0 { .. }
            let while_trips = stack.pop_trips();
            let while_exit = stack.pop_arm();
            for trip in (0..while_trips).rev() {
                if !(trip + 1 == while_trips && while_exit == 1) {
                    // scale += 0.01 * total;
                    total_bar += scale_bar * 0.01;
                }
                let scale_sqrt = stack.pop();
                // scale = scale.sqrt() * 0.9;
                let assigned_bar = scale_bar;
                scale_bar = 0.0;
                let scale_sqrt_bar = assigned_bar * 0.9;
                scale_bar += scale_sqrt_bar * 0.5 / scale_sqrt;
            }
            // let mut scale = total;
            total_bar += scale_bar;
            x.len()
        }
        1 => {
            let total_sqrt = stack.pop();
            // return total.sqrt();
            total_bar += value_bar * 0.5 / total_sqrt;
            stack.pop_trips()
        }
        _ => {
            stack.fail();
            0
        }
    };
    for i in (0..for_trips).rev() {
        if x[i] > 0.0 {
            // total += x[i] * x[i];
            x_bar[i] += total_bar * x[i];
            x_bar[i] += total_bar * x[i];
        } else {
            // total += softplus(x[i]);
            softplus_reverse_by_hand(stack, x[i], total_bar, &mut x_bar[i]);
        }
    }
    // let mut total = 0.0;   (a constant: nothing)

    stack.observe(value);
    stack.observe_param(&x, &x_bar);
    stack.finite().then_some(ValueAndGradient {
        value,
        gradient: x_bar,
    })
}

/// What `piecewise_grad` becomes.
fn piecewise_grad_compiled(x: &[f64], limit: f64) -> Grad<Vec<f64>> {
    match adjoint::with_stack(|stack| piecewise_adjoint_by_hand(stack, x, limit)) {
        Some(result) => Ok(result),
        None => piecewise_grad_tape(x, limit),
    }
}

// ---------------------------------------------------------------------------
// (e) Lesson 15's two-layer MLP (`examples/support/exercises.rs`).
// ---------------------------------------------------------------------------

type LessonGradient = ([[f64; 3]; 4], [f64; 3], [f64; 4]);

/// The compiled adjoint of `exercises::mlp_loss`: the backward pass of
/// lesson 15, right to left, with the student's names.
fn lesson15_mlp_adjoint_by_hand(
    stack: &mut Stack,
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> Option<ValueAndGradient<LessonGradient>> {
    // Forward sweep.
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        stack.observe(z);
        let z_tanh = z.tanh();
        stack.push(z);
        stack.push(z_tanh);
        y_hat += z_tanh * w2[j];
    }
    let error = y_hat - t;
    let value = 0.5 * error * error;

    // Reverse sweep.
    let value_bar = 1.0;
    let mut w1_bar = zero(&w1);
    let mut w2_bar = zero(&w2);
    let mut x_bar = zero(&x);
    // 0.5 * error * error
    let mut error_bar = 0.0;
    error_bar += value_bar * (0.5 * error);
    let half_error_bar = value_bar * error;
    error_bar += half_error_bar * 0.5;
    // let error = y_hat - t;
    let mut y_hat_bar = 0.0;
    y_hat_bar += error_bar;
    for j in (0..3).rev() {
        let z_tanh = stack.pop();
        let z = stack.pop();
        // y_hat += z.tanh() * w2[j];
        w2_bar[j] += y_hat_bar * z_tanh;
        let z_tanh_bar = y_hat_bar * w2[j];
        let mut z_bar = 0.0;
        z_bar += z_tanh_bar * adjoint::rules::tanh_partial(z);
        for i in (0..4).rev() {
            // z += x[i] * w1[i][j];
            w1_bar[i][j] += z_bar * x[i];
            x_bar[i] += z_bar * w1[i][j];
        }
        // let mut z = 0.0;   (a constant: nothing)
    }
    // let mut y_hat = 0.0;   (a constant: nothing)

    stack.observe(value);
    stack.observe_param(&w1, &w1_bar);
    stack.observe_param(&w2, &w2_bar);
    stack.observe_param(&x, &x_bar);
    stack.finite().then_some(ValueAndGradient {
        value,
        gradient: (w1_bar, w2_bar, x_bar),
    })
}

/// What `mlp_loss_grad` of the lesson becomes.
fn lesson15_mlp_grad_compiled(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> Grad<LessonGradient> {
    match adjoint::with_stack(|stack| lesson15_mlp_adjoint_by_hand(stack, w1, w2, x, t)) {
        Some(result) => Ok(result),
        None => exercises::mlp_loss_grad_tape(w1, w2, x, t),
    }
}

fn flat_lesson(gradient: &LessonGradient) -> Vec<f64> {
    let (w1, w2, x) = gradient;
    let mut flat: Vec<f64> = w1.iter().flatten().copied().collect();
    flat.extend(w2);
    flat.extend(x);
    flat
}

// ---------------------------------------------------------------------------
// Checks.
// ---------------------------------------------------------------------------

/// Relative agreement between the two exact paths: both sum the same
/// products in possibly different orders (the tape accumulates an adjoint
/// edge by edge, the adjoint statement by statement), so a few ulps times
/// the condition of the sums; 1e-12 leaves a factor ~5000 over one ulp.
const PATHS_AGREE: f64 = 1e-12;

fn agree(name: &str, got: &[f64], value: f64, tape: &[f64], tape_value: f64) -> Result<(), String> {
    let error = max_error(got, tape);
    let value_error = (value - tape_value).abs() / tape_value.abs().max(1.0);
    if error > PATHS_AGREE || value_error > PATHS_AGREE {
        return Err(format!(
            "{name}: compiled and tape disagree: gradient {error:e}, value {value_error:e}"
        ));
    }
    Ok(())
}

fn central(
    name: &str,
    inputs: &[f64],
    analytic: &[f64],
    f: impl FnMut(&[f64]) -> f64,
) -> Result<(), String> {
    let check = gradient_check(inputs, analytic, None, DEFAULT_TOLERANCE, f)
        .map_err(|e| format!("{name}: {e}"))?;
    if !check.passed() {
        let worst = check
            .components
            .iter()
            .map(|c| c.scaled_error)
            .fold(0.0, f64::max);
        return Err(format!(
            "{name}: compiled gradient fails central differences (worst scaled error {worst:e})"
        ));
    }
    Ok(())
}

fn check_mlp() -> Result<(), String> {
    let p = MlpParameters::new();
    let got = p.compiled().map_err(|e| e.to_string())?;
    let generated =
        mlp_loss_grad(&p.w1, &p.b1, &p.w2, p.b2, &p.x, p.target).map_err(|e| e.to_string())?;
    agree(
        "mlp (generated)",
        &flat_mlp(&generated.gradient),
        generated.value,
        &flat_mlp(&got.gradient),
        got.value,
    )?;
    // The generated adjoint saves what the hand-written one does.
    let mut stack = Stack::new();
    mlp_loss_adjoint(&mut stack, &p.w1, &p.b1, &p.w2, p.b2, &p.x, p.target);
    if stack.capacity_bytes() != 2 * HIDDEN * size_of::<f64>() || !stack.is_empty() {
        return Err(format!(
            "mlp: the generated adjoint saved more than the {HIDDEN} tanh operands and outputs ({} bytes)",
            stack.capacity_bytes()
        ));
    }
    let tape = p.tape().map_err(|e| e.to_string())?;
    let flat = flat_mlp(&got.gradient);
    agree(
        "mlp",
        &flat,
        got.value,
        &flat_mlp(&tape.gradient),
        tape.value,
    )?;
    // The hand-written backward pass of `common::Mlp` is a third witness.
    let mlp = Mlp::new(INPUTS, HIDDEN);
    let mut by_hand = Vec::new();
    mlp.gradient_by_hand(&mlp.params, &mut by_hand);
    agree(
        "mlp (by hand)",
        &flat,
        got.value,
        &by_hand,
        mlp.loss(&mlp.params),
    )?;
    // Nothing saved that the reverse sweep does not read: the 64 `tanh`
    // operands (its derivative's) and outputs (`w2_bar`'s) fill a fresh
    // stack's capacity exactly (one more push would double it), and the
    // control stack stays empty.
    let mut stack = Stack::new();
    mlp_loss_adjoint_by_hand(&mut stack, &p.w1, &p.b1, &p.w2, p.b2, &p.x, p.target);
    if stack.capacity_bytes() != 2 * HIDDEN * size_of::<f64>() || !stack.is_empty() {
        return Err(format!(
            "mlp: the adjoint saved more than the {HIDDEN} tanh operands and outputs ({} bytes of stack)",
            stack.capacity_bytes()
        ));
    }
    central("mlp", &p.flat(), &flat, |point| p.loss_at(point))
}

fn check_chain() -> Result<(), String> {
    for &(x, steps) in &[(0.3, 0), (0.3, 1), (-0.7, 7), (0.45, 1000)] {
        let got = chain_grad_compiled(x, steps).map_err(|e| e.to_string())?;
        let tape = chain_grad_tape(x, steps).map_err(|e| e.to_string())?;
        let name = format!("chain({x}, {steps})");
        agree(
            &name,
            &[got.gradient],
            got.value,
            &[tape.gradient],
            tape.value,
        )?;
        central(&name, &[x], &[got.gradient], |p| chain(p[0], steps))?;
        let generic = chain_by_hand_generic::<f64, _>(&mut Stack::new(), x, steps);
        if generic != (got.value, got.gradient) {
            return Err(format!("{name}: the generic adjoint differs: {generic:?}"));
        }
    }
    Ok(())
}

fn check_total() -> Result<(), String> {
    let mut numbers = Numbers::new(0x5u64);
    let x: Vec<f64> = (0..1000).map(|_| numbers.next_f64()).collect();
    let got = total_grad_compiled(&x).map_err(|e| e.to_string())?;
    let tape = total_grad_tape(&x).map_err(|e| e.to_string())?;
    agree(
        "total",
        &got.gradient,
        got.value,
        &tape.gradient,
        tape.value,
    )?;
    central("total", &x, &got.gradient, total)
}

fn check_piecewise() -> Result<(), String> {
    // Each point takes a different path: the while loop leaving by its
    // condition, by its `break`, the early return, and softplus alone.
    let cases: [(&[f64], f64); 4] = [
        (&[0.3, -0.4, 0.7, -1.2, 0.5], 100.0),
        (&[3.0, -0.5, 4.0, 2.0], 1000.0),
        (&[3.0, -0.5, 4.0, 2.0], 20.0),
        (&[-0.25], 100.0),
    ];
    for (x, limit) in cases {
        let name = format!("piecewise({x:?}, {limit})");
        let got = piecewise_grad_compiled(x, limit).map_err(|e| e.to_string())?;
        let tape = piecewise_grad_tape(x, limit).map_err(|e| e.to_string())?;
        agree(&name, &got.gradient, got.value, &tape.gradient, tape.value)?;
        let generated = piecewise_grad(x, limit).map_err(|e| e.to_string())?;
        agree(
            &name,
            &generated.gradient,
            generated.value,
            &tape.gradient,
            tape.value,
        )?;
        central(&name, x, &got.gradient, |p| piecewise(p, limit))?;
        let stack_empty = adjoint::with_stack(|stack| {
            piecewise_adjoint_by_hand(stack, x, limit);
            stack.is_empty()
        });
        if !stack_empty {
            return Err(format!("{name}: records left on the stack"));
        }
    }
    for x in [-3.0, 0.0, 2.5] {
        let got = softplus_grad_compiled(x).map_err(|e| e.to_string())?;
        let tape = softplus_grad_tape(x).map_err(|e| e.to_string())?;
        let name = format!("softplus({x})");
        agree(
            &name,
            &[got.gradient],
            got.value,
            &[tape.gradient],
            tape.value,
        )?;
    }
    Ok(())
}

fn check_lesson15() -> Result<(), String> {
    let (w1, w2, x, t) = exercises::mlp_setup();
    let got = lesson15_mlp_grad_compiled(w1, w2, x, t).map_err(|e| e.to_string())?;
    let tape = exercises::mlp_loss_grad_tape(w1, w2, x, t).map_err(|e| e.to_string())?;
    let flat = flat_lesson(&got.gradient);
    agree(
        "lesson 15 mlp",
        &flat,
        got.value,
        &flat_lesson(&tape.gradient),
        tape.value,
    )?;
    let mut inputs = flat_lesson(&(w1, w2, x));
    central("lesson 15 mlp", &inputs.clone(), &flat, |p| {
        inputs.copy_from_slice(p);
        let w1 = std::array::from_fn(|i| std::array::from_fn(|j| p[3 * i + j]));
        let w2 = std::array::from_fn(|j| p[12 + j]);
        let x = std::array::from_fn(|i| p[15 + i]);
        exercises::mlp_loss(w1, w2, x, t)
    })
}

fn expect_err<T>(name: &str, result: Grad<T>) -> Result<ScalarAutodiffError, String> {
    result.err().ok_or_else(|| format!("{name}: no error"))
}

/// On a value the tape rejects, the compiled path returns the tape's exact
/// labelled error; checked where the value and gradient alone would not
/// show it (an overflow that `tanh` hides, an unread NaN).
fn check_errors() -> Result<(), String> {
    let same = |name: &str, compiled: ScalarAutodiffError, tape: ScalarAutodiffError| {
        // Field by field through `Debug`: the errors carry the NaN they
        // rejected, and NaN != NaN.
        if format!("{compiled:?}") == format!("{tape:?}") {
            Ok(())
        } else {
            Err(format!(
                "{name}: compiled error {compiled} differs from the tape's {tape}"
            ))
        }
    };

    let mut p = MlpParameters::new();
    p.w1[3][5] = f64::NAN;
    same(
        "mlp NaN weight",
        expect_err("mlp NaN", p.compiled())?,
        expect_err("tape", p.tape())?,
    )?;

    // Every product of unit 0 at +1e308 overflows z to +∞; tanh(∞) = 1 and
    // its derivative 0, so value and gradient are finite. An infinity made
    // where every local derivative is finite is recorded (the masks'
    // rule, README "Infinities on the way"): both paths answer, alike,
    // and unit 0's weights get no gradient.
    let mut p = MlpParameters::new();
    for i in 0..INPUTS {
        p.w1[0][i] = 1e308 * p.x[i].signum();
    }
    let plain = mlp_loss(&p.w1, &p.b1, &p.w2, p.b2, &p.x, p.target);
    if !plain.is_finite() {
        return Err("the overflow case should have a finite value".into());
    }
    let (compiled, tape) = (
        p.compiled()
            .map_err(|e| format!("mlp overflow, compiled: {e}"))?,
        p.tape().map_err(|e| format!("mlp overflow, tape: {e}"))?,
    );
    if compiled.value != plain
        || tape.value != plain
        || flat_mlp(&compiled.gradient) != flat_mlp(&tape.gradient)
        || compiled.gradient.0[0].iter().any(|&g| g != 0.0)
    {
        return Err("mlp overflow under tanh: the paths disagree, or unit 0 has a gradient".into());
    }

    // A NaN the function never reads: only the input check sees it.
    let mut p = MlpParameters::new();
    p.x.truncate(INPUTS - 1);
    p.w1[7][INPUTS - 1] = f64::NAN;
    same(
        "unread NaN",
        expect_err("unread NaN", p.compiled())?,
        expect_err("tape", p.tape())?,
    )?;

    same(
        "chain NaN",
        expect_err("chain", chain_grad_compiled(f64::NAN, 3))?,
        expect_err("tape", chain_grad_tape(f64::NAN, 3))?,
    )?;
    let x = [1.0, f64::INFINITY, 2.0];
    same(
        "total ∞",
        expect_err("total", total_grad_compiled(&x))?,
        expect_err("tape", total_grad_tape(&x))?,
    )?;
    // 10²⁰⁰ squared overflows; the comparison with `limit` would hide it.
    let x = [1e200];
    same(
        "piecewise overflow",
        expect_err("piecewise", piecewise_grad_compiled(&x, 1e300))?,
        expect_err("tape", piecewise_grad_tape(&x, 1e300))?,
    )?;
    // After a failure the thread's stack still gives right gradients.
    check_chain()
}

fn smoke() -> Result<(), String> {
    check_mlp()?;
    check_chain()?;
    check_total()?;
    check_piecewise()?;
    check_lesson15()?;
    check_errors()?;
    check_squared_distance()?;
    println!(
        "compiled adjoint smoke: MLP, chain, sum, control flow, lesson 15 and an iterator chain agree with the tape and central differences; errors fall back to the tape (run `cargo bench --bench compiled_adjoint` to time)"
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// Timing.
// ---------------------------------------------------------------------------

fn main() -> ExitCode {
    common::bench_main("compiled_adjoint", bench, smoke)
}

fn row<'a>(
    workload: &str,
    engine: &str,
    operations: usize,
    iterations: usize,
    run: impl FnMut() -> f64 + 'a,
) -> Row<'a> {
    Row {
        workload: workload.to_string(),
        engine: engine.to_string(),
        operations,
        run: Box::new(run),
        iterations,
        samples: Vec::new(),
    }
}

fn bench(args: &[String]) -> Result<(), String> {
    let rounds = common::rounds(args)?;
    smoke()?;
    println!("compiled adjoint bench: {rounds} rounds, each row timed once per round in turn\n");
    let only = common::option(args, "--only").unwrap_or("");
    let report = |rows: &mut [Row<'_>]| {
        if rows[0].workload.contains(only) {
            report(rows, rounds)
        } else {
            Ok(())
        }
    };
    use std::hint::black_box;

    // (a)
    let p = &MlpParameters::new();
    let operations = Mlp::new(INPUTS, HIDDEN).operations();
    let name = format!("MLP {INPUTS}→{HIDDEN}→1");
    let mut rows = vec![
        row(&name, common::PLAIN, operations, 2000, || {
            mlp_loss(black_box(&p.w1), &p.b1, &p.w2, p.b2, &p.x, p.target)
        }),
        row(&name, GENERATED, operations, 1000, || {
            mlp_loss_grad(black_box(&p.w1), &p.b1, &p.w2, p.b2, &p.x, p.target)
                .map_or(f64::NAN, |r| r.value + r.gradient.3)
        }),
        row(&name, HAND, operations, 1000, || {
            p.compiled().map_or(f64::NAN, |r| r.value + r.gradient.3)
        }),
        row(&name, "tape f_grad_tape", operations, 100, || {
            p.tape().map_or(f64::NAN, |r| r.value + r.gradient.3)
        }),
    ];
    report(&mut rows)?;
    let saved = {
        let mut stack = Stack::new();
        mlp_loss_adjoint(&mut stack, &p.w1, &p.b1, &p.w2, p.b2, &p.x, p.target);
        stack.capacity_bytes()
    };
    println!(
        "saved-value stack of the generated adjoint: {saved} bytes for {operations} operations = {:.3} bytes per operation (the {HIDDEN} tanh operands and outputs)\n",
        saved as f64 / operations as f64
    );

    // (b)
    let steps = 1_000_000;
    let name = "chain 10⁶ steps".to_string();
    let operations = 4 * steps;
    let mut rows = vec![
        row(&name, common::PLAIN, operations, 3, || {
            chain(black_box(0.45), steps)
        }),
        row(&name, GENERATED, operations, 3, || {
            chain_grad(black_box(0.45), steps).map_or(f64::NAN, |r| r.gradient)
        }),
        row(&name, HAND, operations, 3, || {
            chain_grad_compiled(black_box(0.45), steps).map_or(f64::NAN, |r| r.gradient)
        }),
        row(
            &name,
            "compiled adjoint, generic R = f64",
            operations,
            3,
            || {
                adjoint::with_stack(|stack| {
                    chain_by_hand_generic::<f64, _>(stack, black_box(0.45), steps).1
                })
            },
        ),
        row(&name, "tape f_grad_tape", operations, 1, || {
            chain_grad_tape(black_box(0.45), steps).map_or(f64::NAN, |r| r.gradient)
        }),
    ];
    report(&mut rows)?;

    // (c)
    let mut numbers = Numbers::new(0xC0FFEE);
    let x: &Vec<f64> = &(0..1_000_000).map(|_| numbers.next_f64()).collect();
    let name = "sum 10⁶ items".to_string();
    let operations = x.len() - 1;
    let mut rows = vec![
        row(&name, common::PLAIN, operations, 3, || total(black_box(x))),
        row(&name, GENERATED, operations, 3, || {
            total_grad(black_box(x)).map_or(f64::NAN, |r| r.value + r.gradient[7])
        }),
        row(&name, HAND, operations, 3, || {
            total_grad_compiled(black_box(x)).map_or(f64::NAN, |r| r.value + r.gradient[7])
        }),
        row(&name, "tape f_grad_tape", operations, 1, || {
            total_grad_tape(black_box(x)).map_or(f64::NAN, |r| r.value + r.gradient[7])
        }),
        // What any `f_grad` returning an owned gradient pays before its
        // first flop: the allocation floor of this workload.
        row(
            &name,
            "only: new zeroed gradient, written once",
            operations,
            3,
            || {
                let mut gradient = zero(&black_box(x.as_slice()));
                gradient.iter_mut().for_each(|g| *g += 1.0);
                gradient[7]
            },
        ),
    ];
    report(&mut rows)?;

    // (d)
    let x: &Vec<f64> = &(0..1000).map(|_| numbers.next_f64()).collect();
    let name = "piecewise, 10³ items".to_string();
    let operations = 2 * x.len();
    let mut rows = vec![
        row(&name, common::PLAIN, operations, 200, || {
            piecewise(black_box(x), 1e9)
        }),
        row(&name, GENERATED, operations, 200, || {
            piecewise_grad(black_box(x), 1e9).map_or(f64::NAN, |r| r.value + r.gradient[7])
        }),
        row(&name, HAND, operations, 200, || {
            piecewise_grad_compiled(black_box(x), 1e9).map_or(f64::NAN, |r| r.value + r.gradient[7])
        }),
        row(&name, "tape f_grad_tape", operations, 50, || {
            piecewise_grad_tape(black_box(x), 1e9).map_or(f64::NAN, |r| r.value + r.gradient[7])
        }),
    ];
    report(&mut rows)?;

    // (e)
    let (w1, w2, x, t) = exercises::mlp_setup();
    let name = "lesson 15 MLP 4→3→1".to_string();
    let operations = 3 * (2 * 4 + 3) + 4;
    let mut rows = vec![
        row(&name, common::PLAIN, operations, 100_000, || {
            exercises::mlp_loss(black_box(w1), w2, x, t)
        }),
        row(&name, GENERATED, operations, 100_000, || {
            exercises::mlp_loss_grad(black_box(w1), w2, x, t)
                .map_or(f64::NAN, |r| r.value + r.gradient.1[0])
        }),
        row(&name, HAND, operations, 100_000, || {
            lesson15_mlp_grad_compiled(black_box(w1), w2, x, t)
                .map_or(f64::NAN, |r| r.value + r.gradient.1[0])
        }),
        row(
            &name,
            "compiled adjoint on a kept Stack",
            operations,
            100_000,
            {
                let mut stack = Stack::new();
                move || {
                    stack.clear();
                    lesson15_mlp_adjoint_by_hand(&mut stack, black_box(w1), w2, x, t)
                        .map_or(f64::NAN, |r| r.value + r.gradient.1[0])
                }
            },
        ),
        row(&name, "tape f_grad_tape", operations, 10_000, || {
            exercises::mlp_loss_grad_tape(black_box(w1), w2, x, t)
                .map_or(f64::NAN, |r| r.value + r.gradient.1[0])
        }),
    ];
    report(&mut rows)?;

    // (f)
    let mut numbers = Numbers::new(0xD15C);
    let x: &Vec<f64> = &(0..10_000).map(|_| numbers.next_f64()).collect();
    let y: &Vec<f64> = &(0..10_000).map(|_| numbers.next_f64()).collect();
    let name = "zip-map-sum 10⁴ pairs".to_string();
    // A subtraction, a product and an addition per pair.
    let operations = 3 * x.len();
    let mut rows = vec![
        row(&name, common::PLAIN, operations, 1000, || {
            squared_distance(black_box(x), y)
        }),
        row(&name, GENERATED, operations, 1000, || {
            squared_distance_grad(black_box(x), y).map_or(f64::NAN, |r| r.value + r.gradient.1[7])
        }),
        row(&name, "tape f_grad_tape", operations, 100, || {
            squared_distance_grad_tape(black_box(x), y)
                .map_or(f64::NAN, |r| r.value + r.gradient.1[7])
        }),
    ];
    report(&mut rows)
}

/// Times `rows` and prints their table and the compiled-to-tape ratio.
fn report(rows: &mut [Row<'_>], rounds: usize) -> Result<(), String> {
    common::run_round_robin(rows, rounds)?;
    print!("{}", common::table(rows));
    let median = |engine: &str| {
        rows.iter()
            .find(|r| r.engine == engine)
            .map_or(f64::NAN, |r| common::median(&r.samples))
    };
    println!(
        "generated f_grad / tape f_grad = {:.3}; hand-written adjoint / tape f_grad = {:.3}\n",
        median(GENERATED) / median("tape f_grad_tape"),
        median(HAND) / median("tape f_grad_tape")
    );
    Ok(())
}
