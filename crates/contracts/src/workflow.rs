//! Workflows (seed 003's workflow skills, seed 004's templates): a skill whose SKILL.md lists
//! `steps:` — a saved plan with `{param}` slots — matched to a request by its `triggers`, with
//! conditions checked before the run (on the scan) and after the commit (on the disk).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Plan, PlanStep};

/// A saved plan with named slots.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Workflow {
    /// The slots its triggers and steps use (`{path}`), in declaration order.
    pub parameters: Vec<WorkflowParameter>,
    /// The steps, in order; string params may hold `{param}` slots and `$step(n)` references.
    pub steps: Vec<WorkflowStep>,
    /// Checked on the scanned folder before the first step; any failing stops the run.
    #[serde(default)]
    pub preconditions: Vec<Condition>,
    /// Checked on the disk after the commit and reported.
    #[serde(default)]
    pub postconditions: Vec<Condition>,
    /// The runs it was saved or mined from (audit log ids).
    #[serde(default)]
    pub source_runs: Vec<String>,
}

/// One `{slot}` of a workflow.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorkflowParameter {
    pub name: String,
    /// `path` (a folder or file under the working folder) or `text`.
    #[serde(default = "text_type")]
    pub r#type: String,
    #[serde(default)]
    pub description: String,
    /// Used when a trigger leaves the slot out; a parameter without one must be said.
    #[serde(default)]
    pub default: Option<String>,
}

fn text_type() -> String {
    "text".into()
}

/// One step of a workflow, as in a plan.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorkflowStep {
    pub skill: String,
    pub tool: String,
    #[serde(default)]
    pub params: Map<String, Value>,
}

/// What a condition checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema, Hash)]
#[serde(rename_all = "snake_case")]
pub enum ConditionCheck {
    /// `path` is a folder (or file) that exists.
    Exists,
    /// No two files under `path` (recursively) have the same content.
    NoDuplicates,
    /// `path` holds no files directly, only folders.
    NoLooseFiles,
    /// The file system holding `path` has at least `value` free (`"1 GB"`).
    FreeSpace,
}

impl ConditionCheck {
    pub const ALL: [ConditionCheck; 4] = [
        ConditionCheck::Exists,
        ConditionCheck::NoDuplicates,
        ConditionCheck::NoLooseFiles,
        ConditionCheck::FreeSpace,
    ];

    pub fn name(self) -> &'static str {
        match self {
            ConditionCheck::Exists => "exists",
            ConditionCheck::NoDuplicates => "no_duplicates",
            ConditionCheck::NoLooseFiles => "no_loose_files",
            ConditionCheck::FreeSpace => "free_space",
        }
    }

    pub fn parse(s: &str) -> Option<ConditionCheck> {
        Self::ALL.into_iter().find(|c| c.name() == s)
    }

    /// Whether the check needs a `value`.
    pub fn takes_value(self) -> bool {
        self == ConditionCheck::FreeSpace
    }
}

/// A pre- or postcondition: `{check: no_duplicates, path: "{path}"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Condition {
    pub check: ConditionCheck,
    /// Relative to the working folder; may hold `{param}` slots. `.` when left out.
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub value: Option<String>,
    /// What to tell the person when it does not hold (a default is made from the check).
    #[serde(default)]
    pub message: Option<String>,
    /// Narrows the check as the step it comes from was narrowed (`no_duplicates` with the scan's
    /// `extension`, `recursive`, ...): the params of that check's graph method.
    #[serde(default)]
    pub params: Map<String, Value>,
}

impl Condition {
    /// The path with the slots filled ("." when none is given).
    pub fn path_with(&self, slots: &BTreeMap<String, String>) -> String {
        fill_slots(self.path.as_deref().unwrap_or("."), slots)
    }
}

/// How a condition came out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ConditionOutcome {
    pub check: ConditionCheck,
    pub path: String,
    pub holds: bool,
    /// What was found ("3 duplicate groups", "12 files at the top level").
    pub detail: String,
    /// The condition's message when it does not hold.
    #[serde(default)]
    pub message: Option<String>,
}

/// A workflow chosen for a request, with its slots filled.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WorkflowUse {
    pub name: String,
    /// The trigger that matched.
    pub trigger: String,
    pub slots: BTreeMap<String, String>,
    pub preconditions: Vec<Condition>,
    pub postconditions: Vec<Condition>,
}

/// One finished run as the audit log recorded it: the steps that ran (after the person's edits
/// and choices, without the ones rolled back or skipped).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExecutedRun {
    pub run_id: String,
    pub at: String,
    pub request: String,
    pub steps: Vec<PlanStep>,
    pub committed: bool,
    /// The run undid another (`scope-weaver undo`): never a workflow.
    pub undo: bool,
}

impl ExecutedRun {
    /// `skill/tool` of each step, in order.
    pub fn signature(&self) -> Vec<String> {
        self.steps
            .iter()
            .map(|s| format!("{}/{}", s.skill, s.tool))
            .collect()
    }
}

/// `{name}` slots in `text` replaced by their values (unknown slots stay as written).
pub fn fill_slots(text: &str, slots: &BTreeMap<String, String>) -> String {
    let mut out = text.to_owned();
    for (name, value) in slots {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

fn fill_value(v: &Value, slots: &BTreeMap<String, String>) -> Value {
    match v {
        Value::String(s) => Value::String(fill_slots(s, slots)),
        Value::Array(items) => Value::Array(items.iter().map(|i| fill_value(i, slots)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, v)| (k.clone(), fill_value(v, slots)))
                .collect(),
        ),
        other => other.clone(),
    }
}

impl Workflow {
    /// The plan the workflow makes with these slot values (described by the workflow's name).
    pub fn plan(&self, name: &str, slots: &BTreeMap<String, String>) -> Plan {
        let steps = self
            .steps
            .iter()
            .zip(1u32..)
            .map(|(s, n)| PlanStep {
                step: n,
                description: format!("{name}: {} {}", s.skill, s.tool),
                skill: s.skill.clone(),
                tool: s.tool.clone(),
                params: s
                    .params
                    .iter()
                    .map(|(k, v)| (k.clone(), fill_value(v, slots)))
                    .collect(),
            })
            .collect();
        Plan { steps }
    }

    pub fn parameter(&self, name: &str) -> Option<&WorkflowParameter> {
        self.parameters.iter().find(|p| p.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_filled_in_nested_params_and_unknown_ones_stay() {
        let workflow: Workflow = serde_json::from_value(serde_json::json!({
            "parameters": [{"name": "path", "type": "path"}],
            "steps": [
                {"skill": "remove-duplicates", "tool": "scan", "params": {"path": "{path}"}},
                {"skill": "remove-duplicates", "tool": "remove",
                 "params": {"groups": "$step(1).groups", "reference": ["{path}/Keep", "{other}"]}}
            ]
        }))
        .unwrap();
        let slots = BTreeMap::from([("path".to_owned(), "Desktop".to_owned())]);
        let plan = workflow.plan("tidy", &slots);
        assert_eq!(plan.steps[0].params["path"], "Desktop");
        assert_eq!(
            plan.steps[1].params["reference"],
            serde_json::json!(["Desktop/Keep", "{other}"])
        );
        assert_eq!(plan.steps[1].params["groups"], "$step(1).groups");
        assert_eq!(plan.steps[1].step, 2);
    }
}
