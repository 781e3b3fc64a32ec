//! Whether a parameter and its gradient are finite ([`Checked`]), in one
//! pass over flat memory.

/// A differentiable parameter and its gradient (the shape [`zero`](super::zero) gave),
/// checked for finiteness together.
///
/// Nested arrays are flattened (`[[f64; 64]]` is one run of `f64`), so a
/// whole parameter is one pass of [`finite_pairs`]; only a `Vec` of `Vec`s
/// goes row by row.
pub trait Checked<B> {
    /// Whether every `f64` component of both is finite.
    fn finite_with(&self, bar: &B) -> bool;

    /// The same over two runs of equal length.
    #[inline]
    fn finite_slice(items: &[Self], bars: &[B]) -> bool
    where
        Self: Sized,
    {
        items
            .iter()
            .zip(bars)
            .fold(true, |ok, (item, bar)| ok & item.finite_with(bar))
    }

    /// The same over two runs of rows, row by row: each row's
    /// [`finite_slice`](Self::finite_slice), or one pass for `f64`
    /// ([`finite_row_pairs`]).
    #[inline]
    fn finite_rows(items: &[Vec<Self>], bars: &[Vec<B>]) -> bool
    where
        Self: Sized,
    {
        items
            .iter()
            .zip(bars)
            .fold(true, |ok, (item, bar)| ok & Self::finite_slice(item, bar))
    }
}

impl Checked<f64> for f64 {
    #[inline(always)]
    fn finite_with(&self, bar: &f64) -> bool {
        self.is_finite() & bar.is_finite()
    }

    #[inline]
    fn finite_slice(items: &[f64], bars: &[f64]) -> bool {
        finite_pairs(items, bars)
    }

    #[inline]
    fn finite_rows(items: &[Vec<f64>], bars: &[Vec<f64>]) -> bool {
        finite_row_pairs(items, bars)
    }
}

impl<T: Checked<B>, B, const N: usize> Checked<[B; N]> for [T; N] {
    #[inline]
    fn finite_with(&self, bar: &[B; N]) -> bool {
        T::finite_slice(self, bar)
    }

    #[inline]
    fn finite_slice(items: &[[T; N]], bars: &[[B; N]]) -> bool {
        T::finite_slice(items.as_flattened(), bars.as_flattened())
    }
}

impl<T: Checked<B>, B> Checked<Vec<B>> for [T] {
    #[inline]
    fn finite_with(&self, bar: &Vec<B>) -> bool {
        T::finite_slice(self, bar)
    }
}

impl<T: Checked<B>, B> Checked<Vec<B>> for Vec<T> {
    #[inline]
    fn finite_with(&self, bar: &Vec<B>) -> bool {
        T::finite_slice(self, bar)
    }

    #[inline]
    fn finite_slice(items: &[Vec<T>], bars: &[Vec<B>]) -> bool {
        T::finite_rows(items, bars)
    }
}

impl<T: Checked<B> + ?Sized, B> Checked<B> for &T {
    #[inline(always)]
    fn finite_with(&self, bar: &B) -> bool {
        (**self).finite_with(bar)
    }
}

/// Whether every item of `items` and `bars` is finite: [`finite_items`]
/// of each. Runs of unequal length (impossible for `zero`'s shapes) are
/// checked up to the shorter.
///
/// ```
/// use autodiff::__adjoint::finite_pairs;
///
/// assert!(finite_pairs(&[1.0, -2.0, 3.0], &[0.5, 1e308, -0.0]));
/// assert!(!finite_pairs(&[1.0, -2.0, 3.0], &[0.5, f64::NAN, 0.0]));
/// assert!(!finite_pairs(&[f64::NEG_INFINITY], &[0.0]));
/// ```
#[inline]
pub fn finite_pairs(items: &[f64], bars: &[f64]) -> bool {
    let length = items.len().min(bars.len());
    finite_items(&items[..length]) & finite_items(&bars[..length])
}

/// [`finite_pairs`] of each pair of rows (`W` and `W̄` as `Vec` rows), in
/// one pass: the lanes of [`finite_parts`] carried from row to row and
/// summed once at the end, where summing them per row was half the scan
/// of a row of 16.
///
/// ```
/// use autodiff::__adjoint::finite_row_pairs;
///
/// let w = vec![vec![1.0; 16]; 3];
/// let mut bar = vec![vec![0.5; 16]; 3];
/// assert!(finite_row_pairs(&w, &bar));
/// bar[2][15] = f64::INFINITY;
/// assert!(!finite_row_pairs(&w, &bar));
/// ```
#[inline]
pub fn finite_row_pairs(items: &[Vec<f64>], bars: &[Vec<f64>]) -> bool {
    let mut lanes = Lanes::default();
    for (item, bar) in items.iter().zip(bars) {
        let length = item.len().min(bar.len());
        lanes.add(&item[..length]);
        lanes.add(&bar[..length]);
    }
    lanes.finite()
}

/// [`finite_items`] of every row, in one pass (see [`finite_row_pairs`]).
///
/// ```
/// use autodiff::__adjoint::finite_rows;
///
/// let mut rows = vec![vec![1.0; 3], vec![2.0; 17]];
/// assert!(finite_rows(&rows));
/// rows[1][16] = f64::NAN;
/// assert!(!finite_rows(&rows));
/// assert!(finite_rows::<Vec<f64>>(&[]));
/// ```
#[inline]
pub fn finite_rows<R: AsRef<[f64]>>(rows: &[R]) -> bool {
    let mut lanes = Lanes::default();
    for row in rows {
        lanes.add(row.as_ref());
    }
    lanes.finite()
}

/// The running sums of [`finite_parts`] (`v · 0`, ±0 while every `v` is
/// finite), in eight lanes and one for what is left of each run.
#[derive(Default)]
struct Lanes {
    lanes: [f64; 8],
    rest: f64,
}

impl Lanes {
    #[inline(always)]
    fn add(&mut self, items: &[f64]) {
        let chunks = items.chunks_exact(8);
        let rest = chunks.remainder();
        for chunk in chunks {
            for (sum, item) in self.lanes.iter_mut().zip(chunk) {
                *sum += item * 0.0;
            }
        }
        for item in rest {
            self.rest += item * 0.0;
        }
    }

    #[inline(always)]
    fn finite(&self) -> bool {
        self.lanes.iter().sum::<f64>() + self.rest == 0.0
    }
}

/// Whether every item is finite: [`finite_parts`] of the items.
///
/// ```
/// use autodiff::__adjoint::finite_items;
///
/// assert!(finite_items(&[1.0, -2.0, 3.0, 0.5, 1e308, -0.0, 7.0, 8.0, 9.0]));
/// assert!(!finite_items(&[1.0, -2.0, 3.0, 0.5, 1e308, -0.0, 7.0, 8.0, f64::NAN]));
/// assert!(!finite_items(&[f64::NEG_INFINITY]));
/// assert!(finite_items(&[]));
/// ```
#[inline]
pub fn finite_items(items: &[f64]) -> bool {
    finite_parts(items, |&item| [item])
}

/// Whether every part of every item is finite (`parts` gives an item's
/// `f64`s: one for a number, two for a `Dual`), in one pass: `v · 0` is ±0
/// for a finite `v` and NaN otherwise, summed in independent lanes so that
/// the loop vectorises on baseline x86-64, which a fold of `is_finite`
/// does not (a gradient's entry and exit scans of a 10⁶-item slice took
/// 1.2× the time of this one).
///
/// ```
/// use autodiff::__adjoint::finite_parts;
///
/// let pairs = [(1.0, 2.0); 9];
/// assert!(finite_parts(&pairs, |&(a, b)| [a, b]));
/// let mut bad = pairs;
/// bad[8].1 = f64::INFINITY;
/// assert!(!finite_parts(&bad, |&(a, b)| [a, b]));
/// ```
#[inline]
pub fn finite_parts<T, const P: usize>(items: &[T], parts: impl Fn(&T) -> [f64; P]) -> bool {
    let mut lanes = [[0.0_f64; P]; 8];
    let chunks = items.chunks_exact(8);
    let rest = chunks.remainder();
    for chunk in chunks {
        for (lane, item) in lanes.iter_mut().zip(chunk) {
            for (sum, part) in lane.iter_mut().zip(parts(item)) {
                *sum += part * 0.0;
            }
        }
    }
    let mut total: f64 = lanes.iter().flatten().sum();
    for item in rest {
        total += parts(item).iter().map(|part| part * 0.0).sum::<f64>();
    }
    total == 0.0
}
