//! SkillStore: loads every skill folder of a directory, keeps diagnostics, reloads one skill at a time
//! (keeping the last good version when an edit breaks it), and scaffolds new skills from the template.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use contracts::{ErrorCode, PrimitiveTable, SkillDefinition, ToolDefinition};
use serde_json::Value;

use crate::descriptions::{DERIVED, DescriptionOrigin, attach_descriptions, read_descriptions};
use crate::diagnostic::Diagnostic;
use crate::scaffold::{ScaffoldSpec, scaffold_skill_md, scaffold_vis};

pub const SKILL_FILE: &str = "SKILL.md";
pub const TEMPLATE_DIR: &str = "skill_template";

/// A skill that loaded, with where it lives and its optional extras.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSkill {
    pub definition: SkillDefinition,
    pub dir: PathBuf,
    /// `vis.json`: how the graph window renders this skill's actions.
    pub vis: Option<Value>,
    /// Notes in `errors/`: known failure modes and what to do.
    pub error_notes: Vec<PathBuf>,
    /// Where its tools' descriptions (`ToolDefinition::described`) come from.
    pub descriptions: DescriptionOrigin,
}

impl LoadedSkill {
    pub fn file(&self) -> PathBuf {
        self.dir.join(SKILL_FILE)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum SkillError {
    #[error("cannot read skills directory {path}: {source}")]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("a skill named `{0}` already exists")]
    Exists(String),
    #[error("`{0}` is not a valid skill name: use lowercase letters, digits and hyphens")]
    BadName(String),
    #[error("the template folder {0} is missing")]
    NoTemplate(PathBuf),
    #[error("the new skill does not load:\n{}", .0.iter().map(|d| format!("  {d}")).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<Diagnostic>),
}

impl ErrorCode for SkillError {
    fn code(&self) -> &'static str {
        match self {
            SkillError::Unreadable { .. } => "SKILLS_DIR_UNREADABLE",
            SkillError::Io { .. } => "IO_ERROR",
            SkillError::Exists(_) => "SKILL_EXISTS",
            SkillError::BadName(_) => "BAD_SKILL_NAME",
            SkillError::NoTemplate(_) => "NO_TEMPLATE",
            SkillError::Invalid(_) => "SKILL_INVALID",
        }
    }
}

pub type Result<T, E = SkillError> = std::result::Result<T, E>;

/// What reloading one folder did.
#[derive(Debug, Clone, PartialEq)]
pub enum ReloadOutcome {
    /// Loaded (new or changed); `description_changed` tells whether it must be re-embedded.
    Loaded {
        name: String,
        description_changed: bool,
    },
    /// The edit has errors; the previous version stays in use.
    KeptPrevious {
        name: String,
        diagnostics: Vec<Diagnostic>,
    },
    /// The edit has errors and there was no previous version.
    Rejected { diagnostics: Vec<Diagnostic> },
    /// The folder or its SKILL.md is gone.
    Removed { name: String },
}

#[derive(Debug, Clone)]
pub struct SkillStore {
    dir: PathBuf,
    table: PrimitiveTable,
    skills: BTreeMap<String, LoadedSkill>,
    diagnostics: Vec<Diagnostic>,
}

/// Reads and checks one skill folder. Pure except for reading its files.
pub fn load_folder(
    folder: &Path,
    table: &PrimitiveTable,
) -> (Option<LoadedSkill>, Vec<Diagnostic>) {
    let file = folder.join(SKILL_FILE);
    let text = match std::fs::read_to_string(&file) {
        Ok(t) => t,
        Err(e) => {
            return (
                None,
                vec![Diagnostic::error(
                    &file,
                    0,
                    "UNREADABLE",
                    format!("cannot read: {e}"),
                )],
            );
        }
    };
    let (def, mut diags) = crate::check_skill_md(&text, &file, table);
    let Some(mut def) = def else {
        return (None, diags);
    };
    let (stored, reason, more) = read_descriptions(folder, &text, &def);
    diags.extend(more);
    attach_descriptions(&mut def, stored.as_ref(), table);
    let descriptions = match stored {
        Some(f) => DescriptionOrigin {
            generated_by: f.generated_by,
            stored: true,
            reason: None,
        },
        None => DescriptionOrigin {
            generated_by: DERIVED.to_owned(),
            stored: false,
            reason: Some(reason),
        },
    };
    let folder_name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if folder_name != def.name && folder_name != TEMPLATE_DIR {
        diags.push(Diagnostic::warning(
            &file,
            text.lines()
                .position(|l| l.starts_with("name:"))
                .map_or(1, |i| i + 1),
            "NAME_MISMATCH",
            format!(
                "skill `{}` lives in folder `{folder_name}`; keeping them equal avoids confusion",
                def.name
            ),
        ));
    }
    let vis_path = folder.join("vis.json");
    let vis = match std::fs::read_to_string(&vis_path) {
        Err(_) => None,
        Ok(text) => match serde_json::from_str::<Value>(&text) {
            Ok(v) => {
                if let Some(tools) = v.get("tools").and_then(Value::as_object) {
                    for t in tools.keys().filter(|t| !def.tools.contains_key(*t)) {
                        diags.push(Diagnostic::warning(
                            &vis_path,
                            0,
                            "VIS_UNKNOWN_TOOL",
                            format!("`{t}` is not a tool of `{}`", def.name),
                        ));
                    }
                }
                Some(v)
            }
            Err(e) => {
                diags.push(Diagnostic::warning(
                    &vis_path,
                    e.line(),
                    "BAD_VIS",
                    format!("not valid JSON: {e}"),
                ));
                None
            }
        },
    };
    let mut error_notes: Vec<PathBuf> = std::fs::read_dir(folder.join("errors"))
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md"))
                .collect()
        })
        .unwrap_or_default();
    error_notes.sort();
    (
        Some(LoadedSkill {
            definition: def,
            dir: folder.to_owned(),
            vis,
            error_notes,
            descriptions,
        }),
        diags,
    )
}

impl SkillStore {
    /// Loads every folder of `dir` that holds a SKILL.md. A broken skill is reported and skipped;
    /// it never stops the others. Fails only if `dir` itself cannot be read.
    pub fn load(dir: &Path, table: PrimitiveTable) -> Result<SkillStore> {
        let mut folders: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|source| SkillError::Unreadable {
                path: dir.to_owned(),
                source,
            })?
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| {
                p.is_dir()
                    && !p
                        .file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with('.'))
            })
            .collect();
        folders.sort();
        let mut store = SkillStore {
            dir: dir.to_owned(),
            table,
            skills: BTreeMap::new(),
            diagnostics: Vec::new(),
        };
        for folder in folders {
            if !folder.join(SKILL_FILE).exists() {
                store.diagnostics.push(Diagnostic::warning(
                    &folder,
                    0,
                    "NO_SKILL_FILE",
                    "folder has no SKILL.md; skipped",
                ));
                continue;
            }
            let (skill, diags) = load_folder(&folder, &store.table);
            store.diagnostics.extend(diags);
            if let Some(skill) = skill {
                let name = skill.definition.name.clone();
                if let Some(first) = store.skills.get(&name) {
                    store.diagnostics.push(Diagnostic::error(
                        skill.file(),
                        1,
                        "DUPLICATE_SKILL",
                        format!(
                            "skill `{name}` is already defined in {}; this one is skipped",
                            first.file().display()
                        ),
                    ));
                } else {
                    store.skills.insert(name, skill);
                }
            }
        }
        Ok(store)
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn table(&self) -> &PrimitiveTable {
        &self.table
    }

    /// Every diagnostic of the last full load and of later reloads.
    pub fn diagnostics(&self) -> &[Diagnostic] {
        &self.diagnostics
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    pub fn len(&self) -> usize {
        self.skills.len()
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&LoadedSkill> {
        self.skills.get(name)
    }

    /// Skills by name.
    pub fn skills(&self) -> impl Iterator<Item = &LoadedSkill> {
        self.skills.values()
    }

    pub fn tool(&self, skill: &str, tool: &str) -> Option<(&SkillDefinition, &ToolDefinition)> {
        let s = &self.skills.get(skill)?.definition;
        Some((s, s.tools.get(tool)?))
    }

    /// Re-reads one skill folder (after an edit). A broken edit keeps the last good version.
    pub fn reload(&mut self, folder: &Path) -> ReloadOutcome {
        let previous = self
            .skills
            .iter()
            .find(|(_, s)| s.dir == folder)
            .map(|(n, s)| (n.clone(), s.clone()));
        if !folder.join(SKILL_FILE).exists() {
            if let Some((name, _)) = previous {
                self.skills.remove(&name);
                return ReloadOutcome::Removed { name };
            }
            return ReloadOutcome::Rejected {
                diagnostics: Vec::new(),
            };
        }
        let (skill, diags) = load_folder(folder, &self.table);
        let file = folder.join(SKILL_FILE);
        self.diagnostics
            .retain(|d| d.file != file && !d.file.starts_with(folder));
        self.diagnostics.extend(diags.clone());
        match (skill, previous) {
            (Some(skill), previous) => {
                let name = skill.definition.name.clone();
                let description_changed = previous
                    .as_ref()
                    .is_none_or(|(_, p)| p.definition.description != skill.definition.description);
                if let Some((old_name, _)) = &previous
                    && *old_name != name
                {
                    self.skills.remove(old_name);
                }
                self.skills.insert(name.clone(), skill);
                ReloadOutcome::Loaded {
                    name,
                    description_changed,
                }
            }
            (None, Some((name, _))) => ReloadOutcome::KeptPrevious {
                name,
                diagnostics: diags,
            },
            (None, None) => ReloadOutcome::Rejected { diagnostics: diags },
        }
    }

    /// Creates `<dir>/<name>/` from the template with the given description, loads it, and returns
    /// its name. Refuses an existing name; removes the folder again if it does not load.
    pub fn scaffold(&mut self, name: &str, description: &str, tags: &[String]) -> Result<String> {
        self.scaffold_with(&ScaffoldSpec {
            name,
            description,
            tags,
            tools: &[],
        })
    }

    /// The SKILL.md and `vis.json` a scaffold would write, and the diagnostics of that SKILL.md
    /// (empty when it loads). Reads the template; writes nothing.
    pub fn scaffold_preview(
        &self,
        spec: &ScaffoldSpec,
    ) -> Result<(String, String, Vec<Diagnostic>)> {
        check_skill_name(spec.name)?;
        let template = self.dir.join(TEMPLATE_DIR);
        let text = std::fs::read_to_string(template.join(SKILL_FILE))
            .map_err(|_| SkillError::NoTemplate(template.clone()))?;
        let vis = std::fs::read_to_string(template.join("vis.json")).ok();
        let skill_md = scaffold_skill_md(&text, spec, &self.table);
        let vis = scaffold_vis(vis.as_deref(), spec, &self.table);
        let file = self.dir.join(spec.name).join(SKILL_FILE);
        let (_, diags) = crate::check_skill_md(&skill_md, &file, &self.table);
        let errors = diags
            .into_iter()
            .filter(|d| d.severity == crate::Severity::Error)
            .collect();
        Ok((skill_md, vis, errors))
    }

    /// `scaffold` with drafted tool declarations (`spec.tools`) in place of the template's examples.
    pub fn scaffold_with(&mut self, spec: &ScaffoldSpec) -> Result<String> {
        check_skill_name(spec.name)?;
        let target = self.dir.join(spec.name);
        if self.skills.contains_key(spec.name) || target.exists() {
            return Err(SkillError::Exists(spec.name.to_owned()));
        }
        let template = self.dir.join(TEMPLATE_DIR);
        if !template.join(SKILL_FILE).exists() {
            return Err(SkillError::NoTemplate(template));
        }
        let (skill_md, vis, errors) = self.scaffold_preview(spec)?;
        if !errors.is_empty() {
            return Err(SkillError::Invalid(errors));
        }
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| SkillError::Io { path, source }
        };
        copy_dir(&template, &target).map_err(io(&target))?;
        let file = target.join(SKILL_FILE);
        std::fs::write(&file, skill_md).map_err(io(&file))?;
        let vis_file = target.join("vis.json");
        std::fs::write(&vis_file, vis).map_err(io(&vis_file))?;
        match self.reload(&target) {
            ReloadOutcome::Loaded { name, .. } => Ok(name),
            ReloadOutcome::Rejected { diagnostics }
            | ReloadOutcome::KeptPrevious { diagnostics, .. } => {
                let _ = std::fs::remove_dir_all(&target);
                Err(SkillError::Invalid(diagnostics))
            }
            ReloadOutcome::Removed { .. } => Err(SkillError::Invalid(Vec::new())),
        }
    }
}

/// Lowercase letters, digits and hyphens, at most 64, not starting with a hyphen.
fn check_skill_name(name: &str) -> Result<()> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-');
    if ok {
        Ok(())
    } else {
        Err(SkillError::BadName(name.to_owned()))
    }
}

fn copy_dir(src: &Path, dst: &Path) -> std::io::Result<()> {
    std::fs::create_dir(dst)?;
    for entry in std::fs::read_dir(src)? {
        let entry = entry?;
        let to = dst.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &to)?;
        } else {
            std::fs::copy(entry.path(), to)?;
        }
    }
    Ok(())
}
