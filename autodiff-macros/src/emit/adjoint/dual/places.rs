//! What the dual sweep reads as numbers and rows: a model parameter's
//! places (through its twin), fields of constant data and crate constants
//! beside tracked values, and what a `for` walks (numbers, rows of rows).

use super::super::analysis::carries;

use super::Body;
use crate::ast::{Expr, ExprKind};

/// Whether `expr` is a place in a model parameter, its fields indexed by
/// untracked indices (`model.layers[k].w[j][i]`): the same place in the
/// model's twin on duals.
pub(super) fn model_place(expr: &Expr, an: &Body<'_>) -> bool {
    match &expr.kind {
        ExprKind::Field { base, .. } => {
            model_place(base, an)
                || matches!(&base.kind, ExprKind::Path(path)
                if path.path.get_ident().is_some_and(|name| an.models.contains(&name.to_string())))
        }
        ExprKind::Index { base, index } => {
            !carries(index, &an.active)
                && !matches!(index.kind, ExprKind::Range { .. })
                && model_place(base, an)
        }
        ExprKind::Paren(inner) => model_place(inner, an),
        _ => false,
    }
}

/// A `const` of the crate read where a number goes (`ALPHA * squares`):
/// a name in capitals that the function does not bind, an `f64` in a
/// body the plain twin type-checks.
pub(super) fn named_constant(expr: &Expr, an: &Body<'_>) -> bool {
    matches!(&expr.kind, ExprKind::Path(path) if path.qself.is_none() && path.path.get_ident().is_some_and(|ident| {
        let name = ident.to_string();
        name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && name.chars().all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
            && !an.bound.contains_key(&name)
            && !an.params.contains(&name)
    }))
}

/// A field of constant data (`data[n].y` of a `Sample`), its indices
/// plain, read where a number goes: a number beside a tracked one in a
/// body the plain twin type-checks (an `f64`, as the course's data is).
pub(super) fn data_field(expr: &Expr, an: &Body<'_>) -> bool {
    let mut place = expr;
    let mut field = false;
    loop {
        match &place.kind {
            ExprKind::Field { base, .. } => {
                field = true;
                place = base;
            }
            ExprKind::Index { base, index } => {
                if carries(index, &an.active) || matches!(index.kind, ExprKind::Range { .. }) {
                    return false;
                }
                place = base;
            }
            ExprKind::Paren(inner) => place = inner,
            ExprKind::Path(path) => {
                return field
                    && path.path.get_ident().is_some_and(|name| {
                        let name = name.to_string();
                        !an.active.contains(&name) && !an.models.contains(&name)
                    })
            }
            _ => return false,
        }
    }
}

/// Whether `source`, what a `for` walks, gives numbers (or references
/// to them, or tuples of those with `enumerate`'s index): `x.iter()` or
/// `&x` of a place holding a row of numbers, and `copied`, `cloned`,
/// `enumerate`, `rev`, `step_by`, `skip`, `take` and `zip` of such
/// sources; the loops iterator chains are read as walk these.
pub(super) fn number_items(source: &syn::Expr, an: &Body<'_>) -> bool {
    use syn::Expr as E;
    let untracked = |args: &syn::punctuated::Punctuated<syn::Expr, syn::token::Comma>| {
        args.iter().all(|arg| {
            !crate::text::mentions_any(quote::ToTokens::to_token_stream(arg), &an.active)
        })
    };
    match source {
        E::Paren(paren) => number_items(&paren.expr, an),
        E::Reference(reference) => reference.mutability.is_none() && row(&reference.expr, an),
        // `for wi in w` of a slice of numbers (or a local `Vec` of them,
        // moved).
        E::Path(_) => row(source, an),
        E::MethodCall(call) => {
            let (receiver, args) = (&*call.receiver, &call.args);
            match call.method.to_string().as_str() {
                "iter" => args.is_empty() && row(receiver, an),
                "copied" | "cloned" | "enumerate" | "rev" => {
                    args.is_empty() && number_items(receiver, an)
                }
                "step_by" | "skip" | "take" => {
                    args.len() == 1 && untracked(args) && number_items(receiver, an)
                }
                "zip" => {
                    args.len() == 1
                        && number_items(receiver, an)
                        && (row(&args[0], an) || number_items(&args[0], an))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Whether `source`, a `for`'s, walks the rows of rows of numbers one by
/// one, each a row (`w`, `&w`, `w.iter()`, `&w[1..]`, `.rev()`), with a
/// single name for its item.
pub(super) fn row_items(source: &syn::Expr, an: &Body<'_>) -> bool {
    use syn::Expr as E;
    let rows = |place: &E| of_depth(place, an, 2);
    match source {
        E::Paren(paren) => row_items(&paren.expr, an),
        E::Reference(reference) => reference.mutability.is_none() && rows(&reference.expr),
        E::Path(_) => rows(source),
        E::MethodCall(call) => match call.method.to_string().as_str() {
            "iter" => call.args.is_empty() && rows(&call.receiver),
            "rev" => call.args.is_empty() && row_items(&call.receiver, an),
            _ => false,
        },
        _ => false,
    }
}

/// Whether an iterator chain numbers its items (`.enumerate()`), whose
/// pattern then binds an index beside the numbers.
pub(super) fn enumerates(source: &syn::Expr) -> bool {
    match source {
        syn::Expr::Paren(paren) => enumerates(&paren.expr),
        syn::Expr::MethodCall(call) => {
            call.method == "enumerate"
                || enumerates(&call.receiver)
                || call.args.iter().any(enumerates)
        }
        _ => false,
    }
}

/// Whether `place` (`x`, `w[j]`) holds a row of numbers: a name whose
/// shape has one dimension more than the indices taken of it.
pub(super) fn row(place: &syn::Expr, an: &Body<'_>) -> bool {
    of_depth(place, an, 1)
}

/// Whether `place` holds `depth` dimensions of numbers (1, a row; 2, rows
/// of rows): a name whose shape has `depth` more than the indices taken
/// of it, none of them tracked.
pub(super) fn of_depth(place: &syn::Expr, an: &Body<'_>, depth: usize) -> bool {
    let mut indices = 0;
    let mut at = place;
    loop {
        match at {
            syn::Expr::Paren(paren) => at = &paren.expr,
            syn::Expr::Index(index) => {
                if crate::text::mentions_any(
                    quote::ToTokens::to_token_stream(&index.index),
                    &an.active,
                ) {
                    return false;
                }
                // `x[1..3]`: a part of the row, still a row.
                if !matches!(&*index.index, syn::Expr::Range(_)) {
                    indices += 1;
                }
                at = &index.expr;
            }
            syn::Expr::Path(path) => {
                return path.qself.is_none()
                    && path.path.get_ident().is_some_and(|name| {
                        let name = name.to_string();
                        an.dims.get(&name) == Some(&Some(indices + depth))
                            || (indices + depth == 1 && an.rows.contains(&name))
                    });
            }
            _ => return false,
        }
    }
}

/// What a `for` over a `zip` walks where a side is rows of rows: a data
/// set's rows beside their targets (`xs.iter().zip(ys)`), a layer's rows
/// beside its biases (`w.iter().zip(b)`), two matrices' rows; numbered
/// or not (`.enumerate()`).
pub(super) enum Walk {
    /// Numbers, or references to them.
    Numbers,
    /// Rows of numbers, one by one (`&Vec<f64>`, `&[f64; N]`).
    Rows,
    /// `enumerate`'s index.
    Index,
    Pair(Box<Walk>, Box<Walk>),
}

impl Walk {
    fn has_rows(&self) -> bool {
        match self {
            Walk::Rows => true,
            Walk::Pair(a, b) => a.has_rows() || b.has_rows(),
            Walk::Numbers | Walk::Index => false,
        }
    }
}

/// The items of `source`, a `for`'s, if it zips rows of rows with rows or
/// numbers (see [`Walk`]); `None` for anything else, which
/// [`number_items`] and [`row_items`] read.
pub(super) fn zipped_rows(source: &syn::Expr, an: &Body<'_>) -> Option<Walk> {
    let walk = walk(source, an)?;
    (matches!(walk, Walk::Pair(..)) && walk.has_rows()).then_some(walk)
}

fn walk(source: &syn::Expr, an: &Body<'_>) -> Option<Walk> {
    use syn::Expr as E;
    let place = |place: &E| {
        if of_depth(place, an, 1) {
            Some(Walk::Numbers)
        } else if of_depth(place, an, 2) {
            Some(Walk::Rows)
        } else {
            None
        }
    };
    match source {
        E::Paren(paren) => walk(&paren.expr, an),
        E::Reference(reference) if reference.mutability.is_none() => place(&reference.expr),
        E::Path(_) => place(source),
        E::MethodCall(call) => {
            let (receiver, args) = (&*call.receiver, &call.args);
            match (call.method.to_string().as_str(), args.len()) {
                ("iter", 0) => place(receiver),
                ("rev", 0) => walk(receiver, an),
                ("copied" | "cloned", 0) => {
                    matches!(walk(receiver, an)?, Walk::Numbers).then_some(Walk::Numbers)
                }
                ("enumerate", 0) => Some(Walk::Pair(
                    Box::new(Walk::Index),
                    Box::new(walk(receiver, an)?),
                )),
                ("zip", 1) => Some(Walk::Pair(
                    Box::new(walk(receiver, an)?),
                    Box::new(walk(&args[0], an)?),
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The names `pat` binds to the rows and numbers of `walk` (not the
/// index), each with whether it is a row: `None` unless each leaf of the
/// pattern is one name (or `_`) where the walk gives one item, as `(x, y)`
/// of a `zip` and `(i, (x, y))` of its `enumerate`.
pub(super) fn zipped_names(pat: &syn::Pat, walk: &Walk) -> Option<Vec<(String, bool)>> {
    match (pat, walk) {
        (syn::Pat::Wild(_), _) => Some(Vec::new()),
        (syn::Pat::Paren(paren), _) => zipped_names(&paren.pat, walk),
        (syn::Pat::Ident(ident), Walk::Numbers | Walk::Rows | Walk::Index)
            if ident.subpat.is_none() && ident.by_ref.is_none() && ident.mutability.is_none() =>
        {
            Some(match walk {
                Walk::Index => Vec::new(),
                _ => vec![(ident.ident.to_string(), matches!(walk, Walk::Rows))],
            })
        }
        (syn::Pat::Tuple(tuple), Walk::Pair(first, second)) if tuple.elems.len() == 2 => {
            let mut names = zipped_names(&tuple.elems[0], first)?;
            names.extend(zipped_names(&tuple.elems[1], second)?);
            Some(names)
        }
        _ => None,
    }
}
