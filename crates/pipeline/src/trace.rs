//! Tracing for runs: request ids, and each event as a `tracing` record inside the run's
//! `request` and `stage` spans (the subscriber — log file, stderr, OTLP — is the shell's choice).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

use crate::events::Event;

/// A fresh request id: `r` and 12 hex digits of a hash over the time, the process, a counter and
/// the text, so two requests (even identical ones in the same microsecond) never share one.
pub fn request_id(text: &str) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let mut h = Sha256::new();
    h.update(format!("{nanos}\n{}\n{n}\n{text}", std::process::id()));
    let digest = h.finalize();
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("r{hex}")
}

/// Emits one event as a tracing record at a level that fits it.
pub(crate) fn trace_event(event: &Event) {
    match event {
        Event::StageStarted { .. } | Event::CommitProgress { .. } => {}
        Event::StageFinished { stage, step, ms } => {
            tracing::debug!(
                stage = stage.label(),
                step = *step,
                ms = *ms,
                "stage finished"
            );
        }
        Event::Request { id, text } => tracing::info!(request_id = %id, text = %text, "request"),
        Event::Planned {
            planner,
            plan,
            usage,
            ..
        } => tracing::info!(
            planner = %planner,
            steps = plan.steps.len(),
            prompt_tokens = usage.prompt_tokens,
            completion_tokens = usage.completion_tokens,
            "planned"
        ),
        Event::Clarification { step, question, .. } => {
            tracing::info!(step = *step, question = %question, "clarification");
        }
        Event::SkillMatched {
            step,
            skill,
            tool,
            score,
            confident,
            ..
        } => tracing::info!(
            step = *step,
            skill = %skill,
            tool = %tool,
            score = *score,
            confident = *confident,
            "skill matched"
        ),
        Event::NearMiss {
            step, chosen, by, ..
        } => tracing::info!(
            step = *step,
            chosen = chosen.as_ref().map(|c| format!("{}/{}", c.skill, c.tool)),
            by = %by,
            "near miss"
        ),
        Event::ExtraParams { step, params } => {
            tracing::warn!(step = *step, params = ?params, "extra params dropped");
        }
        Event::ReferencesResolved { step, params } => {
            tracing::debug!(step = *step, params = %serde_json::Value::Object(params.clone()), "references resolved");
        }
        Event::Dispatched {
            step,
            primitive,
            operation,
            ok,
            ms,
            error,
            ..
        } => {
            if *ok {
                tracing::info!(step = *step, primitive = %primitive, operation = %operation, ms = *ms, "dispatched");
            } else {
                tracing::warn!(
                    step = *step,
                    primitive = %primitive,
                    operation = %operation,
                    ms = *ms,
                    code = error.as_ref().map(|e| e.code.as_str()),
                    message = error.as_ref().map(|e| e.message.as_str()),
                    "dispatch failed"
                );
            }
        }
        Event::GraphDelta {
            step,
            snapshot,
            changes,
            ..
        } => {
            tracing::debug!(step = *step, snapshot = %snapshot, changes = changes.len(), "graph delta")
        }
        Event::Approved { step } => tracing::info!(step = *step, "approved"),
        Event::Overridden { step, .. } => tracing::info!(step = *step, "params overridden"),
        Event::RolledBack {
            step,
            snapshot,
            undone,
        } => tracing::info!(step = *step, snapshot = %snapshot, undone = *undone, "rolled back"),
        Event::Skipped { step, code, reason } => {
            tracing::warn!(step = *step, code = %code, reason = %reason, "step skipped");
        }
        Event::Warning { step, message } => tracing::warn!(step = *step, "{message}"),
        Event::DiffReviewed { changes, approved } => {
            tracing::info!(changes = *changes, approved = *approved, "diff reviewed");
        }
        Event::UndoPlanned {
            undoes,
            changes,
            kept,
            not_restorable,
        } => tracing::info!(
            undoes = %undoes,
            changes = *changes,
            kept = kept.len(),
            not_restorable = not_restorable.len(),
            "undo planned"
        ),
        Event::Conditions {
            workflow,
            when,
            outcomes,
        } => tracing::info!(
            workflow = %workflow,
            when = ?when,
            checked = outcomes.len(),
            failing = outcomes.iter().filter(|o| !o.holds).count(),
            "workflow conditions"
        ),
        Event::Committed { applied, .. } => tracing::info!(applied = *applied, "committed"),
        Event::Reindexed {
            embedded,
            removed,
            pending,
            unreadable,
        } => tracing::info!(
            embedded = *embedded,
            removed = *removed,
            pending = *pending,
            unreadable = unreadable.len(),
            "content reindexed"
        ),
        Event::Report { .. } => {}
        Event::Failed { code, message } => tracing::error!(code = %code, "{message}"),
        Event::Finished {
            committed, dry_run, ..
        } => tracing::info!(committed = *committed, dry_run = *dry_run, "finished"),
    }
}

#[cfg(test)]
mod tests {
    use super::request_id;

    #[test]
    fn request_ids_are_distinct_and_shaped() {
        let a = request_id("same text");
        let b = request_id("same text");
        assert_ne!(a, b);
        assert_eq!(a.len(), 13);
        assert!(a.starts_with('r'));
        assert!(a[1..].chars().all(|c| c.is_ascii_hexdigit()));
    }
}
