//! The LLM planner on a real, trained model: SmolLM2-135M-Instruct (Q4_1 GGUF, 98 MB; its
//! tokenizer and chat template come from the file). `scripts/fetch-models.sh` fetches it into a
//! cache outside the clone and `scripts/test.sh` passes its path in
//! `SCOPE_WEAVER_TEST_MODEL_SMOLLM2`. Without the variable the test says it was skipped, unless
//! `SCOPE_WEAVER_TEST_REQUIRE_MODELS` is set (CI sets it), where a missing model fails it.
//! `scripts/test.sh` runs this test binary inside a network namespace with no interfaces
//! (`unshare -n`): the model loads and plans with no network (issue 22's offline proof; the
//! worked example through the CLI is `tests/cli/offline.rs`).
//!
//! The larger models (Qwen2.5-Coder 0.5B and 1.5B) are measured by `scripts/bench-llm.sh` and
//! scored on `eval/plans.jsonl`, not here.

mod support;

use std::path::PathBuf;

use config::{PipelineConfig, ThinkerBackend};
use thinker::{
    LlmLimits, LlmPlanner, PlanControl, PlanRequest, Planner, plan_schema, validate_plan,
};

const WORKED_EXAMPLE: &str = "Clean up my Downloads folder – remove duplicates, then organize the \
remaining files into subfolders by type";

fn smollm2() -> Option<PathBuf> {
    match std::env::var_os("SCOPE_WEAVER_TEST_MODEL_SMOLLM2") {
        Some(path) => Some(PathBuf::from(path)),
        None if std::env::var_os("SCOPE_WEAVER_TEST_REQUIRE_MODELS").is_some() => panic!(
            "SCOPE_WEAVER_TEST_MODEL_SMOLLM2 is not set (scripts/fetch-models.sh fetches the model)"
        ),
        None => {
            eprintln!(
                "skipped: set SCOPE_WEAVER_TEST_MODEL_SMOLLM2 to the path scripts/fetch-models.sh prints"
            );
            None
        }
    }
}

#[test]
fn smollm2_plans_the_worked_example_with_a_schema_valid_plan() {
    let Some(model) = smollm2() else { return };
    let world = support::PlanningWorld::shipped(PipelineConfig {
        thinker_backend: ThinkerBackend::Mistralrs,
        thinker_model_path: Some(model.clone()),
        ..PipelineConfig::default()
    });
    let (store, config) = (&world.store, &world.config);

    let mut planner = LlmPlanner::load(&model, LlmLimits::from_config(config)).unwrap();
    assert_eq!(planner.name(), "mistralrs:smollm2-135m-instruct-q4_1.gguf");
    let request = PlanRequest {
        text: WORKED_EXAMPLE.into(),
        root_name: Some("home".into()),
        entries: vec!["Downloads".into(), "Documents".into(), "Pictures".into()],
        learned: Vec::new(),
    };
    let planned = planner
        .plan(&request, &world.cx(), &PlanControl::default())
        .unwrap_or_else(|e| panic!("no plan from the real model: {e}"));
    eprintln!(
        "{:?}\n{:?}\n{}",
        planned.usage,
        planned.notes,
        planned.response.as_deref().unwrap_or_default()
    );

    // The model's own answer (not a fallback) is JSON valid against the plan's schema ...
    assert!(planned.fallback.is_none());
    let response = planned.response.as_deref().expect("the model's answer");
    let value: serde_json::Value = serde_json::from_str(response)
        .unwrap_or_else(|e| panic!("the answer is not JSON ({e}): {response}"));
    let schema = plan_schema(store, config.max_plan_steps);
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{response}");
    // ... it is a plan (the request is clear: no question), the one returned, and it validates.
    assert!(planned.clarification.is_none(), "{response}");
    support::assert_answer_is_planned(&value, &planned);
    assert!(validate_plan(&planned.plan, store, config.max_plan_steps).is_empty());
    // The prompt listed the request's parts in the order they are to be planned (skill guidance
    // is off by default: `planner_guidance_skills` 0).
    let prompt = planned.prompt.as_deref().unwrap();
    assert!(
        prompt.contains(
            "Its parts, each planned in this order: 1. remove duplicates; 2. organize the \
             remaining files into subfolders by type"
        ),
        "{prompt}"
    );
    assert!(planned.usage.prompt_tokens > 500, "{:?}", planned.usage);
    assert!(planned.usage.completion_tokens > 10, "{:?}", planned.usage);
}
