//! Chapter 14's eight predictions and the engine's structural guarantees,
//! asserted against numbers worked out by hand.

use autodiff_core::{Label, Scalar, ScalarAutodiffError, ScalarOperation, Tape};

fn stored(scalars: &[Scalar<'_>]) -> Vec<Option<u64>> {
    scalars
        .iter()
        .map(|s| s.gradient().map(f64::to_bits))
        .collect()
}

/// Predictions 1–3: values, node and edge counts, and the per-edge contributions.
#[test]
fn reused_square_values_counts_and_contributions() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let square = x.mul(x).unwrap();
    let loss = square.add(square).unwrap();
    assert_eq!((square.value(), loss.value()), (4.0, 8.0));

    let pass = loss.backward().unwrap();
    let nodes = pass.nodes();
    let edges = pass.edges();
    assert_eq!(nodes.len(), 3, "three node identities");
    assert_eq!(edges.len(), 4, "four operand edges");

    // Reverse order: loss's two uses of square, then square's two uses of x.
    let rows: Vec<_> = edges
        .iter()
        .map(|e| {
            (
                e.child,
                e.operand,
                e.parent,
                e.local_derivative,
                e.upstream,
                e.contribution,
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            (2, 0, 1, 1.0, 1.0, 1.0),
            (2, 1, 1, 1.0, 1.0, 1.0),
            (1, 0, 0, 2.0, 2.0, 4.0),
            (1, 1, 0, 2.0, 2.0, 4.0),
        ]
    );
    // The adjoint of square is built by addition: 0 → 1 → 2.
    assert_eq!(edges[0].parent_adjoint_before, Some(0.0));
    assert_eq!(edges[1].parent_adjoint_after, Some(2.0));
    assert_eq!(edges[3].parent_adjoint_after, Some(8.0));
    let adjoints: Vec<_> = nodes.iter().map(|n| n.pass_adjoint).collect();
    assert_eq!(adjoints, vec![Some(8.0), Some(2.0), Some(1.0)]);
    assert_eq!(nodes[1].operands, vec![0, 0]);
}

/// Prediction 4: assignment instead of addition would give square 1 and x 2;
/// accumulation must give 2 and 8.
#[test]
fn accumulation_is_addition_not_assignment() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let square = x.mul(x).unwrap();
    let loss = square.add(square).unwrap();
    loss.backward().unwrap();
    assert_ne!(square.gradient(), Some(1.0));
    assert_ne!(x.gradient(), Some(2.0));
    assert_eq!(square.gradient(), Some(2.0));
    assert_eq!(x.gradient(), Some(8.0));
}

/// Prediction 5: (1,2,8), then (2,4,16), then zeros, then (1,2,8).
#[test]
fn repeated_passes_zeroing_and_restoring() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let square = x.mul(x).unwrap();
    let loss = square.add(square).unwrap();
    let grads = || [loss, square, x].map(|s| s.gradient().unwrap());

    loss.backward().unwrap();
    assert_eq!(grads(), [1.0, 2.0, 8.0]);
    loss.backward().unwrap();
    assert_eq!(grads(), [2.0, 4.0, 16.0], "a fresh pass, then added");
    loss.zero_grad();
    assert_eq!(grads(), [0.0, 0.0, 0.0]);
    loss.backward().unwrap();
    assert_eq!(grads(), [1.0, 2.0, 8.0]);
}

/// Prediction 6: x² + 3·detach(x) at 2 is 10 with gradient 4.
#[test]
fn detach_stops_the_gradient() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let detached = x.detach().unwrap();
    assert_eq!(detached.operation(), ScalarOperation::Detached);
    assert!(!detached.tracks_gradient());
    let loss = x
        .mul(x)
        .unwrap()
        .add(detached.mul(tape.constant(3.0).unwrap()).unwrap())
        .unwrap();
    loss.backward().unwrap();
    assert_eq!(loss.value(), 10.0);
    assert_eq!(x.gradient(), Some(4.0));
    assert_eq!(detached.gradient(), None);
}

/// Prediction 7: a failure in the final stored-sum check commits nothing,
/// not even the nodes validated before it.
#[test]
fn failed_commit_changes_no_bits() {
    let tape = Tape::new();
    let x = tape.variable(1.0).unwrap();
    let y = tape.variable(3.0).unwrap();
    let big = x.mul(1e308).unwrap(); // d big / dx = 1e308
    let out = big.add(y).unwrap();
    out.backward().unwrap();
    let before = stored(&[x, y, big, out]);
    let err = out.backward().unwrap_err();
    assert!(matches!(
        err,
        ScalarAutodiffError::NonFiniteAccumulatedGradient { node: 0, .. }
    ));
    assert_eq!(stored(&[x, y, big, out]), before);
}

/// Prediction 8: reverse mode is exact, not an approximation: the
/// nonlinear chain matches its closed form to the last bit or two.
#[test]
fn nonlinear_chain_matches_closed_form() {
    let tape = Tape::new();
    let x = tape.variable(0.5).unwrap();
    let y = x.tanh().unwrap().exp().unwrap();
    y.backward().unwrap();
    let t = 0.5_f64.tanh();
    let expected = t.exp() * (1.0 - t * t);
    assert!((x.gradient().unwrap() - expected).abs() <= 4.0 * f64::EPSILON);
    assert_eq!(format!("{:.12}", y.value()), "1.587431271430");
    assert_eq!(format!("{:.12}", x.gradient().unwrap()), "1.248431724655");
}

#[test]
fn seed_scales_the_pass_and_the_output_gets_the_seed() {
    let tape = Tape::new();
    let x = tape.variable(3.0).unwrap();
    let y = x.mul(x).unwrap().mul(x).unwrap(); // x³, 3x² = 27
    y.backward_with_seed(-0.5).unwrap();
    assert_eq!(x.gradient(), Some(-13.5));
    assert_eq!(y.gradient(), Some(-0.5));
    // A variable that is its own output receives exactly the seed.
    let z = tape.variable(1.0).unwrap();
    z.backward_with_seed(7.0).unwrap();
    assert_eq!(z.gradient(), Some(7.0));
}

#[test]
fn nodes_the_output_does_not_reach_are_untouched() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let a = x.mul(3.0).unwrap(); // consumer of x unrelated to `b`
    let b = x.exp().unwrap();
    b.backward().unwrap();
    assert_eq!(a.gradient(), Some(0.0), "another consumer receives nothing");
    assert_eq!(x.gradient(), Some(2.0_f64.exp()));
    // A later node that consumes b is also outside b's pass.
    let c = b.add(a).unwrap();
    assert_eq!(c.gradient(), Some(0.0));
    // zero_grad from `a` clears only a and x, never b.
    a.backward().unwrap();
    a.zero_grad();
    assert_eq!(a.gradient(), Some(0.0));
    assert_eq!(x.gradient(), Some(0.0));
    assert_eq!(b.gradient(), Some(1.0));
}

#[test]
fn constants_get_no_adjoint_and_appear_untracked_in_the_ledger() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let c = tape.constant(5.0).unwrap();
    let cc = c.mul(c).unwrap();
    assert!(!cc.tracks_gradient());
    let y = x.mul(cc).unwrap();
    let pass = y.backward().unwrap();
    assert_eq!(x.gradient(), Some(25.0));
    assert_eq!(c.gradient(), None);
    assert_eq!(cc.gradient(), None);
    let nodes = pass.nodes();
    assert_eq!(nodes.len(), 4);
    assert_eq!(nodes[1].pass_adjoint, None);
    let untracked_edges = pass.edges().iter().filter(|e| !e.parent_tracked).count();
    assert_eq!(untracked_edges, 3, "y→cc, cc→c twice");
    assert_eq!(pass.pass_adjoint(c.index()), None);
    assert_eq!(pass.pass_adjoint(x.index()), Some(25.0));
}

#[test]
fn plain_operands_record_one_edge_and_no_node() {
    let tape = Tape::new();
    let x = tape.variable(4.0).unwrap();
    let y = x.mul(3.0).unwrap().rsub(1.0).unwrap().rdiv(2.0).unwrap(); // 2 / (1 − 3x)
    assert_eq!(tape.len(), 4);
    let pass = y.backward().unwrap();
    assert_eq!(pass.edges().len(), 3);
    let u = 1.0 - 3.0 * 4.0;
    assert_eq!(y.value(), 2.0 / u);
    // d/dx 2/(1−3x) = 6/(1−3x)²
    assert!((x.gradient().unwrap() - 6.0 / (u * u)).abs() < 1e-15);
}

#[test]
fn identity_is_not_value_equality() {
    let tape = Tape::new();
    let a = tape.variable(1.0).unwrap();
    let b = tape.variable(1.0).unwrap();
    assert!(a.is_same_node(a));
    assert!(!a.is_same_node(b));
    let other = Tape::new();
    let c = other.variable(1.0).unwrap();
    assert_eq!(a.index(), c.index());
    assert!(!a.is_same_node(c), "same index on another tape");
}

#[test]
fn mixing_tapes_is_a_typed_error_and_records_nothing() {
    let first = Tape::new();
    let second = Tape::new();
    let x = first.variable(1.0).unwrap();
    let y = second.variable(2.0).unwrap();
    for result in [x.add(y), x.mul(y), x.powf(y), y.max(x)] {
        let err = result.unwrap_err();
        assert_eq!(err.code(), "mixed-tapes");
        assert!(err.to_string().contains("two different tapes"), "{err}");
    }
    assert_eq!((first.len(), second.len()), (1, 1));
}

#[test]
fn labels_show_in_errors_and_recording_errors_can_take_one() {
    let tape = Tape::new();
    let x = tape.constant(2.0).unwrap().labeled(Label::named("x"));
    assert_eq!(x.label(), Some(Label::named("x")));
    let err = x.backward().unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot backpropagate from untracked constant output at `x`"
    );
    let neg = tape.variable(-1.0).unwrap();
    let err = neg
        .ln()
        .map_err(|e| e.at(Label::at_line("y.ln()", 12)))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ln of -1.0 produced non-finite scalar value NaN at `y.ln()` (line 12)"
    );
    // A label already present is kept.
    assert_eq!(err.clone().at(Label::named("other")).label(), err.label());
}

/// A 10-million-operation chain: no recursion anywhere, so neither the
/// reverse pass nor dropping the tape can overflow the stack.
#[test]
#[ignore = "long: .ci/run runs it in release"]
fn ten_million_operation_chain() {
    const N: usize = 10_000_000;
    let tape = Tape::with_capacity(N + 1);
    let x = tape.variable(1.0).unwrap();
    let mut y = x;
    for _ in 0..N {
        y = y.add(x).unwrap(); // y = (N+1)·x
    }
    assert_eq!(tape.len(), N + 1);
    y.backward().unwrap();
    assert_eq!(x.gradient(), Some((N + 1) as f64));
    drop(tape);
}

#[test]
fn clear_keeps_capacity_and_forgets_nodes() {
    let mut tape = Tape::with_capacity(100);
    {
        let x = tape.variable(1.0).unwrap();
        x.exp().unwrap().backward().unwrap();
    }
    let capacity = tape.capacity();
    assert!(capacity >= 100);
    tape.clear();
    assert!(tape.is_empty());
    assert_eq!(tape.capacity(), capacity);
    let x = tape.variable(2.0).unwrap();
    assert_eq!(x.index(), 0);
    assert_eq!(x.gradient(), Some(0.0), "no stale gradient survives clear");
}

#[test]
fn zero_grads_clears_the_whole_tape() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let y = x.sin().unwrap();
    y.backward().unwrap();
    tape.zero_grads();
    assert_eq!((x.gradient(), y.gradient()), (Some(0.0), Some(0.0)));
}

// Recording writes at most 64 bytes a node; checked when this test compiles.
const _: () = assert!(autodiff_core::BYTES_PER_NODE <= 64);

/// A first pass on a fresh or cleared tape hands its adjoint buffer over as
/// the stored gradients; a −0 seed must still be stored as +0 (a stored
/// gradient is never −0), exactly as a later pass that adds would store it.
#[test]
fn a_negative_zero_seed_is_stored_as_positive_zero() {
    let mut tape = Tape::new();
    for _ in 0..2 {
        let x = tape.variable(3.0).unwrap();
        let y = x.mul(x).unwrap();
        let pass = y.backward_with_seed(-0.0).unwrap();
        assert_eq!(
            pass.pass_adjoint(y.index()).map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
        assert_eq!(stored(&[x, y]), [Some(0), Some(0)], "+0 bits, never −0");
        drop(pass);
        y.backward_with_seed(-0.0).unwrap();
        assert_eq!(stored(&[x, y]), [Some(0), Some(0)]);
        tape.clear();
    }
}

/// The ledger derives its adjoints from the tape when read; two passes'
/// ledgers read side by side each show their own seed's adjoints, however
/// the stored gradients moved in between.
#[test]
fn ledgers_of_two_passes_read_after_both_ran() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let y = x.mul(x).unwrap().mul(x).unwrap(); // x³, dy/dx = 12
    let first = y.backward().unwrap();
    let second = y.backward_with_seed(0.5).unwrap();
    assert_eq!(x.gradient(), Some(12.0 + 6.0));
    assert_eq!(first.pass_adjoint(x.index()), Some(12.0));
    assert_eq!(second.pass_adjoint(x.index()), Some(6.0));
    let adjoints = |pass: &autodiff_core::BackwardPass<'_>| {
        pass.nodes()
            .iter()
            .map(|n| n.pass_adjoint)
            .collect::<Vec<_>>()
    };
    assert_eq!(adjoints(&first), [Some(12.0), Some(2.0), Some(1.0)]);
    assert_eq!(adjoints(&second), [Some(6.0), Some(1.0), Some(0.5)]);
    // Recording after the passes changes neither ledger.
    let z = y.add(x).unwrap();
    z.backward().unwrap();
    assert_eq!(first.pass_adjoint(x.index()), Some(12.0));
    assert_eq!(first.pass_adjoint(z.index()), None, "z is past the output");
}

/// A new tape starts from the memory of the last small tape dropped on its
/// thread, holding none of its nodes, gradients or labels.
#[test]
fn a_new_tape_reuses_a_dropped_small_tape_and_nothing_of_its_graph() {
    let first = Tape::new();
    let x = first.variable(3.0).unwrap().labeled(Label::named("x"));
    let y = x.mul(x).unwrap();
    y.backward().unwrap();
    let room = first.capacity();
    assert!(room > 0);
    drop(first);

    let second = Tape::new();
    assert!(second.is_empty());
    assert_eq!(second.capacity(), room);
    let a = second.variable(5.0).unwrap();
    assert_eq!(a.gradient(), Some(0.0), "no stored gradient carried over");
    assert_eq!(a.label(), None, "no label carried over");
    let b = a.mul(2.0).unwrap();
    b.backward().unwrap();
    assert_eq!(a.gradient(), Some(2.0));
    assert_eq!(b.backward().unwrap().nodes().len(), 2);

    // Only one tape takes the buffers; the next starts empty.
    let third = Tape::new();
    assert_eq!(third.capacity(), 0);
}

/// A tape past `SPARE_NODES` returns its memory to the allocator on drop;
/// of two small tapes dropped, the roomier one is kept.
#[test]
fn only_small_tapes_leave_their_memory_behind() {
    let big = Tape::with_capacity(autodiff_core::SPARE_NODES + 1);
    big.variable(1.0).unwrap();
    drop(big);
    assert_eq!(Tape::new().capacity(), 0);

    let (small, smaller) = (Tape::with_capacity(64), Tape::with_capacity(8));
    drop(small);
    drop(smaller);
    assert_eq!(Tape::new().capacity(), 64);
}

/// The parameters a model records first are swept by a loop of their own
/// that only tests their sums: an overflow that lands on one must still be
/// caught, named, and leave every stored gradient as it was.
#[test]
fn overflows_that_land_on_leading_leaves_are_caught() {
    // Two finite contributions meet at x, on a tape with no stored gradient.
    let tape = Tape::new();
    let x = tape.variable(1e-300).unwrap();
    let a = x.mul(1e308).unwrap();
    let b = x.mul(1e308).unwrap();
    let out = a.add(b).unwrap();
    let e = out.backward().unwrap_err();
    assert!(
        matches!(e, ScalarAutodiffError::NonFinitePassAdjoint { node, .. } if node == x.index()),
        "{e}"
    );
    assert_eq!(stored(&[x, a, b, out]), [Some(0); 4], "nothing committed");

    // One contribution overflows on its own (a large seed).
    let e = a.backward_with_seed(1e10).unwrap_err();
    assert!(
        matches!(e, ScalarAutodiffError::NonFiniteContribution { parent, .. } if parent == x.index()),
        "{e}"
    );
    assert_eq!(stored(&[x, a, b, out]), [Some(0); 4]);

    // Each pass is finite; the second one's sum with the first is not.
    a.backward().unwrap();
    let before = stored(&[x, a, b, out]);
    assert_eq!(x.gradient(), Some(1e308));
    let e = a.backward().unwrap_err();
    assert!(
        matches!(e, ScalarAutodiffError::NonFiniteAccumulatedGradient { node, .. } if node == x.index()),
        "{e}"
    );
    assert_eq!(stored(&[x, a, b, out]), before, "bit for bit");
}

/// A model's parameters under one name: every leaf labelled, and a
/// non-finite value records nothing and names the parameter.
#[test]
fn labeled_variables_label_every_leaf_or_record_nothing() {
    let tape = Tape::new();
    let x = tape.variable(1.0).unwrap().labeled(Label::named("x"));
    let w = tape
        .labeled_variables(&[0.5, -2.0, 4.0], Label::at_line("w", 7))
        .unwrap();
    assert!(w
        .iter()
        .all(|leaf| leaf.label() == Some(Label::at_line("w", 7))));
    assert_eq!(x.label(), Some(Label::named("x")), "earlier labels kept");
    let y = w[0].mul(w[1]).unwrap().add(w[2]).unwrap().mul(x).unwrap();
    assert_eq!(y.label(), None, "later nodes start unlabelled");
    y.backward().unwrap();
    assert_eq!(w[1].gradient(), Some(0.5));

    let before = tape.len();
    let error = tape
        .labeled_variables(&[1.0, f64::INFINITY], Label::at_line("b", 8))
        .unwrap_err();
    assert!(matches!(
        error,
        ScalarAutodiffError::NonFiniteLeaf { value, label: Some(label), .. }
            if value == f64::INFINITY && label == Label::at_line("b", 8)
    ));
    assert_eq!(tape.len(), before, "nothing recorded");
    assert!(tape
        .labeled_variables(&[], Label::named("none"))
        .unwrap()
        .is_empty());
}
