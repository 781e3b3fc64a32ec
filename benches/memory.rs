//! What a recorded node costs in memory, and whether dropping a tape gives it
//! all back.
//!
//! `cargo bench --bench memory` records ten million nodes twice, once on a
//! presized tape and once on a tape that grows as it goes, and reports bytes
//! per node two ways: from the tape's capacity (`capacity × BYTES_PER_NODE`,
//! what the allocator was asked for) and from the process's resident set
//! (`/proc/self/statm`, what the operating system actually handed over). It
//! then runs a backward pass, drops the tape and measures again.
//!
//! Under `cargo test` (no `--bench` argument) the same checks
//! run on 200,000 nodes, so the claims stay tested without the big run.
//!
//! Linux only: elsewhere the resident-set figures are skipped and only the
//! capacity figures are checked.

use std::alloc::{GlobalAlloc, Layout, System};
use std::process::{Command, ExitCode};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use autodiff::{Tape, BYTES_PER_NODE};

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
        let presized = args.get(at + 1).is_some_and(|kind| kind == "presized");
        let nodes = args.get(at + 2).and_then(|n| n.parse().ok()).unwrap_or(0);
        return match measure(nodes, presized) {
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
    let nodes: usize = if full { 10_000_000 } else { 200_000 };
    println!("memory: {nodes} nodes per tape, BYTES_PER_NODE = {BYTES_PER_NODE}");
    let mut failed = false;
    for kind in ["presized", "growing"] {
        let status = std::env::current_exe().and_then(|exe| {
            Command::new(exe)
                .args(["--child", kind, &nodes.to_string()])
                .status()
        });
        match status {
            Ok(status) if status.success() => {}
            Ok(status) => {
                eprintln!("memory bench: {kind} run failed ({status})");
                failed = true;
            }
            Err(error) => {
                eprintln!("memory bench: cannot start the {kind} run: {error}");
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

/// Records `nodes` nodes (a chain cycling through add, a plain-f64 mul and
/// tanh, so values stay bounded), checks the memory claims, and returns one
/// report line.
fn measure(nodes: usize, presized: bool) -> Result<String, String> {
    if nodes == 0 {
        return Err("no node count given".into());
    }
    let heap_before = LIVE.load(Ordering::Relaxed);
    let before = resident_bytes();
    let started = Instant::now();
    let tape = if presized {
        Tape::with_capacity(nodes)
    } else {
        Tape::new()
    };
    let (recorded, recorded_resident, heap, backward, x_gradient) = {
        let x = tape.variable(0.5).map_err(|e| e.to_string())?;
        let mut y = x;
        for i in 1..nodes {
            y = match i % 3 {
                0 => y.add(x),
                1 => y.mul(0.5),
                _ => y.tanh(),
            }
            .map_err(|e| e.to_string())?;
        }
        let recorded = started.elapsed();
        let recorded_resident = resident_bytes();
        let heap = LIVE.load(Ordering::Relaxed) - heap_before;

        let started = Instant::now();
        let pass = y.backward().map_err(|e| e.to_string())?;
        drop(pass); // the pass keeps its adjoints until dropped
        let backward = started.elapsed();
        let x_gradient = x.gradient().ok_or("x lost its gradient")?;
        (recorded, recorded_resident, heap, backward, x_gradient)
    };
    let (len, capacity) = (tape.len(), tape.capacity());
    drop(tape);
    let heap_after_drop = LIVE.load(Ordering::Relaxed).saturating_sub(heap_before);
    let after = resident_bytes();

    if len != nodes {
        return Err(format!("recorded {len} nodes, expected {nodes}"));
    }
    if !x_gradient.is_finite() || x_gradient == 0.0 {
        return Err(format!("implausible gradient {x_gradient}"));
    }
    if BYTES_PER_NODE > 64 {
        return Err(format!("BYTES_PER_NODE is {BYTES_PER_NODE}, over 64"));
    }

    // The allocator's view: what the node vectors reserved, and what the
    // heap actually grew by while recording.
    let slack = capacity as f64 / nodes as f64;
    let capacity_per_node = (capacity * BYTES_PER_NODE) as f64 / nodes as f64;
    if presized && capacity != nodes {
        return Err(format!("with_capacity({nodes}) gave capacity {capacity}"));
    }
    // A growing Vec at most doubles.
    if slack > 2.0 {
        return Err(format!("capacity {capacity} for {nodes} nodes"));
    }
    if heap < nodes * BYTES_PER_NODE || heap > capacity * BYTES_PER_NODE + 4096 {
        return Err(format!(
            "the heap grew by {heap} bytes for {nodes} nodes of {BYTES_PER_NODE} bytes, capacity {capacity}"
        ));
    }
    // Dropping the tape returns every byte to the allocator.
    if heap_after_drop > 0 {
        return Err(format!(
            "{heap_after_drop} heap bytes still live after drop"
        ));
    }

    let label = if presized { "presized" } else { "growing " };
    let timing = format!(
        "record {:.1} ns/node, backward {:.1} ns/node",
        recorded.as_nanos() as f64 / nodes as f64,
        backward.as_nanos() as f64 / nodes as f64
    );
    let heap_per_node = heap as f64 / nodes as f64;
    let (Some(before), Some(recorded_resident), Some(after)) = (before, recorded_resident, after)
    else {
        return Ok(format!(
            "{label}: capacity {capacity_per_node:.1} B/node (slack {slack:.3}), heap {heap_per_node:.1} B/node, \
             0 B live after drop; no /proc, RSS not measured; {timing}"
        ));
    };

    // The operating system's view: resident pages, which only touched
    // memory occupies. One MiB absorbs page rounding and small buffers.
    let grown = recorded_resident.saturating_sub(before) as f64;
    let resident_per_node = grown / nodes as f64;
    let noise = 1024.0 * 1024.0 / nodes as f64;
    if resident_per_node > capacity_per_node + noise {
        return Err(format!(
            "resident {resident_per_node:.1} B/node exceeds capacity {capacity_per_node:.1} B/node"
        ));
    }
    // Every node was written, so at least its bytes must be resident; if
    // not, the measurement itself is broken and the bound above means nothing.
    if resident_per_node < 0.9 * BYTES_PER_NODE as f64 {
        return Err(format!(
            "resident {resident_per_node:.1} B/node is below the {BYTES_PER_NODE} bytes written: RSS not measured"
        ));
    }
    // And the operating system gets the pages back.
    let kept = after.saturating_sub(before) as f64;
    if kept > (0.01 * grown).max(1024.0 * 1024.0) {
        return Err(format!(
            "after drop the process still holds {:.1} MiB of the tape's {:.1} MiB",
            mib(kept),
            mib(grown)
        ));
    }
    Ok(format!(
        "{label}: capacity {capacity_per_node:.1} B/node (slack {slack:.3}), heap {heap_per_node:.1} B/node, \
         resident {resident_per_node:.1} B/node ({:.1} MiB); after drop 0 B live, {:.2} MiB resident kept; {timing}",
        mib(grown),
        mib(kept)
    ))
}
