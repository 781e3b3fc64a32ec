//! Loop iterations on the tape: the recording twin enters one at the top of
//! every loop body, so that an error names `i = 3` beside its line.

use autodiff_core::{InLoop, Tape};

/// Begins a loop named `name` on `tape` (`for i`: "i"; `while`; `loop`).
#[inline(always)]
pub fn enter_loop<'t>(tape: &'t Tape, name: &'static str) -> InLoop<'t> {
    tape.enter_loop(name)
}

/// A loop variable, asked for its integer value by autoref: `(&LoopVariable(&i)).loop_value()`
/// is `Some` for an integer and `None` for anything else (a layer, a `Scalar`).
pub struct LoopVariable<'a, T>(pub &'a T);

/// The integer case, found first (implemented on the value, where the
/// fallback is on its reference).
pub trait IntegerLoopVariable {
    /// The variable's value.
    fn loop_value(&self) -> Option<i64>;
}

impl<T: Copy + TryInto<i64>> IntegerLoopVariable for LoopVariable<'_, T> {
    #[inline(always)]
    fn loop_value(&self) -> Option<i64> {
        (*self.0).try_into().ok()
    }
}

/// Any other loop variable: its iterations are counted.
pub trait OtherLoopVariable {
    /// `None`.
    fn loop_value(&self) -> Option<i64>;
}

impl<T> OtherLoopVariable for &LoopVariable<'_, T> {
    #[inline(always)]
    fn loop_value(&self) -> Option<i64> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::needless_borrow)] // the borrow is what picks the impl
    fn integers_give_their_value_and_other_variables_none() {
        let (i, n, s, layer) = (3usize, -2i32, 0.5f64, vec![1.0]);
        assert_eq!((&LoopVariable(&i)).loop_value(), Some(3));
        assert_eq!((&LoopVariable(&n)).loop_value(), Some(-2));
        assert_eq!((&LoopVariable(&s)).loop_value(), None);
        assert_eq!((&LoopVariable(&&layer)).loop_value(), None);
    }
}
