//! Hot reload: a `notify` watcher on the skills directory reports which skill folders changed
//! (debounced), and [`apply_skill_change`] reloads that one skill and re-embeds only it. A broken
//! edit keeps the last good version and reports its diagnostics.

use std::path::{Component, Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};
use serde::Serialize;
use skills::{ReloadOutcome, SkillStore};

use crate::pipeline::RetrievalPipeline;
use crate::{Result, RetrievalError};

/// Quiet time that ends a burst of file events (editors write, rename and chmod in quick succession).
pub const DEBOUNCE: Duration = Duration::from_millis(150);

/// Watches a skills directory recursively.
#[derive(Debug)]
pub struct SkillWatcher {
    _watcher: RecommendedWatcher,
    rx: mpsc::Receiver<PathBuf>,
    dir: PathBuf,
}

/// The skill folder (direct child of `dir`) that `path` lies in.
fn skill_folder(dir: &Path, path: &Path) -> Option<PathBuf> {
    let rel = path.strip_prefix(dir).ok()?;
    match rel.components().next()? {
        Component::Normal(name) if !name.to_string_lossy().starts_with('.') => Some(dir.join(name)),
        _ => None,
    }
}

impl SkillWatcher {
    pub fn start(dir: &Path) -> Result<Self> {
        let dir = dir.canonicalize().map_err(|e| RetrievalError::Watch {
            path: dir.into(),
            message: e.to_string(),
        })?;
        let (tx, rx) = mpsc::channel();
        let root = dir.clone();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(event) = res {
                if matches!(event.kind, EventKind::Access(_)) {
                    return;
                }
                for p in &event.paths {
                    if let Some(folder) = skill_folder(&root, p) {
                        let _ = tx.send(folder);
                    }
                }
            }
        })
        .map_err(|e| RetrievalError::Watch {
            path: dir.clone(),
            message: e.to_string(),
        })?;
        watcher
            .watch(&dir, RecursiveMode::Recursive)
            .map_err(|e| RetrievalError::Watch {
                path: dir.clone(),
                message: e.to_string(),
            })?;
        Ok(SkillWatcher {
            _watcher: watcher,
            rx,
            dir,
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Waits up to `timeout` for a change, then gathers the burst; returns the changed skill
    /// folders (empty on timeout).
    pub fn next_changes(&self, timeout: Duration) -> Vec<PathBuf> {
        self.next_burst(timeout)
            .map(|b| b.folders)
            .unwrap_or_default()
    }

    /// Like [`next_changes`](Self::next_changes), with the moment the burst's first event arrived.
    pub fn next_burst(&self, timeout: Duration) -> Option<Burst> {
        let first = self.rx.recv_timeout(timeout).ok()?;
        let started = Instant::now();
        let mut folders = vec![first];
        while let Ok(p) = self.rx.recv_timeout(DEBOUNCE) {
            if !folders.contains(&p) {
                folders.push(p);
            }
        }
        Some(Burst { started, folders })
    }
}

/// A burst of file events: the skill folders it touched and when it began.
#[derive(Debug, Clone)]
pub struct Burst {
    pub started: Instant,
    pub folders: Vec<PathBuf>,
}

/// What a hot reload of one skill folder did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum HotReload {
    /// Loaded; `documents` were re-embedded (0 when nothing embeddable changed).
    Reloaded { skill: String, documents: usize },
    /// The edit is broken: the previous version stays active.
    KeptPrevious {
        skill: String,
        diagnostics: Vec<String>,
    },
    /// A new folder that does not load.
    Rejected {
        folder: PathBuf,
        diagnostics: Vec<String>,
    },
    /// The skill was deleted.
    Removed { skill: String },
}

/// Reloads the skill in `folder` into `store` and re-embeds only that skill.
pub fn apply_skill_change(
    store: &mut SkillStore,
    pipeline: &mut RetrievalPipeline,
    folder: &Path,
) -> Result<HotReload> {
    let text = |d: Vec<skills::Diagnostic>| d.iter().map(ToString::to_string).collect();
    Ok(match store.reload(folder) {
        ReloadOutcome::Loaded { name, .. } => {
            let documents = pipeline.hot_reload(store, &name)?;
            HotReload::Reloaded {
                skill: name,
                documents,
            }
        }
        ReloadOutcome::KeptPrevious { name, diagnostics } => HotReload::KeptPrevious {
            skill: name,
            diagnostics: text(diagnostics),
        },
        ReloadOutcome::Rejected { diagnostics } => HotReload::Rejected {
            folder: folder.to_owned(),
            diagnostics: text(diagnostics),
        },
        ReloadOutcome::Removed { name } => {
            pipeline.hot_reload(store, &name)?;
            HotReload::Removed { skill: name }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_map_to_their_skill_folder() {
        let d = Path::new("/s");
        assert_eq!(
            skill_folder(d, Path::new("/s/zip/SKILL.md")),
            Some(PathBuf::from("/s/zip"))
        );
        assert_eq!(skill_folder(d, Path::new("/s/.git/index")), None);
        assert_eq!(skill_folder(d, Path::new("/other/x")), None);
    }
}
