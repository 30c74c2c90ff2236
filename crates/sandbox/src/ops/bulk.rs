//! Bulk graph methods: organize by type, batch rename (with swap handling).

use std::collections::{BTreeMap, HashSet};

use serde_json::{Value, json};

use super::{OpContext, Placement, check_name, mkdir_p, move_one, outermost, place};
use crate::categories::{CATEGORIES, category_of};
use crate::error::{Result, SandboxError};
use crate::graph::{FileSystemGraph, GraphError};
use crate::node::{
    Node, NodeKind, ROOT_ID, extension_of, is_within, join, name_of, parent_of, stem_of,
};
use crate::params::{Params, format_time};

pub fn organize_by_type(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
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
    let custom = custom_categories(p)?;
    let category = |ext: Option<&str>| -> String {
        ext.and_then(|e| {
            custom
                .iter()
                .find(|(_, exts)| exts.iter().any(|x| x == e))
                .map(|(c, _)| c.clone())
        })
        .unwrap_or_else(|| category_of(ext).to_owned())
    };
    let folder_names: HashSet<String> = CATEGORIES
        .iter()
        .map(|(c, _)| (*c).to_owned())
        .chain(custom.iter().map(|(c, _)| c.clone()))
        .chain([crate::categories::OTHER.to_owned()])
        .collect();
    let pool: Vec<Node> = if recursive {
        g.subtree(&path).into_iter().skip(1).cloned().collect()
    } else {
        g.children(&path).into_iter().cloned().collect()
    };
    let (mut moved, mut skipped, mut folders) = (Vec::new(), Vec::new(), Vec::<String>::new());
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    for f in pool.into_iter().filter(|n| n.kind == NodeKind::File) {
        let cat = category(f.extension.as_deref());
        let folder = join(&target, &cat);
        // Already sorted: anything inside one of the category folders stays.
        let parent = parent_of(&f.id).unwrap_or(ROOT_ID);
        if parent == folder
            || folder_names
                .iter()
                .any(|c| is_within(&f.id, &join(&target, c)))
        {
            continue;
        }
        if let Some(n) = g.node(&folder)
            && !n.is_dir()
        {
            skipped.push(
                json!({"path": f.id, "reason": format!("`{folder}` exists and is not a folder")}),
            );
            continue;
        }
        if !g.contains(&folder) {
            mkdir_p(g, cx, &folder)?;
        }
        if !folders.contains(&folder) {
            folders.push(folder.clone());
        }
        match place(g, join(&folder, &f.name), policy)? {
            Placement::At(to) => {
                moved.push(move_one(g, cx, &f.id, &to)?);
                *counts.entry(cat).or_default() += 1;
            }
            Placement::Skip(reason) => skipped.push(json!({"path": f.id, "reason": reason})),
        }
    }
    folders.sort();
    Ok(
        json!({"count": moved.len(), "moved": moved, "skipped": skipped, "folders": folders, "by_category": counts}),
    )
}

fn custom_categories(p: &Params) -> Result<Vec<(String, Vec<String>)>> {
    match p.get("categories") {
        None => Ok(Vec::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(cat, exts)| {
                let exts = match exts {
                    Value::String(s) => s
                        .split(',')
                        .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
                        .collect(),
                    Value::Array(a) => a
                        .iter()
                        .filter_map(Value::as_str)
                        .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
                        .collect(),
                    _ => {
                        return Err(SandboxError::InvalidParam {
                            method: p.method.to_owned(),
                            name: "categories".into(),
                            message: format!("`{cat}` must map to a list of extensions"),
                        });
                    }
                };
                Ok((cat.clone(), exts))
            })
            .collect(),
        Some(_) => Err(SandboxError::InvalidParam {
            method: p.method.to_owned(),
            name: "categories".into(),
            message: "must be an object such as {\"Photos\": [\"jpg\", \"heic\"]}".into(),
        }),
    }
}

/// Fills a rename pattern for one file: `{name}`, `{ext}`, `{n}`, `{n:03}`, `{date:%Y-%m-%d}`, `{parent}`.
fn fill_pattern(pattern: &str, n: &Node, counter: i64) -> std::result::Result<String, String> {
    let stem = stem_of(&n.name);
    let ext = n.extension.clone().unwrap_or_default();
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..].find('}').ok_or("unclosed `{` in pattern")? + open;
        let field = &rest[open + 1..close];
        let (key, fmt) = field
            .split_once(':')
            .map_or((field, None), |(k, f)| (k, Some(f)));
        match key {
            "name" | "stem" => out.push_str(stem),
            "ext" => out.push_str(&ext),
            "parent" => out.push_str(name_of(parent_of(&n.id).unwrap_or(ROOT_ID))),
            "n" => match fmt {
                Some(w) => {
                    let width: usize = w
                        .trim_start_matches('0')
                        .parse()
                        .map_err(|_| format!("bad width `{w}`"))?;
                    out.push_str(&format!("{counter:0width$}"));
                }
                None => out.push_str(&counter.to_string()),
            },
            "date" => {
                let t = n.modified_at.ok_or("file has no modification date")?;
                let iso = format_time(t); // 2024-05-01T10:00:00Z
                let f = fmt.unwrap_or("%Y-%m-%d");
                out.push_str(
                    &f.replace("%Y", &iso[0..4])
                        .replace("%m", &iso[5..7])
                        .replace("%d", &iso[8..10])
                        .replace("%H", &iso[11..13])
                        .replace("%M", &iso[14..16])
                        .replace("%S", &iso[17..19]),
                );
            }
            other => {
                return Err(format!(
                    "unknown placeholder `{{{other}}}` (use name, ext, n, n:03, date, parent)"
                ));
            }
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

fn change_case(name: &str, case: &str) -> String {
    let stem = stem_of(name);
    let tail = &name[stem.len()..];
    let stem = match case {
        "lower" => stem.to_lowercase(),
        "upper" => stem.to_uppercase(),
        "title" => stem
            .split_inclusive([' ', '_', '-'])
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_uppercase().collect::<String>() + &c.as_str().to_lowercase())
                    .unwrap_or_default()
            })
            .collect(),
        _ => stem.to_owned(),
    };
    format!("{stem}{tail}")
}

pub fn batch_rename(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let invalid = |name: &str, message: String| SandboxError::InvalidParam {
        method: p.method.to_owned(),
        name: name.to_owned(),
        message,
    };
    let mut sources = outermost(p.paths("source", cx.scope, g)?);
    sources.sort();
    let pattern = p.str("pattern")?;
    let find = p
        .opt_str("find")?
        .map(|f| {
            regex::Regex::new(&f).map_err(|e| invalid("find", format!("is not a valid regex: {e}")))
        })
        .transpose()?;
    let replace = p.opt_str("replace")?.unwrap_or_default();
    let case = p.choice("case", &["lower", "upper", "title", "keep"], "keep")?;
    let start = p.int("start")?.unwrap_or(1);
    let policy = p.conflict(cx.on_conflict)?;

    // Plan every new name first, so collisions and cycles are seen as a whole.
    let mut plan: Vec<(String, String)> = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let node = g.require(s)?;
        let mut name =
            fill_pattern(&pattern, node, start + i as i64).map_err(|m| invalid("pattern", m))?;
        if let Some(re) = &find {
            name = re.replace_all(&name, replace.as_str()).into_owned();
        }
        name = change_case(&name, &case);
        // A pattern without `{ext}` keeps the extension: "{name}_{n}" on a.jpg gives a_1.jpg.
        if !pattern.contains("{ext}")
            && let Some(ext) = &node.extension
            && extension_of(&name).as_deref() != Some(ext.as_str())
        {
            name = format!("{name}.{ext}");
        }
        check_name(p, "pattern", &name)?;
        plan.push((s.clone(), join(parent_of(s).unwrap_or(ROOT_ID), &name)));
    }
    let mut seen: BTreeMap<&str, &str> = BTreeMap::new();
    for (from, to) in &plan {
        if let Some(other) = seen.insert(to.as_str(), from.as_str()) {
            return Err(invalid(
                "pattern",
                format!("gives `{other}` and `{from}` the same name `{to}`"),
            ));
        }
    }
    let renaming: HashSet<&str> = plan
        .iter()
        .filter(|(f, t)| f != t)
        .map(|(f, _)| f.as_str())
        .collect();
    // Targets held by another file of the batch (a→b, b→a) go through a temporary name first.
    let needs_temp = plan
        .iter()
        .any(|(f, t)| f != t && renaming.contains(t.as_str()));
    let mut moved = Vec::new();
    let mut skipped = Vec::new();
    // (original id, where it is now, where it should end up)
    let mut staged: Vec<(String, String, String)> = Vec::new();
    for (i, (from, to)) in plan.iter().enumerate() {
        if from == to {
            skipped.push(json!({"path": from, "reason": "name unchanged"}));
            continue;
        }
        let current = if needs_temp {
            let tmp = join(
                parent_of(from).unwrap_or(ROOT_ID),
                &format!(".sw-rename-{}-{i}", cx.snapshot.0),
            );
            move_one(g, cx, from, &tmp)?;
            tmp
        } else {
            from.clone()
        };
        staged.push((from.clone(), current, to.clone()));
    }
    for (original, current, to) in staged {
        match place(g, to, policy)? {
            Placement::At(dest) => {
                move_one(g, cx, &current, &dest)?;
                moved.push(json!({"from": original, "to": dest}));
            }
            Placement::Skip(reason) => {
                if current != original {
                    move_one(g, cx, &current, &original)?;
                }
                skipped.push(json!({"path": original, "reason": reason}));
            }
        }
    }
    Ok(json!({"count": moved.len(), "moved": moved, "skipped": skipped}))
}
