//! Seeing the tape: the ledger, DOT and SVG views, their bounds, and the
//! stored-gradient timeline, checked against the numbers of the graph worked
//! out by hand (closed forms), never against the renderer's own output.

use autodiff_core::{Label, Numbers, RenderLimits, Scalar, ScalarAutodiffError, Tape, Timeline};

type Result<T = ()> = std::result::Result<T, ScalarAutodiffError>;

const X: f64 = 2.0;

/// Chapter 14's reused square at x = 2: square = x*x, loss = square + square.
fn reused_square(tape: &Tape) -> Result<[Scalar<'_>; 3]> {
    let x = tape.variable(X)?.labeled(Label::named("x"));
    let square = x.mul(x)?.labeled(Label::at_line("square", 3));
    let loss = square.add(square)?.labeled(Label::at_line("loss", 4));
    Ok([x, square, loss])
}

/// The rows of the text table that follows the line `title`, split on
/// whitespace, header first.
fn section<'a>(text: &'a str, title: &str) -> Vec<Vec<&'a str>> {
    text.lines()
        .skip_while(|line| *line != title)
        .skip(1)
        .take_while(|line| !line.is_empty())
        .map(|line| line.split_whitespace().collect())
        .collect()
}

fn number(cell: &str) -> f64 {
    cell.parse()
        .unwrap_or_else(|_| panic!("`{cell}` is not a number"))
}

#[test]
fn reused_square_ledger_reads_like_chapter_14() -> Result {
    let tape = Tape::new();
    let [_, _, loss] = reused_square(&tape)?;
    let pass = loss.backward()?;
    let text = pass.to_text();

    // loss = 2x²: dloss/dsquare = 1 + 1, dloss/dx = 2 · 2x = 4x.
    let cards = section(&text, "node cards, forward order");
    assert_eq!(cards.len(), 1 + 3, "{text}");
    let expected_cards = [
        ("x", "variable", X, 4.0 * X, ""),
        ("square", "mul", X * X, 2.0, "x, x"),
        ("loss", "add", 2.0 * X * X, 1.0, "square, square"),
    ];
    for (order, (row, (name, operation, value, adjoint, uses))) in
        cards[1..].iter().zip(expected_cards).enumerate()
    {
        assert_eq!(row[0], order.to_string());
        assert_eq!((row[1], row[2]), (name, operation));
        assert_eq!(number(row[3]), value);
        assert_eq!(number(row[4]), adjoint, "pass adjoint of {name}");
        assert_eq!(number(row[5]), adjoint, "stored gradient after one pass");
        assert_eq!(row[6..].join(" "), uses);
    }

    // Four edges in reverse order: loss's two uses of square, then square's
    // two uses of x. Local derivatives 1, 1, x, x; upstream 1, 1, 2, 2.
    let ledger = section(&text, "reverse ledger, one row per operand edge");
    assert_eq!(ledger.len(), 1 + 4, "{text}");
    let expected_edges = [
        ("loss", "0", "square", X * X, 1.0, 1.0, 1.0, 1.0),
        ("loss", "1", "square", X * X, 1.0, 1.0, 1.0, 2.0),
        ("square", "0", "x", X, X, 2.0, 2.0 * X, 2.0 * X),
        ("square", "1", "x", X, X, 2.0, 2.0 * X, 4.0 * X),
    ];
    for (order, (row, expected)) in ledger[1..].iter().zip(expected_edges).enumerate() {
        let (consumer, operand_use, operand, value, local, upstream, contribution, after) =
            expected;
        assert_eq!(
            row[..4],
            [&*order.to_string(), consumer, operand_use, operand]
        );
        let numbers: Vec<f64> = row[4..].iter().map(|cell| number(cell)).collect();
        assert_eq!(numbers, [value, local, upstream, contribution, after]);
    }
    let contributions: Vec<f64> = ledger[1..].iter().map(|row| number(row[7])).collect();
    assert_eq!(contributions, [1.0, 1.0, 4.0, 4.0]);
    Ok(())
}

#[test]
fn header_names_output_value_seed_and_counts() -> Result {
    let tape = Tape::new();
    let [_, _, loss] = reused_square(&tape)?;
    let pass = loss.backward_with_seed(0.5)?;
    let first = pass.to_text().lines().next().map(str::to_owned);
    assert_eq!(
        first.as_deref(),
        Some("reverse pass from loss = 8.000000000000, seed 0.500000000000: 3 nodes, 4 operand edges")
    );
    // A seed scales every row: x's adjoint is 0.5 · 4x.
    let text = pass.to_text();
    let cards = section(&text, "node cards, forward order");
    assert_eq!(number(cards[1][4]), 0.5 * 4.0 * X);
    assert_eq!(format!("{pass}"), text, "Display is the text view");
    Ok(())
}

#[test]
fn unlabelled_nodes_fall_back_to_index_and_operation() -> Result {
    let tape = Tape::new();
    let x = tape.variable(3.0)?;
    let y = x.mul(x)?.sin()?;
    let text = y.backward()?.to_text();
    let cards = section(&text, "node cards, forward order");
    let names: Vec<String> = cards[1..].iter().map(|row| row[1..4].join(" ")).collect();
    assert_eq!(names, ["#0 variable variable", "#1 mul mul", "#2 sin sin"]);
    Ok(())
}

#[test]
fn a_shadowed_binding_is_told_apart_by_index() -> Result {
    // let h = x * 3; let h = h * h;  both nodes are labelled `h`.
    let tape = Tape::new();
    let x = tape.variable(1.0)?.labeled(Label::named("x"));
    let h = x.mul(3.0)?.labeled(Label::named("h"));
    let h = h.mul(h)?.labeled(Label::named("h"));
    let text = h.backward()?.to_text();
    let ledger = section(&text, "reverse ledger, one row per operand edge");
    let pairs: Vec<(&str, &str)> = ledger[1..].iter().map(|row| (row[1], row[3])).collect();
    assert_eq!(pairs, [("h#2", "h#1"), ("h#2", "h#1"), ("h#1", "x")]);
    // d(9x²)/dx = 18x at 1, reached through 3 · (3 + 3).
    let cards = section(&text, "node cards, forward order");
    assert_eq!(number(cards[1][4]), 18.0);
    Ok(())
}

#[test]
fn untracked_operands_are_listed_but_skipped() -> Result {
    // x*x + detach(x)*3 at 2: value 10, only x*x reaches x (gradient 2x = 4).
    let tape = Tape::new();
    let x = tape.variable(X)?.labeled(Label::named("x"));
    let detached = x.detach()?.labeled(Label::named("detached"));
    let three = tape.constant(3.0)?.labeled(Label::named("three"));
    let loss = x
        .mul(x)?
        .labeled(Label::named("x_squared"))
        .add(detached.mul(three)?.labeled(Label::named("scaled")))?
        .labeled(Label::named("loss"));
    let pass = loss.backward()?;
    let text = pass.to_text();
    let cards = section(&text, "node cards, forward order");
    let adjoint = |name: &str| {
        cards
            .iter()
            .find(|row| row[1] == name)
            .map(|row| row[4].to_owned())
    };
    assert_eq!(adjoint("x").as_deref().map(number), Some(2.0 * X));
    assert_eq!(adjoint("detached").as_deref(), Some("untracked"));
    assert_eq!(adjoint("scaled").as_deref(), Some("untracked"));
    let ledger = section(&text, "reverse ledger, one row per operand edge");
    let skipped: Vec<&str> = ledger
        .iter()
        .filter(|row| row.ends_with(&["skipped:", "untracked"]))
        .map(|row| row[3])
        .collect();
    assert_eq!(skipped, ["scaled", "detached", "three"]);
    let dot = pass.to_dot();
    assert_eq!(dot.matches("style=dashed]").count(), 3, "{dot}");
    Ok(())
}

/// `(parent, child, use, local, upstream, contribution)` of every DOT arrow.
fn dot_edges(dot: &str) -> Vec<(String, String, usize, f64, f64, f64)> {
    dot.lines()
        .filter(|line| line.contains("->"))
        .map(|line| {
            let (arrow, attributes) = line.split_once('[').expect("attributes");
            let (parent, child) = arrow.trim().split_once(" -> ").expect("arrow");
            let label = attributes.split('"').nth(1).expect("a quoted label");
            // use k: local × upstream = contribution
            let (operand_use, rest) = label
                .trim_start_matches("use ")
                .split_once(": ")
                .expect("use");
            let (local, rest) = rest.split_once(" × ").expect("×");
            let (upstream, contribution) = rest.split_once(" = ").expect("=");
            (
                parent.to_owned(),
                child.to_owned(),
                operand_use.parse().expect("use"),
                number(local),
                number(upstream),
                number(contribution),
            )
        })
        .collect()
}

#[test]
fn dot_draws_one_arrow_per_operand_use() -> Result {
    let tape = Tape::new();
    let [_, _, loss] = reused_square(&tape)?;
    let dot = loss.backward()?.to_dot();
    assert!(dot.starts_with("digraph tape {"), "{dot}");
    let edges = dot_edges(&dot);
    let expected = [
        ("n1", "n2", 0, 1.0, 1.0, 1.0),
        ("n1", "n2", 1, 1.0, 1.0, 1.0),
        ("n0", "n1", 0, X, 2.0, 2.0 * X),
        ("n0", "n1", 1, X, 2.0, 2.0 * X),
    ];
    assert_eq!(edges.len(), 4, "{dot}");
    for (edge, (parent, child, operand_use, local, upstream, contribution)) in
        edges.iter().zip(expected)
    {
        assert_eq!(
            *edge,
            (
                parent.to_owned(),
                child.to_owned(),
                operand_use,
                local,
                upstream,
                contribution
            )
        );
    }
    // Nodes carry value and adjoint: x = 2 with adjoint 4x = 8.
    assert!(
        dot.contains("n0 [label=\"x\\nvariable = 2\\nadjoint 8\"]"),
        "{dot}"
    );
    assert!(dot.contains("adjoint 1 (seed)\", penwidth=2]"), "{dot}");

    // x * x at 3: two arrows from x, each local 3 and contribution 3.
    let tape = Tape::new();
    let x = tape.variable(3.0)?;
    let edges = dot_edges(&x.mul(x)?.backward()?.to_dot());
    assert_eq!(
        edges,
        [
            ("n0".to_owned(), "n1".to_owned(), 0, 3.0, 1.0, 3.0),
            ("n0".to_owned(), "n1".to_owned(), 1, 3.0, 1.0, 3.0),
        ]
    );
    Ok(())
}

#[test]
fn dot_escapes_quotes_in_labels() -> Result {
    let tape = Tape::new();
    let x = tape
        .variable(1.0)?
        .labeled(Label::named("say \"hi\" \\ there"));
    let y = x.exp()?;
    let dot = y.backward()?.to_dot();
    assert!(
        dot.contains("label=\"say \\\"hi\\\" \\\\ there\\n"),
        "{dot}"
    );
    Ok(())
}

/// Splits a Markdown table line into cells, honouring `\|` escapes.
fn markdown_cells(line: &str) -> Option<Vec<String>> {
    let inner = line.strip_prefix('|')?.strip_suffix('|')?;
    let mut cells = vec![String::new()];
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next() {
                    cells.last_mut()?.push(next);
                }
            }
            '|' => cells.push(String::new()),
            c => cells.last_mut()?.push(c),
        }
    }
    Some(cells.into_iter().map(|c| c.trim().to_owned()).collect())
}

#[test]
fn markdown_tables_are_well_formed() -> Result {
    let tape = Tape::new();
    let x = tape.variable(X)?.labeled(Label::named("|x|"));
    let square = x.mul(x)?.labeled(Label::named("square"));
    let loss = square.add(square)?.labeled(Label::named("loss"));
    let markdown = loss.backward()?.to_markdown();

    let tables: Vec<Vec<&str>> = markdown
        .split("\n\n")
        .map(|block| {
            block
                .lines()
                .filter(|l| l.starts_with('|'))
                .collect::<Vec<_>>()
        })
        .filter(|lines| !lines.is_empty())
        .collect();
    assert_eq!(tables.len(), 2, "{markdown}");
    let (cards, ledger) = (&tables[0], &tables[1]);
    assert_eq!((cards.len(), ledger.len()), (2 + 3, 2 + 4), "{markdown}");
    for table in [cards, ledger] {
        let header = markdown_cells(table[0]).expect("header row");
        let separator = markdown_cells(table[1]).expect("separator row");
        assert_eq!(separator.len(), header.len());
        assert!(separator.iter().all(|cell| cell == "---" || cell == "---:"));
        for row in &table[2..] {
            assert_eq!(
                markdown_cells(row).map(|c| c.len()),
                Some(header.len()),
                "{row}"
            );
        }
    }
    let header = markdown_cells(ledger[0]).expect("header");
    assert_eq!(
        header,
        [
            "reverse",
            "consumer",
            "use",
            "operand",
            "operand value",
            "local derivative",
            "upstream adjoint",
            "contribution",
            "operand adjoint after",
        ]
    );
    // Numeric columns are right-aligned, names left-aligned.
    let alignment = markdown_cells(ledger[1]).expect("separator");
    assert_eq!(alignment[1], "---");
    assert_eq!(alignment[7], "---:");
    // The label's pipes are escaped, so the cell still reads `|x|`.
    let rows: Vec<Vec<String>> = ledger[2..]
        .iter()
        .filter_map(|l| markdown_cells(l))
        .collect();
    let operands: Vec<&str> = rows.iter().map(|r| r[3].as_str()).collect();
    assert_eq!(operands, ["square", "square", "|x|", "|x|"]);
    let contributions: Vec<f64> = rows.iter().map(|r| number(&r[7])).collect();
    assert_eq!(contributions, [1.0, 1.0, 4.0, 4.0]);
    Ok(())
}

/// h = x + x + … + x (n terms): n nodes, 2(n − 1) edges, and adjoint 1 at
/// every sum, n at x.
fn long_sum(tape: &Tape, n: usize) -> Result<Scalar<'_>> {
    let x = tape.variable(0.5)?.labeled(Label::named("x"));
    let mut h = x;
    for _ in 1..n {
        h = h.add(x)?;
    }
    Ok(h)
}

#[test]
fn a_big_graph_prints_a_summary_not_a_dump() -> Result {
    let tape = Tape::new();
    let n = 1000;
    let h = long_sum(&tape, n)?;
    let pass = h.backward()?;
    let text = pass.to_text();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..3],
        [
            "reverse pass from #999 add = 500.000000000000, seed 1.000000000000",
            "too large to list: 1000 nodes (limit 200), 1998 operand edges (limit 400)",
            "reached: tracked nodes 1000, leaves 1",
        ],
        "{text}"
    );
    // x collects one contribution per sum node (n in all); every sum has
    // adjoint 1, so ties keep forward order.
    assert_eq!(
        lines[3],
        "largest pass adjoints: x (#0) 1000.000000000000, #1 1.000000000000, #2 1.000000000000, #3 1.000000000000, #4 1.000000000000"
    );
    assert!(text.len() < 1000, "{} bytes", text.len());

    for (view, rendered) in [
        ("markdown", pass.to_markdown()),
        ("dot", pass.to_dot()),
        ("svg", pass.to_svg()),
    ] {
        assert!(rendered.len() < 3000, "{view}: {} bytes", rendered.len());
        assert!(
            rendered.contains("1998 operand edges (limit 400)"),
            "{view}: {rendered}"
        );
        assert!(
            !rendered.contains("->") && !rendered.contains("class=\"edge\""),
            "{view}"
        );
    }
    Ok(())
}

#[test]
fn limits_are_inclusive_and_cover_nodes_and_edges_separately() -> Result {
    let tape = Tape::new();
    // 10 nodes, 18 edges.
    let pass = long_sum(&tape, 10)?.backward()?;
    let full = |limits: RenderLimits| !pass.view().limits(limits).text().contains("too large");
    let at = RenderLimits {
        max_nodes: 10,
        max_edges: 18,
        largest_adjoints: 3,
    };
    assert!(full(at));
    assert!(!full(RenderLimits { max_nodes: 9, ..at }));
    assert!(!full(RenderLimits {
        max_edges: 17,
        ..at
    }));
    let summary = pass
        .view()
        .limits(RenderLimits {
            max_edges: 17,
            ..at
        })
        .text();
    assert!(
        summary.contains(
            "largest pass adjoints: x (#0) 10.000000000000, #1 1.000000000000, #2 1.000000000000\n"
        ),
        "{summary}"
    );
    Ok(())
}

#[test]
fn a_huge_pass_summarises_quickly() -> Result {
    let tape = Tape::new();
    let n = 300_000;
    let h = long_sum(&tape, n)?;
    let pass = h.backward()?;
    let summary = pass.summary(2);
    assert_eq!(
        (summary.nodes, summary.edges, summary.leaves),
        (n, 2 * (n - 1), 1)
    );
    assert_eq!(summary.largest_adjoints[0].2, n as f64);
    assert!(pass.to_svg().len() < 3000);
    Ok(())
}

#[test]
fn numbers_format_as_asked() {
    assert_eq!(Numbers::Fixed(12).format(8.0), "8.000000000000");
    assert_eq!(Numbers::Fixed(2).format(-1.005), "-1.00");
    let s = Numbers::Significant(6);
    assert_eq!(s.format(0.0), "0");
    assert_eq!(s.format(-0.0), "0");
    assert_eq!(s.format(1.587431271430), "1.58743");
    assert_eq!(s.format(-2.5), "-2.5");
    assert_eq!(s.format(123456.0), "123456");
    assert_eq!(s.format(1234567.0), "1.23457e6");
    assert_eq!(s.format(99999.4), "99999.4");
    assert_eq!(s.format(0.000123456789), "0.000123457");
    assert_eq!(s.format(1.5e-9), "1.5e-9");
    assert_eq!(s.format(-1e-7), "-1e-7");
    assert_eq!(s.format(1e300), "1e300");
    assert_eq!(
        Numbers::Significant(0).format(7.4),
        "7",
        "at least one digit"
    );
    assert_eq!(
        Numbers::Significant(usize::MAX).format(0.1),
        "0.10000000000000001"
    );
    assert_eq!(
        Numbers::Fixed(usize::MAX).format(0.5).len(),
        "0.".len() + 30
    );
}

#[test]
fn timeline_separates_pass_adjoints_from_stored_gradients() -> Result {
    let tape = Tape::new();
    let [x, square, loss] = reused_square(&tape)?;
    let mut timeline = Timeline::new([x, square, loss]);
    assert_eq!(timeline.names(), ["x", "square", "loss"]);
    let first = timeline.step("first pass committed", || loss.backward())?;
    // The pass itself reports fresh adjoints, whatever is stored.
    assert_eq!(first.pass_adjoint(x.index()), Some(4.0 * X));
    timeline.step("second pass accumulated", || loss.backward())?;
    loss.zero_grad();
    timeline.record("stored gradients zeroed");
    let restored = timeline.step("one fresh pass restored", || loss.backward())?;
    assert_eq!(restored.pass_adjoint(x.index()), Some(4.0 * X));
    let rejected = timeline.step("NaN seed rejected", || loss.backward_with_seed(f64::NAN));
    assert!(matches!(
        rejected,
        Err(ScalarAutodiffError::NonFiniteSeed { .. })
    ));

    let one = [4.0 * X, 2.0, 1.0];
    let expected: [[f64; 3]; 5] = [one, one.map(|g| 2.0 * g), [0.0; 3], one, one];
    for (step, gradients) in timeline.steps().iter().zip(expected) {
        let stored: Vec<f64> = step.gradients.iter().map(|g| g.expect("tracked")).collect();
        assert_eq!(stored, gradients, "{}", step.caption);
    }
    assert_eq!(
        timeline.steps()[4].rejected.as_deref(),
        Some("backward seed NaN must be finite")
    );
    assert!(timeline.steps()[..4].iter().all(|s| s.rejected.is_none()));

    let text = timeline.to_text();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(rows[0], ["step", "x", "square", "loss", "outcome"]);
    assert_eq!(
        rows[2],
        [
            "second",
            "pass",
            "accumulated",
            "16.000000000000",
            "4.000000000000",
            "2.000000000000",
            "ok"
        ]
    );
    assert!(text
        .lines()
        .last()
        .is_some_and(|l| l.ends_with("rejected: backward seed NaN must be finite")));

    let markdown = timeline.to_markdown();
    assert_eq!(markdown.lines().count(), 2 + 5);
    assert!(
        markdown.starts_with("| step | x | square | loss | outcome |\n|---|---:|---:|---:|---|\n")
    );

    let svg = timeline.to_svg();
    assert_eq!(svg.matches("class=\"step\"").count(), 5);
    // Second card: all three changed; the rejected card: none did.
    let cards: Vec<&str> = svg.split("class=\"step\"").skip(1).collect();
    let bold_values = |card: &str| card.matches("font-weight=\"bold\" fill=").count();
    assert_eq!(
        cards.iter().map(|c| bold_values(c)).collect::<Vec<_>>(),
        [0, 3, 3, 3, 0]
    );
    assert!(
        cards[4].contains("#b03030"),
        "a rejected step is outlined in red"
    );
    Ok(())
}

#[test]
fn timeline_shows_untracked_scalars_as_such() -> Result {
    let tape = Tape::new();
    let x = tape.variable(1.0)?;
    let c = tape.constant(2.0)?;
    let y = x.mul(c)?;
    let mut timeline = Timeline::new([x, c]).numbers(Numbers::Significant(3));
    timeline.step("pass", || y.backward())?;
    assert_eq!(timeline.steps()[0].gradients, [Some(2.0), None]);
    assert_eq!(timeline.names(), ["#0 variable", "#1 constant"]);
    let text = timeline.to_text();
    assert!(
        text.lines().nth(1).is_some_and(
            |l| l.split_whitespace().collect::<Vec<_>>() == ["pass", "2", "untracked", "ok"]
        ),
        "{text}"
    );
    Ok(())
}

/// Attribute `name` of the first element in `tag`.
fn attribute(tag: &str, name: &str) -> Option<f64> {
    let start = tag.find(&format!(" {name}=\""))? + name.len() + 3;
    tag[start..].split('"').next()?.parse().ok()
}

/// Checks that every opened element is closed in order.
fn assert_balanced(svg: &str) {
    let mut stack: Vec<&str> = Vec::new();
    for piece in svg.split('<').skip(1) {
        let tag = piece.split('>').next().expect("tag end");
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(stack.pop(), Some(name.trim()), "closing {name}");
        } else if !tag.ends_with('/') {
            let name = tag.split_whitespace().next().expect("tag name");
            stack.push(name);
        }
    }
    assert!(stack.is_empty(), "unclosed {stack:?}");
}

#[derive(Debug, Clone, Copy)]
struct Rect {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl Rect {
    fn overlaps(&self, other: &Rect) -> bool {
        self.x < other.x + other.w
            && other.x < self.x + self.w
            && self.y < other.y + other.h
            && other.y < self.y + self.h
    }
}

/// Node boxes by tape index.
fn node_boxes(svg: &str) -> Vec<(usize, Rect)> {
    svg.split("<g class=\"node\"")
        .skip(1)
        .map(|part| {
            let index = attribute(part, "data-index").expect("index") as usize;
            let rect = &part[part.find("<rect").expect("rect")..];
            let get = |name| attribute(rect, name).expect(name);
            (
                index,
                Rect {
                    x: get("x"),
                    y: get("y"),
                    w: get("width"),
                    h: get("height"),
                },
            )
        })
        .collect()
}

#[test]
fn svg_is_well_formed_and_laid_out_without_overlaps() -> Result {
    // micrograd's neuron: o = tanh(x1 w1 + x2 w2 + b); 10 nodes, 9 edges.
    let tape = Tape::new();
    let named = Label::named;
    let x1 = tape.variable(2.0)?.labeled(named("x1"));
    let x2 = tape.variable(0.0)?.labeled(named("x2"));
    let w1 = tape.variable(-3.0)?.labeled(named("w1"));
    let w2 = tape.variable(1.0)?.labeled(named("w2"));
    let b = tape.variable(6.881_373_587_019_543)?.labeled(named("b"));
    let n = x1.mul(w1)?.add(x2.mul(w2)?)?.add(b)?.labeled(named("n"));
    let o = n.tanh()?.labeled(named("o"));
    let pass = o.backward()?;
    let svg = pass.to_svg();
    assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
    assert_balanced(&svg);

    let boxes = node_boxes(&svg);
    assert_eq!(boxes.len(), 10);
    for (i, (a, ra)) in boxes.iter().enumerate() {
        for (b, rb) in &boxes[i + 1..] {
            assert!(!ra.overlaps(rb), "nodes {a} and {b} overlap: {ra:?} {rb:?}");
        }
    }
    let width = attribute(&svg, "width").expect("width");
    let height = attribute(&svg, "height").expect("height");
    for (index, r) in &boxes {
        assert!(
            r.x >= 0.0 && r.y >= 0.0 && r.x + r.w <= width && r.y + r.h <= height,
            "node {index} off the canvas"
        );
    }
    let rect_of = |index: usize| {
        boxes
            .iter()
            .find(|(i, _)| *i == index)
            .map(|(_, r)| *r)
            .expect("box")
    };

    // One path per operand edge, leaving the operand's right side and
    // arriving on the consumer's left side, within both boxes' heights.
    let edges: Vec<&str> = svg.split("<path class=\"edge\"").skip(1).collect();
    assert_eq!(edges.len(), 9);
    for edge in &edges {
        let from = attribute(edge, "data-from").expect("from") as usize;
        let to = attribute(edge, "data-to").expect("to") as usize;
        let d = edge
            .split(" d=\"")
            .nth(1)
            .and_then(|d| d.split('"').next())
            .expect("d");
        let point = |token: &str| -> (f64, f64) {
            let (x, y) = token[1..].split_once(',').expect("x,y");
            (number(x), number(y))
        };
        let tokens: Vec<&str> = d.split_whitespace().collect();
        let (sx, sy) = point(tokens[0]);
        let (ex, ey) = point(tokens[tokens.len() - 1]);
        let (rf, rt) = (rect_of(from), rect_of(to));
        assert!(
            (sx - (rf.x + rf.w)).abs() < 0.11 && sy > rf.y && sy < rf.y + rf.h,
            "{d}"
        );
        assert!(
            (ex - rt.x).abs() < 0.11 && ey > rt.y && ey < rt.y + rt.h,
            "{d}"
        );
    }

    // Edge labels (12px monospace, 0.6em per character) never overlap each
    // other or a node box.
    let labels: Vec<Rect> = svg
        .split("<text ")
        .skip(1)
        .filter(|t| t.contains("text-anchor=\"end\""))
        .map(|t| {
            let content = t
                .split('>')
                .nth(1)
                .and_then(|c| c.split('<').next())
                .expect("text");
            let w = content.chars().count() as f64 * 7.2;
            let x = attribute(&format!(" {t}"), "x").expect("x");
            let y = attribute(&format!(" {t}"), "y").expect("y");
            Rect {
                x: x - w,
                y: y - 10.0,
                w,
                h: 12.0,
            }
        })
        .collect();
    assert_eq!(labels.len(), 9);
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            assert!(!a.overlaps(b), "labels overlap: {a:?} {b:?}");
        }
        for (index, r) in &boxes {
            assert!(!a.overlaps(r), "label {a:?} covers node {index}");
        }
    }
    // The labels state micrograd's gradients: d o/d n = 1 − tanh²(n) = 0.5,
    // so w1 receives x1 · 0.5 = 1 and x1 receives w1 · 0.5 = −1.5.
    assert!(svg.contains(">use 0: -3 × 0.5 = -1.5<"), "{svg}");
    assert!(svg.contains(">use 1: 2 × 0.5 = 1<"), "{svg}");
    Ok(())
}

#[test]
fn svg_escapes_markup_in_labels() -> Result {
    let tape = Tape::new();
    let x = tape.variable(1.0)?.labeled(Label::named("a<b & \"c\""));
    let svg = x.exp()?.backward()?.to_svg();
    assert!(svg.contains(">a&lt;b &amp; &quot;c&quot;<"), "{svg}");
    assert_balanced(&svg);
    Ok(())
}

#[test]
fn rendering_changes_nothing_on_the_tape() -> Result {
    let tape = Tape::new();
    let [x, square, loss] = reused_square(&tape)?;
    let pass = loss.backward()?;
    let before = [x, square, loss].map(|s| (s.value().to_bits(), s.gradient().map(f64::to_bits)));
    let _ = (
        pass.to_text(),
        pass.to_markdown(),
        pass.to_dot(),
        pass.to_svg(),
    );
    let after = [x, square, loss].map(|s| (s.value().to_bits(), s.gradient().map(f64::to_bits)));
    assert_eq!(before, after);
    assert_eq!(tape.len(), 3);
    Ok(())
}

#[test]
fn a_long_timeline_wraps_into_rows_of_cards_that_do_not_overlap() -> Result {
    let tape = Tape::new();
    let x = tape.variable(3.0)?.labeled(Label::named("x"));
    let y = x.mul(x)?.labeled(Label::named("y"));
    let mut timeline = Timeline::new([x, y]);
    assert_eq!(timeline.to_text().trim_end(), "step  x  y  outcome");
    assert!(
        timeline.to_svg().ends_with("</svg>\n"),
        "an empty timeline still draws"
    );
    for k in 1..=12 {
        timeline.step(format!("pass {k}"), || y.backward())?;
    }
    // Each pass adds dy/dx = 2x = 6 to x's stored gradient.
    let x_stored: Vec<Option<f64>> = timeline.steps().iter().map(|s| s.gradients[0]).collect();
    let expected: Vec<Option<f64>> = (1..=12).map(|k| Some(6.0 * k as f64)).collect();
    assert_eq!(x_stored, expected);

    let svg = timeline.to_svg();
    assert_balanced(&svg);
    let width = attribute(&svg, "width").expect("width");
    let height = attribute(&svg, "height").expect("height");
    let cards: Vec<Rect> = svg
        .split("<g class=\"step\">")
        .skip(1)
        .map(|card| {
            let get = |name| attribute(card, name).expect(name);
            Rect {
                x: get("x"),
                y: get("y"),
                w: get("width"),
                h: get("height"),
            }
        })
        .collect();
    assert_eq!(cards.len(), 12);
    let rows: std::collections::BTreeSet<u64> = cards.iter().map(|c| c.y.to_bits()).collect();
    assert_eq!(rows.len(), 3, "12 cards in rows of 5");
    for (i, a) in cards.iter().enumerate() {
        assert!(a.x >= 0.0 && a.y >= 0.0 && a.x + a.w <= width && a.y + a.h <= height);
        for b in &cards[i + 1..] {
            assert!(!a.overlaps(b), "{a:?} {b:?}");
        }
    }
    // Arrows join neighbours within a row only: 4 + 4 + 1.
    assert_eq!(svg.matches("marker-end=").count(), 9);
    Ok(())
}

/// Deterministic pseudo-random numbers (a 64-bit LCG), so the graph below is
/// the same on every run.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn a_tangled_graph_at_the_limit_still_lays_out_cleanly() -> Result {
    // 12 leaves, then sums and products of random earlier nodes (long edges
    // across many layers, repeated operands), squashed by tanh to stay finite.
    let tape = Tape::new();
    let mut rng = Lcg(14);
    let mut nodes: Vec<Scalar<'_>> = (0..12)
        .map(|k| tape.variable(0.1 * k as f64 - 0.5))
        .collect::<Result<_>>()?;
    while nodes.len() < 120 {
        let a = nodes[rng.below(nodes.len())];
        let b = nodes[nodes.len() - 1 - rng.below(nodes.len().min(6))];
        let node = match rng.below(3) {
            0 => a.add(b)?,
            1 => a.mul(b)?.tanh()?,
            _ => a.mul(a)?,
        };
        nodes.push(node);
    }
    let mut output = nodes[nodes.len() - 1];
    for &node in &nodes[12..] {
        output = output.add(node)?; // reach everything
    }
    let pass = output.backward()?;
    let summary = pass.summary(0);
    let limits = RenderLimits {
        max_nodes: summary.nodes,
        max_edges: summary.edges,
        largest_adjoints: 0,
    };
    let svg = pass.view().limits(limits).svg();
    assert_balanced(&svg);
    let boxes = node_boxes(&svg);
    assert_eq!(boxes.len(), summary.nodes);
    assert_eq!(svg.matches("<path class=\"edge\"").count(), summary.edges);
    for (i, (a, ra)) in boxes.iter().enumerate() {
        for (b, rb) in &boxes[i + 1..] {
            assert!(!ra.overlaps(rb), "nodes {a} and {b} overlap");
        }
    }
    let labels: Vec<Rect> = svg
        .split("<text ")
        .skip(1)
        .filter(|t| t.contains("text-anchor=\"end\""))
        .map(|t| {
            let content = t
                .split('>')
                .nth(1)
                .and_then(|c| c.split('<').next())
                .expect("text");
            let w = content.chars().count() as f64 * 7.2;
            let x = attribute(&format!(" {t}"), "x").expect("x");
            let y = attribute(&format!(" {t}"), "y").expect("y");
            Rect {
                x: x - w,
                y: y - 10.0,
                w,
                h: 12.0,
            }
        })
        .collect();
    assert_eq!(labels.len(), summary.edges);
    for (i, a) in labels.iter().enumerate() {
        for b in &labels[i + 1..] {
            assert!(!a.overlaps(b), "labels overlap: {a:?} {b:?}");
        }
        for (index, r) in &boxes {
            assert!(!a.overlaps(r), "label {a:?} covers node {index}");
        }
    }
    Ok(())
}

#[test]
fn multi_line_labels_stay_on_one_row() -> Result {
    let tape = Tape::new();
    let x = tape.variable(1.0)?.labeled(Label::named("x"));
    let y = x
        .mul(x)?
        .labeled(Label::at_line("x\n        .mul(x)", 7))
        .exp()?
        .labeled(Label::named("y"));
    let text = y.backward()?.to_text();
    let ledger = section(&text, "reverse ledger, one row per operand edge");
    assert_eq!(ledger.len(), 1 + 3, "{text}");
    assert_eq!(ledger[1][3..5], ["x", ".mul(x)"]);
    // d exp(x²)/dx = 2x exp(x²) at 1, as the node card says.
    let cards = section(&text, "node cards, forward order");
    assert!(
        (number(cards[1][4]) - 2.0 * 1f64.exp()).abs() < 1e-12,
        "{text}"
    );
    Ok(())
}

#[test]
fn a_hub_feeding_a_deep_chain_keeps_the_svg_small() -> Result {
    // x feeds every step of a 150-step chain: routing each long edge around
    // every column would need ~ 150²/2 bend points.
    let tape = Tape::new();
    let x = tape.variable(0.3)?.labeled(Label::named("x"));
    let mut h = x;
    for _ in 0..150 {
        h = h.mul(x)?.tanh()?;
    }
    let pass = h.backward()?;
    let summary = pass.summary(0);
    assert_eq!((summary.nodes, summary.edges), (301, 450));
    let limits = RenderLimits {
        max_nodes: 400,
        max_edges: 500,
        largest_adjoints: 0,
    };
    let svg = pass.view().limits(limits).svg();
    assert_balanced(&svg);
    assert_eq!(svg.matches("<path class=\"edge\"").count(), 450);
    assert!(
        svg.contains("long edges drawn direct"),
        "the fallback says so"
    );
    assert!(svg.len() < 500 * 1024, "{} bytes", svg.len());
    // A shallow graph keeps its routed long edges and says nothing.
    let tape = Tape::new();
    let [_, _, loss] = reused_square(&tape)?;
    assert!(!loss.backward()?.to_svg().contains("drawn direct"));
    Ok(())
}
