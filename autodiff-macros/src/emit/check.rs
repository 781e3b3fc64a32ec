//! The gradient checks: `f_check` with the default step and tolerance, and
//! `f_check_with`, which compares `f_grad` with central differences of the
//! plain twin in every component.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::{differentiable, user_params, Names};
use crate::ast::{Function, Kind, Param};

pub(super) fn items(function: &Function, names: &Names) -> TokenStream {
    let Names {
        name,
        grad_fn,
        check_fn,
        check_with_fn,
        attrs,
        generics,
        ..
    } = names;
    let vis = &function.item.vis;
    let differentiable = differentiable(function);
    let user_params = user_params(function);
    let step = Ident::new("step", Span::mixed_site());
    let tolerance = Ident::new("tolerance", Span::mixed_site());
    let inputs = Ident::new("inputs", Span::mixed_site());
    let analytic = Ident::new("analytic", Span::mixed_site());
    let reverse = Ident::new("reverse", Span::mixed_site());
    let error = Ident::new("error", Span::mixed_site());
    let point = Ident::new("point", Span::mixed_site());
    let rest = Ident::new("rest", Span::mixed_site());
    let arg_names: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
    let dup_args = arg_names.iter().map(|ident| quote!(__ad::dup(&#ident)));
    let components = components(&differentiable, &inputs);
    let analytic_components = differentiable.iter().enumerate().map(|(i, param)| {
        let ident = &param.ident;
        let field = if differentiable.len() == 1 {
            quote!()
        } else {
            let index = syn::Index::from(i);
            quote!(.#index)
        };
        match &param.kind {
            // A model's gradient is a model, listed as its components are:
            // by its own type, with nothing to normalise (see `grad`).
            Kind::Struct { ty, .. } => quote_spanned!(ty.span()=>
                <#ty as __ad::Parameter>::components(&#reverse.gradient #field, &mut #analytic);
            ),
            _ => quote!(__ad::gradient_components(&#ident, &#reverse.gradient #field, &mut #analytic);),
        }
    });
    let rebuilds = rebuilds(&differentiable, &rest);
    let (plain, twin_args) = plain_call(function);
    // A return type that may alias `f64` (`-> Real`) is asserted by the
    // gradient (`grad::returns_f64`); here its value is read through
    // `f64_of`, so that an alias of `f32` is that one error.
    let value = match &function.item.sig.output {
        syn::ReturnType::Type(_, ty) if !crate::valid::is_f64(ty) => {
            quote!(::autodiff::__adjoint::f64_of(#plain(#twin_args)))
        }
        _ => quote!(#plain(#twin_args)),
    };
    let check_doc = format!(
        " Checks [`{grad_fn}`] against central differences of [`{name}`] in every component, with the default step and tolerance."
    );
    let check_with_doc = format!(
        " Checks [`{grad_fn}`] against central differences of [`{name}`] in every component; `step: None` uses `default_step` of each input."
    );
    quote! {
        #[doc = #check_doc]
        #(#attrs)*
        #vis fn #check_fn #generics(
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
            #check_with_fn(::core::option::Option::None, ::autodiff::DEFAULT_TOLERANCE, #(#arg_names),*)
        }

        #[doc = #check_with_doc]
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #check_with_fn #generics(
            #step: ::core::option::Option<f64>,
            #tolerance: f64,
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
            use ::autodiff::__private as __ad;
            let mut #inputs = ::std::vec::Vec::new();
            #(#components)*
            let #reverse = match #grad_fn(#(#dup_args),*) {
                ::core::result::Result::Ok(#reverse) => #reverse,
                ::core::result::Result::Err(#error) => return __ad::unchecked(#error),
            };
            let mut #analytic = ::std::vec::Vec::new();
            #(#analytic_components)*
            __ad::gradient_check(&#inputs, &#analytic, #step, #tolerance, |#point| {
                let mut #rest = #point;
                #(#rebuilds)*
                #value
            })
        }
    }
}

/// Every differentiable parameter's components, appended to `inputs`.
pub(crate) fn components(differentiable: &[&Param], inputs: &Ident) -> Vec<TokenStream> {
    differentiable
        .iter()
        .map(|param| {
            let ident = &param.ident;
            match &param.kind {
                Kind::Struct { by_ref, ty } => {
                    let model = super::grad::model_ref(ident, *by_ref);
                    quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::components(#model, &mut #inputs);)
                }
                _ => quote!(__ad::components(&#ident, &mut #inputs);),
            }
        })
        .collect()
}

/// Every differentiable parameter rebuilt from the front of `rest`, under
/// its own name.
pub(crate) fn rebuilds(differentiable: &[&Param], rest: &Ident) -> Vec<TokenStream> {
    differentiable
        .iter()
        .map(|param| {
            let ident = &param.ident;
            match &param.kind {
                Kind::Struct { by_ref, ty } => {
                    let model = super::grad::model_ref(ident, *by_ref);
                    quote_spanned!(ty.span()=> let #ident = <#ty as __ad::Parameter>::rebuild(#model, &mut #rest);)
                }
                _ => quote!(let #ident = __ad::rebuild(&#ident, &mut #rest);),
            }
        })
        .collect()
}

/// The plain twin, and the arguments a check calls it with.
pub(super) fn plain_call(function: &Function) -> (TokenStream, TokenStream) {
    let name = &function.item.sig.ident;
    let arg_names: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
    let twin_args = function.params.iter().map(|param| {
        let ident = &param.ident;
        match &param.kind {
            Kind::Slice(_) | Kind::Struct { by_ref: true, .. } => quote!(&#ident),
            Kind::PassThrough => quote!(__ad::dup(&#ident)),
            _ => quote!(#ident),
        }
    });
    // `fn scale(scale: f64, ..)`: the parameter shadows the function in
    // the check's body, so the plain twin is named through its module.
    let plain = if arg_names.contains(&name) {
        quote!(self::#name)
    } else {
        quote!(#name)
    };
    (plain, quote!(#(#twin_args),*))
}
