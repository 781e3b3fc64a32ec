//! The results of a `#[differentiable]` function's forward-mode and
//! second-order twins: [`Jvp`] (`f_jvp`), [`Hvp`] (`f_hvp`) and
//! [`Hessian`] (`f_hessian`), and [`Scalar::hessian`], which builds the
//! last from a recorded tape.

use std::fmt;

use crate::error::ScalarAutodiffError;
use crate::second_order;
use crate::tape::Scalar;

/// A function's value and its directional derivative `∇f · v` (forward
/// mode), from `f_jvp`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Jvp<Out> {
    /// The function's value.
    pub value: Out,
    /// The derivative of the value along the tangent.
    pub tangent: Out,
}

/// A function's value, gradient and Hessian-vector product `H·v`, from
/// `f_hvp`. `gradient` and `hvp` are shaped like the differentiable
/// parameters, as `f_grad`'s gradient is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hvp<G> {
    /// The function's value.
    pub value: f64,
    /// ∂value/∂parameters.
    pub gradient: G,
    /// The Hessian times the direction: the derivative of the gradient
    /// along it.
    pub hvp: G,
}

/// A dense Hessian: the second derivatives of a function with respect to
/// every pair of its differentiable components, flattened in the order
/// `f_check` lists them (parameters in order, arrays and `Vec`s front to
/// back, a model's fields in declaration order). From `f_hessian`.
///
/// Row `i` is computed by one Hessian-vector product along the `i`-th
/// unit vector, so the matrix is symmetric up to rounding (not forced to
/// be: the two triangles are computed independently).
///
/// ```
/// use autodiff_core::Tape;
///
/// // f(x, y) = x²y + y³: H = [[2y, 2x], [2x, 6y]].
/// let tape = Tape::new();
/// let x = tape.variable(1.0)?;
/// let y = tape.variable(2.0)?;
/// let f = x.mul(x)?.mul(y)?.add(y.powi(3)?)?;
/// let h = f.hessian(2)?;
/// assert_eq!((h.rows(), h.cols()), (2, 2));
/// assert_eq!([h.get(0, 0), h.get(0, 1), h.get(1, 0), h.get(1, 1)], [4.0, 2.0, 2.0, 12.0]);
/// println!("{h}");
/// # Ok::<(), autodiff_core::ScalarAutodiffError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Hessian {
    size: usize,
    /// Row-major.
    entries: Vec<f64>,
}

impl Hessian {
    /// A Hessian from its rows, which must be square (`None` otherwise).
    pub fn from_rows(rows: Vec<Vec<f64>>) -> Option<Self> {
        let size = rows.len();
        if rows.iter().any(|row| row.len() != size) {
            return None;
        }
        Some(Self {
            size,
            entries: rows.into_iter().flatten().collect(),
        })
    }

    /// The number of rows: the function's differentiable components.
    pub fn rows(&self) -> usize {
        self.size
    }

    /// The number of columns, equal to [`rows`](Self::rows).
    pub fn cols(&self) -> usize {
        self.size
    }

    /// `∂²f/∂xᵢ∂xⱼ`.
    ///
    /// # Panics
    ///
    /// If `i` or `j` is not below [`rows`](Self::rows), as indexing a slice
    /// out of range does; [`try_get`](Self::try_get) returns `None` instead.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        match self.try_get(i, j) {
            Some(entry) => entry,
            None => panic!(
                "Hessian entry ({i}, {j}) is out of range for a {0} × {0} Hessian",
                self.size
            ),
        }
    }

    /// `∂²f/∂xᵢ∂xⱼ`, or `None` out of range.
    pub fn try_get(&self, i: usize, j: usize) -> Option<f64> {
        (i < self.size && j < self.size).then(|| self.entries[i * self.size + j])
    }

    /// Row `i` (`None` out of range).
    pub fn row(&self, i: usize) -> Option<&[f64]> {
        (i < self.size).then(|| &self.entries[i * self.size..(i + 1) * self.size])
    }

    /// The largest `|H[i][j] − H[j][i]|`: 0 in exact arithmetic, a few
    /// rounding errors in practice.
    pub fn max_asymmetry(&self) -> f64 {
        let mut worst = 0.0_f64;
        for i in 0..self.size {
            for j in 0..i {
                worst = worst.max((self.get(i, j) - self.get(j, i)).abs());
            }
        }
        worst
    }

    /// `H · v`, or `None` when `v` has not [`cols`](Self::cols) entries.
    pub fn times(&self, v: &[f64]) -> Option<Vec<f64>> {
        (v.len() == self.size).then(|| {
            // `max(1)`: an empty Hessian has no rows, and `chunks` needs a
            // size.
            self.entries
                .chunks(self.size.max(1))
                .map(|row| row.iter().zip(v).map(|(h, x)| h * x).sum())
                .collect()
        })
    }
}

impl fmt::Display for Hessian {
    /// One line per row, entries right-aligned in columns; the precision,
    /// if given (`{:.3}`), applies to every entry (default: `f64`'s
    /// shortest round-trip form).
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(formatter, "Hessian ({0} × {0})", self.size)?;
        write_matrix(formatter, &self.entries, self.size)
    }
}

/// The rows of a row-major matrix of `cols` columns, one line each, the
/// entries right-aligned in columns; the formatter's precision, if given,
/// applies to every entry (default: `f64`'s shortest round-trip form).
pub(crate) fn write_matrix(
    formatter: &mut fmt::Formatter<'_>,
    entries: &[f64],
    cols: usize,
) -> fmt::Result {
    if cols == 0 {
        return Ok(());
    }
    let cells: Vec<String> = entries
        .iter()
        .map(|entry| match formatter.precision() {
            Some(precision) => format!("{entry:.precision$}"),
            None => entry.to_string(),
        })
        .collect();
    let width = cells
        .iter()
        .map(|cell| cell.chars().count())
        .max()
        .unwrap_or(0);
    for row in cells.chunks(cols) {
        formatter.write_str("[")?;
        for (j, cell) in row.iter().enumerate() {
            let separator = if j == 0 { "" } else { "  " };
            write!(formatter, "{separator}{cell:>width$}")?;
        }
        writeln!(formatter, "]")?;
    }
    Ok(())
}

impl<'t> Scalar<'t> {
    /// The Hessian of this node with respect to the first `variables`
    /// nodes of its tape, which must all be variables (as
    /// `#[differentiable]` records its parameters): one Hessian-vector
    /// product per unit direction, on the tape as recorded. Errors are
    /// [`hvp`](Self::hvp)'s. The tape is not changed.
    pub fn hessian(self, variables: usize) -> Result<Hessian, ScalarAutodiffError> {
        let mut entries = vec![0.0; variables * variables];
        let mut direction = vec![0.0; variables];
        let output = self.index();
        // SAFETY: the guard lives for this function, which calls only
        // `Nodes` reads.
        let nodes = unsafe { self.tape.read() };
        for i in 0..variables {
            direction[i] = 1.0;
            let pass = second_order::hvp(&nodes, output, &direction)?;
            direction[i] = 0.0;
            // H·eᵢ is column i, written in place: symmetry is not forced
            // (the two triangles come from different passes, and their
            // difference is `max_asymmetry`). Variables past the output
            // have no entry in the pass: 0.
            for (j, &entry) in pass.hvps().iter().take(variables).enumerate() {
                entries[j * variables + i] = entry;
            }
        }
        Ok(Hessian {
            size: variables,
            entries,
        })
    }
}
