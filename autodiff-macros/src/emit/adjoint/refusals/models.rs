//! A model taken by value that the body moves away, binds again or writes
//! into: its gradient is made from the model as it came in.

use super::super::analysis::Analysis;
use super::super::sweep::Unsupported;
use crate::ast::{Block, Child, Expr, ExprKind, Function, Param, Stmt};

/// Why a model taken by value keeps the tape, if it does: the gradient is
/// made from the model at the end (its constants), so the body may not
/// move it away (`let other = model;`, `f(model)`) or bind its name again.
pub(crate) fn model_moved(
    function: &Function,
    param: &Param,
    an: &Analysis,
) -> Option<Unsupported> {
    if !param.kind.holds_struct() {
        return None;
    }
    let name = param.ident.to_string();
    // The gradient's constants and the finiteness check read the model as
    // it came in.
    if an.writes.contains_key(&name) {
        return Some(Unsupported {
            construct: format!("a write into a model (`{name}`)"),
            line: param.line,
        });
    }
    if matches!(param.ty, syn::Type::Reference(_)) {
        return None;
    }
    let shadowed = an.bound.get(&name).copied() != Some(1);
    let moved = |expr: &Expr| moves(expr, &name);
    (shadowed || lets_move(&function.body, &name) || function.body.any_expr(&moved)).then(|| {
        Unsupported {
            construct: format!("a model taken by value and moved or bound again (`{name}`)"),
            line: param.line,
        }
    })
}

/// Whether `expr` hands `name` on by value as one of its operands: a call's
/// argument, an assigned value, an element of a tuple or array.
fn moves(expr: &Expr, name: &str) -> bool {
    let operands: Vec<&Expr> = match &expr.kind {
        ExprKind::Call { args, .. }
        | ExprKind::Construct { args, .. }
        | ExprKind::PlainCall { args, .. } => args.iter().collect(),
        ExprKind::Structural { args, .. } | ExprKind::PlainMethod { args, .. } => {
            args.iter().collect()
        }
        ExprKind::Tuple(items) | ExprKind::Array(items) | ExprKind::VecList(items) => {
            items.iter().collect()
        }
        ExprKind::Assign { value, .. } => vec![&**value],
        ExprKind::Return(Some(value)) => vec![&**value],
        _ => Vec::new(),
    };
    operands.into_iter().any(|operand| is_name(operand, name))
        || expr.children().into_iter().any(|child| match child {
            Child::Block(block) => lets_move(block, name),
            Child::Expr(_) => false,
        })
}

/// Whether a `let` of `block` (not of blocks inside it) binds `name`'s
/// value: `let other = model;`.
fn lets_move(block: &Block, name: &str) -> bool {
    block
        .stmts
        .iter()
        .any(|stmt| matches!(stmt, Stmt::Let { init: Some(init), .. } if is_name(init, name)))
}

fn is_name(expr: &Expr, name: &str) -> bool {
    match &expr.kind {
        ExprKind::Path(path) => path.path.is_ident(name),
        ExprKind::Paren(inner) => is_name(inner, name),
        _ => false,
    }
}
