//! `scope-weaver undo [RUN_ID]` and `scope-weaver history`: committed runs, and turning one back.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::commands::{Env, open_sandbox};
use crate::output::{print_json, print_json_line, usage};
use crate::run::TerminalInteraction;

/// The record `run_id` names (an id or a unique prefix), or the newest run still in effect that
/// is not itself an undo.
fn pick(env: &Env, run_id: Option<&str>) -> Result<sandbox::RunRecord> {
    let (records, _) = sandbox::history_list(&env.config.state_dir());
    let undone = sandbox::undone_by(&records);
    let Some(id) = run_id else {
        return records
            .iter()
            .rev()
            .find(|r| r.run.undoes.is_none() && !undone.contains_key(&r.run.id))
            .cloned()
            .ok_or_else(|| {
                usage(
                    "NOTHING_TO_UNDO",
                    "no committed run to undo (scope-weaver history lists them)",
                )
            });
    };
    let matching: Vec<&sandbox::RunRecord> = records
        .iter()
        .filter(|r| r.run.id.starts_with(id))
        .collect();
    let record = match matching.as_slice() {
        [one] => *one,
        [] => {
            return Err(usage(
                "RUN_NOT_FOUND",
                format!("no committed run `{id}` (scope-weaver history lists them)"),
            ));
        }
        many => {
            return Err(usage(
                "RUN_AMBIGUOUS",
                format!(
                    "`{id}` names {} runs: {}",
                    many.len(),
                    many.iter()
                        .map(|r| r.run.id.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    };
    if let Some(by) = undone.get(&record.run.id) {
        return Err(usage(
            "RUN_ALREADY_UNDONE",
            format!(
                "run {} was already undone by {by}; `scope-weaver undo {by}` redoes it",
                record.run.id
            ),
        ));
    }
    Ok(record.clone())
}

/// `scope-weaver undo`: plans the undo on a fresh scan, shows the diff, commits when approved.
pub fn undo_cmd(env: &Env, run_id: Option<&str>, yes: bool, dry_run: bool) -> Result<ExitCode> {
    let record = pick(env, run_id)?;
    let mut sandbox = open_sandbox(env, &record.root)?;
    let mut audit_log = audit::AuditLog::new(crate::audit::open_store(env)?);
    let mut ui = TerminalInteraction::new(yes, env.json);
    let report = pipeline::undo_run(
        &mut sandbox,
        &record,
        dry_run,
        &mut ui,
        Some(&mut audit_log),
    )?;
    if env.json {
        print_json_line(&json!({"event": "done", "report": report}));
    } else {
        println!("{}", report.text);
        if report.committed {
            eprintln!(
                "undone as run {id}; `scope-weaver undo {id}` redoes it",
                id = report.id
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `scope-weaver history`: every committed run, newest first, with what undid it.
pub fn history_cmd(env: &Env, root: Option<&Path>) -> Result<ExitCode> {
    let (records, broken) = sandbox::history_list(&env.config.state_dir());
    let root = root.map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.to_owned()));
    let undone = sandbox::undone_by(&records);
    let shown: Vec<&sandbox::RunRecord> = records
        .iter()
        .rev()
        .filter(|r| root.as_ref().is_none_or(|root| &r.root == root))
        .collect();
    if env.json {
        let runs: Vec<serde_json::Value> = shown
            .iter()
            .map(|r| {
                json!({
                    "id": r.run.id,
                    "request": r.run.request,
                    "root": r.root,
                    "committed_at": r.committed_at,
                    "changes": r.changes.len(),
                    "undoes": r.run.undoes,
                    "undone_by": undone.get(&r.run.id),
                    "not_restorable": r.unrestorable().len(),
                })
            })
            .collect();
        let broken: Vec<serde_json::Value> = broken
            .iter()
            .map(|(p, e)| json!({"path": p, "message": e}))
            .collect();
        print_json(&json!({"ok": true, "runs": runs, "unreadable": broken}));
        return Ok(ExitCode::SUCCESS);
    }
    if shown.is_empty() {
        println!("No committed runs yet.");
    }
    for r in shown {
        let state = match (undone.get(&r.run.id), &r.run.undoes) {
            (Some(by), _) => format!("undone by {by}"),
            (None, Some(of)) => format!("undoes {of}"),
            (None, None) => "in effect".to_owned(),
        };
        println!(
            "{}  {}  {}  {} change(s), {}  {}",
            r.run.id,
            sandbox::format_time(r.committed_at),
            r.root.display(),
            r.changes.len(),
            state,
            if r.run.request.is_empty() {
                "(no request)".to_owned()
            } else {
                format!("\u{201c}{}\u{201d}", r.run.request)
            }
        );
    }
    for (path, message) in broken {
        eprintln!("warning: {} is unreadable: {message}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
