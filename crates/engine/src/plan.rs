//! Planning without running: the loaded planner's plan for a request (nothing is simulated or
//! written), with the parameters a run would ask for. `scope-weaver plan` and its evaluations.

use contracts::Plan;
use skills::SkillStore;
use thinker::{PlanControl, PlanRequest, Planned, PlanningContext};

use crate::Engine;
use crate::error::Result;

/// A plan as the planner made it, and what a run would still ask for.
#[derive(Debug, Clone)]
pub struct PlanPreview {
    pub planned: Planned,
    /// (step, parameter) pairs a step's tool requires and the plan left out.
    pub missing: Vec<(u32, String)>,
}

impl Engine {
    /// Plans `request` with the loaded skills, indexes and planner.
    pub fn plan(&self, request: &PlanRequest) -> Result<PlanPreview> {
        let config = self.config();
        let mut core = self.busy_or_lock()?;
        let core = &mut *core;
        let cx = PlanningContext {
            skills: &core.store,
            retrieval: &core.retrieval,
            config: &config,
        };
        let planned = core.planner.plan(request, &cx, &PlanControl::default())?;
        let missing = missing_params(&planned.plan, &core.store);
        Ok(PlanPreview { planned, missing })
    }
}

/// Steps whose tool lacks a required parameter (the orchestrator would ask for it).
fn missing_params(plan: &Plan, store: &SkillStore) -> Vec<(u32, String)> {
    plan.steps
        .iter()
        .flat_map(|s| {
            store
                .tool(&s.skill, &s.tool)
                .map(|(_, t)| t.validate_params(&s.params).missing)
                .unwrap_or_default()
                .into_iter()
                .map(move |m| (s.step, m))
        })
        .collect()
}
