//! Why a body keeps the tape before the sweeps start: a construct the
//! adjoint does not compile (a closure, `product`, a `#[cfg]` on a `let`,
//! an attribute on an expression), or a model taken by value that the body
//! moves or writes into. The sweeps refuse the rest where they meet it.

use std::collections::HashSet;

use quote::ToTokens;

use super::analysis::{self, Analysis};
use super::sweep::{Unsupported, MOVES};
use crate::ast::{Block, Child, Expr, ExprKind, Function, Param, Source, Stmt};

/// The reason a closure the sweeps do not take gives.
pub(super) const CLOSURE: &str = "a closure";

/// The first construct anywhere in `block` that the adjoint does not
/// compile. The sweeps refuse what they cannot reverse where they meet it;
/// these constructs must be refused up front, because a sweep that took
/// them for plain code would miss a derivative (a closure's, a fused
/// `mul_add`'s) or run a statement that an attribute compiles out.
///
/// An attribute on a statement (`#[cfg(..)]`, `#[allow(..)]`) is carried to
/// every statement the sweeps write for it (see `Sweep::stmt`), except a
/// `#[cfg]` on a `let`; one on an expression inside a statement is not Rust
/// that compiles on stable.
pub(super) fn not_compiled(block: &Block, active: &HashSet<String>) -> Option<Unsupported> {
    block
        .stmts
        .iter()
        .find_map(|stmt| match stmt {
            // Two `let`s of one name under opposite `cfg`s would both be
            // counted, and the one compiled in given the other's adjoint.
            Stmt::Let { attrs, init, .. } => match attrs
                .iter()
                .find(|attr| attr.path().is_ident("cfg") || attr.path().is_ident("cfg_attr"))
            {
                Some(attr) => Some(Unsupported {
                    construct: "`#[cfg]` on a `let`".into(),
                    line: crate::text::line(attr.pound_token.span),
                }),
                None => init
                    .as_ref()
                    .and_then(|init| not_compiled_expr(init, active)),
            },
            Stmt::Item(_) => None,
            // `v.swap(i, j);`, `v.insert(i, e);`, `v.sort_by(|a, b| ..);`, ...
            // as statements the sweep reverses (`Sweep::moved_items`); only
            // their arguments are read here, and `sort_by`'s comparison, which
            // reads values and computes none, may be a closure.
            Stmt::Expr(expr, _) => match &expr.kind {
                ExprKind::Structural {
                    receiver,
                    method,
                    args,
                    ..
                } if MOVES.contains(&method.to_string().as_str())
                    && matches!(receiver.kind, ExprKind::Path(_)) =>
                {
                    args.iter().find_map(|arg| match &arg.kind {
                        ExprKind::Closure { body, .. } if *method == "sort_by" => {
                            if writes_in_closure(arg) {
                                return Some(Unsupported {
                                    construct: "a `sort_by` comparison that writes".into(),
                                    line: crate::text::line(arg.span),
                                });
                            }
                            not_compiled_expr(body, active)
                        }
                        _ => not_compiled_expr(arg, active),
                    })
                }
                _ => not_compiled_operands(expr, active),
            },
        })
        .or_else(|| popped_and_read(block))
}

/// The first statement of `block` (not of the blocks inside it) that
/// `pop`s a `Vec` and also reads it (`v[n - 1] + v.pop().unwrap()`): the
/// reverse moves the item's adjoint back and reads the others' in an order
/// of its own, which must not depend on where the `pop` is.
fn popped_and_read(block: &Block) -> Option<Unsupported> {
    fn own_exprs<'m, 'a>(expr: &'m Expr<'a>, out: &mut Vec<&'m Expr<'a>>) {
        out.push(expr);
        for child in expr.children() {
            if let Child::Expr(child) = child {
                own_exprs(child, out);
            }
        }
    }
    block.stmts.iter().find_map(|stmt| {
        let (Stmt::Let {
            init: Some(expr), ..
        }
        | Stmt::Expr(expr, _)) = stmt
        else {
            return None;
        };
        let mut exprs = Vec::new();
        own_exprs(expr, &mut exprs);
        exprs.iter().find_map(|inner| {
            let ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } = &inner.kind
            else {
                return None;
            };
            let ExprKind::Path(path) = &receiver.kind else {
                return None;
            };
            let name = path.path.get_ident()?;
            let reads_in = |expr: &Expr| {
                let mut own = Vec::new();
                own_exprs(expr, &mut own);
                own.iter()
                    .filter(|e| matches!(&e.kind, ExprKind::Path(p) if p.path.is_ident(name)))
                    .count()
            };
            // `v.remove(k % v.len())`: the index, a plain count evaluated
            // before the item leaves, may read the `Vec`.
            let reads = reads_in(expr) - args.iter().map(reads_in).sum::<usize>();
            ((*method == "pop" || *method == "remove") && reads > 1).then(|| Unsupported {
                construct: format!("a statement that `{method}`s a `Vec` and reads it again"),
                line: crate::text::line(inner.span),
            })
        })
    })
}

fn not_compiled_expr(expr: &Expr, active: &HashSet<String>) -> Option<Unsupported> {
    if matches!(expr.source, Source::Expr(syntax) if !super::super::attributes(syntax).is_empty()) {
        return Some(Unsupported {
            construct: "an attribute on an expression".into(),
            line: crate::text::line(expr.span),
        });
    }
    not_compiled_operands(expr, active)
}

/// [`not_compiled_expr`] without the test of `expr`'s own attributes.
fn not_compiled_operands(expr: &Expr, active: &HashSet<String>) -> Option<Unsupported> {
    let refuse = |construct: &str| {
        Some(Unsupported {
            construct: construct.into(),
            line: crate::text::line(expr.span),
        })
    };
    match &expr.kind {
        // `x.iter().all(|v| *v > 0.0)`: a truth value or a count, run as
        // written in the forward, with nothing to reverse, unless its
        // closures write (`|v| { n += 1; .. }`).
        _ if analysis::is_count(expr) && !writes_in_closure(expr) => return None,
        // `a.iter().fold(0.5, |acc, t| acc * 0.5 + t)` of plain `a`: a
        // value with no derivative, run as written in the forward.
        _ if passive_closures(expr, active) => return None,
        // `Some(i)` of an index: a value with no derivative, run as
        // written. A closure's call (lower-case) may give one it captured.
        ExprKind::Construct { func, args } => {
            let capitalised = func.path.segments.last().is_some_and(|last| {
                last.ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase())
            });
            if !capitalised {
                return refuse("a call of a closure");
            }
            if args.iter().any(|arg| analysis::carries(arg, active)) {
                return refuse("a variant or tuple struct holding a tracked value (`Some(x)`)");
            }
        }
        ExprKind::Closure { .. } => return refuse(CLOSURE),
        ExprKind::Sum { product: true, .. } => return refuse("`product`"),
        // They move items between places, and the sweep reverses them as
        // statements (see `not_compiled`); `pop` and `concat` are values
        // too, reversed where the sweep meets them.
        ExprKind::Structural { method, .. }
            if TAPE_ONLY_METHODS.contains(&method.to_string().as_str()) =>
        {
            return refuse(&format!("`.{method}()` (items moved in a `Vec`)"))
        }
        _ => {}
    }
    expr.children().into_iter().find_map(|child| match child {
        Child::Expr(child) => not_compiled_expr(child, active),
        Child::Block(block) => not_compiled(block, active),
    })
}

/// Whether `expr` holds a closure and computes a plain value: no name it
/// mentions, in the closure or out (what feeds the closure's parameters
/// among them), may carry a derivative; it calls no
/// closure bound by a `let` (which may capture one), no annotated
/// function or method, no macro, and writes nothing. Anything else with a
/// closure in it is a chain the rewrite into loops did not take.
fn passive_closures(expr: &Expr, active: &HashSet<String>) -> bool {
    // A closure alone is fed by what it is passed to, which is not seen
    // here (`max_by(|a, b| ..)` of tracked items, `let f = |v| ..`).
    !matches!(expr.kind, ExprKind::Closure { .. })
        && expr.any_expr(&|e| matches!(e.kind, ExprKind::Closure { .. }))
        && !writes_in_closure(expr)
        && !reaches_derivative(expr, active)
}

/// Whether `expr` may reach a derivative (see [`passive_closures`]): a
/// closure's parameters hide the active names they shadow in its body.
fn reaches_derivative(expr: &Expr, active: &HashSet<String>) -> bool {
    match &expr.kind {
        ExprKind::Closure { inputs, body, .. } => {
            let mut inner = active.clone();
            for input in inputs {
                for name in &input.names {
                    inner.remove(name);
                }
            }
            return reaches_derivative(body, &inner);
        }
        ExprKind::Path(path) => {
            return path
                .path
                .segments
                .first()
                .is_some_and(|first| active.contains(&first.ident.to_string()))
        }
        ExprKind::Construct { .. }
        | ExprKind::Call { .. }
        | ExprKind::PlainMacro { .. }
        | ExprKind::Dbg { .. }
        | ExprKind::Return(_)
        | ExprKind::Break { .. }
        | ExprKind::Continue(_)
        | ExprKind::Assign { .. }
        | ExprKind::CompoundAssign { .. }
        | ExprKind::Invalid => return true,
        // A method of a model (`self.score(x)`), which may carry its
        // derivative whatever the model is named here.
        ExprKind::PlainMethod { receiver, .. } | ExprKind::Structural { receiver, .. }
            if crate::flow::root(receiver).is_some_and(|root| active.contains(&root)) =>
        {
            return true
        }
        _ => {}
    }
    expr.children().into_iter().any(|child| match child {
        Child::Expr(inner) => reaches_derivative(inner, active),
        Child::Block(block) => block.stmts.iter().any(|stmt| match stmt {
            Stmt::Let { init, .. } => init.as_ref().is_some_and(|e| reaches_derivative(e, active)),
            Stmt::Expr(e, _) => reaches_derivative(e, active),
            Stmt::Item(_) => false,
        }),
    })
}

/// The `Vec` methods recorded on the tape that the adjoint compiles only
/// as statements on a binding (see `not_compiled`).
const TAPE_ONLY_METHODS: &[&str] = &[
    "swap",
    "reverse",
    "insert",
    "extend_from_slice",
    "truncate",
    "clear",
    "resize",
    "fill",
    "sort_by",
];

/// Whether a closure inside `expr` assigns, or calls a method that
/// changes its receiver (`push`).
fn writes_in_closure(expr: &Expr) -> bool {
    expr.any_expr(&|inner| {
        matches!(&inner.kind, ExprKind::Closure { body, .. } if body.any_expr(&|e| {
            matches!(e.kind, ExprKind::Assign { .. } | ExprKind::CompoundAssign { .. })
                || matches!(&e.kind, ExprKind::Structural { method, .. }
                    | ExprKind::PlainMethod { method, .. } if analysis::mutates(method))
        }))
    })
}

/// Why a model taken by value keeps the tape, if it does: the gradient is
/// made from the model at the end (its constants), so the body may not
/// move it away (`let other = model;`, `f(model)`) or bind its name again.
pub(super) fn model_moved(
    function: &Function,
    param: &Param,
    an: &Analysis,
) -> Option<Unsupported> {
    if !param.kind.holds_struct() {
        return None;
    }
    let name = param.ident.to_string();
    // The gradient's constants and the finiteness check read the model as
    // it came in.
    if an.writes.contains_key(&name) {
        return Some(Unsupported {
            construct: format!("a write into a model (`{name}`)"),
            line: param.line,
        });
    }
    if matches!(param.ty, syn::Type::Reference(_)) {
        return None;
    }
    let shadowed = an.bound.get(&name).copied() != Some(1);
    let moved = |expr: &Expr| moves(expr, &name);
    (shadowed || lets_move(&function.body, &name) || function.body.any_expr(&moved)).then(|| {
        Unsupported {
            construct: format!("a model taken by value and moved or bound again (`{name}`)"),
            line: param.line,
        }
    })
}

/// Whether `expr` hands `name` on by value as one of its operands: a call's
/// argument, an assigned value, an element of a tuple or array.
fn moves(expr: &Expr, name: &str) -> bool {
    let operands: Vec<&Expr> = match &expr.kind {
        ExprKind::Call { args, .. }
        | ExprKind::Construct { args, .. }
        | ExprKind::PlainCall { args, .. } => args.iter().collect(),
        ExprKind::Structural { args, .. } | ExprKind::PlainMethod { args, .. } => {
            args.iter().collect()
        }
        ExprKind::Tuple(items) | ExprKind::Array(items) | ExprKind::VecList(items) => {
            items.iter().collect()
        }
        ExprKind::Assign { value, .. } => vec![&**value],
        ExprKind::Return(Some(value)) => vec![&**value],
        _ => Vec::new(),
    };
    operands.into_iter().any(|operand| is_name(operand, name))
        || expr.children().into_iter().any(|child| match child {
            Child::Block(block) => lets_move(block, name),
            Child::Expr(_) => false,
        })
}

/// Whether a `let` of `block` (not of blocks inside it) binds `name`'s
/// value: `let other = model;`.
fn lets_move(block: &Block, name: &str) -> bool {
    block
        .stmts
        .iter()
        .any(|stmt| matches!(stmt, Stmt::Let { init: Some(init), .. } if is_name(init, name)))
}

fn is_name(expr: &Expr, name: &str) -> bool {
    match &expr.kind {
        ExprKind::Path(path) => path.path.is_ident(name),
        ExprKind::Paren(inner) => is_name(inner, name),
        _ => false,
    }
}

/// The first place the body uses what an annotated call returns as more
/// than a number where the sweeps cannot take it: indexes, iterates,
/// borrows or destructures the call itself (`softmax(z)[k]`, `let (a, b) =
/// f(x)`), or a binding of it that is not a top-level `let` bound once in
/// a body without `return` (`call_lets`, which the sweeps take as
/// vectors). `models` are the names that hold a model, whose methods are
/// calls.
pub(super) fn vector_call(
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

/// A `let` in a block that is an operand (`t += { let v = v.sin(); v * v
/// };`, what a chain's closure body becomes in its loop) binding a name
/// its block read before it or its own value reads: the reverse of that
/// block finds the name's saved value where it meant the name it hides.
/// The renaming (`shadows`) gives such a `let` a name of its own; where it
/// could not (a format string names it), this keeps the tape.
pub(super) fn hides_in_an_operand(block: &Block) -> Option<Unsupported> {
    fn statements(block: &Block, operand: bool) -> Option<Unsupported> {
        let mut read_so_far = proc_macro2::TokenStream::new();
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let { pat, init, .. } => {
                    if let Some(init) = init {
                        if let Some(found) = expr(init, true) {
                            return Some(found);
                        }
                        if operand {
                            read_so_far.extend(init.source.to_token_stream());
                        }
                    }
                    let reads = |name: &String| crate::text::mentions(read_so_far.clone(), name);
                    if operand && pat.names.iter().any(reads) {
                        return Some(Unsupported {
                            construct: "a `let` inside an expression that hides a name it reads"
                                .into(),
                            line: init.as_ref().map_or(0, |init| crate::text::line(init.span)),
                        });
                    }
                }
                Stmt::Expr(inner, _) => {
                    if let Some(found) = expr(inner, true) {
                        return Some(found);
                    }
                    if operand {
                        read_so_far.extend(inner.source.to_token_stream());
                    }
                }
                Stmt::Item(_) => {}
            }
        }
        None
    }
    /// `top`: `expr` is a statement, or a `let`'s whole value, whose
    /// blocks the sweep reverses as statements.
    fn expr(inner: &Expr, top: bool) -> Option<Unsupported> {
        let statement_like = matches!(
            inner.kind,
            ExprKind::Block(..)
                | ExprKind::If { .. }
                | ExprKind::Match { .. }
                | ExprKind::Loop { .. }
                | ExprKind::While { .. }
                | ExprKind::For { .. }
        );
        let inner_top = top && statement_like;
        for child in inner.children() {
            let found = match child {
                Child::Expr(child) => expr(child, inner_top),
                Child::Block(block) => statements(block, !inner_top),
            };
            if found.is_some() {
                return found;
            }
        }
        None
    }
    statements(block, false)
}

/// The first place of `block` indexed more times than the shape the
/// analysis found for its binding (`row[0]` of a `row` it took for a
/// number): a vector call's value moved (`let q = p;`) or put in a `Vec`
/// (`vec![softmax(a), softmax(b)]`), a model's field of a shape the body
/// does not show. The sweeps
/// would shape its adjoint wrongly, and the adjoint would not build; the
/// tape, which reads the type, records it.
pub(super) fn indexed_past_its_shape(block: &Block, an: &Analysis) -> Option<Unsupported> {
    fn depth(expr: &Expr) -> Option<(String, usize)> {
        match &expr.kind {
            ExprKind::Paren(inner) => depth(inner),
            ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
                depth(base).map(|(name, depth)| (name, depth + 1))
            }
            ExprKind::Index { base, .. } => depth(base),
            ExprKind::Path(path) => Some((path.path.get_ident()?.to_string(), 0)),
            _ => None,
        }
    }
    // The item of a `for` over a binding of known shape (`for m in &w`,
    // `w.iter()`) holds one level less (`m[1][0]` of a `w` taken to hold
    // numbers: matrices a helper returns, pushed onto an untyped `Vec`).
    let items = std::cell::RefCell::new(std::collections::HashMap::<String, usize>::new());
    block.any_expr(&|expr| {
        if let ExprKind::For { pat, iter, .. } = &expr.kind {
            let known = super::analysis::walked_binding(iter)
                .and_then(|name| an.dims.get(&name).copied().flatten());
            if let ([item], Some(known)) = (pat.names.as_slice(), known) {
                if known > 0 {
                    items.borrow_mut().insert(item.clone(), known - 1);
                }
            }
        }
        false
    });
    let items = items.into_inner();
    let found = std::cell::RefCell::new(None);
    block.any_expr(&|expr| {
        let past = depth(expr).is_some_and(|(name, depth)| match an.dims.get(&name) {
            Some(Some(known)) => depth > *known,
            _ => items
                .get(&name)
                .is_some_and(|&known| an.bound.get(&name).copied() == Some(1) && depth > known),
        });
        if past {
            *found.borrow_mut() = Some(Unsupported {
                construct: "a value indexed more times than its shape shows (a vector call's value moved or put in a `Vec`, a model's field read through a binding)".into(),
                line: crate::text::line(expr.span),
            });
        }
        past
    });
    found.into_inner()
}

/// A tracked `let` without a value (`let y;`) given its value inside a
/// `loop` (`loop { y = ..; break; }`): the compiled loop may leave early
/// (a value that is not finite stops it, for the tape to answer), where
/// `y` would have none, so rustc would not build it.
pub(super) fn given_its_value_in_a_loop(
    block: &Block,
    active: &HashSet<String>,
) -> Option<Unsupported> {
    let late = std::cell::RefCell::new(Vec::new());
    fn lets(block: &Block, active: &HashSet<String>, out: &mut Vec<String>) {
        for stmt in &block.stmts {
            if let Stmt::Let {
                name: Some(name),
                init: None,
                ..
            } = stmt
            {
                if active.contains(name) {
                    out.push(name.clone());
                }
            }
        }
    }
    lets(block, active, &mut late.borrow_mut());
    block.any_expr(&|expr| {
        for child in expr.children() {
            if let Child::Block(inner) = child {
                lets(inner, active, &mut late.borrow_mut());
            }
        }
        false
    });
    let late = late.into_inner();
    let found = std::cell::RefCell::new(None);
    block.any_expr(&|expr| {
        // (After a `while` or a `for`, rustc does not take it as given.)
        if !matches!(expr.kind, ExprKind::Loop { .. }) {
            return false;
        }
        let assigned = expr.any_expr(&|inner| match &inner.kind {
            ExprKind::Assign { target, .. } => {
                matches!(&target.kind, ExprKind::Path(path)
                    if path.path.get_ident().is_some_and(|name| late.contains(&name.to_string())))
            }
            _ => false,
        });
        if assigned {
            *found.borrow_mut() = Some(Unsupported {
                construct: "a `let` without a value given its value inside a loop".into(),
                line: crate::text::line(expr.span),
            });
        }
        assigned
    });
    found.into_inner()
}

/// A call's value assigned to a binding that holds a vector (`let mut g =
/// [1.0, 0.0]; g = mk(s);`), or one whose shape is not seen: the sweeps
/// would read the value as a number, which a vector-valued callee's is
/// not. Bound by a `let` instead (`let g = mk(s);`), it compiles.
pub(super) fn call_assigned_to_a_vector(block: &Block, an: &Analysis) -> Option<Unsupported> {
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
