//! micrograd's two-moons classifier: a `#[derive(Parameters)]` MLP
//! 2→16→16→1 trained for 100 steps of SGD on a max-margin loss, with a
//! progress bar, then a picture of its decision boundary and training
//! curves written to `docs/moons.svg`.
//!
//! `cargo run --release --example moons`
//!
//! `-- --export FILE` also writes the data and the initial weights as JSON,
//! for `bench-compare/micrograd_moons.py` to train micrograd from the same
//! start.

#[path = "support/moons.rs"]
mod moons;
#[path = "support/moons_plot.rs"]
mod moons_plot;

use std::io::IsTerminal;
use std::time::Instant;

use autodiff::prelude::*;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

const STEPS: usize = 100;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (data, mut model) = moons::setup();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [] => {}
        [flag, path] if flag == "--export" => {
            std::fs::write(path, export(&data, &model))?;
            println!("wrote {path}");
        }
        _ => {
            return Err(format!(
                "unexpected arguments {args:?}: the only option is `--export FILE`"
            )
            .into())
        }
    }
    println!(
        "{} points, an MLP 2→16→16→1 with {} parameters, {STEPS} steps of SGD",
        data.len(),
        model.num_scalars()
    );

    let bar = std::io::stdout().is_terminal().then(|| {
        let bar = ProgressBar::with_draw_target(Some(STEPS as u64), ProgressDrawTarget::stdout());
        bar.set_style(
            ProgressStyle::with_template("{bar:40.cyan/blue} {pos:>3}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let start = Instant::now();
    let history = moons::train(&mut model, &data, STEPS, |p| {
        let rate = (p.step + 1) as f64 / start.elapsed().as_secs_f64();
        let line = format!(
            "loss {:.4}  accuracy {:3.0}%  {rate:.0} steps/s",
            p.loss,
            100.0 * p.accuracy
        );
        match &bar {
            Some(bar) => {
                bar.set_message(line);
                bar.inc(1);
            }
            None if p.step % 10 == 0 || p.step + 1 == STEPS => {
                println!("step {:3}  {line}", p.step)
            }
            None => {}
        }
    })?;
    let elapsed = start.elapsed();
    if let Some(bar) = bar {
        bar.finish();
        // The finished bar stays on screen; the summary goes below it.
        println!();
    }

    let accuracy = moons::accuracy(&model, &data);
    let loss = moons::loss(&model, &data);
    println!(
        "after {STEPS} steps: loss {loss:.4}, accuracy {:.0}%; {:.2} s in all, {:.2} ms per step (gradient, accuracy and update)",
        100.0 * accuracy,
        elapsed.as_secs_f64(),
        1e3 * elapsed.as_secs_f64() / STEPS as f64
    );
    let svg = moons_plot::svg(&model, &data, &history)?;
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/moons.svg");
    std::fs::write(path, svg)?;
    println!("wrote {path}");
    Ok(())
}

/// The points and the initial weights as JSON, by hand (two arrays and
/// nested lists of numbers need no serialiser).
fn export(data: &[moons::Sample], model: &moons::Mlp) -> String {
    let list = |items: Vec<String>| format!("[{}]", items.join(", "));
    let points = list(
        data.iter()
            .map(|s| format!("[{:?}, {:?}, {:?}]", s.x[0], s.x[1], s.y))
            .collect(),
    );
    let layers = list(
        model
            .layers
            .iter()
            .map(|layer| {
                let rows = list(
                    layer
                        .w
                        .iter()
                        .map(|row| list(row.iter().map(|w| format!("{w:?}")).collect()))
                        .collect(),
                );
                let b = list(layer.b.iter().map(|b| format!("{b:?}")).collect());
                format!("{{\"w\": {rows}, \"b\": {b}, \"relu\": {}}}", layer.relu)
            })
            .collect(),
    );
    format!("{{\"points\": {points}, \"layers\": {layers}}}\n")
}
