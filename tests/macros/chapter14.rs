//! Chapter 14's eight predictions, with the graph built by `#[differentiable]`
//! instead of by hand. The oracle is the chapter's own arithmetic.

use autodiff::prelude::*;
use autodiff::ScalarOperation;

#[differentiable]
fn reused_square(x: f64) -> f64 {
    let square = x * x;
    square + square
}

#[differentiable]
fn with_detach(x: f64) -> f64 {
    x * x + detach(x) * 3.0
}

/// The tape node labelled `text`, by its label.
fn node<'t>(pass: &autodiff::BackwardPass<'t>, text: &str) -> autodiff::BackwardNode {
    pass.nodes()
        .into_iter()
        .find(|node| node.label.is_some_and(|label| label.text == text))
        .unwrap_or_else(|| panic!("no node labelled {text}"))
}

#[test]
fn prediction_1_values_square_4_loss_8() {
    assert_eq!(reused_square(2.0), 8.0);
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let loss = reused_square_tape(&tape, x).unwrap();
    let pass = loss.backward().unwrap();
    assert_eq!(node(&pass, "square").value, 4.0);
    assert_eq!(loss.value(), 8.0);
}

#[test]
fn prediction_2_three_nodes_four_edges() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let loss = reused_square_tape(&tape, x).unwrap();
    assert_eq!(tape.len(), 3, "x, square, loss");
    let pass = loss.backward().unwrap();
    assert_eq!(pass.edges().len(), 4, "two edges to x, two to square");
    let square = node(&pass, "square");
    assert_eq!(square.operation, ScalarOperation::Multiply);
    assert_eq!(square.operands, vec![x.index(), x.index()]);
    assert_eq!(loss.operation(), ScalarOperation::Add);
}

#[test]
fn prediction_3_contributions_add_square_2_x_8() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let loss = reused_square_tape(&tape, x).unwrap();
    let pass = loss.backward().unwrap();
    let contributions: Vec<f64> = pass.edges().iter().map(|e| e.contribution).collect();
    // Reverse order: the add's two edges (1, 1), then the mul's two (2·2, 2·2).
    assert_eq!(contributions, vec![1.0, 1.0, 4.0, 4.0]);
    assert_eq!(node(&pass, "square").pass_adjoint, Some(2.0));
    assert_eq!(x.gradient(), Some(8.0));
    assert_eq!(reused_square_grad(2.0).unwrap().gradient, 8.0);
}

#[test]
fn prediction_4_assignment_instead_of_addition_would_give_1_and_2() {
    // The wrong rule keeps one contribution per node: recompute it from the
    // recorded edges and compare with what the engine did.
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let loss = reused_square_tape(&tape, x).unwrap();
    let pass = loss.backward().unwrap();
    let mut assigned = vec![0.0; tape.len()];
    assigned[loss.index()] = 1.0;
    for edge in pass.edges() {
        assigned[edge.parent] = assigned[edge.child] * edge.local_derivative;
    }
    assert_eq!(assigned[node(&pass, "square").index], 1.0);
    assert_eq!(assigned[x.index()], 2.0);
    assert_eq!(x.gradient(), Some(8.0));
}

#[test]
fn prediction_5_stored_gradients_accumulate_zero_and_restart() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let loss = reused_square_tape(&tape, x).unwrap();
    let square = loss.backward().unwrap().nodes()[1].index;
    let stored = || (loss.gradient(), x.gradient());
    assert_eq!(stored(), (Some(1.0), Some(8.0)));
    let pass = loss.backward().unwrap();
    assert_eq!(pass.nodes()[square].stored_gradient, Some(4.0));
    assert_eq!(stored(), (Some(2.0), Some(16.0)));
    loss.zero_grad();
    assert_eq!(stored(), (Some(0.0), Some(0.0)));
    let pass = loss.backward().unwrap();
    assert_eq!(pass.nodes()[square].stored_gradient, Some(2.0));
    assert_eq!(stored(), (Some(1.0), Some(8.0)));
}

#[test]
fn prediction_6_detach_value_10_gradient_4() {
    assert_eq!(with_detach(2.0), 10.0);
    let result = with_detach_grad(2.0).unwrap();
    assert_eq!(result.value, 10.0);
    assert_eq!(result.gradient, 4.0, "2x only: detach(x) has no edge to x");
}

#[test]
fn prediction_7_failed_pass_commits_nothing() {
    #[differentiable]
    fn huge(x: f64) -> f64 {
        x * 1e308
    }
    assert_eq!(huge(1.0), 1e308);
    let tape = Tape::new();
    let x = tape.variable(1.0).unwrap();
    let big = huge_tape(&tape, x).unwrap();
    big.backward().unwrap();
    let before = [x.gradient(), big.gradient()].map(|g| g.map(f64::to_bits));
    let error = big.backward().unwrap_err();
    assert_eq!(error.code(), "non-finite-accumulated-gradient");
    let after = [x.gradient(), big.gradient()].map(|g| g.map(f64::to_bits));
    assert_eq!(before, after);
}

#[test]
fn prediction_8_reverse_mode_is_exact_and_adds_every_path() {
    // Exact: the gradient is 4x to the last bit, not an approximation.
    for x in [-3.0, 0.1, 2.0, 1e3] {
        assert_eq!(reused_square_grad(x).unwrap().gradient, 4.0 * x);
    }
}
