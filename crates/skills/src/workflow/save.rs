//! A run's plan turned into a workflow SKILL.md: the folder it acted on becomes the `{path}`
//! parameter (its default the folder of the run), every other value the request said word for word
//! (an extension, a target folder, a size) a parameter of its own with that value as its default,
//! triggers from the workflow's name and from the request with those values as slots, `exists`
//! before, and after the commit what the tools declare they ensure (`ensures`).

use contracts::{
    Condition, ConditionCheck, PlanStep, Workflow, WorkflowParameter, WorkflowStep, find_references,
};
use serde_json::{Map, Value};

use crate::SkillStore;

/// A workflow made from a run, ready to be written as `<skills>/<name>/SKILL.md`.
#[derive(Debug, Clone, PartialEq)]
pub struct SavedWorkflow {
    pub name: String,
    pub description: String,
    pub triggers: Vec<String>,
    pub workflow: Workflow,
    /// The whole SKILL.md text.
    pub skill_md: String,
}

/// The folder the plan acts on: the first step's `path` that is plain text.
fn acted_on(steps: &[PlanStep]) -> Option<String> {
    steps
        .iter()
        .find_map(|s| s.params.get("path")?.as_str().map(str::to_owned))
        .filter(|p| !p.starts_with('$'))
}

fn lift(v: &Value, folder: &str) -> Value {
    match v {
        Value::String(s) if s == folder => Value::String("{path}".into()),
        Value::String(s) => match s.strip_prefix(folder).and_then(|r| r.strip_prefix('/')) {
            Some(rest) if folder != "." => Value::String(format!("{{path}}/{rest}")),
            _ => v.clone(),
        },
        Value::Array(items) => Value::Array(items.iter().map(|i| lift(i, folder)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), lift(x, folder)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Where `value` is said in `request` as a whole (any case, not inside a longer word), as a
/// byte range of `request`.
fn said_at(request: &str, value: &str) -> Option<(usize, usize)> {
    let lower = request.to_lowercase();
    let needle = value.to_lowercase();
    if needle.is_empty() || lower.len() != request.len() {
        return None;
    }
    lower
        .match_indices(&needle)
        .find(|(i, _)| {
            let before = lower[..*i].chars().next_back();
            let after = lower[i + needle.len()..].chars().next();
            !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
        })
        .map(|(i, _)| (i, i + needle.len()))
}

/// The request with the folder's name (as said, any case) replaced by `{path}` and each lifted
/// value by its slot; `None` when the request does not name the folder.
fn request_trigger(request: &str, folder: &str, lifted: &[Lifted]) -> Option<String> {
    let request = request.trim().trim_end_matches(['.', '!', '?']);
    let mut spans: Vec<(usize, usize, String)> = Vec::new();
    if folder != "." {
        let (a, b) = said_at(request, folder)?;
        spans.push((a, b, "path".to_owned()));
    }
    // Longer values first, so "Documents/PDFs" is one slot and not "Documents" and "PDFs".
    let mut by_length: Vec<&Lifted> = lifted.iter().collect();
    by_length.sort_by_key(|l| std::cmp::Reverse(l.value.len()));
    for l in by_length {
        if let Some((a, b)) = said_at(request, &l.value)
            && spans.iter().all(|(x, y, _)| b <= *x || a >= *y)
        {
            spans.push((a, b, l.name.clone()));
        }
    }
    spans.sort();
    let mut out = String::new();
    let mut at = 0;
    for (a, b, name) in spans {
        out.push_str(&request[at..a]);
        out.push_str(&format!("{{{name}}}"));
        at = b;
    }
    out.push_str(&request[at..]);
    Some(out)
}

/// A value of the run lifted into a parameter of the workflow.
#[derive(Debug, Clone, PartialEq)]
struct Lifted {
    name: String,
    value: String,
    /// The step parameter it was taken from.
    key: String,
    /// Where it was taken from, for the parameter's description.
    from: String,
}

/// Replaces each plain-text value of the steps that the request says word for word (not the
/// folder, which is `{path}`, nor a `$step` reference) by a slot named after its parameter; the
/// same value of the same parameter is one slot, another value a second one (`target_2`).
fn lift_said(steps: &mut [WorkflowStep], request: &str) -> Vec<Lifted> {
    let mut lifted: Vec<Lifted> = Vec::new();
    for step in steps.iter_mut() {
        for (key, value) in step.params.iter_mut() {
            let Value::String(s) = value else { continue };
            let plain = !s.starts_with('$') && !s.contains('{') && s.trim().len() >= 2;
            if key == "path" || !plain || said_at(request, s).is_none() {
                continue;
            }
            let name = match lifted.iter().find(|l| l.value == *s && l.key == *key) {
                Some(l) => l.name.clone(),
                None => {
                    let taken = |n: &str| n == "path" || lifted.iter().any(|l| l.name == n);
                    let name = (1..)
                        .map(|i| {
                            if i == 1 {
                                key.clone()
                            } else {
                                format!("{key}_{i}")
                            }
                        })
                        .find(|n| !taken(n))
                        .expect("some name is free");
                    lifted.push(Lifted {
                        name: name.clone(),
                        value: s.clone(),
                        key: key.clone(),
                        from: format!("`{key}` of {}/{}", step.skill, step.tool),
                    });
                    name
                }
            };
            *value = Value::String(format!("{{{name}}}"));
        }
    }
    lifted
}

/// The params a step's result came from: the step itself when it names a `path`, else the
/// earlier step its params refer to.
fn source_params(steps: &[WorkflowStep], i: usize) -> &Map<String, Value> {
    let step = &steps[i];
    if step.params.contains_key("path") {
        return &step.params;
    }
    find_references(&step.params)
        .ok()
        .and_then(|refs| refs.first().map(|r| r.step as usize))
        .and_then(|n| steps.get(n.checked_sub(1)?))
        .map_or(&step.params, |s| &s.params)
}

/// What the steps' tools declare they leave true (`ensures`), on the folder they acted on, with
/// the same filters (a scan of JPEGs ensures no duplicate JPEGs, not no duplicates at all).
fn postconditions(steps: &[WorkflowStep], store: &SkillStore) -> Vec<Condition> {
    let mut out: Vec<Condition> = Vec::new();
    for (i, step) in steps.iter().enumerate() {
        let Some((_, tool)) = store.tool(&step.skill, &step.tool) else {
            continue;
        };
        for check in &tool.planning.ensures {
            let mut params = source_params(steps, i).clone();
            let path = params
                .remove("path")
                .and_then(|p| p.as_str().map(str::to_owned))
                .unwrap_or_else(|| ".".into());
            let condition = Condition {
                check: *check,
                path: Some(path),
                value: None,
                message: None,
                // The duplicate finder takes the scan's filters; loose files are counted of
                // the types the step moved.
                params: match check {
                    ConditionCheck::NoDuplicates => params,
                    _ => params
                        .into_iter()
                        .filter(|(k, _)| k == "extension")
                        .collect(),
                },
            };
            if !out.contains(&condition) {
                out.push(condition);
            }
        }
    }
    out
}

fn yaml_quote(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// The workflow `name` made from a run's plan (`steps`, as committed) for `request`.
pub fn workflow_from_run(
    name: &str,
    request: &str,
    run_id: &str,
    steps: &[PlanStep],
    store: &SkillStore,
) -> SavedWorkflow {
    let folder = acted_on(steps).unwrap_or_else(|| ".".into());
    let mut workflow_steps: Vec<WorkflowStep> = steps
        .iter()
        .map(|s| WorkflowStep {
            skill: s.skill.clone(),
            tool: s.tool.clone(),
            params: s
                .params
                .iter()
                .map(|(k, v)| (k.clone(), lift(v, &folder)))
                .collect(),
        })
        .collect();
    let lifted = lift_said(&mut workflow_steps, request);
    let words = name.replace(['-', '_'], " ");
    let mut triggers = vec![format!("{words} {{path}}")];
    if folder == "." {
        triggers.push(words.clone());
    }
    if let Some(t) = request_trigger(request, &folder, &lifted)
        && !triggers.contains(&t)
    {
        triggers.push(t);
    }
    let mut parameters = vec![WorkflowParameter {
        name: "path".into(),
        r#type: "path".into(),
        description: "The folder to work on".into(),
        default: Some(folder.clone()),
    }];
    parameters.extend(lifted.iter().map(|l| WorkflowParameter {
        name: l.name.clone(),
        r#type: "text".into(),
        description: format!("{} (the run said \"{}\")", l.from, l.value),
        default: Some(l.value.clone()),
    }));
    let preconditions = vec![Condition {
        check: ConditionCheck::Exists,
        path: Some("{path}".into()),
        value: None,
        message: None,
        params: Map::new(),
    }];
    let postconditions = postconditions(&workflow_steps, store);
    let description = format!(
        "Saved workflow: {} (from the request \"{}\"). Runs {} step(s): {}.",
        words,
        request.trim(),
        steps.len(),
        steps
            .iter()
            .map(|s| format!("{}/{}", s.skill, s.tool))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let workflow = Workflow {
        parameters,
        steps: workflow_steps,
        preconditions,
        postconditions,
        source_runs: vec![run_id.to_owned()],
    };
    let skill_md = render(name, &description, &triggers, &workflow, request);
    SavedWorkflow {
        name: name.to_owned(),
        description,
        triggers,
        workflow,
        skill_md,
    }
}

fn json_line(v: &impl serde::Serialize) -> String {
    serde_json::to_string(v).expect("serialises")
}

fn render(
    name: &str,
    description: &str,
    triggers: &[String],
    w: &Workflow,
    request: &str,
) -> String {
    let mut md = format!(
        "---\nname: {name}\ndescription: {}\ntags: [workflow, saved]\ntriggers:\n",
        yaml_quote(description)
    );
    for t in triggers {
        md += &format!("  - {}\n", yaml_quote(t));
    }
    md += "parameters:\n";
    for p in &w.parameters {
        md += &format!("  - {}\n", json_line(p));
    }
    md += "steps:\n";
    for s in &w.steps {
        md += &format!("  - {}\n", json_line(s));
    }
    for (key, list) in [
        ("preconditions", &w.preconditions),
        ("postconditions", &w.postconditions),
    ] {
        if list.is_empty() {
            continue;
        }
        md += &format!("{key}:\n");
        for c in list {
            md += &format!("  - {}\n", json_line(&compact_condition(c)));
        }
    }
    md += &format!("source_runs: {}\n---\n\n", json_line(&w.source_runs));
    md += &format!(
        "# {}\n\nA saved workflow. It was made from the run of \"{}\"; say one of its triggers \
         (\"{}\") to run it again, with another folder in place of `{{path}}`. Every run is \
         simulated and shown before anything on disk changes.\n\nEdit the steps above to change \
         what it does: each is a skill's tool with its parameters, as in a plan; `$step(n)` uses \
         step n's result.\n",
        name.replace(['-', '_'], " "),
        request.trim(),
        triggers.first().map_or("", String::as_str)
    );
    md
}

/// A condition as written in a SKILL.md: only the keys it uses.
fn compact_condition(c: &Condition) -> Value {
    let mut m = Map::new();
    m.insert("check".into(), Value::String(c.check.name().into()));
    if let Some(p) = &c.path {
        m.insert("path".into(), Value::String(p.clone()));
    }
    if let Some(v) = &c.value {
        m.insert("value".into(), Value::String(v.clone()));
    }
    if !c.params.is_empty() {
        m.insert("params".into(), Value::Object(c.params.clone()));
    }
    Value::Object(m)
}
