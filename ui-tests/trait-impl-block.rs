use autodiff::prelude::*;

trait Loss {
    fn loss(w: f64) -> f64;
}

struct Model;

#[differentiable]
impl Loss for Model {
    fn loss(w: f64) -> f64 {
        w * w
    }
}

fn main() {
    let _ = Model::loss(2.0);
}
