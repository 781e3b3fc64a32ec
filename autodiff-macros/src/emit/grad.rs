//! The gradient: `f_grad` on the thread's scratch tape, and `f_grad_on` on
//! a tape the caller keeps. Both record the differentiable parameters as
//! variables, run `f_tape`, and take one reverse pass.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::{differentiable, param_label, user_params, variable_ident, Names};
use crate::ast::{Function, Kind};

pub fn items(function: &Function, names: &Names) -> TokenStream {
    let Names {
        name,
        tape_fn,
        grad_fn,
        grad_on_fn,
        tape,
        attrs,
        generics,
        ..
    } = names;
    let vis = &function.item.vis;
    let differentiable = differentiable(function);
    let user_params = user_params(function);
    let arg_names = function.params.iter().map(|param| &param.ident);
    let variables = differentiable.iter().map(|param| {
        let var = variable_ident(&param.ident);
        let (ident, at) = (&param.ident, param_label(param));
        quote!(let #var = __ad::variables(#tape, &#ident, #at)?;)
    });
    let tape_args = function.params.iter().map(|param| {
        let ident = &param.ident;
        let var = variable_ident(ident);
        match &param.kind {
            Kind::PassThrough => quote!(#ident),
            Kind::Slice(_) => quote!(__ad::slice(&#var)),
            Kind::Vec(_) | Kind::Struct { by_ref: false, .. } => quote!(__ad::dup(&#var)),
            // A model on the tape is not `Copy`; the gradient reads it after.
            Kind::Array(elem, _) if holds_struct(elem) => quote!(__ad::dup(&#var)),
            Kind::Struct { by_ref: true, .. } => quote!(&#var),
            Kind::Scalar | Kind::Array(..) => quote!(#var),
        }
    });
    let gradients: Vec<_> = differentiable
        .iter()
        .map(|param| {
            let ident = &param.ident;
            let var = variable_ident(ident);
            quote!(__ad::gradient(&#ident, &#var))
        })
        .collect();
    let (gradient_type, gradient_value) = if let [single] = differentiable.as_slice() {
        (gradient_type(&single.kind), gradients[0].clone())
    } else {
        let types = differentiable
            .iter()
            .map(|param| gradient_type(&param.kind));
        (quote!((#(#types,)*)), quote!((#(#gradients,)*)))
    };
    let output = Ident::new("output", Span::mixed_site());
    let grad_doc = format!(
        " The value of [`{name}`] and its exact gradient with respect to every differentiable parameter, by one reverse pass over [`{tape_fn}`]. Records on a tape this thread keeps between calls, so calling it in a loop reuses memory."
    );
    let grad_on_doc = format!(
        " [`{grad_fn}`] on a tape the caller keeps: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape."
    );
    quote! {
        #[doc = #grad_doc]
        #(#attrs)*
        #vis fn #grad_fn #generics(
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::ValueAndGradient<#gradient_type>, ::autodiff::ScalarAutodiffError> {
            ::autodiff::__private::on_scratch_tape(move |#tape| #grad_on_fn(#tape, #(#arg_names),*))
        }

        #[doc = #grad_on_doc]
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #grad_on_fn #generics(
            #tape: &mut ::autodiff::Tape,
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::ValueAndGradient<#gradient_type>, ::autodiff::ScalarAutodiffError> {
            use ::autodiff::__private as __ad;
            #tape.clear();
            let #tape = &*#tape;
            #(#variables)*
            let #output = #tape_fn(#tape, #(#tape_args),*)?;
            __ad::backward(#output)?;
            ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                value: #output.value(),
                gradient: #gradient_value,
            })
        }
    }
}

/// The gradient's type: shaped like the parameter, slices as `Vec`.
fn gradient_type(kind: &Kind) -> TokenStream {
    match kind {
        Kind::Scalar => quote!(f64),
        Kind::Array(elem, len) => {
            let elem = gradient_type(elem);
            quote!([#elem; #len])
        }
        Kind::Slice(elem) | Kind::Vec(elem) => {
            let elem = gradient_type(elem);
            quote!(::std::vec::Vec<#elem>)
        }
        Kind::Struct { ty, .. } => {
            quote_spanned!(ty.span()=> <#ty as ::autodiff::__private::Parameter>::Gradient)
        }
        Kind::PassThrough => quote!(()),
    }
}

/// Whether a parameter's shape has a model in it.
fn holds_struct(kind: &Kind) -> bool {
    match kind {
        Kind::Struct { .. } => true,
        Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => holds_struct(elem),
        Kind::Scalar | Kind::PassThrough => false,
    }
}
