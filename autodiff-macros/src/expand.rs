//! The pipeline, one pass per line: parse the function, read it into the
//! model (`lower`), check it (`valid`), find what tracked values reach
//! (`flow`), and emit the items (`emit`); on any mistake, the errors and the
//! function unchanged (`fallback`). A method is first read as a function of
//! its receiver (`receiver`), and emitted back as methods (`emit::method`).
//! On an `impl` block, each function returning `f64` (or a vector of it)
//! goes through the same pipeline, knowing that it is associated.

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use syn::{ImplItem, ImplItemFn, ItemFn, ItemImpl};

use crate::ctxt::Ctxt;
use crate::flow::Flow;
use crate::lower::{self, MacroBodies};
use crate::{attr, emit, fallback, parts, receiver, valid, writes};

/// The stack the expansion runs on. Every pass recurses over the syntax
/// tree, so a 10,000-term sum or 1,000 nested parentheses recurse that
/// deep, past the few MiB rustc's thread has left for a macro. `stacker`
/// switches to a fresh stack on the same thread (another thread could not
/// call the `proc_macro` API); it is reserved, and only the pages a deep
/// body touches are ever written.
const STACK: usize = 256 << 20;

pub fn differentiable(args: TokenStream, input: TokenStream) -> TokenStream {
    stacker::grow(STACK, move || expand(args, input))
}

fn expand(args: TokenStream, input: TokenStream) -> TokenStream {
    if let Ok(item) = syn::parse2::<ItemFn>(input.clone()) {
        if associated_without_self(&item) {
            return attribute_on_associated_function(&item);
        }
        return function(&args, &item, Context::Free);
    }
    if let Ok(block) = syn::parse2::<ItemImpl>(input.clone()) {
        return impl_block(&args, block);
    }
    // A syntax error in the body (`x * ;`): the tokens as written, so that
    // rustc's own parse error is the only one.
    if syn::parse2::<syn::Item>(input.clone()).is_err() {
        return input;
    }
    not_a_function(input)
}

/// Where the function sits, as far as the macro can know: an attribute on
/// a function sees the function alone, so only one on an `impl` block
/// knows that its functions are associated.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Free,
    Impl,
}

fn function(args: &TokenStream, item: &ItemFn, context: Context) -> TokenStream {
    let method = match receiver::rewrite(item) {
        Ok(method) => method,
        Err(error) => return fallback::expand(item, &error),
    };
    let read = method.as_ref().map_or(item, |(rewritten, _)| rewritten);
    let written = writes::index_loops(read);
    let read = written.as_ref().unwrap_or(read);
    let parted = parts::fields(read);
    let read = parted.as_ref().unwrap_or(read);
    let cx = Ctxt::default();
    let krate = attr::check_args(&cx, args);
    let macros = MacroBodies::default();
    let mut function = lower::function(read, &macros);
    function.written = item;
    valid::check(&cx, &function);
    if let Some(error) = cx.check() {
        return fallback::expand(item, &error);
    }
    let flow = Flow::analyse(&function);
    let items = match (&method, context) {
        (Some((_, taken)), _) => emit::method_items(&function, &flow, item, *taken),
        (None, Context::Impl) => emit::associated_items(&function, &flow),
        (None, Context::Free) => emit::items(&function, &flow),
    };
    match krate {
        Some(path) => attr::rename_crate(items, &path),
        None => items,
    }
}

/// `#[differentiable] impl Model { .. }`: every function in the block that
/// returns `f64` (or carries `#[differentiable]` itself) gets its siblings
/// in the block, with the calls between them spelled `Self::`. Other items
/// stay as written.
fn impl_block(args: &TokenStream, mut block: ItemImpl) -> TokenStream {
    if let Some((path, _)) = &block.trait_ {
        let error = syn::Error::new_spanned(
            path,
            "#[differentiable] goes on an inherent `impl Type { .. }` block: a trait impl cannot hold the generated functions",
        )
        .to_compile_error();
        return quote!(#error #block);
    }
    let mut items = Vec::with_capacity(block.items.len());
    for item in std::mem::take(&mut block.items) {
        match item {
            ImplItem::Fn(method) if selected(&method) => {
                let ImplItemFn {
                    mut attrs,
                    vis,
                    modifiers,
                    sig,
                    block: body,
                    ..
                } = method;
                attrs.retain(|attr| !attr.path().is_ident("differentiable"));
                let item = ItemFn {
                    attrs,
                    vis,
                    modifiers,
                    sig,
                    block: Box::new(body),
                };
                items.push(function(args, &item, Context::Impl));
            }
            other => items.push(other.into_token_stream()),
        }
    }
    // The block as written, its body replaced by the expanded items.
    let mut tokens: Vec<TokenTree> = block.into_token_stream().into_iter().collect();
    if let Some(TokenTree::Group(body)) = tokens.last_mut() {
        let mut expanded = Group::new(Delimiter::Brace, items.into_iter().collect());
        expanded.set_span(body.span());
        *body = expanded;
    }
    tokens.into_iter().collect()
}

/// Whether a function of an annotated `impl` block is differentiated.
fn selected(method: &ImplItemFn) -> bool {
    let marked = method
        .attrs
        .iter()
        .any(|attr| attr.path().is_ident("differentiable"));
    let returns_f64 = matches!(
        &method.sig.output,
        syn::ReturnType::Type(_, ty) if matches!(&**ty, syn::Type::Path(path) if path.qself.is_none() && path.path.is_ident("f64"))
    );
    // A vector of `f64` from a method (`Linear::forward(&self, x)`), or
    // from an associated function that takes an `f64` (`softmax(z:
    // &[f64])`); a constructor (`fn zeros(n: usize) -> Vec<f64>`) stays.
    let returns_vector = matches!(
        &method.sig.output,
        syn::ReturnType::Type(_, ty) if crate::ast::Shape::of_output(ty).is_some()
    ) && method.sig.inputs.iter().any(|input| match input {
        syn::FnArg::Receiver(_) => true,
        syn::FnArg::Typed(typed) => crate::text::mentions(typed.ty.to_token_stream(), "f64"),
    });
    marked || returns_f64 || returns_vector
}

/// Whether `item`, taking no `self`, is declared in an `impl` block
/// (`placement`): its siblings, free functions that name each other, could
/// not sit there.
fn associated_without_self(item: &ItemFn) -> bool {
    let takes_self = item
        .sig
        .inputs
        .iter()
        .any(|input| matches!(input, syn::FnArg::Receiver(_)));
    !takes_self && crate::placement::in_impl(&item.sig.ident)
}

/// The one error for an attribute on an associated function without
/// `self`, on the attribute, and the function as written (an associated
/// function, which compiles).
fn attribute_on_associated_function(item: &ItemFn) -> TokenStream {
    let name = &item.sig.ident;
    let error = syn::Error::new(
        Span::call_site(),
        format!(
            "`{name}` is an associated function without `self`: put #[differentiable] on its `impl` block instead, which differentiates the block's functions returning f64 and lets them call each other as `Self::{name}`"
        ),
    );
    fallback::expand(item, &error)
}

/// Anything but a function or an `impl` block: the error on its first
/// token, and the input unchanged.
fn not_a_function(input: TokenStream) -> TokenStream {
    let first = input.clone().into_iter().next();
    let span = first.map_or_else(Span::call_site, |token| token.span());
    let error = syn::Error::new(
        span,
        "#[differentiable] goes on a function, `fn f(x: f64) -> f64 { ... }`, or on an `impl` block of them",
    )
    .to_compile_error();
    quote!(#error #input)
}

// The path is spelled out so that a test that compiles these modules from
// elsewhere (`#[path]`) still finds the snapshots.
#[cfg(test)]
#[path = "expand/tests.rs"]
mod tests;
