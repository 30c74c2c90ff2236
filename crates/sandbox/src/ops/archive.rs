//! Archive graph methods: create (recorded, written at commit), list (reads the archive), extract
//! (adds the entries to the graph; written at commit).

use serde_json::{Value, json};

use super::{OpContext, Placement, delete_one, mkdir_p, outermost, place};
use crate::archive::{self, ArchiveFormat};
use crate::error::{Result, SandboxError};
use crate::graph::{ChangeOp, FileSystemGraph, GraphError};
use crate::node::{Node, NodeKind, ROOT_ID, join, name_of, parent_of};
use crate::params::Params;

fn format_param(p: &Params, name_hint: &str) -> Result<ArchiveFormat> {
    match p.opt_str("format")? {
        Some(f) => ArchiveFormat::parse(&f).ok_or_else(|| SandboxError::InvalidParam {
            method: p.method.to_owned(),
            name: "format".into(),
            message: format!("must be zip, tar.gz, tar.zst or tar, got `{f}`"),
        }),
        None => Ok(ArchiveFormat::from_name(name_hint).unwrap_or(ArchiveFormat::Zip)),
    }
}

/// `level`: within the format's range; refused for plain tar (nothing to compress).
fn level_param(p: &Params, format: ArchiveFormat) -> Result<Option<i32>> {
    let Some(v) = p.get("level") else {
        return Ok(None);
    };
    let bad = |message: String| SandboxError::InvalidParam {
        method: p.method.to_owned(),
        name: "level".into(),
        message,
    };
    let Some((range, _)) = format.levels() else {
        return Err(bad(format!(
            "{} is not compressed; leave `level` out or choose tar.gz, tar.zst or zip",
            format.extension()
        )));
    };
    let n = v
        .as_i64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .ok_or_else(|| bad(format!("must be a whole number, got {v}")))?;
    let n = i32::try_from(n).unwrap_or(i32::MAX);
    if !range.contains(&n) {
        return Err(bad(format!(
            "must be {}..={} for {}, got {n}",
            range.start(),
            range.end(),
            format.extension()
        )));
    }
    Ok(Some(n))
}

pub fn create_archive(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let sources = outermost(p.paths("source", cx.scope, g)?);
    let mut target = p.path("target", cx.scope, g)?;
    let format = format_param(p, &target)?;
    if ArchiveFormat::from_name(&target) != Some(format) {
        target = format!("{target}.{}", format.extension());
    }
    let level = level_param(p, format)?;
    let delete_originals = p.bool("delete_originals", false)?;
    let policy = p.conflict(cx.on_conflict)?;
    let mut bytes = 0;
    let mut files = 0;
    for s in &sources {
        for n in g.subtree(s) {
            if n.kind == NodeKind::File {
                bytes += n.size;
                files += 1;
            }
        }
        if crate::node::is_within(&target, s) {
            return Err(GraphError::IntoItself(s.clone()).into());
        }
    }
    if g.require(&sources[0]).is_err() {
        return Err(GraphError::NotFound(sources[0].clone()).into());
    }
    mkdir_p(g, cx, parent_of(&target).unwrap_or(ROOT_ID))?;
    let target = match place(g, cx, target, policy)? {
        Placement::At(t) => t,
        Placement::Skip(reason) => {
            return Ok(json!({"created": [], "skipped": [{"path": sources, "reason": reason}]}));
        }
    };
    let mut node = Node::new(target.clone(), NodeKind::File);
    node.size = bytes; // Upper bound until commit writes the compressed file.
    node.modified_at = Some(cx.now);
    node.dirty = true;
    g.add(node)?;
    g.record(
        cx.snapshot,
        ChangeOp::CreateArchive {
            sources: sources.clone(),
            target: target.clone(),
            format,
            level,
        },
    );
    let mut deleted = Vec::new();
    if delete_originals {
        for s in &sources {
            delete_one(g, cx, s)?;
            deleted.push(s.clone());
        }
    }
    Ok(json!({
        "created": [target],
        "path": target,
        "format": format,
        "level": level.or(format.levels().map(|(_, default)| default)),
        "files": files,
        "source_bytes": bytes,
        "deleted_originals": deleted,
    }))
}

fn read_entries(
    g: &FileSystemGraph,
    cx: &OpContext,
    path: &str,
) -> Result<(ArchiveFormat, Vec<archive::Entry>)> {
    let node = g.require(path)?;
    let content = |message: &str| SandboxError::Content {
        path: path.to_owned(),
        message: message.to_owned(),
    };
    if node.kind != NodeKind::File {
        return Err(content("not a file"));
    }
    let format = ArchiveFormat::from_name(&node.name)
        .ok_or_else(|| content("not a .zip, .tar.gz, .tgz, .tar.zst or .tar archive"))?;
    let from = node
        .content_from
        .as_deref()
        .ok_or_else(|| content("the archive exists only in the plan so far; commit first"))?;
    let entries = archive::list(&cx.scope.disk_path(from), format)
        .map_err(|e| content(&format!("unreadable archive: {e}")))?;
    Ok((format, entries))
}

pub fn list_archive(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    let (format, entries) = read_entries(g, cx, &path)?;
    let unsafe_entries: Vec<&str> = entries
        .iter()
        .filter(|e| !e.safe())
        .map(|e| e.name.as_str())
        .collect();
    let refused: Vec<Value> = entries
        .iter()
        .filter_map(|e| Some(json!({"name": e.name, "reason": e.refused.as_ref()?})))
        .collect();
    Ok(json!({
        "path": path,
        "format": format,
        "count": entries.len(),
        "total_size": entries.iter().map(|e| e.size).sum::<u64>(),
        "unsafe_entries": unsafe_entries,
        "refused": refused,
        "entries": entries.iter().map(|e| json!({"name": e.name, "size": e.size, "is_dir": e.is_dir})).collect::<Vec<_>>(),
    }))
}

pub fn extract_archive(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    let (_format, entries) = read_entries(g, cx, &path)?;
    let refused: Vec<(String, String)> = entries
        .iter()
        .filter_map(|e| Some((e.name.clone(), e.refused.clone()?)))
        .collect();
    if !refused.is_empty() {
        return Err(SandboxError::ArchiveUnsafe {
            path,
            entries: refused,
        });
    }
    let policy = p.conflict(cx.on_conflict)?;
    let desired = if p.get("target").is_some() {
        p.path("target", cx.scope, g)?
    } else {
        join(
            parent_of(&path).unwrap_or(ROOT_ID),
            ArchiveFormat::stem(name_of(&path)),
        )
    };
    // A target folder that exists (named by the person, like `tar -C` or `unzip -d`): the entries
    // go into it, each one meeting an existing name under the conflict policy.
    if p.get("target").is_some() && g.node(&desired).is_some_and(Node::is_dir) {
        return merge_into(g, cx, &path, &desired, &entries, policy);
    }
    mkdir_p(g, cx, parent_of(&desired).unwrap_or(ROOT_ID))?;
    let target = match place(g, cx, desired, policy)? {
        Placement::At(t) => t,
        Placement::Skip(reason) => {
            return Ok(json!({"created": [], "skipped": [{"path": path, "reason": reason}]}));
        }
    };
    let mut root = Node::new(target.clone(), NodeKind::Dir);
    root.modified_at = Some(cx.now);
    root.dirty = true;
    g.add(root)?;
    let mut created = vec![target.clone()];
    for e in &entries {
        // Parents first: intermediate folders an archive does not list explicitly.
        let mut id = target.clone();
        let parts: Vec<&str> = e
            .name
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        for (i, part) in parts.iter().enumerate() {
            id = join(&id, part);
            let last = i + 1 == parts.len();
            if g.contains(&id) {
                continue;
            }
            let kind = if last && !e.is_dir {
                NodeKind::File
            } else {
                NodeKind::Dir
            };
            let mut n = Node::new(id.clone(), kind);
            n.size = if kind == NodeKind::File { e.size } else { 0 };
            n.modified_at = Some(cx.now);
            n.dirty = true;
            g.add(n)?;
            created.push(id.clone());
        }
    }
    g.record(
        cx.snapshot,
        ChangeOp::ExtractArchive {
            archive: path.clone(),
            target: target.clone(),
            merge: None,
        },
    );
    Ok(
        json!({"created": [target], "path": target, "count": entries.len(), "nodes": created.len() - 1}),
    )
}

/// Extraction into the existing folder `target`: folders merge with folders of the same name;
/// a file (or a folder meeting a file) whose name is taken follows `policy` (a skipped folder
/// skips everything in it).
fn merge_into(
    g: &mut FileSystemGraph,
    cx: &OpContext,
    archive: &str,
    target: &str,
    entries: &[archive::Entry],
    policy: super::ConflictPolicy,
) -> Result<Value> {
    use std::collections::BTreeMap;
    // Archive folder → where it lands in the graph (`None`: skipped).
    let mut dirs: BTreeMap<String, Option<String>> = BTreeMap::new();
    let mut written: Vec<crate::graph::ExtractedEntry> = Vec::new();
    let mut created = Vec::new();
    let mut skipped = Vec::new();
    let rel = |id: &str| id[target.len() + 1..].to_owned();
    for e in entries {
        let parts: Vec<&str> = e
            .name
            .split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .collect();
        let mut at = target.to_owned();
        let mut prefix = String::new();
        for (i, part) in parts.iter().enumerate() {
            prefix = if prefix.is_empty() {
                (*part).to_owned()
            } else {
                format!("{prefix}/{part}")
            };
            let last = i + 1 == parts.len();
            let is_dir = !last || e.is_dir;
            if is_dir {
                if let Some(mapped) = dirs.get(&prefix) {
                    match mapped {
                        Some(m) => {
                            at = m.clone();
                            continue;
                        }
                        None => break,
                    }
                }
                let desired = join(&at, part);
                let landing = match g.node(&desired) {
                    Some(n) if n.is_dir() => Some(desired),
                    _ => match place(g, cx, desired, policy)? {
                        Placement::At(t) => {
                            let w = add_extracted(g, cx, &t, &prefix, rel(&t), None)?;
                            written.push(w);
                            created.push(t.clone());
                            Some(t)
                        }
                        Placement::Skip(reason) => {
                            skipped.push(json!({"entry": prefix, "reason": reason}));
                            None
                        }
                    },
                };
                dirs.insert(prefix.clone(), landing.clone());
                match landing {
                    Some(l) => at = l,
                    None => break,
                }
            } else {
                match place(g, cx, join(&at, part), policy)? {
                    Placement::At(t) => {
                        let w = add_extracted(g, cx, &t, &prefix, rel(&t), Some(e.size))?;
                        written.push(w);
                        created.push(t);
                    }
                    Placement::Skip(reason) => {
                        skipped.push(json!({"entry": prefix, "reason": reason}));
                    }
                }
            }
        }
    }
    let renamed: Vec<Value> = written
        .iter()
        .filter(|w| w.to != w.entry)
        .map(|w| json!({"entry": w.entry, "to": join(target, &w.to)}))
        .collect();
    let files = written.iter().filter(|w| !w.is_dir).count();
    if !written.is_empty() {
        g.record(
            cx.snapshot,
            ChangeOp::ExtractArchive {
                archive: archive.to_owned(),
                target: target.to_owned(),
                merge: Some(written),
            },
        );
    }
    Ok(json!({
        "created": created,
        "path": target,
        "merged": true,
        "count": entries.len(),
        "files": files,
        "renamed": renamed,
        "skipped": skipped,
    }))
}

/// Adds the node an extracted entry becomes (`size`: a file of that size; `None`: a folder).
fn add_extracted(
    g: &mut FileSystemGraph,
    cx: &OpContext,
    id: &str,
    entry: &str,
    to: String,
    size: Option<u64>,
) -> Result<crate::graph::ExtractedEntry> {
    let kind = if size.is_some() {
        NodeKind::File
    } else {
        NodeKind::Dir
    };
    let mut n = Node::new(id.to_owned(), kind);
    n.size = size.unwrap_or(0);
    n.modified_at = Some(cx.now);
    n.dirty = true;
    g.add(n)?;
    Ok(crate::graph::ExtractedEntry {
        entry: entry.to_owned(),
        to,
        is_dir: size.is_none(),
    })
}
