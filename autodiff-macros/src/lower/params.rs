//! The parameters: each one's name and its type's shape on the tape
//! ([`Kind`]), a `#[constant]` one passing through, with a rejection for a
//! pattern, a binding mode or a type the tape cannot hold.

use quote::ToTokens;
use syn::{FnArg, ItemFn, Pat, Type};

use crate::ast::{Kind, Param, Reason};
use crate::attr;
use crate::text::{self, mentions};

use super::Lower;

impl<'a> Lower<'a> {
    pub(super) fn params(&self, item: &'a ItemFn) -> Vec<Param> {
        // Type parameters are reported once, by `valid`, not again at
        // every parameter that uses them.
        let type_params: Vec<String> = item
            .sig
            .generics
            .type_params()
            .map(|param| param.ident.to_string())
            .collect();
        let mut params = Vec::new();
        for input in &item.sig.inputs {
            let FnArg::Typed(typed) = input else {
                // Receivers are reported by `valid`.
                continue;
            };
            let mut constant = false;
            for marker in typed.attrs.iter().filter(|attr| attr::is_constant(attr)) {
                if !matches!(marker.meta, syn::Meta::Path(_)) {
                    self.reject(marker, Reason::ConstantArguments);
                }
                constant = true;
            }
            // `_: f64` is named for the generated items, which pass it on;
            // the plain twin keeps the `_`, so the body cannot see the name.
            let unnamed;
            let pat = match &*typed.pat {
                Pat::Ident(pat) => pat,
                Pat::Wild(wild) => {
                    unnamed = syn::PatIdent {
                        attrs: Vec::new(),
                        by_ref: None,
                        mutability: None,
                        ident: syn::Ident::new(
                            &format!("__unnamed{}", params.len()),
                            wild.underscore_token.span,
                        ),
                        subpat: None,
                    };
                    &unnamed
                }
                _ => {
                    self.reject(&typed.pat, Reason::ParamPattern);
                    continue;
                }
            };
            if pat.by_ref.is_some() || pat.subpat.is_some() {
                self.reject(&typed.pat, Reason::ParamBinding);
                continue;
            }
            let kind = if constant {
                Kind::PassThrough
            } else {
                match classify_param(&typed.ty) {
                    Some(kind) => kind,
                    None => {
                        let tokens = typed.ty.to_token_stream();
                        if !type_params
                            .iter()
                            .any(|name| mentions(tokens.clone(), name))
                        {
                            self.parameter_type(&typed.ty);
                        }
                        // Counted as differentiable so that the mistake is
                        // reported once, not again as "no f64 parameter".
                        Kind::Scalar
                    }
                }
            };
            params.push(Param {
                ident: pat.ident.clone(),
                mutability: pat.mutability,
                ty: (*typed.ty).clone(),
                kind,
                line: text::line(pat.ident.span()),
            });
        }
        params
    }

    fn parameter_type(&self, ty: &Type) {
        let tokens = ty.to_token_stream();
        if mentions(tokens.clone(), "f32") {
            self.reject(ty, Reason::F32);
        } else {
            self.reject(ty, Reason::ParamType(text::tokens(tokens)));
        }
    }
}

/// A whole parameter's shape on the tape: `&Model` or what [`classify`] says.
pub(crate) fn classify_param(ty: &Type) -> Option<Kind> {
    // Token ids, indices, flags, labels: no number to differentiate, so
    // they pass through as a `#[constant]` parameter does.
    if holds_no_number(ty) {
        return Some(Kind::PassThrough);
    }
    if let Type::Reference(reference) = ty {
        if reference.mutability.is_none() {
            if let Some(Kind::Struct { ty, .. }) = classify(&reference.elem) {
                return Some(Kind::Struct { by_ref: true, ty });
            }
        }
    }
    classify(ty)
}

/// A parameter type's shape on the tape, or `None` for an unsupported type.
fn classify(ty: &Type) -> Option<Kind> {
    match ty {
        Type::Paren(paren) => classify(&paren.elem),
        Type::Group(group) => classify(&group.elem),
        Type::Path(path) if path.qself.is_none() => {
            let segment = path.path.segments.last()?;
            let name = segment.ident.to_string();
            if path.path.segments.len() == 1 && name == "f64" {
                return Some(Kind::Scalar);
            }
            if path.path.segments.len() == 1 && is_plain_type(&name) {
                return Some(Kind::PassThrough);
            }
            if name == "Vec" {
                let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                    return None;
                };
                if let Some(syn::GenericArgument::Type(elem)) = args.args.first() {
                    return differentiable(elem).map(|kind| Kind::Vec(Box::new(kind)));
                }
            }
            if segment.arguments.is_none() && name != "f32" {
                return Some(Kind::Struct {
                    by_ref: false,
                    ty: ty.clone(),
                });
            }
            None
        }
        Type::Array(array) => {
            differentiable(&array.elem).map(|kind| Kind::Array(Box::new(kind), array.len.clone()))
        }
        Type::Reference(reference) if reference.mutability.is_none() => match &*reference.elem {
            Type::Slice(slice) => {
                differentiable(&slice.elem).map(|kind| Kind::Slice(Box::new(kind)))
            }
            // `&Vec<f64>`, `&[f64; N]`: read as the slice they deref to.
            Type::Array(array) => {
                differentiable(&array.elem).map(|kind| Kind::Slice(Box::new(kind)))
            }
            elem => match classify(elem)? {
                Kind::Vec(kind) => Some(Kind::Slice(kind)),
                _ => None,
            },
        },
        _ => None,
    }
}

/// Whether `ty` is made of integers, `bool`, `char` and text only, through
/// references, slices, arrays, `Vec`s and tuples (`&[usize]`,
/// `&[(usize, usize)]`, `Vec<Vec<u8>>`, `&str`): data with no `f64` in it.
fn holds_no_number(ty: &Type) -> bool {
    match ty {
        Type::Paren(paren) => holds_no_number(&paren.elem),
        Type::Group(group) => holds_no_number(&group.elem),
        Type::Reference(reference) => {
            reference.mutability.is_none() && holds_no_number(&reference.elem)
        }
        Type::Slice(slice) => holds_no_number(&slice.elem),
        Type::Array(array) => holds_no_number(&array.elem),
        Type::Tuple(tuple) => tuple.elems.iter().all(holds_no_number),
        Type::Path(path) if path.qself.is_none() => {
            let Some(segment) = path.path.segments.last() else {
                return false;
            };
            let name = segment.ident.to_string();
            match &segment.arguments {
                syn::PathArguments::None => {
                    path.path.segments.len() == 1
                        && (is_plain_type(&name)
                            || matches!(name.as_str(), "char" | "str" | "String"))
                }
                syn::PathArguments::AngleBracketed(args) if name == "Vec" => {
                    matches!(
                        args.args.iter().collect::<Vec<_>>().as_slice(),
                        [syn::GenericArgument::Type(elem)] if holds_no_number(elem)
                    )
                }
                _ => false,
            }
        }
        _ => false,
    }
}

fn differentiable(ty: &Type) -> Option<Kind> {
    classify(ty).filter(Kind::is_differentiable)
}

/// Integer and `bool` types: they pass through the tape unchanged.
pub fn is_plain_type(name: &str) -> bool {
    matches!(
        name,
        "i8" | "i16"
            | "i32"
            | "i64"
            | "i128"
            | "isize"
            | "u8"
            | "u16"
            | "u32"
            | "u64"
            | "u128"
            | "usize"
            | "bool"
    )
}
