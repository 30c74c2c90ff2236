//! Undo of a committed run, as a planned change: the run's recorded changes, newest first, are
//! turned back on a fresh scan of the folder and recorded in the change log like any step's, so
//! the undo is simulated on the graph, shown as a diff, approved, and committed through the same
//! journal (and recorded in the history, so it can itself be undone).
//!
//! Each change is turned back with the operation the change log already knows (a move moves back,
//! what a run created goes to the trash, a trashed entry is restored from the trash, a created
//! folder is removed once empty, a hardlink gets its own copy again). A path that is not as the run
//! left it (edited, moved away, replaced, or its old place taken) is kept as it is and named; the
//! rest is still undone.

use serde::{Deserialize, Serialize};

use crate::graph::{ChangeOp, FileSystemGraph, GraphError, SnapshotId};
use crate::history::{RecordedChange, RunRecord, TrashedEntry};
use crate::node::{Fingerprint, Node, NodeKind, ROOT_ID, join, parent_of};
use crate::trash_can;

/// A recorded change the undo leaves as it is, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UndoKept {
    pub path: String,
    pub reason: String,
}

/// What an undo will do, before approval.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct UndoPlan {
    /// The run being undone.
    pub run: String,
    /// The snapshot the undo's changes were made under: stage it to approve them.
    pub snapshot: SnapshotId,
    /// Changes made on the graph (the undo's diff).
    pub changes: usize,
    /// Recorded changes kept as they are (conflicts), each with its reason.
    pub kept: Vec<UndoKept>,
    /// Deletions that cannot come back (permanent, or no longer in the trash).
    pub not_restorable: Vec<String>,
}

/// Plans the undo of `record` on `graph` (a fresh scan of the record's root): makes the changes
/// on the graph under a new snapshot and returns what was done and kept. `trash` is the system
/// trash's listing (only consulted when the run trashed something).
pub(crate) fn plan_undo(
    graph: &mut FileSystemGraph,
    record: &RunRecord,
    root: &std::path::Path,
    now: i64,
) -> UndoPlan {
    let listing = if record.changes.iter().any(|c| c.trashed.is_some()) {
        trash_can::list()
    } else {
        Vec::new()
    };
    let snapshot = graph.snapshot();
    let before = graph.changes().len();
    let mut plan = UndoPlan {
        run: record.run.id.clone(),
        snapshot,
        changes: 0,
        kept: Vec::new(),
        not_restorable: Vec::new(),
    };
    let mut cx = TurnBack {
        graph,
        snapshot,
        now,
        root,
        listing: &listing,
        plan: &mut plan,
    };
    for change in record.changes.iter().rev() {
        cx.turn_back(change);
    }
    plan.changes = graph.changes().len() - before;
    plan
}

struct TurnBack<'a> {
    graph: &'a mut FileSystemGraph,
    snapshot: SnapshotId,
    now: i64,
    root: &'a std::path::Path,
    listing: &'a [TrashedEntry],
    plan: &'a mut UndoPlan,
}

fn same(expect: &Fingerprint, found: &Fingerprint) -> bool {
    expect.kind == found.kind
        && (expect.kind == NodeKind::Dir
            || (expect.size == found.size && expect.mtime_ns == found.mtime_ns))
}

impl TurnBack<'_> {
    fn keep(&mut self, path: &str, reason: impl Into<String>) {
        self.plan.kept.push(UndoKept {
            path: path.to_owned(),
            reason: reason.into(),
        });
    }

    /// The node at `path` as the run left it, or why not.
    fn as_left(&self, path: &str, after: Option<&Fingerprint>) -> Result<Node, String> {
        let node = self
            .graph
            .node(path)
            .ok_or_else(|| "moved away or deleted since the run".to_owned())?;
        if let (Some(expect), Some(origin)) = (after, &node.origin)
            && !same(expect, &origin.fingerprint)
        {
            return Err("changed since the run".to_owned());
        }
        Ok(node.clone())
    }

    /// `path` is free and its folder exists, or why not.
    fn free(&self, path: &str) -> Result<(), String> {
        if self.graph.contains(path) {
            return Err(format!("`{path}` is taken by another entry now"));
        }
        match self.graph.node(parent_of(path).unwrap_or(ROOT_ID)) {
            Some(p) if p.is_dir() => Ok(()),
            _ => Err(format!("the folder of `{path}` is gone")),
        }
    }

    fn fingerprint(node: &Node) -> Option<Fingerprint> {
        node.origin.as_ref().map(|o| o.fingerprint.clone())
    }

    /// Sends what the run made at `path` to the trash (or removes it, per the delete mode).
    fn remove(&mut self, path: &str, after: Option<&Fingerprint>) {
        let node = match self.as_left(path, after) {
            Ok(n) => n,
            Err(why) => return self.keep(path, why),
        };
        let size = self.graph.subtree(path).iter().map(|n| n.size).sum();
        self.graph.remove_subtree(path).expect("node exists");
        self.graph.record(
            self.snapshot,
            ChangeOp::Delete {
                path: path.to_owned(),
                kind: node.kind,
                size,
                expect: Self::fingerprint(&node),
            },
        );
    }

    fn remove_dir(&mut self, path: &str) {
        match self.graph.node(path) {
            Some(n) if n.is_dir() => {}
            _ => return self.keep(path, "the folder is gone or is not a folder now"),
        }
        if !self.graph.children(path).is_empty() {
            return self.keep(path, "the folder holds entries that stay");
        }
        self.graph.remove_subtree(path).expect("node exists");
        self.graph.record(
            self.snapshot,
            ChangeOp::RemoveDir {
                path: path.to_owned(),
            },
        );
    }

    fn add(&mut self, node: Node) -> Result<(), GraphError> {
        self.graph.add(node)
    }

    fn turn_back(&mut self, change: &RecordedChange) {
        let after = change.after.as_ref();
        match &change.op {
            ChangeOp::CreateDir { path } => self.remove_dir(path),
            ChangeOp::CreateFile { path, .. }
            | ChangeOp::Copy { to: path, .. }
            | ChangeOp::CreateArchive { target: path, .. }
            | ChangeOp::ExtractArchive {
                target: path,
                merge: None,
                ..
            }
            | ChangeOp::Restore { path, .. } => self.remove(path, after),
            ChangeOp::ExtractArchive {
                target,
                merge: Some(entries),
                ..
            } => {
                for e in entries.iter().rev() {
                    let at = join(target, &e.to);
                    if e.is_dir {
                        self.remove_dir(&at);
                    } else {
                        self.remove(&at, None);
                    }
                }
            }
            ChangeOp::Move { from, to, kind, .. } => {
                let node = match self.as_left(to, after) {
                    Ok(n) => n,
                    Err(why) => return self.keep(to, why),
                };
                if let Err(why) = self.free(from) {
                    return self.keep(to, why);
                }
                self.graph
                    .relocate(to, from, self.now)
                    .expect("checked: source exists, target free");
                self.graph.record(
                    self.snapshot,
                    ChangeOp::Move {
                        from: to.clone(),
                        to: from.clone(),
                        kind: *kind,
                        expect: Self::fingerprint(&node),
                    },
                );
            }
            ChangeOp::Delete {
                path, kind, size, ..
            } => self.restore(path, *kind, *size, change.trashed.as_ref()),
            ChangeOp::RemoveDir { path } => {
                if let Err(why) = self.free(path) {
                    return self.keep(path, why);
                }
                let mut node = Node::new(path.clone(), NodeKind::Dir);
                node.dirty = true;
                node.modified_at = Some(self.now);
                self.add(node).expect("checked: free, parent a folder");
                self.graph
                    .record(self.snapshot, ChangeOp::CreateDir { path: path.clone() });
            }
            ChangeOp::Hardlink {
                path,
                to,
                size,
                expect,
                ..
            } => {
                if let Err(why) = self.as_left(path, after) {
                    return self.keep(path, why);
                }
                if !self.graph.contains(to) {
                    return self.keep(path, format!("`{to}`, which holds its bytes, is gone"));
                }
                self.graph
                    .update(path, |n| n.dirty = true)
                    .expect("node exists");
                self.graph.record(
                    self.snapshot,
                    ChangeOp::Unlink {
                        path: path.clone(),
                        to: to.clone(),
                        size: *size,
                        mtime_ns: expect.as_ref().and_then(|f| f.mtime_ns),
                    },
                );
            }
            ChangeOp::Tag { path, tags, before } => {
                if self.graph.node(path).is_none() {
                    return self.keep(path, "moved away or deleted since the run");
                }
                match crate::tags::read(&self.root.join(path)) {
                    Ok(now) if now == *tags => {}
                    Ok(_) => return self.keep(path, "its tags changed since the run"),
                    Err(e) => return self.keep(path, format!("its tags cannot be read: {e}")),
                }
                self.graph.record(
                    self.snapshot,
                    ChangeOp::Tag {
                        path: path.clone(),
                        tags: before.clone(),
                        before: tags.clone(),
                    },
                );
            }
            ChangeOp::Unlink { path, to, size, .. } => {
                let node = match self.as_left(path, after) {
                    Ok(n) => n,
                    Err(why) => return self.keep(path, why),
                };
                let Some(kept) = self.graph.node(to).cloned() else {
                    return self.keep(path, format!("`{to}` is gone"));
                };
                self.graph
                    .update(path, |n| n.dirty = true)
                    .expect("node exists");
                self.graph.record(
                    self.snapshot,
                    ChangeOp::Hardlink {
                        path: path.clone(),
                        to: to.clone(),
                        size: *size,
                        expect: Self::fingerprint(&node),
                        expect_to: Self::fingerprint(&kept),
                    },
                );
            }
        }
    }

    fn restore(&mut self, path: &str, kind: NodeKind, size: u64, trashed: Option<&TrashedEntry>) {
        let Some(entry) = trashed else {
            self.plan
                .not_restorable
                .push(format!("`{path}` was deleted permanently"));
            return;
        };
        if !trash_can::contains(entry, self.listing) {
            self.plan
                .not_restorable
                .push(format!("`{path}` is no longer in the trash"));
            return;
        }
        if entry.original_parent.join(&entry.name) != self.root.join(path) {
            return self.keep(path, "the trash has it under another folder");
        }
        if let Err(why) = self.free(path) {
            return self.keep(path, why);
        }
        let mut top = Node::new(path.to_owned(), kind);
        top.size = if kind == NodeKind::Dir { 0 } else { size };
        top.dirty = true;
        top.modified_at = Some(self.now);
        self.add(top).expect("checked: free, parent a folder");
        if kind == NodeKind::Dir {
            for (rel, kind, size) in trashed_tree(entry) {
                let mut n = Node::new(join(path, &rel), kind);
                n.size = size;
                n.dirty = true;
                n.modified_at = Some(self.now);
                // A listing the trash changed under us only loses detail in the view.
                let _ = self.add(n);
            }
        }
        self.graph.record(
            self.snapshot,
            ChangeOp::Restore {
                path: path.to_owned(),
                kind,
                size,
                trashed: entry.clone(),
            },
        );
    }
}

/// The entries inside a trashed folder (relative paths, parents first), where the trash keeps
/// the files as a folder the app can read (freedesktop: `<trash>/files/<name>`).
fn trashed_tree(entry: &TrashedEntry) -> Vec<(String, NodeKind, u64)> {
    let (Some(trash), Some(stem)) = (
        entry.id.parent().and_then(|info| info.parent()),
        entry.id.file_stem(),
    ) else {
        return Vec::new();
    };
    let top = trash.join("files").join(stem);
    let mut out = Vec::new();
    let mut stack = vec![(top, String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut entries: Vec<_> = read.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let (Ok(meta), Some(name)) = (
                e.path().symlink_metadata(),
                e.file_name().to_str().map(str::to_owned),
            ) else {
                continue;
            };
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            let kind = NodeKind::of(&meta);
            out.push((
                child.clone(),
                kind,
                if kind == NodeKind::File {
                    meta.len()
                } else {
                    0
                },
            ));
            if kind == NodeKind::Dir {
                stack.push((e.path(), child));
            }
        }
    }
    // Parents before children: a shorter path of the same prefix sorts first.
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}
