//! `scope-weaver tool SKILL TOOL key=value… [--commit]`: one tool called directly, run by the
//! engine as a one-step plan through the whole pipeline (the same validation, simulation,
//! conservation check, journal, post-commit verification and audit record as a request), so a
//! committed tool call is in `history` and can be undone. Without `--commit` it is simulated.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use config::{HitlMode, PipelineConfig, ThinkerBackend};
use contracts::{Primitive, ToolCall};
use engine::{EngineError, RunSettings};
use pipeline::{
    AutoApprove, DiffDecision, DiffReview, Event, Interaction, ParamQuestion, SkillCandidate,
    StepReview,
};
use sandbox::{CommitReport, human_bytes};
use serde_json::{Value, json};

use crate::commands::{Env, load_skills, open_engine, open_sandbox, parse_params, print_result};
use crate::output::print_json;

/// Approves everything (the call was asked for; `--commit` is the approval), keeps the events
/// and shows the commit's progress.
struct ToolCallTerminal {
    approve: AutoApprove,
    bar: Option<indicatif::ProgressBar>,
}

impl Interaction for ToolCallTerminal {
    fn event(&mut self, event: &Event) {
        if let (Event::CommitProgress { done, total }, Some(bar)) = (event, &self.bar) {
            bar.set_length(*total as u64);
            bar.set_position(*done as u64);
        }
        self.approve.event(event);
    }

    fn clarify_request(&mut self, question: &str) -> Option<String> {
        self.approve.clarify_request(question)
    }

    fn choose_skill(&mut self, step: &contracts::PlanStep, c: &[SkillCandidate]) -> Option<usize> {
        self.approve.choose_skill(step, c)
    }

    fn clarify_param(&mut self, question: &ParamQuestion) -> Option<Value> {
        self.approve.clarify_param(question)
    }

    fn review_step(&mut self, review: &StepReview) -> pipeline::Decision {
        self.approve.review_step(review)
    }

    fn review_diff(&mut self, review: &DiffReview) -> DiffDecision {
        self.approve.review_diff(review)
    }
}

/// What the one step did, read from the run's events.
struct CallOutcome {
    data: Value,
    diff: Vec<String>,
}

fn outcome(events: &[Event]) -> Result<CallOutcome> {
    let mut data = Value::Null;
    let mut diff = Vec::new();
    for event in events {
        match event {
            Event::Dispatched {
                ok: false, error, ..
            } => {
                let e = error.clone().unwrap_or_else(|| {
                    contracts::ErrorPayload::new("TOOL_FAILED", "the tool failed")
                });
                return Err(EngineError::Coded {
                    code: e.code,
                    message: e.message,
                }
                .into());
            }
            Event::Dispatched { data: d, .. } => data = d.clone(),
            Event::GraphDelta { changes, .. } => diff.extend(changes.iter().cloned()),
            Event::RolledBack { .. } => diff.clear(),
            Event::Skipped { code, reason, .. } => {
                return Err(EngineError::Coded {
                    code: code.clone(),
                    message: reason.clone(),
                }
                .into());
            }
            _ => {}
        }
    }
    Ok(CallOutcome { data, diff })
}

pub fn tool_cmd(
    env: &Env,
    skill: &str,
    tool: &str,
    root: &Path,
    raw: &[String],
    commit: bool,
) -> Result<ExitCode> {
    let call = ToolCall {
        skill: skill.to_owned(),
        tool: tool.to_owned(),
        params: parse_params(raw)?,
    };
    // Only a tool that drafts with the planner (skill-create) needs a configured model loaded.
    let drafts = load_skills(env)?
        .tool(skill, tool)
        .is_some_and(|(_, t)| matches!(t.primitive, Primitive::Skill(_)));
    let engine_env = Env {
        config: if drafts {
            env.config.clone()
        } else {
            PipelineConfig {
                thinker_backend: ThinkerBackend::Rule,
                ..env.config.clone()
            }
        },
        skills_dir: env.skills_dir.clone(),
        json: env.json,
    };
    let engine = open_engine(&engine_env)?;
    let plan = engine.tool_call_plan(&call)?;
    let mut sandbox = open_sandbox(env, root)?;
    let bar = (commit && !env.json).then(|| {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template("committing {bar:30} {pos}/{len}")
                .expect("valid template"),
        );
        bar
    });
    let mut ui = ToolCallTerminal {
        approve: AutoApprove::default(),
        bar,
    };
    let settings = RunSettings {
        hitl: Some(HitlMode::Bypass),
        dry_run: !commit,
        request_id: None,
        plan: Some(plan),
    };
    let report = engine.run_in(&mut sandbox, &call.text(), &settings, &mut ui);
    if let Some(bar) = &ui.bar {
        bar.finish_and_clear();
    }
    let report = report?;
    let CallOutcome { data, diff } = outcome(&ui.approve.events)?;
    let committed = report.commit.clone();
    if env.json {
        print_json(&json!({
            "ok": true, "skill": call.skill, "tool": call.tool, "run_id": report.id,
            "result": data, "diff": diff, "committed": committed,
        }));
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(w) = data.get("warning").and_then(Value::as_str) {
        eprintln!("warning: {w}");
    }
    print_result(&data);
    if diff.is_empty() {
        if commit {
            println!("\n{}", report.text);
        } else {
            println!("\nNo changes.");
        }
    } else {
        println!(
            "\nChanges{}:",
            if committed.is_some() {
                " (committed)"
            } else {
                " (simulated; add --commit to apply)"
            }
        );
        for line in &diff {
            println!("  {line}");
        }
    }
    if let Some(r) = committed {
        println!("\n{}", committed_line(&r));
        if let Some(id) = &r.run_id {
            println!("Undo it with: scope-weaver undo {id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// "Committed 4 change(s): 1 created, 3 moved, 0 copied, 1 deleted (to the trash, 12 KiB)."
fn committed_line(r: &CommitReport) -> String {
    format!(
        "Committed {} change(s): {} created, {} moved, {} copied, {} deleted{}.",
        r.applied,
        r.created,
        r.moved,
        r.copied,
        r.deleted,
        if r.deleted > 0 {
            format!(
                " ({}, {})",
                if r.trashed > 0 {
                    "to the trash"
                } else {
                    "permanently"
                },
                human_bytes(r.freed_bytes)
            )
        } else {
            String::new()
        }
    )
}
