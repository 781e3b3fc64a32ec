//! Bindings that hold references to rows: what a `for` over a slice's
//! items binds (`for x in xs`, `for (x, &y) in xs.iter().zip(ys)`,
//! `for row in &w`) and `let x = &xs[i];`. A `for` over such a binding
//! (`w.iter().zip(x)`, `for v in x`) walks the row by index as it walks
//! `x.iter()`: the row is a place the reverse sweep reads again.

use std::collections::{HashMap, HashSet};

use crate::ast::{Block, Child, Expr, ExprKind, Stmt};

/// What the items of a `for`'s iterator are, position by position.
enum Yields {
    /// `&T`: a slice's items, `v.iter()`'s.
    Reference,
    /// Copies (`copied()`, an `enumerate` index).
    Value,
    /// `zip` and `enumerate` pairs.
    Pair(Box<Yields>, Box<Yields>),
    Unknown,
}

/// The bindings every binding of which is a reference to a row (`bound`
/// counts each name's bindings): slice parameters (`slices`) and what
/// the body binds from them, found again until nothing changes, so that a
/// row of a row (`for m in ms { for row in m .. }`) is one too.
pub(super) fn reference_bindings(
    body: &Block,
    slices: &HashSet<String>,
    bound: &HashMap<String, usize>,
) -> HashSet<String> {
    let mut refs = HashSet::new();
    for _ in 0..4 {
        let mut counts = HashMap::new();
        let known = Known {
            slices,
            refs: &refs,
        };
        known.block(body, &mut counts);
        let next: HashSet<String> = counts
            .into_iter()
            .filter(|(name, count)| bound.get(name) == Some(count))
            .map(|(name, _)| name)
            .collect();
        if next == refs {
            break;
        }
        refs = next;
    }
    refs
}

struct Known<'k> {
    slices: &'k HashSet<String>,
    refs: &'k HashSet<String>,
}

impl Known<'_> {
    fn block(&self, block: &Block, counts: &mut HashMap<String, usize>) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let {
                    name: Some(name),
                    init: Some(init),
                    ..
                } => {
                    if matches!(
                        init.kind,
                        ExprKind::Reference {
                            mutability: None,
                            ..
                        }
                    ) {
                        *counts.entry(name.clone()).or_default() += 1;
                    }
                    self.expr(init, counts);
                }
                Stmt::Let {
                    init: Some(init), ..
                }
                | Stmt::Expr(init, _) => self.expr(init, counts),
                _ => {}
            }
        }
    }

    fn expr(&self, expr: &Expr, counts: &mut HashMap<String, usize>) {
        if let ExprKind::For { pat, iter, .. } = &expr.kind {
            bind(pat.syntax, &self.yields(iter), counts);
        }
        for child in expr.children() {
            match child {
                Child::Expr(child) => self.expr(child, counts),
                Child::Block(block) => self.block(block, counts),
            }
        }
    }

    /// What iterating `expr` (as a `for` or a `zip` takes it) yields.
    fn yields(&self, expr: &Expr) -> Yields {
        match &expr.kind {
            ExprKind::Path(path) => match path.path.get_ident() {
                Some(ident)
                    if self.slices.contains(&ident.to_string())
                        || self.refs.contains(&ident.to_string()) =>
                {
                    Yields::Reference
                }
                _ => Yields::Unknown,
            },
            ExprKind::Reference {
                mutability: None, ..
            } => Yields::Reference,
            ExprKind::Paren(inner) => self.yields(inner),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => match (method.to_string().as_str(), args.as_slice()) {
                ("iter", []) => Yields::Reference,
                ("copied" | "cloned", []) => match self.yields(receiver) {
                    Yields::Reference => Yields::Value,
                    _ => Yields::Unknown,
                },
                ("enumerate", []) => {
                    Yields::Pair(Box::new(Yields::Value), Box::new(self.yields(receiver)))
                }
                ("zip", [other]) => Yields::Pair(
                    Box::new(self.yields(receiver)),
                    Box::new(self.yields(other)),
                ),
                ("rev", []) | ("step_by" | "skip" | "take", [_]) => self.yields(receiver),
                _ => Yields::Unknown,
            },
            _ => Yields::Unknown,
        }
    }
}

/// Counts the names `pat` binds to references.
fn bind(pat: &syn::Pat, yields: &Yields, counts: &mut HashMap<String, usize>) {
    match (pat, yields) {
        (syn::Pat::Type(typed), _) => bind(&typed.pat, yields, counts),
        (syn::Pat::Paren(paren), _) => bind(&paren.pat, yields, counts),
        (syn::Pat::Ident(ident), Yields::Reference)
            if ident.subpat.is_none() && ident.by_ref.is_none() =>
        {
            *counts.entry(ident.ident.to_string()).or_default() += 1;
        }
        (syn::Pat::Tuple(tuple), Yields::Pair(first, second)) if tuple.elems.len() == 2 => {
            bind(&tuple.elems[0], first, counts);
            bind(&tuple.elems[1], second, counts);
        }
        // `for (x, y) in data` of a slice of tuples: each name binds a
        // reference into the item (`x: &Vec<f64>`), a row where it is
        // walked (`w.iter().zip(x)`).
        (syn::Pat::Tuple(tuple), Yields::Reference) => {
            for elem in &tuple.elems {
                bind(elem, &Yields::Reference, counts);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {

    fn refs_of(source: &str) -> Vec<String> {
        let item: syn::ItemFn = syn::parse_str(source).expect("a function");
        let macros = crate::lower::MacroBodies::default();
        let function = crate::lower::function(&item, &macros);
        let analysis = super::super::Analysis::new(&function);
        let mut found: Vec<String> = analysis.references.into_iter().collect();
        found.sort();
        found
    }

    #[test]
    fn rows_bound_from_slices_and_borrowed_places_are_references() {
        let found = refs_of(
            "fn f(w: &[f64], xs: &[Vec<f64>], ys: &[f64], ms: &[Vec<Vec<f64>>]) -> f64 {
                let mut s = 0.0;
                for (x, &y) in xs.iter().zip(ys) { s += y; }
                for (i, r) in xs.iter().enumerate() { s += r[i]; }
                for m in ms { for row in m { s += row[0]; } }
                let q = &xs[0];
                let v = xs[0].clone();
                for a in v.iter().copied() { s += a; }
                for (p, t) in w.iter().zip(&xs[1]) { s += p * t; }
                s
            }",
        );
        // `p` and `t` are references to numbers, the others to rows; `v`
        // is a copy and `a` a number.
        assert_eq!(found, ["m", "p", "q", "r", "row", "t", "x"]);
    }

    #[test]
    fn a_name_also_bound_to_a_value_is_not_one() {
        let found = refs_of(
            "fn f(xs: &[Vec<f64>]) -> f64 {
                let mut s = 0.0;
                for x in xs { s += x[0]; }
                let x = xs[0].clone();
                for y in xs.iter().cloned() { s += y[0]; }
                s + x[1]
            }",
        );
        assert!(found.is_empty(), "{found:?}");
    }
}
