//! organize_by_type / organize_by_date: sorts a folder's files into folders named by a pattern
//! (`{category}`, `{ext}`, `{year}`, `{month}`, `{day}`). Files without an extension are typed by
//! their first bytes; photos are dated by when they were taken (EXIF) unless `date: modified`;
//! sidecars (subtitles, XMP, CUE) and the pieces of split files go where the
//! file they belong to goes. move_into_folders: each file to the folder a list gives it (what a
//! `classify` step decided).

use std::collections::{BTreeMap, HashMap};
use std::io::Read;

use serde_json::{Value, json};

use super::{OpContext, Placement, mkdir_p, move_one, place};
use crate::categories::{sidecar_of, sniff_extension, split_part};
use crate::error::{Result, SandboxError};
use crate::graph::{FileSystemGraph, GraphError};
use crate::node::{Node, NodeKind, ROOT_ID, is_within, join, name_of, parent_of, stem_of};
use crate::params::{Params, format_time};

const PLACEHOLDERS: &[&str] = &["category", "ext", "year", "month", "day"];
const UNDATED: &str = "Undated";

pub fn organize_by_type(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    organize(g, cx, p, "{category}")
}

pub fn organize_by_date(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    organize(g, cx, p, "{year}/{month}")
}

/// One file to sort and what decides its folder.
struct Item {
    node: Node,
    /// Its extension, or the one its bytes show (`sniffed`), or the whole's for a split piece.
    ext: Option<String>,
    sniffed: bool,
    part: bool,
    /// Parent folder and the lower-case names it is grouped under (its stem; for a sidecar also
    /// the stem without a language or original-extension suffix: `film.en.srt` → `film`).
    keys: Vec<(String, String)>,
}

fn invalid(p: &Params, name: &str, message: String) -> SandboxError {
    SandboxError::InvalidParam {
        method: p.method.to_owned(),
        name: name.to_owned(),
        message,
    }
}

/// Checks a folder pattern: known placeholders only, balanced braces, no `..` or absolute parts.
fn check_pattern(p: &Params, pattern: &str) -> Result<()> {
    let mut problems = Vec::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            problems.push("an opening `{` without its `}`".to_owned());
            break;
        };
        let name = &rest[open + 1..open + close];
        if !PLACEHOLDERS.contains(&name) {
            problems.push(format!("unknown placeholder `{{{name}}}`"));
        }
        rest = &rest[open + close + 1..];
    }
    if pattern.trim().is_empty() || pattern.starts_with('/') {
        problems.push("must be a relative folder pattern such as `{year}/{month}`".to_owned());
    }
    if pattern.split('/').any(|s| s == ".." || s == ".") {
        problems.push("must not contain `.` or `..` parts".to_owned());
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(invalid(
            p,
            "pattern",
            format!(
                "{} (placeholders: {})",
                problems.join("; "),
                PLACEHOLDERS
                    .iter()
                    .map(|p| format!("{{{p}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ))
    }
}

/// `date` is an ISO date-time (`2024-05-01T10:00:00…`) or `None` for an undated file.
fn fill(pattern: &str, category: &str, ext: Option<&str>, date: Option<&str>) -> String {
    let part = |from: usize, to: usize| {
        date.and_then(|d| d.get(from..to))
            .map_or(UNDATED.to_owned(), str::to_owned)
    };
    let out = pattern
        .replace("{category}", category)
        .replace("{ext}", ext.unwrap_or("no extension"))
        .replace("{year}", &part(0, 4))
        .replace("{month}", &part(5, 7))
        .replace("{day}", &part(8, 10));
    // `{year}/{month}` of an undated file is one `Undated` folder, not `Undated/Undated`.
    let mut segments: Vec<&str> = out.split('/').filter(|s| !s.is_empty()).collect();
    segments.dedup();
    segments.join("/")
}

/// The first bytes of a scanned file (nothing for files that exist only in the plan).
fn head(cx: &OpContext, node: &Node) -> Vec<u8> {
    let Some(from) = node.content_from.as_deref() else {
        return Vec::new();
    };
    let mut buf = Vec::with_capacity(512);
    if let Ok(f) = std::fs::File::open(cx.scope.disk_path(from)) {
        let _ = f.take(512).read_to_end(&mut buf);
    }
    buf
}

fn item(cx: &OpContext, node: Node) -> Item {
    let parent = parent_of(&node.id).unwrap_or(ROOT_ID).to_owned();
    let lower = node.name.to_ascii_lowercase();
    if let Some((base, whole)) = split_part(&node.name) {
        return Item {
            keys: vec![(parent, base.to_ascii_lowercase())],
            ext: whole,
            sniffed: false,
            part: true,
            node,
        };
    }
    let (ext, sniffed) = match &node.extension {
        Some(e) => (Some(e.clone()), false),
        None => match sniff_extension(&head(cx, &node)) {
            Some(e) => (Some(e.to_owned()), true),
            None => (None, false),
        },
    };
    let stem = stem_of(&lower).to_owned();
    let mut keys = vec![(parent.clone(), stem.clone())];
    if ext.as_deref().and_then(sidecar_of).is_some()
        && let Some((shorter, suffix)) = stem.rsplit_once('.')
        && (1..=4).contains(&suffix.len())
    {
        keys.push((parent, shorter.to_owned()));
    }
    Item {
        node,
        ext,
        sniffed,
        part: false,
        keys,
    }
}

fn organize(
    g: &mut FileSystemGraph,
    cx: &OpContext,
    p: &Params,
    default_pattern: &str,
) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    if !g.require(&path)?.is_dir() {
        return Err(GraphError::NotADirectory(path).into());
    }
    let target = if p.get("target").is_some() {
        p.path("target", cx.scope, g)?
    } else {
        path.clone()
    };
    let recursive = p.bool("recursive", false)?;
    let policy = p.conflict(cx.on_conflict)?;
    let table = cx.categories.with_first(custom_categories(p)?);
    let pattern = p
        .opt_str("pattern")?
        .unwrap_or_else(|| default_pattern.to_owned());
    check_pattern(p, &pattern)?;
    let by_category_only = pattern == "{category}";
    let dated = ["{year}", "{month}", "{day}"]
        .iter()
        .any(|d| pattern.contains(d));
    let use_taken = p.choice("date", &["taken", "modified"], "taken")? == "taken" && dated;
    let folder_names = table.folder_names();
    let pool: Vec<Node> = if recursive {
        g.subtree(&path).into_iter().skip(1).cloned().collect()
    } else {
        g.children(&path).into_iter().cloned().collect()
    };
    let items: Vec<Item> = pool
        .into_iter()
        .filter(|n| n.kind == NodeKind::File)
        .map(|n| item(cx, n))
        .collect();
    // Only these extensions ("sort the photos by date"); their sidecars and pieces still follow.
    let only: Vec<String> = p
        .list("extension")?
        .into_iter()
        .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
        .collect();
    let chosen = |it: &Item| {
        only.is_empty()
            || it
                .ext
                .as_deref()
                .is_some_and(|e| only.iter().any(|o| o.eq_ignore_ascii_case(e)))
    };

    // When each file is from: a photo's EXIF date taken, else its modification time.
    let mut by_exif = Vec::new();
    let dates: Vec<Option<String>> = items
        .iter()
        .map(|it| {
            let taken = use_taken
                .then(|| crate::content::photo_facts(cx.scope, &it.node))
                .and_then(|m| m.get("date_taken")?.as_str().map(str::to_owned));
            if taken.is_some() {
                by_exif.push(it.node.id.clone());
            }
            taken.or_else(|| it.node.modified_at.map(format_time))
        })
        .collect();
    // Where each file would go on its own.
    let own: Vec<(String, String)> = items
        .iter()
        .zip(&dates)
        .map(|(it, date)| {
            let category = table.category(it.ext.as_deref());
            let folder = fill(&pattern, &category, it.ext.as_deref(), date.as_deref());
            (category, join(&target, &folder))
        })
        .collect();
    // Files others follow: whole files first, then pieces, by name.
    let mut anchors: HashMap<&(String, String), usize> = HashMap::new();
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by_key(|&i| (items[i].part, items[i].node.name.clone()));
    for &i in &order {
        let it = &items[i];
        let is_sidecar = it.ext.as_deref().and_then(sidecar_of).is_some();
        if !is_sidecar {
            anchors.entry(&it.keys[0]).or_insert(i);
        }
    }
    let mut dest: Vec<(String, String, Option<usize>)> = Vec::with_capacity(items.len());
    for (i, it) in items.iter().enumerate() {
        let follows = if let Some(mains) = it.ext.as_deref().and_then(sidecar_of) {
            it.keys.iter().find_map(|k| {
                anchors
                    .get(k)
                    .copied()
                    .filter(|&a| items[a].ext.as_deref().is_some_and(|e| mains.contains(&e)))
            })
        } else if it.part {
            anchors.get(&it.keys[0]).copied().filter(|&a| a != i)
        } else {
            None
        };
        let (category, folder) = match follows {
            Some(a) => own[a].clone(),
            None => own[i].clone(),
        };
        dest.push((category, folder, follows));
    }

    let (mut moved, mut skipped, mut folders) = (Vec::new(), Vec::new(), Vec::<String>::new());
    let (mut sniffed, mut together) = (Vec::new(), Vec::new());
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for (it, (category, folder, follows)) in items.iter().zip(dest) {
        if !chosen(it) && !follows.is_some_and(|a| chosen(&items[a])) {
            continue;
        }
        let f = &it.node;
        let parent = parent_of(&f.id).unwrap_or(ROOT_ID);
        // Already sorted: in its folder, or (sorting by type) inside any category folder.
        if parent == folder
            || (by_category_only
                && folder_names
                    .iter()
                    .any(|c| is_within(&f.id, &join(&target, c))))
        {
            continue;
        }
        if let Some(blocker) = blocking_file(g, &target, &folder) {
            skipped.push(
                json!({"path": f.id, "reason": format!("`{blocker}` exists and is not a folder")}),
            );
            continue;
        }
        if !g.contains(&folder) {
            mkdir_p(g, cx, &folder)?;
        }
        if !folders.contains(&folder) {
            folders.push(folder.clone());
        }
        match place(g, cx, join(&folder, &f.name), policy)? {
            Placement::At(to) => {
                moved.push(move_one(g, cx, &f.id, &to)?);
                *counts.entry(category).or_default() += 1;
                if it.sniffed {
                    sniffed.push(json!({"path": f.id, "as": it.ext}));
                }
                if let Some(a) = follows {
                    together.push(json!({"path": f.id, "with": items[a].node.id}));
                }
            }
            Placement::Skip(reason) => skipped.push(json!({"path": f.id, "reason": reason})),
        }
    }
    folders.sort();
    Ok(json!({
        "count": moved.len(),
        "moved": moved,
        "skipped": skipped,
        "folders": folders,
        "by_category": counts,
        "pattern": pattern,
        "sniffed": sniffed,
        "kept_together": together,
        "dated_by_exif": by_exif,
    }))
}

/// A file in the way of `folder` (at it or at one of its parents below `target`).
fn blocking_file(g: &FileSystemGraph, target: &str, folder: &str) -> Option<String> {
    let mut at = folder.to_owned();
    loop {
        if let Some(n) = g.node(&at)
            && !n.is_dir()
        {
            return Some(at);
        }
        if at == target {
            return None;
        }
        match parent_of(&at) {
            Some(up) if is_within(up, target) => at = up.to_owned(),
            _ => return None,
        }
    }
}

fn custom_categories(p: &Params) -> Result<Vec<(String, Vec<String>)>> {
    match p.get("categories") {
        None => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(cat, exts)| {
                let exts = match exts {
                    Value::String(s) => s.split(',').map(str::to_owned).collect(),
                    Value::Array(a) => a
                        .iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect(),
                    _ => {
                        return Err(invalid(
                            p,
                            "categories",
                            format!("`{cat}` must map to a list of extensions"),
                        ));
                    }
                };
                Ok((cat.clone(), exts))
            })
            .collect(),
        Some(_) => Err(invalid(
            p,
            "categories",
            "must be an object such as {\"Photos\": [\"jpg\", \"heic\"]}".into(),
        )),
    }
}

/// `move_into_folders`: moves each file of `assignments` (`[{path, folder}]`, e.g. a `classify`
/// step's) into its folder, creating the folders that are missing. Each path and folder is
/// resolved in scope; a file that is already there is left alone; conflicts follow `on_conflict`.
pub fn move_into_folders(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let list = match p.required("assignments")? {
        Value::Array(a) => a.clone(),
        other => {
            return Err(invalid(
                p,
                "assignments",
                format!("must be a list of {{path, folder}}, got {other}"),
            ));
        }
    };
    let policy = p.conflict(cx.on_conflict)?;
    // Every entry is checked before anything moves: one bad entry stops the whole call.
    let mut pairs = Vec::with_capacity(list.len());
    let mut problems = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let field = |k: &str| entry.get(k).and_then(Value::as_str);
        match (field("path"), field("folder")) {
            (Some(path), Some(folder)) => {
                match (cx.scope.resolve(path, g), cx.scope.resolve(folder, g)) {
                    (Ok(path), Ok(folder)) => pairs.push((path, folder, field("category"))),
                    (Err(e), _) | (_, Err(e)) => problems.push(format!("entry {i}: {e}")),
                }
            }
            _ => problems.push(format!("entry {i} needs `path` and `folder`")),
        }
    }
    if !problems.is_empty() {
        return Err(invalid(p, "assignments", problems.join("; ")));
    }
    let (mut moved, mut skipped, mut folders) = (Vec::new(), Vec::new(), Vec::<String>::new());
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for (path, folder, category) in pairs {
        let node = g.require(&path)?.clone();
        if node.kind != NodeKind::File {
            skipped.push(json!({"path": path, "reason": "not a file"}));
            continue;
        }
        if parent_of(&path).unwrap_or(ROOT_ID) == folder {
            continue;
        }
        if let Some(n) = g.node(&folder)
            && !n.is_dir()
        {
            skipped.push(
                json!({"path": path, "reason": format!("`{folder}` exists and is not a folder")}),
            );
            continue;
        }
        if !g.contains(&folder) {
            mkdir_p(g, cx, &folder)?;
        }
        if !folders.contains(&folder) {
            folders.push(folder.clone());
        }
        match place(g, cx, join(&folder, &node.name), policy)? {
            Placement::At(to) => {
                moved.push(move_one(g, cx, &path, &to)?);
                let name = category.map_or_else(|| name_of(&folder).to_owned(), str::to_owned);
                *counts.entry(name).or_default() += 1;
            }
            Placement::Skip(reason) => skipped.push(json!({"path": path, "reason": reason})),
        }
    }
    folders.sort();
    Ok(json!({
        "count": moved.len(),
        "moved": moved,
        "skipped": skipped,
        "folders": folders,
        "by_category": counts,
    }))
}
