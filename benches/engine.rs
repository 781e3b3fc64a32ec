//! The engine's speed and memory, against the plain-`f64` function.
//!
//! `cargo bench --bench engine` times the 64→64→1 tanh MLP gradient and the
//! one-million-pair `Σ a·b + Σ exp(a)` gradient, each on a fresh tape, a
//! presized tape and a reused (cleared) tape, and measures the heap bytes a
//! recorded node costs. Options after `--`: `--rounds N`, `--only mlp|dot`.
//!
//! Under `cargo test` (no `--bench` argument) it is a test instead: small
//! sizes, every engine gradient checked against the hand-written reverse
//! pass, the hand-written pass checked against central differences, and the
//! reuse and memory claims asserted.
//!
//! Comparisons with other crates live in `bench-compare/`, which the test
//! build never compiles.

mod common;

use std::process::ExitCode;

use autodiff::{Label, Scalar, ScalarAutodiffError, Tape, BYTES_PER_NODE};
use common::{max_error, CountingAllocator, DotExp, Mlp, Row};

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator::new();

/// Engine and oracle run the same floating-point operations in the same
/// order, so they should agree to the last bits; this leaves room for a
/// compiler that fuses or reorders nothing but still differs in `tanh`/`exp`
/// rounding between inlined and called code.
const AGREEMENT: f64 = 1e-12;

fn main() -> ExitCode {
    common::bench_main("engine bench", bench, smoke)
}

fn check(what: &str, passed: bool, detail: String) -> Result<(), String> {
    if passed {
        println!("ok   {what}");
        Ok(())
    } else {
        Err(format!("FAILED {what}: {detail}"))
    }
}

/// The hand-written MLP backward is itself checked against central
/// differences of the plain loss, so the oracle is not taken on trust.
fn oracle_matches_central_differences(mlp: &Mlp) -> Result<(), String> {
    let mut gradient = Vec::new();
    mlp.gradient_by_hand(&mlp.params, &mut gradient);
    let mut params = mlp.params.clone();
    let mut worst: f64 = 0.0;
    // Every 7th parameter reaches all four blocks (W1, b1, w2, b2) at these
    // sizes without paying for all of them.
    for k in (0..params.len()).step_by(7).chain([params.len() - 1]) {
        let original = params[k];
        let step = 6e-6 * original.abs().max(1.0);
        params[k] = original + step;
        let up = mlp.loss(&params);
        params[k] = original - step;
        let down = mlp.loss(&params);
        params[k] = original;
        let numerical = (up - down) / (2.0 * step);
        let scale = numerical.abs().max(gradient[k].abs()).max(1e-8);
        worst = worst.max((numerical - gradient[k]).abs() / scale);
    }
    check(
        &format!(
            "hand-written MLP {}→{}→1 backward matches central differences",
            mlp.inputs, mlp.hidden
        ),
        worst < 1e-6,
        format!("worst relative error {worst:e}"),
    )
}

fn smoke() -> Result<(), String> {
    check(
        "a recorded node costs at most 64 bytes",
        BYTES_PER_NODE <= 64,
        format!("BYTES_PER_NODE = {BYTES_PER_NODE}"),
    )?;

    for (inputs, hidden) in [(3, 2), (8, 5), (64, 64)] {
        let mlp = Mlp::new(inputs, hidden);
        oracle_matches_central_differences(&mlp)?;
        let mut want = Vec::new();
        let want_loss = mlp.gradient_by_hand(&mlp.params, &mut want);
        let mut got = Vec::new();
        let tape = Tape::new();
        let loss = mlp
            .gradient_on_tape(&tape, &mlp.params, &mut got)
            .map_err(|e| e.to_string())?;
        let error = max_error(&got, &want).max(max_error(&[loss], &[want_loss]));
        check(
            &format!("engine MLP {inputs}→{hidden}→1 gradient matches the hand-written backward"),
            error < AGREEMENT,
            format!("max error {error:e}"),
        )?;
        check(
            &format!("MLP {inputs}→{hidden}→1 records the counted nodes"),
            tape.len() == mlp.leaves() + mlp.operations(),
            format!(
                "{} nodes, expected {} leaves + {} operations",
                tape.len(),
                mlp.leaves(),
                mlp.operations()
            ),
        )?;
    }

    let dot = DotExp::new(1000);
    let inputs = dot.inputs();
    let mut want = Vec::new();
    let want_value = dot.gradient_by_hand(&inputs, &mut want);
    let mut tape = Tape::with_capacity(dot.leaves() + dot.operations());
    let capacity = tape.capacity();
    let mut got = Vec::new();
    for pass in 0..3 {
        // A cleared tape must give the same gradient as a fresh one: stale
        // nodes or stored gradients from the last pass would show here.
        tape.clear();
        let value = dot
            .gradient_on_tape(&tape, &inputs, &mut got)
            .map_err(|e| e.to_string())?;
        let error = max_error(&got, &want).max(max_error(&[value], &[want_value]));
        check(
            &format!("engine Σa·b + Σexp(a) gradient (n = 1000) on a reused tape, pass {pass}"),
            error < AGREEMENT,
            format!("max error {error:e}"),
        )?;
        check(
            "clear() keeps the tape's memory",
            tape.capacity() == capacity && tape.len() == dot.leaves() + dot.operations(),
            format!(
                "capacity {} (was {capacity}), len {}",
                tape.capacity(),
                tape.len()
            ),
        )?;
    }

    let memory = bytes_per_node(20_000)?;
    check(
        "a recorded node holds BYTES_PER_NODE heap bytes",
        memory.recorded == BYTES_PER_NODE as f64,
        format!("{:.2} bytes per node", memory.recorded),
    )?;
    check(
        "a labeled node that a backward pass reached holds at most 64 heap bytes",
        memory.after_backward <= 64.0,
        format!("{:.2} bytes per node", memory.after_backward),
    )?;
    println!("engine bench smoke: all checks passed (run `cargo bench --bench engine` to time)");
    Ok(())
}

/// Heap bytes per node, as the counting allocator saw them.
struct Memory {
    /// Right after recording on a presized tape.
    recorded: f64,
    /// Recording with every node labeled.
    labeled: f64,
    /// The labeled tape once a backward pass has run: the first pass's
    /// adjoints become the stored gradients.
    after_backward: f64,
    /// The adjoint buffer a second pass needs beside the stored gradients,
    /// which the tape then keeps for the passes after it.
    scratch: f64,
}

/// `x`, then `operations` alternating `· 0.75` and `+ x`.
fn chain<'t>(
    tape: &'t Tape,
    operations: usize,
    label: Option<Label>,
) -> Result<Scalar<'t>, ScalarAutodiffError> {
    let tag = |s: Scalar<'t>| label.map_or(s, |l| s.labeled(l));
    let x = tag(tape.variable(0.5)?);
    let mut acc = x;
    for k in 0..operations {
        acc = tag(if k % 2 == 0 {
            acc.mul(0.75)?
        } else {
            acc.add(x)?
        });
    }
    Ok(acc)
}

/// Records the chain on presized tapes, plain and labeled, runs a backward
/// pass, and reads the counting allocator at each stage.
fn bytes_per_node(operations: usize) -> Result<Memory, String> {
    let nodes = operations + 1;
    let per_node = |bytes: usize| bytes as f64 / nodes as f64;

    let start = ALLOCATOR.live();
    let plain = Tape::with_capacity(nodes);
    chain(&plain, operations, None).map_err(|e| e.to_string())?;
    let recorded = ALLOCATOR.live() - start;
    drop(plain);

    let start = ALLOCATOR.live();
    let tape = Tape::with_capacity(nodes);
    let output =
        chain(&tape, operations, Some(Label::at_line("acc", 1))).map_err(|e| e.to_string())?;
    let labeled = ALLOCATOR.live() - start;
    drop(output.backward().map_err(|e| e.to_string())?);
    let first = ALLOCATOR.live() - start;
    drop(output.backward().map_err(|e| e.to_string())?);
    let second = ALLOCATOR.live() - start;
    drop(output.backward().map_err(|e| e.to_string())?);
    let third = ALLOCATOR.live() - start;
    // One f64 a node each: the first pass's adjoints become the stored
    // gradients; the second pass needs a buffer of its own, which the tape
    // keeps, so the third allocates nothing.
    let f64s = 8 * nodes;
    if first != labeled + f64s || second != first + f64s || third != second {
        return Err(format!(
            "unexpected heap: {labeled} recorded, {first} after one pass, {second} after two, {third} after three"
        ));
    }
    Ok(Memory {
        recorded: per_node(recorded),
        labeled: per_node(labeled),
        after_backward: per_node(first),
        scratch: per_node(second - first),
    })
}

fn bench(args: &[String]) -> Result<(), String> {
    let rounds = common::rounds(args)?;
    let only = common::option(args, "--only");
    if let Some(name) = only {
        if name != "mlp" && name != "dot" {
            return Err(format!("--only wants `mlp` or `dot`, got {name:?}"));
        }
    }
    let mlp = Mlp::new(64, 64);
    // The 10⁶-pair inputs only when that workload runs: building and
    // checking them leaves the allocator in another state (grown and
    // trimmed heap), which showed in the fresh-tape MLP row.
    let dot = DotExp::new(if only == Some("mlp") { 1000 } else { 1_000_000 });
    let dot_inputs = dot.inputs();

    // Verify before timing: a fast wrong answer is not a result.
    let (mut want, mut got) = (Vec::new(), Vec::new());
    mlp.gradient_by_hand(&mlp.params, &mut want);
    mlp.gradient_on_tape(&Tape::new(), &mlp.params, &mut got)
        .map_err(|e| e.to_string())?;
    let mlp_error = max_error(&got, &want);
    dot.gradient_by_hand(&dot_inputs, &mut want);
    dot.gradient_on_tape(&Tape::new(), &dot_inputs, &mut got)
        .map_err(|e| e.to_string())?;
    let dot_error = max_error(&got, &want);
    if mlp_error >= AGREEMENT || dot_error >= AGREEMENT {
        return Err(format!(
            "engine gradient disagrees with the hand-written one (MLP {mlp_error:e}, dot {dot_error:e})"
        ));
    }

    let mut rows: Vec<Row<'_>> = Vec::new();
    if only != Some("dot") {
        mlp_rows(&mut rows, &mlp);
    }
    if only != Some("mlp") {
        dot_rows(&mut rows, &dot, &dot_inputs);
    }
    println!(
        "engine bench: {rounds} rounds, each row timed once per round in turn; median and best of the rounds"
    );
    common::run_round_robin(&mut rows, rounds)?;
    println!();
    print!("{}", common::table(&rows));

    let memory = bytes_per_node(1_000_000)?;
    println!();
    println!(
        "memory (heap bytes per node, counted): {:.1} recorded (BYTES_PER_NODE = {BYTES_PER_NODE}), \
         {:.1} with every node labeled, {:.1} once a backward pass has filled the stored gradients, \
         plus {:.1} of adjoint buffer from the second pass on",
        memory.recorded, memory.labeled, memory.after_backward, memory.scratch
    );
    Ok(())
}

fn mlp_rows<'a>(rows: &mut Vec<Row<'a>>, mlp: &'a Mlp) {
    let workload = format!("MLP {}→{}→1", mlp.inputs, mlp.hidden);
    let operations = mlp.operations();
    let iterations = 100;
    let mut row = |engine: &str, iterations: usize, run: Box<dyn FnMut() -> f64 + 'a>| {
        rows.push(Row {
            workload: workload.clone(),
            engine: engine.to_string(),
            operations,
            run,
            iterations,
            samples: Vec::new(),
        });
    };
    row(
        common::PLAIN,
        iterations * 20,
        Box::new(|| mlp.loss(std::hint::black_box(&mlp.params))),
    );
    let mut gradient = Vec::new();
    row(
        "hand-written backward",
        iterations * 10,
        Box::new(move || mlp.gradient_by_hand(std::hint::black_box(&mlp.params), &mut gradient)),
    );
    let mut gradient = Vec::new();
    row(
        "autodiff, Tape::new() each time",
        iterations,
        Box::new(move || {
            let tape = Tape::new();
            mlp.gradient_on_tape(&tape, &mlp.params, &mut gradient)
                .unwrap_or(f64::NAN)
        }),
    );
    let mut gradient = Vec::new();
    let mut tape = Tape::new();
    row(
        "autodiff, one tape, clear() each time",
        iterations,
        Box::new(move || {
            tape.clear();
            mlp.gradient_on_tape(&tape, &mlp.params, &mut gradient)
                .unwrap_or(f64::NAN)
        }),
    );
}

fn dot_rows<'a>(rows: &mut Vec<Row<'a>>, dot: &'a DotExp, inputs: &'a [f64]) {
    let workload = "Σa·b + Σexp(a), 10⁶ pairs".to_string();
    let operations = dot.operations();
    let nodes = dot.leaves() + dot.operations();
    let mut row = |engine: &str, iterations: usize, run: Box<dyn FnMut() -> f64 + 'a>| {
        rows.push(Row {
            workload: workload.clone(),
            engine: engine.to_string(),
            operations,
            run,
            iterations,
            samples: Vec::new(),
        });
    };
    row(
        common::PLAIN,
        10,
        Box::new(|| dot.value(std::hint::black_box(inputs))),
    );
    let mut gradient = Vec::new();
    row(
        "hand-written backward",
        5,
        Box::new(move || dot.gradient_by_hand(std::hint::black_box(inputs), &mut gradient)),
    );
    let mut gradient = Vec::new();
    row(
        "autodiff, Tape::new() each time",
        1,
        Box::new(move || {
            let tape = Tape::new();
            dot.gradient_on_tape(&tape, inputs, &mut gradient)
                .unwrap_or(f64::NAN)
        }),
    );
    let mut gradient = Vec::new();
    row(
        "autodiff, Tape::with_capacity() each time",
        1,
        Box::new(move || {
            let tape = Tape::with_capacity(nodes);
            dot.gradient_on_tape(&tape, inputs, &mut gradient)
                .unwrap_or(f64::NAN)
        }),
    );
    let mut gradient = Vec::new();
    let mut tape = Tape::with_capacity(nodes);
    row(
        "autodiff, one tape, clear() each time",
        1,
        Box::new(move || {
            tape.clear();
            dot.gradient_on_tape(&tape, inputs, &mut gradient)
                .unwrap_or(f64::NAN)
        }),
    );
}
