//! Batch rename (with swap handling), and renaming each file to a name of its own
//! (`rename_each`: the names a `suggest_names` step chose).

use std::collections::{BTreeMap, HashSet};

use serde_json::{Value, json};

use super::{OpContext, Placement, check_name, move_one, outermost, place};
use crate::error::{Result, SandboxError};
use crate::graph::FileSystemGraph;
use crate::node::{Node, ROOT_ID, extension_of, join, name_of, parent_of, stem_of};
use crate::params::{Params, format_time};

/// A pattern that names the extension itself (`{name}.jpg`): the files get that extension.
fn ends_in_extension(pattern: &str) -> bool {
    pattern.rsplit_once('.').is_some_and(|(_, ext)| {
        (1..=5).contains(&ext.len()) && ext.chars().all(|c| c.is_ascii_alphanumeric())
    })
}

/// Fills a rename pattern for one file: `{name}`, `{ext}`, `{n}`, `{n:03}`, `{date:%Y-%m-%d}`,
/// `{exif.date:%Y-%m-%d}`, `{exif.camera}`, `{parent}`. `exif` holds the photo's EXIF facts.
fn fill_pattern(
    pattern: &str,
    n: &Node,
    counter: i64,
    exif: &serde_json::Map<String, Value>,
) -> std::result::Result<String, String> {
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
                out.push_str(&crate::naming::format_date(
                    &format_time(t),
                    fmt.unwrap_or("%Y-%m-%d"),
                ));
            }
            "exif.date" => {
                let iso = exif
                    .get("date_taken")
                    .and_then(Value::as_str)
                    .ok_or(NO_EXIF_DATE)?;
                out.push_str(&crate::naming::format_date(iso, fmt.unwrap_or("%Y-%m-%d")));
            }
            "exif.camera" => {
                let model = exif
                    .get("camera_model")
                    .and_then(Value::as_str)
                    .ok_or(NO_EXIF_CAMERA)?;
                out.push_str(&model.replace(['/', '\\'], "-"));
            }
            other => {
                return Err(format!(
                    "unknown placeholder `{{{other}}}` (use name, ext, n, n:03, date, exif.date, exif.camera, parent)"
                ));
            }
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

const NO_EXIF_DATE: &str = "no EXIF date taken";
const NO_EXIF_CAMERA: &str = "no EXIF camera model";

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
    let wants_exif = pattern.contains("{exif.");
    let mut no_exif = Vec::new();
    for s in &sources {
        let node = g.require(s)?;
        let exif = if wants_exif {
            crate::content::photo_facts(cx.scope, node)
        } else {
            serde_json::Map::new()
        };
        // Files without the EXIF a pattern asks for keep their names (and are listed), as
        // photo renamers do; the counter counts only the files renamed.
        let mut name = match fill_pattern(&pattern, node, start + plan.len() as i64, &exif) {
            Ok(name) => name,
            Err(m) if m == NO_EXIF_DATE || m == NO_EXIF_CAMERA => {
                no_exif.push(json!({"path": s, "reason": m}));
                continue;
            }
            Err(m) => return Err(invalid("pattern", m)),
        };
        if let Some(re) = &find {
            name = re.replace_all(&name, replace.as_str()).into_owned();
        }
        name = change_case(&name, &case);
        // A pattern without `{ext}` keeps the extension: "{name}_{n}" on a.jpg gives a_1.jpg.
        if !pattern.contains("{ext}")
            && !ends_in_extension(&pattern)
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
    let mut skipped = no_exif;
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
        match place(g, cx, to, policy)? {
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

/// `rename_each`: each file to the name a list gives it (`names: [{path, name}]`, e.g. a
/// `suggest_names` step's); a name without an extension keeps the file's. Every entry is checked
/// before anything is renamed; a name taken follows `on_conflict`.
pub fn rename_each(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let invalid = |message: String| SandboxError::InvalidParam {
        method: p.method.to_owned(),
        name: "names".into(),
        message,
    };
    let list = match p.required("names")? {
        Value::Array(a) => a.clone(),
        Value::Object(o) => match o.get("names") {
            Some(Value::Array(a)) => a.clone(),
            _ => return Err(invalid("must be a list of {path, name}".into())),
        },
        other => {
            return Err(invalid(format!(
                "must be a list of {{path, name}}, got {other}"
            )));
        }
    };
    let policy = p.conflict(cx.on_conflict)?;
    let mut pairs = Vec::with_capacity(list.len());
    let mut problems = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let field = |k: &str| entry.get(k).and_then(Value::as_str);
        let (Some(path), Some(name)) = (field("path"), field("name")) else {
            problems.push(format!("entry {i} needs `path` and `name`"));
            continue;
        };
        let path = match cx.scope.resolve(path, g) {
            Ok(path) => path,
            Err(e) => {
                problems.push(format!("entry {i}: {e}"));
                continue;
            }
        };
        let node = match g.node(&path) {
            Some(n) if n.kind == crate::node::NodeKind::File => n,
            Some(_) => {
                problems.push(format!("entry {i}: `{path}` is not a file"));
                continue;
            }
            None => {
                problems.push(format!("entry {i}: `{path}` does not exist"));
                continue;
            }
        };
        let mut name = name.trim().to_owned();
        if let Some(ext) = &node.extension
            && extension_of(&name).as_deref() != Some(ext.as_str())
        {
            name = format!("{name}.{ext}");
        }
        if let Err(e) = check_name(p, "names", &name) {
            problems.push(format!("entry {i}: {e}"));
            continue;
        }
        pairs.push((path, name));
    }
    if !problems.is_empty() {
        return Err(invalid(problems.join("; ")));
    }
    let (mut moved, mut skipped) = (Vec::new(), Vec::new());
    for (path, name) in pairs {
        let to = join(parent_of(&path).unwrap_or(ROOT_ID), &name);
        if to == path {
            skipped.push(json!({"path": path, "reason": "name unchanged"}));
            continue;
        }
        match place(g, cx, to, policy)? {
            Placement::At(to) => moved.push(move_one(g, cx, &path, &to)?),
            Placement::Skip(reason) => skipped.push(json!({"path": path, "reason": reason})),
        }
    }
    Ok(json!({"count": moved.len(), "moved": moved, "skipped": skipped}))
}
