use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    let square = x * x;
    square + square
}

#[differentiable]
fn mixed(x: f64, y: f64, #[constant] c: f64, n: usize) -> f64 {
    let mut s = 0.0;
    for i in 0..n {
        s += x * (i as f64) + y.exp() * c;
    }
    if s > 1.0 {
        s.ln()
    } else {
        2.0 * s
    }
}

#[test]
fn smoke() {
    let g = loss_grad(2.0).unwrap();
    assert_eq!(g.value, 8.0);
    assert_eq!(g.gradient, 8.0);
    let g = mixed_grad(0.5, 0.1, 2.0, 3).unwrap();
    println!("{g:?}");
    let c = mixed_check(0.5, 0.1, 2.0, 3).unwrap();
    println!("{c}");
    assert!(c.passed());
}
