//! Which bindings can hold a tracked value.
//!
//! A proc macro sees no types, but it sees names. A binding can hold a
//! `Scalar` only if a differentiable parameter reaches it by name: through a
//! `let`, an assignment, a `for` or `match` pattern, or a `push`. This pass
//! collects those names, to a fixpoint because loops carry values backwards.
//! The emitter rewrites only what such a name reaches, so integer and
//! constant arithmetic stays exactly as written.
//!
//! Names ignore scopes: a name tracked anywhere is tracked everywhere. That
//! may call a plain value tracked (a shadowed name), which costs a constant
//! node at most, because the generated calls dispatch on types. It never
//! calls a tracked value plain: every `Scalar` starts from a tracked name.

use std::collections::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use syn::Pat;

use crate::ast::{Block, Expr, ExprKind, Function, Stmt};

pub struct Flow {
    names: HashSet<String>,
    /// Names that hold a tracked value wherever they are bound: lifting
    /// them again would only add noise to the expansion.
    certain: HashSet<String>,
}

/// How one binding of a name gets its value.
enum Binding<'a> {
    /// Always a `Scalar` (or an array or vector of them): a differentiable
    /// parameter, or a tracked `let mut`, which is lifted.
    Tracked,
    /// Whatever the initialiser is.
    Init(&'a Expr),
    /// Unknown: a pattern, a pass-through parameter, a loop variable.
    Unknown,
}

impl Flow {
    pub fn analyse(function: &Function) -> Flow {
        let mut flow = Flow {
            names: function
                .params
                .iter()
                .filter(|param| param.kind.is_differentiable())
                .map(|param| param.ident.to_string())
                .collect(),
            certain: HashSet::new(),
        };
        loop {
            let mut found = Vec::new();
            flow.block(&function.body, &mut found);
            let before = flow.names.len();
            flow.names.extend(found);
            if flow.names.len() == before {
                break;
            }
        }
        flow.certain = flow.certain_names(function);
        flow
    }

    fn certain_names(&self, function: &Function) -> HashSet<String> {
        let mut bindings: HashMap<String, Vec<Binding<'_>>> = HashMap::new();
        for param in &function.params {
            let binding = if param.kind.is_differentiable() {
                Binding::Tracked
            } else {
                Binding::Unknown
            };
            bindings
                .entry(param.ident.to_string())
                .or_default()
                .push(binding);
        }
        collect_bindings(&function.body, self, &mut bindings);
        let mut certain = HashSet::new();
        loop {
            let before = certain.len();
            for (name, list) in &bindings {
                let all = list.iter().all(|binding| match binding {
                    Binding::Tracked => true,
                    Binding::Init(init) => certainly_tracked(init, &certain, self),
                    Binding::Unknown => false,
                });
                if all {
                    certain.insert(name.clone());
                }
            }
            if certain.len() == before {
                return certain;
            }
        }
    }

    /// Whether `expr` is certainly a `Scalar` (or an array or vector of
    /// them), so that lifting it would change nothing.
    pub fn is_certainly_tracked(&self, expr: &Expr) -> bool {
        certainly_tracked(expr, &self.certain, self)
    }

    /// Whether the binding `name` may hold a tracked value.
    pub fn is_tracked(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Whether `syntax` must be rewritten: it reads a tracked name, or it
    /// returns (a `return` in the recording twin returns a `Result`).
    pub fn touches(&self, syntax: &impl ToTokens) -> bool {
        self.scan(syntax.to_token_stream())
    }

    fn scan(&self, tokens: TokenStream) -> bool {
        tokens.into_iter().any(|token| match token {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                name == "return" || self.names.contains(&name)
            }
            TokenTree::Group(group) => self.scan(group.stream()),
            _ => false,
        })
    }

    fn block(&self, block: &Block, found: &mut Vec<String>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { pat, init, .. } => {
                    if let Some(init) = init {
                        if self.touches(&init.syntax) {
                            bindings(pat, found);
                        }
                        self.expr(init, found);
                    }
                }
                Stmt::Item(_) => {}
                Stmt::Expr(expr, _) => self.expr(expr, found),
            }
        }
    }

    fn expr(&self, expr: &Expr, found: &mut Vec<String>) {
        match &expr.kind {
            ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
                if self.touches(&value.syntax) {
                    found.extend(root(target));
                }
                self.expr(target, found);
                self.expr(value, found);
            }
            ExprKind::For {
                pat, iter, body, ..
            } => {
                if self.touches(&iter.syntax) {
                    bindings(pat, found);
                }
                self.expr(iter, found);
                self.block(body, found);
            }
            ExprKind::Let { pat, expr: value } => {
                if self.touches(&value.syntax) {
                    bindings(pat, found);
                }
                self.expr(value, found);
            }
            ExprKind::Match { scrutinee, arms } => {
                let touched = self.touches(&scrutinee.syntax);
                self.expr(scrutinee, found);
                for arm in arms {
                    if touched {
                        bindings(&arm.pat, found);
                    }
                    if let Some(guard) = &arm.guard {
                        self.expr(guard, found);
                    }
                    self.expr(&arm.body, found);
                }
            }
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => {
                if method == "push" && args.iter().any(|arg| self.touches(&arg.syntax)) {
                    found.extend(root(receiver));
                }
                self.expr(receiver, found);
                args.iter().for_each(|arg| self.expr(arg, found));
            }
            _ => {
                for child in expr.children() {
                    match child {
                        Child::Expr(child) => self.expr(child, found),
                        Child::Block(block) => self.block(block, found),
                    }
                }
            }
        }
    }
}

fn certainly_tracked(expr: &Expr, certain: &HashSet<String>, flow: &Flow) -> bool {
    let tracked = |e: &Expr| certainly_tracked(e, certain, flow);
    match &expr.kind {
        ExprKind::Path(path) => path
            .path
            .get_ident()
            .is_some_and(|ident| certain.contains(&ident.to_string())),
        ExprKind::Index { base, .. } | ExprKind::Paren(base) => tracked(base),
        ExprKind::Binary { op, lhs, rhs, .. } => {
            *op != crate::ast::Arith::Rem && (tracked(lhs) || tracked(rhs))
        }
        ExprKind::Neg { operand, .. } | ExprKind::Elementary { operand, .. } => tracked(operand),
        ExprKind::Powi { base, .. } => tracked(base),
        ExprKind::Sum { items, .. } => root(items).is_some_and(|name| certain.contains(&name)),
        ExprKind::Call { args, .. } => args.iter().any(|arg| flow.touches(&arg.syntax)),
        _ => false,
    }
}

fn collect_bindings<'a>(
    block: &'a Block,
    flow: &Flow,
    bindings: &mut HashMap<String, Vec<Binding<'a>>>,
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                pat,
                name,
                mutable,
                init,
                ..
            } => {
                if let Some(init) = init {
                    collect_expr(init, flow, bindings);
                }
                match (name, init) {
                    (Some(name), _) if *mutable && flow.is_tracked(&name.to_string()) => {
                        bindings
                            .entry(name.to_string())
                            .or_default()
                            .push(Binding::Tracked);
                    }
                    (Some(name), Some(init)) if !*mutable => {
                        bindings
                            .entry(name.to_string())
                            .or_default()
                            .push(Binding::Init(init));
                    }
                    _ => unknown(pat, bindings),
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => collect_expr(expr, flow, bindings),
        }
    }
}

fn collect_expr<'a>(expr: &'a Expr, flow: &Flow, bindings: &mut HashMap<String, Vec<Binding<'a>>>) {
    match &expr.kind {
        ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } => unknown(pat, bindings),
        ExprKind::Match { arms, .. } => arms.iter().for_each(|arm| unknown(&arm.pat, bindings)),
        _ => {}
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => collect_expr(child, flow, bindings),
            Child::Block(block) => collect_bindings(block, flow, bindings),
        }
    }
}

fn unknown(pat: &Pat, bindings: &mut HashMap<String, Vec<Binding<'_>>>) {
    let mut names = Vec::new();
    self::bindings(pat, &mut names);
    for name in names {
        bindings.entry(name).or_default().push(Binding::Unknown);
    }
}

/// The variable an assignment writes: `s` in `s`, `y[i]`, `y[i][j]`, `p.0`.
pub fn root(target: &Expr) -> Option<String> {
    match &target.kind {
        ExprKind::Path(path) => path.path.get_ident().map(ToString::to_string),
        ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => root(base),
        ExprKind::Paren(inner) => root(inner),
        ExprKind::Prefix { operand, .. } => root(operand),
        _ => None,
    }
}

/// Every name a pattern binds (and, harmlessly, the enum variants it names).
fn bindings(pat: &Pat, found: &mut Vec<String>) {
    fn walk(tokens: TokenStream, found: &mut Vec<String>) {
        for token in tokens {
            match token {
                TokenTree::Ident(ident) => found.push(ident.to_string()),
                TokenTree::Group(group) => walk(group.stream(), found),
                _ => {}
            }
        }
    }
    walk(pat.to_token_stream(), found);
}

/// A direct sub-expression or sub-block.
pub enum Child<'a> {
    Expr(&'a Expr),
    Block(&'a Block),
}

impl Expr {
    /// Every direct sub-expression and sub-block, in source order.
    pub fn children(&self) -> Vec<Child<'_>> {
        let mut out = Vec::new();
        match &self.kind {
            ExprKind::Lit(_)
            | ExprKind::NegLit(_)
            | ExprKind::Path(_)
            | ExprKind::Continue(_)
            | ExprKind::Invalid => {}
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::Compare { lhs, rhs, .. }
            | ExprKind::Logic { lhs, rhs, .. } => {
                out.push(Child::Expr(lhs));
                out.push(Child::Expr(rhs));
            }
            ExprKind::Neg { operand, .. }
            | ExprKind::Elementary { operand, .. }
            | ExprKind::Prefix { operand, .. } => out.push(Child::Expr(operand)),
            ExprKind::Powi { base, exponent, .. } => {
                out.push(Child::Expr(base));
                out.push(Child::Expr(exponent));
            }
            ExprKind::Sum { items, .. } => out.push(Child::Expr(items)),
            ExprKind::Call { args, .. }
            | ExprKind::PlainCall { args, .. }
            | ExprKind::Tuple(args)
            | ExprKind::Array(args)
            | ExprKind::VecList(args) => args.iter().for_each(|e| out.push(Child::Expr(e))),
            ExprKind::Structural { receiver, args, .. }
            | ExprKind::PlainMethod { receiver, args, .. } => {
                out.push(Child::Expr(receiver));
                args.iter().for_each(|e| out.push(Child::Expr(e)));
            }
            ExprKind::Cast { expr: inner, .. }
            | ExprKind::Field { base: inner, .. }
            | ExprKind::Reference { expr: inner, .. }
            | ExprKind::Paren(inner)
            | ExprKind::Repeat { elem: inner, .. } => out.push(Child::Expr(inner)),
            ExprKind::Index { base, index } => {
                out.push(Child::Expr(base));
                out.push(Child::Expr(index));
            }
            ExprKind::VecRepeat { elem, len } => {
                out.push(Child::Expr(elem));
                out.push(Child::Expr(len));
            }
            ExprKind::Range { start, end, .. } => {
                start.iter().for_each(|e| out.push(Child::Expr(e)));
                end.iter().for_each(|e| out.push(Child::Expr(e)));
            }
            ExprKind::Block(_, inner) | ExprKind::Loop { body: inner, .. } => {
                out.push(Child::Block(inner))
            }
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                out.push(Child::Expr(cond));
                out.push(Child::Block(then_branch));
                else_branch.iter().for_each(|e| out.push(Child::Expr(e)));
            }
            ExprKind::Let { expr: inner, .. } => out.push(Child::Expr(inner)),
            ExprKind::Match { scrutinee, arms } => {
                out.push(Child::Expr(scrutinee));
                for arm in arms {
                    arm.guard.iter().for_each(|e| out.push(Child::Expr(e)));
                    out.push(Child::Expr(&arm.body));
                }
            }
            ExprKind::For { iter, body, .. } => {
                out.push(Child::Expr(iter));
                out.push(Child::Block(body));
            }
            ExprKind::While { cond, body, .. } => {
                out.push(Child::Expr(cond));
                out.push(Child::Block(body));
            }
            ExprKind::Break { value, .. } | ExprKind::Return(value) => {
                value.iter().for_each(|e| out.push(Child::Expr(e)));
            }
            ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
                out.push(Child::Expr(target));
                out.push(Child::Expr(value));
            }
        }
        out
    }
}
