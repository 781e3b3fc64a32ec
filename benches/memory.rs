//! What a recorded node costs in memory, and whether dropping a tape gives it
//! all back.
//!
//! `cargo bench --bench memory` records ten million nodes three times: on a
//! presized tape, on a tape that grows as it goes, and on a presized tape
//! with a label on every node (as `#[differentiable]` records). It reports
//! bytes per node three ways: from the tape's capacity (`capacity ×
//! BYTES_PER_NODE`), from the heap bytes a counting allocator saw, and from
//! the process's resident set (`/proc/self/statm`, what the operating system
//! actually handed over); once after recording, once after a backward pass
//! (which adds the stored gradients and leaves the pass's adjoint buffer with
//! the tape for the next pass), once after a second pass (which must not grow
//! anything), and once after the tape is dropped.
//!
//! Under `cargo test` (no `--bench` argument) the same checks run on
//! `SPARE_NODES + 1` nodes (about a million), so the claims stay tested
//! without the big run: the smallest tape whose memory goes back to the
//! allocator on drop rather than to the next tape on its thread.
//!
//! Linux only: elsewhere the resident-set figures are skipped and only the
//! capacity figures are checked.

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use autodiff::__adjoint::Stack;
use autodiff::prelude::*;
use autodiff::{Label, Tape, BYTES_PER_NODE, SPARE_NODES};

/// Counts live heap bytes, so that "the tape holds N bytes" and "dropping it
/// frees them all" are exact statements about the allocator, independent of
/// when the allocator hands pages back to the operating system.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to `System` unchanged; only a counter is
// updated beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let pointer = unsafe { System.alloc(layout) };
        if !pointer.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        pointer
    }

    unsafe fn dealloc(&self, pointer: *mut u8, layout: Layout) {
        unsafe { System.dealloc(pointer, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, pointer: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let moved = unsafe { System.realloc(pointer, layout, new_size) };
        if !moved.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        moved
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Each measurement runs in a fresh child process (this same binary with
/// `--child`), so that one tape's freed memory, which the allocator may keep
/// for reuse, cannot blur the next one's resident-set figures.
fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    if let Some(at) = args.iter().position(|a| a == "--child") {
        let kind = args.get(at + 1).and_then(|k| Kind::parse(k));
        let nodes = args.get(at + 2).and_then(|n| n.parse().ok());
        let result = match (kind, nodes) {
            (Some(kind), Some(nodes)) if nodes > 0 => measure(nodes, kind),
            _ => Err(format!("bad child arguments {:?}", &args[at..])),
        };
        return match result {
            Ok(report) => {
                println!("{report}");
                ExitCode::SUCCESS
            }
            Err(message) => {
                eprintln!("memory bench: FAILED: {message}");
                ExitCode::FAILURE
            }
        };
    }

    let full = args.iter().any(|a| a == "--bench");
    if let Err(message) = saved_values(if full { 1_000_000 } else { 100_000 }) {
        eprintln!("memory bench: FAILED: {message}");
        return ExitCode::FAILURE;
    }
    let nodes: usize = if full { 10_000_000 } else { SPARE_NODES + 1 };
    println!("memory: {nodes} nodes per tape, BYTES_PER_NODE = {BYTES_PER_NODE}");
    let mut failed = false;
    for kind in [Kind::Presized, Kind::Growing, Kind::Labeled] {
        let status = std::env::current_exe().and_then(|exe| {
            Command::new(exe)
                .args(["--child", kind.name(), &nodes.to_string()])
                .status()
        });
        match status {
            Ok(status) if status.success() => {}
            Ok(status) => {
                eprintln!("memory bench: {} run failed ({status})", kind.name());
                failed = true;
            }
            Err(error) => {
                eprintln!(
                    "memory bench: cannot start the {} run: {error}",
                    kind.name()
                );
                failed = true;
            }
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

/// `y ← ½·y·(1.5 − y) + x`, `steps` times: each step's derivative reads
/// the old `y`, which the step overwrites.
#[differentiable]
fn chain(x: f64, steps: usize) -> f64 {
    let mut y = x;
    for _ in 0..steps {
        y = y * (1.5 - y) * 0.5 + x;
    }
    y
}

/// The compiled adjoint's saved-value stack on the chain: bytes per
/// recorded operation (4 per step: two products, a difference, a sum)
/// against the tape's, and nothing left after the gradient.
fn saved_values(steps: usize) -> Result<(), String> {
    let mut stack = Stack::new();
    let before = LIVE.load(Ordering::Relaxed);
    let result = chain_adjoint(&mut stack, 0.45, steps).ok_or("the chain's adjoint failed")?;
    let held = LIVE.load(Ordering::Relaxed) - before;
    let operations = 4 * steps;
    let bytes = stack.capacity_bytes();
    println!(
        "compiled adjoint, chain of {steps} steps: stack {bytes} bytes = {:.2} bytes per operation (one saved y per step, Vec doubling); the tape records {} bytes per operation",
        bytes as f64 / operations as f64,
        BYTES_PER_NODE
    );
    if !stack.is_empty() {
        return Err("the adjoint left records on its stack".into());
    }
    if bytes > 2 * steps * size_of::<f64>() || bytes < steps * size_of::<f64>() {
        return Err(format!(
            "the stack holds {bytes} bytes for {steps} saved values"
        ));
    }
    if held != bytes {
        return Err(format!(
            "the heap grew by {held} bytes, the stack holds {bytes}: something else was kept"
        ));
    }
    let tape = chain_grad_tape(0.45, steps).map_err(|e| e.to_string())?;
    if (tape.gradient - result.gradient).abs() > 1e-12 * tape.gradient.abs().max(1.0) {
        return Err("the adjoint's gradient differs from the tape's".into());
    }
    Ok(())
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    /// `Tape::with_capacity(nodes)`, no labels.
    Presized,
    /// `Tape::new()`, grown by pushing, no labels.
    Growing,
    /// `Tape::with_capacity(nodes)`, every node labeled.
    Labeled,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Self::Presized => "presized",
            Self::Growing => "growing",
            Self::Labeled => "labeled",
        }
    }

    fn parse(name: &str) -> Option<Self> {
        [Self::Presized, Self::Growing, Self::Labeled]
            .into_iter()
            .find(|kind| kind.name() == name)
    }
}

/// The resident set in bytes, or `None` where `/proc` is not available.
fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    Some(pages * page_size()?)
}

/// The base page size, from the first mapping in `/proc/self/smaps`.
fn page_size() -> Option<u64> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let line = smaps.lines().find(|l| l.starts_with("KernelPageSize:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn mib(bytes: f64) -> f64 {
    bytes / (1024.0 * 1024.0)
}

/// Heap and resident growth since a baseline.
#[derive(Clone, Copy)]
struct Growth {
    heap: usize,
    resident: Option<u64>,
}

struct Baseline {
    heap: usize,
    resident: Option<u64>,
}

impl Baseline {
    fn now() -> Self {
        Self {
            heap: LIVE.load(Ordering::Relaxed),
            resident: resident_bytes(),
        }
    }

    fn growth(&self) -> Growth {
        Growth {
            heap: LIVE.load(Ordering::Relaxed).saturating_sub(self.heap),
            resident: self
                .resident
                .zip(resident_bytes())
                .map(|(before, now)| now.saturating_sub(before)),
        }
    }
}

/// Records `nodes` nodes (a chain cycling through add, a plain-f64 mul and
/// tanh, so values stay bounded), runs one backward pass, drops the tape,
/// checks the memory claims at each stage, and returns one report line.
fn measure(nodes: usize, kind: Kind) -> Result<String, String> {
    let baseline = Baseline::now();
    let started = Instant::now();
    let tape = match kind {
        Kind::Growing => Tape::new(),
        Kind::Presized | Kind::Labeled => Tape::with_capacity(nodes),
    };
    let (record_time, recorded, backward_time, trained, again, third, x_gradient) = {
        let labeled = kind == Kind::Labeled;
        let mut x = tape.variable(0.5).map_err(|e| e.to_string())?;
        if labeled {
            x = x.labeled(Label::at_line("x", 1));
        }
        let mut y = x;
        for i in 1..nodes {
            y = match i % 3 {
                0 => y.add(x),
                1 => y.mul(0.5),
                _ => y.tanh(),
            }
            .map_err(|e| e.to_string())?;
            if labeled {
                y = y.labeled(Label::at_line("y", i as u32));
            }
        }
        let record_time = started.elapsed();
        let recorded = baseline.growth();

        let started = Instant::now();
        let pass = y.backward().map_err(|e| e.to_string())?;
        drop(pass);
        let backward_time = started.elapsed();
        let trained = baseline.growth();
        drop(y.backward().map_err(|e| e.to_string())?);
        let again = baseline.growth();
        drop(y.backward().map_err(|e| e.to_string())?);
        let third = baseline.growth();
        let x_gradient = x.gradient().ok_or("x lost its gradient")?;
        (
            record_time,
            recorded,
            backward_time,
            trained,
            again,
            third,
            x_gradient,
        )
    };
    let (len, capacity) = (tape.len(), tape.capacity());
    drop(tape);
    let dropped = baseline.growth();

    if len != nodes {
        return Err(format!("recorded {len} nodes, expected {nodes}"));
    }
    if !x_gradient.is_finite() || x_gradient == 0.0 {
        return Err(format!("implausible gradient {x_gradient}"));
    }
    if BYTES_PER_NODE > 64 {
        return Err(format!("BYTES_PER_NODE is {BYTES_PER_NODE}, over 64"));
    }
    let per_node = |bytes: f64| bytes / nodes as f64;

    // The allocator's view.
    let slack = capacity as f64 / nodes as f64;
    if kind != Kind::Growing && capacity != nodes {
        return Err(format!("with_capacity({nodes}) gave capacity {capacity}"));
    }
    if slack > 2.0 {
        return Err(format!(
            "capacity {capacity} for {nodes} nodes: more than doubled"
        ));
    }
    // Labels live in their own lazily grown array of `&'static str`, which
    // at most doubles past the last labeled node.
    let label_bytes = match kind {
        Kind::Labeled => 2 * nodes * std::mem::size_of::<&'static str>(),
        Kind::Presized | Kind::Growing => 0,
    };
    let recorded_bound = capacity * BYTES_PER_NODE + label_bytes + 4096;
    if recorded.heap < nodes * BYTES_PER_NODE || recorded.heap > recorded_bound {
        return Err(format!(
            "recording grew the heap by {} bytes; expected {} to {recorded_bound}",
            recorded.heap,
            nodes * BYTES_PER_NODE
        ));
    }
    // The first backward pass's adjoints (one f64 a node) become the stored
    // gradients; a second pass needs a buffer of adjoints beside them, which
    // the tape keeps for the passes after it.
    let f64_per_node = nodes * std::mem::size_of::<f64>();
    for (pass, heap, buffers) in [("first", trained.heap, 1), ("second", again.heap, 2)] {
        let bound = recorded.heap + buffers * f64_per_node + 4096;
        if heap > bound {
            return Err(format!(
                "after the {pass} backward pass the heap holds {heap} bytes, {} more than recording plus {buffers} f64 a node",
                heap - bound + 4096
            ));
        }
    }
    // A third pass reuses all of it.
    if third.heap > again.heap + 4096 {
        return Err(format!(
            "a third backward pass grew the heap from {} to {} bytes",
            again.heap, third.heap
        ));
    }
    // Dropping the tape returns every byte to the allocator.
    if dropped.heap > 0 {
        return Err(format!("{} heap bytes still live after drop", dropped.heap));
    }

    let timing = format!(
        "record {:.1} ns/node, backward {:.1} ns/node",
        per_node(record_time.as_nanos() as f64),
        per_node(backward_time.as_nanos() as f64)
    );
    let heap_figures = format!(
        "capacity {:.1} B/node (slack {slack:.3}); heap {:.1} B/node recorded, {:.1} after backward, {:.1} after a second, {:.1} after a third, 0 after drop",
        per_node((capacity * BYTES_PER_NODE) as f64),
        per_node(recorded.heap as f64),
        per_node(trained.heap as f64),
        per_node(again.heap as f64),
        per_node(third.heap as f64),
    );
    let (Some(recorded_resident), Some(trained_resident), Some(kept)) =
        (recorded.resident, trained.resident, dropped.resident)
    else {
        return Ok(format!(
            "{:<8}: {heap_figures}; no /proc, RSS not measured; {timing}",
            kind.name()
        ));
    };

    // The operating system's view: resident pages, which only touched
    // memory occupies. One MiB absorbs page rounding and small buffers.
    let noise = per_node(1024.0 * 1024.0);
    let resident = per_node(recorded_resident as f64);
    if resident > per_node(recorded.heap as f64) + noise {
        return Err(format!(
            "resident {resident:.1} B/node exceeds the heap's {:.1} B/node",
            per_node(recorded.heap as f64)
        ));
    }
    // Every node was written, so at least its bytes must be resident; if
    // not, the measurement itself is broken and the bounds mean nothing.
    if resident < 0.9 * BYTES_PER_NODE as f64 {
        return Err(format!(
            "resident {resident:.1} B/node is below the {BYTES_PER_NODE} bytes written: RSS not measured"
        ));
    }
    // The engine issue's budget: a recorded node, labeled or not, within
    // 64 bytes of memory actually in use.
    if resident > 64.0 + noise {
        return Err(format!(
            "recording left {resident:.1} B/node resident, over 64"
        ));
    }
    let trained_per_node = per_node(trained_resident as f64);
    if trained_per_node > resident + 8.0 + noise {
        return Err(format!(
            "after backward {trained_per_node:.1} B/node are resident, more than recording plus 8"
        ));
    }
    // And the operating system gets the pages back.
    if kept as f64 > (0.01 * trained_resident as f64).max(1024.0 * 1024.0) {
        return Err(format!(
            "after drop the process still holds {:.1} MiB of the tape's {:.1} MiB",
            mib(kept as f64),
            mib(trained_resident as f64)
        ));
    }
    Ok(format!(
        "{:<8}: {heap_figures}; resident {resident:.1} B/node recorded ({:.1} MiB), \
         {trained_per_node:.1} after backward, {:.2} MiB kept after drop; {timing}",
        kind.name(),
        mib(recorded_resident as f64),
        mib(kept as f64)
    ))
}
