//! [`Compiled`]: the second-order items of a function whose body the dual
//! sweep takes, which run `f_adjoint_dual` with each differentiable
//! parameter lifted along the direction, and the tape where it gives up.

use super::*;

/// A function with `f_adjoint_dual`, the compiled adjoint on dual numbers
/// (see `adjoint::dual`), which its second-order items run: each
/// differentiable parameter lifted with its part of a direction as the
/// tangent; where the dual sweep gives up (a value not finite), the tape's
/// twin, whose errors are the labelled ones.
pub(super) struct Compiled<'f, 'a> {
    pub(super) function: &'f Function<'a>,
    pub(super) dual_fn: Ident,
    pub(super) differentiable: &'f [&'f Param],
}

impl Compiled<'_, '_> {
    /// The differentiable parameters lifted along `direction` (shaped like
    /// the gradient), each `Some` where its part of `direction` fits it,
    /// as a pattern and the tuple it matches, and the arguments of
    /// `f_adjoint_dual` that take them.
    pub(super) fn lifted(&self, direction: &Ident) -> (TokenStream, TokenStream, Vec<TokenStream>) {
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
    pub(super) fn has_model(&self) -> bool {
        self.differentiable
            .iter()
            .any(|param| matches!(param.kind, Kind::Struct { .. }))
    }

    /// `f_adjoint_dual`, spanned on the first model's type where there is
    /// one (see [`Self::model_span`]).
    pub(super) fn dual_fn(&self) -> Ident {
        let mut dual_fn = self.dual_fn.clone();
        if self.has_model() {
            dual_fn.set_span(self.model_span());
        }
        dual_fn
    }

    /// The first model's type's span, on which the bindings that hold its
    /// twin are spanned (see `lifted`).
    pub(super) fn model_span(&self) -> Span {
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
    pub(super) fn split(&self, result: &Ident) -> TokenStream {
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
    pub(super) fn shapes(&self) -> (TokenStream, TokenStream) {
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
    pub(super) fn jvp(&self, tangent: &Ident, tape: TokenStream) -> TokenStream {
        self.run(tangent, quote!(forward_only), quote!(compiled_jvp), tape)
    }

    /// `f_hvp`: the value, the gradient (primal parts) and `H·v` (tangent
    /// parts of the adjoints).
    pub(super) fn hvp(&self, direction: &Ident, tape: TokenStream) -> TokenStream {
        self.run(direction, quote!(new), quote!(compiled_hvp), tape)
    }

    /// The dual sweep along `along` (checked by lifting the parameters
    /// along it; where it does not fit, the direction's check gives the
    /// error) and `answer` of its result, or, where either gives up on a
    /// value that is not finite, the tape, whose error names it.
    pub(super) fn run(
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
    pub(super) fn hessian(&self, direction: &Ident, tape: TokenStream) -> TokenStream {
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
