//! The workflow keys of a SKILL.md frontmatter, read into a `contracts::Workflow`; every problem
//! is a diagnostic on the key's line.

use std::collections::BTreeSet;
use std::path::Path;

use contracts::{
    Condition, ConditionCheck, Workflow, WorkflowParameter, WorkflowStep, find_references,
    trigger_placeholders,
};
use serde_json::Value as Json;
use serde_yaml::{Mapping, Value};

use crate::diagnostic::Diagnostic;

/// The frontmatter keys a workflow adds.
pub(crate) const WORKFLOW_KEYS: &[&str] = &[
    "parameters",
    "steps",
    "preconditions",
    "postconditions",
    "source_runs",
];

/// The parameter types a slot may have.
const PARAMETER_TYPES: &[&str] = &["path", "text"];

struct Reader<'a> {
    file: &'a Path,
    diags: &'a mut Vec<Diagnostic>,
}

impl Reader<'_> {
    fn error(&mut self, line: usize, code: &str, message: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(self.file, line, code, message));
    }
    fn warning(&mut self, line: usize, code: &str, message: impl Into<String>) {
        self.diags
            .push(Diagnostic::warning(self.file, line, code, message));
    }
}

fn to_json(v: &Value) -> Json {
    serde_json::to_value(v).unwrap_or(Json::Null)
}

/// Reads the workflow keys: `None` when the frontmatter has no `steps` (not a workflow) or when
/// any of them is wrong (all problems reported).
pub(crate) fn parse_workflow(
    fm: &Mapping,
    line_of: &dyn Fn(&str) -> usize,
    triggers: &[String],
    file: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Option<Workflow> {
    let mut r = Reader { file, diags };
    let Some(steps) = fm.get("steps") else {
        for key in WORKFLOW_KEYS.iter().filter(|k| fm.contains_key(**k)) {
            r.warning(
                line_of(key),
                "WORKFLOW_KEY_WITHOUT_STEPS",
                format!(
                    "`{key}` only means something in a workflow (a skill with `steps:`); ignored"
                ),
            );
        }
        return None;
    };
    let before = r.diags.iter().filter(|d| d.is_error()).count();
    let parameters = parameters(&mut r, fm.get("parameters"), line_of("parameters"));
    let steps = workflow_steps(&mut r, steps, line_of("steps"));
    let preconditions = conditions(&mut r, fm, "preconditions", line_of("preconditions"));
    let postconditions = conditions(&mut r, fm, "postconditions", line_of("postconditions"));
    let source_runs = match fm.get("source_runs").map(to_json) {
        None | Some(Json::Null) => Vec::new(),
        Some(v) => serde_json::from_value(v).unwrap_or_else(|_| {
            r.error(
                line_of("source_runs"),
                "BAD_FIELD",
                "`source_runs` must be a list of run ids",
            );
            Vec::new()
        }),
    };
    let workflow = Workflow {
        parameters,
        steps,
        preconditions,
        postconditions,
        source_runs,
    };
    check_slots(&mut r, &workflow, triggers, line_of);
    let errors = r.diags.iter().filter(|d| d.is_error()).count();
    (errors == before).then_some(workflow)
}

fn parameters(r: &mut Reader, v: Option<&Value>, line: usize) -> Vec<WorkflowParameter> {
    let items = match v.map(to_json) {
        None | Some(Json::Null) => return Vec::new(),
        Some(Json::Array(items)) => items,
        Some(_) => {
            r.error(
                line,
                "BAD_FIELD",
                "`parameters` must be a list of {name, type, description, default}",
            );
            return Vec::new();
        }
    };
    let mut out: Vec<WorkflowParameter> = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let item = match item {
            Json::String(name) => serde_json::json!({"name": name}),
            other => other,
        };
        match serde_json::from_value::<WorkflowParameter>(item) {
            Ok(p) if !PARAMETER_TYPES.contains(&p.r#type.as_str()) => r.error(
                line,
                "BAD_PARAMETER",
                format!(
                    "parameter `{}` has type `{}`; use one of {}",
                    p.name,
                    p.r#type,
                    PARAMETER_TYPES.join(", ")
                ),
            ),
            Ok(p) if out.iter().any(|q| q.name == p.name) => r.error(
                line,
                "BAD_PARAMETER",
                format!("parameter `{}` is declared twice", p.name),
            ),
            Ok(p) if p.name.trim().is_empty() => r.error(
                line,
                "BAD_PARAMETER",
                format!("parameter {} has no name", i + 1),
            ),
            Ok(p) => out.push(p),
            Err(e) => r.error(line, "BAD_PARAMETER", format!("parameter {}: {e}", i + 1)),
        }
    }
    out
}

fn workflow_steps(r: &mut Reader, v: &Value, line: usize) -> Vec<WorkflowStep> {
    let Json::Array(items) = to_json(v) else {
        r.error(
            line,
            "BAD_FIELD",
            "`steps` must be a list of {skill, tool, params}",
        );
        return Vec::new();
    };
    if items.is_empty() {
        r.error(line, "EMPTY_WORKFLOW", "`steps` lists no step");
    }
    let mut out = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let n = i + 1;
        match serde_json::from_value::<WorkflowStep>(item) {
            Ok(s) if s.skill.trim().is_empty() || s.tool.trim().is_empty() => r.error(
                line,
                "BAD_STEP",
                format!("step {n} needs both `skill` and `tool`"),
            ),
            Ok(s) => {
                let references = match find_references(&s.params) {
                    Ok(refs) => refs,
                    Err(e) => {
                        r.error(line, "BAD_STEP_REFERENCE", format!("step {n}: {e}"));
                        Vec::new()
                    }
                };
                for reference in references {
                    if reference.step as usize >= n || reference.step == 0 {
                        r.error(
                            line,
                            "BAD_STEP_REFERENCE",
                            format!(
                                "step {n} refers to `$step({})`: a step may only use an earlier step's result",
                                reference.step
                            ),
                        );
                    }
                }
                out.push(s);
            }
            Err(e) => r.error(line, "BAD_STEP", format!("step {n}: {e}")),
        }
    }
    out
}

fn conditions(r: &mut Reader, fm: &Mapping, key: &str, line: usize) -> Vec<Condition> {
    let items = match fm.get(key).map(to_json) {
        None | Some(Json::Null) => return Vec::new(),
        Some(Json::Array(items)) => items,
        Some(_) => {
            r.error(
                line,
                "BAD_FIELD",
                format!("`{key}` must be a list of {{check, path, value, message}}"),
            );
            return Vec::new();
        }
    };
    let checks: Vec<&str> = ConditionCheck::ALL.iter().map(|c| c.name()).collect();
    let mut out = Vec::new();
    for (i, item) in items.into_iter().enumerate() {
        let check = item
            .get("check")
            .and_then(Json::as_str)
            .unwrap_or_default()
            .to_owned();
        if ConditionCheck::parse(&check).is_none() {
            r.error(
                line,
                "BAD_CONDITION",
                format!(
                    "{key} {}: unknown check `{check}`; use one of {}",
                    i + 1,
                    checks.join(", ")
                ),
            );
            continue;
        }
        match serde_json::from_value::<Condition>(item) {
            Ok(c) if c.check.takes_value() && c.value.is_none() => r.error(
                line,
                "BAD_CONDITION",
                format!("{key} {}: `{check}` needs a `value`", i + 1),
            ),
            Ok(c) => out.push(c),
            Err(e) => r.error(line, "BAD_CONDITION", format!("{key} {}: {e}", i + 1)),
        }
    }
    out
}

/// `{slot}` names in a JSON value's strings.
fn slots_in(v: &Json, out: &mut BTreeSet<String>) {
    match v {
        Json::String(s) => out.extend(trigger_placeholders(s).into_iter().map(str::to_owned)),
        Json::Array(items) => items.iter().for_each(|i| slots_in(i, out)),
        Json::Object(m) => m.values().for_each(|i| slots_in(i, out)),
        _ => {}
    }
}

/// Every slot the triggers, steps and conditions use is a declared parameter; a parameter no
/// trigger can fill needs a default.
fn check_slots(r: &mut Reader, w: &Workflow, triggers: &[String], line_of: &dyn Fn(&str) -> usize) {
    let declared: BTreeSet<&str> = w.parameters.iter().map(|p| p.name.as_str()).collect();
    let mut used = BTreeSet::new();
    for s in &w.steps {
        slots_in(&Json::Object(s.params.clone()), &mut used);
    }
    for c in w.preconditions.iter().chain(&w.postconditions) {
        used.extend(
            [c.path.as_deref(), c.value.as_deref()]
                .into_iter()
                .flatten()
                .flat_map(trigger_placeholders)
                .map(str::to_owned),
        );
    }
    for slot in used.iter().filter(|s| !declared.contains(s.as_str())) {
        r.error(
            line_of("steps"),
            "UNKNOWN_SLOT",
            format!("`{{{slot}}}` is used but not declared under `parameters`"),
        );
    }
    for t in triggers {
        for slot in trigger_placeholders(t) {
            if !declared.contains(slot) {
                r.error(
                    line_of("triggers"),
                    "UNKNOWN_SLOT",
                    format!(
                        "trigger \"{t}\" fills `{{{slot}}}`, which is not a declared parameter"
                    ),
                );
            }
        }
    }
    if triggers.is_empty() {
        r.warning(
            line_of("steps"),
            "WORKFLOW_WITHOUT_TRIGGERS",
            "a workflow without `triggers` is never matched to a request",
        );
    }
    for p in w.parameters.iter().filter(|p| p.default.is_none()) {
        let filled = triggers
            .iter()
            .any(|t| trigger_placeholders(t).contains(&p.name.as_str()));
        if !filled && !triggers.is_empty() {
            r.error(
                line_of("parameters"),
                "UNFILLED_PARAMETER",
                format!(
                    "parameter `{}` has no default and no trigger fills it",
                    p.name
                ),
            );
        }
    }
}
