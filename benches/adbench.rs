//! ADBench's Gaussian mixture model and bundle adjustment, written the way
//! a student writes them from their definitions (flat slices, a counted
//! index into the lower triangle, a `logsumexp` helper, a Rodrigues
//! rotation over array literals), timed as `f_grad` over the objective in
//! the same run, beside ADBench's published ratios for its hand-written
//! and Tapenade gradients; and the k-means objective (not in ADBench),
//! in one function and factored into a helper per (point, centre).
//!
//! `cargo bench --bench adbench` times them at ADBench's sizes; under
//! `cargo test` (`test = true`) each gradient is checked, at a small size,
//! against the tape and central differences, and the path `f_grad` takes
//! is printed.
//!
//! The GMM objective leaves out the Wishart prior's normalising constant
//! (a function of `d`, `γ` and `m` alone: it changes no gradient and costs
//! nothing per call).

#![allow(clippy::too_many_arguments, clippy::needless_range_loop)]

use std::process::ExitCode;

use autodiff::prelude::*;

#[path = "common/mod.rs"]
mod common;

use common::{Numbers, Row};

/// `ln Σ exp(v_k)`, shifted by the largest entry.
#[differentiable]
fn logsumexp(v: &[f64]) -> f64 {
    let mut top = v[0];
    for k in 1..v.len() {
        top = top.max(v[k]);
    }
    let mut total = 0.0;
    for k in 0..v.len() {
        total += (v[k] - top).exp();
    }
    total.ln() + top
}

/// The negative log-likelihood of `n` points under a mixture of `k`
/// Gaussians in `d` dimensions (ADBench's `gmm_objective`): `alphas` the
/// weights' logits, `means` `k × d`, `icf` per component the log of the
/// inverse covariance factor's diagonal, then its strictly lower triangle
/// by columns; a Wishart prior with `γ = gamma`, `m = m`.
#[differentiable]
fn gmm_objective(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    #[constant] x: &[f64],
    #[constant] d: usize,
    #[constant] gamma: f64,
    #[constant] m: f64,
) -> f64 {
    let k = alphas.len();
    let n = x.len() / d;
    let icf_size = d * (d + 1) / 2;
    let mut sum_qs = vec![0.0; k];
    for c in 0..k {
        for j in 0..d {
            sum_qs[c] += icf[c * icf_size + j];
        }
    }
    let mut slse = 0.0;
    for i in 0..n {
        let mut main_term = vec![0.0; k];
        for c in 0..k {
            let mut centered = vec![0.0; d];
            for j in 0..d {
                centered[j] = x[i * d + j] - means[c * d + j];
            }
            // Q · (x − μ) with Q = diag(exp(q)) + L.
            let mut qx = vec![0.0; d];
            for j in 0..d {
                qx[j] = icf[c * icf_size + j].exp() * centered[j];
            }
            let mut idx = d;
            for col in 0..d {
                for row in col + 1..d {
                    qx[row] += icf[c * icf_size + idx] * centered[col];
                    idx += 1;
                }
            }
            let mut sqnorm = 0.0;
            for j in 0..d {
                sqnorm += qx[j] * qx[j];
            }
            main_term[c] = alphas[c] + sum_qs[c] - 0.5 * sqnorm;
        }
        slse += logsumexp(&main_term);
    }
    let mut prior = 0.0;
    for c in 0..k {
        let mut frobenius = 0.0;
        for j in 0..d {
            let q = icf[c * icf_size + j].exp();
            frobenius += q * q;
        }
        for j in d..icf_size {
            let l = icf[c * icf_size + j];
            frobenius += l * l;
        }
        prior += 0.5 * gamma * gamma * frobenius - m * sum_qs[c];
    }
    let constant = -(n as f64) * (d as f64) * 0.5 * (2.0 * std::f64::consts::PI).ln();
    constant + slse - (n as f64) * logsumexp(alphas) + prior
}

/// One component of ADBench's reprojection error: the point rotated by
/// the camera's Rodrigues vector about its centre, projected, radially
/// distorted, scaled by the focal length, offset, minus the feature, times
/// the observation's weight. `cam` is `[r; 3], [c; 3], f, [x0; 2], [κ; 2]`.
#[differentiable]
fn reprojection(
    cam: &[f64],
    point: &[f64],
    w: f64,
    #[constant] feature: [f64; 2],
    #[constant] component: usize,
) -> f64 {
    let r = [cam[0], cam[1], cam[2]];
    let y = [point[0] - cam[3], point[1] - cam[4], point[2] - cam[5]];
    let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    let mut rotated = [0.0; 3];
    if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let (cos, sin) = (theta.cos(), theta.sin());
        let axis = [r[0] / theta, r[1] / theta, r[2] / theta];
        let cross = [
            axis[1] * y[2] - axis[2] * y[1],
            axis[2] * y[0] - axis[0] * y[2],
            axis[0] * y[1] - axis[1] * y[0],
        ];
        let along = (axis[0] * y[0] + axis[1] * y[1] + axis[2] * y[2]) * (1.0 - cos);
        for j in 0..3 {
            rotated[j] = y[j] * cos + cross[j] * sin + axis[j] * along;
        }
    } else {
        rotated = [
            y[0] + r[1] * y[2] - r[2] * y[1],
            y[1] + r[2] * y[0] - r[0] * y[2],
            y[2] + r[0] * y[1] - r[1] * y[0],
        ];
    }
    let projected = [rotated[0] / rotated[2], rotated[1] / rotated[2]];
    let rsq = projected[0] * projected[0] + projected[1] * projected[1];
    let distortion = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
    let image = cam[6] * projected[component] * distortion + cam[7 + component];
    w * (image - feature[component])
}

/// A GMM problem: data and parameters drawn once.
struct Gmm {
    d: usize,
    x: Vec<f64>,
    alphas: Vec<f64>,
    means: Vec<f64>,
    icf: Vec<f64>,
}

impl Gmm {
    fn new(d: usize, k: usize, n: usize) -> Gmm {
        let mut numbers = Numbers::new(0x6a3d_2b7f ^ (d * 1000 + k) as u64);
        let mut draw = |count: usize, scale: f64| -> Vec<f64> {
            (0..count).map(|_| numbers.next_f64() * scale).collect()
        };
        let icf_size = d * (d + 1) / 2;
        Gmm {
            d,
            x: draw(n * d, 2.0),
            alphas: draw(k, 1.0),
            means: draw(k * d, 2.0),
            icf: draw(k * icf_size, 0.5),
        }
    }

    fn objective(&self) -> f64 {
        gmm_objective(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            1.0,
            0.0,
        )
    }

    fn gradient(&self) -> ValueAndGradient<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        gmm_objective_grad(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            1.0,
            0.0,
        )
        .expect("finite GMM gradient")
    }

    fn gradient_on_tape(&self) -> ValueAndGradient<(Vec<f64>, Vec<f64>, Vec<f64>)> {
        gmm_objective_grad_tape(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.d,
            1.0,
            0.0,
        )
        .expect("finite GMM gradient")
    }
}

/// Bundle-adjustment observations: one camera and point each, a feature
/// near its projection.
struct Ba {
    cams: Vec<[f64; 11]>,
    points: Vec<[f64; 3]>,
    weights: Vec<f64>,
    features: Vec<[f64; 2]>,
}

impl Ba {
    fn new(observations: usize) -> Ba {
        let mut numbers = Numbers::new(0xba5e_0b5e);
        let mut next = move || numbers.next_f64();
        let mut ba = Ba {
            cams: Vec::new(),
            points: Vec::new(),
            weights: Vec::new(),
            features: Vec::new(),
        };
        for _ in 0..observations {
            let cam = [
                0.1 * next(),
                0.1 * next(),
                0.1 * next(),
                next(),
                next(),
                next() - 6.0,
                500.0 + 50.0 * next(),
                10.0 * next(),
                10.0 * next(),
                0.01 * next(),
                0.001 * next(),
            ];
            ba.cams.push(cam);
            ba.points.push([next(), next(), next()]);
            ba.weights.push(0.8 + 0.2 * next());
            ba.features.push([100.0 * next(), 100.0 * next()]);
        }
        ba
    }

    /// Every residual, as ADBench's objective computes them.
    fn objective(&self) -> f64 {
        let mut total = 0.0;
        for o in 0..self.cams.len() {
            let (cam, point) = (&self.cams[o], &self.points[o]);
            let (w, feature) = (self.weights[o], self.features[o]);
            total += reprojection(cam, point, w, feature, 0);
            total += reprojection(cam, point, w, feature, 1);
            total += 1.0 - w * w;
        }
        total
    }

    /// Every row of the Jacobian: two gradients per observation, and the
    /// weight residual's `−2w`.
    fn jacobian(&self, grad: impl Fn(&[f64], &[f64], f64, [f64; 2], usize) -> Gradient) -> f64 {
        let mut total = 0.0;
        for o in 0..self.cams.len() {
            let (cam, point) = (&self.cams[o], &self.points[o]);
            let (w, feature) = (self.weights[o], self.features[o]);
            for component in 0..2 {
                let (cam_bar, point_bar, w_bar) = grad(cam, point, w, feature, component);
                total += cam_bar[6] + point_bar[2] + w_bar;
            }
            total += -2.0 * w;
        }
        total
    }
}

/// The k-means objective, `Σ_p min_c |c − p|²`, written in one function
/// as a student first writes it: a running minimum by `if d < best`.
#[differentiable]
fn kmeans_objective(centers: &[Vec<f64>], #[constant] points: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let mut best = f64::INFINITY;
        for c in centers {
            let mut d = 0.0;
            for j in 0..p.len() {
                let diff = c[j] - p[j];
                d += diff * diff;
            }
            if d < best {
                best = d;
            }
        }
        total += best;
    }
    total
}

/// `|c − p|²`, the helper the factored objective calls per pair.
#[differentiable]
fn squared_distance(c: &[f64], p: &[f64]) -> f64 {
    let mut d = 0.0;
    for j in 0..p.len() {
        let diff = c[j] - p[j];
        d += diff * diff;
    }
    d
}

/// [`kmeans_objective`] factored into a helper per (point, centre).
#[differentiable]
fn kmeans_factored(centers: &[Vec<f64>], #[constant] points: &[Vec<f64>]) -> f64 {
    let mut total = 0.0;
    for p in points {
        let mut best = f64::INFINITY;
        for c in centers {
            let d = squared_distance(c, p);
            if d < best {
                best = d;
            }
        }
        total += best;
    }
    total
}

/// `k` centres and `n` points of dimension `d`, uniform in the unit cube.
struct Kmeans {
    centers: Vec<Vec<f64>>,
    points: Vec<Vec<f64>>,
}

impl Kmeans {
    fn new(k: usize, d: usize, n: usize) -> Self {
        let mut numbers = Numbers::new(13);
        let mut rows = |count: usize| -> Vec<Vec<f64>> {
            (0..count)
                .map(|_| (0..d).map(|_| numbers.next_f64()).collect())
                .collect()
        };
        Kmeans {
            centers: rows(k),
            points: rows(n),
        }
    }
}

type Gradient = (Vec<f64>, Vec<f64>, f64);

fn ba_compiled(
    cam: &[f64],
    point: &[f64],
    w: f64,
    feature: [f64; 2],
    component: usize,
) -> Gradient {
    reprojection_grad(cam, point, w, feature, component)
        .expect("finite reprojection gradient")
        .gradient
}

fn ba_tape(cam: &[f64], point: &[f64], w: f64, feature: [f64; 2], component: usize) -> Gradient {
    reprojection_grad_tape(cam, point, w, feature, component)
        .expect("finite reprojection gradient")
        .gradient
}

fn flat((a, b, c): &(Vec<f64>, Vec<f64>, Vec<f64>)) -> Vec<f64> {
    a.iter().chain(b).chain(c).copied().collect()
}

fn agree(name: &str, got: &[f64], want: &[f64]) -> Result<(), String> {
    let scale = want.iter().fold(1e-300_f64, |m, g| m.max(g.abs()));
    for (k, (a, b)) in got.iter().zip(want).enumerate() {
        if (a - b).abs() > 1e-12 * scale {
            return Err(format!("{name}: component {k}: {a} against the tape's {b}"));
        }
    }
    Ok(())
}

/// Under `cargo test`: each gradient against the tape and central
/// differences at a small size, and the path it takes.
fn smoke() -> Result<(), String> {
    let gmm = Gmm::new(3, 4, 20);
    let (compiled, tape) = (gmm.gradient(), gmm.gradient_on_tape());
    agree("GMM", &flat(&compiled.gradient), &flat(&tape.gradient))?;
    let check = gmm_objective_check(&gmm.alphas, &gmm.means, &gmm.icf, &gmm.x, gmm.d, 1.0, 0.0)
        .map_err(|e| e.to_string())?;
    if !check.passed() {
        return Err(format!("GMM gradient check failed:\n{check}"));
    }
    println!("GMM: f_grad takes {:?}", gmm_objective_grad_path());

    let ba = Ba::new(4);
    for o in 0..4 {
        for component in 0..2 {
            let args = (
                &ba.cams[o][..],
                &ba.points[o][..],
                ba.weights[o],
                ba.features[o],
            );
            let got = ba_compiled(args.0, args.1, args.2, args.3, component);
            let want = ba_tape(args.0, args.1, args.2, args.3, component);
            let flat = |g: &Gradient| -> Vec<f64> {
                g.0.iter().chain(&g.1).chain([&g.2]).copied().collect()
            };
            agree("BA", &flat(&got), &flat(&want))?;
            let check = reprojection_check(args.0, args.1, args.2, args.3, component)
                .map_err(|e| e.to_string())?;
            if !check.passed() {
                return Err(format!("BA gradient check failed:\n{check}"));
            }
        }
    }
    println!("BA: f_grad takes {:?}", reprojection_grad_path());

    let km = Kmeans::new(4, 3, 12);
    let one = kmeans_objective_grad(&km.centers, &km.points).map_err(|e| e.to_string())?;
    let factored = kmeans_factored_grad(&km.centers, &km.points).map_err(|e| e.to_string())?;
    let tape = kmeans_factored_grad_tape(&km.centers, &km.points).map_err(|e| e.to_string())?;
    agree("k-means", &one.gradient.concat(), &tape.gradient.concat())?;
    agree(
        "k-means, factored",
        &factored.gradient.concat(),
        &one.gradient.concat(),
    )?;
    let check = kmeans_objective_check(&km.centers, &km.points).map_err(|e| e.to_string())?;
    if !check.passed() {
        return Err(format!("k-means gradient check failed:\n{check}"));
    }
    println!(
        "k-means: f_grad takes {:?}, factored {:?}",
        kmeans_objective_grad_path(),
        kmeans_factored_grad_path()
    );
    Ok(())
}

fn row<'a>(
    workload: &str,
    engine: &str,
    iterations: usize,
    run: impl FnMut() -> f64 + 'a,
) -> Row<'a> {
    Row {
        workload: workload.to_string(),
        engine: engine.to_string(),
        operations: 1,
        run: Box::new(run),
        iterations,
        samples: Vec::new(),
    }
}

fn report(rows: &mut [Row<'_>], rounds: usize, published: &str) -> Result<(), String> {
    common::run_round_robin(rows, rounds)?;
    let median = |engine: &str| {
        rows.iter()
            .find(|r| r.engine == engine)
            .map_or(f64::NAN, |r| common::median(&r.samples))
    };
    let plain = median(common::PLAIN);
    println!("{}", rows[0].workload);
    for row in rows.iter() {
        let t = common::median(&row.samples);
        println!(
            "  {:<28} {:>12.1} µs  {:>7.2}× the objective",
            row.engine,
            t * 1e-3,
            t / plain
        );
    }
    println!("  ADBench, published: {published}\n");
    Ok(())
}

fn bench(args: &[String]) -> Result<(), String> {
    let rounds = common::rounds(args)?;
    smoke()?;
    println!("ADBench workloads: {rounds} rounds, each row timed once per round in turn\n");
    for (d, k, n, published) in [
        (2, 5, 1000, "hand-written 1.9×, Tapenade 3.7×"),
        (10, 25, 1000, "hand-written 2.9–3.1×, Tapenade 7.7–7.9×"),
    ] {
        let gmm = Gmm::new(d, k, n);
        let name = format!(
            "GMM d={d}, K={k}, N={n} (f_grad: {:?})",
            gmm_objective_grad_path()
        );
        let mut rows = vec![
            row(&name, common::PLAIN, 3, || gmm.objective()),
            row(&name, "f_grad", 3, || gmm.gradient().value),
            row(&name, "f_grad_tape", 1, || gmm.gradient_on_tape().value),
        ];
        report(&mut rows, rounds, published)?;
    }
    let ba = Ba::new(10_000);
    let name = format!(
        "bundle adjustment, Jacobian of 10,000 observations (f_grad: {:?})",
        reprojection_grad_path()
    );
    let mut rows = vec![
        row(&name, common::PLAIN, 3, || ba.objective()),
        row(&name, "f_grad", 1, || ba.jacobian(ba_compiled)),
        row(&name, "f_grad_tape", 1, || ba.jacobian(ba_tape)),
    ];
    report(
        &mut rows,
        rounds,
        "hand-written 6.5–7.4×, Tapenade 8.4–8.9×",
    )?;
    let km = Kmeans::new(10, 8, 100);
    let (centers, points) = (&km.centers, &km.points);
    let name = format!(
        "k-means, 10 centres of 8 over 100 points (f_grad: {:?}, factored: {:?})",
        kmeans_objective_grad_path(),
        kmeans_factored_grad_path()
    );
    let gradient = |g: Result<ValueAndGradient<Vec<Vec<f64>>>, ScalarAutodiffError>| {
        g.expect("finite k-means gradient").value
    };
    let mut rows = vec![
        row(&name, common::PLAIN, 30, || {
            kmeans_objective(centers, points)
        }),
        row(&name, "plain, factored", 30, || {
            kmeans_factored(centers, points)
        }),
        row(&name, "f_grad", 5, || {
            gradient(kmeans_objective_grad(centers, points))
        }),
        row(&name, "f_grad, factored", 5, || {
            gradient(kmeans_factored_grad(centers, points))
        }),
        row(&name, "f_grad_tape", 1, || {
            gradient(kmeans_objective_grad_tape(centers, points))
        }),
    ];
    report(&mut rows, rounds, "not in ADBench")
}

fn main() -> ExitCode {
    common::bench_main("adbench", bench, smoke)
}
