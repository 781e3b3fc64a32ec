//! One `Tape` per thread. A tape is `Send` (it can move to a thread) but not
//! `Sync` (no two threads may hold it at once; `ui-tests/tape-shared-across-threads.rs`
//! shows the compiler refusing), so parallel work gives each thread its own.

use std::thread;

use autodiff::{ScalarAutodiffError, Tape};

/// `f(x) = Σ_{k=1..terms} sin(k·x)/k`, recorded on `tape`; returns `(f, f'(x))`.
fn fourier(tape: &Tape, x: f64, terms: u32) -> Result<(f64, f64), ScalarAutodiffError> {
    let x = tape.variable(x)?;
    let mut sum = tape.constant(0.0)?;
    for k in 1..=terms {
        let k = f64::from(k);
        sum = sum.add(x.mul(k)?.sin()?.div(k)?)?;
    }
    sum.backward()?;
    Ok((sum.value(), x.gradient().expect("x is a variable")))
}

/// Closed forms: Σ sin(kx)/k and its derivative Σ cos(kx).
fn fourier_closed_form(x: f64, terms: u32) -> (f64, f64) {
    (1..=terms).map(f64::from).fold((0.0, 0.0), |(f, d), k| {
        (f + (k * x).sin() / k, d + (k * x).cos())
    })
}

#[test]
fn scoped_threads_each_with_their_own_tape_agree_with_closed_forms() {
    const TERMS: u32 = 50_000; // 200,002 nodes per tape, milliseconds of work each
    let points = [-1.25, 0.3, 0.7, 2.0];
    let results: Vec<(f64, f64)> = thread::scope(|scope| {
        let workers: Vec<_> = points
            .iter()
            .map(|&x| {
                scope.spawn(move || {
                    let tape = Tape::with_capacity(4 * TERMS as usize + 2);
                    let result = fourier(&tape, x, TERMS).unwrap();
                    assert_eq!(tape.len(), 4 * TERMS as usize + 2);
                    result
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for (&x, &(value, gradient)) in points.iter().zip(&results) {
        let (f, d) = fourier_closed_form(x, TERMS);
        // Both sides sum 50,000 terms of size ≤ 1 in the same order.
        assert!((value - f).abs() <= 1e-9, "f({x}): {value} vs {f}");
        assert!((gradient - d).abs() <= 1e-9, "f'({x}): {gradient} vs {d}");
    }
}

#[test]
fn a_tape_moves_to_another_thread_and_back() {
    let tape = Tape::with_capacity(16);
    let (tape, gradient) = thread::spawn(move || {
        let gradient = {
            let x = tape.variable(3.0).unwrap();
            let y = x.mul(x).unwrap().mul(x).unwrap(); // x³
            y.backward().unwrap();
            x.gradient().unwrap()
        };
        (tape, gradient)
    })
    .join()
    .unwrap();
    assert_eq!(gradient, 27.0); // 3x² at 3
    assert_eq!(tape.len(), 3);
}

#[test]
fn tapes_are_send_and_results_are_independent() {
    fn assert_send<T: Send>() {}
    assert_send::<Tape>();

    // Same graph, different inputs, run concurrently: no state is shared.
    let gradients: Vec<f64> = thread::scope(|scope| {
        let workers: Vec<_> = (1..=8)
            .map(|i| {
                scope.spawn(move || {
                    let tape = Tape::new();
                    let x = tape.variable(f64::from(i) / 4.0).unwrap();
                    let y = x.tanh().unwrap().exp().unwrap();
                    y.backward().unwrap();
                    x.gradient().unwrap()
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for (i, g) in (1..=8).zip(gradients) {
        let x = f64::from(i) / 4.0;
        let t = x.tanh();
        let expected = t.exp() * (1.0 - t * t); // d/dx e^{tanh x}
        assert!(
            (g - expected).abs() <= 1e-15 * expected.abs().max(1.0),
            "{g} vs {expected}"
        );
    }
}
