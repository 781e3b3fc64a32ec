//! `x.windows(n)` and `x.chunks(n)` as the source of a chain, read as a
//! loop over where each window or chunk starts:
//! `x.windows(2).map(|w| (w[1] - w[0]).powi(2)).sum()` is
//!
//! ```text
//! for (w_at, _) in x.iter().enumerate() {
//!     if w_at + 1 < x.len() {
//!         sum += (x[w_at + 1] - x[w_at + 0]).powi(2);
//!     }
//! }
//! ```
//!
//! and `x.chunks(2).map(|c| c[0] * c[1])` reads `x[c_at + 0]` and
//! `x[c_at + 1]` for `(c_at, _)` in `x.iter().enumerate().step_by(2)`. The
//! window's elements are then elements of `x`, whose adjoints the sweeps
//! add into `x_bar` as for any index; the loop walks `x` as any `x.iter()`
//! chain does (a local that changes later is pushed with its length).
//!
//! Where the closure reads its window by literal indices below `n` (`w[0]`,
//! `w[1]`), and nothing else of it, every index is in bounds exactly where
//! the slice's was (a short last chunk read past its end panics in both),
//! and the window is never a value of its own. Where it uses the window
//! otherwise (`c.iter().sum::<f64>()`, `w.len()`, a call taking `w`), the
//! window is bound as the part of `x` it is, `let c = &x[c_at..(c_at +
//! n).min(x.len())];` (windows: `&x[w_at..w_at + n]`, under the test), the
//! same slice the iterator hands out. Either way only where `x` is a
//! place and `n` an integer literal above 0, a name or `y.len()`
//! (`x.windows(k.len())`, a convolution's kernel): a window of a size not
//! written as a literal is always bound, and the windows' starts are the
//! first `x.windows(n).len()` (`take`), so that `n` = 0 panics as the
//! function as written does.
//!
//! A `for w in x.windows(n)` (or `chunks(n)`) loop is read the same way
//! ([`for_loop`]): its body under `if w_at + n - 1 < x.len()`.

use std::collections::HashSet;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::{quote, ToTokens};

use super::super::fresh_ident;
use super::recognise::{numbered, place, Chain};

/// The `n` of `x.windows(n)` or `x.chunks(n)`: an integer literal above
/// 0, or a name or `y.len()` (`x.windows(k.len())`, a convolution's
/// kernel), read again wherever the walk needs it (it names nothing the
/// body writes: the chain is one expression).
struct Size {
    tokens: TokenStream,
    literal: Option<usize>,
}

impl Size {
    fn of(n: &syn::Expr) -> Option<Size> {
        match crate::lower::unparen(n) {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(lit),
                ..
            }) => {
                let n: usize = lit.base10_parse().ok()?;
                (n > 0).then(|| Size {
                    tokens: quote!(#n),
                    literal: Some(n),
                })
            }
            syn::Expr::Path(path) if path.path.get_ident().is_some() => Some(Size {
                tokens: path.to_token_stream(),
                literal: None,
            }),
            syn::Expr::MethodCall(call)
                if call.method == "len" && call.args.is_empty() && place(&call.receiver) =>
            {
                Some(Size {
                    tokens: call.to_token_stream(),
                    literal: None,
                })
            }
            _ => None,
        }
    }
}

impl ToTokens for Size {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        self.tokens.to_tokens(tokens);
    }
}

/// A source `x.windows(n)` or `x.chunks(n)`: whether chunks, `n` and
/// `x`; `Some(None)` for another source, `None` for one of these this
/// cannot read as a walk (`n` not a [`Size`], `x` not a place).
#[allow(clippy::type_complexity)]
fn windows_source(source: &syn::Expr) -> Option<Option<(bool, Size, &syn::Expr)>> {
    let syn::Expr::MethodCall(call) = source else {
        return Some(None);
    };
    let chunks = match call.method.to_string().as_str() {
        "windows" => false,
        "chunks" => true,
        _ => return Some(None),
    };
    let [n] = call.args.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let n = Size::of(n)?;
    let slice = &*call.receiver;
    if !place(slice) {
        return None;
    }
    Some(Some((chunks, n, slice)))
}

/// The walk over where each window starts, with the start's name `at`:
/// its source, and for windows of a literal size the test that one starts
/// there. Windows of another size are the first `x.windows(n).len()`
/// starts (which panics where `n` is 0, as the loop as written does);
/// chunks' `step_by(n)` panics there too.
fn walk(
    chunks: bool,
    n: &Size,
    slice: &syn::Expr,
    at: &syn::Ident,
) -> (TokenStream, Option<TokenStream>) {
    match (chunks, n.literal) {
        (true, _) => (quote!(#slice.iter().enumerate().step_by(#n)), None),
        (false, Some(n)) => {
            let last = n - 1;
            (
                quote!(#slice.iter().enumerate()),
                Some(quote!(#at + #last < #slice.len())),
            )
        }
        (false, None) => (
            quote!(#slice.iter().enumerate().take(#slice.windows(#n).len())),
            None,
        ),
    }
}

/// `chain` with a `windows(n)` or `chunks(n)` source read as a loop over
/// start positions; `chain` as it is for another source, and `None` for
/// one of these that it cannot read that way.
pub(super) fn windowed(chain: Chain, idents: &HashSet<String>) -> Option<Chain> {
    let Some((chunks, n, slice)) = windows_source(&chain.source)? else {
        return Some(chain);
    };
    if chain.filter.is_some() {
        return None;
    }
    let syn::Pat::Ident(window) = &chain.pat else {
        return None;
    };
    if window.by_ref.is_some() || window.subpat.is_some() {
        return None;
    }
    let name = window.ident.to_string();
    let at = fresh_ident(&mut idents.clone(), &format!("{name}_at"));
    let body = read_window(chain.body.to_token_stream(), window, chunks, &n, slice, &at);
    let (source, test) = walk(chunks, &n, slice, &at);
    let filter = match test {
        Some(test) => Some(syn::parse2(test).ok()?),
        None => None,
    };
    Some(Chain {
        filter,
        source: syn::parse2(source).ok()?,
        pat: syn::parse::Parser::parse2(syn::Pat::parse_single, quote!((#at, _))).ok()?,
        body: syn::parse2(body).ok()?,
        ..chain
    })
}

/// `for w in x.windows(n) { body }` (or `x.chunks(n)`) as the loop over
/// where each window starts, `for (w_at, _) in x.iter().enumerate() { if
/// w_at + n - 1 < x.len() { body } }` (chunks: `.step_by(n)`, no test),
/// with `w[j]` read as `x[w_at + j]`; under the same conditions as a
/// chain's, `None` otherwise. `idents` takes the new name.
///
/// `for (k, w) in x.chunks(n).enumerate()` is read so too, with `let k =
/// w_at / n;` (windows: `w_at`) first in the body.
pub(super) fn for_loop(
    for_loop: &syn::ExprForLoop,
    idents: &mut HashSet<String>,
) -> Option<syn::ExprForLoop> {
    let (source, counter) = match numbered(for_loop) {
        Some((source, counter, window)) => (source, Some((counter, window))),
        None => (&*for_loop.expr, None),
    };
    let (chunks, n, slice) = windows_source(source)??;
    let window = match counter {
        Some((_, window)) => window,
        None => &*for_loop.pat,
    };
    let syn::Pat::Ident(window) = window else {
        return None;
    };
    if window.by_ref.is_some() || window.subpat.is_some() || window.mutability.is_some() {
        return None;
    }
    let name = window.ident.to_string();
    let at = fresh_ident(idents, &format!("{name}_at"));
    let body = read_window(
        for_loop.body.to_token_stream(),
        window,
        chunks,
        &n,
        slice,
        &at,
    );
    let body = match counter {
        Some((Some(counter), _)) if chunks => quote!({ let #counter: usize = #at / #n; #body }),
        Some((Some(counter), _)) => quote!({ let #counter: usize = #at; #body }),
        _ => body,
    };
    let (source, test) = walk(chunks, &n, slice, &at);
    let body = match test {
        Some(test) => quote!({ if #test #body }),
        None => body,
    };
    let mut out = for_loop.clone();
    out.pat = Box::new(syn::parse::Parser::parse2(syn::Pat::parse_single, quote!((#at, _))).ok()?);
    out.expr = Box::new(syn::parse2(source).ok()?);
    out.body = syn::parse2(body).ok()?;
    Some(out)
}

/// `body` (the closure's or the loop's) reading the window that starts at
/// `at`: its elements by index where it reads nothing else of it
/// ([`read_elements`]), else with the window bound first as the part of
/// `slice` it is (`{ let w = &x[w_at..w_at + n]; body }`; chunks:
/// `..(c_at + n).min(x.len())`, the short last chunk).
fn read_window(
    body: TokenStream,
    window: &syn::PatIdent,
    chunks: bool,
    n: &Size,
    slice: &syn::Expr,
    at: &syn::Ident,
) -> TokenStream {
    let name = window.ident.to_string();
    let elements = n
        .literal
        .and_then(|n| read_elements(body.clone(), &name, n, slice, &at.to_token_stream()));
    elements.unwrap_or_else(|| {
        let (mutability, window) = (&window.mutability, &window.ident);
        let end = if chunks {
            quote!((#at + #n).min(#slice.len()))
        } else {
            quote!(#at + #n)
        };
        quote!({ let #mutability #window = &#slice[#at..#end]; #body })
    })
}

/// `tokens` with each `window[j]` (`j` a literal below `n`) read as
/// `slice[start + j]`; `None` where `window` is used otherwise or a macro
/// might name it.
fn read_elements(
    tokens: TokenStream,
    window: &str,
    n: usize,
    slice: &syn::Expr,
    start: &TokenStream,
) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut k = 0;
    while k < tokens.len() {
        let after_dot =
            k > 0 && matches!(&tokens[k - 1], TokenTree::Punct(p) if p.as_char() == '.');
        match &tokens[k] {
            TokenTree::Punct(punct)
                if punct.as_char() == '!'
                    && k > 0
                    && matches!(tokens[k - 1], TokenTree::Ident(_))
                    && matches!(tokens.get(k + 1), Some(TokenTree::Group(_))) =>
            {
                return None;
            }
            TokenTree::Ident(ident) if ident == window && !after_dot => {
                let Some(TokenTree::Group(index)) = tokens.get(k + 1) else {
                    return None;
                };
                if index.delimiter() != Delimiter::Bracket {
                    return None;
                }
                let lit: syn::LitInt = syn::parse2(index.stream()).ok()?;
                let j: usize = lit.base10_parse().ok()?;
                if j >= n || !matches!(lit.suffix(), "" | "usize") {
                    return None;
                }
                out.extend(quote!(#slice[#start + #j]));
                k += 2;
                continue;
            }
            TokenTree::Group(group) => {
                let mut inner = proc_macro2::Group::new(
                    group.delimiter(),
                    read_elements(group.stream(), window, n, slice, start)?,
                );
                inner.set_span(group.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other.clone()]),
        }
        k += 1;
    }
    Some(out)
}
