// `x.relu()` through a trait of the student's own (autodiff's prelude not
// imported): the macro reads it as autodiff's activation, so it is an error.
use autodiff::differentiable;

trait Leaky {
    fn relu(self) -> Self;
}

impl Leaky for f64 {
    fn relu(self) -> f64 {
        if self > 0.0 {
            self
        } else {
            0.01 * self
        }
    }
}

#[differentiable]
fn unit(w: f64, x: f64) -> f64 {
    (w * x).relu()
}

fn main() {}
