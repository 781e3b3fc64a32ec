//! Which functions of the test corpus keep the tape: every
//! `#[differentiable]` function of the corpus files is expanded, and the
//! doc line of its `f_grad` says whether the compiled adjoint computes it.
//! The list of those that fall back is pinned, so that a construct newly
//! compiled (or newly lost) shows up here; lesson 15's exercises may not
//! fall back at all.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The corpus files, relative to the workspace root.
const FILES: &[&str] = &[
    "examples/support/exercises.rs",
    "tests/corpus/attributes.rs",
    "tests/corpus/composition.rs",
    "tests/corpus/control_flow.rs",
    "tests/corpus/elementary.rs",
    "tests/corpus/formulas.rs",
    "tests/corpus/impls.rs",
    "tests/corpus/imports.rs",
    "tests/corpus/infinities.rs",
    "tests/corpus/integers.rs",
    "tests/corpus/iterators.rs",
    "tests/corpus/layers.rs",
    "tests/corpus/macros.rs",
    "tests/corpus/networks.rs",
    "tests/corpus/patterns.rs",
    "tests/corpus/ranges.rs",
    "tests/corpus/regressions.rs",
    "tests/corpus/signature_edges.rs",
    "tests/corpus/signatures.rs",
    "tests/corpus/slices.rs",
    "tests/random_functions.rs",
    "tests/macros/arrays.rs",
    "tests/macros/chapter14.rs",
    "tests/macros/edge_cases.rs",
    "tests/macros/semantics.rs",
    "tests/macros/models.rs",
    "tests/macros/methods.rs",
    "tests/compiled/paths.rs",
    "tests/compiled/patterns.rs",
    "tests/compiled/closures.rs",
    "tests/compiled/options.rs",
    "tests/compiled/jumps.rs",
    "tests/compiled/vec_moves.rs",
    "tests/macros/sticky.rs",
    "tests/macros/elementary.rs",
    "tests/macros/panics.rs",
];

/// The functions that keep the tape, as `file: function: reason`.
const FALLBACKS: &[&str] = &[
    "tests/corpus/imports.rs: calls_thirteen: a call with more than 12 arguments at line 108",
    "tests/corpus/iterators.rs: collected_in_a_branch: a closure at line 548",
    "tests/corpus/iterators.rs: prefixes: a closure at line 590",
    "tests/corpus/iterators.rs: chained: a `for` over `.enumerate()` at line 631",
    "tests/corpus/patterns.rs: guarded_log: a variant or tuple struct holding a tracked value (`Some(x)`) at line 118",
    "tests/corpus/regressions.rs: cfg_let: `#[cfg]` on a `let` at line 65",
    "tests/compiled/closures.rs: typed_vec_return: a binding without an adjoint at line 640",
    "tests/compiled/closures.rs: largest_in_a_loop: a closure at line 725",
    "tests/compiled/closures.rs: drained_after_a_fold: a `while` condition with a derivative at line 751",
    "tests/compiled/jumps.rs: given_in_a_loop: a `let` without a value given its value inside a loop at line 882",
    "tests/compiled/vec_moves.rs: popped_in_a_condition: `.pop()` whose item is not read as a number at line 361",
    "tests/compiled/vec_moves.rs: popped_and_read_again: a statement that `pop`s a `Vec` and reads it again at line 371",
    "tests/compiled/vec_moves.rs: concat_of_moved_locals: `.concat()` of a local moved into it (`[a, b]`; `[&a[..], &b[..]]` borrows) at line 406",
    "tests/compiled/vec_moves.rs: dropped_after_a_loop: `drop(v)` at line 883",
];

fn functions(items: &[syn::Item], out: &mut Vec<syn::ItemFn>) {
    for item in items {
        match item {
            syn::Item::Fn(function) => {
                if function
                    .attrs
                    .iter()
                    .any(|attr| attr.path().is_ident("differentiable"))
                {
                    out.push(function.clone());
                }
                let inner: Vec<syn::Item> = function
                    .block
                    .stmts
                    .iter()
                    .filter_map(|stmt| match stmt {
                        syn::Stmt::Item(item) => Some(item.clone()),
                        _ => None,
                    })
                    .collect();
                functions(&inner, out);
            }
            syn::Item::Mod(module) => {
                if let Some((_, items)) = &module.content {
                    functions(items, out);
                }
            }
            _ => {}
        }
    }
}

/// `None` if compiled, else the fallback doc line's reason.
fn fallback(function: &syn::ItemFn) -> Option<String> {
    let mut item = function.clone();
    item.attrs
        .retain(|attr| !attr.path().is_ident("differentiable"));
    let output = crate::expand::differentiable(TokenStream::new(), item.into_token_stream());
    let text = output.to_string();
    let marker = "Computed on the tape: ";
    let start = text.find(marker)? + marker.len();
    let end = text[start..].find(" is not compiled yet")?;
    Some(text[start..start + end].replace("\\\"", "\""))
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the workspace")
        .to_path_buf()
}

#[test]
fn exactly_the_listed_corpus_functions_keep_the_tape() {
    let mut found = Vec::new();
    let mut compiled = 0;
    for file in FILES {
        let source = std::fs::read_to_string(root().join(file)).expect("corpus file");
        let parsed = syn::parse_file(&source).expect("corpus file parses");
        let mut list = Vec::new();
        functions(&parsed.items, &mut list);
        for function in list {
            match fallback(&function) {
                Some(reason) => found.push(format!("{file}: {}: {reason}", function.sig.ident)),
                None => compiled += 1,
            }
        }
    }
    for line in &found {
        eprintln!("    \"{line}\",");
    }
    eprintln!("{compiled} compiled, {} on the tape", found.len());
    assert!(
        !found
            .iter()
            .any(|line| line.starts_with("examples/support/exercises.rs")),
        "a lesson-15 exercise keeps the tape"
    );
    assert_eq!(found, FALLBACKS);
}

/// `SHOW=file:function cargo test -p autodiff-macros --lib show -- --ignored
/// --nocapture` prints that function's expansion, as `cargo expand` would.
#[test]
#[ignore]
fn show() {
    let Some(wanted) = std::env::var_os("SHOW") else {
        return;
    };
    let wanted = wanted.to_string_lossy().into_owned();
    let (file, name) = wanted.split_once(':').expect("SHOW=file:function");
    let source = std::fs::read_to_string(root().join(file)).expect("file");
    let parsed = syn::parse_file(&source).expect("file parses");
    let mut list = Vec::new();
    functions(&parsed.items, &mut list);
    for function in list.into_iter().filter(|f| f.sig.ident == name) {
        let mut item = function.clone();
        item.attrs
            .retain(|attr| !attr.path().is_ident("differentiable"));
        let output = crate::expand::differentiable(TokenStream::new(), item.into_token_stream());
        let file: syn::File = syn::parse2(output).expect("expansion parses");
        println!("{}", prettyplease::unparse(&file));
    }
}

/// `REASONS=file,file cargo test -p autodiff-macros --lib reasons --
/// --ignored --nocapture` prints, for every function of those files (the
/// random programs of `tests/random_functions.rs`, say) that keeps the
/// tape, its name and the construct that keeps it there, then a count of
/// each construct.
#[test]
#[ignore]
fn reasons() {
    let Some(files) = std::env::var_os("REASONS") else {
        return;
    };
    let mut counts = std::collections::BTreeMap::<String, usize>::new();
    let mut compiled = 0;
    for file in files.to_string_lossy().split(',') {
        let source = std::fs::read_to_string(root().join(file)).expect("file");
        let parsed = syn::parse_file(&source).expect("file parses");
        let mut list = Vec::new();
        functions(&parsed.items, &mut list);
        for function in list {
            match fallback(&function) {
                Some(reason) => {
                    println!("{file}: {}: {reason}", function.sig.ident);
                    let construct = reason.rsplit_once(" at line ").map_or(&*reason, |(c, _)| c);
                    *counts.entry(construct.to_owned()).or_default() += 1;
                }
                None => compiled += 1,
            }
        }
    }
    println!("{compiled} compiled");
    for (construct, count) in counts {
        println!("{count:>6}  {construct}");
    }
}
