//! Running extremes written as loops, as a newcomer writes a nearest
//! centre: `let mut best = f64::INFINITY;` then `best = best.min(d);`, or
//! `if d < best { best = d; }`. Such a binding holds its start or a value
//! the forward sweep observed when it came in (the other operand of `min`,
//! a tracked name of the comparison), so its own observation as an operand
//! or in a condition is left out, as for a `fold` from a constant (see
//! `chains::Lowering::extremes`): a start of `∞` the tape takes too is then
//! no reason to rerun the tape. Should the start reach the value (a loop
//! that never ran), the value's own observation hands over to the tape,
//! which reports it.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;

use super::analysis::Analysis;
use crate::ast::{Block, Child, Expr, ExprKind, Source, Stmt};

/// The running extremes of `body`: bindings (bound once) started from a
/// constant that is not NaN, whose every write is one of the two forms.
pub fn running(body: &Block, an: &Analysis) -> HashSet<String> {
    let mut found = HashMap::new();
    starts(body, &mut found);
    if found.is_empty() {
        return HashSet::new();
    }
    writes(body, None, &mut found);
    found
        .into_iter()
        .filter(|(name, ok)| *ok && an.bound.get(name).copied() == Some(1))
        .map(|(name, _)| name)
        .collect()
}

/// `let mut best = f64::INFINITY;`, anywhere in `block`.
fn starts(block: &Block, found: &mut HashMap<String, bool>) {
    fn nested(expr: &Expr, found: &mut HashMap<String, bool>) {
        for child in expr.children() {
            match child {
                Child::Expr(child) => nested(child, found),
                Child::Block(block) => starts(block, found),
            }
        }
    }
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                name: Some(name),
                mutable: true,
                init: Some(init),
                ..
            } => {
                if let Source::Expr(syntax) = init.source {
                    let nan = syntax.to_token_stream().to_string().contains("NAN");
                    if super::chains::constant(syntax) && !nan {
                        found.insert(name.clone(), true);
                    }
                }
                nested(init, found);
            }
            Stmt::Let {
                init: Some(init), ..
            } => nested(init, found),
            Stmt::Expr(expr, _) => nested(expr, found),
            _ => {}
        }
    }
}

/// Marks a candidate written any other way; `guard` is the condition of
/// the `if` whose branch holds the statements of `block`.
fn writes(block: &Block, guard: Option<&Expr>, found: &mut HashMap<String, bool>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                init: Some(init), ..
            } => write_expr(init, None, found),
            Stmt::Expr(expr, _) => write_expr(expr, guard, found),
            _ => {}
        }
    }
}

fn write_expr(expr: &Expr, guard: Option<&Expr>, found: &mut HashMap<String, bool>) {
    let candidate = |target: &Expr, found: &HashMap<String, bool>| match &target.kind {
        ExprKind::Path(path) => path
            .path
            .get_ident()
            .map(ToString::to_string)
            .filter(|name| found.contains_key(name)),
        _ => None,
    };
    match &expr.kind {
        ExprKind::Assign { target, value } => {
            if let Some(name) = candidate(target, found) {
                if !extreme_write(&name, value, guard) {
                    found.insert(name, false);
                }
            }
        }
        ExprKind::CompoundAssign { target, .. }
        | ExprKind::Reference {
            mutability: Some(_),
            expr: target,
        } => {
            if let Some(name) = candidate(target, found) {
                found.insert(name, false);
            }
        }
        ExprKind::If {
            cond,
            then_branch,
            else_branch,
        } => {
            write_expr(cond, None, found);
            writes(then_branch, Some(cond), found);
            if let Some(other) = else_branch {
                write_expr(other, None, found);
            }
            return;
        }
        _ => {}
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => write_expr(child, None, found),
            Child::Block(block) => writes(block, None, found),
        }
    }
}

/// `best = best.min(e)` (`max`, `f64::min(best, e)`), or `best = d` in the
/// branch of an `if` comparing `d` and `best`.
fn extreme_write(name: &str, value: &Expr, guard: Option<&Expr>) -> bool {
    let Source::Expr(syntax) = value.source else {
        return false;
    };
    let acc = syn::Ident::new(name, proc_macro2::Span::call_site());
    if super::chains::extreme_of(syntax, &acc) {
        return true;
    }
    // `d`, or an item by an index that is a name or a literal
    // (`terms[c]`): what the comparison observed, read again.
    if !plain_place(syntax) || is_ident(syntax, &acc) {
        return false;
    }
    let Some(Source::Expr(syn::Expr::Binary(cond))) = guard.map(|guard| guard.source) else {
        return false;
    };
    let comparison = matches!(
        cond.op,
        syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_)
    );
    let same = |side: &syn::Expr| {
        unparen(side).to_token_stream().to_string() == syntax.to_token_stream().to_string()
    };
    comparison
        && ((same(&cond.left) && is_ident(&cond.right, &acc))
            || (is_ident(&cond.left, &acc) && same(&cond.right)))
}

/// `d`, `terms[c]`, `m[i][2]`: a name, or an item of one by names and
/// integer literals.
fn plain_place(expr: &syn::Expr) -> bool {
    match unparen(expr) {
        syn::Expr::Path(path) => path.path.get_ident().is_some(),
        syn::Expr::Index(index) => {
            plain_place(&index.expr)
                && match unparen(&index.index) {
                    syn::Expr::Path(path) => path.path.get_ident().is_some(),
                    syn::Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Int(_)),
                    _ => false,
                }
        }
        _ => false,
    }
}

fn is_ident(expr: &syn::Expr, ident: &syn::Ident) -> bool {
    matches!(unparen(expr), syn::Expr::Path(path) if path.path.is_ident(ident))
}

fn unparen(expr: &syn::Expr) -> &syn::Expr {
    match expr {
        syn::Expr::Paren(paren) => unparen(&paren.expr),
        other => other,
    }
}
