//! Newton's method against gradient descent on the Rosenbrock function
//! `f(p) = (1 − p₀)² + 100 (p₁ − p₀²)²`, both from the classic start
//! (−1.2, 1.0), both run until the distance to the minimum (1, 1) is below
//! 1e-10.
//!
//! Newton solves `H·step = −g` at every iterate, with `H` from
//! `rosenbrock_hessian` and `g` from `rosenbrock_grad` (a 2 × 2 Gaussian
//! elimination written below); gradient descent takes `−η·g` with a fixed
//! step `η` (stable here: `η·λ_max(H) < 2` along the whole path). It prints
//! Newton's iterates, a table of steps to 1e-10 for both methods, and writes
//! `docs/newton.svg`: both paths over the function's contour lines, and the
//! distance to the minimum against the step on log–log axes.
//!
//! `cargo run --release --example newton`

use std::error::Error;
use std::time::Instant;

use autodiff::prelude::*;
use plotters::prelude::*;

#[differentiable]
fn rosenbrock(p: [f64; 2]) -> f64 {
    let a = 1.0 - p[0];
    let b = p[1] - p[0] * p[0];
    a * a + 100.0 * b * b
}

const START: [f64; 2] = [-1.2, 1.0];
const MINIMUM: [f64; 2] = [1.0, 1.0];
const TOLERANCE: f64 = 1e-10;
const NEWTON_CAP: usize = 100;
/// Gradient descent's fixed step: below 2/λ_max of the Hessian along the
/// whole path (λ_max ≈ 1,002 at the minimum); `main` prints the largest
/// `η·λ_max` the path met.
const ETA: f64 = 1e-3;
const GD_CAP: usize = 200_000;

fn distance(p: [f64; 2]) -> f64 {
    (p[0] - MINIMUM[0]).hypot(p[1] - MINIMUM[1])
}

/// Solves `a·x = b` by Gaussian elimination with partial pivoting; an error
/// if a pivot is (numerically) zero.
fn solve(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Result<Vec<f64>, Box<dyn Error>> {
    let n = b.len();
    for k in 0..n {
        let pivot = (k..n)
            .max_by(|&i, &j| a[i][k].abs().total_cmp(&a[j][k].abs()))
            .ok_or("empty system")?;
        if a[pivot][k].abs() < 1e-300 {
            return Err(format!("singular matrix at column {k}").into());
        }
        a.swap(k, pivot);
        b.swap(k, pivot);
        let pivot_row = a[k].clone();
        for i in k + 1..n {
            let factor = a[i][k] / pivot_row[k];
            for (entry, above) in a[i][k..].iter_mut().zip(&pivot_row[k..]) {
                *entry -= factor * above;
            }
            b[i] -= factor * b[k];
        }
    }
    let mut x = vec![0.0; n];
    for k in (0..n).rev() {
        let rest: f64 = (k + 1..n).map(|j| a[k][j] * x[j]).sum();
        x[k] = (b[k] - rest) / a[k][k];
    }
    Ok(x)
}

/// A method's run: every iterate from the start, and whether it reached
/// the tolerance.
struct Run {
    path: Vec<[f64; 2]>,
    converged: bool,
    seconds: f64,
}

impl Run {
    fn steps(&self) -> usize {
        self.path.len() - 1
    }

    fn last(&self) -> [f64; 2] {
        self.path[self.path.len() - 1]
    }
}

fn newton() -> Result<Run, Box<dyn Error>> {
    let clock = Instant::now();
    let mut p = START;
    let mut path = vec![p];
    println!("Newton's iterates:");
    println!(
        "{:>4}  {:>22}  {:>22}  {:>10}  {:>10}",
        "step", "p0", "p1", "f(p)", "distance"
    );
    println!(
        "{:>4}  {:>22.16}  {:>22.16}  {:>10.3e}  {:>10.3e}",
        0,
        p[0],
        p[1],
        rosenbrock(p),
        distance(p)
    );
    while distance(p) >= TOLERANCE && path.len() <= NEWTON_CAP {
        let g = rosenbrock_grad(p)?.gradient;
        let h = rosenbrock_hessian(p)?;
        let rows = (0..2).map(|i| vec![h.get(i, 0), h.get(i, 1)]).collect();
        let step = solve(rows, vec![-g[0], -g[1]])?;
        p = [p[0] + step[0], p[1] + step[1]];
        path.push(p);
        println!(
            "{:>4}  {:>22.16}  {:>22.16}  {:>10.3e}  {:>10.3e}",
            path.len() - 1,
            p[0],
            p[1],
            rosenbrock(p),
            distance(p)
        );
    }
    Ok(Run {
        converged: distance(p) < TOLERANCE,
        path,
        seconds: clock.elapsed().as_secs_f64(),
    })
}

fn gradient_descent() -> Result<Run, Box<dyn Error>> {
    let clock = Instant::now();
    let mut p = START;
    let mut path = vec![p];
    while distance(p) >= TOLERANCE && path.len() <= GD_CAP {
        let g = rosenbrock_grad(p)?.gradient;
        p = [p[0] - ETA * g[0], p[1] - ETA * g[1]];
        if !(p[0].is_finite() && p[1].is_finite()) {
            return Err(format!("gradient descent diverged at step {}", path.len()).into());
        }
        path.push(p);
    }
    Ok(Run {
        converged: distance(p) < TOLERANCE,
        path,
        seconds: clock.elapsed().as_secs_f64(),
    })
}

fn main() -> Result<(), Box<dyn Error>> {
    println!(
        "Rosenbrock f(p) = (1 − p0)² + 100 (p1 − p0²)² from ({}, {}), minimum at (1, 1)\n",
        START[0], START[1]
    );
    let newton = newton()?;
    let descent = gradient_descent()?;

    println!("\nsteps until the distance to (1, 1) is below {TOLERANCE:e}:");
    println!(
        "{:<28} {:>8}  {:>12}  {:>12}  {:>9}",
        "method", "steps", "distance", "f", "time"
    );
    for (name, run, cap) in [
        ("Newton (f_hessian)", &newton, NEWTON_CAP),
        (&*format!("gradient descent, η = {ETA}"), &descent, GD_CAP),
    ] {
        let steps = if run.converged {
            run.steps().to_string()
        } else {
            format!("> {cap}")
        };
        println!(
            "{name:<28} {steps:>8}  {:>12.3e}  {:>12.3e}  {:>7.1} ms",
            distance(run.last()),
            rosenbrock(run.last()),
            1e3 * run.seconds
        );
    }
    if !descent.converged {
        println!(
            "gradient descent did not reach {TOLERANCE:e} in {GD_CAP} steps: it stopped {:.3e} from the minimum",
            distance(descent.last())
        );
    }
    // Where gradient descent first came within the distances Newton's
    // iterates reached, for a like-for-like reading of the table.
    for threshold in [1e-2, 1e-4, 1e-6, 1e-8] {
        let first = |run: &Run| run.path.iter().position(|&p| distance(p) < threshold);
        let show = |step: Option<usize>| step.map_or("never".to_string(), |s| s.to_string());
        println!(
            "  distance < {threshold:e}: Newton after {:>2} steps, gradient descent after {:>6}",
            show(first(&newton)),
            show(first(&descent))
        );
    }

    // The largest eigenvalue of the 2 × 2 symmetric Hessian in closed form,
    // at every 100th iterate of gradient descent.
    let mut sharpest: f64 = 0.0;
    for &p in descent.path.iter().step_by(100) {
        let h = rosenbrock_hessian(p)?;
        let (a, b, d) = (h.get(0, 0), h.get(0, 1), h.get(1, 1));
        let lambda = 0.5 * (a + d) + (0.25 * (a - d) * (a - d) + b * b).sqrt();
        sharpest = sharpest.max(ETA * lambda);
    }
    println!(
        "largest η·λ_max(H) along the gradient-descent path: {sharpest:.3} (stable while < 2)"
    );

    let svg = picture(&newton, &descent)?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/newton.svg");
    std::fs::write(path, svg)?;
    println!("wrote {path}");
    Ok(())
}

const NEWTON_COLOUR: RGBColor = RGBColor(200, 30, 45);
const DESCENT_COLOUR: RGBColor = RGBColor(33, 102, 172);

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn picture(newton: &Run, descent: &Run) -> Result<String, Box<dyn Error>> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1150, 560)).into_drawing_area();
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(600);
        paths(&left, newton, descent)?;
        distances(&right, newton, descent)?;
        root.present()?;
    }
    Ok(out)
}

/// The contour lines of `f` at levels 10^(k/2), and both paths.
fn paths(area: &Area, newton: &Run, descent: &Run) -> Result<(), Box<dyn Error>> {
    // Tall enough for Newton's second iterate, far below the valley.
    let (x0, x1, y0, y1) = (-2.0, 2.0, -3.5, 3.0);
    let mut chart = ChartBuilder::on(area)
        .caption(
            "paths over the contour lines f = 10^(k/2)",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(45)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc("p0")
        .y_desc("p1")
        .axis_desc_style(("sans-serif", 16))
        .draw()?;
    let grey = RGBColor(170, 170, 170);
    for k in -4..=8 {
        let level = 10f64.powf(k as f64 / 2.0);
        for line in contour(|x, y| rosenbrock([x, y]), (x0, x1, y0, y1), 160, level) {
            chart.draw_series(std::iter::once(PathElement::new(
                line,
                grey.stroke_width(1),
            )))?;
        }
    }
    // Gradient descent takes ~10⁵ tiny steps: draw a point only once the
    // path has moved a visible distance from the last one drawn.
    let mut thinned = vec![descent.path[0]];
    for &p in &descent.path {
        let last = thinned[thinned.len() - 1];
        if (p[0] - last[0]).hypot(p[1] - last[1]) > 0.01 {
            thinned.push(p);
        }
    }
    thinned.push(descent.last());
    chart
        .draw_series(LineSeries::new(
            thinned.iter().map(|p| (p[0], p[1])),
            DESCENT_COLOUR.stroke_width(2),
        ))?
        .label(format!(
            "gradient descent, η = {ETA} ({} steps)",
            descent.steps()
        ))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], DESCENT_COLOUR.stroke_width(2)));
    chart
        .draw_series(LineSeries::new(
            newton.path.iter().map(|p| (p[0], p[1])),
            NEWTON_COLOUR.stroke_width(2),
        ))?
        .label(format!("Newton ({} steps)", newton.steps()))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], NEWTON_COLOUR.stroke_width(2)));
    chart.draw_series(
        newton
            .path
            .iter()
            .map(|p| Circle::new((p[0], p[1]), 4, NEWTON_COLOUR.filled())),
    )?;
    chart.draw_series([
        Circle::new((START[0], START[1]), 6, BLACK.filled()),
        Circle::new((MINIMUM[0], MINIMUM[1]), 6, BLACK.stroke_width(2)),
    ])?;
    chart.draw_series([
        Text::new(
            "start",
            (START[0] - 0.35, START[1] + 0.2),
            ("sans-serif", 16),
        ),
        Text::new(
            "minimum (1, 1)",
            (MINIMUM[0] + 0.1, MINIMUM[1] + 0.05),
            ("sans-serif", 16),
        ),
    ])?;
    // Newton's iterates numbered, except those on top of the minimum.
    chart.draw_series(
        newton
            .path
            .iter()
            .enumerate()
            .skip(1)
            .filter(|(_, &p)| distance(p) > 0.2)
            .map(|(k, p)| {
                Text::new(
                    k.to_string(),
                    (p[0] + 0.06, p[1] + 0.03),
                    ("sans-serif", 15).into_font().color(&NEWTON_COLOUR),
                )
            }),
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

/// The distance to the minimum after each step, on log–log axes (step + 1
/// on the x axis, so that the start shows).
fn distances(area: &Area, newton: &Run, descent: &Run) -> Result<(), Box<dyn Error>> {
    let steps = descent.path.len().max(newton.path.len()) as f64;
    let all = newton
        .path
        .iter()
        .chain(&descent.path)
        .map(|&p| distance(p));
    let smallest = all.clone().fold(f64::INFINITY, f64::min).max(1e-18);
    let largest = all.fold(0.0, f64::max);
    let mut chart = ChartBuilder::on(area)
        .caption("distance to the minimum", ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (1.0..steps * 1.5).log_scale(),
            (smallest / 3.0..largest * 3.0).log_scale(),
        )?;
    chart
        .configure_mesh()
        .x_desc("step + 1")
        .y_desc("|p − (1, 1)|")
        .axis_desc_style(("sans-serif", 16))
        .x_label_formatter(&|x| format!("{x:.0e}"))
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .light_line_style(WHITE)
        .draw()?;
    // One point per step would be 10⁵ points; about 40 per decade of steps
    // draw the same curve.
    let mut kept = Vec::new();
    let mut next = 0.0;
    for (k, &p) in descent.path.iter().enumerate() {
        if k as f64 >= next || k + 1 == descent.path.len() {
            kept.push(((k + 1) as f64, distance(p).max(smallest)));
            next = (k as f64 * 1.06).max(k as f64 + 1.0);
        }
    }
    chart
        .draw_series(LineSeries::new(kept, DESCENT_COLOUR.stroke_width(2)))?
        .label("gradient descent")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], DESCENT_COLOUR.stroke_width(2)));
    let points: Vec<(f64, f64)> = newton
        .path
        .iter()
        .enumerate()
        .map(|(k, &p)| ((k + 1) as f64, distance(p).max(smallest)))
        .collect();
    chart
        .draw_series(LineSeries::new(
            points.clone(),
            NEWTON_COLOUR.stroke_width(2),
        ))?
        .label("Newton")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], NEWTON_COLOUR.stroke_width(2)));
    chart.draw_series(
        points
            .iter()
            .map(|&p| Circle::new(p, 4, NEWTON_COLOUR.filled())),
    )?;
    let tolerance = [(1.0, TOLERANCE), (steps * 1.5, TOLERANCE)];
    chart
        .draw_series(LineSeries::new(tolerance, BLACK.mix(0.5).stroke_width(1)))?
        .label(format!("tolerance {TOLERANCE:e}"))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK.mix(0.5).stroke_width(1)));
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::MiddleMiddle)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    Ok(())
}

/// The level set `f = level` over a `cells × cells` grid by marching
/// squares, as polylines: each cell crossed by the level contributes a
/// segment between two of its edges, and segments that share an edge are
/// chained.
fn contour(
    f: impl Fn(f64, f64) -> f64,
    (x0, x1, y0, y1): (f64, f64, f64, f64),
    cells: usize,
    level: f64,
) -> Vec<Vec<(f64, f64)>> {
    let (dx, dy) = ((x1 - x0) / cells as f64, (y1 - y0) / cells as f64);
    let at = |i: usize, j: usize| (x0 + i as f64 * dx, y0 + j as f64 * dy);
    let values: Vec<Vec<f64>> = (0..=cells)
        .map(|i| {
            (0..=cells)
                .map(|j| {
                    let (x, y) = at(i, j);
                    f(x, y) - level
                })
                .collect()
        })
        .collect();
    // An edge is named by its lower-left corner and direction (0 along x,
    // 1 along y); where the level crosses it, by linear interpolation.
    type Edge = (usize, usize, u8);
    let crossing = |(i, j, d): Edge| {
        let (a, b) = if d == 0 {
            (values[i][j], values[i + 1][j])
        } else {
            (values[i][j], values[i][j + 1])
        };
        let t = a / (a - b);
        let (x, y) = at(i, j);
        if d == 0 {
            (x + t * dx, y)
        } else {
            (x, y + t * dy)
        }
    };
    let mut segments: Vec<(Edge, Edge)> = Vec::new();
    for i in 0..cells {
        for j in 0..cells {
            // Edges of the cell in order around it: bottom, right, top, left.
            let edges = [(i, j, 0), (i + 1, j, 1), (i, j + 1, 0), (i, j, 1)];
            let corner = |e: usize| {
                let (a, b) = match e {
                    0 => ((i, j), (i + 1, j)),
                    1 => ((i + 1, j), (i + 1, j + 1)),
                    2 => ((i, j + 1), (i + 1, j + 1)),
                    _ => ((i, j), (i, j + 1)),
                };
                (values[a.0][a.1], values[b.0][b.1])
            };
            let crossed: Vec<Edge> = (0..4)
                .filter(|&e| {
                    let (a, b) = corner(e);
                    (a < 0.0) != (b < 0.0)
                })
                .map(|e| edges[e])
                .collect();
            match crossed.as_slice() {
                [a, b] => segments.push((*a, *b)),
                // A saddle: pair neighbouring edges (either pairing is a
                // valid picture at this resolution).
                [a, b, c, d] => {
                    segments.push((*a, *b));
                    segments.push((*c, *d));
                }
                _ => {}
            }
        }
    }
    // Chain segments into polylines through the edges they share.
    let mut by_edge: std::collections::HashMap<Edge, Vec<usize>> = Default::default();
    for (k, (a, b)) in segments.iter().enumerate() {
        by_edge.entry(*a).or_default().push(k);
        by_edge.entry(*b).or_default().push(k);
    }
    let mut used = vec![false; segments.len()];
    let mut lines = Vec::new();
    for start in 0..segments.len() {
        if used[start] {
            continue;
        }
        used[start] = true;
        let (a, b) = segments[start];
        // Grow forward from b, then backward from a.
        let mut forward = vec![a, b];
        let mut backward = Vec::new();
        for (end, out) in [(b, &mut forward), (a, &mut backward)] {
            let mut edge = end;
            while let Some(&k) = by_edge
                .get(&edge)
                .and_then(|ks| ks.iter().find(|&&k| !used[k]))
            {
                used[k] = true;
                let (p, q) = segments[k];
                edge = if p == edge { q } else { p };
                out.push(edge);
            }
        }
        backward.reverse();
        backward.extend(forward);
        lines.push(backward.into_iter().map(crossing).collect());
    }
    lines
}
