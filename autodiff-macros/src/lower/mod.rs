//! Reads the annotated function into the model (`ast`): parameters by the
//! shape they have on the tape, the body as a tree of operations, control
//! flow and plain Rust, each node with its label.
//!
//! Reading never stops at a mistake: an unsupported construct becomes an
//! `Invalid` node and a [`Rejection`] on the user's token, and reading goes
//! on, so that `valid` reports every mistake in the same build.
//!
//! This file holds the entry point, the state of a reading and the node
//! helpers every part uses; `params` reads the parameters and their types'
//! shapes, `statements` statements, blocks and the patterns they bind,
//! `expressions` one expression and its operators, and `calls` method
//! calls, function calls and macros. `by_use`, a pass over the finished
//! model, reads a call whose value is used as a count, an index or a
//! condition as a plain helper's.

mod by_use;
mod calls;
mod expressions;
mod imports;
pub(crate) mod params;
mod statements;

use std::cell::{Cell, OnceCell, RefCell};

use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::{ItemFn, Token};

use crate::ast::{Expr, ExprKind, Function, Label, Reason, Rejection, Source};
use crate::text;

pub use params::is_plain_type;

/// `expr` without the parentheses (and a macro's invisible groups) around
/// it: `((a))` is `a`.
pub fn unparen(expr: &syn::Expr) -> &syn::Expr {
    match expr {
        syn::Expr::Paren(paren) if paren.attrs.is_empty() => unparen(&paren.expr),
        syn::Expr::Group(group) if group.attrs.is_empty() => unparen(&group.expr),
        other => other,
    }
}

/// Every identifier a pattern binds (and, harmlessly, the paths in it), as
/// the model's `Pattern::names` reads them.
pub fn pattern_names(pat: &syn::Pat) -> Vec<String> {
    statements::pattern(pat).names
}

/// Reads `item`; `macros` keeps the parsed bodies of its `vec!` macros,
/// which the model borrows like the rest of the syntax.
pub fn function<'a>(item: &'a ItemFn, macros: &'a MacroBodies) -> Function<'a> {
    let lower = Lower {
        macros,
        rejected: RefCell::new(Vec::new()),
        next_id: Cell::new(0),
        closures: RefCell::new(Vec::new()),
        texts: text::Memo::default(),
        imports: imports::Imports::of(&item.block),
    };
    let params = lower.params(item);
    let body = lower.block(&item.block);
    let mut function = Function {
        item,
        written: item,
        params,
        body,
        rejected: lower.rejected.into_inner(),
        exprs: lower.next_id.get(),
        output: match &item.sig.output {
            syn::ReturnType::Type(_, ty) => crate::ast::Shape::of_output(ty),
            syn::ReturnType::Default => None,
        },
    };
    by_use::apply(&mut function);
    function
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
    /// The names `use` items inside the body import.
    imports: imports::Imports,
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

    fn invalid(&self, at: impl ToTokens, reason: Reason) -> ExprKind<'a> {
        self.reject(at, reason);
        ExprKind::Invalid
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
}
