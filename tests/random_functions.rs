//! Random `#[differentiable]` functions, compiled in one trybuild pass and
//! checked against forward-mode dual numbers.
//!
//! A seeded generator builds small function bodies (lets, reuse of a binding
//! and of a whole subexpression, `let mut` with compound assignment, `if`
//! statements and `if` expressions on primal values, `for` loops over an
//! index, every elementary function) and writes each twice: once as the
//! ordinary `f64` function under `#[differentiable]`, once over a dual-number
//! type with the same operators (`autodiff-core/tests/support/dual.rs`,
//! which never touches the engine). The generated program asserts, at random
//! points, that `f_grad`'s value equals the plain twin's and the dual twin's
//! bit for bit, and that every gradient component matches the dual tangent
//! to 1e−9 of the path magnitude. Arguments of `ln`, `sqrt`, `recip`,
//! division and `powf` are kept positive by construction (`e·e + 0.5`), and
//! `tanh`/`sigmoid`/`exp` see bounded arguments, so every point is valid.
//!
//! `RANDOM_FUNCTIONS_SEED=<n>` explores other functions than the default set.

use std::fmt::Write as _;
use std::path::PathBuf;

/// Files, functions per file, and points per function. One file per
/// trybuild binary; a few larger files link faster than many small ones.
const FILES: usize = 4;
const FUNCTIONS: usize = 12;
const POINTS: usize = 3;

#[path = "support/xorshift.rs"]
mod xorshift;
use xorshift::Rng;

/// What this file draws beyond the shared generator.
impl Rng {
    /// A value in [lo, hi) with a short decimal form, so the source and the
    /// test agree on it exactly.
    fn value(&mut self, lo: f64, hi: f64) -> f64 {
        let steps = ((hi - lo) * 64.0) as usize;
        lo + self.below(steps) as f64 / 64.0
    }
}

#[derive(Clone, Debug)]
enum Expr {
    Var(String),
    Lit(f64),
    /// The loop index, `i as f64`.
    Index,
    Neg(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// `(e).name()`
    Method(&'static str, Box<Expr>),
    /// `(a).name(b)` for `powf`, `max`, `min`.
    Method2(&'static str, Box<Expr>, Box<Expr>),
    Powi(Box<Expr>, i32),
    /// `name(e)` for `relu`, `sigmoid`.
    Call(&'static str, Box<Expr>),
    If(Box<Cond>, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Debug)]
struct Cond(Expr, &'static str, Expr);

#[derive(Clone, Debug)]
enum Stmt {
    Let(String, Expr),
    LetMut(String, Expr),
    Assign(String, &'static str, Expr),
    For(u32, Vec<Stmt>),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
}

#[derive(Clone, Copy, PartialEq)]
enum Dialect {
    /// Plain `f64`, for `#[differentiable]`.
    Plain,
    /// The `D` dual-number wrapper: literals become `D::c(..)`.
    Dual,
}

fn render(expr: &Expr, dialect: Dialect) -> String {
    let r = |e: &Expr| render(e, dialect);
    match expr {
        Expr::Var(name) => name.clone(),
        Expr::Lit(v) => match dialect {
            Dialect::Plain => format!("({v:?}_f64)"),
            Dialect::Dual => format!("D::c({v:?})"),
        },
        Expr::Index => match dialect {
            Dialect::Plain => "(i as f64)".to_owned(),
            Dialect::Dual => "D::c(i as f64)".to_owned(),
        },
        Expr::Neg(e) => format!("(-{})", r(e)),
        Expr::Bin(op, a, b) => format!("({} {op} {})", r(a), r(b)),
        Expr::Method(name, e) => format!("{}.{name}()", r(e)),
        Expr::Method2(name, a, b) => format!("{}.{name}({})", r(a), r(b)),
        Expr::Powi(e, n) => format!("{}.powi({n})", r(e)),
        Expr::Call(name, e) => format!("{name}({})", r(e)),
        Expr::If(c, a, b) => format!(
            "(if {} {{ {} }} else {{ {} }})",
            render_cond(c, dialect),
            r(a),
            r(b)
        ),
    }
}

fn render_cond(Cond(a, op, b): &Cond, dialect: Dialect) -> String {
    format!("{} {op} {}", render(a, dialect), render(b, dialect))
}

fn render_block(stmts: &[Stmt], dialect: Dialect, indent: usize, out: &mut String) {
    let pad = "    ".repeat(indent);
    for stmt in stmts {
        match stmt {
            Stmt::Let(name, e) => {
                let _ = writeln!(out, "{pad}let {name} = {};", render(e, dialect));
            }
            Stmt::LetMut(name, e) => {
                let _ = writeln!(out, "{pad}let mut {name} = {};", render(e, dialect));
            }
            Stmt::Assign(name, op, e) => {
                let _ = writeln!(out, "{pad}{name} {op} {};", render(e, dialect));
            }
            Stmt::For(n, body) => {
                let _ = writeln!(out, "{pad}for i in 0..{n} {{");
                render_block(body, dialect, indent + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::If(c, then, otherwise) => {
                let _ = writeln!(out, "{pad}if {} {{", render_cond(c, dialect));
                render_block(then, dialect, indent + 1, out);
                let _ = writeln!(out, "{pad}}} else {{");
                render_block(otherwise, dialect, indent + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
        }
    }
}

/// One random function: parameter names, statements, and the result.
struct Function {
    params: Vec<String>,
    body: Vec<Stmt>,
    result: Expr,
}

struct Gen {
    rng: Rng,
    /// Bindings readable here (parameters, lets in scope).
    scope: Vec<String>,
    /// `let mut` bindings, assignable anywhere after them.
    mutable: Vec<String>,
    in_loop: bool,
    fresh: usize,
}

impl Gen {
    fn fresh(&mut self, stem: &str) -> String {
        self.fresh += 1;
        format!("{stem}{}", self.fresh)
    }

    fn function(&mut self) -> Function {
        let params: Vec<String> = (0..1 + self.rng.below(3))
            .map(|i| format!("x{i}"))
            .collect();
        self.scope = params.clone();
        self.mutable.clear();
        self.in_loop = false;
        let mut body = Vec::new();
        if self.rng.chance(70) {
            body.push(self.let_mut());
        }
        for _ in 0..1 + self.rng.below(5) {
            let stmt = self.statement(0);
            body.push(stmt);
        }
        // Everything the body computed reaches the result, so that loops
        // and branches are differentiated, not just recorded.
        let mut result = self.expr(0);
        let reached: Vec<String> = self
            .scope
            .iter()
            .filter(|name| !name.starts_with('x') && self.rng.chance(60))
            .cloned()
            .collect();
        for name in reached {
            result = Expr::Bin("+", Box::new(result), Box::new(Expr::Var(name)));
        }
        Function {
            params,
            body,
            result,
        }
    }

    fn let_(&mut self) -> Stmt {
        let e = self.expr(0);
        let name = self.fresh("t");
        self.scope.push(name.clone());
        Stmt::Let(name, e)
    }

    fn let_mut(&mut self) -> Stmt {
        let e = self.expr(1);
        let name = self.fresh("acc");
        self.scope.push(name.clone());
        self.mutable.push(name.clone());
        Stmt::LetMut(name, e)
    }

    fn assign(&mut self) -> Stmt {
        let name = self.mutable[self.rng.below(self.mutable.len())].clone();
        let op = ["=", "+=", "-=", "*="][self.rng.below(4)];
        let e = if op == "*=" {
            // Repeated in a loop, a factor compounds: keep it in [0.5, 1].
            let inner = self.expr(1);
            Expr::Bin(
                "+",
                Box::new(Expr::Lit(0.75)),
                Box::new(Expr::Method("sin", Box::new(inner)).scaled(0.25)),
            )
        } else {
            self.expr(1)
        };
        Stmt::Assign(name, op, e)
    }

    /// A block's statements: scoped lets and assignments to outer `let mut`s.
    fn block(&mut self, depth: usize) -> Vec<Stmt> {
        let saved = self.scope.len();
        let body = (0..1 + self.rng.below(2))
            .map(|_| self.statement(depth + 1))
            .collect();
        self.scope.truncate(saved);
        body
    }

    fn statement(&mut self, depth: usize) -> Stmt {
        let can_assign = !self.mutable.is_empty();
        let roll = self.rng.below(10);
        if depth > 0 {
            return if can_assign && roll < 7 {
                self.assign()
            } else {
                self.let_()
            };
        }
        match roll {
            0..=1 => self.let_(),
            2 => self.let_mut(),
            3..=4 if can_assign => self.assign(),
            5..=7 if !self.in_loop => {
                self.in_loop = true;
                let body = self.block(depth);
                self.in_loop = false;
                Stmt::For(1 + self.rng.below(4) as u32, body)
            }
            _ => {
                let c = self.cond();
                let then = self.block(depth);
                let otherwise = if self.rng.chance(60) {
                    self.block(depth)
                } else {
                    Vec::new()
                };
                Stmt::If(c, then, otherwise)
            }
        }
    }

    fn cond(&mut self) -> Cond {
        let op = [">", "<", ">=", "<="][self.rng.below(4)];
        let a = if self.in_loop && self.rng.chance(30) {
            Expr::Index
        } else {
            Expr::Var(self.scope[self.rng.below(self.scope.len())].clone())
        };
        let b = if self.rng.chance(50) {
            Expr::Lit(self.rng.value(-1.0, 1.0))
        } else {
            self.leaf()
        };
        Cond(a, op, b)
    }

    fn leaf(&mut self) -> Expr {
        match self.rng.below(10) {
            0..=6 => Expr::Var(self.scope[self.rng.below(self.scope.len())].clone()),
            7 if self.in_loop => Expr::Index,
            _ => Expr::Lit(self.rng.value(-2.0, 2.0)),
        }
    }

    /// `e·e + 0.5`: at least 0.5, so every domain-restricted operation is safe.
    fn positive(e: Expr) -> Expr {
        Expr::Bin(
            "+",
            Box::new(Expr::Bin("*", Box::new(e.clone()), Box::new(e))),
            Box::new(Expr::Lit(0.5)),
        )
    }

    fn expr(&mut self, depth: usize) -> Expr {
        if depth >= 3 || self.rng.chance(25) {
            return self.leaf();
        }
        let d = depth + 1;
        match self.rng.below(22) {
            0..=3 => {
                let op = ["+", "-", "*"][self.rng.below(3)];
                let a = self.expr(d);
                // The same subexpression on both sides, now and then.
                let b = if self.rng.chance(20) {
                    a.clone()
                } else {
                    self.expr(d)
                };
                Expr::Bin(op, Box::new(a), Box::new(b))
            }
            4 => Expr::Bin(
                "/",
                Box::new(self.expr(d)),
                Box::new(Self::positive(self.expr(d))),
            ),
            5 => Expr::Neg(Box::new(self.expr(d))),
            6 => Expr::Method("ln", Box::new(Self::positive(self.expr(d)))),
            7 => Expr::Method("sqrt", Box::new(Self::positive(self.expr(d)))),
            8 => Expr::Method("recip", Box::new(Self::positive(self.expr(d)))),
            9 => Expr::Method("exp", Box::new(Expr::Method("sin", Box::new(self.expr(d))))),
            10 => Expr::Method("tanh", Box::new(self.bounded(d))),
            11 => Expr::Call("sigmoid", Box::new(self.bounded(d))),
            12 => Expr::Method("sin", Box::new(self.expr(d))),
            13 => Expr::Method("cos", Box::new(self.expr(d))),
            14 => Expr::Method("abs", Box::new(self.expr(d))),
            15 => Expr::Call("relu", Box::new(self.expr(d))),
            16 => {
                let name = ["max", "min"][self.rng.below(2)];
                Expr::Method2(name, Box::new(self.expr(d)), Box::new(self.expr(d)))
            }
            17 => Expr::Method2(
                "powf",
                Box::new(Self::positive(self.expr(d))),
                Box::new(self.bounded(d)),
            ),
            18 => Expr::Powi(Box::new(self.bounded(d)), [0, 1, 2, 3][self.rng.below(4)]),
            19 => Expr::Powi(
                Box::new(Self::positive(self.expr(d))),
                -1 - self.rng.below(2) as i32,
            ),
            20 => Expr::If(
                Box::new(self.cond()),
                Box::new(self.expr(d)),
                Box::new(self.expr(d)),
            ),
            _ => Expr::Bin(
                "*",
                Box::new(Expr::Lit(self.rng.value(-2.0, 2.0))),
                Box::new(self.expr(d)),
            ),
        }
    }

    /// An expression within [−2, 2]: `2·sin(e)`. `tanh`, `sigmoid` and
    /// `powf`'s exponent see these, away from the flat tails where `1 − t²`
    /// loses its digits in any implementation.
    fn bounded(&mut self, depth: usize) -> Expr {
        let e = self.expr(depth);
        Expr::Method("sin", Box::new(e)).scaled(2.0)
    }
}

impl Expr {
    fn scaled(self, factor: f64) -> Expr {
        Expr::Bin("*", Box::new(Expr::Lit(factor)), Box::new(self))
    }
}

/// The dual-number twin's support: `D` wraps the oracle's `Dual` with the
/// operators and methods the bodies use.
const DUAL_SUPPORT: &str = r#"
mod twins {
    #![allow(dead_code)]
    use super::dual::Dual;
    use std::ops::{Add, AddAssign, Mul, MulAssign, Neg, Sub, SubAssign, Div};

    #[derive(Clone, Copy, Debug)]
    pub struct D(pub Dual);

    impl D {
        pub fn c(v: f64) -> D { D(Dual::constant(v)) }
        pub fn exp(self) -> D { D(self.0.exp()) }
        pub fn ln(self) -> D { D(self.0.ln()) }
        pub fn sqrt(self) -> D { D(self.0.sqrt()) }
        pub fn recip(self) -> D { D(self.0.recip()) }
        pub fn tanh(self) -> D { D(self.0.tanh()) }
        pub fn sin(self) -> D { D(self.0.sin()) }
        pub fn cos(self) -> D { D(self.0.cos()) }
        pub fn abs(self) -> D { D(self.0.abs()) }
        pub fn powi(self, n: i32) -> D { D(self.0.powi(n)) }
        pub fn powf(self, o: D) -> D { D(self.0.powf(o.0)) }
        pub fn max(self, o: D) -> D { D(self.0.max(o.0)) }
        pub fn min(self, o: D) -> D { D(self.0.min(o.0)) }
    }
    pub fn relu(x: D) -> D { D(x.0.relu()) }
    pub fn sigmoid(x: D) -> D { D(x.0.sigmoid()) }

    impl Add for D { type Output = D; fn add(self, o: D) -> D { D(self.0.add(o.0)) } }
    impl Sub for D { type Output = D; fn sub(self, o: D) -> D { D(self.0.sub(o.0)) } }
    impl Mul for D { type Output = D; fn mul(self, o: D) -> D { D(self.0.mul(o.0)) } }
    impl Div for D { type Output = D; fn div(self, o: D) -> D { D(self.0.div(o.0)) } }
    impl Neg for D { type Output = D; fn neg(self) -> D { D(self.0.neg()) } }
    impl AddAssign for D { fn add_assign(&mut self, o: D) { *self = *self + o; } }
    impl SubAssign for D { fn sub_assign(&mut self, o: D) { *self = *self - o; } }
    impl MulAssign for D { fn mul_assign(&mut self, o: D) { *self = *self * o; } }
    impl PartialEq for D { fn eq(&self, o: &D) -> bool { self.0.value == o.0.value } }
    impl PartialOrd for D {
        fn partial_cmp(&self, o: &D) -> Option<std::cmp::Ordering> { self.0.value.partial_cmp(&o.0.value) }
    }
"#;

const CHECK: &str = r#"
/// `f_grad` (the compiled adjoint) against `f_grad_tape`: the same value,
/// the same error, or gradients within 1e-12 of the largest component
/// (the same sums added in another order).
fn paths(
    name: &str,
    source: &str,
    at: &[f64],
    grad: impl Fn(&[f64]) -> Result<(f64, Vec<f64>), ScalarAutodiffError>,
    tape: impl Fn(&[f64]) -> Result<(f64, Vec<f64>), ScalarAutodiffError>,
) {
    match (grad(at), tape(at)) {
        (Ok((value, gradient)), Ok((tape_value, tape_gradient))) => {
            assert_eq!(value.to_bits(), tape_value.to_bits(), "{name}{at:?}: value vs tape\n{source}");
            let scale = tape_gradient.iter().fold(1.0_f64, |m, g| m.max(g.abs()));
            for (a, b) in gradient.iter().zip(&tape_gradient) {
                assert!((a - b).abs() <= 1e-12 * scale, "{name}{at:?}: compiled {a} vs tape {b}\n{source}");
            }
        }
        (Err(a), Err(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}{at:?}\n{source}"),
        (a, b) => panic!("{name}{at:?}: compiled {a:?} vs tape {b:?}\n{source}"),
    }
}

/// Runs one function at one point through `f_grad`, the plain twin and the
/// dual twin (one sweep per input), and panics with its source on a mismatch.
fn check(
    name: &str,
    source: &str,
    at: &[f64],
    grad: impl Fn(&[f64]) -> Result<(f64, Vec<f64>), ScalarAutodiffError>,
    plain: impl Fn(&[f64]) -> f64,
    dual: impl Fn(&[twins::D]) -> twins::D,
) {
    let (value, gradient) = grad(at).unwrap_or_else(|e| panic!("{name}{at:?}: {e}\n{source}"));
    assert_eq!(value.to_bits(), plain(at).to_bits(), "{name}{at:?}: value vs plain twin\n{source}");
    for i in 0..at.len() {
        let seeded: Vec<twins::D> = at
            .iter()
            .enumerate()
            .map(|(j, &v)| twins::D(dual::Dual::input(v, i == j)))
            .collect();
        let d = dual(&seeded).0;
        assert_eq!(value.to_bits(), d.value.to_bits(), "{name}{at:?}: value vs dual twin\n{source}");
        assert!(
            (gradient[i] - d.tangent).abs() <= 1e-9 * d.magnitude,
            "{name}{at:?}: d/dx{i} reverse {} vs dual {} (magnitude {})\n{source}",
            gradient[i], d.tangent, d.magnitude
        );
    }
}
"#;

fn generate_file(rng: &mut Rng, file: usize) -> String {
    let dual_path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/autodiff-core/tests/support/dual.rs"
    );
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by tests/random_functions.rs; not checked in."
    );
    let _ = writeln!(out, "#![allow(unused, clippy::all)]");
    let _ = writeln!(out, "use autodiff::prelude::*;");
    let _ = writeln!(out, "#[path = {dual_path:?}]\nmod dual;");
    out.push_str(CHECK);

    let mut gen = Gen {
        rng: Rng(rng.next() | 1),
        scope: Vec::new(),
        mutable: Vec::new(),
        in_loop: false,
        fresh: 0,
    };
    let mut functions = Vec::new();
    for k in 0..FUNCTIONS {
        let name = format!("f{file}_{k}");
        let function = gen.function();
        let signature = |ty: &str| {
            function
                .params
                .iter()
                .map(|p| format!("{p}: {ty}"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let mut plain = String::new();
        render_block(&function.body, Dialect::Plain, 1, &mut plain);
        let plain = format!(
            "#[differentiable]\nfn {name}({}) -> f64 {{\n{plain}    {}\n}}\n",
            signature("f64"),
            render(&function.result, Dialect::Plain)
        );
        let mut dual = String::new();
        render_block(&function.body, Dialect::Dual, 2, &mut dual);
        let dual = format!(
            "    pub fn {name}({}) -> D {{\n{dual}        {}\n    }}\n",
            signature("D"),
            render(&function.result, Dialect::Dual)
        );
        out.push_str(&plain);
        functions.push((name, function.params.len(), plain, dual));
    }
    out.push_str(DUAL_SUPPORT);
    for (_, _, _, dual) in &functions {
        out.push_str(dual);
    }
    out.push_str("}\n\nfn main() {\n");
    for (name, arity, source, _) in &functions {
        let args = (0..*arity)
            .map(|i| format!("a[{i}]"))
            .collect::<Vec<_>>()
            .join(", ");
        let gradient = match arity {
            1 => "vec![r.gradient]".to_owned(),
            n => format!(
                "vec![{}]",
                (0..*n)
                    .map(|i| format!("r.gradient.{i}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        for _ in 0..POINTS {
            let at: Vec<String> = (0..*arity)
                .map(|_| format!("{:?}", gen.rng.value(-1.5, 1.5)))
                .collect();
            let _ = writeln!(
                out,
                "    check({name:?}, {source:?}, &[{}], |a: &[f64]| {name}_grad({args}).map(|r| (r.value, {gradient})), |a: &[f64]| {name}({args}), |a: &[twins::D]| twins::{name}({args}));",
                at.join(", ")
            );
            let _ = writeln!(
                out,
                "    paths({name:?}, {source:?}, &[{}], |a: &[f64]| {name}_grad({args}).map(|r| (r.value, {gradient})), |a: &[f64]| {name}_grad_tape({args}).map(|r| (r.value, {gradient})));",
                at.join(", ")
            );
        }
    }
    let _ = writeln!(
        out,
        "    println!(\"{} functions x {POINTS} points agree with dual numbers\");\n}}",
        functions.len()
    );
    out
}

#[test]
fn random_differentiable_functions_match_dual_numbers() {
    let seed = std::env::var("RANDOM_FUNCTIONS_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x0006_f00d_u64);
    let mut rng = Rng(seed | 1);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("random-functions");
    std::fs::create_dir_all(&dir).unwrap();
    let cases = trybuild::TestCases::new();
    for file in 0..FILES {
        let path = dir.join(format!("random_{file}.rs"));
        std::fs::write(&path, generate_file(&mut rng, file)).unwrap();
        cases.pass(path);
    }
}
