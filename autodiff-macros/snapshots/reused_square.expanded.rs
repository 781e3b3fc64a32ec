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
    if !(__ad::on_tape(tape, &x, __ad::at("x", 3))) {
        return __ad::refuse(tape, __entry);
    }
    let __output = (move || -> ::autodiff::Scalar<'tape> {
        let square = __ad::mul(x, x, __ad::at("square", 4));
        __ad::output(
            tape,
            __ad::add(square, square, __ad::at("square + square", 5)),
            __ad::at("square + square", 5),
        )
    })();
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
}
/// The value of [`loss`] and its exact gradient with respect to every differentiable parameter, by one reverse pass over [`loss_tape`]. Records on a tape this thread keeps between calls, so calling it in a loop reuses memory.
fn loss_grad(
    x: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    ::autodiff::__private::on_scratch_tape(move |tape| loss_grad_on(tape, x))
}
/// [`loss_grad`] on a tape the caller keeps: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
#[allow(clippy::too_many_arguments)]
fn loss_grad_on(
    tape: &mut ::autodiff::Tape,
    x: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    use ::autodiff::__private as __ad;
    tape.clear();
    let tape = &*tape;
    let x_var = __ad::variables(tape, &x, __ad::at("x", 3))?;
    let output = loss_tape(tape, x_var)?;
    __ad::backward(output)?;
    ::core::result::Result::Ok(::autodiff::ValueAndGradient {
        value: output.value(),
        gradient: __ad::gradient(&x, &x_var),
    })
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
    let reverse = loss_grad(__ad::dup(&x))?;
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
