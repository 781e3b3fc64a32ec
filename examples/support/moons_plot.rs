//! The picture of what the two-moons model learned, as SVG: its decision
//! boundary (the sign of its score over a grid), the training points
//! coloured by class, and the loss and accuracy curves of training.

use plotters::prelude::*;

use super::moons::{Mlp, Progress, Sample};

/// Cells per side of the decision-boundary grid.
pub const GRID: usize = 60;

/// Where the score is positive (class +1) and negative (class −1): light
/// tints behind the points' full colours.
pub const POSITIVE_AREA: RGBColor = RGBColor(198, 219, 239);
pub const NEGATIVE_AREA: RGBColor = RGBColor(253, 208, 162);
pub const POSITIVE_POINT: RGBColor = RGBColor(33, 102, 172);
pub const NEGATIVE_POINT: RGBColor = RGBColor(217, 95, 2);
pub const LOSS_LINE: RGBColor = RGBColor(120, 40, 140);
pub const ACCURACY_LINE: RGBColor = RGBColor(27, 120, 55);

/// The whole figure as an SVG document.
pub fn svg(
    model: &Mlp,
    data: &[Sample],
    history: &[Progress],
) -> Result<String, Box<dyn std::error::Error>> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (1100, 520)).into_drawing_area();
        root.fill(&WHITE)?;
        let (left, right) = root.split_horizontally(540);
        boundary(&left, model, data)?;
        let (top, bottom) = right.split_vertically(260);
        curve(&top, history, "loss", LOSS_LINE, |p| p.loss)?;
        curve(&bottom, history, "accuracy", ACCURACY_LINE, |p| p.accuracy)?;
        root.present()?;
    }
    Ok(out)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

fn boundary(area: &Area, model: &Mlp, data: &[Sample]) -> Result<(), Box<dyn std::error::Error>> {
    let (x0, x1, y0, y1) = (-1.5, 2.5, -1.0, 1.5);
    let mut chart = ChartBuilder::on(area)
        .caption("decision boundary after training", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(35)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart.configure_mesh().disable_mesh().draw()?;
    // Cells of one column with the same sign are one rectangle: the same
    // picture in a file a tenth the size.
    let (dx, dy) = ((x1 - x0) / GRID as f64, (y1 - y0) / GRID as f64);
    let mut cells = Vec::new();
    for i in 0..GRID {
        let a = x0 + i as f64 * dx;
        let positive: Vec<bool> = (0..GRID)
            .map(|j| model.score([a + dx / 2.0, y0 + (j as f64 + 0.5) * dy]) > 0.0)
            .collect();
        let mut start = 0;
        for j in 1..=GRID {
            if j == GRID || positive[j] != positive[start] {
                let colour = if positive[start] {
                    POSITIVE_AREA
                } else {
                    NEGATIVE_AREA
                };
                let (b0, b1) = (y0 + start as f64 * dy, y0 + j as f64 * dy);
                cells.push(Rectangle::new([(a, b0), (a + dx, b1)], colour.filled()));
                start = j;
            }
        }
    }
    chart.draw_series(cells)?;
    chart.draw_series(data.iter().map(|sample| {
        let colour = if sample.y > 0.0 {
            POSITIVE_POINT
        } else {
            NEGATIVE_POINT
        };
        Circle::new((sample.x[0], sample.x[1]), 4, colour.filled())
    }))?;
    Ok(())
}

fn curve(
    area: &Area,
    history: &[Progress],
    name: &str,
    colour: RGBColor,
    value: impl Fn(&Progress) -> f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let top = history.iter().map(&value).fold(1.0, f64::max) * 1.05;
    let mut chart = ChartBuilder::on(area)
        .caption(name, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(45)
        .build_cartesian_2d(0..history.len(), 0.0..top)?;
    chart
        .configure_mesh()
        .x_desc("step")
        .light_line_style(WHITE)
        .draw()?;
    chart.draw_series(LineSeries::new(
        history.iter().map(|p| (p.step, value(p))),
        colour.stroke_width(2),
    ))?;
    Ok(())
}
