//! A closure bound by `let` and called, read as its body where it is
//! called: `let act = |v: f64| v.tanh() * 0.5; act(x) + act(2.0 * x)` is
//!
//! ```text
//! let act_value = { let v: f64 = x; v.tanh() * 0.5 };
//! let act_value_2 = { let v: f64 = 2.0 * x; v.tanh() * 0.5 };
//! act_value + act_value_2
//! ```
//!
//! and the `let` of the closure goes once no call is left. The sweeps reverse the
//! blocks like any `let` of a block, so each call gets its own adjoints.
//!
//! The body is the closure's only where each name it reads means there
//! what it meant where the closure was written: every name the body
//! mentions, but its parameters, is bound at most once in the whole
//! function (parameters, `let`s, patterns and closure parameters counted),
//! so no binding between the closure and a call hides it; the closure's
//! own name is bound once and only ever called. A `move` closure (which
//! copies what it captures when it is made), one whose body can leave it
//! (`return`, `?`), one with a parameter other than a name, and a call
//! whose argument reads the name of an earlier parameter (which its `let`
//! would hide) stay as written, and the function keeps the tape.

use std::collections::HashMap;

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};

use super::recognise::leaves;
use super::tokens::collect;
use super::Lowering;
use crate::ast::{ExprKind, Function};

/// A closure bound by `let` that its calls are read as.
pub(super) struct Bound {
    pub(super) name: String,
    /// `(name, type)` of each parameter.
    params: Vec<(syn::Ident, Option<syn::Type>)>,
    /// The return type written (`|a: f64| -> Vec<f64> { .. }`), which the
    /// body's value is bound with where it is called (`collect` may need
    /// it).
    output: Option<syn::Type>,
    body: syn::Expr,
}

/// How many times each name is bound in `function`: the analysis's count
/// (`bound`: parameters, `let`s, patterns) and every closure's parameters.
pub fn binding_counts(
    function: &Function,
    bound: &HashMap<String, usize>,
) -> HashMap<String, usize> {
    let counts = std::cell::RefCell::new(bound.clone());
    function.body.any_expr(&|expr| {
        if let ExprKind::Closure { inputs, .. } = &expr.kind {
            let mut counts = counts.borrow_mut();
            for name in inputs.iter().flat_map(|input| &input.names) {
                *counts.entry(name.clone()).or_default() += 1;
            }
        }
        false
    });
    counts.into_inner()
}

impl Lowering<'_> {
    /// The closure `local` binds, if its calls can be read as its body.
    pub(super) fn bound_closure(&self, local: &syn::Local) -> Option<Bound> {
        if !local.attrs.is_empty() {
            return None;
        }
        let init = local.init.as_ref()?;
        let syn::Expr::Closure(closure) = &*init.expr else {
            return None;
        };
        let syn::Pat::Ident(pat) = &local.pat else {
            return None;
        };
        if init.diverge.is_some()
            || pat.by_ref.is_some()
            || pat.subpat.is_some()
            || closure.capture.is_some()
            || closure.asyncness.is_some()
            || closure.constness.is_some()
            || closure.lifetimes.is_some()
            || !closure.attrs.is_empty()
            || leaves(&closure.body)
        {
            return None;
        }
        let name = pat.ident.to_string();
        if self.bindings.get(&name).copied() != Some(1) || !only_called(self.whole.clone(), &name) {
            return None;
        }
        let mut params = Vec::new();
        for input in &closure.inputs {
            let (pat, ty) = match input {
                syn::Pat::Type(typed) => (&*typed.pat, Some((*typed.ty).clone())),
                pat => (pat, None),
            };
            match pat {
                syn::Pat::Ident(ident)
                    if ident.by_ref.is_none()
                        && ident.subpat.is_none()
                        && ident.mutability.is_none() =>
                {
                    params.push((ident.ident.clone(), ty));
                }
                _ => return None,
            }
        }
        let mut names = std::collections::HashSet::new();
        collect(closure.body.to_token_stream(), &mut names);
        let hidden = names.iter().any(|used| {
            !params.iter().any(|(param, _)| param == used)
                && self.bindings.get(used).copied().unwrap_or(0) > 1
        });
        if hidden {
            return None;
        }
        // `-> f64` says what the body's value already is: read as if
        // unwritten, the value stays an expression (an `if`'s value, say,
        // whose shape a `let` inside it would hide).
        let output = match &closure.output {
            syn::ReturnType::Type(_, ty) if !crate::valid::is_f64(ty) => Some((**ty).clone()),
            _ => None,
        };
        Some(Bound {
            name,
            params,
            output,
            body: (*closure.body).clone(),
        })
    }

    /// `expr` as the block of the closure it calls, if it is a call of a
    /// closure bound by `let` whose arguments its parameters' `let`s do not
    /// hide.
    pub(super) fn inlined(&mut self, expr: &syn::Expr) -> Option<syn::Expr> {
        let syn::Expr::Call(call) = expr else {
            return None;
        };
        let syn::Expr::Path(func) = &*call.func else {
            return None;
        };
        if func.qself.is_some() || !func.attrs.is_empty() {
            return None;
        }
        let name = func.path.get_ident()?.to_string();
        let bound = self
            .closures
            .iter()
            .rev()
            .find(|bound| bound.name == name)?;
        if bound.params.len() != call.args.len() {
            return None;
        }
        let mut lets = Vec::new();
        for (k, ((param, ty), arg)) in bound.params.iter().zip(&call.args).enumerate() {
            let earlier = &bound.params[..k];
            if earlier
                .iter()
                .any(|(name, _)| crate::text::mentions(arg.to_token_stream(), &name.to_string()))
            {
                return None;
            }
            let ty = ty.as_ref().map(|ty| quote!(: #ty));
            lets.push(quote!(let #param #ty = #arg;));
        }
        let output = bound.output.clone();
        let span = func.path.segments[0].ident.span();
        // A block body's statements are spliced after the parameters' `let`s
        // (`-> f64 { a * a }` needs its braces; `{ let a: f64 = x; { a * a }
        // }` would get rustc's `unused_braces` on them; the block ends where
        // the call's does, so what they bind hides nothing more), then its
        // value.
        let (stmts, tail) = match bound.body.clone() {
            syn::Expr::Block(block) if block.label.is_none() && block.attrs.is_empty() => {
                let mut stmts = block.block.stmts;
                match stmts.pop() {
                    Some(syn::Stmt::Expr(tail, None)) => (stmts, Some(tail)),
                    last => (stmts.into_iter().chain(last).collect(), None),
                }
            }
            body => (Vec::new(), Some(body)),
        };
        let body = match (output, tail) {
            // `let sq_returned: f64 = a * a; sq_returned`: the value typed
            // as the closure typed it.
            (Some(ty), Some(tail)) => {
                let mut returned = self.fresh(&format!("{name}_returned"));
                returned.set_span(span);
                quote_spanned!(span=> #(#stmts)* let #returned: #ty = #tail; #returned)
            }
            (_, tail) => quote_spanned!(span=> #(#stmts)* #tail),
        };
        syn::parse2(quote_spanned!(span=> { #(#lets)* #body })).ok()
    }
}

/// Whether every use of `name` in `tokens` but one (its `let`) is a call:
/// followed by parentheses, and not a field or method after a `.`.
fn only_called(tokens: TokenStream, name: &str) -> bool {
    fn others(tokens: TokenStream, name: &str) -> Option<usize> {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut count = 0;
        for (k, token) in tokens.iter().enumerate() {
            match token {
                TokenTree::Ident(ident) if ident == name => {
                    let after_dot = k > 0
                        && matches!(&tokens[k - 1], TokenTree::Punct(p) if p.as_char() == '.');
                    let called = matches!(tokens.get(k + 1),
                        Some(TokenTree::Group(group))
                            if group.delimiter() == proc_macro2::Delimiter::Parenthesis);
                    if after_dot || !called {
                        count += 1;
                    }
                }
                // A macro may name it in its tokens: not read here, but
                // in `vec!` and `dbg!`, whose tokens the lowering reads as
                // expressions (and inlines calls in).
                TokenTree::Punct(punct)
                    if punct.as_char() == '!'
                        && k > 0
                        && matches!(tokens[k - 1], TokenTree::Ident(_))
                        && matches!(tokens.get(k + 1), Some(TokenTree::Group(_))) =>
                {
                    let read = matches!(&tokens[k - 1],
                        TokenTree::Ident(mac) if mac == "vec" || mac == "dbg");
                    if let Some(TokenTree::Group(group)) = tokens.get(k + 1) {
                        if !read && super::tokens::count(group.stream(), name) > 0 {
                            return None;
                        }
                    }
                }
                TokenTree::Group(group) => count += others(group.stream(), name)?,
                _ => {}
            }
        }
        Some(count)
    }
    others(tokens, name) == Some(1)
}
