//! An expression's reverse: one adjoint statement per operand occurrence,
//! right to left, each local derivative looked up in the rules, and the
//! values those derivatives read.

use super::*;

impl<'m> Sweep<'m> {
    /// The adjoint statements of `expr` seeded with `seed`.
    pub(super) fn rev(&mut self, expr: &Expr, seed: Seed) -> R<()> {
        if !self.active(expr) {
            return Ok(());
        }
        match &expr.kind {
            ExprKind::Path(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                self.accumulate(expr, seed)
            }
            ExprKind::Paren(inner)
            | ExprKind::Reference { expr: inner, .. }
            | ExprKind::Prefix {
                op: syn::UnOp::Deref(_),
                operand: inner,
            } => self.rev(inner, seed),
            ExprKind::Structural {
                receiver, method, ..
            } if matches!(
                method.to_string().as_str(),
                "clone" | "to_vec" | "copied" | "cloned"
            ) =>
            {
                let seed = Seed {
                    whole: true,
                    ..seed
                };
                self.rev(receiver, seed)
            }
            ExprKind::Structural { .. } if popped(expr).is_some() => {
                let pop = popped(expr).expect("a `pop`");
                self.rev_pop(expr, pop, &seed)
            }
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if *method == "concat" && args.is_empty() => self.rev_concat(expr, receiver, &seed),
            ExprKind::Binary { op, lhs, rhs, .. } => self.rev_binary(expr, *op, lhs, rhs, &seed),
            ExprKind::Array(items) | ExprKind::VecList(items) | ExprKind::Tuple(items) => {
                self.rev_items(expr, items, &seed)
            }
            ExprKind::Repeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => {
                self.rev_repeat(expr, elem, &seed)
            }
            // `dbg!(e)` is `e`, printed.
            ExprKind::Dbg { arg, .. } => self.rev(arg, seed),
            ExprKind::Neg { operand, .. } => {
                self.pass(operand, &seed.clone().negate(), Factor::One)
            }
            ExprKind::Elementary { func, operand, .. } => {
                let factor = rules::elementary(self, func, operand, expr)?;
                match factor {
                    Some(factor) => self.pass(operand, &seed, factor),
                    None => Ok(()),
                }
            }
            ExprKind::Ternary { func, operands, .. } => {
                self.rev_ternary(expr, func, operands, &seed)
            }
            ExprKind::Powi { base, exponent, .. } => {
                if !self.fully_available(exponent) {
                    return unsupported("`powi` of an exponent that changes", exponent);
                }
                let x = self.val(base)?;
                let n = exponent.source.to_token_stream();
                let rule = rules::powi(self.dual);
                let factor = Factor::Times(quote!(#rule(#x, #n)), false);
                self.pass(base, &seed, factor)
            }
            ExprKind::Sum { items, .. } => {
                // The items, and the `skip(k)`s and `take(k)`s on the way
                // to them (`icf[c].iter().take(d).sum()`), innermost first.
                let mut adaptors = Vec::new();
                let mut source = &**items;
                while let ExprKind::Structural {
                    receiver,
                    method,
                    args,
                    ..
                } = &source.kind
                {
                    match (method.to_string().as_str(), args.as_slice()) {
                        ("skip" | "take", [count]) => adaptors.push((method, count)),
                        ("copied" | "cloned", []) => {}
                        _ => break,
                    }
                    source = receiver;
                }
                let Some((place, _)) = element_source(source) else {
                    return unsupported(format!("`sum` of `{}`", describe(items)), expr);
                };
                if adaptors
                    .iter()
                    .any(|(_, count)| !self.fully_available(count))
                {
                    return unsupported("`sum` of a `skip` or `take` whose count changes", expr);
                }
                let adapt = adaptors.iter().rev().map(|(method, count)| {
                    let count = count.source.to_token_stream();
                    quote!(.#method(#count))
                });
                let bar = self.bar_place(place)?;
                let item = Ident::new("item_bar", Span::mixed_site());
                let tokens = &seed.tokens;
                let op = if seed.negated { quote!(-=) } else { quote!(+=) };
                self.cx.rev.push(quote! {
                    for #item in #bar.iter_mut() #(#adapt)* {
                        *#item #op #tokens;
                    }
                });
                Ok(())
            }
            ExprKind::Call { func, args } => self.rev_call(expr, func, args, &seed),
            ExprKind::PlainMethod {
                receiver,
                method,
                args,
                ..
            } if self.method_call(expr) && self.dual => {
                if seed.whole || seed.unread {
                    return unsupported("a vector-valued call on dual numbers", expr);
                }
                let reverse = self.model_method(receiver, method, "reverse_dual")?;
                self.rev_invoke(reverse, Some(receiver), args, &seed)
            }
            ExprKind::PlainMethod {
                receiver,
                method,
                args,
                ..
            } if self.method_call(expr) => {
                let reverse = format_ident!("{}_reverse", method.unraw(), span = method.span());
                let receiver_src = receiver.source.to_token_stream();
                let reverse = quote!(#receiver_src.#reverse);
                self.vector_call_replayed(expr, Some(receiver), args, &seed)?;
                self.rev_invoke(reverse, Some(receiver), args, &seed)
            }
            _ => unsupported(describe(expr), expr),
        }
    }

    pub(super) fn rev_binary(
        &mut self,
        expr: &Expr,
        op: Arith,
        lhs: &Expr,
        rhs: &Expr,
        seed: &Seed,
    ) -> R<()> {
        // Right to left, and a place before a subexpression, so that each
        // adjoint statement reads like the line it reverses.
        let order: [(&Expr, bool); 2] = if is_place(lhs) && !is_place(rhs) {
            [(lhs, true), (rhs, false)]
        } else {
            [(rhs, false), (lhs, true)]
        };
        match op {
            Arith::Add | Arith::Sub => {
                let shared = if self.active(lhs) && self.active(rhs) && !is_simple(&seed.tokens) {
                    let name = self.temp(&temp_name(expr));
                    let tokens = &seed.tokens;
                    self.cx.rev.push(quote!(let #name = #tokens;));
                    Seed {
                        tokens: name.to_token_stream(),
                        ..seed.clone()
                    }
                } else {
                    seed.clone()
                };
                for (child, left) in order {
                    let s = if !left && op == Arith::Sub {
                        shared.clone().negate()
                    } else {
                        shared.clone()
                    };
                    self.pass(child, &s, Factor::One)?;
                }
                Ok(())
            }
            Arith::Mul => {
                for (child, left) in order {
                    if !self.active(child) {
                        continue;
                    }
                    let other = self.val(if left { rhs } else { lhs })?;
                    self.pass(child, seed, Factor::Times(other, false))?;
                }
                Ok(())
            }
            Arith::Div => {
                for (child, left) in order {
                    if !self.active(child) {
                        continue;
                    }
                    let b = self.val(rhs)?;
                    if left {
                        self.pass(child, seed, Factor::Over(b, false))?;
                    } else {
                        let a = self.val(lhs)?;
                        self.pass(child, seed, Factor::Times(quote!((#a / #b) / #b), true))?;
                    }
                }
                Ok(())
            }
            Arith::Rem => unsupported("`%`", expr),
            Arith::Method(name) => {
                let Some(rule) = rules::two_operand(name, self.dual) else {
                    return unsupported(format!("`{name}`"), expr);
                };
                let a = self.val(lhs)?;
                let b = self.val(rhs)?;
                let partials = self.temp("partials");
                self.cx.rev.push(quote!(let #partials = #rule(#a, #b);));
                for (child, left) in order {
                    let part = if left {
                        quote!(#partials.0)
                    } else {
                        quote!(#partials.1)
                    };
                    self.pass(child, seed, Factor::Times(part, false))?;
                }
                Ok(())
            }
        }
    }

    /// `a.mul_add(b, c)` and `x.clamp(lo, hi)`, with the tape's local
    /// derivatives (`src/__private/arithmetic.rs`): `mul_add` is `a * b`
    /// then `+ c`; `clamp` is `max(min(x, hi), lo)`, whose partials
    /// (1/2 each at a tie) `clamp_partials` multiplies out.
    pub(super) fn rev_ternary(
        &mut self,
        expr: &Expr,
        func: &str,
        operands: &[Box<Expr>; 3],
        seed: &Seed,
    ) -> R<()> {
        let [first, second, third] = operands;
        match func {
            "mul_add" => {
                self.pass(third, seed, Factor::One)?;
                for (child, other) in [(second, first), (first, second)] {
                    if !self.active(child) {
                        continue;
                    }
                    let other = self.val(other)?;
                    self.pass(child, seed, Factor::Times(other, false))?;
                }
                Ok(())
            }
            "clamp" => {
                let x = self.val(first)?;
                let lo = self.val(second)?;
                let hi = self.val(third)?;
                let partials = self.temp("clamp_partials");
                let adjoint = &self.adjoint;
                let rule = if self.dual {
                    quote!(#adjoint::dual_rules::clamp_partials)
                } else {
                    quote!(#adjoint::clamp_partials)
                };
                self.cx
                    .rev
                    .push(quote!(let #partials = #rule(#x, #lo, #hi);));
                for (child, part) in [
                    (third, quote!(#partials.2)),
                    (second, quote!(#partials.1)),
                    (first, quote!(#partials.0)),
                ] {
                    self.pass(child, seed, Factor::Times(part, false))?;
                }
                Ok(())
            }
            other => unsupported(format!("`{other}`"), expr),
        }
    }

    /// Passes `seed × factor` to `child`: inline into a place, or through a
    /// named temporary into a subexpression.
    pub(super) fn pass(&mut self, child: &Expr, seed: &Seed, factor: Factor) -> R<()> {
        if !self.active(child) {
            return Ok(());
        }
        let seed = seed.times(&factor);
        if is_place(child) {
            return self.accumulate(child, seed);
        }
        let simple = matches!(factor, Factor::One);
        if simple {
            return self.rev(child, seed);
        }
        let name = self.temp(&temp_name(child));
        let tokens = &seed.tokens;
        self.cx.rev.push(quote!(let #name = #tokens;));
        self.rev(
            child,
            Seed {
                tokens: name.to_token_stream(),
                negated: seed.negated,
                whole: false,
                unread: false,
                owned: false,
            },
        )
    }

    /// `place_bar += seed;` (or the whole-array form).
    pub(super) fn accumulate(&mut self, place: &Expr, seed: Seed) -> R<()> {
        if !self.active(place) {
            return Ok(());
        }
        // An array where a number goes (`x * 2.0` with `x: [f64; 2]`): the
        // plain twin's error; an adjoint of it would add a second one.
        if !seed.whole && dims_of(place, &self.an.dims).is_some_and(|dims| dims > 0) {
            return unsupported("an array used as a number", place);
        }
        let bar = self.saved_bar_place(place)?;
        let tokens = &seed.tokens;
        let adjoint = &self.adjoint;
        let range = matches!(&place.kind, ExprKind::Index { index, .. }
            if matches!(index.kind, ExprKind::Range { .. }));
        let stmt = if seed.whole {
            if seed.negated {
                return unsupported("the difference of two arrays", place);
            }
            if range && dims_of(place, &self.an.dims).is_some_and(|dims| dims > 1) {
                // A view of rows (`&m[..]` of `m: &[Vec<f64>]`): row by row.
                quote!(#adjoint::add_rows(&mut #bar, &#tokens);)
            } else if range {
                // A view's adjoint into its slice's run (`x_bar[..2]`).
                quote!(#adjoint::add_items(&mut #bar, &#tokens);)
            } else {
                quote!(#adjoint::accumulate(&mut #bar, &#tokens);)
            }
        } else if matches!(
            &place.kind,
            ExprKind::Field {
                member: syn::Member::Named(_),
                ..
            }
        ) && !self
            .an
            .float_fields
            .contains(&place.source.to_token_stream().to_string())
        {
            // A model's field (`net.b`), which may be an integer (`let k =
            // net.width + 1;`): a number adds into it, an integer's
            // adjoint takes nothing (`AddFrom`).
            if seed.negated {
                quote!(#adjoint::accumulate(&mut #bar, &::core::ops::Neg::neg(#tokens));)
            } else {
                quote!(#adjoint::accumulate(&mut #bar, &(#tokens));)
            }
        } else if seed.negated {
            quote!(#bar -= #tokens;)
        } else {
            quote!(#bar += #tokens;)
        };
        let root = bar_root(&bar);
        let stmt = match root.and_then(|root| self.guards.get_mut(&root).map(|g| (root, g))) {
            Some((root, (live, count))) => {
                *count += text::count(&stmt, &root);
                quote!(if #live { #stmt })
            }
            None => stmt,
        };
        self.cx.rev.push(stmt);
        Ok(())
    }

    /// The adjoint place of a place expression: `w1_bar[j][i]`; one whose
    /// index changes before the reverse sweep is refused (see
    /// `saved_bar_place`).
    pub(super) fn bar_place(&self, place: &Expr) -> R<TokenStream> {
        self.bar_place_saving(place, None)
    }

    /// A seed temporary `base`, numbered if the statement already has one.
    pub(super) fn temp(&mut self, base: &str) -> Ident {
        let count = self.cx.temps.entry(base.to_owned()).or_default();
        *count += 1;
        let name = if *count == 1 {
            base.to_owned()
        } else {
            format!("{base}_{count}")
        };
        // Hygienic: a seed temporary never shadows a binding's adjoint
        // (`sum_bar` of a `let sum`) or a name of the student's.
        Ident::new(&name, Span::mixed_site())
    }

    /// The value of `expr` in the reverse sweep: recomputed from what is
    /// still there, restored from the stack, or hoisted and saved.
    pub fn val(&mut self, expr: &Expr) -> R<TokenStream> {
        if let Some(name) = self.cx.hoisted.get(&expr.id) {
            return Ok(name.to_token_stream());
        }
        match &expr.kind {
            ExprKind::Lit(syn::Lit::Int(int)) => {
                let value: f64 = int.base10_parse::<u64>().map_or(f64::NAN, |v| v as f64);
                Ok(Literal::f64_unsuffixed(value).to_token_stream())
            }
            ExprKind::Lit(_) | ExprKind::NegLit(_) => Ok(self.number(expr)),
            ExprKind::Path(path) => {
                let src = self.number(expr);
                let Some(ident) = path.path.get_ident() else {
                    return Ok(src);
                };
                if self.available(&ident.to_string()) {
                    Ok(src)
                } else {
                    Ok(self.save(src, ident.clone()).to_token_stream())
                }
            }
            ExprKind::Paren(inner) => {
                let inner = self.val(inner)?;
                Ok(quote!((#inner)))
            }
            ExprKind::Dbg { arg, .. } => self.val(arg),
            // `(&x[k])` (an element an `if let Some(v) = x.get(k)` reads):
            // the number it refers to.
            ExprKind::Reference {
                mutability: None,
                expr: inner,
            } => self.val(inner),
            // `*(&x[x.len() - 1])`, what `*x.last().unwrap()` is read as.
            ExprKind::Prefix {
                op: syn::UnOp::Deref(_),
                operand,
            } if matches!(
                operand.unparenthesised().kind,
                ExprKind::Reference {
                    mutability: None,
                    ..
                }
            ) =>
            {
                self.val(operand)
            }
            _ if self.fully_available(expr) && is_arithmetic(expr) => {
                let src = match &expr.kind {
                    ExprKind::Index { base, index } => self
                        .row_element(base, index, true)
                        .unwrap_or_else(|| expr.source.to_token_stream()),
                    _ => expr.source.to_token_stream(),
                };
                let src = if is_place(expr) { src } else { quote!((#src)) };
                Ok(self.as_number(expr, src))
            }
            // `icf[c * size + idx]` of a counted `idx` into a slice the
            // body never writes: the index is saved (one the statement's
            // adjoint place saves already, often), not the element.
            ExprKind::Index { base, index } if self.element_by_index(base, index) => {
                let name = self.save_index(index);
                let base = base.source.to_token_stream();
                Ok(self.as_number(expr, quote!(#base[#name])))
            }
            ExprKind::Index { .. } | ExprKind::Field { .. } => {
                let src = self.number(expr);
                let name = self.fresh(&sanitize(&expr.source.to_token_stream().to_string()));
                Ok(self.save(src, name).to_token_stream())
            }
            ExprKind::Binary { op, lhs, rhs, .. } => {
                let l = self.val(lhs)?;
                let r = self.val(rhs)?;
                Ok(match op {
                    Arith::Add => quote!((#l + #r)),
                    Arith::Sub => quote!((#l - #r)),
                    Arith::Mul => quote!((#l * #r)),
                    Arith::Div => quote!((#l / #r)),
                    _ => self.hoist(expr).to_token_stream(),
                })
            }
            ExprKind::Neg { operand, .. } => {
                let x = self.val(operand)?;
                Ok(quote!((-#x)))
            }
            ExprKind::Elementary { .. }
            | ExprKind::Powi { .. }
            | ExprKind::Ternary { .. }
            | ExprKind::Sum { .. }
            | ExprKind::Call { .. } => {
                let name = self.hoist(expr).to_token_stream();
                Ok(self.as_number(expr, name))
            }
            _ if self.method_call(expr) => {
                let name = self.hoist(expr).to_token_stream();
                Ok(self.as_number(expr, name))
            }
            // `v.pop().unwrap()`, named before its statement: the statement
            // reads `v` nowhere else (`refusals::popped_and_read`), so
            // nothing it computes first sees the `pop`.
            ExprKind::Structural { .. } if popped(expr).is_some() => {
                Ok(self.hoist(expr).to_token_stream())
            }
            // `i as f64` of a loop's index: there again in the reverse.
            ExprKind::Cast { expr: inner, .. }
                if is_arithmetic(inner) && self.fully_available(expr) =>
            {
                let src = expr.source.to_token_stream();
                Ok(self.as_number(expr, quote!((#src))))
            }
            // And `a.iter().fold(0.5, |acc, t| acc * 0.5 + t)` of plain
            // items (`refusals::passive_closures`): a number with no
            // derivative, saved as any plain operand is. Not a count
            // (`x.len()`), an integer: as an operand, the plain twin's
            // mistake, which a second copy would report twice.
            ExprKind::Cast { .. }
            | ExprKind::PlainCall { .. }
            | ExprKind::PlainMethod { .. }
            | ExprKind::Structural { .. }
                if !matches!(expr.kind, ExprKind::Structural { .. })
                    || (!self.active(expr)
                        && !self.effects(expr)
                        && !super::super::analysis::is_count(expr)) =>
            {
                let src = expr.source.to_token_stream();
                let src = self.as_number(expr, quote!((#src)));
                let name = self.fresh("operand");
                Ok(self.save(src, name).to_token_stream())
            }
            _ => unsupported(describe(expr), expr),
        }
    }

    /// Whether the body shows `expr` is an `f64` (see `shows_number`).
    pub(super) fn shows_number(&self, expr: &Expr) -> bool {
        shows_number(expr, &self.an.active, &|name| {
            self.an.numbers.contains(name)
        })
    }

    /// `expr` as written where the body shows it is an `f64`, else read
    /// through `f64_of`: a mistaken type is then the plain twin's error
    /// alone (`src/__adjoint/operands.rs`).
    pub(super) fn number(&self, expr: &Expr) -> TokenStream {
        let src = expr.source.to_token_stream();
        self.as_number(expr, src)
    }

    /// `tokens`, computing `expr`, read as in [`Self::number`].
    pub(super) fn as_number(&self, expr: &Expr, tokens: TokenStream) -> TokenStream {
        if self.dual && !self.shows_number(expr) {
            // A number either way: a `Dual`, or an `f64` read as one.
            return self.tracked_number(tokens);
        }
        if self.shows_number(expr) {
            tokens
        } else {
            let adjoint = &self.adjoint;
            quote!(#adjoint::f64_of(#tokens))
        }
    }

    /// The function's value, `v` computing `expr`: read through `f64_of`
    /// unless the body shows it is an `f64`, so that a body returning a
    /// `bool` or an integer is the plain twin's mismatched types only.
    pub(super) fn output(&self, expr: &Expr, v: TokenStream) -> TokenStream {
        // `panic!()`, `return`: of type `!`, which is an `f64` already.
        if expr.diverges() || self.outputs_as_written {
            return v;
        }
        if expr.is_int_literal() {
            let adjoint = &self.adjoint;
            return self.tracked_number(quote!(#adjoint::f64_of(#v)));
        }
        if self.dual {
            return self.tracked_number(v);
        }
        self.as_number(expr, v)
    }

    /// Reads the function's value as the body computes it: see the field.
    pub fn outputs_as_written(&mut self, yes: bool) {
        self.outputs_as_written = yes;
    }

    /// Whether `seed` is the function value's own adjoint: the value it
    /// seeds is the function's result.
    pub(super) fn seeds_output(&self, seed: &Seed) -> bool {
        !seed.negated && !seed.whole && seed.tokens.to_string() == self.value_bar.to_string()
    }
}
