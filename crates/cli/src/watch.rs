//! `scope-weaver watch`, `tasks` and `inbox`: watched folders, the drop folder of task files,
//! and the changes they wait to have approved. The watching, simulating and parking are the engine's; this prints, and runs
//! an approved item as `scope-weaver run` would.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use engine::{RunSettings, WatchOutcome};
use serde_json::json;

use crate::args::InboxCommand;
use crate::commands::{Env, open_engine};
use crate::output::{print_json, print_json_line, usage};
use crate::run::{TerminalInteraction, run_one};

/// `scope-weaver watch`'s arguments.
#[derive(Debug)]
pub struct WatchArgs {
    pub root: Option<PathBuf>,
    pub folder: Option<String>,
    pub request: Option<String>,
    pub settle: u64,
    pub trusted: bool,
    pub once: bool,
    pub list: bool,
    pub remove: Option<String>,
}

pub fn watch_cmd(env: &Env, args: WatchArgs) -> Result<ExitCode> {
    let engine = open_engine(env)?;
    if args.list {
        let watches = engine.watches()?;
        if env.json {
            print_json(&json!({"ok": true, "watches": watches}));
        } else if watches.is_empty() {
            println!("No folder is watched.");
        }
        if !env.json {
            for w in &watches {
                println!(
                    "{}  {}  \u{201c}{}\u{201d}  settle {} s{}",
                    w.id,
                    w.path().display(),
                    w.request,
                    w.settle_secs,
                    if w.trusted { " · trusted" } else { "" }
                );
            }
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(id) = &args.remove {
        let removed = engine.watch_remove(id)?;
        if env.json {
            print_json(&json!({"ok": removed, "removed": removed.then_some(id)}));
        } else if removed {
            println!("No longer watching {id}.");
        } else {
            eprintln!("No watch {id} (see `scope-weaver watch --list`).");
        }
        return Ok(if removed {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(2)
        });
    }
    let mut only = Vec::new();
    if let Some(root) = &args.root {
        let request = args.request.as_deref().ok_or_else(|| {
            usage(
                "INVALID_ARGUMENT",
                "watching a folder needs --request (what to do with it)",
            )
        })?;
        let folder = args.folder.as_deref().unwrap_or(".");
        let watch = engine.watch_add(root, folder, request, args.settle, args.trusted)?;
        if env.json {
            print_json_line(&json!({"event": "watch", "watch": watch}));
        } else {
            eprintln!(
                "watch {}: {} \u{2192} \u{201c}{}\u{201d} (settle {} s{})",
                watch.id,
                watch.path().display(),
                watch.request,
                watch.settle_secs,
                if watch.trusted { ", trusted" } else { "" }
            );
        }
        only.push(watch.id);
    }
    let json_out = env.json;
    let mut failed = false;
    let mut report = |w: &engine::Watch, outcome: engine::Result<WatchOutcome>| match outcome {
        Ok(o) if json_out => {
            print_json_line(&json!({"event": "handled", "watch": w.id, "result": o}))
        }
        Ok(WatchOutcome::NothingToDo { .. }) => {
            eprintln!("{}: nothing to do", w.id);
        }
        Ok(WatchOutcome::Committed {
            run_id, summary, ..
        }) => {
            println!(
                "{}: committed (run {run_id}; undo: scope-weaver undo {run_id})\n{summary}",
                w.id
            );
        }
        Ok(WatchOutcome::Parked { item }) => {
            println!(
                "{}: {} wait in the inbox{} \u{2014} scope-weaver inbox approve {}",
                w.id,
                item.counts,
                if item.destructive {
                    " (it deletes)"
                } else {
                    ""
                },
                item.id
            );
        }
        Err(e) => {
            failed = true;
            if json_out {
                print_json_line(&json!({"event": "handled", "watch": w.id, "error": e.payload()}));
            } else {
                eprintln!(
                    "{}: error[{}]: {}",
                    w.id,
                    e.payload().code,
                    e.payload().message
                );
            }
        }
    };
    let ready = || {
        if json_out {
            print_json_line(&json!({"event": "watching"}));
        } else {
            eprintln!(
                "watching (Ctrl-C stops; what changes meanwhile is handled on the next start)"
            );
        }
    };
    engine.watch_folders(&only, args.once, &|| false, &ready, &mut report)?;
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn inbox_cmd(env: &Env, command: Option<InboxCommand>) -> Result<ExitCode> {
    let engine = open_engine(env)?;
    match command {
        None => {
            let items = engine.inbox()?;
            if env.json {
                print_json(&json!({"ok": true, "items": items}));
                return Ok(ExitCode::SUCCESS);
            }
            if items.is_empty() {
                println!("The inbox is empty.");
            }
            for item in &items {
                println!(
                    "{}  {}  \u{201c}{}\u{201d} in {}: {}{}",
                    item.id,
                    item.at,
                    item.request,
                    item.root.display(),
                    item.counts,
                    if item.destructive { " (deletes)" } else { "" }
                );
                for line in item.changes.iter().take(8) {
                    println!("    {line}");
                }
                if item.changes.len() > 8 {
                    println!("    \u{2026} {} more", item.changes.len() - 8);
                }
            }
        }
        Some(InboxCommand::Discard { id }) => {
            engine.inbox_discard(&id)?;
            if env.json {
                print_json(&json!({"ok": true, "discarded": id}));
            } else {
                println!("Discarded {id}; nothing was written.");
            }
        }
        Some(InboxCommand::Approve { id, yes }) => {
            let item = engine.inbox_item(&id)?;
            let settings = RunSettings {
                plan: item
                    .plan
                    .as_ref()
                    .map(|p| engine.check_plan(p))
                    .transpose()?,
                ..RunSettings::default()
            };
            let mut ui = TerminalInteraction::new(yes, env.json);
            let report = run_one(env, &engine, &item.root, &item.request, &settings, &mut ui)?;
            // Declined or a dry run: it stays for later.
            if report.committed {
                engine.inbox_discard(&id)?;
            } else if !env.json {
                eprintln!("{id} stays in the inbox: nothing was committed.");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// How long the drop folder rests between looks.
const TASKS_POLL: std::time::Duration = std::time::Duration::from_secs(1);

pub fn tasks_cmd(env: &Env, dir: &Path, once: bool) -> Result<ExitCode> {
    let engine = open_engine(env)?;
    let mut failed = false;
    loop {
        for answer in engine.run_drop_folder(dir)? {
            failed |= !answer.ok;
            if env.json {
                print_json_line(&json!({"event": "task", "answer": answer}));
                continue;
            }
            match (&answer.outcome, &answer.error) {
                (_, Some(e)) => eprintln!("{}: error[{}]: {}", answer.task, e.code, e.message),
                (Some(WatchOutcome::Parked { item }), _) => println!(
                    "{}: {} wait in the inbox \u{2014} scope-weaver inbox approve {}",
                    answer.task, item.counts, item.id
                ),
                (Some(WatchOutcome::Committed { run_id, .. }), _) => {
                    println!("{}: committed (run {run_id})", answer.task)
                }
                _ => println!("{}: nothing to do", answer.task),
            }
        }
        if once {
            break;
        }
        std::thread::sleep(TASKS_POLL);
    }
    Ok(if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
