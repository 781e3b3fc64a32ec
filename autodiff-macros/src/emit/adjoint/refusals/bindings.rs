//! Bindings the sweeps would read wrongly: a `let` that hides a name
//! inside an operand, a binding indexed past the shape the analysis sees,
//! and a `let y;` given its value inside a `loop`.

use std::collections::HashSet;

use quote::ToTokens;

use super::super::analysis::Analysis;
use super::super::sweep::Unsupported;
use crate::ast::{Block, Child, Expr, ExprKind, Stmt};

/// A `let` in a block that is an operand (`t += { let v = v.sin(); v * v
/// };`, what a chain's closure body becomes in its loop) binding a name
/// its block read before it or its own value reads: the reverse of that
/// block finds the name's saved value where it meant the name it hides.
/// The renaming (`shadows`) gives such a `let` a name of its own; where it
/// could not (a format string names it), this keeps the tape.
pub(crate) fn hides_in_an_operand(block: &Block) -> Option<Unsupported> {
    fn statements(block: &Block, operand: bool) -> Option<Unsupported> {
        let mut read_so_far = proc_macro2::TokenStream::new();
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { pat, init, .. } => {
                    if let Some(init) = init {
                        if let Some(found) = expr(init, true) {
                            return Some(found);
                        }
                        if operand {
                            read_so_far.extend(init.source.to_token_stream());
                        }
                    }
                    let reads = |name: &String| crate::text::mentions(read_so_far.clone(), name);
                    if operand && pat.names.iter().any(reads) {
                        return Some(Unsupported {
                            construct: "a `let` inside an expression that hides a name it reads"
                                .into(),
                            line: init.as_ref().map_or(0, |init| crate::text::line(init.span)),
                        });
                    }
                }
                Stmt::Expr(inner, _) => {
                    if let Some(found) = expr(inner, true) {
                        return Some(found);
                    }
                    if operand {
                        read_so_far.extend(inner.source.to_token_stream());
                    }
                }
                Stmt::Item(_) => {}
            }
        }
        None
    }
    /// `top`: `expr` is a statement, or a `let`'s whole value, whose
    /// blocks the sweep reverses as statements.
    fn expr(inner: &Expr, top: bool) -> Option<Unsupported> {
        let statement_like = matches!(
            inner.kind,
            ExprKind::Block(..)
                | ExprKind::If { .. }
                | ExprKind::Match { .. }
                | ExprKind::Loop { .. }
                | ExprKind::While { .. }
                | ExprKind::For { .. }
        );
        let inner_top = top && statement_like;
        for child in inner.children() {
            let found = match child {
                Child::Expr(child) => expr(child, inner_top),
                Child::Block(block) => statements(block, !inner_top),
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }
    statements(block, false)
}

/// The first place of `block` indexed more times than the shape the
/// analysis found for its binding (`row[0]` of a `row` it took for a
/// number): a vector call's value moved (`let q = p;`) or put in a `Vec`
/// (`vec![softmax(a), softmax(b)]`), a model's field of a shape the body
/// does not show. The sweeps
/// would shape its adjoint wrongly, and the adjoint would not build; the
/// tape, which reads the type, records it.
pub(crate) fn indexed_past_its_shape(block: &Block, an: &Analysis) -> Option<Unsupported> {
    fn depth(expr: &Expr) -> Option<(String, usize)> {
        match &expr.kind {
            ExprKind::Paren(inner) => depth(inner),
            ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
                depth(base).map(|(name, depth)| (name, depth + 1))
            }
            ExprKind::Index { base, .. } => depth(base),
            ExprKind::Path(path) => Some((path.path.get_ident()?.to_string(), 0)),
            _ => None,
        }
    }
    // The item of a `for` over a binding of known shape (`for m in &w`,
    // `w.iter()`) holds one level less (`m[1][0]` of a `w` taken to hold
    // numbers: matrices a helper returns, pushed onto an untyped `Vec`).
    let items = std::cell::RefCell::new(std::collections::HashMap::<String, usize>::new());
    block.any_expr(&|expr| {
        if let ExprKind::For { pat, iter, .. } = &expr.kind {
            let known = super::super::analysis::walked_binding(iter)
                .and_then(|name| an.dims.get(&name).copied().flatten());
            if let ([item], Some(known)) = (pat.names.as_slice(), known) {
                if known > 0 {
                    items.borrow_mut().insert(item.clone(), known - 1);
                }
            }
        }
        false
    });
    let items = items.into_inner();
    let found = std::cell::RefCell::new(None);
    block.any_expr(&|expr| {
        let past = depth(expr).is_some_and(|(name, depth)| match an.dims.get(&name) {
            Some(Some(known)) => depth > *known,
            _ => items
                .get(&name)
                .is_some_and(|&known| an.bound.get(&name).copied() == Some(1) && depth > known),
        });
        if past {
            *found.borrow_mut() = Some(Unsupported {
                construct: "a value indexed more times than its shape shows (a vector call's value moved or put in a `Vec`, a model's field read through a binding)".into(),
                line: crate::text::line(expr.span),
            });
        }
        past
    });
    found.into_inner()
}

/// A tracked `let` without a value (`let y;`) given its value inside a
/// `loop` (`loop { y = ..; break; }`): the compiled loop may leave early
/// (a value that is not finite stops it, for the tape to answer), where
/// `y` would have none, so rustc would not build it.
pub(crate) fn given_its_value_in_a_loop(
    block: &Block,
    active: &HashSet<String>,
) -> Option<Unsupported> {
    let late = std::cell::RefCell::new(Vec::new());
    fn lets(block: &Block, active: &HashSet<String>, out: &mut Vec<String>) {
        for stmt in &block.stmts {
            if let Stmt::Let {
                name: Some(name),
                init: None,
                ..
            } = stmt
            {
                if active.contains(name) {
                    out.push(name.clone());
                }
            }
        }
    }
    lets(block, active, &mut late.borrow_mut());
    block.any_expr(&|expr| {
        for child in expr.children() {
            if let Child::Block(inner) = child {
                lets(inner, active, &mut late.borrow_mut());
            }
        }
        false
    });
    let late = late.into_inner();
    let found = std::cell::RefCell::new(None);
    block.any_expr(&|expr| {
        // (After a `while` or a `for`, rustc does not take it as given.)
        if !matches!(expr.kind, ExprKind::Loop { .. }) {
            return false;
        }
        let assigned = expr.any_expr(&|inner| match &inner.kind {
            ExprKind::Assign { target, .. } => {
                matches!(&target.kind, ExprKind::Path(path)
                    if path.path.get_ident().is_some_and(|name| late.contains(&name.to_string())))
            }
            _ => false,
        });
        if assigned {
            *found.borrow_mut() = Some(Unsupported {
                construct: "a `let` without a value given its value inside a loop".into(),
                line: crate::text::line(expr.span),
            });
        }
        assigned
    });
    found.into_inner()
}
