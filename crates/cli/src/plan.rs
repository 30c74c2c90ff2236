//! `scope-weaver plan`: what the planner makes of a request (no sandbox changes), and `--file` to
//! score the planner on a labelled set (eval/plans.jsonl): the skills in order, and the labelled
//! parameters (`plan_score`).

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result};
use contracts::Plan;
use engine::PlanPreview;
use serde_json::{Value, json};
use thinker::PlanRequest;

use crate::commands::{Env, open_engine};
use crate::output::print_json;
use crate::plan_eval::{Case, Tally, print_case};
use crate::plan_score::ToolDefaults;

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
    let defaults: ToolDefaults = crate::commands::load_skills(env)?
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
    let mut tally = Tally::default();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let case = Case::read(line)?;
        let preview = engine.plan(&make(&case.request))?;
        let verdict = tally.add(&case, &preview, &defaults);
        if show_failures {
            print_case(&case, &preview, &verdict);
        }
    }
    let sure_margin = engine.config().planner_sure_margin;
    if env.json {
        print_json(&tally.json(sure_margin));
    } else {
        tally.print(&engine.info().planner, sure_margin);
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
