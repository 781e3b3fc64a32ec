//! The two benchmark workloads, shared by `benches/engine.rs` and the
//! bench-only package `bench-compare/` (which includes this file by path), so
//! that every engine is timed on exactly the same computation.
//!
//! Each workload comes three ways: the plain-`f64` function (the speed
//! floor every figure is divided by), a hand-written reverse pass (the
//! independent oracle every engine's gradient is checked against), and the
//! same computation recorded through this crate's engine.
//!
//! Not a directory Cargo discovers as a bench target (no `main.rs`).

#![allow(dead_code)] // each including binary uses a different subset

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use autodiff_core::{ScalarAutodiffError, Tape};

#[path = "../../examples/support/splitmix.rs"]
mod splitmix;
use splitmix::SplitMix64;

/// Deterministic inputs without a `rand` dependency: splitmix64, mapped to
/// `[-1, 1)`.
pub struct Numbers(SplitMix64);

impl Numbers {
    pub fn new(seed: u64) -> Self {
        Self(SplitMix64::new(seed))
    }

    pub fn next_f64(&mut self) -> f64 {
        // 53 random mantissa bits -> [0, 1) -> [-1, 1).
        (self.0.next_u64() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

/// A one-hidden-layer tanh network with a squared-error loss:
/// `L = (b2 + Σ_j w2_j · tanh(b1_j + Σ_i W1_ji · x_i) − t)²`.
///
/// The parameters are the differentiable inputs; the data `x` and target `t`
/// are plain numbers. Parameter layout: `W1` row-major (`hidden × inputs`),
/// then `b1`, `w2`, `b2`.
pub struct Mlp {
    pub inputs: usize,
    pub hidden: usize,
    pub x: Vec<f64>,
    pub target: f64,
    pub params: Vec<f64>,
}

impl Mlp {
    pub fn new(inputs: usize, hidden: usize) -> Self {
        let mut numbers = Numbers::new(0x5EED ^ (inputs as u64) << 16 ^ hidden as u64);
        let x = (0..inputs).map(|_| numbers.next_f64()).collect();
        // Scaled by 1/sqrt(fan-in) so the hidden units sit in tanh's
        // informative range rather than saturating.
        let w1_scale = 1.0 / (inputs as f64).sqrt();
        let w2_scale = 1.0 / (hidden as f64).sqrt();
        let mut params = Vec::with_capacity(hidden * inputs + 2 * hidden + 1);
        params.extend((0..hidden * inputs).map(|_| numbers.next_f64() * w1_scale));
        params.extend((0..hidden).map(|_| numbers.next_f64() * 0.1));
        params.extend((0..hidden).map(|_| numbers.next_f64() * w2_scale));
        params.push(numbers.next_f64() * 0.1);
        Self {
            inputs,
            hidden,
            x,
            target: 0.5,
            params,
        }
    }

    /// Operations recorded per gradient (leaves not counted): per hidden unit
    /// `inputs` multiplications, `inputs` additions and a tanh; per output
    /// term a multiplication and an addition; then the subtraction and the
    /// square.
    pub fn operations(&self) -> usize {
        self.hidden * (2 * self.inputs + 3) + 2
    }

    /// Leaves recorded per gradient: one variable per parameter.
    pub fn leaves(&self) -> usize {
        self.params.len()
    }

    pub fn split<'a, T>(&self, params: &'a [T]) -> (&'a [T], &'a [T], &'a [T], &'a T) {
        let (w1, rest) = params.split_at(self.hidden * self.inputs);
        let (b1, rest) = rest.split_at(self.hidden);
        let (w2, b2) = rest.split_at(self.hidden);
        (w1, b1, w2, &b2[0])
    }

    /// The plain-`f64` loss: the floor every figure is compared with.
    pub fn loss(&self, params: &[f64]) -> f64 {
        let (w1, b1, w2, &b2) = self.split(params);
        let mut y = b2;
        for j in 0..self.hidden {
            let mut z = b1[j];
            for i in 0..self.inputs {
                z += w1[j * self.inputs + i] * self.x[i];
            }
            y += w2[j] * z.tanh();
        }
        let error = y - self.target;
        error * error
    }

    /// The loss and its gradient by a hand-written reverse pass: the oracle.
    pub fn gradient_by_hand(&self, params: &[f64], gradient: &mut Vec<f64>) -> f64 {
        let (w1, b1, w2, &b2) = self.split(params);
        let mut hidden = Vec::with_capacity(self.hidden);
        let mut y = b2;
        for j in 0..self.hidden {
            let mut z = b1[j];
            for i in 0..self.inputs {
                z += w1[j * self.inputs + i] * self.x[i];
            }
            let h = z.tanh();
            hidden.push(h);
            y += w2[j] * h;
        }
        let error = y - self.target;
        gradient.clear();
        gradient.resize(params.len(), 0.0);
        let dy = 2.0 * error;
        let (dw1, rest) = gradient.split_at_mut(self.hidden * self.inputs);
        let (db1, rest) = rest.split_at_mut(self.hidden);
        let (dw2, db2) = rest.split_at_mut(self.hidden);
        db2[0] = dy;
        for j in 0..self.hidden {
            let h = hidden[j];
            dw2[j] = dy * h;
            let dz = dy * w2[j] * (1.0 - h * h);
            db1[j] = dz;
            for i in 0..self.inputs {
                dw1[j * self.inputs + i] = dz * self.x[i];
            }
        }
        error * error
    }

    /// The same loss recorded through the engine on `tape` (fresh or
    /// cleared), one backward pass, and the parameters' gradients read back.
    pub fn gradient_on_tape(
        &self,
        tape: &Tape,
        params: &[f64],
        gradient: &mut Vec<f64>,
    ) -> Result<f64, ScalarAutodiffError> {
        let leaves = tape.variables(params)?;
        let (w1, b1, w2, &b2) = self.split(&leaves);
        let mut y = b2;
        for j in 0..self.hidden {
            let mut z = b1[j];
            for i in 0..self.inputs {
                z = z.add(w1[j * self.inputs + i].mul(self.x[i])?)?;
            }
            y = y.add(w2[j].mul(z.tanh()?)?)?;
        }
        let error = y.sub(self.target)?;
        let loss = error.mul(error)?;
        loss.backward()?;
        gradient.clear();
        // Variables always track a gradient; NaN would fail the oracle check.
        gradient.extend(leaves.iter().map(|p| p.gradient().unwrap_or(f64::NAN)));
        Ok(loss.value())
    }
}

/// `f(a, b) = Σ a_i·b_i + Σ exp(a_i)` over `n` pairs of leaves, summed left
/// to right; `∂f/∂a_i = b_i + exp(a_i)`, `∂f/∂b_i = a_i`.
pub struct DotExp {
    pub a: Vec<f64>,
    pub b: Vec<f64>,
}

impl DotExp {
    pub fn new(n: usize) -> Self {
        let mut numbers = Numbers::new(0xD07 ^ n as u64);
        let a = (0..n).map(|_| numbers.next_f64()).collect();
        let b = (0..n).map(|_| numbers.next_f64()).collect();
        Self { a, b }
    }

    pub fn len(&self) -> usize {
        self.a.len()
    }

    /// `n` multiplications, `n` exps and `2(n − 1) + 1` additions.
    pub fn operations(&self) -> usize {
        4 * self.len() - 1
    }

    /// Leaves recorded per gradient: every `a_i` and `b_i`.
    pub fn leaves(&self) -> usize {
        2 * self.len()
    }

    /// Values in one buffer, `a` then `b`, the layout every gradient uses.
    pub fn inputs(&self) -> Vec<f64> {
        self.a.iter().chain(&self.b).copied().collect()
    }

    /// The plain-`f64` function.
    pub fn value(&self, inputs: &[f64]) -> f64 {
        let (a, b) = inputs.split_at(self.len());
        let mut dot = a[0] * b[0];
        for i in 1..a.len() {
            dot += a[i] * b[i];
        }
        let mut sum_exp = a[0].exp();
        for &ai in &a[1..] {
            sum_exp += ai.exp();
        }
        dot + sum_exp
    }

    /// The value and the closed-form gradient: the oracle.
    pub fn gradient_by_hand(&self, inputs: &[f64], gradient: &mut Vec<f64>) -> f64 {
        let (a, b) = inputs.split_at(self.len());
        gradient.clear();
        gradient.extend(a.iter().zip(b).map(|(&ai, &bi)| bi + ai.exp()));
        gradient.extend_from_slice(a);
        self.value(inputs)
    }

    /// The same function recorded through the engine on `tape`.
    pub fn gradient_on_tape(
        &self,
        tape: &Tape,
        inputs: &[f64],
        gradient: &mut Vec<f64>,
    ) -> Result<f64, ScalarAutodiffError> {
        let leaves = tape.variables(inputs)?;
        let (a, b) = leaves.split_at(self.len());
        let mut dot = a[0].mul(b[0])?;
        for i in 1..a.len() {
            dot = dot.add(a[i].mul(b[i])?)?;
        }
        let mut sum_exp = a[0].exp()?;
        for &ai in &a[1..] {
            sum_exp = sum_exp.add(ai.exp()?)?;
        }
        let f = dot.add(sum_exp)?;
        f.backward()?;
        gradient.clear();
        gradient.extend(leaves.iter().map(|p| p.gradient().unwrap_or(f64::NAN)));
        Ok(f.value())
    }
}

/// The largest `|got − want| / max(1, |want|)` over all components, or
/// infinity when the lengths differ or anything is NaN.
pub fn max_error(got: &[f64], want: &[f64]) -> f64 {
    if got.len() != want.len() {
        return f64::INFINITY;
    }
    got.iter()
        .zip(want)
        .map(|(&g, &w)| {
            let e = (g - w).abs() / w.abs().max(1.0);
            if e.is_nan() {
                f64::INFINITY
            } else {
                e
            }
        })
        .fold(0.0, f64::max)
}

/// Counts live heap bytes and their peak, so the benches can report what a
/// recorded node really costs instead of quoting a `size_of`.
pub struct CountingAllocator {
    live: AtomicUsize,
    peak: AtomicUsize,
}

impl CountingAllocator {
    pub const fn new() -> Self {
        Self {
            live: AtomicUsize::new(0),
            peak: AtomicUsize::new(0),
        }
    }

    /// Forgets the old peak and returns the bytes live now.
    pub fn reset_peak(&self) -> usize {
        let live = self.live.load(Ordering::Relaxed);
        self.peak.store(live, Ordering::Relaxed);
        live
    }

    pub fn live(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    pub fn peak(&self) -> usize {
        self.peak.load(Ordering::Relaxed)
    }

    fn grew(&self, bytes: usize) {
        let live = self.live.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.peak.fetch_max(live, Ordering::Relaxed);
    }
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// counters only observe sizes.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let pointer = unsafe { System.alloc_zeroed(layout) };
        if !pointer.is_null() {
            self.grew(layout.size());
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(pointer, layout) };
        self.live.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: same contract as the caller's.
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            // The old block stays live until the copy is done, so count the
            // new one first: that is the real peak of a growing Vec.
            self.grew(new_size);
            self.live.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        moved
    }
}

/// One timed variant: a closure returning the computed value (so the work
/// cannot be optimised away) and the per-iteration samples collected.
pub struct Row<'a> {
    pub workload: String,
    pub engine: String,
    pub operations: usize,
    pub run: Box<dyn FnMut() -> f64 + 'a>,
    pub iterations: usize,
    pub samples: Vec<f64>,
}

impl<'a> Row<'a> {
    /// A row of `workload` with no samples yet.
    pub fn new(
        workload: &str,
        engine: &str,
        operations: usize,
        iterations: usize,
        run: Box<dyn FnMut() -> f64 + 'a>,
    ) -> Self {
        Row {
            workload: workload.to_string(),
            engine: engine.to_string(),
            operations,
            run,
            iterations,
            samples: Vec::new(),
        }
    }
}

/// The engine name of each workload's reference row.
pub const PLAIN: &str = "plain f64 (forward only)";

/// Runs `rounds` rounds; each round times every row once, in turn, so that
/// noise from other processes on the machine spreads over all engines
/// instead of landing on whichever one happened to run at the time.
pub fn run_round_robin(rows: &mut [Row<'_>], rounds: usize) -> Result<(), String> {
    for _ in 0..rounds {
        for row in rows.iter_mut() {
            let start = Instant::now();
            let mut last = 0.0;
            for _ in 0..row.iterations {
                last = std::hint::black_box((row.run)());
            }
            let elapsed = start.elapsed().as_secs_f64() * 1e9;
            if !last.is_finite() {
                return Err(format!(
                    "{} / {}: the computation failed (non-finite result)",
                    row.workload, row.engine
                ));
            }
            row.samples.push(elapsed / row.iterations as f64);
        }
    }
    Ok(())
}

pub fn median(samples: &[f64]) -> f64 {
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    match sorted.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => sorted[n / 2],
        n => 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]),
    }
}

/// A Markdown table: per row the median and best time per iteration, the
/// median per recorded operation, and the ratio to the plain-`f64` row.
pub fn table(rows: &[Row<'_>]) -> String {
    let mut out = String::from(
        "| workload | engine | ops | median µs/iter | best µs/iter | ns/op | × plain f64 |\n\
         |---|---|---:|---:|---:|---:|---:|\n",
    );
    for row in rows {
        let med = median(&row.samples);
        let best = row.samples.iter().copied().fold(f64::INFINITY, f64::min);
        let plain = rows
            .iter()
            .find(|r| r.workload == row.workload && r.engine == PLAIN)
            .map_or(f64::NAN, |r| median(&r.samples));
        out.push_str(&format!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.2} | {:.1} |\n",
            row.workload,
            row.engine,
            row.operations,
            med / 1e3,
            best / 1e3,
            med / row.operations as f64,
            med / plain,
        ));
    }
    out
}

/// A bench binary's `main`: under `cargo bench` (which passes `--bench`)
/// `bench` times with the arguments; under `cargo test` `smoke` checks at
/// small sizes. Either's error is printed, prefixed with `name`, as a failure.
pub fn bench_main(
    name: &str,
    bench: impl FnOnce(&[String]) -> Result<(), String>,
    smoke: impl FnOnce() -> Result<(), String>,
) -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let result = if args.iter().any(|a| a == "--bench") {
        bench(&args)
    } else {
        smoke()
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("{name}: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The value after `name` on the command line, if any.
pub fn option<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(String::as_str)
}

/// `--rounds N`, 7 when not given.
pub fn rounds(args: &[String]) -> Result<usize, String> {
    match option(args, "--rounds") {
        Some(text) => text
            .parse()
            .map_err(|_| format!("--rounds wants a number, got {text:?}")),
        None => Ok(7),
    }
}
