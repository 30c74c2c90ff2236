//! Scoring the planner on a labelled set (`scope-weaver plan --file eval/plans.jsonl`): per
//! request, whether its skills (in order) and its labelled parameters are right, whether it asked
//! when it had to, and, for every step of a clear request, whether the run would show the
//! near-miss picker (`calibrate`). `--failures` lists the wrong plans (`✗`) and the steps that
//! would ask which skill (`?`).

use std::collections::BTreeMap;

use anyhow::{Context, Result};
use engine::PlanPreview;
use serde_json::{Value, json};

use crate::calibrate::Calibration;
use crate::plan::{sequence_matches, skill_sequence};
use crate::plan_score::{ToolDefaults, param_misses};

/// One labelled request of the set.
pub struct Case {
    pub request: String,
    expected: Vec<String>,
    clarify: bool,
    kind: String,
    params: Option<serde_json::Map<String, Value>>,
    id: Value,
}

impl Case {
    pub fn read(line: &str) -> Result<Case> {
        let item: Value = serde_json::from_str(line).context("a line of the eval file")?;
        Ok(Case {
            request: item["request"]
                .as_str()
                .context("`request` field")?
                .to_owned(),
            expected: item["skills"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default(),
            clarify: item["clarify"].as_bool().unwrap_or(false),
            kind: item["kind"].as_str().unwrap_or("other").to_owned(),
            params: item["params"].as_object().cloned(),
            id: item["id"].clone(),
        })
    }

    /// The request needs `skill` (one of an expected entry's `a|b` alternatives).
    fn needs(&self, skill: &str) -> bool {
        self.expected
            .iter()
            .any(|e| e.split('|').any(|a| a == skill))
    }
}

/// How one plan scored.
pub struct Verdict {
    got: Vec<String>,
    asks: bool,
    skills_ok: bool,
    misses: Vec<String>,
}

impl Verdict {
    pub fn right(&self) -> bool {
        self.skills_ok && self.misses.is_empty()
    }
}

/// The set's counts so far: `(right, total)` pairs.
#[derive(Default)]
pub struct Tally {
    right: usize,
    total: usize,
    by_kind: BTreeMap<String, (usize, usize)>,
    /// Requests that must get a question, and those that must not.
    must_ask: (usize, usize),
    must_act: (usize, usize),
    latency: f64,
    /// Requests a model planner could not plan, answered by the rule planner.
    fallbacks: (usize, usize),
    /// Requests whose skills are right (parameters not checked).
    skills_right: usize,
    /// Labelled cases whose parameters are all there.
    params_checked: (usize, usize),
    calibration: Calibration,
    /// One record per request (JSON output): what it got, how long it took, how many tokens.
    cases: Vec<Value>,
}

impl Tally {
    /// Scores `preview` against `case` and counts it.
    pub fn add(&mut self, case: &Case, preview: &PlanPreview, defaults: &ToolDefaults) -> Verdict {
        let PlanPreview {
            planned,
            missing,
            matches: step_matches,
        } = preview;
        self.latency += planned.usage.latency_ms;
        let got = skill_sequence(&planned.plan);
        let asks = planned.clarification.is_some() || !missing.is_empty();
        let matches = sequence_matches(&got, &case.expected);
        let skills_ok = if case.clarify {
            asks && (case.expected.is_empty() || planned.plan.steps.is_empty() || matches)
        } else {
            !asks && matches
        };
        // The labelled parameters, checked too: a case is right when its skills and its
        // parameters are.
        let misses = case
            .params
            .as_ref()
            .map(|p| param_misses(&planned.plan, p, defaults))
            .unwrap_or_default();
        if case.params.is_some() {
            self.params_checked.1 += 1;
            self.params_checked.0 += usize::from(misses.is_empty());
        }
        self.skills_right += usize::from(skills_ok);
        let verdict = Verdict {
            got,
            asks,
            skills_ok,
            misses,
        };
        if !case.clarify {
            // A step is right when the plan is, or when its skill is one the request needs.
            for (step, m) in planned.plan.steps.iter().zip(step_matches) {
                self.calibration.add(
                    m.retrieval_sure,
                    m.planner_margin,
                    matches || case.needs(&step.skill),
                );
            }
        }
        self.total += 1;
        if planned.fallback.is_some() {
            self.fallbacks.1 += 1;
            self.fallbacks.0 += usize::from(verdict.right());
        }
        let by_clarify = if case.clarify {
            &mut self.must_ask
        } else {
            &mut self.must_act
        };
        // Asking or acting is about the request, not its parameters.
        by_clarify.1 += 1;
        by_clarify.0 += usize::from(skills_ok);
        self.cases.push(json!({
            "id": case.id, "request": case.request, "expected": case.expected,
            "clarify": case.clarify, "got": verdict.got, "asks": asks,
            "question": planned.clarification.is_some(),
            "right": verdict.right(), "skills_right": skills_ok,
            "param_misses": verdict.misses, "fallback": planned.fallback,
            "steps": planned.plan.steps.iter()
                .map(|s| json!({"skill": s.skill, "tool": s.tool, "params": s.params}))
                .collect::<Vec<_>>(),
            "response": planned.response, "usage": planned.usage, "margins": planned.confidence,
            "matches": step_matches,
        }));
        let entry = self.by_kind.entry(case.kind.clone()).or_default();
        entry.1 += 1;
        if verdict.right() {
            self.right += 1;
            entry.0 += 1;
        }
        verdict
    }

    pub fn json(&self, sure_margin: f32) -> Value {
        let pct = |(a, b): (usize, usize)| percent(a, b);
        let kinds: BTreeMap<&String, Value> = self
            .by_kind
            .iter()
            .map(|(k, (a, b))| {
                (
                    k,
                    json!({"right": a, "total": b, "accuracy": percent(*a, *b)}),
                )
            })
            .collect();
        json!({
            "right": self.right, "total": self.total, "accuracy": percent(self.right, self.total),
            "skills": {"right": self.skills_right, "total": self.total,
                       "accuracy": percent(self.skills_right, self.total)},
            "params_checked": {"right": self.params_checked.0, "total": self.params_checked.1,
                               "accuracy": pct(self.params_checked)},
            "by_kind": kinds, "mean_latency_ms": self.latency / self.total.max(1) as f64,
            "asks_when_needed": {"right": self.must_ask.0, "total": self.must_ask.1,
                                 "accuracy": pct(self.must_ask)},
            "acts_when_clear": {"right": self.must_act.0, "total": self.must_act.1,
                                "accuracy": pct(self.must_act)},
            "rule_fallbacks": {"right": self.fallbacks.0, "total": self.fallbacks.1},
            "picker": self.calibration.json(sure_margin),
            "cases": self.cases,
        })
    }

    /// The Markdown summary: accuracy by kind, skills and parameters, asking, the picker table.
    pub fn print(&self, planner: &str, sure_margin: f32) {
        println!("| kind | right | total | accuracy |\n|---|---|---|---|");
        for (k, (a, b)) in &self.by_kind {
            println!("| {k} | {a} | {b} | {:.1}% |", percent(*a, *b));
        }
        println!(
            "| **all** | {} | {} | **{:.1}%** |",
            self.right,
            self.total,
            percent(self.right, self.total)
        );
        println!(
            "\nright = the skills in order and every labelled parameter. Skills alone: {}/{} \
             ({:.1}%) · labelled parameters all there: {}/{} ({:.1}%)",
            self.skills_right,
            self.total,
            percent(self.skills_right, self.total),
            self.params_checked.0,
            self.params_checked.1,
            percent(self.params_checked.0, self.params_checked.1)
        );
        println!(
            "\nasks when it must (clarify: true): {}/{} ({:.1}%) · acts without asking when the \
             request is clear (clarify: false): {}/{} ({:.1}%)",
            self.must_ask.0,
            self.must_ask.1,
            percent(self.must_ask.0, self.must_ask.1),
            self.must_act.0,
            self.must_act.1,
            percent(self.must_act.0, self.must_act.1)
        );
        println!(
            "\nplanner: {planner} · mean planning time {:.1} ms",
            self.latency / self.total.max(1) as f64
        );
        self.calibration.print(sure_margin);
        if self.fallbacks.1 > 0 {
            println!(
                "the model could not plan {} request(s); the rule planner's plans for them were \
                 right {} time(s) (included above)",
                self.fallbacks.1, self.fallbacks.0
            );
        }
    }
}

fn percent(a: usize, b: usize) -> f64 {
    100.0 * a as f64 / b.max(1) as f64
}

/// `--failures`: a wrong plan (`✗`, with what was expected, the parameters missed and the
/// steps), and each step of a clear request that would show the near-miss picker (`?`, with the
/// planner's margin and whether retrieval agreed).
pub fn print_case(case: &Case, preview: &PlanPreview, verdict: &Verdict) {
    let planned = &preview.planned;
    if !verdict.right() {
        println!(
            "✗ [{}] {}\n    expected {:?}{} got {:?}{}{}",
            case.kind,
            case.request,
            case.expected,
            if case.clarify { " + question" } else { "" },
            verdict.got,
            if verdict.asks { " + question" } else { "" },
            if planned.fallback.is_some() {
                " (the rule planner's: the model's plan failed)"
            } else {
                ""
            }
        );
        for miss in &verdict.misses {
            println!("    param {miss}");
        }
        for s in &planned.plan.steps {
            println!(
                "      {}/{} {}",
                s.skill,
                s.tool,
                Value::Object(s.params.clone())
            );
        }
    }
    if case.clarify {
        return;
    }
    for (step, m) in planned.plan.steps.iter().zip(&preview.matches) {
        if m.picker {
            println!(
                "? [{}] {}\n    step {} {}/{} asks which skill: planner margin {}, retrieval {}",
                case.kind,
                case.request,
                step.step,
                step.skill,
                step.tool,
                m.planner_margin
                    .map_or("none".to_owned(), |x| format!("{x:.3}")),
                if m.retrieval_agrees {
                    "agrees"
                } else {
                    "prefers another skill"
                }
            );
        }
    }
}
