//! The names a body may call, and what each one is: an operation of the
//! table (`autodiff-ops-table`), an `f64` method without a derivative rule
//! (rejected by name, so that a student gets a compile error instead of a
//! missing gradient), a method that only moves or counts values, or a
//! predicate on a primal value.

use autodiff_ops_table::{by_function, by_method, Operation, Spelling, F64_METHODS, OPERATIONS};

/// How a method of the table is read into the model.
pub enum Shape {
    /// `x.exp()`: one operand.
    Unary(&'static str),
    /// `x.powi(n)`: one operand and an integer.
    IntegerPower,
    /// `a.powf(b)`: two operands.
    Binary(&'static str),
    /// `a.mul_add(b, c)`, `x.clamp(lo, hi)`: three operands, composed of
    /// the table's operations by the runtime (no row of their own).
    Ternary(&'static str),
}

/// The three-operand methods, composed of recorded operations.
const TERNARY: &[&str] = &["mul_add", "clamp"];

/// The `f64` method `name`, if the table has it; the name it carries is
/// the runtime function's, which is the method's.
pub fn method(name: &str) -> Option<Shape> {
    if let Some(ternary) = TERNARY.iter().find(|ternary| **ternary == name) {
        return Some(Shape::Ternary(ternary));
    }
    let op = by_method(name)?;
    let Spelling::Method { name, arguments } = op.spelling else {
        return None;
    };
    // An argument that is not an operand is `powi`'s integer exponent.
    Some(match (op.operands, arguments) {
        (1, 0) => Shape::Unary(name),
        (1, _) => Shape::IntegerPower,
        _ => Shape::Binary(name),
    })
}

/// The facade's one-operand functions (`relu(x)`, `autodiff::sigmoid(x)`),
/// by the name the runtime function has.
pub fn facade_function(name: &str) -> Option<&'static str> {
    match by_function(name)?.spelling {
        Spelling::Function(function) => Some(function),
        _ => None,
    }
}

/// The facade's functions that are also methods (`x.relu()`,
/// `x.sigmoid()`): on `f64` through the prelude's `Activations`, on a
/// tracked value the same row of the table as `relu(x)`.
pub fn activation_method(name: &str) -> Option<&'static str> {
    ACTIVATIONS
        .contains(&name)
        .then(|| facade_function(name))
        .flatten()
}

/// The names of [`activation_method`], which `Activations` defines.
const ACTIVATIONS: &[&str] = &["relu", "sigmoid"];

/// Iterator methods that compute with the items but have no rule.
const NO_RULE_ITERATOR: &[&str] = &[];

/// Whether `name` computes a number but has no derivative rule.
pub fn has_no_rule(name: &str) -> bool {
    (F64_METHODS.contains(&name) && by_method(name).is_none() && !TERNARY.contains(&name))
        || NO_RULE_ITERATOR.contains(&name)
}

/// Every method a body may call, as the diagnostics and the README list
/// them: those with a derivative rule, then the sums, the methods that move
/// or count values, and the predicates on primal values.
pub fn supported_methods() -> String {
    let mut methods: Vec<&str> = OPERATIONS.iter().filter_map(Operation::method).collect();
    methods.extend(TERNARY);
    methods.extend(ACTIVATIONS);
    // `r.sin_cos()` is read as `(r.sin(), r.cos())` (`lower/calls.rs`).
    methods.push("sin_cos");
    let mut iterators: Vec<&str> = SUMS.to_vec();
    iterators.extend(STRUCTURAL);
    iterators.extend(ADAPTORS);
    format!(
        "{}; on slices and iterators: {}; tests of the value: {}",
        methods.join(", "),
        iterators.join(", "),
        PREDICATES.join(", ")
    )
}

/// Iterator reductions recorded one node per item (`lower` reads them).
const SUMS: &[&str] = &["sum", "product"];

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
    "take_while",
    "skip_while",
    "step_by",
    "chunks",
    "windows",
    "copied",
    "cloned",
    "clone",
    "as_slice",
    "to_vec",
    "push",
    "next",
    "first",
    "last",
    "get",
    "map",
    "flat_map",
    "flatten",
    "filter",
    "fold",
    "reduce",
    "max_by",
    "min_by",
    "for_each",
    "all",
    "any",
    "count",
    "position",
    "collect",
    "extend",
    "unwrap",
    "unwrap_or",
    "swap",
    "reverse",
    "pop",
    "insert",
    "remove",
    "extend_from_slice",
    "truncate",
    "clear",
    "resize",
    "fill",
    "sort_by",
    "concat",
    "split_at",
];

/// The position of the argument a `Vec` method stores into its receiver:
/// the item `push`ed or `insert`ed, the slice appended
/// (`extend_from_slice`), the value `fill` or `resize` writes. A tracked
/// one makes the receiver hold tracked values.
pub fn stored_argument(method: &str) -> Option<usize> {
    match method {
        "push" | "extend_from_slice" | "fill" => Some(0),
        "insert" | "resize" => Some(1),
        _ => None,
    }
}

pub fn is_structural(name: &str) -> bool {
    STRUCTURAL.contains(&name)
}

/// Iterator adaptors that only pass items on, structural where they are
/// called on an iterator written in place (`x.iter().chain(y.iter())`):
/// on a name (`self.chain(x)`, `model.cycle(t)`) they are a model's
/// methods of the same name.
const ADAPTORS: &[&str] = &["chain", "cycle"];

pub fn is_adaptor(name: &str) -> bool {
    ADAPTORS.contains(&name)
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
    "total_cmp",
    "partial_cmp",
];

pub fn is_predicate(name: &str) -> bool {
    PREDICATES.contains(&name)
}

/// Macros that compute nothing differentiable: checks, panics, printing and
/// `matches!` (a `bool`).
/// The recording twin runs them as written, on primal values.
const PLAIN_MACROS: &[&str] = &[
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "panic",
    "unreachable",
    "todo",
    "unimplemented",
    "print",
    "println",
    "eprint",
    "eprintln",
    "dbg",
    "matches",
];

/// The plain macros as the diagnostics list them.
pub fn plain_macros() -> String {
    let names: Vec<String> = PLAIN_MACROS
        .iter()
        .map(|name| format!("`{name}!`"))
        .collect();
    names.join(", ")
}

pub fn is_plain_macro(name: &str) -> bool {
    PLAIN_MACROS.contains(&name)
}

/// The macros that never return: no value to lift in a branch.
pub fn is_diverging_macro(name: &str) -> bool {
    matches!(name, "panic" | "unreachable" | "todo" | "unimplemented")
}
