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
//!
//! The same extreme kept beside what it belongs to, as a tuple: `let mut
//! best = (0, f64::INFINITY);` then `if d < best.1 { best = (i, d); }`.
//! Its compared field (`best.1`, named so in the set `running` returns)
//! holds its start or the observed `d`; the others are observed as ever.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;

use super::analysis::Analysis;
use crate::ast::{Block, Child, Expr, ExprKind, Source, Stmt};
use crate::lower::unparen;

/// The running extremes of `body`: bindings (bound once) started from a
/// constant that is not NaN, whose every write is one of the two forms;
/// a tuple's as `best.1`, its compared field.
pub fn running(body: &Block, an: &Analysis) -> HashSet<String> {
    let mut found = HashMap::new();
    starts(body, &mut found);
    if found.is_empty() {
        return HashSet::new();
    }
    writes(body, None, &mut found);
    found
        .into_iter()
        .filter(|(name, state)| state.ok && an.bound.get(name).copied() == Some(1))
        .filter_map(|(name, state)| match state.shape {
            Shape::Number => Some(name),
            Shape::Tuple {
                compared: Some(field),
                ..
            } => Some(format!("{name}.{field}")),
            Shape::Tuple { compared: None, .. } => None,
        })
        .collect()
}

/// A candidate: written only as an extreme so far, and its shape.
struct Candidate {
    ok: bool,
    shape: Shape,
}

#[derive(Clone, Copy)]
enum Shape {
    Number,
    /// `len` fields; the one every write compares, once one has.
    Tuple {
        len: usize,
        compared: Option<usize>,
    },
}

/// `let mut best = f64::INFINITY;` (or a tuple of constants), anywhere in
/// `block`.
fn starts(block: &Block, found: &mut HashMap<String, Candidate>) {
    fn nested(expr: &Expr, found: &mut HashMap<String, Candidate>) {
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
                    let shape = match unparen(syntax) {
                        syn::Expr::Tuple(tuple)
                            if tuple.elems.len() > 1
                                && tuple.elems.iter().all(super::chains::constant) =>
                        {
                            Some(Shape::Tuple {
                                len: tuple.elems.len(),
                                compared: None,
                            })
                        }
                        syntax if super::chains::constant(syntax) => Some(Shape::Number),
                        _ => None,
                    };
                    if let (Some(shape), false) = (shape, nan) {
                        found.insert(name.clone(), Candidate { ok: true, shape });
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
fn writes(block: &Block, guard: Option<&Expr>, found: &mut HashMap<String, Candidate>) {
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

fn write_expr(expr: &Expr, guard: Option<&Expr>, found: &mut HashMap<String, Candidate>) {
    // The candidate a target writes: itself, or a field of it
    // (`best.1 = d`, `&mut best.0`), which no extreme's write is.
    fn candidate(target: &Expr, found: &HashMap<String, Candidate>) -> Option<(String, bool)> {
        match &target.kind {
            ExprKind::Path(path) => path
                .path
                .get_ident()
                .map(ToString::to_string)
                .filter(|name| found.contains_key(name))
                .map(|name| (name, true)),
            ExprKind::Field { base, .. } | ExprKind::Index { base, .. } => {
                candidate(base, found).map(|(name, _)| (name, false))
            }
            ExprKind::Paren(inner) => candidate(inner, found),
            _ => None,
        }
    }
    let spoil = |name: String, found: &mut HashMap<String, Candidate>| {
        if let Some(state) = found.get_mut(&name) {
            state.ok = false;
        }
    };
    match &expr.kind {
        ExprKind::Assign { target, value } => {
            if let Some((name, whole)) = candidate(target, found) {
                let shape = found[&name].shape;
                match (whole, shape) {
                    (true, Shape::Number) if extreme_write(&name, value, guard) => {}
                    (true, Shape::Tuple { len, compared }) => {
                        match tuple_write(&name, len, value, guard) {
                            Some(field) if compared.is_none_or(|known| known == field) => {
                                if let Some(state) = found.get_mut(&name) {
                                    state.shape = Shape::Tuple {
                                        len,
                                        compared: Some(field),
                                    };
                                }
                            }
                            _ => spoil(name, found),
                        }
                    }
                    _ => spoil(name, found),
                }
            }
        }
        ExprKind::CompoundAssign { target, .. }
        | ExprKind::Reference {
            mutability: Some(_),
            expr: target,
        } => {
            if let Some((name, _)) = candidate(target, found) {
                spoil(name, found);
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

/// `best = (i, d)` in the branch of an `if` comparing `d` and `best.K`,
/// where the tuple's field `K` is `d` (a plain place, see
/// [`extreme_write`]): `Some(K)`.
fn tuple_write(name: &str, len: usize, value: &Expr, guard: Option<&Expr>) -> Option<usize> {
    let Source::Expr(syntax) = value.source else {
        return None;
    };
    let syn::Expr::Tuple(tuple) = unparen(syntax) else {
        return None;
    };
    let Some(Source::Expr(syn::Expr::Binary(cond))) = guard.map(|guard| guard.source) else {
        return None;
    };
    let comparison = matches!(
        cond.op,
        syn::BinOp::Lt(_) | syn::BinOp::Le(_) | syn::BinOp::Gt(_) | syn::BinOp::Ge(_)
    );
    if !comparison || tuple.elems.len() != len {
        return None;
    }
    // `best.K` on one side of the comparison, and the other side.
    let field_of = |side: &syn::Expr| match unparen(side) {
        syn::Expr::Field(field) if is_ident_named(&field.base, name) => match &field.member {
            syn::Member::Unnamed(index) => usize::try_from(index.index).ok(),
            syn::Member::Named(_) => None,
        },
        _ => None,
    };
    let (field, other) = match (field_of(&cond.left), field_of(&cond.right)) {
        (Some(field), None) => (field, &*cond.right),
        (None, Some(field)) => (field, &*cond.left),
        _ => return None,
    };
    let written = tuple.elems.iter().nth(field)?;
    let text = |e: &syn::Expr| unparen(e).to_token_stream().to_string();
    (plain_place(written) && text(written) == text(other)).then_some(field)
}

fn is_ident_named(expr: &syn::Expr, name: &str) -> bool {
    matches!(unparen(expr), syn::Expr::Path(path) if path.path.get_ident().is_some_and(|ident| ident == name))
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
