//! How a view writes a number: [`Numbers`], fixed decimals as chapter 14
//! prints them or a few significant digits for pictures.

/// How numbers are written.
///
/// ```
/// use autodiff_core::Numbers;
///
/// assert_eq!(Numbers::Fixed(3).format(2.0), "2.000");
/// assert_eq!(Numbers::Significant(4).format(1.587431271430), "1.587");
/// assert_eq!(Numbers::Significant(4).format(8.0), "8");
/// assert_eq!(Numbers::Significant(3).format(1.5e-9), "1.5e-9");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Numbers {
    /// A fixed number of decimals, as chapter 14 prints (`8.000000000000`);
    /// at most 30.
    Fixed(usize),
    /// At most this many significant digits, trailing zeros dropped (`8`,
    /// `1.58743`), switching to exponent form for very large or small values;
    /// between 1 and 17 digits.
    Significant(usize),
}

impl Numbers {
    /// Tables default to chapter 14's twelve decimals, so that a row reads
    /// like the book.
    pub(super) const TABLE: Self = Self::Fixed(12);

    /// Pictures default to six significant digits, so that boxes stay narrow.
    pub(super) const PICTURE: Self = Self::Significant(6);

    /// Writes `value` in this format. NaN and infinities print as Rust does.
    pub fn format(self, value: f64) -> String {
        match self {
            // Past these, digits only restate the binary expansion, and a
            // huge request would allocate without bound.
            Self::Fixed(decimals) => {
                let decimals = decimals.min(MAX_DECIMALS);
                format!("{value:.decimals$}")
            }
            Self::Significant(digits) => significant(value, digits.clamp(1, 17)),
        }
    }

    /// Writes a gradient or adjoint that exists only for tracked nodes.
    pub(super) fn format_tracked(self, value: Option<f64>) -> String {
        value.map_or_else(|| "untracked".to_owned(), |value| self.format(value))
    }
}

/// The most decimals [`Numbers::Fixed`] writes.
const MAX_DECIMALS: usize = 30;

fn significant(value: f64, digits: usize) -> String {
    if value == 0.0 {
        return "0".to_owned();
    }
    if !value.is_finite() {
        return format!("{value}");
    }
    let magnitude = value.abs().log10().floor();
    if (-4.0..6.0).contains(&magnitude) {
        let decimals = (digits as f64 - 1.0 - magnitude).max(0.0) as usize;
        trim_zeros(format!("{value:.decimals$}"))
    } else {
        let text = format!("{value:.*e}", digits - 1);
        match text.split_once('e') {
            Some((mantissa, exponent)) => format!("{}e{exponent}", trim_zeros(mantissa.to_owned())),
            None => text,
        }
    }
}

fn trim_zeros(text: String) -> String {
    if !text.contains('.') {
        return text;
    }
    let trimmed = text.trim_end_matches('0').trim_end_matches('.');
    // `-0.0000001` at 4 decimals rounds to `-0`, which reads as a sign error.
    if trimmed == "-0" {
        "0".to_owned()
    } else {
        trimmed.to_owned()
    }
}
