//! Lesson 15's hand-written backward passes and closed forms, written with
//! plain `f64` arithmetic and no tape. The lesson examples and their tests
//! compare `#[differentiable]` gradients against these.
//!
//! Shared by `examples/lesson15_*.rs` and `tests/lesson15.rs` through
//! `#[path]`, so not every item is used by every includer.
#![allow(dead_code)]
// Index loops on purpose: they read like the lesson's matrix formulas.
#![allow(clippy::needless_range_loop)]

#[path = "splitmix.rs"]
mod splitmix;

/// A seeded generator of our own (SplitMix64), so examples are reproducible
/// without a dependency. Normal draws use Box–Muller.
pub struct Rng(splitmix::SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(splitmix::SplitMix64::new(seed))
    }

    fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in (0, 1): never 0, so `ln` below is finite.
    fn uniform(&mut self) -> f64 {
        ((self.next_u64() >> 11) as f64 + 0.5) / (1u64 << 53) as f64
    }

    /// A standard normal draw.
    pub fn randn(&mut self) -> f64 {
        let (u, v) = (self.uniform(), self.uniform());
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }

    pub fn vector<const N: usize>(&mut self, scale: f64) -> [f64; N] {
        std::array::from_fn(|_| self.randn() * scale)
    }

    pub fn matrix<const R: usize, const C: usize>(&mut self, scale: f64) -> [[f64; C]; R] {
        std::array::from_fn(|_| self.vector(scale))
    }
}

pub fn softmax<const K: usize>(z: [f64; K]) -> [f64; K] {
    let top = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e = z.map(|v| (v - top).exp());
    let total: f64 = e.iter().sum();
    e.map(|v| v / total)
}

/// `y = x W` for a row `x`.
pub fn row_times<const R: usize, const C: usize>(x: &[f64; R], w: &[[f64; C]; R]) -> [f64; C] {
    std::array::from_fn(|j| (0..R).map(|i| x[i] * w[i][j]).sum())
}

/// `ȳ Wᵀ`: the adjoint of `x ↦ x W`.
pub fn row_times_transpose<const R: usize, const C: usize>(
    y_bar: &[f64; C],
    w: &[[f64; C]; R],
) -> [f64; R] {
    std::array::from_fn(|i| (0..C).map(|j| y_bar[j] * w[i][j]).sum())
}

/// `xᵀ ȳ`: an outer product.
pub fn outer<const R: usize, const C: usize>(x: &[f64; R], y_bar: &[f64; C]) -> [[f64; C]; R] {
    std::array::from_fn(|i| std::array::from_fn(|j| x[i] * y_bar[j]))
}

/// The two-layer MLP's gradients, right to left, as the lesson writes them.
pub struct MlpGradients {
    pub loss: f64,
    pub w1: [[f64; 3]; 4],
    pub w2: [f64; 3],
    pub x: [f64; 4],
}

pub fn mlp_backward(w1: &[[f64; 3]; 4], w2: &[f64; 3], x: &[f64; 4], t: f64) -> MlpGradients {
    let z1 = row_times(x, w1);
    let a1 = z1.map(f64::tanh);
    let y_hat: f64 = (0..3).map(|j| a1[j] * w2[j]).sum();
    let loss = 0.5 * (y_hat - t).powi(2);
    let dl_dy = y_hat - t;
    let dl_dw2 = a1.map(|a| a * dl_dy);
    let dl_da1 = w2.map(|w| dl_dy * w);
    let dl_dz1: [f64; 3] = std::array::from_fn(|j| dl_da1[j] * (1.0 - a1[j] * a1[j]));
    MlpGradients {
        loss,
        w1: outer(x, &dl_dz1),
        w2: dl_dw2,
        x: row_times_transpose(&dl_dz1, w1),
    }
}

/// The same recursion relabelled as the costate λ_k = λ_{k+1} ∂f_k/∂x_k with
/// parameter gradients as rungs λ_{k+1} ∂f_k/∂θ_k.
pub fn mlp_costate(w1: &[[f64; 3]; 4], w2: &[f64; 3], x: &[f64; 4], t: f64) -> MlpGradients {
    let a1 = row_times(x, w1).map(f64::tanh);
    let y_hat: f64 = (0..3).map(|j| a1[j] * w2[j]).sum();
    let lam3 = y_hat - t; // λ_N = ∂ℓ/∂x_N
    let lam2 = w2.map(|w| lam3 * w); // through a1 ↦ a1 W2
    let lam1: [f64; 3] = std::array::from_fn(|j| lam2[j] * (1.0 - a1[j] * a1[j])); // through tanh
    let lam0 = row_times_transpose(&lam1, w1); // through x ↦ x W1
    MlpGradients {
        loss: 0.5 * (y_hat - t).powi(2),
        w1: outer(x, &lam1),
        w2: a1.map(|a| a * lam3),
        x: lam0,
    }
}

/// One causal attention head's forward pass and its backward pass derived by
/// hand (lesson 15's four steps), for `L = Σ Ō ⊙ O` with a fixed `Ō`.
pub struct AttentionGradients {
    pub loss: f64,
    pub x: [[f64; 4]; 4],
    pub wq: [[f64; 3]; 4],
    pub wk: [[f64; 3]; 4],
    pub wv: [[f64; 3]; 4],
    /// The three branches of X̄, before they are summed.
    pub x_from_q: [[f64; 4]; 4],
    pub x_from_k: [[f64; 4]; 4],
    pub x_from_v: [[f64; 4]; 4],
}

type M43 = [[f64; 3]; 4];
type M44 = [[f64; 4]; 4];

fn matmul_43(x: &M44, w: &M43) -> M43 {
    std::array::from_fn(|t| row_times(&x[t], w))
}

pub fn attention_backward(
    x: &M44,
    wq: &M43,
    wk: &M43,
    wv: &M43,
    o_bar: &M43,
) -> AttentionGradients {
    let scale = 1.0 / 3.0_f64.sqrt();
    let (q, k, v) = (matmul_43(x, wq), matmul_43(x, wk), matmul_43(x, wv));
    // Causal row-wise softmax of S = QKᵀ/√d_k: entries above the diagonal are masked out.
    let mut a = [[0.0; 4]; 4];
    for i in 0..4 {
        let s: Vec<f64> = (0..=i)
            .map(|j| (0..3).map(|c| q[i][c] * k[j][c]).sum::<f64>() * scale)
            .collect();
        let top = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let e: Vec<f64> = s.iter().map(|v| (v - top).exp()).collect();
        let total: f64 = e.iter().sum();
        for j in 0..=i {
            a[i][j] = e[j] / total;
        }
    }
    let o: M43 =
        std::array::from_fn(|i| std::array::from_fn(|c| (0..4).map(|j| a[i][j] * v[j][c]).sum()));
    let loss = (0..4)
        .flat_map(|i| (0..3).map(move |c| (i, c)))
        .map(|(i, c)| o_bar[i][c] * o[i][c])
        .sum();

    // Step 1: O = A V.
    let v_bar: M43 = std::array::from_fn(|j| {
        std::array::from_fn(|c| (0..4).map(|i| a[i][j] * o_bar[i][c]).sum())
    });
    let a_bar: M44 = std::array::from_fn(|i| {
        std::array::from_fn(|j| (0..3).map(|c| o_bar[i][c] * v[j][c]).sum())
    });
    // Step 2: row-wise softmax, s̄ = a ⊙ (ā − (ā·a) 1); masked entries have a = 0.
    let s_bar: M44 = std::array::from_fn(|i| {
        let dot: f64 = (0..4).map(|j| a_bar[i][j] * a[i][j]).sum();
        std::array::from_fn(|j| a[i][j] * (a_bar[i][j] - dot))
    });
    // Step 3: S = QKᵀ/√d_k.
    let q_bar: M43 = std::array::from_fn(|i| {
        std::array::from_fn(|c| scale * (0..4).map(|j| s_bar[i][j] * k[j][c]).sum::<f64>())
    });
    let k_bar: M43 = std::array::from_fn(|j| {
        std::array::from_fn(|c| scale * (0..4).map(|i| s_bar[i][j] * q[i][c]).sum::<f64>())
    });
    // Step 4: the three projections; X̄ is their sum (fan-in at X).
    let project_back =
        |bar: &M43, w: &M43| -> M44 { std::array::from_fn(|t| row_times_transpose(&bar[t], w)) };
    let weight_grad = |bar: &M43| -> M43 {
        std::array::from_fn(|r| std::array::from_fn(|c| (0..4).map(|t| x[t][r] * bar[t][c]).sum()))
    };
    let (x_from_q, x_from_k, x_from_v) = (
        project_back(&q_bar, wq),
        project_back(&k_bar, wk),
        project_back(&v_bar, wv),
    );
    AttentionGradients {
        loss,
        x: std::array::from_fn(|t| {
            std::array::from_fn(|r| x_from_q[t][r] + x_from_k[t][r] + x_from_v[t][r])
        }),
        wq: weight_grad(&q_bar),
        wk: weight_grad(&k_bar),
        wv: weight_grad(&v_bar),
        x_from_q,
        x_from_k,
        x_from_v,
    }
}

/// Lesson 15's relative error, |f − a| / max(|f|, |a|, 1e−300).
pub fn rel_err(a: f64, b: f64) -> f64 {
    (a - b).abs() / a.abs().max(b.abs()).max(1e-300)
}

/// A random stack of `depth` square layers whose entries are N(0, gain²/width),
/// so each layer's RMS gain is `gain`; with an upstream gradient `g` (entries
/// N(0, 0.01)) and an input `h`.
pub struct Stack {
    pub layers: Vec<Vec<Vec<f64>>>,
    pub g: Vec<f64>,
    pub h: Vec<f64>,
}

pub fn random_stack(width: usize, depth: usize, gain: f64, seed: u64) -> Stack {
    let mut rng = Rng::new(seed);
    let g = (0..width).map(|_| rng.randn() * 0.1).collect();
    let scale = gain / (width as f64).sqrt();
    let layers = (0..depth)
        .map(|_| {
            (0..width)
                .map(|_| (0..width).map(|_| rng.randn() * scale).collect())
                .collect()
        })
        .collect();
    let h = (0..width).map(|_| rng.randn()).collect();
    Stack { layers, g, h }
}

/// The costate recursion by hand, `g ← g Jᵀ` (plus `g` with residuals), from
/// the last layer down: element `k` is the gradient at the input of layer `k`.
pub fn costates_by_hand(stack: &Stack, residual: bool) -> Vec<Vec<f64>> {
    let mut costate = stack.g.clone();
    let mut out = vec![Vec::new(); stack.layers.len()];
    for (k, layer) in stack.layers.iter().enumerate().rev() {
        let mut back: Vec<f64> = layer
            .iter()
            .map(|row| row.iter().zip(&costate).map(|(w, c)| w * c).sum())
            .collect();
        if residual {
            for (b, c) in back.iter_mut().zip(&costate) {
                *b += c;
            }
        }
        costate = back;
        out[k] = costate.clone();
    }
    out
}

pub fn norm(v: &[f64]) -> f64 {
    v.iter().map(|a| a * a).sum::<f64>().sqrt()
}

/// The geometric mean of the per-stage gains ‖g_k‖ / ‖g_{k+1}‖.
pub fn geometric_mean_gain(norms_from_input: &[f64]) -> f64 {
    let logs: Vec<f64> = norms_from_input
        .windows(2)
        .map(|w| (w[0] / w[1]).ln())
        .collect();
    (logs.iter().sum::<f64>() / logs.len() as f64).exp()
}

/// One attention head's input, weights and upstream gradient.
pub struct Head {
    pub x: [[f64; 4]; 4],
    pub wq: [[f64; 3]; 4],
    pub wk: [[f64; 3]; 4],
    pub wv: [[f64; 3]; 4],
    pub o_bar: [[f64; 3]; 4],
}

pub fn random_head(seed: u64) -> Head {
    let mut rng = Rng::new(seed);
    Head {
        x: rng.matrix(1.0),
        wq: rng.matrix(0.5),
        wk: rng.matrix(0.5),
        wv: rng.matrix(0.5),
        o_bar: rng.matrix(1.0),
    }
}
