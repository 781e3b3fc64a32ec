//! The names and descriptions the sweeps write: a pattern's first name's
//! span, a callee's `forward` or `reverse` sibling, readable text, an
//! adjoint's binding, the construct a refusal names, and the adjoint an
//! argument's `&mut` place borrows.

use proc_macro2::{Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};

use crate::ast::{Expr, ExprKind};
use crate::text;

pub(super) fn first_ident_span(pat: &syn::Pat) -> Span {
    pat.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |token| token.span())
}

/// `g`'s `forward` or `reverse` sibling, which the sweeps call with the
/// arguments as one tuple through `args(..)` (`src/__adjoint/calls.rs`).
///
/// An associated function's (`Self::g`) is named directly, `Self::g_forward`.
/// A free function's is its companion's `g::__forward`, looked up the way
/// the recording twin looks up `g::__tape` (`body`'s `recording_twin`), so
/// that `use m::g;` brings it along. A plain `g` has no companion: it
/// resolves to a stand-in that takes any arguments and never runs, because
/// the recording twin's own stand-in has already made that call a compile
/// error with the message a student reads; the adjoint adds no second one.
/// The stand-ins are declared once, at the top of `f_adjoint`
/// ([`Sweep::stand_ins`]).
pub(super) fn sibling(
    stand_ins: &crate::emit::StandIns,
    func: &syn::Path,
    suffix: &str,
) -> TokenStream {
    let (name, scope) = match crate::emit::Callee::of(func) {
        crate::emit::Callee::Associated(path) => return crate::emit::sibling_path(&path, suffix),
        crate::emit::Callee::Free { name, scope } => (name, scope),
    };
    let method = format_ident!("__{}", suffix);
    stand_ins.lookup(&name, &scope, &method, || {
        let not = quote!(::core::option::Option<::autodiff::__adjoint::NotDifferentiable>);
        let (stack, dual) = (
            quote!(&mut ::autodiff::__adjoint::DualStack),
            quote!(::autodiff::Dual),
        );
        let signature = match suffix {
            "forward" => quote!((_: &mut ::autodiff::__adjoint::Stack, _: #not) -> f64),
            "forward_dual" => quote!((_: #stack, _: #not) -> #dual),
            "reverse_dual" => quote!((_: #stack, _: #dual, _: #not)),
            _ => quote!((_: &mut ::autodiff::__adjoint::Stack, _: #not, _: f64, _: #not)),
        };
        quote!(pub fn #method #signature { loop {} })
    })
}

/// A readable identifier from source text: `s[j]` -> `s_j`.
pub(super) fn sanitize(text: &str) -> String {
    let mut out = String::new();
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("value_{out}")
    } else {
        out
    }
}

/// The identifier of the binding `name` (`r#type` included).
pub(super) fn binding(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

/// An `if` inside an expression, as the fallback doc line names it.
pub fn describe_if_value() -> String {
    "an `if` value".to_owned()
}

/// What a construct is, for the fallback doc line.
pub fn describe(expr: &Expr) -> String {
    let what = match &expr.kind {
        ExprKind::While { .. } => "`while`",
        ExprKind::Loop { .. } => "`loop`",
        ExprKind::Match { .. } => "`match`",
        ExprKind::Return(_) => "an early `return`",
        ExprKind::Break { .. } => "`break`",
        ExprKind::Continue(_) => "`continue`",
        ExprKind::Block(..) => "a block",
        ExprKind::Tuple(_) => "a tuple",
        ExprKind::Structural { method, .. } | ExprKind::PlainMethod { method, .. } => {
            return format!("`.{method}()`");
        }
        ExprKind::Field { .. } => "a field of a model",
        ExprKind::If { .. } => return describe_if_value(),
        _ => {
            return format!(
                "`{}`",
                text::tokens(expr.source.to_token_stream())
                    .chars()
                    .take(40)
                    .collect::<String>()
            )
        }
    };
    what.to_owned()
}

/// The adjoint an argument's `&mut` place borrows (`x_bar` of `&mut
/// x_bar[1]` and of `&mut x_bar`).
pub(super) fn bar_root(tokens: &TokenStream) -> Option<String> {
    tokens.clone().into_iter().find_map(|token| match token {
        TokenTree::Ident(ident) if ident != "mut" => Some(ident.to_string()),
        // A row's adjoint borrowed for a trip or a binding, `(*c_bar)`.
        TokenTree::Group(group) if group.delimiter() == proc_macro2::Delimiter::Parenthesis => {
            bar_root(&group.stream())
        }
        _ => None,
    })
}
