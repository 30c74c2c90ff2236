//! skill-create in a run: the step is scheduled at dispatch (with tool declarations drafted by a
//! model planner, shown in the step's result before approval) and the skill folder is written only
//! after the sandbox commit.

use contracts::{ErrorCode, ErrorPayload, ExecutionResult, PlanStep};
use serde_json::{Map, Value, json};
use thinker::{CancelToken, PlanControl, PlanningContext, ToolDraftRequest};

use super::{Orchestrator, Run};
use crate::Result;
use crate::events::Event;
use crate::interaction::Interaction;
use crate::skill_draft::{SkillDraft, create_skill, draft_skill};

/// A scaffold waiting for the commit, with the tools drafted for it.
#[derive(Debug, Clone)]
pub(super) struct DeferredSkill {
    pub step: PlanStep,
    pub draft: SkillDraft,
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
        let cx = PlanningContext {
            skills: self.skills,
            retrieval: self.retrieval,
            config: self.config,
        };
        let control = PlanControl {
            cancel: Some(cancel),
            on_token: None,
        };
        let draft = draft_skill(
            self.planner,
            &cx,
            ToolDraftRequest::from_params(resolved),
            &control,
        )
        .map_err(|e| e.to_payload())?;
        if let Some(message) = &draft.warning {
            ui.event(&Event::Warning {
                step: Some(step.step),
                message: message.clone(),
            });
        }
        let mut data = json!({"scheduled": draft.request.name});
        if let Some(shown) = &draft.shown {
            data["drafted"] = shown.clone();
        }
        let mut step = step.clone();
        step.params = resolved.clone();
        deferred.push(DeferredSkill { step, draft });
        Ok(ExecutionResult::success("", data))
    }

    /// After the sandbox commit: writes each scheduled skill and indexes it.
    pub(super) fn create_deferred_skills(&mut self, run: &mut Run) -> Result<()> {
        for deferred in std::mem::take(&mut run.deferred) {
            create_skill(self.skills, self.retrieval, &deferred.draft)?;
        }
        Ok(())
    }
}
