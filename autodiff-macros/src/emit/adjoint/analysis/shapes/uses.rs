//! What the shape passes look at in a block: every `let` with its value,
//! every push onto a `Vec`, and the names read as numbers (an operand of
//! arithmetic or of an elementary function).

use std::collections::HashSet;

use crate::ast::{Block, Child, Expr, ExprKind, Pattern, Stmt};

/// Calls `each` with the name and the item of every `name.push(item)` in
/// `block` onto a `Vec` by name, at any depth.
pub(crate) fn for_each_push(block: &Block, each: &dyn Fn(&str, &Expr)) {
    block.any_expr(&|expr| {
        if let Some((receiver, item)) = expr.pushed() {
            if let ExprKind::Path(path) = &receiver.kind {
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
pub(crate) fn numeric_operands<'m, 'a>(expr: &'m Expr<'a>) -> Vec<&'m Expr<'a>> {
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
pub(crate) fn items_read_as_numbers(block: &Block) -> HashSet<String> {
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
pub(crate) fn numbers_by_use(block: &Block) -> HashSet<String> {
    let mut numbers = read_as_numbers(block, &ident_of);
    // What such a binding is given by name (`let y = loop { .. break h;
    // };`, `let y = if c { h } else { g };`) is a number too: the same
    // type, or the plain function would not build. Until nothing changes,
    // for `let a = loop { break b }; let c = loop { break a };`.
    loop {
        let mut found = Vec::new();
        let_inits(block, &mut |name, init, _| {
            if numbers.contains(name) {
                value_names(init, &mut found);
            }
        });
        let before = numbers.len();
        numbers.extend(found);
        if numbers.len() == before {
            return numbers;
        }
    }
}

/// The names `expr`'s value is given by: `expr` itself, a block's tail,
/// each arm's of an `if` or a `match`, each `break` value of a `loop`
/// (not of a loop inside it).
fn value_names(expr: &Expr, found: &mut Vec<String>) {
    let tail = |block: &Block, found: &mut Vec<String>| {
        if let Some(tail) = block.split_tail().1 {
            value_names(tail, found);
        }
    };
    match &expr.unparenthesised().kind {
        ExprKind::Path(_) => found.extend(ident_of(expr)),
        ExprKind::Block(None, block) => tail(block, found),
        ExprKind::If {
            then_branch,
            else_branch,
            ..
        } => {
            tail(then_branch, found);
            if let Some(other) = else_branch {
                value_names(other, found);
            }
        }
        ExprKind::Match { arms, .. } => {
            for arm in arms {
                value_names(&arm.body, found);
            }
        }
        // A labelled `break` may end a loop around this one.
        ExprKind::Loop { body, .. } => {
            for exit in super::bindings::breaks(body) {
                if let ExprKind::Break {
                    label: None,
                    value: Some(value),
                } = &exit.kind
                {
                    value_names(value, found);
                }
            }
        }
        _ => {}
    }
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
