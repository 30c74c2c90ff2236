//! Saved workflows (issue 21, seed 003/004) on the engine: save a committed run as a workflow
//! skill, suggest the tool sequences people repeat (mined from the audit log), and rank the
//! workflows and skills that fit a request (the top five, with scores). The CLI and the app
//! both call these.

use std::path::Path;

use serde::Serialize;
use skills::{SKILL_FILE, WorkflowSuggestion};

use crate::error::{EngineError, Result};
use crate::{Engine, Notice, authoring};

/// Runs of the same tool sequence it takes before it is offered as a workflow (seed 003 mines
/// "three or more times").
pub const MIN_REPEATED_RUNS: usize = 3;

/// How many workflows and skills a match lists.
pub const TOP_MATCHES: usize = 5;

/// A workflow written from a run.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WorkflowSaved {
    pub name: String,
    /// Its SKILL.md.
    pub path: String,
    pub run_id: String,
    pub request: String,
    pub triggers: Vec<String>,
    /// `skill/tool` of each step.
    pub steps: Vec<String>,
    /// The folder it acted on: the `{path}` parameter's default.
    pub folder: String,
    pub postconditions: Vec<String>,
}

/// One row of a request's matches: a saved workflow (by its best trigger) or a skill's tool.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RequestMatch {
    /// `workflow` or `skill`.
    pub kind: String,
    pub name: String,
    /// The tool, for a skill.
    pub tool: Option<String>,
    pub score: f32,
    /// For a workflow: the trigger, and whether the request runs it (`runs`).
    pub trigger: Option<String>,
    pub runs: bool,
    pub slots: std::collections::BTreeMap<String, String>,
    pub problem: Option<String>,
}

impl Engine {
    fn audit_entries(&self) -> Result<Vec<audit::Entry>> {
        Ok(audit::AuditStore::connect(&self.config().audit_db())?.entries()?)
    }

    /// The run `id` names (a unique prefix of its id) as the audit log recorded it.
    fn executed_run(&self, id: &str) -> Result<contracts::ExecutedRun> {
        let runs = audit::executed_runs(&self.audit_entries()?);
        let found: Vec<&contracts::ExecutedRun> =
            runs.iter().filter(|r| r.run_id.starts_with(id)).collect();
        match found.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(pipeline::PipelineError::RunNotFound(id.to_owned()).into()),
            many => Err(pipeline::PipelineError::RunAmbiguous {
                id: id.to_owned(),
                runs: many.iter().map(|r| r.run_id.clone()).collect(),
            }
            .into()),
        }
    }

    /// Writes run `run_id`'s plan (as committed) as the workflow skill `name`, loads and embeds
    /// it. Refuses a run that committed nothing, an undo, and a name already taken.
    pub fn save_workflow(&self, run_id: &str, name: &str) -> Result<WorkflowSaved> {
        let run = self.executed_run(run_id)?;
        let refuse = |why: &str| EngineError::Coded {
            code: "WORKFLOW_NOT_SAVABLE".into(),
            message: format!("run {} cannot be saved as a workflow: {why}", run.run_id),
        };
        if run.undo {
            return Err(refuse("it undid another run"));
        }
        if !run.committed {
            return Err(refuse(
                "it committed no change (declined, a dry run, or failed)",
            ));
        }
        if run.steps.is_empty() {
            return Err(refuse("none of its steps ran"));
        }
        let folder = self.skills_dir().join(skill_folder_name(name)?);
        if folder.exists() {
            return Err(EngineError::Coded {
                code: "SKILL_EXISTS".into(),
                message: format!("a skill named `{name}` already exists; choose another name"),
            });
        }
        let mut core = self.busy_or_lock()?;
        let saved =
            skills::workflow_from_run(name, &run.request, &run.run_id, &run.steps, &core.store);
        let file = folder.join(SKILL_FILE);
        // Checked before anything is written: the file must load.
        let (_, diagnostics) = skills::check_skill_md(&saved.skill_md, &file, core.store.table());
        let errors: Vec<skills::Diagnostic> = diagnostics
            .into_iter()
            .filter(skills::Diagnostic::is_error)
            .collect();
        if !errors.is_empty() {
            return Err(skills::SkillError::Invalid(errors).into());
        }
        write_new(&folder, &file, &saved.skill_md)?;
        let core_ref = &mut *core;
        let reloaded = authoring::reload(&mut core_ref.store, &mut core_ref.retrieval, &folder);
        self.skill_count.store(
            crate::capabilities(&core.store),
            std::sync::atomic::Ordering::Relaxed,
        );
        drop(core);
        self.emit(Notice::SkillsChanged {
            name: reloaded.name.clone(),
            outcome: reloaded.outcome.clone(),
            reembedded: reloaded.reembedded,
            documents: reloaded.documents,
            diagnostics: reloaded.diagnostics.clone(),
        });
        let folder_param = saved
            .workflow
            .parameters
            .iter()
            .find(|p| p.name == "path")
            .and_then(|p| p.default.clone())
            .unwrap_or_else(|| ".".into());
        Ok(WorkflowSaved {
            name: saved.name,
            path: file.display().to_string(),
            run_id: run.run_id,
            request: run.request,
            triggers: saved.triggers,
            steps: saved
                .workflow
                .steps
                .iter()
                .map(|s| format!("{}/{}", s.skill, s.tool))
                .collect(),
            folder: folder_param,
            postconditions: saved
                .workflow
                .postconditions
                .iter()
                .map(|c| format!("{} on {}", c.check.name(), c.path.as_deref().unwrap_or(".")))
                .collect(),
        })
    }

    /// Tool sequences committed in at least [`MIN_REPEATED_RUNS`] runs that no saved workflow
    /// covers yet, the most frequent first.
    pub fn suggest_workflows(&self) -> Result<Vec<WorkflowSuggestion>> {
        let runs = audit::executed_runs(&self.audit_entries()?);
        let core = self.busy_or_lock()?;
        let saved: Vec<Vec<String>> = core
            .store
            .skills()
            .filter_map(|s| s.definition.workflow.as_ref())
            .map(|w| {
                w.steps
                    .iter()
                    .map(|s| format!("{}/{}", s.skill, s.tool))
                    .collect()
            })
            .collect();
        Ok(skills::suggest_workflows(&runs, MIN_REPEATED_RUNS, &saved))
    }

    /// The workflows and skills that fit `text` best (at most [`TOP_MATCHES`]): a workflow whose
    /// trigger the request says whole first (it is what a run would do), then by score. `root`
    /// names the folder the request is about (its folders are what a `{path}` may name).
    pub fn match_request(&self, text: &str, root: Option<&Path>) -> Result<Vec<RequestMatch>> {
        let (root_name, entries) = match root {
            Some(root) => {
                let sandbox = crate::Ledger::new(self.config())
                    .open_sandbox(root, &sandbox::ScanOptions::default())?;
                pipeline::grounding(&sandbox)
            }
            None => (None, Vec::new()),
        };
        let request = thinker::PlanRequest {
            text: text.to_owned(),
            root_name,
            entries,
            learned: Vec::new(),
        };
        let core = self.busy_or_lock()?;
        let mut rows: Vec<RequestMatch> = thinker::match_workflows(&request, &core.store)
            .into_iter()
            .filter(|m| m.score > 0.0)
            .map(|m| RequestMatch {
                kind: "workflow".into(),
                name: m.name,
                tool: None,
                score: m.score,
                trigger: Some(m.trigger),
                runs: m.exact,
                slots: m.slots,
                problem: m.problem,
            })
            .collect();
        let ranking = core.retrieval.match_skill(text)?;
        // Each skill by its best tool.
        let best = ranking.top().into_iter().chain(ranking.runner_ups());
        rows.extend(best.map(|h| RequestMatch {
            kind: "skill".into(),
            name: h.skill.clone(),
            tool: Some(h.tool.clone()),
            score: h.score,
            trigger: None,
            runs: false,
            slots: Default::default(),
            problem: None,
        }));
        rows.sort_by(|a, b| {
            (b.runs, b.score)
                .partial_cmp(&(a.runs, a.score))
                .unwrap_or(std::cmp::Ordering::Equal)
        });
        rows.truncate(TOP_MATCHES);
        Ok(rows)
    }
}

/// A new skill's folder name: lowercase letters, digits and hyphens (as SKILL.md names are).
fn skill_folder_name(name: &str) -> Result<&str> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-');
    if ok {
        Ok(name)
    } else {
        Err(EngineError::Coded {
            code: "BAD_SKILL_NAME".into(),
            message: format!(
                "`{name}` is not a skill name: use lowercase letters, digits and hyphens (at most 64), such as tidy-downloads"
            ),
        })
    }
}

/// Creates `folder` and writes `file` in it (through a temporary name; never over a file).
fn write_new(folder: &Path, file: &Path, text: &str) -> Result<()> {
    let failed = |e: std::io::Error| EngineError::Write {
        path: file.display().to_string(),
        message: e.to_string(),
    };
    std::fs::create_dir(folder).map_err(failed)?;
    let tmp = folder.join(format!(".{SKILL_FILE}.saving"));
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, file))
        .map_err(|e| {
            let _ = std::fs::remove_file(&tmp);
            let _ = std::fs::remove_dir(folder);
            failed(e)
        })
}
