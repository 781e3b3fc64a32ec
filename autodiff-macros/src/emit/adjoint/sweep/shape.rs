//! The adjoint a `let` starts from: zeros shaped like the value it binds
//! (a number, an array, a `Vec`, a tuple), found from the initialiser, or
//! from what the reverse sweep can still read of it.

use super::*;

impl<'m> Sweep<'m> {
    /// The adjoint's initial value, shaped like the initialiser's value.
    pub(super) fn shape(&self, init: &Expr) -> R<TokenStream> {
        let adjoint = &self.adjoint;
        // `0` of `(0, f64::NEG_INFINITY)`, a `fold`'s index and best value:
        // an integer, which has no adjoint (its uses give `NoAdjoint` too).
        if init.is_int_literal() {
            return Ok(quote!(#adjoint::NoAdjoint));
        }
        if self.scalar(init) {
            return Ok(self.zero());
        }
        Ok(match &init.kind {
            // `dbg!(e)` is `e`, printed.
            ExprKind::Paren(inner) | ExprKind::Dbg { arg: inner, .. } => self.shape(inner)?,
            // `let u: f64 = *v;` of a loop's item: shaped like the item;
            // `*(&x[0])`, what `match x.first() { Some(v) => *v, .. }` is
            // read as, like the place itself.
            ExprKind::Prefix {
                op: syn::UnOp::Deref(_),
                operand,
            } => self.shape(borrowed_place(operand).unwrap_or(operand))?,
            // `let m = &best;` of a binding bound once that nothing writes
            // (what a `max_by` selects): the reference reads that value
            // wherever it is read, so its adjoint is shaped like it. Only
            // where the binding stays in scope for the reverse sweep (at
            // the top level, without an early `return`): a reference is
            // not a number to push.
            ExprKind::Reference {
                mutability: None,
                expr: inner,
            } if self.depth == 0
                && !self.early
                && matches!(inner.kind, ExprKind::Path(_))
                && root(inner).is_some_and(|name| {
                    !self.an.writes.contains_key(&name)
                        && self.an.bound.get(&name).copied() == Some(1)
                }) =>
            {
                self.shape(inner)?
            }
            ExprKind::Repeat { elem, len } => {
                let elem = self.shape(elem)?;
                if !self.all_available(len.to_token_stream()) {
                    return unsupported("an array whose length changes", init);
                }
                quote!([#elem; #len])
            }
            ExprKind::VecRepeat { elem, len } => {
                let elem = self.shape(elem)?;
                if !self.fully_available(len) {
                    return unsupported("a `vec!` whose length changes", init);
                }
                let len = len.source.to_token_stream();
                quote!(::std::vec![#elem; #len])
            }
            ExprKind::Array(items) => {
                let items = items
                    .iter()
                    .map(|item| self.shape(item))
                    .collect::<R<Vec<_>>>()?;
                quote!([#(#items),*])
            }
            ExprKind::VecList(items) => {
                let items = items
                    .iter()
                    .map(|item| self.shape(item))
                    .collect::<R<Vec<_>>>()?;
                quote!(::std::vec![#(#items),*])
            }
            // `(i, x[i])`: a tuple of the components' adjoints.
            ExprKind::Tuple(items) if !items.is_empty() => {
                let items = items
                    .iter()
                    .map(|item| self.shape(item))
                    .collect::<R<Vec<_>>>()?;
                quote!((#(#items,)*))
            }
            ExprKind::Structural { receiver, .. } if is_place(receiver) => self.shape(receiver)?,
            // `[a, b].to_vec()`: a `Vec` shaped like the literal.
            ExprKind::Structural {
                receiver, method, ..
            } if *method == "to_vec" => {
                let shape = self.shape(receiver)?;
                quote!(#shape.to_vec())
            }
            // `&x[..2]`: a view of a slice of numbers, its adjoint a `Vec`
            // as long, added into the slice's at its `let`.
            ExprKind::Reference {
                mutability: None,
                expr: inner,
            } if matches!(&inner.kind, ExprKind::Index { index, .. }
                if matches!(index.kind, ExprKind::Range { .. })) =>
            {
                if !self.fully_available(inner) {
                    return unsupported("a slice whose items or bounds change", init);
                }
                let src = inner.source.to_token_stream();
                quote!(#adjoint::zero(&#src))
            }
            // `&w[i]`, `&row`: a borrowed row, shaped like the row; `&layers[k]`
            // of a model, shaped like that part of the model. (A borrowed
            // number, `&x[k]` of `max_by`, is not one the sweeps save.)
            ExprKind::Reference {
                mutability: None,
                expr: inner,
            } if is_place(inner)
                && (dims_of(inner, &self.an.dims).is_some_and(|dims| dims >= 1)
                    || self.model_part(init)) =>
            {
                self.shape(inner)?
            }
            // `[a, b].concat()`: as long as its parts, which the reverse
            // sweep must still have as they were.
            ExprKind::Structural {
                receiver, method, ..
            } if *method == "concat" => {
                let mut lens = Vec::new();
                for (len, again) in self.concat_lens(init, receiver)? {
                    if !again {
                        return unsupported("`.concat()` of a part whose length changes", init);
                    }
                    lens.push(len);
                }
                quote!(::std::vec![0.0; 0 #(+ #lens)*])
            }
            // A field of a tuple (`let t = pair.0;`); a model's named
            // field is shaped by its value below.
            ExprKind::Path(_)
            | ExprKind::Index { .. }
            | ExprKind::Field {
                member: syn::Member::Unnamed(_),
                ..
            } if self.active(init) => {
                let bar = match self.bar_place(init) {
                    Ok(bar) => bar,
                    // `let tmp = m[p];` of an array's row, where `p` is
                    // gone when the reverse declares `tmp`'s adjoint: any
                    // row's shape is this one's.
                    Err(unsupported) => self.any_row_bar(init).ok_or(unsupported)?,
                };
                quote!(#adjoint::zero_like(&#bar))
            }
            // A model's field (`let width = net.width;`): shaped by the
            // field's value, which a model the body cannot write still
            // holds; an integer's adjoint is then `NoAdjoint`.
            ExprKind::Path(_) | ExprKind::Index { .. } | ExprKind::Field { .. } => {
                if !self.fully_available(init) {
                    return unsupported("a binding whose shape the reverse sweep cannot see", init);
                }
                let src = init.source.to_token_stream();
                quote!(#adjoint::zero(&#src))
            }
            // Shaped like the first arm with a value: one arm may leave
            // (`if c { return z.sqrt(); } else { z.cos() }`).
            // The first arm's value the sweep can shape: the other's where
            // the first ends in a binding of its own.
            // A vector each arm may give with a length of its own (`if c {
            // x[1..].to_vec() } else { x.to_vec() }`): one arm's shape is
            // not the other's.
            ExprKind::If { .. } | ExprKind::Match { .. }
                if dims_of(init, &self.an.dims).is_some_and(|dims| dims > 0)
                    && !arms_are_arrays(init) =>
            {
                return unsupported("a vector chosen by a branch", init);
            }
            ExprKind::If {
                then_branch,
                else_branch,
                ..
            } => match (self.tail_shape(then_branch), else_branch) {
                (Some(Ok(shape)), _) => shape,
                (Some(Err(first)), Some(other)) => self.shape(other).map_err(|_| first)?,
                (Some(Err(first)), None) => return Err(first),
                (None, Some(other)) => self.shape(other)?,
                (None, None) => return unsupported(describe(init), init),
            },
            ExprKind::Block(None, block) => match self.tail_shape(block) {
                Some(shape) => shape?,
                None => return unsupported(describe(init), init),
            },
            // Shaped like any arm's value, as an `if` is like its first.
            ExprKind::Match { arms, .. } if !arms.is_empty() => self.shape(&arms[0].body)?,
            _ if is_scalar(init) => self.zero(),
            _ => return unsupported("a binding whose shape the reverse sweep cannot see", init),
        })
    }
}

impl Sweep<'_> {
    /// The adjoint of `place`'s first row where `place` indexes a binding
    /// whose rows share one shape (`Analysis::fixed_rows`) by an index the
    /// reverse sweep does not have: `m_bar[0]` for `m[p]`, shaped as
    /// `m[p]`'s adjoint is, which only a shape may be read from. `None`
    /// for any other place.
    fn any_row_bar(&self, place: &Expr) -> Option<TokenStream> {
        match &place.kind {
            ExprKind::Path(path) => {
                let name = path.path.get_ident()?.to_string();
                if !self.an.fixed_rows.contains(&name) {
                    return None;
                }
                self.bar_of(&name)
            }
            ExprKind::Index { base, index } if !matches!(index.kind, ExprKind::Range { .. }) => {
                let base = self.any_row_bar(base)?;
                Some(if self.fully_available(index) {
                    let index = index.source.to_token_stream();
                    quote!(#base[#index])
                } else {
                    quote!(#base[0])
                })
            }
            ExprKind::Paren(inner) => self.any_row_bar(inner),
            _ => None,
        }
    }

    /// The shape of `block`'s value, `None` if it has none. A value that
    /// is an array the block binds (`{ let mut out = [0.0; 3]; ..; out }`),
    /// whose adjoint is out of scope where the binding's is declared, is
    /// shaped by its `let`: an array keeps the length it is made with.
    fn tail_shape(&self, block: &Block) -> Option<R<TokenStream>> {
        let tail = block.split_tail().1?;
        Some(self.shape(tail).or_else(|first| match tail_binding(block) {
            Some(init) if array_literal(init) => self.shape(init).map_err(|_| first),
            _ => Err(first),
        }))
    }
}

/// The value of the last `let` of the binding `block`'s value names
/// (`out` of `{ let mut out = [0.0; 3]; ..; out }`), if it is one.
fn tail_binding<'m, 'a>(block: &'m Block<'a>) -> Option<&'m Expr<'a>> {
    let ExprKind::Path(path) = &block.split_tail().1?.kind else {
        return None;
    };
    let name = path.path.get_ident()?.to_string();
    block.stmts.iter().rev().find_map(|stmt| match stmt {
        Stmt::Let {
            name: Some(bound),
            init: Some(init),
            ..
        } if *bound == name => Some(init),
        _ => None,
    })
}

/// An array written out, `[a, b]` or `[e; n]`, whose type fixes its length.
fn array_literal(expr: &Expr) -> bool {
    matches!(
        expr.unparenthesised().kind,
        ExprKind::Array(_) | ExprKind::Repeat { .. }
    )
}

/// The place `&place` borrows (through parentheses), if it is one.
fn borrowed_place<'m, 'a>(expr: &'m Expr<'a>) -> Option<&'m Expr<'a>> {
    match &expr.unparenthesised().kind {
        ExprKind::Reference {
            mutability: None,
            expr: place,
        } if is_place(place) => Some(place),
        _ => None,
    }
}

/// Whether every arm of an `if` or `match` value ends in an array written
/// out (`[a, b]`, `[e; 2]`), whose type fixes one length for all.
fn arms_are_arrays(expr: &Expr) -> bool {
    // A block's value: an array, or a binding its last `let` made one.
    let block_is_array = |block: &Block| {
        block.split_tail().1.is_some_and(array_literal)
            || tail_binding(block).is_some_and(array_literal)
    };
    let tail_is_array = |arm: &Expr| match &arm.kind {
        ExprKind::Block(None, block) => block_is_array(block),
        ExprKind::If { .. } => arms_are_arrays(arm),
        _ => array_literal(arm),
    };
    match &expr.kind {
        ExprKind::If {
            then_branch,
            else_branch,
            ..
        } => block_is_array(then_branch) && else_branch.as_deref().is_some_and(tail_is_array),
        ExprKind::Match { arms, .. } => arms.iter().all(|arm| tail_is_array(&arm.body)),
        _ => false,
    }
}
