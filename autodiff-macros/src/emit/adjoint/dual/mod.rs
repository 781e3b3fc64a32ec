//! Which bodies get `f_adjoint_dual`, the compiled adjoint on dual numbers
//! that `f_hvp` runs (forward over reverse), and the types it takes.
//!
//! The dual sweep is the `f64` sweep emitted again with every tracked
//! value a `Dual` (`Sweep::on_duals`). The student's statements are printed
//! as written, so a body gets one only when every construct in it is one
//! whose tokens type-check on `Dual` beside the `f64`s it reads: arithmetic
//! and comparisons with constants on either side (`Dual` has the mixed
//! operators), the table's methods called as methods on a tracked value
//! (`x.tanh()`, `x.max(0.0)`, `a.powf(b)`) and `relu(x)` and `sigmoid(x)`
//! (imported over the prelude's), `for` over a range, `while`, `loop`,
//! `if`, `match` on a value with no derivative, early `return`, and
//! tracked locals that are numbers, among them the
//! items of a `for` over a row of numbers (`x.iter()`, `&x`, with `zip`,
//! `enumerate`, `rev`, `copied`, `step_by`, ...: the loops iterator chains
//! are read as), and calls of annotated free functions read as numbers,
//! through the callee's dual pair (`dual_pair`: its own dual sweep, or a
//! failure that sends `f_hvp` to the tape), and local `Vec`s of numbers
//! (bound empty, to `vec![..]` or to a copy of a row, each bound as
//! `__adjoint::duals(..)`, grown by `push`, written by element, summed).
//! Its parameters are numbers, arrays, slices and rows of rows
//! (`&[Vec<f64>]`, a student's matrix, indexed or walked row by row by a
//! `for`, also zipped with numbers or rows, each row then indexed or
//! walked in turn: `places::zipped_rows`), and models by reference (`model: &Mlp`, `&self`), read through
//! the model's twin on duals (`MlpOnDuals`, written by the derive): its
//! fields as written (`model.layers[k].w[j][i]`), annotated methods called
//! on the model parameter itself (`model.score(x)`, through the method's
//! pair named on the model's type, `<Mlp>::score_forward_dual`), and
//! annotated functions passed it; all lifted onto the direction.
//! Anything else (methods of a part of a model, models bound to locals or
//! walked by a `for`, other `Vec` methods, local rows of rows, macros
//! reading a tracked value, casts of one) keeps `f_hvp` on the tape, which
//! computes the same numbers. `f_jvp` runs its forward sweep only
//! ([`forward_only`]), `f_hessian` it once per column.
//!
//! Here: the checks. `places`: what reads as a number or a row (a model's
//! places, fields of constant data, crate constants, what a `for` walks).
//! `types`: the types of the dual sweep's items, and where those holding
//! a model's twin are spanned.

use std::collections::{HashMap, HashSet};

use super::analysis::{carries, is_count, shows_number, Analysis};
use crate::ast::{Arith, Block, Child, Expr, ExprKind, Function, Kind, Source, Stmt};

mod places;
mod types;

use places::{
    data_field, enumerates, model_place, named_constant, number_items, row, row_items,
    zipped_names, zipped_rows,
};
pub use types::{dual_gradient_type, dual_type, forward_only, model_span, twin_of};

/// The most differentiable parameters the runtime's `Split` takes.
const MOST_PARAMS: usize = 6;

/// Whether `name` is a two-operand method of the table, which `Dual` has
/// (expanded from the same row), taking a `Dual` or an `f64`.
fn dual_pair(name: &str) -> bool {
    matches!(
        crate::vocabulary::method(name),
        Some(crate::vocabulary::Shape::Binary(_))
    )
}

/// Whether `function` (the model the sweeps compile) gets a dual sweep.
pub fn takes(function: &Function, an: &Analysis) -> bool {
    let refused = refusal(function, an);
    // A developer's view of why (`DUAL_WHY=1` while expanding).
    if std::env::var_os("DUAL_WHY").is_some() {
        eprintln!(
            "DUALWHY {}: {}",
            function.item.sig.ident,
            refused.as_deref().unwrap_or("taken")
        );
    }
    refused.is_none()
}

/// What keeps `function` off the dual sweep, the first found, if anything.
fn refusal(function: &Function, an: &Analysis) -> Option<String> {
    let active = &an.active;
    let differentiable = function
        .params
        .iter()
        .filter(|param| param.kind.is_differentiable())
        .count();
    if differentiable == 0 || differentiable > MOST_PARAMS {
        return Some(format!("{differentiable} differentiable parameters"));
    }
    let param = function.params.iter().find(|param| {
        if param.kind.is_differentiable() {
            !dual_param(&param.kind, &param.ty)
        } else {
            active.contains(&param.ident.to_string())
        }
    });
    if let Some(param) = param {
        return Some(format!("the parameter `{}`", param.ident));
    }
    if !function.returns_f64() {
        return Some("a value that is not an `f64`".into());
    }
    // Every tracked local is a number: a local the body shows to be one,
    // or the item of a `for` over numbers (what an iterator chain is read
    // as).
    // The models the body reads through their twins on duals.
    let models: HashSet<String> = function
        .params
        .iter()
        .filter(|param| matches!(param.kind, Kind::Struct { by_ref: true, .. }))
        .map(|param| param.ident.to_string())
        .collect();
    let plain = Body {
        an,
        counters: HashSet::new(),
        items: HashSet::new(),
        models: models.clone(),
        rows: HashSet::new(),
        tracked_items: HashSet::new(),
        value_sums: HashSet::new(),
    };
    let rows = row_names(function, &plain);
    let plain = Body { rows, ..plain };
    let items = std::cell::RefCell::new(HashMap::<String, usize>::new());
    // Of those, the ones bound where no item is an index (`enumerate`).
    let plain_items = std::cell::RefCell::new(HashMap::<String, usize>::new());
    function.body.any_expr(&|expr| {
        if let ExprKind::For { pat, iter, .. } = &expr.kind {
            // (A name a tracked loop binds, bound again by a loop over
            // data with no derivative, has an adjoint there made of duals,
            // `dual_zero(&table[i])`, see `Sweep::for_loop`.)
            if let Source::Expr(source) = iter.source {
                if number_items(source, &plain) {
                    for name in &pat.names {
                        *items.borrow_mut().entry(name.clone()).or_default() += 1;
                        if !enumerates(source) {
                            *plain_items.borrow_mut().entry(name.clone()).or_default() += 1;
                        }
                    }
                }
                // The rows of rows a `for` walks (`for r in w`,
                // `w.iter()`, `&w[1..]`): each a `Vec` of duals.
                if row_items(source, &plain) {
                    for name in &pat.names {
                        *items.borrow_mut().entry(name.clone()).or_default() += 1;
                        *plain_items.borrow_mut().entry(name.clone()).or_default() += 1;
                    }
                }
                // Rows zipped with rows or numbers (`for (x, y) in
                // xs.iter().zip(ys)`): each name a row or a number, an
                // index apart.
                let zipped =
                    zipped_rows(source, &plain).and_then(|walk| zipped_names(pat.syntax, &walk));
                for (name, _) in zipped.iter().flatten() {
                    *items.borrow_mut().entry(name.clone()).or_default() += 1;
                    *plain_items.borrow_mut().entry(name.clone()).or_default() += 1;
                }
            }
        }
        false
    });
    let items = items.into_inner();
    let an = &Body {
        counters: counters(function, an),
        // Untracked items of rows of numbers (`b` of `w.iter().zip(x)` of
        // a `#[constant] x`): `f64`s or references to them.
        items: plain_items
            .into_inner()
            .iter()
            .filter(|&(name, &count)| {
                !active.contains(name) && an.bound.get(name.as_str()) == Some(&count)
            })
            .map(|(name, _)| name.clone())
            .collect(),
        models,
        rows: plain.rows.clone(),
        // Tracked items of rows of numbers, each a `Dual` or a reference
        // to one (`*bias` of `for (row, bias) in w.iter().zip(b)`).
        tracked_items: items
            .iter()
            .filter(|&(name, &count)| {
                active.contains(name)
                    && !plain.rows.contains(name)
                    && an.bound.get(name.as_str()) == Some(&count)
            })
            .map(|(name, _)| name.clone())
            .collect(),
        value_sums: value_sums(function, active),
        an,
    };
    let params: HashSet<String> = function
        .params
        .iter()
        .map(|param| param.ident.to_string())
        .collect();
    let not_a_number = active
        .iter()
        // The names the body binds (`mut` and a `let`'s type are read off
        // patterns with them).
        .filter(|name| {
            !params.contains(*name)
                && an.bound.contains_key(*name)
                && syn::parse_str::<syn::Ident>(name).is_ok()
        })
        .find(|name| {
            // A number, or a local `Vec` of numbers (each `let` of which
            // `lets_ok` checks).
            !(matches!(an.dims.get(*name), Some(Some(0 | 1)))
                // Every binding of it is such an item.
                || items.get(name.as_str()).is_some_and(|&count| an.bound.get(name.as_str()) == Some(&count)))
        });
    if let Some(name) = not_a_number {
        return Some(format!(
            "the local `{name}`, not a number or a `Vec` of them"
        ));
    }
    // `r.sin_cos().0` is read as `r.sin()` but printed as written inside
    // the expressions around it, and `Dual` has no `sin_cos`.
    if crate::text::mentions(
        quote::ToTokens::to_token_stream(&function.item.block),
        "sin_cos",
    ) {
        return Some("`sin_cos`".into());
    }
    if !lets_ok(&function.body, an) {
        return Some("a `let` of a tracked value".into());
    }
    if !function
        .body
        .split_tail()
        .1
        .is_none_or(|tail| number_ok(tail, an))
    {
        return Some("a value that is not a number".into());
    }
    let refused = std::cell::RefCell::new(None);
    function.body.any_expr(&|expr| {
        let bad = !expr_ok(expr, an);
        if bad {
            *refused.borrow_mut() =
                Some(quote::ToTokens::to_token_stream(&expr.source).to_string());
        }
        bad
    });
    refused.into_inner().map(|source| format!("`{source}`"))
}

/// What the checks below read: the analysis, and the names the body shows
/// to be plain numbers beyond its `numbers`.
struct Body<'a> {
    an: &'a Analysis,
    /// See [`counters`].
    counters: HashSet<String>,
    /// Untracked names bound only as the items of `for`s over rows of
    /// numbers.
    items: HashSet<String>,
    /// The model parameters (`model: &Mlp`), read through their twins.
    models: HashSet<String>,
    /// See [`row_names`].
    rows: HashSet<String>,
    /// Tracked names bound only as the items of `for`s over numbers.
    tracked_items: HashSet<String>,
    /// See [`value_sums`].
    value_sums: HashSet<usize>,
}

impl std::ops::Deref for Body<'_> {
    type Target = Analysis;
    fn deref(&self) -> &Analysis {
        self.an
    }
}

/// The names bound only as the rows a `for` walks (`for r in w.iter()`,
/// `x` of `for (x, y) in xs.iter().zip(ys)`), each a row of numbers the
/// body may walk in turn (`r.iter().zip(x)`).
fn row_names(function: &Function, an: &Body<'_>) -> HashSet<String> {
    bound_only_by_fors(function, an, |pat, iter| {
        let Source::Expr(source) = iter.source else {
            return Vec::new();
        };
        let mut names = Vec::new();
        if pat.names.len() == 1 && matches!(pat.syntax, syn::Pat::Ident(_)) && row_items(source, an)
        {
            names.push(pat.names[0].clone());
        }
        let zipped = zipped_rows(source, an).and_then(|walk| zipped_names(pat.syntax, &walk));
        names.extend(
            zipped
                .into_iter()
                .flatten()
                .filter(|(_, row)| *row)
                .map(|(name, _)| name),
        );
        names
    })
    .into_iter()
    .filter(|name| !an.params.contains(name))
    .collect()
}

/// The names every binding of which is one that `each` finds among a
/// `for`'s (given its pattern and what it walks): bound by such loops
/// alone, whatever else the body does.
fn bound_only_by_fors(
    function: &Function,
    an: &Analysis,
    each: impl Fn(&crate::ast::Pattern, &Expr) -> Vec<String>,
) -> HashSet<String> {
    let found = std::cell::RefCell::new(HashMap::<String, usize>::new());
    function.body.any_expr(&|expr| {
        if let ExprKind::For { pat, iter, .. } = &expr.kind {
            for name in each(pat, iter) {
                *found.borrow_mut().entry(name).or_default() += 1;
            }
        }
        false
    });
    found
        .into_inner()
        .into_iter()
        .filter(|(name, count)| an.bound.get(name) == Some(count))
        .map(|(name, _)| name)
        .collect()
}

/// The sums of tracked items written with their type
/// (`x.iter().sum::<f64>()`) where the sweep rebuilds the expression around
/// them and names their type (`Sweep::fwd`): in the value of a tracked
/// `let`, an assignment to a tracked place, a `return` or the body's
/// tail, inside arithmetic and the table's functions only. Elsewhere (a
/// comparison's operand, a call's argument) it is printed as written,
/// `sum::<f64>()` of duals, which does not type-check.
fn value_sums(function: &Function, active: &HashSet<String>) -> HashSet<usize> {
    fn collect(expr: &Expr, out: &mut HashSet<usize>) {
        match &expr.kind {
            ExprKind::Sum { product: false, .. } => {
                out.insert(expr.id);
            }
            ExprKind::Binary { lhs, rhs, .. } => {
                collect(lhs, out);
                collect(rhs, out);
            }
            ExprKind::Paren(inner)
            | ExprKind::Neg { operand: inner, .. }
            | ExprKind::Elementary { operand: inner, .. }
            | ExprKind::Powi { base: inner, .. } => collect(inner, out),
            _ => {}
        }
    }
    let found = std::cell::RefCell::new(HashSet::new());
    let tracked_place =
        |target: &Expr| crate::flow::root(target).is_some_and(|name| active.contains(&name));
    crate::ast::each_stmt(&function.body.stmts, &mut |stmt| {
        if let Stmt::Let {
            pat,
            init: Some(init),
            ..
        } = stmt
        {
            if pat.names.iter().any(|name| active.contains(name)) {
                collect(init, &mut found.borrow_mut());
            }
        }
    });
    function.body.any_expr(&|expr| {
        match &expr.kind {
            ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. }
                if tracked_place(target) =>
            {
                collect(value, &mut found.borrow_mut());
            }
            ExprKind::Return(Some(value)) => collect(value, &mut found.borrow_mut()),
            _ => {}
        }
        false
    });
    if let Some(tail) = function.body.split_tail().1 {
        collect(tail, &mut found.borrow_mut());
    }
    found.into_inner()
}

/// The counters of `for` loops over ranges (`for i in 0..n`), each bound
/// by such loops alone: integers, which a call of an annotated function
/// may take as they are (`row_dot(w, i, x)`).
fn counters(function: &Function, an: &Analysis) -> HashSet<String> {
    bound_only_by_fors(function, an, |pat, iter| match iter.kind {
        ExprKind::Range { .. } => pat.names.clone(),
        _ => Vec::new(),
    })
    .into_iter()
    .filter(|name| !an.active.contains(name))
    .collect()
}

/// A differentiable parameter of a shape the runtime lifts (`lift`) and
/// whose type names `f64` literally: `f64`, `[f64; N]`, `&[f64]`,
/// `&[[f64; N]]`, `&Vec<f64>`, and rows of rows, `&[Vec<f64>]`
/// and `&Vec<Vec<f64>>`.
fn dual_param(kind: &Kind, ty: &syn::Type) -> bool {
    use syn::Type;
    let scalar_array = |ty: &Type| match ty {
        Type::Array(array) => crate::valid::is_f64(&array.elem),
        _ => false,
    };
    match (kind, ty) {
        (Kind::Scalar, ty) => crate::valid::is_f64(ty),
        // A model by reference: its twin on duals (`ModelOnDuals`).
        (Kind::Struct { by_ref: true, .. }, _) => true,
        (Kind::Array(elem, _), ty) => matches!(**elem, Kind::Scalar) && scalar_array(ty),
        (Kind::Slice(elem), Type::Reference(reference)) if reference.mutability.is_none() => {
            let item_ok = |item: &Type| match **elem {
                Kind::Scalar => crate::valid::is_f64(item),
                Kind::Array(ref inner, _) => matches!(**inner, Kind::Scalar) && scalar_array(item),
                // Rows of rows: `&[Vec<f64>]`, `&Vec<Vec<f64>>`.
                Kind::Vec(ref inner) => matches!(**inner, Kind::Scalar) && vec_of_f64(item),
                _ => false,
            };
            match &*reference.elem {
                Type::Slice(slice) => item_ok(&slice.elem),
                Type::Path(path) => {
                    let last = path.path.segments.last();
                    path.qself.is_none()
                        && path.path.segments.len() == 1
                        && last.is_some_and(|segment| {
                            segment.ident == "Vec"
                                && matches!(&segment.arguments,
                                    syn::PathArguments::AngleBracketed(args)
                                        if args.args.len() == 1
                                            && matches!(&args.args[0],
                                                syn::GenericArgument::Type(item) if item_ok(item)))
                        })
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Every `let` of a tracked name binds one name, typed `f64` or not at
/// all, in `block` and every block inside it.
fn lets_ok(block: &Block, an: &Body<'_>) -> bool {
    let active = &an.active;
    let here = block.stmts.iter().all(|stmt| match stmt {
        Stmt::Let {
            pat, name, init, ..
        } => {
            let tracked = pat.names.iter().any(|n| active.contains(n));
            let row = name
                .as_ref()
                .is_some_and(|name| an.dims.get(name) == Some(&Some(1)));
            if tracked && row {
                return init.as_ref().is_some_and(|init| vec_init_ok(init, an))
                    && match pat.syntax {
                        syn::Pat::Ident(ident) => ident.subpat.is_none() && ident.by_ref.is_none(),
                        syn::Pat::Type(typed) => {
                            vec_of_f64(&typed.ty)
                                && matches!(&*typed.pat, syn::Pat::Ident(ident)
                                    if ident.subpat.is_none() && ident.by_ref.is_none())
                        }
                        _ => false,
                    };
            }
            // An untracked value is printed as written, so a tracked `let`
            // inside it (in an arm of an `if` value that ends in a
            // constant) would not get the sweep's lifting of plain arms
            // and numbers.
            if !tracked {
                return !init
                    .as_ref()
                    .is_some_and(|init| binds_tracked_inside(init, an));
            }
            name.is_some()
                && init.as_ref().is_none_or(|init| number_ok(init, an))
                && match pat.syntax {
                    syn::Pat::Ident(ident) => ident.subpat.is_none() && ident.by_ref.is_none(),
                    syn::Pat::Type(typed) => {
                        crate::valid::is_f64(&typed.ty)
                            && matches!(&*typed.pat, syn::Pat::Ident(ident)
                                    if ident.subpat.is_none() && ident.by_ref.is_none())
                    }
                    _ => false,
                }
        }
        _ => true,
    });
    here && !block.any_expr(&|expr| {
        expr.children().into_iter().any(|child| match child {
            Child::Block(inner) => !lets_ok(inner, an),
            Child::Expr(_) => false,
        })
    })
}

/// Whether a block inside `expr` binds a tracked name by `let`.
fn binds_tracked_inside(expr: &Expr, an: &Body<'_>) -> bool {
    expr.any_expr(&|e| {
        e.children().into_iter().any(|child| match child {
            Child::Block(block) => block.stmts.iter().any(|stmt| {
                matches!(stmt, Stmt::Let { pat, .. }
                    if pat.names.iter().any(|name| an.active.contains(name)))
            }),
            Child::Expr(_) => false,
        })
    })
}

/// `Vec<f64>`, as a tracked local `Vec`'s `let` may be typed.
fn vec_of_f64(ty: &syn::Type) -> bool {
    let syn::Type::Path(path) = ty else {
        return false;
    };
    let Some(last) = path.path.segments.last() else {
        return false;
    };
    path.qself.is_none()
        && path.path.segments.len() == 1
        && last.ident == "Vec"
        && matches!(&last.arguments, syn::PathArguments::AngleBracketed(args)
            if args.args.len() == 1
                && matches!(&args.args[0], syn::GenericArgument::Type(item) if crate::valid::is_f64(item)))
}

/// What a tracked local `Vec` of numbers may be bound to on the dual
/// sweep, which binds it as `__adjoint::duals(init)`: an empty `Vec`
/// (`Vec::new()`, `vec![]`, typed `Vec<Dual>` there: its pushes give its
/// items), `vec![a, b]` of numbers all tracked or all
/// plain, `vec![e; n]` of a number, and a copy of a row (`x.to_vec()`,
/// `x.clone()`).
fn vec_init_ok(init: &Expr, an: &Body<'_>) -> bool {
    let tracked = |e: &Expr| carries(e, &an.active);
    match &init.kind {
        _ if init.is_empty_vec() => true,
        ExprKind::VecList(items) => {
            items.iter().all(|item| number_ok(item, an))
                && (items.iter().all(tracked) || !items.iter().any(tracked))
        }
        ExprKind::VecRepeat { elem, .. } => number_ok(elem, an),
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } => {
            args.is_empty()
                && matches!(method.to_string().as_str(), "to_vec" | "clone")
                && matches!(receiver.source, Source::Expr(source) if row(source, an))
        }
        _ => false,
    }
}

/// Whether `expr` is a number on the dual sweep: tracked (a `Dual`), or
/// shown to be an `f64` by the body (a float literal, an `f64` binding).
/// A value of another type (an integer, a `bool`) where a number belongs
/// is the student's mistake, which the plain twin reports: the dual sweep
/// is then not emitted, so that it reports nothing more.
fn number_ok(expr: &Expr, an: &Body<'_>) -> bool {
    expr.diverges()
        || carries(expr, &an.active)
        || data_field(expr, an)
        || named_constant(expr, an)
        || shows_number(expr, &an.active, &|name| {
            an.numbers.contains(name) || an.items.contains(name)
        })
}

/// Whether `expr`, a node of the body, prints as tokens that type-check
/// with its tracked values `Dual`s, and that a body the plain twin
/// rejects is not given to them (see [`number_ok`]).
fn expr_ok(expr: &Expr, an: &Body<'_>) -> bool {
    let active = &an.active;
    let tracked = |e: &Expr| carries(e, active);
    let number = |e: &Expr| number_ok(e, an);
    if !operands_ok(expr, an) {
        return false;
    }
    // A method `Dual` has as written (`r.sin_cos().0` is read as
    // `r.sin()` but printed as written, and `Dual` has no `sin_cos`).
    let method_call = matches!(expr.source,
        Source::Expr(syn::Expr::MethodCall(call)) if call.method != "sin_cos");
    // `relu(x)`, `sigmoid(x)` by their bare names, which the dual sweep
    // imports over the prelude's (`__adjoint::dual_activations`).
    let facade_call = matches!(&expr.kind, ExprKind::Elementary { func, .. }
        if matches!(*func, "relu" | "sigmoid"))
        && matches!(expr.source, Source::Expr(syn::Expr::Call(call))
            if matches!(&*call.func, syn::Expr::Path(path)
                if path.qself.is_none() && path.path.segments.len() == 1));
    // What a `for` over numbers walks (`x.iter().zip(&y)`): the loop's
    // items are `Dual`s or references to them.
    if matches!(expr.source, Source::Expr(source)
        if number_items(source, an) || row_items(source, an) || zipped_rows(source, an).is_some())
    {
        return true;
    }
    match &expr.kind {
        ExprKind::Lit(_)
        | ExprKind::NegLit(_)
        | ExprKind::Path(_)
        | ExprKind::Neg { .. }
        | ExprKind::Compare { .. }
        | ExprKind::Logic { .. }
        | ExprKind::Index { .. }
        | ExprKind::Paren(_)
        | ExprKind::Range { .. }
        | ExprKind::Block(None, _)
        | ExprKind::While { .. }
        | ExprKind::Loop { .. }
        | ExprKind::Continue(_)
        | ExprKind::Return(_)
        | ExprKind::Assign { .. }
        | ExprKind::CompoundAssign { .. } => true,
        ExprKind::Binary { op, lhs, rhs, .. } => match op {
            _ if tracked(expr) && !(number(lhs) && number(rhs)) => false,
            Arith::Add | Arith::Sub | Arith::Mul | Arith::Div => true,
            Arith::Rem => !tracked(expr),
            // `Dual`'s take a `Dual` or an `f64` (`x.max(0.0)`), on a
            // tracked receiver.
            Arith::Method(name) => {
                !tracked(expr) || (method_call && dual_pair(name) && tracked(lhs))
            }
        },
        ExprKind::Elementary { .. } => !tracked(expr) || method_call || facade_call,
        ExprKind::Powi { .. } => !tracked(expr) || method_call,
        // `*v` of a loop's item taken by reference: a `Dual`.
        ExprKind::Prefix { op, operand } => {
            matches!(op, syn::UnOp::Not(_))
                || !tracked(expr)
                || (matches!(op, syn::UnOp::Deref(_))
                    && matches!(&operand.kind, ExprKind::Path(path)
                        if path.path.get_ident().is_some_and(|name| an.tracked_items.contains(&name.to_string()))))
        }
        ExprKind::PlainCall { args, .. } => !args.iter().any(tracked),
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } => {
            let local_row = matches!(&receiver.kind, ExprKind::Path(path)
            if path.path.get_ident().is_some_and(|name| {
                let name = name.to_string();
                !an.params.contains(&name) && an.dims.get(&name) == Some(&Some(1))
            }));
            let copies_row = args.is_empty()
                && matches!(method.to_string().as_str(), "to_vec" | "clone")
                && matches!(receiver.source, Source::Expr(source) if row(source, an));
            is_count(expr)
                || !tracked(receiver)
                || copies_row
                || (*method == "push" && local_row && args.len() == 1 && number(&args[0]))
        }
        // An annotated method called on a model parameter, read as a
        // number: the method's dual pair, named on the model's type (a
        // method of a part of a model, `net.layers[k].forward(..)`, has no
        // type the sweep can name).
        ExprKind::PlainMethod {
            receiver,
            args,
            reads_primal: false,
            ..
        } if tracked(receiver) => {
            matches!(&receiver.kind, ExprKind::Path(path)
                if path.path.get_ident().is_some_and(|name| an.models.contains(&name.to_string())))
                && !an.vector_calls.contains(&expr.id)
                && args.len() < 12
                && args.iter().all(|arg| call_arg_ok(arg, an))
        }
        ExprKind::PlainMethod { receiver, args, .. } => {
            !tracked(receiver) && !args.iter().any(tracked)
        }
        ExprKind::Cast { expr: inner, .. } => !tracked(inner),
        ExprKind::PlainMacro { names, .. } => !names.iter().any(|n| active.contains(n)),
        // `vec![a, b]` of tracked numbers, `vec![e; n]`: `Vec`s of duals
        // (of plain numbers, a tracked `let` lifts them, `vec_init_ok`).
        ExprKind::VecList(items) => !tracked(expr) || items.iter().all(tracked),
        ExprKind::VecRepeat { elem, .. } => !tracked(expr) || number(elem),
        ExprKind::Field { .. } => !tracked(expr) || model_place(expr, an),
        ExprKind::Tuple(_)
        | ExprKind::Array(_)
        | ExprKind::Repeat { .. }
        | ExprKind::Reference { .. } => !tracked(expr),
        // A tracked `if` value: every arm gives a number (the sweep lifts
        // a plain one, `if_expr`).
        ExprKind::If { .. } => !tracked(expr) || tails_numbers(expr, an),
        // A `match` on a value with no derivative (an index, a count, a
        // comparison): as an `if`, every arm's value a number where the
        // `match` gives a tracked one.
        ExprKind::Match { scrutinee, arms } => {
            !tracked(scrutinee)
                && (!tracked(expr) || arms.iter().all(|arm| tails_numbers(&arm.body, an)))
        }
        ExprKind::For { iter, pat, .. } => {
            matches!(iter.kind, ExprKind::Range { .. })
                || matches!(iter.source, Source::Expr(source) if number_items(source, an))
                || (pat.names.len() == 1
                    && matches!(pat.syntax, syn::Pat::Ident(_))
                    && matches!(iter.source, Source::Expr(source) if row_items(source, an)))
                || matches!(iter.source, Source::Expr(source)
                    if zipped_rows(source, an).is_some_and(|walk| zipped_names(pat.syntax, &walk).is_some()))
        }
        // A loop's value: a number, lifted where it is plain (`Sweep::jump`).
        ExprKind::Break { value, .. } => value
            .as_deref()
            .is_none_or(|value| !tracked(value) || number(value)),
        // One carrying no derivative is the plain function, as written.
        ExprKind::Call { .. } if !tracked(expr) => true,
        // A call of an annotated free function read as a number: the
        // callee's dual pair (`dual_pair`), which fails the sweep where
        // the callee has no dual sweep of its own.
        ExprKind::Call { func, args } => {
            matches!(
                crate::emit::Callee::of(func),
                crate::emit::Callee::Free { .. }
            ) && !an.vector_calls.contains(&expr.id)
                && args.len() <= 12
                && args.iter().all(|arg| call_arg_ok(arg, an))
        }
        // `x.iter().sum()` of a row of numbers (`Dual` sums them, by
        // reference too); `sum::<f64>()`, which names the type, only where
        // the sweep names it again (`value_sums`).
        ExprKind::Sum {
            items,
            product: false,
            ..
        } => {
            !tracked(expr)
                || (matches!(expr.source, Source::Expr(syn::Expr::MethodCall(call))
                    if call.turbofish.is_none() || an.value_sums.contains(&expr.id))
                    && matches!(items.source, Source::Expr(source) if number_items(source, an)))
        }
        // `x.clamp(lo, hi)`, `a.mul_add(b, c)` on a tracked receiver:
        // `Dual`'s, taking a `Dual` or an `f64` for the others.
        ExprKind::Ternary { operands, .. } => {
            !tracked(expr)
                || (method_call
                    && tracked(&operands[0])
                    && operands.iter().all(|operand| number(operand)))
        }
        ExprKind::Sum { .. }
        | ExprKind::Construct { .. }
        | ExprKind::Closure { .. }
        | ExprKind::Dbg { .. }
        | ExprKind::Block(Some(_), _)
        | ExprKind::Let { .. }
        | ExprKind::Invalid => false,
    }
}

/// Whether `arg`, an argument of a call of an annotated function, has a
/// type the callee's dual pair takes in a program that compiles: a tracked
/// number (a `Dual`), a tracked parameter's place (`x`, `&x`, `w[j]`:
/// duals shaped as the callee's parameter is), an untracked number or
/// integer, or an untracked place of numbers (`&x` of constant data),
/// which the pair takes as plain rows (`__adjoint::Rows`) where the
/// callee's parameter is differentiable.
fn call_arg_ok(arg: &Expr, an: &Body<'_>) -> bool {
    let place = match &arg.kind {
        ExprKind::Reference {
            mutability: None,
            expr,
        } => expr,
        _ => arg,
    };
    let indices_plain = !place.any_expr(&|e| match &e.kind {
        ExprKind::Index { index, .. } => carries(index, &an.active),
        _ => false,
    });
    let rows = crate::flow::root(place)
        .is_some_and(|name| matches!(an.dims.get(&name), Some(Some(1..))))
        && indices_plain
        && matches!(
            place.kind,
            ExprKind::Path(_) | ExprKind::Index { .. } | ExprKind::Paren(_)
        );
    if carries(arg, &an.active) {
        return number_ok(arg, an) || rows;
    }
    // A field of constant data by value (`data[n].x` of a `Sample`): the
    // type the callee's constant parameter declares, or numbers its
    // differentiable one converts (`Arg`).
    let field = matches!(arg.kind, ExprKind::Field { .. }) && indices_plain;
    plain_number(arg, an) || rows || field
}

/// An untracked number or integer: a literal, a name not holding a
/// vector, arithmetic and casts of these, an item of a vector.
fn plain_number(expr: &Expr, an: &Body<'_>) -> bool {
    match &expr.kind {
        ExprKind::Lit(_) | ExprKind::NegLit(_) => true,
        ExprKind::Path(path) => path.path.get_ident().is_some_and(|ident| {
            let name = ident.to_string();
            an.counters.contains(&name) || matches!(an.dims.get(&name), None | Some(Some(0)))
        }),
        ExprKind::Paren(inner) | ExprKind::Neg { operand: inner, .. } => plain_number(inner, an),
        ExprKind::Cast { expr: inner, .. } => plain_number(inner, an),
        ExprKind::Binary { lhs, rhs, .. } => plain_number(lhs, an) && plain_number(rhs, an),
        ExprKind::Index { .. } | ExprKind::Field { .. } => {
            super::analysis::dims_of(expr, &an.dims) == Some(0)
        }
        _ => false,
    }
}

/// Where a tracked value meets another: the other is a number; no number
/// is an index, and no tracked value a bound or a condition; an exponent
/// of `powi` is an integer literal or `as i32`.
fn operands_ok(expr: &Expr, an: &Body<'_>) -> bool {
    let tracked = |e: &Expr| carries(e, &an.active);
    let number = |e: &Expr| number_ok(e, an);
    let root_tracked =
        |e: &Expr| crate::flow::root(e).is_some_and(|name| an.active.contains(&name));
    match &expr.kind {
        ExprKind::Compare { lhs, rhs, .. } => {
            !(tracked(lhs) || tracked(rhs)) || (number(lhs) && number(rhs))
        }
        ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
            !root_tracked(target) || number(value)
        }
        ExprKind::Return(Some(value)) => number(value),
        ExprKind::Index { index, .. } => !tracked(index) && !number(index),
        ExprKind::Range { start, end, .. } => {
            !start.as_deref().is_some_and(tracked) && !end.as_deref().is_some_and(tracked)
        }
        // A model's field as a condition is a `bool` constant, carried
        // as it is by the model's twin.
        ExprKind::If { cond, .. } | ExprKind::While { cond, .. } => {
            !tracked(cond) || model_place(cond, an)
        }
        // An integer literal or a cast to `i32`: a variable's type (`i32`
        // or not) is not seen.
        ExprKind::Powi { exponent, .. } => {
            exponent.is_int_literal()
                || matches!(&exponent.kind, ExprKind::Cast { ty, .. }
                    if matches!(ty, syn::Type::Path(path) if path.path.is_ident("i32")))
        }
        ExprKind::Neg { operand, .. } => !tracked(expr) || number(operand),
        _ => true,
    }
}

/// Whether every value an `if` can give is a number: tracked (a `Dual`),
/// or plain, which the sweep lifts to one.
fn tails_numbers(expr: &Expr, an: &Body<'_>) -> bool {
    match &expr.kind {
        ExprKind::If {
            then_branch,
            else_branch: Some(other),
            ..
        } => block_tail_numbers(then_branch, an) && tails_numbers(other, an),
        ExprKind::Block(None, block) => block_tail_numbers(block, an),
        ExprKind::Paren(inner) => tails_numbers(inner, an),
        _ => expr.diverges() || number_ok(expr, an),
    }
}

fn block_tail_numbers(block: &Block, an: &Body<'_>) -> bool {
    match block.split_tail().1 {
        Some(tail) => tails_numbers(tail, an),
        // A block ending in `return ..;` gives no value.
        None => block
            .stmts
            .last()
            .is_some_and(|stmt| matches!(stmt, Stmt::Expr(e, _) if e.diverges())),
    }
}
