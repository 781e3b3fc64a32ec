//! Statements and blocks: each statement's forward code and its reverse,
//! a block's reverse as its statements' in the opposite order (written once,
//! in `reversed`), and a block's value; a statement itself is `lets`'s
//! (a `let`) or `assignments`'s.

use super::allocation::{capacity_hint, dead_after, plain_later};
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
        // (At the top of a body with no `return` as well: its adjoints
        // given back when its reverse ends.)
        if exits.is_empty() && !self.dual && (self.depth > 0 || !self.early) {
            self.recycle = Some(Vec::new());
        }
        // A block with exits records how it was left (see `exited_block`):
        // `j + 1` by a jump out of statement `j`, 0 at its end, which a jump
        // out of its last statement or value (`return` as the last
        // statement) reaches too: every statement ran.
        let last = (!exits.is_empty()).then(|| stmts.len() - usize::from(!valued));
        let grown = if self.depth > 0 {
            super::sites::grown_records(stmts, &self.an.pushed, &self.an.reshaped)?
        } else {
            Vec::new()
        };
        if exits.is_empty() && !self.dual && !self.early && self.jumps.is_empty() {
            for name in self.rows_taken_whole(stmts, &grown) {
                self.taken_whole.insert(name, None);
            }
        }
        let outer_dead = ::std::mem::take(&mut self.dead);
        // A loop's body with no jump and no value: a call site's push may
        // wait for its end (`call_site`).
        let deferring = self.depth > 0 && exits.is_empty() && tail.is_none() && !self.dual;
        let outer_deferred = std::mem::replace(&mut self.deferred, deferring.then(Vec::new));
        let outer_plain = self.plain_later.take();
        for (index, stmt) in stmts.iter().enumerate() {
            if self.depth == 0 {
                self.top = index;
            } else {
                self.dead = dead_after(stmts, tail, index, &grown);
            }
            self.plain_later = if deferring {
                plain_later(stmts, index, &self.an.bound)
            } else {
                None
            };
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
            fwd.extend(capacity_hint(stmt, stmts.get(index + 1), &|name| {
                self.room(name)
            }));
            revs.push(r);
            fwd.extend(self.grown_saves(&grown, index));
        }
        self.dead = outer_dead;
        self.plain_later = outer_plain;
        let deferred = std::mem::replace(&mut self.deferred, outer_deferred);
        fwd.extend(deferred.unwrap_or_default());
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
        // At the top, the forward's `Vec`s too, once nothing reads them.
        let given = match (self.depth, &self.recycle) {
            (0, Some(_)) => self.given_back(&block.stmts),
            _ => Vec::new(),
        };
        let stack = &self.stack;
        for bar in self.recycle.take().unwrap_or_default().iter().chain(&given) {
            rev.push(quote!(::autodiff::__adjoint::recycle(#stack, #bar);));
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
        let (mut fwd, rev) = code?;
        fwd.extend(self.keep_resized_shapes(stmt)?);
        Ok((fwd, rev))
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
