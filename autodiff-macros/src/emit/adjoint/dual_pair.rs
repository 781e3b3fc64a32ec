//! A companion's `__forward_dual` and `__reverse_dual`: the pair through
//! which dual sweeps call each other (`f_hvp` of a function calling an
//! annotated helper), the `f64` pair's convention on dual numbers (see
//! `src/__adjoint/dual_calls.rs`). A function with a dual sweep runs it in
//! the forward and pushes its gradient, and its reverse pops it scaled. A
//! free function without one (a vector-valued function, a body the dual
//! sweep does not take) has none written out: a caller's dual sweep finds
//! the runtime's `NoDualSweep`, which every type has and which fails the
//! caller's sweep, whose `f_hvp` then reruns the tape. A method without
//! one has a pair that fails the same way (its pair is named for it).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::super::Names;
use super::dual::{dual_type, twin_of};
use super::pair::bar_type;
use crate::ast::Function;

/// The two methods, for the companion's `impl`; `dual` when the function
/// has `f_adjoint_dual`, else none (the runtime's `NoDualSweep`).
pub fn methods(function: &Function, names: &Names, dual: bool) -> TokenStream {
    if !dual {
        return TokenStream::new();
    }
    let [forward, reverse] =
        ["__forward_dual", "__reverse_dual"].map(|name| Ident::new(name, Span::call_site()));
    pair(function, names, dual, &forward, &reverse, true)
}

/// A method's pair, `f_forward_dual` and `f_reverse_dual`: associated
/// functions of the model's type (`<Mlp>::score_forward_dual`), the
/// receiver the first of their arguments, which a caller's dual sweep
/// calls where it calls the method on a model parameter (it reads the
/// model through its twin, so the twin is not what finds the method).
pub fn method_pair(function: &Function, names: &Names, dual: bool) -> TokenStream {
    let name = names.name.unraw();
    let [forward, reverse] = [
        format_ident!("{}_forward_dual", name),
        format_ident!("{}_reverse_dual", name),
    ];
    pair(function, names, dual, &forward, &reverse, false)
}

/// `free`: a free function's companion pair, whose dual sweep is named as
/// it is (a method's or an associated function's is a `Self::` path,
/// which `emit::method` writes only at a call).
fn pair(
    function: &Function,
    names: &Names,
    dual: bool,
    forward_name: &Ident,
    reverse_name: &Ident,
    free: bool,
) -> TokenStream {
    // With a model, its twin's bindings are spanned on the model's type
    // (no student code shares these bodies).
    let span = function
        .params
        .iter()
        .find_map(|param| match &param.kind {
            crate::ast::Kind::Struct { ty, .. } => Some(syn::spanned::Spanned::span(ty)),
            _ => None,
        })
        .unwrap_or_else(Span::mixed_site);
    // Spanned there, so not hygienic: named apart from the parameters
    // (a `stack: f64` beside a model).
    let [stack, args, bars, value_bar] = ["stack", "args", "bars", "value_bar"]
        .map(|name| Ident::new(&unclaimed(name, &function.params), span));
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
            if let crate::ast::Kind::Struct { ty, .. } = &param.kind {
                // A model: the caller's twin on duals (a caller on duals
                // reads its models through theirs).
                let twin = twin_of(ty);
                return quote::quote_spanned!(syn::spanned::Spanned::span(ty)=> &#twin);
            }
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
        .map(|param| match &param.kind {
            crate::ast::Kind::Struct { ty, .. } => {
                let twin = twin_of(ty);
                quote::quote_spanned!(syn::spanned::Spanned::span(ty)=> &mut #twin)
            }
            kind => {
                let ty = dual_type(&bar_type(kind));
                quote!(&mut #ty)
            }
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
        fn #forward_name #generics(
            #stack: &mut #dual_stack,
            #args: ::core::option::Option<#args_type>,
        ) -> ::autodiff::Dual
    };
    let reverse_signature = quote! {
        fn #reverse_name #generics(
            #stack: &mut #dual_stack,
            #value_bar: ::autodiff::Dual,
            #bars: ::core::option::Option<#bars_type>,
        )
    };
    let (forward_body, reverse_body) = if dual {
        let mut adjoint_dual = super::dual_adjoint_ident(&format_ident!("{}_adjoint", names.name));
        // A model's bindings are spanned on its type, as every use of its
        // twin is: a struct that is not a model is then one error there.
        let model_span = |param: &crate::ast::Param| match &param.kind {
            crate::ast::Kind::Struct { ty, .. } => Some(syn::spanned::Spanned::span(ty)),
            _ => None,
        };
        let params: Vec<_> = function
            .params
            .iter()
            .map(|param| {
                let mut ident = param.ident.clone();
                if let Some(span) = model_span(param) {
                    ident.set_span(span);
                }
                ident
            })
            .collect();
        if let Some(span) = function.params.iter().find_map(model_span) {
            adjoint_dual.set_span(span);
        }
        let adjoints: Vec<_> = function
            .params
            .iter()
            .map(|param| {
                if param.kind.is_differentiable() {
                    let span = model_span(param).unwrap_or_else(Span::mixed_site);
                    let bar = super::pair::param_bar(&param.ident, span);
                    quote!(#bar)
                } else {
                    quote!(_)
                }
            })
            .collect();
        // A model's part of the gradient pushed and popped through its
        // own type, spanned there (see `model_span`).
        let spread = |param: &crate::ast::Param, method: &str| -> TokenStream {
            let method = Ident::new(method, Span::call_site());
            match &param.kind {
                crate::ast::Kind::Struct { ty, .. } => {
                    let span = syn::spanned::Spanned::span(ty);
                    let method = Ident::new(
                        if method == "push_all" {
                            "push_duals"
                        } else {
                            "pop_duals"
                        },
                        span,
                    );
                    quote::quote_spanned!(span=> <#ty as ::autodiff::__private::Parameter>::#method)
                }
                _ => quote!(::autodiff::__adjoint::DualSpread::#method),
            }
        };
        let pops = function
            .params
            .iter()
            .zip(&adjoints)
            .rev()
            .filter(|(_, adjoint)| adjoint.to_string() != "_")
            .map(|(param, bar)| {
                let pop = spread(param, "pop_scaled");
                quote!(#pop(#bar, #stack, #value_bar);)
            });
        let models = function
            .params
            .iter()
            .any(|param| model_span(param).is_some());
        // Spanned where a model's twin is, as every use of it.
        let option = match function.params.iter().find_map(model_span) {
            Some(span) => quote::quote_spanned!(span=> ::core::option::Option),
            None => quote!(::core::option::Option),
        };
        let result = Ident::new(
            &unclaimed("result", &function.params),
            function
                .params
                .iter()
                .find_map(model_span)
                .unwrap_or_else(Span::mixed_site),
        );
        let differentiable: Vec<_> = function
            .params
            .iter()
            .filter(|param| param.kind.is_differentiable())
            .collect();
        let pushes = differentiable.iter().enumerate().map(|(i, param)| {
            let push = spread(param, "push_all");
            let part = if differentiable.len() == 1 {
                quote!(#result.gradient)
            } else {
                let index = syn::Index::from(i);
                quote!(#result.gradient.#index)
            };
            quote!(#push(&#part, #stack);)
        });
        let forwarded = if models {
            quote! {
                match #adjoint_dual(#stack, #(#params),*) {
                    #option::Some(#result) => {
                        #(#pushes)*
                        #result.value
                    }
                    ::core::option::Option::None => #stack.failed(),
                }
            }
        } else {
            quote!(::autodiff::__adjoint::forwarded_dual(#adjoint_dual(#stack, #(#params),*), #stack))
        };
        let lifted = function.params.iter().filter_map(|param| {
            let by_ref = matches!(param.ty, syn::Type::Reference(_));
            let model = matches!(param.kind, crate::ast::Kind::Struct { .. });
            (by_ref && !model && param.kind.is_differentiable()).then(|| {
                let ident = &param.ident;
                let storage = format_ident!("{}_storage", ident.unraw(), span = Span::mixed_site());
                quote! {
                    let mut #storage = ::core::option::Option::None;
                    let #ident = #ident.duals(&mut #storage);
                }
            })
        });
        // Every parameter differentiable and none a model: the runtime
        // pops them all (`__adjoint::pop_all_scaled`).
        let reverse = if !models
            && function.params.len() <= 6
            && function
                .params
                .iter()
                .all(|param| param.kind.is_differentiable())
        {
            quote!(::autodiff::__adjoint::pop_all_scaled(#stack, #value_bar, #bars);)
        } else {
            quote! {
                let #option::Some((#(#adjoints,)*)) = #bars else {
                    return #stack.fail();
                };
                #(#pops)*
            }
        };
        let lifted: Vec<TokenStream> = lifted.collect();
        // No argument lifted here and none a model: the runtime runs the
        // dual sweep on the caller's arguments (`__adjoint::forward_with`).
        let forward = if free
            && !models
            && lifted.is_empty()
            && generics.is_empty()
            && !function.params.is_empty()
            && function.params.len() <= 6
        {
            quote!(::autodiff::__adjoint::forward_with(#stack, #args, #adjoint_dual))
        } else {
            quote! {
                let #option::Some((#(#params,)*)) = #args else {
                    return #stack.failed();
                };
                #(#lifted)*
                #forwarded
            }
        };
        (forward, reverse)
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
    // Relocated below, onto a model's type: lints would read them as the
    // student's code.
    let model = dual
        && function
            .params
            .iter()
            .any(|param| matches!(param.kind, crate::ast::Kind::Struct { .. }));
    let allow = model.then(|| quote!(#[allow(unused, clippy::all, clippy::pedantic)]));
    let items = quote! {
        #[doc(hidden)]
        #[inline]
        #allow
        #vis #signatures {
            #forward_body
        }
        #[doc(hidden)]
        #[inline]
        #allow
        #vis #reverse_signature {
            #reverse_body
        }
    };
    // A model's twin is spanned on the model's type (`text::relocate`).
    match function.params.iter().find_map(|param| match &param.kind {
        crate::ast::Kind::Struct { ty, .. } if dual => Some(syn::spanned::Spanned::span(ty)),
        _ => None,
    }) {
        Some(span) => crate::text::relocate(items, span),
        None => items,
    }
}

/// `base`, or `base_2`, `base_3`, ...: the first that is not the name of a
/// parameter or of a parameter's adjoint (`param_bar`), for a binding of
/// generated code spanned where a student's name would see it (a model's
/// type, where the model's errors are reported once).
pub(crate) fn unclaimed(base: &str, params: &[crate::ast::Param]) -> String {
    let claimed = |name: &str| {
        params.iter().any(|param| {
            let own = param.ident.unraw().to_string();
            own == name || super::pair::param_bar(&param.ident, Span::call_site()) == name
        })
    };
    let mut name = base.to_owned();
    let mut n = 1;
    while claimed(&name) {
        n += 1;
        name = format!("{base}_{n}");
    }
    name
}
