//! An expression statement: `=`, `+= -= *= /=` of a tracked place (its
//! adjoint taken before the value's reverse runs), `push`, the methods
//! that move a `Vec`'s items and `mem::swap` (`moves`), and the
//! statements that are loops, branches and jumps, handed to their sweeps.

use super::statements::direct_call;
use super::*;

impl<'m> Sweep<'m> {
    pub(super) fn expr_stmt(
        &mut self,
        expr: &Expr,
        semi: bool,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let semi = semi.then(|| quote!(;));
        let src = expr.source.to_token_stream();
        match &expr.kind {
            ExprKind::Assign { target, value } if self.root_active(target) => {
                // `h = if c { shrink(&h) } else { grow(&h) };`: a branch's
                // value is swept as a number (`let h = if ..` and the
                // statement form `if c { h = .. }` are compiled).
                if !self.scalar(target)
                    && matches!(
                        value.unparenthesised().kind,
                        ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(..)
                    )
                {
                    return unsupported(
                        "a `Vec` assigned an `if`, `match` or block value (assign in each arm)",
                        value,
                    );
                }
                self.cx = StmtCx::default();
                let bar = self.saved_bar_place(target)?;
                let assigned = self.temp("assigned_bar");
                // A number assigned to a number is one, whatever the sweep
                // knows of the value's own shape (`acc = t;` with `let t =
                // h(c);` of constants: on duals, an `f64` lifted).
                let whole = !self.scalar(value) && !self.scalar(target);
                let reshape = match &target.kind {
                    ExprKind::Path(path) if whole => path
                        .path
                        .get_ident()
                        .map(ToString::to_string)
                        .filter(|name| self.an.reshaped.contains(name)),
                    _ => None,
                };
                let reshape = match reshape {
                    Some(name) => Some(self.reshape_site(&name, expr)?),
                    None => None,
                };
                let adjoint = &self.adjoint;
                if let Some((_, pop, _, shape)) = &reshape {
                    // The adjoint of what this overwrote, shaped like it.
                    self.cx.rev.push(
                        quote!(#pop let #assigned = ::core::mem::replace(&mut #bar, #shape);),
                    );
                } else if whole {
                    self.cx
                        .rev
                        .push(quote!(let #assigned = #adjoint::take(&mut #bar);));
                } else {
                    self.cx.rev.push(quote!(let #assigned = #bar;));
                    let zero = self.zero();
                    self.cx.rev.push(quote!(#bar = #zero;));
                }
                let seed = Seed {
                    tokens: assigned.to_token_stream(),
                    negated: false,
                    whole,
                    unread: false,
                    // The temporary above, read no more after the call's
                    // reverse.
                    owned: whole && !self.dual && direct_call(value),
                };
                // A constant assigned (`s = 0.0;`) drops the adjoint of
                // what it overwrote, which the tape adds into the
                // constant's node: observed, as a `let`'s (see
                // `stmt_untagged`).
                if !self.active(value) {
                    let stack = &self.stack;
                    self.cx.rev.push(quote!(#stack.observe(&#assigned);));
                }
                let outer = std::mem::take(&mut self.cx);
                let (mut f, v, r) = self.value(value, &seed)?;
                let target_src = target.source.to_token_stream();
                // The target's saved index, pushed after the value's own
                // saves and so popped before them.
                let (pushes, mut rev) = self.saves_code(&outer);
                f.extend(pushes);
                let v = if whole { v } else { self.tracked_number(v) };
                // `h = next;` of a `Vec` whose adjoint the reverse shapes
                // from the binding itself (`shaped_at_reverse`): a copy
                // moves, the binding stays for that shape.
                // So does one the reverse may read again at the top of a
                // body (`moved_here`).
                let v = match &value.unparenthesised().kind {
                    ExprKind::Path(path)
                        if whole
                            && (path.path.get_ident().is_some_and(|ident| {
                                self.shaped_at_reverse.contains(&ident.to_string())
                            }) || self.moved_whole(value)) =>
                    {
                        quote!(::core::clone::Clone::clone(&#v))
                    }
                    _ => v,
                };
                // A row assigned whole (`m[1] = grow(&m[0]);`) must keep
                // the shape its adjoint was declared with: else the forward
                // fails, and the tape answers.
                let row = whole && matches!(target.unparenthesised().kind, ExprKind::Index { .. });
                match reshape {
                    Some((save, _, keep, _)) => {
                        f.push(save);
                        f.push(quote!(#target_src = #v;));
                        // (Only where its `let` declared the shape: one
                        // bound in a loop or a branch has its shape saved by
                        // its block, see `grown_site`, and one bound empty
                        // is shaped at the reverse from the binding.)
                        if self.kept_shapes.contains(&target_src.to_string()) {
                            f.push(keep);
                        }
                    }
                    // A `Vec` assigned whole that the analysis takes to
                    // keep its shape, whose adjoint the reverse takes as it
                    // is: where its length changes after all, the forward
                    // fails and the gradient is the tape's.
                    None if row || whole => {
                        let (stack, adjoint) = (&self.stack, &self.adjoint);
                        let new = Ident::new("row", Span::mixed_site());
                        f.push(quote! {
                            let #new = #v;
                            if !#adjoint::same_shape(&#target_src, &#new) {
                                #stack.fail();
                                return ::core::option::Option::None;
                            }
                            #target_src = #new;
                        });
                    }
                    None => f.push(quote!(#target_src = #v #semi)),
                }
                rev.extend(outer.rev);
                rev.extend(r);
                Ok((f, rev))
            }
            ExprKind::CompoundAssign {
                op, target, value, ..
            } if self.root_active(target) => self.compound(expr, *op, target, value, semi),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if *method == "push" && self.root_active(receiver) => {
                // The adjoint `Vec` has the final length; each reversed
                // `push` takes its element's adjoint off the end.
                let [item] = args.as_slice() else {
                    return unsupported("`.push()`", expr);
                };
                // A call onto a `Vec` of numbers is a number (see
                // `analysis::calls`), pushed as one.
                let call = ((matches!(item.kind, ExprKind::Call { .. }) && self.active(item))
                    || self.method_call(item))
                    && self.an.vector_calls.contains(&item.id);
                // In a body with `return`s the adjoint's shape is a length
                // alone, of numbers: a call onto a `Vec` the body does not
                // show holds numbers may return a vector.
                if call && self.early {
                    return unsupported(
                        "a call pushed onto a `Vec` in a body with `return` (whether it returns a number or a vector is not known there)",
                        expr,
                    );
                }
                if call || !self.scalar(item) {
                    return self.push_whole(expr, receiver, item, call, semi);
                }
                // A parameter's adjoint is its gradient, shaped like the
                // argument: it has no room for what the body adds.
                if root(receiver).is_some_and(|name| self.an.params.contains(&name)) {
                    return unsupported("`.push()` onto a parameter", expr);
                }
                self.cx = StmtCx::default();
                let bar = self.bar_place(receiver)?;
                let pushed = self.temp("pushed_bar");
                let (number, zero) = if self.dual {
                    (quote!(::autodiff::Dual), self.zero())
                } else {
                    (quote!(f64), quote!(0.0))
                };
                self.cx
                    .rev
                    .push(quote!(let #pushed: #number = #bar.pop().unwrap_or(#zero);));
                self.rev(item, Seed::new(pushed.to_token_stream()))?;
                let v = self.fwd(item)?;
                let v = self.tracked_number(v);
                let receiver_src = receiver.source.to_token_stream();
                // Onto a local by name, the growth out of line, so that a
                // number built by a loop is not kept in memory around it
                // (`__adjoint::push`); the value first, as `Vec::push`'s
                // two-phase borrow reads it (`v.push(v[1] * x)`).
                if matches!(receiver.kind, ExprKind::Path(_)) {
                    let pushed = Ident::new("pushed", Span::mixed_site());
                    return Ok(self.finish(quote! {
                        {
                            let #pushed = #v;
                            ::autodiff::__adjoint::push(&mut #receiver_src, #pushed)
                        } #semi
                    }));
                }
                Ok(self.finish(quote!(#receiver_src.push(#v) #semi)))
            }
            // `v.pop().unwrap();`, `v.remove(i);`: the item's adjoint is zero.
            ExprKind::Structural { .. } if popped(expr).is_some() => {
                self.cx = StmtCx::default();
                self.rev(expr, Seed::new(quote!(0.0)))?;
                let v = self.fwd(expr)?;
                Ok(self.finish(quote!(#v #semi)))
            }
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if MOVES.contains(&method.to_string().as_str()) && self.root_active(receiver) => {
                self.moved_items(expr, receiver, &method.to_string(), args, semi)
            }
            ExprKind::PlainCall { .. }
                if expr
                    .swapped()
                    .is_some_and(|(a, b)| self.root_active(a) || self.root_active(b)) =>
            {
                self.swapped_values(expr, semi)
            }
            ExprKind::For {
                label,
                pat,
                iter,
                body,
            } if !self.inert(expr)? => self.for_loop(expr, *label, pat, iter, body),
            ExprKind::Match { scrutinee, arms } if !self.inert(expr)? => {
                let (mut f, v, r) = self.match_expr(expr, scrutinee, arms, None)?;
                f.push(quote!(#v #semi));
                Ok((f, r))
            }
            ExprKind::While { label, cond, body } if !self.inert(expr)? => {
                self.while_loop(*label, cond, body)
            }
            ExprKind::Loop { label, body } if !self.inert(expr)? => {
                let (mut f, v, r) = self.loop_expr(*label, body, None)?;
                f.push(quote!(#v #semi));
                Ok((f, r))
            }
            ExprKind::Return(Some(value))
                if self.jumps.first().is_some_and(|jumps| jumps.function) =>
            {
                self.cx = StmtCx::default();
                if self.active(value) {
                    let seed = Seed::new(self.value_bar.clone());
                    self.rev(value, seed)?;
                } else {
                    self.inert(value)?;
                }
                let v = self.fwd(value)?;
                let v = self.output(value, v);
                let stack = self.stack.clone();
                // Innermost first: each level's branch records, how its
                // iteration ended and its trips, then the return point.
                let mut records = Vec::new();
                for jumps in self.jumps.iter_mut().rev() {
                    records.extend(jumps.pending.iter().rev().cloned());
                    records.extend(statements::grown_lengths(&stack, &jumps.grown));
                    jumps.next += 1;
                    let k = Literal::u32_unsuffixed(jumps.next);
                    records.push(quote!(#stack.push_arm(#k);));
                    if let Some(trips) = &jumps.trips {
                        records.push(quote!(#stack.push_trips(#trips);));
                    }
                }
                let label = syn::Lifetime::new("'forward", Span::mixed_site());
                Ok(self.finish(quote!({ #(#records)* break #label #v; })))
            }
            ExprKind::Break { label, value } => self.jump(expr, *label, value.as_deref(), semi),
            ExprKind::Continue(label) => self.jump(expr, *label, None, semi),
            ExprKind::If { .. } if !self.inert(expr)? => {
                let (f, v, r) = self.if_expr(expr, None)?;
                let mut f = f;
                f.push(quote!(#v #semi));
                Ok((f, r))
            }
            ExprKind::Block(None, block) if !self.inert(expr)? => {
                self.depth += 1;
                let code = self.block(block, None);
                self.depth -= 1;
                let BlockCode { fwd, rev, .. } = code?;
                Ok((vec![quote!({ #(#fwd)* })], vec![quote!({ #(#rev)* })]))
            }
            // `w = v;` of constants: copied (see `moved_whole`).
            ExprKind::Assign { target, value } if self.inert(expr)? => {
                let target = target.source.to_token_stream();
                let value = self.copied_if_moved(value, value.source.to_token_stream());
                Ok((vec![quote!(#target = #value #semi)], Vec::new()))
            }
            _ => {
                if self.inert(expr)? {
                    Ok((vec![quote!(#src #semi)], Vec::new()))
                } else {
                    unsupported(describe(expr), expr)
                }
            }
        }
    }

    pub(super) fn root_active(&self, target: &Expr) -> bool {
        root(target).is_some_and(|name| self.an.active.contains(&name))
    }

    /// `v.push(item)` of a vector (`out.push(row)`) or of an annotated
    /// call, whose value may be either: the element's adjoint is taken off
    /// the end of the `Vec`'s, typed by it, and seeds the item whole (a
    /// call's by value, see `Seed::unread`, its arguments that change saved
    /// as `vector_call_replayed` does).
    fn push_whole(
        &mut self,
        expr: &Expr,
        receiver: &Expr,
        item: &Expr,
        call: bool,
        semi: Option<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        if root(receiver).is_some_and(|name| self.an.params.contains(&name)) {
            return unsupported("`.push()` onto a parameter", expr);
        }
        if self.early {
            // The adjoint of a `Vec` grown in a body with `return`s is
            // sized from a length alone, as numbers.
            return unsupported("`.push()` of an array in a body with `return`", expr);
        }
        self.cx = StmtCx::default();
        let bar = self.bar_place(receiver)?;
        let pushed = self.temp("pushed_bar");
        self.cx
            .rev
            .push(quote!(let #pushed = #bar.pop().unwrap_or_default();));
        // A row whose forward saved its length alone (`rows_taken_whole`):
        // the popped row is its adjoint, or is added into zeros of that
        // length.
        let length = match &item.kind {
            ExprKind::Path(path) => path
                .path
                .get_ident()
                .and_then(|ident| self.taken_whole.get(&ident.to_string()).cloned().flatten()),
            _ => None,
        };
        if let Some(length) = length {
            let bar = self.saved_bar_place(item)?;
            let stack = &self.stack;
            self.cx.rev.push(
                quote!(::autodiff::__adjoint::take_pushed_row(#stack, &mut #bar, #length, #pushed);),
            );
            let v = self.fwd(item)?;
            let receiver_src = receiver.source.to_token_stream();
            return Ok(self.finish(quote!(#receiver_src.push(#v) #semi)));
        }
        if !call && !self.dual && self.moved_fresh_row(item) {
            // A row of numbers that nothing after the push reads: its
            // adjoint is still zeros, which the popped row replaces.
            let bar = self.saved_bar_place(item)?;
            if bar_root(&bar).is_none_or(|root| !self.guards.contains_key(&root)) {
                let stack = &self.stack;
                self.cx
                    .rev
                    .push(quote!(::autodiff::__adjoint::take_pushed(#stack, &mut #bar, #pushed);));
                let v = self.fwd(item)?;
                let receiver_src = receiver.source.to_token_stream();
                return Ok(self.finish(quote!(#receiver_src.push(#v) #semi)));
            }
        }
        let seed = if call {
            Seed {
                unread: true,
                ..Seed::new(pushed.to_token_stream())
            }
        } else {
            Seed {
                whole: true,
                ..Seed::new(pushed.to_token_stream())
            }
        };
        self.rev(item, seed)?;
        if !call && !self.dual {
            // Added into the item's adjoint, the row goes to the stack's
            // spares (a caller's adjoint of a vector call's value takes
            // its rows from there).
            let stack = &self.stack;
            self.cx
                .rev
                .push(quote!(::autodiff::__adjoint::recycle(#stack, #pushed);));
        }
        let v = self.fwd(item)?;
        let receiver_src = receiver.source.to_token_stream();
        Ok(self.finish(quote!(#receiver_src.push(#v) #semi)))
    }

    /// Whether `item` of `v.push(item)` names a local `Vec` of numbers
    /// grown by `push` that the push moves for good: bound once, never
    /// assigned as a whole, so that nothing after the push reads it and
    /// its adjoint is still the zeros of its saved shape when the push's
    /// reverse runs (`__adjoint::take_pushed`).
    pub(super) fn moved_fresh_row(&self, item: &Expr) -> bool {
        let ExprKind::Path(path) = &item.kind else {
            return false;
        };
        let Some(name) = path.path.get_ident().map(ToString::to_string) else {
            return false;
        };
        self.active(item)
            && !self.an.params.contains(&name)
            && self.an.pushed.contains(&name)
            && self.an.bound.get(&name) == Some(&1)
            && !self.an.assigned.contains_key(&name)
            && self.an.dims.get(&name) == Some(&Some(1))
    }

    pub(super) fn compound(
        &mut self,
        whole: &Expr,
        op: Arith,
        target: &Expr,
        value: &Expr,
        semi: Option<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        self.cx = StmtCx::default();
        let carries = self.active(value);
        let branching = matches!(
            value.kind,
            ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(None, _)
        );
        let branched = branching && carries && matches!(op, Arith::Add | Arith::Sub);
        // The adjoint of a place a loop around only adds to, read once
        // before that loop's reverse (`rows::Element`).
        let hoisted = (!branching && carries && matches!(op, Arith::Add | Arith::Sub))
            .then(|| self.hoisted_element(target))
            .flatten();
        // A branching value is swept as a value of its own, with no room
        // for this statement's saves.
        let bar = if let Some(hoisted) = hoisted {
            hoisted
        } else if branched {
            self.bar_place(target)?
        } else {
            self.saved_bar_place(target)?
        };
        if branched {
            let op_token = match whole.source {
                Source::Expr(syn::Expr::Binary(binary)) => binary.op.to_token_stream(),
                _ => return unsupported(describe(whole), whole),
            };
            self.cx = StmtCx::default();
            let (copy, tokens) = self.target_bar_before(target, value, bar);
            let seed = Seed {
                tokens,
                negated: op == Arith::Sub,
                whole: false,
                unread: false,
                owned: false,
            };
            let (mut f, v, r) = self.value(value, &seed)?;
            let target_src = target.source.to_token_stream();
            f.push(self.compound_forward(&target_src, &op_token, v, semi));
            return Ok((f, copy.into_iter().chain(r).collect()));
        }
        match op {
            Arith::Add | Arith::Sub => {
                let (copy, tokens) = self.target_bar_before(target, value, bar);
                self.cx.rev.extend(copy);
                let seed = Seed {
                    tokens,
                    negated: op == Arith::Sub,
                    whole: false,
                    unread: false,
                    owned: false,
                };
                self.rev(value, seed)?;
            }
            Arith::Mul => {
                let e = self.val(value)?;
                if carries {
                    let old = self.val(target)?;
                    let assigned = self.temp("assigned_bar");
                    self.cx.rev.push(quote!(let #assigned = #bar;));
                    self.cx.rev.push(quote!(#bar = #assigned * #e;));
                    self.rev(value, Seed::new(quote!(#assigned * #old)))?;
                } else {
                    self.cx.rev.push(quote!(#bar *= #e;));
                }
            }
            Arith::Div => {
                let e = self.val(value)?;
                if carries {
                    let old = self.val(target)?;
                    let assigned = self.temp("assigned_bar");
                    self.cx.rev.push(quote!(let #assigned = #bar;));
                    self.cx.rev.push(quote!(#bar = #assigned / #e;));
                    self.rev(
                        value,
                        Seed::new(quote!(#assigned * (#old / #e) / #e)).negate(),
                    )?;
                } else {
                    self.cx.rev.push(quote!(#bar /= #e;));
                }
            }
            Arith::Rem | Arith::Method(_) => return unsupported("`%=`", whole),
        }
        let op_token = match whole.source {
            Source::Expr(syn::Expr::Binary(binary)) => binary.op.to_token_stream(),
            _ => return unsupported(describe(whole), whole),
        };
        let v = self.fwd(value)?;
        if op == Arith::Div {
            self.observe(v.clone());
        }
        let target_src = target.source.to_token_stream();
        let forward = self.compound_forward(&target_src, &op_token, v, semi);
        Ok(self.finish(forward))
    }

    /// `target op= v` in the forward sweep. On duals the value is bound
    /// first: `Dual`'s `+=` borrows its target before the value is read,
    /// and the value may read it (`h[i] += h[i].tanh()`), which `f64`'s
    /// built-in operator allows.
    fn compound_forward(
        &self,
        target: &TokenStream,
        op: &TokenStream,
        v: TokenStream,
        semi: Option<TokenStream>,
    ) -> TokenStream {
        if self.dual {
            let value = Ident::new("compound_value", Span::mixed_site());
            quote!({ let #value = #v; #target #op #value; } #semi)
        } else {
            quote!(#target #op #v #semi)
        }
    }

    /// The seed of `target += value` (or `-=`): the target's adjoint
    /// `bar`, copied first when `value` reads the target (`t += 2.0 * m *
    /// t`), since the reverse adds the value's own contribution to `bar`
    /// while the other operands' adjoints still need the one before it.
    pub(super) fn target_bar_before(
        &mut self,
        target: &Expr,
        value: &Expr,
        bar: TokenStream,
    ) -> (Option<TokenStream>, TokenStream) {
        let Some(name) = root(target) else {
            return (None, bar);
        };
        let reads = value.any_expr(
            &|expr| matches!(&expr.kind, ExprKind::Path(path) if path.path.is_ident(&name)),
        );
        if !reads {
            return (None, bar);
        }
        let assigned = self.temp("assigned_bar");
        (
            Some(quote!(let #assigned = #bar;)),
            assigned.to_token_stream(),
        )
    }
}
