//! Describing a tool for people and for matching (seed 002's self-describing capabilities): the
//! JSON Schema the model's answer is constrained to, the prompt (the skill's own words: its
//! description, the tool's declaration, the requests its SKILL.md already names for it), and the
//! check of the answer. Pure.

use contracts::{SkillDefinition, ToolDescription};
use serde::Deserialize;
use serde_json::{Value, json};
use skills::{MAX_EXAMPLES, MAX_TAGS};

use crate::PlanUsage;

/// A tool described by a model, and how the call went.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DescribedTool {
    pub description: ToolDescription,
    pub usage: PlanUsage,
}

/// Fewest example requests a model's description must give.
pub const MIN_EXAMPLES: usize = 3;
/// Longest summary and example request, in characters.
const MAX_SUMMARY: usize = 200;
const MAX_EXAMPLE: usize = 100;

/// The answer's shape: a summary, 3–6 example requests and 1–8 tags.
pub fn description_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "summary": {"type": "string", "minLength": 10, "maxLength": MAX_SUMMARY},
            "examples": {
                "type": "array",
                "items": {"type": "string", "minLength": 8, "maxLength": MAX_EXAMPLE},
                "minItems": MIN_EXAMPLES,
                "maxItems": MAX_EXAMPLES,
            },
            "tags": {
                "type": "array",
                "items": {"type": "string", "minLength": 2, "maxLength": 24},
                "minItems": 1,
                "maxItems": MAX_TAGS,
            },
        },
        "required": ["summary", "examples", "tags"],
        "additionalProperties": false,
        "x-guidance": {
            "whitespace_flexible": false,
            "item_separator": ", ",
            "key_separator": ": "
        },
    })
}

/// The system and user message that ask for `tool`'s description. The tool's name is left out
/// of what the model reads where it can be (a small model echoes it into every example).
pub fn description_prompt(skill: &SkillDefinition, tool: &str) -> (String, String) {
    let system = "You write how people ask a desktop file assistant for one thing it can do. \
        Answer with JSON only: \"summary\" is one sentence of at most 20 words saying what it \
        does for the person, starting with a verb (\"Finds ...\", \"Moves ...\"), with no tool or \
        parameter names; \"examples\" are 5 different requests a person would type to get it, in \
        everyday words and varied (questions and commands, short and long), with realistic \
        folder and file names, never the tool's name; \"tags\" are 2 to 5 short lowercase topic \
        words."
        .to_owned();
    let t = skill.tools.get(tool);
    let flat = |text: &str| text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut user = format!(
        "What it does: {}.\nIt is part of this: {}\n",
        t.map(|t| t.description.trim_end_matches('.'))
            .unwrap_or_default(),
        first_sentences(&flat(&skill.description), 2),
    );
    if let Some(d) = t.and_then(|t| t.described.as_ref())
        && !d.examples.is_empty()
    {
        user.push_str(&format!(
            "People ask for it like this: {}\n",
            d.examples
                .iter()
                .map(|e| format!("\"{e}\""))
                .collect::<Vec<_>>()
                .join("; ")
        ));
    }
    let others: Vec<String> = skill
        .tools
        .values()
        .filter(|o| o.name != tool)
        .map(|o| o.description.trim_end_matches('.').to_owned())
        .collect();
    if !others.is_empty() {
        user.push_str(&format!(
            "Not to be confused with: {}.\n",
            others.join("; ")
        ));
    }
    user.push_str(
        "\nWrite the summary, then 5 requests that ask for the same in other words than these \
         (other verbs, questions, casual phrasing), and the tags.",
    );
    (system, user)
}

/// The first `n` sentences of `text`.
fn first_sentences(text: &str, n: usize) -> &str {
    let mut end = text.len();
    let mut found = 0;
    for (i, _) in text.match_indices(". ") {
        found += 1;
        if found == n {
            end = i + 1;
            break;
        }
    }
    &text[..end]
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawDescription {
    summary: String,
    examples: Vec<String>,
    tags: Vec<String>,
}

/// Parses a model's answer: the description when it says something, else every problem.
pub fn check_description(text: &str) -> Result<ToolDescription, String> {
    let raw: RawDescription =
        serde_json::from_str(text.trim()).map_err(|e| format!("not the asked JSON: {e}"))?;
    // Spaces collapsed, repeats and (after that) too short ones dropped, at most `max`.
    let clean = |items: Vec<String>, min: usize, max: usize| {
        let mut seen = std::collections::BTreeSet::new();
        items
            .into_iter()
            .map(|i| i.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|i| i.chars().count() >= min && seen.insert(i.to_lowercase()))
            .take(max)
            .collect::<Vec<_>>()
    };
    let description = ToolDescription {
        summary: raw.summary.split_whitespace().collect::<Vec<_>>().join(" "),
        examples: clean(raw.examples, 8, MAX_EXAMPLES),
        tags: clean(raw.tags, 2, MAX_TAGS)
            .into_iter()
            .map(|t| t.to_lowercase())
            .collect(),
    };
    let mut problems = Vec::new();
    if description
        .summary
        .chars()
        .filter(|c| c.is_alphabetic())
        .count()
        < 10
    {
        problems.push("the summary says nothing".to_owned());
    } else if !description.summary.ends_with(['.', '!', '?']) {
        problems.push("the summary was cut off: write one sentence of at most 20 words".to_owned());
    }
    if description.examples.len() < MIN_EXAMPLES {
        problems.push(format!(
            "give at least {MIN_EXAMPLES} different example requests"
        ));
    }
    let openings: std::collections::BTreeSet<String> = description
        .examples
        .iter()
        .map(|e| {
            e.split_whitespace()
                .take(2)
                .collect::<Vec<_>>()
                .join(" ")
                .to_lowercase()
        })
        .collect();
    if description.examples.len() >= MIN_EXAMPLES && openings.len() < MIN_EXAMPLES {
        problems.push(
            "the examples say the same thing: start each one with other words, as different \
             people would ask"
                .to_owned(),
        );
    }
    if description.tags.is_empty() {
        problems.push("give at least one tag".to_owned());
    }
    if problems.is_empty() {
        Ok(description)
    } else {
        Err(problems.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_cleaned_and_checked() {
        let ok = check_description(
            r#"{"summary":"Finds  copies of the same file.","examples":["find duplicates in Music","Find duplicates in Music","which files are copies in Downloads","dedupe my Pictures"],"tags":["Duplicates","cleanup"]}"#,
        )
        .unwrap();
        assert_eq!(ok.summary, "Finds copies of the same file.");
        assert_eq!(ok.examples.len(), 3, "repeats dropped: {:?}", ok.examples);
        assert_eq!(ok.tags, vec!["duplicates", "cleanup"]);
        let err = check_description(r#"{"summary":"x","examples":["a a a a a a a a"],"tags":[]}"#)
            .unwrap_err();
        assert!(
            err.contains("summary says nothing")
                && err.contains("at least 3")
                && err.contains("one tag"),
            "{err}"
        );
        assert!(
            check_description("{}")
                .unwrap_err()
                .contains("not the asked JSON")
        );
        let cut = check_description(
            r#"{"summary":"Finds copies of the same file and tells how much","examples":["find duplicates in Music","which files are copies in Downloads","dedupe my Pictures"],"tags":["duplicates"]}"#,
        )
        .unwrap_err();
        assert!(cut.contains("cut off"), "{cut}");
        let same = check_description(
            r#"{"summary":"Counts the files of each type.","examples":["count all files in Downloads","count all files in Music","count all files in Video","how many photos are in Pictures"],"tags":["count"]}"#,
        )
        .unwrap_err();
        assert!(same.contains("say the same thing"), "{same}");
    }
}
