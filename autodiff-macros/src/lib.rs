//! `#[differentiable]`: an ordinary scalar Rust function in, its plain twin,
//! a recording twin, its gradient and a gradient check out.
//!
//! Use it through the `autodiff` facade; the generated code names
//! everything through `::autodiff::__private`. The expansion runs in
//! passes, as thiserror's does: `ast` reads the function into a small model
//! of its body (operations, operands, control flow, labels), `valid` checks
//! the signature, `flow` finds the bindings a differentiable parameter
//! reaches, and `expand` emits. Every mistake found on the way is collected
//! in one `Ctxt`, so a student sees all of them in one build, and a rejected
//! function is emitted unchanged (`fallback`) so that its callers see no
//! cascade of errors.

mod ast;
mod attr;
mod ctxt;
mod derive;
mod expand;
mod fallback;
mod flow;
mod text;
mod valid;

use proc_macro::TokenStream;

/// Generates `f_tape`, `f_grad`, `f_grad_on`, `f_check` and `f_check_with` next to the
/// annotated function `f`; see the `autodiff` crate for the full story.
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::differentiable(args.into(), input.into()).into()
}

/// `#[derive(Parameters)]`: makes a struct of differentiable fields a model
/// (see `autodiff::Parameters`); fields marked `#[constant]` are carried.
#[proc_macro_derive(Parameters, attributes(constant))]
pub fn derive_parameters(input: TokenStream) -> TokenStream {
    derive::parameters(input.into()).into()
}
