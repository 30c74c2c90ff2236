//! Dispatch of the retrieval primitives that skills declare (`content_search`, `skill_match`;
//! declared in `skills::retrieval_primitive_table`). They never mutate.

use sandbox::Sandbox;
use serde_json::{Map, Value, json};

use crate::pipeline::RetrievalPipeline;
use crate::{Result, RetrievalError};

fn str_param<'a>(params: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>> {
    match params.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(RetrievalError::Params(format!(
            "`{name}` must be text, got {other}"
        ))),
    }
}

fn top_k(params: &Map<String, Value>, default: usize) -> Result<usize> {
    match params.get("top_k") {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
            .filter(|n| (1..=1000).contains(n))
            .map(|n| n as usize)
            .ok_or_else(|| {
                RetrievalError::Params(format!("`top_k` must be a whole number 1..1000, got {v}"))
            }),
    }
}

/// Whether the retrieval query type `query_type` reads the working folder's content index (which
/// is then brought up to date before the run's first step; a run without one never reads every
/// file of a big folder).
pub fn reads_content_index(query_type: &str) -> bool {
    query_type == "content_search"
}

/// Runs the retrieval query type `query_type` with `params`. `content_search` needs the open
/// sandbox (for scope resolution and staleness).
pub fn call_retrieval(
    pipeline: &RetrievalPipeline,
    sandbox: Option<&Sandbox>,
    query_type: &str,
    params: &Map<String, Value>,
) -> Result<Value> {
    let default_k = pipeline.config().top_k;
    match query_type {
        "content_search" => {
            let query = str_param(params, "query")?
                .filter(|q| !q.trim().is_empty())
                .ok_or_else(|| RetrievalError::Params("`query` is required".into()))?;
            let sandbox = sandbox.ok_or_else(|| {
                RetrievalError::Params("content_search needs an open working folder".into())
            })?;
            let scope = match str_param(params, "path")? {
                Some(p) => sandbox.resolve(p)?,
                None => ".".to_owned(),
            };
            let r = pipeline.query_content(sandbox, query, &scope, top_k(params, default_k)?)?;
            let paths: Vec<&str> = r.hits.iter().map(|h| h.path.as_str()).collect();
            Ok(json!({
                "query": r.query,
                "scope": r.scope,
                "count": r.hits.len(),
                "paths": paths,
                "hits": r.hits,
                "stale_count": r.stale.len(),
                "warning": r.warning,
            }))
        }
        "skill_match" => {
            let query = str_param(params, "query")?
                .filter(|q| !q.trim().is_empty())
                .ok_or_else(|| RetrievalError::Params("`query` is required".into()))?;
            let k = top_k(params, default_k)?;
            let r = pipeline.match_skill(query)?;
            // Each hit says what its tool does in a person's words (its description), so an
            // answer to "what can you do with photos?" reads as capabilities, not tool names.
            let hits: Vec<Value> = r
                .hits
                .iter()
                .take(k)
                .map(|h| {
                    let mut hit = json!(h);
                    if let (Some(d), Some(o)) = (
                        pipeline.tool_description(&h.skill, &h.tool),
                        hit.as_object_mut(),
                    ) {
                        o.insert("summary".into(), json!(d.summary));
                        o.insert("examples".into(), json!(d.examples));
                    }
                    hit
                })
                .collect();
            let runner_ups: Vec<Value> = r
                .runner_ups()
                .iter()
                .take(3)
                .map(|h| json!({"skill": h.skill, "tool": h.tool, "score": h.score}))
                .collect();
            Ok(json!({
                "query": r.query,
                "confident": r.confident,
                "threshold": r.threshold,
                "gap": r.gap,
                "margin": r.margin(),
                "hits": hits,
                "runner_ups": runner_ups,
            }))
        }
        other => Err(RetrievalError::Params(format!(
            "unknown retrieval query type `{other}` (known: content_search, skill_match)"
        ))),
    }
}
