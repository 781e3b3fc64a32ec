//! Emits the items: the plain twin `f`, the recording twin `f_tape`, the
//! gradient `f_grad` (and `f_grad_on`, on a kept tape), and the checks
//! `f_check` and `f_check_with`.
//!
//! The recording twin is the body with every operation that a tracked value
//! reaches replaced by one call into `__ad` (`::autodiff::__private`), in
//! evaluation order, each operand occurrence one argument and each call
//! carrying its label: under `cargo expand` it reads as the tape it records.
//! Which implementation runs (a recorded node or plain arithmetic) is left to
//! rustc's trait dispatch on the operand types.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Ident, ItemFn};

use crate::ast::{Block, Expr, ExprKind, Function, Kind, Label, Param, Stmt};
use crate::attr;
use crate::ctxt::Ctxt;
use crate::fallback;
use crate::flow::{self, Flow};
use crate::valid;

/// The whole expansion: read, check, then emit, or on any mistake the
/// errors and the function unchanged.
pub fn differentiable(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let first = input.clone().into_iter().next();
            let span = first.map_or_else(Span::call_site, |token| token.span());
            let error = syn::Error::new(
                span,
                "#[differentiable] goes on a free function: `fn f(x: f64) -> f64 { ... }`",
            )
            .to_compile_error();
            return quote!(#error #input);
        }
    };
    let cx = Ctxt::default();
    attr::check_args(&cx, &args);
    valid::check_signature(&cx, &item);
    let function = Function::from_syn(&cx, item);
    valid::check_params(&cx, &function);
    match cx.check() {
        Some(error) => fallback::expand(&function.original, &error),
        None => emit(&function),
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

fn emit(function: &Function) -> TokenStream {
    let twin = &function.original;
    let sig = &twin.sig;
    let name = &sig.ident;
    let vis = &twin.vis;
    // Attributes other than docs (`#[inline]`, `#[allow(..)]`, ...) apply to
    // every generated item; the docs stay on the twin.
    let attrs: Vec<_> = twin
        .attrs
        .iter()
        .filter(|attr| !attr.path().is_ident("doc"))
        .collect();
    let tape_fn = format_ident!("{}_tape", name);
    let grad_fn = format_ident!("{}_grad", name);
    let grad_on_fn = format_ident!("{}_grad_on", name);
    let check_fn = format_ident!("{}_check", name);
    let check_with_fn = format_ident!("{}_check_with", name);
    let tape = Ident::new("tape", Span::mixed_site());
    let lifetimes = &sig.generics.params;
    let generics = if lifetimes.is_empty() {
        quote!()
    } else {
        quote!(<#lifetimes>)
    };
    let tape_generics = quote!(<'tape, #lifetimes>);

    let flow = Flow::analyse(function);
    let emitter = Emitter {
        flow: &flow,
        tape: tape.clone(),
    };

    // The recording twin.
    let rebound = |param: &&Param| {
        !param.kind.is_differentiable()
            && param.mutability.is_some()
            && flow.is_tracked(&param.ident.to_string())
    };
    let tape_params = function.params.iter().map(|param| {
        let ident = &param.ident;
        // A rebound parameter is made `mut` by its rebinding instead.
        let mutability = if rebound(&param) {
            None
        } else {
            param.mutability
        };
        let ty = match &param.kind {
            Kind::PassThrough => param.ty.to_token_stream(),
            kind => tape_type(kind),
        };
        quote!(#mutability #ident: #ty)
    });
    // A `mut` pass-through parameter that later holds a tracked value.
    let rebinds = function.params.iter().filter(rebound);
    let rebinds = rebinds.map(|param| {
        let ident = &param.ident;
        let at = label(&Label {
            text: ident.to_string(),
            line: param.line,
        });
        quote!(let mut #ident = __ad::lift(#tape, #ident, #at)?;)
    });
    // A slice parameter arrives as a `Slice` (borrowed or owned); the body
    // reads it as the slice it was written for.
    let slices = function
        .params
        .iter()
        .filter(|param| matches!(param.kind, Kind::Slice(_)));
    let slices = slices.map(|param| {
        let ident = &param.ident;
        quote!(let #ident = &*#ident;)
    });
    let body = emitter.body(&function.body);
    let tape_doc = format!(
        " Records [`{name}`] on `tape`: one node per operation on tracked values, each labelled with its binding name or source text and line."
    );

    // The gradient.
    let differentiable: Vec<&Param> = function
        .params
        .iter()
        .filter(|param| param.kind.is_differentiable())
        .collect();
    let user_params = function.params.iter().map(|param| {
        let ident = &param.ident;
        let ty = &param.ty;
        quote!(#ident: #ty)
    });
    let user_params: Vec<_> = user_params.collect();
    let variables = differentiable.iter().map(|param| {
        let ident = &param.ident;
        let var = variable_ident(ident);
        let at = label(&Label {
            text: ident.to_string(),
            line: param.line,
        });
        quote!(let #var = __ad::variables(#tape, &#ident, #at)?;)
    });
    let tape_args = function.params.iter().map(|param| {
        let ident = &param.ident;
        let var = variable_ident(ident);
        match &param.kind {
            Kind::PassThrough => quote!(#ident),
            Kind::Slice(_) => quote!(__ad::slice(&#var)),
            Kind::Vec(_) | Kind::Struct { by_ref: false, .. } => quote!(__ad::dup(&#var)),
            // A model on the tape is not `Copy`; the gradient reads it after.
            Kind::Array(elem, _) if holds_struct(elem) => quote!(__ad::dup(&#var)),
            Kind::Struct { by_ref: true, .. } => quote!(&#var),
            Kind::Scalar | Kind::Array(..) => quote!(#var),
        }
    });
    let gradients: Vec<_> = differentiable
        .iter()
        .map(|param| {
            let ident = &param.ident;
            let var = variable_ident(ident);
            quote!(__ad::gradient(&#ident, &#var))
        })
        .collect();
    let (gradient_type, gradient_value) = if let [single] = differentiable.as_slice() {
        (gradient_type(&single.kind), gradients[0].clone())
    } else {
        let types = differentiable
            .iter()
            .map(|param| gradient_type(&param.kind));
        (quote!((#(#types,)*)), quote!((#(#gradients,)*)))
    };
    let output = Ident::new("output", Span::mixed_site());
    let grad_on_doc = format!(
        " [`{grad_fn}`] on a tape the caller keeps: the tape is cleared first, so a training loop that calls this every step reuses the tape's memory instead of allocating a new tape."
    );
    let grad_doc = format!(
        " The value of [`{name}`] and its exact gradient with respect to every differentiable parameter, by one reverse pass over [`{tape_fn}`]. Records on a tape this thread keeps between calls, so calling it in a loop reuses memory."
    );

    // The checks.
    let step = Ident::new("step", Span::mixed_site());
    let tolerance = Ident::new("tolerance", Span::mixed_site());
    let inputs = Ident::new("inputs", Span::mixed_site());
    let analytic = Ident::new("analytic", Span::mixed_site());
    let reverse = Ident::new("reverse", Span::mixed_site());
    let point = Ident::new("point", Span::mixed_site());
    let rest = Ident::new("rest", Span::mixed_site());
    let arg_names: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
    let dup_args = function.params.iter().map(|param| {
        let ident = &param.ident;
        quote!(__ad::dup(&#ident))
    });
    let components = differentiable.iter().map(|param| {
        let ident = &param.ident;
        quote!(__ad::components(&#ident, &mut #inputs);)
    });
    let analytic_components = differentiable.iter().enumerate().map(|(i, param)| {
        let ident = &param.ident;
        let field = if differentiable.len() == 1 {
            quote!()
        } else {
            let index = syn::Index::from(i);
            quote!(.#index)
        };
        quote!(__ad::gradient_components(&#ident, &#reverse.gradient #field, &mut #analytic);)
    });
    let rebuilds = differentiable.iter().map(|param| {
        let ident = &param.ident;
        quote!(let #ident = __ad::rebuild(&#ident, &mut #rest);)
    });
    let twin_args = function.params.iter().map(|param| {
        let ident = &param.ident;
        match &param.kind {
            Kind::Slice(_) | Kind::Struct { by_ref: true, .. } => quote!(&#ident),
            Kind::PassThrough => quote!(__ad::dup(&#ident)),
            _ => quote!(#ident),
        }
    });
    let check_doc = format!(
        " Checks [`{grad_fn}`] against central differences of [`{name}`] in every component, with the default step and tolerance."
    );
    let check_with_doc = format!(
        " Checks [`{grad_fn}`] against central differences of [`{name}`] in every component; `step: None` uses `default_step` of each input."
    );

    quote! {
        // The twin is used by `_check_with`; a caller that only wants the
        // gradient should not be told that the function it wrote is unused.
        #[allow(dead_code)]
        #twin

        #[doc = #tape_doc]
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #tape_fn #tape_generics(
            #tape: &'tape ::autodiff::Tape,
            #(#tape_params),*
        ) -> ::core::result::Result<::autodiff::Scalar<'tape>, ::autodiff::ScalarAutodiffError> {
            use ::autodiff::__private as __ad;
            #(#slices)*
            #(#rebinds)*
            #body
        }

        #[doc = #grad_doc]
        #(#attrs)*
        #vis fn #grad_fn #generics(
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::ValueAndGradient<#gradient_type>, ::autodiff::ScalarAutodiffError> {
            ::autodiff::__private::on_scratch_tape(move |#tape| #grad_on_fn(#tape, #(#arg_names),*))
        }

        #[doc = #grad_on_doc]
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #grad_on_fn #generics(
            #tape: &mut ::autodiff::Tape,
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::ValueAndGradient<#gradient_type>, ::autodiff::ScalarAutodiffError> {
            use ::autodiff::__private as __ad;
            #tape.clear();
            let #tape = &*#tape;
            #(#variables)*
            let #output = #tape_fn(#tape, #(#tape_args),*)?;
            __ad::backward(#output)?;
            ::core::result::Result::Ok(::autodiff::ValueAndGradient {
                value: #output.value(),
                gradient: #gradient_value,
            })
        }

        #[doc = #check_doc]
        #(#attrs)*
        #vis fn #check_fn #generics(
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
            #check_with_fn(::core::option::Option::None, ::autodiff::DEFAULT_TOLERANCE, #(#arg_names),*)
        }

        #[doc = #check_with_doc]
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #check_with_fn #generics(
            #step: ::core::option::Option<f64>,
            #tolerance: f64,
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::GradientCheck, ::autodiff::GradientCheckError> {
            use ::autodiff::__private as __ad;
            let mut #inputs = ::std::vec::Vec::new();
            #(#components)*
            let #reverse = #grad_fn(#(#dup_args),*)?;
            let mut #analytic = ::std::vec::Vec::new();
            #(#analytic_components)*
            __ad::gradient_check(&#inputs, &#analytic, #step, #tolerance, |#point| {
                let mut #rest = #point;
                #(#rebuilds)*
                #name(#(#twin_args),*)
            })
        }
    }
}

fn variable_ident(ident: &Ident) -> Ident {
    Ident::new(&format!("{ident}_var"), Span::mixed_site())
}

/// Whether a parameter's shape has a model in it.
fn holds_struct(kind: &Kind) -> bool {
    match kind {
        Kind::Struct { .. } => true,
        Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => holds_struct(elem),
        Kind::Scalar | Kind::PassThrough => false,
    }
}

/// A differentiable parameter's type on the tape.
fn tape_type(kind: &Kind) -> TokenStream {
    match kind {
        Kind::Scalar => quote!(::autodiff::Scalar<'tape>),
        Kind::Array(elem, len) => {
            let elem = tape_type(elem);
            quote!([#elem; #len])
        }
        Kind::Slice(elem) => {
            let elem = tape_type(elem);
            quote!(::std::borrow::Cow<'_, [#elem]>)
        }
        Kind::Vec(elem) => {
            let elem = tape_type(elem);
            quote!(::std::vec::Vec<#elem>)
        }
        Kind::Struct { by_ref, ty } => {
            let reference = by_ref.then(|| quote!(&));
            quote_spanned!(ty.span()=> #reference <#ty as ::autodiff::__private::Parameter>::Variables<'tape>)
        }
        Kind::PassThrough => quote!(()),
    }
}

/// The gradient's type: shaped like the parameter, slices as `Vec`.
fn gradient_type(kind: &Kind) -> TokenStream {
    match kind {
        Kind::Scalar => quote!(f64),
        Kind::Array(elem, len) => {
            let elem = gradient_type(elem);
            quote!([#elem; #len])
        }
        Kind::Slice(elem) | Kind::Vec(elem) => {
            let elem = gradient_type(elem);
            quote!(::std::vec::Vec<#elem>)
        }
        Kind::Struct { ty, .. } => {
            quote_spanned!(ty.span()=> <#ty as ::autodiff::__private::Parameter>::Gradient)
        }
        Kind::PassThrough => quote!(()),
    }
}

fn label(label: &Label) -> TokenStream {
    let text = &label.text;
    let line = proc_macro2::Literal::u32_unsuffixed(label.line);
    quote!(__ad::at(#text, #line))
}

struct Emitter<'a> {
    flow: &'a Flow,
    tape: Ident,
}

impl Emitter<'_> {
    /// The function body: statements, then the value as a `Scalar`.
    fn body(&self, block: &Block) -> TokenStream {
        let (stmts, tail) = split_tail(block);
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
                let value = self.expr(expr, Mode::Lift);
                quote!(::core::result::Result::Ok(#value))
            }
            ExprKind::Paren(inner) => self.output(inner),
            _ => {
                let (tape, span) = (&self.tape, expr.span);
                let value = self.arg(expr);
                quote_spanned!(span=> __ad::output(#tape, #value))
            }
        }
    }

    fn block(&self, block: &Block, mode: Mode) -> TokenStream {
        let (stmts, tail) = split_tail(block);
        let stmts = stmts.iter().map(|stmt| self.stmt(stmt));
        let tail = tail.map(|tail| self.expr(tail, mode));
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
            } => {
                let tracked = name
                    .as_ref()
                    .is_some_and(|name| self.flow.is_tracked(&name.to_string()));
                let pat = if tracked { untyped } else { pat };
                match init {
                    None => quote!(let #pat;),
                    Some(init) => {
                        let mode = if tracked && *mutable && !init.is_empty_vec() {
                            Mode::Lift
                        } else {
                            Mode::Value
                        };
                        let init = self.expr(init, mode);
                        quote!(let #pat = #init;)
                    }
                }
            }
            Stmt::Item(item) => item.to_token_stream(),
            Stmt::Expr(expr, semi) => {
                let expr = self.expr(expr, Mode::Stmt);
                quote!(#expr #semi)
            }
        }
    }

    fn touches(&self, expr: &Expr) -> bool {
        self.flow.touches(&expr.syntax)
    }

    fn expr(&self, expr: &Expr, mode: Mode) -> TokenStream {
        if mode == Mode::Lift {
            return self.lifted(expr);
        }
        if !self.touches(expr) {
            return expr.syntax.to_token_stream();
        }
        let tape = &self.tape;
        let value = |e: &Expr| self.expr(e, Mode::Value);
        let arg = |e: &Expr| self.arg(e);
        let span = expr.span;
        match &expr.kind {
            ExprKind::Lit(_) | ExprKind::NegLit(_) | ExprKind::Path(_) => {
                expr.syntax.to_token_stream()
            }
            ExprKind::Continue(loop_label) => quote!(continue #loop_label),
            ExprKind::Binary {
                op,
                lhs,
                rhs,
                label: at,
            } => {
                let func = Ident::new(op.name(), span);
                let (lhs, rhs, at) = (arg(lhs), arg(rhs), label(at));
                quote_spanned!(span=> __ad::#func(#lhs, #rhs, #at)?)
            }
            ExprKind::Neg { operand, label: at } => {
                let (operand, at) = (arg(operand), label(at));
                quote_spanned!(span=> __ad::neg(#operand, #at)?)
            }
            ExprKind::Elementary {
                func,
                operand,
                label: at,
            } => {
                let func = Ident::new(func, span);
                let (operand, at) = (arg(operand), label(at));
                quote_spanned!(span=> __ad::#func(#operand, #at)?)
            }
            ExprKind::Powi {
                base,
                exponent,
                label: at,
            } => {
                let (base, exponent, at) = (arg(base), arg(exponent), label(at));
                quote_spanned!(span=> __ad::powi(#base, #exponent, #at)?)
            }
            ExprKind::Sum { items, label: at } => {
                let (items, at) = (arg(items), label(at));
                quote_spanned!(span=> __ad::sum(#tape, #items, #at)?)
            }
            ExprKind::Compare { op, lhs, rhs } => {
                let (lhs, rhs) = (self.primal(lhs), self.primal(rhs));
                quote!(#lhs #op #rhs)
            }
            ExprKind::Logic { op, lhs, rhs } => {
                let (lhs, rhs) = (value(lhs), value(rhs));
                quote!(#lhs #op #rhs)
            }
            ExprKind::Prefix { op, operand } => {
                let operand = value(operand);
                quote!(#op #operand)
            }
            ExprKind::Call { func, args } => {
                let mut path = func.clone();
                if let Some(last) = path.segments.last_mut() {
                    last.ident = format_ident!("{}_tape", last.ident, span = last.ident.span());
                }
                let args = args.iter().map(|arg| {
                    let span = arg.span;
                    let certain = self.flow.is_certainly_tracked(arg);
                    let arg = self.arg(arg);
                    if certain {
                        // Already what the callee records: passed as is.
                        arg
                    } else {
                        quote_spanned!(span=> __ad::arg(#tape, #arg)?)
                    }
                });
                quote!(#path(#tape, #(#args),*)?)
            }
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
                let receiver = value(receiver);
                let args = args.iter().map(|arg| {
                    if method == "push" && tracked_receiver {
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
                turbofish,
                args,
                reads_primal,
            } => {
                let receiver = if *reads_primal {
                    self.primal(receiver)
                } else {
                    self.untracked(receiver)
                };
                let args = args.iter().map(|arg| self.untracked(arg));
                quote!(#receiver.#method #turbofish(#(#args),*))
            }
            ExprKind::Cast { expr: inner, ty } => {
                let inner = self.untracked(inner);
                quote!(#inner as #ty)
            }
            ExprKind::Index { base, index } => {
                let (base, index) = (value(base), value(index));
                quote!(#base[#index])
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
            ExprKind::Paren(inner) => invisible(self.expr(inner, mode)),
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
            ExprKind::Range { start, limits, end } => {
                let start = start.as_deref().map(value);
                let end = end.as_deref().map(value);
                quote!(#start #limits #end)
            }
            ExprKind::Block(block_label, block) => {
                let block = self.block(block, self.branch_mode(expr, mode));
                quote!(#block_label #block)
            }
            ExprKind::If { .. } => self.if_(expr, self.branch_mode(expr, mode)),
            ExprKind::Let { pat, expr: inner } => {
                let inner = value(inner);
                quote!(let #pat = #inner)
            }
            ExprKind::Match { scrutinee, arms } => {
                let arm_mode = self.branch_mode(expr, mode);
                let scrutinee = self.scrutinee(scrutinee, arms);
                let arms = arms.iter().map(|arm| {
                    let pat = &arm.pat;
                    let guard = arm.guard.as_ref().map(|guard| {
                        let guard = value(guard);
                        quote!(if #guard)
                    });
                    let body = self.expr(&arm.body, arm_mode);
                    quote!(#pat #guard => #body,)
                });
                quote!(match #scrutinee { #(#arms)* })
            }
            ExprKind::For {
                label: loop_label,
                pat,
                iter,
                body,
            } => {
                let (iter, body) = (value(iter), self.block(body, Mode::Stmt));
                quote!(#loop_label for #pat in #iter #body)
            }
            ExprKind::While {
                label: loop_label,
                cond,
                body,
            } => {
                let (cond, body) = (value(cond), self.block(body, Mode::Stmt));
                quote!(#loop_label while #cond #body)
            }
            ExprKind::Loop { label, body } => self.loop_(label.as_ref(), body),
            ExprKind::Break { label, value } => self.break_(label.as_ref(), value.as_deref()),
            ExprKind::Return(result) => self.return_(result.as_deref()),
            ExprKind::Assign {
                target,
                value: result,
            } => {
                let tracked = flow::root(target).is_some_and(|root| self.flow.is_tracked(&root));
                let target = value(target);
                let result = self.expr(result, if tracked { Mode::Lift } else { Mode::Value });
                quote!(#target = #result)
            }
            ExprKind::CompoundAssign {
                op,
                target,
                value: operand,
                label: at,
            } => {
                let func = Ident::new(op.name(), span);
                let (target, operand, at) = (value(target), arg(operand), label(at));
                quote_spanned!(span=> #target = __ad::#func(#target, #operand, #at)?)
            }
            ExprKind::Invalid => expr.syntax.to_token_stream(),
        }
    }

    /// Lifts a value where Rust needs one type: pushed into the arms of a
    /// branch (their types must agree before anything can be lifted), left
    /// alone for integer literals (whose type rustc infers from later use)
    /// and for `return`/`break`.
    fn lifted(&self, expr: &Expr) -> TokenStream {
        match &expr.kind {
            ExprKind::If { .. } => self.if_(expr, Mode::Lift),
            ExprKind::Match { .. } | ExprKind::Block(..) | ExprKind::Paren(_) => {
                // Evaluated with branch tails lifted.
                self.expr_forced(expr, Mode::Lift)
            }
            ExprKind::Loop { .. } => self.expr_forced(expr, Mode::Value),
            _ if expr.diverges() => self.expr_forced(expr, Mode::Value),
            _ if expr.is_int_literal() => expr.syntax.to_token_stream(),
            _ if self.flow.is_certainly_tracked(expr) => self.expr(expr, Mode::Value),
            _ => {
                let tape = &self.tape;
                let span = expr.span;
                let inner = self.arg(expr);
                let at = label(&Label {
                    text: expr
                        .binding
                        .clone()
                        .unwrap_or_else(|| crate::text::expr(&expr.syntax)),
                    line: crate::text::line(span),
                });
                quote_spanned!(span=> __ad::lift(#tape, #inner, #at)?)
            }
        }
    }

    /// `expr` rewritten in `mode` even where no tracked value reaches it:
    /// lifting must reach the branch tails of plain code too.
    fn expr_forced(&self, expr: &Expr, mode: Mode) -> TokenStream {
        match &expr.kind {
            ExprKind::Match { scrutinee, arms } => {
                let scrutinee = self.scrutinee(scrutinee, arms);
                let arms = arms.iter().map(|arm| {
                    let pat = &arm.pat;
                    let guard = arm.guard.as_ref().map(|guard| {
                        let guard = self.expr(guard, Mode::Value);
                        quote!(if #guard)
                    });
                    let body = self.expr(&arm.body, mode);
                    quote!(#pat #guard => #body,)
                });
                quote!(match #scrutinee { #(#arms)* })
            }
            ExprKind::Block(block_label, block) => {
                let block = self.block(block, mode);
                quote!(#block_label #block)
            }
            ExprKind::Paren(inner) => invisible(self.expr(inner, mode)),
            ExprKind::Loop { label, body } => self.loop_(label.as_ref(), body),
            ExprKind::Return(result) => self.return_(result.as_deref()),
            ExprKind::Break { label, value } => self.break_(label.as_ref(), value.as_deref()),
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

    fn if_(&self, expr: &Expr, mode: Mode) -> TokenStream {
        let ExprKind::If {
            cond,
            then_branch,
            else_branch,
        } = &expr.kind
        else {
            return self.expr(expr, mode);
        };
        let cond = self.expr(cond, Mode::Value);
        let then_branch = self.block(then_branch, mode);
        let else_branch = else_branch.as_deref().map(|else_branch| {
            let else_branch = match &else_branch.kind {
                ExprKind::If { .. } => self.if_(else_branch, mode),
                _ => self.expr_forced(else_branch, mode),
            };
            quote!(else #else_branch)
        });
        quote!(if #cond #then_branch #else_branch)
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
            split_tail(block)
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
    fn scrutinee(&self, scrutinee: &Expr, arms: &[crate::ast::Arm]) -> TokenStream {
        if arms.iter().any(|arm| binds(&arm.pat)) {
            self.expr(scrutinee, Mode::Value)
        } else {
            self.primal(scrutinee)
        }
    }

    /// A comparison operand: a tracked value's primal.
    fn primal(&self, expr: &Expr) -> TokenStream {
        if !self.touches(expr) {
            return expr.syntax.to_token_stream();
        }
        let span = expr.span;
        let value = self.arg(expr);
        quote_spanned!(span=> __ad::primal(#value))
    }

    /// An operand of a cast or a plain method: must carry no gradient, or
    /// the build fails here with a message that says so.
    fn untracked(&self, expr: &Expr) -> TokenStream {
        if !self.touches(expr) {
            return expr.syntax.to_token_stream();
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

/// A block's statements and its tail expression (the last statement when
/// it has no semicolon).
fn split_tail(block: &Block) -> (&[Stmt], Option<&Expr>) {
    match block.stmts.split_last() {
        Some((Stmt::Expr(tail, None), stmts)) => (stmts, Some(tail)),
        _ => (&block.stmts, None),
    }
}

// The path is spelled out so that a test that compiles these modules from
// elsewhere (`#[path]`) still finds the snapshots.
#[cfg(test)]
#[path = "expand/tests.rs"]
mod tests;
