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
//! Vec<f64> = Vec::new(); for v in z.iter() { e.push(v.exp()); }`. A
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
//! which the sweeps reverse as a branch.

use std::collections::{HashSet, VecDeque};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

/// `item` with its body's iterator chains lowered to loops, or `None` when
/// it has none that carry a derivative; with the running extremes (see
/// [`Lowering::extremes`]).
pub fn lower(
    item: &syn::ItemFn,
    active: &HashSet<String>,
) -> Option<(syn::ItemFn, HashSet<String>)> {
    let mut idents = HashSet::new();
    collect(item.to_token_stream(), &mut idents);
    let mut lowering = Lowering {
        whole: item.to_token_stream(),
        idents,
        active,
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
    changed: bool,
    /// Accumulators of a `fold` from a constant by `max` or `min` of
    /// themselves and the item (`fold(f64::NEG_INFINITY, f64::max)`): they
    /// hold the constant or an item, which the forward observes, so their
    /// own observation as an operand is left out; a start of `-∞` is then
    /// no reason to rerun the tape, which takes it too.
    extremes: HashSet<String>,
}

/// How a chain reduces its items.
enum Reduce {
    Sum,
    Product,
    /// `fold(init, |acc, v| body)`, or `fold(init, f64::max)`.
    Fold {
        init: syn::Expr,
        acc: syn::Ident,
    },
    /// `map(..).collect::<Vec<_>>()` as a `let`'s value: pushed in turn.
    Collect(Option<syn::Type>),
}

struct Chain {
    /// `filter(|v| cond)`'s condition on the loop's item (`{ let v =
    /// &item; cond }`): the item is accumulated only when it holds.
    filter: Option<syn::Expr>,
    source: syn::Expr,
    /// The closure's item pattern, without type ascriptions (a `for`
    /// pattern takes none).
    pat: syn::Pat,
    body: syn::Expr,
    reduce: Reduce,
    span: Span,
}

impl Lowering<'_> {
    fn fresh(&mut self, base: &str) -> syn::Ident {
        super::fresh_ident(&mut self.idents, base)
    }

    /// Rewrites the statements of `block`, then the blocks inside them.
    fn block(&mut self, block: &mut syn::Block) {
        let mut work: VecDeque<syn::Stmt> = std::mem::take(&mut block.stmts).into();
        while let Some(mut stmt) = work.pop_front() {
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
    }

    /// Lowers the statement's first chain into `before`; `false` when the
    /// loop replaces the statement (`let total = chain;`).
    fn stmt(&mut self, stmt: &mut syn::Stmt, before: &mut Vec<syn::Stmt>) -> bool {
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
                if let Some((ident, ty)) = simple_binding(&local.pat) {
                    if let Some(chain) = self.chain(&init.expr, true) {
                        let named =
                            !crate::text::mentions(init.expr.to_token_stream(), &ident.to_string());
                        let typed = match &chain.reduce {
                            Reduce::Sum | Reduce::Product => ty.is_none_or(crate::valid::is_f64),
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
                    }
                }
                self.extract(&mut init.expr, before);
            }
            syn::Stmt::Expr(expr, _) => {
                // `x.iter().for_each(|v| total += v.sin());` is the loop
                // `for v in x.iter() { total += v.sin(); }`.
                if let syn::Expr::MethodCall(call) = &*expr {
                    if let Some(stmt) = self.for_each(call) {
                        before.push(stmt);
                        self.changed = true;
                        return false;
                    }
                }
                self.extract(expr, before);
            }
            _ => {}
        }
        true
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

    /// Lowers the first chain `expr` evaluates exactly once, if any.
    fn extract(&mut self, expr: &mut syn::Expr, before: &mut Vec<syn::Stmt>) {
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
            // `dbg!(e)`: `e` is evaluated once, as an operand is.
            E::Macro(mac) if mac.mac.path.is_ident("dbg") => {
                if let Ok(mut inner) = mac.mac.parse_body::<syn::Expr>() {
                    self.operand(&mut inner, before);
                    if !before.is_empty() {
                        mac.mac.tokens = inner.to_token_stream();
                    }
                }
            }
            // `vec![e; n]` and `vec![a, b]`: read as the array they list.
            E::Macro(mac) if mac.mac.path.is_ident("vec") => {
                let tokens = &mac.mac.tokens;
                let Ok(mut array) = syn::parse2::<syn::Expr>(quote!([#tokens])) else {
                    return;
                };
                self.extract(&mut array, before);
                if !before.is_empty() {
                    mac.mac.tokens = match array {
                        E::Repeat(repeat) => {
                            let (elem, len) = (&repeat.expr, &repeat.len);
                            quote!(#elem; #len)
                        }
                        E::Array(array) => array.elems.to_token_stream(),
                        _ => return,
                    };
                }
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
    /// of their own, so reading it first changes no value.
    fn operand(&mut self, expr: &mut syn::Expr, before: &mut Vec<syn::Stmt>) {
        let mut inner = &*expr;
        while let syn::Expr::Paren(paren) = inner {
            inner = &paren.expr;
        }
        if let syn::Expr::If(value) = inner {
            if value.else_branch.is_some() {
                let name = self.fresh("if_value");
                let span = value.if_token.span;
                let stmt = syn::parse2(quote_spanned!(span=> let #name = #value;));
                before.push(stmt.expect("a `let`"));
                *expr = syn::parse2(quote_spanned!(span=> #name)).expect("a path");
                self.changed = true;
                return;
            }
        }
        self.extract(expr, before);
    }

    /// The blocks inside a statement: branches, loop bodies, blocks.
    fn nested_stmt(&mut self, stmt: &mut syn::Stmt) {
        super::nested_blocks(stmt, &mut |block| self.block(block));
    }

    /// `expr` as a chain this lowers, if it is one and carries a
    /// derivative; a `collect` only as a `let`'s whole value (`named`).
    fn chain(&self, expr: &syn::Expr, named: bool) -> Option<Chain> {
        let syn::Expr::MethodCall(call) = expr else {
            return None;
        };
        let method = call.method.to_string();
        let chain = match method.as_str() {
            "collect" if named && call.args.is_empty() => {
                let turbofish = match &call.turbofish {
                    Some(turbofish) => match turbofish.args.first() {
                        Some(syn::GenericArgument::Type(ty))
                            if turbofish.args.len() == 1 && is_vec(ty) =>
                        {
                            Some(ty.clone())
                        }
                        _ => return None,
                    },
                    None => None,
                };
                let syn::Expr::MethodCall(map) = &*call.receiver else {
                    return None;
                };
                if map.method != "map" || map.args.len() != 1 {
                    return None;
                }
                mapped(map, Reduce::Collect(turbofish), call.method.span())?
            }
            "sum" | "product" if call.args.is_empty() => {
                if let Some(turbofish) = &call.turbofish {
                    let ty = turbofish.args.first()?;
                    let syn::GenericArgument::Type(ty) = ty else {
                        return None;
                    };
                    if turbofish.args.len() != 1 || !crate::valid::is_f64(ty) {
                        return None;
                    }
                }
                let reduce = if method == "sum" {
                    Reduce::Sum
                } else {
                    Reduce::Product
                };
                match &*call.receiver {
                    syn::Expr::MethodCall(map) if map.method == "map" && map.args.len() == 1 => {
                        mapped(map, reduce, call.method.span())?
                    }
                    // `p.iter().product()`: a `sum` of a place the sweep
                    // reverses as it is.
                    source if method == "product" => {
                        let item = super::fresh_ident(&mut self.idents.clone(), "item");
                        Chain {
                            filter: None,
                            source: source.clone(),
                            pat: ident_pat(&item),
                            body: syn::parse2(item.to_token_stream()).expect("a path"),
                            reduce,
                            span: call.method.span(),
                        }
                    }
                    _ => return None,
                }
            }
            "fold" if call.args.len() == 2 => {
                let init = call.args[0].clone();
                match &call.args[1] {
                    syn::Expr::Closure(closure) => {
                        let [acc, pat] = closure_inputs(closure)?;
                        let syn::Pat::Ident(acc) = acc else {
                            return None;
                        };
                        if acc.by_ref.is_some() || acc.subpat.is_some() {
                            return None;
                        }
                        let name = acc.ident.to_string();
                        // The loop's accumulator outlives the loop: it
                        // keeps the closure's name where nothing else
                        // mentions it, else it is renamed (`acc_2`).
                        let closure_count = count(closure.to_token_stream(), &name);
                        let (acc, body) = if count(self.whole.clone(), &name) == closure_count {
                            (acc.ident.clone(), (*closure.body).clone())
                        } else {
                            let renamed = super::fresh_ident(&mut self.idents.clone(), &name);
                            let body = rename(closure.body.to_token_stream(), &name, &renamed)?;
                            (renamed, syn::parse2(body).ok()?)
                        };
                        // `.map(|v| e).fold(init, |acc, w| body)`: one loop
                        // over the map's source, `w` bound to `e`.
                        let (source, pat, body) = match map_of(&call.receiver) {
                            Some((source, map_pat, map_body)) => {
                                let body =
                                    syn::parse2(quote!({ let #pat = #map_body; #body })).ok()?;
                                (source, map_pat, body)
                            }
                            None => ((*call.receiver).clone(), pat, body),
                        };
                        Chain {
                            filter: None,
                            source,
                            pat,
                            body,
                            reduce: Reduce::Fold { init, acc },
                            span: call.method.span(),
                        }
                    }
                    // `fold(f64::NEG_INFINITY, f64::max)`.
                    syn::Expr::Path(path)
                        if path.qself.is_none()
                            && path.path.segments.len() == 2
                            && path.path.segments[0].ident == "f64"
                            && matches!(
                                path.path.segments[1].ident.to_string().as_str(),
                                "max" | "min"
                            ) =>
                    {
                        let base = format!("running_{}", path.path.segments[1].ident);
                        let mut idents = self.idents.clone();
                        let acc = super::fresh_ident(&mut idents, &base);
                        let func = &path.path;
                        // `.map(|v| v * v).fold(f64::INFINITY, f64::min)`:
                        // the map's value is the item.
                        let (source, pat, item) = match map_of(&call.receiver) {
                            Some((source, pat, body)) => (source, pat, quote!((#body))),
                            None => {
                                let item = super::fresh_ident(&mut idents, "item");
                                (
                                    (*call.receiver).clone(),
                                    ident_pat(&item),
                                    item.to_token_stream(),
                                )
                            }
                        };
                        Chain {
                            filter: None,
                            source,
                            pat,
                            body: syn::parse2(quote_spanned!(func.span()=> #func(#acc, #item)))
                                .expect("a call"),
                            reduce: Reduce::Fold { init, acc },
                            span: call.method.span(),
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        self.prepared(chain)
    }

    /// `chain` if its source is one the sweep's `for` walks and its body
    /// stays in the loop, its item renamed where it would hide the source,
    /// and only if it carries a derivative.
    fn prepared(&self, chain: Chain) -> Option<Chain> {
        let chain = filtered(chain)?;
        if !source_ok(&chain.source)
            || leaves(&chain.body)
            || chain.filter.as_ref().is_some_and(leaves)
        {
            return None;
        }
        // `x.iter().map(|x| x * x)`: the loop's `x` would hide the slice
        // it walks from the reverse sweep; the item is renamed (`x_2`).
        let mut chain = chain;
        let source = chain.source.to_token_stream();
        let mut names = HashSet::new();
        collect(chain.pat.to_token_stream(), &mut names);
        let mut idents = self.idents.clone();
        for name in names {
            if name == "mut" || !crate::text::mentions(source.clone(), &name) {
                continue;
            }
            // The filter's condition names the item by the pattern's name,
            // which it may also use for the source: left as written.
            if chain.filter.is_some() {
                return None;
            }
            let renamed = super::fresh_ident(&mut idents, &name);
            let pat = rename(chain.pat.to_token_stream(), &name, &renamed)?;
            let body = rename(chain.body.to_token_stream(), &name, &renamed)?;
            chain.pat = syn::parse::Parser::parse2(syn::Pat::parse_single, pat).ok()?;
            chain.body = syn::parse2(body).ok()?;
        }
        // Only chains that carry a derivative: an integer `sum` stays as
        // it is (and the function keeps the tape if it has a closure).
        let mut tokens = chain.source.to_token_stream();
        tokens.extend(chain.body.to_token_stream());
        if let Reduce::Fold { init, .. } = &chain.reduce {
            tokens.extend(init.to_token_stream());
        }
        if !self
            .active
            .iter()
            .any(|name| crate::text::mentions(tokens.clone(), name))
        {
            return None;
        }
        Some(chain)
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
        } = chain;
        let ty = ty.map(|ty| quote!(: #ty));
        let (start, step) = match reduce {
            Reduce::Sum => (quote!(-0.0), quote!(#acc += #body;)),
            Reduce::Product => (quote!(1.0), quote!(#acc *= #body;)),
            Reduce::Fold { init, .. } => (init.to_token_stream(), quote!(#acc = #body;)),
            Reduce::Collect(_) => (quote!(Vec::new()), quote!(#acc.push(#body);)),
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

/// A literal or a path constant (`f64::NEG_INFINITY`, `-1.0`).
pub(super) fn constant(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Lit(_) => true,
        syn::Expr::Unary(unary) if matches!(unary.op, syn::UnOp::Neg(_)) => constant(&unary.expr),
        syn::Expr::Paren(paren) => constant(&paren.expr),
        syn::Expr::Path(path) => {
            path.qself.is_none()
                && path.path.segments.len() >= 2
                && path
                    .path
                    .segments
                    .iter()
                    .any(|segment| segment.ident == "f64")
        }
        _ => false,
    }
}

/// `acc.max(v)`, `acc.min(v)`, `f64::max(acc, v)`, `f64::min(v, acc)`
/// with `v` not `acc`.
pub(super) fn extreme_of(body: &syn::Expr, acc: &syn::Ident) -> bool {
    let is_acc = |e: &syn::Expr| matches!(e, syn::Expr::Path(p) if p.path.is_ident(acc));
    let mentions_acc = |e: &syn::Expr| count(e.to_token_stream(), &acc.to_string()) > 0;
    match body {
        syn::Expr::Paren(paren) => extreme_of(&paren.expr, acc),
        syn::Expr::MethodCall(call) => {
            (call.method == "max" || call.method == "min")
                && call.args.len() == 1
                && is_acc(&call.receiver)
                && !mentions_acc(&call.args[0])
        }
        syn::Expr::Call(call) => {
            let syn::Expr::Path(func) = &*call.func else {
                return false;
            };
            let names: Vec<String> = func
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let extreme =
                names.len() == 2 && names[0] == "f64" && (names[1] == "max" || names[1] == "min");
            extreme
                && call.args.len() == 2
                && ((is_acc(&call.args[0]) && !mentions_acc(&call.args[1]))
                    || (is_acc(&call.args[1]) && !mentions_acc(&call.args[0])))
        }
        _ => false,
    }
}

/// `Vec<..>`, as a `collect` target.
fn is_vec(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path) if path.qself.is_none()
        && path.path.segments.len() == 1
        && path.path.segments[0].ident == "Vec")
}

fn ident_pat(ident: &syn::Ident) -> syn::Pat {
    syn::Pat::Ident(syn::PatIdent {
        attrs: Vec::new(),
        by_ref: None,
        mutability: None,
        ident: ident.clone(),
        subpat: None,
    })
}

/// `total` or `total: f64`.
fn simple_binding(pat: &syn::Pat) -> Option<(&syn::Ident, Option<&syn::Type>)> {
    match pat {
        syn::Pat::Ident(ident)
            if ident.by_ref.is_none() && ident.mutability.is_none() && ident.subpat.is_none() =>
        {
            Some((&ident.ident, None))
        }
        syn::Pat::Type(typed) => match &*typed.pat {
            syn::Pat::Ident(ident)
                if ident.by_ref.is_none()
                    && ident.mutability.is_none()
                    && ident.subpat.is_none() =>
            {
                Some((&ident.ident, Some(&*typed.ty)))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The chain `source.map(|pat| body)` reduced by `reduce`, when `map`'s
/// one argument is a closure of one parameter.
/// `source.map(|pat| body)`, taken apart.
fn map_of(expr: &syn::Expr) -> Option<(syn::Expr, syn::Pat, syn::Expr)> {
    let syn::Expr::MethodCall(map) = expr else {
        return None;
    };
    if map.method != "map" || map.args.len() != 1 {
        return None;
    }
    let chain = mapped(map, Reduce::Sum, map.method.span())?;
    Some((chain.source, chain.pat, chain.body))
}

fn mapped(map: &syn::ExprMethodCall, reduce: Reduce, span: Span) -> Option<Chain> {
    let syn::Expr::Closure(closure) = &map.args[0] else {
        return None;
    };
    let [pat] = closure_inputs(closure)?;
    Some(Chain {
        filter: None,
        source: (*map.receiver).clone(),
        pat,
        body: (*closure.body).clone(),
        reduce,
        span,
    })
}

/// `chain` whose source is `source.filter(|v| cond)`: the loop walks
/// `source`, and the filter's condition reads the item the loop's pattern
/// (`w` or `&w`) names where the closure read its parameter (`v` is
/// `(&w)`, `&v` is `(w)`, `&&v` is `(*w)`), so that the sweep sees the
/// tracked item it compares. Else `chain` as it is.
fn filtered(chain: Chain) -> Option<Chain> {
    let syn::Expr::MethodCall(filter) = &chain.source else {
        return Some(chain);
    };
    if filter.method != "filter" {
        return Some(chain);
    }
    let [syn::Expr::Closure(closure)] = filter.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let [filter_pat] = closure_inputs(closure)?;
    let named = |pat: &syn::Pat| match pat {
        syn::Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => {
            Some(ident.ident.clone())
        }
        _ => None,
    };
    let item = match &chain.pat {
        syn::Pat::Reference(reference) => {
            let ident = named(&reference.pat)?;
            quote!(&#ident)
        }
        pat => named(pat)?.to_token_stream(),
    };
    let (param, read) = match &filter_pat {
        syn::Pat::Reference(once) => match &*once.pat {
            syn::Pat::Reference(twice) => (named(&twice.pat)?, quote!((*#item))),
            pat => (named(pat)?, quote!((#item))),
        },
        pat => (named(pat)?, quote!((&#item))),
    };
    let cond = substitute(closure.body.to_token_stream(), &param.to_string(), &read)?;
    Some(Chain {
        filter: Some(syn::parse2(cond).ok()?),
        source: (*filter.receiver).clone(),
        ..chain
    })
}

/// `tokens` with the name `from` (not a field or method after a `.`) read
/// as `to`; `None` with a macro, whose tokens are not expressions.
fn substitute(tokens: TokenStream, from: &str, to: &TokenStream) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    for (k, token) in tokens.iter().enumerate() {
        let after_dot =
            k > 0 && matches!(&tokens[k - 1], TokenTree::Punct(p) if p.as_char() == '.');
        match token {
            TokenTree::Punct(punct)
                if punct.as_char() == '!'
                    && k > 0
                    && matches!(tokens[k - 1], TokenTree::Ident(_))
                    && matches!(tokens.get(k + 1), Some(TokenTree::Group(_))) =>
            {
                return None;
            }
            TokenTree::Ident(ident) if ident == from && !after_dot => out.extend(to.clone()),
            TokenTree::Group(group) => {
                let mut inner = proc_macro2::Group::new(
                    group.delimiter(),
                    substitute(group.stream(), from, to)?,
                );
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other.clone()]),
        }
    }
    Some(out)
}

/// The closure's parameters without types, when it has `N` and no
/// attributes.
fn closure_inputs<const N: usize>(closure: &syn::ExprClosure) -> Option<[syn::Pat; N]> {
    if closure.asyncness.is_some() || closure.constness.is_some() || !closure.attrs.is_empty() {
        return None;
    }
    let pats: Vec<syn::Pat> = closure.inputs.iter().map(untyped).collect::<Option<_>>()?;
    pats.try_into().ok()
}

fn untyped(pat: &syn::Pat) -> Option<syn::Pat> {
    Some(match pat {
        syn::Pat::Type(typed) => untyped(&typed.pat)?,
        syn::Pat::Paren(paren) => untyped(&paren.pat)?,
        syn::Pat::Tuple(tuple) => {
            let mut out = tuple.clone();
            for elem in out.elems.iter_mut() {
                *elem = untyped(elem)?;
            }
            syn::Pat::Tuple(out)
        }
        syn::Pat::Reference(reference) => {
            let mut out = reference.clone();
            *out.pat = untyped(&reference.pat)?;
            syn::Pat::Reference(out)
        }
        syn::Pat::Ident(ident) if ident.subpat.is_none() && ident.by_ref.is_none() => pat.clone(),
        syn::Pat::Wild(_) => pat.clone(),
        _ => return None,
    })
}

/// Whether a closure body can leave the loop it becomes.
fn leaves(body: &syn::Expr) -> bool {
    fn scan(tokens: TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => {
                ident == "return" || ident == "break" || ident == "continue" || ident == "yield"
            }
            TokenTree::Punct(punct) => punct.as_char() == '?',
            TokenTree::Group(group) => scan(group.stream()),
            TokenTree::Literal(_) => false,
        })
    }
    scan(body.to_token_stream())
}

/// A source the sweep's `for` walks by index.
fn source_ok(expr: &syn::Expr) -> bool {
    use syn::Expr as E;
    match expr {
        E::Paren(paren) => source_ok(&paren.expr),
        E::Range(range) => range.start.is_some() && range.end.is_some(),
        E::Reference(reference) => reference.mutability.is_none() && place(&reference.expr),
        E::MethodCall(call) => {
            let method = call.method.to_string();
            let (receiver, args) = (&*call.receiver, &call.args);
            match method.as_str() {
                "iter" => args.is_empty() && place(receiver),
                "copied" | "cloned" | "enumerate" | "rev" => args.is_empty() && source_ok(receiver),
                "step_by" | "skip" | "take" => args.len() == 1 && source_ok(receiver),
                "zip" => {
                    args.len() == 1
                        && source_ok(receiver)
                        && (place(&args[0]) || source_ok(&args[0]))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

fn place(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
        syn::Expr::Index(index) => place(&index.expr),
        syn::Expr::Paren(paren) => place(&paren.expr),
        _ => false,
    }
}

/// The identifiers a new binding could shadow: all but method and field
/// names (after a `.`), so that the loop of a `.sum()` may be `sum`.
fn collect(tokens: TokenStream, idents: &mut HashSet<String>) {
    let mut after_dot = false;
    for token in tokens {
        match &token {
            TokenTree::Ident(ident) if !after_dot => {
                idents.insert(ident.to_string());
            }
            TokenTree::Group(group) => collect(group.stream(), idents),
            _ => {}
        }
        after_dot = matches!(&token, TokenTree::Punct(punct) if punct.as_char() == '.');
    }
}

/// `tokens` with the variable `from` named `to` (not a field or method
/// after a `.`); `None` where a macro might name it in a format string.
fn rename(tokens: TokenStream, from: &str, to: &syn::Ident) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (k, token) in tokens.iter().enumerate() {
        let after_dot =
            k > 0 && matches!(&tokens[k - 1], TokenTree::Punct(p) if p.as_char() == '.');
        match token {
            TokenTree::Punct(punct)
                if punct.as_char() == '!'
                    && k > 0
                    && matches!(tokens[k - 1], TokenTree::Ident(_))
                    && matches!(tokens.get(k + 1), Some(TokenTree::Group(_))) =>
            {
                return None;
            }
            TokenTree::Ident(ident) if ident == from && !after_dot => {
                out.push(TokenTree::Ident(syn::Ident::new(
                    &to.to_string(),
                    ident.span(),
                )));
            }
            TokenTree::Group(group) => {
                let mut renamed =
                    proc_macro2::Group::new(group.delimiter(), rename(group.stream(), from, to)?);
                renamed.set_span(group.span());
                out.push(TokenTree::Group(renamed));
            }
            other => out.push(other.clone()),
        }
    }
    Some(out.into_iter().collect())
}

fn count(tokens: TokenStream, name: &str) -> usize {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Ident(ident) => usize::from(ident == name),
            TokenTree::Group(group) => count(group.stream(), name),
            _ => 0,
        })
        .sum()
}
