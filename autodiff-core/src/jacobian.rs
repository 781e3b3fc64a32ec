//! The Jacobian of a vector-valued function, and its check against
//! central differences, one output component at a time.

use std::collections::HashMap;
use std::fmt;

use crate::gradcheck::{gradient_check, GradientCheck, GradientCheckError};

/// A dense Jacobian: one row per output component (flattened in the
/// output's order: a `Vec`'s elements, an array row-major, a tuple's
/// components `.0` first), one column per differentiable input component
/// (in the order `f_check` lists them).
///
/// ```
/// use autodiff_core::Jacobian;
///
/// // f(x, y) = (x·y, x + y) at (2, 3)
/// let jacobian = Jacobian::from_rows(vec![vec![3.0, 2.0], vec![1.0, 1.0]]).unwrap();
/// assert_eq!((jacobian.rows(), jacobian.cols()), (2, 2));
/// assert_eq!(jacobian.get(0, 1), 2.0);
/// assert_eq!(jacobian.transpose_times(&[1.0, 1.0]), Some(vec![4.0, 3.0]));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Jacobian {
    rows: usize,
    cols: usize,
    /// Row-major.
    entries: Vec<f64>,
}

impl Jacobian {
    /// A Jacobian from its rows, which must all have the same length
    /// (`None` otherwise). No rows give a 0 × 0 Jacobian; see
    /// [`with_cols`](Self::with_cols) for a function with no output.
    pub fn from_rows(rows: Vec<Vec<f64>>) -> Option<Self> {
        let cols = rows.first().map_or(0, Vec::len);
        Self::with_cols(rows, cols)
    }

    /// A Jacobian of `cols` columns from its rows, each of which must have
    /// `cols` entries (`None` otherwise): no rows (an empty output) give a
    /// 0 × `cols` Jacobian, which still counts the inputs.
    ///
    /// ```
    /// use autodiff_core::Jacobian;
    ///
    /// let empty = Jacobian::with_cols(Vec::new(), 3).unwrap();
    /// assert_eq!((empty.rows(), empty.cols()), (0, 3));
    /// assert_eq!(empty.transpose_times(&[]), Some(vec![0.0; 3]));
    /// assert!(Jacobian::with_cols(vec![vec![1.0]], 2).is_none());
    /// ```
    pub fn with_cols(rows: Vec<Vec<f64>>, cols: usize) -> Option<Self> {
        if rows.iter().any(|row| row.len() != cols) {
            return None;
        }
        Some(Self {
            rows: rows.len(),
            cols,
            entries: rows.into_iter().flatten().collect(),
        })
    }

    /// The number of rows: the output's components.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns: the differentiable input components.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// `∂outputᵢ/∂inputⱼ`.
    ///
    /// # Panics
    ///
    /// If `row` or `col` is out of range, as indexing a slice out of range
    /// does; [`try_get`](Self::try_get) returns `None` instead.
    pub fn get(&self, row: usize, col: usize) -> f64 {
        match self.try_get(row, col) {
            Some(entry) => entry,
            None => panic!(
                "Jacobian entry ({row}, {col}) is out of range for a {} × {} Jacobian",
                self.rows, self.cols
            ),
        }
    }

    /// `∂outputᵢ/∂inputⱼ`, or `None` out of range.
    pub fn try_get(&self, row: usize, col: usize) -> Option<f64> {
        (row < self.rows && col < self.cols).then(|| self.entries[row * self.cols + col])
    }

    /// Row `i`: the gradient of output component `i` (`None` out of range).
    pub fn row(&self, i: usize) -> Option<&[f64]> {
        (i < self.rows).then(|| &self.entries[i * self.cols..(i + 1) * self.cols])
    }

    /// `J · v` (a directional derivative of every output), or `None` when
    /// `v` has not [`cols`](Self::cols) entries.
    pub fn times(&self, v: &[f64]) -> Option<Vec<f64>> {
        (v.len() == self.cols).then(|| {
            (0..self.rows)
                .map(|i| {
                    let row = &self.entries[i * self.cols..(i + 1) * self.cols];
                    row.iter().zip(v).map(|(a, b)| a * b).sum()
                })
                .collect()
        })
    }

    /// `Jᵀ · u` (a vector-Jacobian product, what `f_vjp` computes without
    /// building `J`), or `None` when `u` has not [`rows`](Self::rows)
    /// entries.
    pub fn transpose_times(&self, u: &[f64]) -> Option<Vec<f64>> {
        (u.len() == self.rows).then(|| {
            let mut out = vec![0.0; self.cols];
            for (i, &weight) in u.iter().enumerate() {
                let row = &self.entries[i * self.cols..(i + 1) * self.cols];
                for (sum, entry) in out.iter_mut().zip(row) {
                    *sum += weight * entry;
                }
            }
            out
        })
    }
}

impl fmt::Display for Jacobian {
    /// One line per row, entries right-aligned in columns, as a
    /// [`Hessian`](crate::Hessian) prints.
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(formatter, "Jacobian ({} × {})", self.rows, self.cols)?;
        crate::curvature::write_matrix(formatter, &self.entries, self.cols)
    }
}

/// A Jacobian checked row by row against central differences: each row is
/// a [`GradientCheck`] of one output component, judged as
/// [`gradient_check`] judges a gradient.
#[derive(Clone, Debug, PartialEq)]
pub struct JacobianCheck {
    /// One check per output component, in the output's flattened order.
    pub rows: Vec<GradientCheck>,
}

impl JacobianCheck {
    /// Whether every entry of every row is within its tolerance.
    pub fn passed(&self) -> bool {
        self.rows.iter().all(GradientCheck::passed)
    }

    /// The largest scaled error over all entries (0 for none).
    pub fn max_scaled_error(&self) -> f64 {
        self.rows
            .iter()
            .map(GradientCheck::max_scaled_error)
            .fold(0.0, f64::max)
    }

    /// The entries that failed, as `(row, column)`.
    pub fn failures(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        self.rows
            .iter()
            .enumerate()
            .flat_map(|(row, check)| check.failures().map(move |c| (row, c.component)))
    }
}

impl fmt::Display for JacobianCheck {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            formatter,
            "Jacobian check ({}; {} output components)",
            if self.passed() { "passed" } else { "FAILED" },
            self.rows.len()
        )?;
        for (i, row) in self.rows.iter().enumerate() {
            writeln!(formatter, "output component {i}:")?;
            write!(formatter, "{row}")?;
        }
        Ok(())
    }
}

/// Checks every entry of `analytic` (rows: output components, columns:
/// inputs) against central differences of `f` at `inputs`, as
/// [`gradient_check`] checks a gradient, one row at a time. `f` returns
/// every output component, flattened; each perturbed point is evaluated
/// once for all rows.
///
/// An `f` that returns another number of components than `analytic` has
/// rows at some point is [`GradientCheckError::OutputLengthMismatch`].
///
/// ```
/// use autodiff_core::{jacobian_check, Jacobian, DEFAULT_TOLERANCE};
///
/// // f(x, y) = (x·y, x + y) at (2, 3)
/// let right = Jacobian::from_rows(vec![vec![3.0, 2.0], vec![1.0, 1.0]]).unwrap();
/// let f = |v: &[f64]| vec![v[0] * v[1], v[0] + v[1]];
/// assert!(jacobian_check(&[2.0, 3.0], &right, None, DEFAULT_TOLERANCE, f)?.passed());
/// let wrong = Jacobian::from_rows(vec![vec![3.0, 2.0], vec![1.0, 2.0]]).unwrap();
/// let check = jacobian_check(&[2.0, 3.0], &wrong, None, DEFAULT_TOLERANCE, f)?;
/// assert_eq!(check.failures().collect::<Vec<_>>(), vec![(1, 1)]);
/// # Ok::<(), autodiff_core::GradientCheckError>(())
/// ```
pub fn jacobian_check(
    inputs: &[f64],
    analytic: &Jacobian,
    step: Option<f64>,
    tolerance: f64,
    mut f: impl FnMut(&[f64]) -> Vec<f64>,
) -> Result<JacobianCheck, GradientCheckError> {
    if analytic.cols() != inputs.len() {
        return Err(GradientCheckError::LengthMismatch {
            inputs: inputs.len(),
            analytic: analytic.cols(),
        });
    }
    // Every row perturbs the same points: each is evaluated once.
    let mut seen: HashMap<Vec<u64>, Vec<f64>> = HashMap::new();
    let mut mismatch = None;
    let mut rows = Vec::with_capacity(analytic.rows());
    for i in 0..analytic.rows() {
        let row = analytic.row(i).unwrap_or(&[]);
        let check = gradient_check(inputs, row, step, tolerance, |point| {
            let key: Vec<u64> = point.iter().map(|x| x.to_bits()).collect();
            let outputs = seen.entry(key).or_insert_with(|| f(point));
            match outputs.get(i) {
                Some(&value) if outputs.len() == analytic.rows() => value,
                _ => {
                    mismatch.get_or_insert(outputs.len());
                    f64::NAN
                }
            }
        });
        if let Some(found) = mismatch {
            return Err(GradientCheckError::OutputLengthMismatch {
                expected: analytic.rows(),
                found,
            });
        }
        rows.push(check?);
    }
    Ok(JacobianCheck { rows })
}
