//! Skill and tool definitions, as parsed from SKILL.md files.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Primitive, ToolPlanning, ValidationResult};

/// One tool of a skill: a name and the single primitive it invokes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolDefinition {
    pub name: String,
    /// One-line summary (the text after `--` in the tool's heading, or its `description`).
    #[serde(default)]
    pub description: String,
    pub primitive: Primitive,
    /// Human-readable signature, e.g. `graph.move_node(source: paths, target: path) -> Moves`.
    pub signature: String,
    pub required_params: Vec<String>,
    pub optional_params: Vec<String>,
    pub return_type: String,
    /// How the rule planner chooses and fills this tool (the declaration's planning keys).
    #[serde(default)]
    pub planning: ToolPlanning,
}

impl ToolDefinition {
    /// Required params absent from `params`, and params the tool does not declare.
    pub fn validate_params(&self, params: &Map<String, Value>) -> ValidationResult {
        let missing: Vec<String> = self
            .required_params
            .iter()
            .filter(|p| params.get(p.as_str()).is_none_or(Value::is_null))
            .cloned()
            .collect();
        let extra: Vec<String> = params
            .keys()
            .filter(|k| !self.required_params.contains(k) && !self.optional_params.contains(k))
            .cloned()
            .collect();
        ValidationResult {
            valid: missing.is_empty() && extra.is_empty(),
            missing,
            extra,
        }
    }

    pub fn mutates(&self) -> bool {
        self.primitive.mutates()
    }
}

/// A loaded skill: identity, the embeddable description, and its tools.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkillDefinition {
    pub id: String,
    pub name: String,
    pub version: String,
    /// The embeddable string used by the SkillIndex.
    pub description: String,
    pub tags: Vec<String>,
    /// True if any tool invokes a retrieval primitive.
    pub uses_retrieval: bool,
    /// Tools by name. Empty for instruction-only skills (plain Agent Skills files).
    pub tools: BTreeMap<String, ToolDefinition>,
    /// Chunking override for this skill's knowledge base; `None` inherits the global default.
    pub kb_chunk_strategy: Option<String>,
    pub kb_chunk_size: Option<usize>,
    /// Trigger phrases (`"sort {path} by type"`) that help the rule planner pick this skill.
    #[serde(default)]
    pub triggers: Vec<String>,
    /// The Markdown body outside tool declarations: instructions for people and the thinker.
    #[serde(default)]
    pub instructions: String,
    /// Set for a workflow skill: the saved plan its SKILL.md lists under `steps:`.
    #[serde(default)]
    pub workflow: Option<crate::Workflow>,
}

impl SkillDefinition {
    pub fn tool(&self, name: &str) -> Option<&ToolDefinition> {
        self.tools.get(name)
    }

    /// A skill with no tools only carries instructions (a plain Agent Skills SKILL.md).
    pub fn is_instruction_only(&self) -> bool {
        self.tools.is_empty() && self.workflow.is_none()
    }
}
