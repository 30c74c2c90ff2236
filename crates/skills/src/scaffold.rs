//! Scaffolding a new skill: the template's SKILL.md with a new name, description and tags, and
//! optionally drafted tool declarations in place of the template's examples, plus a matching
//! `vis.json`. Pure text work; `SkillStore::scaffold_with` writes the folder.

use contracts::{PrimitiveKind, PrimitiveTable};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// One tool of a new skill, as a planner drafted it: a name, a one-line summary, the primitive
/// operation it maps to and the parameters it declares.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolDeclaration {
    pub name: String,
    pub summary: String,
    pub primitive: PrimitiveKind,
    pub operation: String,
    #[serde(default)]
    pub required: Vec<String>,
    #[serde(default)]
    pub optional: Vec<String>,
}

impl ToolDeclaration {
    /// The `### name -- summary` heading and the compact declaration line under it.
    pub fn render(&self, table: &PrimitiveTable) -> String {
        let mut fields = vec![
            format!("primitive: {}", self.primitive),
            format!("{}: {}", self.primitive.operation_key(), self.operation),
        ];
        if self.primitive != PrimitiveKind::Retrieval {
            let mutates = table
                .get(self.primitive, &self.operation)
                .is_some_and(|s| s.mutates);
            fields.push(format!("mutates: {mutates}"));
        }
        fields.push(format!("required: [{}]", self.required.join(", ")));
        if !self.optional.is_empty() {
            fields.push(format!("optional: [{}]", self.optional.join(", ")));
        }
        format!(
            "### {} -- {}\n{}\n",
            self.name,
            one_line(&self.summary),
            fields.join(" | ")
        )
    }

    /// The tool's entry in `vis.json`.
    fn vis(&self, table: &PrimitiveTable) -> Value {
        let mutates = table
            .get(self.primitive, &self.operation)
            .is_some_and(|s| s.mutates);
        let action = match self.operation.as_str() {
            "delete_node" | "remove_duplicates" => "delete",
            "move_node" | "organize_by_type" | "organize_by_date" => "move",
            "copy_node" => "copy",
            "rename_node" | "batch_rename" => "rename",
            _ if mutates => "create",
            "find" | "find_duplicates" | "content_search" | "skill_match" => "search",
            _ => "read",
        };
        let has = |p: &str| self.required.iter().chain(&self.optional).any(|n| n == p);
        let highlight = if action == "search" {
            "result"
        } else if has("path") {
            "path"
        } else if has("target") {
            "target"
        } else {
            "result"
        };
        json!({
            "action": action,
            "destructive": action == "delete",
            "label": one_line(&self.summary),
            "highlight": highlight,
        })
    }
}

fn one_line(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// What a new skill is made of.
#[derive(Debug, Clone, Copy)]
pub struct ScaffoldSpec<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub tags: &'a [String],
    /// Drafted tools; empty keeps the template's example tools.
    pub tools: &'a [ToolDeclaration],
}

/// The new SKILL.md: fresh frontmatter, then the template's body with its name replaced; drafted
/// tools replace the template's `## Tools` section.
pub fn scaffold_skill_md(template: &str, spec: &ScaffoldSpec, table: &PrimitiveTable) -> String {
    // Everything after the template's closing `---` line.
    let body: String = template
        .lines()
        .skip(1)
        .skip_while(|l| l.trim_end() != "---")
        .skip(1)
        .collect::<Vec<_>>()
        .join("\n");
    let body = body.trim_start_matches('\n');
    let yaml_str = |s: &str| serde_json::to_string(s).expect("string serialises");
    let tags_yaml = spec
        .tags
        .iter()
        .map(|t| yaml_str(t))
        .collect::<Vec<_>>()
        .join(", ");
    let name = spec.name;
    let front = format!(
        "---\nname: {name}\nid: skill-{name}-v1\nversion: \"1.0\"\ndescription: {}\ntags: [{tags_yaml}]\ntriggers: []\n---\n\n",
        yaml_str(spec.description)
    );
    let mut body = body
        .replace("skill-template", name)
        .replace("Skill template", name);
    if !spec.tools.is_empty() {
        if let Some(at) = body.find("\n## Tools") {
            body.truncate(at + 1);
        } else {
            body.push('\n');
        }
        body.push_str("## Tools\n\nDrafted by the planner from the description; check each ");
        body.push_str("declaration before relying on it.\n");
        for tool in spec.tools {
            body.push('\n');
            body.push_str(&tool.render(table));
        }
    }
    front + &body
}

/// The new `vis.json`: the template's colour and icon, one entry per drafted tool (the template's
/// entries, renamed, when nothing was drafted).
pub fn scaffold_vis(template: Option<&str>, spec: &ScaffoldSpec, table: &PrimitiveTable) -> String {
    let mut vis: Value = template
        .and_then(|t| serde_json::from_str(t).ok())
        .filter(Value::is_object)
        .unwrap_or_else(|| json!({"color": "#9CA3AF", "icon": "template"}));
    vis["skill"] = json!(spec.name);
    if !spec.tools.is_empty() {
        let tools: serde_json::Map<String, Value> = spec
            .tools
            .iter()
            .map(|t| (t.name.clone(), t.vis(table)))
            .collect();
        vis["tools"] = Value::Object(tools);
    }
    serde_json::to_string_pretty(&vis).expect("vis serialises") + "\n"
}
