//! `scope-weaver plan`: what the planner makes of a request (no sandbox changes), and `--file` to
//! score the planner on a labelled set (eval/plans.jsonl): the skills in order, and the labelled
//! parameters (`plan_score`).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use contracts::Plan;
use engine::PlanPreview;
use serde_json::{Value, json};
use thinker::PlanRequest;

use crate::calibrate::Calibration;
use crate::commands::{Env, open_engine};
use crate::output::print_json;

/// What the planner may know of ROOT: the grounding a run would give it, from a scan of ROOT.
pub fn grounding(env: &Env, root: Option<&Path>) -> Result<(Option<String>, Vec<String>)> {
    let Some(root) = root else {
        return Ok((None, Vec::new()));
    };
    let sandbox = engine::Ledger::new(env.config.clone())
        .open_sandbox(root, &sandbox::ScanOptions::default())
        .with_context(|| format!("scanning {}", root.display()))?;
    Ok(pipeline::grounding(&sandbox))
}

/// The plan's skills in order, consecutive repeats collapsed.
pub fn skill_sequence(plan: &Plan) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in &plan.steps {
        if out.last() != Some(&s.skill) {
            out.push(s.skill.clone());
        }
    }
    out
}

/// `got` (repeats collapsed) is one reading of `expected`: each expected entry picks one of its
/// `a|b` alternatives, and consecutive repeats collapse as they do in a plan's sequence
/// (`["search-files|manage-files", "manage-files"]` is also met by `["manage-files"]`).
pub fn sequence_matches(got: &[String], expected: &[String]) -> bool {
    fn go(got: &[String], expected: &[String], last: Option<&str>) -> bool {
        let Some((e, rest)) = expected.split_first() else {
            return got.is_empty();
        };
        e.split('|').any(|alt| {
            if Some(alt) == last {
                go(got, rest, last)
            } else {
                got.first().is_some_and(|g| g == alt) && go(&got[1..], rest, Some(alt))
            }
        })
    }
    go(got, expected, None)
}

fn print_plan(
    PlanPreview {
        planned,
        missing,
        matches,
    }: &PlanPreview,
) {
    for s in &planned.plan.steps {
        println!(
            "{}. {}/{}  {}",
            s.step,
            s.skill,
            s.tool,
            Value::Object(s.params.clone())
        );
        println!("     \"{}\"", s.description);
    }
    for (step, p) in missing {
        println!("   step {step} needs `{p}`: the run will ask for it");
    }
    for m in matches.iter().filter(|m| m.picker) {
        println!(
            "   step {}: the run will ask which skill (the match is not clear)",
            m.step
        );
    }
    if let Some(q) = &planned.clarification {
        println!("question: {q}");
    }
    for n in &planned.notes {
        println!("note: {n}");
    }
}

pub fn plan_cmd(
    env: &Env,
    request: Option<&str>,
    file: Option<&Path>,
    root: Option<&Path>,
    show_failures: bool,
) -> Result<ExitCode> {
    let engine = open_engine(env)?;
    let (root_name, entries) = grounding(env, root)?;
    let make = |text: &str| PlanRequest {
        text: text.to_owned(),
        root_name: root_name.clone(),
        entries: entries.clone(),
        learned: Vec::new(),
    };
    if let Some(text) = request {
        let preview = engine.plan(&make(text))?;
        if env.json {
            let planned = &preview.planned;
            print_json(&json!({
                "plan": planned.plan,
                "clarification": planned.clarification,
                "missing": preview.missing,
                "matches": preview.matches,
                "notes": planned.notes,
                "usage": planned.usage,
            }));
        } else {
            print_plan(&preview);
        }
        return Ok(ExitCode::SUCCESS);
    }
    let file = file.context("give a request or --file")?;
    let text =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut by_kind: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut right, mut total) = (0, 0);
    // (right, total) for requests that must get a question, and for those that must not.
    let (mut must_ask, mut must_act) = ((0, 0), (0, 0));
    let mut latency = 0.0;
    // Requests a model planner could not plan, answered by the rule planner: (right, total).
    let mut fallbacks = (0, 0);
    let defaults: crate::plan_score::ToolDefaults = crate::commands::load_skills(env)?
        .skills()
        .flat_map(|s| {
            s.definition.tools.values().map(|t| {
                (
                    format!("{}/{}", s.definition.name, t.name),
                    t.planning.defaults.clone(),
                )
            })
        })
        .collect();
    // Requests whose skills are right (parameters not checked), and labelled cases whose
    // parameters are all there: (right, total).
    let mut skills_right = 0;
    let mut params_checked = (0, 0);
    let mut calibration = Calibration::default();
    // One record per request (JSON output): what it got, how long it took, how many tokens.
    let mut cases: Vec<Value> = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let item: Value = serde_json::from_str(line).context("a line of the eval file")?;
        let request = item["request"].as_str().context("`request` field")?;
        let expected: Vec<String> = item["skills"]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let clarify = item["clarify"].as_bool().unwrap_or(false);
        let kind = item["kind"].as_str().unwrap_or("other").to_owned();
        let PlanPreview {
            planned,
            missing,
            matches: step_matches,
        } = engine.plan(&make(request))?;
        latency += planned.usage.latency_ms;
        let got = skill_sequence(&planned.plan);
        let asks = planned.clarification.is_some() || !missing.is_empty();
        let matches = sequence_matches(&got, &expected);
        let skills_ok = if clarify {
            asks && (expected.is_empty() || planned.plan.steps.is_empty() || matches)
        } else {
            !asks && matches
        };
        // The labelled parameters, checked too: a case is right when its skills and its
        // parameters are.
        let misses = item["params"]
            .as_object()
            .map(|p| crate::plan_score::param_misses(&planned.plan, p, &defaults))
            .unwrap_or_default();
        if item["params"].is_object() {
            params_checked.1 += 1;
            params_checked.0 += usize::from(misses.is_empty());
        }
        skills_right += usize::from(skills_ok);
        let ok = skills_ok && misses.is_empty();
        if !clarify {
            // A step is right when the plan is, or when its skill is one the request needs.
            let needed = |skill: &str| expected.iter().any(|e| e.split('|').any(|a| a == skill));
            for (step, m) in planned.plan.steps.iter().zip(&step_matches) {
                calibration.add(
                    m.retrieval_sure,
                    m.planner_margin,
                    matches || needed(&step.skill),
                );
            }
        }
        total += 1;
        if planned.fallback.is_some() {
            fallbacks.1 += 1;
            fallbacks.0 += usize::from(ok);
        }
        let by_clarify = if clarify {
            &mut must_ask
        } else {
            &mut must_act
        };
        // Asking or acting is about the request, not its parameters.
        by_clarify.1 += 1;
        by_clarify.0 += usize::from(skills_ok);
        cases.push(json!({
            "id": item["id"], "request": request, "expected": expected, "clarify": clarify,
            "got": got, "asks": asks, "question": planned.clarification.is_some(),
            "right": ok, "skills_right": skills_ok,
            "param_misses": misses, "fallback": planned.fallback,
            "steps": planned.plan.steps.iter()
                .map(|s| json!({"skill": s.skill, "tool": s.tool, "params": s.params}))
                .collect::<Vec<_>>(),
            "response": planned.response, "usage": planned.usage, "margins": planned.confidence,
            "matches": step_matches,
        }));
        let entry = by_kind.entry(kind.clone()).or_default();
        entry.1 += 1;
        if ok {
            right += 1;
            entry.0 += 1;
        } else if show_failures {
            println!(
                "✗ [{kind}] {request}\n    expected {expected:?}{} got {got:?}{}{}",
                if clarify { " + question" } else { "" },
                if asks { " + question" } else { "" },
                if planned.fallback.is_some() {
                    " (the rule planner's: the model's plan failed)"
                } else {
                    ""
                }
            );
            for miss in &misses {
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
    }
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    if env.json {
        let kinds: BTreeMap<&String, Value> = by_kind
            .iter()
            .map(|(k, (a, b))| (k, json!({"right": a, "total": b, "accuracy": pct(*a, *b)})))
            .collect();
        print_json(&json!({
            "right": right, "total": total, "accuracy": pct(right, total),
            "skills": {"right": skills_right, "total": total, "accuracy": pct(skills_right, total)},
            "params_checked": {"right": params_checked.0, "total": params_checked.1,
                               "accuracy": pct(params_checked.0, params_checked.1)},
            "by_kind": kinds, "mean_latency_ms": latency / total.max(1) as f64,
            "asks_when_needed": {"right": must_ask.0, "total": must_ask.1, "accuracy": pct(must_ask.0, must_ask.1)},
            "acts_when_clear": {"right": must_act.0, "total": must_act.1, "accuracy": pct(must_act.0, must_act.1)},
            "rule_fallbacks": {"right": fallbacks.0, "total": fallbacks.1},
            "picker": calibration.json(engine.config().planner_sure_margin),
            "cases": cases,
        }));
    } else {
        println!("| kind | right | total | accuracy |\n|---|---|---|---|");
        for (k, (a, b)) in &by_kind {
            println!("| {k} | {a} | {b} | {:.1}% |", pct(*a, *b));
        }
        println!(
            "| **all** | {right} | {total} | **{:.1}%** |",
            pct(right, total)
        );
        println!(
            "\nright = the skills in order and every labelled parameter. Skills alone: {}/{} \
             ({:.1}%) · labelled parameters all there: {}/{} ({:.1}%)",
            skills_right,
            total,
            pct(skills_right, total),
            params_checked.0,
            params_checked.1,
            pct(params_checked.0, params_checked.1)
        );
        println!(
            "\nasks when it must (clarify: true): {}/{} ({:.1}%) · acts without asking when the \
             request is clear (clarify: false): {}/{} ({:.1}%)",
            must_ask.0,
            must_ask.1,
            pct(must_ask.0, must_ask.1),
            must_act.0,
            must_act.1,
            pct(must_act.0, must_act.1)
        );
        println!(
            "\nplanner: {} · mean planning time {:.1} ms",
            engine.info().planner,
            latency / total.max(1) as f64
        );
        calibration.print(engine.config().planner_sure_margin);
        if fallbacks.1 > 0 {
            println!(
                "the model could not plan {} request(s); the rule planner's plans for them were \
                 right {} time(s) (included above)",
                fallbacks.1, fallbacks.0
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::sequence_matches;

    fn v(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn a_plan_meets_its_expected_skills_with_alternatives_and_repeats_collapsed() {
        let expected = v(&["search-files|manage-files", "manage-files"]);
        assert!(sequence_matches(
            &v(&["search-files", "manage-files"]),
            &expected
        ));
        assert!(sequence_matches(&v(&["manage-files"]), &expected));
        assert!(!sequence_matches(&v(&["search-files"]), &expected));
        assert!(!sequence_matches(
            &v(&["manage-files", "search-files"]),
            &expected
        ));
        let twice = v(&["remove-duplicates", "remove-duplicates", "organize-by-type"]);
        assert!(sequence_matches(
            &v(&["remove-duplicates", "organize-by-type"]),
            &twice
        ));
        assert!(!sequence_matches(&v(&["organize-by-type"]), &twice));
        assert!(sequence_matches(&[], &[]));
        assert!(!sequence_matches(&v(&["manage-files"]), &[]));
    }
}
