//! The compiled adjoint on dual numbers, for `f_hvp` (forward over
//! reverse): `f_adjoint_dual` is `f_adjoint`'s sweeps emitted again with
//! every differentiable value a [`Dual`] whose tangent is the direction, so
//! its value and gradient are the primal parts and `H·v` the tangent parts
//! of the adjoints (`f_jvp` runs its forward sweep only, and `f_hessian`
//! one sweep per column). What it calls: the stack of duals ([`DualStack`]), the
//! rules on duals ([`dual_rules`], the same `autodiff_core::rules`), and
//! the conversions between a parameter and its dual ([`lift`], [`Split`]).
//!
//! This file holds the numbers the dual sweep reads ([`AsDual`]), the
//! rules and activations it calls (`dual_rules`, `dual_activations`) and
//! the counts of compiled answers; `stack` holds the stack of duals,
//! `lifting` a parameter lifted to duals along a direction, `splitting` a
//! gradient on duals split back into its primal and tangent parts.

mod lifting;
mod splitting;
mod stack;

use autodiff_core::Dual;

use super::{finite_parts, Adjoint, Checked, Observed};

pub use lifting::{lift, Lift};
pub use splitting::Split;
pub use stack::{DualStack, Unmade};

/// A number the dual sweep reads: a `Dual`, or an `f64` (a literal, a
/// `#[constant]`, `i as f64`), which is a constant (tangent 0).
pub trait AsDual {
    /// The number as a dual.
    fn as_dual(&self) -> Dual;
}

impl AsDual for Dual {
    #[inline(always)]
    fn as_dual(&self) -> Dual {
        *self
    }
}

impl AsDual for f64 {
    #[inline(always)]
    fn as_dual(&self) -> Dual {
        Dual::constant(*self)
    }
}

impl<T: AsDual + ?Sized> AsDual for &T {
    #[inline(always)]
    fn as_dual(&self) -> Dual {
        (**self).as_dual()
    }
}

/// `value` as a dual: where the dual sweep binds, assigns or returns a
/// value the `f64` sweep would, whatever the student's expression gives.
///
/// ```
/// use autodiff::__adjoint::dual;
/// use autodiff::Dual;
///
/// assert_eq!(dual(2.0).tangent, 0.0);
/// assert_eq!(dual(Dual::new(1.0, 3.0)).tangent, 3.0);
/// ```
#[inline(always)]
pub fn dual(value: impl AsDual) -> Dual {
    value.as_dual()
}

/// `items` as a `Vec` of duals: where the dual sweep binds a tracked
/// local `Vec` (`let mut h = vec![x[0], x[1]];`, `x.to_vec()` of constant
/// data) whatever its items are, so that the duals later pushed or
/// assigned into it have its type.
///
/// ```
/// use autodiff::__adjoint::duals;
/// use autodiff::Dual;
///
/// assert_eq!(duals(vec![2.0])[0].tangent, 0.0);
/// assert_eq!(duals(vec![Dual::new(1.0, 3.0)])[0].tangent, 3.0);
/// ```
#[inline]
pub fn duals<T: AsDual>(items: Vec<T>) -> Vec<Dual> {
    items.iter().map(AsDual::as_dual).collect()
}

impl Observed for Dual {
    /// Both parts: a second-order value that is not finite makes the dual
    /// sweep give up, and `f_hvp` reruns the tape, which names it.
    #[inline(always)]
    fn all_finite(&self) -> bool {
        self.value.is_finite() & self.tangent.is_finite()
    }

    #[inline]
    fn all_finite_slice(items: &[Dual]) -> bool {
        finite_parts(items, |item| [item.value, item.tangent])
    }
}

impl Adjoint for Dual {
    type Bar = Dual;
    const UNIFORM: bool = true;
    #[inline(always)]
    fn zero_bar(&self) -> Dual {
        Dual::constant(0.0)
    }
}

impl super::Bar for Dual {
    #[inline(always)]
    fn add_from(&mut self, other: &Dual) {
        *self += *other;
    }
    #[inline(always)]
    fn zeroed(&self) -> Dual {
        Dual::constant(0.0)
    }
}

impl Checked<Dual> for Dual {
    #[inline(always)]
    fn finite_with(&self, bar: &Dual) -> bool {
        self.all_finite() & bar.all_finite()
    }
}

pub mod dual_activations {
    //! `relu` and `sigmoid` as the dual sweep's body calls them: the
    //! facade's functions in path form (`relu(x)`), imported over the
    //! prelude's inside `f_adjoint_dual`, on `f64` and on `Dual` alike.

    use autodiff_core::Dual;

    /// The numbers the activations take in a dual sweep.
    pub trait Activation: Copy {
        /// `max(self, 0)`.
        fn relu_of(self) -> Self;
        /// `1 / (1 + e^−self)`.
        fn sigmoid_of(self) -> Self;
    }

    impl Activation for f64 {
        #[inline]
        fn relu_of(self) -> f64 {
            autodiff_core::relu(self)
        }
        #[inline]
        fn sigmoid_of(self) -> f64 {
            autodiff_core::sigmoid(self)
        }
    }

    impl Activation for Dual {
        #[inline]
        fn relu_of(self) -> Dual {
            self.relu()
        }
        #[inline]
        fn sigmoid_of(self) -> Dual {
            self.sigmoid()
        }
    }

    /// [`crate::relu`] on a plain or a dual number.
    #[inline]
    pub fn relu<R: Activation>(x: R) -> R {
        x.relu_of()
    }

    /// [`crate::sigmoid`] on a plain or a dual number.
    #[inline]
    pub fn sigmoid<R: Activation>(x: R) -> R {
        x.sigmoid_of()
    }
}

pub mod dual_rules {
    //! The derivative rules as the dual sweep calls them: the engine's
    //! (`autodiff_core::rules`), generic over the number type, run on
    //! [`Dual`]s; an `f64` operand is a constant.
    //!
    //! ```
    //! use autodiff::__adjoint::dual_rules;
    //! use autodiff::Dual;
    //!
    //! // d/dx tanh at x = 0.5 + ε: its tangent is the second derivative.
    //! let slope = dual_rules::tanh_partial(Dual::variable(0.5));
    //! let t = 0.5_f64.tanh();
    //! assert!((slope.tangent - (-2.0 * t * (1.0 - t * t))).abs() < 1e-15);
    //! ```

    use super::AsDual;
    use autodiff_core::Dual;

    /// Expands the table into one function per rule.
    macro_rules! dual_rules {
        ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
            $(dual_rules!(@rule $name $rule $(($function))?);)*
        };
        (@rule $name:literal none) => {};
        (@rule $name:literal zero) => {};
        (@rule $name:literal operand($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` from its operand.")]
            #[inline(always)]
            pub fn $function(x: impl AsDual) -> Dual {
                autodiff_core::rules::$function(x.as_dual())
            }
        };
        (@rule $name:literal result($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` from its result.")]
            #[inline(always)]
            pub fn $function(y: impl AsDual) -> Dual {
                autodiff_core::rules::$function(y.as_dual())
            }
        };
        (@rule $name:literal operands($function:ident)) => {
            #[doc = concat!("The partials of `", $name, "` by each operand.")]
            #[inline(always)]
            pub fn $function(a: impl AsDual, b: impl AsDual) -> (Dual, Dual) {
                autodiff_core::rules::$function(a.as_dual(), b.as_dual())
            }
        };
        (@rule $name:literal power($function:ident)) => {
            #[doc = concat!("The derivative of `", $name, "` by its base.")]
            #[inline(always)]
            pub fn $function(x: impl AsDual, n: impl crate::__private::PowiExponent) -> Dual {
                autodiff_core::rules::$function(x.as_dual(), n.exponent())
            }
        };
    }

    autodiff_ops_table::operations!(dual_rules);

    /// The partials of `x.clamp(lo, hi)` by each operand (`max` and
    /// `min`'s rules, whose tangents are 0: a kink's second derivative).
    #[inline(always)]
    pub fn clamp_partials(x: impl AsDual, lo: impl AsDual, hi: impl AsDual) -> (Dual, Dual, Dual) {
        autodiff_core::rules::clamp_partials(x.as_dual(), lo.as_dual(), hi.as_dual())
    }
}

/// The bits of `x − x`: 0 (`+0.0`) for every finite `x`, a NaN's (never 0)
/// for an infinity or a NaN. An or of these over a pass says whether all
/// were finite: a subtraction and an or per number, which vectorise on
/// any x86-64 (`is_finite`'s test of the exponent needs 64-bit integer
/// compares, which SSE2 has not: it took a 64→64 MLP's `f_hvp` a fifth
/// of its time to split the gradient), with no chain of additions (a
/// running sum of `v · 0` would carry one).
#[inline(always)]
// `x − x` on purpose: 0 or NaN, as above.
#[allow(clippy::eq_op)]
fn not_finite_bits(x: f64) -> u64 {
    (x - x).to_bits()
}

thread_local! {
    static COMPILED_HVPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static COMPILED_JVPS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    static COMPILED_HESSIANS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// Notes an `f_hvp` answered by its compiled dual sweep: what
/// [`compiled_hvps`] counts.
#[inline(never)]
pub fn hvp_compiled() {
    COMPILED_HVPS.with(|count| count.set(count.get() + 1));
}

/// How many `f_hvp` calls on this thread were answered by the compiled
/// adjoint on dual numbers (not the tape): a test that claims an `f_hvp`
/// runs compiled asserts this grew by one.
///
/// ```
/// use autodiff::__adjoint::{compiled_hvps, hvp_compiled};
///
/// let before = compiled_hvps();
/// hvp_compiled();
/// assert_eq!(compiled_hvps(), before + 1);
/// ```
pub fn compiled_hvps() -> u64 {
    COMPILED_HVPS.with(std::cell::Cell::get)
}

/// Notes an `f_jvp` answered by the forward sweep of the compiled adjoint
/// on dual numbers: what [`compiled_jvps`] counts.
#[inline(never)]
pub fn jvp_compiled() {
    COMPILED_JVPS.with(|count| count.set(count.get() + 1));
}

/// How many `f_jvp` calls on this thread were answered by the compiled
/// adjoint's forward sweep on dual numbers (not the tape).
///
/// ```
/// use autodiff::__adjoint::{compiled_jvps, jvp_compiled};
///
/// let before = compiled_jvps();
/// jvp_compiled();
/// assert_eq!(compiled_jvps(), before + 1);
/// ```
pub fn compiled_jvps() -> u64 {
    COMPILED_JVPS.with(std::cell::Cell::get)
}

/// Notes an `f_hessian` answered by the compiled adjoint on dual numbers
/// (one sweep per column): what [`compiled_hessians`] counts.
#[inline(never)]
pub fn hessian_compiled() {
    COMPILED_HESSIANS.with(|count| count.set(count.get() + 1));
}

/// How many `f_hessian` calls on this thread were answered by the
/// compiled adjoint on dual numbers (not the tape).
///
/// ```
/// use autodiff::__adjoint::{compiled_hessians, hessian_compiled};
///
/// let before = compiled_hessians();
/// hessian_compiled();
/// assert_eq!(compiled_hessians(), before + 1);
/// ```
pub fn compiled_hessians() -> u64 {
    COMPILED_HESSIANS.with(std::cell::Cell::get)
}
