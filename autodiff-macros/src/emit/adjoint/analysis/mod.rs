//! What the compiled adjoint needs to know about the body before it writes
//! a line: which bindings carry a derivative (`active`), how often each
//! name is bound (for `y_1_bar`), and where each name is written, which
//! decides whether a value the reverse sweep reads is still there
//! (*stable*) or must be saved.
//!
//! This file holds `Analysis` and gathers the facts about bindings; `facts`
//! records how often and where each name is bound and written, and answers
//! whether it is stable; `activity` finds the bindings a derivative
//! reaches, `numbers` those the body shows hold `f64` values, `shapes` how
//! many indexings take each to an `f64`, and `references` those that hold
//! references to rows.

mod activity;
pub(super) mod calls;
mod facts;
mod numbers;
mod references;
mod shapes;

use std::collections::{HashMap, HashSet};

use quote::ToTokens;

use crate::ast::{ExprKind, Function, Kind, Stmt};

pub(crate) use facts::assigned_whole;
use facts::{bindings, reshaped};

use activity::reach_block;
pub use activity::{carries, is_count};
pub(crate) use calls::walked_binding;
use numbers::numbers;
pub use numbers::shows_number;
pub(super) use shapes::numeric_operands;
use shapes::{
    assigned_dims, copy_array, deferred_lets, dims_block, empty_vec_lets, grown_dims, kind_dims,
    type_dims,
};
pub use shapes::{dims_of, let_inits, vec_bindings};

/// Methods that change their receiver.
const MUTATING: &[&str] = &[
    "push",
    "pop",
    "sort",
    "sort_by",
    "swap",
    "fill",
    "clear",
    "truncate",
    "insert",
    "remove",
    "extend",
    "extend_from_slice",
    "resize",
    "reverse",
    "iter_mut",
    "copy_from_slice",
    "as_mut_slice",
];

/// Methods that leave their receiver's length as it is: reads, and writes
/// of items. Any other method called on a binding may resize it.
const KEEPS_LENGTH: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "iter_mut",
    "into_iter",
    "get",
    "first",
    "last",
    "clone",
    "to_vec",
    "contains",
    "swap",
    "reverse",
    "sort",
    "sort_by",
    "fill",
    "copy_from_slice",
    "as_slice",
    "as_mut_slice",
    "windows",
    "chunks",
    "concat",
];

/// Methods that change their receiver's length, which the sweep reverses.
pub(super) const RESIZING: &[&str] = &[
    "push",
    "truncate",
    "clear",
    "pop",
    "insert",
    "remove",
    "extend_from_slice",
    "resize",
];

/// Whether a method of this name changes its receiver's length.
pub fn resizes(method: &syn::Ident) -> bool {
    RESIZING.contains(&method.to_string().as_str())
}

/// Whether a method of this name changes its receiver.
pub fn mutates(method: &syn::Ident) -> bool {
    MUTATING.contains(&method.to_string().as_str())
}

pub struct Analysis {
    /// Bindings that may hold a value with a derivative: differentiable
    /// parameters and what their values reach through arithmetic. Stricter
    /// than `flow`'s tracked names: `x.len()` reaches no derivative.
    pub active: HashSet<String>,
    /// How many times each name is bound (parameters, `let`s, patterns).
    pub bound: HashMap<String, usize>,
    /// The top-level statement of each write of a name (`=`, `op=`, an
    /// element write, `push`, `&mut`).
    pub writes: HashMap<String, Vec<usize>>,
    /// The top-level statement of each name's last top-level `let`.
    pub top_lets: HashMap<String, usize>,
    /// How many of a name's bindings are parameters or top-level `let`s.
    pub top_bound: HashMap<String, usize>,
    pub params: HashSet<String>,
    /// Every identifier of the function: generated names avoid them.
    pub idents: HashSet<String>,
    /// How many indexings take a binding to an `f64` (0 for a scalar),
    /// where every binding of the name agrees.
    pub dims: HashMap<String, Option<usize>>,
    /// Slice parameters: their items are references.
    pub slices: HashSet<String>,
    /// Array parameters of numbers (or arrays of them): `Copy`, so a `for`
    /// over one leaves it for the reverse sweep.
    pub arrays: HashSet<String>,
    /// Bindings whose rows, at every depth, have one shape their type
    /// fixes (`[[f64; 3]; 3]`, `&[[f64; 2]]`, `Vec<f64>`): any row's
    /// adjoint shapes another's (`let tmp = m[p];` where `p` is gone
    /// when the reverse declares `tmp`'s adjoint).
    pub fixed_rows: HashSet<String>,
    /// Parameters passed through whose type holds no `f64` (`#[constant]
    /// act: Act`, `n: usize`): given on to a callee, whose parameter then
    /// holds no derivative either, they take no adjoint.
    pub opaque: HashSet<String>,
    /// Parameters passed through by value that are a `Vec` or an array of
    /// `Copy` data with no `f64` (`order: Vec<usize>`, `mask: [bool; 3]`):
    /// a `for` over one walks `order.iter().copied()`, the same items,
    /// leaving it for the reverse sweep.
    pub plain_items: HashSet<String>,
    /// Bindings that hold references (`for x in xs` of a slice, `let x =
    /// &xs[i]`): a `for` over one walks it as `x.iter()` (`references`).
    pub references: HashSet<String>,
    /// `let r = &v..;`: the binding each such `r` borrows from, which must
    /// be as stable as `r` for the reverse sweep to read `r` (a `push` onto
    /// `v` after `r`'s last use is fine in the body, not in the reverse).
    pub borrows: HashMap<String, String>,
    /// Bindings the body shows hold `f64` values (or arrays, slices, `Vec`s
    /// of them): parameters so typed, what `active` reaches, `let`s typed
    /// `f64` or initialised with arithmetic of such values. The reverse
    /// sweep reads any other binding through `f64_of` (see
    /// `src/__adjoint/operands.rs`), where a mistaken type is the plain
    /// twin's error only.
    pub numbers: HashSet<String>,
    /// Parameters that hold models (`Mlp`, `&Mlp`, `Vec<Layer>`, `self`),
    /// and the bindings taken from them (`for layer in &self.layers`, `let
    /// layer = &self.layers[k];`): a method called on a place rooted at
    /// one is an annotated method.
    pub models: HashSet<String>,
    /// Model fields the body shows to be `f64`s (`net.b` beside a float in
    /// arithmetic, or under an elementary function), as written: an
    /// adjoint adds into them by `+=`; another field may be an integer
    /// (`let k = net.width + 1;`), into which a number adds nothing
    /// (`__adjoint::accumulate`).
    pub float_fields: HashSet<String>,
    /// Bindings something is `push`ed onto, or whose length another
    /// method changes (`truncate`, `clear`, `pop`, `insert`, `remove`,
    /// `extend_from_slice`, `resize`):
    /// their adjoints are shaped like the binding at the end of the
    /// forward sweep.
    pub pushed: HashSet<String>,
    /// Bindings whose items a method moves (`swap`, `reverse`,
    /// `sort_by`): where the rows may differ in length (`Vec<Vec<f64>>`,
    /// unlike `fixed_rows`), they join `pushed`, their adjoints shaped like
    /// the binding at the end of the forward sweep, whose rows the reverse
    /// reads in their final order.
    pub moved: HashSet<String>,
    /// Bindings whose length may change: assigned or borrowed `&mut` as a
    /// whole (`v = ..`, `&mut v`), or the receiver of a method other than
    /// those that keep a length (`KEEPS_LENGTH`).
    pub resizable: HashSet<String>,
    /// Locals assigned as a whole with a value that may have another
    /// length (`h = next;` where `h` is a `Vec` a layer loop rebinds):
    /// every such assignment saves the shape of what it overwrites, and
    /// the adjoint starts from the binding's final shape (see
    /// `Sweep::reshape_site`). A local every `let` of which makes an array
    /// or a tuple (`[..]`, `[e; n]`, `(a, b)`, a type `[f64; N]`) keeps its
    /// shape and is not here.
    pub reshaped: HashSet<String>,
    /// How many times the body names each binding as a path (see
    /// [`Analysis::reads`]).
    pub mentions: HashMap<String, usize>,
    /// How many indexings take each value assigned to a name as a whole
    /// (`y = x * 2.0;`) to an `f64`, where every such value agrees: the
    /// shape of a `let y;` bound by its assignments.
    pub assigned: HashMap<String, Option<usize>>,
    /// Names bound by a top-level `let` (once) to a call of an annotated
    /// function or method: the forward binding is still there when the
    /// reverse sweep starts (in a body with `return`, it is saved as a
    /// nested one is). Those the body
    /// indexes, iterates or borrows are vectors, their adjoint shaped like
    /// the binding (`zero(&p)`), with `dims` from the deepest indexing; see
    /// `calls`.
    pub call_lets: HashSet<String>,
    /// By `Expr::id`: the calls whose value such a vector binding takes as
    /// it is, or one never read (`unread_calls`). Every other call's value
    /// is read as a number.
    pub vector_calls: HashSet<usize>,
    /// The `call_lets` the body never reads: a number or a vector, which
    /// the macro cannot tell, taken as it is; the callee's reverse gets
    /// zeros shaped like it (`__adjoint::unread`).
    pub unread_calls: HashSet<String>,
    /// Bindings of annotated calls never read, inside a loop with `break`
    /// or `continue` (or `let mut`): nothing shows whether the callee
    /// returns a number, and the sweeps cannot save a vector there.
    pub unknown_calls: HashSet<String>,
    /// The vector `call_lets` inside a loop or a branch, or at the top of
    /// a body with `return`, gone when the reverse sweep reaches them:
    /// each trip saves the value and the arguments that change on a stack
    /// of the call's own.
    pub nested_call_lets: HashSet<String>,
}

/// How many indexings take a parameter of type `ty` to an `f64`: a
/// reference or a slice around what `shapes::type_dims` reads.
/// Whether `ty` is a `Vec` or an array (by value) whose items are integers,
/// `bool`s or `char`s, or tuples of them: `Copy` data with no `f64`.
fn items_copy_plain(ty: &syn::Type) -> bool {
    fn copy_plain(ty: &syn::Type) -> bool {
        match ty {
            syn::Type::Paren(paren) => copy_plain(&paren.elem),
            syn::Type::Group(group) => copy_plain(&group.elem),
            syn::Type::Tuple(tuple) => tuple.elems.iter().all(copy_plain),
            syn::Type::Path(path) => {
                path.qself.is_none()
                    && path.path.get_ident().is_some_and(|ident| {
                        let name = ident.to_string();
                        crate::lower::is_plain_type(&name) || name == "char"
                    })
            }
            _ => false,
        }
    }
    match ty {
        syn::Type::Paren(paren) => items_copy_plain(&paren.elem),
        syn::Type::Group(group) => items_copy_plain(&group.elem),
        syn::Type::Array(array) => copy_plain(&array.elem),
        syn::Type::Path(path) if path.qself.is_none() => {
            let Some(segment) = path.path.segments.last() else {
                return false;
            };
            let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                return false;
            };
            segment.ident == "Vec"
                && matches!(
                    args.args.iter().collect::<Vec<_>>().as_slice(),
                    [syn::GenericArgument::Type(elem)] if copy_plain(elem)
                )
        }
        _ => false,
    }
}

fn param_type_dims(ty: &syn::Type) -> Option<usize> {
    match ty {
        syn::Type::Reference(reference) => param_type_dims(&reference.elem),
        syn::Type::Slice(slice) => Some(param_type_dims(&slice.elem)? + 1),
        _ => type_dims(ty),
    }
}

impl Analysis {
    pub fn new(function: &Function) -> Analysis {
        Analysis::tracking(function, &HashSet::new())
    }

    /// [`Analysis::new`], with `tracked` active from the start: the names
    /// the renaming of names bound again gave to bindings of a name the
    /// recording twin tracks (`let mut acc = z;` beside a tracked `acc`).
    /// The twin reads names, not scopes, so it records such a binding's
    /// operations, and the tape reports one that is not finite; active
    /// here too, the sweeps check it as they check the tape's (see
    /// `shadows`).
    pub fn tracking(function: &Function, tracked: &HashSet<String>) -> Analysis {
        let mut analysis = Analysis {
            active: function
                .params
                .iter()
                .filter(|param| param.kind.is_differentiable())
                .map(|param| param.ident.to_string())
                .chain(tracked.iter().cloned())
                .collect(),
            bound: HashMap::new(),
            writes: HashMap::new(),
            top_lets: HashMap::new(),
            top_bound: HashMap::new(),
            params: function
                .params
                .iter()
                .map(|param| param.ident.to_string())
                .collect(),
            idents: HashSet::new(),
            dims: HashMap::new(),
            slices: function
                .params
                .iter()
                .filter(|param| {
                    matches!(param.kind, Kind::Slice(_))
                        || matches!(param.ty, syn::Type::Reference(_))
                })
                .map(|param| param.ident.to_string())
                .collect(),
            arrays: function
                .params
                .iter()
                .filter(|param| copy_array(&param.kind))
                .map(|param| param.ident.to_string())
                .collect(),
            fixed_rows: HashSet::new(),
            opaque: function
                .params
                .iter()
                .filter(|param| {
                    matches!(param.kind, Kind::PassThrough)
                        && !crate::text::mentions(param.ty.to_token_stream(), "f64")
                })
                .map(|param| param.ident.to_string())
                .collect(),
            plain_items: function
                .params
                .iter()
                .filter(|param| {
                    matches!(param.kind, Kind::PassThrough) && items_copy_plain(&param.ty)
                })
                .map(|param| param.ident.to_string())
                .collect(),
            references: HashSet::new(),
            borrows: HashMap::new(),
            numbers: HashSet::new(),
            models: crate::emit::model_params(function).into_iter().collect(),
            float_fields: HashSet::new(),
            pushed: HashSet::new(),
            moved: HashSet::new(),
            resizable: HashSet::new(),
            reshaped: HashSet::new(),
            mentions: HashMap::new(),
            assigned: HashMap::new(),
            call_lets: HashSet::new(),
            vector_calls: HashSet::new(),
            unread_calls: HashSet::new(),
            unknown_calls: HashSet::new(),
            nested_call_lets: HashSet::new(),
        };
        let mentions = std::cell::RefCell::new(HashMap::new());
        function.body.any_expr(&|expr| {
            if let ExprKind::Path(path) = &expr.kind {
                if let Some(ident) = path.path.get_ident() {
                    *mentions.borrow_mut().entry(ident.to_string()).or_default() += 1;
                }
            }
            false
        });
        analysis.mentions = mentions.into_inner();
        for param in &function.params {
            let dims = match &param.kind {
                // `#[constant] y: f64`, `#[constant] z: &[f64]`, ..: as
                // many indexings as its type shows.
                Kind::PassThrough => param_type_dims(&param.ty),
                kind => kind_dims(kind),
            };
            analysis.dims.insert(param.ident.to_string(), dims);
        }
        shapes::model_field_dims(&function.body, &analysis.models, &mut analysis.dims);
        let params_dims = analysis.dims.clone();
        crate::text::identifiers(function.item.to_token_stream(), &mut analysis.idents);
        for param in &function.params {
            *analysis.bound.entry(param.ident.to_string()).or_default() += 1;
            *analysis
                .top_bound
                .entry(param.ident.to_string())
                .or_default() += 1;
        }
        for (index, stmt) in function.body.stmts.iter().enumerate() {
            if let Stmt::Let { pat, .. } = stmt {
                for name in bindings(pat) {
                    analysis.top_lets.insert(name.clone(), index);
                    *analysis.top_bound.entry(name.clone()).or_default() += 1;
                }
            }
            analysis.stmt_facts(stmt, index);
        }
        analysis.shapes(function, params_dims.clone(), &HashSet::new());
        // After the shapes above, which would undo the vectors' shapes.
        calls::calls_bound(function, &mut analysis);
        // What the body makes of a vector call's elements (`let t =
        // p[1];`, `v.push(p[k])`) has a shape only once the call's is
        // known: the shapes again, the calls' taken as given.
        let mut given: HashMap<String, Option<usize>> = analysis
            .call_lets
            .iter()
            .filter_map(|name| Some((name.clone(), analysis.dims.get(name).copied()?)))
            .collect();
        if given.values().any(Option::is_some) {
            let mut seeds = params_dims.clone();
            seeds.extend(given.clone());
            analysis.shapes(function, seeds, &given.keys().cloned().collect());
            analysis.dims.extend(given.clone());
        }
        // A binding bound once whose shape is still unknown (`let u =
        // w[0];` of a tuple's part) but that the body reads as a number
        // is one, and so is what is made of it (`break u` of a loop).
        let mut read_as_numbers = shapes::numbers_by_use(&function.body);
        // The body's value, a name, where the function returns an `f64`
        // (`let mut acc = ms[0].b; for m in ms { acc = m.mix(acc, x); }
        // acc`): a number, or the plain function would not build.
        if let (true, Some(Stmt::Expr(tail, None))) =
            (function.returns_f64(), function.body.stmts.last())
        {
            if let ExprKind::Path(path) = &tail.unparenthesised().kind {
                read_as_numbers.extend(path.path.get_ident().map(ToString::to_string));
            }
        }
        let by_use: Vec<String> = read_as_numbers
            .into_iter()
            .filter(|name| {
                analysis.bound.get(name).copied() == Some(1)
                    && analysis.dims.get(name).copied() == Some(None)
            })
            .collect();
        if !by_use.is_empty() {
            given.extend(by_use.into_iter().map(|name| (name, Some(0))));
            let mut seeds = params_dims;
            seeds.extend(given.clone());
            analysis.shapes(function, seeds, &given.keys().cloned().collect());
            analysis.dims.extend(given);
        }
        // A name matched against an enum's variants or compared with one
        // (`let act = self.act; match act { Act::Relu => .. }`) holds no
        // number, whatever it was read from.
        let enums = activity::enums_by_use(&function.body);
        loop {
            let before = analysis.active.len();
            let mut found = Vec::new();
            reach_block(&function.body, &analysis.active, &mut found);
            analysis
                .active
                .extend(found.into_iter().filter(|name| !enums.contains(name)));
            if analysis.active.len() == before {
                break;
            }
        }
        analysis.numbers = numbers(function, &analysis.active);
        // A parameter typed `f64` (differentiable or `#[constant]`), or
        // whose items are (`x[i]` of a slice).
        analysis.float_fields = numbers::float_fields(&function.body, &|name| {
            function.params.iter().any(|param| {
                param.ident == name
                    && (crate::valid::is_f64(&param.ty)
                        || matches!(param.kind, crate::ast::Kind::Scalar))
            }) || analysis.slices.contains(name)
        });
        analysis.references =
            references::reference_bindings(&function.body, &analysis.slices, &analysis.bound);
        // A number assigned (`s = relu(s)`) keeps its shape. A binding
        // the body indexes is a vector, whatever its assigned values look
        // like (a call's value, `h = dense_out`, is a number to `shapes`).
        let number = |name: &String| match analysis.dims.get(name) {
            Some(Some(0)) => true,
            Some(Some(_)) => false,
            _ => {
                analysis.assigned.get(name) == Some(&Some(0))
                    && calls::index_depth(&function.body.stmts, name) == 0
            }
        };
        // After every refinement of the shapes above (a vector call's
        // elements, `p[1]`, have theirs only once the calls' are known).
        analysis.fixed_rows = shapes::fixed_rows(function, &analysis.bound, &analysis.dims);
        // Rows moved that may differ in length (`m.swap(p, k)` of a
        // jagged `Vec<Vec<f64>>`): shaped at the end of the forward.
        let jagged: Vec<String> = analysis
            .moved
            .iter()
            .filter(|name| {
                !analysis.fixed_rows.contains(*name)
                    && !analysis.params.contains(*name)
                    && analysis
                        .dims
                        .get(*name)
                        .copied()
                        .flatten()
                        .is_none_or(|dims| dims > 1)
            })
            .cloned()
            .collect();
        analysis.pushed.extend(jagged);
        analysis.reshaped = reshaped(&function.body, &analysis.params)
            .into_iter()
            .filter(|name| !number(name))
            .collect();
        analysis
    }

    /// The shapes of the body's bindings (`dims`, `assigned`), starting
    /// from `seeds` (the parameters', and any found before), a `let` of a
    /// name in `given` keeping its seed: the shapes pass, then a `Vec`
    /// bound empty shaped by what is pushed onto it, then a `let y;` by
    /// what is assigned to it.
    fn shapes(
        &mut self,
        function: &Function,
        mut params_dims: HashMap<String, Option<usize>>,
        given: &HashSet<String>,
    ) {
        self.dims = params_dims.clone();
        dims_block(&function.body, &mut self.dims, given);
        // A `Vec` bound empty, once, has the shape of what is pushed onto
        // it (`let mut v = Vec::new(); v.push(x * x); .. v.push(v[0]);`):
        // taken as known before its `let`, then the shapes again, until
        // nothing changes.
        let mut empty = HashSet::new();
        empty_vec_lets(&function.body, &mut empty);
        empty.retain(|name| self.bound.get(name).copied() == Some(1));
        let mut grown: HashMap<String, Option<usize>> = HashMap::new();
        for _ in 0..3 {
            let found: HashMap<String, Option<usize>> =
                grown_dims(&function.body, &self.dims, &empty)
                    .into_iter()
                    .filter(|(_, shape)| shape.is_some())
                    .collect();
            if found == grown {
                break;
            }
            grown = found;
            let names: HashSet<String> = grown.keys().chain(given).cloned().collect();
            let mut dims = params_dims.clone();
            dims.extend(grown.clone());
            dims_block(&function.body, &mut dims, &names);
            self.dims = dims;
        }
        let grown_names: HashSet<String> = grown.keys().chain(given).cloned().collect();
        params_dims.extend(grown);
        // A `let y;` has the shape of what is assigned to it, which may
        // come through another such binding (`let (a, b) = if .. { (b, s) }
        // ..` read as `let b_next; .. b_next = b; .. let b = b_next;`):
        // each such binding is taken for a number, then for what its
        // assignments show, until that agrees; else its shape is unknown.
        let mut deferred = Vec::new();
        deferred_lets(&function.body, &mut deferred);
        deferred.retain(|name| self.bound.get(name).copied() == Some(1));
        self.assigned = assigned_dims(&function.body, &self.dims);
        if !deferred.is_empty() {
            let mut seeds: HashMap<String, Option<usize>> = deferred
                .iter()
                .map(|name| (name.clone(), Some(0)))
                .collect();
            let mut agreed = false;
            for _ in 0..4 {
                let mut dims = params_dims.clone();
                dims.extend(seeds.clone());
                dims_block(&function.body, &mut dims, &grown_names);
                let assigned = assigned_dims(&function.body, &dims);
                let found: HashMap<String, Option<usize>> = deferred
                    .iter()
                    .map(|name| (name.clone(), assigned.get(name).copied().flatten()))
                    .collect();
                if found == seeds {
                    self.dims = dims;
                    self.assigned = assigned;
                    agreed = true;
                    break;
                }
                seeds = found;
            }
            if !agreed {
                for name in &deferred {
                    self.assigned.insert(name.clone(), None);
                }
            }
        }
    }
}
