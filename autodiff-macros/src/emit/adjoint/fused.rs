//! `f_adjoint` (and `f_adjoint_dual`) assembled: the parameters checked,
//! the forward sweep run into the value (its exits labelled), the
//! adjoints declared shaped like what they differentiate, the reverse
//! sweep, and the gradient returned where every part is finite; the
//! attributes every adjoint item carries. `mod.rs` runs the rewriters and
//! calls this once on `f64`s and, where `dual` takes the body, once on
//! duals.

use super::*;

/// `#[inline(never)]` for an adjoint with a loop, unless the user wrote an
/// `#[inline]` of their own. Inlined into `f_grad`, where its stack is a
/// local whose address a push's growth takes, such a loop kept its carried
/// values in memory across every trip (the chain bench's forward loop ran
/// 1.38× the hand-written one, which is out of line); one call is nothing
/// beside a loop. A body without one stays inlinable, so a caller's loop
/// that calls a small helper (`softplus`) does not pay a call for it.
fn out_of_line(sweep: &Sweep, attrs: &[&syn::Attribute]) -> TokenStream {
    let users = attrs.iter().any(|attr| attr.path().is_ident("inline"));
    if sweep.has_loops() && !users {
        quote!(#[inline(never)])
    } else {
        TokenStream::new()
    }
}

/// The attributes every adjoint item carries: the user's (`#[inline]`,
/// `#[allow]`) and the allowances generated code needs.
fn allowances(stand_ins: bool) -> TokenStream {
    // Calls' stand-ins (`emit::StandIns`): a lower-case type, a glob
    // import that only a plain callee uses, items never run.
    let stand_ins = stand_ins.then(|| {
        quote!(
            unused_imports,
            dead_code,
            non_camel_case_types,
            unreachable_pub,
        )
    });
    quote! {
        #[doc(hidden)]
        #[allow(
            unused_mut,
            unused_variables,
            unused_parens,
            unused_assignments,
            unused_doc_comments,
            unreachable_code,
            non_snake_case,
            #stand_ins
            clippy::all,
            clippy::pedantic
        )]
    }
}

fn param_decls(function: &Function) -> Vec<TokenStream> {
    param_inputs(function)
        .iter()
        .map(Input::declaration)
        .collect()
}

#[allow(clippy::too_many_arguments)]
pub(super) fn fused(
    function: &Function,
    names: &Names,
    gradient_type: &TokenStream,
    adjoint_fn: &Ident,
    stack: &Ident,
    an: &Analysis,
    extremes: &HashSet<String>,
    entry: Entry<'_>,
    on_duals: bool,
) -> Result<TokenStream, Unsupported> {
    let mut sweep = Sweep::new(an, stack.clone());
    if on_duals {
        let models = function
            .params
            .iter()
            .filter_map(|param| match &param.kind {
                Kind::Struct { ty, by_ref: true } => Some((param.ident.to_string(), quote!(#ty))),
                _ => None,
            })
            .collect();
        sweep.on_duals(models);
    }
    let mut unobserved = extremes.clone();
    unobserved.extend(extremes::running(&function.body, an));
    sweep.unobserved(unobserved);
    let value = sweep.own("value");
    // Taken before the parameters' adjoints are named: a parameter or
    // binding called `value` has an adjoint of another name.
    let value_bar = sweep.reserve("value_bar");
    let mut bars = Vec::new();
    // A `#[constant] mut` parameter that later holds a derivative.
    let mut carried = Vec::new();
    for param in &function.params {
        let bar = match &param.kind {
            Kind::Struct { ty, .. } if on_duals => {
                sweep.bind_spanned(&param.ident.to_string(), syn::spanned::Spanned::span(ty))
            }
            _ => sweep.bind(&param.ident.to_string()),
        };
        if param.kind.is_differentiable() {
            bars.push((param, bar));
        } else if an.active.contains(&param.ident.to_string()) {
            let ident = &param.ident;
            carried.push(quote!(let mut #bar = ::autodiff::__adjoint::zero(&#ident);));
        }
    }
    // A return type the macro cannot see is `f64` (`-> Real`): asserted on
    // the value the body computes, so that an alias of another type is one
    // error (the plain twin's, when the body computes an `f64`).
    let alias = match &function.item.sig.output {
        syn::ReturnType::Type(_, ty) if !crate::valid::is_f64(ty) => Some(&**ty),
        _ => None,
    };
    sweep.outputs_as_written(alias.is_some());
    let label = syn::Lifetime::new("'reverse", Span::mixed_site());
    // Gradients are allocated after the forward sweep (which then runs on
    // a warm cache), except a parameter the body may move.
    // (or one a later `let` shadows, so that its value is gone by the end)
    let movable = |param: &Param| {
        matches!(param.kind, Kind::Vec(_))
            || an.bound.get(&param.ident.to_string()).copied() != Some(1)
    };
    // A callee's caller may pass no adjoint for a constant argument
    // (`lend`): the sweep adds into a lent slice's only under its flag.
    let unused = Ident::new("unused", Span::mixed_site());
    let mut guarded = Vec::new();
    if entry.intermediates() {
        sweep.bail_with(quote!(break #label ::core::option::Option::None));
        for (param, bar) in &bars {
            if lend::guardable(param, &movable) {
                let live = lend::live(param);
                sweep.guard(bar, live.clone());
                guarded.push((bar.clone(), live));
            }
        }
    }
    if let (Entry::Split(output, true), Some(cotangent)) = (entry, function.params.last()) {
        let cotangent = &cotangent.ident;
        sweep.seed_output(output.to_string(), quote!(#cotangent));
    }
    let code = sweep.body(&function.body, &Seed::new(quote!(#value_bar)))?;
    if !sweep.output_seeded() {
        return Err(Unsupported {
            construct: "an output whose adjoint cannot start as the cotangent".to_string(),
            line: 0,
        });
    }
    if let Some(unsupported) = sweep.unreversed_move(&function.body) {
        return Err(unsupported);
    }
    let (fwd, tail, rev) = (code.fwd, code.value, code.rev);
    let returned = match alias {
        Some(ty) => {
            use syn::spanned::Spanned;
            let asserted = quote::quote_spanned!(ty.span()=> <#ty as ::autodiff::__adjoint::ReturnsF64<_>>::value);
            quote!(#asserted(#tail))
        }
        None => quote!(#tail),
    };
    let declare_one = |(param, bar): &(&Param, Ident)| {
        let ident = &param.ident;
        if let (Kind::Struct { ty, .. }, true) = (&param.kind, on_duals) {
            // The model's twin: its adjoint starts as zeros of its shape.
            let span = syn::spanned::Spanned::span(ty);
            let zero =
                quote::quote_spanned!(span=> <#ty as ::autodiff::__private::Parameter>::zero_duals);
            let mut bar = bar.clone();
            bar.set_span(span);
            let mut ident = ident.clone();
            ident.set_span(span);
            return quote!(let mut #bar = #zero(#ident););
        }
        if let Kind::Struct { by_ref, ty } = &param.kind {
            let model = super::super::grad::model_ref(ident, *by_ref);
            let zero = model_call(ty, "zero_owned", &[Argument::Plain(model)]);
            return quote!(let mut #bar = #zero;);
        }
        // A slice parameter (`&[f64]`, `&Vec<f64>`, `&[f64; N]`) has a
        // `Vec` gradient whatever it derefs to.
        let whole = match param.kind {
            Kind::Slice(_) => quote!(&#ident[..]),
            _ => quote!(&#ident),
        };
        quote!(let mut #bar = ::autodiff::__adjoint::zero(#whole);)
    };
    let declare_early = bars
        .iter()
        .filter(|(param, _)| movable(param))
        .map(declare_one);
    let declare = bars
        .iter()
        .filter(|(param, _)| !movable(param))
        .map(declare_one);
    // Parameters of numbers are checked before the forward sweep, which
    // then does not run on a value the tape rejects (the student's code
    // could `assert!` or loop on a NaN), and their gradients at the end.
    // A parameter holding models is checked with its gradient at the end
    // in one pass, or, if the body may move it, before.
    let numbers = |param: &Param| !param.kind.holds_struct();
    let (early, late): (Vec<_>, Vec<_>) = bars
        .iter()
        .partition(|(param, _)| numbers(param) || movable(param));
    // On duals, `lift` checked the parameters and `Split` checks the
    // gradient, each in the pass that makes it.
    let early: Vec<_> = early
        .iter()
        .filter(|_| !on_duals)
        .map(|(param, _)| {
            let ident = &param.ident;
            match param.kind {
                // Unless a caller running now checked the same slice.
                Kind::Slice(_) if entry.intermediates() => {
                    quote!(#stack.observe_arg(&#ident[..]);)
                }
                _ if numbers(param) && entry.intermediates() => {
                    quote!(#stack.observe_infinite(&#ident);)
                }
                Kind::Slice(_) => quote!(#stack.observe(&#ident[..]);),
                _ if numbers(param) => quote!(#stack.observe(&#ident);),
                _ => quote!(#stack.observe_param(&#ident, &::autodiff::__adjoint::zero(&#ident));),
            }
        })
        .collect();
    let refuse = (!early.is_empty()).then(|| {
        quote! {
            if !#stack.finite() {
                return ::core::option::Option::None;
            }
        }
    });
    let late_checks = late.iter().map(|(param, bar)| {
        let ident = &param.ident;
        match &param.kind {
            // On duals, `split_model` checks the model's gradient as it
            // takes it apart.
            Kind::Struct { .. } if on_duals => quote!(),
            // A caller's adjoint lent to the sweep (`lend`): checked with
            // the model, as the caller made it (its constants carried).
            Kind::Struct { by_ref: true, ty }
                if entry.intermediates() && lend::lendable(param, &movable) =>
            {
                let model = super::super::grad::model_ref(ident, true);
                let finite = model_call(
                    ty,
                    "finite_with_bar",
                    &[
                        Argument::Plain(model),
                        Argument::Bound("bar", quote!(&#bar)),
                    ],
                );
                quote!(#stack.checked(((), #finite));)
            }
            // The model's gradient (its constants carried), checked with
            // the model in one pass.
            Kind::Struct { by_ref, ty } => {
                let model = super::super::grad::model_ref(ident, *by_ref);
                let carry = model_call(
                    ty,
                    "carry_gradient",
                    &[Argument::Plain(model), Argument::Bound("bar", quote!(#bar))],
                );
                quote!(let #bar = #stack.checked(#carry);)
            }
            Kind::Slice(_) => quote!(#stack.observe_param(&#ident[..], &#bar);),
            _ => quote!(#stack.observe_param(&#ident, &#bar);),
        }
    });
    // A slice lent by the caller (`lend`) is checked by the caller where
    // it checks it itself at its end (`Stack::checked_later`).
    let lent_slice = |param: &Param| {
        entry.intermediates()
            && matches!(param.kind, Kind::Slice(_))
            && lend::lendable(param, &movable)
    };
    let early_bars = bars
        .iter()
        .filter(|(param, _)| !on_duals && (numbers(param) || movable(param)))
        .map(|(param, bar)| {
            if numbers(param) && lent_slice(param) {
                // Checked as it is given back (`lend::into_caller`).
                quote!()
            } else if numbers(param) {
                quote!(#stack.observe(&#bar);)
            } else {
                quote!(#stack.observe_param(&#bar, &#bar);)
            }
        });
    // The top-level adjoint's slices of numbers, checked before the
    // forward sweep and with their adjoints at the end: a callee's checks
    // of the same would repeat them (`Stack::checked_slice`), until this
    // adjoint ends. Only where the body calls an annotated function.
    let calls = crate::text::count(&quote!(#(#fwd)*), "__forward") > 0;
    let noted = |param: &Param| {
        calls
            && !on_duals
            && !entry.intermediates()
            && matches!(param.kind, Kind::Slice(_))
            && numbers(param)
            && param.mutability.is_none()
            && !movable(param)
    };
    let checked_mark = Ident::new("checked_mark", Span::mixed_site());
    let note_checked: Vec<_> = bars
        .iter()
        .filter(|(param, _)| noted(param))
        .map(|(param, _)| {
            let ident = &param.ident;
            quote!(#stack.checked_slice(&#ident[..]);)
        })
        .collect();
    let note_later: Vec<_> = bars
        .iter()
        .filter(|(param, _)| noted(param))
        .map(|(_, bar)| quote!(#stack.checked_later(&#bar[..]);))
        .collect();
    let (mark, forget) = if note_checked.is_empty() {
        (None, None)
    } else {
        (
            Some(quote!(let #checked_mark = #stack.checked_mark();)),
            Some(quote!(#stack.forget_checked(#checked_mark);)),
        )
    };
    // A model's gradient carries its constants from the model, whatever
    // the sweep wrote into its adjoint's (`src/__adjoint/models.rs`); a
    // model parameter's was made by its check above.
    let gradients: Vec<_> = bars
        .iter()
        .map(|(param, bar)| {
            if !param.kind.holds_struct() || matches!(param.kind, Kind::Struct { .. }) {
                return quote!(#bar);
            }
            let ident = &param.ident;
            match param.kind {
                Kind::Slice(_) => quote!(::autodiff::__adjoint::carry(&#ident[..], #bar)),
                _ => quote!(::autodiff::__adjoint::carry(&#ident, #bar)),
            }
        })
        .collect();
    let gradient = if let [gradient] = gradients.as_slice() {
        gradient.clone()
    } else {
        quote!((#(#gradients,)*))
    };
    let Names {
        attrs, generics, ..
    } = names;
    let vis = &function.item.vis;
    let params = if on_duals {
        param_inputs(function)
            .iter()
            .zip(&function.params)
            .map(|(input, param)| {
                let mut input = Input::new(&input.ident, &input.ty).mutable(input.mutability);
                match &param.kind {
                    // Spanned on its type, as every use of its twin is: a
                    // struct that is not a model is then one error there.
                    Kind::Struct { ty, .. } => {
                        let twin = dual::twin_of(ty);
                        let span = syn::spanned::Spanned::span(ty);
                        input.ty = quote::quote_spanned!(span=> &#twin);
                        input.ident.set_span(span);
                    }
                    _ if param.kind.is_differentiable() => {
                        input.ty = dual::dual_type(&input.ty);
                    }
                    _ => {}
                }
                input.declaration()
            })
            .collect()
    } else {
        param_decls(function)
    };
    let stand_ins = sweep.stand_ins();
    let sites = sweep.sites();
    let give_sites = sweep.give_sites();
    let allow = allowances(!stand_ins.is_empty());
    if entry.intermediates() {
        let reversed = Ident::new("reversed", Span::mixed_site());
        // A lent slice whose every mention the sweep wrote under its flag
        // takes the caller's adjoint as it is, empty when unused; else
        // zeros of its own when unused (borrowed as a slice too where the
        // sweep only indexes it).
        let written = quote!(#(#fwd)* #(#rev)* #stand_ins #sites);
        let guards: Vec<_> = guarded
            .iter()
            .map(|(bar, live)| {
                let all = crate::text::count(&written, &bar.to_string()) == sweep.guarded(bar);
                let indexed = crate::text::only_indexed(&written, &bar.to_string());
                (bar.to_string(), (live.clone(), all, indexed))
            })
            .collect();
        let position = |param: &Param| {
            function
                .params
                .iter()
                .position(|p| std::ptr::eq(p, param))
                .unwrap_or(0)
        };
        let into = lend::into_caller(
            &bars,
            &gradients,
            &movable,
            stack,
            &lend::Unused {
                mask: &unused,
                guards: guards.into_iter().collect(),
                position: &position,
                checks: !on_duals,
            },
        );
        let (inputs, give) = (into.inputs, into.give);
        let lend = bars
            .iter()
            .zip(into.lent)
            .filter_map(|(param, lent)| match lent {
                Some(lend) => Some(lend),
                None => (!movable(param.0)).then(|| declare_one(param)),
            });
        // The forward sweep, and the reverse sweep with the gradient
        // given back: one function, or split in two (`lend::split`).
        let forward = quote! {
            #stand_ins
            #sites
            #(#declare_early)*
            #(#carried)*
            #(#early)*
            if !#stack.finite() {
                return ::core::option::Option::None;
            }
            #(#fwd)*
            let #value: f64 = #returned;
        };
        // A seeded split's value is no sum (`Entry::Split`): the caller
        // observes the output.
        let observe_value = match entry {
            Entry::Split(_, true) => None,
            _ => Some(quote!(#stack.observe(#value);)),
        };
        let reverse = quote! {
            #(#lend)*
            let #value_bar = 1.0;
            // A record the reverse sweep does not find leaves this
            // block only (`Sweep::bail_with`): the caller's lent
            // adjoints go back.
            let #reversed = #label: {
                #(#rev)*
                #give_sites
                ::core::option::Option::Some(())
            };
            #observe_value
            #(#late_checks)*
            #(#early_bars)*
            #(#give)*
            #reversed.and(#stack.finite().then_some(()))
        };
        if let Entry::Split(output, _) = entry {
            if !lend::owns_its_bindings(function) {
                return Err(Unsupported {
                    construct: lend::BORROWING.to_string(),
                    line: 0,
                });
            }
            let head = quote! {
                #allow
                #(#attrs)*
                #vis fn #adjoint_fn #generics
            };
            return Ok(lend::split(
                function, &bars, output, stack, head, forward, reverse,
            ));
        }
        return Ok(quote! {
            #allow
            #(#attrs)*
            #vis fn #adjoint_fn #generics(
                #stack: &mut ::autodiff::__adjoint::Stack,
                #(#params,)*
                #(#inputs,)*
                #unused: u32,
            ) -> ::core::option::Option<()> {
                #forward
                #reverse
            }
        });
    }
    let models = function
        .params
        .iter()
        .any(|param| matches!(param.kind, Kind::Struct { .. }));
    let (stack_type, value_type, value_read, one, inline) = if on_duals {
        (
            quote!(::autodiff::__adjoint::DualStack),
            quote!(::autodiff::Dual),
            if is_dual_call(&returned) {
                returned
            } else {
                quote!(::autodiff::__adjoint::dual(#returned))
            },
            quote!(::autodiff::Dual::constant(1.0)),
            // Compiled only where `f_hvp` is called.
            quote!(#[inline]),
        )
    } else {
        (
            quote!(::autodiff::__adjoint::Stack),
            quote!(f64),
            returned,
            quote!(1.0),
            out_of_line(&sweep, attrs),
        )
    };
    // `relu(x)` and `sigmoid(x)` as written, on duals: the facade's
    // functions shadowed by ones that take a `Dual` too (`dual::takes`
    // admits them in path form by their bare names only); and the dual
    // pair of a callee without a dual sweep (`NoDualSweep`), which its
    // companion does not write out.
    let activations = on_duals.then(|| {
        // Relocated with a model (`dual::model_span`), where the lints
        // would read it as the student's.
        let allow = models.then(|| quote!(#[allow(unused_imports)]));
        quote!(
            #allow
            use ::autodiff::__adjoint::{dual_activations::{relu, sigmoid}, NoDualSweep as _};
        )
    });
    // On duals, the result's type and value spanned where a model's twin
    // is (`dual::model_span`).
    let model_span = dual::model_span(function);
    let (made, option) = if on_duals {
        (
            quote::quote_spanned!(model_span=> ::autodiff::ValueAndGradient),
            quote::quote_spanned!(model_span=> ::core::option::Option),
        )
    } else {
        (
            quote!(::autodiff::ValueAndGradient),
            quote!(::core::option::Option),
        )
    };
    // A model's twin in an `Option` is made where it is relocated (see
    // `dual::model_span`), not through `then_some`, a call site of its own.
    let finished = if on_duals && models {
        quote! {
            if #stack.finite() {
                #option::Some(#made {
                    value: #value,
                    gradient: #gradient,
                })
            } else {
                #option::None
            }
        }
    } else {
        quote! {
            #stack.finite().then_some(#made {
                value: #value,
                gradient: #gradient,
            })
        }
    };
    let output = if on_duals {
        quote::quote_spanned!(model_span=> ::autodiff::ValueAndGradient<#gradient_type, ::autodiff::Dual>)
    } else {
        quote!(::autodiff::ValueAndGradient<#gradient_type>)
    };
    // `f_jvp` returns before the adjoints are made: its gradient, which
    // it discards, is empty (a slice's) or zeros on the stack. Where every
    // adjoint is a number's, an array's of numbers or a slice's, the
    // runtime makes them (`DualStack::value_only`): a body with no zeros
    // and no check written out costs a crate less.
    let plain_shape = |kind: &Kind| {
        fn numbers(kind: &Kind) -> bool {
            match kind {
                Kind::Scalar => true,
                Kind::Array(elem, _) => numbers(elem),
                _ => false,
            }
        }
        matches!(kind, Kind::Slice(_)) || numbers(kind)
    };
    let unmade_by_runtime = bars
        .iter()
        .all(|(param, _)| !movable(param) && plain_shape(&param.kind));
    let forward_only = on_duals.then(|| {
        if unmade_by_runtime {
            return quote! {
                if !#stack.reverses() {
                    return #stack.value_only(#value);
                }
            };
        }
        let unmade: Vec<TokenStream> = bars
            .iter()
            .map(|(param, bar)| {
                let ident = &param.ident;
                match &param.kind {
                    _ if movable(param) => quote!(#bar),
                    Kind::Struct { ty, .. } => {
                        let span = syn::spanned::Spanned::span(ty);
                        let zero = quote::quote_spanned!(span=> <#ty as ::autodiff::__private::Parameter>::zero_duals);
                        let mut ident = ident.clone();
                        ident.set_span(span);
                        quote!(#zero(#ident))
                    }
                    Kind::Slice(_) => quote!(::std::vec::Vec::new()),
                    _ => quote!(::autodiff::__adjoint::zero(&#ident)),
                }
            })
            .collect();
        let unmade = if let [one] = unmade.as_slice() {
            one.clone()
        } else {
            quote!((#(#unmade,)*))
        };
        dual::forward_only(stack, &value, &unmade, models.then_some(model_span))
    });
    let body = quote! {
            #stand_ins
            #sites
            #(#declare_early)*
            #(#carried)*
            #(#early)*
            #refuse
            #mark
            #(#note_checked)*
            #(#fwd)*
            let #value: #value_type = #value_read;
            #forward_only
            #(#declare)*
            #(#note_later)*
            let #value_bar = #one;
            #(#rev)*
            #give_sites
            #stack.observe(#value);
            #(#late_checks)*
            #(#early_bars)*
            #forget
            #finished
    };
    // The import only where the sweep names what it brings in: a block
    // with an item in it costs `rustc` a scope of its own.
    let activations = activations.filter(|_| {
        names_any(
            &body,
            &["relu", "sigmoid", "__forward_dual", "__reverse_dual"],
        )
    });
    Ok(quote! {
        #allow
        #(#attrs)*
        #inline
        #vis fn #adjoint_fn #generics(
            #stack: &mut #stack_type,
            #(#params),*
        ) -> #option<#output> {
            #activations
            #body
        }
    })
}

/// Whether `tokens` hold any of the identifiers `names`, at any depth.
fn names_any(tokens: &TokenStream, names: &[&str]) -> bool {
    tokens.clone().into_iter().any(|tree| match tree {
        proc_macro2::TokenTree::Ident(ident) => names.iter().any(|name| ident == name),
        proc_macro2::TokenTree::Group(group) => names_any(&group.stream(), names),
        _ => false,
    })
}

/// Whether `tokens` are one call `::autodiff::__adjoint::dual(..)`, a
/// value already a `Dual` (`Sweep::tracked_number`).
fn is_dual_call(tokens: &TokenStream) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    let [path @ .., TokenTree::Group(args)] = trees.as_slice() else {
        return false;
    };
    let words: Vec<String> = path.iter().map(ToString::to_string).collect();
    args.delimiter() == Delimiter::Parenthesis
        && words
            == [
                ":",
                ":",
                "autodiff",
                ":",
                ":",
                "__adjoint",
                ":",
                ":",
                "dual",
            ]
}
