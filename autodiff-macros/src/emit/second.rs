//! Forward mode and second order: `f_jvp` (value and directional
//! derivative), `f_hvp` (value, gradient and Hessian-vector product) and
//! `f_hessian` (the dense Hessian). Where the function has a compiled
//! adjoint on dual numbers (`adjoint::dual`), all three run it
//! ([`Compiled`]: `f_jvp` its forward sweep only, `f_hessian` one sweep
//! per column) and the tape's are the hidden `f_jvp_tape`, `f_hvp_tape`
//! and `f_hessian_tape`, their fallback. Otherwise each records the body through the tape
//! path, `f_grad_tape_on`, on a tape made for a second-order pass
//! (`__ad::second_order_tape`), where that path keeps the output instead
//! of running its reverse pass; the runtime (`__ad::jvp`, `__ad::hvp`,
//! `__ad::hessian`) then runs the engine's passes over it (`Scalar::jvp`,
//! `Scalar::hvp`, `Scalar::hessian`), which rerun every node's rule from
//! `autodiff_core::rules` on dual numbers: no derivative is written here.
//!
//! A free function with a dual sweep whose differentiable parameters are
//! numbers, arrays, slices or `Vec`s ([`through_companion`]) gets them as
//! one impl of the runtime's `SecondOrder` on its companion type (how to lift its
//! parameters and call its dual sweep, how to call its tape path) and three
//! one-call wrappers: the checks, the fallback and the shaping are the
//! trait's provided methods, type-checked once in the library. The tests'
//! second path is `__private::second_order_on_tape(|| f_hvp(..))`. Any
//! other function (no dual sweep, a model, a method, lifetimes of its own)
//! gets them written out, and where it has a dual sweep the tape's as the
//! hidden `f_jvp_tape`, `f_hvp_tape` and `f_hessian_tape`.
//!
//! They cost a crate that never calls them a few small bodies per
//! function, none compiled to machine code (see the README's figure).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::Ident;

use super::adjoint::unclaimed;
use super::grad::{adjoint_arg, gradient_type_of, model_ref, passes_by_copy};
use super::{differentiable, user_params, Names};
use crate::ast::{Function, Kind, Param};

/// The most differentiable parameters `__ad::Shapes` takes as a tuple.
const MAX_SHAPES: usize = 12;

/// `companion`: whether the function has a companion type of its name
/// (a free function), on which [`through_companion`] implements the
/// runtime's `SecondOrder`.
pub fn items(function: &Function, names: &Names, dual: bool, companion: bool) -> TokenStream {
    if companion {
        if let Some(items) = through_companion(function, names, dual) {
            return items;
        }
    }
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
    let [flat, rest, tangent, direction, pass] = ["flat", "rest", "tangent", "direction", "pass"]
        .map(|ident| Ident::new(ident, Span::mixed_site()));
    let (grad_tape_on_fn, jvp_fn, hvp_fn, hessian_fn) = (
        format_ident!("{}_grad_tape_on", name),
        format_ident!("{}_jvp", name),
        format_ident!("{}_hvp", name),
        format_ident!("{}_hessian", name),
    );
    let (tangents, directions) = (
        flatten(&differentiable, &tangent, &flat),
        flatten(&differentiable, &direction, &flat),
    );
    let kept_args: Vec<_> = function.params.iter().map(adjoint_arg).collect();
    let gradient_value = rebuild(&differentiable, &rest, quote!(#pass.gradient));
    let hvp_value = rebuild(&differentiable, &rest, quote!(#pass.hvp));
    let result = quote!(::core::result::Result);
    let error_type = quote!(::autodiff::ScalarAutodiffError);
    // The parameters are read again to check the direction and shape the
    // result: what the recording takes by value, it takes as a copy.
    let record = quote!(#grad_tape_on_fn(#tape, #(#kept_args),*));
    let thin = !differentiable.is_empty()
        && differentiable.len() <= MAX_SHAPES
        && !differentiable
            .iter()
            .any(|param| matches!(param.kind, Kind::Struct { .. }));
    let (jvp_body, hvp_body) = if thin {
        // The checks and the shaping are the runtime's (`__ad::Shapes`).
        let refs = differentiable.iter().map(|param| {
            let ident = &param.ident;
            quote!(&#ident)
        });
        let parameters = match differentiable.as_slice() {
            [single] => {
                let ident = &single.ident;
                quote!(&#ident)
            }
            _ => quote!((#(#refs,)*)),
        };
        let texts = differentiable.iter().map(|param| param_name(param));
        let names = quote!(&[#(#texts),*]);
        (
            quote! {
                let #tape = &mut ::autodiff::__private::second_order_tape();
                ::autodiff::__private::jvp_of(#record, #tape, #parameters, #tangent, #names)
            },
            quote! {
                let #tape = &mut ::autodiff::__private::second_order_tape();
                ::autodiff::__private::hvp_of(#record, #tape, #parameters, #direction, #names)
            },
        )
    } else {
        // A model is named by its type (so that a struct that is not one
        // is one error on it), and a tuple of more than `MAX_SHAPES` has no
        // `Shapes`: the checks and the shaping are written out.
        (
            quote! {
                use ::autodiff::__private as __ad;
                let mut #flat = ::std::vec::Vec::new();
                #(#tangents)*
                let #tape = &mut __ad::second_order_tape();
                __ad::jvp(#record, #tape, &#flat)
            },
            quote! {
                use ::autodiff::__private as __ad;
                let mut #flat = ::std::vec::Vec::new();
                #(#directions)*
                let #tape = &mut __ad::second_order_tape();
                let #pass = __ad::hvp(#record, #tape, &#flat)?;
                #result::Ok(::autodiff::Hvp {
                    value: #pass.value,
                    gradient: #gradient_value,
                    hvp: #hvp_value,
                })
            },
        )
    };
    // With a compiled adjoint on dual numbers, `f_jvp`, `f_hvp` and
    // `f_hessian` run it and keep the tape's as hidden `_tape` twins, their
    // fallback (and the tests' second path).
    let tape_hessian_body = quote! {
        let #tape = &mut ::autodiff::__private::second_order_tape();
        ::autodiff::__private::hessian(#grad_tape_on_fn(#tape, #(#arg_names),*), #tape)
    };
    let (jvp_tape_fn, hvp_tape_fn, hessian_tape_fn) = (
        format_ident!("{}_jvp_tape", name),
        format_ident!("{}_hvp_tape", name),
        format_ident!("{}_hessian_tape", name),
    );
    // A model by reference (`loss(model: &Mlp, ..)`, a `&self` method):
    // lifted onto its twin on duals and split back through the model
    // (`__private::Parameter`), whose constants the gradient and `H·v`
    // carry.
    let models = differentiable
        .iter()
        .any(|param| matches!(param.kind, Kind::Struct { by_ref: true, .. }));
    let (jvp_body, hvp_body, hessian_body, tape_twins) = if dual && (thin || models) {
        let twin = |fn_name: &Ident,
                    compiled: &Ident,
                    along: Option<&Ident>,
                    output: TokenStream,
                    body: &TokenStream| {
            let doc = format!(
                " [`{compiled}`] on the tape: the body recorded and the engine's passes run over it. `{compiled}` runs the compiled adjoint on dual numbers instead, and this where that one meets a value that is not finite."
            );
            let along = along.map(|along| quote!(#along: #gradient_type));
            quote! {
                #[doc = #doc]
                #(#attrs)*
                #[doc(hidden)]
                #[inline]
                #[allow(clippy::too_many_arguments, dead_code)]
                #vis fn #fn_name #generics(
                    #(#user_params,)*
                    #along
                ) -> #result<#output, #error_type> {
                    #body
                }
            }
        };
        let twins = [
            twin(
                &jvp_tape_fn,
                &jvp_fn,
                Some(&tangent),
                quote!(::autodiff::Jvp<f64>),
                &jvp_body,
            ),
            twin(
                &hvp_tape_fn,
                &hvp_fn,
                Some(&direction),
                quote!(::autodiff::Hvp<#gradient_type>),
                &hvp_body,
            ),
            twin(
                &hessian_tape_fn,
                &hessian_fn,
                None,
                quote!(::autodiff::Hessian),
                &tape_hessian_body,
            ),
        ];
        let compiled = Compiled {
            function,
            dual_fn: super::adjoint::dual_adjoint_ident(&format_ident!("{}_adjoint", name)),
            differentiable: &differentiable,
        };
        (
            compiled.jvp(&tangent, quote!(#jvp_tape_fn(#(#arg_names,)* #tangent))),
            compiled.hvp(&direction, quote!(#hvp_tape_fn(#(#arg_names,)* #direction))),
            compiled.hessian(&direction, quote!(#hessian_tape_fn(#(#arg_names),*))),
            quote!(#(#twins)*),
        )
    } else {
        (jvp_body, hvp_body, tape_hessian_body, quote!())
    };
    // The compiled bodies of a function taking a model are relocated onto
    // the model's type (`text::relocate`): lints would read them as the
    // student's code.
    let relocated =
        (dual && models).then(|| quote!(#[allow(unused, clippy::all, clippy::pedantic)]));
    let wrappers = wrappers(
        function,
        names,
        &gradient_type,
        [&tangent, &direction],
        [jvp_body, hvp_body, hessian_body],
        relocated,
    );
    quote! {
        #wrappers
        #tape_twins
    }
}

/// The direction's components (`along`, shaped like the gradient),
/// checked against the parameters' shapes and appended to `flat`.
pub(super) fn flatten(differentiable: &[&Param], along: &Ident, flat: &Ident) -> Vec<TokenStream> {
    differentiable
        .iter()
        .enumerate()
        .map(|(i, param)| {
            let part = part(along, i, differentiable.len());
            let text = param_name(param);
            match &param.kind {
                Kind::Struct { by_ref, ty } => {
                    let model = model_ref(&param.ident, *by_ref);
                    quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::model_direction(#model, &#part, #text, &mut #flat)?;)
                }
                _ => {
                    let ident = &param.ident;
                    quote!(__ad::direction(&#ident, &#part, #text, &mut #flat)?;)
                }
            }
        })
        .collect()
}

/// A flat vector (`from`) back in the gradient's shape, read from the
/// parameters (a model's constants are the model's, as in `f_grad`).
pub(super) fn rebuild(differentiable: &[&Param], rest: &Ident, from: TokenStream) -> TokenStream {
    let parts: Vec<_> = differentiable
        .iter()
        .map(|param| match &param.kind {
            Kind::Struct { by_ref, ty } => {
                let model = model_ref(&param.ident, *by_ref);
                quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::gradient_from(#model, &mut #rest))
            }
            _ => {
                let ident = &param.ident;
                quote!(__ad::gradient_from(&#ident, &mut #rest))
            }
        })
        .collect();
    let value = match parts.as_slice() {
        [single] => single.clone(),
        _ => quote!((#(#parts,)*)),
    };
    quote!({
        let mut #rest = #from.as_slice();
        #value
    })
}

/// The direction's part for the `i`-th of `count` differentiable
/// parameters: the whole, or a tuple field.
pub(super) fn part(along: &Ident, i: usize, count: usize) -> TokenStream {
    if count == 1 {
        quote!(#along)
    } else {
        let index = syn::Index::from(i);
        quote!(#along.#index)
    }
}

/// A parameter's name as the student wrote it (`self` for the receiver).
pub(super) fn param_name(param: &Param) -> String {
    let text = param.ident.to_string();
    if text == crate::receiver::SELF_PARAM {
        "self".to_owned()
    } else {
        text
    }
}

/// A function with `f_adjoint_dual`, the compiled adjoint on dual numbers
/// (see `adjoint::dual`), which its second-order items run: each
/// differentiable parameter lifted with its part of a direction as the
/// tangent; where the dual sweep gives up (a value not finite), the tape's
/// twin, whose errors are the labelled ones.
struct Compiled<'f, 'a> {
    function: &'f Function<'a>,
    dual_fn: Ident,
    differentiable: &'f [&'f Param],
}

impl Compiled<'_, '_> {
    /// The differentiable parameters lifted along `direction` (shaped like
    /// the gradient), each `Some` where its part of `direction` fits it,
    /// as a pattern and the tuple it matches, and the arguments of
    /// `f_adjoint_dual` that take them.
    fn lifted(&self, direction: &Ident) -> (TokenStream, TokenStream, Vec<TokenStream>) {
        let mut patterns = Vec::new();
        let mut lifts = Vec::new();
        let args = self
            .function
            .params
            .iter()
            .map(|param| {
                if !param.kind.is_differentiable() {
                    return adjoint_arg(param);
                }
                let ident = &param.ident;
                let index = patterns.len();
                // A model's twin is spanned on the model's type, as every
                // use of it is: a struct that is not a model is one error.
                let span = match &param.kind {
                    Kind::Struct { ty, .. } => ty.span(),
                    _ => Span::mixed_site(),
                };
                // Spanned there, so not hygienic: named apart from the
                // parameters (a `#[constant] lifted_0` beside a model).
                let lifted = Ident::new(
                    &unclaimed(&format!("lifted_{index}"), &self.function.params),
                    span,
                );
                let along = part(direction, index, self.differentiable.len());
                patterns.push(quote_spanned!(span=> ::core::option::Option::Some(#lifted)));
                match param.kind {
                    Kind::Slice(_) => {
                        lifts.push(quote!(::autodiff::__adjoint::lift(&#ident[..], &#along[..])));
                        quote!(&#lifted)
                    }
                    Kind::Struct { ref ty, .. } => {
                        let mut ident = ident.clone();
                        ident.set_span(ty.span());
                        // The model's part of the direction typed as the
                        // model there, so that what the lift reads of it
                        // is spanned on the model's type too.
                        let typed = quote_spanned!(ty.span()=> {
                            let __along: &#ty = &#along;
                            __along
                        });
                        lifts.push(quote_spanned!(ty.span()=> <#ty as ::autodiff::__private::Parameter>::lift_duals(#ident, #typed)));
                        quote!(&#lifted)
                    }
                    _ => {
                        lifts.push(quote!(::autodiff::__adjoint::lift(&#ident, &#along)));
                        quote!(#lifted)
                    }
                }
            })
            .collect();
        // The tuples spanned where a model's twin is, as every use of it.
        let span = self.model_span();
        (
            quote_spanned!(span=> (#(#patterns,)*)),
            quote_spanned!(span=> (#(#lifts,)*)),
            args,
        )
    }

    /// Whether a differentiable parameter is a model, whose gradient on
    /// duals is split through the model (see `models` in [`items`]).
    fn has_model(&self) -> bool {
        self.differentiable
            .iter()
            .any(|param| matches!(param.kind, Kind::Struct { .. }))
    }

    /// `f_adjoint_dual`, spanned on the first model's type where there is
    /// one (see [`Self::model_span`]).
    fn dual_fn(&self) -> Ident {
        let mut dual_fn = self.dual_fn.clone();
        if self.has_model() {
            dual_fn.set_span(self.model_span());
        }
        dual_fn
    }

    /// The first model's type's span, on which the bindings that hold its
    /// twin are spanned (see `lifted`).
    fn model_span(&self) -> Span {
        self.differentiable
            .iter()
            .find_map(|param| match &param.kind {
                Kind::Struct { ty, .. } => Some(ty.span()),
                _ => None,
            })
            .unwrap_or_else(Span::mixed_site)
    }

    /// `Some((gradient, H·v))` of the dual sweep's `result`, each
    /// parameter's part split as its shape is (a model's through the
    /// model), or `None` where a part is not finite.
    fn split(&self, result: &Ident) -> TokenStream {
        let count = self.differentiable.len();
        let (mut gradients, mut products, mut splits) = (Vec::new(), Vec::new(), Vec::new());
        for (i, param) in self.differentiable.iter().enumerate() {
            let part = part(&format_ident!("gradient"), i, count);
            let (gradient, product) = (
                format_ident!("gradient_{}", i, span = Span::mixed_site()),
                format_ident!("product_{}", i, span = Span::mixed_site()),
            );
            let ident = &param.ident;
            splits.push(match &param.kind {
                Kind::Struct { ty, .. } => {
                    let split = quote_spanned!(ty.span()=> <#ty as ::autodiff::__private::Parameter>::split_model);
                    let mut ident = ident.clone();
                    ident.set_span(ty.span());
                    quote! {
                        let (#gradient, #product) = #split(#ident, &#result.#part)?;
                    }
                }
                _ => quote! {
                    let (#gradient, #product) = ::autodiff::__adjoint::Split::split(&#result.#part)?;
                },
            });
            gradients.push(gradient);
            products.push(product);
        }
        let (gradient, product) = if count == 1 {
            (quote!(#(#gradients)*), quote!(#(#products)*))
        } else {
            (quote!((#(#gradients,)*)), quote!((#(#products,)*)))
        };
        quote!((|| {
            #(#splits)*
            ::core::option::Option::Some((#gradient, #product))
        })())
    }

    /// The differentiable parameters as `__private::Shapes` takes them,
    /// and their names.
    fn shapes(&self) -> (TokenStream, TokenStream) {
        let parameters = match self.differentiable {
            [single] => {
                let ident = &single.ident;
                quote!(&#ident)
            }
            _ => {
                let refs = self.differentiable.iter().map(|param| {
                    let ident = &param.ident;
                    quote!(&#ident)
                });
                quote!((#(#refs,)*))
            }
        };
        let texts = self.differentiable.iter().map(|param| param_name(param));
        (parameters, quote!(&[#(#texts),*]))
    }

    /// `f_jvp`: the dual sweep's forward sweep only (a stack made by
    /// `DualStack::forward_only`), the value's tangent part.
    fn jvp(&self, tangent: &Ident, tape: TokenStream) -> TokenStream {
        self.run(tangent, quote!(forward_only), quote!(compiled_jvp), tape)
    }

    /// `f_hvp`: the value, the gradient (primal parts) and `H·v` (tangent
    /// parts of the adjoints).
    fn hvp(&self, direction: &Ident, tape: TokenStream) -> TokenStream {
        self.run(direction, quote!(new), quote!(compiled_hvp), tape)
    }

    /// The dual sweep along `along` (checked by lifting the parameters
    /// along it; where it does not fit, the direction's check gives the
    /// error) and `answer` of its result, or, where either gives up on a
    /// value that is not finite, the tape, whose error names it.
    fn run(
        &self,
        along: &Ident,
        stack_of: TokenStream,
        answer: TokenStream,
        tape: TokenStream,
    ) -> TokenStream {
        let dual_fn = &self.dual_fn();
        let stack = Ident::new("stack", Span::mixed_site());
        let (pattern, lifts, args) = self.lifted(along);
        let (parameters, names) = self.shapes();
        if self.has_model() {
            // The direction checked one parameter at a time, through its
            // own type (a model's `model_direction`), as the tape's items
            // check it.
            // Relocated onto the model's type, so not hygienic: named
            // apart from the parameters, as `result` is.
            let flat = Ident::new(&unclaimed("flat", &self.function.params), Span::call_site());
            let checks = flatten(self.differentiable, along, &flat);
            let result = Ident::new(
                &unclaimed("result", &self.function.params),
                self.model_span(),
            );
            let split = self.split(&result);
            // Spanned where the model's twin is, as every use of it.
            let span = self.model_span();
            let option = quote_spanned!(span=> ::core::option::Option);
            let answer = if answer.to_string() == "compiled_jvp" {
                let jvp = quote_spanned!(span=> ::autodiff::__private::compiled_jvp);
                quote!(#jvp(#result))
            } else {
                quote!(#split.map(|(gradient, hvp)| {
                    ::autodiff::__adjoint::hvp_compiled();
                    ::autodiff::Hvp { value: #result.value.value, gradient, hvp }
                }))
            };
            return crate::text::relocate(
                quote! {
                    if let #pattern = #lifts {
                        let #stack = &mut ::autodiff::__adjoint::DualStack::#stack_of();
                        if let #option::Some(#result) = #dual_fn(#stack, #(#args),*) {
                            if let ::core::option::Option::Some(answer) = #answer {
                                return ::core::result::Result::Ok(answer);
                            }
                        }
                    }
                    {
                        use ::autodiff::__private as __ad;
                        let mut #flat = ::std::vec::Vec::new();
                        #(#checks)*
                    }
                    #tape
                },
                self.model_span(),
            );
        }
        quote! {
            if let #pattern = #lifts {
                let #stack = &mut ::autodiff::__adjoint::DualStack::#stack_of();
                if let ::core::option::Option::Some(answer) = #dual_fn(#stack, #(#args),*)
                    .and_then(::autodiff::__private::#answer)
                {
                    return ::core::result::Result::Ok(answer);
                }
            }
            ::autodiff::__private::check_direction(#parameters, &#along, #names)?;
            #tape
        }
    }

    /// `f_hessian`: one dual sweep per column, along each unit direction.
    fn hessian(&self, direction: &Ident, tape: TokenStream) -> TokenStream {
        let dual_fn = &self.dual_fn();
        let stack = Ident::new("stack", Span::mixed_site());
        let (pattern, lifts, args) = self.lifted(direction);
        let (parameters, _) = self.shapes();
        if self.has_model() {
            let result = Ident::new(
                &unclaimed("result", &self.function.params),
                self.model_span(),
            );
            let split = self.split(&result);
            // Shaped and flattened through each parameter's own type.
            let (unit, rest, own, out) = (
                Ident::new("unit", Span::mixed_site()),
                Ident::new("rest", Span::mixed_site()),
                Ident::new("own", Span::mixed_site()),
                Ident::new("out", Span::mixed_site()),
            );
            let shaped = rebuild(self.differentiable, &rest, quote!(#unit));
            let count = self.differentiable.len();
            let (components, products): (Vec<_>, Vec<_>) = self
                .differentiable
                .iter()
                .enumerate()
                .map(|(i, param)| {
                    let ident = &param.ident;
                    let product = part(&Ident::new("product", Span::mixed_site()), i, count);
                    match &param.kind {
                        Kind::Struct { ty, .. } => (
                            quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::components(#ident, &mut #own);),
                            quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::gradient_components(&#product, &mut #out);),
                        ),
                        _ => (
                            quote!(__ad::components_of(&#ident, &mut #own);),
                            quote!(__ad::gradient_components_of(&#ident, &#product, &mut #out);),
                        ),
                    }
                })
                .unzip();
            let product = Ident::new("product", Span::mixed_site());
            let option = quote_spanned!(self.model_span()=> ::core::option::Option);
            return crate::text::relocate(
                quote! {
                    use ::autodiff::__private as __ad;
                    let #stack = &mut ::autodiff::__adjoint::DualStack::new();
                    let mut #own = ::std::vec::Vec::new();
                    #(#components)*
                    if let ::core::option::Option::Some(hessian) =
                        __ad::compiled_hessian_flat(#own.len(), |#unit| {
                            let #direction = #shaped;
                            let #pattern = #lifts else {
                                return ::core::option::Option::None;
                            };
                            let #option::Some(#result) = #dual_fn(#stack, #(#args),*) else {
                                return ::core::option::Option::None;
                            };
                            let (_, #product) = #split?;
                            let mut #out = ::std::vec::Vec::with_capacity(#own.len());
                            #(#products)*
                            ::core::option::Option::Some(#out)
                        })
                    {
                        return ::core::result::Result::Ok(hessian);
                    }
                    #tape
                },
                self.model_span(),
            );
        }
        quote! {
            let #stack = &mut ::autodiff::__adjoint::DualStack::new();
            if let ::core::option::Option::Some(hessian) =
                ::autodiff::__private::compiled_hessian(#parameters, |#direction| {
                    let #pattern = #lifts else {
                        return ::core::option::Option::None;
                    };
                    #dual_fn(#stack, #(#args),*)
                })
            {
                return ::core::result::Result::Ok(hessian);
            }
            #tape
        }
    }
}

/// The second-order items of a free function with a dual sweep whose
/// differentiable parameters are numbers, arrays, slices or `Vec`s (at
/// most `MAX_SHAPES`), with no lifetimes of its own and no parameter
/// borrowed mutably: the runtime's `SecondOrder` implemented on its
/// companion type
/// (the lifting and the dual sweep's call, the tape path's call, the
/// parameters as `Shapes` takes them), and `f_jvp`, `f_hvp`, `f_hessian`
/// one call each of its provided methods, whose bodies (the direction's
/// checks, the fallback to the tape, the shaping) are the library's and
/// type-checked once. `None` for any other function; one with no dual
/// sweep has its three items written out as one call of the tape's each,
/// which costs a crate less than the impl (see `docs/performance.md`).
fn through_companion(function: &Function, names: &Names, dual: bool) -> Option<TokenStream> {
    let Names { name, generics, .. } = names;
    let differentiable = differentiable(function);
    if !dual
        || differentiable.is_empty()
        || differentiable.len() > MAX_SHAPES
        || !generics.is_empty()
        || function
            .params
            .iter()
            .any(|param| matches!(param.kind, Kind::Struct { .. }) || !borrows_plainly(&param.ty))
    {
        return None;
    }
    let arg_names: Vec<_> = function.params.iter().map(|param| &param.ident).collect();
    let gradient_type = gradient_type_of(&differentiable);
    let [args, along, stack, tape, tangent, direction] =
        ["args", "along", "stack", "tape", "tangent", "direction"]
            .map(|ident| Ident::new(ident, Span::mixed_site()));
    let grad_tape_on_fn = format_ident!("{}_grad_tape_on", name);
    let lifetime = syn::Lifetime::new("'a", Span::mixed_site());
    let arg_types: Vec<_> = function
        .params
        .iter()
        .map(|param| with_lifetime(&param.ty, &lifetime))
        .collect();
    // The `i`-th argument, as the tape path and the dual sweep take it:
    // a copy where the parameter is one (a number, a slice, an array of
    // numbers), else a clone.
    let field = |i: usize| {
        let index = syn::Index::from(i);
        quote!(#args.#index)
    };
    let kept_arg = |param: &Param, i: usize| {
        let arg = field(i);
        if passes_by_copy(param) {
            arg
        } else {
            quote!(::core::clone::Clone::clone(&#arg))
        }
    };
    let kept: Vec<_> = function
        .params
        .iter()
        .enumerate()
        .map(|(i, param)| kept_arg(param, i))
        .collect();
    let positions: Vec<usize> = function
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| param.kind.is_differentiable())
        .map(|(i, _)| i)
        .collect();
    let params_type = {
        let types = positions.iter().map(|&i| {
            let ty = with_lifetime(&function.params[i].ty, &lifetime);
            quote!(&#lifetime #ty)
        });
        match positions.as_slice() {
            [_] => quote!(#(#types)*),
            _ => quote!((#(#types,)*)),
        }
    };
    let params_value = {
        let fields = positions.iter().map(|&i| {
            let arg = field(i);
            quote!(&#arg)
        });
        match positions.as_slice() {
            [_] => quote!(#(#fields)*),
            _ => quote!((#(#fields,)*)),
        }
    };
    let texts: Vec<_> = differentiable
        .iter()
        .map(|param| param_name(param))
        .collect();
    let dual_items = {
        let dual_fn = super::adjoint::dual_adjoint_ident(&format_ident!("{}_adjoint", name));
        // Each differentiable parameter lifted with its part of `along`;
        // `None` where a part does not fit.
        let mut lifted = 0;
        let dual_args = function.params.iter().enumerate().map(|(i, param)| {
            if !param.kind.is_differentiable() {
                return kept_arg(param, i);
            }
            let arg = field(i);
            let part = part(&along, lifted, differentiable.len());
            lifted += 1;
            if matches!(param.kind, Kind::Slice(_)) {
                quote!(&::autodiff::__adjoint::lift(&#arg[..], &#part[..])?)
            } else {
                quote!(::autodiff::__adjoint::lift(&#arg, &#part)?)
            }
        });
        let dual_args: Vec<_> = dual_args.collect();
        let duals = super::adjoint::dual_type(&gradient_type);
        quote! {
            type Duals = #duals;
            #[inline]
            fn dual(
                #args: &Self::Args,
                #stack: &mut ::autodiff::__adjoint::DualStack,
                #along: &Self::Gradient,
            ) -> ::core::option::Option<::autodiff::ValueAndGradient<Self::Duals, ::autodiff::Dual>> {
                #dual_fn(#stack, #(#dual_args),*)
            }
        }
    };
    let result = quote!(::core::result::Result);
    let error_type = quote!(::autodiff::ScalarAutodiffError);
    let second_order = quote!(::autodiff::__private::SecondOrder<'_>);
    let arguments = quote!(&(#(#arg_names,)*));
    let wrappers = wrappers(
        function,
        names,
        &gradient_type,
        [&tangent, &direction],
        [
            quote!(<#name as #second_order>::jvp(#arguments, #tangent)),
            quote!(<#name as #second_order>::hvp(#arguments, #direction)),
            quote!(<#name as #second_order>::hessian(#arguments)),
        ],
        None,
    );
    Some(quote! {
        #[doc(hidden)]
        #[allow(clippy::type_complexity)]
        impl<#lifetime> ::autodiff::__private::SecondOrder<#lifetime> for #name {
            type Args = (#(#arg_types,)*);
            type Params = #params_type;
            type Gradient = #gradient_type;
            const NAMES: &'static [&'static str] = &[#(#texts),*];
            #dual_items
            #[inline]
            fn params(#args: &#lifetime Self::Args) -> Self::Params {
                #params_value
            }
            fn tape(
                #args: &Self::Args,
                #tape: &mut ::autodiff::Tape,
            ) -> #result<::autodiff::ValueAndGradient<Self::Gradient>, #error_type> {
                #grad_tape_on_fn(#tape, #(#kept),*)
            }
        }

        #wrappers
    })
}

/// Whether `ty` is one whose every lifetime [`with_lifetime`] can name:
/// numbers, `bool`, `char`, `str`, `String`, and `Vec`s, arrays, slices,
/// tuples and shared references of these, with no lifetime written. A
/// path to any other type (a user's struct, `Cow<str>`) may hide an elided
/// lifetime, which a trait impl cannot leave unnamed: such a function has
/// its items written out.
fn borrows_plainly(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(reference) => {
            reference.mutability.is_none()
                && reference.lifetime.is_none()
                && borrows_plainly(&reference.elem)
        }
        syn::Type::Array(array) => borrows_plainly(&array.elem),
        syn::Type::Slice(slice) => borrows_plainly(&slice.elem),
        syn::Type::Paren(paren) => borrows_plainly(&paren.elem),
        syn::Type::Group(group) => borrows_plainly(&group.elem),
        syn::Type::Tuple(tuple) => tuple.elems.iter().all(borrows_plainly),
        syn::Type::Path(path) if path.qself.is_none() && path.path.segments.len() == 1 => {
            let segment = &path.path.segments[0];
            let name = segment.ident.to_string();
            match &segment.arguments {
                syn::PathArguments::None => {
                    crate::lower::is_plain_type(&name)
                        || matches!(name.as_str(), "f64" | "f32" | "bool" | "char" | "str" | "String")
                }
                syn::PathArguments::AngleBracketed(arguments) if name == "Vec" => {
                    arguments.args.iter().all(|argument| {
                        matches!(argument, syn::GenericArgument::Type(ty) if borrows_plainly(ty))
                    })
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// `ty` with `lifetime` on each of its references (a type
/// [`borrows_plainly`]).
fn with_lifetime(ty: &syn::Type, lifetime: &syn::Lifetime) -> syn::Type {
    let mut ty = ty.clone();
    name_lifetimes(&mut ty, lifetime);
    ty
}

fn name_lifetimes(ty: &mut syn::Type, lifetime: &syn::Lifetime) {
    match ty {
        syn::Type::Reference(reference) => {
            reference.lifetime = Some(lifetime.clone());
            name_lifetimes(&mut reference.elem, lifetime);
        }
        syn::Type::Array(array) => name_lifetimes(&mut array.elem, lifetime),
        syn::Type::Slice(slice) => name_lifetimes(&mut slice.elem, lifetime),
        syn::Type::Paren(paren) => name_lifetimes(&mut paren.elem, lifetime),
        syn::Type::Group(group) => name_lifetimes(&mut group.elem, lifetime),
        syn::Type::Tuple(tuple) => {
            for elem in &mut tuple.elems {
                name_lifetimes(elem, lifetime);
            }
        }
        syn::Type::Path(path) => {
            for segment in &mut path.path.segments {
                if let syn::PathArguments::AngleBracketed(arguments) = &mut segment.arguments {
                    for argument in &mut arguments.args {
                        if let syn::GenericArgument::Type(ty) = argument {
                            name_lifetimes(ty, lifetime);
                        }
                    }
                }
            }
        }
        _ => {}
    }
}

/// `f_jvp`, `f_hvp` and `f_hessian` with their docs, the user's
/// attributes and `bodies`, taking the user's parameters and then
/// `along` (the tangent, the direction) of `gradient_type`.
fn wrappers(
    function: &Function,
    names: &Names,
    gradient_type: &TokenStream,
    [tangent, direction]: [&Ident; 2],
    [jvp_body, hvp_body, hessian_body]: [TokenStream; 3],
    extra: Option<TokenStream>,
) -> TokenStream {
    let Names {
        name,
        grad_fn,
        attrs,
        generics,
        ..
    } = names;
    let vis = &function.item.vis;
    let user_params = user_params(function);
    let (jvp_fn, hvp_fn, hessian_fn) = (
        format_ident!("{}_jvp", name),
        format_ident!("{}_hvp", name),
        format_ident!("{}_hessian", name),
    );
    let jvp_doc = format!(
        " Forward mode: the value of [`{name}`] and its derivative along `tangent` (∇{name} · tangent), `tangent` shaped like the gradient of [`{grad_fn}`]. The compiled adjoint's forward sweep on dual numbers where the body allows it, else one recording of the body on a tape and one pass over it in creation order."
    );
    let hvp_doc = format!(
        " The value of [`{name}`], its gradient, and the Hessian times `direction` (H·v), both shaped like the parameters: forward over reverse, the compiled adjoint run on dual numbers where the body allows it, else the tape with each node's derivative rule rerun on dual numbers. A kink (`abs`, `relu`, `max`) has second derivative 0; a second derivative that is not finite is an error naming its operation."
    );
    let hessian_doc = format!(
        " The dense Hessian of [`{name}`] over its differentiable components, in the order `{name}_check` lists them: one Hessian-vector product per component (the compiled adjoint on dual numbers where the body allows it, else the tape)."
    );
    let result = quote!(::core::result::Result);
    let error_type = quote!(::autodiff::ScalarAutodiffError);
    quote! {
        #[doc = #jvp_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #extra
        #vis fn #jvp_fn #generics(
            #(#user_params,)*
            #tangent: #gradient_type
        ) -> #result<::autodiff::Jvp<f64>, #error_type> {
            #jvp_body
        }

        #[doc = #hvp_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #extra
        #vis fn #hvp_fn #generics(
            #(#user_params,)*
            #direction: #gradient_type
        ) -> #result<::autodiff::Hvp<#gradient_type>, #error_type> {
            #hvp_body
        }

        #[doc = #hessian_doc]
        #(#attrs)*
        #[inline]
        #[allow(clippy::too_many_arguments)]
        #extra
        #vis fn #hessian_fn #generics(
            #(#user_params),*
        ) -> #result<::autodiff::Hessian, #error_type> {
            #hessian_body
        }
    }
}
