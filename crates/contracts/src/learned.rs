//! A choice the person made that the planner learns from: in the near-miss picker they picked
//! another skill for a step than the planner had. It is remembered in the audit log (the run's
//! `near_miss` record, beside its `plan`); forgetting it appends a `forget_choice` record.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LearnedChoice {
    /// The audit record it comes from: what `forget` names.
    pub id: String,
    pub run_id: String,
    /// When the person chose (RFC 3339).
    pub at: String,
    /// The step's text as it was planned.
    pub text: String,
    /// What the planner had chosen, `skill/tool`.
    pub planned: String,
    /// What the person chose instead, `skill/tool`.
    pub chosen: String,
}

impl LearnedChoice {
    /// The day it was learned (`2026-11-24`), for "learned from your choice on …".
    pub fn day(&self) -> &str {
        self.at.get(..10).unwrap_or(&self.at)
    }
}
