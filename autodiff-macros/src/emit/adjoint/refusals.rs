//! Why a body keeps the tape before the sweeps start: a construct the
//! adjoint does not compile (a closure, `product`, a `#[cfg]` on a `let`,
//! an attribute on an expression), or a model taken by value that the body
//! moves or writes into. The sweeps refuse the rest where they meet it.

use super::analysis::{self, Analysis};
use super::sweep::Unsupported;
use crate::ast::{Block, Child, Expr, ExprKind, Function, Param, Source, Stmt};

/// The first construct anywhere in `block` that the adjoint does not
/// compile. The sweeps refuse what they cannot reverse where they meet it;
/// these constructs must be refused up front, because a sweep that took
/// them for plain code would miss a derivative (a closure's, a fused
/// `mul_add`'s) or run a statement that an attribute compiles out.
///
/// An attribute on a statement (`#[cfg(..)]`, `#[allow(..)]`) is carried to
/// every statement the sweeps write for it (see `Sweep::stmt`), except a
/// `#[cfg]` on a `let`; one on an expression inside a statement is not Rust
/// that compiles on stable.
pub(super) fn not_compiled(block: &Block) -> Option<Unsupported> {
    block.stmts.iter().find_map(|stmt| match stmt {
        // Two `let`s of one name under opposite `cfg`s would both be
        // counted, and the one compiled in given the other's adjoint.
        Stmt::Let { attrs, init, .. } => match attrs
            .iter()
            .find(|attr| attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr"))
        {
            Some(attr) => Some(Unsupported {
                construct: "`#[cfg]` on a `let`".into(),
                line: crate::text::line(attr.pound_token.span),
            }),
            None => init.as_ref().and_then(not_compiled_expr),
        },
        Stmt::Item(_) => None,
        // `v.swap(i, j);`, `v.reverse();`, `v.truncate(n);` as statements
        // the sweep reverses (`Sweep::moved_items`); only their arguments
        // are read here.
        Stmt::Expr(expr, _) => match &expr.kind {
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if COMPILED_MOVES.contains(&method.to_string().as_str())
                && matches!(receiver.kind, ExprKind::Path(_)) =>
            {
                args.iter().find_map(not_compiled_expr)
            }
            _ => not_compiled_operands(expr),
        },
    })
}

/// The `Vec` methods that move items which the sweep reverses, as whole
/// statements on a binding.
const COMPILED_MOVES: &[&str] = &["swap", "reverse", "truncate"];

fn not_compiled_expr(expr: &Expr) -> Option<Unsupported> {
    if matches!(expr.source, Source::Expr(syntax) if !super::super::attributes(syntax).is_empty()) {
        return Some(Unsupported {
            construct: "an attribute on an expression".into(),
            line: crate::text::line(expr.span),
        });
    }
    not_compiled_operands(expr)
}

/// [`not_compiled_expr`] without the test of `expr`'s own attributes.
fn not_compiled_operands(expr: &Expr) -> Option<Unsupported> {
    let refuse = |construct: &str| {
        Some(Unsupported {
            construct: construct.into(),
            line: crate::text::line(expr.span),
        })
    };
    match &expr.kind {
        // `x.iter().all(|v| *v > 0.0)`: a truth value or a count, run as
        // written in the forward, with nothing to reverse, unless its
        // closures write (`|v| { n += 1; .. }`).
        _ if analysis::is_count(expr) && !writes_in_closure(expr) => return None,
        ExprKind::Construct { .. } => return refuse("a tuple struct, variant or closure call"),
        ExprKind::Closure { .. } => return refuse("a closure"),
        ExprKind::Sum { product: true, .. } => return refuse("`product`"),
        // They move items between places: the reverse would have to move
        // the adjoints back the same way, which it does not yet.
        ExprKind::Structural { method, .. }
            if TAPE_ONLY_METHODS.contains(&method.to_string().as_str()) =>
        {
            return refuse(&format!("`.{method}()` (items moved in a `Vec`)"))
        }
        _ => {}
    }
    expr.children().into_iter().find_map(|child| match child {
        Child::Expr(child) => not_compiled_expr(child),
        Child::Block(block) => not_compiled(block),
    })
}

/// The `Vec` and slice methods recorded on the tape that the adjoint does
/// not compile (`swap`, `reverse` and `truncate` but as statements on a
/// binding, see `not_compiled`).
const TAPE_ONLY_METHODS: &[&str] = &[
    "swap",
    "reverse",
    "pop",
    "insert",
    "extend_from_slice",
    "truncate",
    "sort_by",
    "concat",
];

/// Whether a closure inside `expr` assigns, or calls a method that
/// changes its receiver (`push`).
fn writes_in_closure(expr: &Expr) -> bool {
    expr.any_expr(&|inner| {
        matches!(&inner.kind, ExprKind::Closure { body, .. } if body.any_expr(&|e| {
            matches!(e.kind, ExprKind::Assign { .. } | ExprKind::CompoundAssign { .. })
                || matches!(&e.kind, ExprKind::Structural { method, .. }
                    | ExprKind::PlainMethod { method, .. } if analysis::mutates(method))
        }))
    })
}

/// Why a model taken by value keeps the tape, if it does: the gradient is
/// made from the model at the end (its constants), so the body may not
/// move it away (`let other = model;`, `f(model)`) or bind its name again.
pub(super) fn model_moved(
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
