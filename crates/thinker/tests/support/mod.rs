//! What the thinker's integration tests and its benchmark plan with: a skills folder (the shipped
//! one by default), its skill index on the configured embedder in a temporary state folder, and
//! the config. Shared as a module (`mod support;`, and by path from `benches/llm.rs`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use config::PipelineConfig;
use retrieval::RetrievalPipeline;
use skills::SkillStore;
use thinker::PlanningContext;

/// The skills the product ships.
pub fn shipped_skills() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills")
}

/// A loaded skill store and its index.
pub struct PlanningWorld {
    _state: tempfile::TempDir,
    pub store: SkillStore,
    pub retrieval: RetrievalPipeline,
    pub config: PipelineConfig,
}

impl PlanningWorld {
    /// The skills in `skills_dir`, indexed under `config` (its `state_dir` is replaced by a
    /// temporary folder).
    pub fn new(skills_dir: &Path, config: PipelineConfig) -> Self {
        let state = tempfile::tempdir().unwrap();
        let config = PipelineConfig {
            state_dir: Some(state.path().to_owned()),
            ..config
        };
        let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
        let store = SkillStore::load(skills_dir, table).unwrap();
        let mut retrieval = RetrievalPipeline::open(&config).unwrap();
        retrieval.build_index(&store).unwrap();
        PlanningWorld {
            _state: state,
            store,
            retrieval,
            config,
        }
    }

    /// The shipped skills under `config`.
    pub fn shipped(config: PipelineConfig) -> Self {
        Self::new(&shipped_skills(), config)
    }

    pub fn cx(&self) -> PlanningContext<'_> {
        PlanningContext {
            skills: &self.store,
            retrieval: &self.retrieval,
            config: &self.config,
        }
    }
}

/// Asserts that the model's answer `value` (JSON) is what `planned` carries: its question, or its
/// steps' skills, tools and parameters in order (the answer has no step numbers or descriptions).
pub fn assert_answer_is_planned(value: &serde_json::Value, planned: &thinker::Planned) {
    if let Some(question) = &planned.clarification {
        assert_eq!(value["question"], question.as_str(), "{value}");
        assert!(planned.plan.steps.is_empty());
        return;
    }
    let planned_steps: Vec<serde_json::Value> = planned
        .plan
        .steps
        .iter()
        .map(|s| serde_json::json!({"skill": s.skill, "tool": s.tool, "params": s.params}))
        .collect();
    assert_eq!(serde_json::Value::Array(planned_steps), value["steps"]);
}

/// The steps the rule planner plans for `text` over a root holding Documents and Downloads.
pub fn rule_plan(world: &PlanningWorld, text: &str) -> Vec<contracts::PlanStep> {
    use thinker::{PlanControl, PlanRequest, Planner, RulePlanner};
    let request = PlanRequest {
        text: text.into(),
        root_name: None,
        entries: ["Documents", "Downloads"].map(str::to_owned).to_vec(),
        learned: Vec::new(),
    };
    RulePlanner
        .plan(&request, &world.cx(), &PlanControl::default())
        .unwrap()
        .plan
        .steps
}

/// Each step planned for `text`, as `skill/tool` and its parameters.
pub fn planned_steps(world: &PlanningWorld, text: &str) -> Vec<(String, serde_json::Value)> {
    rule_plan(world, text)
        .into_iter()
        .map(|s| {
            (
                format!("{}/{}", s.skill, s.tool),
                serde_json::Value::Object(s.params),
            )
        })
        .collect()
}

/// A request, the tools planned for it in order, and `(step, key, value)` that must hold (a
/// `null` value: the step has no such parameter).
pub type ReadingCase<'a> = (
    &'a str,
    &'a [&'a str],
    &'a [(usize, &'a str, serde_json::Value)],
);

/// Checks every case, reporting all that are read wrong.
pub fn check_readings(cases: &[ReadingCase]) {
    let world = PlanningWorld::shipped(PipelineConfig::default());
    let mut wrong = Vec::new();
    for (text, tools, values) in cases {
        let got = planned_steps(&world, text);
        let names: Vec<&str> = got.iter().map(|(n, _)| n.as_str()).collect();
        if names != *tools {
            wrong.push(format!("{text}\n  expected {tools:?}\n  got      {got:?}"));
            continue;
        }
        for (at, key, value) in *values {
            // `null`: the step must not have the parameter at all.
            let found = got[*at].1.get(*key);
            if found != Some(value) && !(value.is_null() && found.is_none()) {
                wrong.push(format!(
                    "{text}\n  step {} `{key}`: expected {value}, got {:?}",
                    at + 1,
                    got[*at].1.get(*key)
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
