#[allow(dead_code)]
fn neuron(w: f64, x: f64, b: f64) -> f64 {
    let z = affine(w, x, b);
    relu(z).max(sigmoid(z)) + affine(2.0, x, 1.0) + affine(2.0, 3.0, 1.0)
}
/// Records [`neuron`] on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
#[allow(
    clippy::too_many_arguments,
    unused_variables,
    unused_mut,
    unused_assignments,
    unused_imports,
    dead_code,
    non_camel_case_types,
    non_snake_case,
    unreachable_pub
)]
fn neuron_tape<'tape>(
    tape: &'tape ::autodiff::Tape,
    w: ::autodiff::Scalar<'tape>,
    x: ::autodiff::Scalar<'tape>,
    b: ::autodiff::Scalar<'tape>,
) -> ::core::result::Result<::autodiff::Scalar<'tape>, ::autodiff::ScalarAutodiffError> {
    use ::autodiff::__private as __ad;
    let __entry = __ad::enter(tape);
    let __nested = __entry.nested();
    if !(__ad::on_tape(tape, &w, __ad::at("w", 3))
        & __ad::on_tape(tape, &x, __ad::at("x", 3))
        & __ad::on_tape(tape, &b, __ad::at("b", 3)))
    {
        return __ad::refuse(tape, __entry);
    }
    ::autodiff::__probe!(tape, "w", w);
    ::autodiff::__probe!(tape, "x", x);
    ::autodiff::__probe!(tape, "b", b);
    let __output: ::autodiff::Scalar<'tape> = {
        let z = __ad::call(
            tape,
            match ({
                mod not_differentiable {
                    #[diagnostic::on_unimplemented(
                        message = "`affine` is not #[differentiable], so it cannot take a tracked value",
                        label = "`affine` is a plain function: its result would carry no gradient",
                        note = "annotate `affine` with #[differentiable] to record it on the tape, or pass it only plain values; an annotated `affine` declared inside a function body is not found here: move it out of the body"
                    )]
                    pub trait Differentiable<A> {}
                    pub enum Never {}
                    pub enum Never2 {}
                    #[diagnostic::do_not_recommend]
                    impl<T: ?Sized> Differentiable<Never> for T {}
                    #[diagnostic::do_not_recommend]
                    impl<T: ?Sized> Differentiable<Never2> for T {}
                    pub struct affine {}
                    impl affine {
                        pub fn __tape<'t, A0, A1, A2>(
                            _: &'t ::autodiff::Tape,
                            _: A0,
                            _: A1,
                            _: A2,
                        ) -> ::core::result::Result<
                            ::autodiff::Scalar<'t>,
                            ::autodiff::ScalarAutodiffError,
                        >
                        where
                            affine: Differentiable<(A0, A1, A2)>,
                        {
                            ::core::unreachable!()
                        }
                    }
                }
                use not_differentiable::*;
                {
                    use self::*;
                    (affine::__tape, affine {})
                }
            }) {
                (__ad_twin, __ad_companion) => {
                    use ::autodiff::__private::ArgumentChecks as _;
                    __ad::call_twin(
                        tape,
                        __ad_twin,
                        (
                            __ad_companion.argument_1(w),
                            __ad_companion.argument_2(x),
                            __ad_companion.argument_3(b),
                        ),
                    )
                }
            },
        );
        ::autodiff::__probe!(tape, "z", z);
        __ad::output(
            tape,
            __nested,
            __ad::add(
                __ad::add(
                    __ad::max(
                        {
                            __ad::Autodiffs(::autodiff::relu).named(relu);
                            __ad::relu(z, __ad::at("relu(z)", 5))
                        },
                        {
                            __ad::Autodiffs(::autodiff::sigmoid).named(sigmoid);
                            __ad::sigmoid(z, __ad::at("sigmoid(z)", 5))
                        },
                        __ad::at("relu(z).max(sigmoid(z))", 5),
                    ),
                    __ad::call(
                        tape,
                        match ({
                            mod not_differentiable {
                                #[diagnostic::on_unimplemented(
                                    message = "`affine` is not #[differentiable], so it cannot take a tracked value",
                                    label = "`affine` is a plain function: its result would carry no gradient",
                                    note = "annotate `affine` with #[differentiable] to record it on the tape, or pass it only plain values; an annotated `affine` declared inside a function body is not found here: move it out of the body"
                                )]
                                pub trait Differentiable<A> {}
                                pub enum Never {}
                                pub enum Never2 {}
                                #[diagnostic::do_not_recommend]
                                impl<T: ?Sized> Differentiable<Never> for T {}
                                #[diagnostic::do_not_recommend]
                                impl<T: ?Sized> Differentiable<Never2> for T {}
                                pub struct affine {}
                                impl affine {
                                    pub fn __tape<'t, A0, A1, A2>(
                                        _: &'t ::autodiff::Tape,
                                        _: A0,
                                        _: A1,
                                        _: A2,
                                    ) -> ::core::result::Result<
                                        ::autodiff::Scalar<'t>,
                                        ::autodiff::ScalarAutodiffError,
                                    >
                                    where
                                        affine: Differentiable<(A0, A1, A2)>,
                                    {
                                        ::core::unreachable!()
                                    }
                                }
                            }
                            use not_differentiable::*;
                            {
                                use self::*;
                                (affine::__tape, affine {})
                            }
                        }) {
                            (__ad_twin, __ad_companion) => {
                                use ::autodiff::__private::ArgumentChecks as _;
                                __ad::call_twin(
                                    tape,
                                    __ad_twin,
                                    (
                                        __ad_companion.argument_1(2.0),
                                        __ad_companion.argument_2(x),
                                        __ad_companion.argument_3(1.0),
                                    ),
                                )
                            }
                        },
                    ),
                    __ad::at("relu(z).max(sigmoid(z)) + affine(2.0, x, 1.0)", 5),
                ),
                affine(2.0, 3.0, 1.0),
                __ad::at(
                    "relu(z).max(sigmoid(z)) + affine(2.0, x, 1.0) + affine(2.0, 3.0, 1.0)",
                    5,
                ),
            ),
            __ad::at(
                "relu(z).max(sigmoid(z)) + affine(2.0, x, 1.0) + affine(2.0, 3.0, 1.0)",
                5,
            ),
        )
    };
    __ad::leave(tape, __entry, __output)
}
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
struct neuron {}
#[allow(dead_code, clippy::too_many_arguments)]
impl neuron {
    #[inline(always)]
    fn __tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        w: ::autodiff::Scalar<'tape>,
        x: ::autodiff::Scalar<'tape>,
        b: ::autodiff::Scalar<'tape>,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        neuron_tape(tape, w, x, b)
    }
    #[doc(hidden)]
    fn __forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64, f64, f64)>,
    ) -> f64 {
        let ::core::option::Option::Some((w, x, b)) = args else {
            return stack.failed();
        };
        if !stack.finite() {
            neuron(w, x, b)
        } else {
            ::autodiff::__adjoint::forwarded(neuron_adjoint(stack, w, x, b), stack)
        }
    }
    #[doc(hidden)]
    fn __reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64, f64, f64)>,
        value_bar: f64,
        bars: ::core::option::Option<(&mut f64, &mut f64, &mut f64)>,
    ) {
        let _ = args;
        let ::core::option::Option::Some((w_bar, x_bar, b_bar)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::Spread::pop_scaled(b_bar, stack, value_bar);
        ::autodiff::__adjoint::Spread::pop_scaled(x_bar, stack, value_bar);
        ::autodiff::__adjoint::Spread::pop_scaled(w_bar, stack, value_bar);
    }
    #[doc(hidden)]
    #[inline]
    fn __forward_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        args: ::core::option::Option<
            (::autodiff::Dual, ::autodiff::Dual, ::autodiff::Dual),
        >,
    ) -> ::autodiff::Dual {
        ::autodiff::__adjoint::forward_with(stack, args, neuron_adjoint_dual)
    }
    #[doc(hidden)]
    #[inline]
    fn __reverse_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        value_bar: ::autodiff::Dual,
        bars: ::core::option::Option<
            (&mut ::autodiff::Dual, &mut ::autodiff::Dual, &mut ::autodiff::Dual),
        >,
    ) {
        ::autodiff::__adjoint::pop_all_scaled(stack, value_bar, bars);
    }
}
/// The value of [`neuron`] and its exact gradient with respect to every differentiable parameter.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
fn neuron_grad(
    w: f64,
    x: f64,
    b: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<(f64, f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    match neuron_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), w, x, b) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            neuron_grad_tape(w, x, b)
        }
    }
}
/// [`neuron_grad`] with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
///
/// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
#[allow(clippy::too_many_arguments)]
fn neuron_grad_on(
    tape: &mut ::autodiff::Tape,
    w: f64,
    x: f64,
    b: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<(f64, f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    match neuron_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), w, x, b) {
        ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
        ::core::option::Option::None => {
            ::autodiff::__adjoint::rerun_on_tape();
            neuron_grad_tape_on(tape, w, x, b)
        }
    }
}
/// Which computation [`neuron_grad`] runs: the compiled adjoint, or the tape and the construct that keeps it there.
const fn neuron_grad_path() -> ::autodiff::GradientPath {
    ::autodiff::GradientPath::Compiled
}
/// [`neuron_grad`] by one reverse pass over [`neuron_tape`]: the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
fn neuron_grad_tape(
    w: f64,
    x: f64,
    b: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<(f64, f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    neuron_grad_tape_on(&mut ::autodiff::Tape::new(), w, x, b)
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
    unused_imports,
    dead_code,
    non_camel_case_types,
    unreachable_pub,
    clippy::all,
    clippy::pedantic
)]
fn neuron_adjoint(
    stack: &mut ::autodiff::__adjoint::Stack,
    w: f64,
    x: f64,
    b: f64,
) -> ::core::option::Option<::autodiff::ValueAndGradient<(f64, f64, f64)>> {
    mod not_differentiable {
        pub struct affine {}
        impl affine {
            pub fn __reverse(
                _: &mut ::autodiff::__adjoint::Stack,
                _: ::core::option::Option<::autodiff::__adjoint::NotDifferentiable>,
                _: f64,
                _: ::core::option::Option<::autodiff::__adjoint::NotDifferentiable>,
            ) {
                loop {}
            }
            pub fn __forward(
                _: &mut ::autodiff::__adjoint::Stack,
                _: ::core::option::Option<::autodiff::__adjoint::NotDifferentiable>,
            ) -> f64 {
                loop {}
            }
        }
    }
    use not_differentiable::*;
    stack.observe(&w);
    stack.observe(&x);
    stack.observe(&b);
    if !stack.finite() {
        return ::core::option::Option::None;
    }
    let affine_value = ::autodiff::__adjoint::scalar_of(
        ({
            use self::*;
            affine::__forward
        })(stack, ::autodiff::__adjoint::args((w, x, b))),
        stack,
    );
    let value = affine_value;
    let z = value;
    let z_relu = relu(z);
    let z_sigmoid = sigmoid(z);
    let affine_value_2 = ::autodiff::__adjoint::scalar_of(
        ({
            use self::*;
            affine::__forward
        })(stack, ::autodiff::__adjoint::args((2.0, x, 1.0))),
        stack,
    );
    stack.observe_operand_of(z, ::autodiff::ScalarOperation::Relu);
    stack.observe_operand_of(z, ::autodiff::ScalarOperation::Sigmoid);
    stack.observe_infinite(z_relu);
    stack.observe_infinite(z_sigmoid);
    let value = z_relu.max(z_sigmoid) + affine_value_2 + affine(2.0, 3.0, 1.0);
    let value: f64 = value;
    let mut w_bar = ::autodiff::__adjoint::zero(&w);
    let mut x_bar = ::autodiff::__adjoint::zero(&x);
    let mut b_bar = ::autodiff::__adjoint::zero(&b);
    let value_bar = 1.0;
    let mut z_bar = ::autodiff::__adjoint::zero(&z);
    ({
        use self::*;
        affine::__reverse
    })(
        stack,
        ::autodiff::__adjoint::args((2.0, x, 1.0)),
        value_bar,
        ::autodiff::__adjoint::args((
            &mut ::autodiff::__adjoint::zero(&(2.0)),
            &mut x_bar,
            &mut ::autodiff::__adjoint::zero(&(1.0)),
        )),
    );
    let partials = ::autodiff::__adjoint::rules::max_partials(z_relu, z_sigmoid);
    let z_sigmoid_bar = value_bar * partials.1;
    z_bar += z_sigmoid_bar * ::autodiff::__adjoint::rules::sigmoid_partial(z);
    let z_relu_bar = value_bar * partials.0;
    z_bar += z_relu_bar * ::autodiff::__adjoint::rules::relu_partial(z);
    ({
        use self::*;
        affine::__reverse
    })(
        stack,
        ::autodiff::__adjoint::args((w, x, b)),
        z_bar,
        ::autodiff::__adjoint::args((&mut w_bar, &mut x_bar, &mut b_bar)),
    );
    stack.observe(value);
    stack.observe(&w_bar);
    stack.observe(&x_bar);
    stack.observe(&b_bar);
    stack
        .finite()
        .then_some(::autodiff::ValueAndGradient {
            value: value,
            gradient: (w_bar, x_bar, b_bar),
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
    unused_imports,
    dead_code,
    non_camel_case_types,
    unreachable_pub,
    clippy::all,
    clippy::pedantic
)]
#[inline]
fn neuron_adjoint_dual(
    stack: &mut ::autodiff::__adjoint::DualStack,
    w: ::autodiff::Dual,
    x: ::autodiff::Dual,
    b: ::autodiff::Dual,
) -> ::core::option::Option<
    ::autodiff::ValueAndGradient<
        (::autodiff::Dual, ::autodiff::Dual, ::autodiff::Dual),
        ::autodiff::Dual,
    >,
> {
    use ::autodiff::__adjoint::{
        dual_activations::{relu, sigmoid},
        NoDualSweep as _,
    };
    mod not_differentiable {
        pub struct affine {}
        impl affine {
            pub fn __reverse_dual(
                _: &mut ::autodiff::__adjoint::DualStack,
                _: ::autodiff::Dual,
                _: ::core::option::Option<::autodiff::__adjoint::NotDifferentiable>,
            ) {
                loop {}
            }
            pub fn __forward_dual(
                _: &mut ::autodiff::__adjoint::DualStack,
                _: ::core::option::Option<::autodiff::__adjoint::NotDifferentiable>,
            ) -> ::autodiff::Dual {
                loop {}
            }
        }
    }
    use not_differentiable::*;
    let affine_value = ({
        use self::*;
        affine::__forward_dual
    })(stack, ::autodiff::__adjoint::args((w, x, b)));
    let value = affine_value;
    let z = ::autodiff::__adjoint::dual(value);
    let z_relu = relu(z);
    let z_sigmoid = sigmoid(z);
    let affine_value_2 = ({
        use self::*;
        affine::__forward_dual
    })(stack, ::autodiff::__adjoint::args((2.0, x, 1.0)));
    stack.observe_operand_of(z, ::autodiff::ScalarOperation::Relu);
    stack.observe_operand_of(z, ::autodiff::ScalarOperation::Sigmoid);
    stack.observe_infinite(z_relu);
    stack.observe_infinite(z_sigmoid);
    let value = ::autodiff::__adjoint::dual(
        z_relu.max(z_sigmoid) + affine_value_2 + affine(2.0, 3.0, 1.0),
    );
    let value: ::autodiff::Dual = ::autodiff::__adjoint::dual(value);
    if !stack.reverses() {
        return stack.value_only(value);
    }
    let mut w_bar = ::autodiff::__adjoint::zero(&w);
    let mut x_bar = ::autodiff::__adjoint::zero(&x);
    let mut b_bar = ::autodiff::__adjoint::zero(&b);
    let value_bar = ::autodiff::Dual::constant(1.0);
    let mut z_bar = ::autodiff::__adjoint::zero(&z);
    ({
        use self::*;
        affine::__reverse_dual
    })(
        stack,
        value_bar,
        ::autodiff::__adjoint::args((
            &mut ::autodiff::__adjoint::dual_zero(&(2.0)),
            &mut x_bar,
            &mut ::autodiff::__adjoint::dual_zero(&(1.0)),
        )),
    );
    let partials = ::autodiff::__adjoint::dual_rules::max_partials(z_relu, z_sigmoid);
    let z_sigmoid_bar = value_bar * partials.1;
    z_bar += z_sigmoid_bar * ::autodiff::__adjoint::dual_rules::sigmoid_partial(z);
    let z_relu_bar = value_bar * partials.0;
    z_bar += z_relu_bar * ::autodiff::__adjoint::dual_rules::relu_partial(z);
    ({
        use self::*;
        affine::__reverse_dual
    })(stack, z_bar, ::autodiff::__adjoint::args((&mut w_bar, &mut x_bar, &mut b_bar)));
    stack.observe(value);
    stack
        .finite()
        .then_some(::autodiff::ValueAndGradient {
            value: value,
            gradient: (w_bar, x_bar, b_bar),
        })
}
#[doc(hidden)]
#[allow(clippy::too_many_arguments)]
fn neuron_grad_tape_on(
    tape: &mut ::autodiff::Tape,
    w: f64,
    x: f64,
    b: f64,
) -> ::core::result::Result<
    ::autodiff::ValueAndGradient<(f64, f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    use ::autodiff::__private as __ad;
    tape.clear();
    let tape = &*tape;
    let w_var = __ad::variables(tape, &w, __ad::at("w", 3));
    let x_var = __ad::variables(tape, &x, __ad::at("x", 3));
    let b_var = __ad::variables(tape, &b, __ad::at("b", 3));
    if let ::core::option::Option::Some(error) = __ad::refused(tape) {
        return ::core::result::Result::Err(error);
    }
    match __ad::finish(neuron_tape(tape, w_var, x_var, b_var)) {
        ::core::result::Result::Ok(value) => {
            ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                value: value,
                gradient: (
                    __ad::gradient(&w, &w_var),
                    __ad::gradient(&x, &x_var),
                    __ad::gradient(&b, &b_var),
                ),
            })
        }
        ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
    }
}
/// Checks [`neuron_grad`] against central differences of [`neuron`] in every component, with the default step and tolerance.
fn neuron_check(
    w: f64,
    x: f64,
    b: f64,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    neuron_check_with(
        ::core::option::Option::None,
        ::autodiff::DEFAULT_TOLERANCE,
        w,
        x,
        b,
    )
}
/// Checks [`neuron_grad`] against central differences of [`neuron`] in every component; `step: None` uses `default_step` of each input.
#[allow(clippy::too_many_arguments)]
fn neuron_check_with(
    step: ::core::option::Option<f64>,
    tolerance: f64,
    w: f64,
    x: f64,
    b: f64,
) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
    use ::autodiff::__private as __ad;
    let mut inputs = ::std::vec::Vec::new();
    __ad::components(&w, &mut inputs);
    __ad::components(&x, &mut inputs);
    __ad::components(&b, &mut inputs);
    let reverse = match neuron_grad(__ad::dup(&w), __ad::dup(&x), __ad::dup(&b)) {
        ::core::result::Result::Ok(reverse) => reverse,
        ::core::result::Result::Err(error) => return __ad::unchecked(error),
    };
    let mut analytic = ::std::vec::Vec::new();
    __ad::gradient_components(&w, &reverse.gradient.0, &mut analytic);
    __ad::gradient_components(&x, &reverse.gradient.1, &mut analytic);
    __ad::gradient_components(&b, &reverse.gradient.2, &mut analytic);
    __ad::gradient_check(
        &inputs,
        &analytic,
        step,
        tolerance,
        |point| {
            let mut rest = point;
            let w = __ad::rebuild(&w, &mut rest);
            let x = __ad::rebuild(&x, &mut rest);
            let b = __ad::rebuild(&b, &mut rest);
            neuron(w, x, b)
        },
    )
}
#[doc(hidden)]
#[allow(clippy::type_complexity)]
impl<'a> ::autodiff::__private::SecondOrder<'a> for neuron {
    type Args = (f64, f64, f64);
    type Params = (&'a f64, &'a f64, &'a f64);
    type Gradient = (f64, f64, f64);
    type Duals = (::autodiff::Dual, ::autodiff::Dual, ::autodiff::Dual);
    #[inline]
    fn dual(
        args: &Self::Args,
        stack: &mut ::autodiff::__adjoint::DualStack,
        along: &Self::Gradient,
    ) -> ::core::option::Option<
        ::autodiff::ValueAndGradient<Self::Duals, ::autodiff::Dual>,
    > {
        neuron_adjoint_dual(
            stack,
            ::autodiff::__adjoint::lift(&args.0, &along.0)?,
            ::autodiff::__adjoint::lift(&args.1, &along.1)?,
            ::autodiff::__adjoint::lift(&args.2, &along.2)?,
        )
    }
    #[inline]
    fn params(args: &'a Self::Args) -> (Self::Params, &'static [&'static str]) {
        ((&args.0, &args.1, &args.2), &["w", "x", "b"])
    }
    fn tape(
        args: &Self::Args,
        tape: &mut ::autodiff::Tape,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self::Gradient>,
        ::autodiff::ScalarAutodiffError,
    > {
        neuron_grad_tape_on(tape, args.0, args.1, args.2)
    }
}
/// Forward mode: the value of [`neuron`] and its derivative along `tangent` (∇neuron · tangent), `tangent` shaped like the gradient of [`neuron_grad`]. The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
#[inline]
#[allow(clippy::too_many_arguments)]
fn neuron_jvp(
    w: f64,
    x: f64,
    b: f64,
    tangent: (f64, f64, f64),
) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
    <neuron as ::autodiff::__private::SecondOrder<'_>>::jvp(&(w, x, b), tangent)
}
/// The value of [`neuron`], its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
#[inline]
#[allow(clippy::too_many_arguments)]
fn neuron_hvp(
    w: f64,
    x: f64,
    b: f64,
    direction: (f64, f64, f64),
) -> ::core::result::Result<
    ::autodiff::Hvp<(f64, f64, f64)>,
    ::autodiff::ScalarAutodiffError,
> {
    <neuron as ::autodiff::__private::SecondOrder<'_>>::hvp(&(w, x, b), direction)
}
/// The dense Hessian of [`neuron`] over its differentiable components, in the order `neuron_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
#[inline]
#[allow(clippy::too_many_arguments)]
fn neuron_hessian(
    w: f64,
    x: f64,
    b: f64,
) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
    <neuron as ::autodiff::__private::SecondOrder<'_>>::hessian(&(w, x, b))
}
