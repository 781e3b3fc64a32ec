//! Source text and line numbers for node labels, and the one token query
//! the passes share.
//!
//! On stable Rust a proc macro cannot join the spans of an expression's
//! first and last tokens, so it cannot ask for the expression's source text.
//! The label is printed from the syntax tree instead: the same text for the
//! same code, whatever its spacing, which also keeps the snapshots stable.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use proc_macro2::{Delimiter, Spacing, Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{BinOp, Expr, UnOp};

/// The 1-based line `span` starts on.
pub fn line(span: Span) -> u32 {
    u32::try_from(span.start().line).unwrap_or(u32::MAX)
}

/// The subexpression `expr` starts with, when its first token is that
/// subexpression's (`a` of `a + b`, `a.f()`, `a[i]`).
fn left_edge(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::Binary(binary) => Some(&binary.left),
        Expr::MethodCall(call) => Some(&call.receiver),
        Expr::Call(call) => Some(&call.func),
        Expr::Index(index) => Some(&index.expr),
        Expr::Field(field) => Some(&field.base),
        Expr::Cast(cast) => Some(&cast.expr),
        Expr::Assign(assign) => Some(&assign.left),
        Expr::Range(range) => range.start.as_deref(),
        Expr::Group(group) => Some(&group.expr),
        _ => None,
    }
}

/// The first token's span of an expression with no `left_edge`.
fn own_first_span(expr: &Expr) -> Span {
    match expr {
        Expr::Range(range) => range.limits.span(),
        Expr::Paren(paren) => paren.paren_token.span.open(),
        Expr::Unary(unary) => unary.op.span(),
        Expr::Reference(reference) => reference.and_token.span,
        Expr::Tuple(tuple) => tuple.paren_token.span.open(),
        Expr::Array(array) => array.bracket_token.span.open(),
        Expr::Repeat(repeat) => repeat.bracket_token.span.open(),
        Expr::Lit(lit) => lit.lit.span(),
        Expr::If(if_) => if_.if_token.span,
        Expr::Match(match_) => match_.match_token.span,
        Expr::Return(return_) => return_.return_token.span,
        Expr::Break(break_) => break_.break_token.span,
        Expr::Continue(continue_) => continue_.continue_token.span,
        Expr::Let(let_) => let_.let_token.span,
        // Paths, blocks, loops, macros and the rest are short at their
        // start or rare; an attribute in front is where the span starts.
        other => other.span(),
    }
}

/// First spans (`Memo::first_span`) and labels ([`expr`]) for every node
/// of one body, each node's answer kept and reused by the nodes above it.
/// Asked at every node of a left-deep chain (`x + x + … + x`), a walk down
/// to its first term each time would be quadratic. Keyed by node address:
/// one `Memo` serves one syntax tree that outlives it (`lower::Lower`, whose
/// nodes are all borrowed for the tree's lifetime).
#[derive(Default)]
pub struct Memo {
    spans: RefCell<HashMap<*const Expr, Span>>,
    /// Each node's text as [`write_expr`] prints it alone: whole, or cut
    /// somewhere past [`LABEL_LIMIT`] bytes.
    texts: RefCell<HashMap<*const Expr, Rc<str>>>,
}

impl Memo {
    /// The span of `expr`'s first token, found by walking down its left edge
    /// (memoised).
    ///
    /// `syn`'s `Spanned::span` prints the whole expression to tokens to find
    /// its first and last token: called at every node of a deep expression,
    /// that is quadratic. Inside a proc macro on stable Rust the two spans
    /// cannot be joined anyway, and `span()` is the first token's span, which
    /// this returns without printing anything.
    pub fn first_span(&self, expr: &Expr) -> Span {
        let key: *const Expr = expr;
        if let Some(span) = self.spans.borrow().get(&key) {
            return *span;
        }
        let span = match left_edge(expr) {
            Some(left) => self.first_span(left),
            None => own_first_span(expr),
        };
        self.spans.borrow_mut().insert(key, span);
        span
    }

    /// [`expr`], memoised.
    pub fn expr(&self, expr: &Expr) -> String {
        cut(self.text(expr).to_string())
    }

    fn text(&self, expr: &Expr) -> Rc<str> {
        let key: *const Expr = expr;
        if let Some(text) = self.texts.borrow().get(&key) {
            return Rc::clone(text);
        }
        let mut out = String::new();
        write_expr(&mut out, expr, Some(self));
        let text: Rc<str> = out.into();
        self.texts.borrow_mut().insert(key, Rc::clone(&text));
        text
    }
}

/// The longest label printed whole; longer ones end in `…`.
///
/// Every node of `x + x + … + x` is labelled with its own subexpression,
/// so uncapped labels of an `n`-term sum hold `n²/2` terms in all: the
/// macro's time and the generated code's string literals would grow
/// quadratically. A label is for a person reading a tape, and its first
/// line's worth is what they read.
pub const LABEL_LIMIT: usize = 120;

/// `expr` as a student would write it: `w * x + b`, `y.ln()`, `x[i]`, cut
/// after [`LABEL_LIMIT`] bytes (at a character boundary) with `…`.
pub fn expr(expr: &Expr) -> String {
    let mut out = String::new();
    write_expr(&mut out, expr, None);
    cut(out)
}

/// `out` cut after [`LABEL_LIMIT`] bytes (at a character boundary) with `…`.
fn cut(mut out: String) -> String {
    if out.len() > LABEL_LIMIT {
        let mut end = LABEL_LIMIT;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
        out.push('…');
    }
    out
}

fn write_expr(out: &mut String, expr: &Expr, memo: Option<&Memo>) {
    // Past the limit, the rest is cut anyway: stop printing (here and
    // after each left operand, so that the way back up a left-deep tree
    // prints nothing), so that a node's label costs its depth, not its
    // subtree's size.
    if out.len() > LABEL_LIMIT {
        return;
    }
    match expr {
        Expr::Binary(binary) => {
            write_sub(out, &binary.left, memo);
            if out.len() > LABEL_LIMIT {
                return;
            }
            out.push(' ');
            out.push_str(&binary_op(&binary.op));
            out.push(' ');
            write_sub(out, &binary.right, memo);
        }
        Expr::Unary(unary) => {
            out.push_str(match unary.op {
                UnOp::Deref(_) => "*",
                UnOp::Not(_) => "!",
                _ => "-",
            });
            write_sub(out, &unary.expr, memo);
        }
        Expr::Paren(paren) => {
            out.push('(');
            write_sub(out, &paren.expr, memo);
            out.push(')');
        }
        Expr::Group(group) => write_sub(out, &group.expr, memo),
        Expr::MethodCall(call) => {
            write_sub(out, &call.receiver, memo);
            if out.len() > LABEL_LIMIT {
                return;
            }
            out.push('.');
            out.push_str(&call.method.to_string());
            if let Some(turbofish) = &call.turbofish {
                out.push_str(&tokens(turbofish.to_token_stream()));
            }
            write_args(out, call.args.iter(), memo);
        }
        Expr::Call(call) => {
            write_sub(out, &call.func, memo);
            if out.len() > LABEL_LIMIT {
                return;
            }
            write_args(out, call.args.iter(), memo);
        }
        Expr::Index(index) => {
            write_sub(out, &index.expr, memo);
            if out.len() > LABEL_LIMIT {
                return;
            }
            out.push('[');
            write_sub(out, &index.index, memo);
            out.push(']');
        }
        Expr::Field(field) => {
            write_sub(out, &field.base, memo);
            if out.len() > LABEL_LIMIT {
                return;
            }
            out.push('.');
            out.push_str(&tokens(field.member.to_token_stream()));
        }
        Expr::Cast(cast) => {
            write_sub(out, &cast.expr, memo);
            if out.len() > LABEL_LIMIT {
                return;
            }
            out.push_str(" as ");
            out.push_str(&tokens(cast.ty.to_token_stream()));
        }
        Expr::Reference(reference) => {
            out.push('&');
            if reference.mutability.is_some() {
                out.push_str("mut ");
            }
            write_sub(out, &reference.expr, memo);
        }
        Expr::Assign(assign) => {
            write_sub(out, &assign.left, memo);
            if out.len() > LABEL_LIMIT {
                return;
            }
            out.push_str(" = ");
            write_sub(out, &assign.right, memo);
        }
        other => out.push_str(&tokens(other.to_token_stream())),
    }
}

fn write_args<'a>(out: &mut String, args: impl Iterator<Item = &'a Expr>, memo: Option<&Memo>) {
    out.push('(');
    for (i, arg) in args.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_sub(out, arg, memo);
    }
    out.push(')');
}

/// A subexpression of the one [`write_expr`] prints: its memoised text,
/// or printed in place.
fn write_sub(out: &mut String, expr: &Expr, memo: Option<&Memo>) {
    match memo {
        Some(memo) if out.len() <= LABEL_LIMIT => out.push_str(&memo.text(expr)),
        _ => write_expr(out, expr, memo),
    }
}

/// The operator as written: `+`, `+=`, `<=`.
pub fn binary_op(op: &BinOp) -> String {
    op.to_token_stream()
        .into_iter()
        .map(|token| token.to_string())
        .collect()
}

/// The names of a path's segments, in order (`std::mem::swap` is `std`,
/// `mem`, `swap`), generic arguments left out.
pub fn segments(path: &syn::Path) -> Vec<String> {
    path.segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect()
}

/// Whether `tokens` contains the identifier `name` anywhere.
pub fn mentions(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => ident == name,
        TokenTree::Group(group) => mentions(group.stream(), name),
        _ => false,
    })
}

/// How many times `tokens` names the identifier `name`.
pub fn count(tokens: &TokenStream, name: &str) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|token| match token {
            TokenTree::Ident(ident) => usize::from(ident == name),
            TokenTree::Group(group) => count(&group.stream(), name),
            _ => 0,
        })
        .sum()
}

/// Whether every mention of `name` in `tokens` is indexed (`name[..]`),
/// at any depth: such code reads the same of a `Vec` and of a slice.
pub fn only_indexed(tokens: &TokenStream, name: &str) -> bool {
    let tokens: Vec<TokenTree> = tokens.clone().into_iter().collect();
    tokens.iter().enumerate().all(|(k, token)| match token {
        TokenTree::Ident(ident) if ident == name => matches!(
            tokens.get(k + 1),
            Some(TokenTree::Group(group)) if group.delimiter() == Delimiter::Bracket
        ),
        TokenTree::Group(group) => only_indexed(&group.stream(), name),
        _ => true,
    })
}

/// Tokens joined the way rustfmt would space simple code: used for paths,
/// types and the rare expression the printer above does not know.
pub fn tokens(stream: TokenStream) -> String {
    let mut out = String::new();
    let mut glue = true;
    for token in stream {
        match &token {
            TokenTree::Punct(punct) => {
                let c = punct.as_char();
                let tight = matches!(c, '.' | ':' | ',' | ';' | '<' | '>' | '&' | '\'' | '!');
                if !tight && !glue {
                    out.push(' ');
                }
                out.push(c);
                if c == ',' || c == ';' {
                    out.push(' ');
                }
                glue = tight || punct.spacing() == Spacing::Joint;
                if !tight && punct.spacing() == Spacing::Alone {
                    out.push(' ');
                    glue = true;
                }
            }
            TokenTree::Group(group) => {
                let (open, close) = match group.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::Brace => ("{ ", " }"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(open);
                out.push_str(&tokens(group.stream()));
                out.push_str(close);
                glue = false;
            }
            TokenTree::Ident(_) | TokenTree::Literal(_) => {
                if !glue {
                    out.push(' ');
                }
                out.push_str(&token.to_string());
                glue = false;
            }
        }
    }
    out.trim_end().to_owned()
}

/// Every identifier in a macro's tokens, and every name a format string in
/// them captures (`"{loss}"`, `"{n:.3}"`).
pub fn mentioned_names(tokens: TokenStream) -> Vec<String> {
    fn walk(tokens: TokenStream, names: &mut Vec<String>) {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Ident(ident) => names.push(ident.to_string()),
                proc_macro2::TokenTree::Group(group) => walk(group.stream(), names),
                proc_macro2::TokenTree::Literal(literal) => {
                    if let Ok(syn::Lit::Str(text)) =
                        syn::parse2::<syn::Lit>(literal.into_token_stream())
                    {
                        captured(&text.value(), names);
                    }
                }
                proc_macro2::TokenTree::Punct(_) => {}
            }
        }
    }
    let mut names = Vec::new();
    walk(tokens, &mut names);
    names.sort();
    names.dedup();
    names
}

/// Whether `literal`, a string, is a format string capturing `name`
/// (`"{h}"`, `"{h:?}"`): a pass that renames a variable in tokens must
/// leave the body as it is then.
pub fn captures(literal: &proc_macro2::Literal, name: &str) -> bool {
    let Ok(syn::Lit::Str(text)) = syn::parse2::<syn::Lit>(literal.to_token_stream()) else {
        return false;
    };
    let mut names = Vec::new();
    captured(&text.value(), &mut names);
    names.iter().any(|captured| captured == name)
}

/// Every identifier in `tokens`, into `idents`: the names a new binding
/// must not take.
pub fn identifiers(tokens: TokenStream, idents: &mut std::collections::HashSet<String>) {
    each_identifier(tokens, &mut |ident| {
        idents.insert(ident.to_string());
    });
}

/// Calls `f` on every identifier in `tokens`, in order, groups included.
pub fn each_identifier(tokens: TokenStream, f: &mut impl FnMut(&proc_macro2::Ident)) {
    for token in tokens {
        match token {
            TokenTree::Ident(ident) => f(&ident),
            TokenTree::Group(group) => each_identifier(group.stream(), f),
            _ => {}
        }
    }
}

/// Whether `tokens` contain one of `names` anywhere.
pub fn mentions_any(tokens: TokenStream, names: &std::collections::HashSet<String>) -> bool {
    tokens.into_iter().any(|token| match token {
        TokenTree::Ident(ident) => names.contains(&ident.to_string()),
        TokenTree::Group(group) => mentions_any(group.stream(), names),
        _ => false,
    })
}

/// The names a format string captures: `{name}` or `{name:spec}`, not `{{`.
fn captured(format: &str, names: &mut Vec<String>) {
    let mut rest = format;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(after) = rest.strip_prefix('{') {
            rest = after;
            continue;
        }
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        let name = &rest[..end];
        if name.starts_with(|c: char| c.is_alphabetic() || c == '_') {
            names.push(name.to_owned());
        }
    }
}

/// `tokens` with every token the macro made (spanned at the call site or
/// the mixed site) located at `to`, each resolving as before; the
/// student's own tokens are left where they are. The items that hold a
/// model's twin on dual numbers are relocated onto the model's type, so
/// that a struct that is not a model is one error there, as every other
/// use of it is, rather than one more on the attribute.
pub fn relocate(tokens: TokenStream, to: Span) -> TokenStream {
    let made = [
        format!("{:?}", Span::call_site()),
        format!("{:?}", Span::mixed_site()),
    ];
    relocate_with(tokens, to, &made)
}

fn relocate_with(tokens: TokenStream, to: Span, made: &[String; 2]) -> TokenStream {
    let moved = |span: Span| {
        let text = format!("{span:?}");
        // A call-site token takes `to` whole, so that an error on it is
        // the very error the student's type already has, which rustc
        // reports once (the items relocated allow the lints, which would
        // now read them as the student's). A mixed-site one keeps its
        // hygiene, located there.
        if text == made[0] {
            to
        } else if text == made[1] {
            span.located_at(to)
        } else {
            span
        }
    };
    tokens
        .into_iter()
        .map(|tree| match tree {
            proc_macro2::TokenTree::Group(group) => {
                let mut inner = proc_macro2::Group::new(
                    group.delimiter(),
                    relocate_with(group.stream(), to, made),
                );
                inner.set_span(moved(group.span()));
                proc_macro2::TokenTree::Group(inner)
            }
            mut other => {
                other.set_span(moved(other.span()));
                other
            }
        })
        .collect()
}

/// `tokens` with every `f64` replaced by `_`, for rustc to infer.
pub fn without_f64(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Group, Ident};
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Ident(ident) if ident == "f64" => {
                TokenTree::Ident(Ident::new("_", ident.span())).into_token_stream()
            }
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), without_f64(group.stream()));
                inner.set_span(group.span());
                TokenTree::Group(inner).into_token_stream()
            }
            other => other.into_token_stream(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(source: &str) -> String {
        expr(&syn::parse_str(source).expect("test source parses"))
    }

    #[test]
    fn first_span_starts_where_the_expression_does() {
        for source in [
            "w * x + b",
            "(a + b).ln()",
            "-x[i]",
            "f(x).max(y)",
            "a..b",
            "&v[0]",
        ] {
            let parsed: Expr = syn::parse_str(source).expect("test source parses");
            let first = parsed
                .to_token_stream()
                .into_iter()
                .next()
                .expect("a first token")
                .span();
            assert_eq!(
                Memo::default().first_span(&parsed).start(),
                first.start(),
                "{source}"
            );
        }
    }

    /// The memoised labels are the printed ones, cut or not: a left-deep
    /// sum past the limit, a long method chain, a label cut inside a
    /// multi-byte name, and every subexpression asked after its parent.
    #[test]
    fn memoised_labels_are_the_printed_ones() {
        let sum = format!("x{}", " + x".repeat(60));
        let chain = format!("x{}", ".sin()".repeat(40));
        let wide = format!("{} * (a + b)", "é".repeat(70));
        for source in [
            sum.as_str(),
            chain.as_str(),
            wide.as_str(),
            "w * x + b",
            "-(x[i] - 1.0)",
        ] {
            let parsed: Expr = syn::parse_str(source).expect("test source parses");
            let memo = Memo::default();
            assert_eq!(memo.expr(&parsed), expr(&parsed), "{source}");
            let mut node = &parsed;
            while let Some(left) = left_edge(node) {
                assert_eq!(memo.expr(left), expr(left), "{source}");
                node = left;
            }
        }
    }

    #[test]
    fn prints_expressions_as_written() {
        assert_eq!(text("w*x+b"), "w * x + b");
        assert_eq!(text("y . ln ( )"), "y.ln()");
        assert_eq!(text("x.powi(3)"), "x.powi(3)");
        assert_eq!(text("f64::max(a,b)"), "f64::max(a, b)");
        assert_eq!(text("-(x[i] - 1.0)"), "-(x[i] - 1.0)");
        assert_eq!(text("x.iter().sum::<f64>()"), "x.iter().sum::<f64>()");
        assert_eq!(text("n as f64"), "n as f64");
        assert_eq!(text("c += c + 1.0"), "c += c + 1.0");
    }

    #[test]
    fn long_labels_are_cut_with_an_ellipsis() {
        let long = vec!["x"; 1000].join(" + ");
        let label = text(&long);
        assert!(label.ends_with('…'), "{label}");
        assert!(label.len() <= LABEL_LIMIT + '…'.len_utf8());
        assert!(long.starts_with(label.trim_end_matches('…')));
        let exact = "x + ".repeat(29) + "xxxx";
        assert_eq!(exact.len(), LABEL_LIMIT);
        assert_eq!(text(&exact), exact);
    }

    #[test]
    fn format_strings_capture_names_but_not_escaped_braces() {
        let mut names = Vec::new();
        super::captured("loss = {loss} {{x}} {n:.3} {} {0}", &mut names);
        assert_eq!(names, ["loss", "n"]);
    }
}
