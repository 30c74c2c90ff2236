//! FileSystemGraph: petgraph containment tree with path ids, O(changes) snapshots and a change log.
//!
//! Pure: nothing here touches the disk. Every write goes through four low-level edits (add, remove,
//! update, reparent) that record the node's before-image in an undo log; a snapshot is a position in
//! that log, so taking one is O(1) and rolling back costs O(changes since the snapshot).

use petgraph::Direction;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use petgraph::visit::{EdgeRef, IntoEdgeReferences};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::id_index::IdIndex;
use crate::node::{Fingerprint, Node, NodeKind, ROOT_ID, is_within, parent_of};

/// Identifies a snapshot; rolling back to it restores the graph as it was when it was taken.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
pub struct SnapshotId(pub u64);

impl std::fmt::Display for SnapshotId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "snap-{}", self.0)
    }
}

impl std::str::FromStr for SnapshotId {
    type Err = ();
    fn from_str(s: &str) -> Result<Self, ()> {
        s.strip_prefix("snap-")
            .unwrap_or(s)
            .parse()
            .map(SnapshotId)
            .map_err(|_| ())
    }
}

/// One change the disk must undergo at commit, recorded as the graph changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum ChangeOp {
    CreateDir {
        path: String,
    },
    CreateFile {
        path: String,
        content: Option<String>,
    },
    Move {
        from: String,
        to: String,
        kind: NodeKind,
        expect: Option<Fingerprint>,
    },
    Copy {
        from: String,
        to: String,
        kind: NodeKind,
        expect: Option<Fingerprint>,
    },
    Delete {
        path: String,
        kind: NodeKind,
        size: u64,
        expect: Option<Fingerprint>,
    },
    CreateArchive {
        sources: Vec<String>,
        target: String,
        format: crate::archive::ArchiveFormat,
        /// Compression level (the format's default when absent).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        level: Option<i32>,
    },
    ExtractArchive {
        archive: String,
        target: String,
        /// Set when extracting into a folder that already exists: the entries written and where
        /// each lands (relative to `target`; renamed on a conflict). Entries not listed (skipped
        /// on a conflict) are not written. Absent: `target` is a new folder taking every entry.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        merge: Option<Vec<ExtractedEntry>>,
    },
    /// Replace the file `path` by a hardlink to `to` (identical content; `path`'s copy is freed).
    Hardlink {
        path: String,
        to: String,
        size: u64,
        expect: Option<Fingerprint>,
        expect_to: Option<Fingerprint>,
    },
    /// Bring `path` back from the system trash, where a commit had put it (undo of a delete).
    Restore {
        path: String,
        kind: NodeKind,
        size: u64,
        trashed: crate::history::TrashedEntry,
    },
    /// Remove the empty folder `path` (undo of a created folder; refused when not empty).
    RemoveDir {
        path: String,
    },
    /// Give the file `path` exactly the tags `tags` (its extended attribute `user.xdg.tags`);
    /// `before` is what it had when the plan read it (undo sets it back).
    Tag {
        path: String,
        tags: Vec<String>,
        before: Vec<String>,
    },
    /// Give `path`, a hardlink to `to`, its own copy of the bytes again (undo of a hardlink);
    /// `mtime_ns` is the modification time the file had before it was linked.
    Unlink {
        path: String,
        to: String,
        size: u64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mtime_ns: Option<i64>,
    },
}

/// One archive entry extracted into an existing folder, and where it lands there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ExtractedEntry {
    /// The entry's name in the archive (cleaned: no `./`, no trailing `/`).
    pub entry: String,
    /// Where it lands, relative to the target folder.
    pub to: String,
    /// A folder the extraction creates (folders that already exist are not listed).
    #[serde(default)]
    pub is_dir: bool,
}

impl ChangeOp {
    /// Human-readable one-liner for diffs. Control characters in names (a newline in a file
    /// name) are shown escaped, so one change is always one line and no name can fake another.
    pub fn render(&self) -> String {
        let line = self.render_raw();
        if line.chars().any(char::is_control) {
            line.chars()
                .map(|c| match c {
                    '\n' => "\\n".to_owned(),
                    '\r' => "\\r".to_owned(),
                    '\t' => "\\t".to_owned(),
                    c if c.is_control() => c.escape_unicode().to_string(),
                    c => c.to_string(),
                })
                .collect()
        } else {
            line
        }
    }

    fn render_raw(&self) -> String {
        let kind = self.kind();
        format!("{} {:<6} {}", kind.sigil, kind.verb, self.render_what())
    }

    /// The diff line after its sigil and verb: what the change is about.
    fn render_what(&self) -> String {
        match self {
            ChangeOp::CreateDir { path } => format!("{path}/"),
            ChangeOp::CreateFile { path, content } => match content {
                Some(c) => format!("{path} ({} bytes)", c.len()),
                None => format!("{path} (empty)"),
            },
            ChangeOp::Move { from, to, kind, .. } | ChangeOp::Copy { from, to, kind, .. } => {
                format!("{from}{} -> {to}", slash(*kind))
            }
            ChangeOp::Delete {
                path, kind, size, ..
            } => format!("{path}{} ({})", slash(*kind), human_bytes(*size)),
            ChangeOp::CreateArchive {
                sources, target, ..
            } => format!("{} -> {target}", sources.join(", ")),
            ChangeOp::ExtractArchive {
                archive,
                target,
                merge: None,
            } => format!("{archive} -> {target}/"),
            ChangeOp::ExtractArchive {
                archive,
                target,
                merge: Some(entries),
            } => {
                let files = entries.iter().filter(|e| !e.is_dir).count();
                let renamed = entries
                    .iter()
                    .filter(|e| !e.is_dir && e.to != e.entry)
                    .count();
                format!(
                    "{archive} -> {target}/ (into the existing folder: {files} file{}{})",
                    if files == 1 { "" } else { "s" },
                    if renamed > 0 {
                        format!(", {renamed} renamed")
                    } else {
                        String::new()
                    }
                )
            }
            ChangeOp::Hardlink { path, to, size, .. } => {
                format!("{path} => {to} (frees {})", human_bytes(*size))
            }
            ChangeOp::Restore {
                path, kind, size, ..
            } => format!(
                "{path}{} ({}) from the trash",
                slash(*kind),
                human_bytes(*size)
            ),
            ChangeOp::RemoveDir { path } => format!("{path}/ (empty)"),
            ChangeOp::Unlink { path, to, size, .. } => format!(
                "{path} <= {to} (its own copy again, {})",
                human_bytes(*size)
            ),
            ChangeOp::Tag { path, tags, before } => {
                let list = |t: &[String]| {
                    if t.is_empty() {
                        "no tags".to_owned()
                    } else {
                        t.join(", ")
                    }
                };
                format!("{path}: {} (was {})", list(tags), list(before))
            }
        }
    }

    /// A file move without a scan fingerprint (unit tests of passes over the change log).
    #[cfg(test)]
    pub(crate) fn file_move(from: &str, to: &str) -> ChangeOp {
        ChangeOp::Move {
            from: from.into(),
            to: to.into(),
            kind: NodeKind::File,
            expect: None,
        }
    }

    pub fn is_destructive(&self) -> bool {
        self.kind().destructive
    }
}

fn slash(kind: NodeKind) -> &'static str {
    if kind == NodeKind::Dir { "/" } else { "" }
}

/// A recorded change, tagged with the snapshot taken before the step that made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub snapshot: SnapshotId,
    pub op: ChangeOp,
    /// Approved into the staged buffer; only staged changes may be committed.
    pub staged: bool,
}

#[derive(Debug, Clone)]
enum Undo {
    Added { id: String },
    Removed { node: Node, parent: String },
    Updated { id: String, before: Node },
    Reparented { id: String, old_parent: String },
    Recorded,
}

#[derive(Debug, Clone, Copy)]
struct Mark {
    id: SnapshotId,
    undo_len: usize,
}

/// Why a low-level graph edit was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("no such file or folder: `{0}`")]
    NotFound(String),
    #[error("`{0}` already exists")]
    AlreadyExists(String),
    #[error("`{0}` is not a folder")]
    NotADirectory(String),
    #[error("cannot move `{0}` into itself")]
    IntoItself(String),
    #[error("the working root itself cannot be moved, renamed or deleted")]
    Root,
    #[error("unknown snapshot `{0}`")]
    UnknownSnapshot(String),
}

#[derive(Debug, Clone)]
pub struct FileSystemGraph {
    graph: StableDiGraph<Node, ()>,
    index: IdIndex,
    root: NodeIndex,
    undo: Vec<Undo>,
    changes: Vec<Change>,
    marks: Vec<Mark>,
    next_snapshot: u64,
}

impl FileSystemGraph {
    /// A graph holding only the root directory.
    pub fn new(root: Node) -> Self {
        let mut graph = StableDiGraph::new();
        let root = graph.add_node(root);
        let mut index = IdIndex::default();
        index.insert(&graph, root);
        FileSystemGraph {
            graph,
            index,
            root,
            undo: Vec::new(),
            changes: Vec::new(),
            marks: Vec::new(),
            next_snapshot: 1,
        }
    }

    /// Builds a graph from scanned nodes (parents need not come first). No undo history.
    pub fn from_nodes(root: Node, nodes: Vec<Node>) -> Self {
        let mut g = FileSystemGraph::new(root);
        g.graph.reserve_nodes(nodes.len());
        g.index.reserve(&g.graph, nodes.len());
        for node in nodes {
            g.add_scanned(node);
        }
        g.link_scanned();
        g
    }

    /// Adds a scanned node without its edge (no undo history); [`Self::link_scanned`] links
    /// every node to its parent once all are in, whatever order they came in.
    pub(crate) fn add_scanned(&mut self, node: Node) {
        let idx = self.graph.add_node(node);
        self.index.insert(&self.graph, idx);
    }

    /// Gives every node added by [`Self::add_scanned`] the edge from its parent.
    pub(crate) fn link_scanned(&mut self) {
        let pairs: Vec<(NodeIndex, NodeIndex)> = self
            .index
            .iter()
            .filter_map(|idx| {
                let parent = parent_of(&self.graph[idx].id)?;
                Some((self.index.get(&self.graph, parent)?, idx))
            })
            .collect();
        self.graph.reserve_edges(pairs.len());
        for (p, c) in pairs {
            self.graph.add_edge(p, c, ());
        }
    }

    /// Where the node `id` is in the petgraph.
    fn at(&self, id: &str) -> Option<NodeIndex> {
        self.index.get(&self.graph, id)
    }

    pub fn len(&self) -> usize {
        self.graph.node_count()
    }

    pub fn is_empty(&self) -> bool {
        self.graph.node_count() <= 1
    }

    pub fn contains(&self, id: &str) -> bool {
        self.index.contains(&self.graph, id)
    }

    pub fn node(&self, id: &str) -> Option<&Node> {
        self.index.get(&self.graph, id).map(|i| &self.graph[i])
    }

    pub fn root(&self) -> &Node {
        &self.graph[self.root]
    }

    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.graph.node_weights()
    }

    pub fn require(&self, id: &str) -> Result<&Node, GraphError> {
        self.node(id)
            .ok_or_else(|| GraphError::NotFound(id.to_owned()))
    }

    /// Direct children, sorted by name.
    pub fn children(&self, id: &str) -> Vec<&Node> {
        let Some(idx) = self.index.get(&self.graph, id) else {
            return Vec::new();
        };
        let mut out: Vec<&Node> = self
            .graph
            .neighbors_directed(idx, Direction::Outgoing)
            .map(|c| &self.graph[c])
            .collect();
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The node and everything below it, parents before children, siblings by name.
    pub fn subtree(&self, id: &str) -> Vec<&Node> {
        let mut out = Vec::new();
        let mut stack: Vec<&Node> = self.node(id).into_iter().collect();
        while let Some(n) = stack.pop() {
            out.push(n);
            let mut kids = self.children(&n.id);
            kids.reverse();
            stack.extend(kids);
        }
        out
    }

    // ---- snapshots --------------------------------------------------------------------------

    /// Marks the current state; O(1).
    pub fn snapshot(&mut self) -> SnapshotId {
        let id = SnapshotId(self.next_snapshot);
        self.next_snapshot += 1;
        self.marks.push(Mark {
            id,
            undo_len: self.undo.len(),
        });
        id
    }

    pub fn snapshots(&self) -> Vec<SnapshotId> {
        self.marks.iter().map(|m| m.id).collect()
    }

    /// Restores the graph to `snapshot`, discarding later snapshots and the changes made since.
    /// Returns how many low-level edits were undone. O(changes since the snapshot).
    pub fn rollback(&mut self, snapshot: SnapshotId) -> Result<usize, GraphError> {
        let pos = self
            .marks
            .iter()
            .position(|m| m.id == snapshot)
            .ok_or_else(|| GraphError::UnknownSnapshot(snapshot.to_string()))?;
        let target = self.marks[pos].undo_len;
        self.marks.truncate(pos + 1);
        let undone = self.undo.len() - target;
        while self.undo.len() > target {
            let entry = self.undo.pop().expect("length checked");
            self.revert(entry);
        }
        Ok(undone)
    }

    fn revert(&mut self, entry: Undo) {
        match entry {
            Undo::Added { id } => {
                let idx = self.at(&id).expect("undo: added node exists");
                self.index.remove(&id, idx);
                self.graph.remove_node(idx);
            }
            Undo::Removed { node, parent } => {
                let p = self.at(&parent).expect("undo: parent exists");
                let idx = self.graph.add_node(node);
                self.graph.add_edge(p, idx, ());
                self.index.insert(&self.graph, idx);
            }
            Undo::Updated { id, before } => {
                let idx = self.at(&id).expect("undo: updated node exists");
                self.index.remove(&id, idx);
                self.graph[idx] = before;
                self.index.insert(&self.graph, idx);
            }
            Undo::Reparented { id, old_parent } => {
                let idx = self.at(&id).expect("undo: reparented node exists");
                self.detach(idx);
                let p = self.at(&old_parent).expect("undo: old parent exists");
                self.graph.add_edge(p, idx, ());
            }
            Undo::Recorded => {
                self.changes.pop();
            }
        }
    }

    fn detach(&mut self, idx: NodeIndex) {
        let edges: Vec<_> = self
            .graph
            .edges_directed(idx, Direction::Incoming)
            .map(|e| e.id())
            .collect();
        for e in edges {
            self.graph.remove_edge(e);
        }
    }

    // ---- low-level edits (each records its before-image) --------------------------------------

    /// Adds `node` under its parent (which must exist and be a directory).
    pub(crate) fn add(&mut self, node: Node) -> Result<(), GraphError> {
        if self.contains(&node.id) {
            return Err(GraphError::AlreadyExists(node.id));
        }
        let parent_id = parent_of(&node.id).ok_or(GraphError::Root)?;
        let parent = self.require(parent_id)?;
        if !parent.is_dir() {
            return Err(GraphError::NotADirectory(parent_id.to_owned()));
        }
        let p = self.at(parent_id).expect("parent checked");
        let id = node.id.clone();
        let idx = self.graph.add_node(node);
        self.graph.add_edge(p, idx, ());
        self.index.insert(&self.graph, idx);
        self.undo.push(Undo::Added { id });
        Ok(())
    }

    /// Removes a node and its whole subtree (children first, so undo restores parents first).
    pub(crate) fn remove_subtree(&mut self, id: &str) -> Result<Vec<Node>, GraphError> {
        if id == ROOT_ID {
            return Err(GraphError::Root);
        }
        let ids: Vec<String> = self.subtree(id).into_iter().map(|n| n.id.clone()).collect();
        if ids.is_empty() {
            return Err(GraphError::NotFound(id.to_owned()));
        }
        let mut removed = Vec::with_capacity(ids.len());
        for id in ids.iter().rev() {
            let idx = self.at(id).expect("subtree node indexed");
            self.index.remove(id, idx);
            let node = self.graph.remove_node(idx).expect("indexed node exists");
            let parent = parent_of(id).expect("not root").to_owned();
            removed.push(node.clone());
            self.undo.push(Undo::Removed { node, parent });
        }
        removed.reverse();
        Ok(removed)
    }

    /// Replaces a node's data (its id may change; the caller keeps the tree consistent).
    pub(crate) fn update(&mut self, id: &str, f: impl FnOnce(&mut Node)) -> Result<(), GraphError> {
        let idx = self
            .at(id)
            .ok_or_else(|| GraphError::NotFound(id.to_owned()))?;
        let before = self.graph[idx].clone();
        f(&mut self.graph[idx]);
        let new_id = self.graph[idx].id.clone();
        if new_id != before.id {
            self.index.remove(&before.id, idx);
            self.index.insert(&self.graph, idx);
        }
        self.undo.push(Undo::Updated { id: new_id, before });
        Ok(())
    }

    /// Moves a node (and its subtree) to the path `to`, whose parent must be an existing folder.
    pub(crate) fn relocate(&mut self, from: &str, to: &str, now: i64) -> Result<(), GraphError> {
        if from == ROOT_ID {
            return Err(GraphError::Root);
        }
        self.require(from)?;
        if self.contains(to) {
            return Err(GraphError::AlreadyExists(to.to_owned()));
        }
        if is_within(to, from) {
            return Err(GraphError::IntoItself(from.to_owned()));
        }
        let new_parent = parent_of(to).ok_or(GraphError::Root)?.to_owned();
        if !self.require(&new_parent)?.is_dir() {
            return Err(GraphError::NotADirectory(new_parent));
        }
        let old_parent = parent_of(from).expect("not root").to_owned();
        let ids: Vec<String> = self
            .subtree(from)
            .into_iter()
            .map(|n| n.id.clone())
            .collect();
        for id in &ids {
            let new_id = format!("{to}{}", &id[from.len()..]);
            self.update(id, |n| {
                n.set_id(new_id);
                n.dirty = true;
                if n.id == to {
                    n.modified_at = Some(now);
                }
            })?;
        }
        if new_parent != old_parent {
            let idx = self.at(to).expect("moved node exists");
            self.detach(idx);
            let p = self.at(&new_parent).expect("new parent checked");
            self.graph.add_edge(p, idx, ());
            self.undo.push(Undo::Reparented {
                id: to.to_owned(),
                old_parent,
            });
        }
        Ok(())
    }

    /// Appends to the change log (undone with the snapshot that precedes it).
    pub(crate) fn record(&mut self, snapshot: SnapshotId, op: ChangeOp) {
        self.changes.push(Change {
            snapshot,
            op,
            staged: false,
        });
        self.undo.push(Undo::Recorded);
    }

    // ---- staged buffer ------------------------------------------------------------------------

    pub fn changes(&self) -> &[Change] {
        &self.changes
    }

    /// Changes made since `snapshot` (the diff of one step, or of the whole session from the first).
    pub fn changes_since(&self, snapshot: SnapshotId) -> &[Change] {
        let start = self
            .changes
            .iter()
            .position(|c| c.snapshot >= snapshot)
            .unwrap_or(self.changes.len());
        &self.changes[start..]
    }

    /// Accepts the changes a step made under `snapshot` into the staged buffer. Returns how many.
    pub fn stage(&mut self, snapshot: SnapshotId) -> usize {
        let mut n = 0;
        for c in self.changes.iter_mut().filter(|c| c.snapshot == snapshot) {
            c.staged = true;
            n += 1;
        }
        n
    }

    /// Forgets history after a successful commit: the graph now *is* the disk.
    pub(crate) fn settle(&mut self) {
        self.changes.clear();
        self.undo.clear();
        self.marks.clear();
    }

    /// Sets fields after commit without undo (the disk state is now authoritative).
    pub(crate) fn settle_node(&mut self, id: &str, f: impl FnOnce(&mut Node)) {
        if let Some(idx) = self.at(id) {
            f(&mut self.graph[idx]);
        }
    }

    // ---- export -------------------------------------------------------------------------------

    /// networkx-style node-link JSON (`nodes`, `links`) for the UI.
    pub fn node_link_json(&self, root_path: &str) -> Value {
        let mut nodes: Vec<&Node> = self.graph.node_weights().collect();
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        let links: Vec<Value> = {
            let mut l: Vec<(&str, &str)> = self
                .graph
                .edge_references()
                .map(|e| {
                    (
                        self.graph[e.source()].id.as_str(),
                        self.graph[e.target()].id.as_str(),
                    )
                })
                .collect();
            l.sort();
            l.into_iter()
                .map(|(s, t)| json!({"source": s, "target": t}))
                .collect()
        };
        json!({
            "directed": true,
            "multigraph": false,
            "graph": {"root": root_path, "node_count": nodes.len()},
            "nodes": nodes.iter().map(|n| json!({
                "id": n.id,
                "name": n.name,
                "kind": n.kind,
                "extension": n.extension,
                "size": n.size,
                "modified_at": n.modified_at,
                "indexed_at": n.indexed_at,
                "link_target": n.link_target,
                "parent": parent_of(&n.id),
                "dirty": n.dirty,
            })).collect::<Vec<_>>(),
            "links": links,
        })
    }

    /// A readable, deterministic rendering of the tree (for snapshot tests and `scan --tree`).
    pub fn render_tree(&self, with_meta: bool) -> String {
        let mut out = String::new();
        for n in self.subtree(ROOT_ID) {
            let depth = if n.id == ROOT_ID {
                0
            } else {
                n.id.matches('/').count() + 1
            };
            let name = if n.id == ROOT_ID {
                "."
            } else {
                n.name.as_str()
            };
            out.push_str(&"  ".repeat(depth));
            out.push_str(name);
            match n.kind {
                NodeKind::Dir => out.push('/'),
                NodeKind::Symlink => {
                    out.push_str(" -> ");
                    out.push_str(n.link_target.as_deref().unwrap_or("?"));
                }
                NodeKind::File if with_meta => out.push_str(&format!(" ({} B)", n.size)),
                NodeKind::File => {}
            }
            out.push('\n');
        }
        out
    }

    /// Everything observable about the graph, canonically ordered (rollback tests compare these).
    pub fn fingerprint_state(&self) -> Vec<(Node, Option<String>, Vec<String>)> {
        let mut all: Vec<(Node, Option<String>, Vec<String>)> = self
            .graph
            .node_indices()
            .map(|i| {
                let parent = self
                    .graph
                    .neighbors_directed(i, Direction::Incoming)
                    .next()
                    .map(|p| self.graph[p].id.clone());
                let mut kids: Vec<String> = self
                    .children(&self.graph[i].id)
                    .iter()
                    .map(|n| n.id.clone())
                    .collect();
                kids.sort();
                (self.graph[i].clone(), parent, kids)
            })
            .collect();
        all.sort_by(|a, b| a.0.id.cmp(&b.0.id));
        all
    }
}

pub fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KB", "MB", "GB", "TB"];
    let mut v = n as f64;
    let mut u = 0;
    while v >= 1000.0 && u < UNITS.len() - 1 {
        v /= 1000.0;
        u += 1;
    }
    if u == 0 {
        format!("{n} B")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}
