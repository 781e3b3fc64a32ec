//! The companion of an annotated free function `f`: a hidden `struct f {}`
//! in the type namespace whose `f::__tape` is `f_tape`. A call `f(x)` in a
//! recording twin names `f::__tape`, so that `use module::f;`, which
//! imports both namespaces, brings the recording twin along, and so that a
//! plain function `f`, which has no companion, can be told apart from an
//! annotated one (see `body`'s call emission and its stand-in).

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::spanned::Spanned;
use syn::{FnArg, Pat};

/// `struct f {}` and `impl f { fn __tape(..) }` forwarding to `tape_twin`,
/// the recording twin `f_tape` as emitted.
pub fn item(name: &syn::Ident, vis: &syn::Visibility, tape_twin: &TokenStream) -> TokenStream {
    let twin: syn::ItemFn = match syn::parse2(tape_twin.clone()) {
        Ok(twin) => twin,
        Err(error) => return error.to_compile_error(),
    };
    let tape_fn = &twin.sig.ident;
    let mut sig = twin.sig.clone();
    sig.ident = syn::Ident::new("__tape", name.span());
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
    // The twin's lifetimes, in order, so that explicit ones line up.
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        #[allow(dead_code, clippy::too_many_arguments)]
        impl #name {
            #[inline(always)]
            #vis #sig {
                #tape_fn(#(#args),*)
            }
        }
    }
}
