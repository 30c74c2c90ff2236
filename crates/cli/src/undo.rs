//! `scope-weaver undo [RUN_ID]` and `scope-weaver history`: committed runs, and turning one back
//! (thin shells over the engine's `Ledger`, which needs no model).

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use engine::Ledger;
use serde_json::json;

use crate::commands::{Env, open_sandbox};
use crate::output::{print_json, print_json_line};
use crate::run::TerminalInteraction;

/// `scope-weaver undo`: plans the undo on a fresh scan, shows the diff, commits when approved.
pub fn undo_cmd(env: &Env, run_id: Option<&str>, yes: bool, dry_run: bool) -> Result<ExitCode> {
    let ledger = Ledger::new(env.config.clone());
    let record = ledger.find_run(run_id)?;
    let mut sandbox = open_sandbox(env, &record.root)?;
    let mut audit_log = ledger.open_audit()?;
    let mut ui = TerminalInteraction::new(yes, env.json);
    let report = ledger.undo(&mut sandbox, &record, dry_run, &mut ui, &mut audit_log)?;
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
/// `scope-weaver learned [--forget ID]`: what planning learned from the person's choices.
pub fn learned_cmd(env: &Env, forget: Option<&str>) -> Result<ExitCode> {
    let ledger = Ledger::new(env.config.clone());
    if let Some(id) = forget {
        let forgot = ledger.forget_choice(id)?;
        if env.json {
            print_json(&json!({"ok": forgot, "forgot": forgot.then_some(id)}));
        } else if forgot {
            println!("Forgot choice {id}.");
        } else {
            eprintln!("No learned choice {id} (see `scope-weaver learned`).");
        }
        return Ok(if forgot {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        });
    }
    let choices = ledger.learned()?;
    if env.json {
        print_json(&json!({"ok": true, "learned": choices}));
        return Ok(ExitCode::SUCCESS);
    }
    if choices.is_empty() {
        println!("Nothing learned yet: choices you make in the near-miss picker show here.");
    }
    for c in &choices {
        println!(
            "{}  {}  \u{201c}{}\u{201d} is {} (planned {})",
            c.id,
            c.day(),
            c.text,
            c.chosen,
            c.planned
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn history_cmd(env: &Env, root: Option<&Path>) -> Result<ExitCode> {
    let (runs, broken) = Ledger::new(env.config.clone()).committed_runs(root);
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
