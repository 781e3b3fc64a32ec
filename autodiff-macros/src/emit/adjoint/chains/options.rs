//! The `Option` of a slice's element taken apart where it is made:
//! `if let Some(v) = x.first() { a } else { b }` is `if !x.is_empty() { a }
//! else { b }` with `v` read as `(&x[0])` in `a`, and `match x.last() {
//! Some(v) => a, None => b }` the same with `(&x[x.len() - 1])`; `x.get(i)`
//! tests `i < x.len()` and reads `(&x[i])`. The element is then a place
//! the sweeps read and add into (`x_bar[0]`), and the test a condition on a
//! length. A pattern `Some(&v)` binds the element's value (`let v =
//! x[0];`), `Some(_)` nothing.
//!
//! `x.first().unwrap()` (and `last`, `get`, through `copied()` or
//! `cloned()`) is the element itself, `(&x[0])` (`x[0]`);
//! `x.get(i).copied().unwrap_or(d)` is `(if i < x.len() { x[i] } else { d
//! })`, for a `d` with no effects.
//!
//! Only for a slice that is a place (`x`, `m[i]`) and, for `get`, an index
//! of names, integer literals and arithmetic (read twice); a `match` of exactly a
//! `Some(..)` arm and a `None` (or `_`) arm, without guards; and where `a`
//! names `v` only as a value (a pattern or a macro naming it again leaves
//! the whole as written). Other `Option`s stay as written.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned, ToTokens};

use super::recognise::place;
use super::tokens::substitute;
use super::Lowering;

impl Lowering<'_> {
    /// Rewrites the `if let` and `match` on an element's `Option` in
    /// `expr` and the operands around it (not inside nested blocks, which
    /// are read as statements in their turn).
    pub(super) fn options(&mut self, expr: &mut syn::Expr) {
        use syn::Expr as E;
        if let Some(rewritten) = self.option_of_element(expr) {
            *expr = rewritten;
            self.changed = true;
        }
        match expr {
            E::Binary(binary) => {
                self.options(&mut binary.left);
                self.options(&mut binary.right);
            }
            E::Unary(unary) => self.options(&mut unary.expr),
            E::Paren(paren) => self.options(&mut paren.expr),
            E::Cast(cast) => self.options(&mut cast.expr),
            E::Reference(reference) => self.options(&mut reference.expr),
            E::MethodCall(call) => {
                self.options(&mut call.receiver);
                call.args.iter_mut().for_each(|arg| self.options(arg));
            }
            E::Call(call) => call.args.iter_mut().for_each(|arg| self.options(arg)),
            E::Tuple(tuple) => tuple.elems.iter_mut().for_each(|e| self.options(e)),
            E::Array(array) => array.elems.iter_mut().for_each(|e| self.options(e)),
            E::Repeat(repeat) => self.options(&mut repeat.expr),
            E::Index(index) => {
                self.options(&mut index.expr);
                self.options(&mut index.index);
            }
            E::Field(field) => self.options(&mut field.base),
            E::Assign(assign) => self.options(&mut assign.right),
            E::Return(ret) => {
                if let Some(value) = &mut ret.expr {
                    self.options(value);
                }
            }
            E::Break(jump) => {
                if let Some(value) = &mut jump.expr {
                    self.options(value);
                }
            }
            // `vec![a, b]`, `vec![e; n]` and `dbg!(e)`: their tokens are
            // expressions, read as the array or the operand they list.
            E::Macro(mac) => {
                let changed = std::mem::replace(&mut self.changed, false);
                let written = super::macro_operand(&mut mac.mac, |inner| {
                    self.options(inner);
                    self.changed
                });
                self.changed = changed || written;
            }
            E::If(if_) => {
                self.options(&mut if_.cond);
                if let Some((_, other)) = &mut if_.else_branch {
                    self.options(other);
                }
            }
            // An arm that is an expression (`true => *x.last().unwrap() *
            // 2.0`); a block arm's statements are the block walk's.
            E::Match(match_) => {
                self.options(&mut match_.expr);
                for arm in match_.arms.iter_mut() {
                    if !matches!(&*arm.body, E::Block(_)) {
                        self.options(&mut arm.body);
                    }
                }
            }
            _ => {}
        }
    }

    /// `expr` rewritten, if it is an `if let` or `match` on `x.first()`,
    /// `x.last()` or `x.get(i)`, or an `unwrap()` of one (`*x.last()
    /// .unwrap()` reads `*(&x[x.len() - 1])`; `x.first().copied().unwrap()`
    /// reads `x[0]`; on an empty `x` both panic, as the `unwrap` does).
    fn option_of_element(&self, expr: &syn::Expr) -> Option<syn::Expr> {
        match expr {
            // `*x.get(i).unwrap_or(&d)`: the element's value, else `d`'s.
            syn::Expr::Unary(syn::ExprUnary {
                op: syn::UnOp::Deref(star),
                expr: inner,
                ..
            }) => {
                let syn::Expr::MethodCall(call) = &**inner else {
                    return None;
                };
                let [syn::Expr::Reference(default)] = &call.args.iter().collect::<Vec<_>>()[..]
                else {
                    return None;
                };
                if call.method != "unwrap_or"
                    || call.turbofish.is_some()
                    || default.mutability.is_some()
                    || !no_effects(&default.expr)
                {
                    return None;
                }
                let (present, element) = element_of(&call.receiver)?;
                let default = &default.expr;
                syn::parse2(
                    quote_spanned!(star.span=> (if #present { #element } else { #default })),
                )
                .ok()
            }
            // `x.get(i).copied().unwrap_or(d)`: the element where it is
            // there, else `d` (which `unwrap_or` evaluates either way, so
            // only a `d` with no effects, read once where it is used).
            syn::Expr::MethodCall(call)
                if call.method == "unwrap_or"
                    && call.args.len() == 1
                    && call.turbofish.is_none()
                    && no_effects(&call.args[0]) =>
            {
                let span = call.method.span();
                let default = &call.args[0];
                match &*call.receiver {
                    syn::Expr::MethodCall(copied)
                        if (copied.method == "copied" || copied.method == "cloned")
                            && copied.args.is_empty() =>
                    {
                        let (present, element) = element_of(&copied.receiver)?;
                        syn::parse2(
                            quote_spanned!(span=> (if #present { #element } else { #default })),
                        )
                        .ok()
                    }
                    option => {
                        let (present, element) = element_of(option)?;
                        syn::parse2(
                            quote_spanned!(span=> (if #present { &#element } else { #default })),
                        )
                        .ok()
                    }
                }
            }
            syn::Expr::MethodCall(call)
                if call.method == "unwrap" && call.args.is_empty() && call.turbofish.is_none() =>
            {
                let span = call.method.span();
                match &*call.receiver {
                    syn::Expr::MethodCall(copied)
                        if (copied.method == "copied" || copied.method == "cloned")
                            && copied.args.is_empty() =>
                    {
                        let (_, element) = element_of(&copied.receiver)?;
                        syn::parse2(quote_spanned!(span=> (#element))).ok()
                    }
                    option => {
                        let (_, element) = element_of(option)?;
                        syn::parse2(quote_spanned!(span=> (&#element))).ok()
                    }
                }
            }
            syn::Expr::If(if_) => {
                let syn::Expr::Let(test) = &*if_.cond else {
                    return None;
                };
                let pat = some_pattern(&test.pat)?;
                let then = &if_.then_branch.stmts;
                let (present, then) = taken_apart(pat, &test.expr, quote!(#(#then)*))?;
                let otherwise = if_
                    .else_branch
                    .as_ref()
                    .map(|(_, other)| quote!(else #other));
                let span = if_.if_token.span;
                syn::parse2(quote_spanned! {span=>
                    if #present { #then } #otherwise
                })
                .ok()
            }
            syn::Expr::Match(match_) => {
                if match_.arms.len() != 2 || match_.arms.iter().any(|arm| !arm.attrs.is_empty()) {
                    return None;
                }
                let (some, none) = match (&match_.arms[0], &match_.arms[1]) {
                    (a, b) if some_pattern(&a.pat).is_some() && is_none(&b.pat) => (a, b),
                    (a, b) if is_none(&a.pat) && some_pattern(&b.pat).is_some() => (b, a),
                    _ => return None,
                };
                let pat = some_pattern(&some.pat)?;
                let (present, some_body) =
                    taken_apart(pat, &match_.expr, some.body.to_token_stream())?;
                let none_body = &none.body;
                let span = match_.match_token.span;
                syn::parse2(quote_spanned! {span=>
                    if #present { #some_body } else { #none_body }
                })
                .ok()
            }
            _ => None,
        }
    }
}

/// The test that `option` is `Some` and `body` with `Some`'s pattern `pat`
/// bound: a selection's (`selected`) or an element's (`element_of`,
/// `bound`).
fn taken_apart(
    pat: &syn::Pat,
    option: &syn::Expr,
    body: TokenStream,
) -> Option<(TokenStream, TokenStream)> {
    if let Some(found) = selected(pat, option, &body) {
        return Some(found);
    }
    let (present, element) = element_of(option)?;
    Some((present, bound(pat, &element, body)?))
}

/// `if let Some(&m) = x.iter().max_by(cmp) { body }` (or `min_by`; `Some(m)`
/// of `x.iter().copied()` or `.cloned()`): the test that `x` has an item
/// and the body after `let m = x.iter().max_by(cmp).copied().unwrap();`,
/// the selection `select` writes as its loop, bound once. Only a pattern
/// binding the item's value, or `_`.
fn selected(
    pat: &syn::Pat,
    option: &syn::Expr,
    body: &TokenStream,
) -> Option<(TokenStream, TokenStream)> {
    let syn::Expr::MethodCall(select) = option else {
        return None;
    };
    if !(select.method == "max_by" || select.method == "min_by") || select.args.len() != 1 {
        return None;
    }
    let syn::Expr::MethodCall(source) = &*select.receiver else {
        return None;
    };
    // `x.iter()` hands out references, `x.iter().copied()` values.
    let (iter, by_value) = match source.method.to_string().as_str() {
        "copied" | "cloned" if source.args.is_empty() => match &*source.receiver {
            syn::Expr::MethodCall(iter) => (iter, true),
            _ => return None,
        },
        _ => (source, false),
    };
    let slice = &*iter.receiver;
    if iter.method != "iter" || !iter.args.is_empty() || !place(slice) {
        return None;
    }
    let present = quote!(!#slice.is_empty());
    let name = match (pat, by_value) {
        (syn::Pat::Wild(_), _) => return Some((present, body.clone())),
        (syn::Pat::Reference(reference), false) if reference.mutability.is_none() => {
            &*reference.pat
        }
        (pat, true) => pat,
        _ => return None,
    };
    let syn::Pat::Ident(ident) = name else {
        return None;
    };
    if ident.by_ref.is_some() || ident.mutability.is_some() || ident.subpat.is_some() {
        return None;
    }
    let value = if by_value {
        quote!(#option.unwrap())
    } else {
        quote!(#option.copied().unwrap())
    };
    let name = &ident.ident;
    Some((present, quote!(let #name = #value; #body)))
}

/// `p` of the pattern `Some(p)`.
fn some_pattern(pat: &syn::Pat) -> Option<&syn::Pat> {
    let syn::Pat::TupleStruct(some) = pat else {
        return None;
    };
    (some.qself.is_none() && some.path.is_ident("Some") && some.elems.len() == 1)
        .then(|| &some.elems[0])
}

fn is_none(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(ident) => ident.ident == "None" && ident.subpat.is_none(),
        syn::Pat::Path(path) => path.qself.is_none() && path.path.is_ident("None"),
        syn::Pat::Wild(_) => true,
        _ => false,
    }
}

/// The test that the element is there and the element, of `x.first()`,
/// `x.last()` or `x.get(i)`.
fn element_of(expr: &syn::Expr) -> Option<(TokenStream, TokenStream)> {
    let syn::Expr::MethodCall(call) = expr else {
        return None;
    };
    let slice = &*call.receiver;
    if !place(slice) {
        return None;
    }
    match (call.method.to_string().as_str(), call.args.len()) {
        ("first", 0) => Some((quote!(!#slice.is_empty()), quote!(#slice[0]))),
        ("last", 0) => Some((quote!(!#slice.is_empty()), quote!(#slice[#slice.len() - 1]))),
        ("get", 1) => {
            let index = &call.args[0];
            // Read twice: names, integer literals and arithmetic of them.
            fn simple(index: &syn::Expr) -> bool {
                match index {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(_),
                        ..
                    }) => true,
                    syn::Expr::Path(path) => {
                        path.qself.is_none() && path.path.get_ident().is_some()
                    }
                    syn::Expr::Paren(paren) => simple(&paren.expr),
                    syn::Expr::Binary(binary) => {
                        matches!(
                            binary.op,
                            syn::BinOp::Add(_)
                                | syn::BinOp::Sub(_)
                                | syn::BinOp::Mul(_)
                                | syn::BinOp::Div(_)
                                | syn::BinOp::Rem(_)
                        ) && simple(&binary.left)
                            && simple(&binary.right)
                    }
                    _ => false,
                }
            }
            simple(index).then(|| (quote!((#index) < #slice.len()), quote!(#slice[#index])))
        }
        _ => None,
    }
}

/// Whether `expr` has no effects and calls nothing: literals, names, fields,
/// references, negation and arithmetic of them (`1.5`, `-d`, `&zero`,
/// `m.b * 2.0`), so that reading it only where it is used changes nothing.
fn no_effects(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Lit(_) => true,
        syn::Expr::Path(path) => path.qself.is_none(),
        syn::Expr::Paren(paren) => no_effects(&paren.expr),
        syn::Expr::Field(field) => no_effects(&field.base),
        syn::Expr::Reference(reference) => {
            reference.mutability.is_none() && no_effects(&reference.expr)
        }
        syn::Expr::Unary(unary) => {
            matches!(unary.op, syn::UnOp::Neg(_) | syn::UnOp::Deref(_)) && no_effects(&unary.expr)
        }
        syn::Expr::Binary(binary) => {
            matches!(
                binary.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
            ) && no_effects(&binary.left)
                && no_effects(&binary.right)
        }
        _ => false,
    }
}

/// `body` with `Some`'s pattern bound to the element: `v` read as a
/// reference to it, `&v` bound by a `let` to its value, `_` to nothing.
fn bound(pat: &syn::Pat, element: &TokenStream, body: TokenStream) -> Option<TokenStream> {
    let plain = |pat: &syn::Pat| match pat {
        syn::Pat::Ident(ident)
            if ident.by_ref.is_none() && ident.mutability.is_none() && ident.subpat.is_none() =>
        {
            Some(ident.ident.to_token_stream())
        }
        _ => None,
    };
    match pat {
        syn::Pat::Wild(_) => Some(body),
        syn::Pat::Reference(reference) if reference.mutability.is_none() => {
            let name = plain(&reference.pat)?;
            Some(quote!(let #name = #element; #body))
        }
        pat => {
            let name = plain(pat)?.to_string();
            let read = substitute(body, &name, &quote!((&#element)))?;
            // A pattern or `let` naming `v` again would now bind a place.
            syn::parse2::<syn::Block>(quote!({ #read })).ok()?;
            Some(read)
        }
    }
}
