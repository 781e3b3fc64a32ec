//! Closures in iterator chains over tracked values, the way students write
//! reductions once they know Rust: `map`/`sum`, `fold` (also with
//! `f64::max`), `reduce` (on the tape), `zip`, `product`, `copied`, `rev`, `step_by`, `windows`,
//! `chunks`, `collect`, `extend`, `filter`, `all`, `count`, `for_each`, and
//! closures that capture tracked values. `max_by`/`min_by` with `total_cmp`
//! or `partial_cmp` are `tests/compiled/closures.rs`'s.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn sum_of_squares(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum()
}

#[test]
fn map_then_sum() -> TestResult {
    for x in [vec![1.0, -2.0, 0.5], vec![3.0]] {
        let got = sum_of_squares_grad(&x)?;
        assert_eq!(got.value, sum_of_squares(&x));
        let want: Vec<f64> = x.iter().map(|v| 2.0 * v).collect();
        assert_all_close(&got.gradient, &want, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn max_logit(z: &[f64]) -> f64 {
    z.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b))
}

#[test]
fn fold_from_negative_infinity() -> TestResult {
    let z = [0.5, 2.0, -1.0, 1.5];
    let got = max_logit_grad(&z)?;
    assert_eq!(got.value, 2.0);
    assert_eq!(got.gradient, vec![0.0, 1.0, 0.0, 0.0]);
    Ok(())
}

#[differentiable]
fn min_from_first(z: &[f64]) -> f64 {
    z.iter().skip(1).fold(z[0], |a, &b| a.min(b))
}

#[test]
fn fold_from_the_first_element() -> TestResult {
    let z = [0.5, 2.0, -1.0, 1.5];
    let got = min_from_first_grad(&z)?;
    assert_eq!(got.value, -1.0);
    assert_eq!(got.gradient, vec![0.0, 0.0, 1.0, 0.0]);
    Ok(())
}

#[differentiable]
fn reduced(z: &[f64]) -> f64 {
    let top = z.iter().copied().reduce(f64::max).unwrap();
    let squares = z.iter().map(|v| v * v).reduce(|a, b| a + b).unwrap();
    top * squares
}

#[test]
fn reduce_by_a_function_and_by_a_closure() -> TestResult {
    let z = [0.5, 2.0, -1.0, 1.5];
    let got = reduced_grad(&z)?;
    assert_eq!(got.value, reduced(&z));
    let squares: f64 = z.iter().map(|v| v * v).sum();
    // d(top·Σv²)/dz_k = [k = argmax]·Σv² + top·2z_k.
    let want: Vec<f64> = z
        .iter()
        .enumerate()
        .map(|(k, v)| if k == 1 { squares } else { 0.0 } + 2.0 * 2.0 * v)
        .collect();
    assert_all_close(&got.gradient, &want, CLOSED);
    let tape = reduced_grad_tape(&z)?;
    assert_all_close(&tape.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn dot(w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x.iter()).map(|(a, b)| a * b).sum()
}

#[test]
fn zip_map_sum_is_a_dot_product() -> TestResult {
    let (w, x) = (vec![0.5, -1.0, 2.0], vec![3.0, 4.0, -0.25]);
    let got = dot_grad(&w, &x)?;
    assert_eq!(got.value, dot(&w, &x));
    assert_eq!(got.gradient, (x.clone(), w.clone()));
    Ok(())
}

#[differentiable]
fn likelihood(p: &[f64]) -> f64 {
    p.iter().product()
}

#[test]
fn product_gradient_is_the_product_of_the_others() -> TestResult {
    let p = [0.5, 0.8, 0.25];
    let got = likelihood_grad(&p)?;
    assert_eq!(got.value, likelihood(&p));
    assert_all_close(&got.gradient, &[0.2, 0.125, 0.4], CLOSED);
    Ok(())
}

#[differentiable]
fn partition_function(energies: &[f64], #[constant] beta: f64) -> f64 {
    energies
        .iter()
        .copied()
        .map(|e| (-beta * e).exp())
        .sum::<f64>()
}

#[test]
fn copied_map_sum_turbofish() -> TestResult {
    let e = [0.0, 1.0, 2.5];
    let got = partition_function_grad(&e, 0.7)?;
    assert_eq!(got.value, partition_function(&e, 0.7));
    let want: Vec<f64> = e.iter().map(|v| -0.7 * (-0.7 * v).exp()).collect();
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn horner_fold(coeffs: &[f64], x: f64) -> f64 {
    coeffs.iter().rev().fold(0.0, |acc, &c| acc * x + c)
}

#[test]
fn rev_fold_is_horner() -> TestResult {
    let c = [1.0, -2.0, 0.5, 3.0];
    for x in [0.5, -1.5] {
        let got = horner_fold_grad(&c, x)?;
        assert_eq!(got.value, horner_fold(&c, x));
        let powers: Vec<f64> = (0..4).map(|k| x.powi(k)).collect();
        assert_all_close(&got.gradient.0, &powers, CLOSED);
        assert_close(got.gradient.1, -2.0 + x + 9.0 * x * x, CLOSED);
    }
    Ok(())
}

#[differentiable]
fn even_positions(x: &[f64]) -> f64 {
    x.iter().step_by(2).map(|v| v.exp()).sum::<f64>()
}

#[test]
fn step_by_on_an_iterator() -> TestResult {
    let x = [0.1, 0.2, 0.3, 0.4, 0.5];
    let got = even_positions_grad(&x)?;
    assert_eq!(got.value, even_positions(&x));
    let want = [0.1_f64.exp(), 0.0, 0.3_f64.exp(), 0.0, 0.5_f64.exp()];
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn roughness(x: &[f64]) -> f64 {
    x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()
}

#[test]
fn windows_of_two_give_a_smoothness_penalty() -> TestResult {
    let x = [1.0, 3.0, 2.0, 2.5];
    let got = roughness_grad(&x)?;
    assert_eq!(got.value, roughness(&x));
    // d/dx_i Σ (x_{k+1} − x_k)²: 2(x_i − x_{i−1}) − 2(x_{i+1} − x_i).
    assert_all_close(&got.gradient, &[-4.0, 6.0, -3.0, 1.0], CLOSED);
    Ok(())
}

#[differentiable]
fn pair_products(x: &[f64]) -> f64 {
    x.chunks(2).map(|c| c[0] * c[1]).sum()
}

#[test]
fn chunks_of_two() -> TestResult {
    let x = [1.0, 2.0, 3.0, 4.0];
    let got = pair_products_grad(&x)?;
    assert_eq!(got.value, 14.0);
    assert_eq!(got.gradient, vec![2.0, 1.0, 4.0, 3.0]);
    Ok(())
}

#[differentiable]
fn first_probability(z: &[f64]) -> f64 {
    let e: Vec<f64> = z.iter().map(|v| v.exp()).collect();
    let total: f64 = e.iter().sum();
    e[0] / total
}

#[test]
fn collect_into_an_annotated_vec() -> TestResult {
    let z = [0.5, -1.0, 2.0];
    let got = first_probability_grad(&z)?;
    assert_eq!(got.value, first_probability(&z));
    let p0 = got.value;
    let total: f64 = z.iter().map(|v| v.exp()).sum();
    let want: Vec<f64> = (0..3)
        .map(|j| {
            if j == 0 {
                p0 * (1.0 - p0)
            } else {
                -p0 * z[j].exp() / total
            }
        })
        .collect();
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn tanh_layer_sum(x: &[f64], w: f64) -> f64 {
    let h = x.iter().map(|v| (w * v).tanh()).collect::<Vec<_>>();
    h.iter().sum::<f64>() / h.len() as f64
}

#[test]
fn collect_turbofish_with_a_captured_weight() -> TestResult {
    let x = [0.5, -1.0, 2.0];
    let w = 0.8_f64;
    let got = tanh_layer_sum_grad(&x, w)?;
    assert_eq!(got.value, tanh_layer_sum(&x, w));
    let d: Vec<f64> = x.iter().map(|v| 1.0 - (w * v).tanh().powi(2)).collect();
    let dx: Vec<f64> = (0..3).map(|i| d[i] * w / 3.0).collect();
    let dw: f64 = (0..3).map(|i| d[i] * x[i] / 3.0).sum();
    assert_all_close(&got.gradient.0, &dx, CLOSED);
    assert_close(got.gradient.1, dw, CLOSED);
    Ok(())
}

#[differentiable]
fn squashed_norm(x: Vec<f64>) -> f64 {
    let mut out = Vec::new();
    out.extend(x.iter().map(|v| sigmoid(*v)));
    let mut total = 0.0;
    for v in out {
        total += v * v;
    }
    total
}

#[test]
fn map_extended_into_a_local_vec() -> TestResult {
    let x = vec![0.5, -1.0, 2.0];
    let got = squashed_norm_grad(x.clone())?;
    assert_eq!(got.value, squashed_norm(x.clone()));
    let want: Vec<f64> = x
        .iter()
        .map(|v| {
            let s = 1.0 / (1.0 + (-v).exp());
            2.0 * s * s * (1.0 - s)
        })
        .collect();
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn scaled_sum(x: [f64; 3], scale: f64) -> f64 {
    let shift = scale * 0.5;
    x.iter().map(|v| v * scale + shift).sum()
}

#[test]
fn a_closure_capturing_two_tracked_values() -> TestResult {
    let got = scaled_sum_grad([1.0, 2.0, 3.0], 2.0)?;
    assert_eq!(got.value, 15.0);
    assert_eq!(got.gradient, ([2.0; 3], 6.0 + 1.5));
    Ok(())
}

#[differentiable]
fn position_weighted(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .map(|(i, v)| v * (i as f64 + 1.0))
        .sum()
}

#[test]
fn enumerate_map_sum() -> TestResult {
    let got = position_weighted_grad(&[5.0, 6.0, 7.0])?;
    assert_eq!(got.value, 5.0 + 12.0 + 21.0);
    assert_eq!(got.gradient, vec![1.0, 2.0, 3.0]);
    Ok(())
}

#[differentiable]
fn softmax_entropy(z: &[f64]) -> f64 {
    let m = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = z.iter().map(|v| (v - m).exp()).collect();
    let s: f64 = e.iter().sum();
    -e.iter().map(|v| v / s * (v / s).ln()).sum::<f64>()
}

#[test]
fn softmax_entropy_through_iterators_against_ridders() -> TestResult {
    for z in [vec![0.5, -1.0, 2.0], vec![1.0, 1.1, 0.9, -0.3]] {
        let got = softmax_entropy_grad(&z)?;
        assert_eq!(got.value, softmax_entropy(&z));
        assert_numeric(&got.gradient, softmax_entropy, &z);
        assert!(softmax_entropy_check(&z)?.passed());
    }
    Ok(())
}

#[differentiable]
fn l2_norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v.powi(2)).sum::<f64>().sqrt()
}

#[test]
fn a_method_on_a_sum() -> TestResult {
    let x = [3.0, 4.0];
    let got = l2_norm_grad(&x)?;
    assert_eq!(got.value, 5.0);
    assert_all_close(&got.gradient, &[0.6, 0.8], CLOSED);
    Ok(())
}

#[differentiable]
fn mse_zip(pred: &[f64], #[constant] target: &[f64]) -> f64 {
    pred.iter()
        .zip(target)
        .map(|(p, t)| (p - t).powi(2))
        .sum::<f64>()
        / pred.len() as f64
}

#[test]
fn mse_through_zip_with_constant_targets() -> TestResult {
    let (p, t) = ([1.0, 2.0, 3.0], [0.5, 2.5, 1.0]);
    let got = mse_zip_grad(&p, &t)?;
    assert_eq!(got.value, mse_zip(&p, &t));
    let want: Vec<f64> = (0..3).map(|i| 2.0 * (p[i] - t[i]) / 3.0).collect();
    assert_all_close(&got.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn positive_part_sum(x: &[f64]) -> f64 {
    x.iter().filter(|v| **v > 0.0).map(|v| v * v).sum()
}

#[test]
fn filter_on_the_primal_value() -> TestResult {
    let got = positive_part_sum_grad(&[1.0, -2.0, 3.0])?;
    assert_eq!(got.value, 10.0);
    assert_eq!(got.gradient, vec![2.0, 0.0, 6.0]);
    Ok(())
}

#[differentiable]
fn log_if_all_positive(x: &[f64]) -> f64 {
    if x.iter().all(|v| *v > 0.0) {
        x.iter().map(|v| v.ln()).sum()
    } else {
        0.0
    }
}

#[test]
fn all_as_a_condition() -> TestResult {
    let got = log_if_all_positive_grad(&[1.0, 2.0, 4.0])?;
    assert_eq!(got.value, log_if_all_positive(&[1.0, 2.0, 4.0]));
    assert_eq!(got.gradient, vec![1.0, 0.5, 0.25]);
    assert_eq!(
        log_if_all_positive_grad(&[1.0, -2.0])?.gradient,
        vec![0.0, 0.0]
    );
    Ok(())
}

#[differentiable]
fn discounted_return(rewards: &[f64], gamma: f64) -> f64 {
    rewards.iter().rev().fold(0.0, |g, r| r + gamma * g)
}

#[test]
fn discounted_return_by_a_reverse_fold() -> TestResult {
    let r = [1.0, 0.5, 2.0];
    let gamma = 0.9_f64;
    let got = discounted_return_grad(&r, gamma)?;
    assert_eq!(got.value, discounted_return(&r, gamma));
    // G = r0 + γ r1 + γ² r2.
    assert_all_close(&got.gradient.0, &[1.0, gamma, gamma * gamma], CLOSED);
    assert_close(got.gradient.1, 0.5 + 2.0 * gamma * 2.0, CLOSED);
    Ok(())
}

#[differentiable]
fn triple_product(a: &[f64], b: &[f64], c: &[f64]) -> f64 {
    a.iter().zip(b).zip(c).map(|((x, y), z)| x * y * z).sum()
}

#[test]
fn nested_zip_with_a_tuple_pattern() -> TestResult {
    let (a, b, c) = ([1.0, 2.0], [3.0, 4.0], [5.0, 6.0]);
    let got = triple_product_grad(&a, &b, &c)?;
    assert_eq!(got.value, 15.0 + 48.0);
    assert_eq!(
        got.gradient,
        (vec![15.0, 24.0], vec![5.0, 12.0], vec![3.0, 8.0])
    );
    Ok(())
}

#[differentiable]
fn count_weighted(x: &[f64]) -> f64 {
    let n = x.iter().filter(|v| **v > 1.0).count();
    x.iter().map(|v| v * n as f64).sum()
}

#[test]
fn count_gives_a_plain_integer() -> TestResult {
    let got = count_weighted_grad(&[0.5, 2.0, 3.0])?;
    assert_eq!(got.value, 11.0);
    assert_eq!(got.gradient, vec![2.0; 3]);
    Ok(())
}

#[differentiable]
fn for_each_accumulate(x: &[f64]) -> f64 {
    let mut total = 0.0;
    x.iter().for_each(|v| total += v.sin());
    total
}

#[test]
fn for_each_into_a_captured_accumulator() -> TestResult {
    let x = [0.3, 1.0];
    let got = for_each_accumulate_grad(&x)?;
    assert_eq!(got.value, for_each_accumulate(&x));
    assert_all_close(&got.gradient, &[0.3_f64.cos(), 1.0_f64.cos()], CLOSED);
    Ok(())
}

#[differentiable]
fn smoothed(x: f64) -> f64 {
    let act = |v: f64| v.tanh() * 0.5;
    act(x) + act(2.0 * x)
}

#[test]
fn a_closure_bound_to_a_name_and_called_twice() -> TestResult {
    for x in [0.3, -1.2] {
        let got = smoothed_grad(x)?;
        assert_eq!(got.value, smoothed(x));
        let want = 0.5 * (1.0 - x.tanh().powi(2)) + (1.0 - (2.0 * x).tanh().powi(2));
        assert_close(got.gradient, want, CLOSED);
    }
    Ok(())
}

/// `collect()` with the type on the `let`, into a `Vec` the body then
/// changes: compiled as the loop that pushes each item.
#[differentiable]
fn collected_with_the_type_on_the_let(x: &[f64]) -> f64 {
    let mut v: Vec<f64> = x.iter().map(|a| a * a).collect();
    v[0] += x[1] * 3.0;
    let w: Vec<f64> = v.iter().map(|b| b.sin()).collect();
    w.iter().sum::<f64>() + v[2]
}

#[test]
fn collect_typed_on_the_let() -> TestResult {
    let x: [f64; 3] = [0.5, -1.25, 0.75];
    // v = [x0² + 3x1, x1², x2²]; Σ sin(v) + x2².
    let v = [x[0] * x[0] + 3.0 * x[1], x[1] * x[1], x[2] * x[2]];
    let want = [
        2.0 * x[0] * v[0].cos(),
        3.0 * v[0].cos() + 2.0 * x[1] * v[1].cos(),
        2.0 * x[2] * v[2].cos() + 2.0 * x[2],
    ];
    let want_value = v.iter().map(|t| t.sin()).sum::<f64>() + v[2];
    for got in [
        collected_with_the_type_on_the_let_grad(&x)?,
        collected_with_the_type_on_the_let_grad_tape(&x)?,
    ] {
        assert_close(got.value, want_value, CLOSED);
        assert_all_close(&got.gradient, &want, CLOSED);
    }
    assert_eq!(
        collected_with_the_type_on_the_let_grad_path(),
        autodiff::GradientPath::Compiled
    );
    let compiled = autodiff::__adjoint::with_stack(|stack| {
        collected_with_the_type_on_the_let_adjoint(stack, &x)
    })
    .expect("computed by the compiled adjoint");
    assert_all_close(&compiled.gradient, &want, CLOSED);
    Ok(())
}

#[differentiable]
fn even_indices_squared(x: &[f64]) -> f64 {
    x.iter()
        .enumerate()
        .filter(|(i, _)| i % 2 == 0)
        .map(|(_, v)| v * v)
        .sum::<f64>()
}

#[test]
fn a_filter_on_the_index_takes_its_remainder() -> TestResult {
    // `i` is a `&usize` in the filter's pattern: `i % 2` is Rust's own.
    let x = [0.7, -0.3, 1.2, 0.4, 0.9];
    let got = even_indices_squared_grad(&x)?;
    assert_eq!(got.value, even_indices_squared(&x));
    let want = [1.4, 0.0, 2.4, 0.0, 1.8];
    assert_all_close(&got.gradient, &want, CLOSED);
    let taped = even_indices_squared_grad_tape(&x)?;
    assert_all_close(&taped.gradient, &want, CLOSED);
    Ok(())
}

// `collect` where the recording twin had to infer what it collects into:
// assigned to a tracked `Vec` (`h = ...collect()`), in an `if` value with
// the type on the `let`, and with `::<Vec<f64>>`; `h = Vec::new()` of a
// tracked `Vec`. Each once failed to build (type annotations needed).
#[differentiable]
fn collected_again(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    h = h.iter().map(|v| v.tanh()).collect();
    h[0] * h[1]
}

// A student's way: emptied, then pushed onto.
#[allow(clippy::vec_init_then_push)]
#[differentiable]
fn emptied_and_pushed(x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    h[1] = h[0] * 3.0;
    let first = h[1];
    h = Vec::new();
    h.push(x[0] * 2.0);
    h[0] * first
}

#[differentiable]
fn collected_in_a_branch(z: &[f64], #[constant] squash: bool) -> f64 {
    let h: Vec<f64> = if squash {
        z.iter().map(|v| v.tanh()).collect()
    } else {
        z.to_vec()
    };
    h[0] * z[1]
}

#[differentiable]
fn collected_by_turbofish(x: &[f64]) -> f64 {
    let v = x.iter().map(|v| v * v).collect::<Vec<f64>>();
    v[0] + v[1] * x[1]
}

#[test]
fn collects_into_a_vec_whatever_the_items() -> TestResult {
    let x = [0.3_f64, -0.8];
    let (t0, t1) = (x[0].tanh(), x[1].tanh());
    let got = collected_again_grad(&x)?;
    assert_all_close(
        &got.gradient,
        &[(1.0 - t0 * t0) * t1, t0 * (1.0 - t1 * t1)],
        CLOSED,
    );
    // 6·x0².
    let got = emptied_and_pushed_grad(&x)?;
    assert_all_close(&got.gradient, &[12.0 * x[0], 0.0], CLOSED);
    let got = collected_in_a_branch_grad(&x, true)?;
    assert_all_close(&got.gradient, &[(1.0 - t0 * t0) * x[1], t0], CLOSED);
    let got = collected_in_a_branch_grad(&x, false)?;
    assert_all_close(&got.gradient, &[x[1], x[0]], CLOSED);
    // x0² + x1³.
    let got = collected_by_turbofish_grad(&x)?;
    assert_all_close(&got.gradient, &[2.0 * x[0], 3.0 * x[1] * x[1]], CLOSED);
    Ok(())
}

/// `take_while`, `skip_while` and `split_at`, which the tape's
/// twin records as they run and the compiled adjoint hands to the tape
/// (their closures and the slices they make are not ones its sweeps
/// read): the gradient reaches exactly the items each one passes on.
#[differentiable]
fn prefixes(x: &[f64], w: f64) -> f64 {
    let head: f64 = x.iter().take_while(|&&v| v > 0.0).map(|v| v * w).sum();
    let mut tail = 0.0;
    for &v in x.iter().skip_while(|v| **v < 0.5) {
        tail += v * v;
    }
    let third = x[2];
    let (l, r) = x.split_at(1);
    head + tail + third * w + l[0] * r.iter().sum::<f64>()
}

#[test]
fn prefixes_take_the_items_they_pass_on() -> TestResult {
    let (x, w) = (vec![0.3, 1.2, -0.8, 0.5, 0.1], 0.7);
    let got = prefixes_grad(&x, w)?;
    assert_eq!(got.value, prefixes(&x, w));
    // take_while: x0, x1 (x2 < 0 stops it); skip_while: from x1 on (x0 <
    // 0.5); x2 as itself; split_at(1): x0 · (x1 + .. + x4).
    let rest: f64 = x[1..].iter().sum();
    let want = [
        w + rest,
        w + 2.0 * x[1] + x[0],
        2.0 * x[2] + w + x[0],
        2.0 * x[3] + x[0],
        2.0 * x[4] + x[0],
    ];
    assert_all_close(&got.gradient.0, &want, CLOSED);
    assert_close(got.gradient.1, x[0] + x[1] + x[2], CLOSED);
    let tape = prefixes_grad_tape(&x, w)?;
    assert_all_close(&tape.gradient.0, &want, CLOSED);
    assert!(prefixes_check(&x, w)?.passed());
    Ok(())
}

/// `chain` and `cycle` on an iterator written in place, which the tape's
/// twin records as they run (the compiled adjoint reads the `chain` as a
/// loop per half and hands the `cycle` to the tape): each item the chain
/// passes on gets its derivative, once per pass.
#[differentiable]
fn chained(x: &[f64], y: &[f64]) -> f64 {
    let both: f64 = x.iter().chain(y.iter()).map(|v| v * v).sum();
    let mut ranked = 0.0;
    for (k, v) in x.iter().cycle().take(5).enumerate() {
        ranked += v.sin() * k as f64;
    }
    both + ranked
}

#[test]
fn chain_and_cycle_pass_their_items_on() -> TestResult {
    let (x, y) = (vec![0.5, -1.0, 2.0], vec![0.25, 3.0]);
    let got = chained_grad(&x, &y)?;
    assert_eq!(got.value, chained(&x, &y));
    // cycle().take(5): x0 at k = 0 and 3, x1 at 1 and 4, x2 at 2.
    let want_x = [
        2.0 * x[0] + 3.0 * x[0].cos(),
        2.0 * x[1] + 5.0 * x[1].cos(),
        2.0 * x[2] + 2.0 * x[2].cos(),
    ];
    assert_all_close(&got.gradient.0, &want_x, CLOSED);
    assert_all_close(&got.gradient.1, &[2.0 * y[0], 2.0 * y[1]], CLOSED);
    let tape = chained_grad_tape(&x, &y)?;
    assert_all_close(&tape.gradient.0, &want_x, CLOSED);
    assert!(chained_check(&x, &y)?.passed());
    Ok(())
}
