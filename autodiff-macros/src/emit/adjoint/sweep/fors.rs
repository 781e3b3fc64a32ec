//! `for` loops: the items a `for` walks by index (a range, a row, `zip`,
//! `enumerate`, `rev`, `step_by`, a `Vec` taken by value), what the
//! reverse needs saved where the walked values change, and the reverse
//! run over the same indices backwards (`loops` has the trips and exits
//! every loop shares).

use super::loops::mentions;
use super::*;

/// The items a `for` walks by index: `place[index]`, by reference or
/// copied; pairs of items (`zip`); an item with its index (`enumerate`).
enum Items<'e, 'a> {
    /// The items of `place`, from `skip` on (a side of a `zip`,
    /// `x.iter().skip(1)`).
    Place {
        place: &'e Expr<'a>,
        by_ref: bool,
        skip: Option<&'e Expr<'a>>,
    },
    Zip(Box<Items<'e, 'a>>, Box<Items<'e, 'a>>),
    Enumerate(Box<Items<'e, 'a>>),
}

/// What a `for` iterates: items, and the adaptors (`.rev()`,
/// `.step_by(k)`, `.skip(k)`, `.take(k)`) that pick which indices, in
/// order, which the reverse sweep applies to the indices themselves.
struct Elements<'e, 'a> {
    items: Items<'e, 'a>,
    adaptors: Vec<(&'e Ident, &'e [Expr<'a>])>,
    /// An `enumerate` after the adaptors (`x.iter().rev().enumerate()`):
    /// its position counts the trips, which the reverse sweep numbers as
    /// the forward did (`.enumerate()` of the adapted indices).
    counted: bool,
}

impl<'e, 'a> Items<'e, 'a> {
    fn places(&self, out: &mut Vec<&'e Expr<'a>>) {
        match self {
            Items::Place { place, .. } => out.push(place),
            Items::Zip(a, b) => {
                a.places(out);
                b.places(out);
            }
            Items::Enumerate(inner) => inner.places(out),
        }
    }

    /// How many items: the shortest place's length. A place in `saved`
    /// is read from its copy there (see `Sweep::for_loop`).
    fn len(&self, saved: &HashMap<usize, Ident>) -> TokenStream {
        match self {
            Items::Place { place, skip, .. } => {
                let src = place_tokens(place, saved);
                match skip {
                    Some(skip) => {
                        let skip = skip.source.to_token_stream();
                        quote!(#src.len().saturating_sub(#skip))
                    }
                    None => quote!(#src.len()),
                }
            }
            Items::Zip(a, b) => {
                let (a, b) = (a.len(saved), b.len(saved));
                quote!(::core::cmp::min(#a, #b))
            }
            Items::Enumerate(inner) => inner.len(saved),
        }
    }

    /// The item at `index`, as the forward `for` bound it, an
    /// `enumerate`'s position `position`.
    fn item(&self, index: &Ident, position: &Ident, saved: &HashMap<usize, Ident>) -> TokenStream {
        match self {
            Items::Place {
                place,
                by_ref,
                skip,
            } => {
                let src = place_tokens(place, saved);
                let at = at(index, *skip);
                if *by_ref {
                    quote!(&#src[#at])
                } else {
                    quote!(#src[#at])
                }
            }
            Items::Zip(a, b) => {
                let (a, b) = (
                    a.item(index, position, saved),
                    b.item(index, position, saved),
                );
                quote!((#a, #b))
            }
            Items::Enumerate(inner) => {
                let inner = inner.item(index, position, saved);
                quote!((#position, #inner))
            }
        }
    }

    /// The names `pat` binds to places' elements, with those places and
    /// how far past the loop's index each element is (`skip`); `None` for
    /// a pattern this does not take apart.
    fn leaves<'p>(&self, pat: &'p syn::Pat, out: &mut Vec<Leaf<'p, 'e, 'a>>) -> Option<()> {
        match (self, pat) {
            (_, syn::Pat::Wild(_)) => Some(()),
            (_, syn::Pat::Type(typed)) => self.leaves(&typed.pat, out),
            (_, syn::Pat::Paren(paren)) => self.leaves(&paren.pat, out),
            (Items::Place { place, skip, .. }, syn::Pat::Ident(ident))
                if ident.subpat.is_none() =>
            {
                out.push((&ident.ident, place, *skip));
                Some(())
            }
            (Items::Place { .. }, syn::Pat::Reference(reference)) => {
                self.leaves(&reference.pat, out)
            }
            (Items::Zip(a, b), syn::Pat::Tuple(tuple)) if tuple.elems.len() == 2 => {
                a.leaves(&tuple.elems[0], out)?;
                b.leaves(&tuple.elems[1], out)
            }
            (Items::Enumerate(inner), syn::Pat::Tuple(tuple)) if tuple.elems.len() == 2 => {
                inner.leaves(&tuple.elems[1], out)
            }
            _ => None,
        }
    }
}

/// A name a `for` pattern binds to an element of a place, at the loop's
/// index plus the skip.
type Leaf<'p, 'e, 'a> = (&'p Ident, &'e Expr<'a>, Option<&'e Expr<'a>>);

/// `index`, or `index + skip`.
fn at(index: &Ident, skip: Option<&Expr>) -> TokenStream {
    match skip {
        Some(skip) => {
            let skip = skip.source.to_token_stream();
            quote!(#index + (#skip))
        }
        None => quote!(#index),
    }
}

impl<'m> Sweep<'m> {
    pub(super) fn for_loop(
        &mut self,
        whole: &Expr,
        label: Option<&syn::Label>,
        pat: &crate::ast::Pattern,
        iter: &Expr,
        body: &Block,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let syntax = pat.syntax;
        let iter_src = iter.source.to_token_stream();
        // A loop that may stop early pushes how many trips it made.
        let stack = self.stack.clone();
        let trips = self.trips_ident();
        let counted = contains_jump(body);
        let counter = counted.then(|| trips.clone());
        let (count_init, count_step, count_push, take) = if counted {
            (
                quote!(let mut #trips: usize = 0;),
                quote!(#trips += 1;),
                quote!(#stack.push_trips(#trips);),
                quote!(.take(#stack.pop_trips())),
            )
        } else {
            (quote!(), quote!(), quote!(), quote!())
        };
        if range_like(iter) {
            if let Some(swapped) = self.swapped_inner(pat, iter, body) {
                return swapped; // The inner loop of an `Interchange`.
            }
            let iter_src = half_open(iter).unwrap_or(iter_src);
            // A range whose bounds change before the reverse sweep (`0..h.len()`
            // where `h = next` ends each layer) is kept as the forward made it.
            let (keep, iter_src, popped_range) = if self.bounds_available(iter) {
                (None, iter_src.clone(), None)
            } else {
                let (keep, pop, range) = self.range_site(&iter_src);
                (Some(keep), range.to_token_stream(), Some(pop))
            };
            // Rows the reverse indexes by this loop's index, borrowed once.
            let rows = if keep.is_none() {
                self.loop_rows(pat, iter, body)
            } else {
                None
            };
            let borrows = rows.is_some();
            self.rows.extend(rows);
            // Rows its inner loops borrow that stay the same at every trip.
            let lifted = if keep.is_none() {
                self.lifted_rows(pat, iter, body)
            } else {
                Vec::new()
            };
            let lifts = lifted.len();
            self.rows.extend(lifted);
            // Numbers the body reads and never changes, saved once; a
            // loop of its body whose reverse is swapped with its own.
            let (held, swaps) = match keep {
                None => (self.loop_held(pat, body), self.interchange(pat, iter, body)),
                Some(_) => (Vec::new(), false),
            };
            self.depth += 1;
            self.scopes.push(Scope::default());
            let names = pat.names.clone();
            self.scope().available.extend(names);
            let held_names = held.iter().map(held::Held::name);
            self.scope().available.extend(held_names);
            let code = self.loop_body_at(body, level(label, counter.clone()));
            self.scopes.pop();
            self.depth -= 1;
            let lifted = self.rows.split_off(self.rows.len() - lifts);
            let rows = if borrows { self.rows.pop() } else { None };
            let swap = if swaps { self.interchanges.pop() } else { None };
            let (fwd, rev, exit) = code?;
            let (declare, record) = self.exit_forward(exit.as_ref());
            let (popped, take) = self.take_trips(exit.as_ref(), &trips, take);
            let reverse = quote!(for #syntax in (#iter_src)#take.rev() { #(#rev)* });
            let reverse = self.swapped(swap, reverse);
            let (held_pushes, held_pops, given_back) = self.held_code(&held, iter, &reverse);
            let reverse = match rows {
                Some(rows) => self.borrowing_rows(rows, iter, reverse),
                None => reverse,
            };
            let reverse = self.borrowing_lifted(lifted, iter, reverse);
            let reverse = if held_pops.is_empty() {
                quote!(#popped_range #popped #reverse)
            } else {
                quote!({ #(#held_pops)* #popped_range #popped #reverse #(#given_back)* })
            };
            return Ok((
                vec![quote! {
                    #count_init
                    #declare
                    #keep
                    #label for #syntax in #iter_src { #count_step #(#fwd)* }
                    #record
                    #count_push
                    #(#held_pushes)*
                }],
                vec![reverse],
            ));
        }
        let Some(Elements {
            items,
            adaptors,
            counted,
        }) = self.elements(iter)
        else {
            return unsupported(format!("a `for` over {}", describe(iter)), whole);
        };
        let iter_src = self.borrowing_source(iter);
        let mut places = Vec::new();
        items.places(&mut places);
        // A local of numbers that changes before the reverse sweep (bound
        // again by each trip of a loop around, or written later): its items
        // are pushed after the loop, which borrows it unchanged, with their
        // count, and the reverse walks the popped copy.
        let mut saved = HashMap::new();
        let mut save_fwd = Vec::new();
        let mut save_rev = Vec::new();
        for place in &places {
            if self.fully_available(place) {
                continue;
            }
            // The local itself, or all of it (`&v[..]`): the copy stands
            // for either.
            let whole_local = |expr: &Expr| match &expr.kind {
                ExprKind::Path(path) => path.path.get_ident().cloned(),
                _ => None,
            };
            let name = match &place.kind {
                ExprKind::Index { base, index } => match &index.kind {
                    ExprKind::Range {
                        start: None,
                        end: None,
                        ..
                    } => whole_local(base),
                    _ => None,
                },
                _ => whole_local(place),
            };
            let name = name.as_ref();
            let numbers = dims_of(place, &self.an.dims) == Some(1)
                || name.is_some_and(|name| self.an.dims.get(&name.to_string()) == Some(&Some(1)));
            // A `return` or a labelled jump would leave before the pushes
            // that the reverse of the statement it leaves pops.
            let stays = !body.any_expr(&|expr| match &expr.kind {
                ExprKind::Return(_) => true,
                ExprKind::Break { label, .. } => label.is_some(),
                ExprKind::Continue(label) => label.is_some(),
                _ => false,
            });
            let (Some(name), true, true) = (name, numbers, stays) else {
                return unsupported("a `for` over values that change", whole);
            };
            let copy = Ident::new(&format!("{}_items", name.unraw()), Span::mixed_site());
            let (stack, adjoint) = (&self.stack, &self.adjoint);
            let (spread, number) = if self.dual {
                (quote!(DualSpread), quote!(::autodiff::Dual))
            } else {
                (quote!(Spread), quote!(f64))
            };
            save_fwd.push(quote! {
                #adjoint::#spread::push_all(&#name[..], #stack);
                #stack.push_index(#name.len());
            });
            save_rev.push(quote! {
                let #copy: ::std::vec::Vec<#number> = {
                    let count = #stack.pop_index();
                    #stack.pop_run(count).collect()
                };
            });
            saved.insert(place.id, copy);
        }
        save_rev.reverse();
        if !adaptors
            .iter()
            .all(|(_, args)| args.iter().all(|arg| self.fully_available(arg)))
        {
            return unsupported("a `for` over indices that change", whole);
        }
        let mut leaves = Vec::new();
        if items.leaves(pat.syntax, &mut leaves).is_none() {
            // A pattern taking apart items with no derivative (`for (x, y)
            // in data` of `#[constant]` pairs): its names carry none
            // either, so no element has an adjoint to spread.
            let plain = pat.names.iter().all(|name| !self.an.active.contains(name))
                && places.iter().all(|place| !self.active(place));
            if !plain {
                return unsupported("a `for` pattern", whole);
            }
            leaves.clear();
        }
        let index = Ident::new("index", Span::mixed_site());
        let adjoint = self.adjoint.clone();
        // Each element with a derivative gets its adjoint, added into the
        // place's at the end of the reversed iteration.
        let mut spreads = Vec::new();
        for (_, place, _) in &leaves {
            spreads.push(if self.active(place) {
                Some(self.bar_place(place)?)
            } else {
                None
            });
        }
        self.depth += 1;
        self.scopes.push(Scope::default());
        let names = pat.names.clone();
        self.scope().available.extend(names);
        let mut declare = Vec::new();
        let mut spread = Vec::new();
        // A model taken from a model's field (`for layer in &self.layers`)
        // whose body reads the model only through it: its adjoint is the
        // field's item itself, borrowed for the trip, not one of its own
        // zeroed and added in after.
        let lone = leaves.len() == 1;
        for ((element, place, skip), place_bar) in leaves.iter().zip(&spreads) {
            let at = at(&index, *skip);
            let name = element.to_string();
            if !self.an.active.contains(&name) {
                continue;
            }
            let bar = self.bind(&name);
            // So is a row of numbers (`for c in centers` of `&[Vec<f64>]`):
            // no zeros allocated per trip, nor added in after.
            let row = dims_of(place, &self.an.dims).is_some_and(|d| d > 1);
            let borrowed = lone
                && (self.an.models.contains(&name) || row)
                && self.an.bound.get(&name).copied() == Some(1)
                && root(place).is_some_and(|model| !mentions(body, &model));
            match place_bar {
                Some(place_bar) if borrowed => {
                    declare.push(quote!(let #bar = &mut #place_bar[#at];));
                    if let Some(last) = self.scope().bars.last_mut() {
                        last.1 = quote!((*#bar));
                    }
                }
                Some(place_bar) => {
                    declare.push(quote!(let mut #bar = #adjoint::zero_like(&#place_bar[#at]);));
                    spread.push(quote!(#adjoint::accumulate(&mut #place_bar[#at], &#bar);));
                }
                // An item of data with no derivative whose name binds
                // tracked items elsewhere (`for v in w.iter() {..} for v in
                // c.iter() {..}`, `c` a `#[constant]`): its adjoint is
                // never added anywhere, but has the type of what is added
                // into it, duals in the dual sweep.
                None => {
                    let src = place_tokens(place, &saved);
                    let zero = if self.dual {
                        quote!(dual_zero)
                    } else {
                        quote!(zero)
                    };
                    declare.push(quote!(let mut #bar = #adjoint::#zero(&#src[#at]);));
                }
            }
        }
        let code = self.loop_body_at(body, level(label, counter.clone()));
        self.scopes.pop();
        self.depth -= 1;
        let (fwd, rev, exit) = code?;
        let (exit_declare, record) = self.exit_forward(exit.as_ref());
        let (popped, take) = self.take_trips(exit.as_ref(), &trips, take);
        let len = items.len(&saved);
        // The trips numbered as the forward's `enumerate` numbered them,
        // where it comes after the adaptors.
        let position = if counted {
            Ident::new("position", Span::mixed_site())
        } else {
            index.clone()
        };
        let element_value = items.item(&index, &position, &saved);
        // `(0..n).rev().rev()` is `0..n`.
        let mut adaptors = adaptors;
        let mut reverse = quote!(.rev());
        if !counted
            && take.is_empty()
            && adaptors.last().is_some_and(|(method, _)| *method == "rev")
        {
            adaptors.pop();
            reverse = quote!();
        }
        let mut adaptors: Vec<TokenStream> = adaptors
            .iter()
            .map(|(method, args)| {
                let args = args.iter().map(|arg| arg.source.to_token_stream());
                quote!(.#method(#(#args),*))
            })
            .collect();
        let walked = if counted {
            adaptors.push(quote!(.enumerate()));
            quote!((#position, #index))
        } else {
            quote!(#index)
        };
        Ok((
            vec![quote! {
                #count_init
                #exit_declare
                #label for #syntax in #iter_src { #count_step #(#fwd)* }
                #record
                #count_push
                #(#save_fwd)*
            }],
            vec![quote! {
                #(#save_rev)*
                #popped
                for #walked in (0..#len)#(#adaptors)*#take #reverse {
                    #[allow(unused_variables)]
                    let #syntax = #element_value;
                    #(#declare)*
                    #(#rev)*
                    #(#spread)*
                }
            }],
        ))
    }

    /// Whether `iter` is a binding of numbers (a `Vec` or an array, not a
    /// slice parameter) that a `for` takes by value (`for s in squares`):
    /// the forward walks `squares.iter().copied()` instead, the same
    /// numbers in the same order, so that the `Vec` is still there for the
    /// reverse sweep (the body can no longer name it either way).
    pub(super) fn by_value(&self, iter: &Expr) -> bool {
        match &iter.kind {
            ExprKind::Path(path) => path.path.get_ident().is_some_and(|ident| {
                let name = ident.to_string();
                (!self.an.slices.contains(&name)
                    && !self.an.arrays.contains(&name)
                    && !self.an.references.contains(&name)
                    && dims_of(iter, &self.an.dims) == Some(1))
                    || self.an.plain_items.contains(&name)
            }),
            _ => false,
        }
    }

    /// The forward sweep's iterator for the items of `elements`: as
    /// written, except that a local `Vec` of numbers taken by value (`for v
    /// in squares`, `w.iter().zip(v)`) is walked as `v.iter().copied()`, so
    /// that the loop leaves it for the reverse sweep, which reads its items
    /// again by index (the same copies).
    fn borrowing_source(&self, iter: &Expr) -> TokenStream {
        match &iter.kind {
            ExprKind::Path(_) if self.by_value(iter) => {
                let source = iter.source.to_token_stream();
                quote!(#source.iter().copied())
            }
            ExprKind::Paren(inner) => {
                let inner = self.borrowing_source(inner);
                quote!((#inner))
            }
            // `v.into_iter()` of a `Vec` by value: as `for t in v`.
            ExprKind::Structural {
                receiver, method, ..
            } if *method == "into_iter" && self.by_value(receiver) => {
                let source = receiver.source.to_token_stream();
                quote!(#source.iter().copied())
            }
            ExprKind::Structural {
                receiver,
                method,
                turbofish,
                args,
            } => {
                // `v.iter()` borrows already: only a receiver that is an
                // iterator itself (`v.iter().zip(u)`) is looked into.
                let receiver = match receiver.kind {
                    ExprKind::Path(_) => receiver.source.to_token_stream(),
                    _ => self.borrowing_source(receiver),
                };
                let args = args.iter().map(|arg| {
                    if *method == "zip" {
                        self.borrowing_source(arg)
                    } else {
                        arg.source.to_token_stream()
                    }
                });
                quote!(#receiver.#method #turbofish(#(#args),*))
            }
            _ => iter.source.to_token_stream(),
        }
    }

    /// What a `for` iterates, when it is the items of places walked by
    /// index.
    fn elements<'e, 'a>(&self, iter: &'e Expr<'a>) -> Option<Elements<'e, 'a>> {
        let place = |place, by_ref| {
            Some(Elements {
                items: Items::Place {
                    place,
                    by_ref,
                    skip: None,
                },
                adaptors: Vec::new(),
                counted: false,
            })
        };
        match &iter.kind {
            ExprKind::Path(path) => {
                let name = path.path.get_ident()?.to_string();
                // A reference to a row (`for x in xs`, `let x = &xs[i]`):
                // walked as `x.iter()` is.
                if self.an.references.contains(&name) {
                    return place(iter, true);
                }
                if !self.an.slices.contains(&name) && !self.an.arrays.contains(&name) {
                    // A local `Vec` (or array) of numbers by value: its
                    // items, copied (see `by_value`).
                    return self.by_value(iter).then(|| Elements {
                        items: Items::Place {
                            place: iter,
                            by_ref: false,
                            skip: None,
                        },
                        adaptors: Vec::new(),
                        counted: false,
                    });
                }
                // A slice's items are references; an array's or a `Vec`'s
                // of numbers are copies (of anything else: references).
                let by_ref =
                    self.an.slices.contains(&name) || dims_of(iter, &self.an.dims) != Some(1);
                place(iter, by_ref)
            }
            ExprKind::Paren(inner) => self.elements(inner),
            ExprKind::Reference {
                mutability: None,
                expr,
            } if is_place(expr) => place(expr, true),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => {
                let method_name = method.to_string();
                match (method_name.as_str(), args.as_slice()) {
                    ("iter", []) if is_place(receiver) => place(receiver, true),
                    // `x.into_iter()`: the items `for v in x` walks (a
                    // `Vec` by value, copied; a slice's, references).
                    ("into_iter", []) if matches!(receiver.kind, ExprKind::Path(_)) => {
                        self.elements(receiver)
                    }
                    ("copied" | "cloned", []) => {
                        let mut inner = self.elements(receiver)?;
                        match &mut inner.items {
                            Items::Place { by_ref, .. } if *by_ref => *by_ref = false,
                            _ => return None,
                        }
                        Some(inner)
                    }
                    // The position is the index while no adaptor has
                    // picked indices yet, else the trip's number
                    // (`counted`).
                    ("enumerate", []) => {
                        let inner = self.elements(receiver)?;
                        (!inner.counted && !matches!(inner.items, Items::Enumerate(_))).then(|| {
                            Elements {
                                items: Items::Enumerate(Box::new(inner.items)),
                                counted: !inner.adaptors.is_empty(),
                                adaptors: inner.adaptors,
                            }
                        })
                    }
                    ("zip", [other]) => {
                        let inner = self.skipped(self.elements(receiver)?);
                        let other = self.skipped(self.elements(other)?);
                        (inner.adaptors.is_empty() && other.adaptors.is_empty()).then(|| Elements {
                            items: Items::Zip(Box::new(inner.items), Box::new(other.items)),
                            adaptors: Vec::new(),
                            counted: false,
                        })
                    }
                    // (An adaptor after a counted `enumerate` would pick
                    // among numbered trips: not read.)
                    ("rev", []) | ("step_by" | "skip" | "take", [_]) => {
                        let mut inner = self.elements(receiver)?;
                        if inner.counted {
                            return None;
                        }
                        inner.adaptors.push((method, args.as_slice()));
                        Some(inner)
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A side of a `zip` that skips its first items (`x.iter().skip(1)`):
    /// its place read from the skip on, the sides' indices then differing
    /// by it (`Items::Place::skip`). Any other is as it was.
    fn skipped<'e, 'a>(&self, elements: Elements<'e, 'a>) -> Elements<'e, 'a> {
        match (&elements.items, elements.adaptors.as_slice()) {
            (
                Items::Place {
                    place,
                    by_ref,
                    skip: None,
                },
                [(method, [k])],
            ) if *method == "skip" && !elements.counted && self.fully_available(k) => Elements {
                items: Items::Place {
                    place,
                    by_ref: *by_ref,
                    skip: Some(k),
                },
                adaptors: Vec::new(),
                counted: false,
            },
            _ => elements,
        }
    }

    /// The tracked places an expression reads (for the finiteness check of
    /// a branch condition).
    pub(super) fn active_places(&self, expr: &Expr) -> Vec<TokenStream> {
        let mut out = Vec::new();
        self.collect_places(expr, &mut out);
        out
    }

    /// The checks of the tracked places a condition reads, each where the
    /// condition reads it: the right side of `&&` only when the left side
    /// holds, of `||` only when it does not (`while j > 0 && v[j - 1] >
    /// v[j]` reads `v[j - 1]` only for `j > 0`, and checking it at `j = 0`
    /// would index out of bounds). A left side that may write (`v.pop()`)
    /// is not evaluated twice: such a condition keeps the tape.
    pub(super) fn condition_observes(&self, cond: &Expr) -> R<Vec<TokenStream>> {
        let stack = &self.stack;
        match &cond.kind {
            ExprKind::Paren(inner) => self.condition_observes(inner),
            ExprKind::Prefix {
                op: syn::UnOp::Not(_),
                operand,
            } => self.condition_observes(operand),
            ExprKind::Logic {
                op: op @ (syn::BinOp::And(_) | syn::BinOp::Or(_)),
                lhs,
                rhs,
            } => {
                let mut out = self.condition_observes(lhs)?;
                let right = self.condition_observes(rhs)?;
                if !right.is_empty() {
                    out.push(self.when(lhs, matches!(op, syn::BinOp::And(_)), &right)?);
                }
                Ok(out)
            }
            _ => Ok(self
                .active_places(cond)
                .into_iter()
                .map(|place| quote!(#stack.observe(#place);))
                .collect()),
        }
    }

    /// `checks` run only where `cond` is `holds`: `if c { .. }` or `if
    /// !(c) { .. }`, `c` evaluated again, so it must not write.
    pub(super) fn when(&self, cond: &Expr, holds: bool, checks: &[TokenStream]) -> R<TokenStream> {
        if !reevaluable(cond) {
            return unsupported("a condition that writes before a tracked comparison", cond);
        }
        let c = cond.source.to_token_stream();
        Ok(if holds {
            quote!(if #c { #(#checks)* })
        } else {
            quote!(if !(#c) { #(#checks)* })
        })
    }

    /// Whether `name` is a parameter of numbers (not a model) that no
    /// statement writes or binds again: its value was observed before
    /// the forward sweep ran and is the same everywhere.
    fn observed_at_entry(&self, name: &str) -> bool {
        self.an.params.contains(name)
            && !self.an.models.contains(name)
            && !self.an.top_lets.contains_key(name)
            && !self.an.pushed.contains(name)
            && self.an.stable(name, 0)
    }

    pub(super) fn collect_places(&self, expr: &Expr, out: &mut Vec<TokenStream>) {
        match &expr.kind {
            // A running extreme (`if d < best`): see `unobserved`.
            ExprKind::Path(path)
                if path
                    .path
                    .get_ident()
                    .is_some_and(|ident| self.unobserved.contains(&ident.to_string())) => {}
            // An item of a parameter of numbers that the body never
            // writes: the whole parameter was observed before the forward
            // sweep (see `adjoint::compile`'s early checks).
            ExprKind::Path(_) | ExprKind::Index { .. }
                if crate::flow::root(expr).is_some_and(|name| self.observed_at_entry(&name)) => {}
            // A running extreme kept in a tuple (`if d < best.1`): its
            // compared field, see `extremes` and `unobserved`.
            ExprKind::Field {
                base,
                member: syn::Member::Unnamed(index),
            } if matches!(&base.kind, ExprKind::Path(path) if path.path.get_ident().is_some_and(|ident| {
                self.unobserved.contains(&format!("{ident}.{}", index.index))
            })) => {}
            // A whole array or `Vec` (`if a == b`) by reference: observing
            // it must not move it.
            ExprKind::Path(_) | ExprKind::Index { .. } if self.active(expr) => {
                let place = expr.source.to_token_stream();
                out.push(if self.scalar(expr) {
                    place
                } else {
                    quote!(&#place)
                });
            }
            // A field (`if m.layers[k].relu`, `m.scale > 0.0`): itself, by
            // reference, whatever its type (a `bool` is always finite), not
            // the struct it is read from, which observing by value would
            // move and which may be a whole layer.
            ExprKind::Field { .. } if is_place(expr) && self.active(expr) => {
                let place = expr.source.to_token_stream();
                out.push(quote!(&(#place)));
            }
            // Its names are its own (`all(|v| *v > 0.0)`), bound as it runs.
            ExprKind::Closure { .. } => {}
            // `self.act == Act::Relu`: an enum, no number to check.
            ExprKind::Compare { lhs, rhs, .. } if lhs.is_variant() || rhs.is_variant() => {}
            // A length, a count or a truth value (`v.len()`, `v.iter().all(..)`)
            // reads no number the tape would check.
            _ if super::super::analysis::is_count(expr) => {}
            _ => {
                for child in expr.children() {
                    if let crate::ast::Child::Expr(child) = child {
                        self.collect_places(child, out);
                    }
                }
            }
        }
    }
}

/// Whether evaluating `expr` again gives the same value and changes
/// nothing: no assignment, no method that writes its receiver or
/// advances an iterator, no `&mut`, no annotated call, no macro but
/// `matches!`.
fn reevaluable(expr: &Expr) -> bool {
    let writes = match &expr.kind {
        ExprKind::Assign { .. }
        | ExprKind::CompoundAssign { .. }
        | ExprKind::Call { .. }
        | ExprKind::Dbg { .. }
        | ExprKind::Let { .. } => true,
        ExprKind::Reference { mutability, .. } => mutability.is_some(),
        ExprKind::PlainMacro { mac, .. } => !mac.path.is_ident("matches"),
        // What changes its receiver (`analysis::mutates`, and the list the
        // rewriters read, `call_values::CHANGING`), or advances an iterator.
        ExprKind::Structural { method, .. } | ExprKind::PlainMethod { method, .. } => {
            let name = method.to_string();
            super::super::analysis::mutates(method)
                || super::super::call_values::CHANGING.contains(&name.as_str())
                || matches!(name.as_str(), "next_back" | "nth")
        }
        _ => false,
    };
    !writes
        && expr.children().into_iter().all(|child| match child {
            crate::ast::Child::Expr(child) => reevaluable(child),
            crate::ast::Child::Block(_) => false,
        })
}
