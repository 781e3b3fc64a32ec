#[allow(dead_code)]
/// A loop, a branch and a compound assignment.
pub fn series(x: f64, scale: f64, n: usize) -> f64 {
    let mut total = 0.0;
    for i in 0..n {
        total += scale * x.powi(i as i32);
    }
    if total > 1.0 { total.ln() } else { -total }
}
/// Records [`series`] on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
#[allow(clippy::too_many_arguments, unused_variables, unused_mut, unused_assignments)]
pub fn series_tape<'tape>(
    tape: &'tape ::autodiff::Tape,
    x: ::autodiff::Scalar<'tape>,
    scale: f64,
    n: usize,
) -> ::core::result::Result<::autodiff::Scalar<'tape>, ::autodiff::ScalarAutodiffError> {
    use ::autodiff::__private as __ad;
    let __entry = __ad::enter(tape);
    if !(__ad::on_tape(tape, &x, __ad::at("x", 4))) {
        return __ad::refuse(tape, __entry);
    }
    let __output = (move || -> ::autodiff::Scalar<'tape> {
        let mut total = __ad::lift(tape, 0.0, __ad::at("total", 5));
        for i in 0..n {
            total = __ad::add(
                total,
                __ad::mul(
                    scale,
                    __ad::powi(x, i as i32, __ad::at("x.powi(i as i32)", 7)),
                    __ad::at("scale * x.powi(i as i32)", 7),
                ),
                __ad::at("total", 7),
            );
        }
        __ad::output(
            tape,
            if __ad::primal(total) > 1.0 {
                __ad::ln(total, __ad::at("total.ln()", 10))
            } else {
                __ad::neg(total, __ad::at("-total", 12))
            },
            __ad::at("if", 9),
        )
    })();
    __ad::leave(tape, __entry, __output)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct series {}
#[allow(dead_code, clippy::too_many_arguments)]
impl series {
    #[inline(always)]
    pub fn __tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        x: ::autodiff::Scalar<'tape>,
        scale: f64,
        n: usize,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        series_tape(tape, x, scale, n)
    }
}
/// The value of [`series`] and its exact gradient with respect to every differentiable parameter, by one reverse pass over [`series_tape`]. Records on a tape this thread keeps between calls, so calling it in a loop reuses memory.
pub fn series_grad(
    x: f64,
    scale: f64,
    n: usize,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    ::autodiff::__private::on_scratch_tape(move |tape| series_grad_on(tape, x, scale, n))
}
/// [`series_grad`] on a tape the caller keeps: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
#[allow(clippy::too_many_arguments)]
pub fn series_grad_on(
    tape: &mut ::autodiff::Tape,
    x: f64,
    scale: f64,
    n: usize,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    use ::autodiff::__private as __ad;
    tape.clear();
    let tape = &*tape;
    let x_var = __ad::variables(tape, &x, __ad::at("x", 4))?;
    let output = series_tape(tape, x_var, scale, n)?;
    __ad::backward(output)?;
    ::core::result::Result::Ok(::autodiff::ValueAndGradient {
        value: output.value(),
        gradient: __ad::gradient(&x, &x_var),
    })
}
/// Checks [`series_grad`] against central differences of [`series`] in every component, with the default step and tolerance.
pub fn series_check(
    x: f64,
    scale: f64,
    n: usize,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    series_check_with(
        ::core::option::Option::None,
        ::autodiff::DEFAULT_TOLERANCE,
        x,
        scale,
        n,
    )
}
/// Checks [`series_grad`] against central differences of [`series`] in every component; `step: None` uses `default_step` of each input.
#[allow(clippy::too_many_arguments)]
pub fn series_check_with(
    step: ::core::option::Option<f64>,
    tolerance: f64,
    x: f64,
    scale: f64,
    n: usize,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    use ::autodiff::__private as __ad;
    let mut inputs = ::std::vec::Vec::new();
    __ad::components(&x, &mut inputs);
    let reverse = series_grad(__ad::dup(&x), __ad::dup(&scale), __ad::dup(&n))?;
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
            series(x, __ad::dup(&scale), __ad::dup(&n))
        },
    )
}
