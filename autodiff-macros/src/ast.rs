//! The model: the function's parameters and a small tree of its body in
//! which every arithmetic operation, every elementary function and every
//! call is a node with its label, and everything else is control flow or
//! plain Rust carried along.
//!
//! Reading the body is also where unsupported syntax is found: each mistake
//! is reported to the [`Ctxt`] on the user's token, and reading goes on so
//! that every mistake is reported in the same build.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{FnArg, Ident, ItemFn, Pat, Token, Type};

use crate::attr;
use crate::ctxt::Ctxt;
use crate::text;

/// The annotated function.
pub struct Function {
    /// The function as written, less `#[constant]` markers: the plain twin.
    pub original: ItemFn,
    pub params: Vec<Param>,
    pub body: Block,
}

pub struct Param {
    pub ident: Ident,
    pub mutability: Option<Token![mut]>,
    pub ty: Type,
    pub kind: Kind,
    pub line: u32,
}

/// What a parameter is on the tape.
// A handful per function, alive for one expansion: size is no concern.
#[allow(clippy::large_enum_variant)]
pub enum Kind {
    /// `f64`: one variable.
    Scalar,
    /// `[T; N]` of a differentiable `T`.
    Array(Box<Kind>, syn::Expr),
    /// `&[T]` of a differentiable `T`.
    Slice(Box<Kind>),
    /// `Vec<T>` of a differentiable `T`.
    Vec(Box<Kind>),
    /// A model: a struct named by a path without generic arguments, by
    /// value (`Mlp`) or, as a whole parameter only, by reference (`&Mlp`).
    /// Its shape on the tape is named through the runtime's `Parameter`
    /// trait, which `#[derive(Parameters)]` implements; any other struct is
    /// rustc's error there, on the type the student wrote.
    Struct { by_ref: bool, ty: Type },
    /// Integers, `bool` and `#[constant]` parameters: passed as they are.
    PassThrough,
}

impl Kind {
    pub fn is_differentiable(&self) -> bool {
        !matches!(self, Kind::PassThrough)
    }
}

/// Where a node came from: a binding name or the source text, and the line.
#[derive(Clone)]
pub struct Label {
    pub text: String,
    pub line: u32,
}

pub struct Block {
    pub stmts: Vec<Stmt>,
}

// One per statement, alive for one expansion: size is no concern.
#[allow(clippy::large_enum_variant)]
pub enum Stmt {
    Let {
        /// The pattern as written.
        pat: Pat,
        /// The pattern without an `f64` type annotation, for a binding that
        /// holds a `Scalar` on the tape.
        untyped: Pat,
        /// The binding's name, when the pattern is one name.
        name: Option<Ident>,
        mutable: bool,
        init: Option<Expr>,
    },
    /// `const` items: plain `f64` constants.
    Item(syn::Item),
    Expr(Expr, Option<Token![;]>),
}

pub struct Expr {
    /// The first token of the user's expression: rustc's own errors about
    /// generated calls land here.
    pub span: Span,
    /// The expression as written, emitted unchanged where no tracked value
    /// reaches it.
    pub syntax: syn::Expr,
    /// The binding that receives the value, if the expression is a `let`
    /// initialiser or an assigned value: the label of a constant it lifts.
    pub binding: Option<String>,
    pub kind: ExprKind,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Powf,
    Max,
    Min,
}

impl Arith {
    pub fn name(self) -> &'static str {
        match self {
            Arith::Add => "add",
            Arith::Sub => "sub",
            Arith::Mul => "mul",
            Arith::Div => "div",
            Arith::Rem => "rem",
            Arith::Powf => "powf",
            Arith::Max => "max",
            Arith::Min => "min",
        }
    }
}

/// `f64` methods the engine has no derivative rule for: rejected by name, so
/// that a student gets a compile error instead of a missing gradient.
const NO_RULE: &[&str] = &[
    "sin_cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "exp2",
    "exp_m1",
    "ln_1p",
    "log",
    "log2",
    "log10",
    "cbrt",
    "hypot",
    "floor",
    "ceil",
    "round",
    "round_ties_even",
    "trunc",
    "fract",
    "signum",
    "mul_add",
    "clamp",
    "rem_euclid",
    "div_euclid",
    "to_degrees",
    "to_radians",
    "copysign",
    "product",
];

/// Methods that only move, count or iterate values: they pass through.
const STRUCTURAL: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "into_iter",
    "enumerate",
    "zip",
    "rev",
    "skip",
    "take",
    "step_by",
    "chunks",
    "windows",
    "copied",
    "cloned",
    "clone",
    "as_slice",
    "to_vec",
    "push",
];

/// `f64` predicates: a `bool` about the primal value, like a comparison.
const PREDICATES: &[&str] = &[
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_normal",
    "is_subnormal",
    "is_sign_positive",
    "is_sign_negative",
];

const SUPPORTED_METHODS: &str = "exp, ln, tanh, sin, cos, sqrt, abs, recip, powi, powf, max, min";

pub enum ExprKind {
    Lit(syn::Lit),
    /// `-1.0`, `-3`: a negative literal is a constant, not an operation.
    NegLit(syn::ExprUnary),
    Path(syn::ExprPath),
    /// `a + b`, `a.powf(b)`, `a.max(b)`, ...: one node when tracked.
    Binary {
        op: Arith,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
        label: Label,
    },
    /// `-x`.
    Neg {
        operand: Box<Expr>,
        label: Label,
    },
    /// `x.exp()`, `relu(x)`, ...: one node when tracked.
    Elementary {
        func: &'static str,
        operand: Box<Expr>,
        label: Label,
    },
    /// `x.powi(n)`.
    Powi {
        base: Box<Expr>,
        exponent: Box<Expr>,
        label: Label,
    },
    /// `items.sum()`: one `add` node per item after the first.
    Sum {
        items: Box<Expr>,
        label: Label,
    },
    /// `<`, `==`, ...: compares primal values.
    Compare {
        op: syn::BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `&&`, `||` and the bit operators: plain Rust on plain values.
    Logic {
        op: syn::BinOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `!b`, `*r`.
    Prefix {
        op: syn::UnOp,
        operand: Box<Expr>,
    },
    /// A call of another `#[differentiable]` function: its `_tape` twin on
    /// the same tape.
    Call {
        func: syn::Path,
        args: Vec<Expr>,
    },
    /// `f64::from(n)`, `usize::pow(2, k)`: plain functions of plain values.
    PlainCall {
        func: syn::ExprPath,
        args: Vec<Expr>,
    },
    /// `x.len()`, `x.iter()`: moves or counts values, computes none.
    Structural {
        receiver: Box<Expr>,
        method: Ident,
        turbofish: Option<syn::AngleBracketedGenericArguments>,
        args: Vec<Expr>,
    },
    /// Any other method: allowed on plain values only, except the `f64`
    /// predicates (`is_finite`, ...), which read a tracked value's primal
    /// and return a `bool`, like a comparison.
    PlainMethod {
        receiver: Box<Expr>,
        method: Ident,
        turbofish: Option<syn::AngleBracketedGenericArguments>,
        args: Vec<Expr>,
        reads_primal: bool,
    },
    /// `e as T`: allowed on plain values only.
    Cast {
        expr: Box<Expr>,
        ty: Box<Type>,
    },
    Index {
        base: Box<Expr>,
        index: Box<Expr>,
    },
    Field {
        base: Box<Expr>,
        member: syn::Member,
    },
    Reference {
        mutability: Option<Token![mut]>,
        expr: Box<Expr>,
    },
    Paren(Box<Expr>),
    Tuple(Vec<Expr>),
    Array(Vec<Expr>),
    Repeat {
        elem: Box<Expr>,
        len: Box<syn::Expr>,
    },
    VecList(Vec<Expr>),
    VecRepeat {
        elem: Box<Expr>,
        len: Box<Expr>,
    },
    Range {
        start: Option<Box<Expr>>,
        limits: syn::RangeLimits,
        end: Option<Box<Expr>>,
    },
    Block(Option<syn::Label>, Block),
    If {
        cond: Box<Expr>,
        then_branch: Block,
        else_branch: Option<Box<Expr>>,
    },
    /// `let PAT = EXPR` in an `if` or `while` condition.
    Let {
        pat: Box<Pat>,
        expr: Box<Expr>,
    },
    Match {
        scrutinee: Box<Expr>,
        arms: Vec<Arm>,
    },
    For {
        label: Option<syn::Label>,
        pat: Box<Pat>,
        iter: Box<Expr>,
        body: Block,
    },
    While {
        label: Option<syn::Label>,
        cond: Box<Expr>,
        body: Block,
    },
    Loop {
        label: Option<syn::Label>,
        body: Block,
    },
    Break {
        label: Option<syn::Lifetime>,
        value: Option<Box<Expr>>,
    },
    Continue(Option<syn::Lifetime>),
    Return(Option<Box<Expr>>),
    Assign {
        target: Box<Expr>,
        value: Box<Expr>,
    },
    /// `a += b` and friends: `a = a + b`, reading the old `a`.
    CompoundAssign {
        op: Arith,
        target: Box<Expr>,
        value: Box<Expr>,
        label: Label,
    },
    /// Something already reported as an error.
    Invalid,
}

pub struct Arm {
    pub pat: Pat,
    pub guard: Option<Expr>,
    pub body: Expr,
}

impl Function {
    /// Reads `item`, reporting every unsupported construct to `cx`.
    pub fn from_syn(cx: &Ctxt, mut item: ItemFn) -> Function {
        // Type parameters are reported once, by `valid`, not again at
        // every parameter that uses them.
        let type_params: Vec<String> = item
            .sig
            .generics
            .type_params()
            .map(|param| param.ident.to_string())
            .collect();
        let mut params = Vec::new();
        for input in &mut item.sig.inputs {
            let FnArg::Typed(typed) = input else {
                // Receivers are reported by `valid`.
                continue;
            };
            let constant = attr::take_constant(cx, &mut typed.attrs);
            let Pat::Ident(pat) = &*typed.pat else {
                cx.error(
                    &typed.pat,
                    "parameters of a #[differentiable] function must be plain names, like `x: f64`",
                );
                continue;
            };
            if pat.by_ref.is_some() || pat.subpat.is_some() {
                cx.error(
                    &typed.pat,
                    "write the parameter as a plain name, like `x: f64`",
                );
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
                            report_parameter_type(cx, &typed.ty);
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
        let body = Lower { cx }.block(&item.block);
        Function {
            original: item,
            params,
            body,
        }
    }
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
            _ => None,
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

fn report_parameter_type(cx: &Ctxt, ty: &Type) {
    if mentions(ty.to_token_stream(), "f32") {
        cx.error(
            ty,
            "f32 is not supported: gradients are exact in f64, so use `f64`",
        );
    } else {
        cx.error(
            ty,
            format_args!(
                "parameter type `{}` is not supported: use f64, [f64; N], &[f64], Vec<f64>, an integer or bool, or mark the parameter `#[constant]`",
                text::tokens(ty.to_token_stream())
            ),
        );
    }
}

/// Whether `tokens` contains the identifier `name` anywhere.
pub fn mentions(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|token| match token {
        proc_macro2::TokenTree::Ident(ident) => ident == name,
        proc_macro2::TokenTree::Group(group) => mentions(group.stream(), name),
        _ => false,
    })
}

fn is_int_literal(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Lit(lit) => matches!(lit.lit, syn::Lit::Int(_)),
        syn::Expr::Unary(unary) => {
            matches!(unary.op, syn::UnOp::Neg(_)) && is_int_literal(&unary.expr)
        }
        _ => false,
    }
}

struct Lower<'a> {
    cx: &'a Ctxt,
}

impl Lower<'_> {
    fn block(&self, block: &syn::Block) -> Block {
        Block {
            stmts: block
                .stmts
                .iter()
                .filter_map(|stmt| self.stmt(stmt))
                .collect(),
        }
    }

    fn stmt(&self, stmt: &syn::Stmt) -> Option<Stmt> {
        match stmt {
            syn::Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    if let Some((else_token, _)) = &init.diverge {
                        self.cx.error(
                            else_token,
                            "`let ... else` is not supported here; use `match`",
                        );
                    }
                }
                let (untyped, name, mutable) = self.let_pattern(&local.pat);
                let label = name.as_ref().map(Ident::to_string);
                let init = local
                    .init
                    .as_ref()
                    .map(|init| self.expr(&init.expr, label.as_deref()));
                Some(Stmt::Let {
                    pat: local.pat.clone(),
                    untyped,
                    name,
                    mutable,
                    init,
                })
            }
            syn::Stmt::Item(item) => {
                match item {
                    syn::Item::Const(constant) => {
                        if mentions(constant.ty.to_token_stream(), "f32") {
                            self.cx.error(&constant.ty, "f32 is not supported: use `f64`");
                        }
                    }
                    syn::Item::Use(_) => {}
                    other => self.cx.error(
                        other,
                        "only `const` and `use` items may appear inside a #[differentiable] function; move this item outside",
                    ),
                }
                Some(Stmt::Item(item.clone()))
            }
            // A stray `;` is an empty statement.
            syn::Stmt::Expr(syn::Expr::Verbatim(tokens), _) if tokens.is_empty() => None,
            syn::Stmt::Expr(expr, semi) => Some(Stmt::Expr(self.expr(expr, None), *semi)),
            syn::Stmt::Macro(mac) => {
                let expr = self.mac(&mac.mac);
                Some(Stmt::Expr(expr, mac.semi_token))
            }
        }
    }

    /// The pattern with `f64` annotations dropped, the binding name that
    /// labels the initialiser's node, and whether the binding is `mut`.
    fn let_pattern(&self, pat: &Pat) -> (Pat, Option<Ident>, bool) {
        match pat {
            Pat::Type(typed) => {
                let (inner, name, mutable) = self.let_pattern(&typed.pat);
                let ty = typed.ty.to_token_stream();
                if mentions(ty.clone(), "f32") {
                    self.cx.error(
                        &typed.ty,
                        "f32 is not supported: gradients are exact in f64, so use `f64`",
                    );
                }
                if mentions(ty, "f64") {
                    // On the tape the value is a `Scalar`: let rustc infer it.
                    (inner, name, mutable)
                } else {
                    (pat.clone(), name, mutable)
                }
            }
            Pat::Ident(ident) => (
                pat.clone(),
                Some(ident.ident.clone()),
                ident.mutability.is_some(),
            ),
            _ => (pat.clone(), None, false),
        }
    }

    fn label(&self, name: Option<&str>, expr: &syn::Expr) -> Label {
        Label {
            text: name.map_or_else(|| text::expr(expr), str::to_owned),
            line: text::line(expr.span()),
        }
    }

    fn boxed(&self, expr: &syn::Expr) -> Box<Expr> {
        Box::new(self.expr(expr, None))
    }

    fn exprs<'e>(&self, exprs: impl IntoIterator<Item = &'e syn::Expr>) -> Vec<Expr> {
        exprs
            .into_iter()
            .map(|expr| self.expr(expr, None))
            .collect()
    }

    /// Reads one expression; `name` is the binding that receives its value.
    fn expr(&self, expr: &syn::Expr, name: Option<&str>) -> Expr {
        let span = expr.span();
        let kind = self.kind(expr, name);
        Expr {
            span,
            syntax: expr.clone(),
            binding: name.map(str::to_owned),
            kind,
        }
    }

    fn kind(&self, expr: &syn::Expr, name: Option<&str>) -> ExprKind {
        use syn::Expr as E;
        match expr {
            E::Lit(lit) => {
                if let syn::Lit::Float(float) = &lit.lit {
                    if float.suffix() == "f32" {
                        self.cx
                            .error(lit, "f32 is not supported: write an f64 literal like `1.0`");
                    }
                }
                ExprKind::Lit(lit.lit.clone())
            }
            E::Path(path) => {
                if path.path.is_ident("f32") {
                    self.cx.error(path, "f32 is not supported: use `f64`");
                }
                ExprKind::Path(path.clone())
            }
            E::Paren(paren) => ExprKind::Paren(Box::new(self.expr(&paren.expr, name))),
            E::Group(group) => self.kind(&group.expr, name),
            E::Binary(binary) => self.binary(binary, name),
            E::Unary(unary) => match unary.op {
                syn::UnOp::Neg(_) if matches!(&*unary.expr, E::Lit(_)) => {
                    ExprKind::NegLit(unary.clone())
                }
                syn::UnOp::Neg(_) => ExprKind::Neg {
                    operand: self.boxed(&unary.expr),
                    label: self.label(name, expr),
                },
                op => ExprKind::Prefix {
                    op,
                    operand: self.boxed(&unary.expr),
                },
            },
            E::MethodCall(call) => self.method(call, name),
            E::Call(call) => self.call(call, name),
            E::Macro(mac) => self.mac(&mac.mac).kind,
            E::Cast(cast) => {
                if mentions(cast.ty.to_token_stream(), "f32") {
                    self.cx.error(&cast.ty, "f32 is not supported: use `f64`");
                }
                ExprKind::Cast {
                    expr: self.boxed(&cast.expr),
                    ty: cast.ty.clone(),
                }
            }
            E::Index(index) => ExprKind::Index {
                base: self.boxed(&index.expr),
                index: self.boxed(&index.index),
            },
            E::Field(field) => ExprKind::Field {
                base: self.boxed(&field.base),
                member: field.member.clone(),
            },
            E::Reference(reference) => ExprKind::Reference {
                mutability: reference.mutability,
                expr: self.boxed(&reference.expr),
            },
            E::Tuple(tuple) => ExprKind::Tuple(self.exprs(&tuple.elems)),
            E::Array(array) => ExprKind::Array(self.exprs(&array.elems)),
            E::Repeat(repeat) => ExprKind::Repeat {
                elem: self.boxed(&repeat.expr),
                len: repeat.len.clone(),
            },
            E::Range(range) => ExprKind::Range {
                start: range.start.as_deref().map(|e| self.boxed(e)),
                limits: range.limits,
                end: range.end.as_deref().map(|e| self.boxed(e)),
            },
            E::Block(block) => ExprKind::Block(block.label.clone(), self.block(&block.block)),
            E::If(if_) => ExprKind::If {
                cond: self.boxed(&if_.cond),
                then_branch: self.block(&if_.then_branch),
                else_branch: if_
                    .else_branch
                    .as_ref()
                    .map(|(_, else_)| Box::new(self.expr(else_, name))),
            },
            E::Let(let_) => ExprKind::Let {
                pat: let_.pat.clone(),
                expr: self.boxed(&let_.expr),
            },
            E::Match(match_) => ExprKind::Match {
                scrutinee: self.boxed(&match_.expr),
                arms: match_
                    .arms
                    .iter()
                    .map(|arm| {
                        let (pat, guard) = match &arm.pat {
                            Pat::Guard(guarded) => (
                                (*guarded.pat).clone(),
                                Some(self.expr(&guarded.guard, None)),
                            ),
                            pat => (pat.clone(), None),
                        };
                        Arm {
                            pat,
                            guard,
                            body: self.expr(&arm.body, name),
                        }
                    })
                    .collect(),
            },
            E::ForLoop(for_) => ExprKind::For {
                label: for_.label.clone(),
                pat: for_.pat.clone(),
                iter: self.boxed(&for_.expr),
                body: self.block(&for_.body),
            },
            E::While(while_) => ExprKind::While {
                label: while_.label.clone(),
                cond: self.boxed(&while_.cond),
                body: self.block(&while_.body),
            },
            E::Loop(loop_) => ExprKind::Loop {
                label: loop_.label.clone(),
                body: self.block(&loop_.body),
            },
            E::Break(break_) => ExprKind::Break {
                label: break_.label.clone(),
                value: break_.expr.as_deref().map(|e| self.boxed(e)),
            },
            E::Continue(continue_) => ExprKind::Continue(continue_.label.clone()),
            E::Return(return_) => ExprKind::Return(return_.expr.as_deref().map(|e| self.boxed(e))),
            E::Assign(assign) => {
                let target = text::expr(&assign.left);
                ExprKind::Assign {
                    target: self.boxed(&assign.left),
                    value: Box::new(self.expr(&assign.right, Some(&target))),
                }
            }
            E::Closure(closure) => {
                self.cx.error(
                    closure.inputs_begin,
                    "closures are not supported in a #[differentiable] function: write a loop, or a separate #[differentiable] function",
                );
                ExprKind::Invalid
            }
            E::Unsafe(unsafe_) => {
                self.cx.error(
                    unsafe_.unsafe_token,
                    "`unsafe` blocks are not supported in a #[differentiable] function",
                );
                ExprKind::Invalid
            }
            E::Async(async_) => {
                self.cx.error(
                    async_.async_token,
                    "`async` blocks are not supported in a #[differentiable] function",
                );
                ExprKind::Invalid
            }
            E::Try(try_) => {
                self.cx.error(
                    try_.question_token,
                    "the `?` operator is not supported in a #[differentiable] function: it returns an f64",
                );
                ExprKind::Invalid
            }
            other => {
                self.cx.error(
                    other,
                    format_args!(
                        "`{}` is not supported in a #[differentiable] function",
                        text::tokens(other.to_token_stream())
                    ),
                );
                ExprKind::Invalid
            }
        }
    }

    fn binary(&self, binary: &syn::ExprBinary, name: Option<&str>) -> ExprKind {
        use syn::BinOp as B;
        let whole = syn::Expr::Binary(binary.clone());
        let arith = |op| ExprKind::Binary {
            op,
            lhs: self.boxed(&binary.left),
            rhs: self.boxed(&binary.right),
            label: self.label(name, &whole),
        };
        let compound = |op| {
            let target = text::expr(&binary.left);
            ExprKind::CompoundAssign {
                op,
                target: self.boxed(&binary.left),
                value: self.boxed(&binary.right),
                label: Label {
                    text: target,
                    line: text::line(binary.left.span()),
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
            _ => {
                self.cx.error(
                    binary.op,
                    format_args!(
                        "`{}` is not supported in a #[differentiable] function: write `a = a {} b`",
                        text::binary_op(&binary.op),
                        text::binary_op(&binary.op).trim_end_matches('=')
                    ),
                );
                ExprKind::Invalid
            }
        }
    }

    fn method(&self, call: &syn::ExprMethodCall, name: Option<&str>) -> ExprKind {
        let method = call.method.to_string();
        let whole = syn::Expr::MethodCall(call.clone());
        let label = self.label(name, &whole);
        let arity = |n: usize| {
            if call.args.len() == n {
                true
            } else {
                self.cx.error(
                    &call.method,
                    format_args!(
                        "`{method}` takes {n} argument{}",
                        if n == 1 { "" } else { "s" }
                    ),
                );
                false
            }
        };
        let receiver = || self.boxed(&call.receiver);
        if let Some(func) = f64_method(&method) {
            if !arity(0) {
                return ExprKind::Invalid;
            }
            return ExprKind::Elementary {
                func,
                operand: receiver(),
                label,
            };
        }
        match method.as_str() {
            "powi" => {
                if !arity(1) {
                    return ExprKind::Invalid;
                }
                ExprKind::Powi {
                    base: receiver(),
                    exponent: self.boxed(&call.args[0]),
                    label,
                }
            }
            "powf" | "max" | "min" => {
                if !arity(1) {
                    return ExprKind::Invalid;
                }
                ExprKind::Binary {
                    op: match method.as_str() {
                        "powf" => Arith::Powf,
                        "max" => Arith::Max,
                        _ => Arith::Min,
                    },
                    lhs: receiver(),
                    rhs: self.boxed(&call.args[0]),
                    label,
                }
            }
            "sum" => {
                if !arity(0) {
                    return ExprKind::Invalid;
                }
                ExprKind::Sum {
                    items: receiver(),
                    label,
                }
            }
            m if NO_RULE.contains(&m) => {
                self.cx.error(
                    &call.method,
                    format_args!(
                        "`{m}` has no derivative rule in #[differentiable]; supported methods: {SUPPORTED_METHODS}"
                    ),
                );
                ExprKind::Invalid
            }
            m if STRUCTURAL.contains(&m) => ExprKind::Structural {
                receiver: receiver(),
                method: call.method.clone(),
                turbofish: call.turbofish.clone(),
                args: self.exprs(&call.args),
            },
            _ => ExprKind::PlainMethod {
                receiver: receiver(),
                method: call.method.clone(),
                turbofish: call.turbofish.clone(),
                args: self.exprs(&call.args),
                reads_primal: PREDICATES.contains(&method.as_str()),
            },
        }
    }

    fn call(&self, call: &syn::ExprCall, name: Option<&str>) -> ExprKind {
        let whole = syn::Expr::Call(call.clone());
        let syn::Expr::Path(func) = &*call.func else {
            self.cx.error(
                &call.func,
                "only named functions can be called in a #[differentiable] function",
            );
            return ExprKind::Invalid;
        };
        let segments: Vec<String> = func
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let last = segments.last().map(String::as_str).unwrap_or_default();
        let first = segments.first().map(String::as_str).unwrap_or_default();
        let label = self.label(name, &whole);
        let args = &call.args;
        // `relu(x)`, `autodiff::sigmoid(x)`: the facade's plain twins.
        let facade = segments.len() == 1 || (segments.len() == 2 && first == "autodiff");
        if let Some(func) = facade.then(|| facade_function(last)).flatten() {
            if args.len() != 1 {
                self.cx
                    .error(&call.func, format_args!("`{last}` takes 1 argument"));
                return ExprKind::Invalid;
            }
            return ExprKind::Elementary {
                func,
                operand: self.boxed(&args[0]),
                label,
            };
        }
        if segments.len() == 2 && first == "f64" {
            let expect = |n: usize| {
                if args.len() == n {
                    true
                } else {
                    self.cx.error(
                        &call.func,
                        format_args!(
                            "`f64::{last}` takes {n} argument{}",
                            if n == 1 { "" } else { "s" }
                        ),
                    );
                    false
                }
            };
            if let Some(func) = f64_method(last) {
                if !expect(1) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Elementary {
                    func,
                    operand: self.boxed(&args[0]),
                    label,
                };
            }
            return match last {
                "powi" => {
                    if !expect(2) {
                        return ExprKind::Invalid;
                    }
                    ExprKind::Powi {
                        base: self.boxed(&args[0]),
                        exponent: self.boxed(&args[1]),
                        label,
                    }
                }
                "powf" | "max" | "min" => {
                    if !expect(2) {
                        return ExprKind::Invalid;
                    }
                    ExprKind::Binary {
                        op: match last {
                            "powf" => Arith::Powf,
                            "max" => Arith::Max,
                            _ => Arith::Min,
                        },
                        lhs: self.boxed(&args[0]),
                        rhs: self.boxed(&args[1]),
                        label,
                    }
                }
                m if NO_RULE.contains(&m) => {
                    self.cx.error(
                        &call.func,
                        format_args!("`f64::{m}` has no derivative rule in #[differentiable]; supported: {SUPPORTED_METHODS}"),
                    );
                    ExprKind::Invalid
                }
                _ => ExprKind::PlainCall {
                    func: func.clone(),
                    args: self.exprs(args),
                },
            };
        }
        if segments.len() == 2 && (is_plain_type(first) || first == "f64") {
            return ExprKind::PlainCall {
                func: func.clone(),
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
            self.cx.error(
                &call.func,
                "call #[differentiable] functions by plain path, without generic arguments",
            );
            return ExprKind::Invalid;
        }
        ExprKind::Call {
            func: func.path.clone(),
            args: self.exprs(args),
        }
    }

    fn mac(&self, mac: &syn::Macro) -> Expr {
        let kind = if mac.path.is_ident("vec") {
            self.vec_macro(mac)
        } else {
            self.cx.error(
                &mac.path,
                format_args!(
                    "macro `{}!` is not supported in a #[differentiable] function; only `vec!` is",
                    text::tokens(mac.path.to_token_stream())
                ),
            );
            ExprKind::Invalid
        };
        Expr {
            span: mac.path.span(),
            syntax: syn::Expr::Macro(syn::ExprMacro {
                attrs: Vec::new(),
                mac: mac.clone(),
            }),
            binding: None,
            kind,
        }
    }

    fn vec_macro(&self, mac: &syn::Macro) -> ExprKind {
        let repeat = mac.parse_body_with(|input: syn::parse::ParseStream| {
            let elem: syn::Expr = input.parse()?;
            input.parse::<Token![;]>()?;
            let len: syn::Expr = input.parse()?;
            Ok((elem, len))
        });
        if let Ok((elem, len)) = repeat {
            return ExprKind::VecRepeat {
                elem: self.boxed(&elem),
                len: self.boxed(&len),
            };
        }
        match mac.parse_body_with(Punctuated::<syn::Expr, Token![,]>::parse_terminated) {
            Ok(items) => ExprKind::VecList(self.exprs(&items)),
            Err(error) => {
                self.cx.syn_error(error);
                ExprKind::Invalid
            }
        }
    }
}

/// The one-operand `f64` methods with a derivative rule.
fn f64_method(name: &str) -> Option<&'static str> {
    ["exp", "ln", "tanh", "sin", "cos", "sqrt", "abs", "recip"]
        .into_iter()
        .find(|known| *known == name)
}

/// The facade's one-operand functions (`relu(x)`, `autodiff::sigmoid(x)`).
fn facade_function(name: &str) -> Option<&'static str> {
    ["relu", "sigmoid", "detach"]
        .into_iter()
        .find(|known| *known == name)
}

impl Expr {
    /// An integer literal stays as it is: lifting it would leave rustc
    /// unable to infer its integer type from later uses.
    pub fn is_int_literal(&self) -> bool {
        match &self.kind {
            ExprKind::Lit(lit) => matches!(lit, syn::Lit::Int(_) | syn::Lit::Bool(_)),
            ExprKind::NegLit(unary) => is_int_literal(&syn::Expr::Unary(unary.clone())),
            ExprKind::Paren(inner) => inner.is_int_literal(),
            _ => false,
        }
    }

    /// `Vec::new()`, `Vec::with_capacity(n)`, `vec![]`: the element type
    /// comes from later pushes, which are lifted; lifting the empty vector
    /// itself would leave rustc nothing to infer it from.
    pub fn is_empty_vec(&self) -> bool {
        match &self.kind {
            ExprKind::VecList(items) => items.is_empty(),
            ExprKind::Call { func, .. } => {
                let names: Vec<String> =
                    func.segments.iter().map(|s| s.ident.to_string()).collect();
                names.len() == 2
                    && names[0] == "Vec"
                    && (names[1] == "new" || names[1] == "with_capacity")
            }
            _ => false,
        }
    }

    /// Whether the expression never produces a value (`return`, `break`,
    /// `continue`): nothing to lift.
    pub fn diverges(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Return(_) | ExprKind::Break { .. } | ExprKind::Continue(_)
        )
    }
}
