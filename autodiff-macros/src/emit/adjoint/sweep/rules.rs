//! The local derivative of each function, as the reverse sweep writes it:
//! a factor of the seed that calls the rule the table of operations names
//! (`autodiff-ops-table`; the rules are `autodiff-core/src/rules.rs`, which
//! the tape calls too), with the operand's value or the hoisted result, as
//! the row says the rule reads. Nothing here names a function: a new row
//! is compiled without an edit.

use autodiff_ops_table::{by_callee, by_method, Operation, Rule, Spelling};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::{Sweep, Unsupported};
use crate::ast::Expr;

/// How the seed is scaled on its way to an operand.
pub enum Factor {
    One,
    /// `seed * f`, negated if the flag says so.
    Times(TokenStream, bool),
    /// `seed / f`, negated if the flag says so.
    Over(TokenStream, bool),
}

/// Whether `func` can hide a non-finite operand from what the compiled
/// path observes ([`Operation::absorbs`]): its operand is observed, so
/// that the compiled path reruns the tape where the tape would have
/// rejected the operand.
pub fn absorbs(func: &str) -> bool {
    by_callee(func).is_some_and(|op| op.absorbs)
}

/// The engine's variant of the one-operand function `func`
/// (`::autodiff::ScalarOperation::Tanh`), whose value and rule
/// `Stack::observe_operand_of` evaluates at an infinite operand, or `None`
/// for a row of another kind (its operand is then observed finite).
pub fn one_operand(func: &str) -> Option<TokenStream> {
    let op: &Operation = by_callee(func)?;
    match (op.spelling, op.rule) {
        (
            Spelling::Method { arguments: 0, .. } | Spelling::Function(_),
            Rule::Operand(_) | Rule::Result(_) | Rule::Zero,
        ) => {
            let variant = Ident::new(op.variant, Span::call_site());
            Some(quote!(::autodiff::ScalarOperation::#variant))
        }
        _ => None,
    }
}

/// `::autodiff::__adjoint::rules::name`, the rule a row names.
fn rule_path(name: &str, dual: bool) -> TokenStream {
    let name = Ident::new(name, Span::call_site());
    if dual {
        quote!(::autodiff::__adjoint::dual_rules::#name)
    } else {
        quote!(::autodiff::__adjoint::rules::#name)
    }
}

/// The factor for `func(operand)` (`whole` is the call), or `None` for a
/// function whose derivative is 0 (`detach`, `floor`, ...).
pub fn elementary(
    sweep: &mut Sweep,
    func: &str,
    operand: &Expr,
    whole: &Expr,
) -> Result<Option<Factor>, Unsupported> {
    let unsupported = || Unsupported {
        construct: format!("`{func}`"),
        line: crate::text::line(whole.span),
    };
    let op: &Operation = by_callee(func).ok_or_else(unsupported)?;
    let (rule, read) = match op.rule {
        Rule::Zero => return Ok(None),
        Rule::Operand(rule) => (rule, sweep.val(operand)?),
        Rule::Result(rule) => {
            let y = sweep.hoist(whole);
            (rule, quote!(#y))
        }
        Rule::None | Rule::Operands(_) | Rule::Power(_) => return Err(unsupported()),
    };
    let rule = rule_path(rule, sweep.dual);
    Ok(Some(Factor::Times(quote!(#rule(#read)), false)))
}

/// The rule giving both partials of the two-operand method `name`
/// (`max`, `powf`, ...), if the table has one.
pub fn two_operand(name: &str, dual: bool) -> Option<TokenStream> {
    match by_method(name)?.rule {
        Rule::Operands(rule) => Some(rule_path(rule, dual)),
        _ => None,
    }
}

/// The rule of `x.powi(n)`.
pub fn powi(dual: bool) -> TokenStream {
    match by_method("powi").map(|op| op.rule) {
        Some(Rule::Power(rule)) => rule_path(rule, dual),
        other => unreachable!("the table's powi row has a power rule, not {other:?}"),
    }
}
