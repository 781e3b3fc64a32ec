//! Corpus (issue 11).
mod oracle;
mod composition;
mod control_flow;
mod formulas;
mod layers;
