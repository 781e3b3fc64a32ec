//! Reads the annotated function into the model (`ast`): parameters by the
//! shape they have on the tape, the body as a tree of operations, control
//! flow and plain Rust, each node with its label.
//!
//! Reading never stops at a mistake: an unsupported construct becomes an
//! `Invalid` node and a [`Rejection`] on the user's token, and reading goes
//! on, so that `valid` reports every mistake in the same build.

use std::cell::{Cell, OnceCell, RefCell};

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, Token, Type};

use crate::ast::{
    Arith, Arm, Block, Expr, ExprKind, Function, Kind, Label, Param, Pattern, Reason, Rejection,
    Source, Stmt,
};
use crate::attr;
use crate::text::{self, mentions};
use crate::vocabulary::{self, Shape};

/// Reads `item`; `macros` keeps the parsed bodies of its `vec!` macros,
/// which the model borrows like the rest of the syntax.
pub fn function<'a>(item: &'a ItemFn, macros: &'a MacroBodies) -> Function<'a> {
    let lower = Lower {
        macros,
        rejected: RefCell::new(Vec::new()),
        next_id: Cell::new(0),
        closures: RefCell::new(Vec::new()),
        texts: text::Memo::default(),
    };
    let params = lower.params(item);
    let body = lower.block(&item.block);
    Function {
        item,
        params,
        body,
        rejected: lower.rejected.into_inner(),
        exprs: lower.next_id.get(),
    }
}

/// The parsed bodies of `vec![...]` macros: a proc macro sees a macro's
/// body as tokens, so lowering parses it, and the model borrows the result
/// for as long as it borrows the function. A chain of cells that are each
/// written once, so that a new body never moves one already lent out.
#[derive(Default)]
pub struct MacroBodies {
    body: OnceCell<VecBody>,
    next: OnceCell<Box<MacroBodies>>,
}

enum VecBody {
    /// `vec![elem; len]`.
    Repeat(Box<syn::Expr>, Box<syn::Expr>),
    /// `vec![a, b, c]`.
    List(Punctuated<syn::Expr, Token![,]>),
    /// `dbg!(e)`.
    One(Box<syn::Expr>),
}

struct Lower<'a> {
    macros: &'a MacroBodies,
    rejected: RefCell<Vec<Rejection>>,
    next_id: Cell<usize>,
    /// The names `let` binds to closures so far: calling one is calling
    /// the closure, not an annotated function's `_tape` twin.
    closures: RefCell<Vec<String>>,
    /// Labels' texts and first spans, each node's reused by its parent.
    texts: text::Memo,
}

impl<'a> Lower<'a> {
    fn reject(&self, at: impl ToTokens, reason: Reason) {
        self.rejected.borrow_mut().push(Rejection {
            at: at.into_token_stream(),
            reason,
        });
    }

    /// The first free cell of the chain, written with `body`.
    fn keep(&self, body: VecBody) -> &'a VecBody {
        let mut cell = self.macros;
        while cell.body.get().is_some() {
            cell = cell.next.get_or_init(Box::default);
        }
        let _ = cell.body.set(body);
        cell.body.get().expect("the cell was just written")
    }

    fn params(&self, item: &'a ItemFn) -> Vec<Param> {
        // Type parameters are reported once, by `valid`, not again at
        // every parameter that uses them.
        let type_params: Vec<String> = item
            .sig
            .generics
            .type_params()
            .map(|param| param.ident.to_string())
            .collect();
        let mut params = Vec::new();
        for input in &item.sig.inputs {
            let FnArg::Typed(typed) = input else {
                // Receivers are reported by `valid`.
                continue;
            };
            let mut constant = false;
            for marker in typed.attrs.iter().filter(|attr| attr::is_constant(attr)) {
                if !matches!(marker.meta, syn::Meta::Path(_)) {
                    self.reject(marker, Reason::ConstantArguments);
                }
                constant = true;
            }
            // `_: f64` is named for the generated items, which pass it on;
            // the plain twin keeps the `_`, so the body cannot see the name.
            let unnamed;
            let pat = match &*typed.pat {
                Pat::Ident(pat) => pat,
                Pat::Wild(wild) => {
                    unnamed = syn::PatIdent {
                        attrs: Vec::new(),
                        by_ref: None,
                        mutability: None,
                        ident: syn::Ident::new(
                            &format!("__unnamed{}", params.len()),
                            wild.underscore_token.span,
                        ),
                        subpat: None,
                    };
                    &unnamed
                }
                _ => {
                    self.reject(&typed.pat, Reason::ParamPattern);
                    continue;
                }
            };
            if pat.by_ref.is_some() || pat.subpat.is_some() {
                self.reject(&typed.pat, Reason::ParamBinding);
                continue;
            }
            let kind = if constant {
                Kind::PassThrough
            } else {
                match classify_param(&typed.ty) {
                    Some(kind) => kind,
                    None => {
                        let tokens = typed.ty.to_token_stream();
                        if !type_params
                            .iter()
                            .any(|name| mentions(tokens.clone(), name))
                        {
                            self.parameter_type(&typed.ty);
                        }
                        // Counted as differentiable so that the mistake is
                        // reported once, not again as "no f64 parameter".
                        Kind::Scalar
                    }
                }
            };
            params.push(Param {
                ident: pat.ident.clone(),
                mutability: pat.mutability,
                ty: (*typed.ty).clone(),
                kind,
                line: text::line(pat.ident.span()),
            });
        }
        params
    }

    fn parameter_type(&self, ty: &Type) {
        let tokens = ty.to_token_stream();
        if mentions(tokens.clone(), "f32") {
            self.reject(ty, Reason::F32);
        } else {
            self.reject(ty, Reason::ParamType(text::tokens(tokens)));
        }
    }

    fn block(&self, block: &'a syn::Block) -> Block<'a> {
        Block {
            stmts: block
                .stmts
                .iter()
                .filter_map(|stmt| self.stmt(stmt))
                .collect(),
        }
    }

    fn stmt(&self, stmt: &'a syn::Stmt) -> Option<Stmt<'a>> {
        match stmt {
            syn::Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    if let Some((else_token, _)) = &init.diverge {
                        self.reject(else_token, Reason::LetElse);
                    }
                }
                let (untyped, name, mutable) = self.let_pattern(&local.pat);
                if let (Some(name), Some(init)) = (&name, &local.init) {
                    if matches!(&*init.expr, syn::Expr::Closure(_)) {
                        self.closures.borrow_mut().push(name.clone());
                    }
                }
                let init = local
                    .init
                    .as_ref()
                    .map(|init| self.expr(&init.expr, name.as_deref()));
                Some(Stmt::Let {
                    pat: pattern(&local.pat),
                    untyped,
                    name,
                    mutable,
                    init,
                    attrs: &local.attrs,
                })
            }
            syn::Stmt::Item(item) => {
                match item {
                    syn::Item::Const(constant) => {
                        if mentions(constant.ty.to_token_stream(), "f32") {
                            self.reject(&constant.ty, Reason::F32);
                        }
                    }
                    syn::Item::Use(_) => {}
                    other => self.reject(other, Reason::Item),
                }
                Some(Stmt::Item(item))
            }
            // A stray `;` is an empty statement.
            syn::Stmt::Expr(syn::Expr::Verbatim(tokens), _) if tokens.is_empty() => None,
            syn::Stmt::Expr(expr, semi) => Some(Stmt::Expr(self.expr(expr, None), *semi)),
            syn::Stmt::Macro(mac) => {
                let kind = self.mac(&mac.mac);
                let expr = self.node(Source::Macro(&mac.mac), mac.mac.path.span(), None, kind);
                Some(Stmt::Expr(expr, mac.semi_token))
            }
        }
    }

    /// The pattern with `f64` annotations dropped, the binding name that
    /// labels the initialiser's node, and whether the binding is `mut`.
    fn let_pattern(&self, pat: &'a Pat) -> (&'a Pat, Option<String>, bool) {
        match pat {
            Pat::Type(typed) => {
                let (inner, name, mutable) = self.let_pattern(&typed.pat);
                let ty = typed.ty.to_token_stream();
                if mentions(ty.clone(), "f32") {
                    self.reject(&typed.ty, Reason::F32);
                }
                if mentions(ty, "f64") {
                    // On the tape the value is a `Scalar`: let rustc infer it.
                    (inner, name, mutable)
                } else {
                    (pat, name, mutable)
                }
            }
            Pat::Ident(ident) => (
                pat,
                Some(ident.ident.to_string()),
                ident.mutability.is_some(),
            ),
            _ => (pat, None, false),
        }
    }

    fn label(&self, name: Option<&str>, expr: &'a syn::Expr) -> Label {
        Label {
            text: name.map_or_else(|| self.texts.expr(expr), str::to_owned),
            line: text::line(self.texts.first_span(expr)),
        }
    }

    fn boxed(&self, expr: &'a syn::Expr) -> Box<Expr<'a>> {
        Box::new(self.expr(expr, None))
    }

    fn exprs(&self, exprs: impl IntoIterator<Item = &'a syn::Expr>) -> Vec<Expr<'a>> {
        exprs
            .into_iter()
            .map(|expr| self.expr(expr, None))
            .collect()
    }

    /// A node with the next id. Ids are taken after the children's, so
    /// that they follow a post-order walk of the body.
    fn node(
        &self,
        source: Source<'a>,
        span: proc_macro2::Span,
        binding: Option<&str>,
        kind: ExprKind<'a>,
    ) -> Expr<'a> {
        let id = self.next_id.get();
        self.next_id.set(id + 1);
        Expr {
            id,
            span,
            source,
            binding: binding.map(str::to_owned),
            kind,
        }
    }

    /// Reads one expression; `name` is the binding that receives its value.
    fn expr(&self, expr: &'a syn::Expr, name: Option<&str>) -> Expr<'a> {
        let kind = self.kind(expr, name);
        self.node(Source::Expr(expr), self.texts.first_span(expr), name, kind)
    }

    fn kind(&self, expr: &'a syn::Expr, name: Option<&str>) -> ExprKind<'a> {
        use syn::Expr as E;
        match expr {
            E::Lit(lit) => {
                if let syn::Lit::Float(float) = &lit.lit {
                    if float.suffix() == "f32" {
                        self.reject(lit, Reason::F32);
                    }
                }
                ExprKind::Lit(&lit.lit)
            }
            E::Path(path) => {
                if path.path.is_ident("f32") {
                    self.reject(path, Reason::F32);
                }
                ExprKind::Path(path)
            }
            E::Paren(paren) => ExprKind::Paren(Box::new(self.expr(&paren.expr, name))),
            E::Group(group) => self.kind(&group.expr, name),
            E::Binary(binary) => self.binary(expr, binary, name),
            E::Unary(unary) => match unary.op {
                syn::UnOp::Neg(_) if matches!(&*unary.expr, E::Lit(_)) => ExprKind::NegLit(unary),
                syn::UnOp::Neg(_) => ExprKind::Neg {
                    operand: self.boxed(&unary.expr),
                    label: self.label(name, expr),
                },
                op => ExprKind::Prefix {
                    op,
                    operand: self.boxed(&unary.expr),
                },
            },
            E::MethodCall(call) => self.method(expr, call, name),
            E::Call(call) => self.call(expr, call, name),
            E::Macro(mac) => self.mac(&mac.mac),
            E::Cast(cast) => {
                if mentions(cast.ty.to_token_stream(), "f32") {
                    self.reject(&cast.ty, Reason::F32);
                }
                ExprKind::Cast {
                    expr: self.boxed(&cast.expr),
                    ty: &cast.ty,
                }
            }
            E::Index(index) => ExprKind::Index {
                base: self.boxed(&index.expr),
                index: self.boxed(&index.index),
            },
            E::Field(field) => ExprKind::Field {
                base: self.boxed(&field.base),
                member: &field.member,
            },
            E::Reference(reference) => ExprKind::Reference {
                mutability: reference.mutability,
                expr: self.boxed(&reference.expr),
            },
            E::Tuple(tuple) => ExprKind::Tuple(self.exprs(&tuple.elems)),
            E::Array(array) => ExprKind::Array(self.exprs(&array.elems)),
            E::Repeat(repeat) => ExprKind::Repeat {
                elem: self.boxed(&repeat.expr),
                len: &repeat.len,
            },
            E::Range(range) => ExprKind::Range {
                start: range.start.as_deref().map(|e| self.boxed(e)),
                limits: range.limits,
                end: range.end.as_deref().map(|e| self.boxed(e)),
            },
            E::Block(block) => ExprKind::Block(block.label.as_ref(), self.block(&block.block)),
            E::If(if_) => ExprKind::If {
                cond: self.boxed(&if_.cond),
                then_branch: self.block(&if_.then_branch),
                else_branch: if_
                    .else_branch
                    .as_ref()
                    .map(|(_, else_)| Box::new(self.expr(else_, name))),
            },
            E::Let(let_) => ExprKind::Let {
                pat: pattern(&let_.pat),
                expr: self.boxed(&let_.expr),
            },
            E::Match(match_) => ExprKind::Match {
                scrutinee: self.boxed(&match_.expr),
                arms: match_
                    .arms
                    .iter()
                    .map(|arm| {
                        let (pat, guard) = match &arm.pat {
                            Pat::Guard(guarded) => {
                                (&*guarded.pat, Some(self.expr(&guarded.guard, None)))
                            }
                            pat => (pat, None),
                        };
                        Arm {
                            pat: pattern(pat),
                            guard,
                            body: self.expr(&arm.body, name),
                        }
                    })
                    .collect(),
            },
            E::ForLoop(for_) => ExprKind::For {
                label: for_.label.as_ref(),
                pat: pattern(&for_.pat),
                iter: self.boxed(&for_.expr),
                body: self.block(&for_.body),
            },
            E::While(while_) => ExprKind::While {
                label: while_.label.as_ref(),
                cond: self.boxed(&while_.cond),
                body: self.block(&while_.body),
            },
            E::Loop(loop_) => ExprKind::Loop {
                label: loop_.label.as_ref(),
                body: self.block(&loop_.body),
            },
            E::Break(break_) => ExprKind::Break {
                label: break_.label.as_ref(),
                value: break_.expr.as_deref().map(|e| self.boxed(e)),
            },
            E::Continue(continue_) => ExprKind::Continue(continue_.label.as_ref()),
            E::Return(return_) => ExprKind::Return(return_.expr.as_deref().map(|e| self.boxed(e))),
            E::Assign(assign) => {
                let target = self.texts.expr(&assign.left);
                ExprKind::Assign {
                    target: self.boxed(&assign.left),
                    value: Box::new(self.expr(&assign.right, Some(&target))),
                }
            }
            E::Closure(closure) => ExprKind::Closure {
                syntax: closure,
                inputs: closure.inputs.iter().map(pattern).collect(),
                body: self.boxed(&closure.body),
            },
            E::Unsafe(unsafe_) => self.invalid(unsafe_.unsafe_token, Reason::UnsafeBlock),
            E::Async(async_) => self.invalid(async_.async_token, Reason::AsyncBlock),
            E::Try(try_) => self.invalid(try_.question_token, Reason::Try),
            other => self.invalid(
                other,
                Reason::Expression(text::tokens(other.to_token_stream())),
            ),
        }
    }

    fn invalid(&self, at: impl ToTokens, reason: Reason) -> ExprKind<'a> {
        self.reject(at, reason);
        ExprKind::Invalid
    }

    fn binary(
        &self,
        whole: &'a syn::Expr,
        binary: &'a syn::ExprBinary,
        name: Option<&str>,
    ) -> ExprKind<'a> {
        use syn::BinOp as B;
        let arith = |op| ExprKind::Binary {
            op,
            lhs: self.boxed(&binary.left),
            rhs: self.boxed(&binary.right),
            label: self.label(name, whole),
        };
        let compound = |op| {
            let target = self.texts.expr(&binary.left);
            ExprKind::CompoundAssign {
                op,
                target: self.boxed(&binary.left),
                value: self.boxed(&binary.right),
                label: Label {
                    text: target,
                    line: text::line(self.texts.first_span(&binary.left)),
                },
            }
        };
        match binary.op {
            B::Add(_) => arith(Arith::Add),
            B::Sub(_) => arith(Arith::Sub),
            B::Mul(_) => arith(Arith::Mul),
            B::Div(_) => arith(Arith::Div),
            B::Rem(_) => arith(Arith::Rem),
            B::AddAssign(_) => compound(Arith::Add),
            B::SubAssign(_) => compound(Arith::Sub),
            B::MulAssign(_) => compound(Arith::Mul),
            B::DivAssign(_) => compound(Arith::Div),
            B::RemAssign(_) => compound(Arith::Rem),
            B::Eq(_) | B::Lt(_) | B::Le(_) | B::Ne(_) | B::Ge(_) | B::Gt(_) => ExprKind::Compare {
                op: binary.op,
                lhs: self.boxed(&binary.left),
                rhs: self.boxed(&binary.right),
            },
            B::And(_)
            | B::Or(_)
            | B::BitXor(_)
            | B::BitAnd(_)
            | B::BitOr(_)
            | B::Shl(_)
            | B::Shr(_) => ExprKind::Logic {
                op: binary.op,
                lhs: self.boxed(&binary.left),
                rhs: self.boxed(&binary.right),
            },
            _ => self.invalid(
                binary.op,
                Reason::CompoundOperator(text::binary_op(&binary.op)),
            ),
        }
    }

    /// Whether `args` has `n` entries; if not, a rejection on `at` naming
    /// the function as written.
    fn arity(&self, at: impl ToTokens, name: String, args: usize, n: usize) -> bool {
        if args == n {
            return true;
        }
        self.reject(at, Reason::Arity { name, args: n });
        false
    }

    fn method(
        &self,
        whole: &'a syn::Expr,
        call: &'a syn::ExprMethodCall,
        name: Option<&str>,
    ) -> ExprKind<'a> {
        let method = call.method.to_string();
        let label = self.label(name, whole);
        let arity = |n: usize| self.arity(&call.method, method.clone(), call.args.len(), n);
        let receiver = || self.boxed(&call.receiver);
        match vocabulary::method(&method) {
            Some(Shape::Unary(func)) => {
                if !arity(0) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Elementary {
                    func,
                    operand: receiver(),
                    label,
                };
            }
            Some(Shape::IntegerPower) => {
                if !arity(1) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Powi {
                    base: receiver(),
                    exponent: self.boxed(&call.args[0]),
                    label,
                };
            }
            Some(Shape::Binary(func)) => {
                if !arity(1) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Binary {
                    op: Arith::Method(func),
                    lhs: receiver(),
                    rhs: self.boxed(&call.args[0]),
                    label,
                };
            }
            Some(Shape::Ternary(func)) => {
                if !arity(2) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Ternary {
                    func,
                    operands: [
                        receiver(),
                        self.boxed(&call.args[0]),
                        self.boxed(&call.args[1]),
                    ],
                    label,
                };
            }
            None => {}
        }
        if method == "sum" || method == "product" {
            if !arity(0) {
                return ExprKind::Invalid;
            }
            return ExprKind::Sum {
                items: receiver(),
                label,
                product: method == "product",
            };
        }
        if vocabulary::has_no_rule(&method) {
            return self.invalid(&call.method, Reason::NoRule(method));
        }
        if vocabulary::is_structural(&method) {
            return ExprKind::Structural {
                receiver: receiver(),
                method: &call.method,
                turbofish: call.turbofish.as_ref(),
                args: self.exprs(&call.args),
            };
        }
        ExprKind::PlainMethod {
            receiver: receiver(),
            method: &call.method,
            turbofish: call.turbofish.as_ref(),
            args: self.exprs(&call.args),
            reads_primal: vocabulary::is_predicate(&method),
        }
    }

    fn call(
        &self,
        whole: &'a syn::Expr,
        call: &'a syn::ExprCall,
        name: Option<&str>,
    ) -> ExprKind<'a> {
        let syn::Expr::Path(func) = &*call.func else {
            return self.invalid(&call.func, Reason::CallOfExpression);
        };
        let segments: Vec<String> = func
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let last = segments.last().map(String::as_str).unwrap_or_default();
        let first = segments.first().map(String::as_str).unwrap_or_default();
        let label = self.label(name, whole);
        let args = &call.args;
        let arity = |name: String, n: usize| self.arity(&call.func, name, args.len(), n);
        // `relu(x)`, `autodiff::sigmoid(x)`: the facade's plain twins.
        let facade = segments.len() == 1 || (segments.len() == 2 && first == "autodiff");
        if let Some(func) = facade.then(|| vocabulary::facade_function(last)).flatten() {
            if !arity(last.to_owned(), 1) {
                return ExprKind::Invalid;
            }
            return ExprKind::Elementary {
                func,
                operand: self.boxed(&args[0]),
                label,
            };
        }
        if segments.len() == 2 && first == "f64" {
            let path = format!("f64::{last}");
            match vocabulary::method(last) {
                Some(Shape::Unary(func)) => {
                    if !arity(path, 1) {
                        return ExprKind::Invalid;
                    }
                    return ExprKind::Elementary {
                        func,
                        operand: self.boxed(&args[0]),
                        label,
                    };
                }
                Some(Shape::IntegerPower) => {
                    if !arity(path, 2) {
                        return ExprKind::Invalid;
                    }
                    return ExprKind::Powi {
                        base: self.boxed(&args[0]),
                        exponent: self.boxed(&args[1]),
                        label,
                    };
                }
                Some(Shape::Binary(func)) => {
                    if !arity(path, 2) {
                        return ExprKind::Invalid;
                    }
                    return ExprKind::Binary {
                        op: Arith::Method(func),
                        lhs: self.boxed(&args[0]),
                        rhs: self.boxed(&args[1]),
                        label,
                    };
                }
                Some(Shape::Ternary(func)) => {
                    if !arity(path, 3) {
                        return ExprKind::Invalid;
                    }
                    return ExprKind::Ternary {
                        func,
                        operands: [
                            self.boxed(&args[0]),
                            self.boxed(&args[1]),
                            self.boxed(&args[2]),
                        ],
                        label,
                    };
                }
                None => {}
            }
            if vocabulary::has_no_rule(last) {
                return self.invalid(&call.func, Reason::NoRule(path));
            }
            return ExprKind::PlainCall {
                func,
                args: self.exprs(args),
            };
        }
        // `Some(x)`, `Point(a, b)`: a constructor, not a function; and
        // `act(x)` with `let act = |v| ..`: a closure, called as written.
        let closure = segments.len() == 1 && self.closures.borrow().iter().any(|name| name == last);
        if closure || last.starts_with(|c: char| c.is_ascii_uppercase()) {
            return ExprKind::Construct {
                func,
                args: self.exprs(args),
            };
        }
        // `std::cmp::max(1, m)`, `Vec::with_capacity(m)`: the standard
        // library has no `_tape` twins.
        let standard = matches!(first, "std" | "core" | "alloc")
            || (segments.len() == 2 && matches!(first, "Vec" | "Option" | "String" | "Box"));
        if standard || (segments.len() == 2 && (is_plain_type(first) || first == "f64")) {
            return ExprKind::PlainCall {
                func,
                args: self.exprs(args),
            };
        }
        if func.qself.is_some()
            || func
                .path
                .segments
                .iter()
                .any(|s| !matches!(s.arguments, syn::PathArguments::None))
        {
            return self.invalid(&call.func, Reason::CallWithGenerics);
        }
        ExprKind::Call {
            func: &func.path,
            args: self.exprs(args),
        }
    }

    fn mac(&self, mac: &'a syn::Macro) -> ExprKind<'a> {
        let name = mac
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if name == "dbg" {
            if let Ok(arg) = mac.parse_body::<syn::Expr>() {
                let VecBody::One(arg) = self.keep(VecBody::One(Box::new(arg))) else {
                    unreachable!("the cell holds what was kept")
                };
                return ExprKind::Dbg {
                    mac,
                    arg: self.boxed(arg),
                };
            }
        }
        if vocabulary::is_plain_macro(&name) {
            return ExprKind::PlainMacro {
                mac,
                names: text::mentioned_names(mac.tokens.clone()),
                diverges: vocabulary::is_diverging_macro(&name),
            };
        }
        if !mac.path.is_ident("vec") {
            return self.invalid(
                &mac.path,
                Reason::Macro(text::tokens(mac.path.to_token_stream())),
            );
        }
        let repeat = mac.parse_body_with(|input: syn::parse::ParseStream| {
            let elem: syn::Expr = input.parse()?;
            input.parse::<Token![;]>()?;
            let len: syn::Expr = input.parse()?;
            Ok((elem, len))
        });
        if let Ok((elem, len)) = repeat {
            let VecBody::Repeat(elem, len) =
                self.keep(VecBody::Repeat(Box::new(elem), Box::new(len)))
            else {
                unreachable!("the cell holds what was kept")
            };
            return ExprKind::VecRepeat {
                elem: self.boxed(elem),
                len: self.boxed(len),
            };
        }
        match mac.parse_body_with(Punctuated::<syn::Expr, Token![,]>::parse_terminated) {
            Ok(items) => {
                let VecBody::List(items) = self.keep(VecBody::List(items)) else {
                    unreachable!("the cell holds what was kept")
                };
                ExprKind::VecList(self.exprs(items))
            }
            Err(error) => self.invalid(TokenStream::new(), Reason::Syntax(error)),
        }
    }
}

/// A pattern and every identifier in it.
fn pattern(pat: &Pat) -> Pattern<'_> {
    fn walk(tokens: TokenStream, names: &mut Vec<String>) {
        for token in tokens {
            match token {
                proc_macro2::TokenTree::Ident(ident) => names.push(ident.to_string()),
                proc_macro2::TokenTree::Group(group) => walk(group.stream(), names),
                _ => {}
            }
        }
    }
    let mut names = Vec::new();
    walk(pat.to_token_stream(), &mut names);
    Pattern { syntax: pat, names }
}

/// A whole parameter's shape on the tape: `&Model` or what [`classify`] says.
fn classify_param(ty: &Type) -> Option<Kind> {
    if let Type::Reference(reference) = ty {
        if reference.mutability.is_none() {
            if let Some(Kind::Struct { ty, .. }) = classify(&reference.elem) {
                return Some(Kind::Struct { by_ref: true, ty });
            }
        }
    }
    classify(ty)
}

/// A parameter type's shape on the tape, or `None` for an unsupported type.
fn classify(ty: &Type) -> Option<Kind> {
    match ty {
        Type::Paren(paren) => classify(&paren.elem),
        Type::Group(group) => classify(&group.elem),
        Type::Path(path) if path.qself.is_none() => {
            let segment = path.path.segments.last()?;
            let name = segment.ident.to_string();
            if path.path.segments.len() == 1 && name == "f64" {
                return Some(Kind::Scalar);
            }
            if path.path.segments.len() == 1 && is_plain_type(&name) {
                return Some(Kind::PassThrough);
            }
            if name == "Vec" {
                let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                    return None;
                };
                if let Some(syn::GenericArgument::Type(elem)) = args.args.first() {
                    return differentiable(elem).map(|kind| Kind::Vec(Box::new(kind)));
                }
            }
            if segment.arguments.is_none() && name != "f32" {
                return Some(Kind::Struct {
                    by_ref: false,
                    ty: ty.clone(),
                });
            }
            None
        }
        Type::Array(array) => {
            differentiable(&array.elem).map(|kind| Kind::Array(Box::new(kind), array.len.clone()))
        }
        Type::Reference(reference) if reference.mutability.is_none() => match &*reference.elem {
            Type::Slice(slice) => {
                differentiable(&slice.elem).map(|kind| Kind::Slice(Box::new(kind)))
            }
            // `&Vec<f64>`, `&[f64; N]`: read as the slice they deref to.
            Type::Array(array) => {
                differentiable(&array.elem).map(|kind| Kind::Slice(Box::new(kind)))
            }
            elem => match classify(elem)? {
                Kind::Vec(kind) => Some(Kind::Slice(kind)),
                _ => None,
            },
        },
        _ => None,
    }
}

fn differentiable(ty: &Type) -> Option<Kind> {
    classify(ty).filter(Kind::is_differentiable)
}

/// Integer and `bool` types: they pass through the tape unchanged.
pub fn is_plain_type(name: &str) -> bool {
    matches!(
        name,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "bool"
    )
}
