//! `f_grad_tape` records on a `Tape::new()`, which starts from the memory
//! the last tape dropped on its thread left behind, and `f_grad` runs on a
//! stack its thread keeps between calls. Nothing of one call may leak into
//! the next, a nested call must not disturb the outer one, and threads must
//! not share either. Oracle: the closed form 3x² + 2.

use autodiff::prelude::*;

#[differentiable]
fn cubic(x: f64) -> f64 {
    let cube = x * x * x;
    cube + 2.0 * x
}

fn derivative(x: f64) -> f64 {
    3.0 * x * x + 2.0
}

#[test]
fn repeated_calls_start_from_a_clean_tape() {
    for x in [1.5, -2.0, 1.5, 0.25] {
        for result in [cubic_grad(x).unwrap(), cubic_grad_tape(x).unwrap()] {
            assert_eq!(result.value, cubic(x));
            assert!((result.gradient - derivative(x)).abs() < 1e-12, "at {x}");
        }
    }
}

#[test]
fn a_call_inside_another_gets_its_own_tape() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    let y = x.mul(x).unwrap();
    // While the outer tape is in use, nested gradients must not touch it.
    let inner = cubic_grad_tape(3.0).unwrap();
    let compiled = autodiff::__adjoint::with_stack(|stack| {
        stack.push(1.0);
        let inner = cubic_grad(3.0).unwrap();
        (inner, stack.pop())
    });
    y.backward().unwrap();
    assert_eq!(
        (tape.len(), x.gradient(), inner.gradient),
        (2, Some(4.0), derivative(3.0))
    );
    assert_eq!((compiled.0.gradient, compiled.1), (derivative(3.0), 1.0));
}

#[test]
fn each_thread_has_its_own_scratch_tape() {
    let results: Vec<f64> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|k| {
                scope.spawn(move || {
                    let x = 0.5 + k as f64;
                    (0..50)
                        .map(|_| {
                            cubic_grad(x).unwrap().gradient + cubic_grad_tape(x).unwrap().gradient
                        })
                        .fold(0.0, |_, g| g)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    for (k, gradient) in results.iter().enumerate() {
        assert!((gradient - 2.0 * derivative(0.5 + k as f64)).abs() < 1e-12);
    }
}

#[test]
fn a_call_leaves_its_memory_to_the_next_tape_on_the_thread() {
    // The engine's one reuse mechanism: the tape `f_grad` dropped hands its
    // buffers to the next `Tape::new` here, which a nested or later call
    // (or the caller) then starts from.
    std::thread::spawn(|| {
        assert_eq!(Tape::new().capacity(), 0, "a new thread starts empty");
        cubic_grad_tape(1.5).unwrap();
        let tape = Tape::new();
        assert!(
            tape.capacity() >= 5,
            "the call's nodes: x, x·x, x³, 2x, sum"
        );
        assert!(tape.is_empty());
    })
    .join()
    .unwrap();
}
