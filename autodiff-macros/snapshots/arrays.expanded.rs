#[allow(dead_code)]
fn dot(w: [f64; 3], x: &[f64]) -> f64 {
    let mut y = [0.0; 3];
    for i in 0..w.len() {
        y[i] = w[i] * x[i];
    }
    y.iter().sum::<f64>()
}
/// Records [`dot`] on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
#[allow(clippy::too_many_arguments, unused_variables, unused_mut, unused_assignments)]
fn dot_tape<'tape>(
    tape: &'tape ::autodiff::Tape,
    w: [::autodiff::Scalar<'tape>; 3],
    x: ::std::borrow::Cow<'_, [::autodiff::Scalar<'tape>]>,
) -> ::core::result::Result<::autodiff::Scalar<'tape>, ::autodiff::ScalarAutodiffError> {
    use ::autodiff::__private as __ad;
    let __entry = __ad::enter(tape);
    let __nested = __entry.nested();
    if !(__ad::on_tape(tape, &w, __ad::at("w", 3))
        & __ad::on_tape(tape, &x, __ad::at("x", 3)))
    {
        return __ad::refuse(tape, __entry);
    }
    ::autodiff::__probe!(tape, "w", w);
    ::autodiff::__probe!(tape, "x", x);
    let __output: ::autodiff::Scalar<'tape> = {
        let x = &*x;
        let mut y = __ad::lift(tape, [0.0; 3], __ad::at("y", 4));
        ::autodiff::__probe!(tape, "y", y);
        {
            let mut __loop = __ad::enter_loop(tape, "i");
            for i in 0..w.len() {
                __loop
                    .iteration({
                        use __ad::{IntegerLoopVariable as _, OtherLoopVariable as _};
                        (&__ad::LoopVariable(&i)).loop_value()
                    });
                {
                    y[i] = __ad::mul(w[i], x[i], __ad::at("y[i]", 6));
                    ::autodiff::__probe!(tape, "y", y[i]; i);
                }
            }
        }
        __ad::output(
            tape,
            __nested,
            __ad::sum(tape, y.iter(), __ad::at("y.iter().sum::<f64>()", 8)),
            __ad::at("y.iter().sum::<f64>()", 8),
        )
    };
    __ad::leave(tape, __entry, __output)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct dot {}
#[allow(dead_code, clippy::too_many_arguments)]
impl dot {
    #[inline(always)]
    fn __tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        w: [::autodiff::Scalar<'tape>; 3],
        x: ::std::borrow::Cow<'_, [::autodiff::Scalar<'tape>]>,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        dot_tape(tape, w, x)
    }
    #[doc(hidden)]
    fn __forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<([f64; 3], &[f64])>,
    ) -> f64 {
        let ::core::option::Option::Some((w, x)) = args else {
            return stack.failed();
        };
        if !stack.finite() {
            dot(w, x)
        } else {
            ::autodiff::__adjoint::forwarded(dot_adjoint(stack, w, x), stack)
        }
    }
    #[doc(hidden)]
    fn __reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<([f64; 3], &[f64])>,
        value_bar: f64,
        bars: ::core::option::Option<(&mut [f64; 3], &mut [f64])>,
    ) {
        let _ = args;
        let ::core::option::Option::Some((w_bar, x_bar)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::Spread::pop_scaled(x_bar, stack, value_bar);
        ::autodiff::__adjoint::Spread::pop_scaled(w_bar, stack, value_bar);
    }
}
/// The value of [`dot`] and its exact gradient with respect to every differentiable parameter.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
fn dot_grad(
    w: [f64; 3],
    x: &[f64],
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<([f64; 3], ::std::vec::Vec<f64>)>,
    ::autodiff::ScalarAutodiffError,
> {
    match dot_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), w, x) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            dot_grad_tape(w, x)
        }
    }
}
/// [`dot_grad`] with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
#[allow(clippy::too_many_arguments)]
fn dot_grad_on(
    tape: &mut ::autodiff::Tape,
    w: [f64; 3],
    x: &[f64],
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<([f64; 3], ::std::vec::Vec<f64>)>,
    ::autodiff::ScalarAutodiffError,
> {
    match dot_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), w, x) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            dot_grad_tape_on(tape, w, x)
        }
    }
}
/// Which computation [`dot_grad`] runs: the compiled adjoint, or the tape and the construct that keeps it there.
const fn dot_grad_path() -> ::autodiff::GradientPath {
    ::autodiff::GradientPath::Compiled
}
/// [`dot_grad`] by one reverse pass over [`dot_tape`]: the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
fn dot_grad_tape(
    w: [f64; 3],
    x: &[f64],
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<([f64; 3], ::std::vec::Vec<f64>)>,
    ::autodiff::ScalarAutodiffError,
> {
    dot_grad_tape_on(&mut ::autodiff::Tape::new(), w, x)
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
fn dot_adjoint(
    stack: &mut ::autodiff::__adjoint::Stack,
    w: [f64; 3],
    x: &[f64],
) -> ::core::option::Option<
    ::autodiff::ValueAndGradient<([f64; 3], ::std::vec::Vec<f64>)>,
> {
    stack.observe(&w);
    stack.observe(&x[..]);
    if !stack.finite() {
        return ::core::option::Option::None;
    }
    let mut y = [0.0; 3];
    for i in 0..w.len() {
        y[i] = w[i] * x[i];
    }
    let value: f64 = y.iter().sum::<f64>();
    let mut w_bar = ::autodiff::__adjoint::zero(&w);
    let mut x_bar = ::autodiff::__adjoint::zero(&x[..]);
    let value_bar = 1.0;
    let mut y_bar = [0.0; 3];
    for item_bar in y_bar.iter_mut() {
        *item_bar += value_bar;
    }
    if 0 < w.len() {
        let w_row = &w[..w.len()];
        let w_bar_row = &mut w_bar[..w.len()];
        let x_row = &x[..w.len()];
        let x_bar_row = &mut x_bar[..w.len()];
        for i in (0..w.len()).rev() {
            let assigned_bar = y_bar[i];
            y_bar[i] = 0.0;
            x_bar_row[i] += assigned_bar * w_row[i];
            w_bar_row[i] += assigned_bar * x_row[i];
        }
    }
    stack.observe(&y_bar);
    stack.observe(value);
    stack.observe(&w_bar);
    stack.observe(&x_bar);
    stack
        .finite()
        .then_some(::autodiff::ValueAndGradient {
            value: value,
            gradient: (w_bar, x_bar),
        })
}
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
fn dot_grad_tape_on(
    tape: &mut ::autodiff::Tape,
    w: [f64; 3],
    x: &[f64],
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<([f64; 3], ::std::vec::Vec<f64>)>,
    ::autodiff::ScalarAutodiffError,
> {
    use ::autodiff::__private as __ad;
    tape.clear();
    let tape = &*tape;
    let w_var = __ad::variables(tape, &w, __ad::at("w", 3));
    let x_var = __ad::variables(tape, &x, __ad::at("x", 3));
    if let ::core::option::Option::Some(error) = __ad::refused(tape) {
        return ::core::result::Result::Err(error);
    }
    match __ad::finish(dot_tape(tape, w_var, __ad::slice(&x_var))) {
        ::core::result::Result::Ok(value) => {
            ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                value: value,
                gradient: (__ad::gradient(&w, &w_var), __ad::gradient(&x, &x_var)),
            })
        }
        ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
    }
}
/// Checks [`dot_grad`] against central differences of [`dot`] in every component, with the default step and tolerance.
fn dot_check(
    w: [f64; 3],
    x: &[f64],
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    dot_check_with(::core::option::Option::None, ::autodiff::DEFAULT_TOLERANCE, w, x)
}
/// Checks [`dot_grad`] against central differences of [`dot`] in every component; `step: None` uses `default_step` of each input.
#[allow(clippy::too_many_arguments)]
fn dot_check_with(
    step: ::core::option::Option<f64>,
    tolerance: f64,
    w: [f64; 3],
    x: &[f64],
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    use ::autodiff::__private as __ad;
    let mut inputs = ::std::vec::Vec::new();
    __ad::components(&w, &mut inputs);
    __ad::components(&x, &mut inputs);
    let reverse = match dot_grad(__ad::dup(&w), __ad::dup(&x)) {
        ::core::result::Result::Ok(reverse) => reverse,
        ::core::result::Result::Err(error) => return __ad::unchecked(error),
    };
    let mut analytic = ::std::vec::Vec::new();
    __ad::gradient_components(&w, &reverse.gradient.0, &mut analytic);
    __ad::gradient_components(&x, &reverse.gradient.1, &mut analytic);
    __ad::gradient_check(
        &inputs,
        &analytic,
        step,
        tolerance,
        |point| {
            let mut rest = point;
            let w = __ad::rebuild(&w, &mut rest);
            let x = __ad::rebuild(&x, &mut rest);
            dot(w, &x)
        },
    )
}
/// Forward mode: the value of [`dot`] and its derivative along `tangent` (∇dot · tangent), `tangent` shaped like the gradient of [`dot_grad`]. The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
#[inline]
#[allow(clippy::too_many_arguments)]
fn dot_jvp(
    w: [f64; 3],
    x: &[f64],
    tangent: ([f64; 3], ::std::vec::Vec<f64>),
) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::jvp_of(
        dot_grad_tape_on(tape, w, x),
        tape,
        (&w, &x),
        tangent,
        &["w", "x"],
    )
}
/// The value of [`dot`], its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
#[inline]
#[allow(clippy::too_many_arguments)]
fn dot_hvp(
    w: [f64; 3],
    x: &[f64],
    direction: ([f64; 3], ::std::vec::Vec<f64>),
) -> ::core::result::Result<
    ::autodiff::Hvp<([f64; 3], ::std::vec::Vec<f64>)>,
    ::autodiff::ScalarAutodiffError,
> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::hvp_of(
        dot_grad_tape_on(tape, w, x),
        tape,
        (&w, &x),
        direction,
        &["w", "x"],
    )
}
/// The dense Hessian of [`dot`] over its differentiable components, in the order `dot_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
#[inline]
#[allow(clippy::too_many_arguments)]
fn dot_hessian(
    w: [f64; 3],
    x: &[f64],
) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::hessian(dot_grad_tape_on(tape, w, x), tape)
}
