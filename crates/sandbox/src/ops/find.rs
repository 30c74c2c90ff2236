//! Read-only graph methods over a folder: `find` with its filters, and `analyze_directory`.

use std::collections::{BTreeMap, HashSet};

use serde_json::{Value, json};

use super::{OpContext, views};
use crate::categories::category_of;
use crate::error::{Result, SandboxError};
use crate::graph::{FileSystemGraph, GraphError};
use crate::node::{Node, NodeKind, ROOT_ID};
use crate::params::Params;

/// Filters shared by `find` and friends.
struct Filter {
    name: Option<String>,
    glob: Option<globset::GlobMatcher>,
    glob_on_path: bool,
    regex: Option<regex::Regex>,
    extensions: Vec<String>,
    min_size: Option<u64>,
    max_size: Option<u64>,
    after: Option<i64>,
    before: Option<i64>,
    kind: Option<NodeKind>,
    empty: Option<bool>,
}

impl Filter {
    fn from_params(p: &Params, now: i64) -> Result<Filter> {
        let invalid = |name: &str, message: String| SandboxError::InvalidParam {
            method: p.method.to_owned(),
            name: name.to_owned(),
            message,
        };
        let glob_text = p.opt_str("glob")?;
        let glob = glob_text
            .as_deref()
            .map(|g| {
                globset::GlobBuilder::new(g)
                    .case_insensitive(true)
                    .literal_separator(true)
                    .build()
                    .map(|g| g.compile_matcher())
                    .map_err(|e| invalid("glob", format!("is not a valid glob: {e}")))
            })
            .transpose()?;
        let regex = p
            .opt_str("regex")?
            .map(|r| {
                regex::Regex::new(&r)
                    .map_err(|e| invalid("regex", format!("is not a valid regex: {e}")))
            })
            .transpose()?;
        let kind = match p.get("kind") {
            None => None,
            Some(_) => Some(
                match p
                    .choice(
                        "kind",
                        &["file", "dir", "folder", "directory", "symlink"],
                        "file",
                    )?
                    .as_str()
                {
                    "file" => NodeKind::File,
                    "symlink" => NodeKind::Symlink,
                    _ => NodeKind::Dir,
                },
            ),
        };
        Ok(Filter {
            name: p.opt_str("name")?.map(|n| n.to_lowercase()),
            glob_on_path: glob_text.as_deref().is_some_and(|g| g.contains('/')),
            glob,
            regex,
            extensions: p
                .list("extension")?
                .into_iter()
                .map(|e| {
                    e.trim_start_matches("*.")
                        .trim_start_matches('.')
                        .to_ascii_lowercase()
                })
                .collect(),
            min_size: p.size("min_size")?,
            max_size: p.size("max_size")?,
            after: p.date("modified_after", now)?,
            before: p.date("modified_before", now)?,
            kind,
            empty: if p.get("empty").is_some() {
                Some(p.bool("empty", false)?)
            } else {
                None
            },
        })
    }

    fn matches(&self, g: &FileSystemGraph, base: &str, n: &Node) -> bool {
        if let Some(name) = &self.name
            && !n.name.to_lowercase().contains(name)
        {
            return false;
        }
        if let Some(glob) = &self.glob {
            let subject = if self.glob_on_path && base != ROOT_ID {
                n.id.strip_prefix(base)
                    .map(|s| s.trim_start_matches('/'))
                    .unwrap_or(&n.id)
            } else if self.glob_on_path {
                &n.id
            } else {
                &n.name
            };
            if !glob.is_match(subject) {
                return false;
            }
        }
        if let Some(re) = &self.regex
            && !re.is_match(&n.name)
        {
            return false;
        }
        if !self.extensions.is_empty()
            && !n
                .extension
                .as_ref()
                .is_some_and(|e| self.extensions.contains(e))
        {
            return false;
        }
        let sized = self.min_size.is_some() || self.max_size.is_some();
        if sized && n.kind != NodeKind::File {
            return false;
        }
        if self.min_size.is_some_and(|m| n.size < m) || self.max_size.is_some_and(|m| n.size > m) {
            return false;
        }
        if let Some(after) = self.after
            && n.modified_at.is_none_or(|t| t < after)
        {
            return false;
        }
        if let Some(before) = self.before
            && n.modified_at.is_none_or(|t| t >= before)
        {
            return false;
        }
        if self.kind.is_some_and(|k| k != n.kind) {
            return false;
        }
        if let Some(want_empty) = self.empty {
            let is_empty = match n.kind {
                NodeKind::File => n.size == 0,
                NodeKind::Dir => g.children(&n.id).is_empty(),
                NodeKind::Symlink => false,
            };
            if is_empty != want_empty {
                return false;
            }
        }
        true
    }
}

pub fn find(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    if !g.require(&path)?.is_dir() {
        return Err(GraphError::NotADirectory(path).into());
    }
    let filter = Filter::from_params(p, cx.now)?;
    let recursive = p.bool("recursive", true)?;
    let limit = p.int("limit")?.map(|l| l.max(0) as usize);
    let pool: Vec<&Node> = if recursive {
        g.subtree(&path).into_iter().skip(1).collect()
    } else {
        g.children(&path)
    };
    let mut hits: Vec<&Node> = pool
        .into_iter()
        .filter(|n| filter.matches(g, &path, n))
        .collect();
    if filter.min_size.is_some() || limit.is_some() {
        // "the largest", "top 10": biggest first.
        hits.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.id.cmp(&b.id)));
    }
    let total_matches = hits.len();
    if let Some(l) = limit {
        hits.truncate(l);
    }
    let total: u64 = hits
        .iter()
        .filter(|n| n.kind == NodeKind::File)
        .map(|n| n.size)
        .sum();
    Ok(json!({
        "path": path,
        "count": hits.len(),
        "total_matches": total_matches,
        "total_size": total,
        "nodes": views(hits),
    }))
}

pub fn analyze_directory(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    if !g.require(&path)?.is_dir() {
        return Err(GraphError::NotADirectory(path).into());
    }
    let top_n = p.int("top_n")?.unwrap_or(10).clamp(1, 1000) as usize;
    let below: Vec<&Node> = g.subtree(&path).into_iter().skip(1).collect();
    let files: Vec<&Node> = below
        .iter()
        .copied()
        .filter(|n| n.kind == NodeKind::File)
        .collect();
    let mut by_ext: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    let mut by_cat: BTreeMap<&str, (u64, u64)> = BTreeMap::new();
    for f in &files {
        let e = by_ext
            .entry(f.extension.clone().unwrap_or_else(|| "(none)".into()))
            .or_default();
        e.0 += 1;
        e.1 += f.size;
        let c = by_cat
            .entry(category_of(f.extension.as_deref()))
            .or_default();
        c.0 += 1;
        c.1 += f.size;
    }
    let mut ext_rows: Vec<Value> = by_ext
        .iter()
        .map(|(e, (n, s))| json!({"extension": e, "count": n, "size": s}))
        .collect();
    ext_rows.sort_by_key(|r| std::cmp::Reverse(r["size"].as_u64()));
    let mut cat_rows: Vec<Value> = by_cat
        .iter()
        .map(|(c, (n, s))| json!({"category": c, "count": n, "size": s}))
        .collect();
    cat_rows.sort_by_key(|r| std::cmp::Reverse(r["size"].as_u64()));
    let mut largest = files.clone();
    largest.sort_by(|a, b| b.size.cmp(&a.size).then_with(|| a.id.cmp(&b.id)));
    largest.truncate(top_n);
    let empty_dirs: Vec<&str> = below
        .iter()
        .filter(|n| n.is_dir() && g.children(&n.id).is_empty())
        .map(|n| n.id.as_str())
        .collect();
    let empty_files: Vec<&str> = files
        .iter()
        .filter(|f| f.size == 0)
        .map(|f| f.id.as_str())
        .collect();
    const DAY: i64 = 86_400;
    let buckets = [
        ("under 1 day", DAY),
        ("under 1 week", 7 * DAY),
        ("under 1 month", 30 * DAY),
        ("under 1 year", 365 * DAY),
    ];
    let mut ages: BTreeMap<&str, u64> = BTreeMap::new();
    for f in &files {
        let label = match f.modified_at {
            None => "unknown",
            Some(t) => buckets
                .iter()
                .find(|(_, limit)| cx.now - t < *limit)
                .map_or("1 year or older", |(l, _)| l),
        };
        *ages.entry(label).or_default() += 1;
    }
    // Hardlinks are one file under several names: its bytes count once (as `du` counts them).
    let mut inodes: HashSet<(u64, u64)> = HashSet::new();
    let (mut total, mut linked_names, mut linked_bytes) = (0u64, 0u64, 0u64);
    for f in &files {
        match f.origin.as_ref().and_then(|o| o.inode) {
            Some(ino) if !inodes.insert(ino) => {
                linked_names += 1;
                linked_bytes += f.size;
            }
            _ => total += f.size,
        }
    }
    let dir_count = below.iter().filter(|n| n.is_dir()).count();
    let duplicates = if p.bool("duplicates", true)? {
        let args: serde_json::Map<String, Value> =
            [("path".to_owned(), json!(path))].into_iter().collect();
        let d = super::find_duplicates(g, cx, &Params::new("find_duplicates", &args))?;
        let wasted = d["wasted_bytes"].as_u64().unwrap_or(0);
        json!({
            "group_count": d["group_count"],
            "duplicate_count": d["duplicate_count"],
            "wasted_bytes": wasted,
            "share": if total == 0 { 0.0 } else { (wasted as f64 / total as f64 * 1000.0).round() / 1000.0 },
        })
    } else {
        Value::Null
    };
    let mut summary = format!(
        "{} files in {} folders, {} in total; most space: {}",
        files.len(),
        dir_count,
        crate::graph::human_bytes(total),
        cat_rows
            .first()
            .map_or("nothing".to_owned(), |r| r["category"]
                .as_str()
                .unwrap_or("")
                .to_owned()),
    );
    if let Some(wasted) = duplicates["wasted_bytes"].as_u64().filter(|w| *w > 0) {
        summary.push_str(&format!(
            "; duplicates waste {} ({:.1}%)",
            crate::graph::human_bytes(wasted),
            duplicates["share"].as_f64().unwrap_or(0.0) * 100.0
        ));
    }
    Ok(json!({
        "path": path,
        "file_count": files.len(),
        "dir_count": dir_count,
        "symlink_count": below.iter().filter(|n| n.kind == NodeKind::Symlink).count(),
        "total_size": total,
        "hardlinks": {"extra_names": linked_names, "shared_bytes": linked_bytes},
        "duplicates": duplicates,
        "by_extension": ext_rows,
        "by_category": cat_rows,
        "largest": views(largest),
        "empty_dirs": empty_dirs,
        "empty_files": empty_files,
        "age_histogram": ages,
        "summary": summary,
    }))
}
