//! The one interface through which the pipeline asks the person: approve a step (or override its
//! params, or roll it back), pick a skill on a near-miss, answer a clarification, review the
//! final diff. The CLI implements it on the terminal; the desktop app in its windows.

use contracts::{ParamType, PlanStep};
use sandbox::{ChangeOp, Sandbox};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::events::{Event, SkillCandidate};

/// A missing parameter the person is asked for.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ParamQuestion {
    pub step: u32,
    pub skill: String,
    pub tool: String,
    pub param: String,
    pub ty: Option<ParamType>,
    pub doc: String,
    pub question: String,
    /// A sensible answer when the person has nothing to add (`.` for a folder).
    pub suggestion: Option<Value>,
    /// Answers to offer, the likeliest first (a parameter's declared choices; for a file sorting by
    /// meaning was unsure of, its closest categories): the windows show them as buttons, the
    /// terminal numbers them. Any other answer is still taken.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
}

/// A step waiting for approval: what ran, with which params, and what it changed.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepReview {
    pub step: u32,
    pub description: String,
    pub skill: String,
    pub tool: String,
    pub mutates: bool,
    /// The step deletes something.
    pub destructive: bool,
    pub params: Map<String, Value>,
    pub summary: String,
    pub data: Value,
    /// The graph changes this step made, one line each.
    pub changes: Vec<String>,
    /// The same changes, structured (approval cards group them by kind).
    pub ops: Vec<ChangeOp>,
    /// The parameters the tool declares that the step leaves out (its defaults apply): the
    /// "Edit params" form offers them too.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unset: Vec<contracts::ParamSpec>,
}

/// The person's answer to a step review.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    Approve,
    /// Run the step again with these params (replacing the planned ones).
    Override(Map<String, Value>),
    RollBack,
}

/// A staged step the person can roll the pending change back to at the final review.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RollbackPoint {
    pub step: u32,
    /// The snapshot taken before the step: rolling back to it undoes this step and every later one.
    pub snapshot: String,
    pub skill: String,
    pub tool: String,
    /// How many changes the step made.
    pub changes: usize,
}

/// The whole pending change before commit.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct DiffReview {
    pub changes: Vec<String>,
    pub ops: Vec<ChangeOp>,
    pub summary: String,
    pub dry_run: bool,
    /// Oldest first.
    pub rollback_points: Vec<RollbackPoint>,
}

/// The person's answer to the final diff review.
#[derive(Debug, Clone, PartialEq)]
pub enum DiffDecision {
    Commit,
    Discard,
    /// Undo every staged step from this snapshot on, then review the diff again.
    RollBackTo(String),
}

/// How the pipeline talks to the person.
pub trait Interaction {
    /// Every event of the run, in order (progress, graph deltas, scores).
    fn event(&mut self, _event: &Event) {}

    /// The sandbox's graph or pending changes just changed (a step ran, was rolled back, or the
    /// change was committed): a graph view may re-read it here.
    fn sandbox_changed(&mut self, _sandbox: &Sandbox) {}

    /// The planner did not understand (part of) the request: the person's answer, added to the
    /// request, or `None`/empty to go on with what was understood.
    fn clarify_request(&mut self, question: &str) -> Option<String>;

    /// Near-miss: which candidate to use (an index), or `None` to skip the step.
    fn choose_skill(&mut self, step: &PlanStep, candidates: &[SkillCandidate]) -> Option<usize>;

    /// A required parameter is missing: its value, or `None` to skip the step.
    fn clarify_param(&mut self, question: &ParamQuestion) -> Option<Value>;

    fn review_step(&mut self, review: &StepReview) -> Decision;

    /// Commit the pending change, discard it, or roll part of it back. In a dry run the answer
    /// only matters for `RollBackTo`.
    fn review_diff(&mut self, review: &DiffReview) -> DiffDecision;
}

/// Answers everything with the planner's choices and approves everything: `--yes`, tests, CI.
#[derive(Debug, Default)]
pub struct AutoApprove {
    pub events: Vec<Event>,
}

impl Interaction for AutoApprove {
    fn event(&mut self, event: &Event) {
        self.events.push(event.clone());
    }

    fn clarify_request(&mut self, _question: &str) -> Option<String> {
        None
    }

    fn choose_skill(&mut self, _step: &PlanStep, candidates: &[SkillCandidate]) -> Option<usize> {
        candidates.iter().position(|c| c.planned)
    }

    fn clarify_param(&mut self, question: &ParamQuestion) -> Option<Value> {
        question.suggestion.clone()
    }

    fn review_step(&mut self, _review: &StepReview) -> Decision {
        Decision::Approve
    }

    fn review_diff(&mut self, _review: &DiffReview) -> DiffDecision {
        DiffDecision::Commit
    }
}
