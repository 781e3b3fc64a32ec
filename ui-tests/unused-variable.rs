// An unused binding is warned about once, by the plain twin; the recording
// twin, the same body, stays silent. (The `compile_error!` makes this a
// compile-fail case, so that trybuild shows the warnings.)
use autodiff::prelude::*;

#[differentiable]
fn loss(x: f64) -> f64 {
    let unused = x * 2.0;
    let mut never_changed = x + 1.0;
    never_changed * x
}

compile_error!("see the warnings above");

fn main() {}
