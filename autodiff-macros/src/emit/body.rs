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
use crate::ast::{Arm, Block, Expr, ExprKind, Label, Source, Stmt};
use crate::flow::{self, Flow};
use crate::text;

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
    /// `#[constant]` parameters declared `f64`: as an index, the plain
    /// twin's error alone (see `composite`).
    float_constants: Vec<String>,
    /// What the body emitted that raises lints of its own, for the
    /// recording twin's `#[allow]` (`tape::item`).
    raised: std::cell::Cell<Raised>,
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
            float_constants: Vec::new(),
            raised: std::cell::Cell::new(Raised::default()),
        }
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
        if let Twin::Free(_) = twin {
            self.raise(|raised| raised.stand_ins = true);
        }
        twin
    }

    pub(super) fn models(mut self, models: Vec<String>) -> Self {
        self.models = models;
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
        if let Receiver::Recorded { bare } = receiver {
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
        let (stmts, tail) = block.split_tail();
        let stmts = stmts.iter().map(|stmt| self.stmt(stmt));
        let tail = tail.map(|tail| self.output(tail));
        quote!(#(#stmts)* #tail)
    }

    /// The function's result, a `Scalar` in `Ok`: `__ad::output(tape, v)`
    /// lifts a single value; a branch lifts each arm instead.
    fn output(&self, expr: &Expr) -> TokenStream {
        match &expr.kind {
            _ if expr.diverges() => self.expr_forced(expr, Mode::Value),
            ExprKind::If { .. }
            | ExprKind::Match { .. }
            | ExprKind::Block(..)
            | ExprKind::Loop { .. } => {
                let (tape, at) = (&self.tape, self.output_label(expr));
                let value = self.expr(expr, Mode::Lift);
                quote!(__ad::output(#tape, #value, #at))
            }
            ExprKind::Paren(inner) => self.output(inner),
            _ => {
                let (tape, span, at) = (&self.tape, expr.span, self.output_label(expr));
                let value = self.arg(expr);
                quote_spanned!(span=> __ad::output(#tape, #value, #at))
            }
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

    fn block(&self, block: &Block, mode: Mode) -> TokenStream {
        let (stmts, tail) = block.split_tail();
        let stmts = stmts.iter().map(|stmt| self.stmt(stmt));
        // A block that ends in `#[cfg(..)] { .. }` keeps the attribute, as
        // a statement does: without it the block compiled out would run.
        let tail = tail.map(|tail| {
            let attrs = match tail.source {
                Source::Expr(syntax) if self.touches(tail) => outer_attrs(syntax),
                _ => &[],
            };
            let value = self.expr(tail, mode);
            quote!(#(#attrs)* #value)
        });
        quote!({ #(#stmts)* #tail })
    }

    fn stmt(&self, stmt: &Stmt) -> TokenStream {
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
                        let mode =
                            if tracked && *mutable && !init.is_empty_vec() && !is_iterator(init) {
                                Mode::Lift
                            } else {
                                Mode::Value
                            };
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
                    Source::Expr(syntax) if self.touches(expr) => outer_attrs(syntax),
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

    fn touches(&self, expr: &Expr) -> bool {
        self.flow.touches(expr)
    }

    fn expr(&self, expr: &Expr, mode: Mode) -> TokenStream {
        if mode == Mode::Lift {
            return self.lifted(expr);
        }
        if !self.touches(expr) {
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

    /// An operation on tracked values: one recording call.
    #[inline(never)]
    fn operation(&self, expr: &Expr) -> TokenStream {
        let tape = &self.tape;
        let value = |e: &Expr| self.expr(e, Mode::Value);
        let arg = |e: &Expr| self.arg(e);
        let span = expr.span;
        match &expr.kind {
            ExprKind::Binary {
                op,
                lhs,
                rhs,
                label: at,
            } => {
                let receiver = Receiver::of(self.touches(lhs), lhs);
                let (lhs, rhs, at) = (arg(lhs), arg(rhs), label(at));
                if self.outlined {
                    let rhs = quote!(&(#rhs));
                    return self.outlined_call(op.name(), (lhs, receiver), &[rhs], at, span);
                }
                let func = Ident::new(op.name(), span);
                quote_spanned!(span=> __ad::#func(#lhs, #rhs, #at))
            }
            ExprKind::Neg { operand, label: at } => {
                let receiver = Receiver::of(true, operand);
                let (operand, at) = (arg(operand), label(at));
                if self.outlined {
                    return self.outlined_call("neg", (operand, receiver), &[], at, span);
                }
                quote_spanned!(span=> __ad::neg(#operand, #at))
            }
            ExprKind::Elementary {
                func,
                operand,
                label: at,
            } => {
                let receiver = Receiver::of(true, operand);
                let (operand, at) = (arg(operand), label(at));
                // Of the one-operand functions, `__private::outlined` has
                // `abs` (which integers share); the others stay inline.
                if self.outlined && *func == "abs" {
                    return self.outlined_call(func, (operand, receiver), &[], at, span);
                }
                let func = Ident::new(func, span);
                quote_spanned!(span=> __ad::#func(#operand, #at))
            }
            ExprKind::Powi {
                base,
                exponent,
                label: at,
            } => {
                let receiver = Receiver::of(true, base);
                let (base, exponent, at) = (arg(base), arg(exponent), label(at));
                if self.outlined {
                    return self.outlined_call("powi", (base, receiver), &[exponent], at, span);
                }
                quote_spanned!(span=> __ad::powi(#base, #exponent, #at))
            }
            ExprKind::Ternary {
                func,
                operands,
                label: at,
            } => {
                let func = Ident::new(func, span);
                let [a, b, c] = operands.each_ref().map(|operand| arg(operand));
                let at = label(at);
                quote_spanned!(span=> __ad::#func(#a, #b, #c, #at))
            }
            ExprKind::Sum {
                items,
                label: at,
                product,
            } => {
                let (items, at) = (arg(items), label(at));
                let func = Ident::new(if *product { "product" } else { "sum" }, span);
                quote_spanned!(span=> __ad::#func(#tape, #items, #at))
            }
            ExprKind::Compare { op, lhs, rhs } => {
                let (lhs, rhs) = (self.primal(lhs), self.primal(rhs));
                quote!(#lhs #op #rhs)
            }
            ExprKind::Logic { op, lhs, rhs } => {
                let (lhs, rhs) = (self.condition(lhs), self.condition(rhs));
                quote!(#lhs #op #rhs)
            }
            ExprKind::Prefix { op, operand } => {
                let operand = match op {
                    syn::UnOp::Not(_) => self.condition(operand),
                    _ => value(operand),
                };
                quote!(#op #operand)
            }
            ExprKind::CompoundAssign {
                op,
                target,
                value: operand,
                label: at,
            } => {
                let (target, operand, at) = (value(target), arg(operand), label(at));
                if self.outlined {
                    let operand = quote!(&(#operand));
                    let call = self.outlined_call(
                        op.name(),
                        (target.clone(), Receiver::Plain),
                        &[operand],
                        at,
                        span,
                    );
                    return quote_spanned!(span=> #target = #call);
                }
                let func = Ident::new(op.name(), span);
                quote_spanned!(span=> #target = __ad::#func(#target, #operand, #at))
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// A call or a method: another function's tape twin, or plain Rust on plain values.
    #[inline(never)]
    fn call(&self, expr: &Expr) -> TokenStream {
        let tape = &self.tape;
        let value = |e: &Expr| self.expr(e, Mode::Value);
        match &expr.kind {
            ExprKind::Call { func, args } => match self.recording_twin(func, args.len()) {
                // Converted by `__ad::call_twin`, which also leaves a wrong
                // argument count to the plain twin's error.
                // More arguments than `__ad::call_twin` takes (12): called
                // directly, a wrong count then also reported by the twin.
                Twin::Free(twin) if args.len() > 12 => {
                    let args = self.call_args(args);
                    quote!(__ad::call(#tape, #twin(#tape, #(#args),*)))
                }
                Twin::Free(twin) => {
                    let args = args.iter().map(|arg| self.arg(arg));
                    // On the student's `f`, as the stand-in's bound is: a
                    // plain `f` is then one error, not two.
                    let span = func
                        .segments
                        .last()
                        .map_or_else(Span::call_site, |last| last.ident.span());
                    let call = quote_spanned!(span=> __ad::call_twin(#tape, #twin, (#(#args,)*)));
                    quote!(__ad::call(#tape, #call))
                }
                Twin::Associated(twin) => {
                    let args = self.call_args(args);
                    quote!(__ad::call(#tape, #twin(#tape, #(#args),*)))
                }
            },
            ExprKind::PlainCall { func, args } => {
                let args = args.iter().map(|arg| self.untracked(arg));
                quote!(#func(#(#args),*))
            }
            ExprKind::Structural {
                receiver,
                method,
                turbofish,
                args,
            } => {
                let tracked_receiver =
                    flow::root(receiver).is_some_and(|root| self.flow.is_tracked(&root));
                let tracked_items = self.touches(receiver);
                let receiver = value(receiver);
                // `fold(0.0, |acc, v| acc + v)`: the start is lifted when the
                // closure's result may be tracked, so both have one type.
                let folds_tracked = *method == "fold"
                    && args.len() == 2
                    && (self.touches(&args[1])
                        || (tracked_items && f64_operation(&args[1]).is_some()));
                let args = args.iter().enumerate().map(|(position, arg)| {
                    if let Some(func) = tracked_items.then(|| f64_operation(arg)).flatten() {
                        // `fold(f64::NEG_INFINITY, f64::max)` over tracked
                        // items: the operation as a recording closure.
                        let func = Ident::new(func, arg.span);
                        let at = label(&Label {
                            text: source_text(arg.source),
                            line: text::line(arg.span),
                        });
                        return quote!(|a, b| __ad::#func(a, b, #at));
                    }
                    if (*method == "push" && tracked_receiver) || (folds_tracked && position == 0) {
                        self.expr(arg, Mode::Lift)
                    } else {
                        value(arg)
                    }
                });
                quote!(#receiver.#method #turbofish(#(#args),*))
            }
            ExprKind::PlainMethod {
                receiver,
                method,
                turbofish: None,
                args,
                reads_primal: false,
            } if flow::root(receiver).is_some_and(|root| self.models.contains(&root)) => {
                self.model_method(receiver, method, args)
            }
            ExprKind::PlainMethod {
                receiver,
                method,
                turbofish,
                args,
                reads_primal,
            } => {
                if !*reads_primal && self.touches(receiver) {
                    return self.probed_method(receiver, method, *turbofish, args);
                }
                let receiver = if *reads_primal {
                    self.primal(receiver)
                } else {
                    self.untracked(receiver)
                };
                let args = args.iter().map(|arg| {
                    if *reads_primal && self.touches(arg) {
                        // `a.total_cmp(b)` compares primal values.
                        let arg = self.primal(arg);
                        quote!(&#arg)
                    } else {
                        self.untracked(arg)
                    }
                });
                quote!(#receiver.#method #turbofish(#(#args),*))
            }
            ExprKind::Cast { expr: inner, ty } => {
                let inner = self.untracked(inner);
                quote!(#inner as #ty)
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// `model.f(args)` on a model on the tape: the method's recording twin,
    /// found through the plain model the twin was recorded from
    /// (`f_tape(&self, tape, twin, args)`).
    fn model_method(&self, receiver: &Expr, method: &Ident, args: &[Expr]) -> TokenStream {
        let tape = &self.tape;
        let twin = Ident::new("twin", proc_macro2::Span::mixed_site());
        let tape_fn = format_ident!("{}_tape", method, span = method.span());
        let receiver_span = receiver.span;
        let receiver = self.expr(receiver, Mode::Value);
        let args = self.call_args(args);
        quote_spanned! {receiver_span=>
            {
                let #twin = &#receiver;
                __ad::call(#tape, __ad::model(#twin).#tape_fn(#tape, #twin, #(#args),*))
            }
        }
    }

    /// The arguments of a call of another function's recording twin:
    /// plain values become constants where the callee records.
    fn call_args<'e>(&'e self, args: &'e [Expr]) -> impl Iterator<Item = TokenStream> + 'e {
        let tape = &self.tape;
        args.iter().map(move |arg| {
            let span = arg.span;
            // A name or a reference may be a slice, which the callee takes
            // as its own slice type: converted.
            let certain = self.flow.is_certainly_tracked(arg)
                && !matches!(arg.kind, ExprKind::Path(_) | ExprKind::Reference { .. });
            let arg = self.arg(arg);
            if certain {
                // Already what the callee records: passed as is.
                arg
            } else {
                quote_spanned!(span=> __ad::arg(#tape, #arg))
            }
        })
    }

    /// `assert!`, `println!`, ... run as written with every tracked name
    /// they mention shadowed by its primal value; `dbg!(e)` prints `e`'s
    /// primal as `dbg!` does, at the student's file and line, and returns
    /// the recorded value.
    #[inline(never)]
    fn mac(&self, expr: &Expr) -> TokenStream {
        match &expr.kind {
            ExprKind::PlainMacro { mac, names, .. } => {
                let shadows = names
                    .iter()
                    .filter(|name| self.flow.is_tracked(name))
                    .map(|name| {
                        let name = Ident::new(name, mac.path.span());
                        quote!(let #name = __ad::primal(&#name);)
                    });
                quote!({ #(#shadows)* #mac })
            }
            ExprKind::Dbg { mac, arg } => {
                let span = mac.path.span();
                let shown = text::expr(match arg.source {
                    Source::Expr(syntax) => syntax,
                    Source::Macro(_) => return expr.source.to_token_stream(),
                });
                let value = self.expr(arg, Mode::Value);
                let number = quote_spanned!(span=> __ad::primal(&value));
                super::dbg_printed(span, value, &shown, number)
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// Places and aggregates: indexing, fields, references, tuples, arrays, vectors, ranges.
    #[inline(never)]
    fn composite(&self, expr: &Expr, mode: Mode) -> TokenStream {
        let value = |e: &Expr| self.expr(e, Mode::Value);
        match &expr.kind {
            ExprKind::Index { base, index } => {
                // Spanned on the student's tokens: an index out of bounds
                // panics at the student's line, as in the plain twin.
                let (base, span) = (value(base), expr.span);
                let index =
                    if self.flow.is_certainly_tracked(index) || self.is_float_constant(index) {
                        // `v[k]` with `k: f64`: the plain twin's error alone.
                        let (index_span, index) = (index.span, value(index));
                        quote_spanned!(index_span=> __ad::index(#index))
                    } else {
                        value(index)
                    };
                quote_spanned!(span=> #base[#index])
            }
            ExprKind::Field { base, member } => {
                let base = value(base);
                quote!(#base.#member)
            }
            ExprKind::Reference {
                mutability,
                expr: inner,
            } => {
                let inner = value(inner);
                quote!(&#mutability #inner)
            }
            ExprKind::Paren(inner) => self.paren(inner, mode),
            ExprKind::Tuple(items) => {
                let items = items.iter().map(value);
                quote!((#(#items,)*))
            }
            ExprKind::Array(items) => {
                let items = items.iter().map(|item| self.expr(item, Mode::Lift));
                quote!([#(#items),*])
            }
            ExprKind::Repeat { elem, len } => {
                let elem = self.expr(elem, Mode::Lift);
                quote!([#elem; #len])
            }
            ExprKind::VecList(items) => {
                let items = items.iter().map(|item| self.expr(item, Mode::Lift));
                quote!(::std::vec![#(#items),*])
            }
            ExprKind::VecRepeat { elem, len } => {
                let (elem, len) = (self.expr(elem, Mode::Lift), value(len));
                quote!(::std::vec![#elem; #len])
            }
            ExprKind::Construct { func, args } => {
                // Lifting a constructor lifts what it holds: `Some(x)` and
                // `None` in two arms agree on `Option<Scalar>`.
                let arg_mode = if mode == Mode::Lift {
                    Mode::Lift
                } else {
                    Mode::Value
                };
                let args = args.iter().map(|arg| self.expr(arg, arg_mode));
                quote!(#func(#(#args),*))
            }
            ExprKind::Range { start, limits, end } => {
                let start = start.as_deref().map(|start| self.condition(start));
                let end = end.as_deref().map(|end| self.condition(end));
                quote!(#start #limits #end)
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// Leaves and control flow.
    #[inline(never)]
    fn control(&self, expr: &Expr, mode: Mode) -> TokenStream {
        let value = |e: &Expr| self.expr(e, Mode::Value);
        match &expr.kind {
            ExprKind::Lit(_) | ExprKind::NegLit(_) | ExprKind::Path(_) => {
                expr.source.to_token_stream()
            }
            ExprKind::Continue(loop_label) => quote!(continue #loop_label),
            ExprKind::Closure {
                syntax,
                inputs: patterns,
                body,
            } => {
                let (capture, output) = (&syntax.capture, &syntax.output);
                let mut inputs = syntax.inputs.to_token_stream();
                if patterns
                    .iter()
                    .any(|input| input.names.iter().any(|name| self.flow.is_tracked(name)))
                {
                    // `|v: f64|` may be given a `Scalar`.
                    inputs = without_f64(inputs);
                }
                let body = self.expr(body, Mode::Value);
                quote!(#capture |#inputs| #output #body)
            }
            ExprKind::Block(block_label, block) => {
                let block = self.block(block, self.branch_mode(expr, mode));
                quote!(#block_label #block)
            }
            ExprKind::If { .. } => self.if_(expr, self.branch_mode(expr, mode)),
            ExprKind::Let { pat, expr: inner } => {
                let (pat, inner) = (pat.syntax, value(inner));
                quote!(let #pat = #inner)
            }
            ExprKind::Match { scrutinee, arms } => {
                self.match_(scrutinee, arms, self.branch_mode(expr, mode))
            }
            ExprKind::For {
                label: loop_label,
                pat,
                iter,
                body,
            } => {
                let pat = pat.syntax;
                let (iter, body) = (value(iter), self.block(body, Mode::Stmt));
                quote!(#loop_label for #pat in #iter #body)
            }
            ExprKind::While {
                label: loop_label,
                cond,
                body,
            } => {
                let (cond, body) = (self.condition(cond), self.block(body, Mode::Stmt));
                quote!(#loop_label while #cond #body)
            }
            ExprKind::Loop { label, body } => self.loop_(*label, body),
            ExprKind::Break { label, value } => self.break_(*label, value.as_deref()),
            ExprKind::Return(result) => self.return_(result.as_deref()),
            ExprKind::Assign {
                target,
                value: result,
            } => {
                let tracked = flow::root(target).is_some_and(|root| self.flow.is_tracked(&root));
                let result = if tracked && self.flow.is_certainly_tracked(target) {
                    // Converted to the target's type: `y = n` with `n:
                    // usize` is the plain twin's mismatched types alone.
                    self.lifted_into(result, true)
                } else {
                    self.expr(result, if tracked { Mode::Lift } else { Mode::Value })
                };
                let target = value(target);
                quote!(#target = #result)
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// Lifts a value where Rust needs one type: pushed into the arms of a
    /// branch (their types must agree before anything can be lifted), left
    /// alone for integer literals (whose type rustc infers from later use)
    /// and for `return`/`break`.
    fn lifted(&self, expr: &Expr) -> TokenStream {
        self.lifted_into(expr, false)
    }

    /// [`Self::lifted`]; `into` when the type the value must have is known
    /// from elsewhere (the place it is assigned to, a tracked arm beside
    /// it): a single value then converts to that type (`__ad::lift_into`),
    /// so that an integer there is the plain twin's mismatched types alone.
    fn lifted_into(&self, expr: &Expr, into: bool) -> TokenStream {
        match &expr.kind {
            ExprKind::If { .. } => self.if_(expr, Mode::Lift),
            ExprKind::Match { .. } | ExprKind::Block(..) | ExprKind::Paren(_) => {
                // Evaluated with branch tails lifted.
                self.expr_forced(expr, Mode::Lift)
            }
            ExprKind::Loop { .. } => self.expr_forced(expr, Mode::Value),
            _ if expr.diverges() => self.expr_forced(expr, Mode::Value),
            _ if expr.is_int_literal() && !into => expr.source.to_token_stream(),
            // `Some(x)`: its arguments are lifted; `None`, a unit variant
            // or constant path, stays as written (its type comes from the
            // other arms).
            ExprKind::Construct { .. } => self.composite(expr, Mode::Lift),
            // `(0, x[0])`: element by element, so the integer stays an
            // integer of the type rustc infers from its later use.
            ExprKind::Tuple(items) => {
                let items = items.iter().map(|item| self.expr(item, Mode::Lift));
                quote!((#(#items,)*))
            }
            ExprKind::Path(path) if is_capitalised(&path.path) => expr.source.to_token_stream(),
            _ if self.flow.is_certainly_tracked(expr) => self.expr(expr, Mode::Value),
            _ => {
                let tape = &self.tape;
                let span = expr.span;
                let inner = self.arg(expr);
                let at = label(&Label {
                    text: expr
                        .binding
                        .clone()
                        .unwrap_or_else(|| source_text(expr.source)),
                    line: text::line(span),
                });
                let func = Ident::new(if into { "lift_into" } else { "lift" }, span);
                quote_spanned!(span=> __ad::#func(#tape, #inner, #at))
            }
        }
    }

    /// `expr` rewritten in `mode` even where no tracked value reaches it:
    /// lifting must reach the branch tails of plain code too.
    fn expr_forced(&self, expr: &Expr, mode: Mode) -> TokenStream {
        match &expr.kind {
            ExprKind::Match { scrutinee, arms } => self.match_(scrutinee, arms, mode),
            ExprKind::Block(block_label, block) => {
                let block = self.block(block, mode);
                quote!(#block_label #block)
            }
            ExprKind::Paren(inner) => self.paren(inner, mode),
            ExprKind::Loop { label, body } => self.loop_(*label, body),
            ExprKind::Return(result) => self.return_(result.as_deref()),
            ExprKind::Break { label, value } => self.break_(*label, value.as_deref()),
            _ => self.expr(expr, mode),
        }
    }

    /// `loop { … }`: the body in statement mode, whatever the mode outside.
    fn loop_(&self, loop_label: Option<&syn::Label>, body: &Block) -> TokenStream {
        let body = self.block(body, Mode::Stmt);
        quote!(#loop_label loop #body)
    }

    /// `return value`: the value becomes the function's output.
    fn return_(&self, result: Option<&Expr>) -> TokenStream {
        let result = result.map(|result| self.output(result));
        quote!(return #result)
    }

    /// `break 'label value`: the value lifted like any loop result.
    fn break_(&self, loop_label: Option<&syn::Lifetime>, result: Option<&Expr>) -> TokenStream {
        let result = result.map(|result| self.expr(result, Mode::Lift));
        quote!(break #loop_label #result)
    }

    /// `match`, its arms in `mode`. Beside an arm that is certainly
    /// tracked, the others convert to its type, as `if`'s do: `match k { 0
    /// => x, _ => 0 }` is the plain twin's error alone.
    fn match_(&self, scrutinee: &Expr, arms: &[Arm], mode: Mode) -> TokenStream {
        let scrutinee = self.scrutinee(scrutinee, arms);
        let certain = |body: &Expr| match &body.kind {
            ExprKind::Block(None, block) => block
                .split_tail()
                .1
                .is_some_and(|tail| self.flow.is_certainly_tracked(tail)),
            _ => self.flow.is_certainly_tracked(body),
        };
        let into = mode == Mode::Lift && arms.iter().any(|arm| certain(&arm.body));
        let arms = arms.iter().map(|arm| {
            let pat = arm.pat.syntax;
            let guard = arm.guard.as_ref().map(|guard| {
                let guard = self.expr(guard, Mode::Value);
                quote!(if #guard)
            });
            let body = match &arm.body.kind {
                ExprKind::Block(None, block) if into => self.arm(block, mode, true),
                _ if into => self.lifted_into(&arm.body, true),
                _ => self.expr(&arm.body, mode),
            };
            quote!(#pat #guard => #body,)
        });
        quote!(match #scrutinee { #(#arms)* })
    }

    fn if_(&self, expr: &Expr, mode: Mode) -> TokenStream {
        let ExprKind::If {
            cond,
            then_branch,
            else_branch,
        } = &expr.kind
        else {
            return self.expr(expr, mode);
        };
        let cond = self.condition(cond);
        // Beside an arm that is certainly tracked, the others convert to
        // its type: `if c { x } else { 0 }` is the plain twin's error alone.
        let into = mode == Mode::Lift && self.some_tail_certain(expr);
        let then_branch = self.arm(then_branch, mode, into);
        let else_branch = else_branch.as_deref().map(|else_branch| {
            let else_branch = match &else_branch.kind {
                ExprKind::If { .. } => self.if_(else_branch, mode),
                ExprKind::Block(None, block) => self.arm(block, mode, into),
                _ => self.expr_forced(else_branch, mode),
            };
            quote!(else #else_branch)
        });
        quote!(if #cond #then_branch #else_branch)
    }

    /// An arm of a branch; its tail converted to a tracked sibling's type
    /// when `into`.
    fn arm(&self, block: &Block, mode: Mode, into: bool) -> TokenStream {
        match block.split_tail() {
            (stmts, Some(tail)) if into => {
                let stmts = stmts.iter().map(|stmt| self.stmt(stmt));
                let tail = self.lifted_into(tail, true);
                quote!({ #(#stmts)* #tail })
            }
            _ => self.block(block, mode),
        }
    }

    /// Whether an arm of `if` ends in a value that is certainly tracked.
    fn some_tail_certain(&self, expr: &Expr) -> bool {
        let certain = |block: &Block| {
            block
                .split_tail()
                .1
                .is_some_and(|tail| self.flow.is_certainly_tracked(tail))
        };
        match &expr.kind {
            ExprKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                certain(then_branch)
                    || else_branch
                        .as_deref()
                        .is_some_and(|else_branch| self.some_tail_certain(else_branch))
            }
            ExprKind::Block(_, block) => certain(block),
            _ => false,
        }
    }

    /// A condition, a range bound, an operand of `&&` or `!`: a value that
    /// is certainly tracked there is read as its primal, an `f64`, so that
    /// `if flag` with `flag: f64` is the plain twin's mismatched types
    /// alone, not also one naming `Scalar`.
    fn condition(&self, expr: &Expr) -> TokenStream {
        if self.flow.is_certainly_tracked(expr) {
            self.primal(expr)
        } else {
            self.expr(expr, Mode::Value)
        }
    }

    /// Branch tails are lifted when a tracked value reaches any of them, so
    /// that every arm has the type `Scalar`.
    fn branch_mode(&self, expr: &Expr, mode: Mode) -> Mode {
        if mode == Mode::Value && self.tails_touch(expr) {
            Mode::Lift
        } else {
            mode
        }
    }

    fn tails_touch(&self, expr: &Expr) -> bool {
        let block_tail = |block: &Block| {
            block
                .split_tail()
                .1
                .is_some_and(|tail| self.touches(tail) && !tail.diverges())
        };
        match &expr.kind {
            ExprKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                block_tail(then_branch)
                    || else_branch
                        .as_deref()
                        .is_some_and(|else_branch| self.tails_touch(else_branch))
            }
            ExprKind::Block(_, block) => block_tail(block),
            ExprKind::Match { arms, .. } => arms.iter().any(|arm| {
                (self.touches(&arm.body) && !arm.body.diverges()) || self.tails_touch(&arm.body)
            }),
            ExprKind::Paren(inner) => self.tails_touch(inner),
            _ => false,
        }
    }

    /// `( inner )`: a rewritten operation or call is one generated call,
    /// where real parentheses would trip `unused_parens`, so an invisible
    /// group keeps the precedence; anything else (a range, a cast, a
    /// comparison) keeps the student's parentheses, which rustc does not
    /// always honour as an invisible group (`(0..n).rev()`).
    fn paren(&self, inner: &Expr, mode: Mode) -> TokenStream {
        let rewritten = self.expr(inner, mode);
        let one_call = matches!(
            inner.kind,
            ExprKind::Binary { .. }
                | ExprKind::Neg { .. }
                | ExprKind::Elementary { .. }
                | ExprKind::Powi { .. }
                | ExprKind::Ternary { .. }
                | ExprKind::Sum { .. }
                | ExprKind::Call { .. }
                | ExprKind::Paren(_)
        ) || (mode == Mode::Lift && !self.flow.is_certainly_tracked(inner));
        if one_call {
            invisible(rewritten)
        } else {
            quote!((#rewritten))
        }
    }

    /// An argument of a generated call: parentheses around it are redundant.
    fn arg(&self, expr: &Expr) -> TokenStream {
        match &expr.kind {
            ExprKind::Paren(inner) => self.arg(inner),
            _ => self.expr(expr, Mode::Value),
        }
    }

    /// A `match` on a tracked value compares its primal, unless an arm binds
    /// it to a name: that name must hold the `Scalar`, or the gradient
    /// through it would be silently lost.
    fn scrutinee(&self, scrutinee: &Expr, arms: &[Arm]) -> TokenStream {
        if arms.iter().any(|arm| binds(arm.pat.syntax)) {
            self.expr(scrutinee, Mode::Value)
        } else {
            self.primal(scrutinee)
        }
    }

    /// A comparison operand: a tracked value's primal.
    fn primal(&self, expr: &Expr) -> TokenStream {
        if !self.touches(expr) {
            return expr.source.to_token_stream();
        }
        let span = expr.span;
        let value = self.arg(expr);
        quote_spanned!(span=> __ad::primal(#value))
    }

    /// `recv.method(args)` on a receiver that may be tracked, for a method
    /// with no derivative rule: a tracked receiver is an error (the method
    /// would drop its gradient) only if the method exists, which a probe,
    /// the same call on the plain twin's types in a branch that never runs,
    /// tells; a missing method is then the plain twin's error alone.
    fn probed_method(
        &self,
        receiver: &Expr,
        method: &Ident,
        turbofish: Option<&syn::AngleBracketedGenericArguments>,
        args: &[Expr],
    ) -> TokenStream {
        self.raise(|raised| raised.probes = true);
        let span = receiver.span;
        let bound = |i: usize| Ident::new(&format!("__ad_arg{i}"), proc_macro2::Span::mixed_site());
        // With the receiver's span and hygiene, where rustc reports a
        // tracked one (a mixed-site name would move the error to the
        // attribute).
        let recv = Ident::new("__ad_recv", span);
        let probe = Ident::new("__ad_probe", span);
        let recv_value = self.arg(receiver);
        let bindings = args.iter().enumerate().map(|(i, arg)| {
            let name = bound(i);
            let value = self.arg(arg);
            quote!(let #name = #value;)
        });
        let shadows = (0..args.len()).map(|i| {
            let name = bound(i);
            quote!((&&__ad::Probe(&#name)).shadow())
        });
        let passed = args.iter().enumerate().map(|(i, arg)| {
            let name = bound(i);
            if self.touches(arg) {
                quote_spanned!(arg.span=> __ad::untracked(#name))
            } else {
                quote!(#name)
            }
        });
        let probe_call = quote_spanned!(method.span()=>
            (&&__ad::Probe(&#recv)).shadow().#method #turbofish(#(#shadows),*)
        );
        let checked = quote_spanned!(span=> __ad::untracked_for(#recv, #probe));
        // Unused imports and unreachable code are allowed on the whole
        // recording twin (`emit/tape.rs`).
        quote! {{
            use __ad::{ShadowSame as _, ShadowTracked as _};
            let #recv = #recv_value;
            #(#bindings)*
            let #probe = if false {
                ::core::option::Option::Some(#probe_call)
            } else {
                ::core::option::Option::None
            };
            #checked.#method #turbofish(#(#passed),*)
        }}
    }

    /// An operand of a cast or a plain method: must carry no gradient, or
    /// the build fails here with a message that says so.
    fn untracked(&self, expr: &Expr) -> TokenStream {
        if !self.touches(expr) {
            return expr.source.to_token_stream();
        }
        let span = expr.span;
        let value = self.arg(expr);
        quote_spanned!(span=> __ad::untracked(#value))
    }
}

/// Whether a pattern binds a name (and not only tests literals).
fn binds(pat: &syn::Pat) -> bool {
    use syn::Pat;
    match pat {
        Pat::Ident(_) => true,
        Pat::Or(or) => or.cases.iter().any(binds),
        Pat::Paren(paren) => binds(&paren.pat),
        Pat::Reference(reference) => binds(&reference.pat),
        Pat::Slice(slice) => slice.elems.iter().any(binds),
        Pat::Tuple(tuple) => tuple.elems.iter().any(binds),
        Pat::TupleStruct(tuple) => tuple.elems.iter().any(binds),
        Pat::Struct(strukt) => strukt.fields.iter().any(|field| binds(&field.pat)),
        Pat::Type(typed) => binds(&typed.pat),
        Pat::Guard(guarded) => binds(&guarded.pat),
        _ => false,
    }
}

/// Rewritten parentheses: most now hold one call, where real parentheses
/// would trip `unused_parens`; an invisible group keeps the precedence.
fn invisible(tokens: TokenStream) -> TokenStream {
    proc_macro2::Group::new(proc_macro2::Delimiter::None, tokens).into_token_stream()
}

/// The source text of a node, for the label of a constant it lifts.
fn source_text(source: Source) -> String {
    match source {
        Source::Expr(expr) => text::expr(expr),
        Source::Macro(mac) => text::tokens(mac.to_token_stream()),
    }
}

/// The outer attributes of an expression in statement position.
fn outer_attrs(expr: &syn::Expr) -> &[syn::Attribute] {
    use syn::Expr as E;
    match expr {
        E::Assign(e) => &e.attrs,
        E::Binary(e) => &e.attrs,
        E::Block(e) => &e.attrs,
        E::Call(e) => &e.attrs,
        E::ForLoop(e) => &e.attrs,
        E::If(e) => &e.attrs,
        E::Loop(e) => &e.attrs,
        E::Macro(e) => &e.attrs,
        E::Match(e) => &e.attrs,
        E::MethodCall(e) => &e.attrs,
        E::Paren(e) => &e.attrs,
        E::Return(e) => &e.attrs,
        E::Unsafe(e) => &e.attrs,
        E::While(e) => &e.attrs,
        _ => &[],
    }
}

/// `None`, `Kind::Empty`: a path whose last segment is in camel case names
/// a variant (`NEG_INFINITY`, a constant, is lifted like any number).
fn is_capitalised(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|segment| {
        let name = segment.ident.to_string();
        name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.contains(|c: char| c.is_ascii_lowercase())
    })
}

/// Whether `.method()` may follow the rewritten operand `expr` (as `arg`
/// writes it) unparenthesised: a path, or an operation written as a call
/// or a method chain. Decided from the syntax tree, not by reading the
/// tokens back, which would cost each level of a chain the chain below it.
fn postfix_safe(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Paren(inner) => postfix_safe(inner),
        ExprKind::Path(_)
        | ExprKind::Binary { .. }
        | ExprKind::Neg { .. }
        | ExprKind::Elementary { .. }
        | ExprKind::Powi { .. }
        | ExprKind::Ternary { .. }
        | ExprKind::Sum { .. } => true,
        _ => false,
    }
}

/// An initialiser that hands out items (`x.iter()`, `x.chunks(2)`): the
/// binding is an iterator, not a value to lift.
fn is_iterator(init: &Expr) -> bool {
    matches!(&init.kind, ExprKind::Structural { method, .. } if matches!(
        method.to_string().as_str(),
        "iter" | "into_iter" | "enumerate" | "zip" | "rev" | "skip" | "take" | "step_by"
            | "chunks" | "windows" | "copied" | "cloned"
    ))
}

/// `f64::max`, `f64::min`, `f64::add`...: a two-operand operation named as
/// a function value, by its runtime name.
fn f64_operation(expr: &Expr) -> Option<&'static str> {
    let ExprKind::Path(path) = &expr.kind else {
        return None;
    };
    let segments: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segments
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["f64", "max"] => Some("max"),
        ["f64", "min"] => Some("min"),
        ["f64", "powf"] => Some("powf"),
        ["f64", "hypot"] => Some("hypot"),
        _ => None,
    }
}

/// `tokens` with every `f64` replaced by `_`, for rustc to infer.
fn without_f64(tokens: TokenStream) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Ident(ident) if ident == "f64" => {
                TokenTree::Ident(Ident::new("_", ident.span())).into_token_stream()
            }
            TokenTree::Group(group) => {
                let mut inner = Group::new(group.delimiter(), without_f64(group.stream()));
                inner.set_span(group.span());
                TokenTree::Group(inner).into_token_stream()
            }
            other => other.into_token_stream(),
        })
        .collect()
}

/// A recording twin to call: a free function's, through its companion (a
/// value `__ad::call_twin` calls), or an associated function's sibling.
enum Twin {
    Free(TokenStream),
    Associated(TokenStream),
}

/// The recording twin a call `f(..)` of `arity` arguments names.
///
/// A free function's is its companion's `f::__tape` (`emit/companion.rs`),
/// looked up in `f`'s module (`use m::*` for `m::f`) inside a block whose
/// outer glob holds a stand-in `f`: a plain `f`, which has no companion,
/// resolves to the stand-in, whose bound fails with a message that says so
/// on the student's `f`. An associated function (`Self::f`, `Model::f`)
/// names its sibling `f_tape` directly.
fn recording_twin(func: &syn::Path, arity: usize) -> Twin {
    let (name, scope) = match super::Callee::of(func) {
        super::Callee::Associated(path) => {
            return Twin::Associated(super::sibling_path(&path, "tape"))
        }
        super::Callee::Free { name, scope } => (name, scope),
    };
    let method = Ident::new("__tape", name.span());
    Twin::Free(super::companion_lookup(
        &name,
        &scope,
        &method,
        stand_in(&name, arity),
    ))
}

/// What a call of the plain function `name` finds: a `name::__tape` whose
/// bound no type meets, so that rustc says `name` is not differentiable.
fn stand_in(name: &Ident, arity: usize) -> TokenStream {
    let message = format!("`{name}` is not #[differentiable], so it cannot take a tracked value");
    let label = format!("`{name}` is a plain function: its result would carry no gradient");
    let note = format!(
        "annotate `{name}` with #[differentiable] to record it on the tape, or pass it only plain values; an annotated `{name}` declared inside a function body is not found here: move it out of the body"
    );
    let params: Vec<Ident> = (0..arity).map(|i| format_ident!("A{i}")).collect();
    // On the student's `name`: rustc's notes point at the call.
    quote_spanned! {name.span()=>
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait Differentiable<A> {}
        // Implementations no call meets, so that rustc neither suggests
        // adding one nor names one.
        pub enum Never {}
        pub enum Never2 {}
        #[diagnostic::do_not_recommend]
        impl<T: ?Sized> Differentiable<Never> for T {}
        #[diagnostic::do_not_recommend]
        impl<T: ?Sized> Differentiable<Never2> for T {}
        pub struct #name {}
        impl #name {
            pub fn __tape<'t, #(#params),*>(
                _: &'t ::autodiff::Tape,
                #(_: #params),*
            ) -> ::core::result::Result<::autodiff::Scalar<'t>, ::autodiff::ScalarAutodiffError>
            where
                #name: Differentiable<(#(#params,)*)>,
            {
                ::core::unreachable!()
            }
        }
    }
}
