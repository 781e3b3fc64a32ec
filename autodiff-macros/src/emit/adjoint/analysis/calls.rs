//! Bindings of what annotated calls return. The macro cannot see a
//! callee's output type: a call returns a number or, from a vector-valued
//! function, a `Vec`, an array or a tuple. The body's syntax says which
//! where it indexes, iterates or borrows a binding a top-level `let` made
//! once (`let p = softmax(&z); p[k]`): such a binding is a vector, as deep
//! as its deepest indexing, and its call's value is taken as it is; one
//! read by a tuple field (`step_out.0`, a pattern `let (h, s) = step(&x);`
//! as `adjoint::call_values` splits it) is a tuple of unknown shape, taken
//! as it is too. So is
//! the value of such a binding the body never reads, a number or a vector,
//! whose adjoint is zero, and one the body only passes on whole to other
//! annotated calls (`let h = layer(x); total(h)`), whose adjoint goes back
//! whole. Every other call's value is read as a number
//! (`__adjoint::scalar_of`), which a vector is not: the sweep fails there
//! and `f_grad` takes the tape.

use crate::ast::{Child, Expr, ExprKind, Function, Stmt};

use super::Analysis;

/// Fills `call_lets`, `vector_calls`, `unread_calls` and the `dims` of the
/// vectors among the `call_lets`. A `let` inside a loop or a branch
/// (`for t in .. { let p = softmax(&z[t]); .. }`) is one of them where the
/// body uses its binding as a vector or never reads it: the sweeps save
/// its value and the arguments that change for the reverse (see
/// `sweep::sites`).
pub(super) fn calls_bound(function: &Function, an: &mut Analysis) {
    let returns = function
        .body
        .any_expr(&|expr| matches!(expr.kind, ExprKind::Return(_)));
    let models: Vec<String> = an.models.iter().cloned().collect();
    let is_call = |expr: &Expr| crate::emit::is_annotated_call(expr, &models);
    let pushed = std::cell::RefCell::new(Vec::new());
    let mut lets = Vec::new();
    call_lets_in(
        &function.body.stmts,
        false,
        false,
        false,
        &is_call,
        &mut lets,
    );
    for &(name, init, nested, left) in &lets {
        if left {
            continue;
        }
        if an.bound.get(name).copied() == Some(1) {
            // At the top of a body with `return`, the forward's bindings
            // are gone when the reverse starts (`'forward: { .. }`): such
            // a `let` is saved as a nested one is, and its reverse pops it
            // where the exit taken came after it (`sweep::sites`).
            // One moved by an assignment (`h = next;`) is gone too: saved
            // as a nested one is.
            if nested || returns || assigned_from(&function.body.stmts, name) {
                let depth = call_depth(&function.body.stmts, name, &an.bound);
                let row = pushed_as_a_row(&function.body.stmts, name, &an.dims);
                if depth > 0
                    || used_whole(&function.body.stmts, name)
                    || assigned_to_a_row(&function.body.stmts, name, &an.dims)
                    || row.is_some()
                {
                    let depth = depth.max(row.unwrap_or(1));
                    an.dims.insert(name.to_owned(), Some(depth.max(1)));
                } else if taken_as_it_is(&function.body.stmts, name, &is_call) {
                    // A tuple (`let h = step_out.0;`), or a value only
                    // passed on (`total(h)`): its shape unknown.
                    an.dims.insert(name.to_owned(), None);
                } else if !an.reads(name) && !calls_inside(init, &is_call) {
                    // Never read, as it is; one whose arguments call
                    // (`h(h(x))`) could not be saved for the rerun, and is
                    // left as before.
                    an.unread_calls.insert(name.to_owned());
                } else {
                    continue;
                }
                an.call_lets.insert(name.to_owned());
                an.nested_call_lets.insert(name.to_owned());
                an.vector_calls.insert(init.unparenthesised().id);
            } else {
                an.call_lets.insert(name.to_owned());
            }
        }
    }
    // A call pushed onto a `Vec` is taken as it is, a number or a vector:
    // its cotangent is the element's adjoint, typed by the `Vec`'s. One
    // pushed onto a `Vec` its `let` made of numbers (`vec![0.5; n]`, not
    // an empty one, whose shape its pushes give) is a number, reversed as
    // any pushed number is (its arguments may call: `v.push(h(h(x)))`).
    let mut empty = std::collections::HashSet::new();
    super::shapes::empty_vec_lets(&function.body, &mut empty);
    // An empty `Vec` also given a number that is no call (`v.push(x)`):
    // one type of item, so a call pushed onto it is a number too.
    let given_numbers = std::cell::RefCell::new(std::collections::HashSet::new());
    super::shapes::for_each_push(&function.body, &|name, item| {
        if !item.any_expr(&|inner| is_call(inner))
            && super::shapes::dims_of(item, &an.dims) == Some(0)
        {
            given_numbers.borrow_mut().insert(name.to_owned());
        }
    });
    let given_numbers = given_numbers.into_inner();
    // An empty `Vec` whose items the body reads as numbers (`v[1] + s`).
    let read_as_numbers = super::shapes::items_read_as_numbers(&function.body);
    let numbers = |receiver: &Expr| match &receiver.kind {
        ExprKind::Path(path) => path.path.get_ident().is_some_and(|ident| {
            let name = ident.to_string();
            (!empty.contains(&name)
                || given_numbers.contains(&name)
                || read_as_numbers.contains(&name))
                && an.bound.get(&name).copied() == Some(1)
                && an.dims.get(&name).copied() == Some(Some(1))
        }),
        _ => false,
    };
    function.body.any_expr(&|expr| {
        if let ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } = &expr.kind
        {
            if let [item] = args.as_slice() {
                let direct = !matches!(item.kind, ExprKind::Paren(_));
                if *method == "push" && direct && is_call(item) && !numbers(receiver) {
                    pushed.borrow_mut().push(item.id);
                }
            }
        }
        false
    });
    an.vector_calls.extend(pushed.into_inner());
    for stmt in &function.body.stmts {
        let Stmt::Let {
            name: Some(name),
            init: Some(init),
            ..
        } = stmt
        else {
            continue;
        };
        // `let h = if c { layer(x) } else { other(x) };`, indexed or
        // borrowed: a vector too, each arm's call seeded with `h_bar`.
        let mut tails = Vec::new();
        if !returns
            && an.bound.get(name).copied() == Some(1)
            && matches!(
                init.kind,
                ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(None, _)
            )
            && branch_calls(init, &is_call, &mut tails)
        {
            let depth = call_depth(&function.body.stmts, name, &an.bound);
            if depth > 0 || used_whole(&function.body.stmts, name) {
                an.call_lets.insert(name.clone());
                an.dims.insert(name.clone(), Some(depth.max(1)));
                an.vector_calls.extend(tails);
            }
            continue;
        }
        // Those of a body with `return` were shaped with the nested ones.
        if !an.call_lets.contains(name) || an.nested_call_lets.contains(name) {
            continue;
        }
        let depth = call_depth(&function.body.stmts, name, &an.bound);
        let whole = used_whole(&function.body.stmts, name)
            || assigned_to_a_row(&function.body.stmts, name, &an.dims);
        if depth > 0 || whole {
            an.dims.insert(name.clone(), Some(depth.max(1)));
            an.vector_calls.insert(init.unparenthesised().id);
        } else if taken_as_it_is(&function.body.stmts, name, &is_call) {
            an.dims.insert(name.clone(), None);
            an.vector_calls.insert(init.unparenthesised().id);
        } else if !an.reads(name) {
            // Never read: whatever the callee returns, taken as it is.
            an.unread_calls.insert(name.clone());
            an.vector_calls.insert(init.unparenthesised().id);
        }
    }
    // A call bound and never read that is not taken as it is (in a loop
    // with a jump, by `let mut` in a block, in a body with `return`):
    // its value would be read as a number, which a vector-valued callee's
    // is not, and nothing shows which it is. The sweep would fail at run
    // time, so it is refused.
    for &(name, ..) in &lets {
        if !an.reads(name) && !an.unread_calls.contains(name) {
            an.unknown_calls.insert(name.to_owned());
        }
    }
}

/// The `let`s of a name to an annotated call in `stmts` and the blocks
/// inside them, each with whether it is nested in a loop or a branch, and
/// whether a loop around it has a `break`, `continue` or `return`
/// (anywhere in its body), unless the `let` is a statement of the body of
/// the innermost such loop and that body has no `return` (the reverse of
/// an iteration knows from its exit whether the `let` ran): elsewhere the
/// sweeps cannot save per trip, and such a `let` is left as the other
/// calls are (the last field).
fn call_lets_in<'m, 'a>(
    stmts: &'m [Stmt<'a>],
    nested: bool,
    jumps: bool,
    direct: bool,
    is_call: &dyn Fn(&Expr) -> bool,
    out: &mut Vec<(&'m str, &'m Expr<'a>, bool, bool)>,
) {
    fn in_expr<'m, 'a>(
        expr: &'m Expr<'a>,
        jumps: bool,
        is_call: &dyn Fn(&Expr) -> bool,
        out: &mut Vec<(&'m str, &'m Expr<'a>, bool, bool)>,
    ) {
        let (loop_jumps, returns) = match &expr.kind {
            ExprKind::For { body, .. }
            | ExprKind::While { body, .. }
            | ExprKind::Loop { body, .. } => (
                body.any_expr(&|inner| {
                    matches!(inner.kind, ExprKind::Break { .. } | ExprKind::Continue(_))
                }),
                body.any_expr(&|inner| matches!(inner.kind, ExprKind::Return(_))),
            ),
            _ => (false, false),
        };
        // The body of a loop that jumps but never returns: its own `let`s
        // are saved per trip (see `sweep::sites`), not those of the blocks
        // inside it.
        let direct = loop_jumps && !returns;
        let jumps = jumps || loop_jumps || returns;
        for child in expr.children() {
            match child {
                Child::Expr(child) => in_expr(child, jumps, is_call, out),
                Child::Block(block) => {
                    call_lets_in(&block.stmts, true, jumps, direct, is_call, out)
                }
            }
        }
    }
    for stmt in stmts {
        match stmt {
            Stmt::Let {
                name,
                init: Some(init),
                mutable,
                ..
            } => {
                if let Some(name) = name {
                    // A `mut` one nested is left as before too: the saved
                    // value stands for the binding throughout the reverse.
                    if is_call(init) {
                        let left = *mutable || (jumps && !direct);
                        out.push((name, init, nested, nested && left));
                    }
                }
                in_expr(init, jumps, is_call, out);
            }
            Stmt::Expr(expr, _) => in_expr(expr, jumps, is_call, out),
            _ => {}
        }
    }
}

/// Whether an annotated call is inside `call` (among its arguments).
fn calls_inside(call: &Expr, is_call: &dyn Fn(&Expr) -> bool) -> bool {
    call.children().into_iter().any(|child| match child {
        Child::Expr(child) => child.any_expr(&|expr| is_call(expr)),
        Child::Block(block) => block.any_expr(&|expr| is_call(expr)),
    })
}

/// Collects the annotated calls that give `expr`'s value from the tail of
/// a branch (`if c { f(x) } else { g(x) }`, a `match` arm, a block), and
/// whether there is one.
pub(crate) fn branch_calls(
    expr: &Expr,
    is_call: &dyn Fn(&Expr) -> bool,
    out: &mut Vec<usize>,
) -> bool {
    match &expr.kind {
        ExprKind::Paren(inner) => branch_calls(inner, is_call, out),
        _ if is_call(expr) => {
            out.push(expr.id);
            true
        }
        ExprKind::If {
            then_branch,
            else_branch,
            ..
        } => {
            let then = then_branch
                .split_tail()
                .1
                .is_some_and(|tail| branch_calls(tail, is_call, out));
            let otherwise = else_branch
                .as_ref()
                .is_some_and(|other| branch_calls(other, is_call, out));
            then || otherwise
        }
        ExprKind::Match { arms, .. } => {
            // Every arm's call, not just the first found.
            let mut found = false;
            for arm in arms {
                found |= branch_calls(&arm.body, is_call, out);
            }
            found
        }
        ExprKind::Block(None, block) => block
            .split_tail()
            .1
            .is_some_and(|tail| branch_calls(tail, is_call, out)),
        _ => false,
    }
}

/// The most indexings applied to `name` anywhere in `stmts` (`p[i][j]`
/// is 2; 0 if it is never indexed).
/// How many indices (not ranges) `expr` applies to the binding `name`
/// (`name[i][j]`: 2, `name`: 0), or `None` for anything else.
fn depth_of(expr: &Expr, name: &str) -> Option<usize> {
    match &expr.kind {
        ExprKind::Paren(inner) => depth_of(inner, name),
        ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
            depth_of(base, name).map(|d| d + 1)
        }
        ExprKind::Path(path) if path.path.is_ident(name) => Some(0),
        _ => None,
    }
}

/// How deep `expr` shows `name` to be where it uses a row of it whole:
/// `v.extend_from_slice(&name[t])`, `name[t].iter()`, `name[t].to_vec()`
/// (a row of numbers, one level below the indices that picked it).
fn row_used_whole(expr: &Expr, name: &str) -> Option<usize> {
    let ExprKind::Structural {
        receiver,
        method,
        args,
        ..
    } = &expr.kind
    else {
        return None;
    };
    let row = match (method.to_string().as_str(), &args[..]) {
        ("extend_from_slice", [arg]) => match &arg.unparenthesised().kind {
            ExprKind::Reference {
                mutability: None,
                expr: inner,
            } => inner,
            _ => return None,
        },
        ("iter" | "to_vec", []) => receiver,
        _ => return None,
    };
    depth_of(row, name).filter(|&k| k > 0).map(|k| k + 1)
}

pub(crate) fn index_depth(stmts: &[Stmt], name: &str) -> usize {
    fn in_expr(expr: &Expr, name: &str, most: &mut usize) {
        if let Some(depth) = depth_of(expr, name).max(row_used_whole(expr, name)) {
            *most = (*most).max(depth);
        }
        for child in expr.children() {
            match child {
                Child::Expr(child) => in_expr(child, name, most),
                Child::Block(block) => in_stmts(&block.stmts, name, most),
            }
        }
    }
    fn in_stmts(stmts: &[Stmt], name: &str, most: &mut usize) {
        for stmt in stmts {
            match stmt {
                Stmt::Let {
                    init: Some(init), ..
                }
                | Stmt::Expr(init, _) => in_expr(init, name, most),
                _ => {}
            }
        }
    }
    let mut most = 0;
    in_stmts(stmts, name, &mut most);
    most
}

/// How deep a call's binding `name` is indexed: directly, through the
/// rows it lends (`borrowed_row_depth`), or through the items a `for`
/// walks (`for r in &p { .. r[0] .. }`, a row softmax's rows read in turn;
/// `walked_depth`).
fn call_depth(
    stmts: &[Stmt],
    name: &str,
    bound: &std::collections::HashMap<String, usize>,
) -> usize {
    index_depth(stmts, name)
        .max(borrowed_row_depth(stmts, name, bound))
        .max(walked_depth(stmts, name))
}

/// How deep `name` is indexed through the bindings that borrow its rows
/// (`let row = &lg[t];` then `row[k]` or `row.iter()`, the course's
/// logits walked row by row): the row's own indexing (or 1, for a row
/// used whole) past the indices that picked it; 0 where nothing borrows.
/// Only a row bound to a name bound once (`bound`) counts.
pub(crate) fn borrowed_row_depth(
    stmts: &[Stmt],
    name: &str,
    bound: &std::collections::HashMap<String, usize>,
) -> usize {
    let mut most = 0;
    crate::ast::each_stmt(stmts, &mut |stmt| {
        let Stmt::Let {
            name: Some(item),
            init: Some(init),
            ..
        } = stmt
        else {
            return;
        };
        let ExprKind::Reference { expr: inner, .. } = &init.kind else {
            return;
        };
        // A name bound once: another binding of it is no row of `name`'s.
        let Some(k) =
            depth_of(inner, name).filter(|&k| k > 0 && bound.get(item).copied() == Some(1))
        else {
            return;
        };
        // A borrowed number is no helper's argument (`f(*r)` reads it).
        let passed = |expr: &Expr| {
            matches!(&expr.kind, ExprKind::Call { args, .. } | ExprKind::PlainCall { args, .. }
                if args.iter().any(|arg| matches!(&arg.unparenthesised().kind,
                    ExprKind::Path(path) if path.path.is_ident(item.as_str()))))
        };
        let past = match index_depth(stmts, item) {
            0 => usize::from(
                used_whole(stmts, item) || stmts.iter().any(|stmt| stmt.any_expr(&passed)),
            ),
            past => past,
        };
        if past > 0 {
            most = most.max(k + past);
        }
    });
    most
}

/// Whether a call's binding `name` is taken as it is, of a shape the
/// body does not show: read by a tuple field, or only passed on whole.
fn taken_as_it_is(stmts: &[Stmt], name: &str, is_call: &dyn Fn(&Expr) -> bool) -> bool {
    read_by_field(stmts, name) || passed_on_only(stmts, name, is_call)
}

/// Whether `name` is read by a tuple field somewhere (`p.0`): a call's
/// value split by a pattern (`let (h, s) = step(&x);`, see
/// `call_values`), taken as it is.
fn read_by_field(stmts: &[Stmt], name: &str) -> bool {
    let test = |expr: &Expr| match &expr.kind {
        ExprKind::Field {
            base,
            member: syn::Member::Unnamed(_),
        } => matches!(&base.kind, ExprKind::Path(path) if path.path.is_ident(name)),
        _ => false,
    };
    stmts.iter().any(|stmt| stmt.any_expr(&test))
}

/// Whether `name` is the whole value of an assignment somewhere (`h =
/// name;`), which moves it.
fn assigned_from(stmts: &[Stmt], name: &str) -> bool {
    let test = |expr: &Expr| match &expr.kind {
        ExprKind::Assign { value, .. } => {
            matches!(&value.unparenthesised().kind, ExprKind::Path(path) if path.path.is_ident(name))
        }
        _ => false,
    };
    stmts.iter().any(|stmt| stmt.any_expr(&test))
}

/// Whether `name` is read only as a whole argument of annotated calls
/// (`let h = layer(x); total(h)`), by value, or as the whole value of an
/// assignment (`let next = dense(w, &h); h = next;`, the layer loop): a
/// number or a vector alike, so taken as it is, its adjoint shaped like
/// it and passed back as the cotangent. A read in arithmetic, by index or
/// by a method says which it is, and is left to the other tests.
fn passed_on_only(stmts: &[Stmt], name: &str, is_call: &dyn Fn(&Expr) -> bool) -> bool {
    let is_name = |expr: &Expr| matches!(&expr.unparenthesised().kind, ExprKind::Path(path) if path.path.is_ident(name));
    let reads = std::cell::Cell::new(0usize);
    let passed = std::cell::Cell::new(0usize);
    let count = |expr: &Expr| {
        if matches!(&expr.kind, ExprKind::Path(path) if path.path.is_ident(name)) {
            reads.set(reads.get() + 1);
        }
        let args = match &expr.kind {
            ExprKind::Call { args, .. } | ExprKind::PlainMethod { args, .. } if is_call(expr) => {
                Some(args)
            }
            _ => None,
        };
        if let Some(args) = args {
            passed.set(passed.get() + args.iter().filter(|arg| is_name(arg)).count());
        }
        if let ExprKind::Assign { target, value } = &expr.kind {
            if matches!(target.kind, ExprKind::Path(_)) && is_name(value) {
                passed.set(passed.get() + 1);
            }
        }
        false
    };
    for stmt in stmts {
        stmt.any_expr(&count);
    }
    passed.get() > 0 && passed.get() == reads.get()
}

/// Whether `name` is used as a whole vector somewhere: a method called on
/// it (`p.iter()`, `p.len()`), borrowed (`&p`), sliced (`&p[1..]`), or
/// iterated by `for`.
/// The name an indexed place is of and how many times it is indexed
/// (`m[b][1]` is `m`, 2), or `None` for any other place.
pub(crate) fn row_of(target: &Expr, indices: usize) -> Option<(String, usize)> {
    match &target.kind {
        ExprKind::Paren(inner) => row_of(inner, indices),
        ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
            row_of(base, indices + 1)
        }
        ExprKind::Path(path) if indices > 0 => Some((path.path.get_ident()?.to_string(), indices)),
        _ => None,
    }
}

/// Whether `name` is assigned whole to a row of a vector (`m[1] = r;`,
/// `world[b] = wb;`): a place that, by the shapes known so far
/// (`dims`), holds a vector.
fn assigned_to_a_row(
    stmts: &[Stmt],
    name: &str,
    dims: &std::collections::HashMap<String, Option<usize>>,
) -> bool {
    let test = |expr: &Expr| match &expr.kind {
        ExprKind::Assign { target, value } => {
            matches!(&value.unparenthesised().kind, ExprKind::Path(path) if path.path.is_ident(name))
                && row_of(target, 0).is_some_and(
                    |(base, indices)| matches!(dims.get(&base), Some(Some(d)) if *d > indices),
                )
        }
        _ => false,
    };
    stmts.iter().any(|stmt| stmt.any_expr(&test))
}

/// How deep the rows are of a `Vec` that `name` is pushed onto, where
/// the shapes known so far (`dims`) or its indexing show they are vectors
/// (`w.push(l);` of `w[1][0][0]`: a row of 2 levels), else `None`.
fn pushed_as_a_row(
    stmts: &[Stmt],
    name: &str,
    dims: &std::collections::HashMap<String, Option<usize>>,
) -> Option<usize> {
    let found = std::cell::Cell::new(None);
    let test = |expr: &Expr| {
        if let ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } = &expr.kind
        {
            let pushed = *method == "push"
                && matches!(args.as_slice(), [arg]
                    if matches!(&arg.unparenthesised().kind, ExprKind::Path(path) if path.path.is_ident(name)));
            if let (true, ExprKind::Path(path)) = (pushed, &receiver.unparenthesised().kind) {
                // As deep as its shape, or where that is not known (its
                // pushes disagree), as its deepest indexing.
                let rows = path
                    .path
                    .get_ident()
                    .map(|vec| {
                        let vec = vec.to_string();
                        let indexed = index_depth(stmts, &vec).max(walked_depth(stmts, &vec));
                        dims.get(&vec)
                            .copied()
                            .flatten()
                            .map_or(indexed, |d| d.max(indexed))
                    })
                    .filter(|&d| d > 1);
                if let Some(d) = rows {
                    found.set(Some(found.get().map_or(d - 1, |at: usize| at.max(d - 1))));
                }
            }
        }
        false
    };
    for stmt in stmts {
        stmt.any_expr(&test);
    }
    found.get()
}

/// The binding a `for` walks item by item, as it is: `w`, `&w`,
/// `w.iter()`.
pub(crate) fn walked_binding(iter: &Expr) -> Option<String> {
    match &iter.unparenthesised().kind {
        ExprKind::Reference { expr, .. } => walked_binding(expr),
        ExprKind::Path(path) => Some(path.path.get_ident()?.to_string()),
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } if args.is_empty() && *method == "iter" => walked_binding(receiver),
        _ => None,
    }
}

/// How deep a `for` over `name`'s items (`for m in &w`, `w.iter()`)
/// indexes them, counting the level the walk takes: `m[1][0]` of `for m
/// in &w` is 3.
fn walked_depth(stmts: &[Stmt], name: &str) -> usize {
    let most = std::cell::Cell::new(0);
    let test = |expr: &Expr| {
        if let ExprKind::For {
            pat, iter, body, ..
        } = &expr.kind
        {
            if let ([item], true) = (
                pat.names.as_slice(),
                walked_binding(iter).as_deref() == Some(name),
            ) {
                let depth = index_depth(&body.stmts, item);
                if depth > 0 {
                    most.set(most.get().max(depth + 1));
                }
            }
        }
        false
    };
    for stmt in stmts {
        stmt.any_expr(&test);
    }
    most.get()
}

pub(crate) fn used_whole(stmts: &[Stmt], name: &str) -> bool {
    let is_name =
        |expr: &Expr| matches!(&expr.kind, ExprKind::Path(path) if path.path.is_ident(name));
    let test = |expr: &Expr| match &expr.kind {
        ExprKind::Structural { receiver, .. } | ExprKind::PlainMethod { receiver, .. } => {
            is_name(receiver)
        }
        ExprKind::Reference { expr: inner, .. } => is_name(inner),
        ExprKind::For { iter, .. } => is_name(iter),
        // A run of it (`&p[..]`, `p[1..]`): a number has none.
        ExprKind::Index { base, index } => {
            is_name(base) && matches!(index.kind, ExprKind::Range { .. })
        }
        // Assigned whole to a binding the body indexes (`h = if_value;`
        // of `let if_value = if c { shrink(&h) } else { grow(&h) };`).
        ExprKind::Assign { target, value } => {
            is_name(value)
                && matches!(&target.kind, ExprKind::Path(path)
                    if path.path.get_ident().is_some_and(|target| index_depth(stmts, &target.to_string()) > 0))
        }
        _ => false,
    };
    stmts.iter().any(|stmt| stmt.any_expr(&test))
}
