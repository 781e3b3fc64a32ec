//! Functions in `impl` blocks: an annotated `impl` block whose associated
//! functions (no `self`) call each other as `Self::f` and are called from
//! free functions as `Type::f`, and `&self` methods of a model (a struct
//! with `#[derive(Parameters)]`) calling each other on `self`. Oracles:
//! closed forms by hand, and Ridders' differences of the plain twin.
//!
//! An attribute on a lone associated function would generate functions
//! that could not name each other there: the attribute goes on the block
//! (`ui-tests/associated-fn-outside-annotated-impl.rs` pins the error).

use super::oracle::*;
use autodiff::prelude::*;

struct Model;

#[differentiable]
impl Model {
    fn loss(w: f64, #[constant] x: f64) -> f64 {
        (w * x - 1.0).powi(2)
    }

    /// Calls the other associated function as `Self::loss`.
    fn batch_loss(w: f64, #[constant] xs: &[f64]) -> f64 {
        let mut total = 0.0;
        for x in xs {
            total += Self::loss(w, *x);
        }
        total / xs.len() as f64
    }
}

/// A free function calling an associated one by its path.
#[differentiable]
fn regularised(w: f64, #[constant] x: f64) -> f64 {
    Model::loss(w, x) + 0.1 * w * w
}

#[test]
fn an_associated_function_in_an_impl_block() -> TestResult {
    let got = Model::loss_grad(0.5, 3.0)?;
    assert_eq!(got.value, Model::loss(0.5, 3.0));
    assert_eq!(got.gradient, 2.0 * 0.5 * 3.0);
    Ok(())
}

#[test]
fn associated_functions_calling_each_other_through_self() -> TestResult {
    let xs = [1.0, -2.0, 0.5];
    let w = 0.8;
    let got = Model::batch_loss_grad(w, &xs)?;
    assert_close(got.value, Model::batch_loss(w, &xs), CLOSED);
    // d/dw mean (w x − 1)² = mean 2 (w x − 1) x.
    let by_hand = xs.iter().map(|x| 2.0 * (w * x - 1.0) * x).sum::<f64>() / 3.0;
    assert_close(got.gradient, by_hand, CLOSED);
    assert!(Model::batch_loss_check(w, &xs)?.passed());
    Ok(())
}

#[test]
fn a_free_function_calling_an_associated_one() -> TestResult {
    let got = regularised_grad(-0.4, 2.0)?;
    assert_close(got.value, regularised(-0.4, 2.0), CLOSED);
    assert_numeric(&got.gradient, |p| regularised(p[0], 2.0), &[-0.4]);
    Ok(())
}

#[derive(Clone, Debug, PartialEq, Parameters)]
struct Affine {
    w: [f64; 3],
    b: f64,
}

impl Affine {
    /// `w · x + b`.
    #[differentiable]
    fn apply(&self, #[constant] x: [f64; 3]) -> f64 {
        let mut s = self.b;
        for i in 0..3 {
            s += self.w[i] * x[i];
        }
        s
    }

    /// A softplus of the affine map: calls `apply` on `self`.
    #[differentiable]
    fn softplus(&self, #[constant] x: [f64; 3]) -> f64 {
        (1.0 + self.apply(x).exp()).ln()
    }
}

#[test]
fn a_method_calling_a_method_on_self() -> TestResult {
    let affine = Affine {
        w: [0.3, -0.2, 0.9],
        b: 0.1,
    };
    let x = [1.0, 2.0, -0.5];
    let got = affine.softplus_grad(x)?;
    assert_close(got.value, affine.softplus(x), CLOSED);
    // d softplus(z) = sigmoid(z) dz, z = w · x + b.
    let z = affine.apply(x);
    let sigmoid = 1.0 / (1.0 + (-z).exp());
    let want = [sigmoid * x[0], sigmoid * x[1], sigmoid * x[2], sigmoid];
    let flat = [got.gradient.w.to_vec(), vec![got.gradient.b]].concat();
    assert_all_close(&flat, &want, CLOSED);
    Ok(())
}

/// A model's own method named like an iterator adaptor (`chain`), called
/// on `self`: the model's, not the iterator's.
#[derive(Clone, Debug, PartialEq, Parameters)]
struct Links {
    w: f64,
}

#[differentiable]
impl Links {
    fn chain(&self, x: f64) -> f64 {
        (self.w * x).tanh()
    }

    fn twice(&self, x: f64) -> f64 {
        self.chain(self.chain(x))
    }
}

#[test]
fn a_method_named_like_an_iterator_adaptor_is_the_models() -> TestResult {
    let links = Links { w: 0.7 };
    let got = links.twice_grad(0.4)?;
    assert_eq!(got.value, links.twice(0.4));
    // o = tanh(w i), i = tanh(w x): ∂o/∂w = (1 − o²)(i + w x (1 − i²)),
    // ∂o/∂x = (1 − o²) w² (1 − i²).
    let inner = (0.7_f64 * 0.4).tanh();
    let outer = (0.7 * inner).tanh();
    let d_outer = 1.0 - outer * outer;
    let want_w = d_outer * (inner + 0.7 * 0.4 * (1.0 - inner * inner));
    assert_close(got.gradient.0.w, want_w, CLOSED);
    assert_close(
        got.gradient.1,
        d_outer * 0.49 * (1.0 - inner * inner),
        CLOSED,
    );
    Ok(())
}
