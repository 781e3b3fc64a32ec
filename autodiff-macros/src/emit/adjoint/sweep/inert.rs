//! Which statements have no reverse: a statement with no derivative in
//! it runs as written, unless it writes a tracked binding, jumps, or would
//! move a `Vec` the adjoint still names (`for t in v`, `v.into_iter()`,
//! `drop(v)`).

use super::*;

impl<'m> Sweep<'m> {
    /// Whether evaluating `expr` writes a tracked binding or jumps: what a
    /// value with no derivative of its own must still reverse.
    pub(super) fn effects(&self, expr: &Expr) -> bool {
        expr.any_expr(&|e| match &e.kind {
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                self.root_active(target)
            }
            ExprKind::Reference {
                mutability: Some(_),
                expr: place,
            } => self.root_active(place),
            ExprKind::Structural {
                receiver, method, ..
            }
            | ExprKind::PlainMethod {
                receiver, method, ..
            } => super::super::analysis::mutates(method) && self.root_active(receiver),
            ExprKind::Return(_) | ExprKind::Break { .. } | ExprKind::Continue(_) => true,
            _ => false,
        })
    }

    /// A statement with no derivative in it (nothing carries one, nothing
    /// active is written) runs as written and has no reverse; a `return`,
    /// `break` or `continue` is not compiled yet.
    pub(super) fn inert(&self, expr: &Expr) -> R<bool> {
        // A length (`count += y.len()` of a tracked `y`) reads no value.
        if let ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } = &expr.kind
        {
            if args.is_empty()
                && (*method == "len" || *method == "is_empty")
                && !self.effects(receiver)
            {
                return Ok(true);
            }
        }
        let mut touches = self.active(expr);
        match &expr.kind {
            ExprKind::Return(Some(_)) if self.early => return Ok(false),
            ExprKind::Return(_) => return unsupported("an early `return`", expr),
            ExprKind::Break { .. } | ExprKind::Continue(_) => return Ok(false),
            ExprKind::Assign { target, .. } | ExprKind::CompoundAssign { target, .. } => {
                touches |= self.root_active(target);
            }
            ExprKind::Structural {
                receiver, method, ..
            } if *method == "push" => {
                touches |= self.root_active(receiver);
            }
            // `for t in v` takes a `Vec` by value: run as written it would
            // move `v`, which the adjoint still names after the forward
            // (its adjoint is shaped from it, its items saved). Such a loop
            // is compiled like a tracked one, which walks `v` by reference
            // (`by_value`), or keeps the tape with the reason `for_loop`
            // gives.
            ExprKind::For { iter, .. } => touches |= self.moves_vec(iter),
            _ => {}
        }
        // So do `v.into_iter()` (a `for` over it is compiled as one over
        // `v`) and a function given `v` (`drop(v)`).
        touches |= self.moved_here(expr);
        for child in expr.children() {
            touches |= match child {
                crate::ast::Child::Expr(child) => !self.inert(child)?,
                crate::ast::Child::Block(block) => !self.inert_block(block)?,
            };
        }
        Ok(!touches)
    }

    /// Whether `iter`, what a `for` walks, is a binding of a `Vec` (or of
    /// an array of vectors) that the loop would move: a name with an
    /// index that is neither a slice nor an array.
    pub(super) fn moves_vec(&self, iter: &Expr) -> bool {
        match &iter.kind {
            ExprKind::Paren(inner) => self.moves_vec(inner),
            ExprKind::Path(path) => path.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                !self.an.slices.contains(&name)
                    && !self.an.arrays.contains(&name)
                    && dims_of(iter, &self.an.dims).is_some_and(|dims| dims > 0)
            }),
            _ => false,
        }
    }

    /// Whether `value`, bound or assigned whole, is a `Vec` binding moved
    /// away at the top of a body with no `return`, whose reverse reads the
    /// forward's bindings (a block in a loop or a branch saves what its
    /// reverse reads): the forward sweep copies it (`let w = v;`, `w =
    /// v;`), since the reverse may read `v` again (a loop before over its
    /// items).
    pub(super) fn moved_whole(&self, value: &Expr) -> bool {
        self.depth == 0 && !self.early && self.moves_vec(value.unparenthesised())
    }

    /// Whether `expr` itself takes a `Vec` binding by value, other than
    /// as a `for`'s iterator or whole ([`moved_whole`](Self::moved_whole)):
    /// `v.into_iter()`, `v` given to a function (`drop(v)`). Only at the
    /// top of a body with no `return`, as `moved_whole`.
    pub(super) fn moved_here(&self, expr: &Expr) -> bool {
        if self.depth > 0 || self.early {
            return false;
        }
        match &expr.kind {
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => *method == "into_iter" && args.is_empty() && self.moves_vec(receiver),
            ExprKind::PlainCall { args, .. } | ExprKind::Call { args, .. } => {
                args.iter().any(|arg| self.moves_vec(arg))
            }
            _ => false,
        }
    }

    pub(super) fn inert_block(&self, block: &Block) -> R<bool> {
        let mut inert = true;
        for stmt in &block.stmts {
            inert &= match stmt {
                Stmt::Let { pat, init, .. } => {
                    !pat.names.iter().any(|n| self.an.active.contains(n))
                        && match init {
                            Some(init) => self.inert(init)?,
                            None => true,
                        }
                }
                Stmt::Item(_) => true,
                Stmt::Expr(expr, _) => self.inert(expr)?,
            };
        }
        Ok(inert)
    }
}
