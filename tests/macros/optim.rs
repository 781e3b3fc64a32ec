//! The optimisers against hand computations on a 3-parameter model: three
//! steps with fixed gradients, every intermediate number derived on paper
//! from the update rules (written out in the comments), none from the
//! optimiser code. Then the errors: a gradient of another shape changes
//! nothing.

use autodiff::prelude::*;
use autodiff::{ShapeMismatch, StepError};

use crate::oracle::close_to_scale;

const GRADIENTS: [[f64; 3]; 3] = [[1.0, 0.0, -2.0], [1.0, 1.0, 0.0], [0.0, -1.0, 2.0]];

/// Every component within `tolerance`, absolutely: a scale of 1.
#[track_caller]
fn close(actual: [f64; 3], expected: [f64; 3], tolerance: f64) {
    for (i, (a, e)) in actual.iter().zip(expected).enumerate() {
        assert!(
            close_to_scale(*a, e, tolerance, 1.0),
            "component {i}: got {a}, expected {e}"
        );
    }
}

#[test]
fn plain_sgd_subtracts_the_scaled_gradient() {
    let mut w = [1.0, 2.0, 3.0];
    let mut sgd = Sgd::new(0.5);
    let expected = [
        // p − 0.5·g, step by step.
        [0.5, 2.0, 4.0],
        [0.0, 1.5, 4.0],
        [0.0, 2.0, 3.0],
    ];
    for (g, e) in GRADIENTS.iter().zip(expected) {
        sgd.step(&mut w, g).unwrap();
        close(w, e, 1e-15);
    }
}

#[test]
fn sgd_with_momentum_matches_the_hand_computation() {
    let mut w = [1.0, 2.0, 3.0];
    let mut sgd = Sgd::new(0.1).with_momentum(0.9);
    // v1 = g1 = [1, 0, -2];                       p1 = p0 - 0.1 v1 = [0.9, 2, 3.2]
    // v2 = 0.9 v1 + g2 = [1.9, 1, -1.8];          p2 = [0.71, 1.9, 3.38]
    // v3 = 0.9 v2 + g3 = [1.71, -0.1, 0.38];      p3 = [0.539, 1.91, 3.342]
    let expected = [[0.9, 2.0, 3.2], [0.71, 1.9, 3.38], [0.539, 1.91, 3.342]];
    for (g, e) in GRADIENTS.iter().zip(expected) {
        sgd.step(&mut w, g).unwrap();
        close(w, e, 1e-12);
    }
}

#[test]
fn adam_matches_the_hand_computation() {
    let mut w = [1.0, 2.0, 3.0];
    let mut adam = Adam::new(0.1);
    // ε = 1e-8 moves each step by at most lr·ε/√v̂ ≈ 1e-8: the tolerance.
    let tolerance = 1e-7;

    // Step 1: m = 0.1 g, v = 0.001 g², m̂ = g, v̂ = g²: a step of lr·sign(g)
    // (zero where g is zero).
    adam.step(&mut w, &GRADIENTS[0]).unwrap();
    close(w, [0.9, 2.0, 3.1], tolerance);

    // Step 2: m = 0.9 m1 + 0.1 g2 = [0.19, 0.1, -0.18], bias 1 - 0.9² = 0.19;
    // v = 0.999 v1 + 0.001 g2² = [0.001999, 0.001, 0.003996], bias
    // 1 - 0.999² = 0.001999.
    let step2 = |m: f64, v: f64| 0.1 * (m / 0.19) / (v / 0.001999).sqrt();
    let p2 = [
        0.9 - step2(0.19, 0.001999),
        2.0 - step2(0.1, 0.001),
        3.1 - step2(-0.18, 0.003996),
    ];
    adam.step(&mut w, &GRADIENTS[1]).unwrap();
    close(w, p2, tolerance);
    // The first component is again a full step of 0.1: its gradient never
    // changed.
    assert!((p2[0] - 0.8).abs() < 1e-12);

    // Step 3: m = 0.9 m2 + 0.1 g3 = [0.171, -0.01, 0.038], bias 0.271;
    // v = 0.999 v2 + 0.001 g3² = [0.001997001, 0.001999, 0.007992004], bias
    // 1 - 0.999³ = 0.002997001.
    let step3 = |m: f64, v: f64| 0.1 * (m / 0.271) / (v / 0.002997001).sqrt();
    let p3 = [
        p2[0] - step3(0.171, 0.001997001),
        p2[1] - step3(-0.01, 0.001999),
        p2[2] - step3(0.038, 0.007992004),
    ];
    adam.step(&mut w, &GRADIENTS[2]).unwrap();
    close(w, p3, tolerance);
    // Written out: [0.72270, 1.93010, 3.15842] to five places.
    close(w, [0.72270, 1.93010, 3.15842], 5e-6);
}

#[test]
fn a_gradient_of_another_shape_changes_neither_model_nor_optimiser() {
    let mut w = vec![1.0, 2.0, 3.0];
    let mut sgd = Sgd::new(0.1).with_momentum(0.9);
    sgd.step(&mut w, &vec![1.0, 1.0, 1.0]).unwrap();
    let (model_before, sgd_before) = (w.clone(), sgd.clone());
    let err = sgd.step(&mut w, &vec![1.0, 1.0]).unwrap_err();
    assert_eq!(
        err,
        StepError::Shape(ShapeMismatch {
            expected: 3,
            found: 2
        })
    );
    assert_eq!((w.clone(), sgd.clone()), (model_before, sgd_before));

    // A model of another size than the optimiser's first step.
    let mut other = vec![1.0; 4];
    let err = sgd.step(&mut other, &vec![0.0; 4]).unwrap_err();
    assert_eq!(
        err,
        StepError::Shape(ShapeMismatch {
            expected: 3,
            found: 4
        })
    );
    assert_eq!(other, [1.0; 4]);

    let mut adam = Adam::new(0.1);
    let err = adam.step(&mut w, &vec![1.0]).unwrap_err();
    assert_eq!(
        err,
        StepError::Shape(ShapeMismatch {
            expected: 3,
            found: 1
        })
    );
    assert_eq!(adam, Adam::new(0.1));
}

#[test]
fn a_gradient_that_is_not_finite_changes_neither_model_nor_optimiser() {
    // A gradient built or edited by hand; `f_grad` never returns one.
    let mut w = vec![1.0, 2.0, 3.0];
    let mut sgd = Sgd::new(0.1).with_momentum(0.9);
    let mut adam = Adam::new(0.1);
    // Before any step: nothing allocated, nothing counted.
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let gradient = vec![0.5, -0.25, bad];
        let err = sgd.step(&mut w, &gradient).unwrap_err();
        assert_eq!(
            err,
            StepError::NonFiniteGradient {
                index: 2,
                value: bad
            }
        );
        let err = adam.step(&mut w, &gradient).unwrap_err();
        assert_eq!(
            err,
            StepError::NonFiniteGradient {
                index: 2,
                value: bad
            }
        );
        assert!(err
            .to_string()
            .starts_with("the gradient's component 2 is "));
        assert_eq!(w, [1.0, 2.0, 3.0]);
        assert_eq!(
            (&sgd, &adam),
            (&Sgd::new(0.1).with_momentum(0.9), &Adam::new(0.1))
        );
    }
    // After a step: the model, the velocity and Adam's moments and count
    // stay as they were; the next good step is the one it would have been.
    sgd.step(&mut w, &vec![1.0, 1.0, 1.0]).unwrap();
    adam.step(&mut w, &vec![1.0, 1.0, 1.0]).unwrap();
    let before = (w.clone(), sgd.clone(), adam.clone());
    let err = sgd.step(&mut w, &vec![f64::NAN, 1.0, 1.0]).unwrap_err();
    assert_eq!(
        err,
        StepError::NonFiniteGradient {
            index: 0,
            value: f64::NAN
        }
    );
    adam.step(&mut w, &vec![1.0, f64::INFINITY, 1.0])
        .unwrap_err();
    assert_eq!((w.clone(), sgd.clone(), adam.clone()), before);
    // A model's order: the first component `visit` walks is index 0.
    let mut pair = ([1.0, 2.0], 3.0);
    let err = Sgd::new(0.1)
        .step(&mut pair, &([0.0, 0.0], f64::NAN))
        .unwrap_err();
    assert_eq!(
        err,
        StepError::NonFiniteGradient {
            index: 2,
            value: f64::NAN
        }
    );
    assert_eq!(pair, ([1.0, 2.0], 3.0));
}

/// `e = w·x + b − y` with `x = [2, −1]`, `y = 1`; loss `e²`. Its gradient
/// by hand: `∂/∂w = 2e·x`, `∂/∂b = 2e`.
#[differentiable]
fn line_loss(w: [f64; 2], b: f64) -> f64 {
    let e = w[0] * 2.0 - w[1] + b - 1.0;
    e * e
}

#[differentiable]
fn line_loss_vec(w: Vec<f64>, b: f64) -> f64 {
    let e = w[0] * 2.0 - w[1] + b - 1.0;
    e * e
}

#[test]
fn a_tuple_of_parameters_steps_sgd_with_momentum_as_by_hand() {
    let mut params = ([1.0, 2.0], 0.5);
    let mut sgd = Sgd::new(0.1).with_momentum(0.5);
    // Step 1: e = 2 − 2 + 0.5 − 1 = −0.5, g = (2e·[2, −1], 2e) = ([−2, 1], −1);
    // v1 = g1, p1 = p0 − 0.1 v1 = ([1.2, 1.9], 0.6).
    let grad = line_loss_grad(params.0, params.1).unwrap().gradient;
    assert_eq!(grad, ([-2.0, 1.0], -1.0));
    sgd.step(&mut params, &grad).unwrap();
    close([params.0[0], params.0[1], params.1], [1.2, 1.9, 0.6], 1e-15);
    // Step 2: e = 2.4 − 1.9 + 0.6 − 1 = 0.1, g2 = ([0.4, −0.2], 0.2);
    // v2 = 0.5 v1 + g2 = ([−0.6, 0.3], −0.3), p2 = ([1.26, 1.87], 0.63).
    let grad = line_loss_grad(params.0, params.1).unwrap().gradient;
    sgd.step(&mut params, &grad).unwrap();
    close(
        [params.0[0], params.0[1], params.1],
        [1.26, 1.87, 0.63],
        1e-12,
    );
}

#[test]
fn a_tuple_with_a_vec_steps_adam_as_by_hand() {
    let mut params = (vec![1.0, 2.0], 0.5);
    let mut adam = Adam::new(0.1);
    // Step 1: g = ([−2, 1], −1) (above); Adam's first step is lr·sign(g).
    let grad = line_loss_vec_grad(params.0.clone(), params.1)
        .unwrap()
        .gradient;
    assert_eq!(grad, (vec![-2.0, 1.0], -1.0));
    adam.step(&mut params, &grad).unwrap();
    close([params.0[0], params.0[1], params.1], [1.1, 1.9, 0.6], 1e-7);
    // Step 2: e = 2.2 − 1.9 + 0.6 − 1 = −0.1, g2 = ([−0.4, 0.2], −0.2).
    // m = 0.9·0.1 g1 + 0.1 g2, v = 0.999·0.001 g1² + 0.001 g2², with the
    // biases 1 − 0.9² = 0.19 and 1 − 0.999² = 0.001999.
    let g1: [f64; 3] = [-2.0, 1.0, -1.0];
    let g2: [f64; 3] = [-0.4, 0.2, -0.2];
    let p1 = [1.1, 1.9, 0.6];
    let expected: [f64; 3] = std::array::from_fn(|k| {
        let m = 0.09 * g1[k] + 0.1 * g2[k];
        let v = 0.000999 * g1[k] * g1[k] + 0.001 * g2[k] * g2[k];
        p1[k] - 0.1 * (m / 0.19) / (v / 0.001999).sqrt()
    });
    let grad = line_loss_vec_grad(params.0.clone(), params.1)
        .unwrap()
        .gradient;
    adam.step(&mut params, &grad).unwrap();
    close([params.0[0], params.0[1], params.1], expected, 1e-7);

    // A gradient whose `Vec` component has another length: an error that
    // changes neither the parameters nor the optimiser.
    let (before, adam_before) = (params.clone(), adam.clone());
    let err = adam.step(&mut params, &(vec![1.0], 1.0)).unwrap_err();
    assert_eq!(
        err,
        StepError::Shape(ShapeMismatch {
            expected: 3,
            found: 2
        })
    );
    assert_eq!((params, adam), (before, adam_before));
}

#[test]
fn a_tuple_flattens_and_rebuilds_components_first_to_last() {
    let mut params = ([1.0, 2.0], 3.0, vec![4.0, 5.0]);
    assert_eq!(params.scalars(), [1.0, 2.0, 3.0, 4.0, 5.0]);
    params
        .set_from_slice(&[-1.0, -2.0, -3.0, -4.0, -5.0])
        .unwrap();
    assert_eq!(params, ([-1.0, -2.0], -3.0, vec![-4.0, -5.0]));
    let err = params.set_from_slice(&[0.0; 4]).unwrap_err();
    assert_eq!((err.expected, err.found), (5, 4));
    assert_eq!(params, ([-1.0, -2.0], -3.0, vec![-4.0, -5.0]));
    assert_eq!(params.zeroed(), ([0.0; 2], 0.0, vec![0.0; 2]));
    assert_eq!(params.norm(), 55.0_f64.sqrt());
}
