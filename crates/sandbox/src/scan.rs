//! Scanning `working_root` into a FileSystemGraph: a parallel walk that records symlinks without
//! following them and reports unreadable entries instead of failing.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use ignore::{WalkBuilder, WalkState};
use serde::Serialize;

use crate::error::{Result, SandboxError};
use crate::graph::FileSystemGraph;
use crate::node::{Fingerprint, Node, NodeKind, Origin, ROOT_ID};
use crate::params::epoch_secs;

/// Something the scan could not read; the rest of the tree is still scanned.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScanIssue {
    pub path: String,
    pub message: String,
}

/// Options for one scan.
#[derive(Debug, Clone, Default)]
pub struct ScanOptions {
    /// Incremented once per entry seen, for progress display from another thread.
    pub progress: Option<Arc<AtomicUsize>>,
    /// Worker threads; 0 lets the walker choose.
    pub threads: usize,
}

#[derive(Debug)]
pub struct ScanOutput {
    pub graph: FileSystemGraph,
    pub issues: Vec<ScanIssue>,
}

enum Found {
    Node(Node),
    Issue(ScanIssue),
}

/// Reads the disk metadata of one path into a node (no following of symlinks).
pub fn stat_node(root: &Path, path: &Path) -> std::result::Result<Node, ScanIssue> {
    let rel = rel_id(root, path)?;
    let meta = std::fs::symlink_metadata(path).map_err(|e| ScanIssue {
        path: rel.clone(),
        message: e.to_string(),
    })?;
    Ok(node_from_meta(rel, path, &meta))
}

fn rel_id(root: &Path, path: &Path) -> std::result::Result<String, ScanIssue> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    if rel.as_os_str().is_empty() {
        return Ok(ROOT_ID.to_owned());
    }
    match rel.to_str() {
        Some(s) => Ok(s.replace(std::path::MAIN_SEPARATOR, "/")),
        None => Err(ScanIssue {
            path: rel.to_string_lossy().into_owned(),
            message: "name is not valid UTF-8; left alone (the agent cannot address it safely)"
                .into(),
        }),
    }
}

pub(crate) fn fingerprint(meta: &std::fs::Metadata) -> Fingerprint {
    let kind = kind_of(meta);
    let mtime_ns = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_nanos() as i64);
    match kind {
        NodeKind::Dir => Fingerprint {
            kind,
            size: None,
            mtime_ns: None,
        },
        _ => Fingerprint {
            kind,
            size: Some(meta.len()),
            mtime_ns,
        },
    }
}

fn kind_of(meta: &std::fs::Metadata) -> NodeKind {
    let ft = meta.file_type();
    if ft.is_symlink() {
        NodeKind::Symlink
    } else if ft.is_dir() {
        NodeKind::Dir
    } else {
        NodeKind::File
    }
}

fn node_from_meta(id: String, path: &Path, meta: &std::fs::Metadata) -> Node {
    let kind = kind_of(meta);
    let mut node = Node::new(id, kind);
    node.size = if kind == NodeKind::File {
        meta.len()
    } else {
        0
    };
    node.modified_at = meta.modified().ok().map(epoch_secs);
    if kind == NodeKind::Symlink {
        node.link_target = std::fs::read_link(path)
            .ok()
            .map(|t| t.to_string_lossy().into_owned());
    }
    #[cfg(unix)]
    let (inode, nlink) = {
        use std::os::unix::fs::MetadataExt;
        (Some((meta.dev(), meta.ino())), meta.nlink())
    };
    #[cfg(not(unix))]
    let (inode, nlink) = (None, 1);
    node.origin = Some(Origin {
        fingerprint: fingerprint(meta),
        inode,
        nlink,
    });
    if kind == NodeKind::File {
        node.content_from = Some(node.id.clone());
    }
    node
}

/// Scans `root` (which must be a canonical directory path) into a graph.
pub fn scan(root: &Path, options: &ScanOptions) -> Result<ScanOutput> {
    let meta = std::fs::metadata(root).map_err(|e| SandboxError::BadRoot {
        path: root.to_owned(),
        message: e.to_string(),
    })?;
    if !meta.is_dir() {
        return Err(SandboxError::BadRoot {
            path: root.to_owned(),
            message: "not a folder".into(),
        });
    }
    let mut root_node = node_from_meta(ROOT_ID.to_owned(), root, &meta);
    root_node.name = root
        .file_name()
        .map_or_else(|| "/".into(), |n| n.to_string_lossy().into_owned());

    let (tx, rx) = mpsc::channel::<Vec<Found>>();
    let walker = WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(false)
        .follow_links(false)
        .threads(options.threads)
        .build_parallel();
    let root_buf: PathBuf = root.to_owned();
    let progress = options.progress.clone();
    // The graph is built as batches arrive: no list of every node is held beside it.
    let collector = std::thread::spawn(move || {
        let mut graph = FileSystemGraph::new(root_node);
        let mut issues = Vec::new();
        for batch in rx {
            for f in batch {
                match f {
                    Found::Node(n) => graph.add_scanned(n),
                    Found::Issue(i) => issues.push(i),
                }
            }
        }
        graph.link_scanned();
        (graph, issues)
    });
    walker.run(|| {
        let mut batch = Batch::new(tx.clone());
        let root = root_buf.clone();
        let progress = progress.clone();
        Box::new(move |entry| {
            if let Some(p) = &progress {
                p.fetch_add(1, Ordering::Relaxed);
            }
            let (found, state) = match entry {
                Ok(e) if e.depth() == 0 => return WalkState::Continue,
                Ok(e) => match rel_id(&root, e.path()) {
                    // Do not descend into a folder we cannot name.
                    Err(issue) => (Found::Issue(issue), WalkState::Skip),
                    Ok(id) => match e.metadata() {
                        Ok(meta) => (
                            Found::Node(node_from_meta(id, e.path(), &meta)),
                            WalkState::Continue,
                        ),
                        Err(err) => (
                            Found::Issue(ScanIssue {
                                path: id,
                                message: err.to_string(),
                            }),
                            WalkState::Continue,
                        ),
                    },
                },
                Err(err) => (Found::Issue(issue_from(&root, &err)), WalkState::Continue),
            };
            if batch.push(found) {
                state
            } else {
                WalkState::Quit
            }
        })
    });
    drop(tx);
    let (graph, mut issues) = collector.join().expect("scan collector thread");
    // Unreadable folders appear both as a node and as an issue; that is intended.
    issues.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(ScanOutput { graph, issues })
}

/// What one walker thread found since it last sent: sent in batches (one channel message per
/// [`Batch::SIZE`] entries, not one per entry), the rest when the thread's walk ends.
struct Batch {
    found: Vec<Found>,
    tx: mpsc::Sender<Vec<Found>>,
}

impl Batch {
    const SIZE: usize = 256;

    fn new(tx: mpsc::Sender<Vec<Found>>) -> Self {
        Batch {
            found: Vec::with_capacity(Self::SIZE),
            tx,
        }
    }

    /// Adds `found`; false when the collector is gone.
    fn push(&mut self, found: Found) -> bool {
        self.found.push(found);
        self.found.len() < Self::SIZE || self.flush()
    }

    fn flush(&mut self) -> bool {
        let full = std::mem::replace(&mut self.found, Vec::with_capacity(Self::SIZE));
        full.is_empty() || self.tx.send(full).is_ok()
    }
}

impl Drop for Batch {
    fn drop(&mut self) {
        self.found.shrink_to_fit();
        let rest = std::mem::take(&mut self.found);
        if !rest.is_empty() {
            let _ = self.tx.send(rest);
        }
    }
}

fn issue_from(root: &Path, err: &ignore::Error) -> ScanIssue {
    fn find_path(err: &ignore::Error) -> Option<&Path> {
        match err {
            ignore::Error::WithPath { path, .. } => Some(path),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                find_path(err)
            }
            _ => None,
        }
    }
    fn innermost(err: &ignore::Error) -> String {
        match err {
            ignore::Error::WithPath { err, .. }
            | ignore::Error::WithDepth { err, .. }
            | ignore::Error::WithLineNumber { err, .. } => innermost(err),
            other => other.to_string(),
        }
    }
    let path = find_path(err)
        .map(|p| {
            p.strip_prefix(root)
                .unwrap_or(p)
                .to_string_lossy()
                .replace(std::path::MAIN_SEPARATOR, "/")
        })
        .unwrap_or_else(|| "?".into());
    ScanIssue {
        path,
        message: innermost(err),
    }
}
