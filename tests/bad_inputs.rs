//! Every bad input the README's "Bad inputs" table lists, through the facade.
//!
//! Each row asserts the typed error with its fields, the exact message (the
//! operation and, when known, the source label), and that nothing moved:
//! the tape's length and every value and stored gradient are bit-identical
//! before and after. Gradients are made non-zero by an earlier pass first, so
//! "unchanged" cannot pass by everything being zero.

use autodiff::{
    gradient_check, scalar_gradient_check, GradientCheckError, Label, Operands, Scalar,
    ScalarAutodiffError, ScalarOperation, Tape,
};

/// Value and stored-gradient bits of every watched node, plus the tape length.
fn snapshot(tape: &Tape, nodes: &[Scalar<'_>]) -> (usize, Vec<(u64, Option<u64>)>) {
    let bits = nodes
        .iter()
        .map(|n| (n.value().to_bits(), n.gradient().map(f64::to_bits)))
        .collect();
    (tape.len(), bits)
}

/// Runs `bad`, which must fail, and checks that the tape and every node in
/// `nodes` are exactly as they were.
fn rejected<T: std::fmt::Debug, E>(
    tape: &Tape,
    nodes: &[Scalar<'_>],
    bad: impl FnOnce() -> Result<T, E>,
) -> E {
    let before = snapshot(tape, nodes);
    let error = bad().expect_err("a bad input was accepted");
    assert_eq!(
        snapshot(tape, nodes),
        before,
        "a rejected call changed the tape"
    );
    error
}

/// A small graph with non-zero stored gradients: `x = 0.5`, `w = -2`,
/// `y = x·w + sin x`, after one backward pass from `y`.
fn primed(tape: &Tape) -> Vec<Scalar<'_>> {
    let x = tape.variable(0.5).unwrap().labeled(Label::at_line("x", 1));
    let w = tape.variable(-2.0).unwrap().labeled(Label::at_line("w", 1));
    let c = tape
        .constant(3.0)
        .unwrap()
        .labeled(Label::at_line("bias", 2));
    let y = x
        .mul(w)
        .unwrap()
        .add(x.sin().unwrap())
        .unwrap()
        .add(c)
        .unwrap();
    y.backward().unwrap();
    assert_eq!(x.gradient(), Some(-2.0 + 0.5_f64.cos()));
    assert_eq!(w.gradient(), Some(0.5));
    vec![x, w, c, y]
}

fn at(line: u32, text: &'static str) -> impl Fn(ScalarAutodiffError) -> ScalarAutodiffError {
    move |e| e.at(Label::at_line(text, line))
}

#[test]
fn nan_and_infinite_leaves() {
    let tape = Tape::new();
    let nodes = primed(&tape);
    let e = rejected(&tape, &nodes, || tape.variable(f64::NAN));
    assert!(matches!(
        e,
        ScalarAutodiffError::NonFiniteLeaf { operation: ScalarOperation::Variable, value, label: None }
            if value.is_nan()
    ));
    assert_eq!(e.to_string(), "variable scalar value NaN must be finite");
    assert_eq!(e.code(), "non-finite-leaf");

    let e = rejected(&tape, &nodes, || {
        tape.constant(f64::INFINITY).map_err(at(3, "scale"))
    });
    assert_eq!(
        e,
        ScalarAutodiffError::NonFiniteLeaf {
            operation: ScalarOperation::Constant,
            value: f64::INFINITY,
            label: Some(Label::at_line("scale", 3)),
        }
    );
    assert_eq!(
        e.to_string(),
        "constant scalar value inf must be finite at `scale` (line 3)"
    );

    let e = rejected(&tape, &nodes, || tape.variable(f64::NEG_INFINITY));
    assert_eq!(e.to_string(), "variable scalar value -inf must be finite");
}

#[test]
fn nan_and_infinite_plain_operands() {
    let tape = Tape::new();
    let nodes = primed(&tape);
    let x = nodes[0];
    type Op<'t> = fn(Scalar<'t>, f64) -> Result<Scalar<'t>, ScalarAutodiffError>;
    use ScalarOperation as O;
    // (name, operation, its operand slot for the plain number, the call)
    let operations: [(&str, O, usize, Op<'_>); 10] = [
        ("add", O::Add, 1, |x, c| x.add(c)),
        ("sub", O::Subtract, 1, |x, c| x.sub(c)),
        ("mul", O::Multiply, 1, |x, c| x.mul(c)),
        ("div", O::Divide, 1, |x, c| x.div(c)),
        ("max", O::Max, 1, |x, c| x.max(c)),
        ("min", O::Min, 1, |x, c| x.min(c)),
        ("powf", O::Powf, 1, |x, c| x.powf(c)),
        ("rsub", O::Subtract, 0, |x, c| x.rsub(c)),
        ("rdiv", O::Divide, 0, |x, c| x.rdiv(c)),
        ("rpowf", O::Powf, 0, |x, c| x.rpowf(c)),
    ];
    for (name, expected, slot, operation) in operations {
        for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            let e = rejected(&tape, &nodes, || operation(x, bad).map_err(at(9, "x ⊕ c")));
            // The error names the operation that was given the number.
            let ScalarAutodiffError::NonFiniteOperand {
                operation,
                operand,
                value,
                operands,
                label,
            } = e.clone()
            else {
                panic!("{name}({bad}) gave {e:?}");
            };
            assert_eq!((operation, operand), (expected, slot), "{name}");
            assert_eq!(value.to_bits(), bad.to_bits(), "{name}");
            assert_eq!(label, Some(Label::at_line("x ⊕ c", 9)));
            // Both operands as written, the plain one in its slot (x = 0.5).
            let written = if slot == 0 { [bad, 0.5] } else { [0.5, bad] };
            let values: Vec<u64> = operands.values().iter().map(|v| v.to_bits()).collect();
            assert_eq!(values, written.map(f64::to_bits), "{name}");
            assert_eq!(e.code(), "non-finite-operand");
            assert_eq!(
                e.to_string(),
                format!(
                    "{} of {:?} and {:?} got non-finite plain operand {bad:?} at `x ⊕ c` (line 9)",
                    expected.as_str(),
                    written[0],
                    written[1],
                )
            );
        }
    }
}

#[test]
fn ln_sqrt_and_powf_outside_their_domain() {
    let tape = Tape::new();
    let mut nodes = primed(&tape);
    let negative = tape.variable(-1.0).unwrap();
    let zero = tape.variable(0.0).unwrap();
    let two = tape.variable(2.0).unwrap();
    nodes.extend([negative, zero, two]);

    let e = rejected(&tape, &nodes, || negative.ln().map_err(at(12, "y.ln()")));
    assert!(matches!(
        e,
        ScalarAutodiffError::NonFiniteResult { operation: ScalarOperation::Ln, value, operands, .. }
            if value.is_nan() && operands == Operands::one(-1.0)
    ));
    assert_eq!(e.label(), Some(Label::at_line("y.ln()", 12)));
    assert_eq!(
        e.to_string(),
        "ln of -1.0 produced non-finite scalar value NaN at `y.ln()` (line 12)"
    );
    assert_eq!(e.code(), "non-finite-result");

    let e = rejected(&tape, &nodes, || zero.ln());
    assert_eq!(
        e.to_string(),
        "ln of 0.0 produced non-finite scalar value -inf"
    );

    let e = rejected(&tape, &nodes, || negative.sqrt().map_err(at(4, "r.sqrt()")));
    assert_eq!(
        e.to_string(),
        "sqrt of -1.0 produced non-finite scalar value NaN at `r.sqrt()` (line 4)"
    );

    // (−1)^0.5 has no real value.
    let e = rejected(&tape, &nodes, || {
        negative.powf(0.5).map_err(at(5, "y.powf(0.5)"))
    });
    assert_eq!(
        e.to_string(),
        "powf of -1.0 and 0.5 produced non-finite scalar value NaN at `y.powf(0.5)` (line 5)"
    );
    // 0^−1 is a pole.
    let e = rejected(&tape, &nodes, || zero.powf(-1.0));
    assert_eq!(
        e.to_string(),
        "powf of 0.0 and -1.0 produced non-finite scalar value inf"
    );
    // (−1)^2 = 1 is fine, but a tracked exponent needs ln(−1).
    let e = rejected(&tape, &nodes, || {
        negative.powf(two).map_err(at(6, "y.powf(n)"))
    });
    assert!(matches!(
        e,
        ScalarAutodiffError::NonFiniteLocalDerivative {
            operation: ScalarOperation::Powf, operand: 1, input: 2.0, local_derivative, ..
        } if local_derivative.is_nan()
    ));
    assert_eq!(
        e.to_string(),
        "powf of -1.0 and 2.0 has non-finite local derivative NaN for operand 1 at `y.powf(n)` (line 6)"
    );
    assert_eq!(e.code(), "non-finite-local-derivative");
    // The same power with a plain exponent has no exponent edge, so it is fine.
    assert_eq!(negative.powf(2.0).unwrap().value(), 1.0);
    // base^x for a negative plain base.
    let e = rejected(&tape, &nodes, || {
        nodes[0].rpowf(-2.0).map_err(at(7, "(-2.0).powf(x)"))
    });
    assert_eq!(
        e.to_string(),
        "powf of -2.0 and 0.5 produced non-finite scalar value NaN at `(-2.0).powf(x)` (line 7)"
    );
}

#[test]
fn sqrt_at_zero_has_an_infinite_derivative() {
    let tape = Tape::new();
    let mut nodes = primed(&tape);
    let zero = tape.variable(0.0).unwrap();
    nodes.push(zero);
    let e = rejected(&tape, &nodes, || zero.sqrt().map_err(at(8, "d.sqrt()")));
    assert_eq!(
        e,
        ScalarAutodiffError::NonFiniteLocalDerivative {
            operation: ScalarOperation::Sqrt,
            operand: 0,
            input: 0.0,
            operands: Operands::one(0.0),
            local_derivative: f64::INFINITY,
            label: Some(Label::at_line("d.sqrt()", 8)),
        }
    );
    assert_eq!(
        e.to_string(),
        "sqrt of 0.0 has non-finite local derivative inf for operand 0 at `d.sqrt()` (line 8)"
    );
}

#[test]
fn division_by_zero() {
    let tape = Tape::new();
    let mut nodes = primed(&tape);
    let x = nodes[0];
    let zero = tape.variable(0.0).unwrap();
    nodes.push(zero);

    let e = rejected(&tape, &nodes, || x.div(0.0).map_err(at(10, "x / 0.0")));
    assert_eq!(
        e,
        ScalarAutodiffError::NonFiniteResult {
            operation: ScalarOperation::Divide,
            value: f64::INFINITY,
            operands: Operands::two(0.5, 0.0),
            label: Some(Label::at_line("x / 0.0", 10)),
        }
    );
    assert_eq!(
        e.to_string(),
        "div of 0.5 and 0.0 produced non-finite scalar value inf at `x / 0.0` (line 10)"
    );

    let e = rejected(&tape, &nodes, || x.div(-0.0));
    assert_eq!(
        e.to_string(),
        "div of 0.5 and -0.0 produced non-finite scalar value -inf"
    );
    let e = rejected(&tape, &nodes, || zero.div(zero));
    assert_eq!(
        e.to_string(),
        "div of 0.0 and 0.0 produced non-finite scalar value NaN"
    );
    let e = rejected(&tape, &nodes, || zero.rdiv(1.0).map_err(at(11, "1.0 / d")));
    assert_eq!(
        e.to_string(),
        "div of 1.0 and 0.0 produced non-finite scalar value inf at `1.0 / d` (line 11)"
    );
    let e = rejected(&tape, &nodes, || zero.recip());
    assert_eq!(
        e.to_string(),
        "recip of 0.0 produced non-finite scalar value inf"
    );
    let e = rejected(&tape, &nodes, || zero.powi(-2));
    assert_eq!(
        e.to_string(),
        "powi of 0.0 and -2.0 produced non-finite scalar value inf"
    );
}

#[test]
fn overflow_in_exp_powi_and_products() {
    let tape = Tape::new();
    let mut nodes = primed(&tape);
    let big = tape.variable(1000.0).unwrap();
    let ten = tape.variable(10.0).unwrap();
    let huge = tape.variable(1e200).unwrap();
    let tiny = tape.variable(1e-300).unwrap();
    nodes.extend([big, ten, huge, tiny]);

    let e = rejected(&tape, &nodes, || big.exp().map_err(at(13, "z.exp()")));
    assert_eq!(
        e,
        ScalarAutodiffError::NonFiniteResult {
            operation: ScalarOperation::Exp,
            value: f64::INFINITY,
            operands: Operands::one(1000.0),
            label: Some(Label::at_line("z.exp()", 13)),
        }
    );
    assert_eq!(
        e.to_string(),
        "exp of 1000.0 produced non-finite scalar value inf at `z.exp()` (line 13)"
    );

    let e = rejected(&tape, &nodes, || {
        ten.powi(400).map_err(at(14, "t.powi(400)"))
    });
    assert_eq!(
        e.to_string(),
        "powi of 10.0 and 400.0 produced non-finite scalar value inf at `t.powi(400)` (line 14)"
    );
    let e = rejected(&tape, &nodes, || huge.mul(huge));
    assert_eq!(
        e.to_string(),
        "mul of 1e200 and 1e200 produced non-finite scalar value inf"
    );

    // Finite results whose derivatives overflow: 1/x = 1e300 but
    // d(1/x)/dx = −1e600; x^−1 likewise; ln x is −744 but 1/x is infinite.
    let e = rejected(&tape, &nodes, || tiny.recip().map_err(at(15, "1/e")));
    assert_eq!(
        e.to_string(),
        "recip of 1e-300 has non-finite local derivative -inf for operand 0 at `1/e` (line 15)"
    );
    let e = rejected(&tape, &nodes, || tiny.powi(-1));
    assert_eq!(
        e.to_string(),
        "powi of 1e-300 and -1.0 has non-finite local derivative -inf for operand 0"
    );
    let subnormal = tape.variable(5e-324).unwrap();
    nodes.push(subnormal);
    let e = rejected(&tape, &nodes, || subnormal.ln());
    assert_eq!(
        e.to_string(),
        "ln of 5e-324 has non-finite local derivative inf for operand 0"
    );
}

#[test]
fn non_finite_seeds() {
    let tape = Tape::new();
    let nodes = primed(&tape);
    let y = nodes[3];
    for seed in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let e = rejected(&tape, &nodes, || y.backward_with_seed(seed));
        assert!(
            matches!(e, ScalarAutodiffError::NonFiniteSeed { seed: s } if s.to_bits() == seed.to_bits())
        );
        assert_eq!(
            e.to_string(),
            format!("backward seed {seed:?} must be finite")
        );
        assert_eq!(e.code(), "non-finite-seed");
    }
}

#[test]
fn backward_from_a_constant_a_detached_value_or_constants_only() {
    let tape = Tape::new();
    let mut nodes = primed(&tape);
    let bias = nodes[2];
    let e = rejected(&tape, &nodes, || bias.backward());
    assert_eq!(
        e,
        ScalarAutodiffError::UntrackedOutput {
            operation: ScalarOperation::Constant,
            label: Some(Label::at_line("bias", 2)),
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot backpropagate from untracked constant output at `bias` (line 2)"
    );
    assert_eq!(e.code(), "constant-output");

    let frozen = nodes[0]
        .detach()
        .unwrap()
        .labeled(Label::at_line("x.detach()", 5));
    nodes.push(frozen);
    let e = rejected(&tape, &nodes, || frozen.backward());
    assert_eq!(
        e.to_string(),
        "cannot backpropagate from untracked detached output at `x.detach()` (line 5)"
    );
    assert_eq!(e.code(), "detached-output");

    let product = bias.mul(frozen).unwrap();
    nodes.push(product);
    let e = rejected(&tape, &nodes, || product.backward_with_seed(2.0));
    assert_eq!(
        e.to_string(),
        "cannot backpropagate from untracked mul output"
    );
    assert_eq!(e.code(), "untracked-output");
}

#[test]
fn mixing_tapes() {
    let tape = Tape::new();
    let other = Tape::new();
    let nodes = primed(&tape);
    let others = primed(&other);
    let before = snapshot(&other, &others);
    let e = rejected(&tape, &nodes, || {
        nodes[0].add(others[1]).map_err(at(16, "x + w"))
    });
    assert_eq!(
        e,
        ScalarAutodiffError::MixedTapes {
            operation: ScalarOperation::Add,
            label: Some(Label::at_line("x + w", 16)),
        }
    );
    assert_eq!(
        e.to_string(),
        "add combines scalars from two different tapes at `x + w` (line 16)"
    );
    assert_eq!(e.code(), "mixed-tapes");
    let e = rejected(&tape, &nodes, || nodes[0].powf(others[0]));
    assert_eq!(
        e.to_string(),
        "powf combines scalars from two different tapes"
    );
    assert_eq!(snapshot(&other, &others), before);
}

/// `x = 1e−300`, `y = x·1e200`, `z = y·1e200`: every value is finite, but
/// the pass from `z` sends 1e200 · 1e200 to `x`.
#[test]
fn contributions_that_overflow() {
    let tape = Tape::new();
    let mut nodes = primed(&tape);
    let x = tape
        .variable(1e-300)
        .unwrap()
        .labeled(Label::at_line("e", 20));
    let y = x
        .mul(1e200)
        .unwrap()
        .labeled(Label::at_line("e * 1e200", 21));
    let z = y
        .mul(1e200)
        .unwrap()
        .labeled(Label::at_line("y * 1e200", 22));
    nodes.extend([x, y, z]);
    y.backward().unwrap(); // x's stored gradient is now 1e200

    let e = rejected(&tape, &nodes, || z.backward());
    assert_eq!(
        e,
        ScalarAutodiffError::NonFiniteContribution {
            child: y.index(),
            parent: x.index(),
            operand: 0,
            upstream: 1e200,
            local_derivative: 1e200,
            label: Some(Label::at_line("e * 1e200", 21)),
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "edge 0 from topology node {} to {} produced a non-finite contribution from upstream 1e200 and local derivative 1e200 of `e * 1e200` (line 21)",
            y.index(),
            x.index()
        )
    );
    assert_eq!(e.code(), "non-finite-contribution");

    // A large seed overflows the first edge.
    let e = rejected(&tape, &nodes, || y.backward_with_seed(1e150));
    assert!(matches!(
        e,
        ScalarAutodiffError::NonFiniteContribution {
            upstream: 1e150,
            local_derivative: 1e200,
            ..
        }
    ));
}

/// Two finite contributions of 1e308 each meet at `x`.
#[test]
fn pass_adjoints_that_overflow() {
    let tape = Tape::new();
    let mut nodes = primed(&tape);
    let x = tape
        .variable(1e-300)
        .unwrap()
        .labeled(Label::at_line("e", 30));
    let a = x
        .mul(1e308)
        .unwrap()
        .labeled(Label::at_line("e * 1e308", 31));
    let b = x
        .mul(1e308)
        .unwrap()
        .labeled(Label::at_line("e * 1e308", 32));
    let out = a.add(b).unwrap();
    nodes.extend([x, a, b, out]);
    a.backward().unwrap();

    let e = rejected(&tape, &nodes, || out.backward());
    assert_eq!(
        e,
        ScalarAutodiffError::NonFinitePassAdjoint {
            node: x.index(),
            previous: 1e308,
            contribution: 1e308,
            // The sweep meets b's edge first; a's overflows the sum.
            local_derivative: 1e308,
            consumer_label: Some(Label::at_line("e * 1e308", 31)),
            label: Some(Label::at_line("e", 30)),
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "topology node {} at `e` (line 30) cannot accumulate pass adjoint 1e308 plus contribution 1e308 from local derivative 1e308 of `e * 1e308` (line 31)",
            x.index()
        )
    );
    assert_eq!(e.code(), "non-finite-pass-adjoint");
}

/// Each pass is finite; the second one's sum with the first is not.
#[test]
fn stored_gradients_that_overflow_on_accumulation() {
    let tape = Tape::new();
    let mut nodes = primed(&tape);
    let x = tape
        .variable(1e-300)
        .unwrap()
        .labeled(Label::at_line("e", 40));
    let y = x
        .mul(1e308)
        .unwrap()
        .labeled(Label::at_line("e * 1e308", 41));
    nodes.extend([x, y]);
    y.backward().unwrap();
    assert_eq!((x.gradient(), y.gradient()), (Some(1e308), Some(1.0)));

    let e = rejected(&tape, &nodes, || y.backward());
    assert_eq!(
        e,
        ScalarAutodiffError::NonFiniteAccumulatedGradient {
            node: x.index(),
            stored: 1e308,
            pass_adjoint: 1e308,
            label: Some(Label::at_line("e", 40)),
        }
    );
    assert_eq!(
        e.to_string(),
        format!(
            "topology node {} cannot accumulate stored gradient 1e308 plus pass adjoint 1e308 at `e` (line 40)",
            x.index()
        )
    );
    assert_eq!(e.code(), "non-finite-accumulated-gradient");
    // All or nothing: y's own sum (1 + 1) was fine but was not committed.
    assert_eq!(y.gradient(), Some(1.0));
    // Clearing makes room again.
    y.zero_grad();
    y.backward().unwrap();
    assert_eq!(x.gradient(), Some(1e308));
}

const TEN_MILLION: usize = 10_000_000;

/// `y = x + x + … + x` as a chain of ten million nodes: one reverse loop, no
/// recursion, exact integer results, then the tape is dropped.
#[test]
#[ignore = "long: .ci/run runs it in release"]
fn ten_million_node_chain_runs_backward_and_drops() {
    let tape = Tape::with_capacity(TEN_MILLION);
    let x = tape.variable(0.5).unwrap();
    let mut y = x;
    for _ in 1..TEN_MILLION {
        y = y.add(x).unwrap();
    }
    assert_eq!(tape.len(), TEN_MILLION);
    assert_eq!(y.value(), 0.5 * TEN_MILLION as f64);
    y.backward().unwrap();
    // The first add uses x twice, every later one once: 10^7 edges to x.
    assert_eq!(x.gradient(), Some(TEN_MILLION as f64));
    drop(tape);
}

/// A ten-million-node pass that fails at its very last edge: 10^7 · 1e302
/// overflows only once every add has been walked. Nothing changes.
#[test]
#[ignore = "long: .ci/run runs it in release"]
fn ten_million_node_pass_that_overflows_at_the_bottom_changes_nothing() {
    let tape = Tape::with_capacity(TEN_MILLION);
    let x = tape
        .variable(1e-300)
        .unwrap()
        .labeled(Label::at_line("e", 50));
    let a = x
        .mul(1e302)
        .unwrap()
        .labeled(Label::at_line("e * 1e302", 51));
    a.backward().unwrap();
    let mut watched = vec![x, a];
    let mut y = a;
    for i in 2..TEN_MILLION {
        y = y.add(a).unwrap();
        if i % 100_000 == 0 {
            watched.push(y);
        }
    }
    // A smaller pass from the middle gives the watched nodes gradients.
    let middle = watched[watched.len() / 2];
    middle.backward_with_seed(1e-200).unwrap();
    watched.push(y);

    let e = rejected(&tape, &watched, || y.backward());
    assert!(matches!(
        e,
        ScalarAutodiffError::NonFiniteContribution { child, parent, local_derivative: 1e302, .. }
            if child == a.index() && parent == x.index()
    ));
    assert_eq!(e.label(), Some(Label::at_line("e * 1e302", 51)));
    drop(tape);
}

/// The gradient check's own bad inputs: a typed `GradientCheckError` each.
#[test]
fn gradient_check_settings_and_inputs() {
    fn message<T>(result: Result<T, GradientCheckError>) -> String {
        match result {
            Ok(_) => panic!("a bad gradient-check input was accepted"),
            Err(e) => e.to_string(),
        }
    }
    let square = |x: &[f64]| x[0] * x[0];
    assert_eq!(
        message(gradient_check(&[1.0], &[2.0], Some(0.0), 1e-6, square)),
        "gradient-check step 0.0 must be positive and finite"
    );
    assert_eq!(
        message(gradient_check(&[1.0], &[2.0], Some(f64::NAN), 1e-6, square)),
        "gradient-check step NaN must be positive and finite"
    );
    assert_eq!(
        message(gradient_check(&[1.0], &[2.0], None, -1.0, square)),
        "gradient-check tolerance -1.0 must be non-negative and finite"
    );
    assert_eq!(
        message(gradient_check(&[f64::INFINITY], &[2.0], None, 1e-6, square)),
        "gradient-check input 0 is inf; it must be finite"
    );
    assert_eq!(
        message(gradient_check(&[1.0], &[f64::NAN], None, 1e-6, square)),
        "analytic gradient component 0 is NaN; it must be finite"
    );
    assert_eq!(
        message(gradient_check(&[1.0, 2.0], &[2.0], None, 1e-6, |x| x[0] + x[1])),
        "2 inputs but 1 analytic gradient components"
    );
    // ln at 0.0005 is fine; the step reaches −0.0005, where it is not.
    assert_eq!(
        message(scalar_gradient_check(0.0005, 2000.0, 1e-3, 1e-6, f64::ln)),
        "function value NaN at component 0 perturbed to -0.0005 is not finite; try a smaller step"
    );
}

// ---------------------------------------------------------------------------
// The same rows through `#[differentiable]`: `f_grad` (the compiled adjoint,
// which reruns the tape on a value the tape rejects) returns exactly the
// error of `f_grad_tape` (the tape path), field by field. The rows about
// seeds, constant outputs and two tapes have no annotated form: a generated
// gradient seeds 1 from its own output on its own tape.
// ---------------------------------------------------------------------------

mod annotated {
    use autodiff::prelude::*;

    #[differentiable]
    pub fn leaf(x: f64, w: f64) -> f64 {
        x * 2.0 + w.tanh()
    }

    #[differentiable]
    pub fn log_of(y: f64) -> f64 {
        y.ln() + 1.0
    }

    #[differentiable]
    pub fn root_of(r: f64) -> f64 {
        r.sqrt() * 2.0
    }

    #[differentiable]
    pub fn power(y: f64, n: f64) -> f64 {
        y.powf(n)
    }

    #[differentiable]
    pub fn ratio(x: f64, d: f64) -> f64 {
        x / d
    }

    #[differentiable]
    pub fn grow(z: f64, t: f64) -> f64 {
        z.exp() + t.powi(400)
    }

    #[differentiable]
    pub fn inverse(e: f64) -> f64 {
        e.recip()
    }

    /// Upstream 1e200 times local 1e200 (the contribution row).
    #[differentiable]
    pub fn amplified(e: f64) -> f64 {
        let z = e * 1e200;
        z * 1e200
    }

    /// Two edges of 1e308 into `e` (the pass-adjoint row).
    #[differentiable]
    pub fn doubled(e: f64) -> f64 {
        let a = e * 1e308;
        let b = e * 1e308;
        (a + b) * 1e-300
    }

    /// An overflow that `tanh` takes back to 1 (derivative 0).
    #[differentiable]
    pub fn saturated(w: [f64; 3], #[constant] x: [f64; 3]) -> f64 {
        let mut z = 0.0;
        for i in 0..3 {
            z += w[i] * x[i];
        }
        z.tanh()
    }

    /// Reads only `x[0]`: a NaN elsewhere is caught by the input check.
    #[differentiable]
    pub fn first_only(x: &[f64]) -> f64 {
        x[0] * x[0]
    }

    /// A body that panics on a NaN argument and loops forever on an
    /// infinite one: both paths must report the bad parameter without
    /// running it.
    #[differentiable]
    pub fn guarded(x: f64, w: [f64; 2]) -> f64 {
        assert!(!x.is_nan(), "the body ran on a NaN");
        let mut y = x;
        while y > 1.0 {
            y *= 0.5;
        }
        y * w[0] + w[1]
    }
}

#[test]
fn both_paths_report_a_bad_parameter_before_running_the_body() {
    use annotated::*;
    // The first bad parameter in order is the one reported, with its name.
    for (x, w, label) in [
        (f64::NAN, [1.0, 2.0], "x"),
        (f64::INFINITY, [1.0, 2.0], "x"),
        (0.5, [1.0, f64::NAN], "w"),
        (f64::NAN, [f64::INFINITY, 2.0], "x"),
    ] {
        // The compiled path checks its parameters before its forward
        // sweep too, and reruns the tape path, which gives the error.
        same_error(label, guarded_grad(x, w), guarded_grad_tape(x, w));
        let error = guarded_grad_tape(x, w).expect_err(label);
        match &error {
            ScalarAutodiffError::NonFiniteLeaf {
                operation: ScalarOperation::Variable,
                label: Some(at),
                ..
            } => assert_eq!(at.text, label, "{error}"),
            other => panic!("{label}: {other:?}"),
        }
    }
    // Good inputs still differentiate: y = x halved below 1, times w0, + w1.
    // Compiled, not kept on the tape: its adjoint answers, and refuses NaN.
    let adjoint = |x, w| autodiff::__adjoint::with_stack(|stack| guarded_adjoint(stack, x, w));
    assert!(adjoint(3.0, [2.0, 1.0]).is_some());
    assert!(adjoint(f64::NAN, [2.0, 1.0]).is_none());
    for good in [
        guarded_grad(3.0, [2.0, 1.0]).unwrap(),
        guarded_grad_tape(3.0, [2.0, 1.0]).unwrap(),
    ] {
        assert_eq!(good.value, 0.75 * 2.0 + 1.0);
        assert_eq!(good.gradient, (0.25 * 2.0, [0.75, 1.0]));
    }
}

/// Both paths fail, with the same error, field by field (`Debug`: the
/// errors carry the NaN they rejected, and NaN != NaN).
fn same_error<G: std::fmt::Debug>(
    row: &str,
    compiled: Result<autodiff::ValueAndGradient<G>, ScalarAutodiffError>,
    tape: Result<autodiff::ValueAndGradient<G>, ScalarAutodiffError>,
) {
    let compiled = compiled.expect_err(row);
    let tape = tape.expect_err(row);
    assert_eq!(format!("{compiled:?}"), format!("{tape:?}"), "{row}");
    assert_eq!(compiled.to_string(), tape.to_string(), "{row}");
}

#[test]
fn every_row_through_the_compiled_adjoint_gives_the_tapes_error() {
    use annotated::*;
    same_error(
        "NaN leaf",
        leaf_grad(f64::NAN, 1.0),
        leaf_grad_tape(f64::NAN, 1.0),
    );
    same_error(
        "infinite leaf read only by tanh",
        leaf_grad(1.0, f64::INFINITY),
        leaf_grad_tape(1.0, f64::INFINITY),
    );
    same_error("ln of -1", log_of_grad(-1.0), log_of_grad_tape(-1.0));
    same_error("ln of 0", log_of_grad(0.0), log_of_grad_tape(0.0));
    same_error("sqrt of -1", root_of_grad(-1.0), root_of_grad_tape(-1.0));
    same_error("sqrt at 0", root_of_grad(0.0), root_of_grad_tape(0.0));
    same_error(
        "powf domain",
        power_grad(-1.0, 0.5),
        power_grad_tape(-1.0, 0.5),
    );
    same_error(
        "negative base, tracked exponent",
        power_grad(-1.0, 2.0),
        power_grad_tape(-1.0, 2.0),
    );
    same_error("x / 0", ratio_grad(1.0, 0.0), ratio_grad_tape(1.0, 0.0));
    same_error("x / -0", ratio_grad(1.0, -0.0), ratio_grad_tape(1.0, -0.0));
    same_error("0 / 0", ratio_grad(0.0, 0.0), ratio_grad_tape(0.0, 0.0));
    same_error(
        "exp overflow",
        grow_grad(1000.0, 1.0),
        grow_grad_tape(1000.0, 1.0),
    );
    same_error(
        "powi overflow",
        grow_grad(1.0, 10.0),
        grow_grad_tape(1.0, 10.0),
    );
    same_error(
        "recip at 1e-300",
        inverse_grad(1e-300),
        inverse_grad_tape(1e-300),
    );
    same_error("recip at 0", inverse_grad(0.0), inverse_grad_tape(0.0));
    same_error(
        "contribution overflow",
        amplified_grad(1e-300),
        amplified_grad_tape(1e-300),
    );
    same_error(
        "pass adjoint overflow",
        doubled_grad(1.0),
        doubled_grad_tape(1.0),
    );
    // A sum that overflows to +∞ (local derivatives 1, finite) read only by
    // `tanh` (1, derivative 0): an infinite intermediate that reaches
    // neither the output nor a NaN, so no error; its gradient is 0.
    let w = [1e308, 1e308, 1e308];
    assert!(saturated(w, [1.0, 1.0, 1.0]).is_finite());
    for got in [
        saturated_grad(w, [1.0, 1.0, 1.0]).unwrap(),
        saturated_grad_tape(w, [1.0, 1.0, 1.0]).unwrap(),
    ] {
        assert_eq!((got.value, got.gradient), (1.0, [0.0; 3]));
    }
    same_error(
        "unread NaN",
        first_only_grad(&[2.0, f64::NAN]),
        first_only_grad_tape(&[2.0, f64::NAN]),
    );
}

#[test]
fn after_a_rejected_input_the_compiled_path_gives_the_tapes_gradient() {
    use annotated::*;
    // The thread's stack is cleared by every call: a failure leaves nothing.
    assert!(log_of_grad(-1.0).is_err());
    let compiled = log_of_grad(2.0).unwrap();
    assert_eq!(compiled, log_of_grad_tape(2.0).unwrap());
    assert_eq!(compiled.gradient, 0.5);
}

/// Where a NaN was born in a `#[differentiable]` function's loops: the
/// label names the iteration (`i = 3`; nested loops all of them; a `while`
/// loop its count) and the message the operands' values, alike on the
/// compiled path (`f_grad`, which reruns the tape to name the error) and on
/// the tape (`f_grad_tape`).
mod in_loops {
    // The loops index on purpose: the index is the iteration an error names.
    #![allow(clippy::needless_range_loop)]

    use autodiff::prelude::*;
    use autodiff::{Iteration, Iterations, Label, Operands, ScalarAutodiffError, ScalarOperation};

    /// The same error from both paths (a NaN field is never `==`, so
    /// compared by its message, code and label), which it returns.
    fn both<T: std::fmt::Debug>(
        compiled: Result<T, ScalarAutodiffError>,
        tape: Result<T, ScalarAutodiffError>,
    ) -> ScalarAutodiffError {
        let compiled = compiled.expect_err("f_grad accepted it");
        let tape = tape.expect_err("f_grad_tape accepted it");
        assert_eq!(compiled.to_string(), tape.to_string());
        assert_eq!(compiled.code(), tape.code());
        assert_eq!(compiled.label(), tape.label());
        compiled
    }

    /// `text` on `line`, in the loops `(name, value, counted)`.
    fn at(text: &'static str, line: u32, loops: &[(&'static str, i64, bool)]) -> Label {
        let frames: Vec<Iteration> = loops
            .iter()
            .map(|&(name, value, counted)| Iteration {
                name,
                value,
                counted,
            })
            .collect();
        Label {
            iterations: Iterations::from_frames(&frames),
            ..Label::at_line(text, line)
        }
    }

    #[differentiable]
    fn logs(x: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..x.len() {
            let y = x[i] - 1.0;
            total += y.ln();
        }
        total
    }
    const LOGS_LINE: u32 = line!() - 4;

    #[test]
    fn a_nan_born_in_iteration_3() {
        let x = [2.0, 3.0, 1.5, 0.5, 4.0];
        let e = both(logs_grad(&x), logs_grad_tape(&x));
        let ScalarAutodiffError::NonFiniteResult {
            operation: ScalarOperation::Ln,
            value,
            operands,
            label,
        } = e.clone()
        else {
            panic!("{e:?}");
        };
        assert!(value.is_nan());
        assert_eq!(operands, Operands::one(-0.5));
        assert_eq!(label, Some(at("y.ln()", LOGS_LINE, &[("i", 3, false)])));
        assert_eq!(
            e.to_string(),
            format!(
                "ln of -0.5 produced non-finite scalar value NaN at `y.ln()` (line {LOGS_LINE}, i = 3)"
            )
        );
    }

    #[differentiable]
    fn grid(w: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..2 {
            for j in 0..3 {
                let d = w[i * 3 + j] * 2.0;
                total += d.sqrt();
            }
        }
        total
    }
    const GRID_LINE: u32 = line!() - 5;

    #[test]
    fn a_nan_born_in_nested_loops_names_both_iterations() {
        let w = [1.0, 2.0, 3.0, 4.0, 5.0, -2.0];
        let e = both(grid_grad(&w), grid_grad_tape(&w));
        assert_eq!(
            e.label(),
            Some(at(
                "d.sqrt()",
                GRID_LINE,
                &[("i", 1, false), ("j", 2, false)]
            ))
        );
        assert_eq!(
            e.to_string(),
            format!(
                "sqrt of -4.0 produced non-finite scalar value NaN at `d.sqrt()` (line {GRID_LINE}, i = 1, j = 2)"
            )
        );
    }

    #[differentiable]
    fn descending(x: f64) -> f64 {
        let mut y = x;
        let mut total = 0.0;
        let mut n = 0;
        while n < 5 {
            y -= 1.0;
            total += y.ln();
            n += 1;
        }
        total
    }
    const DESCENDING_LINE: u32 = line!() - 5;

    #[test]
    fn a_nan_born_in_a_while_loop_names_its_count() {
        let e = both(descending_grad(3.5), descending_grad_tape(3.5));
        assert_eq!(
            e.label(),
            Some(at("y.ln()", DESCENDING_LINE, &[("while", 3, true)]))
        );
        assert_eq!(
            e.to_string(),
            format!(
                "ln of -0.5 produced non-finite scalar value NaN at `y.ln()` (line {DESCENDING_LINE}, while iteration 3)"
            )
        );
    }

    #[differentiable]
    fn scaled(x: &[f64], #[constant] s: &[f64]) -> f64 {
        let mut total = 0.0;
        for i in 0..x.len() {
            let e = x[i] * s[i];
            total += e * s[i];
        }
        total
    }
    const SCALED_LINE: u32 = line!() - 5;

    #[test]
    fn a_reverse_overflow_in_a_loop_names_the_forward_operation_and_its_iteration() {
        // Every value is finite (1e-300 · 1e200 · 1e200 = 1e100), but at
        // i = 1 the adjoint 1e200 of `e` meets the local derivative 1e200.
        let (x, s) = ([1e-300; 3], [1.0, 1e200, 1.0]);
        let e = both(scaled_grad(&x, &s), scaled_grad_tape(&x, &s));
        let ScalarAutodiffError::NonFiniteContribution {
            operand: 0,
            upstream,
            local_derivative,
            label,
            ..
        } = e.clone()
        else {
            panic!("{e:?}");
        };
        assert_eq!((upstream, local_derivative), (1e200, 1e200));
        // The forward statement `let e = x[i] * s[i]`, named by its binding.
        let forward = at("e", SCALED_LINE, &[("i", 1, false)]);
        assert_eq!(label, Some(forward));
        let message = e.to_string();
        assert!(
            message.ends_with(&format!(
                "produced a non-finite contribution from upstream 1e200 and local derivative 1e200 of {forward}"
            )),
            "{message}"
        );
        assert!(message.ends_with(&format!(
            "local derivative 1e200 of `e` (line {SCALED_LINE}, i = 1)"
        )));
    }
}
