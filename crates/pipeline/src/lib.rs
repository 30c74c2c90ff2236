//! The pipeline: one request through the 13 stages of seed 001 — input, think, plan validation,
//! and per step embed → match → load → validate params → resolve references → dispatch →
//! snapshot → approval → stage or roll back; then the final diff review, commit, content
//! re-index and a report in plain words.
//!
//! Architecture invariants: the orchestrator is an explicit state machine (`State`); it talks to
//! the person only through `Interaction`; the disk changes only in `Sandbox::commit`, after the
//! person approved the diff; every stage emits events (the audit log and the UI read them) and
//! runs inside a `tracing` span carrying the request's id.

mod audit;
mod error;
mod events;
mod interaction;
mod orchestrator;
mod report;
mod skill_draft;
mod trace;
mod undo;

pub use audit::{AuditSink, RecordedEvents};
pub use error::{PipelineError, Result};
pub use events::{ConditionTime, Event, SkillCandidate, Stage};
pub use interaction::{
    AutoApprove, Decision, DiffDecision, DiffReview, Interaction, ParamQuestion, RollbackPoint,
    StepReview,
};
pub use orchestrator::{
    Orchestrator, RunOptions, RunReport, StepOutcome, StepStatus, TokenStream, grounding,
    needs_picker,
};
pub use report::summarize;
pub use skill_draft::{SkillDraft, create_skill, draft_skill};
pub use trace::request_id;
pub use undo::{CommittedRun, UndoReport, committed_runs, find_run, undo_run};
