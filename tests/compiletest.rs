//! Compile-time rejections of `#[differentiable]`: each `ui-tests/*.rs` must
//! fail to compile with exactly its reviewed `.stderr`.
//!
//! One test function, because each trybuild run compiles a fresh project.
//! `TRYBUILD=overwrite cargo test --test compiletest` regenerates the
//! `.stderr` files; read every one before committing it.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui-tests/*.rs");
}
