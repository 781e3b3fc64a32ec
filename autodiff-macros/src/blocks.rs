//! The blocks directly inside a statement or an expression: branches,
//! loop bodies, blocks and `match` arms, through parentheses. The passes
//! that rewrite the syntax before lowering (`writes`, `parts`) and the
//! compiled adjoint's rewriters (`chains`, `patterns`, `call_values`) each
//! rewrite a block's statements and recurse through these.

/// Every block directly inside `stmt`.
pub fn of_stmt(stmt: &mut syn::Stmt, visit: &mut dyn FnMut(&mut syn::Block)) {
    match stmt {
        syn::Stmt::Local(local) => {
            if let Some(init) = &mut local.init {
                of_expr(&mut init.expr, visit);
            }
        }
        syn::Stmt::Expr(expr, _) => of_expr(expr, visit),
        _ => {}
    }
}

/// Every block directly inside `expr`.
pub fn of_expr(expr: &mut syn::Expr, visit: &mut dyn FnMut(&mut syn::Block)) {
    use syn::Expr as E;
    match expr {
        E::Block(block) => visit(&mut block.block),
        E::If(if_) => {
            visit(&mut if_.then_branch);
            if let Some((_, other)) = &mut if_.else_branch {
                of_expr(other, visit);
            }
        }
        E::ForLoop(for_) => visit(&mut for_.body),
        E::While(while_) => visit(&mut while_.body),
        E::Loop(loop_) => visit(&mut loop_.body),
        E::Match(match_) => {
            for arm in match_.arms.iter_mut() {
                of_expr(&mut arm.body, visit);
            }
        }
        E::Paren(paren) => of_expr(&mut paren.expr, visit),
        _ => {}
    }
}
