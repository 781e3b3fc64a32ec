//! Forward mode and second order: `f_jvp` (value and directional
//! derivative), `f_hvp` (value, gradient and Hessian-vector product) and
//! `f_hessian` (the dense Hessian). Where the function has a compiled
//! adjoint on dual numbers (`adjoint::dual`), all three run it
//! ([`Compiled`]: `f_jvp` its forward sweep only, `f_hessian` one sweep
//! per column) and the tape's are the hidden `f_jvp_tape`, `f_hvp_tape`
//! and `f_hessian_tape`, their fallback. Otherwise each records the body through the tape
//! path, `f_grad_tape_on`, on a tape made for a second-order pass
//! (`__ad::second_order_tape`), where that path keeps the output instead
//! of running its reverse pass; the runtime (`__ad::jvp`, `__ad::hvp`,
//! `__ad::hessian`) then runs the engine's passes over it (`Scalar::jvp`,
//! `Scalar::hvp`, `Scalar::hessian`), which rerun every node's rule from
//! `autodiff_core::rules` on dual numbers: no derivative is written here.
//!
//! A free function with a dual sweep whose differentiable parameters are
//! numbers, arrays, slices or `Vec`s ([`through_companion`]) gets them as
//! one impl of the runtime's `SecondOrder` on its companion type (how to lift its
//! parameters and call its dual sweep, how to call its tape path) and three
//! one-call wrappers: the checks, the fallback and the shaping are the
//! trait's provided methods, type-checked once in the library. The tests'
//! second path is `__private::second_order_on_tape(|| f_hvp(..))`. Any
//! other function (no dual sweep, a model, a method, lifetimes of its own)
//! gets them written out, and where it has a dual sweep the tape's as the
//! hidden `f_jvp_tape`, `f_hvp_tape` and `f_hessian_tape`.
//!
//! They cost a crate that never calls them a few small bodies per
//! function, none compiled to machine code (see the README's figure).
//!
//! This file decides which form a function gets and writes the tape's;
//! `compiled` writes the items that run the dual sweep, `companion` the
//! trait impl and the three wrappers every form shares.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

mod companion;
mod compiled;

use super::adjoint::unclaimed;
use super::grad::{adjoint_arg, gradient_type_of, model_ref, passes_by_copy};
use super::{differentiable, user_params, Names};
use crate::ast::{Function, Kind, Param};
use companion::{through_companion, wrappers};
use compiled::Compiled;

/// The most differentiable parameters `__ad::Shapes` takes as a tuple.
const MAX_SHAPES: usize = 12;

/// `companion`: whether the function has a companion type of its name
/// (a free function), on which [`through_companion`] implements the
/// runtime's `SecondOrder`.
pub fn items(function: &Function, names: &Names, dual: bool, companion: bool) -> TokenStream {
    if companion {
        if let Some(items) = through_companion(function, names, dual) {
            return items;
        }
    }
    let Names {
        name,
        tape,
        attrs,
        generics,
        ..
    } = names;
    let vis = &function.item.vis;
    let differentiable = differentiable(function);
    let user_params = user_params(function);
    let arg_names: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
    let gradient_type = gradient_type_of(&differentiable);
    let [flat, rest, tangent, direction, pass] = ["flat", "rest", "tangent", "direction", "pass"]
        .map(|ident| Ident::new(ident, Span::mixed_site()));
    let (grad_tape_on_fn, jvp_fn, hvp_fn, hessian_fn) = (
        format_ident!("{}_grad_tape_on", name),
        format_ident!("{}_jvp", name),
        format_ident!("{}_hvp", name),
        format_ident!("{}_hessian", name),
    );
    let kept_args: Vec<_> = function.params.iter().map(adjoint_arg).collect();
    let result = quote!(::core::result::Result);
    let error_type = quote!(::autodiff::ScalarAutodiffError);
    // The parameters are read again to check the direction and shape the
    // result: what the recording takes by value, it takes as a copy.
    let record = quote!(#grad_tape_on_fn(#tape, #(#kept_args),*));
    let thin = !differentiable.is_empty()
        && differentiable.len() <= MAX_SHAPES
        && !differentiable
            .iter()
            .any(|param| matches!(param.kind, Kind::Struct { .. }));
    let (jvp_body, hvp_body) = if thin {
        // The checks and the shaping are the runtime's (`__ad::Shapes`).
        let refs = differentiable.iter().map(|param| {
            let ident = &param.ident;
            quote!(&#ident)
        });
        let parameters = match differentiable.as_slice() {
            [single] => {
                let ident = &single.ident;
                quote!(&#ident)
            }
            _ => quote!((#(#refs,)*)),
        };
        let texts = differentiable.iter().map(|param| param_name(param));
        let names = quote!(&[#(#texts),*]);
        (
            quote! {
                let #tape = &mut ::autodiff::__private::second_order_tape();
                ::autodiff::__private::jvp_of(#record, #tape, #parameters, #tangent, #names)
            },
            quote! {
                let #tape = &mut ::autodiff::__private::second_order_tape();
                ::autodiff::__private::hvp_of(#record, #tape, #parameters, #direction, #names)
            },
        )
    } else {
        // A model is named by its type (so that a struct that is not one
        // is one error on it), and a tuple of more than `MAX_SHAPES` has no
        // `Shapes`: the checks and the shaping are written out.
        let (tangents, directions) = (
            flatten(&differentiable, &tangent, &flat),
            flatten(&differentiable, &direction, &flat),
        );
        let gradient_value = rebuild(&differentiable, &rest, quote!(#pass.gradient));
        let hvp_value = rebuild(&differentiable, &rest, quote!(#pass.hvp));
        (
            quote! {
                use ::autodiff::__private as __ad;
                let mut #flat = ::std::vec::Vec::new();
                #(#tangents)*
                let #tape = &mut __ad::second_order_tape();
                __ad::jvp(#record, #tape, &#flat)
            },
            quote! {
                use ::autodiff::__private as __ad;
                let mut #flat = ::std::vec::Vec::new();
                #(#directions)*
                let #tape = &mut __ad::second_order_tape();
                let #pass = __ad::hvp(#record, #tape, &#flat)?;
                #result::Ok(::autodiff::Hvp {
                    value: #pass.value,
                    gradient: #gradient_value,
                    hvp: #hvp_value,
                })
            },
        )
    };
    // With a compiled adjoint on dual numbers, `f_jvp`, `f_hvp` and
    // `f_hessian` run it and keep the tape's as hidden `_tape` twins, their
    // fallback (and the tests' second path).
    let tape_hessian_body = quote! {
        let #tape = &mut ::autodiff::__private::second_order_tape();
        ::autodiff::__private::hessian(#grad_tape_on_fn(#tape, #(#arg_names),*), #tape)
    };
    let (jvp_tape_fn, hvp_tape_fn, hessian_tape_fn) = (
        format_ident!("{}_jvp_tape", name),
        format_ident!("{}_hvp_tape", name),
        format_ident!("{}_hessian_tape", name),
    );
    // A model by reference (`loss(model: &Mlp, ..)`, a `&self` method):
    // lifted onto its twin on duals and split back through the model
    // (`__private::Parameter`), whose constants the gradient and `H·v`
    // carry.
    let models = differentiable
        .iter()
        .any(|param| matches!(param.kind, Kind::Struct { by_ref: true, .. }));
    let (jvp_body, hvp_body, hessian_body, tape_twins) = if dual && (thin || models) {
        let twin = |fn_name: &Ident,
                    compiled: &Ident,
                    along: Option<&Ident>,
                    output: TokenStream,
                    body: &TokenStream| {
            let doc = format!(
                " [`{compiled}`] on the tape: the body recorded and the engine's passes run over it. `{compiled}` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite."
            );
            let along = along.map(|along| quote!(#along: #gradient_type));
            quote! {
                #[doc = #doc]
                #(#attrs)*
                #[doc(hidden)]
                #[inline]
                #[allow(clippy::too_many_arguments, dead_code)]
                #vis fn #fn_name #generics(
                    #(#user_params,)*
                    #along
                ) -> #result<#output, #error_type> {
                    #body
                }
            }
        };
        let twins = [
            twin(
                &jvp_tape_fn,
                &jvp_fn,
                Some(&tangent),
                quote!(::autodiff::Jvp<f64>),
                &jvp_body,
            ),
            twin(
                &hvp_tape_fn,
                &hvp_fn,
                Some(&direction),
                quote!(::autodiff::Hvp<#gradient_type>),
                &hvp_body,
            ),
            twin(
                &hessian_tape_fn,
                &hessian_fn,
                None,
                quote!(::autodiff::Hessian),
                &tape_hessian_body,
            ),
        ];
        let compiled = Compiled {
            function,
            dual_fn: super::adjoint::dual_adjoint_ident(&format_ident!("{}_adjoint", name)),
            differentiable: &differentiable,
        };
        (
            compiled.jvp(&tangent, quote!(#jvp_tape_fn(#(#arg_names,)* #tangent))),
            compiled.hvp(&direction, quote!(#hvp_tape_fn(#(#arg_names,)* #direction))),
            compiled.hessian(&direction, quote!(#hessian_tape_fn(#(#arg_names),*))),
            quote!(#(#twins)*),
        )
    } else {
        (jvp_body, hvp_body, tape_hessian_body, quote!())
    };
    // The compiled bodies of a function taking a model are relocated onto
    // the model's type (`text::relocate`): lints would read them as the
    // student's code.
    let relocated =
        (dual && models).then(|| quote!(#[allow(unused, clippy::all, clippy::pedantic)]));
    let wrappers = wrappers(
        function,
        names,
        &gradient_type,
        [&tangent, &direction],
        [jvp_body, hvp_body, hessian_body],
        relocated,
    );
    quote! {
        #wrappers
        #tape_twins
    }
}

/// The direction's components (`along`, shaped like the gradient),
/// checked against the parameters' shapes and appended to `flat`.
pub(super) fn flatten(differentiable: &[&Param], along: &Ident, flat: &Ident) -> Vec<TokenStream> {
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
}

/// A flat vector (`from`) back in the gradient's shape, read from the
/// parameters (a model's constants are the model's, as in `f_grad`).
pub(super) fn rebuild(differentiable: &[&Param], rest: &Ident, from: TokenStream) -> TokenStream {
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
}

/// The direction's part for the `i`-th of `count` differentiable
/// parameters: the whole, or a tuple field.
pub(super) fn part(along: &Ident, i: usize, count: usize) -> TokenStream {
    if count == 1 {
        quote!(#along)
    } else {
        let index = syn::Index::from(i);
        quote!(#along.#index)
    }
}

/// A parameter's name as the student wrote it (`self` for the receiver).
pub(super) fn param_name(param: &Param) -> String {
    let text = param.ident.to_string();
    if text == crate::receiver::SELF_PARAM {
        "self".to_owned()
    } else {
        text
    }
}
