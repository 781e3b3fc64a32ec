//! The body's tree: blocks and statements, and the expression nodes with
//! their labels, each an operation, control flow or plain Rust carried along.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::{Ident, Pat, Token, Type};

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
