//! Forward mode and second order: `f_jvp` (value and directional
//! derivative), `f_hvp` (value, gradient and Hessian-vector product) and
//! `f_hessian` (the dense Hessian). Each records the body on a tape as
//! `f_grad_tape` does (`grad::recording`) and runs the engine's passes
//! over it (`Scalar::jvp`, `Scalar::hvp`, `Scalar::hessian`), which rerun
//! every node's rule from `autodiff_core::rules` on dual numbers: no
//! derivative is written here.
//!
//! The three are `#[inline]`: like a generic function, an inline function
//! is compiled only where it is called, so a crate that never calls them
//! does not pay for them.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::grad::{gradient_type_of, model_ref, recording, Recording};
use super::{differentiable, user_params, Names};
use crate::ast::{Function, Kind, Param};

pub fn items(function: &Function, names: &Names) -> TokenStream {
    let Names {
        name,
        grad_fn,
        tape,
        attrs,
        generics,
        ..
    } = names;
    let vis = &function.item.vis;
    let differentiable = differentiable(function);
    let user_params = user_params(function);
    let gradient_type = gradient_type_of(&differentiable);
    let Recording { variables, call } = recording(function, names);
    let (jvp_fn, hvp_fn, hessian_fn) = (
        format_ident!("{}_jvp", name),
        format_ident!("{}_hvp", name),
        format_ident!("{}_hessian", name),
    );
    let [flat, rest, error, tangent, direction, pass, gradient, hvp] = [
        "flat",
        "rest",
        "error",
        "tangent",
        "direction",
        "pass",
        "gradient",
        "hvp",
    ]
    .map(|ident| Ident::new(ident, Span::mixed_site()));
    let flatten = |along: &Ident| -> Vec<TokenStream> {
        differentiable
            .iter()
            .enumerate()
            .map(|(i, param)| {
                let part = part(along, i, differentiable.len());
                let text = param_name(param);
                match &param.kind {
                    Kind::Struct { by_ref, ty } => {
                        let model = model_ref(&param.ident, *by_ref);
                        quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::model_direction(#model, &#part, #text, &mut #flat)?;)
                    }
                    _ => {
                        let ident = &param.ident;
                        quote!(__ad::direction(&#ident, &#part, #text, &mut #flat)?;)
                    }
                }
            })
            .collect()
    };
    let counts = differentiable.iter().map(|param| {
        let ident = &param.ident;
        match &param.kind {
            Kind::Struct { by_ref, ty } => {
                let model = model_ref(ident, *by_ref);
                quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::components(#model, &mut #flat);)
            }
            _ => quote!(__ad::components(&#ident, &mut #flat);),
        }
    });
    let rebuild = |from: &Ident| -> TokenStream {
        let parts: Vec<_> = differentiable
            .iter()
            .map(|param| match &param.kind {
                Kind::Struct { by_ref, ty } => {
                    let model = model_ref(&param.ident, *by_ref);
                    quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::gradient_from(#model, &mut #rest))
                }
                _ => {
                    let ident = &param.ident;
                    quote!(__ad::gradient_from(&#ident, &mut #rest))
                }
            })
            .collect();
        let value = match parts.as_slice() {
            [single] => single.clone(),
            _ => quote!((#(#parts,)*)),
        };
        quote!({
            let mut #rest = #from.as_slice();
            #value
        })
    };
    let (tangents, directions) = (flatten(&tangent), flatten(&direction));
    let (gradient_value, hvp_value) = (rebuild(&gradient), rebuild(&hvp));
    let record = quote! {
        let #tape = ::autodiff::Tape::new();
        let #tape = &#tape;
        #(#variables)*
        if let ::core::option::Option::Some(#error) = __ad::refused(#tape) {
            return ::core::result::Result::Err(#error);
        }
    };
    let jvp_doc = format!(
        " Forward mode: the value of [`{name}`] and its derivative along `tangent` (∇{name} · tangent), shaped like the gradient of [`{grad_fn}`]. One recording of the body on a tape and one pass in creation order."
    );
    let hvp_doc = format!(
        " The value of [`{name}`], its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, each node's derivative rule rerun on dual numbers, a small constant times a gradient. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation."
    );
    let hessian_doc = format!(
        " The dense Hessian of [`{name}`] over its differentiable components, in the order `{name}_check` lists them: one Hessian-vector product per component."
    );
    let result = quote!(::core::result::Result);
    let error_type = quote!(::autodiff::ScalarAutodiffError);
    quote! {
        #[doc = #jvp_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #vis fn #jvp_fn #generics(
            #(#user_params,)*
            #tangent: #gradient_type
        ) -> #result<::autodiff::Jvp<f64>, #error_type> {
            use ::autodiff::__private as __ad;
            let mut #flat = ::std::vec::Vec::new();
            #(#tangents)*
            #record
            __ad::jvp(#call, &#flat)
        }

        #[doc = #hvp_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #vis fn #hvp_fn #generics(
            #(#user_params,)*
            #direction: #gradient_type
        ) -> #result<::autodiff::Hvp<#gradient_type>, #error_type> {
            use ::autodiff::__private as __ad;
            let mut #flat = ::std::vec::Vec::new();
            #(#directions)*
            #record
            let #pass = __ad::hvp(#call, &#flat)?;
            let (#gradient, #hvp) = (#pass.gradient, #pass.hvp);
            #result::Ok(::autodiff::Hvp {
                value: #pass.value,
                gradient: #gradient_value,
                hvp: #hvp_value,
            })
        }

        #[doc = #hessian_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #vis fn #hessian_fn #generics(
            #(#user_params),*
        ) -> #result<::autodiff::Hessian, #error_type> {
            use ::autodiff::__private as __ad;
            let mut #flat = ::std::vec::Vec::new();
            #(#counts)*
            #record
            __ad::hessian(#call, #flat.len())
        }
    }
}

/// The direction's part for the `i`-th of `count` differentiable
/// parameters: the whole, or a tuple field.
fn part(along: &Ident, i: usize, count: usize) -> TokenStream {
    if count == 1 {
        quote!(#along)
    } else {
        let index = syn::Index::from(i);
        quote!(#along.#index)
    }
}

/// A parameter's name as the student wrote it (`self` for the receiver).
fn param_name(param: &Param) -> String {
    let text = param.ident.to_string();
    if text == crate::receiver::SELF_PARAM {
        "self".to_owned()
    } else {
        text
    }
}
