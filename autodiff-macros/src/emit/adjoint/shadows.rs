//! Names bound again, read as new names. Students write `let h =
//! l1.forward(x); let h = l2.forward(&h);` as they write `x = f(x)` in
//! Python; the analysis and the sweeps keep their facts by name (a call's
//! value bound once is a vector of such a depth, a `Vec` bound once grows
//! by `push`, ...), so a name bound twice kept the tape. The compiled
//! adjoint reads the body with each `let` that binds a name already
//! visible where it stands (a parameter, an earlier `let` of its block or
//! of a block around it, a loop's or an arm's pattern) given a name of its
//! own, and every later mention in its block with it: `let h_2 =
//! l2.forward(&h); h_2[0]`. That is a renaming of the one binding and
//! what it covers, so the body means what it meant; the plain twin and
//! the tape read the body as written.
//!
//! Mentions are renamed in tokens. A renaming is not made (and the body
//! read as written) where a mention might not be the binding: inside a
//! struct literal or pattern (`Point { h }`), in a path (`h::X`), or named
//! in a format string (`println!("{h}")`). A field or method after a `.`
//! is never renamed. The blocks a statement holds (a branch, a loop's or
//! an arm's body, a block, also inside an operand: `t += { let v =
//! v.sin(); v * v };`) are read, not a closure's body; but a closure's
//! parameter that is one name the function binds elsewhere too (`|t|`
//! beside `let sq = |t: f64| t * t;`) is renamed in its closure, whose
//! body it covers whole.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::{quote, ToTokens};

/// `item` with its names bound again renamed, with what each name of the
/// body's block is called at its end ([`Renamed::at_end`]), or `None` if
/// it binds none again or a mention after one could not be renamed for
/// certain.
pub fn rename(item: &syn::ItemFn, repeated: &HashSet<String>) -> Option<Renamed> {
    let mut idents = HashSet::new();
    crate::text::identifiers(item.to_token_stream(), &mut idents);
    let params: HashSet<String> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(typed) => Some(crate::lower::pattern_names(&typed.pat)),
            syn::FnArg::Receiver(_) => None,
        })
        .flatten()
        .collect();
    let mut renamed = item.clone();
    let mut renamer = Renamer {
        idents,
        repeated,
        changed: false,
        top: Vec::new(),
        mutable: Vec::new(),
        depth: 0,
        patterned: HashSet::new(),
    };
    renamer.block(&mut renamed.block, &params)?;
    renamer.changed.then_some(Renamed {
        item: renamed,
        top: renamer.top,
        mutable: renamer.mutable,
    })
}

/// A body with its names bound again renamed.
pub struct Renamed {
    pub item: syn::ItemFn,
    /// The renamings of the body's own block, in order.
    top: Vec<(String, String)>,
    /// The renamings of `let mut` bindings, at any depth: a name as it
    /// was, and the new one. The recording twin lifts a `let mut` of a
    /// name it tracks (see `Analysis::tracking`).
    pub mutable: Vec<(String, String)>,
}

impl Renamed {
    /// What the binding `name` of the body's block (the value a split
    /// adjoint returns, `out`) is called at the end of the body.
    pub fn at_end(&self, name: &str) -> String {
        self.top.iter().fold(
            name.to_owned(),
            |now, (from, to)| if now == *from { to.clone() } else { now },
        )
    }
}

struct Renamer<'r> {
    /// Every identifier of the function and every name given so far: a
    /// new name is none of them.
    idents: HashSet<String>,
    /// The names the function binds more than once
    /// ([`Function::bound_again`](crate::ast::Function::bound_again)).
    repeated: &'r HashSet<String>,
    changed: bool,
    /// The renamings made in the body's own block, in order.
    top: Vec<(String, String)>,
    /// The renamings of `let mut` bindings made.
    mutable: Vec<(String, String)>,
    /// How many blocks deep the block being read is.
    depth: usize,
    /// The names a loop's, an arm's or an `if let`'s pattern bound so far,
    /// and a `let` inside a block: a later `let` of one, where that
    /// binding is no longer visible (`for (i, c) in
    /// cs.iter().enumerate() { .. } let c = &cs[best];`, or `let qdiag =
    /// &icf[c][..d];` in two loops, one after the other), is renamed too,
    /// for facts kept by name would read the earlier binding, which
    /// changes trip by trip, as this one.
    patterned: HashSet<String>,
}

impl Renamer<'_> {
    /// Renames in `block`, where `visible` are the names bound around it.
    fn block(&mut self, block: &mut syn::Block, visible: &HashSet<String>) -> Option<()> {
        self.depth += 1;
        let done = self.statements(block, visible);
        self.depth -= 1;
        done
    }

    /// Each statement is read once: its mentions renamed by what the
    /// block renamed before it (`names`: a name as the source writes it, to
    /// what it is called there), then its blocks, then, if it is a `let`
    /// binding a visible name again, that name renamed for the statements
    /// after it. (Renaming the rest of the block at each such `let` made a
    /// body of `let y = f(y);` lines quadratic in the macro.)
    fn statements(&mut self, block: &mut syn::Block, visible: &HashSet<String>) -> Option<()> {
        let mut visible = visible.clone();
        let mut names: HashMap<String, String> = HashMap::new();
        for stmt in &mut block.stmts {
            if !names.is_empty() {
                let tokens = rename_mentions(stmt.to_token_stream(), &names)?;
                let parsed: syn::Block = syn::parse2(quote!({ #tokens })).ok()?;
                let [read] = <[syn::Stmt; 1]>::try_from(parsed.stmts).ok()?;
                *stmt = read;
            }
            self.stmt_blocks(stmt, &visible)?;
            let syn::Stmt::Local(local) = stmt else {
                continue;
            };
            let again = simple_name(&mut local.pat)
                .map(|ident| ident.to_string())
                .filter(|name| visible.contains(name) || self.patterned.contains(name));
            let Some(name) = again else {
                let names = crate::lower::pattern_names(&local.pat);
                // Out of sight after this block, but not out of the facts.
                if self.depth > 1 {
                    self.patterned.extend(names.iter().cloned());
                }
                visible.extend(names);
                continue;
            };
            let fresh = self.fresh(&name);
            if is_mutable(&local.pat) {
                self.mutable.push((name.clone(), fresh.clone()));
            }
            if let Some(ident) = simple_name(&mut local.pat) {
                *ident = Ident::new(&fresh, ident.span());
            }
            // The source's name for what is called `name` here.
            let written = names
                .iter()
                .find(|(_, now)| **now == name)
                .map_or_else(|| name.clone(), |(written, _)| written.clone());
            names.insert(written, fresh.clone());
            if self.depth == 1 {
                self.top.push((name, fresh.clone()));
            }
            visible.insert(fresh);
            self.changed = true;
        }
        Some(())
    }

    /// Renames in the blocks `stmt` holds directly.
    fn stmt_blocks(&mut self, stmt: &mut syn::Stmt, visible: &HashSet<String>) -> Option<()> {
        match stmt {
            syn::Stmt::Local(local) => match &mut local.init {
                Some(init) => self.expr_blocks(&mut init.expr, visible),
                None => Some(()),
            },
            syn::Stmt::Expr(expr, _) => self.expr_blocks(expr, visible),
            syn::Stmt::Item(_) | syn::Stmt::Macro(_) => Some(()),
        }
    }

    /// Renames in the blocks `expr` is made of: a block's, a branch's, a
    /// loop's or an arm's, each seeing the names its pattern binds.
    fn expr_blocks(&mut self, expr: &mut syn::Expr, visible: &HashSet<String>) -> Option<()> {
        let with = |patterned: &mut HashSet<String>, names: Vec<String>| -> HashSet<String> {
            let mut inner = visible.clone();
            patterned.extend(names.iter().cloned());
            inner.extend(names);
            inner
        };
        match expr {
            syn::Expr::Block(block) => self.block(&mut block.block, visible),
            syn::Expr::If(branch) => {
                let inner = with(&mut self.patterned, let_names(&branch.cond));
                self.block(&mut branch.then_branch, &inner)?;
                match &mut branch.else_branch {
                    Some((_, other)) => self.expr_blocks(other, visible),
                    None => Some(()),
                }
            }
            syn::Expr::ForLoop(each) => {
                let inner = with(&mut self.patterned, crate::lower::pattern_names(&each.pat));
                self.block(&mut each.body, &inner)
            }
            syn::Expr::While(repeat) => {
                let inner = with(&mut self.patterned, let_names(&repeat.cond));
                self.block(&mut repeat.body, &inner)
            }
            syn::Expr::Loop(repeat) => self.block(&mut repeat.body, visible),
            syn::Expr::Match(choice) => {
                for arm in &mut choice.arms {
                    let inner = with(&mut self.patterned, crate::lower::pattern_names(&arm.pat));
                    self.expr_blocks(&mut arm.body, &inner)?;
                }
                Some(())
            }
            // A closure's body binds its own parameters: not read, but a
            // parameter named as another binding of the function is
            // renamed in it (`let sq = |t: f64| t * t;` beside a
            // `fold(.., |acc, t| ..)` over constants): facts kept by name
            // (what carries a derivative) are then each binding's own.
            syn::Expr::Closure(closure) => {
                self.closure_inputs(closure);
                Some(())
            }
            // A block inside an operand (`t += { let v = v.sin(); v * v };`,
            // what `map(|v| v.sin()).fold(0.0, |t, v| t + v * v)` is read
            // as): a `let` there that binds a visible name is renamed too.
            // Its adjoint's reverse read the name it hides where it meant
            // the one hidden.
            other => {
                for operand in operands(other) {
                    self.expr_blocks(operand, visible)?;
                }
                Some(())
            }
        }
    }

    /// Each parameter of `closure` that is one name (`t`, `t: f64`) the
    /// function binds elsewhere too, renamed with its mentions in the
    /// closure's body, which that parameter covers whole. A body whose
    /// mentions cannot be renamed for certain (see [`rename_mentions`]) is
    /// left as written.
    fn closure_inputs(&mut self, closure: &mut syn::ExprClosure) {
        let mut names = HashMap::new();
        for input in &mut closure.inputs {
            let Some(ident) = simple_name(input) else {
                continue;
            };
            let name = ident.to_string();
            if self.repeated.contains(&name) && !names.contains_key(&name) {
                let fresh = self.fresh(&name);
                names.insert(name, fresh);
            }
        }
        if names.is_empty() {
            return;
        }
        let Some(body) = rename_mentions(closure.body.to_token_stream(), &names)
            .and_then(|tokens| syn::parse2::<syn::Expr>(tokens).ok())
        else {
            return;
        };
        *closure.body = body;
        for input in &mut closure.inputs {
            if let Some(ident) = simple_name(input) {
                if let Some(fresh) = names.get(&ident.to_string()) {
                    *ident = Ident::new(fresh, ident.span());
                }
            }
        }
        self.changed = true;
    }

    /// `name_2`, `name_3`, ...: the first that names nothing yet.
    fn fresh(&mut self, name: &str) -> String {
        let mut k = 2;
        loop {
            let candidate = format!("{name}_{k}");
            if self.idents.insert(candidate.clone()) {
                return candidate;
            }
            k += 1;
        }
    }
}

/// The expressions `expr` is made of, where a block may stand (not a
/// closure's body, not a struct literal's fields, not a macro's tokens).
fn operands(expr: &mut syn::Expr) -> Vec<&mut syn::Expr> {
    use syn::Expr as E;
    match expr {
        E::Array(array) => array.elems.iter_mut().collect(),
        E::Tuple(tuple) => tuple.elems.iter_mut().collect(),
        E::Assign(assign) => vec![&mut *assign.left, &mut *assign.right],
        E::Binary(binary) => vec![&mut *binary.left, &mut *binary.right],
        E::Call(call) => call.args.iter_mut().collect(),
        E::MethodCall(call) => std::iter::once(&mut *call.receiver)
            .chain(call.args.iter_mut())
            .collect(),
        E::Cast(cast) => vec![&mut *cast.expr],
        E::Field(field) => vec![&mut *field.base],
        E::Group(group) => vec![&mut *group.expr],
        E::Paren(paren) => vec![&mut *paren.expr],
        E::Unary(unary) => vec![&mut *unary.expr],
        E::Reference(reference) => vec![&mut *reference.expr],
        E::Index(index) => vec![&mut *index.expr, &mut *index.index],
        E::Repeat(repeat) => vec![&mut *repeat.expr],
        E::Try(attempt) => vec![&mut *attempt.expr],
        E::Return(ret) => ret.expr.iter_mut().map(|e| &mut **e).collect(),
        E::Break(leave) => leave.expr.iter_mut().map(|e| &mut **e).collect(),
        E::Let(binding) => vec![&mut *binding.expr],
        E::Range(range) => range
            .start
            .iter_mut()
            .chain(range.end.iter_mut())
            .map(|e| &mut **e)
            .collect(),
        _ => Vec::new(),
    }
}

/// The identifier of a pattern that is one name (`h`, `mut h`, `h:
/// Vec<f64>`), not a raw identifier.
fn simple_name(pat: &mut syn::Pat) -> Option<&mut Ident> {
    match pat {
        syn::Pat::Ident(ident)
            if ident.by_ref.is_none()
                && ident.subpat.is_none()
                && !ident.ident.to_string().starts_with("r#") =>
        {
            Some(&mut ident.ident)
        }
        syn::Pat::Type(typed) => simple_name(&mut typed.pat),
        _ => None,
    }
}

/// Whether a one-name pattern binds `mut` (`mut acc`, `mut acc: f64`).
fn is_mutable(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Ident(ident) => ident.mutability.is_some(),
        syn::Pat::Type(typed) => is_mutable(&typed.pat),
        _ => false,
    }
}

/// The names an `if let` or a `while let` condition binds.
fn let_names(cond: &syn::Expr) -> Vec<String> {
    match cond {
        syn::Expr::Let(binding) => crate::lower::pattern_names(&binding.pat),
        syn::Expr::Paren(inner) => let_names(&inner.expr),
        _ => Vec::new(),
    }
}

/// `tokens` with each mention of the variable `from` named `to`; `None`
/// where a mention may be something else: a struct literal's or
/// pattern's field (`Point { h: .. }`, `Point { h }`: any braces after a
/// capitalised name), a path's segment (`h::X`, `T::h`), a label or
/// lifetime (`'h`), or a name in a macro's string (`"{h}"`, a format
/// string's inline argument). A field or method after a `.` is left.
fn rename_mentions(tokens: TokenStream, names: &HashMap<String, String>) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    for (k, token) in tokens.iter().enumerate() {
        let punct_at = |at: Option<usize>, c: char| {
            at.and_then(|at| tokens.get(at))
                .is_some_and(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == c))
        };
        match token {
            TokenTree::Ident(ident) => {
                let Some(to) = names.get(&ident.to_string()) else {
                    out.push(token.clone());
                    continue;
                };
                let before = k.checked_sub(1);
                // A field or a method (`x.h`), not a range's end (`0..h`).
                if punct_at(before, '.') && !punct_at(k.checked_sub(2), '.') {
                    out.push(token.clone());
                    continue;
                }
                let path = (punct_at(before, ':') && punct_at(k.checked_sub(2), ':'))
                    || (punct_at(Some(k + 1), ':') && punct_at(Some(k + 2), ':'));
                if path || punct_at(before, '\'') {
                    return None;
                }
                out.push(TokenTree::Ident(Ident::new(to, ident.span())));
            }
            TokenTree::Group(group) => {
                let after_type = k.checked_sub(1).and_then(|at| tokens.get(at)).is_some_and(
                    |t| matches!(t, TokenTree::Ident(name) if name.to_string().starts_with(|c: char| c.is_ascii_uppercase())),
                );
                if group.delimiter() == Delimiter::Brace
                    && after_type
                    && names
                        .keys()
                        .any(|from| crate::text::mentions(group.stream(), from))
                {
                    return None;
                }
                let mut renamed =
                    Group::new(group.delimiter(), rename_mentions(group.stream(), names)?);
                renamed.set_span(group.span());
                out.push(TokenTree::Group(renamed));
            }
            TokenTree::Literal(literal) => {
                if names
                    .keys()
                    .any(|from| crate::text::captures(literal, from))
                {
                    return None;
                }
                out.push(token.clone());
            }
            other => out.push(other.clone()),
        }
    }
    Some(out.into_iter().collect())
}
