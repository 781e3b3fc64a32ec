//! `if` and `match`: each arm's sweeps, replayed in the reverse when the
//! condition is still there, else under the arm the forward pushed.

use super::*;

impl<'m> Sweep<'m> {
    pub(super) fn if_expr(
        &mut self,
        expr: &Expr,
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        let implied = std::mem::take(&mut self.implied_if);
        // The chain `if c0 {..} else if c1 {..} else {..}`.
        let mut arms: Vec<(Option<&Expr>, Option<&Block>)> = Vec::new();
        let mut current = expr;
        loop {
            match &current.kind {
                ExprKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    if matches!(cond.kind, ExprKind::Let { .. }) {
                        return unsupported("`if let`", current);
                    }
                    arms.push((Some(cond), Some(then_branch)));
                    match else_branch {
                        Some(next) => current = next,
                        None => {
                            arms.push((None, None));
                            break;
                        }
                    }
                }
                ExprKind::Block(None, block) => {
                    arms.push((None, Some(block)));
                    break;
                }
                _ => return unsupported(describe(current), current),
            }
        }
        let stack = self.stack.clone();
        let replay = arms
            .iter()
            .all(|(cond, _)| cond.is_none_or(|cond| self.fully_available(cond)));
        // `if c { ..; jump }` with no `else`, in a loop whose exit is
        // recorded once: the then-arm ran exactly when the iteration ended
        // inside it (see `implied_if`), so neither arm records itself.
        let implied = implied && !replay && arms.len() == 2 && arms[1].1.is_none();
        let recorded = !replay && !implied;
        // Each condition's checks where it is evaluated: after every
        // earlier one failed (`if j == 0 { .. } else if v[j - 1] > 0.0`).
        let mut observes = Vec::new();
        for cond in arms.iter().rev().filter_map(|(cond, _)| *cond) {
            let mut checks = self.condition_observes(cond)?;
            if !observes.is_empty() {
                checks.push(self.when(cond, false, &observes)?);
            }
            observes = checks;
        }
        let mut fwd_arms = Vec::new();
        let mut rev_arms = Vec::new();
        self.depth += 1;
        for (k, (_, block)) in arms.iter().enumerate() {
            let pending = recorded.then_some(k as u32);
            self.push_pending(pending);
            let code = match block {
                Some(block) => self.block(block, seed),
                None => Ok(BlockCode {
                    fwd: Vec::new(),
                    value: None,
                    rev: Vec::new(),
                }),
            };
            self.pop_pending(pending);
            let code = match code {
                Ok(code) => code,
                Err(e) => {
                    self.depth -= 1;
                    return Err(e);
                }
            };
            let BlockCode { fwd, value, rev } = code;
            // On duals, an arm giving a plain number where another gives a
            // tracked one: a dual with tangent 0, so that the arms agree.
            let plain_tail = block
                .and_then(|block| block.split_tail().1)
                .is_some_and(|tail| !tail.diverges() && !self.active(tail));
            let value = match value {
                Some(value) if self.dual && seed.is_some() && self.active(expr) && plain_tail => {
                    Some(self.tracked_number(value))
                }
                value => value,
            };
            let record = recorded.then(|| {
                let k = Literal::u32_unsuffixed(k as u32);
                quote!(#stack.push_arm(#k);)
            });
            let arm = match value {
                Some(value) if record.is_some() => {
                    let v = self.temp_value();
                    quote!({ #(#fwd)* let #v = #value; #record #v })
                }
                Some(value) => quote!({ #(#fwd)* #value }),
                None => quote!({ #(#fwd)* #record }),
            };
            fwd_arms.push(arm);
            rev_arms.push(quote!({ #(#rev)* }));
        }
        self.depth -= 1;
        let mut fwd = quote!();
        let mut rev = quote!();
        let n = arms.len();
        for (k, (cond, _)) in arms.iter().enumerate() {
            let arm = &fwd_arms[k];
            let back = &rev_arms[k];
            let cond_src = cond.map(|cond| cond.source.to_token_stream());
            match (k, cond_src) {
                (0, Some(c)) => {
                    fwd.extend(quote!(if #c #arm));
                    rev.extend(quote!(if #c #back));
                }
                (_, Some(c)) => {
                    fwd.extend(quote!(else if #c #arm));
                    rev.extend(quote!(else if #c #back));
                }
                (_, None) => {
                    fwd.extend(quote!(else #arm));
                    rev.extend(quote!(else #back));
                }
            }
        }
        let rev = if replay {
            rev
        } else if implied {
            let taken = &rev_arms[0];
            self.implied_taken = Some(vec![quote!(#taken)]);
            rev_arms[1].clone()
        } else {
            let numbered = (0..n).map(|k| Literal::u32_unsuffixed(k as u32));
            let backs = &rev_arms;
            quote! {
                match #stack.pop_arm() {
                    #(#numbered => #backs)*
                    _ => #stack.fail(),
                }
            }
        };
        Ok((observes, fwd, vec![rev]))
    }

    /// `match` on values that carry no derivative: each arm reversed under
    /// the same pattern when the scrutinee and guards are still there in
    /// the reverse sweep, else under the arm index the forward pushed.
    pub(super) fn match_expr(
        &mut self,
        expr: &Expr,
        scrutinee: &Expr,
        arms: &[crate::ast::Arm],
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        // An enum's variants (`match self.act { Act::Relu => .. }` of a
        // model's `#[constant]` field): no number, a plain `match`.
        let active = self.active(scrutinee)
            && !crate::ast::matches_variants(arms)
            && !crate::ast::matches_a_models_enum(scrutinee, arms);
        if active && !has_call(scrutinee) {
            return self.tracked_match(expr, scrutinee, arms, seed);
        }
        if active || has_call(scrutinee) {
            return unsupported("`match` on a value with a derivative", expr);
        }
        let stack = self.stack.clone();
        // A pattern that binds a name may move a value that is not `Copy`
        // (`Some(w)` of an `Option<Vec<f64>>`): the reverse cannot match
        // it again, so the arm taken is pushed, unless the scrutinee is a
        // number.
        let binds = arms.iter().any(|arm| !arm.pat.names.is_empty());
        let mut replay = self.fully_available(scrutinee) && (!binds || self.scalar(scrutinee));
        let guard_checks = self.guard_checks(arms, &mut replay)?;
        let mut fwd_arms = Vec::new();
        let mut rev_arms = Vec::new();
        self.depth += 1;
        let result = (|| -> R<()> {
            for (k, arm) in arms.iter().enumerate() {
                self.scopes.push(Scope::default());
                // The arm's names hide an outer scope's: the reverse has
                // them again only when it matches again.
                let names = arm.pat.names.clone();
                if replay {
                    self.scope().available.extend(names);
                } else {
                    self.scope().shadowed.extend(names);
                }
                let pending = (!replay).then_some(k as u32);
                self.push_pending(pending);
                let code = self.arm_body(&arm.body, seed);
                self.pop_pending(pending);
                self.scopes.pop();
                let (fwd, value, rev) = code?;
                // On duals, an arm giving a plain number where another
                // gives a tracked one: a dual with tangent 0, as `if_expr`
                // lifts a branch's.
                let tail = match &arm.body.kind {
                    ExprKind::Block(None, block) => block.split_tail().1,
                    _ => Some(&arm.body),
                };
                let plain_tail = tail.is_some_and(|tail| !tail.diverges() && !self.active(tail));
                let value = match value {
                    Some(value)
                        if self.dual && seed.is_some() && self.active(expr) && plain_tail =>
                    {
                        Some(self.tracked_number(value))
                    }
                    value => value,
                };
                let record = (!replay).then(|| {
                    let k = Literal::u32_unsuffixed(k as u32);
                    quote!(#stack.push_arm(#k);)
                });
                let v = self.temp_value();
                fwd_arms.push(match value {
                    Some(value) => quote!({ #(#fwd)* let #v = #value; #record #v }),
                    None => quote!({ #(#fwd)* #record }),
                });
                rev_arms.push(quote!({ #(#rev)* }));
            }
            Ok(())
        })();
        self.depth -= 1;
        result?;
        let scrutinee_src = scrutinee.source.to_token_stream();
        let sweeps = MatchSweeps {
            fwd_arms: &fwd_arms,
            rev_arms: &rev_arms,
            guard_checks: &guard_checks,
            replay,
        };
        let (fwd, rev) = self.match_sweeps(&scrutinee_src, arms, sweeps);
        Ok((Vec::new(), fwd, vec![rev]))
    }

    /// Each guard's checks, run in the guard, where the `match` evaluates
    /// it (`0 => .., _ if v[j - 1] > 0.0 => ..` reads `v[j - 1]` only for
    /// `j > 0`), with the arm's bindings; `replay` cleared where a guard
    /// reads what the reverse no longer has.
    fn guard_checks(
        &mut self,
        arms: &[crate::ast::Arm],
        replay: &mut bool,
    ) -> R<Vec<Vec<TokenStream>>> {
        let mut all = Vec::new();
        for arm in arms {
            let mut checks = Vec::new();
            if let Some(guard) = &arm.guard {
                if has_call(guard) {
                    return unsupported("a `match` guard with a call", guard);
                }
                self.scopes.push(Scope::default());
                let names = arm.pat.names.clone();
                self.scope().available.extend(names);
                *replay &= self.fully_available(guard);
                self.scopes.pop();
                checks = self.condition_observes(guard)?;
            }
            all.push(checks);
        }
        Ok(all)
    }

    /// A `match`'s two sweeps once its arms are swept: the forward under
    /// the student's patterns and guards (each guard's checks run first,
    /// in it), the reverse under the same ones (`replay`: they read only
    /// values still there) or by the pushed arm.
    pub(super) fn match_sweeps(
        &self,
        scrutinee_src: &TokenStream,
        arms: &[crate::ast::Arm],
        sweeps: MatchSweeps<'_>,
    ) -> (TokenStream, TokenStream) {
        let MatchSweeps {
            fwd_arms,
            rev_arms,
            guard_checks,
            replay,
        } = sweeps;
        let stack = &self.stack;
        let head = |arm: &crate::ast::Arm, checks: &[TokenStream]| {
            let pat = arm.pat.syntax;
            match &arm.guard {
                Some(guard) if checks.is_empty() => {
                    let guard = guard.source.to_token_stream();
                    quote!(#pat if #guard)
                }
                Some(guard) => {
                    let guard = guard.source.to_token_stream();
                    quote!(#pat if { #(#checks)* #guard })
                }
                None => quote!(#pat),
            }
        };
        let fwd_heads = arms
            .iter()
            .zip(guard_checks)
            .map(|(arm, checks)| head(arm, checks));
        let heads: Vec<TokenStream> = arms.iter().map(|arm| head(arm, &[])).collect();
        let fwd = quote!(match #scrutinee_src { #(#fwd_heads => #fwd_arms)* });
        let rev = if replay {
            quote!(match #scrutinee_src { #(#heads => #rev_arms)* })
        } else {
            let numbered = (0..arms.len()).map(|k| Literal::u32_unsuffixed(k as u32));
            quote! {
                match #stack.pop_arm() {
                    #(#numbered => #rev_arms)*
                    _ => #stack.fail(),
                }
            }
        };
        (fwd, rev)
    }

    /// `match` on a tracked number (`match x { v if v < 0.0 => .., v => .. }`):
    /// the number is compared as written, and a name an arm binds is the
    /// number itself, so the arm's reverse ends by adding that name's
    /// adjoint into the scrutinee's. The taken arm is replayed or pushed as
    /// for any `match`.
    pub(super) fn tracked_match(
        &mut self,
        expr: &Expr,
        scrutinee: &Expr,
        arms: &[crate::ast::Arm],
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        if !is_place(scrutinee) || !(self.scalar(scrutinee) || guarded_as_number(scrutinee, arms)) {
            return unsupported("`match` on a computed value with a derivative", expr);
        }
        let scrutinee_bar = self.bar_place(scrutinee)?;
        let scrutinee_src = scrutinee.source.to_token_stream();
        let stack = self.stack.clone();
        // A guard compares the number (observed once, here) or other
        // values, observed before the `match` where the arm's names do not
        // exist yet.
        let observes = vec![quote!(#stack.observe(#scrutinee_src);)];
        let mut replay = self.fully_available(scrutinee);
        let guard_checks = self.guard_checks(arms, &mut replay)?;
        let mut fwd_arms = Vec::new();
        let mut rev_arms = Vec::new();
        self.depth += 1;
        let result = (|| -> R<()> {
            for (k, arm) in arms.iter().enumerate() {
                self.scopes.push(Scope::default());
                // The arm's names hide an outer scope's: the reverse has
                // them again only when it matches again.
                let names = arm.pat.names.clone();
                if replay {
                    self.scope().available.extend(names);
                } else {
                    self.scope().shadowed.extend(names);
                }
                let mut declare = Vec::new();
                let mut flows = Vec::new();
                let mut bound: Vec<&String> = Vec::new();
                for name in &arm.pat.names {
                    if self.an.active.contains(name) && !bound.contains(&name) {
                        bound.push(name);
                        let bar = self.bind(name);
                        let zero = self.zero();
                        declare.push(quote!(let mut #bar = #zero;));
                        flows.push(quote!(#scrutinee_bar += #bar;));
                    }
                }
                let pending = (!replay).then_some(k as u32);
                self.push_pending(pending);
                let code = self.arm_body(&arm.body, seed);
                self.pop_pending(pending);
                self.scopes.pop();
                let (fwd, value, rev) = code?;
                let record = pending.map(|k| {
                    let k = Literal::u32_unsuffixed(k);
                    quote!(#stack.push_arm(#k);)
                });
                let v = self.temp_value();
                fwd_arms.push(match value {
                    Some(value) => quote!({ #(#fwd)* let #v = #value; #record #v }),
                    None => quote!({ #(#fwd)* #record }),
                });
                rev_arms.push(quote!({ #(#declare)* #(#rev)* #(#flows)* }));
            }
            Ok(())
        })();
        self.depth -= 1;
        result?;
        let sweeps = MatchSweeps {
            fwd_arms: &fwd_arms,
            rev_arms: &rev_arms,
            guard_checks: &guard_checks,
            replay,
        };
        let (fwd, rev) = self.match_sweeps(&scrutinee_src, arms, sweeps);
        Ok((observes, fwd, vec![rev]))
    }

    /// A `match` arm's body: a block, or an expression whose value is the
    /// `match`'s (with `seed`) or a statement.
    #[allow(clippy::type_complexity)]
    pub(super) fn arm_body(
        &mut self,
        body: &Expr,
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, Option<TokenStream>, Vec<TokenStream>)> {
        match (&body.kind, seed) {
            (ExprKind::Block(None, block), _) => {
                let BlockCode { fwd, value, rev } = self.block(block, seed)?;
                Ok((fwd, value, rev))
            }
            (_, Some(seed)) => {
                let (f, v, r) = self.value(body, seed)?;
                Ok((f, Some(v), r))
            }
            (_, None) => {
                let (f, r) = self.expr_stmt(body, true)?;
                Ok((f, None, r))
            }
        }
    }
}

/// What [`Sweep::match_sweeps`] writes a `match`'s sweeps from: each
/// arm's forward and reverse, the checks each guard runs first, and
/// whether the reverse matches again (else it pops the arm taken).
pub(super) struct MatchSweeps<'c> {
    pub fwd_arms: &'c [TokenStream],
    pub rev_arms: &'c [TokenStream],
    pub guard_checks: &'c [Vec<TokenStream>],
    pub replay: bool,
}

/// Whether a `match` on `scrutinee`, a name whose shape the analysis does
/// not know (an item of a model's field, `for &tv in m.w.iter()`, whose
/// type the macro cannot see), is on a number by what its arms do: each
/// binds the whole value by a name or `_`, and a guard computes with or
/// compares such a name, or the scrutinee (`tv if tv > 0.5`), as a number,
/// which only a number's `match` compiles with. A guard binds nothing of
/// its own that could hide the arm's name.
fn guarded_as_number(scrutinee: &Expr, arms: &[crate::ast::Arm]) -> bool {
    let Some(name) = root(scrutinee) else {
        return false;
    };
    if !matches!(scrutinee.unparenthesised().kind, ExprKind::Path(_)) {
        return false;
    }
    let whole = |arm: &crate::ast::Arm| match arm.pat.syntax {
        syn::Pat::Ident(ident) => ident.subpat.is_none() && ident.by_ref.is_none(),
        syn::Pat::Wild(_) => true,
        _ => false,
    };
    if !arms.iter().all(whole) {
        return false;
    }
    arms.iter().any(|arm| {
        let Some(guard) = &arm.guard else {
            return false;
        };
        let names: Vec<&str> = std::iter::once(name.as_str())
            .chain(arm.pat.names.iter().map(String::as_str))
            .collect();
        guard.any_expr(&|expr| {
            super::super::analysis::numeric_operands(expr)
                .into_iter()
                .any(|operand| {
                    matches!(&operand.unparenthesised().kind, ExprKind::Path(path)
                    if path.path.get_ident().is_some_and(|ident| names.iter().any(|n| ident == n)))
                })
        })
    })
}
