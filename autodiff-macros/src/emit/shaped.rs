//! The items of a vector-valued function (one returning `Vec<f64>`,
//! `[f64; N]` or a tuple of these and `f64`): besides the plain and the
//! recording twin, `f_vjp` (the value and a cotangent pulled back to the
//! parameters), `f_jacobian` (the dense Jacobian), `f_jvp` (the value and
//! its derivative along a tangent), `f_check` and `f_check_with` (the
//! Jacobian against central differences), and the hidden `f_recorded`
//! they share. All of them run on the tape. A caller's compiled adjoint
//! calls the function through `adjoint::vector_pair`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::companion::Sibling;
use super::grad::{adjoint_arg, gradient_type_of, recording_bailing, Recording};
use super::{differentiable, user_params, Names};
use crate::ast::{Function, Kind};

/// The output type as the user wrote it.
pub fn output_syn_type(function: &Function) -> syn::Type {
    match &function.item.sig.output {
        syn::ReturnType::Type(_, ty) => (**ty).clone(),
        syn::ReturnType::Default => syn::parse_quote!(f64),
    }
}

/// The plain output type as the user wrote it.
fn output_type(function: &Function) -> TokenStream {
    let ty = output_syn_type(function);
    quote!(#ty)
}

/// `f_vjp`, `f_jacobian`, `f_jvp`, `f_check`, `f_check_with` and
/// `f_recorded`.
pub fn transforms(function: &Function, names: &Names) -> TokenStream {
    let Names {
        name,
        tape,
        attrs,
        generics,
        ..
    } = names;
    let vis = &function.item.vis;
    let differentiable = differentiable(function);
    let user_params = user_params(function);
    let arg_names: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
    let gradient_type = gradient_type_of(&differentiable);
    let out = output_type(function);
    let [flat, rest, error, tangent, cotangent, then, recorded, read, row, value] = [
        "flat",
        "rest",
        "error",
        "tangent",
        "cotangent",
        "then",
        "recorded",
        "read",
        "row",
        "value",
    ]
    .map(|ident| Ident::new(ident, Span::mixed_site()));
    let none = Ident::new("none", Span::mixed_site());
    let Recording { variables, call } = recording_bailing(
        function,
        names,
        &quote!(break 'record #then(::core::result::Result::Err(#error), &#none)),
    );
    let (recorded_fn, vjp_fn, jacobian_fn, jvp_fn, check_fn, check_with_fn) = (
        format_ident!("{}_recorded", name),
        format_ident!("{}_vjp", name),
        format_ident!("{}_jacobian", name),
        format_ident!("{}_jvp", name),
        format_ident!("{}_check", name),
        format_ident!("{}_check_with", name),
    );
    // After a reverse pass: every parameter's gradient, flattened.
    let reads = differentiable.iter().map(|param| {
        let (ident, var) = (&param.ident, super::variable_ident(&param.ident));
        match &param.kind {
            Kind::Struct { ty, .. } => quote_spanned!(ty.span()=>
                <#ty as __ad::Parameter>::components(&<#ty as __ad::Parameter>::gradient(&#var), &mut #row);
            ),
            _ => quote!(__ad::gradient_components(&#ident, &__ad::gradient(&#ident, &#var), &mut #row);),
        }
    });
    let tangents = super::second::flatten(&differentiable, &tangent, &flat);
    let gradient_value = super::second::rebuild(&differentiable, &rest, quote!(#flat));
    let kept_args: Vec<_> = function.params.iter().map(adjoint_arg).collect();
    let dup_args: Vec<_> = arg_names
        .iter()
        .map(|ident| quote!(__ad::dup(&#ident)))
        .collect();
    let check = check_parts(function);
    let result = quote!(::core::result::Result);
    let error_type = quote!(::autodiff::ScalarAutodiffError);
    let new_tape = quote!(&mut ::autodiff::Tape::new());
    let recorder_generics = {
        let lifetimes = function.item.sig.generics.params.iter();
        quote!(<#(#lifetimes,)* __R>)
    };
    let output_on_tape = {
        let lt = syn::Lifetime::new("'__t", Span::call_site());
        let shape = function
            .output
            .as_ref()
            .map(|shape| super::tape::shape_type(shape, &lt));
        quote!(for<'__t> ::core::ops::FnOnce(#result<#shape, #error_type>, &dyn ::core::ops::Fn() -> ::std::vec::Vec<f64>) -> __R)
    };
    let vjp_doc = format!(
        " The value of [`{name}`] and `cotangent` (shaped like its output) pulled back to the differentiable parameters: `cotangentᵀ · J`, shaped like the parameters. One recording on a tape and one reverse pass."
    );
    let jacobian_doc = format!(
        " The dense Jacobian of [`{name}`]: one row per output component (flattened in the output's order), one column per differentiable input component (in the order `{name}_check` lists them). One recording on a tape and one reverse pass per output component."
    );
    let jvp_doc = format!(
        " Forward mode: the value of [`{name}`] and its derivative along `tangent` (J · tangent, shaped like the output), `tangent` shaped like the parameters. One recording on a tape and one forward pass per output component."
    );
    let check_doc = format!(
        " Checks [`{jacobian_fn}`] against central differences of [`{name}`], every entry, with the default step and tolerance."
    );
    let check_with_doc = format!(
        " Checks [`{jacobian_fn}`] against central differences of [`{name}`], every entry; `step: None` uses `default_step` of each input."
    );
    let CheckParts {
        inputs,
        components,
        rebuilds,
        value: plain_value,
        step,
        tolerance,
        point,
    } = check;
    quote! {
        #[doc(hidden)]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #vis fn #recorded_fn #recorder_generics(
            #tape: &mut ::autodiff::Tape,
            #(#user_params,)*
            #then: impl #output_on_tape,
        ) -> __R {
            use ::autodiff::__private as __ad;
            #tape.clear();
            let #tape = &*#tape;
            let #none = || ::std::vec::Vec::new();
            'record: {
                #(#variables)*
                if let ::core::option::Option::Some(#error) = __ad::refused(#tape) {
                    break 'record #then(::core::result::Result::Err(#error), &#none);
                }
                let #read = || {
                    let mut #row = ::std::vec::Vec::new();
                    #(#reads)*
                    #row
                };
                #then(#call.map_err(::core::convert::Into::into), &#read)
            }
        }

        #[doc = #vjp_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #vis fn #vjp_fn #generics(
            #(#user_params,)*
            #cotangent: #out
        ) -> #result<::autodiff::ValueAndGradient<#gradient_type, #out>, #error_type> {
            use ::autodiff::__private as __ad;
            // The parameters are read again to shape the gradient: what the
            // recording takes by value, it takes as a copy.
            let (#value, #flat) = #recorded_fn(#new_tape, #(#kept_args,)* |#recorded, #read| {
                let #value = __ad::vjp(#recorded, &#cotangent)?;
                #result::<_, #error_type>::Ok((#value, #read()))
            })?;
            #result::Ok(::autodiff::ValueAndGradient {
                value: #value,
                gradient: #gradient_value,
            })
        }

        #[doc = #jacobian_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #vis fn #jacobian_fn #generics(
            #(#user_params),*
        ) -> #result<::autodiff::Jacobian, #error_type> {
            #recorded_fn(#new_tape, #(#arg_names,)* |#recorded, #read| ::autodiff::__private::jacobian(#recorded, #read))
        }

        #[doc = #jvp_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #vis fn #jvp_fn #generics(
            #(#user_params,)*
            #tangent: #gradient_type
        ) -> #result<::autodiff::Jvp<#out>, #error_type> {
            use ::autodiff::__private as __ad;
            let mut #flat = ::std::vec::Vec::new();
            #(#tangents)*
            #recorded_fn(#new_tape, #(#arg_names,)* |#recorded, _| __ad::jvp_shaped(#recorded, &#flat))
        }

        #[doc = #check_doc]
        #(#attrs)*
        #vis fn #check_fn #generics(
            #(#user_params),*
        ) -> #result<::autodiff::JacobianCheck, ::autodiff::GradientCheckError> {
            #check_with_fn(::core::option::Option::None, ::autodiff::DEFAULT_TOLERANCE, #(#arg_names),*)
        }

        #[doc = #check_with_doc]
        #(#attrs)*
        #[allow(clippy::too_many_arguments)]
        #vis fn #check_with_fn #generics(
            #step: ::core::option::Option<f64>,
            #tolerance: f64,
            #(#user_params),*
        ) -> #result<::autodiff::JacobianCheck, ::autodiff::GradientCheckError> {
            use ::autodiff::__private as __ad;
            let mut #inputs = ::std::vec::Vec::new();
            #(#components)*
            let #value = match #jacobian_fn(#(#dup_args),*) {
                #result::Ok(#value) => #value,
                #result::Err(#error) => return #result::Err(#error.into()),
            };
            __ad::jacobian_check(&#inputs, &#value, #step, #tolerance, |#point| {
                let mut #rest = #point;
                #(#rebuilds)*
                __ad::output_components(&#plain_value)
            })
        }
    }
}

/// The pieces of the check: the inputs' components, how a point is
/// rebuilt into arguments, and the plain twin's call on them.
struct CheckParts {
    inputs: Ident,
    components: Vec<TokenStream>,
    rebuilds: Vec<TokenStream>,
    value: TokenStream,
    step: Ident,
    tolerance: Ident,
    point: Ident,
}

fn check_parts(function: &Function) -> CheckParts {
    let [inputs, rest, step, tolerance, point] = ["inputs", "rest", "step", "tolerance", "point"]
        .map(|ident| Ident::new(ident, Span::mixed_site()));
    let differentiable = differentiable(function);
    let (plain, twin_args) = super::check::plain_call(function);
    CheckParts {
        components: super::check::components(&differentiable, &inputs),
        rebuilds: super::check::rebuilds(&differentiable, &rest),
        inputs,
        value: quote!(#plain(#twin_args)),
        step,
        tolerance,
        point,
    }
}

/// The compiled reverse of a vector-valued function, for a caller's
/// compiled adjoint: the scalar `⟨cotangent, f(args…)⟩`, written as a
/// function of the parameters and a `#[constant]` cotangent (the body,
/// then `let __output: Out = tail;` and the sum over its components),
/// differentiated by the compiled adjoint like any scalar function. Its
/// gradient is `cotangentᵀ J`; a tuple's items are summed in turn
/// (`__cotangent.0 * __output.0 + ..`). `None` where that function does
/// not compile to an adjoint (a `return` in the body, a tuple of more
/// than eight items, or a construct the sweeps refuse): the pair then
/// runs `f_vjp` on the tape, which `__adjoint::tape_reruns` counts.
/// A call of another annotated function or method inside composes as in
/// any caller's adjoint.
///
/// Split (`Dot::split`) unless the function has generics or a `mut`
/// parameter: the reverse then reads the arguments the caller passes it
/// again, which a `mut` parameter's may no longer be.
///
/// Split, and seeded (`Dot::seeded`) where the output is a binding of the
/// body's own bound once at its top level: the sweep stops before the
/// sum and starts the binding's adjoint as the cotangent, which the
/// reverse takes by value (the caller's adjoint of the call's value,
/// moved where it reads it no more). The sum's adjoint would be that
/// cotangent added to zeros; seeded, there are no zeros to make and no
/// sum to run, and the output moves to the caller instead of being copied
/// for the closure, which no longer reads it.
pub fn compiled_dot(function: &Function) -> Option<(TokenStream, Dot)> {
    let item = function.item;
    if super::tape::may_return(&function.body) {
        return None;
    }
    // A scalar function's is `cotangent × f` (see `scalar_pair`).
    let scalar = crate::ast::Shape::Scalar;
    let shape = function.output.as_ref().unwrap_or(&scalar);
    // A tuple's items are read off a split forward's `NoCotangent` too,
    // which has eight (`NoCotangents`).
    if !fits_no_cotangent(shape) {
        return None;
    }
    let (stmts, tail) = match item.block.stmts.split_last()? {
        (syn::Stmt::Expr(tail, None), stmts) => (stmts, tail),
        _ => return None,
    };
    let out = output_type(function);
    // The bindings the tail returns (`out`, or the names of a tuple
    // `(m, c)`) with the types the signature gives them, written on their
    // `let`s: the function's return type is what types an untyped
    // `let out = x.iter().map(..).collect();`, and here the tail is no
    // longer the function's value.
    let returned: Vec<(Ident, syn::Type)> = match tail {
        syn::Expr::Path(path) => path
            .path
            .get_ident()
            .map(|ident| (ident.clone(), output_syn_type(function)))
            .into_iter()
            .collect(),
        syn::Expr::Tuple(items) => items
            .elems
            .iter()
            .zip(tuple_types(&output_syn_type(function)))
            .filter_map(|(item, ty)| match item {
                syn::Expr::Path(path) => path.path.get_ident().map(|ident| (ident.clone(), ty)),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    let stmts = typed_lets(stmts, &returned);
    let name = format_ident!("{}_cotangent_dot", item.sig.ident);
    let inputs: Vec<_> = item.sig.inputs.iter().collect();
    let lifetimes = &item.sig.generics;
    // `__cotangent[i][j] * __output[i][j]` summed, a loop per level, and
    // a tuple's items in turn (`__output.0`).
    let sum = dot_sum(shape, quote!(__cotangent), quote!(__output), 0);
    // A binding as the tail (`out`) is read where it is: bound again, a
    // `Vec` grown by `push` would be moved from its own adjoint's shape.
    // An annotated call as the tail (`matmul(&a, &v)`) is bound as it is,
    // a vector binding of a call (`adjoint::analysis::calls`): the type written
    // would be read as that of a number read from the call.
    let annotated_call = matches!(
        function.body.split_tail().1.map(|tail| &tail.kind),
        Some(crate::ast::ExprKind::Call { .. })
    );
    let named = Ident::new("__output", Span::call_site());
    let (bind, output, named) = match tail {
        syn::Expr::Path(path) if path.path.get_ident().is_some() => {
            (quote!(), quote!(#path), path.path.get_ident()?.clone())
        }
        _ if annotated_call => (quote!(let __output = #tail;), quote!(__output), named),
        // A tuple (`(h, s)`): a binding holding a `Vec` is copied into the
        // output, not moved, for the reverse sweep still reads it; any other
        // item (a chain's `collect()`, an `if`, a call) is bound by a `let`
        // of its own type first, as the sweeps take it.
        syn::Expr::Tuple(items) if items.elems.len() == tuple_items(shape).len() => {
            let types = tuple_types(&output_syn_type(function));
            let mut lets = Vec::new();
            let items: Vec<TokenStream> = items
                .elems
                .iter()
                .zip(tuple_items(shape))
                .enumerate()
                .map(|(k, (item, shape))| {
                    let binding =
                        matches!(item, syn::Expr::Path(path) if path.path.get_ident().is_some());
                    let (named, value) = match types.get(k) {
                        Some(ty) if !binding && !matches!(item, syn::Expr::Lit(_)) => {
                            let name = format_ident!("__output_{}", k);
                            lets.push(quote!(let #name: #ty = #item;));
                            (true, quote!(#name))
                        }
                        _ => (binding, quote!(#item)),
                    };
                    if named && holds_vec(shape) {
                        quote!(#value.clone())
                    } else {
                        value
                    }
                })
                .collect();
            (
                quote!(#(#lets)* let __output: #out = (#(#items,)*);),
                quote!(__output),
                named,
            )
        }
        _ => (quote!(let __output: #out = #tail;), quote!(__output), named),
    };
    let sum = replace_ident(sum, "__output", &output);
    // The output as a binding of the body's own (the tail `out`, or
    // `__output` bound to it) in a function without generics or `mut`
    // parameters: its adjoint can start as the cotangent, taken by value
    // (`Sweep::seed_output`), with no sum to run forward or reverse.
    let seedable = matches!(
        shape,
        crate::ast::Shape::Vec(_) | crate::ast::Shape::Array(..)
    ) && vector_depth(shape).is_some()
        && !function.params.iter().any(|param| param.ident == named);
    // Seeded, the sweep stops before the sum (`Sweep::seed_output`), and
    // the cotangent is taken by value.
    let dot_fn = |seeded: bool| -> syn::ItemFn {
        let cotangent = if seeded { quote!(#out) } else { quote!(&#out) };
        syn::parse_quote! {
            fn #name #lifetimes(#(#inputs,)* #[constant] __cotangent: #cotangent) -> f64 {
                #(#stmts)*
                #bind
                let mut __dot = 0.0;
                #sum
                __dot
            }
        }
    };
    let attempt = |seeded: bool, split: bool| -> Result<(TokenStream, Dot), Option<String>> {
        let dot = dot_fn(seeded);
        let macros = crate::lower::MacroBodies::default();
        let model = crate::lower::function(&dot, &macros);
        let cx = crate::ctxt::Ctxt::default();
        crate::valid::check(&cx, &model);
        if cx.check().is_some() {
            if std::env::var_os("DOT_WHY").is_some() {
                eprintln!("DOTWHY {name}: rejected by the checks");
            }
            return Err(None);
        }
        let names = Names::new(&model);
        let gradient_type = gradient_type_of(&differentiable(&model));
        let entry = if split {
            super::adjoint::Entry::Split(&named, seeded)
        } else {
            super::adjoint::Entry::Intermediates
        };
        let adjoint = super::adjoint::items_with(&model, &names, &gradient_type, entry);
        // A developer's view of why a helper's reverse is not compiled,
        // which no `f_grad_path` names: the caller's reverse then runs the
        // helper's `f_vjp` on the tape (`DOT_WHY=1` while expanding).
        if let (Some((construct, line)), Some(_)) = (&adjoint.fallback, std::env::var_os("DOT_WHY"))
        {
            eprintln!("DOTWHY {}: {construct} at line {line}", names.name);
        }
        match adjoint.fallback {
            Some((construct, _)) => Err(Some(construct)),
            None => Ok((
                adjoint.items,
                Dot {
                    name: adjoint.adjoint_fn,
                    split,
                    seeded,
                },
            )),
        }
    };
    let split = item.sig.generics.params.is_empty()
        && function
            .params
            .iter()
            .all(|param| param.mutability.is_none());
    // Seeded and split where it can be, else split, else neither where
    // the split closure could not own a binding (`adjoint::BORROWING`).
    let borrowing = |reason: &Option<String>| reason.as_deref() == Some(super::adjoint::BORROWING);
    let mut reason = None;
    if split && seedable {
        match attempt(true, true) {
            Ok(done) => return Some(done),
            Err(why) => reason = Some(why),
        }
    }
    if split && !reason.as_ref().is_some_and(borrowing) {
        match attempt(false, true) {
            Ok(done) => return Some(done),
            Err(why) if borrowing(&why) => {}
            Err(_) => return None,
        }
    }
    attempt(false, false).ok()
}

/// The pair of a scalar function that takes a model by reference (a
/// layer's `score(&self, x)`): split as a vector-valued callee's is, so
/// that a caller's reverse has the callee's reverse add `value_bar ×` its
/// gradient straight into the caller's adjoint of the model (lent, see
/// `adjoint::lend`), where the pair of `f_adjoint` would make a
/// model-shaped gradient per call, push it, and pop it scaled into the
/// caller's. With the dot's items; any other function, or one whose dot
/// is not split or does not compile, keeps `pair` (of `f_adjoint`).
pub fn scalar_pair(
    function: &Function,
    names: &Names,
    pair: [Sibling; 2],
) -> (TokenStream, [Sibling; 2]) {
    let by_ref_model = function
        .params
        .iter()
        .any(|param| matches!(param.kind, Kind::Struct { by_ref: true, .. }));
    if function.output.is_some() || !by_ref_model {
        return (TokenStream::new(), pair);
    }
    match compiled_dot(function) {
        Some((dot, dot_fn)) if dot_fn.split => {
            let output = output_syn_type(function);
            let split = super::adjoint::vector_pair(function, names, &output, Some(&dot_fn));
            (dot, split)
        }
        _ => (TokenStream::new(), pair),
    }
}

/// The compiled reverse of a vector-valued function (`compiled_dot`).
pub struct Dot {
    /// `f_cotangent_dot_adjoint`.
    pub name: Ident,
    /// Whether it is split: the forward sweep, returning the value and
    /// its reverse sweep (`adjoint::Entry::Split`).
    pub split: bool,
    /// Whether its reverse takes the cotangent by value, as the output
    /// binding's adjoint (`Sweep::seed_output`).
    pub seeded: bool,
}

/// `__dot += cotangent · output` over the numbers of `shape`: a loop per
/// `Vec` or array (`for __k0 in 0..output.len()`), each item of a tuple
/// in turn (`output.0`).
fn dot_sum(
    shape: &crate::ast::Shape,
    cotangent: TokenStream,
    output: TokenStream,
    level: usize,
) -> TokenStream {
    use crate::ast::Shape;
    match shape {
        Shape::Scalar => quote!(__dot += #cotangent * #output;),
        Shape::Vec(elem) | Shape::Array(elem, _) => {
            let k = format_ident!("__k{}", level);
            let inner = dot_sum(elem, quote!(#cotangent[#k]), quote!(#output[#k]), level + 1);
            quote!(for #k in 0..#output.len() { #inner })
        }
        // (A split forward's `NoCotangent` has the items too.)
        Shape::Tuple(items) => items
            .iter()
            .enumerate()
            .map(|(k, item)| {
                let k = syn::Index::from(k);
                dot_sum(item, quote!(#cotangent.#k), quote!(#output.#k), level)
            })
            .collect(),
    }
}

/// `stmts` with the last `let` of each of `names` that binds it alone and
/// untyped (`let out = ..;`) given its type (`let out: Vec<f64> = ..;`).
/// Only the last binds the value the tail reads; an earlier one, or one
/// in a nested block, may hold a value of another type.
fn typed_lets(stmts: &[syn::Stmt], names: &[(Ident, syn::Type)]) -> Vec<syn::Stmt> {
    let mut stmts = stmts.to_vec();
    for (name, ty) in names {
        let binds = |pat: &syn::Pat| crate::lower::pattern_names(pat).contains(&name.to_string());
        let last = stmts.iter_mut().rev().find_map(|stmt| match stmt {
            syn::Stmt::Local(local) if binds(&local.pat) => Some(local),
            _ => None,
        });
        if let Some(local) = last {
            if let syn::Pat::Ident(ident) = &local.pat {
                if ident.by_ref.is_none() && ident.subpat.is_none() && local.init.is_some() {
                    local.pat = syn::Pat::Type(syn::PatType {
                        attrs: Vec::new(),
                        pat: Box::new(local.pat.clone()),
                        colon_token: Default::default(),
                        ty: Box::new(ty.clone()),
                    });
                }
            }
        }
    }
    stmts
}

/// A tuple type's item types, as written (none for any other type).
fn tuple_types(ty: &syn::Type) -> Vec<syn::Type> {
    match ty {
        syn::Type::Tuple(tuple) => tuple.elems.iter().cloned().collect(),
        syn::Type::Paren(paren) => tuple_types(&paren.elem),
        syn::Type::Group(group) => tuple_types(&group.elem),
        _ => Vec::new(),
    }
}

/// A tuple's items' shapes (none for any other shape).
fn tuple_items(shape: &crate::ast::Shape) -> &[crate::ast::Shape] {
    match shape {
        crate::ast::Shape::Tuple(items) => items,
        _ => &[],
    }
}

/// Whether `shape` has a `Vec` in it, which moves.
fn holds_vec(shape: &crate::ast::Shape) -> bool {
    use crate::ast::Shape;
    match shape {
        Shape::Scalar => false,
        Shape::Vec(_) => true,
        Shape::Array(elem, _) => holds_vec(elem),
        Shape::Tuple(items) => items.iter().any(holds_vec),
    }
}

/// Whether every tuple in `shape` has at most the eight items of
/// `__adjoint::NoCotangents`.
fn fits_no_cotangent(shape: &crate::ast::Shape) -> bool {
    use crate::ast::Shape;
    match shape {
        Shape::Scalar => true,
        Shape::Vec(elem) | Shape::Array(elem, _) => fits_no_cotangent(elem),
        Shape::Tuple(items) => items.len() <= 8 && items.iter().all(fits_no_cotangent),
    }
}

/// How many `Vec`s and arrays hold the numbers of `shape` (`None` for a
/// tuple anywhere).
fn vector_depth(shape: &crate::ast::Shape) -> Option<usize> {
    use crate::ast::Shape;
    match shape {
        Shape::Scalar => Some(0),
        Shape::Vec(elem) | Shape::Array(elem, _) => Some(vector_depth(elem)? + 1),
        Shape::Tuple(_) => None,
    }
}

/// `tokens` with every identifier `name` replaced by `with`.
fn replace_ident(tokens: TokenStream, name: &str, with: &TokenStream) -> TokenStream {
    use proc_macro2::{Group, TokenTree};
    tokens
        .into_iter()
        .flat_map(|token| match token {
            TokenTree::Ident(ident) if ident == name => with.clone().into_iter().collect(),
            TokenTree::Group(group) => {
                let mut replaced =
                    Group::new(group.delimiter(), replace_ident(group.stream(), name, with));
                replaced.set_span(group.span());
                vec![TokenTree::Group(replaced)]
            }
            other => vec![other],
        })
        .collect()
}
