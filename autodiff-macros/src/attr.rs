//! The attribute's own arguments and the `#[constant]` parameter marker.

use proc_macro2::TokenStream;
use syn::Attribute;

use crate::ctxt::Ctxt;

/// `#[differentiable]` takes no arguments yet; anything inside the
/// parentheses is a mistake, not an option to ignore.
pub fn check_args(cx: &Ctxt, args: &TokenStream) {
    if !args.is_empty() {
        cx.error(
            args,
            "#[differentiable] takes no arguments: write `#[differentiable]`",
        );
    }
}

/// Whether `attr` is `#[constant]`.
pub fn is_constant(attr: &Attribute) -> bool {
    attr.path().is_ident("constant")
}

/// Removes `#[constant]` from a parameter's attributes, reporting a
/// malformed one; returns whether it was there.
pub fn take_constant(cx: &Ctxt, attrs: &mut Vec<Attribute>) -> bool {
    let mut found = false;
    attrs.retain(|attr| {
        if !is_constant(attr) {
            return true;
        }
        if !matches!(attr.meta, syn::Meta::Path(_)) {
            cx.error(attr, "`#[constant]` takes no arguments");
        }
        found = true;
        false
    });
    found
}
