//! See the tape: print the node cards and the reverse ledger of one backward
//! pass, and write the graph as SVG and Graphviz DOT.
//!
//! ```text
//! cargo run --example inspect                       # chapter 14's reused square
//! cargo run --example inspect -- neuron             # a function from the list
//! cargo run --example inspect -- neuron --out pics  # pictures under ./pics
//! cargo run --example inspect -- --markdown        # tables as Markdown
//! cargo run --example inspect -- --list
//! ```
//!
//! The reused square also prints and draws chapter 14's second view: stored
//! gradients across commit, repeat, zero, restore and a rejected request.
//! `cargo run --example inspect -- reused-square --out docs` regenerates the
//! pictures the README embeds.

use std::fmt;
use std::io::Write;
use std::path::{Path, PathBuf};

use autodiff::prelude::*;
use autodiff::Timeline;

/// The functions this example can show, with what each one teaches.
pub const FUNCTIONS: [(&str, &str); 5] = [
    (
        "reused-square",
        "chapter 14: square = x*x, loss = square + square at x = 2 (two edges per use)",
    ),
    (
        "detach",
        "chapter 14: x*x + detach(x)*3 at x = 2 (the detached branch gets nothing)",
    ),
    (
        "nonlinear",
        "chapter 14: exp(tanh(x)) at x = 0.5 (a chain of local derivatives)",
    ),
    (
        "neuron",
        "#[differentiable] tanh(x1*w1 + x2*w2 + b), micrograd's neuron (a zero input zeroes its weight's gradient)",
    ),
    (
        "softmax-ce",
        "#[differentiable] lesson 15: cross-entropy of softmax([1, 2, 0.5]) for class 1 (gradient = softmax - one-hot)",
    ),
];

/// What a run produced: the text for stdout and the files to write.
pub struct Rendered {
    /// The ledger (and, for the reused square, the timeline).
    pub text: String,
    /// File name and contents, to be written under the output directory.
    pub files: Vec<(String, String)>,
}

/// Why a run failed.
#[derive(Debug)]
pub enum Failure {
    /// The command line made no sense; the message says why.
    Usage(String),
    /// The engine rejected something while recording or differentiating.
    Engine(ScalarAutodiffError),
    /// The engine did something chapter 14 rules out.
    Broken(&'static str),
    /// Standard output could not be written.
    Stdout(std::io::Error),
    /// A picture could not be written.
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for Failure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Usage(message) => write!(formatter, "{message}\n\n{}", usage()),
            Self::Engine(error) => write!(formatter, "autodiff error: {error}"),
            Self::Broken(what) => write!(formatter, "engine bug: {what}"),
            Self::Stdout(error) => write!(formatter, "cannot write to standard output: {error}"),
            Self::Io(path, error) => write!(formatter, "cannot write {}: {error}", path.display()),
        }
    }
}

impl From<ScalarAutodiffError> for Failure {
    fn from(error: ScalarAutodiffError) -> Self {
        Self::Engine(error)
    }
}

/// The usage text, listing the functions.
pub fn usage() -> String {
    let mut text = String::from(
        "usage: cargo run --example inspect -- [FUNCTION] [--out DIR] [--markdown]\n       cargo run --example inspect -- --list\n\nFUNCTION (default reused-square):\n",
    );
    for (name, about) in FUNCTIONS {
        text.push_str(&format!("  {name:<14} {about}\n"));
    }
    text.push_str("\nDIR defaults to target/inspect; --markdown prints Markdown tables.\n");
    text
}

/// What the command line asked for.
#[derive(Debug, PartialEq)]
pub enum Request {
    /// Render `function` and write its pictures under `out`.
    Render {
        /// One of [`FUNCTIONS`].
        function: String,
        /// The output directory.
        out: PathBuf,
        /// Print Markdown tables instead of aligned text.
        markdown: bool,
    },
    /// Print the list of functions.
    List,
}

/// Reads the arguments (without the program name).
pub fn parse(args: &[String]) -> Result<Request, Failure> {
    let mut function = None;
    let mut out = None;
    let mut markdown = false;
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--list" | "-l" => return Ok(Request::List),
            "--markdown" | "-m" => markdown = true,
            "--help" | "-h" => return Err(Failure::Usage("inspect: see the tape".to_owned())),
            "--out" | "-o" => match args.next() {
                Some(dir) => out = Some(PathBuf::from(dir)),
                None => return Err(Failure::Usage("--out needs a directory".to_owned())),
            },
            flag if flag.starts_with('-') => {
                return Err(Failure::Usage(format!("unknown option `{flag}`")))
            }
            name if function.is_none() => {
                if !FUNCTIONS.iter().any(|(known, _)| *known == name) {
                    return Err(Failure::Usage(format!("unknown function `{name}`")));
                }
                function = Some(name.to_owned());
            }
            extra => return Err(Failure::Usage(format!("unexpected argument `{extra}`"))),
        }
    }
    Ok(Request::Render {
        function: function.unwrap_or_else(|| FUNCTIONS[0].0.to_owned()),
        out: out.unwrap_or_else(|| Path::new("target").join("inspect")),
        markdown,
    })
}

fn pass_files(
    name: &str,
    pass: &autodiff::BackwardPass<'_>,
    text: &mut String,
    markdown: bool,
) -> Vec<(String, String)> {
    text.push_str(&if markdown {
        pass.to_markdown()
    } else {
        pass.to_text()
    });
    vec![
        (format!("{name}.svg"), pass.to_svg()),
        (format!("{name}.dot"), pass.to_dot()),
    ]
}

/// micrograd's neuron.
#[differentiable]
fn neuron(x1: f64, x2: f64, w1: f64, w2: f64, b: f64) -> f64 {
    let n = x1 * w1 + x2 * w2 + b;
    n.tanh()
}

/// Cross-entropy of softmax(z0, z1, z2) for class 1: log-sum-exp minus the
/// class logit.
#[differentiable]
fn cross_entropy(z0: f64, z1: f64, z2: f64) -> f64 {
    let total = z0.exp() + z1.exp() + z2.exp();
    total.ln() - z1
}

/// The recorded value must be the plain twin's, bit for bit: both evaluate
/// the same operations in the same order.
fn same_value(recorded: f64, plain: f64) -> Result<(), Failure> {
    if recorded.to_bits() == plain.to_bits() {
        Ok(())
    } else {
        Err(Failure::Broken(
            "the tape's value differs from the plain function's",
        ))
    }
}

/// Records `function`, runs its backward pass(es) and renders them, the
/// tables as aligned text or, with `markdown`, as Markdown.
pub fn render(function: &str, markdown: bool) -> Result<Rendered, Failure> {
    let named = Label::named;
    let tape = Tape::new();
    let mut text = String::new();
    let files = match function {
        "reused-square" => {
            let x = tape.variable(2.0)?.labeled(named("x"));
            let square = x.mul(x)?.labeled(named("square"));
            let loss = square.add(square)?.labeled(named("loss"));
            let mut timeline = Timeline::new([x, square, loss]);
            let pass = timeline.step("first pass committed", || loss.backward())?;
            let mut files = pass_files(function, &pass, &mut text, markdown);
            timeline.step("second pass accumulated", || loss.backward())?;
            loss.zero_grad();
            timeline.record("stored gradients zeroed");
            timeline.step("one fresh pass restored", || loss.backward())?;
            // A rejected request is part of the story: nothing moves.
            let rejected = timeline.step("invalid seed rejected", || {
                loss.backward_with_seed(f64::NAN)
            });
            if rejected.is_ok() {
                return Err(Failure::Broken("the engine accepted a NaN seed"));
            }
            text.push_str("\nstored gradients across passes\n");
            text.push_str(&if markdown {
                format!("\n{}", timeline.to_markdown())
            } else {
                timeline.to_text()
            });
            files.push((format!("{function}-timeline.svg"), timeline.to_svg()));
            files
        }
        "detach" => {
            let x = tape.variable(2.0)?.labeled(named("x"));
            let detached = x.detach()?.labeled(named("detached"));
            let three = tape.constant(3.0)?.labeled(named("three"));
            let x_squared = x.mul(x)?.labeled(named("x_squared"));
            let scaled = detached.mul(three)?.labeled(named("scaled"));
            let loss = x_squared.add(scaled)?.labeled(named("loss"));
            pass_files(function, &loss.backward()?, &mut text, markdown)
        }
        "nonlinear" => {
            let x = tape.variable(0.5)?.labeled(named("x"));
            let t = x.tanh()?.labeled(named("t"));
            let y = t.exp()?.labeled(named("y"));
            pass_files(function, &y.backward()?, &mut text, markdown)
        }
        // The last two are written as a student writes them, and recorded
        // by `#[differentiable]`: its labels name every operation.
        "neuron" => {
            let [x1, x2, w1, w2, b] = [2.0, 0.0, -3.0, 1.0, 6.881_373_587_019_543];
            let leaf = |name, value| tape.variable(value).map(|s| s.labeled(named(name)));
            let o = neuron_tape(
                &tape,
                leaf("x1", x1)?,
                leaf("x2", x2)?,
                leaf("w1", w1)?,
                leaf("w2", w2)?,
                leaf("b", b)?,
            )?
            .labeled(named("o"));
            same_value(o.value(), neuron(x1, x2, w1, w2, b))?;
            pass_files(function, &o.backward()?, &mut text, markdown)
        }
        "softmax-ce" => {
            let z = [1.0, 2.0, 0.5];
            let z0 = tape.variable(z[0])?.labeled(named("z0"));
            let z1 = tape.variable(z[1])?.labeled(named("z1"));
            let z2 = tape.variable(z[2])?.labeled(named("z2"));
            let loss = cross_entropy_tape(&tape, z0, z1, z2)?.labeled(named("loss"));
            same_value(loss.value(), cross_entropy(z[0], z[1], z[2]))?;
            pass_files(function, &loss.backward()?, &mut text, markdown)
        }
        unknown => return Err(Failure::Usage(format!("unknown function `{unknown}`"))),
    };
    Ok(Rendered { text, files })
}

/// Parses, renders, prints the ledger to `stdout` and writes the pictures.
pub fn run(args: &[String], stdout: &mut dyn Write) -> Result<(), Failure> {
    let (function, out, markdown) = match parse(args)? {
        Request::List => {
            for (name, about) in FUNCTIONS {
                writeln!(stdout, "{name:<14} {about}").map_err(Failure::Stdout)?;
            }
            return Ok(());
        }
        Request::Render {
            function,
            out,
            markdown,
        } => (function, out, markdown),
    };
    let rendered = render(&function, markdown)?;
    write!(stdout, "{}", rendered.text).map_err(Failure::Stdout)?;
    std::fs::create_dir_all(&out).map_err(|e| Failure::Io(out.clone(), e))?;
    writeln!(stdout, "\npictures in {}:", out.display()).map_err(Failure::Stdout)?;
    for (name, contents) in &rendered.files {
        let path = out.join(name);
        std::fs::write(&path, contents).map_err(|e| Failure::Io(path.clone(), e))?;
        writeln!(stdout, "  {}", path.display()).map_err(Failure::Stdout)?;
    }
    Ok(())
}

#[allow(dead_code)] // the tests include this file as a module and call `run` directly
fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args, &mut std::io::stdout().lock()) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        // `inspect | head` closes the pipe early; that is the reader's choice.
        Err(Failure::Stdout(e)) if e.kind() == std::io::ErrorKind::BrokenPipe => {
            std::process::ExitCode::SUCCESS
        }
        Err(failure) => {
            eprintln!("{failure}");
            std::process::ExitCode::from(2)
        }
    }
}
