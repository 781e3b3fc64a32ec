//! The `_grad` and `_check` twins' side: a differentiable parameter's
//! shape ([`Parameter`]: `f64`, arrays of it, `&[f64]`, `Vec<f64>`) and the
//! functions that record it as variables, read its gradient back, list its
//! components and rebuild it.

use autodiff_core::{Label, Scalar, Tape};

use super::Result;
use crate::__adjoint::dual_models;

/// A differentiable parameter's shape: `f64`, arrays of it (nested too),
/// `&[f64]` and `Vec<f64>`, and `#[derive(Parameters)]` structs.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a model: derive `Parameters` for it, or mark the parameter `#[constant]`",
    label = "not a model",
    note = "models are `f64`, arrays and `Vec`s of them, and structs with `#[derive(Parameters)]`"
)]
pub trait Parameter {
    /// The parameter as variables on a tape.
    type Variables<'t>;
    /// The gradient, shaped like the parameter (slices give a `Vec`); the
    /// compiled adjoint's calls push and pop it on their stack.
    type Gradient: crate::__adjoint::Spread;
    /// The parameter as an owned value the plain twin can be called with
    /// (or borrowed from, for slices).
    type Owned;
    /// Takes this parameter's variables, in the order of `components`,
    /// from the front of `leaves` (recorded by [`variables`]). A model's
    /// twin keeps `self` for its methods (see `OnTape`).
    fn shape<'t>(&'t self, leaves: &mut &[Scalar<'t>]) -> Self::Variables<'t>;
    /// Reads the gradient of every component.
    fn gradient(variables: &Self::Variables<'_>) -> Self::Gradient;
    /// Appends every component, in row-major order.
    fn components(&self, out: &mut Vec<f64>);
    /// Appends every gradient component, in the same order.
    fn gradient_components(gradient: &Self::Gradient, out: &mut Vec<f64>);
    /// Rebuilds a value of this shape from the front of `from`.
    fn rebuild(&self, from: &mut &[f64]) -> Self::Owned;
    /// Builds a gradient of this parameter's shape from the front of
    /// `from` (what `f_hvp` returns, shaped as `f_grad`'s gradient is).
    fn gradient_from(&self, from: &mut &[f64]) -> Self::Gradient;
    /// Whether `gradient` (a direction `f_jvp` or `f_hvp` was given) has
    /// this parameter's shape: the same length of every `Vec`, not only
    /// the same count of components (a transposed matrix has that).
    fn fits(&self, gradient: &Self::Gradient) -> bool;
    /// Appends the components of `direction`, a model's direction (the
    /// tangent `f_jvp` or `f_hvp` takes for this parameter, named `name`,
    /// itself a model) to `out`; one of another shape is an error naming
    /// the parameter, and appends nothing. A method taking `Self`, as
    /// [`record`](Self::record) is, so that a struct that is not a model
    /// stays one error.
    #[doc(hidden)]
    fn model_direction(
        &self,
        direction: &Self,
        name: &'static str,
        out: &mut Vec<f64>,
    ) -> Result<()>
    where
        Self: Sized + Parameter<Gradient = Self>,
    {
        let mut own = Vec::new();
        self.components(&mut own);
        let start = out.len();
        direction.components(out);
        super::second_order::same_count(own.len(), out, start, name)?;
        super::second_order::same_shape(self.fits(direction), own.len(), out, start, name)
    }
    /// [`variables`] as a method, so that generated code can name a model's
    /// type once, as `<Model as Parameter>::record(..)`: a type that is not
    /// a model is then one error on that type, not one per generic call.
    #[inline]
    fn record<'t>(&'t self, tape: &'t Tape, at: Label) -> Result<Self::Variables<'t>>
    where
        Self: Sized,
    {
        try_variables(tape, self, at)
    }
    /// The compiled adjoint's zero for a model parameter: a copy with
    /// every component zero and constants kept, into which its reverse
    /// sweep accumulates (`model_bar.w[j] += ..`). Named, like
    /// [`record`](Self::record), as `<Model as Parameter>::zero_owned(..)`,
    /// so a struct that is not a model stays this trait's one error.
    #[doc(hidden)]
    #[inline]
    fn zero_owned(&self) -> Self::Owned {
        let mut zeros = Vec::new();
        self.components(&mut zeros);
        zeros.fill(0.0);
        self.rebuild(&mut zeros.as_slice())
    }
    /// A caller's adjoint `bar` lent to a callee's reverse sweep, which
    /// adds into it and gives it back (`__adjoint::Lent`): its `Vec`s
    /// moved out, not copied, its numbers and constants copied. Named, like
    /// [`record`](Self::record), through this trait, so a struct that is
    /// not a model stays this trait's one error.
    #[doc(hidden)]
    fn lend_bar(bar: &mut Self::Gradient) -> Self::Gradient;
    /// Whether every component of `self` and of a caller's adjoint `bar`
    /// lent to a callee's sweep ([`lend_bar`](Self::lend_bar)) is finite:
    /// the check the tape makes, without the gradient `carry_gradient`
    /// would build.
    #[doc(hidden)]
    #[inline]
    fn finite_with_bar(&self, bar: &Self::Gradient) -> bool {
        let (mut values, mut bars) = (Vec::new(), Vec::new());
        self.components(&mut values);
        Self::gradient_components(bar, &mut bars);
        values.len() == bars.len() && crate::__adjoint::finite_pairs(&values, &bars)
    }
    /// The gradient from the compiled adjoint `bar` of [`zero_owned`]'s
    /// shape: its components, with the constants of `self` (what the
    /// sweep wrote into a constant's adjoint is dropped); and whether every
    /// component of `self` and of `bar` is finite, the check the tape
    /// makes.
    ///
    /// [`zero_owned`]: Self::zero_owned
    #[doc(hidden)]
    #[inline]
    fn carry_gradient(&self, bar: Self::Gradient) -> (Self::Owned, bool) {
        let (mut values, mut bars) = (Vec::new(), Vec::new());
        self.components(&mut values);
        Self::gradient_components(&bar, &mut bars);
        if values.len() != bars.len() {
            // Not a shape `zero_owned` gave: the compiled path fails and
            // the tape answers.
            return (self.zero_owned(), false);
        }
        let finite = crate::__adjoint::finite_pairs(&values, &bars);
        (self.rebuild(&mut bars.as_slice()), finite)
    }
    /// The parameter on dual numbers, what `f_hvp`'s compiled sweep reads
    /// (a model's twin, `MlpOnDuals`; see `src/__adjoint/dual_models.rs`).
    #[doc(hidden)]
    type Duals;
    /// Each component with its tangent, the matching component of
    /// `along`; `None` where `along` has another shape or a component of
    /// either is not finite.
    #[doc(hidden)]
    fn lift_duals(&self, along: &Self::Gradient) -> Option<Self::Duals>;
    /// Each component with tangent 0 (a model's `#[constant]` numbers on
    /// duals).
    #[doc(hidden)]
    fn constant_duals(&self) -> Self::Duals;
    /// Zeros shaped like `duals`, an adjoint's start on duals; a model's
    /// constants that are not numbers carried.
    #[doc(hidden)]
    fn zero_duals(duals: &Self::Duals) -> Self::Duals;
    /// The primal parts of `duals` into `gradient`, the tangent parts into
    /// `tangent` (both of the gradient's shape; a model's constants left
    /// as they are); whether every part was finite and the shapes agreed.
    #[doc(hidden)]
    fn split_duals(
        &self,
        duals: &Self::Duals,
        gradient: &mut Self::Gradient,
        tangent: &mut Self::Gradient,
    ) -> bool;
    /// Pushes every trained number of `duals`, in order (a callee's dual
    /// sweep's gradient, for its caller's reverse).
    #[doc(hidden)]
    fn push_duals(duals: &Self::Duals, stack: &mut crate::__adjoint::DualStack);
    /// Pops what [`push_duals`](Self::push_duals) pushed (the last first)
    /// and adds `scale ×` each into `duals`.
    #[doc(hidden)]
    fn pop_duals(
        duals: &mut Self::Duals,
        stack: &mut crate::__adjoint::DualStack,
        scale: autodiff_core::Dual,
    );
    /// A model's gradient and its tangent (`H·v`) from the twin adjoint
    /// `bar` its dual sweep returns, each a model with the constants of
    /// `self`; `None` where a part is not finite. Named, like
    /// [`record`](Self::record), through this trait, so a struct that is
    /// not a model stays this trait's one error.
    #[doc(hidden)]
    #[inline]
    fn split_model(&self, bar: &Self::Duals) -> Option<(Self, Self)>
    where
        Self: Sized + Parameter<Gradient = Self, Owned = Self>,
    {
        let (mut gradient, mut tangent) = (self.zero_owned(), self.zero_owned());
        self.split_duals(bar, &mut gradient, &mut tangent)
            .then_some((gradient, tangent))
    }
    /// Pushes every component of a gradient for a caller's reverse sweep
    /// (the forward half of the compiled adjoint's calling convention).
    #[doc(hidden)]
    #[inline]
    fn push_gradient(gradient: &Self::Gradient, stack: &mut crate::__adjoint::Stack) {
        crate::__adjoint::Spread::push_all(gradient, stack);
    }
    /// Pops what [`push_gradient`](Self::push_gradient) pushed and adds
    /// `scale ×` it to a caller's adjoint `bar` (the reverse half).
    #[doc(hidden)]
    #[inline]
    fn pop_gradient(bar: &mut Self::Gradient, stack: &mut crate::__adjoint::Stack, scale: f64) {
        crate::__adjoint::Spread::pop_scaled(bar, stack, scale);
    }
}

impl Parameter for f64 {
    type Variables<'t> = Scalar<'t>;
    type Gradient = f64;
    type Owned = f64;
    #[inline]
    fn shape<'t>(&'t self, leaves: &mut &[Scalar<'t>]) -> Scalar<'t> {
        take_component(leaves)
    }
    #[inline]
    fn gradient(variable: &Scalar<'_>) -> f64 {
        variable.gradient().unwrap_or(0.0)
    }
    #[inline]
    fn components(&self, out: &mut Vec<f64>) {
        out.push(*self);
    }
    #[inline]
    fn gradient_components(gradient: &f64, out: &mut Vec<f64>) {
        out.push(*gradient);
    }
    #[inline]
    fn rebuild(&self, from: &mut &[f64]) -> f64 {
        take_component(from)
    }
    #[inline]
    fn gradient_from(&self, from: &mut &[f64]) -> f64 {
        take_component(from)
    }
    #[inline]
    fn fits(&self, _: &f64) -> bool {
        true
    }
    #[inline(always)]
    fn zero_owned(&self) -> f64 {
        0.0
    }
    #[inline(always)]
    fn lend_bar(bar: &mut f64) -> f64 {
        *bar
    }
    #[inline(always)]
    fn carry_gradient(&self, bar: f64) -> (f64, bool) {
        (bar, self.is_finite() & bar.is_finite())
    }
    type Duals = autodiff_core::Dual;
    #[inline]
    fn lift_duals(&self, along: &f64) -> Option<autodiff_core::Dual> {
        dual_models::lift_number(*self, *along)
    }
    #[inline]
    fn constant_duals(&self) -> autodiff_core::Dual {
        autodiff_core::Dual::constant(*self)
    }
    #[inline]
    fn zero_duals(_: &autodiff_core::Dual) -> autodiff_core::Dual {
        autodiff_core::Dual::constant(0.0)
    }
    #[inline]
    fn split_duals(
        &self,
        duals: &autodiff_core::Dual,
        gradient: &mut f64,
        tangent: &mut f64,
    ) -> bool {
        dual_models::split_number(duals, gradient, tangent)
    }
    #[inline]
    fn push_duals(duals: &autodiff_core::Dual, stack: &mut crate::__adjoint::DualStack) {
        stack.push(*duals);
    }
    #[inline]
    fn pop_duals(
        duals: &mut autodiff_core::Dual,
        stack: &mut crate::__adjoint::DualStack,
        scale: autodiff_core::Dual,
    ) {
        *duals += scale * stack.pop();
    }
}

/// The front of `from`, which the caller made with one item per `f64`
/// component (`components` for `rebuild`, `labeled_variables` for `shape`),
/// so it is never empty here.
fn take_component<T: Copy>(from: &mut &[T]) -> T {
    match from.split_first() {
        Some((&item, rest)) => {
            *from = rest;
            item
        }
        None => unreachable!("one item per f64 component"),
    }
}

/// The dual-number methods that split, push and pop a parameter's items
/// one `T` at a time (`dual_models`), whether its duals are an array
/// (`[T; N]`) or a `Vec` (`dual_items!`).
macro_rules! dual_item_moves {
    () => {
        fn split_duals(
            &self,
            duals: &Self::Duals,
            gradient: &mut Self::Gradient,
            tangent: &mut Self::Gradient,
        ) -> bool {
            dual_models::split_items(&self[..], duals, gradient, tangent)
        }
        fn push_duals(duals: &Self::Duals, stack: &mut crate::__adjoint::DualStack) {
            dual_models::push_items::<T>(duals, stack);
        }
        fn pop_duals(
            duals: &mut Self::Duals,
            stack: &mut crate::__adjoint::DualStack,
            scale: autodiff_core::Dual,
        ) {
            dual_models::pop_items::<T>(duals, stack, scale);
        }
    };
}

impl<T: Parameter, const N: usize> Parameter for [T; N] {
    type Variables<'t> = [T::Variables<'t>; N];
    type Gradient = [T::Gradient; N];
    type Owned = [T::Owned; N];
    #[inline]
    fn shape<'t>(&'t self, leaves: &mut &[Scalar<'t>]) -> Self::Variables<'t> {
        std::array::from_fn(|i| self[i].shape(leaves))
    }
    #[inline]
    fn gradient(variables: &Self::Variables<'_>) -> Self::Gradient {
        std::array::from_fn(|i| T::gradient(&variables[i]))
    }
    #[inline]
    fn components(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|item| item.components(out));
    }
    #[inline]
    fn gradient_components(gradient: &Self::Gradient, out: &mut Vec<f64>) {
        gradient
            .iter()
            .for_each(|item| T::gradient_components(item, out));
    }
    #[inline]
    fn rebuild(&self, from: &mut &[f64]) -> Self::Owned {
        std::array::from_fn(|i| self[i].rebuild(from))
    }
    #[inline]
    fn gradient_from(&self, from: &mut &[f64]) -> Self::Gradient {
        std::array::from_fn(|i| self[i].gradient_from(from))
    }
    fn fits(&self, gradient: &Self::Gradient) -> bool {
        self.iter().zip(gradient).all(|(item, g)| item.fits(g))
    }
    #[inline]
    fn zero_owned(&self) -> Self::Owned {
        std::array::from_fn(|i| self[i].zero_owned())
    }
    #[inline]
    fn lend_bar(bar: &mut Self::Gradient) -> Self::Gradient {
        std::array::from_fn(|k| T::lend_bar(&mut bar[k]))
    }
    #[inline]
    fn carry_gradient(&self, bar: Self::Gradient) -> (Self::Owned, bool) {
        let mut finite = true;
        let mut items = self.iter();
        let gradient = bar.map(|bar| match items.next() {
            Some(item) => {
                let (gradient, ok) = item.carry_gradient(bar);
                finite &= ok;
                gradient
            }
            None => unreachable!("an array and its gradient have one length"),
        });
        (gradient, finite)
    }
    type Duals = [T::Duals; N];
    fn lift_duals(&self, along: &Self::Gradient) -> Option<Self::Duals> {
        dual_models::lift_items(self, along)?.try_into().ok()
    }
    fn constant_duals(&self) -> Self::Duals {
        std::array::from_fn(|k| self[k].constant_duals())
    }
    fn zero_duals(duals: &Self::Duals) -> Self::Duals {
        std::array::from_fn(|k| T::zero_duals(&duals[k]))
    }
    dual_item_moves!();
}

/// The dual-number methods of a parameter whose items are a slice of
/// `T`s (`Vec<T>`, `&[T]`, `&Vec<T>`, `&[T; N]`): each item lifted,
/// zeroed, split, pushed and popped as `T` is (`dual_models`).
macro_rules! dual_items {
    () => {
        type Duals = Vec<T::Duals>;
        fn lift_duals(&self, along: &Self::Gradient) -> Option<Self::Duals> {
            dual_models::lift_items(&self[..], along)
        }
        fn constant_duals(&self) -> Self::Duals {
            dual_models::constant_items(&self[..])
        }
        fn zero_duals(duals: &Self::Duals) -> Self::Duals {
            duals.iter().map(T::zero_duals).collect()
        }
        dual_item_moves!();
    };
}

/// A `Vec` is recorded, read back and rebuilt exactly as the slice it holds.
impl<T: Parameter> Parameter for Vec<T> {
    type Variables<'t> = Vec<T::Variables<'t>>;
    type Gradient = Vec<T::Gradient>;
    type Owned = Vec<T::Owned>;
    #[inline]
    fn lend_bar(bar: &mut Self::Gradient) -> Self::Gradient {
        std::mem::take(bar)
    }
    #[inline]
    fn shape<'t>(&'t self, leaves: &mut &[Scalar<'t>]) -> Self::Variables<'t> {
        self.iter().map(|item| item.shape(leaves)).collect()
    }
    #[inline]
    fn gradient(variables: &Self::Variables<'_>) -> Self::Gradient {
        <&[T]>::gradient(variables)
    }
    #[inline]
    fn components(&self, out: &mut Vec<f64>) {
        self.as_slice().components(out);
    }
    #[inline]
    fn gradient_components(gradient: &Self::Gradient, out: &mut Vec<f64>) {
        <&[T]>::gradient_components(gradient, out);
    }
    #[inline]
    fn rebuild(&self, from: &mut &[f64]) -> Self::Owned {
        self.as_slice().rebuild(from)
    }
    #[inline]
    fn gradient_from(&self, from: &mut &[f64]) -> Self::Gradient {
        self.as_slice().gradient_from(from)
    }
    fn fits(&self, gradient: &Self::Gradient) -> bool {
        self.as_slice().fits(gradient)
    }
    #[inline]
    fn zero_owned(&self) -> Self::Owned {
        self.iter().map(T::zero_owned).collect()
    }
    #[inline]
    fn carry_gradient(&self, bar: Self::Gradient) -> (Self::Owned, bool) {
        if self.len() != bar.len() {
            return (self.zero_owned(), false);
        }
        let mut finite = true;
        // The gradient's `Vec` first: collected in place, where the
        // gradient and the owned type are laid out alike (`f64`, a model),
        // with no allocation.
        let gradient = bar
            .into_iter()
            .zip(self)
            .map(|(bar, item)| {
                let (gradient, ok) = item.carry_gradient(bar);
                finite &= ok;
                gradient
            })
            .collect();
        (gradient, finite)
    }
    dual_items!();
}

impl<T: Parameter> Parameter for &[T] {
    type Variables<'t> = Vec<T::Variables<'t>>;
    type Gradient = Vec<T::Gradient>;
    type Owned = Vec<T::Owned>;
    #[inline]
    fn lend_bar(bar: &mut Self::Gradient) -> Self::Gradient {
        std::mem::take(bar)
    }
    #[inline]
    fn shape<'t>(&'t self, leaves: &mut &[Scalar<'t>]) -> Self::Variables<'t> {
        self.iter().map(|item| item.shape(leaves)).collect()
    }
    #[inline]
    fn gradient(variables: &Self::Variables<'_>) -> Self::Gradient {
        variables.iter().map(T::gradient).collect()
    }
    #[inline]
    fn components(&self, out: &mut Vec<f64>) {
        self.iter().for_each(|item| item.components(out));
    }
    #[inline]
    fn gradient_components(gradient: &Self::Gradient, out: &mut Vec<f64>) {
        gradient
            .iter()
            .for_each(|item| T::gradient_components(item, out));
    }
    #[inline]
    fn rebuild(&self, from: &mut &[f64]) -> Self::Owned {
        self.iter().map(|item| item.rebuild(from)).collect()
    }
    #[inline]
    fn gradient_from(&self, from: &mut &[f64]) -> Self::Gradient {
        self.iter().map(|item| item.gradient_from(from)).collect()
    }
    fn fits(&self, gradient: &Self::Gradient) -> bool {
        self.len() == gradient.len() && self.iter().zip(gradient).all(|(item, g)| item.fits(g))
    }
    dual_items!();
}

/// `&Vec<f64>`: a slice parameter, as students write it before slices.
impl<T: Parameter> Parameter for &Vec<T> {
    type Variables<'t> = Vec<T::Variables<'t>>;
    type Gradient = Vec<T::Gradient>;
    type Owned = Vec<T::Owned>;
    #[inline]
    fn lend_bar(bar: &mut Self::Gradient) -> Self::Gradient {
        std::mem::take(bar)
    }
    #[inline]
    fn shape<'t>(&'t self, leaves: &mut &[Scalar<'t>]) -> Self::Variables<'t> {
        (**self).shape(leaves)
    }
    #[inline]
    fn gradient(variables: &Self::Variables<'_>) -> Self::Gradient {
        <&[T]>::gradient(variables)
    }
    #[inline]
    fn components(&self, out: &mut Vec<f64>) {
        self.as_slice().components(out);
    }
    #[inline]
    fn gradient_components(gradient: &Self::Gradient, out: &mut Vec<f64>) {
        <&[T]>::gradient_components(gradient, out);
    }
    #[inline]
    fn rebuild(&self, from: &mut &[f64]) -> Self::Owned {
        self.as_slice().rebuild(from)
    }
    #[inline]
    fn gradient_from(&self, from: &mut &[f64]) -> Self::Gradient {
        self.as_slice().gradient_from(from)
    }
    fn fits(&self, gradient: &Self::Gradient) -> bool {
        self.as_slice().fits(gradient)
    }
    dual_items!();
}

/// `&[f64; N]`: a slice parameter on the tape, an array again in the
/// gradient check.
impl<T: Parameter, const N: usize> Parameter for &[T; N] {
    type Variables<'t> = Vec<T::Variables<'t>>;
    type Gradient = Vec<T::Gradient>;
    type Owned = [T::Owned; N];
    #[inline]
    fn lend_bar(bar: &mut Self::Gradient) -> Self::Gradient {
        std::mem::take(bar)
    }
    #[inline]
    fn shape<'t>(&'t self, leaves: &mut &[Scalar<'t>]) -> Self::Variables<'t> {
        self.iter().map(|item| item.shape(leaves)).collect()
    }
    #[inline]
    fn gradient(variables: &Self::Variables<'_>) -> Self::Gradient {
        <&[T]>::gradient(variables)
    }
    #[inline]
    fn components(&self, out: &mut Vec<f64>) {
        self.as_slice().components(out);
    }
    #[inline]
    fn gradient_components(gradient: &Self::Gradient, out: &mut Vec<f64>) {
        <&[T]>::gradient_components(gradient, out);
    }
    #[inline]
    fn rebuild(&self, from: &mut &[f64]) -> Self::Owned {
        self.each_ref().map(|item| item.rebuild(from))
    }
    #[inline]
    fn gradient_from(&self, from: &mut &[f64]) -> Self::Gradient {
        self.iter().map(|item| item.gradient_from(from)).collect()
    }
    fn fits(&self, gradient: &Self::Gradient) -> bool {
        self.len() == gradient.len() && self.iter().zip(gradient).all(|(item, g)| item.fits(g))
    }
    dual_items!();
}

/// Records a parameter as variables labelled with its name: every
/// component in one call of [`Tape::labeled_variables`] (all or, if one is
/// not finite, none), then shaped like the parameter: element by element,
/// each leaf's `Result` would pass through memory.
///
/// A parameter that cannot be recorded keeps its error on `tape`, where
/// [`refused`] finds it once all parameters are recorded (one check, not
/// one per parameter), and is shaped from untracked constants of its own
/// values, which nothing reads: the body does not run.
pub fn variables<'t, P: Parameter>(
    tape: &'t Tape,
    parameter: &'t P,
    at: Label,
) -> P::Variables<'t> {
    let mut values = Vec::new();
    parameter.components(&mut values);
    let leaves = tape.labeled_variables(&values, at).unwrap_or_else(|error| {
        tape.fail(error);
        values
            .iter()
            .map(|&value| tape.failed_constant(value))
            .collect()
    });
    parameter.shape(&mut leaves.as_slice())
}

/// [`variables`] with its error returned: what [`Parameter::record`] gives.
fn try_variables<'t, P: Parameter>(
    tape: &'t Tape,
    parameter: &'t P,
    at: Label,
) -> Result<P::Variables<'t>> {
    let mut values = Vec::new();
    parameter.components(&mut values);
    let leaves = tape.labeled_variables(&values, at)?;
    Ok(parameter.shape(&mut leaves.as_slice()))
}

/// A model's variables (from [`Parameter::record`]), or the first error:
/// one an earlier parameter's [`variables`] kept on `tape`, else its own.
pub fn first<T>(tape: &Tape, recorded: Result<T>) -> Result<T> {
    recorded.map_err(|error| tape.take_failure().unwrap_or(error))
}

/// The first error a parameter's [`variables`] kept on `tape`: checked
/// once all are recorded and before the body runs, so that a parameter
/// that cannot be recorded is reported without running the student's code
/// on it (which could loop or `assert!` on a NaN).
pub fn refused(tape: &Tape) -> Option<autodiff_core::ScalarAutodiffError> {
    // On a tape for a second-order pass, the variables are all recorded.
    tape.keep_variables();
    tape.take_failure()
}

/// Ends the tape path (`f_grad_tape_on`): the recording's error, else the
/// value, after one reverse pass from the output. On a tape made for a
/// second-order pass (`f_jvp`, `f_hvp`, `f_hessian`) the output is kept
/// on the tape instead, and no reverse pass runs.
pub fn finish(recorded: Result<Scalar<'_>>) -> Result<f64> {
    let output = recorded?;
    if output.kept() {
        return Ok(output.value());
    }
    backward(output)?;
    Ok(output.value())
}

/// The check's error when the gradient itself failed.
pub fn unchecked(
    error: autodiff_core::ScalarAutodiffError,
) -> core::result::Result<crate::GradientCheck, crate::GradientCheckError> {
    Err(error.into())
}

/// The gradient of a parameter's variables after the backward pass.
pub fn gradient<P: Parameter>(_shape: &P, variables: &P::Variables<'_>) -> P::Gradient {
    P::gradient(variables)
}

/// One reverse pass from `output`. An output that no variable reaches
/// (the function ignores its parameters) has gradient zero, not an error.
pub fn backward(output: Scalar<'_>) -> Result<()> {
    if output.tracks_gradient() {
        output.backward()?;
    }
    Ok(())
}

/// Appends a parameter's components.
pub fn components<P: Parameter>(parameter: &P, out: &mut Vec<f64>) {
    parameter.components(out);
}

/// Appends a gradient's components, in the parameter's order.
pub fn gradient_components<P: Parameter>(_shape: &P, gradient: &P::Gradient, out: &mut Vec<f64>) {
    P::gradient_components(gradient, out);
}

/// Rebuilds a parameter of `shape`'s shape from the front of `from`.
pub fn rebuild<P: Parameter>(shape: &P, from: &mut &[f64]) -> P::Owned {
    shape.rebuild(from)
}

/// Builds a gradient of `shape`'s parameter shape from the front of `from`.
pub fn gradient_from<P: Parameter>(shape: &P, from: &mut &[f64]) -> P::Gradient {
    shape.gradient_from(from)
}

/// A copy of a parameter for a second use (`Vec` parameters are not `Copy`).
pub fn dup<T: Clone>(value: &T) -> T {
    value.clone()
}
