//! `scope-weaver tool skill-create create`: scaffolds a skill from the template through the
//! engine (the same draft and create as a run's skill-create step and the editor's New skill);
//! with a model planner configured, the model drafts its tool declarations first (shown before
//! `--commit`).

use std::process::ExitCode;

use anyhow::Result;
use serde_json::{Map, Value, json};
use thinker::ToolDraftRequest;

use crate::commands::{Env, open_engine};
use crate::output::print_json;

pub fn scaffold(env: &Env, params: &Map<String, Value>, commit: bool) -> Result<ExitCode> {
    let engine = open_engine(env)?;
    let draft = engine.skill_draft(ToolDraftRequest::from_params(params))?;
    if let Some(w) = &draft.warning
        && !env.json
    {
        eprintln!("warning: {w}");
    }
    let declarations: Vec<String> = draft
        .shown
        .as_ref()
        .and_then(|s| s.get("declarations"))
        .and_then(Value::as_array)
        .map(|d| {
            d.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    // The model's prompt and answer go to the audit log of a run, not to the terminal.
    let drafted_json = draft.shown.as_ref().map(|s| {
        json!({"tools": s["tools"], "declarations": s["declarations"], "usage": s["usage"], "notes": s["notes"]})
    });
    if !commit {
        let target = engine.skill_preview(&draft)?;
        if env.json {
            print_json(&json!({
                "ok": true, "committed": false, "would_create": draft.request.name,
                "dir": target, "drafted": drafted_json, "warning": draft.warning,
            }));
        } else {
            println!(
                "Would create skill `{}` in {} from the template (add --commit to create it).",
                draft.request.name,
                target.display()
            );
            print_declarations(&declarations);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let saved = engine.skill_create_from(&draft)?;
    let dir = engine.skills_dir().join(&saved.name);
    if env.json {
        print_json(&json!({
            "ok": true, "committed": true, "created": saved.name, "dir": dir,
            "drafted": drafted_json, "warning": draft.warning,
        }));
    } else if declarations.is_empty() {
        println!(
            "Created skill `{}` in {}; edit its SKILL.md to declare its tools.",
            saved.name,
            dir.display()
        );
    } else {
        println!("Created skill `{}` in {}.", saved.name, dir.display());
        print_declarations(&declarations);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_declarations(declarations: &[String]) {
    if declarations.is_empty() {
        return;
    }
    println!("Tools drafted by the planner (check them in the SKILL.md):");
    for d in declarations {
        for line in d.lines() {
            println!("  {line}");
        }
    }
}
