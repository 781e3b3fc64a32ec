//! The two sweeps of one body, written together statement by statement:
//! each statement's forward code (the statement as written, after the
//! values it computes for the reverse sweep and the pushes of what will be
//! gone by then) and its reverse code (the pops, then one adjoint statement
//! per operand occurrence, right to left). A block's reverse is its
//! statements' reverses in the opposite order, after the declarations of
//! its bindings' adjoints.
//!
//! Anything this does not compile yet is an [`Unsupported`], and the
//! function keeps the tape.

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::ext::IdentExt;

use super::analysis::{carries, dims_of, shows_number, Analysis};
use super::rules::{self, Factor};
use crate::ast::{Arith, Block, Expr, ExprKind, Source, Stmt};
use crate::flow::root;
use crate::text;

/// The first construct the compiled adjoint does not cover, and its line.
pub struct Unsupported {
    pub construct: String,
    pub line: u32,
}

type R<T> = Result<T, Unsupported>;

fn unsupported<T>(construct: impl Into<String>, at: &Expr) -> R<T> {
    Err(Unsupported {
        construct: construct.into(),
        line: text::line(at.span),
    })
}

/// An adjoint flowing into an expression: `tokens` (added, or subtracted
/// when `negated`), and whether it is a whole array's (added with
/// `accumulate`) rather than a scalar's.
#[derive(Clone)]
pub struct Seed {
    pub tokens: TokenStream,
    pub negated: bool,
    pub whole: bool,
}

impl Seed {
    pub fn new(tokens: TokenStream) -> Seed {
        Seed {
            tokens,
            negated: false,
            whole: false,
        }
    }

    fn negate(mut self) -> Seed {
        self.negated = !self.negated;
        self
    }

    /// The seed times `factor`.
    fn times(&self, factor: &Factor) -> Seed {
        let seed = &self.tokens;
        let (tokens, negated) = match factor {
            Factor::One => (seed.clone(), false),
            Factor::Times(f, negated) => (quote!(#seed * #f), *negated),
            Factor::Over(f, negated) => (quote!(#seed / #f), *negated),
        };
        Seed {
            tokens,
            negated: self.negated ^ negated,
            whole: false,
        }
    }

    /// The seed's value with its sign: what a callee's reverse receives.
    fn signed(&self) -> TokenStream {
        let tokens = &self.tokens;
        if self.negated {
            quote!(-(#tokens))
        } else {
            tokens.clone()
        }
    }
}

/// What one simple statement adds around itself.
#[derive(Default)]
struct StmtCx {
    /// Hoisted subexpressions: node id to the name of its value.
    hoisted: HashMap<usize, Ident>,
    /// The hoisted values the reverse reads (pushed unless they stay in
    /// scope).
    hoist_saved: HashSet<usize>,
    /// Forward: `let z_tanh = z.tanh();`, in evaluation order.
    hoists: Vec<TokenStream>,
    observes: Vec<TokenStream>,
    /// Values to push (forward tokens) and the names they come back as.
    saves: Vec<(TokenStream, Ident)>,
    saved_keys: HashMap<String, Ident>,
    /// Indices to push (forward tokens) and the names they come back as:
    /// an index the body changes before the reverse sweep (`l[idx]` of a
    /// counted `idx`), saved as the statement reads it.
    index_saves: Vec<(TokenStream, Ident)>,
    /// The reverse statements, in order.
    rev: Vec<TokenStream>,
    /// Seed temporaries numbered per statement: `product_bar_2`.
    temps: HashMap<String, usize>,
    /// The hoisted names this statement has given: two hoists of one
    /// method (`(x * 2.0).tanh() * (x * 3.0).tanh()`) need two names, or
    /// the second pop shadows the first.
    names: HashSet<String>,
}

/// A loop whose body leaves by `break` or `continue`: every iteration
/// ends by pushing how it ended (0 at the end of the body, `k` at the
/// `k`-th jump), after the records of the branches it leaves.
#[derive(Default)]
struct Jumps {
    next: u32,
    pending: Vec<TokenStream>,
    /// The loop's trip counter, pushed by a `return` that leaves it.
    trips: Option<Ident>,
    /// The function's own level (return points), not a loop.
    function: bool,
    /// The loop's label (`outer` of `'outer:`), which a `break 'outer` or
    /// `continue 'outer` from a loop inside it names.
    label: Option<String>,
    /// The adjoint of a `loop`'s value, which seeds its `break` values.
    seed: Option<Seed>,
}

/// The items a `for` walks by index: `place[index]`, by reference or
/// copied; pairs of items (`zip`); an item with its index (`enumerate`).
enum Items<'e, 'a> {
    Place { place: &'e Expr<'a>, by_ref: bool },
    Zip(Box<Items<'e, 'a>>, Box<Items<'e, 'a>>),
    Enumerate(Box<Items<'e, 'a>>),
}

/// What a `for` iterates: items, and the adaptors (`.rev()`,
/// `.step_by(k)`, `.skip(k)`, `.take(k)`) that pick which indices, in
/// order, which the reverse sweep applies to the indices themselves.
struct Elements<'e, 'a> {
    items: Items<'e, 'a>,
    adaptors: Vec<(&'e Ident, &'e [Expr<'a>])>,
}

impl<'e, 'a> Items<'e, 'a> {
    fn places(&self, out: &mut Vec<&'e Expr<'a>>) {
        match self {
            Items::Place { place, .. } => out.push(place),
            Items::Zip(a, b) => {
                a.places(out);
                b.places(out);
            }
            Items::Enumerate(inner) => inner.places(out),
        }
    }

    /// How many items: the shortest place's length. A place in `saved`
    /// is read from its copy there (see `Sweep::for_loop`).
    fn len(&self, saved: &HashMap<usize, Ident>) -> TokenStream {
        match self {
            Items::Place { place, .. } => {
                let src = place_tokens(place, saved);
                quote!(#src.len())
            }
            Items::Zip(a, b) => {
                let (a, b) = (a.len(saved), b.len(saved));
                quote!(::core::cmp::min(#a, #b))
            }
            Items::Enumerate(inner) => inner.len(saved),
        }
    }

    /// The item at `index`, as the forward `for` bound it.
    fn item(&self, index: &Ident, saved: &HashMap<usize, Ident>) -> TokenStream {
        match self {
            Items::Place { place, by_ref } => {
                let src = place_tokens(place, saved);
                if *by_ref {
                    quote!(&#src[#index])
                } else {
                    quote!(#src[#index])
                }
            }
            Items::Zip(a, b) => {
                let (a, b) = (a.item(index, saved), b.item(index, saved));
                quote!((#a, #b))
            }
            Items::Enumerate(inner) => {
                let inner = inner.item(index, saved);
                quote!((#index, #inner))
            }
        }
    }

    /// The names `pat` binds to places' elements, with those places;
    /// `None` for a pattern this does not take apart.
    fn leaves<'p>(
        &self,
        pat: &'p syn::Pat,
        out: &mut Vec<(&'p Ident, &'e Expr<'a>)>,
    ) -> Option<()> {
        match (self, pat) {
            (_, syn::Pat::Wild(_)) => Some(()),
            (_, syn::Pat::Type(typed)) => self.leaves(&typed.pat, out),
            (_, syn::Pat::Paren(paren)) => self.leaves(&paren.pat, out),
            (Items::Place { place, .. }, syn::Pat::Ident(ident)) if ident.subpat.is_none() => {
                out.push((&ident.ident, place));
                Some(())
            }
            (Items::Place { .. }, syn::Pat::Reference(reference)) => {
                self.leaves(&reference.pat, out)
            }
            (Items::Zip(a, b), syn::Pat::Tuple(tuple)) if tuple.elems.len() == 2 => {
                a.leaves(&tuple.elems[0], out)?;
                b.leaves(&tuple.elems[1], out)
            }
            (Items::Enumerate(inner), syn::Pat::Tuple(tuple)) if tuple.elems.len() == 2 => {
                inner.leaves(&tuple.elems[1], out)
            }
            _ => None,
        }
    }
}

#[derive(Default)]
struct Scope {
    /// Bindings of this scope with their adjoints, in order.
    bars: Vec<(String, TokenStream)>,
    /// Names the reverse sweep has again in this scope: loop variables,
    /// replayed bindings.
    available: HashSet<String>,
}

pub struct Sweep<'m> {
    an: &'m Analysis,
    stack: Ident,
    adjoint: TokenStream,
    top: usize,
    depth: usize,
    scopes: Vec<Scope>,
    /// Bindings named so far, by name: the k-th of n is `y_k_bar`.
    seen: HashMap<String, usize>,
    /// Names of values hoisted at the top level of `f_adjoint`, which stay
    /// in scope for the reverse sweep and so must not shadow each other.
    top_names: HashSet<String>,
    /// Calls' value names so far: each is new, as several share a scope.
    calls: HashMap<String, usize>,
    /// The innermost loop with `break`/`continue`: its next exit number
    /// and the arm records of the branches a jump leaves.
    jumps: Vec<Jumps>,
    /// The body has an early `return`: its forward sweep is a labelled
    /// block, so no top-level binding is left for the reverse sweep.
    early: bool,
    /// Loops numbered, for their trip counters' names.
    loops: usize,
    /// The adjoint of the function's value: what a `return e` seeds `e`
    /// with.
    value_bar: TokenStream,
    /// The function's value is read as the body computes it (a return
    /// type alias asserts its type), not through `f64_of`.
    outputs_as_written: bool,
    /// Bindings never observed as an operand of `max`/`min` or in an `if`
    /// condition: see `chains::Lowering::extremes` and `extremes`.
    unobserved: HashSet<String>,
    cx: StmtCx,
    /// What calls of plain functions resolve to: see `sibling`.
    stand_ins: crate::emit::StandIns,
}

/// What a block gives: forward statements, the value of its tail if it
/// was asked for one, and its reverse.
pub struct BlockCode {
    pub fwd: Vec<TokenStream>,
    pub value: Option<TokenStream>,
    pub rev: Vec<TokenStream>,
}

impl<'m> Sweep<'m> {
    pub fn new(an: &'m Analysis, stack: Ident) -> Self {
        Sweep {
            an,
            stack,
            adjoint: quote!(::autodiff::__adjoint),
            top: 0,
            depth: 0,
            scopes: vec![Scope::default()],
            seen: HashMap::new(),
            top_names: HashSet::new(),
            calls: HashMap::new(),
            jumps: Vec::new(),
            early: false,
            loops: 0,
            value_bar: quote!(value_bar),
            outputs_as_written: false,
            unobserved: HashSet::new(),
            cx: StmtCx::default(),
            stand_ins: crate::emit::StandIns::default(),
        }
    }

    /// The stand-ins the calls need, for the top of `f_adjoint`'s body.
    pub fn stand_ins(&self) -> TokenStream {
        self.stand_ins.declarations()
    }

    /// An argument of a call of another annotated function, as the forward
    /// and the reverse call both pass it: a binding of numbers with an
    /// index (a `Vec`, say) that is not a `Copy` array parameter or a slice
    /// is passed as a clone, since both calls (and every trip of a loop
    /// around them) take it by value.
    fn passed(&self, arg: &Expr) -> TokenStream {
        let src = arg.source.to_token_stream();
        if self.owned(arg) {
            quote!(::core::clone::Clone::clone(&#src))
        } else {
            src
        }
    }

    /// Whether `passed` clones `arg`.
    fn owned(&self, arg: &Expr) -> bool {
        match &arg.kind {
            ExprKind::Path(path) => path.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                !self.an.arrays.contains(&name)
                    && !self.an.slices.contains(&name)
                    && dims_of(arg, &self.an.dims).is_some_and(|dims| dims > 0)
            }),
            _ => false,
        }
    }

    /// Sets the bindings left out of operand observation.
    pub fn unobserved(&mut self, names: HashSet<String>) {
        self.unobserved = names;
    }

    /// Observes an operand of `max`/`min`, unless it is a running extreme.
    fn observe_operand(&mut self, operand: &Expr, tokens: TokenStream) {
        let extreme = matches!(&operand.kind, ExprKind::Path(path)
            if path.path.get_ident().is_some_and(|ident| self.unobserved.contains(&ident.to_string())));
        if !extreme {
            self.observe(tokens);
        }
    }

    /// A name no identifier of the function uses: `base`, `base_2`, ...
    pub fn fresh(&self, base: &str) -> Ident {
        let mut name = base.to_owned();
        let mut k = 1;
        while self.an.idents.contains(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        Ident::new(&name, Span::call_site())
    }

    /// Names the adjoint of the next binding of `name` and puts it in the
    /// current scope.
    pub fn bind(&mut self, name: &str) -> Ident {
        let k = {
            let seen = self.seen.entry(name.to_owned()).or_default();
            *seen += 1;
            *seen
        };
        let total = self.an.bound.get(name).copied().unwrap_or(1);
        let plain = name.trim_start_matches("r#");
        let base = if k >= total {
            format!("{plain}_bar")
        } else {
            format!("{plain}_{k}_bar")
        };
        let ident = self.fresh(&base);
        let place = ident.to_token_stream();
        self.scope().bars.push((name.to_owned(), place));
        ident
    }

    fn scope(&mut self) -> &mut Scope {
        self.scopes.last_mut().expect("the parameters' scope")
    }

    fn bar_of(&self, name: &str) -> Option<TokenStream> {
        self.scopes.iter().rev().find_map(|scope| {
            scope
                .bars
                .iter()
                .rev()
                .find(|(bound, _)| bound == name)
                .map(|(_, place)| place.clone())
        })
    }

    fn active(&self, expr: &Expr) -> bool {
        carries(expr, &self.an.active)
    }

    /// Whether `expr` is an annotated method called on a model with a
    /// derivative to pass (see `is_method_call`).
    fn method_call(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::PlainMethod { receiver, .. } if is_method_call(expr) => {
                self.active(expr)
                    && root(receiver).is_some_and(|name| self.an.models.contains(&name))
            }
            _ => false,
        }
    }

    /// Whether the reverse sweep still has `name`'s value from here.
    fn available(&self, name: &str) -> bool {
        !self.an.is_local(name)
            || self
                .scopes
                .iter()
                .any(|scope| scope.available.contains(name))
            || (self.an.stable(name, self.top)
                && (!self.early
                    || (self.an.params.contains(name) && !self.an.top_lets.contains_key(name))))
    }

    /// Whether every binding `tokens` names is available.
    fn all_available(&self, tokens: TokenStream) -> bool {
        // A name after one `.` is a field or a method (`net.width`), not a
        // binding, whatever bindings share its name; after `..` it is one.
        let mut dots = 0;
        tokens.into_iter().all(|token| {
            let available = match &token {
                TokenTree::Ident(_) if dots == 1 => true,
                TokenTree::Ident(ident) => self.available(&ident.to_string()),
                TokenTree::Group(group) => self.all_available(group.stream()),
                _ => true,
            };
            dots = match &token {
                TokenTree::Punct(punct) if punct.as_char() == '.' => dots + 1,
                _ => 0,
            };
            available
        })
    }

    fn fully_available(&self, expr: &Expr) -> bool {
        self.all_available(expr.source.to_token_stream()) && !has_call(expr)
    }

    // -----------------------------------------------------------------
    // Blocks and statements.
    // -----------------------------------------------------------------

    /// A block; `seed` is the adjoint of its value when its tail is one.
    pub fn block(&mut self, block: &Block, seed: Option<&Seed>) -> R<BlockCode> {
        self.scopes.push(Scope::default());
        let result = self.block_inner(block, seed);
        self.scopes.pop();
        result
    }

    /// The function body: top-level statements are numbered for stability.
    pub fn body(&mut self, block: &Block, seed: &Seed) -> R<BlockCode> {
        self.value_bar = seed.tokens.clone();
        if !has_return(block) {
            return self.block_inner(block, Some(seed));
        }
        // Early returns: the forward sweep is `'forward: { .. }`, each
        // return point pushes its number, the reverse reverses what ran
        // before it.
        self.early = true;
        self.jumps.push(Jumps {
            function: true,
            ..Jumps::default()
        });
        let result = (|| {
            let (stmts, tail) = block.split_tail();
            let mut prelude = Vec::new();
            let mut fwd = Vec::new();
            let mut revs = Vec::new();
            let mut owners = Vec::new();
            for (j, stmt) in stmts.iter().enumerate() {
                self.top = j;
                let before = self.jumps.last().map_or(0, |jumps| jumps.next);
                let (f, r) = self.stmt(stmt, &mut prelude)?;
                let after = self.jumps.last().map_or(0, |jumps| jumps.next);
                owners.extend((before..after).map(|k| (k + 1, j)));
                fwd.extend(f);
                revs.push(r);
            }
            let value = match tail {
                Some(tail) => {
                    self.top = stmts.len();
                    // A `return` inside the value (`loop { if .. { return
                    // y; } .. }`) undoes everything, the value's reverse too.
                    let before = self.jumps.last().map_or(0, |jumps| jumps.next);
                    let (f, v, r) = self.value(tail, seed)?;
                    let after = self.jumps.last().map_or(0, |jumps| jumps.next);
                    owners.extend((before..after).map(|k| (k + 1, stmts.len())));
                    fwd.extend(f);
                    revs.push(r);
                    Some(v)
                }
                None => None,
            };
            Ok((prelude, fwd, revs, owners, value))
        })();
        self.jumps.pop();
        let (prelude, fwd, revs, owners, value) = result?;
        let stack = &self.stack;
        let label = syn::Lifetime::new("'forward", Span::mixed_site());
        let result = Ident::new("value", Span::mixed_site());
        let tail = value.map(|v| quote!(let #result = #v; #stack.push_arm(0); #result));
        let reversed = |upto: usize| {
            let mut out = Vec::new();
            for r in revs[..upto].iter().rev() {
                out.extend(r.iter().cloned());
            }
            out
        };
        let all = reversed(revs.len());
        let exits = owners.iter().map(|(k, j)| {
            let k = Literal::u32_unsuffixed(*k);
            let back = reversed(j + 1);
            quote!(#k => { #(#back)* })
        });
        let mut rev = prelude;
        rev.push(quote! {
            match #stack.pop_arm() {
                0 => { #(#all)* }
                #(#exits)*
                _ => #stack.fail(),
            }
        });
        Ok(BlockCode {
            fwd: Vec::new(),
            value: Some(quote!(#label: { #(#fwd)* #tail })),
            rev,
        })
    }

    /// A new trip counter's name: nested loops each have their own.
    fn trips_ident(&mut self) -> Ident {
        self.loops += 1;
        Ident::new(&format!("trips_{}", self.loops), Span::mixed_site())
    }

    /// Whether `expr` is a `loop` whose value (a `break`'s) is one `f64`.
    fn scalar_loop(&self, expr: &Expr) -> bool {
        let ExprKind::Loop { body, .. } = &expr.kind else {
            return false;
        };
        body.any_expr(&|expr| {
            matches!(&expr.kind, ExprKind::Break { value: Some(value), .. } if self.scalar(value))
        })
    }

    /// Whether the value is one `f64`, as far as the body shows.
    fn scalar(&self, expr: &Expr) -> bool {
        is_scalar(expr) || dims_of(expr, &self.an.dims) == Some(0) || self.scalar_loop(expr)
    }

    fn block_inner(&mut self, block: &Block, seed: Option<&Seed>) -> R<BlockCode> {
        let (stmts, tail) = match seed {
            Some(_) => block.split_tail(),
            None => (&block.stmts[..], None),
        };
        let mut prelude = Vec::new();
        let mut fwd = Vec::new();
        let mut revs = Vec::new();
        let valued = tail.is_some() && seed.is_some();
        let exits = self.block_exits(stmts, valued);
        for (index, stmt) in stmts.iter().enumerate() {
            if self.depth == 0 {
                self.top = index;
            }
            let exit = exits.contains(&index);
            if exit {
                let k = Literal::u32_unsuffixed(index as u32 + 1);
                let stack = &self.stack;
                let record = quote!(#stack.push_arm(#k););
                if let Some(jumps) = self.jumps.last_mut() {
                    jumps.pending.push(record);
                }
            }
            let code = self.stmt(stmt, &mut prelude);
            if exit {
                if let Some(jumps) = self.jumps.last_mut() {
                    jumps.pending.pop();
                }
            }
            let (f, r) = code?;
            fwd.extend(f);
            revs.push(r);
        }
        let mut value = None;
        if let (Some(tail), Some(seed)) = (tail, seed) {
            if self.depth == 0 {
                self.top = stmts.len();
            }
            let (f, v, r) = self.value(tail, seed)?;
            fwd.extend(f);
            value = Some(v);
            revs.push(r);
        } else if seed.is_some() {
            return unsupported_block("a body that ends without a value", block);
        }
        if !exits.is_empty() {
            return Ok(self.exited_block(fwd, value, prelude, revs, &exits));
        }
        let mut rev = prelude;
        for r in revs.into_iter().rev() {
            rev.extend(r);
        }
        Ok(BlockCode { fwd, value, rev })
    }

    /// The statements of a block inside a loop (or a function with
    /// `return`) after which more of the block follows, and from inside
    /// which a jump may leave it: the reverse must then know where the
    /// block was left, so that it undoes only the statements that ran.
    fn block_exits(&self, stmts: &[Stmt], valued: bool) -> Vec<usize> {
        if self.jumps.is_empty() {
            return Vec::new();
        }
        let last = if valued {
            stmts.len()
        } else {
            stmts.len().saturating_sub(1)
        };
        (0..last)
            .filter(|&index| match &stmts[index] {
                Stmt::Let {
                    init: Some(init), ..
                } => init.any_expr(&is_jump),
                Stmt::Expr(expr, _) => expr.any_expr(&is_jump),
                _ => false,
            })
            .collect()
    }

    /// A block with `exits` (see `block_exits`): the forward pushes 0 when
    /// it ends (after its value), a jump out of statement `j` pushed
    /// `j + 1` (a pending record); the reverse undoes all of it, or the
    /// statements up to `j`.
    fn exited_block(
        &self,
        mut fwd: Vec<TokenStream>,
        value: Option<TokenStream>,
        prelude: Vec<TokenStream>,
        revs: Vec<Vec<TokenStream>>,
        exits: &[usize],
    ) -> BlockCode {
        let stack = &self.stack;
        let value = match value {
            Some(value) => {
                let v = self.temp_value();
                Some(quote!({ let #v = #value; #stack.push_arm(0); #v }))
            }
            None => {
                fwd.push(quote!(#stack.push_arm(0);));
                None
            }
        };
        let reversed = |upto: usize| {
            let mut out = Vec::new();
            for r in revs[..upto].iter().rev() {
                out.extend(r.iter().cloned());
            }
            out
        };
        let all = reversed(revs.len());
        let arms = exits.iter().map(|&j| {
            let k = Literal::u32_unsuffixed(j as u32 + 1);
            let back = reversed(j + 1);
            quote!(#k => { #(#back)* })
        });
        let exit = Ident::new("exit", Span::mixed_site());
        BlockCode {
            fwd,
            value,
            rev: vec![quote! {
                let #exit = #stack.pop_arm();
                #(#prelude)*
                match #exit {
                    0 => { #(#all)* }
                    #(#arms)*
                    _ => #stack.fail(),
                }
            }],
        }
    }

    fn stmt(
        &mut self,
        stmt: &Stmt,
        prelude: &mut Vec<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        match stmt {
            Stmt::Item(item) => {
                if self.depth > 0 || self.early {
                    prelude.push(item.to_token_stream());
                }
                Ok((vec![item.to_token_stream()], Vec::new()))
            }
            Stmt::Let {
                pat,
                name,
                mutable,
                init,
                ..
            } => {
                let syntax = pat.syntax;
                let Some(init) = init else {
                    let active = pat.names.iter().any(|n| self.an.active.contains(n));
                    // `let y; if c { y = .. } else { y = .. }`: a number,
                    // typed so or assigned only numbers, whose adjoint the
                    // assignments take and reset.
                    let number = |name: &String| {
                        let typed = matches!(syntax, syn::Pat::Type(typed)
                            if crate::valid::is_f64(&typed.ty));
                        typed || self.an.assigned.get(name).copied() == Some(Some(0))
                    };
                    if let Some(name) = name.as_ref().filter(|name| active && number(name)) {
                        let bar = self.bind(name);
                        prelude.push(quote!(let mut #bar = 0.0;));
                        return Ok((vec![quote!(let #syntax;)], Vec::new()));
                    }
                    if active {
                        return Err(Unsupported {
                            construct: "a `let` without a value".into(),
                            line: text::line(first_ident_span(syntax)),
                        });
                    }
                    return Ok((vec![quote!(let #syntax;)], Vec::new()));
                };
                // A value with no derivative whose initialiser writes one
                // (`let _a = { y += x * y; 0.5 };`) is reversed like a
                // tracked one: its effects have a reverse.
                let active =
                    pat.names.iter().any(|n| self.an.active.contains(n)) || self.effects(init);
                let name = match name {
                    Some(name) if active => name,
                    None if active && matches!(syntax, syn::Pat::Wild(_)) => {
                        return self.discard(init);
                    }
                    _ if active => {
                        let construct =
                            format!("a `let` with a pattern bound to {}", describe(init));
                        return unsupported(construct, init);
                    }
                    _ => {
                        let src = init.source.to_token_stream();
                        let once = pat
                            .names
                            .iter()
                            .all(|n| self.an.bound.get(n).copied() == Some(1));
                        let replay = (self.depth > 0 || self.early)
                            && !*mutable
                            && once
                            && self.fully_available(init);
                        if replay {
                            prelude.push(quote!(let #syntax = #src;));
                            let names = pat.names.clone();
                            self.scope().available.extend(names);
                        }
                        return Ok((vec![quote!(let #syntax = #src;)], Vec::new()));
                    }
                };
                let shape = if init.is_empty_vec() || self.an.pushed.contains(name) {
                    // Grown by `push`: the reverse sweep, after the whole
                    // forward, sees its final length, and each reversed
                    // `push` takes its element's adjoint off the end, back
                    // to the initialiser's length. Only the one binding of
                    // the name is still that `Vec` then.
                    if self.depth > 0 || self.early {
                        return unsupported("a `Vec` filled by `push` inside a loop", init);
                    }
                    if self.an.bound.get(name.as_str()).copied() != Some(1) {
                        return unsupported(
                            "a `Vec` grown by `push` whose name is bound again",
                            init,
                        );
                    }
                    let ident = binding(name);
                    quote!(::autodiff::__adjoint::zero(&#ident))
                } else {
                    self.shape(init)?
                };
                // The initialiser reads earlier bindings of the same name.
                let bar = self.bind_deferred(name);
                let seed = Seed {
                    tokens: bar.to_token_stream(),
                    negated: false,
                    whole: !self.scalar(init),
                };
                let (mut f, v, r) = self.value(init, &seed)?;
                self.scope()
                    .bars
                    .push((name.clone(), bar.to_token_stream()));
                prelude.push(quote!(let mut #bar = #shape;));
                f.push(quote!(let #syntax = #v;));
                // The tape rejects a value that is not finite where it is
                // made, read or not: one never read (`let unused =
                // x.exp() * 1e308 * 10.0;`) reaches neither the value nor
                // the gradient, so it is observed here.
                if self.scalar(init) && self.active(init) && !self.an.read.contains(name.as_str()) {
                    let (stack, ident) = (&self.stack, binding(name));
                    f.push(quote!(#stack.observe(#ident);));
                }
                Ok((f, r))
            }
            Stmt::Expr(expr, semi) => self.expr_stmt(expr, semi.is_some()),
        }
    }

    /// `let _ = value;`: run for its panics and its checks, no adjoint.
    /// The tape records the value and rejects it if it is not finite, so
    /// a number is observed.
    fn discard(&mut self, init: &Expr) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        // A block, a call or a write would run with no reverse.
        if has_call(init)
            || init.any_expr(&|e| {
                matches!(
                    e.kind,
                    ExprKind::Assign { .. }
                        | ExprKind::CompoundAssign { .. }
                        | ExprKind::Return(_)
                        | ExprKind::Break { .. }
                        | ExprKind::Continue(_)
                ) || matches!(&e.kind, ExprKind::Structural { method, .. } if *method == "push")
            })
        {
            return unsupported("a `let _` of a call or a write", init);
        }
        let src = init.source.to_token_stream();
        let stack = &self.stack;
        let fwd = if self.scalar(init) {
            quote!(#stack.observe(#src);)
        } else {
            quote!(let _ = #src;)
        };
        Ok((vec![fwd], Vec::new()))
    }

    /// The adjoint name of the binding about to be made, put in scope by
    /// the caller after its initialiser is read.
    fn bind_deferred(&mut self, name: &str) -> Ident {
        let ident = self.bind(name);
        self.scope().bars.pop();
        ident
    }

    /// Whether evaluating `expr` writes a tracked binding or jumps: what a
    /// value with no derivative of its own must still reverse.
    fn effects(&self, expr: &Expr) -> bool {
        let tracked = |place: &Expr| root(place).is_some_and(|name| self.an.active.contains(&name));
        expr.any_expr(&|e| match &e.kind {
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                tracked(target)
            }
            ExprKind::Reference {
                mutability: Some(_),
                expr: place,
            } => tracked(place),
            ExprKind::Structural {
                receiver, method, ..
            }
            | ExprKind::PlainMethod {
                receiver, method, ..
            } => super::analysis::mutates(method) && tracked(receiver),
            ExprKind::Return(_) | ExprKind::Break { .. } | ExprKind::Continue(_) => true,
            _ => false,
        })
    }

    /// A statement with no derivative in it (nothing carries one, nothing
    /// active is written) runs as written and has no reverse; a `return`,
    /// `break` or `continue` is not compiled yet.
    fn inert(&self, expr: &Expr) -> R<bool> {
        let mut touches = self.active(expr);
        match &expr.kind {
            ExprKind::Return(Some(_)) if self.early => return Ok(false),
            ExprKind::Return(_) => return unsupported("an early `return`", expr),
            ExprKind::Break { .. } | ExprKind::Continue(_) => return Ok(false),
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                touches |= root(target).is_some_and(|name| self.an.active.contains(&name));
            }
            ExprKind::Structural {
                receiver, method, ..
            } if *method == "push" => {
                touches |= root(receiver).is_some_and(|name| self.an.active.contains(&name));
            }
            _ => {}
        }
        for child in expr.children() {
            touches |= match child {
                crate::ast::Child::Expr(child) => !self.inert(child)?,
                crate::ast::Child::Block(block) => !self.inert_block(block)?,
            };
        }
        Ok(!touches)
    }

    fn inert_block(&self, block: &Block) -> R<bool> {
        let mut inert = true;
        for stmt in &block.stmts {
            inert &= match stmt {
                Stmt::Let { pat, init, .. } => {
                    !pat.names.iter().any(|n| self.an.active.contains(n))
                        && match init {
                            Some(init) => self.inert(init)?,
                            None => true,
                        }
                }
                Stmt::Item(_) => true,
                Stmt::Expr(expr, _) => self.inert(expr)?,
            };
        }
        Ok(inert)
    }

    fn expr_stmt(&mut self, expr: &Expr, semi: bool) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let semi = semi.then(|| quote!(;));
        let src = expr.source.to_token_stream();
        match &expr.kind {
            ExprKind::Assign { target, value } if self.root_active(target) => {
                self.cx = StmtCx::default();
                let bar = self.saved_bar_place(target)?;
                let assigned = self.temp("assigned_bar");
                let whole = !self.scalar(value);
                let adjoint = &self.adjoint;
                if whole {
                    self.cx
                        .rev
                        .push(quote!(let #assigned = #adjoint::take(&mut #bar);));
                } else {
                    self.cx.rev.push(quote!(let #assigned = #bar;));
                    self.cx.rev.push(quote!(#bar = 0.0;));
                }
                let seed = Seed {
                    tokens: assigned.to_token_stream(),
                    negated: false,
                    whole,
                };
                let outer = std::mem::take(&mut self.cx);
                let (mut f, v, r) = self.value(value, &seed)?;
                let target_src = target.source.to_token_stream();
                // The target's saved index, pushed after the value's own
                // saves and so popped before them.
                let (pushes, mut rev) = self.saves_code(&outer);
                f.extend(pushes);
                f.push(quote!(#target_src = #v #semi));
                rev.extend(outer.rev);
                rev.extend(r);
                Ok((f, rev))
            }
            ExprKind::CompoundAssign {
                op, target, value, ..
            } if self.root_active(target) => self.compound(expr, *op, target, value, semi),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if *method == "push" && self.root_active(receiver) => {
                // The adjoint `Vec` has the final length; each reversed
                // `push` takes its element's adjoint off the end.
                let [item] = args.as_slice() else {
                    return unsupported("`.push()`", expr);
                };
                if !self.scalar(item) {
                    return unsupported("`.push()` of an array", expr);
                }
                // A parameter's adjoint is its gradient, shaped like the
                // argument: it has no room for what the body adds.
                if root(receiver).is_some_and(|name| self.an.params.contains(&name)) {
                    return unsupported("`.push()` onto a parameter", expr);
                }
                self.cx = StmtCx::default();
                let bar = self.bar_place(receiver)?;
                let pushed = self.temp("pushed_bar");
                self.cx
                    .rev
                    .push(quote!(let #pushed: f64 = #bar.pop().unwrap_or(0.0);));
                self.rev(item, Seed::new(pushed.to_token_stream()))?;
                let v = self.fwd(item)?;
                let receiver_src = receiver.source.to_token_stream();
                Ok(self.finish(quote!(#receiver_src.push(#v) #semi)))
            }
            ExprKind::For {
                label,
                pat,
                iter,
                body,
            } if !self.inert(expr)? => self.for_loop(expr, *label, pat, iter, body),
            ExprKind::Match { scrutinee, arms } if !self.inert(expr)? => {
                let (mut f, v, r) = self.match_expr(expr, scrutinee, arms, None)?;
                f.push(quote!(#v #semi));
                Ok((f, r))
            }
            ExprKind::While { label, cond, body } if !self.inert(expr)? => {
                self.while_loop(*label, cond, body)
            }
            ExprKind::Loop { label, body } if !self.inert(expr)? => {
                let (mut f, v, r) = self.loop_expr(*label, body, None)?;
                f.push(quote!(#v #semi));
                Ok((f, r))
            }
            ExprKind::Return(Some(value))
                if self.jumps.first().is_some_and(|jumps| jumps.function) =>
            {
                self.cx = StmtCx::default();
                if self.active(value) {
                    let seed = Seed::new(self.value_bar.clone());
                    self.rev(value, seed)?;
                } else {
                    self.inert(value)?;
                }
                let v = self.fwd(value)?;
                let v = self.output(value, v);
                let stack = self.stack.clone();
                // Innermost first: each level's branch records, how its
                // iteration ended and its trips, then the return point.
                let mut records = Vec::new();
                for jumps in self.jumps.iter_mut().rev() {
                    records.extend(jumps.pending.iter().rev().cloned());
                    jumps.next += 1;
                    let k = Literal::u32_unsuffixed(jumps.next);
                    records.push(quote!(#stack.push_arm(#k);));
                    if let Some(trips) = &jumps.trips {
                        records.push(quote!(#stack.push_trips(#trips);));
                    }
                }
                let label = syn::Lifetime::new("'forward", Span::mixed_site());
                Ok(self.finish(quote!({ #(#records)* break #label #v; })))
            }
            ExprKind::Break {
                label: None,
                value: None,
            }
            | ExprKind::Continue(None) => {
                let stack = self.stack.clone();
                let Some(jumps) = self.jumps.last_mut().filter(|jumps| !jumps.function) else {
                    return unsupported(describe(expr), expr);
                };
                let k = Literal::u32_unsuffixed(jumps.next + 1);
                jumps.next += 1;
                let records = jumps.pending.iter().rev();
                Ok((
                    vec![quote!({ #(#records)* #stack.push_arm(#k); #src #semi })],
                    Vec::new(),
                ))
            }
            ExprKind::Break { label, value } => self.jump(expr, *label, value.as_deref(), semi),
            ExprKind::Continue(label) => self.jump(expr, *label, None, semi),
            ExprKind::If { .. } if !self.inert(expr)? => {
                let (f, v, r) = self.if_expr(expr, None)?;
                let mut f = f;
                f.push(quote!(#v #semi));
                Ok((f, r))
            }
            ExprKind::Block(None, block) if !self.inert(expr)? => {
                self.depth += 1;
                let code = self.block(block, None);
                self.depth -= 1;
                let BlockCode { fwd, rev, .. } = code?;
                Ok((vec![quote!({ #(#fwd)* })], vec![quote!({ #(#rev)* })]))
            }
            _ => {
                if self.inert(expr)? {
                    Ok((vec![quote!(#src #semi)], Vec::new()))
                } else {
                    unsupported(describe(expr), expr)
                }
            }
        }
    }

    fn root_active(&self, target: &Expr) -> bool {
        root(target).is_some_and(|name| self.an.active.contains(&name))
    }

    fn compound(
        &mut self,
        whole: &Expr,
        op: Arith,
        target: &Expr,
        value: &Expr,
        semi: Option<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        self.cx = StmtCx::default();
        let carries = self.active(value);
        let branching = matches!(
            value.kind,
            ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Block(None, _)
        );
        let branched = branching && carries && matches!(op, Arith::Add | Arith::Sub);
        // A branching value is swept as a value of its own, with no room
        // for this statement's saves.
        let bar = if branched {
            self.bar_place(target)?
        } else {
            self.saved_bar_place(target)?
        };
        if branched {
            let op_token = match whole.source {
                Source::Expr(syn::Expr::Binary(binary)) => binary.op.to_token_stream(),
                _ => return unsupported(describe(whole), whole),
            };
            self.cx = StmtCx::default();
            let (copy, tokens) = self.target_bar_before(target, value, bar);
            let seed = Seed {
                tokens,
                negated: op == Arith::Sub,
                whole: false,
            };
            let (mut f, v, r) = self.value(value, &seed)?;
            let target_src = target.source.to_token_stream();
            f.push(quote!(#target_src #op_token #v #semi));
            return Ok((f, copy.into_iter().chain(r).collect()));
        }
        match op {
            Arith::Add | Arith::Sub => {
                let (copy, tokens) = self.target_bar_before(target, value, bar);
                self.cx.rev.extend(copy);
                let seed = Seed {
                    tokens,
                    negated: op == Arith::Sub,
                    whole: false,
                };
                self.rev(value, seed)?;
            }
            Arith::Mul => {
                let e = self.val(value)?;
                if carries {
                    let old = self.val(target)?;
                    let assigned = self.temp("assigned_bar");
                    self.cx.rev.push(quote!(let #assigned = #bar;));
                    self.cx.rev.push(quote!(#bar = #assigned * #e;));
                    self.rev(value, Seed::new(quote!(#assigned * #old)))?;
                } else {
                    self.cx.rev.push(quote!(#bar *= #e;));
                }
            }
            Arith::Div => {
                let e = self.val(value)?;
                if carries {
                    let old = self.val(target)?;
                    let assigned = self.temp("assigned_bar");
                    self.cx.rev.push(quote!(let #assigned = #bar;));
                    self.cx.rev.push(quote!(#bar = #assigned / #e;));
                    self.rev(
                        value,
                        Seed::new(quote!(#assigned * (#old / #e) / #e)).negate(),
                    )?;
                } else {
                    self.cx.rev.push(quote!(#bar /= #e;));
                }
            }
            Arith::Rem | Arith::Method(_) => return unsupported("`%=`", whole),
        }
        let op_token = match whole.source {
            Source::Expr(syn::Expr::Binary(binary)) => binary.op.to_token_stream(),
            _ => return unsupported(describe(whole), whole),
        };
        let v = self.fwd(value)?;
        if op == Arith::Div {
            self.observe(v.clone());
        }
        let target_src = target.source.to_token_stream();
        Ok(self.finish(quote!(#target_src #op_token #v #semi)))
    }

    /// The seed of `target += value` (or `-=`): the target's adjoint
    /// `bar`, copied first when `value` reads the target (`t += 2.0 * m *
    /// t`), since the reverse adds the value's own contribution to `bar`
    /// while the other operands' adjoints still need the one before it.
    fn target_bar_before(
        &mut self,
        target: &Expr,
        value: &Expr,
        bar: TokenStream,
    ) -> (Option<TokenStream>, TokenStream) {
        let Some(name) = root(target) else {
            return (None, bar);
        };
        let reads = value.any_expr(
            &|expr| matches!(&expr.kind, ExprKind::Path(path) if path.path.is_ident(&name)),
        );
        if !reads {
            return (None, bar);
        }
        let assigned = self.temp("assigned_bar");
        (
            Some(quote!(let #assigned = #bar;)),
            assigned.to_token_stream(),
        )
    }

    /// The current statement's forward (hoists, observes, pushes, then
    /// `stmt`) and reverse (pops, then the adjoint statements).
    fn finish(&mut self, stmt: TokenStream) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let cx = std::mem::take(&mut self.cx);
        let mut fwd = cx.hoists.clone();
        fwd.extend(cx.observes.iter().cloned());
        let (pushes, mut rev) = self.saves_code(&cx);
        fwd.extend(pushes);
        fwd.push(stmt);
        rev.extend(cx.rev);
        (fwd, rev)
    }

    /// A statement's pushes (forward, before the statement) and pops
    /// (reverse, before its adjoint statements), last pushed first popped.
    fn saves_code(&self, cx: &StmtCx) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let stack = &self.stack;
        let mut fwd = Vec::new();
        let mut rev = Vec::new();
        for (value, _) in &cx.saves {
            fwd.push(quote!(#stack.push(#value);));
        }
        for (index, _) in &cx.index_saves {
            fwd.push(quote!(#stack.push_index(#index);));
        }
        for (_, name) in cx.index_saves.iter().rev() {
            rev.push(quote!(let #name = #stack.pop_index();));
        }
        for (_, name) in cx.saves.iter().rev() {
            rev.push(quote!(let #name = #stack.pop();));
        }
        (fwd, rev)
    }

    /// An expression whose value goes somewhere (a `let`, an assignment, a
    /// block's tail) with adjoint `seed`: its forward statements, the
    /// expression giving its value, and its reverse.
    fn value(
        &mut self,
        expr: &Expr,
        seed: &Seed,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        // A value with no derivative may still write one or jump
        // (`{ y += x * y; 0.5 }`): its statements are reversed all the same.
        let touched = self.active(expr) || self.effects(expr);
        match &expr.kind {
            ExprKind::If { .. } if touched => self.if_expr(expr, Some(seed)),
            ExprKind::Match { scrutinee, arms } if touched => {
                self.match_expr(expr, scrutinee, arms, Some(seed))
            }
            ExprKind::Paren(inner) if matches!(inner.kind, ExprKind::If { .. }) => {
                self.value(inner, seed)
            }
            ExprKind::Block(None, block) if touched => {
                self.depth += 1;
                let code = self.block(block, Some(seed));
                self.depth -= 1;
                let BlockCode { fwd, value, rev } = code?;
                Ok((
                    Vec::new(),
                    quote!({ #(#fwd)* #value }),
                    vec![quote!({ #(#rev)* })],
                ))
            }
            ExprKind::Loop { label, body } => {
                let seed = self.active(expr).then_some(seed);
                self.loop_expr(*label, body, seed)
            }
            ExprKind::Block(..) if self.active(expr) => unsupported(describe(expr), expr),
            // `else { return 0.0 }`: the jump as a statement, whose block
            // never has a value.
            ExprKind::Return(_) | ExprKind::Break { .. } | ExprKind::Continue(_) => {
                let (f, r) = self.expr_stmt(expr, false)?;
                Ok((Vec::new(), quote!({ #(#f)* }), r))
            }
            _ => {
                if touched && !self.active(expr) {
                    return unsupported(describe(expr), expr);
                }
                let outer = std::mem::take(&mut self.cx);
                self.cx.temps = outer.temps.clone();
                if self.active(expr) {
                    self.rev(expr, seed.clone())?;
                }
                let v = self.fwd(expr)?;
                let v = if self.seeds_output(seed) {
                    self.output(expr, v)
                } else {
                    v
                };
                let value = self.temp_value();
                let (mut f, r) = self.finish(quote!(let #value = #v;));
                // The value is the last forward statement's binding; inline
                // it back when nothing came before it.
                let tail = f.pop().expect("finish pushed the statement");
                if f.is_empty() {
                    self.cx = outer;
                    return Ok((f, v, r));
                }
                f.push(tail);
                self.cx = outer;
                Ok((f, value.to_token_stream(), r))
            }
        }
    }

    fn temp_value(&self) -> Ident {
        Ident::new("value", Span::mixed_site())
    }

    // -----------------------------------------------------------------
    // Control flow.
    // -----------------------------------------------------------------

    fn if_expr(
        &mut self,
        expr: &Expr,
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        // The chain `if c0 {..} else if c1 {..} else {..}`.
        let mut arms: Vec<(Option<&Expr>, Option<&Block>)> = Vec::new();
        let mut current = expr;
        loop {
            match &current.kind {
                ExprKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    if matches!(cond.kind, ExprKind::Let { .. }) {
                        return unsupported("`if let`", current);
                    }
                    arms.push((Some(cond), Some(then_branch)));
                    match else_branch {
                        Some(next) => current = next,
                        None => {
                            arms.push((None, None));
                            break;
                        }
                    }
                }
                ExprKind::Block(None, block) => {
                    arms.push((None, Some(block)));
                    break;
                }
                _ => return unsupported(describe(current), current),
            }
        }
        let stack = self.stack.clone();
        let replay = arms
            .iter()
            .all(|(cond, _)| cond.is_none_or(|cond| self.fully_available(cond)));
        let mut observes = Vec::new();
        for (cond, _) in &arms {
            if let Some(cond) = cond {
                for place in self.active_places(cond) {
                    // A running extreme (`if d < best`): see `unobserved`.
                    if !self.unobserved.contains(&place.to_string()) {
                        observes.push(quote!(#stack.observe(#place);));
                    }
                }
            }
        }
        let mut fwd_arms = Vec::new();
        let mut rev_arms = Vec::new();
        self.depth += 1;
        for (k, (_, block)) in arms.iter().enumerate() {
            let pending = (!replay).then(|| {
                let k = Literal::u32_unsuffixed(k as u32);
                quote!(#stack.push_arm(#k);)
            });
            if let (Some(jumps), Some(record)) = (self.jumps.last_mut(), &pending) {
                jumps.pending.push(record.clone());
            }
            let code = match block {
                Some(block) => self.block(block, seed),
                None => Ok(BlockCode {
                    fwd: Vec::new(),
                    value: None,
                    rev: Vec::new(),
                }),
            };
            if let (Some(jumps), Some(_)) = (self.jumps.last_mut(), &pending) {
                jumps.pending.pop();
            }
            let code = match code {
                Ok(code) => code,
                Err(e) => {
                    self.depth -= 1;
                    return Err(e);
                }
            };
            let BlockCode { fwd, value, rev } = code;
            let record = (!replay).then(|| {
                let k = Literal::u32_unsuffixed(k as u32);
                quote!(#stack.push_arm(#k);)
            });
            let arm = match value {
                Some(value) if record.is_some() => {
                    let v = self.temp_value();
                    quote!({ #(#fwd)* let #v = #value; #record #v })
                }
                Some(value) => quote!({ #(#fwd)* #value }),
                None => quote!({ #(#fwd)* #record }),
            };
            fwd_arms.push(arm);
            rev_arms.push(quote!({ #(#rev)* }));
        }
        self.depth -= 1;
        let mut fwd = quote!();
        let mut rev = quote!();
        let n = arms.len();
        for (k, (cond, _)) in arms.iter().enumerate() {
            let arm = &fwd_arms[k];
            let back = &rev_arms[k];
            let cond_src = cond.map(|cond| cond.source.to_token_stream());
            match (k, cond_src) {
                (0, Some(c)) => {
                    fwd.extend(quote!(if #c #arm));
                    rev.extend(quote!(if #c #back));
                }
                (_, Some(c)) => {
                    fwd.extend(quote!(else if #c #arm));
                    rev.extend(quote!(else if #c #back));
                }
                (_, None) => {
                    fwd.extend(quote!(else #arm));
                    rev.extend(quote!(else #back));
                }
            }
        }
        let rev = if replay {
            rev
        } else {
            let numbered = (0..n).map(|k| Literal::u32_unsuffixed(k as u32));
            let backs = &rev_arms;
            quote! {
                match #stack.pop_arm() {
                    #(#numbered => #backs)*
                    _ => #stack.fail(),
                }
            }
        };
        Ok((observes, fwd, vec![rev]))
    }

    /// `match` on values that carry no derivative: each arm reversed under
    /// the same pattern when the scrutinee and guards are still there in
    /// the reverse sweep, else under the arm index the forward pushed.
    fn match_expr(
        &mut self,
        expr: &Expr,
        scrutinee: &Expr,
        arms: &[crate::ast::Arm],
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        if self.active(scrutinee) && !has_call(scrutinee) {
            return self.tracked_match(expr, scrutinee, arms, seed);
        }
        if self.active(scrutinee) || has_call(scrutinee) {
            return unsupported("`match` on a value with a derivative", expr);
        }
        let stack = self.stack.clone();
        let mut replay = self.fully_available(scrutinee);
        let mut observes = Vec::new();
        for arm in arms {
            if let Some(guard) = &arm.guard {
                self.scopes.push(Scope::default());
                let names = arm.pat.names.clone();
                self.scope().available.extend(names);
                replay &= self.fully_available(guard);
                self.scopes.pop();
                if has_call(guard) {
                    return unsupported("a `match` guard with a call", guard);
                }
                for place in self.active_places(guard) {
                    // Observed before the `match`, where the arm's own
                    // bindings do not exist yet.
                    if mentions_any(&place, &arm.pat.names) {
                        return unsupported(
                            "a `match` guard reading a tracked value through the arm's bindings",
                            guard,
                        );
                    }
                    observes.push(quote!(#stack.observe(#place);));
                }
            }
        }
        let mut fwd_arms = Vec::new();
        let mut rev_arms = Vec::new();
        self.depth += 1;
        let result = (|| -> R<()> {
            for (k, arm) in arms.iter().enumerate() {
                self.scopes.push(Scope::default());
                if replay {
                    let names = arm.pat.names.clone();
                    self.scope().available.extend(names);
                }
                let record = (!replay).then(|| {
                    let k = Literal::u32_unsuffixed(k as u32);
                    quote!(#stack.push_arm(#k);)
                });
                if let (Some(jumps), Some(record)) = (self.jumps.last_mut(), &record) {
                    jumps.pending.push(record.clone());
                }
                let code = self.arm_body(&arm.body, seed);
                if let (Some(jumps), Some(_)) = (self.jumps.last_mut(), &record) {
                    jumps.pending.pop();
                }
                self.scopes.pop();
                let (fwd, value, rev) = code?;
                let record = (!replay).then(|| {
                    let k = Literal::u32_unsuffixed(k as u32);
                    quote!(#stack.push_arm(#k);)
                });
                let v = self.temp_value();
                fwd_arms.push(match value {
                    Some(value) => quote!({ #(#fwd)* let #v = #value; #record #v }),
                    None => quote!({ #(#fwd)* #record }),
                });
                rev_arms.push(quote!({ #(#rev)* }));
            }
            Ok(())
        })();
        self.depth -= 1;
        result?;
        let scrutinee_src = scrutinee.source.to_token_stream();
        let (fwd, rev) = self.match_sweeps(&scrutinee_src, arms, &fwd_arms, &rev_arms, replay);
        Ok((observes, fwd, vec![rev]))
    }

    /// A `match`'s two sweeps once its arms are swept: the forward under
    /// the student's patterns and guards, the reverse under the same ones
    /// (`replay`: they read only values still there) or by the pushed arm.
    fn match_sweeps(
        &self,
        scrutinee_src: &TokenStream,
        arms: &[crate::ast::Arm],
        fwd_arms: &[TokenStream],
        rev_arms: &[TokenStream],
        replay: bool,
    ) -> (TokenStream, TokenStream) {
        let stack = &self.stack;
        let heads: Vec<TokenStream> = arms
            .iter()
            .map(|arm| {
                let pat = arm.pat.syntax;
                match &arm.guard {
                    Some(guard) => {
                        let guard = guard.source.to_token_stream();
                        quote!(#pat if #guard)
                    }
                    None => quote!(#pat),
                }
            })
            .collect();
        let fwd = quote!(match #scrutinee_src { #(#heads => #fwd_arms)* });
        let rev = if replay {
            quote!(match #scrutinee_src { #(#heads => #rev_arms)* })
        } else {
            let numbered = (0..arms.len()).map(|k| Literal::u32_unsuffixed(k as u32));
            quote! {
                match #stack.pop_arm() {
                    #(#numbered => #rev_arms)*
                    _ => #stack.fail(),
                }
            }
        };
        (fwd, rev)
    }

    /// `match` on a tracked number (`match x { v if v < 0.0 => .., v => .. }`):
    /// the number is compared as written, and a name an arm binds is the
    /// number itself, so the arm's reverse ends by adding that name's
    /// adjoint into the scrutinee's. The taken arm is replayed or pushed as
    /// for any `match`.
    fn tracked_match(
        &mut self,
        expr: &Expr,
        scrutinee: &Expr,
        arms: &[crate::ast::Arm],
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        if !is_place(scrutinee) || !self.scalar(scrutinee) {
            return unsupported("`match` on a computed value with a derivative", expr);
        }
        let scrutinee_bar = self.bar_place(scrutinee)?;
        let scrutinee_src = scrutinee.source.to_token_stream();
        let stack = self.stack.clone();
        // A guard compares the number (observed once, here) or other
        // values, observed before the `match` where the arm's names do not
        // exist yet.
        let mut observes = vec![quote!(#stack.observe(#scrutinee_src);)];
        let mut replay = self.fully_available(scrutinee);
        for arm in arms {
            let Some(guard) = &arm.guard else { continue };
            if has_call(guard) {
                return unsupported("a `match` guard with a call", guard);
            }
            self.scopes.push(Scope::default());
            let names = arm.pat.names.clone();
            self.scope().available.extend(names);
            replay &= self.fully_available(guard);
            self.scopes.pop();
            for place in self.active_places(guard) {
                if !mentions_any(&place, &arm.pat.names) {
                    observes.push(quote!(#stack.observe(#place);));
                }
            }
        }
        let mut fwd_arms = Vec::new();
        let mut rev_arms = Vec::new();
        self.depth += 1;
        let result = (|| -> R<()> {
            for (k, arm) in arms.iter().enumerate() {
                self.scopes.push(Scope::default());
                if replay {
                    let names = arm.pat.names.clone();
                    self.scope().available.extend(names);
                }
                let mut declare = Vec::new();
                let mut flows = Vec::new();
                let mut bound: Vec<&String> = Vec::new();
                for name in &arm.pat.names {
                    if self.an.active.contains(name) && !bound.contains(&name) {
                        bound.push(name);
                        let bar = self.bind(name);
                        declare.push(quote!(let mut #bar = 0.0;));
                        flows.push(quote!(#scrutinee_bar += #bar;));
                    }
                }
                let record = (!replay).then(|| {
                    let k = Literal::u32_unsuffixed(k as u32);
                    quote!(#stack.push_arm(#k);)
                });
                if let (Some(jumps), Some(record)) = (self.jumps.last_mut(), &record) {
                    jumps.pending.push(record.clone());
                }
                let code = self.arm_body(&arm.body, seed);
                if let (Some(jumps), Some(_)) = (self.jumps.last_mut(), &record) {
                    jumps.pending.pop();
                }
                self.scopes.pop();
                let (fwd, value, rev) = code?;
                let v = self.temp_value();
                fwd_arms.push(match value {
                    Some(value) => quote!({ #(#fwd)* let #v = #value; #record #v }),
                    None => quote!({ #(#fwd)* #record }),
                });
                rev_arms.push(quote!({ #(#declare)* #(#rev)* #(#flows)* }));
            }
            Ok(())
        })();
        self.depth -= 1;
        result?;
        let (fwd, rev) = self.match_sweeps(&scrutinee_src, arms, &fwd_arms, &rev_arms, replay);
        Ok((observes, fwd, vec![rev]))
    }

    /// A `match` arm's body: a block, or an expression whose value is the
    /// `match`'s (with `seed`) or a statement.
    #[allow(clippy::type_complexity)]
    fn arm_body(
        &mut self,
        body: &Expr,
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, Option<TokenStream>, Vec<TokenStream>)> {
        match (&body.kind, seed) {
            (ExprKind::Block(None, block), _) => {
                let BlockCode { fwd, value, rev } = self.block(block, seed)?;
                Ok((fwd, value, rev))
            }
            (_, Some(seed)) => {
                let (f, v, r) = self.value(body, seed)?;
                Ok((f, Some(v), r))
            }
            (_, None) => {
                let (f, r) = self.expr_stmt(body, true)?;
                Ok((f, None, r))
            }
        }
    }

    /// A loop's body: as a block, or, when it jumps, with an exit record
    /// per iteration and a reverse per exit (the statements up to the one
    /// that jumped). The caller has pushed the loop's scope.
    ///
    /// `level` is the loop's: its trip counter, label, and the adjoint of
    /// its value.
    fn loop_body_at(
        &mut self,
        body: &Block,
        level: Jumps,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        if !contains_jump(body) {
            let BlockCode { fwd, rev, .. } = self.block_inner(body, None)?;
            return Ok((fwd, rev));
        }
        self.jumps.push(level);
        let result = (|| {
            let mut prelude = Vec::new();
            let mut fwd = Vec::new();
            let mut revs = Vec::new();
            let mut owners = Vec::new();
            for (j, stmt) in body.stmts.iter().enumerate() {
                let before = self.jumps.last().map_or(0, |jumps| jumps.next);
                let (f, r) = self.stmt(stmt, &mut prelude)?;
                let after = self.jumps.last().map_or(0, |jumps| jumps.next);
                owners.extend((before..after).map(|k| (k + 1, j)));
                fwd.extend(f);
                revs.push(r);
            }
            Ok((prelude, fwd, revs, owners))
        })();
        self.jumps.pop();
        let (prelude, mut fwd, revs, owners) = result?;
        let stack = &self.stack;
        let exit = Ident::new("exit", Span::mixed_site());
        fwd.push(quote!(#stack.push_arm(0);));
        let reversed = |upto: usize| {
            let mut out = Vec::new();
            for r in revs[..=upto].iter().rev() {
                out.extend(r.iter().cloned());
            }
            out
        };
        let all = if revs.is_empty() {
            Vec::new()
        } else {
            reversed(revs.len() - 1)
        };
        let exits = owners.iter().map(|(k, j)| {
            let k = Literal::u32_unsuffixed(*k);
            let back = reversed(*j);
            quote!(#k => { #(#back)* })
        });
        Ok((
            fwd,
            vec![quote! {
                let #exit = #stack.pop_arm();
                #(#prelude)*
                match #exit {
                    0 => { #(#all)* }
                    #(#exits)*
                    _ => #stack.fail(),
                }
            }],
        ))
    }

    /// `while`: the forward counts the trips (leaving the loop as soon as
    /// an observed value is not finite, where the tape would have stopped)
    /// and pushes the count; the reverse runs the reversed body that many
    /// times.
    fn while_loop(
        &mut self,
        label: Option<&syn::Label>,
        cond: &Expr,
        body: &Block,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        if self.active(cond) || has_call(cond) || matches!(cond.kind, ExprKind::Let { .. }) {
            return unsupported("a `while` condition with a derivative", cond);
        }
        let stack = self.stack.clone();
        let trips = self.trips_ident();
        let observes: Vec<TokenStream> = self
            .active_places(cond)
            .into_iter()
            .map(|place| quote!(#stack.observe(#place);))
            .collect();
        self.depth += 1;
        self.scopes.push(Scope::default());
        let code = self.loop_body_at(body, level(label, Some(trips.clone())));
        self.scopes.pop();
        self.depth -= 1;
        let (fwd, rev) = code?;
        let cond_src = cond.source.to_token_stream();
        Ok((
            vec![quote! {
                let mut #trips: usize = 0;
                #label while { #(#observes)* #stack.finite() && (#cond_src) } {
                    #trips += 1;
                    #(#fwd)*
                }
                #stack.push_trips(#trips);
            }],
            vec![quote! {
                for _ in 0..#stack.pop_trips() {
                    #(#rev)*
                }
            }],
        ))
    }

    /// `loop`: counted like a `while` (the forward pushes its trips, each
    /// iteration how it ended), its value that of the `break` that ended
    /// it, whose reverse `seed` (the adjoint of the loop's value) seeds.
    /// The forward leaves as soon as an observed value is not finite,
    /// where the tape would have stopped.
    fn loop_expr(
        &mut self,
        label: Option<&syn::Label>,
        body: &Block,
        seed: Option<&Seed>,
    ) -> R<(Vec<TokenStream>, TokenStream, Vec<TokenStream>)> {
        if seed.is_some_and(|seed| seed.whole) {
            return unsupported_block("a `loop` whose value is an array", body);
        }
        let stack = self.stack.clone();
        let trips = self.trips_ident();
        let mut level = level(label, Some(trips.clone()));
        level.seed = seed.cloned();
        let active = body.any_expr(&|expr| {
            matches!(&expr.kind, ExprKind::Break { value: Some(value), .. } if self.active(value))
        });
        self.depth += 1;
        self.scopes.push(Scope::default());
        let code = self.loop_body_at(body, level);
        self.scopes.pop();
        self.depth -= 1;
        let (fwd, rev) = code?;
        let name = label.map(|label| &label.name);
        let rev = vec![quote! {
            for _ in 0..#stack.pop_trips() {
                #(#rev)*
            }
        }];
        // A loop no `break` leaves ends only by `return`, which pushes its
        // trips: it has no value, and a failed sweep leaves the function.
        if self.early && !body.any_expr(&|expr| matches!(expr.kind, ExprKind::Break { .. })) {
            let forward = syn::Lifetime::new("'forward", Span::mixed_site());
            return Ok((
                vec![quote!(let mut #trips: usize = 0;)],
                quote!(#label loop {
                    if !#stack.finite() {
                        break #forward #stack.failed();
                    }
                    #trips += 1;
                    #(#fwd)*
                }),
                rev,
            ));
        }
        // A loop whose value is a number leaves with the failed sweep's
        // NaN; one with a value of another type (an integer), which cannot
        // depend on a tracked value, runs as written.
        // A loop with a value nothing tracked reaches (`let k = loop {
        // break 0.5; }`) runs as written too: its `break` needs a value of
        // a type not known here.
        let valued =
            body.any_expr(&|expr| matches!(&expr.kind, ExprKind::Break { value: Some(_), .. }));
        let stop = match (seed, active) {
            (None, _) if valued => None,
            (None, _) => Some(quote!(break #name;)),
            (Some(_), true) => Some(quote!(break #name #stack.failed();)),
            (Some(_), false) => None,
        }
        .map(|stop| quote!(if !#stack.finite() { #stop }));
        let value = self.temp_value();
        Ok((
            vec![quote!(let mut #trips: usize = 0;)],
            quote!({
                let #value = #label loop {
                    #stop
                    #trips += 1;
                    #(#fwd)*
                };
                #stack.push_trips(#trips);
                #value
            }),
            rev,
        ))
    }

    /// A `break` with a value or a label, or a `continue` with a label:
    /// each loop it leaves records how its iteration ended and its trips,
    /// as a `return` does, and the loop it ends or continues how its
    /// iteration ended; so the reverse undoes exactly the iterations, and
    /// the part of each, that ran. A `break`'s value is seeded with the
    /// adjoint of the loop's value.
    fn jump(
        &mut self,
        expr: &Expr,
        label: Option<&syn::Lifetime>,
        value: Option<&Expr>,
        semi: Option<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let target = match label {
            Some(label) => {
                let name = label.ident.to_string();
                self.jumps.iter().rposition(|jumps| {
                    !jumps.function && jumps.label.as_deref() == Some(name.as_str())
                })
            }
            None => self
                .jumps
                .len()
                .checked_sub(1)
                .filter(|&last| !self.jumps[last].function),
        };
        let Some(target) = target else {
            return unsupported(describe(expr), expr);
        };
        self.cx = StmtCx::default();
        let value = match value {
            Some(value) => {
                let seed = self.jumps[target].seed.clone();
                match &seed {
                    Some(seed) if self.active(value) => self.rev(value, seed.clone())?,
                    _ => {
                        self.inert(value)?;
                    }
                }
                let v = self.fwd(value)?;
                Some(match seed {
                    Some(seed) if self.seeds_output(&seed) => self.output(value, v),
                    _ => v,
                })
            }
            None => None,
        };
        let stack = self.stack.clone();
        // Innermost first: each level's branch records, how its iteration
        // ended, and the trips of a loop left for good.
        let mut records = Vec::new();
        for (depth, jumps) in self.jumps.iter_mut().enumerate().skip(target).rev() {
            records.extend(jumps.pending.iter().rev().cloned());
            jumps.next += 1;
            let k = Literal::u32_unsuffixed(jumps.next);
            records.push(quote!(#stack.push_arm(#k);));
            if depth > target {
                if let Some(trips) = &jumps.trips {
                    records.push(quote!(#stack.push_trips(#trips);));
                }
            }
        }
        let keyword = match expr.kind {
            ExprKind::Continue(_) => quote!(continue),
            _ => quote!(break),
        };
        Ok(self.finish(quote!({ #(#records)* #keyword #label #value #semi })))
    }

    /// The tracked places an expression reads (for the finiteness check of
    /// a branch condition).
    fn active_places(&self, expr: &Expr) -> Vec<TokenStream> {
        let mut out = Vec::new();
        self.collect_places(expr, &mut out);
        out
    }

    fn collect_places(&self, expr: &Expr, out: &mut Vec<TokenStream>) {
        match &expr.kind {
            ExprKind::Path(_) | ExprKind::Index { .. } if self.active(expr) => {
                out.push(expr.source.to_token_stream());
            }
            _ => {
                for child in expr.children() {
                    if let crate::ast::Child::Expr(child) = child {
                        self.collect_places(child, out);
                    }
                }
            }
        }
    }

    fn for_loop(
        &mut self,
        whole: &Expr,
        label: Option<&syn::Label>,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        body: &Block,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let syntax = pat.syntax;
        let iter_src = iter.source.to_token_stream();
        // A loop that may stop early pushes how many trips it made.
        let stack = self.stack.clone();
        let trips = self.trips_ident();
        let counted = contains_jump(body);
        let counter = counted.then(|| trips.clone());
        let (count_init, count_step, count_push, take) = if counted {
            (
                quote!(let mut #trips: usize = 0;),
                quote!(#trips += 1;),
                quote!(#stack.push_trips(#trips);),
                quote!(.take(#stack.pop_trips())),
            )
        } else {
            (quote!(), quote!(), quote!(), quote!())
        };
        if range_like(iter) {
            if !self.fully_available(iter) {
                return unsupported("a `for` over a range whose bounds change", whole);
            }
            self.depth += 1;
            self.scopes.push(Scope::default());
            let names = pat.names.clone();
            self.scope().available.extend(names);
            let code = self.loop_body_at(body, level(label, counter.clone()));
            self.scopes.pop();
            self.depth -= 1;
            let (fwd, rev) = code?;
            return Ok((
                vec![quote! {
                    #count_init
                    #label for #syntax in #iter_src { #count_step #(#fwd)* }
                    #count_push
                }],
                vec![quote!(for #syntax in (#iter_src)#take.rev() { #(#rev)* })],
            ));
        }
        let Some(Elements { items, adaptors }) = self.elements(iter) else {
            return unsupported(format!("a `for` over {}", describe(iter)), whole);
        };
        let mut places = Vec::new();
        items.places(&mut places);
        // A local of numbers that changes before the reverse sweep (bound
        // again by each trip of a loop around, or written later): its items
        // are pushed after the loop, which borrows it unchanged, with their
        // count, and the reverse walks the popped copy.
        let mut saved = HashMap::new();
        let mut save_fwd = Vec::new();
        let mut save_rev = Vec::new();
        for place in &places {
            if self.fully_available(place) {
                continue;
            }
            let name = match &place.kind {
                ExprKind::Path(path) => path.path.get_ident(),
                _ => None,
            };
            let numbers = dims_of(place, &self.an.dims) == Some(1);
            // A `return` or a labelled jump would leave before the pushes
            // that the reverse of the statement it leaves pops.
            let stays = !body.any_expr(&|expr| match &expr.kind {
                ExprKind::Return(_) => true,
                ExprKind::Break { label, .. } => label.is_some(),
                ExprKind::Continue(label) => label.is_some(),
                _ => false,
            });
            let (Some(name), true, true) = (name, numbers, stays) else {
                return unsupported("a `for` over values that change", whole);
            };
            let copy = Ident::new(&format!("{}_items", name.unraw()), Span::mixed_site());
            let (stack, adjoint) = (&self.stack, &self.adjoint);
            save_fwd.push(quote! {
                #adjoint::Spread::push_all(&#name[..], #stack);
                #stack.push_index(#name.len());
            });
            save_rev.push(quote! {
                let #copy: ::std::vec::Vec<f64> = {
                    let count = #stack.pop_index();
                    #stack.pop_run(count).collect()
                };
            });
            saved.insert(place.id, copy);
        }
        save_rev.reverse();
        if !adaptors
            .iter()
            .all(|(_, args)| args.iter().all(|arg| self.fully_available(arg)))
        {
            return unsupported("a `for` over indices that change", whole);
        }
        let mut leaves = Vec::new();
        if items.leaves(pat.syntax, &mut leaves).is_none() {
            return unsupported("a `for` pattern", whole);
        }
        let index = Ident::new("index", Span::mixed_site());
        let adjoint = self.adjoint.clone();
        // Each element with a derivative gets its adjoint, added into the
        // place's at the end of the reversed iteration.
        let mut spreads = Vec::new();
        for (_, place) in &leaves {
            spreads.push(if self.active(place) {
                Some(self.bar_place(place)?)
            } else {
                None
            });
        }
        self.depth += 1;
        self.scopes.push(Scope::default());
        let names = pat.names.clone();
        self.scope().available.extend(names);
        let mut declare = Vec::new();
        let mut spread = Vec::new();
        for ((element, place), place_bar) in leaves.iter().zip(&spreads) {
            let name = element.to_string();
            if !self.an.active.contains(&name) {
                continue;
            }
            let bar = self.bind(&name);
            match place_bar {
                Some(place_bar) => {
                    declare.push(quote!(let mut #bar = #adjoint::zero_like(&#place_bar[#index]);));
                    spread.push(quote!(#adjoint::accumulate(&mut #place_bar[#index], &#bar);));
                }
                None => {
                    let src = place_tokens(place, &saved);
                    declare.push(quote!(let mut #bar = #adjoint::zero(&#src[#index]);));
                }
            }
        }
        let code = self.loop_body_at(body, level(label, counter.clone()));
        self.scopes.pop();
        self.depth -= 1;
        let (fwd, rev) = code?;
        let len = items.len(&saved);
        let element_value = items.item(&index, &saved);
        // `(0..n).rev().rev()` is `0..n`.
        let mut adaptors = adaptors;
        let mut reverse = quote!(.rev());
        if take.is_empty() && adaptors.last().is_some_and(|(method, _)| *method == "rev") {
            adaptors.pop();
            reverse = quote!();
        }
        let adaptors = adaptors.iter().map(|(method, args)| {
            let args = args.iter().map(|arg| arg.source.to_token_stream());
            quote!(.#method(#(#args),*))
        });
        Ok((
            vec![quote! {
                #count_init
                #label for #syntax in #iter_src { #count_step #(#fwd)* }
                #count_push
                #(#save_fwd)*
            }],
            vec![quote! {
                #(#save_rev)*
                for #index in (0..#len)#(#adaptors)*#take #reverse {
                    #[allow(unused_variables)]
                    let #syntax = #element_value;
                    #(#declare)*
                    #(#rev)*
                    #(#spread)*
                }
            }],
        ))
    }

    /// What a `for` iterates, when it is the items of places walked by
    /// index.
    fn elements<'e, 'a>(&self, iter: &'e Expr<'a>) -> Option<Elements<'e, 'a>> {
        let place = |place, by_ref| {
            Some(Elements {
                items: Items::Place { place, by_ref },
                adaptors: Vec::new(),
            })
        };
        match &iter.kind {
            ExprKind::Path(path) => {
                let name = path.path.get_ident()?.to_string();
                if !self.an.slices.contains(&name) && !self.an.arrays.contains(&name) {
                    return None;
                }
                // A slice's items are references; an array's or a `Vec`'s
                // of numbers are copies (of anything else: references).
                let by_ref =
                    self.an.slices.contains(&name) || dims_of(iter, &self.an.dims) != Some(1);
                place(iter, by_ref)
            }
            ExprKind::Paren(inner) => self.elements(inner),
            ExprKind::Reference {
                mutability: None,
                expr,
            } if is_place(expr) => place(expr, true),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => {
                let method_name = method.to_string();
                match (method_name.as_str(), args.as_slice()) {
                    ("iter", []) if is_place(receiver) => place(receiver, true),
                    ("copied" | "cloned", []) => {
                        let mut inner = self.elements(receiver)?;
                        match &mut inner.items {
                            Items::Place { by_ref, .. } if *by_ref => *by_ref = false,
                            _ => return None,
                        }
                        Some(inner)
                    }
                    // The position is the index while no adaptor has
                    // picked indices yet.
                    ("enumerate", []) => {
                        let inner = self.elements(receiver)?;
                        (inner.adaptors.is_empty() && !matches!(inner.items, Items::Enumerate(_)))
                            .then(|| Elements {
                                items: Items::Enumerate(Box::new(inner.items)),
                                adaptors: Vec::new(),
                            })
                    }
                    ("zip", [other]) => {
                        let inner = self.elements(receiver)?;
                        let other = self.elements(other)?;
                        (inner.adaptors.is_empty() && other.adaptors.is_empty()).then(|| Elements {
                            items: Items::Zip(Box::new(inner.items), Box::new(other.items)),
                            adaptors: Vec::new(),
                        })
                    }
                    ("rev", []) | ("step_by" | "skip" | "take", [_]) => {
                        let mut inner = self.elements(receiver)?;
                        inner.adaptors.push((method, args.as_slice()));
                        Some(inner)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    // -----------------------------------------------------------------
    // Expressions: the reverse first (it decides what is hoisted and
    // saved), then the forward.
    // -----------------------------------------------------------------

    /// A seed temporary `base`, numbered if the statement already has one.
    fn temp(&mut self, base: &str) -> Ident {
        let count = self.cx.temps.entry(base.to_owned()).or_default();
        *count += 1;
        let name = if *count == 1 {
            base.to_owned()
        } else {
            format!("{base}_{count}")
        };
        // Hygienic: a seed temporary never shadows a binding's adjoint
        // (`sum_bar` of a `let sum`) or a name of the student's.
        Ident::new(&name, Span::mixed_site())
    }

    /// The adjoint place of a place expression: `w1_bar[j][i]`; one whose
    /// index changes before the reverse sweep is refused (see
    /// `saved_bar_place`).
    fn bar_place(&self, place: &Expr) -> R<TokenStream> {
        self.bar_place_saving(place, None)
    }

    /// The adjoint place of a place the current statement reads or writes:
    /// an index that changes before the reverse sweep (`out[row] +=
    /// l[idx] * x[col]; idx += 1;`) is pushed before the statement and
    /// popped as the index of the adjoint place.
    fn saved_bar_place(&mut self, place: &Expr) -> R<TokenStream> {
        let mut saves = Vec::new();
        let bar = self.bar_place_saving(place, Some(&mut saves))?;
        self.cx.index_saves.extend(saves);
        Ok(bar)
    }

    /// `bar_place`, with the indices to save collected into `saves` when
    /// given (else refused).
    fn bar_place_saving(
        &self,
        place: &Expr,
        mut saves: Option<&mut Vec<(TokenStream, Ident)>>,
    ) -> R<TokenStream> {
        match &place.kind {
            ExprKind::Path(path) => {
                let Some(ident) = path.path.get_ident() else {
                    return unsupported("a path", place);
                };
                match self.bar_of(&ident.to_string()) {
                    Some(bar) => Ok(bar),
                    None => unsupported("a binding without an adjoint", place),
                }
            }
            ExprKind::Index { base, index } => {
                let base = self.bar_place_saving(base, saves.as_deref_mut())?;
                if self.fully_available(index) {
                    let index = index.source.to_token_stream();
                    return Ok(quote!(#base[#index]));
                }
                // One element's index (a `usize`), read twice in the
                // forward (pushed, then indexed) with no effect between.
                let savable = !has_call(index) && !matches!(index.kind, ExprKind::Range { .. });
                let Some(saves) = saves.filter(|_| savable) else {
                    return unsupported("an index that changes before the reverse sweep", index);
                };
                let src = index.source.to_token_stream();
                let key = src.to_string();
                let known = self
                    .cx
                    .index_saves
                    .iter()
                    .chain(saves.iter())
                    .find(|(value, _)| value.to_string() == key);
                let name = match known {
                    Some((_, name)) => name.clone(),
                    None => {
                        let k = self.cx.index_saves.len() + saves.len() + 1;
                        let name = if k == 1 {
                            Ident::new("saved_index", Span::mixed_site())
                        } else {
                            Ident::new(&format!("saved_index_{k}"), Span::mixed_site())
                        };
                        saves.push((src, name.clone()));
                        name
                    }
                };
                Ok(quote!(#base[#name]))
            }
            ExprKind::Paren(inner)
            | ExprKind::Reference { expr: inner, .. }
            | ExprKind::Prefix {
                op: syn::UnOp::Deref(_),
                operand: inner,
            } => self.bar_place_saving(inner, saves),
            // A model's adjoint is a model: `net_bar.layers[k].w[j]`.
            ExprKind::Field { base, member } => {
                let base = self.bar_place_saving(base, saves)?;
                Ok(quote!(#base.#member))
            }
            _ => unsupported(describe(place), place),
        }
    }

    /// `place_bar += seed;` (or the whole-array form).
    fn accumulate(&mut self, place: &Expr, seed: Seed) -> R<()> {
        if !self.active(place) {
            return Ok(());
        }
        // An array where a number goes (`x * 2.0` with `x: [f64; 2]`): the
        // plain twin's error; an adjoint of it would add a second one.
        if !seed.whole && dims_of(place, &self.an.dims).is_some_and(|dims| dims > 0) {
            return unsupported("an array used as a number", place);
        }
        let bar = self.saved_bar_place(place)?;
        let tokens = &seed.tokens;
        let adjoint = &self.adjoint;
        let stmt = if seed.whole {
            if seed.negated {
                return unsupported("the difference of two arrays", place);
            }
            quote!(#adjoint::accumulate(&mut #bar, &#tokens);)
        } else if seed.negated {
            quote!(#bar -= #tokens;)
        } else {
            quote!(#bar += #tokens;)
        };
        self.cx.rev.push(stmt);
        Ok(())
    }

    /// Passes `seed × factor` to `child`: inline into a place, or through a
    /// named temporary into a subexpression.
    fn pass(&mut self, child: &Expr, seed: &Seed, factor: Factor) -> R<()> {
        if !self.active(child) {
            return Ok(());
        }
        let seed = seed.times(&factor);
        if is_place(child) {
            return self.accumulate(child, seed);
        }
        let simple = matches!(factor, Factor::One);
        if simple {
            return self.rev(child, seed);
        }
        let name = self.temp(&temp_name(child));
        let tokens = &seed.tokens;
        self.cx.rev.push(quote!(let #name = #tokens;));
        self.rev(
            child,
            Seed {
                tokens: name.to_token_stream(),
                negated: seed.negated,
                whole: false,
            },
        )
    }

    /// The adjoint statements of `expr` seeded with `seed`.
    fn rev(&mut self, expr: &Expr, seed: Seed) -> R<()> {
        if !self.active(expr) {
            return Ok(());
        }
        match &expr.kind {
            ExprKind::Path(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                self.accumulate(expr, seed)
            }
            ExprKind::Paren(inner)
            | ExprKind::Reference { expr: inner, .. }
            | ExprKind::Prefix {
                op: syn::UnOp::Deref(_),
                operand: inner,
            } => self.rev(inner, seed),
            ExprKind::Structural {
                receiver, method, ..
            } if matches!(
                method.to_string().as_str(),
                "clone" | "to_vec" | "copied" | "cloned"
            ) =>
            {
                let seed = Seed {
                    whole: true,
                    ..seed
                };
                self.rev(receiver, seed)
            }
            ExprKind::Binary { op, lhs, rhs, .. } => self.rev_binary(expr, *op, lhs, rhs, &seed),
            ExprKind::Array(items) | ExprKind::VecList(items) => self.rev_items(expr, items, &seed),
            ExprKind::Neg { operand, .. } => {
                self.pass(operand, &seed.clone().negate(), Factor::One)
            }
            ExprKind::Elementary { func, operand, .. } => {
                let factor = rules::elementary(self, func, operand, expr)?;
                match factor {
                    Some(factor) => self.pass(operand, &seed, factor),
                    None => Ok(()),
                }
            }
            ExprKind::Ternary { func, operands, .. } => {
                self.rev_ternary(expr, func, operands, &seed)
            }
            ExprKind::Powi { base, exponent, .. } => {
                if !self.fully_available(exponent) {
                    return unsupported("`powi` of an exponent that changes", exponent);
                }
                let x = self.val(base)?;
                let n = exponent.source.to_token_stream();
                let rule = rules::powi();
                let factor = Factor::Times(quote!(#rule(#x, #n)), false);
                self.pass(base, &seed, factor)
            }
            ExprKind::Sum { items, .. } => {
                let Some((place, _)) = element_source(items) else {
                    return unsupported(format!("`sum` of `{}`", describe(items)), expr);
                };
                let bar = self.bar_place(place)?;
                let item = Ident::new("item_bar", Span::mixed_site());
                let tokens = &seed.tokens;
                let op = if seed.negated { quote!(-=) } else { quote!(+=) };
                self.cx.rev.push(quote! {
                    for #item in #bar.iter_mut() {
                        *#item #op #tokens;
                    }
                });
                Ok(())
            }
            ExprKind::Call { func, args } => self.rev_call(expr, func, args, &seed),
            ExprKind::PlainMethod {
                receiver,
                method,
                args,
                ..
            } if self.method_call(expr) => {
                let reverse = format_ident!("{}_reverse", method.unraw(), span = method.span());
                let receiver_src = receiver.source.to_token_stream();
                let reverse = quote!(#receiver_src.#reverse);
                self.rev_invoke(reverse, Some(receiver), args, &seed)
            }
            _ => unsupported(describe(expr), expr),
        }
    }

    /// An array literal or `vec![..]` of tracked values (`[x[0] - c[3],
    /// x[1] - c[4]]`): each item's adjoint is the whole seed's at its
    /// position, right to left.
    fn rev_items(&mut self, expr: &Expr, items: &[Expr], seed: &Seed) -> R<()> {
        if !seed.whole {
            return unsupported("an array used as a number", expr);
        }
        let tokens = &seed.tokens;
        let whole = if is_simple(tokens) {
            tokens.clone()
        } else {
            quote!((#tokens))
        };
        for (k, item) in items.iter().enumerate().rev() {
            let k = Literal::usize_unsuffixed(k);
            let item_seed = Seed {
                tokens: quote!(#whole[#k]),
                negated: false,
                whole: !self.scalar(item),
            };
            let item_seed = if seed.negated {
                item_seed.negate()
            } else {
                item_seed
            };
            self.pass(item, &item_seed, Factor::One)?;
        }
        Ok(())
    }

    fn rev_binary(&mut self, expr: &Expr, op: Arith, lhs: &Expr, rhs: &Expr, seed: &Seed) -> R<()> {
        // Right to left, and a place before a subexpression, so that each
        // adjoint statement reads like the line it reverses.
        let order: [(&Expr, bool); 2] = if is_place(lhs) && !is_place(rhs) {
            [(lhs, true), (rhs, false)]
        } else {
            [(rhs, false), (lhs, true)]
        };
        match op {
            Arith::Add | Arith::Sub => {
                let shared = if self.active(lhs) && self.active(rhs) && !is_simple(&seed.tokens) {
                    let name = self.temp(&temp_name(expr));
                    let tokens = &seed.tokens;
                    self.cx.rev.push(quote!(let #name = #tokens;));
                    Seed {
                        tokens: name.to_token_stream(),
                        ..seed.clone()
                    }
                } else {
                    seed.clone()
                };
                for (child, left) in order {
                    let s = if !left && op == Arith::Sub {
                        shared.clone().negate()
                    } else {
                        shared.clone()
                    };
                    self.pass(child, &s, Factor::One)?;
                }
                Ok(())
            }
            Arith::Mul => {
                for (child, left) in order {
                    if !self.active(child) {
                        continue;
                    }
                    let other = self.val(if left { rhs } else { lhs })?;
                    self.pass(child, seed, Factor::Times(other, false))?;
                }
                Ok(())
            }
            Arith::Div => {
                for (child, left) in order {
                    if !self.active(child) {
                        continue;
                    }
                    let b = self.val(rhs)?;
                    if left {
                        self.pass(child, seed, Factor::Over(b, false))?;
                    } else {
                        let a = self.val(lhs)?;
                        self.pass(child, seed, Factor::Times(quote!((#a / #b) / #b), true))?;
                    }
                }
                Ok(())
            }
            Arith::Rem => unsupported("`%`", expr),
            Arith::Method(name) => {
                let Some(rule) = rules::two_operand(name) else {
                    return unsupported(format!("`{name}`"), expr);
                };
                let a = self.val(lhs)?;
                let b = self.val(rhs)?;
                let partials = self.temp("partials");
                self.cx.rev.push(quote!(let #partials = #rule(#a, #b);));
                for (child, left) in order {
                    let part = if left {
                        quote!(#partials.0)
                    } else {
                        quote!(#partials.1)
                    };
                    self.pass(child, seed, Factor::Times(part, false))?;
                }
                Ok(())
            }
        }
    }

    /// `a.mul_add(b, c)` and `x.clamp(lo, hi)`, with the tape's local
    /// derivatives (`src/private/arithmetic.rs`): `mul_add` is `a * b`
    /// then `+ c`; `clamp` is `max(min(x, hi), lo)`, whose partials
    /// (1/2 each at a tie) `clamp_partials` multiplies out.
    fn rev_ternary(
        &mut self,
        expr: &Expr,
        func: &str,
        operands: &[Box<Expr>; 3],
        seed: &Seed,
    ) -> R<()> {
        let [first, second, third] = operands;
        match func {
            "mul_add" => {
                self.pass(third, seed, Factor::One)?;
                for (child, other) in [(second, first), (first, second)] {
                    if !self.active(child) {
                        continue;
                    }
                    let other = self.val(other)?;
                    self.pass(child, seed, Factor::Times(other, false))?;
                }
                Ok(())
            }
            "clamp" => {
                let x = self.val(first)?;
                let lo = self.val(second)?;
                let hi = self.val(third)?;
                let partials = self.temp("clamp_partials");
                let adjoint = &self.adjoint;
                self.cx
                    .rev
                    .push(quote!(let #partials = #adjoint::clamp_partials(#x, #lo, #hi);));
                for (child, part) in [
                    (third, quote!(#partials.2)),
                    (second, quote!(#partials.1)),
                    (first, quote!(#partials.0)),
                ] {
                    self.pass(child, seed, Factor::Times(part, false))?;
                }
                Ok(())
            }
            other => unsupported(format!("`{other}`"), expr),
        }
    }

    fn rev_call(&mut self, expr: &Expr, func: &syn::Path, args: &[Expr], seed: &Seed) -> R<()> {
        let reverse = sibling(&self.stand_ins, func, "reverse");
        let _ = expr;
        self.rev_invoke(reverse, None, args, seed)
    }

    /// The reverse of a call of `reverse`'s pair: of a function, or of a
    /// method on `receiver`, which is its first argument (by reference,
    /// its adjoint the model's adjoint at the same place).
    fn rev_invoke(
        &mut self,
        reverse: TokenStream,
        receiver: Option<&Expr>,
        args: &[Expr],
        seed: &Seed,
    ) -> R<()> {
        let stack = self.stack.clone();
        let adjoint = self.adjoint.clone();
        let mut arg_src = Vec::new();
        let mut bars = Vec::new();
        let mut after = Vec::new();
        // The reverse reads no argument's value (the forward pushed the
        // gradient at the arguments), only their adjoints: an argument that
        // changes before the reverse sweep (`lse(&v)` in the loop that
        // rewrites `v`) is passed as `None`, its adjoint at its place, with
        // any index the body changes saved.
        let mut replayed = true;
        if let Some(receiver) = receiver {
            let available = self.fully_available(receiver);
            replayed &= available;
            let src = receiver.source.to_token_stream();
            arg_src.push(quote!(&#src));
            if self.active(receiver) {
                let bar = self.saved_bar_place(receiver)?;
                bars.push(quote!(&mut #bar));
            } else if available {
                bars.push(quote!(&mut #adjoint::zero(&(#src))));
            } else {
                return unsupported("a method called on a model that changes", receiver);
            }
        }
        for arg in args {
            let available = self.fully_available(arg);
            replayed &= available;
            let src = arg.source.to_token_stream();
            arg_src.push(self.passed(arg));
            let place = match &arg.kind {
                ExprKind::Reference {
                    mutability: None,
                    expr,
                } if is_place(expr) => Some(&**expr),
                _ if is_place(arg) => Some(arg),
                _ => None,
            };
            if !self.active(arg) {
                // A constant argument's adjoint, which takes its part of the
                // gradient and drops it: shaped by the argument, or a
                // number's.
                if available {
                    bars.push(quote!(&mut #adjoint::zero(&(#src))));
                } else if self.scalar(arg) {
                    bars.push(quote!(&mut 0.0));
                } else {
                    return unsupported(
                        "a call whose argument changes before the reverse sweep",
                        arg,
                    );
                }
            } else if let Some(place) = place {
                let bar = self.saved_bar_place(place)?;
                // Two `&mut` of one adjoint in one call do not borrow-check.
                if bars
                    .iter()
                    .any(|seen| seen.to_string() == quote!(&mut #bar).to_string())
                {
                    return unsupported("a call that passes one tracked value twice", arg);
                }
                bars.push(quote!(&mut #bar));
            } else {
                let name = self.temp("argument_bar");
                self.cx.rev.push(quote!(let mut #name = 0.0;));
                bars.push(quote!(&mut #name));
                after.push((arg, name));
            }
        }
        let value_bar = seed.signed();
        let args = if replayed {
            quote!(#adjoint::args((#(#arg_src,)*)))
        } else {
            quote!(::core::option::Option::None)
        };
        self.cx.rev.push(quote! {
            #reverse(#stack, #args, #value_bar, #adjoint::args((#(#bars,)*)));
        });
        for (arg, name) in after.into_iter().rev() {
            self.rev(arg, Seed::new(name.to_token_stream()))?;
        }
        Ok(())
    }

    /// The value of `expr` in the reverse sweep: recomputed from what is
    /// still there, restored from the stack, or hoisted and saved.
    pub fn val(&mut self, expr: &Expr) -> R<TokenStream> {
        if let Some(name) = self.cx.hoisted.get(&expr.id) {
            return Ok(name.to_token_stream());
        }
        match &expr.kind {
            ExprKind::Lit(syn::Lit::Int(int)) => {
                let value: f64 = int.base10_parse::<u64>().map_or(f64::NAN, |v| v as f64);
                Ok(Literal::f64_unsuffixed(value).to_token_stream())
            }
            ExprKind::Lit(_) | ExprKind::NegLit(_) => Ok(self.number(expr)),
            ExprKind::Path(path) => {
                let src = self.number(expr);
                let Some(ident) = path.path.get_ident() else {
                    return Ok(src);
                };
                if self.available(&ident.to_string()) {
                    Ok(src)
                } else {
                    Ok(self.save(src, ident.clone()).to_token_stream())
                }
            }
            ExprKind::Paren(inner) => {
                let inner = self.val(inner)?;
                Ok(quote!((#inner)))
            }
            _ if self.fully_available(expr) && is_arithmetic(expr) => {
                let src = expr.source.to_token_stream();
                let src = if is_place(expr) { src } else { quote!((#src)) };
                Ok(self.as_number(expr, src))
            }
            ExprKind::Index { .. } | ExprKind::Field { .. } => {
                let src = self.number(expr);
                let name = self.fresh(&sanitize(&expr.source.to_token_stream().to_string()));
                Ok(self.save(src, name).to_token_stream())
            }
            ExprKind::Binary { op, lhs, rhs, .. } => {
                let l = self.val(lhs)?;
                let r = self.val(rhs)?;
                Ok(match op {
                    Arith::Add => quote!((#l + #r)),
                    Arith::Sub => quote!((#l - #r)),
                    Arith::Mul => quote!((#l * #r)),
                    Arith::Div => quote!((#l / #r)),
                    _ => self.hoist(expr).to_token_stream(),
                })
            }
            ExprKind::Neg { operand, .. } => {
                let x = self.val(operand)?;
                Ok(quote!((-#x)))
            }
            ExprKind::Elementary { .. }
            | ExprKind::Powi { .. }
            | ExprKind::Ternary { .. }
            | ExprKind::Sum { .. }
            | ExprKind::Call { .. } => {
                let name = self.hoist(expr).to_token_stream();
                Ok(self.as_number(expr, name))
            }
            _ if self.method_call(expr) => {
                let name = self.hoist(expr).to_token_stream();
                Ok(self.as_number(expr, name))
            }
            // `i as f64` of a loop's index: there again in the reverse.
            ExprKind::Cast { expr: inner, .. }
                if is_arithmetic(inner) && self.fully_available(expr) =>
            {
                let src = expr.source.to_token_stream();
                Ok(self.as_number(expr, quote!((#src))))
            }
            ExprKind::Cast { .. } | ExprKind::PlainCall { .. } | ExprKind::PlainMethod { .. } => {
                let src = expr.source.to_token_stream();
                let src = self.as_number(expr, quote!((#src)));
                let name = self.fresh("operand");
                Ok(self.save(src, name).to_token_stream())
            }
            _ => unsupported(describe(expr), expr),
        }
    }

    /// Whether the body shows `expr` is an `f64` (see `shows_number`).
    fn shows_number(&self, expr: &Expr) -> bool {
        shows_number(expr, &self.an.active, &|name| {
            self.an.numbers.contains(name)
        })
    }

    /// `expr` as written where the body shows it is an `f64`, else read
    /// through `f64_of`: a mistaken type is then the plain twin's error
    /// alone (`src/adjoint/operands.rs`).
    fn number(&self, expr: &Expr) -> TokenStream {
        let src = expr.source.to_token_stream();
        self.as_number(expr, src)
    }

    /// `tokens`, computing `expr`, read as in [`Self::number`].
    fn as_number(&self, expr: &Expr, tokens: TokenStream) -> TokenStream {
        if self.shows_number(expr) {
            tokens
        } else {
            let adjoint = &self.adjoint;
            quote!(#adjoint::f64_of(#tokens))
        }
    }

    /// The function's value, `v` computing `expr`: read through `f64_of`
    /// unless the body shows it is an `f64`, so that a body returning a
    /// `bool` or an integer is the plain twin's mismatched types only.
    fn output(&self, expr: &Expr, v: TokenStream) -> TokenStream {
        // `panic!()`, `return`: of type `!`, which is an `f64` already.
        if expr.diverges() || self.outputs_as_written {
            return v;
        }
        if expr.is_int_literal() {
            let adjoint = &self.adjoint;
            return quote!(#adjoint::f64_of(#v));
        }
        self.as_number(expr, v)
    }

    /// Reads the function's value as the body computes it: see the field.
    pub fn outputs_as_written(&mut self, yes: bool) {
        self.outputs_as_written = yes;
    }

    /// Whether `seed` is the function value's own adjoint: the value it
    /// seeds is the function's result.
    fn seeds_output(&self, seed: &Seed) -> bool {
        !seed.negated && !seed.whole && seed.tokens.to_string() == self.value_bar.to_string()
    }

    /// Saves `value` before the statement; the reverse pops it as `name`.
    fn save(&mut self, value: TokenStream, name: Ident) -> Ident {
        let key = value.to_string();
        if let Some(name) = self.cx.saved_keys.get(&key) {
            return name.clone();
        }
        self.cx.saved_keys.insert(key, name.clone());
        self.cx.saves.push((value, name.clone()));
        name
    }

    /// Names the value of `expr` in the forward sweep (`let z_tanh =
    /// z.tanh();`), saved unless it stays in scope for the reverse.
    pub fn hoist(&mut self, expr: &Expr) -> Ident {
        if let Some(name) = self.cx.hoisted.get(&expr.id) {
            return name.clone();
        }
        let base = hoist_name(expr);
        if matches!(expr.kind, ExprKind::Call { .. }) || is_method_call(expr) {
            // Out of rustc's suggestions for a misspelt or unannotated
            // callee: the student never wrote this name.
            let count = self.calls.entry(base.clone()).or_default();
            *count += 1;
            let name = if *count == 1 {
                base
            } else {
                format!("{base}_{count}")
            };
            let name = Ident::new(&name, Span::mixed_site());
            self.cx.hoisted.insert(expr.id, name.clone());
            if self.depth > 0 || self.early {
                self.cx.hoist_saved.insert(expr.id);
            }
            return name;
        }
        let stays = self.depth == 0 && !self.early;
        let taken = |sweep: &Self, name: &Ident| {
            let name = name.to_string();
            sweep.cx.names.contains(&name) || (stays && sweep.top_names.contains(&name))
        };
        let mut name = self.fresh(&base);
        let mut k = 1;
        while taken(self, &name) {
            k += 1;
            name = self.fresh(&format!("{base}_{k}"));
        }
        self.cx.names.insert(name.to_string());
        if stays {
            self.top_names.insert(name.to_string());
        }
        self.cx.hoisted.insert(expr.id, name.clone());
        if !stays {
            self.cx.hoist_saved.insert(expr.id);
        }
        name
    }

    pub fn observe(&mut self, value: TokenStream) {
        let stack = &self.stack;
        self.cx.observes.push(quote!(#stack.observe(#value);));
    }

    /// The forward expression: as written where nothing is hoisted or
    /// called, else rebuilt with the hoisted names.
    fn fwd(&mut self, expr: &Expr) -> R<TokenStream> {
        let hoisted = self.cx.hoisted.get(&expr.id).cloned();
        let is_call = (matches!(expr.kind, ExprKind::Call { .. }) && self.active(expr))
            || self.method_call(expr);
        if hoisted.is_none() && !is_call && !self.needs_rebuild(expr) {
            self.observe_absorbing(expr)?;
            return Ok(expr.source.to_token_stream());
        }
        let inner = self.fwd_rebuild(expr)?;
        let name = match hoisted {
            Some(name) => name,
            None if is_call => {
                let name = self.hoist(expr);
                // A call's value is read only if `val` asked for it.
                self.cx.hoist_saved.remove(&expr.id);
                name
            }
            None => return Ok(inner),
        };
        self.cx.hoists.push(quote!(let #name = #inner;));
        if self.cx.hoist_saved.contains(&expr.id) {
            self.cx.saves.push((name.to_token_stream(), name.clone()));
        }
        Ok(name.to_token_stream())
    }

    /// Whether some node below `expr` is hoisted or is an annotated call.
    fn needs_rebuild(&self, expr: &Expr) -> bool {
        expr.children().into_iter().any(|child| match child {
            crate::ast::Child::Expr(child) => {
                self.cx.hoisted.contains_key(&child.id)
                    || (matches!(child.kind, ExprKind::Call { .. }) && self.active(child))
                    || self.method_call(child)
                    || self.needs_rebuild(child)
            }
            crate::ast::Child::Block(_) => false,
        })
    }

    /// Observes the operands of absorbing operations in a subtree printed
    /// as written.
    fn observe_absorbing(&mut self, expr: &Expr) -> R<()> {
        if !self.active(expr) {
            return Ok(());
        }
        match &expr.kind {
            ExprKind::Elementary { func, operand, .. } if rules::absorbs(func) => {
                let src = operand.source.to_token_stream();
                self.observe(src);
            }
            ExprKind::Powi { base, .. } => {
                let src = base.source.to_token_stream();
                self.observe(src);
            }
            ExprKind::Ternary { func, operands, .. } => {
                let [a, b, c] = operands.each_ref().map(|e| e.source.to_token_stream());
                self.observe_ternary(func, operands, [a, b, c]);
            }
            ExprKind::Binary {
                op: Arith::Div,
                rhs,
                ..
            } => {
                let src = rhs.source.to_token_stream();
                self.observe(src);
            }
            ExprKind::Binary {
                op: Arith::Method(_),
                lhs,
                rhs,
                ..
            } => {
                let (l, r) = (lhs.source.to_token_stream(), rhs.source.to_token_stream());
                self.observe_operand(lhs, l);
                self.observe_operand(rhs, r);
            }
            _ => {}
        }
        for child in expr.children() {
            if let crate::ast::Child::Expr(child) = child {
                self.observe_absorbing(child)?;
            }
        }
        Ok(())
    }

    /// What the tape would reject in a `mul_add` or `clamp` whose value
    /// hides it: the product `a * b` it records before adding `c` (the
    /// fused value can be finite where the product overflowed), or a
    /// non-finite tracked operand `clamp` brings back into range. A
    /// constant operand is no node, which the tape takes as it is (an
    /// infinite bound, say).
    fn observe_ternary(&mut self, func: &str, operands: &[Box<Expr>; 3], values: [TokenStream; 3]) {
        let [a, b, c] = values;
        if func == "mul_add" {
            if self.active(&operands[0]) || self.active(&operands[1]) {
                let [a, b] = [a, b].map(|v| if is_simple(&v) { v } else { quote!((#v)) });
                self.observe(quote!(#a * #b));
            }
            return;
        }
        for (operand, value) in operands.iter().zip([a, b, c]) {
            if self.active(operand) {
                self.observe_operand(operand, value);
            }
        }
    }

    fn fwd_rebuild(&mut self, expr: &Expr) -> R<TokenStream> {
        if let ExprKind::Array(items) | ExprKind::VecList(items) = &expr.kind {
            let items = items
                .iter()
                .map(|item| self.fwd(item))
                .collect::<R<Vec<_>>>()?;
            return Ok(match expr.kind {
                ExprKind::Array(_) => quote!([#(#items),*]),
                _ => quote!(::std::vec![#(#items),*]),
            });
        }
        let source = match expr.source {
            Source::Expr(source) => source,
            Source::Macro(_) => return unsupported(describe(expr), expr),
        };
        Ok(match (&expr.kind, source) {
            (ExprKind::Paren(inner), _) => {
                let inner = self.fwd(inner)?;
                quote!((#inner))
            }
            (ExprKind::Binary { op, lhs, rhs, .. }, syn::Expr::Binary(binary)) => {
                let l = self.fwd(lhs)?;
                let r = self.fwd(rhs)?;
                if *op == Arith::Div {
                    self.observe(r.clone());
                }
                let op = &binary.op;
                quote!(#l #op #r)
            }
            (ExprKind::Binary { lhs, rhs, .. }, syn::Expr::MethodCall(call)) => {
                let l = self.fwd(lhs)?;
                let r = self.fwd(rhs)?;
                self.observe_operand(lhs, l.clone());
                self.observe_operand(rhs, r.clone());
                let method = &call.method;
                quote!(#l.#method(#r))
            }
            (ExprKind::Binary { lhs, rhs, .. }, syn::Expr::Call(call)) => {
                let l = self.fwd(lhs)?;
                let r = self.fwd(rhs)?;
                self.observe_operand(lhs, l.clone());
                self.observe_operand(rhs, r.clone());
                let func = &call.func;
                quote!(#func(#l, #r))
            }
            (ExprKind::Neg { operand, .. }, _) => {
                let x = self.fwd(operand)?;
                quote!(-#x)
            }
            (ExprKind::Elementary { func, operand, .. }, source) => {
                let x = self.fwd(operand)?;
                if rules::absorbs(func) {
                    self.observe(x.clone());
                }
                match source {
                    syn::Expr::MethodCall(call) => {
                        let method = &call.method;
                        quote!(#x.#method())
                    }
                    syn::Expr::Call(call) => {
                        let func = &call.func;
                        quote!(#func(#x))
                    }
                    _ => return unsupported(describe(expr), expr),
                }
            }
            (ExprKind::Ternary { func, operands, .. }, source) => {
                let [a, b, c] = operands;
                let values = [self.fwd(a)?, self.fwd(b)?, self.fwd(c)?];
                self.observe_ternary(func, operands, values.clone());
                let [a, b, c] = values;
                match source {
                    syn::Expr::MethodCall(call) => {
                        let method = &call.method;
                        quote!(#a.#method(#b, #c))
                    }
                    syn::Expr::Call(call) => {
                        let func = &call.func;
                        quote!(#func(#a, #b, #c))
                    }
                    _ => return unsupported(describe(expr), expr),
                }
            }
            (ExprKind::Powi { base, exponent, .. }, source) => {
                let x = self.fwd(base)?;
                self.observe(x.clone());
                let n = exponent.source.to_token_stream();
                match source {
                    // The student's `.powi`: a mistaken exponent is then
                    // reported as in the plain twin, once.
                    syn::Expr::MethodCall(call) => {
                        let (dot, method) = (&call.dot_token, &call.method);
                        quote!(#x #dot #method(#n))
                    }
                    syn::Expr::Call(call) => {
                        let func = &call.func;
                        quote!(#func(#x, #n))
                    }
                    _ => quote!(f64::powi(#x, #n)),
                }
            }
            // No derivative flows through the call, so no reverse will pop
            // what its forward would push: the plain function.
            (ExprKind::Call { .. }, _) if !self.active(expr) => expr.source.to_token_stream(),
            (ExprKind::Call { func, args }, _) => {
                let forward = sibling(&self.stand_ins, func, "forward");
                let args = self.fwd_args(args)?;
                let (stack, adjoint) = (&self.stack, &self.adjoint);
                quote!(#forward(#stack, #adjoint::args((#(#args,)*))))
            }
            (
                ExprKind::PlainMethod {
                    receiver,
                    method,
                    args,
                    ..
                },
                _,
            ) if self.method_call(expr) => {
                let forward = format_ident!("{}_forward", method.unraw(), span = method.span());
                let args = self.fwd_args(args)?;
                let (stack, adjoint) = (&self.stack, &self.adjoint);
                let receiver = receiver.source.to_token_stream();
                quote!(#receiver.#forward(#stack, #adjoint::args((&#receiver, #(#args,)*))))
            }
            _ => {
                if self.needs_rebuild(expr) {
                    return unsupported(describe(expr), expr);
                }
                expr.source.to_token_stream()
            }
        })
    }

    /// A call's arguments in the forward sweep: a binding passed by value
    /// as a clone (see `passed`), anything else with the values it hoists
    /// for the reverse (`hh(x, x.recip())` names `x_recip` here).
    fn fwd_args(&mut self, args: &[Expr]) -> R<Vec<TokenStream>> {
        args.iter()
            .map(|arg| {
                if self.owned(arg) {
                    Ok(self.passed(arg))
                } else {
                    self.fwd(arg)
                }
            })
            .collect()
    }

    /// The adjoint's initial value, shaped like the initialiser's value.
    fn shape(&self, init: &Expr) -> R<TokenStream> {
        let adjoint = &self.adjoint;
        if self.scalar(init) {
            return Ok(quote!(0.0));
        }
        Ok(match &init.kind {
            ExprKind::Paren(inner) => self.shape(inner)?,
            ExprKind::Repeat { elem, len } => {
                let elem = self.shape(elem)?;
                if !self.all_available(len.to_token_stream()) {
                    return unsupported("an array whose length changes", init);
                }
                quote!([#elem; #len])
            }
            ExprKind::VecRepeat { elem, len } => {
                let elem = self.shape(elem)?;
                if !self.fully_available(len) {
                    return unsupported("a `vec!` whose length changes", init);
                }
                let len = len.source.to_token_stream();
                quote!(::std::vec![#elem; #len])
            }
            ExprKind::Array(items) => {
                let items = items
                    .iter()
                    .map(|item| self.shape(item))
                    .collect::<R<Vec<_>>>()?;
                quote!([#(#items),*])
            }
            ExprKind::VecList(items) => {
                let items = items
                    .iter()
                    .map(|item| self.shape(item))
                    .collect::<R<Vec<_>>>()?;
                quote!(::std::vec![#(#items),*])
            }
            ExprKind::Structural { receiver, .. } if is_place(receiver) => self.shape(receiver)?,
            ExprKind::Path(_) | ExprKind::Index { .. } if self.active(init) => {
                let bar = self.bar_place(init)?;
                quote!(#adjoint::zero_like(&#bar))
            }
            // A model's field (`let width = net.width;`): shaped by the
            // field's value, which a model the body cannot write still
            // holds; an integer's adjoint is then `NoAdjoint`.
            ExprKind::Path(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                if !self.fully_available(init) {
                    return unsupported("a binding whose shape the reverse sweep cannot see", init);
                }
                let src = init.source.to_token_stream();
                quote!(#adjoint::zero(&#src))
            }
            ExprKind::If { then_branch, .. } => match then_branch.split_tail().1 {
                Some(tail) => self.shape(tail)?,
                None => return unsupported(describe(init), init),
            },
            // Shaped like any arm's value, as an `if` is like its first.
            ExprKind::Match { arms, .. } if !arms.is_empty() => self.shape(&arms[0].body)?,
            _ if is_scalar(init) => quote!(0.0),
            _ => return unsupported("a binding whose shape the reverse sweep cannot see", init),
        })
    }
}

fn unsupported_block<T>(construct: &str, block: &Block) -> R<T> {
    let line = block.stmts.last().map_or(0, |stmt| match stmt {
        Stmt::Expr(expr, _) => text::line(expr.span),
        Stmt::Let {
            init: Some(init), ..
        } => text::line(init.span),
        _ => 0,
    });
    Err(Unsupported {
        construct: construct.into(),
        line,
    })
}

fn first_ident_span(pat: &syn::Pat) -> Span {
    pat.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |token| token.span())
}

/// Whether the value is one `f64` (as opposed to a place that may be an
/// array): arithmetic, a function, a literal, a call.
fn is_scalar(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Lit(_)
        | ExprKind::NegLit(_)
        | ExprKind::Binary { .. }
        | ExprKind::Neg { .. }
        | ExprKind::Elementary { .. }
        | ExprKind::Powi { .. }
        | ExprKind::Ternary { .. }
        | ExprKind::Sum { .. }
        | ExprKind::Cast { .. } => true,
        ExprKind::Call { .. } => !expr.is_empty_vec(),
        _ if is_method_call(expr) => true,
        ExprKind::Paren(inner) => is_scalar(inner),
        ExprKind::If { then_branch, .. } | ExprKind::Block(None, then_branch) => {
            then_branch.split_tail().1.is_some_and(is_scalar)
        }
        ExprKind::Match { arms, .. } => arms.first().is_some_and(|arm| is_scalar(&arm.body)),
        _ => false,
    }
}

/// A path, or an index chain into one.
fn is_place(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Path(_) => true,
        ExprKind::Prefix {
            op: syn::UnOp::Deref(_),
            operand,
        } => is_place(operand),
        ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => is_place(base),
        _ => false,
    }
}

/// Arithmetic of places and literals: cheap to compute again.
fn is_arithmetic(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Lit(_) | ExprKind::NegLit(_) | ExprKind::Path(_) => true,
        ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => is_arithmetic(base),
        ExprKind::Paren(inner)
        | ExprKind::Neg { operand: inner, .. }
        | ExprKind::Prefix {
            op: syn::UnOp::Deref(_),
            operand: inner,
        } => is_arithmetic(inner),
        ExprKind::Binary { op, lhs, rhs, .. } => {
            matches!(op, Arith::Add | Arith::Sub | Arith::Mul | Arith::Div)
                && is_arithmetic(lhs)
                && is_arithmetic(rhs)
        }
        _ => false,
    }
}

fn has_call(expr: &Expr) -> bool {
    matches!(expr.kind, ExprKind::Call { .. })
        || is_method_call(expr)
        || expr.children().into_iter().any(|child| match child {
            crate::ast::Child::Expr(child) => has_call(child),
            crate::ast::Child::Block(_) => true,
        })
}

/// A method called on a place (`model.score(x)`, `net.layers[k].forward(h)`)
/// that is not one the vocabulary knows: on a model, an annotated method,
/// whose pair (`score_forward`, `score_reverse`) the sweeps call as they
/// call a function's. Which of these carry a derivative is `Sweep::
/// method_call`'s question; this one is syntax only, for the checks that
/// must not read a call's value twice.
fn is_method_call(expr: &Expr) -> bool {
    matches!(&expr.kind, ExprKind::PlainMethod { receiver, reads_primal: false, .. } if is_place(receiver))
}

fn is_simple(tokens: &TokenStream) -> bool {
    let tokens: Vec<_> = tokens.clone().into_iter().collect();
    tokens.len() == 1
}

/// A range, possibly reversed, stepped, skipped or taken: reversible.
fn range_like(iter: &Expr) -> bool {
    match &iter.kind {
        ExprKind::Range {
            start: Some(_),
            end: Some(_),
            ..
        } => true,
        ExprKind::Paren(inner) => range_like(inner),
        ExprKind::Structural {
            receiver, method, ..
        } => {
            matches!(
                method.to_string().as_str(),
                "rev" | "step_by" | "skip" | "take"
            ) && range_like(receiver)
        }
        _ => false,
    }
}

/// A place as the reverse sweep reads it: as written, or its saved copy.
fn place_tokens(place: &Expr, saved: &HashMap<usize, Ident>) -> TokenStream {
    match saved.get(&place.id) {
        Some(copy) => copy.to_token_stream(),
        None => place.source.to_token_stream(),
    }
}

/// `x`, `&x`, `x.iter()`, `x.iter().copied()`: the place iterated and
/// whether the items are references.
fn element_source<'e, 'a>(iter: &'e Expr<'a>) -> Option<(&'e Expr<'a>, bool)> {
    match &iter.kind {
        ExprKind::Reference {
            mutability: None,
            expr,
        } if is_place(expr) => Some((expr, true)),
        ExprKind::Structural {
            receiver, method, ..
        } => match method.to_string().as_str() {
            "iter" if is_place(receiver) => Some((receiver, true)),
            "copied" | "cloned" => {
                let (place, _) = element_source(receiver)?;
                Some((place, false))
            }
            _ => None,
        },
        ExprKind::Paren(inner) => element_source(inner),
        _ => None,
    }
}

/// A loop's level of jumps: its label and trip counter.
fn level(label: Option<&syn::Label>, trips: Option<Ident>) -> Jumps {
    Jumps {
        trips,
        label: label.map(|label| label.name.ident.to_string()),
        ..Jumps::default()
    }
}

fn is_jump(expr: &Expr) -> bool {
    matches!(
        expr.kind,
        ExprKind::Break { .. } | ExprKind::Continue(_) | ExprKind::Return(_)
    )
}

fn contains_jump(block: &Block) -> bool {
    block.any_expr(&|expr| {
        matches!(
            expr.kind,
            ExprKind::Break { .. } | ExprKind::Continue(_) | ExprKind::Return(_)
        )
    })
}

fn has_return(block: &Block) -> bool {
    block.any_expr(&|expr| matches!(expr.kind, ExprKind::Return(_)))
}

/// `g`'s `forward` or `reverse` sibling, which the sweeps call with the
/// arguments as one tuple through `args(..)` (`src/adjoint/calls.rs`).
///
/// An associated function's (`Self::g`) is named directly, `Self::g_forward`.
/// A free function's is its companion's `g::__forward`, looked up the way
/// the recording twin looks up `g::__tape` (`body`'s `recording_twin`), so
/// that `use m::g;` brings it along. A plain `g` has no companion: it
/// resolves to a stand-in that takes any arguments and never runs, because
/// the recording twin's own stand-in has already made that call a compile
/// error with the message a student reads; the adjoint adds no second one.
/// The stand-ins are declared once, at the top of `f_adjoint`
/// ([`Sweep::stand_ins`]).
fn sibling(stand_ins: &crate::emit::StandIns, func: &syn::Path, suffix: &str) -> TokenStream {
    let (name, scope) = match crate::emit::Callee::of(func) {
        crate::emit::Callee::Associated(path) => return crate::emit::sibling_path(&path, suffix),
        crate::emit::Callee::Free { name, scope } => (name, scope),
    };
    let method = format_ident!("__{}", suffix);
    stand_ins.lookup(&name, &scope, &method, || {
        let not = quote!(::core::option::Option<::autodiff::__adjoint::NotDifferentiable>);
        let signature = if suffix == "forward" {
            quote!((_: &mut ::autodiff::__adjoint::Stack, _: #not) -> f64)
        } else {
            quote!((_: &mut ::autodiff::__adjoint::Stack, _: #not, _: f64, _: #not))
        };
        quote!(pub fn #method #signature { loop {} })
    })
}

/// A readable identifier from source text: `s[j]` -> `s_j`.
fn sanitize(text: &str) -> String {
    let mut out = String::new();
    for ch in text.chars() {
        if ch.is_ascii_alphanumeric() {
            out.push(ch);
        } else if !out.ends_with('_') && !out.is_empty() {
            out.push('_');
        }
    }
    let out = out.trim_end_matches('_').to_owned();
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        format!("value_{out}")
    } else {
        out
    }
}

/// The name of a hoisted value: `z_tanh`, `x_exp`, `softplus_value`.
fn hoist_name(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Elementary { func, operand, .. } => match simple_name(operand) {
            Some(name) => format!("{name}_{func}"),
            None => (*func).to_owned(),
        },
        ExprKind::Powi { base, .. } => match simple_name(base) {
            Some(name) => format!("{name}_powi"),
            None => "power".to_owned(),
        },
        ExprKind::Binary {
            op: Arith::Method(func),
            lhs,
            ..
        } => match simple_name(lhs) {
            Some(name) => format!("{name}_{func}"),
            None => (*func).to_owned(),
        },
        ExprKind::Ternary { func, operands, .. } => match simple_name(&operands[0]) {
            Some(name) => format!("{name}_{func}"),
            None => (*func).to_owned(),
        },
        ExprKind::Sum { .. } => "sum".to_owned(),
        ExprKind::Call { func, .. } => match func.segments.last() {
            Some(last) => format!("{}_value", last.ident.unraw()),
            None => "call_value".to_owned(),
        },
        ExprKind::PlainMethod { method, .. } => format!("{}_value", method.unraw()),
        _ => "value".to_owned(),
    }
}

/// The identifier of the binding `name` (`r#type` included).
fn binding(name: &str) -> Ident {
    match name.strip_prefix("r#") {
        Some(raw) => Ident::new_raw(raw, Span::call_site()),
        None => Ident::new(name, Span::call_site()),
    }
}

fn simple_name(expr: &Expr) -> Option<String> {
    match &expr.kind {
        ExprKind::Path(path) => path
            .path
            .get_ident()
            .map(|ident| ident.to_string().trim_start_matches("r#").to_owned()),
        ExprKind::Paren(inner) => simple_name(inner),
        _ => None,
    }
}

/// The seed temporary of a subexpression: `product_bar`, `z_tanh_bar`.
fn temp_name(expr: &Expr) -> String {
    match &expr.kind {
        ExprKind::Binary { op, .. } => match op {
            Arith::Add => "sum_bar".to_owned(),
            Arith::Sub => "difference_bar".to_owned(),
            Arith::Mul => "product_bar".to_owned(),
            Arith::Div => "quotient_bar".to_owned(),
            _ => format!("{}_bar", hoist_name(expr)),
        },
        ExprKind::Paren(inner) => temp_name(inner),
        ExprKind::Neg { .. } => "negation_bar".to_owned(),
        _ => format!("{}_bar", hoist_name(expr)),
    }
}

/// What a construct is, for the fallback doc line.
pub fn describe(expr: &Expr) -> String {
    let what = match &expr.kind {
        ExprKind::While { .. } => "`while`",
        ExprKind::Loop { .. } => "`loop`",
        ExprKind::Match { .. } => "`match`",
        ExprKind::Return(_) => "an early `return`",
        ExprKind::Break { .. } => "`break`",
        ExprKind::Continue(_) => "`continue`",
        ExprKind::Block(..) => "a block",
        ExprKind::Tuple(_) => "a tuple",
        ExprKind::Structural { method, .. } | ExprKind::PlainMethod { method, .. } => {
            return format!("`.{method}()`");
        }
        ExprKind::Field { .. } => "a field of a model",
        ExprKind::If { .. } => "an `if` value",
        _ => {
            return format!(
                "`{}`",
                text::tokens(expr.source.to_token_stream())
                    .chars()
                    .take(40)
                    .collect::<String>()
            )
        }
    };
    what.to_owned()
}

/// Whether `tokens` name any of `names`.
fn mentions_any(tokens: &TokenStream, names: &[String]) -> bool {
    names
        .iter()
        .any(|name| crate::text::mentions(tokens.clone(), name))
}
