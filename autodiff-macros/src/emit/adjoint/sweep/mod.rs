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
//!
//! This file holds the sweep's state (scopes, adjoint names, what the
//! reverse can still read); `seed` the adjoint flowing into an expression,
//! `names` the names and descriptions the sweeps write (an adjoint's
//! binding, a callee's sibling, the construct a refusal names);
//! `statements`, `lets`, `assignments`,
//! `branches`, `loops` (with `fors`), `jumps` and `calls` write the
//! constructs of those names,
//! `inert` says which statements run as written with no reverse,
//! `syntax` what an expression is from its syntax alone,
//! `moves` the `Vec` methods that move items and `mem::swap`, `shape` the
//! zeros a `let`'s
//! adjoint starts from, `saved` an expression's forward side (hoisted,
//! pushed and observed values), `sites` the values a loop's trips save on
//! stacks of their own, `reverse` its reverse, `rows` the rows a reversed
//! range loop borrows once, `interchange` the reverse of a sum over an
//! inner loop run with the loops swapped, `held` the numbers and rows its body reads
//! and never changes, saved once after it, `allocation` the room a `Vec` is given before
//! the loop that fills it and the bindings a statement may move, and
//! `rules` each function's local derivative, looked up in the table of
//! operations.

mod allocation;
mod assignments;
mod branches;
mod calls;
mod fors;
mod held;
mod inert;
mod interchange;
mod jumps;
mod lets;
mod loops;
mod moves;
mod names;
mod reverse;
mod rows;
mod rules;
mod saved;
mod seed;
mod shape;
mod sites;
mod statements;
mod syntax;

use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, Literal, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::ext::IdentExt;

use super::analysis::{carries, dims_of, shows_number, Analysis};
use crate::ast::{Arith, Block, Child, Expr, ExprKind, Source, Stmt};
use crate::flow::root;
use crate::text;
pub(super) use moves::MOVES;
use moves::{concatenated, popped};
use names::{bar_root, binding, first_ident_span, sanitize, sibling};
pub use names::{describe, describe_if_value};
use rules::Factor;
pub use seed::Seed;
use syntax::{
    contains_jump, element_source, half_open, has_call, has_return, is_arithmetic, is_jump,
    is_method_call, is_place, is_scalar, is_simple, level, place_tokens, range_like,
};

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
    /// A loop no `continue` ends an iteration of: every iteration but its
    /// last ends at the end of its body, so how the loop ended is one
    /// record after it, not one per iteration. A `break` of the loop sets
    /// this variable (0 when it ends by its condition or its items), which
    /// the loop pushes as it ends; see `loop_body_at`.
    exit: Option<Ident>,
    /// At the function's level: the `Vec`s grown by `push` bound so far
    /// at the top of a body with `return`s. Each return point, and the
    /// end, pushes their lengths (the last bound first), from which the
    /// reverse sizes their adjoints.
    grown: Vec<Ident>,
    /// A loop's: the sweep's `depth` of the statements of its body.
    depth: usize,
}

#[derive(Default)]
struct Scope {
    /// Bindings of this scope with their adjoints, in order.
    bars: Vec<(String, TokenStream)>,
    /// Names the reverse sweep has again in this scope: loop variables,
    /// replayed bindings.
    available: HashSet<String>,
    /// Names a `let` of this scope binds again without making them
    /// available: from here they hide what an outer scope has under that
    /// name (`for t in v { let a = { let t = x; t * t }; .. }`).
    shadowed: HashSet<String>,
    /// Whether the last vector-valued call saved in this block ran, where
    /// the reverse may reach the block without it (see `call_site`): the
    /// adjoints of the block's later `let`s are shaped only if it did.
    ran: Option<Ident>,
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
    /// The adjoints named so far: the second binding of `y` (`y_2_bar`)
    /// and a binding named `y_2` (`y_2_bar`) must not get one name, or the
    /// later declaration would hide the earlier adjoint from the reverse
    /// sweep's statements that meant it.
    bar_names: HashSet<String>,
    /// Names of the sweep's own bindings that live through both sweeps
    /// (the function's value, `value` or `value_2` beside a binding of the
    /// student's called `value`): no other generated name is one of them
    /// (the pop of a saved `value[2]` once was, and the function returned
    /// the popped number as its value).
    own_names: HashSet<String>,
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
    /// Set by `loop_body_at` for a statement `if c { ..; jump }` of a loop
    /// whose exit is recorded once (`Jumps::exit`): which arm it took is
    /// implied by how the iteration ended, so it pushes none, and its
    /// reverse for an iteration it ended goes to `implied_taken`.
    implied_if: bool,
    /// The reverse of the then-arm of such an `if` (see `implied_if`).
    implied_taken: Option<Vec<TokenStream>>,
    /// By `Expr::id`: the `pop`s of a `Vec` with a derivative whose
    /// reverse is written (see `Sweep::unreversed_move`).
    moves: HashSet<usize>,
    /// Top-level `let`s of a `concat`, whose adjoints are shaped like
    /// their bindings when the reverse starts: not to be moved away.
    concat_lets: HashSet<String>,
    /// Top-level `let`s whose adjoints are shaped like their bindings when
    /// the reverse starts (`zero(&next)` of a `Vec` grown by `push`, of a
    /// `concat`, of a call's value): an assignment that moves one whole
    /// (`h = next;`) moves a copy, so that the binding is still there.
    shaped_at_reverse: HashSet<String>,
    /// The stacks of the call sites that save values of their own (see
    /// `sites`), declared at the top of `f_adjoint` under the attributes
    /// of the statements around them (`#[cfg]`: a stack never pushed onto
    /// has no item type).
    sites: Vec<(Ident, TokenStream)>,
    /// The sites of `grown_site` on `f64`, whose items are adjoints made
    /// by `__adjoint::spare`: each declared as a list the stack kept
    /// (`__adjoint::bar_list`) and given back when the reverse ends
    /// (`give_sites`).
    pooled_sites: Vec<Ident>,
    /// The sites of `grown_site` on `f64` that save a length, not zeros
    /// (`rows_taken_whole`): each a list of lengths the stack kept
    /// (`__adjoint::length_list`), given back when the reverse ends.
    length_sites: Vec<Ident>,
    /// The `Vec`s of numbers grown by `push` in a loop or a branch whose
    /// block then pushes them whole onto another (`out.push(row)`, see
    /// `rows_taken_whole`): the forward saves each one's length, and the
    /// reverse takes the popped row as its adjoint, by the name of the
    /// length popped (`row_length`).
    taken_whole: HashMap<String, Option<Ident>>,
    /// The attributes of the statements being swept, outermost first.
    attrs: Vec<TokenStream>,
    /// By `Expr::id`: the arguments of a call whose saved copy its
    /// reverse passes instead (see `Sweep::call_site`), and whether the
    /// call borrows it.
    saved_args: HashMap<usize, (Ident, bool)>,
    /// The `Vec`s grown by `push` bound inside a loop or a branch, by
    /// name, with the stack their adjoints' shapes are saved on (see
    /// `Sweep::block_inner`).
    grown_sites: HashMap<String, Ident>,
    /// The `Vec`s assigned whole bound at the top whose `let` declared
    /// `name_shape`, which the forward keeps after each assignment and
    /// each statement that resizes them (see `Sweep::keep_shape`).
    kept_shapes: HashSet<String>,
    /// How the reverse sweep leaves `f_adjoint` on a record it does not
    /// find (see `sites`): `return None`, or a `break` out of the block
    /// that a callee lending its caller's adjoints reverses in (`lend`).
    bail: TokenStream,
    /// Every differentiable value is a `Dual` (`f_adjoint_dual`, for
    /// `f_hvp`): adjoints start from dual zeros, the rules are
    /// `dual_rules`, and what the sweep binds, assigns or returns to a
    /// tracked name is read through `__adjoint::dual`.
    dual: bool,
    /// On duals, the model parameters' types (`model` → `Mlp`, `__self`
    /// → `Self`): a method called on one is named on its type
    /// (`<Mlp>::score_forward_dual`), as the twin the sweep reads does not
    /// find it.
    model_types: HashMap<String, TokenStream>,
    /// In a block inside a loop or a branch (`block_inner`, on `f64`, no
    /// jump out of it), or at the top of a body with no `return`: the
    /// adjoints of its `let v = vec![0.0; n]`s, made by `Stack::zeros`, of
    /// its `Vec`s grown by `push`, saved from (or, at the top, made by)
    /// `__adjoint::spare`, and of a split callee's output (the caller's
    /// cotangent), each given back by `__adjoint::recycle` at the end of
    /// its reverse, so that a reversed iteration, and a helper's reverse
    /// called again, allocates none.
    recycle: Option<Vec<Ident>>,
    /// A vector-valued callee's parameters whose caller may have no
    /// adjoint for them (see `lend`), by their adjoints' names: the flag
    /// that says it has, and how many mentions of the adjoint the sweep
    /// has written under that flag (`accumulate`'s `if live { .. }`).
    guards: HashMap<String, (Ident, usize)>,
    /// A vector-valued callee's output binding whose adjoint starts as the
    /// cotangent the caller passes (by this name), in place of zeros and
    /// the reverse of `⟨cotangent, output⟩` (see `shaped::compiled_dot`);
    /// `true` once its `let` has been seeded so.
    seeded: Option<(String, TokenStream, bool)>,
    /// Inside a loop or a branch, for the statement being written: the
    /// names its block bound earlier that no later statement of the block
    /// mentions (see `allocation::dead_after`). A call site saves such an
    /// argument by moving it instead of a copy (`let p = softmax(&s);`
    /// with `s` read no more).
    dead: HashSet<String>,
    /// In a block with no jump out of it and no value: the call sites'
    /// pushes that wait for its end, where the value moves to the site
    /// instead of a copy (see `call_site`), written after its statements.
    deferred: Option<Vec<TokenStream>>,
    /// The name the statement being swept binds, where the later
    /// statements of its block only index it or take its length
    /// (`allocation::plain_later`): moved there at the block's end.
    plain_later: Option<String>,
    /// The rows the reverses of the range loops around borrow once
    /// before they run, innermost last (see `rows`).
    rows: Vec<rows::Rows>,
    /// The loops whose reverse is swapped with that of a loop of their
    /// body, innermost last (see `interchange`).
    interchanges: Vec<interchange::Interchange>,
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
            bar_names: HashSet::new(),
            own_names: HashSet::new(),
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
            implied_if: false,
            implied_taken: None,
            moves: HashSet::new(),
            concat_lets: HashSet::new(),
            shaped_at_reverse: HashSet::new(),
            sites: Vec::new(),
            pooled_sites: Vec::new(),
            length_sites: Vec::new(),
            taken_whole: HashMap::new(),
            attrs: Vec::new(),
            saved_args: HashMap::new(),
            grown_sites: HashMap::new(),
            kept_shapes: HashSet::new(),
            guards: HashMap::new(),
            seeded: None,
            dead: HashSet::new(),
            deferred: None,
            plain_later: None,
            rows: Vec::new(),
            interchanges: Vec::new(),
            bail: quote!(return ::core::option::Option::None),
            dual: false,
            model_types: HashMap::new(),
            recycle: None,
        }
    }

    /// Starts the adjoint of the binding `output` from `cotangent` (see
    /// the field).
    pub fn seed_output(&mut self, output: String, cotangent: TokenStream) {
        self.seeded = Some((output, cotangent, false));
    }

    /// Whether the output binding `seed_output` names was seeded: its one
    /// `let`, at the top level of a body without `return`, not assigned
    /// whole later.
    pub fn output_seeded(&self) -> bool {
        self.seeded.as_ref().is_none_or(|(_, _, done)| *done)
    }

    /// Adds into `bar` only where `live` holds (see the field).
    pub fn guard(&mut self, bar: &Ident, live: Ident) {
        self.guards.insert(bar.to_string(), (live, 0));
    }

    /// How many mentions of `bar` the sweep wrote under its flag.
    pub fn guarded(&self, bar: &Ident) -> usize {
        self.guards.get(&bar.to_string()).map_or(0, |(_, n)| *n)
    }

    /// Sweeps on dual numbers (see the field), the model parameters
    /// named with their types.
    pub fn on_duals(&mut self, model_types: HashMap<String, TokenStream>) {
        self.dual = true;
        self.model_types = model_types;
    }

    /// A scalar adjoint's zero: `0.0`, or a dual zero.
    pub(super) fn zero(&self) -> TokenStream {
        if self.dual {
            quote!(::autodiff::Dual::constant(0.0))
        } else {
            quote!(0.0)
        }
    }

    /// `v` bound or assigned to a tracked number: as it is, or as a dual
    /// (a literal or a constant is one with tangent 0).
    pub(super) fn tracked_number(&self, v: TokenStream) -> TokenStream {
        if self.dual {
            let adjoint = &self.adjoint;
            quote!(#adjoint::dual(#v))
        } else {
            v
        }
    }

    /// Leaves the reverse sweep by `bail` (see the field).
    pub fn bail_with(&mut self, bail: TokenStream) {
        self.bail = bail;
    }

    /// The stand-ins the calls need, for the top of `f_adjoint`'s body.
    pub fn stand_ins(&self) -> TokenStream {
        self.stand_ins.declarations()
    }

    /// The stacks of the call sites that save values of their own, for
    /// the top of `f_adjoint`'s body: each one's item type is what its
    /// forward pushes.
    pub fn sites(&self) -> TokenStream {
        let sites = self.sites.iter().map(|(site, attrs)| {
            let stack = &self.stack;
            if self.pooled_sites.contains(site) {
                quote!(#attrs let mut #site = ::autodiff::__adjoint::bar_list(#stack);)
            } else if self.length_sites.contains(site) {
                quote!(#attrs let mut #site = ::autodiff::__adjoint::length_list(#stack);)
            } else {
                quote!(#attrs let mut #site = ::std::vec::Vec::new();)
            }
        });
        quote!(#(#sites)*)
    }

    /// The pooled sites (`pooled_sites`) given back to the stack, for the
    /// end of the reverse sweep, each under the attributes it was declared
    /// with (a site of a `#[cfg(..)]` block exists only where the block
    /// does).
    pub fn give_sites(&self) -> TokenStream {
        let stack = &self.stack;
        let given = self.sites.iter().filter_map(|(site, attrs)| {
            if self.pooled_sites.contains(site) {
                Some(quote!(#attrs ::autodiff::__adjoint::give_bar_list(#stack, #site);))
            } else if self.length_sites.contains(site) {
                Some(quote!(#attrs ::autodiff::__adjoint::give_length_list(#stack, #site);))
            } else {
                None
            }
        });
        quote!(#(#given)*)
    }

    /// A name no identifier of the function uses: `base`, `base_2`, ...
    pub fn fresh(&self, base: &str) -> Ident {
        let mut name = base.to_owned();
        let mut k = 1;
        while self.an.idents.contains(&name) || self.own_names.contains(&name) {
            k += 1;
            name = format!("{base}_{k}");
        }
        Ident::new(&name, Span::call_site())
    }

    /// A binding of the sweep's own that lives through both sweeps (the
    /// function's value): fresh, and never given to another generated name.
    pub fn own(&mut self, base: &str) -> Ident {
        let ident = self.fresh(base);
        self.own_names.insert(ident.to_string());
        ident
    }

    /// A name of the sweep's own (the seed, `value_bar`): fresh, and
    /// never given to a binding's adjoint after (`let value = ..;` has
    /// `value_bar_2`), where one shadowing the other would drop the seed.
    pub fn reserve(&mut self, base: &str) -> Ident {
        let mut ident = self.fresh(base);
        let mut n = 1;
        while self.bar_names.contains(&ident.to_string()) {
            n += 1;
            ident = self.fresh(&format!("{base}_{n}"));
        }
        self.bar_names.insert(ident.to_string());
        ident
    }

    /// [`Sweep::bind`], the adjoint's name spanned at `span` (a model's
    /// twin on duals, spanned on the model's type: see `dual::model_span`).
    pub fn bind_spanned(&mut self, name: &str, span: Span) -> Ident {
        let mut ident = self.bind(name);
        ident.set_span(span);
        if let Some((_, place)) = self.scope().bars.last_mut() {
            *place = ident.to_token_stream();
        }
        ident
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
        let mut ident = self.fresh(&base);
        let mut n = 1;
        while self.bar_names.contains(&ident.to_string()) {
            n += 1;
            ident = self.fresh(&format!("{base}_{n}"));
        }
        self.bar_names.insert(ident.to_string());
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

    /// Whether the reverse sweep still has `name`'s value from here.
    /// Whether the binding `name` is known to hold a vector (an array or
    /// `Vec`, of numbers or rows), not a number or a value of unknown
    /// shape.
    fn holds_vector(&self, name: &str) -> bool {
        self.an
            .dims
            .get(name)
            .copied()
            .flatten()
            .is_some_and(|dims| dims > 0)
    }

    fn available(&self, name: &str) -> bool {
        self.visible(name, Analysis::stable)
    }

    /// Whether the reverse sweep has `name` with the length it has here
    /// (`0..w.len()` of a `Vec` whose items the body writes).
    fn length_available(&self, name: &str) -> bool {
        self.visible(name, Analysis::length_stable)
    }

    /// [`available`](Self::available), with `stable` saying whether a
    /// top-level binding is still as it was.
    fn visible(&self, name: &str, stable: fn(&Analysis, &str, usize) -> bool) -> bool {
        for scope in self.scopes.iter().rev() {
            if scope.available.contains(name) {
                return true;
            }
            if scope.shadowed.contains(name) {
                // What outer scopes have is another binding; a top-level
                // one the reverse still sees is `stable`'s to say.
                break;
            }
        }
        !self.an.is_local(name)
            || (stable(self.an, name, self.top)
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

    /// Whether the reverse sweep can evaluate a range's bounds again:
    /// [`fully_available`](Self::fully_available), except that a `Vec`
    /// read only for its length (`0..w.len()`) needs only that length to
    /// be the same (`length_available`).
    fn bounds_available(&self, expr: &Expr) -> bool {
        match &expr.kind {
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if *method == "len" && args.is_empty() => match &receiver.kind {
                ExprKind::Path(path) => path.path.get_ident().is_some_and(|name| {
                    let name = name.to_string();
                    self.available(&name) || self.length_available(&name)
                }),
                _ => self.fully_available(expr),
            },
            _ => {
                let children = expr.children();
                if children.is_empty() {
                    return self.fully_available(expr);
                }
                !has_call(expr)
                    && children.into_iter().all(|child| match child {
                        Child::Expr(inner) => self.bounds_available(inner),
                        Child::Block(_) => false,
                    })
            }
        }
    }

    /// Whether the value is one `f64`, as far as the body shows.
    fn scalar(&self, expr: &Expr) -> bool {
        is_scalar(expr) || dims_of(expr, &self.an.dims) == Some(0) || self.scalar_loop(expr)
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
        ExprKind::Structural { .. } if popped(expr).is_some() => "popped".to_owned(),
        _ => "value".to_owned(),
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
