//! `autodiff` against `reverse` 0.2 and `easy-ml` 2.x (its reverse-mode
//! `Record` on a `WengertList`) and the plain-`f64` function, on the same two
//! computations, timed side by side in one run:
//!
//! ```text
//! cd bench-compare && cargo run --release -- [--rounds N] [--only mlp|dot]
//! ```
//!
//! Every engine's gradient is checked against the hand-written reverse pass
//! before anything is timed. Rows are timed round-robin (each row once per
//! round, in turn), so a burst of load from another process lands on all
//! engines alike; the table shows the median and best round.

#[path = "../../benches/common/mod.rs"]
mod common;

use std::process::ExitCode;

use autodiff_core::Tape;
use common::{max_error, CountingAllocator, DotExp, Mlp, Row};
use easy_ml::differentiation::{Record, WengertList};
use reverse::Gradient;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator::new();

/// The crates compute tanh's derivative their own way (`1/cosh²` in
/// `reverse`), so they agree with the oracle to rounding, not to the bit.
const AGREEMENT: f64 = 1e-10;

fn mlp_reverse(mlp: &Mlp, tape: &reverse::Tape, gradient: &mut Vec<f64>) -> f64 {
    let leaves = tape.add_vars(&mlp.params);
    let (w1, b1, w2, &b2) = mlp.split(&leaves);
    let mut y = b2;
    for j in 0..mlp.hidden {
        let mut z = b1[j];
        for i in 0..mlp.inputs {
            z = z + w1[j * mlp.inputs + i] * mlp.x[i];
        }
        y = y + w2[j] * z.tanh();
    }
    let error = y - mlp.target;
    let loss = error * error;
    let adjoints = loss.grad();
    gradient.clear();
    gradient.extend(adjoints.wrt(&leaves));
    loss.val()
}

fn dot_reverse(dot: &DotExp, inputs: &[f64], tape: &reverse::Tape, gradient: &mut Vec<f64>) -> f64 {
    let leaves = tape.add_vars(inputs);
    let (a, b) = leaves.split_at(dot.len());
    let mut sum_products = a[0] * b[0];
    for i in 1..a.len() {
        sum_products = sum_products + a[i] * b[i];
    }
    let mut sum_exp = a[0].exp();
    for ai in &a[1..] {
        sum_exp = sum_exp + ai.exp();
    }
    let f = sum_products + sum_exp;
    let adjoints = f.grad();
    gradient.clear();
    gradient.extend(adjoints.wrt(&leaves));
    f.val()
}

fn tanh_record<'l>(z: Record<'l, f64>) -> Record<'l, f64> {
    // easy-ml has no tanh on `Record`; `unary` with value and derivative is
    // its documented way to add one.
    let h = z.unary(f64::tanh, |x| {
        let t = x.tanh();
        1.0 - t * t
    });
    // `unary` ties its result to the borrow of `z`; give it back the list's
    // lifetime. Plain field copies: no node is recorded.
    Record::from_existing((h.number, h.index), z.history())
}

fn mlp_easy_ml(mlp: &Mlp, list: &WengertList<f64>, gradient: &mut Vec<f64>) -> f64 {
    let leaves: Vec<Record<'_, f64>> = mlp.params.iter().map(|&p| list.variable(p)).collect();
    let (w1, b1, w2, &b2) = mlp.split(&leaves);
    let mut y = b2;
    for j in 0..mlp.hidden {
        let mut z = b1[j];
        for i in 0..mlp.inputs {
            z = z + w1[j * mlp.inputs + i] * mlp.x[i];
        }
        y = y + w2[j] * tanh_record(z);
    }
    let error = y - mlp.target;
    let loss = error * error;
    let derivatives = loss.derivatives();
    gradient.clear();
    gradient.extend(leaves.iter().map(|leaf| derivatives[leaf]));
    loss.number
}

fn dot_easy_ml(
    dot: &DotExp,
    inputs: &[f64],
    list: &WengertList<f64>,
    gradient: &mut Vec<f64>,
) -> f64 {
    use easy_ml::numeric::extra::Exp;
    let leaves: Vec<Record<'_, f64>> = inputs.iter().map(|&v| list.variable(v)).collect();
    let (a, b) = leaves.split_at(dot.len());
    let mut sum_products = a[0] * b[0];
    for i in 1..a.len() {
        sum_products = sum_products + a[i] * b[i];
    }
    let mut sum_exp = a[0].exp();
    for &ai in &a[1..] {
        sum_exp = sum_exp + ai.exp();
    }
    let f = sum_products + sum_exp;
    let derivatives = f.derivatives();
    gradient.clear();
    gradient.extend(leaves.iter().map(|leaf| derivatives[leaf]));
    f.number
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("bench-compare: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    let rounds = common::rounds(&args)?;
    let only = common::option(&args, "--only");
    if let Some(name) = only {
        if name != "mlp" && name != "dot" {
            return Err(format!("--only wants `mlp` or `dot`, got {name:?}"));
        }
    }

    let mlp = Mlp::new(64, 64);
    // The 10⁶-pair inputs only when that workload runs: building and
    // checking it takes a while and leaves the allocator in another state.
    let dot = DotExp::new(if only == Some("mlp") { 1000 } else { 1_000_000 });
    let dot_inputs = dot.inputs();
    verify(&mlp, &dot, &dot_inputs)?;

    let mut rows: Vec<Row<'_>> = Vec::new();
    if only != Some("dot") {
        mlp_rows(&mut rows, &mlp);
    }
    if only != Some("mlp") {
        dot_rows(&mut rows, &dot, &dot_inputs);
    }
    println!(
        "bench-compare: {rounds} rounds, each row timed once per round in turn; \
         ns/op = median time per gradient / recorded operations (leaves not counted)"
    );
    if let Some(pattern) = common::option(&args, "--engine") {
        // Profiling aid: keep the reference rows and the engines named.
        rows.retain(|row| row.engine == common::PLAIN || row.engine.contains(pattern));
    }
    common::run_round_robin(&mut rows, rounds)?;
    println!();
    print!("{}", common::table(&rows));
    println!();
    memory()?;
    Ok(())
}

/// A fast wrong answer is not a result: every engine must reproduce the
/// hand-written gradient before it is timed.
fn verify(mlp: &Mlp, dot: &DotExp, dot_inputs: &[f64]) -> Result<(), String> {
    let small_dot = DotExp::new(1000);
    let small_inputs = small_dot.inputs();
    let mut want = Vec::new();
    let mut got = Vec::new();
    let mut checks: Vec<(&str, f64)> = Vec::new();

    mlp.gradient_by_hand(&mlp.params, &mut want);
    mlp.gradient_on_tape(&Tape::new(), &mlp.params, &mut got)
        .map_err(|e| e.to_string())?;
    checks.push(("autodiff MLP", max_error(&got, &want)));
    mlp_reverse(mlp, &reverse::Tape::new(), &mut got);
    checks.push(("reverse MLP", max_error(&got, &want)));
    mlp_easy_ml(mlp, &WengertList::new(), &mut got);
    checks.push(("easy-ml MLP", max_error(&got, &want)));

    for (dot, inputs) in [(&small_dot, &small_inputs[..]), (dot, dot_inputs)] {
        dot.gradient_by_hand(inputs, &mut want);
        dot.gradient_on_tape(&Tape::new(), inputs, &mut got)
            .map_err(|e| e.to_string())?;
        let e1 = max_error(&got, &want);
        dot_reverse(dot, inputs, &reverse::Tape::new(), &mut got);
        let e2 = max_error(&got, &want);
        dot_easy_ml(dot, inputs, &WengertList::new(), &mut got);
        let e3 = max_error(&got, &want);
        println!("checked Σa·b + Σexp(a) gradients at {} pairs", dot.len());
        checks.extend([
            ("autodiff dot", e1),
            ("reverse dot", e2),
            ("easy-ml dot", e3),
        ]);
    }
    for (what, error) in checks {
        // `max_error` maps NaN to infinity, so this also rejects NaN.
        if error >= AGREEMENT {
            return Err(format!(
                "{what}: gradient differs from the hand-written one by {error:e}"
            ));
        }
    }
    println!("checked: every engine's gradient matches the hand-written reverse pass");
    Ok(())
}

fn push_row<'a>(
    rows: &mut Vec<Row<'a>>,
    workload: &str,
    engine: &str,
    operations: usize,
    iterations: usize,
    run: Box<dyn FnMut() -> f64 + 'a>,
) {
    rows.push(Row {
        workload: workload.to_string(),
        engine: engine.to_string(),
        operations,
        run,
        iterations,
        samples: Vec::new(),
    });
}

fn mlp_rows<'a>(rows: &mut Vec<Row<'a>>, mlp: &'a Mlp) {
    let workload = format!("MLP {}→{}→1", mlp.inputs, mlp.hidden);
    let ops = mlp.operations();
    let n = 100;
    let w = workload.as_str();
    push_row(
        rows,
        w,
        common::PLAIN,
        ops,
        20 * n,
        Box::new(|| mlp.loss(std::hint::black_box(&mlp.params))),
    );
    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "hand-written backward",
        ops,
        10 * n,
        Box::new(move || mlp.gradient_by_hand(std::hint::black_box(&mlp.params), &mut g)),
    );

    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "autodiff, new tape",
        ops,
        n,
        Box::new(move || {
            mlp.gradient_on_tape(&Tape::new(), &mlp.params, &mut g)
                .unwrap_or(f64::NAN)
        }),
    );
    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "reverse, new tape",
        ops,
        n,
        Box::new(move || mlp_reverse(mlp, &reverse::Tape::new(), &mut g)),
    );
    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "easy-ml, new list",
        ops,
        n,
        Box::new(move || mlp_easy_ml(mlp, &WengertList::new(), &mut g)),
    );

    let mut g = Vec::new();
    let mut tape = Tape::new();
    push_row(
        rows,
        w,
        "autodiff, reused tape (clear)",
        ops,
        n,
        Box::new(move || {
            tape.clear();
            mlp.gradient_on_tape(&tape, &mlp.params, &mut g)
                .unwrap_or(f64::NAN)
        }),
    );
    let mut g = Vec::new();
    let tape = reverse::Tape::new();
    push_row(
        rows,
        w,
        "reverse, reused tape (clear)",
        ops,
        n,
        Box::new(move || {
            tape.clear();
            mlp_reverse(mlp, &tape, &mut g)
        }),
    );
    let mut g = Vec::new();
    let list = WengertList::new();
    push_row(
        rows,
        w,
        "easy-ml, reused list (clear)",
        ops,
        n,
        Box::new(move || {
            list.clear();
            mlp_easy_ml(mlp, &list, &mut g)
        }),
    );
}

fn dot_rows<'a>(rows: &mut Vec<Row<'a>>, dot: &'a DotExp, inputs: &'a [f64]) {
    let workload = format!("Σa·b + Σexp(a), {} pairs", dot.len());
    let ops = dot.operations();
    let nodes = dot.leaves() + dot.operations();
    let w = workload.as_str();
    push_row(
        rows,
        w,
        common::PLAIN,
        ops,
        10,
        Box::new(|| dot.value(std::hint::black_box(inputs))),
    );
    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "hand-written backward",
        ops,
        5,
        Box::new(move || dot.gradient_by_hand(std::hint::black_box(inputs), &mut g)),
    );

    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "autodiff, new tape",
        ops,
        1,
        Box::new(move || {
            dot.gradient_on_tape(&Tape::new(), inputs, &mut g)
                .unwrap_or(f64::NAN)
        }),
    );
    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "reverse, new tape",
        ops,
        1,
        Box::new(move || dot_reverse(dot, inputs, &reverse::Tape::new(), &mut g)),
    );
    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "easy-ml, new list",
        ops,
        1,
        Box::new(move || dot_easy_ml(dot, inputs, &WengertList::new(), &mut g)),
    );

    let mut g = Vec::new();
    push_row(
        rows,
        w,
        "autodiff, Tape::with_capacity",
        ops,
        1,
        Box::new(move || {
            dot.gradient_on_tape(&Tape::with_capacity(nodes), inputs, &mut g)
                .unwrap_or(f64::NAN)
        }),
    );
    let mut g = Vec::new();
    let mut tape = Tape::with_capacity(nodes);
    push_row(
        rows,
        w,
        "autodiff, reused tape (clear)",
        ops,
        1,
        Box::new(move || {
            tape.clear();
            dot.gradient_on_tape(&tape, inputs, &mut g)
                .unwrap_or(f64::NAN)
        }),
    );
    let mut g = Vec::new();
    let tape = reverse::Tape::new();
    push_row(
        rows,
        w,
        "reverse, reused tape (clear)",
        ops,
        1,
        Box::new(move || {
            tape.clear();
            dot_reverse(dot, inputs, &tape, &mut g)
        }),
    );
    let mut g = Vec::new();
    let list = WengertList::new();
    push_row(
        rows,
        w,
        "easy-ml, reused list (clear)",
        ops,
        1,
        Box::new(move || {
            list.clear();
            dot_easy_ml(dot, inputs, &list, &mut g)
        }),
    );
}

/// Peak heap bytes per recorded node over one gradient on a fresh tape,
/// everything included (tape, backward scratch, leaf handles, gradient).
fn memory() -> Result<(), String> {
    let dot = DotExp::new(100_000);
    let inputs = dot.inputs();
    let nodes = (dot.leaves() + dot.operations()) as f64;
    let mut gradient = Vec::with_capacity(dot.leaves());
    let mut peak = |run: &mut dyn FnMut(&mut Vec<f64>)| {
        let before = ALLOCATOR.reset_peak();
        run(&mut gradient);
        (ALLOCATOR.peak() - before) as f64 / nodes
    };
    let ours = peak(&mut |g| {
        // Presized, as a training loop that reuses its tape would be.
        let tape = Tape::with_capacity(nodes as usize);
        let _ = dot.gradient_on_tape(&tape, &inputs, g);
    });
    let ours_grown = peak(&mut |g| {
        let _ = dot.gradient_on_tape(&Tape::new(), &inputs, g);
    });
    let theirs = peak(&mut |g| {
        dot_reverse(&dot, &inputs, &reverse::Tape::new(), g);
    });
    let easy = peak(&mut |g| {
        dot_easy_ml(&dot, &inputs, &WengertList::new(), g);
    });
    println!(
        "peak heap per recorded node over one Σa·b + Σexp(a) gradient (10⁵ pairs, {} nodes), \
         everything included:\n  autodiff {ours:.0} B (presized tape; {ours_grown:.0} B when the tape grows from empty), \
         reverse {theirs:.0} B, easy-ml {easy:.0} B; autodiff's tape itself holds {} B per node",
        nodes,
        autodiff_core::BYTES_PER_NODE
    );
    Ok(())
}
