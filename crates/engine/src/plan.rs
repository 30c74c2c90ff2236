//! Planning without running: the loaded planner's plan for a request (nothing is simulated or
//! written), with the parameters a run would ask for and the steps whose skill it would ask the
//! person to pick. `scope-weaver plan` and its evaluations.

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
    /// How each step's skill would be matched in a run (stage 5), in step order.
    pub matches: Vec<StepMatch>,
}

/// What the run's skill-match stage sees for one step.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StepMatch {
    pub step: u32,
    /// Retrieval on the step's text is confident and names the planner's skill.
    pub retrieval_sure: bool,
    /// Retrieval's best skill for the step's text is the planner's (confident or not).
    pub retrieval_agrees: bool,
    /// The planner's own margin for the step (`Planned::confidence`).
    pub planner_margin: Option<f32>,
    /// The run would show the near-miss picker at the configured `planner_sure_margin`.
    pub picker: bool,
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
        // What the person taught before, as a run would know it (from the audit log).
        let mut request = request.clone();
        if request.learned.is_empty() {
            request.learned = match core.audit.as_ref() {
                Some(log) => log.learned_choices()?,
                None => crate::Ledger::new(config.clone()).learned()?,
            };
        }
        let planned = core.planner.plan(&request, &cx, &PlanControl::default())?;
        let missing = missing_params(&planned.plan, &core.store);
        let mut matches = Vec::with_capacity(planned.plan.steps.len());
        for step in &planned.plan.steps {
            let ranking = core.retrieval.query_skill(step)?;
            let agrees = ranking.top().is_some_and(|t| t.skill == step.skill);
            let retrieval_sure = ranking.confident && agrees;
            let planner_margin = planned.confidence.get(&step.step).copied();
            matches.push(StepMatch {
                step: step.step,
                retrieval_sure,
                retrieval_agrees: agrees,
                planner_margin,
                picker: pipeline::needs_picker(
                    ranking.confident,
                    agrees,
                    planner_margin,
                    config.planner_sure_margin,
                ),
            });
        }
        Ok(PlanPreview {
            planned,
            missing,
            matches,
        })
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
