//! Scope enforcement: every path argument is normalised and must stay inside the working root.
//!
//! Pure: symlinks are judged from what the scan recorded in the graph, never by following them.

use std::path::{Component, Path, PathBuf};

use contracts::ErrorCode;

use crate::graph::FileSystemGraph;
use crate::node::{NodeKind, ROOT_ID, join, parent_of};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScopeError {
    #[error("`{path}` is outside the working root {root}")]
    OutsideRoot { path: String, root: String },
    #[error("`{path}` climbs above the working root with `..`")]
    ParentEscape { path: String },
    #[error(
        "`{path}` goes through the symlink `{link}`, which leads outside the working root (to {target})"
    )]
    SymlinkEscape {
        path: String,
        link: String,
        target: String,
    },
    #[error("`{path}` goes through too many symlinks (a loop?)")]
    SymlinkLoop { path: String },
    #[error("`{path}` is not a usable path: {reason}")]
    Invalid { path: String, reason: String },
}

impl ErrorCode for ScopeError {
    fn code(&self) -> &'static str {
        "SCOPE_VIOLATION"
    }
}

/// The scope boundary of one sandbox.
#[derive(Debug, Clone)]
pub struct Scope {
    root: PathBuf,
    home: Option<PathBuf>,
}

const MAX_SYMLINK_HOPS: usize = 32;

impl Scope {
    /// `root` must be absolute and canonical (the sandbox canonicalises it once at open).
    pub fn new(root: PathBuf, home: Option<PathBuf>) -> Self {
        Scope { root, home }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute disk path of a node id.
    pub fn disk_path(&self, id: &str) -> PathBuf {
        if id == ROOT_ID {
            self.root.clone()
        } else {
            self.root.join(id)
        }
    }

    /// Normalises a path argument to a node id inside the root.
    ///
    /// Accepts ids (`a/b.txt`), absolute paths inside the root, `~/...`, and the root's own name as
    /// a first component (`Downloads/x` when the root is `~/Downloads` and has no `Downloads` child).
    pub fn resolve(&self, arg: &str, graph: &FileSystemGraph) -> Result<String, ScopeError> {
        let invalid = |reason: &str| ScopeError::Invalid {
            path: arg.to_owned(),
            reason: reason.to_owned(),
        };
        if arg.contains('\0') {
            return Err(invalid("contains a NUL byte"));
        }
        let trimmed = arg.trim();
        let expanded: PathBuf = match (trimmed.strip_prefix('~'), &self.home) {
            (Some(rest), Some(home)) if rest.is_empty() || rest.starts_with('/') => {
                home.join(rest.trim_start_matches('/'))
            }
            _ => PathBuf::from(trimmed),
        };
        let relative: PathBuf = if expanded.is_absolute() {
            let normal = normalize_absolute(&expanded).ok_or_else(|| ScopeError::ParentEscape {
                path: arg.to_owned(),
            })?;
            match normal.strip_prefix(&self.root) {
                Ok(rest) => rest.to_path_buf(),
                Err(_) => {
                    return Err(ScopeError::OutsideRoot {
                        path: arg.to_owned(),
                        root: self.root.display().to_string(),
                    });
                }
            }
        } else {
            expanded.clone()
        };

        let mut parts: Vec<String> = Vec::new();
        for comp in relative.components() {
            match comp {
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        return Err(ScopeError::ParentEscape {
                            path: arg.to_owned(),
                        });
                    }
                }
                Component::Normal(s) => parts.push(
                    s.to_str()
                        .ok_or_else(|| invalid("is not valid UTF-8"))?
                        .to_owned(),
                ),
                Component::RootDir | Component::Prefix(_) => {
                    return Err(invalid("unexpected root component"));
                }
            }
        }
        // "Downloads/x" when the root *is* Downloads.
        if let Some(first) = parts.first()
            && !expanded.is_absolute()
            && self.root.file_name().and_then(|n| n.to_str()) == Some(first.as_str())
            && !graph.contains(first)
        {
            parts.remove(0);
        }
        self.follow_symlinks(arg, parts, graph)
    }

    /// Walks the components; a symlink in the middle of the path is replaced by its target if that
    /// target stays inside the root, and refused otherwise. A symlink as the last component is the
    /// link itself (operations act on the link, not what it points to).
    fn follow_symlinks(
        &self,
        arg: &str,
        mut parts: Vec<String>,
        graph: &FileSystemGraph,
    ) -> Result<String, ScopeError> {
        let mut hops = 0;
        'restart: loop {
            let mut id = ROOT_ID.to_owned();
            for i in 0..parts.len() {
                id = join(&id, &parts[i]);
                let is_last = i + 1 == parts.len();
                let Some(node) = graph.node(&id) else {
                    continue;
                };
                if node.kind != NodeKind::Symlink || is_last {
                    continue;
                }
                hops += 1;
                if hops > MAX_SYMLINK_HOPS {
                    return Err(ScopeError::SymlinkLoop {
                        path: arg.to_owned(),
                    });
                }
                let target_text = node.link_target.clone().unwrap_or_default();
                let escape = || ScopeError::SymlinkEscape {
                    path: arg.to_owned(),
                    link: id.clone(),
                    target: target_text.clone(),
                };
                let target = Path::new(&target_text);
                let base = self.disk_path(parent_of(&id).unwrap_or(ROOT_ID));
                let absolute = normalize_absolute(&base.join(target)).ok_or_else(escape)?;
                let inner = absolute.strip_prefix(&self.root).map_err(|_| escape())?;
                let mut replaced: Vec<String> = Vec::new();
                for c in inner.components() {
                    if let Component::Normal(s) = c {
                        replaced.push(s.to_str().ok_or_else(escape)?.to_owned());
                    }
                }
                replaced.extend(parts.drain(i + 1..));
                parts = replaced;
                continue 'restart;
            }
            return Ok(id);
        }
    }
}

/// Lexically resolves `.` and `..` in an absolute path; `None` if `..` climbs above `/`.
pub fn normalize_absolute(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    Some(out)
}
