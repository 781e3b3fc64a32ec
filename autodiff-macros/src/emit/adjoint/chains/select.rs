//! `max_by` and `min_by` with a comparing closure, read as the loop that
//! selects the item: `*x.iter().max_by(|a, b| a.total_cmp(b)).unwrap()`
//! is
//!
//! ```text
//! let mut max_by: f64 = 0.0;
//! let mut max_by_seen = false;
//! for item in x.iter() {
//!     if !max_by_seen || (&(&max_by)).total_cmp((&item)) != Ordering::Greater {
//!         max_by = *item;
//!     }
//!     max_by_seen = true;
//! }
//! if !max_by_seen { None::<()>.unwrap(); }
//! let max_by_item = max_by;
//! *&max_by_item
//! ```
//!
//! The comparison is the standard library's (`max_by` keeps a later item
//! that compares equal, `min_by` the earlier one), so the item selected is
//! the one the plain function and the tape select, and the sweeps reverse
//! the copy into the selection as they reverse any branch in a loop: the
//! adjoint of the result reaches the selected element only. An empty
//! source panics at the `unwrap` as written.
//!
//! The source's items are read by their shape: `x.iter()` gives a
//! reference (the selection is then `&max_by_item`), `.copied()` or
//! `.cloned()` a value, `.enumerate()` a pair of an index and either
//! (`(max_by_index, &max_by_item)`); `.rev()`, `.skip(k)`, `.take(k)` and
//! `.step_by(k)` keep the shape; a `map` whose value is a number by its
//! form (`x.iter().map(|v| (v - m).abs())`, then maybe `.enumerate()`)
//! is walked as its source, each item computed first (`let item: f64 =
//! ..;`). Other sources stay as written. The
//! `Option` may be copied before the `unwrap` (`.copied().unwrap()`: the
//! value), mapped (`.map(|(i, _)| i).unwrap()`: the closure's body with
//! each name its pattern binds read as that part of the selection), and
//! the pair read by part after it (`.unwrap().0`); the comparing closure
//! may take the pair apart (`|(_, a), (_, b)|`, `|&(_, a), &(_, b)|`).
//!
//! `reduce(f).unwrap()` over numbers is read the same way
//! ([`Lowering::reduction`]): the first item kept, each later one combined
//! with it by `f`.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};

use super::recognise::closure_inputs;
use super::tokens::{collect, substitute_all};
use super::Lowering;
use crate::lower::unparen;

/// What a source yields.
#[derive(Clone, Copy)]
enum Shape {
    /// `&f64`: an element of a slice.
    Ref,
    /// `f64`.
    Value,
    /// `(usize, item)`: the `enumerate` of a source of references or
    /// values.
    Pair { by_ref: bool },
}

fn shape(source: &syn::Expr) -> Option<Shape> {
    let syn::Expr::MethodCall(call) = source else {
        return match source {
            syn::Expr::Paren(paren) => shape(&paren.expr),
            _ => None,
        };
    };
    let method = call.method.to_string();
    match (method.as_str(), call.args.len()) {
        ("iter", 0) => super::recognise::place(&call.receiver).then_some(Shape::Ref),
        ("copied" | "cloned", 0) => match shape(&call.receiver)? {
            Shape::Ref => Some(Shape::Value),
            _ => None,
        },
        ("rev", 0) | ("skip" | "take" | "step_by", 1) => shape(&call.receiver),
        ("enumerate", 0) => match shape(&call.receiver)? {
            Shape::Ref => Some(Shape::Pair { by_ref: true }),
            Shape::Value => Some(Shape::Pair { by_ref: false }),
            Shape::Pair { .. } => None,
        },
        _ => None,
    }
}

impl Lowering<'_> {
    /// `source.max_by(|a, b| cmp).unwrap()` (or `min_by`)
    /// as the statements of its loop and the expression of the item it
    /// selects, if `expr` is one.
    pub(super) fn selection(&mut self, expr: &syn::Expr) -> Option<(Vec<syn::Stmt>, syn::Expr)> {
        // `.unwrap().0` of an enumerated source's selection: its index
        // (`.1`, the item).
        if let syn::Expr::Field(field) = expr {
            let syn::Member::Unnamed(part) = &field.member else {
                return None;
            };
            let (stmts, selected) = self.selection(unparen(&field.base))?;
            let syn::Expr::Tuple(pair) = selected else {
                return None;
            };
            let part = pair.elems.into_iter().nth(part.index as usize)?;
            return Some((stmts, part));
        }
        let (call, tail) = unwrapped(expr)?;
        let largest = match call.method.to_string().as_str() {
            "max_by" => true,
            "min_by" => false,
            _ => return None,
        };
        let [syn::Expr::Closure(closure)] = call.args.iter().collect::<Vec<_>>()[..] else {
            return None;
        };
        let [a, b] = closure_inputs(closure)?;
        let source = &*call.receiver;
        // `source.map(|c| body)`, then maybe `.enumerate()`: each item a
        // number the loop computes from the source's (`Computed`).
        let computed = computed_items(source);
        let shape = match &computed {
            Some(computed) => {
                shape(computed.walked)?;
                if computed.enumerated {
                    Shape::Pair { by_ref: false }
                } else {
                    Shape::Value
                }
            }
            None => shape(source)?,
        };
        // `.copied()` of an `Option` of a reference only.
        if matches!(tail, Tail::Copied) && !matches!(shape, Shape::Ref) {
            return None;
        }
        // Lowered whatever the items carry, as a `collect` is: a closure
        // left in the body would keep it on the tape.
        if super::recognise::leaves(&closure.body) {
            return None;
        }
        let span = call.method.span();
        let base = call.method.to_string();
        let best = self.fresh(&base);
        let seen = self.fresh(&format!("{base}_seen"));
        let item = self.fresh("item");
        let kept = self.fresh(&format!("{base}_item"));
        let (index, at) = match shape {
            Shape::Pair { .. } => (
                Some(self.fresh(&format!("{base}_index"))),
                Some(self.fresh("at")),
            ),
            _ => (None, None),
        };
        // The loop's pattern, the copy of its item into the selection, the
        // selection and the item as the closure sees them (before its `&`),
        // and the expression the chain becomes.
        let (pat, copy, held, current, selected) = match (shape, &index, &at) {
            (Shape::Ref, _, _) => (
                quote!(#item),
                quote!(#best = *#item;),
                quote!((&#best)),
                quote!(#item),
                match tail {
                    Tail::Copied => quote!(#kept),
                    _ => quote!(&#kept),
                },
            ),
            (Shape::Value, _, _) => (
                quote!(#item),
                quote!(#best = #item;),
                quote!(#best),
                quote!(#item),
                quote!(#kept),
            ),
            (Shape::Pair { by_ref }, Some(index), Some(at)) => {
                let (copy, held, selected) = if by_ref {
                    (
                        quote!(#best = *#item;),
                        quote!((#index, &#best)),
                        quote!((#index, &#kept)),
                    )
                } else {
                    (
                        quote!(#best = #item;),
                        quote!((#index, #best)),
                        quote!((#index, #kept)),
                    )
                };
                (
                    quote!((#at, #item)),
                    quote!(#index = #at; #copy),
                    held,
                    quote!((#at, #item)),
                    selected,
                )
            }
            _ => return None,
        };
        let compared = compare(&closure.body, &a, &held, &b, &current)?;
        // The comparison, its parameters read as the selection and the
        // item, reads no name the `map`'s pattern binds, which the loop's
        // body would hide.
        if let Some(computed) = &computed {
            let mut bound = std::collections::HashSet::new();
            collect(computed.pat.to_token_stream(), &mut bound);
            let mut read = std::collections::HashSet::new();
            collect(compared.clone(), &mut read);
            if read.iter().any(|name| bound.contains(name)) {
                return None;
            }
        }
        let keep_new = if largest {
            quote!(#compared != ::core::cmp::Ordering::Greater)
        } else {
            quote!(#compared == ::core::cmp::Ordering::Greater)
        };
        let index_start = index.as_ref().map(|index| quote!(let mut #index = 0;));
        // A computed item: the loop walks the source under the `map`'s
        // pattern and binds the item first.
        let (pat, source, compute) = match &computed {
            Some(Computed {
                walked,
                pat: by,
                body,
                enumerated,
            }) => (
                if *enumerated {
                    quote!((#at, #by))
                } else {
                    quote!(#by)
                },
                if *enumerated {
                    quote!(#walked.enumerate())
                } else {
                    quote!(#walked)
                },
                quote!(let #item: f64 = #body;),
            ),
            None => (pat, quote!(#source), TokenStream::new()),
        };
        let tokens = quote_spanned! {span=>
            let mut #best: f64 = 0.0;
            #index_start
            let mut #seen = false;
            for #pat in #source {
                #compute
                if !#seen || #keep_new {
                    #copy
                }
                #seen = true;
            }
            if !#seen {
                ::core::option::Option::<()>::None.unwrap();
            }
            let #kept = #best;
        };
        collect(tokens.clone(), &mut self.idents);
        let block: syn::Block = syn::parse2(quote!({ #tokens })).ok()?;
        // On the student's `max_by`, for a reason that names it.
        let selected = syn::parse2(respan(selected, span)).ok()?;
        let selected = match tail {
            Tail::Map(closure) => mapped(closure, &selected)?,
            Tail::Unwrap | Tail::Copied => selected,
        };
        Some((block.stmts, selected))
    }
}

/// A selection's source `walked.map(|pat| body)` (then `.enumerate()`
/// where `enumerated`), whose items are numbers the loop computes.
struct Computed<'a> {
    walked: &'a syn::Expr,
    pat: syn::Pat,
    body: &'a syn::Expr,
    enumerated: bool,
}

fn computed_items(source: &syn::Expr) -> Option<Computed<'_>> {
    let syn::Expr::MethodCall(call) = unparen(source) else {
        return None;
    };
    let (map, enumerated) = match (call.method.to_string().as_str(), &*call.receiver) {
        ("enumerate", syn::Expr::MethodCall(map)) if call.args.is_empty() => (map, true),
        _ => (call, false),
    };
    let [syn::Expr::Closure(closure)] = map.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if map.method != "map" {
        return None;
    }
    let [pat] = closure_inputs(closure)?;
    let body = &*closure.body;
    (number_valued(body) && !super::recognise::leaves(body)).then_some(Computed {
        walked: &map.receiver,
        pat,
        body,
        enumerated,
    })
}

/// Whether `expr` is a number by its form, whatever it reads: arithmetic,
/// a negation or a dereference, a float literal, a sum or a method of the
/// table (`(v - m).abs()`, `c.iter().zip(p).map(..).sum::<f64>()`). A
/// name, a field, an index or a call may be a reference or a row.
fn number_valued(expr: &syn::Expr) -> bool {
    match unparen(expr) {
        syn::Expr::Binary(binary) => matches!(
            binary.op,
            syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
        ),
        syn::Expr::Unary(unary) => !matches!(unary.op, syn::UnOp::Not(_)),
        syn::Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Float(_)),
        syn::Expr::MethodCall(call) => {
            let name = call.method.to_string();
            name == "sum" || name == "product" || crate::vocabulary::method(&name).is_some()
        }
        _ => false,
    }
}

/// The body of `map`'s closure on the selection (`.map(|(i, _)| i)` of
/// `(max_by_index, &max_by_item)` is `(max_by_index)`): each name its
/// pattern binds read as the part of the selection it takes.
fn mapped(closure: &syn::ExprClosure, selected: &syn::Expr) -> Option<syn::Expr> {
    /// The parts of `value` that `pat` names, into `reads`.
    fn take(
        pat: &syn::Pat,
        value: &syn::Expr,
        reads: &mut HashMap<String, TokenStream>,
    ) -> Option<()> {
        match (pat, value) {
            (syn::Pat::Ident(ident), _) if ident.mutability.is_none() => {
                let name = ident.ident.to_string();
                reads.insert(name, quote!((#value))).is_none().then_some(())
            }
            (syn::Pat::Wild(_), _) => Some(()),
            (syn::Pat::Tuple(pats), syn::Expr::Tuple(parts))
                if pats.elems.len() == parts.elems.len() =>
            {
                pats.elems
                    .iter()
                    .zip(&parts.elems)
                    .try_for_each(|(pat, part)| take(pat, part, reads))
            }
            (syn::Pat::Reference(pat), syn::Expr::Reference(part)) if pat.mutability.is_none() => {
                take(&pat.pat, &part.expr, reads)
            }
            _ => None,
        }
    }
    let [pat] = closure_inputs(closure)?;
    let body = &closure.body;
    if super::recognise::leaves(body) || super::recognise::binds_a_name(&body.to_token_stream()) {
        return None;
    }
    let mut reads = HashMap::new();
    take(&pat, selected, &mut reads)?;
    let body = substitute_all(body.to_token_stream(), &reads)?;
    syn::parse2(quote!((#body))).ok()
}

impl Lowering<'_> {
    /// `source.reduce(f).unwrap()` over numbers (`x.iter().copied()`,
    /// `.cloned()`, or a `map` of any source this reads), `f` a path
    /// (`f64::max`) or a closure of two names, as the statements of its
    /// loop and the expression of the value, if `expr` is one:
    ///
    /// ```text
    /// let mut reduce: f64 = 0.0;
    /// let mut reduce_seen = false;
    /// for v in x.iter() {
    ///     let reduce_item: f64 = v * v;
    ///     if reduce_seen { reduce = f64::max(reduce, reduce_item); } else { reduce = reduce_item; }
    ///     reduce_seen = true;
    /// }
    /// if !reduce_seen { None::<()>.unwrap(); }
    /// let reduce_value = reduce;
    /// ```
    ///
    /// the first item as it is, each later one combined with what came
    /// before, in order, as `Iterator::reduce` does; an empty source panics
    /// at the `unwrap` as written.
    pub(super) fn reduction(&mut self, expr: &syn::Expr) -> Option<(Vec<syn::Stmt>, syn::Expr)> {
        let (call, Tail::Unwrap) = unwrapped(expr)? else {
            return None;
        };
        if call.method != "reduce" || call.args.len() != 1 {
            return None;
        }
        // The loop's source and pattern, and what each item is as a
        // number: a `map`'s pattern and body as the chains read them (the
        // sweeps see the items of the slice it walks).
        let (source, pat, value) = match &*call.receiver {
            syn::Expr::MethodCall(map) if map.method == "map" && map.args.len() == 1 => {
                let syn::Expr::Closure(closure) = &map.args[0] else {
                    return None;
                };
                let [pat] = closure_inputs(closure)?;
                shape(&map.receiver)?;
                if super::recognise::leaves(&closure.body) {
                    return None;
                }
                let body = &closure.body;
                (&*map.receiver, pat.to_token_stream(), quote!(#body))
            }
            source => match shape(source)? {
                Shape::Value => {
                    let item = self.fresh("item");
                    (source, item.to_token_stream(), item.to_token_stream())
                }
                _ => return None,
            },
        };
        // The combining closure must not read a name the loop's pattern
        // binds, which would hide what it meant.
        let mut bound = std::collections::HashSet::new();
        collect(pat.clone(), &mut bound);
        let span = call.method.span();
        let acc = self.fresh("reduce");
        let seen = self.fresh("reduce_seen");
        let current = self.fresh("reduce_item");
        let kept = self.fresh("reduce_value");
        let combined = match &call.args[0] {
            syn::Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
                quote!(#path(#acc, #current))
            }
            syn::Expr::Closure(closure) => {
                let [a, b] = closure_inputs(closure)?;
                let named = |pat: &syn::Pat| matches!(pat, syn::Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none());
                if !named(&a) || !named(&b) || super::recognise::leaves(&closure.body) {
                    return None;
                }
                let mut read = std::collections::HashSet::new();
                collect(closure.body.to_token_stream(), &mut read);
                let params = [
                    a.to_token_stream().to_string(),
                    b.to_token_stream().to_string(),
                ];
                if read
                    .iter()
                    .any(|name| bound.contains(name) && !params.contains(name))
                {
                    return None;
                }
                let body = &closure.body;
                quote!({ let #a = #acc; let #b = #current; #body })
            }
            _ => return None,
        };
        let tokens = quote_spanned! {span=>
            let mut #acc: f64 = 0.0;
            let mut #seen = false;
            for #pat in #source {
                let #current: f64 = #value;
                if #seen {
                    #acc = #combined;
                } else {
                    #acc = #current;
                }
                #seen = true;
            }
            if !#seen {
                ::core::option::Option::<()>::None.unwrap();
            }
            let #kept = #acc;
        };
        collect(tokens.clone(), &mut self.idents);
        let block: syn::Block = syn::parse2(quote!({ #tokens })).ok()?;
        let value = syn::parse2(respan(kept.to_token_stream(), span)).ok()?;
        Some((block.stmts, value))
    }
}

/// What a selection's `Option` goes through before its `unwrap`.
#[derive(Clone, Copy)]
enum Tail<'a> {
    /// `source.max_by(..).unwrap()`.
    Unwrap,
    /// `source.max_by(..).copied().unwrap()` (or `.cloned()`).
    Copied,
    /// `source.max_by(..).map(|(i, _)| i).unwrap()`.
    Map(&'a syn::ExprClosure),
}

/// The method call `expr` unwraps (`source.max_by(..)` of
/// `source.max_by(..).unwrap()`, of `.copied().unwrap()` or of
/// `.map(|..| ..).unwrap()`), if it is one, and what came between.
fn unwrapped(expr: &syn::Expr) -> Option<(&syn::ExprMethodCall, Tail<'_>)> {
    let syn::Expr::MethodCall(unwrap) = expr else {
        return None;
    };
    if unwrap.method != "unwrap" || !unwrap.args.is_empty() {
        return None;
    }
    let syn::Expr::MethodCall(call) = &*unwrap.receiver else {
        return None;
    };
    let tail = match (
        call.method.to_string().as_str(),
        &call.args.iter().collect::<Vec<_>>()[..],
    ) {
        ("copied" | "cloned", []) => Tail::Copied,
        ("map", [syn::Expr::Closure(closure)]) => Tail::Map(closure),
        _ => return Some((call, Tail::Unwrap)),
    };
    match &*call.receiver {
        syn::Expr::MethodCall(inner) => Some((inner, tail)),
        _ => None,
    }
}

/// The closure's body with the names its two parameters bind read as the
/// selection and the current item: a parameter named `a` is `(&held)`,
/// one written `&a` is `(held)`; the pair of an enumerated source taken
/// apart, `(i, a)`, binds `(&(held).0)` and `(&(held).1)`, and `&(i, a)`
/// binds `((held).0)` and `((held).1)` (`&(i, &a)`: `(*(held).1)`), as
/// Rust's binding modes do; `None` for other patterns.
fn compare(
    body: &syn::Expr,
    a: &syn::Pat,
    held: &TokenStream,
    b: &syn::Pat,
    current: &TokenStream,
) -> Option<TokenStream> {
    type Reads = HashMap<String, TokenStream>;
    fn bind(ident: &syn::PatIdent, value: TokenStream, reads: &mut Reads) -> Option<()> {
        (ident.mutability.is_none() && reads.insert(ident.ident.to_string(), value).is_none())
            .then_some(())
    }
    fn parts(
        pair: &syn::PatTuple,
        item: &TokenStream,
        by_ref: bool,
        reads: &mut Reads,
    ) -> Option<()> {
        pair.elems.iter().enumerate().try_for_each(|(k, pat)| {
            let k = syn::Index::from(k);
            match pat {
                syn::Pat::Wild(_) => Some(()),
                syn::Pat::Ident(ident) if by_ref => bind(ident, quote!((&(#item).#k)), reads),
                syn::Pat::Ident(ident) => bind(ident, quote!(((#item).#k)), reads),
                syn::Pat::Reference(inner) if !by_ref && inner.mutability.is_none() => {
                    match &*inner.pat {
                        syn::Pat::Ident(ident) => bind(ident, quote!((*(#item).#k)), reads),
                        _ => None,
                    }
                }
                _ => None,
            }
        })
    }
    fn read(pat: &syn::Pat, item: &TokenStream, reads: &mut Reads) -> Option<()> {
        match pat {
            syn::Pat::Ident(ident) => bind(ident, quote!((&#item)), reads),
            syn::Pat::Tuple(pair) => parts(pair, item, true, reads),
            syn::Pat::Reference(reference) if reference.mutability.is_none() => {
                match &*reference.pat {
                    syn::Pat::Ident(ident) => bind(ident, quote!((#item)), reads),
                    syn::Pat::Tuple(pair) => parts(pair, item, false, reads),
                    _ => None,
                }
            }
            _ => None,
        }
    }
    let mut reads = HashMap::new();
    read(a, held, &mut reads)?;
    read(b, current, &mut reads)?;
    // All at once: the selection's tokens are not read again as `b`.
    substitute_all(body.to_token_stream(), &reads)
}

fn respan(tokens: TokenStream, span: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut token| {
            if let proc_macro2::TokenTree::Group(group) = &token {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), respan(group.stream(), span));
                inner.set_span(span);
                token = proc_macro2::TokenTree::Group(inner);
            }
            token.set_span(span);
            token
        })
        .collect()
}
