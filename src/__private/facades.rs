//! The check that a body's `relu(x)`, `sigmoid(x)`, `detach(x)`,
//! `x.relu()` and `x.sigmoid()` name autodiff's functions: the macro reads
//! those names as rows of the table (their derivatives are autodiff's),
//! so a function of the student's own under one of them would get
//! autodiff's derivative beside its own value. The recording twin passes
//! the name as written and autodiff's function to [`Autodiffs::named`],
//! which compiles only when both are the same function.

/// Implemented by a function for itself only: `A: AutodiffsOwn<B>` holds
/// when `A` and `B` are the same function item.
#[diagnostic::on_unimplemented(
    message = "this `{Self}` is not autodiff's function of the same name",
    label = "#[differentiable] reads this call as autodiff's, with autodiff's derivative",
    note = "in a #[differentiable] body, `relu(x)`, `sigmoid(x)`, `detach(x)`, `x.relu()` and `x.sigmoid()` are autodiff's functions; a function of your own needs another name (`my_relu`), and #[differentiable] on it, to be differentiated as you wrote it"
)]
pub trait AutodiffsOwn<F> {}

impl<F> AutodiffsOwn<F> for F {}

/// Autodiff's function, which [`Autodiffs::named`] compares with the name
/// as the body resolves it (two steps, so that the second's type is
/// inferred from what is written, not unified with the first).
pub struct Autodiffs<F>(pub F);

impl<F> Autodiffs<F> {
    /// Compiles when `written` is this very function; does nothing at run
    /// time.
    #[inline(always)]
    pub fn named<A: AutodiffsOwn<F>>(self, written: A) {
        let _ = (self, written);
    }
}
