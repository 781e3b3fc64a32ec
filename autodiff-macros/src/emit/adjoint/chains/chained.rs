//! `a.iter().chain(b.iter())`, the items of one source after the other's,
//! read as the two loops that walk them: `for v in a.iter().chain(b.iter())
//! { body }` is
//!
//! ```text
//! for v in a.iter() { body }
//! for v in b.iter() { body }
//! ```
//!
//! which runs the body on the same items in the same order. `copied()` or
//! `cloned()` after the `chain` goes onto each half. A chain over it
//! (`w1.iter().chain(w2.iter()).map(|w| w * w).sum()`, an L2 penalty over
//! two layers) becomes such a `for` first (`recognise::source_ok`). Only
//! where each half is a source the sweep's `for` walks, the body cannot
//! leave the loop (a `break` in the first loop would not skip the second)
//! and the loop has no label. An `enumerate` of the whole chain in a `for`
//! counts across both loops ([`for_loops`]); a `zip`, `rev` or `skip` of
//! it, or an `enumerate` in a chain of closures, keeps the `for` as
//! written, which keeps the tape.

use std::collections::HashSet;

use quote::quote;

use super::super::fresh_ident;
use super::recognise::{numbered, place, source_ok, walks_every_item};

/// The two halves of `source`, `a.chain(b)` with any `copied()` or
/// `cloned()` after it put on each (`a.copied()`, `b.copied()`), if both
/// are sources the sweep's `for` walks (`b` also a place, `chain(y)` of a
/// slice).
pub(super) fn halves(source: &syn::Expr) -> Option<(syn::Expr, syn::Expr)> {
    let syn::Expr::MethodCall(call) = crate::lower::unparen(source) else {
        return None;
    };
    match call.method.to_string().as_str() {
        "copied" | "cloned" if call.args.is_empty() => {
            let (a, b) = halves(&call.receiver)?;
            let method = &call.method;
            // `chain(y)` of a slice walks it as `y.iter()` does; `copied()`
            // goes onto that, not onto the slice.
            let walked = |half: syn::Expr| -> syn::Expr {
                if place(&half) {
                    syn::parse_quote!(#half.iter().#method())
                } else {
                    syn::parse_quote!(#half.#method())
                }
            };
            Some((walked(a), walked(b)))
        }
        "chain" if call.args.len() == 1 => {
            let (a, b) = (&*call.receiver, &call.args[0]);
            (source_ok(a) && (source_ok(b) || place(b))).then(|| (a.clone(), b.clone()))
        }
        _ => None,
    }
}

/// The `for` over a chain as two loops, one per half, if it is one this
/// reads. `for (i, v) in a.chain(b).enumerate()` counts the items across
/// both halves by a counter of its own (`idents` takes its name):
///
/// ```text
/// let mut chain_at: usize = 0;
/// for v in a { let i: usize = chain_at; chain_at += 1; body }
/// for v in b { let i: usize = chain_at; chain_at += 1; body }
/// ```
pub(super) fn for_loops(
    for_loop: &syn::ExprForLoop,
    idents: &mut HashSet<String>,
) -> Option<Vec<syn::Stmt>> {
    if !walks_every_item(for_loop) {
        return None;
    }
    let block = &for_loop.body;
    if let Some((a, b)) = halves(&for_loop.expr) {
        let pat = &for_loop.pat;
        let first: syn::Stmt = syn::parse2(quote!(for #pat in #a #block)).ok()?;
        let second: syn::Stmt = syn::parse2(quote!(for #pat in #b #block)).ok()?;
        return Some(vec![first, second]);
    }
    let (source, counter, item) = numbered(for_loop)?;
    let (a, b) = halves(source)?;
    let at = fresh_ident(idents, "chain_at");
    let counted = match counter {
        Some(counter) => quote!({ let #counter: usize = #at; #at += 1; #block }),
        None => quote!({ #at += 1; #block }),
    };
    Some(vec![
        syn::parse2(quote!(let mut #at: usize = 0;)).ok()?,
        syn::parse2(quote!(for #item in #a #counted)).ok()?,
        syn::parse2(quote!(for #item in #b #counted)).ok()?,
    ])
}
