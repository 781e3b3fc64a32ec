#[allow(dead_code)]
/// Lesson 15's toy network `ŷ = tanh(x W₁) W₂` with squared error `½(ŷ − t)²`:
/// the expansion's `mlp_loss_adjoint` is the lesson's backward pass.
pub fn mlp_loss(w1: [[f64; 3]; 4], w2: [f64; 3], x: [f64; 4], t: f64) -> f64 {
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        y_hat += z.tanh() * w2[j];
    }
    let error = y_hat - t;
    0.5 * error * error
}
/// Records [`mlp_loss`] on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
#[allow(clippy::too_many_arguments, unused_variables, unused_mut, unused_assignments)]
pub fn mlp_loss_tape<'tape>(
    tape: &'tape ::autodiff::Tape,
    w1: [[::autodiff::Scalar<'tape>; 3]; 4],
    w2: [::autodiff::Scalar<'tape>; 3],
    x: [::autodiff::Scalar<'tape>; 4],
    t: f64,
) -> ::core::result::Result<::autodiff::Scalar<'tape>, ::autodiff::ScalarAutodiffError> {
    use ::autodiff::__private as __ad;
    let __entry = __ad::enter(tape);
    let __nested = __entry.nested();
    if !(__ad::on_tape(tape, &w1, __ad::at("w1", 5))
        & __ad::on_tape(tape, &w2, __ad::at("w2", 5))
        & __ad::on_tape(tape, &x, __ad::at("x", 5)))
    {
        return __ad::refuse(tape, __entry);
    }
    ::autodiff::__probe!(tape, "w1", w1);
    ::autodiff::__probe!(tape, "w2", w2);
    ::autodiff::__probe!(tape, "x", x);
    let __output: ::autodiff::Scalar<'tape> = {
        let mut y_hat = __ad::lift(tape, 0.0, __ad::at("y_hat", 6));
        ::autodiff::__probe!(tape, "y_hat", y_hat);
        {
            let mut __loop = __ad::enter_loop(tape, "j");
            for j in 0..3 {
                __loop
                    .iteration({
                        use __ad::{IntegerLoopVariable as _, OtherLoopVariable as _};
                        (&__ad::LoopVariable(&j)).loop_value()
                    });
                {
                    let mut z = __ad::lift(tape, 0.0, __ad::at("z", 8));
                    ::autodiff::__probe!(tape, "z", z);
                    {
                        let mut __loop = __ad::enter_loop(tape, "i");
                        for i in 0..4 {
                            __loop
                                .iteration({
                                    use __ad::{
                                        IntegerLoopVariable as _, OtherLoopVariable as _,
                                    };
                                    (&__ad::LoopVariable(&i)).loop_value()
                                });
                            {
                                z = __ad::add(
                                    z,
                                    __ad::mul(x[i], w1[i][j], __ad::at("x[i] * w1[i][j]", 10)),
                                    __ad::at("z", 10),
                                );
                                ::autodiff::__probe!(tape, "z", z);
                            }
                        }
                    }
                    y_hat = __ad::add(
                        y_hat,
                        __ad::mul(
                            __ad::tanh(z, __ad::at("z.tanh()", 12)),
                            w2[j],
                            __ad::at("z.tanh() * w2[j]", 12),
                        ),
                        __ad::at("y_hat", 12),
                    );
                    ::autodiff::__probe!(tape, "y_hat", y_hat);
                }
            }
        }
        let error = __ad::sub(y_hat, t, __ad::bound("error", 14));
        __ad::output(
            tape,
            __nested,
            __ad::mul(
                __ad::mul(0.5, error, __ad::at("0.5 * error", 15)),
                error,
                __ad::at("0.5 * error * error", 15),
            ),
            __ad::at("0.5 * error * error", 15),
        )
    };
    __ad::leave(tape, __entry, __output)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct mlp_loss {}
#[allow(dead_code, clippy::too_many_arguments)]
impl mlp_loss {
    #[inline(always)]
    pub fn __tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        w1: [[::autodiff::Scalar<'tape>; 3]; 4],
        w2: [::autodiff::Scalar<'tape>; 3],
        x: [::autodiff::Scalar<'tape>; 4],
        t: f64,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        mlp_loss_tape(tape, w1, w2, x, t)
    }
    #[doc(hidden)]
    pub fn __forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<([[f64; 3]; 4], [f64; 3], [f64; 4], f64)>,
    ) -> f64 {
        let ::core::option::Option::Some((w1, w2, x, t)) = args else {
            return stack.failed();
        };
        if !stack.finite() {
            mlp_loss(w1, w2, x, t)
        } else {
            ::autodiff::__adjoint::forwarded(
                mlp_loss_adjoint(stack, w1, w2, x, t),
                stack,
            )
        }
    }
    #[doc(hidden)]
    pub fn __reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<([[f64; 3]; 4], [f64; 3], [f64; 4], f64)>,
        value_bar: f64,
        bars: ::core::option::Option<
            (&mut [[f64; 3]; 4], &mut [f64; 3], &mut [f64; 4], &mut dyn ::core::any::Any),
        >,
    ) {
        let _ = args;
        let ::core::option::Option::Some((w1_bar, w2_bar, x_bar, _)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::Spread::pop_scaled(x_bar, stack, value_bar);
        ::autodiff::__adjoint::Spread::pop_scaled(w2_bar, stack, value_bar);
        ::autodiff::__adjoint::Spread::pop_scaled(w1_bar, stack, value_bar);
    }
    #[inline(always)]
    pub fn argument_4<T: ::autodiff::__private::ConstantArgument<f64>>(
        &self,
        value: T,
    ) -> f64 {
        ::autodiff::__private::constant_argument(value)
    }
}
/// The value of [`mlp_loss`] and its exact gradient with respect to every differentiable parameter.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
pub fn mlp_loss_grad(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<([[f64; 3]; 4], [f64; 3], [f64; 4])>,
    ::autodiff::ScalarAutodiffError,
> {
    match mlp_loss_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), w1, w2, x, t) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            mlp_loss_grad_tape(w1, w2, x, t)
        }
    }
}
/// [`mlp_loss_grad`] with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
#[allow(clippy::too_many_arguments)]
pub fn mlp_loss_grad_on(
    tape: &mut ::autodiff::Tape,
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<([[f64; 3]; 4], [f64; 3], [f64; 4])>,
    ::autodiff::ScalarAutodiffError,
> {
    match mlp_loss_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), w1, w2, x, t) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            mlp_loss_grad_tape_on(tape, w1, w2, x, t)
        }
    }
}
/// Which computation [`mlp_loss_grad`] runs: the compiled adjoint, or the tape and the construct that keeps it there.
pub const fn mlp_loss_grad_path() -> ::autodiff::GradientPath {
    ::autodiff::GradientPath::Compiled
}
/// [`mlp_loss_grad`] by one reverse pass over [`mlp_loss_tape`]: the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
pub fn mlp_loss_grad_tape(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<([[f64; 3]; 4], [f64; 3], [f64; 4])>,
    ::autodiff::ScalarAutodiffError,
> {
    mlp_loss_grad_tape_on(&mut ::autodiff::Tape::new(), w1, w2, x, t)
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
pub fn mlp_loss_adjoint(
    stack: &mut ::autodiff::__adjoint::Stack,
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> ::core::option::Option<
    ::autodiff::ValueAndGradient<([[f64; 3]; 4], [f64; 3], [f64; 4])>,
> {
    stack.observe(&w1);
    stack.observe(&w2);
    stack.observe(&x);
    if !stack.finite() {
        return ::core::option::Option::None;
    }
    let mut y_hat = 0.0;
    for j in 0..3 {
        let mut z = 0.0;
        for i in 0..4 {
            z += x[i] * w1[i][j];
        }
        let z_tanh = z.tanh();
        stack.observe_operand_of(z, ::autodiff::ScalarOperation::Tanh);
        stack.push(z);
        stack.push(z_tanh);
        y_hat += z_tanh * w2[j];
    }
    let error = y_hat - t;
    let value: f64 = 0.5 * error * error;
    let mut w1_bar = ::autodiff::__adjoint::zero(&w1);
    let mut w2_bar = ::autodiff::__adjoint::zero(&w2);
    let mut x_bar = ::autodiff::__adjoint::zero(&x);
    let value_bar = 1.0;
    let mut y_hat_bar = 0.0;
    let mut error_bar = 0.0;
    error_bar += value_bar * (0.5 * error);
    let product_bar = value_bar * error;
    error_bar += product_bar * 0.5;
    y_hat_bar += error_bar;
    {
        let x_row = &x[..4];
        let x_bar_row = &mut x_bar[..4];
        let w1_bar_row = &mut w1_bar[..4];
        {
            let w2_row = &w2[..3];
            let w2_bar_row = &mut w2_bar[..3];
            {
                let mut sum_bars = stack.sums((0..3).len());
                for j in (0..3).rev() {
                    let mut z_bar = 0.0;
                    let z_tanh = stack.pop();
                    let z = stack.pop();
                    w2_bar_row[j] += y_hat_bar * z_tanh;
                    let z_tanh_bar = y_hat_bar * w2_row[j];
                    z_bar += z_tanh_bar * ::autodiff::__adjoint::rules::tanh_partial(z);
                    sum_bars[j] = z_bar;
                    stack.observe(&z_bar);
                }
                {
                    let sums = &sum_bars[..(0..3).len()];
                    for i in (0..4).rev() {
                        {
                            let w1_row_2 = &w1[i][..3];
                            let w1_bar_row_2 = &mut w1_bar_row[i][..3];
                            for j in (0..3).rev() {
                                let z_bar = sums[j];
                                w1_bar_row_2[j] += z_bar * x_row[i];
                                x_bar_row[i] += z_bar * w1_row_2[j];
                            }
                        }
                    }
                }
                stack.keep_sums(sum_bars);
            }
        }
    }
    stack.observe(&y_hat_bar);
    stack.observe(value);
    stack.observe(&w1_bar);
    stack.observe(&w2_bar);
    stack.observe(&x_bar);
    stack
        .finite()
        .then_some(::autodiff::ValueAndGradient {
            value: value,
            gradient: (w1_bar, w2_bar, x_bar),
        })
}
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
pub fn mlp_loss_grad_tape_on(
    tape: &mut ::autodiff::Tape,
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<([[f64; 3]; 4], [f64; 3], [f64; 4])>,
    ::autodiff::ScalarAutodiffError,
> {
    use ::autodiff::__private as __ad;
    tape.clear();
    let tape = &*tape;
    let w1_var = __ad::variables(tape, &w1, __ad::at("w1", 5));
    let w2_var = __ad::variables(tape, &w2, __ad::at("w2", 5));
    let x_var = __ad::variables(tape, &x, __ad::at("x", 5));
    if let ::core::option::Option::Some(error) = __ad::refused(tape) {
        return ::core::result::Result::Err(error);
    }
    match __ad::finish(mlp_loss_tape(tape, w1_var, w2_var, x_var, t)) {
        ::core::result::Result::Ok(value) => {
            ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                value: value,
                gradient: (
                    __ad::gradient(&w1, &w1_var),
                    __ad::gradient(&w2, &w2_var),
                    __ad::gradient(&x, &x_var),
                ),
            })
        }
        ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
    }
}
/// Checks [`mlp_loss_grad`] against central differences of [`mlp_loss`] in every component, with the default step and tolerance.
pub fn mlp_loss_check(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    mlp_loss_check_with(
        ::core::option::Option::None,
        ::autodiff::DEFAULT_TOLERANCE,
        w1,
        w2,
        x,
        t,
    )
}
/// Checks [`mlp_loss_grad`] against central differences of [`mlp_loss`] in every component; `step: None` uses `default_step` of each input.
#[allow(clippy::too_many_arguments)]
pub fn mlp_loss_check_with(
    step: ::core::option::Option<f64>,
    tolerance: f64,
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    use ::autodiff::__private as __ad;
    let mut inputs = ::std::vec::Vec::new();
    __ad::components(&w1, &mut inputs);
    __ad::components(&w2, &mut inputs);
    __ad::components(&x, &mut inputs);
    let reverse = match mlp_loss_grad(
        __ad::dup(&w1),
        __ad::dup(&w2),
        __ad::dup(&x),
        __ad::dup(&t),
    ) {
        ::core::result::Result::Ok(reverse) => reverse,
        ::core::result::Result::Err(error) => return __ad::unchecked(error),
    };
    let mut analytic = ::std::vec::Vec::new();
    __ad::gradient_components(&w1, &reverse.gradient.0, &mut analytic);
    __ad::gradient_components(&w2, &reverse.gradient.1, &mut analytic);
    __ad::gradient_components(&x, &reverse.gradient.2, &mut analytic);
    __ad::gradient_check(
        &inputs,
        &analytic,
        step,
        tolerance,
        |point| {
            let mut rest = point;
            let w1 = __ad::rebuild(&w1, &mut rest);
            let w2 = __ad::rebuild(&w2, &mut rest);
            let x = __ad::rebuild(&x, &mut rest);
            mlp_loss(w1, w2, x, __ad::dup(&t))
        },
    )
}
/// Forward mode: the value of [`mlp_loss`] and its derivative along `tangent` (∇mlp_loss · tangent), `tangent` shaped like the gradient of [`mlp_loss_grad`]. The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mlp_loss_jvp(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
    tangent: ([[f64; 3]; 4], [f64; 3], [f64; 4]),
) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::jvp_of(
        mlp_loss_grad_tape_on(tape, w1, w2, x, t),
        tape,
        (&w1, &w2, &x),
        tangent,
        &["w1", "w2", "x"],
    )
}
/// The value of [`mlp_loss`], its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mlp_loss_hvp(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
    direction: ([[f64; 3]; 4], [f64; 3], [f64; 4]),
) -> ::core::result::Result<
    ::autodiff::Hvp<([[f64; 3]; 4], [f64; 3], [f64; 4])>,
    ::autodiff::ScalarAutodiffError,
> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::hvp_of(
        mlp_loss_grad_tape_on(tape, w1, w2, x, t),
        tape,
        (&w1, &w2, &x),
        direction,
        &["w1", "w2", "x"],
    )
}
/// The dense Hessian of [`mlp_loss`] over its differentiable components, in the order `mlp_loss_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
#[inline]
#[allow(clippy::too_many_arguments)]
pub fn mlp_loss_hessian(
    w1: [[f64; 3]; 4],
    w2: [f64; 3],
    x: [f64; 4],
    t: f64,
) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
    let tape = &mut ::autodiff::__private::second_order_tape();
    ::autodiff::__private::hessian(mlp_loss_grad_tape_on(tape, w1, w2, x, t), tape)
}
