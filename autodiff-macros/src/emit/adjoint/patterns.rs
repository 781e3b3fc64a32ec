//! `let` with a tuple or array pattern, read by the adjoint as one `let`
//! per name: `let (a, b) = (x * 2.0, x * 3.0);` is `let a = x * 2.0;
//! let b = x * 3.0;`, which the sweeps compile like any binding, each
//! name getting its own adjoint (`a_bar`, `b_bar`).
//!
//! Rust evaluates every component of the value before it binds a name, so
//! a component that reads a name an earlier component binds (`let (a, b)
//! = (b, a);`) is first held in a binding of its own (`a_next`). A tuple
//! held in a binding splits into its fields (`let (a, b) = pair;` is `let
//! a = pair.0; let b = pair.1;`). A pattern bound to a value this cannot
//! split (a call returning a tuple) is left as written and keeps the tape.

use std::collections::HashSet;

use quote::ToTokens;

/// `item` with its splittable pattern `let`s split, or `None` if it has
/// none.
pub fn split(item: &syn::ItemFn) -> Option<syn::ItemFn> {
    // Most bodies have none: looked for before the function is cloned and
    // its identifiers collected.
    if !block_has_pattern_let(&item.block) {
        return None;
    }
    let mut idents = HashSet::new();
    crate::text::identifiers(item.to_token_stream(), &mut idents);
    let arrays = item
        .sig
        .inputs
        .iter()
        .filter_map(|arg| match arg {
            syn::FnArg::Typed(typed) => match (&*typed.pat, &*typed.ty) {
                (syn::Pat::Ident(pat), syn::Type::Array(array)) if numbers(&array.elem) => {
                    Some(pat.ident.to_string())
                }
                _ => None,
            },
            syn::FnArg::Receiver(_) => None,
        })
        .collect();
    let mut splitter = Splitter {
        idents,
        arrays,
        calls: HashSet::new(),
        changed: false,
    };
    let mut item = item.clone();
    splitter.block(&mut item.block);
    splitter.changed.then_some(item)
}

struct Splitter {
    /// Every identifier of the function, so that a new binding's name
    /// shadows none.
    idents: HashSet<String>,
    /// Parameters of type `[f64; N]` (or `[[f64; M]; N]`): `let [a, b] =
    /// p;` reads `p[0]`, `p[1]`, which copies as the pattern does.
    arrays: HashSet<String>,
    /// Names bound to a call's value (`let t = pair(x);`): a tuple of
    /// whatever the callee returns, which `t.0` would move out of while
    /// the sweeps still read `t` whole; such a pattern stays as written.
    calls: HashSet<String>,
    changed: bool,
}

/// One name (or `_`) of a pattern and the value it binds.
struct Leaf {
    pat: syn::Pat,
    ty: Option<syn::Type>,
    value: syn::Expr,
}

impl Splitter {
    fn block(&mut self, block: &mut syn::Block) {
        let stmts = std::mem::take(&mut block.stmts);
        for mut stmt in stmts {
            if let syn::Stmt::Local(local) = &stmt {
                if let (syn::Pat::Ident(ident), Some(init)) = (&local.pat, &local.init) {
                    if matches!(&*init.expr, syn::Expr::Call(_)) {
                        self.calls.insert(ident.ident.to_string());
                    }
                    // A local array of numbers (`let m = [[c, -s], [s, c]];`),
                    // taken apart as an array parameter is.
                    if numbers_literal(&init.expr) {
                        self.arrays.insert(ident.ident.to_string());
                    }
                }
                if let Some(split) = self.local(local) {
                    self.changed = true;
                    block.stmts.extend(split);
                    continue;
                }
            }
            if let syn::Stmt::Expr(expr, Some(_)) = &stmt {
                if let Some((targets, values)) = destructured(expr) {
                    self.changed = true;
                    let split = self.assignments(&targets, &values);
                    block.stmts.extend(split);
                    continue;
                }
            }
            self.nested_stmt(&mut stmt);
            block.stmts.push(stmt);
        }
    }

    /// `(a, b) = (e, f);` as one assignment per name, `a = e; b = f;`, in
    /// order. Rust evaluates every component before it assigns, so where
    /// a component reads a name the statement assigns (`(a, b) = (b, a +
    /// b);`), each is first held in a fresh binding (`let a_next = b; let
    /// b_next = a + b; a = a_next; b = b_next;`).
    fn assignments(&mut self, targets: &[&syn::Ident], values: &[&syn::Expr]) -> Vec<syn::Stmt> {
        let mut read = HashSet::new();
        for value in values {
            crate::text::identifiers(value.to_token_stream(), &mut read);
        }
        let clash = targets
            .iter()
            .any(|ident| read.contains(&ident.to_string()));
        let mut out: Vec<syn::Stmt> = Vec::new();
        let mut assign = Vec::new();
        for (name, value) in targets.iter().zip(values) {
            if clash {
                let base = name.to_string();
                let held = self.fresh(&format!("{}_next", base.trim_start_matches("r#")));
                out.push(syn::parse_quote!(let #held = #value;));
                assign.push(syn::parse_quote!(#name = #held;));
            } else {
                out.push(syn::parse_quote!(#name = #value;));
            }
        }
        out.extend(assign);
        out
    }

    /// The blocks inside a statement: branches, loop bodies, blocks.
    fn nested_stmt(&mut self, stmt: &mut syn::Stmt) {
        crate::blocks::of_stmt(stmt, &mut |block| self.block(block));
    }

    /// The `let`s that `local` splits into, if it splits.
    fn local(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
        if !local.attrs.is_empty() {
            return None;
        }
        let init = local.init.as_ref()?;
        if init.diverge.is_some() {
            return None;
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(typed) => (&*typed.pat, Some(&*typed.ty)),
            pat => (pat, None),
        };
        if !matches!(pat, syn::Pat::Tuple(_) | syn::Pat::Slice(_)) {
            return None;
        }
        let mut leaves = Vec::new();
        if !self.leaves(pat, ty, &init.expr, &mut leaves) {
            return self.deferred(local, pat, ty, &init.expr);
        }
        Some(self.lets(local, leaves))
    }

    /// `let (a, b) = if c { let s = x * y; (s, s + x) } else { (x, y) };`,
    /// whose branches do more than give a tuple: `let a; let b;`, then the
    /// same `if` (or `match`) assigning the components where each branch
    /// ends (`a = s; b = s + x;`). Through fresh names bound after it
    /// (`let a = a_next;`) when the value reads a name the pattern binds.
    fn deferred(
        &mut self,
        local: &syn::Local,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        value: &syn::Expr,
    ) -> Option<Vec<syn::Stmt>> {
        let syn::Pat::Tuple(tuple) = pat else {
            return None;
        };
        let n = tuple.elems.len();
        let types: Vec<Option<&syn::Type>> = match ty {
            None => vec![None; n],
            Some(syn::Type::Tuple(types)) if types.elems.len() == n => {
                types.elems.iter().map(Some).collect()
            }
            Some(_) => return None,
        };
        let mut names = Vec::new();
        for elem in &tuple.elems {
            match elem {
                syn::Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                    names.push(Some(ident));
                }
                syn::Pat::Wild(_) => names.push(None),
                _ => return None,
            }
        }
        if !matches!(unparen(value), syn::Expr::If(_) | syn::Expr::Match(_)) {
            return None;
        }
        let mut read = HashSet::new();
        crate::text::identifiers(value.to_token_stream(), &mut read);
        let clash = names
            .iter()
            .flatten()
            .any(|ident| read.contains(&ident.ident.to_string()));
        let targets: Vec<Option<syn::Ident>> = names
            .iter()
            .map(|name| {
                name.map(|ident| {
                    if clash {
                        let base = ident.ident.to_string();
                        self.fresh(&format!("{}_next", base.trim_start_matches("r#")))
                    } else {
                        ident.ident.clone()
                    }
                })
            })
            .collect();
        let assigned = assign_tails(unparen(value), &targets)?;
        let let_token = local.let_token;
        let semi = local.semi_token;
        let mut out: Vec<syn::Stmt> = Vec::new();
        for ((name, target), ty) in names.iter().zip(&targets).zip(&types) {
            let (Some(name), Some(target)) = (name, target) else {
                continue;
            };
            let ty = ty.map(|ty| quote::quote!(: #ty));
            out.push(if clash {
                syn::parse_quote!(#let_token #target #ty #semi)
            } else {
                syn::parse_quote!(#let_token #name #ty #semi)
            });
        }
        out.push(syn::Stmt::Expr(assigned, Some(Default::default())));
        if clash {
            for (name, target) in names.iter().zip(&targets) {
                if let (Some(name), Some(target)) = (name, target) {
                    out.push(syn::parse_quote!(#let_token #name = #target #semi));
                }
            }
        }
        Some(out)
    }

    /// Splits `pat` (typed `ty`) bound to `value` into `out`; `false` if
    /// some part does not split.
    fn leaves(
        &self,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        value: &syn::Expr,
        out: &mut Vec<Leaf>,
    ) -> bool {
        let value = unparen(value);
        match pat {
            syn::Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                out.push(Leaf {
                    pat: pat.clone(),
                    ty: ty.cloned(),
                    value: value.clone(),
                });
                true
            }
            syn::Pat::Wild(_) => {
                out.push(Leaf {
                    pat: pat.clone(),
                    ty: None,
                    value: value.clone(),
                });
                true
            }
            syn::Pat::Paren(inner) => self.leaves(&inner.pat, ty, value, out),
            syn::Pat::Tuple(tuple) => {
                let n = tuple.elems.len();
                let types: Vec<Option<&syn::Type>> = match ty {
                    None => vec![None; n],
                    Some(syn::Type::Tuple(types)) if types.elems.len() == n => {
                        types.elems.iter().map(Some).collect()
                    }
                    Some(_) => return false,
                };
                let Some(parts) = self.components(value, n) else {
                    return false;
                };
                tuple
                    .elems
                    .iter()
                    .zip(types)
                    .zip(&parts)
                    .all(|((pat, ty), part)| self.leaves(pat, ty, part, out))
            }
            syn::Pat::Slice(slice) => {
                let n = slice.elems.len();
                let elem = match ty {
                    None => None,
                    Some(syn::Type::Array(array)) => Some(&*array.elem),
                    Some(_) => return false,
                };
                let parts: Vec<syn::Expr> = match value {
                    syn::Expr::Array(array) if array.elems.len() == n => {
                        array.elems.iter().cloned().collect()
                    }
                    // `p`, or a row of it (`m[0]` of `let [[a, b], ..] = m;`),
                    // whose index no name the pattern binds is part of (the
                    // `let`s after the first would read the new one).
                    place if self.array_place(place) && !binds_a_name_of(pat, place) => (0..n)
                        .map(|i| {
                            let i = proc_macro2::Literal::usize_unsuffixed(i);
                            syn::parse_quote!(#place[#i])
                        })
                        .collect(),
                    _ => return false,
                };
                slice
                    .elems
                    .iter()
                    .zip(&parts)
                    .all(|(pat, part)| self.leaves(pat, elem, part, out))
            }
            _ => false,
        }
    }

    /// An array parameter of numbers (`self.arrays`) or a call's value,
    /// or a literal index into one at any depth (`m[0]`).
    fn array_place(&self, expr: &syn::Expr) -> bool {
        match expr {
            // (A call's value taken apart by a slice pattern is an array:
            // Rust takes no `Vec` apart so. Its elements copy.)
            syn::Expr::Path(path) => path.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                self.arrays.contains(&name) || self.calls.contains(&name)
            }),
            // A row by a literal or by an index the split `let`s, one after
            // another, read alike (`m[i]`, `m[k + 1]` in a loop over `k`).
            syn::Expr::Index(index) => plain_index(&index.index) && self.array_place(&index.expr),
            _ => false,
        }
    }

    /// The `n` components of a tuple-valued expression: a tuple, or an
    /// `if` or `match` whose branches are tuples (component `i` is then
    /// the same `if` choosing between the branches' components `i`; its
    /// condition, evaluated once per component, has no call or write).
    fn components(&self, value: &syn::Expr, n: usize) -> Option<Vec<syn::Expr>> {
        match unparen(value) {
            syn::Expr::Tuple(tuple) if tuple.elems.len() == n => {
                Some(tuple.elems.iter().cloned().collect())
            }
            // `r.sin_cos()` is `(r.sin(), r.cos())`, as the recording twin
            // reads it (`lower/calls.rs`).
            syn::Expr::MethodCall(call)
                if call.method == "sin_cos"
                    && call.args.is_empty()
                    && call.turbofish.is_none()
                    && n == 2
                    && pure(&call.receiver) =>
            {
                let receiver = &call.receiver;
                let span = call.method.span();
                let (sin, cos) = (syn::Ident::new("sin", span), syn::Ident::new("cos", span));
                Some(vec![
                    syn::parse_quote!(#receiver.#sin()),
                    syn::parse_quote!(#receiver.#cos()),
                ])
            }
            syn::Expr::If(if_) if pure(&if_.cond) => {
                let then = tail_only(&if_.then_branch)?;
                let then = self.components(then, n)?;
                let (_, other) = if_.else_branch.as_ref()?;
                let other = self.components(other, n)?;
                Some(
                    then.into_iter()
                        .zip(other)
                        .map(|(then, other)| {
                            let mut if_ = if_.clone();
                            if_.then_branch.stmts = vec![syn::Stmt::Expr(then, None)];
                            if_.else_branch = Some((
                                if_.else_branch.as_ref().expect("checked above").0,
                                Box::new(block_of(other)),
                            ));
                            syn::Expr::If(if_)
                        })
                        .collect(),
                )
            }
            syn::Expr::Match(match_)
                if pure(&match_.expr)
                    && match_
                        .arms
                        .iter()
                        .all(|arm| guard_pure(&arm.pat) && !binds(&arm.pat)) =>
            {
                let arms = match_
                    .arms
                    .iter()
                    .map(|arm| self.components(&arm.body, n))
                    .collect::<Option<Vec<_>>>()?;
                Some(
                    (0..n)
                        .map(|i| {
                            let mut match_ = match_.clone();
                            for (arm, parts) in match_.arms.iter_mut().zip(&arms) {
                                *arm.body = parts[i].clone();
                                arm.comma.get_or_insert_with(Default::default);
                            }
                            syn::Expr::Match(match_)
                        })
                        .collect(),
                )
            }
            syn::Expr::Block(block) if block.attrs.is_empty() && block.label.is_none() => {
                self.components(tail_only(&block.block)?, n)
            }
            // A tuple held in a binding (`let (a, b) = pair;`): its fields,
            // which copy (or move) as the pattern does.
            place @ (syn::Expr::Path(_) | syn::Expr::Field(_))
                if is_place(place)
                    && !matches!(place, syn::Expr::Path(path)
                        if path.path.get_ident().is_some_and(|name| self.calls.contains(&name.to_string()))) =>
            {
                Some(
                    (0..n)
                        .map(|k| {
                            let k = syn::Index::from(k);
                            syn::parse_quote!(#place.#k)
                        })
                        .collect(),
                )
            }
            _ => None,
        }
    }

    /// One `let` per leaf, in order; through `name_next` bindings when a
    /// value reads a name an earlier leaf binds.
    fn lets(&mut self, local: &syn::Local, leaves: Vec<Leaf>) -> Vec<syn::Stmt> {
        let mut bound = Vec::new();
        let mut clash = false;
        for leaf in &leaves {
            let mut read = HashSet::new();
            crate::text::identifiers(leaf.value.to_token_stream(), &mut read);
            clash |= bound.iter().any(|name| read.contains(name));
            if let syn::Pat::Ident(ident) = &leaf.pat {
                bound.push(ident.ident.to_string());
            }
        }
        let let_token = local.let_token;
        let semi = local.semi_token;
        let make = |pat: &syn::Pat, ty: &Option<syn::Type>, value: &syn::Expr| -> syn::Stmt {
            let pat = match ty {
                Some(ty) => quote::quote!(#pat: #ty),
                None => pat.to_token_stream(),
            };
            syn::parse_quote!(#let_token #pat = #value #semi)
        };
        if !clash {
            return leaves
                .iter()
                .map(|leaf| make(&leaf.pat, &leaf.ty, &leaf.value))
                .collect();
        }
        let mut first = Vec::new();
        let mut then = Vec::new();
        for leaf in &leaves {
            match &leaf.pat {
                syn::Pat::Ident(ident) => {
                    let name = ident.ident.to_string();
                    let next = self.fresh(&format!("{}_next", name.trim_start_matches("r#")));
                    let next_pat: syn::Pat = syn::parse_quote!(#next);
                    first.push(make(&next_pat, &leaf.ty, &leaf.value));
                    then.push(make(&leaf.pat, &None, &syn::parse_quote!(#next)));
                }
                _ => first.push(make(&leaf.pat, &leaf.ty, &leaf.value)),
            }
        }
        first.extend(then);
        first
    }

    fn fresh(&mut self, base: &str) -> syn::Ident {
        super::fresh_ident(&mut self.idents, base)
    }
}

fn block_has_pattern_let(block: &syn::Block) -> bool {
    block.stmts.iter().any(|stmt| match stmt {
        syn::Stmt::Local(local) => {
            let pat = match &local.pat {
                syn::Pat::Type(typed) => &*typed.pat,
                pat => pat,
            };
            matches!(
                pat,
                syn::Pat::Tuple(_) | syn::Pat::Slice(_) | syn::Pat::Wild(_)
            ) || local
                .init
                .as_ref()
                .is_some_and(|init| has_pattern_let(&init.expr))
        }
        syn::Stmt::Expr(expr, Some(_)) if destructured(expr).is_some() => true,
        syn::Stmt::Expr(expr, _) => has_pattern_let(expr),
        _ => false,
    })
}

/// `(a, b) = (e, f)` or `[a, b] = [e, f]`, distinct names assigned the
/// components of a literal as long: the names and the components. (A `_`
/// target is refused before the adjoint is written.)
fn destructured(expr: &syn::Expr) -> Option<(Vec<&syn::Ident>, Vec<&syn::Expr>)> {
    use syn::Expr as E;
    let E::Assign(assign) = expr else {
        return None;
    };
    if !assign.attrs.is_empty() {
        return None;
    }
    let (targets, values): (Vec<&E>, Vec<&E>) =
        match (unparen(&assign.left), unparen(&assign.right)) {
            (E::Tuple(left), E::Tuple(right)) => {
                (left.elems.iter().collect(), right.elems.iter().collect())
            }
            (E::Array(left), E::Array(right)) => {
                (left.elems.iter().collect(), right.elems.iter().collect())
            }
            _ => return None,
        };
    if targets.len() != values.len() || targets.is_empty() {
        return None;
    }
    let targets = targets
        .into_iter()
        .map(|target| match target {
            E::Path(path) if path.qself.is_none() && path.attrs.is_empty() => path.path.get_ident(),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let distinct: HashSet<&syn::Ident> = targets.iter().copied().collect();
    (distinct.len() == targets.len()).then_some((targets, values))
}

/// Whether a block nested in `expr` (where `Splitter::nested` looks) has
/// a pattern `let`.
fn has_pattern_let(expr: &syn::Expr) -> bool {
    use syn::Expr as E;
    match expr {
        E::Block(block) => block_has_pattern_let(&block.block),
        E::If(if_) => {
            block_has_pattern_let(&if_.then_branch)
                || if_
                    .else_branch
                    .as_ref()
                    .is_some_and(|(_, other)| has_pattern_let(other))
        }
        E::ForLoop(for_) => block_has_pattern_let(&for_.body),
        E::While(while_) => block_has_pattern_let(&while_.body),
        E::Loop(loop_) => block_has_pattern_let(&loop_.body),
        E::Match(match_) => match_.arms.iter().any(|arm| has_pattern_let(&arm.body)),
        E::Paren(paren) => has_pattern_let(&paren.expr),
        _ => false,
    }
}

/// `value` (an `if` or a `match` whose branches end in an `n`-tuple) with
/// each branch ending by assigning the tuple's components to `targets`
/// (`None`: evaluated, `let _ = ..;`), as a statement.
fn assign_tails(value: &syn::Expr, targets: &[Option<syn::Ident>]) -> Option<syn::Expr> {
    match value {
        syn::Expr::If(if_) => {
            let mut if_ = if_.clone();
            assign_block(&mut if_.then_branch, targets)?;
            let (_, other) = if_.else_branch.as_mut()?;
            **other = assign_tails(unparen(other), targets)?;
            Some(syn::Expr::If(if_))
        }
        syn::Expr::Block(block) if block.attrs.is_empty() && block.label.is_none() => {
            let mut block = block.clone();
            assign_block(&mut block.block, targets)?;
            Some(syn::Expr::Block(block))
        }
        // An arm that binds a name is not matched again in the reverse
        // sweep (the binding may move the scrutinee): the sweep pushes the
        // arm taken, and what the arm's reverse reads of its bindings.
        syn::Expr::Match(match_) => {
            let mut match_ = match_.clone();
            for arm in &mut match_.arms {
                let body = match unparen(&arm.body) {
                    syn::Expr::Block(block) if block.attrs.is_empty() && block.label.is_none() => {
                        syn::Expr::Block(block.clone())
                    }
                    other => syn::parse_quote!({ #other }),
                };
                *arm.body = assign_tails(&body, targets)?;
            }
            Some(syn::Expr::Match(match_))
        }
        _ => None,
    }
}

/// A branch's block ending in a tuple (or in an `if`, `match` or block
/// that does), its tail made the assignments.
fn assign_block(block: &mut syn::Block, targets: &[Option<syn::Ident>]) -> Option<()> {
    let Some(syn::Stmt::Expr(tail, None)) = block.stmts.pop() else {
        return None;
    };
    match unparen(&tail) {
        syn::Expr::Tuple(tuple) if tuple.elems.len() == targets.len() => {
            for (target, elem) in targets.iter().zip(&tuple.elems) {
                block.stmts.push(match target {
                    Some(target) => syn::parse_quote!(#target = #elem;),
                    None => syn::parse_quote!(let _ = #elem;),
                });
            }
        }
        inner @ (syn::Expr::If(_) | syn::Expr::Match(_) | syn::Expr::Block(_)) => {
            let inner = assign_tails(inner, targets)?;
            block.stmts.push(syn::Stmt::Expr(inner, None));
        }
        _ => return None,
    }
    Some(())
}

fn unparen(expr: &syn::Expr) -> &syn::Expr {
    match expr {
        syn::Expr::Paren(paren) if paren.attrs.is_empty() => unparen(&paren.expr),
        other => other,
    }
}

/// The tail of a block with nothing else in it.
fn tail_only(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.as_slice() {
        [syn::Stmt::Expr(tail, None)] => Some(tail),
        _ => None,
    }
}

/// `expr` as an `else` branch: an `if` as it is, else in a block.
fn block_of(expr: syn::Expr) -> syn::Expr {
    match expr {
        syn::Expr::If(_) => expr,
        other => syn::parse_quote!({ #other }),
    }
}

/// A condition that may be evaluated once per component: no call, no
/// macro, no assignment, so evaluating it again changes nothing.
fn pure(expr: &syn::Expr) -> bool {
    use syn::Expr as E;
    match expr {
        E::Lit(_) | E::Path(_) => true,
        E::Paren(e) => pure(&e.expr),
        E::Unary(e) => pure(&e.expr),
        E::Binary(e) => {
            !crate::ast::is_compound_assignment(&e.op) && pure(&e.left) && pure(&e.right)
        }
        E::Field(e) => pure(&e.base),
        E::Index(e) => pure(&e.expr) && pure(&e.index),
        E::Cast(e) => pure(&e.expr),
        _ => false,
    }
}

/// Whether a match arm's pattern binds a name: a binding may move the
/// scrutinee, which each component's `match` reads again. `None` and
/// other capitalised names are constants or variants, not bindings.
fn binds(pat: &syn::Pat) -> bool {
    use syn::Pat as P;
    match pat {
        P::Ident(ident) => {
            ident.subpat.is_some()
                || !ident
                    .ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase())
        }
        P::Lit(_) | P::Range(_) | P::Wild(_) | P::Path(_) | P::Rest(_) => false,
        P::Guard(guarded) => binds(&guarded.pat),
        P::Or(or) => or.cases.iter().any(binds),
        P::Paren(paren) => binds(&paren.pat),
        P::Tuple(tuple) => tuple.elems.iter().any(binds),
        P::TupleStruct(tuple) => tuple.elems.iter().any(binds),
        P::Slice(slice) => slice.elems.iter().any(binds),
        P::Reference(reference) => binds(&reference.pat),
        _ => true,
    }
}

/// A match arm's guard, if it has one, is [`pure`].
fn guard_pure(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Guard(guarded) => pure(&guarded.guard) && guard_pure(&guarded.pat),
        _ => true,
    }
}

fn is_f64(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path) if path.qself.is_none() && path.path.is_ident("f64"))
}

/// `f64`, or an array of them at any depth (`[f64; 2]`): copied whole by
/// a pattern as by an index (`let [r0, r1] = m;` of `m: [[f64; 2]; 2]`).
fn numbers(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(array) => numbers(&array.elem),
        ty => is_f64(ty),
    }
}

/// A binding or a field of one (`pair`, `state.pair`): read twice, it is
/// the same value.
fn is_place(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
        syn::Expr::Field(field) => is_place(&field.base),
        _ => false,
    }
}

/// `item` with each assignment of a call's value to a tuple of names
/// (`(h, c) = cell(w, &h, &c, x);`, an LSTM's state) read as a pattern
/// `let` of fresh names and one assignment per name (`let (h_next,
/// c_next) = cell(..); h = h_next; c = c_next;`), the form the sweeps
/// take a tuple-valued call in (`call_values`); `None` if it has none.
/// Run before the other rewrites, which read that `let`.
pub fn calls_destructured(function: &crate::ast::Function) -> Option<syn::ItemFn> {
    // Looked for on the model, before the function is cloned.
    let has = function.body.any_expr(&|expr| {
        matches!(expr.source, crate::ast::Source::Expr(syntax) if call_to_names(syntax).is_some())
    });
    if !has {
        return None;
    }
    let item = function.item;
    let mut idents = HashSet::new();
    crate::text::identifiers(item.to_token_stream(), &mut idents);
    let mut item = item.clone();
    rewrite(&mut item.block, &mut idents);
    Some(item)
}

fn rewrite(block: &mut syn::Block, idents: &mut HashSet<String>) {
    let stmts = std::mem::take(&mut block.stmts);
    for mut stmt in stmts {
        if let syn::Stmt::Expr(expr, Some(_)) = &stmt {
            if let Some((targets, call)) = call_to_names(expr) {
                let fresh: Vec<syn::Ident> = targets
                    .iter()
                    .map(|target| {
                        let base = target.to_string();
                        super::fresh_ident(
                            idents,
                            &format!("{}_next", base.trim_start_matches("r#")),
                        )
                    })
                    .collect();
                let span = targets[0].span();
                block
                    .stmts
                    .push(syn::parse_quote_spanned!(span=> let (#(#fresh,)*) = #call;));
                for (target, fresh) in targets.iter().zip(&fresh) {
                    block
                        .stmts
                        .push(syn::parse_quote_spanned!(span=> #target = #fresh;));
                }
                continue;
            }
        }
        crate::blocks::of_stmt(&mut stmt, &mut |inner| rewrite(inner, idents));
        block.stmts.push(stmt);
    }
}

/// `(a, b) = f(..)`: the distinct names and the call.
fn call_to_names(expr: &syn::Expr) -> Option<(Vec<syn::Ident>, &syn::Expr)> {
    let syn::Expr::Assign(assign) = expr else {
        return None;
    };
    if !assign.attrs.is_empty() {
        return None;
    }
    let (syn::Expr::Tuple(left), call @ (syn::Expr::Call(_) | syn::Expr::MethodCall(_))) =
        (unparen(&assign.left), unparen(&assign.right))
    else {
        return None;
    };
    let targets = left
        .elems
        .iter()
        .map(|target| match target {
            syn::Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
                path.path.get_ident().cloned()
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let distinct: HashSet<String> = targets.iter().map(ToString::to_string).collect();
    (targets.len() >= 2 && distinct.len() == targets.len()).then_some((targets, call))
}

/// An index with nothing in it that could change or act between the
/// `let`s a pattern splits into: an integer literal, a name, or `+`, `-`,
/// `*` of them (`m[k + 1]`).
fn plain_index(index: &syn::Expr) -> bool {
    match index {
        syn::Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Int(_)),
        syn::Expr::Path(path) => path.path.get_ident().is_some(),
        syn::Expr::Paren(paren) => plain_index(&paren.expr),
        syn::Expr::Binary(binary) => {
            matches!(
                binary.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_)
            ) && plain_index(&binary.left)
                && plain_index(&binary.right)
        }
        _ => false,
    }
}

/// Whether `pat` binds a name that `expr` reads.
fn binds_a_name_of(pat: &syn::Pat, expr: &syn::Expr) -> bool {
    let mut read = HashSet::new();
    crate::text::identifiers(expr.to_token_stream(), &mut read);
    crate::lower::pattern_names(pat)
        .iter()
        .any(|name| read.contains(name))
}

/// An array literal whose items are numbers as far as they show: rows of
/// rows with no `vec!` in them, or items of which one at least computes
/// or is a float literal (`[x - c, 0.0]`; `[v, w]` of two names may hold `Vec`s, which
/// a pattern moves and an index cannot).
fn numbers_literal(expr: &syn::Expr) -> bool {
    let syn::Expr::Array(array) = unparen(expr) else {
        return false;
    };
    if array.elems.is_empty() {
        return false;
    }
    // Rows of rows (`[[x0], [y]]`): numbers, bar a `vec!` among them.
    if array
        .elems
        .iter()
        .all(|item| matches!(unparen(item), syn::Expr::Array(_)))
    {
        return array.elems.iter().all(|row| match unparen(row) {
            syn::Expr::Array(row) => row.elems.iter().all(|item| match unparen(item) {
                syn::Expr::Array(_) => numbers_literal(item),
                item => !is_vec_macro(item),
            }),
            _ => false,
        });
    }
    array.elems.iter().any(|item| match unparen(item) {
        syn::Expr::Binary(_) | syn::Expr::Unary(_) => true,
        // `x.sin()`, an `f64` method of the table.
        syn::Expr::MethodCall(call) => {
            crate::vocabulary::method(&call.method.to_string()).is_some()
        }
        syn::Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Float(_)),
        _ => false,
    }) && !array
        .elems
        .iter()
        .any(|item| matches!(unparen(item), syn::Expr::Array(_)) || is_vec_macro(unparen(item)))
}

/// `vec![..]`, a `Vec` (`dbg!(x)` is its operand).
fn is_vec_macro(expr: &syn::Expr) -> bool {
    matches!(expr, syn::Expr::Macro(mac) if mac.mac.path.is_ident("vec"))
}
