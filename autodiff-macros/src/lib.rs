//! `#[differentiable]`: an ordinary scalar Rust function in, its plain twin,
//! a recording twin, its gradient and a gradient check out.
//!
//! Use it through the `autodiff` facade; the generated code names
//! everything through `::autodiff::__private`. The expansion runs in
//! passes, as thiserror's does, and `expand` lists them in order:
//!
//! | file | pass |
//! |---|---|
//! | `ast.rs`, `ast/` | the model: parameters, and the body as a tree of operations, control flow and plain Rust, each node labelled |
//! | `lower/` | reads the function into the model, noting every unsupported construct: parameters, statements, expressions, calls |
//! | `vocabulary.rs` | which method and function names are operations, plain methods or rejected |
//! | `receiver.rs` | a method's `self` read as a parameter `__self` (`emit/method.rs` makes the items methods again) |
//! | `writes.rs` | a `for` that writes through `v.iter_mut()` read as an index loop (the plain twin stays as written) |
//! | `valid.rs` | checks the signature and words every rejection |
//! | `flow.rs` | finds the bindings and expressions a differentiable parameter reaches |
//! | `emit/` | one file per generated item: `twin`, `tape` (with `body`), `grad`, `check`; `adjoint/` writes the compiled adjoint (`f_adjoint`, and the pair `f::__forward`/`f::__reverse` on the companion, `companion`) |
//! | `ctxt.rs`, `fallback.rs` | all errors at once, and the function unchanged when there are any |
//! | `placement.rs` | whether an annotated function without `self` sits in an `impl` block (read from its source file) |
//! | `attr.rs`, `text.rs` | the attribute's arguments and `#[constant]`; labels' source text |
//! | `derive.rs` | `#[derive(Parameters)]`: a struct of differentiable fields becomes a model |
//!
//! Every mistake is collected in one `Ctxt`, so a student sees all of them
//! in one build, and a rejected function is emitted unchanged so that its
//! callers see no cascade of errors.

mod ast;
mod attr;
mod backward;
mod blocks;
mod ctxt;
mod derive;
mod emit;
mod expand;
mod fallback;
mod flow;
mod lower;
mod parts;
mod placement;
mod receiver;
mod text;
mod valid;
mod vocabulary;
mod writes;

use proc_macro::TokenStream;

/// Generates `f_tape`, `f_grad`, `f_grad_tape`, `f_grad_on`, `f_check` and `f_check_with` next to the
/// annotated function `f`; see the `autodiff` crate for the full story.
#[proc_macro_attribute]
pub fn differentiable(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::differentiable(args.into(), input.into()).into()
}

/// `#[derive(Parameters)]`: makes a struct of differentiable fields a model
/// (see `autodiff::Parameters`); fields marked `#[constant]` are carried.
/// A student's hand-written backward pass for the `#[differentiable]`
/// function `f`: kept as written, plus `NAME_check(args…)` and
/// `NAME_check_random(seed, args…)`, which compare every adjoint it
/// computes with the exact adjoint of `f`'s binding of the same name. See
/// `autodiff::backward`.
#[proc_macro_attribute]
pub fn backward(args: TokenStream, input: TokenStream) -> TokenStream {
    backward::backward(args.into(), input.into()).into()
}

#[proc_macro_derive(Parameters, attributes(constant))]
pub fn derive_parameters(input: TokenStream) -> TokenStream {
    derive::parameters(input.into()).into()
}
