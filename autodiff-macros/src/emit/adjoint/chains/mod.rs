//! Iterator chains with closures, read by the compiled adjoint as the
//! loops they stand for. `x.iter().map(|v| v * v).sum()` is the loop
//! `let mut sum = -0.0; for v in x.iter() { sum += v * v; }`, and
//! `c.iter().rev().fold(0.0, |acc, &c| acc * t + c)` is `let mut acc =
//! 0.0; for &c in c.iter().rev() { acc = acc * t + c; }`: the same
//! additions in the same order (a float `sum` starts from `-0.0`), so the
//! same value to the bit, and the adjoint of that loop, which the sweeps
//! already write, is the adjoint of the chain: `v_bar`, named after the
//! closure's parameter, added into `x_bar[index]`.
//!
//! `let e: Vec<f64> = z.iter().map(|v| v.exp()).collect();` is `let mut e:
//! Vec<f64> = Vec::new(); for v in z.iter() { e.push(v.exp()); }` (a copy,
//! `z.iter().cloned().collect()`, pushes each item), and
//! `out.extend(z.iter().map(|v| v.exp()));` is that loop's `for`; `h =
//! chain.collect();` of a `Vec` the body binds (`analysis::vec_bindings`) is that
//! loop onto a `Vec` of its own, then `h` assigned it. A
//! fold's accumulator, or an item named like the slice it walks, that
//! would clash with another binding is renamed (`acc_2`, `x_2`).
//!
//! Only the body the adjoint reads is rewritten, never the plain twin or
//! the tape. A chain is lowered where its statement evaluates it exactly
//! once (an operand, an argument, a `let`'s value, a block's tail; not a
//! `while` condition or the right of `&&`), its source is one the
//! sweep's `for` walks by index (`x.iter()`, `.copied()`, `.zip(..)`,
//! `.enumerate()`, `.rev()`, `.step_by(k)`, `.skip(k)`, `.take(k)`, a
//! range), and its closure body cannot leave the loop (no `return`,
//! `break`, `continue`, `?`). Any other closure stays, and the function
//! keeps the tape.
//!
//! An `if` value inside an expression (`relu(-(if c { a } else { b }))`,
//! `(if c { a } else { b }) + t`) is read the same way, as the `let` it
//! stands for before its statement, `let if_value = if c { a } else { b };`,
//! which the sweeps reverse as a branch; so is a block or a `match` there
//! (`s += { let t = x.sin(); t * t } * w;`) where nothing in it writes,
//! jumps or borrows mutably (`branching`), so that reading it first
//! changes no value.
//!
//! This file walks the body and writes the loops (how a chain is
//! rewritten); `branching` decides which blocks and `match`es an operand
//! may be read before its statement, `recognise` decides which expressions are chains it lowers
//! (the reductions, sources and closures it reads), `windows` reads a
//! `windows(n)` or `chunks(n)` source as a walk over start positions,
//! `flattened` a `for` over `w.iter().flatten()` as a loop over the rows,
//! `chained` one over `a.iter().chain(b.iter())` as a loop over each half,
//! `select` writes the loop of a `max_by`/`min_by`, `closures` reads a
//! closure bound by `let` as its body where it is called, `options` an
//! `if let`/`match` on `x.first()`, `x.last()` or `x.get(i)` as a length
//! test, and `tokens` renames and substitutes names in token streams.

mod branching;
mod chained;
mod closures;
mod flattened;
mod options;
mod recognise;
mod select;
mod tokens;
mod windows;

use std::collections::{HashMap, HashSet, VecDeque};

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};

pub(super) use closures::binding_counts;
pub(super) use recognise::is_vec;
use recognise::{binding_maybe_mut, closure_inputs, Chain, Reduce};
pub(super) use recognise::{constant, extreme_of};
use tokens::collect;

/// `item` with its body's iterator chains lowered to loops, or `None` when
/// it has none that carry a derivative; with the running extremes (see
/// [`Lowering::extremes`]).
/// `bindings` counts how often each name is bound ([`binding_counts`]),
/// `bound` the same without closures' parameters (`Analysis::bound`).
/// `vecs` are the names bound once to a `Vec` the body shows
/// (`analysis::vec_bindings`), which a chain's `collect()` may be assigned to.
pub fn lower(
    item: &syn::ItemFn,
    active: &HashSet<String>,
    bindings: &HashMap<String, usize>,
    bound: &HashMap<String, usize>,
    vecs: &HashSet<String>,
) -> Option<(syn::ItemFn, HashSet<String>)> {
    let mut idents = HashSet::new();
    collect(item.to_token_stream(), &mut idents);
    let mut lowering = Lowering {
        whole: item.to_token_stream(),
        idents,
        active,
        bindings,
        bound,
        vecs,
        closures: Vec::new(),
        changed: false,
        extremes: HashSet::new(),
    };
    let mut out = item.clone();
    lowering.block(&mut out.block);
    lowering.changed.then_some((out, lowering.extremes))
}

struct Lowering<'s> {
    /// The function as written: a fold's accumulator keeps its name when
    /// the closure is the only place that mentions it.
    whole: TokenStream,
    /// Every identifier of the function and of the loops written so far.
    idents: HashSet<String>,
    active: &'s HashSet<String>,
    /// How often each name is bound in the function.
    bindings: &'s HashMap<String, usize>,
    /// How often each name is bound other than as a closure's parameter.
    bound: &'s HashMap<String, usize>,
    /// Names bound once to a `Vec` the body shows (`analysis::vec_bindings`).
    vecs: &'s HashSet<String>,
    /// The closures bound by `let` in the blocks around the statement
    /// read, whose calls are read as their bodies (see `closures`).
    closures: Vec<closures::Bound>,
    changed: bool,
    /// Accumulators of a `fold` from a constant by `max` or `min` of
    /// themselves and the item (`fold(f64::NEG_INFINITY, f64::max)`): they
    /// hold the constant or an item, which the forward observes, so their
    /// own observation as an operand is left out; a start of `-∞` is then
    /// no reason to rerun the tape, which takes it too.
    extremes: HashSet<String>,
}

impl Lowering<'_> {
    fn fresh(&mut self, base: &str) -> syn::Ident {
        super::fresh_ident(&mut self.idents, base)
    }

    /// Rewrites the statements of `block`, then the blocks inside them.
    fn block(&mut self, block: &mut syn::Block) {
        self.drained(block);
        let scope = self.closures.len();
        // Where each closure of this block is bound, and its name.
        let mut bound = Vec::new();
        let mut work: VecDeque<syn::Stmt> = std::mem::take(&mut block.stmts).into();
        while let Some(mut stmt) = work.pop_front() {
            if let syn::Stmt::Local(local) = &stmt {
                if let Some(closure) = self.bound_closure(local) {
                    bound.push((block.stmts.len(), closure.name.clone()));
                    self.closures.push(closure);
                    block.stmts.push(stmt);
                    continue;
                }
            }
            let mut before = Vec::new();
            let keep = self.stmt(&mut stmt, &mut before);
            if before.is_empty() {
                self.nested_stmt(&mut stmt);
                block.stmts.push(stmt);
            } else {
                // The new statements may hold chains of their own (a
                // fold's `init`): read again.
                if keep {
                    work.push_front(stmt);
                }
                for new in before.into_iter().rev() {
                    work.push_front(new);
                }
            }
        }
        // A closure whose every call was read as its body is not needed.
        for (at, name) in bound.into_iter().rev() {
            let rest = &block.stmts[at + 1..];
            if rest
                .iter()
                .all(|stmt| tokens::count(stmt.to_token_stream(), &name) == 0)
            {
                block.stmts.remove(at);
                self.changed = true;
            }
        }
        self.closures.truncate(scope);
    }

    /// Lowers the statement's first chain into `before`; `false` when the
    /// loop replaces the statement (`let total = chain;`).
    fn stmt(&mut self, stmt: &mut syn::Stmt, before: &mut Vec<syn::Stmt>) -> bool {
        match stmt {
            syn::Stmt::Local(syn::Local {
                init: Some(init), ..
            }) => {
                self.options(&mut init.expr);
                // `let last = x.last().unwrap();` reads `let last =
                // &x[x.len() - 1];`, the borrow of a row or a model's part
                // it is, with no parentheses around it.
                if let syn::Expr::Paren(paren) = &*init.expr {
                    if matches!(&*paren.expr, syn::Expr::Reference(_)) {
                        let inner = (*paren.expr).clone();
                        *init.expr = inner;
                    }
                }
            }
            syn::Stmt::Expr(expr, _) => self.options(expr),
            _ => {}
        }
        match stmt {
            // Statements lowered before a `let` under `#[cfg]` would run
            // when it is compiled out; other attributes (`#[allow]`) stay
            // on the `let`.
            syn::Stmt::Local(local)
                if !local.attrs.iter().any(|attr| {
                    attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr")
                }) =>
            {
                let Some(init) = &mut local.init else {
                    return true;
                };
                if init.diverge.is_some() {
                    return true;
                }
                // `let total = chain;`: the loop accumulates into `total`.
                if let Some((ident, ty, mutable)) = binding_maybe_mut(&local.pat) {
                    if let Some(chain) = self.chain(&init.expr, true) {
                        let named =
                            !crate::text::mentions(init.expr.to_token_stream(), &ident.to_string());
                        let typed = match &chain.reduce {
                            Reduce::Sum | Reduce::Product => {
                                !mutable && ty.is_none_or(crate::valid::is_f64)
                            }
                            Reduce::Fold { .. } => false,
                            Reduce::Collect(turbofish) => {
                                ty.is_some_and(is_vec) || (ty.is_none() && turbofish.is_some())
                            }
                        };
                        if named && typed {
                            let ident = ident.clone();
                            let ty = match &chain.reduce {
                                Reduce::Collect(Some(turbofish)) if ty.is_none() => {
                                    Some(turbofish.clone())
                                }
                                _ => ty.cloned(),
                            };
                            before.extend(self.loop_stmts(&chain, &ident, ty.as_ref()));
                            self.changed = true;
                            return false;
                        }
                        // `let h = layers.iter().fold(x.to_vec(), |h, l|
                        // l.forward(&h));`: the loop folds into `h` itself
                        // (a `Vec` moved out of a renamed accumulator
                        // would keep the tape).
                        if let Some(chain) = folded_into(&chain, ident) {
                            let (ident, ty) = (ident.clone(), ty.cloned());
                            before.extend(self.loop_stmts(&chain, &ident, ty.as_ref()));
                            self.changed = true;
                            return false;
                        }
                    }
                }
                self.extract(&mut init.expr, before);
            }
            // `for w in x.windows(2) { .. w[1] - w[0] .. }`: a walk over
            // where each window starts (see `windows`).
            syn::Stmt::Expr(syn::Expr::ForLoop(for_loop), _) => {
                // `for v in a.iter().chain(b.iter())`: a loop over each
                // half in turn (see `chained`).
                if let Some(halves) = chained::for_loops(for_loop, &mut self.idents) {
                    before.extend(halves);
                    self.changed = true;
                    return false;
                }
                // `for v in w.iter().flatten()`: a loop over the rows
                // around one over each row's items (see `flattened`).
                if let Some(read) = windows::for_loop(for_loop, &mut self.idents)
                    .or_else(|| flattened::for_loop(for_loop, &mut self.idents))
                {
                    *for_loop = read;
                    self.changed = true;
                }
            }
            syn::Stmt::Expr(expr, _) => {
                // `x.iter().for_each(|v| total += v.sin());` is the loop
                // `for v in x.iter() { total += v.sin(); }`.
                if let syn::Expr::MethodCall(call) = &*expr {
                    if let Some(stmt) = self.for_each(call).or_else(|| self.extend(call)) {
                        before.push(stmt);
                        self.changed = true;
                        return false;
                    }
                }
                // `h = h.iter().zip(&d).map(|(a, b)| a + b).collect();` of a
                // `Vec` the body binds: `let mut collected = Vec::new();`,
                // its loop of pushes, then `h = collected;` (a residual
                // connection written as a chain).
                if let Some(stmts) = self.collect_assigned(expr) {
                    before.extend(stmts);
                    self.changed = true;
                    return false;
                }
                self.extract(expr, before);
            }
            _ => {}
        }
        true
    }

    /// `let mut it = x.iter(); .. while let Some(v) = it.next() { .. }`,
    /// where nothing else names `it`, and nothing between names what the
    /// source reads: the loop `for v in x.iter() { .. }` in the `while`'s
    /// place, which binds the same items in the same order.
    fn drained(&mut self, block: &mut syn::Block) {
        let mut k = 0;
        while k < block.stmts.len() {
            let syn::Stmt::Local(local) = &block.stmts[k] else {
                k += 1;
                continue;
            };
            // What the source reads, and the iterator itself.
            let mut source_names = HashSet::new();
            if let Some(init) = &local.init {
                collect(init.expr.to_token_stream(), &mut source_names);
            }
            collect(local.pat.to_token_stream(), &mut source_names);
            source_names.remove("mut");
            let mentions =
                |stmt: &syn::Stmt, name: &str| crate::text::mentions(stmt.to_token_stream(), name);
            let mut found = None;
            for j in k + 1..block.stmts.len() {
                if let syn::Stmt::Expr(syn::Expr::While(w), _) = &block.stmts[j] {
                    if let Some((it, stmt)) = drained_loop(local, w) {
                        let name = it.to_string();
                        let alone = !crate::text::mentions(w.body.to_token_stream(), &name)
                            && !block.stmts[j + 1..].iter().any(|s| mentions(s, &name));
                        if alone && local.attrs.is_empty() {
                            found = Some((j, stmt));
                        }
                        break;
                    }
                }
                // The source is read where the `let` was: nothing between
                // may change what it names.
                if source_names
                    .iter()
                    .any(|name| mentions(&block.stmts[j], name))
                {
                    break;
                }
            }
            if let Some((j, stmt)) = found {
                block.stmts[j] = stmt;
                block.stmts.remove(k);
                self.changed = true;
                continue;
            }
            k += 1;
        }
    }

    /// `target = chain.collect();` where `target` is a name bound once to a
    /// `Vec` the body shows: the loop pushing onto a `Vec` of its own,
    /// then that `Vec` assigned whole. The chain reads `target` as it was
    /// (`h.iter()`), and the assignment comes after the loop, as it did.
    fn collect_assigned(&mut self, expr: &syn::Expr) -> Option<Vec<syn::Stmt>> {
        let syn::Expr::Assign(assign) = expr else {
            return None;
        };
        let syn::Expr::Path(target) = &*assign.left else {
            return None;
        };
        let target = target.path.get_ident()?;
        if !assign.attrs.is_empty() || !self.vecs.contains(&target.to_string()) {
            return None;
        }
        let chain = self.chain(&assign.right, true)?;
        if !matches!(chain.reduce, Reduce::Collect(_)) {
            return None;
        }
        let collected = self.fresh("collected");
        let mut stmts = self.loop_stmts(&chain, &collected, None);
        stmts.push(syn::parse_quote!(#target = #collected;));
        Some(stmts)
    }

    /// `source.for_each(|pat| body)` as a statement: its loop.
    fn for_each(&self, call: &syn::ExprMethodCall) -> Option<syn::Stmt> {
        if call.method != "for_each" {
            return None;
        }
        let [syn::Expr::Closure(closure)] = call.args.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let [pat] = closure_inputs(closure)?;
        let chain = self.prepared(Chain {
            filter: None,
            source: (*call.receiver).clone(),
            pat,
            body: (*closure.body).clone(),
            reduce: Reduce::Sum,
            span: call.method.span(),
            float: false,
        })?;
        let Chain {
            filter,
            source,
            pat,
            body,
            ..
        } = chain;
        let step = match filter {
            Some(cond) => quote!(if #cond { #body; }),
            None => quote!(#body;),
        };
        syn::parse2(quote_spanned!(call.method.span()=> for #pat in #source { #step })).ok()
    }

    /// `out.extend(source.map(|pat| body))` as a statement: the loop
    /// `for pat in source { out.push(body); }`, which pushes the same
    /// items in the same order.
    fn extend(&self, call: &syn::ExprMethodCall) -> Option<syn::Stmt> {
        if call.method != "extend" || call.args.len() != 1 {
            return None;
        }
        let syn::Expr::Path(receiver) = &*call.receiver else {
            return None;
        };
        receiver.path.get_ident()?;
        let syn::Expr::MethodCall(map) = &call.args[0] else {
            return None;
        };
        if map.method != "map" || map.args.len() != 1 {
            return None;
        }
        let chain = self.prepared(recognise::mapped(
            map,
            Reduce::Collect(None),
            call.method.span(),
        )?)?;
        let Chain {
            filter,
            source,
            pat,
            body,
            span,
            ..
        } = chain;
        let row = super::fresh_ident(&mut self.idents.clone(), "row");
        let push = pushed(receiver, &body, &row, None);
        let step = match filter {
            Some(cond) => quote!(if #cond { #push }),
            None => push,
        };
        syn::parse2(quote_spanned!(span=> for #pat in #source { #step })).ok()
    }

    /// Lowers the first chain `expr` evaluates exactly once, if any.
    fn extract(&mut self, expr: &mut syn::Expr, before: &mut Vec<syn::Stmt>) {
        if let Some((stmts, selected)) = self.selection(expr).or_else(|| self.reduction(expr)) {
            before.extend(stmts);
            *expr = selected;
            self.changed = true;
            return;
        }
        // `*x.iter().max_by(..).unwrap()`: the value selected, not `*&` it.
        if let syn::Expr::Unary(unary) = &*expr {
            if matches!(unary.op, syn::UnOp::Deref(_)) {
                let mut inner = &*unary.expr;
                while let syn::Expr::Paren(paren) = inner {
                    inner = &paren.expr;
                }
                if let Some((stmts, syn::Expr::Reference(selected))) = self.selection(inner) {
                    before.extend(stmts);
                    *expr = *selected.expr;
                    self.changed = true;
                    return;
                }
            }
        }
        // `act(x)`: the closure's block, as a `let` before the statement.
        if let Some(block) = self.inlined(expr) {
            let callee = match &*expr {
                syn::Expr::Call(call) => call.func.to_token_stream().to_string(),
                _ => unreachable!("inlined reads a call"),
            };
            let value = self.fresh(&format!("{callee}_value"));
            let span = value.span();
            let stmt = syn::parse2(quote_spanned!(span=> let #value = #block;));
            before.push(stmt.expect("a `let`"));
            *expr = syn::parse2(value.to_token_stream()).expect("a path");
            self.changed = true;
            return;
        }
        if let Some(chain) = self.chain(expr, false) {
            let acc = match &chain.reduce {
                Reduce::Sum => self.fresh("sum"),
                Reduce::Product => self.fresh("product"),
                Reduce::Fold { acc, .. } => acc.clone(),
                Reduce::Collect(_) => return,
            };
            before.extend(self.loop_stmts(&chain, &acc, None));
            *expr = syn::parse2(quote_spanned!(chain.span=> #acc)).expect("a path");
            self.changed = true;
            return;
        }
        use syn::Expr as E;
        match expr {
            E::Binary(binary) => {
                self.operand(&mut binary.left, before);
                if before.is_empty() && !matches!(binary.op, syn::BinOp::And(_) | syn::BinOp::Or(_))
                {
                    self.operand(&mut binary.right, before);
                }
            }
            E::Unary(unary) => self.operand(&mut unary.expr, before),
            E::Paren(paren) => self.operand(&mut paren.expr, before),
            E::Cast(cast) => self.operand(&mut cast.expr, before),
            E::Field(field) => self.operand(&mut field.base, before),
            E::Reference(reference) => self.operand(&mut reference.expr, before),
            E::Index(index) => {
                self.extract_first([&mut *index.expr, &mut *index.index], before);
            }
            E::MethodCall(call) => {
                let operands = std::iter::once(&mut *call.receiver).chain(call.args.iter_mut());
                self.extract_first(operands, before);
            }
            E::Call(call) => self.extract_first(call.args.iter_mut(), before),
            E::Tuple(tuple) => self.extract_first(tuple.elems.iter_mut(), before),
            E::Array(array) => self.extract_first(array.elems.iter_mut(), before),
            E::Return(ret) => {
                if let Some(value) = &mut ret.expr {
                    self.operand(value, before);
                }
            }
            E::Break(jump) => {
                if let Some(value) = &mut jump.expr {
                    self.operand(value, before);
                }
            }
            E::Repeat(repeat) => self.operand(&mut repeat.expr, before),
            // `dbg!(e)`, `vec![a, b]` and `vec![e; n]`: read as the operand
            // or the array they list.
            E::Macro(mac) => {
                macro_operand(&mut mac.mac, |inner| {
                    let (len, changed) = (before.len(), std::mem::take(&mut self.changed));
                    self.operand(inner, before);
                    let edited = self.changed || before.len() > len;
                    self.changed |= changed;
                    edited
                });
            }
            E::Assign(assign) => self.operand(&mut assign.right, before),
            _ => {}
        }
    }

    /// [`Self::extract`] on each of `operands`, in order, until one lowers a
    /// chain: the statement is then split before it.
    fn extract_first<'e>(
        &mut self,
        operands: impl IntoIterator<Item = &'e mut syn::Expr>,
        before: &mut Vec<syn::Stmt>,
    ) {
        for operand in operands {
            if !before.is_empty() {
                break;
            }
            self.operand(operand, before);
        }
    }

    /// [`Self::extract`] on an operand of the statement's expression: an
    /// `if` value there (`relu(-(if c { a } else { b }))`) becomes a `let`
    /// before the statement, which the sweeps reverse as a branch, and
    /// its name takes its place. The operands around it carry no effects
    /// of their own, so reading it first changes no value. A block or a
    /// `match` there (`s += { let t = x.sin(); t * t } * w;`) is moved
    /// out the same way where nothing in it writes, jumps or borrows
    /// mutably ([`branching::moves_out`]): reading it first changes no
    /// value either.
    fn operand(&mut self, expr: &mut syn::Expr, before: &mut Vec<syn::Stmt>) {
        let mut inner = &*expr;
        while let syn::Expr::Paren(paren) = inner {
            inner = &paren.expr;
        }
        let moved = match inner {
            syn::Expr::If(value) if value.else_branch.is_some() => {
                Some(("if_value", value.if_token.span))
            }
            syn::Expr::Block(block) if branching::moves_out(inner) => {
                Some(("block_value", block.block.brace_token.span.join()))
            }
            syn::Expr::Match(value) if branching::moves_out(inner) => {
                Some(("match_value", value.match_token.span))
            }
            _ => None,
        };
        if let Some((base, span)) = moved {
            let name = self.fresh(base);
            let stmt = syn::parse2(quote_spanned!(span=> let #name = #inner;));
            before.push(stmt.expect("a `let`"));
            *expr = syn::parse2(quote_spanned!(span=> #name)).expect("a path");
            self.changed = true;
            return;
        }
        self.extract(expr, before);
    }

    /// The blocks inside a statement: branches, loop bodies, blocks, and
    /// the arms of a `match` (an arm written as an expression read as the
    /// block it means, `true => { e }`, where `e` may hold what is lowered
    /// here: a chain, an `if` value, a block or `match` operand).
    fn nested_stmt(&mut self, stmt: &mut syn::Stmt) {
        branching::arms_as_blocks(stmt);
        crate::blocks::of_stmt(stmt, &mut |block| self.block(block));
    }

    /// `let mut acc = start; for pat in source { acc op= body; }`.
    fn loop_stmts(
        &mut self,
        chain: &Chain,
        acc: &syn::Ident,
        ty: Option<&syn::Type>,
    ) -> Vec<syn::Stmt> {
        let Chain {
            filter,
            source,
            pat,
            body,
            reduce,
            span,
            float,
            ..
        } = chain;
        // `sum::<f64>()` says the type its loop's accumulator needs where
        // nothing else does (`weights.iter().map(|t| t * t).sum::<f64>()`
        // of a literal array: an untyped `-0.0` stays `{float}`, E0689).
        let declared = ty;
        let ty = match ty {
            Some(ty) => Some(quote!(: #ty)),
            None if *float => Some(quote!(: f64)),
            None => None,
        };
        let (start, step) = match reduce {
            Reduce::Sum => (quote!(-0.0), quote!(#acc += #body;)),
            Reduce::Product => (quote!(1.0), quote!(#acc *= #body;)),
            Reduce::Fold { init, .. } => (init.to_token_stream(), folded(acc, body)),
            Reduce::Collect(_) => {
                let row = self.fresh("row");
                (
                    quote!(Vec::new()),
                    pushed(acc, body, &row, declared.and_then(vec_items)),
                )
            }
        };
        let step = match filter {
            Some(cond) => quote!(if #cond { #step }),
            None => step,
        };
        let tokens = quote_spanned! {*span=>
            let mut #acc #ty = #start;
            for #pat in #source {
                #step
            }
        };
        if let Reduce::Fold { init, .. } = reduce {
            if constant(init) && extreme_of(body, acc) {
                self.extremes.insert(acc.to_string());
            }
        }
        collect(tokens.clone(), &mut self.idents);
        let block: syn::Block = syn::parse2(quote!({ #tokens })).expect("the loop parses");
        block.stmts
    }
}

/// A `fold` whose accumulator may be the `let`'s own binding `name`:
/// `chain` with its accumulator renamed `name`, where nothing else in it
/// (the start, the source, the item, the filter, the step) names `name`.
fn folded_into(chain: &Chain, name: &syn::Ident) -> Option<Chain> {
    let Reduce::Fold { init, acc } = &chain.reduce else {
        return None;
    };
    let text = name.to_string();
    let mentions = |tokens: TokenStream| crate::text::mentions(tokens, &text);
    if mentions(init.to_token_stream())
        || mentions(chain.source.to_token_stream())
        || mentions(chain.pat.to_token_stream())
        || mentions(chain.body.to_token_stream())
        || chain
            .filter
            .as_ref()
            .is_some_and(|filter| mentions(filter.to_token_stream()))
    {
        return None;
    }
    let body = tokens::rename(chain.body.to_token_stream(), &acc.to_string(), name)?;
    let filter = match &chain.filter {
        Some(filter) => Some(
            syn::parse2(tokens::rename(
                filter.to_token_stream(),
                &acc.to_string(),
                name,
            )?)
            .ok()?,
        ),
        None => None,
    };
    Some(Chain {
        filter,
        source: chain.source.clone(),
        pat: chain.pat.clone(),
        body: syn::parse2(body).ok()?,
        reduce: Reduce::Fold {
            init: init.clone(),
            acc: name.clone(),
        },
        span: chain.span,
        float: chain.float,
    })
}

/// `acc = body;`, or, where the body keeps the accumulator as it is in
/// one arm (`|(bi, bv), (i, &v)| if v > bv { (i, v) } else { (bi, bv) }`,
/// its names already read as `acc.0`, `acc.1`), `if cond { acc = new; }`:
/// the same loop, written as a running extreme is (`extremes.rs`), whose
/// start (`f64::NEG_INFINITY`) the tape takes too and is then no reason to
/// rerun it.
fn folded(acc: &syn::Ident, body: &syn::Expr) -> TokenStream {
    // A block holding only its value, `{ e }` (rustfmt writes a closure's
    // multi-line `if` so), is that value.
    fn bare(expr: &syn::Expr) -> &syn::Expr {
        match expr {
            syn::Expr::Block(block) if block.attrs.is_empty() && block.label.is_none() => {
                match &block.block.stmts[..] {
                    [syn::Stmt::Expr(tail, None)] => bare(tail),
                    _ => expr,
                }
            }
            syn::Expr::Paren(paren) => bare(&paren.expr),
            expr => expr,
        }
    }
    let kept = |expr: &syn::Expr| -> bool {
        match bare(expr) {
            syn::Expr::Path(path) => path.path.is_ident(acc),
            syn::Expr::Tuple(tuple) => tuple.elems.iter().enumerate().all(|(k, elem)| {
                matches!(elem, syn::Expr::Field(field)
                    if matches!(&*field.base, syn::Expr::Path(base) if base.path.is_ident(acc))
                        && matches!(&field.member, syn::Member::Unnamed(index) if index.index as usize == k))
            }),
            _ => false,
        }
    };
    if let syn::Expr::If(choice) = bare(body) {
        if let (true, Some((_, other))) = (choice.attrs.is_empty(), &choice.else_branch) {
            if let [syn::Stmt::Expr(new, None)] = &choice.then_branch.stmts[..] {
                if kept(other) && !matches!(new, syn::Expr::If(_)) {
                    let cond = &choice.cond;
                    return quote!(if #cond { #acc = #new; });
                }
            }
        }
    }
    quote!(#acc = #body;)
}

/// `out.push(body);`, where a closure's body that is a block (`|v| { let
/// w = v * 2.0; w }`) has its statements first and its value pushed
/// (`{ let w = v * 2.0; out.push(w); }`): what the sweeps reverse
/// statement by statement, as a `sum`'s `acc += ..` takes the block.
fn pushed(
    out: &impl ToTokens,
    body: &syn::Expr,
    row: &syn::Ident,
    items: Option<&syn::Type>,
) -> TokenStream {
    if let syn::Expr::Block(block) = body {
        if block.attrs.is_empty() && block.label.is_none() {
            if let Some((syn::Stmt::Expr(tail, None), stmts)) = block.block.stmts.split_last() {
                let push = pushed_value(out, tail, row, items);
                return quote!({ #(#stmts)* #push });
            }
        }
    }
    pushed_value(out, body, row, items)
}

/// `out.push(value);`, or, where the value is a `collect()` of its own (a
/// row of a matrix built by nested chains, `q.iter().map(|qi|
/// k.iter().map(|kj| dot(qi, kj)).collect()).collect()`), `let row: T =
/// value; out.push(row);`, whose `let` the next round lowers as a loop of
/// its own: `T` the outer `Vec`'s items where its type says them, the
/// `collect`'s own turbofish, or `Vec<_>`.
fn pushed_value(
    out: &impl ToTokens,
    value: &syn::Expr,
    row: &syn::Ident,
    items: Option<&syn::Type>,
) -> TokenStream {
    let syn::Expr::MethodCall(call) = crate::lower::unparen(value) else {
        return quote!(#out.push(#value););
    };
    if call.method != "collect" || !call.args.is_empty() {
        return quote!(#out.push(#value););
    }
    let ty = match (items, &call.turbofish) {
        (Some(items), _) if is_vec(items) => quote!(: #items),
        (_, Some(_)) => quote!(),
        _ => quote!(: Vec<_>),
    };
    quote!({ let #row #ty = #value; #out.push(#row); })
}

/// `T` of `Vec<T>`.
fn vec_items(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(path) = ty else {
        return None;
    };
    if !is_vec(ty) {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &path.path.segments[0].arguments else {
        return None;
    };
    match args.args.first() {
        Some(syn::GenericArgument::Type(items)) if args.args.len() == 1 => Some(items),
        _ => None,
    }
}

/// `let mut it = source;` and `while let Some(pat) = it.next() { body }`:
/// `it`, and `for pat in source { body }` with the `while`'s label and
/// attributes.
fn drained_loop(local: &syn::Local, w: &syn::ExprWhile) -> Option<(syn::Ident, syn::Stmt)> {
    let syn::Pat::Ident(it) = &local.pat else {
        return None;
    };
    if it.by_ref.is_some() || it.subpat.is_some() {
        return None;
    }
    let init = local.init.as_ref().filter(|init| init.diverge.is_none())?;
    if !recognise::source_ok(&init.expr) {
        return None;
    }
    let syn::Expr::Let(cond) = &*w.cond else {
        return None;
    };
    let syn::Pat::TupleStruct(some) = &*cond.pat else {
        return None;
    };
    if !some.path.is_ident("Some") || some.elems.len() != 1 || some.qself.is_some() {
        return None;
    }
    let syn::Expr::MethodCall(next) = &*cond.expr else {
        return None;
    };
    let is_it = matches!(&*next.receiver, syn::Expr::Path(path) if path.path.is_ident(&it.ident));
    if next.method != "next" || !next.args.is_empty() || !is_it {
        return None;
    }
    let (attrs, label, pat, source, body) =
        (&w.attrs, &w.label, &some.elems[0], &init.expr, &w.body);
    let stmt = syn::parse2(quote!(#(#attrs)* #label for #pat in #source #body)).ok()?;
    Some((it.ident.clone(), stmt))
}

/// The expression `dbg!(..)`, `vec![..]` list, read as an operand (`dbg!(e)`
/// as `e`, `vec![a, b]` as `[a, b]`, `vec![e; n]` as `[e; n]`), handed to
/// `edit`; when `edit` says it changed it, the macro's tokens are written
/// back from it. Whether they were (any other macro, or tokens that are not
/// an expression, are left as they are).
pub(super) fn macro_operand(
    mac: &mut syn::Macro,
    edit: impl FnOnce(&mut syn::Expr) -> bool,
) -> bool {
    let vec = mac.path.is_ident("vec");
    if !vec && !mac.path.is_ident("dbg") {
        return false;
    }
    let tokens = &mac.tokens;
    let parsed = if vec {
        syn::parse2::<syn::Expr>(quote!([#tokens]))
    } else {
        syn::parse2::<syn::Expr>(tokens.clone())
    };
    let Ok(mut inner) = parsed else {
        return false;
    };
    if !edit(&mut inner) {
        return false;
    }
    mac.tokens = match inner {
        syn::Expr::Repeat(repeat) if vec => {
            let (elem, len) = (&repeat.expr, &repeat.len);
            quote!(#elem; #len)
        }
        syn::Expr::Array(array) if vec => array.elems.to_token_stream(),
        inner if !vec => inner.to_token_stream(),
        _ => return false,
    };
    true
}
