//! The 13 stages and the events a run streams out (progress display, graph window, audit log).

use contracts::{ErrorPayload, Plan};
use serde::Serialize;
use serde_json::{Map, Value};
use thinker::PlanUsage;

/// The stages of seed 001's pipeline, in order.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    Input,
    Think,
    ValidatePlan,
    Embed,
    Match,
    Load,
    ValidateParams,
    Resolve,
    Dispatch,
    Snapshot,
    Hitl,
    Stage,
    Commit,
}

impl Stage {
    pub const ALL: [Stage; 13] = [
        Stage::Input,
        Stage::Think,
        Stage::ValidatePlan,
        Stage::Embed,
        Stage::Match,
        Stage::Load,
        Stage::ValidateParams,
        Stage::Resolve,
        Stage::Dispatch,
        Stage::Snapshot,
        Stage::Hitl,
        Stage::Stage,
        Stage::Commit,
    ];

    /// 1-based number in seed 001's stage table.
    pub fn number(self) -> usize {
        Stage::ALL.iter().position(|s| *s == self).unwrap_or(0) + 1
    }

    pub fn label(self) -> &'static str {
        match self {
            Stage::Input => "input",
            Stage::Think => "think",
            Stage::ValidatePlan => "validate plan",
            Stage::Embed => "embed step",
            Stage::Match => "match skill",
            Stage::Load => "load skill",
            Stage::ValidateParams => "validate params",
            Stage::Resolve => "resolve references",
            Stage::Dispatch => "dispatch",
            Stage::Snapshot => "snapshot",
            Stage::Hitl => "approval",
            Stage::Stage => "stage",
            Stage::Commit => "commit",
        }
    }
}

/// When a workflow's conditions were checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ConditionTime {
    /// Preconditions, on the scan.
    Before,
    /// Postconditions, on the disk after the commit.
    After,
    /// Postconditions of a dry run, on the simulated folder.
    Simulated,
}

/// A (skill, tool) the person may pick on a near-miss, with its score.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkillCandidate {
    pub skill: String,
    pub tool: String,
    pub score: f32,
    /// What the planner chose.
    pub planned: bool,
}

/// Everything that happens in a run, in order. Serialised as `{"event": "...", ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    StageStarted {
        stage: Stage,
        step: Option<u32>,
    },
    StageFinished {
        stage: Stage,
        step: Option<u32>,
        ms: f64,
    },
    /// The run's first event: the request's id (shared by the audit log and the trace) and text.
    Request {
        id: String,
        text: String,
    },
    Planned {
        planner: String,
        plan: Plan,
        usage: PlanUsage,
        notes: Vec<String>,
        /// A model planner's prompt and verbatim answer (for the audit log).
        #[serde(skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        response: Option<String>,
    },
    Clarification {
        step: Option<u32>,
        question: String,
        answer: Option<String>,
    },
    SkillMatched {
        step: u32,
        skill: String,
        tool: String,
        score: f32,
        confident: bool,
        runner_ups: Vec<SkillCandidate>,
    },
    NearMiss {
        step: u32,
        candidates: Vec<SkillCandidate>,
        chosen: Option<SkillCandidate>,
        /// `person` or `auto` (non-interactive runs keep the planner's choice).
        by: String,
    },
    ExtraParams {
        step: u32,
        params: Vec<String>,
    },
    ReferencesResolved {
        step: u32,
        params: Map<String, Value>,
    },
    Dispatched {
        step: u32,
        skill: String,
        tool: String,
        primitive: String,
        operation: String,
        mutates: bool,
        params: Map<String, Value>,
        ok: bool,
        summary: String,
        data: Value,
        error: Option<ErrorPayload>,
        ms: f64,
    },
    GraphDelta {
        step: u32,
        snapshot: String,
        changes: Vec<String>,
        /// The same changes, structured.
        ops: Vec<sandbox::ChangeOp>,
    },
    Approved {
        step: u32,
    },
    Overridden {
        step: u32,
        params: Map<String, Value>,
    },
    /// A step's changes were undone: at its own review, or at the final diff review (`RollBackTo`).
    RolledBack {
        step: u32,
        snapshot: String,
        undone: usize,
    },
    Skipped {
        step: u32,
        code: String,
        reason: String,
    },
    Warning {
        step: Option<u32>,
        message: String,
    },
    DiffReviewed {
        changes: usize,
        approved: bool,
    },
    /// An undo was planned: how many changes turn the run back, which recorded changes stay as
    /// they are (changed since the run), and which deletions cannot come back.
    UndoPlanned {
        undoes: String,
        changes: usize,
        kept: Vec<sandbox::UndoKept>,
        not_restorable: Vec<String>,
    },
    /// A saved workflow's conditions: before the first step (on the scan) or after the commit
    /// (on the disk).
    Conditions {
        workflow: String,
        when: ConditionTime,
        outcomes: Vec<contracts::ConditionOutcome>,
    },
    CommitProgress {
        done: usize,
        total: usize,
    },
    Committed {
        applied: usize,
        summary: String,
    },
    /// The ContentIndex after the commit; `pending` files stay stale until their change is
    /// committed, `unreadable` ones are indexed by name only (both also give a `Warning`).
    Reindexed {
        embedded: usize,
        removed: usize,
        pending: usize,
        unreadable: Vec<String>,
    },
    Report {
        text: String,
    },
    /// The run stopped with an error (after this, no more events).
    Failed {
        code: String,
        message: String,
    },
    /// The run ended: whether it committed, and the time spent per stage.
    Finished {
        committed: bool,
        dry_run: bool,
        text: String,
        stage_ms: std::collections::BTreeMap<Stage, f64>,
    },
}
