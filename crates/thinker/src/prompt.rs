//! The LLM planner's prompt, in two parts. The system message is the same for every request on
//! one skill store (rules and a catalogue of every skill's tools), so a model keeps its prefix
//! cached and reads only the rest. The user message discloses what this request needs
//! (progressive disclosure): the working folder's names, then the "Planner guidance" section and
//! worked example of the best-matching skills, in the skills' own words (an instruction-only
//! skill contributes its whole text), then the request.

use contracts::SkillDefinition;

use crate::{PlanRequest, PlanningContext, Result, is_template};

/// The pieces of one planning prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptParts {
    /// Rules and catalogue: identical for every request on the same skills.
    pub system: String,
    /// The folder, the guidance of the best-matching skills and the request.
    pub user: String,
    /// The skills whose guidance the user message carries, best match first.
    pub skills: Vec<String>,
}

const RULES: &str = "You are the planner of a file-management agent. Turn the person's request \
into a JSON plan: {\"steps\": [{\"step\": 1, \"description\": \"...\", \"skill\": \"...\", \
\"tool\": \"...\", \"params\": {...}}]}.
Rules:
- Use only the skills and tools listed below, with the parameters their signatures name \
(required first, optional in brackets). Leave out optional parameters the request does not need.
- One tool call per step, numbered 1, 2, 3 in the order they run.
- Paths are relative to the working folder (\".\" is the folder itself); use the names as the \
request and the folder listing spell them.
- A step uses an earlier step's result with a reference string such as \"$step(1).nodes\" \
(files found), \"$step(1).groups\" (duplicate groups) or \"$step(1).paths\" (search hits).
- Put a read-only step (find, scan, preview) before a step that deletes or moves many files.
- The description of a step is a few plain words.";

/// Most characters of a skill's guidance prose in a prompt (its worked example comes on top):
/// the first bullets, which say how the skill is planned, rather than every detail.
const MAX_GUIDANCE_CHARS: usize = 1200;

/// The first sentence of a description, on one line.
fn first_sentence(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.find(". ") {
        Some(end) => flat[..=end].to_owned(),
        None => flat,
    }
}

/// One catalogue entry: the skill's purpose and its tools' signatures.
fn catalogue_entry(skill: &SkillDefinition) -> String {
    let mut out = format!("\n{}: {}\n", skill.name, first_sentence(&skill.description));
    for tool in skill.tools.values() {
        let optional = if tool.optional_params.is_empty() {
            String::new()
        } else {
            format!(" [{}]", tool.optional_params.join(", "))
        };
        out.push_str(&format!(
            "  {}({}{optional}) -> {}: {}\n",
            tool.name,
            tool.required_params.join(", "),
            tool.return_type,
            tool.description
        ));
    }
    out
}

/// The system message for a skill store: the rules and every plannable skill's tools. Depends on
/// nothing but the skills, so it is byte-identical across requests (the model's cached prefix).
pub fn system_prompt(cx: &PlanningContext) -> String {
    let mut system = String::from(RULES);
    system.push_str("\n\nSkills and their tools:\n");
    for loaded in cx.skills.skills() {
        if is_template(loaded, cx.skills) || loaded.definition.is_instruction_only() {
            continue;
        }
        system.push_str(&catalogue_entry(&loaded.definition));
    }
    system
}

/// A Markdown section's text: from the `## {title}` heading to the next `## ` heading.
fn section<'a>(markdown: &'a str, title: &str) -> Option<&'a str> {
    let mut start = None;
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        let heading = line.trim_end();
        if let Some(start) = start {
            if heading.starts_with("## ") {
                return Some(markdown[start..offset].trim());
            }
        } else if heading.strip_prefix("## ").map(str::trim) == Some(title) {
            start = Some(offset + line.len());
        }
        offset += line.len();
    }
    start.map(|s| markdown[s..].trim())
}

/// At most `max` characters of `text`, cut at a line end.
fn clip(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    match text[..end].rfind('\n') {
        Some(line_end) => &text[..line_end],
        None => &text[..end],
    }
}

/// What a skill teaches the planner: its "Planner guidance" section, the prose clipped to its first
/// `MAX_GUIDANCE_CHARS` and the worked example (from a line starting with `Example`) kept whole;
/// for an instruction-only skill, its whole body, clipped the same way.
pub fn skill_guidance(skill: &SkillDefinition) -> Option<String> {
    let text = if skill.is_instruction_only() {
        skill.instructions.trim()
    } else {
        section(&skill.instructions, "Planner guidance")?
    };
    if text.is_empty() {
        return None;
    }
    let example_at = text
        .match_indices("\nExample")
        .map(|(i, _)| i + 1)
        .last()
        .filter(|_| !skill.is_instruction_only());
    let (prose, example) = match example_at {
        Some(i) => (text[..i].trim_end(), Some(text[i..].trim())),
        None => (text, None),
    };
    let mut out = clip(prose, MAX_GUIDANCE_CHARS).to_owned();
    if let Some(example) = example {
        out.push_str("\n\n");
        out.push_str(example);
    }
    Some(out)
}

/// Builds the prompt for `request`: the shared system message, then the folder, the guidance of
/// the `guidance_skills` best-matching skills, and the request.
pub fn build_prompt(
    request: &PlanRequest,
    cx: &PlanningContext,
    guidance_skills: usize,
) -> Result<PromptParts> {
    let mut user = String::new();
    // The folder first: it stays the same across requests on one folder, so it is cached too.
    if request.root_name.is_some() || !request.entries.is_empty() {
        user.push_str(&format!(
            "Working folder: {}\n",
            request.root_name.as_deref().unwrap_or(".")
        ));
        let names: Vec<&str> = request
            .entries
            .iter()
            .take(40)
            .map(String::as_str)
            .collect();
        if !names.is_empty() {
            user.push_str(&format!("It contains: {}\n", names.join(", ")));
        }
        user.push('\n');
    }
    let mut chosen: Vec<String> = Vec::new();
    if guidance_skills > 0 {
        let ranking = cx.retrieval.match_skill(&request.text)?;
        // Each skill once, at its best score: the tool pairs and the instruction-only skills.
        let mut candidates: Vec<(&str, f32)> = Vec::new();
        for (skill, score) in ranking
            .hits
            .iter()
            .map(|h| (h.skill.as_str(), h.score))
            .chain(
                ranking
                    .instructions
                    .iter()
                    .map(|h| (h.skill.as_str(), h.score)),
            )
        {
            if !candidates.iter().any(|(s, _)| *s == skill) {
                candidates.push((skill, score));
            }
        }
        candidates.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (skill, _) in candidates {
            if chosen.len() >= guidance_skills {
                break;
            }
            let Some(loaded) = cx.skills.get(skill) else {
                continue;
            };
            if is_template(loaded, cx.skills) {
                continue;
            }
            if let Some(guidance) = skill_guidance(&loaded.definition) {
                user.push_str(&format!("How to plan with {skill}:\n{guidance}\n\n"));
                chosen.push(skill.to_owned());
            }
        }
    }
    user.push_str(&format!("Request: {}", request.text.trim()));
    Ok(PromptParts {
        system: system_prompt(cx),
        user,
        skills: chosen,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_runs_to_the_next_heading_of_its_level() {
        let md = "# Title\n\n## When to use\nwhen\n\n## Planner guidance\n- one\n### sub\n- two\n\n## Tools\nx\n";
        assert_eq!(
            section(md, "Planner guidance"),
            Some("- one\n### sub\n- two")
        );
        assert_eq!(section(md, "Tools"), Some("x"));
        assert_eq!(section(md, "Missing"), None);
    }

    #[test]
    fn clipping_cuts_at_a_line_end_and_respects_characters() {
        assert_eq!(clip("abc\ndef\nghi", 9), "abc\ndef");
        assert_eq!(clip("short", 100), "short");
        assert_eq!(clip("ééé", 3), "é");
    }

    #[test]
    fn the_first_sentence_is_one_line() {
        assert_eq!(
            first_sentence("Find and delete\n  duplicate files. Groups them."),
            "Find and delete duplicate files."
        );
    }
}
