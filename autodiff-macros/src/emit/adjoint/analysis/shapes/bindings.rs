//! The shapes of a block's bindings: from the parameters' kinds, each
//! `let`'s value or type, the pushes onto a `Vec` bound empty, and, for a
//! `let y;`, its assignments.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;

use super::{dims_of, let_inits};
use crate::ast::{Block, Child, Expr, ExprKind, Kind, Stmt};

pub(crate) fn copy_array(kind: &Kind) -> bool {
    match kind {
        Kind::Array(elem, _) => matches!(**elem, Kind::Scalar) || copy_array(elem),
        _ => false,
    }
}

pub(crate) fn kind_dims(kind: &Kind) -> Option<usize> {
    match kind {
        Kind::Scalar => Some(0),
        Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => Some(kind_dims(elem)? + 1),
        Kind::Struct { .. } | Kind::PassThrough => None,
    }
}

/// The value of the first `break` in `block` that ends the loop whose
/// body it is (one inside a nested loop ends that loop).
pub(super) fn break_value<'m, 'a>(block: &'m Block<'a>) -> Option<&'m Expr<'a>> {
    breaks(block).into_iter().find_map(|exit| match &exit.kind {
        ExprKind::Break {
            value: Some(value), ..
        } => Some(&**value),
        _ => None,
    })
}

/// The `break`s with a value in `block` that end the loop whose body it
/// is, in order (one inside a nested loop ends that loop).
pub(super) fn breaks<'m, 'a>(block: &'m Block<'a>) -> Vec<&'m Expr<'a>> {
    fn in_expr<'m, 'a>(expr: &'m Expr<'a>, found: &mut Vec<&'m Expr<'a>>) {
        match &expr.kind {
            ExprKind::Break { value: Some(_), .. } => found.push(expr),
            ExprKind::Loop { .. } | ExprKind::While { .. } | ExprKind::For { .. } => {}
            _ => {
                for child in expr.children() {
                    match child {
                        Child::Expr(child) => in_expr(child, found),
                        Child::Block(block) => found.extend(breaks(block)),
                    }
                }
            }
        }
    }
    let mut found = Vec::new();
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                init: Some(init), ..
            }
            | Stmt::Expr(init, _) => in_expr(init, &mut found),
            _ => {}
        }
    }
    found
}

/// The shapes of the bindings of `block` and the blocks inside it, into
/// `dims`; a `let` of a name in `grown` (a `Vec` bound empty, see
/// [`grown_dims`], or a vector call's binding, see `calls`) keeps the
/// shape `dims` already has for it.
pub(crate) fn dims_block(
    block: &Block,
    dims: &mut HashMap<String, Option<usize>>,
    grown: &HashSet<String>,
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                pat,
                name: Some(name),
                init: Some(init),
                ..
            } => {
                // The value's own blocks first: a `loop`'s value is its
                // `break`'s, which may name a `let` inside it (`let y =
                // loop { let if_value = ..; break if_value; };`).
                dims_expr(init, dims, grown);
                if grown.contains(name) {
                    dims.entry(name.clone()).or_insert(None);
                    continue;
                }
                // A type on the `let` says it where the value does not
                // (`let mut v: Vec<f64> = Vec::new();`, which a typed
                // `collect` is read as).
                let found = dims_of(init, dims).or_else(|| pattern_dims(pat.syntax));
                // A tuple's components (`let p = (a, b);`), read as `p.0`.
                let components: Vec<Option<usize>> = match &init.kind {
                    ExprKind::Tuple(items) => {
                        items.iter().map(|item| dims_of(item, dims)).collect()
                    }
                    _ => Vec::new(),
                };
                for (key, found) in std::iter::once((name.clone(), found)).chain(
                    components
                        .into_iter()
                        .enumerate()
                        .map(|(k, found)| (format!("{name}.{k}"), found)),
                ) {
                    dims.entry(key)
                        .and_modify(|known| {
                            if *known != found {
                                *known = None;
                            }
                        })
                        .or_insert(found);
                }
            }
            // `let y;`: shaped by its assignments (see `Analysis::new`).
            Stmt::Let {
                name: Some(name),
                init: None,
                ..
            } => {
                dims.entry(name.clone()).or_insert(None);
            }
            Stmt::Let { pat, init, .. } => {
                for name in &pat.names {
                    dims.insert(name.clone(), None);
                }
                if let Some(init) = init {
                    dims_expr(init, dims, grown);
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => dims_expr(expr, dims, grown),
        }
    }
}

fn dims_expr(expr: &Expr, dims: &mut HashMap<String, Option<usize>>, grown: &HashSet<String>) {
    if let ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } = &expr.kind {
        for name in &pat.names {
            dims.insert(name.clone(), None);
        }
    }
    // `for item in a.iter().cloned()` (or `.copied()`, after `rev`,
    // `skip`, ..) of a place of known shape: its items' (what a `collect`
    // is read as, `v.push(item)`).
    if let ExprKind::For { pat, iter, .. } = &expr.kind {
        if let (syn::Pat::Ident(ident), Some(items)) = (pat.syntax, copied_items(iter, dims)) {
            if ident.by_ref.is_none() && ident.subpat.is_none() {
                dims.insert(ident.ident.to_string(), Some(items));
            }
        }
        // `for &v in x` (or `x.iter()`, `&x`, with `rev`, `skip`, ..): the
        // item taken out of its reference, a number of a row of numbers.
        if let syn::Pat::Reference(reference) = pat.syntax {
            if let (syn::Pat::Ident(ident), Some(items)) =
                (&*reference.pat, referenced_items(iter, dims))
            {
                if ident.by_ref.is_none() && ident.subpat.is_none() {
                    dims.insert(ident.ident.to_string(), Some(items));
                }
            }
        }
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => dims_expr(child, dims, grown),
            Child::Block(block) => dims_block(block, dims, grown),
        }
    }
}

/// The shape of the items `iter` copies out of a place: `a.iter().copied()`
/// (`cloned()`, with `rev`, `skip(k)`, `take(k)`, `step_by(k)` between) of
/// an `a` of known shape, one index less; `None` for anything else.
fn copied_items(iter: &Expr, dims: &HashMap<String, Option<usize>>) -> Option<usize> {
    let ExprKind::Structural {
        receiver, method, ..
    } = &iter.unparenthesised().kind
    else {
        return None;
    };
    if !matches!(method.to_string().as_str(), "copied" | "cloned") {
        return None;
    }
    let mut source = &**receiver;
    loop {
        let ExprKind::Structural {
            receiver, method, ..
        } = &source.kind
        else {
            return None;
        };
        match method.to_string().as_str() {
            "rev" | "skip" | "take" | "step_by" => source = receiver,
            "iter" => return dims_of(receiver, dims)?.checked_sub(1),
            _ => return None,
        }
    }
}

/// The shape of the items `iter` hands out by reference: `a`, `&a` or
/// `a.iter()` (with `rev`, `skip(k)`, `take(k)`, `step_by(k)` after) of an
/// `a` of known shape, one index less; `None` for anything else.
fn referenced_items(iter: &Expr, dims: &HashMap<String, Option<usize>>) -> Option<usize> {
    let mut source = iter.unparenthesised();
    loop {
        match &source.kind {
            ExprKind::Structural {
                receiver, method, ..
            } => match method.to_string().as_str() {
                "rev" | "skip" | "take" | "step_by" => source = receiver,
                "iter" => return dims_of(receiver, dims)?.checked_sub(1),
                _ => return None,
            },
            ExprKind::Reference {
                mutability: None,
                expr,
            } => return dims_of(expr, dims)?.checked_sub(1),
            ExprKind::Path(_) => return dims_of(source, dims)?.checked_sub(1),
            _ => return None,
        }
    }
}

/// The shape of each `Vec` a `let` binds empty (`Vec::new()`, `vec![]`)
/// from what is pushed onto it: one more than its items', where every
/// push that shows one agrees (`v.push(v[0])`, one of its own items, shows
/// none). Only names in `empty`.
pub(crate) fn grown_dims(
    body: &Block,
    dims: &HashMap<String, Option<usize>>,
    empty: &HashSet<String>,
) -> HashMap<String, Option<usize>> {
    let found = std::cell::RefCell::new(HashMap::new());
    super::for_each_push(body, &|name, item| {
        if !empty.contains(name) {
            return;
        }
        let mut shape = dims_of(item, dims).map(|d| d + 1);
        // A call's value pushed (`qs.push(twice(x))`) onto a `Vec` the
        // body reads deeper (`qs[c][j]`): a vector call's, whose rows are
        // as deep as the reads show (a number's would not index).
        if matches!(item.unparenthesised().kind, ExprKind::Call { .. }) {
            let read = super::super::calls::index_depth(&body.stmts, name);
            if read > 1 {
                shape = Some(read);
            }
        }
        if shape.is_none() && crate::text::mentions(item.source.to_token_stream(), name) {
            return;
        }
        found
            .borrow_mut()
            .entry(name.to_owned())
            .and_modify(|known: &mut Option<usize>| {
                if *known != shape {
                    *known = None;
                }
            })
            .or_insert(shape);
    });
    found.into_inner()
}

/// The names `let`s bind to an empty `Vec` (`Vec::new()`, `vec![]`,
/// `Vec::with_capacity(n)`) in `block` and the blocks inside it.
pub(crate) fn empty_vec_lets(block: &Block, out: &mut HashSet<String>) {
    let_inits(block, &mut |name, init, _| {
        if init.is_empty_vec() {
            out.insert(name.to_owned());
        }
    });
}

/// The names of the `let`s without a value (`let y;`) in `block` and the
/// blocks inside it.
pub(crate) fn deferred_lets(block: &Block, out: &mut Vec<String>) {
    fn expr_lets(expr: &Expr, out: &mut Vec<String>) {
        for child in expr.children() {
            match child {
                Child::Expr(child) => expr_lets(child, out),
                Child::Block(block) => deferred_lets(block, out),
            }
        }
    }
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                name: Some(name),
                init: None,
                ..
            } => out.push(name.clone()),
            Stmt::Let {
                init: Some(init), ..
            } => expr_lets(init, out),
            Stmt::Expr(expr, _) => expr_lets(expr, out),
            _ => {}
        }
    }
}

/// `Analysis::assigned`, given the bindings' `dims`.
pub(crate) fn assigned_dims(
    body: &Block,
    dims: &HashMap<String, Option<usize>>,
) -> HashMap<String, Option<usize>> {
    let assigned = std::cell::RefCell::new(HashMap::new());
    body.any_expr(&|expr| {
        if let ExprKind::Assign { target, value } = &expr.kind {
            if let ExprKind::Path(path) = &target.kind {
                if let Some(ident) = path.path.get_ident() {
                    let found = dims_of(value, dims);
                    assigned
                        .borrow_mut()
                        .entry(ident.to_string())
                        .and_modify(|known: &mut Option<usize>| {
                            if *known != found {
                                *known = None;
                            }
                        })
                        .or_insert(found);
                }
            }
        }
        false
    });
    assigned.into_inner()
}

/// How many indexings take a value of the type a `let` pattern names to
/// an `f64` (`f64`, `Vec<f64>`, `[[f64; 2]; 3]`, ...), if it names one.
fn pattern_dims(pat: &syn::Pat) -> Option<usize> {
    match pat {
        syn::Pat::Type(typed) => type_dims(&typed.ty),
        _ => None,
    }
}

/// How many indexings take a value of type `ty` to an `f64`: `f64`, and
/// arrays and `Vec`s of it, nested; `None` for any other type.
pub(crate) fn type_dims(ty: &syn::Type) -> Option<usize> {
    match ty {
        syn::Type::Paren(paren) => type_dims(&paren.elem),
        syn::Type::Group(group) => type_dims(&group.elem),
        syn::Type::Array(array) => Some(type_dims(&array.elem)? + 1),
        syn::Type::Path(path) if path.qself.is_none() => {
            if crate::valid::is_f64(ty) {
                return Some(0);
            }
            let segment = path.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                return None;
            };
            match args.args.first()? {
                syn::GenericArgument::Type(elem)
                    if segment.ident == "Vec" && args.args.len() == 1 =>
                {
                    Some(type_dims(elem)? + 1)
                }
                _ => None,
            }
        }
        _ => None,
    }
}
