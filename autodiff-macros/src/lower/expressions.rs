//! One expression: its node and label, literals, paths, operators,
//! control flow, closures and the other forms of Rust, each read into its
//! [`ExprKind`] or rejected.

use quote::ToTokens;
use syn::Pat;

use crate::ast::{Arith, Arm, Expr, ExprKind, Label, Reason, Source};
use crate::text::{self, mentions};

use super::statements::pattern;
use super::Lower;

impl<'a> Lower<'a> {
    /// Reads one expression; `name` is the binding that receives its value.
    pub(super) fn expr(&self, expr: &'a syn::Expr, name: Option<&str>) -> Expr<'a> {
        if let Some(one) = self.sin_cos_field(expr) {
            return self.expr(one, name);
        }
        let kind = self.kind(expr, name);
        self.node(Source::Expr(expr), self.texts.first_span(expr), name, kind)
    }

    fn kind(&self, expr: &'a syn::Expr, name: Option<&str>) -> ExprKind<'a> {
        use syn::Expr as E;
        match expr {
            E::Lit(lit) => {
                if let syn::Lit::Float(float) = &lit.lit {
                    if float.suffix() == "f32" {
                        self.reject(lit, Reason::F32);
                    }
                }
                ExprKind::Lit(&lit.lit)
            }
            E::Path(path) => {
                if path.path.is_ident("f32") {
                    self.reject(path, Reason::F32);
                }
                ExprKind::Path(path)
            }
            E::Paren(paren) => ExprKind::Paren(Box::new(self.expr(&paren.expr, name))),
            E::Group(group) => self.kind(&group.expr, name),
            E::Binary(binary) => self.binary(expr, binary, name),
            E::Unary(unary) => match unary.op {
                syn::UnOp::Neg(_) if matches!(&*unary.expr, E::Lit(_)) => ExprKind::NegLit(unary),
                syn::UnOp::Neg(_) => ExprKind::Neg {
                    operand: self.boxed(&unary.expr),
                    label: self.label(name, expr),
                },
                op => ExprKind::Prefix {
                    op,
                    operand: self.boxed(&unary.expr),
                },
            },
            E::MethodCall(call) => self.method(expr, call, name),
            E::Call(call) => self.call(expr, call, name),
            E::Macro(mac) => self.mac(&mac.mac),
            E::Cast(cast) => {
                if mentions(cast.ty.to_token_stream(), "f32") {
                    self.reject(&cast.ty, Reason::F32);
                }
                ExprKind::Cast {
                    expr: self.boxed(&cast.expr),
                    ty: &cast.ty,
                }
            }
            E::Index(index) => ExprKind::Index {
                base: self.boxed(&index.expr),
                index: self.boxed(&index.index),
            },
            E::Field(field) => ExprKind::Field {
                base: self.boxed(&field.base),
                member: &field.member,
            },
            E::Reference(reference) => ExprKind::Reference {
                mutability: reference.mutability,
                expr: self.boxed(&reference.expr),
            },
            E::Tuple(tuple) => ExprKind::Tuple(self.exprs(&tuple.elems)),
            E::Array(array) => ExprKind::Array(self.exprs(&array.elems)),
            E::Repeat(repeat) => ExprKind::Repeat {
                elem: self.boxed(&repeat.expr),
                len: &repeat.len,
            },
            E::Range(range) => ExprKind::Range {
                start: range.start.as_deref().map(|e| self.boxed(e)),
                limits: range.limits,
                end: range.end.as_deref().map(|e| self.boxed(e)),
            },
            E::Block(block) => ExprKind::Block(block.label.as_ref(), self.block(&block.block)),
            E::If(if_) => ExprKind::If {
                cond: self.boxed(&if_.cond),
                then_branch: self.block(&if_.then_branch),
                else_branch: if_
                    .else_branch
                    .as_ref()
                    .map(|(_, else_)| Box::new(self.expr(else_, name))),
            },
            E::Let(let_) => ExprKind::Let {
                pat: pattern(&let_.pat),
                expr: self.boxed(&let_.expr),
            },
            E::Match(match_) => ExprKind::Match {
                scrutinee: self.boxed(&match_.expr),
                arms: match_
                    .arms
                    .iter()
                    .map(|arm| {
                        let (pat, guard) = match &arm.pat {
                            Pat::Guard(guarded) => {
                                (&*guarded.pat, Some(self.expr(&guarded.guard, None)))
                            }
                            pat => (pat, None),
                        };
                        Arm {
                            pat: pattern(pat),
                            guard,
                            body: self.expr(&arm.body, name),
                        }
                    })
                    .collect(),
            },
            E::ForLoop(for_) => ExprKind::For {
                label: for_.label.as_ref(),
                pat: pattern(&for_.pat),
                iter: self.boxed(&for_.expr),
                body: self.block(&for_.body),
            },
            E::While(while_) => ExprKind::While {
                label: while_.label.as_ref(),
                cond: self.boxed(&while_.cond),
                body: self.block(&while_.body),
            },
            E::Loop(loop_) => ExprKind::Loop {
                label: loop_.label.as_ref(),
                body: self.block(&loop_.body),
            },
            E::Break(break_) => ExprKind::Break {
                label: break_.label.as_ref(),
                value: break_.expr.as_deref().map(|e| self.boxed(e)),
            },
            E::Continue(continue_) => ExprKind::Continue(continue_.label.as_ref()),
            E::Return(return_) => ExprKind::Return(return_.expr.as_deref().map(|e| self.boxed(e))),
            E::Assign(assign) => {
                let target = self.texts.expr(&assign.left);
                ExprKind::Assign {
                    target: self.boxed(&assign.left),
                    value: Box::new(self.expr(&assign.right, Some(&target))),
                }
            }
            E::Closure(closure) => ExprKind::Closure {
                syntax: closure,
                inputs: closure.inputs.iter().map(pattern).collect(),
                body: self.boxed(&closure.body),
            },
            E::Unsafe(unsafe_) => self.invalid(unsafe_.unsafe_token, Reason::UnsafeBlock),
            E::Async(async_) => self.invalid(async_.async_token, Reason::AsyncBlock),
            E::Try(try_) => self.invalid(try_.question_token, Reason::Try),
            other => self.invalid(
                other,
                Reason::Expression(text::tokens(other.to_token_stream())),
            ),
        }
    }

    fn binary(
        &self,
        whole: &'a syn::Expr,
        binary: &'a syn::ExprBinary,
        name: Option<&str>,
    ) -> ExprKind<'a> {
        use syn::BinOp as B;
        let arith = |op| ExprKind::Binary {
            op,
            lhs: self.boxed(&binary.left),
            rhs: self.boxed(&binary.right),
            label: self.label(name, whole),
        };
        let compound = |op| {
            let target = self.texts.expr(&binary.left);
            ExprKind::CompoundAssign {
                op,
                target: self.boxed(&binary.left),
                value: self.boxed(&binary.right),
                label: Label {
                    text: target,
                    line: text::line(self.texts.first_span(&binary.left)),
                },
            }
        };
        match binary.op {
            B::Add(_) => arith(Arith::Add),
            B::Sub(_) => arith(Arith::Sub),
            B::Mul(_) => arith(Arith::Mul),
            B::Div(_) => arith(Arith::Div),
            B::Rem(_) => arith(Arith::Rem),
            B::AddAssign(_) => compound(Arith::Add),
            B::SubAssign(_) => compound(Arith::Sub),
            B::MulAssign(_) => compound(Arith::Mul),
            B::DivAssign(_) => compound(Arith::Div),
            B::RemAssign(_) => compound(Arith::Rem),
            B::Eq(_) | B::Lt(_) | B::Le(_) | B::Ne(_) | B::Ge(_) | B::Gt(_) => ExprKind::Compare {
                op: binary.op,
                lhs: self.boxed(&binary.left),
                rhs: self.boxed(&binary.right),
            },
            B::And(_)
            | B::Or(_)
            | B::BitXor(_)
            | B::BitAnd(_)
            | B::BitOr(_)
            | B::Shl(_)
            | B::Shr(_) => ExprKind::Logic {
                op: binary.op,
                lhs: self.boxed(&binary.left),
                rhs: self.boxed(&binary.right),
            },
            _ => self.invalid(
                binary.op,
                Reason::CompoundOperator(text::binary_op(&binary.op)),
            ),
        }
    }
}
