#![doc = include_str!("../README.md")]
pub use autodiff_core::*;

/// Differentiates an ordinary `f64` function: next to `fn f` it generates
/// `f_tape` (the body recorded on a [`Tape`], one labelled node per
/// operation), `f_grad` (value and exact gradient, shaped like the
/// differentiable parameters, computed by generated reverse-mode code with
/// no tape where the body allows it, and by the tape otherwise or when a
/// value is not finite, so errors keep their labels), `f_grad_tape` (the
/// same by one reverse pass over the tape), `f_grad_on` (`f_grad` with a
/// `&mut Tape` the caller keeps for the tape path and this clears, so
/// repeated calls reuse its memory), `f_check` and `f_check_with` (the
/// gradient against central differences of `f`, every component), and
/// forward mode and second order on the tape: `f_jvp` (the derivative
/// along a tangent, a [`Jvp`]), `f_hvp` (the Hessian times a direction,
/// an [`Hvp`] shaped like the gradient) and `f_hessian` (a dense
/// [`Hessian`]).
///
/// A function returning a vector (`Vec<f64>`, `[f64; N]`, nested, or a
/// tuple of these and `f64`) gets `f_tape`, `f_vjp` (its output and a
/// cotangent pulled back to the parameters, a [`ValueAndGradient`] whose
/// value is the output), `f_jacobian` (a dense [`Jacobian`]), `f_jvp` and
/// `f_check` (every Jacobian entry, a [`JacobianCheck`]); other annotated
/// functions call it and index, iterate or destructure what it returns.
///
/// Parameters of type `f64`, `[f64; N]` (nested too), `&[f64]`,
/// `Vec<f64>` and [`#[derive(Parameters)]`](macro@Parameters) structs (by
/// value or by reference; the gradient is the same struct) are
/// differentiable; integers, `bool` and parameters marked
/// `#[constant]` pass through. Anything the macro cannot differentiate
/// exactly is a compile error on the offending token.
///
/// On a method taking `&self` (or `self`) of a `#[derive(Parameters)]`
/// struct, the siblings are methods too (`model.f_grad(x)`, the gradient a
/// model), and a method called on a model inside an annotated body records
/// on the same tape. On an `impl` block, every function in it returning
/// `f64` is differentiated, associated functions without `self` included
/// (they call each other as `Self::f`); an attribute on one associated
/// function without `self` is an error that says to move it to the block.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[differentiable]
/// fn loss(w: [f64; 2], x: f64, #[constant] target: f64) -> f64 {
///     let y = w[0] * x + w[1];
///     let e = y - target;
///     e * e
/// }
///
/// let result = loss_grad([2.0, 1.0], 3.0, 5.0)?;
/// // y = 7, e = 2: ∂/∂w = 2e·[x, 1], ∂/∂x = 2e·w₀.
/// assert_eq!(result.value, 4.0);
/// assert_eq!(result.gradient, ([12.0, 4.0], 8.0));
/// assert!(loss_check([2.0, 1.0], 3.0, 5.0)?.passed());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use autodiff_macros::differentiable;

mod parameters;
pub use __private::FailedRecording;
pub use optim::StepError;
pub use parameters::{Parameters, ShapeMismatch};

mod activations;
pub use activations::Activations;

pub mod backward;
pub use autodiff_macros::backward;
pub use backward::{BackwardElement, BackwardReport, BackwardRow, RowKind, RowVerdict};

/// Logs the node(s) a binding of a `#[differentiable]` function holds,
/// when the tape is probing (`#[backward(f)]`'s exact adjoints); not a
/// public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __probe {
    ($tape:expr, $name:literal, $value:expr $(; $($index:expr),+)?) => {
        $crate::__probe!(@ false, $tape, $name, $value $(; $($index),+)?)
    };
    (= $tape:expr, $name:literal, $value:expr $(; $($index:expr),+)?) => {
        $crate::__probe!(@ true, $tape, $name, $value $(; $($index),+)?)
    };
    (@ $reassigned:literal, $tape:expr, $name:literal, $value:expr $(; $($index:expr),+)?) => {
        if $tape.probing() {
            #[allow(unused_imports)]
            use $crate::__private::{NoProbe as _, ProbeValue as _};
            (&$crate::__private::Probing(&$value)).probe(
                $tape,
                $name,
                &[$($($crate::__private::index_of($index)),+)?],
                $reassigned,
            );
        }
    };
}

/// Logs what a student's adjoint statement wrote (`#[backward(f)]`'s
/// `_check`); not a public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __log_write {
    ($log:expr, $statement:expr, $name:literal, $value:expr $(; $($index:expr),+)?) => {{
        #[allow(unused_imports)]
        use $crate::__private::{LoggedNumbers as _, NotNumbers as _};
        if let ::core::option::Option::Some(numbers) = (&$crate::__private::Logged(&$value)).numbers() {
            $log.write(
                $statement,
                $name,
                &[$($($crate::__private::index_of($index)),+)?],
                numbers,
            );
        }
    }};
}

/// Makes a struct of differentiable fields a model: a [`Parameters`]
/// (the training loop's view) and a parameter of `#[differentiable]`
/// functions, whose gradient comes back as the same struct.
///
/// Fields may be `f64`, arrays of them (nested too), `Vec<f64>`,
/// `Vec<Vec<f64>>`, another `#[derive(Parameters)]` struct or a `Vec` of
/// them. A field marked `#[constant]` (a size, a name, a choice) is carried
/// into gradients and copies unchanged and never differentiated. The struct
/// must also be `Clone`.
///
/// ```
/// use autodiff::prelude::*;
///
/// #[derive(Clone, Debug, PartialEq, Parameters)]
/// struct Line {
///     w: f64,
///     b: f64,
///     #[constant]
///     name: String,
/// }
///
/// #[differentiable]
/// fn loss(line: &Line, #[constant] x: f64, #[constant] y: f64) -> f64 {
///     let e = line.w * x + line.b - y;
///     e * e
/// }
///
/// let line = Line { w: 2.0, b: 1.0, name: "fit".into() };
/// let grad = loss_grad(&line, 3.0, 5.0)?.gradient;
/// // e = 2: ∂/∂w = 2e·x, ∂/∂b = 2e.
/// assert_eq!(grad, Line { w: 12.0, b: 4.0, name: "fit".into() });
/// assert!(loss_check(&line, 3.0, 5.0)?.passed());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub use autodiff_macros::Parameters;

pub mod optim;

/// Which computation a `#[differentiable]` function's `f_grad` runs, as
/// `f_grad_path()` reports it.
///
/// ```
/// use autodiff::prelude::*;
/// use autodiff::GradientPath;
///
/// #[differentiable]
/// fn square(x: f64) -> f64 {
///     x * x
/// }
///
/// assert_eq!(square_grad_path(), GradientPath::Compiled);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GradientPath {
    /// The compiled adjoint: the body run on `f64`, then its reverse sweep
    /// as generated Rust, with no tape. On a value the tape would reject,
    /// it reruns the tape for the labelled error.
    Compiled,
    /// The tape, because the body has a construct the compiled adjoint
    /// does not take yet.
    Tape {
        /// The construct, as `f_grad`'s doc line names it.
        construct: &'static str,
        /// Its line in the source file.
        line: u32,
    },
}

/// The types other than `f64` that a `type` alias in a return position
/// (`-> Pair` with `type Pair = (f64, f64)`) may hide, as
/// `type => [generics]` rows handed to `$then!`: the recording twin's
/// `Returned` and the compiled adjoint's `Operand` each implement them
/// with a body that never runs (the gradient asserts the alias is `f64`),
/// so that assertion is the one error.
macro_rules! for_each_non_f64_return {
    ($then:ident) => {
        $then!(
            () => [],
            (A,) => [A],
            (A, B) => [A, B],
            (A, B, C) => [A, B, C],
            (A, B, C, D) => [A, B, C, D],
            Vec<T> => [T],
            [T; N] => [T, const N: usize],
            Option<T> => [T],
        );
    };
}

/// Calls `$then!` once per argument count from 1 to 12, with one
/// `a_k A_k P_k` triple per argument (the value, its type, the parameter's
/// type): the calls a recording twin (`Twin`) and a compiled adjoint
/// (`Args`) convert, up to the arity they both take.
macro_rules! for_each_arity {
    ($then:ident) => {
        $then!(a0 A0 P0);
        $then!(a0 A0 P0, a1 A1 P1);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3, a4 A4 P4);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3, a4 A4 P4, a5 A5 P5);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3, a4 A4 P4, a5 A5 P5, a6 A6 P6);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3, a4 A4 P4, a5 A5 P5, a6 A6 P6, a7 A7 P7);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3, a4 A4 P4, a5 A5 P5, a6 A6 P6, a7 A7 P7, a8 A8 P8);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3, a4 A4 P4, a5 A5 P5, a6 A6 P6, a7 A7 P7, a8 A8 P8, a9 A9 P9);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3, a4 A4 P4, a5 A5 P5, a6 A6 P6, a7 A7 P7, a8 A8 P8, a9 A9 P9, a10 A10 P10);
        $then!(a0 A0 P0, a1 A1 P1, a2 A2 P2, a3 A3 P3, a4 A4 P4, a5 A5 P5, a6 A6 P6, a7 A7 P7, a8 A8 P8, a9 A9 P9, a10 A10 P10, a11 A11 P11);
    };
}

/// What `#[differentiable]`-generated code calls; not a public API.
#[doc(hidden)]
pub mod __private;

// What the compiled adjoint (`f_grad` as generated Rust) calls; not a
// public API. Its docs are all inner (`//!`), so that their links resolve in
// the module rather than here.
#[doc(hidden)]
pub mod __adjoint;

pub mod compile_errors {
    //! The traits and functions that `#[differentiable]`'s compile errors name.
    //!
    //! You never call these: the generated code does. They are public here so
    //! that an error says ``the trait `Untracked` is not implemented for
    //! `Scalar<'_>` `` rather than naming a hidden module, and so that each has
    //! a page that says what the error means:
    //!
    //! - [`Untracked`], [`untracked`], [`UntrackedFor`], [`untracked_for`]: a
    //!   tracked value (one that depends on a differentiable parameter) reached
    //!   a plain function or a method without a derivative rule, which would
    //!   drop its gradient. Compute such values from integers or `#[constant]`
    //!   parameters, or pass `detach(x)`: the value, on purpose without its
    //!   gradient.
    //! - [`Cast`], [`cast`]: a tracked value cast with `as` (`x as i64`),
    //!   which would drop its gradient. Write `detach(x) as i64` to cast its
    //!   value; `x.floor()` is tracked too: `detach(x).floor() as i64`.
    //! - [`ConstantArgument`], [`constant_argument`]: a tracked value passed
    //!   to a `#[constant]` `f64` parameter of another annotated function,
    //!   where its gradient would be lost. Pass a value that does not depend
    //!   on a differentiable parameter (`detach(x)` is the value without its
    //!   gradient), or remove `#[constant]` from that parameter.
    //! - [`Remainder`], [`rem`]: `a % b` where an operand is a tracked value:
    //!   `%` has no derivative rule. Use it on integers and plain values
    //!   (`detach(a) % b`), or, for `a / b ≥ 0`, write
    //!   `a - b * detach(a / b).floor()`, whose derivative is exact.
    //! - [`ReturnsF64`]: the function's return type is an alias of something
    //!   other than `f64`. Gradients are exact in `f64`.
    //! - [`Parameter`]: a parameter's type is a struct that is not a model.
    //!   Derive [`Parameters`](crate::Parameters) for it, or mark the parameter
    //!   `#[constant]`.

    pub use crate::__adjoint::ReturnsF64;
    pub use crate::__private::{
        cast, constant_argument, rem, untracked, untracked_for, Cast, ConstantArgument, Parameter,
        Remainder, Untracked, UntrackedFor,
    };
}

/// Everything an exercise needs: `use autodiff::prelude::*;`.
pub mod prelude {
    pub use crate::activations::Activations;
    pub use crate::backward::BackwardReport;
    pub use crate::optim::{Adam, Sgd};
    pub use crate::parameters::Parameters;
    pub use autodiff_core::GradientCheckError;
    pub use autodiff_core::{
        detach, relu, sigmoid, Dual, GradientCheck, Hessian, Hvp, Jacobian, JacobianCheck, Jvp,
        Label, Scalar, ScalarAutodiffError, Tape, ValueAndGradient,
    };
    pub use autodiff_macros::Parameters;
    pub use autodiff_macros::{backward, differentiable};
}
