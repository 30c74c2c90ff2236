//! Saved workflows matched to a request (seed 003's triggers, seed 004's top-five matching): a
//! request that says one of a workflow's triggers whole ("tidy Desktop" for "tidy {path}") is
//! planned as that workflow's steps with the slots filled, before any other planner is asked.

use std::collections::BTreeMap;
use std::time::Instant;

use contracts::{Workflow, WorkflowUse, strip_placeholders};
use regex::Regex;
use serde::Serialize;
use skills::SkillStore;

use crate::{
    DraftedTools, PlanControl, PlanRequest, PlanUsage, Planned, Planner, PlanningContext, Result,
    ToolDraftRequest,
};

/// How well one workflow trigger fits a request.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct WorkflowMatch {
    pub name: String,
    pub trigger: String,
    /// 1.0 when the request says the trigger whole with every slot filled; otherwise the share
    /// of the trigger's words the request says.
    pub score: f32,
    /// The request says the trigger whole and every slot has a usable value: it runs.
    pub exact: bool,
    pub slots: BTreeMap<String, String>,
    /// Why a whole match does not run (a path slot that names no folder here).
    pub problem: Option<String>,
}

fn words(text: &str) -> Vec<String> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// Runs of whitespace as one space (a trigger and a request are compared this way).
fn collapse(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        if ch.is_whitespace() {
            if !out.ends_with(' ') {
                out.push(' ');
            }
        } else {
            out.push(ch);
        }
    }
    out
}

/// The trigger as a whole-request pattern (any case, on whitespace-collapsed text): its words as
/// written, each slot some text.
fn trigger_regex(trigger: &str) -> Option<Regex> {
    let mut pattern = String::from("(?i)^");
    let trigger = collapse(trigger.trim());
    let mut rest = trigger.as_str();
    while let Some(open) = rest.find('{') {
        let close = open + rest[open..].find('}')?;
        pattern += &regex::escape(&rest[..open]);
        let name = rest[open + 1..close].trim();
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        pattern += &format!("(?P<{name}>.+?)");
        rest = &rest[close + 1..];
    }
    pattern += &regex::escape(rest);
    pattern += "[.!?]*$";
    Regex::new(&pattern).ok()
}

/// A path slot's value as a folder of the working folder: "my Desktop folder" is `Desktop`, the
/// root's own name is `.`; with a listing, the value must name one of its entries.
fn folder_value(said: &str, request: &PlanRequest) -> std::result::Result<String, String> {
    let mut v = said.trim().trim_matches(['"', '\'', '`']).to_owned();
    for prefix in ["my ", "the "] {
        if v.to_lowercase().starts_with(prefix) {
            v = v[prefix.len()..].to_owned();
        }
    }
    for suffix in [" folder", " directory"] {
        if v.to_lowercase().ends_with(suffix) {
            v.truncate(v.len() - suffix.len());
        }
    }
    let v = v.trim().trim_end_matches('/').to_owned();
    if v.is_empty() {
        return Err(format!("\"{said}\" names no folder"));
    }
    if v == "."
        || request
            .root_name
            .as_deref()
            .is_some_and(|r| r.eq_ignore_ascii_case(&v))
    {
        return Ok(".".into());
    }
    if request.entries.is_empty() {
        return Ok(v);
    }
    request
        .entries
        .iter()
        .find(|e| e.eq_ignore_ascii_case(&v))
        .cloned()
        .ok_or_else(|| format!("no folder named \"{v}\" here"))
}

fn match_trigger(
    name: &str,
    trigger: &str,
    workflow: &Workflow,
    request: &PlanRequest,
) -> WorkflowMatch {
    let mut m = WorkflowMatch {
        name: name.to_owned(),
        trigger: trigger.to_owned(),
        score: 0.0,
        exact: false,
        slots: BTreeMap::new(),
        problem: None,
    };
    let said = collapse(request.text.trim());
    let pattern = trigger_regex(trigger);
    if let Some(caps) = pattern.as_ref().and_then(|re| re.captures(&said)) {
        m.score = 1.0;
        let mut problems = Vec::new();
        for p in &workflow.parameters {
            let said = caps.name(&p.name).map(|c| c.as_str());
            let value = match (said, p.r#type.as_str()) {
                (Some(s), "path") => folder_value(s, request),
                (Some(s), _) => Ok(s.trim().to_owned()),
                (None, _) => p
                    .default
                    .clone()
                    .ok_or_else(|| format!("nothing fills `{{{}}}`", p.name)),
            };
            match value {
                Ok(v) => {
                    m.slots.insert(p.name.clone(), v);
                }
                Err(e) => problems.push(e),
            }
        }
        m.exact = problems.is_empty();
        m.problem = (!problems.is_empty()).then(|| problems.join("; "));
        return m;
    }
    let said_words = words(&request.text);
    let wanted = words(&strip_placeholders(trigger));
    if !wanted.is_empty() {
        let hits = wanted.iter().filter(|w| said_words.contains(w)).count();
        // Slightly below a whole match, however many words agree.
        m.score = 0.95 * hits as f32 / wanted.len() as f32;
    }
    m
}

/// Every workflow's best trigger for the request, best first.
pub fn match_workflows(request: &PlanRequest, store: &SkillStore) -> Vec<WorkflowMatch> {
    let mut out: Vec<WorkflowMatch> = store
        .skills()
        .filter_map(|s| {
            let def = &s.definition;
            let workflow = def.workflow.as_ref()?;
            def.triggers
                .iter()
                .map(|t| match_trigger(&def.name, t, workflow, request))
                .max_by(|a, b| {
                    (a.exact, a.score)
                        .partial_cmp(&(b.exact, b.score))
                        .unwrap_or(std::cmp::Ordering::Equal)
                })
        })
        .collect();
    out.sort_by(|a, b| {
        (b.exact, b.score)
            .partial_cmp(&(a.exact, a.score))
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.name.cmp(&b.name))
    });
    out
}

/// The workflow's plan for a match that runs.
fn planned(m: &WorkflowMatch, workflow: &Workflow, started: Instant) -> Planned {
    let plan = workflow.plan(&m.name, &m.slots);
    let slots = if m.slots.is_empty() {
        String::new()
    } else {
        let said: Vec<String> = m.slots.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        format!(", {}", said.join(", "))
    };
    Planned {
        confidence: plan.steps.iter().map(|s| (s.step, f32::MAX)).collect(),
        notes: vec![format!(
            "the saved workflow `{}` (its trigger \"{}\"{slots})",
            m.name, m.trigger
        )],
        usage: PlanUsage {
            planner: "workflow".into(),
            latency_ms: started.elapsed().as_secs_f64() * 1000.0,
            ..Default::default()
        },
        workflow: Some(WorkflowUse {
            name: m.name.clone(),
            trigger: m.trigger.clone(),
            slots: m.slots.clone(),
            preconditions: workflow.preconditions.clone(),
            postconditions: workflow.postconditions.clone(),
        }),
        plan,
        ..Planned::default()
    }
}

/// Any planner, with saved workflows tried first.
pub struct WorkflowFirst {
    inner: Box<dyn Planner>,
}

impl std::fmt::Debug for WorkflowFirst {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkflowFirst")
            .field("inner", &self.inner.name())
            .finish()
    }
}

impl WorkflowFirst {
    pub fn new(inner: Box<dyn Planner>) -> WorkflowFirst {
        WorkflowFirst { inner }
    }
}

impl Planner for WorkflowFirst {
    fn name(&self) -> String {
        self.inner.name()
    }

    fn plan(
        &mut self,
        request: &PlanRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Planned> {
        let started = Instant::now();
        let matches = match_workflows(request, cx.skills);
        if let Some(m) = matches.iter().find(|m| m.exact) {
            let workflow = cx
                .skills
                .get(&m.name)
                .and_then(|s| s.definition.workflow.as_ref())
                .expect("a match is a loaded workflow");
            return Ok(planned(m, workflow, started));
        }
        let mut planned = self.inner.plan(request, cx, control)?;
        // A whole trigger whose folder is not here: planned as usual, and said why.
        for m in matches.iter().filter(|m| m.score >= 1.0 && !m.exact) {
            planned.notes.push(format!(
                "not the saved workflow `{}`: {}",
                m.name,
                m.problem.as_deref().unwrap_or("its trigger did not fit")
            ));
        }
        Ok(planned)
    }

    fn draft_tools(
        &mut self,
        request: &ToolDraftRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Option<DraftedTools>> {
        self.inner.draft_tools(request, cx, control)
    }

    fn describe_tool(
        &mut self,
        skill: &contracts::SkillDefinition,
        tool: &str,
        control: &PlanControl,
    ) -> Result<Option<crate::DescribedTool>> {
        self.inner.describe_tool(skill, tool, control)
    }

    fn reader<'s>(
        &'s mut self,
        control: PlanControl<'s>,
    ) -> Option<Box<dyn retrieval::ModelReader + 's>> {
        self.inner.reader(control)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::trigger_placeholders;

    #[test]
    fn a_trigger_matches_the_whole_request_in_any_case_and_spacing() {
        let re = trigger_regex("tidy {path}").unwrap();
        let said = collapse("Tidy   my Desktop folder.");
        let caps = re.captures(&said).unwrap();
        assert_eq!(&caps["path"], "my Desktop folder");
        assert!(re.captures("please tidy Desktop").is_none());
        let re = trigger_regex("clean up {path}: remove duplicates, then sort").unwrap();
        assert_eq!(
            &re.captures("clean up Downloads: remove duplicates, then sort")
                .unwrap()["path"],
            "Downloads"
        );
        assert!(trigger_placeholders("tidy {path}").contains(&"path"));
    }

    #[test]
    fn a_path_slot_names_a_folder_of_the_listing_or_the_root() {
        let request = PlanRequest {
            text: String::new(),
            root_name: Some("home".into()),
            entries: vec!["Desktop".into(), "Downloads/old".into()],
            learned: Vec::new(),
        };
        assert_eq!(
            folder_value("my desktop folder", &request),
            Ok("Desktop".into())
        );
        assert_eq!(folder_value("Home", &request), Ok(".".into()));
        assert_eq!(
            folder_value("downloads/old/", &request),
            Ok("Downloads/old".into())
        );
        assert!(folder_value("Desktop and delete it all", &request).is_err());
    }
}
