#[allow(dead_code)]
fn loss(x: f64) -> f64 {
    let square = x * x;
    square + square
}
/// Records [`loss`] on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
#[allow(clippy::too_many_arguments, unused_variables, unused_mut, unused_assignments)]
fn loss_tape<'tape>(
    tape: &'tape ::autodiff::Tape,
    x: ::autodiff::Scalar<'tape>,
) -> ::core::result::Result<::autodiff::Scalar<'tape>, ::autodiff::ScalarAutodiffError> {
    use ::autodiff::__private as __ad;
    let __entry = __ad::enter(tape);
    let __nested = __entry.nested();
    if !(__ad::on_tape(tape, &x, __ad::at("x", 3))) {
        return __ad::refuse(tape, __entry);
    }
    ::autodiff::__probe!(tape, "x", x);
    let __output: ::autodiff::Scalar<'tape> = {
        let square = __ad::mul(x, x, __ad::bound("square", 4));
        __ad::output(
            tape,
            __nested,
            __ad::add(square, square, __ad::at("square + square", 5)),
            __ad::at("square + square", 5),
        )
    };
    __ad::leave(tape, __entry, __output)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct loss {}
#[allow(dead_code, clippy::too_many_arguments)]
impl loss {
    #[inline(always)]
    fn __tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        x: ::autodiff::Scalar<'tape>,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        loss_tape(tape, x)
    }
    #[doc(hidden)]
    fn __forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64,)>,
    ) -> f64 {
        let ::core::option::Option::Some((x,)) = args else {
            return stack.failed();
        };
        if !stack.finite() {
            loss(x)
        } else {
            ::autodiff::__adjoint::forwarded(loss_adjoint(stack, x), stack)
        }
    }
    #[doc(hidden)]
    fn __reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64,)>,
        value_bar: f64,
        bars: ::core::option::Option<(&mut f64,)>,
    ) {
        let _ = args;
        let ::core::option::Option::Some((x_bar,)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::Spread::pop_scaled(x_bar, stack, value_bar);
    }
    #[doc(hidden)]
    #[inline]
    fn __forward_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        args: ::core::option::Option<(::autodiff::Dual,)>,
    ) -> ::autodiff::Dual {
        ::autodiff::__adjoint::forward_with(stack, args, loss_adjoint_dual)
    }
    #[doc(hidden)]
    #[inline]
    fn __reverse_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        value_bar: ::autodiff::Dual,
        bars: ::core::option::Option<(&mut ::autodiff::Dual,)>,
    ) {
        ::autodiff::__adjoint::pop_all_scaled(stack, value_bar, bars);
    }
}
/// The value of [`loss`] and its exact gradient with respect to every differentiable parameter.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
fn loss_grad(
    x: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    match loss_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), x) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            loss_grad_tape(x)
        }
    }
}
/// [`loss_grad`] with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
#[allow(clippy::too_many_arguments)]
fn loss_grad_on(
    tape: &mut ::autodiff::Tape,
    x: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    match loss_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), x) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            loss_grad_tape_on(tape, x)
        }
    }
}
/// Which computation [`loss_grad`] runs: the compiled adjoint, or the tape and the construct that keeps it there.
const fn loss_grad_path() -> ::autodiff::GradientPath {
    ::autodiff::GradientPath::Compiled
}
/// [`loss_grad`] by one reverse pass over [`loss_tape`]: the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
fn loss_grad_tape(
    x: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    loss_grad_tape_on(&mut ::autodiff::Tape::new(), x)
}
#[doc(hidden)]
#[allow(
    unused_mut,
    unused_variables,
    unused_parens,
    unused_assignments,
    unused_doc_comments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
fn loss_adjoint(
    stack: &mut ::autodiff::__adjoint::Stack,
    x: f64,
) -> ::core::option::Option<::autodiff::ValueAndGradient<f64>> {
    stack.observe(&x);
    if !stack.finite() {
        return ::core::option::Option::None;
    }
    let square = x * x;
    let value: f64 = square + square;
    let mut x_bar = ::autodiff::__adjoint::zero(&x);
    let value_bar = 1.0;
    let mut square_bar = 0.0;
    square_bar += value_bar;
    square_bar += value_bar;
    x_bar += square_bar * x;
    x_bar += square_bar * x;
    stack.observe(value);
    stack.observe(&x_bar);
    stack
        .finite()
        .then_some(::autodiff::ValueAndGradient {
            value: value,
            gradient: x_bar,
        })
}
#[doc(hidden)]
#[allow(
    unused_mut,
    unused_variables,
    unused_parens,
    unused_assignments,
    unused_doc_comments,
    unreachable_code,
    non_snake_case,
    clippy::all,
    clippy::pedantic
)]
#[inline]
fn loss_adjoint_dual(
    stack: &mut ::autodiff::__adjoint::DualStack,
    x: ::autodiff::Dual,
) -> ::core::option::Option<
    ::autodiff::ValueAndGradient<::autodiff::Dual, ::autodiff::Dual>,
> {
    let square = ::autodiff::__adjoint::dual(x * x);
    let value: ::autodiff::Dual = ::autodiff::__adjoint::dual(square + square);
    if !stack.reverses() {
        return stack.value_only(value);
    }
    let mut x_bar = ::autodiff::__adjoint::zero(&x);
    let value_bar = ::autodiff::Dual::constant(1.0);
    let mut square_bar = ::autodiff::Dual::constant(0.0);
    square_bar += value_bar;
    square_bar += value_bar;
    x_bar += square_bar * x;
    x_bar += square_bar * x;
    stack.observe(value);
    stack
        .finite()
        .then_some(::autodiff::ValueAndGradient {
            value: value,
            gradient: x_bar,
        })
}
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
fn loss_grad_tape_on(
    tape: &mut ::autodiff::Tape,
    x: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    use ::autodiff::__private as __ad;
    tape.clear();
    let tape = &*tape;
    let x_var = __ad::variables(tape, &x, __ad::at("x", 3));
    if let ::core::option::Option::Some(error) = __ad::refused(tape) {
        return ::core::result::Result::Err(error);
    }
    match __ad::finish(loss_tape(tape, x_var)) {
        ::core::result::Result::Ok(value) => {
            ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                value: value,
                gradient: __ad::gradient(&x, &x_var),
            })
        }
        ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
    }
}
/// Checks [`loss_grad`] against central differences of [`loss`] in every component, with the default step and tolerance.
fn loss_check(
    x: f64,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    loss_check_with(::core::option::Option::None, ::autodiff::DEFAULT_TOLERANCE, x)
}
/// Checks [`loss_grad`] against central differences of [`loss`] in every component; `step: None` uses `default_step` of each input.
#[allow(clippy::too_many_arguments)]
fn loss_check_with(
    step: ::core::option::Option<f64>,
    tolerance: f64,
    x: f64,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    use ::autodiff::__private as __ad;
    let mut inputs = ::std::vec::Vec::new();
    __ad::components(&x, &mut inputs);
    let reverse = match loss_grad(__ad::dup(&x)) {
        ::core::result::Result::Ok(reverse) => reverse,
        ::core::result::Result::Err(error) => return __ad::unchecked(error),
    };
    let mut analytic = ::std::vec::Vec::new();
    __ad::gradient_components(&x, &reverse.gradient, &mut analytic);
    __ad::gradient_check(
        &inputs,
        &analytic,
        step,
        tolerance,
        |point| {
            let mut rest = point;
            let x = __ad::rebuild(&x, &mut rest);
            loss(x)
        },
    )
}
#[doc(hidden)]
#[allow(clippy::type_complexity)]
impl<'a> ::autodiff::__private::SecondOrder<'a> for loss {
    type Args = (f64,);
    type Params = &'a f64;
    type Gradient = f64;
    type Duals = ::autodiff::Dual;
    #[inline]
    fn dual(
        args: &Self::Args,
        stack: &mut ::autodiff::__adjoint::DualStack,
        along: &Self::Gradient,
    ) -> ::core::option::Option<
        ::autodiff::ValueAndGradient<Self::Duals, ::autodiff::Dual>,
    > {
        loss_adjoint_dual(stack, ::autodiff::__adjoint::lift(&args.0, &along)?)
    }
    #[inline]
    fn params(args: &'a Self::Args) -> (Self::Params, &'static [&'static str]) {
        (&args.0, &["x"])
    }
    fn tape(
        args: &Self::Args,
        tape: &mut ::autodiff::Tape,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self::Gradient>,
        ::autodiff::ScalarAutodiffError,
    > {
        loss_grad_tape_on(tape, args.0)
    }
}
/// Forward mode: the value of [`loss`] and its derivative along `tangent` (∇loss · tangent), `tangent` shaped like the gradient of [`loss_grad`]. The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
#[inline]
#[allow(clippy::too_many_arguments)]
fn loss_jvp(
    x: f64,
    tangent: f64,
) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
    <loss as ::autodiff::__private::SecondOrder<'_>>::jvp(&(x,), tangent)
}
/// The value of [`loss`], its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
#[inline]
#[allow(clippy::too_many_arguments)]
fn loss_hvp(
    x: f64,
    direction: f64,
) -> ::core::result::Result<::autodiff::Hvp<f64>, ::autodiff::ScalarAutodiffError> {
    <loss as ::autodiff::__private::SecondOrder<'_>>::hvp(&(x,), direction)
}
/// The dense Hessian of [`loss`] over its differentiable components, in the order `loss_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
#[inline]
#[allow(clippy::too_many_arguments)]
fn loss_hessian(
    x: f64,
) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
    <loss as ::autodiff::__private::SecondOrder<'_>>::hessian(&(x,))
}
