//! The 64→64→1 tanh MLP written the way a student writes it: an ordinary
//! function with `#[differentiable]`, timed as one gradient against its
//! plain twin: `mlp_loss_grad` (the compiled adjoint), and the tape path,
//! `mlp_loss_grad_tape` on the thread's reused tape.
//!
//! `cargo bench --bench annotated_mlp` times it (`-- --rounds N`). Under
//! `cargo test` (no `--bench` argument) it is a test instead: the macro's
//! gradient is checked against the hand-written reverse pass of the same
//! network in `benches/common`.

mod common;

use std::process::ExitCode;

use autodiff::prelude::*;
use common::{max_error, Mlp, Row};

const INPUTS: usize = 64;
const HIDDEN: usize = 64;

/// `(b₂ + Σⱼ w₂ⱼ·tanh(b₁ⱼ + Σᵢ W₁ⱼᵢ·xᵢ) − t)²`, the same network and the same
/// order of operations as `common::Mlp`.
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

/// The network's parameters in the annotated function's shapes.
struct Parameters {
    w1: Vec<[f64; INPUTS]>,
    b1: Vec<f64>,
    w2: Vec<f64>,
    b2: f64,
}

impl Parameters {
    fn from(mlp: &Mlp) -> Self {
        let (w1, b1, w2, &b2) = mlp.split(&mlp.params);
        Self {
            w1: w1
                .chunks(INPUTS)
                .map(|row| row.try_into().expect("rows of INPUTS"))
                .collect(),
            b1: b1.to_vec(),
            w2: w2.to_vec(),
            b2,
        }
    }
}

/// The macro's gradient, flattened in `common::Mlp`'s parameter order.
fn flat_gradient(gradient: (Vec<[f64; INPUTS]>, Vec<f64>, Vec<f64>, f64)) -> Vec<f64> {
    let (w1, b1, w2, b2) = gradient;
    let mut flat: Vec<f64> = w1.iter().flatten().copied().collect();
    flat.extend(b1);
    flat.extend(w2);
    flat.push(b2);
    flat
}

fn main() -> ExitCode {
    common::bench_main("annotated_mlp", bench, smoke)
}

/// The gradient through the macro equals the hand-written reverse pass.
fn smoke() -> Result<(), String> {
    let mlp = Mlp::new(INPUTS, HIDDEN);
    let p = Parameters::from(&mlp);
    let mut want = Vec::new();
    let loss = mlp.gradient_by_hand(&mlp.params, &mut want);
    let result =
        mlp_loss_grad(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target).map_err(|e| e.to_string())?;
    let got = flat_gradient(result.gradient);
    let error = max_error(&got, &want);
    if error > 1e-12 || (result.value - loss).abs() > 1e-12 {
        return Err(format!(
            "macro gradient disagrees with the hand-written pass: max error {error:e}, loss {} vs {loss}",
            result.value
        ));
    }
    if mlp_loss(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target) != mlp.loss(&mlp.params) {
        return Err("the twin is not the plain function".into());
    }
    println!("annotated MLP smoke: gradient matches the hand-written pass (run `cargo bench --bench annotated_mlp` to time)");
    Ok(())
}

fn bench(args: &[String]) -> Result<(), String> {
    let rounds = common::rounds(args)?;
    // The check runs on a thread of its own: the tapes it records leave
    // their memory to their thread, and the timed rows should start from
    // the same state whatever the engine keeps per thread.
    std::thread::scope(|scope| scope.spawn(smoke).join())
        .map_err(|_| "the smoke check panicked".to_string())??;
    let mlp = &Mlp::new(INPUTS, HIDDEN);
    let p = &Parameters::from(mlp);
    let workload = format!("annotated MLP {INPUTS}→{HIDDEN}→1");
    let operations = mlp.operations();
    let row = |engine: &str, iterations, run| Row {
        workload: workload.clone(),
        engine: engine.to_string(),
        operations,
        run,
        iterations,
        samples: Vec::new(),
    };
    let mut rows = vec![
        row(
            common::PLAIN,
            2000,
            Box::new(|| {
                mlp_loss(
                    std::hint::black_box(&p.w1),
                    &p.b1,
                    &p.w2,
                    p.b2,
                    &mlp.x,
                    mlp.target,
                )
            }),
        ),
        row(
            "mlp_loss_grad (compiled adjoint)",
            1000,
            Box::new(|| {
                mlp_loss_grad(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target)
                    .map_or(f64::NAN, |r| r.value + r.gradient.3)
            }),
        ),
        row(
            "mlp_loss_grad_tape (the tape path)",
            100,
            Box::new(|| {
                mlp_loss_grad_tape(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target)
                    .map_or(f64::NAN, |r| r.value + r.gradient.3)
            }),
        ),
    ];
    println!("annotated MLP bench: {rounds} rounds, each row timed once per round in turn");
    common::run_round_robin(&mut rows, rounds)?;
    println!();
    print!("{}", common::table(&rows));
    Ok(())
}
