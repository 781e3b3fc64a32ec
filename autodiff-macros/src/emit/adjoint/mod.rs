//! The compiled adjoint (design in `docs/compiled-adjoint.md`): `f_adjoint`, the
//! gradient as generated Rust (a forward sweep on `f64` that saves what the
//! reverse sweep reads, then the reverse sweep over the student's
//! bindings), and the pair `f_forward`/`f_reverse` through which the
//! adjoints of annotated functions call each other.
//!
//! `shadows` renames each name a `let` binds again (`let h = f(&h);`),
//! `analysis` finds what carries a derivative and what stays in scope,
//! `call_values` binds a vector-valued call read in place (`softmax(&z)[k]`,
//! `let (a, b) = pair(x);`) by a `let` first, `chains` and `patterns` read
//! iterator chains as loops (and a closure bound by `let` as its body where
//! it is called, an `Option` of a slice's element as a length test) and
//! pattern `let`s as one `let` per name,
//! `extremes` finds running minima and maxima, and `sweep` writes both
//! sweeps statement by statement. `dual` decides which bodies also get
//! `f_adjoint_dual`, the same sweeps on dual numbers, for `f_hvp`. A body with a construct not compiled yet
//! keeps the tape: `f_grad` calls `f_grad_tape`, its doc line
//! names the construct, and its pair runs the tape gradient. `refusals`
//! finds the constructs refused before the sweeps start, and `pair` writes
//! `f_forward` and `f_reverse`; `lend` adds a vector-valued callee's
//! gradient into its caller's adjoints and splits its adjoint where the
//! forward sweep ends. This file runs the rewriters and the sweeps;
//! `fused` assembles `f_adjoint` (and `f_adjoint_dual`) from them.

mod analysis;
mod call_values;
mod chains;
mod dual;
mod dual_pair;
mod extremes;
mod fused;
mod lend;
mod pair;
mod patterns;
mod refusals;
mod shadows;
mod sweep;

use std::collections::HashSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};

use super::companion::{Input, Sibling};
use super::Names;
use crate::ast::{Child, Expr, ExprKind, Function, Kind, Param};
use analysis::Analysis;
pub(super) use dual::dual_type;
pub(super) use dual_pair::{method_pair as dual_method_pair, methods as dual_pair, unclaimed};
pub(super) use lend::BORROWING;
pub(super) use pair::vector_pair;
use pair::{pair, tape_pair};
use refusals::{model_moved, not_compiled};
use sweep::{Seed, Sweep, Unsupported};

/// The generated adjoint items, and whether `f_grad` may use them.
pub struct Adjoint {
    pub items: TokenStream,
    /// `None` when compiled; else the construct and line that keeps the
    /// tape.
    pub fallback: Option<(String, u32)>,
    pub adjoint_fn: Ident,
    /// Whether `f_adjoint_dual` (for `f_hvp`) is among the items.
    pub dual: bool,
    /// `f_forward` and `f_reverse`, which the caller places: as the
    /// companion's methods, or as free functions of a method's siblings.
    pub pair: [Sibling; 2],
}

pub fn items(function: &Function, names: &Names, gradient_type: &TokenStream) -> Adjoint {
    items_with(function, names, gradient_type, Entry::Inputs)
}

/// How `f_adjoint` checks its parameters before the forward sweep.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Entry<'a> {
    /// The gradient's inputs, which the tape makes variables: each must be
    /// finite, as `Tape::variable` requires.
    Inputs,
    /// A caller's intermediate values, which a vector-valued callee's
    /// reverse reruns from (`shaped::compiled_dot`): the tape records the
    /// callee on them as they are, an infinity too (lesson 15's masked
    /// score `s + (−∞)`, which `exp` turns into 0), so only a NaN fails at
    /// entry; an infinity is then checked where the sweep checks one made
    /// inside the body (an absorbing operation's operand, the value, the
    /// gradient).
    Intermediates,
    /// `Intermediates`, split at the end of the forward sweep: `f_adjoint`
    /// runs the forward and returns the value of the binding named here
    /// with a closure of the reverse sweep, which the caller's reverse runs
    /// with the cotangent (see `lend::split`); with `true`, the binding's
    /// adjoint starts as the cotangent, the function's last parameter,
    /// taken by value (`Sweep::seed_output`).
    Split(&'a Ident, bool),
}

impl<'a> Entry<'a> {
    /// Whether the parameters are a caller's intermediate values.
    fn intermediates(self) -> bool {
        !matches!(self, Entry::Inputs)
    }

    /// A split entry returning `output` instead, where it was renamed.
    fn renamed(self, output: Option<&'a Ident>) -> Entry<'a> {
        match (self, output) {
            (Entry::Split(_, seeded), Some(output)) => Entry::Split(output, seeded),
            _ => self,
        }
    }
}

/// What a split adjoint's output binding is called at the end of the
/// `renamed` body (`let out = ..; let out = f(out); out`), if renamed.
fn renamed_output(entry: Entry<'_>, renamed: Option<&shadows::Renamed>) -> Option<Ident> {
    match (entry, renamed) {
        (Entry::Split(output, _), Some(renamed)) => Some(Ident::new(
            &renamed.at_end(&output.to_string()),
            output.span(),
        )),
        _ => None,
    }
}

/// [`items`] for a function whose parameters are `entry`.
pub fn items_with(
    function: &Function,
    names: &Names,
    gradient_type: &TokenStream,
    entry: Entry<'_>,
) -> Adjoint {
    let name = names.name;
    let adjoint_fn = format_ident!("{}_adjoint", name);
    let stack = Ident::new("stack", Span::mixed_site());
    // What the recording twin tracks, by name (see `Analysis::tracking`).
    let twin_flow = crate::flow::Flow::analyse(function);
    let mut tracked = HashSet::new();
    let mut track = |renamed: Option<&shadows::Renamed>| {
        for (from, to) in renamed.iter().flat_map(|renamed| &renamed.mutable) {
            if twin_flow.is_tracked(from) || tracked.contains(from) {
                tracked.insert(to.clone());
            }
        }
    };
    // The body with a call's value assigned to a tuple of names read as a
    // pattern `let` and assignments (see `patterns::calls_destructured`).
    let destructured = patterns::calls_destructured(function);
    let destructured_macros = crate::lower::MacroBodies::default();
    let destructured_model = destructured
        .as_ref()
        .map(|item| crate::lower::function(item, &destructured_macros));
    let function = destructured_model.as_ref().unwrap_or(function);
    // The body with its names bound again renamed (see `shadows`).
    let repeated = function.bound_again();
    let renamed = (!repeated.is_empty())
        .then(|| shadows::rename(function.item, &repeated))
        .flatten();
    let renamed_macros = crate::lower::MacroBodies::default();
    let renamed_model = renamed
        .as_ref()
        .map(|renamed| crate::lower::function(&renamed.item, &renamed_macros));
    track(renamed.as_ref());
    let function_in = function;
    let function = renamed_model.as_ref().unwrap_or(function);
    // A split adjoint returns its output binding by the name it has at
    // the end of the renamed body (`let out = ..; let out = f(out); out`).
    let output_renamed = renamed_output(entry, renamed.as_ref());
    let entry = entry.renamed(output_renamed.as_ref());
    // The body with the vector-valued calls it reads in place (indexes,
    // destructures) bound by `let`s first (see `call_values`).
    let bound = call_values::bind(function);
    let bound_macros = crate::lower::MacroBodies::default();
    let bound_model = bound
        .as_ref()
        .map(|item| crate::lower::function(item, &bound_macros));
    let function = bound_model.as_ref().unwrap_or(function);
    // The body with its pattern `let`s split into one `let` per name, read
    // into a model of its own (see `patterns`).
    let split_item = patterns::split(function.item);
    let split_macros = crate::lower::MacroBodies::default();
    let split_model = split_item
        .as_ref()
        .map(|item| crate::lower::function(item, &split_macros));
    let split = split_model.as_ref().unwrap_or(function);
    // The body with its iterator chains as loops, read into a model of
    // its own, which is what the sweeps compile.
    let (lowered, extremes) = lowered(split).unzip();
    // A chain may leave a pattern `let` of its own (`let (_, best) =
    // (max_by_index, &max_by_item);`): split too.
    let lowered = lowered.map(|item| patterns::split(&item).unwrap_or(item));
    // A closure's body read into its chain's loop may index a vector
    // call's value in place (`xs.iter().map(|x| self.out(x)[0]).sum()`):
    // bound by a `let` first, as the body's own were (`call_values`).
    let lowered = lowered.map(|item| {
        let macros = crate::lower::MacroBodies::default();
        let model = crate::lower::function(&item, &macros);
        call_values::bind(&model).unwrap_or(item)
    });
    // A closure's body read into its chain's loop may bind a name it
    // reads (`map(|v| { let v = v.sin(); v * v })`, `fold(0.0, |t, v| {
    // let v = ..; .. })`), and a pattern `let` split into one `let` per
    // name may bind a name again (`let (y, best) = (best, y);`): renamed
    // as the body's own were (`shadows`).
    let renamed_again = lowered.as_ref().or(split_item.as_ref()).and_then(|item| {
        let macros = crate::lower::MacroBodies::default();
        let model = crate::lower::function(item, &macros);
        let repeated = model.bound_again();
        (!repeated.is_empty())
            .then(|| shadows::rename(item, &repeated))
            .flatten()
    });
    track(renamed_again.as_ref());
    let output_renamed_again = renamed_output(entry, renamed_again.as_ref());
    let entry = entry.renamed(output_renamed_again.as_ref());
    let lowered = match renamed_again {
        Some(renamed) => Some(renamed.item),
        None => lowered,
    };
    let macros = crate::lower::MacroBodies::default();
    let relowered = lowered
        .as_ref()
        .map(|item| crate::lower::function(item, &macros));
    // A developer's view of the body the sweeps read, its chains as loops
    // and its names bound again renamed (`LOWERED_SHOW=1` while
    // expanding).
    if std::env::var_os("LOWERED_SHOW").is_some() {
        if let Some(item) = lowered.as_ref() {
            eprintln!("LOWERED {}: {}", names.name, item.to_token_stream());
        }
    }
    let model = relowered.as_ref().unwrap_or(split);
    let extremes = extremes.unwrap_or_default();
    let compiled = match compile(
        model,
        names,
        gradient_type,
        &adjoint_fn,
        &stack,
        Found {
            extremes: &extremes,
            tracked: &tracked,
        },
        entry,
    ) {
        // The reason a student reads names what they wrote (`a closure`),
        // not the loop it was read as.
        Err(lowered_reason) if relowered.is_some() => {
            // A developer's view of what stopped the lowered body, which
            // the reason a student reads may name otherwise
            // (`LOWERED_WHY=1` while expanding).
            if std::env::var_os("LOWERED_WHY").is_some() {
                eprintln!(
                    "LOWERED {}: {} at line {}",
                    names.name, lowered_reason.construct, lowered_reason.line
                );
            }
            match compile(
                split,
                names,
                gradient_type,
                &adjoint_fn,
                &stack,
                Found {
                    extremes: &HashSet::new(),
                    tracked: &tracked,
                },
                entry,
            ) {
                // Every `if` value was taken out into a `let`: what kept the
                // lowered body on the tape is the reason.
                Err(reason) if reason.construct == sweep::describe_if_value() => {
                    Err(lowered_reason)
                }
                // A chain or closure the lowered body took as its loop, where
                // that body stopped elsewhere (each sweep reports its first
                // construct, so the body as written stopped earlier only on
                // what the lowering read): not what keeps the tape.
                Err(reason) if reason.line != lowered_reason.line => Err(lowered_reason),
                other => other,
            }
        }
        other => other,
    };
    match compiled {
        Ok((items, pair, dual)) => Adjoint {
            items,
            fallback: None,
            adjoint_fn,
            dual,
            pair,
        },
        Err(Unsupported { construct, line }) => Adjoint {
            items: TokenStream::new(),
            fallback: Some((construct, line)),
            adjoint_fn,
            dual: false,
            pair: tape_pair(function_in, names, &stack),
        },
    }
}

/// The function with its iterator chains lowered to loops and its `if`
/// values taken out of the expressions that hold them (`chains`), or
/// `None` if it has neither. A chain whose derivative comes from an earlier
/// chain's result is seen once that one is a loop: lowered again, until
/// nothing changes.
fn lowered(function: &Function) -> Option<(syn::ItemFn, HashSet<String>)> {
    // Read off the model: printing the body to look for the words would
    // re-tokenise all of it for every function.
    let reduces = function.body.any_expr(&|expr| match &expr.kind {
        ExprKind::Sum { .. } => true,
        // (`windows` and `chunks`: a `for` over them, see `chains::windows`;
        // `flatten`: a `for` over the rows, see `chains::flattened`;
        // `chain`: a `for` over each half, see `chains::chained`;
        // `unwrap` of `x.last()`: the element, `unwrap_or` of `x.get(i)`:
        // the element or the default, see `chains::options`.)
        ExprKind::Structural { method, .. } | ExprKind::PlainMethod { method, .. } => [
            "fold", "for_each", "collect", "extend", "max_by", "min_by", "windows", "chunks",
            "flatten", "flat_map", "chain", "unwrap", "unwrap_or",
        ]
        .iter()
        .any(|reduce| method == reduce),
        _ => false,
    }) || function.body.any_expr(&holds_if_value)
        // Closures (`max_by`'s, one bound by `let`), `Option` patterns and
        // `while let Some(v) = it.next()` (a `for` over `it`'s source).
        || function.body.any_expr(&|expr| {
            matches!(
                expr.kind,
                ExprKind::Closure { .. } | ExprKind::Let { .. } | ExprKind::Match { .. }
            )
        });
    if !reduces {
        return None;
    }
    let analysis = Analysis::new(function);
    let bindings = chains::binding_counts(function, &analysis.bound);
    let vecs = analysis::vec_bindings(function, &analysis.bound);
    let (mut item, mut extremes) = chains::lower(
        function.item,
        &analysis.active,
        &bindings,
        &analysis.bound,
        &vecs,
    )?;
    // Each round removes a chain; a body has few.
    for _ in 0..16 {
        let macros = crate::lower::MacroBodies::default();
        let model = crate::lower::function(&item, &macros);
        let analysis = Analysis::new(&model);
        let bindings = chains::binding_counts(&model, &analysis.bound);
        let vecs = analysis::vec_bindings(&model, &analysis.bound);
        match chains::lower(&item, &analysis.active, &bindings, &analysis.bound, &vecs) {
            Some((next, more)) => {
                item = next;
                extremes.extend(more);
            }
            None => break,
        }
    }
    Some((item, extremes))
}

/// Whether `expr` has an `if` value, a block or a `match` as an operand
/// (`a + if c { b } else { d }`, `{ let t = x.sin(); t * t } * w`), which
/// `chains` moves into a `let` of its own (a block or a `match` where
/// nothing in it writes, see `chains::branching`); an `else if`, a match
/// arm and a closure's body are not operands.
fn holds_if_value(expr: &Expr) -> bool {
    if matches!(
        expr.kind,
        ExprKind::If { .. } | ExprKind::Match { .. } | ExprKind::Closure { .. }
    ) {
        return false;
    }
    expr.children().into_iter().any(|child| match child {
        Child::Expr(mut operand) => {
            while let ExprKind::Paren(inner) = &operand.kind {
                operand = inner;
            }
            matches!(
                &operand.kind,
                ExprKind::If {
                    else_branch: Some(_),
                    ..
                } | ExprKind::Block(None, _)
                    | ExprKind::Match { .. }
            )
        }
        Child::Block(_) => false,
    })
}

fn param_inputs(function: &Function) -> Vec<Input> {
    function
        .params
        .iter()
        .map(|param| Input::new(&param.ident, &param.ty).mutable(param.mutability))
        .collect()
}

/// What the rewriters before the sweeps found of the body.
#[derive(Clone, Copy)]
struct Found<'f> {
    /// The running extremes (`extremes`, `chains`).
    extremes: &'f HashSet<String>,
    /// The names of bindings the recording twin lifts, renamed (see
    /// `Analysis::tracking`).
    tracked: &'f HashSet<String>,
}

fn compile(
    function: &Function,
    names: &Names,
    gradient_type: &TokenStream,
    adjoint_fn: &Ident,
    stack: &Ident,
    found: Found<'_>,
    entry: Entry<'_>,
) -> Result<(TokenStream, [Sibling; 2], bool), Unsupported> {
    let Found { extremes, tracked } = found;
    // A long body keeps the tape, outlined: the sweeps' macro time and
    // rustc's on them grow faster than the body, and their nested `let`s
    // are twice the body's, past what LLVM's debug info can nest.
    if super::tape::outlined(function) {
        return Err(Unsupported {
            construct: format!(
                "a body of more than {} tokens",
                super::tape::LONG_BODY_TOKENS
            ),
            line: crate::text::line(function.item.block.brace_token.span.open()),
        });
    }
    let an = Analysis::tracking(function, tracked);
    if let Some(unsupported) = not_compiled(&function.body, &an.active) {
        return Err(unsupported);
    }
    if let Some(unsupported) = refusals::hides_in_an_operand(&function.body) {
        return Err(unsupported);
    }
    if let Some(unsupported) = refusals::given_its_value_in_a_loop(&function.body, &an.active) {
        return Err(unsupported);
    }
    if let Some(unsupported) = refusals::vector_call(
        &function.body,
        &super::model_params(function),
        &an.call_lets,
        &an.vector_calls,
    ) {
        return Err(unsupported);
    }
    if let Some(unsupported) = refusals::call_assigned_to_a_vector(&function.body, &an) {
        return Err(unsupported);
    }
    for param in &function.params {
        if let Some(unsupported) = model_moved(function, param, &an) {
            return Err(unsupported);
        }
    }
    let mut fused = fused::fused(
        function,
        names,
        gradient_type,
        adjoint_fn,
        stack,
        &an,
        extremes,
        entry,
        false,
    )?;
    // Last, where the sweeps found nothing of their own to refuse: a
    // place indexed past the shape they gave its adjoint.
    if let Some(unsupported) = refusals::indexed_past_its_shape(&function.body, &an) {
        return Err(unsupported);
    }
    // The same sweeps on dual numbers, for `f_hvp`, where the body's
    // constructs type-check on them (`dual::takes`); else `f_hvp` keeps
    // the tape.
    let mut has_dual = false;
    if entry == Entry::Inputs && dual::takes(function, &an) {
        match fused_dual(
            function,
            names,
            gradient_type,
            adjoint_fn,
            stack,
            &an,
            extremes,
        ) {
            Ok(dual) => {
                // A model's twin is spanned on the model's type (see
                // `text::relocate`).
                let dual = if function
                    .params
                    .iter()
                    .any(|param| matches!(param.kind, crate::ast::Kind::Struct { .. }))
                {
                    crate::text::relocate(dual, dual::model_span(function))
                } else {
                    dual
                };
                fused.extend(dual);
                has_dual = true;
            }
            // A developer's view of why (`DUAL_WHY=1` while expanding).
            Err(unsupported) if std::env::var_os("DUAL_WHY").is_some() => {
                eprintln!(
                    "DUALWHY {}: the sweep on duals: {}",
                    function.item.sig.ident, unsupported.construct
                );
            }
            Err(_) => {}
        }
    }
    Ok((fused, pair(function, names, stack, adjoint_fn), has_dual))
}

/// `f_adjoint_dual`: [`fused`] on dual numbers (see `dual`).
fn fused_dual(
    function: &Function,
    names: &Names,
    gradient_type: &TokenStream,
    adjoint_fn: &Ident,
    stack: &Ident,
    an: &Analysis,
    extremes: &HashSet<String>,
) -> Result<TokenStream, Unsupported> {
    let dual_fn = dual_adjoint_ident(adjoint_fn);
    fused::fused(
        function,
        names,
        &dual::dual_gradient_type(function, gradient_type),
        &dual_fn,
        stack,
        an,
        extremes,
        Entry::Inputs,
        true,
    )
}

/// `f_adjoint_dual`, the compiled adjoint on dual numbers `f_hvp` runs.
pub fn dual_adjoint_ident(adjoint_fn: &Ident) -> Ident {
    format_ident!("{}_dual", adjoint_fn)
}

/// `<Model as Parameter>::method(args)`, named on the model's type: a
/// struct that is not a model is then the one error the tape path already
/// reports on that type (`emit::grad`), not one more per generated call.
/// An argument whose parameter type is the model's gradient is bound to a
/// name spanned there too (`Bound`), for the same reason.
fn model_call(ty: &syn::Type, method: &str, args: &[Argument]) -> TokenStream {
    use syn::spanned::Spanned;
    let span = ty.span();
    let method = Ident::new(method, span);
    let mut lets = Vec::new();
    let passed: Vec<TokenStream> = args
        .iter()
        .map(|arg| match arg {
            Argument::Plain(tokens) => tokens.clone(),
            Argument::Bound(name, tokens) => {
                let name = Ident::new(name, span);
                lets.push(quote::quote_spanned!(span=> let #name = #tokens;));
                quote!(#name)
            }
        })
        .collect();
    let call = quote::quote_spanned!(span=> <#ty as ::autodiff::__private::Parameter>::#method(#(#passed),*));
    if lets.is_empty() {
        call
    } else {
        quote!({ #(#lets)* #call })
    }
}

/// An argument of `model_call`.
enum Argument {
    Plain(TokenStream),
    /// Bound to this name first.
    Bound(&'static str, TokenStream),
}

/// `base`, or `base_2`, `base_3`, ...: the first that no identifier of the
/// function (`taken`) is, now taken too. For the names the rewriters before
/// the sweeps introduce (`chains`, `patterns`).
fn fresh_ident(taken: &mut HashSet<String>, base: &str) -> syn::Ident {
    let mut name = base.to_owned();
    let mut k = 1;
    while taken.contains(&name) {
        k += 1;
        name = format!("{base}_{k}");
    }
    taken.insert(name.clone());
    syn::Ident::new(&name, Span::call_site())
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
