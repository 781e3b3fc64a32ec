//! What the compiled adjoint calls: `f_grad` as generated Rust (a forward
//! sweep, then a reverse sweep over the student's bindings) instead of a
//! recorded tape. Not a public API: names and signatures here change with
//! the macro. The design the emitter follows is `docs/compiled-adjoint.md`.

mod adjoints;
mod calls;
mod dual;
mod dual_calls;
pub(crate) mod dual_models;
mod lend;
mod models;
mod moves;
mod operands;
mod reverses;
mod stack;

pub use adjoints::*;
pub use calls::{
    args, scalar_of, unread, Arg, Args, Cotangent, NotDifferentiable, Poisoned, ScalarOf, Unread,
};
pub use dual::{
    compiled_hessians, compiled_hvps, compiled_jvps, dual, dual_activations, dual_rules, duals,
    hessian_compiled, hvp_compiled, jvp_compiled, lift, AsDual, DualStack, Lift, Split, Unmade,
};
pub use dual_calls::{
    dual_zero, forward_with, forwarded_dual, pop_all_scaled, ConstantDuals, DualSpread,
    DualSpreads, DualSweep, DualZero, NoDualSweep, Rows,
};
pub use dual_models::split_model;
pub use lend::{
    give_back, give_back_model, give_back_numbers, give_back_rows, lend, lend_numbers, lend_rows,
    Lent,
};
pub use models::{carried, model_all_finite, model_finite_with, pop_model, push_model, zero_model};
pub use moves::{
    add_items, add_rows, filled, part, push, put_item, resized, sort_by, split_items, take_item,
    unsort,
};
pub use operands::{f64_of, Operand, ReturnsF64};
pub use reverses::{NoCotangent, NoCotangents};
pub use stack::*;

use std::borrow::Borrow;
use std::cell::Cell;
use std::ops::{AddAssign, Index, IndexMut, Mul, Neg, SubAssign};

pub use autodiff_core::ValueAndGradient;

/// The number type the sweeps' arithmetic needs: the engine's, which the
/// derivative rules are written over.
pub use autodiff_core::Real;

/// A stack of `f64` values the generic sweep saves: the primal parts are
/// enough for `f64`; a dual-number sweep needs its own stack of duals, which
/// this keeps room for without paying for it now.
pub trait Saves<R> {
    /// Saves `value`.
    fn save(&mut self, value: R);
    /// The last saved value.
    fn restore(&mut self) -> R;
}

impl Saves<f64> for Stack {
    #[inline(always)]
    fn save(&mut self, value: f64) {
        self.push(value);
    }
    #[inline(always)]
    fn restore(&mut self) -> f64 {
        self.pop()
    }
}

/// What the reverse sweep does with a whole adjoint (an array's, a
/// `Vec`'s, a scalar's) where the emitter cannot see whether it is a
/// `∂clamp(x, lo, hi)` by `x`, `lo` and `hi`, as the tape takes them: it
/// records `max(min(x, hi), lo)`, so each is a product of `min`'s and
/// `max`'s rules (1 inside or at the bound clamped to, 1/2 at a tie).
///
/// ```
/// use autodiff::__adjoint::clamp_partials;
///
/// assert_eq!(clamp_partials(0.5, 0.0, 1.0), (1.0, 0.0, 0.0));
/// assert_eq!(clamp_partials(2.0, 0.0, 1.0), (0.0, 0.0, 1.0));
/// ```
#[inline(always)]
pub fn clamp_partials(
    x: impl Borrow<f64>,
    lo: impl Borrow<f64>,
    hi: impl Borrow<f64>,
) -> (f64, f64, f64) {
    autodiff_core::rules::clamp_partials(*x.borrow(), *lo.borrow(), *hi.borrow())
}

pub mod rules {
    //! The derivative rules as the reverse sweep calls them: one function
    //! per rule the table of operations names, forwarding to the engine's
    //! (`autodiff_core::rules`), so the compiled adjoint and the tape take
    //! the same derivative. Each takes its operands as `impl Borrow<f64>`,
    //! since the sweep may read a value through a reference (`for x in
    //! xs.iter()`).
    //!
    //! ```
    //! use autodiff::__adjoint::rules;
    //!
    //! let z = 0.5_f64;
    //! assert_eq!(rules::tanh_partial(&z), autodiff::rules::tanh_partial(z));
    //! assert_eq!(rules::powi_partial(2.0, 3), 12.0);
    //! assert_eq!(rules::max_partials(1.0, 1.0), (0.5, 0.5));
    //! ```

    use std::borrow::Borrow;

    /// Expands the table into one forwarding function per rule.
    macro_rules! forward_rules {
        ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
            $(forward_rules!(@rule $name $rule $(($function))?);)*
        };
        (@rule $name:literal none) => {};
        (@rule $name:literal zero) => {};
        (@rule $name:literal operand($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` from its operand.")]
            #[inline(always)]
            pub fn $function(x: impl Borrow<f64>) -> f64 {
                autodiff_core::rules::$function(*x.borrow())
            }
        };
        (@rule $name:literal result($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` from its result.")]
            #[inline(always)]
            pub fn $function(y: impl Borrow<f64>) -> f64 {
                autodiff_core::rules::$function(*y.borrow())
            }
        };
        (@rule $name:literal operands($function:ident)) => {
            #[doc = concat!("The partials of `", $name, "` by each operand.")]
            #[inline(always)]
            pub fn $function(a: impl Borrow<f64>, b: impl Borrow<f64>) -> (f64, f64) {
                autodiff_core::rules::$function(*a.borrow(), *b.borrow())
            }
        };
        // The exponent is the recording twin's `PowiExponent`: an `i32`,
        // any other number only in a body whose `x.powi(n)` the plain twin
        // rejects (then the adjoint adds no second error).
        (@rule $name:literal power($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` by its base.")]
            #[inline(always)]
            pub fn $function(x: impl Borrow<f64>, n: impl crate::__private::PowiExponent) -> f64 {
                autodiff_core::rules::$function(*x.borrow(), n.exponent())
            }
        };
    }

    autodiff_ops_table::operations!(forward_rules);
}

/// A gradient of any parameter shape, written to and read back from the
/// [`Stack`]: the forward/reverse pair of a function that keeps the tape
/// pushes its tape gradient, and its reverse adds `value_bar ×` it.
pub trait Spread {
    /// Pushes every component, in order.
    fn push_all(&self, stack: &mut Stack);
    /// Pops every component (last first) and adds `scale ×` it to `self`.
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64);
    /// [`push_all`](Self::push_all) of each item in turn; numbers all at
    /// once.
    #[inline]
    fn push_items(items: &[Self], stack: &mut Stack)
    where
        Self: Sized,
    {
        items.iter().for_each(|item| item.push_all(stack));
    }
    /// [`pop_scaled`](Self::pop_scaled) of each item, the last first;
    /// numbers all at once, each added to exactly as one by one.
    #[inline]
    fn pop_scaled_items(items: &mut [Self], stack: &mut Stack, scale: f64)
    where
        Self: Sized,
    {
        items
            .iter_mut()
            .rev()
            .for_each(|item| item.pop_scaled(stack, scale));
    }
}

impl Spread for f64 {
    #[inline]
    fn push_all(&self, stack: &mut Stack) {
        stack.push(*self);
    }
    #[inline]
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64) {
        *self += scale * stack.pop();
    }
    #[inline]
    fn push_items(items: &[f64], stack: &mut Stack) {
        stack.push_slice(items);
    }
    #[inline]
    fn pop_scaled_items(items: &mut [f64], stack: &mut Stack, scale: f64) {
        add_scaled_run(items, stack.pop_run(items.len()), scale);
    }
}

/// `items[k] += scale × run[k]`: the run a stack saved last, these items in
/// order (`push_items`), added to each item as one pop at a time would.
/// A shorter run (the stack's `pop_run` has then failed the sweep) adds
/// to the last items only.
#[inline]
pub(crate) fn add_scaled_run<T: Copy + AddAssign + Mul<Output = T>>(
    items: &mut [T],
    run: impl ExactSizeIterator<Item = T>,
    scale: T,
) {
    let short = items.len() - run.len();
    for (item, value) in items[short..].iter_mut().zip(run) {
        *item += scale * value;
    }
}

impl<T: Spread> Spread for [T] {
    fn push_all(&self, stack: &mut Stack) {
        T::push_items(self, stack);
    }
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64) {
        T::pop_scaled_items(self, stack, scale);
    }
}

impl<T: Spread, const N: usize> Spread for [T; N] {
    fn push_all(&self, stack: &mut Stack) {
        self.as_slice().push_all(stack);
    }
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64) {
        self.as_mut_slice().pop_scaled(stack, scale);
    }
}

impl<T: Spread> Spread for Vec<T> {
    fn push_all(&self, stack: &mut Stack) {
        self.as_slice().push_all(stack);
    }
    fn pop_scaled(&mut self, stack: &mut Stack, scale: f64) {
        self.as_mut_slice().pop_scaled(stack, scale);
    }
}

/// A function's whole gradient: one component per differentiable
/// parameter, pushed in order and popped last first.
macro_rules! spread_tuple {
    ($($t:ident $i:tt),*) => {
        impl<$($t: Spread),*> Spread for ($($t,)*) {
            #[inline]
            fn push_all(&self, _stack: &mut Stack) {
                $(self.$i.push_all(_stack);)*
            }
            #[inline]
            fn pop_scaled(&mut self, _stack: &mut Stack, _scale: f64) {
                spread_tuple!(@pop self _stack _scale [] $($i)*);
            }
        }
    };
    (@pop $self:ident $stack:ident $scale:ident [$($done:tt)*]) => {
        $($self.$done.pop_scaled($stack, $scale);)*
    };
    (@pop $self:ident $stack:ident $scale:ident [$($done:tt)*] $first:tt $($rest:tt)*) => {
        spread_tuple!(@pop $self $stack $scale [$first $($done)*] $($rest)*)
    };
}

spread_tuple!();
spread_tuple!(A 0, B 1);
spread_tuple!(A 0, B 1, C 2);
spread_tuple!(A 0, B 1, C 2, D 3);
spread_tuple!(A 0, B 1, C 2, D 3, E 4);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
spread_tuple!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// What an `f_forward` returns to the caller's forward sweep: the value of
/// `f`, with its gradient pushed for `f_reverse`; `result` is `None` when
/// `f`'s adjoint (or tape) failed, and then the caller's sweep fails too.
///
/// ```
/// use autodiff::__adjoint::{forwarded, Spread, Stack};
/// use autodiff::ValueAndGradient;
///
/// let mut stack = Stack::new();
/// let result = ValueAndGradient { value: 2.0, gradient: (3.0, [4.0, 5.0]) };
/// assert_eq!(forwarded(Some(result), &mut stack), 2.0);
/// let mut bars = (0.0, [0.0; 2]);
/// bars.pop_scaled(&mut stack, 10.0);
/// assert_eq!(bars, (30.0, [40.0, 50.0]));
/// assert!(forwarded::<f64>(None, &mut stack).is_nan() && !stack.finite());
/// ```
#[inline(always)]
pub fn forwarded<G: Spread>(result: Option<ValueAndGradient<G>>, stack: &mut Stack) -> f64 {
    match result {
        Some(result) => {
            result.gradient.push_all(stack);
            result.value
        }
        None => stack.failed(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_last_in_first_out() {
        let mut stack = Stack::new();
        stack.push(1.0);
        stack.push_trips(7);
        stack.push(2.0);
        stack.push_arm(3);
        assert_eq!(stack.pop_arm(), 3);
        assert_eq!(stack.pop(), 2.0);
        assert_eq!(stack.pop_trips(), 7);
        assert_eq!(stack.pop(), 1.0);
        assert!(stack.is_empty());
    }

    #[test]
    fn an_empty_stack_gives_values_the_checks_reject() {
        let mut stack = Stack::new();
        assert!(stack.pop().is_nan());
        assert_eq!(stack.pop_trips(), 0);
        assert_eq!(stack.pop_arm(), u32::MAX);
    }

    #[test]
    fn the_thread_stack_is_reused_and_cleared() {
        with_stack(|stack| {
            for k in 0..1000 {
                stack.push(f64::from(k));
            }
        });
        let (empty, capacity) = with_stack(|stack| (stack.is_empty(), stack.capacity_bytes()));
        assert!(empty);
        assert!(capacity >= 1000 * size_of::<f64>());
    }

    #[test]
    fn a_slice_of_numbers_spreads_as_its_items_one_by_one() {
        // Rows of numbers and a tuple around them: the run-at-once path of
        // `f64` and `Dual` against pushes and pops of each number.
        let rows = vec![vec![0.1, -2.5, 3.0e-300], vec![], vec![7.25]];
        let gradient = (1.5, rows.clone(), [0.3, f64::MIN_POSITIVE]);
        let mut stack = Stack::new();
        Spread::push_all(&gradient, &mut stack);
        let mut one_by_one = Stack::new();
        for value in [1.5, 0.1, -2.5, 3.0e-300, 7.25, 0.3, f64::MIN_POSITIVE] {
            one_by_one.push(value);
        }
        let mut bars = (
            0.25,
            vec![vec![1.0, 2.0, 3.0], vec![], vec![-4.0]],
            [0.5, 0.0],
        );
        let mut expected = bars.clone();
        Spread::pop_scaled(&mut bars, &mut stack, 0.3);
        expected.2[1] += 0.3 * one_by_one.pop();
        expected.2[0] += 0.3 * one_by_one.pop();
        for row in expected.1.iter_mut().rev() {
            for item in row.iter_mut().rev() {
                *item += 0.3 * one_by_one.pop();
            }
        }
        expected.0 += 0.3 * one_by_one.pop();
        assert_eq!(bars, expected);
        assert!(stack.is_empty() && stack.finite());
        // Fewer saved than the adjoint holds fails the sweep.
        let mut short = Stack::new();
        short.push(1.0);
        let mut bar = vec![0.0; 3];
        Spread::pop_scaled(&mut bar, &mut short, 1.0);
        assert!(!short.finite());

        use crate::Dual;
        let duals = vec![Dual::new(1.0, 0.5), Dual::new(-2.0, 0.25)];
        let mut dual_stack = DualStack::new();
        duals.push_all(&mut dual_stack);
        let mut dual_bars = vec![Dual::new(0.5, 1.0), Dual::constant(0.0)];
        dual_bars.pop_scaled(&mut dual_stack, Dual::new(3.0, 1.0));
        // (3 + ε)(1 + 0.5ε) = 3 + 2.5ε; (3 + ε)(−2 + 0.25ε) = −6 − 1.25ε.
        assert_eq!((dual_bars[0].value, dual_bars[0].tangent), (3.5, 3.5));
        assert_eq!((dual_bars[1].value, dual_bars[1].tangent), (-6.0, -1.25));
    }

    #[test]
    fn a_spare_adjoint_is_zeros_shaped_like_its_value_and_reused() {
        let mut stack = Stack::new();
        let x: &[f64] = &[1.0, 2.0, 3.0];
        let mut bar = spare(&mut stack, &x);
        assert_eq!(bar, [0.0; 3]);
        bar[2] = 5.0;
        let memory = bar.as_ptr();
        give_spare(&mut stack, &x, bar);
        let again = spare(&mut stack, &vec![4.0, 5.0]);
        assert_eq!((again.as_ptr(), again), (memory, vec![0.0, 0.0]));
        // Other shapes are plain zeros.
        assert_eq!(spare(&mut stack, &[[1.0_f64; 2]; 2]), [[0.0; 2]; 2]);
        let rows: &[Vec<f64>] = &[vec![1.0], vec![2.0, 3.0]];
        assert_eq!(spare(&mut stack, &rows), vec![vec![0.0], vec![0.0, 0.0]]);
    }

    #[test]
    fn adjoints_take_the_shape_of_their_values() {
        let v: Vec<[f64; 3]> = vec![[1.0; 3]; 2];
        assert_eq!(zero(&v), vec![[0.0; 3]; 2]);
        let s: &[f64] = &[1.0, 2.0];
        assert_eq!(zero(&s), vec![0.0, 0.0]);
        assert_eq!(zero(&[[2.0_f64; 2]; 3]), [[0.0; 2]; 3]);
        assert_eq!(zero(&[1_usize, 2]), [NoAdjoint, NoAdjoint]);
        let ragged: &[Vec<f64>] = &[vec![1.0], vec![2.0, 3.0]];
        assert_eq!(zero(&ragged), vec![vec![0.0], vec![0.0, 0.0]]);
        let rows: &[[Vec<f64>; 2]] = &[[vec![1.0], vec![]], [vec![], vec![2.0, 3.0]]];
        assert_eq!(
            zero(&rows),
            vec![[vec![0.0], vec![]], [vec![], vec![0.0, 0.0]]]
        );
        assert_eq!(size_of::<[NoAdjoint; 64]>(), 0);
        let mut total = 1.5;
        total += NoAdjoint * 3;
        assert_eq!(total, 1.5);
    }

    #[test]
    fn finiteness_is_seen_in_every_component() {
        let ok = |param: &[[f64; 3]], bar: &Vec<[f64; 3]>| param.finite_with(bar);
        let mut param = vec![[1.0, 2.0, 3.0]; 5];
        let mut bar = vec![[0.5; 3]; 5];
        assert!(ok(&param, &bar));
        for (row, column) in [(0, 0), (2, 1), (4, 2)] {
            param[row][column] = f64::INFINITY;
            assert!(!ok(&param, &bar));
            param[row][column] = 1.0;
            bar[row][column] = f64::NAN;
            assert!(!ok(&param, &bar));
            bar[row][column] = 0.5;
        }
        let rows = vec![vec![1.0, 2.0], vec![3.0]];
        assert!(rows.finite_with(&vec![vec![0.0, 0.0], vec![0.0]]));
        assert!(!rows.finite_with(&vec![vec![0.0, 0.0], vec![f64::NAN]]));
        assert!(!2.0.finite_with(&f64::NEG_INFINITY));
        let mut stack = Stack::new();
        stack.observe(1.0);
        stack.observe_param(&[[1.0, 2.0]], &[[0.0, 0.0]]);
        assert!(stack.finite());
        stack.observe(f64::NEG_INFINITY);
        stack.observe(1.0);
        assert!(!stack.finite());
        stack.clear();
        assert!(stack.finite());
    }
}
