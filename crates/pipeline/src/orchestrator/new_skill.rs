//! skill-create in a run: the step is scheduled at dispatch (with tool declarations drafted by a
//! model planner, shown in the step's result before approval) and the skill folder is written only
//! after the sandbox commit.

use contracts::{ErrorCode, ErrorPayload, ExecutionResult, PlanStep};
use serde_json::{Map, Value, json};
use skills::{ScaffoldSpec, ToolDeclaration};
use thinker::{CancelToken, PlanControl, PlanningContext, ThinkerError, ToolDraftRequest};

use super::{Orchestrator, Run};
use crate::Result;
use crate::events::Event;
use crate::interaction::Interaction;

/// A scaffold waiting for the commit, with the tools drafted for it (empty: the template's).
#[derive(Debug, Clone)]
pub(super) struct DeferredSkill {
    pub step: PlanStep,
    pub tools: Vec<ToolDeclaration>,
}

impl Orchestrator<'_> {
    /// Schedules the scaffold; a model planner drafts its tools now, so the person reviews them
    /// with the step. A draft that fails leaves the template's tools (with a warning).
    pub(super) fn schedule_skill(
        &mut self,
        step: &PlanStep,
        resolved: &Map<String, Value>,
        (deferred, cancel): (&mut Vec<DeferredSkill>, &CancelToken),
        ui: &mut dyn Interaction,
    ) -> std::result::Result<ExecutionResult, ErrorPayload> {
        let request = ToolDraftRequest::from_params(resolved);
        let cx = PlanningContext {
            skills: self.skills,
            retrieval: self.retrieval,
            config: self.config,
        };
        let control = PlanControl {
            cancel: Some(cancel),
            on_token: None,
        };
        let mut data = json!({"scheduled": request.name});
        let tools = match self.planner.draft_tools(&request, &cx, &control) {
            Ok(Some(drafted)) => {
                let lines: Vec<String> = drafted
                    .tools
                    .iter()
                    .map(|t| t.render(self.skills.table()))
                    .collect();
                data["drafted"] = json!({
                    "tools": drafted.tools,
                    "declarations": lines,
                    "usage": drafted.usage,
                    "notes": drafted.notes,
                    "prompt": drafted.prompt,
                    "response": drafted.response,
                });
                drafted.tools
            }
            Ok(None) => Vec::new(),
            Err(ThinkerError::Cancelled) => return Err(ThinkerError::Cancelled.to_payload()),
            Err(e) => {
                ui.event(&Event::Warning {
                    step: Some(step.step),
                    message: format!(
                        "the planner could not draft tools for `{}` ({e}); the template's \
                         example tools are kept",
                        request.name
                    ),
                });
                Vec::new()
            }
        };
        let mut step = step.clone();
        step.params = resolved.clone();
        deferred.push(DeferredSkill { step, tools });
        Ok(ExecutionResult::success("", data))
    }

    /// After the sandbox commit: writes each scheduled skill and indexes it.
    pub(super) fn create_deferred_skills(&mut self, run: &mut Run) -> Result<()> {
        for deferred in std::mem::take(&mut run.deferred) {
            let request = ToolDraftRequest::from_params(&deferred.step.params);
            self.skills.scaffold_with(&ScaffoldSpec {
                name: &request.name,
                description: &request.description,
                tags: &request.tags,
                tools: &deferred.tools,
            })?;
            self.retrieval.hot_reload(self.skills, &request.name)?;
        }
        Ok(())
    }
}
