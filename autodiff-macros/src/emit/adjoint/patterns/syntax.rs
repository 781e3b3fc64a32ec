//! Questions about syntax that splitting a pattern asks: whether a block
//! has a pattern `let`, a value is pure or a place, an index is plain, a
//! type or a literal holds numbers; and the rewriting of a block's tails
//! into assignments.

use std::collections::HashSet;

use quote::ToTokens;

use crate::lower::unparen;

pub(super) fn block_has_pattern_let(block: &syn::Block) -> bool {
    block.stmts.iter().any(|stmt| match stmt {
        syn::Stmt::Local(local) => {
            let pat = match &local.pat {
                syn::Pat::Type(typed) => &*typed.pat,
                pat => pat,
            };
            matches!(
                pat,
                syn::Pat::Tuple(_) | syn::Pat::Slice(_) | syn::Pat::Wild(_)
            ) || local
                .init
                .as_ref()
                .is_some_and(|init| has_pattern_let(&init.expr))
        }
        syn::Stmt::Expr(expr, Some(_)) if destructured(expr).is_some() => true,
        syn::Stmt::Expr(expr, _) => has_pattern_let(expr),
        _ => false,
    })
}

/// `(a, b) = (e, f)` or `[a, b] = [e, f]`, distinct names assigned the
/// components of a literal as long: the names and the components. (A `_`
/// target is refused before the adjoint is written.)
pub(super) fn destructured(expr: &syn::Expr) -> Option<(Vec<&syn::Ident>, Vec<&syn::Expr>)> {
    use syn::Expr as E;
    let E::Assign(assign) = expr else {
        return None;
    };
    if !assign.attrs.is_empty() {
        return None;
    }
    let (targets, values): (Vec<&E>, Vec<&E>) =
        match (unparen(&assign.left), unparen(&assign.right)) {
            (E::Tuple(left), E::Tuple(right)) => {
                (left.elems.iter().collect(), right.elems.iter().collect())
            }
            (E::Array(left), E::Array(right)) => {
                (left.elems.iter().collect(), right.elems.iter().collect())
            }
            _ => return None,
        };
    if targets.len() != values.len() || targets.is_empty() {
        return None;
    }
    let targets = targets
        .into_iter()
        .map(|target| match target {
            E::Path(path) if path.qself.is_none() && path.attrs.is_empty() => path.path.get_ident(),
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let distinct: HashSet<&syn::Ident> = targets.iter().copied().collect();
    (distinct.len() == targets.len()).then_some((targets, values))
}

/// Whether a block nested in `expr` (where `Splitter::nested` looks) has
/// a pattern `let`.
fn has_pattern_let(expr: &syn::Expr) -> bool {
    use syn::Expr as E;
    match expr {
        E::Block(block) => block_has_pattern_let(&block.block),
        E::If(if_) => {
            block_has_pattern_let(&if_.then_branch)
                || if_
                    .else_branch
                    .as_ref()
                    .is_some_and(|(_, other)| has_pattern_let(other))
        }
        E::ForLoop(for_) => block_has_pattern_let(&for_.body),
        E::While(while_) => block_has_pattern_let(&while_.body),
        E::Loop(loop_) => block_has_pattern_let(&loop_.body),
        E::Match(match_) => match_.arms.iter().any(|arm| has_pattern_let(&arm.body)),
        E::Paren(paren) => has_pattern_let(&paren.expr),
        _ => false,
    }
}

/// `value` (an `if` or a `match` whose branches end in an `n`-tuple) with
/// each branch ending by assigning the tuple's components to `targets`
/// (`None`: evaluated, `let _ = ..;`), as a statement.
pub(super) fn assign_tails(value: &syn::Expr, targets: &[Option<syn::Ident>]) -> Option<syn::Expr> {
    match value {
        syn::Expr::If(if_) => {
            let mut if_ = if_.clone();
            assign_block(&mut if_.then_branch, targets)?;
            let (_, other) = if_.else_branch.as_mut()?;
            **other = assign_tails(unparen(other), targets)?;
            Some(syn::Expr::If(if_))
        }
        syn::Expr::Block(block) if block.attrs.is_empty() && block.label.is_none() => {
            let mut block = block.clone();
            assign_block(&mut block.block, targets)?;
            Some(syn::Expr::Block(block))
        }
        // An arm that binds a name is not matched again in the reverse
        // sweep (the binding may move the scrutinee): the sweep pushes the
        // arm taken, and what the arm's reverse reads of its bindings.
        syn::Expr::Match(match_) => {
            let mut match_ = match_.clone();
            for arm in &mut match_.arms {
                let body = match unparen(&arm.body) {
                    syn::Expr::Block(block) if block.attrs.is_empty() && block.label.is_none() => {
                        syn::Expr::Block(block.clone())
                    }
                    other => syn::parse_quote!({ #other }),
                };
                *arm.body = assign_tails(&body, targets)?;
            }
            Some(syn::Expr::Match(match_))
        }
        _ => None,
    }
}

/// A branch's block ending in a tuple (or in an `if`, `match` or block
/// that does), its tail made the assignments.
fn assign_block(block: &mut syn::Block, targets: &[Option<syn::Ident>]) -> Option<()> {
    let Some(syn::Stmt::Expr(tail, None)) = block.stmts.pop() else {
        return None;
    };
    match unparen(&tail) {
        syn::Expr::Tuple(tuple) if tuple.elems.len() == targets.len() => {
            for (target, elem) in targets.iter().zip(&tuple.elems) {
                block.stmts.push(match target {
                    Some(target) => syn::parse_quote!(#target = #elem;),
                    None => syn::parse_quote!(let _ = #elem;),
                });
            }
        }
        inner @ (syn::Expr::If(_) | syn::Expr::Match(_) | syn::Expr::Block(_)) => {
            let inner = assign_tails(inner, targets)?;
            block.stmts.push(syn::Stmt::Expr(inner, None));
        }
        _ => return None,
    }
    Some(())
}

/// The tail of a block with nothing else in it.
pub(super) fn tail_only(block: &syn::Block) -> Option<&syn::Expr> {
    match block.stmts.as_slice() {
        [syn::Stmt::Expr(tail, None)] => Some(tail),
        _ => None,
    }
}

/// `expr` as an `else` branch: an `if` as it is, else in a block.
pub(super) fn block_of(expr: syn::Expr) -> syn::Expr {
    match expr {
        syn::Expr::If(_) => expr,
        other => syn::parse_quote!({ #other }),
    }
}

/// A condition that may be evaluated once per component: no call, no
/// macro, no assignment, so evaluating it again changes nothing.
pub(super) fn pure(expr: &syn::Expr) -> bool {
    use syn::Expr as E;
    match expr {
        E::Lit(_) | E::Path(_) => true,
        E::Paren(e) => pure(&e.expr),
        E::Unary(e) => pure(&e.expr),
        E::Binary(e) => {
            !crate::ast::is_compound_assignment(&e.op) && pure(&e.left) && pure(&e.right)
        }
        E::Field(e) => pure(&e.base),
        E::Index(e) => pure(&e.expr) && pure(&e.index),
        E::Cast(e) => pure(&e.expr),
        _ => false,
    }
}

/// Whether a match arm's pattern binds a name: a binding may move the
/// scrutinee, which each component's `match` reads again. `None` and
/// other capitalised names are constants or variants, not bindings.
pub(super) fn binds(pat: &syn::Pat) -> bool {
    use syn::Pat as P;
    match pat {
        P::Ident(ident) => {
            ident.subpat.is_some()
                || !ident
                    .ident
                    .to_string()
                    .starts_with(|c: char| c.is_ascii_uppercase())
        }
        P::Lit(_) | P::Range(_) | P::Wild(_) | P::Path(_) | P::Rest(_) => false,
        P::Guard(guarded) => binds(&guarded.pat),
        P::Or(or) => or.cases.iter().any(binds),
        P::Paren(paren) => binds(&paren.pat),
        P::Tuple(tuple) => tuple.elems.iter().any(binds),
        P::TupleStruct(tuple) => tuple.elems.iter().any(binds),
        P::Slice(slice) => slice.elems.iter().any(binds),
        P::Reference(reference) => binds(&reference.pat),
        _ => true,
    }
}

/// A match arm's guard, if it has one, is [`pure`].
pub(super) fn guard_pure(pat: &syn::Pat) -> bool {
    match pat {
        syn::Pat::Guard(guarded) => pure(&guarded.guard) && guard_pure(&guarded.pat),
        _ => true,
    }
}

fn is_f64(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(path) if path.qself.is_none() && path.path.is_ident("f64"))
}

/// `f64`, or an array of them at any depth (`[f64; 2]`): copied whole by
/// a pattern as by an index (`let [r0, r1] = m;` of `m: [[f64; 2]; 2]`).
pub(super) fn numbers(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(array) => numbers(&array.elem),
        ty => is_f64(ty),
    }
}

/// A binding or a field of one (`pair`, `state.pair`): read twice, it is
/// the same value.
pub(super) fn is_place(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(path) => path.qself.is_none() && path.path.get_ident().is_some(),
        syn::Expr::Field(field) => is_place(&field.base),
        _ => false,
    }
}

/// An index with nothing in it that could change or act between the
/// `let`s a pattern splits into: an integer literal, a name, or `+`, `-`,
/// `*` of them (`m[k + 1]`).
pub(super) fn plain_index(index: &syn::Expr) -> bool {
    match index {
        syn::Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Int(_)),
        syn::Expr::Path(path) => path.path.get_ident().is_some(),
        syn::Expr::Paren(paren) => plain_index(&paren.expr),
        syn::Expr::Binary(binary) => {
            matches!(
                binary.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_)
            ) && plain_index(&binary.left)
                && plain_index(&binary.right)
        }
        _ => false,
    }
}

/// Whether `pat` binds a name that `expr` reads.
pub(super) fn binds_a_name_of(pat: &syn::Pat, expr: &syn::Expr) -> bool {
    let mut read = HashSet::new();
    crate::text::identifiers(expr.to_token_stream(), &mut read);
    crate::lower::pattern_names(pat)
        .iter()
        .any(|name| read.contains(name))
}

/// An array literal whose items are numbers as far as they show: rows of
/// rows with no `vec!` in them, or items of which one at least computes
/// or is a float literal (`[x - c, 0.0]`; `[v, w]` of two names may hold `Vec`s, which
/// a pattern moves and an index cannot).
pub(super) fn numbers_literal(expr: &syn::Expr) -> bool {
    let syn::Expr::Array(array) = unparen(expr) else {
        return false;
    };
    if array.elems.is_empty() {
        return false;
    }
    // Rows of rows (`[[x0], [y]]`): numbers, bar a `vec!` among them.
    if array
        .elems
        .iter()
        .all(|item| matches!(unparen(item), syn::Expr::Array(_)))
    {
        return array.elems.iter().all(|row| match unparen(row) {
            syn::Expr::Array(row) => row.elems.iter().all(|item| match unparen(item) {
                syn::Expr::Array(_) => numbers_literal(item),
                item => !is_vec_macro(item),
            }),
            _ => false,
        });
    }
    array.elems.iter().any(|item| match unparen(item) {
        syn::Expr::Binary(_) | syn::Expr::Unary(_) => true,
        // `x.sin()`, an `f64` method of the table.
        syn::Expr::MethodCall(call) => {
            crate::vocabulary::method(&call.method.to_string()).is_some()
        }
        syn::Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Float(_)),
        _ => false,
    }) && !array
        .elems
        .iter()
        .any(|item| matches!(unparen(item), syn::Expr::Array(_)) || is_vec_macro(unparen(item)))
}

/// `vec![..]`, a `Vec` (`dbg!(x)` is its operand).
fn is_vec_macro(expr: &syn::Expr) -> bool {
    matches!(expr, syn::Expr::Macro(mac) if mac.mac.path.is_ident("vec"))
}
