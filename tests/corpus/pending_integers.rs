//! Pending (issue 11; not in main.rs until it passes): integers derived from
//! tracked values used as plain integers: `Vec::with_capacity(m)`,
//! `std::cmp::max(1, m)`, an argmax held in an `Option<usize>`. Each carries
//! today's first error; the rest of the family is in `integers.rs`.

use super::oracle::*;
use autodiff::prelude::*;

// Today (`Vec::with_capacity(m)` with `m = x.len()`): error[E0599]: no function or associated item named `with_capacity_tape` found for struct `Vec<_, _>` in the current scope: function or associated item not found in `Vec<_, _>`
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

// Today (`std::cmp::max(1, m)` with `m = x.len()`): error[E0425]: cannot find function `max_tape` in module `std::cmp`: not found in `std::cmp`
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

// Today (argmax as `let mut best: Option<usize> = None; .. best = Some(i)`): error[E0277]: `Option<_>` cannot hold a tracked value in a #[differentiable] function: expected f64, an array or Vec of f64, or an integer
#[differentiable]
fn argmax_value(z: &[f64]) -> f64 {
    let mut best: Option<usize> = None;
    for i in 0..z.len() {
        match best {
            None => best = Some(i),
            Some(j) if z[i] > z[j] => best = Some(i),
            _ => {}
        }
    }
    match best {
        Some(i) => z[i] * 3.0,
        None => 0.0,
    }
}

#[test]
fn argmax_in_an_option() -> TestResult {
    let got = argmax_value_grad(&[0.2, 1.5, 0.7])?;
    assert_eq!(got.value, 4.5);
    assert_eq!(got.gradient, vec![0.0, 3.0, 0.0]);
    assert_eq!(argmax_value_grad(&[])?.value, 0.0);
    Ok(())
}
