//! The two-moons demo under test: the data lie on their arcs, 100 steps of
//! training in the test profile reach every point and a small loss, one
//! step's gradient agrees with central differences in all 337 components,
//! its Hessian-vector product runs compiled and agrees with the tape's,
//! and the SVG holds the grid, the points and both curves, and is the one
//! checked in under `docs/`.

#[path = "../examples/support/moons.rs"]
mod moons;
#[path = "../examples/support/moons_plot.rs"]
mod moons_plot;

use autodiff::prelude::*;
use moons::{loss_check, Mlp, Sample};

#[test]
fn the_points_lie_on_their_arcs_within_the_noise() {
    let data = moons::two_moons(100, 0.1, 7);
    assert_eq!(data.len(), 100);
    assert_eq!(data.iter().filter(|s| s.y == 1.0).count(), 50);
    assert_eq!(data.iter().filter(|s| s.y == -1.0).count(), 50);
    // Upper arc: unit circle about (0, 0); lower: about (1, 0.5). With
    // noise 0.1 on each coordinate, 5σ holds every one of 100 points.
    let mut deviations = Vec::new();
    for s in &data {
        let centre = if s.y > 0.0 { [1.0, 0.5] } else { [0.0, 0.0] };
        let r = ((s.x[0] - centre[0]).powi(2) + (s.x[1] - centre[1]).powi(2)).sqrt();
        assert!((r - 1.0).abs() < 0.5, "{s:?} is {r} from its centre");
        deviations.push(r - 1.0);
    }
    // The radial deviation is about N(0, 0.1²): its spread is near 0.1.
    let spread = (deviations.iter().map(|d| d * d).sum::<f64>() / 100.0).sqrt();
    assert!((0.06..0.14).contains(&spread), "spread {spread}");
    // Seeded: the same points every time.
    assert_eq!(data, moons::two_moons(100, 0.1, 7));
}

#[test]
fn one_steps_gradient_agrees_with_central_differences() {
    let (data, model) = moons::setup();
    assert_eq!(model.num_scalars(), 2 * 16 + 16 + 16 * 16 + 16 + 16 + 1);
    let check = loss_check(&model, &data).unwrap();
    assert!(check.passed(), "{check}");
}

#[test]
fn the_losss_hessian_vector_product_is_compiled_and_the_tapes() {
    use autodiff::Parameters;
    let (data, model) = moons::setup();
    let mut direction = model.clone();
    let mut k = 0.0_f64;
    direction.visit_mut(&mut |v| {
        k += 1.0;
        *v = (0.37 * k).sin();
    });
    let before = autodiff::__adjoint::compiled_hvps();
    let compiled = moons::loss_hvp(&model, &data, direction.clone()).unwrap();
    assert_eq!(
        autodiff::__adjoint::compiled_hvps(),
        before + 1,
        "not compiled"
    );
    let tape = moons::loss_hvp_tape(&model, &data, direction.clone()).unwrap();
    assert_eq!(compiled.value, tape.value);
    for (what, got, want) in [
        (
            "gradient",
            compiled.gradient.scalars(),
            tape.gradient.scalars(),
        ),
        ("H·v", compiled.hvp.scalars(), tape.hvp.scalars()),
    ] {
        for (i, (a, b)) in got.iter().zip(&want).enumerate() {
            assert!(
                (a - b).abs() <= 1e-13 * b.abs().max(1.0),
                "{what}[{i}]: {a} vs {b}"
            );
        }
    }
    // The layers' switches are the model's.
    let switches: Vec<bool> = compiled.hvp.layers.iter().map(|layer| layer.relu).collect();
    assert_eq!(switches, [true, true, false]);
}

#[test]
fn a_hundred_steps_classify_every_point() {
    let (data, mut model) = moons::setup();
    let history = moons::train(&mut model, &data, 100, |_| {}).unwrap();
    assert_eq!(history.len(), 100);
    // micrograd's demo starts near chance and ends at 100%.
    assert!(history[0].accuracy < 0.8);
    assert_eq!(moons::accuracy(&model, &data), 1.0);
    let loss = moons::loss(&model, &data);
    assert!(loss < 0.05, "final loss {loss}");
    assert!(loss < history[0].loss / 20.0);
}

/// Every `<tag ...>` element's attributes, by a plain scan: plotters writes
/// one element per line with `name="value"` attributes.
fn elements<'a>(svg: &'a str, tag: &str) -> Vec<Vec<(&'a str, &'a str)>> {
    let open = format!("<{tag} ");
    svg.match_indices(&open)
        .map(|(at, _)| {
            let rest = &svg[at + open.len()..];
            let body = &rest[..rest.find('>').expect("closed element")];
            body.split('"')
                .collect::<Vec<_>>()
                .chunks(2)
                .filter(|pair| pair.len() == 2)
                .map(|pair| (pair[0].trim().trim_end_matches('='), pair[1]))
                .collect()
        })
        .collect()
}

fn attribute<'a>(element: &[(&'a str, &'a str)], name: &str) -> &'a str {
    element
        .iter()
        .find(|(key, _)| *key == name)
        .map_or("", |(_, value)| value)
}

fn hex(colour: plotters::style::RGBColor) -> String {
    format!("#{:02X}{:02X}{:02X}", colour.0, colour.1, colour.2)
}

#[test]
fn the_picture_holds_the_grid_the_points_and_both_curves() {
    let (data, mut model): (Vec<Sample>, Mlp) = moons::setup();
    let history = moons::train(&mut model, &data, 100, |_| {}).unwrap();
    let svg = moons_plot::svg(&model, &data, &history).unwrap();

    // The grid: one column of rectangles per grid step, each column's
    // rectangles stacked over the whole height, both signs present.
    let rects = elements(&svg, "rect");
    let areas = [
        hex(moons_plot::POSITIVE_AREA),
        hex(moons_plot::NEGATIVE_AREA),
    ];
    let grid: Vec<_> = rects
        .iter()
        .filter(|r| areas.contains(&attribute(r, "fill").to_string()))
        .collect();
    for area in &areas {
        assert!(grid.iter().any(|r| attribute(r, "fill") == area));
    }
    let mut columns = std::collections::BTreeMap::<i64, i64>::new();
    for r in &grid {
        let x: i64 = attribute(r, "x").parse().unwrap();
        let height: i64 = attribute(r, "height").parse().unwrap();
        *columns.entry(x).or_default() += height;
    }
    assert_eq!(columns.len(), moons_plot::GRID);
    let heights: Vec<_> = columns.values().collect();
    assert!(
        heights.iter().all(|h| h.abs_diff(*heights[0]) <= 2),
        "columns of unequal height: {heights:?}"
    );

    // The points: 50 of each class in its colour.
    let circles = elements(&svg, "circle");
    for colour in [moons_plot::POSITIVE_POINT, moons_plot::NEGATIVE_POINT] {
        let count = circles
            .iter()
            .filter(|c| attribute(c, "fill") == hex(colour))
            .count();
        assert_eq!(count, 50, "points of colour {}", hex(colour));
    }

    // The curves: one polyline each, one vertex per step.
    let lines = elements(&svg, "polyline");
    for colour in [moons_plot::LOSS_LINE, moons_plot::ACCURACY_LINE] {
        let curve: Vec<_> = lines
            .iter()
            .filter(|l| attribute(l, "stroke") == hex(colour))
            .collect();
        assert_eq!(curve.len(), 1, "curve of colour {}", hex(colour));
        assert_eq!(
            attribute(curve[0], "points").split_whitespace().count(),
            100
        );
    }
    for title in ["loss", "accuracy", "decision boundary"] {
        assert!(svg.contains(title), "no title {title}");
    }

    // Training is deterministic, so the checked-in picture is this one.
    let checked_in = include_str!("../docs/moons.svg");
    assert!(
        checked_in == svg,
        "docs/moons.svg is stale: run `cargo run --release --example moons`"
    );
}
