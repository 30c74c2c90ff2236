//! Results of dispatching primitives, and the context that threads them across steps.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{ErrorPayload, Reference, ReferenceError};

/// Outcome of checking a step's params against its tool's declaration.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ValidationResult {
    pub valid: bool,
    /// Required params absent from the step.
    pub missing: Vec<String>,
    /// Params present but not declared by the tool.
    pub extra: Vec<String>,
}

/// What one dispatched primitive produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExecutionResult {
    pub ok: bool,
    /// Snapshot taken before this action; rolling back to it undoes the action.
    pub snapshot_id: String,
    /// Method-specific return value; what `$step(n).field` reads.
    pub data: Value,
    pub error: Option<ErrorPayload>,
}

impl ExecutionResult {
    pub fn success(snapshot_id: impl Into<String>, data: Value) -> Self {
        Self {
            ok: true,
            snapshot_id: snapshot_id.into(),
            data,
            error: None,
        }
    }

    pub fn failure(snapshot_id: impl Into<String>, error: ErrorPayload) -> Self {
        Self {
            ok: false,
            snapshot_id: snapshot_id.into(),
            data: Value::Null,
            error: Some(error),
        }
    }
}

/// Where a step stands, as far as later steps referencing it are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Done,
    RolledBack,
    Skipped,
}

/// Results of earlier steps, by 1-based step number; resolves `$step(n).field` references.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PipelineContext {
    pub results: BTreeMap<u32, ExecutionResult>,
    /// Steps that were rolled back or skipped: references to them are `DEPENDENCY_UNAVAILABLE`.
    #[serde(default)]
    pub unavailable: BTreeSet<u32>,
}

impl PipelineContext {
    pub fn record(&mut self, step: u32, result: ExecutionResult) {
        self.unavailable.remove(&step);
        self.results.insert(step, result);
    }

    /// Marks a step as rolled back or skipped; its result is no longer readable.
    pub fn mark_unavailable(&mut self, step: u32) {
        self.results.remove(&step);
        self.unavailable.insert(step);
    }

    pub fn status(&self, step: u32) -> Option<StepStatus> {
        if self.unavailable.contains(&step) {
            Some(StepStatus::RolledBack)
        } else if self.results.contains_key(&step) {
            Some(StepStatus::Done)
        } else {
            None
        }
    }

    /// Resolves one reference string such as `$step(2).groups[0].paths`.
    pub fn resolve(&self, reference: &str) -> Result<Value, ReferenceError> {
        let parsed = Reference::parse(reference)?;
        self.resolve_parsed(&parsed)
    }

    pub fn resolve_parsed(&self, reference: &Reference) -> Result<Value, ReferenceError> {
        if self.unavailable.contains(&reference.step) {
            return Err(ReferenceError::DependencyUnavailable {
                reference: reference.to_string(),
                step: reference.step,
            });
        }
        let result =
            self.results
                .get(&reference.step)
                .ok_or_else(|| ReferenceError::UnknownStep {
                    reference: reference.to_string(),
                    step: reference.step,
                })?;
        if !result.ok {
            return Err(ReferenceError::DependencyUnavailable {
                reference: reference.to_string(),
                step: reference.step,
            });
        }
        reference.select(&result.data)
    }

    /// Replaces every reference inside `params` (recursively) with the value it points to.
    ///
    /// A string that is exactly one reference becomes the referenced value (any JSON type); a
    /// reference embedded in longer text is replaced by the value's text form.
    pub fn resolve_params(
        &self,
        params: &Map<String, Value>,
    ) -> Result<Map<String, Value>, ReferenceError> {
        params
            .iter()
            .map(|(k, v)| Ok((k.clone(), self.resolve_value(v)?)))
            .collect()
    }

    fn resolve_value(&self, value: &Value) -> Result<Value, ReferenceError> {
        Ok(match value {
            Value::String(s) => self.resolve_string(s)?,
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.resolve_value(v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => Value::Object(self.resolve_params(map)?),
            other => other.clone(),
        })
    }

    fn resolve_string(&self, s: &str) -> Result<Value, ReferenceError> {
        let spans = Reference::find_all(s)?;
        match spans.as_slice() {
            [] => Ok(Value::String(s.to_owned())),
            [(range, r)] if range.start == 0 && range.end == s.len() => self.resolve_parsed(r),
            _ => {
                let mut out = String::with_capacity(s.len());
                let mut last = 0;
                for (range, r) in &spans {
                    out.push_str(&s[last..range.start]);
                    match self.resolve_parsed(r)? {
                        Value::String(text) => out.push_str(&text),
                        other => out.push_str(&other.to_string()),
                    }
                    last = range.end;
                }
                out.push_str(&s[last..]);
                Ok(Value::String(out))
            }
        }
    }
}
