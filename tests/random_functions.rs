//! Random `#[differentiable]` functions, compiled in one trybuild pass and
//! checked against forward-mode dual numbers and against the tape.
//!
//! A seeded generator builds student-shaped function bodies and writes each
//! twice: once as the ordinary `f64` function under `#[differentiable]`,
//! once over a dual-number type with the same operators
//! (`tests/support/oracle.rs`, which never touches the engine).
//! The bodies use lets, reuse of a binding and of a whole subexpression,
//! `mut` parameters and `let mut x = x;`, compound assignments of every
//! kind, overwrites in loops (`s = s.tanh() * y`), `if` statements whose
//! branches assign different bindings, `let y = if c { ..; a } else { ..; b }`,
//! `let (a, b) = (b, a)`, `for` loops, `while` loops and `loop`s with
//! data-dependent trip counts (bounded by a counter), `break` with and
//! without a value, labelled `break`/`continue` out of nested loops, early
//! `return`s inside loops and branches, local arrays written by element
//! (with a counted index, `out[row] += l[idx] * x[col]; idx += 1;`), array
//! literals and `[e; n]` of tracked values, `Vec`s grown by `push` (from
//! `Vec::new()` or `vec![]`, `vec![e; n]`, `[..].to_vec()` and a `collect()` (of a
//! closure with a block for its body too) typed on
//! its `let`, their items moved by `swap`, `reverse`, `pop`, `insert`,
//! `extend_from_slice`, `sort_by` and `extend` of a `map` closure,
//! concatenated by `concat`, summed by a `for` that takes them by value
//! (`for t in v`, `for t in v.into_iter()`)
//! and by `while let Some(t) = it.next()`, in
//! bodies with early `return`s too) and read by index, also behind a
//! guard on a loop's index (`i >= 1 && i <= a.len() && a[i - 1] > k`, and
//! with `||`, or a `match` arm's guard `_ if a[i - 1] > k`), `if` values,
//! blocks
//! of `let`s and `match`es inside expressions, calls of one or two annotated helpers per file (with
//! tracked and untracked arguments, bindings that change later, in loops,
//! `h(x, x.recip())`), a
//! helper's value bound by a `let` and only passed on to a helper, a
//! vector-valued helper per file (a `Vec` or an array; the `Vec` now and
//! then a `collect()` bound by a `let` that only the return type types,
//! in the tuple-valued helper too) bound by a `let` and
//! read by index, or indexed or iterated where it is called, it or a tuple-valued
//! helper taken apart by a pattern (`let (c, w) = tvh(a, b);`), a closure bound by `let`
//! and called (its return type written or not), `max_by`/`min_by` with a comparing closure (the item, or
//! its index by `enumerate`: the argmax), `windows(k)` and
//! `chunks(k)` summed through a `map` (each window read by index or used whole: the mean of
//! its squares, max-pooling), an element through an `Option`
//! (`if let Some(v) = a.first()`, `match a.last()`, `match a.get(k)`,
//! `unwrap_or`), a
//! value passed twice to a helper (a binding, an element, an expression),
//! `for &(a, b)` patterns taking apart constant pairs,
//! parameters taken as numbers, slices, rows of rows (`w1: &[Vec<f64>]`, a
//! student's matrix, each row read as a slice is, and walked by a `for`), models and stacks of
//! models (also taken apart by a struct pattern, `let Model { w, b, .. } =
//! m1;`), a plain helper's value as an index (`a[ix_top(&a)]`, and the
//! model's plain method `self.w[self.top()]`), a plain helper of an
//! `enumerate`'s index as a weight (`t * rank_weight(j)`), and every
//! elementary function.
//!
//! At random points the generated program asserts that
//! - `f_adjoint`, the compiled path, answers (`Some`, leaving its stack
//!   empty) wherever the tape answers, with `f_grad`'s value and gradient;
//!   where the tape returns an error, `f_grad` returns the same error;
//!   and that it ran no helper's `f_vjp` on the tape inside;
//! - `f_grad`'s value equals the plain twin's and the dual twin's bit for
//!   bit, every gradient component matches the dual tangent to 1e−9 of the
//!   path magnitude (and to the smallest normal number where the dual's
//!   chain products fell below it), and the tape's to 1e−12.
//!
//! A function whose body the compiled adjoint does not compile yet has no
//! `f_adjoint`: a glob-imported stand-in of the same name (an explicit item
//! shadows a glob import) then records the fallback instead of failing the
//! build, and the run prints how many functions compiled and how many fell
//! back, with the constructs the fallen-back ones use.
//!
//! Arguments of `ln`, `sqrt`, `recip`, division and `powf` are kept
//! positive by construction (`e·e + 0.5`), `tanh`/`sigmoid`/`exp` see
//! bounded arguments, factors of `*=` and divisors of `/=` stay near 1, and
//! every loop is bounded, so nearly every point is valid.
//!
//! Environment: `RANDOM_FUNCTIONS_SEED=<n>` explores other functions than
//! the default set, `RANDOM_FUNCTIONS_LENIENT=1` notes a function drawn from
//! compiled constructs that keeps the tape (slow, not wrong) instead of
//! failing on it, `RANDOM_FUNCTIONS_FILES` and `RANDOM_FUNCTIONS_PER_FILE`
//! set how many (the default run is 4 × 12), for long runs outside CI.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Files, functions per file, and points per function. One file per
/// trybuild binary; a few larger files link faster than many small ones.
const FILES: usize = 4;
const FUNCTIONS: usize = 12;
const POINTS: usize = 3;

#[path = "support/xorshift.rs"]
mod xorshift;
use xorshift::Rng;

/// What this file draws beyond the shared generator.
impl Rng {
    /// A value in [lo, hi) with a short decimal form, so the source and the
    /// test agree on it exactly.
    fn value(&mut self, lo: f64, hi: f64) -> f64 {
        let steps = ((hi - lo) * 64.0) as usize;
        lo + self.below(steps) as f64 / 64.0
    }
}

#[derive(Clone, Debug)]
enum Expr {
    Var(String),
    Lit(f64),
    /// A loop index as a number, `(i as f64)`.
    Index(String),
    Neg(Box<Expr>),
    Bin(&'static str, Box<Expr>, Box<Expr>),
    /// `(e).name()`
    Method(&'static str, Box<Expr>),
    /// `(a).name(b)` for `powf`, `max`, `min`.
    Method2(&'static str, Box<Expr>, Box<Expr>),
    /// `(a).clamp(lo, hi)` (`lo` < `hi` by construction) and
    /// `(a).mul_add(b, c)`, which the dual twin reads as `a.min(hi).max(lo)`
    /// and as `a * b + c` with the fused value.
    Method3(&'static str, Box<Expr>, Box<Expr>, Box<Expr>),
    Powi(Box<Expr>, i32),
    /// `name(args)`: `relu`, `sigmoid`, and the file's helpers.
    Call(String, Vec<Expr>),
    If(Box<Cond>, Box<Expr>, Box<Expr>),
    /// `if c { stmts; a } else { stmts; b }`
    IfBlock(Box<Cond>, Vec<Stmt>, Box<Expr>, Vec<Stmt>, Box<Expr>),
    /// `({ let b0 = e0; ..; tail })`: a block as an operand.
    Lets(Vec<(String, Expr)>, Box<Expr>),
    /// `(match c { true => a, false => { let b0 = e0; tail } })`: a
    /// `match` as an operand.
    Match(Box<Cond>, Box<Expr>, Box<Expr>),
    /// `a[k]` of a local array or `Vec`.
    Elem(String, Idx),
    /// `dbg!(e)`, which the dual twin reads as `e`.
    Dbg(Box<Expr>),
    /// `p.k` of a local pair.
    Field(String, usize),
    /// `v(args)[k]`: a component of what the file's vector-valued helper
    /// returns (a `Vec` or an array), which keeps the caller on the tape.
    Component(String, Vec<Expr>, usize),
    /// `v(args).iter().map(|t| t * k).sum::<f64>()`: the helper's value
    /// iterated where the call is made.
    ComponentSum(String, Vec<Expr>, f64),
    /// An integer as written, the same in both dialects: a literal or a
    /// loop's index, for the file's helper taking integers.
    Int(String),
    /// `&a` of a local array: the argument of a helper taking a slice.
    Ref(String),
    /// `&[e0, ..]`: a slice built at the call, for a helper taking one.
    SliceLit(Vec<Expr>),
    /// `a.to_vec()` of a local array: a `Vec` made at the call, for a
    /// helper taking one by value.
    ToVec(String),
    /// `vec![e0, ..]`: a `Vec` built at the call, for a helper taking one.
    VecLit(Vec<Expr>),
    /// `*a.iter().max_by(|p, q| p.partial_cmp(q).unwrap()).unwrap()` (or
    /// `min_by`) in one of [`SELECT_FORMS`] forms: over `.copied()`, the
    /// `Option` copied, or the argmax (`enumerate()`) read by index or by
    /// item, through `.unwrap().0`, `.map(|(i, _)| i)` or a closure taking
    /// the pair apart, and over computed items (`.map(|p| *p * *p)`).
    Select(&'static str, String, u8),
    /// `a.windows(k).map(|w| ..).sum::<f64>()` (or `chunks(k)`, the flag),
    /// the window read as [`window_body`]'s form says.
    Windows(String, usize, bool, u8),
    /// An element through an `Option`: `if let Some(v) = a.first()`
    /// (0), `match a.last()` (1) or `match a.get(k)` with `Some(&v)` (2),
    /// `a.last().copied().unwrap_or(e)` (3), `*a.get(k).unwrap_or(&e)`
    /// (4), `*a.last().unwrap()` (5), `a.first().copied().unwrap()` (6) or
    /// `a.get(k + 1).copied().unwrap_or(e)` (7), and the value when there
    /// is none; for names ending in an even digit, (0) is `if let
    /// Some(&v) = a.iter().max_by(..)` and (6) a `match` on
    /// `a.iter().copied().min_by(..)`.
    Element(String, usize, usize, f64),
    /// A reduction over the items of a slice, array or `Vec`, as course
    /// code writes it: `a.iter().map(|t| t * t).sum::<f64>()` (0), a dot
    /// product `a.iter().zip(b.iter()).map(|(p, q)| p * q).sum::<f64>()`
    /// (1, with the second name; 4, the same with `zip(&b[..])`; 5, with
    /// `a.iter().skip(1)`), `a.iter().fold(k, |acc, t| acc * 0.5 + t)` (2),
    /// the mean `a.iter().sum::<f64>() / a.len() as f64` (3; or of
    /// `a.iter().skip(1).take(8).sum::<f64>() + a[0]`), a sum
    /// numbered from the end, `a.iter().rev().enumerate()` (6), `map` then
    /// `fold` naming their items alike (7), a fold into a pair (8), a
    /// `map` closure binding its item again (9), the file's vector helper
    /// of two numbers indexed in a `map` closure, `b` its name (10), two
    /// `map`s in a row (11), `a.iter().skip(1).step_by(2).sum::<f64>()`
    /// (12), `a.iter().copied().map(f64::tanh).sum::<f64>()` (13), a `filter`
    /// taking `enumerate`'s pair apart (14), one comparing a `zip`'s sides (15),
    /// `a.iter().filter(|&&t| t > k).map(|t| t.sin())` (16),
    /// `a.iter().copied().reduce(f64::max).unwrap()` (17), a `map`
    /// reduced by a closure (18), a fold into an index and the best value
    /// so far, `(0, f64::NEG_INFINITY)` (19).
    /// With `true`, an array's items taken by `into_iter()` where (0), (9)
    /// and (11) take `iter()`'s.
    Reduce(usize, String, String, f64, bool),
}

/// A window's method (`windows`, `chunks`) and what a window adds, by
/// `form`: `w[0] * w[k - 1]` (0), `(w[1] - w[0]).powi(2)` (1), or the
/// window used whole, the mean of its squares (2) or its largest item,
/// max-pooling (3).
fn window_body(k: usize, chunks: bool, form: u8, dialect: Dialect) -> (&'static str, String) {
    let how = if chunks { "chunks" } else { "windows" };
    let body = match (form, dialect) {
        (0, _) => format!("w[0] * w[{}]", k - 1),
        (1, _) => "(w[1] - w[0]).powi(2)".to_owned(),
        (2, Dialect::Plain) => "w.iter().map(|t| t * t).sum::<f64>() / w.len() as f64".to_owned(),
        (2, Dialect::Dual) => {
            "w.iter().fold(D::c(-0.0), |s, t| s + *t * *t) / D::c(w.len() as f64)".to_owned()
        }
        (_, Dialect::Plain) => "w.iter().cloned().fold(f64::MIN, f64::max)".to_owned(),
        (_, Dialect::Dual) => "w.iter().fold(D::c(f64::MIN), |m, t| m.max(*t))".to_owned(),
    };
    (how, body)
}

/// An index into an array or `Vec`: always in bounds by construction.
#[derive(Clone, Debug)]
enum Idx {
    Const(usize),
    /// A loop index or a counter.
    Var(String),
    /// `i % n`
    Mod(String, usize),
    /// `row * n + col`
    Flat(String, usize, String),
    /// `ix_top(&a)`: the position of the largest item of the list read,
    /// found by a plain helper (`autodiff-macros/src/lower/by_use.rs`).
    Top(String),
}

#[derive(Clone, Debug)]
enum Cond {
    Cmp(Expr, &'static str, Expr),
    /// A counter against a bound: `n < 8`.
    Count(String, &'static str, usize),
    And(Box<Cond>, Box<Cond>),
    Or(Box<Cond>, Box<Cond>),
    /// `a.iter().all(|v| *v op k)` (or `any`), `a.iter().filter(|v| **v
    /// op k).count() >= 1`, or `a.iter().position(|v| *v op k).unwrap_or(0)
    /// < 1`: a closure with no derivative.
    Items(&'static str, String, &'static str, f64),
    /// `i >= 1 && i <= a.len() && a[i - 1] op k`, or with `||` `i < 1 ||
    /// i > a.len() || a[i - 1] op k`: an element read only where the left
    /// side lets the condition reach it (`true` for `&&`).
    Guarded(bool, String, String, &'static str, f64),
}

#[derive(Clone, Debug)]
enum Place {
    Var(String),
    Elem(String, Idx),
    /// `p.k` of a local pair.
    Field(String, usize),
}

#[derive(Clone, Debug)]
enum Stmt {
    /// `let mut acc = 0.0; for &tv in a.iter() { acc += match tv { tv if
    /// tv > k => tv * tv, tv if tv < -k => -tv, tv => 0.1 * tv }; }`: a
    /// piecewise function of each item, a `match` with guards on the item.
    ForMatch {
        acc: String,
        list: String,
        k: f64,
        borrowed: bool,
    },
    /// `let mut acc = 0.0; for &t in ids { acc += list[t] * (t as f64 +
    /// 1.0); }` over a token-id parameter (`for t in ids` when the `Vec`
    /// is taken by value, which moves it).
    ForIds {
        acc: String,
        ids: String,
        list: String,
        by_value: bool,
    },
    /// `let mut acc = 0.0; for w in a.windows(k) { acc += w[..]; }` (or
    /// `chunks(k)`), the window read as in [`Expr::Windows`]; with
    /// `enumerated`, `for (q, w) in a.windows(k).enumerate()` and the
    /// window's term weighted by `q + 1`. For some accumulators' names
    /// the size is a `let` of its own (`a.windows(acc_n)`).
    ForWindows {
        acc: String,
        list: String,
        k: usize,
        chunks: bool,
        form: u8,
        enumerated: bool,
    },
    Let(String, Expr),
    LetMut(String, Expr),
    /// `let mut x = x;`
    Rebind(String),
    /// `let a = &m.w; let b = a;`: a model's weights borrowed by one
    /// `let` and read through another (`b[k]`).
    AliasWeights(String, String, String),
    /// `let Model { w: mw, b: mb_ref, .. } = m;` then `let mb = *mb_ref;`:
    /// a model taken apart by a struct pattern.
    ModelParts(String, String, String),
    /// `v = v.iter().map(|t| (t * k).sin()).collect();`: a `Vec` assigned
    /// whole from a chain over itself (a residual step written as one).
    CollectAssign(String, f64),
    Assign(Place, &'static str, Expr),
    /// `let mut a = [e0, e1, ..];`
    Array(String, Vec<Expr>),
    /// `let v = if c { vec![a0, a1] } else { vec![b0, b1, b2] };`: a `Vec`
    /// each arm gives with a length of its own.
    VecChosen(String, Cond, Vec<Expr>, Vec<Expr>),
    /// `let m = [[e00, e01, ..], [e10, ..], ..];` then `let s = m[i][j] *
    /// m[k][l] + m[p][q];`: a nested array literal (a rotation's matrix),
    /// read by constant indices into the number `s`. With `true`, the
    /// matrix is taken apart by a pattern first (`let [[m_0_0, m_0_1], ..]
    /// = m;`) and `s` reads the names.
    ///
    /// With the last flag (a matrix of the top level whose name ends in
    /// an even digit), its rows are `Vec`s and `s` sums, over two trips,
    /// the row a search picks by the trip's column, borrowed by that index
    /// (`let r = &m[b];`, k-means' nearest centre), which the next trip
    /// changes before the reverse sweep.
    Matrix(
        String,
        String,
        Vec<Vec<Expr>>,
        [(usize, usize); 3],
        bool,
        bool,
    ),
    /// `let mut qs = Vec::new(); for _ in 0..n { qs.push(call); }` then
    /// `let y = qs[0][k] * qs[n - 1][l];`: a vector call's values pushed as
    /// rows and read by two indices.
    PushRows(String, Expr, usize, String, usize, usize),
    /// `let lg = mvh(a, b);` (the file's matrix helper, two rows of two)
    /// then `let mut s = 0.0; for t in 0..2 { let row = &lg[t]; s +=
    /// row[0] * row[1] + row[t]; }`: a helper's matrix walked row by row,
    /// each row borrowed by the loop's index (the course's logits); by
    /// the name of `s`, the rows walked instead (`for row in &lg`,
    /// `lg.iter().map(|row| ..).sum()`), or the matrix made again by
    /// nested `map`s, each row a `collect` of its own.
    MatrixRows(String, Vec<Expr>, String),
    /// `let mut ms = [[0.0; len]; 2];` (or `vec![vec![0.0; len]; 2]`, by
    /// the flag) then `ms[i] = call;` and `let y = ms[i][k] + ms[1 -
    /// i][l];`: a vector call's value assigned to a row.
    RowAssign(String, Expr, usize, bool, usize, String, usize, usize),
    /// A running maximum or minimum from an infinity, as a nearest centre
    /// is written: `let mut best = f64::NEG_INFINITY; let mut terms = [0.0;
    /// n]; for c in 0..n { terms[c] = e * (c + 1); if terms[c] > best {
    /// best = terms[c]; } }`; by `form` the candidate is `terms[c]`, a
    /// `let t`, or taken by `best = best.max(t)`; `max` or not.
    RunningExtreme(String, String, usize, Expr, usize, bool),
    /// `let mut a = [e; n];`
    Repeat(String, Expr, usize),
    /// `let mut v = Vec::new();`
    VecNew(String),
    /// `let mut v = vec![e; n];`
    VecRepeat(String, Expr, usize),
    /// `let mut v = [e0, ..].to_vec();`
    ToVec(String, Vec<Expr>),
    /// `let mut v = [e; n].to_vec();`
    RepeatToVec(String, Expr, usize),
    /// `let a = [e0, ..]; let mut v: Vec<f64> = a.iter().map(|t| t * k).collect();`
    CollectTyped(String, String, Vec<Expr>, f64),
    Push(String, Expr),
    /// `v.swap(i, j);` (constant indices within the length)
    SwapItems(String, usize, usize),
    /// `v.reverse();`
    ReverseItems(String),
    /// `let t = v.pop().unwrap();`
    PopItem(String, String),
    /// `v.insert(i, e);`
    InsertItem(String, usize, Expr),
    /// `v.extend_from_slice(&[e0, ..]);`
    ExtendItems(String, Vec<Expr>),
    /// `v.extend_from_slice(&a);` of another local array or `Vec`
    ExtendFrom(String, String),
    /// `v.sort_by(|a, b| ..)`, ascending or descending, by `partial_cmp`
    /// or `total_cmp`
    SortItems(String, bool, bool),
    /// `let mut w = [v.clone(), vec![e0, ..]].concat();`
    Concat(String, String, Vec<Expr>),
    /// `v.extend(a.iter().map(|t| t * k));`
    ExtendMapped(String, String, f64),
    /// `v.remove(i);`, or `let t = v.remove(i);`
    RemoveItem(String, usize, Option<String>),
    /// `v.resize(n, e);`
    ResizeItems(String, usize, Expr),
    /// `v.fill(e);` (`e` bound first where it reads `v`)
    FillItems(String, Expr),
    /// `v.clear();`
    ClearItems(String),
    /// `std::mem::swap(&mut v, &mut w);`
    SwapWhole(String, String),
    /// `let mut v: Vec<f64> = v.iter().map(|t| (t * k).sin()).collect();`:
    /// a `Vec` bound again by `let` under its own name.
    RebindVec(String, f64),
    /// `let mut s = 0.0; for t in v { s += t * e; }`: `v` by value; the
    /// body may first hide `t` (see `Hide`).
    SumByValue(String, String, Expr, Hide),
    /// `let s_pairs = [(a0, b0), ..]; let mut s = 0.0; for &(pa, pb) in
    /// s_pairs.iter() { s += (e * pa + pb).sin(); }`: a pattern taking
    /// apart constant items.
    SumPairs(String, Vec<(f64, f64)>, Expr),
    /// `let mut s = 0.0; for row in w.iter() { s += row[0] * e + row[n -
    /// 1]; }`: the rows of a rows-of-rows parameter walked one by one
    /// (or, by the name, every item: `w.iter().flatten()`). With the flag,
    /// its columns: `for jc in 0..n { let mut t = 0.0; for kc in
    /// 0..w.len() { t += w[kc][jc] * w[kc][jc] * 0.5; } s += t * e; }`
    /// (`matmul`'s sum, whose reverse runs with its loops swapped).
    SumRows(String, String, usize, Expr, bool),
    /// `let mut s = 0.0; let mut it = v.iter(); while let Some(t) =
    /// it.next() { s += *t * e; }`
    SumDrained(String, String, String, Expr, Hide),
    /// `let mut n = 0;`
    Counter(String),
    /// `n += 1;`
    Tick(String),
    /// `n += xs.len() + 1 - k;` of a tracked `Vec` `xs` of length `k`: one
    /// more, counted from a length (`count += ypred.len()`).
    TickBy(String, String, usize),
    /// `for j in 0..n { acc += e * (j as f64 + 1.0); }`: a triangle over a
    /// `while`'s counter `n`, a range whose bounds change.
    Triangle(String, String, Expr),
    /// `'label: for i in 0..n { .. }`
    For(Option<String>, String, usize, Vec<Stmt>),
    While(Option<String>, Cond, Vec<Stmt>),
    Loop(Option<String>, Vec<Stmt>),
    /// `let y = 'label: loop { .. };`, left by `break value`.
    LetLoop(String, Option<String>, Vec<Stmt>),
    If(Cond, Vec<Stmt>, Vec<Stmt>),
    Break(Option<String>, Option<Expr>),
    Continue(Option<String>),
    Return(Expr),
    /// `let (mut? a, mut? b) = (b, a);`
    Swap(String, String, bool, bool),
    /// `(a, b) = (b, e);`, or `[a, b] = [b, e];`, `e` reading both (`(a *
    /// k + b).tanh()`): a destructuring assignment of two `mut` numbers.
    SwapAssign(String, String, Expr, bool),
    /// `for i in 0..v.len() { v[i] = v[i] * k + e; }`: a `Vec`'s items
    /// rewritten over a range of its length (which a loop around may run
    /// again, and a `push` may change).
    UpdateItems(String, String, f64, Expr),
    /// `for o in v.iter_mut() { *o = *o * k + e; }` (`e` not reading `v`):
    /// the same through `iter_mut`, which both paths read as an index loop.
    WriteItems(String, f64, Expr),
    /// `let mut w = vec![e0, ..]; for (j, o) in w.iter_mut().enumerate() {
    /// *o = (*o * k).sin() + e * (j as f64 + 1.0); } let y = w[0] * w[last];`
    /// (or without `enumerate`): a fresh `Vec` written through `iter_mut`,
    /// which stays compiled (nothing grows it afterwards).
    WriteFresh {
        w: String,
        items: Vec<Expr>,
        k: f64,
        e: Expr,
        enumerate: bool,
        /// Written as `w.iter_mut().for_each(|o| ..)`, the closure form
        /// both paths read as the `for` it means.
        closure: bool,
        /// The term summed by an inner loop first (`let mut sqw = 0.0;
        /// for rw in 0..2 { sqw += e * (rw + 1); } *o = .. + sqw;`), a
        /// GMM's way.
        inner: bool,
        y: String,
    },
    /// `#[cfg(not(any()))] { .. }` (compiled in) or `#[cfg(any())] { .. }`
    /// (compiled out, and left out of the dual twin).
    Cfg(bool, Vec<Stmt>),
    /// `#[allow(unused_variables)]` on a `let`.
    Allowed(Box<Stmt>),
    /// `let mut p = (a, b);`
    Pair(String, Expr, Expr),
    /// `p = (a, b);`
    SetPair(String, Expr, Expr),
    /// `let (a, b) = p;`
    Unpair(String, String, String),
    /// `let act = |t: f64| e;` (with `true`, `|t: f64| -> f64 { e }`),
    /// called as `act(e)`.
    Closure(String, Expr, bool),
    /// `let at = |k: usize| e;` (with `true`, `-> f64 { e }`), `e` reading
    /// a tracked list at `k` (and `(k + 1) % n`), called with literal
    /// indices: its calls give tracked values though no argument is one.
    IndexClosure(String, Expr, bool),
    /// `let [u, v] = vh(a, b);` or `let (c, w) = tvh(a, b);`: a pattern
    /// (as written) bound to a vector-valued call (see `call_value`).
    Destructure(String, Expr),
    /// `let mut w_st = (0.0, vec![0.0; 2]); w_st = tvh(a, b); let c =
    /// w_st.0; let w = [w_st.1[0], w_st.1[1]];`: the tuple helper's value
    /// assigned whole to a tuple kept as a state (an LSTM's `(h, c)`),
    /// then read by its fields; `c` absent where it is not wanted.
    TupleState(Option<String>, String, Expr),
    /// An MLP's layer loop over a `Vec` assigned whole with another
    /// length each layer: `let mut h = vec![a, b]; for k in 0..n { let mut
    /// next = Vec::new(); for j in 0..k + 1 { let mut s = e; for i in
    /// 0..h.len() { s += h[i] * e; } next.push((s * 0.5).tanh()); } h =
    /// next; }`, now and then `h = vh(h[0], h[n - 1]);` (the file's
    /// vector helper, a `Vec` of 3), then `let y = h[0] + h[last];`; half
    /// of them build `h` by `push` and push onto it after each layer.
    LayerLoop(Box<LayerLoop>),
    /// The file's methods on `Model` called on a stack's layers.
    StackCall(Box<StackCall>),
}

/// How a statement calls the file's methods on the layers of a stack of
/// models `ms`.
#[derive(Clone, Debug)]
enum StackCall {
    /// `let mut acc = a; for layer in ITER { acc = layer.mix(acc, e); }`.
    Fold {
        stack: String,
        iter: StackIter,
        layer: String,
        acc: String,
        a: Expr,
        e: Expr,
    },
    /// `let layer = &ms[k]; let y = layer.mix(a, b);` (the last layer
    /// `let layer = ms.last().unwrap();`), or with `layer`
    /// `None`, `let y = ms[k].mix(a, b);`; with `read`, `.. + 0.0`: where
    /// compiled in a loop, a branch or a body with `return`, a call's
    /// binding never read keeps the tape (a documented refusal: whether it
    /// is a number is not known there).
    One {
        stack: String,
        k: usize,
        layer: Option<String>,
        y: String,
        a: Expr,
        b: Expr,
        read: bool,
    },
    /// `let y = ms.iter().map(|l| l.mix(a, b)).sum::<f64>();`: a closure
    /// whose item is a model.
    Sum {
        stack: String,
        y: String,
        a: Expr,
        b: Expr,
    },
    /// `let y = m1.mix(a, b);`: the method called on a model parameter
    /// itself, which the dual sweep calls through the method's dual pair;
    /// with `read`, `.. + 0.0`, as for [`StackCall::One`].
    Model {
        model: String,
        y: String,
        a: Expr,
        b: Expr,
        read: bool,
    },
    /// `let d = [l0, l1, l2]; let h = ms[k].mv(&d); let y = h[0] * h[2];`:
    /// a layer given data (literals), whose adjoint its caller marks
    /// unused.
    Data {
        stack: String,
        k: usize,
        d: String,
        h: String,
        y: String,
        data: [Expr; 3],
    },
    /// `let mut h = vec![a, b, c]; for layer in ITER { h = layer.mv(&h);
    /// } let y = h[0] * h[2];`: a `Vec` the vector-valued method rebinds.
    Layers {
        stack: String,
        iter: StackIter,
        layer: String,
        h: String,
        y: String,
        exprs: [Expr; 3],
    },
}

/// How a `for` walks a stack's layers.
#[derive(Clone, Copy, Debug)]
enum StackIter {
    /// `for layer in ms`.
    Slice,
    /// `for layer in ms.iter()`.
    Iter,
    /// `for layer in &ms[..]`.
    Range,
    /// `for (layer_k, layer) in ms.iter().enumerate()`.
    Enumerate,
    /// `for (layer, _layer_z) in ms.iter().zip(ms.iter().skip(1))`: a model
    /// beside another, each side of a `zip`.
    Zip,
}

impl StackIter {
    fn render(self, stack: &str) -> String {
        match self {
            StackIter::Slice => stack.to_owned(),
            StackIter::Iter => format!("{stack}.iter()"),
            StackIter::Range => format!("&{stack}[..]"),
            StackIter::Enumerate => format!("{stack}.iter().enumerate()"),
            StackIter::Zip => format!("{stack}.iter().zip({stack}.iter().skip(1))"),
        }
    }

    /// The `for`'s pattern binding `layer`.
    fn pattern(self, layer: &str) -> String {
        match self {
            StackIter::Enumerate => format!("({layer}_k, {layer})"),
            StackIter::Zip => format!("({layer}, _{layer}_z)"),
            _ => layer.to_owned(),
        }
    }
}

/// The names and expressions of a [`Stmt::LayerLoop`].
#[derive(Clone, Debug)]
struct LayerLoop {
    /// `h`, `next`, `k`, `j`, `i`, `s`, `y`.
    names: [String; 7],
    layers: usize,
    /// The two first items, the bias and the weight.
    exprs: [Expr; 4],
    /// The vector helper assigned to `h` after the loop.
    call: Option<String>,
    /// The vector helper `h` starts as (`let mut h = vh(a, b);`), which
    /// the loop then assigns whole.
    first: Option<String>,
}

/// How a loop over items named `t` hides `t` before it sums: not at
/// all, by `let t = t * k;`, or inside a block (`let a = { let t = e; t *
/// t }; s += t * a;`), where the reverse must not read the item for the
/// block's `t`.
#[derive(Clone, Debug)]
enum Hide {
    No,
    Rebind(f64),
    Block(Expr),
    /// In the sum's operand: `s += { let t = (t * k).sin(); t * t } * e;`,
    /// the block's `let` reading the item it hides.
    Operand(f64),
}

#[derive(Clone, Copy, PartialEq)]
enum Dialect {
    /// Plain `f64`, for `#[differentiable]`.
    Plain,
    /// The `D` dual-number wrapper: literals become `D::c(..)`.
    Dual,
}

/// The statements of `hide` at the top of a loop body over items `t`
/// (read as `item`), and what the sum then multiplies.
fn render_hide(out: &mut String, pad: &str, hide: &Hide, item: &str, dialect: Dialect) -> String {
    match hide {
        Hide::No => item.to_owned(),
        Hide::Rebind(k) => {
            let k = render(&Expr::Lit(*k), dialect);
            let _ = writeln!(out, "{pad}    let t = {item} * {k};");
            "t".to_owned()
        }
        Hide::Block(e) => {
            let e = render(e, dialect);
            let _ = writeln!(out, "{pad}    let a = {{ let t = {e}; t * t }};");
            format!("{item} * a")
        }
        Hide::Operand(k) => {
            let k = render(&Expr::Lit(*k), dialect);
            format!("{{ let t = ({item} * {k}).sin(); t * t }}")
        }
    }
}

fn render(expr: &Expr, dialect: Dialect) -> String {
    let r = |e: &Expr| render(e, dialect);
    match expr {
        Expr::Var(name) => name.clone(),
        Expr::Lit(v) => match dialect {
            Dialect::Plain => format!("({v:?}_f64)"),
            Dialect::Dual => format!("D::c({v:?})"),
        },
        Expr::Index(i) => match dialect {
            Dialect::Plain => format!("({i} as f64)"),
            Dialect::Dual => format!("D::c({i} as f64)"),
        },
        Expr::Neg(e) => format!("(-{})", r(e)),
        Expr::Bin(op, a, b) => format!("({} {op} {})", r(a), r(b)),
        Expr::Method(name, e) => format!("{}.{name}()", r(e)),
        Expr::Method2(name, a, b) => format!("{}.{name}({})", r(a), r(b)),
        Expr::Method3(name, a, b, c) => match (dialect, *name) {
            (Dialect::Plain, _) => format!("{}.{name}({}, {})", r(a), r(b), r(c)),
            (Dialect::Dual, "clamp") => format!("{}.min({}).max({})", r(a), r(c), r(b)),
            (Dialect::Dual, _) => format!("{}.mul_add({}, {})", r(a), r(b), r(c)),
        },
        Expr::Powi(e, n) => format!("{}.powi({n})", r(e)),
        Expr::Call(name, args) => format!(
            "{name}({})",
            args.iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        Expr::Int(text) => text.clone(),
        Expr::Component(name, args, k) => format!(
            "{name}({})[{k}]",
            args.iter().map(r).collect::<Vec<_>>().join(", ")
        ),
        Expr::ComponentSum(name, args, k) => {
            let args = args.iter().map(r).collect::<Vec<_>>().join(", ");
            let k = r(&Expr::Lit(*k));
            match dialect {
                Dialect::Plain => format!("{name}({args}).iter().map(|t| t * {k}).sum::<f64>()"),
                Dialect::Dual => {
                    format!("{name}({args}).iter().fold(D::c(-0.0), |s, t| s + *t * {k})")
                }
            }
        }
        Expr::Ref(name) => format!("&{name}"),
        Expr::SliceLit(items) => format!("&[{}]", render_list(items, dialect)),
        Expr::ToVec(name) => format!("{name}.to_vec()"),
        Expr::VecLit(items) => format!("vec![{}]", render_list(items, dialect)),
        Expr::If(c, a, b) => format!(
            "(if {} {{ {} }} else {{ {} }})",
            render_cond(c, dialect),
            r(a),
            r(b)
        ),
        Expr::IfBlock(c, then, a, otherwise, b) => {
            let mut out = format!("if {} {{\n", render_cond(c, dialect));
            render_block(then, dialect, 0, &mut out);
            let _ = writeln!(out, "{}\n}} else {{", r(a));
            render_block(otherwise, dialect, 0, &mut out);
            let _ = write!(out, "{}\n}}", r(b));
            out
        }
        Expr::Lets(lets, tail) => {
            let mut out = String::from("({ ");
            for (name, e) in lets {
                let _ = write!(out, "let {name} = {}; ", r(e));
            }
            let _ = write!(out, "{} }})", r(tail));
            out
        }
        // An element behind a guard, as a `match` on the index with a
        // guarded arm (`0 => b, _ if v[i - 1] > k => a, _ => b`).
        Expr::Match(c, a, b) if matches!(**c, Cond::Guarded(..)) => {
            let Cond::Guarded(and, i, name, op, k) = &**c else {
                unreachable!()
            };
            let k = r(&Expr::Lit(*k));
            let (a, b) = (r(a), r(b));
            if *and {
                format!(
                    "(match {i} {{ 0 => {b}, _ if {i} <= {name}.len() && {name}[{i} - 1] {op} {k} => {a}, _ => {b} }})"
                )
            } else {
                format!(
                    "(match {i} {{ 0 => {a}, _ if {i} > {name}.len() || {name}[{i} - 1] {op} {k} => {a}, _ => {b} }})"
                )
            }
        }
        // An arm's block as a student writes it, without parentheses.
        Expr::Match(c, a, b) => format!(
            "(match {} {{ true => {}, false => {} }})",
            render_cond(c, dialect),
            r(a),
            match &**b {
                Expr::Lets(..) => r(b)[1..r(b).len() - 1].to_owned(),
                _ => r(b),
            }
        ),
        Expr::Elem(name, idx) => format!("{name}[{}]", render_idx(idx)),
        Expr::Field(name, k) => format!("{name}.{k}"),
        Expr::Dbg(e) => match dialect {
            Dialect::Plain => format!("dbg!({})", r(e)),
            Dialect::Dual => format!("({})", r(e)),
        },
        // `D` compares by value as `f64` does: one text for both.
        Expr::Select(m, name, form) => match form {
            0 => format!("(*{name}.iter().{m}(|p, q| p.partial_cmp(q).unwrap()).unwrap())"),
            1 => format!("{name}.iter().copied().{m}(|p, q| p.partial_cmp(q).unwrap()).unwrap()"),
            2 => format!("{name}.iter().{m}(|p, q| p.partial_cmp(q).unwrap()).copied().unwrap()"),
            3 => format!(
                "{name}[{name}.iter().enumerate().{m}(|p, q| p.1.partial_cmp(q.1).unwrap()).unwrap().0]"
            ),
            4 => format!(
                "{name}[{name}.iter().enumerate().{m}(|(_, p), (_, q)| p.partial_cmp(q).unwrap()).map(|(sel_i, _)| sel_i).unwrap()]"
            ),
            5 => format!(
                "(*{name}.iter().enumerate().{m}(|&(_, p), &(_, q)| p.partial_cmp(q).unwrap()).unwrap().1)"
            ),
            6 => format!(
                "{name}.iter().enumerate().{m}(|p, q| p.1.partial_cmp(q.1).unwrap()).map(|(_, &sel_v)| sel_v).unwrap()"
            ),
            // Over computed items: the largest square, the index of the
            // item nearest 0.5.
            7 => format!("{name}.iter().map(|p| *p * *p).{m}(|p, q| p.partial_cmp(q).unwrap()).unwrap()"),
            _ => {
                let half = r(&Expr::Lit(0.5));
                format!(
                    "{name}[{name}.iter().map(|p| (*p - {half}) * (*p - {half})).enumerate().{m}(|p, q| p.1.partial_cmp(&q.1).unwrap()).unwrap().0]"
                )
            }
        },
        Expr::Windows(name, k, chunks, form) => {
            let (how, body) = window_body(*k, *chunks, *form, dialect);
            match dialect {
                Dialect::Plain => format!("{name}.{how}({k}).map(|w| {body}).sum::<f64>()"),
                Dialect::Dual => format!("{name}.{how}({k}).fold(D::c(-0.0), |s, w| s + {body})"),
            }
        }
        Expr::Reduce(how @ (0 | 9 | 11), a, _, k, true) if dialect == Dialect::Plain => {
            // The same chains over an array's items by value.
            let by_ref = render(&Expr::Reduce(*how, a.clone(), String::new(), *k, false), dialect);
            by_ref.replacen(".iter()", ".into_iter()", 1)
        }
        Expr::Reduce(how, a, b, k, _) => match (how, dialect) {
            // For some names (so every seed still draws what it drew), the
            // items of `a`, then the second list's from the end: `chain`.
            // The second list may carry no derivative (a `#[constant]`),
            // whose items the tape lifts; the dual twin folds the halves
            // in turn (its constant lists hold `f64`s), in the same order.
            (0, Dialect::Plain) if chained(a) => {
                format!("{a}.iter().chain({b}.iter().rev()).map(|t| t * t).sum::<f64>()")
            }
            (0, Dialect::Dual) if chained(a) => format!(
                "{b}.iter().rev().fold({a}.iter().fold(D::c(-0.0), |s, t| s + *t * *t), |s, t| s + *t * *t)"
            ),
            (0, Dialect::Plain) => format!("{a}.iter().map(|t| t * t).sum::<f64>()"),
            (0, Dialect::Dual) => format!("{a}.iter().fold(D::c(-0.0), |s, t| s + *t * *t)"),
            (1, Dialect::Plain) => {
                format!("{a}.iter().zip({b}.iter()).map(|(p, q)| p * q).sum::<f64>()")
            }
            // The second list borrowed rather than iterated.
            (4, Dialect::Plain) => {
                format!("{a}.iter().zip(&{b}[..]).map(|(p, q)| p * q).sum::<f64>()")
            }
            (1 | 4, Dialect::Dual) => {
                format!("{a}.iter().zip({b}.iter()).fold(D::c(-0.0), |s, (p, q)| s + *p * *q)")
            }
            // Neighbours: one side of the `zip` skips its first item.
            (5, Dialect::Plain) => {
                format!("{a}.iter().skip(1).zip({b}.iter()).map(|(p, q)| p * q).sum::<f64>()")
            }
            (5, Dialect::Dual) => format!(
                "{a}.iter().skip(1).zip({b}.iter()).fold(D::c(-0.0), |s, (p, q)| s + *p * *q)"
            ),
            // A `map` and a `fold` naming their items alike.
            (7, _) => format!(
                "{a}.iter().map(|t| t.sin()).fold({}, |acc, t| acc * {} + t * t)",
                r(&Expr::Lit(*k)),
                r(&Expr::Lit(0.5))
            ),
            // A closure whose body binds its item again.
            (9, Dialect::Plain) => {
                format!("{a}.iter().map(|t| {{ let t = t.sin(); t * t }}).sum::<f64>()")
            }
            (9, Dialect::Dual) => format!(
                "{a}.iter().map(|t| {{ let t = t.sin(); t * t }}).fold(D::c(-0.0), |s, t| s + t)"
            ),
            // Two `map`s in a row naming their items alike.
            (11, Dialect::Plain) => format!(
                "{a}.iter().map(|t| t * {}).map(|t| t.sin()).sum::<f64>()",
                r(&Expr::Lit(*k))
            ),
            (11, Dialect::Dual) => format!(
                "{a}.iter().map(|t| *t * {}).map(|t| t.sin()).fold(D::c(-0.0), |s, v| s + v)",
                r(&Expr::Lit(*k))
            ),
            // The file's vector helper (named by `b`) indexed in the
            // closure.
            (10, Dialect::Plain) => format!(
                "{a}.iter().map(|t| {b}(*t, {})[1]).sum::<f64>()",
                r(&Expr::Lit(*k))
            ),
            (10, Dialect::Dual) => format!(
                "{a}.iter().map(|t| {b}(*t, {})[1]).fold(D::c(-0.0), |s, v| s + v)",
                r(&Expr::Lit(*k))
            ),
            // A `sum` straight after adaptors.
            (12, Dialect::Plain) => format!("{a}.iter().skip(1).step_by(2).sum::<f64>()"),
            (12, Dialect::Dual) => {
                format!("{a}.iter().skip(1).step_by(2).fold(D::c(-0.0), |s, t| s + *t)")
            }
            // A `map` given a function by its path.
            (13, Dialect::Plain) if chained(a) => {
                format!("{a}.iter().chain({a}.iter().step_by(2)).copied().map(f64::tanh).sum::<f64>()")
            }
            (13, Dialect::Dual) if chained(a) => {
                format!("{a}.iter().chain({a}.iter().step_by(2)).fold(D::c(-0.0), |s, t| s + t.tanh())")
            }
            (13, Dialect::Plain) => format!("{a}.iter().copied().map(f64::tanh).sum::<f64>()"),
            (13, Dialect::Dual) => format!("{a}.iter().fold(D::c(-0.0), |s, t| s + t.tanh())"),
            // A `filter` taking `enumerate`'s pair apart, the `map`
            // ignoring the part it read.
            (14, Dialect::Plain) => format!(
                "{a}.iter().enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, t)| t * t).sum::<f64>()"
            ),
            (14, Dialect::Dual) => format!(
                "{a}.iter().enumerate().filter(|(i, _)| i % 2 == 0).fold(D::c(-0.0), |s, (_, t)| s + *t * *t)"
            ),
            // A `filter` comparing the two sides of a `zip`.
            (15, Dialect::Plain) => format!(
                "{a}.iter().zip({b}.iter()).filter(|(p, q)| p > q).map(|(p, q)| (p - q) * {}).sum::<f64>()",
                r(&Expr::Lit(*k))
            ),
            (15, Dialect::Dual) => format!(
                "{a}.iter().zip({b}.iter()).filter(|(p, q)| p > q).fold(D::c(-0.0), |s, (p, q)| s + (*p - *q) * {})",
                r(&Expr::Lit(*k))
            ),
            // `reduce(f).unwrap()` by a function's path and by a closure
            // over a `map` (the lists are never empty).
            (17, Dialect::Plain) => format!("{a}.iter().copied().reduce(f64::max).unwrap()"),
            (17, Dialect::Dual) => format!("{a}.iter().skip(1).fold({a}[0], |m, t| m.max(*t))"),
            (18, Dialect::Plain) => format!(
                "{a}.iter().map(|t| t * t).reduce(|p, q| p + q * {}).unwrap()",
                r(&Expr::Lit(*k))
            ),
            (18, Dialect::Dual) => format!(
                "{a}.iter().skip(1).fold({a}[0] * {a}[0], |p, t| p + (*t * *t) * {})",
                r(&Expr::Lit(*k))
            ),
            // A `filter` on the item copied out of its references.
            (16, Dialect::Plain) => format!(
                "{a}.iter().filter(|&&t| t > {}).map(|t| t.sin()).sum::<f64>()",
                r(&Expr::Lit(*k))
            ),
            (16, Dialect::Dual) => format!(
                "{a}.iter().filter(|&&t| t > {}).fold(D::c(-0.0), |s, t| s + t.sin())",
                r(&Expr::Lit(*k))
            ),
            // A fold into an index (an integer, which has no adjoint) and
            // the largest item so far.
            (19, _) => {
                let lowest = match dialect {
                    Dialect::Plain => "f64::NEG_INFINITY",
                    Dialect::Dual => "D::c(f64::NEG_INFINITY)",
                };
                // The closure's `if` bare, or in braces as rustfmt writes
                // it over several lines (by the sign of `k`, drawn anyway).
                let choice = "if t > bv { (i, t) } else { (bi, bv) }";
                let body = if *k > 0.0 {
                    format!("{{ {choice} }}")
                } else {
                    choice.to_owned()
                };
                format!(
                    "({a}.iter().enumerate().fold((0, {lowest}), |(bi, bv), (i, &t)| {body}).1 * {})",
                    r(&Expr::Lit(*k))
                )
            }
            // A fold into a pair.
            (8, _) => {
                let t = if dialect == Dialect::Dual { "*t" } else { "t" };
                format!(
                    "{a}.iter().fold(({}, {}), |(p, q), t| (p + {t} * q, q * {})).0",
                    r(&Expr::Lit(0.0)),
                    r(&Expr::Lit(*k)),
                    r(&Expr::Lit(0.5))
                )
            }
            // Numbered from the end: `enumerate` after `rev`.
            (6, Dialect::Plain) => format!(
                "{a}.iter().rev().enumerate().map(|(j, t)| t * rank_weight(j)).sum::<f64>()"
            ),
            (6, Dialect::Dual) => format!(
                "{a}.iter().rev().enumerate().fold(D::c(-0.0), |s, (j, t)| s + *t * D::c(rank_weight(j)))"
            ),
            (2, _) => {
                let t = if dialect == Dialect::Dual { "*t" } else { "t" };
                // For some names the items of `a`, then all but its first.
                let source = if chained(a) {
                    format!("{a}.iter().chain({a}.iter().skip(1))")
                } else {
                    format!("{a}.iter()")
                };
                format!(
                    "{source}.fold({}, |acc, t| acc * {} + {t})",
                    r(&Expr::Lit(*k)),
                    r(&Expr::Lit(0.5))
                )
            }
            // The mean; for half the names (so every seed still draws what
            // it drew) summed as its first item and a `skip`/`take` run.
            (_, Dialect::Plain) if a.len() % 2 == 0 => format!(
                "(({a}.iter().skip(1).take(8).sum::<f64>() + {a}[0]) / {a}.len() as f64)"
            ),
            (_, Dialect::Dual) if a.len() % 2 == 0 => format!(
                "(({a}.iter().skip(1).take(8).fold(D::c(-0.0), |s, t| s + *t) + {a}[0]) / D::c({a}.len() as f64))"
            ),
            (_, Dialect::Plain) => format!("({a}.iter().sum::<f64>() / {a}.len() as f64)"),
            (_, Dialect::Dual) => {
                format!("({a}.iter().fold(D::c(-0.0), |s, t| s + *t) / D::c({a}.len() as f64))")
            }
        },
        Expr::Element(name, how, k, none) => {
            let none = r(&Expr::Lit(*none));
            let two = r(&Expr::Lit(2.0));
            // For some names (so every seed draws what it drew) the
            // largest or smallest item, taken apart where it is selected.
            let selects = name.ends_with(['0', '2', '4', '6', '8']);
            let compare = "|a, b| a.partial_cmp(b).unwrap()";
            match how {
                0 if selects => format!(
                    "(if let Some(&v) = {name}.iter().max_by({compare}) {{ v }} else {{ {none} }})"
                ),
                6 if selects => format!(
                    "(match {name}.iter().copied().min_by({compare}) {{ None => {none}, Some(v) => v.sin() }})"
                ),
                0 => format!("(if let Some(v) = {name}.first() {{ *v }} else {{ {none} }})"),
                1 => format!("(match {name}.last() {{ Some(v) => *v * {two}, None => {none} }})"),
                2 => format!("(match {name}.get({k}) {{ None => {none}, Some(&v) => v.sin() }})"),
                3 => format!("({name}.last().copied().unwrap_or({none}) * {two})"),
                4 => format!("(*{name}.get({k}).unwrap_or(&{none}))"),
                7 => format!("{name}.get({k} + 1).copied().unwrap_or({none}).cos()"),
                5 => format!("(*{name}.last().unwrap() * {two})"),
                _ => format!("{name}.first().copied().unwrap().sin()"),
            }
        }
    }
}

/// Whether the reductions `Expr::Reduce` draws as (0), (2) and (13) over
/// `a` walk `a`'s items then another list's (0) or some of `a`'s again
/// (2, 13) (`a.iter().chain(..)`): by the name, which an array taken by
/// `into_iter()` (an odd last digit) never has.
fn chained(a: &str) -> bool {
    a.ends_with(['0', '2', '4', '6', '8'])
}

fn render_idx(idx: &Idx) -> String {
    match idx {
        Idx::Const(k) => k.to_string(),
        Idx::Var(i) => i.clone(),
        Idx::Mod(i, n) => format!("{i} % {n}"),
        Idx::Flat(row, n, col) => format!("{row} * {n} + {col}"),
        Idx::Top(list) => format!("ix_top(&{list})"),
    }
}

fn render_cond(cond: &Cond, dialect: Dialect) -> String {
    match cond {
        Cond::Cmp(a, op, b) => format!("{} {op} {}", render(a, dialect), render(b, dialect)),
        Cond::Count(n, op, k) => format!("{n} {op} {k}"),
        Cond::And(a, b) => format!("{} && {}", render_cond(a, dialect), render_cond(b, dialect)),
        Cond::Or(a, b) => format!(
            "({} || {})",
            render_cond(a, dialect),
            render_cond(b, dialect)
        ),
        Cond::Items(how, name, op, k) => {
            let k = render(&Expr::Lit(*k), dialect);
            match *how {
                "count" => format!("{name}.iter().filter(|v| **v {op} {k}).count() >= 1"),
                "position" => format!("{name}.iter().position(|v| *v {op} {k}).unwrap_or(0) < 1"),
                _ => format!("{name}.iter().{how}(|v| *v {op} {k})"),
            }
        }
        Cond::Guarded(and, i, name, op, k) => {
            let k = render(&Expr::Lit(*k), dialect);
            if *and {
                format!("{i} >= 1 && {i} <= {name}.len() && {name}[{i} - 1] {op} {k}")
            } else {
                format!("({i} < 1 || {i} > {name}.len() || {name}[{i} - 1] {op} {k})")
            }
        }
    }
}

fn render_list(items: &[Expr], dialect: Dialect) -> String {
    items
        .iter()
        .map(|e| render(e, dialect))
        .collect::<Vec<_>>()
        .join(", ")
}

fn label(l: &Option<String>) -> String {
    l.as_ref().map(|l| format!("{l}: ")).unwrap_or_default()
}

/// Whether the Rust text `text` names `name` (as a whole identifier).
fn mentions(text: &str, name: &str) -> bool {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| word == name)
}

fn render_block(stmts: &[Stmt], dialect: Dialect, indent: usize, out: &mut String) {
    let pad = "    ".repeat(indent);
    let r = |e: &Expr| render(e, dialect);
    for stmt in stmts {
        match stmt {
            Stmt::Let(name, e) => {
                let _ = writeln!(out, "{pad}let {name} = {};", r(e));
            }
            Stmt::LetMut(name, e) => {
                let _ = writeln!(out, "{pad}let mut {name} = {};", r(e));
            }
            Stmt::Rebind(name) => {
                let _ = writeln!(out, "{pad}let mut {name} = {name};");
            }
            Stmt::AliasWeights(model, first, second) => {
                let _ = writeln!(out, "{pad}let {first} = &{model}.w;");
                let _ = writeln!(out, "{pad}let {second} = {first};");
            }
            Stmt::ModelParts(model, w, b) => {
                let ty = match dialect {
                    Dialect::Plain => "Model",
                    Dialect::Dual => "DModel",
                };
                let _ = writeln!(out, "{pad}let {ty} {{ w: {w}, b: {b}_ref, .. }} = {model};");
                let _ = writeln!(out, "{pad}let {b} = *{b}_ref;");
            }
            Stmt::Assign(place, op, e) => {
                match place {
                    Place::Var(name) => {
                        let _ = writeln!(out, "{pad}{name} {op} {};", r(e));
                    }
                    // `D` is no primitive: its `v[0] += v[1]` borrows `v`
                    // twice, so the twin evaluates the right side first,
                    // as Rust does for `f64`.
                    Place::Elem(name, idx) if dialect == Dialect::Dual => {
                        let _ = writeln!(
                            out,
                            "{pad}{{ let r = {}; {name}[{}] {op} r; }}",
                            r(e),
                            render_idx(idx)
                        );
                    }
                    Place::Elem(name, idx) => {
                        let _ = writeln!(out, "{pad}{name}[{}] {op} {};", render_idx(idx), r(e));
                    }
                    Place::Field(name, k) => {
                        let _ = writeln!(out, "{pad}{name}.{k} {op} {};", r(e));
                    }
                }
            }
            Stmt::Array(name, items) => {
                let _ = writeln!(
                    out,
                    "{pad}let mut {name} = [{}];",
                    render_list(items, dialect)
                );
            }
            Stmt::RunningExtreme(best, terms, n, e, form, max) => {
                let (start, cmp, method) = if *max {
                    ("f64::NEG_INFINITY", ">", "max")
                } else {
                    ("f64::INFINITY", "<", "min")
                };
                let (start, zero, weight) = match dialect {
                    Dialect::Plain => (start.to_owned(), "0.0".to_owned(), "(c as f64 + 1.0)"),
                    Dialect::Dual => (
                        format!("D::c({start})"),
                        "D::c(0.0)".to_owned(),
                        "D::c(c as f64 + 1.0)",
                    ),
                };
                // Now and then (by the name's number) the extreme kept
                // beside its index, as a nearest centre is: `let mut
                // best_at = (0usize, f64::INFINITY); .. if terms[c] <
                // best_at.1 { best_at = (c, terms[c]); }`, then `let best
                // = best_at.1;`.
                if *form == 0 && best.ends_with(['3', '7']) {
                    let at = format!("{best}_at");
                    let _ = writeln!(out, "{pad}let mut {at} = (0usize, {start});");
                    let _ = writeln!(out, "{pad}let mut {terms} = [{zero}; {n}];");
                    let _ = writeln!(out, "{pad}for c in 0..{n} {{");
                    let _ = writeln!(out, "{pad}    {terms}[c] = {} * {weight};", r(e));
                    let _ = writeln!(
                        out,
                        "{pad}    if {terms}[c] {cmp} {at}.1 {{ {at} = (c, {terms}[c]); }}"
                    );
                    let _ = writeln!(out, "{pad}}}");
                    let _ = writeln!(out, "{pad}let {best} = {at}.1;");
                    continue;
                }
                let _ = writeln!(out, "{pad}let mut {best} = {start};");
                let _ = writeln!(out, "{pad}let mut {terms} = [{zero}; {n}];");
                let _ = writeln!(out, "{pad}for c in 0..{n} {{");
                let _ = writeln!(out, "{pad}    {terms}[c] = {} * {weight};", r(e));
                match form {
                    0 => {
                        let _ = writeln!(
                            out,
                            "{pad}    if {terms}[c] {cmp} {best} {{ {best} = {terms}[c]; }}"
                        );
                    }
                    1 => {
                        let _ = writeln!(out, "{pad}    let t = {terms}[c];");
                        let _ = writeln!(out, "{pad}    if t {cmp} {best} {{ {best} = t; }}");
                    }
                    _ => {
                        let _ = writeln!(out, "{pad}    {best} = {best}.{method}({terms}[c]);");
                    }
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::MatrixRows(helper, args, acc) => {
                let zero = r(&Expr::Lit(0.0));
                let (lg, t, row) = (
                    format!("{acc}_lg"),
                    format!("{acc}_t"),
                    format!("{acc}_row"),
                );
                // By the name, the helper's matrix made again by nested
                // chains, each row a `collect` of its own.
                if acc.ends_with(['7', '8', '9']) {
                    let _ = writeln!(
                        out,
                        "{pad}let {lg}_h = {helper}({});",
                        render_list(args, dialect)
                    );
                    let items = match dialect {
                        Dialect::Plain => "f64",
                        Dialect::Dual => "D",
                    };
                    let rows = if acc.ends_with('9') {
                        format!("(0..2).map(|ri| (0..2).map(|ci| {lg}_h[ri][ci] * {lg}_h[ci][ri]).collect()).collect()")
                    } else {
                        format!("{lg}_h.iter().map(|hr| hr.iter().map(|hv| *hv * *hv).collect()).collect()")
                    };
                    let _ = writeln!(out, "{pad}let {lg}: Vec<Vec<{items}>> = {rows};");
                } else {
                    let _ = writeln!(
                        out,
                        "{pad}let {lg} = {helper}({});",
                        render_list(args, dialect)
                    );
                }
                // By the name, the rows walked by a `for` over the matrix
                // or by a chain of its rows, each indexed in turn.
                if acc.ends_with(['1', '2', '3']) {
                    let _ = writeln!(out, "{pad}let mut {acc} = {zero};");
                    let _ = writeln!(out, "{pad}for {row} in &{lg} {{");
                    let _ = writeln!(out, "{pad}    {acc} += {row}[0] * {row}[1] + {row}[1];");
                    let _ = writeln!(out, "{pad}}}");
                } else if acc.ends_with(['4', '5', '6']) {
                    let _ = match dialect {
                        Dialect::Plain => writeln!(
                            out,
                            "{pad}let mut {acc} = {lg}.iter().map(|{row}| {row}[0] * {row}[1]).sum::<f64>();"
                        ),
                        Dialect::Dual => writeln!(
                            out,
                            "{pad}let mut {acc} = {lg}.iter().fold(D::c(-0.0), |fs, {row}| fs + {row}[0] * {row}[1]);"
                        ),
                    };
                } else {
                    let _ = writeln!(out, "{pad}let mut {acc} = {zero};");
                    let _ = writeln!(out, "{pad}for {t} in 0..2 {{");
                    let _ = writeln!(out, "{pad}    let {row} = &{lg}[{t}];");
                    let _ = writeln!(out, "{pad}    {acc} += {row}[0] * {row}[1] + {row}[{t}];");
                    let _ = writeln!(out, "{pad}}}");
                }
            }
            Stmt::PushRows(rows, call, n, y, k, l) => {
                let _ = writeln!(out, "{pad}let mut {rows} = Vec::new();");
                let _ = writeln!(out, "{pad}for _ in 0..{n} {{");
                // Now and then (by the name's number) the call's value
                // passed on to the helper again in the push (`qs.push(vh(
                // &vh(&s)))`, a skinning chain's `w.push(mul(w[i - 1],
                // local(x)))`), where the helper takes one slice.
                let pushed = match call {
                    Expr::Call(helper, args)
                        if matches!(args.as_slice(), [Expr::Ref(_)])
                            && rows.ends_with(['1', '3', '5', '7', '9']) =>
                    {
                        format!("{helper}(&{})", r(call))
                    }
                    _ => r(call),
                };
                let _ = writeln!(out, "{pad}    {rows}.push({pushed});");
                let _ = writeln!(out, "{pad}}}");
                let _ = writeln!(
                    out,
                    "{pad}let {y} = {rows}[0][{k}] * {rows}[{}][{l}];",
                    n - 1
                );
            }
            Stmt::RowAssign(rows, call, len, is_vec, i, y, k, l) => {
                let zero = r(&Expr::Lit(0.0));
                let zeros = if *is_vec {
                    format!("vec![vec![{zero}; {len}]; 2]")
                } else {
                    format!("[[{zero}; {len}]; 2]")
                };
                let _ = writeln!(out, "{pad}let mut {rows} = {zeros};");
                let _ = writeln!(out, "{pad}{rows}[{i}] = {};", r(call));
                let _ = writeln!(
                    out,
                    "{pad}let {y} = {rows}[{i}][{k}] + {rows}[{}][{l}];",
                    1 - i
                );
            }
            Stmt::Matrix(matrix, name, rows, [(a, b), (c, d), (e, f)], pattern, searched) => {
                let written: Vec<String> = rows
                    .iter()
                    .map(|row| format!("[{}]", render_list(row, dialect)))
                    .collect();
                if *searched {
                    let zero = match dialect {
                        Dialect::Plain => "0.0",
                        Dialect::Dual => "D::c(0.0)",
                    };
                    let cols = rows[0].len();
                    let (j, b_, i, row) = (
                        format!("{matrix}_j"),
                        format!("{matrix}_b"),
                        format!("{matrix}_i"),
                        format!("{matrix}_r"),
                    );
                    let _ = writeln!(
                        out,
                        "{pad}let {matrix} = vec![{}];",
                        written
                            .iter()
                            .map(|row| format!("vec!{row}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                    let _ = writeln!(out, "{pad}let mut {name} = {zero};");
                    let _ = writeln!(out, "{pad}for {j} in 0..2 {{");
                    let _ = writeln!(out, "{pad}    let mut {b_} = 0;");
                    let _ = writeln!(out, "{pad}    for {i} in 1..{} {{", rows.len());
                    let _ = writeln!(
                        out,
                        "{pad}        if {matrix}[{i}][{j} % {cols}] < {matrix}[{b_}][{j} % {cols}] {{ {b_} = {i}; }}"
                    );
                    let _ = writeln!(out, "{pad}    }}");
                    let _ = writeln!(out, "{pad}    let {row} = &{matrix}[{b_}];");
                    let _ = writeln!(
                        out,
                        "{pad}    {name} += {row}[{b}] * {matrix}[{c}][{d}] + {matrix}[{e}][{f}];"
                    );
                    let _ = writeln!(out, "{pad}}}");
                    continue;
                }
                // Now and then (by the name's number, alike in both twins)
                // its rows sorted by their first entry, largest first, each
                // swapped through a temporary with the row a search picks
                // (partial pivoting), the search's index bound per trip.
                let pivoted =
                    !*pattern && rows.len() > 1 && matrix.ends_with(['1', '3', '5', '7', '9']);
                if pivoted {
                    let n = rows.len();
                    let (k, p, i, t) = (
                        format!("{matrix}_k"),
                        format!("{matrix}_p"),
                        format!("{matrix}_i"),
                        format!("{matrix}_t"),
                    );
                    let _ = writeln!(out, "{pad}let mut {matrix} = [{}];", written.join(", "));
                    let _ = writeln!(out, "{pad}for {k} in 0..{} {{", n - 1);
                    let _ = writeln!(out, "{pad}    let mut {p} = {k};");
                    let _ = writeln!(out, "{pad}    for {i} in ({k} + 1)..{n} {{");
                    let _ = writeln!(
                        out,
                        "{pad}        if {matrix}[{i}][0] > {matrix}[{p}][0] {{ {p} = {i}; }}"
                    );
                    let _ = writeln!(out, "{pad}    }}");
                    let _ = writeln!(out, "{pad}    let {t} = {matrix}[{p}];");
                    let _ = writeln!(out, "{pad}    {matrix}[{p}] = {matrix}[{k}];");
                    let _ = writeln!(out, "{pad}    {matrix}[{k}] = {t};");
                    let _ = writeln!(out, "{pad}}}");
                } else {
                    let _ = writeln!(out, "{pad}let {matrix} = [{}];", written.join(", "));
                }
                let at = |i: usize, j: usize| {
                    if *pattern {
                        format!("{matrix}_{i}_{j}")
                    } else {
                        format!("{matrix}[{i}][{j}]")
                    }
                };
                if *pattern {
                    let names: Vec<String> = rows
                        .iter()
                        .enumerate()
                        .map(|(i, row)| {
                            let row: Vec<String> = (0..row.len()).map(|j| at(i, j)).collect();
                            format!("[{}]", row.join(", "))
                        })
                        .collect();
                    let _ = writeln!(out, "{pad}let [{}] = {matrix};", names.join(", "));
                }
                let _ = writeln!(
                    out,
                    "{pad}let {name} = {} * {} + {};",
                    at(*a, *b),
                    at(*c, *d),
                    at(*e, *f)
                );
            }
            Stmt::ForMatch {
                acc,
                list,
                k,
                borrowed,
            } => {
                // (`&x1` of a slice parameter would be a `&&[f64]`.)
                let source = if *borrowed {
                    format!("&{list}[..]")
                } else {
                    format!("{list}.iter()")
                };
                let (start, add) = match dialect {
                    Dialect::Plain => (
                        "0.0_f64".to_owned(),
                        format!(
                            "{acc} += match tv {{ tv if tv > {k:?} => tv * tv, tv if tv < -{k:?} => -tv, tv => 0.1 * tv }};"
                        ),
                    ),
                    Dialect::Dual => (
                        "D::c(0.0)".to_owned(),
                        format!(
                            "{acc} = {acc} + match tv {{ tv if tv > D::c({k:?}) => tv * tv, tv if tv < D::c(-{k:?}) => -tv, tv => D::c(0.1) * tv }};"
                        ),
                    ),
                };
                let _ = writeln!(out, "{pad}let mut {acc} = {start};");
                let _ = writeln!(out, "{pad}for &tv in {source} {{");
                let _ = writeln!(out, "{pad}    {add}");
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::ForIds {
                acc,
                ids,
                list,
                by_value,
            } => {
                let (start, add) = match dialect {
                    Dialect::Plain => (
                        "0.0_f64".to_owned(),
                        format!("{acc} += {list}[ti] * (ti as f64 + 1.0);"),
                    ),
                    Dialect::Dual => (
                        "D::c(0.0)".to_owned(),
                        format!("{acc} = {acc} + {list}[ti] * D::c(ti as f64 + 1.0);"),
                    ),
                };
                let pattern = if *by_value { "ti" } else { "&ti" };
                let _ = writeln!(out, "{pad}let mut {acc} = {start};");
                let _ = writeln!(out, "{pad}for {pattern} in {ids} {{");
                let _ = writeln!(out, "{pad}    {add}");
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::ForWindows {
                acc,
                list,
                k,
                chunks,
                form,
                enumerated,
            } => {
                let (how, body) = window_body(*k, *chunks, *form, dialect);
                let (start, add) = match (dialect, enumerated) {
                    (Dialect::Plain, false) => ("0.0_f64".to_owned(), format!("{acc} += {body};")),
                    (Dialect::Plain, true) => (
                        "0.0_f64".to_owned(),
                        format!("{acc} += ({body}) * rank_weight(wq);"),
                    ),
                    (Dialect::Dual, false) => {
                        ("D::c(0.0)".to_owned(), format!("{acc} = {acc} + {body};"))
                    }
                    (Dialect::Dual, true) => (
                        "D::c(0.0)".to_owned(),
                        format!("{acc} = {acc} + ({body}) * D::c(rank_weight(wq));"),
                    ),
                };
                let _ = writeln!(out, "{pad}let mut {acc} = {start};");
                // For some names (so every seed still draws what it drew)
                // the size is a binding's, not a literal
                // (`x.windows(k.len())`, a convolution's kernel): where the
                // window is read whole (forms 2 and 3, only over a slice
                // parameter), as a window of a size not written as a
                // literal always is. (A window of a local read whole in a
                // body with an early `return` keeps the tape, "a slice
                // whose items or bounds change": seed 20843 f15_9.)
                let size = if acc.ends_with(['1', '3', '5', '7', '9']) && *form >= 2 {
                    let _ = writeln!(out, "{pad}let {acc}_n: usize = {k};");
                    format!("{acc}_n")
                } else {
                    k.to_string()
                };
                // The index is not named `q`, which `min_by(|p, q| ..)`
                // binds to tracked items: the recording twin reads names,
                // not scopes, and would take `rank_weight(q)` as given a
                // tracked value (README, "Not yet").
                if *enumerated {
                    let _ = writeln!(
                        out,
                        "{pad}for (wq, w) in {list}.{how}({size}).enumerate() {{"
                    );
                } else {
                    let _ = writeln!(out, "{pad}for w in {list}.{how}({size}) {{");
                }
                let _ = writeln!(out, "{pad}    {add}");
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Repeat(name, e, n) => {
                let _ = writeln!(out, "{pad}let mut {name} = [{}; {n}];", r(e));
            }
            // Half of them `vec![]` (by the name, so the draws stay as
            // they were): both are typed by their pushes.
            Stmt::VecNew(name) if name.ends_with(['1', '3', '5', '7', '9']) => {
                let _ = writeln!(out, "{pad}let mut {name} = vec![];");
            }
            Stmt::VecNew(name) => {
                let _ = writeln!(out, "{pad}let mut {name} = Vec::new();");
            }
            Stmt::VecRepeat(name, e, n) => {
                let _ = writeln!(out, "{pad}let mut {name} = vec![{}; {n}];", r(e));
            }
            Stmt::VecChosen(name, c, a, b) => {
                let _ = writeln!(
                    out,
                    "{pad}let {name} = if {} {{ vec![{}] }} else {{ vec![{}] }};",
                    render_cond(c, dialect),
                    render_list(a, dialect),
                    render_list(b, dialect)
                );
            }
            Stmt::ToVec(name, items) => {
                let _ = writeln!(
                    out,
                    "{pad}let mut {name} = [{}].to_vec();",
                    render_list(items, dialect)
                );
            }
            Stmt::RepeatToVec(name, e, n) => {
                let _ = writeln!(out, "{pad}let mut {name} = [{}; {n}].to_vec();", r(e));
            }
            Stmt::CollectTyped(name, source, items, k) => {
                // Now and then (by the array's name) the plain twin
                // iterates the literal where it is written, `[e0,
                // ..].iter().map(..)`, which the compiled adjoint binds
                // first.
                let in_place = dialect == Dialect::Plain && literal_in_place(source);
                let source = if in_place {
                    format!("[{}]", render_list(items, dialect))
                } else {
                    source.clone()
                };
                if !in_place {
                    let _ = writeln!(
                        out,
                        "{pad}let {source} = [{}];",
                        render_list(items, dialect)
                    );
                }
                let _ = match dialect {
                    // With `k` = 1, a copy: `.cloned()` (or, where the
                    // name's length is even, `.copied()`), no `map`.
                    Dialect::Plain | Dialect::Dual if *k == 1.0 => {
                        let how = if name.len() % 2 == 0 { "copied" } else { "cloned" };
                        let ty = if dialect == Dialect::Plain { "f64" } else { "D" };
                        writeln!(
                            out,
                            "{pad}let mut {name}: Vec<{ty}> = {source}.iter().{how}().collect();"
                        )
                    }
                    // Half of them (chosen by name, so every seed still
                    // draws what it drew) with a block for the closure's
                    // body, as students write one.
                    Dialect::Plain if name.len() % 2 == 0 => writeln!(
                        out,
                        "{pad}let mut {name}: Vec<f64> = {source}.iter().map(|t| {{ let blk = t * {k:?}; blk }}).collect();"
                    ),
                    // A third of the rest (by name) consume the array they read
                    // (`into_iter()`, its items by value), as a softmax
                    // written to consume its `Vec` does.
                    Dialect::Plain if consumes_source(name) => writeln!(
                        out,
                        "{pad}let mut {name}: Vec<f64> = {source}.into_iter().map(|t| t * {k:?}).collect();"
                    ),
                    Dialect::Plain => writeln!(
                        out,
                        "{pad}let mut {name}: Vec<f64> = {source}.iter().map(|t| t * {k:?}).collect();"
                    ),
                    Dialect::Dual => writeln!(
                        out,
                        "{pad}let mut {name}: Vec<D> = {source}.iter().map(|t| *t * D::c({k:?})).collect();"
                    ),
                };
            }
            Stmt::Push(name, e) => {
                let _ = writeln!(out, "{pad}{name}.push({});", r(e));
            }
            Stmt::SwapItems(name, i, j) => {
                let _ = writeln!(out, "{pad}{name}.swap({i}, {j});");
            }
            Stmt::ReverseItems(name) => {
                let _ = writeln!(out, "{pad}{name}.reverse();");
            }
            Stmt::PopItem(name, item) => {
                let _ = writeln!(out, "{pad}let {item} = {name}.pop().unwrap();");
            }
            Stmt::RemoveItem(name, i, None) => {
                let _ = writeln!(out, "{pad}{name}.remove({i});");
            }
            Stmt::RemoveItem(name, i, Some(item)) => {
                let _ = writeln!(out, "{pad}let {item} = {name}.remove({i});");
            }
            Stmt::ResizeItems(name, n, e) if dialect == Dialect::Dual => {
                let _ = writeln!(out, "{pad}{{ let r = {}; {name}.resize({n}, r); }}", r(e));
            }
            Stmt::ResizeItems(name, n, e) => {
                let _ = writeln!(out, "{pad}{name}.resize({n}, {});", r(e));
            }
            // `fill` is a slice's method: its argument may not read the
            // `Vec` it borrows.
            Stmt::FillItems(name, e) => {
                let value = r(e);
                if dialect == Dialect::Dual || mentions(&value, name) {
                    let _ = writeln!(out, "{pad}{{ let r = {value}; {name}.fill(r); }}");
                } else {
                    let _ = writeln!(out, "{pad}{name}.fill({value});");
                }
            }
            Stmt::ClearItems(name) => {
                let _ = writeln!(out, "{pad}{name}.clear();");
            }
            Stmt::SwapWhole(a, b) => {
                let _ = writeln!(out, "{pad}std::mem::swap(&mut {a}, &mut {b});");
            }
            // `D` is no primitive: the twin evaluates the item first.
            Stmt::InsertItem(name, i, e) if dialect == Dialect::Dual => {
                let _ = writeln!(out, "{pad}{{ let r = {}; {name}.insert({i}, r); }}", r(e));
            }
            Stmt::InsertItem(name, i, e) => {
                let _ = writeln!(out, "{pad}{name}.insert({i}, {});", r(e));
            }
            Stmt::ExtendItems(name, items) => {
                let _ = writeln!(
                    out,
                    "{pad}{name}.extend_from_slice(&[{}]);",
                    render_list(items, dialect)
                );
            }
            Stmt::ExtendFrom(name, source) => {
                let _ = writeln!(out, "{pad}{name}.extend_from_slice(&{source});");
            }
            Stmt::SortItems(name, ascending, partial) => {
                let (first, second) = if *ascending { ("a", "b") } else { ("b", "a") };
                let compare = if *partial {
                    format!("{first}.partial_cmp({second}).unwrap()")
                } else {
                    format!("{first}.total_cmp({second})")
                };
                let _ = writeln!(out, "{pad}{name}.sort_by(|a, b| {compare});");
            }
            Stmt::CollectAssign(name, k) => {
                let _ = match dialect {
                    Dialect::Plain => writeln!(
                        out,
                        "{pad}{name} = {name}.iter().map(|t| (t * {k:?}).sin() + t).collect();"
                    ),
                    Dialect::Dual => writeln!(
                        out,
                        "{pad}{name} = {name}.iter().map(|t| (*t * D::c({k:?})).sin() + *t).collect();"
                    ),
                };
            }
            Stmt::RebindVec(name, k) => {
                let _ = match dialect {
                    Dialect::Plain => writeln!(
                        out,
                        "{pad}let mut {name}: Vec<f64> = {name}.iter().map(|t| (t * {k:?}).sin()).collect();"
                    ),
                    Dialect::Dual => writeln!(
                        out,
                        "{pad}let mut {name}: Vec<D> = {name}.iter().map(|t| (*t * D::c({k:?})).sin()).collect();"
                    ),
                };
            }
            Stmt::ExtendMapped(name, source, k) => {
                let _ = match dialect {
                    Dialect::Plain if source.len() % 2 == 0 => writeln!(
                        out,
                        "{pad}{name}.extend({source}.iter().map(|t| {{ let blk = t * {k:?}; blk }}));"
                    ),
                    Dialect::Plain => writeln!(
                        out,
                        "{pad}{name}.extend({source}.iter().map(|t| t * {k:?}));"
                    ),
                    Dialect::Dual => writeln!(
                        out,
                        "{pad}{name}.extend({source}.iter().map(|t| *t * D::c({k:?})));"
                    ),
                };
            }
            Stmt::SumByValue(sum, name, e, hide) => {
                let _ = writeln!(out, "{pad}let mut {sum} = {};", r(&Expr::Lit(0.0)));
                // Half of them (by the name) through `into_iter()`, the
                // same walk written out.
                if sum.ends_with(['1', '3', '5', '7', '9']) {
                    let _ = writeln!(out, "{pad}for t in {name}.into_iter() {{");
                } else {
                    let _ = writeln!(out, "{pad}for t in {name} {{");
                }
                let item = render_hide(out, &pad, hide, "t", dialect);
                let _ = writeln!(out, "{pad}    {sum} += {item} * {};", r(e));
                let _ = writeln!(out, "{pad}}}");
                // A fifth of them (by the name) bind the loop's item name
                // again after the loop, out of its scope (`let c =
                // &cs[best];` after `for (i, c) in ..`).
                if binds_item_after(sum) {
                    let _ = writeln!(out, "{pad}let t = {sum} * {};", r(&Expr::Lit(0.5)));
                    let _ = writeln!(out, "{pad}{sum} += t;");
                }
            }
            Stmt::SumPairs(sum, pairs, e) => {
                let list = pairs
                    .iter()
                    .map(|(a, b)| format!("({a:?}_f64, {b:?}_f64)"))
                    .collect::<Vec<_>>()
                    .join(", ");
                let _ = writeln!(out, "{pad}let {sum}_pairs = [{list}];");
                let _ = writeln!(out, "{pad}let mut {sum} = {};", r(&Expr::Lit(0.0)));
                let _ = writeln!(out, "{pad}for &(pa, pb) in {sum}_pairs.iter() {{");
                let _ = match dialect {
                    Dialect::Plain => {
                        writeln!(out, "{pad}    {sum} += ({} * pa + pb).sin();", r(e))
                    }
                    Dialect::Dual => writeln!(
                        out,
                        "{pad}    {sum} += ({} * D::c(pa) + D::c(pb)).sin();",
                        r(e)
                    ),
                };
                let _ = writeln!(out, "{pad}}}");
            }
            // Some (by the name) walk every item of every row instead:
            // `for fv in w.iter().flatten()`, or a chain over
            // `.flatten()` or `.flat_map(|fr| fr.iter())`.
            Stmt::SumRows(sum, rows, _, e, false) if sum.ends_with(['1', '5']) => {
                let _ = writeln!(out, "{pad}let mut {sum} = {};", r(&Expr::Lit(0.0)));
                let _ = writeln!(out, "{pad}for fv in {rows}.iter().flatten() {{");
                let _ = writeln!(out, "{pad}    {sum} += *fv * {};", r(e));
                let _ = writeln!(out, "{pad}}}");
            }
            // And some walk them twice, one walk chained after the other,
            // some numbering the items across both walks (`enumerate`).
            Stmt::SumRows(sum, rows, _, e, false) if sum.ends_with('2') => {
                let _ = writeln!(out, "{pad}let mut {sum} = {};", r(&Expr::Lit(0.0)));
                let _ = writeln!(
                    out,
                    "{pad}for fv in {rows}.iter().flatten().chain({rows}.iter().flatten()) {{"
                );
                let _ = writeln!(out, "{pad}    {sum} += *fv * {};", r(e));
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::SumRows(sum, rows, _, e, false) if sum.ends_with('8') => {
                let _ = writeln!(out, "{pad}let mut {sum} = {};", r(&Expr::Lit(0.0)));
                let _ = writeln!(
                    out,
                    "{pad}for (fq, fv) in {rows}.iter().flatten().chain({rows}.iter().flatten()).enumerate() {{"
                );
                let weight = match dialect {
                    Dialect::Plain => "rank_weight(fq)",
                    Dialect::Dual => "D::c(rank_weight(fq))",
                };
                let _ = writeln!(out, "{pad}    {sum} += *fv * {} * {weight};", r(e));
                let _ = writeln!(out, "{pad}}}");
            }
            // And some walk the rows beside themselves (`zip`), as a
            // layer's rows beside its biases or a data set's rows beside
            // their targets: each item a row, taken by index, or walked in
            // turn beside the other, numbered.
            Stmt::SumRows(sum, rows, n, e, false) if sum.ends_with('6') => {
                let _ = writeln!(out, "{pad}let mut {sum} = {};", r(&Expr::Lit(0.0)));
                if n % 2 == 0 {
                    let _ = writeln!(out, "{pad}for (row, other) in {rows}.iter().zip({rows}) {{");
                    let _ = writeln!(
                        out,
                        "{pad}    {sum} += row[0] * {} + other[{}];",
                        r(e),
                        n - 1
                    );
                } else {
                    let _ = writeln!(
                        out,
                        "{pad}for (fq, (row, other)) in {rows}.iter().zip({rows}.iter()).enumerate() {{"
                    );
                    let weight = match dialect {
                        Dialect::Plain => "rank_weight(fq)",
                        Dialect::Dual => "D::c(rank_weight(fq))",
                    };
                    let _ = writeln!(out, "{pad}    for (fa, fb) in row.iter().zip(other) {{");
                    let _ = writeln!(
                        out,
                        "{pad}        {sum} += *fa * *fb * {} * {weight};",
                        r(e)
                    );
                    let _ = writeln!(out, "{pad}    }}");
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::SumRows(sum, rows, _, e, false) if sum.ends_with(['3', '7']) => {
                let how = if sum.ends_with('3') {
                    "flatten()"
                } else {
                    "flat_map(|fr| fr.iter())"
                };
                let _ = match dialect {
                    Dialect::Plain => writeln!(
                        out,
                        "{pad}let mut {sum} = {rows}.iter().{how}.map(|fv| *fv * {}).sum::<f64>();",
                        r(e)
                    ),
                    Dialect::Dual => writeln!(
                        out,
                        "{pad}let mut {sum} = {rows}.iter().{how}.fold(D::c(-0.0), |fs, fv| fs + *fv * {});",
                        r(e)
                    ),
                };
            }
            Stmt::SumRows(sum, rows, n, e, false) => {
                let _ = writeln!(out, "{pad}let mut {sum} = {};", r(&Expr::Lit(0.0)));
                let _ = writeln!(out, "{pad}for row in {rows}.iter() {{");
                let _ = writeln!(out, "{pad}    {sum} += row[0] * {} + row[{}];", r(e), n - 1);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::SumRows(sum, rows, n, e, true) => {
                let zero = r(&Expr::Lit(0.0));
                let _ = writeln!(out, "{pad}let mut {sum} = {zero};");
                let _ = writeln!(out, "{pad}for jc in 0..{n} {{");
                let _ = writeln!(out, "{pad}    let mut {sum}_col = {zero};");
                let _ = writeln!(out, "{pad}    for kc in 0..{rows}.len() {{");
                let _ = writeln!(
                    out,
                    "{pad}        {sum}_col += {rows}[kc][jc] * {rows}[kc][jc] * {};",
                    r(&Expr::Lit(0.5))
                );
                let _ = writeln!(out, "{pad}    }}");
                let _ = writeln!(out, "{pad}    {sum} += {sum}_col * {};", r(e));
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::SumDrained(sum, it, name, e, hide) => {
                let _ = writeln!(out, "{pad}let mut {sum} = {};", r(&Expr::Lit(0.0)));
                let _ = writeln!(out, "{pad}let mut {it} = {name}.iter();");
                let _ = writeln!(out, "{pad}while let Some(t) = {it}.next() {{");
                let item = render_hide(out, &pad, hide, "*t", dialect);
                let _ = writeln!(out, "{pad}    {sum} += {item} * {};", r(e));
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Concat(name, source, items) => {
                let _ = writeln!(
                    out,
                    "{pad}let mut {name} = [{source}.clone(), vec![{}]].concat();",
                    render_list(items, dialect)
                );
            }
            Stmt::Counter(name) => {
                let _ = writeln!(out, "{pad}let mut {name} = 0;");
            }
            Stmt::Tick(name) => {
                let _ = writeln!(out, "{pad}{name} += 1;");
            }
            Stmt::TickBy(name, list, len) => {
                let _ = writeln!(out, "{pad}{name} += {list}.len() + 1 - {len};");
            }
            Stmt::For(l, i, n, body) => {
                // The same trips now and then as an inclusive range, also
                // stepped, and all but the first (none where `n` is 1),
                // from a start past 0: by the index's number, alike in
                // both twins.
                let number: usize = i
                    .trim_start_matches(|c: char| !c.is_ascii_digit())
                    .parse()
                    .unwrap_or(0);
                let mut inner = String::new();
                render_block(body, dialect, indent + 1, &mut inner);
                // A trip fewer changes no length the rest of the body
                // counts on: not where the body grows or shrinks a `Vec`
                // (seed 20598: `for i in 1..1 { v.push(..) }`, then `v[3]`).
                // Read off the plain twin's body in both twins: the dual
                // twin leaves out a `#[cfg(any())]` block, whose pushes
                // gave it another range (seed 20744).
                let mut plain_inner = String::new();
                render_block(body, Dialect::Plain, indent + 1, &mut plain_inner);
                let resizes = [
                    ".push(",
                    ".insert(",
                    ".remove(",
                    ".pop(",
                    ".extend",
                    ".truncate(",
                    ".resize(",
                    ".clear(",
                ]
                .iter()
                .any(|method| plain_inner.contains(method));
                let range = match number % 6 {
                    0 => format!("0..={}", n - 1),
                    1 => format!("(0..={}).step_by(1)", n - 1),
                    2 if !resizes => format!("1..{n}"),
                    _ => format!("0..{n}"),
                };
                let _ = writeln!(out, "{pad}{}for {i} in {range} {{", label(l));
                out.push_str(&inner);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Triangle(acc, n, e) => {
                let times = match dialect {
                    Dialect::Plain => "(j as f64 + 1.0)",
                    Dialect::Dual => "D::c(j as f64 + 1.0)",
                };
                let _ = writeln!(out, "{pad}for j in 0..{n} {{");
                let _ = writeln!(out, "{pad}    {acc} += {} * {times};", r(e));
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::While(l, c, body) => {
                let _ = writeln!(out, "{pad}{}while {} {{", label(l), render_cond(c, dialect));
                render_block(body, dialect, indent + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Loop(l, body) => {
                let _ = writeln!(out, "{pad}{}loop {{", label(l));
                render_block(body, dialect, indent + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::LetLoop(name, l, body) => {
                let _ = writeln!(out, "{pad}let {name} = {}loop {{", label(l));
                render_block(body, dialect, indent + 1, out);
                let _ = writeln!(out, "{pad}}};");
            }
            Stmt::If(c, then, otherwise) => {
                let _ = writeln!(out, "{pad}if {} {{", render_cond(c, dialect));
                render_block(then, dialect, indent + 1, out);
                if !otherwise.is_empty() {
                    let _ = writeln!(out, "{pad}}} else {{");
                    render_block(otherwise, dialect, indent + 1, out);
                }
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Break(l, value) => {
                let l = l.as_ref().map(|l| format!(" {l}")).unwrap_or_default();
                let v = value
                    .as_ref()
                    .map(|v| format!(" {}", r(v)))
                    .unwrap_or_default();
                let _ = writeln!(out, "{pad}break{l}{v};");
            }
            Stmt::Continue(l) => {
                let l = l.as_ref().map(|l| format!(" {l}")).unwrap_or_default();
                let _ = writeln!(out, "{pad}continue{l};");
            }
            Stmt::Return(e) => {
                let _ = writeln!(out, "{pad}return {};", r(e));
            }
            Stmt::Swap(a, b, ma, mb) => {
                let m = |yes: bool| if yes { "mut " } else { "" };
                let _ = writeln!(out, "{pad}let ({}{a}, {}{b}) = ({b}, {a});", m(*ma), m(*mb));
            }
            Stmt::SwapAssign(a, b, e, array) => {
                let (open, close) = if *array { ("[", "]") } else { ("(", ")") };
                let _ = writeln!(
                    out,
                    "{pad}{open}{a}, {b}{close} = {open}{b}, {}{close};",
                    r(e)
                );
            }
            Stmt::UpdateItems(name, i, k, e) => {
                let k = r(&Expr::Lit(*k));
                let _ = writeln!(
                    out,
                    "{pad}for {i} in 0..{name}.len() {{ {name}[{i}] = {name}[{i}] * {k} + {}; }}",
                    r(e)
                );
            }
            Stmt::WriteFresh {
                w,
                items,
                k,
                e,
                enumerate,
                closure,
                inner,
                y,
            } => {
                let _ = writeln!(
                    out,
                    "{pad}let mut {w} = vec![{}];",
                    render_list(items, dialect)
                );
                let k = r(&Expr::Lit(*k));
                let one = r(&Expr::Lit(1.0));
                let (pattern, walk, weight) = if *enumerate {
                    let j = match dialect {
                        Dialect::Plain => "(j as f64)".to_owned(),
                        Dialect::Dual => "D::c(j as f64)".to_owned(),
                    };
                    (
                        "(j, o)",
                        format!("{w}.iter_mut().enumerate()"),
                        format!(" * ({j} + {one})"),
                    )
                } else {
                    ("o", format!("{w}.iter_mut()"), String::new())
                };
                // `for p in walk {` or `walk.for_each(|p| {`, and the
                // matching close.
                let (open, close) = if *closure {
                    (format!("{walk}.for_each(|{pattern}| {{"), "});")
                } else {
                    (format!("for {pattern} in {walk} {{"), "}")
                };
                if *inner {
                    let rw = match dialect {
                        Dialect::Plain => "(rw as f64)".to_owned(),
                        Dialect::Dual => "D::c(rw as f64)".to_owned(),
                    };
                    let _ = writeln!(out, "{pad}{open}");
                    let _ = writeln!(out, "{pad}    let mut sqw = {};", r(&Expr::Lit(0.0)));
                    let _ = writeln!(out, "{pad}    for rw in 0..2 {{");
                    let _ = writeln!(out, "{pad}        sqw += {} * ({rw} + {one});", r(e));
                    let _ = writeln!(out, "{pad}    }}");
                    let _ = writeln!(out, "{pad}    *o = (*o * {k}).sin() + sqw{weight};");
                    let _ = writeln!(out, "{pad}{close}");
                } else {
                    let _ = writeln!(
                        out,
                        "{pad}{open} *o = (*o * {k}).sin() + {}{weight}; {close}",
                        r(e)
                    );
                }
                let _ = writeln!(out, "{pad}let {y} = {w}[0] * {w}[{}];", items.len() - 1);
            }
            Stmt::WriteItems(name, k, e) => {
                let k = r(&Expr::Lit(*k));
                let _ = writeln!(
                    out,
                    "{pad}for o in {name}.iter_mut() {{ *o = *o * {k} + {}; }}",
                    r(e)
                );
            }
            Stmt::Cfg(on, body) => {
                let attr = if *on { "not(any())" } else { "any()" };
                match dialect {
                    Dialect::Plain => {
                        let _ = writeln!(out, "{pad}#[cfg({attr})]\n{pad}{{");
                    }
                    Dialect::Dual if *on => {
                        let _ = writeln!(out, "{pad}{{");
                    }
                    Dialect::Dual => continue,
                }
                render_block(body, dialect, indent + 1, out);
                let _ = writeln!(out, "{pad}}}");
            }
            Stmt::Pair(name, a, b) => {
                let _ = writeln!(out, "{pad}let mut {name} = ({}, {});", r(a), r(b));
            }
            Stmt::SetPair(name, a, b) => {
                let _ = writeln!(out, "{pad}{name} = ({}, {});", r(a), r(b));
            }
            Stmt::Unpair(a, b, p) => {
                let _ = writeln!(out, "{pad}let ({a}, {b}) = {p};");
            }
            Stmt::Closure(name, body, typed) => {
                let ty = match dialect {
                    Dialect::Plain => "f64",
                    Dialect::Dual => "D",
                };
                let body = match typed {
                    true => format!("-> {ty} {{ {} }}", r(body)),
                    false => r(body),
                };
                let _ = writeln!(out, "{pad}let {name} = |t: {ty}| {body};");
            }
            Stmt::IndexClosure(name, body, typed) => {
                let body = match (typed, dialect) {
                    (true, Dialect::Plain) => format!("-> f64 {{ {} }}", r(body)),
                    (true, Dialect::Dual) => format!("-> D {{ {} }}", r(body)),
                    (false, _) => r(body),
                };
                let _ = writeln!(out, "{pad}let {name} = |k: usize| {body};");
            }
            Stmt::Destructure(pattern, e) => {
                let _ = writeln!(out, "{pad}let {pattern} = {};", r(e));
            }
            Stmt::TupleState(first, w, e) => {
                let zero = r(&Expr::Lit(0.0));
                let _ = writeln!(out, "{pad}let mut {w}_st = ({zero}, vec![{zero}; 2]);");
                let _ = writeln!(out, "{pad}{w}_st = {};", r(e));
                if let Some(c) = first {
                    let _ = writeln!(out, "{pad}let {c} = {w}_st.0;");
                }
                let _ = writeln!(out, "{pad}let {w} = [{w}_st.1[0], {w}_st.1[1]];");
            }
            Stmt::LayerLoop(layer_loop) => {
                let LayerLoop {
                    names: [h, next, k, j, i, s, y],
                    layers,
                    exprs: [a, b, bias, weight],
                    call,
                    first,
                } = &**layer_loop;
                // Now and then (by the name, so the draws stay as they
                // were) each layer's `next` is read by index into the
                // stream (`h = vec![next[0], next[k] * 0.5];`) and then
                // pushed whole onto a list of the layers, which `y` reads
                // too: a `Vec` grown by `push` in a loop's body and moved
                // there for good by a statement of that body, whose
                // forward saves its length alone (`take_pushed_row`).
                let taken = next.ends_with(['2', '6']);
                let rows = format!("{next}_rows");
                let last = if taken { 1 } else { layers - 1 };
                let (call, last) = match call {
                    Some(helper) => (format!("{h} = {helper}({h}[0], {h}[{last}]);"), 2),
                    None => (String::new(), last),
                };
                let half = r(&Expr::Lit(0.5));
                // Half of them (by the name, so the draws stay as they
                // were) build the stream by `push` and grow it by one
                // after each layer: a `Vec` resized and assigned whole.
                let pushed = h.ends_with(['1', '3', '5', '7', '9']);
                let start = match (first, pushed) {
                    (Some(helper), _) => format!("let mut {h} = {helper}({}, {});", r(a), r(b)),
                    (None, false) => format!("let mut {h} = vec![{}, {}];", r(a), r(b)),
                    (None, true) => {
                        format!(
                            "let mut {h} = Vec::new(); {h}.push({}); {h}.push({});",
                            r(a),
                            r(b)
                        )
                    }
                };
                let grow = if pushed {
                    format!("    {h}.push({h}[0] * {half});")
                } else {
                    String::new()
                };
                let (declare, assign, read) = if taken {
                    (
                        format!("let mut {rows} = Vec::new();"),
                        format!(
                            "    {h} = vec![{next}[0], {next}[{k}] * {half}]; {rows}.push({next});"
                        ),
                        format!(" + {rows}[{}][0]", layers - 1),
                    )
                } else {
                    (String::new(), format!("    {h} = {next};"), String::new())
                };
                let lines = [
                    start,
                    declare,
                    format!("for {k} in 0..{layers} {{"),
                    format!("    let mut {next} = Vec::new();"),
                    format!("    for {j} in 0..{k} + 1 {{"),
                    format!("        let mut {s} = {};", r(bias)),
                    format!("        for {i} in 0..{h}.len() {{"),
                    format!("            {s} += {h}[{i}] * {};", r(weight)),
                    "        }".to_owned(),
                    format!("        {next}.push(({s} * {half}).tanh());"),
                    "    }".to_owned(),
                    assign,
                    grow,
                    "}".to_owned(),
                    call,
                    format!("let {y} = {h}[0] + {h}[{last}]{read};"),
                ];
                for line in lines {
                    let _ = writeln!(out, "{pad}{line}");
                }
            }
            Stmt::StackCall(call) => {
                let lines = match &**call {
                    StackCall::Fold {
                        stack,
                        iter,
                        layer,
                        acc,
                        a,
                        e,
                    } => vec![
                        format!("let mut {acc} = {};", r(a)),
                        format!("for {} in {} {{", iter.pattern(layer), iter.render(stack)),
                        format!("    {acc} = {layer}.mix({acc}, {});", r(e)),
                        "}".to_owned(),
                    ],
                    StackCall::One {
                        stack,
                        k,
                        layer,
                        y,
                        a,
                        b,
                        read,
                    } => {
                        let plus = if *read {
                            format!(" + {}", r(&Expr::Lit(0.0)))
                        } else {
                            String::new()
                        };
                        match layer {
                            // The last layer by `last().unwrap()`.
                            Some(layer) if *k == STACK - 1 => vec![
                                format!("let {layer} = {stack}.last().unwrap();"),
                                format!("let {y} = {layer}.mix({}, {}){plus};", r(a), r(b)),
                            ],
                            Some(layer) => vec![
                                format!("let {layer} = &{stack}[{k}];"),
                                format!("let {y} = {layer}.mix({}, {}){plus};", r(a), r(b)),
                            ],
                            None => vec![format!(
                                "let {y} = {stack}[{k}].mix({}, {}){plus};",
                                r(a),
                                r(b)
                            )],
                        }
                    }
                    StackCall::Model {
                        model,
                        y,
                        a,
                        b,
                        read,
                    } => {
                        let plus = if *read {
                            format!(" + {}", r(&Expr::Lit(0.0)))
                        } else {
                            String::new()
                        };
                        vec![format!("let {y} = {model}.mix({}, {}){plus};", r(a), r(b))]
                    }
                    StackCall::Sum { stack, y, a, b } => vec![match dialect {
                        Dialect::Plain => format!(
                            "let {y} = {stack}.iter().map(|l| l.mix({}, {})).sum::<f64>();",
                            r(a),
                            r(b)
                        ),
                        Dialect::Dual => format!(
                            "let {y} = {stack}.iter().fold(D::c(-0.0), |s, l| s + l.mix({}, {}));",
                            r(a),
                            r(b)
                        ),
                    }],
                    StackCall::Data {
                        stack,
                        k,
                        d,
                        h,
                        y,
                        data: [a, b, c],
                    } => vec![
                        format!("let {d} = [{}, {}, {}];", r(a), r(b), r(c)),
                        format!("let {h} = {stack}[{k}].mv(&{d});"),
                        format!("let {y} = {h}[0] * {h}[2];"),
                    ],
                    StackCall::Layers {
                        stack,
                        iter,
                        layer,
                        h,
                        y,
                        exprs: [a, b, c],
                    } => vec![
                        format!("let mut {h} = vec![{}, {}, {}];", r(a), r(b), r(c)),
                        format!("for {} in {} {{", iter.pattern(layer), iter.render(stack)),
                        format!("    {h} = {layer}.mv(&{h});"),
                        "}".to_owned(),
                        format!("let {y} = {h}[0] * {h}[2];"),
                    ],
                };
                for line in lines {
                    let _ = writeln!(out, "{pad}{line}");
                }
            }
            Stmt::Allowed(stmt) => {
                if dialect == Dialect::Plain {
                    let _ = writeln!(out, "{pad}#[allow(unused_variables)]");
                }
                render_block(std::slice::from_ref(stmt), dialect, indent, out);
            }
        }
    }
}

/// One random function: parameter names (and which are `mut`), statements,
/// the result, and the constructs it uses.
struct Function {
    params: Vec<Param>,
    body: Vec<Stmt>,
    result: Expr,
    tags: Vec<&'static str>,
    /// Drawn from compiled constructs only: must take the compiled path.
    compiled: bool,
}

/// A generated function's parameter; by default a number.
#[derive(Clone, Default)]
struct Param {
    name: String,
    mutable: bool,
    /// A slice (`x1: &[f64]`) of this length, else a number.
    slice: Option<usize>,
    /// With `slice`, rows of rows instead, a student's matrix (`w1:
    /// &[Vec<f64>]`): [`ROWS`] rows of that length, each read as a slice
    /// parameter is (`w1[0][k]`, `w1[1].iter()`, `&w1[0]`).
    rows: bool,
    /// `#[constant]`: the values every call passes (one, or the slice's).
    constant: Option<Vec<f64>>,
    /// A model, `m1: &Model` (the file's `#[derive(Parameters)]` struct,
    /// `w: Vec<f64>` of [`MODEL_W`] items and `b: f64`), read as `m1.w[k]`
    /// and `m1.b`.
    model: bool,
    /// A stack of models, `ms1: &[Model]` of [`STACK`] layers, read as a
    /// whole by the file's annotated methods on `Model`, called on the
    /// items of a `for` over it, on `let layer = &ms1[k];` and on
    /// `ms1[k]` (see [`Stmt::StackCall`]), and as `ms1[1].b`.
    stack: bool,
    /// Token ids, no `#[constant]` (data with no `f64` passes through):
    /// `ids1: &[usize]`, or `ids1: Vec<usize>` by value (`by_value`), read
    /// by a `for` over it that indexes a list (see [`Stmt::ForIds`]).
    ids: Option<Vec<usize>>,
    by_value: bool,
}

impl Param {
    /// Whether the gradient has a component for it.
    fn differentiable(&self) -> bool {
        self.constant.is_none() && self.ids.is_none()
    }
}

/// How many layers a stack of models holds.
const STACK: usize = 2;

/// How many rows a rows-of-rows parameter holds.
const ROWS: usize = 2;

/// How many items a generated model's `w` holds.
const MODEL_W: usize = 3;

/// The model every generated file defines, and its dual twin's.
/// Its `#[constant]` field `act` is an enum, the file's `ACT` (one of
/// [`ACTS`]), which the methods read by `match` or `==`.
/// Beside it, a plain helper of any list (`ix_top`, the position of its
/// largest item) and a plain method of the model calling it (`top`),
/// whose values the bodies use as indices.
const MODEL: &str = "#[derive(Clone, Copy, Debug, PartialEq)]\npub enum Act {\n    Lin,\n    Sq,\n    Leaky(f64),\n}\n#[derive(Clone, Debug, Parameters)]\npub struct Model {\n    pub w: Vec<f64>,\n    pub b: f64,\n    #[constant]\n    pub act: Act,\n}\npub fn ix_top<T: PartialOrd>(v: &[T]) -> usize {\n    let mut k = 0;\n    for i in 1..v.len() {\n        if v[i] > v[k] {\n            k = i;\n        }\n    }\n    k\n}\npub fn rank_weight(j: usize) -> f64 {\n    j as f64 + 1.0\n}\nimpl Model {\n    pub fn top(&self) -> usize {\n        ix_top(&self.w)\n    }\n}\n";
const DUAL_MODEL: &str = "    pub struct DModel {\n        pub w: Vec<D>,\n        pub b: D,\n        pub act: super::Act,\n    }\n    pub use super::{ix_top, rank_weight};\n    impl DModel {\n        pub fn top(&self) -> usize {\n            ix_top(&self.w)\n        }\n    }\n";
const ACTS: [&str; 3] = ["Lin", "Sq", "Leaky(0.25)"];

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Scalar,
    Array(usize),
    /// A `Vec` and the length it has at least.
    Vec(usize),
    /// A pair of numbers, `(a, b)`.
    Pair,
}

struct Var {
    name: String,
    kind: Kind,
    mutable: bool,
    /// Bound once, outside every loop and branch.
    stable: bool,
}

/// An enclosing loop: its label, its index and trip count (a `for`), and
/// whether a `break` out of it carries a value.
struct Loop {
    label: Option<String>,
    index: Option<(String, usize)>,
    value: bool,
    /// A `break` or `continue` inside it so far, at any depth (a `loop`
    /// starts with one).
    jumps: bool,
    /// A vector-valued call bound inside it: no jump or `return` may
    /// follow, which would keep the tape (the compiled adjoint saves the
    /// call per trip only in a loop that runs every statement of its body).
    pinned: bool,
    /// A `return` inside it so far, at any depth.
    returns: bool,
    /// The generator's `nesting` of the statements of its body.
    body_nesting: usize,
}

/// How the file's vector-valued helper takes its two numbers.
#[derive(Clone, Copy)]
enum Takes {
    /// `vh(x0: f64, x1: f64)`.
    Numbers,
    /// `vh(x: &[f64])`, whose adjoint a compiled caller lends it.
    Slice,
    /// `vh(x: Vec<f64>)`, called with a `Vec` made at the call.
    Vec,
    /// `vh(x: &[f64], d: &[f64])`, called with one slice of the numbers
    /// and one of constants (either way round): a layer given data, whose
    /// caller marks the constant's adjoint unused.
    SliceAndData,
}

/// Names of the generated code's own (the output, its seed's stem, the
/// stack, the pair's arguments, the sites of saved values), which the
/// generator gives to locals too.
const RESERVED: [&str; 12] = [
    "value",
    "stack",
    "operand",
    "exit",
    "shape",
    "args",
    "bars",
    "saved_index",
    "seen",
    "cotangent",
    "spare",
    "answer",
];

struct Gen {
    rng: Rng,
    /// Bindings readable here, innermost last (a later one shadows).
    vars: Vec<Var>,
    loops: Vec<Loop>,
    /// The file's helpers callable here, with their arity.
    helpers: Vec<(String, usize)>,
    /// The file's vector-valued helper (two parameters) and its length.
    vector: Option<(String, usize)>,
    /// The file's helper taking a number and three integers (`usize`,
    /// `u32`, `i64`), which calls pass literals and loop indices.
    integer: Option<String>,
    /// How the vector-valued helper takes its two numbers.
    vector_takes: Takes,
    fresh: usize,
    /// How many of [`RESERVED`] the file has used.
    reserved: usize,
    tags: Vec<&'static str>,
    /// The function must take the compiled path. Otherwise it may also
    /// use constructs that keep the tape (a vector helper's call indexed
    /// in place, ..); the run counts those.
    compiled: bool,
    /// Drawing a helper's argument: only bindings that never change.
    frozen: bool,
    /// Blocks around the statement drawn.
    nesting: usize,
    /// Whether the function may `return` early.
    returns: bool,
    /// The closures bound by a top-level `let`, callable everywhere after.
    closures: Vec<String>,
    /// The index closures (`Stmt::IndexClosure`) and how many indices
    /// each takes.
    index_closures: Vec<(String, usize)>,
    /// The function's stacks of models (`ms1: &[Model]`).
    stacks: Vec<String>,
    /// The function's token-id parameters not yet moved: name, whether
    /// taken by value, the largest id.
    ids: Vec<(String, bool, usize)>,
    /// Arrays and slice parameters: what `into_iter()` copies or borrows
    /// rather than moves (the generator declares many `Vec`s as arrays of
    /// their length: a vector call's value, `rv = [..].to_vec()`).
    not_moved: Vec<String>,
    /// Slice parameters: lists that never change, over which a window may
    /// be used whole (a window of a local that changes later is bound as a
    /// slice whose items change, which keeps the tape).
    slice_params: Vec<String>,
    /// Plain numbers let-bound in blocks that have ended (see `forget`).
    gone: Vec<String>,
    /// The `Vec`s of tuple-valued calls (`let (c, w) = tvh(..);`).
    tuple_vecs: Vec<String>,
    /// The function's models (`m1: &Model`).
    models: Vec<String>,
    /// A function of numbers only (parameters, locals and calls of the
    /// file's helpers, no vectors built, no models): the shape whose
    /// `f_hvp`, `f_jvp` and `f_hessian` run the dual sweep, calls of
    /// helpers through their dual pairs among it.
    numbers_only: bool,
}

impl Gen {
    fn fresh(&mut self, stem: &str) -> String {
        self.fresh += 1;
        // Now and then (each once per file) a name the generated adjoint
        // also uses for itself: `let value = ..;` once made a binding's
        // adjoint shadow the seed (`value_bar`), a gradient of 0 as `Ok`.
        if self.fresh % 23 == 7 && self.reserved < RESERVED.len() {
            self.reserved += 1;
            self.tag("a binding named as the adjoint's own");
            return RESERVED[self.reserved - 1].to_owned();
        }
        format!("{stem}{}", self.fresh)
    }

    fn tag(&mut self, tag: &'static str) {
        if !self.tags.contains(&tag) {
            self.tags.push(tag);
        }
    }

    fn declare(&mut self, name: &str, kind: Kind, mutable: bool) {
        let stable = self.nesting == 0;
        self.vars.push(Var {
            name: name.to_owned(),
            kind,
            mutable,
            stable,
        });
    }

    /// The visible bindings (not shadowed) of one kind.
    fn visible(&self, pick: impl Fn(&Var) -> bool) -> Vec<&Var> {
        let mut out: Vec<&Var> = Vec::new();
        for (k, var) in self.vars.iter().enumerate() {
            let shadowed = self.vars[k + 1..].iter().any(|v| v.name == var.name);
            if !shadowed && pick(var) {
                out.push(var);
            }
        }
        out
    }

    /// The visible non-empty arrays and `Vec`s other than `name`, with
    /// their lengths: what `name` can be extended by.
    fn lists_besides(&self, name: &str) -> Vec<(String, usize)> {
        self.visible(|v| v.name != name && matches!(v.kind, Kind::Array(1..) | Kind::Vec(1..)))
            .into_iter()
            .map(|v| match v.kind {
                Kind::Array(n) | Kind::Vec(n) => (v.name.clone(), n),
                _ => unreachable!(),
            })
            .collect()
    }

    fn scalars(&self) -> Vec<String> {
        self.visible(|v| v.kind == Kind::Scalar)
            .into_iter()
            .map(|v| v.name.clone())
            .collect()
    }

    fn function(&mut self, arity: usize, helpers: Vec<(String, usize)>, small: bool) -> Function {
        self.vars.clear();
        self.loops.clear();
        self.tags.clear();
        self.closures.clear();
        self.index_closures.clear();
        self.stacks.clear();
        self.models.clear();
        self.ids.clear();
        self.not_moved.clear();
        self.slice_params.clear();
        self.gone.clear();
        self.tuple_vecs.clear();
        self.helpers = helpers;
        self.numbers_only = !small && self.rng.chance(15);
        if self.numbers_only {
            self.tag("numbers only");
        }
        self.compiled = small || self.rng.chance(75);
        self.returns = !self.compiled || self.rng.chance(50);
        self.nesting = 0;
        let mut params = Vec::new();
        for i in 0..arity {
            // Now and then data the gradient leaves out, as course code
            // marks its inputs and targets: `#[constant] z1: f64` or a
            // slice of them (never the first parameter).
            if !small && i > 0 && self.rng.chance(20) {
                self.tag("#[constant] param");
                let name = format!("z{i}");
                let slice = self.rng.chance(50).then(|| 2 + self.rng.below(3));
                let values = (0..slice.unwrap_or(1))
                    .map(|_| self.rng.value(-1.5, 1.5))
                    .collect();
                self.declare(&name, slice.map_or(Kind::Scalar, Kind::Array), false);
                params.push(Param {
                    name,
                    slice,
                    constant: Some(values),
                    ..Param::default()
                });
                continue;
            }
            // Now and then token ids, as a bigram model reads its text:
            // `ids1: &[usize]` or `ids1: Vec<usize>`, unannotated.
            if !small && i > 0 && self.rng.chance(8) {
                let by_value = self.rng.chance(50);
                self.tag(if by_value {
                    "Vec<usize> param"
                } else {
                    "&[usize] param"
                });
                let name = format!("ids{i}");
                let values: Vec<usize> = (0..2 + self.rng.below(3))
                    .map(|_| self.rng.below(2))
                    .collect();
                self.ids.push((name.clone(), by_value, 1));
                params.push(Param {
                    name,
                    ids: Some(values),
                    by_value,
                    ..Param::default()
                });
                continue;
            }
            // Now and then a stack of models, whose layers the body calls
            // the file's methods on.
            if !small && !self.numbers_only && self.rng.chance(8) {
                self.tag("stack of models param");
                let name = format!("ms{i}");
                self.declare(&format!("{name}[1].b"), Kind::Scalar, false);
                self.stacks.push(name.clone());
                params.push(Param {
                    name,
                    stack: true,
                    ..Param::default()
                });
                continue;
            }
            // Now and then a model taken by reference, its weights read
            // through its fields.
            if !small && !self.numbers_only && self.rng.chance(12) {
                self.tag("model param");
                let name = format!("m{i}");
                self.declare(&format!("{name}.w"), Kind::Array(MODEL_W), false);
                self.declare(&format!("{name}.b"), Kind::Scalar, false);
                self.models.push(name.clone());
                params.push(Param {
                    name,
                    model: true,
                    ..Param::default()
                });
                continue;
            }
            // Now and then rows of rows, as course code writes a matrix.
            if !small && !self.numbers_only && self.rng.chance(8) {
                self.tag("rows of rows param");
                let name = format!("w{i}");
                let n = 2 + self.rng.below(3);
                for row in 0..ROWS {
                    self.declare(&format!("{name}[{row}]"), Kind::Array(n), false);
                }
                params.push(Param {
                    name,
                    slice: Some(n),
                    rows: true,
                    ..Param::default()
                });
                continue;
            }
            let name = format!("x{i}");
            // Now and then a slice, as course code takes its weights and
            // inputs: read by index, through iterators, `windows`, `get`.
            if !small && self.rng.chance(25) {
                self.tag("slice param");
                let n = 2 + self.rng.below(3);
                self.declare(&name, Kind::Array(n), false);
                self.not_moved.push(name.clone());
                self.slice_params.push(name.clone());
                params.push(Param {
                    name,
                    slice: Some(n),
                    ..Param::default()
                });
                continue;
            }
            let mutable = !small && self.rng.chance(20);
            if mutable {
                self.tag("mut param");
            }
            self.declare(&name, Kind::Scalar, mutable);
            params.push(Param {
                name,
                mutable,
                ..Param::default()
            });
        }
        let mut body = Vec::new();
        for param in params.clone() {
            let differentiable = param.differentiable();
            let name = param.name;
            if !param.mutable
                && param.slice.is_none()
                && differentiable
                && !param.model
                && !param.stack
                && !small
                && self.rng.chance(15)
            {
                self.tag("let mut x = x");
                body.push(Stmt::Rebind(name.clone()));
                self.declare(&name, Kind::Scalar, true);
            }
        }
        if self.rng.chance(70) {
            self.let_mut(&mut body);
        }
        if !self.numbers_only && self.rng.chance(25) {
            self.closure(&mut body);
        }
        if !self.numbers_only && self.rng.chance(20) {
            self.index_closure(&mut body);
        }
        // What the file's vector-valued helper returns, bound by a
        // top-level `let` and read by index.
        if !small && !self.numbers_only && self.rng.chance(35) {
            if let Some((helper, len)) = self.vector.clone() {
                self.tag("vector helper let");
                let name = self.fresh("p");
                // Bindings that never change: the call reruns from its
                // arguments in the reverse sweep.
                let frozen = std::mem::replace(&mut self.frozen, true);
                let args = vec![self.leaf(), self.bounded(1)];
                self.frozen = frozen;
                let args = self.vector_args(args, Some(&mut body));
                body.push(Stmt::Let(name.clone(), Expr::Call(helper, args)));
                self.declare(&name, Kind::Array(len), false);
            }
        }
        let count = if small {
            1 + self.rng.below(2)
        } else {
            2 + self.rng.below(5)
        };
        for _ in 0..count {
            self.statement(0, &mut body);
        }
        // Everything the body computed reaches the result, so that loops
        // and branches are differentiated, not just recorded.
        let mut result = self.expr(0);
        let candidates: Vec<(String, Kind)> = self
            .visible(|v| !v.name.starts_with('x'))
            .into_iter()
            .map(|v| (v.name.clone(), v.kind))
            .collect();
        let mut reached = Vec::new();
        for (name, kind) in candidates {
            // (A `Vec` cleared at the end has no item to read.)
            if matches!(kind, Kind::Vec(0) | Kind::Array(0)) {
                continue;
            }
            if self.rng.chance(60) {
                reached.push(match kind {
                    Kind::Scalar => Expr::Var(name),
                    Kind::Pair => Expr::Field(name, self.rng.below(2)),
                    Kind::Array(n) | Kind::Vec(n) => {
                        Expr::Elem(name, Idx::Const(self.rng.below(n)))
                    }
                });
            }
        }
        for e in reached {
            result = Expr::Bin("+", Box::new(result), Box::new(e));
        }
        Function {
            params,
            body,
            result,
            tags: self.tags.clone(),
            compiled: self.compiled,
        }
    }

    /// A helper's call bound by a `let` in a loop keeps the tape when no
    /// statement reads it and a jump leaves the loop, and by a `let mut`
    /// nested anywhere or in a body with `return` (the caller cannot tell
    /// a number from a vector there): in a function drawn to compile, such
    /// a call is read as a number where it is bound (`h(..) + 0.0`). So is
    /// one in a branch or a body with `return` with a helper's call inside
    /// its arguments (`h(2.0 * a.min(h(x)))`, not bound first as a call
    /// passed whole is), which could not be saved for the callee's reverse
    /// if no statement reads it.
    fn bound_call(&self, e: Expr, mutable: bool) -> Expr {
        // Any annotated function's call in the arguments: the helpers', the
        // integer helper's, the vector helpers' (seed 20283 f14_7: `ih`).
        let calls_inside = || match &e {
            Expr::Call(_, args) => args.iter().any(|arg| {
                let text = render(arg, Dialect::Plain);
                let called = |name: &str| text.contains(&format!("{name}("));
                self.helpers.iter().any(|(name, _)| called(name))
                    || self.integer.as_deref().is_some_and(called)
                    || self
                        .vector
                        .as_ref()
                        .is_some_and(|(name, _)| called(name) || called(&format!("t{name}")))
            }),
            _ => false,
        };
        let nested = if mutable {
            self.nesting > 0 || self.returns
        } else {
            !self.loops.is_empty() || ((self.nesting > 0 || self.returns) && calls_inside())
        };
        match e {
            Expr::Call(..) if self.compiled && nested => {
                Expr::Bin("+", Box::new(e), Box::new(Expr::Lit(0.0)))
            }
            e => e,
        }
    }

    /// What a window of `k` over `list` adds (see [`window_body`]): read
    /// by index, or used whole where `list` is a slice parameter.
    fn window_form(&mut self, k: usize, list: &str) -> u8 {
        let fixed = self.slice_params.iter().any(|name| name == list);
        match self.rng.below(4) {
            1 if k < 2 => 0,
            form @ (2 | 3) if !fixed => {
                if k < 2 {
                    0
                } else {
                    form as u8 - 2
                }
            }
            form => form as u8,
        }
    }

    /// `for w in a.windows(k) { acc += .. }` over a visible array or
    /// `Vec` (chunks only of an array whose length they divide), as
    /// course code walks neighbours; `false` where there is none.
    fn for_windows(&mut self, out: &mut Vec<Stmt>) -> bool {
        let lists: Vec<(String, Kind)> = self
            .visible(|v| matches!(v.kind, Kind::Array(1..) | Kind::Vec(1..)))
            .into_iter()
            .map(|v| (v.name.clone(), v.kind))
            .collect();
        if lists.is_empty() {
            return false;
        }
        let (list, kind) = lists[self.rng.below(lists.len())].clone();
        let (k, chunks) = match kind {
            Kind::Array(n) if self.rng.chance(50) => (if n % 2 == 0 { 2 } else { 1 }, true),
            _ => (2 + self.rng.below(2), false),
        };
        self.tag(if chunks {
            "for over chunks"
        } else {
            "for over windows"
        });
        let acc = self.fresh("acc");
        let form = self.window_form(k, &list);
        out.push(Stmt::ForWindows {
            acc: acc.clone(),
            list,
            k,
            chunks,
            form,
            enumerated: self.rng.chance(30),
        });
        self.declare(&acc, Kind::Scalar, false);
        true
    }

    /// `for &t in ids { acc += list[t] * .. }` over a token-id parameter
    /// and a visible list longer than its largest id; a `Vec` taken by
    /// value only outside every block (the `for` moves it) and once.
    fn for_ids(&mut self, out: &mut Vec<Stmt>) -> bool {
        let usable: Vec<usize> = (0..self.ids.len())
            .filter(|&k| !self.ids[k].1 || (self.nesting == 0 && self.loops.is_empty()))
            .collect();
        if usable.is_empty() {
            return false;
        }
        let (ids, by_value, most) = self.ids[usable[self.rng.below(usable.len())]].clone();
        let lists: Vec<String> = self
            .visible(|v| matches!(v.kind, Kind::Array(n) | Kind::Vec(n) if n > most))
            .into_iter()
            .map(|v| v.name.clone())
            .collect();
        if lists.is_empty() {
            return false;
        }
        let list = lists[self.rng.below(lists.len())].clone();
        if by_value {
            self.ids.retain(|(name, _, _)| *name != ids);
        }
        self.tag("for over token ids");
        let acc = self.fresh("acc");
        out.push(Stmt::ForIds {
            acc: acc.clone(),
            ids,
            list,
            by_value,
        });
        self.declare(&acc, Kind::Scalar, false);
        true
    }

    fn let_(&mut self, out: &mut Vec<Stmt>) {
        if !self.ids.is_empty() && self.rng.chance(30) && self.for_ids(out) {
            return;
        }
        if self.rng.chance(4) {
            // A piecewise function of each item of a visible list (also
            // of a tuple-valued call's `Vec` or a model's field, whose
            // items' type the macro does not see: the guards say it).
            let lists: Vec<String> = self
                .visible(|v| matches!(v.kind, Kind::Array(1..) | Kind::Vec(1..)))
                .into_iter()
                .map(|v| v.name.clone())
                .collect();
            if !lists.is_empty() {
                self.tag("match with guards on a loop's item");
                let list = lists[self.rng.below(lists.len())].clone();
                let acc = self.fresh("acc");
                out.push(Stmt::ForMatch {
                    acc: acc.clone(),
                    list,
                    k: [0.25, 0.5, 1.0][self.rng.below(3)],
                    borrowed: self.rng.chance(50),
                });
                self.declare(&acc, Kind::Scalar, false);
                return;
            }
        }
        if self.rng.chance(4) && self.for_windows(out) {
            return;
        }
        // Now and then the rows of a rows-of-rows parameter walked one by
        // one.
        let rows: Vec<(String, usize)> = self
            .visible(|v| v.name.starts_with('w') && v.name.ends_with("[0]"))
            .into_iter()
            .filter_map(|v| match v.kind {
                Kind::Array(n) => Some((v.name.trim_end_matches("[0]").to_owned(), n)),
                _ => None,
            })
            .collect();
        if !rows.is_empty() && self.rng.chance(15) {
            self.tag("for over the rows of rows");
            let (name, n) = rows[self.rng.below(rows.len())].clone();
            let e = self.expr(1);
            let sum = self.fresh("s");
            // Its columns, or every item, by the name's last digit (no
            // draw of its own, so that a seed draws what it drew before).
            let columns = sum.ends_with(['0', '4', '9']);
            if columns {
                self.tag("for over the columns of rows of rows");
            } else if sum.ends_with(['1', '3', '5', '7']) {
                self.tag("the rows of rows flattened");
            } else if sum.ends_with('2') {
                self.tag("the rows of rows flattened, chained");
            } else if sum.ends_with('8') {
                self.tag("the rows of rows flattened, chained, numbered");
            } else if sum.ends_with('6') {
                self.tag("the rows of rows zipped with themselves");
            }
            out.push(Stmt::SumRows(sum.clone(), name, n, e, columns));
            self.declare(&sum, Kind::Scalar, true);
            return;
        }
        // Now and then a `for` whose pattern takes apart constant pairs,
        // as course code walks (input, label) data.
        if self.rng.chance(3) {
            self.tag("for pattern over constant pairs");
            let pairs = (0..1 + self.rng.below(3))
                .map(|_| (self.rng.value(-1.0, 1.0), self.rng.value(-1.0, 1.0)))
                .collect();
            let e = self.expr(1);
            let sum = self.fresh("s");
            out.push(Stmt::SumPairs(sum.clone(), pairs, e));
            self.declare(&sum, Kind::Scalar, true);
            return;
        }
        // Now and then a `let` that binds a visible name again, as
        // students write `let h = f(h);`: a number read in its own
        // initialiser, or, at the top, a `Vec` mapped into a new one.
        if self.rng.chance(12) && self.let_again(out) {
            return;
        }
        if self.rng.chance(6) && self.residual_vec(out) {
            return;
        }
        if !self.compiled && self.rng.chance(15) && self.collect_assign(out) {
            return;
        }
        // Now and then a fresh `Vec` written through `iter_mut`; where
        // compiled, at the top of a body without `return` (elsewhere the
        // index loop it is read as would need the `Vec`'s length saved,
        // which a jump or a `return` may leave unsaved).
        if (!self.compiled || (self.nesting == 0 && !self.returns)) && self.rng.chance(6) {
            let enumerate = self.rng.chance(50);
            self.tag(if enumerate {
                "iter_mut writes, enumerated"
            } else {
                "iter_mut writes"
            });
            let n = 1 + self.rng.below(3);
            let items = (0..n).map(|_| self.expr(1)).collect();
            let (w, y) = (self.fresh("w"), self.fresh("y"));
            let k = [0.5, -0.75, 1.25][self.rng.below(3)];
            let e = self.expr(1);
            self.declare(&y, Kind::Scalar, false);
            let inner = self.rng.chance(40);
            if inner {
                self.tag("iter_mut item written after an inner loop");
            }
            let closure = self.rng.chance(30);
            if closure {
                self.tag("iter_mut writes by for_each");
            }
            out.push(Stmt::WriteFresh {
                w,
                items,
                k,
                e,
                enumerate,
                closure,
                inner,
                y,
            });
            return;
        }
        let e = self.expr(0);
        let e = self.bound_call(e, false);
        // Now and then the name of a binding of an earlier block, out of
        // sight here (`let qdiag = ..;` in two loops one after the other).
        let gone: Vec<String> = self
            .gone
            .iter()
            .filter(|name| !self.vars.iter().any(|v| v.name == **name))
            .cloned()
            .collect();
        let name = if !gone.is_empty() && self.rng.chance(20) {
            self.tag("let naming an earlier block's binding again");
            gone[self.rng.below(gone.len())].clone()
        } else {
            self.fresh("t")
        };
        self.declare(&name, Kind::Scalar, false);
        out.push(Stmt::Let(name, e));
    }

    /// `let name = e;` of a visible number `name` (`e` reading it), or
    /// `let mut v: Vec<f64> = v.iter().map(..).collect();` of a visible
    /// `Vec` at the top; whether one was drawn.
    /// `let mut r = [a, b].to_vec();` then a loop of `r = r.iter().map(..)
    /// .collect();`, a residual step written as a chain, read by index
    /// after; where compiled, at the top of a body without `return` (a
    /// `Vec` assigned whole keeps the tape where it is bound in a block or
    /// the body returns early, README); whether one was drawn.
    fn residual_vec(&mut self, out: &mut Vec<Stmt>) -> bool {
        if self.numbers_only || (self.compiled && (self.nesting > 0 || self.returns)) {
            return false;
        }
        let name = self.fresh("rv");
        let n = 2 + self.rng.below(2);
        let items: Vec<Expr> = (0..n).map(|_| self.expr(1)).collect();
        // Now and then (by the name, so the draws stay as they were) a
        // `Vec` one of two arms gives, of two lengths, read by index.
        if name.ends_with(['2', '6']) {
            self.tag("a Vec chosen by a branch");
            let c = self.cond();
            let mut longer = items.clone();
            longer.reverse();
            longer.push(Expr::Lit(0.25));
            out.push(Stmt::VecChosen(name.clone(), c, items, longer));
            self.declare(&name, Kind::Vec(n), false);
            if self.compiled {
                self.returns = false;
            }
            return true;
        }
        self.tag("Vec assigned a chain's collect() over itself");
        out.push(Stmt::ToVec(name.clone(), items));
        let k = [0.5, 1.5, -0.75][self.rng.below(3)];
        let i = self.fresh("i");
        let steps = 1 + self.rng.below(3);
        out.push(Stmt::For(
            None,
            i,
            steps,
            vec![Stmt::CollectAssign(name.clone(), k)],
        ));
        // Read by index from here on: no method resizes it.
        self.declare(&name, Kind::Array(n), false);
        true
    }

    /// `v = v.iter().map(..).collect();` of a visible mutable `Vec`, where
    /// the function need not take the compiled path: a `Vec` assigned
    /// whole keeps the tape where it is also resized or bound in a block,
    /// which other statements may draw (README); whether one was drawn.
    fn collect_assign(&mut self, out: &mut Vec<Stmt>) -> bool {
        let vecs: Vec<String> = self
            .visible(|v| matches!(v.kind, Kind::Vec(1..)) && v.mutable)
            .into_iter()
            .map(|v| v.name.clone())
            .collect();
        if vecs.is_empty() {
            return false;
        }
        self.tag("Vec assigned a chain's collect() over itself");
        let name = vecs[self.rng.below(vecs.len())].clone();
        let k = [0.5, 1.5, -0.75][self.rng.below(3)];
        out.push(Stmt::CollectAssign(name, k));
        true
    }

    fn let_again(&mut self, out: &mut Vec<Stmt>) -> bool {
        let vecs: Vec<(String, usize)> = self
            .visible(|v| matches!(v.kind, Kind::Vec(1..)))
            .into_iter()
            .map(|v| {
                (
                    v.name.clone(),
                    if let Kind::Vec(n) = v.kind { n } else { 0 },
                )
            })
            .collect();
        if self.nesting == 0 && !vecs.is_empty() && self.rng.chance(50) {
            self.tag("let binding a Vec's name again");
            let (name, n) = vecs[self.rng.below(vecs.len())].clone();
            let k = [0.5, 1.5, -0.75][self.rng.below(3)];
            self.declare(&name, Kind::Vec(n), true);
            out.push(Stmt::RebindVec(name, k));
            return true;
        }
        let compiled = self.compiled;
        // As for `let_mut`'s hiding: not a parameter or, where compiled, a
        // call's binding.
        let scalars: Vec<String> = self
            .scalars()
            .into_iter()
            .filter(|name| {
                !(name.contains('.') || name.starts_with('x') || compiled && name.starts_with('c'))
            })
            .collect();
        if scalars.is_empty() {
            return false;
        }
        self.tag("let binding a number's name again");
        let name = scalars[self.rng.below(scalars.len())].clone();
        let e = Expr::Bin(
            "+",
            Box::new(Expr::Method("sin", Box::new(Expr::Var(name.clone())))),
            Box::new(self.expr(1)),
        );
        self.declare(&name, Kind::Scalar, false);
        out.push(Stmt::Let(name, e));
        true
    }

    /// How a loop over items `t` hides `t` (see `Hide`).
    fn hide(&mut self) -> Hide {
        match self.rng.below(4) {
            0 => {
                self.tag("let hiding the loop's item");
                Hide::Rebind(self.rng.value(-2.0, 2.0))
            }
            1 => {
                self.tag("block let hiding the loop's item");
                Hide::Block(self.expr(1))
            }
            2 if self.rng.chance(50) => {
                self.tag("operand block's let hiding the loop's item");
                Hide::Operand(self.rng.value(-2.0, 2.0))
            }
            _ => Hide::No,
        }
    }

    fn let_mut(&mut self, out: &mut Vec<Stmt>) {
        let e = self.expr(1);
        let e = self.bound_call(e, true);
        // In a loop or a branch, now and then a number that hides an outer
        // one of the same name (read in its own initialiser).
        if self.nesting > 0 && self.rng.chance(20) {
            let compiled = self.compiled;
            let outer: Vec<String> = self
                .scalars()
                .into_iter()
                // Not, where compiled, a call's binding (`c`): one never
                // read that a `let mut` of its name hides keeps the tape
                // (whether it is a number is not known there).
                .filter(|name| {
                    !(name.contains('.')
                        || compiled && (name.starts_with('x') || name.starts_with('c')))
                })
                .collect();
            if !outer.is_empty() {
                self.tag("let hiding an outer binding");
                let name = outer[self.rng.below(outer.len())].clone();
                self.declare(&name, Kind::Scalar, true);
                out.push(Stmt::LetMut(name, e));
                return;
            }
        }
        let name = self.fresh("acc");
        self.declare(&name, Kind::Scalar, true);
        out.push(Stmt::LetMut(name, e));
    }

    /// An assignment to a `mut` number or to an element.
    fn assign(&mut self, out: &mut Vec<Stmt>) -> bool {
        let targets: Vec<(String, Kind)> = self
            .visible(|v| v.mutable && v.kind != Kind::Vec(0))
            .into_iter()
            .map(|v| (v.name.clone(), v.kind))
            .collect();
        if targets.is_empty() {
            return false;
        }
        let (name, kind) = targets[self.rng.below(targets.len())].clone();
        let place = match kind {
            Kind::Scalar => Place::Var(name.clone()),
            Kind::Pair => Place::Field(name.clone(), self.rng.below(2)),
            Kind::Array(n) | Kind::Vec(n) => {
                self.tag("element write");
                Place::Elem(name.clone(), self.idx(n))
            }
        };
        let op = ["=", "+=", "-=", "*=", "/="][self.rng.below(5)];
        let e = match op {
            // Repeated in a loop, a factor compounds: keep it in [0.5, 1].
            "*=" => {
                let inner = self.expr(1);
                Expr::Bin(
                    "+",
                    Box::new(Expr::Lit(0.75)),
                    Box::new(Expr::Method("sin", Box::new(inner)).scaled(0.25)),
                )
            }
            // A divisor in [1, 1.5].
            "/=" => {
                self.tag("/=");
                let inner = self.expr(1);
                Expr::Bin(
                    "+",
                    Box::new(Expr::Lit(1.25)),
                    Box::new(Expr::Method("sin", Box::new(inner)).scaled(0.25)),
                )
            }
            // An overwrite that reads the old value: `s = s.tanh() * y`.
            "=" if !self.loops.is_empty() && self.rng.chance(50) => {
                self.tag("overwrite in a loop");
                let old = match &place {
                    Place::Var(name) => Expr::Var(name.clone()),
                    Place::Elem(name, idx) => Expr::Elem(name.clone(), idx.clone()),
                    Place::Field(name, k) => Expr::Field(name.clone(), *k),
                };
                let f = ["tanh", "sin"][self.rng.below(2)];
                Expr::Bin(
                    "*",
                    Box::new(Expr::Method(f, Box::new(old))),
                    Box::new(self.leaf()),
                )
            }
            _ => self.expr(1),
        };
        out.push(Stmt::Assign(place, op, e));
        true
    }

    /// An index in bounds of a length-`n` array.
    fn idx(&mut self, n: usize) -> Idx {
        let indices: Vec<(String, usize)> =
            self.loops.iter().filter_map(|l| l.index.clone()).collect();
        if !indices.is_empty() && self.rng.chance(60) {
            let (i, count) = indices[self.rng.below(indices.len())].clone();
            return if count <= n {
                Idx::Var(i)
            } else {
                Idx::Mod(i, n)
            };
        }
        Idx::Const(self.rng.below(n))
    }

    /// `let mut p = (a, b);`, or with a pair in scope `p = (a, b);` or
    /// `let (a, b) = p;`.
    fn pair(&mut self, out: &mut Vec<Stmt>) {
        self.tag("tuple value");
        let pairs: Vec<String> = self
            .visible(|v| v.kind == Kind::Pair)
            .into_iter()
            .map(|v| v.name.clone())
            .collect();
        if pairs.is_empty() || self.rng.chance(30) {
            let (a, b) = (self.expr(1), self.expr(1));
            let name = self.fresh("p");
            out.push(Stmt::Pair(name.clone(), a, b));
            self.declare(&name, Kind::Pair, true);
        } else if self.rng.chance(50) {
            let p = pairs[self.rng.below(pairs.len())].clone();
            let (a, b) = (self.expr(1), self.expr(1));
            out.push(Stmt::SetPair(p, a, b));
        } else {
            let p = pairs[self.rng.below(pairs.len())].clone();
            let (a, b) = (self.fresh("u"), self.fresh("u"));
            out.push(Stmt::Unpair(a.clone(), b.clone(), p));
            self.declare(&a, Kind::Scalar, false);
            self.declare(&b, Kind::Scalar, false);
        }
    }

    /// Whether a helper's call bound by a `let` here is saved per trip by
    /// the compiled adjoint: where no loop around it jumps or returns, or
    /// as a statement of the body of the innermost loop, which jumps
    /// (`break`, `continue`) but returns nowhere.
    fn saves_per_trip(&self) -> bool {
        let direct = self
            .loops
            .last()
            .is_some_and(|l| l.body_nesting == self.nesting && l.jumps);
        self.loops.iter().all(|l| !l.returns) && (direct || self.loops.iter().all(|l| !l.jumps))
    }

    /// A block's statements, in a scope of their own.
    fn block(&mut self, depth: usize, count: usize) -> Vec<Stmt> {
        let saved = self.vars.len();
        let mut out = Vec::new();
        self.nesting += 1;
        for _ in 0..count {
            self.statement(depth + 1, &mut out);
        }
        self.nesting -= 1;
        self.forget(saved);
        out
    }

    /// Ends a scope: the bindings declared since `saved` go out of sight,
    /// their plain `t` numbers kept as names a later `let` may bind again
    /// ([`Gen::gone`]).
    fn forget(&mut self, saved: usize) {
        for var in &self.vars[saved..] {
            let numbered = var.name.len() > 1 && var.name[1..].bytes().all(|b| b.is_ascii_digit());
            if var.kind == Kind::Scalar && var.name.starts_with('t') && numbered {
                self.gone.push(var.name.clone());
            }
        }
        self.vars.truncate(saved);
    }

    /// A loop's body, in a scope of its own, with the loop on the stack.
    fn loop_body(&mut self, depth: usize, this: Loop, first: Vec<Stmt>) -> Vec<Stmt> {
        self.loops.push(this);
        let count = 1 + self.rng.below(3);
        let saved = self.vars.len();
        let mut out = first;
        self.nesting += 1;
        if let Some(l) = self.loops.last_mut() {
            l.body_nesting = self.nesting;
        }
        for _ in 0..count {
            self.statement(depth + 1, &mut out);
        }
        self.nesting -= 1;
        self.forget(saved);
        self.loops.pop();
        out
    }

    fn maybe_label(&mut self) -> Option<String> {
        self.rng.chance(40).then(|| {
            self.fresh += 1;
            format!("'l{}", self.fresh)
        })
    }

    fn statement(&mut self, depth: usize, out: &mut Vec<Stmt>) {
        let nest = self.loops.len() < 2 && depth < 3;
        let top = depth == 0;
        // A vector-valued call read in place or taken apart by a pattern.
        if !self.numbers_only && self.rng.chance(5) && self.call_value(depth, out) {
            return;
        }
        // A method on a stack's layers.
        if !self.stacks.is_empty() && self.rng.chance(8) {
            self.stack_call(top, out);
            return;
        }
        // A method on a model parameter.
        if !self.models.is_empty() && self.rng.chance(8) {
            self.tag("model: let y = m.mix(..)");
            let model = self.models[self.rng.below(self.models.len())].clone();
            let (a, b) = (self.expr(1), self.expr(1));
            let y = self.fresh("y");
            self.declare(&y, Kind::Scalar, false);
            let read =
                self.compiled && (!self.loops.is_empty() || self.nesting > 0 || self.returns);
            out.push(Stmt::StackCall(Box::new(StackCall::Model {
                model,
                y,
                a,
                b,
                read,
            })));
            return;
        }
        // A model taken apart by a struct pattern (`let Model { w, b, ..
        // } = m;`), as a student names its fields.
        if top && !self.models.is_empty() && self.rng.chance(15) {
            self.tag("model taken apart by a struct pattern");
            let model = self.models[self.rng.below(self.models.len())].clone();
            let (w, b) = (self.fresh("mw"), self.fresh("mb"));
            self.declare(&w, Kind::Array(MODEL_W), false);
            self.declare(&b, Kind::Scalar, false);
            out.push(Stmt::ModelParts(model, w, b));
            return;
        }
        // A model's weights borrowed by one `let` and read through another
        // (`let b = a;` of `let a = &m.w;`), as a student names a row.
        // Where the function need not take the compiled path: read in a
        // loop's `break` value (seed 20305 f6_9) or walked by a `for` in a
        // body with `return` (seed 20299 f6_8) the second binding keeps the
        // tape.
        if top && !self.compiled && !self.models.is_empty() && self.rng.chance(25) {
            self.tag("model: let a = &m.w; let b = a;");
            let model = self.models[self.rng.below(self.models.len())].clone();
            let (first, second) = (self.fresh("mw"), self.fresh("mw"));
            self.declare(&second, Kind::Array(MODEL_W), false);
            out.push(Stmt::AliasWeights(model, first, second));
            return;
        }
        // A pair: made, overwritten whole, or taken apart.
        if !self.numbers_only && self.rng.chance(4) {
            self.pair(out);
            return;
        }
        // A block under `#[cfg]`, compiled in or out.
        if depth < 3 && self.rng.chance(3) {
            self.tag("#[cfg] block");
            let on = self.rng.chance(50);
            let count = 1 + self.rng.below(2);
            let body = self.block(depth, count);
            out.push(Stmt::Cfg(on, body));
            return;
        }
        // Numbers only: no arrays, `Vec`s, vector lets or layer loops.
        let mut draw = self.rng.below(100);
        if self.numbers_only && matches!(draw, 57..=68 | 93..=97) {
            draw = 14;
        }
        match draw {
            0..=9 => {
                self.let_(out);
                if self.rng.chance(10) {
                    if let Some(Stmt::Let(..)) = out.last() {
                        self.tag("#[allow] on a let");
                        let last = out.pop().expect("a statement");
                        out.push(Stmt::Allowed(Box::new(last)));
                    }
                }
            }
            10..=13 => self.let_mut(out),
            14..=37 => {
                if !self.assign(out) {
                    self.let_(out);
                }
            }
            38..=43 if !self.loops.is_empty() => self.jump(out),
            44..=46
                if (!top || !self.loops.is_empty())
                    && self.returns
                    && !self.loops.iter().any(|l| l.pinned) =>
            {
                for l in &mut self.loops {
                    l.returns = true;
                }
                self.tag("early return");
                let c = self.cond();
                let e = self.expr(1);
                out.push(Stmt::If(c, vec![Stmt::Return(e)], Vec::new()));
            }
            47..=50 => {
                // A parameter bound again is no helper's argument.
                let compiled = self.compiled;
                let scalars: Vec<String> = self
                    .scalars()
                    .into_iter()
                    // Not, where compiled, a call's binding (`c`): one never
                    // read that a `let mut` of its name hides keeps the tape
                    // (whether it is a number is not known there).
                    .filter(|name| {
                        !(name.contains('.')
                            || compiled && (name.starts_with('x') || name.starts_with('c')))
                    })
                    .collect();
                if scalars.len() < 2 {
                    return self.let_(out);
                }
                self.tag("tuple swap");
                let a = scalars[self.rng.below(scalars.len())].clone();
                let b = loop {
                    let b = scalars[self.rng.below(scalars.len())].clone();
                    if b != a {
                        break b;
                    }
                };
                let mutable = |g: &Gen, n: &str| g.visible(|v| v.name == n)[0].mutable;
                let (ma, mb) = (mutable(self, &a), mutable(self, &b));
                if ma && mb && self.rng.chance(50) {
                    self.tag("destructuring assignment");
                    let k = [0.5, -0.25, 1.5][self.rng.below(3)];
                    // Bounded however often a loop runs it.
                    let e = Expr::Method(
                        "tanh",
                        Box::new(Expr::Bin(
                            "+",
                            Box::new(Expr::Var(a.clone()).scaled(k)),
                            Box::new(Expr::Var(b.clone())),
                        )),
                    );
                    out.push(Stmt::SwapAssign(a, b, e, self.rng.chance(30)));
                    return;
                }
                self.declare(&a, Kind::Scalar, ma);
                self.declare(&b, Kind::Scalar, mb);
                out.push(Stmt::Swap(a, b, ma, mb));
            }
            51..=56 if depth < 3 => {
                self.tag("let = if with statements");
                let c = self.cond();
                let then = self.arm(depth);
                let otherwise = self.arm(depth);
                let name = self.fresh("y");
                let e = Expr::IfBlock(
                    Box::new(c),
                    then.0,
                    Box::new(then.1),
                    otherwise.0,
                    Box::new(otherwise.1),
                );
                self.declare(&name, Kind::Scalar, false);
                out.push(Stmt::Let(name, e));
            }
            57..=61 if self.loops.is_empty() => self.array(out),
            // Compiled where no jump or `return` of an enclosing loop
            // leaves the block before the reverse pops what it saved.
            93..=95
                if depth > 0
                    && self.vector.is_some()
                    && (!self.compiled || self.saves_per_trip()) =>
            {
                self.vector_let_in_block(out)
            }
            62..=65 if top => self.vec(out),
            66..=68 if top || !self.loops.is_empty() => {
                let vecs: Vec<(String, usize)> = self
                    // Only a `Vec` bound `mut` (a vector helper's value
                    // chosen by an `if`, `rv`, is not: seed 20670).
                    .visible(|v| matches!(v.kind, Kind::Vec(_)) && v.mutable)
                    .into_iter()
                    .map(|v| {
                        (
                            v.name.clone(),
                            if let Kind::Vec(n) = v.kind { n } else { 0 },
                        )
                    })
                    .collect();
                if vecs.is_empty() {
                    return self.let_(out);
                }
                let (name, n) = vecs[self.rng.below(vecs.len())].clone();
                let e = self.expr(1);
                // Now and then an item inserted at the front, or the items
                // sorted, where a loop may run it any number of times.
                // Only where the function may keep the tape: a range over
                // the length of a `Vec` a later `push` grows is one.
                // The `iter_mut` form borrows `v` for the loop: `e` may not
                // read it.
                if !self.compiled
                    && self.rng.chance(25)
                    && !mentions(&render(&e, Dialect::Plain), &name)
                {
                    self.tag("items rewritten through iter_mut");
                    let k = [0.5, -0.75, 1.25][self.rng.below(3)];
                    out.push(Stmt::WriteItems(name, k, e));
                    return;
                }
                if !self.compiled && self.rng.chance(15) {
                    let k = [0.5, -0.75, 1.25][self.rng.below(3)];
                    self.tag("items rewritten over 0..v.len()");
                    let i = self.fresh("i");
                    out.push(Stmt::UpdateItems(name, i, k, e));
                    return;
                }
                match self.rng.below(10) {
                    0 => {
                        self.tag("insert into a Vec");
                        out.push(Stmt::InsertItem(name.clone(), 0, e));
                    }
                    1 => {
                        self.tag("sort_by of a Vec");
                        let (ascending, partial) = (self.rng.chance(50), self.rng.chance(50));
                        out.push(Stmt::SortItems(name.clone(), ascending, partial));
                        return;
                    }
                    _ => {
                        self.tag("push");
                        out.push(Stmt::Push(name.clone(), e));
                    }
                }
                if top && self.loops.is_empty() {
                    for v in self.vars.iter_mut().rev() {
                        if v.name == name {
                            v.kind = Kind::Vec(n + 1);
                            break;
                        }
                    }
                }
            }
            69..=80 if nest => {
                let l = self.maybe_label();
                let i = self.fresh("i");
                let n = 1 + self.rng.below(4);
                let body = self.loop_body(
                    depth,
                    Loop {
                        label: l.clone(),
                        index: Some((i.clone(), n)),
                        value: false,
                        jumps: false,
                        pinned: false,
                        returns: false,
                        body_nesting: 0,
                    },
                    Vec::new(),
                );
                out.push(Stmt::For(l, i, n, body));
            }
            81..=85 if nest => {
                self.tag("while");
                let n = self.fresh("n");
                out.push(Stmt::Counter(n.clone()));
                let k = 2 + self.rng.below(7);
                let c = Cond::And(
                    Box::new(self.cmp()),
                    Box::new(Cond::Count(n.clone(), "<", k)),
                );
                let l = self.maybe_label();
                let body = self.loop_body(
                    depth,
                    Loop {
                        label: l.clone(),
                        index: None,
                        value: false,
                        jumps: false,
                        pinned: false,
                        returns: false,
                        body_nesting: 0,
                    },
                    vec![Stmt::Tick(n.clone())],
                );
                // Now and then a triangle over the counter, into a number
                // bound `mut` outside the loop.
                let mut body = body;
                let targets: Vec<String> = self
                    .visible(|v| v.kind == Kind::Scalar && v.mutable)
                    .into_iter()
                    .map(|v| v.name.clone())
                    .collect();
                if !targets.is_empty() && self.rng.chance(30) {
                    self.tag("for over a while's counter");
                    let acc = targets[self.rng.below(targets.len())].clone();
                    let e = self.expr(1);
                    // Right after the tick, before the body's own `let`s,
                    // which may bind the target's name again.
                    body.insert(1, Stmt::Triangle(acc, n, e));
                }
                out.push(Stmt::While(l, c, body));
            }
            // A `loop` leaves by `break`, which makes every loop around it
            // one with a jump (the compiled adjoint looks at any depth).
            86..=92 if nest && !self.loops.iter().any(|l| l.pinned) => {
                for l in &mut self.loops {
                    l.jumps = true;
                }
                let valued = self.rng.chance(50);
                self.tag(if valued {
                    "let = loop / break value"
                } else {
                    "loop / break"
                });
                let n = self.fresh("n");
                out.push(Stmt::Counter(n.clone()));
                let k = 1 + self.rng.below(6);
                let l = self.maybe_label();
                let exit =
                    if valued {
                        match self.expr(1) {
                            // A model's field as the value itself (`break
                            // ms1[1].b`): its type is not seen, and the loop
                            // keeps the tape (README; seed 20325 f3_6), so a
                            // function claimed compiled breaks with arithmetic.
                            Expr::Var(name) if self.compiled && name.contains('.') => Some(
                                Expr::Bin("*", Box::new(Expr::Var(name)), Box::new(Expr::Lit(1.0))),
                            ),
                            // So is an element of a tuple-valued call's
                            // `Vec` (`break w[1]` of `let (c, w) = tvh(..)`;
                            // seed 20373 f16_6): an element as the value is
                            // claimed compiled only inside arithmetic.
                            elem @ Expr::Elem(..) if self.compiled => {
                                Some(Expr::Bin("*", Box::new(elem), Box::new(Expr::Lit(1.0))))
                            }
                            exit => Some(exit),
                        }
                    } else {
                        None
                    };
                let first = vec![
                    Stmt::If(
                        Cond::Count(n.clone(), ">=", k),
                        vec![Stmt::Break(None, exit)],
                        Vec::new(),
                    ),
                    Stmt::Tick(n),
                ];
                let body = self.loop_body(
                    depth,
                    Loop {
                        label: l.clone(),
                        index: None,
                        value: valued,
                        jumps: true,
                        pinned: false,
                        returns: false,
                        body_nesting: 0,
                    },
                    first,
                );
                if valued {
                    let name = self.fresh("y");
                    self.declare(&name, Kind::Scalar, false);
                    out.push(Stmt::LetLoop(name, l, body));
                } else {
                    out.push(Stmt::Loop(l, body));
                }
            }
            // At the top, where the compiled adjoint saves each layer's
            // shape and range, or in a branch or a loop (a token's
            // residual stream), whose block saves the shape: a `return`
            // anywhere, or a jump out of the loops around, would keep the
            // tape.
            96..=97
                if (top || self.loops.iter().all(|l| !l.jumps && !l.returns))
                    && !self.tags.contains(&"early return") =>
            {
                self.tag("layer loop: h = next, 0..h.len()");
                if !top {
                    self.tag("layer loop in a loop or a branch");
                }
                if self.compiled {
                    self.returns = false;
                }
                for l in &mut self.loops {
                    l.pinned = true;
                }
                let names = ["h", "next", "k", "j", "i", "s", "y"].map(|stem| self.fresh(stem));
                let exprs = [self.expr(1), self.expr(1), self.expr(1), self.expr(1)];
                let layers = 1 + self.rng.below(3);
                // The file's vector helper when it returns a `Vec` of
                // numbers: a call assigned to the reassigned `Vec`.
                let call = self.layer_loop_helper(50, "layer loop: h = vh(..) after");
                // Or the `Vec` the loop assigns whole starts as its value
                // (at the top: a `let mut` of a call in a loop or a branch
                // keeps the tape, README).
                let first = self
                    .layer_loop_helper(40, "layer loop: let mut h = vh(..) first")
                    .filter(|_| top || !self.compiled);
                self.declare(&names[6], Kind::Scalar, false);
                out.push(Stmt::LayerLoop(Box::new(LayerLoop {
                    names,
                    layers,
                    exprs,
                    call,
                    first,
                })));
            }
            _ if depth < 3 => {
                let c = self.cond();
                let count = 1 + self.rng.below(2);
                let then = self.block(depth, count);
                let otherwise = if self.rng.chance(60) {
                    let count = 1 + self.rng.below(2);
                    self.block(depth, count)
                } else {
                    Vec::new()
                };
                out.push(Stmt::If(c, then, otherwise));
            }
            _ => self.let_(out),
        }
    }

    /// A call of the file's methods on the layers of one of the
    /// function's stacks: folded through a `for` over them, on one layer
    /// bound by `let` or indexed, or (at the top, where the compiled
    /// adjoint saves the shape a `Vec` assigned whole overwrites) the
    /// vector-valued one rebinding a `Vec`, layer by layer.
    fn stack_call(&mut self, top: bool, out: &mut Vec<Stmt>) {
        let stack = self.stacks[self.rng.below(self.stacks.len())].clone();
        let iter = [
            StackIter::Slice,
            StackIter::Iter,
            StackIter::Range,
            StackIter::Enumerate,
            StackIter::Zip,
        ][self.rng.below(5)];
        let layer = self.fresh("layer");
        let layers = top && self.loops.is_empty() && !self.tags.contains(&"early return");
        let call = match self.rng.below(3) {
            0 if layers && self.rng.chance(40) => {
                self.tag("stack: h = ms[k].mv(&data)");
                if self.compiled {
                    self.returns = false;
                }
                let data = [0, 1, 2].map(|_| Expr::Lit(0.25 * (1 + self.rng.below(8)) as f64));
                let (d, h, y) = (self.fresh("d"), self.fresh("h"), self.fresh("y"));
                self.declare(&y, Kind::Scalar, false);
                StackCall::Data {
                    stack,
                    k: self.rng.below(STACK),
                    d,
                    h,
                    y,
                    data,
                }
            }
            0 if layers => {
                self.tag("stack: h = layer.mv(&h) per layer");
                if self.compiled {
                    self.returns = false;
                }
                let exprs = [self.expr(1), self.expr(1), self.expr(1)];
                let (h, y) = (self.fresh("h"), self.fresh("y"));
                self.declare(&y, Kind::Scalar, false);
                StackCall::Layers {
                    stack,
                    iter,
                    layer,
                    h,
                    y,
                    exprs,
                }
            }
            0 | 1 if self.rng.chance(25) => {
                self.tag("stack: ms.iter().map(|l| l.mix(..)).sum()");
                let (a, b) = (self.expr(1), self.expr(1));
                let y = self.fresh("y");
                self.declare(&y, Kind::Scalar, false);
                StackCall::Sum { stack, y, a, b }
            }
            0 | 1 => {
                self.tag("stack: for layer in .. { acc = layer.mix(..) }");
                let (a, e) = (self.expr(1), self.expr(1));
                let acc = self.fresh("acc");
                self.declare(&acc, Kind::Scalar, false);
                StackCall::Fold {
                    stack,
                    iter,
                    layer,
                    acc,
                    a,
                    e,
                }
            }
            _ => {
                let bound = self.rng.chance(50);
                self.tag(if bound {
                    "stack: let layer = &ms[k]; layer.mix(..)"
                } else {
                    "stack: ms[k].mix(..)"
                });
                let (a, b) = (self.expr(1), self.expr(1));
                let y = self.fresh("y");
                self.declare(&y, Kind::Scalar, false);
                StackCall::One {
                    stack,
                    k: self.rng.below(STACK),
                    layer: bound.then_some(layer),
                    y,
                    a,
                    b,
                    read: self.compiled
                        && (!self.loops.is_empty() || self.nesting > 0 || self.returns),
                }
            }
        };
        out.push(Stmt::StackCall(Box::new(call)));
    }

    /// An arm of `let y = if ..`: a statement or two, then a value.
    fn arm(&mut self, depth: usize) -> (Vec<Stmt>, Expr) {
        let saved = self.vars.len();
        let mut stmts = Vec::new();
        self.nesting += 1;
        for _ in 0..self.rng.below(3) {
            self.statement(depth + 1, &mut stmts);
        }
        self.nesting -= 1;
        let e = self.expr(1);
        self.vars.truncate(saved);
        (stmts, e)
    }

    /// The vector-valued helper's arguments as its call passes them: the
    /// two numbers, or, for a helper taking a slice, `&a` of an array
    /// bound just before (`out`: a compiled caller lends the helper its
    /// adjoint) or a slice built at the call (which keeps the tape).
    /// For a helper taking a `Vec` by value: `a.to_vec()` of an array
    /// bound just before, or `vec![..]` built at the call (an expression,
    /// whose adjoint the caller shapes like it).
    fn vector_args(&mut self, args: Vec<Expr>, out: Option<&mut Vec<Stmt>>) -> Vec<Expr> {
        let takes = self.vector_takes;
        match takes {
            Takes::Numbers => return args,
            Takes::Slice => self.tag("vector helper taking a slice"),
            Takes::Vec => self.tag("vector helper taking a Vec by value"),
            Takes::SliceAndData => self.tag("vector helper taking a slice and data"),
        }
        if let Takes::SliceAndData = takes {
            // Constants of no binding: literals, as data would be.
            let data: Vec<Expr> = (0..2)
                .map(|_| Expr::Lit(0.25 * (1 + self.rng.below(8)) as f64))
                .collect();
            let swapped = self.rng.chance(50);
            let mut pair = match out {
                Some(out) => {
                    let (name, constant) = (self.fresh("s"), self.fresh("c"));
                    out.push(Stmt::Array(name.clone(), args));
                    out.push(Stmt::Array(constant.clone(), data));
                    vec![Expr::Ref(name), Expr::Ref(constant)]
                }
                None => vec![Expr::SliceLit(args), Expr::SliceLit(data)],
            };
            if swapped {
                pair.swap(0, 1);
            }
            return pair;
        }
        match (out, takes) {
            (Some(out), _) => {
                let name = self.fresh("s");
                out.push(Stmt::Array(name.clone(), args));
                vec![match takes {
                    Takes::Slice => Expr::Ref(name),
                    _ => Expr::ToVec(name),
                }]
            }
            (None, Takes::Slice) => vec![Expr::SliceLit(args)],
            (None, _) => vec![Expr::VecLit(args)],
        }
    }

    /// `let p = vh(a, b);` inside a loop or a branch, its arguments any
    /// numbers but calls (which may change every trip: saved for the
    /// rerun), then, mostly, one of its components added to a binding.
    fn vector_let_in_block(&mut self, out: &mut Vec<Stmt>) {
        let Some((helper, len)) = self.vector.clone() else {
            return self.let_(out);
        };
        self.tag("vector helper let in a loop or branch");
        let helpers = std::mem::take(&mut self.helpers);
        let args = vec![self.expr(1), self.bounded(1)];
        self.helpers = helpers;
        for l in &mut self.loops {
            l.pinned = true;
        }
        let args = self.vector_args(args, Some(out));
        let name = self.fresh("p");
        out.push(Stmt::Let(name.clone(), Expr::Call(helper, args)));
        self.declare(&name, Kind::Array(len), false);
        let targets: Vec<String> = self
            .visible(|v| v.mutable && v.kind == Kind::Scalar)
            .into_iter()
            .map(|v| v.name.clone())
            .collect();
        let k = self.rng.below(len);
        if !targets.is_empty() && self.rng.chance(85) {
            let target = targets[self.rng.below(targets.len())].clone();
            out.push(Stmt::Assign(
                Place::Var(target),
                "+=",
                Expr::Elem(name, Idx::Const(k)),
            ));
        } else if self.compiled {
            // Read all the same: a call never read keeps the tape in a
            // loop that jumps or a body with `return` (README), and
            // whether this loop jumps is drawn later (seed 20283 f6_11).
            let u = self.fresh("u");
            out.push(Stmt::Let(u.clone(), Expr::Elem(name, Idx::Const(k))));
            self.declare(&u, Kind::Scalar, false);
        }
    }

    /// `if c { break; }` or `continue`, to this loop or a labelled outer one.
    fn jump(&mut self, out: &mut Vec<Stmt>) {
        if self.loops.iter().any(|l| l.pinned) {
            return self.let_(out);
        }
        let k = self.rng.below(self.loops.len());
        let innermost = k + 1 == self.loops.len();
        let Some(l) = (if innermost {
            Some(None)
        } else {
            self.loops[k].label.clone().map(Some)
        }) else {
            return self.let_(out);
        };
        // Every loop around the jump now holds one (the compiled adjoint
        // looks at any depth); not before it is drawn, or a `let` drawn
        // instead would leave them marked (seeds 20299 f0_0, 20305 f6_1:
        // a vector call then claimed compiled in a loop that never jumps,
        // inside one that does).
        for l in &mut self.loops {
            l.jumps = true;
        }
        if l.is_some() {
            self.tag("labelled break/continue");
        }
        let jump = if self.rng.chance(50) {
            self.tag("continue");
            Stmt::Continue(l)
        } else {
            self.tag("break");
            let value = self.loops[k].value.then(|| self.expr(1));
            Stmt::Break(l, value)
        };
        let c = self.cond();
        let mut then = Vec::new();
        if self.rng.chance(30) {
            self.assign(&mut then);
        }
        then.push(jump);
        out.push(Stmt::If(c, then, Vec::new()));
    }

    /// A local array, written by element; sometimes a matrix-vector product
    /// with a counted index.
    fn array(&mut self, out: &mut Vec<Stmt>) {
        self.tag("array");
        let scalars = self.scalars();
        if self.rng.chance(15) {
            self.tag("running extreme from an infinity");
            let (best, terms) = (self.fresh("best"), self.fresh("terms"));
            let n = 1 + self.rng.below(3);
            let e = self.expr(1);
            let (form, max) = (self.rng.below(3), self.rng.chance(50));
            out.push(Stmt::RunningExtreme(best.clone(), terms, n, e, form, max));
            self.declare(&best, Kind::Scalar, false);
            return;
        }
        if self.rng.chance(20) {
            self.tag("nested array literal");
            let (rows, cols) = (1 + self.rng.below(3), 1 + self.rng.below(3));
            let items = (0..rows)
                .map(|_| (0..cols).map(|_| self.expr(1)).collect())
                .collect();
            let mut at = || (self.rng.below(rows), self.rng.below(cols));
            let reads = [at(), at(), at()];
            let (matrix, name) = (self.fresh("mat"), self.fresh("y"));
            let pattern = self.rng.chance(50);
            if pattern {
                self.tag("nested array literal taken apart by a pattern");
            }
            if !pattern && rows > 1 && matrix.ends_with(['1', '3', '5', '7', '9']) {
                self.tag("rows swapped through a temporary by a searched index");
            }
            let searched = !pattern
                && rows > 1
                && matrix.ends_with(['0', '2', '4', '6', '8'])
                && self.nesting == 0
                && self.loops.is_empty()
                && !self.tags.contains(&"early return");
            if searched {
                self.tag("a row borrowed by an index a loop searched");
                // No `return` after: the index saved per trip would not
                // be popped where an exit skipped it.
                if self.compiled {
                    self.returns = false;
                }
            }
            out.push(Stmt::Matrix(
                matrix,
                name.clone(),
                items,
                reads,
                pattern,
                searched,
            ));
            self.declare(&name, Kind::Scalar, false);
            return;
        }
        if self.rng.chance(40) && !scalars.is_empty() {
            self.tag("matrix-vector product");
            let cols = 1 + self.rng.below(3);
            let rows = 1 + self.rng.below(3);
            let xs = self.fresh("xs");
            let items: Vec<Expr> = (0..cols)
                .map(|_| Expr::Var(scalars[self.rng.below(scalars.len())].clone()))
                .collect();
            self.list(&xs, items, out);
            let l = self.fresh("w");
            let weights = (0..rows * cols).map(|_| self.expr(2)).collect();
            self.list(&l, weights, out);
            let o = self.fresh("out");
            out.push(Stmt::Repeat(o.clone(), Expr::Lit(0.0), rows));
            let idx = self.fresh("idx");
            let (row, col) = (self.fresh("row"), self.fresh("col"));
            // A counted index (`idx += 1`), or one computed from the loops'.
            let counted = self.rng.chance(50);
            let weight = if counted {
                self.tag("counted index");
                if idx.ends_with(['1', '3', '5', '7', '9']) {
                    self.tag("a count from a tracked Vec's length");
                }
                out.push(Stmt::Counter(idx.clone()));
                Idx::Var(idx.clone())
            } else {
                Idx::Flat(row.clone(), cols, col.clone())
            };
            let product = Expr::Bin(
                "*",
                Box::new(Expr::Elem(l.clone(), weight)),
                Box::new(Expr::Elem(xs.clone(), Idx::Var(col.clone()))),
            );
            let inner = Stmt::For(
                None,
                col,
                cols,
                [
                    Stmt::Assign(Place::Elem(o.clone(), Idx::Var(row.clone())), "+=", product),
                    // Counted from the tracked row's length now and then.
                    if idx.ends_with(['1', '3', '5', '7', '9']) {
                        Stmt::TickBy(idx, xs.clone(), cols)
                    } else {
                        Stmt::Tick(idx)
                    },
                ][..1 + usize::from(counted)]
                    .to_vec(),
            );
            out.push(Stmt::For(None, row, rows, vec![inner]));
            self.declare(&xs, Kind::Array(cols), true);
            self.declare(&l, Kind::Array(rows * cols), true);
            self.declare(&o, Kind::Array(rows), true);
            return;
        }
        let name = self.fresh("a");
        let n = 1 + self.rng.below(4);
        if self.rng.chance(50) {
            let e = self.repeated();
            out.push(Stmt::Repeat(name.clone(), e, n));
        } else {
            let items = (0..n).map(|_| self.expr(1)).collect();
            self.list(&name, items, out);
        }
        self.declare(&name, Kind::Array(n), true);
        self.not_moved.push(name.clone());
    }

    /// The item of `[e; n]`: a constant, or a tracked value.
    fn repeated(&mut self) -> Expr {
        if self.rng.chance(50) {
            Expr::Lit(self.rng.value(-1.0, 1.0))
        } else {
            self.tag("[tracked; n]");
            self.expr(1)
        }
    }

    /// `let mut a = [e0, e1, ..];`, or `[0.0; n]` written element by
    /// element.
    fn list(&mut self, name: &str, items: Vec<Expr>, out: &mut Vec<Stmt>) {
        if self.rng.chance(50) {
            self.tag("array list");
            out.push(Stmt::Array(name.to_owned(), items));
            return;
        }
        out.push(Stmt::Repeat(name.to_owned(), Expr::Lit(0.0), items.len()));
        for (k, item) in items.into_iter().enumerate() {
            out.push(Stmt::Assign(
                Place::Elem(name.to_owned(), Idx::Const(k)),
                "=",
                item,
            ));
        }
    }

    /// A `Vec` grown by `push` in a loop.
    fn vec(&mut self, out: &mut Vec<Stmt>) {
        self.tag("Vec");
        let name = self.fresh("v");
        let start = match self.rng.below(3) {
            0 => {
                out.push(Stmt::VecNew(name.clone()));
                0
            }
            1 => {
                let n = 1 + self.rng.below(3);
                let e = self.repeated();
                out.push(Stmt::VecRepeat(name.clone(), e, n));
                n
            }
            2 if self.rng.chance(50) => {
                let n = 1 + self.rng.below(3);
                let e = self.repeated();
                out.push(Stmt::RepeatToVec(name.clone(), e, n));
                n
            }
            _ if self.rng.chance(50) => {
                self.tag("array list");
                let n = 1 + self.rng.below(3);
                let items = (0..n).map(|_| self.expr(1)).collect();
                out.push(Stmt::ToVec(name.clone(), items));
                n
            }
            _ => {
                self.tag("collect with the type on the let");
                let n = 1 + self.rng.below(3);
                let items = (0..n).map(|_| self.expr(1)).collect();
                let source = self.fresh("a");
                let k = [0.5, 1.5, -2.0, 1.0][self.rng.below(4)];
                if k != 1.0 && name.len() % 2 == 1 && consumes_source(&name) {
                    self.tag("collect consuming its source (into_iter)");
                }
                if literal_in_place(&source) {
                    self.tag("array literal iterated where it is written");
                }
                out.push(Stmt::CollectTyped(name.clone(), source, items, k));
                n
            }
        };
        self.declare(&name, Kind::Vec(start), true);
        let i = self.fresh("i");
        let n = 1 + self.rng.below(4);
        self.loops.push(Loop {
            label: None,
            index: Some((i.clone(), n)),
            value: false,
            jumps: false,
            pinned: false,
            returns: false,
            body_nesting: 0,
        });
        let mut body = Vec::new();
        let saved = self.vars.len();
        self.nesting += 1;
        // No jump here: every round pushes.
        if self.rng.chance(40) && !self.assign(&mut body) {
            self.let_(&mut body);
        }
        let e = self.expr(1);
        body.push(Stmt::Push(name.clone(), e));
        self.nesting -= 1;
        self.vars.truncate(saved);
        self.loops.pop();
        out.push(Stmt::For(None, i, n, body));
        // Items moved at the top level, where the sweep reverses them.
        let mut len = start + n;
        if self.nesting == 0 && self.rng.chance(30) {
            self.tag("swap/reverse of a Vec");
            if self.rng.chance(50) {
                out.push(Stmt::SwapItems(
                    name.clone(),
                    self.rng.below(len),
                    self.rng.below(len),
                ));
            } else {
                out.push(Stmt::ReverseItems(name.clone()));
            }
        }
        if self.nesting == 0 && self.rng.chance(40) {
            len = self.moved(&name, len, out);
        } else if self.nesting > 0 && self.rng.chance(30) {
            // A `Vec` bound in a loop's body and grown after its pushes
            // (multi-head attention joining its heads' rows): its adjoint
            // starts shaped like it after the last growth.
            if len > 1 && self.rng.chance(50) {
                // Popped after its pushes: its adjoint starts shaped like
                // it after the pop (it was shaped before it, and the
                // gradient came out wrong).
                self.tag("pop of a Vec bound in a loop");
                let item = self.fresh("t");
                out.push(Stmt::PopItem(name.clone(), item.clone()));
                self.declare(&item, Kind::Scalar, false);
                len -= 1;
            } else {
                self.tag("extend_from_slice of a Vec bound in a loop");
                len = self.extended(&name, len, out);
            }
        }
        for v in self.vars.iter_mut().rev() {
            if v.name == name {
                v.kind = Kind::Vec(len);
                break;
            }
        }
        // Summed by `while let` over its items.
        if self.nesting == 0 && self.rng.chance(10) {
            self.tag("while let over a Vec's iter");
            let (sum, it) = (self.fresh("s"), self.fresh("it"));
            let e = self.expr(1);
            let hide = self.hide();
            out.push(Stmt::SumDrained(sum.clone(), it, name.clone(), e, hide));
            self.declare(&sum, Kind::Scalar, true);
        }
        // Summed by a `for` that takes it by value: gone after.
        if self.nesting == 0 && self.rng.chance(15) {
            self.tag("for over a Vec by value");
            let sum = self.fresh("s");
            self.vars.retain(|v| v.name != name);
            let e = self.expr(1);
            let hide = self.hide();
            if binds_item_after(&sum) {
                self.tag("let binding a loop item's name after the loop");
            }
            out.push(Stmt::SumByValue(sum.clone(), name.clone(), e, hide));
            self.declare(&sum, Kind::Scalar, true);
        }
    }

    /// `name.extend_from_slice(..)` of another list or of a literal's
    /// items, on `name` of `len` items; returns its length after.
    fn extended(&mut self, name: &str, len: usize, out: &mut Vec<Stmt>) -> usize {
        let sources = self.lists_besides(name);
        if !sources.is_empty() && self.rng.chance(50) {
            let (source, n) = sources[self.rng.below(sources.len())].clone();
            out.push(Stmt::ExtendFrom(name.to_owned(), source));
            len + n
        } else {
            let n = 1 + self.rng.below(2);
            let items = (0..n).map(|_| self.expr(1)).collect();
            out.push(Stmt::ExtendItems(name.to_owned(), items));
            len + n
        }
    }

    /// One or two of the `Vec` methods that move items, on `name` of
    /// `len` items: `pop`, `insert`, `remove`, `extend_from_slice`,
    /// `resize`, `fill`, `clear`, `sort_by`, a `concat` of it into a new
    /// `Vec`, and `mem::swap` with another `Vec`. Returns its length after.
    fn moved(&mut self, name: &str, mut len: usize, out: &mut Vec<Stmt>) -> usize {
        for _ in 0..1 + self.rng.below(2) {
            match self.rng.below(12) {
                7 if len > 1 => {
                    self.tag("remove from a Vec");
                    let i = self.rng.below(len);
                    if self.rng.chance(50) {
                        let item = self.fresh("t");
                        out.push(Stmt::RemoveItem(name.to_owned(), i, Some(item.clone())));
                        self.declare(&item, Kind::Scalar, false);
                    } else {
                        out.push(Stmt::RemoveItem(name.to_owned(), i, None));
                    }
                    len -= 1;
                }
                8 => {
                    self.tag("resize of a Vec");
                    let e = self.expr(1);
                    let n = 1 + self.rng.below(len + 2);
                    out.push(Stmt::ResizeItems(name.to_owned(), n, e));
                    len = n;
                }
                9 => {
                    self.tag("fill of a Vec");
                    let e = self.expr(1);
                    out.push(Stmt::FillItems(name.to_owned(), e));
                }
                10 if self.rng.chance(30) => {
                    self.tag("clear of a Vec");
                    out.push(Stmt::ClearItems(name.to_owned()));
                    len = 0;
                }
                11 => {
                    let others: Vec<(String, usize)> = self
                        .visible(|v| {
                            v.name != name
                                && v.mutable
                                && v.stable
                                && matches!(v.kind, Kind::Vec(_))
                        })
                        .into_iter()
                        .map(|v| match v.kind {
                            Kind::Vec(n) => (v.name.clone(), n),
                            _ => unreachable!(),
                        })
                        .collect();
                    if others.is_empty() {
                        continue;
                    }
                    self.tag("mem::swap of two Vecs");
                    let (other, other_len) = others[self.rng.below(others.len())].clone();
                    out.push(Stmt::SwapWhole(name.to_owned(), other.clone()));
                    for v in self.vars.iter_mut().rev() {
                        if v.name == other {
                            v.kind = Kind::Vec(len);
                            break;
                        }
                    }
                    len = other_len;
                }
                0 if len > 1 => {
                    self.tag("pop of a Vec");
                    let item = self.fresh("t");
                    out.push(Stmt::PopItem(name.to_owned(), item.clone()));
                    self.declare(&item, Kind::Scalar, false);
                    len -= 1;
                }
                1 => {
                    self.tag("insert into a Vec");
                    let e = self.expr(1);
                    out.push(Stmt::InsertItem(
                        name.to_owned(),
                        self.rng.below(len + 1),
                        e,
                    ));
                    len += 1;
                }
                2 => {
                    self.tag("extend_from_slice of a Vec");
                    len = self.extended(name, len, out);
                }
                5 => {
                    let sources = self.lists_besides(name);
                    if sources.is_empty() {
                        continue;
                    }
                    self.tag("extend by a map closure");
                    let (source, n) = sources[self.rng.below(sources.len())].clone();
                    let k = [0.5, 1.5, -2.0][self.rng.below(3)];
                    out.push(Stmt::ExtendMapped(name.to_owned(), source, k));
                    len += n;
                }
                3 | 4 => {
                    self.tag("sort_by of a Vec");
                    let (ascending, partial) = (self.rng.chance(50), self.rng.chance(50));
                    out.push(Stmt::SortItems(name.to_owned(), ascending, partial));
                }
                _ => {
                    self.tag("concat of Vecs");
                    let w = self.fresh("w");
                    let n = 1 + self.rng.below(2);
                    let items = (0..n).map(|_| self.expr(1)).collect();
                    out.push(Stmt::Concat(w.clone(), name.to_owned(), items));
                    self.declare(&w, Kind::Vec(len + n), true);
                }
            }
            // The next method's values read it at its length now (a
            // `resize` to 1 then `v[1]` panicked, seed 20217).
            if let Some(v) = self.vars.iter_mut().rev().find(|v| v.name == name) {
                v.kind = Kind::Vec(len);
            }
        }
        len
    }

    /// A comparison of numbers, now and then two joined.
    fn cond(&mut self) -> Cond {
        let lists: Vec<String> = self
            .visible(|v| matches!(v.kind, Kind::Array(1..) | Kind::Vec(1..)))
            .into_iter()
            .map(|v| v.name.clone())
            .collect();
        if !lists.is_empty() && !self.frozen && self.rng.chance(10) {
            self.tag("all/any/count closure");
            let name = lists[self.rng.below(lists.len())].clone();
            let how = ["all", "any", "count", "position"][self.rng.below(4)];
            let op = [">", "<"][self.rng.below(2)];
            return Cond::Items(how, name, op, self.rng.value(-1.0, 1.0));
        }
        // An element behind a guard on a loop's index (`while j > 0 &&
        // v[j - 1] > t`), which the compiled adjoint checks only where the
        // condition reads it.
        let index = self.loops.iter().rev().find_map(|l| l.index.clone());
        if let (Some((i, _)), false) = (index, lists.is_empty()) {
            if self.rng.chance(25) {
                self.tag("element behind a guard");
                let name = lists[self.rng.below(lists.len())].clone();
                let and = self.rng.chance(50);
                let op = [">", "<"][self.rng.below(2)];
                return Cond::Guarded(and, i, name, op, self.rng.value(-1.0, 1.0));
            }
        }
        let c = self.cmp();
        match self.rng.below(10) {
            0 => Cond::And(Box::new(c), Box::new(self.cmp())),
            1 => Cond::Or(Box::new(c), Box::new(self.cmp())),
            _ => c,
        }
    }

    fn cmp(&mut self) -> Cond {
        let op = [">", "<", ">=", "<="][self.rng.below(4)];
        let indices: Vec<String> = self
            .loops
            .iter()
            .filter_map(|l| l.index.as_ref().map(|(i, _)| i.clone()))
            .collect();
        let a = if !indices.is_empty() && self.rng.chance(25) {
            Expr::Index(indices[self.rng.below(indices.len())].clone())
        } else {
            self.leaf_read()
        };
        let b = if self.rng.chance(50) {
            Expr::Lit(self.rng.value(-1.0, 1.0))
        } else {
            self.leaf()
        };
        Cond::Cmp(a, op, b)
    }

    /// A binding or an element.
    fn leaf_read(&mut self) -> Expr {
        let frozen = self.frozen;
        let readable: Vec<(String, Kind)> = self
            .visible(|v| {
                !matches!(v.kind, Kind::Vec(0) | Kind::Array(0))
                    && !(frozen
                        && (v.mutable
                            || !v.stable
                            || !v.name.starts_with('x')
                            || v.kind != Kind::Scalar))
            })
            .into_iter()
            .map(|v| (v.name.clone(), v.kind))
            .collect();
        if readable.is_empty() {
            return Expr::Lit(self.rng.value(-1.0, 1.0));
        }
        let (name, kind) = readable[self.rng.below(readable.len())].clone();
        match kind {
            Kind::Scalar => Expr::Var(name),
            Kind::Pair => Expr::Field(name, self.rng.below(2)),
            Kind::Array(n) | Kind::Vec(n) => {
                // Now and then the largest item, at the position a plain
                // helper finds.
                let idx = if self.rng.chance(6) {
                    self.tag("plain helper as an index");
                    Idx::Top(name.clone())
                } else {
                    self.idx(n)
                };
                Expr::Elem(name, idx)
            }
        }
    }

    fn leaf(&mut self) -> Expr {
        let index = self
            .loops
            .iter()
            .rev()
            .find_map(|l| l.index.as_ref().map(|(i, _)| i.clone()));
        match self.rng.below(10) {
            0..=6 => self.leaf_read(),
            7 if index.is_some() => Expr::Index(index.unwrap()),
            _ => Expr::Lit(self.rng.value(-2.0, 2.0)),
        }
    }

    /// `e·e + 0.5`: at least 0.5, so every domain-restricted operation is safe.
    fn positive(e: Expr) -> Expr {
        Expr::Bin(
            "+",
            Box::new(Expr::Bin("*", Box::new(e.clone()), Box::new(e))),
            Box::new(Expr::Lit(0.5)),
        )
    }

    fn expr(&mut self, depth: usize) -> Expr {
        if depth >= 3 || self.rng.chance(25) {
            return self.leaf();
        }
        if !self.numbers_only && self.rng.chance(1) {
            self.tag("dbg!");
            return Expr::Dbg(Box::new(self.expr(depth + 1)));
        }
        let d = depth + 1;
        if !self.frozen && self.rng.chance(8) {
            if let Some(e) = self.through_a_closure(d) {
                return e;
            }
        }
        match self.rng.below(24) {
            0..=3 => {
                let op = ["+", "-", "*"][self.rng.below(3)];
                let a = self.expr(d);
                // The same subexpression on both sides, now and then.
                let b = if self.rng.chance(20) {
                    a.clone()
                } else {
                    self.expr(d)
                };
                Expr::Bin(op, Box::new(a), Box::new(b))
            }
            4 => Expr::Bin(
                "/",
                Box::new(self.expr(d)),
                Box::new(Self::positive(self.expr(d))),
            ),
            5 => Expr::Neg(Box::new(self.expr(d))),
            6 => Expr::Method("ln", Box::new(Self::positive(self.expr(d)))),
            7 => Expr::Method("sqrt", Box::new(Self::positive(self.expr(d)))),
            8 => Expr::Method("recip", Box::new(Self::positive(self.expr(d)))),
            9 => Expr::Method("exp", Box::new(Expr::Method("sin", Box::new(self.expr(d))))),
            10 => Expr::Method("tanh", Box::new(self.bounded(d))),
            11 if !self.frozen => Expr::Call("sigmoid".into(), vec![self.bounded(d)]),
            12 => Expr::Method("sin", Box::new(self.expr(d))),
            13 => Expr::Method("cos", Box::new(self.expr(d))),
            14 => Expr::Method("abs", Box::new(self.expr(d))),
            15 if !self.frozen => Expr::Call("relu".into(), vec![self.expr(d)]),
            // `clamp` between bounds kept apart, `mul_add`.
            16 if self.rng.chance(15) => {
                let a = self.expr(d);
                if self.rng.chance(50) {
                    self.tag("clamp");
                    let lo = Expr::Neg(Box::new(Self::positive(self.expr(d))));
                    let hi = Self::positive(self.expr(d));
                    Expr::Method3("clamp", Box::new(a), Box::new(lo), Box::new(hi))
                } else {
                    self.tag("mul_add");
                    let (b, c) = (self.expr(d), self.expr(d));
                    Expr::Method3("mul_add", Box::new(a), Box::new(b), Box::new(c))
                }
            }
            16 => {
                let name = ["max", "min"][self.rng.below(2)];
                Expr::Method2(name, Box::new(self.expr(d)), Box::new(self.expr(d)))
            }
            // `atan2` with one operand kept off 0, so that the point is
            // never the origin, where it has no derivative.
            17 if self.rng.chance(25) => {
                let (a, b) = (self.expr(d), self.expr(d));
                let (a, b) = if self.rng.chance(50) {
                    (Self::positive(a), b)
                } else {
                    (a, Self::positive(b))
                };
                Expr::Method2("atan2", Box::new(a), Box::new(b))
            }
            17 => Expr::Method2(
                "powf",
                Box::new(Self::positive(self.expr(d))),
                Box::new(self.bounded(d)),
            ),
            18 => Expr::Powi(Box::new(self.bounded(d)), [0, 1, 2, 3][self.rng.below(4)]),
            19 => Expr::Powi(
                Box::new(Self::positive(self.expr(d))),
                -1 - self.rng.below(2) as i32,
            ),
            20 => match self.rng.below(4) {
                0 => self.lets(d).unwrap_or_else(|| self.if_value(d)),
                // A `match` whose arm prints (`dbg!`) or calls `take` stays
                // where it is, and keeps the tape: drawn as an `if` value
                // instead.
                1 => match self.lets(d) {
                    Some(otherwise) => {
                        let (c, a) = (self.cond(), self.expr(d));
                        let text = render(&a, Dialect::Plain);
                        if text.contains("dbg!") || text.contains(".take(") {
                            self.if_value(d)
                        } else {
                            self.tag("match value in an expression");
                            Expr::Match(Box::new(c), Box::new(a), Box::new(otherwise))
                        }
                    }
                    None => self.if_value(d),
                },
                _ => self.if_value(d),
            },
            21..=22 if !self.helpers.is_empty() && !self.frozen => self.call(d),
            23 if !self.compiled && !self.frozen && !self.numbers_only && self.vector.is_some() => {
                self.tag("vector helper call");
                let (name, len) = self.vector.clone().unwrap_or_default();
                let k = self.rng.below(len.max(1));
                let args = vec![self.leaf(), self.bounded(d)];
                let args = self.vector_args(args, None);
                Expr::Component(name, args, k)
            }
            _ => Expr::Bin(
                "*",
                Box::new(Expr::Lit(self.rng.value(-2.0, 2.0))),
                Box::new(self.expr(d)),
            ),
        }
    }

    fn if_value(&mut self, d: usize) -> Expr {
        self.tag("if value in an expression");
        Expr::If(
            Box::new(self.cond()),
            Box::new(self.expr(d)),
            Box::new(self.expr(d)),
        )
    }

    /// `({ let b0 = e0; let b1 = e1; tail })`, an operand of its own whose
    /// lets read what is in scope and each other; `None` where one would
    /// print (`dbg!`) or call `take` (an iterator's too: the macro reads
    /// it as `Option::take`), which keeps the block where it is, and the
    /// tape.
    fn lets(&mut self, d: usize) -> Option<Expr> {
        let saved = self.vars.len();
        let mut lets = Vec::new();
        self.nesting += 1;
        for _ in 0..1 + self.rng.below(2) {
            // No helper's call in a `let` the tail may not read: a call
            // never read keeps the tape in a loop that jumps or a body
            // with `return` (README).
            let frozen = std::mem::replace(&mut self.frozen, true);
            let e = self.expr(d);
            self.frozen = frozen;
            let name = self.fresh("b");
            self.declare(&name, Kind::Scalar, false);
            lets.push((name, e));
        }
        let tail = self.expr(d);
        self.nesting -= 1;
        self.vars.truncate(saved);
        let block = Expr::Lets(lets, Box::new(tail));
        let text = render(&block, Dialect::Plain);
        if text.contains("dbg!") || text.contains(".take(") {
            return None;
        }
        self.tag("block value in an expression");
        Some(block)
    }

    /// `let act = |t: f64| e;` with `e` of `t` alone, and a `let` of a
    /// call of it.
    fn closure(&mut self, out: &mut Vec<Stmt>) {
        self.tag("closure bound by let");
        let t = || Box::new(Expr::Var("t".into()));
        let (a, b) = (self.rng.value(-1.5, 1.5), self.rng.value(-2.0, 2.0));
        let body = match self.rng.below(3) {
            0 => Expr::Bin(
                "*",
                Box::new(Expr::Method(
                    "tanh",
                    Box::new(Expr::Bin("*", t(), Box::new(Expr::Lit(a)))),
                )),
                Box::new(Expr::Lit(b)),
            ),
            1 => Expr::Bin(
                "+",
                Box::new(Expr::Bin("*", t(), t())),
                Box::new(Expr::Method(
                    "sin",
                    Box::new(Expr::Bin("*", Box::new(Expr::Lit(a)), t())),
                )),
            ),
            _ => Expr::Bin(
                "*",
                Box::new(Expr::Method(
                    "ln",
                    Box::new(Self::positive(Expr::Var("t".into()))),
                )),
                Box::new(Expr::Lit(b)),
            ),
        };
        let name = self.fresh("act");
        // Its return type written (`-> f64 { e }`) one time in three.
        let typed = self.rng.below(3) == 0;
        if typed {
            self.tag("closure with its return type");
        }
        out.push(Stmt::Closure(name.clone(), body, typed));
        self.closures.push(name.clone());
        let arg = self.closure_argument(1);
        let value = self.fresh("t");
        out.push(Stmt::Let(value.clone(), Expr::Call(name, vec![arg])));
        self.declare(&value, Kind::Scalar, false);
    }

    /// The file's vector helper, with the given chance, where it returns a
    /// `Vec` of 3 numbers from numbers: what a layer loop's `Vec` is
    /// assigned (see `LayerLoop`), or a `map` closure indexes.
    fn layer_loop_helper(&mut self, percent: usize, tag: &'static str) -> Option<String> {
        match self.vector.clone() {
            Some((helper, 3))
                if matches!(self.vector_takes, Takes::Numbers)
                    && !self.helpers.is_empty()
                    && self.rng.chance(percent) =>
            {
                self.tag(tag);
                Some(helper)
            }
            _ => None,
        }
    }

    /// `let at = |k: usize| (x[k] * a).tanh() * x[(k + 1) % n];` of a
    /// parameter `x` of `n` numbers, and a `let` of the product of two
    /// calls of it.
    fn index_closure(&mut self, out: &mut Vec<Stmt>) {
        let lists: Vec<(String, usize)> = self
            .visible(|v| {
                // A parameter (`x0`): a local could be moved or written
                // while the closure borrows it.
                let param = v
                    .name
                    .strip_prefix('x')
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
                param && matches!(v.kind, Kind::Array(2..) | Kind::Vec(2..)) && !v.mutable
            })
            .into_iter()
            .map(|v| match v.kind {
                Kind::Array(n) | Kind::Vec(n) => (v.name.clone(), n),
                _ => unreachable!(),
            })
            .collect();
        if lists.is_empty() {
            return;
        }
        self.tag("index closure reading a tracked capture");
        let (list, n) = lists[self.rng.below(lists.len())].clone();
        let a = self.rng.value(-1.5, 1.5);
        let at = |idx: Idx| Box::new(Expr::Elem(list.clone(), idx));
        let body = Expr::Bin(
            "*",
            Box::new(Expr::Method(
                "tanh",
                Box::new(Expr::Bin(
                    "*",
                    at(Idx::Var("k".into())),
                    Box::new(Expr::Lit(a)),
                )),
            )),
            at(Idx::Var(format!("(k + 1) % {n}"))),
        );
        let name = self.fresh("at");
        let typed = self.rng.below(3) == 0;
        out.push(Stmt::IndexClosure(name.clone(), body, typed));
        self.index_closures.push((name.clone(), n));
        let call = |k: usize| Box::new(Expr::Call(name.clone(), vec![Expr::Int(k.to_string())]));
        let value = self.fresh("t");
        let (i, j) = (self.rng.below(n), self.rng.below(n));
        out.push(Stmt::Let(value.clone(), Expr::Bin("*", call(i), call(j))));
        self.declare(&value, Kind::Scalar, false);
    }

    /// `x + e` of a parameter: the tape's closure takes the type of its
    /// first call's argument, a tracked number, so every call passes one.
    fn closure_argument(&mut self, d: usize) -> Expr {
        let params: Vec<Expr> = self
            .visible(|v| {
                // `x0`, `x1`: a parameter (a local array may be `xs3`).
                let param = v
                    .name
                    .strip_prefix('x')
                    .is_some_and(|n| n.bytes().all(|b| b.is_ascii_digit()));
                // A model parameter's bias, `m0.b`.
                let bias = v.name.starts_with('m') && v.name.ends_with(".b");
                // A row of a rows-of-rows parameter, `w0[1]`.
                let row = v.name.starts_with('w') && v.name.ends_with(']');
                param && !v.mutable && matches!(v.kind, Kind::Scalar | Kind::Array(1..))
                    || v.kind == Kind::Scalar && v.name.starts_with('x')
                    || bias
                    || row && matches!(v.kind, Kind::Array(1..))
            })
            .into_iter()
            .map(|v| match v.kind {
                // A slice parameter's (or a row's) first element.
                Kind::Array(_) => Expr::Elem(v.name.clone(), Idx::Const(0)),
                _ => Expr::Var(v.name.clone()),
            })
            .collect();
        let param = params[self.rng.below(params.len())].clone();
        Expr::Bin("+", Box::new(param), Box::new(self.bounded(d)))
    }

    /// A call of a closure bound by `let`, a `max_by`/`min_by` selection,
    /// a `windows`/`chunks` sum, or an element through an `Option`, when
    /// the body has what it reads.
    fn through_a_closure(&mut self, d: usize) -> Option<Expr> {
        if self.numbers_only {
            return None;
        }
        let lists: Vec<(String, Kind)> = self
            .visible(|v| matches!(v.kind, Kind::Array(1..) | Kind::Vec(1..)))
            .into_iter()
            .map(|v| (v.name.clone(), v.kind))
            .collect();
        match self.rng.below(5) {
            0 if !self.index_closures.is_empty() && self.rng.chance(30) => {
                self.tag("index closure call");
                let (name, n) =
                    self.index_closures[self.rng.below(self.index_closures.len())].clone();
                Some(Expr::Call(
                    name,
                    vec![Expr::Int(self.rng.below(n).to_string())],
                ))
            }
            0 if !self.closures.is_empty() => {
                self.tag("closure call");
                let name = self.closures[self.rng.below(self.closures.len())].clone();
                // Now and then a plain argument: the closure's parameter,
                // tracked through its other calls, takes a lifted one.
                let argument = if self.rng.chance(25) {
                    self.tag("closure call with a plain argument");
                    Expr::Lit(self.rng.value(-1.5, 1.5))
                } else {
                    self.closure_argument(d)
                };
                Some(Expr::Call(name, vec![argument]))
            }
            _ if lists.is_empty() => None,
            1 => {
                self.tag("max_by/min_by");
                let (name, _) = lists[self.rng.below(lists.len())].clone();
                let method = ["max_by", "min_by"][self.rng.below(2)];
                let form = self.rng.below(SELECT_FORMS) as u8;
                // A model's `w` taken apart by a struct pattern (`mw`) is
                // a reference whose shape the sweep does not see: an item
                // it indexes pushed onto a `Vec` keeps the tape there
                // (seed 20776 f19_4). Selected items by value instead.
                let form = match form {
                    3 | 4 | 8 if name.starts_with("mw") => form - 3,
                    _ => form,
                };
                if form >= 3 {
                    self.tag("argmax by max_by/min_by");
                }
                if form >= 7 {
                    self.tag("max_by/min_by over a map");
                }
                Some(Expr::Select(method, name, form))
            }
            2 => {
                let (name, kind) = lists[self.rng.below(lists.len())].clone();
                // Chunks only of an array whose length they divide: a
                // short last chunk read past its end panics.
                let (k, chunks) = match kind {
                    Kind::Array(n) if self.rng.chance(50) => {
                        let k = if n % 2 == 0 { 2 } else { 1 };
                        (k, true)
                    }
                    _ => (2 + self.rng.below(2), false),
                };
                self.tag(if chunks { "chunks" } else { "windows" });
                let form = self.window_form(k, &name);
                Some(Expr::Windows(name, k, chunks, form))
            }
            4 => {
                self.tag("iterator reduction");
                let (a, kind) = lists[self.rng.below(lists.len())].clone();
                let (b, _) = lists[self.rng.below(lists.len())].clone();
                let how = self.rng.below(20);
                // Half the chains of `map`s over an array (by name) take
                // its items by `into_iter()`: copies of a copied array.
                // (Only an array or a slice parameter: many `Vec`s are
                // declared as arrays of their length, and `into_iter()`
                // would move them.)
                let by_value = matches!(how, 0 | 9 | 11)
                    && matches!(kind, Kind::Array(_))
                    && self.not_moved.contains(&a)
                    && a.ends_with(['1', '3', '5', '7', '9']);
                if by_value {
                    self.tag("iterator reduction by into_iter");
                }
                if matches!(how, 0 | 2 | 13) && chained(&a) {
                    self.tag("iterator reduction over a chain");
                }
                // The file's vector helper of two numbers indexed in the
                // `map`'s closure (its name in place of the second list);
                // compiled where no jump or `return` of an enclosing loop
                // leaves before the reverse pops what the call saved (as
                // `vector_let_in_block`).
                // The closure's body becomes a loop of its own, nested in
                // the enclosing ones: none of them may jump (a call bound
                // in a loop inside one that jumps keeps the tape; seed
                // 20767 f15_10).
                if how == 10
                    && (!self.compiled
                        || (self.saves_per_trip() && self.loops.iter().all(|l| !l.jumps)))
                {
                    if let Some(helper) =
                        self.layer_loop_helper(100, "vector call indexed in a map closure")
                    {
                        return Some(Expr::Reduce(
                            10,
                            a,
                            helper,
                            self.rng.value(-1.0, 1.0),
                            false,
                        ));
                    }
                }
                // (10 without a helper: two maps.)
                let how = if how == 10 { 11 } else { how };
                Some(Expr::Reduce(how, a, b, self.rng.value(-1.0, 1.0), by_value))
            }
            _ => {
                self.tag("Option of an element");
                let (name, kind) = lists[self.rng.below(lists.len())].clone();
                let n = match kind {
                    Kind::Array(n) | Kind::Vec(n) => n,
                    _ => 1,
                };
                let how = self.rng.below(8);
                if (3..5).contains(&how) || how == 7 {
                    self.tag("unwrap_or of an element");
                }
                if matches!(how, 0 | 6) && name.ends_with(['0', '2', '4', '6', '8']) {
                    self.tag("Option of a max_by or min_by");
                }
                let k = self.rng.below(n + 2);
                Some(Expr::Element(name, how, k, self.rng.value(-1.0, 1.0)))
            }
        }
    }

    /// A call of a helper: tracked arguments, constants, a loop index, or
    /// a method's result (`h(x, x.recip())`).
    fn call(&mut self, d: usize) -> Expr {
        if let Some(name) = self.integer.clone().filter(|_| self.rng.chance(25)) {
            return self.integer_call(name, d);
        }
        self.tag("helper call");
        let (name, arity) = self.helpers[self.rng.below(self.helpers.len())].clone();
        // Half the calls take only parameters that never change; the
        // others any binding, element or call.
        let frozen_now = self.rng.chance(50);
        let frozen = std::mem::replace(&mut self.frozen, frozen_now);
        let args = (0..arity)
            .map(|_| match self.rng.below(6) {
                0 => Expr::Lit(self.rng.value(-1.0, 1.0)),
                1 => Expr::Method("recip", Box::new(Self::positive(self.leaf()))),
                2 => self.leaf(),
                _ => self.bounded(d),
            })
            .collect::<Vec<_>>();
        self.frozen = frozen;
        // Now and then one value passed twice: a binding, an element or
        // an expression (`h(x1[0], x1[0])`), which the caller's adjoint
        // takes twice.
        let mut args = args;
        if args.len() == 2 && self.rng.chance(10) {
            self.tag("value passed twice to a helper");
            args[1] = args[0].clone();
        }
        Expr::Call(name, args)
    }

    /// `ih(e, n, k, m)` of the file's helper taking integers: literals
    /// (whose type only the callee's parameter gives) or, for the
    /// `usize`, an enclosing loop's index.
    fn integer_call(&mut self, name: String, d: usize) -> Expr {
        self.tag("helper taking integers");
        let x = self.bounded(d);
        let indices: Vec<String> = self
            .loops
            .iter()
            .filter_map(|l| l.index.as_ref().map(|(index, _)| index.clone()))
            .collect();
        let n = if !indices.is_empty() && self.rng.chance(50) {
            indices[self.rng.below(indices.len())].clone()
        } else {
            self.rng.below(4).to_string()
        };
        let k = self.rng.below(4).to_string();
        let m = (self.rng.below(5) as i64 - 2).to_string();
        Expr::Call(name, vec![x, Expr::Int(n), Expr::Int(k), Expr::Int(m)])
    }

    /// An expression within [−2, 2]: `2·sin(e)`. `tanh`, `sigmoid` and
    /// `powf`'s exponent see these, away from the flat tails where `1 − t²`
    /// loses its digits in any implementation.
    fn bounded(&mut self, depth: usize) -> Expr {
        let e = self.expr(depth);
        Expr::Method("sin", Box::new(e)).scaled(2.0)
    }
}

/// Vector-valued calls whose value is read where the call is made or
/// taken apart by a pattern, which the compiled adjoint binds by a `let`
/// first (`autodiff-macros/src/emit/adjoint/call_values.rs`).
impl Gen {
    /// One statement reading a vector-valued helper's value in place or
    /// binding it by a pattern: `let c = vh(a, b)[k] * l;`, `s += vh(a,
    /// b)[k];`, `let [u, v] = vh(a, b);` (an array helper), `let (c, w) =
    /// tvh(a, b);` (the file's tuple helper: a number and a `Vec`). Its
    /// arguments are numbers, elements or loop indices (at the top level,
    /// parameters that never change, as for the helper's top-level `let`).
    /// Compiled where no jump or `return` of an enclosing loop leaves the
    /// block before the reverse pops what it saved; the enclosing loops
    /// take no jump or `return` after it. Not in the file's helpers, which call
    /// no helper. Whether it drew one.
    fn call_value(&mut self, depth: usize, out: &mut Vec<Stmt>) -> bool {
        let Some((helper, len)) = self.vector.clone() else {
            return false;
        };
        if self.helpers.is_empty() || (self.compiled && !self.saves_per_trip()) {
            return false;
        }
        for l in &mut self.loops {
            l.pinned = true;
        }
        let nested = depth > 0 || !self.loops.is_empty();
        let frozen = std::mem::replace(&mut self.frozen, !nested);
        let args = vec![self.call_value_argument(), self.call_value_argument()];
        self.frozen = frozen;
        let targets: Vec<String> = self
            .visible(|v| v.mutable && v.kind == Kind::Scalar)
            .into_iter()
            .map(|v| v.name.clone())
            .collect();
        match self.rng.below(8) {
            7 if !nested => {
                self.tag("vector call assigned to a row");
                let (rows, y) = (self.fresh("ms"), self.fresh("y"));
                let (k, l) = (self.rng.below(len), self.rng.below(len));
                let i = self.rng.below(2);
                let args = self.vector_args(args, Some(out));
                out.push(Stmt::RowAssign(
                    rows,
                    Expr::Call(helper, args),
                    len,
                    len == 3,
                    i,
                    y.clone(),
                    k,
                    l,
                ));
                self.declare(&y, Kind::Scalar, false);
            }
            // Not where the function must compile and has a `return`: a
            // call pushed there keeps the tape (README; seed 20461 f6_4).
            6 if !nested && (!self.compiled || !self.returns) => {
                self.tag("vector calls pushed as rows");
                let (rows, y) = (self.fresh("qs"), self.fresh("y"));
                let n = 1 + self.rng.below(3);
                let (k, l) = (self.rng.below(len), self.rng.below(len));
                let args = self.vector_args(args, Some(out));
                if matches!(args.as_slice(), [Expr::Ref(_)])
                    && rows.ends_with(['1', '3', '5', '7', '9'])
                {
                    self.tag("a vector call of a vector call pushed");
                }
                out.push(Stmt::PushRows(
                    rows,
                    Expr::Call(helper, args),
                    n,
                    y.clone(),
                    k,
                    l,
                ));
                self.declare(&y, Kind::Scalar, false);
            }
            // Where the function need not take the compiled path, or in
            // none of a loop that jumps and a body with `return`: there the
            // second call's argument, the first's value, is one that
            // changes before the reverse sweep, and it keeps the tape
            // (seeds 20329 f14_10, 20335 f10_3, 20347 f14_9).
            5 if !(self.compiled && (self.returns || self.loops.iter().any(|l| l.jumps))) => {
                // A helper's value only passed on, by value, to a helper
                // (`let q = h(a); let c = h(q, b);`): a number or a vector
                // alike to the macro, taken as it is.
                self.tag("helper value passed on");
                let (first, arity) = self.helpers[self.rng.below(self.helpers.len())].clone();
                let (second, arity2) = self.helpers[self.rng.below(self.helpers.len())].clone();
                let inner = self.fresh("q");
                out.push(Stmt::Let(
                    inner.clone(),
                    Expr::Call(first, args.into_iter().take(arity).collect()),
                ));
                let mut passed = vec![Expr::Var(inner)];
                if arity2 == 2 {
                    passed.push(self.call_value_argument());
                }
                let outer = self.fresh("c");
                out.push(Stmt::Let(outer.clone(), Expr::Call(second, passed)));
                self.declare(&outer, Kind::Scalar, false);
            }
            0 if !targets.is_empty() => {
                self.tag("vector call indexed in place");
                let target = targets[self.rng.below(targets.len())].clone();
                let k = self.rng.below(len);
                let args = self.vector_args(args, Some(out));
                out.push(Stmt::Assign(
                    Place::Var(target),
                    "+=",
                    Expr::Component(helper, args, k),
                ));
            }
            0 | 1 => {
                let name = self.fresh("c");
                let k = self.rng.below(len);
                let scale = self.rng.value(-2.0, 2.0);
                let numbers = args.clone();
                let args = self.vector_args(args, Some(out));
                // Half of them (by the name, so the draws stay as they
                // were) iterate the value where the call is made.
                let e = if name.ends_with(['1', '3', '5', '7', '9']) {
                    self.tag("vector call iterated in place");
                    let sum = Expr::ComponentSum(helper.clone(), args, scale);
                    // Some as the right operand of an operator, after a
                    // left one that writes nothing (`0.5 * v(a, b).iter()
                    // ..`).
                    if name.ends_with(['3', '7']) {
                        self.tag("vector call iterated in place as a right operand");
                        Expr::Bin("*", Box::new(Expr::Lit(0.5)), Box::new(sum))
                    } else {
                        sum
                    }
                } else {
                    self.tag("vector call indexed in place");
                    Expr::Bin(
                        "*",
                        Box::new(Expr::Component(helper.clone(), args, k)),
                        Box::new(Expr::Lit(scale)),
                    )
                };
                out.push(Stmt::Let(name.clone(), e));
                self.declare(&name, Kind::Scalar, false);
                // Now and then (by the name) at the top level, with the
                // same arguments, the file's matrix helper walked row by
                // row, each row borrowed by the loop's index.
                if !(nested || (self.compiled && self.returns)) && name.ends_with(['0', '4', '8']) {
                    let acc = self.fresh("s");
                    self.tag(if acc.ends_with(['1', '2', '3', '4', '5', '6']) {
                        "a helper's matrix, its rows walked"
                    } else if acc.ends_with(['7', '8', '9']) {
                        "a helper's matrix made again by nested collects"
                    } else {
                        "a helper's matrix, each row borrowed by index"
                    });
                    out.push(Stmt::MatrixRows(format!("m{helper}"), numbers, acc.clone()));
                    self.declare(&acc, Kind::Scalar, true);
                }
            }
            2 if len == 2 => {
                self.tag("array pattern bound to a vector call");
                let (u, v) = (self.fresh("u"), self.fresh("u"));
                let args = self.vector_args(args, Some(out));
                out.push(Stmt::Destructure(
                    format!("[{u}, {v}]"),
                    Expr::Call(helper, args),
                ));
                self.declare(&u, Kind::Scalar, false);
                self.declare(&v, Kind::Scalar, false);
                if self.compiled && (nested || self.returns) {
                    // One of them read: a call never read keeps the tape
                    // in a loop that jumps or a body with `return`
                    // (README; seed 20283 f2_9).
                    let r = self.fresh("u");
                    out.push(Stmt::Let(
                        r.clone(),
                        Expr::Bin("+", Box::new(Expr::Var(u)), Box::new(Expr::Var(v))),
                    ));
                    self.declare(&r, Kind::Scalar, false);
                }
            }
            _ => {
                self.tag("tuple pattern bound to a vector call");
                let (c, w) = (self.fresh("c"), self.fresh("w"));
                // Now and then the number is not wanted.
                let first = if self.rng.chance(20) {
                    "_".to_owned()
                } else {
                    c.clone()
                };
                let call = Expr::Call(format!("t{helper}"), args);
                // A third of them (by name) keep the pair as a state the
                // call is assigned to whole: at the top level, where the
                // compiled adjoint takes it (bound inside a loop's branch it
                // keeps the tape; seed 20602 g13_6).
                if !(nested || (self.compiled && self.returns)) && w.ends_with(['2', '5', '8']) {
                    self.tag("tuple state assigned a vector call whole");
                    let first = (first != "_").then(|| first.clone());
                    out.push(Stmt::TupleState(first, w.clone(), call));
                } else {
                    out.push(Stmt::Destructure(format!("({first}, {w})"), call));
                }
                if first != "_" {
                    self.declare(&c, Kind::Scalar, false);
                }
                if nested || (self.compiled && self.returns) {
                    // Inside a loop or a branch the `Vec` is read by its
                    // elements only: iterated there (`for v in w.iter()`,
                    // `w.chunks(2)`) it keeps the tape (README); so it
                    // does in a body with `return` (seeds 20259, 20271:
                    // its items saved for the reverse need a shape the
                    // caller does not see).
                    let u = self.fresh("u");
                    let k = self.rng.below(2);
                    out.push(Stmt::Let(u.clone(), Expr::Elem(w, Idx::Const(k))));
                    self.declare(&u, Kind::Scalar, false);
                } else {
                    self.declare(&w, Kind::Array(2), false);
                    self.tuple_vecs.push(w);
                }
            }
        }
        true
    }

    /// A leaf, scaled, or a leaf's `tanh`: no block, closure or macro,
    /// which would leave the call in place.
    fn call_value_argument(&mut self) -> Expr {
        let leaf = self.leaf();
        match self.rng.below(3) {
            0 => leaf,
            1 => Expr::Bin(
                "*",
                Box::new(Expr::Lit(self.rng.value(-1.5, 1.5))),
                Box::new(leaf),
            ),
            _ => Expr::Method("tanh", Box::new(leaf)),
        }
    }
}

/// A random expression of a file helper's two numbers `x0` and `x1`,
/// plain and dual.
fn helper_expression(gen: &mut Gen) -> (String, String) {
    gen.vars.clear();
    gen.loops.clear();
    gen.compiled = true;
    gen.declare("x0", Kind::Scalar, false);
    gen.declare("x1", Kind::Scalar, false);
    let a = gen.expr(2);
    (render(&a, Dialect::Plain), render(&a, Dialect::Dual))
}

/// The file's tuple-valued helper `name(x0, x1) -> (f64, Vec<f64>)`, plain
/// and dual, built from a random expression of its parameters.
fn tuple_helper(gen: &mut Gen, name: &str) -> (String, String) {
    let (plain, dual) = helper_expression(gen);
    // The tail's `Vec`: a literal, a binding grown by `push`, or a chain's
    // `collect()` (its reverse compiled: the tail's items bound first),
    // also bound by a `let` that only the return type types.
    let (tail_plain, tail_dual) = match gen.rng.below(4) {
        0 => (
            "(a * x1, vec![a.tanh(), x0 * a])".to_owned(),
            "(a * x1, vec![a.tanh(), x0 * a])".to_owned(),
        ),
        1 => (
            "let mut v = Vec::new();\n    v.push(a.tanh());\n    v.push(x0 * a);\n    (a * x1, v)".to_owned(),
            "let mut v = Vec::new();\n        v.push(a.tanh());\n        v.push(x0 * a);\n        (a * x1, v)".to_owned(),
        ),
        2 => (
            "(a * x1, [a.tanh(), x0 * a].iter().map(|t| t * 2.0).collect())".to_owned(),
            "(a * x1, [a.tanh(), x0 * a].iter().map(|t| *t * D::c(2.0)).collect())".to_owned(),
        ),
        _ => (
            "let v = [a.tanh(), x0 * a].iter().map(|t| t * 2.0).collect();\n    (a * x1, v)".to_owned(),
            "let v: Vec<D> = [a.tanh(), x0 * a].iter().map(|t| *t * D::c(2.0)).collect();\n        (a * x1, v)".to_owned(),
        ),
    };
    (
        format!("#[differentiable]\nfn {name}(x0: f64, x1: f64) -> (f64, Vec<f64>) {{\n    let a = {plain};\n    {tail_plain}\n}}\n"),
        format!("    pub fn {name}(x0: D, x1: D) -> (D, Vec<D>) {{\n        let a = {dual};\n        {tail_dual}\n    }}\n"),
    )
}

/// The file's matrix-valued helper `name(x0, x1) -> Vec<Vec<f64>>`, two
/// rows of two, plain and dual.
fn matrix_helper(gen: &mut Gen, name: &str) -> (String, String) {
    let (plain, dual) = helper_expression(gen);
    let rows = "vec![vec![a * x1, a.tanh()], vec![x0 * a, x1 - a]]";
    (
        format!("#[differentiable]\nfn {name}(x0: f64, x1: f64) -> Vec<Vec<f64>> {{\n    let a = {plain};\n    {rows}\n}}\n"),
        format!("    pub fn {name}(x0: D, x1: D) -> Vec<Vec<D>> {{\n        let a = {dual};\n        {rows}\n    }}\n"),
    )
}

impl Expr {
    fn scaled(self, factor: f64) -> Expr {
        Expr::Bin("*", Box::new(Expr::Lit(factor)), Box::new(self))
    }
}

/// How many forms [`Expr::Select`] is written in.
const SELECT_FORMS: usize = 9;

/// The dual-number twin's support: `D` wraps the oracle's `Dual` with the
/// operators and methods the bodies use.
const DUAL_SUPPORT: &str = r#"
mod twins {
    #![allow(dead_code)]
    use super::dual::Dual;
    use std::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Neg, Sub, SubAssign};

    #[derive(Clone, Copy, Debug)]
    pub struct D(pub Dual);

    impl D {
        pub fn c(v: f64) -> D { D(Dual::constant(v)) }
        pub fn exp(self) -> D { D(self.0.exp()) }
        pub fn ln(self) -> D { D(self.0.ln()) }
        pub fn sqrt(self) -> D { D(self.0.sqrt()) }
        pub fn recip(self) -> D { D(self.0.recip()) }
        pub fn tanh(self) -> D { D(self.0.tanh()) }
        pub fn sin(self) -> D { D(self.0.sin()) }
        pub fn cos(self) -> D { D(self.0.cos()) }
        pub fn abs(self) -> D { D(self.0.abs()) }
        pub fn powi(self, n: i32) -> D { D(self.0.powi(n)) }
        pub fn powf(self, o: D) -> D { D(self.0.powf(o.0)) }
        pub fn max(self, o: D) -> D { D(self.0.max(o.0)) }
        pub fn min(self, o: D) -> D { D(self.0.min(o.0)) }
        pub fn atan2(self, o: D) -> D { D(self.0.atan2(o.0)) }
        // `f64`'s fused value, the tangent of the product and the sum.
        pub fn mul_add(self, a: D, b: D) -> D {
            let mut d = self * a + b;
            d.0.value = self.0.value.mul_add(a.0.value, b.0.value);
            d
        }
        pub fn total_cmp(&self, o: &D) -> std::cmp::Ordering { self.0.value.total_cmp(&o.0.value) }
    }
    pub fn relu(x: D) -> D { D(x.0.relu()) }
    pub fn sigmoid(x: D) -> D { D(x.0.sigmoid()) }

    impl Add for D { type Output = D; fn add(self, o: D) -> D { D(self.0.add(o.0)) } }
    impl Sub for D { type Output = D; fn sub(self, o: D) -> D { D(self.0.sub(o.0)) } }
    impl Mul for D { type Output = D; fn mul(self, o: D) -> D { D(self.0.mul(o.0)) } }
    impl Div for D { type Output = D; fn div(self, o: D) -> D { D(self.0.div(o.0)) } }
    impl Neg for D { type Output = D; fn neg(self) -> D { D(self.0.neg()) } }
    impl AddAssign for D { fn add_assign(&mut self, o: D) { *self = *self + o; } }
    impl SubAssign for D { fn sub_assign(&mut self, o: D) { *self = *self - o; } }
    impl MulAssign for D { fn mul_assign(&mut self, o: D) { *self = *self * o; } }
    impl DivAssign for D { fn div_assign(&mut self, o: D) { *self = *self / o; } }
    impl PartialEq for D { fn eq(&self, o: &D) -> bool { self.0.value == o.0.value } }
    impl PartialOrd for D {
        fn partial_cmp(&self, o: &D) -> Option<std::cmp::Ordering> { self.0.value.partial_cmp(&o.0.value) }
    }
"#;

const CHECK: &str = r#"
type Pair = (f64, Vec<f64>);

thread_local! {
    /// Set by a stand-in `f_adjoint`: the function keeps the tape.
    static FELL_BACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn fell_back() {
    FELL_BACK.with(|c| c.set(true));
}

/// One line per function for the report: name, compiled or not, how many
/// points the tape answered and rejected, and the constructs it uses.
/// Per function: compiled, points answered, points rejected, tags, why it
/// kept the tape, and whether an `f_hvp` ran the compiled adjoint on dual
/// numbers.
struct Report(std::collections::BTreeMap<String, (bool, usize, usize, &'static str, String, bool)>);

/// Central differences of the plain twin along input `i`.
fn central(plain: &impl Fn(&[f64]) -> f64, at: &[f64], i: usize) -> f64 {
    let h = 1e-6 * at[i].abs().max(1.0);
    let (mut up, mut down) = (at.to_vec(), at.to_vec());
    up[i] += h;
    down[i] -= h;
    (plain(&up) - plain(&down)) / (2.0 * h)
}

/// Differences of a gradient along input `i` with step `h`: central
/// (a column of the Hessian), forward and backward.
struct Differences {
    central: Vec<f64>,
    forward: Vec<f64>,
    backward: Vec<f64>,
}

fn gradient_differences(
    grad: &impl Fn(&[f64]) -> Result<Pair, ScalarAutodiffError>,
    at: &[f64],
    i: usize,
    h: f64,
) -> Option<Differences> {
    let (mut up, mut down) = (at.to_vec(), at.to_vec());
    up[i] += h;
    down[i] -= h;
    let (here, up, down) = (grad(at).ok()?.1, grad(&up).ok()?.1, grad(&down).ok()?.1);
    let each = |f: &dyn Fn(usize) -> f64| (0..here.len()).map(f).collect::<Vec<f64>>();
    Some(Differences {
        central: each(&|j| (up[j] - down[j]) / (2.0 * h)),
        forward: each(&|j| (up[j] - here[j]) / h),
        backward: each(&|j| (here[j] - down[j]) / h),
    })
}

/// Whether two estimates agree to a relative `tolerance`: the shared
/// `close`, from the oracle's file this program includes as `dual`.
use dual::close as agree;

/// `f_jvp` along each unit direction against the dual twin's tangent, and
/// `f_hvp` along it against central differences of `f_grad`: where the
/// gradient is smooth, every component must agree. Smooth: central
/// differences at three steps agree (a kink or a branch within the step
/// makes them disagree), and so do the forward and backward ones (a kink
/// of the gradient's slope at the point itself, `relu(x)·x` at 0, gives
/// central differences that average its two sides at every step); where
/// not, the point is not judged. Nor is it where the dual twin went
/// through a kink's documented choice (`kink`: `abs'(0) = 0` makes the
/// second derivative of `|s|·|s|` at `s = 0` 0, as in PyTorch, where the
/// function's is 2). A second-order error is allowed (a second
/// derivative can be infinite where the first is finite); any other is not.
#[allow(clippy::too_many_arguments)]
fn check_second_order(
    name: &str,
    source: &str,
    at: &[f64],
    gradient: &[f64],
    magnitudes: &[f64],
    slacks: &[f64],
    kink: bool,
    grad: &impl Fn(&[f64]) -> Result<Pair, ScalarAutodiffError>,
    jvp: &impl Fn(&[f64], &[f64]) -> Result<f64, ScalarAutodiffError>,
    hvp: &impl Fn(&[f64], &[f64]) -> Result<Pair, ScalarAutodiffError>,
) {
    for i in 0..at.len() {
        let unit: Vec<f64> = (0..at.len()).map(|j| if i == j { 1.0 } else { 0.0 }).collect();
        let slope = jvp(at, &unit).unwrap_or_else(|e| panic!("{name}{at:?}: f_jvp along x{i}: {e}\n{source}"));
        // As the dual twin is held: to the magnitude of the terms summed.
        assert!((slope - gradient[i]).abs() <= 1e-9 * magnitudes[i] + slacks[i], "{name}{at:?}: f_jvp along x{i} {slope} vs gradient {} (magnitude {})\n{source}", gradient[i], magnitudes[i]);
        let (value, column) = match hvp(at, &unit) {
            Ok(answer) => answer,
            Err(e) => {
                assert!(matches!(e.code(), "non-finite-second-derivative" | "non-finite-second-order-adjoint"), "{name}{at:?}: f_hvp along x{i}: {e}\n{source}");
                continue;
            }
        };
        if kink {
            continue; // the second derivative of a kink's choice
        }
        let h = 1e-5 * at[i].abs().max(1.0);
        // A step below the rounding of a large intermediate is not the
        // step taken (random seed 19759: `x0 − 8.9e8`, whose ulp 1.2e-7
        // rounds a step of 1e-5 by 1%, gave differences of `f_grad` that
        // agreed at three steps and were 1.4e-3 off; `f_hvp` matched the
        // closed form to 1e-15). The value stands in for the largest
        // intermediate: such a point is not judged.
        if f64::EPSILON * value.abs() / h > 1e-6 {
            continue;
        }
        // Three steps, one not a power of two apart, so that two agreeing
        // by chance where the gradient is rounding noise is less likely.
        let (Some(wide), Some(coarse), Some(fine)) = (
            gradient_differences(grad, at, i, 3.0 * h),
            gradient_differences(grad, at, i, h),
            gradient_differences(grad, at, i, h / 4.0),
        ) else {
            continue;
        };
        let (wide, coarse, sides, fine) = (&wide.central, &coarse.central, &fine, &fine.central);
        for j in 0..at.len() {
            // A kink at the point shows as sides that differ; the central
            // difference is their mean, one side's slope is what `f_hvp`
            // takes, half their difference apart: sides more than twice
            // the comparison's tolerance apart are a kink. (At 1e-3, a
            // kink of slopes 3e-4 and 6e-4 passed as smooth: random seed
            // 19729, `x3` at exactly 0.)
            if !agree(wide[j], fine[j], 1e-4)
                || !agree(coarse[j], fine[j], 1e-4)
                || !agree(sides.forward[j], sides.backward[j], 2e-4)
            {
                continue; // not smooth within the step, or a kink at the point
            }
            // A gradient component too large for the step to move it by
            // more than its rounding: the differences of `f_grad` are 0
            // at every step while `f_hvp`'s entry is not (random seed
            // 20640: ∂f/∂x2 = 2.9e21, whose ulp is 5e5, and H = -3.3e-3,
            // which the differences of the other component, 1.6e-3,
            // confirmed). Such an entry is not judged from this side.
            if f64::EPSILON * gradient[j].abs().max(magnitudes[j]) / (h / 4.0) > 1e-6 * column[j].abs().max(1.0) {
                continue;
            }
            assert!(
                agree(column[j], fine[j], 1e-4),
                "{name}{at:?}: H[{j}][{i}] by f_hvp {} vs central differences of f_grad {} (step {h}) and {} (step {})\n{source}",
                column[j], coarse[j], fine[j], h / 4.0
            );
        }
    }
}

/// Runs one function at one point through `f_adjoint` (the compiled path,
/// on a fresh stack), `f_grad`, `f_grad_tape`, the plain twin and the dual
/// twin (one sweep per input), then `f_jvp` and `f_hvp`
/// (`check_second_order`), and panics with its source on a mismatch.
#[allow(clippy::too_many_arguments)]
fn run(
    report: &mut Report,
    name: &str,
    source: &str,
    tags: &'static str,
    must_compile: bool,
    path: autodiff::GradientPath,
    at: &[f64],
    adjoint: impl Fn(&mut autodiff::__adjoint::Stack, &[f64]) -> Option<Pair>,
    grad: impl Fn(&[f64]) -> Result<Pair, ScalarAutodiffError>,
    tape: impl Fn(&[f64]) -> Result<Pair, ScalarAutodiffError>,
    plain: impl Fn(&[f64]) -> f64,
    dual: impl Fn(&[twins::D]) -> twins::D,
    jvp: impl Fn(&[f64], &[f64]) -> Result<f64, ScalarAutodiffError>,
    hvp: impl Fn(&[f64], &[f64]) -> Result<Pair, ScalarAutodiffError>,
) {
    FELL_BACK.with(|c| c.set(false));
    let reruns = autodiff::__adjoint::tape_reruns();
    let (direct, empty) = autodiff::__adjoint::with_stack(|stack| {
        let direct = adjoint(stack, at);
        (direct, stack.is_empty())
    });
    // A compiled adjoint that answered but ran a helper's `f_vjp` on the
    // tape inside (its reverse not compiled) is a fallback too, one that
    // `f_grad_path` does not name.
    let helper_on_tape = direct.is_some() && autodiff::__adjoint::tape_reruns() != reruns;
    let compiled = !FELL_BACK.with(|c| c.get());
    if compiled && helper_on_tape && must_compile {
        assert!(LENIENT, "{name}: drawn from compiled constructs, ran a helper on the tape\n{source}");
        eprintln!("{name}: drawn from compiled constructs, ran a helper on the tape (not failed: RANDOM_FUNCTIONS_LENIENT)");
    }
    if !compiled && must_compile {
        // A fallback is slow, not wrong: a long run notes it and checks on.
        assert!(LENIENT, "{name}: drawn from compiled constructs, keeps the tape ({path:?})\n{source}");
        eprintln!("{name}: drawn from compiled constructs, keeps the tape ({path:?}; not failed: RANDOM_FUNCTIONS_LENIENT)");
    }
    let tape_result = tape(at);
    let entry = report.0.entry(name.to_owned()).or_insert_with(|| {
        let why = match path {
            autodiff::GradientPath::Compiled => String::new(),
            autodiff::GradientPath::Tape { construct, line } => format!("{construct} (line {line})"),
        };
        (compiled, 0, 0, tags, why, false)
    });
    if tape_result.is_ok() { entry.1 += 1 } else { entry.2 += 1 }
    let (value, gradient) = match (grad(at), tape_result) {
        (Ok((value, gradient)), Ok((tape_value, tape_gradient))) => {
            assert_eq!(value.to_bits(), tape_value.to_bits(), "{name}{at:?}: value vs tape\n{source}");
            if compiled {
                let (direct_value, direct_gradient) = direct.unwrap_or_else(|| {
                    panic!("{name}{at:?}: the tape answers, f_adjoint returned None\n{source}")
                });
                assert!(empty, "{name}{at:?}: f_adjoint left its stack not empty\n{source}");
                assert_eq!(direct_value.to_bits(), value.to_bits(), "{name}{at:?}: f_adjoint vs f_grad\n{source}");
                assert_eq!(direct_gradient, gradient, "{name}{at:?}: f_adjoint vs f_grad\n{source}");
            }
            let scale = tape_gradient.iter().fold(1.0_f64, |m, g| m.max(g.abs()));
            for (a, b) in gradient.iter().zip(&tape_gradient) {
                assert!((a - b).abs() <= 1e-12 * scale || (a - b).abs() <= 1e-14 * scale.max(1e3),
                    "{name}{at:?}: compiled {a} vs tape {b}\n{source}");
            }
            (value, gradient)
        }
        (Err(a), Err(b)) => {
            assert_eq!(format!("{a:?}"), format!("{b:?}"), "{name}{at:?}\n{source}");
            return;
        }
        (a, b) => panic!("{name}{at:?}: compiled {a:?} vs tape {b:?}\n{source}"),
    };
    assert_eq!(value.to_bits(), plain(at).to_bits(), "{name}{at:?}: value vs plain twin\n{source}");
    let mut magnitudes = Vec::with_capacity(at.len());
    let mut slacks = Vec::with_capacity(at.len());
    let mut kink = false;
    for i in 0..at.len() {
        let seeded: Vec<twins::D> = at
            .iter()
            .enumerate()
            .map(|(j, &v)| twins::D(dual::Dual::input(v, i == j)))
            .collect();
        let d = dual(&seeded).0;
        magnitudes.push(d.magnitude);
        // A chain-rule product below the normal range (`underflow`) left
        // the dual's tangent with few digits, and the reverse, multiplying
        // in another order, with others: they may differ there by less
        // than the smallest normal number, not more.
        let slack = if d.underflow { f64::MIN_POSITIVE } else { 0.0 };
        slacks.push(slack);
        kink |= d.kink;
        assert_eq!(value.to_bits(), d.value.to_bits(), "{name}{at:?}: value vs dual twin\n{source}");
        // Written so that a NaN from the oracle fails rather than passes.
        if !((gradient[i] - d.tangent).abs() <= 1e-9 * d.magnitude + slack) {
            // A kink shows as central differences that disagree with the
            // dual number here or at a nearby point.
            let near: Vec<f64> = at.iter().map(|v| v + 1e-3).collect();
            panic!(
                "{name}{at:?}: d/dx{i} reverse {} vs dual {} (magnitude {}); central differences {} here, {} at {near:?} (reverse there {:?})\n{source}",
                gradient[i], d.tangent, d.magnitude, central(&plain, at, i), central(&plain, &near, i),
                grad(&near).map(|(_, g)| g[i]),
            );
        }
    }
    let hvps_before = autodiff::__adjoint::compiled_hvps();
    check_second_order(name, source, at, &gradient, &magnitudes, &slacks, kink, &grad, &jvp, &hvp);
    if autodiff::__adjoint::compiled_hvps() > hvps_before {
        if let Some(entry) = report.0.get_mut(name) {
            entry.5 = true;
        }
    }
}

impl Report {
    fn write(&self, path: &str) {
        let mut out = String::new();
        for (name, (compiled, ok, err, tags, why, hvp)) in &self.0 {
            out.push_str(&format!("{name}\t{compiled}\t{ok}\t{err}\t{tags}\t{why}\t{hvp}\n"));
        }
        std::fs::write(path, out).unwrap();
    }
}
"#;

/// How the harness calls a generated function from the flat point `a`
/// (and direction `v`) of its differentiable parameters: its arguments
/// (`a[0]`, `&a[1..4]` for a slice, the values of a `#[constant]`), the
/// same for the dual twin, its gradient flattened (`FIELD` stands for
/// `gradient` or `hvp`), and a direction shaped like the gradient.
fn arguments(params: &[Param]) -> [String; 4] {
    let differentiable = params.iter().filter(|p| p.differentiable()).count();
    let mut at = 0;
    let (mut args, mut dual_args) = (Vec::new(), Vec::new());
    let (mut flat, mut direction) = (Vec::new(), Vec::new());
    for param in params {
        if let Some(ids) = &param.ids {
            let list: Vec<String> = ids.iter().map(usize::to_string).collect();
            let arg = if param.by_value {
                format!("vec![{}]", list.join(", "))
            } else {
                format!("&[{}]", list.join(", "))
            };
            args.push(arg.clone());
            dual_args.push(arg);
            continue;
        }
        if let Some(values) = &param.constant {
            let plain: Vec<String> = values.iter().map(|v| format!("{v:?}_f64")).collect();
            let dual: Vec<String> = values
                .iter()
                .map(|v| format!("twins::D::c({v:?})"))
                .collect();
            match param.slice {
                None => {
                    args.push(plain[0].clone());
                    dual_args.push(dual[0].clone());
                }
                Some(_) => {
                    args.push(format!("&[{}]", plain.join(", ")));
                    dual_args.push(format!("&[{}]", dual.join(", ")));
                }
            }
            continue;
        }
        let field = if differentiable == 1 {
            "r.FIELD".to_owned()
        } else {
            format!("r.FIELD.{}", direction.len())
        };
        if param.stack {
            let layer = |ty: &str, k: usize| {
                let from = at + k * (MODEL_W + 1);
                format!(
                    "{ty} {{ w: a[{from}..{}].to_vec(), b: a[{}], act: ACT }}",
                    from + MODEL_W,
                    from + MODEL_W
                )
            };
            let layers = |ty: &str| {
                (0..STACK)
                    .map(|k| layer(ty, k))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            args.push(format!("&[{}]", layers("Model")));
            dual_args.push(format!("&[{}]", layers("twins::DModel")));
            flat.push(format!(
                "g.extend(autodiff::Parameters::scalars(&{field}));"
            ));
            direction.push(format!("vec![{}]", layers("Model").replace("a[", "v[")));
            at += STACK * (MODEL_W + 1);
            continue;
        }
        if param.model {
            let (w, b) = (
                format!("a[{at}..{}].to_vec()", at + MODEL_W),
                format!("a[{}]", at + MODEL_W),
            );
            args.push(format!("&Model {{ w: {w}, b: {b}, act: ACT }}"));
            dual_args.push(format!("&twins::DModel {{ w: {w}, b: {b}, act: ACT }}"));
            flat.push(format!(
                "g.extend(autodiff::Parameters::scalars(&{field}));"
            ));
            direction.push(format!(
                "Model {{ w: v[{at}..{}].to_vec(), b: v[{}], act: ACT }}",
                at + MODEL_W,
                at + MODEL_W
            ));
            at += MODEL_W + 1;
            continue;
        }
        let arg = match param.slice {
            None => {
                flat.push(format!("g.push({field});"));
                direction.push(format!("v[{at}]"));
                at += 1;
                format!("a[{}]", at - 1)
            }
            Some(n) if param.rows => {
                flat.push(format!("g.extend({field}.iter().flatten());"));
                let rows = |of: &str| {
                    (0..ROWS)
                        .map(|k| {
                            let from = at + k * n;
                            format!("{of}[{from}..{}].to_vec()", from + n)
                        })
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                direction.push(format!("vec![{}]", rows("v")));
                let arg = format!("&[{}]", rows("a"));
                at += ROWS * n;
                arg
            }
            Some(n) => {
                flat.push(format!("g.extend_from_slice(&{field});"));
                direction.push(format!("v[{at}..{}].to_vec()", at + n));
                at += n;
                format!("&a[{}..{at}]", at - n)
            }
        };
        args.push(arg.clone());
        dual_args.push(arg);
    }
    let gradient = format!("{{ let mut g = Vec::new(); {} g }}", flat.join(" "));
    let direction = match direction.as_slice() {
        [one] => one.clone(),
        _ => format!("({})", direction.join(", ")),
    };
    [args.join(", "), dual_args.join(", "), gradient, direction]
}

struct Rendered {
    name: String,
    params: Vec<Param>,
    plain: String,
    dual: String,
    tags: String,
    compiled: bool,
}

fn render_function(name: &str, function: &Function) -> Rendered {
    let signature = |ty: &str| {
        function
            .params
            .iter()
            .map(|param| {
                let ty = if param.ids.is_some() {
                    if param.by_value {
                        "Vec<usize>"
                    } else {
                        "&[usize]"
                    }
                    .to_owned()
                } else if param.stack {
                    if ty == "D" { "&[DModel]" } else { "&[Model]" }.to_owned()
                } else if param.model {
                    if ty == "D" { "&DModel" } else { "&Model" }.to_owned()
                } else if param.rows {
                    format!("&[Vec<{ty}>]")
                } else if param.slice.is_some() {
                    format!("&[{ty}]")
                } else {
                    ty.to_owned()
                };
                let constant = if param.constant.is_some() && ty.contains("f64") {
                    "#[constant] "
                } else {
                    ""
                };
                let mutable = if param.mutable { "mut " } else { "" };
                format!("{constant}{mutable}{}: {ty}", param.name)
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut plain = String::new();
    render_block(&function.body, Dialect::Plain, 1, &mut plain);
    let plain = format!(
        "#[differentiable]\nfn {name}({}) -> f64 {{\n{plain}    {}\n}}\n",
        signature("f64"),
        render(&function.result, Dialect::Plain)
    );
    let mut dual = String::new();
    render_block(&function.body, Dialect::Dual, 2, &mut dual);
    let dual = format!(
        "    pub fn {name}({}) -> D {{\n{dual}        {}\n    }}\n",
        signature("D"),
        render(&function.result, Dialect::Dual)
    );
    Rendered {
        name: name.to_owned(),
        params: function.params.clone(),
        plain,
        dual,
        tags: function.tags.join(", "),
        compiled: function.compiled,
    }
}

/// The file's annotated methods on `Model`, and their dual twins on
/// `DModel`: `mix(&self, a, u)`, a number from a random expression of
/// its arguments and the model's fields, and `mv(&self, x)`, a `Vec` as
/// long as `x` (at most [`MODEL_W`]), each item its own affine map of
/// `x`'s through `tanh`, scaled by a random expression of the bias.
fn model_methods(gen: &mut Gen) -> (String, String) {
    gen.vars.clear();
    gen.loops.clear();
    gen.compiled = true;
    gen.declare("a", Kind::Scalar, false);
    gen.declare("u", Kind::Scalar, false);
    gen.declare("self.w", Kind::Array(MODEL_W), false);
    gen.declare("self.b", Kind::Scalar, false);
    let mix = gen.expr(2);
    gen.vars.clear();
    gen.declare("self.b", Kind::Scalar, false);
    gen.declare("self.w", Kind::Array(MODEL_W), false);
    let scale = gen.expr(1);
    // The enum field chooses `t` or `t * t`: by `match`, by `==`, or by a
    // `match` of a copy bound first.
    let act = gen.rng.below(3);
    // The weight `t` scales: the first, or the largest, at the position the
    // model's plain method `top` finds.
    let first = if gen.rng.chance(50) {
        "self.top()"
    } else {
        "0"
    };
    let text = |dialect: Dialect, number: &str, pad: &str| {
        let (mix, scale) = (render(&mix, dialect), render(&scale, dialect));
        let ty = if dialect == Dialect::Dual {
            "super::Act"
        } else {
            "Act"
        };
        let chosen = match act {
            0 => format!(
                "    let t = match self.act {{ {ty}::Lin => t, {ty}::Sq => t * t, {ty}::Leaky(k) => {} * t }};",
                if dialect == Dialect::Dual { "D::c(k)" } else { "k" }
            ),
            1 => format!("    let t = if self.act == {ty}::Sq {{ t * t }} else {{ t }};"),
            _ => format!(
                "    let act = self.act;\n    let t = match act {{ {ty}::Sq => t * t, _ => t }};"
            ),
        };
        [
            format!("pub fn mix(&self, a: {number}, u: {number}) -> {number} {{"),
            format!("    let t = {mix};"),
            chosen,
            format!("    t * self.w[{first}] + self.b"),
            "}".to_owned(),
            format!("pub fn mv(&self, x: &[{number}]) -> Vec<{number}> {{"),
            "    let mut out = Vec::new();".to_owned(),
            "    for i in 0..x.len() {".to_owned(),
            format!("        out.push((x[i] * self.w[i] + self.b).tanh() * {scale});"),
            "    }".to_owned(),
            "    out".to_owned(),
            "}".to_owned(),
        ]
        .iter()
        .map(|line| format!("{pad}{line}\n"))
        .collect::<String>()
    };
    (
        format!(
            "#[differentiable]\nimpl Model {{\n{}}}\n",
            text(Dialect::Plain, "f64", "    ")
        ),
        format!(
            "    impl DModel {{\n{}    }}\n",
            text(Dialect::Dual, "D", "        ")
        ),
    )
}

fn generate_file(rng: &mut Rng, file: usize, functions: usize, report: &str) -> String {
    let dual_path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/support/oracle.rs");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "// Generated by tests/random_functions.rs; not checked in."
    );
    let _ = writeln!(out, "#![allow(unused, clippy::all)]");
    let _ = writeln!(out, "use autodiff::prelude::*;");
    out.push_str(MODEL);
    let _ = writeln!(
        out,
        "const ACT: Act = Act::{};",
        ACTS[rng.below(ACTS.len())]
    );
    let _ = writeln!(out, "#[path = {dual_path:?}]\nmod dual;");
    let lenient = std::env::var_os("RANDOM_FUNCTIONS_LENIENT").is_some();
    let _ = writeln!(out, "const LENIENT: bool = {lenient};");
    out.push_str(CHECK);

    let mut gen = Gen {
        rng: Rng(rng.next() | 1),
        vars: Vec::new(),
        loops: Vec::new(),
        helpers: Vec::new(),
        vector: None,
        integer: Some(format!("ih{file}")),
        vector_takes: Takes::Numbers,
        fresh: 0,
        reserved: 0,
        tags: Vec::new(),
        compiled: true,
        frozen: false,
        nesting: 0,
        returns: true,
        closures: Vec::new(),
        index_closures: Vec::new(),
        stacks: Vec::new(),
        ids: Vec::new(),
        not_moved: Vec::new(),
        slice_params: Vec::new(),
        gone: Vec::new(),
        tuple_vecs: Vec::new(),
        models: Vec::new(),
        numbers_only: false,
    };
    let mut rendered = Vec::new();
    let mut helpers = Vec::new();
    // The vector-valued helper: two components built from random
    // expressions of its parameters, as a `Vec` (with a third) or an array.
    // Named apart from every local (`v7` would be a `Vec` of file 7).
    let vector_name = format!("vh{file}");
    let (vector_plain, vector_dual, vector_len) = {
        gen.vars.clear();
        gen.loops.clear();
        gen.compiled = true;
        gen.declare("x0", Kind::Scalar, false);
        gen.declare("x1", Kind::Scalar, false);
        let (a, b) = (gen.expr(2), gen.expr(2));
        let is_vec = gen.rng.chance(50);
        let (plain_a, plain_b) = (render(&a, Dialect::Plain), render(&b, Dialect::Plain));
        let (dual_a, dual_b) = (render(&a, Dialect::Dual), render(&b, Dialect::Dual));
        // Now and then the two numbers come as one slice or one `Vec`.
        gen.vector_takes = match gen.rng.below(5) {
            0 | 1 => Takes::Numbers,
            2 => Takes::Slice,
            3 => Takes::Vec,
            _ => Takes::SliceAndData,
        };
        // With data `d`, the numbers are the products and sums of both
        // slices' items, whichever holds the constants.
        let data_unpack = "    let x0 = x[0] * d[0];\n    let x1 = x[1] + d[1];\n";
        let dual_data_unpack = "        let x0 = x[0] * d[0];\n        let x1 = x[1] + d[1];\n";
        let unpack = "    let x0 = x[0];\n    let x1 = x[1];\n";
        let dual_unpack = "        let x0 = x[0];\n        let x1 = x[1];\n";
        let (params, dual_params, unpack, dual_unpack) = match gen.vector_takes {
            Takes::Numbers => ("x0: f64, x1: f64", "x0: D, x1: D", "", ""),
            Takes::Slice => ("x: &[f64]", "x: &[D]", unpack, dual_unpack),
            Takes::Vec => ("x: Vec<f64>", "x: Vec<D>", unpack, dual_unpack),
            Takes::SliceAndData => (
                "x: &[f64], d: &[f64]",
                "x: &[D], d: &[D]",
                data_unpack,
                dual_data_unpack,
            ),
        };
        if is_vec {
            // The items as written, or scaled by a chain whose `collect()`
            // only the return type types (`let out = ..collect(); out`).
            let (tail, dual_tail) = if gen.rng.chance(40) {
                (
                    "let out = [a * b, a.sin() + x1, b / (x0 * x0 + 0.5)].iter().map(|t| t * 1.5).collect();\n    out",
                    "let out: Vec<D> = [a * b, a.sin() + x1, b / (x0 * x0 + D::c(0.5))].iter().map(|t| *t * D::c(1.5)).collect();\n        out",
                )
            } else {
                (
                    "vec![a * b, a.sin() + x1, b / (x0 * x0 + 0.5)]",
                    "vec![a * b, a.sin() + x1, b / (x0 * x0 + D::c(0.5))]",
                )
            };
            (
                format!("#[differentiable]\nfn {vector_name}({params}) -> Vec<f64> {{\n{unpack}    let a = {plain_a};\n    let b = {plain_b};\n    {tail}\n}}\n"),
                format!("    pub fn {vector_name}({dual_params}) -> Vec<D> {{\n{dual_unpack}        let a = {dual_a};\n        let b = {dual_b};\n        {dual_tail}\n    }}\n"),
                3,
            )
        } else {
            (
                format!("#[differentiable]\nfn {vector_name}({params}) -> [f64; 2] {{\n{unpack}    let a = {plain_a};\n    [a * x0, {plain_b} - a]\n}}\n"),
                format!("    pub fn {vector_name}({dual_params}) -> [D; 2] {{\n{dual_unpack}        let a = {dual_a};\n        [a * x0, {dual_b} - a]\n    }}\n"),
                2,
            )
        }
    };
    let (tuple_plain, tuple_dual) = tuple_helper(&mut gen, &format!("t{vector_name}"));
    let (matrix_plain, matrix_dual) = matrix_helper(&mut gen, &format!("m{vector_name}"));
    let (methods_plain, methods_dual) = model_methods(&mut gen);
    gen.vector = Some((vector_name, vector_len));
    for j in 0..1 + gen.rng.below(2) {
        let name = format!("h{file}_{j}");
        let arity = 1 + gen.rng.below(2);
        let function = gen.function(arity, Vec::new(), true);
        rendered.push(render_function(&name, &function));
        helpers.push((name, arity));
    }
    for k in 0..functions {
        let arity = 1 + gen.rng.below(4);
        // A body of more than 1500 tokens keeps the tape by design: a
        // compiled function is drawn again until it is shorter.
        let function = loop {
            let function = gen.function(arity, helpers.clone(), false);
            let mut text = String::new();
            render_block(&function.body, Dialect::Plain, 0, &mut text);
            if !function.compiled || text.len() < 3000 {
                break function;
            }
        };
        // `f`: compiled constructs only; `g`: any.
        let name = format!("{}{file}_{k}", if function.compiled { 'f' } else { 'g' });
        rendered.push(render_function(&name, &function));
    }
    // Stand-ins for the `f_adjoint`s the macro does not generate: a glob
    // import, which the generated item shadows when there is one.
    out.push_str("mod stand_ins {\n    use autodiff::prelude::*;\n    use super::Model;\n");
    for f in &rendered {
        let types =
            |number: &str, slice: &str, model: &str, stack: &str, constants: bool| -> Vec<String> {
                f.params
                    .iter()
                    .filter(|param| constants || param.differentiable())
                    .map(|param| {
                        if param.ids.is_some() {
                            if param.by_value {
                                "_: Vec<usize>"
                            } else {
                                "_: &[usize]"
                            }
                        } else if param.rows {
                            // `Vec<f64>` → `Vec<Vec<f64>>`, `_: &[f64]` →
                            // `_: &[Vec<f64>]`.
                            if slice.starts_with('_') {
                                "_: &[Vec<f64>]"
                            } else {
                                "Vec<Vec<f64>>"
                            }
                        } else if param.stack {
                            stack
                        } else if param.model {
                            model
                        } else if param.slice.is_some() {
                            slice
                        } else {
                            number
                        }
                        .to_owned()
                    })
                    .collect()
            };
        let grad_type = match types("f64", "Vec<f64>", "Model", "Vec<Model>", false).as_slice() {
            [one] => one.clone(),
            all => format!("({})", all.join(", ")),
        };
        let _ = writeln!(
            out,
            "    pub fn {}_adjoint(_: &mut autodiff::__adjoint::Stack, {}) -> Option<ValueAndGradient<{grad_type}>> {{ super::fell_back(); None }}",
            f.name,
            types("_: f64", "_: &[f64]", "_: &Model", "_: &[Model]", true).join(", ")
        );
    }
    out.push_str("}\nuse stand_ins::*;\n\n");
    for f in &rendered {
        out.push_str(&f.plain);
        let _ = writeln!(
            out,
            "const SRC_{}: &str = {:?};",
            f.name.to_uppercase(),
            f.plain
        );
    }
    out.push_str(&vector_plain);
    let _ = writeln!(
        out,
        "#[differentiable]\nfn ih{file}(x: f64, n: usize, k: u32, m: i64) -> f64 {{\n    x * n as f64 + (k as f64) * x.sin() - (m as f64) * 0.25 * x * x\n}}"
    );
    out.push_str(&tuple_plain);
    out.push_str(&matrix_plain);
    out.push_str(&methods_plain);
    out.push_str(DUAL_SUPPORT);
    out.push_str(DUAL_MODEL);
    out.push_str(&vector_dual);
    let _ = writeln!(
        out,
        "    pub fn ih{file}(x: D, n: usize, k: u32, m: i64) -> D {{\n        x * D::c(n as f64) + D::c(k as f64) * x.sin() - D::c(m as f64 * 0.25) * x * x\n    }}"
    );
    out.push_str(&tuple_dual);
    out.push_str(&matrix_dual);
    out.push_str(&methods_dual);
    for f in &rendered {
        out.push_str(&f.dual);
    }
    out.push_str("}\n\nfn main() {\n    let mut report = Report(Default::default());\n");
    for f in &rendered {
        let [args, dual_args, field, direction] = arguments(&f.params);
        let (gradient, hvp) = (
            field.replace("FIELD", "gradient"),
            field.replace("FIELD", "hvp"),
        );
        let name = &f.name;
        let src = format!("SRC_{}", name.to_uppercase());
        for _ in 0..POINTS {
            let inputs = f.params.iter().filter(|p| p.differentiable());
            let at: Vec<String> = (0..inputs
                .map(|p| {
                    if p.stack {
                        STACK * (MODEL_W + 1)
                    } else if p.model {
                        MODEL_W + 1
                    } else if p.rows {
                        ROWS * p.slice.unwrap_or(1)
                    } else {
                        p.slice.unwrap_or(1)
                    }
                })
                .sum())
                .map(|_| format!("{:?}", gen.rng.value(-1.5, 1.5)))
                .collect();
            let _ = writeln!(
                out,
                "    run(&mut report, {name:?}, {src}, {tags:?}, {must}, {name}_grad_path(), &[{at}], |s: &mut autodiff::__adjoint::Stack, a: &[f64]| {name}_adjoint(s, {args}).map(|r| (r.value, {gradient})), |a: &[f64]| {name}_grad({args}).map(|r| (r.value, {gradient})), |a: &[f64]| {name}_grad_tape({args}).map(|r| (r.value, {gradient})), |a: &[f64]| {name}({args}), |a: &[twins::D]| twins::{name}({dual_args}), |a: &[f64], v: &[f64]| {name}_jvp({args}, {direction}).map(|r| r.tangent), |a: &[f64], v: &[f64]| {name}_hvp({args}, {direction}).map(|r| (r.value, {hvp})));",
                tags = f.tags,
                must = f.compiled,
                at = at.join(", ")
            );
        }
    }
    let _ = writeln!(out, "    report.write({report:?});\n}}");
    out
}

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_differentiable_functions_match_dual_numbers() {
    let seed = env("RANDOM_FUNCTIONS_SEED", 0x0006_f00d);
    let files = env("RANDOM_FUNCTIONS_FILES", FILES as u64) as usize;
    let functions = env("RANDOM_FUNCTIONS_PER_FILE", FUNCTIONS as u64) as usize;
    // Odd and distinct for every seed (`seed | 1` gave 2k and 2k + 1 one
    // stream: half of every run of consecutive seeds repeated the other).
    let mut rng = Rng((seed << 1) | 1);
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("random-functions");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let reports: Vec<PathBuf> = (0..files)
        .map(|file| dir.join(format!("report_{file}.txt")))
        .collect();
    {
        let cases = trybuild::TestCases::new();
        for (file, report) in reports.iter().enumerate() {
            let path = dir.join(format!("random_{file}.rs"));
            let source = generate_file(&mut rng, file, functions, report.to_str().unwrap());
            std::fs::write(&path, source).unwrap();
            cases.pass(path);
        }
        // trybuild builds and runs every file when `cases` is dropped.
    }
    summarize(seed, &reports);
}

/// Prints how many functions took the compiled path and how many kept the
/// tape, with the constructs the fallen-back ones use and the reasons
/// `f_grad_path` gives for them.
fn summarize(seed: u64, reports: &[PathBuf]) {
    let (mut compiled, mut fallback, mut ok, mut err, mut hvps) = (0, 0, 0, 0, 0);
    let mut tags: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut reasons: BTreeMap<String, usize> = BTreeMap::new();
    for path in reports {
        let text = std::fs::read_to_string(path).expect("every generated program wrote its report");
        for line in text.lines() {
            let fields: Vec<&str> = line.split('\t').collect();
            let is_compiled = fields[1] == "true";
            hvps += usize::from(fields.get(6) == Some(&"true"));
            if is_compiled {
                compiled += 1;
            } else {
                fallback += 1;
                // The construct `f_grad_path` names, without its line.
                let why = fields[5].split(" (line").next().unwrap_or_default();
                *reasons.entry(why.to_owned()).or_default() += 1;
            }
            ok += fields[2].parse::<usize>().unwrap();
            err += fields[3].parse::<usize>().unwrap();
            for tag in fields[4].split(", ").filter(|t| !t.is_empty()) {
                let entry = tags.entry(tag.to_owned()).or_default();
                if is_compiled {
                    entry.0 += 1;
                } else {
                    entry.1 += 1;
                }
            }
        }
    }
    println!(
        "seed {seed:#x}: {} functions, {compiled} compiled, {fallback} kept the tape; {ok} points answered, {err} rejected by the tape (and by f_grad alike); {hvps} ran f_hvp through the compiled adjoint on dual numbers",
        compiled + fallback
    );
    for (tag, (c, f)) in &tags {
        println!("    {tag:<28} in {c:>5} compiled, {f:>5} kept the tape");
    }
    for (why, n) in &reasons {
        println!("    kept the tape for {why}: {n}");
    }
}

/// Whether a `collect` with the type on the `let` that binds `name` reads
/// its source by `into_iter()` (a third of them, chosen by the name's last digit, so
/// every seed still draws what it drew).
/// Whether the array `name` of a typed `collect()` is written in place of
/// its name in the plain twin (`[e0, ..].iter().map(..)`), chosen by name
/// so every seed still draws what it drew.
fn literal_in_place(name: &str) -> bool {
    name.chars()
        .last()
        .and_then(|c| c.to_digit(10))
        .is_some_and(|d| d % 3 == 2)
}

fn consumes_source(name: &str) -> bool {
    name.chars()
        .last()
        .and_then(|c| c.to_digit(10))
        .is_some_and(|d| d % 3 == 1)
}

/// Whether the `for` by value that sums into `sum` is followed by a `let`
/// of its item's name, `t` (a fifth of them, chosen by the name's last
/// digit, so every seed still draws what it drew).
fn binds_item_after(sum: &str) -> bool {
    sum.ends_with(['2', '6'])
}
