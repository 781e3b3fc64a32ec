//! `#[differentiable]` through the tape and the compiled adjoint: the
//! language a body may use, methods and models, optimisers, the table of
//! operations, long bodies and threads, one module each. One test binary,
//! so one link.

// The attention example's `softmax` and `matmul`, which `vectors` checks.
#[path = "../../examples/support/attention_layers.rs"]
#[allow(dead_code)]
mod attention_layers;
#[path = "../support/oracle.rs"]
#[allow(dead_code)]
mod oracle;

mod arrays;
mod backward;
mod backward_corpus;
mod casts;
mod chapter14;
mod edge_cases;
mod elementary;
mod elementary_functions;
mod long_bodies;
mod method_forms;
mod methods;
mod models;
mod operations_table;
mod optim;
mod panics;
mod scratch_tape;
mod semantics;
mod sticky;
mod threads;
mod vectors;
