//! The body of the recording twin: every operation that a tracked value
//! reaches replaced by one call into `__ad` (`::autodiff::__private`), in
//! evaluation order, each operand occurrence one argument and each call
//! carrying its label, so that under `cargo expand` it reads as the tape it
//! records. Which implementation runs (a recorded node or plain arithmetic)
//! is left to rustc's trait dispatch on the operand types. What no tracked
//! value reaches is printed as the user wrote it.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::Ident;

use super::label;
use crate::ast::{first_ident, Arm, Block, Expr, ExprKind, Label, Source, Stmt};
use crate::flow::{self, Flow};
use crate::text;

mod control;
mod operations;
mod values;

use values::*;

/// The first operand of an outlined call (`Emitter::outlined_call`).
#[derive(Clone, Copy)]
enum Receiver {
    /// Passed by reference to the free function.
    Plain,
    /// The receiver of the method; `bare` when it needs no parentheses
    /// (`postfix_safe`).
    Recorded { bare: bool },
}

impl Receiver {
    /// A recorded operand is the receiver when it is itself an operation,
    /// whose result the method then takes by value (moved, not copied or
    /// borrowed); a binding is borrowed by the free function instead, as
    /// passing it by value would copy it.
    fn of(recorded: bool, expr: &Expr) -> Self {
        let mut operand = expr;
        while let ExprKind::Paren(inner) = &operand.kind {
            operand = inner;
        }
        if recorded && !matches!(operand.kind, ExprKind::Path(_)) {
            Receiver::Recorded {
                bare: postfix_safe(expr),
            }
        } else {
            Receiver::Plain
        }
    }
}

/// How the value of an expression is used.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Not at all: a statement.
    Stmt,
    /// As it is.
    Value,
    /// Where Rust needs one type for tracked and plain values (a `let mut`,
    /// an assignment, the arms of a branch, a return): plain `f64` becomes a
    /// constant node.
    Lift,
}

pub(super) struct Emitter<'f> {
    flow: &'f Flow,
    tape: Ident,
    /// Parameters holding a model: a method called on them (or on a part
    /// of them) is a `#[differentiable]` method, recorded on this tape.
    models: Vec<String>,
    /// Whether the arithmetic calls `__private::outlined` (a long body:
    /// `tape::outlined`).
    outlined: bool,
    /// Whether an outlined call may take a recorded operand as the
    /// receiver of `record_<func>`. Not inside a closure's body, whose
    /// parameters may be typed `_` (`control`): a method call on an
    /// operation of them would need their type before rustc knows it
    /// (E0282), where the free function lets it infer.
    method_chains: std::cell::Cell<bool>,
    /// `#[constant]` parameters declared `f64`: as an index, the plain
    /// twin's error alone (see `composite`).
    float_constants: Vec<String>,
    /// Slice parameters (`x: &[f64]`): a plain helper is given their
    /// primal values borrowed (`count(&primal(x))`).
    slices: Vec<String>,
    /// What the body emitted that raises lints of its own, for the
    /// recording twin's `#[allow]` (`tape::item`).
    raised: std::cell::Cell<Raised>,
    /// Whether the function returns a vector (`Function::output`): its
    /// output goes through `__ad::output_shaped`, typed by the twin's
    /// declared output, so that a `collect()` there needs no annotation.
    shaped: bool,
    /// The operation a `let` being emitted binds, when its label names the
    /// binding: that label is `__ad::bound`, which logs the binding's probe
    /// while recording, in place of a `__probe!` after the statement.
    bound: std::cell::Cell<Option<*const ()>>,
    /// For each closure a `let` binds so far, whether each of its
    /// parameters may hold a tracked value: a call's plain argument there
    /// is lifted (`g(x) + g(2.0)` with `let g = |u: f64| ..`), since the
    /// closure's parameter is then typed `Scalar`.
    closures: std::cell::RefCell<std::collections::HashMap<String, Vec<Lifted>>>,
}

/// How a closure's argument is passed to a parameter that may hold a
/// tracked value.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Lifted {
    /// As it is: the parameter holds plain values only.
    No,
    /// Lifted (`2.0` into a `Scalar`).
    Value,
    /// Lifted, and borrowed: the parameter is typed a reference (`|x:
    /// &[f64]|`), the lifted row owned by the call.
    Borrowed,
}

/// Generated code in a recording twin's body whose lints the twin allows.
#[derive(Clone, Copy, Default)]
pub(super) struct Raised {
    /// A call's stand-in (`emit::companion_lookup`): a lower-case type,
    /// globs that one of two calls leaves unused, items never run.
    pub stand_ins: bool,
    /// A method's shadow probe (`probed_method`): an import for method
    /// lookup only, code after a diverging receiver.
    pub probes: bool,
}

impl<'f> Emitter<'f> {
    pub(super) fn new(flow: &'f Flow, tape: Ident) -> Self {
        Emitter {
            flow,
            tape,
            models: Vec::new(),
            outlined: false,
            method_chains: std::cell::Cell::new(true),
            float_constants: Vec::new(),
            slices: Vec::new(),
            raised: std::cell::Cell::new(Raised::default()),
            shaped: false,
            bound: std::cell::Cell::new(None),
            closures: std::cell::RefCell::default(),
        }
    }

    /// A vector-valued function's recording twin (see `shaped`).
    pub(super) fn shaped(mut self, shaped: bool) -> Self {
        self.shaped = shaped;
        self
    }

    /// What the emitted body raises lints for; read after `body`.
    pub(super) fn raised(&self) -> Raised {
        self.raised.get()
    }

    fn raise(&self, note: impl FnOnce(&mut Raised)) {
        let mut raised = self.raised.get();
        note(&mut raised);
        self.raised.set(raised);
    }

    /// [`recording_twin`], noting a free function's stand-in.
    fn recording_twin(&self, func: &syn::Path, arity: usize) -> Twin {
        let twin = recording_twin(func, arity);
        if let Twin::Free { .. } = twin {
            self.raise(|raised| raised.stand_ins = true);
        }
        twin
    }

    pub(super) fn models(mut self, models: Vec<String>) -> Self {
        self.models = models;
        self
    }

    pub(super) fn slices(mut self, names: Vec<String>) -> Self {
        self.slices = names;
        self
    }

    pub(super) fn outlined(mut self, outlined: bool) -> Self {
        self.outlined = outlined;
        self
    }

    pub(super) fn float_constants(mut self, names: Vec<String>) -> Self {
        self.float_constants = names;
        self
    }

    /// `k` for a `#[constant] k: f64`.
    fn is_float_constant(&self, expr: &Expr) -> bool {
        matches!(&expr.kind, ExprKind::Path(path)
            if path.path.get_ident().is_some_and(|ident| self.float_constants.iter().any(|name| ident == name)))
    }

    /// An arithmetic call in a long body (`__private::outlined`): each
    /// operand borrowed (parenthesised, so that `&` takes all of `a as f64`)
    /// and the label a constant. When the first operand is itself a
    /// recorded operation it is the receiver of the method `record_<func>`
    /// instead, so that rustc types a left-deep chain one call at a time
    /// (`Record`).
    fn outlined_call(
        &self,
        func: &str,
        first: (TokenStream, Receiver),
        rest: &[TokenStream],
        at: TokenStream,
        span: Span,
    ) -> TokenStream {
        let ((first, receiver), at) = (first, quote!(&const { #at }));
        if let (Receiver::Recorded { bare }, true) = (receiver, self.method_chains.get()) {
            let method = format_ident!("record_{}", func, span = span);
            // A chain of these is one flat method chain, which rustc parses
            // in a loop; parenthesised, each level would nest its parser.
            let first = if bare { first } else { quote!((#first)) };
            quote_spanned!(span=> #first.#method(#(#rest,)* #at))
        } else {
            let func = Ident::new(func, span);
            quote_spanned!(span=> __ad::#func(&(#first), #(#rest,)* #at))
        }
    }

    /// The function body: statements, then the value as a `Scalar`.
    pub(super) fn body(&self, block: &Block) -> TokenStream {
        self.note_closures(block);
        let (stmts, tail) = block.split_tail();
        let stmts = stmts.iter().map(|stmt| self.stmt(stmt));
        let tail = tail.map(|tail| self.output(tail));
        quote!(#(#stmts)* #tail)
    }

    /// The function's result, a `Scalar` in `Ok`: `__ad::output(tape,
    /// __nested, v)` lifts a single value (finite unless the recording is
    /// nested in a caller's, see `Entry::nested`); a branch lifts each arm
    /// instead.
    fn output(&self, expr: &Expr) -> TokenStream {
        match &expr.kind {
            _ if expr.diverges() => self.expr_forced(expr, Mode::Value),
            ExprKind::If { .. }
            | ExprKind::Match { .. }
            | ExprKind::Block(..)
            | ExprKind::Loop { .. } => {
                let (tape, at, nested) = (&self.tape, self.output_label(expr), nested());
                if self.shaped {
                    let value = self.expr(expr, Mode::Value);
                    return quote!(__ad::output_shaped(#tape, #nested, #value, #at));
                }
                let value = self.expr(expr, Mode::Lift);
                quote!(__ad::output(#tape, #nested, #value, #at))
            }
            ExprKind::Paren(inner) => self.output(inner),
            _ if self.shaped => {
                let (tape, span, at) = (&self.tape, expr.span, self.output_label(expr));
                let (value, nested) = (self.shaped_value(expr), nested());
                quote_spanned!(span=> __ad::output_shaped(#tape, #nested, #value, #at))
            }
            _ => {
                let (tape, span, at) = (&self.tape, expr.span, self.output_label(expr));
                let (value, nested) = (self.arg(expr), nested());
                quote_spanned!(span=> __ad::output(#tape, #nested, #value, #at))
            }
        }
    }

    /// A vector-valued function's output, its plain numbers made constant
    /// nodes where the type needs them: `(0.0, Vec::new())`, `[0.0, x]`,
    /// `vec![0.0; n]` (an early `return` of an empty result), each
    /// component as its own, a plain value (`c.to_vec()` of constant data)
    /// lifted to the output's type; anything else as it is.
    fn shaped_value(&self, expr: &Expr) -> TokenStream {
        match &expr.kind {
            ExprKind::Tuple(items) => {
                let items = items.iter().map(|item| self.shaped_value(item));
                quote!((#(#items,)*))
            }
            ExprKind::Paren(inner) => {
                let inner = self.shaped_value(inner);
                quote!((#inner))
            }
            ExprKind::Array(_)
            | ExprKind::VecList(_)
            | ExprKind::Repeat { .. }
            | ExprKind::VecRepeat { .. } => self.expr(expr, Mode::Lift),
            ExprKind::Lit(syn::Lit::Float(_)) | ExprKind::NegLit(_) => self.lifted(expr),
            ExprKind::Binary { .. } | ExprKind::Neg { .. } | ExprKind::Elementary { .. }
                if !self.touches(expr) =>
            {
                self.lifted(expr)
            }
            // `c.to_vec()` of constant data: the output's type, lifted.
            _ if !self.touches(expr) && !expr.is_int_literal() => self.lifted_into(expr, true),
            _ => self.expr(expr, Mode::Value),
        }
    }

    /// The output's label: its source text (a branch is named by its
    /// keyword) and the line it starts on.
    fn output_label(&self, expr: &Expr) -> TokenStream {
        let text = match &expr.kind {
            ExprKind::If { .. } => "if".to_owned(),
            ExprKind::Match { .. } => "match".to_owned(),
            ExprKind::Block(..) => "{ .. }".to_owned(),
            ExprKind::Loop { .. } => "loop".to_owned(),
            _ => expr
                .binding
                .clone()
                .unwrap_or_else(|| source_text(expr.source)),
        };
        label(&Label {
            text,
            line: text::line(expr.span),
        })
    }

    /// Notes the closures `block`'s own `let`s bind (see `closures`),
    /// before any of its statements or its tail is emitted.
    fn note_closures(&self, block: &Block) {
        for stmt in &block.stmts {
            if let Stmt::Let {
                name: Some(name),
                init: Some(init),
                ..
            } = stmt
            {
                if let ExprKind::Closure { inputs, .. } = &init.kind {
                    let tracked = inputs
                        .iter()
                        .map(|input| {
                            if !input.names.iter().any(|n| self.flow.is_tracked(n)) {
                                Lifted::No
                            } else if matches!(input.syntax,
                                syn::Pat::Type(typed) if matches!(*typed.ty, syn::Type::Reference(_)))
                            {
                                Lifted::Borrowed
                            } else {
                                Lifted::Value
                            }
                        })
                        .collect();
                    self.closures.borrow_mut().insert(name.clone(), tracked);
                }
            }
        }
    }

    fn block(&self, block: &Block, mode: Mode) -> TokenStream {
        self.note_closures(block);
        let (stmts, tail) = block.split_tail();
        let stmts = stmts.iter().map(|stmt| self.stmt(stmt));
        // A block that ends in `#[cfg(..)] { .. }` keeps the attribute, as
        // a statement does: without it the block compiled out would run.
        let tail = tail.map(|tail| {
            let attrs = match tail.source {
                Source::Expr(syntax) if self.touches(tail) => super::attributes(syntax),
                _ => &[],
            };
            let value = self.expr(tail, mode);
            quote!(#(#attrs)* #value)
        });
        quote!({ #(#stmts)* #tail })
    }

    /// A statement, then, for one that binds or writes a tracked name, its
    /// probe: on a probing tape (`#[backward(f)]`'s exact adjoints) it logs
    /// the node the binding, or the element written, now holds.
    fn stmt(&self, stmt: &Stmt) -> TokenStream {
        if let Some(init) = self.bound_init(stmt) {
            // The operation's node is the binding's: labelling it logs the
            // probe (`__ad::bound`), with no code of its own, which on a
            // body of thousands of `let`s was most of its compile time.
            self.bound.set(Some(std::ptr::from_ref(init).cast()));
            let tokens = self.stmt_unprobed(stmt);
            self.bound.set(None);
            return tokens;
        }
        let tokens = self.stmt_unprobed(stmt);
        let tape = &self.tape;
        let probe = match stmt {
            Stmt::Let {
                name: Some(name),
                init: Some(_),
                pat,
                ..
            } if self.flow.is_tracked(name) => match first_ident(pat.syntax) {
                // The pattern's own identifier, hygiene and all: a name
                // bound inside a `macro_rules!` is that macro's.
                Some(ident) => quote!(::autodiff::__probe!(#tape, #name, #ident);),
                None => TokenStream::new(),
            },
            Stmt::Expr(expr, Some(_)) => match &expr.kind {
                ExprKind::Assign { target, .. } => self.probe_of(target, true),
                ExprKind::CompoundAssign { target, .. } => self.probe_of(target, false),
                _ => TokenStream::new(),
            },
            _ => TokenStream::new(),
        };
        quote!(#tokens #probe)
    }

    /// The initializer of `let name = <operation>;` (not `mut`, a plain
    /// name, tracked) whose operation records one node labelled with the
    /// binding's name: the node the binding then holds.
    fn bound_init<'s, 'a>(&self, stmt: &'s Stmt<'a>) -> Option<&'s Expr<'a>> {
        let Stmt::Let {
            name: Some(name),
            init: Some(init),
            pat,
            mutable: false,
            ..
        } = stmt
        else {
            return None;
        };
        let plain = match pat.syntax {
            syn::Pat::Ident(ident) => ident.by_ref.is_none() && ident.subpat.is_none(),
            syn::Pat::Type(typed) => matches!(&*typed.pat, syn::Pat::Ident(ident)
                if ident.by_ref.is_none() && ident.subpat.is_none()),
            _ => false,
        };
        if !plain || !self.flow.is_tracked(name) || !self.touches(init) {
            return None;
        }
        let label = match &init.kind {
            // `%` may record more than one node under its label; the
            // three-operand calls (`mul_add`, `clamp`) and sums do.
            ExprKind::Binary { op, label, .. } if *op != crate::ast::Arith::Rem => label,
            ExprKind::Neg { label, .. }
            | ExprKind::Elementary { label, .. }
            | ExprKind::Powi { label, .. } => label,
            _ => return None,
        };
        (label.text == *name).then_some(init)
    }

    /// An operation's label: `__ad::bound` for the operation a `let`
    /// binds (see `bound_init`), else `__ad::at`.
    pub(super) fn op_label(&self, expr: &Expr, at: &crate::ast::Label) -> TokenStream {
        if self.bound.get() == Some(std::ptr::from_ref(expr).cast()) {
            let text = &at.text;
            let line = proc_macro2::Literal::u32_unsuffixed(at.line);
            quote!(__ad::bound(#text, #line))
        } else {
            label(at)
        }
    }

    /// The probe of an assignment's target: the name, or the element of a
    /// name indexed by integer expressions (re-read after the write), or the
    /// whole name when an index is anything else.
    /// `reassigned`: a plain `=` to a whole name (`a = z.sin()`), which in a
    /// loop is a recurrence (`#[backward]` does not judge its adjoint by
    /// the last value).
    fn probe_of(&self, target: &Expr, reassigned: bool) -> TokenStream {
        let Some(root) = flow::root(target).filter(|root| self.flow.is_tracked(root)) else {
            return TokenStream::new();
        };
        let tape = &self.tape;
        let mut place = target;
        let ident = loop {
            match &place.kind {
                ExprKind::Index { base, .. } => place = base,
                ExprKind::Paren(inner) => place = inner,
                ExprKind::Path(path) => match path.path.get_ident() {
                    Some(ident) => break ident.clone(),
                    None => return TokenStream::new(),
                },
                _ => return TokenStream::new(),
            }
        };
        let mut indices = Vec::new();
        let mut place = target;
        loop {
            match &place.kind {
                ExprKind::Index { base, index } => {
                    if !is_plain_index(index)
                        || self.flow.is_certainly_tracked(index)
                        || self.is_float_constant(index)
                    {
                        return quote!(::autodiff::__probe!(#tape, #root, #ident););
                    }
                    indices.push(index.source.to_token_stream());
                    place = base;
                }
                ExprKind::Paren(inner) => place = inner,
                ExprKind::Path(_) => break,
                _ => return TokenStream::new(),
            }
        }
        indices.reverse();
        if indices.is_empty() && reassigned {
            quote!(::autodiff::__probe!(= #tape, #root, #ident);)
        } else if indices.is_empty() {
            quote!(::autodiff::__probe!(#tape, #root, #ident);)
        } else {
            quote!(::autodiff::__probe!(#tape, #root, #ident #([#indices])*; #(#indices),*);)
        }
    }

    fn stmt_unprobed(&self, stmt: &Stmt) -> TokenStream {
        match stmt {
            Stmt::Let {
                pat,
                untyped,
                name,
                mutable,
                init,
                attrs,
            } => {
                let tracked = match name {
                    Some(name) => self.flow.is_tracked(name),
                    // `let (a, b): (f64, f64) = ..`: the annotation goes
                    // when any name may hold a `Scalar`.
                    None => pat.names.iter().any(|name| self.flow.is_tracked(name)),
                };
                // A tracked binding's `f64` becomes `_`: on the tape it is
                // a `Scalar` (`let e: Vec<f64> = ..collect()` still names
                // the collection).
                let syntax = if tracked {
                    match pat.syntax {
                        syn::Pat::Type(typed) => {
                            let ty = without_f64(typed.ty.to_token_stream());
                            let inner = &typed.pat;
                            quote!(#inner: #ty)
                        }
                        _ => untyped.to_token_stream(),
                    }
                } else {
                    pat.syntax.to_token_stream()
                };
                match init {
                    None => quote!(#(#attrs)* let #syntax;),
                    Some(init) if name.is_none() && tracked => {
                        let init = self.tuple_init(untyped, init);
                        quote!(#(#attrs)* let #syntax = #init;)
                    }
                    Some(init) => {
                        let lifts =
                            tracked && *mutable && !init.is_empty_vec() && !is_iterator(init);
                        if let (true, syn::Pat::Type(typed)) = (lifts, pat.syntax) {
                            // The value built as the annotation says, then
                            // lifted: `let mut v: Vec<f64> = x.iter().map(..)
                            // .collect();` (its `f64`s as `_`, which tells
                            // `collect` what to build) and a constant `let mut
                            // rows: Vec<Vec<f64>> = vec![Vec::new(); 2];` (as
                            // written: its items' type may be known from
                            // nothing else).
                            let typed_value = if is_collect(init) {
                                let ty = without_f64(typed.ty.to_token_stream());
                                Some((ty, self.expr(init, Mode::Value)))
                            } else if !self.touches(init)
                                && matches!(
                                    init.kind,
                                    ExprKind::VecRepeat { .. }
                                        | ExprKind::VecList(_)
                                        | ExprKind::Repeat { .. }
                                        | ExprKind::Array(_)
                                )
                            {
                                Some((typed.ty.to_token_stream(), init.source.to_token_stream()))
                            } else {
                                None
                            };
                            if let Some((ty, value)) = typed_value {
                                let tape = &self.tape;
                                let at = label(&Label {
                                    text: name.clone().unwrap_or_default(),
                                    line: text::line(init.span),
                                });
                                return quote! {
                                    #(#attrs)* let #syntax = __ad::lift(#tape, {
                                        let built: #ty = #value;
                                        built
                                    }, #at);
                                };
                            }
                        }
                        if tracked && init.is_empty_vec() {
                            // `Vec::<f64>::new()` of a binding that holds
                            // `Scalar`s: its items' type as `_`.
                            let init = without_f64(init.source.to_token_stream());
                            return quote!(#(#attrs)* let #syntax = #init;);
                        }
                        let mode = if lifts { Mode::Lift } else { Mode::Value };
                        let init = self.expr(init, mode);
                        quote!(#(#attrs)* let #syntax = #init;)
                    }
                }
            }
            Stmt::Item(item) => item.to_token_stream(),
            Stmt::Expr(expr, semi) => {
                // A rewritten statement loses its syntax's attributes: put
                // them back, so that `#[cfg]` compiles out the same
                // statement in every twin.
                let attrs = match expr.source {
                    Source::Expr(syntax) if self.touches(expr) => super::attributes(syntax),
                    _ => &[],
                };
                let expr = self.expr(expr, Mode::Stmt);
                quote!(#(#attrs)* #expr #semi)
            }
        }
    }

    /// The initialiser of a destructuring `let`: a tuple of accumulators
    /// `let (mut a, mut b) = (0.0, 0.0)` lifts each element bound to a
    /// tracked `mut` name; any other initialiser is lifted whole when a
    /// tracked name in it is `mut`.
    fn tuple_init(&self, pat: &syn::Pat, init: &Expr) -> TokenStream {
        let lifts = |pat: &syn::Pat| match pat {
            syn::Pat::Ident(ident) => {
                ident.mutability.is_some() && self.flow.is_tracked(&ident.ident.to_string())
            }
            _ => false,
        };
        match (pat, &init.kind) {
            (syn::Pat::Tuple(tuple), ExprKind::Tuple(items))
                if tuple.elems.len() == items.len() =>
            {
                let items = tuple.elems.iter().zip(items).map(|(pat, item)| {
                    self.expr(item, if lifts(pat) { Mode::Lift } else { Mode::Value })
                });
                quote!((#(#items,)*))
            }
            (syn::Pat::Tuple(tuple), _) if tuple.elems.iter().any(lifts) => {
                self.expr(init, Mode::Lift)
            }
            _ => self.expr(init, Mode::Value),
        }
    }

    /// `g(2.0)` of `let g = |u: f64| ..` whose `u` another call makes
    /// tracked (`g(x)`): the closure takes a `Scalar` there, so the plain
    /// argument is lifted, and the value, plain in the plain twin, is the
    /// result's primal.
    fn plain_call_of_lifted_closure(&self, expr: &Expr) -> Option<TokenStream> {
        let ExprKind::Construct { func, args } = &expr.kind else {
            return None;
        };
        let lifted = self.lifted_parameters(func);
        if lifted.iter().all(|&how| how == Lifted::No) {
            return None;
        }
        let args = args.iter().enumerate().map(|(position, arg)| {
            self.closure_argument(&lifted, position, arg)
                .unwrap_or_else(|| arg.source.to_token_stream())
        });
        Some(quote_spanned!(expr.span=> __ad::primal(#func(#(#args),*))))
    }

    /// The argument at `position` of a call of a closure whose parameters
    /// are `lifted` (see `lifted_parameters`): lifted (and borrowed, for a
    /// parameter typed a reference) where the parameter may hold a tracked
    /// value; `None` where it is passed as the call's other arguments are.
    pub(super) fn closure_argument(
        &self,
        lifted: &[Lifted],
        position: usize,
        arg: &Expr,
    ) -> Option<TokenStream> {
        match lifted.get(position).copied().unwrap_or(Lifted::No) {
            Lifted::No => None,
            Lifted::Value => Some(self.lifted(arg)),
            Lifted::Borrowed => {
                let lifted = self.lifted(arg);
                Some(quote!(&#lifted))
            }
        }
    }

    /// Of a call's callee, a closure a `let` bound: which parameters may
    /// hold a tracked value (see `closures`); empty for anything else.
    pub(super) fn lifted_parameters(&self, func: &syn::ExprPath) -> Vec<Lifted> {
        func.path
            .get_ident()
            .and_then(|ident| self.closures.borrow().get(&ident.to_string()).cloned())
            .unwrap_or_default()
    }

    fn touches(&self, expr: &Expr) -> bool {
        self.flow.touches(expr)
    }

    fn expr(&self, expr: &Expr, mode: Mode) -> TokenStream {
        if mode == Mode::Lift {
            return self.lifted(expr);
        }
        if !self.touches(expr) {
            if let Some(call) = self.plain_call_of_lifted_closure(expr) {
                return call;
            }
            return expr.source.to_token_stream();
        }
        // One method per family of nodes, so that recursion through a deep
        // expression carries a frame sized for its family, not for all.
        match &expr.kind {
            ExprKind::Binary { .. }
            | ExprKind::Neg { .. }
            | ExprKind::Elementary { .. }
            | ExprKind::Powi { .. }
            | ExprKind::Ternary { .. }
            | ExprKind::Sum { .. }
            | ExprKind::Compare { .. }
            | ExprKind::Logic { .. }
            | ExprKind::Prefix { .. }
            | ExprKind::CompoundAssign { .. } => self.operation(expr),
            ExprKind::Call { .. }
            | ExprKind::PlainCall { .. }
            | ExprKind::Structural { .. }
            | ExprKind::PlainMethod { .. }
            | ExprKind::Cast { .. } => self.call(expr),
            ExprKind::Index { .. }
            | ExprKind::Field { .. }
            | ExprKind::Reference { .. }
            | ExprKind::Paren(_)
            | ExprKind::Tuple(_)
            | ExprKind::Array(_)
            | ExprKind::Repeat { .. }
            | ExprKind::VecList(_)
            | ExprKind::VecRepeat { .. }
            | ExprKind::Range { .. }
            | ExprKind::Construct { .. } => self.composite(expr, mode),
            ExprKind::PlainMacro { .. } | ExprKind::Dbg { .. } => self.mac(expr),
            _ => self.control(expr, mode),
        }
    }
}

/// Whether `expr` is a `collect()` with no turbofish: its type comes from
/// the `let` it initialises.
fn is_collect(expr: &Expr) -> bool {
    matches!(&expr.kind, ExprKind::Structural { method, turbofish: None, .. } if *method == "collect")
}

/// An index expression that reads no more than integers: names, literals,
/// arithmetic and parentheses of them, re-evaluated by a probe.
fn is_plain_index(index: &Expr) -> bool {
    match &index.source {
        Source::Expr(expr) => plain_index_syntax(expr),
        _ => false,
    }
}

fn plain_index_syntax(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(path) => path.qself.is_none(),
        syn::Expr::Lit(_) => true,
        syn::Expr::Paren(paren) => plain_index_syntax(&paren.expr),
        syn::Expr::Binary(binary) => {
            matches!(
                binary.op,
                syn::BinOp::Add(_) | syn::BinOp::Sub(_) | syn::BinOp::Mul(_) | syn::BinOp::Div(_)
            ) && plain_index_syntax(&binary.left)
                && plain_index_syntax(&binary.right)
        }
        _ => false,
    }
}

/// The recording twin's binding of whether it runs inside a caller's
/// recording (`let __nested = __entry.nested();`), which its output reads.
pub(super) fn nested() -> proc_macro2::Ident {
    proc_macro2::Ident::new("__nested", proc_macro2::Span::mixed_site())
}
