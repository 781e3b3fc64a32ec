//! The local derivative of each elementary function, as the reverse sweep
//! writes it: a factor of the seed, read from the operand's value and, for
//! the functions whose derivative is cheapest from their result (`exp`,
//! `tanh`, `sqrt`, ...), from the hoisted result. Each is the tape's rule
//! (`autodiff-core/src/ops.rs`); `tanh` reads `1 − tanh²` from the saved
//! output, as lesson 15 writes it, where the tape computes `1/cosh²`.

use proc_macro2::TokenStream;
use quote::quote;

use super::sweep::{Sweep, Unsupported};
use crate::ast::Expr;

/// How the seed is scaled on its way to an operand.
pub enum Factor {
    One,
    /// `seed * f`, negated if the flag says so.
    Times(TokenStream, bool),
    /// `seed / f`, negated if the flag says so.
    Over(TokenStream, bool),
}

/// Functions that can turn a non-finite operand into a finite result:
/// their operands are observed, so that the compiled path reruns the tape
/// where the tape would have rejected the operand.
pub fn absorbs(func: &str) -> bool {
    matches!(
        func,
        "tanh"
            | "exp"
            | "atan"
            | "sigmoid"
            | "relu"
            | "detach"
            | "signum"
            | "floor"
            | "ceil"
            | "round"
            | "exp_m1"
            | "recip"
    )
}

/// The factor for `func(operand)` (`whole` is the call), or `None` for a
/// function whose derivative is 0 (`detach`, `floor`, ...).
pub fn elementary(
    sweep: &mut Sweep,
    func: &str,
    operand: &Expr,
    whole: &Expr,
) -> Result<Option<Factor>, Unsupported> {
    let adjoint = quote!(::autodiff::__adjoint);
    let times = |f: TokenStream| Ok(Some(Factor::Times(f, false)));
    let over = |f: TokenStream| Ok(Some(Factor::Over(f, false)));
    match func {
        "detach" | "signum" | "floor" | "ceil" | "round" => Ok(None),
        "exp" => {
            let v = sweep.hoist(whole);
            times(quote!(#v))
        }
        "tanh" => {
            let v = sweep.hoist(whole);
            times(quote!((1.0 - #v * #v)))
        }
        "sqrt" => {
            let v = sweep.hoist(whole);
            times(quote!((0.5 / #v)))
        }
        "recip" => {
            let v = sweep.hoist(whole);
            Ok(Some(Factor::Times(quote!((#v * #v)), true)))
        }
        "tan" => {
            let v = sweep.hoist(whole);
            times(quote!((1.0 + #v * #v)))
        }
        "cbrt" => {
            let v = sweep.hoist(whole);
            over(quote!((3.0 * #v * #v)))
        }
        "ln" => {
            let x = sweep.val(operand)?;
            over(x)
        }
        "sin" => {
            let x = sweep.val(operand)?;
            times(quote!(#x.cos()))
        }
        "cos" => {
            let x = sweep.val(operand)?;
            Ok(Some(Factor::Times(quote!(#x.sin()), true)))
        }
        "sinh" => {
            let x = sweep.val(operand)?;
            times(quote!(#x.cosh()))
        }
        "cosh" => {
            let x = sweep.val(operand)?;
            times(quote!(#x.sinh()))
        }
        "exp_m1" => {
            let x = sweep.val(operand)?;
            times(quote!(#x.exp()))
        }
        "atan" => {
            let x = sweep.val(operand)?;
            over(quote!((1.0 + #x * #x)))
        }
        "asin" | "acos" => {
            let x = sweep.val(operand)?;
            Ok(Some(Factor::Over(
                quote!(((1.0 - #x) * (1.0 + #x)).sqrt()),
                func == "acos",
            )))
        }
        "ln_1p" => {
            let x = sweep.val(operand)?;
            over(quote!((1.0 + #x)))
        }
        "log10" => {
            let x = sweep.val(operand)?;
            over(quote!((#x * ::core::f64::consts::LN_10)))
        }
        "log2" => {
            let x = sweep.val(operand)?;
            over(quote!((#x * ::core::f64::consts::LN_2)))
        }
        "abs" | "relu" | "sigmoid" => {
            let x = sweep.val(operand)?;
            let name = proc_macro2::Ident::new(func, proc_macro2::Span::call_site());
            times(quote!(#adjoint::derivative::#name(#x)))
        }
        other => Err(Unsupported {
            construct: format!("`{other}`"),
            line: crate::text::line(whole.span),
        }),
    }
}
