//! The LLM planner's prompt, as chat turns. The opening is the same for every request on one
//! skill store, so a model keeps it cached and reads only the last turn: the rules and a catalogue
//! of every skill's tools (system), then every skill's worked examples as earlier turns of the
//! conversation (the person's request, the plan it got), which teach a small model the answer's
//! shape and the skills' habits better than prose. The last turn discloses what this request needs
//! (progressive disclosure): the working folder's names, the "Planner guidance" prose of the best
//! matching skills in their own words (an instruction-only skill contributes its whole text), and
//! the request.

use contracts::{Plan, SkillDefinition};
use skills::SkillStore;

use crate::answer::{ModelAnswer, answer_text, into_plan, question_text};
use crate::{PlanRequest, PlanningContext, Result, is_template, validate_plan};

/// Who says a turn of the planning conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
}

/// A request and the plan it should get, from a skill's "Planner guidance".
#[derive(Debug, Clone, PartialEq)]
pub struct WorkedExample {
    pub request: String,
    pub plan: Plan,
}

/// The pieces of one planning prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptParts {
    /// Rules and catalogue: identical for every request on the same skills.
    pub system: String,
    /// Every plannable skill's worked examples, in skill order: identical for every request too.
    pub examples: Vec<WorkedExample>,
    /// The folder, the guidance of the best-matching skills and the request.
    pub user: String,
    /// The skills whose guidance the user message carries, best match first.
    pub skills: Vec<String>,
}

impl PromptParts {
    /// The conversation a model is given: the system message, a question asked when a request
    /// names nothing to act on, the worked examples (each a request and its plan), the request.
    pub fn turns(&self) -> Vec<(Role, String)> {
        let mut turns = vec![(Role::System, self.system.clone())];
        let (ask, question) = ASK_EXAMPLE;
        turns.push((Role::User, request_line(ask)));
        turns.push((Role::Assistant, question_text(question)));
        for example in &self.examples {
            turns.push((Role::User, request_line(&example.request)));
            turns.push((Role::Assistant, answer_text(&example.plan)));
        }
        turns.push((Role::User, self.user.clone()));
        turns
    }

    /// The conversation as one text, for the audit log.
    pub fn render(&self) -> String {
        self.turns()
            .iter()
            .map(|(role, text)| format!("[{role:?}]\n{text}"))
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

/// The request as the model reads it, and when it asks for several things, its parts in order
/// (the rule planner's clause split): a small model otherwise plans one part and drops the rest.
/// The worked examples are written the same way, so they show a plan covering every part.
fn request_line(request: &str) -> String {
    let parts: Vec<String> = crate::rules::split(request)
        .into_iter()
        .filter(|c| !c.header)
        .map(|c| c.text)
        .collect();
    if parts.len() < 2 {
        return format!("Request: {request}");
    }
    let numbered: Vec<String> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| format!("{}. {p}", i + 1))
        .collect();
    format!(
        "Request: {request}\nIts parts, each planned in this order: {}",
        numbered.join("; ")
    )
}

const RULES: &str = "You are the planner of a file-management agent. Answer the person's request \
with a JSON plan: {\"steps\":[{\"skill\":\"...\",\"tool\":\"...\",\"params\":{...}}]}, one tool \
call per step in the order they run.
Rules:
- Use only the skills and tools listed below, with the parameters their signatures name \
(required first, optional in brackets). Leave out optional parameters the request does not need.
- Paths are relative to the working folder (\".\" is the folder itself); use the names as the \
request and the folder listing spell them.
- A step uses an earlier step's result with a reference string such as \"$step(1).nodes\" \
(files found), \"$step(1).groups\" (duplicate groups) or \"$step(1).paths\" (search hits).
- Put a read-only step (find, scan, preview) before a step that deletes or moves many files.
- When the request does not say which files or folder to act on, do not guess: answer \
{\"question\":\"...\"} with what you need to know.";

/// The turn that shows when to ask instead of planning (a request with nothing to act on).
const ASK_EXAMPLE: (&str, &str) = (
    "back it up",
    "What should I back up, and into which folder?",
);

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
        // The tool's own planning knowledge from its SKILL.md: how people ask for it and what
        // it does when they do not say.
        let mut hints = String::new();
        if let Some(t) = tool.planning.triggers.first() {
            hints.push_str(&format!("; e.g. \"{t}\""));
        }
        let d: Vec<String> = tool
            .planning
            .defaults
            .iter()
            // A template over other parameters is the planner's to fill, not the model's.
            .filter(|(_, v)| !v.as_str().is_some_and(|s| s.contains('{')))
            .map(|(k, v)| {
                format!(
                    "{k}={}",
                    v.as_str().map_or_else(|| v.to_string(), str::to_owned)
                )
            })
            .collect();
        if !d.is_empty() {
            hints.push_str(&format!("; default {}", d.join(", ")));
        }
        out.push_str(&format!(
            "  {}({}{optional}) -> {}: {}{hints}\n",
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
        // Instruction-only skills give guidance; workflows are matched by their triggers.
        if is_template(loaded, cx.skills) || loaded.definition.tools.is_empty() {
            continue;
        }
        system.push_str(&catalogue_entry(&loaded.definition));
    }
    system
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

/// Where a skill's worked examples start in its guidance: the first line starting with `Example`.
fn examples_start(text: &str) -> Option<usize> {
    if text.starts_with("Example") {
        return Some(0);
    }
    text.find("\nExample").map(|i| i + 1)
}

/// What a skill tells the planner in prose: its "Planner guidance" section up to its worked
/// examples, clipped to its first `MAX_GUIDANCE_CHARS` (the first bullets, which say how the skill
/// is planned); for an instruction-only skill, its whole body, clipped the same way.
pub fn skill_guidance(skill: &SkillDefinition) -> Option<String> {
    let text = if skill.is_instruction_only() {
        skill.instructions.trim()
    } else {
        let section = skills::section(&skill.instructions, skills::PLANNER_GUIDANCE)?;
        section[..examples_start(section).unwrap_or(section.len())].trim_end()
    };
    let prose = clip(text, MAX_GUIDANCE_CHARS);
    (!prose.is_empty()).then(|| prose.to_owned())
}

/// The worked examples in a skill's "Planner guidance": each `Example: "request"` line followed by
/// a fenced `json` block with the plan's steps (an array, or an object with `steps`). An example
/// whose plan is not valid for `store` teaches nothing right and is left out.
pub fn worked_examples(skill: &SkillDefinition, store: &SkillStore) -> Vec<WorkedExample> {
    skills::guidance_examples(&skill.instructions)
        .into_iter()
        .filter_map(|e| example_plan(&e.request, &e.json, store))
        .collect()
}

/// One example's plan from its JSON block, when it parses and validates.
fn example_plan(request: &str, json: &str, store: &SkillStore) -> Option<WorkedExample> {
    let json = json.trim();
    let wrapped = if json.starts_with('[') {
        format!("{{\"steps\":{json}}}")
    } else {
        json.to_owned()
    };
    let ModelAnswer::Plan(steps) = ModelAnswer::parse(&wrapped).ok()? else {
        return None;
    };
    let plan = into_plan(steps, store);
    let problems = validate_plan(&plan, store, usize::MAX);
    if !problems.is_empty() {
        tracing::warn!(
            request,
            ?problems,
            "a worked example's plan is invalid; left out"
        );
        return None;
    }
    Some(WorkedExample {
        request: request.to_owned(),
        plan,
    })
}

/// Every plannable skill's worked examples: the skills about the agent itself (tagged `meta`)
/// first, then the rest in the store's order. A small model leans on the examples it read last,
/// and most requests are about files: with "make a skill that …" right before the request,
/// Qwen2.5-1.5B answered "make a folder called Receipts" with a new skill.
fn all_examples(store: &SkillStore) -> Vec<WorkedExample> {
    let plannable: Vec<_> = store
        .skills()
        .filter(|s| !is_template(s, store) && !s.definition.tools.is_empty())
        .collect();
    let is_meta = |s: &skills::LoadedSkill| s.definition.tags.iter().any(|t| t == "meta");
    let (meta, files): (Vec<_>, Vec<_>) = plannable.into_iter().partition(|s| is_meta(s));
    meta.into_iter()
        .chain(files)
        .flat_map(|s| worked_examples(&s.definition, store))
        .collect()
}

/// Builds the prompt for `request`: the shared system message and worked examples, then the folder,
/// the guidance prose of the `guidance_skills` best-matching skills, and the request.
pub fn build_prompt(
    request: &PlanRequest,
    cx: &PlanningContext,
    guidance_skills: usize,
) -> Result<PromptParts> {
    let mut user = String::new();
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
    // With no guidance slots, an instruction-only skill that matches best still gives its text:
    // it has no tools or worked examples in the opening, so its words are its only way in.
    let slots = guidance_skills.max(1);
    for (skill, _) in candidates {
        if chosen.len() >= slots {
            break;
        }
        let Some(loaded) = cx.skills.get(skill) else {
            continue;
        };
        if is_template(loaded, cx.skills) || loaded.definition.workflow.is_some() {
            continue;
        }
        if guidance_skills == 0 && !loaded.definition.is_instruction_only() {
            break;
        }
        if let Some(guidance) = skill_guidance(&loaded.definition) {
            user.push_str(&format!("How to plan with {skill}:\n{guidance}\n\n"));
            chosen.push(skill.to_owned());
        }
    }
    user.push_str(&request_line(request.text.trim()));
    Ok(PromptParts {
        system: system_prompt(cx),
        examples: all_examples(cx.skills),
        user,
        skills: chosen,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

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
