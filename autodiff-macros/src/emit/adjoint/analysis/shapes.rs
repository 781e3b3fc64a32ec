//! Shapes: how many indexings take a binding's value to an `f64` (0 for a
//! scalar, 1 for an array or `Vec` of them, ...), from the parameters'
//! kinds, each `let`'s value and, for a `let y;`, its assignments
//! (`Analysis::dims` and `Analysis::assigned`); [`dims_of`] for one
//! expression.
//!
//! This file reads one expression's shape (`dims_of`). `bindings` gives
//! each binding of a block its shape, from its `let`, its type and its
//! assignments; `fields` gives a model's fields theirs, from how the body
//! indexes them and computes with them; `uses` finds the `let`s, the
//! pushes and the operands read as numbers those passes look at; `fixed`
//! finds the `Vec` bindings and those whose rows all have one shape.

mod bindings;
mod fields;
mod fixed;
mod uses;

use std::collections::HashMap;

use crate::ast::{Arith, Expr, ExprKind};

use bindings::break_value;
pub(super) use bindings::{
    assigned_dims, copy_array, deferred_lets, dims_block, empty_vec_lets, grown_dims, kind_dims,
    type_dims,
};
pub(super) use fields::model_field_dims;
pub(super) use fixed::fixed_rows;
pub use fixed::vec_bindings;
pub use uses::let_inits;
pub(crate) use uses::numeric_operands;
pub(super) use uses::{for_each_push, items_read_as_numbers, numbers_by_use};

/// How many indexings take `expr`'s value to an `f64`, if known.
/// The name a field's facts are kept under (`"m.w"`): of `m.w`, and of
/// `ms[k].w`, an item of a slice of models, whose items share one type.
fn field_base(base: &Expr) -> Option<String> {
    let path = match &base.kind {
        ExprKind::Path(path) => path,
        ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
            match &base.kind {
                ExprKind::Path(path) => path,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(path.path.get_ident()?.to_string())
}

pub fn dims_of(expr: &Expr, dims: &HashMap<String, Option<usize>>) -> Option<usize> {
    match &expr.kind {
        ExprKind::Lit(syn::Lit::Float(_)) | ExprKind::NegLit(_) => Some(0),
        ExprKind::Binary { op, .. } if *op != Arith::Rem => Some(0),
        ExprKind::Call { .. } if expr.is_empty_vec() => None,
        ExprKind::Neg { .. }
        | ExprKind::Elementary { .. }
        | ExprKind::Powi { .. }
        | ExprKind::Ternary { .. }
        | ExprKind::Sum { .. }
        | ExprKind::Call { .. } => Some(0),
        ExprKind::Paren(inner) | ExprKind::Dbg { arg: inner, .. } => dims_of(inner, dims),
        // `p.0` of a tuple bound by name (see `dims_block`), `m.w` of a
        // model (see `model_field_dims`).
        ExprKind::Field { base, member } => {
            let name = field_base(base)?;
            let member = match member {
                syn::Member::Unnamed(index) => index.index.to_string(),
                syn::Member::Named(member) => member.to_string(),
            };
            dims.get(&format!("{name}.{member}")).copied()?
        }
        // `i as f64`: a number.
        ExprKind::Cast { ty, .. } if crate::valid::is_f64(ty) => Some(0),
        // A `loop`'s value: its `break`'s.
        ExprKind::Loop { body, .. } => dims_of(break_value(body)?, dims),
        ExprKind::Path(path) if crate::valid::is_f64_constant(&path.path) => Some(0),
        ExprKind::Path(path) => dims.get(&path.path.get_ident()?.to_string()).copied()?,
        ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
            dims_of(base, dims)?.checked_sub(1)
        }
        // `x[1..]`: a part of a slice, as deep as it.
        ExprKind::Index { base, .. } => dims_of(base, dims),
        ExprKind::Repeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => {
            Some(dims_of(elem, dims)? + 1)
        }
        ExprKind::Array(items) | ExprKind::VecList(items) => {
            Some(dims_of(items.first()?, dims)? + 1)
        }
        ExprKind::Structural {
            receiver, method, ..
        } if matches!(method.to_string().as_str(), "clone" | "to_vec") => dims_of(receiver, dims),
        // `fold(0.5, |acc, t| ..)`: shaped like its start.
        ExprKind::Structural { method, args, .. } if *method == "fold" && args.len() == 2 => {
            dims_of(&args[0], dims)
        }
        // `[a, b].concat()`: one level less than its list of parts; an item
        // `pop`ped (`v.pop().unwrap()`) or `remove`d: one less than its `Vec`.
        ExprKind::Structural {
            receiver, method, ..
        } if *method == "concat" => match &receiver.kind {
            // Every part has the same items: any one that shows them.
            ExprKind::Array(parts) | ExprKind::VecList(parts) => {
                parts.iter().find_map(|part| part_dims(part, dims))
            }
            _ => dims_of(receiver, dims)?.checked_sub(1),
        },
        ExprKind::Structural {
            receiver, method, ..
        } if *method == "remove" => dims_of(receiver, dims)?.checked_sub(1),
        ExprKind::Structural {
            receiver, method, ..
        } if *method == "unwrap" => match &receiver.kind {
            ExprKind::Structural {
                receiver: popped,
                method: pop,
                ..
            } if *pop == "pop" => dims_of(popped, dims)?.checked_sub(1),
            _ => None,
        },
        // A value chosen by branches: as its first arm with a known value
        // (another may leave by `return`).
        ExprKind::If {
            then_branch,
            else_branch,
            ..
        } => then_branch
            .split_tail()
            .1
            .and_then(|tail| dims_of(tail, dims))
            .or_else(|| dims_of(else_branch.as_deref()?, dims)),
        ExprKind::Block(None, block) => dims_of(block.split_tail().1?, dims),
        ExprKind::Match { arms, .. } => arms.iter().find_map(|arm| dims_of(&arm.body, dims)),
        _ => None,
    }
}

/// The shape of a part of a `concat` (`&x[1..3]`, `&v`, `v.clone()`,
/// `vec![a, b]`): its slice's.
fn part_dims(part: &Expr, dims: &HashMap<String, Option<usize>>) -> Option<usize> {
    match &part.kind {
        ExprKind::Reference { expr, .. } | ExprKind::Paren(expr) => part_dims(expr, dims),
        ExprKind::Index { base, index } if matches!(index.kind, ExprKind::Range { .. }) => {
            part_dims(base, dims)
        }
        _ => dims_of(part, dims),
    }
}
