//! Dispatch of the `llm` primitive's tasks (declared in `skills::llm_primitive_table`):
//! `classify` sorts a folder's files into categories by meaning, `suggest_names` names each file
//! from what it is about, `summarize` says what a file or folder holds. With a [`ModelReader`]
//! (the planner's loaded model) the model reads each file; without one the shared embedder
//! judges, and names and summaries come from what each file records about itself (title, date,
//! author, camera: `sandbox::naming`) and its main sentences. Reads files through the sandbox's
//! scope; never mutates.

use sandbox::{NodeKind, Sandbox};
use serde_json::{Map, Value, json};

use crate::classify::{
    Category, CategorySource, CategorySpec, FileText, categories_from_param, judge, parse_guidance,
};
use crate::pipeline::RetrievalPipeline;
use crate::reader::ModelReader;
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

/// The most characters of a file's text a model reads: the beginning says what it is, and every
/// token is prefill time on a laptop's CPU.
const MODEL_TEXT_CHARS: usize = 1200;

/// Runs the llm task `task` with `params` on the open sandbox; `reader` is the model that reads
/// the files, when one is configured.
pub fn call_task(
    pipeline: &RetrievalPipeline,
    sandbox: &Sandbox,
    task: &str,
    params: &Map<String, Value>,
    reader: Option<&mut dyn ModelReader>,
) -> Result<Value> {
    match task {
        "classify" => classify(pipeline, sandbox, params, reader),
        "suggest_names" => suggest_names(sandbox, params, reader),
        "summarize" => summarize(sandbox, params, reader),
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
    reader: Option<&mut dyn ModelReader>,
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
    let mut model_prior_seen = None;
    let (entries, sure, by) = match reader {
        None => {
            let entries = judged
                .iter()
                .map(|j| {
                    let c = &cats[j.best];
                    json!({
                        "path": j.path,
                        "category": c.name,
                        "folder": c.folder,
                        "confidence": round(j.confidence),
                        "score": round(j.score),
                        "reason": j.reason,
                        "runner_up": j.runner_up.map(|(i, _)| cats[i].name.clone()),
                    })
                })
                .collect::<Vec<_>>();
            (entries, sure, pipeline.embedder().fingerprint().to_owned())
        }
        Some(reader) => {
            let sure = match params.get("min_confidence") {
                None | Some(Value::Null) => pipeline.config().classify_model_sure,
                _ => sure,
            };
            let prior = if pipeline.config().classify_model_calibrate && cats.len() > 1 {
                model_prior(reader, &cats)?
            } else {
                None
            };
            let mut entries = Vec::with_capacity(files.len());
            for (file, j) in files.iter().zip(&judged) {
                entries.push(model_entry(
                    reader,
                    file,
                    &cats,
                    &cats[j.best].name,
                    prior.as_deref(),
                )?);
            }
            model_prior_seen = prior.map(|p| by_name(&cats, &p));
            (entries, sure, reader.name())
        }
    };
    let (mut assignments, mut asked) = (Vec::new(), Vec::new());
    for entry in entries {
        // A model's choice is also sure when the embedder, judging on its own, chose the same.
        let agreed = entry.get("embedder_category").is_some()
            && entry["embedder_category"] == entry["category"];
        let confident = agreed || entry["confidence"].as_f64().unwrap_or(0.0) >= f64::from(sure);
        let path = entry["path"].as_str().unwrap_or_default();
        if confident && !unreadable.iter().any(|u| u == path) {
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
        "by": by,
        "model_prior": model_prior_seen,
    }))
}

/// What the model gives each category for a file with no content: its lean, taken out of every
/// choice (`ModelChoice::calibrated`). `None` when it cannot say.
fn model_prior(reader: &mut dyn ModelReader, cats: &[Category]) -> Result<Option<Vec<f32>>> {
    let empty = FileText {
        path: String::new(),
        name: "untitled".into(),
        text: String::new(),
    };
    match reader.classify(&empty, cats) {
        Ok(choice) => Ok(Some(choice.probabilities)),
        Err(
            e @ RetrievalError::Reading {
                code: "CANCELLED", ..
            },
        ) => Err(e),
        Err(e) => {
            tracing::warn!(error = %e, "the model's lean could not be read; choices uncorrected");
            Ok(None)
        }
    }
}

/// Probabilities in the categories' order as `{name: p}`.
fn by_name(cats: &[Category], probabilities: &[f32]) -> Map<String, Value> {
    cats.iter()
        .zip(probabilities)
        .map(|(c, p)| (c.name.clone(), json!(round(*p))))
        .collect()
}

/// One file as the model judged it; the embedder's closest category beside it. A file the model
/// could not judge is asked about, with why; only a cancellation ends the task.
fn model_entry(
    reader: &mut dyn ModelReader,
    file: &FileText,
    cats: &[Category],
    embedder_choice: &str,
    prior: Option<&[f32]>,
) -> Result<Value> {
    let short = FileText {
        text: file.text.chars().take(MODEL_TEXT_CHARS).collect(),
        ..file.clone()
    };
    match reader.classify(&short, cats) {
        Ok(raw) => {
            let choice = prior.map_or_else(|| raw.clone(), |p| raw.calibrated(p));
            let c = &cats[choice.category];
            let mut reason = format!("{} {:.0}%", c.name, 100.0 * choice.confidence());
            if let Some((i, p)) = choice.runner_up() {
                reason.push_str(&format!(", next {} {:.0}%", cats[i].name, 100.0 * p));
            }
            if !choice.reason.is_empty() {
                reason.push_str(&format!(": {}", choice.reason));
            }
            Ok(json!({
                "path": file.path,
                "category": c.name,
                "folder": c.folder,
                "confidence": round(choice.confidence()),
                "reason": reason,
                "runner_up": choice.runner_up().map(|(i, _)| cats[i].name.clone()),
                "embedder_category": embedder_choice,
                "model_category": cats[raw.category].name,
                "model_probabilities": by_name(cats, &raw.probabilities),
            }))
        }
        Err(RetrievalError::Reading {
            code: "CANCELLED",
            message,
        }) => Err(RetrievalError::Reading {
            code: "CANCELLED",
            message,
        }),
        Err(e) => Ok(json!({
            "path": file.path,
            "category": embedder_choice,
            "folder": cats.iter().find(|c| c.name == embedder_choice).map(|c| c.folder.clone()),
            "confidence": 0.0,
            "reason": format!("the model could not decide ({e}); closest by meaning: {embedder_choice}"),
            "runner_up": Value::Null,
            "embedder_category": embedder_choice,
        })),
    }
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

/// `suggest_names`: a descriptive name for each file of a folder, filled into `pattern` (default
/// `{date} {title}`): the title is the model's reading of what the file is about when a model is
/// configured, else what the file records about itself; files with nothing to go by keep their
/// names and are listed with why.
fn suggest_names(
    sandbox: &Sandbox,
    params: &Map<String, Value>,
    mut reader: Option<&mut dyn ModelReader>,
) -> Result<Value> {
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
        let mut facts = naming::facts(&metadata, &text, stem, modified.as_deref());
        if let Some(reader) = reader.as_deref_mut()
            && !text.trim().is_empty()
        {
            let file = FileText {
                path: node.id.clone(),
                name: node.name.clone(),
                text: text.chars().take(MODEL_TEXT_CHARS).collect(),
            };
            match reader.title(&file) {
                Ok(title) => {
                    facts.title = Some(naming::shorten(&title));
                    facts.title_from = Some("the model's reading of it");
                }
                Err(
                    e @ RetrievalError::Reading {
                        code: "CANCELLED", ..
                    },
                ) => return Err(e),
                // The file's own title stands; the failure is said in the reason.
                Err(e) => tracing::warn!(path = %node.id, error = %e, "the model gave no title"),
            }
        }
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
        "by": match &reader {
            Some(r) => format!("{} (titles), what each file records (date, author, camera)", r.name()),
            None => "what each file records (title, date, author, camera)".to_owned(),
        },
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
/// sentence). With a model, it writes the summary: of the file's text, or of the folder's lines.
fn summarize(
    sandbox: &Sandbox,
    params: &Map<String, Value>,
    reader: Option<&mut dyn ModelReader>,
) -> Result<Value> {
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
        let (summary, by) = match reader {
            Some(reader) if !lines.is_empty() => {
                let listing = FileText {
                    path: path.clone(),
                    name: format!("the folder {path}, one line per file"),
                    text: summary.chars().take(MODEL_TEXT_CHARS * 2).collect(),
                };
                (reader.summarize(&listing, n)?, reader.name())
            }
            _ => (
                summary,
                "each document's title, else its main sentence".to_owned(),
            ),
        };
        return Ok(json!({
            "path": path,
            "files": files.len(),
            "lines": lines,
            "summary": summary,
            "by": by,
        }));
    }
    let (title, text) = title_and_text(sandbox, node);
    if let Some(reader) = reader
        && !text.trim().is_empty()
    {
        let file = FileText {
            path: path.clone(),
            name: node.name.clone(),
            text: text.chars().take(MODEL_TEXT_CHARS * 2).collect(),
        };
        return Ok(json!({
            "path": path,
            "title": title,
            "words": text.split_whitespace().count(),
            "summary": reader.summarize(&file, n)?,
            "by": reader.name(),
        }));
    }
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
