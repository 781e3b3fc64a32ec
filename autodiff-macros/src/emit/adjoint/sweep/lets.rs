//! One statement untagged: an item, a `let` (its value's forward and
//! reverse, its binding's adjoint declared in the reverse's prelude shaped
//! as the binding is where the reverse starts, a call's value saved per
//! trip where the reverse cannot read it again, a tracked local `Vec` on
//! duals), or an expression statement (`assignments`).

use super::statements::direct_call;
use super::*;

impl<'m> Sweep<'m> {
    pub(super) fn stmt_untagged(
        &mut self,
        stmt: &Stmt,
        prelude: &mut Vec<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        match stmt {
            Stmt::Item(item) => {
                if self.depth > 0 || self.early {
                    prelude.push(item.to_token_stream());
                }
                Ok((vec![item.to_token_stream()], Vec::new()))
            }
            Stmt::Let {
                pat,
                name,
                mutable,
                init,
                untyped,
                ..
            } => {
                let syntax = pat.syntax;
                let Some(init) = init else {
                    let active = pat.names.iter().any(|n| self.an.active.contains(n));
                    // `let y; if c { y = .. } else { y = .. }`: a number,
                    // typed so or assigned only numbers, whose adjoint the
                    // assignments take and reset.
                    let number = |name: &String| {
                        let typed = matches!(syntax, syn::Pat::Type(typed)
                            if crate::valid::is_f64(&typed.ty));
                        typed || self.an.assigned.get(name).copied() == Some(Some(0))
                    };
                    if let Some(name) = name.as_ref().filter(|name| active && number(name)) {
                        let bar = self.bind(name);
                        let zero = self.zero();
                        prelude.push(quote!(let mut #bar = #zero;));
                        let declared = if self.dual { *untyped } else { syntax };
                        return Ok((vec![quote!(let #declared;)], Vec::new()));
                    }
                    if active {
                        return Err(Unsupported {
                            construct: "a `let` without a value".into(),
                            line: text::line(first_ident_span(syntax)),
                        });
                    }
                    return Ok((vec![quote!(let #syntax;)], Vec::new()));
                };
                // A value with no derivative whose initialiser writes one
                // (`let _a = { y += x * y; 0.5 };`) is reversed like a
                // tracked one: its effects have a reverse.
                // A call's value of unknown shape bound in a loop or a
                // branch is saved per trip even with no derivative: a
                // call it is passed on to reruns from it in the reverse.
                let unknown_nested = pat.names.iter().any(|n| {
                    self.an.nested_call_lets.contains(n)
                        && matches!(self.an.dims.get(n), Some(None))
                });
                let active = pat.names.iter().any(|n| self.an.active.contains(n))
                    || self.effects(init)
                    || unknown_nested;
                let name = match name {
                    Some(name) if active => name,
                    None if active && matches!(syntax, syn::Pat::Wild(_)) => {
                        return self.discard(init);
                    }
                    _ if active => {
                        let construct =
                            format!("a `let` with a pattern bound to {}", describe(init));
                        return unsupported(construct, init);
                    }
                    _ => {
                        if init.any_expr(&|expr| {
                            matches!(&expr.kind, ExprKind::For { iter, .. } if self.moves_vec(iter))
                        }) {
                            return unsupported(
                                "a `for` that takes a `Vec` by value inside a `let`'s value",
                                init,
                            );
                        }
                        // Printed as written, it would move a `Vec` whose
                        // items the reverse sweep may read again.
                        if init.any_expr(&|expr| self.moved_here(expr)) {
                            return unsupported(
                                "a `Vec` taken by value (`v.into_iter()`, `drop(v)`) inside a `let`'s value (borrow it: `v.iter()`)",
                                init,
                            );
                        }
                        let src = self.copied_if_moved(init, init.source.to_token_stream());
                        let once = pat
                            .names
                            .iter()
                            .all(|n| self.an.bound.get(n).copied() == Some(1));
                        let replay = (self.depth > 0 || self.early)
                            && !*mutable
                            && once
                            && self.fully_available(init);
                        if replay {
                            prelude.push(quote!(let #syntax = #src;));
                            let names = pat.names.clone();
                            self.scope().available.extend(names);
                        }
                        return Ok((vec![quote!(let #syntax = #src;)], Vec::new()));
                    }
                };
                // `let cam = &cams[ci];` of a parameter's row the body names
                // nowhere else: the binding's adjoint is the row's own,
                // borrowed where the reverse declares it, not zeros added
                // in after (a row allocated per observation of bundle
                // adjustment).
                if let Some(row_bar) = self.lent_row(name, *mutable, init) {
                    let bar = self.bind_deferred(name);
                    prelude.push(quote!(let #bar = &mut #row_bar;));
                    self.scope().bars.push((name.clone(), quote!((*#bar))));
                    let src = init.source.to_token_stream();
                    if self.depth > 0 || self.early {
                        prelude.push(quote!(let #syntax = #src;));
                        self.scope().available.insert(name.clone());
                    }
                    return Ok((vec![quote!(let #syntax = #src;)], Vec::new()));
                }
                if self.an.unknown_calls.contains(name) {
                    return unsupported(
                        "a call never read, in a loop with `break` or `continue`, bound by `let mut` or in a body with `return` (whether it returns a number or a vector is not known there)",
                        init,
                    );
                }
                // `let w = [v.clone(), vec![x]].concat();` at the top of a
                // body with `return`s: shaped by the length each exit after
                // it pushes, as a grown `Vec`'s (its parts may change
                // before the reverse; their lengths at the `concat` are
                // saved for its reverse, see `rev_concat`).
                let concat_in_early = self.early
                    && self.depth == 0
                    && concatenated(init).is_some()
                    && self.an.bound.get(name.as_str()).copied() == Some(1);
                let mut recycled = false;
                let mut row_index_push = None;
                // A vector call's value is a vector, though `scalar` takes
                // any call for a number.
                let vector_call = self.an.call_lets.contains(name)
                    && self
                        .an
                        .dims
                        .get(name)
                        .copied()
                        .is_some_and(|dims| dims.is_none_or(|dims| dims > 0));
                let reshaped =
                    self.an.reshaped.contains(name) && (!self.scalar(init) || vector_call);
                let shape = if reshaped && self.depth > 0 {
                    // Bound inside a loop or a branch (the residual
                    // stream of one token, `let mut x = emb[t].to_vec();
                    // for b in &self.blocks { x = b.forward(&x); }`): the
                    // block saves the shape the last statement that
                    // changes it left, as for a `Vec` grown by `push`
                    // (`grown_site`).
                    if self.an.bound.get(name.as_str()).copied() != Some(1) {
                        return unsupported(
                            "a `Vec` assigned whole (its length may change) whose name is bound again",
                            init,
                        );
                    }
                    recycled = true;
                    self.grown_site(name, init, prelude)?
                } else if reshaped {
                    // Assigned whole later with a value that may have
                    // another length: the adjoint starts from the shape
                    // the last assignment left (see `reshape_site`).
                    self.reshaped_shape(name, init)?
                } else if init.is_empty_vec() || self.an.pushed.contains(name) || concat_in_early {
                    // Grown by `push`: the reverse sweep, after the whole
                    // forward, sees its final length, and each reversed
                    // `push` takes its element's adjoint off the end, back
                    // to the initialiser's length. Only the one binding of
                    // the name is still that `Vec` then.
                    // A `Vec` bound empty and grown by `push` in a loop or a
                    // branch saves its adjoint's shape (`grown_site`); one
                    // bound with items whose length changes is not compiled
                    // there yet.
                    if self.depth > 0 && !init.is_empty_vec() {
                        return unsupported(
                            "a `Vec` whose length changes (`push`, `pop`, `insert`, ..) bound inside a loop or a branch",
                            init,
                        );
                    }
                    if self.an.bound.get(name.as_str()).copied() != Some(1) {
                        return unsupported(
                            "a `Vec` grown by `push` whose name is bound again",
                            init,
                        );
                    }
                    let ident = binding(name);
                    if self.depth > 0 {
                        let shape = self.grown_site(name, init, prelude)?;
                        recycled = true;
                        shape
                    } else if self.early {
                        // With `return`s the forward's bindings are gone
                        // when the reverse starts: each exit after this
                        // `let` pushed the length (see `Jumps::grown`).
                        if init.any_expr(&|e| matches!(e.kind, ExprKind::Return(_))) {
                            return unsupported(
                                "a `Vec` grown by `push` whose value can `return`",
                                init,
                            );
                        }
                        let Some(function) = self.jumps.first_mut().filter(|j| j.function) else {
                            return unsupported("a `Vec` grown by `push`", init);
                        };
                        let since = Literal::u32_unsuffixed(function.next);
                        function.grown.push(ident);
                        let (stack, exit) = (&self.stack, Ident::new("exit", Span::mixed_site()));
                        quote!(::std::vec![0.0; if #exit == 0 || #exit > #since {
                            #stack.pop_index()
                        } else {
                            0
                        }])
                    } else if self.recycle.is_some()
                        && !self.an.call_lets.contains(name)
                        && !self.an.nested_call_lets.contains(name)
                    {
                        // At the top of a body swept on `f64` with no
                        // jump: from the stack's spares, given back when
                        // the body's reverse ends (`block_statements`);
                        // not a call's value, whose adjoint moves into
                        // the callee's reverse.
                        self.shaped_at_reverse.insert(name.clone());
                        recycled = true;
                        let stack = &self.stack;
                        quote!(::autodiff::__adjoint::spare(#stack, &#ident))
                    } else {
                        self.shaped_at_reverse.insert(name.clone());
                        quote!(::autodiff::__adjoint::zero(&#ident))
                    }
                } else if concatenated(init).is_some()
                    && self.depth == 0
                    && !self.early
                    && self.an.bound.get(name.as_str()).copied() == Some(1)
                {
                    // `let w = [v.clone(), vec![x]].concat();` at the top:
                    // shaped like `w` when the reverse starts, which has
                    // the length it was made with (a `Vec` whose length
                    // changes later is `pushed`, above).
                    self.concat_lets.insert(name.clone());
                    self.shaped_at_reverse.insert(name.clone());
                    let ident = binding(name);
                    quote!(::autodiff::__adjoint::zero(&#ident))
                } else if self.an.unread_calls.contains(name) {
                    // Never read, its adjoint stays zero: the callee's
                    // reverse takes `__adjoint::unread` of the value.
                    quote!(0.0)
                } else if self.an.nested_call_lets.contains(name) {
                    // Popped with the value before it (see `call_site`).
                    // On `f64`s from the stack's spares: a split callee's
                    // reverse takes it as its cotangent and gives it back.
                    let ident = binding(name);
                    if self.dual {
                        quote!(::autodiff::__adjoint::zero(&#ident))
                    } else {
                        let stack = &self.stack;
                        quote!(::autodiff::__adjoint::spare(#stack, &#ident))
                    }
                } else if self.an.call_lets.contains(name) && self.depth == 0 && !self.early {
                    // What a call returns, a number or a vector (see
                    // `analysis::calls`): its adjoint is shaped like the
                    // forward's binding, there when the reverse starts. On
                    // `f64`s its rows come from the stack's spares, which
                    // the callee's reverse refills as it takes the rows
                    // off its cotangent (`push_whole`).
                    self.shaped_at_reverse.insert(name.clone());
                    let ident = binding(name);
                    // A number's (or a value of unknown shape) is a
                    // `zero`, as `cargo expand` reads best.
                    let rows = self.holds_vector(name);
                    if self.dual || !rows {
                        quote!(::autodiff::__adjoint::zero(&#ident))
                    } else {
                        let stack = &self.stack;
                        quote!(::autodiff::__adjoint::spare(#stack, &#ident))
                    }
                } else if self.depth == 0
                    && !self.early
                    && self.an.bound.get(name.as_str()).copied() == Some(1)
                    && matches!(init.kind, ExprKind::If { .. } | ExprKind::Match { .. })
                    && dims_of(init, &self.an.dims).is_some_and(|dims| dims > 0)
                {
                    // `let h = if c { x.to_vec() } else { vec![..] };` at
                    // the top: each arm may give its own length, so the
                    // adjoint is shaped like `h` when the reverse starts,
                    // which has the length its arm gave (a `Vec` whose
                    // length changes later is `pushed`, above).
                    self.shaped_at_reverse.insert(name.clone());
                    let ident = binding(name);
                    quote!(::autodiff::__adjoint::zero(&#ident))
                } else if let Some(len) = self.recyclable(init) {
                    recycled = true;
                    let stack = &self.stack;
                    quote!(#stack.zeros(#len))
                } else {
                    match self.shape(init) {
                        Ok(shape) => shape,
                        // `let c = &centers[bi];` after the search for `bi`.
                        Err(unsupported) => {
                            let [push, shape, again] =
                                self.row_by_saved_index(init, prelude)?.ok_or(unsupported)?;
                            row_index_push = Some(push);
                            // The reverse reads the row again, as the
                            // forward did, instead of the numbers pushed.
                            if !*mutable && self.an.bound.get(name.as_str()).copied() == Some(1) {
                                prelude.push(quote!(let #syntax = #again;));
                                self.scope().available.insert(name.clone());
                            }
                            shape
                        }
                    }
                };
                // A vector-valued callee's output: its adjoint starts as
                // the cotangent, which has the shape the binding has when
                // the reverse starts (`seed_output`).
                let seeded = self.depth == 0
                    && !self.early
                    && !reshaped
                    && self.an.bound.get(name.as_str()).copied() == Some(1)
                    && matches!(&self.seeded, Some((output, _, false)) if output == name);
                let holds_vector = self.holds_vector(name);
                let shape = match self.seeded.as_mut().filter(|_| seeded) {
                    Some((_, cotangent, done)) => {
                        *done = true;
                        // The caller's, given to this reverse: a `Vec`'s
                        // rows and list go to the stack's spares when the
                        // reverse ends, for the caller's next.
                        // (Not a call's value: its adjoint moves into
                        // the callee's reverse.)
                        recycled = self.recycle.is_some()
                            && !self.an.call_lets.contains(name)
                            && !self.an.nested_call_lets.contains(name)
                            && holds_vector;
                        cotangent.clone()
                    }
                    None => shape,
                };
                // The initialiser reads earlier bindings of the same name.
                let bar = self.bind_deferred(name);
                // `let y = v;` moves a `Vec` whose adjoint is shaped from
                // the binding itself when the reverse starts (grown by
                // `push`, or a vector call's value): it would be gone.
                if let ExprKind::Path(path) = &init.kind {
                    if path.path.get_ident().is_some_and(|ident| {
                        let moved = ident.to_string();
                        let vector = self.an.dims.get(&moved).copied().flatten().unwrap_or(0) > 0;
                        self.an.pushed.contains(&moved)
                            || self.an.reshaped.contains(&moved)
                            || self.concat_lets.contains(&moved)
                            || (self.shaped_at_reverse.contains(&moved) && vector)
                            || (self.an.call_lets.contains(&moved) && vector)
                    }) {
                        return unsupported(
                            "a `Vec` grown by `push`, assigned whole, chosen by a branch, made by `concat` or returned by a call, moved into another binding",
                            init,
                        );
                    }
                }
                // (`vector_call`, above: a vector, or a tuple read by its
                // fields, which `analysis::calls` gives no shape; either way
                // the callee's reverse reruns it, from arguments saved if
                // they change.)
                let unread = self.an.unread_calls.contains(name);
                // Of unknown shape (a tuple, or a value only passed on,
                // `let h = layer(x); total(h)`): the adjoint by value, a
                // number for a callee returning one and a vector for a
                // vector-valued one, as a pushed call's is.
                let unknown = self.an.call_lets.contains(name)
                    && matches!(self.an.dims.get(name), Some(None));
                let seed = if unread {
                    let (adjoint, ident) = (&self.adjoint, binding(name));
                    Seed {
                        unread: true,
                        ..Seed::new(quote!(#adjoint::unread(&#ident)))
                    }
                } else if unknown {
                    // Moved where the call is the whole value (the `let`
                    // declares the adjoint and nothing reads it after the
                    // call's reverse), else a copy.
                    let tokens = if direct_call(init) && !self.dual {
                        bar.to_token_stream()
                    } else {
                        quote!(::core::clone::Clone::clone(&#bar))
                    };
                    Seed {
                        unread: true,
                        ..Seed::new(tokens)
                    }
                } else {
                    Seed {
                        tokens: bar.to_token_stream(),
                        negated: false,
                        whole: !self.scalar(init) || vector_call,
                        unread: false,
                        // Declared by this `let`, read no more after the
                        // call's reverse.
                        owned: vector_call && !self.dual && direct_call(init),
                    }
                };
                let site = self.call_site(name, *mutable, init)?;
                let (mut f, v, mut r) = self.value(init, &seed)?;
                let v = self.copied_if_moved(init, v);
                // `let layer = &self.layers[k];` in a loop or a branch: a
                // part of a model, which the reverse borrows again where it
                // reads the binding (a method called on it).
                if (self.depth > 0 || self.early)
                    && !*mutable
                    && self.an.bound.get(name.as_str()).copied() == Some(1)
                    && (self.model_part(init) || self.row_part(init))
                {
                    let src = init.source.to_token_stream();
                    prelude.push(quote!(let #syntax = #src;));
                    self.scope().available.insert(name.clone());
                }
                self.scope()
                    .bars
                    .push((name.clone(), bar.to_token_stream()));
                if let Some((_, pop)) = &site {
                    prelude.push(pop.clone());
                }
                // After a call the reverse may find unmade (its value a
                // stand-in), shaped only where it was made: no statement
                // after it is reversed otherwise.
                // A model's part (`let layer = &ms[0];`): its adjoint, a
                // model's, has no stand-in; a zero one is made either way.
                let model_part = self.model_part(init);
                let shape = match &self.scope().ran {
                    Some(_) if model_part => shape,
                    Some(ran) => quote! {
                        if #ran { #shape } else { ::autodiff::__adjoint::Poisoned::poisoned() }
                    },
                    None => shape,
                };
                if recycled {
                    if let Some(recycle) = self.recycle.as_mut() {
                        recycle.push(bar.clone());
                    }
                }
                // A local `Vec`'s adjoint on duals, shaped like what it
                // copied (`zero(&c)` of constant rows is of `f64`s).
                let shape = if self.dual
                    && !self.scalar(init)
                    && self.an.active.contains(name)
                    && self.an.dims.get(name) == Some(&Some(1))
                {
                    let adjoint = &self.adjoint;
                    quote!(#adjoint::duals(#shape))
                } else {
                    shape
                };
                prelude.push(quote!(let mut #bar = #shape;));
                if self.dual && self.scalar(init) && self.an.active.contains(name) {
                    let v = self.tracked_number(v);
                    f.push(quote!(let #untyped = #v;));
                } else if self.dual
                    && self.an.active.contains(name)
                    && self.an.dims.get(name) == Some(&Some(1))
                {
                    // A local `Vec` of numbers: of duals, whatever its
                    // items were (`dual::takes` took only these forms).
                    let ident = binding(name);
                    let mutability = mutable.then(|| quote!(mut));
                    let adjoint = &self.adjoint;
                    if init.is_empty_vec() {
                        // (`Vec::<f64>::new()`: its items' type as `_`.)
                        let v = crate::text::without_f64(v);
                        f.push(
                            quote!(let #mutability #ident: ::std::vec::Vec<::autodiff::Dual> = #v;),
                        );
                    } else {
                        f.push(quote!(let #mutability #ident = #adjoint::duals(#v);));
                    }
                } else if self.dual
                    && self.an.active.contains(name)
                    && matches!(syntax, syn::Pat::Type(typed) if crate::valid::is_f64(&typed.ty))
                {
                    // `let v: f64 = v;` of an item whose shape the
                    // analysis does not see (`for &v in x.iter()`, a
                    // closure's typed parameter read as its body): a dual.
                    f.push(quote!(let #untyped = #v;));
                } else {
                    f.push(quote!(let #syntax = #v;));
                }
                if let Some((push, _)) = site {
                    f.push(push);
                }
                f.extend(row_index_push);
                if reshaped && self.depth == 0 {
                    f.push(self.keep_shape(name));
                    self.kept_shapes.insert(name.clone());
                }
                // The tape rejects a value that is not finite where it is
                // made, read or not: one never read (`let unused =
                // x.exp() * 1e308 * 10.0;`) reaches neither the value nor
                // the gradient, so it is observed here.
                if unread && self.active(init) {
                    let (stack, ident) = (&self.stack, binding(name));
                    f.push(quote!(#stack.observe(&#ident);));
                } else if self.scalar(init) && self.active(init) && !self.an.reads(name) {
                    let (stack, ident) = (&self.stack, binding(name));
                    f.push(quote!(#stack.observe(#ident);));
                }
                // A binding made from a constant (`let mut s = 0.0;`) drops
                // its adjoint here, where the tape adds it into the
                // constant's node and rejects one that is not finite
                // (`s.sqrt()` with no `s += ..` run: ∞ · 1 reaches no
                // parameter): observed, so both paths fail alike.
                if !unread && !self.active(init) && self.an.active.contains(name.as_str()) {
                    let stack = &self.stack;
                    r.insert(0, quote!(#stack.observe(&#bar);));
                }
                Ok((f, r))
            }
            Stmt::Expr(expr, semi) => self.expr_stmt(expr, semi.is_some()),
        }
    }

    /// Whether `init` borrows a part of a model the reverse sweep can
    /// borrow again (`&self.layers[k]`, `&ms[1]`).
    /// `value`, the forward's tokens of `init`, cloned where `init` is a
    /// `Vec` binding the `let` would move (see `moved_whole`).
    pub(super) fn copied_if_moved(&self, init: &Expr, value: TokenStream) -> TokenStream {
        if self.moved_whole(init) {
            quote!(::core::clone::Clone::clone(&#value))
        } else {
            value
        }
    }

    pub(super) fn model_part(&self, init: &Expr) -> bool {
        matches!(&init.kind, ExprKind::Reference { mutability: None, expr: inner }
            if is_place(inner)
                && root(inner).is_some_and(|name| self.an.models.contains(&name))
                && self.fully_available(inner))
    }

    /// The adjoint of the row `init` borrows (`&cams[ci]`), where the
    /// binding `name` can take it as its own: bound once and not `mut`,
    /// the row a vector of a differentiable parameter that the body names
    /// only there, by an index the reverse has where it declares the
    /// binding's adjoint.
    fn lent_row(&self, name: &str, mutable: bool, init: &Expr) -> Option<TokenStream> {
        let ExprKind::Reference {
            mutability: None,
            expr: inner,
        } = &init.kind
        else {
            return None;
        };
        let root = root(inner)?;
        let row = matches!(inner.kind, ExprKind::Index { ref index, .. }
            if !matches!(index.kind, ExprKind::Range { .. }));
        (row && !mutable
            && self.an.bound.get(name).copied() == Some(1)
            && self.an.bound.get(&root).copied() == Some(1)
            && self.an.params.contains(&root)
            && self.an.active.contains(&root)
            && self.an.mentions.get(&root).copied() == Some(1)
            && dims_of(inner, &self.an.dims).is_some_and(|dims| dims > 0)
            && is_place(inner)
            && self.fully_available(inner))
        .then(|| self.bar_place(inner).ok())
        .flatten()
    }

    /// Whether `init` borrows a row the reverse sweep can borrow again
    /// (`let e = &table[tok];` of a parameter, walked by `e.iter().zip(w)`).
    pub(super) fn row_part(&self, init: &Expr) -> bool {
        matches!(&init.kind, ExprKind::Reference { mutability: None, expr: inner }
            if matches!(inner.kind, ExprKind::Index { .. })
                && is_place(inner)
                && self.fully_available(inner))
    }

    /// The length of a `vec![0.0; n]` of numbers whose adjoint is made by
    /// `Stack::zeros` (see `Sweep::recycle`): `n` there again in the
    /// reverse sweep.
    pub(super) fn recyclable(&self, init: &Expr) -> Option<TokenStream> {
        let ExprKind::VecRepeat { elem, len } = &init.kind else {
            return None;
        };
        (self.recycle.is_some() && self.scalar(elem) && self.fully_available(len))
            .then(|| len.source.to_token_stream())
    }

    /// `let _ = value;`: run for its panics and its checks, no adjoint.
    /// The tape records the value and rejects it if it is not finite, so
    /// a number is observed.
    pub(super) fn discard(&mut self, init: &Expr) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        // A block, a call or a write would run with no reverse.
        if has_call(init)
            || init.any_expr(&|e| {
                matches!(
                    e.kind,
                    ExprKind::Assign { .. }
                        | ExprKind::CompoundAssign { .. }
                        | ExprKind::Return(_)
                        | ExprKind::Break { .. }
                        | ExprKind::Continue(_)
                ) || matches!(&e.kind, ExprKind::Structural { method, .. } if *method == "push")
            })
        {
            return unsupported("a `let _` of a call or a write", init);
        }
        let src = init.source.to_token_stream();
        let stack = &self.stack;
        let fwd = if self.scalar(init) {
            quote!(#stack.observe(#src);)
        } else {
            quote!(let _ = #src;)
        };
        Ok((vec![fwd], Vec::new()))
    }

    /// The adjoint name of the binding about to be made, put in scope by
    /// the caller after its initialiser is read.
    pub(super) fn bind_deferred(&mut self, name: &str) -> Ident {
        let ident = self.bind(name);
        self.scope().bars.pop();
        ident
    }
}
