//! Pending (issue 11; not in main.rs until it passes): the statistics
//! formula that declares its accumulators as one tuple. Today's failure is
//! above it; the rest of the family is in `formulas.rs`.

use super::oracle::*;
use autodiff::prelude::*;

// Today (tuple of `let mut` accumulators `let (mut a, mut b, mut c) = (0.0, 0.0, 0.0)`): error[E0308]: `?` operator has incompatible types: expected `f64`, found `Scalar<'_>`
#[differentiable]
fn pearson(x: [f64; 4], y: [f64; 4]) -> f64 {
    let mut mx = 0.0;
    let mut my = 0.0;
    for i in 0..4 {
        mx += x[i];
        my += y[i];
    }
    mx /= 4.0;
    my /= 4.0;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for i in 0..4 {
        sxy += (x[i] - mx) * (y[i] - my);
        sxx += (x[i] - mx) * (x[i] - mx);
        syy += (y[i] - my) * (y[i] - my);
    }
    sxy / (sxx * syy).sqrt()
}

#[test]
fn pearson_correlation_against_ridders() -> TestResult {
    for (x, y) in [
        ([1.0, 2.0, 3.0, 5.0], [2.0, 1.0, 4.0, 3.0]),
        ([0.1, -0.4, 0.8, 0.3], [1.0, 0.2, 0.5, -0.7]),
    ] {
        let got = pearson_grad(x, y)?;
        assert_eq!(got.value, pearson(x, y));
        let at = [x, y].concat();
        assert_numeric(&got.gradient, |p| pearson(arr(p), arr(&p[4..])), &at);
        assert!(pearson_check(x, y)?.passed());
    }
    Ok(())
}
