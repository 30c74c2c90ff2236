//! The rule planner first, a model for what it cannot decide (`thinker_rules_first`): the rule
//! planner reads the request (tens of milliseconds), and a clause it read more than one way
//! without being sure which (margin below `planner_sure_margin`) is the model's to choose between
//! those readings (`judge.rs`): the rules keep splitting, places, parameters and chaining, which
//! they do better than the small models, and the model only overrules them when it is sure
//! (`MODEL_SURE`); otherwise the person picks. When the rules did not understand part of the
//! request, their question stands: a question is safer than a guess, and the models tried guess on
//! exactly those requests ("clean up my stuff" planned as a skill to write; BENCHMARKS.md, "Local
//! models"). Only a request the rules planned nothing for goes to the model whole, whose failures
//! still fall back to the rule planner (`WithRuleFallback`, the `model` given here).

use crate::{
    DraftedTools, PlanControl, PlanRequest, Planned, Planner, PlanningContext, Result, RulePlanner,
    ToolDraftRequest,
};

/// Whether the rule planner's plan can be taken without asking a model: it asks the person about
/// part of the request, or it planned something with every step chosen by at least `margin`.
pub fn rules_decide(planned: &Planned, margin: f32) -> bool {
    planned.clarification.is_some() || rules_are_sure(planned, margin)
}

/// Something planned, no question, every step chosen by at least `margin`.
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
        let model_name = self.model.name();
        let mut ruled = {
            let mut judge = self.model.judge(*control);
            self.rules
                .plan_judged(request, cx, control, judge.as_deref_mut())?
        };
        let margin = cx.config.planner_sure_margin;
        let judged = ruled.usage.planner != "rule";
        if rules_are_sure(&ruled, margin) {
            if !judged {
                ruled.notes.push(format!(
                    "Planned by the rule planner, sure of every step (margin ≥ {margin:.2}); \
                     {model_name} was not asked."
                ));
                ruled.usage.planner = "rule (sure)".to_owned();
            }
            return Ok(ruled);
        }
        if rules_decide(&ruled, margin) {
            ruled.usage.planner = "rule (asks)".to_owned();
            ruled.notes.push(format!(
                "The rule planner did not understand part of the request and asks about it; \
                 {model_name} was not asked to guess."
            ));
            return Ok(ruled);
        }
        if !ruled.plan.steps.is_empty() {
            // Steps whose readings the model weighed but was not sure of: the person picks
            // (the model's choice first).
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

    fn describe_tool(
        &mut self,
        skill: &contracts::SkillDefinition,
        tool: &str,
        control: &PlanControl,
    ) -> Result<Option<crate::DescribedTool>> {
        self.model.describe_tool(skill, tool, control)
    }

    fn reader<'s>(
        &'s mut self,
        control: PlanControl<'s>,
    ) -> Option<Box<dyn retrieval::ModelReader + 's>> {
        self.model.reader(control)
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
    fn a_question_of_the_rule_planner_stands_but_an_unsure_choice_goes_to_the_model() {
        assert!(rules_decide(&planned(&[0.01], Some("which folder?")), 0.1));
        assert!(rules_decide(&planned(&[], Some("what should I do?")), 0.1));
        assert!(rules_decide(&planned(&[0.3], None), 0.1));
        assert!(!rules_decide(&planned(&[0.3, 0.02], None), 0.1));
        assert!(!rules_decide(&planned(&[], None), 0.1));
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
