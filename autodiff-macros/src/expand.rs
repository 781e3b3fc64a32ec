//! The pipeline, one pass per line: parse the function, read it into the
//! model (`lower`), check it (`valid`), find what tracked values reach
//! (`flow`), and emit the items (`emit`); on any mistake, the errors and the
//! function unchanged (`fallback`). A method is first read as a function of
//! its receiver (`receiver`), and emitted back as methods (`emit::method`).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::ItemFn;

use crate::ctxt::Ctxt;
use crate::flow::Flow;
use crate::lower::{self, MacroBodies};
use crate::{attr, emit, fallback, receiver, valid};

pub fn differentiable(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => return not_a_function(input),
    };
    let method = match receiver::rewrite(&item) {
        Ok(method) => method,
        Err(error) => return fallback::expand(&item, &error),
    };
    let read = method.as_ref().map_or(&item, |(rewritten, _)| rewritten);
    let cx = Ctxt::default();
    attr::check_args(&cx, &args);
    let macros = MacroBodies::default();
    let function = lower::function(read, &macros);
    valid::check(&cx, &function);
    if let Some(error) = cx.check() {
        return fallback::expand(&item, &error);
    }
    let flow = Flow::analyse(&function);
    match &method {
        Some((_, taken)) => emit::method_items(&function, &flow, &item, *taken),
        None => emit::items(&function, &flow),
    }
}

/// Anything but a function: the error on its first token, and the input
/// unchanged.
fn not_a_function(input: TokenStream) -> TokenStream {
    let first = input.clone().into_iter().next();
    let span = first.map_or_else(Span::call_site, |token| token.span());
    let error = syn::Error::new(
        span,
        "#[differentiable] goes on a free function: `fn f(x: f64) -> f64 { ... }`",
    )
    .to_compile_error();
    quote!(#error #input)
}

// The path is spelled out so that a test that compiles these modules from
// elsewhere (`#[path]`) still finds the snapshots.
#[cfg(test)]
#[path = "expand/tests.rs"]
mod tests;
