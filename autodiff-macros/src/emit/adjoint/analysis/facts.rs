//! The facts `Analysis` records about each name as it walks the body (where
//! it is bound, written, resized or read), the questions they answer
//! (whether a value is stable, a length is, a name is local), and the names
//! a body assigns or reshapes as a whole.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;

use super::{Analysis, KEEPS_LENGTH, MUTATING, RESIZING};
use crate::ast::{Block, Child, Expr, ExprKind, Stmt};
use crate::flow::root;

impl Analysis {
    pub(super) fn stmt_facts(&mut self, stmt: &Stmt, top: usize) {
        match stmt {
            Stmt::Let {
                pat, init, name, ..
            } => {
                for name in bindings(pat) {
                    *self.bound.entry(name.clone()).or_default() += 1;
                }
                if let (
                    Some(name),
                    Some(Expr {
                        kind:
                            ExprKind::Reference {
                                mutability: None,
                                expr: borrowed,
                            },
                        ..
                    }),
                ) = (name, init)
                {
                    if let Some(from) = root(borrowed).filter(|from| from != name) {
                        self.borrows.insert(name.clone(), from);
                    }
                }
                if let Some(init) = init {
                    self.expr_facts(init, top);
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => self.expr_facts(expr, top),
        }
    }

    fn block_facts(&mut self, block: &Block, top: usize) {
        for stmt in &block.stmts {
            self.stmt_facts(stmt, top);
        }
    }

    fn write(&mut self, target: &Expr, top: usize) {
        if let Some(name) = root(target) {
            self.writes.entry(name).or_default().push(top);
        }
    }

    /// `target` may change length: written as a whole (`v = ..`, `&mut
    /// v`) or by a method that may resize it.
    fn resize(&mut self, target: &Expr) {
        if let ExprKind::Path(path) = &target.kind {
            self.resizable
                .extend(path.path.get_ident().map(ToString::to_string));
        }
    }

    fn expr_facts(&mut self, expr: &Expr, top: usize) {
        if let ExprKind::Structural {
            receiver, method, ..
        }
        | ExprKind::PlainMethod {
            receiver, method, ..
        } = &expr.kind
        {
            if !KEEPS_LENGTH.contains(&method.to_string().as_str()) {
                self.resize(receiver);
            }
        }
        // `mem::swap(&mut a, &mut b)`: each may take a length of the
        // other's, so both adjoints are shaped like the bindings at the end
        // of the forward sweep, as a pushed one's.
        if let Some((a, b)) = expr.swapped() {
            self.pushed.extend(root(a));
            self.pushed.extend(root(b));
        }
        match &expr.kind {
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                self.resize(target);
                self.write(target, top)
            }
            ExprKind::Reference {
                mutability: Some(_),
                expr: inner,
            } => {
                self.resize(inner);
                self.write(inner, top)
            }
            ExprKind::Structural {
                receiver, method, ..
            }
            | ExprKind::PlainMethod {
                receiver, method, ..
            } if MUTATING.contains(&method.to_string().as_str()) => {
                // A `Vec` truncated, popped, inserted into or extended
                // changes length too: its adjoint is shaped as a pushed
                // one's, to its final length, and each reversed move puts
                // the length back.
                if RESIZING.contains(&method.to_string().as_str()) {
                    self.pushed.extend(root(receiver));
                }
                if ["swap", "reverse", "sort_by"].contains(&method.to_string().as_str()) {
                    self.moved.extend(root(receiver));
                }
                self.write(receiver, top)
            }
            ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } => {
                for name in &pat.names {
                    *self.bound.entry(name.clone()).or_default() += 1;
                }
            }
            ExprKind::Match { arms, .. } => {
                for arm in arms {
                    for name in &arm.pat.names {
                        *self.bound.entry(name.clone()).or_default() += 1;
                    }
                }
            }
            _ => {}
        }
        for child in expr.children() {
            match child {
                Child::Expr(child) => self.expr_facts(child, top),
                Child::Block(block) => self.block_facts(block, top),
            }
        }
    }

    /// Whether the body reads `name` somewhere (as a path). A tracked
    /// binding never read is observed where it is made: nothing else
    /// would see it.
    pub fn reads(&self, name: &str) -> bool {
        self.mentions.contains_key(name)
    }

    /// Whether `name`, read in top-level statement `top`, still holds the
    /// value it had there when the reverse sweep runs: a parameter or a
    /// top-level binding, bound once, that nothing writes in or after
    /// `top`.
    pub fn stable(&self, name: &str, top: usize) -> bool {
        self.stable_through(name, top, 0)
    }

    /// [`stable`](Self::stable), `hops` borrows deep (a chain of `let r =
    /// &v;` ends, and a name bound again may borrow its earlier self).
    fn stable_through(&self, name: &str, top: usize, hops: usize) -> bool {
        let bound = self.bound.get(name).copied().unwrap_or(0);
        // Several bindings are fine when all are at the top level and the
        // read comes after the last: the reverse sweep sees that one.
        if bound != 1 && self.top_bound.get(name).copied().unwrap_or(0) != bound {
            return false;
        }
        self.declared_before(name, top)
            && self
                .writes
                .get(name)
                .is_none_or(|writes| writes.iter().all(|&at| at < top))
            && self
                .borrows
                .get(name)
                .is_none_or(|from| hops < 8 && self.stable_through(from, top, hops + 1))
    }

    /// Whether the length of `name` (`0..w.len()`, read in top-level
    /// statement `top`) is still the same when the reverse sweep runs,
    /// though its items may not be: a parameter or a top-level binding,
    /// bound once before `top`, whose items alone are written (no `push`,
    /// `pop`, .., no assignment or `&mut` borrow of the whole).
    pub fn length_stable(&self, name: &str, top: usize) -> bool {
        self.bound.get(name).copied() == Some(1)
            && self.declared_before(name, top)
            && !self.resizable.contains(name)
    }

    /// Whether the binding of `name` the reverse sweep sees (the last
    /// top-level `let` of the name, or else the parameter) is made before
    /// top-level statement `top`.
    fn declared_before(&self, name: &str, top: usize) -> bool {
        match self.top_lets.get(name) {
            Some(&at) => at < top,
            None => self.params.contains(name),
        }
    }

    /// Whether `name` is a binding of the body or a parameter (anything
    /// else, a `const` or a function, is there in the reverse sweep too).
    pub fn is_local(&self, name: &str) -> bool {
        self.bound.contains_key(name)
    }
}

/// The names a `let` pattern binds: its identifiers but those of its type
/// (`let s: f64` binds `s`, not `f64`, which `f64::MAX` still names).
pub(super) fn bindings<'p>(pat: &'p crate::ast::Pattern) -> impl Iterator<Item = &'p String> {
    let mut types = HashSet::new();
    if let syn::Pat::Type(typed) = pat.syntax {
        crate::text::identifiers(typed.ty.to_token_stream(), &mut types);
        let mut named = HashSet::new();
        crate::text::identifiers(typed.pat.to_token_stream(), &mut named);
        types.retain(|name| !named.contains(name));
    }
    pat.names.iter().filter(move |name| !types.contains(*name))
}

/// The names `body` assigns as a whole somewhere (`h = ..;`).
pub(crate) fn assigned_whole(body: &Block) -> HashSet<String> {
    let assigned = std::cell::RefCell::new(HashSet::new());
    body.any_expr(&|expr| {
        if let ExprKind::Assign { target, .. } = &expr.kind {
            if let ExprKind::Path(path) = &target.kind {
                if let Some(ident) = path.path.get_ident() {
                    assigned.borrow_mut().insert(ident.to_string());
                }
            }
        }
        false
    });
    assigned.into_inner()
}

/// The locals of `body` that [`Analysis::reshaped`] holds.
pub(super) fn reshaped(body: &Block, params: &HashSet<String>) -> HashSet<String> {
    let mut lets = HashMap::new();
    array_lets(body, &mut lets);
    assigned_whole(body)
        .into_iter()
        .filter(|name| !params.contains(name) && lets.get(name) != Some(&true))
        .collect()
}

/// For each name a `let` of `block` (or a block inside it) binds alone:
/// whether every such `let` makes an array or a tuple.
fn array_lets(block: &Block, lets: &mut HashMap<String, bool>) {
    for stmt in &block.stmts {
        let exprs: Vec<&Expr> = match stmt {
            Stmt::Let {
                pat, name, init, ..
            } => {
                if let Some(name) = name {
                    let typed_array = matches!(pat.syntax,
                        syn::Pat::Type(typed) if matches!(*typed.ty, syn::Type::Array(_)));
                    let array = typed_array
                        || init.as_ref().is_some_and(|init| {
                            matches!(
                                init.kind,
                                ExprKind::Array(_) | ExprKind::Repeat { .. } | ExprKind::Tuple(_)
                            )
                        });
                    *lets.entry(name.clone()).or_insert(true) &= array;
                }
                init.iter().collect()
            }
            Stmt::Expr(expr, _) => vec![expr],
            Stmt::Item(_) => Vec::new(),
        };
        for expr in exprs {
            nested_lets(expr, lets);
        }
    }
}

fn nested_lets(expr: &Expr, lets: &mut HashMap<String, bool>) {
    for child in expr.children() {
        match child {
            Child::Expr(inner) => nested_lets(inner, lets),
            Child::Block(inner) => array_lets(inner, lets),
        }
    }
}
