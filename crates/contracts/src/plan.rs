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
    /// The JSON Schema of a plan, for constrained decoding and for validating foreign input.
    pub fn json_schema() -> Value {
        serde_json::to_value(schemars::schema_for!(Plan)).expect("schema serialises")
    }
}
