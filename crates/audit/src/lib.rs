//! The audit log (seed 000's Task/CapTask records, seed 001's "what gets logged"): every request,
//! plan step, primitive call and decision of the pipeline as an entry of one SHA-256 hash chain in
//! SQLite (sqlx), with verification that names the first broken link, readable rendering, export
//! and the pipeline's evaluation figures.
//!
//! Architecture invariants: entries are only ever appended (no update or delete statement exists
//! in this crate); hashing, verification, rendering and statistics are pure functions of entries;
//! the store is the only module that talks to the database. `telemetry` installs the process's
//! log and trace output (the pipeline's `tracing` spans) for the shells.

mod chain;
mod error;
mod executed;
mod learned;
#[cfg(feature = "otlp")]
mod otlp;
mod record;
mod sink;
mod stats;
mod store;
mod telemetry;
mod view;

pub use chain::ChainVerifier;
pub use chain::{BrokenLink, ChainHead, Entry, GENESIS, VerifyReport, next_entry, verify};
pub use error::{AuditError, Result};
pub use executed::executed_runs;
pub use record::{
    CapStatus, CapTask, RESULT_LINES, Task, TaskStatus, canonical_json, first_lines, sha256_hex,
};
pub use sink::AuditLog;
pub use stats::{AuditStats, stats};
pub use store::{AuditStore, DEFAULT_LOCK_TIMEOUT, StoreOptions, is_postgres_url, redact};
pub use telemetry::{
    ENV_LOG_FILTER, LOG_FILE_PREFIX, LOG_FILES_KEPT, LogSettings, Telemetry, init_telemetry,
    log_files,
};
pub use view::{RunSummary, export, render_run, run_summaries, task_tree};
