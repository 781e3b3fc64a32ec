//! Emits the items, one file per item it generates: the plain twin `f`
//! (`twin`), the recording twin `f_tape` (`tape`, with the body rewritten
//! by `body`), the gradient `f_grad` and `f_grad_on` (`grad`), and the
//! checks `f_check` and `f_check_with` (`check`). Every emitter reads the
//! model and the flow analysis; none re-reads the user's syntax.

mod adjoint;
mod body;
mod check;
mod grad;
mod tape;
mod twin;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Attribute, Ident};

use crate::ast::{Function, Label, Param};
use crate::flow::Flow;

/// Every generated item, in the order `cargo expand` shows them.
pub fn items(function: &Function, flow: &Flow) -> TokenStream {
    let names = Names::new(function);
    let twin = twin::item(function);
    let tape = tape::item(function, flow, &names);
    let grad = grad::items(function, &names);
    let check = check::items(function, &names);
    quote!(#twin #tape #grad #check)
}

/// The names the items share: the function's, its generated siblings', and
/// the hygienic locals of the generated code.
struct Names<'m> {
    name: &'m Ident,
    tape_fn: Ident,
    grad_fn: Ident,
    grad_on_fn: Ident,
    check_fn: Ident,
    check_with_fn: Ident,
    /// The tape argument: `Span::mixed_site`, so that it never clashes
    /// with a user's binding called `tape`.
    tape: Ident,
    /// Attributes other than docs (`#[inline]`, `#[allow(..)]`, ...) apply
    /// to every generated item; the docs stay on the twin.
    attrs: Vec<&'m Attribute>,
    /// `<'a, ...>` of the user's lifetimes, or nothing.
    generics: TokenStream,
}

impl<'m> Names<'m> {
    fn new(function: &'m Function) -> Self {
        let sig = &function.item.sig;
        let name = &sig.ident;
        let lifetimes = &sig.generics.params;
        Names {
            name,
            tape_fn: format_ident!("{}_tape", name),
            grad_fn: format_ident!("{}_grad", name),
            grad_on_fn: format_ident!("{}_grad_on", name),
            check_fn: format_ident!("{}_check", name),
            check_with_fn: format_ident!("{}_check_with", name),
            tape: Ident::new("tape", Span::mixed_site()),
            attrs: function
                .item
                .attrs
                .iter()
                .filter(|attr| !attr.path().is_ident("doc"))
                .collect(),
            generics: if lifetimes.is_empty() {
                quote!()
            } else {
                quote!(<#lifetimes>)
            },
        }
    }
}

/// The differentiable parameters, in order.
fn differentiable<'m>(function: &'m Function) -> Vec<&'m Param> {
    function
        .params
        .iter()
        .filter(|param| param.kind.is_differentiable())
        .collect()
}

/// The user's parameters, `#[constant]` markers removed.
fn user_params(function: &Function) -> Vec<TokenStream> {
    function
        .params
        .iter()
        .map(|param| {
            let ident = &param.ident;
            let ty = &param.ty;
            quote!(#ident: #ty)
        })
        .collect()
}

/// The variables recorded for a differentiable parameter.
fn variable_ident(ident: &Ident) -> Ident {
    Ident::new(&format!("{ident}_var"), Span::mixed_site())
}

/// A parameter's label: its name and line.
fn param_label(param: &Param) -> TokenStream {
    label(&Label {
        text: param.ident.to_string(),
        line: param.line,
    })
}

/// A node's label, as the runtime takes it.
fn label(label: &Label) -> TokenStream {
    let text = &label.text;
    let line = proc_macro2::Literal::u32_unsuffixed(label.line);
    quote!(__ad::at(#text, #line))
}
