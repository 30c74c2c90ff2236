//! What each run did, read back from its records: the plan as the person shaped it (near-miss
//! picks, edited params) without the steps rolled back, skipped or failed, renumbered. Saved
//! workflows and workflow mining start from this. Pure: a function of entries.

use std::collections::BTreeMap;

use contracts::{ExecutedRun, PlanStep};
use serde_json::Value;

use crate::chain::Entry;

#[derive(Default)]
struct RunState {
    run: Option<ExecutedRun>,
    ran: BTreeMap<u32, bool>,
}

/// Every run in `entries`, oldest first.
pub fn executed_runs(entries: &[Entry]) -> Vec<ExecutedRun> {
    let mut order: Vec<String> = Vec::new();
    let mut runs: BTreeMap<String, RunState> = BTreeMap::new();
    for e in entries {
        let v = e.value();
        if e.kind == "task" {
            order.push(e.run_id.clone());
            runs.insert(
                e.run_id.clone(),
                RunState {
                    run: Some(ExecutedRun {
                        run_id: e.run_id.clone(),
                        at: e.at.clone(),
                        request: v["prompt_list"][0].as_str().unwrap_or_default().to_owned(),
                        steps: Vec::new(),
                        committed: false,
                        undo: false,
                    }),
                    ran: BTreeMap::new(),
                },
            );
            continue;
        }
        let Some(state) = runs.get_mut(&e.run_id) else {
            continue;
        };
        let Some(run) = state.run.as_mut() else {
            continue;
        };
        let step_no = v["step"].as_u64().map(|n| n as u32);
        let step = |run: &mut ExecutedRun| -> Option<usize> {
            run.steps.iter().position(|s| Some(s.step) == step_no)
        };
        match e.kind.as_str() {
            "plan" => {
                run.steps = serde_json::from_value(v["plan"]["steps"].clone()).unwrap_or_default();
                state.ran.clear();
            }
            "near_miss" => {
                let chosen = &v["chosen"];
                if let (Some(i), Some(skill), Some(tool)) =
                    (step(run), chosen["skill"].as_str(), chosen["tool"].as_str())
                {
                    run.steps[i].skill = skill.to_owned();
                    run.steps[i].tool = tool.to_owned();
                }
            }
            "overridden" => {
                if let (Some(i), Value::Object(params)) = (step(run), &v["params"]) {
                    run.steps[i].params = params.clone();
                }
            }
            "cap_task" => {
                if let Some(n) = step_no {
                    let ok = v["status"]
                        .as_str()
                        .is_some_and(|s| s.eq_ignore_ascii_case("processed"));
                    state.ran.insert(n, ok);
                }
            }
            // At a step's own review nothing after it has run yet; at the final review every
            // step from the rollback point on is undone: either way, `n` and what follows.
            "rolled_back" => {
                if let Some(n) = step_no {
                    for (_, ran) in state.ran.range_mut(n..) {
                        *ran = false;
                    }
                }
            }
            "skipped" => {
                if let Some(n) = step_no {
                    state.ran.insert(n, false);
                }
            }
            "undo_planned" => run.undo = true,
            "finished" => run.committed = v["committed"].as_bool().unwrap_or(false),
            "status" if v["recovered"].as_bool() == Some(true) => run.committed = true,
            _ => {}
        }
    }
    order
        .into_iter()
        .filter_map(|id| {
            let mut state = runs.remove(&id)?;
            let mut run = state.run.take()?;
            run.steps = kept_steps(std::mem::take(&mut run.steps), &state.ran);
            Some(run)
        })
        .collect()
}

/// The steps that ran, renumbered; a step that uses a dropped step's result is dropped too.
fn kept_steps(steps: Vec<PlanStep>, ran: &BTreeMap<u32, bool>) -> Vec<PlanStep> {
    let mut renumber: BTreeMap<u32, u32> = BTreeMap::new();
    let mut out = Vec::new();
    for mut s in steps {
        if ran.get(&s.step) != Some(&true) {
            continue;
        }
        let refs = contracts::find_references(&s.params).unwrap_or_default();
        if refs.iter().any(|r| !renumber.contains_key(&r.step)) {
            continue;
        }
        let new = out.len() as u32 + 1;
        renumber.insert(s.step, new);
        s.step = new;
        s.params = s
            .params
            .into_iter()
            .map(|(k, v)| (k, renumbered(v, &renumber)))
            .collect();
        out.push(s);
    }
    out
}

fn renumbered(v: Value, map: &BTreeMap<u32, u32>) -> Value {
    match v {
        Value::String(s) => {
            let mut out = s.clone();
            // Longest numbers first, through a marker, so `$step(1)` never rewrites `$step(12)`.
            let mut pairs: Vec<(&u32, &u32)> = map.iter().filter(|(a, b)| a != b).collect();
            pairs.sort_by_key(|(old, _)| std::cmp::Reverse(old.to_string().len()));
            for (old, new) in pairs {
                out = out.replace(&format!("$step({old})"), &format!("$step(\u{0}{new})"));
            }
            Value::String(out.replace('\u{0}', ""))
        }
        Value::Array(items) => {
            Value::Array(items.into_iter().map(|i| renumbered(i, map)).collect())
        }
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| (k, renumbered(x, map)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_dropped_step_takes_its_dependents_and_the_rest_are_renumbered() {
        let step = |n: u32, params: Value| PlanStep {
            step: n,
            description: String::new(),
            skill: "s".into(),
            tool: format!("t{n}"),
            params: params.as_object().unwrap().clone(),
        };
        let steps = vec![
            step(1, json!({"path": "A"})),
            step(2, json!({"source": "$step(1).nodes"})),
            step(3, json!({"path": "B"})),
            step(
                4,
                json!({"groups": "$step(3).groups", "x": ["$step(3).groups"]}),
            ),
        ];
        let ran = BTreeMap::from([(1, false), (2, true), (3, true), (4, true)]);
        let kept = kept_steps(steps, &ran);
        let tools: Vec<&str> = kept.iter().map(|s| s.tool.as_str()).collect();
        assert_eq!(tools, ["t3", "t4"]);
        assert_eq!(kept[1].step, 2);
        assert_eq!(kept[1].params["groups"], "$step(1).groups");
        assert_eq!(kept[1].params["x"], json!(["$step(1).groups"]));
    }
}
