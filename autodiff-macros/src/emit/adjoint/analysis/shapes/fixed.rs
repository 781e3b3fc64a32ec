//! The bindings that hold a `Vec` (what a chain's `collect()` assigned to
//! them builds) and those whose rows all have one shape, fixed by their
//! type.

use std::collections::{HashMap, HashSet};

use super::{dims_of, let_inits};
use crate::ast::{Expr, ExprKind, Function, Kind};

/// The names bound once, by a `let`, to a `Vec` the body shows
/// (`x.to_vec()`, `Vec::new()`, `Vec::with_capacity(n)`, `vec![..]`, a
/// `Vec` type, a `clone()` of one of these): what a chain's `collect()`
/// assigned to them builds (`chains`).
pub fn vec_bindings(function: &Function, bound: &HashMap<String, usize>) -> HashSet<String> {
    // Each `let`: whether it shows a `Vec`, and the name it clones.
    let mut lets: Vec<(String, bool, Option<String>)> = Vec::new();
    let_inits(&function.body, &mut |name, init, pat| {
        let typed = matches!(pat.syntax, syn::Pat::Type(typed) if super::super::super::chains::is_vec(&typed.ty));
        let shows_vec = typed
            || init.is_empty_vec()
            || matches!(init.kind, ExprKind::VecList(_) | ExprKind::VecRepeat { .. })
            || matches!(&init.kind, ExprKind::Structural { method, args, .. }
                if *method == "to_vec" && args.is_empty());
        let cloned = match &init.kind {
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if *method == "clone" && args.is_empty() => match &receiver.kind {
                ExprKind::Path(path) => path.path.get_ident().map(ToString::to_string),
                _ => None,
            },
            _ => None,
        };
        lets.push((name.to_owned(), shows_vec, cloned));
    });
    let once = |name: &String| bound.get(name).copied() == Some(1);
    let mut vecs: HashSet<String> = lets
        .iter()
        .filter(|(name, shows_vec, _)| *shows_vec && once(name))
        .map(|(name, ..)| name.clone())
        .collect();
    // `let mut y = z.clone();` of such a `Vec`, and of those in turn.
    loop {
        let more: Vec<String> = lets
            .iter()
            .filter(|(name, _, cloned)| {
                !vecs.contains(name)
                    && once(name)
                    && cloned.as_ref().is_some_and(|of| vecs.contains(of))
            })
            .map(|(name, ..)| name.clone())
            .collect();
        if more.is_empty() {
            return vecs;
        }
        vecs.extend(more);
    }
}

/// Whether every value of type `ty` has one shape, fixed by the type: an
/// `f64`, or an array of such values (`[[f64; 3]; 3]`).
fn fixed_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Paren(paren) => fixed_type(&paren.elem),
        syn::Type::Group(group) => fixed_type(&group.elem),
        syn::Type::Array(array) => fixed_type(&array.elem),
        _ => crate::valid::is_f64(ty),
    }
}

/// Whether `kind`'s values have one shape, fixed by the type.
fn fixed_kind(kind: &Kind) -> bool {
    match kind {
        Kind::Scalar => true,
        Kind::Array(elem, _) => fixed_kind(elem),
        _ => false,
    }
}

/// Whether `expr` is an array written out whose every part is one too, or
/// a number (`[[0.0; 3]; 3]`, `[[a, b], [c, d]]`): its rows share the
/// shape its type fixes.
fn fixed_literal(expr: &Expr, dims: &HashMap<String, Option<usize>>) -> bool {
    match &expr.unparenthesised().kind {
        ExprKind::Array(items) => {
            items.iter().all(|item| fixed_literal(item, dims))
                || items.iter().all(|item| dims_of(item, dims) == Some(0))
        }
        ExprKind::Repeat { elem, .. } => {
            fixed_literal(elem, dims) || dims_of(elem, dims) == Some(0)
        }
        _ => false,
    }
}

/// The bindings whose rows all have one shape, fixed by their type (see
/// [`Analysis::fixed_rows`](super::super::Analysis::fixed_rows)): parameters
/// that are arrays, slices or `Vec`s of numbers or of arrays of them, and
/// locals every binding of which is such an array written out, a copy of
/// such a binding (`m = a`, `a.clone()`, `a.to_vec()`), or typed as such
/// an array.
pub(crate) fn fixed_rows(
    function: &Function,
    bound: &HashMap<String, usize>,
    dims: &HashMap<String, Option<usize>>,
) -> HashSet<String> {
    let mut fixed: HashSet<String> = function
        .params
        .iter()
        .filter(|param| match &param.kind {
            Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => fixed_kind(elem),
            _ => false,
        })
        .map(|param| param.ident.to_string())
        .collect();
    loop {
        let mut lets: HashMap<String, (usize, usize)> = HashMap::new();
        let_inits(&function.body, &mut |name, init, pat| {
            let copy_of = |expr: &Expr| match &expr.unparenthesised().kind {
                ExprKind::Path(path) => path
                    .path
                    .get_ident()
                    .is_some_and(|ident| fixed.contains(&ident.to_string())),
                _ => false,
            };
            let typed = matches!(pat.syntax, syn::Pat::Type(typed)
                if matches!(&*typed.ty, syn::Type::Array(_)) && fixed_type(&typed.ty));
            let fixed_init = typed
                || fixed_literal(init, dims)
                || copy_of(init)
                || matches!(&init.unparenthesised().kind, ExprKind::Structural {
                    receiver, method, args, ..
                } if (*method == "clone" || *method == "to_vec") && args.is_empty() && copy_of(receiver));
            let entry = lets.entry(name.to_string()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(fixed_init);
        });
        let before = fixed.len();
        for (name, (count, fixed_count)) in lets {
            if count == fixed_count && bound.get(&name).copied() == Some(count) {
                fixed.insert(name);
            }
        }
        if fixed.len() == before {
            return fixed;
        }
    }
}
