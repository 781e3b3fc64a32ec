//! All the mistakes in one function, reported in one build (serde_derive's
//! `Ctxt`).

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects spanned errors while the function is read and checked.
#[derive(Default)]
pub struct Ctxt {
    errors: RefCell<Vec<syn::Error>>,
}

impl Ctxt {
    /// An error spanned on `tokens`, the user's own syntax.
    pub fn error(&self, tokens: impl ToTokens, message: impl Display) {
        self.errors
            .borrow_mut()
            .push(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Adds an error produced elsewhere (by syn's own parser).
    pub fn syn_error(&self, error: syn::Error) {
        self.errors.borrow_mut().push(error);
    }

    /// All errors folded into one, or `None` if there were none.
    pub fn check(self) -> Option<syn::Error> {
        self.errors
            .into_inner()
            .into_iter()
            .reduce(|mut all, next| {
                all.combine(next);
                all
            })
    }
}
