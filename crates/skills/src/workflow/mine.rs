//! Mining the audit log (seed 003): runs that did the same sequence of skill tools, three times
//! or more, are offered as a workflow to save, with the runs they were seen in.

use std::collections::BTreeMap;

use contracts::ExecutedRun;
use serde::Serialize;

/// A repeated sequence of tools, offered as a workflow.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WorkflowSuggestion {
    /// `skill/tool` of each step.
    pub signature: Vec<String>,
    /// A name for it, from its skills (`remove-duplicates-then-organize-by-type`).
    pub name: String,
    /// The committed runs that did it, newest first.
    pub runs: Vec<String>,
    pub requests: Vec<String>,
    /// The folders they acted on (the first step's `path`), as many as differ.
    pub folders: Vec<String>,
}

fn suggested_name(signature: &[String]) -> String {
    let mut skills: Vec<&str> = Vec::new();
    for s in signature {
        let skill = s.split('/').next().unwrap_or(s);
        if skills.last() != Some(&skill) {
            skills.push(skill);
        }
    }
    let name = skills.join("-then-");
    if name.len() <= 64 {
        name
    } else {
        name[..64].trim_end_matches('-').to_owned()
    }
}

/// Tool sequences of committed runs seen in at least `min_runs` runs, the most frequent first;
/// sequences a saved workflow already covers (`saved`: their signatures) are left out.
pub fn suggest_workflows(
    runs: &[ExecutedRun],
    min_runs: usize,
    saved: &[Vec<String>],
) -> Vec<WorkflowSuggestion> {
    let mut groups: BTreeMap<Vec<String>, Vec<&ExecutedRun>> = BTreeMap::new();
    for run in runs
        .iter()
        .filter(|r| r.committed && !r.undo && !r.steps.is_empty())
    {
        groups.entry(run.signature()).or_default().push(run);
    }
    let mut out: Vec<WorkflowSuggestion> = groups
        .into_iter()
        .filter(|(sig, rs)| rs.len() >= min_runs.max(1) && !saved.contains(sig))
        .map(|(signature, mut rs)| {
            rs.sort_by(|a, b| b.at.cmp(&a.at));
            let mut folders: Vec<String> = Vec::new();
            for r in &rs {
                let folder = r
                    .steps
                    .iter()
                    .find_map(|s| s.params.get("path")?.as_str())
                    .unwrap_or(".")
                    .to_owned();
                if !folders.contains(&folder) {
                    folders.push(folder);
                }
            }
            WorkflowSuggestion {
                name: suggested_name(&signature),
                signature,
                runs: rs.iter().map(|r| r.run_id.clone()).collect(),
                requests: rs.iter().map(|r| r.request.clone()).collect(),
                folders,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.runs
            .len()
            .cmp(&a.runs.len())
            .then(b.signature.len().cmp(&a.signature.len()))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::PlanStep;

    fn run(id: &str, at: &str, committed: bool, tools: &[(&str, &str, &str)]) -> ExecutedRun {
        ExecutedRun {
            run_id: id.into(),
            at: at.into(),
            request: format!("request {id}"),
            committed,
            undo: false,
            steps: tools
                .iter()
                .zip(1..)
                .map(|((skill, tool, path), n)| PlanStep {
                    step: n,
                    description: String::new(),
                    skill: (*skill).into(),
                    tool: (*tool).into(),
                    params: serde_json::json!({"path": path})
                        .as_object()
                        .unwrap()
                        .clone(),
                })
                .collect(),
        }
    }

    #[test]
    fn three_committed_runs_of_one_sequence_are_a_suggestion_two_are_not() {
        let dedupe = [
            ("remove-duplicates", "scan", "Downloads"),
            ("remove-duplicates", "remove", "x"),
            ("organize-by-type", "organize", "Downloads"),
        ];
        let desk = [
            ("remove-duplicates", "scan", "Desktop"),
            ("remove-duplicates", "remove", "x"),
            ("organize-by-type", "organize", "Desktop"),
        ];
        let runs = vec![
            run("a", "2026-01-01", true, &dedupe),
            run("b", "2026-01-02", true, &desk),
            run("c", "2026-01-03", false, &dedupe),
            run("d", "2026-01-04", true, &[("search-files", "find", ".")]),
            run("e", "2026-01-05", true, &[("search-files", "find", ".")]),
        ];
        assert!(suggest_workflows(&runs, 3, &[]).is_empty());
        let mut more = runs.clone();
        more.push(run("f", "2026-01-06", true, &dedupe));
        let found = suggest_workflows(&more, 3, &[]);
        assert_eq!(found.len(), 1);
        let s = &found[0];
        assert_eq!(s.runs, ["f", "b", "a"]);
        assert_eq!(s.folders, ["Downloads", "Desktop"]);
        assert_eq!(s.name, "remove-duplicates-then-organize-by-type");
        // Saved already: not suggested again.
        assert!(suggest_workflows(&more, 3, std::slice::from_ref(&s.signature)).is_empty());
    }
}
