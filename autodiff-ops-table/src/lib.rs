//! The operations `autodiff` can record, defined once.
//!
//! Each row names an operation the way the engine names it
//! (`ScalarOperation::as_str`, the ledger, error messages), says how the body
//! of a `#[differentiable]` function writes it, how many recorded operands it
//! has, what it computes and its derivative. Two crates read the table:
//!
//! - `autodiff-core` expands [`operations!`] into its `ScalarOperation`
//!   enum (variants, docs, names, the index table);
//! - `autodiff-macros` reads [`OPERATIONS`] at expansion time for its
//!   vocabulary (which method is which operation, how many arguments it
//!   takes) and for the list of supported methods its errors print.
//!
//! Adding a one-operand function such as `tan` is one row here plus its
//! derivative rule (`tan_partial` in `autodiff-core/src/rules.rs`): the
//! tape's `Scalar::tan`, the facade's dispatch and the compiled adjoint's
//! reverse step are all expanded from the row, which names the rule.
//! A two-operand method such as `atan2` is one row and its rule
//! (`atan2_partials`) too, for `Scalar::atan2`, `Dual::atan2`, the path
//! form `f64::atan2` and both sweeps, plus the facade's trait for it in
//! `src/__private/arithmetic.rs` (which carries its own error message:
//! a diagnostic attribute takes only a literal) and its out-of-line
//! `record_atan2` in `src/__private/outlined.rs`.
//!
//! The crate has no dependencies, so that the proc-macro crate can read it
//! at compile time without pulling the engine in.

/// How the body of a `#[differentiable]` function writes an operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spelling {
    /// Made by the tape, not written in a body: `tape.variable(2.0)`.
    Leaf,
    /// An operator: `a + b`, `-a`.
    Operator(&'static str),
    /// An `f64` method, also called by path: `x.exp()` and `f64::exp(x)`.
    /// `arguments` counts what follows the receiver (`x.powf(y)`: 1).
    Method {
        name: &'static str,
        arguments: usize,
    },
    /// A function of the facade: `relu(x)` or `autodiff::relu(x)`.
    Function(&'static str),
}

/// What an operation's local derivative reads, and the rule in
/// `autodiff-core/src/rules.rs` that computes it. The compiled adjoint
/// calls the rule with what it reads: the operand's value, or the result
/// it already has (`exp`, `sqrt`: cheaper, and as exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// A leaf: no operand, no derivative.
    None,
    /// Derivative 0 everywhere it exists (a step, or `detach`): nothing
    /// flows back, and no rule is called.
    Zero,
    /// `rule(x) -> ∂y/∂x`, from the operand `x`.
    Operand(&'static str),
    /// `rule(y) -> ∂y/∂x`, from the result `y`.
    Result(&'static str),
    /// `rule(a, b) -> (∂y/∂a, ∂y/∂b)`, from both operands.
    Operands(&'static str),
    /// `rule(x, n) -> ∂xⁿ/∂x`: the operand and `powi`'s integer exponent.
    Power(&'static str),
}

impl Rule {
    /// The rule's function name, if the derivative has one.
    pub const fn name(self) -> Option<&'static str> {
        match self {
            Self::None | Self::Zero => None,
            Self::Operand(name) | Self::Result(name) | Self::Operands(name) | Self::Power(name) => {
                Some(name)
            }
        }
    }
}

/// One row of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The engine's variant name: `Multiply`.
    pub variant: &'static str,
    /// The engine's name, in the ledger and error messages: `mul`.
    pub name: &'static str,
    pub spelling: Spelling,
    /// Recorded operand edges: 0 for a leaf, 1 for `x.exp()` and
    /// `x.powi(n)` (its exponent is an integer, not an operand), 2 for
    /// `a * b`.
    pub operands: usize,
    /// What the operation computes: `` `a * b` ``.
    pub computes: &'static str,
    /// Its local derivatives: `∂/∂a = b, ∂/∂b = a`.
    pub derivative: &'static str,
    /// What the derivative reads and the rule that computes it.
    pub rule: Rule,
    /// Whether a non-finite operand can vanish from what the compiled
    /// adjoint observes: the result can be finite (`exp(−∞) = 0`,
    /// `tanh(∞) = 1`, `max(NaN, 1) = 1`), or the derivative is 0 (a step),
    /// so no adjoint carries it. The tape rejects such an operand when it
    /// records the operation if it is NaN, or infinite where the value is
    /// NaN or the local derivative is not finite, so the compiled path
    /// observes it to fall back to the tape and its labelled error.
    pub absorbs: bool,
}

impl Operation {
    /// The method name, for an operation written as an `f64` method.
    pub const fn method(&self) -> Option<&'static str> {
        match self.spelling {
            Spelling::Method { name, .. } => Some(name),
            _ => None,
        }
    }
}

/// The table, handed to `$callback!` as one `Variant "name" spelling
/// operands rule absorbs "computes" "derivative";` line per operation, in
/// the engine's declaration order (a node stores an operation as its index
/// in it). `spelling` is `leaf`, `operator("+")`, `method(exp, 0)` or
/// `function(relu)`: methods and functions are identifiers, so that a
/// callback can call them (the facade's one-operand dispatch does).
/// `rule` is [`Rule`] in lower case, with the rule's identifier:
/// `none`, `zero`, `operand(tanh_partial)`, `result(exp_partial)`,
/// `operands(mul_partials)` or `power(powi_partial)`. `absorbs` is
/// `absorbs` or `propagates` ([`Operation::absorbs`]).
#[macro_export]
macro_rules! operations {
    ($callback:path) => {
        $callback! {
            Variable "variable" leaf 0 none propagates
                "A tracked leaf made by [`Tape::variable`](crate::Tape::variable)" "none (a leaf)";
            Constant "constant" leaf 0 none propagates
                "An untracked leaf made by [`Tape::constant`](crate::Tape::constant)" "none (a leaf)";
            Detached "detached" function(detach) 0 zero absorbs
                "An untracked leaf made by [`Scalar::detach`](crate::Scalar::detach)" "none (a leaf: no gradient flows through it)";
            Add "add" operator("+") 2 operands(add_partials) propagates "`a + b`" "∂/∂a = 1, ∂/∂b = 1";
            Multiply "mul" operator("*") 2 operands(mul_partials) propagates "`a * b`" "∂/∂a = b, ∂/∂b = a";
            Negate "neg" operator("-") 1 operand(neg_partial) propagates "`-a`" "d/da = −1";
            Subtract "sub" operator("-") 2 operands(sub_partials) propagates "`a - b`" "∂/∂a = 1, ∂/∂b = −1";
            Divide "div" operator("/") 2 operands(div_partials) absorbs "`a / b`" "∂/∂a = 1/b, ∂/∂b = −a/b²";
            Exp "exp" method(exp, 0) 1 result(exp_partial) absorbs "`e^a`" "d/da = e^a";
            Ln "ln" method(ln, 0) 1 operand(ln_partial) propagates "`ln a`" "d/da = 1/a";
            Tanh "tanh" method(tanh, 0) 1 operand(tanh_partial) absorbs "`tanh a`" "d/da = 1 − tanh² a = 1/cosh² a";
            Sin "sin" method(sin, 0) 1 operand(sin_partial) propagates "`sin a`" "d/da = cos a";
            Cos "cos" method(cos, 0) 1 operand(cos_partial) propagates "`cos a`" "d/da = −sin a";
            Sqrt "sqrt" method(sqrt, 0) 1 result(sqrt_partial) propagates "`√a`" "d/da = 1/(2√a)";
            Powi "powi" method(powi, 1) 1 power(powi_partial) absorbs "`a^n`, integer `n`" "d/da = n·a^(n−1)";
            Powf "powf" method(powf, 1) 2 operands(powf_partials) absorbs "`a^b`, real `b`" "∂/∂a = b·a^(b−1), ∂/∂b = ln a · a^b";
            Abs "abs" method(abs, 0) 1 operand(abs_partial) propagates "`|a|`" "d/da = sign a (0 at 0)";
            Max "max" method(max, 1) 2 operands(max_partials) absorbs "`max(a, b)`" "1 for the larger operand, 0 for the other, 1/2 each at a tie";
            Min "min" method(min, 1) 2 operands(min_partials) absorbs "`min(a, b)`" "1 for the smaller operand, 0 for the other, 1/2 each at a tie";
            Recip "recip" method(recip, 0) 1 result(recip_partial) absorbs "`1 / a`" "d/da = −1/a²";
            Relu "relu" function(relu) 1 operand(relu_partial) absorbs "`max(a, 0)`" "d/da = 1 for a > 0, else 0";
            Sigmoid "sigmoid" function(sigmoid) 1 operand(sigmoid_partial) absorbs "`1 / (1 + e^-a)`" "d/da = σ(a)(1 − σ(a))";
            Tan "tan" method(tan, 0) 1 result(tan_partial) propagates "`tan a`" "d/da = 1 + tan² a";
            Atan "atan" method(atan, 0) 1 operand(atan_partial) absorbs "`atan a`" "d/da = 1/(1 + a²)";
            Sinh "sinh" method(sinh, 0) 1 operand(sinh_partial) propagates "`sinh a`" "d/da = cosh a";
            Cosh "cosh" method(cosh, 0) 1 operand(cosh_partial) propagates "`cosh a`" "d/da = sinh a";
            Asin "asin" method(asin, 0) 1 operand(asin_partial) propagates "`asin a`" "d/da = 1/√(1 − a²)";
            Acos "acos" method(acos, 0) 1 operand(acos_partial) propagates "`acos a`" "d/da = −1/√(1 − a²)";
            Ln1p "ln_1p" method(ln_1p, 0) 1 operand(ln_1p_partial) propagates "`ln(1 + a)`" "d/da = 1/(1 + a)";
            ExpM1 "exp_m1" method(exp_m1, 0) 1 operand(exp_m1_partial) absorbs "`e^a − 1`" "d/da = e^a";
            Log10 "log10" method(log10, 0) 1 operand(log10_partial) propagates "`log₁₀ a`" "d/da = 1/(a ln 10)";
            Log2 "log2" method(log2, 0) 1 operand(log2_partial) propagates "`log₂ a`" "d/da = 1/(a ln 2)";
            Cbrt "cbrt" method(cbrt, 0) 1 result(cbrt_partial) propagates "`∛a`" "d/da = 1/(3∛a²)";
            Signum "signum" method(signum, 0) 1 zero absorbs "`sign a` (±1)" "0 (a step; 0 at the jump too)";
            Floor "floor" method(floor, 0) 1 zero absorbs "`⌊a⌋`" "0 (a step; 0 at the jumps too)";
            Ceil "ceil" method(ceil, 0) 1 zero absorbs "`⌈a⌉`" "0 (a step; 0 at the jumps too)";
            Round "round" method(round, 0) 1 zero absorbs "`a` rounded half away from 0" "0 (a step; 0 at the jumps too)";
            Hypot "hypot" method(hypot, 1) 2 operands(hypot_partials) propagates "`√(a² + b²)`" "∂/∂a = a/h, ∂/∂b = b/h (0 at the origin)";
            Log "log" method(log, 1) 2 operands(log_partials) absorbs "`log_b a`" "∂/∂a = 1/(a ln b), ∂/∂b = −log_b a/(b ln b)";
            Exp2 "exp2" method(exp2, 0) 1 result(exp2_partial) absorbs "`2^a`" "d/da = ln 2 · 2^a";
            Asinh "asinh" method(asinh, 0) 1 operand(asinh_partial) propagates "`asinh a`" "d/da = 1/√(a² + 1)";
            Acosh "acosh" method(acosh, 0) 1 operand(acosh_partial) propagates "`acosh a`" "d/da = 1/√(a² − 1), a > 1";
            Atanh "atanh" method(atanh, 0) 1 operand(atanh_partial) propagates "`atanh a`" "d/da = 1/(1 − a²), |a| < 1";
            Atan2 "atan2" method(atan2, 1) 2 operands(atan2_partials) absorbs "`atan2(a, b)`, the angle of the point (b, a)" "∂/∂a = b/(a² + b²), ∂/∂b = −a/(a² + b²) (none at the origin)";
        }
    };
}

/// Builds [`OPERATIONS`] from the table.
macro_rules! rows {
    ($($variant:ident $name:literal $spelling:ident $(($($how:tt),*))? $operands:literal $rule:ident $(($function:ident))? $absorbs:ident $computes:literal $derivative:literal;)*) => {
        /// Every operation, in the engine's declaration order.
        pub const OPERATIONS: &[Operation] = &[$(Operation {
            variant: stringify!($variant),
            name: $name,
            spelling: rows!(@spelling $spelling $(($($how),*))?),
            operands: $operands,
            computes: $computes,
            derivative: $derivative,
            rule: rows!(@rule $rule $(($function))?),
            absorbs: rows!(@absorbs $absorbs),
        }),*];
    };
    (@rule none) => { Rule::None };
    (@rule zero) => { Rule::Zero };
    (@rule operand($function:ident)) => { Rule::Operand(stringify!($function)) };
    (@rule result($function:ident)) => { Rule::Result(stringify!($function)) };
    (@rule operands($function:ident)) => { Rule::Operands(stringify!($function)) };
    (@rule power($function:ident)) => { Rule::Power(stringify!($function)) };
    (@absorbs absorbs) => { true };
    (@absorbs propagates) => { false };
    (@spelling leaf) => { Spelling::Leaf };
    (@spelling operator($symbol:literal)) => { Spelling::Operator($symbol) };
    (@spelling method($method:ident, $arguments:literal)) => {
        Spelling::Method { name: stringify!($method), arguments: $arguments }
    };
    (@spelling function($function:ident)) => { Spelling::Function(stringify!($function)) };
}

operations!(rows);

/// The row written as the `f64` method `name` (`"exp"`, `"powf"`).
pub fn by_method(name: &str) -> Option<&'static Operation> {
    OPERATIONS.iter().find(|op| op.method() == Some(name))
}

/// The row written as the `f64` method or facade function `name`, as a
/// body's call of a one-operand function names it.
pub fn by_callee(name: &str) -> Option<&'static Operation> {
    by_method(name).or_else(|| by_function(name))
}

/// The row written as the facade function `name` (`"relu"`, `"detach"`).
pub fn by_function(name: &str) -> Option<&'static Operation> {
    OPERATIONS
        .iter()
        .find(|op| matches!(op.spelling, Spelling::Function(function) if function == name))
}

/// The `f64` methods that compute a number from `f64` operands, as std
/// defines them. Those with a row above are supported; the others have no
/// derivative rule yet, and a body that calls one gets a compile error
/// naming it rather than a silently missing gradient.
pub const F64_METHODS: &[&str] = &[
    "exp",
    "ln",
    "tanh",
    "sin",
    "cos",
    "sqrt",
    "powi",
    "powf",
    "abs",
    "max",
    "min",
    "recip",
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
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_spellings_are_unique() {
        let mut names: Vec<&str> = OPERATIONS.iter().map(|op| op.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), OPERATIONS.len());
        let mut methods: Vec<&str> = OPERATIONS.iter().filter_map(Operation::method).collect();
        let count = methods.len();
        methods.sort_unstable();
        methods.dedup();
        assert_eq!(methods.len(), count);
    }

    #[test]
    fn every_method_row_is_an_f64_method() {
        for method in OPERATIONS.iter().filter_map(Operation::method) {
            assert!(F64_METHODS.contains(&method), "{method}");
        }
    }

    #[test]
    fn arity_matches_spelling() {
        for op in OPERATIONS {
            match op.spelling {
                Spelling::Leaf => assert_eq!(op.operands, 0, "{}", op.name),
                Spelling::Method { arguments, .. } => {
                    // Every argument is an operand, except `powi`'s integer.
                    assert!(
                        op.operands == arguments + 1 || op.name == "powi",
                        "{}",
                        op.name
                    );
                }
                Spelling::Operator(_) | Spelling::Function(_) => {
                    assert!(op.operands <= 2, "{}", op.name)
                }
            }
        }
        assert_eq!(by_method("powf").map(|op| op.operands), Some(2));
        assert_eq!(by_method("exp").map(|op| op.variant), Some("Exp"));
        assert_eq!(by_function("detach").map(|op| op.name), Some("detached"));
        assert!(by_method("sin_cos").is_none());
    }

    #[test]
    fn rules_fit_the_operands() {
        for op in OPERATIONS {
            let fits = match op.rule {
                Rule::None => op.operands == 0,
                Rule::Zero => op.operands <= 1,
                Rule::Operand(_) | Rule::Result(_) => op.operands == 1 && op.name != "powi",
                Rule::Power(_) => op.name == "powi",
                Rule::Operands(_) => op.operands == 2,
            };
            assert!(fits, "{}: {:?}", op.name, op.rule);
        }
        let mut rules: Vec<&str> = OPERATIONS.iter().filter_map(|op| op.rule.name()).collect();
        let count = rules.len();
        rules.sort_unstable();
        rules.dedup();
        assert_eq!(rules.len(), count, "one rule per operation");
        assert_eq!(
            by_callee("relu").map(|op| op.rule),
            Some(Rule::Operand("relu_partial"))
        );
        assert_eq!(by_callee("exp").map(|op| op.absorbs), Some(true));
    }
}
