//! Code written as a newcomer writes it (ADBench's GMM, bundle adjustment
//! and k-means from their definitions) keeps the compiled adjoint: a
//! counted index (`l[idx]; idx += 1`), an annotated call on a local the
//! loop around it rewrites (`total += logsumexp(&v)`), an array literal of
//! tracked values (`let p = [x[0] - c[3], ...]`), a binding given its
//! value by the branches (`let y; if c { y = .. } else { y = .. }`, and
//! `let (a, b) = if c { let s = ..; (..) } else { (..) };`), a running
//! minimum from `f64::INFINITY` (the start is no reason to rerun the
//! tape, which takes it too), a closure over a local a loop rewrites
//! (`s += v.iter().map(|a| a * a).sum::<f64>()`) and a `map` then a `fold`
//! by `f64::min`, `filter` and `for_each`, and an `if` value inside an
//! expression (`relu(-(if c { a } else { b }))`, a `break`'s value, the
//! item of `[e; n]`). Each function here has an
//! `f_adjoint` that returns `Some` on a fresh stack and leaves it empty
//! (compiled, not the tape), and `f_grad` is checked against an
//! independent oracle (a closed form, or forward mode on dual numbers
//! written out by hand), against central differences (`f_check`) and
//! against the tape (`f_grad_tape`).
//!
//! Agreement with the tape and the oracle: components within 1e-12 of the
//! largest. All are exact derivatives of the same operations, summed in
//! other orders, so they differ by a few ulps times the condition of those
//! sums.

// Written as a newcomer writes it: loops by index, `let y;` given its
// value by the branches, `map(|t| *t)`, `let v = ..; v` as an arm's value,
// `iter().cloned().collect()` for a copy.
#![allow(
    clippy::needless_range_loop,
    clippy::needless_late_init,
    clippy::map_clone,
    clippy::let_and_return,
    clippy::useless_vec,
    clippy::iter_cloned_collect
)]

use autodiff::__adjoint::with_stack;
use autodiff::prelude::*;
use autodiff::GradientPath;

use super::support::{agree, assert_agree, compiled, compiled_agrees, AGREE};
use crate::oracle::{dual_value_and_gradient, Dual};

/// The compiled gradient (`f_adjoint`'s, and `f_grad`'s, which must be the
/// same), the tape's and the oracle's, as flat components, with the values.
fn check(
    name: &str,
    adjoint: (f64, Vec<f64>),
    grad: (f64, Vec<f64>),
    tape: (f64, Vec<f64>),
    oracle: (f64, Vec<f64>),
) {
    assert_eq!(
        adjoint.0.to_bits(),
        grad.0.to_bits(),
        "{name}: f_grad's value"
    );
    assert_eq!(adjoint.1, grad.1, "{name}: f_grad is the compiled adjoint");
    assert_agree(&format!("{name} vs tape"), &adjoint.1, &tape.1);
    assert_agree(&format!("{name} vs oracle"), &adjoint.1, &oracle.1);
    for (what, value) in [("tape", tape.0), ("oracle", oracle.0)] {
        assert!(
            (adjoint.0 - value).abs() <= AGREE * value.abs().max(1e-300),
            "{name}: value {} vs {what}'s {value}",
            adjoint.0
        );
    }
}

fn cat(parts: &[&[f64]]) -> Vec<f64> {
    parts.iter().flat_map(|part| part.iter().copied()).collect()
}

// ---------------------------------------------------------------------
// A counted index: `l[idx]; idx += 1;`. The index the reverse reads is
// pushed before the statement and popped with it.
// ---------------------------------------------------------------------

/// `|L x|²` with `L` lower triangular, packed row by row.
#[differentiable]
fn packed_lower(l: &[f64], x: &[f64]) -> f64 {
    let n = x.len();
    let mut out = vec![0.0; n];
    let mut idx = 0;
    for row in 0..n {
        for col in 0..=row {
            out[row] += l[idx] * x[col];
            idx += 1;
        }
    }
    let mut s = 0.0;
    for v in &out {
        s += v * v;
    }
    s
}

/// ADBench GMM's `|Q (x - mu)|² / 2`: `Q` lower triangular, its diagonal
/// `exp(q)`, below it `l` packed column by column.
#[differentiable]
fn q_norm(x: &[f64], mu: &[f64], q: &[f64], l: &[f64]) -> f64 {
    let d = x.len();
    let mut xc = vec![0.0; d];
    for i in 0..d {
        xc[i] = x[i] - mu[i];
    }
    let mut out = vec![0.0; d];
    for i in 0..d {
        out[i] = q[i].exp() * xc[i];
    }
    let mut idx = 0;
    for i in 0..d {
        for j in (i + 1)..d {
            out[j] += l[idx] * xc[i];
            idx += 1;
        }
    }
    let mut s = 0.0;
    for i in 0..d {
        s += out[i] * out[i];
    }
    0.5 * s
}

fn q_norm_dual(v: &[Dual], d: usize) -> Dual {
    let (x, rest) = v.split_at(d);
    let (mu, rest) = rest.split_at(d);
    let (q, l) = rest.split_at(d);
    let xc: Vec<Dual> = (0..d).map(|i| x[i] - mu[i]).collect();
    let mut s = Dual::constant(0.0);
    let mut idx_of = vec![vec![0; d]; d];
    let mut idx = 0;
    for (i, row) in idx_of.iter_mut().enumerate() {
        for slot in row.iter_mut().skip(i + 1) {
            *slot = idx;
            idx += 1;
        }
    }
    for j in 0..d {
        let mut out = q[j].exp() * xc[j];
        for i in 0..j {
            out = out + l[idx_of[i][j]] * xc[i];
        }
        s = s + out * out;
    }
    Dual::constant(0.5) * s
}

#[test]
fn a_counted_index_is_saved() -> Result<(), Box<dyn std::error::Error>> {
    let l = [0.5, -1.25, 2.0, 0.75, -0.5, 1.5];
    let x = [1.5, -0.25, 2.0];
    let adjoint = compiled(|stack| packed_lower_adjoint(stack, &l, &x));
    let grad = packed_lower_grad(&l, &x)?;
    let tape = packed_lower_grad_tape(&l, &x)?;
    // Closed form: out = L x, d|out|²/dL[r][c] = 2 out_r x_c,
    // d/dx_c = Σ_r 2 out_r L[r][c].
    let mut out = [0.0; 3];
    let (mut gl, mut gx) = (vec![0.0; 6], vec![0.0; 3]);
    let mut idx = 0;
    for r in 0..3 {
        for c in 0..=r {
            out[r] += l[idx] * x[c];
            idx += 1;
        }
    }
    idx = 0;
    for r in 0..3 {
        for c in 0..=r {
            gl[idx] = 2.0 * out[r] * x[c];
            gx[c] += 2.0 * out[r] * l[idx];
            idx += 1;
        }
    }
    let value = out.iter().map(|o| o * o).sum();
    check(
        "packed_lower",
        (
            adjoint.value,
            cat(&[&adjoint.gradient.0, &adjoint.gradient.1]),
        ),
        (grad.value, cat(&[&grad.gradient.0, &grad.gradient.1])),
        (tape.value, cat(&[&tape.gradient.0, &tape.gradient.1])),
        (value, cat(&[&gl, &gx])),
    );
    assert!(packed_lower_check(&l, &x)?.passed());

    let x = [0.3, -1.1, 0.7, 2.0];
    let mu = [0.1, 0.2, -0.4, 1.0];
    let q = [0.2, -0.3, 0.1, 0.05];
    let l = [0.4, -0.6, 0.9, 1.1, -0.2, 0.35];
    let flat = |g: &(Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>)| cat(&[&g.0, &g.1, &g.2, &g.3]);
    let adjoint = compiled(|stack| q_norm_adjoint(stack, &x, &mu, &q, &l));
    let grad = q_norm_grad(&x, &mu, &q, &l)?;
    let tape = q_norm_grad_tape(&x, &mu, &q, &l)?;
    let oracle = dual_value_and_gradient(&cat(&[&x, &mu, &q, &l]), |v| q_norm_dual(v, 4));
    check(
        "q_norm",
        (adjoint.value, flat(&adjoint.gradient)),
        (grad.value, flat(&grad.gradient)),
        (tape.value, flat(&tape.gradient)),
        oracle,
    );
    assert!(q_norm_check(&x, &mu, &q, &l)?.passed());
    Ok(())
}

// ---------------------------------------------------------------------
// An annotated call on a local that changes later: the reverse reads only
// the adjoints of the arguments (the forward pushed the gradient), so the
// changed values are not needed.
// ---------------------------------------------------------------------

#[differentiable]
fn lse(v: &[f64]) -> f64 {
    let mut s = 0.0;
    for &a in v {
        s += a.exp();
    }
    s.ln()
}

/// `v` is rewritten by each trip, after the call read it.
#[differentiable]
fn calls_on_changing_local(x: &[f64]) -> f64 {
    let mut total = 0.0;
    let mut v = vec![0.0; x.len()];
    for k in 0..3 {
        for i in 0..x.len() {
            v[i] = x[i] * (k as f64 + 1.0);
        }
        total += lse(&v);
    }
    total
}

/// `v` is bound again by each trip.
#[differentiable]
fn calls_on_loop_local(x: &[f64]) -> f64 {
    let mut total = 0.0;
    for k in 0..3 {
        let mut v = vec![0.0; x.len()];
        for i in 0..x.len() {
            v[i] = x[i] * (k as f64 + 1.0);
        }
        total += lse(&v);
    }
    total
}

#[differentiable]
fn logsumexp(v: &[f64]) -> f64 {
    let mut m = v[0];
    for &a in v {
        m = m.max(a);
    }
    let mut s = 0.0;
    for &a in v {
        s += (a - m).exp();
    }
    m + s.ln()
}

/// ADBench's GMM objective without its prior, written from its definition:
/// for each point, each component's `alpha + sum(q) - |Q (x - mu)|² / 2`
/// (`Q` lower triangular, its diagonal `exp(q)`, `icf[k]`'s first `d`
/// entries; below it the rest, packed column by column), then the
/// `logsumexp` over components, less `n logsumexp(alphas)`.
#[differentiable]
fn gmm_objective(
    alphas: &[f64],
    means: &[Vec<f64>],
    icf: &[Vec<f64>],
    #[constant] x: &[Vec<f64>],
) -> f64 {
    let k_count = alphas.len();
    let d = x[0].len();
    let mut slse = 0.0;
    for xi in x {
        let mut main_term = vec![0.0; k_count];
        for k in 0..k_count {
            let mut xc = vec![0.0; d];
            for j in 0..d {
                xc[j] = xi[j] - means[k][j];
            }
            let mut sum_q = 0.0;
            let mut out = vec![0.0; d];
            for j in 0..d {
                sum_q += icf[k][j];
                out[j] = icf[k][j].exp() * xc[j];
            }
            let mut idx = d;
            for col in 0..d {
                for row in (col + 1)..d {
                    out[row] += icf[k][idx] * xc[col];
                    idx += 1;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += out[j] * out[j];
            }
            main_term[k] = alphas[k] + sum_q - 0.5 * sq;
        }
        slse += logsumexp(&main_term);
    }
    slse - x.len() as f64 * logsumexp(alphas)
}

fn lse_dual(v: &[Dual]) -> Dual {
    let m = v.iter().fold(v[0], |m, &a| m.max(a));
    let s = v
        .iter()
        .fold(Dual::constant(0.0), |s, &a| s + (a - m).exp());
    m + s.ln()
}

/// `gmm_objective` on dual numbers, its inputs flat: alphas, then each
/// mean, then each `icf`.
fn gmm_dual(v: &[Dual], k_count: usize, x: &[Vec<f64>]) -> Dual {
    let d = x[0].len();
    let icf_len = d + d * (d - 1) / 2;
    let alphas = &v[..k_count];
    let mean = |k: usize, j: usize| v[k_count + k * d + j];
    let icf = |k: usize, j: usize| v[k_count + k_count * d + k * icf_len + j];
    let mut slse = Dual::constant(0.0);
    for xi in x {
        let mut terms = Vec::new();
        for k in 0..k_count {
            let xc: Vec<Dual> = (0..d).map(|j| Dual::constant(xi[j]) - mean(k, j)).collect();
            let mut sum_q = Dual::constant(0.0);
            let mut out: Vec<Dual> = (0..d)
                .map(|j| {
                    sum_q = sum_q + icf(k, j);
                    icf(k, j).exp() * xc[j]
                })
                .collect();
            let mut idx = d;
            for col in 0..d {
                for row in (col + 1)..d {
                    out[row] = out[row] + icf(k, idx) * xc[col];
                    idx += 1;
                }
            }
            let sq = out.iter().fold(Dual::constant(0.0), |s, &o| s + o * o);
            terms.push(alphas[k] + sum_q - Dual::constant(0.5) * sq);
        }
        slse = slse + lse_dual(&terms);
    }
    slse - Dual::constant(x.len() as f64) * lse_dual(alphas)
}

#[test]
fn a_call_on_a_changing_local_passes_its_adjoint() -> Result<(), Box<dyn std::error::Error>> {
    let x = [0.5, -1.0, 0.25, 2.0];
    // Closed form: d/dx_i Σ_k lse((k+1) x) = Σ_k (k+1) softmax((k+1) x)_i.
    let mut value = 0.0;
    let mut gradient = vec![0.0; 4];
    for k in 1..=3 {
        let c = k as f64;
        let s: f64 = x.iter().map(|v| (c * v).exp()).sum();
        value += s.ln();
        for (g, v) in gradient.iter_mut().zip(&x) {
            *g += c * (c * v).exp() / s;
        }
    }
    for (name, adjoint, grad, tape) in [
        (
            "calls_on_changing_local",
            compiled(|stack| calls_on_changing_local_adjoint(stack, &x)),
            calls_on_changing_local_grad(&x)?,
            calls_on_changing_local_grad_tape(&x)?,
        ),
        (
            "calls_on_loop_local",
            compiled(|stack| calls_on_loop_local_adjoint(stack, &x)),
            calls_on_loop_local_grad(&x)?,
            calls_on_loop_local_grad_tape(&x)?,
        ),
    ] {
        check(
            name,
            (adjoint.value, adjoint.gradient),
            (grad.value, grad.gradient),
            (tape.value, tape.gradient),
            (value, gradient.clone()),
        );
    }
    assert!(calls_on_changing_local_check(&x)?.passed());
    assert!(calls_on_loop_local_check(&x)?.passed());

    let alphas = [0.3, -0.2, 0.5];
    let means = vec![
        vec![0.1, -0.3, 0.8],
        vec![-0.5, 0.4, 0.0],
        vec![0.9, 0.2, -0.7],
    ];
    let icf = vec![
        vec![0.1, -0.2, 0.05, 0.3, -0.4, 0.2],
        vec![-0.1, 0.15, 0.2, -0.3, 0.1, 0.25],
        vec![0.0, 0.1, -0.05, 0.2, 0.3, -0.1],
    ];
    let x = vec![
        vec![0.2, -0.1, 0.5],
        vec![-0.6, 0.3, 0.1],
        vec![1.0, -0.8, 0.4],
        vec![0.0, 0.5, -0.3],
    ];
    type G = (Vec<f64>, Vec<Vec<f64>>, Vec<Vec<f64>>);
    let flat = |g: &G| {
        let mut out = g.0.clone();
        out.extend(g.1.iter().flatten());
        out.extend(g.2.iter().flatten());
        out
    };
    let adjoint = compiled(|stack| gmm_objective_adjoint(stack, &alphas, &means, &icf, &x));
    let grad = gmm_objective_grad(&alphas, &means, &icf, &x)?;
    let tape = gmm_objective_grad_tape(&alphas, &means, &icf, &x)?;
    let mut inputs = alphas.to_vec();
    inputs.extend(means.iter().flatten());
    inputs.extend(icf.iter().flatten());
    let oracle = dual_value_and_gradient(&inputs, |v| gmm_dual(v, 3, &x));
    check(
        "gmm_objective",
        (adjoint.value, flat(&adjoint.gradient)),
        (grad.value, flat(&grad.gradient)),
        (tape.value, flat(&tape.gradient)),
        oracle,
    );
    assert!(gmm_objective_check(&alphas, &means, &icf, &x)?.passed());
    Ok(())
}

// ---------------------------------------------------------------------
// An array literal (or `vec![..]`) of tracked values: each item's adjoint
// is the array adjoint's at its position.
// ---------------------------------------------------------------------

#[differentiable]
fn array_literal(x: &[f64], c: &[f64]) -> f64 {
    let y = [x[0] - c[3], x[1] - c[4], x[2] - c[5]];
    y[0] * y[0] + y[1] * y[1] + y[2] * y[2]
}

/// Items whose forward is rebuilt (the reverse reads `exp`'s value), and a
/// `vec!` written again by an assignment.
#[differentiable]
fn vec_literal(x: &[f64]) -> f64 {
    let mut v = vec![x[0].exp(), x[1] * x[2], 2.0];
    v = vec![v[1], v[0].sin() * v[2], x[0]];
    v[0] * v[1] + v[2]
}

/// ADBench bundle adjustment's squared reprojection error of one point
/// seen by one camera, written from its definition: `cam` is a Rodrigues
/// rotation (3), the centre (3), the focal length, the principal point
/// (2) and two radial distortion coefficients.
#[differentiable]
fn reprojection(cam: &[f64], point: &[f64], #[constant] feat: &[f64]) -> f64 {
    let xcam = [point[0] - cam[3], point[1] - cam[4], point[2] - cam[5]];
    let theta = (cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2]).sqrt();
    let w = [cam[0] / theta, cam[1] / theta, cam[2] / theta];
    let (ct, st) = (theta.cos(), theta.sin());
    let cross = [
        w[1] * xcam[2] - w[2] * xcam[1],
        w[2] * xcam[0] - w[0] * xcam[2],
        w[0] * xcam[1] - w[1] * xcam[0],
    ];
    let tmp = (w[0] * xcam[0] + w[1] * xcam[1] + w[2] * xcam[2]) * (1.0 - ct);
    let xr = [
        xcam[0] * ct + cross[0] * st + w[0] * tmp,
        xcam[1] * ct + cross[1] * st + w[1] * tmp,
        xcam[2] * ct + cross[2] * st + w[2] * tmp,
    ];
    let p = [xr[0] / xr[2], xr[1] / xr[2]];
    let rsq = p[0] * p[0] + p[1] * p[1];
    let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let ex = p[0] * l * cam[6] + cam[7] - feat[0];
    let ey = p[1] * l * cam[6] + cam[8] - feat[1];
    ex * ex + ey * ey
}

fn reprojection_dual(v: &[Dual], feat: &[f64]) -> Dual {
    let (cam, point) = v.split_at(11);
    let xcam: Vec<Dual> = (0..3).map(|i| point[i] - cam[3 + i]).collect();
    let theta = (cam[0] * cam[0] + cam[1] * cam[1] + cam[2] * cam[2]).sqrt();
    let w: Vec<Dual> = (0..3).map(|i| cam[i] / theta).collect();
    let (ct, st) = (theta.cos(), theta.sin());
    let cross = [
        w[1] * xcam[2] - w[2] * xcam[1],
        w[2] * xcam[0] - w[0] * xcam[2],
        w[0] * xcam[1] - w[1] * xcam[0],
    ];
    let tmp = (w[0] * xcam[0] + w[1] * xcam[1] + w[2] * xcam[2]) * (Dual::constant(1.0) - ct);
    let xr: Vec<Dual> = (0..3)
        .map(|i| xcam[i] * ct + cross[i] * st + w[i] * tmp)
        .collect();
    let p = [xr[0] / xr[2], xr[1] / xr[2]];
    let rsq = p[0] * p[0] + p[1] * p[1];
    let l = Dual::constant(1.0) + cam[9] * rsq + cam[10] * rsq * rsq;
    let ex = p[0] * l * cam[6] + cam[7] - Dual::constant(feat[0]);
    let ey = p[1] * l * cam[6] + cam[8] - Dual::constant(feat[1]);
    ex * ex + ey * ey
}

#[test]
fn an_array_literal_of_tracked_values_is_compiled() -> Result<(), Box<dyn std::error::Error>> {
    let x = [0.5, -1.5, 2.25];
    let c = [9.0, 9.0, 9.0, 0.25, 0.5, -1.0];
    let adjoint = compiled(|stack| array_literal_adjoint(stack, &x, &c));
    let grad = array_literal_grad(&x, &c)?;
    let tape = array_literal_grad_tape(&x, &c)?;
    // Closed form: Σ (x_i - c_{i+3})².
    let mut value = 0.0;
    let (mut gx, mut gc) = (vec![0.0; 3], vec![0.0; 6]);
    for i in 0..3 {
        let y = x[i] - c[i + 3];
        value += y * y;
        gx[i] = 2.0 * y;
        gc[i + 3] = -2.0 * y;
    }
    let flat = |g: &(Vec<f64>, Vec<f64>)| cat(&[&g.0, &g.1]);
    check(
        "array_literal",
        (adjoint.value, flat(&adjoint.gradient)),
        (grad.value, flat(&grad.gradient)),
        (tape.value, flat(&tape.gradient)),
        (value, cat(&[&gx, &gc])),
    );
    assert!(array_literal_check(&x, &c)?.passed());

    let x = [0.3, -0.7, 1.2];
    let adjoint = compiled(|stack| vec_literal_adjoint(stack, &x));
    let grad = vec_literal_grad(&x)?;
    let tape = vec_literal_grad_tape(&x)?;
    let oracle = dual_value_and_gradient(&x, |v| {
        let (a, b) = (v[1] * v[2], v[0].exp().sin() * Dual::constant(2.0));
        a * b + v[0]
    });
    check(
        "vec_literal",
        (adjoint.value, adjoint.gradient),
        (grad.value, grad.gradient),
        (tape.value, tape.gradient),
        oracle,
    );
    assert!(vec_literal_check(&x)?.passed());

    let cam = [
        0.1, -0.2, 0.15, 0.3, -0.1, -4.0, 500.0, 1.5, -2.0, 1e-3, -2e-4,
    ];
    let point = [0.5, 0.25, 3.0];
    let feat = [40.0, -25.0];
    let adjoint = compiled(|stack| reprojection_adjoint(stack, &cam, &point, &feat));
    let grad = reprojection_grad(&cam, &point, &feat)?;
    let tape = reprojection_grad_tape(&cam, &point, &feat)?;
    let oracle = dual_value_and_gradient(&cat(&[&cam, &point]), |v| reprojection_dual(v, &feat));
    check(
        "reprojection",
        (adjoint.value, flat(&adjoint.gradient)),
        (grad.value, flat(&grad.gradient)),
        (tape.value, flat(&tape.gradient)),
        oracle,
    );
    assert!(reprojection_check(&cam, &point, &feat)?.passed());
    Ok(())
}

// ---------------------------------------------------------------------
// A binding given its value by the branches: `let y;` then `y = ..` in
// each; a tuple `let` whose branches compute first is read as that.
// ---------------------------------------------------------------------

#[differentiable]
fn deferred_let(x: f64, y: f64) -> f64 {
    let z;
    if x > y {
        z = x * y;
    } else {
        z = x - y;
    }
    z * z
}

#[differentiable]
fn tuple_if(x: f64, y: f64) -> f64 {
    let (a, b) = if x > y {
        let s = x * y;
        (s, s + x)
    } else {
        (x, y)
    };
    a * b
}

/// The components read the names the pattern binds: bound after the `if`.
#[differentiable]
fn tuple_if_rebinding(x: f64, y: f64) -> f64 {
    let (a, b) = (x, y);
    let (a, b) = if a > b {
        let s = a * b;
        (b, s)
    } else {
        (a + 1.0, b)
    };
    a * b
}

/// A robust fit of a line: each residual's Huber loss and an asymmetric
/// weight, chosen by its size and sign.
#[differentiable]
fn robust_fit(
    a: f64,
    b: f64,
    #[constant] xs: &[f64],
    #[constant] ys: &[f64],
    #[constant] delta: f64,
) -> f64 {
    let mut total = 0.0;
    for i in 0..xs.len() {
        let r = ys[i] - (a * xs[i] + b);
        let loss;
        if r.abs() <= delta {
            loss = 0.5 * r * r;
        } else {
            loss = delta * (r.abs() - 0.5 * delta);
        }
        let (scaled, w) = if r >= 0.0 {
            let s = loss * 0.75;
            (s, 1.5)
        } else {
            let s = loss * 0.25;
            (s, 0.5 + a * a)
        };
        total += scaled * w;
    }
    total
}

fn robust_fit_dual(v: &[Dual], xs: &[f64], ys: &[f64], delta: f64) -> Dual {
    let (a, b) = (v[0], v[1]);
    let mut total = Dual::constant(0.0);
    for (&x, &y) in xs.iter().zip(ys) {
        let r = Dual::constant(y) - (a * Dual::constant(x) + b);
        let loss = if r.abs().value <= delta {
            Dual::constant(0.5) * r * r
        } else {
            Dual::constant(delta) * (r.abs() - Dual::constant(0.5 * delta))
        };
        total = total
            + if r.value >= 0.0 {
                loss * Dual::constant(0.75) * Dual::constant(1.5)
            } else {
                loss * Dual::constant(0.25) * (Dual::constant(0.5) + a * a)
            };
    }
    total
}

#[test]
fn a_binding_given_its_value_by_the_branches() -> Result<(), Box<dyn std::error::Error>> {
    for (x, y) in [(2.0, 0.5), (0.5, 2.0)] {
        let pair = |g: (f64, f64)| vec![g.0, g.1];
        // Closed forms, by branch.
        let (z, dz) = if x > y {
            (x * y, [y, x])
        } else {
            (x - y, [1.0, -1.0])
        };
        let adjoint = compiled(|stack| deferred_let_adjoint(stack, x, y));
        let grad = deferred_let_grad(x, y)?;
        let tape = deferred_let_grad_tape(x, y)?;
        check(
            "deferred_let",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            (z * z, vec![2.0 * z * dz[0], 2.0 * z * dz[1]]),
        );
        assert!(deferred_let_check(x, y)?.passed());

        // x > y: (xy)(xy + x); else x y.
        let (value, gradient) = if x > y {
            let s = x * y;
            (
                s * (s + x),
                vec![y * (s + x) + s * (y + 1.0), x * (s + x) + s * x],
            )
        } else {
            (x * y, vec![y, x])
        };
        let adjoint = compiled(|stack| tuple_if_adjoint(stack, x, y));
        let grad = tuple_if_grad(x, y)?;
        let tape = tuple_if_grad_tape(x, y)?;
        check(
            "tuple_if",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            (value, gradient),
        );
        assert!(tuple_if_check(x, y)?.passed());

        // x > y: y · xy; else (x + 1) y.
        let (value, gradient) = if x > y {
            (x * y * y, vec![y * y, 2.0 * x * y])
        } else {
            ((x + 1.0) * y, vec![y, x + 1.0])
        };
        let adjoint = compiled(|stack| tuple_if_rebinding_adjoint(stack, x, y));
        let grad = tuple_if_rebinding_grad(x, y)?;
        let tape = tuple_if_rebinding_grad_tape(x, y)?;
        check(
            "tuple_if_rebinding",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            (value, gradient),
        );
        assert!(tuple_if_rebinding_check(x, y)?.passed());
    }

    let xs = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0];
    let ys = [0.3, 1.4, 5.0, 2.5, -1.0, 5.2];
    let (a, b) = (0.9, 0.2);
    let adjoint = compiled(|stack| robust_fit_adjoint(stack, a, b, &xs, &ys, 1.0));
    let grad = robust_fit_grad(a, b, &xs, &ys, 1.0)?;
    let tape = robust_fit_grad_tape(a, b, &xs, &ys, 1.0)?;
    let oracle = dual_value_and_gradient(&[a, b], |v| robust_fit_dual(v, &xs, &ys, 1.0));
    let pair = |g: (f64, f64)| vec![g.0, g.1];
    check(
        "robust_fit",
        (adjoint.value, pair(adjoint.gradient)),
        (grad.value, pair(grad.gradient)),
        (tape.value, pair(tape.gradient)),
        oracle,
    );
    assert!(robust_fit_check(a, b, &xs, &ys, 1.0)?.passed());
    Ok(())
}

// ---------------------------------------------------------------------
// A running extreme from a non-finite start: `best = best.min(d)` or
// `if d < best { best = d; }` from `f64::INFINITY`, `max` from
// `f64::NEG_INFINITY`. The tape takes the start; where it reaches the
// value (no trip), the tape's error is the compiled gradient's too.
// ---------------------------------------------------------------------

#[differentiable]
fn running_min(x: &[f64], c: f64) -> f64 {
    let mut best = f64::INFINITY;
    for &v in x {
        best = best.min((v - c) * (v - c));
    }
    best
}

#[differentiable]
fn running_min_if(x: &[f64], c: f64) -> f64 {
    let mut best = f64::INFINITY;
    for &v in x {
        let d = (v - c) * (v - c);
        if d < best {
            best = d;
        }
    }
    best
}

#[differentiable]
fn running_max(x: &[f64]) -> f64 {
    let mut best = f64::NEG_INFINITY;
    for i in 0..x.len() {
        best = f64::max(best, x[i].sin());
    }
    best
}

/// k-means' objective: each point's squared distance to its nearest
/// centre.
#[differentiable]
fn kmeans(centres: &[Vec<f64>], #[constant] points: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let mut closest = f64::INFINITY;
        for c in centres {
            let mut d = 0.0;
            for j in 0..p.len() {
                let diff = p[j] - c[j];
                d += diff * diff;
            }
            closest = closest.min(d);
        }
        total += closest;
    }
    total
}

/// The same, the nearest found by comparison, with its index: each point
/// then pulls its centre by a weight.
#[differentiable]
fn kmeans_assigned(centres: &[Vec<f64>], #[constant] points: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let mut best = f64::INFINITY;
        let mut best_k = 0;
        for k in 0..centres.len() {
            let mut d = 0.0;
            for j in 0..p.len() {
                d += (p[j] - centres[k][j]) * (p[j] - centres[k][j]);
            }
            if d < best {
                best = d;
                best_k = k;
            }
        }
        total += best * (1.0 + 0.1 * centres[best_k][0]);
    }
    total
}

/// The nearest centre's index found first, then its row borrowed by that
/// index (`let c = &centres[bi];`), whose index the next point changes
/// before the reverse sweep: the reverse reads the row by the index the
/// forward saved.
#[differentiable]
fn kmeans_nearest_borrowed(centres: &[Vec<f64>], #[constant] points: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let mut bi = 0;
        let mut bd = f64::INFINITY;
        for (i, c) in centres.iter().enumerate() {
            let mut d = 0.0;
            for j in 0..p.len() {
                d += (p[j] - c[j]).powi(2);
            }
            if d < bd {
                bd = d;
                bi = i;
            }
        }
        let centre = &centres[bi];
        let mut d = 0.0;
        for j in 0..p.len() {
            d += (p[j] - centre[j]) * (p[j] - centre[j]);
        }
        total += d * (1.0 + 0.1 * centre[0]);
    }
    total / points.len() as f64
}

/// The same on arrays, the row copied (`let c = cs[bi];`), and with a
/// `continue` for a point marked skipped.
#[differentiable]
fn kmeans_nearest_copied(cs: [[f64; 2]; 3], #[constant] points: &[[f64; 2]]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let mut bi = 0;
        for k in 1..3 {
            let dk = (p[0] - cs[k][0]).powi(2) + (p[1] - cs[k][1]).powi(2);
            let db = (p[0] - cs[bi][0]).powi(2) + (p[1] - cs[bi][1]).powi(2);
            if dk < db {
                bi = k;
            }
        }
        let c = cs[bi];
        total += (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]).abs() * c[1];
    }
    total
}

#[differentiable]
fn kmeans_nearest_skipping(cs: [[f64; 2]; 3], #[constant] points: &[[f64; 2]]) -> f64 {
    let mut total = 0.0;
    for p in points {
        if p[0] > 10.0 {
            continue;
        }
        let mut bi = 0;
        for k in 1..3 {
            let dk = (p[0] - cs[k][0]).powi(2) + (p[1] - cs[k][1]).powi(2);
            let db = (p[0] - cs[bi][0]).powi(2) + (p[1] - cs[bi][1]).powi(2);
            if dk < db {
                bi = k;
            }
        }
        let c = cs[bi];
        total += (p[0] - c[0]) * (p[0] - c[0]) + (p[1] - c[1]).abs() * c[1];
    }
    total
}

/// The borrowed row of `kmeans_nearest_borrowed` in a loop that can
/// `break` after it: the reverse of an iteration cut short would pop an
/// index its forward never saved, so the tape runs it (right numbers).
#[differentiable]
fn kmeans_nearest_stopping(centres: &[Vec<f64>], #[constant] points: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let mut bi = 0;
        let mut bd = f64::INFINITY;
        for (i, c) in centres.iter().enumerate() {
            let mut d = 0.0;
            for j in 0..p.len() {
                d += (p[j] - c[j]).powi(2);
            }
            if d < bd {
                bd = d;
                bi = i;
            }
        }
        let centre = &centres[bi];
        let mut d = 0.0;
        for j in 0..p.len() {
            d += (p[j] - centre[j]) * (p[j] - centre[j]);
        }
        total += d * (1.0 + 0.1 * centre[0]);
        if total > 1e9 {
            break;
        }
    }
    total / points.len() as f64
}

fn kmeans_nearest_copied_dual(v: &[Dual], points: &[[f64; 2]], skipping: bool) -> Dual {
    let mut total = Dual::constant(0.0);
    for p in points {
        if skipping && p[0] > 10.0 {
            continue;
        }
        let d = |k: usize| (p[0] - v[2 * k].value).powi(2) + (p[1] - v[2 * k + 1].value).powi(2);
        let bi = (0..3).fold(0, |bi, k| if d(k) < d(bi) { k } else { bi });
        let (c0, c1) = (v[2 * bi], v[2 * bi + 1]);
        let dx = Dual::constant(p[0]) - c0;
        let dy = Dual::constant(p[1]) - c1;
        total = total + dx * dx + dy.abs() * c1;
    }
    total
}

fn kmeans_dual(v: &[Dual], dim: usize, points: &[Vec<f64>], weighted: bool) -> Dual {
    let centres: Vec<&[Dual]> = v.chunks(dim).collect();
    let mut total = Dual::constant(0.0);
    for p in points {
        let mut best = Dual::constant(f64::INFINITY);
        let mut best_k = 0;
        for (k, c) in centres.iter().enumerate() {
            let d = (0..dim).fold(Dual::constant(0.0), |d, j| {
                d + (Dual::constant(p[j]) - c[j]) * (Dual::constant(p[j]) - c[j])
            });
            if d.value < best.value {
                best_k = k;
            }
            best = best.min(d);
        }
        total = total
            + if weighted {
                best * (Dual::constant(1.0) + Dual::constant(0.1) * centres[best_k][0])
            } else {
                best
            };
    }
    total
}

#[test]
fn a_running_extreme_from_infinity_stays_compiled() -> Result<(), Box<dyn std::error::Error>> {
    let x = [1.0, 2.0, 0.5, -0.25];
    let c = 0.7;
    // Closed form: the nearest item, 0.5; d/dx_2 = 2(x_2 - c), d/dc the
    // opposite.
    let value = (0.5 - c) * (0.5 - c);
    let gradient = vec![0.0, 0.0, 2.0 * (0.5 - c), 0.0, -2.0 * (0.5 - c)];
    let flat = |g: (Vec<f64>, f64)| {
        let mut out = g.0;
        out.push(g.1);
        out
    };
    for (name, adjoint, grad, tape) in [
        (
            "running_min",
            compiled(|stack| running_min_adjoint(stack, &x, c)),
            running_min_grad(&x, c)?,
            running_min_grad_tape(&x, c)?,
        ),
        (
            "running_min_if",
            compiled(|stack| running_min_if_adjoint(stack, &x, c)),
            running_min_if_grad(&x, c)?,
            running_min_if_grad_tape(&x, c)?,
        ),
    ] {
        check(
            name,
            (adjoint.value, flat(adjoint.gradient)),
            (grad.value, flat(grad.gradient)),
            (tape.value, flat(tape.gradient)),
            (value, gradient.clone()),
        );
    }
    assert!(running_min_check(&x, c)?.passed());
    assert!(running_min_if_check(&x, c)?.passed());

    // The largest sine is sin(2); its derivative cos(2).
    let adjoint = compiled(|stack| running_max_adjoint(stack, &x));
    let grad = running_max_grad(&x)?;
    let tape = running_max_grad_tape(&x)?;
    check(
        "running_max",
        (adjoint.value, adjoint.gradient),
        (grad.value, grad.gradient),
        (tape.value, tape.gradient),
        (2.0f64.sin(), vec![0.0, 2.0f64.cos(), 0.0, 0.0]),
    );
    assert!(running_max_check(&x)?.passed());

    // No trip: the start is the value, which the tape rejects; so does
    // `f_grad`, with the tape's own error.
    let empty: [f64; 0] = [];
    assert!(with_stack(|stack| running_min_adjoint(stack, &empty, c)).is_none());
    let same = |compiled: ScalarAutodiffError, tape: ScalarAutodiffError| {
        assert_eq!(format!("{compiled:?}"), format!("{tape:?}"));
    };
    same(
        running_min_grad(&empty, c).unwrap_err(),
        running_min_grad_tape(&empty, c).unwrap_err(),
    );
    same(
        running_min_if_grad(&empty, c).unwrap_err(),
        running_min_if_grad_tape(&empty, c).unwrap_err(),
    );
    same(
        running_max_grad(&empty).unwrap_err(),
        running_max_grad_tape(&empty).unwrap_err(),
    );

    let centres = vec![vec![0.0, 0.0], vec![1.0, 1.5], vec![-1.0, 0.5]];
    let points = vec![
        vec![0.2, -0.1],
        vec![0.9, 1.2],
        vec![-0.8, 0.7],
        vec![1.3, 1.9],
        vec![-0.1, 0.3],
    ];
    let inputs: Vec<f64> = centres.iter().flatten().copied().collect();
    let flat = |g: &Vec<Vec<f64>>| g.iter().flatten().copied().collect::<Vec<f64>>();
    let adjoint = compiled(|stack| kmeans_adjoint(stack, &centres, &points));
    let grad = kmeans_grad(&centres, &points)?;
    let tape = kmeans_grad_tape(&centres, &points)?;
    let oracle = dual_value_and_gradient(&inputs, |v| kmeans_dual(v, 2, &points, false));
    check(
        "kmeans",
        (adjoint.value, flat(&adjoint.gradient)),
        (grad.value, flat(&grad.gradient)),
        (tape.value, flat(&tape.gradient)),
        oracle,
    );
    assert!(kmeans_check(&centres, &points)?.passed());

    let adjoint = compiled(|stack| kmeans_assigned_adjoint(stack, &centres, &points));
    let grad = kmeans_assigned_grad(&centres, &points)?;
    let tape = kmeans_assigned_grad_tape(&centres, &points)?;
    let oracle = dual_value_and_gradient(&inputs, |v| kmeans_dual(v, 2, &points, true));
    check(
        "kmeans_assigned",
        (adjoint.value, flat(&adjoint.gradient)),
        (grad.value, flat(&grad.gradient)),
        (tape.value, flat(&tape.gradient)),
        oracle,
    );
    assert!(kmeans_assigned_check(&centres, &points)?.passed());

    // The nearest centre's row borrowed by its index after the search.
    assert_eq!(kmeans_nearest_borrowed_grad_path(), GradientPath::Compiled);
    let n = points.len() as f64;
    let oracle = dual_value_and_gradient(&inputs, |v| {
        kmeans_dual(v, 2, &points, true) / Dual::constant(n)
    });
    let adjoint = compiled(|stack| kmeans_nearest_borrowed_adjoint(stack, &centres, &points));
    let grad = kmeans_nearest_borrowed_grad(&centres, &points)?;
    let tape = kmeans_nearest_borrowed_grad_tape(&centres, &points)?;
    check(
        "kmeans_nearest_borrowed",
        (adjoint.value, flat(&adjoint.gradient)),
        (grad.value, flat(&grad.gradient)),
        (tape.value, flat(&tape.gradient)),
        oracle,
    );
    // Its second order, against central differences of `f_grad` along
    // the direction (the nearest centres stay the same nearby).
    let direction: Vec<Vec<f64>> = vec![vec![0.3, -0.2], vec![0.1, 0.4], vec![-0.5, 0.25]];
    let hvp = kmeans_nearest_borrowed_hvp(&centres, &points, direction.clone())?;
    let h = 1e-5;
    let moved = |sign: f64| -> Vec<Vec<f64>> {
        centres
            .iter()
            .zip(&direction)
            .map(|(c, v)| c.iter().zip(v).map(|(c, v)| c + sign * h * v).collect())
            .collect()
    };
    let up = kmeans_nearest_borrowed_grad(&moved(1.0), &points)?.gradient;
    let down = kmeans_nearest_borrowed_grad(&moved(-1.0), &points)?.gradient;
    let differences: Vec<f64> = flat(&up)
        .iter()
        .zip(flat(&down))
        .map(|(u, d)| (u - d) / (2.0 * h))
        .collect();
    for (got, want) in flat(&hvp.hvp).iter().zip(&differences) {
        assert!((got - want).abs() < 1e-6, "hvp {got} vs differences {want}");
    }

    assert!(matches!(
        kmeans_nearest_stopping_grad_path(),
        GradientPath::Tape { construct, .. } if construct.contains("a row by an index that changes")
    ));
    let stopping = kmeans_nearest_stopping_grad(&centres, &points)?;
    assert_agree(
        "kmeans_nearest_stopping",
        &flat(&stopping.gradient),
        &flat(&grad.gradient),
    );

    // A row copied by its index, and the same with a `continue`.
    assert_eq!(kmeans_nearest_copied_grad_path(), GradientPath::Compiled);
    assert_eq!(kmeans_nearest_skipping_grad_path(), GradientPath::Compiled);
    let cs = [[0.0, 0.1], [1.0, 1.5], [-1.0, 0.5]];
    let pts = [
        [0.2, -0.1],
        [0.9, 1.2],
        [-0.8, 0.7],
        [11.0, 0.0],
        [1.3, 1.9],
        [-0.1, 0.3],
    ];
    let cs_flat: Vec<f64> = cs.iter().flatten().copied().collect();
    let flat2 = |g: &[[f64; 2]; 3]| g.iter().flatten().copied().collect::<Vec<f64>>();
    let oracle = dual_value_and_gradient(&cs_flat, |v| kmeans_nearest_copied_dual(v, &pts, false));
    let skipped = dual_value_and_gradient(&cs_flat, |v| kmeans_nearest_copied_dual(v, &pts, true));
    let adjoint = compiled(|stack| kmeans_nearest_copied_adjoint(stack, cs, &pts));
    let grad = kmeans_nearest_copied_grad(cs, &pts)?;
    let tape = kmeans_nearest_copied_grad_tape(cs, &pts)?;
    let skipping = kmeans_nearest_skipping_grad(cs, &pts)?;
    assert_agree(
        "kmeans_nearest_skipping",
        &flat2(&skipping.gradient),
        &skipped.1,
    );
    check(
        "kmeans_nearest_copied",
        (adjoint.value, flat2(&adjoint.gradient)),
        (grad.value, flat2(&grad.gradient)),
        (tape.value, flat2(&tape.gradient)),
        oracle,
    );
    Ok(())
}

// ---------------------------------------------------------------------
// Closures: over a local that a loop rewrites (its items pushed after the
// loop, walked from the popped copy by the reverse), and `map` then
// `fold(f64::INFINITY, f64::min)`.
// ---------------------------------------------------------------------

#[differentiable]
fn closure_over_local(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let mut v = vec![0.0; x.len()];
        for i in 0..x.len() {
            v[i] = x[i] * (k as f64 + 1.0);
        }
        s += v.iter().map(|a| a * a).sum::<f64>();
    }
    s
}

#[differentiable]
fn smallest_square(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).fold(f64::INFINITY, f64::min)
}

/// A GMM with diagonal covariances, as a newcomer writes it with
/// iterators: each component's scaled distance a `Vec`, its squared norm
/// by a closure, and the `logsumexp` over components by a `fold` from
/// `-∞` then a `map`.
#[differentiable]
fn gmm_diagonal(
    alphas: &[f64],
    means: &[Vec<f64>],
    log_sigmas: &[Vec<f64>],
    #[constant] x: &[Vec<f64>],
) -> f64 {
    let mut total = 0.0;
    for xi in x {
        let mut terms = vec![0.0; alphas.len()];
        for k in 0..alphas.len() {
            let mut d = vec![0.0; xi.len()];
            for j in 0..xi.len() {
                d[j] = (xi[j] - means[k][j]) * (-log_sigmas[k][j]).exp();
            }
            let sum_log: f64 = log_sigmas[k].iter().sum();
            terms[k] = alphas[k] - sum_log - 0.5 * d.iter().map(|a| a * a).sum::<f64>();
        }
        let best = terms.iter().map(|t| *t).fold(f64::NEG_INFINITY, f64::max);
        total += best + terms.iter().map(|t| (t - best).exp()).sum::<f64>().ln();
    }
    total
}

fn gmm_diagonal_dual(v: &[Dual], k_count: usize, x: &[Vec<f64>]) -> Dual {
    let dim = x[0].len();
    let alphas = &v[..k_count];
    let mean = |k: usize, j: usize| v[k_count + k * dim + j];
    let log_sigma = |k: usize, j: usize| v[k_count + k_count * dim + k * dim + j];
    let mut total = Dual::constant(0.0);
    for xi in x {
        let terms: Vec<Dual> = (0..k_count)
            .map(|k| {
                let mut sum_log = Dual::constant(0.0);
                let mut sq = Dual::constant(0.0);
                for j in 0..dim {
                    sum_log = sum_log + log_sigma(k, j);
                    let d = (Dual::constant(xi[j]) - mean(k, j))
                        * (Dual::constant(0.0) - log_sigma(k, j)).exp();
                    sq = sq + d * d;
                }
                alphas[k] - sum_log - Dual::constant(0.5) * sq
            })
            .collect();
        total = total + lse_dual(&terms);
    }
    total
}

#[test]
fn closures_over_changing_locals_and_folds_stay_compiled() -> Result<(), Box<dyn std::error::Error>>
{
    let x = [0.5, -1.25, 2.0];
    // Closed form: Σ_k (k+1)² Σ x_i², its gradient 2·14·x.
    let value = 14.0 * x.iter().map(|v| v * v).sum::<f64>();
    let gradient: Vec<f64> = x.iter().map(|v| 28.0 * v).collect();
    let adjoint = compiled(|stack| closure_over_local_adjoint(stack, &x));
    let grad = closure_over_local_grad(&x)?;
    let tape = closure_over_local_grad_tape(&x)?;
    check(
        "closure_over_local",
        (adjoint.value, adjoint.gradient),
        (grad.value, grad.gradient),
        (tape.value, tape.gradient),
        (value, gradient),
    );
    assert!(closure_over_local_check(&x)?.passed());

    // The smallest square is 0.25, of x_0.
    let adjoint = compiled(|stack| smallest_square_adjoint(stack, &x));
    let grad = smallest_square_grad(&x)?;
    let tape = smallest_square_grad_tape(&x)?;
    check(
        "smallest_square",
        (adjoint.value, adjoint.gradient),
        (grad.value, grad.gradient),
        (tape.value, tape.gradient),
        (0.25, vec![1.0, 0.0, 0.0]),
    );
    assert!(smallest_square_check(&x)?.passed());
    let empty: [f64; 0] = [];
    assert_eq!(
        format!("{:?}", smallest_square_grad(&empty).unwrap_err()),
        format!("{:?}", smallest_square_grad_tape(&empty).unwrap_err())
    );

    let alphas = [0.3, -0.2, 0.5];
    let means = vec![vec![0.1, -0.3], vec![-0.5, 0.4], vec![0.9, 0.2]];
    let log_sigmas = vec![vec![0.1, -0.2], vec![-0.1, 0.15], vec![0.0, 0.3]];
    let x = vec![
        vec![0.2, -0.1],
        vec![-0.6, 0.3],
        vec![1.0, -0.8],
        vec![0.0, 0.5],
    ];
    type G = (Vec<f64>, Vec<Vec<f64>>, Vec<Vec<f64>>);
    let flat = |g: &G| {
        let mut out = g.0.clone();
        out.extend(g.1.iter().flatten());
        out.extend(g.2.iter().flatten());
        out
    };
    let adjoint = compiled(|stack| gmm_diagonal_adjoint(stack, &alphas, &means, &log_sigmas, &x));
    let grad = gmm_diagonal_grad(&alphas, &means, &log_sigmas, &x)?;
    let tape = gmm_diagonal_grad_tape(&alphas, &means, &log_sigmas, &x)?;
    let mut inputs = alphas.to_vec();
    inputs.extend(means.iter().flatten());
    inputs.extend(log_sigmas.iter().flatten());
    let oracle = dual_value_and_gradient(&inputs, |v| gmm_diagonal_dual(v, 3, &x));
    check(
        "gmm_diagonal",
        (adjoint.value, flat(&adjoint.gradient)),
        (grad.value, flat(&grad.gradient)),
        (tape.value, flat(&tape.gradient)),
        oracle,
    );
    assert!(gmm_diagonal_check(&alphas, &means, &log_sigmas, &x)?.passed());
    Ok(())
}

// ---------------------------------------------------------------------
// `filter` and `for_each`: read as the loops they stand for.
// ---------------------------------------------------------------------

#[differentiable]
fn positive_squares(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum()
}

#[differentiable]
fn sines(x: &[f64]) -> f64 {
    let mut total = 0.0;
    x.iter().for_each(|v| total += v.sin());
    total
}

/// The energy of the springs that are stretched (one that is compressed
/// does not push): `k/2 (l - rest)²` each, and a smooth penalty on all.
#[differentiable]
fn stretched_energy(lengths: &[f64], k: f64, #[constant] rest: f64) -> f64 {
    let mut energy = 0.0;
    lengths
        .iter()
        .filter(|l| **l > rest)
        .for_each(|l| energy += 0.5 * k * (l - rest) * (l - rest));
    let penalty: f64 = lengths
        .iter()
        .filter(|&&l| l < 2.0 * rest)
        .map(|l| (l / rest).ln())
        .sum();
    energy + 0.01 * penalty
}

#[test]
fn filter_and_for_each_are_loops() -> Result<(), Box<dyn std::error::Error>> {
    let x = [1.5, -2.0, 0.25, -0.5, 3.0];
    let adjoint = compiled(|stack| positive_squares_adjoint(stack, &x));
    let grad = positive_squares_grad(&x)?;
    let tape = positive_squares_grad_tape(&x)?;
    let value = x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum();
    let gradient = x
        .iter()
        .map(|v| if *v > 0.0 { 2.0 * v } else { 0.0 })
        .collect();
    check(
        "positive_squares",
        (adjoint.value, adjoint.gradient),
        (grad.value, grad.gradient),
        (tape.value, tape.gradient),
        (value, gradient),
    );
    assert!(positive_squares_check(&x)?.passed());

    let adjoint = compiled(|stack| sines_adjoint(stack, &x));
    let grad = sines_grad(&x)?;
    let tape = sines_grad_tape(&x)?;
    check(
        "sines",
        (adjoint.value, adjoint.gradient),
        (grad.value, grad.gradient),
        (tape.value, tape.gradient),
        (
            x.iter().map(|v| v.sin()).sum(),
            x.iter().map(|v| v.cos()).collect(),
        ),
    );
    assert!(sines_check(&x)?.passed());

    let lengths = [1.2, 0.7, 1.9, 1.05, 2.6];
    let (k, rest) = (3.0, 1.0);
    let flat = |g: (Vec<f64>, f64)| {
        let mut out = g.0;
        out.push(g.1);
        out
    };
    let adjoint = compiled(|stack| stretched_energy_adjoint(stack, &lengths, k, rest));
    let grad = stretched_energy_grad(&lengths, k, rest)?;
    let tape = stretched_energy_grad_tape(&lengths, k, rest)?;
    let mut inputs = lengths.to_vec();
    inputs.push(k);
    let oracle = dual_value_and_gradient(&inputs, |v| {
        let (l, k) = (&v[..5], v[5]);
        let mut energy = Dual::constant(0.0);
        let mut penalty = Dual::constant(0.0);
        for &li in l {
            if li.value > rest {
                energy = energy
                    + Dual::constant(0.5)
                        * k
                        * (li - Dual::constant(rest))
                        * (li - Dual::constant(rest));
            }
            if li.value < 2.0 * rest {
                penalty = penalty + (li / Dual::constant(rest)).ln();
            }
        }
        energy + Dual::constant(0.01) * penalty
    });
    check(
        "stretched_energy",
        (adjoint.value, flat(adjoint.gradient)),
        (grad.value, flat(grad.gradient)),
        (tape.value, flat(tape.gradient)),
        oracle,
    );
    assert!(stretched_energy_check(&lengths, k, rest)?.passed());
    Ok(())
}

// ---------------------------------------------------------------------
// An `if` value inside an expression: `relu(-(if c { a } else { b }))`,
// `s * (if c { 1.0 } else { 0.1 })`, one in a helper's argument, one
// whose branch returns. Each is read as a `let` before its statement.
// ---------------------------------------------------------------------

#[differentiable]
fn branch_operands(x: f64, y: f64) -> f64 {
    relu(-(if x > y { x * y } else { y - 1.0 })) + (if x > 0.0 { x.sin() } else { -x }) * y
}

#[differentiable]
fn leaky_sum(x: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += x[i] * (if x[i] > 0.0 { 1.0 } else { 0.1 });
    }
    s.tanh()
        * (if s > 1.0 {
            s
        } else {
            let t = s * s;
            t + 1.0
        })
}

#[differentiable]
fn scaled(a: f64, b: f64) -> f64 {
    a * b.exp()
}

#[differentiable]
fn branch_arguments(x: f64, y: f64) -> f64 {
    let z = scaled(if x > y { x } else { y * y }, x) * 2.0;
    z + (if z > 100.0 {
        return z.sqrt();
    } else {
        z.cos()
    })
}

/// An `if` value as a `break`'s value, inside `[e; n]` and `vec![e; n]`,
/// and an arm whose value is a binding of its own.
#[differentiable]
fn branch_in_break(x: f64, y: f64) -> f64 {
    let mut n = 0;
    let first = loop {
        if n > 1 {
            break (if y <= 0.6 { y } else { 0.25 }) / (x * x + 0.5);
        }
        n += 1;
    };
    let copies = [(if x >= y { x.cos() } else { 0.75 * y }); 3].to_vec();
    let listed = vec![x * x - (if x >= y { x } else { 0.5 * y }); 2];
    let chosen = if x >= 0.375 {
        let v = if y >= 0.25 { y } else { y * 0.5 };
        v
    } else {
        x.sin()
    };
    first + copies[1] * chosen + listed[1]
}

fn branch_in_break_dual(v: &[Dual]) -> Dual {
    let (x, y) = (v[0], v[1]);
    let top = if y.value <= 0.6 {
        y
    } else {
        Dual::constant(0.25)
    };
    let first = top / (x * x + Dual::constant(0.5));
    let copy = if x.value >= y.value {
        x.cos()
    } else {
        Dual::constant(0.75) * y
    };
    let chosen = if x.value >= 0.375 {
        if y.value >= 0.25 {
            y
        } else {
            y * Dual::constant(0.5)
        }
    } else {
        x.sin()
    };
    let listed = x * x
        - if x.value >= y.value {
            x
        } else {
            Dual::constant(0.5) * y
        };
    first + copy * chosen + listed
}

fn branch_operands_dual(v: &[Dual]) -> Dual {
    let (x, y) = (v[0], v[1]);
    let a = if x.value > y.value {
        x * y
    } else {
        y - Dual::constant(1.0)
    };
    let b = if x.value > 0.0 {
        x.sin()
    } else {
        Dual::constant(0.0) - x
    };
    (Dual::constant(0.0) - a).max(Dual::constant(0.0)) + b * y
}

fn leaky_sum_dual(v: &[Dual]) -> Dual {
    let mut s = Dual::constant(0.0);
    for &xi in v {
        s = s + xi * Dual::constant(if xi.value > 0.0 { 1.0 } else { 0.1 });
    }
    let e = (s + s).exp();
    let tanh = (e - Dual::constant(1.0)) / (e + Dual::constant(1.0));
    tanh * if s.value > 1.0 {
        s
    } else {
        s * s + Dual::constant(1.0)
    }
}

fn branch_arguments_dual(v: &[Dual]) -> Dual {
    let (x, y) = (v[0], v[1]);
    let a = if x.value > y.value { x } else { y * y };
    let z = a * x.exp() * Dual::constant(2.0);
    if z.value > 100.0 {
        z.sqrt()
    } else {
        z + z.cos()
    }
}

#[test]
fn if_values_inside_expressions_are_compiled() -> Result<(), Box<dyn std::error::Error>> {
    let pair = |g: (f64, f64)| vec![g.0, g.1];
    for (x, y) in [(2.0, 0.5), (-2.0, 0.5), (0.3, 1.7), (3.5, 1.0)] {
        let adjoint = compiled(|stack| branch_operands_adjoint(stack, x, y));
        let grad = branch_operands_grad(x, y)?;
        let tape = branch_operands_grad_tape(x, y)?;
        check(
            "branch_operands",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            dual_value_and_gradient(&[x, y], branch_operands_dual),
        );
        assert!(branch_operands_check(x, y)?.passed());

        let adjoint = compiled(|stack| branch_arguments_adjoint(stack, x, y));
        let grad = branch_arguments_grad(x, y)?;
        let tape = branch_arguments_grad_tape(x, y)?;
        check(
            "branch_arguments",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            dual_value_and_gradient(&[x, y], branch_arguments_dual),
        );
        assert!(branch_arguments_check(x, y)?.passed());

        let adjoint = compiled(|stack| branch_in_break_adjoint(stack, x, y));
        let grad = branch_in_break_grad(x, y)?;
        let tape = branch_in_break_grad_tape(x, y)?;
        check(
            "branch_in_break",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            dual_value_and_gradient(&[x, y], branch_in_break_dual),
        );
        assert!(branch_in_break_check(x, y)?.passed());
    }
    for x in [[0.5, -0.3, 0.9], [0.2, -0.5, 0.1]] {
        let adjoint = compiled(|stack| leaky_sum_adjoint(stack, &x));
        let grad = leaky_sum_grad(&x)?;
        let tape = leaky_sum_grad_tape(&x)?;
        check(
            "leaky_sum",
            (adjoint.value, adjoint.gradient),
            (grad.value, grad.gradient),
            (tape.value, tape.gradient),
            dual_value_and_gradient(&x, leaky_sum_dual),
        );
        assert!(leaky_sum_check(&x)?.passed());
    }
    Ok(())
}

// ---------------------------------------------------------------------
// A block or a `match` as an operand (`s += { let t = ..; t * t } * w;`,
// `w * match k { .. }`), read as a `let` before its statement where nothing
// in it writes or jumps; a block that writes stays where it is and keeps
// the tape, with the same numbers.
// ---------------------------------------------------------------------

#[differentiable]
fn block_operands(x: &[f64], w: f64) -> f64 {
    let mut s = 0.0;
    for i in 0..x.len() {
        s += {
            let t = x[i].sin();
            t * t
        } * w;
        s -= 0.5
            * match i % 3 {
                0 => x[i] * w,
                1 => {
                    let u = x[i].tanh();
                    u + 1.0
                }
                _ => w,
            };
    }
    let last = (x[0] + {
        let r = if w > 0.0 { w } else { -w };
        r.sqrt()
    }) * x[1];
    s + last
}

fn block_operands_dual(v: &[Dual]) -> Dual {
    let (x, w) = (&v[..v.len() - 1], v[v.len() - 1]);
    let mut s = Dual::constant(0.0);
    for (i, &xi) in x.iter().enumerate() {
        let t = xi.sin();
        s = s + t * t * w;
        let m = match i % 3 {
            0 => xi * w,
            1 => xi.tanh() + Dual::constant(1.0),
            _ => w,
        };
        s = s - Dual::constant(0.5) * m;
    }
    let r = if w.value > 0.0 {
        w
    } else {
        Dual::constant(0.0) - w
    };
    s + (x[0] + r.sqrt()) * x[1]
}

/// A `match` arm written as an expression holding a chain, an `if` value
/// or another `match` on an element's `Option`: read as the block it means.
#[differentiable]
fn arm_expressions(x: &[f64], w: f64) -> f64 {
    let s = match x.len() % 2 == 0 {
        true => x.iter().map(|v| v * w).sum::<f64>(),
        false => (if w > 0.0 { w } else { -w }) * x[0],
    };
    s * match s > 0.0 {
        true => (match x.last() {
            Some(v) => *v * 2.0,
            None => w,
        })
        .sin(),
        false => w * w,
    }
}

fn arm_expressions_dual(v: &[Dual]) -> Dual {
    let (x, w) = (&v[..v.len() - 1], v[v.len() - 1]);
    let s = if x.len() % 2 == 0 {
        x.iter().fold(Dual::constant(-0.0), |acc, &xi| acc + xi * w)
    } else {
        (if w.value > 0.0 {
            w
        } else {
            Dual::constant(0.0) - w
        }) * x[0]
    };
    s * if s.value > 0.0 {
        (x[x.len() - 1] * Dual::constant(2.0)).sin()
    } else {
        w * w
    }
}

/// A block that writes a binding another operand reads stays in place:
/// `y * { y += x; y }` reads `y` before the block changes it.
#[differentiable]
fn writing_block(x: f64, y: f64) -> f64 {
    let mut y = y;
    y * {
        y += x;
        y
    }
}

/// `check` of a function of a slice and a number at each of `points`:
/// compiled (`adjoint` answers), `f_grad` is it, and both agree with the
/// tape and the dual twin; `f_check` passes.
fn slice_and_number(
    name: &str,
    points: &[(Vec<f64>, f64)],
    adjoint: impl Fn(
        &mut autodiff::__adjoint::Stack,
        &[f64],
        f64,
    ) -> Option<ValueAndGradient<(Vec<f64>, f64)>>,
    grad: impl Fn(&[f64], f64) -> Result<ValueAndGradient<(Vec<f64>, f64)>, ScalarAutodiffError>,
    tape: impl Fn(&[f64], f64) -> Result<ValueAndGradient<(Vec<f64>, f64)>, ScalarAutodiffError>,
    checked: impl Fn(&[f64], f64) -> Result<bool, Box<dyn std::error::Error>>,
    dual: fn(&[Dual]) -> Dual,
) -> Result<(), Box<dyn std::error::Error>> {
    let flat = |g: &(Vec<f64>, f64)| [g.0.clone(), vec![g.1]].concat();
    for (x, w) in points {
        let adjoint = compiled(|stack| adjoint(stack, x, *w));
        let (grad, tape) = (grad(x, *w)?, tape(x, *w)?);
        let mut point = x.clone();
        point.push(*w);
        check(
            name,
            (adjoint.value, flat(&adjoint.gradient)),
            (grad.value, flat(&grad.gradient)),
            (tape.value, flat(&tape.gradient)),
            dual_value_and_gradient(&point, dual),
        );
        assert!(checked(x, *w)?, "{name}: f_check at {point:?}");
    }
    Ok(())
}

#[test]
fn block_and_match_operands_are_compiled() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(block_operands_grad_path(), GradientPath::Compiled);
    slice_and_number(
        "block_operands",
        &[
            (vec![0.3, -0.7, 1.1, 0.4], 0.8),
            (vec![-1.2, 0.5, 0.25], -1.5),
        ],
        block_operands_adjoint,
        block_operands_grad,
        block_operands_grad_tape,
        |x, w| Ok(block_operands_check(x, w)?.passed()),
        block_operands_dual,
    )?;
    assert_eq!(arm_expressions_grad_path(), GradientPath::Compiled);
    slice_and_number(
        "arm_expressions",
        &[
            (vec![0.3, -0.7, 1.1, 0.4], 0.8),
            (vec![-1.2, 0.5, 0.25], -1.5),
            (vec![0.9, 0.2, 0.6], 1.25),
            (vec![-0.4, -0.1], 0.5),
        ],
        arm_expressions_adjoint,
        arm_expressions_grad,
        arm_expressions_grad_tape,
        |x, w| Ok(arm_expressions_check(x, w)?.passed()),
        arm_expressions_dual,
    )?;
    // y · (y + x): ∂x = y, ∂y = 2y + x.
    assert!(matches!(
        writing_block_grad_path(),
        GradientPath::Tape {
            construct: "a block",
            ..
        }
    ));
    let (x, y) = (0.75, -1.25);
    let grad = writing_block_grad(x, y)?;
    assert_eq!(grad.value.to_bits(), writing_block(x, y).to_bits());
    assert_agree(
        "writing_block",
        &[grad.gradient.0, grad.gradient.1],
        &[y, 2.0 * y + x],
    );
    let tape = writing_block_grad_tape(x, y)?;
    assert_eq!(grad.gradient, tape.gradient);
    Ok(())
}

// ---------------------------------------------------------------------
// Attributes on statements (`#[allow(..)]`, `#[cfg(..)]` on a block) and
// `dbg!`: each statement the sweeps write for an attributed one carries
// the attribute, so a block compiled out is out of both sweeps; `dbg!(e)`
// prints as the plain function prints and passes `e`'s adjoint through.
// ---------------------------------------------------------------------

// `y` is written only in the block compiled out.
#[allow(unused_mut)]
#[differentiable]
fn attributed(x: &[f64], y: f64) -> f64 {
    let mut total = 0.0;
    let mut y = y;
    #[allow(clippy::needless_range_loop)]
    for i in 0..x.len() {
        total += x[i] * x[i] * y;
    }
    #[cfg(any())]
    {
        y = y * 10.0;
        total += y.exp();
    }
    #[cfg(not(any()))]
    {
        total += (y * 0.5).tanh();
    }
    #[allow(unused_variables)]
    let unread = total.sin();
    total * y
}

/// An `if` value inside an attributed `let`: read as a `let` before it.
#[differentiable]
fn attributed_branch(x: f64, y: f64) -> f64 {
    #[allow(clippy::neg_multiply)]
    let scale = (if y > 0.0 { y * x } else { -1.0 * y }) * 2.0;
    scale * x
}

#[differentiable]
fn debugged_steps(x: f64, y: f64) -> f64 {
    let a = dbg!(x.tanh() * y);
    dbg!(a.exp()) * dbg!(x)
}

#[test]
fn statement_attributes_and_dbg_stay_compiled() -> Result<(), Box<dyn std::error::Error>> {
    let x = [0.5, -1.25, 2.0];
    let y = 0.75;
    let flat = |g: (Vec<f64>, f64)| {
        let mut out = g.0;
        out.push(g.1);
        out
    };
    let adjoint = compiled(|stack| attributed_adjoint(stack, &x, y));
    let grad = attributed_grad(&x, y)?;
    let tape = attributed_grad_tape(&x, y)?;
    // (s·y + tanh(y/2))·y with s = Σ x²: the compiled-out block adds nothing.
    let s: f64 = x.iter().map(|v| v * v).sum();
    let t = (y * 0.5).tanh();
    let total = s * y + t;
    let mut gradient: Vec<f64> = x.iter().map(|v| 2.0 * v * y * y).collect();
    gradient.push(total + y * (s + 0.5 * (1.0 - t * t)));
    check(
        "attributed",
        (adjoint.value, flat(adjoint.gradient)),
        (grad.value, flat(grad.gradient)),
        (tape.value, flat(tape.gradient)),
        (total * y, gradient),
    );

    let pair = |g: (f64, f64)| vec![g.0, g.1];
    for (x, y) in [(0.4, 1.5), (0.4, -1.5)] {
        let adjoint = compiled(|stack| attributed_branch_adjoint(stack, x, y));
        let grad = attributed_branch_grad(x, y)?;
        let tape = attributed_branch_grad_tape(x, y)?;
        // y > 0: 2y·x²; else −2y·x.
        let want = if y > 0.0 {
            (2.0 * y * x * x, vec![4.0 * y * x, 2.0 * x * x])
        } else {
            (-2.0 * y * x, vec![-2.0 * y, -2.0 * x])
        };
        check(
            "attributed_branch",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            want,
        );
    }

    let (x, y) = (0.4, 1.5);
    let adjoint = compiled(|stack| debugged_steps_adjoint(stack, x, y));
    let grad = debugged_steps_grad(x, y)?;
    let tape = debugged_steps_grad_tape(x, y)?;
    // e^(tanh(x)·y)·x.
    let a = x.tanh() * y;
    let e = a.exp();
    let da = [(1.0 - x.tanh() * x.tanh()) * y, x.tanh()];
    check(
        "debugged_steps",
        (adjoint.value, pair(adjoint.gradient)),
        (grad.value, pair(grad.gradient)),
        (tape.value, pair(tape.gradient)),
        (e * x, vec![e * da[0] * x + e, e * da[1] * x]),
    );
    Ok(())
}

// ---------------------------------------------------------------------
// A tuple as a value: `let mut best = (0, x[0]);`, read by field and
// overwritten whole. Its adjoint is the tuple of its components'.
// ---------------------------------------------------------------------

#[differentiable]
fn best_scaled(x: &[f64]) -> f64 {
    let mut best = (0, x[0]);
    for i in 1..x.len() {
        if x[i] > best.1 {
            best = (i, x[i]);
        }
    }
    best.1 * best.1 * (best.0 as f64 + 1.0)
}

#[differentiable]
fn rotated_pair(x: f64, y: f64) -> f64 {
    let mut pair = (x, y * x);
    for _ in 0..3 {
        pair = (pair.1.sin(), pair.0 * 0.5 + pair.1);
    }
    let (a, b) = pair;
    a * b + pair.0
}

/// A loop's value read from a tuple's component (`break p.0`).
#[differentiable]
fn pair_loop(x: f64, y: f64) -> f64 {
    let mut p = (x * y, y);
    let mut k = 0;
    let z = loop {
        if k >= 2 {
            break p.0;
        }
        p.0 = p.0.sin() + p.1;
        k += 1;
    };
    z * p.1
}

fn pair_loop_dual(v: &[Dual]) -> Dual {
    let (x, y) = (v[0], v[1]);
    let mut p0 = x * y;
    for _ in 0..2 {
        p0 = p0.sin() + y;
    }
    p0 * y
}

fn rotated_pair_dual(v: &[Dual]) -> Dual {
    let (x, y) = (v[0], v[1]);
    let mut pair = (x, y * x);
    for _ in 0..3 {
        pair = (pair.1.sin(), pair.0 * Dual::constant(0.5) + pair.1);
    }
    pair.0 * pair.1 + pair.0
}

#[test]
fn a_tuple_value_is_compiled() -> Result<(), Box<dyn std::error::Error>> {
    let x = [0.5, 2.0, -1.0, 1.5];
    let adjoint = compiled(|stack| best_scaled_adjoint(stack, &x));
    let grad = best_scaled_grad(&x)?;
    let tape = best_scaled_grad_tape(&x)?;
    // The largest, 2.0 at index 1: 2·x1²; its derivative 4·x1 there only.
    check(
        "best_scaled",
        (adjoint.value, adjoint.gradient),
        (grad.value, grad.gradient),
        (tape.value, tape.gradient),
        (8.0, vec![0.0, 8.0, 0.0, 0.0]),
    );

    let pair = |g: (f64, f64)| vec![g.0, g.1];
    for (x, y) in [(0.7, 1.3), (-0.4, 2.1)] {
        let adjoint = compiled(|stack| rotated_pair_adjoint(stack, x, y));
        let grad = rotated_pair_grad(x, y)?;
        let tape = rotated_pair_grad_tape(x, y)?;
        check(
            "rotated_pair",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            dual_value_and_gradient(&[x, y], rotated_pair_dual),
        );
        assert!(rotated_pair_check(x, y)?.passed());

        let adjoint = compiled(|stack| pair_loop_adjoint(stack, x, y));
        let grad = pair_loop_grad(x, y)?;
        let tape = pair_loop_grad_tape(x, y)?;
        check(
            "pair_loop",
            (adjoint.value, pair(adjoint.gradient)),
            (grad.value, pair(grad.gradient)),
            (tape.value, pair(tape.gradient)),
            dual_value_and_gradient(&[x, y], pair_loop_dual),
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------
// Closures whose value is a truth value or a count (`all`, `any`,
// `filter(..).count()`): run as written in the forward, nothing to
// reverse.
// ---------------------------------------------------------------------

#[differentiable]
fn guarded_logs(x: &[f64]) -> f64 {
    if x.iter().all(|v| *v > 0.0) && !x.iter().any(|v| *v > 100.0) {
        x.iter().map(|v| v.ln()).sum()
    } else {
        x.iter().map(|v| v * v).sum()
    }
}

#[differentiable]
fn counted_scale(x: &[f64]) -> f64 {
    let n = x.iter().filter(|v| **v > 1.0).count();
    let k = if x.iter().any(|v| *v > 2.5) { 2 } else { 0 };
    let mut total = 0.0;
    for v in x {
        total += v * n as f64;
    }
    total * x[k]
}

#[test]
fn counting_closures_stay_compiled() -> Result<(), Box<dyn std::error::Error>> {
    for x in [vec![0.5, 2.0, 3.0], vec![-0.5, 2.0, 0.25]] {
        let adjoint = compiled(|stack| guarded_logs_adjoint(stack, &x));
        let grad = guarded_logs_grad(&x)?;
        let tape = guarded_logs_grad_tape(&x)?;
        let positive = x.iter().all(|v| *v > 0.0);
        let want = if positive {
            (
                x.iter().map(|v| v.ln()).sum(),
                x.iter().map(|v| 1.0 / v).collect(),
            )
        } else {
            (
                x.iter().map(|v| v * v).sum(),
                x.iter().map(|v| 2.0 * v).collect(),
            )
        };
        check(
            "guarded_logs",
            (adjoint.value, adjoint.gradient),
            (grad.value, grad.gradient),
            (tape.value, tape.gradient),
            want,
        );

        let adjoint = compiled(|stack| counted_scale_adjoint(stack, &x));
        let grad = counted_scale_grad(&x)?;
        let tape = counted_scale_grad_tape(&x)?;
        // n·Σx·x_k, with n and k fixed by the comparisons.
        let n = x.iter().filter(|v| **v > 1.0).count() as f64;
        let k = if x.iter().any(|v| *v > 2.5) { 2 } else { 0 };
        let total: f64 = x.iter().sum();
        let mut gradient = vec![n * x[k]; x.len()];
        gradient[k] += n * total;
        check(
            "counted_scale",
            (adjoint.value, adjoint.gradient),
            (grad.value, grad.gradient),
            (tape.value, tape.gradient),
            (n * total * x[k], gradient),
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------
// A call's value bound and never read (`let p = v(x, c);` and no `p`
// after it): the macro cannot see whether the callee returns a number or
// a vector, and read it as a number, which a vector is not, so the
// compiled sweep failed at run time and every call reran the tape (found
// by the random programs, seeds 16003 `f7_3` and 16005 `f4_23`, `f5_8`).
// It is taken as it is, and the callee's reverse gets zeros shaped like
// it.
// ---------------------------------------------------------------------

#[differentiable]
fn spread(x: f64, y: f64) -> Vec<f64> {
    vec![x * y, x.sin(), y / (x * x + 0.5)]
}

#[differentiable]
fn spread_array(x: f64) -> [f64; 2] {
    [x.exp(), x * 2.0]
}

#[differentiable]
fn spread_pair(x: f64) -> (f64, Vec<f64>) {
    (x.cos(), vec![x * x, x.tanh()])
}

#[differentiable]
fn squared(x: f64) -> f64 {
    x * x
}

#[differentiable]
fn roots(x: f64) -> Vec<f64> {
    vec![x.sqrt(), x]
}

#[differentiable]
fn unread_calls(x: f64, y: f64) -> f64 {
    let _p = spread(x, 2.0 * y.sin());
    let _a = spread_array(y);
    let _t = spread_pair(x * y);
    let _s = squared(x + y);
    x * y + x.sin()
}

/// A number-valued call never read whose argument changes after it: its
/// reverse reads no argument.
#[differentiable]
fn unread_before_a_change(x: f64, y: f64) -> f64 {
    let mut z = x * y;
    let _s = squared(z);
    z = z.sin() * 3.0;
    z + y
}

#[differentiable]
fn unread_root(x: f64) -> f64 {
    let _r = roots(x);
    x * 3.0
}

#[test]
fn a_call_never_read_stays_compiled() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(unread_calls_grad_path(), GradientPath::Compiled);
    assert_eq!(unread_before_a_change_grad_path(), GradientPath::Compiled);
    assert_eq!(unread_root_grad_path(), GradientPath::Compiled);
    for (x, y) in [(1.0, 1.15625), (-1.03125, 0.421875), (0.3, -2.0)] {
        let adjoint = compiled(|stack| unread_calls_adjoint(stack, x, y));
        let grad = unread_calls_grad(x, y)?;
        let tape = unread_calls_grad_tape(x, y)?;
        check(
            "unread_calls",
            (adjoint.value, vec![adjoint.gradient.0, adjoint.gradient.1]),
            (grad.value, vec![grad.gradient.0, grad.gradient.1]),
            (tape.value, vec![tape.gradient.0, tape.gradient.1]),
            (x * y + x.sin(), vec![y + x.cos(), x]),
        );

        let adjoint = compiled(|stack| unread_before_a_change_adjoint(stack, x, y));
        let grad = unread_before_a_change_grad(x, y)?;
        let tape = unread_before_a_change_grad_tape(x, y)?;
        let c = 3.0 * (x * y).cos();
        check(
            "unread_before_a_change",
            (adjoint.value, vec![adjoint.gradient.0, adjoint.gradient.1]),
            (grad.value, vec![grad.gradient.0, grad.gradient.1]),
            (tape.value, vec![tape.gradient.0, tape.gradient.1]),
            ((x * y).sin() * 3.0 + y, vec![c * y, c * x + 1.0]),
        );
    }
    let adjoint = compiled(|stack| unread_root_adjoint(stack, 2.0));
    assert_eq!((adjoint.value, adjoint.gradient), (6.0, 3.0));
    // √x at 0 has an infinite derivative, which the tape rejects where it
    // is made, read or not: the compiled sweep fails there too and
    // `f_grad` returns the tape's error.
    let (grad, tape) = (unread_root_grad(0.0), unread_root_grad_tape(0.0));
    assert!(tape.is_err(), "the tape rejects √0: {tape:?}");
    assert_eq!(format!("{grad:?}"), format!("{tape:?}"));
    assert!(with_stack(|stack| unread_root_adjoint(stack, 0.0)).is_none());
    Ok(())
}

// ---------------------------------------------------------------------
// A call that reruns from its arguments in the reverse sweep (a
// vector-valued one, or one never read, which may be) whose argument
// changes before it: a number is pushed as the call reads it and popped
// for the reverse. Never read, the callee got no arguments and a vector
// failed the sweep at run time (found by the random programs, seed 16107
// `g4_18`: `let p = v4(x0, ..); let (x1, x0) = (x0, x1);`); indexed, the
// function kept the tape.
// ---------------------------------------------------------------------

#[differentiable]
fn unread_then_swapped(x: f64, y: f64) -> f64 {
    let _p = spread(x, 2.0 * y.cos());
    let (y, x) = (x, y);
    x * y.sin()
}

#[differentiable]
fn indexed_then_changed(x: f64, y: f64) -> f64 {
    let mut z = x * y;
    let p = spread(z, y);
    z = z.sin();
    p[0] + p[1] * z
}

#[test]
fn a_rerun_call_whose_argument_changes_saves_it() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(unread_then_swapped_grad_path(), GradientPath::Compiled);
    assert_eq!(indexed_then_changed_grad_path(), GradientPath::Compiled);
    for (x, y) in [(0.390625, 0.609375), (-1.25, 0.75), (2.0, -0.5)] {
        let adjoint = compiled(|stack| unread_then_swapped_adjoint(stack, x, y));
        let grad = unread_then_swapped_grad(x, y)?;
        let tape = unread_then_swapped_grad_tape(x, y)?;
        check(
            "unread_then_swapped",
            (adjoint.value, vec![adjoint.gradient.0, adjoint.gradient.1]),
            (grad.value, vec![grad.gradient.0, grad.gradient.1]),
            (tape.value, vec![tape.gradient.0, tape.gradient.1]),
            (y * x.sin(), vec![y * x.cos(), x.sin()]),
        );

        let adjoint = compiled(|stack| indexed_then_changed_adjoint(stack, x, y));
        let grad = indexed_then_changed_grad(x, y)?;
        let tape = indexed_then_changed_grad_tape(x, y)?;
        // x·y² + sin²(x·y)
        let (s, c) = ((x * y).sin(), (x * y).cos());
        check(
            "indexed_then_changed",
            (adjoint.value, vec![adjoint.gradient.0, adjoint.gradient.1]),
            (grad.value, vec![grad.gradient.0, grad.gradient.1]),
            (tape.value, vec![tape.gradient.0, tape.gradient.1]),
            (
                x * y * y + s * s,
                vec![y * y + 2.0 * s * c * y, 2.0 * x * y + 2.0 * s * c * x],
            ),
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------
// A typed `collect` beside a vector-valued call indexed where it is made
// (found by the random programs, seed 16113 `g6_1` and `g2_20`, which
// then named "a closure" for the `collect` where the indexed call kept
// the tape): both compile now, the call bound first.
// ---------------------------------------------------------------------

#[differentiable]
fn collected_beside_an_indexed_call(x: f64) -> f64 {
    let a = [x, x * 2.0];
    let v: Vec<f64> = a.iter().map(|t| t * 0.5).collect();
    v[0] + spread(x, 1.0)[1]
}

#[test]
fn a_typed_collect_beside_an_indexed_call_compiles() {
    assert_eq!(
        collected_beside_an_indexed_call_grad_path(),
        GradientPath::Compiled
    );
    let x = 0.75;
    let grad = agree(
        "collected_beside",
        collected_beside_an_indexed_call_grad(x),
        collected_beside_an_indexed_call_grad_tape(x),
    );
    // x/2 + sin x
    assert_agree("collected_beside", &[grad.gradient], &[0.5 + x.cos()]);
}

// ---------------------------------------------------------------------
// A `loop`'s value taken from another `loop`'s (`let c = loop { break b;
// };` after `let b = loop { break if .. { a } else { -1.0 }; };`): the
// `if` value is read as a `let` inside the first loop, whose shape was
// looked up before that `let` was seen, so the second loop's value had
// none and the function kept the tape (found by the random programs,
// seed 16119 `f0_12`, drawn from compiled constructs).
// ---------------------------------------------------------------------

// The generated program's shape, kept as found.
#[allow(unused_parens, clippy::never_loop)]
#[differentiable]
fn break_value_of_a_break_value(x: f64, y: f64) -> f64 {
    let a = x * y;
    let b = loop {
        break if a >= 0.0 { a } else { -1.0 };
    };
    let c = loop {
        break b;
    };
    c * y + b
}

#[test]
fn a_loop_value_from_a_loop_value_is_compiled() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(
        break_value_of_a_break_value_grad_path(),
        GradientPath::Compiled
    );
    for (x, y) in [(0.5, 1.5), (-0.5, 2.0), (1.25, -0.75)] {
        let adjoint = compiled(|stack| break_value_of_a_break_value_adjoint(stack, x, y));
        let grad = break_value_of_a_break_value_grad(x, y)?;
        let tape = break_value_of_a_break_value_grad_tape(x, y)?;
        let want = if x * y >= 0.0 {
            // x·y² + x·y
            (x * y * y + x * y, vec![y * y + y, 2.0 * x * y + x])
        } else {
            (-y - 1.0, vec![0.0, -1.0])
        };
        check(
            "break_value_of_a_break_value",
            (adjoint.value, vec![adjoint.gradient.0, adjoint.gradient.1]),
            (grad.value, vec![grad.gradient.0, grad.gradient.1]),
            (tape.value, vec![tape.gradient.0, tape.gradient.1]),
            want,
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------
// A vector call's binding beside a `let` the branches give its value
// (`let (a, b) = if c { (p[0], x) } else { (x, p[1]) };`, read as `let
// a; let b;`), whose rounds of shapes rebuilt them without the vector's.
// ---------------------------------------------------------------------

#[differentiable]
fn vector_beside_deferred(x: f64) -> f64 {
    let p = spread(x, 2.0);
    let (a, b) = if x > 0.0 { (p[0], x) } else { (x, p[1]) };
    a * b + p[2]
}

#[test]
fn a_vector_call_beside_a_deferred_let() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(vector_beside_deferred_grad_path(), GradientPath::Compiled);
    for x in [0.75, -1.25] {
        let adjoint = compiled(|stack| vector_beside_deferred_adjoint(stack, x));
        let grad = vector_beside_deferred_grad(x)?;
        let tape = vector_beside_deferred_grad_tape(x)?;
        // p = [2x, sin x, 2/(x² + 0.5)]
        let q = x * x + 0.5;
        let (value, slope) = if x > 0.0 {
            (2.0 * x * x + 2.0 / q, 4.0 * x - 4.0 * x / (q * q))
        } else {
            (
                x * x.sin() + 2.0 / q,
                x.sin() + x * x.cos() - 4.0 * x / (q * q),
            )
        };
        check(
            "vector_beside_deferred",
            (adjoint.value, vec![adjoint.gradient]),
            (grad.value, vec![grad.gradient]),
            (tape.value, vec![tape.gradient]),
            (value, vec![slope]),
        );
    }
    Ok(())
}

/// A residual step written as a chain: `h = h.iter().zip(&d).map(..)
/// .collect();` in a loop and at the top, of a `Vec` bound at the top.
/// Read as the loop pushing onto a `Vec` of its own, then `h` assigned
/// that `Vec` (it kept the tape, "a closure"). Then a `Vec` grown by
/// `push` at the top and moved whole into `h` (`h = next;`), which did
/// not build (E0382: its adjoint was shaped from `next` after the move).
#[differentiable]
fn residual_chain(x: &[f64], w: f64) -> f64 {
    let mut h = x.to_vec();
    for step in 0..3 {
        let d: Vec<f64> = h.iter().map(|v| (v * w).tanh()).collect();
        h = h
            .iter()
            .zip(d.iter())
            .map(|(a, b)| a + b * (step as f64 + 0.5))
            .collect();
    }
    h = h.iter().map(|v| v * v).collect();
    let mut next = Vec::new();
    for v in h.iter() {
        next.push(v * w);
    }
    h = next;
    h.iter().sum::<f64>() + h[0]
}

fn residual_chain_dual(p: &[Dual]) -> Dual {
    let (x, w) = p.split_at(p.len() - 1);
    let w = w[0];
    let mut h = x.to_vec();
    for step in 0..3 {
        let d: Vec<Dual> = h.iter().map(|v| (*v * w).tanh()).collect();
        h = h
            .iter()
            .zip(d.iter())
            .map(|(a, b)| *a + *b * (f64::from(step) + 0.5))
            .collect();
    }
    let h: Vec<Dual> = h.iter().map(|v| *v * *v * w).collect();
    let total = h.iter().fold(Dual::constant(-0.0), |s, v| s + *v);
    total + h[0]
}

/// The same of a `clone()` of a `Vec` the body binds.
#[differentiable]
fn collected_into_a_copy(x: &[f64], w: f64) -> f64 {
    let z: Vec<f64> = x.iter().map(|t| (t * w).sin()).collect();
    let mut y = z.clone();
    y = y.iter().zip(z.iter()).map(|(a, b)| a * b + w).collect();
    y.iter().sum()
}

fn collected_into_a_copy_dual(p: &[Dual]) -> Dual {
    let (x, w) = p.split_at(p.len() - 1);
    let w = w[0];
    x.iter().fold(Dual::constant(-0.0), |s, t| {
        let z = (*t * w).sin();
        s + (z * z + w)
    })
}

#[test]
fn a_vec_assigned_a_chains_collect_is_compiled() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(collected_into_a_copy_grad_path(), GradientPath::Compiled);
    slice_and_number(
        "collected_into_a_copy",
        &[(vec![0.3, -0.7, 1.1], 0.8), (vec![-1.2, 0.5], -1.5)],
        collected_into_a_copy_adjoint,
        collected_into_a_copy_grad,
        collected_into_a_copy_grad_tape,
        |x, w| Ok(collected_into_a_copy_check(x, w)?.passed()),
        collected_into_a_copy_dual,
    )?;
    assert_eq!(residual_chain_grad_path(), GradientPath::Compiled);
    slice_and_number(
        "residual_chain",
        &[
            (vec![0.3, -0.7, 1.1, 0.4], 0.8),
            (vec![-1.2, 0.5, 0.25], -1.5),
        ],
        residual_chain_adjoint,
        residual_chain_grad,
        residual_chain_grad_tape,
        |x, w| Ok(residual_chain_check(x, w)?.passed()),
        residual_chain_dual,
    )
}

/// An index found by comparing tracked values (`position`), then read
/// (`unwrap_or`, `match`): an index carries no derivative, as `any` and
/// `count` do not. The tape refused `.unwrap_or(0)` of it ("this method
/// would drop its gradient": no `Option` was a plain value there).
#[differentiable]
fn first_positive(x: &[f64], k: f64) -> f64 {
    let first = x.iter().position(|&v| v > 0.0).unwrap_or(0);
    let last = match x.iter().position(|v| *v * k < -0.5) {
        Some(i) => i,
        None => x.len() - 1,
    };
    x[first] * k + x[last].sin()
}

fn first_positive_dual(p: &[Dual]) -> Dual {
    let (x, k) = p.split_at(p.len() - 1);
    let k = k[0];
    let first = x.iter().position(|v| v.value > 0.0).unwrap_or(0);
    let last = x
        .iter()
        .position(|v| v.value * k.value < -0.5)
        .unwrap_or(x.len() - 1);
    x[first] * k + x[last].sin()
}

#[test]
fn a_position_found_by_comparing_tracked_values_is_compiled(
) -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(first_positive_grad_path(), GradientPath::Compiled);
    slice_and_number(
        "first_positive",
        &[
            (vec![0.3, -0.8, 1.2], 1.3),
            (vec![-0.3, 0.8, -1.2], 1.3),
            (vec![-0.3, -0.1], 0.5),
        ],
        first_positive_adjoint,
        first_positive_grad,
        first_positive_grad_tape,
        |x, w| Ok(first_positive_check(x, w)?.passed()),
        first_positive_dual,
    )?;
    // On dual numbers too: H·v against central differences of f_grad
    // along v (no index changes within the step).
    let (x, k) = ([0.3, -0.8, 1.2], 1.3);
    let v = (vec![1.0, 0.5, 0.25], 1.0);
    let hvp = first_positive_hvp(&x, k, v.clone())?;
    let got = [hvp.hvp.0.clone(), vec![hvp.hvp.1]].concat();
    hvp_matches_differences(&got, |t| {
        let moved: Vec<f64> = x.iter().zip(&v.0).map(|(a, d)| a + t * d).collect();
        let g = first_positive_grad(&moved, k + t * v.1)?.gradient;
        Ok([g.0, vec![g.1]].concat())
    })?;
    Ok(())
}

/// `got` (H·v) against central differences, step 1e-5, of `grad_at(t)`:
/// the flattened gradient at the point moved by `t` along `v`; each
/// component within 1e-6 of the difference, relative above 1.
fn hvp_matches_differences(
    got: &[f64],
    grad_at: impl Fn(f64) -> Result<Vec<f64>, ScalarAutodiffError>,
) -> Result<(), ScalarAutodiffError> {
    let h = 1e-5;
    let (plus, minus) = (grad_at(h)?, grad_at(-h)?);
    let differences: Vec<f64> = plus
        .iter()
        .zip(&minus)
        .map(|(p, m)| (p - m) / (2.0 * h))
        .collect();
    assert_eq!(got.len(), differences.len());
    for (g, d) in got.iter().zip(&differences) {
        assert!(
            (g - d).abs() <= 1e-6 * (1.0 + d.abs()),
            "H·v {got:?} vs {differences:?}"
        );
    }
    Ok(())
}

/// A copy collected from `cloned()` or `copied()` (no `map`): read as the
/// loop pushing each item (it kept the tape, "a binding whose shape the
/// reverse sweep cannot see").
#[differentiable]
fn collected_copies(x: &[f64], k: f64) -> f64 {
    let v: Vec<f64> = x.iter().cloned().collect();
    let w = x.iter().copied().collect::<Vec<f64>>();
    let s: f64 = v.iter().sum();
    s * k + w[1] * w[0]
}

fn collected_copies_dual(p: &[Dual]) -> Dual {
    let (x, k) = p.split_at(p.len() - 1);
    let s = x.iter().fold(Dual::constant(-0.0), |s, v| s + *v);
    s * k[0] + x[1] * x[0]
}

#[test]
fn a_copy_collected_from_cloned_items_is_compiled() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(collected_copies_grad_path(), GradientPath::Compiled);
    slice_and_number(
        "collected_copies",
        &[(vec![0.3, -0.8, 1.2], 1.3), (vec![-1.5, 0.25], -0.5)],
        collected_copies_adjoint,
        collected_copies_grad,
        collected_copies_grad_tape,
        |x, w| Ok(collected_copies_check(x, w)?.passed()),
        collected_copies_dual,
    )
}

/// A constant vector call's value walked by a `zip` beside a tracked
/// slice, in a body with `return` (seed 20339 f1_6, reduced): the dual
/// sweep saves the zipped items for its reverse, and a constant's were
/// `f64`s, which a stack of duals did not take (a build failure of
/// `f_hvp`'s sweep). They are saved as constants.
#[differentiable]
fn constant_pair(x: &[f64]) -> [f64; 2] {
    [x[0] * x[1], x[0].sin()]
}

#[differentiable]
fn zipped_with_a_constant_call(x0: f64, x2: &[f64]) -> f64 {
    let s = [0.96875, 0.3];
    let p = constant_pair(&s);
    let mut acc = x0 * x0;
    acc += p.iter().zip(x2.iter()).map(|(a, b)| a * b * b).sum::<f64>();
    if x0 >= 1.5 {
        return x2[1].sin();
    }
    acc
}

fn zipped_with_a_constant_call_dual(x: &[Dual]) -> Dual {
    let p = [0.96875 * 0.3, 0.96875_f64.sin()];
    let mut acc = x[0] * x[0];
    for (a, b) in p.iter().zip(&x[1..]) {
        acc = acc + *b * *b * *a;
    }
    if x[0].value >= 1.5 {
        return x[2].sin();
    }
    acc
}

#[test]
fn a_constant_calls_items_zipped_in_a_body_with_return_run_on_duals(
) -> Result<(), ScalarAutodiffError> {
    assert_eq!(
        zipped_with_a_constant_call_grad_path(),
        autodiff::GradientPath::Compiled
    );
    for (x0, x2) in [(0.4, vec![0.3, -0.8]), (2.0, vec![-0.3, 0.8])] {
        let all = [vec![x0], x2.clone()].concat();
        compiled_agrees(
            "zipped_with_a_constant_call",
            &all,
            |stack| zipped_with_a_constant_call_adjoint(stack, x0, &x2),
            || zipped_with_a_constant_call_grad(x0, &x2),
            || zipped_with_a_constant_call_grad_tape(x0, &x2),
            zipped_with_a_constant_call_dual,
        );
        // H·v through the dual sweep, against central differences of
        // f_grad along v.
        let v = (1.0, vec![0.5, -0.25]);
        let before = autodiff::__adjoint::compiled_hvps();
        let hvp = zipped_with_a_constant_call_hvp(x0, &x2, v.clone())?;
        assert!(
            autodiff::__adjoint::compiled_hvps() > before,
            "f_hvp on duals"
        );
        let got = [vec![hvp.hvp.0], hvp.hvp.1.clone()].concat();
        hvp_matches_differences(&got, |t| {
            let moved: Vec<f64> = x2.iter().zip(&v.1).map(|(a, d)| a + t * d).collect();
            let g = zipped_with_a_constant_call_grad(x0 + t * v.0, &moved)?.gradient;
            Ok([vec![g.0], g.1].concat())
        })?;
    }
    Ok(())
}

/// A layer whose method a loss folds over, as a stack of models.
#[derive(Clone, Debug, Parameters)]
struct Mixer {
    w: [f64; 2],
    b: f64,
}

#[differentiable]
impl Mixer {
    fn mix(&self, a: f64, u: f64) -> f64 {
        (a * self.w[0] + u * self.w[1] + self.b).tanh()
    }
}

/// The stack folded by a running value first read from a model's field
/// (so the body shows no number before the fold) and returned as it is:
/// the function's value, which is an `f64`, is what shows it to be one.
#[differentiable]
fn folded_through_mixers(x: f64, stack: &[Mixer]) -> f64 {
    let mut acc = stack[0].b;
    for layer in stack {
        acc = layer.mix(acc, x);
    }
    acc
}

#[test]
fn a_fold_over_a_stack_of_models_returned_as_the_value_is_compiled() {
    assert_eq!(folded_through_mixers_grad_path(), GradientPath::Compiled);
    // x, then each layer's w[0], w[1], b.
    let point = [0.7, 0.4, -0.3, 0.2, -0.6, 0.9, -0.1, 0.5, 0.8, 0.3];
    let stack: Vec<Mixer> = point[1..]
        .chunks(3)
        .map(|c| Mixer {
            w: [c[0], c[1]],
            b: c[2],
        })
        .collect();
    let got = folded_through_mixers_grad(point[0], &stack).expect("compiled");
    let tape = folded_through_mixers_grad_tape(point[0], &stack).expect("tape");
    let flat = |g: &(f64, Vec<Mixer>)| {
        let mut all = vec![g.0];
        for m in &g.1 {
            all.extend([m.w[0], m.w[1], m.b]);
        }
        all
    };
    let (value, want) = crate::oracle::dual_value_and_gradient(&point, |p| {
        let mut acc = p[3];
        for c in p[1..].chunks(3) {
            acc = (acc * c[0] + p[0] * c[1] + c[2]).tanh();
        }
        acc
    });
    for g in [&got, &tape] {
        assert_agree("folded_through_mixers value", &[g.value], &[value]);
        assert_agree("folded_through_mixers", &flat(&g.gradient), &want);
    }
}

impl crate::oracle::Flat for Mixer {
    fn flat(&self, out: &mut Vec<f64>) {
        out.extend([self.w[0], self.w[1], self.b]);
    }
}

/// A method's value, which the macro cannot see to be a number, given
/// on by name as a loop's `break` value and as an `if`'s arm: only the
/// bindings made of it are read as numbers (`y * x`). Before, the loop's
/// binding had no shape the reverse sweep could see, and the body kept the
/// tape (seed 20586 of the random programs).
#[differentiable]
fn broken_out_with_a_mix(m: &Mixer, x: f64, #[constant] trips: usize) -> f64 {
    let h = m.mix(x, 0.5);
    let g = m.mix(0.25, x);
    let mut n = 0;
    let y = loop {
        if n >= trips {
            break h;
        }
        n += 1;
    };
    let z = if x > 0.0 { g } else { h };
    y * x + z
}

#[test]
fn a_methods_value_given_on_by_break_and_by_branches_is_compiled() {
    assert_eq!(broken_out_with_a_mix_grad_path(), GradientPath::Compiled);
    for x in [0.7, -0.4] {
        // w[0], w[1], b, then x.
        let point = [0.4, -0.3, 0.2, x];
        let m = Mixer {
            w: [point[0], point[1]],
            b: point[2],
        };
        compiled_agrees(
            "broken_out_with_a_mix",
            &point,
            |stack| broken_out_with_a_mix_adjoint(stack, &m, x, 3),
            || broken_out_with_a_mix_grad(&m, x, 3),
            || broken_out_with_a_mix_grad_tape(&m, x, 3),
            |p| {
                let mix = |a: Dual, u: Dual| (a * p[0] + u * p[1] + p[2]).tanh();
                let h = mix(p[3], Dual::constant(0.5));
                let g = mix(Dual::constant(0.25), p[3]);
                let z = if p[3].value > 0.0 { g } else { h };
                h * p[3] + z
            },
        );
    }
}

/// The nearest centre kept as a tuple of its index and its distance,
/// started from infinity, as a student writes k-means' assignment step.
/// It compiled, yet every call reran the tape: the comparison's read of
/// `best.1` was observed, and `∞` is not finite. A tuple's compared field
/// is now a running extreme (`extremes`), as `let mut best = f64::INFINITY`
/// already was.
#[differentiable]
fn nearest_by_tuple(centres: &[Vec<f64>], #[constant] points: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let mut best = (0usize, f64::INFINITY);
        for i in 0..centres.len() {
            let d = (centres[i][0] - p[0]).abs();
            if d < best.1 {
                best = (i, d);
            }
        }
        let c = &centres[best.0];
        total += c[0] * c[1] * p[1] + best.1;
    }
    total
}

/// The same with the comparison the other way round and a maximum.
#[differentiable]
fn farthest_by_tuple(x: &[f64]) -> f64 {
    let mut best = (0usize, f64::NEG_INFINITY, 0.5);
    for k in 0..x.len() {
        let s = x[k] * x[k];
        if best.1 < s {
            best = (k, s, 0.5);
        }
    }
    best.1 * x[best.0] + best.2
}

#[test]
fn a_running_extreme_in_a_tuple_stays_compiled() {
    assert_eq!(nearest_by_tuple_grad_path(), GradientPath::Compiled);
    assert_eq!(farthest_by_tuple_grad_path(), GradientPath::Compiled);
    let centres = vec![vec![0.0, 0.1], vec![1.0, 1.5], vec![-1.0, 0.5]];
    let points = vec![vec![0.2, -0.1], vec![0.9, 1.2], vec![-0.8, 2.0]];
    let before = autodiff::__adjoint::tape_reruns();
    let got = nearest_by_tuple_grad(&centres, &points).unwrap();
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        before,
        "no rerun on the tape"
    );
    let tape = nearest_by_tuple_grad_tape(&centres, &points).unwrap();
    // Points 0.2, 0.9, -0.8 pick centres 0, 1, 2: each adds c0 c1 p1 and
    // |c0 - p0|, whose derivative in c0 is the sign of c0 - p0.
    let mut want = vec![vec![0.0; 2]; 3];
    for (k, p) in points.iter().enumerate() {
        let c = &centres[k];
        want[k][0] += c[1] * p[1] + (c[0] - p[0]).signum();
        want[k][1] += c[0] * p[1];
    }
    let flat = |g: &[Vec<f64>]| g.iter().flatten().copied().collect::<Vec<_>>();
    assert_agree("nearest_by_tuple", &flat(&got.gradient), &flat(&want));
    assert_agree(
        "nearest_by_tuple tape",
        &flat(&got.gradient),
        &flat(&tape.gradient),
    );
    let x = [0.5, -1.5, 1.2];
    let before = autodiff::__adjoint::tape_reruns();
    let got = farthest_by_tuple_grad(&x).unwrap();
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        before,
        "no rerun on the tape"
    );
    // The largest square is x1²: the value x1³ + 0.5, gradient 3 x1² there.
    assert!((got.value - (-1.5f64).powi(3) - 0.5).abs() < 1e-12);
    assert_agree("farthest_by_tuple", &got.gradient, &[0.0, 3.0 * 2.25, 0.0]);
    let tape = farthest_by_tuple_grad_tape(&x).unwrap();
    assert_agree("farthest_by_tuple tape", &got.gradient, &tape.gradient);
    // A NaN in a centre: the same answer on both paths.
    let mut bad = centres.clone();
    bad[1][0] = f64::NAN;
    assert_eq!(
        nearest_by_tuple_grad(&bad, &points).is_err(),
        nearest_by_tuple_grad_tape(&bad, &points).is_err()
    );
}

// `into_iter()` as a chain's source, as a student writes a softmax that
// consumes its `Vec` (`e.into_iter().map(|v| v / s).collect()`): read as
// the loop `for v in e` walks it, a `Vec`'s items by value, a slice's by
// reference. Before, such a chain kept the tape, and a helper written so
// ran its `f_vjp` on the tape inside every compiled caller's reverse while
// the caller's `f_grad_path()` said `Compiled`.

#[differentiable]
fn consumed_softmax(z: Vec<f64>) -> Vec<f64> {
    let m = z.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let mut e = z;
    let mut s = 0.0;
    for i in 0..e.len() {
        e[i] = (e[i] - m).exp();
        s += e[i];
    }
    e.into_iter().map(|v| v / s).collect()
}

#[differentiable]
fn nll_of_consumed(z: Vec<f64>, #[constant] target: usize) -> f64 {
    let p = consumed_softmax(z);
    -p[target].ln()
}

fn nll_of_consumed_dual(z: &[Dual]) -> Dual {
    let m = z.iter().map(|v| v.value).fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<Dual> = z.iter().map(|v| (*v - m).exp()).collect();
    let s = e.iter().fold(Dual::constant(0.0), |a, b| a + *b);
    -(e[1] / s).ln()
}

// `z.into_iter()` of a slice, as written: its items by reference.
#[allow(clippy::into_iter_on_ref)]
#[differentiable]
fn weighted_items(z: &[f64], w: [f64; 3]) -> f64 {
    let e: Vec<f64> = z.into_iter().map(|&v| v.exp()).collect();
    let s: f64 = w.into_iter().zip(e.iter()).map(|(a, b)| a * b).sum();
    s + e
        .into_iter()
        .enumerate()
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum::<f64>()
}

fn weighted_items_dual(x: &[Dual]) -> Dual {
    let (z, w) = x.split_at(3);
    let e: Vec<Dual> = z.iter().map(|v| v.exp()).collect();
    let mut s = Dual::constant(0.0);
    for i in 0..3 {
        s = s + w[i] * e[i] + e[i] * (i as f64 + 1.0);
    }
    s
}

#[test]
fn into_iter_chains_stay_compiled() {
    assert_eq!(
        nll_of_consumed_grad_path(),
        autodiff::GradientPath::Compiled
    );
    assert_eq!(weighted_items_grad_path(), autodiff::GradientPath::Compiled);
    for z in [vec![0.3, -1.2, 2.0], vec![-4.0, 0.5, 0.25]] {
        // `compiled_agrees` checks that no callee reran on the tape.
        compiled_agrees(
            "nll_of_consumed",
            &z,
            |stack| nll_of_consumed_adjoint(stack, z.clone(), 1),
            || nll_of_consumed_grad(z.clone(), 1),
            || nll_of_consumed_grad_tape(z.clone(), 1),
            nll_of_consumed_dual,
        );
        let w = [0.5, -0.7, 1.5];
        compiled_agrees(
            "weighted_items",
            &[z.clone(), w.to_vec()].concat(),
            |stack| weighted_items_adjoint(stack, &z, w),
            || weighted_items_grad(&z, w),
            || weighted_items_grad_tape(&z, w),
            weighted_items_dual,
        );
        assert!(weighted_items_check(&z, w).unwrap().passed());
    }
}
