//! `cargo run --example inspect`: its gradients against closed forms, its
//! command line, and the pictures and ledger checked into `docs/` and the
//! README, which must match what the code renders today.

#[allow(dead_code)]
#[path = "../examples/inspect.rs"]
mod inspect;
#[path = "support/oracle.rs"]
#[allow(dead_code)]
mod oracle;

use std::path::{Path, PathBuf};

use inspect::{parse, render, run, Failure, Request, FUNCTIONS};
use oracle::close;

/// name -> pass adjoint, from the node cards of the first ledger in `text`.
fn adjoints(text: &str) -> Vec<(String, f64)> {
    text.lines()
        .skip_while(|line| *line != "node cards, forward order")
        .skip(2)
        .take_while(|line| !line.is_empty())
        .filter_map(|line| {
            let cells: Vec<&str> = line.split_whitespace().collect();
            Some((cells[1].to_owned(), cells[4].parse().ok()?))
        })
        .collect()
}

fn adjoint(text: &str, name: &str) -> f64 {
    adjoints(text)
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, a)| a)
        .unwrap_or_else(|| panic!("no node {name} in\n{text}"))
}

#[test]
fn every_function_matches_its_closed_form_gradient() -> Result<(), Failure> {
    // reused square: loss = 2x², dloss/dx = 4x at 2.
    let text = render("reused-square", false)?.text;
    assert_eq!(adjoint(&text, "x"), 8.0);
    assert_eq!(adjoint(&text, "square"), 2.0);

    // x*x + detach(x)*3: only x*x reaches x.
    assert_eq!(adjoint(&render("detach", false)?.text, "x"), 4.0);

    // exp(tanh x)' = exp(tanh x)(1 − tanh² x) at 0.5.
    let t = 0.5_f64.tanh();
    assert!(close(
        adjoint(&render("nonlinear", false)?.text, "x"),
        t.exp() * (1.0 - t * t),
        1e-12
    ));

    // tanh(x1 w1 + x2 w2 + b): d/dn = 1 − o², d/dw1 = x1 (1 − o²), ...
    // and `n` is the macro's label for the binding.
    let text = render("neuron", false)?.text;
    let o = (2.0_f64 * -3.0 + 0.0 * 1.0 + 6.881_373_587_019_543).tanh();
    let dn = 1.0 - o * o;
    for (name, expected) in [
        ("x1", -3.0 * dn),
        ("w1", 2.0 * dn),
        ("x2", 1.0 * dn),
        ("w2", 0.0),
        ("b", dn),
        ("n", dn),
    ] {
        assert!(close(adjoint(&text, name), expected, 1e-12), "{name}");
    }

    // Cross-entropy of softmax for class 1: gradient = softmax − one-hot.
    let text = render("softmax-ce", false)?.text;
    let z = [1.0_f64, 2.0, 0.5];
    let total: f64 = z.iter().map(|v| v.exp()).sum();
    for (k, name) in ["z0", "z1", "z2"].into_iter().enumerate() {
        let expected = z[k].exp() / total - if k == 1 { 1.0 } else { 0.0 };
        assert!(close(adjoint(&text, name), expected, 1e-12), "{name}");
    }
    // `#[differentiable]` named the binding `total`: d loss/d total = 1/total.
    assert!(close(adjoint(&text, "total"), 1.0 / total, 1e-12), "{text}");
    Ok(())
}

#[test]
fn the_reused_square_prints_its_timeline() -> Result<(), Failure> {
    let text = render("reused-square", false)?.text;
    let timeline: Vec<Vec<&str>> = text
        .lines()
        .skip_while(|line| *line != "stored gradients across passes")
        .skip(2)
        .map(|line| line.split_whitespace().collect())
        .collect();
    // x's stored gradient: 4x, then 8x, 0, 4x, and a rejected NaN seed leaves 4x.
    let x: Vec<f64> = timeline
        .iter()
        .map(|row| {
            row.iter()
                .find_map(|cell| cell.parse::<f64>().ok())
                .expect("a number")
        })
        .collect();
    assert_eq!(x, [8.0, 16.0, 0.0, 8.0, 8.0]);
    assert!(timeline[4].contains(&"rejected:"));
    Ok(())
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn the_command_line_is_read_or_refused_with_usage() {
    assert!(matches!(
        parse(&[]),
        Ok(Request::Render { function, out, markdown: false }) if function == "reused-square" && out == Path::new("target/inspect")
    ));
    assert!(matches!(
        parse(&args(&["neuron", "--out", "pics", "--markdown"])),
        Ok(Request::Render { function, out, markdown: true }) if function == "neuron" && out == Path::new("pics")
    ));
    assert!(matches!(parse(&args(&["--list"])), Ok(Request::List)));
    for (bad, says) in [
        (&["bogus"][..], "unknown function `bogus`"),
        (&["--out"][..], "--out needs a directory"),
        (&["neuron", "detach"][..], "unexpected argument `detach`"),
        (&["--frobnicate"][..], "unknown option `--frobnicate`"),
    ] {
        match parse(&args(bad)) {
            Err(failure @ Failure::Usage(_)) => {
                let message = failure.to_string();
                assert!(message.starts_with(says), "{message}");
                assert!(message.contains("usage: cargo run --example inspect"));
                for (name, _) in FUNCTIONS {
                    assert!(message.contains(name), "usage lists {name}");
                }
            }
            other => panic!("{bad:?} gave {other:?}"),
        }
    }
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("autodiff-inspect-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_bad_argument_writes_nothing() {
    let dir = scratch("bad");
    let out = dir.to_string_lossy().into_owned();
    assert!(matches!(
        run(&args(&["nope", "--out", &out]), &mut Vec::new()),
        Err(Failure::Usage(_))
    ));
    assert!(!dir.exists());
}

#[test]
fn every_function_writes_its_svg_and_dot() -> Result<(), Failure> {
    let dir = scratch("all");
    let out = dir.to_string_lossy().into_owned();
    for (name, _) in FUNCTIONS {
        let mut stdout = Vec::new();
        run(&args(&[name, "--out", &out]), &mut stdout)?;
        let printed = String::from_utf8(stdout).expect("utf-8");
        assert!(
            printed.contains(&format!("{}", dir.join(format!("{name}.svg")).display())),
            "{printed}"
        );
        let read = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}")));
        let svg = read("svg").expect("svg written");
        let dot = read("dot").expect("dot written");
        assert!(
            svg.starts_with("<svg") && svg.ends_with("</svg>\n"),
            "{name}"
        );
        assert!(
            dot.starts_with("digraph tape {") && dot.ends_with("}\n"),
            "{name}"
        );
        assert_eq!(
            svg.matches("class=\"edge\"").count(),
            dot.matches(" -> ").count(),
            "{name}: one arrow per operand edge in both pictures"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

const REGENERATE: &str =
    "regenerate with `cargo run --example inspect -- reused-square --out docs`";

#[test]
fn checked_in_pictures_match_the_renderer() -> Result<(), Failure> {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs");
    for (name, contents) in render("reused-square", false)?.files {
        let stored = std::fs::read_to_string(docs.join(&name))
            .unwrap_or_else(|e| panic!("docs/{name}: {e}; {REGENERATE}"));
        assert!(stored == contents, "docs/{name} is stale; {REGENERATE}");
    }
    Ok(())
}

#[test]
fn the_readme_shows_the_ledger_the_code_prints() -> Result<(), Failure> {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
        .expect("README.md");
    let section = readme
        .split("## See the tape")
        .nth(1)
        .expect("a `## See the tape` section");
    let block = section
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("a text block in the section");
    let text = render("reused-square", false)?.text;
    assert!(
        text.starts_with(block),
        "the README's ledger differs from `cargo run --example inspect`:\n{block}\nvs\n{text}"
    );
    assert!(section.contains("![") && section.contains("docs/reused-square.svg"));
    Ok(())
}

#[test]
fn markdown_mode_prints_tables_with_the_same_numbers() -> Result<(), Failure> {
    let markdown = render("reused-square", true)?.text;
    let ledger: Vec<&str> = markdown
        .lines()
        .skip_while(|line| !line.starts_with("| reverse |"))
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .collect();
    assert_eq!(
        ledger,
        [
            "| 0 | loss | 0 | square | 4.000000000000 | 1.000000000000 | 1.000000000000 | 1.000000000000 | 1.000000000000 |",
            "| 1 | loss | 1 | square | 4.000000000000 | 1.000000000000 | 1.000000000000 | 1.000000000000 | 2.000000000000 |",
            "| 2 | square | 0 | x | 2.000000000000 | 2.000000000000 | 2.000000000000 | 4.000000000000 | 4.000000000000 |",
            "| 3 | square | 1 | x | 2.000000000000 | 2.000000000000 | 2.000000000000 | 4.000000000000 | 8.000000000000 |",
        ]
    );
    assert!(markdown.contains("| step | x | square | loss | outcome |"));
    Ok(())
}
