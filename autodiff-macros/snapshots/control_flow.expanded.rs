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
    let __nested = __entry.nested();
    if !(__ad::on_tape(tape, &x, __ad::at("x", 4))) {
        return __ad::refuse(tape, __entry);
    }
    ::autodiff::__probe!(tape, "x", x);
    let __output: ::autodiff::Scalar<'tape> = {
        let mut total = __ad::lift(tape, 0.0, __ad::at("total", 5));
        ::autodiff::__probe!(tape, "total", total);
        {
            let mut __loop = __ad::enter_loop(tape, "i");
            for i in 0..n {
                __loop
                    .iteration({
                        use __ad::{IntegerLoopVariable as _, OtherLoopVariable as _};
                        (&__ad::LoopVariable(&i)).loop_value()
                    });
                {
                    total = __ad::add(
                        total,
                        __ad::mul(
                            scale,
                            __ad::powi(x, i as i32, __ad::at("x.powi(i as i32)", 7)),
                            __ad::at("scale * x.powi(i as i32)", 7),
                        ),
                        __ad::at("total", 7),
                    );
                    ::autodiff::__probe!(tape, "total", total);
                }
            }
        }
        __ad::output(
            tape,
            __nested,
            if __ad::primal(total) > 1.0 {
                __ad::ln(total, __ad::at("total.ln()", 10))
            } else {
                __ad::neg(total, __ad::at("-total", 12))
            },
            __ad::at("if", 9),
        )
    };
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
    #[doc(hidden)]
    pub fn __forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64, f64, usize)>,
    ) -> f64 {
        let ::core::option::Option::Some((x, scale, n)) = args else {
            return stack.failed();
        };
        if !stack.finite() {
            series(x, scale, n)
        } else {
            ::autodiff::__adjoint::forwarded(series_adjoint(stack, x, scale, n), stack)
        }
    }
    #[doc(hidden)]
    pub fn __reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64, f64, usize)>,
        value_bar: f64,
        bars: ::core::option::Option<
            (&mut f64, &mut dyn ::core::any::Any, &mut dyn ::core::any::Any),
        >,
    ) {
        let _ = args;
        let ::core::option::Option::Some((x_bar, _, _)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::Spread::pop_scaled(x_bar, stack, value_bar);
    }
    #[doc(hidden)]
    #[inline]
    pub fn __forward_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        args: ::core::option::Option<(::autodiff::Dual, f64, usize)>,
    ) -> ::autodiff::Dual {
        ::autodiff::__adjoint::forward_with(stack, args, series_adjoint_dual)
    }
    #[doc(hidden)]
    #[inline]
    pub fn __reverse_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        value_bar: ::autodiff::Dual,
        bars: ::core::option::Option<
            (&mut ::autodiff::Dual, &mut dyn ::core::any::Any, &mut dyn ::core::any::Any),
        >,
    ) {
        let ::core::option::Option::Some((x_bar, _, _)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::DualSpread::pop_scaled(x_bar, stack, value_bar);
    }
    #[inline(always)]
    pub fn argument_2<T: ::autodiff::__private::ConstantArgument<f64>>(
        &self,
        value: T,
    ) -> f64 {
        ::autodiff::__private::constant_argument(value)
    }
}
/// The value of [`series`] and its exact gradient with respect to every differentiable parameter.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
pub fn series_grad(
    x: f64,
    scale: f64,
    n: usize,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    match series_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), x, scale, n) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            series_grad_tape(x, scale, n)
        }
    }
}
/// [`series_grad`] with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
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
    match series_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), x, scale, n) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            series_grad_tape_on(tape, x, scale, n)
        }
    }
}
/// Which computation [`series_grad`] runs: the compiled adjoint, or the tape and the construct that keeps it there.
pub const fn series_grad_path() -> ::autodiff::GradientPath {
    ::autodiff::GradientPath::Compiled
}
/// [`series_grad`] by one reverse pass over [`series_tape`]: the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
pub fn series_grad_tape(
    x: f64,
    scale: f64,
    n: usize,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<f64>,
    ::autodiff::ScalarAutodiffError,
> {
    series_grad_tape_on(&mut ::autodiff::Tape::new(), x, scale, n)
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
#[inline(never)]
pub fn series_adjoint(
    stack: &mut ::autodiff::__adjoint::Stack,
    x: f64,
    scale: f64,
    n: usize,
) -> ::core::option::Option<::autodiff::ValueAndGradient<f64>> {
    stack.observe(&x);
    if !stack.finite() {
        return ::core::option::Option::None;
    }
    let mut total = 0.0;
    for i in 0..n {
        stack.observe_power_base(x, i as i32);
        total += scale * x.powi(i as i32);
    }
    stack.observe(total);
    let value: f64 = if total > 1.0 { total.ln() } else { -total };
    let mut x_bar = ::autodiff::__adjoint::zero(&x);
    let value_bar = 1.0;
    let mut total_bar = 0.0;
    if total > 1.0 {
        total_bar += value_bar * ::autodiff::__adjoint::rules::ln_partial(total);
    } else {
        total_bar -= value_bar;
    }
    for i in (0..n).rev() {
        let x_powi_bar = total_bar * scale;
        x_bar += x_powi_bar * ::autodiff::__adjoint::rules::powi_partial(x, i as i32);
    }
    stack.observe(&total_bar);
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
pub fn series_adjoint_dual(
    stack: &mut ::autodiff::__adjoint::DualStack,
    x: ::autodiff::Dual,
    scale: f64,
    n: usize,
) -> ::core::option::Option<
    ::autodiff::ValueAndGradient<::autodiff::Dual, ::autodiff::Dual>,
> {
    let mut total = ::autodiff::__adjoint::dual(0.0);
    for i in 0..n {
        stack.observe_power_base(x, i as i32);
        {
            let compound_value = scale * x.powi(i as i32);
            total += compound_value;
        };
    }
    stack.observe(total);
    let value: ::autodiff::Dual = ::autodiff::__adjoint::dual(
        if total > 1.0 {
            ::autodiff::__adjoint::dual(total.ln())
        } else {
            ::autodiff::__adjoint::dual(-total)
        },
    );
    if !stack.reverses() {
        return stack.value_only(value);
    }
    let mut x_bar = ::autodiff::__adjoint::zero(&x);
    let value_bar = ::autodiff::Dual::constant(1.0);
    let mut total_bar = ::autodiff::Dual::constant(0.0);
    if total > 1.0 {
        total_bar += value_bar * ::autodiff::__adjoint::dual_rules::ln_partial(total);
    } else {
        total_bar -= value_bar;
    }
    for i in (0..n).rev() {
        let x_powi_bar = total_bar * scale;
        x_bar
            += x_powi_bar * ::autodiff::__adjoint::dual_rules::powi_partial(x, i as i32);
    }
    stack.observe(&total_bar);
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
pub fn series_grad_tape_on(
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
    let x_var = __ad::variables(tape, &x, __ad::at("x", 4));
    if let ::core::option::Option::Some(error) = __ad::refused(tape) {
        return ::core::result::Result::Err(error);
    }
    match __ad::finish(series_tape(tape, x_var, scale, n)) {
        ::core::result::Result::Ok(value) => {
            ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                value: value,
                gradient: __ad::gradient(&x, &x_var),
            })
        }
        ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
    }
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
    let reverse = match series_grad(__ad::dup(&x), __ad::dup(&scale), __ad::dup(&n)) {
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
            series(x, __ad::dup(&scale), __ad::dup(&n))
        },
    )
}
#[doc(hidden)]
#[allow(clippy::type_complexity)]
impl<'a> ::autodiff::__private::SecondOrder<'a> for series {
    type Args = (f64, f64, usize);
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
        series_adjoint_dual(
            stack,
            ::autodiff::__adjoint::lift(&args.0, &along)?,
            args.1,
            args.2,
        )
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
        series_grad_tape_on(tape, args.0, args.1, args.2)
    }
}
/// Forward mode: the value of [`series`] and its derivative along `tangent` (∇series · tangent), `tangent` shaped like the gradient of [`series_grad`]. The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn series_jvp(
    x: f64,
    scale: f64,
    n: usize,
    tangent: f64,
) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
    <series as ::autodiff::__private::SecondOrder<'_>>::jvp(&(x, scale, n), tangent)
}
/// The value of [`series`], its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn series_hvp(
    x: f64,
    scale: f64,
    n: usize,
    direction: f64,
) -> ::core::result::Result<::autodiff::Hvp<f64>, ::autodiff::ScalarAutodiffError> {
    <series as ::autodiff::__private::SecondOrder<'_>>::hvp(&(x, scale, n), direction)
}
/// The dense Hessian of [`series`] over its differentiable components, in the order `series_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn series_hessian(
    x: f64,
    scale: f64,
    n: usize,
) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
    <series as ::autodiff::__private::SecondOrder<'_>>::hessian(&(x, scale, n))
}
