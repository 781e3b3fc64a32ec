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
//!
//! The model is cut in four rooms:
//!
//! - `params`: what a parameter is on the tape (`Param`, `Kind`) and the
//!   shape of a vector-valued function's output (`Shape`).
//! - `tree`: the body's tree, `Block`, `Stmt` and `Expr` with its
//!   `ExprKind`, and their parts (`Arith`, `Label`, `Pattern`, `Arm`,
//!   `Source`).
//! - `walk`: visiting that tree (`Child`, `Expr::children`, `each_stmt`,
//!   `any_expr`), what an expression is at a glance, and the names a
//!   function binds more than once (`Function::bound_again`).
//! - `patterns`: what a pattern or an operator says (`match` arms that tell
//!   an enum's variants apart, a pattern's first name, a compound
//!   assignment).

mod params;
mod patterns;
mod tree;
mod walk;

pub use params::{Kind, Param, Shape};
pub use patterns::{first_ident, is_compound_assignment, matches_a_models_enum, matches_variants};
pub use tree::{Arith, Arm, Block, Expr, ExprKind, Label, Pattern, Source, Stmt};
pub use walk::{each_stmt, Child, ChildMut};

use proc_macro2::TokenStream;
use syn::ItemFn;

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
