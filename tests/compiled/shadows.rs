//! A name bound again by `let` (`let h = l1.forward(x); let h =
//! l2.forward(&h);`), as students write layer after layer: the compiled
//! adjoint reads each such `let` under a name of its own, and what
//! follows it in its block with that name (`adjoint/shadows.rs`). These
//! check that the bodies take the compiled path and mean what they say:
//! layers through a model's fields and in a loop, a vector-valued helper
//! whose returned binding is itself bound again (its split adjoint must
//! return the last one), a parameter bound again as a `Vec` that grows,
//! chains over a shadowed `Vec`, a branch that binds the name again inside
//! it, a body whose format string names the variable (not renamed:
//! the tape, same numbers), and closures whose parameters are named as
//! other bindings (renamed in each closure).
//!
//! Oracles: dual numbers (the same formulas written on `Dual`) and the
//! tape. Bound: short sums of products and `tanh`s of inputs of magnitude
//! ≤ 2: the paths agree to a few ulps, far inside `AGREE`.

// Index loops on purpose: the bodies read the matrices as the formulas
// index them.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;
use autodiff::GradientPath;

use super::lent_calls::Dense;
use super::support::{assert_agree, compiled_agrees};
use crate::oracle::{dual_value_and_gradient, Dual};

#[derive(Clone, Debug, Parameters)]
struct Net {
    l1: Dense,
    l2: Dense,
    layers: Vec<Dense>,
}

#[differentiable]
impl Net {
    /// `let h = ..; let h = ..(&h);` through two fields.
    fn twice(&self, #[constant] x: &[f64]) -> f64 {
        let h = self.l1.forward(x);
        let h = self.l2.forward(&h);
        h[0] * h[1]
    }

    /// The same in a loop's body, over the stack of layers.
    fn each(&self, #[constant] x: &[f64]) -> f64 {
        let mut total = 0.0;
        for layer in &self.layers {
            let h = layer.forward(x);
            let h = layer.forward(&h);
            total += h[0] - h[1];
        }
        total
    }
}

fn net() -> Net {
    let dense = |w: [[f64; 2]; 2], b: [f64; 2]| Dense {
        w: w.iter().map(|row| row.to_vec()).collect(),
        b: b.to_vec(),
    };
    Net {
        l1: dense([[0.5, -1.0], [1.5, 0.75]], [0.1, -0.2]),
        l2: dense([[-0.25, 0.8], [0.6, 1.1]], [0.3, 0.05]),
        layers: vec![
            dense([[0.9, -0.4], [0.2, 0.7]], [-0.1, 0.2]),
            dense([[-0.6, 0.3], [1.2, -0.5]], [0.15, -0.35]),
        ],
    }
}

/// The net's components in its gradient's order: `l1`, `l2`, then each
/// of `layers`, each `w` by rows then `b`.
fn components(net: &Net) -> Vec<f64> {
    let mut out = Vec::new();
    for layer in [&net.l1, &net.l2].into_iter().chain(&net.layers) {
        out.extend(layer.w.iter().flatten());
        out.extend(&layer.b);
    }
    out
}

/// Layer `k` of the flat point (6 components each) on duals.
fn dense_dual(p: &[Dual], k: usize, x: &[Dual]) -> Vec<Dual> {
    let at = 6 * k;
    (0..2)
        .map(|i| (p[at + 2 * i] * x[0] + p[at + 2 * i + 1] * x[1] + p[at + 4 + i]).tanh())
        .collect()
}

#[test]
fn layers_bound_again_by_let_take_the_compiled_path() {
    let net = net();
    assert_eq!(net.twice_grad_path(), GradientPath::Compiled);
    assert_eq!(net.each_grad_path(), GradientPath::Compiled);
    let x = [0.7, -1.2];
    let point = components(&net);
    let xs = [Dual::constant(x[0]), Dual::constant(x[1])];
    let (value, want) = dual_value_and_gradient(&point, |p| {
        let h = dense_dual(p, 1, &dense_dual(p, 0, &xs));
        h[0] * h[1]
    });
    for g in [
        net.twice_grad(&x).expect("compiled"),
        net.twice_grad_tape(&x).expect("tape"),
    ] {
        assert_agree("twice", &[g.value], &[value]);
        assert_agree("twice", &components(&g.gradient), &want);
    }
    let (value, want) = dual_value_and_gradient(&point, |p| {
        let mut total = Dual::constant(0.0);
        for k in 2..4 {
            let h = dense_dual(p, k, &dense_dual(p, k, &xs));
            total = total + h[0] - h[1];
        }
        total
    });
    for g in [
        net.each_grad(&x).expect("compiled"),
        net.each_grad_tape(&x).expect("tape"),
    ] {
        assert_agree("each", &[g.value], &[value]);
        assert_agree("each", &components(&g.gradient), &want);
    }
}

/// A vector-valued helper whose returned binding is bound again: its
/// split adjoint must return the last `out`, not the first.
#[differentiable]
fn squashed(x: &[f64]) -> Vec<f64> {
    let out = x.to_vec();
    let out: Vec<f64> = out.iter().map(|v| v.tanh()).collect();
    let out: Vec<f64> = out.iter().map(|v| v * v + 0.5 * v).collect();
    out
}

#[differentiable]
fn through_squashed(x: &[f64]) -> f64 {
    let s = squashed(x);
    let s = squashed(&s);
    s[0] * 2.0 + s[1] * s[2]
}

fn squashed_dual(x: &[Dual]) -> Vec<Dual> {
    x.iter()
        .map(|v| {
            let t = v.tanh();
            t * t + t * 0.5
        })
        .collect()
}

#[test]
fn a_helper_returning_a_binding_bound_again_returns_the_last_one() {
    assert_eq!(through_squashed_grad_path(), GradientPath::Compiled);
    for x in [[0.3, -1.1, 0.8], [-0.6, 0.4, 1.9]] {
        // The plain function is the value's oracle for the helper itself.
        let plain: Vec<f64> = x
            .iter()
            .map(|v: &f64| v.tanh() * v.tanh() + 0.5 * v.tanh())
            .collect();
        assert_eq!(squashed(&x), plain);
        compiled_agrees(
            "through_squashed",
            &x,
            |stack| through_squashed_adjoint(stack, &x),
            || through_squashed_grad(&x),
            || through_squashed_grad_tape(&x),
            |p| {
                let s = squashed_dual(&squashed_dual(p));
                s[0] * 2.0 + s[1] * s[2]
            },
        );
    }
}

/// A parameter bound again as a `Vec` that grows, and a chain over it.
#[differentiable]
fn grown(x: &[f64], c: f64) -> f64 {
    let x = x.to_vec();
    let mut x = x;
    x.push(c * c);
    let x: Vec<f64> = x.iter().map(|v| (v * c).sin()).collect();
    x.iter().sum::<f64>() * x[0]
}

#[test]
fn a_parameter_bound_again_as_a_vec_that_grows() {
    assert_eq!(grown_grad_path(), GradientPath::Compiled);
    let point = [0.4, -0.9, 1.3];
    compiled_agrees(
        "grown",
        &point,
        |stack| grown_adjoint(stack, &point[..2], point[2]),
        || grown_grad(&point[..2], point[2]),
        || grown_grad_tape(&point[..2], point[2]),
        |p| {
            let c = p[2];
            let x: Vec<Dual> = [p[0], p[1], c * c].iter().map(|v| (*v * c).sin()).collect();
            (x[0] + x[1] + x[2]) * x[0]
        },
    );
}

/// A name bound again inside a branch and a loop (each its own block),
/// after the body's own binding of it: the outer one is what the tail
/// reads.
#[differentiable]
fn inner_again(x: f64, y: f64) -> f64 {
    let h = x * y;
    let mut total = h;
    if h > 0.0 {
        let h = h.sin() + y;
        total += h * h;
    }
    for k in 0..2 {
        let h = total * (k as f64 + 1.0);
        let h = h.tanh();
        total += h;
    }
    total * h
}

#[test]
fn a_name_bound_again_inside_a_branch_or_a_loop() {
    assert_eq!(inner_again_grad_path(), GradientPath::Compiled);
    for point in [[0.8, 1.3], [-0.7, 0.9]] {
        compiled_agrees(
            "inner_again",
            &point,
            |stack| inner_again_adjoint(stack, point[0], point[1]),
            || inner_again_grad(point[0], point[1]),
            || inner_again_grad_tape(point[0], point[1]),
            |p| {
                let h = p[0] * p[1];
                let mut total = h;
                if h.value > 0.0 {
                    let g = h.sin() + p[1];
                    total = total + g * g;
                }
                for k in 0..2 {
                    let g = (total * (k as f64 + 1.0)).tanh();
                    total = total + g;
                }
                total * h
            },
        );
    }
}

/// A count bound again and read as a range's end (`0..n`, `..=n`, after
/// `..`, which is not a field access): with the first `n` the loops would
/// sum fewer terms, a wrong value and gradient with no error.
#[differentiable]
fn longer(x: &[f64], n: usize) -> f64 {
    let n = n + 1;
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * x[i];
    }
    let n = n - 1;
    for i in 1..=n {
        s += x[i].sin();
    }
    s
}

#[test]
fn a_count_bound_again_ends_its_ranges() {
    assert_eq!(longer_grad_path(), GradientPath::Compiled);
    let x = [0.5, -1.25, 2.0, 0.75];
    let g = longer_grad(&x, 2).expect("compiled");
    let want_value = 0.25 + 1.5625 + 4.0 + (-1.25f64).sin() + 2.0f64.sin();
    assert_agree("longer", &[g.value], &[want_value]);
    let want = [1.0, -2.5 + (-1.25f64).cos(), 4.0 + 2.0f64.cos(), 0.0];
    assert_agree("longer", &g.gradient, &want);
    assert_eq!(longer_grad_tape(&x, 2).expect("tape").gradient, g.gradient);
}

/// `y` bound three times by patterns (the second's adjoint `y_2_bar`)
/// beside a binding named `y_2` (whose adjoint is `y_2_bar` too): one
/// name for two adjoints hid the first from the statements that meant it,
/// a wrong gradient with no error (7.504 for 5.544 here). Seed 19827's
/// `g5_7` met it once the renaming made an `acc126_2`.
#[differentiable]
fn adjoint_names_apart(x: f64) -> f64 {
    let (y, z) = (x, 2.0 * x);
    let (y, z) = (z, y);
    let (y, w) = (y * z, z);
    let y_2 = w * x;
    y + y_2 * y
}

#[test]
fn two_bindings_whose_adjoints_would_share_a_name_get_their_own() {
    assert_eq!(adjoint_names_apart_grad_path(), GradientPath::Compiled);
    for x in [0.7, -1.3] {
        // y = 2x², y_2 = x², f = 2x² + 2x⁴.
        let got = adjoint_names_apart_grad(x).expect("compiled");
        assert_agree(
            "names apart",
            &[got.value],
            &[2.0 * x * x + 2.0 * x.powi(4)],
        );
        assert_agree("names apart", &[got.gradient], &[4.0 * x + 8.0 * x.powi(3)]);
        let tape = adjoint_names_apart_grad_tape(x).expect("tape");
        assert_agree("names apart", &[tape.gradient], &[got.gradient]);
    }
}

/// A format string names the variable bound again: not renamed (a
/// mention in a string is not seen as one), so the body is read as
/// written; the numbers are the same either way.
#[differentiable]
fn named_in_a_format(x: &[f64]) -> f64 {
    let h = x.to_vec();
    let h: Vec<f64> = h.iter().map(|v| v * v).collect();
    assert!(h.len() == x.len(), "{h:?}");
    h[0] + h[1]
}

#[test]
fn a_name_in_a_format_string_is_not_renamed_and_the_numbers_hold() {
    let x = [0.5, -1.5];
    let g = named_in_a_format_grad(&x).expect("gradient");
    assert_eq!(g.value, 0.25 + 2.25);
    assert_eq!(g.gradient, vec![1.0, -3.0]);
    let tape = named_in_a_format_grad_tape(&x).expect("tape");
    assert_eq!(tape.gradient, g.gradient);
}

/// A block inside an operand whose `let` hides the loop's item and reads
/// it (`t += { let v = v.sin(); v * v };`, and the same as an assignment's
/// value, of a number and of a pair): the reverse of `v.sin()` read the
/// hiding `v` (the sine) where it meant the item, and `f_grad` returned a
/// wrong gradient with no error (on main before: 1.117 against −0.757 for
/// the last component of the first). The block's `let` is now renamed as
/// a statement's is.
#[differentiable]
fn hidden_in_an_operand(x: &[f64]) -> f64 {
    let mut t = 0.0;
    for &v in x.iter() {
        t += {
            let v = v.sin();
            v * v
        };
    }
    let mut u = 0.0;
    for v in x.iter() {
        u = {
            let v = v.sin() * 0.5;
            u + v * v
        };
    }
    let mut acc = (0.0, 1.0);
    for v in x.iter() {
        acc = {
            let v = v.cos();
            (acc.0 + v, acc.1 * (1.0 + v * v))
        };
    }
    t + u * 3.0 + acc.0 + acc.1.ln()
}

fn hidden_in_an_operand_dual(x: &[Dual]) -> Dual {
    let mut t = Dual::constant(0.0);
    let mut u = Dual::constant(0.0);
    let (mut a, mut b) = (Dual::constant(0.0), Dual::constant(1.0));
    for &v in x {
        let s = v.sin();
        t = t + s * s;
        let h = v.sin() * 0.5;
        u = u + h * h;
        let c = v.cos();
        a = a + c;
        b = b * (c * c + 1.0);
    }
    t + u * 3.0 + a + b.ln()
}

#[test]
fn a_let_inside_an_operand_that_hides_the_loops_item_is_renamed() {
    assert_eq!(hidden_in_an_operand_grad_path(), GradientPath::Compiled);
    for x in [vec![0.3, -1.2, 0.8, 2.0], vec![0.5, 0.25, -0.5]] {
        compiled_agrees(
            "hidden_in_an_operand",
            &x,
            |stack| hidden_in_an_operand_adjoint(stack, &x),
            || hidden_in_an_operand_grad(&x),
            || hidden_in_an_operand_grad_tape(&x),
            hidden_in_an_operand_dual,
        );
    }
}

/// Closures of chains whose bodies bind their own item again (`map(|v| {
/// let v = v.sin(); v * v })`, the same in a `fold`): read into the
/// chain's loop after the renaming, they hid the item from the reverse of
/// `v.sin()` and `f_grad` returned a wrong gradient with no error (on main
/// before). The lowered body is renamed again.
#[differentiable]
fn closures_hiding_their_item(x: &[f64]) -> f64 {
    let a = x
        .iter()
        .map(|v| {
            let v = v.sin();
            v * v
        })
        .sum::<f64>();
    let b = x.iter().fold(0.0, |acc, v| {
        let v = v.cos() * 0.5;
        acc + v * v
    });
    a + 3.0 * b
}

fn closures_hiding_their_item_dual(x: &[Dual]) -> Dual {
    let mut a = Dual::constant(0.0);
    let mut b = Dual::constant(0.0);
    for &v in x {
        let s = v.sin();
        a = a + s * s;
        let c = v.cos() * 0.5;
        b = b + c * c;
    }
    a + b * 3.0
}

/// The same where a format string names the hiding binding, so that it
/// cannot be renamed: the body keeps the tape (same numbers), with its
/// reason, rather than compile a wrong reverse.
#[differentiable]
fn closure_hiding_its_item_named_in_a_string(x: &[f64]) -> f64 {
    x.iter()
        .map(|v| {
            let v = v.sin();
            if v > 2.0 {
                println!("{v}");
            }
            v * v
        })
        .sum::<f64>()
}

#[test]
fn a_chains_closure_that_binds_its_item_again_is_renamed_or_keeps_the_tape() {
    assert_eq!(
        closures_hiding_their_item_grad_path(),
        GradientPath::Compiled
    );
    assert!(matches!(
        closure_hiding_its_item_named_in_a_string_grad_path(),
        GradientPath::Tape { .. }
    ));
    for x in [vec![0.3, -1.2, 0.8, 2.0], vec![0.5, 0.25, -0.5]] {
        compiled_agrees(
            "closures_hiding_their_item",
            &x,
            |stack| closures_hiding_their_item_adjoint(stack, &x),
            || closures_hiding_their_item_grad(&x),
            || closures_hiding_their_item_grad_tape(&x),
            closures_hiding_their_item_dual,
        );
        let (_, want) = dual_value_and_gradient(&x, |p| {
            p.iter().fold(Dual::constant(0.0), |t, &v| {
                let s = v.sin();
                t + s * s
            })
        });
        let got = closure_hiding_its_item_named_in_a_string_grad(&x).expect("finite");
        assert_agree(
            "closure_hiding_its_item_named_in_a_string",
            &got.gradient,
            &want,
        );
    }
}

/// A closure's parameter named as another binding of the function: `t`
/// of `sq`, which carries a derivative, and `t` of a `fold` over
/// constants, whose value is pushed; `v` of a `map` and the `let v` it
/// makes. Each parameter is renamed in its closure, so what carries a
/// derivative is each binding's own (the fold's `t` carrying one kept
/// the tape: seed 20313's f9_9).
#[differentiable]
fn closure_parameters_named_alike(x: &[f64]) -> f64 {
    let sq = |t: f64| t * t;
    let a = sq(x[0]);
    let w = [0.5, 0.7];
    let mut pushed = vec![];
    for _ in 0..3 {
        pushed.push(
            -w.iter()
                .fold((0.0, -0.3), |(p, q), t| (p + t * q, q * 0.5))
                .0,
        );
    }
    let v = x.iter().map(|v| v * v).collect::<Vec<f64>>();
    pushed[0] * a + v[1] * x[1]
}

fn closure_parameters_named_alike_dual(x: &[Dual]) -> Dual {
    let a = x[0] * x[0];
    let (mut p, mut q) = (0.0, -0.3);
    for t in [0.5, 0.7] {
        (p, q) = (p + t * q, q * 0.5);
    }
    let pushed = -p;
    a * pushed + x[1] * x[1] * x[1]
}

#[test]
fn closure_parameters_named_as_other_bindings_are_renamed_in_their_closures() {
    assert_eq!(
        closure_parameters_named_alike_grad_path(),
        GradientPath::Compiled
    );
    for x in [vec![0.3, -1.2], vec![1.5, 0.25, -0.5]] {
        compiled_agrees(
            "closure_parameters_named_alike",
            &x,
            |stack| closure_parameters_named_alike_adjoint(stack, &x),
            || closure_parameters_named_alike_grad(&x),
            || closure_parameters_named_alike_grad_tape(&x),
            closure_parameters_named_alike_dual,
        );
    }
}

/// k-means' nearest centre as a newcomer writes it: the loop's pattern
/// binds `c` for each centre, and the `let` after it binds `c` again for
/// the one chosen. Out of the loop's scope, but facts are kept by name:
/// before, the `let`'s `c` was read as the pattern's, which changes trip
/// by trip, and the body kept the tape.
#[differentiable]
fn nearest_centre(centres: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut best = 0;
    let mut best_distance = f64::INFINITY;
    for (i, c) in centres.iter().enumerate() {
        let d: f64 = c.iter().zip(x).map(|(a, b)| (a - b) * (a - b)).sum();
        if d < best_distance {
            best_distance = d;
            best = i;
        }
    }
    let c = &centres[best];
    c.iter().zip(x).map(|(a, b)| (a - b).powi(2)).sum::<f64>() + best_distance.sqrt()
}

fn nearest_centre_dual(p: &[Dual]) -> Dual {
    let (flat, x) = p.split_at(6);
    let centres: Vec<&[Dual]> = flat.chunks(2).collect();
    let distance = |c: &[Dual]| (c[0] - x[0]) * (c[0] - x[0]) + (c[1] - x[1]) * (c[1] - x[1]);
    let mut best = 0;
    for i in 1..3 {
        if distance(centres[i]).value < distance(centres[best]).value {
            best = i;
        }
    }
    let d = distance(centres[best]);
    d + d.sqrt()
}

#[test]
fn a_let_naming_a_loop_patterns_binding_again_stays_compiled() {
    assert_eq!(nearest_centre_grad_path(), GradientPath::Compiled);
    for x in [vec![0.4, -0.3], vec![2.0, 1.5], vec![-1.0, 0.9]] {
        let centres = vec![vec![0.0, 0.0], vec![1.5, 1.0], vec![-1.2, 0.7]];
        let point = [centres.concat(), x.clone()].concat();
        compiled_agrees(
            "nearest_centre",
            &point,
            |stack| nearest_centre_adjoint(stack, &centres, &x),
            || nearest_centre_grad(&centres, &x),
            || nearest_centre_grad_tape(&centres, &x),
            nearest_centre_dual,
        );
    }
}

/// A `let` in one loop's body naming a binding of an earlier loop's body
/// (`let qdiag = &icf[c][..d];` in GMM's data term and again in its
/// prior, as ADBench's GMM is written from its definition): facts kept by
/// name read the first binding, which changes trip by trip, so the second
/// loop's `qdiag.iter()` was "a `for` over values that change" and the
/// gradient kept the tape.
#[differentiable]
fn two_loops_one_name(icf: &[Vec<f64>], x: &[f64]) -> f64 {
    let d = x.len();
    let mut data = 0.0;
    for c in 0..icf.len() {
        let qdiag = &icf[c][..d];
        let scaled: Vec<f64> = qdiag.iter().zip(x).map(|(q, v)| q.exp() * v).collect();
        data += scaled.iter().map(|s| s * s).sum::<f64>();
    }
    let mut prior = 0.0;
    for c in 0..icf.len() {
        let qdiag = &icf[c][..d];
        prior += qdiag.iter().map(|q| (2.0 * q).exp()).sum::<f64>() + icf[c][d] * icf[c][d];
    }
    0.5 * data + prior
}

fn two_loops_one_name_dual(p: &[Dual]) -> Dual {
    let (flat, x) = p.split_at(6);
    let mut total = Dual::constant(0.0);
    for row in flat.chunks(3) {
        for (q, v) in row[..2].iter().zip(x) {
            let s = q.exp() * *v;
            total = total + s * s * 0.5 + (*q * 2.0).exp();
        }
        total = total + row[2] * row[2];
    }
    total
}

#[test]
fn a_let_naming_an_earlier_loops_binding_again_stays_compiled() {
    assert_eq!(two_loops_one_name_grad_path(), GradientPath::Compiled);
    for x in [vec![0.4, -0.3], vec![2.0, 1.5]] {
        let icf = vec![vec![0.1, -0.2, 0.3], vec![-0.4, 0.25, 0.5]];
        let point = [icf.concat(), x.clone()].concat();
        compiled_agrees(
            "two_loops_one_name",
            &point,
            |stack| two_loops_one_name_adjoint(stack, &icf, &x),
            || two_loops_one_name_grad(&icf, &x),
            || two_loops_one_name_grad_tape(&icf, &x),
            two_loops_one_name_dual,
        );
    }
}
