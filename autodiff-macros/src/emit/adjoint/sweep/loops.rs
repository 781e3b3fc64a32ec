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
    pub(super) fn exit_forward(&self, exit: Option<&Ident>) -> (TokenStream, TokenStream) {
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
    pub(super) fn exit_reverse(
        &self,
        exit: Option<&Ident>,
        trips: &Ident,
    ) -> (TokenStream, TokenStream) {
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
    pub(super) fn take_trips(
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
        let observes = self.condition_observes(cond)?;
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
pub(super) fn mentions(block: &Block, name: &str) -> bool {
    block.any_expr(&|expr| {
        matches!(&expr.kind, ExprKind::Path(path)
            if path.path.get_ident().is_some_and(|ident| ident == name))
    })
}
