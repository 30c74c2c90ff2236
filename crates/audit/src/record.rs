//! The audit records of seed 000: a request is a `Task`, its plan steps are sub-tasks, each
//! primitive call is a `CapTask`. Hashes are SHA-256 over a canonical serialisation; a sub-task
//! links to its parent by `previous_hash`. Pure: no IO.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::{AuditError, Result};

/// Lines kept in `CapTask::result` (the full text stays in `full_result`).
pub const RESULT_LINES: usize = 500;

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// Lower-case hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

/// The canonical serialisation hashes are taken over: JSON with object keys sorted, no spaces.
pub fn canonical_json(value: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let sorted: BTreeMap<&String, Value> =
                    m.iter().map(|(k, v)| (k, sort(v))).collect();
                Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    #[default]
    Created,
    Subtasking,
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub enum CapStatus {
    #[default]
    #[serde(rename = "created")]
    Created,
    Processed,
    Error,
}

/// A request (or one plan step, as a sub-task of the request).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Task {
    pub system_prompt: String,
    pub prompt_list: Vec<String>,
    /// The capabilities (skill/tool names) the task needs.
    pub capacity: Vec<String>,
    pub status: TaskStatus,
    pub approval: bool,
    pub additional: BTreeMap<String, String>,
    pub previous_hash: Option<String>,
    pub hash: String,
    pub sub_tasks: Vec<Task>,
    pub cap_tasks: Vec<CapTask>,
    pub created_at: String,
    pub updated_at: String,
}

impl Task {
    pub fn new(system_prompt: impl Into<String>, prompt_list: Vec<String>) -> Task {
        let mut t = Task {
            system_prompt: system_prompt.into(),
            prompt_list,
            approval: true,
            ..Task::default()
        };
        t.rehash();
        t
    }

    /// SHA-256 of (previous_hash, system_prompt, prompt_list, capacity), canonically serialised.
    pub fn compute_hash(&self) -> String {
        let v = serde_json::json!({
            "previous_hash": self.previous_hash,
            "system_prompt": self.system_prompt,
            "prompt_list": self.prompt_list,
            "capacity": self.capacity,
        });
        sha256_hex(canonical_json(&v).as_bytes())
    }

    pub fn rehash(&mut self) {
        self.hash = self.compute_hash();
    }

    /// Adds `child` under this task: its `previous_hash` becomes this task's hash.
    pub fn add_subtask(&mut self, mut child: Task) {
        child.previous_hash = Some(self.hash.clone());
        child.rehash();
        self.sub_tasks.push(child);
    }

    /// Adds a call of a capability to this task.
    pub fn add_cap_task(&mut self, mut cap: CapTask) {
        cap.task_hash = Some(self.hash.clone());
        cap.rehash();
        self.cap_tasks.push(cap);
    }

    /// Every hash in the tree is what its content says, and every child links to its parent.
    pub fn verify_hash_chain(&self) -> bool {
        self.hash == self.compute_hash()
            && self.sub_tasks.iter().all(|c| {
                c.previous_hash.as_deref() == Some(self.hash.as_str()) && c.verify_hash_chain()
            })
            && self.cap_tasks.iter().all(|c| {
                c.task_hash.as_deref() == Some(self.hash.as_str()) && c.hash == c.compute_hash()
            })
    }

    /// The status of the most recently updated node of the tree (this task or any descendant).
    pub fn get_latest_status(&self) -> String {
        let mut best = (self.updated_at.clone(), status_name(self.status));
        for c in &self.cap_tasks {
            if c.updated_at > best.0 {
                best = (c.updated_at.clone(), cap_status_name(c.status));
            }
        }
        for s in &self.sub_tasks {
            let (at, status) = (s.latest_update(), s.get_latest_status());
            if at > best.0 {
                best = (at, status);
            }
        }
        best.1
    }

    fn latest_update(&self) -> String {
        let mut at = self.updated_at.clone();
        for c in &self.cap_tasks {
            at = at.max(c.updated_at.clone());
        }
        for s in &self.sub_tasks {
            at = at.max(s.latest_update());
        }
        at
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a task serialises")
    }

    pub fn from_json(text: &str) -> Result<Task> {
        serde_json::from_str(text).map_err(|e| AuditError::Format(format!("task JSON: {e}")))
    }

    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).expect("a task serialises")
    }

    pub fn from_yaml(text: &str) -> Result<Task> {
        serde_yaml::from_str(text).map_err(|e| AuditError::Format(format!("task YAML: {e}")))
    }
}

fn status_name(s: TaskStatus) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

fn cap_status_name(s: CapStatus) -> String {
    serde_json::to_value(s)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// One invocation of a capability (a primitive call).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct CapTask {
    /// `skill/tool` of the call.
    pub cap_name: String,
    pub args: Vec<Value>,
    pub hash: String,
    pub task_hash: Option<String>,
    pub approval: bool,
    pub status: CapStatus,
    pub full_result: String,
    /// The first [`RESULT_LINES`] lines of `full_result`.
    pub result: String,
    pub created_at: String,
    pub updated_at: String,
}

impl CapTask {
    pub fn new(cap_name: impl Into<String>, args: Vec<Value>) -> CapTask {
        let mut c = CapTask {
            cap_name: cap_name.into(),
            args,
            approval: true,
            ..CapTask::default()
        };
        c.rehash();
        c
    }

    /// SHA-256 of (task_hash, cap_name, args, created_at).
    pub fn compute_hash(&self) -> String {
        let v = serde_json::json!({
            "task_hash": self.task_hash,
            "cap_name": self.cap_name,
            "args": self.args,
            "created_at": self.created_at,
        });
        sha256_hex(canonical_json(&v).as_bytes())
    }

    pub fn rehash(&mut self) {
        self.hash = self.compute_hash();
    }

    /// Records the outcome; `result` keeps the first [`RESULT_LINES`] lines.
    pub fn set_result(&mut self, full_result: impl Into<String>, status: CapStatus) {
        self.full_result = full_result.into();
        self.result = first_lines(&self.full_result, RESULT_LINES);
        self.status = status;
    }
}

/// The first `n` lines of `text`.
pub fn first_lines(text: &str, n: usize) -> String {
    text.split_inclusive('\n').take(n).collect::<String>()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let v = serde_json::json!({"b": 1, "a": {"d": [ {"z": 1, "y": 2} ], "c": null}});
        assert_eq!(
            canonical_json(&v),
            r#"{"a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}"#
        );
    }

    #[test]
    fn subtasks_chain_to_their_parent_and_tampering_breaks_it() {
        let mut root = Task::new("plan", vec!["remove duplicates".into()]);
        root.add_subtask(Task::new("step 1", vec!["scan".into()]));
        let mut cap = CapTask::new(
            "remove-duplicates/scan",
            vec![serde_json::json!({"path": "."})],
        );
        cap.set_result("line\n".repeat(600), CapStatus::Processed);
        assert_eq!(cap.result.lines().count(), RESULT_LINES);
        root.sub_tasks[0].add_cap_task(cap);
        assert_eq!(
            root.sub_tasks[0].previous_hash.as_deref(),
            Some(root.hash.as_str())
        );
        assert!(root.verify_hash_chain());

        let mut edited = root.clone();
        edited.sub_tasks[0].prompt_list[0] = "delete everything".into();
        assert!(!edited.verify_hash_chain());
        let mut relinked = root.clone();
        relinked.sub_tasks[0].previous_hash = Some("0".repeat(64));
        assert!(!relinked.verify_hash_chain());
        let mut cap_edited = root.clone();
        cap_edited.sub_tasks[0].cap_tasks[0].args = vec![serde_json::json!({"path": "/"})];
        assert!(!cap_edited.verify_hash_chain());
    }

    #[test]
    fn json_and_yaml_round_trip_and_latest_status() {
        let mut root = Task::new("plan", vec!["zip the reports".into()]);
        root.updated_at = "2026-01-01T00:00:00Z".into();
        let mut step = Task::new("step 1", vec![]);
        step.status = TaskStatus::Done;
        step.updated_at = "2026-01-01T00:00:05Z".into();
        root.add_subtask(step);
        let mut cap = CapTask::new("archive-files/create", vec![]);
        cap.set_result("failed", CapStatus::Error);
        cap.updated_at = "2026-01-01T00:00:09Z".into();
        root.sub_tasks[0].add_cap_task(cap);
        assert_eq!(Task::from_json(&root.to_json()).unwrap(), root);
        assert_eq!(Task::from_yaml(&root.to_yaml()).unwrap(), root);
        assert_eq!(root.get_latest_status(), "Error");
        assert!(Task::from_json("{").is_err());
    }
}
