//! An index out of bounds panics in the recording twin at the student's
//! line, as in the plain twin (not at the `#[differentiable]` line).

// The indexing sits on a `let` line of its own, apart from the return, so
// the two lines can be told apart.
#![allow(clippy::let_and_return)]

use std::panic;
use std::sync::Mutex;

use autodiff::prelude::*;

#[differentiable]
fn pick(x: &[f64], k: usize) -> f64 {
    let y = x[k] * 2.0;
    y
}

static LINES: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// The line a panic in `f` reports.
fn panic_line(f: impl FnOnce() + panic::UnwindSafe) -> u32 {
    let previous = panic::take_hook();
    panic::set_hook(Box::new(|info| {
        if let Some(location) = info.location() {
            LINES.lock().unwrap().push(location.line());
        }
    }));
    let result = panic::catch_unwind(f);
    panic::set_hook(previous);
    assert!(result.is_err(), "expected a panic");
    LINES.lock().unwrap().pop().unwrap()
}

#[test]
fn an_index_out_of_bounds_panics_at_the_students_line_in_every_twin() {
    let plain = panic_line(|| {
        pick(&[1.0, 2.0], 5);
    });
    let recorded = panic_line(|| {
        let _ = pick_grad(&[1.0, 2.0], 5);
    });
    // `let y = x[k] * 2.0;` is two lines below `#[differentiable]`.
    assert_eq!(recorded, plain);
    assert_eq!(pick_grad(&[1.0, 2.0], 1).unwrap().gradient, vec![0.0, 2.0]);
}
