//! Dispatch of the `llm` primitive's tasks when no model is configured (declared in
//! `skills::llm_primitive_table`): `classify` sorts a folder's files into categories by meaning
//! with the shared embedder; `suggest_names` names each file from what it records about itself
//! (title, date, author, camera: `sandbox::naming`). Reads files through the sandbox's scope;
//! never mutates.

use sandbox::{NodeKind, Sandbox};
use serde_json::{Map, Value, json};

use crate::classify::{
    Category, CategorySource, CategorySpec, FileText, categories_from_param, judge, parse_guidance,
};
use crate::pipeline::RetrievalPipeline;
use crate::{Result, RetrievalError};

/// Guidance files looked for in the folder being sorted, in this order.
pub const GUIDANCE_FILES: &[&str] = &[
    ".scope-weaver.md",
    ".scope-weaver.yaml",
    ".scope-weaver.yml",
];
/// The most bytes of a file that are read for its text.
const READ_BYTES: usize = 256 << 10;
/// The most files already in a category folder that serve as its examples.
const EXAMPLES: usize = 12;

/// Runs the llm task `task` with `params` on the open sandbox.
pub fn call_task(
    pipeline: &RetrievalPipeline,
    sandbox: &Sandbox,
    task: &str,
    params: &Map<String, Value>,
) -> Result<Value> {
    match task {
        "classify" => classify(pipeline, sandbox, params),
        "suggest_names" => suggest_names(sandbox, params),
        "summarize" => summarize(sandbox, params),
        other => Err(RetrievalError::Params(format!(
            "the llm task `{other}` needs a model (thinker_backend: mistralrs); without one only \
             `classify`, `suggest_names` and `summarize` run"
        ))),
    }
}

fn text_of(sandbox: &Sandbox, id: &str) -> Option<String> {
    let node = sandbox.graph().node(id)?;
    let from = node.content_from.as_deref()?;
    let disk = sandbox.scope().disk_path(from);
    sandbox::parse_file(&disk, node.extension.as_deref(), READ_BYTES)
        .ok()
        .map(|p| p.text)
        .filter(|t| !t.trim().is_empty())
}

fn param_str<'a>(params: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    params
        .get(name)
        .and_then(Value::as_str)
        .filter(|s| !s.trim().is_empty())
}

/// Categories for `folder`: the request's, described by the guidance file where it names them;
/// else the guidance file's; else the folders already there. Each gets its folder: an existing
/// one with the same name (any case) is reused.
fn categories(
    sandbox: &Sandbox,
    folder: &str,
    params: &Map<String, Value>,
) -> Result<(Vec<Category>, Option<String>)> {
    let graph = sandbox.graph();
    let subfolders: Vec<&sandbox::Node> = graph
        .children(folder)
        .into_iter()
        .filter(|n| n.kind == NodeKind::Dir && !n.name.starts_with('.'))
        .collect();
    let mut guidance_file = None;
    let mut guided: Vec<CategorySpec> = Vec::new();
    for name in GUIDANCE_FILES {
        let id = sandbox::join_id(folder, name);
        if graph.contains(&id) {
            let text = text_of(sandbox, &id).unwrap_or_default();
            guided = parse_guidance(&text, !name.ends_with(".md"))
                .map_err(|e| RetrievalError::Params(format!("{id}: {e}")))?;
            guidance_file = Some(id);
            break;
        }
    }
    let requested = categories_from_param(params.get("categories"))?;
    let (specs, source) = if !requested.is_empty() {
        let specs = requested
            .into_iter()
            .map(
                |r| match guided.iter().find(|g| g.name.eq_ignore_ascii_case(&r.name)) {
                    Some(g) if r.description.is_empty() => CategorySpec {
                        description: g.description.clone(),
                        ..r
                    },
                    _ => r,
                },
            )
            .collect();
        (specs, CategorySource::Request)
    } else if !guided.is_empty() {
        (guided, CategorySource::Guidance)
    } else {
        let specs = subfolders
            .iter()
            .map(|n| CategorySpec {
                name: n.name.clone(),
                description: String::new(),
            })
            .collect();
        (specs, CategorySource::Folder)
    };
    let out = specs
        .into_iter()
        .map(|spec| {
            let existing = subfolders
                .iter()
                .find(|n| same_category(&n.name, &spec.name));
            let examples = existing
                .map(|dir| {
                    graph
                        .children(&dir.id)
                        .into_iter()
                        .filter(|n| n.kind == NodeKind::File)
                        .take(EXAMPLES)
                        .filter_map(|n| text_of(sandbox, &n.id).map(|t| format!("{}\n{t}", n.name)))
                        .collect()
                })
                .unwrap_or_default();
            Category {
                folder: existing
                    .map(|n| n.id.clone())
                    .unwrap_or_else(|| sandbox::join_id(folder, &spec.name)),
                exists: existing.is_some(),
                name: spec.name,
                description: spec.description,
                source,
                examples,
            }
        })
        .collect();
    Ok((out, guidance_file))
}

/// "Invoices" and "invoice" are the same category folder.
fn same_category(folder: &str, name: &str) -> bool {
    let norm = |s: &str| {
        let s = s.trim().to_lowercase();
        s.strip_suffix('s').map(str::to_owned).unwrap_or(s)
    };
    norm(folder) == norm(name)
}

fn classify(
    pipeline: &RetrievalPipeline,
    sandbox: &Sandbox,
    params: &Map<String, Value>,
) -> Result<Value> {
    let folder = sandbox.resolve(param_str(params, "path").unwrap_or("."))?;
    let graph = sandbox.graph();
    if graph.node(&folder).is_none_or(|n| n.kind != NodeKind::Dir) {
        return Err(RetrievalError::Params(format!(
            "`{folder}` is not a folder"
        )));
    }
    let (cats, guidance) = categories(sandbox, &folder, params)?;
    if cats.is_empty() {
        return Err(RetrievalError::Params(format!(
            "no categories to sort `{folder}` into: name them (\"into Invoices, Recipes and \
             Meeting notes\"), describe them in {folder}/.scope-weaver.md, or create the folders"
        )));
    }
    let mut files = Vec::new();
    let mut unreadable = Vec::new();
    for node in files_in(sandbox, &folder, params) {
        match text_of(sandbox, &node.id) {
            Some(text) => files.push(FileText {
                path: node.id.clone(),
                name: node.name.clone(),
                text,
            }),
            // No text: judged by its name alone.
            None => {
                unreadable.push(node.id.clone());
                files.push(FileText {
                    path: node.id.clone(),
                    name: node.name.clone(),
                    text: String::new(),
                });
            }
        }
    }
    let sure = match params.get("min_confidence") {
        None | Some(Value::Null) => pipeline.config().classify_sure_margin,
        Some(v) => v
            .as_f64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .filter(|m| (0.0..=1.0).contains(m))
            .map(|m| m as f32)
            .ok_or_else(|| {
                RetrievalError::Params(format!("`min_confidence` must be a number 0..1, got {v}"))
            })?,
    };
    let judged = judge(&**pipeline.embedder(), &files, &cats)?;
    let (mut assignments, mut asked) = (Vec::new(), Vec::new());
    for j in &judged {
        let c = &cats[j.best];
        let entry = json!({
            "path": j.path,
            "category": c.name,
            "folder": c.folder,
            "confidence": round(j.confidence),
            "score": round(j.score),
            "reason": j.reason,
            "runner_up": j.runner_up.map(|(i, _)| cats[i].name.clone()),
        });
        if j.confidence >= sure && !unreadable.contains(&j.path) {
            assignments.push(entry);
        } else {
            asked.push(entry);
        }
    }
    Ok(json!({
        "path": folder,
        "categories": cats,
        "guidance": guidance,
        "assignments": assignments,
        "asked": asked,
        "count": judged.len(),
        "sure_margin": sure,
        "unreadable": unreadable,
        "by": pipeline.embedder().fingerprint(),
    }))
}

/// The visible files directly in `folder`, only those with the `extension` param's extensions
/// when it is given.
fn files_in<'a>(
    sandbox: &'a Sandbox,
    folder: &str,
    params: &Map<String, Value>,
) -> Vec<&'a sandbox::Node> {
    let only: Vec<String> = match params.get("extension") {
        Some(Value::String(s)) => s
            .split([',', ' '])
            .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
            .filter(|e| !e.is_empty())
            .collect(),
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
            .collect(),
        _ => Vec::new(),
    };
    sandbox
        .graph()
        .children(folder)
        .into_iter()
        .filter(|n| n.kind == NodeKind::File && !n.name.starts_with('.'))
        .filter(|n| {
            only.is_empty()
                || n.extension
                    .as_deref()
                    .is_some_and(|e| only.iter().any(|o| o == e))
        })
        .collect()
}

/// `suggest_names`: a descriptive name for each file of a folder from what it records about
/// itself, filled into `pattern` (default `{date} {title}`); files with nothing to go by keep
/// their names and are listed with why.
fn suggest_names(sandbox: &Sandbox, params: &Map<String, Value>) -> Result<Value> {
    use sandbox::naming;
    let folder = sandbox.resolve(param_str(params, "path").unwrap_or("."))?;
    if sandbox
        .graph()
        .node(&folder)
        .is_none_or(|n| n.kind != NodeKind::Dir)
    {
        return Err(RetrievalError::Params(format!(
            "`{folder}` is not a folder"
        )));
    }
    let pattern = param_str(params, "pattern").unwrap_or(naming::DEFAULT_NAME_PATTERN);
    let (mut names, mut unnamed) = (Vec::new(), Vec::new());
    for node in files_in(sandbox, &folder, params) {
        let parsed = node.content_from.as_deref().and_then(|from| {
            let disk = sandbox.scope().disk_path(from);
            sandbox::parse_file(&disk, node.extension.as_deref(), READ_BYTES).ok()
        });
        let (metadata, text) = parsed.map(|p| (p.metadata, p.text)).unwrap_or_default();
        let stem = node
            .extension
            .as_deref()
            .and_then(|e| node.name.strip_suffix(&format!(".{e}")))
            .unwrap_or(&node.name);
        let modified = node.modified_at.map(sandbox::format_time);
        let facts = naming::facts(&metadata, &text, stem, modified.as_deref());
        match naming::fill(pattern, &facts) {
            Ok(name) => names.push(json!({
                "path": node.id,
                "name": name,
                "reason": naming::reason(&facts, pattern),
            })),
            Err(Ok(why)) => unnamed.push(json!({"path": node.id, "reason": why})),
            Err(Err(problem)) => {
                return Err(RetrievalError::Params(format!("`pattern`: {problem}")));
            }
        }
    }
    Ok(json!({
        "path": folder,
        "pattern": pattern,
        "count": names.len(),
        "names": names,
        "unnamed": unnamed,
        "by": "what each file records (title, date, author, camera)",
    }))
}

/// The title and text of a file as its parser reads them (empty when it has none).
fn title_and_text(sandbox: &Sandbox, node: &sandbox::Node) -> (Option<String>, String) {
    let parsed = node.content_from.as_deref().and_then(|from| {
        let disk = sandbox.scope().disk_path(from);
        sandbox::parse_file(&disk, node.extension.as_deref(), READ_BYTES).ok()
    });
    match parsed {
        Some(p) => (
            p.metadata
                .get("title")
                .and_then(Value::as_str)
                .map(str::to_owned),
            p.text,
        ),
        None => (None, String::new()),
    }
}

/// Files listed in a folder's summary.
const SUMMARY_FILES: usize = 20;

/// `summarize`: a file's title and the sentences that carry most of what it says
/// (`sandbox::summary`); for a folder, one line per document (its title, else its main
/// sentence).
fn summarize(sandbox: &Sandbox, params: &Map<String, Value>) -> Result<Value> {
    let path = sandbox.resolve(param_str(params, "path").unwrap_or("."))?;
    let n = match params.get("sentences") {
        None | Some(Value::Null) => 3,
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .filter(|n| (1..=20).contains(n))
            .ok_or_else(|| RetrievalError::Params(format!("`sentences` must be 1..20, got {v}")))?
            as usize,
    };
    let node = sandbox
        .graph()
        .node(&path)
        .ok_or_else(|| RetrievalError::Params(format!("`{path}` does not exist")))?;
    if node.kind == NodeKind::Dir {
        let files = files_in(sandbox, &path, params);
        let lines: Vec<Value> = files
            .iter()
            .take(SUMMARY_FILES)
            .map(|f| {
                let (title, text) = title_and_text(sandbox, f);
                let line = title.or_else(|| sandbox::summary::summarize(&text, 1).pop());
                json!({"path": f.id, "line": line})
            })
            .collect();
        let summary = lines
            .iter()
            .map(|l| {
                format!(
                    "{}: {}",
                    l["path"].as_str().unwrap_or_default(),
                    l["line"].as_str().unwrap_or("(no text)")
                )
            })
            .collect::<Vec<_>>()
            .join("\n");
        return Ok(json!({
            "path": path,
            "files": files.len(),
            "lines": lines,
            "summary": summary,
            "by": "each document's title, else its main sentence",
        }));
    }
    let (title, text) = title_and_text(sandbox, node);
    // The title is said once, first; a heading repeating it in the text is not a sentence more.
    let same_as_title = |s: &String| {
        title
            .as_deref()
            .is_some_and(|t| s.trim_end_matches(['.', ':']).eq_ignore_ascii_case(t))
    };
    let mut sentences = sandbox::summary::summarize(&text, n + 1);
    sentences.retain(|s| !same_as_title(s));
    sentences.truncate(n);
    if sentences.is_empty() && title.is_none() {
        return Err(RetrievalError::Params(format!(
            "`{path}` has no text to summarize"
        )));
    }
    let summary = title
        .iter()
        .cloned()
        .chain(sentences.iter().cloned())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(json!({
        "path": path,
        "title": title,
        "sentences": sentences,
        "words": text.split_whitespace().count(),
        "summary": summary,
        "by": "the sentences with the text's most frequent words, no model",
    }))
}

fn round(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}
