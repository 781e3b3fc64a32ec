//! The README's lists of operations agree with the table: the engine's
//! operations, the methods and functions `#[differentiable]` accepts (in
//! the README's scan and in `docs/what-you-can-write.md`, its reference),
//! and the methods it names as compile errors. The oracle is the table; the
//! texts are parsed as text, so a row added without its lines fails.

use autodiff_ops_table::{Operation, Spelling, F64_METHODS, OPERATIONS};

fn readme() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md");
    std::fs::read_to_string(path).expect("the workspace README is readable")
}

/// The words of the first code span that follows `marker`.
fn words_after(text: &str, marker: &str) -> Vec<String> {
    let start = text
        .find(marker)
        .unwrap_or_else(|| panic!("README has `{marker}`"))
        + marker.len();
    let span = &text[start..];
    let open = span.find('`').expect("a code span follows") + 1;
    let close = open + span[open..].find('`').expect("the code span closes");
    span[open..close]
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

fn sorted(mut words: Vec<String>) -> Vec<String> {
    words.sort();
    words
}

/// `docs/what-you-can-write.md`: every form a body may hold, with its
/// limits, which the README's list links to.
fn reference() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/what-you-can-write.md");
    std::fs::read_to_string(path).expect("docs/what-you-can-write.md is readable")
}

/// The section on what a `#[differentiable]` body may contain, up to the
/// next heading.
fn macro_section(text: &str) -> &str {
    let start = text
        .find("## What you can write")
        .expect("README has a section on what a body may contain");
    let end = text[start + 3..]
        .find("\n## ")
        .map_or(text.len(), |end| start + 3 + end);
    &text[start..end]
}

#[test]
fn the_engine_lists_every_operation() {
    let listed = words_after(&readme(), "Operations: ");
    let table: Vec<String> = OPERATIONS
        .iter()
        .filter(|op| op.operands > 0)
        .map(|op| op.name.to_owned())
        .collect();
    assert_eq!(sorted(listed), sorted(table));
}

#[test]
fn the_macro_section_lists_every_method_and_function() {
    let table: Vec<String> = OPERATIONS
        .iter()
        .filter_map(Operation::method)
        .map(str::to_owned)
        .collect();
    let (text, full) = (readme(), reference());
    for (name, section, marker) in [
        ("README", macro_section(&text), "`f64::exp(x)`: "),
        (
            "docs/what-you-can-write.md",
            full.as_str(),
            "in method or path form (",
        ),
    ] {
        let methods = words_after(section, marker);
        assert_eq!(methods, table, "{name}: in the table's order");
        for op in OPERATIONS {
            if let Spelling::Function(function) = op.spelling {
                assert!(
                    section.contains(&format!("`{function}`")),
                    "{name}'s #[differentiable] list names `{function}`"
                );
            }
        }
    }
}

#[test]
fn the_methods_named_as_errors_have_no_rule() {
    let section = reference();
    let marker = "with no derivative rule yet such as ";
    let start = section
        .find(marker)
        .expect("README names unsupported methods")
        + marker.len();
    let sentence = &section[start..start + section[start..].find(',').expect("a list")];
    let mut named = 0;
    for part in sentence.split('`').skip(1).step_by(2) {
        let method = part
            .strip_prefix("x.")
            .and_then(|rest| rest.strip_suffix("()"))
            .unwrap_or_else(|| panic!("`{part}` is written as `x.method()`"));
        assert!(F64_METHODS.contains(&method), "{method} is an f64 method");
        assert!(
            autodiff_ops_table::by_method(method).is_none(),
            "{method} has a row, so it is supported: the README must not call it an error"
        );
        named += 1;
    }
    assert!(named >= 1);
}

/// The names of a `const NAME: &[&str] = &[..];` list in `source`.
fn const_list(source: &str, name: &str) -> Vec<String> {
    let marker = format!("const {name}: &[&str] = &[");
    let start = source
        .find(&marker)
        .unwrap_or_else(|| panic!("vocabulary.rs has `{name}`"))
        + marker.len();
    let end = start + source[start..].find("];").expect("the list closes");
    source[start..end]
        .split(',')
        .map(|item| item.trim().trim_matches('"').to_owned())
        .filter(|item| !item.is_empty())
        .collect()
}

/// The methods the macro passes through (its vocabulary, read as text:
/// the macro crate's lists are private) are the ones the README lists, in
/// the same order, as the diagnostics list them.
#[test]
fn the_macro_section_lists_every_method_without_a_rule() {
    let vocabulary = include_str!("../../autodiff-macros/src/vocabulary.rs");
    let section = reference();
    let section = section.as_str();
    let mut iterators = const_list(vocabulary, "SUMS");
    iterators.extend(const_list(vocabulary, "STRUCTURAL"));
    assert_eq!(words_after(section, "on slices and iterators"), iterators);
    assert_eq!(
        words_after(section, "and tests of the value"),
        const_list(vocabulary, "PREDICATES")
    );
}
