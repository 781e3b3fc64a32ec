//! How a vector-valued callee's adjoint (`shaped::compiled_dot`, entered
//! as `Entry::Intermediates`) hands its gradient to the caller: into the
//! caller's adjoints of the arguments, which its pair passes on, rather
//! than as a gradient of its own pushed through the stack.
//!
//! A parameter read through a shared slice of numbers (`w: &[Vec<f64>]`)
//! or a model by reference (`&self`), bound once, is never
//! assigned in the body, so its adjoint is only ever added to: the
//! caller's adjoint is lent to the sweep as its own and given back after
//! the checks, which then see the caller's sum. A slice of numbers or of
//! rows of numbers is borrowed as it is (`&mut *caller`, which the sweep
//! indexes and adds into: nothing moved or copied); any other slice has
//! its rows moved, not copied (`__adjoint::lend`), and a model its fields
//! (`Parameter::lend_bar`). Any other parameter keeps
//! an adjoint of its own, which starts at zero as its sweep assumes, and is
//! added into the caller's as the pair did: pushed and popped.
//!
//! Split (`split`), the adjoint is the forward sweep, which returns the
//! value with a closure of the reverse sweep that owns what the forward
//! left: the caller's forward saves the closure on the stack and its
//! reverse runs it with the cotangent, so the callee's forward runs once.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ext::IdentExt;

use super::{model_call, Argument};
use crate::ast::{Kind, Param};

/// What `f_adjoint` of a vector-valued callee adds for its caller.
pub(super) struct IntoCaller {
    /// One `&mut` adjoint of the caller's per differentiable parameter,
    /// after the parameters (`__cotangent` last among them).
    pub inputs: Vec<TokenStream>,
    /// Per differentiable parameter: the `let` that lends the caller's
    /// adjoint, or `None` where the sweep declares its own.
    pub lent: Vec<Option<TokenStream>>,
    /// After the checks: each adjoint given back or added into the
    /// caller's.
    pub give: Vec<TokenStream>,
}

/// The caller's constants, which it passes no adjoint for
/// (`Stack::unused_args`, given to `f_adjoint` as `mask`, bit `k` for
/// the parameter at `position` `k`).
pub(super) struct Unused<'a> {
    pub mask: &'a Ident,
    /// By adjoint name, each [`guardable`] parameter's flag, whether the
    /// sweep wrote every mention of its adjoint under it, and whether it
    /// only indexes it (`z_bar[k]`).
    pub guards: std::collections::HashMap<String, (Ident, bool, bool)>,
    pub position: &'a dyn Fn(&Param) -> usize,
    /// Whether the sweep checks what it adds (not on duals): a lent
    /// slice's check is part of its giving back.
    pub checks: bool,
}

impl Unused<'_> {
    /// `mask & bit == 0`: the caller has an adjoint for `param`.
    fn has(&self, param: &Param) -> TokenStream {
        let mask = self.mask;
        let bit = 1_u32 << (self.position)(param).min(31);
        quote!((#mask & #bit) == 0)
    }
}

/// Whether the sweep adds into `param`'s adjoint only under a flag: a
/// slice of numbers the caller's adjoint is lent for, which the caller
/// may mark unused (its constant: a layer's input data).
pub(super) fn guardable(param: &Param, movable: &dyn Fn(&Param) -> bool) -> bool {
    matches!(param.kind, Kind::Slice(_)) && lendable(param, movable)
}

/// The `lend` of the caller's adjoint `caller` of a slice or `Vec`
/// parameter as the sweep's `bar`, and its giving back: its rows moved
/// (`__adjoint::lend`; of rows of numbers, into a list the stack keeps,
/// `__adjoint::lend_rows`), or, of a slice of numbers, copied into one of
/// the stack's spare rows and back (`__adjoint::lend_numbers`): no
/// allocation per call.
///
/// Where `in_place`, a slice of numbers or of rows of numbers is not
/// lent but borrowed: the sweep adds into the caller's adjoint itself
/// (`&mut *caller`, a slice, which it only indexes), and nothing is
/// moved or copied either way. With `checks` (not on duals), the giving
/// back starts with the check of what the caller then holds
/// (`Stack::observe_lent`).
fn lend_rows(
    param: &Param,
    caller: &Ident,
    bar: &Ident,
    stack: &Ident,
    in_place: bool,
    checks: bool,
) -> (TokenStream, TokenStream) {
    let numbers = matches!(&param.kind, Kind::Slice(elem) if matches!(**elem, Kind::Scalar));
    let rows = matches!(&param.kind, Kind::Slice(elem)
        if matches!(&**elem, Kind::Vec(row) if matches!(**row, Kind::Scalar)));
    let check = |of: TokenStream| checks.then(|| quote!(#stack.observe_lent(&*#caller, #of);));
    if in_place && (numbers || rows) {
        let check = check(quote!(&*#caller));
        (quote!(&mut *#caller), quote!(#check))
    } else if numbers {
        let check = check(quote!(&#bar));
        (
            quote!(::autodiff::__adjoint::lend_numbers(#stack, #caller)),
            quote!(#check ::autodiff::__adjoint::give_back_numbers(#stack, #caller, #bar);),
        )
    } else if rows {
        // Rows of numbers: moved into a list the stack keeps.
        let check = check(quote!(&#bar));
        (
            quote!(::autodiff::__adjoint::lend_rows(#stack, #caller)),
            quote!(#check ::autodiff::__adjoint::give_back_rows(#stack, #caller, #bar);),
        )
    } else {
        let check = check(quote!(&#bar));
        (
            quote!(::autodiff::__adjoint::lend(#caller)),
            quote!(#check ::autodiff::__adjoint::give_back(#caller, #bar);),
        )
    }
}

/// Whether `param` is a slice of numbers or of rows of numbers, whose
/// caller's adjoint the sweep can add into in place.
fn numbers_or_rows(param: &Param) -> bool {
    matches!(&param.kind, Kind::Slice(elem)
        if matches!(**elem, Kind::Scalar)
            || matches!(&**elem, Kind::Vec(row) if matches!(**row, Kind::Scalar)))
}

/// The flag of a [`guardable`] parameter.
pub(super) fn live(param: &Param) -> Ident {
    Ident::new(
        &format!("__live_{}", param.ident.unraw()),
        Span::mixed_site(),
    )
}

/// `bars` are the differentiable parameters with their adjoints' names,
/// `gradients` what `f_adjoint` would return for each (a model's constants
/// carried), `movable` whether the body may move or shadow a parameter.
pub(super) fn into_caller(
    bars: &[(&Param, Ident)],
    gradients: &[TokenStream],
    movable: &dyn Fn(&Param) -> bool,
    stack: &Ident,
    unused: &Unused<'_>,
) -> IntoCaller {
    let mut into = IntoCaller {
        inputs: Vec::new(),
        lent: Vec::new(),
        give: Vec::new(),
    };
    for ((param, bar), gradient) in bars.iter().zip(gradients) {
        let caller = caller(param);
        let ty = super::pair::bar_type(&param.kind);
        into.inputs.push(quote!(#caller: &mut #ty));
        if let Some((live, all, indexed)) = unused.guards.get(&bar.to_string()) {
            // Lent, or (unused) empty where the sweep never reads it, or
            // zeros of its own where it may.
            let has = unused.has(param);
            let ident = &param.ident;
            if !*all && *indexed && numbers_or_rows(param) {
                // Only indexed, and also outside the flag (`softmax`'s
                // `z_bar[index]`): the caller's adjoint borrowed as it is
                // where it has one, else zeros of the sweep's own, as a
                // slice either way; nothing copied in and back.
                let own = format_ident!("__own_{}", bar, span = Span::mixed_site());
                // Checked as the caller's where it is the caller's (the
                // same address and length, which the caller may check at
                // its end), else as the sweep's own.
                let check = unused
                    .checks
                    .then(|| quote!(#stack.observe_lent(&*#bar, &*#bar);));
                into.lent.push(Some(quote! {
                    let #live = #has;
                    let mut #own;
                    let mut #bar = if #live {
                        &mut *#caller
                    } else {
                        #own = ::autodiff::__adjoint::zero(&#ident[..]);
                        &mut #own[..]
                    };
                }));
                into.give.push(quote!(#check));
                continue;
            }
            let (lent, given) = lend_rows(param, &caller, bar, stack, *all, unused.checks);
            let lend = if *all {
                lent
            } else {
                quote! {
                    if #live {
                        #lent
                    } else {
                        ::autodiff::__adjoint::zero(&#ident[..])
                    }
                }
            };
            into.lent.push(Some(quote! {
                let #live = #has;
                let mut #bar = #lend;
            }));
            into.give.push(given);
            continue;
        }
        if lendable(param, movable) {
            let (lend, give) = match &param.kind {
                // Named through `Parameter`, on the type: a struct that is
                // not a model stays that trait's one error there.
                Kind::Struct { ty, .. } => (
                    model_call(
                        ty,
                        "lend_bar",
                        &[Argument::Bound("bar", quote!(&mut *#caller))],
                    ),
                    quote!(::autodiff::__adjoint::give_back_model(#caller, #bar);),
                ),
                _ => lend_rows(param, &caller, bar, stack, true, unused.checks),
            };
            into.lent.push(Some(quote!(let mut #bar = #lend;)));
            into.give.push(give);
            continue;
        }
        into.lent.push(None);
        into.give.push(match &param.kind {
            Kind::Struct { ty, .. } => {
                let push = model_call(
                    ty,
                    "push_gradient",
                    &[
                        Argument::Bound("gradient", quote!(&#gradient)),
                        Argument::Plain(quote!(#stack)),
                    ],
                );
                let pop = model_call(
                    ty,
                    "pop_gradient",
                    &[
                        Argument::Bound("bar", quote!(#caller)),
                        Argument::Plain(quote!(#stack)),
                        Argument::Plain(quote!(1.0)),
                    ],
                );
                quote!(#push; #pop;)
            }
            // A number: added in.
            Kind::Scalar => quote!(*#caller += #gradient;),
            // Where the caller has an adjoint for it.
            _ => {
                let gradient_ident = format_ident!("__gradient_{}", param.ident.unraw());
                let has = unused.has(param);
                quote! {
                    if #has {
                        let #gradient_ident = #gradient;
                        ::autodiff::__adjoint::Spread::push_all(&#gradient_ident, #stack);
                        ::autodiff::__adjoint::Spread::pop_scaled(#caller, #stack, 1.0);
                    }
                }
            }
        });
    }
    into
}

/// Whether the caller's adjoint of `param` can be the sweep's: a shared
/// slice of numbers or a model by reference, not `mut`,
/// bound once (`movable` is false), so that nothing assigns it and its
/// adjoint is only added to.
pub(super) fn lendable(param: &Param, movable: &dyn Fn(&Param) -> bool) -> bool {
    // A slice of models is not: `lend` would name its items' type outside
    // `Parameter`, a second error where the struct is not a model.
    let slice_of_numbers = matches!(param.kind, Kind::Slice(_)) && !param.kind.holds_struct();
    (slice_of_numbers || matches!(param.kind, Kind::Struct { by_ref: true, .. }))
        && param.mutability.is_none()
        && !movable(param)
}

/// The name of the caller's adjoint of `param` in the callee's adjoint.
pub(super) fn caller(param: &Param) -> Ident {
    Ident::new(
        &format!("__caller_{}", param.ident.unraw()),
        Span::mixed_site(),
    )
}

/// `f_adjoint` of a vector-valued callee, split (`Entry::Split`): from the
/// arguments as one tuple, `forward` (the checks and the forward sweep of
/// `⟨cotangent, f⟩`, whose cotangent is read as zeros: its sum is not the
/// value) and then the value of `output`, with a closure of `reverse`
/// that takes the arguments again (the caller's, as the pair's reverse
/// has them), the cotangent and the caller's adjoints. The closure owns
/// the forward's bindings the reverse reads and borrows nothing
/// (`use<>`), so that the caller can keep it on the stack; the output
/// moves to the caller unless the reverse reads it (a seeded one does
/// not, see `shaped::compiled_dot`).
#[allow(clippy::too_many_arguments)]
pub(super) fn split(
    function: &crate::ast::Function,
    bars: &[(&Param, Ident)],
    output: &Ident,
    stack: &Ident,
    head: TokenStream,
    forward: TokenStream,
    reverse: TokenStream,
) -> TokenStream {
    let Some((cotangent, params)) = function.params.split_last() else {
        return TokenStream::new();
    };
    let pats: Vec<_> = params.iter().map(|param| &param.ident).collect();
    let tys: Vec<_> = params.iter().map(|param| &param.ty).collect();
    let (cotangent, cotangent_ty) = (&cotangent.ident, &cotangent.ty);
    let out = match cotangent_ty {
        syn::Type::Reference(reference) => &*reference.elem,
        other => other,
    };
    let callers: Vec<_> = bars.iter().map(|(param, _)| caller(param)).collect();
    let caller_tys: Vec<_> = bars
        .iter()
        .map(|(param, _)| {
            let ty = super::pair::bar_type(&param.kind);
            quote!(&mut #ty)
        })
        .collect();
    let returned = Ident::new("returned", Span::mixed_site());
    // The output moves out unless the reverse reads it.
    let returned_value = if crate::text::count(&reverse, &output.to_string()) == 0 {
        quote!(#output)
    } else {
        quote!(::core::clone::Clone::clone(&#output))
    };
    let unused = Ident::new("unused", Span::mixed_site());
    let stack_ty = quote!(&mut ::autodiff::__adjoint::Stack);
    // The arguments as one parameter, taken apart in the body: a method's
    // forwarding wrapper passes its parameters on by name.
    let args = Ident::new("args", Span::mixed_site());
    quote! {
        #head(
            #stack: #stack_ty,
            #args: (#(#tys,)*),
        ) -> ::core::option::Option<(
            #out,
            impl ::core::ops::FnOnce(
                #stack_ty,
                (#(#tys,)*),
                #cotangent_ty,
                (#(#caller_tys,)*),
                u32,
            ) -> ::core::option::Option<()> + use<>,
        )> {
            let (#(#pats,)*) = #args;
            let #cotangent = ::autodiff::__adjoint::NoCotangent;
            #forward
            let #returned = #returned_value;
            ::core::option::Option::Some((
                #returned,
                move |#stack: #stack_ty,
                      (#(#pats,)*): (#(#tys,)*),
                      #cotangent: #cotangent_ty,
                      (#(#callers,)*): (#(#caller_tys,)*),
                      #unused: u32| {
                    #reverse
                },
            ))
        }
    }
}

/// Why a vector-valued callee's adjoint is not split: a binding that
/// may borrow, which the closure of its reverse could not own. The
/// caller then compiles it unsplit (`shaped::compiled_dot`).
pub(crate) const BORROWING: &str = "a binding the reverse sweep's closure may not own";

/// Whether every top-level `let` of `function` binds a value of its own
/// (no reference into a parameter or another binding), by its type
/// written without a `&` or by an initialiser that makes one: numbers,
/// arithmetic, annotated calls, `Vec::new()`, `vec![..]`, `clone()`,
/// `collect()`, ... Anything else (`&w[0]`, `x.iter()`, a slice
/// parameter bound again) may borrow, and the adjoint is not split.
pub(super) fn owns_its_bindings(function: &crate::ast::Function) -> bool {
    use crate::ast::Stmt;
    use quote::ToTokens;
    let mut owned: std::collections::HashSet<String> = function
        .params
        .iter()
        .filter(|param| !matches!(param.ty, syn::Type::Reference(_)))
        .map(|param| param.ident.unraw().to_string())
        .collect();
    for stmt in &function.body.stmts {
        let Stmt::Let {
            pat, name, init, ..
        } = stmt
        else {
            continue;
        };
        let Some(name) = name else { return false };
        let typed = match pat.syntax {
            syn::Pat::Type(typed) => Some(&typed.ty),
            _ => None,
        };
        let by_type = typed.is_some_and(|ty| {
            !ty.to_token_stream().into_iter().any(|token| {
                matches!(&token, proc_macro2::TokenTree::Punct(punct) if punct.as_char() == '&' || punct.as_char() == '\'')
                    || matches!(&token, proc_macro2::TokenTree::Group(_)) && token.to_string().contains('&')
            })
        });
        if by_type || init.as_ref().is_some_and(|init| makes_owned(init, &owned)) {
            owned.insert(name.clone());
        } else {
            return false;
        }
    }
    true
}

/// Whether `expr` certainly makes a value that borrows nothing, given
/// the names `owned` known to hold one.
fn makes_owned(expr: &crate::ast::Expr, owned: &std::collections::HashSet<String>) -> bool {
    use crate::ast::ExprKind as K;
    let all = |exprs: &[crate::ast::Expr]| exprs.iter().all(|expr| makes_owned(expr, owned));
    match &expr.kind {
        K::Lit(_)
        | K::NegLit(_)
        | K::Binary { .. }
        | K::Neg { .. }
        | K::Elementary { .. }
        | K::Ternary { .. }
        | K::Powi { .. }
        | K::Sum { .. }
        | K::Compare { .. }
        | K::Logic { .. }
        | K::Prefix { .. }
        | K::Call { .. }
        | K::Cast { .. }
        | K::Index { .. }
        | K::Field { .. } => true,
        // A constant (`f64::NEG_INFINITY`) or a binding known to own.
        K::Path(path) => match path.path.get_ident() {
            Some(ident) => owned.contains(&ident.unraw().to_string()),
            None => true,
        },
        K::Paren(inner) | K::Dbg { arg: inner, .. } => makes_owned(inner, owned),
        K::Construct { args, .. } | K::PlainCall { args, .. } => all(args),
        K::Tuple(items) | K::Array(items) | K::VecList(items) => all(items),
        K::Repeat { elem, .. } => makes_owned(elem, owned),
        K::VecRepeat { elem, len } => makes_owned(elem, owned) && makes_owned(len, owned),
        K::Structural {
            receiver,
            method,
            args,
            ..
        }
        | K::PlainMethod {
            receiver,
            method,
            args,
            ..
        } => {
            let method = method.to_string();
            match method.as_str() {
                "len" | "is_empty" | "clone" | "to_vec" | "to_owned" | "collect" | "sum"
                | "product" | "count" => true,
                "fold" => args.first().is_some_and(|init| makes_owned(init, owned)),
                "unwrap" | "unwrap_or" | "abs" | "max" | "min" => {
                    makes_owned(receiver, owned) && all(args)
                }
                _ => false,
            }
        }
        _ => false,
    }
}
