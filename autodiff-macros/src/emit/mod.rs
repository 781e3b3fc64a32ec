//! Emits the items, one file per item it generates: the plain twin `f`
//! (`twin`), the recording twin `f_tape` (`tape`, with the body rewritten
//! by `body`), the gradient `f_grad` and `f_grad_on` (`grad`), the
//! checks `f_check` and `f_check_with` (`check`), and forward mode and
//! second order, `f_jvp`, `f_hvp` and `f_hessian` (`second`). Every emitter reads the
//! model and the flow analysis; none re-reads the user's syntax.

mod adjoint;
mod body;
pub(crate) mod check;
mod companion;
mod grad;
mod method;
mod second;
mod shaped;
mod tape;
mod twin;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{Attribute, Ident};

use crate::ast::{Function, Label, Param};
use crate::flow::Flow;

/// Every generated item, in the order `cargo expand` shows them.
pub fn items(function: &Function, flow: &Flow) -> TokenStream {
    let twin = twin::item(function);
    let names = Names::new(function);
    let (tape, tape_signature) = tape::item(function, flow, &names);
    if function.output.is_some() {
        let (dot, dot_fn) = shaped::compiled_dot(function).unzip();
        let output = shaped::output_syn_type(function);
        let pair = adjoint::vector_pair(function, &names, &output, dot_fn.as_ref());
        let companion = companion::item(
            names.name,
            &function.item.vis,
            &tape_signature,
            &pair,
            adjoint::dual_pair(function, &names, false),
            &companion::constant_checks(function),
        );
        let transforms = shaped::transforms(function, &names);
        return quote!(#twin #tape #companion #dot #transforms);
    }
    let (grad, pair, dual) = grad::items(function, &names);
    let (dot, pair) = shaped::scalar_pair(function, &names, pair);
    let companion = companion::item(
        names.name,
        &function.item.vis,
        &tape_signature,
        &pair,
        adjoint::dual_pair(function, &names, dual),
        &companion::constant_checks(function),
    );
    let check = check::items(function, &names);
    let second = second::items(function, &names, dual, true);
    quote!(#twin #tape #companion #grad #dot #check #second)
}

/// The items of a method: `function` is the method read as a function of
/// `__self` (see `receiver`), `method` the method as written.
pub fn method_items(
    function: &Function,
    flow: &Flow,
    method: &syn::ItemFn,
    taken: crate::receiver::Taken,
) -> TokenStream {
    let plain = crate::attr::without_constant_markers(method);
    let names = Names::new(function);
    let siblings = method::items(siblings(function, flow), names.name, &names.tape_fn, taken);
    quote! {
        #[allow(dead_code)]
        #plain
        #siblings
    }
}

/// The items of an associated function without `self`, in a
/// `#[differentiable] impl` block: the calls between them name `Self::`.
pub fn associated_items(function: &Function, flow: &Flow) -> TokenStream {
    let twin = twin::item(function);
    let names = Names::new(function);
    let siblings = method::associated(siblings(function, flow), names.name, &names.tape_fn);
    quote!(#twin #siblings)
}

/// The recording twin, the gradients and the checks.
fn siblings(function: &Function, flow: &Flow) -> TokenStream {
    let names = Names::new(function);
    let (tape, _) = tape::item(function, flow, &names);
    if function.output.is_some() {
        let (dot, dot_fn) = shaped::compiled_dot(function).unzip();
        let output = shaped::output_syn_type(function);
        let [forward, reverse] = adjoint::vector_pair(function, &names, &output, dot_fn.as_ref());
        let (forward, reverse) = (forward.free(), reverse.free());
        let transforms = shaped::transforms(function, &names);
        return quote!(#tape #forward #reverse #dot #transforms);
    }
    let (grad, pair, dual) = grad::items(function, &names);
    let (dot, [forward, reverse]) = shaped::scalar_pair(function, &names, pair);
    let (forward, reverse) = (forward.free(), reverse.free());
    let check = check::items(function, &names);
    let second = second::items(function, &names, dual, false);
    // The pair a caller's dual sweep calls (`<Mlp>::score_forward_dual`).
    let dual_pair = adjoint::dual_method_pair(function, &names, dual);
    quote!(#tape #grad #forward #reverse #dot #check #second #dual_pair)
}

/// The names that hold a model on the tape: parameters of a model type
/// (a struct, or arrays and vectors of them), and the bindings taken from
/// them by `let` or `for` (`let layer = &self.layers[k]`, `for neuron in
/// &self.neurons`). A method called on one of them (or on a part of it) is
/// another function's recording twin.
fn model_params(function: &Function) -> Vec<String> {
    let mut names: Vec<String> = function
        .params
        .iter()
        .filter(|param| param.kind.holds_struct())
        .map(|param| param.ident.to_string())
        .collect();
    if names.is_empty() {
        return names;
    }
    // To a fixpoint: a binding may be read from one bound later in a loop.
    loop {
        let before = names.len();
        models_in_block(&function.body, &mut names);
        if names.len() == before {
            return names;
        }
    }
}

fn models_in_block(block: &crate::ast::Block, names: &mut Vec<String>) {
    use crate::ast::Stmt;
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                name: Some(name),
                init: Some(init),
                ..
            } => {
                if reads_model(init, names) && !names.contains(name) {
                    names.push(name.clone());
                }
                models_in_expr(init, names);
            }
            Stmt::Let {
                init: Some(init), ..
            }
            | Stmt::Expr(init, _) => models_in_expr(init, names),
            Stmt::Let { .. } | Stmt::Item(_) => {}
        }
    }
}

fn models_in_expr(expr: &crate::ast::Expr, names: &mut Vec<String>) {
    use crate::ast::{Child, ExprKind};
    if let ExprKind::For { pat, iter, .. } = &expr.kind {
        // The item (`for layer in &net.layers`), or the item beside its
        // index (`for (k, layer) in net.layers.iter().enumerate()`).
        let item = match pat.names.as_slice() {
            [name] => Some(name),
            [_, name] if enumerated(iter) => match pat.syntax {
                syn::Pat::Tuple(tuple) if tuple.elems.len() == 2 => match &tuple.elems[1] {
                    syn::Pat::Ident(ident) if ident.ident == name => Some(name),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        if let Some(name) = item {
            if reads_model(iter, names) && !names.contains(name) {
                names.push(name.clone());
            }
        }
        // Each side of a `zip` (`for (layer, g) in net.layers.iter()
        // .zip(&net.gains)`): the item of a side that reads a model.
        if let (
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            },
            syn::Pat::Tuple(tuple),
        ) = (&iter.kind, pat.syntax)
        {
            if *method == "zip" && args.len() == 1 && tuple.elems.len() == 2 {
                for (side, elem) in [&**receiver, &args[0]].into_iter().zip(&tuple.elems) {
                    if let syn::Pat::Ident(ident) = elem {
                        let name = ident.ident.to_string();
                        if reads_model(side, names) && !names.contains(&name) {
                            names.push(name);
                        }
                    }
                }
            }
        }
    }
    // A closure's item over models (`net.layers.iter().map(|l|
    // l.norm())`, `fold(0.0, |acc, l| ..)`): its last input.
    if let ExprKind::Structural { receiver, args, .. }
    | ExprKind::PlainMethod { receiver, args, .. } = &expr.kind
    {
        if reads_model(receiver, names) {
            for arg in args {
                if let ExprKind::Closure { inputs, .. } = &arg.kind {
                    if let Some([name]) = inputs.last().map(|input| input.names.as_slice()) {
                        if !names.contains(name) {
                            names.push(name.clone());
                        }
                    }
                }
            }
        }
    }
    for child in expr.children() {
        match child {
            Child::Expr(inner) => models_in_expr(inner, names),
            Child::Block(block) => models_in_block(block, names),
        }
    }
}

/// Whether `iter` ends in `.enumerate()`.
fn enumerated(iter: &crate::ast::Expr) -> bool {
    matches!(&iter.kind, crate::ast::ExprKind::Structural { method, .. } if *method == "enumerate")
}

/// Whether `expr` is a call of another annotated function, or of a method
/// on a model (`models`: `model_params`), through parentheses.
pub(crate) fn is_annotated_call(expr: &crate::ast::Expr, models: &[String]) -> bool {
    use crate::ast::ExprKind;
    match &expr.kind {
        ExprKind::Call { .. } => true,
        ExprKind::PlainMethod {
            receiver,
            reads_primal: false,
            ..
        } => reads_model(receiver, models),
        ExprKind::Paren(inner) => is_annotated_call(inner, models),
        _ => false,
    }
}

/// Whether `expr` is a model name, a part of one, a reference to one or an
/// iterator over one.
pub(crate) fn reads_model(expr: &crate::ast::Expr, names: &[String]) -> bool {
    use crate::ast::ExprKind;
    match &expr.kind {
        ExprKind::Path(path) => path
            .path
            .get_ident()
            .is_some_and(|ident| names.iter().any(|name| ident == name)),
        ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => reads_model(base, names),
        ExprKind::Paren(inner)
        | ExprKind::Reference { expr: inner, .. }
        | ExprKind::Structural {
            receiver: inner, ..
        } => reads_model(inner, names),
        // The model's parts listed (`for layer in [&net.l1, &net.l2]`).
        ExprKind::Array(items) | ExprKind::VecList(items) => {
            !items.is_empty() && items.iter().all(|item| reads_model(item, names))
        }
        _ => false,
    }
}

/// The names the items share: the function's, its generated siblings', and
/// the hygienic locals of the generated code.
struct Names<'m> {
    name: &'m Ident,
    tape_fn: Ident,
    grad_fn: Ident,
    grad_on_fn: Ident,
    check_fn: Ident,
    check_with_fn: Ident,
    /// The tape argument: `Span::mixed_site`, so that it never clashes
    /// with a user's binding called `tape`.
    tape: Ident,
    /// Attributes other than docs (`#[inline]`, `#[allow(..)]`, ...) apply
    /// to every generated item; the docs stay on the twin.
    attrs: Vec<&'m Attribute>,
    /// `<'a, ...>` of the user's lifetimes, or nothing.
    generics: TokenStream,
}

impl<'m> Names<'m> {
    fn new(function: &'m Function) -> Self {
        let sig = &function.item.sig;
        let name = &sig.ident;
        let lifetimes = &sig.generics.params;
        Names {
            name,
            tape_fn: format_ident!("{}_tape", name),
            grad_fn: format_ident!("{}_grad", name),
            grad_on_fn: format_ident!("{}_grad_on", name),
            check_fn: format_ident!("{}_check", name),
            check_with_fn: format_ident!("{}_check_with", name),
            tape: Ident::new("tape", Span::mixed_site()),
            attrs: function
                .item
                .attrs
                .iter()
                .filter(|attr| !attr.path().is_ident("doc"))
                .collect(),
            generics: if lifetimes.is_empty() {
                quote!()
            } else {
                quote!(<#lifetimes>)
            },
        }
    }
}

/// The differentiable parameters, in order.
/// The outer attributes `expr` carries (`#[cfg(..)] { .. }`), which every
/// twin puts back on the statements it writes for it: read from the node,
/// since printing it to look would print every sub-tree once per level.
pub(crate) fn attributes(expr: &syn::Expr) -> &[syn::Attribute] {
    use syn::Expr as E;
    match expr {
        E::Array(e) => &e.attrs,
        E::Assign(e) => &e.attrs,
        E::Async(e) => &e.attrs,
        E::Await(e) => &e.attrs,
        E::Binary(e) => &e.attrs,
        E::Block(e) => &e.attrs,
        E::Break(e) => &e.attrs,
        E::Call(e) => &e.attrs,
        E::Cast(e) => &e.attrs,
        E::Closure(e) => &e.attrs,
        E::Const(e) => &e.attrs,
        E::Continue(e) => &e.attrs,
        E::Field(e) => &e.attrs,
        E::ForLoop(e) => &e.attrs,
        E::Group(e) => &e.attrs,
        E::If(e) => &e.attrs,
        E::Index(e) => &e.attrs,
        E::Infer(e) => &e.attrs,
        E::Let(e) => &e.attrs,
        E::Lit(e) => &e.attrs,
        E::Loop(e) => &e.attrs,
        E::Macro(e) => &e.attrs,
        E::Match(e) => &e.attrs,
        E::MethodCall(e) => &e.attrs,
        E::Paren(e) => &e.attrs,
        E::Path(e) => &e.attrs,
        E::Range(e) => &e.attrs,
        E::RawAddr(e) => &e.attrs,
        E::Reference(e) => &e.attrs,
        E::Repeat(e) => &e.attrs,
        E::Return(e) => &e.attrs,
        E::Struct(e) => &e.attrs,
        E::Try(e) => &e.attrs,
        E::TryBlock(e) => &e.attrs,
        E::Tuple(e) => &e.attrs,
        E::Unary(e) => &e.attrs,
        E::Unsafe(e) => &e.attrs,
        E::While(e) => &e.attrs,
        E::Yield(e) => &e.attrs,
        _ => &[],
    }
}

/// `dbg!(arg)` as the plain function prints it, for the twins that
/// compute `arg` as `value` (a `Scalar`, an `f64`): its text as written,
/// its number (`number` reads it from `value`), at the macro's line and
/// column, then `value`.
fn dbg_printed(span: Span, value: TokenStream, shown: &str, number: TokenStream) -> TokenStream {
    quote::quote_spanned! {span=> match #value {
        value => {
            ::std::eprintln!(
                "[{}:{}:{}] {} = {:#?}",
                ::core::file!(),
                ::core::line!(),
                ::core::column!(),
                #shown,
                #number
            );
            value
        }
    }}
}

fn differentiable<'m>(function: &'m Function) -> Vec<&'m Param> {
    function
        .params
        .iter()
        .filter(|param| param.kind.is_differentiable())
        .collect()
}

/// The user's parameters, `#[constant]` markers removed.
fn user_params(function: &Function) -> Vec<TokenStream> {
    function
        .params
        .iter()
        .map(|param| {
            let ident = &param.ident;
            let ty = &param.ty;
            quote!(#ident: #ty)
        })
        .collect()
}

/// The variables recorded for a differentiable parameter.
fn variable_ident(ident: &Ident) -> Ident {
    // `r#type` becomes `type_var`: the generated name is not a keyword.
    Ident::new(&format!("{}_var", ident.unraw()), Span::mixed_site())
}

/// A parameter's label: its name and line.
fn param_label(param: &Param) -> TokenStream {
    let text = param.ident.to_string();
    label(&Label {
        // The receiver's stand-in is labelled as the student wrote it.
        text: if text == crate::receiver::SELF_PARAM {
            "self".to_owned()
        } else {
            text
        },
        line: param.line,
    })
}

/// A node's label, as the runtime takes it.
fn label(label: &Label) -> TokenStream {
    let text = &label.text;
    let line = proc_macro2::Literal::u32_unsuffixed(label.line);
    quote!(__ad::at(#text, #line))
}

/// What a call `f(..)` of another annotated function names, for the
/// generated siblings it reaches (`f_tape`, `f_forward`, ...).
pub enum Callee {
    /// `Self::f`, `Model::f`: the sibling is named directly,
    /// `Self::f_tape`; the path as written.
    Associated(syn::Path),
    /// `f`, `m::f`: the sibling is found through `f`'s companion
    /// (`emit/companion.rs`), looked up with `use scope::*` (`self`, or
    /// `m` for `m::f`).
    Free { name: Ident, scope: TokenStream },
}

impl Callee {
    pub fn of(func: &syn::Path) -> Callee {
        let segments = &func.segments;
        let associated = segments.len() > 1 && {
            let owner = segments[segments.len() - 2].ident.to_string();
            owner == "Self" || owner.starts_with(|c: char| c.is_ascii_uppercase())
        };
        match segments.last() {
            Some(last) if !associated => {
                let scope = if segments.len() == 1 {
                    quote!(self)
                } else {
                    let mut module = func.clone();
                    module.segments.pop();
                    module.segments.pop_punct();
                    quote!(#module)
                };
                Callee::Free {
                    name: last.ident.clone(),
                    scope,
                }
            }
            _ => Callee::Associated(func.clone()),
        }
    }
}

/// `path` with its last segment `f` renamed `f_suffix`: an associated
/// function's sibling.
pub fn sibling_path(path: &syn::Path, suffix: &str) -> TokenStream {
    let mut path = path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.ident = format_ident!("{}_{}", last.ident, suffix, span = last.ident.span());
    }
    quote!(#path)
}

/// The stand-ins of one body's calls of free functions (see
/// [`companion_lookup`]), declared once at the top of that body: one
/// module, one struct per callee with the methods its calls name, however
/// many calls there are. The compiled adjoint's; the recording twin keeps
/// one module per call, whose bound names the callee in its error.
#[derive(Default)]
pub struct StandIns(std::cell::RefCell<Vec<StandIn>>);

/// A callee's stand-in: its name, and each method a call names with the
/// never-run `fn` that declares it.
type StandIn = (Ident, Vec<(String, TokenStream)>);

impl StandIns {
    /// `name::method` at a call site, with `method` (a never-run `fn` of
    /// that name) added to `name`'s stand-in.
    pub fn lookup(
        &self,
        name: &Ident,
        scope: &TokenStream,
        method: &Ident,
        stand_in: impl FnOnce() -> TokenStream,
    ) -> TokenStream {
        let mut callees = self.0.borrow_mut();
        let index = match callees.iter().position(|(callee, _)| callee == name) {
            Some(index) => index,
            None => {
                callees.push((name.clone(), Vec::new()));
                callees.len() - 1
            }
        };
        let methods = &mut callees[index].1;
        let key = method.to_string();
        if !methods.iter().any(|(known, _)| *known == key) {
            methods.push((key, stand_in()));
        }
        quote::quote_spanned! {name.span()=>
            ({
                use #scope::*;
                #name::#method
            })
        }
    }

    /// The module and its glob import, for the top of the body; nothing
    /// when no call needed one.
    pub fn declarations(&self) -> TokenStream {
        let callees = self.0.borrow();
        if callees.is_empty() {
            return TokenStream::new();
        }
        let fallback = Ident::new("not_differentiable", Span::mixed_site());
        let structs = callees.iter().map(|(name, methods)| {
            let methods = methods.iter().map(|(_, method)| method);
            quote! {
                pub struct #name {}
                impl #name { #(#methods)* }
            }
        });
        quote! {
            mod #fallback { #(#structs)* }
            use #fallback::*;
        }
    }
}

/// `name::method` as a call site names it: looked up in `scope`, where an
/// annotated `name` has its companion, or else in `stand_in` (a module body
/// that defines a `name` of its own), which the outer glob brings in, so
/// that a plain `name` finds the stand-in instead of failing to resolve.
pub fn companion_lookup(
    name: &Ident,
    scope: &TokenStream,
    method: &Ident,
    stand_in: TokenStream,
) -> TokenStream {
    companion_scope(
        name,
        scope,
        stand_in,
        quote::quote_spanned!(name.span()=> #name::#method),
    )
}

/// `found`, an expression naming `name`'s companion, in the scope
/// [`companion_lookup`] describes: `name` is the companion where `name` is
/// annotated, the stand-in otherwise.
pub fn companion_scope(
    name: &Ident,
    scope: &TokenStream,
    stand_in: TokenStream,
    found: TokenStream,
) -> TokenStream {
    // Named for rustc's help lines, which name the stand-in by its path.
    let fallback = Ident::new("not_differentiable", Span::mixed_site());
    // On the student's `name`, where rustc reports a stand-in's bound.
    // The lints these items would raise (a lower-case type, an unused
    // import, ...) are allowed on the whole recording twin or adjoint.
    quote::quote_spanned! {name.span()=>
        ({
            mod #fallback { #stand_in }
            use #fallback::*;
            {
                use #scope::*;
                #found
            }
        })
    }
}
