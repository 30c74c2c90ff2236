//! A model planner with the rule planner behind it: when the model cannot produce a valid plan
//! (still invalid after the repair loop, out of context, the generation failed), the request is
//! planned by the rule planner instead, and the `Planned` says so (`fallback`), so the run shows it
//! and the audit log records it. The fallback plan goes through the same validation and approvals
//! as any plan; cancellation and retrieval errors are not failures of the model and pass through.

use contracts::ErrorCode;
use serde::Serialize;

use crate::{
    DraftedTools, PlanControl, PlanRequest, Planned, Planner, PlanningContext, Result, RulePlanner,
    ThinkerError, ToolDraftRequest,
};

/// Why a plan came from the rule planner rather than the configured model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fallback {
    /// The planner that failed (`mistralrs:model.gguf`).
    pub from: String,
    /// Its error code (`PLANNER_INVALID_OUTPUT`, `RESOURCE_EXHAUSTED`, `GENERATION_FAILED`).
    pub code: String,
    pub reason: String,
}

impl Fallback {
    /// One sentence for the person and the audit log.
    pub fn message(&self) -> String {
        format!(
            "{} could not plan this request ({}: {}); the rule planner's plan is shown instead",
            self.from, self.code, self.reason
        )
    }
}

/// `primary` (a model), falling back to the rule planner when the model fails to plan.
pub struct WithRuleFallback {
    primary: Box<dyn Planner>,
    rules: RulePlanner,
}

impl std::fmt::Debug for WithRuleFallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WithRuleFallback")
            .field("primary", &self.primary.name())
            .finish_non_exhaustive()
    }
}

impl WithRuleFallback {
    pub fn new(primary: Box<dyn Planner>) -> Self {
        WithRuleFallback {
            primary,
            rules: RulePlanner,
        }
    }
}

/// Failures of the model itself, after which the rule planner is asked.
fn model_failed(e: &ThinkerError) -> bool {
    matches!(
        e,
        ThinkerError::InvalidOutput { .. }
            | ThinkerError::ResourceExhausted(_)
            | ThinkerError::Generation(_)
            | ThinkerError::InvalidPlan(_)
    )
}

impl Planner for WithRuleFallback {
    fn name(&self) -> String {
        self.primary.name()
    }

    fn plan(
        &mut self,
        request: &PlanRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Planned> {
        let error = match self.primary.plan(request, cx, control) {
            Ok(planned) => return Ok(planned),
            Err(e) if model_failed(&e) => e,
            Err(e) => return Err(e),
        };
        let fallback = Fallback {
            from: self.primary.name(),
            code: error.code().to_owned(),
            reason: error.to_string(),
        };
        tracing::warn!(from = %fallback.from, code = %fallback.code, "{}", fallback.reason);
        let mut planned = self.rules.plan(request, cx, control)?;
        planned.usage.planner = format!("rule (fallback from {})", fallback.from);
        planned.notes.insert(0, fallback.message());
        planned.fallback = Some(fallback);
        Ok(planned)
    }

    fn draft_tools(
        &mut self,
        request: &ToolDraftRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Option<DraftedTools>> {
        self.primary.draft_tools(request, cx, control)
    }

    fn describe_tool(
        &mut self,
        skill: &contracts::SkillDefinition,
        tool: &str,
        control: &PlanControl,
    ) -> Result<Option<crate::DescribedTool>> {
        self.primary.describe_tool(skill, tool, control)
    }

    fn reader<'s>(
        &'s mut self,
        control: PlanControl<'s>,
    ) -> Option<Box<dyn retrieval::ModelReader + 's>> {
        self.primary.reader(control)
    }

    fn judge<'s>(
        &'s mut self,
        control: PlanControl<'s>,
    ) -> Option<Box<dyn crate::ReadingJudge + 's>> {
        self.primary.judge(control)
    }
}
