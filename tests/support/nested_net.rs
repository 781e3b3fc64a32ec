//! The nested model both `tests/macros/models.rs` (tape path) and
//! `tests/compiled/models.rs` (compiled adjoint) differentiate: `Vec`s of
//! layers, an array, a scalar, constants, a ragged `Vec<Vec<f64>>`.

use autodiff::prelude::*;

#[derive(Clone, Debug, PartialEq, Parameters)]
pub struct Layer {
    pub w: [[f64; 2]; 2],
    pub b: Vec<f64>,
}

#[derive(Clone, Debug, PartialEq, Parameters)]
pub struct Net {
    pub layers: Vec<Layer>,
    pub out: [f64; 2],
    pub scale: f64,
    #[constant]
    pub name: String,
    #[constant]
    pub width: usize,
    pub table: Vec<Vec<f64>>,
}

pub fn net() -> Net {
    Net {
        layers: vec![
            Layer {
                w: [[0.5, -0.3], [0.8, 0.2]],
                b: vec![0.1, -0.2],
            },
            Layer {
                w: [[-0.4, 0.9], [0.3, 0.7]],
                b: vec![0.05, 0.15],
            },
        ],
        out: [1.2, -0.6],
        scale: 0.9,
        name: "net".to_string(),
        width: 2,
        table: vec![vec![0.3], vec![-0.1, 0.4]],
    }
}
