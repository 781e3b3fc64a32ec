//! Every row of the table of operations (`autodiff-ops-table`), through
//! both paths of `f_grad`: one `#[differentiable]` function per row is
//! expanded from the table itself, so a new row is tested here without an
//! edit. For each, at ordinary points, in the tails (`tanh` at ±20, `exp`
//! near overflow, `ln` near 0) and with a non-finite operand hidden behind
//! an overflowing product, `f_grad` and `f_grad_tape` give the same `Ok` or
//! `Err` (the same message), the same value bit for bit (but `powi`, whose
//! precision Rust leaves unspecified) and gradients within 1e-12 relative;
//! and the compiled adjoint `f_adjoint` returns `Some` exactly when the
//! tape succeeds, so a finite case really took the compiled path. Behind
//! a hidden operand that is infinite (which the tape records where its
//! local derivatives are finite), the compiled adjoint may hand over to
//! the tape where the tape succeeds, but never answers where it fails.

use autodiff::__adjoint::with_stack;
use autodiff::prelude::*;

use crate::oracle::{close_to_scale, Flat};

/// The operands tried for one-operand functions: ordinary points, then the
/// tails of the functions of the table.
const POINTS: &[f64] = &[
    -2.5, -1.0, -0.7, -0.3, 0.0, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, // ordinary
    19.0, 20.0, -20.0, 40.0, -40.0, // tanh, sigmoid
    700.0, 709.0, 709.7, 710.0, -745.0, -746.0, // exp near overflow
    1e-300, 5e-324, 1e-10, -1e-10, 1e300, -1e300, // ln near 0, huge
];

/// The operands tried for two-operand operations, in every pair.
const PAIR_POINTS: &[f64] = &[-2.0, -0.5, 0.0, 0.5, 1.0, 3.0, 1e-300, 1e300];

/// `(s, t)` scales of the hidden forms `(x * s + x * t).f()` at x = 1e300:
/// the operand is +∞, −∞ or NaN, and the tape has already failed on the
/// product. `(1, 0)` at ordinary points checks the form itself.
const HIDDEN: &[(f64, f64, f64)] = &[
    (1e300, 1e300, 0.0),
    (1e300, -1e300, 0.0),
    (-1e300, 1e300, 0.0),
    (1e300, 1e300, -1e300),
    (0.5, 1.0, 0.0),
    (-0.5, 1.0, 0.0),
    (2.0, 1.0, 0.5),
];

type Grad<G> = Result<ValueAndGradient<G>, ScalarAutodiffError>;

/// The contract between the two paths at one point.
fn agree<G: Flat>(
    row: &str,
    at: &str,
    fast: Grad<G>,
    tape: Grad<G>,
    compiled: Option<ValueAndGradient<G>>,
    exact_value: bool,
    hidden: bool,
) {
    let here = format!("{row} at {at}");
    match (&fast, &tape) {
        (Ok(fast), Ok(tape)) => {
            if exact_value {
                assert_eq!(
                    fast.value.to_bits(),
                    tape.value.to_bits(),
                    "{here}: value {} vs tape {}",
                    fast.value,
                    tape.value
                );
            } else {
                assert!(close(fast.value, tape.value), "{here}: value");
            }
            for (f, t) in fast
                .gradient
                .components()
                .into_iter()
                .zip(tape.gradient.components())
            {
                assert!(close(f, t), "{here}: gradient {f:e} vs tape {t:e}");
            }
        }
        (Err(fast), Err(tape)) => assert_eq!(fast.to_string(), tape.to_string(), "{here}"),
        _ => panic!(
            "{here}: f_grad {} but f_grad_tape {}",
            verdict(&fast),
            verdict(&tape)
        ),
    }
    let handed_over = hidden && compiled.is_none() && tape.is_ok();
    assert_eq!(
        compiled.is_some() || handed_over,
        tape.is_ok(),
        "{here}: the compiled adjoint {} where the tape {}",
        if compiled.is_some() {
            "succeeded"
        } else {
            "fell back"
        },
        verdict(&tape)
    );
    if let (Some(compiled), Ok(fast)) = (compiled, fast) {
        // `f_grad` is the compiled adjoint when it succeeds.
        assert_eq!(compiled.value.to_bits(), fast.value.to_bits(), "{here}");
    }
}

fn verdict<G>(result: &Grad<G>) -> String {
    match result {
        Ok(result) => format!("is Ok ({})", result.value),
        Err(error) => format!("is Err ({error})"),
    }
}

/// Within 1e-12 relative to the larger, with no absolute floor (unlike
/// the shared `close`: a row's small derivatives are judged relatively
/// too), or the same bits (zeros, infinities). `close_to_scale` counts a
/// scale below 1e-300 as 1e-300, which admits differences below 1e-312
/// between two values that small, as good as equal for this table.
fn close(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || close_to_scale(a, b, 1e-12, a.abs().max(b.abs()))
}

/// One module per row (the body passed as tokens, not as an `expr`
/// fragment, so that the attribute sees it as written), with `direct` (the operation on the parameters)
/// and `hidden` (the operation on `x * s + x * t`, `s` and `t` constants)
/// and `check()`, which walks them over the points.
macro_rules! walk {
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        $(walk!(@row $variant $name $spelling $(($($how),*))?);)*

        /// Every row's name, with its check.
        const ROWS: &[(&str, fn())] = &[$(($name, $variant::check)),*];
    };
    // The leaves are recorded by every other row.
    (@row $variant:ident $name:literal leaf) => {
        walk!(@module $variant $name unary [exact] |x| { x });
    };
    (@row Negate $name:literal operator("-")) => {
        walk!(@module Negate $name unary [exact] |x| { -x });
    };
    (@row $variant:ident $name:literal operator("+")) => {
        walk!(@module $variant $name binary |a, b| { a + b });
    };
    (@row $variant:ident $name:literal operator("-")) => {
        walk!(@module $variant $name binary |a, b| { a - b });
    };
    (@row $variant:ident $name:literal operator("*")) => {
        walk!(@module $variant $name binary |a, b| { a * b });
    };
    (@row $variant:ident $name:literal operator("/")) => {
        walk!(@module $variant $name binary |a, b| { a / b });
    };
    (@row $variant:ident $name:literal method(powi, 1)) => {
        walk!(@module $variant $name unary [approximate] |x| { x.powi(3) + x.powi(-2) });
    };
    (@row $variant:ident $name:literal method($method:ident, 0)) => {
        walk!(@module $variant $name unary [exact] |x| { x.$method() });
    };
    (@row $variant:ident $name:literal method($method:ident, 1)) => {
        walk!(@module $variant $name binary |a, b| { a.$method(b) });
    };
    (@row $variant:ident $name:literal function($function:ident)) => {
        walk!(@module $variant $name unary [exact] |x| { $function(x) });
    };
    (@module $variant:ident $name:literal unary [$exact:ident] |$x:ident| { $($body:tt)* }) => {
        #[allow(non_snake_case, dead_code)]
        mod $variant {
            use super::*;

            #[differentiable]
            pub fn direct($x: f64) -> f64 {
                $($body)*
            }

            #[differentiable]
            pub fn hidden($x: f64, #[constant] s: f64, #[constant] t: f64) -> f64 {
                let $x = $x * s + $x * t;
                $($body)*
            }

            pub fn check() {
                let exact = walk!(@exact $exact);
                for &x in POINTS {
                    let compiled = with_stack(|stack| direct_adjoint(stack, x));
                    agree($name, &format!("{x:e}"), direct_grad(x), direct_grad_tape(x), compiled, exact, false);
                }
                for &(x, s, t) in HIDDEN {
                    let compiled = with_stack(|stack| hidden_adjoint(stack, x, s, t));
                    let at = format!("x = {x:e}, operand x·{s:e} + x·{t:e}");
                    agree($name, &at, hidden_grad(x, s, t), hidden_grad_tape(x, s, t), compiled, exact, true);
                }
            }
        }
    };
    (@module $variant:ident $name:literal binary |$a:ident, $b:ident| { $($body:tt)* }) => {
        #[allow(non_snake_case, dead_code)]
        mod $variant {
            use super::*;

            #[differentiable]
            pub fn direct($a: f64, $b: f64) -> f64 {
                $($body)*
            }

            #[differentiable]
            pub fn hidden($a: f64, $b: f64, #[constant] s: f64, #[constant] t: f64) -> f64 {
                let $a = $a * s;
                let $b = $b * t;
                $($body)*
            }

            pub fn check() {
                for &a in PAIR_POINTS {
                    for &b in PAIR_POINTS {
                        let compiled = with_stack(|stack| direct_adjoint(stack, a, b));
                        let at = format!("({a:e}, {b:e})");
                        agree($name, &at, direct_grad(a, b), direct_grad_tape(a, b), compiled, true, false);
                    }
                }
                for &(x, s, t) in HIDDEN {
                    for (a, b) in [(x, 1.5), (1.5, x)] {
                        let compiled = with_stack(|stack| hidden_adjoint(stack, a, b, s, t));
                        let at = format!("({a:e}·{s:e}, {b:e}·{t:e})");
                        agree($name, &at, hidden_grad(a, b, s, t), hidden_grad_tape(a, b, s, t), compiled, true, true);
                    }
                }
            }
        }
    };
    (@exact exact) => { true };
    (@exact approximate) => { false };
}

autodiff_ops_table::operations!(walk);

#[test]
fn every_row_agrees_on_both_paths() {
    assert_eq!(ROWS.len(), autodiff_ops_table::OPERATIONS.len());
    for (row, (name, check)) in autodiff_ops_table::OPERATIONS.iter().zip(ROWS) {
        assert_eq!(row.name, *name);
        check();
    }
}

/// `tanh`'s derivative in both tails is the one rule, on both paths, and
/// accurate: against 4e/(1 + e)², e = e^(−2|x|), with the square's rounding
/// error carried (two-sum and fused products), an evaluation independent
/// of the rule's.
#[test]
fn tanh_keeps_its_slope_in_the_tails() {
    for x in [19.0_f64, 20.0, -20.0, 40.0, -40.0] {
        let e = (-2.0 * x.abs()).exp();
        let s = 1.0 + e;
        let s_low = e - (s - 1.0);
        let square = s * s;
        let square_low = s.mul_add(s, -square) + 2.0 * s * s_low;
        let want = 4.0 * e / (square + square_low);
        let fast = Tanh::direct_grad(x).unwrap().gradient;
        let tape = Tanh::direct_grad_tape(x).unwrap().gradient;
        assert_eq!(fast.to_bits(), tape.to_bits(), "tanh'({x})");
        assert!(
            (fast / want - 1.0).abs() < 4e-16,
            "tanh'({x}) = {fast:e}, want {want:e}"
        );
        assert!(fast > 0.0);
    }
}
