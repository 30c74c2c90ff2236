//! Seed 001's evaluation figures from the audit log: near-miss rate, HITL override rate, rollback
//! rate, mean latency per stage and tokens per request. Pure.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::chain::Entry;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AuditStats {
    pub runs: usize,
    pub committed_runs: usize,
    pub failed_runs: usize,
    pub steps_matched: usize,
    pub near_misses: usize,
    /// Near misses per matched step.
    pub near_miss_rate: f64,
    pub reviews: usize,
    pub overrides: usize,
    /// Overrides per step review (approve, override or roll back).
    pub override_rate: f64,
    pub rollbacks: usize,
    /// Rollbacks per changing primitive call.
    pub rollback_rate: f64,
    pub mean_stage_ms: BTreeMap<String, f64>,
    pub tokens_per_request: f64,
}

fn rate(a: usize, b: usize) -> f64 {
    if b == 0 { 0.0 } else { a as f64 / b as f64 }
}

/// The figures over every run in `entries`.
pub fn stats(entries: &[Entry]) -> AuditStats {
    let mut s = AuditStats::default();
    let mut stage: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let (mut tokens, mut mutating_calls) = (0u64, 0usize);
    for e in entries {
        let v = e.value();
        match e.kind.as_str() {
            "task" => s.runs += 1,
            "skill_matched" => s.steps_matched += 1,
            "near_miss" => s.near_misses += 1,
            "approved" => s.reviews += 1,
            "overridden" => {
                s.reviews += 1;
                s.overrides += 1;
            }
            "rolled_back" => {
                s.reviews += 1;
                s.rollbacks += 1;
            }
            "cap_task" => {
                let result: serde_json::Value =
                    serde_json::from_str(v["full_result"].as_str().unwrap_or("{}"))
                        .unwrap_or_default();
                if result["mutates"] == true {
                    mutating_calls += 1;
                }
            }
            "plan" => {
                tokens += v["usage"]["prompt_tokens"].as_u64().unwrap_or(0)
                    + v["usage"]["completion_tokens"].as_u64().unwrap_or(0);
            }
            "stage_finished" => {
                let slot = stage
                    .entry(v["stage"].as_str().unwrap_or("?").to_owned())
                    .or_default();
                slot.0 += v["ms"].as_f64().unwrap_or(0.0);
                slot.1 += 1;
            }
            "finished" if v["committed"] == true => s.committed_runs += 1,
            "failed" => s.failed_runs += 1,
            _ => {}
        }
    }
    s.near_miss_rate = rate(s.near_misses, s.steps_matched);
    s.override_rate = rate(s.overrides, s.reviews);
    s.rollback_rate = rate(s.rollbacks, mutating_calls);
    s.mean_stage_ms = stage
        .into_iter()
        .map(|(k, (sum, n))| (k, sum / n.max(1) as f64))
        .collect();
    s.tokens_per_request = if s.runs == 0 {
        0.0
    } else {
        tokens as f64 / s.runs as f64
    };
    s
}
