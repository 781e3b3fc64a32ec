//! Statements and blocks: each statement's forward code and its reverse,
//! a block's reverse as its statements' in the opposite order (written once,
//! in `reversed`), `let`, assignment and compound assignment, and a
//! block's value.

use super::*;

impl<'m> Sweep<'m> {
    /// A block; `seed` is the adjoint of its value when its tail is one.
    pub fn block(&mut self, block: &Block, seed: Option<&Seed>) -> R<BlockCode> {
        self.scopes.push(Scope::default());
        let result = self.block_inner(block, seed);
        self.scopes.pop();
        result
    }

    /// The function body: top-level statements are numbered for stability.
    pub fn body(&mut self, block: &Block, seed: &Seed) -> R<BlockCode> {
        self.value_bar = seed.tokens.clone();
        if !has_return(block) {
            return self.block_inner(block, Some(seed));
        }
        // Early returns: the forward sweep is `'forward: { .. }`, each
        // return point pushes its number, the reverse reverses what ran
        // before it.
        self.early = true;
        self.jumps.push(Jumps {
            function: true,
            ..Jumps::default()
        });
        let result = (|| {
            let (stmts, tail) = block.split_tail();
            let mut prelude = Vec::new();
            let mut fwd = Vec::new();
            let mut revs = Vec::new();
            let mut owners = Vec::new();
            for (j, stmt) in stmts.iter().enumerate() {
                self.top = j;
                let before = self.jumps.last().map_or(0, |jumps| jumps.next);
                let (f, r) = self.stmt(stmt, &mut prelude)?;
                let after = self.jumps.last().map_or(0, |jumps| jumps.next);
                owners.extend((before..after).map(|k| (k + 1, j)));
                fwd.extend(f);
                revs.push(r);
            }
            let value = match tail {
                Some(tail) => {
                    self.top = stmts.len();
                    // A `return` inside the value (`loop { if .. { return
                    // y; } .. }`) undoes everything, the value's reverse too.
                    let before = self.jumps.last().map_or(0, |jumps| jumps.next);
                    let (f, v, r) = self.value(tail, seed)?;
                    let after = self.jumps.last().map_or(0, |jumps| jumps.next);
                    owners.extend((before..after).map(|k| (k + 1, stmts.len())));
                    fwd.extend(f);
                    revs.push(r);
                    Some(v)
                }
                None => None,
            };
            Ok((prelude, fwd, revs, owners, value))
        })();
        let grown = self
            .jumps
            .pop()
            .map(|jumps| jumps.grown)
            .unwrap_or_default();
        let (prelude, fwd, revs, owners, value) = result?;
        let stack = &self.stack;
        let label = syn::Lifetime::new("'forward", Span::mixed_site());
        let result = Ident::new("value", Span::mixed_site());
        let lengths = grown_lengths(stack, &grown);
        let tail =
            value.map(|v| quote!(let #result = #v; #(#lengths)* #stack.push_arm(0); #result));
        let exits = owners.iter().map(|&(k, j)| (k, j + 1));
        let rev = vec![by_exit(
            stack,
            None,
            &prelude,
            &revs,
            &HashMap::new(),
            exits,
        )];
        Ok(BlockCode {
            fwd: Vec::new(),
            value: Some(quote!(#label: { #(#fwd)* #tail })),
            rev,
        })
    }

    pub(super) fn block_inner(&mut self, block: &Block, seed: Option<&Seed>) -> R<BlockCode> {
        let outer = self.recycle.take();
        let result = self.block_statements(block, seed);
        self.recycle = outer;
        result
    }

    fn block_statements(&mut self, block: &Block, seed: Option<&Seed>) -> R<BlockCode> {
        let (stmts, tail) = match seed {
            Some(_) => block.split_tail(),
            None => (&block.stmts[..], None),
        };
        let (stmts, tail, seeded_value) = self.without_the_sum(stmts, tail, seed);
        let mut prelude = Vec::new();
        let mut fwd = Vec::new();
        let mut revs = Vec::new();
        let valued = tail.is_some() && seed.is_some();
        let exits = self.block_exits(stmts, valued);
        if self.depth > 0 && exits.is_empty() && !self.dual {
            self.recycle = Some(Vec::new());
        }
        // A block with exits records how it was left (see `exited_block`):
        // `j + 1` by a jump out of statement `j`, 0 at its end, which a jump
        // out of its last statement or value (`return` as the last
        // statement) reaches too: every statement ran.
        let last = (!exits.is_empty()).then(|| stmts.len() - usize::from(!valued));
        let grown = if self.depth > 0 {
            super::sites::grown_records(stmts, &self.an.pushed)?
        } else {
            Vec::new()
        };
        for (index, stmt) in stmts.iter().enumerate() {
            if self.depth == 0 {
                self.top = index;
            }
            let record = if exits.contains(&index) {
                Some(index as u32 + 1)
            } else {
                (last == Some(index)).then_some(0)
            };
            self.push_pending(record);
            let code = self.stmt(stmt, &mut prelude);
            self.pop_pending(record);
            let (f, r) = code?;
            fwd.extend(f);
            revs.push(r);
            fwd.extend(self.grown_saves(&grown, index));
        }
        let mut value = seeded_value;
        if let (Some(tail), Some(seed)) = (tail, seed) {
            if self.depth == 0 {
                self.top = stmts.len();
            }
            let record = last.map(|_| 0);
            self.push_pending(record);
            let code = self.value(tail, seed);
            self.pop_pending(record);
            let (f, v, r) = code?;
            fwd.extend(f);
            value = Some(v);
            revs.push(r);
        } else if seed.is_some()
            && value.is_none()
            && !matches!(stmts.last(), Some(Stmt::Expr(last, _)) if last.diverges())
        {
            // An arm that leaves (`if c { return z.sqrt(); } else { .. }`)
            // has no value to give: its forward never ends.
            return unsupported_block("a body that ends without a value", block);
        }
        if !exits.is_empty() {
            return Ok(self.exited_block(fwd, value, prelude, revs, &exits));
        }
        let mut rev = prelude;
        rev.extend(reversed(&revs, revs.len()));
        let stack = &self.stack;
        for bar in self.recycle.take().unwrap_or_default() {
            rev.push(quote!(#stack.recycle(#bar);));
        }
        Ok(BlockCode { fwd, value, rev })
    }

    /// The body of a seeded vector-valued callee (`seed_output`) without
    /// its last two statements and its value, `let mut __dot = 0.0; for ..
    /// { __dot += __cotangent[..] * out[..]; } __dot` (see
    /// `shaped::compiled_dot`), and the value `0.0` in their place: the
    /// output's adjoint starts as the cotangent instead. A body not of
    /// that shape is swept whole, and seeds nothing.
    fn without_the_sum<'s, 'a>(
        &mut self,
        stmts: &'s [Stmt<'a>],
        tail: Option<&'s Expr<'a>>,
        seed: Option<&Seed>,
    ) -> (&'s [Stmt<'a>], Option<&'s Expr<'a>>, Option<TokenStream>) {
        let Some((output, _, _)) = &self.seeded else {
            return (stmts, tail, None);
        };
        if self.depth > 0 || seed.is_none() || output.is_empty() {
            return (stmts, tail, None);
        }
        let sum = |name: &Option<String>| name.as_deref() == Some("__dot");
        let shaped = match (stmts, tail) {
            ([.., Stmt::Let { name, .. }, Stmt::Expr(for_loop, _)], Some(tail)) => {
                sum(name)
                    && matches!(for_loop.kind, ExprKind::For { .. })
                    && matches!(&tail.kind, ExprKind::Path(path) if path.path.is_ident("__dot"))
            }
            _ => false,
        };
        if !shaped {
            // Nothing seeded: `output_seeded` says so.
            self.seeded = Some((String::new(), TokenStream::new(), false));
            return (stmts, tail, None);
        }
        (&stmts[..stmts.len() - 2], None, Some(quote!(0.0)))
    }

    /// Makes `push_arm(k)` part of what a jump from here records, if `k`:
    /// the record of a branch or a block a jump leaves on its way out.
    pub(super) fn push_pending(&mut self, record: Option<u32>) {
        if let Some(k) = record {
            let k = Literal::u32_unsuffixed(k);
            let stack = &self.stack;
            let record = quote!(#stack.push_arm(#k););
            if let Some(jumps) = self.jumps.last_mut() {
                jumps.pending.push(record);
            }
        }
    }

    /// Undoes `push_pending(record)`.
    pub(super) fn pop_pending(&mut self, record: Option<u32>) {
        if record.is_some() {
            if let Some(jumps) = self.jumps.last_mut() {
                jumps.pending.pop();
            }
        }
    }

    /// The statements of a block inside a loop (or a function with
    /// `return`) after which more of the block follows, and from inside
    /// which a jump may leave it: the reverse must then know where the
    /// block was left, so that it undoes only the statements that ran.
    pub(super) fn block_exits(&self, stmts: &[Stmt], valued: bool) -> Vec<usize> {
        if self.jumps.is_empty() {
            return Vec::new();
        }
        let last = if valued {
            stmts.len()
        } else {
            stmts.len().saturating_sub(1)
        };
        (0..last)
            .filter(|&index| stmts[index].any_expr(&is_jump))
            .collect()
    }

    /// A block with `exits` (see `block_exits`): the forward pushes 0 when
    /// it ends (after its value), a jump out of statement `j` pushed
    /// `j + 1` (a pending record); the reverse undoes all of it, or the
    /// statements up to `j`.
    pub(super) fn exited_block(
        &self,
        mut fwd: Vec<TokenStream>,
        value: Option<TokenStream>,
        prelude: Vec<TokenStream>,
        revs: Vec<Vec<TokenStream>>,
        exits: &[usize],
    ) -> BlockCode {
        let stack = &self.stack;
        let value = match value {
            Some(value) => {
                let v = self.temp_value();
                Some(quote!({ let #v = #value; #stack.push_arm(0); #v }))
            }
            None => {
                fwd.push(quote!(#stack.push_arm(0);));
                None
            }
        };
        let exits = exits.iter().map(|&j| (j as u32 + 1, j + 1));
        BlockCode {
            fwd,
            value,
            rev: vec![by_exit(
                stack,
                None,
                &prelude,
                &revs,
                &HashMap::new(),
                exits,
            )],
        }
    }

    /// One statement's forward and reverse. An attribute on the statement
    /// (`#[cfg(..)]`, `#[allow(..)]`) goes on every statement written for
    /// it, the adjoints it declares and the stacks of its call sites
    /// (`sites`) included: a statement compiled out is then out of both
    /// sweeps, and what it would push is never popped.
    pub(super) fn stmt(
        &mut self,
        stmt: &Stmt,
        prelude: &mut Vec<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        // A name bound again: its initialiser still reads the binding
        // before, and from here on the reverse has the new one only if this
        // `let` makes it available (a replay), whatever an outer scope has.
        let again: Vec<String> = match stmt {
            Stmt::Let { pat, .. } => pat
                .names
                .iter()
                .filter(|name| self.an.bound.get(*name).copied().unwrap_or(0) > 1)
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        for name in &again {
            self.scope().available.remove(name);
        }
        let code = self.stmt_attributed(stmt, prelude);
        for name in again {
            if !self.scope().available.contains(&name) {
                self.scope().shadowed.insert(name);
            }
        }
        code
    }

    fn stmt_attributed(
        &mut self,
        stmt: &Stmt,
        prelude: &mut Vec<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let attrs: &[syn::Attribute] = match stmt {
            Stmt::Let { attrs, .. } => attrs,
            Stmt::Expr(expr, _) => match expr.source {
                Source::Expr(syntax) => crate::emit::attributes(syntax),
                Source::Macro(_) => &[],
            },
            Stmt::Item(_) => &[],
        };
        if attrs.is_empty() {
            return self.stmt_untagged(stmt, prelude);
        }
        let declared = prelude.len();
        // The call sites' stacks declared inside take the attributes too.
        self.attrs.push(quote!(#(#attrs)*));
        let code = self.stmt_untagged(stmt, prelude);
        self.attrs.pop();
        let (fwd, rev) = code?;
        let tagged = |code: &[TokenStream]| -> Vec<TokenStream> {
            let block: syn::Block =
                syn::parse2(quote!({ #(#code)* })).expect("the sweeps write statements that parse");
            // A `let` takes the attributes itself; any other statement
            // as a block, since stable Rust takes attributes on no other
            // expression statement.
            block
                .stmts
                .into_iter()
                .map(|stmt| match stmt {
                    syn::Stmt::Local(_) | syn::Stmt::Item(_) => quote!(#(#attrs)* #stmt),
                    _ => quote!(#(#attrs)* { #stmt }),
                })
                .collect()
        };
        let own = tagged(&prelude[declared..]);
        prelude.truncate(declared);
        prelude.extend(own);
        Ok((tagged(&fwd), tagged(&rev)))
    }

    fn stmt_untagged(
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
                        let src = init.source.to_token_stream();
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
                let shape = if reshaped {
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
                        self.grown_site(name, init, prelude)?
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
                    } else {
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
                    let ident = binding(name);
                    quote!(::autodiff::__adjoint::zero(&#ident))
                } else if self.an.unread_calls.contains(name) {
                    // Never read, its adjoint stays zero: the callee's
                    // reverse takes `__adjoint::unread` of the value.
                    quote!(0.0)
                } else if self.an.nested_call_lets.contains(name) {
                    // Popped with the value before it (see `call_site`).
                    let ident = binding(name);
                    quote!(::autodiff::__adjoint::zero(&#ident))
                } else if self.an.call_lets.contains(name) && self.depth == 0 && !self.early {
                    // What a call returns, a number or a vector (see
                    // `analysis::calls`): its adjoint is shaped like the
                    // forward's binding, there when the reverse starts.
                    let ident = binding(name);
                    quote!(::autodiff::__adjoint::zero(&#ident))
                } else if let Some(len) = self.recyclable(init) {
                    recycled = true;
                    let stack = &self.stack;
                    quote!(#stack.zeros(#len))
                } else {
                    self.shape(init)?
                };
                // A vector-valued callee's output: its adjoint starts as
                // the cotangent, which has the shape the binding has when
                // the reverse starts (`seed_output`).
                let seeded = self.depth == 0
                    && !self.early
                    && !reshaped
                    && self.an.bound.get(name.as_str()).copied() == Some(1)
                    && matches!(&self.seeded, Some((output, _, false)) if output == name);
                let shape = match self.seeded.as_mut().filter(|_| seeded) {
                    Some((_, cotangent, done)) => {
                        *done = true;
                        recycled = false;
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
                            || (self.an.call_lets.contains(&moved) && vector)
                    }) {
                        return unsupported(
                            "a `Vec` grown by `push`, assigned whole, made by `concat` or returned by a call, moved into another binding",
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
                let (mut f, v, r) = self.value(init, &seed)?;
                // `let layer = &self.layers[k];` in a loop or a branch: a
                // part of a model, which the reverse borrows again where it
                // reads the binding (a method called on it).
                if (self.depth > 0 || self.early)
                    && !*mutable
                    && self.an.bound.get(name.as_str()).copied() == Some(1)
                    && self.model_part(init)
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
                    if super::super::dual::empty_vec(init) {
                        f.push(
                            quote!(let #mutability #ident: ::std::vec::Vec<::autodiff::Dual> = #v;),
                        );
                    } else {
                        f.push(quote!(let #mutability #ident = #adjoint::duals(#v);));
                    }
                } else {
                    f.push(quote!(let #syntax = #v;));
                }
                if let Some((push, _)) = site {
                    f.push(push);
                }
                if reshaped {
                    f.push(self.keep_shape(name));
                }
                // The tape rejects a value that is not finite where it is
                // made, read or not: one never read (`let unused =
                // x.exp() * 1e308 * 10.0;`) reaches neither the value nor
                // the gradient, so it is observed here.
                if unread && self.active(init) {
                    let (stack, ident) = (&self.stack, binding(name));
                    f.push(quote!(#stack.observe(&#ident);));
                } else if self.scalar(init)
                    && self.active(init)
                    && !self.an.read.contains(name.as_str())
                {
                    let (stack, ident) = (&self.stack, binding(name));
                    f.push(quote!(#stack.observe(#ident);));
                }
                Ok((f, r))
            }
            Stmt::Expr(expr, semi) => self.expr_stmt(expr, semi.is_some()),
        }
    }

    /// Whether `init` borrows a part of a model the reverse sweep can
    /// borrow again (`&self.layers[k]`, `&ms[1]`).
    pub(super) fn model_part(&self, init: &Expr) -> bool {
        matches!(&init.kind, ExprKind::Reference { mutability: None, expr: inner }
            if is_place(inner)
                && root(inner).is_some_and(|name| self.an.models.contains(&name))
                && self.fully_available(inner))
    }

    /// The length of a `vec![0.0; n]` of numbers whose adjoint is made by
    /// `Stack::zeros` (see `Sweep::recycle`): `n` there again in the
    /// reverse sweep.
    fn recyclable(&self, init: &Expr) -> Option<TokenStream> {
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

    /// The current statement's forward (hoists, observes, pushes, then
    /// `stmt`) and reverse (pops, then the adjoint statements).
    pub(super) fn finish(&mut self, stmt: TokenStream) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let cx = std::mem::take(&mut self.cx);
        let mut fwd = cx.hoists.clone();
        fwd.extend(cx.observes.iter().cloned());
        let (pushes, mut rev) = self.saves_code(&cx);
        fwd.extend(pushes);
        fwd.push(stmt);
        rev.extend(cx.rev);
        (fwd, rev)
    }

    /// An expression whose value goes somewhere (a `let`, an assignment, a
    /// block's tail) with adjoint `seed`: its forward statements, the
    /// expression giving its value, and its reverse.
    pub(super) fn value(
        &mut self,
        expr: &Expr,
        seed: &Seed,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        // A value with no derivative may still write one or jump
        // (`{ y += x * y; 0.5 }`): its statements are reversed all the same.
        let touched = self.active(expr) || self.effects(expr);
        match &expr.kind {
            ExprKind::If { .. } if touched => self.if_expr(expr, Some(seed)),
            ExprKind::Match { scrutinee, arms } if touched => {
                self.match_expr(expr, scrutinee, arms, Some(seed))
            }
            ExprKind::Paren(inner) if matches!(inner.kind, ExprKind::If { .. }) => {
                self.value(inner, seed)
            }
            ExprKind::Block(None, block) if touched => {
                self.depth += 1;
                let code = self.block(block, Some(seed));
                self.depth -= 1;
                let BlockCode { fwd, value, rev } = code?;
                Ok((
                    Vec::new(),
                    quote!({ #(#fwd)* #value }),
                    vec![quote!({ #(#rev)* })],
                ))
            }
            ExprKind::Loop { label, body } => {
                let seed = self.active(expr).then_some(seed);
                self.loop_expr(*label, body, seed)
            }
            ExprKind::Block(..) if self.active(expr) => unsupported(describe(expr), expr),
            // `else { return 0.0 }`: the jump as a statement, whose block
            // never has a value.
            ExprKind::Return(_) | ExprKind::Break { .. } | ExprKind::Continue(_) => {
                let (f, r) = self.expr_stmt(expr, false)?;
                Ok((Vec::new(), quote!({ #(#f)* }), r))
            }
            _ => {
                if touched && !self.active(expr) {
                    return unsupported(describe(expr), expr);
                }
                let outer = std::mem::take(&mut self.cx);
                self.cx.temps = outer.temps.clone();
                if self.active(expr) {
                    self.rev(expr, seed.clone())?;
                }
                let v = self.fwd(expr)?;
                let v = if self.seeds_output(seed) {
                    self.output(expr, v)
                } else {
                    v
                };
                let value = self.temp_value();
                let (mut f, r) = self.finish(quote!(let #value = #v;));
                // The value is the last forward statement's binding; inline
                // it back when nothing came before it.
                let tail = f.pop().expect("finish pushed the statement");
                if f.is_empty() {
                    self.cx = outer;
                    return Ok((f, v, r));
                }
                f.push(tail);
                self.cx = outer;
                Ok((f, value.to_token_stream(), r))
            }
        }
    }

    pub(super) fn temp_value(&self) -> Ident {
        Ident::new("value", Span::mixed_site())
    }
}

/// The reverse of a block's first `upto` statements: their reverses, last
/// first. A block's reverse, and the reverse from each place a jump leaves
/// it, are this.
pub(super) fn reversed(revs: &[Vec<TokenStream>], upto: usize) -> Vec<TokenStream> {
    revs[..upto].iter().rev().flatten().cloned().collect()
}

/// The forward's record of the lengths of `grown` (see `Jumps::grown`),
/// the last bound pushed first so that the reverse pops them in order.
pub(super) fn grown_lengths(stack: &Ident, grown: &[Ident]) -> Vec<TokenStream> {
    grown
        .iter()
        .rev()
        .map(|v| quote!(#stack.push_index(#v.len());))
        .collect()
}

/// The reverse of statements the forward may have left part-way: it pops
/// how they were left (0 at the end, else the `k` of one of `exits`, each
/// with the number of statements that ran then; a hoisted loop exit takes
/// it from its variable instead) and undoes what ran, after `prelude` (the
/// adjoints' declarations), the statement a jump left by its `taken`
/// reverse if it has one. An unknown record marks the sweep failed.
pub(super) fn by_exit(
    stack: &Ident,
    hoisted: Option<&Ident>,
    prelude: &[TokenStream],
    revs: &[Vec<TokenStream>],
    taken: &HashMap<usize, Vec<TokenStream>>,
    exits: impl Iterator<Item = (u32, usize)>,
) -> TokenStream {
    let all = reversed(revs, revs.len());
    let arms = exits.map(|(k, ran)| {
        let k = Literal::u32_unsuffixed(k);
        // The statement the jump left from, an `if` whose arm the exit
        // implies, reverses its then-arm (`Sweep::implied_if`).
        let back = match ran.checked_sub(1).and_then(|j| taken.get(&j)) {
            Some(own) => {
                let mut revs = revs[..ran].to_vec();
                revs[ran - 1] = own.clone();
                reversed(&revs, ran)
            }
            None => reversed(revs, ran),
        };
        quote!(#k => { #(#back)* })
    });
    let exit = Ident::new("exit", Span::mixed_site());
    // A loop's exit popped once before its iterations (`Jumps::exit`):
    // the first reversed iteration takes it, every other one ended at the
    // end of its body.
    let source = match hoisted {
        Some(hoisted) => quote!(::core::mem::take(&mut #hoisted)),
        None => quote!(#stack.pop_arm()),
    };
    quote! {
        let #exit = #source;
        #(#prelude)*
        match #exit {
            0 => { #(#all)* }
            #(#arms)*
            _ => #stack.fail(),
        }
    }
}

/// Whether `expr` is a call of a function or a method, in parentheses or
/// not: the one reverse a `let`'s adjoint is passed to whole.
pub(super) fn direct_call(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Paren(inner) => direct_call(inner),
        ExprKind::Call { .. } | ExprKind::PlainMethod { .. } => true,
        _ => false,
    }
}
