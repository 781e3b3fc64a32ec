//! All the mistakes in one function, reported in one build (serde_derive's
//! `Ctxt`).

use std::cell::RefCell;
use std::fmt::Display;

use quote::ToTokens;

/// Collects spanned errors while the function is read and checked.
pub struct Ctxt {
    /// `None` once checked: a `Ctxt` dropped unchecked would lose errors.
    errors: RefCell<Option<Vec<syn::Error>>>,
}

impl Default for Ctxt {
    fn default() -> Self {
        Ctxt {
            errors: RefCell::new(Some(Vec::new())),
        }
    }
}

impl Ctxt {
    /// An error spanned on `tokens`, the user's own syntax.
    pub fn error(&self, tokens: impl ToTokens, message: impl Display) {
        self.syn_error(syn::Error::new_spanned(tokens.into_token_stream(), message));
    }

    /// Adds an error produced elsewhere (by syn's own parser).
    pub fn syn_error(&self, error: syn::Error) {
        if let Some(errors) = self.errors.borrow_mut().as_mut() {
            errors.push(error);
        }
    }

    /// All errors folded into one, or `None` if there were none.
    pub fn check(self) -> Option<syn::Error> {
        let errors = self.errors.borrow_mut().take().unwrap_or_default();
        errors.into_iter().reduce(|mut all, next| {
            all.combine(next);
            all
        })
    }
}

impl Drop for Ctxt {
    fn drop(&mut self) {
        // A bug in this crate, not a user mistake: every path must `check`.
        if !std::thread::panicking() && self.errors.get_mut().is_some() {
            panic!("#[differentiable] dropped its errors unchecked");
        }
    }
}
