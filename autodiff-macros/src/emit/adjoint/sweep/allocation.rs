//! What the forward sweep spares the allocator: a `Vec` given its room
//! before the loop that fills it (`capacity_hint`), and the bindings a
//! statement may move rather than copy, read by nothing after it
//! (`dead_after`).

use super::*;

/// `v = Vec::with_capacity(n);` for `let mut v = Vec::new();` followed
/// at once by a `for` over `n` items whose body pushes onto `v` in a
/// statement of its own (`for i in 0..b.len() { .. out.push(s); }`): the
/// forward sweep's `Vec` is allocated once instead of grown by doubling
/// (four allocations for 32 items; `with_capacity` rather than `reserve`,
/// whose growth path costs more than the allocation at a few items). Only
/// where `n` can be read again before the loop without effect (a range of
/// lengths, indices and arithmetic, or `x.iter()`), and the body leaves no
/// iteration early, so that `v` would reach `n` items anyway; the capacity
/// is not the value.
///
/// `room` gives the stack where the `Vec` holds numbers or rows of them
/// (`Sweep::room`): its memory then comes from what the stack kept
/// (`__adjoint::with_room`), and a top-level one goes back there when the
/// reverse ends (`Sweep::given_back`).
pub(super) fn capacity_hint(
    stmt: &Stmt,
    next: Option<&Stmt>,
    room: &dyn Fn(&str) -> Option<TokenStream>,
) -> Option<TokenStream> {
    let Stmt::Let {
        untyped,
        mutable: true,
        init: Some(init),
        ..
    } = stmt
    else {
        return None;
    };
    let binding = match untyped {
        syn::Pat::Type(typed) => &*typed.pat,
        pat => pat,
    };
    let syn::Pat::Ident(binding) = binding else {
        return None;
    };
    let (Source::Expr(syn::Expr::Call(call)), Some(Stmt::Expr(next, _))) = (init.source, next)
    else {
        return None;
    };
    let syn::Expr::Path(func) = &*call.func else {
        return None;
    };
    let segments: Vec<String> = func
        .path
        .segments
        .iter()
        .map(|segment| segment.ident.to_string())
        .collect();
    if !call.args.is_empty() || !segments.ends_with(&["Vec".to_owned(), "new".to_owned()]) {
        return None;
    }
    let Source::Expr(syn::Expr::ForLoop(for_loop)) = next.source else {
        return None;
    };
    let name = &binding.ident;
    let pushes = for_loop.body.stmts.iter().any(|stmt| {
        matches!(stmt, syn::Stmt::Expr(syn::Expr::MethodCall(call), Some(_))
            if call.method == "push"
                && matches!(&*call.receiver, syn::Expr::Path(path) if path.path.is_ident(name)))
    });
    if !pushes || !counted(&for_loop.expr) || leaves_early(&for_loop.body) {
        return None;
    }
    let items = &for_loop.expr;
    let hint = quote!(::core::iter::Iterator::size_hint(&(#items)).0);
    Some(match room(&name.to_string()) {
        Some(stack) => quote!(#name = ::autodiff::__adjoint::with_room(#stack, #hint);),
        None => quote!(#name = ::std::vec::Vec::with_capacity(#hint);),
    })
}

/// The names that `let`s of `stmts` before `index` bind and that neither
/// a later statement nor `tail` mentions (as a token anywhere, macros
/// included), whose shape is not saved after `index` (`grown`), and that
/// the statements between their `let` and `index` only index, push onto
/// or measure (no borrow of them can outlive its statement): the
/// statement at `index` may move them. Only for a block inside a loop or
/// a branch, whose reverse reads none of its forward's bindings.
pub(super) fn dead_after(
    stmts: &[Stmt],
    tail: Option<&Expr>,
    index: usize,
    grown: &[(String, usize)],
) -> HashSet<String> {
    let mut later = TokenStream::new();
    for stmt in &stmts[index + 1..] {
        stmt_tokens(stmt, &mut later);
    }
    if let Some(tail) = tail {
        tail.source.to_tokens(&mut later);
    }
    let mut named = HashSet::new();
    crate::text::each_identifier(later, &mut |ident| {
        named.insert(ident.to_string().trim_start_matches("r#").to_owned());
    });
    let mut dead = HashSet::new();
    for (at, stmt) in stmts[..index].iter().enumerate() {
        let Stmt::Let {
            name: Some(name), ..
        } = stmt
        else {
            continue;
        };
        let plain = name.trim_start_matches("r#");
        let mut between = TokenStream::new();
        for stmt in &stmts[at + 1..index] {
            stmt_tokens(stmt, &mut between);
        }
        if !named.contains(plain)
            && !grown.iter().any(|(g, after)| g == name && *after >= index)
            && only_plain_uses(between, plain)
        {
            dead.insert(name.clone());
        } else {
            // A later `let` of the name shadows an earlier one.
            dead.remove(name);
        }
    }
    dead
}

/// The name the `let` at `index` binds, if no later statement of
/// `stmts` mentions it other than by indexing it or taking its length
/// (no borrow outlives its statement, nothing moves it) and the function
/// binds it nowhere else: the block's end may move it.
pub(super) fn plain_later(
    stmts: &[Stmt],
    index: usize,
    bound: &HashMap<String, usize>,
) -> Option<String> {
    let Some(Stmt::Let {
        name: Some(name), ..
    }) = stmts.get(index)
    else {
        return None;
    };
    if bound.get(name.as_str()).copied() != Some(1) {
        return None;
    }
    let mut later = TokenStream::new();
    for stmt in &stmts[index + 1..] {
        stmt_tokens(stmt, &mut later);
    }
    only_plain_uses(later, name.trim_start_matches("r#")).then(|| name.clone())
}

/// Whether every mention of the binding `name` in `tokens` indexes it
/// (`s[j] = x`, `s[j] * y`, not `&s[j]` or `s[j].iter()`), pushes onto
/// it or takes its length: none of them leaves a borrow behind.
pub(super) fn only_plain_uses(tokens: TokenStream, name: &str) -> bool {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let punct = |token: Option<&TokenTree>, c: char| matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == c);
    tokens.iter().enumerate().all(|(k, token)| match token {
        TokenTree::Group(group) => only_plain_uses(group.stream(), name),
        TokenTree::Ident(ident) if ident.to_string().trim_start_matches("r#") == name => {
            let before = k.checked_sub(1).and_then(|k| tokens.get(k));
            if punct(before, '.') || punct(before, ':') {
                // A field or a method of that name.
                return true;
            }
            if punct(before, '&') {
                return false;
            }
            match (tokens.get(k + 1), tokens.get(k + 2)) {
                (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(method)))
                    if dot.as_char() == '.' =>
                {
                    method == "push" || method == "len"
                }
                (Some(TokenTree::Group(group)), next)
                    if group.delimiter() == proc_macro2::Delimiter::Bracket =>
                {
                    !punct(next, '.')
                }
                _ => false,
            }
        }
        _ => true,
    })
}

pub(super) fn stmt_tokens(stmt: &Stmt, out: &mut TokenStream) {
    match stmt {
        Stmt::Let { untyped, init, .. } => {
            untyped.to_tokens(out);
            if let Some(init) = init {
                init.source.to_tokens(out);
            }
        }
        Stmt::Item(item) => item.to_tokens(out),
        Stmt::Expr(expr, _) => expr.source.to_tokens(out),
    }
}

/// An iterator read twice to the same effect: a bounded range of [`pure`]
/// bounds, `x.iter()` of a pure `x`, and those reversed, enumerated,
/// cloned or copied.
fn counted(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Paren(inner) => counted(&inner.expr),
        syn::Expr::Range(range) => match (&range.start, &range.end) {
            (Some(start), Some(end)) => pure(start) && pure(end),
            _ => false,
        },
        syn::Expr::MethodCall(call) if call.args.is_empty() && call.turbofish.is_none() => {
            match call.method.to_string().as_str() {
                "iter" => pure(&call.receiver),
                "rev" | "enumerate" | "cloned" | "copied" => counted(&call.receiver),
                _ => false,
            }
        }
        _ => false,
    }
}

/// An expression without effects: names, literals, fields, indexing,
/// `.len()`, casts and arithmetic of them.
fn pure(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Lit(_) | syn::Expr::Path(_) => true,
        syn::Expr::Paren(inner) => pure(&inner.expr),
        syn::Expr::Field(field) => pure(&field.base),
        syn::Expr::Index(index) => pure(&index.expr) && pure(&index.index),
        syn::Expr::Reference(reference) => reference.mutability.is_none() && pure(&reference.expr),
        syn::Expr::Cast(cast) => pure(&cast.expr),
        syn::Expr::Unary(unary) => pure(&unary.expr),
        syn::Expr::Binary(binary) => {
            matches!(
                binary.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
            ) && pure(&binary.left)
                && pure(&binary.right)
        }
        syn::Expr::MethodCall(call) => {
            call.method == "len" && call.args.is_empty() && pure(&call.receiver)
        }
        _ => false,
    }
}

/// Whether a `break`, `continue`, `return`, `?` or a macro (which may hold
/// any of them) stands anywhere in `block`, read as tokens. A macro is a
/// `!` after a name that is not a keyword (`println!`); the `!` of `!=`
/// and of a negation (`if !done`, `x = !y`) is not one.
fn leaves_early(block: &syn::Block) -> bool {
    fn any(tokens: TokenStream) -> bool {
        let mut previous: Option<TokenTree> = None;
        tokens.into_iter().any(|token| {
            let leaves = match &token {
                TokenTree::Ident(ident) => {
                    ident == "break" || ident == "continue" || ident == "return"
                }
                TokenTree::Punct(punct) => {
                    punct.as_char() == '?'
                        || (punct.as_char() == '!'
                            && punct.spacing() == proc_macro2::Spacing::Alone
                            && matches!(&previous, Some(TokenTree::Ident(name))
                                if !matches!(name.to_string().as_str(),
                                    "if" | "while" | "match" | "in" | "return" | "break")))
                }
                TokenTree::Group(group) => any(group.stream()),
                TokenTree::Literal(_) => false,
            };
            previous = Some(token);
            leaves
        })
    }
    any(block.to_token_stream())
}

impl Sweep<'_> {
    /// The stack, where the `Vec` `name` that `capacity_hint` gives room
    /// holds numbers or rows of numbers (bound once, shown to hold `f64`s,
    /// one or two indexings deep): its memory comes from what the stack
    /// kept (`__adjoint::with_room`). Not on duals.
    pub(super) fn room(&self, name: &str) -> Option<TokenStream> {
        let rows = matches!(self.an.dims.get(name), Some(Some(1 | 2)));
        let once = self.an.bound.get(name).copied() == Some(1);
        (!self.dual && rows && once && self.an.numbers.contains(name)).then(|| {
            let stack = &self.stack;
            quote!(#stack)
        })
    }

    /// The top-level bindings of a body whose memory its reverse gives
    /// back to the stack when it ends (`__adjoint::recycle`, rows and
    /// lists to the spares the next call's `with_room` and adjoints take):
    /// a `Vec` of numbers or of rows grown by `push` (made by `with_room`)
    /// or a vector call's value (`let q = matmul(x, wq);`), bound once,
    /// with no attribute, that no statement moves: every later mention
    /// borrows it, indexes it or calls one of a few methods that take it
    /// by reference (`only_borrowed`), the body's value included. Not the
    /// output a split callee returns.
    pub(super) fn given_back(&self, stmts: &[Stmt]) -> Vec<Ident> {
        let mut names = Vec::new();
        for (at, stmt) in stmts.iter().enumerate() {
            let Stmt::Let {
                name: Some(name),
                init: Some(init),
                attrs: [],
                ..
            } = stmt
            else {
                continue;
            };
            let grown =
                init.is_empty_vec() && self.an.pushed.contains(name) && self.room(name).is_some();
            let called = self.an.call_lets.contains(name)
                && !self.an.nested_call_lets.contains(name)
                && self.an.bound.get(name).copied() == Some(1)
                && matches!(self.an.dims.get(name), Some(Some(1 | 2)));
            let returned = matches!(&self.seeded, Some((output, ..)) if output == name);
            if !(grown || called) || returned || self.dual {
                continue;
            }
            let mut later = TokenStream::new();
            for stmt in &stmts[at + 1..] {
                stmt_tokens(stmt, &mut later);
            }
            if only_borrowed(later, name.trim_start_matches("r#")) {
                names.push(binding(name));
            }
        }
        names
    }
}

/// Whether every mention of the binding `name` in `tokens` leaves it
/// where it is: borrowed (`&v`, `&mut v`), indexed (`v[i]`), or the
/// receiver of a method that takes it by reference (`v.len()`,
/// `v.push(x)`, `v.iter()`); a field or a path segment of that name is
/// another thing. Anything else (`f(v)`, `let w = v;`, `v.into_iter()`,
/// a macro's argument) may move it.
fn only_borrowed(tokens: TokenStream, name: &str) -> bool {
    const BY_REFERENCE: [&str; 10] = [
        "len", "push", "iter", "iter_mut", "is_empty", "clone", "to_vec", "first", "last", "get",
    ];
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let punct = |token: Option<&TokenTree>, c: char| matches!(token, Some(TokenTree::Punct(p)) if p.as_char() == c);
    tokens.iter().enumerate().all(|(k, token)| match token {
        TokenTree::Group(group) => only_borrowed(group.stream(), name),
        TokenTree::Ident(ident) if ident.to_string().trim_start_matches("r#") == name => {
            let at = |back: usize| k.checked_sub(back).and_then(|k| tokens.get(k));
            if punct(at(1), '.') || (punct(at(1), ':') && punct(at(2), ':')) {
                // A field or a method of that name, or a path's segment.
                return true;
            }
            let mutable = matches!(at(1), Some(TokenTree::Ident(m)) if m == "mut");
            let borrowed = punct(at(1), '&') || (mutable && punct(at(2), '&'));
            match (tokens.get(k + 1), tokens.get(k + 2)) {
                // (`&v.into_iter()` moves `v` too.)
                (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(method)))
                    if dot.as_char() == '.' =>
                {
                    BY_REFERENCE.iter().any(|m| method == m)
                }
                (Some(TokenTree::Punct(dot)), _) if dot.as_char() == '.' => false,
                (Some(TokenTree::Group(group)), _)
                    if group.delimiter() == proc_macro2::Delimiter::Bracket =>
                {
                    true
                }
                _ => borrowed,
            }
        }
        _ => true,
    })
}

#[cfg(test)]
mod tests {
    use super::{leaves_early, only_borrowed, only_plain_uses};

    fn block(source: &str) -> syn::Block {
        syn::parse_str(source).unwrap()
    }

    #[test]
    fn a_comparison_or_a_negation_is_not_a_macro() {
        assert!(!leaves_early(&block("{ if j != i { out.push(x[j]); } }")));
        assert!(!leaves_early(&block("{ if !done { out.push(1.0); } }")));
        assert!(!leaves_early(&block(
            "{ let keep = !(a < b); out.push(1.0); }"
        )));
        assert!(leaves_early(&block(
            "{ println!(\"{}\", x); out.push(1.0); }"
        )));
        assert!(leaves_early(&block("{ out.push(f(x)?); }")));
        assert!(leaves_early(&block(
            "{ if x > 1.0 { break; } out.push(x); }"
        )));
    }

    #[test]
    fn a_binding_indexed_pushed_or_measured_leaves_no_borrow() {
        let tokens = |source: &str| source.parse().unwrap();
        assert!(only_plain_uses(
            tokens(
                "for j in 0..n { s[j] = x[j] * 2.0; s.push(s[0]); t += s[j] * s.len() as f64; }"
            ),
            "s"
        ));
        assert!(only_plain_uses(tokens("let y = v.s + self.s(1.0);"), "s"));
        assert!(!only_plain_uses(tokens("let r = &s[0];"), "s"));
        assert!(!only_plain_uses(tokens("let it = s[0].iter();"), "s"));
        assert!(!only_plain_uses(
            tokens("let f = || s.iter().sum::<f64>();"),
            "s"
        ));
        assert!(!only_plain_uses(tokens("v.push(&s);"), "s"));
        assert!(!only_plain_uses(tokens("let t = s;"), "s"));
        assert!(!only_plain_uses(tokens("println!(\"{:?}\", s);"), "s"));
    }

    #[test]
    fn a_binding_borrowed_indexed_or_measured_stays_where_it_is() {
        let tokens = |source: &str| source.parse().unwrap();
        assert!(only_borrowed(
            tokens("let o = matmul(&a, &v); a.push(r); t += a[0][1] * a.len() as f64;"),
            "a"
        ));
        assert!(only_borrowed(
            tokens("f(&mut a); for x in a.iter() {}"),
            "a"
        ));
        assert!(only_borrowed(
            tokens("let y = v.a + self.a(1.0) + m::a;"),
            "a"
        ));
        assert!(!only_borrowed(tokens("let b = a;"), "a"));
        assert!(!only_borrowed(tokens("total(a)"), "a"));
        assert!(!only_borrowed(tokens("for x in &a.into_iter() {}"), "a"));
        assert!(!only_borrowed(tokens("let s = S { f: a };"), "a"));
        assert!(!only_borrowed(tokens("println!(\"{:?}\", a);"), "a"));
        assert!(!only_borrowed(tokens("a"), "a"));
    }
}
