//! `scope-weaver undo [RUN_ID]` and `scope-weaver history`: committed runs, and turning one back
//! (thin shells over `pipeline::find_run`, `pipeline::undo_run` and `pipeline::committed_runs`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use serde_json::json;

use crate::commands::{Env, open_sandbox};
use crate::output::{print_json, print_json_line};
use crate::run::TerminalInteraction;

/// `scope-weaver undo`: plans the undo on a fresh scan, shows the diff, commits when approved.
pub fn undo_cmd(env: &Env, run_id: Option<&str>, yes: bool, dry_run: bool) -> Result<ExitCode> {
    let record = pipeline::find_run(&env.config.state_dir(), run_id)?;
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
    let root = root.map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.to_owned()));
    let (runs, broken) = pipeline::committed_runs(&env.config.state_dir(), root.as_deref());
    if env.json {
        let broken: Vec<serde_json::Value> = broken
            .iter()
            .map(|(p, e)| json!({"path": p, "message": e}))
            .collect();
        print_json(&json!({"ok": true, "runs": runs, "unreadable": broken}));
        return Ok(ExitCode::SUCCESS);
    }
    if runs.is_empty() {
        println!("No committed runs yet.");
    }
    for r in &runs {
        let state = match (&r.undone_by, &r.undoes) {
            (Some(by), _) => format!("undone by {by}"),
            (None, Some(of)) => format!("undoes {of}"),
            (None, None) => "in effect".to_owned(),
        };
        println!(
            "{}  {}  {}  {} change(s), {}  {}",
            r.id,
            sandbox::format_time(r.committed_at),
            r.root.display(),
            r.changes,
            state,
            if r.request.is_empty() {
                "(no request)".to_owned()
            } else {
                format!("\u{201c}{}\u{201d}", r.request)
            }
        );
    }
    for (path, message) in broken {
        eprintln!("warning: {} is unreadable: {message}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
