//! A model that cannot plan hands the request to the rule planner, and the answer says so; a
//! cancelled request or a retrieval failure is not a model failure and is not papered over.

mod support;

use config::PipelineConfig;
use contracts::ErrorCode;
use thinker::{
    PlanControl, PlanRequest, Planned, Planner, PlanningContext, Result, ThinkerError,
    WithRuleFallback,
};

/// A model planner that fails the way it is told to.
struct Failing(fn() -> ThinkerError);

impl Planner for Failing {
    fn name(&self) -> String {
        "mistralrs:broken.gguf".into()
    }

    fn plan(&mut self, _: &PlanRequest, _: &PlanningContext, _: &PlanControl) -> Result<Planned> {
        Err((self.0)())
    }
}

fn plan_with(failure: fn() -> ThinkerError) -> Result<Planned> {
    let world = support::PlanningWorld::shipped(PipelineConfig::default());
    let mut planner = WithRuleFallback::new(Box::new(Failing(failure)));
    assert_eq!(planner.name(), "mistralrs:broken.gguf");
    planner.plan(
        &PlanRequest::new("remove duplicates in Downloads"),
        &world.cx(),
        &PlanControl::default(),
    )
}

#[test]
fn a_plan_the_model_cannot_make_comes_from_the_rule_planner_and_says_so() {
    let failures: [fn() -> ThinkerError; 3] = [
        || ThinkerError::InvalidOutput {
            attempts: 3,
            last: "step 2: UNKNOWN_PARAM".into(),
        },
        || ThinkerError::ResourceExhausted("the prompt takes 9000 tokens".into()),
        || ThinkerError::Generation("the model failed".into()),
    ];
    for failure in failures {
        let code = failure().code();
        let planned = plan_with(failure).unwrap();
        let tools: Vec<String> = planned
            .plan
            .steps
            .iter()
            .map(|s| format!("{}/{}", s.skill, s.tool))
            .collect();
        assert_eq!(
            tools,
            ["remove-duplicates/scan", "remove-duplicates/remove"],
            "{code}"
        );
        let fallback = planned.fallback.as_ref().expect("marked as a fallback");
        assert_eq!(fallback.from, "mistralrs:broken.gguf");
        assert_eq!(fallback.code, code);
        assert_eq!(
            planned.usage.planner,
            "rule (fallback from mistralrs:broken.gguf)"
        );
        assert!(
            planned.notes[0].contains("the rule planner's plan is shown instead"),
            "{:?}",
            planned.notes
        );
        assert!(planned.notes[0].contains(code), "{:?}", planned.notes);
    }
}

#[test]
fn cancelling_is_not_a_model_failure() {
    let err = plan_with(|| ThinkerError::Cancelled).unwrap_err();
    assert_eq!(err.code(), "CANCELLED");
}
