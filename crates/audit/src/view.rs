//! Reading the chain back: a request's Task tree, a readable account of a run, the list of runs,
//! and exports (JSON, YAML, CSV). Pure functions of entries.

use serde::Serialize;
use serde_json::Value;

use crate::chain::Entry;
use crate::record::{CapTask, Task, TaskStatus};
use crate::{AuditError, Result};

/// One request in `audit list`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RunSummary {
    pub run_id: String,
    pub at: String,
    pub request: String,
    pub status: String,
    pub steps: usize,
    pub committed: Option<bool>,
    pub error: Option<String>,
}

/// The runs in `entries`, newest first.
pub fn run_summaries(entries: &[Entry]) -> Vec<RunSummary> {
    let mut runs: Vec<RunSummary> = Vec::new();
    for e in entries {
        let v = e.value();
        match e.kind.as_str() {
            "task" => runs.push(RunSummary {
                run_id: e.run_id.clone(),
                at: e.at.clone(),
                request: v["prompt_list"][0].as_str().unwrap_or_default().to_owned(),
                status: "created".into(),
                steps: 0,
                committed: None,
                error: None,
            }),
            _ => {
                let Some(r) = runs.iter_mut().rev().find(|r| r.run_id == e.run_id) else {
                    continue;
                };
                match e.kind.as_str() {
                    "plan" => r.steps = v["plan"]["steps"].as_array().map_or(0, Vec::len),
                    "status" => {
                        r.status = v["status"].as_str().unwrap_or_default().to_owned();
                        if let Some(c) = v["committed"].as_bool() {
                            r.committed = Some(c);
                        }
                        if let Some(code) = v["error"]["code"].as_str() {
                            r.error = Some(code.to_owned());
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    runs.reverse();
    runs
}

/// The request's `Task` rebuilt from its entries: sub-tasks per plan step, their `CapTask`s.
pub fn task_tree(entries: &[Entry]) -> Result<Task> {
    let parse = |e: &Entry| -> Result<Value> {
        serde_json::from_str(&e.body)
            .map_err(|err| AuditError::Format(format!("entry {}: {err}", e.seq)))
    };
    let first = entries
        .iter()
        .find(|e| e.kind == "task")
        .ok_or_else(|| AuditError::NotFound("a task entry".into()))?;
    let mut root: Task = serde_json::from_value(parse(first)?)
        .map_err(|e| AuditError::Format(format!("task: {e}")))?;
    for e in entries {
        let v = parse(e)?;
        match e.kind.as_str() {
            "plan" => root.sub_tasks.clear(),
            "subtask" => {
                let sub: Task = serde_json::from_value(v)
                    .map_err(|err| AuditError::Format(format!("subtask: {err}")))?;
                root.sub_tasks.push(sub);
            }
            "cap_task" => {
                let cap: CapTask = serde_json::from_value(v)
                    .map_err(|err| AuditError::Format(format!("cap task: {err}")))?;
                match root
                    .sub_tasks
                    .iter_mut()
                    .find(|s| Some(&s.hash) == cap.task_hash.as_ref())
                {
                    Some(sub) => {
                        sub.status = TaskStatus::Done;
                        sub.updated_at.clone_from(&cap.updated_at);
                        sub.cap_tasks.push(cap);
                    }
                    None => root.cap_tasks.push(cap),
                }
            }
            "status" => {
                if let Ok(s) = serde_json::from_value::<TaskStatus>(v["status"].clone()) {
                    root.status = s;
                }
                root.updated_at = v["at"].as_str().unwrap_or(&e.at).to_owned();
                if let Some(c) = v["committed"].as_bool() {
                    root.additional.insert("committed".into(), c.to_string());
                }
                if let Some(code) = v["error"]["code"].as_str() {
                    root.additional.insert("error".into(), code.to_owned());
                }
            }
            _ => {}
        }
    }
    root.additional
        .insert("run_id".into(), first.run_id.clone());
    Ok(root)
}

fn short(v: &Value, max: usize) -> String {
    let s = match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if s.chars().count() > max {
        format!("{}…", s.chars().take(max).collect::<String>())
    } else {
        s
    }
}

/// A readable account of one run, one line per record.
pub fn render_run(entries: &[Entry]) -> String {
    let mut out = Vec::new();
    for e in entries {
        let v = e.value();
        let time = e.at.get(11..19).unwrap_or(&e.at);
        let line = match e.kind.as_str() {
            "task" => format!("request  \"{}\"", short(&v["prompt_list"][0], 200)),
            "plan" => {
                let u = &v["usage"];
                let mut s = format!(
                    "plan     by {} ({} prompt + {} completion tokens, {:.0} ms)",
                    short(&v["planner"], 60),
                    u["prompt_tokens"],
                    u["completion_tokens"],
                    u["latency_ms"].as_f64().unwrap_or(0.0)
                );
                for step in v["plan"]["steps"].as_array().into_iter().flatten() {
                    s.push_str(&format!(
                        "\n           {}. {}/{} {}",
                        step["step"],
                        short(&step["skill"], 40),
                        short(&step["tool"], 40),
                        short(&step["params"], 160)
                    ));
                }
                s
            }
            "subtask" => continue,
            "cap_task" => {
                let result: Value = serde_json::from_str(v["full_result"].as_str().unwrap_or("{}"))
                    .unwrap_or(Value::Null);
                format!(
                    "call     step {} {} [{}] {} → {} ({:.1} ms)",
                    v["step"],
                    short(&v["cap_name"], 60),
                    short(&v["status"], 20),
                    short(&v["args"][0], 160),
                    short(&result["summary"], 160),
                    result["ms"].as_f64().unwrap_or(0.0)
                )
            }
            "skill_matched" => format!(
                "match    step {} {}/{} score {:.2}{} runner-ups: {}",
                v["step"],
                short(&v["skill"], 40),
                short(&v["tool"], 40),
                v["score"].as_f64().unwrap_or(0.0),
                if v["confident"] == true {
                    " (confident)"
                } else {
                    " (near miss)"
                },
                v["runner_ups"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|c| format!(
                        "{}/{} {:.2}",
                        short(&c["skill"], 40),
                        short(&c["tool"], 40),
                        c["score"].as_f64().unwrap_or(0.0)
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            "near_miss" => format!(
                "choice   step {} near miss: chose {} by {}",
                v["step"],
                short(&v["chosen"], 120),
                short(&v["by"], 20)
            ),
            "references_resolved" => {
                format!("refs     step {} {}", v["step"], short(&v["params"], 200))
            }
            "overridden" => format!("override step {} {}", v["step"], short(&v, 200)),
            "rolled_back" => format!(
                "rollback step {} to snapshot {} ({} change(s) undone)",
                v["step"],
                short(&v["snapshot"], 40),
                v["undone"]
            ),
            "stage_finished" => continue,
            "status" => format!(
                "status   {}{}",
                short(&v["status"], 20),
                match v["error"]["code"].as_str() {
                    Some(code) =>
                        format!(" with error {code}: {}", short(&v["error"]["message"], 200)),
                    None => String::new(),
                }
            ),
            "finished" => {
                let total: f64 = v["stage_ms"]
                    .as_object()
                    .map(|m| m.values().filter_map(Value::as_f64).sum())
                    .unwrap_or(0.0);
                format!(
                    "finished {} in {total:.0} ms: {}",
                    if v["committed"] == true {
                        "committed"
                    } else if v["dry_run"] == true {
                        "dry run"
                    } else {
                        "not committed"
                    },
                    short(&v["text"], 300)
                )
            }
            other => format!("{other:<8} {}", short(&v, 200)),
        };
        out.push(format!("#{:<5} {time}  {line}", e.seq));
    }
    out.join("\n")
}

/// The entries as `json` (an array), `yaml` or `csv` (one row per entry).
pub fn export(entries: &[Entry], format: &str) -> Result<String> {
    match format {
        "json" => {
            serde_json::to_string_pretty(entries).map_err(|e| AuditError::Format(e.to_string()))
        }
        "yaml" => serde_yaml::to_string(entries).map_err(|e| AuditError::Format(e.to_string())),
        "csv" => {
            let field = |s: &str| {
                if s.contains([',', '"', '\n', '\r']) {
                    format!("\"{}\"", s.replace('"', "\"\""))
                } else {
                    s.to_owned()
                }
            };
            let mut out = String::from("seq,id,at,run_id,kind,body,previous_hash,hash\n");
            for e in entries {
                out.push_str(
                    &[
                        e.seq.to_string(),
                        field(&e.id),
                        field(&e.at),
                        field(&e.run_id),
                        field(&e.kind),
                        field(&e.body),
                        field(&e.previous_hash),
                        field(&e.hash),
                    ]
                    .join(","),
                );
                out.push('\n');
            }
            Ok(out)
        }
        other => Err(AuditError::Format(format!(
            "unknown export format `{other}`: use json, yaml or csv"
        ))),
    }
}
