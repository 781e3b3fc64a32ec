//! What a pattern or an operator says: whether a path or a `match`'s arms
//! name an enum's variants, a pattern's first name, and whether a binary
//! operator assigns.

use syn::{Ident, Pat};

use super::{Arm, Expr, ExprKind};

impl Expr<'_> {
    /// `Act::Relu`: a path to an enum's variant (a type, then a
    /// `CamelCase` name; `f64::INFINITY` and `consts::PI` are constants),
    /// which no number equals: what it is compared with is no number
    /// either (`self.act == Act::Relu` of a model's `#[constant]` field).
    pub fn is_variant(&self) -> bool {
        let ExprKind::Path(path) = &self.unparenthesised().kind else {
            return false;
        };
        let segments = &path.path.segments;
        segments.len() >= 2 && segments.last().is_some_and(|last| camel_case(&last.ident))
    }
}

/// Whether a `match`'s arms tell its scrutinee's enum variants apart
/// (`Act::Relu => ..`, `Act::Scaled(_) => ..`, `_ => ..`) and bind no name:
/// it is no number, and nothing it holds reaches the arms. (`Some(v)` of
/// an `Option` of a tracked value binds one, which the sweeps follow.)
pub fn matches_variants(arms: &[Arm]) -> bool {
    let variant = |pat: &Pat| match pat {
        Pat::Path(path) => Some(
            path.path
                .segments
                .last()
                .is_some_and(|last| camel_case(&last.ident)),
        ),
        Pat::TupleStruct(_) | Pat::Struct(_) => Some(true),
        // A name takes anything.
        Pat::Ident(ident) if ident.subpat.is_none() && !camel_case(&ident.ident) => None,
        _ => Some(false),
    };
    arms_tell_variants(arms, &variant)
        && arms.iter().all(|arm| {
            arm.pat.names.iter().all(|name| {
                // A variant's path (`Act`, `Relu`) and `_` bind nothing.
                name == "_" || name.starts_with(|c: char| c.is_ascii_uppercase())
            })
        })
}

/// Whether `scrutinee` is a model's field (`self.act`, `self.layers[k]
/// .act`) and the arms tell apart an enum's variants by their paths
/// (`Act::Leaky(a) => ..`, `Act::Relu => ..`, `_ => ..`), binding names
/// only inside a variant: a model's enum field is `#[constant]` (an enum
/// is no `Parameters`), so what the arms bind is a constant too.
pub fn matches_a_models_enum(scrutinee: &Expr, arms: &[Arm]) -> bool {
    let ExprKind::Field {
        member: syn::Member::Named(_),
        ..
    } = &scrutinee.unparenthesised().kind
    else {
        return false;
    };
    // `Type::Variant`, never a struct's own name (`Inner(w)`, `Inner { w }`
    // of a model's part binds its tracked numbers).
    fn qualified(path: &syn::Path) -> bool {
        let segments = &path.segments;
        segments.len() >= 2
            && camel_case(&segments[segments.len() - 2].ident)
            && segments.last().is_some_and(|last| camel_case(&last.ident))
    }
    let variant = |pat: &Pat| match pat {
        Pat::Path(path) => Some(qualified(&path.path)),
        Pat::TupleStruct(tuple) => Some(qualified(&tuple.path)),
        Pat::Struct(fields) => Some(qualified(&fields.path)),
        _ => Some(false),
    };
    arms_tell_variants(arms, &variant)
}

/// Whether some arm's pattern is a variant and none is anything but a
/// variant or `_`, by `variant` (`Some(true)` a variant, `None` a pattern
/// that takes anything), through `|` (every case one or the other, one a
/// variant) and parentheses.
fn arms_tell_variants(arms: &[Arm], variant: &dyn Fn(&Pat) -> Option<bool>) -> bool {
    fn kind(pat: &Pat, variant: &dyn Fn(&Pat) -> Option<bool>) -> Option<bool> {
        match pat {
            Pat::Or(or) => {
                let cases: Vec<Option<bool>> =
                    or.cases.iter().map(|case| kind(case, variant)).collect();
                if cases.contains(&Some(false)) {
                    Some(false)
                } else if cases.contains(&Some(true)) {
                    Some(true)
                } else {
                    None
                }
            }
            Pat::Paren(paren) => kind(&paren.pat, variant),
            Pat::Wild(_) => None,
            pat => variant(pat),
        }
    }
    let kinds: Vec<Option<bool>> = arms
        .iter()
        .map(|arm| kind(arm.pat.syntax, variant))
        .collect();
    kinds.contains(&Some(true)) && !kinds.contains(&Some(false))
}

/// `Relu`, not `RELU` (a constant) or `relu`.
fn camel_case(ident: &Ident) -> bool {
    let name = ident.to_string();
    name.starts_with(|c: char| c.is_ascii_uppercase()) && name.chars().any(|c| c.is_lowercase())
}

/// A pattern's first identifier, through `mut`, a type, a reference or a
/// tuple, with its own span.
pub fn first_ident(pat: &syn::Pat) -> Option<Ident> {
    match pat {
        syn::Pat::Ident(ident) => Some(ident.ident.clone()),
        syn::Pat::Type(typed) => first_ident(&typed.pat),
        syn::Pat::Reference(reference) => first_ident(&reference.pat),
        syn::Pat::Paren(paren) => first_ident(&paren.pat),
        syn::Pat::Tuple(tuple) => tuple.elems.iter().find_map(first_ident),
        _ => None,
    }
}

/// Whether `op` assigns (`+=`, `-=`, `*=`, `/=`, `%=`, `^=`, `&=`, `|=`,
/// `<<=`, `>>=`): a binary expression that writes its left operand.
pub fn is_compound_assignment(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}
