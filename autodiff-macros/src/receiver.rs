//! Methods: `#[differentiable]` on `fn f(&self, ..)` inside an `impl`.
//!
//! The receiver becomes an ordinary parameter `__self: &Self` (or `Self`
//! for `self` by value), and every `self` in the body reads `__self`, so
//! the passes after this one see a free function taking the model by
//! reference, which they already differentiate: `Self` is a struct
//! parameter whose shape on the tape is `<Self as Parameter>::Variables`.
//! `emit::method` turns the generated functions back into methods.
//!
//! `&mut self` is an error on its token: a gradient reads the model, and a
//! body that changed it would differentiate a different function each call.

use proc_macro2::{Group, Ident, Span, TokenStream, TokenTree};
use quote::{quote_spanned, ToTokens};
use syn::{FnArg, ItemFn};

/// How the method takes `self`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Taken {
    ByRef,
    ByValue,
}

/// The receiver's parameter name in the rewritten function; `emit::method`
/// recognises the parameter by it.
pub const SELF_PARAM: &str = "__self";

/// `item` with its receiver as a typed parameter and `self` renamed in the
/// body, and how `self` was taken; `Ok(None)` for a free function, `Err`
/// for a receiver that cannot be differentiated.
pub fn rewrite(item: &ItemFn) -> syn::Result<Option<(ItemFn, Taken)>> {
    let Some(FnArg::Receiver(receiver)) = item.sig.inputs.first() else {
        return Ok(None);
    };
    let span = receiver.self_token.span;
    let self_type = Ident::new("Self", span);
    let (taken, ty) = match &receiver.kind {
        syn::ReceiverKind::Reference(_, _, Some(_)) => {
            return Err(syn::Error::new_spanned(
                receiver,
                "#[differentiable] methods take `&self`: a gradient reads the model and cannot change it; update it outside, from the gradient",
            ))
        }
        syn::ReceiverKind::Reference(_, lifetime, None) => {
            (Taken::ByRef, quote_spanned!(span=> &#lifetime #self_type))
        }
        syn::ReceiverKind::Value => (Taken::ByValue, quote_spanned!(span=> #self_type)),
        _ => {
            return Err(syn::Error::new_spanned(
                receiver,
                "#[differentiable] methods take `&self` or `self`, not a typed receiver",
            ))
        }
    };
    let ident = self_ident(span);
    let mutability = receiver.mutability;
    let mut rewritten = item.clone();
    let typed: FnArg = syn::parse2(quote_spanned!(span=> #mutability #ident: #ty))?;
    rewritten.sig.inputs[0] = typed;
    let body = rename_self(item.block.to_token_stream());
    rewritten.block = Box::new(syn::parse2(body)?);
    Ok(Some((rewritten, taken)))
}

/// The parameter that stands for `self`, spanned on the user's `self`.
pub fn self_ident(span: Span) -> Ident {
    Ident::new(SELF_PARAM, span)
}

/// Every `self` value in `tokens` as `__self`, keeping its span; `self::`
/// paths are left alone.
fn rename_self(tokens: TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) if ident == "self" && !starts_path(&tokens[i + 1..]) => {
                out.push(TokenTree::Ident(self_ident(ident.span())));
            }
            TokenTree::Group(group) => {
                let mut renamed = Group::new(group.delimiter(), rename_self(group.stream()));
                renamed.set_span(group.span());
                out.push(TokenTree::Group(renamed));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// Whether the tokens start with `::`.
fn starts_path(rest: &[TokenTree]) -> bool {
    matches!(rest.first(), Some(TokenTree::Punct(p)) if p.as_char() == ':')
}
