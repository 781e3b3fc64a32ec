//! Calls: methods (the elementary functions, reductions and structural
//! methods of the vocabulary, or plain ones), functions (the facade's,
//! `f64::` ones, the standard library's, constructors and closures, another
//! annotated function) and macros (`vec!`, `dbg!`, the plain ones).

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::punctuated::Punctuated;
use syn::Token;

use crate::ast::{Arith, ExprKind, Reason};
use crate::text;
use crate::vocabulary::{self, Shape};

use super::params::is_plain_type;
use super::{unparen, Lower, VecBody};

impl<'a> Lower<'a> {
    pub(super) fn method(
        &self,
        whole: &'a syn::Expr,
        call: &'a syn::ExprMethodCall,
        name: Option<&str>,
    ) -> ExprKind<'a> {
        let method = call.method.to_string();
        let label = self.label(name, whole);
        let arity = |n: usize| self.arity(&call.method, method.clone(), call.args.len(), n);
        let receiver = || self.boxed(&call.receiver);
        match vocabulary::method(&method) {
            Some(Shape::Unary(func)) => {
                if !arity(0) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Elementary {
                    func,
                    operand: receiver(),
                    label,
                };
            }
            Some(Shape::IntegerPower) => {
                if !arity(1) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Powi {
                    base: receiver(),
                    exponent: self.boxed(&call.args[0]),
                    label,
                };
            }
            Some(Shape::Binary(func)) => {
                if !arity(1) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Binary {
                    op: Arith::Method(func),
                    lhs: receiver(),
                    rhs: self.boxed(&call.args[0]),
                    label,
                };
            }
            Some(Shape::Ternary(func)) => {
                if !arity(2) {
                    return ExprKind::Invalid;
                }
                return ExprKind::Ternary {
                    func,
                    operands: [
                        receiver(),
                        self.boxed(&call.args[0]),
                        self.boxed(&call.args[1]),
                    ],
                    label,
                };
            }
            None => {}
        }
        // `x.relu()`, `x.sigmoid()`: the facade's functions in method form
        // (on plain `f64` through the prelude's `Activations`). With
        // arguments, the name is some other method's (a model's).
        if let Some(func) = vocabulary::activation_method(&method).filter(|_| call.args.is_empty())
        {
            return ExprKind::Elementary {
                func,
                operand: receiver(),
                label,
            };
        }
        if method == "sin_cos" && call.args.is_empty() {
            return self.sin_cos(call);
        }
        if method == "sum" || method == "product" {
            if !arity(0) {
                return ExprKind::Invalid;
            }
            return ExprKind::Sum {
                items: receiver(),
                label,
                product: method == "product",
            };
        }
        if vocabulary::has_no_rule(&method) {
            return self.invalid(&call.method, Reason::NoRule(method));
        }
        // An adaptor only on an iterator written in place: on a name it is
        // a model's method of that name.
        let adaptor = || {
            vocabulary::is_adaptor(&method)
                && matches!(unparen(&call.receiver), syn::Expr::MethodCall(_))
        };
        if vocabulary::is_structural(&method) || adaptor() {
            return ExprKind::Structural {
                receiver: receiver(),
                method: &call.method,
                turbofish: call.turbofish.as_ref(),
                args: self.exprs(&call.args),
            };
        }
        ExprKind::PlainMethod {
            receiver: receiver(),
            method: &call.method,
            turbofish: call.turbofish.as_ref(),
            args: self.exprs(&call.args),
            reads_primal: vocabulary::is_predicate(&method),
        }
    }

    /// `r.sin_cos()` read as `(r.sin(), r.cos())`: two nodes of the table's
    /// `sin` and `cos` rows, each labelled with its own call, so no rule
    /// of its own. `f64::sin_cos` is that pair in the standard library, so
    /// the plain twin's value is the same. The receiver is read twice, so
    /// it must be a value that reading again recomputes exactly (names,
    /// fields, indices, arithmetic); anything else is bound first.
    fn sin_cos(&self, call: &'a syn::ExprMethodCall) -> ExprKind<'a> {
        if !rereadable(&call.receiver) {
            return self.invalid(&call.receiver, Reason::BindFirst("sin_cos"));
        }
        let receiver = &call.receiver;
        let (sin, cos) = (
            syn::Ident::new("sin", call.method.span()),
            syn::Ident::new("cos", call.method.span()),
        );
        let pair: syn::Expr = syn::parse_quote!((#receiver.#sin(), #receiver.#cos()));
        let VecBody::One(pair) = self.keep(VecBody::One(Box::new(pair))) else {
            unreachable!("the cell holds what was kept")
        };
        let syn::Expr::Tuple(pair) = &**pair else {
            unreachable!("a tuple was kept")
        };
        ExprKind::Tuple(self.exprs(&pair.elems))
    }

    /// `r.sin_cos().0` read as `r.sin()` (and `.1` as `r.cos()`): one node
    /// whose source is that call, and `r` read once, as written.
    pub(super) fn sin_cos_field(&self, expr: &'a syn::Expr) -> Option<&'a syn::Expr> {
        let syn::Expr::Field(field) = expr else {
            return None;
        };
        let syn::Expr::MethodCall(call) = unparen(&field.base) else {
            return None;
        };
        let syn::Member::Unnamed(index) = &field.member else {
            return None;
        };
        if call.method != "sin_cos" || !call.args.is_empty() || call.turbofish.is_some() {
            return None;
        }
        let name = match index.index {
            0 => "sin",
            1 => "cos",
            _ => return None,
        };
        let receiver = &call.receiver;
        let method = syn::Ident::new(name, call.method.span());
        let one: syn::Expr = syn::parse_quote!(#receiver.#method());
        let VecBody::One(one) = self.keep(VecBody::One(Box::new(one))) else {
            unreachable!("the cell holds what was kept")
        };
        Some(one)
    }

    pub(super) fn call(
        &self,
        whole: &'a syn::Expr,
        call: &'a syn::ExprCall,
        name: Option<&str>,
    ) -> ExprKind<'a> {
        let syn::Expr::Path(func) = &*call.func else {
            return self.invalid(&call.func, Reason::CallOfExpression);
        };
        let segments: Vec<String> = crate::text::segments(&func.path);
        let last = segments.last().map(String::as_str).unwrap_or_default();
        let first = segments.first().map(String::as_str).unwrap_or_default();
        let label = self.label(name, whole);
        let args = &call.args;
        let arity = |name: String, n: usize| self.arity(&call.func, name, args.len(), n);
        // `relu(x)`, `autodiff::sigmoid(x)`: the facade's plain twins.
        let facade = segments.len() == 1 || (segments.len() == 2 && first == "autodiff");
        if let Some(func) = facade.then(|| vocabulary::facade_function(last)).flatten() {
            if !arity(last.to_owned(), 1) {
                return ExprKind::Invalid;
            }
            return ExprKind::Elementary {
                func,
                operand: self.boxed(&args[0]),
                label,
            };
        }
        if segments.len() == 2 && first == "f64" {
            let path = format!("f64::{last}");
            match vocabulary::method(last) {
                Some(Shape::Unary(func)) => {
                    if !arity(path, 1) {
                        return ExprKind::Invalid;
                    }
                    return ExprKind::Elementary {
                        func,
                        operand: self.boxed(&args[0]),
                        label,
                    };
                }
                Some(Shape::IntegerPower) => {
                    if !arity(path, 2) {
                        return ExprKind::Invalid;
                    }
                    return ExprKind::Powi {
                        base: self.boxed(&args[0]),
                        exponent: self.boxed(&args[1]),
                        label,
                    };
                }
                Some(Shape::Binary(func)) => {
                    if !arity(path, 2) {
                        return ExprKind::Invalid;
                    }
                    return ExprKind::Binary {
                        op: Arith::Method(func),
                        lhs: self.boxed(&args[0]),
                        rhs: self.boxed(&args[1]),
                        label,
                    };
                }
                Some(Shape::Ternary(func)) => {
                    if !arity(path, 3) {
                        return ExprKind::Invalid;
                    }
                    return ExprKind::Ternary {
                        func,
                        operands: [
                            self.boxed(&args[0]),
                            self.boxed(&args[1]),
                            self.boxed(&args[2]),
                        ],
                        label,
                    };
                }
                None => {}
            }
            if vocabulary::has_no_rule(last) {
                return self.invalid(&call.func, Reason::NoRule(path));
            }
            return ExprKind::PlainCall {
                func,
                args: self.exprs(args),
                reads_primal: false,
            };
        }
        // `Some(x)`, `Point(a, b)`: a constructor, not a function; and
        // `act(x)` with `let act = |v| ..`: a closure, called as written.
        let closure = segments.len() == 1 && self.closures.borrow().iter().any(|name| name == last);
        if closure || last.starts_with(|c: char| c.is_ascii_uppercase()) {
            return ExprKind::Construct {
                func,
                args: self.exprs(args),
            };
        }
        // `std::cmp::max(1, m)`, `Vec::with_capacity(m)`: the standard
        // library has no `_tape` twins.
        let standard = matches!(first, "std" | "core" | "alloc")
            || (segments.len() == 2 && matches!(first, "Vec" | "Option" | "String" | "Box"))
            || (segments == ["mem", "swap"] && swaps_places(args));
        if standard || (segments.len() == 2 && (is_plain_type(first) || first == "f64")) {
            return ExprKind::PlainCall {
                func,
                args: self.exprs(args),
                reads_primal: false,
            };
        }
        // `smoothing::<3>()`, `<T as Trait>::f(n)`: no annotated function
        // is generic, so a plain one, which takes plain values.
        if func.qself.is_some()
            || func
                .path
                .segments
                .iter()
                .any(|s| !matches!(s.arguments, syn::PathArguments::None))
        {
            return ExprKind::PlainCall {
                func,
                args: self.exprs(args),
                reads_primal: false,
            };
        }
        if segments.len() == 1 {
            if let Some(glob) = self.imports.import_of(last) {
                return self.invalid(&call.func, Reason::ImportedCallee(last.to_owned(), glob));
            }
        }
        ExprKind::Call {
            func: &func.path,
            args: self.exprs(args),
        }
    }

    pub(super) fn mac(&self, mac: &'a syn::Macro) -> ExprKind<'a> {
        let name = mac
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        if name == "dbg" {
            if let Ok(arg) = mac.parse_body::<syn::Expr>() {
                let VecBody::One(arg) = self.keep(VecBody::One(Box::new(arg))) else {
                    unreachable!("the cell holds what was kept")
                };
                return ExprKind::Dbg {
                    mac,
                    arg: self.boxed(arg),
                };
            }
        }
        if vocabulary::is_plain_macro(&name) {
            return ExprKind::PlainMacro {
                mac,
                names: text::mentioned_names(mac.tokens.clone()),
                diverges: vocabulary::is_diverging_macro(&name),
            };
        }
        if !mac.path.is_ident("vec") {
            return self.invalid(
                &mac.path,
                Reason::Macro(text::tokens(mac.path.to_token_stream())),
            );
        }
        let repeat = mac.parse_body_with(|input: syn::parse::ParseStream| {
            let elem: syn::Expr = input.parse()?;
            input.parse::<Token![;]>()?;
            let len: syn::Expr = input.parse()?;
            Ok((elem, len))
        });
        if let Ok((elem, len)) = repeat {
            let VecBody::Repeat(elem, len) =
                self.keep(VecBody::Repeat(Box::new(elem), Box::new(len)))
            else {
                unreachable!("the cell holds what was kept")
            };
            return ExprKind::VecRepeat {
                elem: self.boxed(elem),
                len: self.boxed(len),
            };
        }
        match mac.parse_body_with(Punctuated::<syn::Expr, Token![,]>::parse_terminated) {
            Ok(items) => {
                let VecBody::List(items) = self.keep(VecBody::List(items)) else {
                    unreachable!("the cell holds what was kept")
                };
                ExprKind::VecList(self.exprs(items))
            }
            Err(error) => self.invalid(TokenStream::new(), Reason::Syntax(error)),
        }
    }
}

/// Whether reading `expr` twice computes the same value and does nothing
/// else: names, literals, fields and indices of them, arithmetic and the
/// table's methods on such values. Calls, macros and blocks may do more.
fn rereadable(expr: &syn::Expr) -> bool {
    use syn::Expr as E;
    match expr {
        E::Path(_) | E::Lit(_) => true,
        E::Paren(paren) => rereadable(&paren.expr),
        E::Group(group) => rereadable(&group.expr),
        E::Field(field) => rereadable(&field.base),
        E::Index(index) => rereadable(&index.expr) && rereadable(&index.index),
        E::Unary(unary) => rereadable(&unary.expr),
        E::Cast(cast) => rereadable(&cast.expr),
        E::Binary(binary) => {
            !crate::ast::is_compound_assignment(&binary.op)
                && rereadable(&binary.left)
                && rereadable(&binary.right)
        }
        E::MethodCall(call) => {
            let method = call.method.to_string();
            (vocabulary::method(&method).is_some()
                || vocabulary::activation_method(&method).is_some())
                && rereadable(&call.receiver)
                && call.args.iter().all(rereadable)
        }
        _ => false,
    }
}

/// `mem::swap(&mut a, &mut b)` (with `use std::mem;`): two places borrowed
/// `&mut`, which no annotated function takes.
fn swaps_places(args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>) -> bool {
    args.len() == 2
        && args.iter().all(
            |arg| matches!(arg, syn::Expr::Reference(reference) if reference.mutability.is_some()),
        )
}
