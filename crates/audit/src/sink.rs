//! `AuditLog`: the pipeline's `AuditSink` over the SQLite store. A request becomes a `Task`, each
//! plan step a sub-task, each primitive call a `CapTask`; every other event (skill scores and
//! runner-ups, near-miss choices, overrides, rollbacks with snapshot ids, warnings, stage
//! latencies) is an entry of its own. All of them are links of one hash chain.

use std::collections::BTreeMap;

use contracts::{ErrorCode, ErrorPayload};
use pipeline::{AuditSink, Event};
use serde_json::{Value, json};

use crate::record::{CapStatus, CapTask, Task, TaskStatus};
use crate::store::AuditStore;
use crate::{AuditError, Result};

/// Events too frequent to be worth a record each (their content is in other records).
const NOT_RECORDED: &[&str] = &["stage_started", "commit_progress"];

fn now() -> String {
    humantime::format_rfc3339_micros(std::time::SystemTime::now()).to_string()
}

/// The audit log of one process: appends each run's records to the store.
#[derive(Debug)]
pub struct AuditLog {
    store: AuditStore,
    run_id: Option<String>,
    root_hash: Option<String>,
    steps: BTreeMap<u32, String>,
}

impl AuditLog {
    pub fn new(store: AuditStore) -> AuditLog {
        AuditLog {
            store,
            run_id: None,
            root_hash: None,
            steps: BTreeMap::new(),
        }
    }

    pub fn store(&self) -> &AuditStore {
        &self.store
    }

    /// The id of the request being recorded (or last recorded).
    pub fn run_id(&self) -> Option<&str> {
        self.run_id.as_deref()
    }

    fn append(&self, kind: &str, body: &Value) -> Result<()> {
        let run = self.run_id.as_deref().unwrap_or("-");
        self.store.append(run, kind, body).map(|_| ())
    }

    fn status(&self, status: TaskStatus, extra: Value) -> Result<()> {
        let mut body = json!({"task": self.root_hash, "status": status, "at": now()});
        if let (Some(b), Value::Object(extra)) = (body.as_object_mut(), extra) {
            b.extend(extra);
        }
        self.append("status", &body)
    }

    /// Records that run `run_id`'s interrupted commit was finished by a recovery (after a crash or
    /// a kill): the run is done and committed, `applied` changes were written by the recovery.
    pub fn record_recovery(&self, run_id: &str, applied: usize) -> Result<()> {
        let body = json!({
            "status": TaskStatus::Done,
            "committed": true,
            "recovered": true,
            "applied": applied,
            "at": now(),
        });
        self.store.append(run_id, "status", &body).map(|_| ())
    }

    /// Records one event (the `AuditSink` method, with the audit crate's error).
    pub fn record_event(&mut self, event: &Event) -> Result<()> {
        let value =
            serde_json::to_value(event).map_err(|e| AuditError::Format(format!("event: {e}")))?;
        let kind = value["event"].as_str().unwrap_or("event").to_owned();
        match event {
            Event::Request { id, text } => {
                let at = now();
                self.run_id = Some(id.clone());
                self.steps.clear();
                let mut task = Task::new("", vec![text.clone()]);
                task.created_at.clone_from(&at);
                task.updated_at = at;
                self.root_hash = Some(task.hash.clone());
                self.append("task", &serde_json::to_value(&task).expect("task"))
            }
            Event::Planned { plan, .. } => {
                self.append("plan", &value)?;
                let root = self.root_hash.clone().unwrap_or_default();
                self.steps.clear();
                for step in &plan.steps {
                    let mut sub = Task::new(
                        step.description.clone(),
                        vec![Value::Object(step.params.clone()).to_string()],
                    );
                    sub.capacity = vec![format!("{}/{}", step.skill, step.tool)];
                    sub.previous_hash = Some(root.clone());
                    sub.rehash();
                    sub.created_at = now();
                    sub.updated_at.clone_from(&sub.created_at);
                    self.steps.insert(step.step, sub.hash.clone());
                    let mut body = serde_json::to_value(&sub).expect("task");
                    body["step"] = json!(step.step);
                    self.append("subtask", &body)?;
                }
                self.status(TaskStatus::Subtasking, json!({}))
            }
            Event::Dispatched {
                step,
                skill,
                tool,
                params,
                ok,
                ..
            } => {
                let mut cap = CapTask::new(
                    format!("{skill}/{tool}"),
                    vec![Value::Object(params.clone())],
                );
                cap.task_hash = self.steps.get(step).cloned();
                cap.created_at = now();
                cap.updated_at.clone_from(&cap.created_at);
                cap.rehash();
                let mut result = value.clone();
                if let Some(m) = result.as_object_mut() {
                    m.remove("event");
                    m.remove("params");
                }
                let full = serde_json::to_string_pretty(&result).unwrap_or_default();
                cap.set_result(
                    full,
                    if *ok {
                        CapStatus::Processed
                    } else {
                        CapStatus::Error
                    },
                );
                let mut body = serde_json::to_value(&cap).expect("cap task");
                body["step"] = json!(step);
                self.append("cap_task", &body)
            }
            Event::Finished { committed, .. } => {
                self.append(&kind, &value)?;
                self.status(TaskStatus::Done, json!({"committed": committed}))
            }
            Event::Failed { code, message } => {
                self.append(&kind, &value)?;
                self.status(
                    TaskStatus::Done,
                    json!({"error": {"code": code, "message": message}}),
                )
            }
            _ if NOT_RECORDED.contains(&kind.as_str()) => Ok(()),
            _ => self.append(&kind, &value),
        }
    }
}

impl AuditSink for AuditLog {
    fn record(&mut self, event: &Event) -> std::result::Result<(), ErrorPayload> {
        self.record_event(event).map_err(|e| e.to_payload())
    }

    fn learned(&self) -> Vec<contracts::LearnedChoice> {
        self.learned_choices().unwrap_or_else(|e| {
            tracing::warn!("learned choices: {e}");
            Vec::new()
        })
    }
}
