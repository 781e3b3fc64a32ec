//! `#[differentiable]` on methods: `&self` (and `self` by value) of a
//! `#[derive(Parameters)]` struct, the gradient coming back as the struct.
//! Calls both ways: an annotated method calling another method (on `self`
//! or on a part of `self`) and a free annotated function; a free annotated
//! function calling a method on its model. Oracles: the gradient written
//! out by hand, and central differences (`f_check`).
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Neuron {
    w: [f64; 2],
    b: f64,
}

impl Neuron {
    /// `tanh(w·x + b)`.
    #[differentiable]
    fn forward(&self, #[constant] x: [f64; 2]) -> f64 {
        let mut s = self.b;
        for i in 0..2 {
            s += self.w[i] * x[i];
        }
        s.tanh()
    }
}

#[test]
fn a_method_gradient_is_the_struct_and_matches_the_hand_written_backward() {
    let neuron = Neuron {
        w: [0.4, -0.7],
        b: 0.1,
    };
    let x = [1.5, 0.5];
    let result = neuron.forward_grad(x).unwrap();
    let s = 0.1 + 0.4 * 1.5 - 0.7 * 0.5;
    let t: f64 = f64::tanh(s);
    assert!((result.value - t).abs() < 1e-15);
    let ds = 1.0 - t * t;
    let grad: Neuron = result.gradient;
    assert!((grad.b - ds).abs() < 1e-15);
    assert!((grad.w[0] - ds * x[0]).abs() < 1e-15);
    assert!((grad.w[1] - ds * x[1]).abs() < 1e-15);
    assert!(neuron.forward_check(x).unwrap().passed());
    assert_eq!(neuron.forward(x), result.value);
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Mlp {
    hidden: Vec<Neuron>,
    out: Vec<f64>,
    #[constant]
    width: usize,
}

impl Mlp {
    /// The output neuron over the hidden neurons: each hidden neuron is
    /// its own method call on a part of `self`, recorded on the same tape.
    #[differentiable]
    fn score(&self, #[constant] x: [f64; 2]) -> f64 {
        let mut s = 0.0;
        for j in 0..self.width {
            s += self.out[j] * self.hidden[j].forward(x);
        }
        s
    }

    /// Calls a method on `self` and a free annotated function.
    #[differentiable]
    fn loss(&self, #[constant] x: [f64; 2], #[constant] y: f64) -> f64 {
        let d = self.score(x) - y;
        d * d + penalty(self)
    }

    /// By value: the gradient is still an `Mlp`.
    #[differentiable]
    fn sum_out(self) -> f64 {
        self.out[0] + 2.0 * self.out[1]
    }
}

/// A free function called from a method, taking the model by reference.
#[differentiable]
fn penalty(model: &Mlp) -> f64 {
    0.01 * (model.out[0] * model.out[0] + model.out[1] * model.out[1])
}

/// A free function calling a method on its model, and on a part of it.
#[differentiable]
fn mean_score(model: &Mlp, #[constant] xs: &[[f64; 2]]) -> f64 {
    let mut total = 0.0;
    for x in xs {
        total += model.score(*x) + model.hidden[0].forward(*x);
    }
    total / xs.len() as f64
}

fn mlp() -> Mlp {
    Mlp {
        hidden: vec![
            Neuron {
                w: [0.4, -0.7],
                b: 0.1,
            },
            Neuron {
                w: [-0.2, 0.9],
                b: -0.3,
            },
        ],
        out: vec![1.3, -0.8],
        width: 2,
    }
}

/// The loss and its gradient, written out by hand.
fn loss_by_hand(m: &Mlp, x: [f64; 2], y: f64) -> (f64, Mlp) {
    let mut grad = m.clone();
    let t: Vec<f64> = m
        .hidden
        .iter()
        .map(|n| (n.b + n.w[0] * x[0] + n.w[1] * x[1]).tanh())
        .collect();
    let score = m.out[0] * t[0] + m.out[1] * t[1];
    let d = score - y;
    let value = d * d + 0.01 * (m.out[0] * m.out[0] + m.out[1] * m.out[1]);
    for j in 0..2 {
        grad.out[j] = 2.0 * d * t[j] + 0.02 * m.out[j];
        let ds = 2.0 * d * m.out[j] * (1.0 - t[j] * t[j]);
        grad.hidden[j].b = ds;
        grad.hidden[j].w = [ds * x[0], ds * x[1]];
    }
    (value, grad)
}

fn assert_close(a: &Mlp, b: &Mlp) {
    assert_eq!(a.width, b.width);
    for j in 0..2 {
        assert!((a.out[j] - b.out[j]).abs() < 1e-12, "out[{j}]");
        assert!((a.hidden[j].b - b.hidden[j].b).abs() < 1e-12, "b[{j}]");
        for i in 0..2 {
            assert!((a.hidden[j].w[i] - b.hidden[j].w[i]).abs() < 1e-12);
        }
    }
}

#[test]
fn a_method_calling_methods_on_parts_of_self_and_a_free_function_matches_the_hand_written_backward()
{
    let m = mlp();
    let (x, y) = ([0.6, -1.2], 0.5);
    let result = m.loss_grad(x, y).unwrap();
    let (value, grad) = loss_by_hand(&m, x, y);
    assert!((result.value - value).abs() < 1e-12);
    assert_close(&result.gradient, &grad);
    // The plain twin is the method as written.
    assert!((m.loss(x, y) - value).abs() < 1e-12);
    let check = m.loss_check(x, y).unwrap();
    assert!(check.passed(), "{check:?}");
}

#[test]
fn a_free_function_calling_methods_on_its_model_passes_the_check() {
    let m = mlp();
    let xs = [[0.6, -1.2], [-0.3, 0.8], [1.1, 0.2]];
    let result = mean_score_grad(&m, &xs).unwrap();
    let expected: f64 = xs
        .iter()
        .map(|x| m.score(*x) + m.hidden[0].forward(*x))
        .sum::<f64>()
        / 3.0;
    assert!((result.value - expected).abs() < 1e-12);
    // ∂/∂out[j] = mean over points of tanh(hidden j).
    for j in 0..2 {
        let by_hand: f64 = xs.iter().map(|x| m.hidden[j].forward(*x)).sum::<f64>() / 3.0;
        assert!((result.gradient.out[j] - by_hand).abs() < 1e-12);
    }
    assert!(mean_score_check(&m, &xs).unwrap().passed());
}

#[test]
fn a_by_value_method_gives_the_struct_gradient() {
    let m = mlp();
    let result = m.clone().sum_out_grad().unwrap();
    assert_eq!(result.value, 1.3 - 1.6);
    assert_eq!(result.gradient.out, vec![1.0, 2.0]);
    assert_eq!(result.gradient.hidden[1].w, [0.0, 0.0]);
    assert!(m.sum_out_check().unwrap().passed());
}

#[test]
fn a_method_records_on_a_tape_the_caller_keeps() {
    let m = mlp();
    let mut tape = Tape::new();
    let (x, y) = ([0.6, -1.2], 0.5);
    let first = m.loss_grad_on(&mut tape, x, y).unwrap();
    let again = m.loss_grad_on(&mut tape, x, y).unwrap();
    assert_eq!(first.value, again.value);
    assert_close(&first.gradient, &loss_by_hand(&m, x, y).1);
    let check = m
        .loss_check_with(Some(1e-6), autodiff::DEFAULT_TOLERANCE, x, y)
        .unwrap();
    assert!(check.passed());
}

/// A whole `impl` block annotated: associated functions without `self`
/// call each other as `Self::f`, methods as usual; a free function calls
/// an associated one by its path.
struct Physics;

#[differentiable]
impl Physics {
    fn kinetic(m: f64, v: f64) -> f64 {
        0.5 * m * v * v
    }

    fn energy(m: f64, v: f64, #[constant] h: f64) -> f64 {
        Self::kinetic(m, v) + m * 9.81 * h
    }

    /// Not returning `f64`: left as written.
    fn name() -> &'static str {
        "physics"
    }
}

#[differentiable]
fn doubled_energy(m: f64, v: f64) -> f64 {
    2.0 * Physics::energy(m, v, 1.0)
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Line {
    a: f64,
    b: f64,
}

#[differentiable]
impl Line {
    fn at(&self, #[constant] x: f64) -> f64 {
        self.a * x + self.b
    }

    fn squared_error(&self, #[constant] x: f64, #[constant] y: f64) -> f64 {
        let d = self.at(x) - y;
        d * d
    }

    /// An associated function taking the model as a parameter.
    fn slope_penalty(line: &Self) -> f64 {
        line.a * line.a
    }

    /// A method calling an associated function of its block on `self`.
    fn penalised(&self, #[constant] x: f64, #[constant] y: f64) -> f64 {
        self.squared_error(x, y) + 0.5 * Self::slope_penalty(self)
    }
}

#[test]
fn associated_functions_of_an_annotated_impl_block_call_each_other() {
    let (m, v, h) = (2.0, 3.0, 0.5);
    let got = Physics::energy_grad(m, v, h).unwrap();
    assert_eq!(got.value, 0.5 * m * v * v + m * 9.81 * h);
    // ∂E/∂m = v²/2 + g h, ∂E/∂v = m v.
    assert!((got.gradient.0 - (v * v / 2.0 + 9.81 * h)).abs() < 1e-12);
    assert!((got.gradient.1 - m * v).abs() < 1e-12);
    assert!(Physics::energy_check(m, v, h).unwrap().passed());
    let doubled = doubled_energy_grad(m, v).unwrap();
    assert!((doubled.gradient.1 - 2.0 * m * v).abs() < 1e-12);
    assert_eq!(Physics::name(), "physics");
}

#[test]
fn methods_of_an_annotated_impl_block() {
    let line = Line { a: 0.5, b: -1.0 };
    let got = line.squared_error_grad(2.0, 1.0).unwrap();
    // d = a x + b − y = −1; ∂/∂a = 2 d x, ∂/∂b = 2 d.
    assert_eq!(got.value, 1.0);
    assert_eq!(got.gradient, Line { a: -4.0, b: -2.0 });
    assert!(line.squared_error_check(2.0, 1.0).unwrap().passed());
    // Plus half the slope squared: ∂/∂a gains a.
    let got = line.penalised_grad(2.0, 1.0).unwrap();
    assert_eq!(got.value, 1.0 + 0.5 * 0.25);
    assert_eq!(
        got.gradient,
        Line {
            a: -4.0 + 0.5,
            b: -2.0
        }
    );
    assert_eq!(Line::slope_penalty_grad(&line).unwrap().gradient.a, 1.0);
}

/// Methods called on the elements of an array and of a slice of models.
#[differentiable]
fn ensemble(models: [Neuron; 2], others: &[Neuron], #[constant] x: [f64; 2]) -> f64 {
    let mut total = models[0].forward(x) * models[1].forward(x);
    for k in 0..others.len() {
        total += others[k].forward(x);
    }
    total
}

#[test]
fn methods_on_arrays_and_slices_of_models_match_the_hand_written_backward() {
    let a = Neuron {
        w: [0.4, -0.7],
        b: 0.1,
    };
    let b = Neuron {
        w: [-0.2, 0.9],
        b: -0.3,
    };
    let c = Neuron {
        w: [0.5, 0.5],
        b: 0.0,
    };
    let x = [0.6, -1.2];
    let models = [a.clone(), b.clone()];
    let others = [c.clone()];
    let got = ensemble_grad(models.clone(), &others, x).unwrap();
    let (ta, tb, tc) = (a.forward(x), b.forward(x), c.forward(x));
    assert!((got.value - (ta * tb + tc)).abs() < 1e-12);
    // d(ta tb)/d b_a = tb (1 − ta²); d tc / d w_c[i] = (1 − tc²) x[i].
    let (grad_models, grad_others) = got.gradient;
    assert!((grad_models[0].b - tb * (1.0 - ta * ta)).abs() < 1e-12);
    assert!((grad_models[1].w[1] - ta * (1.0 - tb * tb) * x[1]).abs() < 1e-12);
    assert!((grad_others[0].w[0] - (1.0 - tc * tc) * x[0]).abs() < 1e-12);
    assert!(ensemble_check(models, &others, x).unwrap().passed());
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Layer {
    neurons: Vec<Neuron>,
}

impl Layer {
    /// The sum of the neurons' outputs, each neuron taken from `self` by a
    /// `for` loop or a `let`: the method called on it records too.
    #[differentiable]
    fn total(&self, #[constant] x: [f64; 2]) -> f64 {
        let mut s = 0.0;
        for neuron in &self.neurons {
            s += neuron.forward(x);
        }
        let first = &self.neurons[0];
        s + 2.0 * first.forward(x)
    }
}

#[test]
fn methods_on_models_bound_by_let_and_for_record_on_the_same_tape() {
    let layer = Layer {
        neurons: vec![
            Neuron {
                w: [0.4, -0.7],
                b: 0.1,
            },
            Neuron {
                w: [-0.2, 0.9],
                b: -0.3,
            },
        ],
    };
    let x = [0.6, -1.2];
    let got = layer.total_grad(x).unwrap();
    let t: Vec<f64> = layer.neurons.iter().map(|n| n.forward(x)).collect();
    assert!((got.value - (3.0 * t[0] + t[1])).abs() < 1e-12);
    // ∂/∂b_j = weight_j (1 − t_j²), weight 3 for the first neuron.
    assert!((got.gradient.neurons[0].b - 3.0 * (1.0 - t[0] * t[0])).abs() < 1e-12);
    assert!((got.gradient.neurons[1].b - (1.0 - t[1] * t[1])).abs() < 1e-12);
    assert!(layer.total_check(x).unwrap().passed());
}
