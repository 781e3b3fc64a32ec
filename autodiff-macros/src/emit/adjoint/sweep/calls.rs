//! Calls of other annotated functions and methods: the callee's
//! forward/reverse pair, arguments passed as the forward and the reverse
//! both read them.

use super::*;

impl<'m> Sweep<'m> {
    /// An argument of a call of another annotated function, as the forward
    /// and the reverse call both pass it: a binding of numbers with an
    /// index (a `Vec`, say) that is not a `Copy` array parameter or a slice
    /// is passed as a clone, since both calls (and every trip of a loop
    /// around them) take it by value.
    pub(super) fn passed(&self, arg: &Expr) -> TokenStream {
        let src = arg.source.to_token_stream();
        if self.owned(arg) {
            quote!(::core::clone::Clone::clone(&#src))
        } else {
            src
        }
    }

    /// Whether `passed` clones `arg`: a vector, or a call's value of
    /// unknown shape (`let h = layer(x); total(h)`, see `analysis::calls`),
    /// which the callee's rerun in the reverse reads again.
    pub(super) fn owned(&self, arg: &Expr) -> bool {
        match &arg.kind {
            ExprKind::Paren(inner) => self.owned(inner),
            ExprKind::Path(path) => path.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                let unknown = self.an.call_lets.contains(&name)
                    && matches!(self.an.dims.get(&name), Some(None));
                !self.an.arrays.contains(&name)
                    && !self.an.slices.contains(&name)
                    && (unknown || dims_of(arg, &self.an.dims).is_some_and(|dims| dims > 0))
            }),
            _ => false,
        }
    }

    /// A call's arguments in the forward sweep: a binding passed by value
    /// as a clone (see `passed`), anything else with the values it hoists
    /// for the reverse (`hh(x, x.recip())` names `x_recip` here).
    pub(super) fn fwd_args(&mut self, args: &[Expr]) -> R<Vec<TokenStream>> {
        args.iter()
            .map(|arg| {
                if self.owned(arg) {
                    Ok(self.passed(arg))
                } else {
                    self.fwd(arg)
                }
            })
            .collect()
    }

    pub(super) fn rev_call(
        &mut self,
        expr: &Expr,
        func: &syn::Path,
        args: &[Expr],
        seed: &Seed,
    ) -> R<()> {
        if self.dual {
            // The dual pair reads no argument again: a callee whose reverse
            // would (a vector's) keeps `f_hvp` on the tape. A callee taking
            // a model pushes its gradient, the model's twin, as any other.
            if seed.whole || seed.unread {
                return unsupported("a vector-valued call on dual numbers", expr);
            }
            let reverse = sibling(&self.stand_ins, func, "reverse_dual");
            return self.rev_invoke(reverse, None, args, seed);
        }
        let reverse = sibling(&self.stand_ins, func, "reverse");
        self.vector_call_replayed(expr, None, args, seed)?;
        self.rev_invoke(reverse, None, args, seed)
    }

    /// A vector-valued call (its seed the caller's whole adjoint of the
    /// binding, or a cotangent by value, `Seed::unread`) reruns the callee
    /// from its arguments in the reverse sweep: every argument (and the
    /// receiver) must still hold its forward value there, or be a number,
    /// which is saved (see `rev_invoke`), or is saved on the call's own
    /// stack (`sites`: a `Vec` or an array the body changes, `&doubled` of
    /// a binding of a branch) as the call reads it, and popped for the
    /// rerun; the cotangent is passed as it is.
    pub(super) fn vector_call_replayed(
        &mut self,
        expr: &Expr,
        receiver: Option<&Expr>,
        args: &[Expr],
        seed: &Seed,
    ) -> R<()> {
        let rerun = seed.whole || seed.unread;
        if !rerun && !self.lends_a_model(receiver, args) {
            return Ok(());
        }
        if seed.negated && rerun {
            return unsupported("a vector-valued call under a minus sign", expr);
        }
        if seed.whole && !receiver.is_none_or(|receiver| self.fully_available(receiver)) {
            return unsupported("a vector-valued call on a model that changes", expr);
        }
        let changed = args.iter().any(|arg| {
            !self.fully_available(arg)
                && !self.savable(arg)
                && !self.saved_args.contains_key(&arg.id)
        });
        if changed {
            if receiver.is_some_and(|receiver| !self.fully_available(receiver)) {
                return unsupported("a vector-valued call on a model that changes", expr);
            }
            let (push, pop) = self.call_arguments_site(expr)?;
            self.cx.hoists.push(push);
            self.cx.rev.push(pop);
        }
        Ok(())
    }

    /// Whether the callee may take a model by reference, whose pair is
    /// then split (see `shaped::scalar_pair`), a number's too: a method
    /// called on a model, or a call passed a part of one. Its reverse
    /// reads the arguments again, as a vector-valued callee's does, so
    /// those that change before the reverse sweep are saved for it.
    fn lends_a_model(&self, receiver: Option<&Expr>, args: &[Expr]) -> bool {
        let model = |arg: &Expr| {
            let place = match &arg.kind {
                ExprKind::Reference { expr, .. } => expr,
                _ => arg,
            };
            is_place(place)
                && !self.scalar(place)
                && root(place).is_some_and(|name| self.an.models.contains(&name))
        };
        receiver.is_some() || args.iter().any(model)
    }

    /// Whether an argument that changes before the reverse sweep can be
    /// saved for a callee that reruns from its arguments: a number. One
    /// read with a call (`layer.mix(acc, h(acc))`) is saved as `val` saves
    /// an operand: the call's value named where the forward computes it,
    /// so that nothing runs twice.
    fn savable(&self, arg: &Expr) -> bool {
        self.scalar(arg)
    }

    /// The reverse of a call of `reverse`'s pair: of a function, or of a
    /// method on `receiver`, which is its first argument (by reference,
    /// its adjoint the model's adjoint at the same place).
    pub(super) fn rev_invoke(
        &mut self,
        reverse: TokenStream,
        receiver: Option<&Expr>,
        args: &[Expr],
        seed: &Seed,
    ) -> R<()> {
        // The runtime's argument tuples (`__adjoint::args`) go to 12, as
        // the recording twin's calls do.
        if args.len() + usize::from(receiver.is_some()) > 12 {
            let at = args.last().or(receiver).expect("more than 12 arguments");
            return unsupported("a call with more than 12 arguments", at);
        }
        let stack = self.stack.clone();
        let adjoint = self.adjoint.clone();
        let mut arg_src = Vec::new();
        let mut bars = Vec::new();
        let mut after = Vec::new();
        let mut spares = Vec::new();
        let mut unused = 0_u32;
        // The reverse reads no argument's value (the forward pushed the
        // gradient at the arguments), only their adjoints: an argument that
        // changes before the reverse sweep (`lse(&v)` in the loop that
        // rewrites `v`) is passed as `None`, its adjoint at its place, with
        // any index the body changes saved.
        let mut replayed = true;
        if let Some(receiver) = receiver {
            let available = self.fully_available(receiver);
            replayed &= available;
            let src = receiver.source.to_token_stream();
            arg_src.push(quote!(&#src));
            if self.active(receiver) {
                let bar = self.saved_bar_place(receiver)?;
                bars.push(quote!(&mut #bar));
            } else if available {
                bars.push(quote!(&mut #adjoint::zero(&(#src))));
            } else {
                return unsupported("a method called on a model that changes", receiver);
            }
        }
        // A vector-valued callee's reverse reruns it from its arguments: one
        // that changes before the reverse sweep is pushed as the call reads
        // it and popped for the reverse (a number; see `savable`). So is
        // one of a call whose value the body never reads, which may be a
        // vector's.
        let reruns = seed.whole || seed.unread || self.lends_a_model(receiver, args);
        for arg in args {
            let saved = self.saved_args.get(&arg.id).cloned();
            let available = self.fully_available(arg) || saved.is_some();
            let src = match &saved {
                Some((saved, _)) => saved.to_token_stream(),
                None => arg.source.to_token_stream(),
            };
            if let Some((saved, by_ref)) = saved {
                arg_src.push(if by_ref {
                    quote!(&#saved)
                } else {
                    quote!(::core::clone::Clone::clone(&#saved))
                });
            } else if !available && reruns && self.savable(arg) {
                if has_call(arg) {
                    arg_src.push(self.val(arg)?);
                } else {
                    let name = self.temp("argument");
                    let saved = self.save(src.clone(), name);
                    arg_src.push(saved.to_token_stream());
                }
            } else {
                replayed &= available;
                arg_src.push(self.passed(arg));
            }
            let place = match &arg.kind {
                ExprKind::Reference {
                    mutability: None,
                    expr,
                } if is_place(expr) => Some(&**expr),
                _ if is_place(arg) => Some(arg),
                _ => None,
            };
            if !self.active(arg) {
                // A constant vector given to a vector-valued callee: marked
                // unused, so that its reverse computes no part of the
                // gradient for it (`Stack::unused_args`; a layer's
                // `forward(x)` of data `x`).
                if available && seed.whole && !self.dual && self.numbers_vector(arg) {
                    unused |= 1 << bars.len();
                    bars.push(quote!(&mut #adjoint::unused(&(#src))));
                    continue;
                }
                // A parameter passed through that holds no number (`act:
                // Act`): the callee's is one too, whose adjoint it drops.
                let opaque = holds_no_number(arg, &self.an.opaque);
                // Else its adjoint takes its part of the gradient and drops
                // it: shaped by the argument, or a number's.
                if opaque {
                    bars.push(quote!(&mut ()));
                } else if available && self.dual {
                    bars.push(quote!(&mut #adjoint::dual_zero(&(#src))));
                } else if available && self.scalar(arg) {
                    bars.push(quote!(&mut #adjoint::zero(&(#src))));
                } else if available {
                    // From the stack's spares, given back after the call:
                    // no allocation per call for a helper's input data.
                    let name = self.temp("unused_bar");
                    self.cx
                        .rev
                        .push(quote!(let mut #name = #adjoint::spare(#stack, &(#src));));
                    bars.push(quote!(&mut #name));
                    spares.push(quote!(#adjoint::give_spare(#stack, &(#src), #name);));
                } else if self.scalar(arg) {
                    let zero = self.zero();
                    bars.push(quote!(&mut #zero));
                } else {
                    return unsupported(
                        "a call whose argument changes before the reverse sweep",
                        arg,
                    );
                }
            } else if let Some(place) = place.filter(|place| {
                // Two `&mut` of one adjoint in one call do not borrow-check: a
                // value passed again (`f(x, 2.0, x)`, `f(&w, &w)`, `f(m.b,
                // m.b)`), or another item of the same one (`f(x[0], x[1])`,
                // each a `&mut` of all of `x_bar`), takes its part in an
                // adjoint of its own, shaped like it, added into the place's
                // after the call.
                let again = self.bar_place(place).is_ok_and(|bar| {
                    let root = bar_root(&quote!(#bar));
                    bars.iter()
                        .any(|seen| root.is_some() && bar_root(seen) == root)
                });
                !(again && (self.scalar(arg) || (available && !self.effects(arg))))
            }) {
                let bar = self.saved_bar_place(place)?;
                let root = bar_root(&quote!(#bar));
                if root.is_some() && bars.iter().any(|seen| bar_root(seen) == root) {
                    return unsupported("a call that passes one tracked value twice", arg);
                }
                bars.push(quote!(&mut #bar));
            } else {
                // An expression: its part in an adjoint of its own, shaped
                // like it (a number's, or zeros like a vector the reverse
                // can evaluate again, `v.clone()`), then reversed into it.
                let zero = if self.scalar(arg) {
                    self.zero()
                } else if available && !self.effects(arg) && self.dual {
                    quote!(#adjoint::dual_zero(&(#src)))
                } else if available && !self.effects(arg) {
                    quote!(#adjoint::zero(&(#src)))
                } else {
                    return unsupported(
                        "a vector passed to a call as an expression whose values change before the reverse sweep",
                        arg,
                    );
                };
                let name = self.temp("argument_bar");
                self.cx.rev.push(quote!(let mut #name = #zero;));
                bars.push(quote!(&mut #name));
                // Added whole where it may be a vector: `accumulate` takes
                // any shape, a number's too.
                after.push((arg, name, !self.scalar(arg)));
            }
        }
        // A vector-valued callee's cotangent: the caller's adjoint of the
        // binding, whole, by value where the caller reads it no more, else
        // by reference. (`rev_call` refuses a negated one.)
        let value_bar = if seed.whole {
            let tokens = &seed.tokens;
            if seed.owned {
                tokens.clone()
            } else {
                quote!(&#tokens)
            }
        } else {
            seed.signed()
        };
        let args = if replayed {
            quote!(#adjoint::args((#(#arg_src,)*)))
        } else {
            quote!(::core::option::Option::None)
        };
        let unused = (unused != 0).then(|| quote!(#stack.unused_args(#unused);));
        if self.dual {
            self.cx.rev.push(quote! {
                #reverse(#stack, #value_bar, #adjoint::args((#(#bars,)*)));
            });
        } else {
            self.cx.rev.push(quote! {
                #unused
                #reverse(#stack, #args, #value_bar, #adjoint::args((#(#bars,)*)));
                #(#spares)*
            });
        }
        for (arg, name, whole) in after.into_iter().rev() {
            let seed = Seed {
                whole,
                ..Seed::new(name.to_token_stream())
            };
            self.rev(arg, seed)?;
        }
        Ok(())
    }

    /// Whether `expr` (or what it borrows) holds numbers in `Vec`s or
    /// arrays, no model among them.
    fn numbers_vector(&self, expr: &Expr) -> bool {
        let inner = match &expr.kind {
            ExprKind::Reference {
                mutability: None,
                expr,
            } => &**expr,
            _ => expr,
        };
        dims_of(inner, &self.an.dims).is_some_and(|dims| dims > 0)
    }

    /// `<Model>::method_suffix` of a method called on a model parameter
    /// on duals (see `model_types`).
    pub(super) fn model_method(
        &self,
        receiver: &Expr,
        method: &Ident,
        suffix: &str,
    ) -> R<TokenStream> {
        let ty = match &receiver.kind {
            ExprKind::Path(path) => path
                .path
                .get_ident()
                .and_then(|name| self.model_types.get(&name.to_string())),
            _ => None,
        };
        let Some(ty) = ty else {
            return unsupported(
                "a method called on a part of a model on dual numbers",
                receiver,
            );
        };
        let name = format_ident!("{}_{}", method.unraw(), suffix, span = method.span());
        Ok(quote!(<#ty>::#name))
    }

    /// Whether `expr` is an annotated method called on a model with a
    /// derivative to pass (see `is_method_call`).
    pub(super) fn method_call(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::PlainMethod { receiver, .. } if is_method_call(expr) => {
                self.active(expr)
                    && root(receiver).is_some_and(|name| self.an.models.contains(&name))
            }
            _ => false,
        }
    }
}

/// Whether `arg` holds no number, whatever a callee's parameter takes it
/// as: a parameter passed through whose type holds no `f64` (`act`), an
/// item, a field or a copy of one (`acts[i]`, `*act`, `act.clone()`), or
/// an enum's variant written out (`Act::Tanh`, `Act::Scaled(0.5)`: a
/// last segment in `CamelCase`, not a `CONSTANT` that may be an `f64`).
fn holds_no_number(arg: &Expr, opaque: &HashSet<String>) -> bool {
    let camel = |path: &syn::Path| {
        path.segments.last().is_some_and(|last| {
            let name = last.ident.to_string();
            name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.chars().any(|c| c.is_ascii_lowercase())
        })
    };
    match &arg.kind {
        ExprKind::Paren(inner)
        | ExprKind::Reference { expr: inner, .. }
        | ExprKind::Prefix { operand: inner, .. }
        | ExprKind::Index { base: inner, .. }
        | ExprKind::Field { base: inner, .. } => holds_no_number(inner, opaque),
        ExprKind::Structural {
            receiver, method, ..
        }
        | ExprKind::PlainMethod {
            receiver, method, ..
        } if *method == "clone" => holds_no_number(receiver, opaque),
        ExprKind::Path(path) => match path.path.get_ident() {
            Some(ident) => opaque.contains(&ident.to_string()),
            None => path.path.segments.len() > 1 && camel(&path.path),
        },
        ExprKind::Construct { func, .. } => func.path.segments.len() > 1 && camel(&func.path),
        _ => false,
    }
}
