//! An assignment of a call's value to a tuple of names read as a pattern
//! `let` of fresh names and one assignment per name.

use std::collections::HashSet;

use quote::ToTokens;

use crate::lower::unparen;

/// `item` with each assignment of a call's value to a tuple of names
/// (`(h, c) = cell(w, &h, &c, x);`, an LSTM's state) read as a pattern
/// `let` of fresh names and one assignment per name (`let (h_next,
/// c_next) = cell(..); h = h_next; c = c_next;`), the form the sweeps
/// take a tuple-valued call in (`call_values`); `None` if it has none.
/// Run before the other rewrites, which read that `let`.
pub fn calls_destructured(function: &crate::ast::Function) -> Option<syn::ItemFn> {
    // Looked for on the model, before the function is cloned.
    let has = function.body.any_expr(&|expr| {
        matches!(expr.source, crate::ast::Source::Expr(syntax) if call_to_names(syntax).is_some())
    });
    if !has {
        return None;
    }
    let item = function.item;
    let mut idents = HashSet::new();
    crate::text::identifiers(item.to_token_stream(), &mut idents);
    let mut item = item.clone();
    rewrite(&mut item.block, &mut idents);
    Some(item)
}

fn rewrite(block: &mut syn::Block, idents: &mut HashSet<String>) {
    let stmts = std::mem::take(&mut block.stmts);
    for mut stmt in stmts {
        if let syn::Stmt::Expr(expr, Some(_)) = &stmt {
            if let Some((targets, call)) = call_to_names(expr) {
                let fresh: Vec<syn::Ident> = targets
                    .iter()
                    .map(|target| {
                        let base = target.to_string();
                        super::super::fresh_ident(
                            idents,
                            &format!("{}_next", base.trim_start_matches("r#")),
                        )
                    })
                    .collect();
                let span = targets[0].span();
                block
                    .stmts
                    .push(syn::parse_quote_spanned!(span=> let (#(#fresh,)*) = #call;));
                for (target, fresh) in targets.iter().zip(&fresh) {
                    block
                        .stmts
                        .push(syn::parse_quote_spanned!(span=> #target = #fresh;));
                }
                continue;
            }
        }
        crate::blocks::of_stmt(&mut stmt, &mut |inner| rewrite(inner, idents));
        block.stmts.push(stmt);
    }
}

/// `(a, b) = f(..)`: the distinct names and the call.
fn call_to_names(expr: &syn::Expr) -> Option<(Vec<syn::Ident>, &syn::Expr)> {
    let syn::Expr::Assign(assign) = expr else {
        return None;
    };
    if !assign.attrs.is_empty() {
        return None;
    }
    let (syn::Expr::Tuple(left), call @ (syn::Expr::Call(_) | syn::Expr::MethodCall(_))) =
        (unparen(&assign.left), unparen(&assign.right))
    else {
        return None;
    };
    let targets = left
        .elems
        .iter()
        .map(|target| match target {
            syn::Expr::Path(path) if path.qself.is_none() && path.attrs.is_empty() => {
                path.path.get_ident().cloned()
            }
            _ => None,
        })
        .collect::<Option<Vec<_>>>()?;
    let distinct: HashSet<String> = targets.iter().map(ToString::to_string).collect();
    (targets.len() >= 2 && distinct.len() == targets.len()).then_some((targets, call))
}
