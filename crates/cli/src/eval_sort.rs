//! `scope-weaver eval-sort --file eval/content.jsonl`: how well sorting by meaning works. The
//! labelled documents are written as real files (PDF with a text layer, DOCX, Markdown, text) into
//! a temporary `Inbox`, classified into the file's categories by the `classify` task — with the
//! configured embedder, or with the planner's model when one is configured (`thinker_backend:
//! mistralrs`, `thinker_reads_files`) — and scored: accuracy among the files sorted without
//! asking, the share asked about, overall top-1, files per second, and the calibration table of
//! the sure margin (embedder) or the model's probability.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use retrieval::RetrievalPipeline;
use sandbox::parse::samples;
use serde::Deserialize;
use serde_json::{Value, json};

use crate::commands::{Env, open_sandbox};
use crate::output::print_json;

/// Margins tried for `classify_sure_margin`.
const MARGINS: &[f64] = &[0.0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.08, 0.10, 0.15];
/// Probabilities tried for `classify_model_sure`.
const PROBABILITIES: &[f64] = &[0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.8, 0.9, 1.01];

#[derive(Debug, Deserialize)]
struct Labelled {
    name: String,
    format: String,
    category: String,
    title: String,
    text: String,
}

fn bytes_of(doc: &Labelled) -> Result<Vec<u8>> {
    Ok(match doc.format.as_str() {
        "pdf" => samples::pdf(
            &doc.title,
            "Scope Weaver eval",
            "20240301120000",
            &[&doc.text],
        ),
        "docx" => samples::docx(&doc.title, "Scope Weaver eval", &[&doc.text]),
        "md" => format!("# {}\n\n{}\n", doc.title, doc.text).into_bytes(),
        "txt" => format!("{}\n", doc.text).into_bytes(),
        other => bail!(
            "{}: unknown format `{other}` (pdf, docx, md, txt)",
            doc.name
        ),
    })
}

/// One judged file: its label, the category chosen, the confidence, and (with a model) the
/// embedder's choice beside the model's.
struct Judged {
    label: String,
    chosen: String,
    confidence: f64,
    embedder: Option<String>,
    /// The model's own probabilities, before any calibration.
    model: Value,
}

#[derive(Debug, Deserialize)]
struct Query {
    query: String,
    category: String,
}

/// Content search over the same files: for each labelled query, whether the first hit is of its
/// category, the share of the top five that are, and whether anything was found at all.
fn search_scores(
    pipeline: &mut RetrievalPipeline,
    sandbox: &mut sandbox::Sandbox,
    file: &Path,
    label_of: &dyn Fn(&str) -> Option<String>,
) -> Result<Value> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let queries: Vec<Query> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()
        .with_context(|| format!("reading {}", file.display()))?;
    pipeline.index_sandbox(sandbox)?;
    let (mut first, mut in_top, mut shown, mut none) = (0usize, 0usize, 0usize, 0usize);
    let mut misses = Vec::new();
    for q in &queries {
        let r = pipeline.query_content(sandbox, &q.query, ".", 5)?;
        let right = |p: &str| label_of(p).as_deref() == Some(q.category.as_str());
        if r.hits.is_empty() {
            none += 1;
        }
        if r.hits.first().is_some_and(|h| right(&h.path)) {
            first += 1;
        } else {
            misses.push(json!({"query": q.query, "category": q.category, "first": r.hits.first().map(|h| label_of(&h.path))}));
        }
        in_top += r.hits.iter().filter(|h| right(&h.path)).count();
        shown += r.hits.len();
    }
    let n = queries.len().max(1) as f64;
    Ok(json!({
        "queries": queries.len(),
        "first_right": 100.0 * first as f64 / n,
        "precision_at_5": 100.0 * in_top as f64 / shown.max(1) as f64,
        "no_hit": 100.0 * none as f64 / n,
        "misses": misses,
    }))
}

pub fn eval_sort_cmd(
    env: &Env,
    file: &Path,
    queries: Option<&Path>,
    failures: bool,
    every: usize,
) -> Result<ExitCode> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let docs: Vec<Labelled> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, l)| {
            serde_json::from_str(l).with_context(|| format!("{}:{}", file.display(), i + 1))
        })
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .step_by(every.max(1))
        .collect();
    let mut categories: Vec<String> = Vec::new();
    for d in &docs {
        if !categories.contains(&d.category) {
            categories.push(d.category.clone());
        }
    }
    let dir = tempfile::tempdir()?;
    let inbox = dir.path().join("Inbox");
    std::fs::create_dir(&inbox)?;
    for d in &docs {
        std::fs::write(inbox.join(&d.name), bytes_of(d)?)
            .with_context(|| format!("writing {}", d.name))?;
    }
    let mut sandbox = open_sandbox(env, dir.path())?;
    let mut pipeline = RetrievalPipeline::open(&env.config)?;
    let params = json!({"path": "Inbox", "categories": categories, "min_confidence": 0.0});
    let mut planner = match env.config.thinker_backend {
        config::ThinkerBackend::Mistralrs if env.config.thinker_reads_files => {
            Some(thinker::build_planner(&env.config)?)
        }
        _ => None,
    };
    let mut reader = planner
        .as_mut()
        .and_then(|p| p.reader(thinker::PlanControl::default()));
    let started = Instant::now();
    let data = retrieval::call_task(
        &pipeline,
        &sandbox,
        "classify",
        params.as_object().expect("object"),
        reader
            .as_mut()
            .map(|r| &mut **r as &mut dyn retrieval::ModelReader),
    )?;
    let with_model = reader.is_some();
    let seconds = started.elapsed().as_secs_f64();
    let label_of = |path: &str| {
        let name = path.rsplit('/').next().unwrap_or(path);
        docs.iter()
            .find(|d| d.name == name)
            .map(|d| d.category.clone())
    };
    let judged: Vec<Judged> = ["assignments", "asked"]
        .iter()
        .flat_map(|k| data[k].as_array().cloned().unwrap_or_default())
        .filter_map(|a| {
            Some(Judged {
                label: label_of(a["path"].as_str()?)?,
                chosen: a["category"].as_str()?.to_owned(),
                confidence: a["confidence"].as_f64()?,
                embedder: a["embedder_category"].as_str().map(str::to_owned),
                model: a["model_probabilities"].clone(),
            })
        })
        .collect();
    if judged.len() != docs.len() {
        bail!(
            "classified {} of {} documents (names must be unique)",
            judged.len(),
            docs.len()
        );
    }
    let (sure, thresholds) = if with_model {
        (env.config.classify_model_sure as f64, PROBABILITIES)
    } else {
        (env.config.classify_sure_margin as f64, MARGINS)
    };
    let rows: Vec<Value> = thresholds
        .iter()
        .chain(std::iter::once(&sure))
        .map(|&m| row(&judged, m))
        .collect();
    // With a model: how often it agrees with the embedder, and how right it is then.
    let agreement = with_model.then(|| {
        let agree: Vec<&Judged> = judged
            .iter()
            .filter(|j| j.embedder.as_deref() == Some(j.chosen.as_str()))
            .collect();
        json!({
            "agree_share": 100.0 * agree.len() as f64 / judged.len().max(1) as f64,
            "accuracy_agreeing": 100.0 * agree.iter().filter(|j| j.label == j.chosen).count() as f64
                / agree.len().max(1) as f64,
            "embedder_top1": 100.0 * judged.iter().filter(|j| j.embedder.as_deref() == Some(j.label.as_str())).count() as f64
                / judged.len().max(1) as f64,
        })
    });
    let at_default = rows.last().cloned().expect("a row");
    let search = match queries {
        Some(q) => Some(search_scores(&mut pipeline, &mut sandbox, q, &label_of)?),
        None => None,
    };
    let top1 =
        100.0 * judged.iter().filter(|j| j.label == j.chosen).count() as f64 / judged.len() as f64;
    let summary = json!({
        "documents": docs.len(),
        "categories": categories,
        "embedder": pipeline.embedder().fingerprint(),
        "by": data["by"],
        "top1": top1,
        "sure": sure,
        "accuracy_sure": at_default["accuracy_sure"],
        "asked_share": at_default["asked_share"],
        "files_per_second": docs.len() as f64 / seconds.max(1e-9),
        "calibration": &rows[..thresholds.len()],
        "agreement": agreement,
        "model_prior": data["model_prior"],
        "search": search,
        "files": judged
            .iter()
            .map(|j| json!({"label": j.label, "chosen": j.chosen, "confidence": j.confidence, "embedder": j.embedder, "model": j.model}))
            .collect::<Vec<_>>(),
    });
    if env.json {
        print_json(&summary);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} documents, {} categories, sorted by {}",
        docs.len(),
        categories.len(),
        summary["by"].as_str().unwrap_or("?")
    );
    let lever = if with_model {
        "classify_model_sure"
    } else {
        "classify_sure_margin"
    };
    println!(
        "top-1 {top1:.1}% · at {lever} {sure:.2}: {:.1}% right among the files sorted \
         without asking, {:.1}% asked · {:.2} files/s",
        at_default["accuracy_sure"].as_f64().unwrap_or(0.0),
        at_default["asked_share"].as_f64().unwrap_or(0.0),
        summary["files_per_second"].as_f64().unwrap_or(0.0)
    );
    if let Some(s) = &search {
        println!(
            "content search, {} queries that share no topic word with their files: the first hit \
             right {:.1}%, right among the top 5 {:.1}%, no hit {:.1}%",
            s["queries"],
            s["first_right"].as_f64().unwrap_or(0.0),
            s["precision_at_5"].as_f64().unwrap_or(0.0),
            s["no_hit"].as_f64().unwrap_or(0.0)
        );
    }
    if let Some(a) = &agreement {
        println!(
            "the embedder alone: top-1 {:.1}% · the model agrees with it on {:.1}% of the files, \
             {:.1}% right there",
            a["embedder_top1"].as_f64().unwrap_or(0.0),
            a["agree_share"].as_f64().unwrap_or(0.0),
            a["accuracy_agreeing"].as_f64().unwrap_or(0.0)
        );
    }
    let column = if with_model {
        "model probability (or the embedder agrees)"
    } else {
        "sure margin"
    };
    println!("\n| {column} | asked | right among the rest |\n|---|---|---|");
    for r in &rows[..thresholds.len()] {
        println!(
            "| {:.2} | {:.1}% | {:.1}% |",
            r["margin"].as_f64().unwrap_or(0.0),
            r["asked_share"].as_f64().unwrap_or(0.0),
            r["accuracy_sure"].as_f64().unwrap_or(0.0)
        );
    }
    if failures {
        println!();
        for a in ["assignments", "asked"]
            .iter()
            .flat_map(|k| data[k].as_array().cloned().unwrap_or_default())
        {
            let path = a["path"].as_str().unwrap_or("");
            let label = label_of(path).unwrap_or_default();
            if a["category"].as_str() != Some(label.as_str()) {
                println!(
                    "{path}: {label}, got {}",
                    a["reason"].as_str().unwrap_or("")
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// At one sure margin (or model probability): the share asked about and the accuracy among the
/// others. A model's choice the embedder agrees with is sure at any threshold, as in the task.
fn row(judged: &[Judged], margin: f64) -> Value {
    let sure: Vec<&Judged> = judged
        .iter()
        .filter(|j| j.confidence >= margin || j.embedder.as_deref() == Some(j.chosen.as_str()))
        .collect();
    let right = sure.iter().filter(|j| j.label == j.chosen).count();
    json!({
        "margin": margin,
        "asked_share": 100.0 * (judged.len() - sure.len()) as f64 / judged.len().max(1) as f64,
        "accuracy_sure": 100.0 * right as f64 / sure.len().max(1) as f64,
    })
}
