//! The items of a `#[differentiable]` method, in its `impl` block.
//!
//! The other emitters write free functions that take the receiver as the
//! parameter `__self` (see `receiver`). Here each generated function `f_x`
//! becomes a hidden associated function `__ad_f_x`, with calls between the
//! siblings spelled `Self::__ad_f_x`, and a public method `f_x(&self, ..)`
//! forwards to it, so that a caller writes `model.f_grad(x)`. The recording
//! twin's method also takes the plain model as `&self`: that is what method
//! call syntax needs to find `f_tape` from a model on the tape (whose twin
//! keeps a reference to the model it was recorded from), and the twin
//! itself comes as `__self`.

use std::collections::HashSet;

use proc_macro2::{Ident, Punct, Spacing, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{FnArg, ItemFn, Pat};

use crate::receiver::{Taken, SELF_PARAM};

/// `siblings` (the generated free functions) as hidden associated
/// functions and forwarding methods. `plain` is the method's own name and
/// `tape_fn` its recording twin's.
pub fn items(siblings: TokenStream, plain: &Ident, tape_fn: &Ident, taken: Taken) -> TokenStream {
    let functions = match parse(siblings) {
        Ok(functions) => functions,
        Err(error) => return error.to_compile_error(),
    };
    let names = names(&functions);
    let mut out = TokenStream::new();
    for mut function in functions {
        link_docs(&mut function, &names, plain);
        let is_tape = function.sig.ident == *tape_fn;
        // The dual sweep takes the model's twin on duals, not `&self`:
        // its second-order items call it as the associated function.
        let dual_fn = super::adjoint::dual_adjoint_ident(&format_ident!("{}_adjoint", plain));
        // The dual pair: associated functions as they are, which a
        // caller's dual sweep names on the model's type.
        let pair = [
            format_ident!("{}_forward_dual", plain),
            format_ident!("{}_reverse_dual", plain),
        ];
        if pair.contains(&function.sig.ident) {
            let body = qualify(function.block.to_token_stream(), &names, plain);
            match syn::parse2(body) {
                Ok(block) => *function.block = block,
                Err(error) => return error.to_compile_error(),
            }
            function.attrs.push(syn::parse_quote!(#[doc(hidden)]));
            function.to_tokens(&mut out);
            continue;
        }
        let wrapper = if function.sig.ident == dual_fn {
            TokenStream::new()
        } else {
            forwarding_method(&function, is_tape, taken)
        };
        let mut hidden = function;
        hidden.sig.ident = hidden_name(&hidden.sig.ident);
        hidden.attrs.retain(|attr| !attr.path().is_ident("doc"));
        hidden.vis = syn::Visibility::Inherited;
        let body = if is_tape {
            self_in_labels(hidden.block.to_token_stream())
        } else {
            // No user code in these bodies: every sibling call is generated.
            qualify(hidden.block.to_token_stream(), &names, plain)
        };
        match syn::parse2(body) {
            Ok(block) => *hidden.block = block,
            Err(error) => return error.to_compile_error(),
        }
        out.extend(quote! {
            #[doc(hidden)]
            #[allow(non_snake_case, dead_code)]
            #hidden
            #wrapper
        });
    }
    out
}

/// `siblings` of an associated function without `self` (in a
/// `#[differentiable] impl` block): the same functions, with the calls
/// between them spelled `Self::f_x(..)`.
pub fn associated(siblings: TokenStream, plain: &Ident, tape_fn: &Ident) -> TokenStream {
    let functions = match parse(siblings) {
        Ok(functions) => functions,
        Err(error) => return error.to_compile_error(),
    };
    let names = names(&functions);
    let mut out = TokenStream::new();
    for mut function in functions {
        link_docs(&mut function, &names, plain);
        if function.sig.ident != *tape_fn {
            let body = qualify_with(function.block.to_token_stream(), &names, plain, false);
            match syn::parse2(body) {
                Ok(block) => *function.block = block,
                Err(error) => return error.to_compile_error(),
            }
        }
        function.to_tokens(&mut out);
    }
    out
}

/// Doc links between the siblings (`[`f_grad`]`) as `Self::` paths: in an
/// `impl` block a bare name does not resolve.
fn link_docs(function: &mut ItemFn, names: &HashSet<String>, plain: &Ident) {
    let plain = plain.to_string();
    for attr in &mut function.attrs {
        let syn::Meta::NameValue(doc) = &mut attr.meta else {
            continue;
        };
        if !doc.path.is_ident("doc") {
            continue;
        }
        let syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(text),
            ..
        }) = &mut doc.value
        else {
            continue;
        };
        let mut value = text.value();
        for name in names.iter().chain(std::iter::once(&plain)) {
            value = value.replace(&format!("[`{name}`]"), &format!("[`{name}`](Self::{name})"));
        }
        *text = syn::LitStr::new(&value, text.span());
    }
}

/// The labels of the recording twin name `self` as the student wrote it,
/// not its stand-in `__self`.
fn self_in_labels(tokens: TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .map(|token| match token {
            TokenTree::Literal(literal) => {
                let text = literal.to_string();
                if text.starts_with('"') && text.contains(SELF_PARAM) {
                    match syn::parse_str::<syn::LitStr>(&text) {
                        Ok(string) => {
                            let renamed = string.value().replace(SELF_PARAM, "self");
                            let mut out = proc_macro2::Literal::string(&renamed);
                            out.set_span(literal.span());
                            TokenTree::Literal(out)
                        }
                        Err(_) => TokenTree::Literal(literal),
                    }
                } else {
                    TokenTree::Literal(literal)
                }
            }
            TokenTree::Group(group) => {
                let mut inner =
                    proc_macro2::Group::new(group.delimiter(), self_in_labels(group.stream()));
                inner.set_span(group.span());
                TokenTree::Group(inner)
            }
            other => other,
        })
        .collect()
}

fn parse(siblings: TokenStream) -> syn::Result<Vec<ItemFn>> {
    let file: syn::File = syn::parse2(siblings)?;
    Ok(file
        .items
        .into_iter()
        .filter_map(|item| match item {
            syn::Item::Fn(function) => Some(function),
            _ => None,
        })
        .collect())
}

fn names(functions: &[ItemFn]) -> HashSet<String> {
    functions
        .iter()
        .map(|function| function.sig.ident.to_string())
        .collect()
}

fn hidden_name(name: &Ident) -> Ident {
    format_ident!("__ad_{}", name, span = name.span())
}

/// `f_x(&self, ..)` calling `Self::__ad_f_x(.., self, ..)`.
fn forwarding_method(function: &ItemFn, is_tape: bool, taken: Taken) -> TokenStream {
    let attrs = &function.attrs;
    let vis = &function.vis;
    let sig = &function.sig;
    let name = &sig.ident;
    let hidden = hidden_name(name);
    let generics = &sig.generics;
    let output = &sig.output;
    // A method whose receiver is only how a caller finds it (the pair,
    // whose arguments bring the model; the recording twin, which takes
    // the model's twin) borrows it, so that a caller's call of a method
    // taking `self` does not move the caller's model.
    let takes_self = sig.inputs.iter().any(|input| {
        matches!(input, FnArg::Typed(typed) if matches!(&*typed.pat, Pat::Ident(pat) if pat.ident == SELF_PARAM))
    });
    let receiver = if is_tape || taken == Taken::ByRef || !takes_self {
        quote!(&self)
    } else {
        quote!(self)
    };
    let mut params = Vec::new();
    let mut args = Vec::new();
    // Where the receiver is written: the forwarding call is spanned there,
    // so that a `Self` that is not a model is one error, on `self`.
    let mut self_span = None;
    for input in &sig.inputs {
        let FnArg::Typed(typed) = input else { continue };
        let Pat::Ident(pat) = &*typed.pat else {
            continue;
        };
        let ident = &pat.ident;
        if ident == SELF_PARAM {
            self_span = Some(ident.span());
        }
        if ident == SELF_PARAM && !is_tape {
            args.push(quote!(self));
            continue;
        }
        if ident == SELF_PARAM && taken == Taken::ByValue {
            // The twin of a model taken by value, which a caller's
            // recording hands over by reference (`model(&twin)`): a copy.
            let ty = &typed.ty;
            params.push(quote!(#ident: impl ::autodiff::__private::OwnedTwin<#ty>));
            args.push(quote!(::autodiff::__private::OwnedTwin::owned(#ident)));
            continue;
        }
        let ty = &typed.ty;
        params.push(quote!(#ident: #ty));
        args.push(quote!(#ident));
    }
    let ignore_self = is_tape.then(|| quote!(let _ = self;));
    let call = match self_span {
        Some(span) => quote_spanned!(span=> Self::#hidden(#(#args),*)),
        None => quote!(Self::#hidden(#(#args),*)),
    };
    quote! {
        #(#attrs)*
        #vis fn #name #generics(#receiver, #(#params),*) #output {
            #ignore_self
            #call
        }
    }
}

/// Calls of the siblings (`f_grad_on(..)`) as `Self::__ad_f_grad_on(..)`,
/// and of the plain method `f(..)` as `Self::f(..)`.
fn qualify(tokens: TokenStream, names: &HashSet<String>, plain: &Ident) -> TokenStream {
    qualify_with(tokens, names, plain, true)
}

/// Sibling calls as `Self::` paths, to the hidden names if `hidden`.
fn qualify_with(
    tokens: TokenStream,
    names: &HashSet<String>,
    plain: &Ident,
    hidden: bool,
) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::with_capacity(tokens.len());
    for (i, token) in tokens.iter().enumerate() {
        match token {
            TokenTree::Ident(ident) if is_call(&tokens, i) => {
                let text = ident.to_string();
                let target = if names.contains(&text) {
                    Some(if hidden {
                        hidden_name(ident)
                    } else {
                        ident.clone()
                    })
                } else if *ident == *plain {
                    Some(ident.clone())
                } else {
                    None
                };
                match target {
                    Some(target) => {
                        // Spanned like the name it qualifies, so that rustc's
                        // errors about the call land where they did.
                        let span = ident.span();
                        let mut first = Punct::new(':', Spacing::Joint);
                        let mut second = Punct::new(':', Spacing::Alone);
                        first.set_span(span);
                        second.set_span(span);
                        out.push(TokenTree::Ident(Ident::new("Self", span)));
                        out.push(TokenTree::Punct(first));
                        out.push(TokenTree::Punct(second));
                        out.push(TokenTree::Ident(target));
                    }
                    None => out.push(token.clone()),
                }
            }
            TokenTree::Group(group) => {
                let mut inner = proc_macro2::Group::new(
                    group.delimiter(),
                    qualify_with(group.stream(), names, plain, hidden),
                );
                inner.set_span(group.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other.clone()),
        }
    }
    out.into_iter().collect()
}

/// Whether the identifier at `i` is called by plain name: `(` follows, and
/// neither `.`, `::` nor `fn` precedes it.
fn is_call(tokens: &[TokenTree], i: usize) -> bool {
    let called = matches!(
        tokens.get(i + 1),
        Some(TokenTree::Group(group)) if group.delimiter() == proc_macro2::Delimiter::Parenthesis
    );
    let qualified = match i.checked_sub(1).map(|j| &tokens[j]) {
        Some(TokenTree::Punct(punct)) => matches!(punct.as_char(), '.' | ':'),
        Some(TokenTree::Ident(ident)) => ident == "fn",
        _ => false,
    };
    called && !qualified
}
