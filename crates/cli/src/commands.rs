//! The subcommands: each loads what it needs from config and calls the engine.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use config::PipelineConfig;
use engine::{Engine, EngineOptions, Notice};
use sandbox::{Sandbox, SandboxConfig, ScanOptions, human_bytes};
use serde_json::{Map, Value, json};
use skills::SkillStore;

use crate::args::{Cli, Command, ConfigCommand, GraphCommand, SkillsCommand};
use crate::output::{count, print_json, print_json_line, usage};

pub struct Env {
    pub config: PipelineConfig,
    pub skills_dir: PathBuf,
    pub json: bool,
}

pub fn run(cli: Cli) -> Result<ExitCode> {
    let config = PipelineConfig::load(cli.config.as_deref())?;
    // Held to the end of the command: dropping it flushes the OpenTelemetry exporter.
    let _telemetry = audit::init_telemetry(&audit::LogSettings {
        stderr: cli.verbose,
        ..audit::LogSettings::from_config(&config, "scope-weaver")
    })?;
    let skills_dir = cli
        .skills
        .clone()
        .unwrap_or_else(|| engine::skills_dir(&config));
    let env = Env {
        config,
        skills_dir,
        json: cli.json,
    };
    match cli.command {
        Command::Scan { root, tree } => scan(&env, &root, tree),
        Command::Skills { command } => skills_cmd(&env, command),
        Command::Tool {
            skill,
            tool,
            root,
            params,
            commit,
        } => crate::tool::tool_cmd(&env, &skill, &tool, &root, &params, commit),
        Command::Search {
            root,
            query,
            path,
            top,
        } => crate::search::content_search(
            &env,
            &root,
            &query,
            path.as_deref(),
            top.unwrap_or(env.config.top_k),
        ),
        Command::Run {
            root,
            request,
            hitl,
            yes,
            dry_run,
        } => crate::run::run_cmd(
            &env,
            &root,
            request.as_deref(),
            hitl.as_deref(),
            yes,
            dry_run,
        ),
        Command::Plan {
            request,
            root,
            file,
            failures,
        } => crate::plan::plan_cmd(
            &env,
            request.as_deref(),
            file.as_deref(),
            root.as_deref(),
            failures,
        ),
        Command::EvalSort {
            file,
            queries,
            failures,
            every,
        } => crate::eval_sort::eval_sort_cmd(&env, &file, queries.as_deref(), failures, every),
        Command::EvalSimilar {
            photos,
            threshold,
            failures,
        } => crate::eval_similar::eval_similar_cmd(&env, &photos, threshold, failures),
        Command::Audit { command } => crate::audit::audit_cmd(&env, command),
        Command::Graph {
            command: GraphCommand::Export { root, out },
        } => graph_export(&env, &root, out.as_deref()),
        Command::Undo {
            run_id,
            yes,
            dry_run,
        } => crate::undo::undo_cmd(&env, run_id.as_deref(), yes, dry_run),
        Command::History { root } => crate::undo::history_cmd(&env, root.as_deref()),
        Command::Learned { forget } => crate::undo::learned_cmd(&env, forget.as_deref()),
        Command::Workflows { command } => crate::workflows::workflows_cmd(&env, command),
        Command::Watch {
            root,
            folder,
            request,
            settle,
            trusted,
            once,
            list,
            remove,
        } => crate::watch::watch_cmd(
            &env,
            crate::watch::WatchArgs {
                root,
                folder,
                request,
                settle,
                trusted,
                once,
                list,
                remove,
            },
        ),
        Command::Inbox { command } => crate::watch::inbox_cmd(&env, command),
        Command::Tasks { dir, once } => crate::watch::tasks_cmd(&env, &dir, once),
        Command::Recover { root, complete } => recover(&env, &root, complete),
        Command::Demo { dir } => crate::demo::demo_cmd(&env, &dir),
        Command::Config {
            command: ConfigCommand::Show,
        } => {
            print!("{}", env.config.to_yaml());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The engine the app also runs on, for the commands that plan (`run`): skills, indexes,
/// planner and audit log loaded once. Model loading is said on stderr; with `--json`, a model
/// planner's text streams out as `token` events. A configured model that fails to load is the
/// command's error (the app falls back instead).
pub fn open_engine(env: &Env) -> Result<Arc<Engine>> {
    let json = env.json;
    let loading: Mutex<Vec<(String, Instant)>> = Mutex::new(Vec::new());
    let notify = move |notice: Notice| match notice {
        Notice::Token { text, .. } if json => {
            print_json_line(&json!({"event": "token", "text": text}));
        }
        Notice::ModelProgress {
            component,
            state,
            message,
        } if !json => {
            let mut loading = loading.lock().unwrap_or_else(PoisonError::into_inner);
            match state.as_str() {
                "loading" => {
                    eprintln!("{message} …");
                    loading.push((component, Instant::now()));
                }
                "ready" => {
                    if let Some(i) = loading.iter().position(|(c, _)| *c == component) {
                        let (_, started) = loading.remove(i);
                        eprintln!(
                            "{component} {message} ready in {:.1} s",
                            started.elapsed().as_secs_f64()
                        );
                    }
                }
                _ => {}
            }
        }
        _ => {}
    };
    let engine = Engine::open(
        EngineOptions {
            config: env.config.clone(),
            skills_dir: env.skills_dir.clone(),
            config_file: None,
            model_fallback: false,
        },
        Arc::new(notify),
    )?;
    // A skill whose SKILL.md has errors is left out of planning: say so, or its requests would
    // quietly go to another skill.
    let errors = engine.skill_errors();
    for d in &errors {
        eprintln!("{d}");
    }
    if !errors.is_empty() {
        eprintln!(
            "warning: a skill with errors is left out of planning; `scope-weaver skills validate` lists every problem"
        );
    }
    Ok(engine)
}

pub fn load_skills(env: &Env) -> Result<SkillStore> {
    let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
    Ok(SkillStore::load(&env.skills_dir, table)?)
}

pub fn open_sandbox(env: &Env, root: &Path) -> Result<Sandbox> {
    let progress = Arc::new(AtomicUsize::new(0));
    let bar = (!env.json).then(|| {
        let bar =
            indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        bar.set_style(
            indicatif::ProgressStyle::with_template("{spinner} scanning {msg}")
                .expect("valid template"),
        );
        bar
    });
    let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let ticker = bar.clone().map(|bar| {
        let progress = progress.clone();
        let done = done.clone();
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                bar.set_message(format!(
                    "{} entries",
                    count(progress.load(Ordering::Relaxed))
                ));
                bar.tick();
                std::thread::sleep(Duration::from_millis(100));
            }
            bar.finish_and_clear();
        })
    });
    let options = ScanOptions {
        progress: Some(progress),
        threads: 0,
    };
    let result = Sandbox::open(root, SandboxConfig::from_pipeline(&env.config), &options);
    done.store(true, Ordering::Relaxed);
    if let Some(t) = ticker {
        let _ = t.join();
    }
    let sandbox = result?;
    if let Some(journal) = sandbox.pending_journal() {
        eprintln!(
            "warning: an interrupted commit is pending for this folder ({}); run `scope-weaver recover {}` to see or finish it",
            journal.display(),
            root.display()
        );
    }
    Ok(sandbox)
}

fn scan(env: &Env, root: &Path, tree: Option<usize>) -> Result<ExitCode> {
    let start = Instant::now();
    let sb = open_sandbox(env, root)?;
    let elapsed = start.elapsed();
    let cx = json!({"path": "."});
    let mut sb = sb;
    let analysis = sb
        .call("analyze_directory", cx.as_object().expect("object"))?
        .data;
    if env.json {
        print_json(&json!({
            "ok": true,
            "root": sb.root(),
            "nodes": sb.graph().len(),
            "seconds": elapsed.as_secs_f64(),
            "analysis": analysis,
            "issues": sb.issues(),
        }));
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "Scanned {}: {} files, {} folders, {} symlinks, {} in {:.2}s",
        sb.root().display(),
        count(analysis["file_count"].as_u64().unwrap_or(0) as usize),
        count(analysis["dir_count"].as_u64().unwrap_or(0) as usize),
        count(analysis["symlink_count"].as_u64().unwrap_or(0) as usize),
        human_bytes(analysis["total_size"].as_u64().unwrap_or(0)),
        elapsed.as_secs_f64()
    );
    let cats: Vec<String> = analysis["by_category"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            format!(
                "{} {} ({})",
                c["category"].as_str().unwrap_or("?"),
                c["count"],
                human_bytes(c["size"].as_u64().unwrap_or(0))
            )
        })
        .collect();
    if !cats.is_empty() {
        println!("By type: {}", cats.join(" · "));
    }
    let largest: Vec<String> = analysis["largest"]
        .as_array()
        .into_iter()
        .flatten()
        .take(5)
        .map(|n| {
            format!(
                "{} ({})",
                n["path"].as_str().unwrap_or("?"),
                human_bytes(n["size"].as_u64().unwrap_or(0))
            )
        })
        .collect();
    if !largest.is_empty() {
        println!("Largest: {}", largest.join(", "));
    }
    let empty = analysis["empty_dirs"].as_array().map_or(0, Vec::len);
    if empty > 0 {
        println!("Empty folders: {empty}");
    }
    if !sb.issues().is_empty() {
        println!("{} entries could not be read:", sb.issues().len());
        for i in sb.issues().iter().take(20) {
            println!("  {}: {}", i.path, i.message);
        }
    }
    if let Some(depth) = tree {
        for line in sb.graph().render_tree(false).lines() {
            let indent = line.len() - line.trim_start().len();
            if indent / 2 <= depth {
                println!("{line}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn skills_cmd(env: &Env, command: SkillsCommand) -> Result<ExitCode> {
    let store = load_skills(env)?;
    match command {
        SkillsCommand::List => {
            if env.json {
                let list: Vec<Value> = store
                    .skills()
                    .map(|s| serde_json::to_value(&s.definition).expect("serialises"))
                    .collect();
                print_json(
                    &json!({"ok": true, "skills": list, "diagnostics": store.diagnostics()}),
                );
            } else {
                for s in store.skills() {
                    let d = &s.definition;
                    let tools: Vec<&str> = d.tools.keys().map(String::as_str).collect();
                    println!(
                        "{:<18} {:<8} {}",
                        d.name,
                        d.version,
                        match (&d.workflow, tools.is_empty()) {
                            (Some(w), _) => format!("(workflow of {} steps)", w.steps.len()),
                            (None, true) => "(instructions only)".to_owned(),
                            (None, false) => tools.join(", "),
                        }
                    );
                }
                report_diagnostics(&store);
            }
        }
        SkillsCommand::Show { name } => {
            let s = store.get(&name).ok_or_else(|| {
                let names: Vec<&str> = store.skills().map(|s| s.definition.name.as_str()).collect();
                usage(
                    "UNKNOWN_SKILL",
                    format!("no skill named `{name}`; loaded: {}", names.join(", ")),
                )
            })?;
            if env.json {
                print_json(
                    &json!({"ok": true, "skill": s.definition, "dir": s.dir, "vis": s.vis, "descriptions": s.descriptions}),
                );
            } else {
                let d = &s.definition;
                println!("{} {} ({})\n{}\n", d.name, d.version, d.id, d.description);
                if !d.tags.is_empty() {
                    println!("tags: {}", d.tags.join(", "));
                }
                if !d.triggers.is_empty() {
                    println!("triggers: {}", d.triggers.join(" | "));
                }
                for t in d.tools.values() {
                    println!(
                        "\n  {}{} — {}",
                        t.name,
                        if t.mutates() { " (changes files)" } else { "" },
                        t.description
                    );
                    println!("    {}", t.signature);
                    if let Some(about) = &t.described {
                        println!("    {}", about.summary);
                        for e in &about.examples {
                            println!("    e.g. \"{e}\"");
                        }
                    }
                }
                let origin = &s.descriptions;
                println!(
                    "\ndescriptions: {}{}",
                    origin.generated_by,
                    origin
                        .reason
                        .as_deref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                );
                if let Some(w) = &d.workflow {
                    println!("\nworkflow:");
                    for (n, step) in w.steps.iter().enumerate() {
                        println!(
                            "  {}. {}/{} {}",
                            n + 1,
                            step.skill,
                            step.tool,
                            Value::Object(step.params.clone())
                        );
                    }
                    for (when, list) in [("before", &w.preconditions), ("after", &w.postconditions)]
                    {
                        for c in list {
                            println!(
                                "  checked {when}: {} on {}",
                                c.check.name(),
                                c.path.as_deref().unwrap_or(".")
                            );
                        }
                    }
                }
                println!("\nfolder: {}", s.dir.display());
            }
        }
        SkillsCommand::Validate => {
            let errors = store.diagnostics().iter().filter(|d| d.is_error()).count();
            if env.json {
                print_json(
                    &json!({"ok": errors == 0, "skills": store.len(), "diagnostics": store.diagnostics()}),
                );
            } else {
                report_diagnostics(&store);
                println!(
                    "{} skills loaded from {}; {errors} error(s)",
                    store.len(),
                    store.dir().display()
                );
            }
            return Ok(if errors == 0 {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            });
        }
        SkillsCommand::Describe { names, force } => {
            drop(store);
            return describe_skills(env, &names, force);
        }
        SkillsCommand::Watch { count } => {
            return crate::search::skills_watch(env, store, count);
        }
        SkillsCommand::Search { query, file, top } => {
            return crate::search::skills_search(
                env,
                &store,
                query.as_deref(),
                file.as_deref(),
                top,
            );
        }
        SkillsCommand::Primitives => {
            if env.json {
                print_json(
                    &json!({"ok": true, "primitives": store.table().iter().collect::<Vec<_>>()}),
                );
            } else {
                for spec in store.table().iter() {
                    let req: Vec<String> = spec
                        .required
                        .iter()
                        .map(|p| format!("{}: {}", p.name, p.ty.as_str()))
                        .collect();
                    let opt: Vec<String> = spec
                        .optional
                        .iter()
                        .map(|p| format!("{}?", p.name))
                        .collect();
                    println!(
                        "{:<9} {:<18} {} ({}{}{}) -> {}\n          {}",
                        spec.kind,
                        spec.name,
                        if spec.mutates { "mutates" } else { "reads  " },
                        req.join(", "),
                        if opt.is_empty() { "" } else { "; " },
                        opt.join(", "),
                        spec.return_type,
                        spec.summary
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `skills describe`: through the engine, so a configured model writes the descriptions.
fn describe_skills(env: &Env, names: &[String], force: bool) -> Result<ExitCode> {
    let engine = open_engine(env)?;
    let described = engine.describe_skills(names, force)?;
    if env.json {
        print_json(&json!({"ok": true, "skills": described}));
        return Ok(ExitCode::SUCCESS);
    }
    for d in &described {
        println!(
            "{:<20} {:<8} {} tool(s) by {}{}",
            d.name,
            d.outcome,
            d.tools,
            d.generated_by,
            if d.outcome == "written" {
                format!(" in {:.1} s", d.seconds)
            } else {
                String::new()
            }
        );
        for f in &d.failed {
            println!("    the model could not describe {f}; its derived description was written");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn report_diagnostics(store: &SkillStore) {
    for d in store.diagnostics() {
        eprintln!("{d}");
    }
}

/// `key=value` pairs; values that parse as JSON are JSON; a repeated key becomes a list.
pub fn parse_params(pairs: &[String]) -> Result<Map<String, Value>> {
    let mut out = Map::new();
    for pair in pairs {
        let (k, v) = pair
            .split_once('=')
            .ok_or_else(|| usage("BAD_PARAM_SYNTAX", format!("`{pair}` is not key=value")))?;
        let value =
            serde_json::from_str::<Value>(v).unwrap_or_else(|_| Value::String(v.to_owned()));
        match out.get_mut(k) {
            None => {
                out.insert(k.to_owned(), value);
            }
            Some(Value::Array(items)) => items.push(value),
            Some(existing) => *existing = Value::Array(vec![existing.take(), value]),
        }
    }
    Ok(out)
}

/// A readable rendering of a method result: counts first, then lists of nodes or moves.
pub fn print_result(data: &Value) {
    // A tool asked for a report (text, CSV) prints it as it is.
    if let Some(report) = data.get("report").and_then(Value::as_str) {
        print!("{report}");
        return;
    }
    let Some(obj) = data.as_object() else {
        println!("{data}");
        return;
    };
    for (k, v) in obj {
        match v {
            Value::Array(items) if items.is_empty() => {}
            Value::Array(items) => {
                println!("{k}: {} item(s)", items.len());
                for item in items.iter().take(50) {
                    let line = match item {
                        Value::Object(o) if o.contains_key("paths") && o.contains_key("hash") => {
                            let paths: Vec<&str> = o["paths"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .filter_map(Value::as_str)
                                .collect();
                            format!(
                                "{} identical files of {}: {}",
                                paths.len(),
                                human_bytes(o["size"].as_u64().unwrap_or(0)),
                                paths.join(", ")
                            )
                        }
                        Value::Object(o) if o.contains_key("from") => format!(
                            "{} -> {}",
                            o["from"].as_str().unwrap_or("?"),
                            o["to"].as_str().unwrap_or("?")
                        ),
                        Value::Object(o) if o.contains_key("path") && o.contains_key("size") => {
                            format!(
                                "{} ({})",
                                o["path"].as_str().unwrap_or("?"),
                                human_bytes(o["size"].as_u64().unwrap_or(0))
                            )
                        }
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    };
                    println!("  {line}");
                }
                if items.len() > 50 {
                    println!("  … {} more", items.len() - 50);
                }
            }
            Value::Object(_) => println!("{k}: {v}"),
            Value::String(s) if s.contains('\n') => println!("{k}:\n{s}"),
            Value::Null => {}
            other => println!(
                "{k}: {}",
                other
                    .as_str()
                    .map_or_else(|| other.to_string(), str::to_owned)
            ),
        }
    }
}

fn graph_export(env: &Env, root: &Path, out: Option<&Path>) -> Result<ExitCode> {
    let sb = open_sandbox(env, root)?;
    let text = serde_json::to_string_pretty(&sb.node_link_json()).expect("json serialises");
    match out {
        Some(path) => {
            std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))?;
            if !env.json {
                println!("Wrote {} nodes to {}", sb.graph().len(), path.display());
            }
        }
        None => println!("{text}"),
    }
    Ok(ExitCode::SUCCESS)
}

fn recover(env: &Env, root: &Path, complete: bool) -> Result<ExitCode> {
    let report = engine::Ledger::new(env.config.clone()).recover(root, complete)?;
    let Some(r) = report else {
        if env.json {
            print_json(&json!({"ok": true, "pending": false}));
        } else {
            println!("No interrupted commit for {}.", root.display());
        }
        return Ok(ExitCode::SUCCESS);
    };
    if env.json {
        print_json(&json!({"ok": r.finished || !complete, "pending": !r.finished, "report": r}));
    } else {
        println!(
            "Interrupted commit of {} ({} changes, {} applied before it stopped).",
            r.root.display(),
            r.total,
            r.done_before
        );
        if let Some((op, verdict)) = &r.in_doubt {
            println!("In progress when it stopped: {op} -> {verdict:?}");
        }
        for c in &r.conflicts {
            println!("  conflict: {c}");
        }
        if r.finished {
            println!(
                "Finished: applied the remaining {} change(s).",
                r.completed.as_ref().map_or(0, |c| c.applied)
            );
        } else {
            println!("Not applied yet ({}):", r.pending.len());
            for p in &r.pending {
                println!("  {p}");
            }
            if !complete {
                println!("Run with --complete to finish it.");
            }
        }
    }
    Ok(if complete && !r.finished {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
