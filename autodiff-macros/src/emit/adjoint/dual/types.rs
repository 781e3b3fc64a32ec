//! The types and values of the dual sweep's items: a parameter's and the
//! gradient's types on dual numbers (a model's twin, `ModelOnDuals`),
//! where the items holding a model's twin are spanned, and the return of
//! `f_jvp`'s forward-only sweep.

use proc_macro2::{Group, Ident, TokenStream, TokenTree};
use quote::quote;

use crate::ast::{Function, Kind};

/// Where the dual sweep's forward sweep ends, for `f_jvp` (a stack made by
/// `DualStack::forward_only`): the value, whose tangent is the directional
/// derivative, with `unmade` for the gradient (`f_jvp` discards it: empty
/// `Vec`s, or zeros on the stack, made before the adjoints are).
pub fn forward_only(
    stack: &Ident,
    value: &Ident,
    unmade: &TokenStream,
    model: Option<proc_macro2::Span>,
) -> TokenStream {
    let Some(span) = model else {
        return quote! {
            if !#stack.reverses() {
                #stack.observe(#value);
                return #stack.finite().then_some(::autodiff::ValueAndGradient {
                    value: #value,
                    gradient: #unmade,
                });
            }
        };
    };
    // With a model, made where its twin is relocated (`model_span`).
    let made = quote::quote_spanned!(span=> ::autodiff::ValueAndGradient);
    let option = quote::quote_spanned!(span=> ::core::option::Option);
    quote! {
        if !#stack.reverses() {
            #stack.observe(#value);
            if !#stack.finite() {
                return #option::None;
            }
            return #option::Some(#made {
                value: #value,
                gradient: #unmade,
            });
        }
    }
}

/// Where the dual sweep's items that hold a model's twin are spanned: on
/// the first model's type, as every use of the twin is, so that a struct
/// that is not a model stays one error there; else the call site.
pub fn model_span(function: &Function) -> proc_macro2::Span {
    use syn::spanned::Spanned;
    function
        .params
        .iter()
        .find_map(|param| match &param.kind {
            Kind::Struct { ty, .. } => Some(ty.span()),
            _ => None,
        })
        .unwrap_or_else(proc_macro2::Span::call_site)
}

/// `tokens` with every `f64` a `::autodiff::Dual`: a differentiable
/// parameter's type and the gradient's, on dual numbers.
pub fn dual_type(tokens: &TokenStream) -> TokenStream {
    tokens
        .clone()
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) if ident == "f64" => {
                quote!(::autodiff::Dual)
            }
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), dual_type(&group.stream()));
                inner.set_span(group.span());
                TokenStream::from(TokenTree::Group(inner))
            }
            other => TokenStream::from(other),
        })
        .collect()
}

/// The type of `function`'s gradient on dual numbers, what its dual sweep
/// returns: `gradient_type` with every `f64` a `Dual`, a model's its twin
/// (`<Mlp as Parameter>::Duals`).
pub fn dual_gradient_type(function: &Function, gradient_type: &TokenStream) -> TokenStream {
    let differentiable: Vec<&crate::ast::Param> = function
        .params
        .iter()
        .filter(|param| param.kind.is_differentiable())
        .collect();
    let one = |param: &crate::ast::Param| match &param.kind {
        Kind::Struct { ty, .. } => twin_of(ty),
        _ => dual_type(&super::super::super::grad::gradient_type_of(&[param])),
    };
    match differentiable.as_slice() {
        [] => dual_type(gradient_type),
        [single] => one(single),
        _ => {
            let types = differentiable.iter().map(|param| one(param));
            quote!((#(#types,)*))
        }
    }
}

/// A model's twin on dual numbers, named through its type.
pub fn twin_of(ty: &syn::Type) -> TokenStream {
    use syn::spanned::Spanned;
    // Spanned on the type, as the other paths' uses of it are: a struct
    // that is not a model is one error there.
    quote::quote_spanned!(ty.span()=> <#ty as ::autodiff::__private::Parameter>::Duals)
}
