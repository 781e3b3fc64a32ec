//! An adjoint flowing into an expression ([`Seed`]), scaled by a local
//! derivative and signed for a callee's reverse.

use proc_macro2::TokenStream;
use quote::quote;

use super::rules::Factor;

/// An adjoint flowing into an expression: `tokens` (added, or subtracted
/// when `negated`), and whether it is a whole array's (added with
/// `accumulate`) rather than a scalar's.
#[derive(Clone)]
pub struct Seed {
    pub tokens: TokenStream,
    pub negated: bool,
    pub whole: bool,
    /// A call's cotangent passed by value and shaped like its value,
    /// which may be a number or a vector: the zeros of one the body never
    /// reads (`__adjoint::unread`), or the element's adjoint of one pushed
    /// onto a `Vec`. The callee's reverse gets its arguments as a
    /// vector-valued call's does.
    pub unread: bool,
    /// The tokens are an adjoint the sweep reads no more (a `let`'s or
    /// an assignment's of a call's value): a vector-valued callee takes
    /// it by value as its cotangent, where it would clone one it borrows.
    pub owned: bool,
}

impl Seed {
    pub fn new(tokens: TokenStream) -> Seed {
        Seed {
            tokens,
            negated: false,
            whole: false,
            unread: false,
            owned: false,
        }
    }

    pub(super) fn negate(mut self) -> Seed {
        self.negated = !self.negated;
        self
    }

    /// The seed times `factor`.
    pub(super) fn times(&self, factor: &Factor) -> Seed {
        let seed = &self.tokens;
        let (tokens, negated) = match factor {
            Factor::One => (seed.clone(), false),
            Factor::Times(f, negated) => (quote!(#seed * #f), *negated),
            Factor::Over(f, negated) => (quote!(#seed / #f), *negated),
        };
        Seed {
            tokens,
            negated: self.negated ^ negated,
            // Times one, a row of a nested array literal's seed (`[[c, -s],
            // [s, c]]`) is still the row's whole adjoint.
            whole: self.whole && matches!(factor, Factor::One),
            unread: false,
            owned: false,
        }
    }

    /// The seed's value with its sign: what a callee's reverse receives.
    pub(super) fn signed(&self) -> TokenStream {
        let tokens = &self.tokens;
        if self.negated {
            quote!(-(#tokens))
        } else {
            tokens.clone()
        }
    }
}
