//! A pattern and its value taken apart into leaves, one name (or `_`) and
//! the value it binds each: through tuples, arrays, references and types,
//! and into the components of a tuple-valued `if` or `match`.

use super::syntax::{
    binds, binds_a_name_of, block_of, guard_pure, is_place, plain_index, pure, tail_only,
};
use super::{Leaf, Splitter};
use crate::lower::unparen;

impl Splitter {
    /// Splits `pat` (typed `ty`) bound to `value` into `out`; `false` if
    /// some part does not split.
    pub(super) fn leaves(
        &self,
        pat: &syn::Pat,
        ty: Option<&syn::Type>,
        value: &syn::Expr,
        out: &mut Vec<Leaf>,
    ) -> bool {
        let value = unparen(value);
        match pat {
            syn::Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
                out.push(Leaf {
                    pat: pat.clone(),
                    ty: ty.cloned(),
                    value: value.clone(),
                });
                true
            }
            syn::Pat::Wild(_) => {
                out.push(Leaf {
                    pat: pat.clone(),
                    ty: None,
                    value: value.clone(),
                });
                true
            }
            syn::Pat::Paren(inner) => self.leaves(&inner.pat, ty, value, out),
            syn::Pat::Tuple(tuple) => {
                let n = tuple.elems.len();
                let types: Vec<Option<&syn::Type>> = match ty {
                    None => vec![None; n],
                    Some(syn::Type::Tuple(types)) if types.elems.len() == n => {
                        types.elems.iter().map(Some).collect()
                    }
                    Some(_) => return false,
                };
                let Some(parts) = self.components(value, n) else {
                    return false;
                };
                tuple
                    .elems
                    .iter()
                    .zip(types)
                    .zip(&parts)
                    .all(|((pat, ty), part)| self.leaves(pat, ty, part, out))
            }
            syn::Pat::Slice(slice) => {
                let n = slice.elems.len();
                let elem = match ty {
                    None => None,
                    Some(syn::Type::Array(array)) => Some(&*array.elem),
                    Some(_) => return false,
                };
                let parts: Vec<syn::Expr> = match value {
                    syn::Expr::Array(array) if array.elems.len() == n => {
                        array.elems.iter().cloned().collect()
                    }
                    // `p`, or a row of it (`m[0]` of `let [[a, b], ..] = m;`),
                    // whose index no name the pattern binds is part of (the
                    // `let`s after the first would read the new one).
                    place if self.array_place(place) && !binds_a_name_of(pat, place) => (0..n)
                        .map(|i| {
                            let i = proc_macro2::Literal::usize_unsuffixed(i);
                            syn::parse_quote!(#place[#i])
                        })
                        .collect(),
                    _ => return false,
                };
                slice
                    .elems
                    .iter()
                    .zip(&parts)
                    .all(|(pat, part)| self.leaves(pat, elem, part, out))
            }
            _ => false,
        }
    }

    /// An array parameter of numbers (`self.arrays`) or a call's value,
    /// or a literal index into one at any depth (`m[0]`).
    fn array_place(&self, expr: &syn::Expr) -> bool {
        match expr {
            // (A call's value taken apart by a slice pattern is an array:
            // Rust takes no `Vec` apart so. Its elements copy.)
            syn::Expr::Path(path) => path.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                self.arrays.contains(&name) || self.calls.contains(&name)
            }),
            // A row by a literal or by an index the split `let`s, one after
            // another, read alike (`m[i]`, `m[k + 1]` in a loop over `k`).
            syn::Expr::Index(index) => plain_index(&index.index) && self.array_place(&index.expr),
            _ => false,
        }
    }

    /// The `n` components of a tuple-valued expression: a tuple, or an
    /// `if` or `match` whose branches are tuples (component `i` is then
    /// the same `if` choosing between the branches' components `i`; its
    /// condition, evaluated once per component, has no call or write).
    fn components(&self, value: &syn::Expr, n: usize) -> Option<Vec<syn::Expr>> {
        match unparen(value) {
            syn::Expr::Tuple(tuple) if tuple.elems.len() == n => {
                Some(tuple.elems.iter().cloned().collect())
            }
            // `r.sin_cos()` is `(r.sin(), r.cos())`, as the recording twin
            // reads it (`lower/calls.rs`).
            syn::Expr::MethodCall(call)
                if call.method == "sin_cos"
                    && call.args.is_empty()
                    && call.turbofish.is_none()
                    && n == 2
                    && pure(&call.receiver) =>
            {
                let receiver = &call.receiver;
                let span = call.method.span();
                let (sin, cos) = (syn::Ident::new("sin", span), syn::Ident::new("cos", span));
                Some(vec![
                    syn::parse_quote!(#receiver.#sin()),
                    syn::parse_quote!(#receiver.#cos()),
                ])
            }
            syn::Expr::If(if_) if pure(&if_.cond) => {
                let then = tail_only(&if_.then_branch)?;
                let then = self.components(then, n)?;
                let (_, other) = if_.else_branch.as_ref()?;
                let other = self.components(other, n)?;
                Some(
                    then.into_iter()
                        .zip(other)
                        .map(|(then, other)| {
                            let mut if_ = if_.clone();
                            if_.then_branch.stmts = vec![syn::Stmt::Expr(then, None)];
                            if_.else_branch = Some((
                                if_.else_branch.as_ref().expect("checked above").0,
                                Box::new(block_of(other)),
                            ));
                            syn::Expr::If(if_)
                        })
                        .collect(),
                )
            }
            syn::Expr::Match(match_)
                if pure(&match_.expr)
                    && match_
                        .arms
                        .iter()
                        .all(|arm| guard_pure(&arm.pat) && !binds(&arm.pat)) =>
            {
                let arms = match_
                    .arms
                    .iter()
                    .map(|arm| self.components(&arm.body, n))
                    .collect::<Option<Vec<_>>>()?;
                Some(
                    (0..n)
                        .map(|i| {
                            let mut match_ = match_.clone();
                            for (arm, parts) in match_.arms.iter_mut().zip(&arms) {
                                *arm.body = parts[i].clone();
                                arm.comma.get_or_insert_with(Default::default);
                            }
                            syn::Expr::Match(match_)
                        })
                        .collect(),
                )
            }
            syn::Expr::Block(block) if block.attrs.is_empty() && block.label.is_none() => {
                self.components(tail_only(&block.block)?, n)
            }
            // A tuple held in a binding (`let (a, b) = pair;`): its fields,
            // which copy (or move) as the pattern does.
            place @ (syn::Expr::Path(_) | syn::Expr::Field(_))
                if is_place(place)
                    && !matches!(place, syn::Expr::Path(path)
                        if path.path.get_ident().is_some_and(|name| self.calls.contains(&name.to_string()))) =>
            {
                Some(
                    (0..n)
                        .map(|k| {
                            let k = syn::Index::from(k);
                            syn::parse_quote!(#place.#k)
                        })
                        .collect(),
                )
            }
            _ => None,
        }
    }
}
