//! `#[backward(f)]`: a student's hand-written backward pass for the
//! `#[differentiable]` function `f`, kept as written, plus `_check` and
//! `_check_random`, which run it beside `f`'s tape and compare every
//! adjoint it computes with the exact adjoint of the binding of the same
//! name (the runtime's `backward` module says how they are matched).
//!
//! The generated check runs an instrumented copy of the student's function:
//! every loop iteration is entered in a log, and after every statement that
//! writes an adjoint (`let z_bar = ..`, `w_bar[i][j] += ..`) the numbers it
//! wrote are logged with the statement's line and the adjoints it read.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Block, Expr, FnArg, ItemFn, Pat, Path, Stmt};

use crate::ast::{Kind, Param};
use crate::attr;
use crate::text;

pub fn backward(args: TokenStream, input: TokenStream) -> TokenStream {
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            return error_with(
                Span::call_site(),
                "#[backward(f)] goes on a function: the hand-written backward pass of the #[differentiable] function `f`",
                input,
            )
        }
    };
    let path: Path = match syn::parse2(args.clone()) {
        Ok(path) => path,
        Err(_) => {
            let span = if args.is_empty() {
                Span::call_site()
            } else {
                args.span()
            };
            return error_with(
                span,
                "expected `#[backward(f)]`, naming the #[differentiable] function whose backward pass this is",
                attr::without_constant_markers(&item).into_token_stream(),
            );
        }
    };
    let plain = attr::without_constant_markers(&item);
    if let Some(receiver) = item.sig.receiver() {
        return error_with(
            receiver.span(),
            "#[backward(f)] checks a free function; write the backward pass of a method as a function taking the model as a parameter",
            plain.into_token_stream(),
        );
    }
    let mut params = Vec::new();
    for input in &item.sig.inputs {
        let FnArg::Typed(typed) = input else { continue };
        let Pat::Ident(pat) = &*typed.pat else {
            return error_with(
                typed.pat.span(),
                "#[backward(f)] needs every parameter named, as `f` names it",
                plain.into_token_stream(),
            );
        };
        let constant = typed.attrs.iter().any(attr::is_constant);
        let kind = if constant {
            Kind::PassThrough
        } else {
            crate::lower::params::classify_param(&typed.ty).unwrap_or(Kind::PassThrough)
        };
        params.push(Param {
            ident: pat.ident.clone(),
            mutability: None,
            ty: (*typed.ty).clone(),
            kind,
            line: text::line(pat.ident.span()),
        });
    }
    let checks = checks(&item, &plain, &path, &params);
    quote! {
        #plain
        #checks
    }
}

fn error_with(span: Span, message: &str, item: TokenStream) -> TokenStream {
    let error = syn::Error::new(span, message).to_compile_error();
    quote!(#error #item)
}

/// `f_grad`, `f_grad_tape_on`: `f`'s companions, named through `f`'s path.
fn companion(path: &Path, suffix: &str) -> Path {
    let mut path = path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.ident = format_ident!("{}_{}", last.ident, suffix, span = last.ident.span());
    }
    path
}

fn checks(item: &ItemFn, plain: &ItemFn, path: &Path, params: &[Param]) -> TokenStream {
    let name = &item.sig.ident;
    let vis = &item.vis;
    let check_fn = format_ident!("{}_check", name);
    let random_fn = format_ident!("{}_check_random", name);
    let logged_fn = format_ident!("__{}_logged", name);
    let grad_fn = companion(path, "grad");
    let grad_tape_on_fn = companion(path, "grad_tape_on");
    let function_name = path
        .segments
        .last()
        .map(|segment| segment.ident.to_string())
        .unwrap_or_default();
    let output = &item.sig.output;
    let user_params: Vec<TokenStream> = plain
        .sig
        .inputs
        .iter()
        .map(|input| match input {
            FnArg::Typed(typed) => {
                let (pat, ty) = (&typed.pat, &typed.ty);
                // `mut x` is the student's body's business, not the check's.
                let pat = match &**pat {
                    Pat::Ident(ident) => ident.ident.to_token_stream(),
                    other => other.to_token_stream(),
                };
                quote!(#pat: #ty)
            }
            FnArg::Receiver(receiver) => receiver.to_token_stream(),
        })
        .collect();
    let idents: Vec<_> = params.iter().map(|param| &param.ident).collect();
    let dups: Vec<TokenStream> = idents
        .iter()
        .map(|ident| quote!(__ad::dup(&#ident)))
        .collect();
    let differentiable: Vec<&Param> = params
        .iter()
        .filter(|param| param.kind.is_differentiable())
        .collect();

    // The instrumented copy of the student's function.
    let adjoints = Adjoints::of(item);
    let mut body = (*item.block).clone();
    let log = format_ident!("__backward_log");
    adjoints.block(&mut body, &log);
    let logged_params = plain.sig.inputs.iter();

    let returned_line = match item.block.stmts.last() {
        Some(stmt) => {
            let span = stmt.span();
            quote_spanned!(span=> line!())
        }
        None => quote!(line!()),
    };
    let returned = differentiable.iter().enumerate().map(|(index, param)| {
        let ident = &param.ident;
        let label = ident.to_string();
        let field = if differentiable.len() == 1 {
            quote!()
        } else {
            let index = syn::Index::from(index);
            quote!(.#index)
        };
        let (yours, exact) = match &param.kind {
            Kind::Struct { ty, .. } => (
                quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::components(&__yours #field, &mut __your_numbers);),
                quote_spanned!(ty.span()=> <#ty as __ad::Parameter>::components(&__reverse.gradient #field, &mut __exact_numbers);),
            ),
            _ => (
                quote!(__ad::gradient_components(&#ident, &__yours #field, &mut __your_numbers);),
                quote!(__ad::gradient_components(&#ident, &__reverse.gradient #field, &mut __exact_numbers);),
            ),
        };
        quote! {
            {
                let mut __your_numbers = ::std::vec::Vec::new();
                let mut __exact_numbers = ::std::vec::Vec::new();
                #yours
                #exact
                __returned.push((#label, #returned_line, __your_numbers, __exact_numbers));
            }
        }
    });

    // The student's return type is `f`'s gradient type: one error, on the
    // return type, when it is not.
    let same_type = match output {
        syn::ReturnType::Type(_, ty) => {
            let span = ty.span();
            quote_spanned!(span=> __ad::same_gradient_type(&__yours, &__reverse);)
        }
        syn::ReturnType::Default => quote!(__ad::same_gradient_type(&__yours, &__reverse);),
    };
    let inputs = format_ident!("__inputs");
    let rest = format_ident!("__rest");
    let components = crate::emit::check::components(&differentiable, &inputs);
    let rebuilds = crate::emit::check::rebuilds(&differentiable, &rest);
    let rebuilt_args = params.iter().map(|param| {
        let ident = &param.ident;
        match (&param.kind, &param.ty) {
            (Kind::PassThrough, _) => quote!(#ident),
            (_, syn::Type::Reference(_)) => quote!(&#ident),
            _ => quote!(#ident),
        }
    });

    let check_doc = format!(
        " Runs [`{name}`] and `{function_name}`'s tape at this point and compares every adjoint `{name}` computes with the exact adjoint of `{function_name}`'s binding of the same name, and the returned gradient with `{function_name}_grad`'s. See [`autodiff::backward`](::autodiff::backward) for the matching rule."
    );
    let random_doc = format!(
        " [`{check_fn}`] at a point drawn from `seed`: every differentiable component replaced by a non-zero value of magnitude in [0.25, 1.25), of random sign, all different (a check at zero or symmetric weights can pass a wrong backward pass). The arguments give the shapes and the `#[constant]` and integer values."
    );
    quote! {
        #[doc(hidden)]
        #[allow(unused_mut, unused_variables, unused_assignments, non_snake_case, clippy::all)]
        fn #logged_fn(#log: &::autodiff::__private::StudentLog, #(#logged_params),*) #output #body

        #[doc = #check_doc]
        #[allow(clippy::too_many_arguments)]
        #vis fn #check_fn(
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::BackwardReport, ::autodiff::ScalarAutodiffError> {
            use ::autodiff::__private as __ad;
            let #log = __ad::StudentLog::new();
            let __yours = #name(#(#dups),*);
            let __logged = #logged_fn(&#log, #(#dups),*);
            // The instrumented copy computes what the function does.
            let _ = &__logged;
            // The tape path on a probing tape: its reverse pass leaves the
            // exact adjoint of every probed binding on the tape.
            let __probing = &mut __ad::probing_tape();
            let __exact = __ad::exact_adjoints(#grad_tape_on_fn(__probing, #(#dups),*), __probing)?;
            let __reverse = #grad_fn(#(#dups),*)?;
            #same_type
            let (__writes, __declarations) = #log.finish();
            let mut __returned = ::std::vec::Vec::new();
            #(#returned)*
            ::core::result::Result::Ok(::autodiff::BackwardReport::build(
                #function_name,
                __writes,
                __declarations,
                __exact,
                __returned,
            ))
        }

        #[doc = #random_doc]
        #[allow(clippy::too_many_arguments)]
        #vis fn #random_fn(
            seed: u64,
            #(#user_params),*
        ) -> ::core::result::Result<::autodiff::BackwardReport, ::autodiff::ScalarAutodiffError> {
            use ::autodiff::__private as __ad;
            let mut #inputs = ::std::vec::Vec::new();
            #(#components)*
            let __point = __ad::random_point(seed, #inputs.len());
            let mut #rest: &[f64] = &__point;
            #(#rebuilds)*
            #check_fn(#(#rebuilt_args),*)
        }
    }
}

/// Which names are adjoints, and how to instrument a body that writes them.
struct Adjoints {
    /// The function uses `_bar` names: only those (and `dL_dz`) are adjoints.
    bar_style: bool,
    params: Vec<String>,
}

impl Adjoints {
    fn of(item: &ItemFn) -> Self {
        let mut names = Vec::new();
        collect_written(&item.block, &mut names);
        let params = item
            .sig
            .inputs
            .iter()
            .filter_map(|input| match input {
                FnArg::Typed(typed) => match &*typed.pat {
                    Pat::Ident(ident) => Some(ident.ident.to_string()),
                    _ => None,
                },
                FnArg::Receiver(_) => None,
            })
            .collect();
        Self {
            bar_style: names.iter().any(|name| name.ends_with("_bar")),
            params,
        }
    }

    fn is_adjoint(&self, name: &str) -> bool {
        if self.params.iter().any(|param| param == name) {
            return false;
        }
        if name.ends_with("_bar") && name.len() > 4 {
            return true;
        }
        if (name.starts_with("dL_d") || name.starts_with("dl_d")) && name.len() > 4 {
            return true;
        }
        !self.bar_style && name.starts_with('d') && name.len() > 1
    }

    /// Instruments every statement of `block` and of the blocks inside it.
    fn block(&self, block: &mut Block, log: &syn::Ident) {
        let stmts = std::mem::take(&mut block.stmts);
        for mut stmt in stmts {
            let after = self.stmt(&mut stmt, log);
            block.stmts.push(stmt);
            block.stmts.extend(after);
        }
    }

    /// Instruments inside `stmt`, and returns what to log after it.
    fn stmt(&self, stmt: &mut Stmt, log: &syn::Ident) -> Vec<Stmt> {
        match stmt {
            Stmt::Local(local) => {
                if let Some(init) = &mut local.init {
                    self.expr(&mut init.expr, log);
                }
                let Some(name) = local_name(&local.pat) else {
                    return Vec::new();
                };
                if !self.is_adjoint(&name) {
                    return Vec::new();
                }
                let mut after = vec![parse_stmt(quote!(#log.declare(#name);))];
                let zero = local
                    .init
                    .as_ref()
                    .is_none_or(|init| is_zero_init(&init.expr));
                if !zero {
                    let init = &local.init.as_ref().expect("checked").expr;
                    let reads = self.reads(init, &name);
                    let ident = format_ident!("{}", name);
                    after.push(self.write(
                        stmt_span(local.span()),
                        log,
                        &name,
                        &reads,
                        quote!(#ident),
                        &[],
                    ));
                }
                after
            }
            Stmt::Expr(expr, semi) => {
                self.expr(expr, log);
                if semi.is_none() {
                    return Vec::new();
                }
                let span = expr.span();
                let (target, value) = match expr {
                    Expr::Assign(assign) => (&*assign.left, &*assign.right),
                    Expr::Binary(binary) if is_compound(&binary.op) => {
                        (&*binary.left, &*binary.right)
                    }
                    _ => return Vec::new(),
                };
                let Some((name, indices)) = place(target) else {
                    return Vec::new();
                };
                if !self.is_adjoint(&name) {
                    return Vec::new();
                }
                let reads = self.reads(value, &name);
                let indices: Vec<TokenStream> = indices
                    .iter()
                    .map(|index| index.to_token_stream())
                    .collect();
                vec![self.write(span, log, &name, &reads, target.to_token_stream(), &indices)]
            }
            _ => Vec::new(),
        }
    }

    /// `__log_write!` of what a statement at `span` wrote.
    fn write(
        &self,
        span: Span,
        log: &syn::Ident,
        name: &str,
        reads: &[String],
        value: TokenStream,
        indices: &[TokenStream],
    ) -> Stmt {
        let line = quote_spanned!(span=> line!());
        let path = if indices.is_empty() {
            quote!()
        } else {
            quote!(; #(#indices),*)
        };
        parse_stmt(quote! {
            ::autodiff::__log_write!(
                #log,
                {
                    static __STATEMENT: ::autodiff::__private::StudentStatement =
                        ::autodiff::__private::StudentStatement { line: #line, reads: &[#(#reads),*] };
                    &__STATEMENT
                },
                #name,
                #value
                #path
            );
        })
    }

    /// The adjoints an expression reads, other than `target`.
    fn reads(&self, expr: &Expr, target: &str) -> Vec<String> {
        let mut names = Vec::new();
        collect_idents(expr.to_token_stream(), &mut names);
        let mut reads: Vec<String> = Vec::new();
        for name in names {
            if name != target && self.is_adjoint(&name) && !reads.contains(&name) {
                reads.push(name);
            }
        }
        reads
    }

    /// Instruments the blocks inside an expression (loops enter their
    /// iterations in the log); closures are left alone.
    fn expr(&self, expr: &mut Expr, log: &syn::Ident) {
        match expr {
            Expr::Block(block) => self.block(&mut block.block, log),
            Expr::Unsafe(block) => self.block(&mut block.block, log),
            Expr::If(branch) => {
                self.block(&mut branch.then_branch, log);
                if let Some((_, otherwise)) = &mut branch.else_branch {
                    self.expr(otherwise, log);
                }
            }
            Expr::Match(matched) => {
                for arm in &mut matched.arms {
                    self.expr(&mut arm.body, log);
                }
            }
            Expr::ForLoop(for_loop) => {
                self.block(&mut for_loop.body, log);
                let variable = crate::ast::first_ident(&for_loop.pat).filter(|ident| ident != "_");
                let enter = match variable {
                    Some(ident) => {
                        let name = ident.to_string();
                        quote! {
                            let __iteration = #log.iteration(#name, {
                                #[allow(unused_imports)]
                                use ::autodiff::__private::{IntegerLoopVariable as _, OtherLoopVariable as _};
                                (&::autodiff::__private::LoopVariable(&#ident)).loop_value()
                            }, __iterations);
                        }
                    }
                    None => {
                        quote!(let __iteration = #log.iteration("for", ::core::option::Option::None, __iterations);)
                    }
                };
                prepend(&mut for_loop.body, quote!(#enter __iterations += 1;));
                wrap_counted(expr);
            }
            Expr::While(while_loop) => {
                self.block(&mut while_loop.body, log);
                prepend(
                    &mut while_loop.body,
                    quote!(let __iteration = #log.iteration("while", ::core::option::Option::None, __iterations); __iterations += 1;),
                );
                wrap_counted(expr);
            }
            Expr::Loop(loop_) => {
                self.block(&mut loop_.body, log);
                prepend(
                    &mut loop_.body,
                    quote!(let __iteration = #log.iteration("loop", ::core::option::Option::None, __iterations); __iterations += 1;),
                );
                wrap_counted(expr);
            }
            _ => {}
        }
    }
}

/// `{ let mut __iterations: i64 = 0; <loop> }`.
fn wrap_counted(expr: &mut Expr) {
    let inner = expr.clone();
    *expr = syn::parse_quote!({ let mut __iterations: i64 = 0; #inner });
}

fn prepend(block: &mut Block, tokens: TokenStream) {
    let parsed: Block = syn::parse_quote!({ #tokens });
    let mut stmts = parsed.stmts;
    stmts.append(&mut block.stmts);
    block.stmts = stmts;
}

fn parse_stmt(tokens: TokenStream) -> Stmt {
    syn::parse2(tokens).expect("generated statement parses")
}

fn stmt_span(span: Span) -> Span {
    span
}

fn is_compound(op: &syn::BinOp) -> bool {
    matches!(
        op,
        syn::BinOp::AddAssign(_)
            | syn::BinOp::SubAssign(_)
            | syn::BinOp::MulAssign(_)
            | syn::BinOp::DivAssign(_)
    )
}

/// The name a `let` binds, through `mut` and a type annotation.
fn local_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(ident) if ident.subpat.is_none() => Some(ident.ident.to_string()),
        Pat::Type(typed) => local_name(&typed.pat),
        _ => None,
    }
}

/// An assignment's target as a name and its index expressions
/// (`w_bar[i][j]`), or `None` for anything else (a field, a deref).
fn place(target: &Expr) -> Option<(String, Vec<&Expr>)> {
    match target {
        Expr::Path(path) => path
            .path
            .get_ident()
            .map(|ident| (ident.to_string(), Vec::new())),
        Expr::Index(index) => {
            let (name, mut indices) = place(&index.expr)?;
            indices.push(&index.index);
            Some((name, indices))
        }
        Expr::Paren(paren) => place(&paren.expr),
        _ => None,
    }
}

/// Every name a block binds with `let` or assigns to.
fn collect_written(block: &Block, names: &mut Vec<String>) {
    let mut idents = Vec::new();
    collect_idents(block.to_token_stream(), &mut idents);
    // Cheap and sufficient: a `_bar` name anywhere means the `_bar` style.
    names.extend(idents);
}

fn collect_idents(tokens: TokenStream, out: &mut Vec<String>) {
    crate::text::each_identifier(tokens, &mut |ident| out.push(ident.to_string()));
}

/// `0.0`, `[0.0; 3]`, `[[0.0; 3]; 4]`, `vec![0.0; n]`, `Vec::new()`,
/// `Vec::with_capacity(n)`, `vec![]`: a zero initialisation, not a row.
fn is_zero_init(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            syn::Lit::Float(float) => float.base10_parse::<f64>().is_ok_and(|v| v == 0.0),
            syn::Lit::Int(int) => int.base10_parse::<u64>().is_ok_and(|v| v == 0),
            _ => false,
        },
        Expr::Repeat(repeat) => is_zero_init(&repeat.expr),
        Expr::Array(array) => array.elems.iter().all(is_zero_init),
        Expr::Paren(paren) => is_zero_init(&paren.expr),
        Expr::Macro(mac) if mac.mac.path.is_ident("vec") => {
            let tokens = mac.mac.tokens.clone();
            if tokens.is_empty() {
                return true;
            }
            match syn::parse2::<syn::ExprRepeat>(quote!([#tokens])) {
                Ok(repeat) => is_zero_init(&repeat.expr),
                Err(_) => syn::parse2::<syn::ExprArray>(quote!([#tokens]))
                    .is_ok_and(|array| array.elems.iter().all(is_zero_init)),
            }
        }
        Expr::Call(call) => {
            let text = call.func.to_token_stream().to_string().replace(' ', "");
            matches!(text.as_str(), "Vec::new" | "Vec::with_capacity")
        }
        _ => false,
    }
}
