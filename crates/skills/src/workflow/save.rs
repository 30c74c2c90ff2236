//! A run's plan turned into a workflow SKILL.md: the folder it acted on becomes the `{path}`
//! parameter (its default the folder of the run), triggers from the workflow's name and from the
//! request, `exists` before, and after the commit what the tools declare they ensure (`ensures`).

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

/// The request with the folder's name (as said, any case) replaced by `{path}`.
fn request_trigger(request: &str, folder: &str) -> Option<String> {
    let request = request.trim().trim_end_matches(['.', '!', '?']);
    if folder == "." {
        return Some(request.to_owned());
    }
    let lower = request.to_lowercase();
    let needle = folder.to_lowercase();
    let at = lower.match_indices(&needle).find(|(i, _)| {
        let before = lower[..*i].chars().next_back();
        let after = lower[i + needle.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })?;
    let (i, _) = at;
    Some(format!(
        "{}{{path}}{}",
        &request[..i],
        &request[i + needle.len()..]
    ))
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
    let workflow_steps: Vec<WorkflowStep> = steps
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
    let words = name.replace(['-', '_'], " ");
    let mut triggers = vec![format!("{words} {{path}}")];
    if folder == "." {
        triggers.push(words.clone());
    }
    if let Some(t) = request_trigger(request, &folder)
        && !triggers.contains(&t)
    {
        triggers.push(t);
    }
    let parameters = vec![WorkflowParameter {
        name: "path".into(),
        r#type: "path".into(),
        description: "The folder to work on".into(),
        default: Some(folder.clone()),
    }];
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
