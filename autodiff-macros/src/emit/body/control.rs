//! Places and aggregates, and control flow: blocks, branches, loops and
//! jumps, with the arms lifted to a common type where one is tracked.

use super::*;

impl Emitter<'_> {
    /// Places and aggregates: indexing, fields, references, tuples, arrays, vectors, ranges.
    #[inline(never)]
    pub(super) fn composite(&self, expr: &Expr, mode: Mode) -> TokenStream {
        let value = |e: &Expr| self.expr(e, Mode::Value);
        match &expr.kind {
            ExprKind::Index { base, index } => {
                // Spanned on the student's tokens: an index out of bounds
                // panics at the student's line, as in the plain twin.
                let (base, span) = (value(base), expr.span);
                let index =
                    if self.flow.is_certainly_tracked(index) || self.is_float_constant(index) {
                        // `v[k]` with `k: f64`: the plain twin's error alone.
                        let (index_span, index) = (index.span, value(index));
                        quote_spanned!(index_span=> __ad::index(#index))
                    } else {
                        value(index)
                    };
                quote_spanned!(span=> #base[#index])
            }
            ExprKind::Field { base, member } => {
                let base = value(base);
                quote!(#base.#member)
            }
            ExprKind::Reference {
                mutability,
                expr: inner,
            } => {
                let inner = value(inner);
                quote!(&#mutability #inner)
            }
            ExprKind::Paren(inner) => self.paren(inner, mode),
            ExprKind::Tuple(items) => {
                let items = items.iter().map(value);
                quote!((#(#items,)*))
            }
            ExprKind::Array(items) => {
                let items = items.iter().map(|item| self.expr(item, Mode::Lift));
                quote!([#(#items),*])
            }
            ExprKind::Repeat { elem, len } => {
                let elem = self.expr(elem, Mode::Lift);
                quote!([#elem; #len])
            }
            ExprKind::VecList(items) => {
                let items = items.iter().map(|item| self.expr(item, Mode::Lift));
                quote!(::std::vec![#(#items),*])
            }
            ExprKind::VecRepeat { elem, len } => {
                let (elem, len) = (self.expr(elem, Mode::Lift), value(len));
                quote!(::std::vec![#elem; #len])
            }
            ExprKind::Construct { func, args } => {
                // Lifting a constructor lifts what it holds: `Some(x)` and
                // `None` in two arms agree on `Option<Scalar>`.
                let arg_mode = if mode == Mode::Lift {
                    Mode::Lift
                } else {
                    Mode::Value
                };
                // A closure's parameter that may hold a tracked value is a
                // `Scalar`: a plain argument there is lifted.
                let lifted = self.lifted_parameters(func);
                let args = args.iter().enumerate().map(|(position, arg)| {
                    self.closure_argument(&lifted, position, arg)
                        .unwrap_or_else(|| self.expr(arg, arg_mode))
                });
                quote!(#func(#(#args),*))
            }
            ExprKind::Range { start, limits, end } => {
                let start = start.as_deref().map(|start| self.condition(start));
                let end = end.as_deref().map(|end| self.condition(end));
                quote!(#start #limits #end)
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// Leaves and control flow.
    #[inline(never)]
    pub(super) fn control(&self, expr: &Expr, mode: Mode) -> TokenStream {
        let value = |e: &Expr| self.expr(e, Mode::Value);
        match &expr.kind {
            ExprKind::Lit(_) | ExprKind::NegLit(_) | ExprKind::Path(_) => {
                expr.source.to_token_stream()
            }
            ExprKind::Continue(loop_label) => quote!(continue #loop_label),
            ExprKind::Closure {
                syntax,
                inputs: patterns,
                body,
            } => {
                let capture = &syntax.capture;
                let mut inputs = syntax.inputs.to_token_stream();
                let mut output = syntax.output.to_token_stream();
                if patterns
                    .iter()
                    .any(|input| input.names.iter().any(|name| self.flow.is_tracked(name)))
                {
                    // `|v: f64|` may be given a `Scalar`.
                    inputs = without_f64(inputs);
                    output = without_f64(output);
                } else if self.flow.touches(body) {
                    // `|a: f64| -> f64 { a * w }` of a tracked `w` returns
                    // a `Scalar`: `-> _`.
                    output = without_f64(output);
                }
                let chains = self.method_chains.replace(false);
                let body = self.expr(body, Mode::Value);
                self.method_chains.set(chains);
                quote!(#capture |#inputs| #output #body)
            }
            ExprKind::Block(block_label, block) => {
                let block = self.block(block, self.branch_mode(expr, mode));
                quote!(#block_label #block)
            }
            ExprKind::If { .. } => self.if_(expr, self.branch_mode(expr, mode)),
            ExprKind::Let { pat, expr: inner } => {
                let (pat, inner) = (pat.syntax, value(inner));
                quote!(let #pat = #inner)
            }
            ExprKind::Match { scrutinee, arms } => {
                self.match_(scrutinee, arms, self.branch_mode(expr, mode))
            }
            ExprKind::For {
                label: loop_label,
                pat,
                iter,
                body,
            } => {
                let (iter, body) = (value(iter), self.block(body, Mode::Stmt));
                let first = first_ident(pat.syntax).filter(|ident| ident != "_");
                let (enter, body) = self.in_iteration(first, body);
                let pat = pat.syntax;
                quote!({ #enter #loop_label for #pat in #iter #body })
            }
            ExprKind::While {
                label: loop_label,
                cond,
                body,
            } => {
                let (cond, body) = (self.condition(cond), self.block(body, Mode::Stmt));
                let (enter, body) = self.counted_iteration("while", body);
                quote!({ #enter #loop_label while #cond #body })
            }
            ExprKind::Loop { label, body } => self.loop_(*label, body),
            ExprKind::Break { label, value } => self.break_(*label, value.as_deref()),
            ExprKind::Return(result) => self.return_(result.as_deref()),
            // `(a, b) = (b, e)`: each component lifted where its target
            // is tracked, the target printed as the places it lists.
            ExprKind::Assign {
                target,
                value: result,
            } if flow::components(target, result).is_some() => {
                let pairs = flow::components(target, result).unwrap_or_default();
                let items = pairs.into_iter().map(|(target, item)| {
                    let tracked =
                        flow::root(target).is_some_and(|root| self.flow.is_tracked(&root));
                    if tracked && self.flow.is_certainly_tracked(target) {
                        self.lifted_into(item, true)
                    } else {
                        self.expr(item, if tracked { Mode::Lift } else { Mode::Value })
                    }
                });
                let value = match target.kind {
                    ExprKind::Array(_) => quote!([#(#items),*]),
                    _ => quote!((#(#items,)*)),
                };
                let target = target.source.to_token_stream();
                quote!(#target = #value)
            }
            ExprKind::Assign {
                target,
                value: result,
            } => {
                let tracked = flow::root(target).is_some_and(|root| self.flow.is_tracked(&root));
                let result = if tracked && self.flow.is_certainly_tracked(target) {
                    // Converted to the target's type: `y = n` with `n:
                    // usize` is the plain twin's mismatched types alone.
                    self.lifted_into(result, true)
                } else {
                    self.expr(result, if tracked { Mode::Lift } else { Mode::Value })
                };
                // A destructuring target (`[a, b] = pair`) is places,
                // printed as written: an array literal there is not a
                // value to lift.
                let target = match target.kind {
                    ExprKind::Array(_) => target.source.to_token_stream(),
                    _ => value(target),
                };
                quote!(#target = #result)
            }
            _ => expr.source.to_token_stream(),
        }
    }

    /// Lifts a value where Rust needs one type: pushed into the arms of a
    /// branch (their types must agree before anything can be lifted), left
    /// alone for integer literals (whose type rustc infers from later use)
    /// and for `return`/`break`.
    pub(super) fn lifted(&self, expr: &Expr) -> TokenStream {
        self.lifted_into(expr, false)
    }

    /// [`Self::lifted`]; `into` when the type the value must have is known
    /// from elsewhere (the place it is assigned to, a tracked arm beside
    /// it): a single value then converts to that type (`__ad::lift_into`),
    /// so that an integer there is the plain twin's mismatched types alone.
    pub(super) fn lifted_into(&self, expr: &Expr, into: bool) -> TokenStream {
        match &expr.kind {
            ExprKind::If { .. } => self.if_(expr, Mode::Lift),
            ExprKind::Match { .. } | ExprKind::Block(..) | ExprKind::Paren(_) => {
                // Evaluated with branch tails lifted.
                self.expr_forced(expr, Mode::Lift)
            }
            ExprKind::Loop { .. } => self.expr_forced(expr, Mode::Value),
            _ if expr.diverges() => self.expr_forced(expr, Mode::Value),
            _ if expr.is_int_literal() && !into => expr.source.to_token_stream(),
            // `Some(x)`: its arguments are lifted; `None`, a unit variant
            // or constant path, stays as written (its type comes from the
            // other arms).
            ExprKind::Construct { .. } => self.composite(expr, Mode::Lift),
            // `(0, x[0])`: element by element, so the integer stays an
            // integer of the type rustc infers from its later use.
            ExprKind::Tuple(items) => {
                let items = items.iter().map(|item| self.expr(item, Mode::Lift));
                quote!((#(#items,)*))
            }
            ExprKind::Path(path) if is_capitalised(&path.path) => expr.source.to_token_stream(),
            // `h = Vec::new();` of a tracked `Vec`: its type is the place's;
            // `vec![x.to_vec(), Vec::new()]`, `rows.push(Vec::new())`: the
            // siblings' or the receiver's item type (lifting it would leave
            // rustc nothing to infer that from).
            _ if expr.is_untyped_empty_vec() => expr.source.to_token_stream(),
            _ if self.flow.is_certainly_tracked(expr) => self.expr(expr, Mode::Value),
            _ => {
                let tape = &self.tape;
                let span = expr.span;
                // `iter.collect()`: into a `Vec` of what the items are, the
                // lift then turning plain ones into tracked ones.
                let inner = match self.collected(expr) {
                    Some(collected) => collected,
                    None => self.arg(expr),
                };
                let at = label(&Label {
                    text: expr
                        .binding
                        .clone()
                        .unwrap_or_else(|| source_text(expr.source)),
                    line: text::line(span),
                });
                let func = Ident::new(if into { "lift_into" } else { "lift" }, span);
                quote_spanned!(span=> __ad::#func(#tape, #inner, #at))
            }
        }
    }

    /// `expr` rewritten in `mode` even where no tracked value reaches it:
    /// lifting must reach the branch tails of plain code too.
    pub(super) fn expr_forced(&self, expr: &Expr, mode: Mode) -> TokenStream {
        match &expr.kind {
            ExprKind::Match { scrutinee, arms } => self.match_(scrutinee, arms, mode),
            ExprKind::Block(block_label, block) => {
                let block = self.block(block, mode);
                quote!(#block_label #block)
            }
            ExprKind::Paren(inner) => self.paren(inner, mode),
            ExprKind::Loop { label, body } => self.loop_(*label, body),
            ExprKind::Return(result) => self.return_(result.as_deref()),
            ExprKind::Break { label, value } => self.break_(*label, value.as_deref()),
            _ => self.expr(expr, mode),
        }
    }

    /// `loop { … }`: the body in statement mode, whatever the mode outside.
    pub(super) fn loop_(&self, loop_label: Option<&syn::Label>, body: &Block) -> TokenStream {
        let (enter, body) = self.counted_iteration("loop", self.block(body, Mode::Stmt));
        quote!({ #enter #loop_label loop #body })
    }

    /// The loop's start on the tape (`__loop`, named by the loop's first
    /// variable) and its body, which first begins its iteration: the
    /// variable's value when it is an integer (`i = 3`), else counted
    /// (`layer iteration 2`). The loop ends on the tape when `__loop` is
    /// dropped, however the loop is left; a nested loop's shadows it.
    fn in_iteration(
        &self,
        variable: Option<Ident>,
        body: TokenStream,
    ) -> (TokenStream, TokenStream) {
        let tape = &self.tape;
        let Some(ident) = variable else {
            return self.counted_iteration("for", body);
        };
        let name = ident.to_string();
        (
            quote!(let mut __loop = __ad::enter_loop(#tape, #name);),
            quote!({
                __loop.iteration({
                    use __ad::{IntegerLoopVariable as _, OtherLoopVariable as _};
                    (&__ad::LoopVariable(&#ident)).loop_value()
                });
                #body
            }),
        )
    }

    /// The same for a `while` or `loop` (or a `for` binding no name): its
    /// iterations counted.
    fn counted_iteration(&self, name: &str, body: TokenStream) -> (TokenStream, TokenStream) {
        let tape = &self.tape;
        (
            quote!(let mut __loop = __ad::enter_loop(#tape, #name);),
            quote!({
                __loop.iteration(::core::option::Option::None);
                #body
            }),
        )
    }

    /// `return value`: the value becomes the function's output.
    pub(super) fn return_(&self, result: Option<&Expr>) -> TokenStream {
        let result = result.map(|result| self.output(result));
        quote!(return #result)
    }

    /// `break 'label value`: the value lifted like any loop result.
    pub(super) fn break_(
        &self,
        loop_label: Option<&syn::Lifetime>,
        result: Option<&Expr>,
    ) -> TokenStream {
        let result = result.map(|result| self.expr(result, Mode::Lift));
        quote!(break #loop_label #result)
    }

    /// `match`, its arms in `mode`. Beside an arm that is certainly
    /// tracked, the others convert to its type, as `if`'s do: `match k { 0
    /// => x, _ => 0 }` is the plain twin's error alone.
    pub(super) fn match_(&self, scrutinee: &Expr, arms: &[Arm], mode: Mode) -> TokenStream {
        let scrutinee = self.scrutinee(scrutinee, arms);
        let certain = |body: &Expr| match &body.kind {
            ExprKind::Block(None, block) => block
                .split_tail()
                .1
                .is_some_and(|tail| self.flow.is_certainly_tracked(tail)),
            _ => self.flow.is_certainly_tracked(body),
        };
        let into = mode == Mode::Lift && arms.iter().any(|arm| certain(&arm.body));
        let arms = arms.iter().map(|arm| {
            let pat = arm.pat.syntax;
            let guard = arm.guard.as_ref().map(|guard| {
                let guard = self.expr(guard, Mode::Value);
                quote!(if #guard)
            });
            let body = match &arm.body.kind {
                ExprKind::Block(None, block) if into => self.arm(block, mode, true),
                _ if into => self.lifted_into(&arm.body, true),
                _ => self.expr(&arm.body, mode),
            };
            quote!(#pat #guard => #body,)
        });
        quote!(match #scrutinee { #(#arms)* })
    }

    pub(super) fn if_(&self, expr: &Expr, mode: Mode) -> TokenStream {
        let ExprKind::If {
            cond,
            then_branch,
            else_branch,
        } = &expr.kind
        else {
            return self.expr(expr, mode);
        };
        let cond = self.condition(cond);
        // Beside an arm that is certainly tracked, the others convert to
        // its type: `if c { x } else { 0 }` is the plain twin's error alone.
        let into = mode == Mode::Lift && self.some_tail_certain(expr);
        let then_branch = self.arm(then_branch, mode, into);
        let else_branch = else_branch.as_deref().map(|else_branch| {
            let else_branch = match &else_branch.kind {
                ExprKind::If { .. } => self.if_(else_branch, mode),
                ExprKind::Block(None, block) => self.arm(block, mode, into),
                _ => self.expr_forced(else_branch, mode),
            };
            quote!(else #else_branch)
        });
        quote!(if #cond #then_branch #else_branch)
    }

    /// An arm of a branch; its tail converted to a tracked sibling's type
    /// when `into`.
    pub(super) fn arm(&self, block: &Block, mode: Mode, into: bool) -> TokenStream {
        match block.split_tail() {
            (stmts, Some(tail)) if into => {
                let stmts = stmts.iter().map(|stmt| self.stmt(stmt));
                let tail = self.lifted_into(tail, true);
                quote!({ #(#stmts)* #tail })
            }
            _ => self.block(block, mode),
        }
    }

    /// Whether an arm of `if` ends in a value that is certainly tracked.
    pub(super) fn some_tail_certain(&self, expr: &Expr) -> bool {
        let certain = |block: &Block| {
            block
                .split_tail()
                .1
                .is_some_and(|tail| self.flow.is_certainly_tracked(tail))
        };
        match &expr.kind {
            ExprKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                certain(then_branch)
                    || else_branch
                        .as_deref()
                        .is_some_and(|else_branch| self.some_tail_certain(else_branch))
            }
            ExprKind::Block(_, block) => certain(block),
            _ => false,
        }
    }

    /// A condition, a range bound, an operand of `&&` or `!`: a value that
    /// is certainly tracked there is read as its primal, an `f64`, so that
    /// `if flag` with `flag: f64` is the plain twin's mismatched types
    /// alone, not also one naming `Scalar`.
    pub(super) fn condition(&self, expr: &Expr) -> TokenStream {
        if self.flow.is_certainly_tracked(expr) {
            self.primal(expr)
        } else {
            self.expr(expr, Mode::Value)
        }
    }

    /// Branch tails are lifted when a tracked value reaches any of them, so
    /// that every arm has the type `Scalar`.
    pub(super) fn branch_mode(&self, expr: &Expr, mode: Mode) -> Mode {
        if mode == Mode::Value && self.tails_touch(expr) {
            Mode::Lift
        } else {
            mode
        }
    }

    pub(super) fn tails_touch(&self, expr: &Expr) -> bool {
        // A value a branch ends in: an inner branch by its own tails, any
        // other by whether its value is tracked, as the flow reads it
        // (`Flow::value_is_tracked`: `{ let b = x.cos(); 0.5 }` reads a
        // tracked name and ends in a plain value).
        let ends = |value: &Expr| match &value.kind {
            ExprKind::If { .. }
            | ExprKind::Block(None, _)
            | ExprKind::Match { .. }
            | ExprKind::Paren(_) => self.tails_touch(value),
            _ => !value.diverges() && self.flow.value_is_tracked(value),
        };
        let block_tail = |block: &Block| block.split_tail().1.is_some_and(ends);
        match &expr.kind {
            ExprKind::If {
                then_branch,
                else_branch,
                ..
            } => {
                block_tail(then_branch)
                    || else_branch
                        .as_deref()
                        .is_some_and(|else_branch| self.tails_touch(else_branch))
            }
            ExprKind::Block(_, block) => block_tail(block),
            ExprKind::Match { arms, .. } => arms.iter().any(|arm| ends(&arm.body)),
            ExprKind::Paren(inner) => ends(inner),
            _ => false,
        }
    }
}
