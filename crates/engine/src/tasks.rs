//! The drop folder (seed 000's `todo_watch_dir`): task files dropped into a folder are taken
//! oldest first, one at a time. A task is `{"request": "...", "root": "/abs/folder"}`, one
//! tool call `{"call": {"skill": "...", "tool": "...", "params": {...}}, "root": "/abs/folder"}`,
//! or a whole plan `{"plan": {"steps": [...]}, "root": ...}` (seed 000's CapTask shapes; and
//! `"trusted": true` to commit what deletes nothing without asking); it is simulated like a
//! watched folder's request, its changes parked in the inbox (or committed), and answered with
//! `NAME.answer.json` beside the task, which moves to `done/`. A file that is not a valid task
//! gets `NAME.error.json` beside it, saying what is wrong, and stays where it is; it is tried
//! again once it is newer than its error file. A task that meets a running request waits for
//! the next round; one that fails for a passing reason (a file locked or changed meanwhile) is
//! tried again with a doubling pause ([`TaskRetry`]).

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
    /// Or a whole plan to run as it is (steps with `$step(n)` references, as a planner makes).
    #[serde(default)]
    pub plan: Option<contracts::Plan>,
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
const RETRY: &str = ".retry.json";
/// How many times a task that failed for a passing reason is tried in all.
pub const TASK_ATTEMPTS: u32 = 5;
/// The pause after its first failure; each later one doubles it.
pub const TASK_FIRST_PAUSE: Duration = Duration::from_secs(2);

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A task that failed for a reason that may pass — a file locked, changed or unreadable while
/// it ran — waits beside itself (`NAME.retry.json`) and is tried again after a pause that
/// doubles each time, [`TASK_ATTEMPTS`] times in all; then it is answered with the error. A task
/// changed meanwhile is tried at once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TaskRetry {
    /// Failed attempts so far.
    pub attempts: u32,
    /// Not tried again before this time (milliseconds since the epoch).
    pub next_at_ms: u64,
    pub error: ErrorPayload,
}

impl TaskRetry {
    /// Errors from the disk that can pass by themselves.
    fn passing(code: &str) -> bool {
        matches!(
            code,
            "IO_ERROR" | "COMMIT_CONFLICT" | "COMMIT_FAILED" | "CONTENT_UNREADABLE" | "BAD_ROOT"
        )
    }

    /// The next wait after `error`, or `None` when the task is to be answered with it (an error
    /// that will not pass, or the last attempt).
    pub fn after(previous: Option<&TaskRetry>, error: &ErrorPayload, now_ms: u64) -> Option<Self> {
        let attempts = previous.map_or(0, |r| r.attempts) + 1;
        if !Self::passing(&error.code) || attempts >= TASK_ATTEMPTS {
            return None;
        }
        let pause = TASK_FIRST_PAUSE.as_millis() as u64 * (1 << (attempts - 1));
        Some(TaskRetry {
            attempts,
            next_at_ms: now_ms + pause,
            error: error.clone(),
        })
    }
}
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
                && !name.ends_with(RETRY)
                && !name.starts_with('.')
        })
        .filter_map(|p| {
            let at = modified(&p)?;
            // Answered with an error already, and not changed since.
            let error = beside(&p, ERROR);
            if modified(&error).is_some_and(|e| e >= at) {
                return None;
            }
            // Waiting to be tried again, and not changed since it last failed.
            let retry = beside(&p, RETRY);
            if modified(&retry).is_some_and(|r| r >= at)
                && std::fs::read_to_string(&retry)
                    .ok()
                    .and_then(|t| serde_json::from_str::<TaskRetry>(&t).ok())
                    .is_some_and(|r| r.next_at_ms > now_ms())
            {
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
            "not a task ({e}); a task is {{\"request\": \"...\", \"root\": \"/absolute/folder\"}}, \
             {{\"call\": {{\"skill\": \"...\", \"tool\": \"...\", \"params\": {{}}}}, \"root\": \"...\"}} \
             or {{\"plan\": {{\"steps\": [...]}}, \"root\": \"...\"}}"
        )
    })?;
    let mut problems = Vec::new();
    let given = usize::from(!task.request.trim().is_empty())
        + usize::from(task.call.is_some())
        + usize::from(task.plan.is_some());
    match given {
        0 => problems.push(
            "no `request` (what to do, in words), no `call` (one tool with its params) and no \
             `plan` (steps)"
                .to_owned(),
        ),
        1 => {}
        _ => problems.push("give one of `request`, `call` or `plan`, not several".to_owned()),
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
            // A call or a plan is checked against the skills before anything runs.
            let checked = read_task(&text).and_then(|t| {
                let given = match (&t.call, &t.plan) {
                    (Some(call), _) => Some(
                        self.tool_call_plan(call)
                            .map_err(|e| format!("`call`: {}", e.payload().message))?,
                    ),
                    (None, Some(plan)) => Some(
                        self.check_plan(plan)
                            .map_err(|e| format!("`plan`: {}", e.payload().message))?,
                    ),
                    (None, None) => None,
                };
                Ok((t, given))
            });
            let (task, given) = match checked {
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
            let request = match (&task.call, &given) {
                (Some(call), _) => call.text(),
                (None, Some(plan)) => plan.text(),
                (None, None) => task.request.clone(),
            };
            let settled =
                self.settle_request(&source, &task.root, &request, given.as_ref(), task.trusted);
            let (outcome, error) = match settled {
                Err(EngineError::Busy) => continue,
                Ok(o) => (Some(o), None),
                Err(e) => {
                    let error = e.payload();
                    let retry = std::fs::read_to_string(beside(&path, RETRY))
                        .ok()
                        .and_then(|t| serde_json::from_str::<TaskRetry>(&t).ok());
                    if let Some(next) = TaskRetry::after(retry.as_ref(), &error, now_ms()) {
                        tracing::warn!(
                            task = %name,
                            attempt = next.attempts,
                            "{}: {}; tried again later",
                            error.code,
                            error.message
                        );
                        write_json(&beside(&path, RETRY), &next)?;
                        continue;
                    }
                    (None, Some(error))
                }
            };
            let _ = std::fs::remove_file(beside(&path, RETRY));
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A passing failure waits 2 s, 4 s, 8 s, 16 s, then the task is answered with it; an error
    /// that will not pass is answered at once.
    #[test]
    fn a_passing_failure_is_tried_again_with_a_doubling_pause_then_answered() {
        let locked = ErrorPayload::new("COMMIT_FAILED", "the file is locked");
        let mut waits = Vec::new();
        let mut retry: Option<TaskRetry> = None;
        while let Some(next) = TaskRetry::after(retry.as_ref(), &locked, 1_000) {
            waits.push(next.next_at_ms - 1_000);
            retry = Some(next);
        }
        assert_eq!(waits, [2_000, 4_000, 8_000, 16_000]);
        assert_eq!(retry.unwrap().attempts, TASK_ATTEMPTS - 1);
        let wrong = ErrorPayload::new("INVALID_PLAN", "no such tool");
        assert_eq!(TaskRetry::after(None, &wrong, 1_000), None);
    }
}
