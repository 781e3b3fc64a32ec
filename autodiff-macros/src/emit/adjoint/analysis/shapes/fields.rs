//! The shapes of a model's named fields (`m.w`), from how the body uses
//! them: indexed, or computed with as numbers.

use std::collections::{HashMap, HashSet};

use super::uses::numeric_operands;
use super::{field_base, for_each_push, let_inits};
use crate::ast::{Block, Expr, ExprKind};

/// The shapes of the models' named fields (`m.w`, `m.b`), keyed
/// `"m.w"`, as the body uses them: the macro does not see the struct's
/// field types, but a field indexed `k` deep (`m.w[j]`) holds `k` levels,
/// and one that is an operand of arithmetic or of an elementary function
/// (`m.b * x`, `m.b.exp()`) is a number. A field used both ways, or
/// neither, gets no entry.
pub(crate) fn model_field_dims(
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
        let used = std::cell::Cell::new(super::super::calls::index_depth(&block.stmts, name));
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
