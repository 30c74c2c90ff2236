//! `tag_files`: tags instead of moves. Each file gets tags added or removed (the extended
//! attribute `user.xdg.tags`, see `crate::tags`), from a list (`source` + `add` / `remove`) or
//! from a `classify` step's assignments (each file tagged with its category). Nothing moves; the
//! change is a `ChangeOp::Tag` with the tags before, so commit, journal and undo handle it.

use serde_json::{Value, json};

use super::OpContext;
use crate::error::{Result, SandboxError};
use crate::graph::{ChangeOp, FileSystemGraph};
use crate::params::Params;

/// The tags `id` has at this point of the plan: the last pending tag change's, else the disk's.
fn current_tags(g: &FileSystemGraph, cx: &OpContext, id: &str) -> Result<Vec<String>> {
    let pending = g.changes().iter().rev().find_map(|c| match &c.op {
        ChangeOp::Tag { path, tags, .. } if path == id => Some(tags.clone()),
        _ => None,
    });
    if let Some(tags) = pending {
        return Ok(tags);
    }
    let node = g.require(id)?;
    let Some(from) = node.content_from.as_deref() else {
        return Ok(Vec::new());
    };
    let disk = cx.scope.disk_path(from);
    crate::tags::read(&disk).map_err(|source| SandboxError::Io { path: disk, source })
}

pub fn tag_files(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let invalid = |name: &str, message: String| SandboxError::InvalidParam {
        method: p.method.to_owned(),
        name: name.to_owned(),
        message,
    };
    let remove = crate::tags::normalize(p.names("remove")?);
    // (file, tags to add)
    let mut wanted: Vec<(String, Vec<String>)> = Vec::new();
    match (p.get("assignments"), p.get("source")) {
        (Some(_), Some(_)) => {
            return Err(invalid(
                "assignments",
                "give either `assignments` (a classify step's) or `source` with `add`, not both"
                    .into(),
            ));
        }
        (Some(list), None) => {
            let Value::Array(list) = list else {
                return Err(invalid(
                    "assignments",
                    "must be a list of {path, category}".into(),
                ));
            };
            let mut problems = Vec::new();
            for (i, entry) in list.iter().enumerate() {
                let field = |k: &str| entry.get(k).and_then(Value::as_str);
                match (field("path"), field("category")) {
                    (Some(path), Some(category)) => match cx.scope.resolve(path, g) {
                        Ok(id) => wanted.push((id, vec![category.to_owned()])),
                        Err(e) => problems.push(format!("entry {i}: {e}")),
                    },
                    _ => problems.push(format!("entry {i} needs `path` and `category`")),
                }
            }
            if !problems.is_empty() {
                return Err(invalid("assignments", problems.join("; ")));
            }
        }
        (None, Some(_)) => {
            let add = crate::tags::normalize(p.names("add")?);
            if add.is_empty() && remove.is_empty() {
                return Err(invalid(
                    "add",
                    "name the tags to add (or to `remove`)".into(),
                ));
            }
            for id in p.paths("source", cx.scope, g)? {
                wanted.push((id, add.clone()));
            }
        }
        (None, None) => return Err(p.missing("source")),
    }
    let (mut tagged, mut unchanged) = (Vec::new(), Vec::new());
    for (id, add) in wanted {
        let before = current_tags(g, cx, &id)?;
        let tags = crate::tags::normalize(
            before
                .iter()
                .filter(|t| !remove.iter().any(|r| r.eq_ignore_ascii_case(t)))
                .cloned()
                .chain(add),
        );
        if tags == before {
            unchanged.push(id);
            continue;
        }
        tagged.push(json!({"path": id, "tags": tags, "before": before}));
        g.record(
            cx.snapshot,
            ChangeOp::Tag {
                path: id,
                tags,
                before,
            },
        );
    }
    Ok(json!({"count": tagged.len(), "tagged": tagged, "unchanged": unchanged}))
}
