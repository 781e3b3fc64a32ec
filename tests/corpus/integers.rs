//! Integers derived from tracked values stay plain integers: a length bound
//! to a name, an integer half of a length, an index computed from a length,
//! `usize::min`, counts used as divisors, an index chosen by comparing
//! tracked distances, `Vec::with_capacity(m)` and `std::cmp::max(1, m)`.
//! An argmax in an `Option<usize>` is `tests/compiled/options.rs`'s.

use super::oracle::*;
use autodiff::prelude::*;

#[differentiable]
fn mean_of(x: &[f64]) -> f64 {
    let n = x.len();
    let mut total = 0.0;
    for i in 0..n {
        total += x[i];
    }
    total / n as f64
}

#[test]
fn a_length_bound_to_a_name() -> TestResult {
    let got = mean_of_grad(&[1.0, 2.0, 3.0, 6.0])?;
    assert_eq!(got.value, 3.0);
    assert_eq!(got.gradient, vec![0.25; 4]);
    Ok(())
}

#[differentiable]
fn split_difference(x: &[f64]) -> f64 {
    let half = x.len() / 2;
    let mut left = 0.0;
    let mut right = 0.0;
    for i in 0..half {
        left += x[i];
    }
    for i in half..x.len() {
        right += x[i];
    }
    (left - right).powi(2)
}

#[test]
fn an_integer_half_of_a_length() -> TestResult {
    let got = split_difference_grad(&[1.0, 2.0, 0.5, 0.5])?;
    assert_eq!(got.value, 4.0);
    assert_eq!(got.gradient, vec![4.0, 4.0, -4.0, -4.0]);
    Ok(())
}

#[differentiable]
fn last_minus_first(x: &[f64]) -> f64 {
    let last = x.len() - 1;
    x[last] - x[0]
}

#[test]
fn an_index_computed_from_a_length() -> TestResult {
    let got = last_minus_first_grad(&[1.0, 5.0, 2.0])?;
    assert_eq!(got.value, 1.0);
    assert_eq!(got.gradient, vec![-1.0, 0.0, 1.0]);
    Ok(())
}

#[differentiable]
fn top_k_sum(x: &[f64], k: usize) -> f64 {
    let k = k.min(x.len());
    let mut total = 0.0;
    for i in 0..k {
        total += x[i];
    }
    total
}

#[test]
fn usize_min_with_a_length() -> TestResult {
    let got = top_k_sum_grad(&[1.0, 2.0, 3.0], 5)?;
    assert_eq!(got.gradient, vec![1.0; 3]);
    let got = top_k_sum_grad(&[1.0, 2.0, 3.0], 2)?;
    assert_eq!((got.value, got.gradient), (3.0, vec![1.0, 1.0, 0.0]));
    Ok(())
}

#[differentiable]
fn mean_positive(x: &[f64]) -> f64 {
    let mut count = 0usize;
    let mut total = 0.0;
    for v in x {
        if *v > 0.0 {
            count += 1;
            total += v;
        }
    }
    total / count as f64
}

#[test]
fn a_count_as_a_divisor() -> TestResult {
    let got = mean_positive_grad(&[1.0, -2.0, 3.0, 0.5])?;
    assert_eq!(got.value, 1.5);
    let third = 1.0 / 3.0;
    assert_all_close(&got.gradient, &[third, 0.0, third, third], CLOSED);
    Ok(())
}

#[differentiable]
fn nearest_centroid(x: f64, centroids: [f64; 3]) -> f64 {
    let mut best = 0;
    for k in 1..3 {
        if (x - centroids[k]).abs() < (x - centroids[best]).abs() {
            best = k;
        }
    }
    (x - centroids[best]).powi(2)
}

#[test]
fn an_index_chosen_by_comparing_tracked_distances() -> TestResult {
    let c = [0.0, 2.0, 5.0];
    let got = nearest_centroid_grad(2.5, c)?;
    assert_eq!(got.value, 0.25);
    assert_eq!(got.gradient, (1.0, [0.0, -1.0, 0.0]));
    Ok(())
}

#[differentiable]
fn squares_buffer(x: &[f64]) -> f64 {
    let m = x.len();
    let mut squares = Vec::with_capacity(m);
    for i in 0..m {
        squares.push(x[i] * x[i]);
    }
    let mut total = 0.0;
    for s in squares {
        total += s;
    }
    total
}

#[test]
fn with_capacity_from_a_length() -> TestResult {
    let got = squares_buffer_grad(&[1.0, -2.0, 3.0])?;
    assert_eq!(got.value, 14.0);
    assert_eq!(got.gradient, vec![2.0, -4.0, 6.0]);
    Ok(())
}

#[differentiable]
fn safe_average(x: &[f64]) -> f64 {
    let m = x.len();
    let denom = std::cmp::max(1, m);
    let mut total = 0.0;
    for v in x {
        total += v * v;
    }
    total / denom as f64
}

#[test]
fn cmp_max_on_a_length() -> TestResult {
    let got = safe_average_grad(&[1.0, 3.0])?;
    assert_eq!(got.value, 5.0);
    assert_eq!(got.gradient, vec![1.0, 3.0]);
    let got = safe_average_grad(&[])?;
    assert_eq!((got.value, got.gradient), (0.0, vec![]));
    Ok(())
}
