//! The 64→64→1 tanh MLP written the way a student writes it: an ordinary
//! function with `#[differentiable]`, timed as one gradient against its
//! plain twin: `mlp_loss_grad` (the compiled adjoint), and the tape path,
//! `mlp_loss_grad_tape` on the thread's reused tape; then one
//! Hessian-vector product, `mlp_loss_hvp` (the compiled adjoint on dual
//! numbers) and `mlp_loss_hvp_tape` (the tape), on it, the same network
//! factored into a helper per hidden unit (`factored_mlp_loss`, whose
//! `f_hvp` runs the helper's dual sweep), and `loss_hvp` on
//! the two-moons loss of `examples/moons.rs` (a `#[derive(Parameters)]`
//! model, whose `f_hvp` runs the dual sweep on the model's twin, calling
//! `model.score(x)`'s), each beside its own plain twin, `f_grad` and the
//! tape's `f_hvp`.
//!
//! `cargo bench --bench annotated_mlp` times it (`-- --rounds N`). Under
//! `cargo test` (no `--bench` argument) it is a test instead: the macro's
//! gradient is checked against the hand-written reverse pass of the same
//! network in `benches/common`, and each `f_hvp` against central
//! differences of its `f_grad` along the direction.

mod common;
// The two-moons model of `examples/moons.rs`, which loads its own copy of
// the splitmix generator that `common` loads too.
#[path = "../examples/support/moons.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod moons;

use std::process::ExitCode;

use autodiff::prelude::*;
// The trait, by another name: this file names its own `Parameters` struct.
use autodiff::Parameters as _;
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

/// One hidden unit, `tanh(b + w·x)`: the same network factored into a
/// helper, as course code is, whose `f_hvp` runs the helper's dual sweep
/// inside the loss's.
#[differentiable]
fn mlp_unit(w: &[f64], b: f64, #[constant] x: &[f64]) -> f64 {
    let mut z = b;
    for i in 0..x.len() {
        z += w[i] * x[i];
    }
    z.tanh()
}

/// [`mlp_loss`] with each hidden unit a call of [`mlp_unit`].
#[differentiable]
fn factored_mlp_loss(
    w1: &[[f64; INPUTS]],
    b1: &[f64],
    w2: &[f64],
    b2: f64,
    #[constant] x: &[f64],
    #[constant] target: f64,
) -> f64 {
    let mut y = b2;
    for j in 0..w1.len() {
        y += w2[j] * mlp_unit(&w1[j], b1[j], x);
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
    check_mlp_hvp(&p, &mlp)?;
    check_moons_hvp()?;
    println!("annotated MLP smoke: gradient matches the hand-written pass, f_hvp the central differences of f_grad (run `cargo bench --bench annotated_mlp` to time)");
    Ok(())
}

/// A direction of the MLP's shape: every parameter moves, by different
/// amounts.
fn mlp_direction(p: &Parameters) -> Parameters {
    let mut rng = common::Numbers::new(99);
    let mut draw = || 0.5 * rng.next_f64();
    Parameters {
        w1: p.w1.iter().map(|row| row.map(|_| draw())).collect(),
        b1: p.b1.iter().map(|_| draw()).collect(),
        w2: p.w2.iter().map(|_| draw()).collect(),
        b2: draw(),
    }
}

/// `p + t·v`.
fn moved(p: &Parameters, v: &Parameters, t: f64) -> Parameters {
    let along =
        |a: &[f64], b: &[f64]| -> Vec<f64> { a.iter().zip(b).map(|(x, y)| x + t * y).collect() };
    Parameters {
        w1: p
            .w1
            .iter()
            .zip(&v.w1)
            .map(|(a, b)| std::array::from_fn(|i| a[i] + t * b[i]))
            .collect(),
        b1: along(&p.b1, &v.b1),
        w2: along(&p.w2, &v.w2),
        b2: p.b2 + t * v.b2,
    }
}

/// `(∇f(p + hv) − ∇f(p − hv)) / 2h` against `f_hvp`'s `H·v`, and its
/// gradient against `f_grad`'s.
fn compare_hvp(hvp: &[f64], differences: &[f64], what: &str) -> Result<(), String> {
    let scale = differences.iter().fold(1.0_f64, |m, d| m.max(d.abs()));
    let error = max_error(hvp, differences);
    if error > 1e-6 * scale {
        return Err(format!(
            "{what}: f_hvp disagrees with central differences of f_grad: max error {error:e} (scale {scale:e})"
        ));
    }
    Ok(())
}

fn check_mlp_hvp(p: &Parameters, mlp: &Mlp) -> Result<(), String> {
    let v = mlp_direction(p);
    let grad = |q: &Parameters| -> Result<Vec<f64>, String> {
        let result = mlp_loss_grad(&q.w1, &q.b1, &q.w2, q.b2, &mlp.x, mlp.target)
            .map_err(|e| e.to_string())?;
        Ok(flat_gradient(result.gradient))
    };
    let direction = || (v.w1.clone(), v.b1.clone(), v.w2.clone(), v.b2);
    let compiled_before = autodiff::__adjoint::compiled_hvps();
    let result = mlp_loss_hvp(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target, direction())
        .map_err(|e| e.to_string())?;
    if autodiff::__adjoint::compiled_hvps() != compiled_before + 1 {
        return Err("the MLP's f_hvp did not run the compiled adjoint".into());
    }
    let tape = autodiff::__private::second_order_on_tape(|| {
        mlp_loss_hvp(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target, direction())
    })
    .map_err(|e| e.to_string())?;
    let (compiled, taped) = (flat_gradient(result.hvp.clone()), flat_gradient(tape.hvp));
    if max_error(&compiled, &taped) > 1e-12 {
        return Err("the MLP's compiled f_hvp is not the tape's".into());
    }
    let compiled_before = autodiff::__adjoint::compiled_hvps();
    let factored =
        factored_mlp_loss_hvp(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target, direction())
            .map_err(|e| e.to_string())?;
    if autodiff::__adjoint::compiled_hvps() != compiled_before + 1 {
        return Err("the factored MLP's f_hvp did not run the compiled adjoint".into());
    }
    if max_error(&flat_gradient(factored.hvp), &taped) > 1e-12 {
        return Err("the factored MLP's compiled f_hvp is not the tape's".into());
    }
    let h = 1e-5;
    let (up, down) = (grad(&moved(p, &v, h))?, grad(&moved(p, &v, -h))?);
    let differences: Vec<f64> = up
        .iter()
        .zip(&down)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect();
    if max_error(&flat_gradient(result.gradient), &grad(p)?) > 1e-12 {
        return Err("the MLP's f_hvp gradient is not f_grad's".into());
    }
    compare_hvp(&flat_gradient(result.hvp), &differences, "MLP")
}

fn check_moons_hvp() -> Result<(), String> {
    let (data, model) = moons::setup();
    let mut v = model.zeroed();
    let mut rng = common::Numbers::new(7);
    v.update(&model, |d, _| *d = 0.5 * rng.next_f64())
        .map_err(|e| e.to_string())?;
    let grad = |t: f64| -> Result<Vec<f64>, String> {
        let mut q = model.clone();
        q.update(&v, |x, d| *x += t * d)
            .map_err(|e| e.to_string())?;
        Ok(moons::loss_grad(&q, &data)
            .map_err(|e| e.to_string())?
            .gradient
            .scalars())
    };
    let result = moons::loss_hvp(&model, &data, v.clone()).map_err(|e| e.to_string())?;
    let h = 1e-5;
    let (up, down) = (grad(h)?, grad(-h)?);
    let differences: Vec<f64> = up
        .iter()
        .zip(&down)
        .map(|(a, b)| (a - b) / (2.0 * h))
        .collect();
    if max_error(&result.gradient.scalars(), &grad(0.0)?) > 1e-12 {
        return Err("the moons loss's f_hvp gradient is not f_grad's".into());
    }
    compare_hvp(&result.hvp.scalars(), &differences, "two moons")
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
    let v = &mlp_direction(p);
    let workload = format!("annotated MLP {INPUTS}→{HIDDEN}→1");
    let operations = mlp.operations();
    let row =
        |engine: &str, iterations, run| Row::new(&workload, engine, operations, iterations, run);
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
    let direction = || (v.w1.clone(), v.b1.clone(), v.w2.clone(), v.b2);
    rows.push(row(
        "mlp_loss_hvp (forward over reverse, compiled)",
        1000,
        Box::new(move || {
            mlp_loss_hvp(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target, direction())
                .map_or(f64::NAN, |r| r.value + r.hvp.3)
        }),
    ));
    rows.push(row(
        "factored_mlp_loss_grad (a helper per unit)",
        1000,
        Box::new(|| {
            factored_mlp_loss_grad(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target)
                .map_or(f64::NAN, |r| r.value + r.gradient.3)
        }),
    ));
    rows.push(row(
        "factored_mlp_loss_hvp (the helper's dual sweep)",
        1000,
        Box::new(move || {
            factored_mlp_loss_hvp(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target, direction())
                .map_or(f64::NAN, |r| r.value + r.hvp.3)
        }),
    ));
    rows.push(row(
        "mlp_loss_hvp_tape (on the tape)",
        100,
        Box::new(move || {
            autodiff::__private::second_order_on_tape(|| {
                mlp_loss_hvp(&p.w1, &p.b1, &p.w2, p.b2, &mlp.x, mlp.target, direction())
            })
            .map_or(f64::NAN, |r| r.value + r.hvp.3)
        }),
    ));
    println!("annotated MLP bench: {rounds} rounds, each row timed once per round in turn");
    common::run_round_robin(&mut rows, rounds)?;
    println!();
    print!("{}", common::table(&rows));

    // The two-moons loss: a model of Vecs of layers, relu, 100 points.
    let (data, model) = &moons::setup();
    let mut v = model.zeroed();
    let mut rng = common::Numbers::new(7);
    v.update(model, |d, _| *d = 0.5 * rng.next_f64())
        .map_err(|e| e.to_string())?;
    let v = &v;
    // Its operations: the nodes one recording puts on a tape.
    let mut tape = autodiff::Tape::new();
    moons::loss_grad_tape_on(&mut tape, model, data).map_err(|e| e.to_string())?;
    let operations = tape.len();
    let workload = "two-moons loss, MLP 2→16→16→1, 100 points";
    let moons_row =
        |engine: &str, iterations, run| Row::new(workload, engine, operations, iterations, run);
    let mut rows = vec![
        moons_row(
            common::PLAIN,
            200,
            Box::new(|| moons::loss(std::hint::black_box(model), data)),
        ),
        moons_row(
            "loss_grad",
            50,
            Box::new(|| moons::loss_grad(model, data).map_or(f64::NAN, |r| r.value)),
        ),
        moons_row(
            "loss_hvp (compiled, on the model's twin)",
            20,
            Box::new(|| moons::loss_hvp(model, data, v.clone()).map_or(f64::NAN, |r| r.value)),
        ),
        moons_row(
            "loss_hvp_tape",
            20,
            Box::new(|| moons::loss_hvp_tape(model, data, v.clone()).map_or(f64::NAN, |r| r.value)),
        ),
    ];
    common::run_round_robin(&mut rows, rounds)?;
    println!();
    print!("{}", common::table(&rows));
    Ok(())
}
