//! Integration tests of the retrieval crate: real skills, real temp folders, real usearch files,
//! tiny generated models for the mistral.rs and BERT backends.

mod content;
#[cfg(all(feature = "bert", feature = "mistralrs"))]
mod models;
mod skills;
mod support;
mod watch;
