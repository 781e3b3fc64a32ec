use autodiff::prelude::*;
// *t assigned from a running local mutated in an inner loop
#[differentiable]
fn m18(x: &[f64]) -> f64 {
    let mut terms = vec![0.0; x.len()];
    for (k, t) in terms.iter_mut().enumerate() {
        let mut sq = 0.0;
        for r in 0..x.len() {
            sq += x[r] * x[k];
        }
        *t = sq;
    }
    terms[0] * terms[1]
}
fn main() {
    println!("{:?}", m18_grad(&[2.0, 3.0]).map(|r| r.gradient));
}
