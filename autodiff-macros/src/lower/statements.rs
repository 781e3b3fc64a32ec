//! Statements and blocks: `let`s (with the binding name that labels the
//! value, and the closures they bind), items, expressions and macros as
//! statements, and the names a pattern binds.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::Pat;

use crate::ast::{Block, Pattern, Reason, Source, Stmt};
use crate::text::mentions;

use super::Lower;

impl<'a> Lower<'a> {
    pub(super) fn block(&self, block: &'a syn::Block) -> Block<'a> {
        Block {
            stmts: block
                .stmts
                .iter()
                .filter_map(|stmt| self.stmt(stmt))
                .collect(),
        }
    }

    fn stmt(&self, stmt: &'a syn::Stmt) -> Option<Stmt<'a>> {
        match stmt {
            syn::Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    if let Some((else_token, _)) = &init.diverge {
                        self.reject(else_token, Reason::LetElse);
                    }
                }
                let (untyped, name, mutable) = self.let_pattern(&local.pat);
                if let (Some(name), Some(init)) = (&name, &local.init) {
                    if matches!(&*init.expr, syn::Expr::Closure(_)) {
                        self.closures.borrow_mut().push(name.clone());
                    }
                }
                let init = local
                    .init
                    .as_ref()
                    .map(|init| self.expr(&init.expr, name.as_deref()));
                Some(Stmt::Let {
                    pat: pattern(&local.pat),
                    untyped,
                    name,
                    mutable,
                    init,
                    attrs: &local.attrs,
                })
            }
            syn::Stmt::Item(item) => {
                match item {
                    syn::Item::Const(constant) => {
                        if mentions(constant.ty.to_token_stream(), "f32") {
                            self.reject(&constant.ty, Reason::F32);
                        }
                    }
                    syn::Item::Use(_) => {}
                    other => self.reject(other, Reason::Item),
                }
                Some(Stmt::Item(item))
            }
            // A stray `;` is an empty statement.
            syn::Stmt::Expr(syn::Expr::Verbatim(tokens), _) if tokens.is_empty() => None,
            syn::Stmt::Expr(expr, semi) => Some(Stmt::Expr(self.expr(expr, None), *semi)),
            syn::Stmt::Macro(mac) => {
                let kind = self.mac(&mac.mac);
                let expr = self.node(Source::Macro(&mac.mac), mac.mac.path.span(), None, kind);
                Some(Stmt::Expr(expr, mac.semi_token))
            }
        }
    }

    /// The pattern with `f64` annotations dropped, the binding name that
    /// labels the initialiser's node, and whether the binding is `mut`.
    fn let_pattern(&self, pat: &'a Pat) -> (&'a Pat, Option<String>, bool) {
        match pat {
            Pat::Type(typed) => {
                let (inner, name, mutable) = self.let_pattern(&typed.pat);
                let ty = typed.ty.to_token_stream();
                if mentions(ty.clone(), "f32") {
                    self.reject(&typed.ty, Reason::F32);
                }
                if mentions(ty, "f64") {
                    // On the tape the value is a `Scalar`: let rustc infer it.
                    (inner, name, mutable)
                } else {
                    (pat, name, mutable)
                }
            }
            Pat::Ident(ident) => (
                pat,
                Some(ident.ident.to_string()),
                ident.mutability.is_some(),
            ),
            _ => (pat, None, false),
        }
    }
}

/// A pattern and every identifier in it.
pub(super) fn pattern(pat: &Pat) -> Pattern<'_> {
    fn walk(tokens: TokenStream, names: &mut Vec<String>) {
        for token in tokens {
            match token {
                // `mut` and `ref` bind nothing: read as names, a tracked
                // `let mut t = ..` made every `let mut` look tracked.
                proc_macro2::TokenTree::Ident(ident) if ident == "mut" || ident == "ref" => {}
                proc_macro2::TokenTree::Ident(ident) => names.push(ident.to_string()),
                proc_macro2::TokenTree::Group(group) => walk(group.stream(), names),
                _ => {}
            }
        }
    }
    let mut names = Vec::new();
    // `a: &[f64]` binds `a`: its type names nothing bound (two typed
    // closure parameters counted `f64` as a name bound twice).
    let bound = match pat {
        Pat::Type(typed) => &*typed.pat,
        pat => pat,
    };
    walk(bound.to_token_stream(), &mut names);
    Pattern { syntax: pat, names }
}
