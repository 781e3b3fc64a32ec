//! The model every pass reads: the function's parameters and a small tree of
//! its body in which every arithmetic operation, every elementary function
//! and every call is a node with its label, and everything else is control
//! flow or plain Rust carried along.
//!
//! The model borrows the user's syntax (`'a`) instead of cloning it: a node
//! keeps a reference to the expression it was read from, which is what the
//! emitters print where no tracked value reaches, and every node has an `id`
//! under which later passes (`flow`) store what they find about it. Types
//! only: `lower` builds the model, `valid` reports its `rejected` list, `flow`
//! and `emit` read it.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Ident, ItemFn, Pat, Token, Type};

/// The annotated function.
pub struct Function<'a> {
    /// The function the model reads, `#[constant]` markers included: as
    /// written, or with its `self` and `iter_mut` loops read otherwise
    /// (`receiver`, `writes`).
    pub item: &'a ItemFn,
    /// The function as written, which the plain twin prints.
    pub written: &'a ItemFn,
    pub params: Vec<Param>,
    pub body: Block<'a>,
    /// Every construct that cannot be differentiated, in source order.
    pub rejected: Vec<Rejection>,
    /// How many expression nodes the body has: every `Expr::id` is below it.
    pub exprs: usize,
    /// What a vector-valued function returns; `None` for `f64` (or an
    /// alias of it), a scalar function.
    pub output: Option<Shape>,
}

/// The shape of a vector-valued function's output: `Vec`s, arrays and
/// tuples of `f64`, nested.
// One per function, alive for one expansion: size is no concern.
#[allow(clippy::large_enum_variant)]
pub enum Shape {
    Scalar,
    Array(Box<Shape>, syn::Expr),
    Vec(Box<Shape>),
    Tuple(Vec<Shape>),
}

impl Shape {
    /// The shape of a return type, or `None` for `f64` or anything that is
    /// not `Vec`s, arrays and tuples of `f64`.
    pub fn of_output(ty: &Type) -> Option<Shape> {
        match Shape::of(ty)? {
            Shape::Scalar => None,
            shape => Some(shape),
        }
    }

    fn of(ty: &Type) -> Option<Shape> {
        match ty {
            Type::Paren(paren) => Shape::of(&paren.elem),
            Type::Group(group) => Shape::of(&group.elem),
            Type::Path(path) if path.qself.is_none() => {
                let segment = path.path.segments.last()?;
                if path.path.segments.len() == 1 && segment.ident == "f64" {
                    return Some(Shape::Scalar);
                }
                if segment.ident != "Vec" {
                    return None;
                }
                let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                    return None;
                };
                match args.args.first() {
                    Some(syn::GenericArgument::Type(elem)) if args.args.len() == 1 => {
                        Some(Shape::Vec(Box::new(Shape::of(elem)?)))
                    }
                    _ => None,
                }
            }
            Type::Array(array) => Some(Shape::Array(
                Box::new(Shape::of(&array.elem)?),
                array.len.clone(),
            )),
            Type::Tuple(tuple) if !tuple.elems.is_empty() && tuple.elems.len() <= 6 => tuple
                .elems
                .iter()
                .map(Shape::of)
                .collect::<Option<Vec<_>>>()
                .map(Shape::Tuple),
            _ => None,
        }
    }
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

    /// Whether the shape has a model in it (`Mlp`, `[Layer; 2]`,
    /// `Vec<Mlp>`).
    pub fn holds_struct(&self) -> bool {
        match self {
            Kind::Struct { .. } => true,
            Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => elem.holds_struct(),
            Kind::Scalar | Kind::PassThrough => false,
        }
    }
}

/// Something the macro cannot differentiate, found while reading; `valid`
/// words the message.
pub struct Rejection {
    /// The user's tokens the error is spanned on.
    pub at: TokenStream,
    pub reason: Reason,
}

/// What was rejected.
pub enum Reason {
    /// `f32` anywhere: a type, a literal suffix, a cast, a path.
    F32,
    /// `#[constant(...)]`.
    ConstantArguments,
    /// A parameter that is a pattern, not a name.
    ParamPattern,
    /// `ref x: f64`, `x @ ..`.
    ParamBinding,
    /// A parameter type with no shape on the tape, as written.
    ParamType(String),
    /// `let ... else`.
    LetElse,
    /// An item other than `const` or `use` in the body.
    Item,
    /// `<<=` and the other compound operators with no recorded meaning.
    CompoundOperator(String),
    UnsafeBlock,
    AsyncBlock,
    /// The `?` operator.
    Try,
    /// Any other expression, as written.
    Expression(String),
    /// A known function called with the wrong number of arguments.
    Arity {
        name: String,
        args: usize,
    },
    /// An `f64` method the engine has no derivative rule for, as written
    /// (`tan` or `f64::tan`).
    NoRule(String),
    /// A method whose receiver is read twice (`sin_cos`) on a receiver
    /// that may do more than compute a value.
    BindFirst(&'static str),
    /// A call of something that is not a named function.
    CallOfExpression,
    /// A call by a bare name that a `use` inside the body may import
    /// (`Some(path)` for a glob's): which function it is cannot be seen.
    ImportedCallee(String, Option<String>),
    /// A macro other than `vec!`, by its path.
    Macro(String),
    /// `vec![...]` whose body does not parse.
    Syntax(syn::Error),
}

/// Where a node came from: a binding name or the source text, and the line.
#[derive(Clone)]
pub struct Label {
    pub text: String,
    pub line: u32,
}

pub struct Block<'a> {
    pub stmts: Vec<Stmt<'a>>,
}

/// A pattern and the names it binds (and, harmlessly, the enum variants
/// it names): `flow` tracks names, not scopes.
pub struct Pattern<'a> {
    pub syntax: &'a Pat,
    pub names: Vec<String>,
}

pub enum Stmt<'a> {
    Let {
        pat: Pattern<'a>,
        /// The pattern without an `f64` type annotation, for a binding that
        /// holds a `Scalar` on the tape.
        untyped: &'a Pat,
        /// The binding's name, when the pattern is one name.
        name: Option<String>,
        mutable: bool,
        init: Option<Expr<'a>>,
        /// `#[cfg]`, `#[allow]`, ...: carried to every twin's `let`.
        attrs: &'a [syn::Attribute],
    },
    /// `const` and `use` items: carried as written.
    Item(&'a syn::Item),
    Expr(Expr<'a>, Option<Token![;]>),
}

/// The syntax a node was read from: what the emitters print where no
/// tracked value reaches it.
#[derive(Clone, Copy)]
pub enum Source<'a> {
    Expr(&'a syn::Expr),
    /// A macro in statement position.
    Macro(&'a syn::Macro),
}

impl ToTokens for Source<'_> {
    fn to_tokens(&self, tokens: &mut TokenStream) {
        match self {
            Source::Expr(expr) => expr.to_tokens(tokens),
            Source::Macro(mac) => mac.to_tokens(tokens),
        }
    }
}

pub struct Expr<'a> {
    /// This node's index in the side tables of later passes.
    pub id: usize,
    /// The first token of the user's expression: rustc's own errors about
    /// generated calls land here.
    pub span: Span,
    pub source: Source<'a>,
    /// The binding that receives the value, if the expression is a `let`
    /// initialiser or an assigned value: the label of a constant it lifts.
    pub binding: Option<String>,
    pub kind: ExprKind<'a>,
}

/// The two-operand operations written as an operator or a method; the name
/// is the engine's (`ScalarOperation::as_str`) and the runtime function's.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Arith {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    /// `a.powf(b)`, `f64::max(a, b)`: a two-operand method of the table.
    Method(&'static str),
}

impl Arith {
    pub fn name(self) -> &'static str {
        match self {
            Arith::Add => "add",
            Arith::Sub => "sub",
            Arith::Mul => "mul",
            Arith::Div => "div",
            Arith::Rem => "rem",
            Arith::Method(name) => name,
        }
    }
}

pub enum ExprKind<'a> {
    Lit(&'a syn::Lit),
    /// `-1.0`, `-3`: a negative literal is a constant, not an operation.
    NegLit(&'a syn::ExprUnary),
    Path(&'a syn::ExprPath),
    /// `a + b`, `a.powf(b)`, `a.max(b)`, ...: one node when tracked.
    Binary {
        op: Arith,
        lhs: Box<Expr<'a>>,
        rhs: Box<Expr<'a>>,
        label: Label,
    },
    /// `-x`.
    Neg {
        operand: Box<Expr<'a>>,
        label: Label,
    },
    /// `x.exp()`, `relu(x)`, ...: one node when tracked; `func` is the
    /// runtime function's name.
    Elementary {
        func: &'static str,
        operand: Box<Expr<'a>>,
        label: Label,
    },
    /// `a.mul_add(b, c)`, `x.clamp(lo, hi)`: three operands, recorded as
    /// two nodes by the runtime function `func`.
    Ternary {
        func: &'static str,
        operands: [Box<Expr<'a>>; 3],
        label: Label,
    },
    /// `x.powi(n)`.
    Powi {
        base: Box<Expr<'a>>,
        exponent: Box<Expr<'a>>,
        label: Label,
    },
    /// `items.sum()`: one `add` node per item after the first.
    Sum {
        items: Box<Expr<'a>>,
        label: Label,
        /// `items.product()` rather than `items.sum()`.
        product: bool,
    },
    /// `<`, `==`, ...: compares primal values.
    Compare {
        op: syn::BinOp,
        lhs: Box<Expr<'a>>,
        rhs: Box<Expr<'a>>,
    },
    /// `&&`, `||` and the bit operators: plain Rust on plain values.
    Logic {
        op: syn::BinOp,
        lhs: Box<Expr<'a>>,
        rhs: Box<Expr<'a>>,
    },
    /// `!b`, `*r`.
    Prefix {
        op: syn::UnOp,
        operand: Box<Expr<'a>>,
    },
    /// A call of another `#[differentiable]` function: its `_tape` twin on
    /// the same tape.
    Call {
        func: &'a syn::Path,
        args: Vec<Expr<'a>>,
    },
    /// `Some(x)`, `Point(a, b)`, `Ok(v)`: a tuple struct or variant (a
    /// capitalised path) builds a value from its arguments as they are; so
    /// does a call of a closure bound by a `let` (`act(x)`).
    Construct {
        func: &'a syn::ExprPath,
        args: Vec<Expr<'a>>,
    },
    /// `assert!`, `println!`, `panic!`, ...: run as written, every tracked
    /// name it mentions (also inside a format string) read as its primal
    /// value, so each twin checks and prints the same numbers.
    PlainMacro {
        mac: &'a syn::Macro,
        /// Every identifier the macro mentions.
        names: Vec<String>,
        diverges: bool,
    },
    /// `|v| v * v`: its parameters are bindings like a `let`'s, its body an
    /// expression like any other.
    Closure {
        syntax: &'a syn::ExprClosure,
        inputs: Vec<Pattern<'a>>,
        body: Box<Expr<'a>>,
    },
    /// `dbg!(e)`: prints `e`'s value as the plain twin does and returns it.
    Dbg {
        mac: &'a syn::Macro,
        arg: Box<Expr<'a>>,
    },
    /// `f64::from(n)`, `usize::pow(2, k)`: plain functions of plain values;
    /// with `reads_primal`, a helper whose value the body uses as a count,
    /// an index or a condition (`lower::by_use`), called on the primal
    /// values of what it is given.
    PlainCall {
        func: &'a syn::ExprPath,
        args: Vec<Expr<'a>>,
        reads_primal: bool,
    },
    /// `x.len()`, `x.iter()`: moves or counts values, computes none.
    Structural {
        receiver: Box<Expr<'a>>,
        method: &'a Ident,
        turbofish: Option<&'a syn::AngleBracketedGenericArguments>,
        args: Vec<Expr<'a>>,
    },
    /// Any other method: allowed on plain values only, except the `f64`
    /// predicates (`is_finite`, ...), which read a tracked value's primal
    /// and return a `bool`, like a comparison, and a helper whose value the
    /// body uses as a count, an index or a condition (`self.dim()`, see
    /// `lower::by_use`), which reads primal values too.
    PlainMethod {
        receiver: Box<Expr<'a>>,
        method: &'a Ident,
        turbofish: Option<&'a syn::AngleBracketedGenericArguments>,
        args: Vec<Expr<'a>>,
        reads_primal: bool,
    },
    /// `e as T`: allowed on plain values only.
    Cast {
        expr: Box<Expr<'a>>,
        ty: &'a Type,
    },
    Index {
        base: Box<Expr<'a>>,
        index: Box<Expr<'a>>,
    },
    Field {
        base: Box<Expr<'a>>,
        member: &'a syn::Member,
    },
    Reference {
        mutability: Option<Token![mut]>,
        expr: Box<Expr<'a>>,
    },
    Paren(Box<Expr<'a>>),
    Tuple(Vec<Expr<'a>>),
    Array(Vec<Expr<'a>>),
    Repeat {
        elem: Box<Expr<'a>>,
        len: &'a syn::Expr,
    },
    VecList(Vec<Expr<'a>>),
    VecRepeat {
        elem: Box<Expr<'a>>,
        len: Box<Expr<'a>>,
    },
    Range {
        start: Option<Box<Expr<'a>>>,
        limits: syn::RangeLimits,
        end: Option<Box<Expr<'a>>>,
    },
    Block(Option<&'a syn::Label>, Block<'a>),
    If {
        cond: Box<Expr<'a>>,
        then_branch: Block<'a>,
        else_branch: Option<Box<Expr<'a>>>,
    },
    /// `let PAT = EXPR` in an `if` or `while` condition.
    Let {
        pat: Pattern<'a>,
        expr: Box<Expr<'a>>,
    },
    Match {
        scrutinee: Box<Expr<'a>>,
        arms: Vec<Arm<'a>>,
    },
    For {
        label: Option<&'a syn::Label>,
        pat: Pattern<'a>,
        iter: Box<Expr<'a>>,
        body: Block<'a>,
    },
    While {
        label: Option<&'a syn::Label>,
        cond: Box<Expr<'a>>,
        body: Block<'a>,
    },
    Loop {
        label: Option<&'a syn::Label>,
        body: Block<'a>,
    },
    Break {
        label: Option<&'a syn::Lifetime>,
        value: Option<Box<Expr<'a>>>,
    },
    Continue(Option<&'a syn::Lifetime>),
    Return(Option<Box<Expr<'a>>>),
    Assign {
        target: Box<Expr<'a>>,
        value: Box<Expr<'a>>,
    },
    /// `a += b` and friends: `a = a + b`, reading the old `a`.
    CompoundAssign {
        op: Arith,
        target: Box<Expr<'a>>,
        value: Box<Expr<'a>>,
        label: Label,
    },
    /// Something rejected (see `Function::rejected`).
    Invalid,
}

pub struct Arm<'a> {
    pub pat: Pattern<'a>,
    pub guard: Option<Expr<'a>>,
    pub body: Expr<'a>,
}

/// A direct sub-expression or sub-block.
pub enum Child<'m, 'a> {
    Expr(&'m Expr<'a>),
    Block(&'m Block<'a>),
}

/// A direct sub-expression or sub-block, to change.
pub enum ChildMut<'m, 'a> {
    Expr(&'m mut Expr<'a>),
    Block(&'m mut Block<'a>),
}

/// The direct sub-expressions and sub-blocks of an `ExprKind`, in source
/// order, for [`Expr::children`] and [`Expr::children_mut`] alike: `$kind`
/// is borrowed shared or mutably, `$expr` and `$block` take each child.
macro_rules! for_each_child {
    ($kind:expr, $expr:expr, $block:expr) => {
        match $kind {
            ExprKind::Lit(_)
            | ExprKind::NegLit(_)
            | ExprKind::Path(_)
            | ExprKind::Continue(_)
            | ExprKind::PlainMacro { .. }
            | ExprKind::Invalid => {}
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::Compare { lhs, rhs, .. }
            | ExprKind::Logic { lhs, rhs, .. } => {
                $expr(lhs);
                $expr(rhs);
            }
            ExprKind::Neg { operand, .. }
            | ExprKind::Elementary { operand, .. }
            | ExprKind::Prefix { operand, .. } => $expr(operand),
            ExprKind::Powi { base, exponent, .. } => {
                $expr(base);
                $expr(exponent);
            }
            ExprKind::Sum { items, .. } => $expr(items),
            ExprKind::Ternary { operands, .. } => {
                for operand in operands {
                    $expr(operand);
                }
            }
            ExprKind::Dbg { arg, .. } | ExprKind::Closure { body: arg, .. } => $expr(arg),
            ExprKind::Call { args, .. }
            | ExprKind::PlainCall { args, .. }
            | ExprKind::Construct { args, .. }
            | ExprKind::Tuple(args)
            | ExprKind::Array(args)
            | ExprKind::VecList(args) => {
                for arg in args {
                    $expr(arg);
                }
            }
            ExprKind::Structural { receiver, args, .. }
            | ExprKind::PlainMethod { receiver, args, .. } => {
                $expr(receiver);
                for arg in args {
                    $expr(arg);
                }
            }
            ExprKind::Cast { expr: inner, .. }
            | ExprKind::Field { base: inner, .. }
            | ExprKind::Reference { expr: inner, .. }
            | ExprKind::Paren(inner)
            | ExprKind::Repeat { elem: inner, .. } => $expr(inner),
            ExprKind::Index { base, index } => {
                $expr(base);
                $expr(index);
            }
            ExprKind::VecRepeat { elem, len } => {
                $expr(elem);
                $expr(len);
            }
            ExprKind::Range { start, end, .. } => {
                if let Some(start) = start {
                    $expr(start);
                }
                if let Some(end) = end {
                    $expr(end);
                }
            }
            ExprKind::Block(_, inner) | ExprKind::Loop { body: inner, .. } => $block(inner),
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                $expr(cond);
                $block(then_branch);
                if let Some(other) = else_branch {
                    $expr(other);
                }
            }
            ExprKind::Let { expr: inner, .. } => $expr(inner),
            ExprKind::Match { scrutinee, arms } => {
                $expr(scrutinee);
                for Arm { guard, body, .. } in arms {
                    if let Some(guard) = guard {
                        $expr(guard);
                    }
                    $expr(body);
                }
            }
            ExprKind::For { iter, body, .. }
            | ExprKind::While {
                cond: iter, body, ..
            } => {
                $expr(iter);
                $block(body);
            }
            ExprKind::Break { value, .. } | ExprKind::Return(value) => {
                if let Some(value) = value {
                    $expr(value);
                }
            }
            ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
                $expr(target);
                $expr(value);
            }
        }
    };
}

impl<'a> Expr<'a> {
    /// Every direct sub-expression and sub-block, in source order.
    pub fn children<'m>(&'m self) -> Vec<Child<'m, 'a>> {
        let mut out = Vec::new();
        let cell = std::cell::RefCell::new(&mut out);
        for_each_child!(
            &self.kind,
            |expr: &'m Expr<'a>| cell.borrow_mut().push(Child::Expr(expr)),
            |block: &'m Block<'a>| cell.borrow_mut().push(Child::Block(block))
        );
        out
    }

    /// [`Expr::children`], to change: for the passes that rewrite the
    /// model after lowering (`lower::by_use`).
    pub fn children_mut<'m>(&'m mut self) -> Vec<ChildMut<'m, 'a>> {
        let mut out = Vec::new();
        let cell = std::cell::RefCell::new(&mut out);
        for_each_child!(
            &mut self.kind,
            |expr: &'m mut Expr<'a>| cell.borrow_mut().push(ChildMut::Expr(expr)),
            |block: &'m mut Block<'a>| cell.borrow_mut().push(ChildMut::Block(block))
        );
        out
    }

    /// An integer literal stays as it is: lifting it would leave rustc
    /// unable to infer its integer type from later uses.
    pub fn is_int_literal(&self) -> bool {
        match &self.kind {
            ExprKind::Lit(lit) => matches!(lit, syn::Lit::Int(_) | syn::Lit::Bool(_)),
            ExprKind::NegLit(unary) => {
                matches!(&*unary.expr, syn::Expr::Lit(lit) if matches!(lit.lit, syn::Lit::Int(_)))
            }
            ExprKind::Paren(inner) => inner.is_int_literal(),
            _ => false,
        }
    }

    /// The expression inside any parentheses (`((x))` is `x`).
    pub fn unparenthesised(&self) -> &Self {
        match &self.kind {
            ExprKind::Paren(inner) => inner.unparenthesised(),
            _ => self,
        }
    }

    /// `Vec::new()`, `Vec::with_capacity(n)`, `vec![]`: the element type
    /// comes from later pushes, which are lifted; lifting the empty vector
    /// itself would leave rustc nothing to infer it from.
    pub fn is_empty_vec(&self) -> bool {
        match &self.kind {
            ExprKind::VecList(items) => items.is_empty(),
            ExprKind::PlainCall { func, .. } => {
                let names: Vec<String> = crate::text::segments(&func.path);
                names.len() == 2
                    && names[0] == "Vec"
                    && (names[1] == "new" || names[1] == "with_capacity")
            }
            ExprKind::Call { func, .. } => {
                let names = crate::text::segments(func);
                names.len() == 2
                    && names[0] == "Vec"
                    && (names[1] == "new" || names[1] == "with_capacity")
            }
            _ => false,
        }
    }

    /// Whether the expression never produces a value (`return`, `break`,
    /// `continue`, a `loop` with no `break`): nothing to lift.
    pub fn diverges(&self) -> bool {
        match &self.kind {
            ExprKind::Return(_)
            | ExprKind::Break { .. }
            | ExprKind::Continue(_)
            | ExprKind::PlainMacro { diverges: true, .. } => true,
            // Left only by `return` (or a jump to an outer loop): no value.
            ExprKind::Loop { body, .. } => {
                !body.any_expr(&|expr| matches!(expr.kind, ExprKind::Break { .. }))
            }
            _ => false,
        }
    }
}

/// Calls `visit` on every statement of `stmts` and of the blocks inside
/// them, outer before inner, in source order.
pub fn each_stmt<'m, 'a>(stmts: &'m [Stmt<'a>], visit: &mut dyn FnMut(&'m Stmt<'a>)) {
    fn in_expr<'m, 'a>(expr: &'m Expr<'a>, visit: &mut dyn FnMut(&'m Stmt<'a>)) {
        for child in expr.children() {
            match child {
                Child::Expr(child) => in_expr(child, visit),
                Child::Block(block) => each_stmt(&block.stmts, visit),
            }
        }
    }
    for stmt in stmts {
        visit(stmt);
        if let Stmt::Let {
            init: Some(expr), ..
        }
        | Stmt::Expr(expr, _) = stmt
        {
            in_expr(expr, visit);
        }
    }
}

impl<'a> Block<'a> {
    /// The statements and the tail expression (the last statement when it
    /// has no semicolon).
    pub fn split_tail(&self) -> (&[Stmt<'a>], Option<&Expr<'a>>) {
        match self.stmts.split_last() {
            Some((Stmt::Expr(tail, None), stmts)) => (stmts, Some(tail)),
            _ => (&self.stmts, None),
        }
    }

    /// Whether any expression in the block, at any depth (nested items
    /// aside), satisfies `found`.
    pub fn any_expr(&self, found: &impl Fn(&Expr<'a>) -> bool) -> bool {
        self.stmts.iter().any(|stmt| stmt.any_expr(found))
    }
}

impl<'a> Stmt<'a> {
    /// Whether any expression of the statement (a `let`'s value, the
    /// statement's expression), at any depth (nested items aside),
    /// satisfies `found`.
    pub fn any_expr(&self, found: &impl Fn(&Expr<'a>) -> bool) -> bool {
        match self {
            Stmt::Let { init, .. } => init.as_ref().is_some_and(|init| init.any_expr(found)),
            Stmt::Item(_) => false,
            Stmt::Expr(expr, _) => expr.any_expr(found),
        }
    }
}

impl<'a> Expr<'a> {
    /// `std::mem::swap(&mut a, &mut b)` (or `core::mem::swap`,
    /// `mem::swap`): the two places it swaps (`a`, `b`), which take each
    /// other's values, tracked or not.
    pub fn swapped<'m>(&'m self) -> Option<(&'m Expr<'a>, &'m Expr<'a>)> {
        let ExprKind::PlainCall { func, args, .. } = &self.kind else {
            return None;
        };
        let path: Vec<String> = crate::text::segments(&func.path);
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        if !matches!(
            path.as_slice(),
            ["std" | "core", "mem", "swap"] | ["mem", "swap"]
        ) {
            return None;
        }
        let place = |arg: &'m Expr<'a>| match &arg.kind {
            ExprKind::Reference {
                mutability: Some(_),
                expr,
            } => Some(&**expr),
            _ => None,
        };
        match args.as_slice() {
            [a, b] => Some((place(a)?, place(b)?)),
            _ => None,
        }
    }

    /// Whether this expression or one inside it satisfies `found`.
    pub fn any_expr(&self, found: &impl Fn(&Expr<'a>) -> bool) -> bool {
        found(self)
            || self.children().into_iter().any(|child| match child {
                Child::Expr(inner) => inner.any_expr(found),
                Child::Block(block) => block.any_expr(found),
            })
    }
}

impl Expr<'_> {
    /// `Act::Relu`: a path to an enum's variant (a type, then a
    /// `CamelCase` name; `f64::INFINITY` and `consts::PI` are constants),
    /// which no number equals: what it is compared with is no number
    /// either (`self.act == Act::Relu` of a model's `#[constant]` field).
    pub fn is_variant(&self) -> bool {
        let ExprKind::Path(path) = &self.unparenthesised().kind else {
            return false;
        };
        let segments = &path.path.segments;
        segments.len() >= 2 && segments.last().is_some_and(|last| camel_case(&last.ident))
    }
}

/// Whether a `match`'s arms tell its scrutinee's enum variants apart
/// (`Act::Relu => ..`, `Act::Scaled(_) => ..`, `_ => ..`) and bind no name:
/// it is no number, and nothing it holds reaches the arms. (`Some(v)` of
/// an `Option` of a tracked value binds one, which the sweeps follow.)
pub fn matches_variants(arms: &[Arm]) -> bool {
    let variant = |pat: &Pat| match pat {
        Pat::Path(path) => Some(
            path.path
                .segments
                .last()
                .is_some_and(|last| camel_case(&last.ident)),
        ),
        Pat::TupleStruct(_) | Pat::Struct(_) => Some(true),
        // A name takes anything.
        Pat::Ident(ident) if ident.subpat.is_none() && !camel_case(&ident.ident) => None,
        _ => Some(false),
    };
    arms_tell_variants(arms, &variant)
        && arms.iter().all(|arm| {
            arm.pat.names.iter().all(|name| {
                // A variant's path (`Act`, `Relu`) and `_` bind nothing.
                name == "_" || name.starts_with(|c: char| c.is_ascii_uppercase())
            })
        })
}

/// Whether `scrutinee` is a model's field (`self.act`, `self.layers[k]
/// .act`) and the arms tell apart an enum's variants by their paths
/// (`Act::Leaky(a) => ..`, `Act::Relu => ..`, `_ => ..`), binding names
/// only inside a variant: a model's enum field is `#[constant]` (an enum
/// is no `Parameters`), so what the arms bind is a constant too.
pub fn matches_a_models_enum(scrutinee: &Expr, arms: &[Arm]) -> bool {
    let ExprKind::Field {
        member: syn::Member::Named(_),
        ..
    } = &scrutinee.unparenthesised().kind
    else {
        return false;
    };
    // `Type::Variant`, never a struct's own name (`Inner(w)`, `Inner { w }`
    // of a model's part binds its tracked numbers).
    fn qualified(path: &syn::Path) -> bool {
        let segments = &path.segments;
        segments.len() >= 2
            && camel_case(&segments[segments.len() - 2].ident)
            && segments.last().is_some_and(|last| camel_case(&last.ident))
    }
    let variant = |pat: &Pat| match pat {
        Pat::Path(path) => Some(qualified(&path.path)),
        Pat::TupleStruct(tuple) => Some(qualified(&tuple.path)),
        Pat::Struct(fields) => Some(qualified(&fields.path)),
        _ => Some(false),
    };
    arms_tell_variants(arms, &variant)
}

/// Whether some arm's pattern is a variant and none is anything but a
/// variant or `_`, by `variant` (`Some(true)` a variant, `None` a pattern
/// that takes anything), through `|` (every case one or the other, one a
/// variant) and parentheses.
fn arms_tell_variants(arms: &[Arm], variant: &dyn Fn(&Pat) -> Option<bool>) -> bool {
    fn kind(pat: &Pat, variant: &dyn Fn(&Pat) -> Option<bool>) -> Option<bool> {
        match pat {
            Pat::Or(or) => {
                let cases: Vec<Option<bool>> =
                    or.cases.iter().map(|case| kind(case, variant)).collect();
                if cases.contains(&Some(false)) {
                    Some(false)
                } else if cases.contains(&Some(true)) {
                    Some(true)
                } else {
                    None
                }
            }
            Pat::Paren(paren) => kind(&paren.pat, variant),
            Pat::Wild(_) => None,
            pat => variant(pat),
        }
    }
    let kinds: Vec<Option<bool>> = arms
        .iter()
        .map(|arm| kind(arm.pat.syntax, variant))
        .collect();
    kinds.contains(&Some(true)) && !kinds.contains(&Some(false))
}

/// `Relu`, not `RELU` (a constant) or `relu`.
fn camel_case(ident: &Ident) -> bool {
    let name = ident.to_string();
    name.starts_with(|c: char| c.is_ascii_uppercase()) && name.chars().any(|c| c.is_lowercase())
}

/// A pattern's first identifier, through `mut`, a type, a reference or a
/// tuple, with its own span.
pub fn first_ident(pat: &syn::Pat) -> Option<Ident> {
    match pat {
        syn::Pat::Ident(ident) => Some(ident.ident.clone()),
        syn::Pat::Type(typed) => first_ident(&typed.pat),
        syn::Pat::Reference(reference) => first_ident(&reference.pat),
        syn::Pat::Paren(paren) => first_ident(&paren.pat),
        syn::Pat::Tuple(tuple) => tuple.elems.iter().find_map(first_ident),
        _ => None,
    }
}

/// Whether `op` assigns (`+=`, `-=`, `*=`, `/=`, `%=`, `^=`, `&=`, `|=`,
/// `<<=`, `>>=`): a binary expression that writes its left operand.
pub fn is_compound_assignment(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

impl Function<'_> {
    /// The names the function binds more than once (by parameters, `let`s,
    /// loops', arms' and closures' patterns): those the compiled adjoint
    /// renames (`shadows`), and those whose uses `lower::by_use` reads up
    /// to their next binding only.
    pub fn bound_again(&self) -> std::collections::HashSet<String> {
        fn block(block: &Block, names: &mut Vec<String>) {
            for stmt in &block.stmts {
                match stmt {
                    Stmt::Let { pat, init, .. } => {
                        names.extend(pat.names.iter().cloned());
                        if let Some(init) = init {
                            expr(init, names);
                        }
                    }
                    Stmt::Expr(inner, _) => expr(inner, names),
                    Stmt::Item(_) => {}
                }
            }
        }
        fn expr(inner: &Expr, names: &mut Vec<String>) {
            match &inner.kind {
                ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } => {
                    names.extend(pat.names.iter().cloned())
                }
                ExprKind::Match { arms, .. } => {
                    for arm in arms {
                        names.extend(arm.pat.names.iter().cloned());
                    }
                }
                ExprKind::Closure { inputs, .. } => {
                    for input in inputs {
                        names.extend(input.names.iter().cloned());
                    }
                }
                _ => {}
            }
            for child in inner.children() {
                match child {
                    Child::Expr(child) => expr(child, names),
                    Child::Block(inner) => block(inner, names),
                }
            }
        }
        let mut names: Vec<String> = self
            .params
            .iter()
            .map(|param| param.ident.to_string())
            .collect();
        block(&self.body, &mut names);
        // Variants and types in patterns (`Some`) are not bindings.
        names.retain(|name| !name.starts_with(|c: char| c.is_ascii_uppercase()));
        let mut seen = std::collections::HashSet::new();
        names
            .into_iter()
            .filter(|name| !seen.insert(name.clone()))
            .collect()
    }
}
