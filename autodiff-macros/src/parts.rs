//! A struct taken apart by a `let`, read as its fields. `let Layer { w, b
//! } = layer;` names the model's type, which the recording twin does not
//! hold (it holds `LayerOnTape`), so both twins read it, before lowering,
//! as `let w = &layer.w; let b = &layer.b;`: what the pattern binds when
//! `layer` is a reference, as the default binding mode binds it.
//!
//! Read so only where the value is `&e`, or a name the function shows to
//! be a reference (a parameter of a reference type, `&self`, a `let` of
//! `&..`, a `for` over `&v` or `v.iter()`, also `enumerate`d or `zip`ped),
//! and every field is bound to
//! one name (`w`, `w: weights`, `..` for the rest); any other `let` (a
//! model by value, a nested pattern) stays as written.

use std::collections::HashSet;

use quote::quote;

/// `item` with its struct `let`s read as field `let`s, or `None` if it has
/// none that can be.
pub fn fields(item: &syn::ItemFn) -> Option<syn::ItemFn> {
    let mut references = HashSet::new();
    for input in &item.sig.inputs {
        if let syn::FnArg::Typed(typed) = input {
            if let syn::Pat::Ident(pat) = &*typed.pat {
                if matches!(&*typed.ty, syn::Type::Reference(_)) {
                    references.insert(pat.ident.to_string());
                }
            }
        }
    }
    let mut reader = Reader {
        references,
        changed: false,
    };
    let mut read = item.clone();
    reader.block(&mut read.block);
    reader.changed.then_some(read)
}

struct Reader {
    /// Names the function shows to hold a reference.
    references: HashSet<String>,
    changed: bool,
}

impl Reader {
    fn block(&mut self, block: &mut syn::Block) {
        let mut stmts = Vec::with_capacity(block.stmts.len());
        for mut stmt in std::mem::take(&mut block.stmts) {
            if let syn::Stmt::Local(local) = &stmt {
                self.note(local);
                if let Some(read) = self.local(local) {
                    stmts.extend(read);
                    self.changed = true;
                    continue;
                }
            }
            match &mut stmt {
                syn::Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        self.expr(&mut init.expr);
                    }
                }
                syn::Stmt::Expr(expr, _) => self.expr(expr),
                syn::Stmt::Item(_) | syn::Stmt::Macro(_) => {}
            }
            stmts.push(stmt);
        }
        block.stmts = stmts;
    }

    /// The blocks `expr` is made of, a `for`'s item over `&model.layers`
    /// or `.iter()` noted as a reference.
    fn expr(&mut self, expr: &mut syn::Expr) {
        if let syn::Expr::ForLoop(each) = expr {
            self.borrowed_items(&each.pat, &each.expr);
        }
        crate::blocks::of_expr(expr, &mut |block| self.block(block));
    }

    /// Notes the names `pat` binds to the items of `iter` that are
    /// references: of `&v` or `v.iter()`, also through `enumerate`
    /// (`(k, layer)`), `zip` and the adaptors that keep the items.
    fn borrowed_items(&mut self, pat: &syn::Pat, iter: &syn::Expr) {
        match (pat, iter) {
            (syn::Pat::Ident(pat), syn::Expr::Reference(r)) if r.mutability.is_none() => {
                self.references.insert(pat.ident.to_string());
            }
            (_, syn::Expr::Paren(inner)) => self.borrowed_items(pat, &inner.expr),
            (syn::Pat::Paren(inner), _) => self.borrowed_items(&inner.pat, iter),
            (_, syn::Expr::MethodCall(call)) => {
                let method = call.method.to_string();
                let pair = match pat {
                    syn::Pat::Tuple(tuple) if tuple.elems.len() == 2 => {
                        Some((&tuple.elems[0], &tuple.elems[1]))
                    }
                    _ => None,
                };
                match (method.as_str(), pair, call.args.first()) {
                    ("iter", _, None) => {
                        if let syn::Pat::Ident(pat) = pat {
                            self.references.insert(pat.ident.to_string());
                        }
                    }
                    ("enumerate", Some((_, item)), None) => {
                        self.borrowed_items(item, &call.receiver);
                    }
                    ("zip", Some((left, right)), Some(other)) => {
                        self.borrowed_items(left, &call.receiver);
                        self.borrowed_items(right, other);
                    }
                    ("rev" | "skip" | "take" | "step_by", _, _) => {
                        self.borrowed_items(pat, &call.receiver);
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// `let name = &..;`: a reference.
    fn note(&mut self, local: &syn::Local) {
        if let (syn::Pat::Ident(pat), Some(init)) = (&local.pat, &local.init) {
            if matches!(&*init.expr, syn::Expr::Reference(r) if r.mutability.is_none()) {
                self.references.insert(pat.ident.to_string());
            }
        }
    }

    /// `let S { a, b: c, .. } = e;` as `let a = &e.a; let c = &e.b;`, if
    /// it can be read so.
    fn local(&self, local: &syn::Local) -> Option<Vec<syn::Stmt>> {
        let syn::Pat::Struct(pattern) = &local.pat else {
            return None;
        };
        let init = local.init.as_ref()?;
        if init.diverge.is_some() || !local.attrs.is_empty() || pattern.qself.is_some() {
            return None;
        }
        let base = match &*init.expr {
            syn::Expr::Reference(reference) if reference.mutability.is_none() => &*reference.expr,
            syn::Expr::Path(path) => {
                let name = path.path.get_ident()?.to_string();
                // (A model by value, `layer: Layer`, is left as written:
                // its fields moved out would leave the generated code
                // nothing to read the model's gradient from.)
                if !self.references.contains(&name) {
                    return None;
                }
                &*init.expr
            }
            _ => return None,
        };
        if !reread(base) {
            return None;
        }
        pattern
            .fields
            .iter()
            .map(|field| {
                let syn::Member::Named(member) = &field.member else {
                    return None;
                };
                let syn::Pat::Ident(bound) = &*field.pat else {
                    return None;
                };
                if bound.by_ref.is_some() || bound.subpat.is_some() {
                    return None;
                }
                // A `mut` binding of a borrowed field would be a `&mut`
                // pattern's: left as written.
                if bound.mutability.is_some() {
                    return None;
                }
                // No parentheses: `base` is a place, a name with fields
                // and indices, to which `.member` binds as written.
                let tokens = quote!(let #bound = &#base.#member;);
                syn::parse2(tokens).ok()
            })
            .collect()
    }
}

/// Whether `expr` reads the same value each time it is written out (a
/// name, a field, an index by a name or a literal).
fn reread(expr: &syn::Expr) -> bool {
    match expr {
        syn::Expr::Path(_) | syn::Expr::Lit(_) => true,
        syn::Expr::Field(field) => reread(&field.base),
        syn::Expr::Index(index) => reread(&index.expr) && reread(&index.index),
        _ => false,
    }
}
