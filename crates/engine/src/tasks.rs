//! The drop folder (seed 000's `todo_watch_dir`): task files dropped into a folder are taken
//! oldest first, one at a time. A task is `{"request": "...", "root": "/abs/folder"}`, or one
//! tool call `{"call": {"skill": "...", "tool": "...", "params": {...}}, "root": "/abs/folder"}`
//! (and `"trusted": true` to commit what deletes nothing without asking); it is simulated like a
//! watched folder's request, its changes parked in the inbox (or committed), and answered with
//! `NAME.answer.json` beside the task, which moves to `done/`. A file that is not a valid task
//! gets `NAME.error.json` beside it, saying what is wrong, and stays where it is; it is tried
//! again once it is newer than its error file. A task that meets a running request waits for
//! the next round.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use contracts::ErrorPayload;
use serde::{Deserialize, Serialize};

use crate::Engine;
use crate::error::{EngineError, Result};
use crate::watch::{WatchOutcome, write_json};

/// What a task file holds.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TaskFile {
    /// What to do, in words: planned like a request in the bar.
    #[serde(default)]
    pub request: String,
    /// Or one tool to call with its parameters (no planner involved).
    #[serde(default)]
    pub call: Option<contracts::ToolCall>,
    /// The working folder, absolute.
    pub root: PathBuf,
    #[serde(default)]
    pub trusted: bool,
}

/// The answer written beside a task.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TaskAnswer {
    /// The task file's name.
    pub task: String,
    pub ok: bool,
    pub outcome: Option<WatchOutcome>,
    pub error: Option<ErrorPayload>,
    pub at: String,
}

const ANSWER: &str = ".answer.json";
/// How long the app's drop folder rests between looks.
pub const DROP_FOLDER_POLL: Duration = Duration::from_secs(1);
const ERROR: &str = ".error.json";

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// The task files waiting in `dir`, oldest first (then by name).
fn waiting_tasks(dir: &Path) -> Result<Vec<PathBuf>> {
    let entries = std::fs::read_dir(dir).map_err(|e| EngineError::Write {
        path: dir.display().to_string(),
        message: e.to_string(),
    })?;
    let mut tasks: Vec<(SystemTime, PathBuf)> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file())
        .filter(|p| {
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            name.ends_with(".json")
                && !name.ends_with(ANSWER)
                && !name.ends_with(ERROR)
                && !name.starts_with('.')
        })
        .filter_map(|p| {
            let at = modified(&p)?;
            // Answered with an error already, and not changed since.
            let error = beside(&p, ERROR);
            if modified(&error).is_some_and(|e| e >= at) {
                return None;
            }
            Some((at, p))
        })
        .collect();
    tasks.sort();
    Ok(tasks.into_iter().map(|(_, p)| p).collect())
}

/// `dir/stem<suffix>` for task `dir/stem.json`.
fn beside(task: &Path, suffix: &str) -> PathBuf {
    let stem = task
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    task.with_file_name(format!("{stem}{suffix}"))
}

/// The task in `text`, checked: every problem at once.
fn read_task(text: &str) -> std::result::Result<TaskFile, String> {
    let task: TaskFile = serde_json::from_str(text).map_err(|e| {
        format!(
            "not a task ({e}); a task is {{\"request\": \"...\", \"root\": \"/absolute/folder\"}} \
             or {{\"call\": {{\"skill\": \"...\", \"tool\": \"...\", \"params\": {{}}}}, \"root\": \"...\"}}"
        )
    })?;
    let mut problems = Vec::new();
    match (task.request.trim().is_empty(), &task.call) {
        (true, None) => problems.push(
            "no `request` (what to do, in words) and no `call` (one tool with its params)"
                .to_owned(),
        ),
        (false, Some(_)) => {
            problems.push("give `request` or `call`, not both".to_owned());
        }
        _ => {}
    }
    if !task.root.is_absolute() {
        problems.push(format!(
            "`root` must be an absolute path, not {}",
            task.root.display()
        ));
    } else if !task.root.is_dir() {
        problems.push(format!("`root` {} is not a folder", task.root.display()));
    }
    if problems.is_empty() {
        Ok(task)
    } else {
        Err(problems.join("; "))
    }
}

impl Engine {
    /// Takes every task waiting in `dir`, oldest first; returns the answers written (a task that
    /// met a running request is left for the next round and has none).
    pub fn run_drop_folder(&self, dir: &Path) -> Result<Vec<TaskAnswer>> {
        let mut answers = Vec::new();
        for path in waiting_tasks(dir)? {
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let at = || humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            let task = match read_task(&text).and_then(|t| match &t.call {
                Some(call) => self
                    .tool_call_plan(call)
                    .map(|_| t)
                    .map_err(|e| format!("`call`: {}", e.payload().message)),
                None => Ok(t),
            }) {
                Ok(t) => t,
                Err(message) => {
                    let answer = TaskAnswer {
                        task: name,
                        ok: false,
                        outcome: None,
                        error: Some(ErrorPayload::new("TASK_INVALID", message)),
                        at: at(),
                    };
                    write_json(&beside(&path, ERROR), &answer)?;
                    answers.push(answer);
                    continue;
                }
            };
            let source = format!(
                "task-{}",
                path.file_stem()
                    .map(|s| s.to_string_lossy())
                    .unwrap_or_default()
            );
            let request = match &task.call {
                Some(call) => call.text(),
                None => task.request.clone(),
            };
            let settled = self.settle_request(
                &source,
                &task.root,
                &request,
                task.call.as_ref(),
                task.trusted,
            );
            let (outcome, error) = match settled {
                Err(EngineError::Busy) => continue,
                Ok(o) => (Some(o), None),
                Err(e) => (None, Some(e.payload())),
            };
            let answer = TaskAnswer {
                task: name.clone(),
                ok: error.is_none(),
                outcome,
                error,
                at: at(),
            };
            // Moved first: whoever sees the answer finds the task in done/.
            let done = dir.join("done");
            std::fs::create_dir_all(&done)
                .and_then(|()| std::fs::rename(&path, done.join(&name)))
                .map_err(|e| EngineError::Write {
                    path: path.display().to_string(),
                    message: e.to_string(),
                })?;
            write_json(&beside(&path, ANSWER), &answer)?;
            answers.push(answer);
        }
        Ok(answers)
    }
}

impl Engine {
    /// The app's drop folder: `drop_folder` (read again each round, so Settings can change it)
    /// looked at every [`DROP_FOLDER_POLL`] on a thread of its own while the engine lives.
    pub fn tasks_in_background(self: &Arc<Self>) {
        let engine = Arc::downgrade(self);
        std::thread::spawn(move || {
            while let Some(e) = engine.upgrade() {
                if let Some(dir) = e.config().drop_folder.filter(|d| d.is_dir())
                    && let Err(err) = e.run_drop_folder(&dir)
                {
                    tracing::warn!("drop folder {}: {}", dir.display(), err.payload().message);
                }
                drop(e);
                std::thread::sleep(DROP_FOLDER_POLL);
            }
        });
    }
}
