//! `let` with a tuple or array pattern, read by the adjoint as one `let`
//! per name: `let (a, b) = (x * 2.0, x * 3.0);` is `let a = x * 2.0;
//! let b = x * 3.0;`, which the sweeps compile like any binding, each
//! name getting its own adjoint (`a_bar`, `b_bar`).
//!
//! Rust evaluates every component of the value before it binds a name, so
//! a component that reads a name an earlier component binds (`let (a, b)
//! = (b, a);`) is first held in a binding of its own (`a_next`). A tuple
//! held in a binding splits into its fields (`let (a, b) = pair;` is `let
//! a = pair.0; let b = pair.1;`). A pattern bound to a value this cannot
//! split (a call returning a tuple) is left as written and keeps the tape.
//!
//! This file walks the body and splits each pattern `let` (`Splitter`).
//! `leaves` takes a pattern and its value apart into one name and one
//! value per leaf; `syntax` answers the questions about syntax both ask
//! (whether a value is pure, a place, a tuple's tail); `calls` reads an
//! assignment of a call's value to a tuple of names as a pattern `let`
//! (`calls_destructured`), before the split.

mod calls;
mod leaves;
mod syntax;

use std::collections::HashSet;

use quote::ToTokens;

use crate::lower::unparen;
pub use calls::calls_destructured;
use syntax::{assign_tails, block_has_pattern_let, destructured, numbers, numbers_literal};

/// `item` with its splittable pattern `let`s split, or `None` if it has
/// none.
pub fn split(item: &syn::ItemFn) -> Option<syn::ItemFn> {
    // Most bodies have none: looked for before the function is cloned and
    // its identifiers collected.
    if !block_has_pattern_let(&item.block) {
        return None;
    }
    let mut idents = HashSet::new();
    crate::text::identifiers(item.to_token_stream(), &mut idents);
    let arrays = item
        .sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            syn::FnArg::Typed(typed) => match (&*typed.pat, &*typed.ty) {
                (syn::Pat::Ident(pat), syn::Type::Array(array)) if numbers(&array.elem) => {
                    Some(pat.ident.to_string())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let mut splitter = Splitter {
        idents,
        arrays,
        calls: HashSet::new(),
        changed: false,
    };
    let mut item = item.clone();
    splitter.block(&mut item.block);
    splitter.changed.then_some(item)
}

struct Splitter {
    /// Every identifier of the function, so that a new binding's name
    /// shadows none.
    idents: HashSet<String>,
    /// Parameters of type `[f64; N]` (or `[[f64; M]; N]`): `let [a, b] =
    /// p;` reads `p[0]`, `p[1]`, which copies as the pattern does.
    arrays: HashSet<String>,
    /// Names bound to a call's value (`let t = pair(x);`): a tuple of
    /// whatever the callee returns, which `t.0` would move out of while
    /// the sweeps still read `t` whole; such a pattern stays as written.
    calls: HashSet<String>,
    changed: bool,
}

/// One name (or `_`) of a pattern and the value it binds.
struct Leaf {
    pat: syn::Pat,
    ty: Option<syn::Type>,
    value: syn::Expr,
}

impl Splitter {
    fn block(&mut self, block: &mut syn::Block) {
        let stmts = std::mem::take(&mut block.stmts);
        for mut stmt in stmts {
            if let syn::Stmt::Local(local) = &stmt {
                if let (syn::Pat::Ident(ident), Some(init)) = (&local.pat, &local.init) {
                    if matches!(&*init.expr, syn::Expr::Call(_)) {
                        self.calls.insert(ident.ident.to_string());
                    }
                    // A local array of numbers (`let m = [[c, -s], [s, c]];`),
                    // taken apart as an array parameter is.
                    if numbers_literal(&init.expr) {
                        self.arrays.insert(ident.ident.to_string());
                    }
                }
                if let Some(split) = self.local(local) {
                    self.changed = true;
                    block.stmts.extend(split);
                    continue;
                }
            }
            if let syn::Stmt::Expr(expr, Some(_)) = &stmt {
                if let Some((targets, values)) = destructured(expr) {
                    self.changed = true;
                    let split = self.assignments(&targets, &values);
                    block.stmts.extend(split);
                    continue;
                }
            }
            self.nested_stmt(&mut stmt);
            block.stmts.push(stmt);
        }
    }

    /// `(a, b) = (e, f);` as one assignment per name, `a = e; b = f;`, in
    /// order. Rust evaluates every component before it assigns, so where
    /// a component reads a name the statement assigns (`(a, b) = (b, a +
    /// b);`), each is first held in a fresh binding (`let a_next = b; let
    /// b_next = a + b; a = a_next; b = b_next;`).
    fn assignments(&mut self, targets: &[&syn::Ident], values: &[&syn::Expr]) -> Vec<syn::Stmt> {
        let mut read = HashSet::new();
        for value in values {
            crate::text::identifiers(value.to_token_stream(), &mut read);
        }
        let clash = targets
            .iter()
            .any(|ident| read.contains(&ident.to_string()));
        let mut out: Vec<syn::Stmt> = Vec::new();
        let mut assign = Vec::new();
        for (name, value) in targets.iter().zip(values) {
            if clash {
                let base = name.to_string();
                let held = self.fresh(&format!("{}_next", base.trim_start_matches("r#")));
                out.push(syn::parse_quote!(let #held = #value;));
                assign.push(syn::parse_quote!(#name = #held;));
            } else {
                out.push(syn::parse_quote!(#name = #value;));
            }
        }
        out.extend(assign);
        out
    }

    /// The blocks inside a statement: branches, loop bodies, blocks.
    fn nested_stmt(&mut self, stmt: &mut syn::Stmt) {
        crate::blocks::of_stmt(stmt, &mut |block| self.block(block));
    }

    /// The `let`s that `local` splits into, if it splits.
    fn local(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
        if !local.attrs.is_empty() {
            return None;
        }
        let init = local.init.as_ref()?;
        if init.diverge.is_some() {
            return None;
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(typed) => (&*typed.pat, Some(&*typed.ty)),
            pat => (pat, None),
        };
        if !matches!(pat, syn::Pat::Tuple(_) | syn::Pat::Slice(_)) {
            return None;
        }
        let mut leaves = Vec::new();
        if !self.leaves(pat, ty, &init.expr, &mut leaves) {
            return self.deferred(local, pat, ty, &init.expr);
        }
        Some(self.lets(local, leaves))
    }

    /// `let (a, b) = if c { let s = x * y; (s, s + x) } else { (x, y) };`,
    /// whose branches do more than give a tuple: `let a; let b;`, then the
    /// same `if` (or `match`) assigning the components where each branch
    /// ends (`a = s; b = s + x;`). Through fresh names bound after it
    /// (`let a = a_next;`) when the value reads a name the pattern binds.
    fn deferred(
        &mut self,
        local: &syn::Local,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        value: &syn::Expr,
    ) -> Option<Vec<syn::Stmt>> {
        let syn::Pat::Tuple(tuple) = pat else {
            return None;
        };
        let n = tuple.elems.len();
        let types: Vec<Option<&syn::Type>> = match ty {
            None => vec![None; n],
            Some(syn::Type::Tuple(types)) if types.elems.len() == n => {
                types.elems.iter().map(Some).collect()
            }
            Some(_) => return None,
        };
        let mut names = Vec::new();
        for elem in &tuple.elems {
            match elem {
                syn::Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                    names.push(Some(ident));
                }
                syn::Pat::Wild(_) => names.push(None),
                _ => return None,
            }
        }
        if !matches!(unparen(value), syn::Expr::If(_) | syn::Expr::Match(_)) {
            return None;
        }
        let mut read = HashSet::new();
        crate::text::identifiers(value.to_token_stream(), &mut read);
        let clash = names
            .iter()
            .flatten()
            .any(|ident| read.contains(&ident.ident.to_string()));
        let targets: Vec<Option<syn::Ident>> = names
            .iter()
            .map(|name| {
                name.map(|ident| {
                    if clash {
                        let base = ident.ident.to_string();
                        self.fresh(&format!("{}_next", base.trim_start_matches("r#")))
                    } else {
                        ident.ident.clone()
                    }
                })
            })
            .collect();
        let assigned = assign_tails(unparen(value), &targets)?;
        let let_token = local.let_token;
        let semi = local.semi_token;
        let mut out: Vec<syn::Stmt> = Vec::new();
        for ((name, target), ty) in names.iter().zip(&targets).zip(&types) {
            let (Some(name), Some(target)) = (name, target) else {
                continue;
            };
            let ty = ty.map(|ty| quote::quote!(: #ty));
            out.push(if clash {
                syn::parse_quote!(#let_token #target #ty #semi)
            } else {
                syn::parse_quote!(#let_token #name #ty #semi)
            });
        }
        out.push(syn::Stmt::Expr(assigned, Some(Default::default())));
        if clash {
            for (name, target) in names.iter().zip(&targets) {
                if let (Some(name), Some(target)) = (name, target) {
                    out.push(syn::parse_quote!(#let_token #name = #target #semi));
                }
            }
        }
        Some(out)
    }

    /// One `let` per leaf, in order; through `name_next` bindings when a
    /// value reads a name an earlier leaf binds.
    fn lets(&mut self, local: &syn::Local, leaves: Vec<Leaf>) -> Vec<syn::Stmt> {
        let mut bound = Vec::new();
        let mut clash = false;
        for leaf in &leaves {
            let mut read = HashSet::new();
            crate::text::identifiers(leaf.value.to_token_stream(), &mut read);
            clash |= bound.iter().any(|name| read.contains(name));
            if let syn::Pat::Ident(ident) = &leaf.pat {
                bound.push(ident.ident.to_string());
            }
        }
        let let_token = local.let_token;
        let semi = local.semi_token;
        let make = |pat: &syn::Pat, ty: &Option<syn::Type>, value: &syn::Expr| -> syn::Stmt {
            let pat = match ty {
                Some(ty) => quote::quote!(#pat: #ty),
                None => pat.to_token_stream(),
            };
            syn::parse_quote!(#let_token #pat = #value #semi)
        };
        if !clash {
            return leaves
                .iter()
                .map(|leaf| make(&leaf.pat, &leaf.ty, &leaf.value))
                .collect();
        }
        let mut first = Vec::new();
        let mut then = Vec::new();
        for leaf in &leaves {
            match &leaf.pat {
                syn::Pat::Ident(ident) => {
                    let name = ident.ident.to_string();
                    let next = self.fresh(&format!("{}_next", name.trim_start_matches("r#")));
                    let next_pat: syn::Pat = syn::parse_quote!(#next);
                    first.push(make(&next_pat, &leaf.ty, &leaf.value));
                    then.push(make(&leaf.pat, &None, &syn::parse_quote!(#next)));
                }
                _ => first.push(make(&leaf.pat, &leaf.ty, &leaf.value)),
            }
        }
        first.extend(then);
        first
    }

    fn fresh(&mut self, base: &str) -> syn::Ident {
        super::fresh_ident(&mut self.idents, base)
    }
}
