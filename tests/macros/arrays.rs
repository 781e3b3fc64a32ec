//! Vector parameters through `#[differentiable]`: arrays (nested too),
//! slices and vectors, indexing, loops over indices and elements, local
//! arrays and vectors that receive tracked values, and exact iterator sums.
//! Oracles: hand-written backward passes and central differences.

use autodiff::prelude::*;

use crate::oracle::{assert_all_close, close};

#[differentiable]
fn dot(w: [f64; 3], x: &[f64]) -> f64 {
    let mut y = [0.0; 3];
    for i in 0..w.len() {
        y[i] = w[i] * x[i];
    }
    y.iter().sum::<f64>()
}

#[test]
fn array_and_slice_parameters_have_gradients_of_their_shape() {
    let w = [0.5, -1.0, 2.0];
    let x = vec![3.0, 4.0, -0.25];
    let result = dot_grad(w, &x).unwrap();
    assert_eq!(result.value, dot(w, &x));
    let (dw, dx): ([f64; 3], Vec<f64>) = result.gradient;
    assert_eq!(dw, [3.0, 4.0, -0.25], "∂/∂w = x");
    assert_eq!(dx, vec![0.5, -1.0, 2.0], "∂/∂x = w");
    let check = dot_check(w, &x).unwrap();
    assert_eq!(check.components.len(), 6);
    assert!(check.passed(), "{check}");
}

/// A linear layer and squared error: y = W x + b, L = ½ Σ (y − t)².
#[differentiable]
fn linear_loss(w: [[f64; 3]; 2], b: Vec<f64>, x: [f64; 3], #[constant] t: [f64; 2]) -> f64 {
    let mut loss = 0.0;
    for r in 0..2 {
        let mut y = b[r];
        for c in 0..3 {
            y += w[r][c] * x[c];
        }
        let e = y - t[r];
        loss += 0.5 * e * e;
    }
    loss
}

#[test]
fn nested_arrays_and_vec_against_the_hand_written_backward_pass() {
    let w = [[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]];
    let b = vec![0.05, -0.1];
    let x = [1.0, 2.0, -1.5];
    let t = [0.2, -0.3];
    // Forward, then W̄ = ȳ xᵀ, b̄ = ȳ, x̄ = Wᵀ ȳ with ȳ = y − t.
    let mut ybar = [0.0; 2];
    for r in 0..2 {
        let y: f64 = b[r] + (0..3).map(|c| w[r][c] * x[c]).sum::<f64>();
        ybar[r] = y - t[r];
    }
    let result = linear_loss_grad(w, b.clone(), x, t).unwrap();
    let (dw, db, dx) = result.gradient;
    for r in 0..2 {
        for c in 0..3 {
            assert!(close(dw[r][c], ybar[r] * x[c], 1e-12));
        }
    }
    assert_all_close(&db, &ybar, 1e-12);
    let expected_dx: Vec<f64> = (0..3)
        .map(|c| w[0][c] * ybar[0] + w[1][c] * ybar[1])
        .collect();
    assert_all_close(&dx, &expected_dx, 1e-12);
    assert_eq!(result.value, linear_loss(w, b.clone(), x, t));
    let check = linear_loss_check(w, b, x, t).unwrap();
    assert_eq!(check.components.len(), 6 + 2 + 3);
    assert!(check.passed(), "{check}");
}

/// Softmax cross-entropy over a slice, with a class index.
#[differentiable]
fn cross_entropy(z: &[f64], target: usize) -> f64 {
    let mut m = z[0];
    for v in z.iter() {
        m = m.max(*v);
    }
    let mut exps = Vec::new();
    for v in z {
        exps.push((*v - m).exp());
    }
    let total = exps.iter().sum::<f64>();
    total.ln() - (z[target] - m)
}

#[test]
fn softmax_cross_entropy_gradient_is_p_minus_one_hot() {
    // Lesson 15: z = [2, 1, 0.5, -0.5], first class: L = 0.5147, z̄₃ = 0.1334.
    let z = [2.0, 1.0, 0.5, -0.5];
    let result = cross_entropy_grad(&z, 0).unwrap();
    assert!((result.value - 0.5147).abs() < 5e-5, "{}", result.value);
    let total: f64 = z.iter().map(|v: &f64| v.exp()).sum();
    let p: Vec<f64> = z.iter().map(|v| v.exp() / total).collect();
    let mut expected = p.clone();
    expected[0] -= 1.0;
    assert_all_close(&result.gradient, &expected, 1e-12);
    assert!((result.gradient[2] - 0.1334).abs() < 5e-5);
    assert!(result.gradient.iter().sum::<f64>().abs() < 1e-15);
    assert!(cross_entropy_check(&z, 2).unwrap().passed());
    assert_eq!(cross_entropy(&z, 0), result.value);
}

#[differentiable]
fn elements(x: Vec<f64>) -> f64 {
    let mut total = 0.0;
    for v in x.iter() {
        total += v * v;
    }
    let n = x.len() as f64;
    let mut squares = vec![0.0; x.len()];
    for (i, v) in x.iter().enumerate() {
        squares[i] = v.powi(2);
    }
    total / n + squares.iter().sum::<f64>() + x.iter().sum::<f64>()
}

#[test]
fn loops_over_elements_local_vecs_len_and_sums() {
    let x = vec![1.0, -2.0, 0.5, 3.0];
    let n = x.len() as f64;
    let result = elements_grad(x.clone()).unwrap();
    let expected: Vec<f64> = x.iter().map(|v| 2.0 * v / n + 2.0 * v + 1.0).collect();
    assert_all_close(&result.gradient, &expected, 1e-12);
    assert_eq!(result.value, elements(x.clone()));
    assert!(elements_check(x).unwrap().passed());
}

#[test]
fn an_empty_sum_is_zero() {
    #[differentiable]
    fn sum_all(x: &[f64]) -> f64 {
        x.iter().sum::<f64>()
    }
    let result = sum_all_grad(&[]).unwrap();
    assert_eq!((result.value, result.gradient), (0.0, Vec::new()));
    // No items sum to −0.0 in Rust (`Sum for f64`): the compiled adjoint
    // and the tape give the plain function's bits.
    let tape = sum_all_grad_tape(&[]).unwrap();
    assert_eq!(sum_all(&[]).to_bits(), (-0.0_f64).to_bits());
    assert_eq!(result.value.to_bits(), sum_all(&[]).to_bits());
    assert_eq!(tape.value.to_bits(), sum_all(&[]).to_bits());
    assert_eq!(sum_all(&[1.0, 2.0]), 3.0);
    assert_eq!(sum_all_grad(&[1.0, 2.0]).unwrap().gradient, vec![1.0, 1.0]);
}

#[differentiable]
fn mlp(w1: [[f64; 2]; 3], w2: [f64; 3], x: [f64; 2], #[constant] target: f64) -> f64 {
    let mut h = [0.0; 3];
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..2 {
            z += w1[j][i] * x[i];
        }
        h[j] = z.tanh();
    }
    let mut y = 0.0;
    for j in 0..3 {
        y += w2[j] * h[j];
    }
    let e = y - target;
    e * e
}

#[test]
fn two_layer_tanh_mlp_against_the_right_to_left_backward_pass() {
    let w1 = [[0.3, -0.1], [0.2, 0.4], [-0.5, 0.25]];
    let w2 = [0.7, -0.3, 0.45];
    let x = [1.5, -0.5];
    let target = 0.2;
    let z: Vec<f64> = (0..3).map(|j| w1[j][0] * x[0] + w1[j][1] * x[1]).collect();
    let h: Vec<f64> = z.iter().map(|z| z.tanh()).collect();
    let y: f64 = (0..3).map(|j| w2[j] * h[j]).sum();
    let ybar = 2.0 * (y - target);
    let hbar: Vec<f64> = (0..3).map(|j| ybar * w2[j]).collect();
    let zbar: Vec<f64> = (0..3).map(|j| hbar[j] * (1.0 - h[j] * h[j])).collect();
    let result = mlp_grad(w1, w2, x, target).unwrap();
    let (dw1, dw2, dx) = result.gradient;
    for j in 0..3 {
        assert!(close(dw2[j], ybar * h[j], 1e-12));
        for i in 0..2 {
            assert!(close(dw1[j][i], zbar[j] * x[i], 1e-12));
        }
    }
    for i in 0..2 {
        let expected: f64 = (0..3).map(|j| zbar[j] * w1[j][i]).sum();
        assert!(close(dx[i], expected, 1e-12));
    }
    assert_eq!(result.value, mlp(w1, w2, x, target));
    assert!(mlp_check(w1, w2, x, target).unwrap().passed());
}

#[differentiable]
fn first_and_len(x: [f64; 4], k: usize) -> f64 {
    let local = [x[0], 2.0 * x[1], 3.0];
    local[0] * local[1] + local[2] * x[k] + x.len() as f64
}

#[test]
fn local_arrays_mixing_tracked_and_plain_values() {
    let x = [1.0, 2.0, 3.0, 4.0];
    let result = first_and_len_grad(x, 3).unwrap();
    assert_eq!(result.value, first_and_len(x, 3));
    assert_eq!(result.gradient, [4.0, 2.0, 0.0, 3.0]);
}

#[test]
fn non_finite_components_are_rejected() {
    let error = dot_grad([1.0, f64::NAN, 0.0], &[1.0, 2.0, 3.0]).unwrap_err();
    assert_eq!(error.code(), "non-finite-leaf");
    assert_eq!(error.label().unwrap().text, "w");
}

#[test]
fn grad_on_a_kept_tape_matches_a_fresh_one_and_reuses_its_memory() {
    let w1 = [[0.3, -0.1], [0.2, 0.4], [-0.5, 0.25]];
    let w2 = [0.7, -0.3, 0.45];
    let mut tape = Tape::new();
    let first = mlp_grad_on(&mut tape, w1, w2, [1.5, -0.5], 0.2).unwrap();
    assert_eq!(first, mlp_grad(w1, w2, [1.5, -0.5], 0.2).unwrap());
    // The compiled adjoint needs no tape: the kept one serves the fallback.
    assert!(tape.is_empty());
    // The tape path on the kept tape: recorded, then cleared and reused.
    let first = mlp_grad_tape_on(&mut tape, w1, w2, [1.5, -0.5], 0.2).unwrap();
    assert_eq!(first, mlp_grad_tape(w1, w2, [1.5, -0.5], 0.2).unwrap());
    let (nodes, capacity) = (tape.len(), tape.capacity());
    assert!(nodes > 0);
    // A second step on the same tape: cleared, same graph size, no growth.
    let second = mlp_grad_tape_on(&mut tape, w1, w2, [0.5, 2.0], -0.1).unwrap();
    assert_eq!(second, mlp_grad_tape(w1, w2, [0.5, 2.0], -0.1).unwrap());
    assert_eq!((tape.len(), tape.capacity()), (nodes, capacity));
}

#[differentiable]
fn nested_shapes(rows: Vec<Vec<f64>>, pairs: &[[f64; 2]]) -> f64 {
    let mut total = 0.0;
    for row in rows.iter() {
        for v in row.iter() {
            total += v * v;
        }
    }
    for pair in pairs {
        total += pair[0] * pair[1];
    }
    total
}

#[test]
fn vec_of_vecs_and_slices_of_arrays_have_gradients_of_their_shape() {
    let rows = vec![vec![1.0, 2.0], vec![3.0]];
    let pairs = [[0.5, 4.0], [-1.0, 2.0]];
    let result = nested_shapes_grad(rows.clone(), &pairs).unwrap();
    assert_eq!(result.value, nested_shapes(rows.clone(), &pairs));
    let (drows, dpairs): (Vec<Vec<f64>>, Vec<[f64; 2]>) = result.gradient;
    assert_eq!(drows, vec![vec![2.0, 4.0], vec![6.0]]);
    assert_eq!(dpairs, vec![[4.0, 0.5], [2.0, -1.0]]);
    let check = nested_shapes_check(rows, &pairs).unwrap();
    assert_eq!(check.components.len(), 3 + 4);
    assert!(check.passed(), "{check}");
}
