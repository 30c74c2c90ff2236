//! The SKILL.md editor's side of the engine: list the skill folders with their diagnostics, read
//! one, check unsaved text with the real parser, save (then reload and re-embed only that skill,
//! the same path as an external edit), scaffold a new skill, and search skills by description.

use std::path::{Path, PathBuf};

use pipeline::SkillDraft;
use retrieval::{HotReload, RetrievalPipeline};
use serde::Serialize;
use serde_json::Value;
use skills::{Diagnostic, SKILL_FILE, SkillStore, TEMPLATE_DIR};

use crate::error::{EngineError, Result};
use crate::{Engine, Notice};

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ToolInfo {
    pub name: String,
    pub description: String,
    pub mutates: bool,
    /// From the skill's `vis.json` (`tools.<name>.destructive`).
    pub destructive: bool,
    /// What the tool is for in a person's words: summary, example requests, tags.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub described: Option<contracts::ToolDescription>,
}

/// One skill folder as the editor lists it (also when its SKILL.md has errors).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkillInfo {
    /// The folder's name (what the editor opens and saves by).
    pub name: String,
    pub description: String,
    pub path: String,
    pub tags: Vec<String>,
    pub tools: Vec<ToolInfo>,
    pub vis: Option<Value>,
    pub diagnostics: Vec<Diagnostic>,
    /// The skill's own trigger phrases.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<String>,
    /// Set for a saved workflow: its parameters, steps and conditions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<contracts::Workflow>,
    /// Where its tools' descriptions come from (`None` while its SKILL.md does not load).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub descriptions: Option<skills::DescriptionOrigin>,
}

/// A skill's SKILL.md as the editor opens it.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkillSource {
    pub name: String,
    pub path: String,
    pub text: String,
}

/// What saving (or any reload of) a skill folder did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct SkillSaved {
    pub name: String,
    /// `loaded` | `kept_previous` (the edit has errors; the last good version stays in use) |
    /// `rejected` (errors and no previous version) | `removed` | `deferred` (a request is running;
    /// reloaded when it ends).
    pub outcome: String,
    /// Whether the skill's documents were embedded again.
    pub reembedded: bool,
    pub documents: usize,
    pub diagnostics: Vec<Diagnostic>,
    /// Tools the model planner drafted for a new skill (empty: the template's examples).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drafted_tools: Vec<String>,
}

fn table() -> contracts::PrimitiveTable {
    skills::engine_primitive_table(sandbox::graph_primitive_table())
}

/// A skill folder name: one plain path component.
fn folder_name(name: &str) -> Result<&str> {
    let ok = !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
        && !name.starts_with('.');
    if ok {
        Ok(name)
    } else {
        Err(EngineError::UnknownSkill(name.to_owned()))
    }
}

/// Reloads `folder` into the store and re-embeds only that skill.
pub(crate) fn reload(
    store: &mut SkillStore,
    retrieval: &mut RetrievalPipeline,
    folder: &Path,
) -> SkillSaved {
    let name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let diagnostics = std::fs::read_to_string(folder.join(SKILL_FILE))
        .map(|text| skills::check_skill_md(&text, &folder.join(SKILL_FILE), store.table()).1)
        .unwrap_or_default();
    let (outcome, documents) = match retrieval::apply_skill_change(store, retrieval, folder) {
        Ok(HotReload::Reloaded { documents, .. }) => ("loaded", documents),
        Ok(HotReload::KeptPrevious { .. }) => ("kept_previous", 0),
        Ok(HotReload::Rejected { .. }) => ("rejected", 0),
        Ok(HotReload::Removed { .. }) => ("removed", 0),
        Err(e) => {
            tracing::warn!("reloading {}: {e}", folder.display());
            ("rejected", 0)
        }
    };
    SkillSaved {
        name,
        outcome: outcome.to_owned(),
        reembedded: documents > 0,
        documents,
        diagnostics,
        drafted_tools: Vec::new(),
    }
}

impl Engine {
    fn skill_folder(&self, name: &str) -> Result<PathBuf> {
        let folder = self.skills_dir.join(folder_name(name)?);
        if folder.join(SKILL_FILE).is_file() {
            Ok(folder)
        } else {
            Err(EngineError::UnknownSkill(name.to_owned()))
        }
    }

    /// Every skill folder (not the template), read from disk with its diagnostics.
    pub fn skills_list(&self) -> Result<Vec<SkillInfo>> {
        let table = table();
        let mut folders: Vec<PathBuf> = std::fs::read_dir(&self.skills_dir)
            .map_err(|e| EngineError::Write {
                path: self.skills_dir.display().to_string(),
                message: e.to_string(),
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.join(SKILL_FILE).is_file())
            .filter(|p| p.file_name().is_some_and(|n| n != TEMPLATE_DIR))
            .collect();
        folders.sort();
        Ok(folders
            .iter()
            .map(|folder| {
                let (loaded, diagnostics) = skills::load_folder(folder, &table);
                let name = folder
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let path = folder.join(SKILL_FILE).display().to_string();
                match loaded {
                    Some(skill) => {
                        let vis = skill.vis.clone();
                        let destructive = |tool: &str| {
                            vis.as_ref()
                                .and_then(|v| v.pointer(&format!("/tools/{tool}/destructive")))
                                .and_then(Value::as_bool)
                                .unwrap_or(false)
                        };
                        let d = &skill.definition;
                        SkillInfo {
                            name,
                            description: d.description.clone(),
                            path,
                            tags: d.tags.clone(),
                            tools: d
                                .tools
                                .values()
                                .map(|t| ToolInfo {
                                    name: t.name.clone(),
                                    description: t.description.clone(),
                                    mutates: t.mutates(),
                                    destructive: destructive(&t.name),
                                    described: t.described.clone(),
                                })
                                .collect(),
                            vis,
                            diagnostics,
                            triggers: d.triggers.clone(),
                            workflow: d.workflow.clone(),
                            descriptions: Some(skill.descriptions.clone()),
                        }
                    }
                    None => SkillInfo {
                        name,
                        description: String::new(),
                        path,
                        tags: Vec::new(),
                        tools: Vec::new(),
                        vis: None,
                        diagnostics,
                        triggers: Vec::new(),
                        workflow: None,
                        descriptions: None,
                    },
                }
            })
            .collect())
    }

    /// The SKILL.md text of skill folder `name`.
    pub fn skill_source(&self, name: &str) -> Result<SkillSource> {
        let file = self.skill_folder(name)?.join(SKILL_FILE);
        let text = std::fs::read_to_string(&file).map_err(|e| EngineError::Write {
            path: file.display().to_string(),
            message: e.to_string(),
        })?;
        Ok(SkillSource {
            name: name.to_owned(),
            path: file.display().to_string(),
            text,
        })
    }

    /// Diagnostics of unsaved SKILL.md text (the real parser and resolver; nothing is written).
    pub fn skill_check(&self, name: &str, text: &str) -> Vec<Diagnostic> {
        let file = self
            .skills_dir
            .join(folder_name(name).unwrap_or("new-skill"))
            .join(SKILL_FILE);
        skills::check_skill_md(text, &file, &table()).1
    }

    /// Writes the SKILL.md (atomically), then reloads and re-embeds only this skill. A broken
    /// edit is saved but the previous version stays in use (`kept_previous`).
    pub fn skill_save(&self, name: &str, text: &str) -> Result<SkillSaved> {
        let folder = self.skill_folder(name)?;
        let file = folder.join(SKILL_FILE);
        let tmp = folder.join(format!(".{SKILL_FILE}.saving"));
        std::fs::write(&tmp, text)
            .and_then(|()| std::fs::rename(&tmp, &file))
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                EngineError::Write {
                    path: file.display().to_string(),
                    message: e.to_string(),
                }
            })?;
        Ok(self
            .reload_when_free(&folder)
            .unwrap_or_else(|| SkillSaved {
                name: name.to_owned(),
                outcome: "deferred".into(),
                reembedded: false,
                documents: 0,
                diagnostics: self.skill_check(name, text),
                drafted_tools: Vec::new(),
            }))
    }

    /// A new skill folder from the template; validated, loaded and embedded at once. A model
    /// planner drafts its tool declarations first; if drafting fails the template's examples stay
    /// and a warning says why.
    pub fn skill_create(&self, name: &str, description: &str) -> Result<SkillSaved> {
        let draft = self.skill_draft(thinker::ToolDraftRequest {
            name: name.to_owned(),
            description: description.to_owned(),
            tags: Vec::new(),
        })?;
        self.skill_create_from(&draft)
    }

    /// A new skill's tools drafted by the loaded planner (none with the rule planner); nothing is
    /// written.
    pub fn skill_draft(&self, request: thinker::ToolDraftRequest) -> Result<SkillDraft> {
        let config = self.config();
        let mut core = self.busy_or_lock()?;
        let core = &mut *core;
        let cx = thinker::PlanningContext {
            skills: &core.store,
            retrieval: &core.retrieval,
            config: &config,
        };
        Ok(pipeline::draft_skill(
            core.planner.as_mut(),
            &cx,
            request,
            &thinker::PlanControl::default(),
        )?)
    }

    /// Where `draft` would be written, after checking that its SKILL.md would load (every
    /// problem at once); nothing is written.
    pub fn skill_preview(&self, draft: &SkillDraft) -> Result<PathBuf> {
        let core = self.busy_or_lock()?;
        let (_, _, errors) = core.store.scaffold_preview(&draft.spec())?;
        if !errors.is_empty() {
            return Err(skills::SkillError::Invalid(errors).into());
        }
        Ok(self.skills_dir.join(&draft.request.name))
    }

    /// Writes `draft` from the template, loads and embeds it, and tells every window.
    pub fn skill_create_from(&self, draft: &SkillDraft) -> Result<SkillSaved> {
        let mut core = self.busy_or_lock()?;
        let core = &mut *core;
        let (created, documents) =
            pipeline::create_skill(&mut core.store, &mut core.retrieval, draft)?;
        self.skill_count.store(
            crate::capabilities(&core.store),
            std::sync::atomic::Ordering::Relaxed,
        );
        let diagnostics = draft
            .warning
            .iter()
            .map(|w| {
                Diagnostic::warning(
                    self.skills_dir.join(&created).join(SKILL_FILE),
                    0,
                    "DRAFT_FAILED",
                    w.clone(),
                )
            })
            .collect();
        let saved = SkillSaved {
            name: created,
            outcome: "loaded".into(),
            reembedded: documents > 0,
            documents,
            diagnostics,
            drafted_tools: draft.tools.iter().map(|t| t.name.clone()).collect(),
        };
        self.emit(Notice::SkillsChanged {
            name: saved.name.clone(),
            outcome: saved.outcome.clone(),
            reembedded: saved.reembedded,
            documents,
            diagnostics: saved.diagnostics.clone(),
        });
        Ok(saved)
    }

    /// Skills and tools ranked for `query` (the SkillIndex: embeddings + BM25).
    pub fn skill_search(&self, query: &str) -> Result<retrieval::SkillRanking> {
        let core = self.busy_or_lock()?;
        Ok(core.retrieval.match_skill(query)?)
    }
}
