//! The JSON Schema the LLM planner's output is constrained to: the `Plan` contract, specialised to
//! the loaded skills — one branch per (skill, tool) with that tool's own parameters.

use contracts::ParamType;
use serde_json::{Value, json};
use skills::SkillStore;

/// Longest string the model may write into one field (keeps constrained decoding bounded).
pub const MAX_STRING: usize = 120;

/// A string the step at 1-based `position` may write: plain text (not starting with `$`), or a
/// reference to an earlier step's result. Constrained output can so never reference its own or a
/// later step (a cycle), which small models otherwise do.
fn string_at(position: usize) -> Value {
    let plain = json!({"type": "string", "pattern": format!("^([^$].{{0,{}}})?$", MAX_STRING - 1)});
    if position <= 1 {
        return plain;
    }
    let earlier: Vec<String> = (1..position).map(|n| n.to_string()).collect();
    let reference = json!({
        "type": "string",
        "pattern": format!("^\\$step\\(({})\\)\\.[a-z_]+$", earlier.join("|"))
    });
    json!({"anyOf": [plain, reference]})
}

fn value_schema(ty: Option<ParamType>, choices: &[String], position: usize) -> Value {
    let string = string_at(position);
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

/// The schema of a model planner's answer for the skills in `store`: either a plan of at most
/// `max_steps` steps, each one (skill, tool) branch with that tool's own parameters (generated
/// from the tools' declared parameters and their primitive types), or one question. Written
/// compactly (no spaces between tokens) and without step numbers or descriptions: the answer's
/// shape is `answer::ModelAnswer`, turned into the `Plan` contract after decoding. Each position
/// has its own parameter definitions, whose strings may reference only earlier steps.
pub fn plan_schema(store: &SkillStore, max_steps: usize) -> Value {
    let max_steps = max_steps.max(1);
    let mut defs = serde_json::Map::new();
    let mut positions: Vec<Value> = Vec::new();
    for position in 1..=max_steps {
        let mut branches: Vec<Value> = Vec::new();
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
                        value_schema(p.map(|p| p.ty), p.map_or(&[][..], |p| &p.choices), position),
                    );
                }
                let def = format!("{}.{}@{position}", skill.name, tool.name);
                defs.insert(
                    def.clone(),
                    json!({
                        "type": "object",
                        "properties": props,
                        "required": tool.required_params,
                        "additionalProperties": false
                    }),
                );
                branches.push(json!({
                    "type": "object",
                    "properties": {
                        "skill": {"const": skill.name},
                        "tool": {"const": tool.name},
                        "params": {"$ref": format!("#/$defs/{def}")}
                    },
                    "required": ["skill", "tool", "params"],
                    "additionalProperties": false
                }));
            }
        }
        positions.push(json!({"anyOf": branches}));
    }
    json!({
        "anyOf": [
            {
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
                "additionalProperties": false
            },
            {
                "type": "object",
                "properties": {"question": {"type": "string", "minLength": 1, "maxLength": MAX_STRING}},
                "required": ["question"],
                "additionalProperties": false
            }
        ],
        "$defs": defs,
        "x-guidance": {
            "whitespace_flexible": false,
            "item_separator": ",",
            "key_separator": ":"
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
