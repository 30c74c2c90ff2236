//! Self-describing tools (seed 002): each tool's summary, example requests and tags, stored beside
//! its SKILL.md as `descriptions.json` together with the SHA-256 of the SKILL.md they describe.
//!
//! A stored file written for another version of the SKILL.md is stale; then, as when there is no
//! file (or a broken one), the descriptions are derived from the skill itself: the tool's one-line
//! description, the skill's worked examples that use the tool and
//! the trigger phrases that are its alone, with their slots filled (else the tool's own line, as a
//! request). The Thinker writes better ones when a model is
//! configured (`Engine::describe_skills`). Pure, except `read_descriptions`/`write_descriptions`.

use std::collections::BTreeMap;
use std::path::Path;

use contracts::{
    ParamType, PrimitiveTable, SkillDefinition, ToolDefinition, ToolDescription, triggers_for_tool,
};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::diagnostic::Diagnostic;
use crate::guidance::guidance_examples;

/// The file beside SKILL.md that stores its tools' descriptions.
pub const DESCRIPTIONS_FILE: &str = "descriptions.json";

/// Who writes descriptions when no model does.
pub const DERIVED: &str = "derived";

/// At most this many example requests and tags per tool.
pub const MAX_EXAMPLES: usize = 6;
pub const MAX_TAGS: usize = 8;

/// `descriptions.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DescriptionsFile {
    /// What wrote them: [`DERIVED`], or the model's file name.
    pub generated_by: String,
    /// SHA-256 (hex) of the SKILL.md they were written for.
    pub skill_md_sha256: String,
    pub tools: BTreeMap<String, ToolDescription>,
}

/// Where a loaded skill's tool descriptions come from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct DescriptionOrigin {
    /// [`DERIVED`] or the model's file name.
    pub generated_by: String,
    /// Read from `descriptions.json` (false: derived at load, see `reason`).
    pub stored: bool,
    /// Why they were derived at load: no file, a stale or a broken one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl DescriptionOrigin {
    /// Written by a model and current: nothing to regenerate.
    pub fn by_model(&self) -> bool {
        self.stored && self.generated_by != DERIVED
    }
}

/// SHA-256 (hex) of a SKILL.md text.
pub fn skill_md_digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Reads `folder/descriptions.json` for the SKILL.md `text` of `def`: the stored descriptions when
/// they are current, else `None` with the reason; a file that is not valid JSON or names no tool of
/// the skill gets a warning (the skill loads all the same).
pub fn read_descriptions(
    folder: &Path,
    text: &str,
    def: &SkillDefinition,
) -> (Option<DescriptionsFile>, String, Vec<Diagnostic>) {
    let path = folder.join(DESCRIPTIONS_FILE);
    let Ok(raw) = std::fs::read_to_string(&path) else {
        return (None, "no descriptions.json".into(), Vec::new());
    };
    let file: DescriptionsFile = match serde_json::from_str(&raw) {
        Ok(f) => f,
        Err(e) => {
            let d = Diagnostic::warning(
                &path,
                e.line(),
                "BAD_DESCRIPTIONS",
                format!("not a descriptions file ({e}); the tools are described from SKILL.md"),
            );
            return (None, "descriptions.json is broken".into(), vec![d]);
        }
    };
    let mut diags = Vec::new();
    for tool in file.tools.keys().filter(|t| !def.tools.contains_key(*t)) {
        diags.push(Diagnostic::warning(
            &path,
            line_of(&raw, &format!("\"{tool}\"")),
            "BAD_DESCRIPTIONS",
            format!("`{tool}` is not a tool of `{}`", def.name),
        ));
    }
    if file.skill_md_sha256 != skill_md_digest(text) {
        return (
            None,
            format!(
                "descriptions.json ({}) was written for another version of SKILL.md",
                file.generated_by
            ),
            diags,
        );
    }
    (Some(file), String::new(), diags)
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map_or(0, |i| i + 1)
}

/// Gives each tool of `def` its description: the stored one, else the derived one.
pub fn attach_descriptions(
    def: &mut SkillDefinition,
    stored: Option<&DescriptionsFile>,
    table: &PrimitiveTable,
) {
    let derived = derive_descriptions(def, table);
    for (name, tool) in def.tools.iter_mut() {
        tool.described = stored
            .and_then(|f| f.tools.get(name))
            .filter(|d| !d.summary.trim().is_empty())
            .or_else(|| derived.get(name))
            .cloned();
    }
}

/// Writes `descriptions.json` for the SKILL.md `text` (through a temporary file and a rename, so a
/// reader never sees half a file).
pub fn write_descriptions(
    folder: &Path,
    text: &str,
    generated_by: &str,
    tools: &BTreeMap<String, ToolDescription>,
) -> std::io::Result<()> {
    let file = DescriptionsFile {
        generated_by: generated_by.to_owned(),
        skill_md_sha256: skill_md_digest(text),
        tools: tools.clone(),
    };
    let json = serde_json::to_string_pretty(&file).map_err(std::io::Error::other)? + "\n";
    let path = folder.join(DESCRIPTIONS_FILE);
    let tmp = folder.join(format!(".{DESCRIPTIONS_FILE}.tmp"));
    std::fs::write(&tmp, json)?;
    std::fs::rename(&tmp, &path)
}

/// Every tool's description from the skill itself (no model): see the module docs.
pub fn derive_descriptions(
    def: &SkillDefinition,
    table: &PrimitiveTable,
) -> BTreeMap<String, ToolDescription> {
    let examples = guidance_examples(&def.instructions);
    def.tools
        .iter()
        .map(|(name, tool)| {
            let mut requests: Vec<String> = examples
                .iter()
                .filter(|e| e.tools().iter().any(|(s, t)| *s == def.name && t == name))
                .map(|e| e.request.clone())
                .collect();
            // The tool's own triggers, and the skill's that fit this tool alone (one that
            // several tools share says nothing about this one).
            for trigger in triggers_for_tool(def, name) {
                let owners = def
                    .tools
                    .keys()
                    .filter(|t| triggers_for_tool(def, t).contains(&trigger))
                    .count();
                if tool.planning.triggers.iter().any(|t| t == trigger) || owners == 1 {
                    requests.push(fill_trigger(trigger, tool, table));
                }
            }
            // A tool that no example or trigger names is asked for in its own words.
            if requests.is_empty() && !tool.description.trim().is_empty() {
                requests.push(tool.description.trim().trim_end_matches('.').to_owned());
            }
            dedup(&mut requests);
            requests.truncate(MAX_EXAMPLES);
            let mut tags: Vec<String> = tool
                .planning
                .keywords
                .iter()
                .chain(&def.tags)
                .cloned()
                .collect();
            dedup(&mut tags);
            tags.truncate(MAX_TAGS);
            let description = ToolDescription {
                summary: derived_summary(def, tool),
                examples: requests,
                tags,
            };
            (name.clone(), description)
        })
        .collect()
}

/// The tool's one-line description as a sentence (the skill's own description has a document of
/// its own in the index: repeated in each tool's, it would make the tools alike).
fn derived_summary(def: &SkillDefinition, tool: &ToolDefinition) -> String {
    let own = tool.description.trim().trim_end_matches('.');
    if own.is_empty() {
        first_sentence(&def.description)
    } else {
        format!("{own}.")
    }
}

fn first_sentence(text: &str) -> String {
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let end = text
        .match_indices(". ")
        .map(|(i, _)| i + 1)
        .next()
        .unwrap_or(text.len());
    let s = text[..end].trim();
    if s.is_empty() || s.ends_with('.') {
        s.to_owned()
    } else {
        format!("{s}.")
    }
}

/// A trigger phrase with each `{slot}` filled by a value of the parameter's type, so it reads as
/// a request ("find duplicate files in {path}" → "find duplicate files in Downloads"); a slot of
/// free text is "…".
pub fn fill_trigger(trigger: &str, tool: &ToolDefinition, table: &PrimitiveTable) -> String {
    let spec = table.get(tool.primitive.kind(), tool.primitive.operation());
    let mut out = String::new();
    let mut rest = trigger;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push_str(&rest[..open]);
        let param = rest[open + 1..open + close].trim();
        let sample = tool
            .planning
            .defaults
            .get(param)
            .and_then(|v| v.as_str().map(str::to_owned))
            .or_else(|| {
                let p = spec?.param(param)?;
                p.choices.first().cloned().or_else(|| sample_of(p.ty))
            })
            .unwrap_or_else(|| "…".to_owned());
        out.push_str(&sample);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A value a person might say for a parameter of this type.
fn sample_of(ty: ParamType) -> Option<String> {
    Some(
        match ty {
            ParamType::Path => "Downloads",
            ParamType::Paths => "Downloads/report.pdf",
            ParamType::Size => "100 MB",
            ParamType::Date => "30 days",
            ParamType::Int => "10",
            ParamType::Str | ParamType::Bool | ParamType::Any => return None,
        }
        .to_owned(),
    )
}

/// Drops repeats (case aside), keeping the first.
fn dedup(items: &mut Vec<String>) {
    let mut seen = std::collections::BTreeSet::new();
    items.retain(|i| !i.trim().is_empty() && seen.insert(i.trim().to_lowercase()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_sentence_ends_at_a_full_stop() {
        assert_eq!(
            first_sentence("Find and delete duplicate files: identical copies. Groups them."),
            "Find and delete duplicate files: identical copies."
        );
        assert_eq!(first_sentence("No stop here"), "No stop here.");
    }

    #[test]
    fn a_digest_is_of_the_whole_text() {
        assert_ne!(skill_md_digest("a"), skill_md_digest("a "));
        assert_eq!(skill_md_digest("").len(), 64);
    }
}
