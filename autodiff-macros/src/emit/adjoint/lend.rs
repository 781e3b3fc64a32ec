//! How a vector-valued callee's adjoint (`shaped::compiled_dot`, entered
//! as `Entry::Intermediates`) hands its gradient to the caller: into the
//! caller's adjoints of the arguments, which its pair passes on, rather
//! than as a gradient of its own pushed through the stack.
//!
//! A parameter read through a shared slice (`w: &[Vec<f64>]`), bound once
//! and of numbers, is never assigned in the body, so its adjoint is only
//! ever added to: the caller's adjoint is lent to the sweep as its own
//! (`__adjoint::lend`, the rows moved, not copied) and given back after
//! the checks, which then see the caller's sum. Any other parameter keeps
//! an adjoint of its own, which starts at zero as its sweep assumes, and is
//! added into the caller's as the pair did: pushed and popped.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::{model_call, Argument};
use crate::ast::{Kind, Param};

/// What `f_adjoint` of a vector-valued callee adds for its caller.
pub(super) struct IntoCaller {
    /// One `&mut` adjoint of the caller's per differentiable parameter,
    /// after the parameters (`__cotangent` last among them).
    pub inputs: Vec<TokenStream>,
    /// Per differentiable parameter: the `let` that lends the caller's
    /// adjoint, or `None` where the sweep declares its own.
    pub lent: Vec<Option<TokenStream>>,
    /// After the checks: each adjoint given back or added into the
    /// caller's.
    pub give: Vec<TokenStream>,
}

/// `bars` are the differentiable parameters with their adjoints' names,
/// `gradients` what `f_adjoint` would return for each (a model's constants
/// carried), `movable` whether the body may move or shadow a parameter.
pub(super) fn into_caller(
    bars: &[(&Param, Ident)],
    gradients: &[TokenStream],
    movable: &dyn Fn(&Param) -> bool,
    stack: &Ident,
) -> IntoCaller {
    let mut into = IntoCaller {
        inputs: Vec::new(),
        lent: Vec::new(),
        give: Vec::new(),
    };
    for ((param, bar), gradient) in bars.iter().zip(gradients) {
        let caller = Ident::new(
            &format!("__caller_{}", param.ident.unraw()),
            Span::mixed_site(),
        );
        let ty = super::pair::bar_type(&param.kind);
        into.inputs.push(quote!(#caller: &mut #ty));
        if lendable(param, movable) {
            into.lent.push(Some(
                quote!(let mut #bar = ::autodiff::__adjoint::lend(#caller);),
            ));
            into.give
                .push(quote!(::autodiff::__adjoint::give_back(#caller, #bar);));
            continue;
        }
        into.lent.push(None);
        into.give.push(match &param.kind {
            Kind::Struct { ty, .. } => {
                let push = model_call(
                    ty,
                    "push_gradient",
                    &[
                        Argument::Bound("gradient", quote!(&#gradient)),
                        Argument::Plain(quote!(#stack)),
                    ],
                );
                let pop = model_call(
                    ty,
                    "pop_gradient",
                    &[
                        Argument::Bound("bar", quote!(#caller)),
                        Argument::Plain(quote!(#stack)),
                        Argument::Plain(quote!(1.0)),
                    ],
                );
                quote!(#push; #pop;)
            }
            _ => {
                let gradient_ident = format_ident!("__gradient_{}", param.ident.unraw());
                quote! {
                    let #gradient_ident = #gradient;
                    ::autodiff::__adjoint::Spread::push_all(&#gradient_ident, #stack);
                    ::autodiff::__adjoint::Spread::pop_scaled(#caller, #stack, 1.0);
                }
            }
        });
    }
    into
}

/// Whether the caller's adjoint of `param` can be the sweep's: a shared
/// slice of numbers, not `mut`, bound once (`movable` is false), so that
/// nothing assigns it and its adjoint is only added to.
fn lendable(param: &Param, movable: &dyn Fn(&Param) -> bool) -> bool {
    matches!(param.kind, Kind::Slice(_))
        && !param.kind.holds_struct()
        && param.mutability.is_none()
        && !movable(param)
}
