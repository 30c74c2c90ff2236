//! Printing results and errors, human or `--json`.

use contracts::ErrorCode;
use serde_json::{Value, json};

/// The `{code, message}` of an error from any engine crate.
pub fn payload(err: &anyhow::Error) -> contracts::ErrorPayload {
    if let Some(e) = err.downcast_ref::<engine::EngineError>() {
        return e.payload();
    }
    if let Some(e) = err.downcast_ref::<sandbox::SandboxError>() {
        return e.to_payload();
    }
    if let Some(e) = err.downcast_ref::<config::ConfigError>() {
        return e.to_payload();
    }
    if let Some(e) = err.downcast_ref::<skills::SkillError>() {
        return e.to_payload();
    }
    if let Some(e) = err.downcast_ref::<retrieval::RetrievalError>() {
        return e.to_payload();
    }
    if let Some(e) = err.downcast_ref::<audit::AuditError>() {
        return e.to_payload();
    }
    if let Some(e) = err.downcast_ref::<thinker::ThinkerError>() {
        return e.to_payload();
    }
    if let Some(e) = err.downcast_ref::<pipeline::PipelineError>() {
        return e.to_payload();
    }
    if let Some(e) = err.downcast_ref::<UsageError>() {
        return contracts::ErrorPayload::new(e.code, e.message.clone());
    }
    contracts::ErrorPayload::new("ERROR", format!("{err:#}"))
}

pub fn print_error(err: &anyhow::Error, json: bool) {
    let p = payload(err);
    if json {
        println!("{}", json!({"ok": false, "error": p}));
    } else {
        eprintln!("error[{}]: {}", p.code, p.message);
    }
}

/// A mistake in how the command was called (unknown skill, bad key=value, ...).
#[derive(Debug)]
pub struct UsageError {
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for UsageError {}

pub fn usage(code: &'static str, message: impl Into<String>) -> anyhow::Error {
    UsageError {
        code,
        message: message.into(),
    }
    .into()
}

/// One compact JSON object per line (event streams).
pub fn print_json_line(v: &Value) {
    println!("{v}");
}

pub fn print_json(v: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(v).expect("json serialises")
    );
}

/// Thousands separators for counts.
pub fn count(n: usize) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
