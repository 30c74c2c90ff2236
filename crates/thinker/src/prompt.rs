//! The LLM planner's prompt: a system prompt with only the top-k retrieved skills' descriptions
//! and tool signatures (progressive disclosure), the working folder's names, and the request.

use std::collections::BTreeSet;

use crate::{PlanRequest, PlanningContext, Result, is_template};

/// The pieces of one planning prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptParts {
    pub system: String,
    pub user: String,
    /// The skills disclosed to the model, best match first.
    pub skills: Vec<String>,
}

const RULES: &str = "You are the planner of a file-management agent. Turn the person's request \
into a JSON plan: {\"steps\": [{\"step\": 1, \"description\": \"...\", \"skill\": \"...\", \
\"tool\": \"...\", \"params\": {...}}]}.
Rules:
- Use only the skills and tools listed below, with the parameters their signatures name.
- Number steps 1, 2, 3 in order; one tool call per step.
- Paths are relative to the working folder (\".\" is the folder itself).
- A step can use an earlier step's result with a reference string such as \"$step(1).nodes\" \
(a NodeList's files), \"$step(1).groups\" (duplicate groups) or \"$step(1).paths\" (search hits).
- Prefer a read-only step (list, find, scan) before a step that deletes or moves many files.
- Write a short description of each step in plain words.";

/// Builds the prompt for `request`, disclosing the `top_k` best-matching skills.
pub fn build_prompt(
    request: &PlanRequest,
    cx: &PlanningContext,
    top_k: usize,
) -> Result<PromptParts> {
    let ranking = cx.retrieval.match_skill(&request.text)?;
    let mut chosen: Vec<String> = Vec::new();
    let mut seen = BTreeSet::new();
    for hit in &ranking.hits {
        if seen.insert(hit.skill.clone()) {
            chosen.push(hit.skill.clone());
        }
        if chosen.len() >= top_k.max(1) {
            break;
        }
    }
    let mut system = String::from(RULES);
    system.push_str("\n\nSkills:\n");
    for name in &chosen {
        let Some(loaded) = cx.skills.get(name) else {
            continue;
        };
        if is_template(loaded, cx.skills) {
            continue;
        }
        let s = &loaded.definition;
        let description: String = s
            .description
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        system.push_str(&format!("\n## {}\n{}\n", s.name, description));
        for tool in s.tools.values() {
            let opt = if tool.optional_params.is_empty() {
                String::new()
            } else {
                format!("; optional: {}", tool.optional_params.join(", "))
            };
            system.push_str(&format!(
                "- {}({}{opt}) -> {}: {}\n",
                tool.name,
                tool.required_params.join(", "),
                tool.return_type,
                tool.description
            ));
        }
    }
    if request.root_name.is_some() || !request.entries.is_empty() {
        system.push_str(&format!(
            "\nWorking folder: {}\n",
            request.root_name.as_deref().unwrap_or(".")
        ));
        let dirs: Vec<&str> = request
            .entries
            .iter()
            .take(40)
            .map(String::as_str)
            .collect();
        if !dirs.is_empty() {
            system.push_str(&format!("It contains: {}\n", dirs.join(", ")));
        }
    }
    Ok(PromptParts {
        system,
        user: request.text.trim().to_owned(),
        skills: chosen,
    })
}
