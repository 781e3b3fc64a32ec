//! Code written as a newcomer writes it (ADBench's GMM, bundle adjustment
//! and k-means from their definitions) keeps the compiled adjoint: a
//! counted index (`l[idx]; idx += 1`), ... Each function here has an
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

use autodiff::__adjoint::{with_stack, Stack};
use autodiff::prelude::*;

const AGREE: f64 = 1e-12;

/// Every component of `got` within `AGREE` of the largest of `want`.
fn assert_agree(name: &str, got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{name}: lengths");
    let scale = want.iter().fold(1e-300_f64, |m, g| m.max(g.abs()));
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        assert!(
            (a - b).abs() <= AGREE * scale,
            "{name}: component {k}: {a} vs {b}"
        );
    }
}

/// Runs a compiled adjoint on a fresh stack: it must return `Some` (the
/// compiled path, all finite) and leave the stack empty.
fn compiled<G>(run: impl FnOnce(&mut Stack) -> Option<ValueAndGradient<G>>) -> ValueAndGradient<G> {
    with_stack(|stack| {
        let result = run(stack).expect("compiled and finite");
        assert!(
            stack.is_empty(),
            "the reverse popped what the forward pushed"
        );
        result
    })
}

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
// Forward mode on dual numbers: the oracle for the realistic functions.
// ---------------------------------------------------------------------

/// `value + dot·ε`, ε² = 0: one directional derivative.
#[derive(Clone, Copy, Debug)]
struct D(f64, f64);

impl D {
    fn c(v: f64) -> D {
        D(v, 0.0)
    }
    fn exp(self) -> D {
        let e = self.0.exp();
        D(e, e * self.1)
    }
    fn ln(self) -> D {
        D(self.0.ln(), self.1 / self.0)
    }
    fn min(self, o: D) -> D {
        if self.0 < o.0 {
            self
        } else {
            o
        }
    }
}

impl std::ops::Add for D {
    type Output = D;
    fn add(self, o: D) -> D {
        D(self.0 + o.0, self.1 + o.1)
    }
}

impl std::ops::Sub for D {
    type Output = D;
    fn sub(self, o: D) -> D {
        D(self.0 - o.0, self.1 - o.1)
    }
}

impl std::ops::Mul for D {
    type Output = D;
    fn mul(self, o: D) -> D {
        D(self.0 * o.0, self.1 * o.0 + self.0 * o.1)
    }
}

impl std::ops::Div for D {
    type Output = D;
    fn div(self, o: D) -> D {
        D(self.0 / o.0, (self.1 * o.0 - self.0 * o.1) / (o.0 * o.0))
    }
}

/// The value and gradient of `f` at `inputs` (flat), by one forward pass
/// per component.
fn forward_mode(inputs: &[f64], f: impl Fn(&[D]) -> D) -> (f64, Vec<f64>) {
    let mut value = 0.0;
    let gradient = (0..inputs.len())
        .map(|k| {
            let seeded: Vec<D> = inputs
                .iter()
                .enumerate()
                .map(|(j, &v)| D(v, if j == k { 1.0 } else { 0.0 }))
                .collect();
            let out = f(&seeded);
            value = out.0;
            out.1
        })
        .collect();
    (value, gradient)
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

fn q_norm_dual(v: &[D], d: usize) -> D {
    let (x, rest) = v.split_at(d);
    let (mu, rest) = rest.split_at(d);
    let (q, l) = rest.split_at(d);
    let xc: Vec<D> = (0..d).map(|i| x[i] - mu[i]).collect();
    let mut s = D::c(0.0);
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
    D::c(0.5) * s
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
    let oracle = forward_mode(&cat(&[&x, &mu, &q, &l]), |v| q_norm_dual(v, 4));
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
