//! `f_forward` and `f_reverse`, the pair through which the adjoints of
//! annotated functions call each other: the forward pushes the callee's
//! gradient (from its compiled adjoint, or from the tape when the body
//! keeps it) on the caller's stack, the reverse pops it scaled by the
//! caller's `value_bar` into the adjoints of the arguments.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::super::companion::{Input, Sibling, Signature};
use super::super::shaped::Dot;
use super::super::Names;
use super::{model_call, param_inputs, Argument};
use crate::ast::{Function, Kind, Param};

/// The name of the pair's tuple of arguments, a parameter at the macro's
/// own site (a function of that name is named at its site instead).
const ARGS: &str = "args";

/// `f_forward` and `f_reverse`, which the adjoints of callers call: the
/// forward runs `f_adjoint` on the caller's stack and pushes the gradient,
/// the reverse adds `value_bar ×` it to the caller's adjoints of the
/// arguments. `f` returns one number, so its gradient is all a caller's
/// reverse sweep needs from it.
pub(super) fn pair(
    function: &Function,
    names: &Names,
    stack: &Ident,
    adjoint_fn: &Ident,
) -> [Sibling; 2] {
    spread_pair(function, names, stack, Some(adjoint_fn))
}

/// What the pair passes besides the arguments: the forward's output type
/// and the type of the reverse's `value_bar` (`f64` and `f64` for a
/// function returning `f64`).
struct Carried {
    output: TokenStream,
    value_bar: TokenStream,
    /// What the forward returns when its arguments do not convert
    /// (`None`: the scalar pair's `stack.failed()`).
    failed: Option<TokenStream>,
}

impl Carried {
    fn scalar() -> Carried {
        Carried {
            output: quote!(f64),
            value_bar: quote!(f64),
            failed: None,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn pair_items(
    function: &Function,
    names: &Names,
    stack: &Ident,
    forward_body: TokenStream,
    value_bar: &Ident,
    bars: Vec<(Input, bool)>,
    reverse_body: TokenStream,
    carried: Carried,
) -> [Sibling; 2] {
    let name = names.name;
    let Names {
        attrs, generics, ..
    } = names;
    let vis = &function.item.vis;
    // The parameters, and the reverse's adjoints, come as one tuple each
    // (see `src/__adjoint/calls.rs`): `None` from a call with another count.
    let (args, bars_ident) = (
        Ident::new(ARGS, Span::mixed_site()),
        Ident::new("bars", Span::mixed_site()),
    );
    let params = param_inputs(function);
    let param_types = params.iter().map(|input| &input.ty);
    // By value into `f_adjoint`, which declares its own `mut`.
    let param_pats = params.iter().map(|input| &input.ident);
    // The reverse reads only the adjoints it adds to.
    let bar_types = bars.iter().map(|(input, _)| &input.ty);
    let bar_pats = bars.iter().map(|(input, read)| {
        if *read {
            let ident = &input.ident;
            quote!(#ident)
        } else {
            quote!(_)
        }
    });
    let stack_input = || Input::new(stack, quote!(&mut ::autodiff::__adjoint::Stack));
    let args_input = Input::new(&args, quote!(::core::option::Option<(#(#param_types,)*)>));
    let forward = Signature {
        name: format_ident!("{}_forward", name),
        generics: generics.clone(),
        inputs: vec![stack_input(), args_input.clone()],
        output: {
            let output = &carried.output;
            quote!(-> #output)
        },
    };
    let reverse = Signature {
        name: format_ident!("{}_reverse", name),
        generics: generics.clone(),
        inputs: vec![
            stack_input(),
            args_input,
            Input::new(value_bar, carried.value_bar),
            Input::new(
                &bars_ident,
                quote!(::core::option::Option<(#(#bar_types,)*)>),
            ),
        ],
        output: TokenStream::new(),
    };
    let failed = carried.failed.unwrap_or_else(|| quote!(#stack.failed()));
    let forward_body = quote! {
        let ::core::option::Option::Some((#(#param_pats,)*)) = #args else {
            return #failed;
        };
        #forward_body
    };
    // The reverse reads the adjoints only: a caller passes `None` for
    // arguments that changed since its forward (a call with another count
    // has `None` adjoints too).
    let reverse_body = quote! {
        let _ = #args;
        let ::core::option::Option::Some((#(#bar_pats,)*)) = #bars_ident else {
            return #stack.fail();
        };
        #reverse_body
    };
    let attrs = quote! {
        #[doc(hidden)]
        #(#attrs)*
    };
    [
        Sibling {
            attrs: attrs.clone(),
            vis: vis.clone(),
            signature: forward,
            body: forward_body,
        },
        Sibling {
            attrs,
            vis: vis.clone(),
            signature: reverse,
            body: reverse_body,
        },
    ]
}

/// The pair of a vector-valued function. The forward runs the plain
/// function (its value observed, as the tape checks it) and keeps nothing;
/// the reverse, given the arguments again (a caller passes `None` for any
/// that changed since its forward) and the cotangent of the output, reruns
/// the function to get `cotangentᵀ J`: by the compiled adjoint `dot` of
/// `⟨cotangent, f⟩`, which reads the cotangent where the caller keeps it
/// and adds into the caller's adjoints of the arguments itself (`lend`),
/// else by `f_vjp` on the tape, added through the stack as a scalar
/// callee's pair does. A caller that took the call for a number
/// (`value_bar: f64`) fails its sweep instead, and `f_grad` reruns it on
/// the tape.
pub fn vector_pair(
    function: &Function,
    names: &Names,
    output: &syn::Type,
    dot: Option<&Dot>,
) -> [Sibling; 2] {
    let stack = Ident::new("stack", Span::mixed_site());
    let value_bar = Ident::new("value_bar", Span::mixed_site());
    let [value, cotangent, result] =
        ["value", "cotangent", "result"].map(|name| Ident::new(name, Span::mixed_site()));
    let args: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
    let bars = param_bars(function);
    let differentiable: Vec<&Param> = function
        .params
        .iter()
        .filter(|param| param.kind.is_differentiable())
        .collect();
    let name = names.name;
    let vjp = format_ident!("{}_vjp", name);
    let pushes = pushes(&differentiable, &result, &stack);
    let reverse_fn = Ident::new("reverse", Span::mixed_site());
    let split = dot.filter(|dot| dot.split).map(|dot| &dot.name);
    // Where the sweep gives up (the caller's, on a value that is not
    // finite, or the callee's own), the caller's forward still runs as
    // written until `f_grad` reruns the tape, and may index the value
    // (`vh(a, b)[2]`): it gets the plain function's value, of the right
    // length, not an empty stand-in. The arguments are read again for it
    // where none is moved into the sweep (a `Vec` or a model by value).
    let reread = function.params.iter().all(|param| match &param.kind {
        Kind::Scalar | Kind::Array(..) | Kind::Slice(_) => true,
        Kind::Struct { by_ref, .. } => *by_ref,
        Kind::Vec(_) => false,
        Kind::PassThrough => copied(&param.ty),
    });
    let gave_up = if reread {
        quote!(#name(#(#args),*))
    } else {
        quote!(::autodiff::__adjoint::Poisoned::poisoned())
    };
    let forward_body = match split {
        // The forward sweep, its reverse saved for the caller's reverse.
        Some(dot) => quote! {
            if !#stack.finite() {
                #stack.push_reverse(::core::option::Option::None::<()>);
                #name(#(#args),*)
            } else {
                match #dot(#stack, (#(#args,)*)) {
                    ::core::option::Option::Some((#value, #reverse_fn)) => {
                        #stack.push_reverse(::core::option::Option::Some(#reverse_fn));
                        #stack.observe(&#value);
                        #value
                    }
                    ::core::option::Option::None => {
                        #stack.push_reverse(::core::option::Option::None::<()>);
                        #stack.fail();
                        #gave_up
                    }
                }
            }
        },
        None => quote! {
            let #value = #name(#(#args),*);
            #stack.observe(&#value);
            #value
        },
    };
    // The compiled reverses add into the caller's adjoints (`lend`), the
    // cotangent read where the caller keeps it, or taken by value by a
    // seeded one (`Dot::seeded`): moved, or a copy of one the caller keeps.
    let into = bars
        .iter()
        .filter(|(param, _, _)| param.kind.is_differentiable())
        .map(|(_, bar, _)| bar);
    let cotangent_ref = if dot.is_some_and(|dot| dot.seeded) {
        quote! {
            let ::core::option::Option::Some(#cotangent) =
                ::autodiff::__adjoint::Cotangent::cotangent(#value_bar)
            else {
                return #stack.fail();
            };
        }
    } else {
        quote! {
            let ::core::option::Option::Some(#cotangent) =
                ::autodiff::__adjoint::Cotangent::cotangent_ref(&#value_bar)
            else {
                return #stack.fail();
            };
        }
    };
    // The caller's constants it passed no adjoint for (`Stack::unused_args`):
    // the compiled reverses skip them, the tape's pops them into zeros of
    // their own.
    let unused = Ident::new("unused", Span::mixed_site());
    let reverse_body = match dot.map(|dot| (&dot.name, dot.split)) {
        // The reverse the forward saved, run with the cotangent and the
        // arguments.
        Some((_, true)) => quote! {
            #cotangent_ref
            let ::core::option::Option::Some(#reverse_fn) = #reverse_fn else {
                return;
            };
            if #reverse_fn(#stack, (#(#args,)*), #cotangent, (#(#into,)*), #unused).is_none() {
                #stack.fail();
            }
        },
        // `cotangentᵀ J` by the compiled adjoint of `⟨cotangent, f⟩` (see
        // `shaped::compiled_dot`).
        Some((dot, false)) => quote! {
            #cotangent_ref
            if #dot(#stack, #(#args,)* #cotangent, #(#into,)* #unused).is_none() {
                #stack.fail();
            }
        },
        // Else by `f_vjp` on the tape, through the stack.
        None => {
            let (owns, pops) = unused_pops(&bars, &stack, &unused);
            quote! {
                let ::core::option::Option::Some(#cotangent) =
                    ::autodiff::__adjoint::Cotangent::cotangent(#value_bar)
                else {
                    return #stack.fail();
                };
                #(#owns)*
                // Counted: the gradient did not run compiled all the way.
                ::autodiff::__adjoint::rerun_on_tape();
                match #vjp(#(#args,)* #cotangent).ok() {
                    ::core::option::Option::Some(#result) => {
                        #(#pushes)*
                        #(#pops)*
                    }
                    ::core::option::Option::None => #stack.fail(),
                }
            }
        }
    };
    let bar_decls = bars
        .iter()
        .map(|(param, bar, ty)| {
            (
                Input::new(bar, quote!(&mut #ty)),
                param.kind.is_differentiable(),
            )
        })
        .collect();
    let mut pair = pair_items(
        function,
        names,
        &stack,
        forward_body,
        &value_bar,
        bar_decls,
        TokenStream::new(),
        Carried {
            output: quote!(#output),
            value_bar: quote!(impl ::autodiff::__adjoint::Cotangent<#output>),
            failed: Some(quote!({
                #stack.fail();
                ::autodiff::__adjoint::Poisoned::poisoned()
            })),
        },
    );
    // The reverse reads the arguments again: `f_vjp` recomputes from them.
    let [_, reverse] = &mut pair;
    let args_pats = args.iter();
    let bars_ident = Ident::new("bars", Span::mixed_site());
    let args_ident = Ident::new(ARGS, Span::mixed_site());
    let bar_pats = bars.iter().map(|(param, bar, _)| {
        if param.kind.is_differentiable() {
            quote!(#bar)
        } else {
            quote!(_)
        }
    });
    let reverse_inner = &reverse_body;
    // Popped first, whatever the reverse then finds: the records stay in
    // step with the calls.
    // (`dot` named by a call, which a method's siblings qualify.)
    let pop = split.map(|dot| {
        quote!(let #reverse_fn = #stack.pop_reverse(|#stack, #args_ident| #dot(#stack, #args_ident));)
    });
    reverse.body = quote! {
        let #unused = #stack.take_unused();
        #pop
        let (
            ::core::option::Option::Some((#(#args_pats,)*)),
            ::core::option::Option::Some((#(#bar_pats,)*)),
        ) = (#args_ident, #bars_ident)
        else {
            return #stack.fail();
        };
        #reverse_inner
    };
    pair
}

/// The pair of a function that keeps the tape: the forward runs the tape
/// gradient and pushes it, the reverse adds `value_bar ×` it.
pub(super) fn tape_pair(function: &Function, names: &Names, stack: &Ident) -> [Sibling; 2] {
    spread_pair(function, names, stack, None)
}

/// A pair that pushes the whole gradient: from the compiled adjoint
/// `compiled` (run on the caller's stack) or from the tape.
fn spread_pair(
    function: &Function,
    names: &Names,
    stack: &Ident,
    compiled: Option<&Ident>,
) -> [Sibling; 2] {
    let value_bar = Ident::new("value_bar", Span::mixed_site());
    let args: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
    let bars = param_bars(function);
    let grad_tape = format_ident!("{}_grad_tape", names.name);
    let name = names.name;
    let takes_model = function
        .params
        .iter()
        .any(|param| param.kind.holds_struct());
    let fails_caller = compiled.is_none() && takes_model;
    let (forward_body, reverse_body) = if fails_caller {
        // A function on the tape that takes a model would push the whole
        // model's gradient at every call (a loss calling `model.score(x)`
        // per sample): one tape for the caller costs less, so the caller's
        // sweep fails and `f_grad` reruns it on the tape. The value is the
        // plain function's, so the caller's control flow runs as written.
        (
            quote! {
                #stack.fail();
                #name(#(#args),*)
            },
            quote!(let _ = #value_bar;),
        )
    } else {
        let pops = pops(&bars, stack, &quote!(#value_bar));
        let differentiable: Vec<&Param> = function
            .params
            .iter()
            .filter(|param| param.kind.is_differentiable())
            .collect();
        // Either way an `Option` of value and gradient: a tape error is, to
        // a caller's adjoint, one more reason to fall back.
        let result = match compiled {
            Some(adjoint_fn) => quote!(#adjoint_fn(#stack, #(#args),*)),
            None => quote!(#grad_tape(#(#args),*).ok()),
        };
        let models = differentiable
            .iter()
            .any(|param| matches!(param.kind, Kind::Struct { .. }));
        // `Spread` is implemented for tuples of up to 12: a longer gradient
        // is pushed component by component, and so is a model's, through
        // its type (see `model_call`).
        let forward = if differentiable.len() <= 12 && !models {
            let forwarded = quote!(::autodiff::__adjoint::forwarded(#result, #stack));
            // On a stack that has failed already (the caller met a value
            // the tape takes and the sweep does not, and will rerun the
            // tape), the plain function's value, so that the caller's code
            // runs on the numbers it would see (a `partial_cmp(..).unwrap()`
            // meets no stand-in NaN). Only where the function says it
            // returns `f64` (an alias of another type would be one more
            // error on it), and named at the macro's own site, where no
            // parameter of the same name (`fn scale(scale: f64, ..)`) hides
            // the function; a function named like one of the pair's own
            // parameters (`fn stack(..)`) is named at its own site, which
            // they do not reach.
            if function.returns_f64() {
                let mut plain = name.clone();
                if *name != *stack && name != ARGS {
                    plain.set_span(Span::mixed_site());
                }
                quote! {
                    if !#stack.finite() {
                        #plain(#(#args),*)
                    } else {
                        #forwarded
                    }
                }
            } else {
                forwarded
            }
        } else {
            let result_ident = Ident::new("result", Span::mixed_site());
            let pushes = pushes(&differentiable, &result_ident, stack);
            quote! {
                match #result {
                    ::core::option::Option::Some(#result_ident) => {
                        #(#pushes)*
                        #result_ident.value
                    }
                    ::core::option::Option::None => #stack.failed(),
                }
            }
        };
        (forward, quote!(#(#pops)*))
    };
    let bar_decls = bars
        .iter()
        .map(|(param, bar, ty)| {
            let read = !fails_caller && param.kind.is_differentiable();
            (Input::new(bar, quote!(&mut #ty)), read)
        })
        .collect();
    pair_items(
        function,
        names,
        stack,
        forward_body,
        &value_bar,
        bar_decls,
        reverse_body,
        Carried::scalar(),
    )
}

/// Each parameter with its adjoint's name in `f_reverse` and that
/// adjoint's type.
fn param_bars<'f>(function: &'f Function) -> Vec<(&'f Param, Ident, TokenStream)> {
    function
        .params
        .iter()
        .map(|param| {
            let bar = param_bar(&param.ident, Span::mixed_site());
            (param, bar, bar_type(&param.kind))
        })
        .collect()
}

/// The name of a parameter's adjoint in `f_reverse` (and its dual twin):
/// `x_bar`, but `value_bar_param` for a parameter called `value`, whose
/// adjoint would otherwise shadow the pair's own `value_bar`.
pub(super) fn param_bar(ident: &Ident, span: Span) -> Ident {
    let name = format!("{}_bar", ident.unraw());
    if name == "value_bar" {
        Ident::new("value_bar_param", span)
    } else {
        Ident::new(&name, span)
    }
}

/// `Spread::pop_scaled` (a model's `pop_gradient`) of each differentiable
/// parameter's gradient into its adjoint `bar`, scaled by `value_bar`,
/// last parameter first: the reverse half of the calling convention.
fn pops(
    bars: &[(&Param, Ident, TokenStream)],
    stack: &Ident,
    value_bar: &TokenStream,
) -> Vec<TokenStream> {
    bars.iter()
        .filter(|(param, _, _)| param.kind.is_differentiable())
        .rev()
        .map(|(param, bar, _)| {
            let pop = pop_into(param, &quote!(#bar), stack, value_bar);
            quote!(#pop;)
        })
        .collect()
}

/// `Spread::pop_scaled` (a model's `pop_gradient`) of `param`'s gradient
/// into `bar`, scaled by `value_bar`.
fn pop_into(
    param: &Param,
    bar: &TokenStream,
    stack: &Ident,
    value_bar: &TokenStream,
) -> TokenStream {
    match &param.kind {
        Kind::Struct { ty, .. } => model_call(
            ty,
            "pop_gradient",
            &[
                Argument::Bound("bar", bar.clone()),
                Argument::Plain(quote!(#stack)),
                Argument::Plain(value_bar.clone()),
            ],
        ),
        _ => quote!(::autodiff::__adjoint::Spread::pop_scaled(#bar, #stack, #value_bar)),
    }
}

/// [`pops`] of a vector-valued callee's reverse on the tape: the adjoint
/// of a parameter at a position `unused` marks (the caller's constant,
/// passed as `__adjoint::unused`, which may be empty) is popped into zeros
/// shaped like the argument, made before `f_vjp` takes the arguments.
fn unused_pops(
    bars: &[(&Param, Ident, TokenStream)],
    stack: &Ident,
    unused: &Ident,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut owns = Vec::new();
    let mut pops = Vec::new();
    for (position, (param, bar, _)) in bars.iter().enumerate().rev() {
        if !param.kind.is_differentiable() {
            continue;
        }
        let one = quote!(1.0);
        let pop = match &param.kind {
            Kind::Struct { .. } | Kind::Scalar => pop_into(param, &quote!(#bar), stack, &one),
            _ => {
                let ident = &param.ident;
                let own = format_ident!("__own_{}", param.ident.unraw(), span = Span::mixed_site());
                let bit = 1_u32 << position.min(31);
                owns.push(quote! {
                    let mut #own = ((#unused & #bit) != 0).then(|| ::autodiff::__adjoint::zero(&#ident));
                });
                let (into_own, into_bar) = (
                    pop_into(param, &quote!(#own), stack, &one),
                    pop_into(param, &quote!(#bar), stack, &one),
                );
                quote! {
                    match &mut #own {
                        ::core::option::Option::Some(#own) => #into_own,
                        ::core::option::Option::None => #into_bar,
                    }
                }
            }
        };
        pops.push(quote!(#pop;));
    }
    (owns, pops)
}

/// `Spread::push_all` (a model's `push_gradient`) of each component of
/// `result.gradient`, first parameter first: the forward half.
fn pushes(differentiable: &[&Param], result: &Ident, stack: &Ident) -> Vec<TokenStream> {
    let single = differentiable.len() == 1;
    differentiable
        .iter()
        .enumerate()
        .map(|(k, param)| {
            let component = if single {
                quote!(#result.gradient)
            } else {
                let k = syn::Index::from(k);
                quote!(#result.gradient.#k)
            };
            match &param.kind {
                Kind::Struct { ty, .. } => {
                    let push = model_call(
                        ty,
                        "push_gradient",
                        &[
                            Argument::Bound("gradient", quote!(&#component)),
                            Argument::Plain(quote!(#stack)),
                        ],
                    );
                    quote!(#push;)
                }
                _ => quote!(::autodiff::__adjoint::Spread::push_all(&#component, #stack);),
            }
        })
        .collect()
}

/// The type of a parameter's adjoint in `f_reverse`: a slice's is a slice,
/// so that a caller's array or `Vec` adjoint coerces to it; a pass-through
/// parameter takes whatever the caller passes, as `dyn Any`, so that a call
/// with a wrong count (the plain twin's error) leaves no type to infer.
pub(super) fn bar_type(kind: &Kind) -> TokenStream {
    match kind {
        Kind::Scalar => quote!(f64),
        Kind::Array(elem, len) => {
            let elem = owned_bar_type(elem);
            quote!([#elem; #len])
        }
        Kind::Slice(elem) => {
            let elem = owned_bar_type(elem);
            quote!([#elem])
        }
        Kind::Vec(elem) => {
            let elem = owned_bar_type(elem);
            quote!(::std::vec::Vec<#elem>)
        }
        // A model's adjoint is a model (`src/__adjoint/models.rs`): its
        // gradient type, which the pair pops into through `model_call`.
        Kind::Struct { ty, .. } => quote!(#ty),
        Kind::PassThrough => quote!(dyn ::core::any::Any),
    }
}

fn owned_bar_type(kind: &Kind) -> TokenStream {
    match kind {
        Kind::Slice(elem) | Kind::Vec(elem) => {
            let elem = owned_bar_type(elem);
            quote!(::std::vec::Vec<#elem>)
        }
        other => bar_type(other),
    }
}

/// Whether a parameter of type `ty` is read again after a call that took
/// it by value: a reference, or a number or `bool` (`Copy`).
fn copied(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(reference) => reference.mutability.is_none(),
        syn::Type::Path(path) => {
            path.qself.is_none()
                && path.path.get_ident().is_some_and(|ident| {
                    [
                        "f64", "f32", "bool", "usize", "isize", "u8", "u16", "u32", "u64", "u128",
                        "i8", "i16", "i32", "i64", "i128", "char",
                    ]
                    .iter()
                    .any(|name| ident == name)
                })
        }
        _ => false,
    }
}
