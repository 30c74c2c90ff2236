//! The rule planner when it is sure, a model otherwise (`thinker_rules_first`): the rule planner
//! reads the request first (tens of milliseconds); when it chose every step's skill by at least
//! `planner_sure_margin` over its best reading with another skill and understood the whole request,
//! its plan is taken and the model is not asked. Anything else — a step it is unsure of, a part it
//! did not understand, nothing planned — goes to the model, whose failures still fall back to the
//! rule planner (`WithRuleFallback`, the `model` given here).

use crate::{
    DraftedTools, PlanControl, PlanRequest, Planned, Planner, PlanningContext, Result, RulePlanner,
    ToolDraftRequest,
};

/// Whether the rule planner's plan can be taken without asking a model: something planned, no
/// question, every step chosen by at least `margin`.
pub fn rules_are_sure(planned: &Planned, margin: f32) -> bool {
    !planned.plan.steps.is_empty()
        && planned.clarification.is_none()
        && planned.plan.steps.iter().all(|s| {
            planned
                .confidence
                .get(&s.step)
                .is_some_and(|&m| m >= margin)
        })
}

/// `model` for the requests the rule planner is not sure of.
pub struct RulesWhenSure {
    model: Box<dyn Planner>,
    rules: RulePlanner,
}

impl std::fmt::Debug for RulesWhenSure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RulesWhenSure")
            .field("model", &self.model.name())
            .finish_non_exhaustive()
    }
}

impl RulesWhenSure {
    pub fn new(model: Box<dyn Planner>) -> Self {
        RulesWhenSure {
            model,
            rules: RulePlanner,
        }
    }
}

impl Planner for RulesWhenSure {
    fn name(&self) -> String {
        format!("rule, then {}", self.model.name())
    }

    fn plan(
        &mut self,
        request: &PlanRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Planned> {
        let mut ruled = self.rules.plan(request, cx, control)?;
        if rules_are_sure(&ruled, cx.config.planner_sure_margin) {
            ruled.usage.planner = "rule (sure)".to_owned();
            ruled.notes.push(format!(
                "Planned by the rule planner, sure of every step (margin ≥ {:.2}); {} was not asked.",
                cx.config.planner_sure_margin,
                self.model.name()
            ));
            return Ok(ruled);
        }
        let rule_ms = ruled.usage.latency_ms;
        let mut planned = self.model.plan(request, cx, control)?;
        planned.usage.latency_ms += rule_ms;
        Ok(planned)
    }

    fn draft_tools(
        &mut self,
        request: &ToolDraftRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Option<DraftedTools>> {
        self.model.draft_tools(request, cx, control)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use contracts::{Plan, PlanStep};

    use super::*;

    fn planned(margins: &[f32], clarification: Option<&str>) -> Planned {
        let steps = (1..=margins.len() as u32)
            .map(|n| PlanStep {
                step: n,
                skill: "organize-by-type".into(),
                tool: "organize".into(),
                description: String::new(),
                params: Default::default(),
            })
            .collect();
        Planned {
            plan: Plan { steps },
            clarification: clarification.map(str::to_owned),
            confidence: margins
                .iter()
                .enumerate()
                .map(|(i, &m)| (i as u32 + 1, m))
                .collect::<BTreeMap<_, _>>(),
            ..Default::default()
        }
    }

    #[test]
    fn sure_only_when_every_step_clears_the_margin_and_nothing_is_asked() {
        assert!(rules_are_sure(&planned(&[0.4, 0.1], None), 0.1));
        assert!(!rules_are_sure(&planned(&[0.4, 0.09], None), 0.1));
        assert!(!rules_are_sure(
            &planned(&[0.4], Some("which folder?")),
            0.1
        ));
        assert!(!rules_are_sure(&planned(&[], None), 0.1));
        // A step the planner gave no margin for is not sure.
        let mut unknown = planned(&[0.5, 0.5], None);
        unknown.confidence.remove(&2);
        assert!(!rules_are_sure(&unknown, 0.1));
    }
}
