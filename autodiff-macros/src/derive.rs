//! `#[derive(Parameters)]`: a struct of differentiable fields becomes a model.
//!
//! It emits three things. The public `Parameters` impl, which walks the
//! fields in declaration order (skipping `#[constant]` ones) so a training
//! loop and the optimisers see one flat list of scalars. A twin struct that
//! holds the same fields on a tape (`MlpOnTape<'tape>`: same names, every
//! `f64` a `Scalar`, constants as they are), so the body of a
//! `#[differentiable]` function reads `model.w1[j][i]` unchanged in its
//! recording twin. And the runtime's `Parameter` impls for the struct and a
//! reference to it, which record the fields as variables, shape them into the
//! twin, read the gradient back into the struct's own type and rebuild it from
//! a flat point for the gradient check. The twin also keeps a reference to
//! the model it was recorded from, through which a method called on it
//! (`model.layers[k].forward(x)`) finds the method's recording twin. Each field delegates to its own
//! type's impl, so nesting (a struct of `Vec`s of structs) composes. Last,
//! the compiled adjoint's traits (`__adjoint::Adjoint` and the checks and
//! stack pushes beside it), whose adjoint of a model is a model of the
//! same type; and the model's twin on dual numbers (`MlpOnDuals`, every
//! `f64` a `Dual`), which `f_hvp`, `f_jvp` and `f_hessian` read where they
//! run compiled (`dual_twin`).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::attr;
use crate::ctxt::Ctxt;
use crate::text;

/// One named field and whether it is carried rather than differentiated.
struct Field<'a> {
    ident: &'a Ident,
    vis: &'a syn::Visibility,
    ty: &'a Type,
    constant: bool,
}

/// The whole derive: check the struct, then emit, or the errors alone (the
/// struct itself stays as written, so nothing cascades).
pub fn parameters(input: TokenStream) -> TokenStream {
    let input: DeriveInput = match syn::parse2(input) {
        Ok(input) => input,
        Err(error) => return error.to_compile_error(),
    };
    let cx = Ctxt::default();
    let fields = read(&cx, &input);
    match cx.check() {
        Some(error) => error.to_compile_error(),
        None => emit(&input, &fields),
    }
}

fn read<'a>(cx: &Ctxt, input: &'a DeriveInput) -> Vec<Field<'a>> {
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        cx.error(
            &input.generics,
            format_args!("#[derive(Parameters)] takes no generic parameters: write `{name}` with concrete field types"),
        );
    }
    let named = match &input.data {
        Data::Struct(data) => match &data.fields {
            Fields::Named(named) => named,
            Fields::Unnamed(_) | Fields::Unit => {
                cx.error(
                    &data.fields,
                    "#[derive(Parameters)] needs named fields, like `struct Layer { w: [[f64; 2]; 4], b: [f64; 4] }`",
                );
                return Vec::new();
            }
        },
        Data::Enum(data) => {
            cx.error(
                data.enum_token,
                "#[derive(Parameters)] works on structs: an enum's variants hold different numbers, so it has no one list of parameters",
            );
            return Vec::new();
        }
        Data::Union(data) => {
            cx.error(
                data.union_token,
                "#[derive(Parameters)] works on structs with named fields",
            );
            return Vec::new();
        }
    };
    let fields: Vec<Field> = named
        .named
        .iter()
        .filter_map(|field| {
            let ident = field.ident.as_ref()?;
            let constant = field.attrs.iter().any(attr::is_constant);
            for attr in field.attrs.iter().filter(|attr| attr::is_constant(attr)) {
                if !matches!(attr.meta, syn::Meta::Path(_)) {
                    cx.error(attr, "`#[constant]` takes no arguments");
                }
            }
            if !constant {
                check_field_type(cx, ident, &field.ty);
            }
            Some(Field {
                ident,
                vis: &field.vis,
                ty: &field.ty,
                constant,
            })
        })
        .collect();
    if fields.iter().all(|field| field.constant) {
        cx.error(
            name,
            format_args!("`{name}` has no differentiable field: give it an `f64`, array or `Vec` field that is not `#[constant]`"),
        );
    }
    fields
}

/// Rejects, on the field's type, what cannot be a parameter. A path that is
/// not a known standard type is taken to be another model; if it is not,
/// rustc says so through `Parameters`' own message.
fn check_field_type(cx: &Ctxt, ident: &Ident, ty: &Type) {
    if !differentiable(ty) {
        let written = text::tokens(ty.to_token_stream());
        if crate::text::mentions(ty.to_token_stream(), "f32") {
            cx.error(
                ty,
                format_args!("field `{ident}`: f32 is not supported: gradients are exact in f64, so use `f64`"),
            );
        } else {
            cx.error(
                ty,
                format_args!("field `{ident}` of type `{written}` is not differentiable: use f64, [f64; N], Vec<f64> or a #[derive(Parameters)] struct, or mark the field `#[constant]` to carry it unchanged"),
            );
        }
    }
}

fn differentiable(ty: &Type) -> bool {
    match ty {
        Type::Paren(paren) => differentiable(&paren.elem),
        Type::Group(group) => differentiable(&group.elem),
        Type::Array(array) => differentiable(&array.elem),
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return false;
            };
            let name = last.ident.to_string();
            match &last.arguments {
                syn::PathArguments::None => {
                    name == "f64" || (!crate::lower::is_plain_type(&name) && !is_std_type(&name))
                }
                syn::PathArguments::AngleBracketed(args) if name == "Vec" => {
                    matches!(args.args.first(), Some(syn::GenericArgument::Type(elem)) if args.args.len() == 1 && differentiable(elem))
                }
                _ => false,
            }
        }
        _ => false,
    }
}

/// Standard types without generic arguments that hold no trainable number.
fn is_std_type(name: &str) -> bool {
    matches!(name, "f32" | "String" | "char" | "str" | "Self")
}

fn emit(input: &DeriveInput, fields: &[Field]) -> TokenStream {
    let name = &input.ident;
    let vis = &input.vis;
    let twin = format_ident!("{}OnTape", name);
    let tape = syn::Lifetime::new("'tape", Span::call_site());
    // The twin by reference and by value, each lifted as it is.
    let lifted = [quote!(&'__r #twin<#tape>), quote!(#twin<#tape>)];
    let pv = quote!(::autodiff::Parameters);
    let p = quote!(::autodiff::__private::Parameter);
    let trained: Vec<&Field> = fields.iter().filter(|field| !field.constant).collect();

    // `Parameters`: every walk goes field by field; a field's own type
    // answers for it, spanned on that type so rustc's errors land there.
    let visits = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> <#ty as #pv>::visit(&self.#ident, f);)
    });
    let visits_mut = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> <#ty as #pv>::visit_mut(&mut self.#ident, f);)
    });
    let same = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> <#ty as #pv>::same_shape(&self.#ident, &other.#ident))
    });
    let zips = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> <#ty as #pv>::zip_mut(&mut self.#ident, &other.#ident, f);)
    });

    // The twin on a tape.
    // Documented, so that a crate denying `missing_docs` can derive.
    let twin_fields = fields.iter().map(|field| {
        let (ident, ty, field_vis) = (field.ident, field.ty, field.vis);
        let doc = format!(" `{name}::{ident}` on the tape.");
        if field.constant {
            quote!(#[doc = #doc] #field_vis #ident: #ty)
        } else {
            quote_spanned!(ty.span()=> #[doc = #doc] #field_vis #ident: <#ty as #p>::Variables<#tape>)
        }
    });
    let twin_doc = format!(
        " [`{name}`] recorded on a tape: the same fields, every `f64` a [`Scalar`](::autodiff::Scalar) variable; what a `#[differentiable]` body reads when it takes a `{name}`."
    );

    let clones = fields.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> #ident: ::core::clone::Clone::clone(&self.#ident))
    });

    // `Parameter`: record, shape, read back, rebuild.
    let per_field = |trained_part: &dyn Fn(&Ident, &Type) -> TokenStream,
                     constant_part: &dyn Fn(&Ident) -> TokenStream| {
        fields
            .iter()
            .map(|field| {
                let ident = field.ident;
                let value = if field.constant {
                    constant_part(ident)
                } else {
                    trained_part(ident, field.ty)
                };
                quote!(#ident: #value)
            })
            .collect::<Vec<_>>()
    };
    let shaped = per_field(
        &|ident, ty| quote_spanned!(ty.span()=> <#ty as #p>::shape(&self.#ident, leaves)),
        &|ident| quote!(::core::clone::Clone::clone(&self.#ident)),
    );
    let gradient = per_field(
        &|ident, ty| quote_spanned!(ty.span()=> <#ty as #p>::gradient(&variables.#ident)),
        &|ident| quote!(::core::clone::Clone::clone(&variables.#ident)),
    );
    let rebuilt = per_field(
        &|ident, ty| quote_spanned!(ty.span()=> <#ty as #p>::rebuild(&self.#ident, from)),
        &|ident| quote!(::core::clone::Clone::clone(&self.#ident)),
    );
    // The compiled adjoint's zero and gradient, field by field (the
    // defaults go through a flat list of components).
    let zeros = per_field(
        &|ident, ty| quote_spanned!(ty.span()=> <#ty as #p>::zero_owned(&self.#ident)),
        &|ident| quote!(::core::clone::Clone::clone(&self.#ident)),
    );
    let carried_names: Vec<Ident> = trained
        .iter()
        .map(|field| format_ident!("{}_carried", field.ident))
        .collect();
    let carries = trained.iter().zip(&carried_names).map(|(field, name)| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> let #name = <#ty as #p>::carry_gradient(&self.#ident, bar.#ident);)
    });
    let carried = fields.iter().map(|field| {
        let ident = field.ident;
        if field.constant {
            quote!(#ident: ::core::clone::Clone::clone(&self.#ident))
        } else {
            let name = format_ident!("{}_carried", ident);
            quote!(#ident: #name.0)
        }
    });
    // A caller's adjoint lent to a callee's reverse sweep
    // (`Parameter::lend_bar`): each trained field moved out through its
    // own type's, the constants copied.
    let lent = per_field(
        &|ident, ty| quote_spanned!(ty.span()=> <#ty as #p>::lend_bar(&mut bar.#ident)),
        &|ident| quote!(::core::clone::Clone::clone(&bar.#ident)),
    );
    let components = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> <#ty as #p>::components(&self.#ident, out);)
    });
    let gradient_components = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> <#ty as #p>::gradient_components(&gradient.#ident, out);)
    });
    let fits = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> && <#ty as #p>::fits(&self.#ident, &gradient.#ident))
    });

    let (duals, dual_methods, dual_methods_by_ref) = dual_twin(input, fields);

    quote! {
        #[automatically_derived]
        impl #pv for #name {
            fn visit(&self, f: &mut dyn ::core::ops::FnMut(f64)) {
                #(#visits)*
            }
            fn visit_mut(&mut self, f: &mut dyn ::core::ops::FnMut(&mut f64)) {
                #(#visits_mut)*
            }
            fn same_shape(&self, other: &Self) -> bool {
                true #(&& #same)*
            }
            fn zip_mut(&mut self, other: &Self, f: &mut dyn ::core::ops::FnMut(&mut f64, f64)) {
                #(#zips)*
            }
        }

        #[doc = #twin_doc]
        #vis struct #twin<#tape> {
            #(#twin_fields,)*
            /// The model these values were recorded from: a method called
            /// on the twin is found through it.
            __model: &#tape #name,
        }

        // By hand rather than derived: each field's clone is spanned on its
        // type, so a field that is not a model is reported there alone.
        #[automatically_derived]
        impl<#tape> ::core::clone::Clone for #twin<#tape> {
            fn clone(&self) -> Self {
                #twin { #(#clones,)* __model: self.__model }
            }
        }

        #[automatically_derived]
        impl<#tape> ::autodiff::__private::OnTape<#tape> for #twin<#tape> {
            type Model = #name;
            #[inline]
            fn model(&self) -> &#tape #name {
                self.__model
            }
        }

        // What a plain helper given the model is given (`count(&self.layer)`
        // used as a count, `lower::by_use`): the plain model.
        #[automatically_derived]
        impl<'__r, #tape> ::autodiff::__private::Primal for &'__r #twin<#tape> {
            type Value = &#tape #name;
            #[inline]
            fn primal(self) -> &#tape #name {
                self.__model
            }
        }

        // An array of the model's parts (`for layer in [&net.l1,
        // &net.l2]`), a copy of it bound `mut` or listed (`let mut c =
        // m.clone();`, `vec![m.clone()]`): each lifted as it is.
        #(
            #[automatically_derived]
            impl<'__r, #tape> ::autodiff::__private::Lift<#tape> for #lifted {
                type Lifted = Self;
                #[inline]
                fn lift(
                    self,
                    _: &#tape ::autodiff::Tape,
                    _: ::core::option::Option<::autodiff::Label>,
                ) -> Self {
                    self
                }
            }
        )*

        #[automatically_derived]
        impl #p for #name {
            type Variables<#tape> = #twin<#tape>;
            type Gradient = #name;
            type Owned = #name;
            fn shape<#tape>(&#tape self, leaves: &mut &[::autodiff::Scalar<#tape>]) -> #twin<#tape> {
                #twin { #(#shaped,)* __model: self }
            }
            fn gradient(variables: &#twin<'_>) -> #name {
                #name { #(#gradient,)* }
            }
            fn components(&self, out: &mut ::std::vec::Vec<f64>) {
                #(#components)*
            }
            fn gradient_components(gradient: &#name, out: &mut ::std::vec::Vec<f64>) {
                #(#gradient_components)*
            }
            fn rebuild(&self, from: &mut &[f64]) -> #name {
                #name { #(#rebuilt,)* }
            }
            fn gradient_from(&self, from: &mut &[f64]) -> #name {
                self.rebuild(from)
            }
            fn fits(&self, gradient: &#name) -> bool {
                true #(#fits)*
            }
            #[inline]
            fn zero_owned(&self) -> #name {
                #name { #(#zeros,)* }
            }
            #[inline]
            fn lend_bar(bar: &mut #name) -> #name {
                #name { #(#lent,)* }
            }
            #[inline]
            fn finite_with_bar(&self, bar: &#name) -> bool {
                ::autodiff::__adjoint::model_finite_with(self, bar)
            }
            #[inline]
            fn carry_gradient(&self, bar: #name) -> (#name, bool) {
                #(#carries)*
                let finite = true #(& #carried_names.1)*;
                (#name { #(#carried,)* }, finite)
            }
            #dual_methods
        }

        // The compiled adjoint's side: the model's adjoint is a model (see
        // `src/__adjoint/models.rs`), walked as `Parameters` walks it, so
        // that no field's type is named here again.
        #[automatically_derived]
        impl ::autodiff::__adjoint::Adjoint for #name {
            type Bar = #name;
            // Constants may differ between the models of a `Vec`.
            const UNIFORM: bool = false;
            #[inline]
            fn zero_bar(&self) -> #name {
                ::autodiff::__adjoint::zero_model(self)
            }
            #[inline]
            fn carry(&self, bar: #name) -> #name {
                ::autodiff::__adjoint::carried(self, bar)
            }
        }

        // The adjoint of a model bound by a loop (`for layer in
        // &net.layers`): zeroed like the model, added scalar by scalar.
        #[automatically_derived]
        impl ::autodiff::__adjoint::Bar for #name {
            #[inline]
            fn add_from(&mut self, other: &#name) {
                ::autodiff::Parameters::zip_mut(self, other, &mut |a, b| *a += b)
            }
            #[inline]
            fn zeroed(&self) -> #name {
                ::autodiff::__adjoint::zero_model(self)
            }
        }

        #[automatically_derived]
        impl ::autodiff::__adjoint::Checked<#name> for #name {
            #[inline]
            fn finite_with(&self, bar: &#name) -> bool {
                ::autodiff::__adjoint::model_finite_with(self, bar)
            }
        }

        #[automatically_derived]
        impl ::autodiff::__adjoint::Observed for #name {
            #[inline]
            fn all_finite(&self) -> bool {
                ::autodiff::__adjoint::model_all_finite(self)
            }
        }

        #[automatically_derived]
        impl ::autodiff::__adjoint::Spread for #name {
            #[inline]
            fn push_all(&self, stack: &mut ::autodiff::__adjoint::Stack) {
                ::autodiff::__adjoint::push_model(self, stack)
            }
            #[inline]
            fn pop_scaled(&mut self, stack: &mut ::autodiff::__adjoint::Stack, scale: f64) {
                ::autodiff::__adjoint::pop_model(self, stack, scale)
            }
        }

        #duals

        // A model passed by reference is recorded, read back and rebuilt as
        // the model itself.
        #[automatically_derived]
        impl #p for &#name {
            type Variables<#tape> = #twin<#tape>;
            type Gradient = #name;
            type Owned = #name;
            fn shape<#tape>(&#tape self, leaves: &mut &[::autodiff::Scalar<#tape>]) -> #twin<#tape> {
                <#name as #p>::shape(self, leaves)
            }
            fn gradient(variables: &#twin<'_>) -> #name {
                <#name as #p>::gradient(variables)
            }
            fn components(&self, out: &mut ::std::vec::Vec<f64>) {
                <#name as #p>::components(self, out)
            }
            fn gradient_components(gradient: &#name, out: &mut ::std::vec::Vec<f64>) {
                <#name as #p>::gradient_components(gradient, out)
            }
            fn rebuild(&self, from: &mut &[f64]) -> #name {
                <#name as #p>::rebuild(self, from)
            }
            fn gradient_from(&self, from: &mut &[f64]) -> #name {
                <#name as #p>::gradient_from(self, from)
            }
            fn fits(&self, gradient: &#name) -> bool {
                <#name as #p>::fits(self, gradient)
            }
            fn lend_bar(bar: &mut #name) -> #name {
                <#name as #p>::lend_bar(bar)
            }
            fn finite_with_bar(&self, bar: &#name) -> bool {
                <#name as #p>::finite_with_bar(self, bar)
            }
            #dual_methods_by_ref
        }
    }
}

/// The model's twin on dual numbers (`MlpOnDuals`), what the dual sweep
/// (`f_hvp`, `f_jvp`, `f_hessian` compiled) reads where the body reads the
/// model, and the `Parameter` methods that walk it (see
/// `src/__adjoint/dual_models.rs`): every trained field's numbers and every
/// constant written with `f64`s become duals, other constants are carried.
/// The twin and its `DualSpread`, then the methods for `impl Parameter
/// for Model` and for `impl Parameter for &Model`.
fn dual_twin(input: &DeriveInput, fields: &[Field]) -> (TokenStream, TokenStream, TokenStream) {
    let name = &input.ident;
    let vis = &input.vis;
    let twin = format_ident!("{}OnDuals", name, span = Span::mixed_site());
    let p = quote!(::autodiff::__private::Parameter);
    let stack = quote!(::autodiff::__adjoint::DualStack);
    // How each field is carried: trained, a constant of numbers, or
    // another constant.
    let numbers = |field: &Field| !field.constant || written_with_f64(field.ty);
    let twin_fields = fields.iter().map(|field| {
        let (ident, ty, field_vis) = (field.ident, field.ty, field.vis);
        let doc = format!(" `{name}::{ident}` on dual numbers.");
        if numbers(field) {
            quote_spanned!(ty.span()=> #[doc = #doc] #field_vis #ident: <#ty as #p>::Duals)
        } else {
            quote!(#[doc = #doc] #field_vis #ident: #ty)
        }
    });
    let lifted = fields.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        if !field.constant {
            quote_spanned!(ty.span()=> #ident: <#ty as #p>::lift_duals(&self.#ident, &along.#ident)?)
        } else if numbers(field) {
            quote_spanned!(ty.span()=> #ident: <#ty as #p>::constant_duals(&self.#ident))
        } else {
            quote!(#ident: ::core::clone::Clone::clone(&self.#ident))
        }
    });
    let constants = fields.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        if numbers(field) {
            quote_spanned!(ty.span()=> #ident: <#ty as #p>::constant_duals(&self.#ident))
        } else {
            quote!(#ident: ::core::clone::Clone::clone(&self.#ident))
        }
    });
    let zeros = fields.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        if numbers(field) {
            quote_spanned!(ty.span()=> #ident: <#ty as #p>::zero_duals(&duals.#ident))
        } else {
            quote!(#ident: ::core::clone::Clone::clone(&duals.#ident))
        }
    });
    let trained: Vec<&Field> = fields.iter().filter(|field| !field.constant).collect();
    let splits = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> & <#ty as #p>::split_duals(&self.#ident, &duals.#ident, &mut gradient.#ident, &mut tangent.#ident))
    });
    let pushes = trained.iter().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> <#ty as #p>::push_duals(&duals.#ident, stack);)
    });
    let pops = trained.iter().rev().map(|field| {
        let (ident, ty) = (field.ident, field.ty);
        quote_spanned!(ty.span()=> <#ty as #p>::pop_duals(&mut duals.#ident, stack, scale);)
    });
    let twin_doc = format!(
        " [`{name}`] on dual numbers: the same fields, every `f64` a [`Dual`](::autodiff::Dual); what `f_hvp`'s compiled sweep reads when it takes a `{name}`."
    );
    let items = quote! {
        #[doc = #twin_doc]
        #[doc(hidden)]
        #vis struct #twin {
            #(#twin_fields,)*
            /// The model this is the twin of. Last, and sized whatever the
            /// fields are: a field whose type is not a model stays the one
            /// error on that field.
            __model: ::core::marker::PhantomData<#name>,
        }

        // The twin as a gradient a callee's dual sweep pushes and its
        // caller's reverse pops, scaled.
        #[automatically_derived]
        impl ::autodiff::__adjoint::DualSpread for #twin {
            #[inline]
            fn push_all(&self, stack: &mut #stack) {
                <#name as #p>::push_duals(self, stack)
            }
            #[inline]
            fn pop_scaled(&mut self, stack: &mut #stack, scale: ::autodiff::Dual) {
                <#name as #p>::pop_duals(self, stack, scale)
            }
        }
    };
    let methods = quote! {
        type Duals = #twin;
        #[inline]
        fn lift_duals(&self, along: &#name) -> ::core::option::Option<#twin> {
            ::core::option::Option::Some(#twin { #(#lifted,)* __model: ::core::marker::PhantomData })
        }
        #[inline]
        fn constant_duals(&self) -> #twin {
            #twin { #(#constants,)* __model: ::core::marker::PhantomData }
        }
        #[inline]
        fn zero_duals(duals: &#twin) -> #twin {
            #twin { #(#zeros,)* __model: ::core::marker::PhantomData }
        }
        #[inline]
        fn split_duals(&self, duals: &#twin, gradient: &mut #name, tangent: &mut #name) -> bool {
            true #(#splits)*
        }
        #[inline]
        fn push_duals(duals: &#twin, stack: &mut #stack) {
            #(#pushes)*
        }
        #[inline]
        fn pop_duals(duals: &mut #twin, stack: &mut #stack, scale: ::autodiff::Dual) {
            #(#pops)*
        }
    };
    let by_ref = quote! {
        type Duals = #twin;
        #[inline]
        fn lift_duals(&self, along: &#name) -> ::core::option::Option<#twin> {
            <#name as #p>::lift_duals(self, along)
        }
        #[inline]
        fn constant_duals(&self) -> #twin {
            <#name as #p>::constant_duals(self)
        }
        #[inline]
        fn zero_duals(duals: &#twin) -> #twin {
            <#name as #p>::zero_duals(duals)
        }
        #[inline]
        fn split_duals(&self, duals: &#twin, gradient: &mut #name, tangent: &mut #name) -> bool {
            <#name as #p>::split_duals(self, duals, gradient, tangent)
        }
        #[inline]
        fn push_duals(duals: &#twin, stack: &mut #stack) {
            <#name as #p>::push_duals(duals, stack)
        }
        #[inline]
        fn pop_duals(duals: &mut #twin, stack: &mut #stack, scale: ::autodiff::Dual) {
            <#name as #p>::pop_duals(duals, stack, scale)
        }
    };
    (items, methods, by_ref)
}

/// Whether `ty` is written as numbers: `f64`, or an array or `Vec` of
/// such (a `#[constant]` field the dual sweep reads as duals).
fn written_with_f64(ty: &Type) -> bool {
    match ty {
        Type::Paren(paren) => written_with_f64(&paren.elem),
        Type::Group(group) => written_with_f64(&group.elem),
        Type::Array(array) => written_with_f64(&array.elem),
        Type::Path(path) if path.qself.is_none() => {
            let Some(last) = path.path.segments.last() else {
                return false;
            };
            match &last.arguments {
                syn::PathArguments::None => last.ident == "f64",
                syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" => {
                    matches!(args.args.first(), Some(syn::GenericArgument::Type(elem)) if args.args.len() == 1 && written_with_f64(elem))
                }
                _ => false,
            }
        }
        _ => false,
    }
}
