use autodiff::prelude::*;
use std::time::Instant;
const INPUTS: usize = 64;
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
fn main() {
    let mut s = 0.1f64;
    let mut r = || {
        s = (s * 9301.0 + 49297.0) % 233280.0;
        s / 233280.0 - 0.5
    };
    let w1: Vec<[f64; 64]> = (0..64)
        .map(|_| std::array::from_fn(|_| r() * 0.2))
        .collect();
    let b1: Vec<f64> = (0..64).map(|_| r()).collect();
    let w2: Vec<f64> = (0..64).map(|_| r()).collect();
    let x: Vec<f64> = (0..64).map(|_| r()).collect();
    let d = (w1.clone(), b1.clone(), w2.clone(), 0.3);
    let best = |f: &mut dyn FnMut()| {
        let mut b = f64::MAX;
        for _ in 0..200 {
            let t = Instant::now();
            for _ in 0..20 {
                f();
            }
            b = b.min(t.elapsed().as_secs_f64() / 20.0 * 1e6);
        }
        b
    };
    let g = best(&mut || {
        std::hint::black_box(mlp_loss_grad(&w1, &b1, &w2, 0.1, &x, 0.5).unwrap());
    });
    let h = best(&mut || {
        std::hint::black_box(mlp_loss_hvp(&w1, &b1, &w2, 0.1, &x, 0.5, d.clone()).unwrap());
    });
    let j = best(&mut || {
        std::hint::black_box(mlp_loss_jvp(&w1, &b1, &w2, 0.1, &x, 0.5, d.clone()).unwrap());
    });
    println!(
        "grad {g:.1} µs, hvp {h:.1} µs ({:.2}×), jvp {j:.1} µs",
        h / g
    );
}
