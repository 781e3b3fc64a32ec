//! The names a body may call, and what each one is: an operation with a
//! derivative rule, an `f64` method without one (rejected by name, so that
//! a student gets a compile error instead of a missing gradient), a method
//! that only moves or counts values, or a predicate on a primal value.

/// The one-operand `f64` methods with a derivative rule.
pub fn unary_method(name: &str) -> Option<&'static str> {
    ["exp", "ln", "tanh", "sin", "cos", "sqrt", "abs", "recip"]
        .into_iter()
        .find(|known| *known == name)
}

/// The facade's one-operand functions (`relu(x)`, `autodiff::sigmoid(x)`).
pub fn facade_function(name: &str) -> Option<&'static str> {
    ["relu", "sigmoid", "detach"]
        .into_iter()
        .find(|known| *known == name)
}

/// `f64` methods the engine has no derivative rule for.
const NO_RULE: &[&str] = &[
    "sin_cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "exp2",
    "exp_m1",
    "ln_1p",
    "log",
    "log2",
    "log10",
    "cbrt",
    "hypot",
    "floor",
    "ceil",
    "round",
    "round_ties_even",
    "trunc",
    "fract",
    "signum",
    "mul_add",
    "clamp",
    "rem_euclid",
    "div_euclid",
    "to_degrees",
    "to_radians",
    "copysign",
    "product",
];

/// Whether `name` is an `f64` method with no derivative rule.
pub fn has_no_rule(name: &str) -> bool {
    NO_RULE.contains(&name)
}

/// Methods that only move, count or iterate values: they pass through.
const STRUCTURAL: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "into_iter",
    "enumerate",
    "zip",
    "rev",
    "skip",
    "take",
    "step_by",
    "chunks",
    "windows",
    "copied",
    "cloned",
    "clone",
    "as_slice",
    "to_vec",
    "push",
];

pub fn is_structural(name: &str) -> bool {
    STRUCTURAL.contains(&name)
}

/// `f64` predicates: a `bool` about the primal value, like a comparison.
const PREDICATES: &[&str] = &[
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_normal",
    "is_subnormal",
    "is_sign_positive",
    "is_sign_negative",
];

pub fn is_predicate(name: &str) -> bool {
    PREDICATES.contains(&name)
}

/// The methods with a derivative rule, as the diagnostics list them.
pub const SUPPORTED_METHODS: &str =
    "exp, ln, tanh, sin, cos, sqrt, abs, recip, powi, powf, max, min";
