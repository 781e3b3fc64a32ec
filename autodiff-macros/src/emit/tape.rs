//! The recording twin `f_tape`: the body rewritten (`body`) to record one
//! node per operation on tracked values, on a tape the caller passes.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{GenericParam, Ident, Lifetime};

use super::companion::{Input, Signature};
use super::{body::Emitter, param_label, Names};
use crate::ast::{Block, ExprKind, Function, Kind, Param, Shape};
use crate::flow::Flow;

/// The recording twin, and its signature for the companion's forwarder.
pub fn item(function: &Function, flow: &Flow, names: &Names) -> (TokenStream, Signature) {
    let Names {
        name,
        tape_fn,
        tape,
        attrs,
        ..
    } = names;
    let vis = &function.item.vis;
    let lifetimes = &function.item.sig.generics.params;
    let lt = tape_lifetime(function);
    let rebound = |param: &&Param| {
        !param.kind.is_differentiable()
            && param.mutability.is_some()
            && flow.is_tracked(&param.ident.to_string())
    };
    let mut inputs = vec![Input::new(tape, quote!(&#lt ::autodiff::Tape))];
    inputs.extend(function.params.iter().map(|param| {
        // A rebound parameter is made `mut` by its rebinding instead.
        let mutability = if rebound(&param) {
            None
        } else {
            param.mutability
        };
        let ty = match &param.kind {
            Kind::PassThrough => param.ty.to_token_stream(),
            kind => tape_type(kind, &lt),
        };
        Input::new(&param.ident, ty).mutable(mutability)
    }));
    let signature = Signature {
        name: tape_fn.clone(),
        generics: quote!(<#lt, #lifetimes>),
        inputs,
        output: match &function.output {
            None => {
                quote!(-> ::core::result::Result<::autodiff::Scalar<#lt>, ::autodiff::ScalarAutodiffError>)
            }
            Some(shape) => {
                let out = shape_type(shape, &lt);
                quote!(-> ::core::result::Result<#out, ::autodiff::FailedRecording<#out>>)
            }
        },
    };
    let output_type = match &function.output {
        None => quote!(::autodiff::Scalar<#lt>),
        Some(shape) => shape_type(shape, &lt),
    };
    let declaration = signature.declaration();
    // A `mut` pass-through parameter that later holds a tracked value.
    let rebinds = function.params.iter().filter(rebound).map(|param| {
        let ident = &param.ident;
        let at = param_label(param);
        quote!(let mut #ident = __ad::lift(#tape, #ident, #at);)
    });
    // A slice parameter arrives as a `Slice` (borrowed or owned); the body
    // reads it as the slice it was written for.
    let slices = function
        .params
        .iter()
        .filter(|param| matches!(param.kind, Kind::Slice(_)))
        .map(|param| {
            let ident = &param.ident;
            quote!(let #ident = &*#ident;)
        });
    let (entry, output, nested) = (
        Ident::new("__entry", Span::mixed_site()),
        Ident::new("__output", Span::mixed_site()),
        super::body::nested(),
    );
    // Every differentiable parameter's scalars must be on `tape`.
    let checks = function
        .params
        .iter()
        .filter(|param| of_scalars(&param.kind))
        .map(|param| {
            let ident = &param.ident;
            let at = param_label(param);
            quote!(__ad::on_tape(#tape, &#ident, #at))
        })
        .collect::<Vec<_>>();
    // Refused at entry, recording nothing, if any is on another tape.
    // A vector-valued function records on, its error kept, so that its
    // output has the plain twin's shape for a caller to go on with.
    let refuse = (!checks.is_empty()).then(|| {
        if function.output.is_some() {
            quote!(let _ = #(#checks)&*;)
        } else {
            quote! {
                if !(#(#checks)&*) {
                    return __ad::refuse(#tape, #entry);
                }
            }
        }
    });
    // On a probing tape, the parameters' nodes (`#[backward(f)]`'s exact
    // adjoints of `w1_bar`, ..).
    let param_probes: Vec<TokenStream> = function
        .params
        .iter()
        .filter(|param| param.kind.is_differentiable())
        .map(|param| {
            let (ident, name) = (&param.ident, param.ident.to_string());
            quote!(::autodiff::__probe!(#tape, #name, #ident);)
        })
        .collect();
    let long = outlined(function);
    let float_constants = function
        .params
        .iter()
        .filter(|param| matches!(param.kind, Kind::PassThrough) && crate::valid::is_f64(&param.ty))
        .map(|param| param.ident.to_string())
        .collect();
    let slice_names = function
        .params
        .iter()
        .filter(|param| matches!(param.kind, Kind::Slice(_)))
        .map(|param| param.ident.to_string())
        .collect();
    let emitter = Emitter::new(flow, tape.clone())
        .models(super::model_params(function))
        .slices(slice_names)
        .float_constants(float_constants)
        .outlined(long)
        .shaped(function.output.is_some());
    let body = emitter.body(&function.body);
    // The plain twin reports unused bindings once; its recording twin, the
    // same body, stays silent. Stand-ins and probes raise lints of their
    // own, allowed here once rather than on every call.
    let raised = emitter.raised();
    let mut lints = vec![
        quote!(clippy::too_many_arguments),
        quote!(unused_variables),
        quote!(unused_mut),
        quote!(unused_assignments),
    ];
    if raised.stand_ins || raised.probes {
        lints.push(quote!(unused_imports));
    }
    if raised.stand_ins {
        lints.extend([
            quote!(dead_code),
            quote!(non_camel_case_types),
            quote!(non_snake_case),
            quote!(unreachable_pub),
        ]);
    }
    if raised.probes {
        lints.extend([
            quote!(unreachable_code),
            quote!(clippy::diverging_sub_expression),
        ]);
    }
    let runtime = if long {
        quote!(::autodiff::__private::outlined)
    } else {
        quote!(::autodiff::__private)
    };
    let inner = quote! {
        #(#slices)*
        #(#rebinds)*
        #body
    };
    // A `return` must end the body, not `f_tape`, whose exit still runs:
    // such a body runs as a closure; any other is a block, cheaper for
    // rustc to check.
    let run_body = if may_return(&function.body) {
        quote!(let #output = (move || -> #output_type { #inner })())
    } else {
        quote!(let #output: #output_type = { #inner })
    };
    let leave = if function.output.is_some() {
        quote!(__ad::leave_shaped(#tape, #entry, #output))
    } else {
        quote!(__ad::leave(#tape, #entry, #output))
    };
    // The outlined operations' methods (`record_add`, ...).
    let methods = long.then(|| {
        quote!(
            use __ad::Record as _;
        )
    });
    let doc = format!(
        " Records [`{name}`] on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line."
    );
    let item = quote! {
        #[doc = #doc]
        #(#attrs)*
        #[allow(#(#lints),*)]
        #vis #declaration {
            use #runtime as __ad;
            #methods
            // Operations keep their first error on the tape; it is reported
            // here, once, with what this call recorded rolled back.
            let #entry = __ad::enter(#tape);
            let #nested = #entry.nested();
            #refuse
            #(#param_probes)*
            #run_body;
            #leave
        }
    };
    (item, signature)
}

/// The tape's lifetime: `'tape`, or, if the function has a lifetime of
/// that name already, `'tape_` (then `'tape__`, ...), a name it does not use.
fn tape_lifetime(function: &Function) -> Lifetime {
    let taken: Vec<String> = function
        .item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|param| match param {
            GenericParam::Lifetime(def) => Some(def.lifetime.ident.to_string()),
            _ => None,
        })
        .collect();
    let mut name = String::from("tape");
    while taken.contains(&name) {
        name.push('_');
    }
    Lifetime::new(&format!("'{name}"), Span::call_site())
}

/// Source tokens past which a body is long: its recording twin calls its
/// operations out of line (`__private::outlined`) and its gradient keeps
/// the tape instead of the compiled adjoint (`adjoint::compile`). Some 300
/// operations; six times the longest function of the examples and tests.
/// Below, inlining keeps small functions fast; above, rustc's and LLVM's
/// time on the inlined tape and on the adjoint's two sweeps grows faster
/// than the body.
pub(super) const LONG_BODY_TOKENS: usize = 1_500;

/// Whether the body is long (`LONG_BODY_TOKENS`).
pub(super) fn outlined(function: &Function) -> bool {
    longer_than(function, LONG_BODY_TOKENS)
}

/// Whether the body has more than `limit` source tokens (counting into
/// groups; the count stops past `limit`, so a huge body costs no more).
fn longer_than(function: &Function, limit: usize) -> bool {
    fn count(stream: TokenStream, limit: usize) -> usize {
        let mut n = 0;
        for token in stream {
            n += 1;
            if let TokenTree::Group(group) = token {
                n += count(group.stream(), limit - n.min(limit));
            }
            if n > limit {
                break;
            }
        }
        n
    }
    count(function.item.block.to_token_stream(), limit) > limit
}

/// A differentiable parameter's type on the tape.
fn tape_type(kind: &Kind, lt: &Lifetime) -> TokenStream {
    match kind {
        Kind::Scalar => quote!(::autodiff::Scalar<#lt>),
        Kind::Array(elem, len) => {
            let elem = tape_type(elem, lt);
            quote!([#elem; #len])
        }
        Kind::Slice(elem) => {
            let elem = tape_type(elem, lt);
            quote!(::std::borrow::Cow<'_, [#elem]>)
        }
        Kind::Vec(elem) => {
            let elem = tape_type(elem, lt);
            quote!(::std::vec::Vec<#elem>)
        }
        Kind::Struct { by_ref, ty } => {
            let reference = by_ref.then(|| quote_spanned!(ty.span()=> &));
            quote_spanned!(ty.span()=> #reference <#ty as ::autodiff::__private::Parameter>::Variables<#lt>)
        }
        Kind::PassThrough => quote!(()),
    }
}

/// A vector-valued function's output on the tape.
pub(super) fn shape_type(shape: &Shape, lt: &Lifetime) -> TokenStream {
    match shape {
        Shape::Scalar => quote!(::autodiff::Scalar<#lt>),
        Shape::Array(elem, len) => {
            let elem = shape_type(elem, lt);
            quote!([#elem; #len])
        }
        Shape::Vec(elem) => {
            let elem = shape_type(elem, lt);
            quote!(::std::vec::Vec<#elem>)
        }
        Shape::Tuple(items) => {
            let items = items.iter().map(|item| shape_type(item, lt));
            quote!((#(#items,)*))
        }
    }
}

/// A scalar, or arrays, slices and vectors of them (not a model struct).
fn of_scalars(kind: &Kind) -> bool {
    match kind {
        Kind::Scalar => true,
        Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => of_scalars(elem),
        Kind::Struct { .. } | Kind::PassThrough => false,
    }
}

/// Whether a `return` may leave `block`: one in the body, or in a macro's
/// tokens (a closure's or a nested item's own `return` counts too, which
/// only costs the closure).
pub(super) fn may_return(block: &Block) -> bool {
    block.any_expr(&|expr| match &expr.kind {
        ExprKind::Return(_) => true,
        ExprKind::PlainMacro { mac, .. } | ExprKind::Dbg { mac, .. } => {
            mentions_return(mac.tokens.clone())
        }
        _ => false,
    })
}

fn mentions_return(tokens: TokenStream) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => ident == "return",
        TokenTree::Group(group) => mentions_return(group.stream()),
        _ => false,
    })
}
