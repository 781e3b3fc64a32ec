//! Operands: parentheses, arguments, scrutinees, the primal value of a
//! tracked operand, and the helpers that read the syntax.

use super::*;
pub(super) use crate::text::without_f64;

impl Emitter<'_> {
    /// `( inner )`: a rewritten operation or call is one generated call,
    /// where real parentheses would trip `unused_parens`, so an invisible
    /// group keeps the precedence; anything else (a range, a cast, a
    /// comparison) keeps the student's parentheses, which rustc does not
    /// always honour as an invisible group (`(0..n).rev()`).
    pub(super) fn paren(&self, inner: &Expr, mode: Mode) -> TokenStream {
        let rewritten = self.expr(inner, mode);
        let one_call = matches!(
            inner.kind,
            ExprKind::Binary { .. }
                | ExprKind::Neg { .. }
                | ExprKind::Elementary { .. }
                | ExprKind::Powi { .. }
                | ExprKind::Ternary { .. }
                | ExprKind::Sum { .. }
                | ExprKind::Call { .. }
                | ExprKind::Paren(_)
        ) || (mode == Mode::Lift && !self.flow.is_certainly_tracked(inner));
        if one_call {
            invisible(rewritten)
        } else {
            quote!((#rewritten))
        }
    }

    /// An argument of a generated call: parentheses around it are redundant.
    pub(super) fn arg(&self, expr: &Expr) -> TokenStream {
        match &expr.kind {
            ExprKind::Paren(inner) => self.arg(inner),
            _ => self.expr(expr, Mode::Value),
        }
    }

    /// A `match` on a tracked value compares its primal, unless an arm binds
    /// it to a name: that name must hold the `Scalar`, or the gradient
    /// through it would be silently lost.
    pub(super) fn scrutinee(&self, scrutinee: &Expr, arms: &[Arm]) -> TokenStream {
        // An enum's variants (`match self.act { Act::Relu => .. }`): no
        // number, read as it is.
        if arms.iter().any(|arm| binds(arm.pat.syntax)) || crate::ast::matches_variants(arms) {
            self.expr(scrutinee, Mode::Value)
        } else {
            self.primal(scrutinee)
        }
    }

    /// A comparison operand: a tracked value's primal.
    pub(super) fn primal(&self, expr: &Expr) -> TokenStream {
        if !self.touches(expr) {
            return expr.source.to_token_stream();
        }
        let span = expr.span;
        let value = self.arg(expr);
        quote_spanned!(span=> __ad::primal(#value))
    }

    /// `recv.method(args)` on a receiver that may be tracked, for a method
    /// with no derivative rule: a tracked receiver is an error (the method
    /// would drop its gradient) only if the method exists, which a probe,
    /// the same call on the plain twin's types in a branch that never runs,
    /// tells; a missing method is then the plain twin's error alone.
    pub(super) fn probed_method(
        &self,
        receiver: &Expr,
        method: &Ident,
        turbofish: Option<&syn::AngleBracketedGenericArguments>,
        args: &[Expr],
    ) -> TokenStream {
        self.raise(|raised| raised.probes = true);
        let span = receiver.span;
        let bound = |i: usize| Ident::new(&format!("__ad_arg{i}"), proc_macro2::Span::mixed_site());
        // With the receiver's span and hygiene, where rustc reports a
        // tracked one (a mixed-site name would move the error to the
        // attribute).
        let recv = Ident::new("__ad_recv", span);
        let probe = Ident::new("__ad_probe", span);
        let recv_value = self.arg(receiver);
        let bindings = args.iter().enumerate().map(|(i, arg)| {
            let name = bound(i);
            let value = self.arg(arg);
            quote!(let #name = #value;)
        });
        let shadows = (0..args.len()).map(|i| {
            let name = bound(i);
            quote!((&&__ad::Probe(&#name)).shadow())
        });
        let passed = args.iter().enumerate().map(|(i, arg)| {
            let name = bound(i);
            if self.touches(arg) {
                quote_spanned!(arg.span=> __ad::untracked(#name))
            } else {
                quote!(#name)
            }
        });
        let probe_call = quote_spanned!(method.span()=>
            (&&__ad::Probe(&#recv)).shadow().#method #turbofish(#(#shadows),*)
        );
        let checked = quote_spanned!(span=> __ad::untracked_for(#recv, #probe));
        // Unused imports and unreachable code are allowed on the whole
        // recording twin (`emit/tape.rs`).
        quote! {{
            use __ad::{ShadowSame as _, ShadowTracked as _};
            let #recv = #recv_value;
            #(#bindings)*
            let #probe = if false {
                ::core::option::Option::Some(#probe_call)
            } else {
                ::core::option::Option::None
            };
            #checked.#method #turbofish(#(#passed),*)
        }}
    }

    /// An operand of a plain method or function: must carry no gradient,
    /// or the build fails here with a message that says so. `detach(x)`
    /// is its value, on purpose without its gradient.
    pub(super) fn untracked(&self, expr: &Expr) -> TokenStream {
        if !self.touches(expr) {
            return expr.source.to_token_stream();
        }
        let span = expr.span;
        let value = self.arg(expr);
        if self.detached(expr) {
            return quote_spanned!(span=> __ad::primal(#value));
        }
        quote_spanned!(span=> __ad::untracked(#value))
    }

    /// Whether `expr` carries no gradient by the student's choice: its
    /// every tracked operand is `detach(..)` (`detach(x)`,
    /// `detach(x).floor()`, `detach(x) * 2.0`).
    pub(super) fn detached(&self, expr: &Expr) -> bool {
        let part = |operand: &Expr| !self.touches(operand) || self.detached(operand);
        match &expr.kind {
            ExprKind::Paren(inner) => self.detached(inner),
            ExprKind::Elementary { func, operand, .. } => *func == "detach" || part(operand),
            ExprKind::Powi { base, .. } => part(base),
            ExprKind::Neg { operand, .. } => part(operand),
            ExprKind::Binary { lhs, rhs, .. } => part(lhs) && part(rhs),
            _ => false,
        }
    }

    /// The operand of `as`: as [`untracked`](Self::untracked), with the
    /// message of a cast.
    pub(super) fn cast_operand(&self, expr: &Expr) -> TokenStream {
        if !self.touches(expr) {
            return expr.source.to_token_stream();
        }
        let span = expr.span;
        let value = self.arg(expr);
        if self.detached(expr) {
            return quote_spanned!(span=> __ad::primal(#value));
        }
        quote_spanned!(span=> __ad::cast(#value))
    }
}

/// Whether a pattern binds a name (and not only tests literals).
pub(super) fn binds(pat: &syn::Pat) -> bool {
    use syn::Pat;
    match pat {
        Pat::Ident(_) => true,
        Pat::Or(or) => or.cases.iter().any(binds),
        Pat::Paren(paren) => binds(&paren.pat),
        Pat::Reference(reference) => binds(&reference.pat),
        Pat::Slice(slice) => slice.elems.iter().any(binds),
        Pat::Tuple(tuple) => tuple.elems.iter().any(binds),
        Pat::TupleStruct(tuple) => tuple.elems.iter().any(binds),
        Pat::Struct(strukt) => strukt.fields.iter().any(|field| binds(&field.pat)),
        Pat::Type(typed) => binds(&typed.pat),
        Pat::Guard(guarded) => binds(&guarded.pat),
        _ => false,
    }
}

/// Rewritten parentheses: most now hold one call, where real parentheses
/// would trip `unused_parens`; an invisible group keeps the precedence.
pub(super) fn invisible(tokens: TokenStream) -> TokenStream {
    proc_macro2::Group::new(proc_macro2::Delimiter::None, tokens).into_token_stream()
}

/// The source text of a node, for the label of a constant it lifts.
pub(super) fn source_text(source: Source) -> String {
    match source {
        Source::Expr(expr) => text::expr(expr),
        Source::Macro(mac) => text::tokens(mac.to_token_stream()),
    }
}

/// `None`, `Kind::Empty`: a path whose last segment is in camel case names
/// a variant (`NEG_INFINITY`, a constant, is lifted like any number).
pub(super) fn is_capitalised(path: &syn::Path) -> bool {
    path.segments.last().is_some_and(|segment| {
        let name = segment.ident.to_string();
        name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.contains(|c: char| c.is_ascii_lowercase())
    })
}

/// Whether `.method()` may follow the rewritten operand `expr` (as `arg`
/// writes it) unparenthesised: a path, or an operation written as a call
/// or a method chain. Decided from the syntax tree, not by reading the
/// tokens back, which would cost each level of a chain the chain below it.
pub(super) fn postfix_safe(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::Paren(inner) => postfix_safe(inner),
        ExprKind::Path(_)
        | ExprKind::Binary { .. }
        | ExprKind::Neg { .. }
        | ExprKind::Elementary { .. }
        | ExprKind::Powi { .. }
        | ExprKind::Ternary { .. }
        | ExprKind::Sum { .. } => true,
        _ => false,
    }
}

/// An initialiser that hands out items (`x.iter()`, `x.chunks(2)`): the
/// binding is an iterator, not a value to lift.
pub(super) fn is_iterator(init: &Expr) -> bool {
    matches!(&init.kind, ExprKind::Structural { method, .. } if matches!(
        method.to_string().as_str(),
        "iter" | "into_iter" | "enumerate" | "zip" | "rev" | "skip" | "take" | "step_by"
            | "chunks" | "windows" | "copied" | "cloned"
    ))
}

/// `f64::max`, `f64::hypot`...: a two-operand method of the table named as
/// a function value (`fold(f64::NEG_INFINITY, f64::max)`), by its runtime
/// name.
pub(super) fn f64_operation(expr: &Expr) -> Option<&'static str> {
    match f64_method(expr)? {
        crate::vocabulary::Shape::Binary(name) => Some(name),
        _ => None,
    }
}

/// `f64::exp`, `f64::tanh`...: a one-operand method of the table named
/// as a function value (`x.iter().copied().map(f64::exp)`), by its name.
pub(super) fn f64_unary(expr: &Expr) -> Option<&'static str> {
    match f64_method(expr)? {
        crate::vocabulary::Shape::Unary(name) => Some(name),
        _ => None,
    }
}

/// The method of the table `expr` names by its path, `f64::name`.
fn f64_method(expr: &Expr) -> Option<crate::vocabulary::Shape> {
    let ExprKind::Path(path) = &expr.kind else {
        return None;
    };
    let [first, second] = path.path.segments.iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    if path.qself.is_some() || first.ident != "f64" {
        return None;
    }
    crate::vocabulary::method(&second.ident.to_string())
}

/// A recording twin to call: a free function's, through its companion (a
/// value `__ad::call_twin` calls), or an associated function's sibling.
pub(super) enum Twin {
    /// The companion's `f::__tape`, with the name and scope to look up its
    /// argument checks (`f::argument_2`) in the same way.
    Free {
        twin: TokenStream,
        name: Ident,
        scope: TokenStream,
    },
    Associated(TokenStream),
}

/// The recording twin a call `f(..)` of `arity` arguments names.
///
/// A free function's is its companion's `f::__tape` (`emit/companion.rs`),
/// looked up in `f`'s module (`use m::*` for `m::f`) inside a block whose
/// outer glob holds a stand-in `f`: a plain `f`, which has no companion,
/// resolves to the stand-in, whose bound fails with a message that says so
/// on the student's `f`. An associated function (`Self::f`, `Model::f`)
/// names its sibling `f_tape` directly.
pub(super) fn recording_twin(func: &syn::Path, arity: usize) -> Twin {
    let (name, scope) = match crate::emit::Callee::of(func) {
        crate::emit::Callee::Associated(path) => {
            return Twin::Associated(crate::emit::sibling_path(&path, "tape"))
        }
        crate::emit::Callee::Free { name, scope } => (name, scope),
    };
    let method = Ident::new("__tape", name.span());
    Twin::Free {
        twin: crate::emit::companion_lookup(&name, &scope, &method, stand_in(&name, arity)),
        name,
        scope,
    }
}

/// What a call of `name` looks up, as [`recording_twin`] looks up its
/// twin alone: a block that gives the pair `(name::__tape, name {})`, the
/// twin and a value of the companion type (or of the stand-in's), whose
/// methods check each argument ([`checked_arguments`]).
pub(super) fn twin_and_companion(name: &Ident, scope: &TokenStream, arity: usize) -> TokenStream {
    let method = Ident::new("__tape", name.span());
    let found = quote_spanned!(name.span()=> (#name::#method, #name {}));
    crate::emit::companion_scope(name, scope, stand_in(name, arity), found)
}

/// Each argument through the companion's check for its position:
/// `companion.argument_2(x)` is the identity but for a `#[constant]`
/// `f64` parameter, where a tracked `x` is one error on `x` that says so
/// (`__private::ConstantArgument`). Positions without a check of their
/// own, and a plain function's stand-in, take `ArgumentChecks`' identity.
pub(super) fn checked_arguments(companion: &Ident, args: Vec<(TokenStream, Span)>) -> TokenStream {
    let checked = args.into_iter().enumerate().map(|(i, (arg, span))| {
        let check = format_ident!("argument_{}", i + 1, span = span);
        quote_spanned!(span=> #companion.#check(#arg))
    });
    quote!((#(#checked,)*))
}

/// What a call of the plain function `name` finds: a `name::__tape` whose
/// bound no type meets, so that rustc says `name` is not differentiable.
pub(super) fn stand_in(name: &Ident, arity: usize) -> TokenStream {
    let message = format!("`{name}` is not #[differentiable], so it cannot take a tracked value");
    let label = format!("`{name}` is a plain function: its result would carry no gradient");
    let note = format!(
        "annotate `{name}` with #[differentiable] to record it on the tape, or pass it only plain values; an annotated `{name}` declared inside a function body is not found here: move it out of the body"
    );
    let params: Vec<Ident> = (0..arity).map(|i| format_ident!("A{i}")).collect();
    // On the student's `name`: rustc's notes point at the call.
    quote_spanned! {name.span()=>
        #[diagnostic::on_unimplemented(message = #message, label = #label, note = #note)]
        pub trait Differentiable<A> {}
        // Implementations no call meets, so that rustc neither suggests
        // adding one nor names one.
        pub enum Never {}
        pub enum Never2 {}
        #[diagnostic::do_not_recommend]
        impl<T: ?Sized> Differentiable<Never> for T {}
        #[diagnostic::do_not_recommend]
        impl<T: ?Sized> Differentiable<Never2> for T {}
        pub struct #name {}
        impl #name {
            pub fn __tape<'t, #(#params),*>(
                _: &'t ::autodiff::Tape,
                #(_: #params),*
            ) -> ::core::result::Result<::autodiff::Scalar<'t>, ::autodiff::ScalarAutodiffError>
            where
                #name: Differentiable<(#(#params,)*)>,
            {
                ::core::unreachable!()
            }
        }
    }
}
