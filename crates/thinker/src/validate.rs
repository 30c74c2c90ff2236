//! Plan validation (pipeline stage 3): every problem of a plan, not just the first. Pure.

use contracts::{Plan, find_references};
use serde::Serialize;
use skills::SkillStore;

/// One thing wrong with a plan, with a stable code and the step it is in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanProblem {
    pub step: Option<u32>,
    pub code: &'static str,
    pub message: String,
}

impl std::fmt::Display for PlanProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.step {
            Some(s) => write!(f, "step {s}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Checks that the plan has 1..=`max_steps` steps numbered 1, 2, 3…, that every skill and tool
/// exists, that references parse and point only to earlier steps (so no cycles), and that no step
/// passes a parameter its tool does not declare. Missing required parameters are not a problem
/// here: stage 7 asks the person for them.
pub fn validate_plan(plan: &Plan, skills: &SkillStore, max_steps: usize) -> Vec<PlanProblem> {
    let mut out = Vec::new();
    let mut problem = |step: Option<u32>, code: &'static str, message: String| {
        out.push(PlanProblem {
            step,
            code,
            message,
        })
    };
    if plan.steps.is_empty() {
        problem(None, "EMPTY_PLAN", "the plan has no steps".into());
    }
    if plan.steps.len() > max_steps {
        problem(
            None,
            "TOO_MANY_STEPS",
            format!(
                "the plan has {} steps; max_plan_steps is {max_steps}",
                plan.steps.len()
            ),
        );
    }
    for (i, step) in plan.steps.iter().enumerate() {
        let n = step.step;
        let expected = i as u32 + 1;
        if n != expected {
            problem(
                Some(n),
                "STEP_NUMBERING",
                format!("step number {n} is out of order; expected {expected}"),
            );
        }
        let Some(loaded) = skills.get(&step.skill) else {
            let known: Vec<&str> = skills
                .skills()
                .map(|s| s.definition.name.as_str())
                .collect();
            let hint = contracts::closest(&step.skill, known.iter().copied())
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            problem(
                Some(n),
                "UNKNOWN_SKILL",
                format!("no skill named `{}`{hint}", step.skill),
            );
            continue;
        };
        let skill = &loaded.definition;
        if let Some(workflow) = &skill.workflow {
            problem(
                Some(n),
                "WORKFLOW_IN_PLAN",
                format!(
                    "`{}` is a workflow of {} steps, not a tool: a request that says one of its \
                     triggers ({}) runs it",
                    step.skill,
                    workflow.steps.len(),
                    skill.triggers.join(", ")
                ),
            );
            continue;
        }
        if skill.is_instruction_only() {
            problem(
                Some(n),
                "INSTRUCTION_ONLY_SKILL",
                format!("skill `{}` has no tools to call", step.skill),
            );
            continue;
        }
        match skill.tool(&step.tool) {
            None => {
                let names: Vec<&str> = skill.tools.keys().map(String::as_str).collect();
                problem(
                    Some(n),
                    "UNKNOWN_TOOL",
                    format!(
                        "skill `{}` has no tool `{}` (tools: {})",
                        step.skill,
                        step.tool,
                        names.join(", ")
                    ),
                );
            }
            Some(tool) => {
                let v = tool.validate_params(&step.params);
                for extra in v.extra {
                    let declared: Vec<&str> = tool
                        .required_params
                        .iter()
                        .chain(&tool.optional_params)
                        .map(String::as_str)
                        .collect();
                    problem(
                        Some(n),
                        "UNKNOWN_PARAM",
                        format!(
                            "`{}/{}` takes no parameter `{extra}` (it takes: {})",
                            step.skill,
                            step.tool,
                            declared.join(", ")
                        ),
                    );
                }
            }
        }
        match find_references(&step.params) {
            Err(e) => problem(Some(n), "BAD_REFERENCE", e.to_string()),
            Ok(refs) => {
                for r in refs {
                    if r.step >= n {
                        problem(
                            Some(n),
                            if r.step == n {
                                "SELF_REFERENCE"
                            } else {
                                "FORWARD_REFERENCE"
                            },
                            format!(
                                "`{r}` points to step {}, but a step may only use earlier steps' \
                                 results (a later or its own result would make a cycle)",
                                r.step
                            ),
                        );
                    } else if r.step == 0 || r.step as usize > plan.steps.len() {
                        problem(
                            Some(n),
                            "UNKNOWN_STEP_REFERENCE",
                            format!("`{r}` points to a step that does not exist"),
                        );
                    }
                }
            }
        }
    }
    out
}
