//! A tool called directly (`scope-weaver tool`, a task file with a `call`) or a whole plan given
//! (a task file with a `plan`, an inbox item made from either): checked against the loaded
//! skills, then run through the same pipeline as a request in place of the planner's plan —
//! simulated, reviewed, committed through the journal, audited, undoable.

use contracts::{Plan, ToolCall};

use crate::error::{EngineError, Result};
use crate::{Engine, lock};

impl Engine {
    /// The one-step plan `call` runs as, or why it cannot run: no such skill, no such tool, or
    /// parameters the tool lacks or does not take (all of them, with the tool's signature).
    pub fn tool_call_plan(&self, call: &ToolCall) -> Result<Plan> {
        let core = lock(&self.core);
        let Some(skill) = core.store.get(&call.skill) else {
            return Err(EngineError::UnknownSkill(call.skill.clone()));
        };
        let Some(tool) = skill.definition.tools.get(&call.tool) else {
            let has: Vec<&str> = skill.definition.tools.keys().map(String::as_str).collect();
            return Err(EngineError::UnknownTool {
                skill: call.skill.clone(),
                tool: call.tool.clone(),
                has: if has.is_empty() {
                    "no tools (it is a workflow or an instruction-only skill)".to_owned()
                } else {
                    has.join(", ")
                },
            });
        };
        let check = tool.validate_params(&call.params);
        if !check.valid {
            let mut message = format!("{}.{} needs: {}", call.skill, call.tool, tool.signature);
            if !check.missing.is_empty() {
                message.push_str(&format!("\n  missing: {}", check.missing.join(", ")));
            }
            if !check.extra.is_empty() {
                message.push_str(&format!("\n  not accepted: {}", check.extra.join(", ")));
            }
            return Err(EngineError::InvalidParams(message));
        }
        Ok(call.plan())
    }

    /// `plan` checked against the loaded skills as a planner's plan is (every problem at once:
    /// unknown skills or tools, parameters, `$step(n)` references, too many steps), to run as
    /// it is (a task file's `plan`, an inbox item made from one).
    pub fn check_plan(&self, plan: &Plan) -> Result<Plan> {
        let max_steps = self.config().max_plan_steps;
        let core = lock(&self.core);
        let problems = thinker::validate_plan(plan, &core.store, max_steps);
        if problems.is_empty() {
            Ok(plan.clone())
        } else {
            Err(EngineError::InvalidPlan(thinker::render_problems(
                &problems,
            )))
        }
    }
}
