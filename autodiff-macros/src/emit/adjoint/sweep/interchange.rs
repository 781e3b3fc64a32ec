//! A sum over an inner loop reversed with the loops swapped: `matmul`'s
//! `for j in 0..m { let mut s = 0.0; for k in 0..n { s += a[i][k] *
//! b[k][j]; } row.push(s); }` reads `b[k][j]` down a column, a row of
//! `Vec`s loaded and checked at every `(j, k)`. Its reverse runs the
//! outer loop first, saving each trip's adjoint of the sum (`s_bar`, which
//! the inner loop's reverse only reads) where the inner loop's reverse
//! was, then the inner loop's reverse over `k` outside and `j` inside,
//! each `s_bar` read back: `b[k]` and its adjoint's row are borrowed once
//! per `k` (`rows_by_index`), and `b[k][j]` read along them.
//!
//! Each adjoint item gets the same additions in the same order, so the
//! gradient is the same bit for bit: every value the inner reverse reads
//! is the forward's (places the reverse reads as they are, at names the
//! outer body neither binds nor assigns; no value saved, so no pop), and
//! it writes only adjoints of places each indexed by `j` or `k` through
//! its own binding (distinct adjoints, one text per binding), which no
//! other statement of the outer body mentions. An item indexed by `k`
//! alone gets its additions in `j`'s reversed order both ways, one by
//! `j` alone in `k`'s, one by both a single one. The inner range reads
//! names the outer body neither binds nor assigns, so it is the same at
//! every trip; no jump leaves either loop.
//!
//! Swapped only where it reads along rows what it read down columns:
//! some place is `row[j]` of a row indexed by `k`, and none `row[k]` of a
//! row indexed by `j` (the head's `q[i][c] * k[j][c]` stays as it is).

use super::rows::{bindings, counted_range, has_a_trip, inner_range_fixed, names_ident};
use super::*;

/// The stack's methods that save or restore values.
const SAVES: &[&str] = &[
    "push",
    "push_slice",
    "pop",
    "pop_run",
    "hold_row",
    "held_row",
    "push_trips",
    "pop_trips",
    "push_index",
    "pop_index",
    "push_arm",
    "pop_arm",
];

/// A loop whose reverse is swapped with that of the loop of its body
/// (see the module's doc), while its body is swept.
pub(super) struct Interchange {
    /// The inner loop's body, by address.
    inner: usize,
    /// The sum the inner loop adds to.
    sum: String,
    /// The outer loop's index, pattern and range (half-open), where its
    /// range starts (`None` for 0), and its bounds with whether the range
    /// has a trip as written.
    index: Ident,
    pattern: TokenStream,
    range: TokenStream,
    start: Option<TokenStream>,
    bounds: ((TokenStream, TokenStream), bool),
    /// Once the inner loop is swept: the list of the saved adjoints of
    /// the sum (by the outer index, less where the range starts), the
    /// range's length, and the swapped reverse of the inner loop.
    built: Option<(Ident, TokenStream, TokenStream)>,
}

impl Sweep<'_> {
    /// Whether the reverse of `for pat in iter { body }` is swapped with
    /// that of a loop of its body (see the module's doc): its
    /// `Interchange` is then the last of `interchanges` while the body is
    /// swept.
    pub(super) fn interchange(
        &mut self,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        body: &Block,
    ) -> bool {
        let plan = self.interchange_of(pat, iter, body);
        let planned = plan.is_some();
        self.interchanges.extend(plan);
        planned
    }

    fn interchange_of(
        &self,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        body: &Block,
    ) -> Option<Interchange> {
        if self.dual || contains_jump(body) || !self.bounds_available(iter) {
            return None;
        }
        let (index, start, end) = counted_range(pat, iter)?;
        let syn::Pat::Ident(binding) = pat.syntax else {
            return None;
        };
        let (inner, sum) = body.stmts.iter().find_map(|stmt| {
            let Stmt::Expr(expr, _) = stmt else {
                return None;
            };
            let ExprKind::For {
                label: None,
                pat: inner_pat,
                iter: inner_iter,
                body: inner,
            } = &expr.kind
            else {
                return None;
            };
            // What the outer body binds and assigns, the inner range
            // aside (which only reads: `b.len()`).
            let mut bound = HashSet::new();
            let mut assigned = HashSet::new();
            let mut closures = false;
            for stmt in &body.stmts {
                let this = matches!(stmt, Stmt::Expr(expr, _)
                    if matches!(&expr.kind, ExprKind::For { body: this, .. } if std::ptr::eq(this, inner)));
                let stmts = if this { &inner.stmts[..] } else { std::slice::from_ref(stmt) };
                for stmt in stmts {
                    bindings(stmt, &mut bound, &mut assigned, &mut closures);
                }
            }
            if closures || bound.contains(&index) || assigned.contains(&index) {
                return None;
            }
            let sum = swappable(&index, body, inner_pat, inner_iter, inner, &bound, &assigned)?;
            Some((inner as *const Block as usize, sum))
        })?;
        let trip = has_a_trip(start, end);
        let zero = start.is_int_literal() && start.source.to_token_stream().to_string() == "0";
        let start_tokens = start.source.to_token_stream();
        Some(Interchange {
            inner,
            sum,
            index: binding.ident.clone(),
            pattern: pat.syntax.to_token_stream(),
            range: iter.source.to_token_stream(),
            start: (!zero).then(|| start_tokens.clone()),
            bounds: ((start_tokens, end.source.to_token_stream()), trip),
            built: None,
        })
    }

    /// The swapped reverse of `for pat in iter { body }`, the inner loop
    /// of the loop around's `Interchange` (see the module's doc): its
    /// forward as written, and in its place in the outer loop's reverse
    /// the push of the sum's adjoint; `None` where a check on what the
    /// sweep knows here fails, and the loop is swept as any other.
    pub(super) fn swapped_inner(
        &mut self,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        body: &Block,
    ) -> Option<R<(Vec<TokenStream>, Vec<TokenStream>)>> {
        let at = self
            .interchanges
            .iter()
            .rposition(|plan| plan.inner == body as *const Block as usize)?;
        if !self.bounds_available(iter) {
            return None;
        }
        let [Stmt::Expr(statement, _)] = &body.stmts[..] else {
            return None;
        };
        let ExprKind::CompoundAssign { value, .. } = &statement.kind else {
            return None;
        };
        // The loop's index is read from here on.
        self.depth += 1;
        self.scopes.push(Scope::default());
        let names = pat.names.clone();
        self.scope().available.extend(names);
        let Some(sum_bar) = self.swap_checks(value, &self.interchanges[at].sum) else {
            self.scopes.pop();
            self.depth -= 1;
            return None;
        };
        let plan = &self.interchanges[at];
        let (index, start) = (plan.index.to_string(), plan.start.clone());
        let rows = self.rows_by_index(index, start, body);
        let borrows = rows.is_some();
        self.rows.extend(rows);
        let code = self.loop_body_at(body, Jumps::default());
        self.scopes.pop();
        self.depth -= 1;
        let rows = if borrows { self.rows.pop() } else { None };
        let (fwd, rev, _) = match code {
            Ok(code) => code,
            Err(refusal) => return Some(Err(refusal)),
        };
        // Nothing saved, so nothing popped out of order (the checks above
        // make it so; this holds them to it).
        let saves = |tokens: &[TokenStream]| {
            tokens.iter().any(|tokens| {
                SAVES
                    .iter()
                    .any(|name| names_ident(tokens, &Ident::new(name, Span::call_site())))
            })
        };
        if saves(&fwd) || saves(&rev) {
            return Some(unsupported("a sum whose reverse pops", statement));
        }
        let plan = &self.interchanges[at];
        let (outer, range, bounds) = (
            plan.pattern.clone(),
            plan.range.clone(),
            plan.bounds.clone(),
        );
        let (index, start) = (plan.index.clone(), plan.start.clone());
        // The sums' adjoints by the outer index (less where it starts),
        // borrowed as a slice of the range's length (`sums[j]`, no check).
        let sums = self.temp("sum_bars");
        let row = self.temp("sums");
        let item = |list: &Ident| match &start {
            None => quote!(#list[#index]),
            Some(start) => quote!(#list[#index - (#start)]),
        };
        let (read, saved) = (item(&row), item(&sums));
        let trips = quote! {
            for #outer in (#range).rev() {
                let #sum_bar = #read;
                #(#rev)*
            }
        };
        // Borrowed at each `k` with no test of a trip: the loops run
        // under one (`if lo < n`), as the forward ran the inner loop only
        // where the outer range has one.
        let ((first, end), trip) = bounds;
        let trips = match rows {
            Some(rows) => {
                self.borrowing_between(rows, Some(((first.clone(), end.clone()), true)), trips)
            }
            None => trips,
        };
        let test = (!trip).then(|| quote!(if #first < #end));
        let syntax = pat.syntax;
        let inner_range = iter.source.to_token_stream();
        let len = quote!((#range).len());
        self.interchanges[at].built = Some((
            sums.clone(),
            len.clone(),
            quote!(#test {
                let #row = &#sums[..#len];
                for #syntax in (#inner_range).rev() { #trips }
            }),
        ));
        let saved = quote!(#saved = #sum_bar;);
        Some(Ok((
            vec![quote!(for #syntax in #inner_range { #(#fwd)* })],
            vec![saved],
        )))
    }

    /// The adjoint of the sum `sum` that `value` is added to, where each
    /// place `value` reads is read as the forward left it and the
    /// adjoints written are distinct bindings of their own, the sum's
    /// included.
    fn swap_checks(&self, value: &Expr, sum: &str) -> Option<Ident> {
        let sum_bar: Ident = syn::parse2(self.bar_of(sum)?).ok()?;
        let mut leaves = Vec::new();
        terms(value, &mut leaves)?;
        let mut roots = HashSet::new();
        let mut bars = HashSet::from([sum_bar.to_string()]);
        for leaf in leaves {
            if !self.fully_available(leaf) {
                return None;
            }
            if self.active(leaf) {
                let root = root(leaf)?;
                let bar = self.bar_of(&root)?;
                syn::parse2::<Ident>(bar.clone()).ok()?;
                roots.insert(root);
                bars.insert(bar.to_string());
            }
        }
        (bars.len() == roots.len() + 1).then_some(sum_bar)
    }

    /// The reverse of the outer loop of an `Interchange`, `reverse`,
    /// followed by the swapped reverse of its inner loop where that was
    /// built, around the list of the sum's adjoints they share.
    pub(super) fn swapped(&self, plan: Option<Interchange>, reverse: TokenStream) -> TokenStream {
        let Some((sums, len, inner)) = plan.and_then(|plan| plan.built) else {
            return reverse;
        };
        let stack = &self.stack;
        quote!({
            let mut #sums = #stack.sums(#len);
            #reverse
            #inner
            #stack.keep_sums(#sums);
        })
    }
}

/// The sum that `for pat in iter { inner }`, a loop of `body` (the body
/// of a loop over `outer`, which binds `bound` and assigns `assigned`),
/// adds to, where the reverses of the two loops may be swapped (see the
/// module's doc).
fn swappable(
    outer: &str,
    body: &Block,
    pat: &crate::ast::Pattern,
    iter: &Expr,
    inner: &Block,
    bound: &HashSet<String>,
    assigned: &HashSet<String>,
) -> Option<String> {
    let (index, start, end) = counted_range(pat, iter)?;
    if index == outer || has_call(start) {
        return None;
    }
    let fixed = |name: &str| {
        name != outer && name != index && !bound.contains(name) && !assigned.contains(name)
    };
    // The inner loop's index bound by that loop alone.
    if !inner_range_fixed(body, &index, (start, end), &fixed) {
        return None;
    }
    let [Stmt::Expr(statement, _)] = &inner.stmts[..] else {
        return None;
    };
    let ExprKind::CompoundAssign {
        op: Arith::Add,
        target,
        value,
        ..
    } = &statement.kind
    else {
        return None;
    };
    let ExprKind::Path(path) = &target.kind else {
        return None;
    };
    let sum = path.path.get_ident()?.to_string();
    let names_sum =
        |expr: &Expr| matches!(&expr.kind, ExprKind::Path(path) if path.path.is_ident(&sum));
    if sum == outer || sum == index || value.count_exprs(&names_sum) != 0 {
        return None;
    }
    let mut leaves = Vec::new();
    terms(value, &mut leaves)?;
    let (mut along, mut down) = (false, false);
    let mut texts: HashMap<String, String> = HashMap::new();
    for leaf in leaves {
        let root = root(leaf)?;
        let mut indices = Vec::new();
        if !fixed(&root) || !index_names(leaf, &mut indices) {
            return None;
        }
        let known = |name: &String| name == outer || name == &index || fixed(name);
        if !indices.iter().all(known) {
            return None;
        }
        if let Some((last, rest)) = indices.split_last() {
            along |= last == outer && rest.contains(&index);
            down |= last == &index && rest.iter().any(|name| name == outer);
        }
        // One text per binding, indexed by an index of the two loops, and
        // mentioned in the outer body only by the inner loop (and its
        // range, which reads lengths).
        let text = leaf.source.to_token_stream().to_string();
        if texts.get(&root).is_some_and(|known| *known != text)
            || !indices.iter().any(|name| name == outer || name == &index)
        {
            return None;
        }
        let mentions =
            |expr: &Expr| matches!(&expr.kind, ExprKind::Path(path) if path.path.is_ident(&root));
        if body.count_exprs(&mentions) != inner.count_exprs(&mentions) + iter.count_exprs(&mentions)
        {
            return None;
        }
        texts.insert(root, text);
    }
    (along && !down).then_some(sum)
}

/// The places `value` reads, where it is a sum, difference or product of
/// places (a binding, or one indexed by names and literals) and literals;
/// `None` for anything else.
fn terms<'e, 'a>(value: &'e Expr<'a>, out: &mut Vec<&'e Expr<'a>>) -> Option<()> {
    match &value.kind {
        ExprKind::Paren(inner) => terms(inner, out),
        ExprKind::Prefix {
            op: syn::UnOp::Neg(_),
            operand,
        } => terms(operand, out),
        ExprKind::Binary {
            op: Arith::Add | Arith::Sub | Arith::Mul,
            lhs,
            rhs,
            ..
        } => {
            terms(lhs, out)?;
            terms(rhs, out)
        }
        ExprKind::Lit(syn::Lit::Float(_) | syn::Lit::Int(_)) => Some(()),
        ExprKind::Path(_) | ExprKind::Index { .. } => {
            let mut names = Vec::new();
            index_names(value, &mut names).then(|| out.push(value))
        }
        _ => None,
    }
}

/// The names indexing `place`, outermost first, where it is a binding
/// indexed by names and literals only.
fn index_names(place: &Expr, out: &mut Vec<String>) -> bool {
    match &place.kind {
        ExprKind::Path(path) => path.path.get_ident().is_some(),
        ExprKind::Index { base, index } => {
            if !index_names(base, out) {
                return false;
            }
            match &index.kind {
                ExprKind::Path(path) => match path.path.get_ident() {
                    Some(name) => {
                        out.push(name.to_string());
                        true
                    }
                    None => false,
                },
                _ => index.is_int_literal(),
            }
        }
        _ => false,
    }
}
