//! The gradient: `f_grad` and `f_grad_on` run the compiled adjoint
//! (`adjoint`) when the body compiles, and the tape otherwise or when the
//! adjoint saw a value the tape rejects; `f_grad_tape` (on the thread's
//! scratch tape) and the hidden `f_grad_tape_on` (on a tape the caller
//! keeps) record the differentiable parameters as variables, run `f_tape`,
//! and take one reverse pass.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::companion::Sibling;
use super::{adjoint, differentiable, param_label, user_params, variable_ident, Names};
use crate::ast::{Function, Kind, Param};

/// The gradient items, the adjoint's pair `f_forward`/`f_reverse`,
/// which the caller places, and whether `f_adjoint_dual` is among the
/// items (for `f_hvp`).
pub fn items(function: &Function, names: &Names) -> (TokenStream, [Sibling; 2], bool) {
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
    let grad_tape_fn = quote::format_ident!("{}_grad_tape", name);
    let grad_tape_on_fn = quote::format_ident!("{}_grad_tape_on", name);
    let differentiable = differentiable(function);
    let user_params = user_params(function);
    let arg_names = function.params.iter().map(|param| &param.ident);
    let Recording {
        variables,
        call: call_tape,
    } = recording(function, names);
    let gradients: Vec<_> = differentiable
        .iter()
        .map(|param| {
            let ident = &param.ident;
            let var = variable_ident(ident);
            match &param.kind {
                Kind::Struct { ty, .. } => {
                    quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::gradient(&#var))
                }
                _ => quote!(__ad::gradient(&#ident, &#var)),
            }
        })
        .collect();
    let gradient_type = gradient_type_of(&differentiable);
    let gradient_value = match gradients.as_slice() {
        [single] => single.clone(),
        _ => quote!((#(#gradients,)*)),
    };
    let (value, error) = (
        Ident::new("value", Span::mixed_site()),
        Ident::new("error", Span::mixed_site()),
    );
    let adjoint = adjoint::items(function, names, &gradient_type);
    // The compiled adjoint asserts an alias on the value it computes.
    let returns_f64 = if adjoint.fallback.is_some() {
        returns_f64(function)
    } else {
        quote!()
    };
    let adjoint_items = &adjoint.items;
    let how = match &adjoint.fallback {
        None => " Computed by the compiled adjoint: generated Rust that runs the body on `f64` and then its reverse sweep, with no tape; on a value the tape would reject it reruns the tape, so errors are the tape's.".to_owned(),
        Some((construct, line)) => format!(
            " Computed on the tape: {construct} at line {line} is not compiled yet."
        ),
    };
    let path_fn = quote::format_ident!("{}_grad_path", name);
    let path = match &adjoint.fallback {
        None => quote!(::autodiff::GradientPath::Compiled),
        Some((construct, line)) => {
            let construct = construct.replace('`', "");
            quote!(::autodiff::GradientPath::Tape { construct: #construct, line: #line })
        }
    };
    let path_doc = format!(
        " Which computation [`{grad_fn}`] runs: the compiled adjoint, or the tape and the construct that keeps it there."
    );
    let grad_doc = format!(
        " The value of [`{name}`] and its exact gradient with respect to every differentiable parameter."
    );
    let grad_tape_doc = format!(
        " [`{grad_fn}`] by one reverse pass over [`{tape_fn}`]: the tape path, which labels every error. Records on a new tape, which starts from the memory of the last one dropped on this thread, so calling it in a loop reuses memory."
    );
    let grad_on_doc = format!(
        " [`{grad_fn}`] with a tape the caller keeps for the tape path: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape."
    );
    let arg_names: Vec<_> = arg_names.collect();
    let adjoint_args: Vec<_> = function.params.iter().map(adjoint_arg).collect();
    let adjoint_fn = &adjoint.adjoint_fn;
    let (grad_body, grad_on_body) = if adjoint.fallback.is_none() {
        (
            quote! {
                match #adjoint_fn(&mut ::autodiff::__adjoint::Scratch::take(), #(#adjoint_args),*) {
                    ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
                    ::core::option::Option::None => {
                        ::autodiff::__adjoint::rerun_on_tape();
                        #grad_tape_fn(#(#arg_names),*)
                    }
                }
            },
            quote! {
                match #adjoint_fn(&mut ::autodiff::__adjoint::Scratch::take(), #(#adjoint_args),*) {
                    ::core::option::Option::Some(result) => ::core::result::Result::Ok(result),
                    ::core::option::Option::None => {
                        ::autodiff::__adjoint::rerun_on_tape();
                        #grad_tape_on_fn(#tape, #(#arg_names),*)
                    }
                }
            },
        )
    } else {
        (
            quote!(#grad_tape_fn(#(#arg_names),*)),
            quote!(#grad_tape_on_fn(#tape, #(#arg_names),*)),
        )
    };
    let items = quote! {
        #[doc = #grad_doc]
        #[doc = ""]
        #[doc = #how]
        #(#attrs)*
        #vis fn #grad_fn #generics(
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::ValueAndGradient<#gradient_type>, ::autodiff::ScalarAutodiffError> {
            #grad_body
        }

        #[doc = #grad_on_doc]
        #[doc = ""]
        #[doc = #how]
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #grad_on_fn #generics(
            #tape: &mut ::autodiff::Tape,
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::ValueAndGradient<#gradient_type>, ::autodiff::ScalarAutodiffError> {
            #grad_on_body
        }

        #[doc = #path_doc]
        #(#attrs)*
        #vis const fn #path_fn() -> ::autodiff::GradientPath {
            #path
        }

        #[doc = #grad_tape_doc]
        #(#attrs)*
        #vis fn #grad_tape_fn #generics(
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::ValueAndGradient<#gradient_type>, ::autodiff::ScalarAutodiffError> {
            #grad_tape_on_fn(&mut ::autodiff::Tape::new(), #(#arg_names),*)
        }

        #adjoint_items

        #[doc(hidden)]
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #grad_tape_on_fn #generics(
            #tape: &mut ::autodiff::Tape,
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::ValueAndGradient<#gradient_type>, ::autodiff::ScalarAutodiffError> {
            use ::autodiff::__private as __ad;
            #returns_f64
            #tape.clear();
            let #tape = &*#tape;
            #(#variables)*
            if let ::core::option::Option::Some(#error) = __ad::refused(#tape) {
                return ::core::result::Result::Err(#error);
            }
            match __ad::finish(#call_tape) {
                ::core::result::Result::Ok(#value) => ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                    value: #value,
                    gradient: #gradient_value,
                }),
                ::core::result::Result::Err(#error) => ::core::result::Result::Err(#error),
            }
        }
    };
    (items, adjoint.pair, adjoint.dual)
}

/// What every tape path starts with: the differentiable parameters
/// recorded as variables (`let x_var = ..;`, in parameter order, so that
/// they are the tape's first nodes in the order `f_check` lists the
/// components) and the call of the recording twin on them, a
/// `Result<Scalar>`. The caller binds `tape` and checks `__ad::refused`
/// between the two.
pub(super) struct Recording {
    pub variables: Vec<TokenStream>,
    pub call: TokenStream,
}

pub(super) fn recording(function: &Function, names: &Names) -> Recording {
    let error = Ident::new("error", Span::mixed_site());
    recording_bailing(
        function,
        names,
        &quote!(return ::core::result::Result::Err(#error)),
    )
}

/// [`recording`], leaving by `bail` where a model cannot be recorded
/// (`bail` reads the error as `error`, a mixed-site identifier).
pub(super) fn recording_bailing(
    function: &Function,
    names: &Names,
    bail: &TokenStream,
) -> Recording {
    let Names { tape_fn, tape, .. } = names;
    let differentiable = differentiable(function);
    let variables = differentiable
        .iter()
        .map(|param| {
            let var = variable_ident(&param.ident);
            let (ident, at) = (&param.ident, param_label(param));
            match &param.kind {
                // A model is named by its type, so that a struct that is not
                // one is a single error on that type.
                Kind::Struct { by_ref, ty } => {
                    let model = model_ref(ident, *by_ref);
                    let record = quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::record(#model, #tape, #at));
                    let error = Ident::new("error", Span::mixed_site());
                    quote!(let #var = match __ad::first(#tape, #record) {
                        ::core::result::Result::Ok(recorded) => recorded,
                        ::core::result::Result::Err(#error) => #bail,
                    };)
                }
                // An error is kept on the tape, for `refused`.
                _ => quote!(let #var = __ad::variables(#tape, &#ident, #at);),
            }
        })
        .collect();
    let tape_args: Vec<_> = function
        .params
        .iter()
        .map(|param| {
            let ident = &param.ident;
            let var = variable_ident(ident);
            match &param.kind {
                Kind::PassThrough => quote!(#ident),
                Kind::Slice(_) => quote!(__ad::slice(&#var)),
                Kind::Vec(_) | Kind::Struct { by_ref: false, .. } => quote!(__ad::dup(&#var)),
                // A model on the tape is not `Copy`; the gradient reads it after.
                Kind::Array(elem, _) if elem.holds_struct() => quote!(__ad::dup(&#var)),
                Kind::Struct { by_ref: true, .. } => quote!(&#var),
                Kind::Scalar | Kind::Array(..) => quote!(#var),
            }
        })
        .collect();
    // The recording twin named on a model parameter's type: if the struct
    // is not a model, rustc's error about the twin's signature at this call
    // is then the same error as the one on the type, and shown once.
    let model_span = differentiable.iter().find_map(|param| match &param.kind {
        Kind::Struct { ty, .. } => Some(ty.span()),
        _ => None,
    });
    let call = match model_span {
        Some(span) => {
            let path = Ident::new(&tape_fn.to_string(), span);
            quote_spanned!(span=> #path(#tape, #(#tape_args),*))
        }
        None => quote!(#tape_fn(#tape, #(#tape_args),*)),
    };
    Recording { variables, call }
}

/// The gradient's type for these differentiable parameters: one's own
/// shape, or a tuple of them in parameter order.
pub(super) fn gradient_type_of(differentiable: &[&Param]) -> TokenStream {
    match differentiable {
        [single] => gradient_type(&single.kind),
        _ => {
            let types = differentiable
                .iter()
                .map(|param| gradient_type(&param.kind));
            quote!((#(#types,)*))
        }
    }
}

/// For a return type that may be an alias of `f64` (`-> Real`, see
/// `valid::may_alias_f64`) where the adjoint keeps the tape, the assertion
/// that it is one, on that type (`__adjoint::ReturnsF64`): the one error a
/// non-`f64` alias gets, as every generated item computes in `f64` and
/// reads the plain twin's value through `f64_of`.
fn returns_f64(function: &Function) -> TokenStream {
    match &function.item.sig.output {
        syn::ReturnType::Type(_, ty) if !crate::valid::is_f64(ty) => {
            quote_spanned!(ty.span()=> let _: fn() = <f64 as ::autodiff::__adjoint::ReturnsF64<#ty>>::asserted;)
        }
        _ => quote!(),
    }
}

/// An argument of `f_adjoint` from `f_grad`: itself, or a clone where the
/// tape may need it again after the adjoint took it.
pub(super) fn adjoint_arg(param: &Param) -> TokenStream {
    let ident = &param.ident;
    if passes_by_copy(param) {
        quote!(#ident)
    } else {
        quote!(::core::clone::Clone::clone(&#ident))
    }
}

/// Whether [`adjoint_arg`] passes the parameter as it is (a copy), not a
/// clone.
pub(super) fn passes_by_copy(param: &Param) -> bool {
    match &param.kind {
        Kind::Vec(_) | Kind::Struct { by_ref: false, .. } => false,
        Kind::Array(elem, _) => !holds_owned(elem),
        Kind::PassThrough => match &param.ty {
            syn::Type::Reference(reference) => reference.mutability.is_none(),
            syn::Type::Path(path) => path.path.get_ident().is_some_and(|name| {
                name == "f64" || crate::lower::is_plain_type(&name.to_string())
            }),
            _ => false,
        },
        Kind::Scalar | Kind::Slice(_) | Kind::Struct { by_ref: true, .. } => true,
    }
}

fn holds_owned(kind: &Kind) -> bool {
    match kind {
        Kind::Vec(_) | Kind::Struct { .. } | Kind::PassThrough => true,
        Kind::Array(elem, _) => holds_owned(elem),
        Kind::Slice(_) | Kind::Scalar => false,
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
        // A model's gradient is the model's own type (`#[derive(Parameters)]`
        // says so): named directly, a call of these functions asks nothing
        // of a struct that is not a model, and the one error stays on its
        // type.
        Kind::Struct { ty, .. } => quote!(#ty),
        Kind::PassThrough => quote!(()),
    }
}

/// A model parameter as `&Model`, whether it was taken by reference.
pub(super) fn model_ref(ident: &Ident, by_ref: bool) -> TokenStream {
    if by_ref {
        quote!(#ident)
    } else {
        quote!(&#ident)
    }
}
