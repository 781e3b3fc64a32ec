//! What a rejected function expands to: the errors and the function itself
//! (with `#[constant]` removed), so that its callers still compile and the
//! student sees only the mistakes that matter (thiserror's `fallback.rs`).

use proc_macro2::TokenStream;
use quote::quote;

use crate::attr;

pub fn expand(item: &syn::ItemFn, error: &syn::Error) -> TokenStream {
    let errors = error.to_compile_error();
    let original = attr::without_constant_markers(item);
    quote! {
        #errors
        #original
    }
}
