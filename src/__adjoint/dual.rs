//! The compiled adjoint on dual numbers, for `f_hvp` (forward over
//! reverse): `f_adjoint_dual` is `f_adjoint`'s sweeps emitted again with
//! every differentiable value a [`Dual`] whose tangent is the direction, so
//! its value and gradient are the primal parts and `H·v` the tangent parts
//! of the adjoints (`f_jvp` runs its forward sweep only, and `f_hessian`
//! one sweep per column). What it calls: the stack of duals ([`DualStack`]), the
//! rules on duals ([`dual_rules`], the same `autodiff_core::rules`), and
//! the conversions between a parameter and its dual ([`lift`], [`Split`]).

use autodiff_core::{Dual, ScalarOperation};

use super::{finite_parts, Adjoint, Checked, Observed, Stack};

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
        super::push(&mut self.values, value.as_dual());
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
}

/// A differentiable parameter's shape on dual numbers: `f64` becomes
/// `Dual`, an array or a slice of them an array or a `Vec` of duals.
pub trait Lift {
    /// The same shape of duals.
    type Lifted;
    /// Each component with its tangent, the matching component of `along`;
    /// `None` where `along` is not of this shape (a slice of another
    /// length) or a component of either is not finite. The dual sweep
    /// leaves its parameters unchecked for this.
    fn lift_along(&self, along: &Self) -> Option<Self::Lifted>;
}

/// An item of a liftable slice, `f64` or an array of items, seen as its
/// components in order, so that lifting a slice of rows, and splitting the
/// gradient back, are one pass over flat memory (lifting 64 rows of 64
/// through `std::array::from_fn` a row took 2.5× the time of this).
pub trait Flat: Copy {
    /// The same shape of duals.
    type Duals: Copy;
    /// That shape with every component `0 + 0ε`.
    const BLANK: Self::Duals;
    /// The components of `items`, in order.
    fn parts(items: &[Self]) -> &[f64];
    /// The components of `items` on duals, in order, to write.
    fn dual_parts_mut(items: &mut [Self::Duals]) -> &mut [Dual];
    /// `values` with their tangents `along` (the same length), item by
    /// item into a `Vec` made at its length (an item is made on the stack
    /// and moved in: a `Vec` of blanks written over took one more pass
    /// over memory); `None` where a component is not finite.
    fn lift_items(values: &[Self], along: &[Self]) -> Option<Vec<Self::Duals>>;
}

impl Flat for f64 {
    type Duals = Dual;
    const BLANK: Dual = Dual::constant(0.0);
    #[inline(always)]
    fn parts(items: &[f64]) -> &[f64] {
        items
    }
    #[inline(always)]
    fn dual_parts_mut(items: &mut [Dual]) -> &mut [Dual] {
        items
    }
    #[inline]
    fn lift_items(values: &[f64], along: &[f64]) -> Option<Vec<Dual>> {
        // Four at a time, as `[f64; 4]` items are.
        let (quads, along_quads) = (values.chunks_exact(4), along.chunks_exact(4));
        let (rest, along_rest) = (quads.remainder(), along_quads.remainder());
        let mut out = Vec::with_capacity(values.len());
        let mut finite = true;
        let mut lifted = [Dual::constant(0.0); 4];
        for (quad, along) in quads.zip(along_quads) {
            finite &= lift_parts(quad, along, &mut lifted);
            out.extend_from_slice(&lifted);
        }
        finite &= lift_parts(rest, along_rest, &mut lifted[..rest.len()]);
        out.extend_from_slice(&lifted[..rest.len()]);
        finite.then_some(out)
    }
}

impl<T: Flat, const N: usize> Flat for [T; N] {
    type Duals = [T::Duals; N];
    const BLANK: Self::Duals = [T::BLANK; N];
    #[inline(always)]
    fn parts(items: &[Self]) -> &[f64] {
        T::parts(items.as_flattened())
    }
    #[inline(always)]
    fn dual_parts_mut(items: &mut [Self::Duals]) -> &mut [Dual] {
        T::dual_parts_mut(items.as_flattened_mut())
    }
    #[inline]
    fn lift_items(values: &[Self], along: &[Self]) -> Option<Vec<Self::Duals>> {
        let mut out = Vec::with_capacity(values.len());
        let mut finite = true;
        for (row, along) in values.iter().zip(along) {
            // Blank, then written while its lines are still in cache.
            out.push(Self::BLANK);
            if let Some(last) = out.last_mut() {
                finite &= lift_parts(T::parts(row), T::parts(along), T::dual_parts_mut(last));
            }
        }
        finite.then_some(out)
    }
}

/// `out`'s components, each a value of `values` with its tangent from
/// `along` (the three the same length); whether every one is finite, in
/// the same pass ([`not_finite_bits`]).
#[inline]
fn lift_parts(values: &[f64], along: &[f64], out: &mut [Dual]) -> bool {
    let mut bad = 0;
    for ((out, &value), &tangent) in out.iter_mut().zip(values).zip(along) {
        *out = Dual::new(value, tangent);
        bad |= not_finite_bits(value) | not_finite_bits(tangent);
    }
    bad == 0
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

impl Lift for f64 {
    type Lifted = Dual;
    #[inline(always)]
    fn lift_along(&self, along: &f64) -> Option<Dual> {
        let lifted = Dual::new(*self, *along);
        lifted.all_finite().then_some(lifted)
    }
}

impl<T: Flat, const N: usize> Lift for [T; N] {
    type Lifted = [T::Duals; N];
    #[inline]
    fn lift_along(&self, along: &Self) -> Option<Self::Lifted> {
        let mut out = [T::BLANK; N];
        lift_parts(T::parts(self), T::parts(along), T::dual_parts_mut(&mut out)).then_some(out)
    }
}

impl<T: Flat> Lift for [T] {
    type Lifted = Vec<T::Duals>;
    #[inline]
    fn lift_along(&self, along: &Self) -> Option<Self::Lifted> {
        if self.len() != along.len() {
            return None;
        }
        T::lift_items(self, along)
    }
}

/// Rows of rows (`&[Vec<f64>]`, a student's matrix): each row lifted as a
/// slice is, `None` where a row of `along` has another length.
impl<T: Flat> Lift for [Vec<T>] {
    type Lifted = Vec<Vec<T::Duals>>;
    #[inline]
    fn lift_along(&self, along: &Self) -> Option<Self::Lifted> {
        if self.len() != along.len() {
            return None;
        }
        self.iter()
            .zip(along)
            .map(|(row, along)| row.as_slice().lift_along(along))
            .collect()
    }
}

/// `parameter` on dual numbers, its tangent `along`; `None` where `along`
/// is not of the parameter's shape or a component of either is not finite
/// (the second-order items then run the direction's check, whose error
/// names the parameter, and the tape, whose error names a value).
///
/// ```
/// use autodiff::__adjoint::lift;
///
/// let w: &[[f64; 2]] = &[[1.0, 2.0]];
/// let lifted = lift(w, &[[0.5, 0.0]][..]).unwrap();
/// assert_eq!((lifted[0][0].value, lifted[0][0].tangent), (1.0, 0.5));
/// assert!(lift(w, &[][..]).is_none());
/// assert!(lift(&1.0, &f64::NAN).is_none());
/// assert!(lift(w, &[[0.5, f64::INFINITY]][..]).is_none());
/// assert!(lift(&[f64::NAN; 5], &[0.0; 5]).is_none());
/// ```
#[inline]
pub fn lift<P: Lift + ?Sized>(parameter: &P, along: &P) -> Option<P::Lifted> {
    parameter.lift_along(along)
}

/// A gradient on dual numbers taken apart: the primal parts (the
/// gradient) and the tangent parts (`H·v`), each in the `f64` shape, in
/// one pass that also sees whether every part is finite (the dual sweep
/// leaves its gradient unchecked for this).
///
/// ```
/// use autodiff::__adjoint::Split;
/// use autodiff::Dual;
///
/// // Five numbers: a run of four and one left over.
/// let g: Vec<Dual> = (0..5).map(|i| Dual::new(i as f64, -(i as f64))).collect();
/// let (primal, tangent) = g.split().unwrap();
/// assert_eq!(primal, [0.0, 1.0, 2.0, 3.0, 4.0]);
/// assert_eq!(tangent, [0.0, -1.0, -2.0, -3.0, -4.0]);
/// let rows = vec![[Dual::new(1.0, 2.0), Dual::new(3.0, 4.0)]; 2];
/// assert_eq!(rows.split(), Some((vec![[1.0, 3.0]; 2], vec![[2.0, 4.0]; 2])));
/// // A part that is not finite, in the last item or in a row.
/// let mut bad = g.clone();
/// bad[4] = Dual::new(4.0, f64::INFINITY);
/// assert!(bad.split().is_none());
/// assert!(vec![[Dual::new(f64::NAN, 0.0)]].split().is_none());
/// ```
pub trait Split {
    /// The same shape of `f64`s.
    type Plain;
    /// `(primal parts, tangent parts)`, or `None` where a part is not
    /// finite.
    fn split(&self) -> Option<(Self::Plain, Self::Plain)>;
}

impl Split for Dual {
    type Plain = f64;
    #[inline(always)]
    fn split(&self) -> Option<(f64, f64)> {
        self.all_finite().then_some((self.value, self.tangent))
    }
}

/// The primal and tangent parts of a slice of gradient items.
pub type SplitRows<T> = (Vec<T>, Vec<T>);

/// An item of a gradient on duals, `Dual` or an array of items, seen as its
/// components in order (what [`Flat`] is to a parameter's items), so that
/// [`Split`] takes a slice of rows apart in one pass.
pub trait DualFlat: Copy {
    /// The same shape of `f64`s.
    type Plain: Copy;
    /// That shape with every component 0.
    const PLAIN_BLANK: Self::Plain;
    /// The components of `items`, in order.
    fn parts(items: &[Self]) -> &[Dual];
    /// The components of `items` on `f64`s, in order, to write.
    fn plain_parts_mut(items: &mut [Self::Plain]) -> &mut [f64];
    /// `(primal parts, tangent parts)` of `items`, item by item into
    /// `Vec`s made at their length (as [`Flat::lift_items`] makes its
    /// items: `Vec`s of blanks written over took one more pass over
    /// memory, a sixth of a 64→64 MLP's `f_hvp`); `None` where a part is
    /// not finite.
    fn split_items(items: &[Self]) -> Option<SplitRows<Self::Plain>>;
}

impl DualFlat for Dual {
    type Plain = f64;
    const PLAIN_BLANK: f64 = 0.0;
    #[inline(always)]
    fn parts(items: &[Dual]) -> &[Dual] {
        items
    }
    #[inline(always)]
    fn plain_parts_mut(items: &mut [f64]) -> &mut [f64] {
        items
    }
    #[inline]
    fn split_items(items: &[Dual]) -> Option<(Vec<f64>, Vec<f64>)> {
        // Four at a time, as `[Dual; 4]` items are.
        let quads = items.chunks_exact(4);
        let rest = quads.remainder();
        let mut primals = Vec::with_capacity(items.len());
        let mut tangents = Vec::with_capacity(items.len());
        let mut finite = true;
        let (mut primal, mut tangent) = ([0.0; 4], [0.0; 4]);
        for quad in quads {
            finite &= split_parts(quad, &mut primal, &mut tangent);
            primals.extend_from_slice(&primal);
            tangents.extend_from_slice(&tangent);
        }
        let n = rest.len();
        finite &= split_parts(rest, &mut primal[..n], &mut tangent[..n]);
        primals.extend_from_slice(&primal[..n]);
        tangents.extend_from_slice(&tangent[..n]);
        finite.then_some((primals, tangents))
    }
}

impl<T: DualFlat, const N: usize> DualFlat for [T; N] {
    type Plain = [T::Plain; N];
    const PLAIN_BLANK: Self::Plain = [T::PLAIN_BLANK; N];
    #[inline(always)]
    fn parts(items: &[Self]) -> &[Dual] {
        T::parts(items.as_flattened())
    }
    #[inline(always)]
    fn plain_parts_mut(items: &mut [Self::Plain]) -> &mut [f64] {
        T::plain_parts_mut(items.as_flattened_mut())
    }
    #[inline]
    fn split_items(items: &[Self]) -> Option<SplitRows<Self::Plain>> {
        let mut primals = Vec::with_capacity(items.len());
        let mut tangents = Vec::with_capacity(items.len());
        let mut finite = true;
        for row in items {
            // Blanks, then written while their lines are still in cache.
            primals.push(Self::PLAIN_BLANK);
            tangents.push(Self::PLAIN_BLANK);
            if let (Some(primal), Some(tangent)) = (primals.last_mut(), tangents.last_mut()) {
                finite &= split_parts(
                    T::parts(row),
                    T::plain_parts_mut(primal),
                    T::plain_parts_mut(tangent),
                );
            }
        }
        finite.then_some((primals, tangents))
    }
}

/// Each component of `primals` and `tangents` the matching part of
/// `duals` (the three the same length); whether every part is finite, in
/// the same pass (as [`lift_parts`] sees it).
#[inline]
fn split_parts(duals: &[Dual], primals: &mut [f64], tangents: &mut [f64]) -> bool {
    let mut bad = 0;
    for ((dual, primal), tangent) in duals.iter().zip(primals).zip(tangents) {
        *primal = dual.value;
        *tangent = dual.tangent;
        bad |= not_finite_bits(dual.value) | not_finite_bits(dual.tangent);
    }
    bad == 0
}

impl<T: DualFlat, const N: usize> Split for [T; N] {
    type Plain = [T::Plain; N];
    #[inline]
    fn split(&self) -> Option<(Self::Plain, Self::Plain)> {
        let (mut primals, mut tangents) = ([T::PLAIN_BLANK; N], [T::PLAIN_BLANK; N]);
        let finite = split_parts(
            T::parts(self),
            T::plain_parts_mut(&mut primals),
            T::plain_parts_mut(&mut tangents),
        );
        finite.then_some((primals, tangents))
    }
}

impl<T: DualFlat> Split for Vec<T> {
    type Plain = Vec<T::Plain>;
    #[inline]
    fn split(&self) -> Option<(Self::Plain, Self::Plain)> {
        T::split_items(self)
    }
}

/// Rows of rows, each row split as a `Vec` of items is.
impl<T: DualFlat> Split for Vec<Vec<T>> {
    type Plain = Vec<Vec<T::Plain>>;
    #[inline]
    fn split(&self) -> Option<(Self::Plain, Self::Plain)> {
        let mut primals = Vec::with_capacity(self.len());
        let mut tangents = Vec::with_capacity(self.len());
        for row in self {
            let (primal, tangent) = T::split_items(row)?;
            primals.push(primal);
            tangents.push(tangent);
        }
        Some((primals, tangents))
    }
}

macro_rules! split_tuple {
    ($(($($t:ident $k:tt),+))*) => {$(
        impl<$($t: Split),+> Split for ($($t,)+) {
            type Plain = ($($t::Plain,)+);
            #[inline]
            #[allow(non_snake_case)]
            fn split(&self) -> Option<(Self::Plain, Self::Plain)> {
                $(let $t = self.$k.split()?;)+
                Some((($($t.0,)+), ($($t.1,)+)))
            }
        }
    )*};
}
split_tuple!((A 0, B 1) (A 0, B 1, C 2) (A 0, B 1, C 2, D 3) (A 0, B 1, C 2, D 3, E 4) (A 0, B 1, C 2, D 3, E 4, F 5));

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
