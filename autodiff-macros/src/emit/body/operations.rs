//! Operations on tracked values and calls: one recording call each,
//! the calls of annotated functions and methods, and macros.

use super::*;

impl Emitter<'_> {
    /// An operation on tracked values: one recording call.
    #[inline(never)]
    pub(super) fn operation(&self, expr: &Expr) -> TokenStream {
        let tape = &self.tape;
        let value = |e: &Expr| self.expr(e, Mode::Value);
        let arg = |e: &Expr| self.arg(e);
        let span = expr.span;
        match &expr.kind {
            // Rewritten for what it reads on the way, a plain value all the
            // same (`if x[0] > 0.0 { 1 } else { 0 } + 1`): plain arithmetic.
            ExprKind::Binary { op, lhs, rhs, .. }
                if !self.flow.value_is_tracked(expr)
                    && !matches!(op, crate::ast::Arith::Method(_)) =>
            {
                let (lhs, rhs) = (value(lhs), value(rhs));
                let op = match op {
                    crate::ast::Arith::Add => quote!(+),
                    crate::ast::Arith::Sub => quote!(-),
                    crate::ast::Arith::Mul => quote!(*),
                    crate::ast::Arith::Div => quote!(/),
                    _ => quote!(%),
                };
                quote!((#lhs #op #rhs))
            }
            ExprKind::Binary {
                op,
                lhs,
                rhs,
                label: at,
            } => {
                let receiver = Receiver::of(self.touches(lhs), lhs);
                // `detach(a) % b`: `%` has no rule, so an operand detached
                // on purpose is its plain value.
                let operand = |e: &Expr| {
                    if *op == crate::ast::Arith::Rem && self.touches(e) && self.detached(e) {
                        let value = arg(e);
                        quote_spanned!(e.span=> __ad::primal(#value))
                    } else {
                        arg(e)
                    }
                };
                let (lhs, rhs, at) = (operand(lhs), operand(rhs), self.op_label(expr, at));
                if self.outlined {
                    let rhs = quote!(&(#rhs));
                    return self.outlined_call(op.name(), (lhs, receiver), &[rhs], at, span);
                }
                let func = Ident::new(op.name(), span);
                quote_spanned!(span=> __ad::#func(#lhs, #rhs, #at))
            }
            ExprKind::Neg { operand, label: at } => {
                let receiver = Receiver::of(true, operand);
                let (operand, at) = (arg(operand), self.op_label(expr, at));
                if self.outlined {
                    return self.outlined_call("neg", (operand, receiver), &[], at, span);
                }
                quote_spanned!(span=> __ad::neg(#operand, #at))
            }
            ExprKind::Elementary {
                func,
                operand,
                label: at,
            } => {
                let receiver = Receiver::of(true, operand);
                let (operand, at) = (arg(operand), self.op_label(expr, at));
                // Of the one-operand functions, `__private::outlined` has
                // `abs` (which integers share); the others stay inline.
                if self.outlined && *func == "abs" {
                    return self.outlined_call(func, (operand, receiver), &[], at, span);
                }
                let own = self.autodiffs_own(expr, func);
                let func = Ident::new(func, span);
                let call = quote_spanned!(span=> __ad::#func(#operand, #at));
                if own.is_empty() {
                    call
                } else {
                    quote_spanned!(span=> { #own #call })
                }
            }
            ExprKind::Powi {
                base,
                exponent,
                label: at,
            } => {
                let receiver = Receiver::of(true, base);
                let (base, exponent, at) = (arg(base), arg(exponent), self.op_label(expr, at));
                if self.outlined {
                    return self.outlined_call("powi", (base, receiver), &[exponent], at, span);
                }
                quote_spanned!(span=> __ad::powi(#base, #exponent, #at))
            }
            ExprKind::Ternary {
                func,
                operands,
                label: at,
            } => {
                let func = Ident::new(func, span);
                let [a, b, c] = operands.each_ref().map(|operand| arg(operand));
                let at = label(at);
                quote_spanned!(span=> __ad::#func(#a, #b, #c, #at))
            }
            ExprKind::Sum {
                items,
                label: at,
                product,
            } => {
                let (items, at) = (arg(items), label(at));
                let func = Ident::new(if *product { "product" } else { "sum" }, span);
                quote_spanned!(span=> __ad::#func(#tape, #items, #at))
            }
            // `self.act == Act::Relu`: an enum, no number, read as it is.
            ExprKind::Compare { op, lhs, rhs } if lhs.is_variant() || rhs.is_variant() => {
                let (lhs, rhs) = (value(lhs), value(rhs));
                quote!(#lhs #op #rhs)
            }
            ExprKind::Compare { op, lhs, rhs } => {
                let (lhs, rhs) = (self.primal(lhs), self.primal(rhs));
                quote!(#lhs #op #rhs)
            }
            ExprKind::Logic { op, lhs, rhs } => {
                let (lhs, rhs) = (self.condition(lhs), self.condition(rhs));
                quote!(#lhs #op #rhs)
            }
            ExprKind::Prefix { op, operand } => {
                let operand = match op {
                    syn::UnOp::Not(_) => self.condition(operand),
                    _ => value(operand),
                };
                quote!(#op #operand)
            }
            ExprKind::CompoundAssign {
                op,
                target,
                value: operand,
                label: at,
            } => {
                let (target, operand, at) = (value(target), arg(operand), label(at));
                if self.outlined {
                    let operand = quote!(&(#operand));
                    let call = self.outlined_call(
                        op.name(),
                        (target.clone(), Receiver::Plain),
                        &[operand],
                        at,
                        span,
                    );
                    return quote_spanned!(span=> #target = #call);
                }
                let func = Ident::new(op.name(), span);
                quote_spanned!(span=> #target = __ad::#func(#target, #operand, #at))
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// Where `expr` names a facade function as the body resolves it
    /// (`relu(x)`, `x.relu()`), the check that the name is autodiff's
    /// function (`__private::Autodiffs`): a function of the student's
    /// own under that name is a compile error, not autodiff's derivative
    /// beside the student's value.
    fn autodiffs_own(&self, expr: &Expr, func: &str) -> TokenStream {
        let facade = crate::vocabulary::facade_function(func);
        match (expr.source, facade) {
            (Source::Expr(syn::Expr::Call(call)), Some(_)) => match &*call.func {
                syn::Expr::Path(path) if path.qself.is_none() && path.path.segments.len() == 1 => {
                    let name = &path.path;
                    let own = Ident::new(func, Span::call_site());
                    quote_spanned!(name.span()=> __ad::Autodiffs(::autodiff::#own).named(#name);)
                }
                _ => TokenStream::new(),
            },
            (Source::Expr(syn::Expr::MethodCall(call)), Some(_))
                if crate::vocabulary::activation_method(&call.method.to_string()).is_some() =>
            {
                let method = &call.method;
                quote_spanned!(method.span()=>
                    __ad::Autodiffs(<f64 as ::autodiff::prelude::Activations>::#method)
                        .named(<f64>::#method);
                )
            }
            _ => TokenStream::new(),
        }
    }

    /// A call or a method: another function's tape twin, or plain Rust on plain values.
    #[inline(never)]
    pub(super) fn call(&self, expr: &Expr) -> TokenStream {
        let tape = &self.tape;
        let value = |e: &Expr| self.expr(e, Mode::Value);
        if let Some(collected) = self.collected(expr) {
            return collected;
        }
        match &expr.kind {
            ExprKind::Call { func, args } => match self.recording_twin(func, args.len()) {
                // Converted by `__ad::call_twin`, which also leaves a wrong
                // argument count to the plain twin's error.
                // More arguments than `__ad::call_twin` takes (12): called
                // directly, a wrong count then also reported by the twin.
                Twin::Free { twin, .. } if args.len() > 12 => {
                    let args = self.call_args(args);
                    quote!(__ad::call(#tape, #twin(#tape, #(#args),*)))
                }
                Twin::Free { name, scope, .. } => {
                    // `detach(x)` passes its value, which a `#[constant]`
                    // parameter takes and a differentiable one lifts.
                    let args: Vec<_> = args
                        .iter()
                        .map(|arg| {
                            let value = self.arg(arg);
                            if self.touches(arg) && self.detached(arg) {
                                (quote_spanned!(arg.span=> __ad::primal(#value)), arg.span)
                            } else {
                                (value, arg.span)
                            }
                        })
                        .collect();
                    let found = twin_and_companion(&name, &scope, args.len());
                    let (twin, companion) = (
                        Ident::new("__ad_twin", Span::mixed_site()),
                        Ident::new("__ad_companion", Span::mixed_site()),
                    );
                    let args = checked_arguments(&companion, args);
                    // On the student's `f`, as the stand-in's bound is: a
                    // plain `f` is then one error, not two.
                    let span = func
                        .segments
                        .last()
                        .map_or_else(Span::call_site, |last| last.ident.span());
                    let call = quote_spanned!(span=> __ad::call_twin(#tape, #twin, #args));
                    // The arguments are evaluated in the arm, as they were
                    // in the call: their temporaries outlive it.
                    let call = quote! {
                        match #found {
                            (#twin, #companion) => {
                                use ::autodiff::__private::ArgumentChecks as _;
                                #call
                            }
                        }
                    };
                    quote!(__ad::call(#tape, #call))
                }
                Twin::Associated(twin) => {
                    let args = self.call_args(args);
                    quote!(__ad::call(#tape, #twin(#tape, #(#args),*)))
                }
            },
            // `mem::swap(&mut a, &mut b)` moves values, tracked ones too.
            ExprKind::PlainCall { func, args, .. } if expr.swapped().is_some() => {
                let args = args.iter().map(|arg| self.expr(arg, Mode::Value));
                quote!(#func(#(#args),*))
            }
            // A helper used as a count, an index or a condition (see
            // `lower::by_use`): on primal values, its value checked to
            // carry no derivative.
            ExprKind::PlainCall {
                func,
                args,
                reads_primal: true,
            } => {
                let args = args.iter().map(|arg| self.plain_argument(arg));
                quote_spanned!(expr.span=> __ad::no_derivative(#func(#(#args),*)))
            }
            ExprKind::PlainCall { func, args, .. } => {
                let args = args.iter().map(|arg| self.untracked(arg));
                quote!(#func(#(#args),*))
            }
            // `opt.unwrap_or(d)` where either holds a tracked value: both
            // lifted, to one `Option<Scalar>` and one `Scalar`
            // (`x.iter().copied().reduce(..).unwrap_or(0.0)`).
            ExprKind::Structural {
                receiver,
                method,
                turbofish: None,
                args,
            } if *method == "unwrap_or" && args.len() == 1 => {
                let receiver = self.expr(receiver, Mode::Lift);
                // `*v.last().unwrap_or(&0.0)`: the lifted `Option` holds
                // values, so the default is one, and the whole a reference
                // again.
                let (default, borrowed) = match &args[0].kind {
                    ExprKind::Reference {
                        mutability: None,
                        expr: default,
                    } => (&**default, true),
                    _ => (&args[0], false),
                };
                let default = self.expr(default, Mode::Lift);
                let call = quote!(#receiver.#method(#default));
                if borrowed {
                    quote!(&(#call))
                } else {
                    call
                }
            }
            // `w.iter().chain(c.iter())` where one half's items are tracked
            // and the other's plain: the plain half's items lifted into a
            // list the statement borrows, and yielded as the tracked half's
            // are (a reference or a copy), so the two have one item type.
            ExprKind::Structural {
                receiver,
                method,
                turbofish: None,
                args,
            } if *method == "chain"
                && args.len() == 1
                && self.touches(receiver) != self.touches(&args[0]) =>
            {
                let tape = &self.tape;
                let (receiver, arg) = (&**receiver, &args[0]);
                let plain = if self.touches(receiver) {
                    arg
                } else {
                    receiver
                };
                let at = label(&Label {
                    text: source_text(plain.source),
                    line: text::line(plain.span),
                });
                let plain_items = value(plain);
                let lifted = quote!(&__ad::lift_items(#tape, #plain_items, #at));
                if self.touches(receiver) {
                    let receiver = value(receiver);
                    quote_spanned!(expr.span=> __ad::chain_lifted(#receiver, #lifted))
                } else {
                    let arg = value(arg);
                    quote_spanned!(expr.span=> __ad::lifted_chain(#lifted, #arg))
                }
            }
            ExprKind::Structural {
                receiver,
                method,
                turbofish,
                args,
            } => {
                let tracked_receiver =
                    flow::root(receiver).is_some_and(|root| self.flow.is_tracked(&root));
                let tracked_items = self.touches(receiver);
                let receiver = value(receiver);
                // `fold(0.0, |acc, v| acc + v)`: the start is lifted when the
                // closure's result may be tracked, so both have one type.
                let folds_tracked = *method == "fold"
                    && args.len() == 2
                    && (self.touches(&args[1])
                        || (tracked_items && f64_operation(&args[1]).is_some()));
                let args = args.iter().enumerate().map(|(position, arg)| {
                    if let Some(func) = tracked_items.then(|| f64_operation(arg)).flatten() {
                        // `fold(f64::NEG_INFINITY, f64::max)` over tracked
                        // items: the operation as a recording closure.
                        let func = Ident::new(func, arg.span);
                        let at = label(&Label {
                            text: source_text(arg.source),
                            line: text::line(arg.span),
                        });
                        // (In a long body `__ad::max` is the outlined one,
                        // which borrows its operands.)
                        return if self.outlined {
                            quote!(|a, b| __ad::#func(&a, &b, &const { #at }))
                        } else {
                            quote!(|a, b| __ad::#func(a, b, #at))
                        };
                    }
                    if let Some(func) = (tracked_items && *method == "map")
                        .then(|| f64_unary(arg))
                        .flatten()
                    {
                        // `map(f64::exp)` over tracked items: the method
                        // called on each, recorded as `|v| v.exp()` is.
                        let func = Ident::new(func, arg.span);
                        let at = label(&Label {
                            text: source_text(arg.source),
                            line: text::line(arg.span),
                        });
                        return if self.outlined && func == "abs" {
                            quote!(|a| __ad::#func(&a, &const { #at }))
                        } else {
                            quote!(|a| __ad::#func(a, #at))
                        };
                    }
                    // The value `push`ed or `insert`ed, the slice appended
                    // (`extend_from_slice`), the value `fill` or `resize`
                    // writes: lifted into a tracked `Vec`.
                    let stored =
                        crate::vocabulary::stored_argument(&method.to_string()) == Some(position);
                    if stored && tracked_receiver && *method == "extend_from_slice" {
                        let lifted = self.expr(arg, Mode::Lift);
                        quote!(&#lifted)
                    } else if *method == "extend" && position == 0 && tracked_receiver {
                        // Each item appended, lifted: the iterator's may
                        // be plain (`v.extend(a.iter().map(|t| t * 0.5))`).
                        let (tape, items) = (&self.tape, value(arg));
                        let at = label(&Label {
                            text: source_text(arg.source),
                            line: text::line(arg.span),
                        });
                        quote!(__ad::lift_each(#tape, #items, #at))
                    } else if (stored && tracked_receiver) || (folds_tracked && position == 0) {
                        self.expr(arg, Mode::Lift)
                    } else {
                        value(arg)
                    }
                });
                quote!(#receiver.#method #turbofish(#(#args),*))
            }
            ExprKind::PlainMethod {
                receiver,
                method,
                turbofish: None,
                args,
                reads_primal: false,
            } if self.is_model_part(receiver) => self.model_method(receiver, method, args),
            ExprKind::PlainMethod {
                receiver,
                method,
                turbofish,
                args,
                reads_primal,
            } => {
                // A helper used as a count, an index or a condition
                // (`self.dim()`, see `lower::by_use`): a model's, on the
                // plain model. On a tracked number (`x.to_bits()`), an
                // error, as for any method without a derivative rule.
                let helper = *reads_primal && !crate::vocabulary::is_predicate(&method.to_string());
                if (!*reads_primal || (helper && !self.is_model_part(receiver)))
                    && self.touches(receiver)
                    && !self.detached(receiver)
                {
                    return self.probed_method(receiver, method, *turbofish, args);
                }
                if helper {
                    let receiver = self.plain_receiver(receiver);
                    let args = args.iter().map(|arg| self.plain_argument(arg));
                    return quote_spanned!(expr.span=>
                        __ad::no_derivative(#receiver.#method #turbofish(#(#args),*)));
                }
                // `a.total_cmp(b)` compares primal values: both sides read
                // as `f64`s where either may be tracked, so that an `a` the
                // body binds to a tracked value elsewhere (names, not
                // scopes) meets a plain `b` (`max_by(|a, b|
                // a.partial_cmp(b))` of plain items) as a number too.
                let compared = *reads_primal
                    && (self.touches(receiver) || args.iter().any(|arg| self.touches(arg)));
                let read = |expr: &Expr| {
                    if self.touches(expr) {
                        self.primal(expr)
                    } else {
                        let plain = expr.source.to_token_stream();
                        quote_spanned!(expr.span=> __ad::primal(#plain))
                    }
                };
                let receiver = if compared {
                    read(receiver)
                } else if *reads_primal {
                    self.primal(receiver)
                } else {
                    self.untracked(receiver)
                };
                let args = args.iter().map(|arg| {
                    if compared {
                        let arg = read(arg);
                        quote!(&#arg)
                    } else {
                        self.untracked(arg)
                    }
                });
                quote!(#receiver.#method #turbofish(#(#args),*))
            }
            ExprKind::Cast { expr: inner, ty } => {
                let inner = self.cast_operand(inner);
                quote!(#inner as #ty)
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// `iter.collect()` or `iter.collect::<Vec<f64>>()` (a `Vec` of
    /// numbers, or of rows) where the items may be tracked: collected as
    /// `collect::<Vec<_>>()`, a `Vec` of whatever the items are, which
    /// names no `f64` and leaves nothing for rustc to infer.
    pub(super) fn collected(&self, expr: &Expr) -> Option<TokenStream> {
        let ExprKind::Structural {
            receiver,
            method,
            turbofish,
            args,
        } = &expr.kind
        else {
            return None;
        };
        let to_vec = |turbofish: &syn::AngleBracketedGenericArguments| {
            matches!(turbofish.args.first(), Some(syn::GenericArgument::Type(syn::Type::Path(path)))
                if turbofish.args.len() == 1
                    && path.qself.is_none()
                    && path.path.segments.last().is_some_and(|last| last.ident == "Vec"))
        };
        if *method != "collect" || !args.is_empty() || !turbofish.is_none_or(to_vec) {
            return None;
        }
        let receiver = self.expr(receiver, Mode::Value);
        Some(quote_spanned!(method.span()=> #receiver.collect::<::std::vec::Vec<_>>()))
    }

    /// The receiver of a plain helper method (see `lower::by_use`): a
    /// model (or a part of one) as the plain model, anything else as
    /// [`Emitter::plain_argument`] gives it.
    fn plain_receiver(&self, receiver: &Expr) -> TokenStream {
        if !self.is_model_part(receiver) {
            return self.plain_argument(receiver);
        }
        let span = receiver.span;
        let model = self.expr(receiver, Mode::Value);
        quote_spanned!(span=> __ad::model(&#model))
    }

    /// What a plain helper is given for `arg` (see `lower::by_use`): as
    /// written if it reads no tracked name, else its primal values (a
    /// model's: the plain model), borrowed where `arg` is a reference or a
    /// slice parameter.
    fn plain_argument(&self, arg: &Expr) -> TokenStream {
        if !self.touches(arg) {
            return arg.source.to_token_stream();
        }
        let span = arg.span;
        let inner = matches!(
            &arg.kind,
            ExprKind::Reference {
                mutability: None,
                ..
            }
        );
        let slice = matches!(&arg.kind, ExprKind::Path(path)
            if path.path.get_ident().is_some_and(|ident| self.slices.iter().any(|name| ident == name)));
        let primal = self.primal(arg);
        if inner || slice {
            quote_spanned!(span=> &#primal)
        } else {
            primal
        }
    }

    /// Whether `expr` is a model or a part of one (`self.layers[0]`).
    fn is_model_part(&self, expr: &Expr) -> bool {
        flow::part_root(expr).is_some_and(|root| self.models.contains(&root))
    }

    /// `model.f(args)` on a model on the tape: the method's recording twin,
    /// found through the plain model the twin was recorded from
    /// (`f_tape(&self, tape, twin, args)`).
    pub(super) fn model_method(
        &self,
        receiver: &Expr,
        method: &Ident,
        args: &[Expr],
    ) -> TokenStream {
        let tape = &self.tape;
        let twin = Ident::new("twin", proc_macro2::Span::mixed_site());
        let tape_fn = format_ident!("{}_tape", method, span = method.span());
        let receiver_span = receiver.span;
        let receiver = self.expr(receiver, Mode::Value);
        let args = self.call_args(args);
        quote_spanned! {receiver_span=>
            {
                let #twin = &#receiver;
                __ad::call(#tape, __ad::model(#twin).#tape_fn(#tape, #twin, #(#args),*))
            }
        }
    }

    /// The arguments of a call of another function's recording twin:
    /// plain values become constants where the callee records.
    pub(super) fn call_args<'e>(
        &'e self,
        args: &'e [Expr],
    ) -> impl Iterator<Item = TokenStream> + 'e {
        let tape = &self.tape;
        args.iter().map(move |arg| {
            let span = arg.span;
            // A name or a reference may be a slice, which the callee takes
            // as its own slice type: converted.
            let certain = self.flow.is_certainly_tracked(arg)
                && !matches!(arg.kind, ExprKind::Path(_) | ExprKind::Reference { .. });
            let arg = self.arg(arg);
            if certain {
                // Already what the callee records: passed as is.
                arg
            } else {
                quote_spanned!(span=> __ad::arg(#tape, #arg))
            }
        })
    }

    /// `assert!`, `println!`, ... run as written with every tracked name
    /// they mention shadowed by its primal value; `dbg!(e)` prints `e`'s
    /// primal as `dbg!` does, at the student's file and line, and returns
    /// the recorded value.
    #[inline(never)]
    pub(super) fn mac(&self, expr: &Expr) -> TokenStream {
        match &expr.kind {
            ExprKind::PlainMacro { mac, names, .. } => {
                let shadows = names
                    .iter()
                    .filter(|name| self.flow.is_tracked(name))
                    .map(|name| {
                        let name = Ident::new(name, mac.path.span());
                        quote!(let #name = __ad::primal(&#name);)
                    });
                quote!({ #(#shadows)* #mac })
            }
            ExprKind::Dbg { mac, arg } => {
                let span = mac.path.span();
                let shown = text::expr(match arg.source {
                    Source::Expr(syntax) => syntax,
                    Source::Macro(_) => return expr.source.to_token_stream(),
                });
                let value = self.expr(arg, Mode::Value);
                let number = quote_spanned!(span=> __ad::primal(&value));
                crate::emit::dbg_printed(span, value, &shown, number)
            }
            _ => expr.source.to_token_stream(),
        }
    }
}
