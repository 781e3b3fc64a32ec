//! A companion's `__forward_dual` and `__reverse_dual`: the pair through
//! which dual sweeps call each other (`f_hvp` of a function calling an
//! annotated helper), the `f64` pair's convention on dual numbers (see
//! `src/__adjoint/dual_calls.rs`). A function with a dual sweep runs it in
//! the forward and pushes its gradient, and its reverse pops it scaled; one
//! without (a vector-valued function, a body the dual sweep does not take)
//! has a pair that fails the caller's sweep, whose `f_hvp` then reruns the
//! tape. Every annotated free function has the pair, so that a caller's
//! dual sweep compiles whatever it calls.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::super::Names;
use super::dual::dual_type;
use super::pair::bar_type;
use crate::ast::Function;

/// The two methods, for the companion's `impl`; `dual` when the function
/// has `f_adjoint_dual`.
pub fn methods(function: &Function, names: &Names, dual: bool) -> TokenStream {
    let [stack, args, bars, value_bar] =
        ["stack", "args", "bars", "value_bar"].map(|name| Ident::new(name, Span::mixed_site()));
    let vis = &function.item.vis;
    let generics = &names.generics;
    // A differentiable parameter by reference takes the caller's duals or
    // its plain numbers (`Rows`), lifted in the forward; by value, duals
    // (a plain argument converts, `Arg`).
    let param_types: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| {
            let ty = quote::ToTokens::to_token_stream(&param.ty);
            match (&param.ty, param.kind.is_differentiable()) {
                (syn::Type::Reference(reference), true) => {
                    let referent = quote::ToTokens::to_token_stream(&reference.elem);
                    let duals = dual_type(&referent);
                    quote!(::autodiff::__adjoint::Rows<'_, #duals, #referent>)
                }
                (_, true) => dual_type(&ty),
                (_, false) => ty,
            }
        })
        .collect();
    let bar_types: Vec<TokenStream> = function
        .params
        .iter()
        .map(|param| {
            let ty = dual_type(&bar_type(&param.kind));
            quote!(&mut #ty)
        })
        .collect();
    let dual_stack = quote!(::autodiff::__adjoint::DualStack);
    // Without a dual sweep, the pair takes whatever a caller passes, as
    // the stand-in of a plain function does: it only fails the sweep.
    let not = quote!(::autodiff::__adjoint::NotDifferentiable);
    let (args_type, bars_type) = if dual {
        (quote!((#(#param_types,)*)), quote!((#(#bar_types,)*)))
    } else {
        (not.clone(), not)
    };
    let signatures = quote! {
        fn __forward_dual #generics(
            #stack: &mut #dual_stack,
            #args: ::core::option::Option<#args_type>,
        ) -> ::autodiff::Dual
    };
    let reverse_signature = quote! {
        fn __reverse_dual #generics(
            #stack: &mut #dual_stack,
            #value_bar: ::autodiff::Dual,
            #bars: ::core::option::Option<#bars_type>,
        )
    };
    let (forward_body, reverse_body) = if dual {
        let adjoint_dual = super::dual_adjoint_ident(&format_ident!("{}_adjoint", names.name));
        let params: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
        let adjoints: Vec<_> = function
            .params
            .iter()
            .map(|param| {
                if param.kind.is_differentiable() {
                    let bar =
                        format_ident!("{}_bar", param.ident.unraw(), span = Span::mixed_site());
                    quote!(#bar)
                } else {
                    quote!(_)
                }
            })
            .collect();
        let pops = adjoints
            .iter()
            .rev()
            .filter(|adjoint| adjoint.to_string() != "_")
            .map(|bar| quote!(::autodiff::__adjoint::DualSpread::pop_scaled(#bar, #stack, #value_bar);));
        let lifted = function.params.iter().filter_map(|param| {
            let by_ref = matches!(param.ty, syn::Type::Reference(_));
            (by_ref && param.kind.is_differentiable()).then(|| {
                let ident = &param.ident;
                let storage = format_ident!("{}_storage", ident.unraw(), span = Span::mixed_site());
                quote! {
                    let mut #storage = ::core::option::Option::None;
                    let #ident = #ident.duals(&mut #storage);
                }
            })
        });
        (
            quote! {
                let ::core::option::Option::Some((#(#params,)*)) = #args else {
                    return #stack.failed();
                };
                #(#lifted)*
                ::autodiff::__adjoint::forwarded_dual(#adjoint_dual(#stack, #(#params),*), #stack)
            },
            quote! {
                let ::core::option::Option::Some((#(#adjoints,)*)) = #bars else {
                    return #stack.fail();
                };
                #(#pops)*
            },
        )
    } else {
        (
            quote! {
                let _ = #args;
                #stack.failed()
            },
            quote! {
                let _ = (#value_bar, #bars);
                #stack.fail();
            },
        )
    };
    quote! {
        #[doc(hidden)]
        #[inline]
        #vis #signatures {
            #forward_body
        }
        #[doc(hidden)]
        #[inline]
        #vis #reverse_signature {
            #reverse_body
        }
    }
}
