//! [`through_companion`]: a free function's second-order items as one impl
//! of the runtime's `SecondOrder` on its companion type and three one-call
//! wrappers; and [`wrappers`], the three items' docs and signatures, which
//! every form shares.

use super::*;

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
pub(super) fn through_companion(
    function: &Function,
    names: &Names,
    dual: bool,
) -> Option<TokenStream> {
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
        let dual_fn = super::super::adjoint::dual_adjoint_ident(&format_ident!("{}_adjoint", name));
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
        let duals = super::super::adjoint::dual_type(&gradient_type);
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
            #dual_items
            #[inline]
            fn params(
                #args: &#lifetime Self::Args,
            ) -> (Self::Params, &'static [&'static str]) {
                (#params_value, &[#(#texts),*])
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
pub(super) fn wrappers(
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
