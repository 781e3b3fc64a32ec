//! The attribute's own arguments and the `#[constant]` parameter marker.

use proc_macro2::{Spacing, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::Parser;
use syn::{Attribute, FnArg, ItemFn, Path, Token};

use crate::ctxt::Ctxt;

/// `#[differentiable]` takes one optional argument, `crate = path`, the
/// path the generated code names the `autodiff` crate by (for a project
/// that renamed the dependency); anything else inside the parentheses is a
/// mistake, not an option to ignore.
pub fn check_args(cx: &Ctxt, args: &TokenStream) -> Option<Path> {
    if args.is_empty() {
        return None;
    }
    let starts_with_crate = matches!(
        args.clone().into_iter().next(),
        Some(TokenTree::Ident(ident)) if ident == "crate"
    );
    if starts_with_crate {
        let parser = |input: syn::parse::ParseStream| {
            input.parse::<Token![crate]>()?;
            input.parse::<Token![=]>()?;
            input.parse::<Path>()
        };
        match parser.parse2(args.clone()) {
            Ok(path) => return Some(path),
            Err(_) => cx.error(
                args,
                "#[differentiable(crate = path)] takes a path to the `autodiff` crate, like `crate = ::my_autodiff`",
            ),
        }
    } else {
        cx.error(
            args,
            "#[differentiable] takes no arguments: write `#[differentiable]` (or `#[differentiable(crate = path)]` if the `autodiff` dependency is renamed)",
        );
    }
    None
}

/// `tokens` with every `::autodiff` path start replaced by `path`: the
/// generated code names the crate as `::autodiff` throughout, and a
/// project that renamed the dependency gives its name instead.
pub fn rename_crate(tokens: TokenStream, path: &Path) -> TokenStream {
    rename(tokens, &path.to_token_stream())
}

fn rename(tokens: TokenStream, path: &TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(trees.len());
    let mut i = 0;
    while i < trees.len() {
        if let [TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(name), ..] = &trees[i..]
        {
            let leading = a.as_char() == ':'
                && a.spacing() == Spacing::Joint
                && b.as_char() == ':'
                && name == "autodiff"
                // Not the middle of a longer path, `a::b::autodiff`.
                && !matches!(out.last(), Some(TokenTree::Ident(_)));
            if leading {
                out.extend(path.clone());
                i += 3;
                continue;
            }
        }
        match &trees[i] {
            TokenTree::Group(group) => {
                let mut renamed =
                    proc_macro2::Group::new(group.delimiter(), rename(group.stream(), path));
                renamed.set_span(group.span());
                out.push(TokenTree::Group(renamed));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
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
