//! A vector-valued call read in place, bound first: the adjoint reads
//! `-softmax(&z)[k].ln()` as `let softmax_out = softmax(&z);
//! -softmax_out[k].ln()`, and `let (a, b) = pair(x);` as `let pair_out =
//! pair(x); let a = pair_out.0; let b = pair_out.1;` (an array pattern
//! `let [u, v] = project(cam, p);` by `project_out[0]`, `project_out[1]`),
//! and `total(layer(x))` as `let layer_out = layer(x); total(layer_out)`,
//! and `h = layer(&h);` of a vector `h` as `let layer_out = layer(&h); h =
//! layer_out;`; an array literal iterated where it is written, the same
//! way: `[x, y].iter().map(|v| v * v).sum::<f64>()` as `let array_out =
//! [x, y]; array_out.iter()..`, and `for v in [a, b]` as a `for` over
//! `array_out`, a local array.
//! A call bound by a `let` is what the sweeps take as a vector at the top
//! level, in a loop or in a branch (`analysis::calls`, `sweep::sites`):
//! its cotangent is the binding's adjoint, zero but where the body read
//! an element or a field.
//!
//! The `let` goes just before the statement whose evaluation runs the call
//! exactly once, every time the statement runs: the call must sit where
//! the statement evaluates it unconditionally (an operand, an index, a
//! method's receiver or argument, an `if`'s first condition, a `for`'s
//! iterator), not under `&&`/`||`, an `else if`'s condition, a `while`'s
//! condition, a closure or a block inside the expression. The
//! statements of the blocks a statement holds (a branch, a loop's body)
//! are rewritten as blocks of their own. Arguments are evaluated before
//! the rest of the statement either way: a call's arguments are values
//! the statement reads, and nothing in an expression the rewrite moves
//! past writes (an assignment, a block or a closure, which could, stop
//! the rewrite for that call). A call left in place is refused as before.

use std::collections::HashSet;

use quote::ToTokens;

use crate::ast::{Block, Child, Expr, ExprKind, Function, Source, Stmt};

/// `function`'s item with its calls read in place bound first, or `None`
/// if it has none.
pub fn bind(function: &Function) -> Option<syn::ItemFn> {
    let models = crate::emit::model_params(function);
    let mut found = Targets {
        vectors: vectors(function),
        depths: depths(function),
        ..Targets::default()
    };
    found.block(&function.body, &models);
    if found.calls.is_empty() && found.patterns.is_empty() {
        return None;
    }
    // The same search on a copy, whose nodes the rewrite then finds by
    // address: the model only borrows the copy, and the rewrite moves
    // nothing before it has visited it (see `Binder::block`).
    let mut item = function.item.clone();
    let (calls, patterns) = {
        let macros = crate::lower::MacroBodies::default();
        let model = crate::lower::function(&item, &macros);
        let mut found = Targets {
            vectors: vectors(&model),
            depths: depths(&model),
            ..Targets::default()
        };
        found.block(&model.body, &models);
        (found.calls, found.patterns)
    };
    let mut idents = HashSet::new();
    crate::text::identifiers(item.to_token_stream(), &mut idents);
    let mut binder = Binder {
        calls,
        patterns,
        idents,
        changed: false,
    };
    binder.block(&mut item.block);
    binder.changed.then_some(item)
}

/// The syntax nodes (by address) of the calls read in place, and of the
/// calls a tuple or array pattern binds.
#[derive(Default)]
struct Targets {
    calls: HashSet<usize>,
    patterns: HashSet<usize>,
    /// The bindings the body shows to be vectors (indexed, iterated,
    /// borrowed): a call assigned to one whole is bound first.
    vectors: HashSet<String>,
    /// How deep the body indexes each name it assigns an indexed place
    /// of: `m[1] = twice(x);` beside `m[1][0]` assigns a row, a vector.
    depths: std::collections::HashMap<String, usize>,
}

/// The names `function` assigns whole (`h = ..;`) that its body indexes,
/// iterates or borrows: vectors (see `analysis::calls`).
fn vectors(function: &Function) -> HashSet<String> {
    let names = super::analysis::assigned_whole(&function.body);
    let stmts = &function.body.stmts;
    names
        .into_iter()
        .filter(|name| {
            super::analysis::calls::index_depth(stmts, name) > 0
                || super::analysis::calls::used_whole(stmts, name)
                || tuple_fields_read(&function.body, name)
        })
        .collect()
}

/// Whether the body reads a field of the tuple `name` (`state.0[i]`,
/// `&state.1`): an LSTM's state kept as a pair, `state = cell(.., &state.0,
/// &state.1, ..);`, is a tuple a call assigns whole.
/// Only a state bound by a `let` of the body's own block (a pair bound
/// inside a loop's branch and assigned there, seed 20602 g13_6, gave an
/// adjoint that did not build).
fn tuple_fields_read(body: &Block, name: &str) -> bool {
    let top_level = body
        .stmts
        .iter()
        .any(|stmt| matches!(stmt, Stmt::Let { name: Some(bound), .. } if bound == name));
    top_level
        && body.any_expr(&|expr| match &expr.kind {
            ExprKind::Field {
                base,
                member: syn::Member::Unnamed(_),
            } => matches!(&base.kind, ExprKind::Path(path)
            if path.path.get_ident().is_some_and(|ident| ident == name)),
            _ => false,
        })
}

/// How deep the body indexes each name whose indexed place it assigns.
fn depths(function: &Function) -> std::collections::HashMap<String, usize> {
    let bases = std::cell::RefCell::new(HashSet::new());
    function.body.any_expr(&|expr| {
        if let ExprKind::Assign { target, .. } = &expr.kind {
            if let Some((base, _)) = super::analysis::calls::row_of(target, 0) {
                bases.borrow_mut().insert(base);
            }
        }
        false
    });
    let stmts = &function.body.stmts;
    bases
        .into_inner()
        .into_iter()
        .map(|base| {
            let depth = super::analysis::calls::index_depth(stmts, &base);
            (base, depth)
        })
        .collect()
}

fn address(expr: &Expr) -> Option<usize> {
    match expr.source {
        Source::Expr(syntax) => Some(syntax as *const syn::Expr as usize),
        Source::Macro(_) => None,
    }
}

impl Targets {
    fn block(&mut self, block: &Block, models: &[String]) {
        for stmt in &block.stmts {
            match stmt {
                Stmt::Let {
                    name: None,
                    init: Some(init),
                    ..
                } => {
                    if crate::emit::is_annotated_call(init, models) {
                        if let Some(address) = address(init.unparenthesised()) {
                            self.patterns.insert(address);
                        }
                    }
                    self.expr(init, models);
                }
                Stmt::Let {
                    init: Some(init), ..
                }
                | Stmt::Expr(init, _) => self.expr(init, models),
                _ => {}
            }
        }
    }

    fn expr(&mut self, expr: &Expr, models: &[String]) {
        let base = match &expr.kind {
            ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => Some(base),
            ExprKind::Structural { receiver, .. } | ExprKind::PlainMethod { receiver, .. } => {
                Some(receiver)
            }
            ExprKind::Reference { expr: inner, .. } => Some(inner),
            ExprKind::For { iter, .. } => Some(iter),
            _ => None,
        };
        if let Some(base) = base {
            let call = base.unparenthesised();
            if crate::emit::is_annotated_call(call, models) {
                if let Some(address) = address(call) {
                    self.calls.insert(address);
                }
            }
        }
        // An array literal of values iterated where it is written (`[x,
        // y, z].iter().map(|v| v * v).sum::<f64>()`, `for v in [a, b]`):
        // bound first, it is a local array, which the sweeps walk. Not one
        // of literals only (`for i in [0, 2]`) or of rows, which the
        // sweeps do not walk bound either: its refusal names it as
        // written.
        let iterated = match &expr.kind {
            ExprKind::For { iter, .. } => Some(iter),
            ExprKind::Structural {
                receiver, method, ..
            } if *method == "iter" || *method == "into_iter" => Some(receiver),
            _ => None,
        };
        if let Some(iterated) = iterated {
            let array = iterated.unparenthesised();
            let values = matches!(&array.kind, ExprKind::Array(items)
                if items.iter().any(|item| !matches!(item.kind, ExprKind::Lit(_) | ExprKind::NegLit(_)))
                    && !items.iter().any(|item| matches!(item.unparenthesised().kind,
                        ExprKind::Array(_) | ExprKind::Repeat { .. })));
            if values {
                if let Some(address) = address(array) {
                    self.calls.insert(address);
                }
            }
        }
        // A call assigned whole to a vector (`h = layer.forward(&h);`, the
        // layer loop): bound first, its value is assigned as it is.
        if let ExprKind::Assign { target, value } = &expr.kind {
            let call = value.unparenthesised();
            let vector = matches!(&target.kind, ExprKind::Path(path)
                if path.path.get_ident().is_some_and(|ident| self.vectors.contains(&ident.to_string())))
                || super::analysis::calls::row_of(target, 0).is_some_and(|(base, indices)| {
                    self.depths.get(&base).is_some_and(|depth| *depth > indices)
                });
            if vector && crate::emit::is_annotated_call(call, models) {
                if let Some(address) = address(call) {
                    self.calls.insert(address);
                }
            }
        }
        // A call passed by value to another (`total(layer(x))`): bound
        // first, its value is passed on as it is, a number or a vector
        // (`analysis::calls`).
        if let ExprKind::Call { args, .. } = &expr.kind {
            for arg in args {
                let call = arg.unparenthesised();
                if matches!(call.kind, ExprKind::Call { .. }) {
                    if let Some(address) = address(call) {
                        self.calls.insert(address);
                    }
                }
            }
        }
        for child in expr.children() {
            match child {
                Child::Expr(child) => self.expr(child, models),
                Child::Block(block) => self.block(block, models),
            }
        }
    }
}

struct Binder {
    calls: HashSet<usize>,
    patterns: HashSet<usize>,
    /// Every identifier of the function: a new binding shadows none.
    idents: HashSet<String>,
    changed: bool,
}

impl Binder {
    /// Rewrites `block`: each statement's calls bound before it, its
    /// nested blocks rewritten, a pattern bound to a call split. Nodes are
    /// found by address, so the statements are rewritten in place and
    /// spliced only once all have been visited.
    fn block(&mut self, block: &mut syn::Block) {
        let mut rewritten: Vec<(usize, Vec<syn::Stmt>, Option<Vec<syn::Stmt>>)> = Vec::new();
        for (index, stmt) in block.stmts.iter_mut().enumerate() {
            let mut lets = Vec::new();
            let hoist = if may_write(stmt) {
                // Only the call the statement evaluates first, before
                // anything in it that may write or leave runs
                // (`layer(w, x).iter().map(|v| v.tanh()).sum()`).
                Binder::hoist_head
            } else {
                Binder::hoist
            };
            match stmt {
                syn::Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        if init.diverge.is_none() {
                            hoist(self, &mut init.expr, &mut lets);
                        }
                    }
                }
                syn::Stmt::Expr(expr, _) => hoist(self, expr, &mut lets),
                _ => {}
            }
            crate::blocks::of_stmt(stmt, &mut |inner| self.block(inner));
            let split = match stmt {
                syn::Stmt::Local(local) => self.split(local),
                _ => None,
            };
            if !lets.is_empty() || split.is_some() {
                rewritten.push((index, lets, split));
            }
        }
        if rewritten.is_empty() {
            return;
        }
        self.changed = true;
        let stmts = std::mem::take(&mut block.stmts);
        let mut rewritten = rewritten.into_iter().peekable();
        for (index, stmt) in stmts.into_iter().enumerate() {
            match rewritten.next_if(|(at, _, _)| *at == index) {
                Some((_, lets, split)) => {
                    block.stmts.extend(lets);
                    match split {
                        Some(split) => block.stmts.extend(split),
                        None => block.stmts.push(stmt),
                    }
                }
                None => block.stmts.push(stmt),
            }
        }
    }

    /// Binds the calls read in place that `expr` evaluates exactly once
    /// when it runs, innermost first, each by a `let` pushed to `lets`.
    /// [`hoist`](Self::hoist) of the call a statement's expression
    /// evaluates first: a method chain's receiver, a field's or an index's
    /// base, a binary operation's left operand, an assignment's value.
    fn hoist_head(&mut self, expr: &mut syn::Expr, lets: &mut Vec<syn::Stmt>) {
        use syn::Expr as E;
        match expr {
            // A method called on a binding (`w.push(mul2(w[i - 1],
            // diag2(x[i])))`) runs once its arguments are evaluated: calls
            // in arguments that write nothing are bound first, as in a
            // statement that writes nothing.
            E::MethodCall(call) => {
                if matches!(&*call.receiver, E::Path(_))
                    && call.args.iter().all(|arg| !writes(arg.to_token_stream()))
                {
                    for arg in call.args.iter_mut() {
                        self.hoist(arg, lets);
                    }
                }
                self.hoist_head(&mut call.receiver, lets)
            }
            E::Field(field) => self.hoist_head(&mut field.base, lets),
            E::Index(index) => self.hoist_head(&mut index.expr, lets),
            E::Binary(binary) if crate::ast::is_compound_assignment(&binary.op) => {
                self.hoist_head(&mut binary.right, lets)
            }
            // A left operand that writes nothing and cannot leave runs
            // before the right one, whose head comes next (`0.1 *
            // layer(x).iter().map(|v| v.tanh()).sum()`); `&&` and `||`
            // may not run their right operand at all.
            E::Binary(binary)
                if !matches!(binary.op, syn::BinOp::And(_) | syn::BinOp::Or(_))
                    && !writes(binary.left.to_token_stream()) =>
            {
                self.hoist(&mut binary.left, lets);
                self.hoist_head(&mut binary.right, lets)
            }
            E::Binary(binary) => self.hoist_head(&mut binary.left, lets),
            E::Unary(unary) => self.hoist_head(&mut unary.expr, lets),
            E::Paren(paren) => self.hoist_head(&mut paren.expr, lets),
            E::Reference(reference) => self.hoist_head(&mut reference.expr, lets),
            E::Cast(cast) => self.hoist_head(&mut cast.expr, lets),
            E::Assign(assign) => self.hoist_head(&mut assign.right, lets),
            E::Return(ret) => {
                if let Some(value) = &mut ret.expr {
                    self.hoist_head(value, lets);
                }
            }
            _ => {}
        }
        self.bind_call(expr, lets);
    }

    fn hoist(&mut self, expr: &mut syn::Expr, lets: &mut Vec<syn::Stmt>) {
        use syn::Expr as E;
        match expr {
            E::Binary(binary) => {
                self.hoist(&mut binary.left, lets);
                if !matches!(binary.op, syn::BinOp::And(_) | syn::BinOp::Or(_)) {
                    self.hoist(&mut binary.right, lets);
                }
            }
            E::Unary(unary) => self.hoist(&mut unary.expr, lets),
            E::Paren(paren) => self.hoist(&mut paren.expr, lets),
            E::Index(index) => {
                self.hoist(&mut index.expr, lets);
                self.hoist(&mut index.index, lets);
            }
            E::Field(field) => self.hoist(&mut field.base, lets),
            E::MethodCall(call) => {
                self.hoist(&mut call.receiver, lets);
                for arg in call.args.iter_mut() {
                    self.hoist(arg, lets);
                }
            }
            E::Call(call) => {
                for arg in call.args.iter_mut() {
                    self.hoist(arg, lets);
                }
            }
            E::Cast(cast) => self.hoist(&mut cast.expr, lets),
            E::Reference(reference) => self.hoist(&mut reference.expr, lets),
            E::Array(array) => {
                for elem in array.elems.iter_mut() {
                    self.hoist(elem, lets);
                }
            }
            E::Tuple(tuple) => {
                for elem in tuple.elems.iter_mut() {
                    self.hoist(elem, lets);
                }
            }
            // The first condition runs every time; an `else if`'s does not.
            E::If(if_) => self.hoist(&mut if_.cond, lets),
            E::Match(match_) => self.hoist(&mut match_.expr, lets),
            E::ForLoop(for_) => self.hoist(&mut for_.expr, lets),
            E::Assign(assign) => self.hoist(&mut assign.right, lets),
            E::Return(ret) => {
                if let Some(value) = &mut ret.expr {
                    self.hoist(value, lets);
                }
            }
            _ => {}
        }
        self.bind_call(expr, lets);
    }

    /// `expr`, if it is a call to bind first, as a `let` of it pushed onto
    /// `lets` and its name in its place.
    fn bind_call(&mut self, expr: &mut syn::Expr, lets: &mut Vec<syn::Stmt>) {
        let at = &*expr as *const syn::Expr as usize;
        if self.calls.contains(&at) {
            let name = self.fresh(callee(expr), expr);
            let call = std::mem::replace(expr, syn::parse_quote!(#name));
            lets.push(syn::parse_quote!(let #name = #call;));
        }
    }

    /// `let (a, b) = pair(x);` as `let pair_out = pair(x); let a =
    /// pair_out.0; let b = pair_out.1;`, nested patterns by nested fields
    /// and indices; `None` for any other `let`, or a pattern with a rest
    /// (`..`), a reference or a binding mode.
    fn split(&mut self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
        let init = local.init.as_ref()?;
        if init.diverge.is_some() || !local.attrs.is_empty() {
            return None;
        }
        let mut value = &*init.expr;
        while let syn::Expr::Paren(paren) = value {
            value = &paren.expr;
        }
        if !self
            .patterns
            .contains(&(value as *const syn::Expr as usize))
        {
            return None;
        }
        let (pat, ty) = match &local.pat {
            syn::Pat::Type(typed) => (&*typed.pat, Some(&*typed.ty)),
            pat => (pat, None),
        };
        let mut leaves = Vec::new();
        if !leaves_of(pat, ty, Vec::new(), &mut leaves) {
            return None;
        }
        let name = self.fresh(callee(value), value);
        let call = &*init.expr;
        let mut out: Vec<syn::Stmt> = vec![syn::parse_quote!(let #name = #call;)];
        for (pat, ty, path, field) in leaves {
            let ty = ty.map(|ty| quote::quote!(: #ty));
            // A tuple's field is cloned, not moved out: the sweep reads
            // the whole value again (its adjoint's shape, a loop's save).
            let clone = field.then(|| quote::quote!(.clone()));
            out.push(syn::parse_quote!(let #pat #ty = #name #(#path)* #clone;));
        }
        Some(out)
    }

    /// A new name for `call`'s value, at the call's place in the source:
    /// a reason that names the binding gives the call's line.
    fn fresh(&mut self, base: String, call: &syn::Expr) -> syn::Ident {
        let mut name = super::fresh_ident(&mut self.idents, &format!("{base}_out"));
        name.set_span(crate::text::Memo::default().first_span(call));
        name
    }
}

/// One name of a pattern bound to a call, its type if the `let` wrote one,
/// the fields and indices (`.0`, `[1]`) that read it from the value, and
/// whether a tuple field is among them.
type Leaf = (
    syn::Pat,
    Option<syn::Type>,
    Vec<proc_macro2::TokenStream>,
    bool,
);

fn leaves_of(
    pat: &syn::Pat,
    ty: Option<&syn::Type>,
    path: Vec<proc_macro2::TokenStream>,
    out: &mut Vec<Leaf>,
) -> bool {
    match pat {
        syn::Pat::Ident(ident) if ident.by_ref.is_none() && ident.subpat.is_none() => {
            let field = path.iter().any(|step| step.to_string().starts_with('.'));
            out.push((pat.clone(), ty.cloned(), path, field));
            true
        }
        syn::Pat::Wild(_) => true,
        syn::Pat::Paren(paren) => leaves_of(&paren.pat, ty, path, out),
        syn::Pat::Tuple(tuple) => {
            let types: Vec<Option<&syn::Type>> = match ty {
                None => vec![None; tuple.elems.len()],
                Some(syn::Type::Tuple(types)) if types.elems.len() == tuple.elems.len() => {
                    types.elems.iter().map(Some).collect()
                }
                Some(_) => return false,
            };
            tuple
                .elems
                .iter()
                .zip(types)
                .enumerate()
                .all(|(k, (elem, ty))| {
                    let index = syn::Index::from(k);
                    let mut path = path.clone();
                    path.push(quote::quote!(.#index));
                    leaves_of(elem, ty, path, out)
                })
        }
        syn::Pat::Slice(slice) => {
            let elem_ty = match ty {
                None => None,
                Some(syn::Type::Array(array)) => Some(&*array.elem),
                Some(_) => return false,
            };
            slice.elems.iter().enumerate().all(|(k, elem)| {
                if matches!(elem, syn::Pat::Rest(_)) {
                    return false;
                }
                let mut path = path.clone();
                path.push(quote::quote!([#k]));
                leaves_of(elem, elem_ty, path, out)
            })
        }
        _ => false,
    }
}

/// The name a call's binding is made from: the function's or the
/// method's (`softmax` of `softmax(&z)`, `forward` of `self.wq.forward(x)`).
fn callee(call: &syn::Expr) -> String {
    let name = match call {
        syn::Expr::Call(call) => match &*call.func {
            syn::Expr::Path(path) => path.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        },
        syn::Expr::MethodCall(call) => Some(call.method.to_string()),
        syn::Expr::Array(_) => Some("array".to_owned()),
        syn::Expr::Paren(paren) => return callee(&paren.expr),
        _ => None,
    };
    name.map_or_else(
        || "call".to_owned(),
        |name| name.trim_start_matches("r#").to_owned(),
    )
}

/// Whether what `stmt` evaluates before its nested blocks may write (an
/// assignment inside it, a block, a closure, a macro, a `&mut`, a method
/// that changes its receiver): a call bound before the statement would
/// then read its arguments before the write. Read off the tokens, as
/// conservatively: a `==` or a `||` is taken for a write too, and the
/// call is left in place. The top-level assignment of an expression
/// statement (`loss -= p[k].ln()`) writes after its value is evaluated;
/// an `if`'s, a `for`'s or a `match`'s blocks run after their head.
fn may_write(stmt: &syn::Stmt) -> bool {
    use syn::Expr as E;
    let heads: Vec<proc_macro2::TokenStream> = match stmt {
        syn::Stmt::Local(local) => match &local.init {
            Some(init) => vec![init.expr.to_token_stream()],
            None => return false,
        },
        syn::Stmt::Expr(expr, _) => match expr {
            E::If(if_) => vec![if_.cond.to_token_stream()],
            E::ForLoop(for_) => vec![for_.expr.to_token_stream()],
            E::Match(match_) => vec![match_.expr.to_token_stream()],
            E::Assign(assign) => vec![
                assign.left.to_token_stream(),
                assign.right.to_token_stream(),
            ],
            // `return e;` leaves after `e` is evaluated.
            E::Return(ret) => ret.expr.iter().map(|e| e.to_token_stream()).collect(),
            E::Binary(binary) if crate::ast::is_compound_assignment(&binary.op) => {
                vec![
                    binary.left.to_token_stream(),
                    binary.right.to_token_stream(),
                ]
            }
            expr => vec![expr.to_token_stream()],
        },
        _ => return true,
    };
    heads.into_iter().any(writes)
}

/// The methods of `Vec`, slices, `Option` and iterators that change what
/// they are called on (also read by `chains::branching`).
pub(super) const CHANGING: &[&str] = &[
    "push",
    "pop",
    "insert",
    "remove",
    "swap",
    "reverse",
    "truncate",
    "clear",
    "sort",
    "sort_by",
    "sort_unstable",
    "sort_unstable_by",
    "extend",
    "extend_from_slice",
    "retain",
    "drain",
    "append",
    "resize",
    "fill",
    "iter_mut",
    "get_mut",
    "first_mut",
    "last_mut",
    "as_mut",
    "take",
    "replace",
    "next",
    "swap_remove",
    "dedup",
    "rotate_left",
    "rotate_right",
    "split_at_mut",
];

/// Whether `tokens` may write, or leave the statement before its end (a
/// call bound before the statement would then run where the statement
/// stops short of it): an assignment, a `&mut`, a closure, a macro other
/// than `vec!`, a changing method, a `return`, `break`, `continue` or `?`.
/// A block (an `if`'s arms inside an expression) is read the same way.
fn writes(tokens: proc_macro2::TokenStream) -> bool {
    use proc_macro2::TokenTree;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().any(|(k, token)| match token {
        TokenTree::Group(group) => writes(group.stream()),
        TokenTree::Punct(punct) => match punct.as_char() {
            '=' | '|' | '?' => true,
            // `vec![..]` makes a value; any other macro may do anything.
            '!' => !(k > 0 && matches!(&tokens[k - 1], TokenTree::Ident(name) if name == "vec")),
            _ => false,
        },
        TokenTree::Ident(ident) => {
            ident == "mut"
                || ident == "return"
                || ident == "break"
                || ident == "continue"
                || (k > 0
                    && matches!(&tokens[k - 1], TokenTree::Punct(dot) if dot.as_char() == '.')
                    && CHANGING.iter().any(|name| ident == name))
        }
        TokenTree::Literal(_) => false,
    })
}
