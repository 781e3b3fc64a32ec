//! What a rejected function expands to: the errors and the function itself
//! (with `#[constant]` removed), so that its callers still compile and the
//! student sees only the mistakes that matter (thiserror's `fallback.rs`).

use proc_macro2::TokenStream;
use quote::quote;

pub fn expand(original: &syn::ItemFn, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    quote! {
        #errors
        #original
    }
}
