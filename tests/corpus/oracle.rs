//! The corpus's independent oracles: Ridders' extrapolated central
//! differences of the plain twin (a high-order numerical derivative that
//! never touches the tape or the crate's own gradient check), and the
//! tolerances the tests state their bounds with (compared by the shared
//! `tests/support/oracle.rs`'s `assert_close` and `assert_all_close`).
//!
//! Ridders' method (Numerical Recipes §5.7) builds a Neville table of central
//! differences at steps h, h/1.4, h/1.4², … and extrapolates them to h = 0;
//! on a smooth function it reaches ~1e-10 relative accuracy, so a test that
//! compares against it uses a relative tolerance of 1e-7 (three orders of
//! slack for curvature and cancellation at the chosen points).

/// Relative tolerance against a closed form: a handful of roundings.
pub const CLOSED: f64 = 1e-12;

/// Relative tolerance against Ridders' extrapolated differences.
pub const NUMERIC: f64 = 1e-7;

// The comparisons are the ones every test binary shares.
#[path = "../support/oracle.rs"]
#[allow(dead_code)]
mod shared;

pub use shared::{assert_all_close, assert_close, close};

/// `f'(x)` by Ridders' extrapolation of central differences.
pub fn derivative(f: impl Fn(f64) -> f64, x: f64) -> f64 {
    const SHRINK: f64 = 1.4;
    const SHRINK2: f64 = SHRINK * SHRINK;
    const LEVELS: usize = 10;
    // The first step is 5% of |x| (at least 5e-4), shrunk until both sides
    // evaluate: a step across the edge of the domain (√ of a small positive
    // input) would put a NaN into the table.
    let mut h = 0.05 * x.abs().max(1e-2);
    let mut table = [[0.0_f64; LEVELS]; LEVELS];
    table[0][0] = (f(x + h) - f(x - h)) / (2.0 * h);
    while !table[0][0].is_finite() && h > 1e-8 * x.abs().max(1.0) {
        h /= 10.0;
        table[0][0] = (f(x + h) - f(x - h)) / (2.0 * h);
    }
    let mut best = table[0][0];
    let mut best_error = f64::INFINITY;
    for i in 1..LEVELS {
        h /= SHRINK;
        table[0][i] = (f(x + h) - f(x - h)) / (2.0 * h);
        let mut factor = SHRINK2;
        for j in 1..=i {
            table[j][i] = (table[j - 1][i] * factor - table[j - 1][i - 1]) / (factor - 1.0);
            factor *= SHRINK2;
            let error = (table[j][i] - table[j - 1][i])
                .abs()
                .max((table[j][i] - table[j - 1][i - 1]).abs());
            if error <= best_error {
                best_error = error;
                best = table[j][i];
            }
        }
        // Higher order got worse by a factor of two: rounding took over.
        if (table[i][i] - table[i - 1][i - 1]).abs() >= 2.0 * best_error {
            break;
        }
    }
    best
}

/// The gradient of `f` at `x`, one Ridders derivative per component.
pub fn gradient(f: impl Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            derivative(
                |t| {
                    let mut moved = x.to_vec();
                    moved[i] = t;
                    f(&moved)
                },
                x[i],
            )
        })
        .collect()
}

/// A fixed-size array from the front of a flat slice (the tests flatten
/// every parameter into one `&[f64]` for [`gradient`]).
pub fn arr<const N: usize>(flat: &[f64]) -> [f64; N] {
    let mut out = [0.0; N];
    out.copy_from_slice(&flat[..N]);
    out
}

/// What every corpus test returns: `?` on the generated functions' errors.
pub type TestResult = Result<(), Box<dyn std::error::Error>>;

/// A gradient of any parameter shape, flattened in parameter order (the
/// order [`gradient`] perturbs a flattened argument list in).
pub trait Flat {
    /// Every component, row-major, parameters in order.
    fn flat(&self) -> Vec<f64>;
}

impl Flat for f64 {
    fn flat(&self) -> Vec<f64> {
        vec![*self]
    }
}

impl<T: Flat, const N: usize> Flat for [T; N] {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(Flat::flat).collect()
    }
}

impl<T: Flat> Flat for Vec<T> {
    fn flat(&self) -> Vec<f64> {
        self.iter().flat_map(Flat::flat).collect()
    }
}

impl<A: Flat, B: Flat> Flat for (A, B) {
    fn flat(&self) -> Vec<f64> {
        [self.0.flat(), self.1.flat()].concat()
    }
}

impl<A: Flat, B: Flat, C: Flat> Flat for (A, B, C) {
    fn flat(&self) -> Vec<f64> {
        [self.0.flat(), self.1.flat(), self.2.flat()].concat()
    }
}

impl<A: Flat, B: Flat, C: Flat, D: Flat> Flat for (A, B, C, D) {
    fn flat(&self) -> Vec<f64> {
        [self.0.flat(), self.1.flat(), self.2.flat(), self.3.flat()].concat()
    }
}

/// The macro's gradient (any shape) against Ridders' differences of the
/// plain twin at the flattened point `at`, to [`NUMERIC`].
#[track_caller]
pub fn assert_numeric<G: Flat>(got: &G, f: impl Fn(&[f64]) -> f64, at: &[f64]) {
    assert_all_close(&got.flat(), &gradient(f, at), NUMERIC);
}

#[test]
fn ridders_reaches_the_accuracy_the_tolerance_assumes() {
    // Known derivatives, including a small input near a domain edge
    // (√x at 0.01) and a steep one (exp at 5): all well inside NUMERIC.
    type Real = fn(f64) -> f64;
    let cases: [(Real, Real, f64); 5] = [
        (f64::sin, f64::cos, 0.3),
        (f64::exp, f64::exp, 5.0),
        (f64::sqrt, |x| 0.5 / x.sqrt(), 0.01),
        (
            |x| 1.0 / (1.0 + x * x),
            |x| -2.0 * x / (1.0 + x * x).powi(2),
            -2.0,
        ),
        (
            |x| x.tanh() * x,
            |x| x.tanh() + x * (1.0 - x.tanh().powi(2)),
            0.0,
        ),
    ];
    for (f, df, x) in cases {
        let numeric = derivative(f, x);
        assert!(close(numeric, df(x), 1e-9), "{x}: {numeric} vs {}", df(x));
    }
}

#[test]
#[should_panic(expected = "component 1")]
fn a_gradient_off_by_one_part_in_a_million_fails_the_numeric_tolerance() {
    let at = [0.4_f64, -1.3];
    let f = |p: &[f64]| p[0].exp() * p[1].sin();
    let mut wrong = vec![at[0].exp() * at[1].sin(), at[0].exp() * at[1].cos()];
    wrong[1] *= 1.0 + 1e-6;
    assert_numeric(&wrong, f, &at);
}
