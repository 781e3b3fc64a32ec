//! Compile time of `#[differentiable]` on extreme bodies, against the plain
//! function: a 10,000-term sum, 1,000 nested parentheses, a 1,000-deep
//! `.sin()` chain, 2,000- and 10,000-statement bodies (the generators are in
//! `tests/support/sizes.rs`, shared with `tests/sizes.rs`).
//!
//! `cargo bench --bench compile_time` writes a scratch crate under
//! `target/compile-time-bench/` that depends on this one with the
//! workspace's dev profile, builds its dependencies once, then times
//! `cargo build` of each program, plain and annotated interleaved, and
//! prints the best of a few rounds as the README's table. Each annotated
//! program also runs, checking its gradient against the hand-carried
//! oracle. Arguments `case=size` (e.g. `statements=2000`) pick the cases,
//! `rounds=N` the rounds of each (3).
//! (Plain rustc overflows its own stack on a 10,000-term sum in the dev
//! profile, so there is no baseline at that size.)

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "../tests/support/sizes.rs"]
#[allow(dead_code)]
mod sizes;

/// Rounds of each build, the best one timed (`rounds=N` sets it).
const ROUNDS: usize = 3;

/// rustc's main-thread stack for every timed build, plain and annotated
/// alike: 256 MiB (rustc's default, 8 MiB, overflows on the full sizes
/// even for the plain function).
const RUSTC_STACK: usize = 256 << 20;

fn main() {
    // `cargo test --all-targets` runs benches without `--bench`: minutes of
    // builds are no test, so only `cargo bench` measures.
    if !std::env::args().any(|arg| arg == "--bench") {
        println!("compile_time: run with `cargo bench --bench compile_time`");
        return;
    }
    let mut picked: Vec<(String, usize)> = std::env::args()
        .skip(1)
        .filter_map(|arg| {
            let (name, n) = arg.split_once('=')?;
            Some((name.to_owned(), n.parse().ok()?))
        })
        .collect();
    let rounds = picked
        .iter()
        .find(|(name, _)| name == "rounds")
        .map_or(ROUNDS, |&(_, n)| n.max(1));
    picked.retain(|(name, _)| name != "rounds");
    let runs: Vec<(&sizes::Case, usize)> = if picked.is_empty() {
        // Plain rustc itself overflows its stack on a 10,000-term sum (and
        // LLVM's debug info on 3,000 statements), so the long shapes are
        // compared at two sizes each below that; 2,000 statements is issue
        // 11's mark. The README's table is this run.
        vec![
            (&sizes::CASES[0], 2_000),
            (&sizes::CASES[0], 5_000),
            (&sizes::CASES[1], 1_000),
            (&sizes::CASES[2], 1_000),
            (&sizes::CASES[3], 1_000),
            (&sizes::CASES[3], 2_000),
        ]
    } else {
        picked
            .iter()
            .filter_map(|(name, n)| {
                let case = sizes::CASES.iter().find(|case| case.name == name)?;
                Some((case, *n))
            })
            .collect()
    };
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let scratch = root.join("target").join("compile-time-bench");
    if let Err(error) = scaffold(root, &scratch) {
        eprintln!("cannot write the scratch crate: {error}");
        std::process::exit(1);
    }
    // Dependencies once, so that each timed build is the program alone.
    if let Err(error) = build(&scratch, "warmup") {
        eprintln!("{error}");
        std::process::exit(1);
    }
    let mut table =
        String::from("| body | plain build | annotated build | ratio |\n|---|---:|---:|---:|\n");
    for (case, n) in runs {
        let mut best = [Duration::MAX; 2];
        for round in 0..rounds {
            for (i, annotated) in [false, true].into_iter().enumerate() {
                let bin = format!(
                    "{}_{n}_{}",
                    case.name,
                    if annotated { "ad" } else { "plain" }
                );
                let source = sizes::program(case, n, annotated);
                // A comment that changes each round forces a rebuild.
                let source = format!("// round {round}\n{source}");
                let path = scratch.join("src").join("bin").join(format!("{bin}.rs"));
                if let Err(error) = std::fs::write(&path, source) {
                    eprintln!("cannot write {}: {error}", path.display());
                    std::process::exit(1);
                }
                match build(&scratch, &bin) {
                    Ok(time) => {
                        eprintln!("{bin}: {:.2} s", time.as_secs_f64());
                        best[i] = best[i].min(time);
                    }
                    Err(error) => {
                        eprintln!("{error}");
                        std::process::exit(1);
                    }
                }
                if annotated && round == 0 {
                    let binary = scratch.join("target").join("debug").join(&bin);
                    let status = Command::new(&binary).status();
                    if !matches!(status, Ok(status) if status.success()) {
                        eprintln!("{bin}: the gradient check failed ({status:?})");
                        std::process::exit(1);
                    }
                }
            }
        }
        let line = format!(
            "| {} {n} | {:.2} s | {:.2} s | {:.1}× |",
            describe(case.name),
            best[0].as_secs_f64(),
            best[1].as_secs_f64(),
            best[1].as_secs_f64() / best[0].as_secs_f64()
        );
        println!("{line}");
        let _ = writeln!(table, "{line}");
    }
    println!("\n{table}");
}

fn describe(name: &str) -> &'static str {
    match name {
        "sum" => "`x + x + … + x`, terms:",
        "parens" => "nested parentheses:",
        "sines" => "`.sin()` chain, depth:",
        _ => "`let` statements:",
    }
}

/// The scratch crate: this crate as a path dependency, the workspace's
/// lock file and dev profile, and a trivial `warmup` binary.
fn scaffold(root: &Path, scratch: &Path) -> std::io::Result<()> {
    let bin = scratch.join("src").join("bin");
    std::fs::create_dir_all(&bin)?;
    let manifest = format!(
        "[package]\nname = \"compile-time-bench\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nautodiff = {{ path = {:?} }}\n\n\
         [profile.dev]\nopt-level = 1\n\n[workspace]\n",
        root.display().to_string()
    );
    std::fs::write(scratch.join("Cargo.toml"), manifest)?;
    std::fs::copy(root.join("Cargo.lock"), scratch.join("Cargo.lock"))?;
    std::fs::write(
        bin.join("warmup.rs"),
        "fn main() { let _ = autodiff::Tape::new(); }\n",
    )?;
    Ok(())
}

/// `cargo build --bin bin` in the scratch crate, timed.
fn build(scratch: &Path, bin: &str) -> Result<Duration, String> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let start = Instant::now();
    let output = Command::new(cargo)
        .current_dir(scratch)
        .args(["build", "--offline", "--quiet", "--bin", bin])
        .env("CARGO_TARGET_DIR", target(scratch))
        // A fresh build each round: incremental reuse would time a no-op.
        .env("CARGO_INCREMENTAL", "0")
        // Plain rustc overflows its default stack on these sizes (LLVM's
        // debug info nests a lexical scope per `let`, its parser recurses
        // per term): the stack its own message advises, for both builds.
        .env("RUST_MIN_STACK", RUSTC_STACK.to_string())
        .output()
        .map_err(|error| format!("cannot run cargo: {error}"))?;
    let time = start.elapsed();
    if output.status.success() {
        Ok(time)
    } else {
        Err(format!(
            "building {bin} failed:\n{}",
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

fn target(scratch: &Path) -> PathBuf {
    scratch.join("target")
}
