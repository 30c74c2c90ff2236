//! `scope-weaver audit list|show|export|verify|stats`: reading the audit log (`audit_db`).

use std::process::ExitCode;

use anyhow::Result;
use audit::{AuditStore, export, render_run, run_summaries, stats, task_tree};
use serde_json::json;

use crate::args::AuditCommand;
use crate::commands::Env;
use crate::output::print_json;

/// The audit store at `audit_db`: a SQLite file, or a `postgres://` URL.
pub fn open_store(env: &Env) -> Result<AuditStore> {
    Ok(AuditStore::connect(&env.config.audit_db())?)
}

pub fn audit_cmd(env: &Env, command: AuditCommand) -> Result<ExitCode> {
    let store = open_store(env)?;
    match command {
        AuditCommand::List { limit } => {
            let runs = run_summaries(&store.entries()?);
            let runs: Vec<_> = runs.into_iter().take(limit).collect();
            if env.json {
                print_json(&json!(runs));
            } else if runs.is_empty() {
                println!("The audit log at {} is empty.", store.location());
            } else {
                for r in &runs {
                    println!(
                        "{}  {}  {:<10} {} step(s)  \"{}\"",
                        r.run_id,
                        r.at.get(..19).unwrap_or(&r.at),
                        match (r.committed, &r.error) {
                            (_, Some(code)) => code.clone(),
                            (Some(true), _) => "committed".into(),
                            (Some(false), _) => "no commit".into(),
                            _ => r.status.clone(),
                        },
                        r.steps,
                        r.request
                    );
                }
            }
        }
        AuditCommand::Show { id } => {
            let entries = store.run_entries(&id)?;
            if entries.is_empty() {
                return Err(audit::AuditError::NotFound(id).into());
            }
            if env.json {
                print_json(&json!({"task": task_tree(&entries)?, "entries": entries}));
            } else {
                println!("{}", render_run(&entries));
            }
        }
        AuditCommand::Export { format } => {
            print!("{}", export(&store.entries()?, &format)?);
        }
        AuditCommand::Verify => {
            let report = store.verify()?;
            if env.json {
                print_json(&json!(report));
            } else if let Some(b) = &report.broken {
                eprintln!(
                    "error[AUDIT_CHAIN_BROKEN]: the audit log {} is broken at entry {}{}: {}",
                    store.location(),
                    b.seq,
                    b.id.as_deref()
                        .map(|i| format!(" ({i})"))
                        .unwrap_or_default(),
                    b.reason
                );
                eprintln!("{} entries before it check out.", report.checked);
            } else {
                println!(
                    "ok: {} entries, chain intact; head {}",
                    report.checked,
                    report.head.as_deref().unwrap_or("(empty)")
                );
            }
            if !report.ok() {
                return Ok(ExitCode::from(3));
            }
        }
        AuditCommand::Stats => {
            let s = stats(&store.entries()?);
            if env.json {
                print_json(&json!(s));
            } else {
                println!(
                    "requests: {} ({} committed, {} failed)",
                    s.runs, s.committed_runs, s.failed_runs
                );
                println!(
                    "near-miss rate: {:.1}% ({} of {} matched steps)",
                    100.0 * s.near_miss_rate,
                    s.near_misses,
                    s.steps_matched
                );
                println!(
                    "HITL override rate: {:.1}% ({} of {} reviews)",
                    100.0 * s.override_rate,
                    s.overrides,
                    s.reviews
                );
                println!(
                    "rollback rate: {:.1}% ({} rollbacks)",
                    100.0 * s.rollback_rate,
                    s.rollbacks
                );
                println!("tokens per request: {:.0}", s.tokens_per_request);
                println!("mean latency per stage:");
                for (stage, ms) in &s.mean_stage_ms {
                    println!("  {stage:<16} {ms:>9.2} ms");
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
