//! An `llm` step (sorting by meaning) that is unsure of some files asks the person about each
//! one, with its closest categories, instead of guessing: the answer (a category, a new folder
//! name, or nothing to leave the file where it is) joins the step's assignments.

use contracts::{ParamType, PlanStep};
use retrieval::RetrievalPipeline;
use sandbox::Sandbox;
use serde_json::{Map, Value, json};

use crate::events::Event;
use crate::interaction::{Interaction, ParamQuestion};

/// Runs the llm task (read by `reader`, the planner's model, when there is one), then asks about
/// the files it was unsure of.
pub(super) fn call_asking(
    (retrieval, reader): (&RetrievalPipeline, Option<&mut dyn retrieval::ModelReader>),
    sandbox: &Sandbox,
    task: &str,
    params: &Map<String, Value>,
    step: &PlanStep,
    ui: &mut dyn Interaction,
) -> retrieval::Result<Value> {
    let mut data = retrieval::call_task(retrieval, sandbox, task, params, reader)?;
    let asked = data
        .get("asked")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if asked.is_empty() {
        return Ok(data);
    }
    let categories: Vec<(String, String)> = data
        .get("categories")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|c| {
                    Some((
                        c["name"].as_str()?.to_owned(),
                        c["folder"].as_str()?.to_owned(),
                    ))
                })
                .collect()
        })
        .unwrap_or_default();
    let folder = data["path"].as_str().unwrap_or(".").to_owned();
    let names: Vec<&str> = categories.iter().map(|(n, _)| n.as_str()).collect();
    let (mut answered, mut left) = (Vec::new(), Vec::new());
    for entry in &asked {
        let path = entry["path"].as_str().unwrap_or_default();
        let question = ParamQuestion {
            step: step.step,
            skill: step.skill.clone(),
            tool: step.tool.clone(),
            param: "category".into(),
            ty: Some(ParamType::Str),
            doc: format!("one of {}, or a new folder name", names.join(", ")),
            question: format!(
                "Which category is `{path}`? I am not sure: {}. Answer {}, a new folder name, or \
                 nothing to leave it where it is.",
                entry["reason"].as_str().unwrap_or("no text to go by"),
                names.join(" / ")
            ),
            // Never a guess: with no answer the file stays where it is.
            suggestion: None,
            choices: closest_first(entry, &names),
        };
        let answer = ui
            .clarify_param(&question)
            .and_then(|v| v.as_str().map(|s| s.trim().to_owned()))
            .filter(|s| !s.is_empty());
        ui.event(&Event::Clarification {
            step: Some(step.step),
            question: question.question.clone(),
            answer: answer.clone(),
        });
        match answer {
            Some(name) => {
                let (category, target) = categories
                    .iter()
                    .find(|(n, _)| n.eq_ignore_ascii_case(&name))
                    .cloned()
                    .unwrap_or_else(|| (name.clone(), sandbox::join_id(&folder, &name)));
                let mut e = entry.clone();
                e["category"] = json!(category);
                e["folder"] = json!(target);
                e["chosen_by"] = json!("person");
                answered.push(e);
            }
            None => left.push(json!(path)),
        }
    }
    if let Some(a) = data.get_mut("assignments").and_then(Value::as_array_mut) {
        a.extend(answered);
    }
    data["left_in_place"] = json!(left);
    Ok(data)
}

/// The categories to offer for an unsure file: its closest, the next closest, then the others.
fn closest_first(entry: &Value, names: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = ["category", "runner_up"]
        .iter()
        .filter_map(|k| entry[*k].as_str().map(str::to_owned))
        .collect();
    for n in names {
        if !out.iter().any(|o| o == n) {
            out.push((*n).to_owned());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_categories_come_first() {
        let entry = json!({"category": "Recipes", "runner_up": "Invoices"});
        assert_eq!(
            closest_first(&entry, &["Invoices", "Recipes", "Meeting notes"]),
            ["Recipes", "Invoices", "Meeting notes"]
        );
        assert_eq!(
            closest_first(&json!({"category": "Recipes"}), &["Invoices", "Recipes"]),
            ["Recipes", "Invoices"]
        );
    }
}
