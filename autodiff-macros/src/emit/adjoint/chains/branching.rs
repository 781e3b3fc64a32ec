//! Which blocks and `match`es an operand may be moved out of, into a `let`
//! before its statement (`s += { let t = x.sin(); t * t } * w;` read as
//! `let block_value = { .. }; s += block_value * w;`): those that change
//! nothing another operand of the statement could read and always finish
//! with their value. Read on the tokens, conservatively: no assignment
//! (`=` outside a `let`, `+=` and the other compound operators), no
//! `&mut`, no `return`, `break`, `continue` or `?`, no macro but `vec!`,
//! and no call of a method that changes its receiver (`push`, `swap`,
//! `Option::take`, `next`, .., the list `call_values` reads too; an
//! iterator's `take` is read as one as well). Anything else stays where
//! it is, as before, and keeps the tape where the sweeps do not read it
//! there.
//!
//! Also here: a `match` arm written as an expression that holds something
//! the lowering reads (`true => x.iter().map(|v| v * w).sum::<f64>()`)
//! is read as the block it means, whose tail is then lowered as any
//! statement's value is.

use proc_macro2::{Delimiter, Spacing, TokenStream, TokenTree};
use quote::ToTokens;

use super::super::call_values::CHANGING;

/// The iterator methods that take a function (a closure, or a path such as
/// `f64::tanh`): a chain holding one is read as a loop.
const TAKES_A_FUNCTION: &[&str] = &[
    "map", "flat_map", "filter", "fold", "reduce", "for_each", "max_by", "min_by", "position",
    "all", "any",
];

/// Whether `expr`, a block or a `match` that is an operand, may be read
/// first, as a `let` of its own before its statement.
pub(super) fn moves_out(expr: &syn::Expr) -> bool {
    let plain = match expr {
        syn::Expr::Block(block) => block.label.is_none() && block.attrs.is_empty(),
        syn::Expr::Match(value) => value.attrs.is_empty(),
        _ => false,
    };
    plain && quiet(expr.to_token_stream())
}

/// Whether `tokens` neither write, nor jump, nor borrow mutably (see the
/// module's list), at any depth.
fn quiet(tokens: TokenStream) -> bool {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    // Whether a `let` has begun since the last `;` at this depth, whose
    // first bare `=` is its initialiser's.
    let mut in_let = false;
    for (at, tree) in trees.iter().enumerate() {
        let previous = at.checked_sub(1).map(|k| &trees[k]);
        let next = trees.get(at + 1);
        match tree {
            TokenTree::Group(group) => {
                if !quiet(group.stream()) {
                    return false;
                }
                // `.push(..)` and its kind: the method's name is before
                // the group.
                if group.delimiter() == Delimiter::Parenthesis {
                    let name = previous.and_then(|tree| match tree {
                        TokenTree::Ident(ident) => Some(ident.to_string()),
                        _ => None,
                    });
                    let dotted = at >= 2
                        && matches!(&trees[at - 2], TokenTree::Punct(p) if p.as_char() == '.');
                    if dotted && name.is_some_and(|name| CHANGING.contains(&name.as_str())) {
                        return false;
                    }
                }
            }
            TokenTree::Ident(ident) => {
                let word = ident.to_string();
                if matches!(word.as_str(), "return" | "break" | "continue" | "yield") {
                    return false;
                }
                if word == "let" {
                    in_let = true;
                }
                // A macro other than `vec!`.
                let bang = matches!(next, Some(TokenTree::Punct(p)) if p.as_char() == '!');
                let called = matches!(trees.get(at + 2), Some(TokenTree::Group(_)));
                if bang && called && word != "vec" {
                    return false;
                }
            }
            TokenTree::Punct(punct) => match punct.as_char() {
                ';' => in_let = false,
                '?' => return false,
                '&' => {
                    if matches!(next, Some(TokenTree::Ident(ident)) if ident == "mut") {
                        return false;
                    }
                }
                '=' => {
                    // `==`, `=>`: the first `=` is joint to what follows.
                    if punct.spacing() == Spacing::Joint {
                        continue;
                    }
                    let joined = match previous {
                        Some(TokenTree::Punct(p)) if p.spacing() == Spacing::Joint => {
                            Some(p.as_char())
                        }
                        _ => None,
                    };
                    match joined {
                        // The second `=` of `==`, or `<=`, `>=`, `!=`,
                        // `..=` (a `<<=` or `>>=` has two before it).
                        Some('=' | '!' | '.') => {}
                        Some(c @ ('<' | '>')) => {
                            let twice = at >= 2
                                && matches!(&trees[at - 2],
                                    TokenTree::Punct(p) if p.as_char() == c && p.spacing() == Spacing::Joint);
                            if twice {
                                return false;
                            }
                        }
                        // `+=` and the other compound assignments.
                        Some(_) => return false,
                        // A bare `=`: a `let`'s initialiser, once.
                        None if in_let => in_let = false,
                        None => return false,
                    }
                }
                _ => {}
            },
            TokenTree::Literal(_) => {}
        }
    }
    true
}

/// Each arm of a `match` the statement evaluates (its value, a `let`'s,
/// through `if`/`else` and parentheses, as `blocks::of_stmt` walks them)
/// written as an expression that may hold something the lowering reads
/// (a closure or a call of one, an `if`, a block or a `match`) becomes the block it means,
/// `pat => { e }`, whose tail the lowering then reads as a statement's.
pub(super) fn arms_as_blocks(stmt: &mut syn::Stmt) {
    fn walk(expr: &mut syn::Expr) {
        use syn::Expr as E;
        match expr {
            E::If(if_) => {
                if let Some((_, other)) = &mut if_.else_branch {
                    walk(other);
                }
            }
            E::Paren(paren) => walk(&mut paren.expr),
            E::Match(match_) => {
                for arm in match_.arms.iter_mut() {
                    match &mut *arm.body {
                        E::Block(_) => {}
                        body if holds_more(body) => {
                            let inner = std::mem::replace(body, E::Verbatim(TokenStream::new()));
                            *body = syn::parse_quote!({ #inner });
                            if arm.comma.is_none() {
                                arm.comma = Some(Default::default());
                            }
                        }
                        body => walk(body),
                    }
                }
            }
            _ => {}
        }
    }
    /// Whether `body` has a closure, an `if`, a block or a `match` in it,
    /// a call by a plain name (`act(x)`, which may be a closure's the
    /// lowering reads as its body), or an iterator method given a function
    /// by its path (`.map(f64::tanh)`, `.fold(f64::NEG_INFINITY, f64::max)`),
    /// which the lowering reads as a loop as it does a closure.
    fn holds_more(body: &syn::Expr) -> bool {
        fn any(tokens: TokenStream) -> bool {
            let trees: Vec<TokenTree> = tokens.into_iter().collect();
            trees.iter().enumerate().any(|(at, tree)| match tree {
                TokenTree::Ident(ident) => {
                    let called = matches!(
                        trees.get(at + 1),
                        Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Parenthesis
                    );
                    let before = at.checked_sub(1).map(|k| &trees[k]);
                    let named_alone = !matches!(before, Some(TokenTree::Punct(p)) if p.as_char() == '.' || p.as_char() == ':');
                    let dotted = matches!(before, Some(TokenTree::Punct(p)) if p.as_char() == '.');
                    ident == "if"
                        || ident == "match"
                        || (called && named_alone)
                        || (called && dotted && TAKES_A_FUNCTION.contains(&ident.to_string().as_str()))
                }
                TokenTree::Punct(punct) => punct.as_char() == '|',
                TokenTree::Group(group) => {
                    group.delimiter() == Delimiter::Brace || any(group.stream())
                }
                TokenTree::Literal(_) => false,
            })
        }
        any(body.to_token_stream())
    }
    match stmt {
        syn::Stmt::Local(local) => {
            if let Some(init) = &mut local.init {
                walk(&mut init.expr);
            }
        }
        syn::Stmt::Expr(expr, _) => walk(expr),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::moves_out;

    fn moves(text: &str) -> bool {
        moves_out(&syn::parse_str(text).expect("an expression"))
    }

    #[test]
    fn a_block_of_lets_and_a_value_moves_out() {
        assert!(moves("{ let t = x.sin(); t * t }"));
        assert!(moves(
            "{ let t: f64 = x.max(y); let u = t <= 1.0; if u { t } else { -t } }"
        ));
        assert!(moves(
            "match c { true => { let v = vec![x, y]; v[0] } false => y }"
        ));
        assert!(moves("{ let t = if a == b { x } else { y }; t >= 0.5 }"));
        assert!(moves("{ let r = (0..=n).len(); r as f64 * x }"));
    }

    #[test]
    fn a_block_that_writes_jumps_or_borrows_stays() {
        for text in [
            "{ s += x; s }",
            "{ s = x; s }",
            "{ let t = x; s = t; t }",
            "{ let t = x; t <<= 1; t }",
            "{ let t = f(&mut v); t }",
            "{ v.push(x); x }",
            "{ let t = v.pop().unwrap(); t }",
            "{ let t = slot.take().unwrap_or(0.0); t }",
            "{ let t = items.next().unwrap_or(0.0); t }",
            "{ if x > 0.0 { return x; } x }",
            "{ let t = g(x)?; t }",
            "{ println!(\"{x}\"); x }",
            "match c { true => { continue } false => y }",
            "'a: { break 'a x }",
            "{ for v in &w { t += v; } t }",
            // Conservative: a write to the block's own binding stays too.
            "{ let mut t = 0.0; for k in 0..=n { t = t.max(k as f64); } t }",
        ] {
            assert!(!moves(text), "{text}");
        }
    }
}
