//! Which expressions are iterator chains the compiled adjoint lowers: a
//! reduction (`sum`, `product`, `fold`, `collect` into a `Vec`) of a
//! `map` or `filter` closure over a source the sweep's `for` walks by index,
//! with a closure body that cannot leave the loop, and that carries a
//! derivative (a `collect`, whatever it carries). Each is taken apart into
//! a [`Chain`], which `mod.rs` writes as its loop.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;

use super::super::fresh_ident;
use super::tokens::{collect, count, rename, substitute, substitute_all};
use super::Lowering;

/// How a chain reduces its items.
pub(super) enum Reduce {
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

pub(super) struct Chain {
    /// `filter(|v| cond)`'s condition on the loop's item (`{ let v =
    /// &item; cond }`): the item is accumulated only when it holds.
    pub(super) filter: Option<syn::Expr>,
    pub(super) source: syn::Expr,
    /// The closure's item pattern, without type ascriptions (a `for`
    /// pattern takes none).
    pub(super) pat: syn::Pat,
    pub(super) body: syn::Expr,
    pub(super) reduce: Reduce,
    pub(super) span: Span,
    /// Its items are `f64`s by the chain's own words (`sum::<f64>()`): it
    /// is lowered whether or not they carry a derivative.
    pub(super) float: bool,
}

impl Lowering<'_> {
    /// `expr` as a chain this lowers, if it is one and carries a
    /// derivative; a `collect` only as a `let`'s whole value (`named`).
    /// The chain of `source`'s items as they are, each bound to a fresh
    /// `item` (`p.iter().product()`, `x.iter().cloned().collect()`).
    fn items(&self, source: &syn::Expr, reduce: Reduce, span: Span) -> Chain {
        let item = fresh_ident(&mut self.idents.clone(), "item");
        Chain {
            filter: None,
            source: source.clone(),
            pat: ident_pat(&item),
            body: syn::parse2(item.to_token_stream()).expect("a path"),
            reduce,
            span,
            float: false,
        }
    }

    pub(super) fn chain(&self, expr: &syn::Expr, named: bool) -> Option<Chain> {
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
                // `x.iter().cloned().collect()`, a copy: the loop pushing
                // each item.
                if (map.method == "cloned" || map.method == "copied") && map.args.is_empty() {
                    return Some(self.items(
                        &call.receiver,
                        Reduce::Collect(turbofish),
                        call.method.span(),
                    ));
                }
                if map.method != "map" || map.args.len() != 1 {
                    return None;
                }
                mapped(
                    &self.with_closure(map),
                    Reduce::Collect(turbofish),
                    call.method.span(),
                )?
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
                        mapped(&self.with_closure(map), reduce, call.method.span())?
                    }
                    // `p.iter().product()`: a `sum` of a place the sweep
                    // reverses as it is; `x.iter().skip(1).step_by(2).sum()`,
                    // whose source the sweep's own `sum` does not walk, the
                    // loop adding each item.
                    source
                        if method == "product" || (source_ok(source) && !plain_items(source)) =>
                    {
                        self.items(source, reduce, call.method.span())
                    }
                    _ => return None,
                }
            }
            "fold" if call.args.len() == 2 => {
                let init = call.args[0].clone();
                match &call.args[1] {
                    syn::Expr::Closure(closure) => {
                        let [acc, pat] = closure_inputs(closure)?;
                        let (acc, body) = match acc {
                            // `|(a, b), v| (a + v, b + v * v)`: a tuple of
                            // numbers carried as one accumulator, its
                            // names read as its fields (`fold_acc.0`).
                            // Only in a body that binds no name (no `let`,
                            // no closure), where each is the accumulator's.
                            syn::Pat::Tuple(tuple) => {
                                let names: Option<Vec<String>> = tuple
                                    .elems
                                    .iter()
                                    .map(|elem| match elem {
                                        syn::Pat::Ident(ident)
                                            if ident.by_ref.is_none() && ident.subpat.is_none() =>
                                        {
                                            Some(ident.ident.to_string())
                                        }
                                        _ => None,
                                    })
                                    .collect();
                                let names = names.filter(|names| !names.is_empty())?;
                                let body = closure.body.to_token_stream();
                                if binds_a_name(&body) {
                                    return None;
                                }
                                let acc = fresh_ident(&mut self.idents.clone(), "fold_acc");
                                let mut body = body;
                                for (k, name) in names.iter().enumerate() {
                                    let k = syn::Index::from(k);
                                    body = substitute(body, name, &quote!(#acc.#k))?;
                                }
                                (acc, syn::parse2(body).ok()?)
                            }
                            syn::Pat::Ident(acc) => {
                                if acc.by_ref.is_some() || acc.subpat.is_some() {
                                    return None;
                                }
                                let name = acc.ident.to_string();
                                // The loop's accumulator outlives the loop:
                                // it keeps the closure's name where nothing
                                // else mentions it, else it is renamed
                                // (`acc_2`).
                                let closure_count = count(closure.to_token_stream(), &name);
                                if count(self.whole.clone(), &name) == closure_count {
                                    (acc.ident.clone(), (*closure.body).clone())
                                } else {
                                    let renamed = fresh_ident(&mut self.idents.clone(), &name);
                                    let body =
                                        rename(closure.body.to_token_stream(), &name, &renamed)?;
                                    (renamed, syn::parse2(body).ok()?)
                                }
                            }
                            _ => return None,
                        };
                        // `.map(|v| e).fold(init, |acc, w| body)`: one loop
                        // over the map's source, `w` bound to `e` (a `let`
                        // the renaming of the lowered body gives a name of
                        // its own where it hides one `e` reads, see
                        // `adjoint::items_with`).
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
                            float: false,
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
                        let method = &path.path.segments[1].ident;
                        let base = format!("running_{method}");
                        let mut idents = self.idents.clone();
                        let acc = fresh_ident(&mut idents, &base);
                        let func = &path.path;
                        // `.map(|v| v * v).fold(f64::INFINITY, f64::min)`:
                        // the map's value is the item.
                        let (source, pat, item) = match map_of(&call.receiver) {
                            Some((source, pat, body)) => (source, pat, quote!((#body))),
                            None => {
                                let item = fresh_ident(&mut idents, "item");
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
                            // As a method (`acc.max(item)`, the same
                            // number): the dual sweep's `Dual` has it too.
                            body: syn::parse2(quote_spanned!(func.span()=> #acc.#method(#item)))
                                .expect("a call"),
                            reduce: Reduce::Fold { init, acc },
                            span: call.method.span(),
                            float: false,
                        }
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let float = matches!(method.as_str(), "sum" | "product") && call.turbofish.is_some();
        self.prepared(Chain { float, ..chain })
    }

    /// `chain` if its source is one the sweep's `for` walks and its body
    /// stays in the loop, its item renamed where it would hide the source,
    /// and only if it carries a derivative.
    pub(super) fn prepared(&self, chain: Chain) -> Option<Chain> {
        let chain = super::windows::windowed(filtered(chain, &self.idents)?, &self.idents)?;
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
            // `let a = layer(x); .. w.iter().map(|a| a * 2.0)`: a name the
            // body binds elsewhere too, which the loop's item would bind
            // again (a vector call's value and a number under one name
            // kept the tape); renamed as well.
            let elsewhere = self.bound.get(&name).copied().unwrap_or(0) > 0;
            if name == "mut" || !(crate::text::mentions(source.clone(), &name) || elsewhere) {
                continue;
            }
            // The filter's condition names the item by the pattern's name,
            // which it may also use for the source: left as written.
            if chain.filter.is_some() {
                if !crate::text::mentions(source.clone(), &name) {
                    continue;
                }
                return None;
            }
            let renamed = fresh_ident(&mut idents, &name);
            let pat = rename(chain.pat.to_token_stream(), &name, &renamed)?;
            let body = rename(chain.body.to_token_stream(), &name, &renamed)?;
            chain.pat = syn::parse::Parser::parse2(syn::Pat::parse_single, pat).ok()?;
            chain.body = syn::parse2(body).ok()?;
        }
        // Only chains that carry a derivative: an integer `sum` stays as
        // it is (and the function keeps the tape if it has a closure). A
        // `collect` is lowered whatever its items: the `Vec` it makes may
        // take a derivative later (`v.push(x)`, `v[0] += x`), and its loop
        // is the same work; so is a `sum::<f64>()`, whose closure would
        // otherwise keep the tape.
        if matches!(chain.reduce, Reduce::Collect(_)) || chain.float {
            return Some(chain);
        }
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
}

/// A literal or a path constant (`f64::NEG_INFINITY`, `-1.0`).
pub fn constant(expr: &syn::Expr) -> bool {
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
pub fn extreme_of(body: &syn::Expr, acc: &syn::Ident) -> bool {
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
            let names: Vec<String> = crate::text::segments(&func.path);
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
pub(in super::super) fn is_vec(ty: &syn::Type) -> bool {
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

/// A `let` of one name, maybe typed, maybe `mut` (the flag: a collected
/// `Vec` the body changes later, `let mut v: Vec<f64> =
/// x.iter().map(..).collect();`, is built by a loop into a `let mut`
/// anyway).
pub(super) fn binding_maybe_mut(pat: &syn::Pat) -> Option<(&syn::Ident, Option<&syn::Type>, bool)> {
    match pat {
        syn::Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
            Some((&ident.ident, None, ident.mutability.is_some()))
        }
        syn::Pat::Type(typed) => match &*typed.pat {
            syn::Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                Some((&ident.ident, Some(&*typed.ty), ident.mutability.is_some()))
            }
            _ => None,
        },
        _ => None,
    }
}

impl Lowering<'_> {
    /// `map` with a function given by its path (`.map(f64::tanh)`, of
    /// numbers: `copied()` items) as the closure calling it
    /// (`.map(|item| f64::tanh(item))`); else `map` as it is.
    fn with_closure(&self, map: &syn::ExprMethodCall) -> syn::ExprMethodCall {
        let mut map = map.clone();
        if let Some(syn::Expr::Path(func)) = map.args.first() {
            let segments: Vec<String> = crate::text::segments(&func.path);
            if func.qself.is_none() && segments.len() == 2 && segments[0] == "f64" {
                let item = fresh_ident(&mut self.idents.clone(), "item");
                let closure = quote!(|#item| #func(#item));
                if let Ok(closure) = syn::parse2(closure) {
                    map.args[0] = closure;
                }
            }
        }
        map
    }
}

/// Whether `source` is a place's items as they are (`x.iter()`, with
/// `copied()` or `cloned()`), which the sweep's `sum` walks itself.
fn plain_items(source: &syn::Expr) -> bool {
    match source {
        syn::Expr::Paren(paren) => plain_items(&paren.expr),
        syn::Expr::MethodCall(call) if call.args.is_empty() => {
            match call.method.to_string().as_str() {
                "iter" => place(&call.receiver),
                "copied" | "cloned" => plain_items(&call.receiver),
                _ => false,
            }
        }
        _ => false,
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

pub(super) fn mapped(map: &syn::ExprMethodCall, reduce: Reduce, span: Span) -> Option<Chain> {
    let syn::Expr::Closure(closure) = &map.args[0] else {
        return None;
    };
    let [pat] = closure_inputs(closure)?;
    // `.map(|v| a).map(|w| b)`: one closure over the first map's source,
    // `w` bound to `a` (a `let` the renaming then gives a name of its own
    // where it hides one `a` reads, see `adjoint::items_with`).
    let (source, pat, body) = match map_of(&map.receiver) {
        Some((source, inner_pat, inner_body)) => {
            let body = &closure.body;
            let fused = syn::parse2(quote!({ let #pat = #inner_body; #body })).ok()?;
            (source, inner_pat, fused)
        }
        None => ((*map.receiver).clone(), pat, (*closure.body).clone()),
    };
    Some(Chain {
        filter: None,
        source,
        pat,
        body,
        reduce,
        span,
        float: false,
    })
}

/// `chain` whose source is `source.filter(|v| cond)`: the loop walks
/// `source`, and the filter's condition reads the item where the loop's
/// pattern names it (see [`filter_reads`]): `v` is `(&w)` for a loop
/// pattern `w`, `&v` is `(w)`, `&&v` is `(*w)`, and a tuple's names so by
/// position (`filter(|(i, _)| i % 2 == 0).map(|(_, v)| v * v)` over
/// `enumerate()`: `i` is `(&i)`, the loop's `_` named for it), so that
/// the sweep sees the tracked item it compares. Else `chain` as it is;
/// `None` for a filter this cannot read so. `idents` are the names the
/// function uses.
fn filtered(chain: Chain, idents: &HashSet<String>) -> Option<Chain> {
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
    let mut reads = HashMap::new();
    let mut taken = idents.clone();
    // The filter's closure takes a reference to the item: its pattern
    // starts one reference above the loop's.
    let pat = filter_reads(&chain.pat, &filter_pat, -1, &mut reads, &mut taken)?;
    let cond = substitute_all(closure.body.to_token_stream(), &reads)?;
    Some(Chain {
        filter: Some(syn::parse2(cond).ok()?),
        source: (*filter.receiver).clone(),
        pat,
        ..chain
    })
}

/// The loop's pattern `item` (as it is, or with a `_` named where the
/// filter's pattern reads that part), and into `reads` how the filter's
/// pattern `filter`, bound `depth` references from the loop's item (-1:
/// a reference to it, 0: it, 1: what it refers to), reads each name it
/// binds from the loop's names. `None` for patterns this does not follow:
/// a tuple matched through a reference may hold only names, `_` and
/// tuples (Rust's default binding mode), and the loop's pattern must
/// name a part the filter reads.
fn filter_reads(
    item: &syn::Pat,
    filter: &syn::Pat,
    depth: i32,
    reads: &mut HashMap<String, TokenStream>,
    taken: &mut HashSet<String>,
) -> Option<syn::Pat> {
    let plain = |ident: &syn::PatIdent| ident.subpat.is_none() && ident.by_ref.is_none();
    match filter {
        syn::Pat::Wild(_) => Some(item.clone()),
        syn::Pat::Reference(reference) if reference.mutability.is_none() => {
            filter_reads(item, &reference.pat, depth + 1, reads, taken)
        }
        syn::Pat::Ident(name) if plain(name) => {
            // The loop's name for this part, and how many references below
            // the part it binds.
            let (item, loop_name, loop_depth) = match item {
                syn::Pat::Ident(ident) if plain(ident) => (item.clone(), ident.ident.clone(), 0),
                syn::Pat::Reference(reference) => match &*reference.pat {
                    syn::Pat::Ident(ident) if plain(ident) && reference.mutability.is_none() => {
                        (item.clone(), ident.ident.clone(), 1)
                    }
                    _ => return None,
                },
                syn::Pat::Wild(_) => {
                    let fresh = fresh_ident(taken, &name.ident.to_string());
                    let pat =
                        syn::parse::Parser::parse2(syn::Pat::parse_single, quote!(#fresh)).ok()?;
                    (pat, fresh, 0)
                }
                _ => return None,
            };
            let diff = loop_depth - depth;
            let read = match diff {
                0 => quote!((#loop_name)),
                1 => quote!((&#loop_name)),
                2 => quote!((&&#loop_name)),
                -1 => quote!((*#loop_name)),
                _ => return None,
            };
            reads
                .insert(name.ident.to_string(), read)
                .is_none()
                .then_some(item)
        }
        syn::Pat::Tuple(tuple) => {
            // Matched through a reference, the parts bind by reference
            // and a `&` inside would mean another thing: not followed.
            if depth > 0 {
                return None;
            }
            let parts: Vec<syn::Pat> = match item {
                syn::Pat::Tuple(items) if items.elems.len() == tuple.elems.len() => {
                    items.elems.iter().cloned().collect()
                }
                syn::Pat::Wild(_) => tuple
                    .elems
                    .iter()
                    .map(|_| {
                        syn::Pat::Wild(syn::PatWild {
                            attrs: Vec::new(),
                            underscore_token: Default::default(),
                        })
                    })
                    .collect(),
                _ => return None,
            };
            let mut out = Vec::with_capacity(parts.len());
            for (part, filter) in parts.iter().zip(&tuple.elems) {
                if depth < 0 && !by_reference_only(filter) {
                    return None;
                }
                out.push(filter_reads(part, filter, depth, reads, taken)?);
            }
            syn::parse::Parser::parse2(syn::Pat::parse_single, quote!((#(#out),*))).ok()
        }
        _ => None,
    }
}

/// Whether `pat` holds only names, `_` and tuples of them: what a part of
/// a tuple matched through a reference may be for [`filter_reads`].
fn by_reference_only(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Wild(_) => true,
        syn::Pat::Ident(ident) => ident.subpat.is_none() && ident.by_ref.is_none(),
        syn::Pat::Tuple(tuple) => tuple.elems.iter().all(by_reference_only),
        _ => false,
    }
}

/// The closure's parameters without types, when it has `N` and no
/// attributes.
pub(super) fn closure_inputs<const N: usize>(closure: &syn::ExprClosure) -> Option<[syn::Pat; N]> {
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
pub(super) fn leaves(body: &syn::Expr) -> bool {
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
pub(super) fn source_ok(expr: &syn::Expr) -> bool {
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
                // A binding's items as `for v in x` walks them (a `Vec`'s by
                // value, a slice's by reference): the loop keeps the call.
                "into_iter" => {
                    args.is_empty()
                        && matches!(receiver, E::Path(path) if path.qself.is_none() && path.path.get_ident().is_some())
                }
                // The rows' items, one row after the other: the loop is
                // then read as two (`flattened`).
                "flatten" | "flat_map" => super::flattened::rows_flattened(expr).is_some(),
                // One source's items after the other's: the loop is then
                // read as two, one after the other (`chained`).
                "chain" => super::chained::halves(expr).is_some(),
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

/// `for (i, v) in source.enumerate()`: the source, the counter's pattern
/// (`i` or `mut i`, bound again as `let i: usize = ..;`; `None` for `_`)
/// and the item's; `None` for another `for`, or a counter bound otherwise
/// (`ref i`, `i @ ..`).
pub(super) fn numbered(
    for_loop: &syn::ExprForLoop,
) -> Option<(&syn::Expr, Option<&syn::PatIdent>, &syn::Pat)> {
    let syn::Expr::MethodCall(call) = crate::lower::unparen(&for_loop.expr) else {
        return None;
    };
    if call.method != "enumerate" || !call.args.is_empty() {
        return None;
    }
    let syn::Pat::Tuple(pair) = &*for_loop.pat else {
        return None;
    };
    let [counter, item] = pair.elems.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let counter = match counter {
        syn::Pat::Wild(_) => None,
        syn::Pat::Ident(counter) if counter.by_ref.is_none() && counter.subpat.is_none() => {
            Some(counter)
        }
        _ => return None,
    };
    Some((&call.receiver, counter, item))
}

/// Whether `for_loop` runs its body on every item and nothing else: no
/// label, no attributes, and a body that cannot leave the loop (`break`
/// and `continue` would leave only one of the loops it is read as).
pub(super) fn walks_every_item(for_loop: &syn::ExprForLoop) -> bool {
    let body = syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: for_loop.body.clone(),
    });
    for_loop.label.is_none() && for_loop.attrs.is_empty() && !leaves(&body)
}

pub(super) fn place(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
        // `model.w` of a model parameter: its weights.
        syn::Expr::Field(field) => {
            matches!(field.member, syn::Member::Named(_)) && place(&field.base)
        }
        syn::Expr::Index(index) => place(&index.expr),
        syn::Expr::Paren(paren) => place(&paren.expr),
        _ => false,
    }
}

/// Whether `tokens` bind a name of their own: a `let`, a closure's
/// parameters (`|v|`), a `match` or `for` pattern.
pub(super) fn binds_a_name(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|token| match token {
        TokenTree::Ident(ident) => ident == "let" || ident == "match" || ident == "for",
        TokenTree::Punct(punct) => punct.as_char() == '|',
        TokenTree::Group(group) => binds_a_name(&group.stream()),
        TokenTree::Literal(_) => false,
    })
}
