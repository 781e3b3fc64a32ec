//! The compiled adjoint (`f_grad` as generated Rust), one module per
//! concern: each function is checked to take the compiled path, and its
//! gradient against an independent oracle (a closed form, dual numbers,
//! central differences) and against the tape. One test binary, so one link.

// Lesson 15's exercises, which `paths` checks, read `crate::lesson15`;
// the attention example's layers, which `vector_calls` checks.
#[path = "../../examples/support/attention_layers.rs"]
#[allow(dead_code)]
mod attention_layers;
#[path = "../../examples/support/exercises.rs"]
mod exercises;
#[path = "../../examples/support/lesson15.rs"]
mod lesson15;
// The two-moons model, which loads its own copy of the splitmix generator
// that `lesson15` loads too.
#[path = "../../examples/support/moons.rs"]
#[allow(dead_code, clippy::duplicate_mod)]
mod moons;
#[path = "../support/oracle.rs"]
#[allow(dead_code)]
mod oracle;
#[path = "../support/xorshift.rs"]
#[allow(dead_code)]
mod xorshift;

mod added_items;
mod call_values;
mod chained;
mod closures;
mod constant_args;
mod cotangents;
mod filters;
mod given_back;
mod integer_args;
mod iter_mut;
mod iterators;
mod jumps;
mod lent_calls;
mod lent_in_place;
mod masks;
mod models;
mod names;
mod natural;
mod nested_collects;
mod options;
mod paths;
mod patterns;
mod pushed_rows;
mod reshaped;
mod row_concat;
mod row_slices;
mod rows_and_swaps;
mod saved_reads;
mod shadows;
mod soundness;
mod split_calls;
mod student_code;
mod support;
mod swapped_sums;
mod vec_edits;
mod vec_growth;
mod vec_moves;
mod vector_calls;
mod windows;
