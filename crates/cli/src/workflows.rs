//! `scope-weaver workflows`: save a committed run as a workflow skill, the repeated runs worth
//! saving (mined from the audit log), the saved ones, and which workflows and skills fit a
//! request. All of it is the engine's; this prints.

use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::args::WorkflowsCommand;
use crate::commands::{Env, open_engine};
use crate::output::print_json;

pub fn workflows_cmd(env: &Env, command: WorkflowsCommand) -> Result<ExitCode> {
    let engine = open_engine(env)?;
    match command {
        WorkflowsCommand::Save { run_id, name } => {
            let saved = engine.save_workflow(&run_id, &name)?;
            if env.json {
                print_json(&json!({"ok": true, "saved": saved}));
                return Ok(ExitCode::SUCCESS);
            }
            println!("Saved the workflow `{}` ({})", saved.name, saved.path);
            println!(
                "  from run {}: \u{201c}{}\u{201d}",
                saved.run_id, saved.request
            );
            println!("  steps: {}", saved.steps.join(" \u{2192} "));
            println!(
                "  {{path}} is {} unless the request names another folder",
                saved.folder
            );
            println!("  triggers: {}", quoted(&saved.triggers));
            if !saved.postconditions.is_empty() {
                println!(
                    "  checked after each run: {}",
                    saved.postconditions.join(", ")
                );
            }
            println!(
                "Edit it in the editor, or run it: scope-weaver run ROOT \"{}\"",
                example(&saved)
            );
        }
        WorkflowsCommand::Suggest => {
            let found = engine.suggest_workflows()?;
            if env.json {
                print_json(
                    &json!({"ok": true, "min_runs": engine::MIN_REPEATED_RUNS, "suggestions": found}),
                );
                return Ok(ExitCode::SUCCESS);
            }
            if found.is_empty() {
                println!(
                    "Nothing repeated yet: a sequence of steps you commit {} times or more shows here.",
                    engine::MIN_REPEATED_RUNS
                );
            }
            for s in &found {
                println!(
                    "{} runs did {} (on {})",
                    s.runs.len(),
                    s.signature.join(" \u{2192} "),
                    s.folders.join(", ")
                );
                for (run, request) in s.runs.iter().zip(&s.requests).take(3) {
                    println!("  {run}  \u{201c}{request}\u{201d}");
                }
                println!(
                    "  save it: scope-weaver workflows save {} {}",
                    s.runs[0], s.name
                );
            }
        }
        WorkflowsCommand::List => {
            let workflows: Vec<serde_json::Value> = engine
                .skills_list()?
                .into_iter()
                .filter(|s| s.workflow.is_some())
                .map(|s| json!({"name": s.name, "path": s.path, "triggers": s.triggers, "workflow": s.workflow}))
                .collect();
            if env.json {
                print_json(&json!({"ok": true, "workflows": workflows}));
                return Ok(ExitCode::SUCCESS);
            }
            if workflows.is_empty() {
                println!(
                    "No saved workflows: `scope-weaver workflows save RUN_ID NAME` makes one."
                );
            }
            for w in &workflows {
                let steps: Vec<String> = w["workflow"]["steps"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|s| {
                        format!(
                            "{}/{}",
                            s["skill"].as_str().unwrap_or(""),
                            s["tool"].as_str().unwrap_or("")
                        )
                    })
                    .collect();
                println!(
                    "{}  {}",
                    w["name"].as_str().unwrap_or(""),
                    steps.join(" \u{2192} ")
                );
                let triggers: Vec<String> =
                    serde_json::from_value(w["triggers"].clone()).unwrap_or_default();
                println!("  triggers: {}", quoted(&triggers));
            }
        }
        WorkflowsCommand::Match { request, root } => {
            let rows = engine.match_request(&request, root.as_deref())?;
            if env.json {
                print_json(&json!({"ok": true, "request": request, "matches": rows}));
                return Ok(ExitCode::SUCCESS);
            }
            for (i, r) in rows.iter().enumerate() {
                let what = match (&r.tool, &r.trigger) {
                    (Some(tool), _) => format!("skill {}/{tool}", r.name),
                    (None, Some(t)) => format!("workflow {} (\u{201c}{t}\u{201d})", r.name),
                    (None, None) => format!("workflow {}", r.name),
                };
                let slots: Vec<String> =
                    r.slots.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                let note = if r.runs {
                    format!(
                        "  \u{2190} runs{}",
                        if slots.is_empty() {
                            String::new()
                        } else {
                            format!(" with {}", slots.join(", "))
                        }
                    )
                } else if let Some(p) = &r.problem {
                    format!("  (not run: {p})")
                } else {
                    String::new()
                };
                println!("{}. {:.3}  {what}{note}", i + 1, r.score);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn quoted(items: &[String]) -> String {
    items
        .iter()
        .map(|t| format!("\u{201c}{t}\u{201d}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The first trigger with its slot filled by the folder the run acted on.
fn example(saved: &engine::WorkflowSaved) -> String {
    saved
        .triggers
        .first()
        .map(|t| t.replace("{path}", &saved.folder))
        .unwrap_or_default()
}
