//! Shapes: how many indexings take a binding's value to an `f64` (0 for a
//! scalar, 1 for an array or `Vec` of them, ...), from the parameters'
//! kinds, each `let`'s value and, for a `let y;`, its assignments
//! (`Analysis::dims` and `Analysis::assigned`); [`dims_of`] for one
//! expression.

use std::collections::{HashMap, HashSet};

use quote::ToTokens;

use crate::ast::{Arith, Block, Child, Expr, ExprKind, Function, Kind, Pattern, Stmt};

pub(super) fn copy_array(kind: &Kind) -> bool {
    match kind {
        Kind::Array(elem, _) => matches!(**elem, Kind::Scalar) || copy_array(elem),
        _ => false,
    }
}

pub(super) fn kind_dims(kind: &Kind) -> Option<usize> {
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

/// The shapes of the bindings of `block` and the blocks inside it, into
/// `dims`; a `let` of a name in `grown` (a `Vec` bound empty, see
/// [`grown_dims`], or a vector call's binding, see `calls`) keeps the
/// shape `dims` already has for it.
pub(super) fn dims_block(
    block: &Block,
    dims: &mut HashMap<String, Option<usize>>,
    grown: &HashSet<String>,
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                pat,
                name: Some(name),
                init: Some(init),
                ..
            } => {
                // The value's own blocks first: a `loop`'s value is its
                // `break`'s, which may name a `let` inside it (`let y =
                // loop { let if_value = ..; break if_value; };`).
                dims_expr(init, dims, grown);
                if grown.contains(name) {
                    dims.entry(name.clone()).or_insert(None);
                    continue;
                }
                // A type on the `let` says it where the value does not
                // (`let mut v: Vec<f64> = Vec::new();`, which a typed
                // `collect` is read as).
                let found = dims_of(init, dims).or_else(|| pattern_dims(pat.syntax));
                // A tuple's components (`let p = (a, b);`), read as `p.0`.
                let components: Vec<Option<usize>> = match &init.kind {
                    ExprKind::Tuple(items) => {
                        items.iter().map(|item| dims_of(item, dims)).collect()
                    }
                    _ => Vec::new(),
                };
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
                    dims_expr(init, dims, grown);
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => dims_expr(expr, dims, grown),
        }
    }
}

fn dims_expr(expr: &Expr, dims: &mut HashMap<String, Option<usize>>, grown: &HashSet<String>) {
    if let ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } = &expr.kind {
        for name in &pat.names {
            dims.insert(name.clone(), None);
        }
    }
    // `for item in a.iter().cloned()` (or `.copied()`, after `rev`,
    // `skip`, ..) of a place of known shape: its items' (what a `collect`
    // is read as, `v.push(item)`).
    if let ExprKind::For { pat, iter, .. } = &expr.kind {
        if let (syn::Pat::Ident(ident), Some(items)) = (pat.syntax, copied_items(iter, dims)) {
            if ident.by_ref.is_none() && ident.subpat.is_none() {
                dims.insert(ident.ident.to_string(), Some(items));
            }
        }
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => dims_expr(child, dims, grown),
            Child::Block(block) => dims_block(block, dims, grown),
        }
    }
}

/// The shape of the items `iter` copies out of a place: `a.iter().copied()`
/// (`cloned()`, with `rev`, `skip(k)`, `take(k)`, `step_by(k)` between) of
/// an `a` of known shape, one index less; `None` for anything else.
fn copied_items(iter: &Expr, dims: &HashMap<String, Option<usize>>) -> Option<usize> {
    let ExprKind::Structural {
        receiver, method, ..
    } = &iter.unparenthesised().kind
    else {
        return None;
    };
    if !matches!(method.to_string().as_str(), "copied" | "cloned") {
        return None;
    }
    let mut source = &**receiver;
    loop {
        let ExprKind::Structural {
            receiver, method, ..
        } = &source.kind
        else {
            return None;
        };
        match method.to_string().as_str() {
            "rev" | "skip" | "take" | "step_by" => source = receiver,
            "iter" => return dims_of(receiver, dims)?.checked_sub(1),
            _ => return None,
        }
    }
}

/// The shape of each `Vec` a `let` binds empty (`Vec::new()`, `vec![]`)
/// from what is pushed onto it: one more than its items', where every
/// push that shows one agrees (`v.push(v[0])`, one of its own items, shows
/// none). Only names in `empty`.
pub(super) fn grown_dims(
    body: &Block,
    dims: &HashMap<String, Option<usize>>,
    empty: &HashSet<String>,
) -> HashMap<String, Option<usize>> {
    let found = std::cell::RefCell::new(HashMap::new());
    body.any_expr(&|expr| {
        let ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } = &expr.kind
        else {
            return false;
        };
        let ExprKind::Path(path) = &receiver.kind else {
            return false;
        };
        let (Some(ident), [item]) = (path.path.get_ident(), args.as_slice()) else {
            return false;
        };
        let name = ident.to_string();
        if *method != "push" || !empty.contains(&name) {
            return false;
        }
        let mut shape = dims_of(item, dims).map(|d| d + 1);
        // A call's value pushed (`qs.push(twice(x))`) onto a `Vec` the
        // body reads deeper (`qs[c][j]`): a vector call's, whose rows are
        // as deep as the reads show (a number's would not index).
        if matches!(item.unparenthesised().kind, ExprKind::Call { .. }) {
            let read = super::calls::index_depth(&body.stmts, &name);
            if read > 1 {
                shape = Some(read);
            }
        }
        if shape.is_none() && crate::text::mentions(item.source.to_token_stream(), &name) {
            return false;
        }
        found
            .borrow_mut()
            .entry(name)
            .and_modify(|known: &mut Option<usize>| {
                if *known != shape {
                    *known = None;
                }
            })
            .or_insert(shape);
        false
    });
    found.into_inner()
}

/// The names `let`s bind to an empty `Vec` (`Vec::new()`, `vec![]`,
/// `Vec::with_capacity(n)`) in `block` and the blocks inside it.
pub(super) fn empty_vec_lets(block: &Block, out: &mut HashSet<String>) {
    let_inits(block, &mut |name, init, _| {
        if init.is_empty_vec() {
            out.insert(name.to_owned());
        }
    });
}

/// The names of the `let`s without a value (`let y;`) in `block` and the
/// blocks inside it.
pub(super) fn deferred_lets(block: &Block, out: &mut Vec<String>) {
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
pub(super) fn assigned_dims(
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

/// How many indexings take a value of the type a `let` pattern names to
/// an `f64` (`f64`, `Vec<f64>`, `[[f64; 2]; 3]`, ...), if it names one.
fn pattern_dims(pat: &syn::Pat) -> Option<usize> {
    match pat {
        syn::Pat::Type(typed) => type_dims(&typed.ty),
        _ => None,
    }
}

/// How many indexings take a value of type `ty` to an `f64`: `f64`, and
/// arrays and `Vec`s of it, nested; `None` for any other type.
pub(super) fn type_dims(ty: &syn::Type) -> Option<usize> {
    match ty {
        syn::Type::Paren(paren) => type_dims(&paren.elem),
        syn::Type::Group(group) => type_dims(&group.elem),
        syn::Type::Array(array) => Some(type_dims(&array.elem)? + 1),
        syn::Type::Path(path) if path.qself.is_none() => {
            if crate::valid::is_f64(ty) {
                return Some(0);
            }
            let segment = path.path.segments.last()?;
            let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                return None;
            };
            match args.args.first()? {
                syn::GenericArgument::Type(elem)
                    if segment.ident == "Vec" && args.args.len() == 1 =>
                {
                    Some(type_dims(elem)? + 1)
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The shapes of the models' named fields (`m.w`, `m.b`), keyed
/// `"m.w"`, as the body uses them: the macro does not see the struct's
/// field types, but a field indexed `k` deep (`m.w[j]`) holds `k` levels,
/// and one that is an operand of arithmetic or of an elementary function
/// (`m.b * x`, `m.b.exp()`) is a number. A field used both ways, or
/// neither, gets no entry.
pub(super) fn model_field_dims(
    block: &Block,
    models: &HashSet<String>,
    dims: &mut HashMap<String, Option<usize>>,
) {
    fn field(expr: &Expr, models: &HashSet<String>) -> Option<String> {
        match &expr.kind {
            ExprKind::Paren(inner) => field(inner, models),
            ExprKind::Field {
                base,
                member: syn::Member::Named(member),
            } => {
                let model = field_base(base)?;
                models.contains(&model).then(|| format!("{model}.{member}"))
            }
            _ => None,
        }
    }
    fn indexed(expr: &Expr, models: &HashSet<String>) -> Option<(String, usize)> {
        match &expr.kind {
            ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
                match field(base, models) {
                    Some(name) => Some((name, 1)),
                    None => indexed(base, models).map(|(name, depth)| (name, depth + 1)),
                }
            }
            _ => None,
        }
    }
    let found = std::cell::RefCell::new(HashMap::<String, (usize, bool)>::new());
    // Fields whose items are models, not numbers: an item is the receiver
    // of a method or has fields (`self.layers[k].forward(x)`,
    // `self.layers[k].w`), or is borrowed by a `let` whose binding is
    // (`let layer = &self.layers[k]; layer.forward(x)`).
    let of_models = std::cell::RefCell::new(HashSet::<String>::new());
    fn used_as_model<'m, 'a>(expr: &'m Expr<'a>) -> Option<&'m Expr<'a>> {
        match &expr.kind {
            ExprKind::PlainMethod { receiver, .. } => Some(receiver),
            ExprKind::Field {
                base,
                member: syn::Member::Named(_),
            } => Some(base),
            _ => None,
        }
    }
    // The deepest part of a field passed as it is to a call (`dot(m.c,
    // m.pts[0])`), which may hold more levels than it is indexed by, and
    // the depths at which a part is a number (`m.pts[i][0] * 2.0`).
    let passed = std::cell::RefCell::new(HashMap::<String, usize>::new());
    let numeric = std::cell::RefCell::new(HashSet::<(String, usize)>::new());
    block.any_expr(&|expr| {
        let mut found = found.borrow_mut();
        if let Some((name, depth)) = indexed(expr, models) {
            let entry = found.entry(name).or_insert((0, false));
            entry.0 = entry.0.max(depth);
        }
        for operand in numeric_operands(expr) {
            if let Some(name) = field(operand, models) {
                found.entry(name).or_insert((0, false)).1 = true;
            }
            if let Some(part) = indexed(operand.unparenthesised(), models) {
                numeric.borrow_mut().insert(part);
            }
        }
        if let ExprKind::Call { args, .. } | ExprKind::PlainMethod { args, .. } = &expr.kind {
            for arg in args {
                let mut arg = arg.unparenthesised();
                if let ExprKind::Reference { expr, .. } = &arg.kind {
                    arg = expr.unparenthesised();
                }
                if let Some((name, depth)) = indexed(arg, models) {
                    let mut passed = passed.borrow_mut();
                    let entry = passed.entry(name).or_default();
                    *entry = (*entry).max(depth);
                }
            }
        }
        if let Some((name, _)) = used_as_model(expr).and_then(|part| indexed(part, models)) {
            of_models.borrow_mut().insert(name);
        }
        false
    });
    let receivers = std::cell::RefCell::new(HashSet::<String>::new());
    block.any_expr(&|expr| {
        if let Some(name) = used_as_model(expr).and_then(crate::flow::root) {
            receivers.borrow_mut().insert(name);
        }
        false
    });
    let receivers = receivers.into_inner();
    // A part bound by a `let` and indexed through its binding (`let row =
    // &self.table[t]; row[0]`, `self.table[t].clone()`): the field has the
    // part's indices and the binding's.
    // How deep `name` is indexed anywhere in `block`, counting a level
    // for each `for` that walks it (`for r in &rows { r[0] }`, `zip(row)`)
    // and the item's own indices.
    fn used_depth(block: &Block, name: &str) -> usize {
        used_depth_within(block, name, 4)
    }
    fn used_depth_within(block: &Block, name: &str, budget: usize) -> usize {
        let used = std::cell::Cell::new(super::calls::index_depth(&block.stmts, name));
        block.any_expr(&|expr| {
            if let ExprKind::For { pat, iter, .. } = &expr.kind {
                if budget > 0 && walks(iter, name) {
                    let item = match pat.names.as_slice() {
                        [item] => used_depth_within(block, item, budget - 1),
                        _ => 0,
                    };
                    used.set(used.get().max(1 + item));
                }
            }
            false
        });
        // And through a binding of it (`let r2 = row;`, `&row`,
        // `row.clone()`): as deep as that binding is used.
        if budget > 0 {
            let_inits(block, &mut |alias, init, _| {
                if alias != name
                    && matches!(&bound_part(init).kind, ExprKind::Path(path) if path.path.is_ident(name))
                {
                    used.set(used.get().max(used_depth_within(block, alias, budget - 1)));
                }
            });
        }
        used.get()
    }
    // Whether a `for`'s source walks `name`'s items: `name`, `&name`,
    // `name.iter()`, through adaptors and either side of a `zip`.
    fn walks(iter: &Expr, name: &str) -> bool {
        match &iter.kind {
            ExprKind::Paren(inner) | ExprKind::Reference { expr: inner, .. } => walks(inner, name),
            ExprKind::Path(path) => path.path.is_ident(name),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => match method.to_string().as_str() {
                "iter" | "copied" | "cloned" | "rev" | "enumerate" | "skip" | "take"
                | "step_by" => walks(receiver, name),
                "zip" => walks(receiver, name) || args.iter().any(|arg| walks(arg, name)),
                _ => false,
            },
            _ => false,
        }
    }
    fn bound_part<'m, 'a>(init: &'m Expr<'a>) -> &'m Expr<'a> {
        match &init.kind {
            ExprKind::Paren(inner) | ExprKind::Reference { expr: inner, .. } => bound_part(inner),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if args.is_empty() && matches!(method.to_string().as_str(), "clone" | "to_vec") => {
                bound_part(receiver)
            }
            _ => init,
        }
    }
    let_inits(block, &mut |name, init, _| {
        if let ExprKind::Reference { expr: part, .. } = &init.kind {
            if let (true, Some((field, _))) = (receivers.contains(name), indexed(part, models)) {
                of_models.borrow_mut().insert(field);
            }
        }
        if let Some((field, depth)) = indexed(bound_part(init), models) {
            let used = used_depth(block, name);
            // Passed whole to a call (`let h = m.wte[1].clone(); f(&h)`):
            // what the part holds is not seen, so the field has no shape
            // here (its adjoint is then shaped by its value).
            if used == 0 && passed_whole(block, name) {
                of_models.borrow_mut().insert(field.clone());
            }
            if used > 0 {
                let mut found = found.borrow_mut();
                let entry = found.entry(field).or_insert((0, false));
                entry.0 = entry.0.max(depth + used);
            }
        }
    });
    // A part pushed onto a `Vec` indexed through it (`emb.push(self.table[t]
    // .clone()); emb[0][1]`, what a `collect` of rows is read as): the
    // field has the part's indices and the item's.
    for_each_push(block, &|name, item| {
        if let Some((field, depth)) = indexed(bound_part(item), models) {
            let used = used_depth(block, name);
            if used > 1 {
                let mut found = found.borrow_mut();
                let entry = found.entry(field).or_insert((0, false));
                entry.0 = entry.0.max(depth + used - 1);
            }
        }
    });
    let of_models = of_models.into_inner();
    let (passed, numeric) = (passed.into_inner(), numeric.into_inner());
    for (name, (depth, number)) in found.into_inner() {
        if of_models.contains(&name) {
            continue;
        }
        // Indexed no deeper than a part passed to a call, and never a
        // number at that depth: what the part holds is not seen.
        if passed.get(&name).is_some_and(|&at| at >= depth)
            && !numeric.contains(&(name.clone(), depth))
        {
            continue;
        }
        match (depth, number) {
            (0, true) => dims.insert(name, Some(0)),
            (depth, false) if depth > 0 => dims.insert(name, Some(depth)),
            _ => None,
        };
    }
}

/// Whether `name` is an argument of a call in `block`, as it is (`f(h)`,
/// `f(&h)`, `x.forward(&h)`).
fn passed_whole(block: &Block, name: &str) -> bool {
    let is_name = |arg: &Expr| {
        let mut arg = arg.unparenthesised();
        if let ExprKind::Reference { expr, .. } = &arg.kind {
            arg = expr.unparenthesised();
        }
        matches!(&arg.kind, ExprKind::Path(path) if path.path.is_ident(name))
    };
    block.any_expr(&|expr| match &expr.kind {
        ExprKind::Call { args, .. } | ExprKind::PlainMethod { args, .. } => {
            args.iter().any(is_name)
        }
        _ => false,
    })
}

/// Calls `each` with the name and the item of every `name.push(item)` in
/// `block` onto a `Vec` by name, at any depth.
pub(super) fn for_each_push(block: &Block, each: &dyn Fn(&str, &Expr)) {
    block.any_expr(&|expr| {
        if let ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } = &expr.kind
        {
            if let (true, [item], ExprKind::Path(path)) =
                (*method == "push", args.as_slice(), &receiver.kind)
            {
                if let Some(name) = path.path.get_ident() {
                    each(&name.to_string(), item);
                }
            }
        }
        false
    });
}

/// Every `let name = init;` in `block`, at any depth.
pub fn let_inits<'m, 'a>(
    block: &'m Block<'a>,
    each: &mut dyn FnMut(&str, &'m Expr<'a>, &'m Pattern<'a>),
) {
    fn in_expr<'m, 'a>(
        expr: &'m Expr<'a>,
        each: &mut dyn FnMut(&str, &'m Expr<'a>, &'m Pattern<'a>),
    ) {
        for child in expr.children() {
            match child {
                Child::Expr(inner) => in_expr(inner, each),
                Child::Block(block) => let_inits(block, each),
            }
        }
    }
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                pat,
                name,
                init: Some(init),
                ..
            } => {
                if let Some(name) = name {
                    each(name, init, pat);
                }
                in_expr(init, each);
            }
            Stmt::Expr(expr, _) => in_expr(expr, each),
            _ => {}
        }
    }
}

/// The operands `expr` reads as numbers: of arithmetic, a comparison, an
/// elementary function, `powi`, `mul_add`.
fn numeric_operands<'m, 'a>(expr: &'m Expr<'a>) -> Vec<&'m Expr<'a>> {
    match &expr.kind {
        ExprKind::Binary { lhs, rhs, .. } | ExprKind::Compare { lhs, rhs, .. } => {
            vec![lhs, rhs]
        }
        ExprKind::Neg { operand, .. } | ExprKind::Elementary { operand, .. } => vec![operand],
        ExprKind::Powi { base, .. } => vec![base],
        ExprKind::Ternary { operands, .. } => operands.iter().map(|o| &**o).collect(),
        _ => Vec::new(),
    }
}

/// The names whose items `block` reads as numbers somewhere (`v[1] +
/// s`, `v[k].exp()`): a `Vec` of numbers, whatever is pushed onto it.
pub(super) fn items_read_as_numbers(block: &Block) -> HashSet<String> {
    read_as_numbers(block, &|operand| match &operand.unparenthesised().kind {
        ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
            ident_of(base)
        }
        _ => None,
    })
}

/// The names `block` reads as numbers somewhere (`u * u`, `u.exp()`):
/// whatever the shapes pass could not see of such a binding (`let u =
/// w[0];` of a tuple's part, whose type the macro cannot see), it is an
/// `f64`.
pub(super) fn numbers_by_use(block: &Block) -> HashSet<String> {
    read_as_numbers(block, &ident_of)
}

/// The names `name_of` finds in the operands of `block`'s arithmetic and
/// elementary functions.
fn read_as_numbers(block: &Block, name_of: &dyn Fn(&Expr) -> Option<String>) -> HashSet<String> {
    let found = std::cell::RefCell::new(HashSet::new());
    block.any_expr(&|expr| {
        found
            .borrow_mut()
            .extend(numeric_operands(expr).into_iter().filter_map(name_of));
        false
    });
    found.into_inner()
}

/// The name `expr` is, through parentheses.
fn ident_of(expr: &Expr) -> Option<String> {
    match &expr.unparenthesised().kind {
        ExprKind::Path(path) => Some(path.path.get_ident()?.to_string()),
        _ => None,
    }
}

/// How many indexings take `expr`'s value to an `f64`, if known.
/// The name a field's facts are kept under (`"m.w"`): of `m.w`, and of
/// `ms[k].w`, an item of a slice of models, whose items share one type.
fn field_base(base: &Expr) -> Option<String> {
    let path = match &base.kind {
        ExprKind::Path(path) => path,
        ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
            match &base.kind {
                ExprKind::Path(path) => path,
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(path.path.get_ident()?.to_string())
}

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
        // `p.0` of a tuple bound by name (see `dims_block`), `m.w` of a
        // model (see `model_field_dims`).
        ExprKind::Field { base, member } => {
            let name = field_base(base)?;
            let member = match member {
                syn::Member::Unnamed(index) => index.index.to_string(),
                syn::Member::Named(member) => member.to_string(),
            };
            dims.get(&format!("{name}.{member}")).copied()?
        }
        // `i as f64`: a number.
        ExprKind::Cast { ty, .. } if crate::valid::is_f64(ty) => Some(0),
        // A `loop`'s value: its `break`'s.
        ExprKind::Loop { body, .. } => dims_of(break_value(body)?, dims),
        ExprKind::Path(path) if crate::valid::is_f64_constant(&path.path) => Some(0),
        ExprKind::Path(path) => dims.get(&path.path.get_ident()?.to_string()).copied()?,
        ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
            dims_of(base, dims)?.checked_sub(1)
        }
        // `x[1..]`: a part of a slice, as deep as it.
        ExprKind::Index { base, .. } => dims_of(base, dims),
        ExprKind::Repeat { elem, .. } | ExprKind::VecRepeat { elem, .. } => {
            Some(dims_of(elem, dims)? + 1)
        }
        ExprKind::Array(items) | ExprKind::VecList(items) => {
            Some(dims_of(items.first()?, dims)? + 1)
        }
        ExprKind::Structural {
            receiver, method, ..
        } if matches!(method.to_string().as_str(), "clone" | "to_vec") => dims_of(receiver, dims),
        // `fold(0.5, |acc, t| ..)`: shaped like its start.
        ExprKind::Structural { method, args, .. } if *method == "fold" && args.len() == 2 => {
            dims_of(&args[0], dims)
        }
        // `[a, b].concat()`: one level less than its list of parts; an item
        // `pop`ped (`v.pop().unwrap()`) or `remove`d: one less than its `Vec`.
        ExprKind::Structural {
            receiver, method, ..
        } if *method == "concat" => match &receiver.kind {
            // Every part has the same items: any one that shows them.
            ExprKind::Array(parts) | ExprKind::VecList(parts) => {
                parts.iter().find_map(|part| part_dims(part, dims))
            }
            _ => dims_of(receiver, dims)?.checked_sub(1),
        },
        ExprKind::Structural {
            receiver, method, ..
        } if *method == "remove" => dims_of(receiver, dims)?.checked_sub(1),
        ExprKind::Structural {
            receiver, method, ..
        } if *method == "unwrap" => match &receiver.kind {
            ExprKind::Structural {
                receiver: popped,
                method: pop,
                ..
            } if *pop == "pop" => dims_of(popped, dims)?.checked_sub(1),
            _ => None,
        },
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

/// The shape of a part of a `concat` (`&x[1..3]`, `&v`, `v.clone()`,
/// `vec![a, b]`): its slice's.
fn part_dims(part: &Expr, dims: &HashMap<String, Option<usize>>) -> Option<usize> {
    match &part.kind {
        ExprKind::Reference { expr, .. } | ExprKind::Paren(expr) => part_dims(expr, dims),
        ExprKind::Index { base, index } if matches!(index.kind, ExprKind::Range { .. }) => {
            part_dims(base, dims)
        }
        _ => dims_of(part, dims),
    }
}

/// The names bound once, by a `let`, to a `Vec` the body shows
/// (`x.to_vec()`, `Vec::new()`, `Vec::with_capacity(n)`, `vec![..]`, a
/// `Vec` type, a `clone()` of one of these): what a chain's `collect()`
/// assigned to them builds (`chains`).
pub fn vec_bindings(function: &Function, bound: &HashMap<String, usize>) -> HashSet<String> {
    // Each `let`: whether it shows a `Vec`, and the name it clones.
    let mut lets: Vec<(String, bool, Option<String>)> = Vec::new();
    let_inits(&function.body, &mut |name, init, pat| {
        let typed =
            matches!(pat.syntax, syn::Pat::Type(typed) if super::super::chains::is_vec(&typed.ty));
        let shows_vec = typed
            || init.is_empty_vec()
            || matches!(init.kind, ExprKind::VecList(_) | ExprKind::VecRepeat { .. })
            || matches!(&init.kind, ExprKind::Structural { method, args, .. }
                if *method == "to_vec" && args.is_empty());
        let cloned = match &init.kind {
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if *method == "clone" && args.is_empty() => match &receiver.kind {
                ExprKind::Path(path) => path.path.get_ident().map(ToString::to_string),
                _ => None,
            },
            _ => None,
        };
        lets.push((name.to_owned(), shows_vec, cloned));
    });
    let once = |name: &String| bound.get(name).copied() == Some(1);
    let mut vecs: HashSet<String> = lets
        .iter()
        .filter(|(name, shows_vec, _)| *shows_vec && once(name))
        .map(|(name, ..)| name.clone())
        .collect();
    // `let mut y = z.clone();` of such a `Vec`, and of those in turn.
    loop {
        let more: Vec<String> = lets
            .iter()
            .filter(|(name, _, cloned)| {
                !vecs.contains(name)
                    && once(name)
                    && cloned.as_ref().is_some_and(|of| vecs.contains(of))
            })
            .map(|(name, ..)| name.clone())
            .collect();
        if more.is_empty() {
            return vecs;
        }
        vecs.extend(more);
    }
}

/// Whether every value of type `ty` has one shape, fixed by the type: an
/// `f64`, or an array of such values (`[[f64; 3]; 3]`).
fn fixed_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Paren(paren) => fixed_type(&paren.elem),
        syn::Type::Group(group) => fixed_type(&group.elem),
        syn::Type::Array(array) => fixed_type(&array.elem),
        _ => crate::valid::is_f64(ty),
    }
}

/// Whether `kind`'s values have one shape, fixed by the type.
fn fixed_kind(kind: &Kind) -> bool {
    match kind {
        Kind::Scalar => true,
        Kind::Array(elem, _) => fixed_kind(elem),
        _ => false,
    }
}

/// Whether `expr` is an array written out whose every part is one too, or
/// a number (`[[0.0; 3]; 3]`, `[[a, b], [c, d]]`): its rows share the
/// shape its type fixes.
fn fixed_literal(expr: &Expr, dims: &HashMap<String, Option<usize>>) -> bool {
    match &expr.unparenthesised().kind {
        ExprKind::Array(items) => {
            items.iter().all(|item| fixed_literal(item, dims))
                || items.iter().all(|item| dims_of(item, dims) == Some(0))
        }
        ExprKind::Repeat { elem, .. } => {
            fixed_literal(elem, dims) || dims_of(elem, dims) == Some(0)
        }
        _ => false,
    }
}

/// The bindings whose rows all have one shape, fixed by their type (see
/// [`Analysis::fixed_rows`](super::Analysis::fixed_rows)): parameters
/// that are arrays, slices or `Vec`s of numbers or of arrays of them, and
/// locals every binding of which is such an array written out, a copy of
/// such a binding (`m = a`, `a.clone()`, `a.to_vec()`), or typed as such
/// an array.
pub(super) fn fixed_rows(
    function: &Function,
    bound: &HashMap<String, usize>,
    dims: &HashMap<String, Option<usize>>,
) -> HashSet<String> {
    let mut fixed: HashSet<String> = function
        .params
        .iter()
        .filter(|param| match &param.kind {
            Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => fixed_kind(elem),
            _ => false,
        })
        .map(|param| param.ident.to_string())
        .collect();
    loop {
        let mut lets: HashMap<String, (usize, usize)> = HashMap::new();
        let_inits(&function.body, &mut |name, init, pat| {
            let copy_of = |expr: &Expr| match &expr.unparenthesised().kind {
                ExprKind::Path(path) => path
                    .path
                    .get_ident()
                    .is_some_and(|ident| fixed.contains(&ident.to_string())),
                _ => false,
            };
            let typed = matches!(pat.syntax, syn::Pat::Type(typed)
                if matches!(&*typed.ty, syn::Type::Array(_)) && fixed_type(&typed.ty));
            let fixed_init = typed
                || fixed_literal(init, dims)
                || copy_of(init)
                || matches!(&init.unparenthesised().kind, ExprKind::Structural {
                    receiver, method, args, ..
                } if (*method == "clone" || *method == "to_vec") && args.is_empty() && copy_of(receiver));
            let entry = lets.entry(name.to_string()).or_default();
            entry.0 += 1;
            entry.1 += usize::from(fixed_init);
        });
        let before = fixed.len();
        for (name, (count, fixed_count)) in lets {
            if count == fixed_count && bound.get(&name).copied() == Some(count) {
                fixed.insert(name);
            }
        }
        if fixed.len() == before {
            return fixed;
        }
    }
}
