//! The forward sweep's side of an expression: values hoisted and named
//! (`let z_tanh = z.tanh();`), pushed when the reverse would not find them,
//! and operands observed where a non-finite value could vanish.

use super::*;

impl<'m> Sweep<'m> {
    /// A statement's pushes (forward, before the statement) and pops
    /// (reverse, before its adjoint statements), last pushed first popped.
    pub(super) fn saves_code(&self, cx: &StmtCx) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let stack = &self.stack;
        let mut fwd = Vec::new();
        let mut rev = Vec::new();
        for (value, _) in &cx.saves {
            fwd.push(quote!(#stack.push(#value);));
        }
        for (index, _) in &cx.index_saves {
            fwd.push(quote!(#stack.push_index(#index);));
        }
        for (_, name) in cx.index_saves.iter().rev() {
            rev.push(quote!(let #name = #stack.pop_index();));
        }
        for (_, name) in cx.saves.iter().rev() {
            rev.push(quote!(let #name = #stack.pop();));
        }
        (fwd, rev)
    }

    /// The adjoint place of a place the current statement reads or writes:
    /// an index that changes before the reverse sweep (`out[row] +=
    /// l[idx] * x[col]; idx += 1;`) is pushed before the statement and
    /// popped as the index of the adjoint place.
    pub(super) fn saved_bar_place(&mut self, place: &Expr) -> R<TokenStream> {
        let mut saves = Vec::new();
        let bar = self.bar_place_saving(place, Some(&mut saves))?;
        self.cx.index_saves.extend(saves);
        Ok(bar)
    }

    /// `bar_place`, with the indices to save collected into `saves` when
    /// given (else refused).
    pub(super) fn bar_place_saving(
        &self,
        place: &Expr,
        mut saves: Option<&mut Vec<(TokenStream, Ident)>>,
    ) -> R<TokenStream> {
        match &place.kind {
            ExprKind::Path(path) => {
                let Some(ident) = path.path.get_ident() else {
                    return unsupported("a path", place);
                };
                match self.bar_of(&ident.to_string()) {
                    Some(bar) => Ok(bar),
                    None => unsupported("a binding without an adjoint", place),
                }
            }
            ExprKind::Index { base, index } => {
                if let Some(element) = self.row_element(base, index, false) {
                    return Ok(element);
                }
                let base = self.bar_place_saving(base, saves.as_deref_mut())?;
                if self.fully_available(index) {
                    let index = index.source.to_token_stream();
                    return Ok(quote!(#base[#index]));
                }
                // One element's index (a `usize`), read twice in the
                // forward (pushed, then indexed) with no effect between.
                let savable = !has_call(index) && !matches!(index.kind, ExprKind::Range { .. });
                let Some(saves) = saves.filter(|_| savable) else {
                    return unsupported("an index that changes before the reverse sweep", index);
                };
                let src = index.source.to_token_stream();
                let key = src.to_string();
                let known = self
                    .cx
                    .index_saves
                    .iter()
                    .chain(saves.iter())
                    .find(|(value, _)| value.to_string() == key);
                let name = match known {
                    Some((_, name)) => name.clone(),
                    None => {
                        let k = self.cx.index_saves.len() + saves.len() + 1;
                        let name = if k == 1 {
                            Ident::new("saved_index", Span::mixed_site())
                        } else {
                            Ident::new(&format!("saved_index_{k}"), Span::mixed_site())
                        };
                        saves.push((src, name.clone()));
                        name
                    }
                };
                Ok(quote!(#base[#name]))
            }
            ExprKind::Paren(inner)
            | ExprKind::Reference { expr: inner, .. }
            | ExprKind::Prefix {
                op: syn::UnOp::Deref(_),
                operand: inner,
            } => self.bar_place_saving(inner, saves),
            // A model's adjoint is a model: `net_bar.layers[k].w[j]`.
            ExprKind::Field { base, member } => {
                let base = self.bar_place_saving(base, saves)?;
                Ok(quote!(#base.#member))
            }
            _ => unsupported(describe(place), place),
        }
    }

    /// Whether `base[index]` is read in the reverse sweep from `base`
    /// with its index saved: `base` is an array, slice or `Vec` there
    /// again as it was, the index one `usize` that changes first.
    pub(super) fn element_by_index(&self, base: &Expr, index: &Expr) -> bool {
        self.fully_available(base)
            && dims_of(base, &self.an.dims).is_some_and(|dims| dims > 0)
            && !self.fully_available(index)
            && !has_call(index)
            && !matches!(index.kind, ExprKind::Range { .. })
    }

    /// Saves the index `index` before the statement (once however often
    /// the statement reads it); the reverse pops it as the name returned.
    pub(super) fn save_index(&mut self, index: &Expr) -> Ident {
        let src = index.source.to_token_stream();
        let key = src.to_string();
        if let Some((_, name)) = self
            .cx
            .index_saves
            .iter()
            .find(|(value, _)| value.to_string() == key)
        {
            return name.clone();
        }
        let k = self.cx.index_saves.len() + 1;
        let name = if k == 1 {
            Ident::new("saved_index", Span::mixed_site())
        } else {
            Ident::new(&format!("saved_index_{k}"), Span::mixed_site())
        };
        self.cx.index_saves.push((src, name.clone()));
        name
    }

    /// Saves `value` before the statement; the reverse pops it as `name`.
    pub(super) fn save(&mut self, value: TokenStream, name: Ident) -> Ident {
        let key = value.to_string();
        if let Some(name) = self.cx.saved_keys.get(&key) {
            return name.clone();
        }
        // Its own name among the statement's: the reverse pops every
        // saved value before reading any, so a second `let operand` (two
        // casts, `(j as f64)` and `(n as f64)`) or `let a_i_1` (`a[i + 1]`
        // and `a[i - 1]`) would hide the first from the reads that mean
        // it.
        let base = name.to_string();
        let name = self.statement_name(name, &base);
        self.cx.saved_keys.insert(key, name.clone());
        self.cx.saves.push((value, name.clone()));
        name
    }

    /// `first`, or `base_2`, `base_3`, ..: a name no other value of the
    /// statement has (two pops of one name would hide the first), nor, at
    /// the top, a hoisted name still in scope that the reverse of an
    /// earlier statement reads; taken for the statement.
    fn statement_name(&mut self, first: Ident, base: &str) -> Ident {
        let stays = self.depth == 0 && !self.early;
        let taken = |sweep: &Self, name: &Ident| {
            let name = name.to_string();
            sweep.cx.names.contains(&name) || (stays && sweep.top_names.contains(&name))
        };
        let span = first.span();
        let mut name = first;
        let mut k = 1;
        while taken(self, &name) {
            k += 1;
            name = self.fresh(&format!("{base}_{k}"));
            name.set_span(span);
        }
        self.cx.names.insert(name.to_string());
        name
    }

    /// Names the value of `expr` in the forward sweep (`let z_tanh =
    /// z.tanh();`), saved unless it stays in scope for the reverse.
    pub fn hoist(&mut self, expr: &Expr) -> Ident {
        if let Some(name) = self.cx.hoisted.get(&expr.id) {
            return name.clone();
        }
        let base = hoist_name(expr);
        if matches!(expr.kind, ExprKind::Call { .. }) || is_method_call(expr) {
            // Out of rustc's suggestions for a misspelt or unannotated
            // callee: the student never wrote this name.
            let count = self.calls.entry(base.clone()).or_default();
            *count += 1;
            let name = if *count == 1 {
                base
            } else {
                format!("{base}_{count}")
            };
            let name = Ident::new(&name, Span::mixed_site());
            self.cx.hoisted.insert(expr.id, name.clone());
            if self.depth > 0 || self.early {
                self.cx.hoist_saved.insert(expr.id);
            }
            return name;
        }
        let stays = self.depth == 0 && !self.early;
        let first = self.fresh(&base);
        let name = self.statement_name(first, &base);
        if stays {
            self.top_names.insert(name.to_string());
        }
        self.cx.hoisted.insert(expr.id, name.clone());
        if !stays {
            self.cx.hoist_saved.insert(expr.id);
        }
        name
    }

    pub fn observe(&mut self, value: TokenStream) {
        let stack = &self.stack;
        self.cx.observes.push(quote!(#stack.observe(#value);));
    }

    /// The forward expression: as written where nothing is hoisted or
    /// called, else rebuilt with the hoisted names.
    pub(super) fn fwd(&mut self, expr: &Expr) -> R<TokenStream> {
        let hoisted = self.cx.hoisted.get(&expr.id).cloned();
        let is_call = (matches!(expr.kind, ExprKind::Call { .. }) && self.active(expr))
            || self.method_call(expr);
        if hoisted.is_none() && !is_call && !self.needs_rebuild(expr) {
            self.observe_absorbing(expr)?;
            if let Some(sum) = self.dual_sum(expr) {
                return Ok(sum);
            }
            return Ok(expr.source.to_token_stream());
        }
        let inner = self.fwd_rebuild(expr)?;
        let name = match hoisted {
            Some(name) => name,
            None if is_call => {
                let name = self.hoist(expr);
                // A call's value is read only if `val` asked for it.
                self.cx.hoist_saved.remove(&expr.id);
                name
            }
            None => return Ok(inner),
        };
        self.cx.hoists.push(quote!(let #name = #inner;));
        if self.cx.hoist_saved.contains(&expr.id) {
            self.cx.saves.push((name.to_token_stream(), name.clone()));
        }
        Ok(name.to_token_stream())
    }

    /// Whether some node below `expr` is hoisted or is an annotated call.
    pub(super) fn needs_rebuild(&self, expr: &Expr) -> bool {
        expr.children().into_iter().any(|child| match child {
            crate::ast::Child::Expr(child) => {
                self.cx.hoisted.contains_key(&child.id)
                    || (matches!(child.kind, ExprKind::Call { .. }) && self.active(child))
                    // A sum of duals inside arithmetic (`x.iter().sum::<f64>()
                    // / n`): rebuilt around it, which `fwd` names the type of.
                    || (self.dual
                        && matches!(child.kind, ExprKind::Sum { product: false, .. })
                        && self.active(child))
                    || self.method_call(child)
                    || self.needs_rebuild(child)
            }
            crate::ast::Child::Block(_) => false,
        })
    }

    /// Observes the operands of absorbing operations in a subtree printed
    /// as written.
    pub(super) fn observe_absorbing(&mut self, expr: &Expr) -> R<()> {
        if !self.active(expr) {
            return Ok(());
        }
        match &expr.kind {
            ExprKind::Elementary { func, operand, .. } if rules::absorbs(func) => {
                let src = operand.source.to_token_stream();
                self.observe_elementary(func, src);
            }
            ExprKind::Powi { base, exponent, .. } => {
                let src = base.source.to_token_stream();
                let n = exponent.source.to_token_stream();
                self.observe_power(src, &n);
            }
            ExprKind::Ternary { func, operands, .. } => {
                let [a, b, c] = operands.each_ref().map(|e| e.source.to_token_stream());
                self.observe_ternary(func, operands, [a, b, c]);
            }
            ExprKind::Binary {
                op: Arith::Div,
                rhs,
                ..
            } => {
                let src = rhs.source.to_token_stream();
                self.observe(src);
            }
            ExprKind::Binary {
                op: Arith::Method(method),
                lhs,
                rhs,
                ..
            } => {
                let (l, r) = (lhs.source.to_token_stream(), rhs.source.to_token_stream());
                self.observe_method_operand(method, lhs, l);
                self.observe_method_operand(method, rhs, r);
            }
            _ => {}
        }
        for child in expr.children() {
            if let crate::ast::Child::Expr(child) = child {
                self.observe_absorbing(child)?;
            }
        }
        Ok(())
    }

    /// What the tape would reject in a `mul_add` or `clamp` whose value
    /// hides it: the product `a * b` it records before adding `c` (the
    /// fused value can be finite where the product overflowed), or a
    /// non-finite tracked operand `clamp` brings back into range. A
    /// constant operand is no node, which the tape takes as it is (an
    /// infinite bound, say).
    pub(super) fn observe_ternary(
        &mut self,
        func: &str,
        operands: &[Box<Expr>; 3],
        values: [TokenStream; 3],
    ) {
        let [a, b, c] = values;
        if func == "mul_add" {
            if self.active(&operands[0]) || self.active(&operands[1]) {
                let [a, b] = [a, b].map(|v| if is_simple(&v) { v } else { quote!((#v)) });
                self.observe(quote!(#a * #b));
            }
            return;
        }
        for (operand, value) in operands.iter().zip([a, b, c]) {
            if self.active(operand) {
                self.observe_operand(operand, value);
            }
        }
    }

    /// `x.iter().sum()` of duals, whose type nothing else names where the
    /// sweep lifts the value (`dual(..)`), and which `sum::<f64>()`, as
    /// written, names wrongly.
    fn dual_sum(&self, expr: &Expr) -> Option<TokenStream> {
        match &expr.kind {
            ExprKind::Sum {
                items,
                product: false,
                ..
            } if self.dual && self.active(expr) => {
                let items = items.source.to_token_stream();
                Some(quote!(::core::iter::Iterator::sum::<::autodiff::Dual>(#items)))
            }
            _ => None,
        }
    }

    pub(super) fn fwd_rebuild(&mut self, expr: &Expr) -> R<TokenStream> {
        if let Some(sum) = self.dual_sum(expr) {
            return Ok(sum);
        }
        if let ExprKind::Array(items) | ExprKind::VecList(items) | ExprKind::Tuple(items) =
            &expr.kind
        {
            let items = items
                .iter()
                .map(|item| self.fwd(item))
                .collect::<R<Vec<_>>>()?;
            return Ok(match expr.kind {
                ExprKind::Array(_) => quote!([#(#items),*]),
                ExprKind::Tuple(_) => quote!((#(#items,)*)),
                _ => quote!(::std::vec![#(#items),*]),
            });
        }
        match &expr.kind {
            ExprKind::Repeat { elem, len } => {
                let item = self.fwd(elem)?;
                return Ok(quote!([#item; #len]));
            }
            ExprKind::VecRepeat { elem, len } => {
                let item = self.fwd(elem)?;
                let len = len.source.to_token_stream();
                return Ok(quote!(::std::vec![#item; #len]));
            }
            // Printed as the plain function prints it: the argument as
            // written, at the macro's line and column.
            ExprKind::Dbg { mac, arg } => {
                let shown = match arg.source {
                    Source::Expr(syntax) => crate::text::expr(syntax),
                    Source::Macro(_) => return unsupported(describe(expr), expr),
                };
                let value = self.fwd(arg)?;
                let span = syn::spanned::Spanned::span(&mac.path);
                let number = quote::quote_spanned!(span=> value);
                return Ok(crate::emit::dbg_printed(span, value, &shown, number));
            }
            _ => {}
        }
        let source = match expr.source {
            Source::Expr(source) => source,
            Source::Macro(_) => return unsupported(describe(expr), expr),
        };
        Ok(match (&expr.kind, source) {
            (ExprKind::Paren(inner), _) => {
                let inner = self.fwd(inner)?;
                quote!((#inner))
            }
            (ExprKind::Binary { op, lhs, rhs, .. }, syn::Expr::Binary(binary)) => {
                let l = self.fwd(lhs)?;
                let r = self.fwd(rhs)?;
                if *op == Arith::Div {
                    self.observe(r.clone());
                }
                let op = &binary.op;
                quote!(#l #op #r)
            }
            (ExprKind::Binary { op, lhs, rhs, .. }, syn::Expr::MethodCall(call)) => {
                let l = self.fwd(lhs)?;
                let r = self.fwd(rhs)?;
                self.observe_method_operand(op.name(), lhs, l.clone());
                self.observe_method_operand(op.name(), rhs, r.clone());
                let method = &call.method;
                quote!(#l.#method(#r))
            }
            (ExprKind::Binary { op, lhs, rhs, .. }, syn::Expr::Call(call)) => {
                let l = self.fwd(lhs)?;
                let r = self.fwd(rhs)?;
                self.observe_method_operand(op.name(), lhs, l.clone());
                self.observe_method_operand(op.name(), rhs, r.clone());
                let func = &call.func;
                quote!(#func(#l, #r))
            }
            (ExprKind::Neg { operand, .. }, _) => {
                let x = self.fwd(operand)?;
                quote!(-#x)
            }
            (ExprKind::Elementary { func, operand, .. }, source) => {
                let x = self.fwd(operand)?;
                if rules::absorbs(func) {
                    self.observe_elementary(func, x.clone());
                }
                match source {
                    syn::Expr::MethodCall(call) => {
                        let method = &call.method;
                        quote!(#x.#method())
                    }
                    syn::Expr::Call(call) => {
                        let func = &call.func;
                        quote!(#func(#x))
                    }
                    _ => return unsupported(describe(expr), expr),
                }
            }
            (ExprKind::Ternary { func, operands, .. }, source) => {
                let [a, b, c] = operands;
                let values = [self.fwd(a)?, self.fwd(b)?, self.fwd(c)?];
                self.observe_ternary(func, operands, values.clone());
                let [a, b, c] = values;
                match source {
                    syn::Expr::MethodCall(call) => {
                        let method = &call.method;
                        quote!(#a.#method(#b, #c))
                    }
                    syn::Expr::Call(call) => {
                        let func = &call.func;
                        quote!(#func(#a, #b, #c))
                    }
                    _ => return unsupported(describe(expr), expr),
                }
            }
            (ExprKind::Powi { base, exponent, .. }, source) => {
                let x = self.fwd(base)?;
                let n = exponent.source.to_token_stream();
                self.observe_power(x.clone(), &n);
                match source {
                    // The student's `.powi`: a mistaken exponent is then
                    // reported as in the plain twin, once.
                    syn::Expr::MethodCall(call) => {
                        let (dot, method) = (&call.dot_token, &call.method);
                        quote!(#x #dot #method(#n))
                    }
                    syn::Expr::Call(call) => {
                        let func = &call.func;
                        quote!(#func(#x, #n))
                    }
                    _ => quote!(f64::powi(#x, #n)),
                }
            }
            // No derivative flows through the call, so no reverse will pop
            // what its forward would push: the plain function.
            (ExprKind::Call { .. }, _) if !self.active(expr) => expr.source.to_token_stream(),
            // On duals, the callee's dual pair (`dual_pair`), whose value is
            // a dual number (`dual::takes` admits only calls read as one).
            (ExprKind::Call { func, args }, _) if self.dual => {
                let forward = sibling(&self.stand_ins, func, "forward_dual");
                let args = self.fwd_args(args)?;
                let (stack, adjoint) = (&self.stack, &self.adjoint);
                quote!(#forward(#stack, #adjoint::args((#(#args,)*))))
            }
            (ExprKind::Call { func, args }, _) => {
                let forward = sibling(&self.stand_ins, func, "forward");
                let args = self.fwd_args(args)?;
                let (stack, adjoint) = (&self.stack, &self.adjoint);
                self.call_value(expr, quote!(#forward(#stack, #adjoint::args((#(#args,)*)))))
            }
            (
                ExprKind::PlainMethod {
                    receiver,
                    method,
                    args,
                    ..
                },
                _,
            ) if self.method_call(expr) && self.dual => {
                // On duals, the method's dual pair, named on the model's
                // type, the receiver's twin its first argument.
                let forward = self.model_method(receiver, method, "forward_dual")?;
                let args = self.fwd_args(args)?;
                let (stack, adjoint) = (&self.stack, &self.adjoint);
                let receiver = receiver.source.to_token_stream();
                quote!(#forward(#stack, #adjoint::args((#receiver, #(#args,)*))))
            }
            (
                ExprKind::PlainMethod {
                    receiver,
                    method,
                    args,
                    ..
                },
                _,
            ) if self.method_call(expr) => {
                let forward = format_ident!("{}_forward", method.unraw(), span = method.span());
                let args = self.fwd_args(args)?;
                let (stack, adjoint) = (&self.stack, &self.adjoint);
                let receiver = receiver.source.to_token_stream();
                self.call_value(
                    expr,
                    quote!(#receiver.#forward(#stack, #adjoint::args((&#receiver, #(#args,)*)))),
                )
            }
            // `[x3, h(x0)].to_vec()`: the copy of a rebuilt value.
            (
                ExprKind::Structural {
                    receiver,
                    method,
                    args,
                    ..
                },
                syn::Expr::MethodCall(call),
            ) if args.is_empty()
                && matches!(
                    method.to_string().as_str(),
                    "clone" | "to_vec" | "copied" | "cloned" | "concat"
                ) =>
            {
                let receiver = self.fwd(receiver)?;
                let (dot, method) = (&call.dot_token, &call.method);
                quote!(#receiver #dot #method())
            }
            _ => {
                if self.needs_rebuild(expr) {
                    return unsupported(describe(expr), expr);
                }
                expr.source.to_token_stream()
            }
        })
    }

    /// A call's value in the forward sweep: as it is for a vector binding's
    /// call (`analysis::calls`), else read as a number (`scalar_of`), which
    /// fails the sweep on a vector-valued callee's value.
    fn call_value(&self, expr: &Expr, call: TokenStream) -> TokenStream {
        if self.an.vector_calls.contains(&expr.id) {
            return call;
        }
        let (stack, adjoint) = (&self.stack, &self.adjoint);
        quote!(#adjoint::scalar_of(#call, #stack))
    }

    /// Observes an operand of `max`/`min`, unless it is a running extreme.
    pub(super) fn observe_operand(&mut self, operand: &Expr, tokens: TokenStream) {
        let extreme = matches!(&operand.kind, ExprKind::Path(path)
            if path.path.get_ident().is_some_and(|ident| self.unobserved.contains(&ident.to_string())));
        if !extreme {
            self.observe(tokens);
        }
    }

    /// Observes an operand of `max` or `min` as the tape takes it: an
    /// infinity is selected or not with a finite derivative
    /// (`Stack::observe_infinite`); other methods' operands must be finite.
    pub(super) fn observe_method_operand(
        &mut self,
        method: &str,
        operand: &Expr,
        tokens: TokenStream,
    ) {
        if matches!(method, "max" | "min") {
            let extreme = matches!(&operand.kind, ExprKind::Path(path)
                if path.path.get_ident().is_some_and(|ident| self.unobserved.contains(&ident.to_string())));
            if !extreme {
                let stack = &self.stack;
                self.cx
                    .observes
                    .push(quote!(#stack.observe_infinite(#tokens);));
            }
        } else {
            self.observe_operand(operand, tokens);
        }
    }

    /// Observes the operand of an absorbing one-operand function: `exp`
    /// takes `−∞` (0, derivative 0) and a `+∞` it gives back; every other
    /// function's operand is finite or an infinity the tape records (see
    /// `Stack::observe_operand_of`: `tanh(∞) = 1` with derivative 0).
    pub(super) fn observe_elementary(&mut self, func: &str, tokens: TokenStream) {
        let stack = &self.stack;
        if func == "exp" {
            self.cx
                .observes
                .push(quote!(#stack.observe_infinite(#tokens);));
        } else if let Some(operation) = rules::one_operand(func) {
            self.cx
                .observes
                .push(quote!(#stack.observe_operand_of(#tokens, #operation);));
        } else {
            self.observe(tokens);
        }
    }

    /// Observes the base of `x.powi(n)`: finite, or an infinity whose
    /// power and derivative the tape records (`(∞).powi(-2) = 0`, with
    /// derivative 0; not `(∞).powi(2)`).
    pub(super) fn observe_power(&mut self, base: TokenStream, n: &TokenStream) {
        let stack = &self.stack;
        self.cx
            .observes
            .push(quote!(#stack.observe_power_base(#base, #n);));
    }

    /// Sets the bindings left out of operand observation.
    pub fn unobserved(&mut self, names: HashSet<String>) {
        self.unobserved = names;
    }
}
