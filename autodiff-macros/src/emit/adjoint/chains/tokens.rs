//! Names in token streams: the identifiers a new binding could shadow,
//! how often a name occurs, and a name renamed or read as other tokens
//! (never a field or method after a `.`, and never inside a macro, whose
//! tokens may name it in a format string).

use std::collections::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};

/// `tokens` with the name `from` (not a field or method after a `.`) read
/// as `to`; `None` with a macro, whose tokens are not expressions.
pub(super) fn substitute(tokens: TokenStream, from: &str, to: &TokenStream) -> Option<TokenStream> {
    substitute_all(tokens, &HashMap::from([(from.to_owned(), to.clone())]))
}

/// [`substitute`] of every name `reads` has at once (a name one read
/// brings in is not read again).
pub(super) fn substitute_all(
    tokens: TokenStream,
    reads: &HashMap<String, TokenStream>,
) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    for (k, token) in tokens.iter().enumerate() {
        let after_dot =
            k > 0 && matches!(&tokens[k - 1], TokenTree::Punct(p) if p.as_char() == '.');
        match token {
            TokenTree::Punct(punct)
                if punct.as_char() == '!'
                    && k > 0
                    && matches!(tokens[k - 1], TokenTree::Ident(_))
                    && matches!(tokens.get(k + 1), Some(TokenTree::Group(_))) =>
            {
                return None;
            }
            TokenTree::Ident(ident) if !after_dot && reads.contains_key(&ident.to_string()) => {
                out.extend(reads[&ident.to_string()].clone());
            }
            TokenTree::Group(group) => {
                let mut inner = proc_macro2::Group::new(
                    group.delimiter(),
                    substitute_all(group.stream(), reads)?,
                );
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other.clone()]),
        }
    }
    Some(out)
}

/// The identifiers a new binding could shadow: all but method and field
/// names (after a `.`), so that the loop of a `.sum()` may be `sum`.
pub(super) fn collect(tokens: TokenStream, idents: &mut HashSet<String>) {
    let mut after_dot = false;
    for token in tokens {
        match &token {
            TokenTree::Ident(ident) if !after_dot => {
                idents.insert(ident.to_string());
            }
            TokenTree::Group(group) => collect(group.stream(), idents),
            _ => {}
        }
        after_dot = matches!(&token, TokenTree::Punct(punct) if punct.as_char() == '.');
    }
}

/// `tokens` with the variable `from` named `to` (not a field or method
/// after a `.`); `None` where a macro might name it in a format string.
pub(super) fn rename(tokens: TokenStream, from: &str, to: &syn::Ident) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (k, token) in tokens.iter().enumerate() {
        let after_dot =
            k > 0 && matches!(&tokens[k - 1], TokenTree::Punct(p) if p.as_char() == '.');
        match token {
            TokenTree::Punct(punct)
                if punct.as_char() == '!'
                    && k > 0
                    && matches!(tokens[k - 1], TokenTree::Ident(_))
                    && matches!(tokens.get(k + 1), Some(TokenTree::Group(_))) =>
            {
                return None;
            }
            TokenTree::Ident(ident) if ident == from && !after_dot => {
                out.push(TokenTree::Ident(syn::Ident::new(
                    &to.to_string(),
                    ident.span(),
                )));
            }
            TokenTree::Group(group) => {
                let mut renamed =
                    proc_macro2::Group::new(group.delimiter(), rename(group.stream(), from, to)?);
                renamed.set_span(group.span());
                out.push(TokenTree::Group(renamed));
            }
            other => out.push(other.clone()),
        }
    }
    Some(out.into_iter().collect())
}

pub(super) fn count(tokens: TokenStream, name: &str) -> usize {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Ident(ident) => usize::from(ident == name),
            TokenTree::Group(group) => count(group.stream(), name),
            _ => 0,
        })
        .sum()
}
