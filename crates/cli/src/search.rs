//! Retrieval from the command line: `skills search` (which skill fits a request) and `search ROOT`
//! (which files are about something).

use std::io::BufRead;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use retrieval::{HotReload, RetrievalPipeline, SkillRanking, SkillWatcher, apply_skill_change};
use sandbox::Sandbox;
use serde_json::{Value, json};
use skills::SkillStore;

use crate::commands::{Env, open_sandbox};
use crate::output::{print_json, usage};

/// Opens the retrieval pipeline and brings the skill index up to date with `store`.
pub fn skill_pipeline(env: &Env, store: &SkillStore) -> Result<RetrievalPipeline> {
    let mut p = RetrievalPipeline::open(&env.config)?;
    let report = p.build_index(store)?;
    if !env.json && !report.embedded.is_empty() {
        eprintln!(
            "indexed {} skill(s) with {}{}",
            report.embedded.len(),
            p.embedder().fingerprint(),
            if report.rebuilt {
                " (the embedding model changed: index rebuilt)"
            } else {
                ""
            }
        );
    }
    Ok(p)
}

fn ranking_json(r: &SkillRanking, top: usize) -> Value {
    json!({
        "query": r.query,
        "confident": r.confident,
        "threshold": r.threshold,
        "gap": r.gap,
        "margin": r.margin(),
        "hits": r.hits.iter().take(top).collect::<Vec<_>>(),
        "runner_ups": r.runner_ups().iter().take(3).map(|h| json!({"skill": h.skill, "tool": h.tool, "score": h.score})).collect::<Vec<_>>(),
    })
}

fn print_ranking(r: &SkillRanking, top: usize) {
    let Some(best) = r.top() else {
        println!("{:?}: no skills are loaded", r.query);
        return;
    };
    let verdict = if r.confident {
        format!(
            "confident: {}/{} (score {:.2} ≥ {:.2}, ahead by {:.2} ≥ {:.2})",
            best.skill,
            best.tool,
            best.score,
            r.threshold,
            r.margin(),
            r.gap
        )
    } else if best.score < r.threshold {
        format!(
            "near-miss: best score {:.2} is below the threshold {:.2}; the person should pick",
            best.score, r.threshold
        )
    } else {
        format!(
            "near-miss: {}/{} leads by only {:.2} (< {:.2}); the person should pick",
            best.skill,
            best.tool,
            r.margin(),
            r.gap
        )
    };
    println!("{:?}\n{verdict}", r.query);
    for (i, h) in r.hits.iter().take(top).enumerate() {
        println!(
            "  {}. {:.3}  {:<34} skill {:.2} · tool {:.2} · cosine {:.2} · bm25 {:.1}",
            i + 1,
            h.score,
            format!("{}/{}", h.skill, h.tool),
            h.skill_score,
            h.tool_score,
            h.vector,
            h.bm25
        );
    }
    let runner: Vec<String> = r
        .runner_ups()
        .iter()
        .take(3)
        .map(|h| format!("{}/{} {:.2}", h.skill, h.tool, h.score))
        .collect();
    if !runner.is_empty() {
        println!("  runner-ups (other skills): {}", runner.join(", "));
    }
}

/// `skills search QUERY` or `skills search --file REQUESTS` (one request per line: text, or JSON
/// with a `request` field; prints one JSON ranking per line).
pub fn skills_search(
    env: &Env,
    store: &SkillStore,
    query: Option<&str>,
    file: Option<&Path>,
    top: usize,
) -> Result<ExitCode> {
    let p = skill_pipeline(env, store)?;
    if let Some(file) = file {
        let reader: Box<dyn BufRead> = if file == Path::new("-") {
            Box::new(std::io::stdin().lock())
        } else {
            Box::new(std::io::BufReader::new(
                std::fs::File::open(file).with_context(|| format!("{}", file.display()))?,
            ))
        };
        for line in reader.lines() {
            let line = line?;
            if line.trim().is_empty() {
                continue;
            }
            let q = serde_json::from_str::<Value>(&line)
                .ok()
                .and_then(|v| v.get("request").and_then(Value::as_str).map(str::to_owned))
                .unwrap_or(line);
            let r = p.match_skill(&q)?;
            println!("{}", ranking_json(&r, top));
        }
        return Ok(ExitCode::SUCCESS);
    }
    let query = query.filter(|q| !q.trim().is_empty()).ok_or_else(|| {
        usage(
            "INVALID_PARAMS",
            "give a query, or --file with one request per line",
        )
    })?;
    let r = p.match_skill(query)?;
    if env.json {
        let mut v = ranking_json(&r, top);
        v["ok"] = json!(true);
        print_json(&v);
    } else {
        print_ranking(&r, top);
    }
    Ok(ExitCode::SUCCESS)
}

/// Opens the sandbox of `root` and its content index (reusing the saved one where current).
fn indexed_sandbox(env: &Env, root: &Path) -> Result<(Sandbox, RetrievalPipeline)> {
    let mut sb = open_sandbox(env, root)?;
    let mut p = RetrievalPipeline::open(&env.config)?;
    let report = p.index_sandbox(&mut sb)?;
    if !env.json {
        eprintln!(
            "content index: {} file(s) embedded ({} chunks), {} unchanged, {} dropped{}",
            report.embedded_files,
            report.embedded_chunks,
            report.kept_files,
            report.removed_files,
            if report.unreadable.is_empty() {
                String::new()
            } else {
                format!(", {} unreadable (indexed by name)", report.unreadable.len())
            }
        );
    }
    Ok((sb, p))
}

/// `search ROOT QUERY [--path SUB] [--top N]`.
pub fn content_search(
    env: &Env,
    root: &Path,
    query: &str,
    path: Option<&str>,
    top: usize,
) -> Result<ExitCode> {
    let (sb, p) = indexed_sandbox(env, root)?;
    let scope = match path {
        Some(s) => sb.resolve(s)?,
        None => ".".to_owned(),
    };
    let r = p.query_content(&sb, query, &scope, top)?;
    if env.json {
        print_json(&json!({"ok": true, "root": sb.root(), "result": r}));
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(w) = &r.warning {
        eprintln!("warning: {w}");
    }
    if r.hits.is_empty() {
        println!("No files match {query:?}.");
    }
    for h in &r.hits {
        println!("{:.3}  {}", h.score, h.path);
        if !h.snippet.is_empty() {
            println!("       {}", h.snippet);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `skills watch`: hot reload until interrupted (or `count` reloads). Prints one line per change
/// with the time from the file event to the updated index.
pub fn skills_watch(env: &Env, mut store: SkillStore, count: Option<usize>) -> Result<ExitCode> {
    let mut p = skill_pipeline(env, &store)?;
    let watcher = SkillWatcher::start(store.dir())?;
    if !env.json {
        eprintln!(
            "watching {} ({} skills); edit a SKILL.md to reload it",
            watcher.dir().display(),
            store.len()
        );
    }
    let mut done = 0;
    while count.is_none_or(|c| done < c) {
        let Some(burst) = watcher.next_burst(std::time::Duration::from_secs(3600)) else {
            continue;
        };
        for folder in burst.folders {
            let outcome = apply_skill_change(&mut store, &mut p, &folder)?;
            let ms = burst.started.elapsed().as_millis();
            done += 1;
            if env.json {
                println!("{}", json!({"ok": true, "reload": outcome, "millis": ms}));
                continue;
            }
            match outcome {
                HotReload::Reloaded { skill, documents } => println!(
                    "reloaded {skill}: {documents} document(s) re-embedded, index updated {ms} ms after the edit"
                ),
                HotReload::KeptPrevious { skill, diagnostics } => {
                    println!("{skill}: the edit does not load; keeping the previous version");
                    for d in diagnostics {
                        println!("  {d}");
                    }
                }
                HotReload::Rejected {
                    folder,
                    diagnostics,
                } => {
                    println!("{}: not loaded", folder.display());
                    for d in diagnostics {
                        println!("  {d}");
                    }
                }
                HotReload::Removed { skill } => println!("removed {skill}"),
            }
        }
        use std::io::Write;
        let _ = std::io::stdout().flush();
    }
    Ok(ExitCode::SUCCESS)
}
