//! Structs as models: `#[derive(Parameters)]` on nested structs, taken by
//! `#[differentiable]` functions by value and by reference. Oracles: the
//! gradient written out by hand for a small model, and central differences
//! (`f_check`) for every component of a nested one; the `Parameters` walks
//! against the fields read by hand.
// Index loops on purpose: a #[differentiable] body reads the weights the
// way the formulas index them.
#![allow(clippy::needless_range_loop)]

use autodiff::prelude::*;

#[path = "../support/nested_net.rs"]
mod nested_net;
use nested_net::{net, Net};

/// Two tanh layers, then a weighted sum; `table` enters as a product.
#[differentiable]
fn forward(net: &Net, #[constant] x: [f64; 2]) -> f64 {
    let mut h = [x[0], x[1]];
    for k in 0..net.layers.len() {
        let mut next = [0.0; 2];
        for j in 0..net.width {
            let mut s = net.layers[k].b[j];
            for i in 0..2 {
                s += net.layers[k].w[j][i] * h[i];
            }
            next[j] = s.tanh();
        }
        h = next;
    }
    let extra = net.table[0][0] * net.table[1][0] + net.table[1][1];
    net.scale * (net.out[0] * h[0] + net.out[1] * h[1]) + extra
}

#[test]
fn the_gradient_of_a_nested_model_is_the_model_type_and_passes_the_check() {
    let net = net();
    let result = forward_grad(&net, [0.7, -1.1]).unwrap();
    let grad: Net = result.gradient;
    // Shaped like the model, constants carried.
    assert_eq!(grad.layers.len(), 2);
    assert_eq!(grad.layers[1].b.len(), 2);
    assert_eq!(grad.table[1].len(), 2);
    assert_eq!((grad.name.as_str(), grad.width), ("net", 2));
    // The product term, by hand: ∂/∂t00 = t10, ∂/∂t10 = t00, ∂/∂t11 = 1.
    assert_eq!(grad.table, [vec![-0.1], vec![0.3, 1.0]]);
    // Every one of the 18 components (2 layers of 4 + 2, then 2 + 1 + 3)
    // against central differences.
    let check = forward_check(&net, [0.7, -1.1]).unwrap();
    assert!(check.passed(), "{check}");
    assert_eq!(grad.num_scalars(), 18);
    assert_eq!(net.scalars().len(), 18);
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Affine {
    w: [f64; 2],
    b: f64,
    #[constant]
    label: &'static str,
}

#[differentiable]
fn squared_error(model: Affine, #[constant] x: [f64; 2], #[constant] y: f64) -> f64 {
    let e = model.w[0] * x[0] + model.w[1] * x[1] + model.b - y;
    e * e
}

#[test]
fn a_model_by_value_gets_the_hand_written_gradient() {
    let model = Affine {
        w: [2.0, -1.0],
        b: 0.5,
        label: "affine",
    };
    // e = 2·3 − 1·4 + 0.5 − 1 = 1.5: ∂/∂w = 2e·x = [9, 12], ∂/∂b = 2e = 3.
    let result = squared_error_grad(model.clone(), [3.0, 4.0], 1.0).unwrap();
    assert_eq!(result.value, 2.25);
    assert_eq!(
        result.gradient,
        Affine {
            w: [9.0, 12.0],
            b: 3.0,
            label: "affine",
        }
    );
    assert!(squared_error_check(model, [3.0, 4.0], 1.0)
        .unwrap()
        .passed());
}

/// A model of models, and a slice of them by value of their `Vec`.
#[differentiable]
fn ensemble(members: Vec<Affine>, #[constant] x: [f64; 2]) -> f64 {
    let mut total = 0.0;
    for m in 0..members.len() {
        total += members[m].w[0] * x[0] + members[m].w[1] * x[1] + members[m].b;
    }
    total * total
}

#[test]
fn a_vec_of_models_is_a_parameter_too() {
    let members = vec![
        Affine {
            w: [1.0, 0.0],
            b: 0.0,
            label: "a",
        },
        Affine {
            w: [0.0, 1.0],
            b: 1.0,
            label: "b",
        },
    ];
    // total = 1·2 + 1·3 + 1 = 6: every ∂/∂w = 2·6·x = [24, 36], ∂/∂b = 12.
    let grad = ensemble_grad(members.clone(), [2.0, 3.0]).unwrap().gradient;
    assert_eq!(grad[0].w, [24.0, 36.0]);
    assert_eq!(grad[1].b, 12.0);
    assert_eq!(grad[1].label, "b");
    assert!(ensemble_check(members, [2.0, 3.0]).unwrap().passed());
}

#[test]
fn parameters_walks_fields_in_order_and_skips_constants() {
    let mut net = net();
    let flat = net.scalars();
    let mut by_hand = Vec::new();
    for layer in &net.layers {
        by_hand.extend(layer.w.iter().flatten());
        by_hand.extend(&layer.b);
    }
    by_hand.extend(net.out);
    by_hand.push(net.scale);
    by_hand.extend(net.table.iter().flatten());
    assert_eq!(flat, by_hand);

    let zero = net.zeroed();
    assert_eq!(zero.scalars(), vec![0.0; 18]);
    assert_eq!((zero.name.as_str(), zero.width), ("net", 2));

    let grad = forward_grad(&net, [0.7, -1.1]).unwrap().gradient;
    let squares: f64 = grad.scalars().iter().map(|g| g * g).sum();
    assert_eq!(grad.norm(), squares.sqrt());
    let before = net.clone();
    net.update(&grad, |p, g| *p -= 0.1 * g).unwrap();
    for ((after, before), g) in net
        .scalars()
        .iter()
        .zip(before.scalars())
        .zip(grad.scalars())
    {
        assert_eq!(*after, before - 0.1 * g);
    }

    // A gradient whose `Vec`s differ in length is refused, the model kept.
    let mut short = grad.clone();
    short.layers.pop();
    let kept = net.clone();
    assert!(net.update(&short, |p, g| *p -= g).is_err());
    assert_eq!(net, kept);
}

/// A model where missing docs are an error: the derived twin and its
/// fields must be documented.
#[deny(missing_docs)]
pub mod documented {
    use autodiff::prelude::*;

    /// A bias alone.
    #[derive(Clone, Parameters)]
    pub struct Bias {
        /// The bias.
        pub b: f64,
        /// Its name.
        #[constant]
        pub name: &'static str,
    }
}

#[test]
fn a_documented_model_derives_under_deny_missing_docs() {
    let bias = documented::Bias { b: 2.0, name: "b" };
    assert_eq!(bias.scalars(), [2.0]);
}

#[differentiable]
fn pair_sum(pair: [Affine; 2], others: &[Affine], #[constant] x: [f64; 2]) -> f64 {
    let mut total = pair[0].b * pair[1].b;
    for m in 0..others.len() {
        total += others[m].w[0] * x[0] * pair[0].w[1];
    }
    total
}

#[test]
fn arrays_and_slices_of_models_are_parameters_too() {
    let affine = |w0: f64, w1: f64, b: f64| Affine {
        w: [w0, w1],
        b,
        label: "m",
    };
    let pair = [affine(1.0, 2.0, 3.0), affine(4.0, 5.0, 6.0)];
    let others = vec![affine(0.5, 0.0, 0.0), affine(-1.0, 0.0, 0.0)];
    // total = b0·b1 + Σ o.w0·x0·p0.w1: ∂/∂b0 = b1 = 6, ∂/∂b1 = b0 = 3,
    // ∂/∂p0.w1 = Σ o.w0·x0 = (0.5 − 1)·2 = −1, ∂/∂o.w0 = x0·p0.w1 = 4.
    let (dpair, dothers) = pair_sum_grad(pair.clone(), &others, [2.0, 7.0])
        .unwrap()
        .gradient;
    assert_eq!((dpair[0].b, dpair[1].b, dpair[0].w[1]), (6.0, 3.0, -1.0));
    assert_eq!((dothers[0].w[0], dothers[1].w[0]), (4.0, 4.0));
    assert!(pair_sum_check(pair, &others, [2.0, 7.0]).unwrap().passed());
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct TwoAffine {
    first: Affine,
    second: Affine,
}

#[differentiable]
fn affine_out(model: &Affine, #[constant] x: [f64; 2]) -> f64 {
    model.w[0] * x[0] + model.w[1] * x[1] + model.b
}

/// Calls between annotated functions: a part of the model by reference,
/// and the whole model by value passed on by reference.
#[differentiable]
fn chained(model: TwoAffine, #[constant] x: [f64; 2]) -> f64 {
    let h = affine_out(&model.first, x);
    let y = affine_out(&model.second, x) * h;
    y * y
}

#[test]
fn annotated_functions_pass_models_and_their_parts_to_each_other() {
    let model = TwoAffine {
        first: Affine {
            w: [1.0, 2.0],
            b: 0.5,
            label: "first",
        },
        second: Affine {
            w: [3.0, -1.0],
            b: 0.25,
            label: "second",
        },
    };
    // h = 1·1 + 2·2 + 0.5 = 5.5, s = 3·1 − 1·2 + 0.25 = 1.25, y = s·h =
    // 6.875; ∂/∂second.w = 2y·h·x = [75.625, 151.25], ∂/∂first.b = 2y·s =
    // 17.1875.
    let grad = chained_grad(model.clone(), [1.0, 2.0]).unwrap().gradient;
    assert_eq!(grad.second.w, [75.625, 151.25]);
    assert_eq!(grad.first.b, 17.1875);
    assert_eq!(grad.first.label, "first");
    assert!(chained_check(model, [1.0, 2.0]).unwrap().passed());
}
