//! The stack of one dual sweep ([`DualStack`]): saved values are duals,
//! control flow is the `f64` stack's.

use autodiff_core::{Dual, ScalarOperation};

use super::super::{Checked, Observed, Stack};
use super::AsDual;

/// The stack of one dual sweep: saved values are duals; trip counts,
/// indices and arms are [`Stack`]'s. Its observations are stricter than
/// the `f64` stack's: an infinite operand anywhere fails the sweep, and
/// `f_hvp` reruns the tape (whose errors are the labelled ones).
///
/// ```
/// use autodiff::__adjoint::DualStack;
/// use autodiff::Dual;
///
/// let mut stack = DualStack::new();
/// stack.push(Dual::new(2.0, 1.0));
/// stack.push(3.0);
/// assert_eq!(stack.pop().value, 3.0);
/// assert_eq!(stack.pop().tangent, 1.0);
/// ```
#[derive(Debug, Default)]
pub struct DualStack {
    values: Vec<Dual>,
    control: Stack,
    forward_only: bool,
}

impl DualStack {
    /// An empty stack.
    pub const fn new() -> Self {
        Self {
            values: Vec::new(),
            control: Stack::new(),
            forward_only: false,
        }
    }

    /// An empty stack for `f_jvp`: the dual sweep stops after its forward
    /// sweep, whose value's tangent is the directional derivative, and
    /// gives back zero adjoints.
    ///
    /// ```
    /// use autodiff::__adjoint::DualStack;
    ///
    /// assert!(DualStack::new().reverses());
    /// assert!(!DualStack::forward_only().reverses());
    /// ```
    pub fn forward_only() -> Self {
        autodiff_core::forget_hidden_derivatives();
        Self {
            values: Vec::new(),
            control: Stack::new(),
            forward_only: true,
        }
    }

    /// Whether the dual sweep runs its reverse sweep (not for `f_jvp`).
    #[inline(always)]
    pub fn reverses(&self) -> bool {
        !self.forward_only
    }

    /// Saves a value the reverse sweep reads.
    #[inline(always)]
    pub fn push(&mut self, value: impl AsDual) {
        super::super::push(&mut self.values, value.as_dual());
    }

    /// Saves `values` in order, as that many [`push`](Self::push)es would.
    #[inline]
    pub fn push_slice(&mut self, values: &[Dual]) {
        self.values.extend_from_slice(values);
    }

    /// The last saved value (NaN, failing the sweep, on an empty stack).
    #[inline(always)]
    pub fn pop(&mut self) -> Dual {
        self.values.pop().unwrap_or_else(|| {
            self.control.fail();
            Dual::constant(f64::NAN)
        })
    }

    /// The last `count` saved values, oldest first (see
    /// [`Stack::pop_run`]); fewer, failing the sweep, past the bottom.
    #[inline]
    pub fn pop_run(&mut self, count: usize) -> std::vec::Drain<'_, Dual> {
        let start = match self.values.len().checked_sub(count) {
            Some(start) => start,
            None => {
                self.control.fail();
                0
            }
        };
        self.values.drain(start..)
    }

    /// See [`Stack::push_trips`].
    #[inline(always)]
    pub fn push_trips(&mut self, trips: usize) {
        self.control.push_trips(trips);
    }

    /// See [`Stack::pop_trips`].
    #[inline(always)]
    pub fn pop_trips(&mut self) -> usize {
        self.control.pop_trips()
    }

    /// See [`Stack::push_index`].
    #[inline(always)]
    pub fn push_index(&mut self, index: usize) {
        self.control.push_index(index);
    }

    /// See [`Stack::pop_index`].
    #[inline(always)]
    pub fn pop_index(&mut self) -> usize {
        self.control.pop_index()
    }

    /// See [`Stack::push_arm`].
    #[inline(always)]
    pub fn push_arm(&mut self, arm: u32) {
        self.control.push_arm(arm);
    }

    /// See [`Stack::pop_arm`].
    #[inline(always)]
    pub fn pop_arm(&mut self) -> u32 {
        self.control.pop_arm()
    }

    /// Notes a value: every part of it must be finite.
    #[inline(always)]
    pub fn observe<V: Observed>(&mut self, value: V) {
        self.control.observe(value);
    }

    /// As [`observe`](Self::observe): the dual sweep takes no infinity.
    #[inline(always)]
    pub fn observe_infinite<V: Observed>(&mut self, value: V) {
        self.control.observe(value);
    }

    /// The operand of a one-operand function: must be finite in both parts
    /// (the `f64` stack takes some infinities; this one leaves them to the
    /// tape).
    #[inline(always)]
    pub fn observe_operand_of(&mut self, operand: impl AsDual, _operation: ScalarOperation) {
        self.control.observe(operand.as_dual());
    }

    /// The base of `x.powi(n)`: must be finite in both parts.
    #[inline(always)]
    pub fn observe_power_base(
        &mut self,
        base: impl AsDual,
        _n: impl crate::__private::PowiExponent,
    ) {
        self.control.observe(base.as_dual());
    }

    /// See [`Stack::observe_param`].
    #[inline(always)]
    pub fn observe_param<P: Checked<B> + ?Sized, B>(&mut self, param: &P, bar: &B) {
        self.control.observe_param(param, bar);
    }

    /// `f_jvp`'s end of a dual sweep, after its forward sweep: `value`
    /// observed, and the adjoints left unmade ([`Unmade`]: zeros, or empty
    /// rows), which `f_jvp` discards; `None` where a value was not finite.
    ///
    /// ```
    /// use autodiff::__adjoint::DualStack;
    /// use autodiff::Dual;
    ///
    /// let mut stack = DualStack::forward_only();
    /// let done = stack.value_only::<(Dual, Vec<Dual>)>(Dual::new(2.0, 1.0));
    /// let done = done.expect("finite");
    /// assert_eq!((done.value.tangent, done.gradient.0.value), (1.0, 0.0));
    /// assert!(done.gradient.1.is_empty());
    /// assert!(stack.value_only::<Dual>(Dual::constant(f64::NAN)).is_none());
    /// ```
    #[inline]
    pub fn value_only<G: Unmade>(
        &mut self,
        value: Dual,
    ) -> Option<autodiff_core::ValueAndGradient<G, Dual>> {
        self.observe(value);
        self.finite().then(|| autodiff_core::ValueAndGradient {
            value,
            gradient: G::unmade(),
        })
    }

    /// See [`Stack::fail`].
    #[inline(always)]
    pub fn fail(&mut self) {
        self.control.fail();
    }

    /// [`fail`](Self::fail), as the NaN a failed forward sweep returns.
    #[inline(always)]
    pub fn failed(&mut self) -> Dual {
        self.fail();
        Dual::constant(f64::NAN)
    }

    /// Whether every observed value was finite; for `f_jvp`, also that
    /// no derivative that is not finite met a tangent of 0 (see
    /// [`autodiff_core::hidden_derivative`]: the forward sweep alone
    /// cannot tell a constant from a value moving at rate 0, which the
    /// tape, then answering, can). A full sweep (`f_hvp`) sees such a
    /// derivative in its reverse.
    #[inline(always)]
    pub fn finite(&self) -> bool {
        self.control.finite() && !(self.forward_only && autodiff_core::hidden_derivative())
    }
}

/// The adjoints a forward-only dual sweep gives back (see
/// [`DualStack::value_only`]): a number's and an array's zeros, a row's
/// (a slice parameter's) empty.
pub trait Unmade {
    /// Zeros, or an empty row.
    fn unmade() -> Self;
}

impl Unmade for Dual {
    #[inline(always)]
    fn unmade() -> Dual {
        Dual::constant(0.0)
    }
}

impl<T: Unmade, const N: usize> Unmade for [T; N] {
    #[inline]
    fn unmade() -> [T; N] {
        core::array::from_fn(|_| T::unmade())
    }
}

impl<T> Unmade for Vec<T> {
    #[inline(always)]
    fn unmade() -> Vec<T> {
        Vec::new()
    }
}

macro_rules! unmade_tuples {
    ($(($($t:ident),+)),+) => {$(
        impl<$($t: Unmade),+> Unmade for ($($t,)+) {
            #[inline]
            fn unmade() -> Self {
                ($($t::unmade(),)+)
            }
        }
    )+};
}

unmade_tuples!(
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, F)
);
