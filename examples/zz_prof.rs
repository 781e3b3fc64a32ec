#![allow(clippy::needless_range_loop, dead_code)]
#[path = "/work/main/examples/support/attention_layers.rs"]
mod attention_layers;
use attention_layers::{matmul, softmax};
use autodiff::prelude::*;
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
struct Counting;
static ALLOCS: AtomicUsize = AtomicUsize::new(0);
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, n: usize) -> *mut u8 {
        ALLOCS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(p, l, n) }
    }
}
#[global_allocator]
static A: Counting = Counting;
const D_IN: usize = 16;
const HIDDEN: usize = 32;

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

const T: usize = 4;
const D: usize = 3;

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

fn m(r: usize, c: usize, s: f64) -> Vec<Vec<f64>> {
    (0..r)
        .map(|i| {
            (0..c)
                .map(|j| s * (((i * 31 + j * 17) % 13) as f64 / 13.0 - 0.5))
                .collect()
        })
        .collect()
}
fn main() {
    let which = std::env::args().nth(1).unwrap();
    let n: usize = std::env::args().nth(2).unwrap().parse().unwrap();
    let (w1, b1, w2, b2, x) = (
        m(HIDDEN, D_IN, 0.3),
        m(1, HIDDEN, 0.1).remove(0),
        m(1, HIDDEN, 0.3),
        vec![0.05],
        m(1, D_IN, 1.0).remove(0),
    );
    let (hx, wq, wk, wv, ob) = (
        m(T, T, 1.0),
        m(T, D, 0.5),
        m(T, D, 0.5),
        m(T, D, 0.5),
        m(T, D, 1.0),
    );
    let mut acc = 0.0;
    let a0 = ALLOCS.load(Ordering::Relaxed);
    let t = std::time::Instant::now();
    for _ in 0..n {
        acc += match which.as_str() {
            "mf" => {
                mlp_factored_grad(&w1, &b1, &w2, &b2, &x, 0.3)
                    .unwrap()
                    .value
            }
            "mi" => mlp_inlined_grad(&w1, &b1, &w2, &b2, &x, 0.3).unwrap().value,
            "mp" => mlp_factored(&w1, &b1, &w2, &b2, &x, 0.3),
            "mpi" => mlp_inlined(&w1, &b1, &w2, &b2, &x, 0.3),
            "hf" => head_factored_grad(&hx, &wq, &wk, &wv, &ob).unwrap().value,
            "hi" => head_inlined_grad(&hx, &wq, &wk, &wv, &ob).unwrap().value,
            "hp" => head_factored(&hx, &wq, &wk, &wv, &ob),
            "hpi" => head_inlined(&hx, &wq, &wk, &wv, &ob),
            _ => panic!(),
        };
    }
    let dt = t.elapsed();
    println!(
        "{which}: {:.3} us/call, {} allocs/call ({acc})",
        dt.as_secs_f64() * 1e6 / n as f64,
        (ALLOCS.load(Ordering::Relaxed) - a0) / n
    );
}
