// An `f64` parameter used as a condition, as an operand of `&&` and of
// `!`, and in `while`: the plain twin's mismatched types once each.
use autodiff::prelude::*;

#[differentiable]
fn pick(x: f64, flag: f64, on: bool) -> f64 {
    if flag {
        x
    } else if on && flag {
        -x
    } else if !flag {
        x * x
    } else {
        x * 2.0
    }
}

#[differentiable]
fn repeat(x: f64, more: f64) -> f64 {
    let mut s = x;
    while more {
        s = s * x;
    }
    s
}

fn main() {}
