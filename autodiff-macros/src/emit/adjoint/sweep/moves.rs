//! The `Vec` methods that move items: each item carries its adjoint, and
//! the reverse undoes the move on the adjoints. `swap`, `reverse` and
//! `sort_by` permute (`v_bar.swap(i, j)`, `v_bar.reverse()`, the saved
//! permutation undone by `__adjoint::unsort`); `truncate`, `pop`,
//! `insert` and `extend_from_slice` change the length, and the adjoint,
//! shaped like the `Vec` at the end of the forward (see `Analysis::
//! pushed`), gets back the length it had before each (`resize` to the
//! saved length, the popped item's adjoint pushed back, the inserted one
//! taken out, the appended run split off and added into its slice's);
//! `concat` splits its value's adjoint into its parts'.

use super::*;

/// The `Vec` methods the sweep reverses as statements on a binding: the
/// refusals accept exactly these as statements that move items.
pub(crate) const MOVES: &[&str] = &[
    "swap",
    "reverse",
    "truncate",
    "clear",
    "pop",
    "insert",
    "remove",
    "extend_from_slice",
    "resize",
    "fill",
    "sort_by",
];

/// `v.pop().unwrap()`: the `pop` (whose receiver is `v`); `v.remove(i)`:
/// itself.
pub(super) fn popped<'e, 'a>(expr: &'e Expr<'a>) -> Option<&'e Expr<'a>> {
    match &expr.kind {
        ExprKind::Structural { method, args, .. } if *method == "remove" && args.len() == 1 => {
            Some(expr)
        }
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } if *method == "unwrap" && args.is_empty() => match &receiver.kind {
            ExprKind::Structural {
                method: pop,
                args: pop_args,
                ..
            } if *pop == "pop" && pop_args.is_empty() => Some(receiver),
            _ => None,
        },
        ExprKind::Paren(inner) => popped(inner),
        _ => None,
    }
}

/// `parts.concat()`: its `parts`.
pub(super) fn concatenated<'e, 'a>(expr: &'e Expr<'a>) -> Option<&'e Expr<'a>> {
    match &expr.kind {
        ExprKind::Paren(inner) => concatenated(inner),
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } if *method == "concat" && args.is_empty() => Some(receiver),
        _ => None,
    }
}

/// `a`, `&a`, `a.to_vec()`, `a.clone()`, `a.as_slice()`, `&a[..]`: the
/// place whose items a part of a `concat` (or the slice appended by
/// `extend_from_slice`) copies, if it is one.
fn copied_place<'e, 'a>(expr: &'e Expr<'a>) -> Option<&'e Expr<'a>> {
    match &expr.kind {
        ExprKind::Paren(inner)
        | ExprKind::Reference {
            mutability: None,
            expr: inner,
        } => copied_place(inner),
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } if args.is_empty()
            && matches!(method.to_string().as_str(), "to_vec" | "clone" | "as_slice") =>
        {
            copied_place(receiver)
        }
        _ if is_place(expr) => Some(expr),
        _ => None,
    }
}

/// `[a, b]`, `&[a, b]`, `vec![a, b]`: the list literal, if it is one.
fn literal<'e, 'a>(expr: &'e Expr<'a>) -> Option<&'e Expr<'a>> {
    match &expr.kind {
        ExprKind::Paren(inner)
        | ExprKind::Reference {
            mutability: None,
            expr: inner,
        } => literal(inner),
        ExprKind::Array(_) | ExprKind::VecList(_) => Some(expr),
        _ => None,
    }
}

impl<'m> Sweep<'m> {
    /// Whether `list`, a literal, holds numbers.
    fn all_scalar(&self, list: &Expr) -> bool {
        matches!(&list.kind, ExprKind::Array(items) | ExprKind::VecList(items)
            if items.iter().all(|item| self.scalar(item)))
    }

    /// `v.swap(i, j)`, `v.reverse()`, `v.truncate(n)`, `v.pop()`,
    /// `v.insert(i, e)`, `v.extend_from_slice(s)`, `v.sort_by(cmp)` (and
    /// `v.resize(n, e)`, `v.fill(e)`, `v.clear()`; a `remove` is read as
    /// a popped item, `rev_pop`) on a
    /// local `Vec` (or array) with a derivative, as statements. Values read
    /// before the move are saved as for any write (`Analysis::writes`).
    pub(super) fn moved_items(
        &mut self,
        expr: &Expr,
        receiver: &Expr,
        method: &str,
        args: &[Expr],
        semi: Option<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        self.movable(expr, receiver, method)?;
        // The item `insert`ed and the slice appended carry adjoints; the
        // indices, lengths and the comparison do not.
        let positions = match method {
            "insert" | "resize" => &args[..args.len().min(1)],
            "extend_from_slice" | "sort_by" | "fill" => &[],
            _ => args,
        };
        if positions
            .iter()
            .any(|arg| self.active(arg) || has_call(arg))
        {
            return unsupported(format!("`.{method}()` of a tracked value"), expr);
        }
        self.cx = StmtCx::default();
        let bar = self.bar_place(receiver)?;
        let receiver_src = receiver.source.to_token_stream();
        let stack = self.stack.clone();
        let adjoint = self.adjoint.clone();
        let arg_src: Vec<TokenStream> = args
            .iter()
            .map(|arg| arg.source.to_token_stream())
            .collect();
        match (method, arg_src.as_slice()) {
            ("swap", [i, j]) => {
                // The reverse swaps the same places: the indices as they
                // were, saved where they may have changed.
                if !args.iter().all(|arg| self.fully_available(arg)) {
                    let (si, sj) = (self.temp("swap_i"), self.temp("swap_j"));
                    self.cx.rev.push(quote! {
                        let #sj = #stack.pop_index();
                        let #si = #stack.pop_index();
                        #bar.swap(#si, #sj);
                    });
                    return Ok(self.finish(quote! {
                        {
                            let (#si, #sj) = (#i, #j);
                            #stack.push_index(#si);
                            #stack.push_index(#sj);
                            #receiver_src.swap(#si, #sj) #semi
                        }
                    }));
                }
                self.cx.rev.push(quote!(#bar.swap(#i, #j);));
                Ok(self.finish(quote!(#receiver_src.swap(#i, #j) #semi)))
            }
            ("reverse", []) => {
                self.cx.rev.push(quote!(#bar.reverse();));
                Ok(self.finish(quote!(#receiver_src.reverse() #semi)))
            }
            // The dropped items' adjoints come back as zeros: numbers. A
            // `pop` whose item is dropped is a truncation by one, or none
            // on an empty `Vec`.
            ("truncate", [_]) | ("pop", []) | ("clear", []) => {
                self.items_are_numbers(expr, receiver, method)?;
                if method == "pop" {
                    self.moves.insert(expr.id);
                }
                let len = self.temp("len_before");
                self.cx.rev.push(quote! {
                    let #len = #stack.pop_index();
                    #bar.resize(#len, 0.0);
                });
                let call = expr.source.to_token_stream();
                Ok(self.finish(quote! {
                    {
                        #stack.push_index(#receiver_src.len());
                        #call #semi
                    }
                }))
            }
            // The inserted item's adjoint is taken out at the index it
            // went to (saved where it may have changed), then flows into
            // the item's operands.
            ("insert", [i, _]) => {
                self.items_are_numbers(expr, receiver, method)?;
                let item = &args[1];
                let index = self.index_again(&args[0], i, "inserted_at");
                let item_bar = self.temp("inserted_bar");
                self.cx
                    .rev
                    .push(quote!(let #item_bar = #adjoint::take_item(#stack, &mut #bar, #index);));
                self.rev(item, Seed::new(item_bar.to_token_stream()))?;
                let v = self.fwd(item)?;
                Ok(self.finish(quote!(#receiver_src.insert(#i, #v) #semi)))
            }
            // The `Vec` gets back its length before (saved), and the
            // items the resize appended, copies of its value, give that
            // value their adjoints' sum.
            ("resize", [n, _]) => {
                self.items_are_numbers(expr, receiver, method)?;
                let item = &args[1];
                let len = self.temp("len_before");
                self.cx
                    .index_saves
                    .push((quote!(#receiver_src.len()), len.clone()));
                let appended = self.temp("appended_bar");
                self.cx
                    .rev
                    .push(quote!(let #appended = #adjoint::resized(&mut #bar, #len);));
                self.rev(item, Seed::new(appended.to_token_stream()))?;
                let v = self.fwd(item)?;
                Ok(self.finish(quote!(#receiver_src.resize(#n, #v) #semi)))
            }
            // Every item becomes a copy of the value: the value gets the
            // sum of their adjoints, and the items before the fill none.
            ("fill", [_]) => {
                self.items_are_numbers(expr, receiver, method)?;
                let item = &args[0];
                let filled = self.temp("filled_bar");
                self.cx
                    .rev
                    .push(quote!(let #filled = #adjoint::filled(&mut #bar);));
                self.rev(item, Seed::new(filled.to_token_stream()))?;
                let v = self.fwd(item)?;
                Ok(self.finish(quote!(#receiver_src.fill(#v) #semi)))
            }
            // The appended items' adjoints are split off the end, at the
            // length saved before, and added into the slice's.
            ("extend_from_slice", [slice]) => {
                self.items_are_numbers(expr, receiver, method)?;
                let len = self.temp("len_before");
                self.cx
                    .index_saves
                    .push((quote!(#receiver_src.len()), len.clone()));
                let tail = self.temp("appended_bar");
                let source = &args[0];
                self.cx
                    .rev
                    .push(quote!(let #tail = #adjoint::split_items(#stack, &mut #bar, #len);));
                if self.active(source) {
                    // A place whose shape the body does not show (a
                    // model's field, `v.extend_from_slice(&m.w)`) is a
                    // slice of numbers too: it extends a `Vec` of them.
                    let numbers = |place: &Expr| {
                        self.slice_of_numbers(place) || dims_of(place, &self.an.dims).is_none()
                    };
                    match (copied_place(source), literal(source)) {
                        (Some(place), _) if numbers(place) => {
                            let source_bar = self.saved_bar_place(place)?;
                            self.cx
                                .rev
                                .push(quote!(#adjoint::add_items(&mut #source_bar, &#tail);));
                        }
                        // `&[a * b, c]`: each item takes its adjoint.
                        (None, Some(list)) if self.all_scalar(list) => {
                            let seed = Seed {
                                whole: true,
                                ..Seed::new(tail.to_token_stream())
                            };
                            self.rev(list, seed)?;
                        }
                        _ => {
                            return unsupported(
                                "`.extend_from_slice()` of a value that is not a slice of numbers",
                                source,
                            )
                        }
                    }
                }
                // A literal's items with the values they hoist.
                let slice = match (copied_place(source), literal(source)) {
                    (None, Some(list)) => {
                        let list = self.fwd(list)?;
                        quote!(&#list)
                    }
                    _ => slice.clone(),
                };
                Ok(self.finish(quote!(#receiver_src.extend_from_slice(#slice) #semi)))
            }
            // Sorted as written, with the permutation saved: the reverse
            // moves each adjoint back to its item's place before the sort.
            ("sort_by", [compare]) => {
                if !matches!(args[0].kind, ExprKind::Closure { .. }) {
                    return unsupported(
                        "`.sort_by()` with a comparison that is not a closure",
                        expr,
                    );
                }
                self.cx
                    .rev
                    .push(quote!(#adjoint::unsort(#stack, &mut #bar);));
                Ok(self
                    .finish(quote!(#adjoint::sort_by(#stack, &mut #receiver_src, #compare) #semi)))
            }
            _ => unsupported(format!("`.{method}()`"), expr),
        }
    }

    /// `std::mem::swap(&mut a, &mut b);` of two locals with derivatives:
    /// the reverse swaps their adjoints back. Each must be a binding of
    /// the body, bound once (and, unless a number, never assigned whole), not a parameter
    /// (whose adjoint is its gradient, shaped like the argument), with the
    /// same known shape.
    pub(super) fn swapped_values(
        &mut self,
        expr: &Expr,
        semi: Option<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let (a, b) = expr.swapped().expect("a swap");
        for side in [a, b] {
            let Some(name) = (match &side.kind {
                ExprKind::Path(path) => path.path.get_ident().map(ToString::to_string),
                _ => None,
            }) else {
                return unsupported("`mem::swap` of a part of a value", expr);
            };
            if self.an.params.contains(&name) {
                return unsupported("`mem::swap` of a parameter", expr);
            }
            let number = dims_of(side, &self.an.dims) == Some(0);
            if self.an.bound.get(&name).copied() != Some(1)
                || (!number && self.an.assigned.contains_key(&name))
                || !self.root_active(side)
            {
                return unsupported(
                    "`mem::swap` of a binding bound again or assigned whole",
                    expr,
                );
            }
        }
        let dims = dims_of(a, &self.an.dims);
        if dims.is_none() || dims != dims_of(b, &self.an.dims) {
            return unsupported(
                "`mem::swap` of values whose shapes the reverse sweep cannot see",
                expr,
            );
        }
        self.cx = StmtCx::default();
        let (a_bar, b_bar) = (self.bar_place(a)?, self.bar_place(b)?);
        self.cx
            .rev
            .push(quote!(::core::mem::swap(&mut #a_bar, &mut #b_bar);));
        let call = expr.source.to_token_stream();
        Ok(self.finish(quote!(#call #semi)))
    }

    /// An index `i` (the tokens of `arg`) as the reverse reads it: as
    /// written where it is there again, else saved before the statement
    /// under a name made of `name`.
    fn index_again(&mut self, arg: &Expr, i: &TokenStream, name: &str) -> TokenStream {
        if self.fully_available(arg) {
            return i.clone();
        }
        let at = self.temp(name);
        self.cx.index_saves.push((i.clone(), at.clone()));
        at.to_token_stream()
    }

    /// Whether the reverse can undo `method` on `receiver`: a local binding
    /// (not a part of a value), bound once and never assigned whole, so
    /// that its adjoint has the length the move leaves; not a parameter,
    /// whose adjoint is its gradient, shaped like the argument.
    fn movable(&self, expr: &Expr, receiver: &Expr, method: &str) -> R<()> {
        let is_binding =
            matches!(&receiver.kind, ExprKind::Path(path) if path.path.get_ident().is_some());
        if !is_binding {
            return unsupported(format!("`.{method}()` on a part of a value"), expr);
        }
        if root(receiver).is_some_and(|name| self.an.params.contains(&name)) {
            return unsupported(format!("`.{method}()` on a parameter"), expr);
        }
        if root(receiver).is_some_and(|name| {
            self.an.assigned.contains_key(&name) || self.an.bound.get(&name).copied() != Some(1)
        }) {
            return unsupported(
                format!("`.{method}()` on a `Vec` assigned whole or bound again"),
                expr,
            );
        }
        Ok(())
    }

    /// Items whose adjoints come and go one number each: whether
    /// `receiver` is a `Vec` of numbers (else the construct keeps the
    /// tape). Then the item an `insert`, `resize` or `fill` writes is
    /// a number too, whatever the body shows of it (a model's field, `m.b`),
    /// or the plain function would not build.
    fn items_are_numbers(&self, expr: &Expr, receiver: &Expr, method: &str) -> R<()> {
        if dims_of(receiver, &self.an.dims) != Some(1) {
            return unsupported(
                format!(
                    "`.{method}()` of a `Vec` whose items the reverse sweep cannot see are numbers"
                ),
                expr,
            );
        }
        Ok(())
    }

    /// `v.pop().unwrap()` (or `v.remove(i)`) as a value with adjoint
    /// `seed`: the reverse pushes the item's adjoint back onto `v`'s (or
    /// puts it back at `i`), which has then the length the `pop` left.
    pub(super) fn rev_pop(&mut self, expr: &Expr, pop: &Expr, seed: &Seed) -> R<()> {
        let ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } = &pop.kind
        else {
            return unsupported(describe(expr), expr);
        };
        let method = method.to_string();
        self.movable(expr, receiver, &method)?;
        self.items_are_numbers(expr, receiver, &method)?;
        if seed.whole {
            return unsupported(format!("an item of `.{method}()` used as an array"), expr);
        }
        self.moves.insert(pop.id);
        let bar = self.bar_place(receiver)?;
        let item = seed.signed();
        if let [index] = args.as_slice() {
            if self.active(index) || has_call(index) {
                return unsupported("`.remove()` of a tracked value", expr);
            }
            let i = index.source.to_token_stream();
            let index = self.index_again(index, &i, "removed_at");
            let (stack, adjoint) = (self.stack.clone(), self.adjoint.clone());
            self.cx
                .rev
                .push(quote!(#adjoint::put_item(#stack, &mut #bar, #index, #item);));
        } else {
            self.cx.rev.push(quote!(#bar.push(#item);));
        }
        Ok(())
    }

    /// `[a, b].concat()` (or `vec![a.to_vec(), b.to_vec()].concat()`) with
    /// the adjoint of its whole value: each part takes its run of it, at
    /// the lengths the parts had (saved where they may change).
    pub(super) fn rev_concat(&mut self, expr: &Expr, parts: &Expr, seed: &Seed) -> R<()> {
        if !seed.whole || seed.negated || dims_of(expr, &self.an.dims) != Some(1) {
            return unsupported("`.concat()` used as a number", expr);
        }
        // A length the reverse cannot read again is saved before the
        // statement.
        let lens: Vec<TokenStream> = self
            .concat_lens(expr, parts)?
            .into_iter()
            .map(|(len, again)| {
                if again {
                    return len;
                }
                let name = self.temp("part_len");
                self.cx.index_saves.push((len, name.clone()));
                name.to_token_stream()
            })
            .collect();
        let (ExprKind::Array(items) | ExprKind::VecList(items)) = &parts.kind else {
            return unsupported(describe(expr), expr);
        };
        let whole = self.temp("concat_bar");
        let tokens = &seed.tokens;
        let (stack, adjoint) = (self.stack.clone(), self.adjoint.clone());
        self.cx.rev.push(quote!(let #whole: &[f64] = &#tokens;));
        let mut start = quote!(0);
        for (item, len) in items.iter().zip(lens) {
            let run = self.temp("part_bar");
            if self.active(item) {
                self.cx
                    .rev
                    .push(quote!(let #run = #adjoint::part(#stack, #whole, #start, #len);));
                match copied_place(item) {
                    Some(place) => {
                        let bar = self.saved_bar_place(place)?;
                        self.cx
                            .rev
                            .push(quote!(#adjoint::add_items(&mut #bar, #run);));
                    }
                    None => {
                        let item_seed = Seed {
                            tokens: run.to_token_stream(),
                            ..seed.clone()
                        };
                        self.rev(item, item_seed)?;
                    }
                }
            }
            start = quote!(#start + #len);
        }
        Ok(())
    }

    /// The lengths of the parts of `expr`, `parts.concat()`, each with
    /// whether the reverse sweep can read it again: a literal's (`[x[0],
    /// 2.0]`) is its count; any other part copies a slice of numbers (`a`,
    /// `&a[1..]`, `a.to_vec()`), whose `len()` the reverse reads again
    /// where it still has the slice as it was.
    pub(super) fn concat_lens(&self, expr: &Expr, parts: &Expr) -> R<Vec<(TokenStream, bool)>> {
        let (ExprKind::Array(items) | ExprKind::VecList(items)) = &parts.kind else {
            return unsupported("`.concat()` of a value that is not a list of slices", expr);
        };
        items
            .iter()
            .map(|item| {
                if let ExprKind::Array(list) | ExprKind::VecList(list) = &item.kind {
                    if !list.iter().all(|one| self.scalar(one)) {
                        return unsupported(
                            "`.concat()` of a part that is not a slice of numbers",
                            item,
                        );
                    }
                    return Ok((
                        Literal::usize_unsuffixed(list.len()).to_token_stream(),
                        true,
                    ));
                }
                // Rust gives every part the items of the whole.
                let whole = dims_of(expr, &self.an.dims) == Some(1);
                let Some(place) =
                    copied_place(item).filter(|place| whole || self.slice_of_numbers(place))
                else {
                    return unsupported(
                        "`.concat()` of a part that is not a slice of numbers",
                        item,
                    );
                };
                // A local by value (`[a, b].concat()` of `Vec`s) is moved
                // into the list: its adjoint has no shape to take at the
                // end of the forward sweep.
                if std::ptr::eq(place, item)
                    && root(place).is_some_and(|name| !self.an.params.contains(&name))
                {
                    return unsupported(
                        "`.concat()` of a local moved into it (`[a, b]`; `[&a[..], &b[..]]` borrows)",
                        item,
                    );
                }
                let src = place.source.to_token_stream();
                Ok((quote!(#src.len()), self.fully_available(place)))
            })
            .collect()
    }

    /// Whether `place` is a slice of numbers: a `Vec`, array or slice of
    /// `f64`s, or a range of one (`x[1..3]`).
    pub(super) fn slice_of_numbers(&self, place: &Expr) -> bool {
        match &place.kind {
            ExprKind::Index { base, index } if matches!(index.kind, ExprKind::Range { .. }) => {
                self.slice_of_numbers(base)
            }
            _ => dims_of(place, &self.an.dims) == Some(1),
        }
    }

    /// The first `pop` (or `remove`) of a `Vec` with a derivative that the sweeps did not
    /// reverse: one whose item is read other than as a number with a
    /// derivative (`if v.pop().unwrap() > 0.0`, `let _ = v.pop();`), whose
    /// adjoint's length would go wrong from there.
    pub fn unreversed_move(&self, block: &Block) -> Option<Unsupported> {
        let found = std::cell::RefCell::new(None);
        block.any_expr(&|expr| {
            let method = match &expr.kind {
                ExprKind::Structural {
                    receiver, method, ..
                } if (*method == "pop" || *method == "remove")
                    && self.root_active(receiver)
                    && !self.moves.contains(&expr.id) =>
                {
                    method.to_string()
                }
                _ => return false,
            };
            found
                .borrow_mut()
                .get_or_insert((text::line(expr.span), method));
            true
        });
        found.into_inner().map(|(line, method)| Unsupported {
            construct: format!("`.{method}()` whose item is not read as a number"),
            line,
        })
    }
}
