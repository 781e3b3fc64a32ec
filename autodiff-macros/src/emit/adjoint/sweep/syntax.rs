//! What an expression or a block is, read from its syntax alone: a
//! number, a place, arithmetic to compute again, a call, a range, a jump.
//! The sweeps ask these before they decide how to reverse a statement.

use std::collections::HashMap;

use proc_macro2::{Ident, TokenStream};
use quote::ToTokens;

use super::Jumps;
use crate::ast::{Arith, Block, Expr, ExprKind};

/// Whether the value is one `f64` (as opposed to a place that may be an
/// array): arithmetic, a function, a literal, a call.
pub(super) fn is_scalar(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Lit(_)
        | ExprKind::NegLit(_)
        | ExprKind::Binary { .. }
        | ExprKind::Neg { .. }
        | ExprKind::Elementary { .. }
        | ExprKind::Powi { .. }
        | ExprKind::Ternary { .. }
        | ExprKind::Sum { .. }
        | ExprKind::Cast { .. } => true,
        ExprKind::Call { .. } => !expr.is_empty_vec(),
        ExprKind::Path(path) => crate::valid::is_f64_constant(&path.path),
        _ if is_method_call(expr) => true,
        ExprKind::Paren(inner) => is_scalar(inner),
        ExprKind::If { then_branch, .. } | ExprKind::Block(None, then_branch) => {
            then_branch.split_tail().1.is_some_and(is_scalar)
        }
        ExprKind::Match { arms, .. } => arms.first().is_some_and(|arm| is_scalar(&arm.body)),
        _ => false,
    }
}

/// A path, or an index chain into one.
pub(super) fn is_place(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Path(_) => true,
        ExprKind::Prefix {
            op: syn::UnOp::Deref(_),
            operand,
        } => is_place(operand),
        ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => is_place(base),
        _ => false,
    }
}

/// Arithmetic of places and literals: cheap to compute again.
pub(super) fn is_arithmetic(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Lit(_) | ExprKind::NegLit(_) | ExprKind::Path(_) => true,
        ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => is_arithmetic(base),
        ExprKind::Paren(inner)
        | ExprKind::Neg { operand: inner, .. }
        | ExprKind::Prefix {
            op: syn::UnOp::Deref(_),
            operand: inner,
        } => is_arithmetic(inner),
        ExprKind::Binary { op, lhs, rhs, .. } => {
            matches!(op, Arith::Add | Arith::Sub | Arith::Mul | Arith::Div)
                && is_arithmetic(lhs)
                && is_arithmetic(rhs)
        }
        _ => false,
    }
}

pub(super) fn has_call(expr: &Expr) -> bool {
    matches!(expr.kind, ExprKind::Call { .. })
        || is_method_call(expr)
        || expr.children().into_iter().any(|child| match child {
            crate::ast::Child::Expr(child) => has_call(child),
            crate::ast::Child::Block(_) => true,
        })
}

/// A method called on a place (`model.score(x)`, `net.layers[k].forward(h)`)
/// that is not one the vocabulary knows: on a model, an annotated method,
/// whose pair (`score_forward`, `score_reverse`) the sweeps call as they
/// call a function's. Which of these carry a derivative is `Sweep::
/// method_call`'s question; this one is syntax only, for the checks that
/// must not read a call's value twice.
pub(super) fn is_method_call(expr: &Expr) -> bool {
    matches!(&expr.kind, ExprKind::PlainMethod { receiver, reads_primal: false, .. } if is_place(receiver))
}

pub(super) fn is_simple(tokens: &TokenStream) -> bool {
    let tokens: Vec<_> = tokens.clone().into_iter().collect();
    tokens.len() == 1
}

/// A range, possibly reversed, stepped, skipped or taken: reversible.
pub(super) fn range_like(iter: &Expr) -> bool {
    match &iter.kind {
        ExprKind::Range {
            start: Some(_),
            end: Some(_),
            ..
        } => true,
        ExprKind::Paren(inner) => range_like(inner),
        ExprKind::Structural {
            receiver, method, ..
        } => {
            matches!(
                method.to_string().as_str(),
                "rev" | "step_by" | "skip" | "take"
            ) && range_like(receiver)
        }
        _ => false,
    }
}

/// A range iterator with its inclusive ranges written half-open
/// (`(0..=n).step_by(2)` as `(0..(n) + 1).step_by(2)`), which `step_by` and
/// `rev` take back in the reverse sweep (`RangeInclusive` is no
/// `ExactSizeIterator`); `None` where it has none.
pub(super) fn half_open(iter: &Expr) -> Option<TokenStream> {
    match &iter.kind {
        ExprKind::Range {
            start: Some(start),
            limits: syn::RangeLimits::Closed(_),
            end: Some(end),
        } => {
            let (start, end) = (start.source.to_token_stream(), end.source.to_token_stream());
            Some(quote::quote!((#start)..(#end) + 1))
        }
        ExprKind::Paren(inner) => half_open(inner).map(|inner| quote::quote!((#inner))),
        ExprKind::Structural {
            receiver,
            method,
            turbofish: None,
            args,
        } => {
            let receiver = half_open(receiver)?;
            let args = args.iter().map(|arg| arg.source.to_token_stream());
            Some(quote::quote!(#receiver.#method(#(#args),*)))
        }
        _ => None,
    }
}

/// A place as the reverse sweep reads it: as written, or its saved copy.
pub(super) fn place_tokens(place: &Expr, saved: &HashMap<usize, Ident>) -> TokenStream {
    match saved.get(&place.id) {
        Some(copy) => copy.to_token_stream(),
        None => place.source.to_token_stream(),
    }
}

/// `x`, `&x`, `x.iter()`, `x.iter().copied()`: the place iterated and
/// whether the items are references.
pub(super) fn element_source<'e, 'a>(iter: &'e Expr<'a>) -> Option<(&'e Expr<'a>, bool)> {
    match &iter.kind {
        ExprKind::Reference {
            mutability: None,
            expr,
        } if is_place(expr) => Some((expr, true)),
        ExprKind::Structural {
            receiver, method, ..
        } => match method.to_string().as_str() {
            "iter" if is_place(receiver) => Some((receiver, true)),
            "copied" | "cloned" => {
                let (place, _) = element_source(receiver)?;
                Some((place, false))
            }
            _ => None,
        },
        ExprKind::Paren(inner) => element_source(inner),
        _ => None,
    }
}

/// A loop's level of jumps: its label and trip counter.
pub(super) fn level(label: Option<&syn::Label>, trips: Option<Ident>) -> Jumps {
    Jumps {
        trips,
        label: label.map(|label| label.name.ident.to_string()),
        ..Jumps::default()
    }
}

pub(super) fn is_jump(expr: &Expr) -> bool {
    matches!(
        expr.kind,
        ExprKind::Break { .. } | ExprKind::Continue(_) | ExprKind::Return(_)
    )
}

pub(super) fn contains_jump(block: &Block) -> bool {
    block.any_expr(&|expr| {
        matches!(
            expr.kind,
            ExprKind::Break { .. } | ExprKind::Continue(_) | ExprKind::Return(_)
        )
    })
}

pub(super) fn has_return(block: &Block) -> bool {
    block.any_expr(&|expr| matches!(expr.kind, ExprKind::Return(_)))
}
