//! Which bindings the body shows hold `f64` values (or arrays, slices and
//! `Vec`s of them): `Analysis::numbers`, and [`shows_number`] for one
//! expression.

use std::collections::{HashMap, HashSet};

use crate::ast::{Arith, Block, Child, Expr, ExprKind, Function, Kind, Stmt};

use super::activity::carries;

/// The `numbers` of `Analysis`: a name counts when every binding of it
/// shows an `f64`, or when it carries a derivative (which only `f64`
/// arithmetic gives it, or an error rustc reports there).
pub(super) fn numbers(function: &Function, active: &HashSet<String>) -> HashSet<String> {
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

/// A float literal: `1.5`, `1e3`, or an integer's digits with the `f64`
/// suffix (`10000f64`, as `10000f64.powf(..)` is written).
fn float_literal(lit: &syn::Lit) -> bool {
    match lit {
        syn::Lit::Float(_) => true,
        syn::Lit::Int(int) => int.suffix() == "f64",
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
        ExprKind::Lit(lit) => float_literal(lit),
        ExprKind::NegLit(unary) => {
            matches!(&*unary.expr, syn::Expr::Lit(lit) if float_literal(&lit.lit))
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

/// The model fields (`net.b`, keyed by their text) that `block` shows to
/// be `f64`s: an operand of arithmetic whose other operand is a float (a
/// float literal, a parameter `float_param` names, an item of one, an
/// elementary function's value, arithmetic of these), or the operand of an
/// elementary function other than `abs`, which integers have too.
pub(super) fn float_fields(block: &Block, float_param: &dyn Fn(&str) -> bool) -> HashSet<String> {
    fn field(expr: &Expr) -> Option<String> {
        match &expr.kind {
            ExprKind::Paren(inner) => field(inner),
            ExprKind::Field {
                member: syn::Member::Named(_),
                ..
            } => Some(quote::ToTokens::to_token_stream(&expr.source).to_string()),
            _ => None,
        }
    }
    fn floaty(expr: &Expr, float_param: &dyn Fn(&str) -> bool, known: &HashSet<String>) -> bool {
        let floaty = |e: &Expr| floaty(e, float_param, known);
        match &expr.kind {
            ExprKind::Lit(lit) => float_literal(lit),
            ExprKind::NegLit(unary) => {
                matches!(&*unary.expr, syn::Expr::Lit(lit) if float_literal(&lit.lit))
            }
            ExprKind::Path(path) => path
                .path
                .get_ident()
                .is_some_and(|ident| float_param(&ident.to_string())),
            ExprKind::Index { base, .. } => matches!(&base.kind, ExprKind::Path(_)) && floaty(base),
            ExprKind::Paren(inner) | ExprKind::Neg { operand: inner, .. } => floaty(inner),
            ExprKind::Binary { op, lhs, rhs, .. } => {
                *op != Arith::Rem && (floaty(lhs) || floaty(rhs))
            }
            ExprKind::Elementary { func, .. } => *func != "abs",
            ExprKind::Powi { .. } => true,
            ExprKind::Cast { ty, .. } => crate::valid::is_f64(ty),
            ExprKind::Field { .. } => field(expr).is_some_and(|name| known.contains(&name)),
            _ => false,
        }
    }
    let mut known = HashSet::new();
    // Twice: a field beside a field shown in the first pass.
    for _ in 0..2 {
        let found = std::cell::RefCell::new(HashSet::new());
        block.any_expr(&|expr| {
            match &expr.kind {
                ExprKind::Binary { op, lhs, rhs, .. } if *op != Arith::Rem => {
                    for (this, other) in [(lhs, rhs), (rhs, lhs)] {
                        if let (Some(name), true) =
                            (field(this), floaty(other, float_param, &known))
                        {
                            found.borrow_mut().insert(name);
                        }
                    }
                }
                ExprKind::Elementary { func, operand, .. } if *func != "abs" => {
                    if let Some(name) = field(operand) {
                        found.borrow_mut().insert(name);
                    }
                }
                _ => {}
            }
            false
        });
        known.extend(found.into_inner());
    }
    known
}
