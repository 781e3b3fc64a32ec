//! Generated sources of extreme size for `#[differentiable]`: a 10,000-term
//! sum, 1,000 nested parentheses, a 1,000-deep `.sin()` chain, a
//! 10,000-statement body. Shared by `tests/sizes.rs` (each case compiled
//! and its gradient checked) and `benches/compile_time.rs` (plain vs
//! annotated build time), so both measure the same code.
//!
//! Each source is a whole program: `main` computes the function's value
//! and derivative independently (a loop carrying the derivative by the
//! chain rule, forward mode by hand) and compares them with `f_grad`'s.

/// One size case: its name and a generator of the function's source for
/// `n`, annotated or plain, plus the hand-carried oracle.
pub struct Case {
    /// File-name stem.
    pub name: &'static str,
    /// The size the acceptance asks for.
    pub full: usize,
    /// The function `f(x: f64) -> f64` of size `n`.
    pub function: fn(usize) -> String,
    /// Statements computing `value` and `slope` of `f` at `x`, by a loop.
    pub oracle: fn(usize) -> String,
}

/// `x + x + … + x`, `n` terms: a left-deep tree of depth `n`.
fn sum(n: usize) -> String {
    let mut body = String::with_capacity(4 * n);
    body.push('x');
    for _ in 1..n {
        body.push_str(" + x");
    }
    format!("fn f(x: f64) -> f64 {{\n    {body}\n}}\n")
}

fn sum_oracle(n: usize) -> String {
    format!("let (value, slope) = ({n}.0 * x, {n}.0);")
}

/// `((x * 1.001) * 1.001 … ) * 1.0`, `n` nested parentheses (none of
/// them redundant, which rustc would warn about). (Right-nested
/// `0.5 + x * (0.5 + …)` overflows plain rustc's own parser at 1,000.)
fn parens(n: usize) -> String {
    let body = format!("{}x{} * 1.0", "(".repeat(n), " * 1.001)".repeat(n));
    format!("fn f(x: f64) -> f64 {{\n    {body}\n}}\n")
}

fn parens_oracle(n: usize) -> String {
    format!("let (value, slope) = (x * 1.001_f64.powi({n}), 1.001_f64.powi({n}));")
}

/// `x.sin().sin()…`, `n` calls deep.
fn sines(n: usize) -> String {
    format!("fn f(x: f64) -> f64 {{\n    x{}\n}}\n", ".sin()".repeat(n))
}

fn sines_oracle(n: usize) -> String {
    format!(
        "let (mut value, mut slope) = (x, 1.0);
         for _ in 0..{n} {{ slope *= value.cos(); value = value.sin(); }}"
    )
}

/// `n` statements, each a `let` on the one before.
fn statements(n: usize) -> String {
    let mut body = String::with_capacity(40 * n);
    body.push_str("    let y0 = x;\n");
    for k in 1..=n {
        let op = if k % 2 == 0 { "+ x" } else { "- 0.25 * x" };
        body.push_str(&format!("    let y{k} = y{} * 0.5 {op};\n", k - 1));
    }
    format!("fn f(x: f64) -> f64 {{\n{body}    y{n}\n}}\n")
}

fn statements_oracle(n: usize) -> String {
    format!(
        "let (mut value, mut slope) = (x, 1.0);
         for k in 1..={n} {{
             let c = if k % 2 == 0 {{ 1.0 }} else {{ -0.25 }};
             value = value * 0.5 + c * x;
             slope = slope * 0.5 + c;
         }}"
    )
}

/// The four shapes of issue 11.
pub const CASES: [Case; 4] = [
    Case {
        name: "sum",
        full: 10_000,
        function: sum,
        oracle: sum_oracle,
    },
    Case {
        name: "parens",
        full: 1_000,
        function: parens,
        oracle: parens_oracle,
    },
    Case {
        name: "sines",
        full: 1_000,
        function: sines,
        oracle: sines_oracle,
    },
    Case {
        name: "statements",
        full: 10_000,
        function: statements,
        oracle: statements_oracle,
    },
];

/// The whole program for `case` at size `n`: annotated, `main` checks the
/// gradient against the oracle; plain, `main` only prints the value (the
/// baseline of the compile-time comparison).
pub fn program(case: &Case, n: usize, annotated: bool) -> String {
    let function = (case.function)(n);
    if !annotated {
        return format!(
            "{function}\nfn main() {{\n    println!(\"{{}}\", f(std::hint::black_box(0.3)));\n}}\n"
        );
    }
    let oracle = (case.oracle)(n);
    format!(
        "use autodiff::prelude::*;

#[differentiable]
{function}
fn main() {{
    let x: f64 = 0.3;
    {oracle}
    let got = f_grad(x).expect(\"finite\");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * (1.0 + b.abs());
    assert!(close(got.value, value), \"value {{}} vs {{value}}\", got.value);
    assert!(close(got.value, f(x)), \"value {{}} vs plain {{}}\", got.value, f(x));
    assert!(close(got.gradient, slope), \"gradient {{}} vs {{slope}}\", got.gradient);
}}
"
    )
}
