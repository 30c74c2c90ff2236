//! The JSON Schema the LLM planner's output is constrained to: the `Plan` contract, specialised to
//! the loaded skills — one branch per (skill, tool) with that tool's own parameters.

use contracts::ParamType;
use serde_json::{Value, json};
use skills::SkillStore;

/// Longest string the model may write into one field (keeps constrained decoding bounded).
pub const MAX_STRING: usize = 120;

fn value_schema(ty: Option<ParamType>, choices: &[String]) -> Value {
    let string = json!({"type": "string", "maxLength": MAX_STRING});
    if !choices.is_empty() {
        return json!({"enum": choices});
    }
    match ty {
        Some(ParamType::Bool) => json!({"type": "boolean"}),
        Some(ParamType::Int) => json!({"type": "integer", "minimum": 0, "maximum": 100000}),
        Some(ParamType::Paths) => json!({"anyOf": [
            string,
            {"type": "array", "items": string, "minItems": 1, "maxItems": 8}
        ]}),
        Some(ParamType::Any) => json!({"anyOf": [
            string,
            {"type": "array", "items": string, "maxItems": 8}
        ]}),
        _ => string,
    }
}

/// The plan schema for the skills in `store`, at most `max_steps` steps. Generated from the
/// contracts: `PlanStep`'s fields, the tools' declared parameters and their primitive types.
///
/// Step numbers are fixed by position (`prefixItems`, one `const` per position), so constrained
/// output can never misnumber its steps; each tool's parameter object is a shared `$defs` entry.
pub fn plan_schema(store: &SkillStore, max_steps: usize) -> Value {
    let max_steps = max_steps.max(1);
    let mut defs = serde_json::Map::new();
    let mut tools: Vec<(String, String, String)> = Vec::new();
    for loaded in store.skills().filter(|s| !is_template(s, store)) {
        let skill = &loaded.definition;
        for tool in skill.tools.values() {
            let spec = store
                .table()
                .get(tool.primitive.kind(), tool.primitive.operation());
            let mut props = serde_json::Map::new();
            for name in tool.required_params.iter().chain(&tool.optional_params) {
                let p = spec.and_then(|s| s.param(name));
                props.insert(
                    name.clone(),
                    value_schema(p.map(|p| p.ty), p.map_or(&[][..], |p| &p.choices)),
                );
            }
            let def = format!("{}.{}", skill.name, tool.name);
            defs.insert(
                def.clone(),
                json!({
                    "type": "object",
                    "properties": props,
                    "required": tool.required_params,
                    "additionalProperties": false
                }),
            );
            tools.push((skill.name.clone(), tool.name.clone(), def));
        }
    }
    let positions: Vec<Value> = (1..=max_steps)
        .map(|n| {
            let branches: Vec<Value> = tools
                .iter()
                .map(|(skill, tool, def)| {
                    json!({
                        "type": "object",
                        "properties": {
                            "step": {"const": n},
                            "description": {"type": "string", "maxLength": MAX_STRING},
                            "skill": {"const": skill},
                            "tool": {"const": tool},
                            "params": {"$ref": format!("#/$defs/{def}")}
                        },
                        "required": ["step", "description", "skill", "tool", "params"],
                        "additionalProperties": false
                    })
                })
                .collect();
            json!({"anyOf": branches})
        })
        .collect();
    json!({
        "type": "object",
        "properties": {
            "steps": {
                "type": "array",
                "prefixItems": positions,
                "items": false,
                "minItems": 1,
                "maxItems": max_steps
            }
        },
        "required": ["steps"],
        "additionalProperties": false,
        "$defs": defs,
        "x-guidance": {
            "whitespace_flexible": false,
            "item_separator": ", ",
            "key_separator": ": "
        }
    })
}

/// The skill and tool names the schema allows, as `(skill, tool)` pairs.
pub fn allowed_pairs(store: &SkillStore) -> Vec<(String, String)> {
    store
        .skills()
        .filter(|s| !is_template(s, store))
        .flat_map(|s| {
            s.definition
                .tools
                .keys()
                .map(|t| (s.definition.name.clone(), t.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// `skill_template` is a scaffold, not a skill to plan with.
pub fn is_template(s: &skills::LoadedSkill, store: &SkillStore) -> bool {
    s.dir == store.dir().join(skills::TEMPLATE_DIR)
}
