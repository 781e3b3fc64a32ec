//! The attribute's own arguments and the `#[constant]` parameter marker.

use proc_macro2::TokenStream;
use syn::{Attribute, FnArg, ItemFn};

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

/// The function without its `#[constant]` markers, which only this macro
/// understands: the plain twin, and what a rejected function expands to.
pub fn without_constant_markers(item: &ItemFn) -> ItemFn {
    let mut item = item.clone();
    for input in &mut item.sig.inputs {
        if let FnArg::Typed(typed) = input {
            typed.attrs.retain(|attr| !is_constant(attr));
        }
    }
    item
}
