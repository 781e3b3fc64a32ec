//! Deep and long bodies through `#[differentiable]`, compiled by rustc in
//! the workspace's dev profile and run: a sum of many terms, 1,000 nested
//! parentheses, a 1,000-deep `.sin()` chain and a 1,000-statement body
//! (the generators are `tests/support/sizes.rs`). Each program checks
//! `f_grad`'s value against the plain twin and its gradient against a
//! derivative carried by hand through the same loop.
//!
//! Built through trybuild `pass` cases written into the test's scratch
//! directory, so the programs share the dependencies `tests/compiletest.rs`
//! builds. The full acceptance sizes (10,000 terms and statements) are in
//! `benches/compile_time.rs`, which times them, and the in-process
//! expansion of `autodiff-macros/tests/never_panics.rs`; here the sizes
//! keep CI's build within a minute.

#[path = "support/sizes.rs"]
#[allow(dead_code)]
mod sizes;

/// Sizes compiled here: the two 1,000-deep shapes at full depth, the long
/// ones at a fifth and a tenth of theirs.
const SIZES: [(&str, usize); 4] = [
    ("sum", 2_000),
    ("parens", 1_000),
    ("sines", 1_000),
    ("statements", 1_000),
];

#[test]
fn deep_and_long_bodies_compile_and_differentiate() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("sizes");
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    let cases = trybuild::TestCases::new();
    for (name, n) in SIZES {
        let case = sizes::CASES
            .iter()
            .find(|case| case.name == name)
            .expect("a known case");
        let path = dir.join(format!("{name}_{n}.rs"));
        std::fs::write(&path, sizes::program(case, n, true)).expect("a written case");
        cases.pass(path);
    }
}
