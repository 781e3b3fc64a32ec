//! What a range loop's reverse needs of the bindings its body reads but
//! never changes, saved once after the loop rather than at every trip: a
//! number (`sum` in `for j in 0..n { o += e[j] / sum * v[j][c]; }`),
//! pushed once and popped once before the reversed loop, or a row of
//! numbers a loop of the body reads whole (`e[j]` for `j in 0..end`),
//! held once as a row (`Stack::hold_row`) and given back after the
//! reverse.

use super::rows::{bindings, expr_paths, names_ident, only_through, stmt_paths};
use super::*;

/// A binding a loop's body reads and never changes, saved once after the
/// loop (see `Sweep::loop_held`): a number, or a row of numbers that a
/// loop of the body reads whole, `row[j]` for `j in 0..end` (`row_end`).
pub(super) struct Held {
    ident: Ident,
    row_end: Option<TokenStream>,
}

impl Held {
    pub(super) fn name(&self) -> String {
        self.ident.to_string()
    }
}

impl<'m> Sweep<'m> {
    /// Numbers a range loop's body reads but never binds or changes, and
    /// that the reverse does not have (`sum` in `for j in 0..n { o += e[j]
    /// / sum * v[j][c]; }`, a binding of an outer loop's body): each
    /// statement's reverse that reads one would push it at every trip.
    /// Instead the forward pushes it once after the loop (it is what it
    /// was at every trip) and the reverse pops it once before the
    /// reversed loop, where it is then available (see `held_code`). On
    /// `f64`, in a body with no `return`, for a loop no jump leaves and
    /// with no closure.
    pub(super) fn loop_held(&self, pat: &crate::ast::Pattern, body: &Block) -> Vec<Held> {
        if self.dual || self.early || contains_jump(body) {
            return Vec::new();
        }
        let mut bound = HashSet::new();
        let mut assigned = HashSet::new();
        let mut closures = false;
        for stmt in &body.stmts {
            bindings(stmt, &mut bound, &mut assigned, &mut closures);
        }
        if closures {
            return Vec::new();
        }
        let mut read: Vec<Ident> = Vec::new();
        for stmt in &body.stmts {
            stmt_paths(stmt, &mut read);
        }
        let mut held: Vec<Held> = Vec::new();
        for ident in read {
            let name = ident.to_string();
            if pat.names.contains(&name)
                || bound.contains(&name)
                || assigned.contains(&name)
                || held.iter().any(|known| known.ident == ident)
                || !self.an.active.contains(&name)
                || self.available(&name)
            {
                continue;
            }
            match self.an.dims.get(&name) {
                Some(Some(0)) => held.push(Held {
                    ident,
                    row_end: None,
                }),
                Some(Some(1)) => {
                    let fixed = |other: &str| {
                        !pat.names.iter().any(|bound| bound == other)
                            && !bound.contains(other)
                            && !assigned.contains(other)
                    };
                    if let Some(end) = read_whole(body, &name, &fixed) {
                        held.push(Held {
                            ident,
                            row_end: Some(end),
                        });
                    }
                }
                _ => {}
            }
        }
        held
    }

    /// The push after the loop and the pop before its reverse of the
    /// numbers and rows `loop_held` found that the reverse reads
    /// (`reverse`, the reversed loop, names them), and what gives the rows
    /// back after it. A row is saved only where the loop has a trip (its
    /// range, `range`, is as it was: the loop keeps nothing).
    pub(super) fn held_code(
        &self,
        held: &[Held],
        range: &Expr,
        reverse: &TokenStream,
    ) -> (Vec<TokenStream>, Vec<TokenStream>, Vec<TokenStream>) {
        let (stack, adjoint) = (&self.stack, &self.adjoint);
        let read: Vec<&Held> = held
            .iter()
            .filter(|held| names_ident(reverse, &held.ident))
            .collect();
        // Whether the loop has a trip: `a..b` when `a < b`, `a..=b` when
        // `a <= b` (the first test of both once read `0..=0` as empty and
        // saved no row, which the reverse then indexed: a panic).
        let trip = match &range.unparenthesised().kind {
            ExprKind::Range {
                start: Some(start),
                end: Some(end),
                limits,
            } => {
                let (start, end) = (start.source.to_token_stream(), end.source.to_token_stream());
                match limits {
                    syn::RangeLimits::HalfOpen(_) => quote!((#start) < (#end)),
                    syn::RangeLimits::Closed(_) => quote!((#start) <= (#end)),
                }
            }
            _ => quote!(true),
        };
        let pushes = read
            .iter()
            .map(|held| {
                let ident = &held.ident;
                match &held.row_end {
                    // Read as the statements' own saves read it: an
                    // `&f64` too.
                    None => quote!(#stack.push(#adjoint::f64_of(#ident));),
                    Some(end) => quote! {
                        #stack.hold_row(&#ident, if #trip { #end } else { 0 });
                    },
                }
            })
            .collect();
        let pops = read
            .iter()
            .rev()
            .map(|held| {
                let ident = &held.ident;
                match &held.row_end {
                    None => quote!(let #ident = #stack.pop();),
                    Some(_) => quote!(let #ident = #stack.held_row();),
                }
            })
            .collect();
        let given_back = read
            .iter()
            .filter(|held| held.row_end.is_some())
            .map(|held| {
                let ident = &held.ident;
                quote!(#stack.recycle(#ident);)
            })
            .collect();
        (pushes, pops, given_back)
    }
}

/// `end` of the one loop `for j in 0..end { .. }`, a statement of `body`
/// itself, that reads `row[j]` at every trip (a statement of its body,
/// outside branches), where every mention of `row` in `body` is that
/// `row[j]`, `j` is bound by no other loop of `body` and assigned nowhere
/// in it, and the names of `end` are `fixed`: each trip of the loop
/// around reads `row[..end]` whole, which is as much as saving it once.
fn read_whole(body: &Block, row: &str, fixed: &impl Fn(&str) -> bool) -> Option<TokenStream> {
    let mut found = None;
    for stmt in &body.stmts {
        let Stmt::Expr(expr, _) = stmt else { continue };
        let ExprKind::For {
            pat,
            iter,
            body: inner,
            ..
        } = &expr.kind
        else {
            continue;
        };
        let Some((index, start, end)) = super::rows::counted_range(pat, iter) else {
            continue;
        };
        if !start.is_int_literal() || start.source.to_token_stream().to_string() != "0" {
            continue;
        }
        let every_trip = super::rows::every_trip(inner, &index)
            .iter()
            .any(|base| matches!(&base.kind, ExprKind::Path(path) if path.path.is_ident(row)));
        if every_trip {
            found = Some((index, end, inner));
            break;
        }
    }
    let (index, end, inner) = found?;
    let mut bound = HashSet::new();
    let mut assigned = HashSet::new();
    let mut closures = false;
    for stmt in &body.stmts {
        bindings(stmt, &mut bound, &mut assigned, &mut closures);
    }
    let mut inner_bound = HashSet::new();
    let mut inner_assigned = HashSet::new();
    for stmt in &inner.stmts {
        bindings(stmt, &mut inner_bound, &mut inner_assigned, &mut closures);
    }
    // `j` bound by that loop alone (`bound` has the loop's own pattern).
    let loops_binding = body.count_exprs(&|expr| {
        matches!(&expr.kind, ExprKind::For { pat, .. }
            if pat.names.contains(&index))
    });
    let mut end_names = Vec::new();
    expr_paths(end, &mut end_names);
    let whole_body = only_through(body, row, row, &index);
    (loops_binding == 1
        && !closures
        && !inner_bound.contains(&index)
        && !inner_assigned.contains(&index)
        && !assigned.contains(&index)
        && whole_body
        && end_names.iter().all(|name| fixed(&name.to_string())))
    .then(|| end.source.to_token_stream())
}
