// A `Scalar` holds a `&Tape`, and a `Tape` is `Send` but not `Sync`: handing
// a scalar (or a `&Tape`) to another thread would let two threads record on
// one arena at once, so the compiler refuses. Give each thread its own tape.
use autodiff::Tape;

fn main() {
    let tape = Tape::new();
    let x = tape.variable(2.0).unwrap();
    std::thread::scope(|scope| {
        scope.spawn(|| x.mul(x).unwrap().value());
    });
}
