//! The runtime dispatch of the second batch of elementary functions
//! (`__private`'s table-driven dispatch): on a tracked operand each records the node
//! whose value and gradient match a closed form and central differences of
//! the plain `f64` function, on a plain operand it computes that function,
//! and through references it does the same. Errors carry the call's label.

#[path = "support/oracle.rs"]
#[allow(dead_code)]
mod oracle;

use autodiff::__private as new_ops;

use autodiff::{default_step, Label, ScalarAutodiffError, Tape};
use oracle::close;

type Dispatch = for<'t> fn(autodiff::Scalar<'t>) -> autodiff::Scalar<'t>;

const AT: Label = Label::at_line("y", 7);

/// (name, dispatch on a Scalar, dispatch on an f64, closed-form derivative, point)
type Case = (&'static str, Dispatch, fn(f64) -> f64, fn(f64) -> f64, f64);

const CASES: &[Case] = &[
    (
        "tan",
        |x| new_ops::tan(x, AT),
        |x| new_ops::tan(x, AT),
        |x| 1.0 / x.cos().powi(2),
        0.7,
    ),
    (
        "atan",
        |x| new_ops::atan(x, AT),
        |x| new_ops::atan(x, AT),
        |x| 1.0 / (1.0 + x * x),
        -1.3,
    ),
    (
        "sinh",
        |x| new_ops::sinh(x, AT),
        |x| new_ops::sinh(x, AT),
        |x| 0.5 * (x.exp() + (-x).exp()),
        0.9,
    ),
    (
        "cosh",
        |x| new_ops::cosh(x, AT),
        |x| new_ops::cosh(x, AT),
        |x| 0.5 * (x.exp() - (-x).exp()),
        0.9,
    ),
    (
        "asin",
        |x| new_ops::asin(x, AT),
        |x| new_ops::asin(x, AT),
        |x| 1.0 / (1.0 - x * x).sqrt(),
        0.3,
    ),
    (
        "acos",
        |x| new_ops::acos(x, AT),
        |x| new_ops::acos(x, AT),
        |x| -1.0 / (1.0 - x * x).sqrt(),
        0.3,
    ),
    (
        "ln_1p",
        |x| new_ops::ln_1p(x, AT),
        |x| new_ops::ln_1p(x, AT),
        |x| 1.0 / (1.0 + x),
        0.25,
    ),
    (
        "exp_m1",
        |x| new_ops::exp_m1(x, AT),
        |x| new_ops::exp_m1(x, AT),
        f64::exp,
        0.25,
    ),
    (
        "log10",
        |x| new_ops::log10(x, AT),
        |x| new_ops::log10(x, AT),
        |x| 1.0 / (x * 10f64.ln()),
        3.0,
    ),
    (
        "log2",
        |x| new_ops::log2(x, AT),
        |x| new_ops::log2(x, AT),
        |x| 1.0 / (x * 2f64.ln()),
        3.0,
    ),
    (
        "cbrt",
        |x| new_ops::cbrt(x, AT),
        |x| new_ops::cbrt(x, AT),
        |x| x.abs().powf(-2.0 / 3.0) / 3.0,
        -5.0,
    ),
    (
        "signum",
        |x| new_ops::signum(x, AT),
        |x| new_ops::signum(x, AT),
        |_| 0.0,
        -0.4,
    ),
    (
        "floor",
        |x| new_ops::floor(x, AT),
        |x| new_ops::floor(x, AT),
        |_| 0.0,
        2.6,
    ),
    (
        "ceil",
        |x| new_ops::ceil(x, AT),
        |x| new_ops::ceil(x, AT),
        |_| 0.0,
        2.6,
    ),
    (
        "round",
        |x| new_ops::round(x, AT),
        |x| new_ops::round(x, AT),
        |_| 0.0,
        2.6,
    ),
];

#[test]
fn one_operand_functions_record_on_scalars_and_compute_on_f64() {
    for &(name, dispatch, plain, derivative, x0) in CASES {
        let tape = Tape::new();
        let x = tape.variable(x0).unwrap();
        let y = dispatch(x);
        assert_eq!(y.operation().as_str(), name);
        assert_eq!(y.label(), Some(AT), "{name} labels its node");
        y.backward().unwrap();
        // The plain twin is std's function, which the f64 dispatch must be.
        assert_eq!(plain(x0), std_value(name, x0), "{name} on f64");
        assert_eq!(y.value().to_bits(), plain(x0).to_bits(), "{name} value");
        let gradient = x.gradient().unwrap();
        assert!(close(gradient, derivative(x0), 1e-14), "{name}: {gradient}");
        let h = default_step(x0);
        let numerical = (plain(x0 + h) - plain(x0 - h)) / (2.0 * h);
        assert!(
            close(gradient, numerical, 1e-8),
            "{name}: {gradient} vs {numerical}"
        );
        // Through a reference, as `for v in x.iter()` hands them out.
        let by_ref = new_ops::tan(&x, AT);
        assert_eq!(by_ref.value(), x0.tan());
        assert_eq!(new_ops::tan(&x0, AT), x0.tan());
    }
}

/// std's own function by name: the oracle for the f64 dispatch.
fn std_value(name: &str, x: f64) -> f64 {
    match name {
        "tan" => x.tan(),
        "atan" => x.atan(),
        "sinh" => x.sinh(),
        "cosh" => x.cosh(),
        "asin" => x.asin(),
        "acos" => x.acos(),
        "ln_1p" => x.ln_1p(),
        "exp_m1" => x.exp_m1(),
        "log10" => x.log10(),
        "log2" => x.log2(),
        "cbrt" => x.cbrt(),
        "signum" => x.signum(),
        "floor" => x.floor(),
        "ceil" => x.ceil(),
        _ => x.round(),
    }
}

#[test]
fn hypot_and_log_take_any_mix_of_tracked_and_plain_operands() {
    let (a0, b0): (f64, f64) = (1.7, 2.3);
    let partials = |name: &str| -> (f64, f64) {
        if name == "hypot" {
            let h = a0.hypot(b0);
            (a0 / h, b0 / h)
        } else {
            (1.0 / (a0 * b0.ln()), -a0.ln() / (b0 * b0.ln() * b0.ln()))
        }
    };
    for name in ["hypot", "log"] {
        let call = |a, b| {
            if name == "hypot" {
                new_ops::hypot(a, b, AT)
            } else {
                new_ops::log(a, b, AT)
            }
        };
        let call_plain = |a: f64, b: f64| {
            if name == "hypot" {
                new_ops::hypot(a, b, AT)
            } else {
                new_ops::log(a, b, AT)
            }
        };
        let expected = if name == "hypot" {
            a0.hypot(b0)
        } else {
            a0.log(b0)
        };
        assert_eq!(call_plain(a0, b0), expected);
        let (da, db) = partials(name);

        // Both tracked.
        let tape = Tape::new();
        let (a, b) = (tape.variable(a0).unwrap(), tape.variable(b0).unwrap());
        let y = call(a, b);
        y.backward().unwrap();
        assert!(close(y.value(), expected, 1e-15), "{name} value");
        assert!(close(a.gradient().unwrap(), da, 1e-14), "{name} ∂a");
        assert!(close(b.gradient().unwrap(), db, 1e-14), "{name} ∂b");

        // Tracked left, plain right; plain left, tracked right.
        let tape = Tape::new();
        let a = tape.variable(a0).unwrap();
        let y = if name == "hypot" {
            new_ops::hypot(a, b0, AT)
        } else {
            new_ops::log(a, b0, AT)
        };
        y.backward().unwrap();
        assert!(
            close(a.gradient().unwrap(), da, 1e-14),
            "{name} plain right"
        );
        let tape = Tape::new();
        let b = tape.variable(b0).unwrap();
        let y = if name == "hypot" {
            new_ops::hypot(a0, &b, AT)
        } else {
            new_ops::log(a0, &b, AT)
        };
        y.backward().unwrap();
        assert!(close(y.value(), expected, 1e-15), "{name} plain left value");
        assert!(
            close(b.gradient().unwrap(), db, 1e-14),
            "{name} plain left ∂b"
        );
    }
}

#[test]
fn a_domain_error_names_the_call_and_stands_in_the_plain_value() {
    // The sticky path: the error is kept on the tape (the first one only),
    // and the result is an untracked constant holding the plain value.
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let y = new_ops::asin(x, AT);
    assert!(y.value().is_nan() && !y.tracks_gradient());
    let z = new_ops::log(x, 1.0, AT);
    assert_eq!(z.value(), 2.0_f64.log(1.0));
    let error = tape.take_failure().unwrap();
    assert!(matches!(
        error,
        ScalarAutodiffError::NonFiniteResult { label: Some(label), .. } if label == AT
    ));
    assert!(error.to_string().contains("`y`"), "{error}");
    assert!(tape.take_failure().is_none());
}
