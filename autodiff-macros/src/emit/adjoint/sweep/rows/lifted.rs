//! Rows that stay the same at every trip of the loop around the loop that
//! reads them (`a[i]` in `matmul`'s `for j .. { for k in 0..b.len() { s
//! += a[i][k] * b[k][j]; } }`), borrowed once before that loop's reverse
//! (see the parent module's doc).

use std::cell::Cell;

use super::super::*;
use super::{
    bindings, counted_range, every_trip, fresh_name, indices_fixed, inner_range_fixed, names_root,
    only_through, Row, Rows,
};

impl Sweep<'_> {
    pub(super) fn lifted(&self, key: &str, primal: bool, index: &str) -> bool {
        self.rows.iter().any(|rows| {
            rows.lifted.is_some()
                && rows.index == index
                && rows
                    .rows
                    .iter()
                    .any(|row| row.key == key && row.primal == primal)
        })
    }

    /// The rows that a loop of the body of `for pat in iter { body }` (a
    /// statement of the body itself, over a range) borrows by its own
    /// index (see the module's doc) and that stay the same at every trip
    /// of this loop: `a[i]` and `a_bar[i]` of `for j .. { for k in
    /// 0..n { s += a[i][k] * b[k][j]; } }`. They are borrowed once
    /// before this loop's reverse, not at each of its trips: where both
    /// ranges have a trip (the forward's first trip of this loop read
    /// the row over the inner range whole), else empty. Each row's
    /// binding, its indices and the inner range's names are bound and
    /// assigned nowhere in this loop's body (the inner range only reads
    /// lengths), and every mention of the binding in the body is the
    /// inner loop's `row[k]`, so the borrow is the only way the reverse
    /// reaches the row's adjoint while it lives.
    pub(in super::super) fn lifted_rows(
        &mut self,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        body: &Block,
    ) -> Vec<Rows> {
        let mut lifted = Vec::new();
        let syn::Pat::Ident(ident) = pat.syntax else {
            return lifted;
        };
        if ident.subpat.is_some() || ident.by_ref.is_some() {
            return lifted;
        }
        if !matches!(
            &iter.unparenthesised().kind,
            ExprKind::Range {
                start: Some(_),
                limits: syn::RangeLimits::HalfOpen(_),
                end: Some(_),
            }
        ) || contains_jump(body)
        {
            return lifted;
        }
        let outer = ident.ident.to_string();
        for stmt in &body.stmts {
            let Stmt::Expr(expr, _) = stmt else { continue };
            let ExprKind::For {
                pat: inner_pat,
                iter: inner_iter,
                body: inner,
                ..
            } = &expr.kind
            else {
                continue;
            };
            if let Some(rows) = self.lifted_from(&outer, body, inner_pat, inner_iter, inner) {
                lifted.push(rows);
            }
        }
        lifted
    }

    /// [`lifted_rows`](Self::lifted_rows) of one inner loop `for pat in
    /// iter { inner }` of `body`, the body of the loop over `outer`.
    fn lifted_from(
        &mut self,
        outer: &str,
        body: &Block,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        inner: &Block,
    ) -> Option<Rows> {
        let (index, start, end) = counted_range(pat, iter)?;
        if index == outer || !self.bounds_available(iter) || has_call(start) {
            return None;
        }
        // What the outer body binds and assigns, the inner range aside
        // (which only reads: `b.len()`, no other call).
        let mut bound = HashSet::new();
        let mut assigned = HashSet::new();
        let mut closures = false;
        for stmt in &body.stmts {
            if let Stmt::Expr(expr, _) = stmt {
                if matches!(&expr.kind, ExprKind::For { body: this, .. } if std::ptr::eq(this, inner))
                {
                    for stmt in &inner.stmts {
                        bindings(stmt, &mut bound, &mut assigned, &mut closures);
                    }
                    continue;
                }
            }
            bindings(stmt, &mut bound, &mut assigned, &mut closures);
        }
        if closures || bound.contains(&index) || assigned.contains(&index) {
            return None;
        }
        let fixed = |name: &str| {
            name != outer && name != index && !bound.contains(name) && !assigned.contains(name)
        };
        // The inner loop's index bound by that loop alone.
        if !inner_range_fixed(body, &index, (start, end), &fixed) {
            return None;
        }
        // Each row the inner loop reads at every trip, by its text.
        let every_trip = every_trip(inner, &index);
        let mut names = self.row_names();
        let mut rows: Vec<Row> = Vec::new();
        for row in every_trip {
            let key = row.source.to_token_stream().to_string();
            if rows.iter().any(|known| known.key == key) {
                continue;
            }
            let Some(root) = root(row) else { continue };
            let mentions = |expr: &Expr| names_root(expr, &root);
            if !fixed(&root)
                || !indices_fixed(row, &fixed)
                || !only_through(inner, &root, &key, &index)
                || body.count_exprs(&mentions)
                    != inner.count_exprs(&mentions) + iter.count_exprs(&mentions)
            {
                continue;
            }
            let mut fresh = |base: String| fresh_name(&mut names, base);
            let plain = root.trim_start_matches("r#");
            if self.fully_available(row) {
                rows.push(Row {
                    key: key.clone(),
                    primal: true,
                    bar: row.source.to_token_stream(),
                    name: fresh(format!("{plain}_row")),
                    live: None,
                    used: Cell::new(false),
                });
            }
            rows.extend(self.bar_row(row, key, || fresh(format!("{plain}_bar_row"))));
        }
        if rows.is_empty() {
            return None;
        }
        let zero = !start.is_int_literal() || start.source.to_token_stream().to_string() != "0";
        let (start, end) = (start.source.to_token_stream(), end.source.to_token_stream());
        Some(Rows {
            index,
            start: zero.then(|| start.clone()),
            rows,
            elements: Vec::new(),
            lifted: Some((start, end)),
        })
    }

    /// The reverse of a loop over `range` with the borrows of the rows
    /// that loops of its body left to it (`lifted_rows`) before it, each
    /// where both ranges have a trip, else empty.
    pub(in super::super) fn borrowing_lifted(
        &mut self,
        lifted: Vec<Rows>,
        range: &Expr,
        reverse: TokenStream,
    ) -> TokenStream {
        // Only a half-open range lends rows (`lifted_rows`): its test of
        // a trip is `start < end`.
        let ExprKind::Range {
            start: Some(start),
            end: Some(end),
            limits: syn::RangeLimits::HalfOpen(_),
        } = &range.unparenthesised().kind
        else {
            return reverse;
        };
        // `0..3`: a trip, as it says; no test.
        let test = |start: &TokenStream, end: &TokenStream| {
            let literal = |bound: &TokenStream| bound.to_string().parse::<u128>().ok();
            match (literal(start), literal(end)) {
                (Some(first), Some(last)) if first < last => None,
                _ => Some(quote!((#start < #end))),
            }
        };
        let outer = test(
            &start.source.to_token_stream(),
            &end.source.to_token_stream(),
        );
        let mut borrows = Vec::new();
        for rows in &lifted {
            for row in rows.rows.iter().filter(|row| row.live.is_some()) {
                self.guards.remove(&row.name.to_string());
            }
            let Some((start, end)) = &rows.lifted else {
                continue;
            };
            let tests: Vec<TokenStream> = outer.iter().cloned().chain(test(start, end)).collect();
            let trip = (!tests.is_empty()).then(|| quote!(#(#tests)&&*));
            for row in rows.rows.iter().filter(|row| row.used.get()) {
                let (name, bar) = (&row.name, &row.bar);
                let slice = match &rows.start {
                    None => quote!(#bar[..#end]),
                    Some(_) => quote!(#bar[#start..#end]),
                };
                borrows.push(match (&row.live, row.primal, &trip) {
                    (_, true, None) => quote!(let #name = &#slice;),
                    (_, true, Some(trip)) => quote!(let #name = if #trip { &#slice } else { &[] };),
                    (None, false, None) => quote!(let #name = &mut #slice;),
                    (None, false, Some(trip)) => {
                        quote!(let #name = if #trip { &mut #slice } else { &mut [] };)
                    }
                    (Some(live), false, trip) => {
                        let trip = trip.as_ref().map(|trip| quote!(&& #trip));
                        // A mention under the flag, as `accumulate` counts them.
                        if let Some(root) = bar_root(bar) {
                            let mentions = text::count(bar, &root);
                            if let Some((_, count)) = self.guards.get_mut(&root) {
                                *count += mentions;
                            }
                        }
                        quote!(let #name = if #live #trip { &mut #slice } else { &mut [] };)
                    }
                });
            }
        }
        if borrows.is_empty() {
            return reverse;
        }
        quote! {
            {
                #(#borrows)*
                #reverse
            }
        }
    }
}
