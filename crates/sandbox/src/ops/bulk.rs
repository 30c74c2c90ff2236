//! Batch rename (with swap handling).

use std::collections::{BTreeMap, HashSet};

use serde_json::{Value, json};

use super::{OpContext, Placement, check_name, move_one, outermost, place};
use crate::error::{Result, SandboxError};
use crate::graph::FileSystemGraph;
use crate::node::{Node, ROOT_ID, extension_of, join, name_of, parent_of, stem_of};
use crate::params::{Params, format_time};

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
