//! Plain helpers known by where their value goes. A call the macro cannot
//! see into (`self.dim()` on a model, `argmax(&logits)`) is read as
//! another annotated function's, whose value carries a derivative. Where
//! the body uses its value as no `f64` can be used (a range bound, an
//! index, a cast, a condition, an operand of `&&` or `&`, the length of
//! `vec![0.0; n]`, a count a method takes), it is a plain helper: called
//! on plain values, its value checked by type to be one that carries no
//! derivative (`__private::NoDerivative`), so that a helper which does
//! return an `f64` is a compile error naming the fix, never a derivative
//! dropped. A `let` binding such a call counts by its name's uses
//! (`let n = self.dim(); for i in 0..n`), and so does arithmetic on it
//! (`let m = n - 1;`).
//!
//! A pass from model to model, run once after lowering: the call becomes
//! a `PlainCall` or a `PlainMethod` reading primal values.

use std::collections::HashSet;

use crate::ast::{Arith, Block, Child, ChildMut, Expr, ExprKind, Function, Stmt};

/// Methods whose first argument is a count or a position.
const COUNTED: &[&str] = &[
    "take",
    "skip",
    "step_by",
    "chunks",
    "chunks_exact",
    "windows",
    "nth",
    "truncate",
    "split_at",
    "rotate_left",
    "rotate_right",
    "remove",
    "swap_remove",
    "insert",
    "resize",
    "with_capacity",
    "pow",
];

/// Methods of an `Option`: where their value stands for no `f64`, their
/// receiver holds none either.
const OPTIONS: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "is_some",
    "is_none",
];

/// Reads the helpers of `function`'s body that are plain by use.
pub(super) fn apply(function: &mut Function) {
    let mut uses = Uses::default();
    let again = function.bound_again();
    // A `let` whose name is used as an integer makes its value one, which
    // may make another name one (`let m = n - 1;`): to a fixpoint.
    loop {
        let known = uses.names.len();
        uses.block(&function.body, &again);
        if uses.names.len() == known {
            break;
        }
    }
    if !uses.calls.is_empty() {
        rewrite_block(&mut function.body, &uses.calls);
    }
}

#[derive(Default)]
struct Uses {
    /// Names used where no `f64` can be.
    names: HashSet<String>,
    /// The ids of the calls used so.
    calls: HashSet<usize>,
}

impl Uses {
    fn block(&mut self, block: &Block, again: &HashSet<String>) {
        self.stmts(&block.stmts, again);
    }

    fn stmts(&mut self, stmts: &[Stmt], again: &HashSet<String>) {
        for (i, stmt) in stmts.iter().enumerate() {
            match stmt {
                Stmt::Let {
                    pat, name, init, ..
                } => {
                    if let Some(init) = init {
                        let by_name = name.as_ref().is_some_and(|name| {
                            if again.contains(name) {
                                // Bound again (`let k = argmax(x); .. let k
                                // = argmin(x);`): by its uses up to the
                                // block's next `let` of the name.
                                used_until_bound_again(&stmts[i + 1..], name, again)
                            } else {
                                self.names.contains(name)
                            }
                        });
                        if by_name || plain_annotation(pat.syntax) {
                            self.mark(init);
                        }
                        self.expr(init, again);
                    }
                }
                Stmt::Expr(expr, _) => self.expr(expr, again),
                Stmt::Item(_) => {}
            }
        }
    }

    /// Marks the operands of `expr` that stand where no `f64` can, then
    /// reads its children.
    fn expr(&mut self, expr: &Expr, again: &HashSet<String>) {
        match &expr.kind {
            ExprKind::Index { index, .. } => self.mark(index),
            ExprKind::Range { start, end, .. } => {
                for bound in [start, end].into_iter().flatten() {
                    self.mark(bound);
                }
            }
            ExprKind::Cast { expr: inner, .. } => self.mark(inner),
            ExprKind::If { cond, .. } | ExprKind::While { cond, .. } => self.mark(cond),
            ExprKind::Logic { lhs, rhs, .. } => {
                self.mark(lhs);
                self.mark(rhs);
            }
            ExprKind::Prefix {
                op: syn::UnOp::Not(_),
                operand,
            } => self.mark(operand),
            ExprKind::Compare { lhs, rhs, .. } => {
                if rhs.is_int_literal() {
                    self.mark(lhs);
                }
                if lhs.is_int_literal() {
                    self.mark(rhs);
                }
            }
            ExprKind::VecRepeat { len, .. } => self.mark(len),
            // `if let Some(k) = find(x)`, `match find(x) { Some(k) => ..
            // }` with `k` used as an index: what is taken apart is too.
            ExprKind::Let { pat, expr: inner }
                if pat.names.iter().any(|name| self.names.contains(name)) =>
            {
                self.mark(inner);
            }
            ExprKind::Match { scrutinee, arms }
                if arms
                    .iter()
                    .any(|arm| arm.pat.names.iter().any(|name| self.names.contains(name))) =>
            {
                self.mark(scrutinee);
            }
            ExprKind::Powi { exponent, .. } => self.mark(exponent),
            ExprKind::Structural { method, args, .. }
            | ExprKind::PlainMethod { method, args, .. } => {
                if let Some(first) = args.first() {
                    if COUNTED.iter().any(|counted| *method == counted) {
                        self.mark(first);
                    }
                }
                if *method == "swap" && args.len() == 2 {
                    self.mark(&args[0]);
                    self.mark(&args[1]);
                }
            }
            ExprKind::PlainCall { func, args, .. } => {
                let segments = crate::text::segments(&func.path);
                let last = segments.last().map(String::as_str);
                if last == Some("with_capacity") {
                    args.iter().for_each(|arg| self.mark(arg));
                }
                // `std::cmp::min(a, b)`: `f64` is not `Ord`.
                if segments.iter().any(|segment| segment == "cmp")
                    && matches!(last, Some("min" | "max"))
                {
                    args.iter().for_each(|arg| self.mark(arg));
                }
            }
            _ => {}
        }
        for child in expr.children() {
            match child {
                Child::Expr(inner) => self.expr(inner, again),
                Child::Block(inner) => self.block(inner, again),
            }
        }
    }

    /// `expr` stands where no `f64` can: so does each operand of its
    /// arithmetic, a name it is, and a call it is.
    fn mark(&mut self, expr: &Expr) {
        match &expr.kind {
            ExprKind::Paren(inner) => self.mark(inner),
            ExprKind::Binary {
                op: Arith::Add | Arith::Sub | Arith::Mul | Arith::Div | Arith::Rem,
                lhs,
                rhs,
                ..
            } => {
                self.mark(lhs);
                self.mark(rhs);
            }
            ExprKind::Path(path) => {
                if let Some(ident) = path.path.get_ident() {
                    self.names.insert(ident.to_string());
                }
            }
            // `find(x).unwrap_or(0)`, `find(x).is_some()`: an `Option` of
            // what stands there.
            ExprKind::Structural {
                receiver, method, ..
            }
            | ExprKind::PlainMethod {
                receiver, method, ..
            } if OPTIONS.iter().any(|option| *method == option) => self.mark(receiver),
            ExprKind::Call { .. }
            | ExprKind::PlainMethod {
                reads_primal: false,
                ..
            } => {
                self.calls.insert(expr.id);
            }
            _ => {}
        }
    }
}

/// Whether `name` is used where no `f64` can be in `after`, the
/// statements after its `let`, up to the next `let` of it among them.
fn used_until_bound_again(after: &[Stmt], name: &str, again: &HashSet<String>) -> bool {
    let next = after.iter().position(
        |stmt| matches!(stmt, Stmt::Let { pat, .. } if pat.names.iter().any(|bound| bound == name)),
    );
    let mut uses = Uses::default();
    uses.stmts(&after[..next.unwrap_or(after.len())], again);
    // The next `let` of the name reads it in its value (`let k = k + 1;`,
    // `let k = order[k];`): as it stands there, and as the new binding
    // is used after.
    if let Some(Stmt::Let {
        name: Some(bound),
        init: Some(init),
        ..
    }) = next.map(|at| &after[at])
    {
        uses.expr(init, again);
        if bound == name && used_until_bound_again(&after[next.unwrap_or(0) + 1..], name, again) {
            uses.mark(init);
        }
    }
    uses.names.contains(name)
}

/// `let n: usize = ..`, `let b: bool = ..`: a type no derivative flows
/// through.
fn plain_annotation(pat: &syn::Pat) -> bool {
    let syn::Pat::Type(typed) = pat else {
        return false;
    };
    match &*typed.ty {
        syn::Type::Path(path) => path
            .path
            .get_ident()
            .is_some_and(|ident| super::is_plain_type(&ident.to_string())),
        _ => false,
    }
}

fn rewrite_block(block: &mut Block, calls: &HashSet<usize>) {
    for stmt in &mut block.stmts {
        match stmt {
            Stmt::Let {
                init: Some(init), ..
            } => rewrite(init, calls),
            Stmt::Expr(expr, _) => rewrite(expr, calls),
            _ => {}
        }
    }
}

fn rewrite(expr: &mut Expr, calls: &HashSet<usize>) {
    if calls.contains(&expr.id) {
        match &mut expr.kind {
            ExprKind::PlainMethod { reads_primal, .. } => *reads_primal = true,
            ExprKind::Call { args, .. } => {
                if let crate::ast::Source::Expr(syn::Expr::Call(call)) = expr.source {
                    if let syn::Expr::Path(func) = &*call.func {
                        expr.kind = ExprKind::PlainCall {
                            func,
                            args: std::mem::take(args),
                            reads_primal: true,
                        };
                    }
                }
            }
            _ => {}
        }
    }
    for child in expr.children_mut() {
        match child {
            ChildMut::Expr(inner) => rewrite(inner, calls),
            ChildMut::Block(inner) => rewrite_block(inner, calls),
        }
    }
}
