//! What the compiled adjoint needs to know about the body before it writes
//! a line: which bindings carry a derivative (`active`), how often each
//! name is bound (for `y_1_bar`), and where each name is written, which
//! decides whether a value the reverse sweep reads is still there
//! (*stable*) or must be saved.

use std::collections::{HashMap, HashSet};

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;

use crate::ast::{Arith, Block, Child, Expr, ExprKind, Function, Kind, Stmt};
use crate::flow::root;

/// Methods that change their receiver.
const MUTATING: &[&str] = &[
    "push",
    "pop",
    "sort",
    "sort_by",
    "swap",
    "fill",
    "clear",
    "truncate",
    "insert",
    "remove",
    "extend",
    "extend_from_slice",
    "resize",
    "reverse",
    "iter_mut",
    "copy_from_slice",
    "as_mut_slice",
];

/// Whether a method of this name changes its receiver.
pub fn mutates(method: &syn::Ident) -> bool {
    MUTATING.contains(&method.to_string().as_str())
}

pub struct Analysis {
    /// Bindings that may hold a value with a derivative: differentiable
    /// parameters and what their values reach through arithmetic. Stricter
    /// than `flow`'s tracked names: `x.len()` reaches no derivative.
    pub active: HashSet<String>,
    /// How many times each name is bound (parameters, `let`s, patterns).
    pub bound: HashMap<String, usize>,
    /// The top-level statement of each write of a name (`=`, `op=`, an
    /// element write, `push`, `&mut`).
    pub writes: HashMap<String, Vec<usize>>,
    /// The top-level statement of each name's last top-level `let`.
    pub top_lets: HashMap<String, usize>,
    /// How many of a name's bindings are parameters or top-level `let`s.
    pub top_bound: HashMap<String, usize>,
    pub params: HashSet<String>,
    /// Every identifier of the function: generated names avoid them.
    pub idents: HashSet<String>,
    /// How many indexings take a binding to an `f64` (0 for a scalar),
    /// where every binding of the name agrees.
    pub dims: HashMap<String, Option<usize>>,
    /// Slice parameters: their items are references.
    pub slices: HashSet<String>,
    /// Array parameters of numbers (or arrays of them): `Copy`, so a `for`
    /// over one leaves it for the reverse sweep.
    pub arrays: HashSet<String>,
    /// Bindings the body shows hold `f64` values (or arrays, slices, `Vec`s
    /// of them): parameters so typed, what `active` reaches, `let`s typed
    /// `f64` or initialised with arithmetic of such values. The reverse
    /// sweep reads any other binding through `f64_of` (see
    /// `src/__adjoint/operands.rs`), where a mistaken type is the plain
    /// twin's error only.
    pub numbers: HashSet<String>,
    /// Parameters that hold models (`Mlp`, `&Mlp`, `Vec<Layer>`, `self`):
    /// a method called on a place rooted at one is an annotated method.
    pub models: HashSet<String>,
    /// Bindings something is `push`ed onto.
    pub pushed: HashSet<String>,
    /// Names the body reads somewhere (as a path). A tracked binding never
    /// read is observed where it is made: nothing else would see it.
    pub read: HashSet<String>,
    /// How many indexings take each value assigned to a name as a whole
    /// (`y = x * 2.0;`) to an `f64`, where every such value agrees: the
    /// shape of a `let y;` bound by its assignments.
    pub assigned: HashMap<String, Option<usize>>,
}

impl Analysis {
    pub fn new(function: &Function) -> Analysis {
        let mut analysis = Analysis {
            active: function
                .params
                .iter()
                .filter(|param| param.kind.is_differentiable())
                .map(|param| param.ident.to_string())
                .collect(),
            bound: HashMap::new(),
            writes: HashMap::new(),
            top_lets: HashMap::new(),
            top_bound: HashMap::new(),
            params: function
                .params
                .iter()
                .map(|param| param.ident.to_string())
                .collect(),
            idents: HashSet::new(),
            dims: HashMap::new(),
            slices: function
                .params
                .iter()
                .filter(|param| {
                    matches!(param.kind, Kind::Slice(_))
                        || matches!(param.ty, syn::Type::Reference(_))
                })
                .map(|param| param.ident.to_string())
                .collect(),
            arrays: function
                .params
                .iter()
                .filter(|param| copy_array(&param.kind))
                .map(|param| param.ident.to_string())
                .collect(),
            numbers: HashSet::new(),
            models: function
                .params
                .iter()
                .filter(|param| param.kind.holds_struct())
                .map(|param| param.ident.to_string())
                .collect(),
            pushed: HashSet::new(),
            read: HashSet::new(),
            assigned: HashMap::new(),
        };
        let read = std::cell::RefCell::new(HashSet::new());
        function.body.any_expr(&|expr| {
            if let ExprKind::Path(path) = &expr.kind {
                if let Some(ident) = path.path.get_ident() {
                    read.borrow_mut().insert(ident.to_string());
                }
            }
            false
        });
        analysis.read = read.into_inner();
        for param in &function.params {
            let dims = match &param.kind {
                Kind::PassThrough => match &param.ty {
                    syn::Type::Path(path) if path.path.is_ident("f64") => Some(0),
                    _ => None,
                },
                kind => kind_dims(kind),
            };
            analysis.dims.insert(param.ident.to_string(), dims);
        }
        let params_dims = analysis.dims.clone();
        dims_block(&function.body, &mut analysis.dims);
        collect_idents(function.item.to_token_stream(), &mut analysis.idents);
        for param in &function.params {
            *analysis.bound.entry(param.ident.to_string()).or_default() += 1;
            *analysis
                .top_bound
                .entry(param.ident.to_string())
                .or_default() += 1;
        }
        for (index, stmt) in function.body.stmts.iter().enumerate() {
            if let Stmt::Let { pat, .. } = stmt {
                for name in bindings(pat) {
                    analysis.top_lets.insert(name.clone(), index);
                    *analysis.top_bound.entry(name.clone()).or_default() += 1;
                }
            }
            analysis.stmt_facts(stmt, index);
        }
        // A `let y;` has the shape of what is assigned to it, which may
        // come through another such binding (`let (a, b) = if .. { (b, s) }
        // ..` read as `let b_next; .. b_next = b; .. let b = b_next;`):
        // each such binding is taken for a number, then for what its
        // assignments show, until that agrees; else its shape is unknown.
        let mut deferred = Vec::new();
        deferred_lets(&function.body, &mut deferred);
        deferred.retain(|name| analysis.bound.get(name).copied() == Some(1));
        analysis.assigned = assigned_dims(&function.body, &analysis.dims);
        if !deferred.is_empty() {
            let mut seeds: HashMap<String, Option<usize>> = deferred
                .iter()
                .map(|name| (name.clone(), Some(0)))
                .collect();
            let mut agreed = false;
            for _ in 0..4 {
                let mut dims = params_dims.clone();
                dims.extend(seeds.clone());
                dims_block(&function.body, &mut dims);
                let assigned = assigned_dims(&function.body, &dims);
                let found: HashMap<String, Option<usize>> = deferred
                    .iter()
                    .map(|name| (name.clone(), assigned.get(name).copied().flatten()))
                    .collect();
                if found == seeds {
                    analysis.dims = dims;
                    analysis.assigned = assigned;
                    agreed = true;
                    break;
                }
                seeds = found;
            }
            if !agreed {
                for name in &deferred {
                    analysis.assigned.insert(name.clone(), None);
                }
            }
        }
        loop {
            let before = analysis.active.len();
            let mut found = Vec::new();
            reach_block(&function.body, &analysis.active, &mut found);
            analysis.active.extend(found);
            if analysis.active.len() == before {
                break;
            }
        }
        analysis.numbers = numbers(function, &analysis.active);
        analysis
    }

    fn stmt_facts(&mut self, stmt: &Stmt, top: usize) {
        match stmt {
            Stmt::Let { pat, init, .. } => {
                for name in bindings(pat) {
                    *self.bound.entry(name.clone()).or_default() += 1;
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

    fn expr_facts(&mut self, expr: &Expr, top: usize) {
        match &expr.kind {
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                self.write(target, top)
            }
            ExprKind::Reference {
                mutability: Some(_),
                expr: inner,
            } => self.write(inner, top),
            ExprKind::Structural {
                receiver, method, ..
            }
            | ExprKind::PlainMethod {
                receiver, method, ..
            } if MUTATING.contains(&method.to_string().as_str()) => {
                if *method == "push" {
                    self.pushed.extend(root(receiver));
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

    /// Whether `name`, read in top-level statement `top`, still holds the
    /// value it had there when the reverse sweep runs: a parameter or a
    /// top-level binding, bound once, that nothing writes in or after
    /// `top`.
    pub fn stable(&self, name: &str, top: usize) -> bool {
        let bound = self.bound.get(name).copied().unwrap_or(0);
        // Several bindings are fine when all are at the top level and the
        // read comes after the last: the reverse sweep sees that one.
        if bound != 1 && self.top_bound.get(name).copied().unwrap_or(0) != bound {
            return false;
        }
        // The binding the reverse sweep sees: the last top-level `let` of
        // the name, or else the parameter.
        let declared = match self.top_lets.get(name) {
            Some(&at) => at < top,
            None => self.params.contains(name),
        };
        declared
            && self
                .writes
                .get(name)
                .is_none_or(|writes| writes.iter().all(|&at| at < top))
    }

    /// Whether `name` is a binding of the body or a parameter (anything
    /// else, a `const` or a function, is there in the reverse sweep too).
    pub fn is_local(&self, name: &str) -> bool {
        self.bound.contains_key(name)
    }
}

/// The names a `let` pattern binds: its identifiers but those of its type
/// (`let s: f64` binds `s`, not `f64`, which `f64::MAX` still names).
fn bindings<'p>(pat: &'p crate::ast::Pattern) -> impl Iterator<Item = &'p String> {
    let mut types = HashSet::new();
    if let syn::Pat::Type(typed) = pat.syntax {
        collect_idents(typed.ty.to_token_stream(), &mut types);
        let mut named = HashSet::new();
        collect_idents(typed.pat.to_token_stream(), &mut named);
        types.retain(|name| !named.contains(name));
    }
    pat.names.iter().filter(move |name| !types.contains(*name))
}

fn collect_idents(tokens: TokenStream, idents: &mut HashSet<String>) {
    for token in tokens {
        match token {
            TokenTree::Ident(ident) => {
                idents.insert(ident.to_string());
            }
            TokenTree::Group(group) => collect_idents(group.stream(), idents),
            _ => {}
        }
    }
}

/// Whether `expr`'s value may carry a derivative, given the active names.
pub fn carries(expr: &Expr, active: &HashSet<String>) -> bool {
    let carries = |e: &Expr| carries(e, active);
    match &expr.kind {
        ExprKind::Path(path) => path
            .path
            .get_ident()
            .is_some_and(|ident| active.contains(&ident.to_string())),
        ExprKind::Index { base, .. }
        | ExprKind::Field { base, .. }
        | ExprKind::Paren(base)
        | ExprKind::Dbg { arg: base, .. }
        | ExprKind::Reference { expr: base, .. }
        | ExprKind::Prefix {
            op: syn::UnOp::Deref(_),
            operand: base,
        } => carries(base),
        ExprKind::Binary { lhs, rhs, .. } => carries(lhs) || carries(rhs),
        ExprKind::Neg { operand, .. } | ExprKind::Elementary { operand, .. } => carries(operand),
        ExprKind::Powi { base, .. } => carries(base),
        ExprKind::Ternary { operands, .. } => operands.iter().any(|e| carries(e)),
        ExprKind::Sum { items, .. } => carries(items),
        ExprKind::Call { args, .. } => args.iter().any(carries),
        // A method called on a model: an annotated method (see the sweep's
        // `is_method_call`), whose value carries the model's derivative.
        ExprKind::PlainMethod {
            receiver,
            method,
            args,
            reads_primal: false,
            ..
        } if !is_count(expr) => carries(receiver) || args.iter().any(carries),
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } => {
            !is_count(expr) && (carries(receiver) || (*method == "zip" && args.iter().any(carries)))
        }
        ExprKind::Array(items) | ExprKind::VecList(items) | ExprKind::Tuple(items) => {
            items.iter().any(carries)
        }
        ExprKind::Repeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => carries(elem),
        ExprKind::If {
            then_branch,
            else_branch,
            ..
        } => block_carries(then_branch, active) || else_branch.as_deref().is_some_and(carries),
        ExprKind::Block(_, block) => block_carries(block, active),
        ExprKind::Match { arms, .. } => arms.iter().any(|arm| carries(&arm.body)),
        // The value of the `break` that ends it (one of a loop inside,
        // which ends that loop, counted too: more is tracked, never less).
        ExprKind::Loop { body, .. } => body.any_expr(&|inner| {
            matches!(&inner.kind, ExprKind::Break { value: Some(value), .. } if carries(value))
        }),
        _ => false,
    }
}

/// A call whose value is a count or a truth value (`x.len()`,
/// `x.iter().all(|v| *v > 0.0)`, `filter(..).count()`): it carries no
/// derivative, whatever it reads. A method the lowering could not place
/// counts only with a closure argument, which an iterator's method takes
/// and a model's does not.
pub fn is_count(expr: &Expr) -> bool {
    let counts = |method: &syn::Ident| {
        ["len", "is_empty", "all", "any", "count"]
            .iter()
            .any(|name| method == name)
    };
    match &expr.kind {
        ExprKind::Structural { method, .. } => counts(method),
        ExprKind::PlainMethod { method, args, .. } => {
            counts(method)
                && args
                    .iter()
                    .any(|arg| matches!(arg.kind, ExprKind::Closure { .. }))
        }
        _ => false,
    }
}

fn block_carries(block: &Block, active: &HashSet<String>) -> bool {
    block
        .split_tail()
        .1
        .is_some_and(|tail| carries(tail, active))
}

/// One round of the activity fixpoint: names newly reached by a value that
/// carries a derivative.
fn reach_block(block: &Block, active: &HashSet<String>, found: &mut Vec<String>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let { pat, init, .. } => {
                if let Some(init) = init {
                    if carries(init, active) {
                        found.extend(pat.names.iter().cloned());
                    }
                    reach_expr(init, active, found);
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => reach_expr(expr, active, found),
        }
    }
}

fn reach_expr(expr: &Expr, active: &HashSet<String>, found: &mut Vec<String>) {
    match &expr.kind {
        ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. }
            if carries(value, active) =>
        {
            found.extend(root(target));
        }
        ExprKind::For { pat, iter, .. } => reached_items(pat.syntax, iter, active, found),
        ExprKind::Let { pat, expr: value } if carries(value, active) => {
            found.extend(pat.names.iter().cloned());
        }
        ExprKind::Match { scrutinee, arms } if carries(scrutinee, active) => {
            for arm in arms {
                found.extend(arm.pat.names.iter().cloned());
            }
        }
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } if *method == "push" && args.iter().any(|arg| carries(arg, active)) => {
            found.extend(root(receiver));
        }
        _ => {}
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => reach_expr(child, active, found),
            Child::Block(block) => reach_block(block, active, found),
        }
    }
}

/// The names a `for` pattern binds to items with a derivative: each side
/// of a `zip` by its own source, an `enumerate`'s index never.
fn reached_items(pat: &syn::Pat, iter: &Expr, active: &HashSet<String>, found: &mut Vec<String>) {
    let pair = match pat {
        syn::Pat::Tuple(tuple) if tuple.elems.len() == 2 => {
            Some((&tuple.elems[0], &tuple.elems[1]))
        }
        _ => None,
    };
    match (&iter.kind, pair) {
        (ExprKind::Paren(inner), _) => return reached_items(pat, inner, active, found),
        (
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            },
            _,
        ) => match (method.to_string().as_str(), args.as_slice(), pair) {
            ("enumerate", [], Some((_, item))) => {
                return reached_items(item, receiver, active, found)
            }
            ("zip", [other], Some((left, right))) => {
                reached_items(left, receiver, active, found);
                return reached_items(right, other, active, found);
            }
            ("rev" | "copied" | "cloned", [], _) | ("step_by" | "skip" | "take", [_], _) => {
                return reached_items(pat, receiver, active, found)
            }
            _ => {}
        },
        _ => {}
    }
    if carries(iter, active) {
        let mut names = HashSet::new();
        collect_idents(pat.to_token_stream(), &mut names);
        found.extend(names);
    }
}

/// The `numbers` of `Analysis`: a name counts when every binding of it
/// shows an `f64`, or when it carries a derivative (which only `f64`
/// arithmetic gives it, or an error rustc reports there).
fn numbers(function: &Function, active: &HashSet<String>) -> HashSet<String> {
    let mut verdicts: HashMap<String, bool> = HashMap::new();
    for param in &function.params {
        let number = match &param.kind {
            Kind::PassThrough => typed_number(&param.ty),
            Kind::Struct { .. } => false,
            _ => true,
        };
        verdicts.insert(param.ident.to_string(), number);
    }
    numbers_block(&function.body, active, &mut verdicts);
    let mut numbers: HashSet<String> = verdicts
        .into_iter()
        .filter(|(_, number)| *number)
        .map(|(name, _)| name)
        .collect();
    numbers.extend(active.iter().cloned());
    numbers
}

fn numbers_block(block: &Block, active: &HashSet<String>, verdicts: &mut HashMap<String, bool>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                pat, name, init, ..
            } => {
                let number = match (name, pat.syntax) {
                    (Some(_), syn::Pat::Type(typed)) => typed_number(&typed.ty),
                    (Some(_), _) => init.as_ref().is_some_and(|init| {
                        let known = |n: &str| verdicts.get(n).copied().unwrap_or(false);
                        shows_number(init, active, &known)
                    }),
                    (None, _) => false,
                };
                // `let (beta1, beta2) = (0.9, 0.999);`: element by element.
                let mut elements = HashMap::new();
                if let (syn::Pat::Tuple(tuple), Some(init)) = (pat.syntax, init) {
                    if let ExprKind::Tuple(items) = &init.kind {
                        for (elem, item) in tuple.elems.iter().zip(items) {
                            if let syn::Pat::Ident(ident) = elem {
                                let known = |n: &str| verdicts.get(n).copied().unwrap_or(false);
                                let shows = shows_number(item, active, &known);
                                elements.insert(ident.ident.to_string(), shows);
                            }
                        }
                    }
                }
                if let Some(init) = init {
                    numbers_expr(init, active, verdicts);
                }
                for bound in &pat.names {
                    let number = number || elements.get(bound).copied().unwrap_or(false);
                    let verdict = verdicts.entry(bound.clone()).or_insert(number);
                    *verdict &= number;
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => numbers_expr(expr, active, verdicts),
        }
    }
}

fn numbers_expr(expr: &Expr, active: &HashSet<String>, verdicts: &mut HashMap<String, bool>) {
    // Names bound by `for`, `match`, `if let`: numbers only if active.
    let names: &[String] = match &expr.kind {
        ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } => &pat.names,
        _ => &[],
    };
    for name in names {
        verdicts.insert(name.clone(), false);
    }
    if let ExprKind::Match { arms, .. } = &expr.kind {
        for arm in arms {
            for name in &arm.pat.names {
                verdicts.insert(name.clone(), false);
            }
        }
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => numbers_expr(child, active, verdicts),
            Child::Block(block) => numbers_block(block, active, verdicts),
        }
    }
}

/// `f64`, `&f64`, or arrays, slices and `Vec`s of them, as written.
fn typed_number(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return false;
            };
            if path.path.segments.len() == 1 && last.ident == "f64" {
                return true;
            }
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" => {
                    matches!(args.args.first(), Some(syn::GenericArgument::Type(elem)) if typed_number(elem))
                }
                _ => false,
            }
        }
        syn::Type::Reference(reference) => typed_number(&reference.elem),
        syn::Type::Array(array) => typed_number(&array.elem),
        syn::Type::Slice(slice) => typed_number(&slice.elem),
        syn::Type::Paren(paren) => typed_number(&paren.elem),
        syn::Type::Group(group) => typed_number(&group.elem),
        _ => false,
    }
}

/// Whether the body shows that `expr` is an `f64` (or a reference to one,
/// or an array of them), or else an expression in which rustc reports the
/// mistake itself (then its type is an error, which silences every use).
/// `number` says it of a binding.
pub fn shows_number(expr: &Expr, active: &HashSet<String>, number: &dyn Fn(&str) -> bool) -> bool {
    let shows = |e: &Expr| shows_number(e, active, number);
    match &expr.kind {
        ExprKind::Lit(lit) => matches!(lit, syn::Lit::Float(_)),
        ExprKind::NegLit(unary) => {
            matches!(&*unary.expr, syn::Expr::Lit(lit) if matches!(lit.lit, syn::Lit::Float(_)))
        }
        ExprKind::Path(path) => match path.path.get_ident() {
            Some(ident) => number(&ident.to_string()),
            // `f64::consts::PI`, `f64::EPSILON`, `std::f64::consts::E`.
            None => path
                .path
                .segments
                .iter()
                .rev()
                .skip(1)
                .any(|segment| segment.ident == "f64"),
        },
        ExprKind::Index { base, .. }
        | ExprKind::Paren(base)
        | ExprKind::Reference { expr: base, .. }
        | ExprKind::Prefix {
            op: syn::UnOp::Deref(_),
            operand: base,
        } => shows(base),
        ExprKind::Binary { op, lhs, rhs, .. } => {
            *op != Arith::Rem && (carries(expr, active) || (shows(lhs) && shows(rhs)))
        }
        ExprKind::Neg { operand, .. } => carries(expr, active) || shows(operand),
        // `n.abs()` of an `i32` is an `i32`; what a derivative reaches is
        // an `f64` (or the mistake rustc reports there).
        ExprKind::Elementary { operand, .. } => carries(expr, active) || shows(operand),
        ExprKind::Powi { base, .. } => carries(expr, active) || shows(base),
        // `n.clamp(0, 9)` of an `i32` is an `i32`, as `n.abs()` is.
        ExprKind::Ternary { operands, .. } => carries(expr, active) || shows(&operands[0]),
        ExprKind::Sum { .. } => carries(expr, active),
        ExprKind::Call { .. } => true,
        ExprKind::PlainMethod {
            reads_primal: false,
            ..
        } => carries(expr, active),
        ExprKind::Cast { ty, .. } => typed_number(ty),
        // Every value it may take shows one.
        ExprKind::If {
            then_branch,
            else_branch: Some(else_branch),
            ..
        } => tail_shows(then_branch, active, number) && shows(else_branch),
        ExprKind::Block(_, block) => tail_shows(block, active, number),
        ExprKind::Match { arms, .. } => arms.iter().all(|arm| shows(&arm.body)),
        _ => false,
    }
}

fn tail_shows(block: &Block, active: &HashSet<String>, number: &dyn Fn(&str) -> bool) -> bool {
    block
        .split_tail()
        .1
        .is_some_and(|tail| shows_number(tail, active, number))
}

fn copy_array(kind: &Kind) -> bool {
    match kind {
        Kind::Array(elem, _) => matches!(**elem, Kind::Scalar) || copy_array(elem),
        _ => false,
    }
}

fn kind_dims(kind: &Kind) -> Option<usize> {
    match kind {
        Kind::Scalar => Some(0),
        Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => Some(kind_dims(elem)? + 1),
        Kind::Struct { .. } | Kind::PassThrough => None,
    }
}

/// The value of the first `break` in `block` that ends the loop whose
/// body it is (one inside a nested loop ends that loop).
fn break_value<'m, 'a>(block: &'m Block<'a>) -> Option<&'m Expr<'a>> {
    fn in_expr<'m, 'a>(expr: &'m Expr<'a>) -> Option<&'m Expr<'a>> {
        match &expr.kind {
            ExprKind::Break {
                value: Some(value), ..
            } => Some(value),
            ExprKind::Loop { .. } | ExprKind::While { .. } | ExprKind::For { .. } => None,
            _ => expr.children().into_iter().find_map(|child| match child {
                Child::Expr(child) => in_expr(child),
                Child::Block(block) => break_value(block),
            }),
        }
    }
    block.stmts.iter().find_map(|stmt| match stmt {
        Stmt::Let { init, .. } => init.as_ref().and_then(in_expr),
        Stmt::Expr(expr, _) => in_expr(expr),
        Stmt::Item(_) => None,
    })
}

fn dims_block(block: &Block, dims: &mut HashMap<String, Option<usize>>) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                name: Some(name),
                init: Some(init),
                ..
            } => {
                let found = dims_of(init, dims);
                // A tuple's components (`let p = (a, b);`), read as `p.0`.
                let components: Vec<Option<usize>> = match &init.kind {
                    ExprKind::Tuple(items) => {
                        items.iter().map(|item| dims_of(item, dims)).collect()
                    }
                    _ => Vec::new(),
                };
                dims_expr(init, dims);
                for (key, found) in std::iter::once((name.clone(), found)).chain(
                    components
                        .into_iter()
                        .enumerate()
                        .map(|(k, found)| (format!("{name}.{k}"), found)),
                ) {
                    dims.entry(key)
                        .and_modify(|known| {
                            if *known != found {
                                *known = None;
                            }
                        })
                        .or_insert(found);
                }
            }
            // `let y;`: shaped by its assignments (see `Analysis::new`).
            Stmt::Let {
                name: Some(name),
                init: None,
                ..
            } => {
                dims.entry(name.clone()).or_insert(None);
            }
            Stmt::Let { pat, init, .. } => {
                for name in &pat.names {
                    dims.insert(name.clone(), None);
                }
                if let Some(init) = init {
                    dims_expr(init, dims);
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => dims_expr(expr, dims),
        }
    }
}

fn dims_expr(expr: &Expr, dims: &mut HashMap<String, Option<usize>>) {
    if let ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } = &expr.kind {
        for name in &pat.names {
            dims.insert(name.clone(), None);
        }
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => dims_expr(child, dims),
            Child::Block(block) => dims_block(block, dims),
        }
    }
}

/// The names of the `let`s without a value (`let y;`) in `block` and the
/// blocks inside it.
fn deferred_lets(block: &Block, out: &mut Vec<String>) {
    fn expr_lets(expr: &Expr, out: &mut Vec<String>) {
        for child in expr.children() {
            match child {
                Child::Expr(child) => expr_lets(child, out),
                Child::Block(block) => deferred_lets(block, out),
            }
        }
    }
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                name: Some(name),
                init: None,
                ..
            } => out.push(name.clone()),
            Stmt::Let {
                init: Some(init), ..
            } => expr_lets(init, out),
            Stmt::Expr(expr, _) => expr_lets(expr, out),
            _ => {}
        }
    }
}

/// `Analysis::assigned`, given the bindings' `dims`.
fn assigned_dims(
    body: &Block,
    dims: &HashMap<String, Option<usize>>,
) -> HashMap<String, Option<usize>> {
    let assigned = std::cell::RefCell::new(HashMap::new());
    body.any_expr(&|expr| {
        if let ExprKind::Assign { target, value } = &expr.kind {
            if let ExprKind::Path(path) = &target.kind {
                if let Some(ident) = path.path.get_ident() {
                    let found = dims_of(value, dims);
                    assigned
                        .borrow_mut()
                        .entry(ident.to_string())
                        .and_modify(|known: &mut Option<usize>| {
                            if *known != found {
                                *known = None;
                            }
                        })
                        .or_insert(found);
                }
            }
        }
        false
    });
    assigned.into_inner()
}

/// How many indexings take `expr`'s value to an `f64`, if known.
pub fn dims_of(expr: &Expr, dims: &HashMap<String, Option<usize>>) -> Option<usize> {
    match &expr.kind {
        ExprKind::Lit(syn::Lit::Float(_)) | ExprKind::NegLit(_) => Some(0),
        ExprKind::Binary { op, .. } if *op != Arith::Rem => Some(0),
        ExprKind::Call { .. } if expr.is_empty_vec() => None,
        ExprKind::Neg { .. }
        | ExprKind::Elementary { .. }
        | ExprKind::Powi { .. }
        | ExprKind::Ternary { .. }
        | ExprKind::Sum { .. }
        | ExprKind::Call { .. } => Some(0),
        ExprKind::Paren(inner) | ExprKind::Dbg { arg: inner, .. } => dims_of(inner, dims),
        // `p.0` of a tuple bound by name (see `dims_block`).
        ExprKind::Field {
            base,
            member: syn::Member::Unnamed(index),
        } => {
            let ExprKind::Path(path) = &base.kind else {
                return None;
            };
            let name = path.path.get_ident()?;
            dims.get(&format!("{name}.{}", index.index)).copied()?
        }
        // `i as f64`: a number.
        ExprKind::Cast { ty, .. } if crate::valid::is_f64(ty) => Some(0),
        // A `loop`'s value: its `break`'s.
        ExprKind::Loop { body, .. } => dims_of(break_value(body)?, dims),
        ExprKind::Path(path) => dims.get(&path.path.get_ident()?.to_string()).copied()?,
        ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
            dims_of(base, dims)?.checked_sub(1)
        }
        ExprKind::Repeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => {
            Some(dims_of(elem, dims)? + 1)
        }
        ExprKind::Array(items) | ExprKind::VecList(items) => {
            Some(dims_of(items.first()?, dims)? + 1)
        }
        ExprKind::Structural {
            receiver, method, ..
        } if matches!(method.to_string().as_str(), "clone" | "to_vec") => dims_of(receiver, dims),
        // A value chosen by branches: as its first arm with a known value
        // (another may leave by `return`).
        ExprKind::If {
            then_branch,
            else_branch,
            ..
        } => then_branch
            .split_tail()
            .1
            .and_then(|tail| dims_of(tail, dims))
            .or_else(|| dims_of(else_branch.as_deref()?, dims)),
        ExprKind::Block(None, block) => dims_of(block.split_tail().1?, dims),
        ExprKind::Match { arms, .. } => arms.iter().find_map(|arm| dims_of(&arm.body, dims)),
        _ => None,
    }
}
