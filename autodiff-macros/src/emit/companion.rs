//! The companion of an annotated free function `f`: a hidden `struct f {}`
//! in the type namespace whose `f::__tape` is `f_tape` and whose
//! `f::__forward` / `f::__reverse` are the compiled adjoint's pair (which
//! a method's siblings have as `f_forward` / `f_reverse` instead, see
//! [`Sibling`]). A call `f(x)` in a recording twin or in an
//! adjoint names these, so that `use module::f;`, which imports both
//! namespaces, brings the generated siblings along, and so that a plain
//! function `f`, which has no companion, can be told apart from an
//! annotated one (see `body`'s call emission and its stand-in).
//!
//! `f::__tape` is written from `f_tape`'s [`Signature`], which `tape`
//! also declares `f_tape` with: nothing emitted is parsed back.

use proc_macro2::{Span, TokenStream};
use quote::{quote, ToTokens};
use syn::Ident;

/// A generated function's signature, kept as parts: the emitter that
/// writes the function declares it from these, and the companion writes a
/// forwarder with the same parameters.
pub struct Signature {
    pub name: Ident,
    /// `<'tape, 'a>` or nothing.
    pub generics: TokenStream,
    pub inputs: Vec<Input>,
    /// `-> T`, or nothing.
    pub output: TokenStream,
}

/// One parameter: `mut ident: ty`.
#[derive(Clone)]
pub struct Input {
    pub mutability: Option<syn::token::Mut>,
    pub ident: Ident,
    pub ty: TokenStream,
}

impl Input {
    pub fn new(ident: &Ident, ty: impl ToTokens) -> Input {
        Input {
            mutability: None,
            ident: ident.clone(),
            ty: ty.into_token_stream(),
        }
    }

    pub fn mutable(mut self, mutability: Option<syn::token::Mut>) -> Input {
        self.mutability = mutability;
        self
    }

    /// `mut ident: ty`, as declared.
    pub fn declaration(&self) -> TokenStream {
        let Input {
            mutability,
            ident,
            ty,
        } = self;
        quote!(#mutability #ident: #ty)
    }
}

/// A generated function not placed yet: the companion's method, or a free
/// function beside the others.
pub struct Sibling {
    /// Its attributes (allowances, the user's `#[inline]`, ...).
    pub attrs: TokenStream,
    pub vis: syn::Visibility,
    pub signature: Signature,
    pub body: TokenStream,
}

impl Sibling {
    /// The free function `f_forward`.
    pub fn free(&self) -> TokenStream {
        self.placed(&self.signature.name)
    }

    /// The same function as the method `name` of the companion.
    fn method(&self, name: &str) -> TokenStream {
        self.placed(&Ident::new(name, self.signature.name.span()))
    }

    fn placed(&self, name: &Ident) -> TokenStream {
        let Sibling {
            attrs, vis, body, ..
        } = self;
        let declaration = self.signature.declare(name, true);
        quote! {
            #attrs
            #vis #declaration {
                #body
            }
        }
    }
}

impl Signature {
    /// `fn name<..>(mut a: A, ..) -> T`, as the sibling is declared.
    pub fn declaration(&self) -> TokenStream {
        self.declare(&self.name, true)
    }

    fn declare(&self, name: &Ident, mutability: bool) -> TokenStream {
        let Signature {
            generics, output, ..
        } = self;
        let inputs = self.inputs.iter().map(|input| {
            if mutability {
                input.declaration()
            } else {
                let Input { ident, ty, .. } = input;
                quote!(#ident: #ty)
            }
        });
        quote!(fn #name #generics(#(#inputs),*) #output)
    }
}

/// `struct f {}` and `impl f { fn __tape(..) fn __forward(..) fn
/// __reverse(..) .. }`: `__tape` forwards to the recording twin `f_tape`
/// (public, so a function of its own), the next two are the adjoint's
/// `pair`, then `dual_pair`'s `__forward_dual` and `__reverse_dual`.
pub fn item(
    name: &Ident,
    vis: &syn::Visibility,
    tape: &Signature,
    pair: &[Sibling; 2],
    dual_pair: TokenStream,
    checks: &[usize],
) -> TokenStream {
    let [forward, reverse] = pair;
    let methods = [
        forwarder(tape, "__tape", vis),
        forward.method("__forward"),
        reverse.method("__reverse"),
    ];
    let checks = checks.iter().map(|position| {
        let check = quote::format_ident!("argument_{}", position + 1, span = name.span());
        quote! {
            #[inline(always)]
            #vis fn #check<T: ::autodiff::__private::ConstantArgument<f64>>(&self, value: T) -> f64 {
                ::autodiff::__private::constant_argument(value)
            }
        }
    });
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}
        #[allow(dead_code, clippy::too_many_arguments)]
        impl #name {
            #(#methods)*
            #dual_pair
            #(#checks)*
        }
    }
}

/// The positions of `function`'s `#[constant]` parameters of type `f64`:
/// a call passes each argument there through the companion's
/// `argument_I`, which rejects a tracked one on the argument (`body`'s
/// `twin_with_arguments`). A `#[constant]` of another type (an array, a
/// `Vec`) taking a tracked value stays the call's error.
pub fn constant_checks(function: &crate::ast::Function) -> Vec<usize> {
    function
        .params
        .iter()
        .enumerate()
        .filter(|(_, param)| {
            matches!(param.kind, crate::ast::Kind::PassThrough) && f64_shaped(&param.ty)
        })
        .map(|(position, _)| position)
        .collect()
}

/// `f64`, as written.
fn f64_shaped(ty: &syn::Type) -> bool {
    crate::valid::is_f64(ty)
}
/// `fn method(<sibling's parameters>) { sibling(<them>) }`.
fn forwarder(sibling: &Signature, method: &str, vis: &syn::Visibility) -> TokenStream {
    let target = &sibling.name;
    let declaration = sibling.declare(&Ident::new(method, target.span()), false);
    let args = sibling.inputs.iter().map(|input| {
        // Located at the type, as the twin's own parameter is: a type that
        // is not a model is then one error, not two.
        let mut tokens = input.ty.clone().into_iter().map(|token| token.span());
        let first = tokens.next().unwrap_or_else(Span::call_site);
        let at = tokens
            .last()
            .and_then(|last| first.join(last))
            .unwrap_or(first);
        let mut arg = input.ident.clone();
        arg.set_span(at.resolved_at(input.ident.span()));
        arg
    });
    quote! {
        #[inline(always)]
        #vis #declaration {
            #target(#(#args),*)
        }
    }
}
