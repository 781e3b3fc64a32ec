//! `for`, `while` and `loop`: trip counts pushed and popped, the items a
//! `for` walks by index, and the reverse run over the same indices backwards.

use super::statements::by_exit;
use super::*;

impl<'m> Sweep<'m> {
    /// An array literal or `vec![..]` of tracked values (`[x[0] - c[3],
    /// x[1] - c[4]]`): each item's adjoint is the whole seed's at its
    /// position, right to left.
    pub(super) fn rev_items(&mut self, expr: &Expr, items: &[Expr], seed: &Seed) -> R<()> {
        if !seed.whole {
            return unsupported("an array used as a number", expr);
        }
        let tokens = &seed.tokens;
        let whole = if is_simple(tokens) {
            tokens.clone()
        } else {
            quote!((#tokens))
        };
        let tuple = matches!(expr.kind, ExprKind::Tuple(_));
        for (k, item) in items.iter().enumerate().rev() {
            let component = if tuple {
                let k = syn::Index::from(k);
                quote!(#whole.#k)
            } else {
                let k = Literal::usize_unsuffixed(k);
                quote!(#whole[#k])
            };
            let item_seed = Seed {
                tokens: component,
                negated: false,
                whole: !self.scalar(item),
                unread: false,
                owned: false,
            };
            let item_seed = if seed.negated {
                item_seed.negate()
            } else {
                item_seed
            };
            self.pass(item, &item_seed, Factor::One)?;
        }
        Ok(())
    }

    /// `[e; n]` and `vec![e; n]` of one number: `e` is read by every
    /// element, so its adjoint is the sum of theirs.
    pub(super) fn rev_repeat(&mut self, expr: &Expr, elem: &Expr, seed: &Seed) -> R<()> {
        if !seed.whole {
            return unsupported("an array used as a number", expr);
        }
        let tokens = &seed.tokens;
        if !self.scalar(elem) {
            // `[m.w[1]; 3]` of a model's field, whose shape the macro does
            // not see: the items' adjoints summed into zeros shaped like
            // the value, which is still there.
            if !(is_place(elem) && self.fully_available(elem) && !self.effects(elem)) {
                return unsupported("an array of repeated arrays", expr);
            }
            let (total, adjoint) = (self.temp("repeated_bar"), &self.adjoint);
            let src = elem.source.to_token_stream();
            let item = Ident::new("item_bar", Span::mixed_site());
            self.cx.rev.push(quote! {
                let mut #total = #adjoint::zero(&(#src));
                for #item in #tokens.iter() {
                    #adjoint::accumulate(&mut #total, #item);
                }
            });
            let item_seed = Seed {
                tokens: total.to_token_stream(),
                negated: seed.negated,
                whole: true,
                unread: false,
                owned: false,
            };
            return self.pass(elem, &item_seed, Factor::One);
        }
        let total = self.temp("repeated_bar");
        let sum = if self.dual {
            quote!(let #total: ::autodiff::Dual = #tokens.iter().copied().sum();)
        } else {
            quote!(let #total: f64 = #tokens.iter().sum();)
        };
        self.cx.rev.push(sum);
        let item_seed = Seed {
            tokens: total.to_token_stream(),
            negated: seed.negated,
            whole: false,
            unread: false,
            owned: false,
        };
        self.pass(elem, &item_seed, Factor::One)
    }

    /// Whether the body has a loop (one given a trip counter so far).
    pub fn has_loops(&self) -> bool {
        self.loops > 0
    }

    /// A new trip counter's name: nested loops each have their own.
    pub(super) fn trips_ident(&mut self) -> Ident {
        self.loops += 1;
        Ident::new(&format!("trips_{}", self.loops), Span::mixed_site())
    }

    /// Whether `expr` is a `loop` whose value (a `break`'s) is one `f64`.
    pub(super) fn scalar_loop(&self, expr: &Expr) -> bool {
        let ExprKind::Loop { body, .. } = &expr.kind else {
            return false;
        };
        body.any_expr(&|expr| {
            matches!(&expr.kind, ExprKind::Break { value: Some(value), .. } if self.scalar(value))
        })
    }

    /// A loop's body: as a block, or, when it jumps, with an exit record
    /// and a reverse per exit (the statements up to the one that jumped).
    /// The caller has pushed the loop's scope, and wraps the loop in
    /// `exit_forward` and its reverse in `exit_reverse`.
    ///
    /// The record is one per iteration where a `continue` may end one;
    /// otherwise only the last iteration can end by a jump, and the loop
    /// records how it ended once (`Jumps::exit`, the returned variable).
    ///
    /// `level` is the loop's: its trip counter, label, and the adjoint of
    /// its value.
    pub(super) fn loop_body_at(
        &mut self,
        body: &Block,
        mut level: Jumps,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>, Option<Ident>)> {
        if !contains_jump(body) {
            let BlockCode { fwd, rev, .. } = self.block_inner(body, None)?;
            return Ok((fwd, rev, None));
        }
        let exit = (!continues(body, level.label.as_deref(), false))
            .then(|| Ident::new(&format!("exit_{}", self.loops), Span::mixed_site()));
        level.exit = exit.clone();
        level.depth = self.depth;
        self.jumps.push(level);
        // Its reverse is one per exit (`by_exit`), which recycles nothing.
        let outer = self.recycle.take();
        let result = (|| {
            let mut prelude = Vec::new();
            let mut fwd = Vec::new();
            let mut revs = Vec::new();
            let mut owners = Vec::new();
            let mut taken = HashMap::new();
            for (j, stmt) in body.stmts.iter().enumerate() {
                let before = self.jumps.last().map_or(0, |jumps| jumps.next);
                self.implied_if = exit.is_some() && ends_in_a_jump(stmt);
                let code = self.stmt(stmt, &mut prelude);
                self.implied_if = false;
                if let Some(rev) = self.implied_taken.take() {
                    taken.insert(j, rev);
                }
                let (f, r) = code?;
                let after = self.jumps.last().map_or(0, |jumps| jumps.next);
                owners.extend((before..after).map(|k| (k + 1, j)));
                fwd.extend(f);
                revs.push(r);
            }
            Ok((prelude, fwd, revs, owners, taken))
        })();
        self.jumps.pop();
        self.recycle = outer;
        let (prelude, mut fwd, revs, owners, taken) = result?;
        let stack = &self.stack;
        if exit.is_none() {
            fwd.push(quote!(#stack.push_arm(0);));
        }
        let exits = owners.iter().map(|&(k, j)| (k, j + 1));
        let rev = by_exit(stack, exit.as_ref(), &prelude, &revs, &taken, exits);
        Ok((fwd, vec![rev], exit))
    }

    /// Around a loop whose exit is recorded once (`loop_body_at`): its
    /// variable before the loop, and its push after it, before the trips.
    fn exit_forward(&self, exit: Option<&Ident>) -> (TokenStream, TokenStream) {
        let stack = &self.stack;
        match exit {
            Some(exit) => (
                quote!(let mut #exit: u32 = 0;),
                quote!(#stack.push_arm(#exit);),
            ),
            None => (quote!(), quote!()),
        }
    }

    /// Before the reversed iterations: the trips, popped, and then (for an
    /// exit recorded once) the exit; returns them and the trip count.
    fn exit_reverse(&self, exit: Option<&Ident>, trips: &Ident) -> (TokenStream, TokenStream) {
        let stack = &self.stack;
        match exit {
            Some(exit) => (
                quote! {
                    let #trips = #stack.pop_trips();
                    let mut #exit = #stack.pop_arm();
                },
                trips.to_token_stream(),
            ),
            None => (quote!(), quote!(#stack.pop_trips())),
        }
    }

    /// A `for`'s `.take(trips)` of the reversed indices, and what pops its
    /// trips (and exit) before the loop where its exit is recorded once.
    fn take_trips(
        &self,
        exit: Option<&Ident>,
        trips: &Ident,
        take: TokenStream,
    ) -> (TokenStream, TokenStream) {
        if exit.is_none() {
            return (quote!(), take);
        }
        let (popped, count) = self.exit_reverse(exit, trips);
        (popped, quote!(.take(#count)))
    }

    /// `while`: the forward counts the trips (leaving the loop as soon as
    /// an observed value is not finite, where the tape would have stopped)
    /// and pushes the count; the reverse runs the reversed body that many
    /// times.
    pub(super) fn while_loop(
        &mut self,
        label: Option<&syn::Label>,
        cond: &Expr,
        body: &Block,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        if self.active(cond) || has_call(cond) || matches!(cond.kind, ExprKind::Let { .. }) {
            return unsupported("a `while` condition with a derivative", cond);
        }
        let stack = self.stack.clone();
        let trips = self.trips_ident();
        let observes: Vec<TokenStream> = self
            .active_places(cond)
            .into_iter()
            .map(|place| quote!(#stack.observe(#place);))
            .collect();
        self.depth += 1;
        self.scopes.push(Scope::default());
        let code = self.loop_body_at(body, level(label, Some(trips.clone())));
        self.scopes.pop();
        self.depth -= 1;
        let (fwd, rev, exit) = code?;
        let (declare, record) = self.exit_forward(exit.as_ref());
        let (popped, count) = self.exit_reverse(exit.as_ref(), &trips);
        let cond_src = cond.source.to_token_stream();
        Ok((
            vec![quote! {
                let mut #trips: usize = 0;
                #declare
                #label while { #(#observes)* #stack.finite() && (#cond_src) } {
                    #trips += 1;
                    #(#fwd)*
                }
                #record
                #stack.push_trips(#trips);
            }],
            vec![quote! {
                #popped
                for _ in 0..#count {
                    #(#rev)*
                }
            }],
        ))
    }

    /// `loop`: counted like a `while` (the forward pushes its trips, each
    /// iteration how it ended), its value that of the `break` that ended
    /// it, whose reverse `seed` (the adjoint of the loop's value) seeds.
    /// The forward leaves as soon as an observed value is not finite,
    /// where the tape would have stopped.
    pub(super) fn loop_expr(
        &mut self,
        label: Option<&syn::Label>,
        body: &Block,
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        if seed.is_some_and(|seed| seed.whole) {
            return unsupported_block("a `loop` whose value is an array", body);
        }
        let stack = self.stack.clone();
        let trips = self.trips_ident();
        let mut level = level(label, Some(trips.clone()));
        level.seed = seed.cloned();
        let active = body.any_expr(&|expr| {
            matches!(&expr.kind, ExprKind::Break { value: Some(value), .. } if self.active(value))
        });
        self.depth += 1;
        self.scopes.push(Scope::default());
        let code = self.loop_body_at(body, level);
        self.scopes.pop();
        self.depth -= 1;
        let (fwd, rev, exit) = code?;
        let (declare, record) = self.exit_forward(exit.as_ref());
        let (popped, count) = self.exit_reverse(exit.as_ref(), &trips);
        let name = label.map(|label| &label.name);
        let rev = vec![quote! {
            #popped
            for _ in 0..#count {
                #(#rev)*
            }
        }];
        // A loop no `break` leaves ends only by `return`, which pushes its
        // trips: it has no value, and a failed sweep leaves the function.
        if self.early && !body.any_expr(&|expr| matches!(expr.kind, ExprKind::Break { .. })) {
            let forward = syn::Lifetime::new("'forward", Span::mixed_site());
            return Ok((
                vec![quote!(let mut #trips: usize = 0; #declare)],
                quote!(#label loop {
                    if !#stack.finite() {
                        break #forward #stack.failed();
                    }
                    #trips += 1;
                    #(#fwd)*
                }),
                rev,
            ));
        }
        // A loop whose value is a number leaves with the failed sweep's
        // NaN; one with a value of another type (an integer), which cannot
        // depend on a tracked value, runs as written.
        // A loop with a value nothing tracked reaches (`let k = loop {
        // break 0.5; }`) runs as written too: its `break` needs a value of
        // a type not known here.
        let valued =
            body.any_expr(&|expr| matches!(&expr.kind, ExprKind::Break { value: Some(_), .. }));
        let stop = match (seed, active) {
            (None, _) if valued => None,
            (None, _) => Some(quote!(break #name;)),
            (Some(_), true) => Some(quote!(break #name #stack.failed();)),
            (Some(_), false) => None,
        }
        .map(|stop| quote!(if !#stack.finite() { #stop }));
        let value = self.temp_value();
        Ok((
            vec![quote!(let mut #trips: usize = 0; #declare)],
            quote!({
                let #value = #label loop {
                    #stop
                    #trips += 1;
                    #(#fwd)*
                };
                #record
                #stack.push_trips(#trips);
                #value
            }),
            rev,
        ))
    }

    pub(super) fn for_loop(
        &mut self,
        whole: &Expr,
        label: Option<&syn::Label>,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        body: &Block,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let syntax = pat.syntax;
        let iter_src = iter.source.to_token_stream();
        // A loop that may stop early pushes how many trips it made.
        let stack = self.stack.clone();
        let trips = self.trips_ident();
        let counted = contains_jump(body);
        let counter = counted.then(|| trips.clone());
        let (count_init, count_step, count_push, take) = if counted {
            (
                quote!(let mut #trips: usize = 0;),
                quote!(#trips += 1;),
                quote!(#stack.push_trips(#trips);),
                quote!(.take(#stack.pop_trips())),
            )
        } else {
            (quote!(), quote!(), quote!(), quote!())
        };
        if range_like(iter) {
            // A range whose bounds change before the reverse sweep (`0..h.len()`
            // where `h = next` ends each layer) is kept as the forward made it.
            let (keep, iter_src, popped_range) = if self.bounds_available(iter) {
                (None, iter_src.clone(), None)
            } else {
                let (keep, pop, range) = self.range_site(whole)?;
                (Some(keep), range.to_token_stream(), Some(pop))
            };
            self.depth += 1;
            self.scopes.push(Scope::default());
            let names = pat.names.clone();
            self.scope().available.extend(names);
            let code = self.loop_body_at(body, level(label, counter.clone()));
            self.scopes.pop();
            self.depth -= 1;
            let (fwd, rev, exit) = code?;
            let (declare, record) = self.exit_forward(exit.as_ref());
            let (popped, take) = self.take_trips(exit.as_ref(), &trips, take);
            return Ok((
                vec![quote! {
                    #count_init
                    #declare
                    #keep
                    #label for #syntax in #iter_src { #count_step #(#fwd)* }
                    #record
                    #count_push
                }],
                vec![
                    quote!(#popped_range #popped for #syntax in (#iter_src)#take.rev() { #(#rev)* }),
                ],
            ));
        }
        let Some(Elements {
            items,
            adaptors,
            counted,
        }) = self.elements(iter)
        else {
            return unsupported(format!("a `for` over {}", describe(iter)), whole);
        };
        let iter_src = self.borrowing_source(iter);
        let mut places = Vec::new();
        items.places(&mut places);
        // A local of numbers that changes before the reverse sweep (bound
        // again by each trip of a loop around, or written later): its items
        // are pushed after the loop, which borrows it unchanged, with their
        // count, and the reverse walks the popped copy.
        let mut saved = HashMap::new();
        let mut save_fwd = Vec::new();
        let mut save_rev = Vec::new();
        for place in &places {
            if self.fully_available(place) {
                continue;
            }
            let name = match &place.kind {
                ExprKind::Path(path) => path.path.get_ident(),
                _ => None,
            };
            let numbers = dims_of(place, &self.an.dims) == Some(1);
            // A `return` or a labelled jump would leave before the pushes
            // that the reverse of the statement it leaves pops.
            let stays = !body.any_expr(&|expr| match &expr.kind {
                ExprKind::Return(_) => true,
                ExprKind::Break { label, .. } => label.is_some(),
                ExprKind::Continue(label) => label.is_some(),
                _ => false,
            });
            let (Some(name), true, true) = (name, numbers, stays) else {
                return unsupported("a `for` over values that change", whole);
            };
            let copy = Ident::new(&format!("{}_items", name.unraw()), Span::mixed_site());
            let (stack, adjoint) = (&self.stack, &self.adjoint);
            let (spread, number) = if self.dual {
                (quote!(DualSpread), quote!(::autodiff::Dual))
            } else {
                (quote!(Spread), quote!(f64))
            };
            save_fwd.push(quote! {
                #adjoint::#spread::push_all(&#name[..], #stack);
                #stack.push_index(#name.len());
            });
            save_rev.push(quote! {
                let #copy: ::std::vec::Vec<#number> = {
                    let count = #stack.pop_index();
                    #stack.pop_run(count).collect()
                };
            });
            saved.insert(place.id, copy);
        }
        save_rev.reverse();
        if !adaptors
            .iter()
            .all(|(_, args)| args.iter().all(|arg| self.fully_available(arg)))
        {
            return unsupported("a `for` over indices that change", whole);
        }
        let mut leaves = Vec::new();
        if items.leaves(pat.syntax, &mut leaves).is_none() {
            return unsupported("a `for` pattern", whole);
        }
        let index = Ident::new("index", Span::mixed_site());
        let adjoint = self.adjoint.clone();
        // Each element with a derivative gets its adjoint, added into the
        // place's at the end of the reversed iteration.
        let mut spreads = Vec::new();
        for (_, place, _) in &leaves {
            spreads.push(if self.active(place) {
                Some(self.bar_place(place)?)
            } else {
                None
            });
        }
        self.depth += 1;
        self.scopes.push(Scope::default());
        let names = pat.names.clone();
        self.scope().available.extend(names);
        let mut declare = Vec::new();
        let mut spread = Vec::new();
        // A model taken from a model's field (`for layer in &self.layers`)
        // whose body reads the model only through it: its adjoint is the
        // field's item itself, borrowed for the trip, not one of its own
        // zeroed and added in after.
        let lone = leaves.len() == 1;
        for ((element, place, skip), place_bar) in leaves.iter().zip(&spreads) {
            let at = at(&index, *skip);
            let name = element.to_string();
            if !self.an.active.contains(&name) {
                continue;
            }
            let bar = self.bind(&name);
            let borrowed = lone
                && self.an.models.contains(&name)
                && self.an.bound.get(&name).copied() == Some(1)
                && root(place).is_some_and(|model| !mentions(body, &model));
            match place_bar {
                Some(place_bar) if borrowed => {
                    declare.push(quote!(let #bar = &mut #place_bar[#at];));
                    if let Some(last) = self.scope().bars.last_mut() {
                        last.1 = quote!((*#bar));
                    }
                }
                Some(place_bar) => {
                    declare.push(quote!(let mut #bar = #adjoint::zero_like(&#place_bar[#at]);));
                    spread.push(quote!(#adjoint::accumulate(&mut #place_bar[#at], &#bar);));
                }
                None => {
                    let src = place_tokens(place, &saved);
                    declare.push(quote!(let mut #bar = #adjoint::zero(&#src[#at]);));
                }
            }
        }
        let code = self.loop_body_at(body, level(label, counter.clone()));
        self.scopes.pop();
        self.depth -= 1;
        let (fwd, rev, exit) = code?;
        let (exit_declare, record) = self.exit_forward(exit.as_ref());
        let (popped, take) = self.take_trips(exit.as_ref(), &trips, take);
        let len = items.len(&saved);
        // The trips numbered as the forward's `enumerate` numbered them,
        // where it comes after the adaptors.
        let position = if counted {
            Ident::new("position", Span::mixed_site())
        } else {
            index.clone()
        };
        let element_value = items.item(&index, &position, &saved);
        // `(0..n).rev().rev()` is `0..n`.
        let mut adaptors = adaptors;
        let mut reverse = quote!(.rev());
        if !counted
            && take.is_empty()
            && adaptors.last().is_some_and(|(method, _)| *method == "rev")
        {
            adaptors.pop();
            reverse = quote!();
        }
        let mut adaptors: Vec<TokenStream> = adaptors
            .iter()
            .map(|(method, args)| {
                let args = args.iter().map(|arg| arg.source.to_token_stream());
                quote!(.#method(#(#args),*))
            })
            .collect();
        let walked = if counted {
            adaptors.push(quote!(.enumerate()));
            quote!((#position, #index))
        } else {
            quote!(#index)
        };
        Ok((
            vec![quote! {
                #count_init
                #exit_declare
                #label for #syntax in #iter_src { #count_step #(#fwd)* }
                #record
                #count_push
                #(#save_fwd)*
            }],
            vec![quote! {
                #(#save_rev)*
                #popped
                for #walked in (0..#len)#(#adaptors)*#take #reverse {
                    #[allow(unused_variables)]
                    let #syntax = #element_value;
                    #(#declare)*
                    #(#rev)*
                    #(#spread)*
                }
            }],
        ))
    }

    /// Whether `iter` is a binding of numbers (a `Vec` or an array, not a
    /// slice parameter) that a `for` takes by value (`for s in squares`):
    /// the forward walks `squares.iter().copied()` instead, the same
    /// numbers in the same order, so that the `Vec` is still there for the
    /// reverse sweep (the body can no longer name it either way).
    pub(super) fn by_value(&self, iter: &Expr) -> bool {
        match &iter.kind {
            ExprKind::Path(path) => path.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                !self.an.slices.contains(&name)
                    && !self.an.arrays.contains(&name)
                    && !self.an.references.contains(&name)
                    && dims_of(iter, &self.an.dims) == Some(1)
            }),
            _ => false,
        }
    }

    /// The forward sweep's iterator for the items of `elements`: as
    /// written, except that a local `Vec` of numbers taken by value (`for v
    /// in squares`, `w.iter().zip(v)`) is walked as `v.iter().copied()`, so
    /// that the loop leaves it for the reverse sweep, which reads its items
    /// again by index (the same copies).
    fn borrowing_source(&self, iter: &Expr) -> TokenStream {
        match &iter.kind {
            ExprKind::Path(_) if self.by_value(iter) => {
                let source = iter.source.to_token_stream();
                quote!(#source.iter().copied())
            }
            ExprKind::Paren(inner) => {
                let inner = self.borrowing_source(inner);
                quote!((#inner))
            }
            ExprKind::Structural {
                receiver,
                method,
                turbofish,
                args,
            } => {
                // `v.iter()` borrows already: only a receiver that is an
                // iterator itself (`v.iter().zip(u)`) is looked into.
                let receiver = match receiver.kind {
                    ExprKind::Path(_) => receiver.source.to_token_stream(),
                    _ => self.borrowing_source(receiver),
                };
                let args = args.iter().map(|arg| {
                    if *method == "zip" {
                        self.borrowing_source(arg)
                    } else {
                        arg.source.to_token_stream()
                    }
                });
                quote!(#receiver.#method #turbofish(#(#args),*))
            }
            _ => iter.source.to_token_stream(),
        }
    }

    /// What a `for` iterates, when it is the items of places walked by
    /// index.
    pub(super) fn elements<'e, 'a>(&self, iter: &'e Expr<'a>) -> Option<Elements<'e, 'a>> {
        let place = |place, by_ref| {
            Some(Elements {
                items: Items::Place {
                    place,
                    by_ref,
                    skip: None,
                },
                adaptors: Vec::new(),
                counted: false,
            })
        };
        match &iter.kind {
            ExprKind::Path(path) => {
                let name = path.path.get_ident()?.to_string();
                // A reference to a row (`for x in xs`, `let x = &xs[i]`):
                // walked as `x.iter()` is.
                if self.an.references.contains(&name) {
                    return place(iter, true);
                }
                if !self.an.slices.contains(&name) && !self.an.arrays.contains(&name) {
                    // A local `Vec` (or array) of numbers by value: its
                    // items, copied (see `by_value`).
                    return self.by_value(iter).then(|| Elements {
                        items: Items::Place {
                            place: iter,
                            by_ref: false,
                            skip: None,
                        },
                        adaptors: Vec::new(),
                        counted: false,
                    });
                }
                // A slice's items are references; an array's or a `Vec`'s
                // of numbers are copies (of anything else: references).
                let by_ref =
                    self.an.slices.contains(&name) || dims_of(iter, &self.an.dims) != Some(1);
                place(iter, by_ref)
            }
            ExprKind::Paren(inner) => self.elements(inner),
            ExprKind::Reference {
                mutability: None,
                expr,
            } if is_place(expr) => place(expr, true),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => {
                let method_name = method.to_string();
                match (method_name.as_str(), args.as_slice()) {
                    ("iter", []) if is_place(receiver) => place(receiver, true),
                    ("copied" | "cloned", []) => {
                        let mut inner = self.elements(receiver)?;
                        match &mut inner.items {
                            Items::Place { by_ref, .. } if *by_ref => *by_ref = false,
                            _ => return None,
                        }
                        Some(inner)
                    }
                    // The position is the index while no adaptor has
                    // picked indices yet, else the trip's number
                    // (`counted`).
                    ("enumerate", []) => {
                        let inner = self.elements(receiver)?;
                        (!inner.counted && !matches!(inner.items, Items::Enumerate(_))).then(|| {
                            Elements {
                                items: Items::Enumerate(Box::new(inner.items)),
                                counted: !inner.adaptors.is_empty(),
                                adaptors: inner.adaptors,
                            }
                        })
                    }
                    ("zip", [other]) => {
                        let inner = self.skipped(self.elements(receiver)?);
                        let other = self.skipped(self.elements(other)?);
                        (inner.adaptors.is_empty() && other.adaptors.is_empty()).then(|| Elements {
                            items: Items::Zip(Box::new(inner.items), Box::new(other.items)),
                            adaptors: Vec::new(),
                            counted: false,
                        })
                    }
                    // (An adaptor after a counted `enumerate` would pick
                    // among numbered trips: not read.)
                    ("rev", []) | ("step_by" | "skip" | "take", [_]) => {
                        let mut inner = self.elements(receiver)?;
                        if inner.counted {
                            return None;
                        }
                        inner.adaptors.push((method, args.as_slice()));
                        Some(inner)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A side of a `zip` that skips its first items (`x.iter().skip(1)`):
    /// its place read from the skip on, the sides' indices then differing
    /// by it (`Items::Place::skip`). Any other is as it was.
    fn skipped<'e, 'a>(&self, elements: Elements<'e, 'a>) -> Elements<'e, 'a> {
        match (&elements.items, elements.adaptors.as_slice()) {
            (
                Items::Place {
                    place,
                    by_ref,
                    skip: None,
                },
                [(method, [k])],
            ) if *method == "skip" && !elements.counted && self.fully_available(k) => Elements {
                items: Items::Place {
                    place,
                    by_ref: *by_ref,
                    skip: Some(k),
                },
                adaptors: Vec::new(),
                counted: false,
            },
            _ => elements,
        }
    }

    /// The tracked places an expression reads (for the finiteness check of
    /// a branch condition).
    pub(super) fn active_places(&self, expr: &Expr) -> Vec<TokenStream> {
        let mut out = Vec::new();
        self.collect_places(expr, &mut out);
        out
    }

    /// Whether `name` is a parameter of numbers (not a model) that no
    /// statement writes or binds again: its value was observed before
    /// the forward sweep ran and is the same everywhere.
    fn observed_at_entry(&self, name: &str) -> bool {
        self.an.params.contains(name)
            && !self.an.models.contains(name)
            && !self.an.top_lets.contains_key(name)
            && !self.an.pushed.contains(name)
            && self.an.stable(name, 0)
    }

    pub(super) fn collect_places(&self, expr: &Expr, out: &mut Vec<TokenStream>) {
        match &expr.kind {
            // A running extreme (`if d < best`): see `unobserved`.
            ExprKind::Path(path)
                if path
                    .path
                    .get_ident()
                    .is_some_and(|ident| self.unobserved.contains(&ident.to_string())) => {}
            // An item of a parameter of numbers that the body never
            // writes: the whole parameter was observed before the forward
            // sweep (see `adjoint::compile`'s early checks).
            ExprKind::Path(_) | ExprKind::Index { .. }
                if crate::flow::root(expr).is_some_and(|name| self.observed_at_entry(&name)) => {}
            // A whole array or `Vec` (`if a == b`) by reference: observing
            // it must not move it.
            ExprKind::Path(_) | ExprKind::Index { .. } if self.active(expr) => {
                let place = expr.source.to_token_stream();
                out.push(if self.scalar(expr) {
                    place
                } else {
                    quote!(&#place)
                });
            }
            // A field (`if m.layers[k].relu`, `m.scale > 0.0`): itself, by
            // reference, whatever its type (a `bool` is always finite), not
            // the struct it is read from, which observing by value would
            // move and which may be a whole layer.
            ExprKind::Field { .. } if is_place(expr) && self.active(expr) => {
                let place = expr.source.to_token_stream();
                out.push(quote!(&(#place)));
            }
            // Its names are its own (`all(|v| *v > 0.0)`), bound as it runs.
            ExprKind::Closure { .. } => {}
            // A length, a count or a truth value (`v.len()`, `v.iter().all(..)`)
            // reads no number the tape would check.
            _ if super::super::analysis::is_count(expr) => {}
            _ => {
                for child in expr.children() {
                    if let crate::ast::Child::Expr(child) = child {
                        self.collect_places(child, out);
                    }
                }
            }
        }
    }
}

/// Whether a `continue` may end an iteration of the loop whose body this
/// is (labelled `label`): an unlabelled one outside any inner loop, or one
/// naming the label from anywhere inside. A closure's body is its own.
fn continues(block: &Block, label: Option<&str>, nested: bool) -> bool {
    block.stmts.iter().any(|stmt| match stmt {
        Stmt::Let { init, .. } => init
            .as_ref()
            .is_some_and(|init| continues_in(init, label, nested)),
        Stmt::Item(_) => false,
        Stmt::Expr(expr, _) => continues_in(expr, label, nested),
    })
}

fn continues_in(expr: &Expr, label: Option<&str>, nested: bool) -> bool {
    let nested = match &expr.kind {
        ExprKind::Continue(None) => return !nested,
        ExprKind::Continue(Some(named)) => {
            return label.is_some_and(|label| named.ident == label);
        }
        ExprKind::Closure { .. } => return false,
        ExprKind::For { .. } | ExprKind::While { .. } | ExprKind::Loop { .. } => true,
        _ => nested,
    };
    expr.children().into_iter().any(|child| match child {
        crate::ast::Child::Expr(inner) => continues_in(inner, label, nested),
        crate::ast::Child::Block(block) => continues(block, label, nested),
    })
}

/// Whether `stmt` is `if c { ..; jump }` with no `else` and no attribute,
/// its block's last statement a `break`, `continue` or `return`. In a loop
/// no `continue` ends an iteration of, that jump leaves the loop.
fn ends_in_a_jump(stmt: &Stmt) -> bool {
    let Stmt::Expr(expr, _) = stmt else {
        return false;
    };
    let ExprKind::If {
        cond,
        then_branch,
        else_branch: None,
    } = &expr.kind
    else {
        return false;
    };
    let attributed = match expr.source {
        Source::Expr(syntax) => !crate::emit::attributes(syntax).is_empty(),
        Source::Macro(_) => true,
    };
    !attributed
        && !matches!(cond.kind, ExprKind::Let { .. })
        && matches!(then_branch.stmts.last(), Some(Stmt::Expr(last, _)) if is_jump(last))
}

/// Whether `block` reads the binding `name` anywhere.
fn mentions(block: &Block, name: &str) -> bool {
    block.any_expr(&|expr| {
        matches!(&expr.kind, ExprKind::Path(path)
            if path.path.get_ident().is_some_and(|ident| ident == name))
    })
}
