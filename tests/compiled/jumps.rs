//! `loop` with a `break` value, labelled `break`/`continue` out of nested
//! loops, and `match` on a tracked number, through the compiled adjoint:
//! each function below is compiled (`f_adjoint` exists and returns `Some`,
//! leaving the stack empty: the reverse popped exactly what the forward
//! pushed), and its gradient is checked against an independent oracle (a
//! closed form, or the function rewritten by hand over dual numbers, one
//! forward pass per input), against central differences (`f_check`) and
//! against the tape (`f_grad_tape`).
//!
//! Bound: the dual-number oracle and the tape compute the same derivative
//! by other operation orders; each gradient component here is a sum of at
//! most a few dozen terms of magnitude ≲ 10³, so they differ by a few ulps
//! times that sum's condition. `AGREE` = 1e-12 of the largest component is
//! ~10× that, and 10⁹ times below what a missed or doubled iteration would
//! change.

// Index loops on purpose: they are the constructs under test.
#![allow(clippy::needless_range_loop)]

use autodiff::__adjoint::with_stack;
use autodiff::prelude::*;

use super::support::{agree, assert_agree, compiled};
use crate::oracle::Dual;

fn flat(m: &[[f64; 3]; 3]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

// ---------------------------------------------------------------------
// `loop` whose value is the `break`'s.
// ---------------------------------------------------------------------

/// The loop is the function's value; the `break` reads three tracked
/// values.
#[differentiable]
fn passage(v0: f64, drag: f64) -> f64 {
    let mut v = v0;
    let mut x = 0.0;
    loop {
        x += v * 0.1;
        v -= drag * v * 0.1;
        if x > 1.0 {
            break x * v + v0;
        }
    }
}

fn passage_dual(v0: Dual, drag: Dual) -> Dual {
    let mut v = v0;
    let mut x = Dual::constant(0.0);
    loop {
        x = x + v * 0.1;
        v = v - drag * v * 0.1;
        if x.value > 1.0 {
            return x * v + v0;
        }
    }
}

#[test]
fn a_loop_value_from_a_break_reading_several_tracked_values() {
    for (v0, drag) in [(2.0, 0.3), (5.5, 0.1), (11.0, 0.7), (0.9, 0.05)] {
        let got = compiled(|stack| passage_adjoint(stack, v0, drag));
        assert_eq!(got.value, passage(v0, drag));
        let want = [
            passage_dual(Dual::input(v0, true), Dual::input(drag, false)).tangent,
            passage_dual(Dual::input(v0, false), Dual::input(drag, true)).tangent,
        ];
        let grad = passage_grad(v0, drag).unwrap().gradient;
        assert_agree("passage", &[grad.0, grad.1], &want);
        let tape = passage_grad_tape(v0, drag).unwrap().gradient;
        assert_agree("passage tape", &[grad.0, grad.1], &[tape.0, tape.1]);
        assert!(passage_check(v0, drag).unwrap().passed());
    }
}

/// `let r = loop { .. }`: the binding's adjoint seeds the `break` value.
#[differentiable]
fn settled(a: f64, b: f64) -> f64 {
    let mut p = a;
    let mut q = b;
    let mut n = 0;
    let r = loop {
        p = p * 0.5 + q;
        q = q * 0.9 - a * 0.1;
        n += 1;
        if n == 3 {
            break p * q + a * b;
        }
    };
    r * r + p
}

fn settled_dual(a: Dual, b: Dual) -> Dual {
    let mut p = a;
    let mut q = b;
    for _ in 0..3 {
        p = p * 0.5 + q;
        q = q * 0.9 - a * 0.1;
    }
    let r = p * q + a * b;
    r * r + p
}

#[test]
fn a_loop_bound_by_let_seeds_its_break_from_the_binding() {
    for (a, b) in [(0.3, -1.2), (2.0, 0.5), (-1.5, 1.5)] {
        let got = compiled(|stack| settled_adjoint(stack, a, b));
        assert_eq!(got.value, settled(a, b));
        let want = [
            settled_dual(Dual::input(a, true), Dual::input(b, false)).tangent,
            settled_dual(Dual::input(a, false), Dual::input(b, true)).tangent,
        ];
        let grad = settled_grad(a, b).unwrap().gradient;
        assert_agree("settled", &[grad.0, grad.1], &want);
        let tape = settled_grad_tape(a, b).unwrap().gradient;
        assert_agree("settled tape", &[grad.0, grad.1], &[tape.0, tape.1]);
        assert!(settled_check(a, b).unwrap().passed());
    }
}

/// A loop that breaks on its first iteration.
#[differentiable]
fn breaks_at_once(x: f64) -> f64 {
    let y = loop {
        let t = x * x;
        if t >= 0.0 {
            break t.sin();
        }
    };
    y + x
}

#[test]
fn a_loop_that_breaks_on_its_first_iteration() {
    for x in [-1.3, 0.0, 0.4, 2.2] {
        let got = compiled(|stack| breaks_at_once_adjoint(stack, x));
        assert_eq!(got.value, breaks_at_once(x));
        let want = 2.0 * x * (x * x).cos() + 1.0;
        assert_agree("breaks_at_once", &[got.gradient], &[want]);
        let tape = breaks_at_once_grad_tape(x).unwrap().gradient;
        assert_agree("breaks_at_once tape", &[got.gradient], &[tape]);
        assert!(breaks_at_once_check(x).unwrap().passed());
    }
}

// ---------------------------------------------------------------------
// Labelled `break` and `continue` out of nested loops.
// ---------------------------------------------------------------------

/// `break 'rows` from the middle of an inner iteration: the statements
/// before it in that iteration ran, the one after it did not, nor the
/// rest of the outer iteration.
#[differentiable]
fn scan(m: [[f64; 3]; 3], limit: f64) -> f64 {
    let mut acc = 0.0;
    'rows: for i in 0..3 {
        acc += m[i][0];
        for j in 0..3 {
            acc = acc * 1.5 + m[i][j];
            if acc > limit {
                break 'rows;
            }
            acc -= 0.25 * m[j][i] * acc;
        }
        acc *= 0.5;
    }
    acc
}

/// `scan` over dual numbers; also where it stopped, `(i, j)`, or `None`.
fn scan_dual(m: [[Dual; 3]; 3], limit: f64) -> (Dual, Option<(usize, usize)>) {
    let mut acc = Dual::constant(0.0);
    for i in 0..3 {
        acc = acc + m[i][0];
        for j in 0..3 {
            acc = acc * 1.5 + m[i][j];
            if acc.value > limit {
                return (acc, Some((i, j)));
            }
            acc = acc - m[j][i] * acc * 0.25;
        }
        acc = acc * 0.5;
    }
    (acc, None)
}

/// The gradient of `scan` by nine forward passes, and where it stopped.
fn scan_oracle(m: [[f64; 3]; 3], limit: f64) -> (Vec<f64>, Option<(usize, usize)>) {
    let mut grad = Vec::new();
    let mut stop = None;
    for k in 0..9 {
        let duals =
            std::array::from_fn(|i| std::array::from_fn(|j| Dual::input(m[i][j], i * 3 + j == k)));
        let (acc, at) = scan_dual(duals, limit);
        grad.push(acc.tangent);
        stop = at;
    }
    (grad, stop)
}

#[test]
fn a_labelled_break_from_the_middle_of_an_inner_iteration() {
    let m = [[0.4, -0.3, 0.2], [0.7, 0.9, -0.5], [0.3, 0.8, 0.6]];
    let mut stops = Vec::new();
    // From no break at all down to a break in the first inner iteration.
    for limit in [100.0, 10.0, 6.0, 4.0, 2.0, 1.2, 0.9] {
        let got = compiled(|stack| scan_adjoint(stack, m, limit));
        assert_eq!(got.value, scan(m, limit));
        let (want, stop) = scan_oracle(m, limit);
        stops.push(stop);
        let grad = scan_grad(m, limit).unwrap().gradient;
        assert_agree("scan", &flat(&grad.0), &want);
        assert_eq!(grad.1, 0.0, "the limit is only compared");
        let tape = scan_grad_tape(m, limit).unwrap().gradient;
        assert_agree("scan tape", &flat(&grad.0), &flat(&tape.0));
        assert!(scan_check(m, limit).unwrap().passed());
    }
    // The points cover leaving from a later row, mid-row, and not at all.
    assert!(stops.contains(&None), "{stops:?}");
    assert!(
        stops
            .iter()
            .any(|stop| matches!(stop, Some((i, j)) if *i > 0 && *j > 0)),
        "{stops:?}"
    );
    assert!(stops.contains(&Some((0, 0))), "{stops:?}");
}

/// Newton's iteration for √a in rounds: `break 'outer` from inside a
/// `while` when a step is small, else a plain `break` of the `loop` after
/// four rounds.
#[differentiable]
fn newton_root(a: f64) -> f64 {
    let mut guess = a;
    let mut rounds = 0;
    'outer: loop {
        let mut steps = 0;
        while steps < 3 {
            let next = 0.5 * (guess + a / guess);
            if (next - guess).abs() < 1e-3 {
                break 'outer;
            }
            guess = next;
            steps += 1;
        }
        rounds += 1;
        if rounds == 4 {
            break;
        }
    }
    guess
}

/// `newton_root` over dual numbers, and whether a small step ended it.
fn newton_root_dual(a: Dual) -> (Dual, bool) {
    let mut guess = a;
    for _ in 0..4 {
        for _ in 0..3 {
            let next = (guess + a / guess) * 0.5;
            if (next.value - guess.value).abs() < 1e-3 {
                return (guess, true);
            }
            guess = next;
        }
    }
    (guess, false)
}

#[test]
fn a_labelled_break_out_of_a_while_inside_a_loop() {
    let mut small_steps = Vec::new();
    for a in [2.0, 9.0, 0.3, 1e6] {
        let got = compiled(|stack| newton_root_adjoint(stack, a));
        assert_eq!(got.value, newton_root(a));
        let (want, small) = newton_root_dual(Dual::input(a, true));
        small_steps.push(small);
        assert_agree("newton_root", &[got.gradient], &[want.tangent]);
        let tape = newton_root_grad_tape(a).unwrap().gradient;
        assert_agree("newton_root tape", &[got.gradient], &[tape]);
        assert!(newton_root_check(a).unwrap().passed());
    }
    // Both ways out are taken.
    assert_eq!(small_steps, [true, true, true, false]);
}

/// `break 'search value` out of a `for` inside a `loop`: the value seeds
/// from the outer loop's binding; the `for` is left mid-way.
#[differentiable]
fn hunt(x: [f64; 4], target: f64) -> f64 {
    let mut s = 0.0;
    let mut rounds = 0;
    let found = 'search: loop {
        for i in 0..4 {
            s = s * 0.5 + x[i] * x[i];
            if s > target {
                break 'search s * x[i];
            }
        }
        s += 0.1;
        rounds += 1;
        if rounds == 3 {
            break s;
        }
    };
    found + s
}

fn hunt_dual(x: [Dual; 4], target: f64) -> Dual {
    let mut s = Dual::constant(0.0);
    for _ in 0..3 {
        for i in 0..4 {
            s = s * 0.5 + x[i] * x[i];
            if s.value > target {
                return s * x[i] + s;
            }
        }
        s = s + Dual::constant(0.1);
    }
    s + s
}

#[test]
fn a_labelled_break_with_a_value_out_of_an_inner_for() {
    let x = [0.5, -0.9, 0.3, 1.1];
    for target in [0.2, 0.6, 1.5, 2.4, 50.0] {
        let got = compiled(|stack| hunt_adjoint(stack, x, target));
        assert_eq!(got.value, hunt(x, target));
        let want: Vec<f64> = (0..4)
            .map(|k| hunt_dual(std::array::from_fn(|i| Dual::input(x[i], i == k)), target).tangent)
            .collect();
        let grad = hunt_grad(x, target).unwrap().gradient;
        assert_agree("hunt", &grad.0, &want);
        let tape = hunt_grad_tape(x, target).unwrap().gradient;
        assert_agree("hunt tape", &grad.0, &tape.0);
        assert!(hunt_check(x, target).unwrap().passed());
    }
}

/// `continue 'rows` out of a plain `loop` (which otherwise ends by a plain
/// `break`): the rest of that row's outer iteration is skipped.
#[differentiable]
fn skip_rows(m: [[f64; 3]; 3]) -> f64 {
    let mut total = 0.0;
    'rows: for i in 0..3 {
        let mut x = m[i][0];
        let mut k = 0;
        loop {
            total += x * x;
            if x < 0.0 {
                continue 'rows;
            }
            total *= 1.1;
            x -= m[i][1];
            k += 1;
            if k == 3 {
                break;
            }
        }
        total += 2.0 * m[i][2] * total;
    }
    total
}

fn skip_rows_dual(m: [[Dual; 3]; 3]) -> Dual {
    let mut total = Dual::constant(0.0);
    'rows: for i in 0..3 {
        let mut x = m[i][0];
        for _ in 0..3 {
            total = total + x * x;
            if x.value < 0.0 {
                continue 'rows;
            }
            total = total * 1.1;
            x = x - m[i][1];
        }
        total = total + m[i][2] * total * 2.0;
    }
    total
}

#[test]
fn a_labelled_continue_out_of_an_inner_loop() {
    let points = [
        // No row left early; then rows left at their first, second and
        // third step.
        [[0.9, 0.3, 0.2], [0.7, 0.2, 0.5], [0.8, 0.1, 0.6]],
        [[-0.4, 0.3, 0.2], [0.7, 0.9, 0.5], [0.3, 0.2, 0.6]],
        [[0.4, 0.3, -0.2], [0.7, 0.5, 0.5], [0.5, 0.3, -0.6]],
    ];
    for m in points {
        let got = compiled(|stack| skip_rows_adjoint(stack, m));
        assert_eq!(got.value, skip_rows(m));
        let want: Vec<f64> = (0..9)
            .map(|k| {
                let duals = std::array::from_fn(|i| {
                    std::array::from_fn(|j| Dual::input(m[i][j], i * 3 + j == k))
                });
                skip_rows_dual(duals).tangent
            })
            .collect();
        assert_agree("skip_rows", &flat(&got.gradient), &want);
        let tape = skip_rows_grad_tape(m).unwrap().gradient;
        assert_agree("skip_rows tape", &flat(&got.gradient), &flat(&tape));
        assert!(skip_rows_check(m).unwrap().passed());
    }
}

// ---------------------------------------------------------------------
// `match` on a tracked number.
// ---------------------------------------------------------------------

/// Arms by guards on the bound name, and the rest: each point below
/// takes one.
#[differentiable]
fn banded(x: f64, s: f64) -> f64 {
    match x {
        v if v < -1.0 => s * v * v,
        v if v <= 0.0 => s * (1.0 + v),
        v if v <= 1.0 => (s * v).sin(),
        v => s * v.sqrt(),
    }
}

#[test]
fn a_match_on_a_tracked_number_takes_each_arm() {
    let s = 1.7;
    // (x, closed-form gradient in (x, s)), one point per arm.
    let cases = [
        (-2.5, [2.0 * s * -2.5, 6.25]),
        (-0.5, [s, 0.5]),
        (0.6, [s * (s * 0.6_f64).cos(), 0.6 * (s * 0.6_f64).cos()]),
        (3.0, [s / (2.0 * 3.0_f64.sqrt()), 3.0_f64.sqrt()]),
    ];
    for (x, want) in cases {
        let got = compiled(|stack| banded_adjoint(stack, x, s));
        assert_eq!(got.value, banded(x, s));
        assert_agree("banded", &[got.gradient.0, got.gradient.1], &want);
        let tape = banded_grad_tape(x, s).unwrap().gradient;
        assert_agree(
            "banded tape",
            &[got.gradient.0, got.gradient.1],
            &[tape.0, tape.1],
        );
        assert!(banded_check(x, s).unwrap().passed());
    }
}

/// A `match` on a binding that changes, inside a loop: the taken arm is
/// pushed, and a `mut` name bound by an arm is written before it is read.
#[differentiable]
fn folded(xs: [f64; 4]) -> f64 {
    let mut total = 0.0;
    for i in 0..4 {
        let x = xs[i] * 2.0;
        let term = match x {
            v if v > 1.0 => v.ln(),
            mut v => {
                v *= v;
                v * xs[3]
            }
        };
        total = total * 0.5 + term;
    }
    total
}

/// `folded`'s gradient by hand: each term's derivative, weighted by the
/// halvings after it.
fn folded_oracle(xs: [f64; 4]) -> [f64; 4] {
    let mut grad = [0.0; 4];
    for i in 0..4 {
        let weight = 0.5_f64.powi(3 - i as i32);
        let x = xs[i] * 2.0;
        if x > 1.0 {
            grad[i] += weight * 2.0 / x;
        } else {
            grad[i] += weight * 2.0 * x * 2.0 * xs[3];
            grad[3] += weight * x * x;
        }
    }
    grad
}

#[test]
fn a_match_on_a_changing_binding_inside_a_loop() {
    for xs in [
        [0.2, 0.9, -0.4, 0.3],
        [1.5, 0.1, 2.0, 0.7],
        [0.3, 0.6, 0.45, 1.2],
    ] {
        let got = compiled(|stack| folded_adjoint(stack, xs));
        assert_eq!(got.value, folded(xs));
        assert_agree("folded", &got.gradient, &folded_oracle(xs));
        let tape = folded_grad_tape(xs).unwrap().gradient;
        assert_agree("folded tape", &got.gradient, &tape);
        assert!(folded_check(xs).unwrap().passed());
    }
}

// ---------------------------------------------------------------------
// A jump from inside a block that goes on after it.
// ---------------------------------------------------------------------

/// A `break` inside an `if` whose block has a statement after it: the
/// reverse of the iteration it ended undoes only what ran before it.
#[differentiable]
fn break_mid_block(a: [f64; 4], y: f64) -> f64 {
    let mut t = 0.0;
    for i in 0..4 {
        if a[i] > -10.0 {
            t += a[i] * y;
            if t > 1.0 {
                break;
            }
            t += 2.0 * y * t;
        }
    }
    t
}

fn break_mid_block_dual(a: [Dual; 4], y: Dual) -> Dual {
    let mut t = Dual::constant(0.0);
    for i in 0..4 {
        t = t + a[i] * y;
        if t.value > 1.0 {
            break;
        }
        t = t + y * t * 2.0;
    }
    t
}

/// `return` from inside an `if` block with statements after it, and from
/// inside a block that is a binding's value.
#[differentiable]
fn return_mid_block(a: [f64; 3], y: f64) -> f64 {
    let mut t = 0.0;
    if y > 0.0 {
        t += y * y;
        if t > 0.5 {
            return t * a[0];
        }
        t *= a[1];
    }
    let u = if t > 0.01 {
        t += a[2];
        if t > 3.0 {
            return t * y;
        }
        t * y
    } else {
        t
    };
    u + t
}

fn return_mid_block_dual(a: [Dual; 3], y: Dual) -> Dual {
    let mut t = Dual::constant(0.0);
    if y.value > 0.0 {
        t = t + y * y;
        if t.value > 0.5 {
            return t * a[0];
        }
        t = t * a[1];
    }
    let u = if t.value > 0.01 {
        t = t + a[2];
        if t.value > 3.0 {
            return t * y;
        }
        t * y
    } else {
        t
    };
    u + t
}

/// The gradient of `f` over `n` array inputs and `y`, by `n + 1` forward
/// passes.
fn dual_gradient<const N: usize>(
    f: impl Fn([Dual; N], Dual) -> Dual,
    a: [f64; N],
    y: f64,
) -> Vec<f64> {
    (0..=N)
        .map(|k| {
            f(
                std::array::from_fn(|i| Dual::input(a[i], i == k)),
                Dual::input(y, k == N),
            )
            .tangent
        })
        .collect()
}

#[test]
fn a_jump_from_inside_a_block_undoes_only_what_ran() {
    let a = [0.5, 0.6, 0.7, 0.8];
    // Breaks in the first, second, third iteration, and not at all.
    for y in [2.5, 0.9, 0.4, 0.05] {
        let got = compiled(|stack| break_mid_block_adjoint(stack, a, y));
        assert_eq!(got.value, break_mid_block(a, y));
        let mut flat = got.gradient.0.to_vec();
        flat.push(got.gradient.1);
        assert_agree(
            "break_mid_block",
            &flat,
            &dual_gradient(break_mid_block_dual, a, y),
        );
        let tape = break_mid_block_grad_tape(a, y).unwrap().gradient;
        let mut tape_flat = tape.0.to_vec();
        tape_flat.push(tape.1);
        assert_agree("break_mid_block tape", &flat, &tape_flat);
        assert!(break_mid_block_check(a, y).unwrap().passed());
    }
    let a = [0.5, 0.6, 2.9];
    // The first `return`, the second, none after both blocks ran, and
    // neither block.
    for (y, a) in [(0.9, a), (0.6, a), (0.6, [0.5, 0.6, 0.7]), (-1.0, a)] {
        let got = compiled(|stack| return_mid_block_adjoint(stack, a, y));
        assert_eq!(got.value, return_mid_block(a, y));
        let mut flat = got.gradient.0.to_vec();
        flat.push(got.gradient.1);
        assert_agree(
            "return_mid_block",
            &flat,
            &dual_gradient(return_mid_block_dual, a, y),
        );
        let tape = return_mid_block_grad_tape(a, y).unwrap().gradient;
        let mut tape_flat = tape.0.to_vec();
        tape_flat.push(tape.1);
        assert_agree("return_mid_block tape", &flat, &tape_flat);
        assert!(return_mid_block_check(a, y).unwrap().passed());
    }
}

/// `t += 2.0 * m * t`: the value reads the target, whose adjoint the
/// reverse adds to while `m`'s still needs the one before.
#[differentiable]
fn compound_reads_target(a: f64, m: f64) -> f64 {
    let mut t = a;
    t += 2.0 * m * t;
    t -= if m > 0.0 { m * t } else { t * t };
    t
}

#[test]
fn a_compound_assignment_reading_its_target() {
    for (a, m) in [(1.5, 0.7), (-0.8, 0.3), (1.2, -0.4)] {
        let got = compiled(|stack| compound_reads_target_adjoint(stack, a, m));
        let t1 = a * (1.0 + 2.0 * m);
        let (dt1_da, dt1_dm) = (1.0 + 2.0 * m, 2.0 * a);
        // t2 = t1 - m t1 = t1 (1 - m), or t1 - t1².
        let want = if m > 0.0 {
            [dt1_da * (1.0 - m), dt1_dm * (1.0 - m) - t1]
        } else {
            [dt1_da * (1.0 - 2.0 * t1), dt1_dm * (1.0 - 2.0 * t1)]
        };
        assert_agree("compound", &[got.gradient.0, got.gradient.1], &want);
        let tape = compound_reads_target_grad_tape(a, m).unwrap().gradient;
        assert_agree(
            "compound tape",
            &[got.gradient.0, got.gradient.1],
            &[tape.0, tape.1],
        );
    }
}

/// A `loop` whose exit test reads a value gone non-finite: the compiled
/// forward stops at the next iteration (where the plain loop would spin
/// forever) and returns `None`, so that `f_grad` goes to the tape for its
/// error.
#[test]
fn a_loop_on_a_non_finite_value_stops() {
    for (v0, drag) in [(f64::NAN, 0.3), (2.0, f64::INFINITY)] {
        let compiled = with_stack(|stack| passage_adjoint(stack, v0, drag));
        assert!(compiled.is_none(), "{v0} {drag}");
    }
}

// ---------------------------------------------------------------------
// A loop no `continue` ends an iteration of records how it ended once,
// after it, instead of once per iteration: only its last iteration can
// have ended by a jump. Inside a loop that does `continue`, and around
// one that leaves both (`break 'outer`), the two records interleave.
// ---------------------------------------------------------------------

/// The inner `for` is left by `break` (its exit recorded once), by
/// `break 'rows` out of both, or by running out; the outer skips a row by
/// `continue` (an exit per iteration); the `while` ends by its condition
/// or by `break` before its last statement.
#[differentiable]
fn exits_once(a: [f64; 4], y: f64) -> f64 {
    let mut t = y;
    'rows: for r in 0..3 {
        if a[r] * y > 2.0 {
            continue;
        }
        for i in 0..4 {
            t += a[i] * t * 0.25;
            if t > 5.0 {
                break;
            }
            if t < -5.0 {
                break 'rows;
            }
            t *= 0.9;
        }
        t += y;
    }
    let mut k = 0;
    while k < 3 {
        t = t * 0.5 + a[k];
        if t > 4.0 {
            break;
        }
        t += y * y;
        k += 1;
    }
    t
}

fn exits_once_dual(a: [Dual; 4], y: Dual) -> Dual {
    exits_once_walk(a, y).0
}

/// The function over dual numbers, and which exits it took: a skipped
/// row, the inner `break`, `break 'rows`, the `while`'s `break`.
fn exits_once_walk(a: [Dual; 4], y: Dual) -> (Dual, [bool; 4]) {
    let mut took = [false; 4];
    let mut t = y;
    'rows: for r in 0..3 {
        if (a[r] * y).value > 2.0 {
            took[0] = true;
            continue;
        }
        for i in 0..4 {
            t = t + a[i] * t * 0.25;
            if t.value > 5.0 {
                took[1] = true;
                break;
            }
            if t.value < -5.0 {
                took[2] = true;
                break 'rows;
            }
            t = t * 0.9;
        }
        t = t + y;
    }
    let mut k = 0;
    while k < 3 {
        t = t * 0.5 + a[k];
        if t.value > 4.0 {
            took[3] = true;
            break;
        }
        t = t + y * y;
        k += 1;
    }
    (t, took)
}

#[test]
fn a_loop_without_continue_records_its_exit_once() {
    let cases = [
        ([0.5, 0.6, 0.7, 0.8], 0.3),
        ([0.5, 0.6, 0.7, 0.8], 1.5),
        ([2.0, 0.1, 1.9, 0.4], 1.2),
        ([0.9, 1.1, 0.3, 0.2], -2.5),
        ([0.2, 0.3, 0.4, 4.5], 0.2),
        ([-3.0, -2.0, -1.0, 0.5], 1.0),
    ];
    let mut reached = [false; 4];
    let mut plain = false;
    for (a, y) in cases {
        let got = compiled(|stack| exits_once_adjoint(stack, a, y));
        assert_eq!(got.value, exits_once(a, y));
        let mut flat = got.gradient.0.to_vec();
        flat.push(got.gradient.1);
        assert_agree("exits_once", &flat, &dual_gradient(exits_once_dual, a, y));
        let tape = exits_once_grad_tape(a, y).unwrap().gradient;
        let mut tape_flat = tape.0.to_vec();
        tape_flat.push(tape.1);
        assert_agree("exits_once tape", &flat, &tape_flat);
        assert!(exits_once_check(a, y).unwrap().passed());
        let (_, took) = exits_once_walk(a.map(Dual::constant), Dual::constant(y));
        plain |= took == [false; 4];
        for (r, t) in reached.iter_mut().zip(took) {
            *r |= t;
        }
    }
    assert_eq!(reached, [true; 4], "the cases take every exit");
    assert!(plain, "and one case takes none");
}

/// A `break` value that takes an element's `Option` apart (`match
/// x.get(k) { Some(&v) => .., None => .. }`) is read as the element: the
/// function is compiled (seed 17401's f1_0 kept the tape for it).
#[differentiable]
fn break_with_an_element(x: &[f64], k: usize) -> f64 {
    let mut n = 0;
    let y = loop {
        if n >= 2 {
            break match x.get(k) {
                Some(&v) => v.sin(),
                None => 0.5,
            };
        }
        n += 1;
    };
    y * x[0]
}

#[test]
fn a_break_value_matching_an_element_of_a_slice() {
    let x = [0.3, -1.2];
    for (k, want) in [
        (1, vec![(-1.2_f64).sin(), 0.3 * (-1.2_f64).cos()]),
        (5, vec![0.5, 0.0]),
    ] {
        let got = compiled(|stack| break_with_an_element_adjoint(stack, &x, k));
        assert_agree("break value", &got.gradient, &want);
        let tape = break_with_an_element_grad_tape(&x, k).unwrap();
        assert_agree("break value vs tape", &got.gradient, &tape.gradient);
        assert_eq!(got.value, break_with_an_element(&x, k));
    }
}

/// A `loop`'s value broken out with an element of a `#[constant]` slice,
/// and a constant `Vec` taken by value: their shapes come from their
/// types (the loop's value kept the tape, "a binding whose shape the
/// reverse sweep cannot see", seed 19261 f2_19).
#[differentiable]
fn constant_shapes(x: f64, #[constant] z: &[f64], #[constant] v: Vec<f64>) -> f64 {
    let mut n = 0;
    let mut acc = x;
    let y = loop {
        if n >= 3 {
            break z[1];
        }
        n += 1;
        acc = acc * z[0] + x.sin();
    };
    let mut s = 0.0;
    for t in v {
        s += t * acc;
    }
    y * acc + s
}

#[test]
fn constant_parameters_are_shaped_by_their_types() {
    assert_eq!(
        constant_shapes_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let (z, v) = ([0.5, -1.25], vec![0.25, 2.0]);
    for x in [0.3, -0.9] {
        let got = agree(
            "constant_shapes",
            constant_shapes_grad(x, &z, v.clone()),
            constant_shapes_grad_tape(x, &z, v.clone()),
        );
        // acc₃ = z0³x + (z0² + z0 + 1) sin x, f = (z1 + Σv) acc₃
        let slope = z[0].powi(3) + (z[0] * z[0] + z[0] + 1.0) * x.cos();
        let want = (z[1] + v.iter().sum::<f64>()) * slope;
        assert_agree("constant_shapes", &[got.gradient], &[want]);
    }
}

/// `let y;` given its value inside a `loop` that `break`s after it, which
/// rustc takes as given after the loop: the compiled loop may leave early
/// (a value that is not finite stops it), so it keeps the tape, named
/// (it did not build, E0381).
#[differentiable]
fn given_in_a_loop(x: &[f64]) -> f64 {
    let y;
    let mut i = 0;
    loop {
        if x[i] > 0.5 || i + 1 == x.len() {
            y = x[i] * 2.0;
            break;
        }
        i += 1;
    }
    y * y
}

#[test]
fn a_let_given_its_value_in_a_loop_builds_and_keeps_the_tape() {
    assert!(matches!(
        given_in_a_loop_grad_path(),
        autodiff::GradientPath::Tape { construct, .. }
            if construct == "a let without a value given its value inside a loop"
    ));
    // y = 2·x[1]: its square's gradient is 8·x[1] there.
    let got = given_in_a_loop_grad(&[0.1, 0.7, 0.9]).unwrap();
    assert_eq!(got.gradient, vec![0.0, 8.0 * 0.7, 0.0]);
    assert!(given_in_a_loop_check(&[0.1, 0.7, 0.9]).unwrap().passed());
}

/// A piecewise function of each item, as a `match` with guards on the
/// item a `for &v in x` takes out of its reference: the item's shape was
/// not seen ("`match` on a computed value with a derivative") and the
/// gradient kept the tape.
#[differentiable]
fn piecewise_items(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for &v in x.iter().rev() {
        s += match v {
            v if v > 0.0 => v * v,
            v if v < -1.0 => -v,
            v => 0.1 * v,
        };
    }
    for &w in &x[1..] {
        s += match w {
            w if w > 0.5 => w.sin(),
            _ => 0.0,
        };
    }
    s
}

#[test]
fn a_match_with_guards_on_a_loops_item_is_compiled() {
    assert_eq!(
        piecewise_items_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let x = vec![0.3, -1.5, 0.8, -0.2];
    let got = agree(
        "piecewise_items",
        piecewise_items_grad(&x),
        piecewise_items_grad_tape(&x),
    );
    // 2v for v > 0, −1 below −1, 0.1 between; plus cos w past the first
    // item where w > 0.5.
    let want = [0.6, -1.0, 1.6 + 0.8_f64.cos(), 0.1];
    assert_agree("piecewise_items", &got.gradient, &want);
}

/// The same `match` on the items of a model's field, of a field taken
/// out by a pattern, and of a tuple-valued call's `Vec`: the macro cannot
/// see those items' type, so the guards' comparisons with numbers say
/// what they are (these kept the tape: "`match` on a computed value with
/// a derivative").
#[derive(Clone, Debug, Parameters)]
struct Pieces {
    w: Vec<f64>,
    b: f64,
}

#[differentiable]
fn pieces_pair(a: f64, b: f64) -> (f64, Vec<f64>) {
    (a * b, vec![a, b.sin(), a * 0.5 - b])
}

#[differentiable]
fn piecewise_unseen(m: &Pieces, a: f64) -> f64 {
    let mut s = 0.0;
    for &v in m.w.iter() {
        s += match v {
            v if v > 0.5 => v * v,
            v if v < -0.5 => -v,
            v => 0.1 * v * m.b,
        };
    }
    let Pieces { w: ws, b: bb, .. } = m;
    for &u in &ws[1..] {
        s += match u {
            u if u * bb > 0.2 => u.sin(),
            _ => *bb,
        };
    }
    let (c, items) = pieces_pair(a, m.b);
    for &t in &items[..] {
        s += match t {
            t if t >= 0.0 => t * c,
            t => t.exp(),
        };
    }
    s
}

fn piecewise_unseen_dual(w: &[Dual], b: Dual, a: Dual) -> Dual {
    let mut s = Dual::constant(0.0);
    for &v in w {
        s = s + if v.value > 0.5 {
            v * v
        } else if v.value < -0.5 {
            -v
        } else {
            v * 0.1 * b
        };
    }
    for &u in &w[1..] {
        s = s + if (u * b).value > 0.2 { u.sin() } else { b };
    }
    let c = a * b;
    for t in [a, b.sin(), a * 0.5 - b] {
        s = s + if t.value >= 0.0 { t * c } else { t.exp() };
    }
    s
}

#[test]
fn a_match_with_guards_on_items_of_an_unseen_type_is_compiled() {
    assert_eq!(
        piecewise_unseen_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let mut rng = crate::xorshift::Rng(37);
    for _ in 0..16 {
        let w: Vec<f64> = (0..4).map(|_| rng.uniform(1.5)).collect();
        let (b, a) = (rng.uniform(1.2), rng.uniform(1.2));
        let m = Pieces { w: w.clone(), b };
        let mut all = w.clone();
        all.extend([b, a]);
        let (value, want) = crate::oracle::dual_value_and_gradient(&all, |d| {
            piecewise_unseen_dual(&d[..4], d[4], d[5])
        });
        for got in [
            piecewise_unseen_grad(&m, a).expect("compiled"),
            piecewise_unseen_grad_tape(&m, a).expect("tape"),
        ] {
            let (model, da) = &got.gradient;
            let mut flat = model.w.clone();
            flat.extend([model.b, *da]);
            assert_agree("piecewise_unseen", &[got.value], &[value]);
            assert_agree("piecewise_unseen", &flat, &want);
        }
    }
}
