//! Lesson 15's examples through `#[differentiable]`, each against an
//! independent oracle: the hand-written backward pass and its costate
//! relabelling, the lesson's closed forms, and central differences.

#[path = "../examples/support/exercises.rs"]
mod exercises;
#[path = "../examples/support/lesson15.rs"]
mod lesson15;
#[path = "support/oracle.rs"]
#[allow(dead_code)]
mod oracle;

use autodiff::{default_step, gradient_check, DEFAULT_TOLERANCE};
use exercises::*;
use lesson15::*;
use oracle::{assert_all_close_named, close};

fn flat<const R: usize, const C: usize>(m: &[[f64; C]; R]) -> Vec<f64> {
    m.iter().flatten().copied().collect()
}

#[test]
fn mlp_matches_the_right_to_left_backward_pass_and_its_costate_relabelling() {
    let (w1, w2, x, t) = mlp_setup();
    let result = mlp_loss_grad(w1, w2, x, t).unwrap();
    let by_hand = mlp_backward(&w1, &w2, &x, t);
    let costate = mlp_costate(&w1, &w2, &x, t);
    // The costate recursion is the same arithmetic renamed: equal to the bit.
    assert_eq!(flat(&by_hand.w1), flat(&costate.w1));
    assert_eq!(by_hand.w2, costate.w2);
    assert_eq!(by_hand.x, costate.x);

    let (dw1, dw2, dx) = result.gradient;
    assert!(close(result.value, by_hand.loss, 1e-15));
    assert_eq!(result.value, mlp_loss(w1, w2, x, t));
    assert_all_close_named(&flat(&dw1), &flat(&by_hand.w1), 1e-14, "W̄1");
    assert_all_close_named(&dw2, &by_hand.w2, 1e-14, "W̄2");
    assert_all_close_named(&dx, &by_hand.x, 1e-14, "x̄");
    assert!(mlp_loss_check(w1, w2, x, t).unwrap().passed());
}

#[test]
fn linear_layer_gradients_are_outer_product_upstream_and_transpose() {
    let mut rng = Rng::new(16);
    let w: [[f64; 3]; 5] = rng.matrix(0.5);
    let b: [f64; 3] = rng.vector(0.5);
    let x = [0.1, -0.3, 0.2, 0.4, -0.1];
    let y_bar = [1.0, -0.5, 0.25];
    let (dw, db, dx) = linear_probe_grad(w, b, x, y_bar).unwrap().gradient;
    assert_all_close_named(&flat(&dw), &flat(&outer(&x, &y_bar)), 1e-15, "W̄ = xᵀȳ");
    assert_eq!(db, y_bar, "b̄ = ȳ");
    assert_all_close_named(&dx, &row_times_transpose(&y_bar, &w), 1e-15, "x̄ = ȳWᵀ");
    // x̄ = ȳWᵀ is the adjoint of x ↦ xW: ⟨xW, ȳ⟩ = ⟨x, ȳWᵀ⟩.
    let lhs: f64 = row_times(&x, &w)
        .iter()
        .zip(&y_bar)
        .map(|(a, b)| a * b)
        .sum();
    let rhs: f64 = x.iter().zip(&dx).map(|(a, b)| a * b).sum();
    assert!(close(lhs, rhs, 1e-15));
}

#[test]
fn minibatch_weight_gradient_is_a_sum_of_outer_products_with_no_one_over_b() {
    let mut rng = Rng::new(17);
    let w: [[f64; 3]; 5] = rng.matrix(0.5);
    let b: [f64; 3] = rng.vector(0.5);
    let x: [[f64; 5]; 4] = rng.matrix(1.0);
    let y_bar: [[f64; 3]; 4] = rng.matrix(1.0);
    let (dw, db, dx) = batch_probe_grad(w, b, x, y_bar).unwrap().gradient;
    // W̄ = XᵀȲ, b̄ = 1ᵀȲ, X̄ = ȲWᵀ row by row.
    let mut expected_w = [[0.0; 3]; 5];
    for r in 0..4 {
        for (row, outer_row) in expected_w.iter_mut().zip(outer(&x[r], &y_bar[r])) {
            for (e, o) in row.iter_mut().zip(outer_row) {
                *e += o;
            }
        }
    }
    assert_all_close_named(&flat(&dw), &flat(&expected_w), 1e-14, "W̄ = XᵀȲ");
    let expected_b: Vec<f64> = (0..3).map(|j| (0..4).map(|r| y_bar[r][j]).sum()).collect();
    assert_all_close_named(&db, &expected_b, 1e-15, "b̄ = 1ᵀȲ");
    for r in 0..4 {
        assert_all_close_named(&dx[r], &row_times_transpose(&y_bar[r], &w), 1e-15, "X̄ row");
    }
    // Each example's gradient is the single-row gradient: the batch sums them.
    let mut summed = [[0.0; 3]; 5];
    for r in 0..4 {
        let (dw_r, _, _) = linear_probe_grad(w, b, x[r], y_bar[r]).unwrap().gradient;
        for (s, d) in summed.iter_mut().flatten().zip(dw_r.iter().flatten()) {
            *s += d;
        }
    }
    assert_all_close_named(&flat(&dw), &flat(&summed), 1e-14, "batch = sum of examples");
}

#[test]
fn softmax_cross_entropy_is_p_minus_one_hot_as_the_lesson_prints() {
    let z = [2.0, 1.0, 0.5, -0.5];
    let result = cross_entropy_grad(z, 0).unwrap();
    assert_eq!(format!("{:.4}", result.value), "0.5147");
    assert_eq!(format!("{:.4}", result.gradient[2]), "0.1334");
    let p = softmax(z);
    let mut expected = p;
    expected[0] -= 1.0;
    assert_all_close_named(&result.gradient, &expected, 1e-15, "p − 1_y");
    assert!(
        result.gradient.iter().sum::<f64>().abs() < 1e-15,
        "sums to zero"
    );
    assert!(close(result.value, -p[0].ln(), 1e-15));
    assert!(cross_entropy_check(z, 0).unwrap().passed());
}

#[test]
fn expected_score_is_zero_and_its_second_moment_is_p_one_minus_p() {
    let z = [2.0, 1.0, 0.5, -0.5];
    let p = softmax(z);
    let mut mean = [0.0; 4];
    let mut second = [0.0; 4];
    for (c, &weight) in p.iter().enumerate() {
        let score = cross_entropy_grad(z, c).unwrap().gradient;
        for j in 0..4 {
            mean[j] += weight * score[j];
            second[j] += weight * score[j] * score[j];
        }
    }
    for j in 0..4 {
        assert!(mean[j].abs() < 1e-16, "E[p − y]_{j} = {}", mean[j]);
        assert!(close(second[j], p[j] * (1.0 - p[j]), 1e-15));
    }
    assert_eq!(format!("{:.6}", second[0]), "0.240456");
}

fn head() -> Head {
    random_head(8)
}

#[test]
fn attention_head_matches_the_four_step_backward_by_hand() {
    let h = head();
    let result = attention_probe_grad(h.x, h.wq, h.wk, h.wv, h.o_bar).unwrap();
    let by_hand = attention_backward(&h.x, &h.wq, &h.wk, &h.wv, &h.o_bar);
    assert!(close(result.value, by_hand.loss, 1e-14));
    let (dx, dwq, dwk, dwv) = result.gradient;
    assert_all_close_named(&flat(&dx), &flat(&by_hand.x), 1e-13, "X̄");
    assert_all_close_named(&flat(&dwq), &flat(&by_hand.wq), 1e-13, "W̄_Q");
    assert_all_close_named(&flat(&dwk), &flat(&by_hand.wk), 1e-13, "W̄_K");
    assert_all_close_named(&flat(&dwv), &flat(&by_hand.wv), 1e-13, "W̄_V");
}

#[test]
fn attention_head_against_central_differences_at_every_parameter() {
    let h = head();
    let check = attention_probe_check(h.x, h.wq, h.wk, h.wv, h.o_bar).unwrap();
    assert_eq!(check.components.len(), 16 + 3 * 12);
    assert!(check.passed(), "{check}");
    // The lesson's spot check at W_Q(2, 1): row 2, column 1, one-based.
    let spot = check.components[16 + 3];
    assert_eq!(spot.input, h.wq[1][0]);
    assert!(spot.relative_error < 1e-8, "{spot:?}");
}

#[test]
fn input_gradient_is_the_sum_of_the_three_projection_branches() {
    let h = head();
    let (dx, ..) = attention_probe_grad(h.x, h.wq, h.wk, h.wv, h.o_bar)
        .unwrap()
        .gradient;
    let project =
        |w: &[[f64; 3]; 4]| -> [[f64; 3]; 4] { std::array::from_fn(|t| row_times(&h.x[t], w)) };
    let (q, k, v) = (project(&h.wq), project(&h.wk), project(&h.wv));
    let (dq, dk, dv) = attention_from_qkv_grad(q, k, v, h.o_bar).unwrap().gradient;
    // X̄_Q = Q̄ W_Qᵀ and so on; X̄ = X̄_Q + X̄_K + X̄_V.
    for t in 0..4 {
        let from_q = row_times_transpose(&dq[t], &h.wq);
        let from_k = row_times_transpose(&dk[t], &h.wk);
        let from_v = row_times_transpose(&dv[t], &h.wv);
        let sum: Vec<f64> = (0..4).map(|r| from_q[r] + from_k[r] + from_v[r]).collect();
        assert_all_close_named(&dx[t], &sum, 1e-13, "X̄ row");
    }
}

#[test]
fn causal_mask_blocks_the_future() {
    // The first token's output cannot depend on later tokens' keys or values.
    let h = head();
    let mut only_first = [[0.0; 3]; 4];
    only_first[0] = h.o_bar[0];
    let project =
        |w: &[[f64; 3]; 4]| -> [[f64; 3]; 4] { std::array::from_fn(|t| row_times(&h.x[t], w)) };
    let (q, k, v) = (project(&h.wq), project(&h.wk), project(&h.wv));
    let (_, dk, dv) = attention_from_qkv_grad(q, k, v, only_first)
        .unwrap()
        .gradient;
    for t in 1..4 {
        assert_eq!(dk[t], [0.0; 3]);
        assert_eq!(dv[t], [0.0; 3]);
    }
}

#[test]
fn step_sweep_has_the_u_shape_with_its_floor_near_the_cube_root_of_epsilon() {
    let steps = [1e-2, 1e-4, 1e-5, 1e-7, 1e-9];
    let errors = step_sweep(&steps).unwrap();
    let best = (0..steps.len())
        .min_by(|&a, &b| errors[a].total_cmp(&errors[b]))
        .unwrap();
    assert!(
        best == 1 || best == 2,
        "floor at 1e-4 or 1e-5, got {errors:?}"
    );
    assert!(
        errors[0] > 100.0 * errors[best],
        "truncation at 1e-2: {errors:?}"
    );
    assert!(
        errors[4] > 100.0 * errors[best],
        "cancellation at 1e-9: {errors:?}"
    );
    // The default step sits in the valley.
    assert!((default_step(0.0) - 6.06e-6).abs() < 1e-8);
}

/// Per-layer gradient norms (input of layer 1 first) through a 12-layer
/// stack, checked against the costate recursion by hand.
fn flow(gain: f64, residual: bool, seed: u64) -> Vec<f64> {
    let stack = random_stack(WIDTH, 12, gain, seed);
    let costates = layer_costates(&stack.layers, residual, &stack.g, &stack.h).unwrap();
    let by_hand = costates_by_hand(&stack, residual);
    for (k, (a, e)) in costates.iter().zip(&by_hand).enumerate() {
        assert_all_close_named(a, e, 1e-12, &format!("costate at layer {}", k + 1));
    }
    costates.iter().map(|c| norm(c)).collect()
}

#[test]
fn gradient_flow_vanishes_holds_explodes_and_the_residual_keeps_it() {
    let vanish = flow(0.7, false, 33);
    let stable = flow(1.0, false, 33);
    let explode = flow(1.3, false, 33);
    let residual = flow(0.7, true, 34);
    // Index 0 is layer 1 (the input end), index 11 is layer 12.
    assert!(vanish[0] < 0.05 * vanish[11], "{vanish:?}");
    assert!(explode[0] > 10.0 * explode[11], "{explode:?}");
    assert!(residual[0] > residual[11], "{residual:?}");
    let gains = [vanish, stable, explode, residual].map(|n| geometric_mean_gain(&n));
    for (gain, design) in gains.iter().zip([0.7, 1.0, 1.3, 1.49_f64.sqrt()]) {
        assert!(
            (gain - design).abs() < 0.1,
            "gain {gain} vs design {design}"
        );
    }
}

#[test]
fn every_lesson_function_passes_its_own_check() {
    let (w1, w2, x, t) = mlp_setup();
    let analytic = mlp_loss_grad(w1, w2, x, t).unwrap().gradient;
    let mut inputs = flat(&w1);
    inputs.extend(w2);
    inputs.extend(x);
    let mut expected = flat(&analytic.0);
    expected.extend(analytic.1);
    expected.extend(analytic.2);
    // The generic checker, called by hand, agrees with the generated one.
    let check = gradient_check(&inputs, &expected, None, DEFAULT_TOLERANCE, |v| {
        let w1: [[f64; 3]; 4] = std::array::from_fn(|i| std::array::from_fn(|j| v[3 * i + j]));
        let w2 = [v[12], v[13], v[14]];
        let x = [v[15], v[16], v[17], v[18]];
        mlp_loss(w1, w2, x, t)
    })
    .unwrap();
    assert!(check.passed());
    assert_eq!(check, mlp_loss_check(w1, w2, x, t).unwrap());
}

// The example loads its own copy of the lesson's support module.
#[path = "../examples/attention.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod attention;

/// `examples/attention.rs` checks what it prints (the head's gradient
/// against the backward pass by hand, central differences, softmax's
/// Jacobian against diag(p) − p pᵀ, the masked column zero) and returns
/// an error otherwise.
///
/// Its head's gradient takes the compiled path with the `−∞` mask all the
/// way through: no call of a compiled `f_grad` reran the tape.
#[test]
fn the_attention_example_holds() {
    let reruns = autodiff::__adjoint::tape_reruns();
    attention::main().unwrap();
    assert_eq!(
        autodiff::__adjoint::tape_reruns(),
        reruns,
        "a compiled gradient reran the tape"
    );
}
