//! Course code factored into helpers against the same code written as one
//! function: a 2-layer MLP (`linear` returning the layer's outputs) and one
//! causal attention head (`matmul` and `softmax` returning rows), each timed
//! as its plain twin (inlined and factored), `f_grad` of the inlined
//! function and `f_grad` of the factored one; the MLP also by a
//! hand-written backward pass returning the same gradient (the floor for
//! any code that returns a gradient shaped like `Vec<Vec<f64>>` rows). At
//! two sizes: the course's small ones, where a helper call's fixed cost
//! (its vectors, the caller's adjoints of them, its checks) is a large
//! part of the work, and larger ones, where it is spread over more
//! arithmetic.
//!
//! Both versions of each take the compiled adjoint (the smoke test checks
//! that it runs without falling back to the tape): the factored head's
//! `softmax` called per row inside the loop saves its row of scores and
//! its value per trip, and each helper's reverse runs the closure its
//! forward saved (its forward runs once).
//!
//! `cargo bench --bench helpers` times it (`-- --rounds N`). Under `cargo
//! test` it is a test: each factored gradient equals the inlined one, and
//! the inlined one agrees with central differences.

// Index loops on purpose: the bodies read the matrices as the formulas
// index them.
#![allow(clippy::needless_range_loop)]

// The attention example's `matmul` and `softmax`, which the factored head
// calls.
#[path = "../examples/support/attention_layers.rs"]
#[allow(dead_code)]
mod attention_layers;
mod common;

use std::process::ExitCode;

use attention_layers::{matmul, softmax};
use autodiff::prelude::*;
use common::Row;

/// The sizes of one bench run's workloads.
#[derive(Clone, Copy)]
struct Sizes {
    d_in: usize,
    hidden: usize,
    t: usize,
    d: usize,
}

/// The course's small sizes, then larger ones.
const SIZES: [Sizes; 2] = [
    Sizes {
        d_in: 16,
        hidden: 32,
        t: 4,
        d: 3,
    },
    Sizes {
        d_in: 64,
        hidden: 64,
        t: 16,
        d: 16,
    },
];

/// `W x + b`, one output per row of `W`.
#[differentiable]
fn linear(w: &[Vec<f64>], b: &[f64], x: &[f64]) -> Vec<f64> {
    let mut out = Vec::new();
    for i in 0..b.len() {
        let mut s = b[i];
        for j in 0..x.len() {
            s += w[i][j] * x[j];
        }
        out.push(s);
    }
    out
}

/// The MLP as a student factors it: two `linear` layers and a `tanh`.
#[differentiable]
fn mlp_factored(
    w1: &[Vec<f64>],
    b1: &[f64],
    w2: &[Vec<f64>],
    b2: &[f64],
    #[constant] x: &[f64],
    #[constant] target: f64,
) -> f64 {
    let z = linear(w1, b1, x);
    let mut h = Vec::new();
    for i in 0..z.len() {
        h.push(z[i].tanh());
    }
    let y = linear(w2, b2, &h);
    let e = y[0] - target;
    e * e
}

/// The same network written out in one function.
#[differentiable]
fn mlp_inlined(
    w1: &[Vec<f64>],
    b1: &[f64],
    w2: &[Vec<f64>],
    b2: &[f64],
    #[constant] x: &[f64],
    #[constant] target: f64,
) -> f64 {
    let mut y = b2[0];
    for i in 0..b1.len() {
        let mut s = b1[i];
        for j in 0..x.len() {
            s += w1[i][j] * x[j];
        }
        y += w2[0][i] * s.tanh();
    }
    let e = y - target;
    e * e
}

/// The inlined MLP's gradient by a hand-written backward pass, as lesson 15
/// writes one: `tanh′ = 1 − tanh²` from the saved activations, each
/// gradient written once (no zeros first), no checks. Returns the loss and
/// `(W1̄, b̄1, W2̄, b̄2)`, shaped as `f_grad` shapes them.
#[allow(clippy::type_complexity)]
fn mlp_by_hand(
    w1: &[Vec<f64>],
    b1: &[f64],
    w2: &[Vec<f64>],
    b2: &[f64],
    x: &[f64],
    target: f64,
) -> (f64, (Vec<Vec<f64>>, Vec<f64>, Vec<Vec<f64>>, Vec<f64>)) {
    let mut y = b2[0];
    let mut h = vec![0.0; b1.len()];
    for i in 0..b1.len() {
        let mut s = b1[i];
        for j in 0..x.len() {
            s += w1[i][j] * x[j];
        }
        h[i] = s.tanh();
        y += w2[0][i] * h[i];
    }
    let e = y - target;
    let y_bar = 2.0 * e;
    let mut w1_bar = Vec::with_capacity(b1.len());
    let mut b1_bar = vec![0.0; b1.len()];
    let mut w2_bar = vec![0.0; b1.len()];
    for i in 0..b1.len() {
        w2_bar[i] = y_bar * h[i];
        let s_bar = y_bar * w2[0][i] * (1.0 - h[i] * h[i]);
        w1_bar.push(x.iter().map(|x| s_bar * x).collect());
        b1_bar[i] = s_bar;
    }
    (e * e, (w1_bar, b1_bar, vec![w2_bar], vec![y_bar]))
}

/// One causal head from helpers: `Σ Ō ⊙ softmax_row(QKᵀ/√d) V`.
#[differentiable]
fn head_factored(
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
        for j in 0..i + 1 {
            let mut dot = 0.0;
            for c in 0..q[i].len() {
                dot += q[i][c] * k[j][c];
            }
            s.push(dot * scale);
        }
        let p = softmax(&s);
        let mut row = Vec::new();
        for j in 0..q.len() {
            row.push(if j <= i { p[j] } else { 0.0 });
        }
        a.push(row);
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

/// The same head in one function.
#[differentiable]
fn head_inlined(
    x: &[Vec<f64>],
    wq: &[Vec<f64>],
    wk: &[Vec<f64>],
    wv: &[Vec<f64>],
    #[constant] o_bar: &[Vec<f64>],
) -> f64 {
    let n = x.len();
    let d = wq[0].len();
    let mut q = vec![vec![0.0; d]; n];
    let mut k = vec![vec![0.0; d]; n];
    let mut v = vec![vec![0.0; d]; n];
    for t in 0..n {
        for c in 0..d {
            for r in 0..x[t].len() {
                q[t][c] += x[t][r] * wq[r][c];
                k[t][c] += x[t][r] * wk[r][c];
                v[t][c] += x[t][r] * wv[r][c];
            }
        }
    }
    let scale = 1.0 / (d as f64).sqrt();
    let mut total = 0.0;
    for i in 0..n {
        let mut s = vec![0.0; i + 1];
        for j in 0..i + 1 {
            for c in 0..d {
                s[j] += q[i][c] * k[j][c];
            }
            s[j] *= scale;
        }
        let mut m = s[0];
        for j in 1..i + 1 {
            m = m.max(s[j]);
        }
        let mut e = vec![0.0; i + 1];
        let mut sum = 0.0;
        for j in 0..i + 1 {
            e[j] = (s[j] - m).exp();
            sum += e[j];
        }
        for c in 0..d {
            let mut o = 0.0;
            for j in 0..i + 1 {
                o += e[j] / sum * v[j][c];
            }
            total += o_bar[i][c] * o;
        }
    }
    total
}

struct Data {
    w1: Vec<Vec<f64>>,
    b1: Vec<f64>,
    w2: Vec<Vec<f64>>,
    b2: Vec<f64>,
    x: Vec<f64>,
    target: f64,
    hx: Vec<Vec<f64>>,
    wq: Vec<Vec<f64>>,
    wk: Vec<Vec<f64>>,
    wv: Vec<Vec<f64>>,
    o_bar: Vec<Vec<f64>>,
}

fn data(sizes: Sizes) -> Data {
    let Sizes { d_in, hidden, t, d } = sizes;
    let mut rng = common::Numbers::new(2026);
    let mut matrix = |rows: usize, cols: usize, scale: f64| -> Vec<Vec<f64>> {
        (0..rows)
            .map(|_| (0..cols).map(|_| scale * rng.next_f64()).collect())
            .collect()
    };
    let w1 = matrix(hidden, d_in, 0.3);
    let b1 = matrix(1, hidden, 0.1).remove(0);
    let w2 = matrix(1, hidden, 0.3);
    let b2 = vec![0.05];
    let x = matrix(1, d_in, 1.0).remove(0);
    let (hx, wq, wk, wv, o_bar) = (
        matrix(t, t, 1.0),
        matrix(t, d, 0.5),
        matrix(t, d, 0.5),
        matrix(t, d, 0.5),
        matrix(t, d, 1.0),
    );
    Data {
        w1,
        b1,
        w2,
        b2,
        x,
        target: 0.3,
        hx,
        wq,
        wk,
        wv,
        o_bar,
    }
}

fn flat(rows: &[Vec<f64>]) -> Vec<f64> {
    rows.iter().flatten().copied().collect()
}

fn main() -> ExitCode {
    common::bench_main("helpers", bench, smoke)
}

/// At every size, the factored gradients equal the inlined ones, which
/// (the MLP) equal the hand-written pass's; at the small size the inlined
/// ones also agree with central differences.
fn smoke() -> Result<(), String> {
    smoke_at(SIZES[0], true)?;
    smoke_at(SIZES[1], false)?;
    println!("helpers smoke: factored gradients equal the inlined ones, which pass their checks (run `cargo bench --bench helpers` to time)");
    Ok(())
}

fn smoke_at(sizes: Sizes, differences: bool) -> Result<(), String> {
    let d = data(sizes);
    let error = |e: ScalarAutodiffError| e.to_string();
    let f = mlp_factored_grad(&d.w1, &d.b1, &d.w2, &d.b2, &d.x, d.target).map_err(error)?;
    let i = mlp_inlined_grad(&d.w1, &d.b1, &d.w2, &d.b2, &d.x, d.target).map_err(error)?;
    let (fg, ig) = (&f.gradient, &i.gradient);
    let got = [flat(&fg.0), fg.1.clone(), flat(&fg.2), fg.3.clone()].concat();
    let want_mlp = [flat(&ig.0), ig.1.clone(), flat(&ig.2), ig.3.clone()].concat();
    if common::max_error(&got, &want_mlp) > 1e-12 || (f.value - i.value).abs() > 1e-12 {
        return Err("the factored MLP's gradient is not the inlined one's".into());
    }
    let (value, hand) = mlp_by_hand(&d.w1, &d.b1, &d.w2, &d.b2, &d.x, d.target);
    let by_hand = [flat(&hand.0), hand.1, flat(&hand.2), hand.3].concat();
    if common::max_error(&by_hand, &want_mlp) > 1e-12 || (value - i.value).abs() > 1e-12 {
        return Err("the hand-written MLP gradient is not the inlined one's".into());
    }
    if differences {
        let check = mlp_inlined_check(&d.w1, &d.b1, &d.w2, &d.b2, &d.x, d.target)
            .map_err(|e| e.to_string())?;
        if !check.passed() {
            return Err(format!("the inlined MLP fails its check:\n{check}"));
        }
    }
    let f = head_factored_grad(&d.hx, &d.wq, &d.wk, &d.wv, &d.o_bar).map_err(error)?;
    let i = head_inlined_grad(&d.hx, &d.wq, &d.wk, &d.wv, &d.o_bar).map_err(error)?;
    let (fg, ig) = (&f.gradient, &i.gradient);
    let got = [flat(&fg.0), flat(&fg.1), flat(&fg.2), flat(&fg.3)].concat();
    let want = [flat(&ig.0), flat(&ig.1), flat(&ig.2), flat(&ig.3)].concat();
    if common::max_error(&got, &want) > 1e-12 || (f.value - i.value).abs() > 1e-12 {
        return Err("the factored head's gradient is not the inlined one's".into());
    }
    if differences {
        let check =
            head_inlined_check(&d.hx, &d.wq, &d.wk, &d.wv, &d.o_bar).map_err(|e| e.to_string())?;
        if !check.passed() {
            return Err(format!("the inlined head fails its check:\n{check}"));
        }
    }
    // The factored MLP runs its compiled adjoint, the helper's reverse
    // included: no fallback to the tape at run time.
    let compiled = autodiff::__adjoint::with_stack(|stack| {
        mlp_factored_adjoint(stack, &d.w1, &d.b1, &d.w2, &d.b2, &d.x, d.target)
    })
    .ok_or("the factored MLP's compiled adjoint fell back to the tape")?;
    let got = [
        flat(&compiled.gradient.0),
        compiled.gradient.1.clone(),
        flat(&compiled.gradient.2),
        compiled.gradient.3.clone(),
    ]
    .concat();
    if common::max_error(&got, &want_mlp) > 1e-12 {
        return Err("the factored MLP's compiled adjoint disagrees".into());
    }
    // So does the factored head, `softmax` per row in its loop.
    let compiled = autodiff::__adjoint::with_stack(|stack| {
        head_factored_adjoint(stack, &d.hx, &d.wq, &d.wk, &d.wv, &d.o_bar)
    })
    .ok_or("the factored head's compiled adjoint fell back to the tape")?;
    let cg = &compiled.gradient;
    let got = [flat(&cg.0), flat(&cg.1), flat(&cg.2), flat(&cg.3)].concat();
    if common::max_error(&got, &want) > 1e-12 {
        return Err("the factored head's compiled adjoint disagrees".into());
    }
    for (name, path) in [
        ("mlp_inlined", mlp_inlined_grad_path()),
        ("mlp_factored", mlp_factored_grad_path()),
        ("head_inlined", head_inlined_grad_path()),
        ("head_factored", head_factored_grad_path()),
    ] {
        if path != autodiff::GradientPath::Compiled {
            return Err(format!("{name} keeps the tape: {path:?}"));
        }
    }
    Ok(())
}

/// A gradient's value, NaN for an error (the smoke test checks for none).
fn value<G>(result: Result<ValueAndGradient<G>, ScalarAutodiffError>) -> f64 {
    result.map_or(f64::NAN, |r| r.value)
}

fn bench(args: &[String]) -> Result<(), String> {
    let rounds = common::rounds(args)?;
    smoke()?;
    let data: Vec<(Sizes, Data)> = SIZES.iter().map(|&sizes| (sizes, data(sizes))).collect();
    let mut rows = Vec::new();
    for (sizes, d) in &data {
        let Sizes {
            d_in,
            hidden,
            t,
            d: width,
        } = *sizes;
        let mlp = format!("MLP {d_in}→{hidden}→1");
        let head = format!("attention head T={t}, d={width}");
        // Iterations per sample, for samples of some tens of µs.
        let scale = d_in * hidden / 512;
        let head_scale = (t * t * width / 48).max(1);
        // (engine, iterations per sample at the small sizes, one call)
        type Run<'a> = Box<dyn FnMut() -> f64 + 'a>;
        let mlp_rows: [(&str, usize, Run); 5] = [
            (
                common::PLAIN,
                2000,
                Box::new(|| {
                    let w1 = std::hint::black_box(&d.w1);
                    mlp_inlined(w1, &d.b1, &d.w2, &d.b2, &d.x, d.target)
                }),
            ),
            (
                "factored: plain f64 (forward only)",
                2000,
                Box::new(|| {
                    let w1 = std::hint::black_box(&d.w1);
                    mlp_factored(w1, &d.b1, &d.w2, &d.b2, &d.x, d.target)
                }),
            ),
            (
                "hand-written backward (same gradient shape)",
                1000,
                Box::new(|| mlp_by_hand(&d.w1, &d.b1, &d.w2, &d.b2, &d.x, d.target).0),
            ),
            (
                "inlined: f_grad (compiled adjoint)",
                1000,
                Box::new(|| value(mlp_inlined_grad(&d.w1, &d.b1, &d.w2, &d.b2, &d.x, d.target))),
            ),
            (
                "factored: f_grad (compiled adjoint)",
                1000,
                Box::new(|| {
                    value(mlp_factored_grad(
                        &d.w1, &d.b1, &d.w2, &d.b2, &d.x, d.target,
                    ))
                }),
            ),
        ];
        let head_rows: [(&str, usize, Run); 5] = [
            (
                common::PLAIN,
                5000,
                Box::new(|| {
                    let x = std::hint::black_box(&d.hx);
                    head_inlined(x, &d.wq, &d.wk, &d.wv, &d.o_bar)
                }),
            ),
            (
                "factored: plain f64 (forward only)",
                5000,
                Box::new(|| {
                    let x = std::hint::black_box(&d.hx);
                    head_factored(x, &d.wq, &d.wk, &d.wv, &d.o_bar)
                }),
            ),
            (
                "inlined: f_grad (compiled adjoint)",
                2000,
                Box::new(|| value(head_inlined_grad(&d.hx, &d.wq, &d.wk, &d.wv, &d.o_bar))),
            ),
            (
                "factored: f_grad (compiled adjoint)",
                2000,
                Box::new(|| value(head_factored_grad(&d.hx, &d.wq, &d.wk, &d.wv, &d.o_bar))),
            ),
            (
                "factored: f_grad_tape (the tape)",
                500,
                Box::new(|| {
                    value(head_factored_grad_tape(
                        &d.hx, &d.wq, &d.wk, &d.wv, &d.o_bar,
                    ))
                }),
            ),
        ];
        rows.extend(
            mlp_rows
                .into_iter()
                .map(|(engine, n, run)| Row::new(&mlp, engine, 0, n / scale, run)),
        );
        rows.extend(
            head_rows
                .into_iter()
                .map(|(engine, n, run)| Row::new(&head, engine, 0, n / head_scale, run)),
        );
    }
    println!("helpers bench: {rounds} rounds, each row timed once per round in turn");
    println!(
        "mlp_factored: {:?}; head_factored: {:?}",
        mlp_factored_grad_path(),
        head_factored_grad_path()
    );
    common::run_round_robin(&mut rows, rounds)?;
    println!();
    println!("| workload | engine | median µs/iter | × plain f64 | × inlined f_grad |");
    println!("|---|---|---:|---:|---:|");
    for row in &rows {
        let median_of = |engine: &str| {
            rows.iter()
                .find(|r| r.workload == row.workload && r.engine == engine)
                .map_or(f64::NAN, |r| common::median(&r.samples))
        };
        let med = common::median(&row.samples);
        println!(
            "| {} | {} | {:.2} | {:.1} | {:.2} |",
            row.workload,
            row.engine,
            med / 1e3,
            med / median_of(common::PLAIN),
            med / median_of("inlined: f_grad (compiled adjoint)"),
        );
    }
    Ok(())
}
