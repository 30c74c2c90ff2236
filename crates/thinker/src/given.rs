//! A plan given by the caller instead of planned (one tool call, `contracts::ToolCall::plan`):
//! the pipeline validates, simulates, approves, commits and audits it like any plan, sure of
//! every step's skill (no near-miss picker: the caller named it). Drafting a new skill's tools
//! (skill-create in the given plan) is still asked of the configured planner.

use contracts::Plan;

use crate::{
    DraftedTools, PlanControl, PlanRequest, PlanUsage, Planned, Planner, PlanningContext, Result,
    ToolDraftRequest,
};

/// The planner name a given plan is recorded under.
pub const GIVEN_PLANNER: &str = "given";

/// `plan`, for one run; `drafter` drafts skill-create's tools.
pub struct GivenPlan<'a> {
    plan: Plan,
    drafter: &'a mut dyn Planner,
}

impl<'a> GivenPlan<'a> {
    pub fn new(plan: Plan, drafter: &'a mut dyn Planner) -> Self {
        GivenPlan { plan, drafter }
    }
}

impl std::fmt::Debug for GivenPlan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GivenPlan")
            .field("plan", &self.plan)
            .finish_non_exhaustive()
    }
}

impl Planner for GivenPlan<'_> {
    fn name(&self) -> String {
        GIVEN_PLANNER.to_owned()
    }

    fn plan(
        &mut self,
        _request: &PlanRequest,
        _cx: &PlanningContext,
        _control: &PlanControl,
    ) -> Result<Planned> {
        Ok(Planned {
            confidence: self.plan.steps.iter().map(|s| (s.step, f32::MAX)).collect(),
            plan: self.plan.clone(),
            usage: PlanUsage {
                planner: GIVEN_PLANNER.to_owned(),
                ..Default::default()
            },
            ..Default::default()
        })
    }

    fn draft_tools(
        &mut self,
        request: &ToolDraftRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Option<DraftedTools>> {
        self.drafter.draft_tools(request, cx, control)
    }

    fn describe_tool(
        &mut self,
        skill: &contracts::SkillDefinition,
        tool: &str,
        control: &PlanControl,
    ) -> Result<Option<crate::DescribedTool>> {
        self.drafter.describe_tool(skill, tool, control)
    }

    fn reader<'s>(
        &'s mut self,
        control: PlanControl<'s>,
    ) -> Option<Box<dyn retrieval::ModelReader + 's>> {
        self.drafter.reader(control)
    }
}
