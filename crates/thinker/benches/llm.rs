//! The LLM planner on one real GGUF model (`SCOPE_WEAVER_BENCH_MODEL`), from a cold start in this
//! process: model load, the worked example planned cold (first request) and warm (the model
//! loaded, the prompt's fixed prefix cached, the folder listing changed since), then raw timing of
//! one unconstrained greedy generation on the planner's own prompt (prefill tokens/s, time to
//! first token, decode tokens/s), cold and with everything before the last turn cached, and the peak RSS.
//! Prints one JSON object; `scripts/bench-llm.sh` runs llama.cpp (node-llama-cpp) on the same file
//! and the same prompt text (written to `SCOPE_WEAVER_BENCH_PROMPT_OUT`) and makes the table.

#[path = "../tests/support/mod.rs"]
mod support;

use std::path::PathBuf;
use std::time::Instant;

use config::{PipelineConfig, ThinkerBackend};
use serde_json::json;
use thinker::{
    LlmLimits, LlmPlanner, PlanControl, PlanRequest, Planned, Planner, Role, build_prompt,
};

const WORKED_EXAMPLE: &str = "Clean up my Downloads folder – remove duplicates, then organize the \
remaining files into subfolders by type";
/// Tokens generated in the raw timing (greedy; the model may stop earlier).
const RAW_MAX_TOKENS: usize = 128;

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}

/// The process's peak resident set (VmHWM), in MB.
fn peak_rss_mb() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn skills_of(planned: &Planned) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for step in &planned.plan.steps {
        if out.last() != Some(&step.skill) {
            out.push(step.skill.clone());
        }
    }
    out
}

fn main() {
    let model = PathBuf::from(
        std::env::var_os("SCOPE_WEAVER_BENCH_MODEL")
            .expect("set SCOPE_WEAVER_BENCH_MODEL to a GGUF file (scripts/bench-llm.sh does)"),
    );
    let world = support::PlanningWorld::shipped(PipelineConfig {
        thinker_backend: ThinkerBackend::Mistralrs,
        thinker_model_path: Some(model.clone()),
        ..PipelineConfig::default()
    });
    let (cx, config) = (world.cx(), &world.config);
    let request = |entries: &[&str]| PlanRequest {
        text: WORKED_EXAMPLE.into(),
        root_name: Some("home".into()),
        entries: entries.iter().map(|e| (*e).to_owned()).collect(),
        learned: Vec::new(),
    };
    let first_folder = ["Downloads", "Documents", "Pictures"];
    let later_folder = ["Downloads", "Documents", "Music", "Pictures"];

    let started = Instant::now();
    let mut planner = LlmPlanner::load(&model, LlmLimits::from_config(config)).unwrap();
    let load_ms = ms_since(started);

    let plan = |planner: &mut LlmPlanner, request: &PlanRequest| {
        let t = Instant::now();
        let result = planner.plan(request, &cx, &PlanControl::default());
        let ms = ms_since(t);
        match result {
            Ok(planned) => json!({
                "ms": ms,
                "valid": true,
                "skills": skills_of(&planned),
                "attempts": planned.usage.attempts,
                "prompt_tokens": planned.usage.prompt_tokens,
                "completion_tokens": planned.usage.completion_tokens,
                "response": planned.response,
            }),
            Err(e) => json!({"ms": ms, "valid": false, "error": e.to_string()}),
        }
    };
    let cold = plan(&mut planner, &request(&first_folder));
    let warm = plan(&mut planner, &request(&later_folder));

    // Raw timing on the planner's prompt. A first line no earlier prompt had makes sure nothing
    // is cached for the cold figure; the warm one shares everything up to the last turn.
    let mut turns = build_prompt(&request(&first_folder), &cx, config.planner_guidance_skills)
        .unwrap()
        .turns();
    turns[0].1 = format!("Benchmark run {}.\n{}", std::process::id(), turns[0].1);
    let mut warm_turns = turns.clone();
    if let Some(last) = warm_turns.last_mut() {
        last.1 = build_prompt(&request(&later_folder), &cx, config.planner_guidance_skills)
            .unwrap()
            .user;
    }
    let raw_cold = planner.time_generation(&turns, RAW_MAX_TOKENS).unwrap();
    let raw_warm = planner
        .time_generation(&warm_turns, RAW_MAX_TOKENS)
        .unwrap();
    if let Some(out) = std::env::var_os("SCOPE_WEAVER_BENCH_PROMPT_OUT") {
        let messages = |turns: &[(Role, String)]| -> Vec<serde_json::Value> {
            turns
                .iter()
                .map(|(role, text)| json!({"role": format!("{role:?}").to_lowercase(), "content": text}))
                .collect()
        };
        let prompts = json!({
            "messages": messages(&turns),
            "warm_messages": messages(&warm_turns),
            "max_tokens": RAW_MAX_TOKENS,
        });
        std::fs::write(out, serde_json::to_string_pretty(&prompts).unwrap()).unwrap();
    }
    let file = model.file_name().unwrap().to_string_lossy().into_owned();
    let result = json!({
        "engine": "mistral.rs",
        "model": file,
        "load_ms": load_ms,
        "plan_cold_ms": load_ms + cold["ms"].as_f64().unwrap(),
        "plan_cold": cold,
        "plan_warm": warm,
        "prompt_tokens": raw_cold.prompt_tokens,
        "first_token_ms": raw_cold.first_token_ms,
        "prefill_tok_s": raw_cold.prefill_tokens_per_s(),
        "decode_tokens": raw_cold.completion_tokens,
        "decode_tok_s": raw_cold.decode_tokens_per_s(),
        "warm_prompt_tokens": raw_warm.prompt_tokens,
        "warm_first_token_ms": raw_warm.first_token_ms,
        "warm_decode_tok_s": raw_warm.decode_tokens_per_s(),
        "peak_rss_mb": peak_rss_mb(),
    });
    println!("{}", serde_json::to_string(&result).unwrap());
}
