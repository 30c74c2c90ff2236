//! Drafting a new skill's tool declarations (skill-create with a model planner): the JSON Schema a
//! draft is constrained to (one branch per primitive operation, offering only that operation's
//! optional parameters), the prompt, and the check that the drafted SKILL.md loads. Pure.

use std::collections::BTreeSet;

use contracts::{PrimitiveKind, PrimitiveTable};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use skills::{ScaffoldSpec, SkillStore, ToolDeclaration};

use crate::PlanUsage;

/// Most tools one draft may declare.
pub const MAX_DRAFTED_TOOLS: usize = 4;

/// The new skill the tools are drafted for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolDraftRequest {
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
}

impl ToolDraftRequest {
    /// From a `scaffold_skill` call: `name`, `description` and comma-separated `tags`.
    pub fn from_params(params: &serde_json::Map<String, Value>) -> Self {
        let text = |k: &str| {
            params
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        ToolDraftRequest {
            name: text("name"),
            description: text("description"),
            tags: text("tags")
                .split(',')
                .map(|t| t.trim().to_owned())
                .filter(|t| !t.is_empty())
                .collect(),
        }
    }
}

/// Drafted declarations (checked: the SKILL.md they make loads) and how the drafting went.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DraftedTools {
    pub tools: Vec<ToolDeclaration>,
    pub notes: Vec<String>,
    pub usage: PlanUsage,
    /// The prompt the model was given, for the audit log.
    pub prompt: Option<String>,
    /// The model's accepted answer, verbatim.
    pub response: Option<String>,
}

/// One tool as the model writes it; required parameters come from the primitive table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTool {
    name: String,
    summary: String,
    primitive: PrimitiveKind,
    operation: String,
    #[serde(default)]
    optional: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDraft {
    tools: Vec<RawTool>,
}

/// Primitive operations a skill may declare (the reserved `llm` family is left out).
fn operations(table: &PrimitiveTable) -> impl Iterator<Item = &contracts::PrimitiveSpec> {
    table.iter().filter(|s| s.kind != PrimitiveKind::Llm)
}

/// The schema a draft is constrained to: 1..=`MAX_DRAFTED_TOOLS` tools, each naming one
/// operation of `table` and a subset of that operation's optional parameters.
pub fn tool_draft_schema(table: &PrimitiveTable) -> Value {
    let branches: Vec<Value> = operations(table)
        .map(|spec| {
            let optional: Vec<&str> = spec.optional.iter().map(|p| p.name.as_str()).collect();
            let optional = if optional.is_empty() {
                json!({"type": "array", "maxItems": 0})
            } else {
                json!({"type": "array", "items": {"enum": optional}, "maxItems": optional.len()})
            };
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]{1,30}$"},
                    "summary": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9 ,.'()/-]{2,79}$"},
                    "primitive": {"const": spec.kind.as_str()},
                    "operation": {"const": spec.name},
                    "optional": optional
                },
                "required": ["name", "summary", "primitive", "operation", "optional"],
                "additionalProperties": false
            })
        })
        .collect();
    json!({
        "type": "object",
        "properties": {
            "tools": {
                "type": "array",
                "items": {"anyOf": branches},
                "minItems": 1,
                "maxItems": MAX_DRAFTED_TOOLS
            }
        },
        "required": ["tools"],
        "additionalProperties": false,
        "x-guidance": {
            "whitespace_flexible": false,
            "item_separator": ", ",
            "key_separator": ": "
        }
    })
}

const RULES: &str = "You design the tools of a new skill for a file-management agent. Each tool \
calls exactly one engine operation from the list below. Answer with JSON only: {\"tools\": \
[{\"name\": \"snake_case_name\", \"summary\": \"what it does, in a few plain words\", \
\"primitive\": \"graph\", \"operation\": \"find\", \"optional\": [\"extension\"]}]}.
Rules:
- 1 to 4 tools; each tool name is unique, lowercase with underscores.
- The operation's required parameters are always declared; list in `optional` only the optional \
parameters this skill needs.
- Prefer read-only operations unless the skill's purpose is to change files.";

/// The system and user messages for drafting `request`'s tools.
pub fn draft_prompt(request: &ToolDraftRequest, table: &PrimitiveTable) -> (String, String) {
    let mut system = String::from(RULES);
    system.push_str("\n\nOperations (primitive operation (required; optional) -- what it does):\n");
    for spec in operations(table) {
        let required: Vec<&str> = spec.required.iter().map(|p| p.name.as_str()).collect();
        let optional: Vec<&str> = spec.optional.iter().map(|p| p.name.as_str()).collect();
        system.push_str(&format!(
            "- {} {} ({}; {}) -- {}{}\n",
            spec.kind,
            spec.name,
            required.join(", "),
            optional.join(", "),
            spec.summary,
            if spec.mutates { " [changes files]" } else { "" }
        ));
    }
    let mut user = format!(
        "Skill `{}`: {}",
        request.name,
        request
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    );
    if !request.tags.is_empty() {
        user.push_str(&format!("\nTags: {}", request.tags.join(", ")));
    }
    user.push_str("\nDeclare its tools.");
    (system, user)
}

/// Parses one answer into declarations and checks that the SKILL.md they make loads; every
/// problem as one message when not.
pub fn check_draft(
    text: &str,
    request: &ToolDraftRequest,
    store: &SkillStore,
) -> Result<Vec<ToolDeclaration>, String> {
    let raw: RawDraft = serde_json::from_str(text.trim())
        .map_err(|e| format!("the answer is not a JSON list of tools ({e})"))?;
    let mut problems = Vec::new();
    let mut names = BTreeSet::new();
    let mut tools = Vec::new();
    if raw.tools.is_empty() {
        problems.push("declare at least one tool".to_owned());
    }
    for mut t in raw.tools {
        // A repeated name: the same declaration again is dropped, another one is numbered.
        if names.contains(&t.name) {
            let same = tools.iter().any(|d: &ToolDeclaration| {
                d.name == t.name && d.operation == t.operation && d.optional == t.optional
            });
            if same {
                continue;
            }
            t.name = (2..)
                .map(|i| format!("{}_{i}", t.name))
                .find(|n| !names.contains(n))
                .expect("a free name");
        }
        names.insert(t.name.clone());
        let Some(spec) = store.table().get(t.primitive, &t.operation) else {
            problems.push(format!(
                "`{}`: there is no {} operation `{}`",
                t.name, t.primitive, t.operation
            ));
            continue;
        };
        let required: Vec<String> = spec.required.iter().map(|p| p.name.clone()).collect();
        let mut optional = Vec::new();
        for p in t.optional {
            if spec.optional.iter().any(|o| o.name == p) && !optional.contains(&p) {
                optional.push(p);
            } else if !required.contains(&p) && !optional.contains(&p) {
                problems.push(format!(
                    "`{}`: `{p}` is not a parameter of {} {}",
                    t.name, t.primitive, t.operation
                ));
            }
        }
        tools.push(ToolDeclaration {
            name: t.name,
            summary: t.summary,
            primitive: t.primitive,
            operation: t.operation,
            required,
            optional,
        });
    }
    if problems.is_empty() {
        let spec = ScaffoldSpec {
            name: &request.name,
            description: &request.description,
            tags: &request.tags,
            tools: &tools,
        };
        match store.scaffold_preview(&spec) {
            Ok((_, _, errors)) => problems.extend(errors.iter().map(|d| d.message.clone())),
            Err(e) => problems.push(e.to_string()),
        }
    }
    if problems.is_empty() {
        Ok(tools)
    } else {
        Err(problems.join("; "))
    }
}
