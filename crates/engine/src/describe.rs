//! Self-describing skills (seed 002): writing each skill's `descriptions.json` (every tool's
//! summary, example requests and tags) by the Thinker when a model plans, else derived from the
//! SKILL.md, then reloading and re-embedding that skill. The app does it on its own when a
//! SKILL.md changes and a model is configured; `scope-weaver skills describe` on request.

use std::collections::BTreeMap;
use std::time::Instant;

use contracts::ToolDescription;
use serde::Serialize;
use skills::{DERIVED, SKILL_FILE, TEMPLATE_DIR};
use thinker::PlanControl;

use crate::{Engine, EngineError, Result, authoring, lock};

/// What describing one skill did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkillDescribed {
    pub name: String,
    /// `written` | `current` (already described by a model, or derived and no model to do
    /// better: nothing written) | `skipped` (no tools to describe).
    pub outcome: String,
    /// `derived` or the model's name.
    pub generated_by: String,
    pub tools: usize,
    /// Tools the model could not describe (their derived description was written), with why.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    pub seconds: f64,
}

impl Engine {
    /// Describes the named skills (every skill when `names` is empty) and writes each one's
    /// `descriptions.json`. A skill already described by a model for its present SKILL.md, or
    /// derived while no model is configured, is left as it is unless `force`.
    pub fn describe_skills(&self, names: &[String], force: bool) -> Result<Vec<SkillDescribed>> {
        let names: Vec<String> = if names.is_empty() {
            let core = self.busy_or_lock()?;
            core.store
                .skills()
                .filter(|s| s.dir.file_name().is_none_or(|n| n != TEMPLATE_DIR))
                .map(|s| s.definition.name.clone())
                .collect()
        } else {
            names.to_vec()
        };
        names
            .iter()
            .map(|name| self.describe_skill(name, force))
            .collect()
    }

    /// Describes one skill; holds the core for as long as the model writes.
    pub fn describe_skill(&self, name: &str, force: bool) -> Result<SkillDescribed> {
        let started = Instant::now();
        let mut core = self.busy_or_lock()?;
        let loaded = core
            .store
            .get(name)
            .cloned()
            .ok_or_else(|| EngineError::UnknownSkill(name.to_owned()))?;
        let def = &loaded.definition;
        let mut done = SkillDescribed {
            name: name.to_owned(),
            outcome: "skipped".into(),
            generated_by: loaded.descriptions.generated_by.clone(),
            tools: def.tools.len(),
            failed: Vec::new(),
            seconds: 0.0,
        };
        if def.tools.is_empty() {
            return Ok(done);
        }
        let has_model = self.config().thinker_backend != config::ThinkerBackend::Rule;
        let origin = &loaded.descriptions;
        if !force && (origin.by_model() || (origin.stored && !has_model)) {
            done.outcome = "current".into();
            return Ok(done);
        }
        let derived = skills::derive_descriptions(def, core.store.table());
        let mut tools: BTreeMap<String, ToolDescription> = BTreeMap::new();
        let mut model_name: Option<String> = None;
        for tool in def.tools.keys() {
            let answer = if has_model {
                core.planner
                    .describe_tool(def, tool, &PlanControl::default())
            } else {
                Ok(None)
            };
            let described = match answer {
                Ok(Some(d)) => {
                    model_name = Some(model_file_name(&d.usage.planner));
                    Some(d.description)
                }
                Ok(None) => None,
                Err(e) => {
                    tracing::warn!(skill = name, tool, "describing failed: {e}");
                    done.failed.push(format!("{tool}: {e}"));
                    None
                }
            };
            let fallback = derived.get(tool).cloned().unwrap_or_default();
            tools.insert(tool.clone(), described.unwrap_or(fallback));
        }
        let generated_by = model_name.unwrap_or_else(|| DERIVED.to_owned());
        let file = loaded.dir.join(SKILL_FILE);
        let text = std::fs::read_to_string(&file).map_err(|e| EngineError::Write {
            path: file.display().to_string(),
            message: e.to_string(),
        })?;
        skills::write_descriptions(&loaded.dir, &text, &generated_by, &tools).map_err(|e| {
            EngineError::Write {
                path: loaded
                    .dir
                    .join(skills::DESCRIPTIONS_FILE)
                    .display()
                    .to_string(),
                message: e.to_string(),
            }
        })?;
        let core = &mut *core;
        authoring::reload(&mut core.store, &mut core.retrieval, &loaded.dir);
        done.outcome = "written".into();
        done.generated_by = generated_by;
        done.seconds = started.elapsed().as_secs_f64();
        Ok(done)
    }

    /// After a SKILL.md changed: with a model configured, describes the skill when no stored
    /// description fits this version of it (a stored one, even derived after the model failed, is
    /// not redone, so writing the file cannot start this again). Errors are logged, never raised:
    /// the derived descriptions stand meanwhile.
    pub(crate) fn describe_after_change(&self, name: &str) {
        if self.config().thinker_backend == config::ThinkerBackend::Rule {
            return;
        }
        let stale = {
            let core = lock(&self.core);
            core.store
                .get(name)
                .is_some_and(|s| !s.definition.tools.is_empty() && !s.descriptions.stored)
        };
        if !stale {
            return;
        }
        match self.describe_skill(name, false) {
            Ok(d) => tracing::info!(
                skill = name,
                by = %d.generated_by,
                seconds = d.seconds,
                "skill described"
            ),
            Err(e) => tracing::warn!(skill = name, "describing after a change: {e}"),
        }
    }
}

/// The model's file name from a planner name (`mistralrs:qwen.gguf` → `qwen.gguf`).
fn model_file_name(planner: &str) -> String {
    planner
        .strip_prefix("mistralrs:")
        .unwrap_or(planner)
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_is_named_by_its_file() {
        assert_eq!(model_file_name("mistralrs:qwen.gguf"), "qwen.gguf");
        assert_eq!(model_file_name("other"), "other");
    }
}
