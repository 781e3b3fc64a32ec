//! Activity: which bindings may hold a value with a derivative. A value
//! carries one when it reads an active name through arithmetic, a branch's
//! value or a model's method ([`carries`]); the names it is bound or
//! assigned to become active, round after round, until no new name is
//! reached (`Analysis::new`).

use std::collections::HashSet;

use quote::ToTokens;

use crate::ast::{Block, Child, Expr, ExprKind, Stmt};
use crate::flow::root;

/// Whether `expr`'s value may carry a derivative, given the active names.
pub fn carries(expr: &Expr, active: &HashSet<String>) -> bool {
    let carries = |e: &Expr| carries(e, active);
    match &expr.kind {
        ExprKind::Path(path) => path
            .path
            .get_ident()
            .is_some_and(|ident| active.contains(&ident.to_string())),
        ExprKind::Index { base, .. }
        | ExprKind::Field { base, .. }
        | ExprKind::Paren(base)
        | ExprKind::Dbg { arg: base, .. }
        | ExprKind::Reference { expr: base, .. }
        | ExprKind::Prefix {
            op: syn::UnOp::Deref(_),
            operand: base,
        } => carries(base),
        ExprKind::Binary { lhs, rhs, .. } => carries(lhs) || carries(rhs),
        ExprKind::Neg { operand, .. } | ExprKind::Elementary { operand, .. } => carries(operand),
        ExprKind::Powi { base, .. } => carries(base),
        ExprKind::Ternary { operands, .. } => operands.iter().any(|e| carries(e)),
        ExprKind::Sum { items, .. } => carries(items),
        ExprKind::Call { args, .. } => args.iter().any(carries),
        // A method called on a model: an annotated method (see the sweep's
        // `is_method_call`), whose value carries the model's derivative.
        ExprKind::PlainMethod {
            receiver,
            method,
            args,
            reads_primal: false,
            ..
        } if !is_count(expr) => carries(receiver) || args.iter().any(carries),
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } => {
            !is_count(expr) && (carries(receiver) || (*method == "zip" && args.iter().any(carries)))
        }
        ExprKind::Array(items) | ExprKind::VecList(items) | ExprKind::Tuple(items) => {
            items.iter().any(carries)
        }
        ExprKind::Repeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => carries(elem),
        ExprKind::If {
            then_branch,
            else_branch,
            ..
        } => block_carries(then_branch, active) || else_branch.as_deref().is_some_and(carries),
        ExprKind::Block(_, block) => block_carries(block, active),
        ExprKind::Match { arms, .. } => arms.iter().any(|arm| carries(&arm.body)),
        // The value of the `break` that ends it (one of a loop inside,
        // which ends that loop, counted too: more is tracked, never less).
        ExprKind::Loop { body, .. } => body.any_expr(&|inner| {
            matches!(&inner.kind, ExprKind::Break { value: Some(value), .. } if carries(value))
        }),
        _ => false,
    }
}

/// A call whose value is a count, a truth value or a position (`x.len()`,
/// `x.iter().all(|v| *v > 0.0)`, `filter(..).count()`,
/// `x.iter().position(|&v| v > 0.0)`): it carries no derivative, whatever
/// it reads. A method the lowering could not place
/// counts only with a closure argument, which an iterator's method takes
/// and a model's does not.
pub fn is_count(expr: &Expr) -> bool {
    let counts = |method: &syn::Ident| {
        ["len", "is_empty", "all", "any", "count", "position"]
            .iter()
            .any(|name| method == name)
    };
    match &expr.kind {
        ExprKind::Structural { method, .. } => counts(method),
        ExprKind::PlainMethod { method, args, .. } => {
            counts(method)
                && args
                    .iter()
                    .any(|arg| matches!(arg.kind, ExprKind::Closure { .. }))
        }
        _ => false,
    }
}

fn block_carries(block: &Block, active: &HashSet<String>) -> bool {
    block
        .split_tail()
        .1
        .is_some_and(|tail| carries(tail, active))
}

/// One round of the activity fixpoint: names newly reached by a value that
/// carries a derivative.
pub(super) fn reach_block(block: &Block, active: &HashSet<String>, found: &mut Vec<String>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let { pat, init, .. } => {
                if let Some(init) = init {
                    if carries(init, active) {
                        found.extend(pat.names.iter().cloned());
                    }
                    reach_expr(init, active, found);
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => reach_expr(expr, active, found),
        }
    }
}

fn reach_expr(expr: &Expr, active: &HashSet<String>, found: &mut Vec<String>) {
    match &expr.kind {
        ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. }
            if carries(value, active) =>
        {
            found.extend(root(target));
        }
        ExprKind::For { pat, iter, .. } => reached_items(pat.syntax, iter, active, found),
        ExprKind::Let { pat, expr: value } if carries(value, active) => {
            found.extend(pat.names.iter().cloned());
        }
        // (A model's enum field binds constants: `Act::Leaky(a) => ..`.)
        ExprKind::Match { scrutinee, arms }
            if carries(scrutinee, active)
                && !crate::ast::matches_a_models_enum(scrutinee, arms) =>
        {
            for arm in arms {
                found.extend(arm.pat.names.iter().cloned());
            }
        }
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } if moves_in(method, args).is_some_and(|item| carries(item, active)) => {
            found.extend(root(receiver));
        }
        // `mem::swap(&mut a, &mut b)`: each takes the other's value.
        _ if expr
            .swapped()
            .is_some_and(|(a, b)| carries(a, active) || carries(b, active)) =>
        {
            let (a, b) = expr.swapped().expect("a swap");
            found.extend(root(a));
            found.extend(root(b));
        }
        _ => {}
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => reach_expr(child, active, found),
            Child::Block(block) => reach_block(block, active, found),
        }
    }
}

/// The names a `match` tells apart by an enum's variants or a comparison
/// sets against one (`match act { Act::Relu => .. }`, `act == Act::Tanh`):
/// an enum's, never a number's.
pub(super) fn enums_by_use(block: &Block) -> HashSet<String> {
    let found = std::cell::RefCell::new(HashSet::new());
    let name = |expr: &Expr| {
        if let ExprKind::Path(path) = &expr.unparenthesised().kind {
            if let Some(ident) = path.path.get_ident() {
                found.borrow_mut().insert(ident.to_string());
            }
        }
    };
    block.any_expr(&|expr| {
        match &expr.kind {
            ExprKind::Match { scrutinee, arms } if crate::ast::matches_variants(arms) => {
                name(scrutinee)
            }
            ExprKind::Compare { lhs, rhs, .. } if rhs.is_variant() => name(lhs),
            ExprKind::Compare { lhs, rhs, .. } if lhs.is_variant() => name(rhs),
            _ => {}
        }
        false
    });
    found.into_inner()
}

/// What `method` puts into its receiver from its `args`
/// (`vocabulary::stored_argument`).
fn moves_in<'e, 'a>(method: &syn::Ident, args: &'e [Expr<'a>]) -> Option<&'e Expr<'a>> {
    crate::vocabulary::stored_argument(&method.to_string()).and_then(|position| args.get(position))
}

/// The names a `for` pattern binds to items with a derivative: each side
/// of a `zip` by its own source, an `enumerate`'s index never.
fn reached_items(pat: &syn::Pat, iter: &Expr, active: &HashSet<String>, found: &mut Vec<String>) {
    let pair = match pat {
        syn::Pat::Tuple(tuple) if tuple.elems.len() == 2 => {
            Some((&tuple.elems[0], &tuple.elems[1]))
        }
        _ => None,
    };
    match (&iter.kind, pair) {
        (ExprKind::Paren(inner), _) => return reached_items(pat, inner, active, found),
        (
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            },
            _,
        ) => match (method.to_string().as_str(), args.as_slice(), pair) {
            ("enumerate", [], Some((_, item))) => {
                return reached_items(item, receiver, active, found)
            }
            ("zip", [other], Some((left, right))) => {
                reached_items(left, receiver, active, found);
                return reached_items(right, other, active, found);
            }
            ("rev" | "copied" | "cloned", [], _) | ("step_by" | "skip" | "take", [_], _) => {
                return reached_items(pat, receiver, active, found)
            }
            _ => {}
        },
        _ => {}
    }
    if carries(iter, active) {
        let mut names = HashSet::new();
        crate::text::identifiers(pat.to_token_stream(), &mut names);
        found.extend(names);
    }
}
