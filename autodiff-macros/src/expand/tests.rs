//! Expansion snapshots: representative functions expanded by this crate's
//! own expansion function and formatted as `cargo expand` would show them.
//! Every change to generated code shows up here for review.
//!
//! `UPDATE_SNAPSHOTS=1 cargo test -p autodiff-macros` rewrites them.

use std::path::PathBuf;

use proc_macro2::TokenStream;

const CASES: &[(&str, &str)] = &[
    (
        "reused_square",
        r#"
#[differentiable]
fn loss(x: f64) -> f64 {
    let square = x * x;
    square + square
}
"#,
    ),
    (
        "control_flow",
        r#"
/// A loop, a branch and a compound assignment.
#[differentiable]
pub fn series(x: f64, #[constant] scale: f64, n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        total += scale * x.powi(i as i32);
    }
    if total > 1.0 {
        total.ln()
    } else {
        -total
    }
}
"#,
    ),
    (
        "composition",
        r#"
#[differentiable]
fn neuron(w: f64, x: f64, b: f64) -> f64 {
    let z = affine(w, x, b);
    relu(z).max(sigmoid(z)) + affine(2.0, x, 1.0) + affine(2.0, 3.0, 1.0)
}
"#,
    ),
    (
        "arrays",
        r#"
#[differentiable]
fn dot(w: [f64; 3], x: &[f64]) -> f64 {
    let mut y = [0.0; 3];
    for i in 0..w.len() {
        y[i] = w[i] * x[i];
    }
    y.iter().sum::<f64>()
}
"#,
    ),
    (
        "mlp",
        r#"
/// Lesson 15's two-layer tanh network with squared error.
#[differentiable]
pub fn mlp(w1: [[f64; 2]; 3], w2: [f64; 3], x: [f64; 2], #[constant] target: f64) -> f64 {
    let mut h = [0.0; 3];
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..2 {
            z += w1[j][i] * x[i];
        }
        h[j] = z.tanh();
    }
    let mut y = 0.0;
    for j in 0..3 {
        y += w2[j] * h[j];
    }
    let e = y - target;
    e * e
}
"#,
    ),
    (
        "elementary",
        r#"
/// Methods of the table's second batch, in method and path form.
#[differentiable]
fn wave(x: f64, y: f64) -> f64 {
    x.tan() + x.hypot(y) + f64::log(y, 2.0) + x.floor()
}
"#,
    ),
    (
        "impl_block",
        r#"
/// Methods and an associated function: `Self::` paths between siblings.
#[differentiable]
impl Neuron {
    fn forward(&self, #[constant] x: f64) -> f64 {
        (self.w * x + self.b).tanh()
    }

    fn loss(&self, #[constant] x: f64, #[constant] y: f64) -> f64 {
        let d = self.forward(x) - y;
        d * d
    }

    fn scale(w: f64, #[constant] x: f64) -> f64 {
        w * x
    }
}
"#,
    ),
    (
        "lesson15_mlp",
        r#"
/// Lesson 15's toy network `ŷ = tanh(x W₁) W₂` with squared error `½(ŷ − t)²`:
/// the expansion's `mlp_loss_adjoint` is the lesson's backward pass.
#[differentiable]
pub fn mlp_loss(w1: [[f64; 3]; 4], w2: [f64; 3], x: [f64; 4], #[constant] t: f64) -> f64 {
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        y_hat += z.tanh() * w2[j];
    }
    let error = y_hat - t;
    0.5 * error * error
}
"#,
    ),
    (
        "rejected",
        r#"
#[differentiable]
fn wrong<T>(x: f32) -> f32 {
    let f = |v: f64| v.trunc();
    x
}
"#,
    ),
];

fn expand(source: &str) -> String {
    let input: TokenStream = source.parse().expect("snapshot source tokenizes");
    let not_the_attribute = |attr: &syn::Attribute| !attr.path().is_ident("differentiable");
    // The attribute itself is what a real expansion removes.
    let item = match syn::parse2::<syn::ItemFn>(input.clone()) {
        Ok(mut item) => {
            item.attrs.retain(not_the_attribute);
            quote::quote!(#item)
        }
        Err(_) => {
            let mut block: syn::ItemImpl =
                syn::parse2(input).expect("snapshot source is a function or an impl block");
            block.attrs.retain(not_the_attribute);
            quote::quote!(#block)
        }
    };
    let output = super::differentiable(TokenStream::new(), item);
    let file: syn::File = syn::parse2(output).expect("expansion parses as items");
    prettyplease::unparse(&file)
}

#[test]
fn expansions_match_snapshots() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("snapshots");
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some();
    let mut stale = Vec::new();
    for (name, source) in CASES {
        let expanded = expand(source);
        let path = dir.join(format!("{name}.expanded.rs"));
        if update {
            std::fs::write(&path, &expanded).expect("snapshot is writable");
            continue;
        }
        let expected = std::fs::read_to_string(&path).unwrap_or_default();
        if expected != expanded {
            eprintln!(
                "--- {} differs; expansion now reads:\n{expanded}",
                path.display()
            );
            stale.push(*name);
        }
    }
    assert!(
        stale.is_empty(),
        "stale snapshots {stale:?}: review, then rerun with UPDATE_SNAPSHOTS=1"
    );
}
