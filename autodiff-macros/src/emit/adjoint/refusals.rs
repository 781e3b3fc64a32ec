//! Why a body keeps the tape before the sweeps start: a construct the
//! adjoint does not compile (a closure, `product`, a `#[cfg]` on a `let`,
//! an attribute on an expression), or a model taken by value that the body
//! moves or writes into. The sweeps refuse the rest where they meet it.
//!
//! This file refuses the constructs the adjoint does not compile
//! (`not_compiled`). `models` refuses a model taken by value that the body
//! moves or writes into; `calls` refuses an annotated call's value used as
//! more than a number where the sweeps cannot take it (indexed, bound by a
//! pattern, typed otherwise, assigned to a vector); `bindings` refuses a
//! `let` that hides a name inside an operand, a binding indexed past the
//! shape the analysis sees, and a `let y;` given its value in a loop.

mod bindings;
mod calls;
mod models;

use std::collections::HashSet;

use super::analysis;
use super::sweep::{Unsupported, MOVES};
use crate::ast::{Block, Child, Expr, ExprKind, Source, Stmt};

pub(super) use bindings::{given_its_value_in_a_loop, hides_in_an_operand, indexed_past_its_shape};
pub(super) use calls::{call_assigned_to_a_vector, vector_call};
pub(super) use models::model_moved;

/// The reason a closure the sweeps do not take gives.
pub(super) const CLOSURE: &str = "a closure";

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
pub(super) fn not_compiled(block: &Block, active: &HashSet<String>) -> Option<Unsupported> {
    block
        .stmts
        .iter()
        .find_map(|stmt| match stmt {
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
                None => init
                    .as_ref()
                    .and_then(|init| not_compiled_expr(init, active)),
            },
            Stmt::Item(_) => None,
            // `v.swap(i, j);`, `v.insert(i, e);`, `v.sort_by(|a, b| ..);`, ...
            // as statements the sweep reverses (`Sweep::moved_items`); only
            // their arguments are read here, and `sort_by`'s comparison, which
            // reads values and computes none, may be a closure.
            Stmt::Expr(expr, _) => match &expr.kind {
                ExprKind::Structural {
                    receiver,
                    method,
                    args,
                    ..
                } if MOVES.contains(&method.to_string().as_str())
                    && matches!(receiver.kind, ExprKind::Path(_)) =>
                {
                    args.iter().find_map(|arg| match &arg.kind {
                        ExprKind::Closure { body, .. } if *method == "sort_by" => {
                            if writes_in_closure(arg) {
                                return Some(Unsupported {
                                    construct: "a `sort_by` comparison that writes".into(),
                                    line: crate::text::line(arg.span),
                                });
                            }
                            not_compiled_expr(body, active)
                        }
                        _ => not_compiled_expr(arg, active),
                    })
                }
                _ => not_compiled_operands(expr, active),
            },
        })
        .or_else(|| popped_and_read(block))
}

/// The first statement of `block` (not of the blocks inside it) that
/// `pop`s a `Vec` and also reads it (`v[n - 1] + v.pop().unwrap()`): the
/// reverse moves the item's adjoint back and reads the others' in an order
/// of its own, which must not depend on where the `pop` is.
fn popped_and_read(block: &Block) -> Option<Unsupported> {
    fn own_exprs<'m, 'a>(expr: &'m Expr<'a>, out: &mut Vec<&'m Expr<'a>>) {
        out.push(expr);
        for child in expr.children() {
            if let Child::Expr(child) = child {
                own_exprs(child, out);
            }
        }
    }
    block.stmts.iter().find_map(|stmt| {
        let (Stmt::Let {
            init: Some(expr), ..
        }
        | Stmt::Expr(expr, _)) = stmt
        else {
            return None;
        };
        let mut exprs = Vec::new();
        own_exprs(expr, &mut exprs);
        exprs.iter().find_map(|inner| {
            let ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } = &inner.kind
            else {
                return None;
            };
            let ExprKind::Path(path) = &receiver.kind else {
                return None;
            };
            let name = path.path.get_ident()?;
            let reads_in = |expr: &Expr| {
                let mut own = Vec::new();
                own_exprs(expr, &mut own);
                own.iter()
                    .filter(|e| matches!(&e.kind, ExprKind::Path(p) if p.path.is_ident(name)))
                    .count()
            };
            // `v.remove(k % v.len())`: the index, a plain count evaluated
            // before the item leaves, may read the `Vec`.
            let reads = reads_in(expr) - args.iter().map(reads_in).sum::<usize>();
            ((*method == "pop" || *method == "remove") && reads > 1).then(|| Unsupported {
                construct: format!("a statement that `{method}`s a `Vec` and reads it again"),
                line: crate::text::line(inner.span),
            })
        })
    })
}

fn not_compiled_expr(expr: &Expr, active: &HashSet<String>) -> Option<Unsupported> {
    if matches!(expr.source, Source::Expr(syntax) if !super::super::attributes(syntax).is_empty()) {
        return Some(Unsupported {
            construct: "an attribute on an expression".into(),
            line: crate::text::line(expr.span),
        });
    }
    not_compiled_operands(expr, active)
}

/// [`not_compiled_expr`] without the test of `expr`'s own attributes.
fn not_compiled_operands(expr: &Expr, active: &HashSet<String>) -> Option<Unsupported> {
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
        // `a.iter().fold(0.5, |acc, t| acc * 0.5 + t)` of plain `a`: a
        // value with no derivative, run as written in the forward.
        _ if passive_closures(expr, active) => return None,
        // `Some(i)` of an index: a value with no derivative, run as
        // written. A closure's call (lower-case) may give one it captured.
        ExprKind::Construct { func, args } => {
            let capitalised = func.path.segments.last().is_some_and(|last| {
                last.ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase())
            });
            if !capitalised {
                return refuse("a call of a closure");
            }
            if args.iter().any(|arg| analysis::carries(arg, active)) {
                return refuse("a variant or tuple struct holding a tracked value (`Some(x)`)");
            }
        }
        ExprKind::Closure { .. } => return refuse(CLOSURE),
        ExprKind::Sum { product: true, .. } => return refuse("`product`"),
        // They move items between places, and the sweep reverses them as
        // statements (see `not_compiled`); `pop` and `concat` are values
        // too, reversed where the sweep meets them.
        ExprKind::Structural { method, .. }
            if TAPE_ONLY_METHODS.contains(&method.to_string().as_str()) =>
        {
            return refuse(&format!("`.{method}()` (items moved in a `Vec`)"))
        }
        _ => {}
    }
    expr.children().into_iter().find_map(|child| match child {
        Child::Expr(child) => not_compiled_expr(child, active),
        Child::Block(block) => not_compiled(block, active),
    })
}

/// Whether `expr` holds a closure and computes a plain value: no name it
/// mentions, in the closure or out (what feeds the closure's parameters
/// among them), may carry a derivative; it calls no
/// closure bound by a `let` (which may capture one), no annotated
/// function or method, no macro, and writes nothing. Anything else with a
/// closure in it is a chain the rewrite into loops did not take.
fn passive_closures(expr: &Expr, active: &HashSet<String>) -> bool {
    // A closure alone is fed by what it is passed to, which is not seen
    // here (`max_by(|a, b| ..)` of tracked items, `let f = |v| ..`).
    !matches!(expr.kind, ExprKind::Closure { .. })
        && expr.any_expr(&|e| matches!(e.kind, ExprKind::Closure { .. }))
        && !writes_in_closure(expr)
        && !reaches_derivative(expr, active)
}

/// Whether `expr` may reach a derivative (see [`passive_closures`]): a
/// closure's parameters hide the active names they shadow in its body.
fn reaches_derivative(expr: &Expr, active: &HashSet<String>) -> bool {
    match &expr.kind {
        ExprKind::Closure { inputs, body, .. } => {
            let mut inner = active.clone();
            for input in inputs {
                for name in &input.names {
                    inner.remove(name);
                }
            }
            return reaches_derivative(body, &inner);
        }
        ExprKind::Path(path) => {
            return path
                .path
                .segments
                .first()
                .is_some_and(|first| active.contains(&first.ident.to_string()))
        }
        ExprKind::Construct { .. }
        | ExprKind::Call { .. }
        | ExprKind::PlainMacro { .. }
        | ExprKind::Dbg { .. }
        | ExprKind::Return(_)
        | ExprKind::Break { .. }
        | ExprKind::Continue(_)
        | ExprKind::Assign { .. }
        | ExprKind::CompoundAssign { .. }
        | ExprKind::Invalid => return true,
        // A method of a model (`self.score(x)`), which may carry its
        // derivative whatever the model is named here.
        ExprKind::PlainMethod { receiver, .. } | ExprKind::Structural { receiver, .. }
            if crate::flow::root(receiver).is_some_and(|root| active.contains(&root)) =>
        {
            return true
        }
        _ => {}
    }
    expr.children().into_iter().any(|child| match child {
        Child::Expr(inner) => reaches_derivative(inner, active),
        Child::Block(block) => block.stmts.iter().any(|stmt| match stmt {
            Stmt::Let { init, .. } => init.as_ref().is_some_and(|e| reaches_derivative(e, active)),
            Stmt::Expr(e, _) => reaches_derivative(e, active),
            Stmt::Item(_) => false,
        }),
    })
}

/// The `Vec` methods recorded on the tape that the adjoint compiles only
/// as statements on a binding (see `not_compiled`).
const TAPE_ONLY_METHODS: &[&str] = &[
    "swap",
    "reverse",
    "insert",
    "extend_from_slice",
    "truncate",
    "clear",
    "resize",
    "fill",
    "sort_by",
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
