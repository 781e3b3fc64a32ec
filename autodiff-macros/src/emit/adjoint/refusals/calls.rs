//! An annotated call's value used as more than a number where the sweeps
//! cannot take it: indexed, iterated, borrowed or destructured, bound by a
//! `let` typed other than `f64`, or assigned to a binding that holds a
//! vector.

use std::collections::HashSet;

use super::super::analysis::{self, Analysis};
use super::super::sweep::Unsupported;
use crate::ast::{Block, Child, Expr, ExprKind, Stmt};

/// The first place the body uses what an annotated call returns as more
/// than a number where the sweeps cannot take it: indexes, iterates,
/// borrows or destructures the call itself (`softmax(z)[k]`, `let (a, b) =
/// f(x)`), or a binding of it that is not a top-level `let` bound once in
/// a body without `return` (`call_lets`, which the sweeps take as
/// vectors). `models` are the names that hold a model, whose methods are
/// calls.
pub(crate) fn vector_call(
    block: &Block,
    models: &[String],
    call_lets: &std::collections::HashSet<String>,
    vector_calls: &std::collections::HashSet<usize>,
) -> Option<Unsupported> {
    let calls = Calls { models };
    let mut bound = Vec::new();
    calls.bound_in(block, &mut bound);
    // What a top-level `let` binds once is a vector the sweeps take (see
    // `analysis::calls`), indexed, borrowed or iterated.
    bound.retain(|name| !call_lets.contains(name));
    let test = |expr: &Expr| {
        let holds = |expr: &Expr| {
            calls.is_call(expr)
                || matches!(&expr.kind, ExprKind::Path(path)
                    if path.path.get_ident().is_some_and(|ident| bound.iter().any(|name| ident == name)))
        };
        match &expr.kind {
            ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => holds(base),
            ExprKind::Structural { receiver, .. } | ExprKind::PlainMethod { receiver, .. } => {
                holds(receiver)
            }
            ExprKind::Reference { expr: inner, .. } => holds(inner),
            ExprKind::For { iter, .. } => holds(iter),
            _ => false,
        }
    };
    if let Some(expr) = find(block, &test) {
        return Some(Unsupported {
            construct: "a call whose value is indexed, iterated, borrowed or destructured (a function returning a vector)".into(),
            line: crate::text::line(expr.span),
        });
    }
    calls
        .destructured(block)
        .or_else(|| calls.typed(block, vector_calls))
}

struct Calls<'n> {
    models: &'n [String],
}

impl Calls<'_> {
    fn is_call(&self, expr: &Expr) -> bool {
        crate::emit::is_annotated_call(expr, self.models)
    }

    /// The names a `let` or an assignment binds to a call's value, in
    /// `block` and the blocks inside it.
    fn bound_in(&self, block: &Block, out: &mut Vec<String>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let {
                    name,
                    init: Some(init),
                    ..
                } => {
                    if let Some(name) = name {
                        if self.is_call(init) {
                            out.push(name.clone());
                        }
                    }
                    self.bound_in_expr(init, out);
                }
                Stmt::Expr(expr, _) => self.bound_in_expr(expr, out),
                _ => {}
            }
        }
    }

    fn bound_in_expr(&self, expr: &Expr, out: &mut Vec<String>) {
        if let ExprKind::Assign { target, value, .. } = &expr.kind {
            if let ExprKind::Path(path) = &target.kind {
                if let Some(ident) = path.path.get_ident() {
                    if self.is_call(value) {
                        out.push(ident.to_string());
                    }
                }
            }
        }
        for child in expr.children() {
            match child {
                Child::Expr(child) => self.bound_in_expr(child, out),
                Child::Block(block) => self.bound_in(block, out),
            }
        }
    }

    /// A tuple or array pattern bound to a call: `let (a, b) = f(x);`,
    /// also in an `if let` or `while let`.
    fn destructured(&self, block: &Block) -> Option<Unsupported> {
        let test = |expr: &Expr| matches!(&expr.kind, ExprKind::Let { expr: value, .. } if self.is_call(value));
        if let Some(expr) = find(block, &test) {
            return Some(self.refusal(expr));
        }
        let mut found = None;
        crate::ast::each_stmt(&block.stmts, &mut |stmt| {
            if let Stmt::Let {
                name: None,
                init: Some(init),
                ..
            } = stmt
            {
                if found.is_none() && self.is_call(init) {
                    found = Some(self.refusal(init));
                }
            }
        });
        found
    }

    /// A call read as a number (`__adjoint::scalar_of`) where the body
    /// names a type that may want the vector it returns: in the value of a
    /// `let` typed other than `f64`, or pushed onto a `Vec` bound by one.
    fn typed(
        &self,
        block: &Block,
        vector_calls: &std::collections::HashSet<usize>,
    ) -> Option<Unsupported> {
        let mut typed = Vec::new();
        typed_bindings(block, &mut typed);
        let has_call = |expr: &Expr| {
            expr.any_expr(&|inner| self.is_call(inner) && !vector_calls.contains(&inner.id))
        };
        let refuse = |expr: &Expr| Unsupported {
            construct: "a call's value in a binding with a type other than `f64`".into(),
            line: crate::text::line(expr.span),
        };
        let pushed = |expr: &Expr| match &expr.kind {
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if matches!(method.to_string().as_str(), "push" | "insert" | "extend") => {
                matches!(&receiver.kind, ExprKind::Path(path)
                    if path.path.get_ident().is_some_and(|ident| typed.iter().any(|name| ident == name)))
                    && args.iter().any(has_call)
            }
            _ => false,
        };
        if let Some(expr) = find(block, &pushed) {
            return Some(refuse(expr));
        }
        typed_inits(block, &has_call).map(refuse)
    }

    fn refusal(&self, expr: &Expr) -> Unsupported {
        Unsupported {
            construct:
                "a pattern bound to a call's value (a function returning a tuple or an array)"
                    .into(),
            line: crate::text::line(expr.span),
        }
    }
}

/// The first expression in `block` (in source order, outer first) that
/// passes `test`.
fn find<'m, 'a>(block: &'m Block<'a>, test: &dyn Fn(&Expr) -> bool) -> Option<&'m Expr<'a>> {
    fn in_expr<'m, 'a>(expr: &'m Expr<'a>, test: &dyn Fn(&Expr) -> bool) -> Option<&'m Expr<'a>> {
        if test(expr) {
            return Some(expr);
        }
        expr.children().into_iter().find_map(|child| match child {
            Child::Expr(child) => in_expr(child, test),
            Child::Block(block) => find(block, test),
        })
    }
    block.stmts.iter().find_map(|stmt| match stmt {
        Stmt::Let {
            init: Some(init), ..
        }
        | Stmt::Expr(init, _) => in_expr(init, test),
        _ => None,
    })
}

/// Whether a `let` pattern names a type whose items are not `f64` (`let
/// v: Vec<Vec<f64>> = ..`, a tuple): a number read from a call cannot be
/// one of them. `f64` itself, and a `Vec` or array of `f64`, can hold it.
fn typed_other_than_f64(pat: &syn::Pat) -> bool {
    fn items_f64(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Paren(inner) => items_f64(&inner.elem),
            syn::Type::Array(array) => crate::valid::is_f64(&array.elem),
            syn::Type::Slice(slice) => crate::valid::is_f64(&slice.elem),
            syn::Type::Path(path) => {
                crate::valid::is_f64(ty)
                    || path.path.segments.last().is_some_and(|segment| {
                        segment.ident == "Vec"
                            && matches!(&segment.arguments,
                                syn::PathArguments::AngleBracketed(args)
                                    if matches!(args.args.first(),
                                        Some(syn::GenericArgument::Type(elem)) if crate::valid::is_f64(elem)))
                    })
            }
            _ => false,
        }
    }
    matches!(pat, syn::Pat::Type(typed) if !items_f64(&typed.ty))
}

/// Whether a `let` pattern names a type other than `f64` itself.
fn typed_not_f64(pat: &syn::Pat) -> bool {
    matches!(pat, syn::Pat::Type(typed) if !crate::valid::is_f64(&typed.ty))
}

/// The names bound by `let`s typed other than `f64`, anywhere in `block`.
fn typed_bindings(block: &Block, out: &mut Vec<String>) {
    crate::ast::each_stmt(&block.stmts, &mut |stmt| {
        if let Stmt::Let { pat, .. } = stmt {
            if typed_other_than_f64(pat.syntax) {
                out.extend(pat.names.iter().cloned());
            }
        }
    });
}

/// Whether `expr` is, through parentheses, a call `has_call` finds.
fn is_direct_call(expr: &Expr, has_call: &dyn Fn(&Expr) -> bool) -> bool {
    match &expr.kind {
        ExprKind::Paren(inner) => is_direct_call(inner, has_call),
        ExprKind::Call { .. } | ExprKind::PlainMethod { .. } => has_call(expr),
        _ => false,
    }
}

/// The value of the first `let` that reads a call (`has_call`) as a
/// number where its type wants something else: typed other than `f64` and
/// bound to the call itself, or typed with items other than `f64` and
/// holding one; anywhere in `block`.
fn typed_inits<'m, 'a>(
    block: &'m Block<'a>,
    has_call: &dyn Fn(&Expr) -> bool,
) -> Option<&'m Expr<'a>> {
    let mut found = None;
    crate::ast::each_stmt(&block.stmts, &mut |stmt| {
        if let Stmt::Let {
            pat,
            init: Some(init),
            ..
        } = stmt
        {
            // `let x: Vec<f64> = f(y);` reads the call itself as a number.
            let direct = is_direct_call(init, has_call) && typed_not_f64(pat.syntax);
            if found.is_none() && (direct || (typed_other_than_f64(pat.syntax) && has_call(init))) {
                found = Some(init);
            }
        }
    });
    found
}

/// A call's value assigned to a binding that holds a vector (`let mut g =
/// [1.0, 0.0]; g = mk(s);`), or one whose shape is not seen: the sweeps
/// would read the value as a number, which a vector-valued callee's is
/// not. Bound by a `let` instead (`let g = mk(s);`), it compiles.
pub(crate) fn call_assigned_to_a_vector(block: &Block, an: &Analysis) -> Option<Unsupported> {
    let models: Vec<String> = an.models.iter().cloned().collect();
    // `let mut g = mk(1.0);`: a call's value, whose shape the analysis
    // does not see where the call is on constants.
    let mut bound_by_a_call = HashSet::new();
    analysis::let_inits(block, &mut |bound, init, _| {
        let init = init.unparenthesised();
        if crate::emit::is_annotated_call(init, &models) && !analysis::carries(init, &an.active) {
            bound_by_a_call.insert(bound.to_owned());
        }
    });
    // `let wb = if b == 0 { local } else { mul2(w, local) };` where the
    // binding holds a vector: a call the sweeps read as a number in one
    // branch.
    let mut in_a_branch = None;
    analysis::let_inits(block, &mut |bound, init, _| {
        let branches = matches!(
            init.unparenthesised().kind,
            ExprKind::If { .. } | ExprKind::Match { .. }
        );
        if in_a_branch.is_some() || !branches || matches!(an.dims.get(bound), Some(Some(0))) {
            return;
        }
        let mut tails = Vec::new();
        let is_call = |expr: &Expr| crate::emit::is_annotated_call(expr, &models);
        analysis::calls::branch_calls(init, &is_call, &mut tails);
        if tails.iter().any(|id| !an.vector_calls.contains(id)) {
            in_a_branch = Some(init.span);
        }
    });
    if let Some(span) = in_a_branch {
        return Some(Unsupported {
            construct: "a call's value as a branch's value of a binding that holds a vector".into(),
            line: crate::text::line(span),
        });
    }
    let test = |expr: &Expr| {
        let ExprKind::Assign { target, value } = &expr.kind else {
            return false;
        };
        let value = value.unparenthesised();
        let ExprKind::Path(path) = &target.unparenthesised().kind else {
            // A row of a matrix or an item of a `Vec` of rows (`m[1] =
            // twice(x);`, `let r = twice(x); m[1] = r;`): the sweeps read
            // the value as a number where its place holds a vector, or
            // may.
            let place = analysis::dims_of(target, &an.dims);
            return matches!(target.unparenthesised().kind, ExprKind::Index { .. })
                && place != Some(0)
                && analysis::dims_of(value, &an.dims) == Some(0)
                && (crate::emit::is_annotated_call(value, &models)
                    || matches!(value.kind, ExprKind::Path(_)));
        };
        let Some(name) = path.path.get_ident().map(ToString::to_string) else {
            return false;
        };
        // (A model's method there, `acc = layer.mix(acc, x)` of `let mut
        // acc = h(0.5);`, is read as a number where the binding is one: a
        // `Vec`'s would show by its `let` or its indices.)
        crate::emit::is_annotated_call(value, &models)
            && !an.vector_calls.contains(&value.id)
            && (!matches!(an.dims.get(&name), Some(Some(0)))
                || (bound_by_a_call.contains(&name) && matches!(value.kind, ExprKind::Call { .. })))
    };
    find(block, &test).map(|expr| Unsupported {
        construct:
            "a call's value assigned to a binding that may hold a vector (bind it by a `let`)"
                .into(),
        line: crate::text::line(expr.span),
    })
}
