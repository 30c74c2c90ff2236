//! `scope-weaver tool skill-create create`: scaffolds a skill from the template; with the LLM
//! planner configured, the model drafts its tool declarations first (shown before `--commit`).

use std::process::ExitCode;

use anyhow::Result;
use config::ThinkerBackend;
use serde_json::{Map, Value, json};
use skills::{ScaffoldSpec, SkillStore, ToolDeclaration};
use thinker::{DraftedTools, PlanControl, PlanningContext, ToolDraftRequest};

use crate::commands::Env;
use crate::output::print_json;
/// The model's draft when a model planner is configured; `None` with the rule planner.
fn draft(
    env: &Env,
    store: &SkillStore,
    request: &ToolDraftRequest,
) -> Result<Option<DraftedTools>> {
    if env.config.thinker_backend == ThinkerBackend::Rule {
        return Ok(None);
    }
    let mut planner = thinker::build_planner(&env.config)?;
    let retrieval = crate::search::skill_pipeline(env, store)?;
    let cx = PlanningContext {
        skills: store,
        retrieval: &retrieval,
        config: &env.config,
    };
    Ok(planner.draft_tools(request, &cx, &PlanControl::default())?)
}

pub fn scaffold(
    env: &Env,
    store: &mut SkillStore,
    params: &Map<String, Value>,
    commit: bool,
) -> Result<ExitCode> {
    let request = ToolDraftRequest::from_params(params);
    let drafted = draft(env, store, &request)?;
    let tools: Vec<ToolDeclaration> = drafted
        .as_ref()
        .map(|d| d.tools.clone())
        .unwrap_or_default();
    let spec = ScaffoldSpec {
        name: &request.name,
        description: &request.description,
        tags: &request.tags,
        tools: &tools,
    };
    let declarations: Vec<String> = tools.iter().map(|t| t.render(store.table())).collect();
    let drafted_json = drafted.as_ref().map(|d| {
        json!({"tools": d.tools, "declarations": declarations, "usage": d.usage, "notes": d.notes})
    });
    if !commit {
        // Everything the scaffold checks, without writing: the SKILL.md must load.
        let (_, _, errors) = store.scaffold_preview(&spec)?;
        if !errors.is_empty() {
            return Err(skills::SkillError::Invalid(errors).into());
        }
        let target = store.dir().join(&request.name);
        if env.json {
            print_json(&json!({
                "ok": true, "committed": false, "would_create": request.name,
                "dir": target, "drafted": drafted_json,
            }));
        } else {
            println!(
                "Would create skill `{}` in {} from the template (add --commit to create it).",
                request.name,
                target.display()
            );
            print_declarations(&declarations);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let created = store.scaffold_with(&spec)?;
    let dir = store
        .get(&created)
        .map(|s| s.dir.clone())
        .unwrap_or_default();
    if env.json {
        print_json(&json!({
            "ok": true, "committed": true, "created": created, "dir": dir, "drafted": drafted_json,
        }));
    } else if declarations.is_empty() {
        println!(
            "Created skill `{created}` in {}; edit its SKILL.md to declare its tools.",
            dir.display()
        );
    } else {
        println!("Created skill `{created}` in {}.", dir.display());
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
