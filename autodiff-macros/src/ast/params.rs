//! What a parameter is on the tape (`Param`, `Kind`) and the shape of a
//! vector-valued function's output (`Shape`), read from their types.

use syn::{Ident, Token, Type};

/// The shape of a vector-valued function's output: `Vec`s, arrays and
/// tuples of `f64`, nested.
// One per function, alive for one expansion: size is no concern.
#[allow(clippy::large_enum_variant)]
pub enum Shape {
    Scalar,
    Array(Box<Shape>, syn::Expr),
    Vec(Box<Shape>),
    Tuple(Vec<Shape>),
}

impl Shape {
    /// The shape of a return type, or `None` for `f64` or anything that is
    /// not `Vec`s, arrays and tuples of `f64`.
    pub fn of_output(ty: &Type) -> Option<Shape> {
        match Shape::of(ty)? {
            Shape::Scalar => None,
            shape => Some(shape),
        }
    }

    fn of(ty: &Type) -> Option<Shape> {
        match ty {
            Type::Paren(paren) => Shape::of(&paren.elem),
            Type::Group(group) => Shape::of(&group.elem),
            Type::Path(path) if path.qself.is_none() => {
                let segment = path.path.segments.last()?;
                if path.path.segments.len() == 1 && segment.ident == "f64" {
                    return Some(Shape::Scalar);
                }
                if segment.ident != "Vec" {
                    return None;
                }
                let syn::PathArguments::AngleBracketed(args) = &segment.arguments else {
                    return None;
                };
                match args.args.first() {
                    Some(syn::GenericArgument::Type(elem)) if args.args.len() == 1 => {
                        Some(Shape::Vec(Box::new(Shape::of(elem)?)))
                    }
                    _ => None,
                }
            }
            Type::Array(array) => Some(Shape::Array(
                Box::new(Shape::of(&array.elem)?),
                array.len.clone(),
            )),
            Type::Tuple(tuple) if !tuple.elems.is_empty() && tuple.elems.len() <= 6 => tuple
                .elems
                .iter()
                .map(Shape::of)
                .collect::<Option<Vec<_>>>()
                .map(Shape::Tuple),
            _ => None,
        }
    }
}

pub struct Param {
    pub ident: Ident,
    pub mutability: Option<Token![mut]>,
    pub ty: Type,
    pub kind: Kind,
    pub line: u32,
}

/// What a parameter is on the tape.
// A handful per function, alive for one expansion: size is no concern.
#[allow(clippy::large_enum_variant)]
pub enum Kind {
    /// `f64`: one variable.
    Scalar,
    /// `[T; N]` of a differentiable `T`.
    Array(Box<Kind>, syn::Expr),
    /// `&[T]` of a differentiable `T`.
    Slice(Box<Kind>),
    /// `Vec<T>` of a differentiable `T`.
    Vec(Box<Kind>),
    /// A model: a struct named by a path without generic arguments, by
    /// value (`Mlp`) or, as a whole parameter only, by reference (`&Mlp`).
    /// Its shape on the tape is named through the runtime's `Parameter`
    /// trait, which `#[derive(Parameters)]` implements; any other struct is
    /// rustc's error there, on the type the student wrote.
    Struct { by_ref: bool, ty: Type },
    /// Integers, `bool` and `#[constant]` parameters: passed as they are.
    PassThrough,
}

impl Kind {
    pub fn is_differentiable(&self) -> bool {
        !matches!(self, Kind::PassThrough)
    }

    /// Whether the shape has a model in it (`Mlp`, `[Layer; 2]`,
    /// `Vec<Mlp>`).
    pub fn holds_struct(&self) -> bool {
        match self {
            Kind::Struct { .. } => true,
            Kind::Array(elem, _) | Kind::Slice(elem) | Kind::Vec(elem) => elem.holds_struct(),
            Kind::Scalar | Kind::PassThrough => false,
        }
    }
}
