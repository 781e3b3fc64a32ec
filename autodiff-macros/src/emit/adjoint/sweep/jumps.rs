//! `break` and `continue` with a label or a value: each loop a jump
//! leaves records how its iteration ended and its trips.

use super::*;

impl<'m> Sweep<'m> {
    /// A `break` with a value or a label, or a `continue` with a label:
    /// each loop it leaves records how its iteration ended and its trips,
    /// as a `return` does, and the loop it ends or continues how its
    /// iteration ended; so the reverse undoes exactly the iterations, and
    /// the part of each, that ran. A `break`'s value is seeded with the
    /// adjoint of the loop's value.
    pub(super) fn jump(
        &mut self,
        expr: &Expr,
        label: Option<&syn::Lifetime>,
        value: Option<&Expr>,
        semi: Option<TokenStream>,
    ) -> R<(Vec<TokenStream>, Vec<TokenStream>)> {
        let target = match label {
            Some(label) => {
                let name = label.ident.to_string();
                self.jumps.iter().rposition(|jumps| {
                    !jumps.function && jumps.label.as_deref() == Some(name.as_str())
                })
            }
            None => self
                .jumps
                .len()
                .checked_sub(1)
                .filter(|&last| !self.jumps[last].function),
        };
        let Some(target) = target else {
            return unsupported(describe(expr), expr);
        };
        self.cx = StmtCx::default();
        let value = match value {
            Some(value) => {
                let seed = self.jumps[target].seed.clone();
                match &seed {
                    Some(seed) if self.active(value) => self.rev(value, seed.clone())?,
                    _ => {
                        self.inert(value)?;
                    }
                }
                let v = self.fwd(value)?;
                Some(match seed {
                    Some(seed) if self.seeds_output(&seed) => self.output(value, v),
                    // A tracked loop's value on duals: a plain number
                    // lifted (`break 0.5` beside `break x * y`).
                    Some(_) => self.tracked_number(v),
                    None => v,
                })
            }
            None => None,
        };
        let stack = self.stack.clone();
        // Innermost first: each level's branch records, how its iteration
        // ended, and the trips of a loop left for good.
        let mut records = Vec::new();
        for (depth, jumps) in self.jumps.iter_mut().enumerate().skip(target).rev() {
            records.extend(jumps.pending.iter().rev().cloned());
            jumps.next += 1;
            let k = Literal::u32_unsuffixed(jumps.next);
            records.push(jumps.exit_record(&stack, &k, depth == target));
            if depth > target {
                if let Some(trips) = &jumps.trips {
                    records.push(quote!(#stack.push_trips(#trips);));
                }
            }
        }
        let keyword = match expr.kind {
            ExprKind::Continue(_) => quote!(continue),
            _ => quote!(break),
        };
        Ok(self.finish(quote!({ #(#records)* #keyword #label #value #semi })))
    }
}

impl Jumps {
    /// What a jump records as the exit `k` of this level: pushed, or, for
    /// the loop it `ends` whose exit is recorded once (`Jumps::exit`),
    /// set in its exit variable, which the loop pushes as it ends.
    pub(super) fn exit_record(&self, stack: &Ident, k: &Literal, ends: bool) -> TokenStream {
        match &self.exit {
            Some(exit) if ends => quote!(#exit = #k;),
            _ => quote!(#stack.push_arm(#k);),
        }
    }
}
