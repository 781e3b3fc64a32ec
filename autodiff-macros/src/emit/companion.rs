//! The companion of an annotated free function `f`: a hidden `struct f {}`
//! in the type namespace whose `f::__tape` is `f_tape` and whose
//! `f::__forward` / `f::__reverse` are the compiled adjoint's pair
//! `f_forward` / `f_reverse`. A call `f(x)` in a recording twin or in an
//! adjoint names these, so that `use module::f;`, which imports both
//! namespaces, brings the generated siblings along, and so that a plain
//! function `f`, which has no companion, can be told apart from an
//! annotated one (see `body`'s call emission and its stand-in).

use proc_macro2::TokenStream;
use quote::{format_ident, quote, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, Pat};

/// `struct f {}` and `impl f { fn __tape(..) fn __forward(..) fn
/// __reverse(..) }`, each forwarding to the sibling of that name in
/// `tape_twin` (the recording twin `f_tape` as emitted) and `grad` (the
/// gradient items, with the adjoint's pair).
pub fn item(
    name: &syn::Ident,
    vis: &syn::Visibility,
    tape_twin: &TokenStream,
    grad: &TokenStream,
) -> TokenStream {
    let twin: syn::ItemFn = match syn::parse2(tape_twin.clone()) {
        Ok(twin) => twin,
        Err(error) => return error.to_compile_error(),
    };
    let mut methods = vec![forwarder(&twin, "__tape", vis)];
    if let Ok(file) = syn::parse2::<syn::File>(grad.clone()) {
        for (sibling, method) in [("forward", "__forward"), ("reverse", "__reverse")] {
            let wanted = format_ident!("{}_{}", name, sibling);
            let found = file.items.iter().find_map(|item| match item {
                syn::Item::Fn(function) if function.sig.ident == wanted => Some(function),
                _ => None,
            });
            if let Some(function) = found {
                methods.push(forwarder(function, method, vis));
            }
        }
    }
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        #[allow(dead_code, clippy::too_many_arguments)]
        impl #name {
            #(#methods)*
        }
    }
}

/// `fn method(<sibling's parameters>) { sibling(<them>) }`.
fn forwarder(sibling: &syn::ItemFn, method: &str, vis: &syn::Visibility) -> TokenStream {
    let target = &sibling.sig.ident;
    let mut sig = sibling.sig.clone();
    sig.ident = syn::Ident::new(method, sig.ident.span());
    let mut args = Vec::new();
    for input in &mut sig.inputs {
        if let FnArg::Typed(typed) = input {
            if let Pat::Ident(pat) = &mut *typed.pat {
                pat.mutability = None;
                // Located at the type, as the twin's own parameter is: a
                // type that is not a model is then one error, not two.
                let span = typed.ty.span().resolved_at(pat.ident.span());
                let mut arg = pat.ident.clone();
                arg.set_span(span);
                args.push(arg.to_token_stream());
            }
        }
    }
    quote! {
        #[inline(always)]
        #vis #sig {
            #target(#(#args),*)
        }
    }
}
