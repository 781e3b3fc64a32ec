//! Which bindings can hold a tracked value.
//!
//! A proc macro sees no types, but it sees names. A binding can hold a
//! `Scalar` only if a differentiable parameter reaches it by name: through a
//! `let`, an assignment, a `for` or `match` pattern, or a `push`. This pass
//! collects those names, to a fixpoint because loops carry values backwards.
//! The emitter rewrites only what such a name reaches, so integer and
//! constant arithmetic stays exactly as written.
//!
//! Names ignore scopes: a name tracked anywhere is tracked everywhere. That
//! may call a plain value tracked (a shadowed name), which costs a constant
//! node at most, because the generated calls dispatch on types. It never
//! calls a tracked value plain: every `Scalar` starts from a tracked name.

use std::collections::{HashMap, HashSet};

use crate::ast::{Arith, Block, Child, Expr, ExprKind, Function, Pattern, Stmt};

pub struct Flow {
    names: HashSet<String>,
    /// Names that hold a tracked value wherever they are bound: lifting
    /// them again would only add noise to the expansion.
    certain: HashSet<String>,
    /// By `Expr::id`: whether the expression must be rewritten, because it
    /// reads a tracked name, binds one, or returns (a `return` in the
    /// recording twin returns a `Result`).
    touched: Vec<bool>,
    /// By `Expr::id`: the loops (and labelled blocks) one of whose
    /// `break`s carries a tracked value. Their every `break value` is
    /// rewritten, so that a constant one is lifted to the same type.
    loops: HashSet<usize>,
}

/// What the items of an iterator may hold: nothing tracked (an
/// `enumerate`'s index, a range's number), maybe a tracked value, or a
/// pair of these (`enumerate`).
enum Item {
    Plain,
    Maybe,
    Pair(Box<Item>, Box<Item>),
}

impl Item {
    fn of(touched: bool) -> Item {
        if touched {
            Item::Maybe
        } else {
            Item::Plain
        }
    }
}

/// How one binding of a name gets its value.
enum Binding<'m, 'a> {
    /// Always a `Scalar` (or an array or vector of them): a differentiable
    /// parameter, or a tracked `let mut`, which is lifted.
    Tracked,
    /// Whatever the initialiser is.
    Init(&'m Expr<'a>),
    /// Unknown: a pattern, a pass-through parameter, a loop variable.
    Unknown,
}

impl Flow {
    pub fn analyse(function: &Function) -> Flow {
        let mut flow = Flow {
            names: function
                .params
                .iter()
                .filter(|param| param.kind.is_differentiable())
                .map(|param| param.ident.to_string())
                .collect(),
            certain: HashSet::new(),
            touched: Vec::new(),
            loops: HashSet::new(),
        };
        // Each round walks the body once, finding what every expression
        // touches bottom-up; the last round (which finds no new name) leaves
        // `touched` right for the final set of names.
        loop {
            let mut walk = Walk {
                names: &flow.names,
                found: Vec::new(),
                touched: vec![false; function.exprs],
                loops: &flow.loops,
                found_loops: Vec::new(),
                enclosing: Vec::new(),
            };
            walk.block(&function.body);
            let Walk {
                found,
                touched,
                found_loops,
                ..
            } = walk;
            flow.touched = touched;
            let before = (flow.names.len(), flow.loops.len());
            flow.names.extend(found);
            flow.loops.extend(found_loops);
            if (flow.names.len(), flow.loops.len()) == before {
                break;
            }
        }
        flow.certain = flow.certain_names(function);
        flow
    }

    fn certain_names(&self, function: &Function) -> HashSet<String> {
        let mut bindings: HashMap<String, Vec<Binding<'_, '_>>> = HashMap::new();
        for param in &function.params {
            let binding = if param.kind.is_differentiable() {
                Binding::Tracked
            } else {
                Binding::Unknown
            };
            bindings
                .entry(param.ident.to_string())
                .or_default()
                .push(binding);
        }
        collect_bindings(&function.body, self, &mut bindings);
        let mut certain = HashSet::new();
        loop {
            let before = certain.len();
            for (name, list) in &bindings {
                let all = list.iter().all(|binding| match binding {
                    Binding::Tracked => true,
                    Binding::Init(init) => certainly_tracked(init, &certain, self),
                    Binding::Unknown => false,
                });
                if all {
                    certain.insert(name.clone());
                }
            }
            if certain.len() == before {
                return certain;
            }
        }
    }

    /// Whether `expr` is certainly a `Scalar` (or an array or vector of
    /// them), so that lifting it would change nothing.
    pub fn is_certainly_tracked(&self, expr: &Expr) -> bool {
        certainly_tracked(expr, &self.certain, self)
    }

    /// Whether the binding `name` may hold a tracked value.
    pub fn is_tracked(&self, name: &str) -> bool {
        self.names.contains(name)
    }

    /// Whether `expr` must be rewritten: it reads or binds a tracked name,
    /// or it returns.
    pub fn touches(&self, expr: &Expr) -> bool {
        self.touched[expr.id]
    }

    /// Whether the value of `expr` may be tracked, where it is rewritten
    /// (see [`value_tracked`]): `if x[0] > 0.0 { 1 } else { 0 } + 1` is
    /// rewritten for its condition and is an integer all the same.
    pub fn value_is_tracked(&self, expr: &Expr) -> bool {
        value_tracked(expr, &self.touched, &self.loops)
    }
}

/// Whether the value of `expr` may be tracked, given what each expression
/// touches: for an `if`, a block or a `match`, whether one of the values
/// it ends in does (its condition or statements may read tracked names
/// and give an integer all the same); for `+ - * / %`, whether an operand
/// does; for anything else, whether it touches one.
fn value_tracked(expr: &Expr, touched: &[bool], loops: &HashSet<usize>) -> bool {
    let value = |expr: &Expr| value_tracked(expr, touched, loops);
    let tail = |block: &Block| block.split_tail().1.is_some_and(value);
    match &expr.kind {
        ExprKind::Paren(inner) => value(inner),
        ExprKind::If {
            then_branch,
            else_branch: Some(else_branch),
            ..
        } => tail(then_branch) || value(else_branch),
        ExprKind::Block(None, block) => tail(block),
        ExprKind::Match { arms, .. } => arms.iter().any(|arm| value(&arm.body)),
        ExprKind::Binary {
            op: Arith::Add | Arith::Sub | Arith::Mul | Arith::Div | Arith::Rem,
            lhs,
            rhs,
            ..
        } => value(lhs) || value(rhs),
        // A predicate, or a helper used as a count, an index or a
        // condition (`lower::by_use`): its value is plain.
        ExprKind::PlainMethod {
            reads_primal: true, ..
        }
        | ExprKind::PlainCall {
            reads_primal: true, ..
        } => false,
        _ => touched[expr.id] || loops.contains(&expr.id),
    }
}

/// One round of the analysis: the names that newly reach a tracked value,
/// and what each expression touches under the names known so far.
struct Walk<'f> {
    names: &'f HashSet<String>,
    found: Vec<String>,
    touched: Vec<bool>,
    /// `Flow::loops` so far, and the loops newly found to join them.
    loops: &'f HashSet<usize>,
    found_loops: Vec<usize>,
    /// The loops and labelled blocks around the expression walked: their
    /// label, id, and whether an unlabelled `break` can leave them.
    enclosing: Vec<(Option<String>, usize, bool)>,
}

impl Walk<'_> {
    /// What the items of `iter`, walked already, may hold.
    fn item(&self, iter: &Expr) -> Item {
        match &iter.kind {
            ExprKind::Range { .. } => Item::Plain,
            ExprKind::Paren(inner) | ExprKind::Reference { expr: inner, .. } => self.item(inner),
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => match (method.to_string().as_str(), &args[..]) {
                ("enumerate", []) => {
                    Item::Pair(Box::new(Item::Plain), Box::new(self.item(receiver)))
                }
                // Both sides of a tracked `zip` (`|(p, q)| p * q` of a
                // tracked `a` and a constant `z`), as before: names ignore
                // scopes, and `q` may also be a closure's item compared with
                // a tracked `p` elsewhere (`min_by(|p, q| p.partial_cmp(q))`),
                // which must read both alike (random seed 20530).
                ("zip", [_]) => Item::Maybe,
                (
                    "iter" | "into_iter" | "copied" | "cloned" | "rev" | "skip" | "take"
                    | "step_by",
                    _,
                ) => self.item(receiver),
                _ => Item::of(self.touched[iter.id]),
            },
            _ => Item::of(self.touched[iter.id]),
        }
    }

    /// Finds the names `pat` binds to the parts of an `item` that may be
    /// tracked.
    fn bind(&mut self, pat: &syn::Pat, item: &Item) {
        match (pat, item) {
            (_, Item::Plain) => {}
            (syn::Pat::Tuple(tuple), Item::Pair(first, second)) if tuple.elems.len() == 2 => {
                self.bind(&tuple.elems[0], first);
                self.bind(&tuple.elems[1], second);
            }
            (syn::Pat::Paren(paren), _) => self.bind(&paren.pat, item),
            (syn::Pat::Reference(reference), _) => self.bind(&reference.pat, item),
            (syn::Pat::Type(typed), _) => self.bind(&typed.pat, item),
            _ => self.found.extend(crate::lower::pattern_names(pat)),
        }
    }

    fn binds_tracked(&self, pat: &Pattern) -> bool {
        pat.names.iter().any(|name| self.names.contains(name))
    }

    fn block(&mut self, block: &Block) -> bool {
        let mut touched = false;
        for stmt in &block.stmts {
            touched |= match stmt {
                Stmt::Let { pat, init, .. } => {
                    // A closure bound to a name may be called with tracked
                    // values: its parameters may hold them.
                    if let Some(ExprKind::Closure { inputs, .. }) =
                        init.as_ref().map(|init| &init.kind)
                    {
                        for input in inputs {
                            self.found.extend(input.names.iter().cloned());
                        }
                    }
                    let touched = init.as_ref().is_some_and(|init| self.expr(init));
                    // What the value is, not what it reads on the way:
                    // `if x[0] > 0.0 { 3 } else { 1 }` is an integer.
                    if touched && init.as_ref().is_some_and(|init| self.value_touched(init)) {
                        self.found.extend(pat.names.iter().cloned());
                    }
                    touched || self.binds_tracked(pat)
                }
                Stmt::Item(_) => false,
                Stmt::Expr(expr, _) => self.expr(expr),
            };
        }
        touched
    }

    /// Whether the value of `expr`, walked already, may be tracked (see
    /// [`value_tracked`]).
    fn value_touched(&self, expr: &Expr) -> bool {
        value_tracked(expr, &self.touched, self.loops)
    }

    fn expr(&mut self, expr: &Expr) -> bool {
        let name = |label: Option<&syn::Label>| label.map(|label| label.name.ident.to_string());
        let enclosing = match &expr.kind {
            ExprKind::Loop { label, .. }
            | ExprKind::While { label, .. }
            | ExprKind::For { label, .. } => Some((name(*label), true)),
            ExprKind::Block(label @ Some(_), _) => Some((name(*label), false)),
            _ => None,
        };
        if let Some((label, loop_)) = enclosing.clone() {
            self.enclosing.push((label, expr.id, loop_));
        }
        let touched = self.expr_inner(expr);
        if enclosing.is_some() {
            self.enclosing.pop();
        }
        // A `break` out of a loop whose value is tracked somewhere: its
        // value is lifted too (`break 0.5` beside `break x`).
        let touched = match &expr.kind {
            ExprKind::Break {
                label,
                value: Some(value),
            } => {
                let target = self
                    .enclosing
                    .iter()
                    .rev()
                    .find(|(name, _, loop_)| match label {
                        Some(label) => name.as_deref() == Some(&*label.ident.to_string()),
                        None => *loop_,
                    })
                    .map(|(_, id, _)| *id);
                if let Some(target) = target {
                    if self.touched[value.id] {
                        self.found_loops.push(target);
                    }
                    touched || self.loops.contains(&target)
                } else {
                    touched
                }
            }
            _ => touched || self.loops.contains(&expr.id),
        };
        self.touched[expr.id] = touched;
        touched
    }

    fn expr_inner(&mut self, expr: &Expr) -> bool {
        let mut touched = match &expr.kind {
            ExprKind::Path(path) => path
                .path
                .get_ident()
                .is_some_and(|ident| self.names.contains(&ident.to_string())),
            ExprKind::Return(_) => true,
            ExprKind::Closure { inputs, .. } => {
                inputs.iter().any(|input| self.binds_tracked(input))
            }
            // `f(k)` of a closure bound by `let` that may give a tracked
            // value (one reading a tracked capture, `|k| x[k] * 2.0`).
            ExprKind::Construct { func, .. } => func
                .path
                .get_ident()
                .is_some_and(|ident| self.names.contains(&ident.to_string())),
            ExprKind::PlainMacro { names, .. } => {
                names.iter().any(|name| self.names.contains(name))
            }
            ExprKind::Repeat { len, .. } => matches!(len, syn::Expr::Path(path)
                if path.path.get_ident().is_some_and(|ident| self.names.contains(&ident.to_string()))),
            _ => false,
        };
        match &expr.kind {
            // `(a, b) = (b, e)`: each target takes its own component; of
            // any other value, every target may take a tracked one.
            ExprKind::Assign { target, value } if destructuring(target).is_some() => {
                touched |= self.expr(target);
                match components(target, value) {
                    Some(pairs) => {
                        for (target, value) in pairs {
                            if self.expr(value) {
                                touched = true;
                                self.found.extend(root(target));
                            }
                        }
                    }
                    None => {
                        if self.expr(value) {
                            touched = true;
                            let targets = destructuring(target).unwrap_or_default();
                            self.found.extend(targets.into_iter().filter_map(root));
                        }
                    }
                }
            }
            ExprKind::Assign { target, value } | ExprKind::CompoundAssign { target, value, .. } => {
                touched |= self.expr(target);
                if self.expr(value) {
                    touched = true;
                    self.found.extend(root(target));
                }
            }
            ExprKind::For {
                pat, iter, body, ..
            } => {
                if self.expr(iter) {
                    touched = true;
                    let item = self.item(iter);
                    self.bind(pat.syntax, &item);
                }
                touched |= self.block(body) | self.binds_tracked(pat);
            }
            ExprKind::Let { pat, expr: value } => {
                if self.expr(value) {
                    touched = true;
                    self.found.extend(pat.names.iter().cloned());
                }
                touched |= self.binds_tracked(pat);
            }
            ExprKind::Match { scrutinee, arms } => {
                let scrutinee = self.expr(scrutinee);
                touched |= scrutinee;
                for arm in arms {
                    if scrutinee {
                        self.found.extend(arm.pat.names.iter().cloned());
                    }
                    touched |= self.binds_tracked(&arm.pat);
                    if let Some(guard) = &arm.guard {
                        touched |= self.expr(guard);
                    }
                    touched |= self.expr(&arm.body);
                }
            }
            // A length is a plain integer, whatever the items are: indices
            // and capacities computed from it stay plain.
            ExprKind::Structural {
                receiver, method, ..
            } if *method == "len" || *method == "is_empty" => {
                self.expr(receiver);
                touched = false;
            }
            ExprKind::Structural {
                receiver,
                method,
                args,
                ..
            } => {
                touched |= self.expr(receiver);
                // `x.iter().map(|v| ..)`: a closure's parameters may hold
                // the items (and `fold`'s accumulator) of a tracked source.
                // An `enumerate`'s index is a plain integer (`|(i, v)|`),
                // as is a range's item.
                if touched {
                    let item = self.item(receiver);
                    for arg in args {
                        if let ExprKind::Closure { inputs, .. } = &arg.kind {
                            for (k, input) in inputs.iter().enumerate() {
                                // `fold`'s accumulator comes first.
                                if *method == "fold" && k == 0 {
                                    self.found.extend(input.names.iter().cloned());
                                } else {
                                    self.bind(input.syntax, &item);
                                }
                            }
                        }
                    }
                }
                let mut pushes_tracked = false;
                for arg in args {
                    pushes_tracked |= self.expr(arg);
                }
                if pushes_tracked {
                    touched = true;
                    // `fold(k, |acc, t| acc * 0.5 + t)` whose closure meets
                    // a tracked value: its start is lifted, and so its
                    // accumulator holds a tracked value too.
                    if *method == "fold" {
                        if let Some(ExprKind::Closure { inputs, .. }) =
                            args.get(1).map(|arg| &arg.kind)
                        {
                            if let Some(first) = inputs.first() {
                                self.found.extend(first.names.iter().cloned());
                            }
                        }
                    }
                    // A tracked item put into a `Vec` makes it tracked.
                    let method = method.to_string();
                    if crate::vocabulary::stored_argument(&method).is_some() || method == "extend" {
                        self.found.extend(root(receiver));
                    }
                }
            }
            _ => {
                for child in expr.children() {
                    touched |= match child {
                        Child::Expr(child) => self.expr(child),
                        Child::Block(block) => self.block(block),
                    };
                }
                // `mem::swap(&mut a, &mut b)`: each takes the other's value.
                if let Some((a, b)) = expr.swapped().filter(|_| touched) {
                    self.found.extend(root(a));
                    self.found.extend(root(b));
                }
            }
        }
        touched
    }
}

fn certainly_tracked(expr: &Expr, certain: &HashSet<String>, flow: &Flow) -> bool {
    let tracked = |e: &Expr| certainly_tracked(e, certain, flow);
    match &expr.kind {
        ExprKind::Path(path) => path
            .path
            .get_ident()
            .is_some_and(|ident| certain.contains(&ident.to_string())),
        ExprKind::Index { base, .. } | ExprKind::Paren(base) => tracked(base),
        ExprKind::Binary { op, lhs, rhs, .. } => {
            *op != crate::ast::Arith::Rem && (tracked(lhs) || tracked(rhs))
        }
        ExprKind::Neg { operand, .. } | ExprKind::Elementary { operand, .. } => tracked(operand),
        ExprKind::Powi { base, .. } => tracked(base),
        ExprKind::Ternary { operands, .. } => operands.iter().any(|operand| tracked(operand)),
        ExprKind::Sum { items, .. } => root(items).is_some_and(|name| certain.contains(&name)),
        ExprKind::Call { args, .. } => args.iter().any(|arg| flow.touches(arg)),
        _ => false,
    }
}

fn collect_bindings<'m, 'a>(
    block: &'m Block<'a>,
    flow: &Flow,
    bindings: &mut HashMap<String, Vec<Binding<'m, 'a>>>,
) {
    for stmt in &block.stmts {
        match stmt {
            Stmt::Let {
                pat,
                name,
                mutable,
                init,
                ..
            } => {
                if let Some(init) = init {
                    collect_expr(init, flow, bindings);
                }
                match (name, init) {
                    (Some(name), _) if *mutable && flow.is_tracked(name) => {
                        bindings
                            .entry(name.clone())
                            .or_default()
                            .push(Binding::Tracked);
                    }
                    (Some(name), Some(init)) if !*mutable => {
                        bindings
                            .entry(name.clone())
                            .or_default()
                            .push(Binding::Init(init));
                    }
                    _ => unknown(pat, bindings),
                }
            }
            Stmt::Item(_) => {}
            Stmt::Expr(expr, _) => collect_expr(expr, flow, bindings),
        }
    }
}

fn collect_expr<'m, 'a>(
    expr: &'m Expr<'a>,
    flow: &Flow,
    bindings: &mut HashMap<String, Vec<Binding<'m, 'a>>>,
) {
    match &expr.kind {
        ExprKind::For { pat, .. } | ExprKind::Let { pat, .. } => unknown(pat, bindings),
        ExprKind::Match { arms, .. } => arms.iter().for_each(|arm| unknown(&arm.pat, bindings)),
        _ => {}
    }
    for child in expr.children() {
        match child {
            Child::Expr(child) => collect_expr(child, flow, bindings),
            Child::Block(block) => collect_bindings(block, flow, bindings),
        }
    }
}

fn unknown(pat: &Pattern, bindings: &mut HashMap<String, Vec<Binding<'_, '_>>>) {
    for name in &pat.names {
        bindings
            .entry(name.clone())
            .or_default()
            .push(Binding::Unknown);
    }
}

/// The places a destructuring assignment's target lists (`(a, b)`, `[a,
/// b]`), or `None` for a target that is one place.
pub fn destructuring<'e, 'a>(target: &'e Expr<'a>) -> Option<Vec<&'e Expr<'a>>> {
    match &target.kind {
        ExprKind::Tuple(items) | ExprKind::Array(items) => Some(items.iter().collect()),
        ExprKind::Paren(inner) => destructuring(inner),
        _ => None,
    }
}

/// Each target of a destructuring assignment with the component of the
/// value it takes, where the value is a literal as long (`(a, b) = (b,
/// e)`; a tuple target with an array value is the plain twin's error).
pub fn components<'e, 'a>(
    target: &'e Expr<'a>,
    value: &'e Expr<'a>,
) -> Option<Vec<(&'e Expr<'a>, &'e Expr<'a>)>> {
    let (targets, values) = (destructuring(target)?, destructuring(value)?);
    (targets.len() == values.len()).then(|| targets.into_iter().zip(values).collect())
}

/// The variable a part of a model is read from: [`root`], also through
/// `first()`, `last()` and `get(i)` and their `unwrap()`
/// (`self.layers.last().unwrap()`, whose method is an annotated one).
pub fn part_root(part: &Expr) -> Option<String> {
    match &part.kind {
        ExprKind::Structural {
            receiver,
            method,
            args,
            ..
        } if (*method == "unwrap" && args.is_empty())
            // A copy of a model is a model (`m.clone().reg(0.01)`).
            || ((*method == "first" || *method == "last" || *method == "clone") && args.is_empty())
            || (*method == "get" && args.len() == 1) =>
        {
            part_root(receiver)
        }
        ExprKind::Paren(inner) => part_root(inner),
        _ => root(part),
    }
}

/// The variable an assignment writes: `s` in `s`, `y[i]`, `y[i][j]`, `p.0`.
pub fn root(target: &Expr) -> Option<String> {
    match &target.kind {
        ExprKind::Path(path) => path.path.get_ident().map(ToString::to_string),
        ExprKind::Index { base, .. } | ExprKind::Field { base, .. } => root(base),
        ExprKind::Paren(inner) => root(inner),
        ExprKind::Prefix { operand, .. } => root(operand),
        _ => None,
    }
}
