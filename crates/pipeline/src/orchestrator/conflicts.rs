//! `on_conflict: ask`: a graph step that meets names which already exist stops (the sandbox
//! undoes it and lists them all); the person chooses skip, rename or fail, and the step runs
//! again with that choice, which the step's params then record.

use contracts::{ExecutionResult, ParamType, PlanStep};
use sandbox::{Sandbox, SandboxError};
use serde_json::{Map, Value, json};

use crate::events::Event;
use crate::interaction::{Interaction, ParamQuestion};

/// What the person may answer.
const CHOICES: &[&str] = &["skip", "rename", "fail"];

/// Runs `method`; on `CONFLICT_ASK` asks the person and runs it again with their choice (written
/// into `params`). No usable answer leaves the conflict error, so the step fails unchanged.
pub(super) fn call_asking(
    sandbox: &mut Sandbox,
    method: &str,
    params: &mut Map<String, Value>,
    step: &PlanStep,
    ui: &mut dyn Interaction,
) -> Result<ExecutionResult, SandboxError> {
    match sandbox.call(method, params) {
        Err(SandboxError::ConflictsToResolve { paths, method }) => {
            let Some(choice) = ask(step, &paths, ui) else {
                return Err(SandboxError::ConflictsToResolve { method, paths });
            };
            params.insert("on_conflict".into(), json!(choice));
            sandbox.call(&method, params)
        }
        other => other,
    }
}

fn ask(step: &PlanStep, paths: &[String], ui: &mut dyn Interaction) -> Option<String> {
    let shown: Vec<String> = paths.iter().take(5).map(|p| format!("`{p}`")).collect();
    let more = paths.len().saturating_sub(shown.len());
    let names = if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    };
    let question = ParamQuestion {
        step: step.step,
        skill: step.skill.clone(),
        tool: step.tool.clone(),
        param: "on_conflict".into(),
        ty: Some(ParamType::Str),
        doc: "skip | rename | fail".into(),
        question: format!(
            "Step {} ({}/{}) would write over {names}, which already exist{}. Skip those, keep \
             both by giving the new ones a free name (\"name (2).ext\"), or stop the step? \
             (skip | rename | fail)",
            step.step,
            step.skill,
            step.tool,
            if paths.len() == 1 { "s" } else { "" },
        ),
        suggestion: Some(json!("rename")),
        choices: ["skip", "rename", "fail"].map(str::to_owned).to_vec(),
    };
    let answer = ui.clarify_param(&question);
    let choice = answer
        .as_ref()
        .and_then(Value::as_str)
        .map(|a| a.trim().to_lowercase())
        .filter(|a| CHOICES.contains(&a.as_str()));
    ui.event(&Event::Clarification {
        step: Some(step.step),
        question: question.question,
        answer: choice.clone(),
    });
    choice
}
