//! Loops that write through `iter_mut`, read as index loops. `for o in
//! out.iter_mut() { *o += a * v; }` (with `.zip(v)` or `.enumerate()`) is
//! how Rust code adds into a `Vec`; the tape's twin records a `for`'s
//! items as values and the sweeps reverse them as values read, not as
//! places written. Both read such a loop, before lowering, as `for
//! o_index in 0..out.len() { out[o_index] += a * v; }`: the item `*o` is
//! the element `out[o_index]`, `zip`'s other item the element of its
//! source (`&values[o_index]`, where the body reads it), `enumerate`'s
//! index `o_index` itself. The loop borrows `out` mutably and the source
//! shared while it runs, so the body reads neither otherwise, and the two
//! loops mean the same.
//!
//! The closure form, `out.iter_mut().zip(v).for_each(|(o, v)| *o += v);`,
//! is read as the `for` it means first, where its body has no `return`
//! (which in a closure goes on to the next item) and no `?`.
//!
//! A loop is read so only where every mention of its item is a
//! dereference (`*o`), a method call on it (`o.max(..)`) or an index into
//! it (`o[0]`), and no string in the body names it (a format string's
//! inline argument); anything else (the reference passed on, bound
//! again) leaves the loop as written, where a tracked `Vec`'s `iter_mut`
//! is the compile error it was (the tape records values, not writes
//! through references).

use std::collections::HashSet;

use proc_macro2::{Delimiter, Group, Ident, Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};

/// `item` with its `iter_mut` loops read as index loops, or `None` if it
/// has none that can be.
pub fn index_loops(item: &syn::ItemFn) -> Option<syn::ItemFn> {
    // Most bodies have none: looked for before anything is copied.
    if !walks_iter_mut(&item.block) {
        return None;
    }
    let mut idents = HashSet::new();
    crate::text::identifiers(item.to_token_stream(), &mut idents);
    let mut rewritten = item.clone();
    let mut writer = Writer {
        idents,
        changed: false,
    };
    writer.block(&mut rewritten.block);
    writer.changed.then_some(rewritten)
}

/// Whether a `for` in `block` or a block it holds walks `iter_mut`.
fn walks_iter_mut(block: &syn::Block) -> bool {
    fn expr(inner: &syn::Expr) -> bool {
        match inner {
            syn::Expr::Block(block) => walks_iter_mut(&block.block),
            syn::Expr::If(branch) => {
                walks_iter_mut(&branch.then_branch)
                    || branch
                        .else_branch
                        .as_ref()
                        .is_some_and(|(_, other)| expr(other))
            }
            syn::Expr::While(repeat) => walks_iter_mut(&repeat.body),
            syn::Expr::Loop(repeat) => walks_iter_mut(&repeat.body),
            syn::Expr::Match(choice) => choice.arms.iter().any(|arm| expr(&arm.body)),
            syn::Expr::ForLoop(each) => {
                Walk::of(&each.expr).is_some() || walks_iter_mut(&each.body)
            }
            syn::Expr::MethodCall(call) => for_each_loop(call).is_some(),
            _ => false,
        }
    }
    block.stmts.iter().any(|stmt| match stmt {
        syn::Stmt::Local(local) => local.init.as_ref().is_some_and(|init| expr(&init.expr)),
        syn::Stmt::Expr(inner, _) => expr(inner),
        syn::Stmt::Item(_) | syn::Stmt::Macro(_) => false,
    })
}

struct Writer {
    /// Every identifier of the function and every name given so far.
    idents: HashSet<String>,
    changed: bool,
}

impl Writer {
    fn block(&mut self, block: &mut syn::Block) {
        for stmt in &mut block.stmts {
            match stmt {
                syn::Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        self.expr(&mut init.expr);
                    }
                }
                syn::Stmt::Expr(expr, _) => self.expr(expr),
                syn::Stmt::Item(_) | syn::Stmt::Macro(_) => {}
            }
        }
    }

    /// The loops in `expr` and the blocks it is made of.
    fn expr(&mut self, expr: &mut syn::Expr) {
        crate::blocks::of_expr(expr, &mut |block| self.block(block));
        let read = match expr {
            syn::Expr::ForLoop(each) => self.index_loop(each),
            syn::Expr::MethodCall(call) => for_each_loop(call).and_then(|each| {
                let mut each = each;
                self.block(&mut each.body);
                self.index_loop(&each)
            }),
            _ => None,
        };
        if let Some(read) = read {
            *expr = read;
            self.changed = true;
        }
    }

    /// `each` as an index loop, if it walks `v.iter_mut()` (zipped or
    /// enumerated) and its body mentions the item as a place only.
    fn index_loop(&mut self, each: &syn::ExprForLoop) -> Option<syn::Expr> {
        let walk = Walk::of(&each.expr)?;
        let (item, other) = match (&walk.adaptor, &*each.pat) {
            (Adaptor::None, syn::Pat::Ident(item)) => (plain_ident(item)?, None),
            (Adaptor::Enumerate, syn::Pat::Tuple(pair)) if pair.elems.len() == 2 => {
                let index = match &pair.elems[0] {
                    syn::Pat::Ident(index) => Some(Other::Index(plain_ident(index)?)),
                    syn::Pat::Wild(_) => None,
                    _ => return None,
                };
                let syn::Pat::Ident(item) = &pair.elems[1] else {
                    return None;
                };
                (plain_ident(item)?, index)
            }
            (Adaptor::Zip(source), syn::Pat::Tuple(pair)) if pair.elems.len() == 2 => {
                let syn::Pat::Ident(item) = &pair.elems[0] else {
                    return None;
                };
                let other = match &pair.elems[1] {
                    syn::Pat::Ident(other) => Some(Other::Zipped {
                        name: plain_ident(other)?,
                        source: source.clone(),
                        copied: false,
                    }),
                    syn::Pat::Reference(other) if other.mutability.is_none() => match &*other.pat {
                        syn::Pat::Ident(inner) => Some(Other::Zipped {
                            name: plain_ident(inner)?,
                            source: source.clone(),
                            copied: true,
                        }),
                        _ => return None,
                    },
                    syn::Pat::Wild(_) => None,
                    _ => return None,
                };
                (plain_ident(item)?, other)
            }
            _ => return None,
        };
        // The loop's own place in the source, for labels and errors.
        let span = syn::spanned::Spanned::span(&each.expr);
        // `o_index`: what an error's label names, beside its value.
        let k = self.fresh(&format!("{}_index", item));
        let k = Ident::new(&k, span);
        let target = &walk.target;
        let element = |at: Span| quote_spanned!(at=> (#target[#k]));
        let body: TokenStream = each
            .body
            .stmts
            .iter()
            .map(ToTokens::to_token_stream)
            .collect();
        let body = places(body, &item, &element, None)?;
        let read = |at: Span, source: &syn::Expr| quote_spanned!(at=> (#source[#k]));
        let borrowed = |at: Span, source: &syn::Expr| quote_spanned!(at=> (&#source[#k]));
        // `zip`'s item read where the body reads it: `*v` as the element,
        // `v` as a reference to it (or, taken apart by `&v`, the element).
        let (bound, bind, body) = match &other {
            None => (quote_spanned!(span=> #target.len()), quote!(), body),
            Some(Other::Index(index)) => (
                quote_spanned!(span=> #target.len()),
                quote_spanned!(span=> let #index = #k;),
                body,
            ),
            Some(Other::Zipped {
                name,
                source,
                copied,
            }) => {
                let bare = |at| {
                    if *copied {
                        read(at, source)
                    } else {
                        borrowed(at, source)
                    }
                };
                (
                    quote_spanned!(span=> #target.len().min(#source.len())),
                    quote!(),
                    places(body, name, &|at| read(at, source), Some(&bare))?,
                )
            }
        };
        let label = &each.label;
        let attrs = &each.attrs;
        syn::parse2(quote_spanned! {span=>
            #(#attrs)*
            #label for #k in 0..#bound {
                #bind
                #body
            }
        })
        .ok()
    }

    fn fresh(&mut self, stem: &str) -> String {
        let mut n = 1;
        loop {
            let candidate = if n == 1 {
                stem.to_owned()
            } else {
                format!("{stem}_{n}")
            };
            if self.idents.insert(candidate.clone()) {
                return candidate;
            }
            n += 1;
        }
    }
}

/// `target.iter_mut().for_each(|o| body)` (zipped or enumerated) as the
/// `for` it means, `for o in target.iter_mut() { body }`, where the
/// closure's body cannot leave it otherwise than at its end (no `return`,
/// which in a closure goes on to the next item, and no `?`): the loop is
/// then read as an index loop as a written one is.
fn for_each_loop(call: &syn::ExprMethodCall) -> Option<syn::ExprForLoop> {
    if call.method != "for_each" || call.turbofish.is_some() || call.args.len() != 1 {
        return None;
    }
    Walk::of(&call.receiver)?;
    let syn::Expr::Closure(closure) = &call.args[0] else {
        return None;
    };
    let [pat] = closure.inputs.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let pat = match pat {
        syn::Pat::Type(typed) => &*typed.pat,
        pat => pat,
    };
    if closure.asyncness.is_some() || leaves(closure.body.to_token_stream()) {
        return None;
    }
    let body = &closure.body;
    let receiver = &call.receiver;
    let body: syn::Block = match &**body {
        syn::Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
            block.block.clone()
        }
        body => syn::parse_quote!({ #body; }),
    };
    Some(
        syn::parse_quote_spanned! {syn::spanned::Spanned::span(call)=>
            for #pat in #receiver #body
        },
    )
}

/// Whether `tokens` hold a `return` or a `?`, at any depth.
fn leaves(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|tree| match tree {
        TokenTree::Ident(ident) => ident == "return",
        TokenTree::Punct(punct) => punct.as_char() == '?',
        TokenTree::Group(group) => leaves(group.stream()),
        TokenTree::Literal(_) => false,
    })
}

/// What a `for` walks: `target.iter_mut()`, then `enumerate()`,
/// `zip(source)` or neither.
struct Walk {
    target: syn::Expr,
    adaptor: Adaptor,
}

// One per loop, alive for one expansion: size is no concern.
#[allow(clippy::large_enum_variant)]
enum Adaptor {
    None,
    Enumerate,
    /// `zip`'s source, read by index: `v` of `&v`, `v.iter()`, `&v[..]`
    /// or `v`.
    Zip(syn::Expr),
}

/// The second part of a `for`'s pattern.
#[allow(clippy::large_enum_variant)]
enum Other {
    /// `enumerate`'s index.
    Index(Ident),
    /// `zip`'s item, a reference to `source[k]` (or, `copied`, taken
    /// apart by `&v`, the element itself).
    Zipped {
        name: Ident,
        source: syn::Expr,
        copied: bool,
    },
}

impl Walk {
    fn of(expr: &syn::Expr) -> Option<Walk> {
        let syn::Expr::MethodCall(call) = expr else {
            return None;
        };
        let method = call.method.to_string();
        match method.as_str() {
            "iter_mut" if call.args.is_empty() && call.turbofish.is_none() => Some(Walk {
                target: place(&call.receiver)?,
                adaptor: Adaptor::None,
            }),
            "enumerate" | "zip" => {
                let inner = Walk::of(&call.receiver)?;
                if !matches!(inner.adaptor, Adaptor::None) {
                    return None;
                }
                let adaptor = match (method.as_str(), call.args.len()) {
                    ("enumerate", 0) => Adaptor::Enumerate,
                    ("zip", 1) => Adaptor::Zip(source(&call.args[0])?),
                    _ => return None,
                };
                Some(Walk {
                    target: inner.target,
                    adaptor,
                })
            }
            _ => None,
        }
    }
}

/// A local or an element of one (`out`, `rows[i]`): what `iter_mut` is
/// called on.
fn place(expr: &syn::Expr) -> Option<syn::Expr> {
    match expr {
        syn::Expr::Path(path) if path.qself.is_none() && path.path.get_ident().is_some() => {
            Some(expr.clone())
        }
        syn::Expr::Index(index) if place(&index.expr).is_some() => Some(expr.clone()),
        syn::Expr::Paren(paren) => place(&paren.expr),
        _ => None,
    }
}

/// What `zip` walks, as a place indexed by the loop: `&v`, `v.iter()`,
/// `&v[..]` and `v` of a place `v`, which may be a model's field (`&d.w`,
/// `&self.b`): only read, while the loop runs, as the element it is at.
fn source(expr: &syn::Expr) -> Option<syn::Expr> {
    match expr {
        syn::Expr::Reference(reference) if reference.mutability.is_none() => {
            match &*reference.expr {
                syn::Expr::Index(index)
                    if matches!(&*index.index, syn::Expr::Range(range)
                    if range.start.is_none() && range.end.is_none()) =>
                {
                    read_place(&index.expr)
                }
                inner => read_place(inner),
            }
        }
        syn::Expr::MethodCall(call)
            if call.method == "iter" && call.args.is_empty() && call.turbofish.is_none() =>
        {
            read_place(&call.receiver)
        }
        other => read_place(other),
    }
}

/// A [`place`], or a named field of one (`d.w`, `self.layers[k].b`).
fn read_place(expr: &syn::Expr) -> Option<syn::Expr> {
    match expr {
        syn::Expr::Field(field)
            if matches!(field.member, syn::Member::Named(_))
                && read_place(&field.base).is_some() =>
        {
            Some(expr.clone())
        }
        syn::Expr::Index(index) if read_place(&index.expr).is_some() => Some(expr.clone()),
        syn::Expr::Paren(paren) => read_place(&paren.expr),
        _ => place(expr),
    }
}

/// The name a pattern binds, if it is one plain name (not `ref`, not
/// `mut`, not a raw identifier).
fn plain_ident(pat: &syn::PatIdent) -> Option<Ident> {
    (pat.by_ref.is_none()
        && pat.mutability.is_none()
        && pat.subpat.is_none()
        && !pat.ident.to_string().starts_with("r#"))
    .then(|| pat.ident.clone())
}

/// `tokens` with each `*item` and each `item` before a `.` or an index
/// read as `element` (spanned where the mention is), and any other
/// mention as `bare`; `None` if there is one and no `bare`, or if a string
/// names `item`.
fn places(
    tokens: TokenStream,
    item: &Ident,
    element: &dyn Fn(Span) -> TokenStream,
    bare: Option<&dyn Fn(Span) -> TokenStream>,
) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    for (k, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) if ident == item => {
                let after_dot = k > 0
                    && matches!(&tokens[k - 1], TokenTree::Punct(p) if p.as_char() == '.')
                    && !(k > 1
                        && matches!(&tokens[k - 2], TokenTree::Punct(p) if p.as_char() == '.'));
                if after_dot {
                    // A field or a method named like the item.
                    out.push(token.clone());
                    continue;
                }
                let next = tokens.get(k + 1);
                let place_use = matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '.')
                    || matches!(next, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket);
                // Before `iter_mut`'s item (no `bare` reading) a `*` is
                // always a dereference, even after a block (`for .. { .. }
                // *o = s;`): a number times a `&mut` is no Rust.
                let deref = unary_star(&out)
                    || (bare.is_none()
                        && matches!(out.last(), Some(TokenTree::Punct(star)) if star.as_char() == '*'));
                if !place_use {
                    // `*o`: the element itself. (A `*` before `o.m()` or
                    // `o[j]` is a product's: `*o.m()` would dereference a
                    // number.)
                    if deref {
                        out.pop();
                    } else {
                        // The item itself, where it may stand for itself.
                        out.extend(bare?(ident.span()));
                        continue;
                    }
                }
                out.extend(element(ident.span()));
            }
            TokenTree::Group(group) => {
                let mut inner = Group::new(
                    group.delimiter(),
                    places(group.stream(), item, element, bare)?,
                );
                inner.set_span(group.span());
                out.push(TokenTree::Group(inner));
            }
            TokenTree::Literal(literal) => {
                if crate::text::captures(literal, &item.to_string()) {
                    return None;
                }
                out.push(token.clone());
            }
            other => out.push(other.clone()),
        }
    }
    Some(out.into_iter().collect())
}

/// Whether the last of `out` is a `*` that dereferences what follows: one
/// after an operator, an opening or a keyword (`= *o`, `(*o`, `return
/// *o`), not after an operand (`a * v`, `f(x) * v`, a product with a
/// reference, which a `zip`'s item may be).
fn unary_star(out: &[TokenTree]) -> bool {
    let [.., before, TokenTree::Punct(star)] = out else {
        return matches!(out, [TokenTree::Punct(star)] if star.as_char() == '*');
    };
    star.as_char() == '*'
        && match before {
            TokenTree::Punct(_) => true,
            TokenTree::Ident(word) => [
                "return", "in", "if", "match", "while", "break", "else", "let",
            ]
            .iter()
            .any(|keyword| word == keyword),
            TokenTree::Group(_) | TokenTree::Literal(_) => false,
        }
}
