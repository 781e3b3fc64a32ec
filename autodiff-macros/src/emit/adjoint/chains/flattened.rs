//! `w.iter().flatten()` of a place holding rows (`w: &[Vec<f64>]`, a
//! model's matrix), the items of every row in order, read as the two
//! loops that walk them: `for v in w.iter().flatten() { body }` is
//!
//! ```text
//! for row in w.iter() {
//!     for v in row.iter() { body }
//! }
//! ```
//!
//! which binds the same items (`&f64`) in the same order; so is
//! `w.iter().flat_map(|r| r.iter())`. A chain over it
//! (`w.iter().flatten().map(|v| v * v).sum()`, an L2 penalty) becomes
//! such a `for` first (`recognise::source_ok`). Only where the body
//! cannot leave the loop (`break` and `continue` would then leave the
//! inner one only) and the loop has no label.

use std::collections::HashSet;

use quote::quote;

use super::super::fresh_ident;
use super::recognise::{closure_inputs, place, walks_every_item};

/// `w` if `source` is `w.iter().flatten()` of a place `w` (or
/// `w.iter().flat_map(|r| r.iter())`, the same items).
pub(super) fn rows_flattened(source: &syn::Expr) -> Option<&syn::Expr> {
    let syn::Expr::MethodCall(flatten) = crate::lower::unparen(source) else {
        return None;
    };
    let each_row = || {
        let [syn::Expr::Closure(closure)] = flatten.args.iter().collect::<Vec<_>>()[..] else {
            return false;
        };
        let Some([syn::Pat::Ident(row)]) = closure_inputs::<1>(closure) else {
            return false;
        };
        matches!(crate::lower::unparen(&closure.body), syn::Expr::MethodCall(iter)
            if iter.method == "iter"
                && iter.args.is_empty()
                && matches!(crate::lower::unparen(&iter.receiver), syn::Expr::Path(path)
                    if path.path.is_ident(&row.ident)))
    };
    let flat = match flatten.method.to_string().as_str() {
        "flatten" => flatten.args.is_empty(),
        "flat_map" => each_row(),
        _ => false,
    };
    if !flat {
        return None;
    }
    let syn::Expr::MethodCall(iter) = crate::lower::unparen(&flatten.receiver) else {
        return None;
    };
    (iter.method == "iter" && iter.args.is_empty() && place(&iter.receiver))
        .then_some(&*iter.receiver)
}

/// The `for` over `w.iter().flatten()` as two nested loops, if it is one
/// this reads.
pub(super) fn for_loop(
    for_loop: &syn::ExprForLoop,
    idents: &mut HashSet<String>,
) -> Option<syn::ExprForLoop> {
    let rows = rows_flattened(&for_loop.expr)?;
    if !walks_every_item(for_loop) {
        return None;
    }
    let row = fresh_ident(idents, "row");
    let (pat, block) = (&for_loop.pat, &for_loop.body);
    syn::parse2(quote! {
        for #row in #rows.iter() {
            for #pat in #row.iter() #block
        }
    })
    .ok()
}
