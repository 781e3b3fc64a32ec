//! Checks the signature: only checks, every mistake reported, nothing
//! emitted. The body is checked while it is read (`ast`).

use quote::ToTokens;
use syn::{FnArg, GenericParam, ItemFn, ReturnType, Safety, Type};

use crate::ast::{mentions, Function};
use crate::ctxt::Ctxt;

/// Everything about the signature that the generated twins cannot mirror.
pub fn check_signature(cx: &Ctxt, item: &ItemFn) {
    let sig = &item.sig;
    if let Some(asyncness) = &sig.asyncness {
        cx.error(
            asyncness,
            "#[differentiable] cannot differentiate an `async fn`; remove `async`",
        );
    }
    if let Safety::Unsafe(unsafety) = &sig.safety {
        cx.error(
            unsafety,
            "#[differentiable] cannot differentiate an `unsafe fn`; remove `unsafe`",
        );
    }
    if let Some(abi) = &sig.abi {
        cx.error(
            abi,
            "#[differentiable] functions use the Rust ABI; remove the `extern`",
        );
    }
    if let Some(variadic) = &sig.variadic {
        cx.error(variadic, "variadic functions are not supported");
    }
    for param in &sig.generics.params {
        match param {
            GenericParam::Type(ty) => cx.error(
                ty,
                "#[differentiable] functions cannot be generic over types: write the function for f64",
            ),
            GenericParam::Lifetime(_) | GenericParam::Const(_) => {}
        }
    }
    if let Some(where_clause) = &sig.generics.where_clause {
        cx.error(
            where_clause,
            "#[differentiable] functions cannot have a `where` clause",
        );
    }
    for input in &sig.inputs {
        if let FnArg::Receiver(receiver) = input {
            cx.error(
                receiver,
                "#[differentiable] works on free functions: take the values you need as parameters instead of `self`",
            );
        }
    }
    match &sig.output {
        ReturnType::Default => cx.error(
            &sig.ident,
            "a #[differentiable] function must return `f64`: add `-> f64`",
        ),
        ReturnType::Type(_, ty) if !is_f64(ty) => {
            if mentions(ty.to_token_stream(), "f32") {
                cx.error(
                    ty,
                    "f32 is not supported: gradients are exact in f64, so return `f64`",
                );
            } else {
                cx.error(ty, "a #[differentiable] function must return `f64`");
            }
        }
        ReturnType::Type(..) => {}
    }
}

fn is_f64(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path.qself.is_none() && path.path.is_ident("f64"),
        Type::Paren(paren) => is_f64(&paren.elem),
        Type::Group(group) => is_f64(&group.elem),
        _ => false,
    }
}

/// A function with nothing to differentiate is a mistake worth a compile
/// error: its gradient would be an empty tuple.
pub fn check_params(cx: &Ctxt, function: &Function) {
    let has_receiver = function
        .original
        .sig
        .inputs
        .iter()
        .any(|input| matches!(input, FnArg::Receiver(_)));
    if !has_receiver
        && !function
            .params
            .iter()
            .any(|param| param.kind.is_differentiable())
        && function.params.len() == function.original.sig.inputs.len()
    {
        cx.error(
            &function.original.sig.ident,
            "a #[differentiable] function needs at least one f64 parameter to differentiate (f64, [f64; N], &[f64] or Vec<f64>, not marked #[constant])",
        );
    }
}
