//! What `#[differentiable]` rejects, and how each mistake is worded: the
//! signature is checked here, the body's unsupported constructs were found
//! while it was read (`Function::rejected`) and are worded here, every one
//! reported, nothing emitted.

use quote::ToTokens;
use syn::{FnArg, GenericParam, ItemFn, ReturnType, Safety, Type};

use crate::ast::{Function, Reason};
use crate::ctxt::Ctxt;
use crate::text::mentions;
use crate::vocabulary;

/// What a function may return.
const RETURNS: &str = "a #[differentiable] function must return `f64`, `Vec<f64>`, `[f64; N]` (nested too), or a tuple of these";

/// The one message for `f32` wherever it appears.
const F32: &str = "f32 is not supported: gradients are exact in f64, so use `f64`";

/// Every mistake in the function, in source order: the signature, then the
/// parameters and the body as they were read.
pub fn check(cx: &Ctxt, function: &Function) {
    check_signature(cx, function.item);
    for rejection in &function.rejected {
        match &rejection.reason {
            Reason::Syntax(error) => cx.syn_error(error.clone()),
            reason => cx.error(&rejection.at, message(reason)),
        }
    }
    check_params(cx, function);
}

fn message(reason: &Reason) -> String {
    const IN_BODY: &str = "in a #[differentiable] function";
    match reason {
        Reason::F32 => F32.to_owned(),
        Reason::ConstantArguments => "`#[constant]` takes no arguments".to_owned(),
        Reason::ParamPattern => {
            "parameters of a #[differentiable] function must be plain names, like `x: f64`"
                .to_owned()
        }
        Reason::ParamBinding => "write the parameter as a plain name, like `x: f64`".to_owned(),
        Reason::ParamType(ty) => format!(
            "parameter type `{ty}` is not supported: use f64, [f64; N], &[f64], Vec<f64>, an integer or bool, or mark the parameter `#[constant]`"
        ),
        Reason::LetElse => "`let ... else` is not supported here; use `match`".to_owned(),
        Reason::Item => "only `const` and `use` items may appear inside a #[differentiable] function; move this item outside".to_owned(),
        Reason::CompoundOperator(op) => format!(
            "`{op}` is not supported {IN_BODY}: write `a = a {} b`",
            op.trim_end_matches('=')
        ),
        Reason::UnsafeBlock => format!("`unsafe` blocks are not supported {IN_BODY}"),
        Reason::AsyncBlock => format!("`async` blocks are not supported {IN_BODY}"),
        Reason::Try => format!("the `?` operator is not supported {IN_BODY}: it returns an f64"),
        Reason::Expression(text) => format!("`{text}` is not supported {IN_BODY}"),
        Reason::Arity { name, args } => format!(
            "`{name}` takes {args} argument{}",
            if *args == 1 { "" } else { "s" }
        ),
        Reason::NoRule(name) => format!(
            "`{name}` has no derivative rule in #[differentiable]; supported methods: {}",
            vocabulary::supported_methods()
        ),
        Reason::BindFirst(method) => format!(
            "bind this value to a name first, then call `{method}` on the name: `let t = ...; t.{method}()`"
        ),
        Reason::CallOfExpression => {
            "only named functions can be called in a #[differentiable] function".to_owned()
        }
        Reason::ImportedCallee(name, None) => format!(
            "`{name}` is imported by a `use` inside the body, where #[differentiable] cannot see which function it is (it would take another `{name}` of the module for it): call it by its path, or import it at the top of the module"
        ),
        Reason::ImportedCallee(name, Some(glob)) => format!(
            "`{name}` may come from `use {glob}::*` inside the body, where #[differentiable] cannot see which function it is (it would take another `{name}` of the module for it): call it by its path, or move the `use` to the top of the module"
        ),
        Reason::Macro(path) => {
            format!(
                "macro `{path}!` is not supported {IN_BODY}; supported: `vec!`, {}",
                crate::vocabulary::plain_macros()
            )
        }
        Reason::Syntax(error) => error.to_string(),
    }
}

/// Everything about the signature that the generated twins cannot mirror.
fn check_signature(cx: &Ctxt, item: &ItemFn) {
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
        ReturnType::Type(_, ty)
            if !is_f64(ty) && !may_alias_f64(ty) && crate::ast::Shape::of_output(ty).is_none() =>
        {
            if mentions(ty.to_token_stream(), "f32") {
                cx.error(ty, F32);
            } else {
                cx.error(ty, RETURNS);
            }
        }
        ReturnType::Type(..) => {}
    }
}

/// A name that may be a `type` alias of `f64` (`type Real = f64;`): a path
/// without generic arguments that names none of Rust's other number types,
/// `bool`, `char`, `str` or a standard container. A proc macro cannot see
/// what an alias stands for, so the gradient items assert it
/// (`emit/grad.rs`), on this type.
pub fn may_alias_f64(ty: &Type) -> bool {
    const NOT_F64: &[&str] = &[
        "bool", "char", "str", "f32", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16",
        "u32", "u64", "u128", "usize", "String", "Vec", "Option", "Result", "Box",
    ];
    match ty {
        Type::Path(path) => {
            path.qself.is_none()
                && path
                    .path
                    .segments
                    .iter()
                    .all(|segment| segment.arguments.is_none())
                && path
                    .path
                    .segments
                    .last()
                    .is_some_and(|last| !NOT_F64.iter().any(|name| last.ident == name))
        }
        Type::Paren(paren) => may_alias_f64(&paren.elem),
        Type::Group(group) => may_alias_f64(&group.elem),
        _ => false,
    }
}

pub fn is_f64(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path.qself.is_none() && path.path.is_ident("f64"),
        Type::Paren(paren) => is_f64(&paren.elem),
        Type::Group(group) => is_f64(&group.elem),
        _ => false,
    }
}

/// `f64::NEG_INFINITY`, `f64::MAX`, `std::f64::consts::PI`: a path to one
/// of `f64`'s constants, a number.
pub fn is_f64_constant(path: &syn::Path) -> bool {
    let names = crate::text::segments(path);
    match names.as_slice() {
        [.., owner, constant] => {
            (owner == "f64" || (owner == "consts" && names.iter().any(|n| n == "f64")))
                && constant
                    .chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
        }
        _ => false,
    }
}

/// A function with nothing to differentiate is a mistake worth a compile
/// error: its gradient would be an empty tuple.
fn check_params(cx: &Ctxt, function: &Function) {
    let has_receiver = function
        .item
        .sig
        .inputs
        .iter()
        .any(|input| matches!(input, FnArg::Receiver(_)));
    if !has_receiver
        && !function
            .params
            .iter()
            .any(|param| param.kind.is_differentiable())
        && function.params.len() == function.item.sig.inputs.len()
    {
        cx.error(
            &function.item.sig.ident,
            "a #[differentiable] function needs at least one f64 parameter to differentiate (f64, [f64; N], &[f64] or Vec<f64>, not marked #[constant])",
        );
    }
}
