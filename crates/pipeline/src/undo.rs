//! Undo of a committed run, as a run of its own: the run's history record is turned back on a
//! fresh scan (`Sandbox::stage_undo`), shown to the person as a diff through the same
//! `Interaction::review_diff`, committed through the same journal (so its own record can be undone
//! in turn) and recorded in the audit log like any request.

use std::path::{Path, PathBuf};

use serde::Serialize;

use sandbox::{RunRecord, Sandbox, UndoPlan};

use crate::audit::{AuditSink, Audited};
use crate::error::{PipelineError, Result};
use crate::events::Event;
use crate::interaction::{DiffDecision, DiffReview, Interaction};

/// One committed run as the history lists it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct CommittedRun {
    pub id: String,
    pub request: String,
    pub root: PathBuf,
    /// Seconds since the epoch.
    pub committed_at: i64,
    pub changes: usize,
    /// The run this one undoes.
    pub undoes: Option<String>,
    /// The undo that turned this run back (itself in effect).
    pub undone_by: Option<String>,
    /// Deletions an undo could not bring back.
    pub not_restorable: usize,
}

/// The committed runs under `state_dir`, newest first (of `root` only, when given), and the
/// records that could not be read (path, why).
pub fn committed_runs(
    state_dir: &Path,
    root: Option<&Path>,
) -> (Vec<CommittedRun>, Vec<(PathBuf, String)>) {
    let (records, broken) = sandbox::history_list(state_dir);
    let undone = sandbox::undone_by(&records);
    let runs = records
        .iter()
        .rev()
        .filter(|r| root.is_none_or(|root| r.root == root))
        .map(|r| CommittedRun {
            id: r.run.id.clone(),
            request: r.run.request.clone(),
            root: r.root.clone(),
            committed_at: r.committed_at,
            changes: r.changes.len(),
            undoes: r.run.undoes.clone(),
            undone_by: undone.get(&r.run.id).cloned(),
            not_restorable: r.unrestorable().len(),
        })
        .collect();
    (runs, broken)
}

/// The record `run_id` names (an id or a unique prefix of one), or without one the newest run
/// still in effect that is not itself an undo (what "undo" means to a person).
pub fn find_run(state_dir: &Path, run_id: Option<&str>) -> Result<RunRecord> {
    let (records, _) = sandbox::history_list(state_dir);
    let undone = sandbox::undone_by(&records);
    let Some(id) = run_id else {
        return records
            .iter()
            .rev()
            .find(|r| r.run.undoes.is_none() && !undone.contains_key(&r.run.id))
            .cloned()
            .ok_or(PipelineError::NothingToUndo);
    };
    let matching: Vec<&RunRecord> = records
        .iter()
        .filter(|r| r.run.id.starts_with(id))
        .collect();
    let record = match matching.as_slice() {
        [one] => *one,
        [] => return Err(PipelineError::RunNotFound(id.to_owned())),
        many => {
            return Err(PipelineError::RunAmbiguous {
                id: id.to_owned(),
                runs: many.iter().map(|r| r.run.id.clone()).collect(),
            });
        }
    };
    if let Some(by) = undone.get(&record.run.id) {
        return Err(PipelineError::RunAlreadyUndone {
            run: record.run.id.clone(),
            by: by.clone(),
        });
    }
    Ok(record.clone())
}

/// What an undo did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct UndoReport {
    /// This undo's own id (its history record and audit entries): undo it to redo the run.
    pub id: String,
    /// The run it undoes.
    pub undoes: String,
    pub plan: UndoPlan,
    pub dry_run: bool,
    pub committed: bool,
    pub applied_changes: usize,
    pub text: String,
}

/// Undoes `record` on `sandbox` (a fresh scan of the record's root): plans, asks for approval of
/// the diff, and commits unless `dry_run`. Every event also goes to `audit`; a gap in the audit
/// trail stops the undo before it writes.
pub fn undo_run(
    sandbox: &mut Sandbox,
    record: &RunRecord,
    dry_run: bool,
    ui: &mut dyn Interaction,
    audit: Option<&mut dyn AuditSink>,
) -> Result<UndoReport> {
    let mut audited = Audited {
        ui,
        sink: audit,
        failure: None,
    };
    let result = drive(sandbox, record, dry_run, &mut audited);
    match &result {
        Ok(report) => audited.event(&Event::Finished {
            committed: report.committed,
            dry_run,
            text: report.text.clone(),
            stage_ms: Default::default(),
        }),
        Err(e) => audited.event(&Event::Failed {
            code: contracts::ErrorCode::code(e).to_owned(),
            message: e.to_string(),
        }),
    }
    match (result, audited.failure.take()) {
        (Ok(_), Some(f)) => Err(PipelineError::Audit(f)),
        (result, _) => result,
    }
}

fn drive(
    sandbox: &mut Sandbox,
    record: &RunRecord,
    dry_run: bool,
    ui: &mut Audited<'_, '_>,
) -> Result<UndoReport> {
    let plan = sandbox.stage_undo(record)?;
    let id = sandbox
        .commit_label()
        .map(|l| l.id.clone())
        .unwrap_or_default();
    ui.event(&Event::Request {
        id: id.clone(),
        text: undo_request(record),
    });
    ui.event(&Event::UndoPlanned {
        undoes: record.run.id.clone(),
        changes: plan.changes,
        kept: plan.kept.clone(),
        not_restorable: plan.not_restorable.clone(),
    });
    for k in &plan.kept {
        ui.event(&Event::Warning {
            step: None,
            message: format!("`{}` stays as it is: {}", k.path, k.reason),
        });
    }
    for n in &plan.not_restorable {
        ui.event(&Event::Warning {
            step: None,
            message: format!("not restorable: {n}"),
        });
    }
    let mut report = UndoReport {
        id,
        undoes: record.run.id.clone(),
        plan: plan.clone(),
        dry_run,
        committed: false,
        applied_changes: 0,
        text: String::new(),
    };
    let summary = format!(
        "{}\nNothing lost: {}.",
        plan_summary(record, &plan),
        sandbox.accounting().summary()
    );
    if plan.changes == 0 {
        report.text = format!("{summary}\nNothing to undo: nothing was written.");
        return Ok(report);
    }
    let ops: Vec<sandbox::ChangeOp> = sandbox.changes().iter().map(|c| c.op.clone()).collect();
    let review = DiffReview {
        summary: summary.clone(),
        changes: ops.iter().map(sandbox::ChangeOp::render).collect(),
        ops,
        dry_run,
        rollback_points: Vec::new(),
    };
    let decision = ui.review_diff(&review);
    if dry_run {
        report.text = format!(
            "{summary}\nDry run: {}, nothing was written.",
            crate::report::simulated(&review.ops)
        );
        return Ok(report);
    }
    let approved = decision == DiffDecision::Commit;
    ui.event(&Event::DiffReviewed {
        changes: review.changes.len(),
        approved,
    });
    if !approved {
        report.text = format!("{summary}\nNot undone: declined, nothing was written.");
        return Ok(report);
    }
    if let Some(f) = ui.failure.take() {
        return Err(PipelineError::Audit(f));
    }
    sandbox.stage(&plan.snapshot.to_string())?;
    sandbox.approve(sandbox::Approval::of(&review.ops));
    let mut progress = |done: usize, total: usize, _op: &sandbox::ChangeOp| {
        ui.event(&Event::CommitProgress { done, total });
    };
    let commit = sandbox.commit(Some(&mut progress))?;
    for message in &commit.warnings {
        ui.event(&Event::Warning {
            step: None,
            message: message.clone(),
        });
    }
    ui.event(&Event::Committed {
        applied: commit.applied,
        summary: crate::report::commit_summary(&commit),
    });
    ui.sandbox_changed(sandbox);
    report.committed = true;
    report.applied_changes = commit.applied;
    report.text = format!(
        "{summary}\nUndone: {}.",
        crate::report::commit_summary(&commit)
    );
    ui.event(&Event::Report {
        text: report.text.clone(),
    });
    Ok(report)
}

/// The undo's request line in the audit log and the history.
fn undo_request(record: &RunRecord) -> String {
    if record.run.request.is_empty() {
        format!("undo {}", record.run.id)
    } else {
        format!("undo {}: {}", record.run.id, record.run.request)
    }
}

/// "Undo of r1a2b3 (“sort Downloads by type”): 12 change(s); 1 kept as it is; 1 not restorable."
fn plan_summary(record: &RunRecord, plan: &UndoPlan) -> String {
    let mut parts = vec![format!("{} change(s)", plan.changes)];
    if !plan.kept.is_empty() {
        parts.push(format!(
            "{} kept as {} (changed since the run)",
            plan.kept.len(),
            if plan.kept.len() == 1 {
                "it is"
            } else {
                "they are"
            }
        ));
    }
    if !plan.not_restorable.is_empty() {
        parts.push(format!("{} not restorable", plan.not_restorable.len()));
    }
    let what = if record.run.request.is_empty() {
        record.run.id.clone()
    } else {
        format!("{} (\u{201c}{}\u{201d})", record.run.id, record.run.request)
    };
    format!("Undo of {what}: {}.", parts.join("; "))
}
