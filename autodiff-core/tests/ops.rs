//! Every operation's value and derivative against a closed form written
//! here, and against central differences of the plain function.

// For `close`: the tolerance the facade's tests state theirs in.
#[path = "../../tests/support/oracle.rs"]
#[allow(dead_code)]
mod oracle;

use autodiff_core::{default_step, relu, sigmoid, Operand, Scalar, ScalarAutodiffError, Tape};
use oracle::close;

type Record = for<'t> fn(Scalar<'t>) -> Result<Scalar<'t>, ScalarAutodiffError>;

struct Unary {
    name: &'static str,
    record: Record,
    plain: fn(f64) -> f64,
    derivative: fn(f64) -> f64,
    points: &'static [f64],
}

const UNARY: &[Unary] = &[
    Unary {
        name: "neg",
        record: |x| x.neg(),
        plain: |x| -x,
        derivative: |_| -1.0,
        points: &[-2.0, 0.3, 5.0],
    },
    Unary {
        name: "exp",
        record: |x| x.exp(),
        plain: f64::exp,
        derivative: f64::exp,
        points: &[-3.0, 0.0, 2.5],
    },
    Unary {
        name: "ln",
        record: |x| x.ln(),
        plain: f64::ln,
        derivative: |x| 1.0 / x,
        points: &[0.1, 1.0, 7.0],
    },
    Unary {
        name: "tanh",
        record: |x| x.tanh(),
        plain: f64::tanh,
        derivative: |x| 1.0 / x.cosh().powi(2),
        points: &[-1.5, 0.0, 0.7],
    },
    Unary {
        name: "sin",
        record: |x| x.sin(),
        plain: f64::sin,
        derivative: f64::cos,
        points: &[-2.0, 0.0, 1.2],
    },
    Unary {
        name: "cos",
        record: |x| x.cos(),
        plain: f64::cos,
        derivative: |x| -x.sin(),
        points: &[-2.0, 0.5, 3.0],
    },
    Unary {
        name: "sqrt",
        record: |x| x.sqrt(),
        plain: f64::sqrt,
        derivative: |x| 0.5 * x.powf(-0.5),
        points: &[0.25, 2.0, 9.0],
    },
    Unary {
        name: "powi(3)",
        record: |x| x.powi(3),
        plain: |x| x * x * x,
        derivative: |x| 3.0 * x * x,
        points: &[-2.0, 0.5, 1.5],
    },
    Unary {
        name: "powi(-2)",
        record: |x| x.powi(-2),
        plain: |x| 1.0 / (x * x),
        derivative: |x| -2.0 / (x * x * x),
        points: &[-2.0, 0.5, 1.5],
    },
    Unary {
        name: "powi(0)",
        record: |x| x.powi(0),
        plain: |_| 1.0,
        derivative: |_| 0.0,
        points: &[-2.0, 0.0, 1.5],
    },
    Unary {
        name: "powf(2.5)",
        record: |x| x.powf(2.5),
        plain: |x| x * x * x.sqrt(),
        derivative: |x| 2.5 * x * x.sqrt(),
        points: &[0.5, 1.0, 4.0],
    },
    Unary {
        name: "2^x (rpowf)",
        record: |x| x.rpowf(2.0),
        plain: |x| 2.0_f64.powf(x),
        derivative: |x| std::f64::consts::LN_2 * 2.0_f64.powf(x),
        points: &[-1.0, 0.0, 3.5],
    },
    Unary {
        name: "abs",
        record: |x| x.abs(),
        plain: f64::abs,
        derivative: |x| x.signum(),
        points: &[-2.0, 3.0],
    },
    Unary {
        name: "recip",
        record: |x| x.recip(),
        plain: |x| 1.0 / x,
        derivative: |x| -1.0 / (x * x),
        points: &[-4.0, 0.5, 2.0],
    },
    Unary {
        name: "relu",
        record: |x| x.relu(),
        plain: relu,
        derivative: |x| if x > 0.0 { 1.0 } else { 0.0 },
        points: &[-1.0, 2.0],
    },
    Unary {
        name: "sigmoid",
        record: |x| x.sigmoid(),
        plain: |x| 1.0 / (1.0 + (-x).exp()),
        derivative: |x| (-x).exp() / (1.0 + (-x).exp()).powi(2),
        points: &[-3.0, 0.0, 1.7],
    },
    Unary {
        name: "3 - x (rsub)",
        record: |x| x.rsub(3.0),
        plain: |x| 3.0 - x,
        derivative: |_| -1.0,
        points: &[-1.0, 2.0],
    },
    Unary {
        name: "3 / x (rdiv)",
        record: |x| x.rdiv(3.0),
        plain: |x| 3.0 / x,
        derivative: |x| -3.0 / (x * x),
        points: &[-1.0, 2.0],
    },
    Unary {
        name: "tan",
        record: |x| x.tan(),
        plain: f64::tan,
        derivative: |x| 1.0 / x.cos().powi(2),
        points: &[-1.0, 0.0, 0.5, 1.2],
    },
    Unary {
        name: "atan",
        record: |x| x.atan(),
        plain: f64::atan,
        derivative: |x| 1.0 / (1.0 + x * x),
        points: &[-3.0, 0.0, 0.8],
    },
    Unary {
        name: "sinh",
        record: |x| x.sinh(),
        plain: f64::sinh,
        derivative: |x| 0.5 * (x.exp() + (-x).exp()),
        points: &[-2.0, 0.0, 1.3],
    },
    Unary {
        name: "cosh",
        record: |x| x.cosh(),
        plain: f64::cosh,
        derivative: |x| 0.5 * (x.exp() - (-x).exp()),
        points: &[-2.0, 0.4, 1.3],
    },
    Unary {
        name: "asin",
        record: |x| x.asin(),
        plain: f64::asin,
        derivative: |x| 1.0 / (1.0 - x * x).sqrt(),
        points: &[-0.9, 0.0, 0.5],
    },
    Unary {
        name: "acos",
        record: |x| x.acos(),
        plain: f64::acos,
        derivative: |x| -1.0 / (1.0 - x * x).sqrt(),
        points: &[-0.9, 0.0, 0.5],
    },
    Unary {
        name: "ln_1p",
        record: |x| x.ln_1p(),
        plain: f64::ln_1p,
        derivative: |x| 1.0 / (1.0 + x),
        points: &[-0.5, 1e-10, 3.0],
    },
    Unary {
        name: "exp_m1",
        record: |x| x.exp_m1(),
        plain: f64::exp_m1,
        derivative: f64::exp,
        points: &[-2.0, 1e-10, 1.5],
    },
    Unary {
        name: "log10",
        record: |x| x.log10(),
        plain: f64::log10,
        derivative: |x| 1.0 / (x * 10f64.ln()),
        points: &[0.1, 1.0, 250.0],
    },
    Unary {
        name: "log2",
        record: |x| x.log2(),
        plain: f64::log2,
        derivative: |x| 1.0 / (x * 2f64.ln()),
        points: &[0.1, 1.0, 250.0],
    },
    Unary {
        name: "cbrt",
        record: |x| x.cbrt(),
        plain: f64::cbrt,
        derivative: |x| x.abs().powf(-2.0 / 3.0) / 3.0,
        points: &[-8.0, 0.5, 27.0],
    },
    Unary {
        name: "signum",
        record: |x| x.signum(),
        plain: f64::signum,
        derivative: |_| 0.0,
        points: &[-2.5, 0.7],
    },
    Unary {
        name: "floor",
        record: |x| x.floor(),
        plain: f64::floor,
        derivative: |_| 0.0,
        points: &[-2.5, 0.3, 4.7],
    },
    Unary {
        name: "ceil",
        record: |x| x.ceil(),
        plain: f64::ceil,
        derivative: |_| 0.0,
        points: &[-2.5, 0.3, 4.7],
    },
    Unary {
        name: "round",
        record: |x| x.round(),
        plain: f64::round,
        derivative: |_| 0.0,
        points: &[-2.7, 0.3, 4.2],
    },
];

fn central(f: fn(f64) -> f64, x: f64) -> f64 {
    let h = default_step(x);
    (f(x + h) - f(x - h)) / (2.0 * h)
}

#[test]
fn unary_operations_match_closed_forms_and_central_differences() {
    for op in UNARY {
        for &x0 in op.points {
            let tape = Tape::new();
            let x = tape.variable(x0).unwrap();
            let y = (op.record)(x).unwrap();
            y.backward().unwrap();
            let gradient = x.gradient().unwrap();
            let expected = (op.derivative)(x0);
            assert!(
                close(y.value(), (op.plain)(x0), 1e-15),
                "{} value at {x0}: {} vs {}",
                op.name,
                y.value(),
                (op.plain)(x0)
            );
            assert!(
                close(gradient, expected, 1e-14),
                "{} derivative at {x0}: {gradient} vs closed form {expected}",
                op.name
            );
            let numerical = central(op.plain, x0);
            assert!(
                close(gradient, numerical, 1e-8),
                "{} derivative at {x0}: {gradient} vs central difference {numerical}",
                op.name
            );
        }
    }
}

/// Binary operations: ∂/∂a and ∂/∂b against closed forms, with scalar and
/// plain right operands.
fn apply<'t>(
    name: &str,
    a: Scalar<'t>,
    rhs: Operand<'t>,
) -> Result<Scalar<'t>, ScalarAutodiffError> {
    match name {
        "add" => a.add(rhs),
        "sub" => a.sub(rhs),
        "mul" => a.mul(rhs),
        "div" => a.div(rhs),
        "powf" => a.powf(rhs),
        "max" => a.max(rhs),
        "hypot" => a.hypot(rhs),
        "log" => a.log(rhs),
        _ => a.min(rhs),
    }
}

#[test]
fn binary_operations_match_closed_forms() {
    type Plain = fn(f64, f64) -> f64;
    type Partials = fn(f64, f64) -> (f64, f64);
    let cases: [(&str, Plain, Partials); 9] = [
        ("add", |a, b| a + b, |_, _| (1.0, 1.0)),
        ("sub", |a, b| a - b, |_, _| (1.0, -1.0)),
        ("mul", |a, b| a * b, |a, b| (b, a)),
        ("div", |a, b| a / b, |a, b| (1.0 / b, -a / (b * b))),
        ("powf", f64::powf, |a, b| {
            (b * a.powf(b - 1.0), a.ln() * a.powf(b))
        }),
        (
            "max",
            f64::max,
            |a, b| if a > b { (1.0, 0.0) } else { (0.0, 1.0) },
        ),
        (
            "min",
            f64::min,
            |a, b| if a < b { (1.0, 0.0) } else { (0.0, 1.0) },
        ),
        ("hypot", f64::hypot, |a, b| {
            let h = (a * a + b * b).sqrt();
            (a / h, b / h)
        }),
        (
            "log",
            |a, b| a.ln() / b.ln(),
            |a, b| (1.0 / (a * b.ln()), -a.ln() / (b * b.ln() * b.ln())),
        ),
    ];
    for (name, plain, partials) in cases {
        for (a0, b0) in [(1.5, 0.7), (0.4, 2.2), (3.0, 1.25)] {
            let tape = Tape::new();
            let a = tape.variable(a0).unwrap();
            let b = tape.variable(b0).unwrap();
            let y = apply(name, a, b.into()).unwrap();
            y.backward().unwrap();
            let (da, db) = partials(a0, b0);
            assert!(close(y.value(), plain(a0, b0), 1e-15), "{name} value");
            assert!(close(a.gradient().unwrap(), da, 1e-14), "{name} ∂a");
            assert!(close(b.gradient().unwrap(), db, 1e-14), "{name} ∂b");

            // The same with a plain right operand: one edge, same ∂a.
            let before = a.gradient().unwrap();
            let b_before = b.gradient().map(f64::to_bits);
            let z = apply(name, a, b0.into()).unwrap();
            z.backward().unwrap();
            assert!(
                close(a.gradient().unwrap() - before, da, 1e-14),
                "{name} plain ∂a"
            );
            assert_eq!(
                b.gradient().map(f64::to_bits),
                b_before,
                "a plain operand is not b"
            );
        }
    }
}

#[test]
fn kinks_take_the_documented_values() {
    let tape = Tape::new();
    let x = tape.variable(0.0).unwrap();
    for (name, y) in [("abs", x.abs()), ("relu", x.relu())] {
        let y = y.unwrap();
        let pass = y.backward().unwrap();
        assert_eq!(pass.edges()[0].local_derivative, 0.0, "{name} at 0");
    }
    // A tie splits evenly: both operands are the same x here.
    let m = x.max(x).unwrap();
    let pass = m.backward().unwrap();
    let split: Vec<f64> = pass.edges().iter().map(|e| e.local_derivative).collect();
    assert_eq!(split, vec![0.5, 0.5]);
    let tape = Tape::new();
    let a = tape.variable(1.0).unwrap();
    let b = tape.variable(1.0).unwrap();
    a.min(b).unwrap().backward().unwrap();
    assert_eq!((a.gradient(), b.gradient()), (Some(0.5), Some(0.5)));
}

#[test]
fn sigmoid_is_stable_far_from_zero() {
    assert_eq!(sigmoid(-800.0), 0.0);
    assert_eq!(sigmoid(800.0), 1.0);
    let tape = Tape::new();
    let x = tape.variable(-40.0).unwrap();
    let y = x.sigmoid().unwrap();
    y.backward().unwrap();
    let expected = (-40.0_f64).exp(); // σ'(x) ≈ e^x for very negative x
    assert!(close(x.gradient().unwrap(), expected, 1e-12));
}

#[test]
fn power_edge_cases() {
    let tape = Tape::new();
    // 0^y for y > 0: derivative in the exponent is the limit 0.
    let base = tape.variable(0.0).unwrap();
    let exponent = tape.variable(2.0).unwrap();
    base.powf(exponent).unwrap().backward().unwrap();
    assert_eq!(
        (base.gradient(), exponent.gradient()),
        (Some(0.0), Some(0.0))
    );
    // A negative base with a plain integer-valued exponent is fine.
    let x = tape.variable(-3.0).unwrap();
    x.powf(2.0).unwrap().backward().unwrap();
    assert_eq!(x.gradient(), Some(-6.0));
    // With a tracked exponent, ln(-3) has no real value: a typed error.
    let y = tape.variable(2.0).unwrap();
    let err = x.powf(y).unwrap_err();
    assert_eq!(err.code(), "non-finite-local-derivative");
}

/// Far from 0, tanh and σ are within an ulp of ±1 or 0, so 1 − tanh² and
/// σ(1 − σ) would lose every digit; the derivatives keep theirs. Oracles:
/// tanh'(x) = 4e^(−2|x|) / (1 + e^(−2|x|))² and σ'(x) = e^(−|x|) − 2e^(−2|x|) + …
#[test]
fn tanh_and_sigmoid_derivatives_keep_their_digits_in_the_tails() {
    for x0 in [-30.0, 19.0, 25.0] {
        let tape = Tape::new();
        let x = tape.variable(x0).unwrap();
        x.tanh().unwrap().backward().unwrap();
        let e = (-2.0 * f64::abs(x0)).exp();
        let expected = 4.0 * e / ((1.0 + e) * (1.0 + e));
        assert!(close(x.gradient().unwrap(), expected, 1e-14), "tanh'({x0})");
        assert!(expected > 0.0);
    }
    for x0 in [-40.0, 40.0, 60.0] {
        let tape = Tape::new();
        let x = tape.variable(x0).unwrap();
        x.sigmoid().unwrap().backward().unwrap();
        let e = (-f64::abs(x0)).exp();
        let gradient = x.gradient().unwrap();
        assert!(gradient > 0.0, "σ'({x0}) must not round to 0");
        assert!(
            ((gradient - e) / e).abs() < 1e-15,
            "σ'({x0}) = {gradient}, ≈ {e}"
        );
    }
}

#[test]
fn the_plain_twins_agree_with_the_recorded_values_bit_for_bit() {
    for x0 in [-50.0, -3.0, -0.0, 0.0, 0.7, 12.0, 700.0] {
        let tape = Tape::new();
        let x = tape.variable(x0).unwrap();
        assert_eq!(
            x.sigmoid().unwrap().value().to_bits(),
            sigmoid(x0).to_bits()
        );
        assert_eq!(x.relu().unwrap().value().to_bits(), relu(x0).to_bits());
    }
}

/// The binary operations of issue 11 against central differences in each
/// operand, and `rlog` (a plain value, a tracked base) against its closed
/// form.
#[test]
fn hypot_and_log_match_central_differences() {
    for (a0, b0) in [(1.5, 0.7), (0.4, 2.2), (3.0, 1.25)] {
        for name in ["hypot", "log"] {
            let tape = Tape::new();
            let a = tape.variable(a0).unwrap();
            let b = tape.variable(b0).unwrap();
            apply(name, a, b.into()).unwrap().backward().unwrap();
            let plain = |x: f64, y: f64| {
                if name == "hypot" {
                    x.hypot(y)
                } else {
                    x.log(y)
                }
            };
            let (ha, hb) = (default_step(a0), default_step(b0));
            let da = (plain(a0 + ha, b0) - plain(a0 - ha, b0)) / (2.0 * ha);
            let db = (plain(a0, b0 + hb) - plain(a0, b0 - hb)) / (2.0 * hb);
            assert!(close(a.gradient().unwrap(), da, 1e-8), "{name} ∂a");
            assert!(close(b.gradient().unwrap(), db, 1e-8), "{name} ∂b");
        }
        let tape = Tape::new();
        let base = tape.variable(b0).unwrap();
        let y = base.rlog(a0).unwrap();
        y.backward().unwrap();
        assert!(close(y.value(), a0.ln() / b0.ln(), 1e-15));
        let expected = -a0.ln() / (b0 * b0.ln() * b0.ln());
        assert!(close(base.gradient().unwrap(), expected, 1e-14), "rlog");
    }
}

/// The documented edge values: `hypot` at the origin is a kink with
/// derivative 0; `asin` at 1 and `cbrt` at 0 have infinite derivatives, and
/// `asin` outside [−1, 1] is NaN: typed errors, nothing recorded.
#[test]
fn new_functions_at_their_edges() {
    let tape = Tape::new();
    let (a, b) = (tape.variable(0.0).unwrap(), tape.variable(0.0).unwrap());
    let h = a.hypot(b).unwrap();
    h.backward().unwrap();
    assert_eq!(
        (h.value(), a.gradient(), b.gradient()),
        (0.0, Some(0.0), Some(0.0))
    );

    let tape = Tape::new();
    let one = tape.variable(1.0).unwrap();
    let nodes = tape.len();
    assert!(matches!(
        one.asin(),
        Err(ScalarAutodiffError::NonFiniteLocalDerivative { .. })
    ));
    let two = tape.variable(2.0).unwrap();
    assert!(matches!(
        two.asin(),
        Err(ScalarAutodiffError::NonFiniteResult { .. })
    ));
    let zero = tape.variable(0.0).unwrap();
    assert!(matches!(
        zero.cbrt(),
        Err(ScalarAutodiffError::NonFiniteLocalDerivative { .. })
    ));
    assert_eq!(
        tape.len(),
        nodes + 2,
        "only the two variables were recorded"
    );

    // Step functions pass no gradient, at a jump too.
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    for y in [x.floor(), x.ceil(), x.round(), x.signum()] {
        y.unwrap().backward().unwrap();
    }
    assert_eq!(x.gradient(), Some(0.0));
}

/// `(g(x + h) − g(x − h)) / 2h` for a derivative `g`: the oracle for a
/// second derivative.
fn central_slope(g: impl Fn(f64) -> f64, x: f64) -> f64 {
    let h = 1e-5 * x.abs().max(1.0);
    (g(x + h) - g(x - h)) / (2.0 * h)
}

/// Piecewise-linear or piecewise-constant operations: second derivative 0.
const FLAT: &[&str] = &[
    "neg",
    "abs",
    "relu",
    "signum",
    "floor",
    "ceil",
    "round",
    "3 - x (rsub)",
];

#[test]
fn second_derivatives_of_every_one_operand_operation_match_central_differences_of_the_first() {
    for op in UNARY {
        for &x0 in op.points {
            let tape = Tape::new();
            let x = tape.variable(x0).unwrap();
            let y = (op.record)(x).unwrap();
            let pass = y.hvp(&[1.0]).unwrap();
            // The gradient part is the reverse pass's, bit for bit.
            y.backward().unwrap();
            assert_eq!(pass.gradient(x), x.gradient().unwrap(), "{}", op.name);
            // Forward mode gives the same first derivative.
            let slope = y.jvp(&[1.0]).unwrap();
            assert!(
                close(slope, pass.gradient(x), 1e-15),
                "{} jvp at {x0}",
                op.name
            );
            let second = pass.hvp(x);
            if FLAT.contains(&op.name) {
                assert_eq!(second, 0.0, "{} at {x0}", op.name);
                continue;
            }
            let expected = central_slope(op.derivative, x0);
            assert!(
                close(second, expected, 1e-6),
                "{} second derivative at {x0}: {second} vs central difference {expected}",
                op.name
            );
        }
    }
}

#[test]
fn mixed_second_derivatives_of_two_operand_operations_match_central_differences() {
    // Each case's closed-form partials; their central differences are the
    // Hessian's rows.
    type Partials = fn(f64, f64) -> (f64, f64);
    let cases: [(&str, Partials); 7] = [
        ("mul", |a, b| (b, a)),
        ("div", |a, b| (1.0 / b, -a / (b * b))),
        ("powf", |a, b| (b * a.powf(b - 1.0), a.ln() * a.powf(b))),
        ("hypot", |a, b| {
            let h = (a * a + b * b).sqrt();
            (a / h, b / h)
        }),
        ("log", |a, b| {
            (1.0 / (a * b.ln()), -a.ln() / (b * b.ln() * b.ln()))
        }),
        ("add", |_, _| (1.0, 1.0)),
        ("max", |a, b| if a > b { (1.0, 0.0) } else { (0.0, 1.0) }),
    ];
    for (name, partials) in cases {
        for (a0, b0) in [(1.5, 0.7), (0.4, 2.2), (3.0, 1.25)] {
            let tape = Tape::new();
            let a = tape.variable(a0).unwrap();
            let b = tape.variable(b0).unwrap();
            let y = apply(name, a, b.into()).unwrap();
            let along_a = y.hvp(&[1.0, 0.0]).unwrap();
            let along_b = y.hvp(&[0.0, 1.0]).unwrap();
            let want = [
                [
                    central_slope(|a| partials(a, b0).0, a0),
                    central_slope(|b| partials(a0, b).0, b0),
                ],
                [
                    central_slope(|a| partials(a, b0).1, a0),
                    central_slope(|b| partials(a0, b).1, b0),
                ],
            ];
            let got = [
                [along_a.hvp(a), along_b.hvp(a)],
                [along_a.hvp(b), along_b.hvp(b)],
            ];
            for i in 0..2 {
                for j in 0..2 {
                    assert!(
                        close(got[i][j], want[i][j], 1e-6),
                        "{name} H[{i}][{j}] at ({a0}, {b0}): {} vs {}",
                        got[i][j],
                        want[i][j]
                    );
                }
            }
            // With a plain right operand the rule reads it from the tape.
            let z = apply(name, a, b0.into()).unwrap();
            let plain = z.hvp(&[1.0, 0.0]).unwrap();
            assert!(close(plain.hvp(a), want[0][0], 1e-6), "{name} plain right");
        }
    }
}

#[test]
fn forward_mode_refuses_tangents_it_cannot_use_and_changes_nothing() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let c = tape.constant(3.0).unwrap();
    let y = x.mul(c).unwrap().exp().unwrap();
    let len = tape.len();
    let refused = |error: ScalarAutodiffError| error.code() == "invalid-tangent";
    assert!(refused(y.jvp(&[f64::NAN]).unwrap_err()));
    assert!(refused(y.jvp(&[0.0, 1.0]).unwrap_err()), "a constant");
    assert!(
        refused(y.hvp(&[0.0, 0.0, 1.0]).unwrap_err()),
        "an operation"
    );
    assert!(refused(x.jvp(&[0.0, 0.0, 0.0, 0.0, 1.0]).unwrap_err()));
    assert_eq!(tape.len(), len);
    assert_eq!(x.gradient(), Some(0.0));
    // 3e^{3x}: along 1 it is the derivative, and the tape stored nothing.
    let slope = y.jvp(&[1.0]).unwrap();
    assert!(close(slope, 3.0 * (6.0_f64).exp(), 1e-15));
    assert_eq!(x.gradient(), Some(0.0));
}

#[test]
fn an_infinite_second_derivative_is_a_labelled_error_where_the_first_is_finite() {
    use autodiff_core::Label;
    let tape = Tape::new();
    let x = tape.variable(0.0).unwrap();
    // d/dx x^1.5 = 1.5 √x is 0 at 0; its derivative is infinite there.
    let y = x
        .powf(1.5)
        .unwrap()
        .labeled(Label::at_line("x.powf(1.5)", 7));
    assert_eq!(y.jvp(&[1.0]).unwrap(), 0.0);
    let error = y.hvp(&[1.0]).unwrap_err();
    assert_eq!(error.code(), "non-finite-second-derivative");
    assert!(
        error.to_string().contains("`x.powf(1.5)` (line 7)"),
        "{error}"
    );
    // Forward mode overflowing is its own error.
    let big = tape.variable(700.0).unwrap();
    let e = big.exp().unwrap();
    let error = e.jvp(&[0.0, 0.0, 1e300]).unwrap_err();
    assert_eq!(error.code(), "non-finite-tangent");
}

#[test]
fn a_tangent_that_overflows_where_the_output_does_not_read_it_fails_neither_pass() {
    // x = 700 along 1e300: every tangent from `x.exp()` on overflows. A
    // dead node before the output's nodes and one between them overflow;
    // the output, x·sin x, reads neither, so both passes answer, as
    // `backward` does. The same overflow on a node the output reads
    // fails, naming that node.
    let tape = Tape::new();
    let x = tape.variable(700.0).unwrap();
    let _dead_before = x.exp().unwrap().mul(x).unwrap();
    let s = x.sin().unwrap();
    let _dead_between = x.exp().unwrap().add(s).unwrap();
    let y = s.mul(x).unwrap();
    let v = 1e300;
    let (x0, want) = (
        700.0_f64,
        (700.0_f64.sin() + 700.0 * 700.0_f64.cos()) * 1e300,
    );
    let slope = y.jvp(&[v]).unwrap();
    assert!(close(slope, want, 1e-12), "{slope} vs {want}");
    let pass = y.hvp(&[v]).unwrap();
    let second = (2.0 * x0.cos() - x0 * x0.sin()) * v;
    assert!(
        close(pass.hvp(x), second, 1e-12),
        "{} vs {second}",
        pass.hvp(x)
    );
    assert_eq!(pass.gradient(_dead_between), 0.0);
    // Read by the output: the first node it reads that overflows (the
    // second `exp`, node 4; node 1 is still dead) is named.
    let read = y.add(_dead_between).unwrap();
    let error = read.jvp(&[v]).unwrap_err();
    assert_eq!(error.code(), "non-finite-tangent");
    assert!(
        matches!(error, ScalarAutodiffError::NonFiniteTangent { node, .. } if node == 4),
        "{error:?}"
    );
    assert_eq!(read.hvp(&[v]).unwrap_err().code(), "non-finite-tangent");
}

#[test]
fn passes_in_a_row_reuse_their_arrays_and_agree() {
    // A Hessian runs one pass per variable, on arrays the last pass
    // leaves to the thread: every pass must start from zeros. f = x²y +
    // y³ on tapes of different lengths, in turn: H = [[2y, 2x], [2x, 6y]].
    let (x0, y0) = (1.5, -0.5);
    for round in 0..4 {
        let tape = Tape::new();
        // A longer tape every other round: the arrays change length.
        let mut pad = tape.variable(0.25).unwrap();
        for _ in 0..(round % 2) * 50 {
            pad = pad.sin().unwrap();
        }
        let x = tape.variable(x0).unwrap();
        let y = tape.variable(y0).unwrap();
        let f = x
            .mul(x)
            .unwrap()
            .mul(y)
            .unwrap()
            .add(y.powi(3).unwrap())
            .unwrap();
        let (ix, iy) = (x.index(), y.index());
        let mut along = vec![0.0; iy + 1];
        along[ix] = 1.0;
        let first = f.hvp(&along).unwrap();
        along[ix] = 0.0;
        along[iy] = 1.0;
        let second = f.hvp(&along).unwrap();
        let h = [[first.hvp(x), second.hvp(x)], [first.hvp(y), second.hvp(y)]];
        assert_eq!(
            h,
            [[2.0 * y0, 2.0 * x0], [2.0 * x0, 6.0 * y0]],
            "round {round}"
        );
        assert_eq!(first.hvp(pad), 0.0);
        assert_eq!(first.gradient(x), 2.0 * x0 * y0);
        drop((first, second));
    }
}
