#[allow(dead_code)]
/// Methods of the table's second batch, in method and path form.
fn wave(x: f64, y: f64) -> f64 {
    x.tan() + x.hypot(y) + f64::log(y, 2.0) + x.floor()
}
/// Records [`wave`] on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
#[allow(clippy::too_many_arguments, unused_variables, unused_mut, unused_assignments)]
fn wave_tape<'tape>(
    tape: &'tape ::autodiff::Tape,
    x: ::autodiff::Scalar<'tape>,
    y: ::autodiff::Scalar<'tape>,
) -> ::core::result::Result<::autodiff::Scalar<'tape>, ::autodiff::ScalarAutodiffError> {
    use ::autodiff::__private as __ad;
    let __entry = __ad::enter(tape);
    let __nested = __entry.nested();
    if !(__ad::on_tape(tape, &x, __ad::at("x", 4))
        & __ad::on_tape(tape, &y, __ad::at("y", 4)))
    {
        return __ad::refuse(tape, __entry);
    }
    ::autodiff::__probe!(tape, "x", x);
    ::autodiff::__probe!(tape, "y", y);
    let __output: ::autodiff::Scalar<'tape> = {
        __ad::output(
            tape,
            __nested,
            __ad::add(
                __ad::add(
                    __ad::add(
                        __ad::tan(x, __ad::at("x.tan()", 5)),
                        __ad::hypot(x, y, __ad::at("x.hypot(y)", 5)),
                        __ad::at("x.tan() + x.hypot(y)", 5),
                    ),
                    __ad::log(y, 2.0, __ad::at("f64::log(y, 2.0)", 5)),
                    __ad::at("x.tan() + x.hypot(y) + f64::log(y, 2.0)", 5),
                ),
                __ad::floor(x, __ad::at("x.floor()", 5)),
                __ad::at("x.tan() + x.hypot(y) + f64::log(y, 2.0) + x.floor()", 5),
            ),
            __ad::at("x.tan() + x.hypot(y) + f64::log(y, 2.0) + x.floor()", 5),
        )
    };
    __ad::leave(tape, __entry, __output)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct wave {}
#[allow(dead_code, clippy::too_many_arguments)]
impl wave {
    #[inline(always)]
    fn __tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        x: ::autodiff::Scalar<'tape>,
        y: ::autodiff::Scalar<'tape>,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        wave_tape(tape, x, y)
    }
    #[doc(hidden)]
    fn __forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64, f64)>,
    ) -> f64 {
        let ::core::option::Option::Some((x, y)) = args else {
            return stack.failed();
        };
        if !stack.finite() {
            wave(x, y)
        } else {
            ::autodiff::__adjoint::forwarded(wave_adjoint(stack, x, y), stack)
        }
    }
    #[doc(hidden)]
    fn __reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64, f64)>,
        value_bar: f64,
        bars: ::core::option::Option<(&mut f64, &mut f64)>,
    ) {
        let _ = args;
        let ::core::option::Option::Some((x_bar, y_bar)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::Spread::pop_scaled(y_bar, stack, value_bar);
        ::autodiff::__adjoint::Spread::pop_scaled(x_bar, stack, value_bar);
    }
}
/// The value of [`wave`] and its exact gradient with respect to every differentiable parameter.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
fn wave_grad(
    x: f64,
    y: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<(f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    match wave_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), x, y) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            wave_grad_tape(x, y)
        }
    }
}
/// [`wave_grad`] with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
#[allow(clippy::too_many_arguments)]
fn wave_grad_on(
    tape: &mut ::autodiff::Tape,
    x: f64,
    y: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<(f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    match wave_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), x, y) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            wave_grad_tape_on(tape, x, y)
        }
    }
}
/// Which computation [`wave_grad`] runs: the compiled adjoint, or the tape and the construct that keeps it there.
const fn wave_grad_path() -> ::autodiff::GradientPath {
    ::autodiff::GradientPath::Compiled
}
/// [`wave_grad`] by one reverse pass over [`wave_tape`]: the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
fn wave_grad_tape(
    x: f64,
    y: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<(f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    wave_grad_tape_on(&mut ::autodiff::Tape::new(), x, y)
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
fn wave_adjoint(
    stack: &mut ::autodiff::__adjoint::Stack,
    x: f64,
    y: f64,
) -> ::core::option::Option<::autodiff::ValueAndGradient<(f64, f64)>> {
    stack.observe(&x);
    stack.observe(&y);
    if !stack.finite() {
        return ::core::option::Option::None;
    }
    let x_tan = x.tan();
    stack.observe(x);
    stack.observe(y);
    stack.observe(y);
    stack.observe(2.0);
    stack.observe_operand_of(x, ::autodiff::ScalarOperation::Floor);
    let value = x_tan + x.hypot(y) + f64::log(y, 2.0) + x.floor();
    let value: f64 = value;
    let mut x_bar = ::autodiff::__adjoint::zero(&x);
    let mut y_bar = ::autodiff::__adjoint::zero(&y);
    let value_bar = 1.0;
    let partials = ::autodiff::__adjoint::rules::log_partials(y, 2.0);
    y_bar += value_bar * partials.0;
    let partials_2 = ::autodiff::__adjoint::rules::hypot_partials(x, y);
    y_bar += value_bar * partials_2.1;
    x_bar += value_bar * partials_2.0;
    x_bar += value_bar * ::autodiff::__adjoint::rules::tan_partial(x_tan);
    stack.observe(value);
    stack.observe(&x_bar);
    stack.observe(&y_bar);
    stack
        .finite()
        .then_some(::autodiff::ValueAndGradient {
            value: value,
            gradient: (x_bar, y_bar),
        })
}
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
fn wave_grad_tape_on(
    tape: &mut ::autodiff::Tape,
    x: f64,
    y: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<(f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    use ::autodiff::__private as __ad;
    tape.clear();
    let tape = &*tape;
    let x_var = __ad::variables(tape, &x, __ad::at("x", 4));
    let y_var = __ad::variables(tape, &y, __ad::at("y", 4));
    if let ::core::option::Option::Some(error) = __ad::refused(tape) {
        return ::core::result::Result::Err(error);
    }
    match __ad::finish(wave_tape(tape, x_var, y_var)) {
        ::core::result::Result::Ok(value) => {
            ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                value: value,
                gradient: (__ad::gradient(&x, &x_var), __ad::gradient(&y, &y_var)),
            })
        }
        ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
    }
}
/// Checks [`wave_grad`] against central differences of [`wave`] in every component, with the default step and tolerance.
fn wave_check(
    x: f64,
    y: f64,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    wave_check_with(::core::option::Option::None, ::autodiff::DEFAULT_TOLERANCE, x, y)
}
/// Checks [`wave_grad`] against central differences of [`wave`] in every component; `step: None` uses `default_step` of each input.
#[allow(clippy::too_many_arguments)]
fn wave_check_with(
    step: ::core::option::Option<f64>,
    tolerance: f64,
    x: f64,
    y: f64,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    use ::autodiff::__private as __ad;
    let mut inputs = ::std::vec::Vec::new();
    __ad::components(&x, &mut inputs);
    __ad::components(&y, &mut inputs);
    let reverse = match wave_grad(__ad::dup(&x), __ad::dup(&y)) {
        ::core::result::Result::Ok(reverse) => reverse,
        ::core::result::Result::Err(error) => return __ad::unchecked(error),
    };
    let mut analytic = ::std::vec::Vec::new();
    __ad::gradient_components(&x, &reverse.gradient.0, &mut analytic);
    __ad::gradient_components(&y, &reverse.gradient.1, &mut analytic);
    __ad::gradient_check(
        &inputs,
        &analytic,
        step,
        tolerance,
        |point| {
            let mut rest = point;
            let x = __ad::rebuild(&x, &mut rest);
            let y = __ad::rebuild(&y, &mut rest);
            wave(x, y)
        },
    )
}
/// Forward mode: the value of [`wave`] and its derivative along `tangent` (∇wave · tangent), `tangent` shaped like the gradient of [`wave_grad`]. The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
#[inline]
#[allow(clippy::too_many_arguments)]
fn wave_jvp(
    x: f64,
    y: f64,
    tangent: (f64, f64),
) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::jvp_of(
        wave_grad_tape_on(tape, x, y),
        tape,
        (&x, &y),
        tangent,
        &["x", "y"],
    )
}
/// The value of [`wave`], its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
#[inline]
#[allow(clippy::too_many_arguments)]
fn wave_hvp(
    x: f64,
    y: f64,
    direction: (f64, f64),
) -> ::core::result::Result<
    ::autodiff::Hvp<(f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::hvp_of(
        wave_grad_tape_on(tape, x, y),
        tape,
        (&x, &y),
        direction,
        &["x", "y"],
    )
}
/// The dense Hessian of [`wave`] over its differentiable components, in the order `wave_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
#[inline]
#[allow(clippy::too_many_arguments)]
fn wave_hessian(
    x: f64,
    y: f64,
) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::hessian(wave_grad_tape_on(tape, x, y), tape)
}
