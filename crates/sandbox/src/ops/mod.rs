//! The graph methods skills call. They change the graph and record the disk changes commit will
//! make; they never write to the disk (they read it only to look inside files: text, archive
//! listings, hashes, the first bytes of a file without an extension). Basic file operations live
//! here; `find` (search and analysis), `organize`, `bulk` (batch rename) and `duplicates` hold the
//! rest.

mod archive;
mod bulk;
mod duplicates;
mod find;
mod organize;
mod similar;
mod tag;

pub use archive::{create_archive, extract_archive, list_archive};
pub use bulk::{batch_rename, rename_each};
pub use duplicates::{find_duplicates, remove_duplicates};
pub use find::{analyze_directory, find};
pub use organize::{move_into_folders, organize_by_date, organize_by_type};
pub use similar::DEFAULT_THRESHOLD as SIMILAR_DEFAULT_THRESHOLD;
pub use tag::tag_files;

use std::collections::BTreeMap;

use config::ConflictPolicy;
use serde_json::{Value, json};

use crate::error::{Result, SandboxError};
use crate::graph::{ChangeOp, FileSystemGraph, GraphError, SnapshotId};
use crate::node::{Node, NodeKind, ROOT_ID, is_within, join, name_of, parent_of, stem_of};
use crate::params::{Params, format_time};
use crate::scope::Scope;

/// What every graph method gets besides the graph and its params.
#[derive(Debug)]
pub struct OpContext<'a> {
    pub scope: &'a Scope,
    pub on_conflict: ConflictPolicy,
    /// Type categories from the config (organize-by-type).
    pub categories: &'a crate::categories::CategoryTable,
    /// "Now" in epoch seconds, stamped on nodes the call changes.
    pub now: i64,
    /// The snapshot taken before this call; changes are recorded under it.
    pub snapshot: SnapshotId,
    /// Targets that already exist under `on_conflict: ask` (the call then stops and lists them).
    pub conflicts: std::cell::RefCell<Vec<String>>,
    /// The persistent hash cache duplicate finding reads and fills (none: every file is read).
    pub hashes: Option<&'a crate::hash_cache::HashCache>,
}

/// The JSON shape of a node in method results (`$step(n).nodes[0].path`).
pub fn node_view(n: &Node) -> Value {
    json!({
        "path": n.id,
        "name": n.name,
        "kind": n.kind,
        "extension": n.extension,
        "size": n.size,
        "modified_at": n.modified_at,
    })
}

pub(crate) fn views<'a>(nodes: impl IntoIterator<Item = &'a Node>) -> Vec<Value> {
    nodes.into_iter().map(node_view).collect()
}

/// Drops paths that lie inside another path of the list (moving a folder moves its contents).
pub(crate) fn outermost(mut ids: Vec<String>) -> Vec<String> {
    let all = ids.clone();
    ids.retain(|id| !all.iter().any(|other| other != id && is_within(id, other)));
    ids
}

pub(crate) fn check_name(p: &Params, param: &str, name: &str) -> Result<()> {
    let bad = |why: &str| SandboxError::InvalidParam {
        method: p.method.to_owned(),
        name: param.to_owned(),
        message: format!("`{name}` {why}"),
    };
    if name.is_empty() || name.trim().is_empty() {
        return Err(bad("is empty"));
    }
    if name == "." || name == ".." {
        return Err(bad("is not a valid name"));
    }
    if name.contains('/') || name.contains('\\') {
        return Err(bad("contains a path separator; use a name, not a path"));
    }
    if name.chars().any(|c| c == '\0' || c.is_control()) {
        return Err(bad("contains control characters"));
    }
    if name.len() > 255 {
        return Err(bad("is longer than 255 bytes"));
    }
    Ok(())
}

pub(crate) enum Placement {
    At(String),
    Skip(String),
}

/// Where an item lands when `desired` may be taken, per the conflict policy.
pub(crate) fn place(
    g: &FileSystemGraph,
    cx: &OpContext,
    desired: String,
    policy: ConflictPolicy,
) -> Result<Placement> {
    if !g.contains(&desired) {
        return Ok(Placement::At(desired));
    }
    match policy {
        ConflictPolicy::Fail => Err(GraphError::AlreadyExists(desired).into()),
        // Noted and skipped, so one call finds every conflict; the call then stops on them all.
        ConflictPolicy::Ask => {
            cx.conflicts.borrow_mut().push(desired.clone());
            Ok(Placement::Skip(format!("`{desired}` already exists")))
        }
        ConflictPolicy::Skip => Ok(Placement::Skip(format!("`{desired}` already exists"))),
        ConflictPolicy::Rename => {
            let parent = parent_of(&desired).unwrap_or(ROOT_ID).to_owned();
            let name = name_of(&desired).to_owned();
            let stem = stem_of(&name);
            let ext = &name[stem.len()..];
            (2..100_000)
                .map(|i| join(&parent, &format!("{stem} ({i}){ext}")))
                .find(|c| !g.contains(c))
                .map(Placement::At)
                .ok_or_else(|| GraphError::AlreadyExists(desired).into())
        }
    }
}

/// Creates `dir` and any missing parents; returns the ids created.
pub(crate) fn mkdir_p(g: &mut FileSystemGraph, cx: &OpContext, dir: &str) -> Result<Vec<String>> {
    let mut created = Vec::new();
    if dir == ROOT_ID {
        return Ok(created);
    }
    let mut id = ROOT_ID.to_owned();
    for part in dir.split('/') {
        id = join(&id, part);
        match g.node(&id) {
            Some(n) if n.is_dir() => {}
            Some(_) => return Err(GraphError::NotADirectory(id).into()),
            None => {
                let mut node = Node::new(id.clone(), NodeKind::Dir);
                node.modified_at = Some(cx.now);
                node.dirty = true;
                g.add(node)?;
                g.record(cx.snapshot, ChangeOp::CreateDir { path: id.clone() });
                created.push(id.clone());
            }
        }
    }
    Ok(created)
}

pub(crate) fn move_one(
    g: &mut FileSystemGraph,
    cx: &OpContext,
    from: &str,
    to: &str,
) -> Result<Value> {
    let node = g.require(from)?.clone();
    g.relocate(from, to, cx.now)?;
    g.record(
        cx.snapshot,
        ChangeOp::Move {
            from: from.to_owned(),
            to: to.to_owned(),
            kind: node.kind,
            expect: node.origin.map(|o| o.fingerprint),
        },
    );
    Ok(json!({"from": from, "to": to}))
}

fn copy_one(g: &mut FileSystemGraph, cx: &OpContext, from: &str, to: &str) -> Result<Value> {
    if is_within(to, from) {
        return Err(GraphError::IntoItself(from.to_owned()).into());
    }
    let nodes: Vec<Node> = g.subtree(from).into_iter().cloned().collect();
    let source = nodes
        .first()
        .ok_or_else(|| GraphError::NotFound(from.to_owned()))?
        .clone();
    for mut n in nodes {
        let new_id = format!("{to}{}", &n.id[from.len()..]);
        n.set_id(new_id);
        n.origin = None;
        n.indexed_at = None;
        n.dirty = true;
        n.modified_at = Some(cx.now);
        g.add(n)?;
    }
    g.record(
        cx.snapshot,
        ChangeOp::Copy {
            from: from.to_owned(),
            to: to.to_owned(),
            kind: source.kind,
            expect: source.origin.map(|o| o.fingerprint),
        },
    );
    Ok(json!({"from": from, "to": to}))
}

fn subtree_size(g: &FileSystemGraph, id: &str) -> u64 {
    g.subtree(id).iter().map(|n| n.size).sum()
}

pub(crate) fn delete_one(g: &mut FileSystemGraph, cx: &OpContext, id: &str) -> Result<u64> {
    let node = g.require(id)?.clone();
    let size = subtree_size(g, id);
    g.remove_subtree(id)?;
    g.record(
        cx.snapshot,
        ChangeOp::Delete {
            path: id.to_owned(),
            kind: node.kind,
            size,
            expect: node.origin.map(|o| o.fingerprint),
        },
    );
    Ok(size)
}

// ---- methods ------------------------------------------------------------------------------------

pub fn get_children(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    let node = g.require(&path)?;
    if !node.is_dir() {
        return Err(GraphError::NotADirectory(path).into());
    }
    let recursive = p.bool("recursive", false)?;
    let hidden = p.bool("include_hidden", true)?;
    let nodes: Vec<&Node> = if recursive {
        g.subtree(&path).into_iter().skip(1).collect()
    } else {
        g.children(&path)
    };
    let nodes: Vec<&Node> = nodes
        .into_iter()
        .filter(|n| hidden || !n.name.starts_with('.'))
        .collect();
    let total: u64 = nodes
        .iter()
        .filter(|n| n.kind == NodeKind::File)
        .map(|n| n.size)
        .sum();
    Ok(json!({"path": path, "count": nodes.len(), "total_size": total, "nodes": views(nodes)}))
}

pub fn get_metadata(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    let node = g.require(&path)?;
    let mut out = node_view(node);
    let obj = out.as_object_mut().expect("view is an object");
    obj.insert("indexed_at".into(), json!(node.indexed_at));
    obj.insert("link_target".into(), json!(node.link_target));
    obj.insert("modified".into(), json!(node.modified_at.map(format_time)));
    if node.is_dir() {
        let below: Vec<&Node> = g.subtree(&path).into_iter().skip(1).collect();
        let files: Vec<&&Node> = below.iter().filter(|n| n.kind == NodeKind::File).collect();
        let mut exts: BTreeMap<String, u64> = BTreeMap::new();
        for f in &files {
            *exts
                .entry(f.extension.clone().unwrap_or_else(|| "(none)".into()))
                .or_default() += 1;
        }
        let newest = files
            .iter()
            .filter(|f| f.modified_at.is_some())
            .max_by_key(|f| f.modified_at);
        let oldest = files
            .iter()
            .filter(|f| f.modified_at.is_some())
            .min_by_key(|f| f.modified_at);
        let total: u64 = files.iter().map(|f| f.size).sum();
        obj.insert("file_count".into(), json!(files.len()));
        obj.insert(
            "dir_count".into(),
            json!(below.iter().filter(|n| n.is_dir()).count()),
        );
        obj.insert("total_size".into(), json!(total));
        obj.insert("size".into(), json!(total));
        obj.insert("extensions".into(), json!(exts));
        obj.insert(
            "newest".into(),
            json!(newest.map(|f| json!({"path": f.id, "modified_at": f.modified_at}))),
        );
        obj.insert(
            "oldest".into(),
            json!(oldest.map(|f| json!({"path": f.id, "modified_at": f.modified_at}))),
        );
    }
    Ok(out)
}

pub fn create_node(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let parent = p.path("path", cx.scope, g)?;
    let kind = p.choice("type", &["file", "dir", "folder", "directory"], "file")?;
    let is_dir = kind != "file";
    let names = p.names("name")?;
    if names.is_empty() {
        return Err(SandboxError::MissingParam {
            method: p.method.to_owned(),
            name: "name".into(),
        });
    }
    let content = p.opt_str("content")?;
    if is_dir && content.is_some() {
        return Err(SandboxError::InvalidParam {
            method: p.method.to_owned(),
            name: "content".into(),
            message: "only files have content".into(),
        });
    }
    let policy = p.conflict(cx.on_conflict)?;
    let mut created = mkdir_p(g, cx, &parent)?;
    let mut skipped = Vec::new();
    for name in names {
        check_name(p, "name", &name)?;
        let desired = join(&parent, &name);
        if is_dir && g.node(&desired).is_some_and(Node::is_dir) && policy != ConflictPolicy::Rename
        {
            if policy == ConflictPolicy::Fail {
                return Err(GraphError::AlreadyExists(desired).into());
            }
            skipped.push(json!({"path": desired, "reason": "folder already exists"}));
            continue;
        }
        match place(g, cx, desired, policy)? {
            Placement::Skip(reason) => skipped.push(json!({"path": name, "reason": reason})),
            Placement::At(id) => {
                if is_dir {
                    created.extend(mkdir_p(g, cx, &id)?);
                } else {
                    let mut node = Node::new(id.clone(), NodeKind::File);
                    node.size = content.as_ref().map_or(0, |c| c.len() as u64);
                    node.modified_at = Some(cx.now);
                    node.dirty = true;
                    g.add(node)?;
                    g.record(
                        cx.snapshot,
                        ChangeOp::CreateFile {
                            path: id.clone(),
                            content: content.clone(),
                        },
                    );
                    created.push(id);
                }
            }
        }
    }
    Ok(json!({"created": created, "skipped": skipped, "count": created.len()}))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Transfer {
    Move,
    Copy,
}

/// Does `target` (not in the graph) name a new path for the one file `source` rather than a
/// folder to put it in? Only when both names carry the same extension ("a.pdf" → "Old/b.pdf").
fn names_the_file(source: &str, target: &str) -> bool {
    let ext = |p: &str| {
        name_of(p)
            .rsplit_once('.')
            .filter(|(stem, _)| !stem.is_empty())
            .map(|(_, e)| e.to_ascii_lowercase())
    };
    ext(source).is_some() && ext(source) == ext(target)
}

/// `move_node` and `copy_node`: sources go into the folder `target` (created when missing) and
/// keep their names. A list of sources (even of one, as `$step(n).nodes` gives) always goes into
/// a folder. One source given alone: an existing file as `target`, a new path with the file's
/// extension, or a new path for a folder is where that item goes (subject to `on_conflict`).
fn transfer(g: &mut FileSystemGraph, cx: &OpContext, p: &Params, how: Transfer) -> Result<Value> {
    let sources = outermost(p.paths("source", cx.scope, g)?);
    let target = p.path("target", cx.scope, g)?;
    let policy = p.conflict(cx.on_conflict)?;
    for s in &sources {
        g.require(s)?;
    }
    let listed = p.get("source").is_some_and(Value::is_array);
    let into_dir = match g.node(&target) {
        Some(n) => n.is_dir(),
        None if listed || sources.len() > 1 => true,
        // One folder to a new path becomes that path (as `mv`/`cp -r` do); one file goes into
        // a new folder unless the target names a file like it.
        None => g
            .node(&sources[0])
            .is_some_and(|n| !n.is_dir() && !names_the_file(&sources[0], &target)),
    };
    let mut created = if into_dir {
        mkdir_p(g, cx, &target)?
    } else {
        Vec::new()
    };
    let (mut done, mut skipped) = (Vec::new(), Vec::new());
    for s in sources {
        let desired = if into_dir {
            join(&target, name_of(&s))
        } else {
            target.clone()
        };
        let mut policy = policy;
        if desired == s {
            if how == Transfer::Move {
                skipped.push(json!({"path": s, "reason": "already there"}));
                continue;
            }
            // Copying onto itself always means "a second copy beside it".
            policy = ConflictPolicy::Rename;
        }
        if !into_dir {
            created.extend(mkdir_p(g, cx, parent_of(&desired).unwrap_or(ROOT_ID))?);
        }
        match place(g, cx, desired, policy)? {
            Placement::At(to) => done.push(match how {
                Transfer::Move => move_one(g, cx, &s, &to)?,
                Transfer::Copy => copy_one(g, cx, &s, &to)?,
            }),
            Placement::Skip(reason) => skipped.push(json!({"path": s, "reason": reason})),
        }
    }
    let key = if how == Transfer::Move {
        "moved"
    } else {
        "copied"
    };
    Ok(json!({"count": done.len(), key: done, "skipped": skipped, "created_dirs": created}))
}

pub fn move_node(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    transfer(g, cx, p, Transfer::Move)
}

pub fn rename_node(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    let new_name = p.str("new_name")?;
    check_name(p, "new_name", &new_name)?;
    let policy = p.conflict(cx.on_conflict)?;
    g.require(&path)?;
    if path == ROOT_ID {
        return Err(GraphError::Root.into());
    }
    let desired = join(parent_of(&path).unwrap_or(ROOT_ID), &new_name);
    if desired == path {
        return Ok(
            json!({"count": 0, "moved": [], "skipped": [{"path": path, "reason": "name unchanged"}]}),
        );
    }
    match place(g, cx, desired, policy)? {
        Placement::At(to) => {
            Ok(json!({"count": 1, "moved": [move_one(g, cx, &path, &to)?], "skipped": []}))
        }
        Placement::Skip(reason) => {
            Ok(json!({"count": 0, "moved": [], "skipped": [{"path": path, "reason": reason}]}))
        }
    }
}

pub fn copy_node(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    transfer(g, cx, p, Transfer::Copy)
}

pub fn delete_node(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let targets = outermost(p.paths("path", cx.scope, g)?);
    for t in &targets {
        if t == ROOT_ID {
            return Err(GraphError::Root.into());
        }
        g.require(t)?;
    }
    let mut freed = 0;
    for t in &targets {
        freed += delete_one(g, cx, t)?;
    }
    Ok(json!({"deleted": targets, "count": targets.len(), "freed_bytes": freed}))
}
