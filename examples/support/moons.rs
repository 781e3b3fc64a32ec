//! micrograd's two-moons demo in Rust: the data (our own seeded generator),
//! the model (a `#[derive(Parameters)]` MLP 2→16→16→1 with ReLU, its score a
//! `#[differentiable]` method), the loss (max-margin with L2 regularisation,
//! `#[differentiable]`, calling `model.score(x)`) and the training
//! loop (SGD with micrograd's decaying step). Shared through `#[path]` by
//! `examples/moons.rs` and `tests/moons.rs`, so the test trains exactly what
//! the example shows.
// Index loops on purpose: a #[differentiable] body reads the weights the
// way the formulas index them.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;

#[path = "splitmix.rs"]
mod splitmix;
use splitmix::SplitMix64;

/// One labelled point: `y` is +1 (lower moon) or −1 (upper moon).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sample {
    pub x: [f64; 2],
    pub y: f64,
}

/// Uniform in [0, 1) with 53 random bits, and Gaussian by Box–Muller.
struct Draws(SplitMix64);

impl Draws {
    fn uniform(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn gaussian(&mut self) -> f64 {
        // 1 − u is in (0, 1]: the logarithm stays finite.
        let (u, v) = (1.0 - self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

/// Two interleaved half circles, as scikit-learn's `make_moons` draws them:
/// `n / 2` points on the upper arc `(cos t, sin t)` labelled −1, the rest on
/// the lower arc `(1 − cos t, 0.5 − sin t)` labelled +1, `t` evenly spaced
/// over `[0, π]`, then Gaussian noise of standard deviation `noise` on both
/// coordinates.
pub fn two_moons(n: usize, noise: f64, seed: u64) -> Vec<Sample> {
    let mut draws = Draws(SplitMix64::new(seed));
    let upper = n / 2;
    let lower = n - upper;
    let angle = |i: usize, count: usize| {
        if count > 1 {
            std::f64::consts::PI * i as f64 / (count - 1) as f64
        } else {
            0.0
        }
    };
    let mut samples = Vec::with_capacity(n);
    for i in 0..upper {
        let t = angle(i, upper);
        samples.push(([t.cos(), t.sin()], -1.0));
    }
    for i in 0..lower {
        let t = angle(i, lower);
        samples.push(([1.0 - t.cos(), 0.5 - t.sin()], 1.0));
    }
    samples
        .into_iter()
        .map(|([a, b], y)| Sample {
            x: [a + noise * draws.gaussian(), b + noise * draws.gaussian()],
            y,
        })
        .collect()
}

/// One fully connected layer: `w[j]` holds neuron `j`'s input weights.
#[derive(Clone, Debug, PartialEq, Parameters)]
pub struct Layer {
    pub w: Vec<Vec<f64>>,
    pub b: Vec<f64>,
    /// ReLU after the sum; the output layer is linear.
    #[constant]
    pub relu: bool,
}

/// micrograd's `MLP(2, [16, 16, 1])`.
#[derive(Clone, Debug, PartialEq, Parameters)]
pub struct Mlp {
    pub layers: Vec<Layer>,
}

impl Mlp {
    /// Layers of the given widths (`[2, 16, 16, 1]`), weights uniform in
    /// [−1, 1) as micrograd's neurons draw them, biases zero.
    pub fn new(widths: &[usize], seed: u64) -> Mlp {
        let mut draws = Draws(SplitMix64::new(seed));
        let layers = widths
            .windows(2)
            .enumerate()
            .map(|(k, pair)| Layer {
                w: (0..pair[1])
                    .map(|_| (0..pair[0]).map(|_| 2.0 * draws.uniform() - 1.0).collect())
                    .collect(),
                b: vec![0.0; pair[1]],
                relu: k + 2 < widths.len(),
            })
            .collect();
        Mlp { layers }
    }

    /// The network's output for one point: its sign is the predicted
    /// class. A `#[differentiable]` method: the loss calls it on the model
    /// it differentiates, and it records on the loss's tape.
    #[differentiable]
    pub fn score(&self, #[constant] x: [f64; 2]) -> f64 {
        let mut h = vec![x[0], x[1]];
        for k in 0..self.layers.len() {
            let mut next = Vec::new();
            for j in 0..self.layers[k].b.len() {
                let mut s = self.layers[k].b[j];
                for i in 0..h.len() {
                    s += self.layers[k].w[j][i] * h[i];
                }
                if self.layers[k].relu {
                    s = relu(s);
                }
                next.push(s);
            }
            h = next;
        }
        h[0]
    }
}

/// The strength of the L2 penalty, micrograd's `alpha`.
pub const ALPHA: f64 = 1e-4;

/// Max-margin (hinge) loss `relu(1 − y·score)` averaged over the batch, plus
/// `ALPHA` times the sum of every weight and bias squared: micrograd's
/// `loss()`.
#[differentiable]
pub fn loss(model: &Mlp, #[constant] data: &[Sample]) -> f64 {
    let mut data_loss = 0.0;
    for n in 0..data.len() {
        let s = model.score(data[n].x);
        data_loss += relu(1.0 - data[n].y * s);
    }
    let mut squares = 0.0;
    for k in 0..model.layers.len() {
        for j in 0..model.layers[k].b.len() {
            squares += model.layers[k].b[j] * model.layers[k].b[j];
            for i in 0..model.layers[k].w[j].len() {
                squares += model.layers[k].w[j][i] * model.layers[k].w[j][i];
            }
        }
    }
    data_loss / data.len() as f64 + ALPHA * squares
}

/// The share of points whose score has the sign of their label.
pub fn accuracy(model: &Mlp, data: &[Sample]) -> f64 {
    let right = data
        .iter()
        .filter(|sample| (model.score(sample.x) > 0.0) == (sample.y > 0.0))
        .count();
    right as f64 / data.len() as f64
}

/// micrograd's schedule: the step falls linearly from 1.0 to 0.1.
pub fn learning_rate(step: usize, steps: usize) -> f64 {
    1.0 - 0.9 * step as f64 / steps as f64
}

/// What one training step saw, before its update.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub step: usize,
    pub loss: f64,
    pub accuracy: f64,
}

/// The demo's setup: 100 points with noise 0.1, the 2→16→16→1 network.
pub fn setup() -> (Vec<Sample>, Mlp) {
    (two_moons(100, 0.1, 7), Mlp::new(&[2, 16, 16, 1], 1337))
}

/// `steps` steps of SGD with the decaying step; `report` sees each step's
/// loss and accuracy (measured before its update) as it happens.
pub fn train(
    model: &mut Mlp,
    data: &[Sample],
    steps: usize,
    mut report: impl FnMut(Progress),
) -> Result<Vec<Progress>, Box<dyn std::error::Error>> {
    let mut sgd = Sgd::new(learning_rate(0, steps));
    let mut history = Vec::with_capacity(steps);
    for step in 0..steps {
        let result = loss_grad(model, data)?;
        let progress = Progress {
            step,
            loss: result.value,
            accuracy: accuracy(model, data),
        };
        report(progress);
        history.push(progress);
        sgd.learning_rate = learning_rate(step, steps);
        sgd.step(model, &result.gradient)?;
    }
    Ok(history)
}
