//! Walking the tree: an expression's direct children, every statement at
//! any depth, whether any expression satisfies a test, what an expression
//! is at a glance (an integer literal, an empty vector, a jump), and the
//! names a function binds more than once.

use super::{Arm, Block, Expr, ExprKind, Function, Stmt};

/// A direct sub-expression or sub-block.
pub enum Child<'m, 'a> {
    Expr(&'m Expr<'a>),
    Block(&'m Block<'a>),
}

/// A direct sub-expression or sub-block, to change.
pub enum ChildMut<'m, 'a> {
    Expr(&'m mut Expr<'a>),
    Block(&'m mut Block<'a>),
}

/// The direct sub-expressions and sub-blocks of an `ExprKind`, in source
/// order, for [`Expr::children`] and [`Expr::children_mut`] alike: `$kind`
/// is borrowed shared or mutably, `$expr` and `$block` take each child.
macro_rules! for_each_child {
    ($kind:expr, $expr:expr, $block:expr) => {
        match $kind {
            ExprKind::Lit(_)
            | ExprKind::NegLit(_)
            | ExprKind::Path(_)
            | ExprKind::Continue(_)
            | ExprKind::PlainMacro { .. }
            | ExprKind::Invalid => {}
            ExprKind::Binary { lhs, rhs, .. }
            | ExprKind::Compare { lhs, rhs, .. }
            | ExprKind::Logic { lhs, rhs, .. } => {
                $expr(lhs);
                $expr(rhs);
            }
            ExprKind::Neg { operand, .. }
            | ExprKind::Elementary { operand, .. }
            | ExprKind::Prefix { operand, .. } => $expr(operand),
            ExprKind::Powi { base, exponent, .. } => {
                $expr(base);
                $expr(exponent);
            }
            ExprKind::Sum { items, .. } => $expr(items),
            ExprKind::Ternary { operands, .. } => {
                for operand in operands {
                    $expr(operand);
                }
            }
            ExprKind::Dbg { arg, .. } | ExprKind::Closure { body: arg, .. } => $expr(arg),
            ExprKind::Call { args, .. }
            | ExprKind::PlainCall { args, .. }
            | ExprKind::Construct { args, .. }
            | ExprKind::Tuple(args)
            | ExprKind::Array(args)
            | ExprKind::VecList(args) => {
                for arg in args {
                    $expr(arg);
                }
            }
            ExprKind::Structural { receiver, args, .. }
            | ExprKind::PlainMethod { receiver, args, .. } => {
                $expr(receiver);
                for arg in args {
                    $expr(arg);
                }
            }
            ExprKind::Cast { expr: inner, .. }
            | ExprKind::Field { base: inner, .. }
            | ExprKind::Reference { expr: inner, .. }
            | ExprKind::Paren(inner)
            | ExprKind::Repeat { elem: inner, .. } => $expr(inner),
            ExprKind::Index { base, index } => {
                $expr(base);
                $expr(index);
            }
            ExprKind::VecRepeat { elem, len } => {
                $expr(elem);
                $expr(len);
            }
            ExprKind::Range { start, end, .. } => {
                if let Some(start) = start {
                    $expr(start);
                }
                if let Some(end) = end {
                    $expr(end);
                }
            }
            ExprKind::Block(_, inner) | ExprKind::Loop { body: inner, .. } => $block(inner),
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            } => {
                $expr(cond);
                $block(then_branch);
                if let Some(other) = else_branch {
                    $expr(other);
                }
            }
            ExprKind::Let { expr: inner, .. } => $expr(inner),
            ExprKind::Match { scrutinee, arms } => {
                $expr(scrutinee);
                for Arm { guard, body, .. } in arms {
                    if let Some(guard) = guard {
                        $expr(guard);
                    }
                    $expr(body);
                }
            }
            ExprKind::For { iter, body, .. }
            | ExprKind::While {
                cond: iter, body, ..
            } => {
                $expr(iter);
                $block(body);
            }
            ExprKind::Break { value, .. } | ExprKind::Return(value) => {
                if let Some(value) = value {
                    $expr(value);
                }
            }
            ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
                $expr(target);
                $expr(value);
            }
        }
    };
}

impl<'a> Expr<'a> {
    /// Every direct sub-expression and sub-block, in source order.
    pub fn children<'m>(&'m self) -> Vec<Child<'m, 'a>> {
        let mut out = Vec::new();
        let cell = std::cell::RefCell::new(&mut out);
        for_each_child!(
            &self.kind,
            |expr: &'m Expr<'a>| cell.borrow_mut().push(Child::Expr(expr)),
            |block: &'m Block<'a>| cell.borrow_mut().push(Child::Block(block))
        );
        out
    }

    /// [`Expr::children`], to change: for the passes that rewrite the
    /// model after lowering (`lower::by_use`).
    pub fn children_mut<'m>(&'m mut self) -> Vec<ChildMut<'m, 'a>> {
        let mut out = Vec::new();
        let cell = std::cell::RefCell::new(&mut out);
        for_each_child!(
            &mut self.kind,
            |expr: &'m mut Expr<'a>| cell.borrow_mut().push(ChildMut::Expr(expr)),
            |block: &'m mut Block<'a>| cell.borrow_mut().push(ChildMut::Block(block))
        );
        out
    }

    /// An integer literal stays as it is: lifting it would leave rustc
    /// unable to infer its integer type from later uses.
    pub fn is_int_literal(&self) -> bool {
        match &self.kind {
            ExprKind::Lit(lit) => matches!(lit, syn::Lit::Int(_) | syn::Lit::Bool(_)),
            ExprKind::NegLit(unary) => {
                matches!(&*unary.expr, syn::Expr::Lit(lit) if matches!(lit.lit, syn::Lit::Int(_)))
            }
            ExprKind::Paren(inner) => inner.is_int_literal(),
            _ => false,
        }
    }

    /// The expression inside any parentheses (`((x))` is `x`).
    pub fn unparenthesised(&self) -> &Self {
        match &self.kind {
            ExprKind::Paren(inner) => inner.unparenthesised(),
            _ => self,
        }
    }

    /// `Vec::new()`, `Vec::with_capacity(n)`, `vec![]`: the element type
    /// comes from later pushes, which are lifted; lifting the empty vector
    /// itself would leave rustc nothing to infer it from.
    pub fn is_empty_vec(&self) -> bool {
        match &self.kind {
            ExprKind::VecList(items) => items.is_empty(),
            ExprKind::PlainCall { func, .. } => {
                let names: Vec<String> = crate::text::segments(&func.path);
                names.len() == 2
                    && names[0] == "Vec"
                    && (names[1] == "new" || names[1] == "with_capacity")
            }
            ExprKind::Call { func, .. } => {
                let names = crate::text::segments(func);
                names.len() == 2
                    && names[0] == "Vec"
                    && (names[1] == "new" || names[1] == "with_capacity")
            }
            _ => false,
        }
    }

    /// [`Self::is_empty_vec`] with no type written (`Vec::new()`, not
    /// `Vec::<f64>::new()`): its item type is inferred from where it goes,
    /// a tracked row's siblings (`vec![x.to_vec(), Vec::new()]`) or the
    /// `Vec` it is pushed into, so it is left as written there.
    pub fn is_untyped_empty_vec(&self) -> bool {
        let typed = |path: &syn::Path| {
            path.segments
                .iter()
                .any(|segment| !segment.arguments.is_none())
        };
        self.is_empty_vec()
            && match &self.kind {
                ExprKind::PlainCall { func, .. } => !typed(&func.path),
                ExprKind::Call { func, .. } => !typed(func),
                _ => true,
            }
    }

    /// Whether the expression never produces a value (`return`, `break`,
    /// `continue`, a `loop` with no `break`): nothing to lift.
    pub fn diverges(&self) -> bool {
        match &self.kind {
            ExprKind::Return(_)
            | ExprKind::Break { .. }
            | ExprKind::Continue(_)
            | ExprKind::PlainMacro { diverges: true, .. } => true,
            // Left only by `return` (or a jump to an outer loop): no value.
            ExprKind::Loop { body, .. } => {
                !body.any_expr(&|expr| matches!(expr.kind, ExprKind::Break { .. }))
            }
            _ => false,
        }
    }
}

/// Calls `visit` on every statement of `stmts` and of the blocks inside
/// them, outer before inner, in source order.
pub fn each_stmt<'m, 'a>(stmts: &'m [Stmt<'a>], visit: &mut dyn FnMut(&'m Stmt<'a>)) {
    fn in_expr<'m, 'a>(expr: &'m Expr<'a>, visit: &mut dyn FnMut(&'m Stmt<'a>)) {
        for child in expr.children() {
            match child {
                Child::Expr(child) => in_expr(child, visit),
                Child::Block(block) => each_stmt(&block.stmts, visit),
            }
        }
    }
    for stmt in stmts {
        visit(stmt);
        if let Stmt::Let {
            init: Some(expr), ..
        }
        | Stmt::Expr(expr, _) = stmt
        {
            in_expr(expr, visit);
        }
    }
}

impl<'a> Block<'a> {
    /// The statements and the tail expression (the last statement when it
    /// has no semicolon).
    pub fn split_tail(&self) -> (&[Stmt<'a>], Option<&Expr<'a>>) {
        match self.stmts.split_last() {
            Some((Stmt::Expr(tail, None), stmts)) => (stmts, Some(tail)),
            _ => (&self.stmts, None),
        }
    }

    /// Whether any expression in the block, at any depth (nested items
    /// aside), satisfies `found`.
    pub fn any_expr(&self, found: &impl Fn(&Expr<'a>) -> bool) -> bool {
        self.stmts.iter().any(|stmt| stmt.any_expr(found))
    }

    /// How many expressions in the block, at any depth (nested items
    /// aside), satisfy `found`.
    pub fn count_exprs(&self, found: &impl Fn(&Expr<'a>) -> bool) -> usize {
        self.stmts.iter().map(|stmt| stmt.count_exprs(found)).sum()
    }
}

impl<'a> Stmt<'a> {
    /// Whether any expression of the statement (a `let`'s value, the
    /// statement's expression), at any depth (nested items aside),
    /// satisfies `found`.
    pub fn any_expr(&self, found: &impl Fn(&Expr<'a>) -> bool) -> bool {
        match self {
            Stmt::Let { init, .. } => init.as_ref().is_some_and(|init| init.any_expr(found)),
            Stmt::Item(_) => false,
            Stmt::Expr(expr, _) => expr.any_expr(found),
        }
    }

    /// How many expressions of the statement, at any depth (nested items
    /// aside), satisfy `found`.
    pub fn count_exprs(&self, found: &impl Fn(&Expr<'a>) -> bool) -> usize {
        match self {
            Stmt::Let { init, .. } => init.as_ref().map_or(0, |init| init.count_exprs(found)),
            Stmt::Item(_) => 0,
            Stmt::Expr(expr, _) => expr.count_exprs(found),
        }
    }
}

impl<'a> Expr<'a> {
    /// `v.push(item)`: the `Vec` pushed onto (`v`, as written: a name, a
    /// row, a field) and the item.
    pub fn pushed<'m>(&'m self) -> Option<(&'m Expr<'a>, &'m Expr<'a>)> {
        match &self.kind {
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } if *method == "push" => match args.as_slice() {
                [item] => Some((&**receiver, item)),
                _ => None,
            },
            _ => None,
        }
    }

    /// `std::mem::swap(&mut a, &mut b)` (or `core::mem::swap`,
    /// `mem::swap`): the two places it swaps (`a`, `b`), which take each
    /// other's values, tracked or not.
    pub fn swapped<'m>(&'m self) -> Option<(&'m Expr<'a>, &'m Expr<'a>)> {
        let ExprKind::PlainCall { func, args, .. } = &self.kind else {
            return None;
        };
        let path: Vec<String> = crate::text::segments(&func.path);
        let path: Vec<&str> = path.iter().map(String::as_str).collect();
        if !matches!(
            path.as_slice(),
            ["std" | "core", "mem", "swap"] | ["mem", "swap"]
        ) {
            return None;
        }
        let place = |arg: &'m Expr<'a>| match &arg.kind {
            ExprKind::Reference {
                mutability: Some(_),
                expr,
            } => Some(&**expr),
            _ => None,
        };
        match args.as_slice() {
            [a, b] => Some((place(a)?, place(b)?)),
            _ => None,
        }
    }

    /// Whether this expression or one inside it satisfies `found`.
    pub fn any_expr(&self, found: &impl Fn(&Expr<'a>) -> bool) -> bool {
        found(self)
            || self.children().into_iter().any(|child| match child {
                Child::Expr(inner) => inner.any_expr(found),
                Child::Block(block) => block.any_expr(found),
            })
    }

    /// How many of this expression and those inside it satisfy `found`.
    pub fn count_exprs(&self, found: &impl Fn(&Expr<'a>) -> bool) -> usize {
        usize::from(found(self))
            + self
                .children()
                .into_iter()
                .map(|child| match child {
                    Child::Expr(inner) => inner.count_exprs(found),
                    Child::Block(block) => block.count_exprs(found),
                })
                .sum::<usize>()
    }
}

impl Function<'_> {
    /// Whether the function is written to return `f64` (not a vector, nor
    /// an alias such as `-> Real`).
    pub fn returns_f64(&self) -> bool {
        matches!(&self.item.sig.output,
            syn::ReturnType::Type(_, ty) if crate::valid::is_f64(ty))
    }

    /// The names the function binds more than once (by parameters, `let`s,
    /// loops', arms' and closures' patterns): those the compiled adjoint
    /// renames (`shadows`), and those whose uses `lower::by_use` reads up
    /// to their next binding only.
    pub fn bound_again(&self) -> std::collections::HashSet<String> {
        fn block(block: &Block, names: &mut Vec<String>) {
            for stmt in &block.stmts {
                match stmt {
                    Stmt::Let { pat, init, .. } => {
                        names.extend(pat.names.iter().cloned());
                        if let Some(init) = init {
                            expr(init, names);
                        }
                    }
                    Stmt::Expr(inner, _) => expr(inner, names),
                    Stmt::Item(_) => {}
                }
            }
        }
        fn expr(inner: &Expr, names: &mut Vec<String>) {
            match &inner.kind {
                ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } => {
                    names.extend(pat.names.iter().cloned())
                }
                ExprKind::Match { arms, .. } => {
                    for arm in arms {
                        names.extend(arm.pat.names.iter().cloned());
                    }
                }
                ExprKind::Closure { inputs, .. } => {
                    for input in inputs {
                        names.extend(input.names.iter().cloned());
                    }
                }
                _ => {}
            }
            for child in inner.children() {
                match child {
                    Child::Expr(child) => expr(child, names),
                    Child::Block(inner) => block(inner, names),
                }
            }
        }
        let mut names: Vec<String> = self
            .params
            .iter()
            .map(|param| param.ident.to_string())
            .collect();
        block(&self.body, &mut names);
        // Variants and types in patterns (`Some`) are not bindings.
        names.retain(|name| !name.starts_with(|c: char| c.is_ascii_uppercase()));
        let mut seen = std::collections::HashSet::new();
        names
            .into_iter()
            .filter(|name| !seen.insert(name.clone()))
            .collect()
    }
}
