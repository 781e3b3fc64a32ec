//! `Dual`'s `Float` methods against `f64`'s: each tangent against central
//! differences of the same method on `f64`, each value bit for bit, the
//! constants and predicates as `f64` gives them.

use super::*;

/// Both NaN, or the same bits.
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

/// At `point`, with every operand a constant, `dual` has `plain`'s value
/// and tangent 0; with operand `i` the variable, its tangent is the
/// central difference `(f(x + h) − f(x − h)) / 2h` in operand `i`, with
/// `h = 1e−6·max(1, |xᵢ|)`, within 1e−7 relative (absolute below 1).
fn check_partials(name: &str, dual: fn(&[Dual]) -> Dual, plain: fn(&[f64]) -> f64, point: &[f64]) {
    let constants: Vec<Dual> = point.iter().copied().map(Dual::constant).collect();
    let y = dual(&constants);
    assert!(
        same(y.value, plain(point)),
        "{name}{point:?}: value {} against f64's {}",
        y.value,
        plain(point)
    );
    assert_eq!(y.tangent, 0.0, "{name}{point:?}: constants moved");
    for i in 0..point.len() {
        let mut seeded = constants.clone();
        seeded[i] = Dual::variable(point[i]);
        let y = dual(&seeded);
        assert!(same(y.value, plain(point)), "{name}{point:?}: value");
        let h = 1e-6 * point[i].abs().max(1.0);
        let (mut up, mut down) = (point.to_vec(), point.to_vec());
        up[i] += h;
        down[i] -= h;
        let want = (plain(&up) - plain(&down)) / (up[i] - down[i]);
        assert!(
            (y.tangent - want).abs() <= 1e-7 * want.abs().max(1.0),
            "{name}{point:?}, ∂/∂ operand {i}: tangent {}, central difference {want}",
            y.tangent
        );
    }
}

/// `check!("name", |x, y| body, points)`: `body` once on `Dual`s and once
/// on `f64`s (so `Float::atan2(y, x)` is the same trait method on both),
/// checked by [`check_partials`] at each point.
macro_rules! check {
    ($name:literal, |$($x:ident),+| $body:expr, $points:expr) => {{
        fn dual(operands: &[Dual]) -> Dual {
            let &[$($x),+] = operands else { unreachable!() };
            $body
        }
        fn plain(operands: &[f64]) -> f64 {
            let &[$($x),+] = operands else { unreachable!() };
            $body
        }
        for point in $points {
            check_partials($name, dual, plain, &point);
        }
    }};
}

#[test]
fn functions_with_a_rule_match_central_differences() {
    let everywhere = [[-2.3], [-0.4], [0.3], [1.7]];
    let positive = [[0.3], [1.7], [12.5]];
    let inside_one = [[-0.6], [0.1], [0.8]];
    check!("exp", |x| Float::exp(x), everywhere);
    check!("exp2", |x| Float::exp2(x), everywhere);
    check!("exp_m1", |x| Float::exp_m1(x), everywhere);
    check!("ln", |x| Float::ln(x), positive);
    check!("ln_1p", |x| Float::ln_1p(x), [[-0.7], [0.3], [4.0]]);
    check!("log2", |x| Float::log2(x), positive);
    check!("log10", |x| Float::log10(x), positive);
    check!("sqrt", |x| Float::sqrt(x), positive);
    check!("cbrt", |x| Float::cbrt(x), everywhere);
    check!("recip", |x| Float::recip(x), everywhere);
    check!("abs", |x| Float::abs(x), everywhere);
    check!("sin", |x| Float::sin(x), everywhere);
    check!("cos", |x| Float::cos(x), everywhere);
    check!("tan", |x| Float::tan(x), [[-1.2], [0.3], [1.0], [2.5]]);
    check!("asin", |x| Float::asin(x), inside_one);
    check!("acos", |x| Float::acos(x), inside_one);
    check!("atan", |x| Float::atan(x), everywhere);
    check!("sinh", |x| Float::sinh(x), everywhere);
    check!("cosh", |x| Float::cosh(x), everywhere);
    check!("tanh", |x| Float::tanh(x), everywhere);
    check!("asinh", |x| Float::asinh(x), everywhere);
    check!("acosh", |x| Float::acosh(x), [[1.3], [2.5], [10.0]]);
    check!("atanh", |x| Float::atanh(x), inside_one);
    check!("powi 3", |x| Float::powi(x, 3), everywhere);
    check!("powi −2", |x| Float::powi(x, -2), everywhere);
    check!("powi 0", |x| Float::powi(x, 0), everywhere);
    check!(
        "powf",
        |x, y| Float::powf(x, y),
        [[0.3, 2.5], [1.7, -0.6], [4.0, 0.5]]
    );
    check!(
        "log",
        |x, b| Float::log(x, b),
        [[0.3, 2.0], [7.0, 10.0], [2.5, 0.4]]
    );
    check!(
        "hypot",
        |x, y| Float::hypot(x, y),
        [[3.0, 4.0], [-0.5, 1.2], [2.0, -0.1]]
    );
    // Away from a tie, the larger (smaller) operand's tangent.
    check!("max", |x, y| Float::max(x, y), [[0.3, 2.5], [1.7, -0.6]]);
    check!("min", |x, y| Float::min(x, y), [[0.3, 2.5], [1.7, -0.6]]);
}

#[test]
fn composed_functions_match_central_differences() {
    check!("sin_cos.0", |x| Float::sin_cos(x).0, [[-2.3], [0.3], [1.7]]);
    check!("sin_cos.1", |x| Float::sin_cos(x).1, [[-2.3], [0.3], [1.7]]);
    check!("fract", |x| Float::fract(x), [[-2.3], [-0.4], [0.3], [7.7]]);
    check!(
        "to_degrees",
        |x| Float::to_degrees(x),
        [[-2.3], [0.3], [1.7]]
    );
    check!(
        "to_radians",
        |x| Float::to_radians(x),
        [[-120.0], [0.3], [45.0]]
    );
    // Every quadrant, and both axes where the angle is smooth: x = 0
    // would be a pole of y/x, and the ratio x/y is used there.
    let plane = [
        [0.5, 2.0],
        [0.3, -1.5],
        [-0.7, 2.0],
        [-1.1, -0.4],
        [1.0, 0.0],
        [-1.0, 0.0],
        [0.0, 1.0],
        [3.0, 3.0],
    ];
    check!("atan2", |y, x| Float::atan2(y, x), plane);
    check!(
        "abs_sub",
        |x, y| Float::abs_sub(x, y),
        [[3.0, 1.2], [-0.5, 1.2], [2.0, -7.1]]
    );
    check!(
        "mul_add",
        |x, a, b| Float::mul_add(x, a, b),
        [[0.3, 2.5, -1.0], [-1.7, 0.6, 4.0]]
    );
    // Neither a tie nor a near-integer quotient: `%` is smooth there.
    let remainders = [
        [5.3, 2.1],
        [-5.3, 2.1],
        [5.3, -2.1],
        [0.7, 3.0],
        [-7.9, -0.6],
    ];
    check!("%", |a, b| a % b, remainders);
    check!("% f64", |a| a % 2.1, [[5.3], [-5.3], [0.7]]);
    check!("f64 %", |b| 5.3 % b, [[2.1], [-2.1], [0.6]]);
    // Inside, below and above the interval: the chosen operand's tangent.
    let clamped = [[0.5, -1.0, 2.0], [-3.0, -1.0, 2.0], [4.5, -1.0, 2.0]];
    check!("clamp", |x, lo, hi| Float::clamp(x, lo, hi), clamped);
    let signs = [[1.5, 2.0], [1.5, -2.0], [-1.5, 2.0], [-1.5, -2.0]];
    check!("copysign", |x, s| Float::copysign(x, s), signs);
}

#[test]
fn steps_have_tangent_zero() {
    // Away from the jumps, where the central difference is 0 too.
    let points = [[-2.3], [-0.4], [0.3], [1.7], [2.6]];
    check!("floor", |x| Float::floor(x), points);
    check!("ceil", |x| Float::ceil(x), points);
    check!("round", |x| Float::round(x), points);
    check!("trunc", |x| Float::trunc(x), points);
    check!("signum", |x| Float::signum(x), points);
    // At the jumps and at the signed zeros, the value is f64's and the
    // tangent 0, as on the tape.
    for v in [-2.0, -0.5, -0.0, 0.0, 0.5, 2.0, 2.5, -2.5] {
        let x = Dual::variable(v);
        for (name, got, want) in [
            ("floor", Float::floor(x), v.floor()),
            ("ceil", Float::ceil(x), v.ceil()),
            ("round", Float::round(x), v.round()),
            ("trunc", Float::trunc(x), v.trunc()),
            ("signum", Float::signum(x), v.signum()),
        ] {
            assert!(same(got.value, want), "{name}({v}) = {}", got.value);
            assert_eq!(got.tangent, 0.0, "{name}({v})");
        }
        let fract = Float::fract(x);
        assert!(same(fract.value, v.fract()), "fract({v})");
        assert_eq!(fract.tangent, 1.0, "fract({v})");
    }
}

#[test]
fn rem_has_every_form_and_f64_values() {
    let (a, b) = (Dual::new(5.3, 1.0), Dual::new(2.1, 0.5));
    // ȧ − trunc(a/b)·ḃ = 1 − 2·0.5.
    let r = a % b;
    assert!(same(r.value, 5.3 % 2.1));
    assert!(r.tangent.abs() < 1e-15);
    assert_eq!((a % 2.1).tangent, 1.0);
    let r = 5.3 % b;
    assert!(same(r.value, 5.3 % 2.1));
    assert_eq!(r.tangent, -1.0);
    let mut c = a;
    c %= b;
    assert!(same(c.value, r.value));
    c %= 2.0;
    assert!(same(c.value, (5.3 % 2.1) % 2.0));
    // By 0, NaN as in f64.
    assert!((a % Dual::constant(0.0)).value.is_nan());
    // The value is f64's exact remainder, not a − trunc(a/b)·b rounded.
    for (x, y) in [(1e17, 3.0), (0.3, 0.1), (-7.5, 0.2)] {
        assert!(same((Dual::variable(x) % Dual::variable(y)).value, x % y));
    }
}

#[test]
fn mul_add_and_conversions_keep_f64_values() {
    // a·b + c rounds twice; mul_add once: the value is the fused one.
    let (a, b, c) = (0.1, 10.0, -1.0);
    let fused = Float::mul_add(Dual::variable(a), Dual::constant(b), Dual::constant(c));
    assert_eq!(fused.value.to_bits(), a.mul_add(b, c).to_bits());
    assert_ne!(fused.value, a * b + c);
    assert_eq!(fused.tangent, b);
    for v in [0.3, 1.0, -2.5, 1e3, std::f64::consts::PI] {
        let x = Dual::variable(v);
        assert_eq!(
            Float::to_degrees(x).value.to_bits(),
            v.to_degrees().to_bits()
        );
        assert_eq!(
            Float::to_radians(x).value.to_bits(),
            v.to_radians().to_bits()
        );
    }
}

#[test]
fn constants_are_f64_constants_with_tangent_zero() {
    let pairs: [(&str, Dual, f64); 8] = [
        ("nan", Dual::nan(), <f64 as Float>::nan()),
        ("infinity", Dual::infinity(), <f64 as Float>::infinity()),
        (
            "neg_infinity",
            Dual::neg_infinity(),
            <f64 as Float>::neg_infinity(),
        ),
        ("neg_zero", Dual::neg_zero(), <f64 as Float>::neg_zero()),
        ("min_value", Dual::min_value(), <f64 as Float>::min_value()),
        (
            "min_positive_value",
            Dual::min_positive_value(),
            <f64 as Float>::min_positive_value(),
        ),
        (
            "epsilon",
            <Dual as Float>::epsilon(),
            <f64 as Float>::epsilon(),
        ),
        ("max_value", Dual::max_value(), <f64 as Float>::max_value()),
    ];
    for (name, got, want) in pairs {
        assert!(
            same(got.value, want),
            "{name}: {} against {want}",
            got.value
        );
        assert_eq!(got.tangent.to_bits(), 0.0_f64.to_bits(), "{name}");
    }
    assert_eq!(<Dual as Float>::epsilon().value, f64::EPSILON);
    assert_eq!(Dual::zero().value, 0.0);
    assert_eq!(Dual::zero().tangent, 0.0);
    assert_eq!(Dual::one().value, 1.0);
    assert_eq!(Dual::one().tangent, 0.0);
    assert!(Dual::new(0.0, 3.0).is_zero());
    assert!(Dual::new(-0.0, 3.0).is_zero());
    assert!(!Dual::new(1e-300, 0.0).is_zero());
    assert!(Dual::new(1.0, 5.0).is_one());
}

#[test]
fn predicates_read_the_value() {
    let values = [
        0.0,
        -0.0,
        1.5,
        -2.0,
        f64::NAN,
        -f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e-310,
        -1e-310,
        f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
        3.7e12,
    ];
    for v in values {
        // A tangent that would change the answer if it were read.
        for tangent in [0.0, 1.0, f64::NAN, -f64::INFINITY] {
            let x = Dual::new(v, tangent);
            assert_eq!(Float::is_nan(x), Float::is_nan(v), "is_nan({v})");
            assert_eq!(Float::is_infinite(x), Float::is_infinite(v), "{v}");
            assert_eq!(Float::is_finite(x), Float::is_finite(v), "{v}");
            assert_eq!(Float::is_normal(x), Float::is_normal(v), "{v}");
            assert_eq!(Float::is_subnormal(x), Float::is_subnormal(v), "{v}");
            assert_eq!(Float::classify(x), Float::classify(v), "{v}");
            assert_eq!(Float::is_sign_positive(x), Float::is_sign_positive(v));
            assert_eq!(Float::is_sign_negative(x), Float::is_sign_negative(v));
            assert_eq!(Float::integer_decode(x), Float::integer_decode(v), "{v}");
            assert_eq!(x.to_i64(), v.to_i64(), "to_i64({v})");
            assert_eq!(x.to_u64(), v.to_u64(), "to_u64({v})");
            assert_eq!(x.to_u8(), v.to_u8(), "to_u8({v})");
            assert_eq!(x.to_i128(), v.to_i128(), "to_i128({v})");
            assert_eq!(x.to_f32().map(f32::to_bits), v.to_f32().map(f32::to_bits));
            assert_eq!(x.to_f64().map(f64::to_bits), Some(v.to_bits()));
            assert_eq!(x.is_zero(), v.is_zero(), "is_zero({v})");
        }
    }
}

#[test]
fn casts_and_parsing_give_constants() {
    let cast = |d: Option<Dual>, want: f64| {
        let d = d.expect("a cast f64 accepts");
        assert!(
            same(d.value, want) && d.tangent == 0.0,
            "{d:?} against {want}"
        );
    };
    cast(<Dual as NumCast>::from(3_u8), 3.0);
    cast(<Dual as NumCast>::from(-7_i64), -7.0);
    cast(
        <Dual as NumCast>::from(0.1_f32),
        <f64 as From<f32>>::from(0.1_f32),
    );
    cast(<Dual as NumCast>::from(u128::MAX), u128::MAX as f64);
    cast(Dual::from_i32(-4), -4.0);
    cast(Dual::from_u64(u64::MAX), u64::MAX as f64);
    cast(Dual::from_f64(2.5), 2.5);
    cast(Dual::from_f32(f32::NAN), f64::NAN);
    cast(Dual::from_str_radix("1.5", 10).ok(), 1.5);
    cast(Dual::from_str_radix("-ff.8", 16).ok(), -255.5);
    cast(Dual::from_str_radix("inf", 10).ok(), f64::INFINITY);
    assert!(Dual::from_str_radix("x1", 10).is_err());
    assert_eq!(
        Dual::from_str_radix("12z", 36).ok().map(|d| d.value),
        <f64 as Num>::from_str_radix("12z", 36).ok()
    );
}

/// Written once for any `Float`, as a student writes it.
fn student<T: Float>(x: T) -> T {
    let two = T::from(2.0).unwrap();
    x.sin() * x.exp() + two * x
}

/// A longer one, through the composed methods and `%`.
fn student_composed<T: Float>(x: T) -> T {
    let half = T::from(0.5).unwrap();
    let (s, c) = x.sin_cos();
    s.atan2(c + T::from(2.0).unwrap()) + x.mul_add(half, T::one()).powf(half)
        - (x % half) * x.to_degrees()
}

#[test]
fn generic_float_code_gives_the_derivative() {
    for x0 in [-1.3, 0.0, 0.8, 2.4] {
        let y = student(Dual::variable(x0));
        assert_eq!(y.value, student(x0));
        let closed_form = (x0.cos() + x0.sin()) * x0.exp() + 2.0;
        assert!(
            (y.tangent - closed_form).abs() <= 1e-14 * closed_form.abs().max(1.0),
            "{x0}: {} against {closed_form}",
            y.tangent
        );
    }
    // d/dx atan2(sin x, cos x + 2) = (1 + 2 cos x)/(5 + 4 cos x);
    // d/dx √(x/2 + 1) = 1/(4√(x/2 + 1));
    // d/dx (x % ½)·x·180/π = (x % ½ + x)·180/π away from the jumps.
    for x0 in [-1.3, 0.2, 0.8, 2.4] {
        let y = student_composed(Dual::variable(x0));
        assert_eq!(y.value, student_composed(x0));
        let c = x0.cos();
        let closed_form = (1.0 + 2.0 * c) / (5.0 + 4.0 * c) + 0.25 / (0.5 * x0 + 1.0).sqrt()
            - (x0 % 0.5 + x0) * (180.0 / PI);
        assert!(
            (y.tangent - closed_form).abs() <= 1e-13 * closed_form.abs().max(1.0),
            "{x0}: {} against {closed_form}",
            y.tangent
        );
    }
}

#[test]
fn inherent_methods_win_in_method_call_syntax() {
    // With `Float` in scope, `x.powi(2)` and `x.max(y)` on a concrete
    // `Dual` are the inherent methods, the trait's call them: one answer.
    let x = Dual::variable(1.5);
    let y = Dual::new(0.5, 2.0);
    assert_eq!(x.powi(2).tangent, Float::powi(x, 2).tangent);
    assert_eq!(x.max(y).tangent, Float::max(x, y).tangent);
    assert_eq!(x.max(y).tangent, 1.0);
    assert_eq!(x.min(y).tangent, 2.0);
    assert_eq!(x.exp().tangent, Float::exp(x).tangent);
    // `atan2` at the origin has no derivative: NaN when an operand moves,
    // 0 when neither does.
    let origin = Float::atan2(Dual::variable(0.0), Dual::constant(0.0));
    assert_eq!(origin.value, 0.0);
    assert!(origin.tangent.is_nan());
    let fixed = Float::atan2(Dual::constant(0.0), Dual::constant(0.0));
    assert_eq!((fixed.value, fixed.tangent), (0.0, 0.0));
}
