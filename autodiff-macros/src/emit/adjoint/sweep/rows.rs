//! Rows a range loop reaches by its own index: in `for j in 0..n { s +=
//! w1[i][j] * x[j]; }` the reverse adds into `w1_bar[i][j]` at every
//! trip. Written so, each trip loads `w1_bar[i]`'s pointer and length
//! again (for all LLVM knows, the store into the row may change the list
//! of rows) and checks `j` against it, and the loop stays scalar. The
//! reverse borrows the row once before the loop, as a slice of the
//! loop's range (`let w1_bar_row = &mut w1_bar[i][..n];`), and indexes
//! that: no reload, no check, and the loop vectorises. A row whose values
//! the reverse reads as the forward left them (`x[j]` above, `a[i][k]` in
//! a `matmul`) is borrowed the same way, shared (`let x_row = &x[..n];`).
//!
//! Borrowing the range up front reads no element the loop would not: a
//! row qualifies only where the forward reads `row[j]` at every trip (in
//! a statement of the loop's body itself, outside any branch, loop or
//! closure, in a loop that no jump leaves), so the row's adjoint, shaped
//! like the row, holds the whole range; and the borrow is made only when
//! the range has a trip. Every other mention of the row's binding in the
//! body is the same `row[j]` (so the borrow is the only way the reverse
//! reaches that adjoint while it lives), the row's indices and the loop's
//! index are bound and assigned nowhere in the body, and an adjoint that
//! a callee adds into only under a flag (`Sweep::guard`) is left as it is.
//!
//! A row that stays the same at every trip of the loop around (`a[i]` in
//! `matmul`'s `for j .. { for k in 0..b.len() { s += a[i][k] * b[k][j];
//! } }`) is borrowed once before that loop's reverse instead of at each
//! of its trips (`lifted_rows`), under the test that both ranges have a
//! trip (else empty), where the inner loop is a statement of the outer
//! one's body itself and the row's binding, its indices and the inner
//! range's names are bound and assigned nowhere in the outer body.

use std::cell::Cell;

use super::*;

mod lifted;

/// The rows one loop's reverse borrows: the loop's index, where its range
/// starts (`None` for 0), and each row by its source text.
pub(super) struct Rows {
    index: String,
    start: Option<TokenStream>,
    rows: Vec<Row>,
    elements: Vec<Element>,
    /// Rows of a loop of the body of a loop around, borrowed before the
    /// reverse of that loop around (see `lifted_rows`): the inner loop's
    /// range, `(start, end)`.
    lifted: Option<(TokenStream, TokenStream)>,
}

/// A number the loop's body only adds to or subtracts from at every trip,
/// at a place fixed in the loop (`q[t][c] += x[t][r] * wq[r][c];` in a
/// loop over `r`): the reverse reads its adjoint (`q_bar[t][c]`) as the
/// seed of each trip and writes it never, so it is read once before the
/// loop (`let q_bar_item = q_bar[t][c];`) and not through the rows at
/// every trip, where a store into another adjoint's row could have
/// changed it as far as LLVM knows.
struct Element {
    /// The place as the body writes it (`q[t][c]`), which names it.
    key: String,
    /// Its adjoint (`q_bar[t][c]`) and the copy's name (`q_bar_item`).
    bar: TokenStream,
    name: Ident,
    /// Whether the reverse read it, so that it is read before the loop.
    used: Cell<bool>,
}

struct Row {
    /// The row as the body writes it (`w1[i]`), which names it.
    key: String,
    /// Whether this is the row's value (`w1[i]`, borrowed shared, which
    /// the reverse reads), not its adjoint (borrowed mutably).
    primal: bool,
    /// Its adjoint (`w1_bar[i]`) or value, and the slice's name
    /// (`w1_bar_row`, `w1_row`).
    bar: TokenStream,
    name: Ident,
    /// The flag of an adjoint a callee adds into only where its caller
    /// has one (`Sweep::guard`): the row is borrowed under it, empty
    /// otherwise, and added into under it.
    live: Option<Ident>,
    /// Whether the reverse indexed it, so that it is borrowed.
    used: Cell<bool>,
}

impl<'m> Sweep<'m> {
    /// The rows the reverse of `for pat in iter { body }` may borrow
    /// before it runs (see the module's doc), or `None`.
    pub(super) fn loop_rows(
        &mut self,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        body: &Block,
    ) -> Option<Rows> {
        let (index, start, _) = counted_range(pat, iter)?;
        let start = (!start.is_int_literal() || start.source.to_token_stream().to_string() != "0")
            .then(|| start.source.to_token_stream());
        self.rows_by_index(index, start, body)
    }

    /// [`loop_rows`](Self::loop_rows) of a loop over `index` from `start`
    /// (`None` for 0) whose body is `body`.
    pub(super) fn rows_by_index(
        &mut self,
        index: String,
        start: Option<TokenStream>,
        body: &Block,
    ) -> Option<Rows> {
        if contains_jump(body) {
            return None;
        }
        let mut bound = HashSet::new();
        let mut assigned = HashSet::new();
        let mut closures = false;
        for stmt in &body.stmts {
            bindings(stmt, &mut bound, &mut assigned, &mut closures);
        }
        if closures || bound.contains(&index) || assigned.contains(&index) {
            return None;
        }
        // Each row read at every trip, by its text.
        let every_trip = every_trip(body, &index);
        let mut rows: Vec<Row> = Vec::new();
        let mut names = self.row_names();
        for row in every_trip {
            let key = row.source.to_token_stream().to_string();
            if rows.iter().any(|known| known.key == key) {
                continue;
            }
            let Some(root) = root(row) else { continue };
            // The same row at every trip: not `m[i]` of `m[i][i]`.
            let fixed =
                |name: &str| name != index && !bound.contains(name) && !assigned.contains(name);
            if !fixed(&root)
                || !indices_fixed(row, &fixed)
                || !only_through(body, &root, &key, &index)
            {
                continue;
            }
            let mut fresh = |base: String| fresh_name(&mut names, base);
            let root = root.trim_start_matches("r#");
            // Its value, where the reverse reads it as the forward did.
            if self.fully_available(row) && !self.lifted(&key, true, &index) {
                rows.push(Row {
                    key: key.clone(),
                    primal: true,
                    bar: row.source.to_token_stream(),
                    name: fresh(format!("{root}_row")),
                    live: None,
                    used: Cell::new(false),
                });
            }
            if self.lifted(&key, false, &index) {
                continue;
            }
            rows.extend(self.bar_row(row, key, || fresh(format!("{root}_bar_row"))));
        }
        let mut elements: Vec<Element> = Vec::new();
        for stmt in &body.stmts {
            let Stmt::Expr(expr, _) = stmt else { continue };
            let ExprKind::CompoundAssign {
                op: Arith::Add | Arith::Sub,
                target,
                value,
                ..
            } = &expr.kind
            else {
                continue;
            };
            if !matches!(target.kind, ExprKind::Index { .. })
                || matches!(
                    value.unparenthesised().kind,
                    ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(..)
                )
                || !self.root_active(target)
                || !self.scalar(target)
            {
                continue;
            }
            let key = target.source.to_token_stream().to_string();
            if elements.iter().any(|known| known.key == key) {
                continue;
            }
            let Some(root) = root(target) else { continue };
            let fixed =
                |name: &str| name != index && !bound.contains(name) && !assigned.contains(name);
            if root == index
                || bound.contains(&root)
                || !indices_fixed(target, &fixed)
                || !only_added_to(body, &root, &key)
            {
                continue;
            }
            let Ok(bar) = self.bar_place(target) else {
                continue;
            };
            if bar_root(&bar).is_some_and(|bar_root| self.guards.contains_key(&bar_root)) {
                continue;
            }
            let root = root.trim_start_matches("r#");
            elements.push(Element {
                key,
                bar,
                name: fresh_name(&mut names, format!("{root}_bar_item")),
                used: Cell::new(false),
            });
        }
        if rows.is_empty() && elements.is_empty() {
            return None;
        }
        Some(Rows {
            index,
            start,
            rows,
            elements,
            lifted: None,
        })
    }

    /// Whether a loop around borrows the row `key` of the loop over
    /// `index` already (`lifted_rows`), as its value with `primal`.
    /// The names the rows and elements borrowed so far took.
    fn row_names(&self) -> HashSet<String> {
        self.rows
            .iter()
            .flat_map(|rows| {
                let rows_names = rows.rows.iter().map(|row| row.name.to_string());
                rows_names.chain(rows.elements.iter().map(|element| element.name.to_string()))
            })
            .collect()
    }

    /// The borrow of `row`'s adjoint (keyed `key`), named by `name` once
    /// it has one, under the flag of an adjoint a callee adds into only
    /// where its caller has one; `None` where the row has no adjoint place.
    fn bar_row(&mut self, row: &Expr, key: String, name: impl FnOnce() -> Ident) -> Option<Row> {
        let bar = self.bar_place(row).ok()?;
        let name = name();
        let live = bar_root(&bar)
            .and_then(|bar_root| self.guards.get(&bar_root))
            .map(|(live, _)| live.clone());
        if let Some(live) = &live {
            self.guard(&name, live.clone());
        }
        Some(Row {
            key,
            primal: false,
            bar,
            name,
            live,
            used: Cell::new(false),
        })
    }

    /// The copy of `place`'s adjoint that a loop around reads once before
    /// its reverse runs (see `Element`), where there is one.
    pub(super) fn hoisted_element(&self, place: &Expr) -> Option<TokenStream> {
        let key = place.source.to_token_stream().to_string();
        self.rows.iter().rev().find_map(|rows| {
            let found = rows.elements.iter().find(|known| known.key == key)?;
            found.used.set(true);
            Some(found.name.to_token_stream())
        })
    }

    /// `row_bar[index]` (with `primal`, `row[index]`) through a borrowed
    /// row, where `index` is the loop's of a loop around that borrows it.
    pub(super) fn row_element(&self, row: &Expr, at: &Expr, primal: bool) -> Option<TokenStream> {
        let ExprKind::Path(path) = &at.kind else {
            return None;
        };
        let index = path.path.get_ident()?.to_string();
        let at = at.source.to_token_stream();
        let key = row.source.to_token_stream().to_string();
        self.rows.iter().rev().find_map(|rows| {
            if rows.index != index {
                return None;
            }
            let found = rows
                .rows
                .iter()
                .find(|known| known.key == key && known.primal == primal)?;
            found.used.set(true);
            let name = &found.name;
            Some(match &rows.start {
                None => quote!(#name[#at]),
                Some(start) => quote!(#name[#at - (#start)]),
            })
        })
    }

    /// The reverse `for` of a loop, after the borrows of the rows it used,
    /// under the test that the range has a trip.
    pub(super) fn borrowing_rows(
        &mut self,
        rows: Rows,
        range: &Expr,
        reverse: TokenStream,
    ) -> TokenStream {
        let ExprKind::Range {
            start: Some(start),
            end: Some(end),
            ..
        } = &range.unparenthesised().kind
        else {
            return self.borrowing_between(rows, None, reverse);
        };
        let bounds = (start.source.to_token_stream(), end.source.to_token_stream());
        self.borrowing_between(rows, Some((bounds, has_a_trip(start, end))), reverse)
    }

    /// [`borrowing_rows`](Self::borrowing_rows) for a range `start..end`
    /// (`bounds`, `None` where the loop is over no such range), with
    /// whether it has a trip as written.
    pub(super) fn borrowing_between(
        &mut self,
        rows: Rows,
        bounds: Option<((TokenStream, TokenStream), bool)>,
        reverse: TokenStream,
    ) -> TokenStream {
        for row in rows.rows.iter().filter(|row| row.live.is_some()) {
            self.guards.remove(&row.name.to_string());
        }
        let used: Vec<&Row> = rows.rows.iter().filter(|row| row.used.get()).collect();
        let read: Vec<&Element> = rows
            .elements
            .iter()
            .filter(|element| element.used.get())
            .collect();
        if used.is_empty() && read.is_empty() {
            return reverse;
        }
        let Some(((start, end), trip)) = bounds else {
            return reverse;
        };
        let mut borrows = Vec::new();
        for row in used {
            let (name, bar) = (&row.name, &row.bar);
            let mutability = (!row.primal).then(|| quote!(mut));
            let slice = match &rows.start {
                None => quote!(&#mutability #bar[..#end]),
                Some(_) => quote!(&#mutability #bar[#start..#end]),
            };
            borrows.push(match &row.live {
                None => quote!(let #name = #slice;),
                Some(live) => {
                    // A mention under the flag, as `accumulate` counts them.
                    if let Some(root) = bar_root(bar) {
                        let mentions = text::count(bar, &root);
                        if let Some((_, count)) = self.guards.get_mut(&root) {
                            *count += mentions;
                        }
                    }
                    quote!(let #name = if #live { #slice } else { &mut [] };)
                }
            });
        }
        // Read where the range has a trip: the forward's first trip added
        // to the very place, so its adjoint, shaped like it, holds it.
        for element in read {
            let (name, bar) = (&element.name, &element.bar);
            borrows.push(quote!(let #name = #bar;));
        }
        if trip {
            return quote! {
                {
                    #(#borrows)*
                    #reverse
                }
            };
        }
        quote! {
            if #start < #end {
                #(#borrows)*
                #reverse
            }
        }
    }
}

/// Whether `start..end` has a trip as written (`0..3`: literals).
pub(super) fn has_a_trip(start: &Expr, end: &Expr) -> bool {
    let literal = |bound: &Expr| match &bound.kind {
        ExprKind::Lit(syn::Lit::Int(int)) => int.base10_parse::<u128>().ok(),
        _ => None,
    };
    matches!((literal(start), literal(end)), (Some(first), Some(last)) if first < last)
}

/// Whether the loop over `index` from `start` to `end`, a loop of
/// `body`, is the only loop of `body` binding `index`, and its range
/// reads only names that `fixed` accepts.
pub(super) fn inner_range_fixed(
    body: &Block,
    index: &str,
    (start, end): (&Expr, &Expr),
    fixed: &impl Fn(&str) -> bool,
) -> bool {
    let loops_binding = body.count_exprs(
        &|expr| matches!(&expr.kind, ExprKind::For { pat, .. } if pat.names.iter().any(|name| name == index)),
    );
    let mut range_names = Vec::new();
    expr_paths(start, &mut range_names);
    expr_paths(end, &mut range_names);
    loops_binding == 1 && range_names.iter().all(|name| fixed(&name.to_string()))
}

/// Each name `stmt` reads by a path of one identifier, at any depth.
/// `for i in start..end`: the index's name and the bounds, where the
/// pattern is a plain name and the range half-open with both bounds.
pub(super) fn counted_range<'e, 'a>(
    pat: &crate::ast::Pattern,
    iter: &'e Expr<'a>,
) -> Option<(String, &'e Expr<'a>, &'e Expr<'a>)> {
    let syn::Pat::Ident(ident) = pat.syntax else {
        return None;
    };
    if ident.subpat.is_some() || ident.by_ref.is_some() {
        return None;
    }
    let ExprKind::Range {
        start: Some(start),
        limits: syn::RangeLimits::HalfOpen(_),
        end: Some(end),
    } = &iter.unparenthesised().kind
    else {
        return None;
    };
    Some((ident.ident.to_string(), start, end))
}

/// The rows `block`'s statements read at every trip of a loop over
/// `index` (`w[i]` of `w[i][j]`), in order, repeats included.
pub(super) fn every_trip<'e, 'a>(block: &'e Block<'a>, index: &str) -> Vec<&'e Expr<'a>> {
    let mut found = Vec::new();
    for stmt in &block.stmts {
        let expr = match stmt {
            Stmt::Let {
                init: Some(init), ..
            } => init,
            Stmt::Expr(expr, _) => expr,
            _ => continue,
        };
        straight_line(expr, &mut |place| {
            if let Some(row) = row_of(place, index) {
                found.push(row);
            }
        });
    }
    found
}

pub(super) fn stmt_paths(stmt: &Stmt, out: &mut Vec<Ident>) {
    match stmt {
        Stmt::Let {
            init: Some(init), ..
        } => expr_paths(init, out),
        Stmt::Expr(inner, _) => expr_paths(inner, out),
        _ => {}
    }
}

/// Each name `inner` reads by a path of one identifier, at any depth.
pub(super) fn expr_paths(inner: &Expr, out: &mut Vec<Ident>) {
    if let ExprKind::Path(path) = &inner.kind {
        if let Some(ident) = path.path.get_ident() {
            out.push(ident.clone());
        }
    }
    for child in inner.children() {
        match child {
            Child::Expr(child) => expr_paths(child, out),
            Child::Block(block) => {
                for stmt in &block.stmts {
                    stmt_paths(stmt, out);
                }
            }
        }
    }
}

/// Whether `tokens` has the identifier `ident`, at any depth.
pub(super) fn names_ident(tokens: &TokenStream, ident: &Ident) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(found) => found == *ident,
        proc_macro2::TokenTree::Group(group) => names_ident(&group.stream(), ident),
        _ => false,
    })
}

/// `base`, numbered past the names in `names`, which it joins.
pub(super) fn fresh_name(names: &mut HashSet<String>, base: String) -> Ident {
    let mut name = base.clone();
    let mut k = 1;
    while names.contains(&name) {
        k += 1;
        name = format!("{base}_{k}");
    }
    names.insert(name.clone());
    Ident::new(&name, Span::mixed_site())
}

/// The names `stmt` binds (by `let`s, patterns) and assigns (or borrows
/// mutably, or calls a method on), at any depth, and whether it has a
/// closure.
pub(super) fn bindings(
    stmt: &Stmt,
    bound: &mut HashSet<String>,
    assigned: &mut HashSet<String>,
    closures: &mut bool,
) {
    fn expr(
        inner: &Expr,
        bound: &mut HashSet<String>,
        assigned: &mut HashSet<String>,
        closures: &mut bool,
    ) {
        match &inner.kind {
            ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } => {
                bound.extend(pat.names.iter().cloned())
            }
            ExprKind::Match { arms, .. } => {
                for arm in arms {
                    bound.extend(arm.pat.names.iter().cloned());
                }
            }
            ExprKind::Closure { .. } => *closures = true,
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                assigned.extend(root(target));
            }
            ExprKind::Reference {
                mutability: Some(_),
                expr: place,
            } => assigned.extend(root(place)),
            ExprKind::Structural { receiver, .. } | ExprKind::PlainMethod { receiver, .. } => {
                assigned.extend(root(receiver));
            }
            ExprKind::PlainMacro { names, .. } => assigned.extend(names.iter().cloned()),
            _ => {}
        }
        for child in inner.children() {
            match child {
                Child::Expr(child) => expr(child, bound, assigned, closures),
                Child::Block(block) => {
                    for stmt in &block.stmts {
                        bindings(stmt, bound, assigned, closures);
                    }
                }
            }
        }
    }
    match stmt {
        Stmt::Let { pat, init, .. } => {
            bound.extend(pat.names.iter().cloned());
            if let Some(init) = init {
                expr(init, bound, assigned, closures);
            }
        }
        Stmt::Expr(inner, _) => expr(inner, bound, assigned, closures),
        Stmt::Item(_) => {}
    }
}

/// Calls `found` on each place `expr` reads whenever it runs: not inside
/// a branch, a loop, a closure, a block, or the right of `&&`/`||`.
pub(super) fn straight_line<'e, 'a>(expr: &'e Expr<'a>, found: &mut impl FnMut(&'e Expr<'a>)) {
    match &expr.kind {
        ExprKind::If { .. }
        | ExprKind::Match { .. }
        | ExprKind::For { .. }
        | ExprKind::While { .. }
        | ExprKind::Loop { .. }
        | ExprKind::Closure { .. }
        | ExprKind::Block(..)
        | ExprKind::Let { .. }
        | ExprKind::Logic { .. }
        | ExprKind::Ternary { .. } => return,
        _ => {}
    }
    found(expr);
    for child in expr.children() {
        if let Child::Expr(child) = child {
            straight_line(child, found);
        }
    }
}

/// `row` of `row[index]` where `index` is the loop's index and `row` a
/// binding or an element of one (`w1`, `w1[i]`).
pub(super) fn row_of<'e, 'a>(place: &'e Expr<'a>, index: &str) -> Option<&'e Expr<'a>> {
    let ExprKind::Index { base, index: at } = &place.kind else {
        return None;
    };
    let ExprKind::Path(path) = &at.kind else {
        return None;
    };
    if path.path.get_ident()? != index {
        return None;
    }
    fn chain(expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::Path(path) => path.path.get_ident().is_some(),
            ExprKind::Index { base, index } => {
                chain(base)
                    && (index.is_int_literal()
                        || matches!(&index.kind, ExprKind::Path(path) if path.path.get_ident().is_some()))
            }
            _ => false,
        }
    }
    chain(base).then_some(&**base)
}

/// Whether each index of the row `row` (`w1[i]`: `i`) is a literal or a
/// name that `fixed` accepts.
fn indices_fixed(row: &Expr, fixed: &impl Fn(&str) -> bool) -> bool {
    match &row.kind {
        ExprKind::Path(_) => true,
        ExprKind::Index { base, index } => {
            let index_fixed = match &index.kind {
                ExprKind::Path(path) => path
                    .path
                    .get_ident()
                    .is_some_and(|name| fixed(&name.to_string())),
                _ => index.is_int_literal(),
            };
            index_fixed && indices_fixed(base, fixed)
        }
        _ => false,
    }
}

/// Whether every mention of the binding `root` in `body` is the target of
/// a `+=` or `-=` statement of the body itself whose target's text is
/// `key` (and so whose value does not mention it).
fn only_added_to(body: &Block, root: &str, key: &str) -> bool {
    let mentions = |expr: &Expr| names_root(expr, root);
    let mut fitting = 0;
    for stmt in &body.stmts {
        if let Stmt::Expr(expr, _) = stmt {
            if let ExprKind::CompoundAssign {
                op: Arith::Add | Arith::Sub,
                target,
                ..
            } = &expr.kind
            {
                if target.source.to_token_stream().to_string() == key {
                    fitting += target.count_exprs(&mentions);
                }
            }
        }
    }
    body.count_exprs(&mentions) == fitting
}

/// Whether `expr` is the path of the one identifier `root`.
fn names_root(expr: &Expr, root: &str) -> bool {
    matches!(&expr.kind, ExprKind::Path(path)
        if path.path.get_ident().is_some_and(|ident| ident == root))
}

/// Whether every mention of the binding `root` in `body` is the element
/// `row[index]` of the row whose text is `key`.
pub(super) fn only_through(body: &Block, root: &str, key: &str, index: &str) -> bool {
    fn through(expr: &Expr, root: &str, key: &str, index: &str) -> usize {
        if row_of(expr, index).is_some_and(|row| row.source.to_token_stream().to_string() == key) {
            return expr.count_exprs(&|expr| names_root(expr, root));
        }
        expr.children()
            .into_iter()
            .map(|child| match child {
                Child::Expr(child) => through(child, root, key, index),
                Child::Block(block) => in_block(block, &|expr| through(expr, root, key, index)),
            })
            .sum()
    }
    fn in_block(block: &Block, count: &dyn Fn(&Expr) -> usize) -> usize {
        block
            .stmts
            .iter()
            .map(|stmt| match stmt {
                Stmt::Let {
                    init: Some(init), ..
                } => count(init),
                Stmt::Expr(expr, _) => count(expr),
                _ => 0,
            })
            .sum()
    }
    let all = body.count_exprs(&|expr| names_root(expr, root));
    let fitting = in_block(body, &|expr| through(expr, root, key, index));
    all == fitting
}
