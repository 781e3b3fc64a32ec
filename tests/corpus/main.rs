//! Corpus (issue 11).
mod oracle;
mod attributes;
mod composition;
mod control_flow;
mod formulas;
mod integers;
mod layers;
mod patterns;
mod ranges;
mod signatures;
