/// Methods and an associated function: `Self::` paths between siblings.
impl Neuron {
    #[allow(dead_code)]
    fn forward(&self, x: f64) -> f64 {
        (self.w * x + self.b).tanh()
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[allow(
        clippy::too_many_arguments,
        unused_variables,
        unused_mut,
        unused_assignments
    )]
    fn __ad_forward_tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        __self: &<Self as ::autodiff::__private::Parameter>::Variables<'tape>,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        use ::autodiff::__private as __ad;
        let __entry = __ad::enter(tape);
        let __nested = __entry.nested();
        ::autodiff::__probe!(tape, "self", __self);
        let __output: ::autodiff::Scalar<'tape> = {
            __ad::output(
                tape,
                __nested,
                __ad::tanh(
                    __ad::add(
                        __ad::mul(__self.w, x, __ad::at("self.w * x", 6)),
                        __self.b,
                        __ad::at("self.w * x + self.b", 6),
                    ),
                    __ad::at("(self.w * x + self.b).tanh()", 6),
                ),
                __ad::at("(self.w * x + self.b).tanh()", 6),
            )
        };
        __ad::leave(tape, __entry, __output)
    }
    /// Records [`forward`](Self::forward) on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
    #[allow(
        clippy::too_many_arguments,
        unused_variables,
        unused_mut,
        unused_assignments
    )]
    fn forward_tape<'tape>(
        &self,
        tape: &'tape ::autodiff::Tape,
        __self: &<Self as ::autodiff::__private::Parameter>::Variables<'tape>,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        let _ = self;
        Self::__ad_forward_tape(tape, __self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_forward_grad(
        __self: &Self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        match Self::__ad_forward_adjoint(
            &mut ::autodiff::__adjoint::Scratch::take(),
            __self,
            x,
        ) {
            ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
            ::core::option::Option::None => {
                ::autodiff::__adjoint::rerun_on_tape();
                Self::__ad_forward_grad_tape(__self, x)
            }
        }
    }
    /// The value of [`forward`](Self::forward) and its exact gradient with respect to every differentiable parameter.
    ///
    /// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
    fn forward_grad(
        &self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_forward_grad(self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[allow(clippy::too_many_arguments)]
    fn __ad_forward_grad_on(
        tape: &mut ::autodiff::Tape,
        __self: &Self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        match Self::__ad_forward_adjoint(
            &mut ::autodiff::__adjoint::Scratch::take(),
            __self,
            x,
        ) {
            ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
            ::core::option::Option::None => {
                ::autodiff::__adjoint::rerun_on_tape();
                Self::__ad_forward_grad_tape_on(tape, __self, x)
            }
        }
    }
    /// [`forward_grad`](Self::forward_grad) with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
    ///
    /// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
    #[allow(clippy::too_many_arguments)]
    fn forward_grad_on(
        &self,
        tape: &mut ::autodiff::Tape,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_forward_grad_on(tape, self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    const fn __ad_forward_grad_path() -> ::autodiff::GradientPath {
        ::autodiff::GradientPath::Compiled
    }
    /// Which computation [`forward_grad`](Self::forward_grad) runs: the compiled adjoint, or the tape and the construct that keeps it there.
    fn forward_grad_path(&self) -> ::autodiff::GradientPath {
        Self::__ad_forward_grad_path()
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_forward_grad_tape(
        __self: &Self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_forward_grad_tape_on(&mut ::autodiff::Tape::new(), __self, x)
    }
    /// [`forward_grad`](Self::forward_grad) by one reverse pass over [`forward_tape`](Self::forward_tape): the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
    fn forward_grad_tape(
        &self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_forward_grad_tape(self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
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
    fn __ad_forward_adjoint(
        stack: &mut ::autodiff::__adjoint::Stack,
        __self: &Self,
        x: f64,
    ) -> ::core::option::Option<::autodiff::ValueAndGradient<Self>> {
        stack
            .observe_operand_of(
                (__self.w * x + __self.b),
                ::autodiff::ScalarOperation::Tanh,
            );
        let value = (__self.w * x + __self.b).tanh();
        let value: f64 = value;
        let mut __self_bar = <Self as ::autodiff::__private::Parameter>::zero_owned(
            __self,
        );
        let value_bar = 1.0;
        let sum_bar = value_bar
            * ::autodiff::__adjoint::rules::tanh_partial(((__self.w * x + __self.b)));
        __self_bar.b += sum_bar;
        __self_bar.w += sum_bar * x;
        stack.observe(value);
        let __self_bar = stack
            .checked({
                let bar = __self_bar;
                <Self as ::autodiff::__private::Parameter>::carry_gradient(__self, bar)
            });
        stack
            .finite()
            .then_some(::autodiff::ValueAndGradient {
                value: value,
                gradient: __self_bar,
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
    fn forward_adjoint(
        &self,
        stack: &mut ::autodiff::__adjoint::Stack,
        x: f64,
    ) -> ::core::option::Option<::autodiff::ValueAndGradient<Self>> {
        Self::__ad_forward_adjoint(stack, self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
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
    fn __ad_forward_adjoint_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        __self: &<Self as ::autodiff::__private::Parameter>::Duals,
        x: f64,
    ) -> ::core::option::Option<
        ::autodiff::ValueAndGradient<
            <Self as ::autodiff::__private::Parameter>::Duals,
            ::autodiff::Dual,
        >,
    > {
        stack
            .observe_operand_of(
                (__self.w * x + __self.b),
                ::autodiff::ScalarOperation::Tanh,
            );
        let value = ::autodiff::__adjoint::dual((__self.w * x + __self.b).tanh());
        let value: ::autodiff::Dual = ::autodiff::__adjoint::dual(value);
        if !stack.reverses() {
            stack.observe(value);
            if !stack.finite() {
                return ::core::option::Option::None;
            }
            return ::core::option::Option::Some(::autodiff::ValueAndGradient {
                value: value,
                gradient: <Self as ::autodiff::__private::Parameter>::zero_duals(__self),
            });
        }
        let mut __self_bar = <Self as ::autodiff::__private::Parameter>::zero_duals(
            __self,
        );
        let value_bar = ::autodiff::Dual::constant(1.0);
        let sum_bar = value_bar
            * ::autodiff::__adjoint::dual_rules::tanh_partial(
                ((__self.w * x + __self.b)),
            );
        __self_bar.b += sum_bar;
        __self_bar.w += sum_bar * x;
        stack.observe(value);
        if stack.finite() {
            ::core::option::Option::Some(::autodiff::ValueAndGradient {
                value: value,
                gradient: __self_bar,
            })
        } else {
            ::core::option::Option::None
        }
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[allow(clippy::too_many_arguments)]
    fn __ad_forward_grad_tape_on(
        tape: &mut ::autodiff::Tape,
        __self: &Self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        use ::autodiff::__private as __ad;
        tape.clear();
        let tape = &*tape;
        let __self_var = match __ad::first(
            tape,
            <Self as __ad::Parameter>::record(__self, tape, __ad::at("self", 5)),
        ) {
            ::core::result::Result::Ok(recorded) => recorded,
            ::core::result::Result::Err(error) => {
                return ::core::result::Result::Err(error);
            }
        };
        if let ::core::option::Option::Some(error) = __ad::refused(tape) {
            return ::core::result::Result::Err(error);
        }
        match __ad::finish(Self::__ad_forward_tape(tape, &__self_var, x)) {
            ::core::result::Result::Ok(value) => {
                ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                    value: value,
                    gradient: <Self as __ad::Parameter>::gradient(&__self_var),
                })
            }
            ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
        }
    }
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn forward_grad_tape_on(
        &self,
        tape: &mut ::autodiff::Tape,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_forward_grad_tape_on(tape, self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_forward_forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(&Self, f64)>,
    ) -> f64 {
        let ::core::option::Option::Some((__self, x)) = args else {
            return {
                stack.fail();
                ::autodiff::__adjoint::Poisoned::poisoned()
            };
        };
        if !stack.finite() {
            stack.push_reverse(::core::option::Option::None::<()>);
            Self::forward(__self, x)
        } else {
            match Self::__ad_forward_cotangent_dot_adjoint(stack, (__self, x)) {
                ::core::option::Option::Some((value, reverse)) => {
                    stack.push_reverse(::core::option::Option::Some(reverse));
                    stack.observe(&value);
                    value
                }
                ::core::option::Option::None => {
                    stack.push_reverse(::core::option::Option::None::<()>);
                    stack.fail();
                    Self::forward(__self, x)
                }
            }
        }
    }
    #[doc(hidden)]
    fn forward_forward(
        &self,
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(&Self, f64)>,
    ) -> f64 {
        Self::__ad_forward_forward(stack, args)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_forward_reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(&Self, f64)>,
        value_bar: impl ::autodiff::__adjoint::Cotangent<f64>,
        bars: ::core::option::Option<(&mut Self, &mut dyn ::core::any::Any)>,
    ) {
        let unused = stack.take_unused();
        let reverse = stack
            .pop_reverse(|stack, args| Self::__ad_forward_cotangent_dot_adjoint(
                stack,
                args,
            ));
        let (
            ::core::option::Option::Some((__self, x)),
            ::core::option::Option::Some((__self_bar, _)),
        ) = (args, bars) else {
            return stack.fail();
        };
        let ::core::option::Option::Some(cotangent) = ::autodiff::__adjoint::Cotangent::cotangent_ref(
            &value_bar,
        ) else {
            return stack.fail();
        };
        let ::core::option::Option::Some(reverse) = reverse else {
            return;
        };
        if reverse(stack, (__self, x), cotangent, (__self_bar,), unused).is_none() {
            stack.fail();
        }
    }
    #[doc(hidden)]
    fn forward_reverse(
        &self,
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(&Self, f64)>,
        value_bar: impl ::autodiff::__adjoint::Cotangent<f64>,
        bars: ::core::option::Option<(&mut Self, &mut dyn ::core::any::Any)>,
    ) {
        Self::__ad_forward_reverse(stack, args, value_bar, bars)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
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
    fn __ad_forward_cotangent_dot_adjoint(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: (&Self, f64),
    ) -> ::core::option::Option<
        (
            f64,
            impl ::core::ops::FnOnce(
                &mut ::autodiff::__adjoint::Stack,
                (&Self, f64),
                &f64,
                (&mut Self,),
                u32,
            ) -> ::core::option::Option<()> + use<>,
        ),
    > {
        let (__self, x) = args;
        let __cotangent = ::autodiff::__adjoint::NoCotangent;
        if !stack.finite() {
            return ::core::option::Option::None;
        }
        stack
            .observe_operand_of(
                (__self.w * x + __self.b),
                ::autodiff::ScalarOperation::Tanh,
            );
        let value = (__self.w * x + __self.b).tanh();
        let __output: f64 = value;
        let mut __dot = 0.0;
        __dot += __cotangent * __output;
        let value: f64 = __dot;
        let returned = __output;
        ::core::option::Option::Some((
            returned,
            move |
                stack: &mut ::autodiff::__adjoint::Stack,
                (__self, x): (&Self, f64),
                __cotangent: &f64,
                (__caller___self,): (&mut Self,),
                unused: u32|
            {
                let mut __self_bar = {
                    let bar = &mut *__caller___self;
                    <Self as ::autodiff::__private::Parameter>::lend_bar(bar)
                };
                let value_bar = 1.0;
                let reversed = 'reverse: {
                    let mut __output_bar = 0.0;
                    let mut __dot_bar = 0.0;
                    __dot_bar += value_bar;
                    __output_bar += __dot_bar * __cotangent;
                    stack.observe(&__dot_bar);
                    let sum_bar = __output_bar
                        * ::autodiff::__adjoint::rules::tanh_partial(
                            ((__self.w * x + __self.b)),
                        );
                    __self_bar.b += sum_bar;
                    __self_bar.w += sum_bar * x;
                    ::core::option::Option::Some(())
                };
                stack.observe(value);
                stack
                    .checked((
                        (),
                        {
                            let bar = &__self_bar;
                            <Self as ::autodiff::__private::Parameter>::finite_with_bar(
                                __self,
                                bar,
                            )
                        },
                    ));
                ::autodiff::__adjoint::give_back_model(__caller___self, __self_bar);
                reversed.and(stack.finite().then_some(()))
            },
        ))
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
    fn forward_cotangent_dot_adjoint(
        &self,
        stack: &mut ::autodiff::__adjoint::Stack,
        args: (&Self, f64),
    ) -> ::core::option::Option<
        (
            f64,
            impl ::core::ops::FnOnce(
                &mut ::autodiff::__adjoint::Stack,
                (&Self, f64),
                &f64,
                (&mut Self,),
                u32,
            ) -> ::core::option::Option<()> + use<>,
        ),
    > {
        Self::__ad_forward_cotangent_dot_adjoint(stack, args)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_forward_check(
        __self: &Self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        Self::__ad_forward_check_with(
            ::core::option::Option::None,
            ::autodiff::DEFAULT_TOLERANCE,
            __self,
            x,
        )
    }
    /// Checks [`forward_grad`](Self::forward_grad) against central differences of [`forward`](Self::forward) in every component, with the default step and tolerance.
    fn forward_check(
        &self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        Self::__ad_forward_check(self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[allow(clippy::too_many_arguments)]
    fn __ad_forward_check_with(
        step: ::core::option::Option<f64>,
        tolerance: f64,
        __self: &Self,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        use ::autodiff::__private as __ad;
        let mut inputs = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::components(__self, &mut inputs);
        let reverse = match Self::__ad_forward_grad(__ad::dup(&__self), __ad::dup(&x)) {
            ::core::result::Result::Ok(reverse) => reverse,
            ::core::result::Result::Err(error) => return __ad::unchecked(error),
        };
        let mut analytic = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::components(&reverse.gradient, &mut analytic);
        __ad::gradient_check(
            &inputs,
            &analytic,
            step,
            tolerance,
            |point| {
                let mut rest = point;
                let __self = <Self as __ad::Parameter>::rebuild(__self, &mut rest);
                Self::forward(&__self, __ad::dup(&x))
            },
        )
    }
    /// Checks [`forward_grad`](Self::forward_grad) against central differences of [`forward`](Self::forward) in every component; `step: None` uses `default_step` of each input.
    #[allow(clippy::too_many_arguments)]
    fn forward_check_with(
        &self,
        step: ::core::option::Option<f64>,
        tolerance: f64,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        Self::__ad_forward_check_with(step, tolerance, self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn __ad_forward_jvp(
        __self: &Self,
        x: f64,
        tangent: Self,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        if let (::core::option::Option::Some(lifted_0),) = (
            <Self as ::autodiff::__private::Parameter>::lift_duals(
                __self,
                {
                    let __along: &Self = &tangent;
                    __along
                },
            ),
        ) {
            let stack = &mut ::autodiff::__adjoint::DualStack::forward_only();
            if let ::core::option::Option::Some(result) = Self::__ad_forward_adjoint_dual(
                stack,
                &lifted_0,
                x,
            ) {
                if let ::core::option::Option::Some(answer) = ::autodiff::__private::compiled_jvp(
                    result,
                ) {
                    return ::core::result::Result::Ok(answer);
                }
            }
        }
        {
            use ::autodiff::__private as __ad;
            let mut flat = ::std::vec::Vec::new();
            <Self as __ad::Parameter>::model_direction(
                __self,
                &tangent,
                "self",
                &mut flat,
            )?;
        }
        Self::__ad_forward_jvp_tape(__self, x, tangent)
    }
    /// Forward mode: the value of [`forward`](Self::forward) and its derivative along `tangent` (∇forward · tangent), `tangent` shaped like the gradient of [`forward_grad`](Self::forward_grad). The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn forward_jvp(
        &self,
        x: f64,
        tangent: Self,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        Self::__ad_forward_jvp(self, x, tangent)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn __ad_forward_hvp(
        __self: &Self,
        x: f64,
        direction: Self,
    ) -> ::core::result::Result<::autodiff::Hvp<Self>, ::autodiff::ScalarAutodiffError> {
        if let (::core::option::Option::Some(lifted_0),) = (
            <Self as ::autodiff::__private::Parameter>::lift_duals(
                __self,
                {
                    let __along: &Self = &direction;
                    __along
                },
            ),
        ) {
            let stack = &mut ::autodiff::__adjoint::DualStack::new();
            if let ::core::option::Option::Some(result) = Self::__ad_forward_adjoint_dual(
                stack,
                &lifted_0,
                x,
            ) {
                if let ::core::option::Option::Some(answer) = (|| {
                    let (gradient_0, product_0) = <Self as ::autodiff::__private::Parameter>::split_model(
                        __self,
                        &result.gradient,
                    )?;
                    ::core::option::Option::Some((gradient_0, product_0))
                })()
                    .map(|(gradient, hvp)| {
                        ::autodiff::__adjoint::hvp_compiled();
                        ::autodiff::Hvp {
                            value: result.value.value,
                            gradient,
                            hvp,
                        }
                    })
                {
                    return ::core::result::Result::Ok(answer);
                }
            }
        }
        {
            use ::autodiff::__private as __ad;
            let mut flat = ::std::vec::Vec::new();
            <Self as __ad::Parameter>::model_direction(
                __self,
                &direction,
                "self",
                &mut flat,
            )?;
        }
        Self::__ad_forward_hvp_tape(__self, x, direction)
    }
    /// The value of [`forward`](Self::forward), its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn forward_hvp(
        &self,
        x: f64,
        direction: Self,
    ) -> ::core::result::Result<::autodiff::Hvp<Self>, ::autodiff::ScalarAutodiffError> {
        Self::__ad_forward_hvp(self, x, direction)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn __ad_forward_hessian(
        __self: &Self,
        x: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        use ::autodiff::__private as __ad;
        let stack = &mut ::autodiff::__adjoint::DualStack::new();
        let mut own = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::components(__self, &mut own);
        if let ::core::option::Option::Some(hessian) = __ad::compiled_hessian_flat(
            own.len(),
            |unit| {
                let direction = {
                    let mut rest = unit.as_slice();
                    <Self as __ad::Parameter>::gradient_from(__self, &mut rest)
                };
                let (::core::option::Option::Some(lifted_0),) = (
                    <Self as ::autodiff::__private::Parameter>::lift_duals(
                        __self,
                        {
                            let __along: &Self = &direction;
                            __along
                        },
                    ),
                ) else {
                    return ::core::option::Option::None;
                };
                let ::core::option::Option::Some(result) = Self::__ad_forward_adjoint_dual(
                    stack,
                    &lifted_0,
                    x,
                ) else {
                    return ::core::option::Option::None;
                };
                let (_, product) = (|| {
                    let (gradient_0, product_0) = <Self as ::autodiff::__private::Parameter>::split_model(
                        __self,
                        &result.gradient,
                    )?;
                    ::core::option::Option::Some((gradient_0, product_0))
                })()?;
                let mut out = ::std::vec::Vec::with_capacity(own.len());
                <Self as __ad::Parameter>::gradient_components(&product, &mut out);
                ::core::option::Option::Some(out)
            },
        ) {
            return ::core::result::Result::Ok(hessian);
        }
        Self::__ad_forward_hessian_tape(__self, x)
    }
    /// The dense Hessian of [`forward`](Self::forward) over its differentiable components, in the order `forward_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn forward_hessian(
        &self,
        x: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        Self::__ad_forward_hessian(self, x)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __ad_forward_jvp_tape(
        __self: &Self,
        x: f64,
        tangent: Self,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        use ::autodiff::__private as __ad;
        let mut flat = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::model_direction(__self, &tangent, "self", &mut flat)?;
        let tape = &mut __ad::second_order_tape();
        __ad::jvp(Self::__ad_forward_grad_tape_on(tape, __self, x), tape, &flat)
    }
    /// [`forward_jvp`](Self::forward_jvp) on the tape: the body recorded and the engine's passes run over it. `forward_jvp` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn forward_jvp_tape(
        &self,
        x: f64,
        tangent: Self,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        Self::__ad_forward_jvp_tape(self, x, tangent)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __ad_forward_hvp_tape(
        __self: &Self,
        x: f64,
        direction: Self,
    ) -> ::core::result::Result<::autodiff::Hvp<Self>, ::autodiff::ScalarAutodiffError> {
        use ::autodiff::__private as __ad;
        let mut flat = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::model_direction(
            __self,
            &direction,
            "self",
            &mut flat,
        )?;
        let tape = &mut __ad::second_order_tape();
        let pass = __ad::hvp(
            Self::__ad_forward_grad_tape_on(tape, __self, x),
            tape,
            &flat,
        )?;
        ::core::result::Result::Ok(::autodiff::Hvp {
            value: pass.value,
            gradient: {
                let mut rest = pass.gradient.as_slice();
                <Self as __ad::Parameter>::gradient_from(__self, &mut rest)
            },
            hvp: {
                let mut rest = pass.hvp.as_slice();
                <Self as __ad::Parameter>::gradient_from(__self, &mut rest)
            },
        })
    }
    /// [`forward_hvp`](Self::forward_hvp) on the tape: the body recorded and the engine's passes run over it. `forward_hvp` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn forward_hvp_tape(
        &self,
        x: f64,
        direction: Self,
    ) -> ::core::result::Result<::autodiff::Hvp<Self>, ::autodiff::ScalarAutodiffError> {
        Self::__ad_forward_hvp_tape(self, x, direction)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __ad_forward_hessian_tape(
        __self: &Self,
        x: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        let tape = &mut ::autodiff::__private::second_order_tape();
        ::autodiff::__private::hessian(
            Self::__ad_forward_grad_tape_on(tape, __self, x),
            tape,
        )
    }
    /// [`forward_hessian`](Self::forward_hessian) on the tape: the body recorded and the engine's passes run over it. `forward_hessian` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn forward_hessian_tape(
        &self,
        x: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        Self::__ad_forward_hessian_tape(self, x)
    }
    #[doc(hidden)]
    #[inline]
    #[allow(unused, clippy::all, clippy::pedantic)]
    #[doc(hidden)]
    fn forward_forward_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        args: ::core::option::Option<
            (&<Self as ::autodiff::__private::Parameter>::Duals, f64),
        >,
    ) -> ::autodiff::Dual {
        let ::core::option::Option::Some((__self, x)) = args else {
            return stack.failed();
        };
        match Self::__ad_forward_adjoint_dual(stack, __self, x) {
            ::core::option::Option::Some(result) => {
                <Self as ::autodiff::__private::Parameter>::push_duals(
                    &result.gradient,
                    stack,
                );
                result.value
            }
            ::core::option::Option::None => stack.failed(),
        }
    }
    #[doc(hidden)]
    #[inline]
    #[allow(unused, clippy::all, clippy::pedantic)]
    #[doc(hidden)]
    fn forward_reverse_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        value_bar: ::autodiff::Dual,
        bars: ::core::option::Option<
            (
                &mut <Self as ::autodiff::__private::Parameter>::Duals,
                &mut dyn ::core::any::Any,
            ),
        >,
    ) {
        let ::core::option::Option::Some((__self_bar, _)) = bars else {
            return stack.fail();
        };
        <Self as ::autodiff::__private::Parameter>::pop_duals(
            __self_bar,
            stack,
            value_bar,
        );
    }
    #[allow(dead_code)]
    fn loss(&self, x: f64, y: f64) -> f64 {
        let d = self.forward(x) - y;
        d * d
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[allow(
        clippy::too_many_arguments,
        unused_variables,
        unused_mut,
        unused_assignments
    )]
    fn __ad_loss_tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        __self: &<Self as ::autodiff::__private::Parameter>::Variables<'tape>,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        use ::autodiff::__private as __ad;
        let __entry = __ad::enter(tape);
        let __nested = __entry.nested();
        ::autodiff::__probe!(tape, "self", __self);
        let __output: ::autodiff::Scalar<'tape> = {
            let d = __ad::sub(
                {
                    let twin = &__self;
                    __ad::call(
                        tape,
                        __ad::model(twin).forward_tape(tape, twin, __ad::arg(tape, x)),
                    )
                },
                y,
                __ad::bound("d", 10),
            );
            __ad::output(
                tape,
                __nested,
                __ad::mul(d, d, __ad::at("d * d", 11)),
                __ad::at("d * d", 11),
            )
        };
        __ad::leave(tape, __entry, __output)
    }
    /// Records [`loss`](Self::loss) on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
    #[allow(
        clippy::too_many_arguments,
        unused_variables,
        unused_mut,
        unused_assignments
    )]
    fn loss_tape<'tape>(
        &self,
        tape: &'tape ::autodiff::Tape,
        __self: &<Self as ::autodiff::__private::Parameter>::Variables<'tape>,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        let _ = self;
        Self::__ad_loss_tape(tape, __self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_loss_grad(
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        match Self::__ad_loss_adjoint(
            &mut ::autodiff::__adjoint::Scratch::take(),
            __self,
            x,
            y,
        ) {
            ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
            ::core::option::Option::None => {
                ::autodiff::__adjoint::rerun_on_tape();
                Self::__ad_loss_grad_tape(__self, x, y)
            }
        }
    }
    /// The value of [`loss`](Self::loss) and its exact gradient with respect to every differentiable parameter.
    ///
    /// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
    fn loss_grad(
        &self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_loss_grad(self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[allow(clippy::too_many_arguments)]
    fn __ad_loss_grad_on(
        tape: &mut ::autodiff::Tape,
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        match Self::__ad_loss_adjoint(
            &mut ::autodiff::__adjoint::Scratch::take(),
            __self,
            x,
            y,
        ) {
            ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
            ::core::option::Option::None => {
                ::autodiff::__adjoint::rerun_on_tape();
                Self::__ad_loss_grad_tape_on(tape, __self, x, y)
            }
        }
    }
    /// [`loss_grad`](Self::loss_grad) with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
    ///
    /// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
    #[allow(clippy::too_many_arguments)]
    fn loss_grad_on(
        &self,
        tape: &mut ::autodiff::Tape,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_loss_grad_on(tape, self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    const fn __ad_loss_grad_path() -> ::autodiff::GradientPath {
        ::autodiff::GradientPath::Compiled
    }
    /// Which computation [`loss_grad`](Self::loss_grad) runs: the compiled adjoint, or the tape and the construct that keeps it there.
    fn loss_grad_path(&self) -> ::autodiff::GradientPath {
        Self::__ad_loss_grad_path()
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_loss_grad_tape(
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_loss_grad_tape_on(&mut ::autodiff::Tape::new(), __self, x, y)
    }
    /// [`loss_grad`](Self::loss_grad) by one reverse pass over [`loss_tape`](Self::loss_tape): the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
    fn loss_grad_tape(
        &self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_loss_grad_tape(self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
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
    fn __ad_loss_adjoint(
        stack: &mut ::autodiff::__adjoint::Stack,
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::option::Option<::autodiff::ValueAndGradient<Self>> {
        let forward_value = ::autodiff::__adjoint::scalar_of(
            __self.forward_forward(stack, ::autodiff::__adjoint::args((&__self, x))),
            stack,
        );
        let value = forward_value - y;
        let d = value;
        let value: f64 = d * d;
        let mut __self_bar = <Self as ::autodiff::__private::Parameter>::zero_owned(
            __self,
        );
        let value_bar = 1.0;
        let mut d_bar = 0.0;
        d_bar += value_bar * d;
        d_bar += value_bar * d;
        __self
            .forward_reverse(
                stack,
                ::autodiff::__adjoint::args((&__self, x)),
                d_bar,
                ::autodiff::__adjoint::args((
                    &mut __self_bar,
                    &mut ::autodiff::__adjoint::zero(&(x)),
                )),
            );
        stack.observe(value);
        let __self_bar = stack
            .checked({
                let bar = __self_bar;
                <Self as ::autodiff::__private::Parameter>::carry_gradient(__self, bar)
            });
        stack
            .finite()
            .then_some(::autodiff::ValueAndGradient {
                value: value,
                gradient: __self_bar,
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
    fn loss_adjoint(
        &self,
        stack: &mut ::autodiff::__adjoint::Stack,
        x: f64,
        y: f64,
    ) -> ::core::option::Option<::autodiff::ValueAndGradient<Self>> {
        Self::__ad_loss_adjoint(stack, self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
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
    fn __ad_loss_adjoint_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        __self: &<Self as ::autodiff::__private::Parameter>::Duals,
        x: f64,
        y: f64,
    ) -> ::core::option::Option<
        ::autodiff::ValueAndGradient<
            <Self as ::autodiff::__private::Parameter>::Duals,
            ::autodiff::Dual,
        >,
    > {
        let forward_value = <Self>::forward_forward_dual(
            stack,
            ::autodiff::__adjoint::args((__self, x)),
        );
        let value = forward_value - y;
        let d = ::autodiff::__adjoint::dual(value);
        let value: ::autodiff::Dual = ::autodiff::__adjoint::dual(d * d);
        if !stack.reverses() {
            stack.observe(value);
            if !stack.finite() {
                return ::core::option::Option::None;
            }
            return ::core::option::Option::Some(::autodiff::ValueAndGradient {
                value: value,
                gradient: <Self as ::autodiff::__private::Parameter>::zero_duals(__self),
            });
        }
        let mut __self_bar = <Self as ::autodiff::__private::Parameter>::zero_duals(
            __self,
        );
        let value_bar = ::autodiff::Dual::constant(1.0);
        let mut d_bar = ::autodiff::Dual::constant(0.0);
        d_bar += value_bar * d;
        d_bar += value_bar * d;
        <Self>::forward_reverse_dual(
            stack,
            d_bar,
            ::autodiff::__adjoint::args((
                &mut __self_bar,
                &mut ::autodiff::__adjoint::dual_zero(&(x)),
            )),
        );
        stack.observe(value);
        if stack.finite() {
            ::core::option::Option::Some(::autodiff::ValueAndGradient {
                value: value,
                gradient: __self_bar,
            })
        } else {
            ::core::option::Option::None
        }
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[allow(clippy::too_many_arguments)]
    fn __ad_loss_grad_tape_on(
        tape: &mut ::autodiff::Tape,
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        use ::autodiff::__private as __ad;
        tape.clear();
        let tape = &*tape;
        let __self_var = match __ad::first(
            tape,
            <Self as __ad::Parameter>::record(__self, tape, __ad::at("self", 9)),
        ) {
            ::core::result::Result::Ok(recorded) => recorded,
            ::core::result::Result::Err(error) => {
                return ::core::result::Result::Err(error);
            }
        };
        if let ::core::option::Option::Some(error) = __ad::refused(tape) {
            return ::core::result::Result::Err(error);
        }
        match __ad::finish(Self::__ad_loss_tape(tape, &__self_var, x, y)) {
            ::core::result::Result::Ok(value) => {
                ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                    value: value,
                    gradient: <Self as __ad::Parameter>::gradient(&__self_var),
                })
            }
            ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
        }
    }
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn loss_grad_tape_on(
        &self,
        tape: &mut ::autodiff::Tape,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<Self>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::__ad_loss_grad_tape_on(tape, self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_loss_forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(&Self, f64, f64)>,
    ) -> f64 {
        let ::core::option::Option::Some((__self, x, y)) = args else {
            return {
                stack.fail();
                ::autodiff::__adjoint::Poisoned::poisoned()
            };
        };
        if !stack.finite() {
            stack.push_reverse(::core::option::Option::None::<()>);
            Self::loss(__self, x, y)
        } else {
            match Self::__ad_loss_cotangent_dot_adjoint(stack, (__self, x, y)) {
                ::core::option::Option::Some((value, reverse)) => {
                    stack.push_reverse(::core::option::Option::Some(reverse));
                    stack.observe(&value);
                    value
                }
                ::core::option::Option::None => {
                    stack.push_reverse(::core::option::Option::None::<()>);
                    stack.fail();
                    Self::loss(__self, x, y)
                }
            }
        }
    }
    #[doc(hidden)]
    fn loss_forward(
        &self,
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(&Self, f64, f64)>,
    ) -> f64 {
        Self::__ad_loss_forward(stack, args)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_loss_reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(&Self, f64, f64)>,
        value_bar: impl ::autodiff::__adjoint::Cotangent<f64>,
        bars: ::core::option::Option<
            (&mut Self, &mut dyn ::core::any::Any, &mut dyn ::core::any::Any),
        >,
    ) {
        let unused = stack.take_unused();
        let reverse = stack
            .pop_reverse(|stack, args| Self::__ad_loss_cotangent_dot_adjoint(
                stack,
                args,
            ));
        let (
            ::core::option::Option::Some((__self, x, y)),
            ::core::option::Option::Some((__self_bar, _, _)),
        ) = (args, bars) else {
            return stack.fail();
        };
        let ::core::option::Option::Some(cotangent) = ::autodiff::__adjoint::Cotangent::cotangent_ref(
            &value_bar,
        ) else {
            return stack.fail();
        };
        let ::core::option::Option::Some(reverse) = reverse else {
            return;
        };
        if reverse(stack, (__self, x, y), cotangent, (__self_bar,), unused).is_none() {
            stack.fail();
        }
    }
    #[doc(hidden)]
    fn loss_reverse(
        &self,
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(&Self, f64, f64)>,
        value_bar: impl ::autodiff::__adjoint::Cotangent<f64>,
        bars: ::core::option::Option<
            (&mut Self, &mut dyn ::core::any::Any, &mut dyn ::core::any::Any),
        >,
    ) {
        Self::__ad_loss_reverse(stack, args, value_bar, bars)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
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
    fn __ad_loss_cotangent_dot_adjoint(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: (&Self, f64, f64),
    ) -> ::core::option::Option<
        (
            f64,
            impl ::core::ops::FnOnce(
                &mut ::autodiff::__adjoint::Stack,
                (&Self, f64, f64),
                &f64,
                (&mut Self,),
                u32,
            ) -> ::core::option::Option<()> + use<>,
        ),
    > {
        let (__self, x, y) = args;
        let __cotangent = ::autodiff::__adjoint::NoCotangent;
        if !stack.finite() {
            return ::core::option::Option::None;
        }
        let forward_value = ::autodiff::__adjoint::scalar_of(
            __self.forward_forward(stack, ::autodiff::__adjoint::args((&__self, x))),
            stack,
        );
        let value = forward_value - y;
        let d = value;
        let __output: f64 = d * d;
        let mut __dot = 0.0;
        __dot += __cotangent * __output;
        let value: f64 = __dot;
        let returned = __output;
        ::core::option::Option::Some((
            returned,
            move |
                stack: &mut ::autodiff::__adjoint::Stack,
                (__self, x, y): (&Self, f64, f64),
                __cotangent: &f64,
                (__caller___self,): (&mut Self,),
                unused: u32|
            {
                let mut __self_bar = {
                    let bar = &mut *__caller___self;
                    <Self as ::autodiff::__private::Parameter>::lend_bar(bar)
                };
                let value_bar = 1.0;
                let reversed = 'reverse: {
                    let mut d_bar = 0.0;
                    let mut __output_bar = 0.0;
                    let mut __dot_bar = 0.0;
                    __dot_bar += value_bar;
                    __output_bar += __dot_bar * __cotangent;
                    stack.observe(&__dot_bar);
                    d_bar += __output_bar * d;
                    d_bar += __output_bar * d;
                    __self
                        .forward_reverse(
                            stack,
                            ::autodiff::__adjoint::args((&__self, x)),
                            d_bar,
                            ::autodiff::__adjoint::args((
                                &mut __self_bar,
                                &mut ::autodiff::__adjoint::zero(&(x)),
                            )),
                        );
                    ::core::option::Option::Some(())
                };
                stack.observe(value);
                stack
                    .checked((
                        (),
                        {
                            let bar = &__self_bar;
                            <Self as ::autodiff::__private::Parameter>::finite_with_bar(
                                __self,
                                bar,
                            )
                        },
                    ));
                ::autodiff::__adjoint::give_back_model(__caller___self, __self_bar);
                reversed.and(stack.finite().then_some(()))
            },
        ))
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
    fn loss_cotangent_dot_adjoint(
        &self,
        stack: &mut ::autodiff::__adjoint::Stack,
        args: (&Self, f64, f64),
    ) -> ::core::option::Option<
        (
            f64,
            impl ::core::ops::FnOnce(
                &mut ::autodiff::__adjoint::Stack,
                (&Self, f64, f64),
                &f64,
                (&mut Self,),
                u32,
            ) -> ::core::option::Option<()> + use<>,
        ),
    > {
        Self::__ad_loss_cotangent_dot_adjoint(stack, args)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    fn __ad_loss_check(
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        Self::__ad_loss_check_with(
            ::core::option::Option::None,
            ::autodiff::DEFAULT_TOLERANCE,
            __self,
            x,
            y,
        )
    }
    /// Checks [`loss_grad`](Self::loss_grad) against central differences of [`loss`](Self::loss) in every component, with the default step and tolerance.
    fn loss_check(
        &self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        Self::__ad_loss_check(self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[allow(clippy::too_many_arguments)]
    fn __ad_loss_check_with(
        step: ::core::option::Option<f64>,
        tolerance: f64,
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        use ::autodiff::__private as __ad;
        let mut inputs = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::components(__self, &mut inputs);
        let reverse = match Self::__ad_loss_grad(
            __ad::dup(&__self),
            __ad::dup(&x),
            __ad::dup(&y),
        ) {
            ::core::result::Result::Ok(reverse) => reverse,
            ::core::result::Result::Err(error) => return __ad::unchecked(error),
        };
        let mut analytic = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::components(&reverse.gradient, &mut analytic);
        __ad::gradient_check(
            &inputs,
            &analytic,
            step,
            tolerance,
            |point| {
                let mut rest = point;
                let __self = <Self as __ad::Parameter>::rebuild(__self, &mut rest);
                Self::loss(&__self, __ad::dup(&x), __ad::dup(&y))
            },
        )
    }
    /// Checks [`loss_grad`](Self::loss_grad) against central differences of [`loss`](Self::loss) in every component; `step: None` uses `default_step` of each input.
    #[allow(clippy::too_many_arguments)]
    fn loss_check_with(
        &self,
        step: ::core::option::Option<f64>,
        tolerance: f64,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        Self::__ad_loss_check_with(step, tolerance, self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn __ad_loss_jvp(
        __self: &Self,
        x: f64,
        y: f64,
        tangent: Self,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        if let (::core::option::Option::Some(lifted_0),) = (
            <Self as ::autodiff::__private::Parameter>::lift_duals(
                __self,
                {
                    let __along: &Self = &tangent;
                    __along
                },
            ),
        ) {
            let stack = &mut ::autodiff::__adjoint::DualStack::forward_only();
            if let ::core::option::Option::Some(result) = Self::__ad_loss_adjoint_dual(
                stack,
                &lifted_0,
                x,
                y,
            ) {
                if let ::core::option::Option::Some(answer) = ::autodiff::__private::compiled_jvp(
                    result,
                ) {
                    return ::core::result::Result::Ok(answer);
                }
            }
        }
        {
            use ::autodiff::__private as __ad;
            let mut flat = ::std::vec::Vec::new();
            <Self as __ad::Parameter>::model_direction(
                __self,
                &tangent,
                "self",
                &mut flat,
            )?;
        }
        Self::__ad_loss_jvp_tape(__self, x, y, tangent)
    }
    /// Forward mode: the value of [`loss`](Self::loss) and its derivative along `tangent` (∇loss · tangent), `tangent` shaped like the gradient of [`loss_grad`](Self::loss_grad). The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn loss_jvp(
        &self,
        x: f64,
        y: f64,
        tangent: Self,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        Self::__ad_loss_jvp(self, x, y, tangent)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn __ad_loss_hvp(
        __self: &Self,
        x: f64,
        y: f64,
        direction: Self,
    ) -> ::core::result::Result<::autodiff::Hvp<Self>, ::autodiff::ScalarAutodiffError> {
        if let (::core::option::Option::Some(lifted_0),) = (
            <Self as ::autodiff::__private::Parameter>::lift_duals(
                __self,
                {
                    let __along: &Self = &direction;
                    __along
                },
            ),
        ) {
            let stack = &mut ::autodiff::__adjoint::DualStack::new();
            if let ::core::option::Option::Some(result) = Self::__ad_loss_adjoint_dual(
                stack,
                &lifted_0,
                x,
                y,
            ) {
                if let ::core::option::Option::Some(answer) = (|| {
                    let (gradient_0, product_0) = <Self as ::autodiff::__private::Parameter>::split_model(
                        __self,
                        &result.gradient,
                    )?;
                    ::core::option::Option::Some((gradient_0, product_0))
                })()
                    .map(|(gradient, hvp)| {
                        ::autodiff::__adjoint::hvp_compiled();
                        ::autodiff::Hvp {
                            value: result.value.value,
                            gradient,
                            hvp,
                        }
                    })
                {
                    return ::core::result::Result::Ok(answer);
                }
            }
        }
        {
            use ::autodiff::__private as __ad;
            let mut flat = ::std::vec::Vec::new();
            <Self as __ad::Parameter>::model_direction(
                __self,
                &direction,
                "self",
                &mut flat,
            )?;
        }
        Self::__ad_loss_hvp_tape(__self, x, y, direction)
    }
    /// The value of [`loss`](Self::loss), its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn loss_hvp(
        &self,
        x: f64,
        y: f64,
        direction: Self,
    ) -> ::core::result::Result<::autodiff::Hvp<Self>, ::autodiff::ScalarAutodiffError> {
        Self::__ad_loss_hvp(self, x, y, direction)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn __ad_loss_hessian(
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        use ::autodiff::__private as __ad;
        let stack = &mut ::autodiff::__adjoint::DualStack::new();
        let mut own = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::components(__self, &mut own);
        if let ::core::option::Option::Some(hessian) = __ad::compiled_hessian_flat(
            own.len(),
            |unit| {
                let direction = {
                    let mut rest = unit.as_slice();
                    <Self as __ad::Parameter>::gradient_from(__self, &mut rest)
                };
                let (::core::option::Option::Some(lifted_0),) = (
                    <Self as ::autodiff::__private::Parameter>::lift_duals(
                        __self,
                        {
                            let __along: &Self = &direction;
                            __along
                        },
                    ),
                ) else {
                    return ::core::option::Option::None;
                };
                let ::core::option::Option::Some(result) = Self::__ad_loss_adjoint_dual(
                    stack,
                    &lifted_0,
                    x,
                    y,
                ) else {
                    return ::core::option::Option::None;
                };
                let (_, product) = (|| {
                    let (gradient_0, product_0) = <Self as ::autodiff::__private::Parameter>::split_model(
                        __self,
                        &result.gradient,
                    )?;
                    ::core::option::Option::Some((gradient_0, product_0))
                })()?;
                let mut out = ::std::vec::Vec::with_capacity(own.len());
                <Self as __ad::Parameter>::gradient_components(&product, &mut out);
                ::core::option::Option::Some(out)
            },
        ) {
            return ::core::result::Result::Ok(hessian);
        }
        Self::__ad_loss_hessian_tape(__self, x, y)
    }
    /// The dense Hessian of [`loss`](Self::loss) over its differentiable components, in the order `loss_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    #[allow(unused, clippy::all, clippy::pedantic)]
    fn loss_hessian(
        &self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        Self::__ad_loss_hessian(self, x, y)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __ad_loss_jvp_tape(
        __self: &Self,
        x: f64,
        y: f64,
        tangent: Self,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        use ::autodiff::__private as __ad;
        let mut flat = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::model_direction(__self, &tangent, "self", &mut flat)?;
        let tape = &mut __ad::second_order_tape();
        __ad::jvp(Self::__ad_loss_grad_tape_on(tape, __self, x, y), tape, &flat)
    }
    /// [`loss_jvp`](Self::loss_jvp) on the tape: the body recorded and the engine's passes run over it. `loss_jvp` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn loss_jvp_tape(
        &self,
        x: f64,
        y: f64,
        tangent: Self,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        Self::__ad_loss_jvp_tape(self, x, y, tangent)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __ad_loss_hvp_tape(
        __self: &Self,
        x: f64,
        y: f64,
        direction: Self,
    ) -> ::core::result::Result<::autodiff::Hvp<Self>, ::autodiff::ScalarAutodiffError> {
        use ::autodiff::__private as __ad;
        let mut flat = ::std::vec::Vec::new();
        <Self as __ad::Parameter>::model_direction(
            __self,
            &direction,
            "self",
            &mut flat,
        )?;
        let tape = &mut __ad::second_order_tape();
        let pass = __ad::hvp(
            Self::__ad_loss_grad_tape_on(tape, __self, x, y),
            tape,
            &flat,
        )?;
        ::core::result::Result::Ok(::autodiff::Hvp {
            value: pass.value,
            gradient: {
                let mut rest = pass.gradient.as_slice();
                <Self as __ad::Parameter>::gradient_from(__self, &mut rest)
            },
            hvp: {
                let mut rest = pass.hvp.as_slice();
                <Self as __ad::Parameter>::gradient_from(__self, &mut rest)
            },
        })
    }
    /// [`loss_hvp`](Self::loss_hvp) on the tape: the body recorded and the engine's passes run over it. `loss_hvp` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn loss_hvp_tape(
        &self,
        x: f64,
        y: f64,
        direction: Self,
    ) -> ::core::result::Result<::autodiff::Hvp<Self>, ::autodiff::ScalarAutodiffError> {
        Self::__ad_loss_hvp_tape(self, x, y, direction)
    }
    #[doc(hidden)]
    #[allow(non_snake_case, dead_code)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __ad_loss_hessian_tape(
        __self: &Self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        let tape = &mut ::autodiff::__private::second_order_tape();
        ::autodiff::__private::hessian(
            Self::__ad_loss_grad_tape_on(tape, __self, x, y),
            tape,
        )
    }
    /// [`loss_hessian`](Self::loss_hessian) on the tape: the body recorded and the engine's passes run over it. `loss_hessian` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn loss_hessian_tape(
        &self,
        x: f64,
        y: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        Self::__ad_loss_hessian_tape(self, x, y)
    }
    #[doc(hidden)]
    #[inline]
    #[allow(unused, clippy::all, clippy::pedantic)]
    #[doc(hidden)]
    fn loss_forward_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        args: ::core::option::Option<
            (&<Self as ::autodiff::__private::Parameter>::Duals, f64, f64),
        >,
    ) -> ::autodiff::Dual {
        let ::core::option::Option::Some((__self, x, y)) = args else {
            return stack.failed();
        };
        match Self::__ad_loss_adjoint_dual(stack, __self, x, y) {
            ::core::option::Option::Some(result) => {
                <Self as ::autodiff::__private::Parameter>::push_duals(
                    &result.gradient,
                    stack,
                );
                result.value
            }
            ::core::option::Option::None => stack.failed(),
        }
    }
    #[doc(hidden)]
    #[inline]
    #[allow(unused, clippy::all, clippy::pedantic)]
    #[doc(hidden)]
    fn loss_reverse_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        value_bar: ::autodiff::Dual,
        bars: ::core::option::Option<
            (
                &mut <Self as ::autodiff::__private::Parameter>::Duals,
                &mut dyn ::core::any::Any,
                &mut dyn ::core::any::Any,
            ),
        >,
    ) {
        let ::core::option::Option::Some((__self_bar, _, _)) = bars else {
            return stack.fail();
        };
        <Self as ::autodiff::__private::Parameter>::pop_duals(
            __self_bar,
            stack,
            value_bar,
        );
    }
    #[allow(dead_code)]
    fn scale(w: f64, x: f64) -> f64 {
        w * x
    }
    /// Records [`scale`](Self::scale) on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line.
    #[allow(
        clippy::too_many_arguments,
        unused_variables,
        unused_mut,
        unused_assignments
    )]
    fn scale_tape<'tape>(
        tape: &'tape ::autodiff::Tape,
        w: ::autodiff::Scalar<'tape>,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::Scalar<'tape>,
        ::autodiff::ScalarAutodiffError,
    > {
        use ::autodiff::__private as __ad;
        let __entry = __ad::enter(tape);
        let __nested = __entry.nested();
        if !(__ad::on_tape(tape, &w, __ad::at("w", 14))) {
            return __ad::refuse(tape, __entry);
        }
        ::autodiff::__probe!(tape, "w", w);
        let __output: ::autodiff::Scalar<'tape> = {
            __ad::output(
                tape,
                __nested,
                __ad::mul(w, x, __ad::at("w * x", 15)),
                __ad::at("w * x", 15),
            )
        };
        __ad::leave(tape, __entry, __output)
    }
    /// The value of [`scale`](Self::scale) and its exact gradient with respect to every differentiable parameter.
    ///
    /// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
    fn scale_grad(
        w: f64,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<f64>,
        ::autodiff::ScalarAutodiffError,
    > {
        match Self::scale_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), w, x) {
            ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
            ::core::option::Option::None => {
                ::autodiff::__adjoint::rerun_on_tape();
                Self::scale_grad_tape(w, x)
            }
        }
    }
    /// [`scale_grad`](Self::scale_grad) with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape.
    ///
    /// Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.
    #[allow(clippy::too_many_arguments)]
    fn scale_grad_on(
        tape: &mut ::autodiff::Tape,
        w: f64,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<f64>,
        ::autodiff::ScalarAutodiffError,
    > {
        match Self::scale_adjoint(&mut ::autodiff::__adjoint::Scratch::take(), w, x) {
            ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
            ::core::option::Option::None => {
                ::autodiff::__adjoint::rerun_on_tape();
                Self::scale_grad_tape_on(tape, w, x)
            }
        }
    }
    /// Which computation [`scale_grad`](Self::scale_grad) runs: the compiled adjoint, or the tape and the construct that keeps it there.
    const fn scale_grad_path() -> ::autodiff::GradientPath {
        ::autodiff::GradientPath::Compiled
    }
    /// [`scale_grad`](Self::scale_grad) by one reverse pass over [`scale_tape`](Self::scale_tape): the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory.
    fn scale_grad_tape(
        w: f64,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<f64>,
        ::autodiff::ScalarAutodiffError,
    > {
        Self::scale_grad_tape_on(&mut ::autodiff::Tape::new(), w, x)
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
    fn scale_adjoint(
        stack: &mut ::autodiff::__adjoint::Stack,
        w: f64,
        x: f64,
    ) -> ::core::option::Option<::autodiff::ValueAndGradient<f64>> {
        stack.observe(&w);
        if !stack.finite() {
            return ::core::option::Option::None;
        }
        let value: f64 = w * x;
        let mut w_bar = ::autodiff::__adjoint::zero(&w);
        let value_bar = 1.0;
        w_bar += value_bar * x;
        stack.observe(value);
        stack.observe(&w_bar);
        stack
            .finite()
            .then_some(::autodiff::ValueAndGradient {
                value: value,
                gradient: w_bar,
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
    fn scale_adjoint_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        w: ::autodiff::Dual,
        x: f64,
    ) -> ::core::option::Option<
        ::autodiff::ValueAndGradient<::autodiff::Dual, ::autodiff::Dual>,
    > {
        let value: ::autodiff::Dual = ::autodiff::__adjoint::dual(w * x);
        if !stack.reverses() {
            return stack.value_only(value);
        }
        let mut w_bar = ::autodiff::__adjoint::zero(&w);
        let value_bar = ::autodiff::Dual::constant(1.0);
        w_bar += value_bar * x;
        stack.observe(value);
        stack
            .finite()
            .then_some(::autodiff::ValueAndGradient {
                value: value,
                gradient: w_bar,
            })
    }
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn scale_grad_tape_on(
        tape: &mut ::autodiff::Tape,
        w: f64,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::ValueAndGradient<f64>,
        ::autodiff::ScalarAutodiffError,
    > {
        use ::autodiff::__private as __ad;
        tape.clear();
        let tape = &*tape;
        let w_var = __ad::variables(tape, &w, __ad::at("w", 14));
        if let ::core::option::Option::Some(error) = __ad::refused(tape) {
            return ::core::result::Result::Err(error);
        }
        match __ad::finish(Self::scale_tape(tape, w_var, x)) {
            ::core::result::Result::Ok(value) => {
                ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                    value: value,
                    gradient: __ad::gradient(&w, &w_var),
                })
            }
            ::core::result::Result::Err(error) => ::core::result::Result::Err(error),
        }
    }
    #[doc(hidden)]
    fn scale_forward(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64, f64)>,
    ) -> f64 {
        let ::core::option::Option::Some((w, x)) = args else {
            return stack.failed();
        };
        if !stack.finite() {
            Self::scale(w, x)
        } else {
            ::autodiff::__adjoint::forwarded(Self::scale_adjoint(stack, w, x), stack)
        }
    }
    #[doc(hidden)]
    fn scale_reverse(
        stack: &mut ::autodiff::__adjoint::Stack,
        args: ::core::option::Option<(f64, f64)>,
        value_bar: f64,
        bars: ::core::option::Option<(&mut f64, &mut dyn ::core::any::Any)>,
    ) {
        let _ = args;
        let ::core::option::Option::Some((w_bar, _)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::Spread::pop_scaled(w_bar, stack, value_bar);
    }
    /// Checks [`scale_grad`](Self::scale_grad) against central differences of [`scale`](Self::scale) in every component, with the default step and tolerance.
    fn scale_check(
        w: f64,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        Self::scale_check_with(
            ::core::option::Option::None,
            ::autodiff::DEFAULT_TOLERANCE,
            w,
            x,
        )
    }
    /// Checks [`scale_grad`](Self::scale_grad) against central differences of [`scale`](Self::scale) in every component; `step: None` uses `default_step` of each input.
    #[allow(clippy::too_many_arguments)]
    fn scale_check_with(
        step: ::core::option::Option<f64>,
        tolerance: f64,
        w: f64,
        x: f64,
    ) -> ::core::result::Result<
        ::autodiff::GradientCheck,
        ::autodiff::GradientCheckError,
    > {
        use ::autodiff::__private as __ad;
        let mut inputs = ::std::vec::Vec::new();
        __ad::components(&w, &mut inputs);
        let reverse = match Self::scale_grad(__ad::dup(&w), __ad::dup(&x)) {
            ::core::result::Result::Ok(reverse) => reverse,
            ::core::result::Result::Err(error) => return __ad::unchecked(error),
        };
        let mut analytic = ::std::vec::Vec::new();
        __ad::gradient_components(&w, &reverse.gradient, &mut analytic);
        __ad::gradient_check(
            &inputs,
            &analytic,
            step,
            tolerance,
            |point| {
                let mut rest = point;
                let w = __ad::rebuild(&w, &mut rest);
                Self::scale(w, __ad::dup(&x))
            },
        )
    }
    /// Forward mode: the value of [`scale`](Self::scale) and its derivative along `tangent` (∇scale · tangent), `tangent` shaped like the gradient of [`scale_grad`](Self::scale_grad). The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn scale_jvp(
        w: f64,
        x: f64,
        tangent: f64,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        if let (::core::option::Option::Some(lifted_0),) = (
            ::autodiff::__adjoint::lift(&w, &tangent),
        ) {
            let stack = &mut ::autodiff::__adjoint::DualStack::forward_only();
            if let ::core::option::Option::Some(answer) = Self::scale_adjoint_dual(
                    stack,
                    lifted_0,
                    x,
                )
                .and_then(::autodiff::__private::compiled_jvp)
            {
                return ::core::result::Result::Ok(answer);
            }
        }
        ::autodiff::__private::check_direction(&w, &tangent, &["w"])?;
        Self::scale_jvp_tape(w, x, tangent)
    }
    /// The value of [`scale`](Self::scale), its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn scale_hvp(
        w: f64,
        x: f64,
        direction: f64,
    ) -> ::core::result::Result<::autodiff::Hvp<f64>, ::autodiff::ScalarAutodiffError> {
        if let (::core::option::Option::Some(lifted_0),) = (
            ::autodiff::__adjoint::lift(&w, &direction),
        ) {
            let stack = &mut ::autodiff::__adjoint::DualStack::new();
            if let ::core::option::Option::Some(answer) = Self::scale_adjoint_dual(
                    stack,
                    lifted_0,
                    x,
                )
                .and_then(::autodiff::__private::compiled_hvp)
            {
                return ::core::result::Result::Ok(answer);
            }
        }
        ::autodiff::__private::check_direction(&w, &direction, &["w"])?;
        Self::scale_hvp_tape(w, x, direction)
    }
    /// The dense Hessian of [`scale`](Self::scale) over its differentiable components, in the order `scale_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape).
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn scale_hessian(
        w: f64,
        x: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        let stack = &mut ::autodiff::__adjoint::DualStack::new();
        if let ::core::option::Option::Some(hessian) = ::autodiff::__private::compiled_hessian(
            &w,
            |direction| {
                let (::core::option::Option::Some(lifted_0),) = (
                    ::autodiff::__adjoint::lift(&w, &direction),
                ) else {
                    return ::core::option::Option::None;
                };
                Self::scale_adjoint_dual(stack, lifted_0, x)
            },
        ) {
            return ::core::result::Result::Ok(hessian);
        }
        Self::scale_hessian_tape(w, x)
    }
    /// [`scale_jvp`](Self::scale_jvp) on the tape: the body recorded and the engine's passes run over it. `scale_jvp` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn scale_jvp_tape(
        w: f64,
        x: f64,
        tangent: f64,
    ) -> ::core::result::Result<::autodiff::Jvp<f64>, ::autodiff::ScalarAutodiffError> {
        let tape = &mut ::autodiff::__private::second_order_tape();
        ::autodiff::__private::jvp_of(
            Self::scale_grad_tape_on(tape, w, x),
            tape,
            &w,
            tangent,
            &["w"],
        )
    }
    /// [`scale_hvp`](Self::scale_hvp) on the tape: the body recorded and the engine's passes run over it. `scale_hvp` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn scale_hvp_tape(
        w: f64,
        x: f64,
        direction: f64,
    ) -> ::core::result::Result<::autodiff::Hvp<f64>, ::autodiff::ScalarAutodiffError> {
        let tape = &mut ::autodiff::__private::second_order_tape();
        ::autodiff::__private::hvp_of(
            Self::scale_grad_tape_on(tape, w, x),
            tape,
            &w,
            direction,
            &["w"],
        )
    }
    /// [`scale_hessian`](Self::scale_hessian) on the tape: the body recorded and the engine's passes run over it. `scale_hessian` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite.
    #[doc(hidden)]
    #[inline]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn scale_hessian_tape(
        w: f64,
        x: f64,
    ) -> ::core::result::Result<::autodiff::Hessian, ::autodiff::ScalarAutodiffError> {
        let tape = &mut ::autodiff::__private::second_order_tape();
        ::autodiff::__private::hessian(Self::scale_grad_tape_on(tape, w, x), tape)
    }
    #[doc(hidden)]
    #[inline]
    fn scale_forward_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        args: ::core::option::Option<(::autodiff::Dual, f64)>,
    ) -> ::autodiff::Dual {
        let ::core::option::Option::Some((w, x)) = args else {
            return stack.failed();
        };
        ::autodiff::__adjoint::forwarded_dual(
            Self::scale_adjoint_dual(stack, w, x),
            stack,
        )
    }
    #[doc(hidden)]
    #[inline]
    fn scale_reverse_dual(
        stack: &mut ::autodiff::__adjoint::DualStack,
        value_bar: ::autodiff::Dual,
        bars: ::core::option::Option<(&mut ::autodiff::Dual, &mut dyn ::core::any::Any)>,
    ) {
        let ::core::option::Option::Some((w_bar, _)) = bars else {
            return stack.fail();
        };
        ::autodiff::__adjoint::DualSpread::pop_scaled(w_bar, stack, value_bar);
    }
}
