//! Lesson 06's stability bound made visible: gradient descent with step `η`
//! is stable along the Hessian's top eigenvector only while `η < 2/λ_max`.
//!
//! (a) A least-squares fit of a linear model `w₀x₀ + w₁x₁ + b` to fixed
//! data: its loss is quadratic, so its Hessian is the same everywhere.
//! `λ_max` by power iteration on `ls_loss_hvp` alone (Hessian-vector
//! products, no matrix) is checked against the largest eigenvalue of the
//! dense matrix from `ls_loss_hessian` (Jacobi's method, all eigenvalues);
//! then gradient descent runs at `η = 1.9/λ_max` (converges), `2.0/λ_max`
//! (the top direction neither shrinks nor grows) and `2.1/λ_max`
//! (diverges).
//!
//! (b) The same power iteration on `loss_hvp` of the two-moons MLP
//! (`examples/support/moons.rs`, 337 parameters), every few steps of its
//! 100 training steps, beside `2/η` of the decaying learning-rate schedule.
//!
//! The hinge loss and the ReLUs make that loss piecewise smooth: the
//! Hessian measured is the one of the piece the weights are on, blind to
//! the kinks, which is what `η < 2/λ_max` speaks about too.
//!
//! Writes both panels to `docs/sharpness.svg`.
//!
//! `cargo run --release --example sharpness`

// Index loops on purpose: the loss and Jacobi's rotations index as the
// formulas write them.
#![allow(clippy::needless_range_loop)]

#[path = "support/moons.rs"]
mod moons;

use std::error::Error;
use std::time::Instant;

use autodiff::prelude::*;
use plotters::prelude::*;

/// One point of the least-squares data.
#[derive(Clone, Copy, Debug)]
struct Point {
    x: [f64; 2],
    y: f64,
}

/// Mean squared error of `w₀x₀ + w₁x₁ + b`, `w = [w₀, w₁, b]`. Quadratic in
/// `w`: its Hessian is `(2/N) Σ [x₀, x₁, 1]ᵀ[x₀, x₁, 1]` at every `w`.
#[differentiable]
fn ls_loss(w: [f64; 3], #[constant] data: &[Point]) -> f64 {
    let mut total = 0.0;
    for n in 0..data.len() {
        let e = w[0] * data[n].x[0] + w[1] * data[n].x[1] + w[2] - data[n].y;
        total += e * e;
    }
    total / data.len() as f64
}

/// 16 fixed points on the plane `y = 1.5x₀ − 2x₁ + 0.7` (no noise: the
/// smallest loss is 0, and the log plot shows the rates alone).
fn least_squares_data() -> Vec<Point> {
    (0..16)
        .map(|i| {
            let x = [
                -1.5 + 3.0 * i as f64 / 15.0,
                1.2 * (2.1 * i as f64).sin() + 0.3,
            ];
            Point {
                x,
                y: 1.5 * x[0] - 2.0 * x[1] + 0.7,
            }
        })
        .collect()
}

/// `Σ aᵢbᵢ` over every scalar of two parameter sets of one shape.
fn dot<P: Parameters>(a: &P, b: &P) -> f64 {
    a.scalars()
        .iter()
        .zip(b.scalars())
        .map(|(x, y)| x * y)
        .sum()
}

/// The result of a power iteration.
struct Eigen<P> {
    /// The eigenvalue found.
    value: f64,
    /// Its eigenvector, of norm 1.
    vector: P,
    /// Hessian-vector products spent.
    products: usize,
    /// Whether the tolerance was met before the cap.
    converged: bool,
}

/// The last iterate of a power iteration on `A = H − shift·I`.
struct Iterate<P> {
    /// `v·Av` for the final unit vector `v`.
    quotient: f64,
    /// `‖Av‖`, which tends to `A`'s spectral radius.
    norm: f64,
    vector: P,
    products: usize,
    converged: bool,
}

/// Power iteration on `A = H − shift·I` from `start`, with `hvp(v) = H·v`:
/// `v ← Av/‖Av‖` until `‖Av‖` changes by at most `tolerance` relatively, or
/// `cap` products. `‖Av‖` converges to `A`'s spectral radius even when its
/// two extreme eigenvalues are `±ρ` (then `v` keeps turning in their plane
/// and the Rayleigh quotient `v·Av` never settles).
fn power_iteration<P: Parameters>(
    start: P,
    shift: f64,
    tolerance: f64,
    cap: usize,
    mut hvp: impl FnMut(&P) -> Result<P, Box<dyn Error>>,
) -> Result<Iterate<P>, Box<dyn Error>> {
    let mut v = start;
    let norm = v.norm();
    v.update(&v.clone(), |x, _| *x /= norm)?;
    let mut previous = f64::NAN;
    let mut products = 0;
    loop {
        let mut w = hvp(&v)?;
        products += 1;
        w.update(&v, |h, x| *h -= shift * x)?;
        let quotient = dot(&v, &w);
        let norm = w.norm();
        if norm == 0.0 || !norm.is_finite() {
            return Err(format!("power iteration: ‖A·v‖ = {norm}").into());
        }
        v.update(&w, |x, h| *x = h / norm)?;
        let converged = (norm - previous).abs() <= tolerance * norm;
        if converged || products == cap {
            return Ok(Iterate {
                quotient,
                norm,
                vector: v,
                products,
                converged,
            });
        }
        previous = norm;
    }
}

/// The largest (most positive) eigenvalue of a symmetric `H`, from
/// Hessian-vector products only. A first power iteration on `H` gives the
/// spectral radius `ρ`; if its Rayleigh quotient is `+ρ`, the dominant
/// eigenvalue is positive and is `λ_max`. Otherwise (the dominant one is
/// negative, or both `±ρ` are eigenvalues) a second run on `H + ρI`, whose
/// eigenvalues `λ + ρ` are all ≥ 0, finds `λ_max + ρ`.
fn largest_eigenvalue<P: Parameters>(
    start: P,
    tolerance: f64,
    cap: usize,
    mut hvp: impl FnMut(&P) -> Result<P, Box<dyn Error>>,
) -> Result<Eigen<P>, Box<dyn Error>> {
    let first = power_iteration(start.clone(), 0.0, tolerance, cap, &mut hvp)?;
    if first.quotient >= first.norm * (1.0 - (100.0 * tolerance).min(1e-3)) {
        return Ok(Eigen {
            value: first.quotient,
            vector: first.vector,
            products: first.products,
            converged: first.converged,
        });
    }
    let rho = first.norm;
    let second = power_iteration(start, -rho, tolerance, cap, &mut hvp)?;
    Ok(Eigen {
        value: second.quotient - rho,
        vector: second.vector,
        products: first.products + second.products,
        converged: first.converged && second.converged,
    })
}

/// All eigenvalues of a symmetric matrix by cyclic Jacobi rotations,
/// largest first: independent of the power iteration.
fn jacobi_eigenvalues(mut a: Vec<Vec<f64>>) -> Vec<f64> {
    let n = a.len();
    for _sweep in 0..100 {
        let off: f64 = (0..n)
            .flat_map(|i| (0..n).filter(move |&j| j != i).map(move |j| (i, j)))
            .map(|(i, j)| a[i][j] * a[i][j])
            .sum();
        if off < 1e-30 {
            break;
        }
        for p in 0..n {
            for q in p + 1..n {
                if a[p][q] == 0.0 {
                    continue;
                }
                // The rotation that zeroes a[p][q].
                let theta = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
                let t = theta.signum() / (theta.abs() + (theta * theta + 1.0).sqrt());
                let t = if theta == 0.0 { 1.0 } else { t };
                let c = 1.0 / (t * t + 1.0).sqrt();
                let s = t * c;
                for k in 0..n {
                    let (akp, akq) = (a[k][p], a[k][q]);
                    a[k][p] = c * akp - s * akq;
                    a[k][q] = s * akp + c * akq;
                }
                for k in 0..n {
                    let (apk, aqk) = (a[p][k], a[q][k]);
                    a[p][k] = c * apk - s * aqk;
                    a[q][k] = s * apk + c * aqk;
                }
            }
        }
    }
    let mut values: Vec<f64> = (0..n).map(|i| a[i][i]).collect();
    values.sort_by(|x, y| y.total_cmp(x));
    values
}

/// A loss curve of gradient descent at `η = factor/λ_max`.
struct Curve {
    factor: f64,
    losses: Vec<f64>,
}

const QUADRATIC_STEPS: usize = 120;

fn quadratic_part() -> Result<(f64, Vec<Curve>), Box<dyn Error>> {
    let data = least_squares_data();
    let w0 = [0.0, 0.0, 0.0];
    let clock = Instant::now();
    let top = largest_eigenvalue([1.0, 1.0, 1.0], 1e-14, 1000, |v| {
        Ok(ls_loss_hvp(w0, &data, *v)?.hvp)
    })?;
    let power_seconds = clock.elapsed().as_secs_f64();
    let hessian = ls_loss_hessian(w0, &data)?;
    let rows = (0..hessian.rows())
        .map(|i| (0..hessian.cols()).map(|j| hessian.get(i, j)).collect())
        .collect();
    let eigenvalues = jacobi_eigenvalues(rows);
    println!("(a) least squares, 3 parameters, 16 points: the Hessian is constant");
    print!("{hessian:.4}");
    println!(
        "  λ_max by power iteration on ls_loss_hvp: {:.12} ({} Hessian-vector products{}, {:.2} ms)",
        top.value,
        top.products,
        if top.converged { "" } else { ", NOT converged" },
        1e3 * power_seconds
    );
    println!(
        "  eigenvalues of ls_loss_hessian by Jacobi: {}",
        eigenvalues
            .iter()
            .map(|x| format!("{x:.12}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let reference = eigenvalues.first().copied().ok_or("empty Hessian")?;
    println!(
        "  relative difference of the two λ_max: {:.1e}; top eigenvector {:?}",
        (top.value - reference).abs() / reference,
        top.vector.map(|x| (x * 1e4).round() / 1e4)
    );
    let lambda = top.value;
    let mut curves = Vec::new();
    for factor in [1.9, 2.0, 2.1] {
        let eta = factor / lambda;
        let mut w = w0;
        let mut losses = Vec::with_capacity(QUADRATIC_STEPS + 1);
        for _ in 0..QUADRATIC_STEPS {
            let result = ls_loss_grad(w, &data)?;
            losses.push(result.value);
            w.update(&result.gradient, |p, g| *p -= eta * g)?;
        }
        losses.push(ls_loss(w, &data));
        println!(
            "  η = {factor}/λ_max = {eta:.5}: loss {:.3e} at the start, {:.3e} after {QUADRATIC_STEPS} steps",
            losses[0],
            losses[QUADRATIC_STEPS]
        );
        curves.push(Curve { factor, losses });
    }
    Ok((lambda, curves))
}

/// Measure the sharpness every this many steps of the moons training.
const EVERY: usize = 4;
const MOONS_STEPS: usize = 100;

/// One measurement along the moons training.
struct Sharpness {
    step: usize,
    lambda: f64,
    products: usize,
    loss: f64,
}

/// `2/η` of the step taken at `step` of the moons training, `None` after
/// the last one.
fn bound(step: usize) -> Option<f64> {
    (step < MOONS_STEPS).then(|| 2.0 / moons::learning_rate(step, MOONS_STEPS))
}

fn moons_part() -> Result<Vec<Sharpness>, Box<dyn Error>> {
    let (data, mut model) = moons::setup();
    // The example's own training, to check that the loop below (which
    // stops to measure) trains exactly the same model.
    let (reference, history) = {
        let mut model = model.clone();
        let history = moons::train(&mut model, &data, MOONS_STEPS, |_| {})?;
        (model, history)
    };
    println!(
        "\n(b) two moons: MLP 2→16→16→1, {} parameters, {MOONS_STEPS} steps of SGD, λ_max every {EVERY} steps",
        model.num_scalars()
    );
    // A fixed, not special, start for the first power iteration; each later
    // one starts from the previous eigenvector (the Hessian changes
    // little between measurements).
    let mut direction = moons::Mlp::new(&[2, 16, 16, 1], 2024);
    let mut sgd = Sgd::new(moons::learning_rate(0, MOONS_STEPS));
    let mut measured = Vec::new();
    for step in 0..=MOONS_STEPS {
        if step % EVERY == 0 || step == MOONS_STEPS {
            let top = largest_eigenvalue(direction.clone(), 1e-5, 200, |v| {
                Ok(moons::loss_hvp(&model, &data, v.clone())?.hvp)
            })?;
            if !top.converged {
                println!("  step {step}: power iteration did not converge in its cap");
            }
            direction = top.vector;
            measured.push(Sharpness {
                step,
                lambda: top.value,
                products: top.products,
                loss: moons::loss(&model, &data),
            });
        }
        if step == MOONS_STEPS {
            break;
        }
        let result = moons::loss_grad(&model, &data)?;
        sgd.learning_rate = moons::learning_rate(step, MOONS_STEPS);
        sgd.step(&mut model, &result.gradient)?;
    }
    if model != reference {
        return Err("the loop here did not train the model moons::train trains".into());
    }
    if let Some(last) = history.last() {
        println!(
            "  the same model as moons::train's (step {}: loss {:.4}, accuracy {:.0}%)",
            last.step,
            last.loss,
            100.0 * last.accuracy
        );
    }
    // 2/η of the step taken from each measurement (none after the last).
    println!(
        "{:>6}  {:>10}  {:>8}  {:>6}  {:>8}",
        "step", "λ_max", "2/η", "H·v", "loss"
    );
    for m in measured.iter().filter(|m| m.step % 10 == 0) {
        println!(
            "{:>6}  {:>10.4}  {:>8}  {:>6}  {:>8.4}",
            m.step,
            m.lambda,
            bound(m.step).map_or("-".to_string(), |b| format!("{b:.4}")),
            m.products,
            m.loss
        );
    }
    let (low, high) = measured
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), m| {
            (lo.min(m.lambda), hi.max(m.lambda))
        });
    let above = measured
        .iter()
        .filter(|m| bound(m.step).is_some_and(|b| m.lambda > b))
        .count();
    let sharpest = measured
        .iter()
        .filter_map(|m| Some((m.step, 2.0 * m.lambda / bound(m.step)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .ok_or("no measurements")?;
    println!(
        "  largest η·λ_max: {:.4} at step {} (gradient descent is stable along the top eigenvector while it is < 2)",
        sharpest.1, sharpest.0
    );
    println!(
        "  λ_max ranged over [{low:.4}, {high:.4}]; above 2/η at {above} of the {} measurements before a step; {} Hessian-vector products in all",
        measured.len() - 1,
        measured.iter().map(|m| m.products).sum::<usize>()
    );
    Ok(measured)
}

fn main() -> Result<(), Box<dyn Error>> {
    let clock = Instant::now();
    let (lambda, curves) = quadratic_part()?;
    let quadratic_seconds = clock.elapsed().as_secs_f64();
    let clock = Instant::now();
    let measured = moons_part()?;
    let moons_seconds = clock.elapsed().as_secs_f64();
    println!("time: (a) {quadratic_seconds:.3} s, (b) {moons_seconds:.2} s");
    let svg = picture(lambda, &curves, &measured)?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/sharpness.svg");
    std::fs::write(path, svg)?;
    println!("wrote {path}");
    Ok(())
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

const COLOURS: [RGBColor; 3] = [
    RGBColor(27, 120, 55),
    RGBColor(130, 130, 130),
    RGBColor(200, 30, 45),
];
const LAMBDA_COLOUR: RGBColor = RGBColor(33, 102, 172);
const BOUND_COLOUR: RGBColor = RGBColor(200, 30, 45);

fn picture(
    lambda: f64,
    curves: &[Curve],
    measured: &[Sharpness],
) -> Result<String, Box<dyn Error>> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1150, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(575);
        quadratic_panel(&left, lambda, curves)?;
        moons_panel(&right, measured)?;
        root.present()?;
    }
    Ok(out)
}

fn quadratic_panel(area: &Area, lambda: f64, curves: &[Curve]) -> Result<(), Box<dyn Error>> {
    let values = curves.iter().flat_map(|c| c.losses.iter().copied());
    let low = values.clone().fold(f64::INFINITY, f64::min).max(1e-300);
    let high = values.fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption(
            format!("(a) least squares: GD at η = c/λ_max, λ_max = {lambda:.3}"),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0..QUADRATIC_STEPS, (low / 10.0..high * 10.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("step")
        .y_desc("loss (log scale)")
        .axis_desc_style(("sans-serif", 16))
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .light_line_style(WHITE)
        .draw()?;
    for (curve, colour) in curves.iter().zip(COLOURS) {
        let verdict = match curve.factor {
            f if f < 2.0 => "converges",
            f if f > 2.0 => "diverges",
            _ => "on the edge",
        };
        chart
            .draw_series(LineSeries::new(
                curve.losses.iter().copied().enumerate(),
                colour.stroke_width(2),
            ))?
            .label(format!("η = {}/λ_max: {verdict}", curve.factor))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::LowerLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    Ok(())
}

fn moons_panel(area: &Area, measured: &[Sharpness]) -> Result<(), Box<dyn Error>> {
    let (low, high) = measured
        .iter()
        .fold((f64::INFINITY, 0.0_f64), |(lo, hi), m| {
            (
                lo.min(m.lambda),
                hi.max(m.lambda.max(bound(m.step).unwrap_or(0.0))),
            )
        });
    let mut chart = ChartBuilder::on(area)
        .caption(
            "(b) two moons: sharpness λ_max along training",
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0..MOONS_STEPS, (low / 2.0..high * 4.0).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("training step")
        .y_desc("λ_max and 2/η (log scale)")
        .axis_desc_style(("sans-serif", 16))
        .y_label_formatter(&|y| format!("{y}"))
        .light_line_style(WHITE)
        .draw()?;
    chart
        .draw_series(LineSeries::new(
            (0..MOONS_STEPS).filter_map(|s| Some((s, bound(s)?))),
            BOUND_COLOUR.stroke_width(2),
        ))?
        .label("2/η (η: the learning-rate schedule)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BOUND_COLOUR.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            measured.iter().map(|m| (m.step, m.lambda)),
            LAMBDA_COLOUR.stroke_width(2),
        ))?
        .label("λ_max of the loss's Hessian (power iteration on loss_hvp)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], LAMBDA_COLOUR.stroke_width(2)));
    chart.draw_series(
        measured
            .iter()
            .map(|m| Circle::new((m.step, m.lambda), 3, LAMBDA_COLOUR.filled())),
    )?;
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    Ok(())
}
