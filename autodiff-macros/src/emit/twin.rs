//! The plain twin `f`: the function exactly as written, less the
//! `#[constant]` markers that only this macro understands.

use proc_macro2::TokenStream;
use quote::quote;

use crate::ast::Function;
use crate::attr;

pub fn item(function: &Function) -> TokenStream {
    let twin = attr::without_constant_markers(function.written);
    quote! {
        // The twin is used by `_check_with`; a caller that only wants the
        // gradient should not be told that the function it wrote is unused.
        #[allow(dead_code)]
        #twin
    }
}
