//! Plans: what the thinker emits, one `PlanStep` per tool call.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One step of a plan. `params` values may be `$step(n).field` reference strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PlanStep {
    /// 1-based ordinal.
    pub step: u32,
    /// Natural-language description; the retrieval query for skill matching.
    #[serde(default)]
    pub description: String,
    /// Skill name (e.g. `manage-files`).
    pub skill: String,
    /// Tool name within that skill.
    pub tool: String,
    #[serde(default)]
    pub params: Map<String, Value>,
}

/// A whole plan, as the thinker returns it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Plan {
    pub steps: Vec<PlanStep>,
}

impl Plan {
    /// How a given plan reads in the audit log and the history: each step's description (or
    /// `skill/tool`), in order.
    pub fn text(&self) -> String {
        self.steps
            .iter()
            .map(|s| {
                if s.description.trim().is_empty() {
                    format!("{}/{}", s.skill, s.tool)
                } else {
                    s.description.trim().to_owned()
                }
            })
            .collect::<Vec<_>>()
            .join("; then ")
    }

    /// The JSON Schema of a plan, for constrained decoding and for validating foreign input.
    pub fn json_schema() -> Value {
        serde_json::to_value(schemars::schema_for!(Plan)).expect("schema serialises")
    }
}

/// One tool called directly (`scope-weaver tool SKILL TOOL key=value…`, a task file naming a
/// tool): run as a one-step plan through the same pipeline as a request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub skill: String,
    pub tool: String,
    #[serde(default)]
    pub params: Map<String, Value>,
}

impl ToolCall {
    /// How the call reads in the audit log and the history: `skill/tool key=value …`.
    pub fn text(&self) -> String {
        let mut text = format!("{}/{}", self.skill, self.tool);
        for (k, v) in &self.params {
            match v {
                Value::String(s) => text.push_str(&format!(" {k}={s}")),
                other => text.push_str(&format!(" {k}={other}")),
            }
        }
        text
    }

    /// The plan it runs as: one step.
    pub fn plan(&self) -> Plan {
        Plan {
            steps: vec![PlanStep {
                step: 1,
                description: self.text(),
                skill: self.skill.clone(),
                tool: self.tool.clone(),
                params: self.params.clone(),
            }],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plan_schema_describes_steps_and_round_trips() {
        let schema = Plan::json_schema();
        let text = schema.to_string();
        for field in ["steps", "step", "description", "skill", "tool", "params"] {
            assert!(
                text.contains(&format!("\"{field}\"")),
                "schema lacks {field}: {text}"
            );
        }
        let plan: Plan = serde_json::from_value(serde_json::json!({"steps": [
            {"step": 1, "skill": "manage-files", "tool": "list", "params": {"path": "~/Downloads"}},
            {"step": 2, "description": "move them", "skill": "manage-files", "tool": "move",
             "params": {"source": "$step(1).nodes", "target": "Sorted"}}
        ]}))
        .unwrap();
        assert_eq!(plan.steps[0].description, "");
        let back: Plan = serde_json::from_value(serde_json::to_value(&plan).unwrap()).unwrap();
        assert_eq!(back, plan);
        // A step without a skill is not a plan step.
        assert!(
            serde_json::from_value::<PlanStep>(serde_json::json!({"step": 1, "tool": "x"}))
                .is_err()
        );
    }

    #[test]
    fn a_tool_call_is_a_one_step_plan_that_reads_as_it_was_called() {
        let call: ToolCall = serde_json::from_value(serde_json::json!({
            "skill": "manage-files", "tool": "delete", "params": {"path": "old.log", "force": true}
        }))
        .unwrap();
        assert_eq!(call.text(), "manage-files/delete path=old.log force=true");
        let plan = call.plan();
        assert_eq!(plan.steps.len(), 1);
        assert_eq!(plan.steps[0].step, 1);
        assert_eq!(plan.steps[0].params, call.params);
    }
}
