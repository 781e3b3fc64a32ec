//! Values a trip of a loop (or a branch) saves on stacks of their own,
//! for a reverse sweep that no longer has the forward's bindings: a
//! vector-valued call's value and the arguments that change (rerun from in
//! the reverse), and the shape of a `Vec` grown by `push` inside the block.
//! Each site is a `Vec` declared at the top of `f_adjoint` (its item type
//! is what the forward pushes, which the macro cannot name): pushed where
//! the forward has the value, popped by the reverse of the same block, so
//! that one site's records come back last in first out whatever the other
//! records on the stack.

use super::*;

/// A call site's stack, the copies of the arguments it saves, the names
/// the reverse pops them as, and those of them that copy a `Vec` of
/// numbers or of rows (see `Sweep::saved_arguments`).
type SavedArguments = (Ident, Vec<TokenStream>, Vec<Ident>, Vec<Ident>);

impl<'m> Sweep<'m> {
    /// A vector-valued call bound inside a loop or a branch, or at the top
    /// of a body with `return` (`let p = softmax(&s);`, see
    /// `analysis::calls`), whose value and arguments are gone when the
    /// reverse sweep gets there: each trip pushes the arguments that change
    /// before the reverse sweep (a copy of what a borrowed one points at)
    /// and the value onto the call site's own stack, a `Vec` of what it
    /// pushes, and the reverse of the block pops them back first thing,
    /// under the binding's name, for the adjoint's shape, the reads of the
    /// binding and the callee's rerun. Gives the forward's push and the
    /// reverse's pop; `name` is then available where the `let` always ran
    /// when the block's reverse runs (no exit can come before it; a loop
    /// around it that returns is left out by `analysis::calls`). `None` for
    /// any other `let`.
    pub(super) fn call_site(
        &mut self,
        name: &str,
        mutable: bool,
        init: &Expr,
    ) -> R<Option<(TokenStream, TokenStream)>> {
        if !self.an.nested_call_lets.contains(name) {
            return Ok(None);
        }
        if mutable {
            return unsupported("a vector-valued call bound `mut` in a loop", init);
        }
        // How the reverse knows whether the `let` ran where it pops:
        // - no jump or `return` around it: it always did;
        // - in a body with `return` where no loop around the `let` jumps:
        //   a block with no loop around it runs at most once, so its site
        //   holds the value if and only if the `let` ran (in a loop, every
        //   trip ran it);
        // - directly in the body of a loop that jumps: the iteration's
        //   exit, in hand where the body's reverse pops, is 0 (it ran to
        //   the end) or a jump after the `let` (jumps are numbered in the
        //   order of the source).
        // Where it did not run, no statement after it is reversed, and
        // the value stands poisoned.
        enum Ran {
            Always,
            IfSaved,
            IfExitAfter(u32),
        }
        let ran = match self.jumps.as_slice() {
            [] if !self.early => Ran::Always,
            [function] if function.function => Ran::IfSaved,
            [.., level] if !level.function && level.depth == self.depth => {
                Ran::IfExitAfter(level.next)
            }
            _ => {
                // The reverse of an iteration that left early would pop
                // what its forward never pushed.
                return unsupported(
                    "a vector-valued call bound in a loop with `break`, `continue` or `return`, inside a block of its body",
                    init,
                );
            }
        };
        if !matches!(ran, Ran::Always)
            && init.any_expr(&|e| {
                matches!(
                    e.kind,
                    ExprKind::Return(_) | ExprKind::Break { .. } | ExprKind::Continue(_)
                )
            })
        {
            return unsupported("a vector-valued call whose arguments can jump", init);
        }
        let plain = name.trim_start_matches("r#");
        let (site, values, names, vectors) = self.saved_arguments(plain, init, true)?;
        let ident = binding(name);
        let (stack, bail) = (&self.stack, &self.bail);
        // Read by the rest of its block only through indices and its
        // length: moved to the site at the block's end rather than
        // copied here (the arguments saved here, as they are now).
        let deferred = matches!(ran, Ran::Always)
            && self.deferred.is_some()
            && self.plain_later.as_deref() == Some(name);
        let push = if deferred {
            let arguments = Ident::new(&format!("{plain}_arguments"), Span::mixed_site());
            if let Some(deferred) = self.deferred.as_mut() {
                deferred.push(quote!(#site.push((#arguments, #ident));));
            }
            quote!(let #arguments = (#(#values,)*);)
        } else {
            quote!(#site.push(((#(#values,)*), ::core::clone::Clone::clone(&#ident)));)
        };
        let fail = quote!({
            #stack.fail();
            #bail;
        });
        let poisoned = names
            .iter()
            .map(|_| quote!(::autodiff::__adjoint::Poisoned::poisoned()));
        let poisoned = quote!(((#(#poisoned,)*), ::autodiff::__adjoint::Poisoned::poisoned()));
        let popped = |missing: &TokenStream| {
            quote! {
                match #site.pop() {
                    ::core::option::Option::Some(saved) => saved,
                    ::core::option::Option::None => #missing,
                }
            }
        };
        // A value that may stand poisoned is not one the reverse may read
        // again where it pops (a binding made of it, `let u = w[0];`,
        // would be replayed there and index it): what the reverse needs
        // of it is saved as of any value the block made.
        if matches!(ran, Ran::Always) {
            self.scope().available.insert(name.to_owned());
        }
        let flag = Ident::new(&format!("{plain}_ran"), Span::mixed_site());
        let pop = match ran {
            Ran::Always => {
                let value = popped(&fail);
                quote!(let ((#(#names,)*), #ident) = #value;)
            }
            Ran::IfSaved => quote! {
                let (#flag, ((#(#names,)*), #ident)) = match #site.pop() {
                    ::core::option::Option::Some(saved) => (true, saved),
                    ::core::option::Option::None => (false, #poisoned),
                };
            },
            Ran::IfExitAfter(since) => {
                let since = Literal::u32_unsuffixed(since);
                let exit = Ident::new("exit", Span::mixed_site());
                let value = popped(&fail);
                quote! {
                    let #flag = #exit == 0 || #exit > #since;
                    let ((#(#names,)*), #ident) = if #flag { #value } else { #poisoned };
                }
            }
        };
        if !matches!(ran, Ran::Always) {
            self.scope().ran = Some(flag);
        }
        // What the reverse popped, given back to the stack's spares when
        // the block's reverse ends (`Sweep::recycle`): the value moved to
        // the site, which the block only indexed (`softmax`'s row), and
        // the copies of vectors its arguments borrowed (`s` of `&s`).
        let vector = matches!(self.an.dims.get(name), Some(Some(1 | 2)));
        if let (Some(recycle), true) = (self.recycle.as_mut(), deferred && !self.dual) {
            if vector {
                recycle.push(ident);
            }
            recycle.extend(vectors);
        }
        Ok(Some((push, pop)))
    }

    /// The arguments of a vector-valued call that change before the
    /// reverse sweep, pushed on the call's own stack as the forward
    /// evaluates the statement (the call reads them unchanged) and popped
    /// by the statement's reverse before the callee's rerun. Gives the
    /// forward's push and the reverse's pop.
    pub(super) fn call_arguments_site(&mut self, call: &Expr) -> R<(TokenStream, TokenStream)> {
        let (site, values, names, _) = self.saved_arguments("call", call, false)?;
        let (stack, bail) = (&self.stack, &self.bail);
        let push = quote!(#site.push((#(#values,)*)););
        let pop = quote! {
            let ::core::option::Option::Some((#(#names,)*)) = #site.pop() else {
                #stack.fail();
                #bail;
            };
        };
        Ok((push, pop))
    }

    /// A new call site's stack, and the copies of `call`'s arguments that
    /// change before the reverse sweep (of what a borrowed one points at),
    /// with the names the reverse pops them as, which its call then passes.
    /// Where the push comes after the call (`after_call`), a binding read
    /// no more moves instead (see `Sweep::dead`). Last, those of the names
    /// that hold a copy of a `Vec` of numbers or of rows (`&s`, `s` bound
    /// once and shown to hold `f64`s).
    fn saved_arguments(&mut self, base: &str, call: &Expr, after_call: bool) -> R<SavedArguments> {
        let args = match &call.kind {
            ExprKind::Call { args, .. } => args,
            ExprKind::PlainMethod { receiver, args, .. } if self.fully_available(receiver) => args,
            _ => return unsupported("a vector-valued call on a value that changes", call),
        };
        let site = Ident::new(
            &format!("{base}_saved_{}", self.sites.len() + 1),
            Span::mixed_site(),
        );
        let attrs = &self.attrs;
        self.sites.push((site.clone(), quote!(#(#attrs)*)));
        let mut values = Vec::new();
        let mut names = Vec::new();
        let mut vectors = Vec::new();
        for arg in args {
            if self.fully_available(arg) || self.saved_args.contains_key(&arg.id) {
                continue;
            }
            if has_call(arg) {
                return unsupported("a vector-valued call of a call", arg);
            }
            let (value, by_ref) = match &arg.kind {
                ExprKind::Reference {
                    mutability: None,
                    expr,
                } => (expr.source.to_token_stream(), true),
                ExprKind::Reference { .. } => {
                    return unsupported("a vector-valued call with a `&mut` argument", arg)
                }
                _ => (arg.source.to_token_stream(), false),
            };
            let saved = Ident::new(
                &format!("{base}_argument_{}", names.len() + 1),
                Span::mixed_site(),
            );
            // A binding of the block read no more after the call
            // (`let p = softmax(&s);`) moves to the site, once.
            let dead = match &arg.kind {
                ExprKind::Reference { expr, .. } => match &expr.kind {
                    ExprKind::Path(path) => path
                        .path
                        .get_ident()
                        .map(ToString::to_string)
                        .filter(|name| after_call && self.dead.remove(name)),
                    _ => None,
                },
                _ => None,
            };
            values.push(match dead {
                Some(_) => value,
                None => quote!(::core::clone::Clone::clone(&(#value))),
            });
            let vector = match &arg.kind {
                ExprKind::Reference { expr, .. } => match &expr.kind {
                    ExprKind::Path(path) => path.path.get_ident().is_some_and(|ident| {
                        let name = ident.to_string();
                        matches!(self.an.dims.get(&name), Some(Some(1 | 2)))
                            && self.an.bound.get(&name).copied() == Some(1)
                            && self.an.numbers.contains(&name)
                    }),
                    _ => false,
                },
                _ => false,
            };
            if vector {
                vectors.push(saved.clone());
            }
            names.push(saved.clone());
            self.saved_args.insert(arg.id, (saved, by_ref));
        }
        Ok((site, values, names, vectors))
    }

    /// The adjoint of a `Vec` grown by `push` bound inside a loop or a
    /// branch (`let mut row = Vec::new();` in the body): the block's
    /// forward saves `zero(&row)` once the `Vec` stops growing (see
    /// `grown_records`), and its reverse pops it first as the adjoint's
    /// initial value. Adds the pop to `prelude`, gives the shape. A
    /// block that jumps is refused, as for a call.
    pub(super) fn grown_site(
        &mut self,
        name: &str,
        init: &Expr,
        prelude: &mut Vec<TokenStream>,
    ) -> R<TokenStream> {
        let plain = name.trim_start_matches("r#");
        let site = self.saving_site(
            &format!("{plain}_shape"),
            "a `Vec` grown by `push` bound inside a loop with `break`, `continue` or `return`",
            init,
        )?;
        self.grown_sites.insert(name.to_owned(), site.clone());
        if let Some(length) = self.taken_whole.get_mut(name) {
            // Pushed whole later in its block (`rows_taken_whole`): its
            // length, popped here, and no adjoint until the push's
            // reverse takes the popped row (`take_pushed_row`).
            let popped = Ident::new(&format!("{plain}_length"), Span::mixed_site());
            *length = Some(popped.clone());
            self.length_sites.push(site.clone());
            prelude.push(self.pop_site(&site, &popped));
            return Ok(quote!(::std::vec::Vec::new()));
        }
        if !self.dual {
            self.pooled_sites.push(site.clone());
        }
        let shape = Ident::new("shape", Span::mixed_site());
        prelude.push(self.pop_site(&site, &shape));
        Ok(shape.to_token_stream())
    }

    /// Of the `Vec`s that `stmts` (a block with no jump out of it, swept
    /// on `f64`) bind empty and grow by `push` (`grown`), those a later
    /// statement of the block itself pushes whole onto another `Vec`
    /// (`out.push(row);`) and that are moved there for good
    /// (`moved_fresh_row`), where every mention of the binding between
    /// its `let` and that push indexes it, pushes onto it or takes its
    /// length (no borrow of it outlives its statement). The reverse of
    /// the block runs the reverses of the statements after the push
    /// first, none of which can mention the moved binding, and then the
    /// push's, unconditionally: nothing reads or adds into the binding's
    /// adjoint before the push's reverse, where it would be the zeros of
    /// its saved shape, and zeros plus the popped row are that row. So
    /// the forward saves the length alone (no spare row taken and
    /// zeroed), and the push's reverse takes the popped row as the
    /// adjoint, or zeros of that length with it added in where the two
    /// lengths differ (`__adjoint::take_pushed_row`).
    pub(super) fn rows_taken_whole(
        &self,
        stmts: &[Stmt],
        grown: &[(String, usize)],
    ) -> Vec<String> {
        let mut taken = Vec::new();
        for (name, after) in grown {
            let Some(at) = stmts.iter().position(|stmt| {
                matches!(stmt, Stmt::Let { name: Some(bound), init: Some(init), .. }
                    if bound == name && init.is_empty_vec())
            }) else {
                continue;
            };
            if self.an.reshaped.contains(name) {
                continue;
            }
            let pushed_whole = |stmt: &Stmt| -> bool {
                let Stmt::Expr(expr, _) = stmt else {
                    return false;
                };
                expr.pushed().is_some_and(|(receiver, item)| {
                    matches!(&item.kind, ExprKind::Path(path) if path.path.is_ident(name))
                        && self.root_active(receiver)
                        && !self.scalar(item)
                        && self.moved_fresh_row(item)
                })
            };
            let Some(push) = stmts
                .iter()
                .enumerate()
                .skip(after + 1)
                .find_map(|(index, stmt)| pushed_whole(stmt).then_some(index))
            else {
                continue;
            };
            let mut between = TokenStream::new();
            for stmt in &stmts[at + 1..push] {
                super::allocation::stmt_tokens(stmt, &mut between);
            }
            if super::allocation::only_plain_uses(between, name.trim_start_matches("r#")) {
                taken.push(name.clone());
            }
        }
        taken
    }

    /// `let c = &centers[bi];` of a row of a binding the body does not
    /// write, by an index that changes before the reverse sweep (the
    /// nearest centre, found by a loop before it): the forward pushes the
    /// index onto a site of its own where the `let` runs, and the reverse
    /// pops it where it declares the binding's adjoint, shaped like that
    /// row's. Returns the forward's push, the shape, and the value again
    /// for the reverse (`&centers[saved_row]`), the pop put in `prelude`;
    /// `None` for any other value.
    pub(super) fn row_by_saved_index(
        &mut self,
        init: &Expr,
        prelude: &mut Vec<TokenStream>,
    ) -> R<Option<[TokenStream; 3]>> {
        let (place, borrowed) = match &init.kind {
            ExprKind::Reference {
                mutability: None,
                expr,
            } => (&**expr, true),
            _ => (init, false),
        };
        let ExprKind::Index { base, index } = &place.kind else {
            return Ok(None);
        };
        if !self.active(place)
            || !self.fully_available(base)
            || self.fully_available(index)
            || has_call(index)
            || matches!(index.kind, ExprKind::Range { .. })
            || dims_of(place, &self.an.dims).is_none_or(|dims| dims == 0)
        {
            return Ok(None);
        }
        let Ok(base_bar) = self.bar_place(base) else {
            return Ok(None);
        };
        let site = self.saving_site(
            "row_index",
            "a row by an index that changes, bound inside a loop with `break`, `continue` or `return`",
            init,
        )?;
        let saved = Ident::new("saved_row", Span::mixed_site());
        prelude.push(self.pop_site(&site, &saved));
        let index = index.source.to_token_stream();
        let adjoint = &self.adjoint;
        let base = base.source.to_token_stream();
        let again = if borrowed {
            quote!(&#base[#saved])
        } else {
            quote!(#base[#saved])
        };
        Ok(Some([
            quote!(#site.push(#index);),
            quote!(#adjoint::zero_like(&#base_bar[#saved])),
            again,
        ]))
    }

    /// A new site (`prefix_N`) for a value the forward pushes and the
    /// reverse of the same block pops; refused (`construct`) where a jump
    /// or a `return` could leave between the two, so that the reverse
    /// would pop what its forward never pushed.
    fn saving_site(&mut self, prefix: &str, construct: &str, at: &Expr) -> R<Ident> {
        if !self.jumps.is_empty() || self.early {
            return unsupported(construct, at);
        }
        Ok(self.new_site(prefix))
    }

    /// A new site (`prefix_N`), declared at the top of `f_adjoint`.
    fn new_site(&mut self, prefix: &str) -> Ident {
        let site = Ident::new(
            &format!("{prefix}_{}", self.sites.len() + 1),
            Span::mixed_site(),
        );
        let attrs = &self.attrs;
        self.sites.push((site.clone(), quote!(#(#attrs)*)));
        site
    }

    /// `let Some(name) = site.pop() else { fail }`: the reverse's pop of
    /// what the forward pushed onto `site`.
    fn pop_site(&self, site: &Ident, name: &Ident) -> TokenStream {
        let (stack, bail) = (&self.stack, &self.bail);
        quote! {
            let ::core::option::Option::Some(#name) = #site.pop() else {
                #stack.fail();
                #bail;
            };
        }
    }

    /// A local assigned whole with a value that may have another length
    /// (`h = next;`, `analysis.reshaped`): the shape its adjoint starts
    /// from, the one the last assignment left (`name_shape`, which the
    /// forward keeps, see `keep_shape`). Only a binding of the top level,
    /// bound once, in a body without `return`, whose length nothing else
    /// changes: there the forward's `name_shape` is in scope when the
    /// reverse starts.
    pub(super) fn reshaped_shape(&self, name: &str, init: &Expr) -> R<TokenStream> {
        let why = if self.depth > 0 {
            "bound inside a loop or a branch"
        } else if self.early {
            "in a body with `return`"
        } else if self.an.bound.get(name).copied() != Some(1) {
            "whose name is bound again"
        } else {
            return Ok(self.shape_ident(name).to_token_stream());
        };
        unsupported(
            format!("a `Vec` assigned whole (its length may change), {why}"),
            init,
        )
    }

    /// After a statement of the top level that resizes a
    /// [`reshaped`](Self::reshaped_shape) binding (`h.push(..)`, a `for`
    /// pushing onto it, `mem::swap`), the shape it left, as after an
    /// assignment: once per such statement, not per push. A statement
    /// that also moves such a binding (`for .. { row = Vec::new(); ..
    /// row.push(..); .. out.push(row); }`) leaves no value to read the
    /// shape of: refused (the tape takes it).
    pub(super) fn keep_resized_shapes(&self, stmt: &Stmt) -> R<Vec<TokenStream>> {
        if self.depth > 0 || self.kept_shapes.is_empty() || matches!(stmt, Stmt::Let { .. }) {
            return Ok(Vec::new());
        }
        let resized = std::cell::RefCell::new(Vec::<String>::new());
        let note = |expr: &Expr| {
            let receivers: Vec<&Expr> = match &expr.kind {
                ExprKind::Structural {
                    receiver, method, ..
                }
                | ExprKind::PlainMethod {
                    receiver, method, ..
                } if crate::emit::adjoint::analysis::resizes(method) || *method == "extend" => {
                    vec![receiver]
                }
                _ => expr.swapped().map(|(a, b)| vec![a, b]).unwrap_or_default(),
            };
            for name in receivers.into_iter().filter_map(crate::flow::root) {
                // (Only where its `let` declared the shape, see
                // `kept_shapes`.)
                if self.kept_shapes.contains(&name) && !resized.borrow().contains(&name) {
                    resized.borrow_mut().push(name);
                }
            }
            false
        };
        let Stmt::Expr(expr, _) = stmt else {
            return Ok(Vec::new());
        };
        expr.any_expr(&note);
        let resized = resized.into_inner();
        // A resized binding passed by value anywhere in the statement
        // (`out.push(row)`, `f(row)`): moved.
        let moved = expr.any_expr(&|inner| {
            let args = match &inner.kind {
                ExprKind::Structural { args, .. }
                | ExprKind::PlainMethod { args, .. }
                | ExprKind::Call { args, .. }
                | ExprKind::PlainCall { args, .. } => args,
                _ => return false,
            };
            args.iter().any(|arg| {
                matches!(&arg.kind, ExprKind::Path(path)
                    if path.path.get_ident().is_some_and(|ident| resized.contains(&ident.to_string())))
            })
        });
        if moved {
            return unsupported("a `Vec` grown and then moved in one loop", expr);
        }
        Ok(resized
            .iter()
            .map(|name| {
                let (shape, ident) = (self.shape_ident(name), binding(name));
                quote!(#shape = ::autodiff::__adjoint::zero(&#ident);)
            })
            .collect())
    }

    /// `name_shape = zero(&name);` (a `let` first): the forward's record
    /// of the shape of a [`reshaped`](Self::reshaped_shape) binding's
    /// value, after its `let` and after each assignment.
    pub(super) fn keep_shape(&self, name: &str) -> TokenStream {
        let (shape, ident) = (self.shape_ident(name), binding(name));
        quote!(let mut #shape = ::autodiff::__adjoint::zero(&#ident);)
    }

    fn shape_ident(&self, name: &str) -> Ident {
        Ident::new(
            &format!("{}_shape", name.trim_start_matches("r#")),
            Span::mixed_site(),
        )
    }

    /// An assignment of a whole [`reshaped`](Self::reshaped_shape) binding:
    /// the forward pushes the shape of what it overwrites onto a site of
    /// its own, then keeps the new shape; the reverse pops the old one
    /// (under the name given last) as the binding's adjoint from there
    /// back. Gives the save, the pop, the keep and that name. Refused where a jump could leave
    /// between the save and its reverse, as for a grown `Vec`.
    pub(super) fn reshape_site(
        &mut self,
        name: &str,
        whole: &Expr,
    ) -> R<(TokenStream, TokenStream, TokenStream, Ident)> {
        let site = self.saving_site(
            "shape_saved",
            "a `Vec` assigned whole in a loop with `break`, `continue` or `return`",
            whole,
        )?;
        let (shape, ident) = (self.shape_ident(name), binding(name));
        let save = quote!(#site.push(::autodiff::__adjoint::zero(&#ident)););
        let popped = Ident::new("shape", Span::mixed_site());
        let pop = self.pop_site(&site, &popped);
        let keep = quote!(#shape = ::autodiff::__adjoint::zero(&#ident););
        Ok((save, pop, keep, popped))
    }

    /// A `for` over a range whose bounds change before the reverse sweep
    /// (`for i in 0..h.len()` in a loop that ends with `h = next`): the
    /// forward binds the range once, as the `for` would evaluate it, and
    /// pushes a copy onto a site of its own; the reverse pops it back for
    /// its reversed `for`. Gives the forward's binding and push, the
    /// reverse's pop, and the name both `for`s then walk. A jump or a
    /// `return` cannot come between the two: the push is the `for`
    /// statement's first, the pop its reverse's, and the reverse of a block
    /// left by a jump reverses the statements that ran, up to the one that
    /// jumped (`by_exit`); a jump out of the loop's body leaves after the
    /// push, and one before the `for` leaves its reverse out.
    pub(super) fn range_site(&mut self, iter: &TokenStream) -> (TokenStream, TokenStream, Ident) {
        let site = self.new_site("range_saved");
        let range = Ident::new("range", Span::mixed_site());
        let keep = quote! {
            let #range = #iter;
            #site.push(::core::clone::Clone::clone(&#range));
        };
        let pop = self.pop_site(&site, &range);
        (keep, pop, range)
    }

    /// The forward's saves of the shapes of the `Vec`s grown by `push`
    /// that `stmts` bind, after statement `index`.
    pub(super) fn grown_saves(&self, grown: &[(String, usize)], index: usize) -> Vec<TokenStream> {
        grown
            .iter()
            .filter(|(_, after)| *after == index)
            .filter_map(|(name, _)| {
                let site = self.grown_sites.get(name)?;
                let ident = binding(name);
                // Taken whole by its push's reverse: its length alone.
                if self.length_sites.contains(site) {
                    return Some(quote!(#site.push(#ident.len());));
                }
                // On `f64`s, from the stack's spares, which the reverse
                // refills (`recycle`): a loop's rows allocate once a thread.
                Some(if self.dual {
                    quote!(#site.push(::autodiff::__adjoint::zero(&#ident));)
                } else {
                    let stack = &self.stack;
                    quote!(#site.push(::autodiff::__adjoint::spare(#stack, &#ident));)
                })
            })
            .collect()
    }
}

/// Each `Vec` grown by `push` or assigned whole (`reshaped`) that a `let`
/// of `stmts` binds, with the statement after which its shape stops
/// changing: the last that pushes onto it, resizes it otherwise
/// (the analysis's `RESIZING`) or assigns it (or the `let`).
/// That statement must not move it too (`{ row.push(x); out.push(row)
/// }`), or its shape would be saved from a moved value.
pub(super) fn grown_records(
    stmts: &[Stmt],
    pushed: &HashSet<String>,
    reshaped: &HashSet<String>,
) -> R<Vec<(String, usize)>> {
    let mut records = Vec::new();
    for (index, stmt) in stmts.iter().enumerate() {
        let Stmt::Let {
            name: Some(name),
            init: Some(init),
            ..
        } = stmt
        else {
            continue;
        };
        if !init.is_empty_vec() && !pushed.contains(name) && !reshaped.contains(name) {
            continue;
        }
        let is_name =
            |expr: &Expr| matches!(&expr.kind, ExprKind::Path(path) if path.path.is_ident(name));
        // Any method that changes its length: the adjoint starts shaped
        // like the value after the last of them (`extend_from_slice` of a
        // `Vec` bound empty in a loop, whose shape was saved empty).
        let pushes = |expr: &Expr| match &expr.kind {
            ExprKind::Structural {
                receiver, method, ..
            } => {
                super::super::analysis::RESIZING
                    .iter()
                    .any(|resizing| method == resizing)
                    && is_name(receiver)
            }
            ExprKind::Assign { target, .. } => reshaped.contains(name) && is_name(target),
            _ => false,
        };
        let moves = |expr: &Expr| match &expr.kind {
            ExprKind::Call { args, .. }
            | ExprKind::Structural { args, .. }
            | ExprKind::PlainMethod { args, .. } => args.iter().any(is_name),
            ExprKind::Assign { value, .. } => is_name(value),
            _ => false,
        };
        let mut after = index;
        for (later, stmt) in stmts.iter().enumerate().skip(index + 1) {
            if stmt.any_expr(&pushes) {
                if stmt.any_expr(&moves) {
                    return unsupported("a `Vec` grown by `push` and moved in one statement", init);
                }
                after = later;
            }
        }
        records.push((name.clone(), after));
    }
    Ok(records)
}
