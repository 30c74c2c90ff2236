//! The LLM planner on a real mistral.rs model: a tiny random-weight Llama that the test writes
//! (real safetensors + tokenizer formats), loaded offline. Random weights plan nonsense, but the
//! constrained output must always parse, match the plan's JSON Schema and validate; tokens stream,
//! cancellation stops generation, limits raise RESOURCE_EXHAUSTED, bad model paths say why.

mod support;

use std::path::Path;
use std::sync::Mutex;

use config::{PipelineConfig, ThinkerBackend};
use contracts::ErrorCode;
use retrieval::RetrievalPipeline;
use skills::SkillStore;
use thinker::{
    CancelToken, LlmLimits, LlmPlanner, PlanControl, PlanRequest, Planner, PlanningContext,
    plan_schema, validate_plan,
};

struct World {
    _dirs: (tempfile::TempDir, tempfile::TempDir, tempfile::TempDir),
    model: std::path::PathBuf,
    store: SkillStore,
    retrieval: RetrievalPipeline,
    config: PipelineConfig,
}

/// The skills the tiny-model tests plan with (and the template new skills start from).
const SKILLS: [&str; 4] = [
    "remove-duplicates",
    "archive-files",
    "analyze-directory",
    skills::TEMPLATE_DIR,
];

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

fn world() -> World {
    let state = tempfile::tempdir().unwrap();
    let skills_dir = tempfile::tempdir().unwrap();
    let models = tempfile::tempdir().unwrap();
    let model = models.path().join("tiny-llama");
    tiny_models::write_llama(&model).unwrap();
    let config = PipelineConfig {
        state_dir: Some(state.path().to_owned()),
        thinker_backend: ThinkerBackend::Mistralrs,
        thinker_model_path: Some(model.clone()),
        // The model plans every request here; `rules_first_asks_the_model_only_when_unsure`
        // covers the default.
        thinker_rules_first: false,
        top_k: 2,
        max_plan_steps: 3,
        max_context_tokens: tiny_models::LLAMA_MAX_POSITIONS,
        ..PipelineConfig::default()
    };
    let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
    // A few of the shipped skills: the byte-level tiny tokenizer makes one token per byte, and
    // the prompt's catalogue of every skill would make each test read ~10,000 tokens.
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    for name in SKILLS {
        copy_dir(&shipped.join(name), &skills_dir.path().join(name));
    }
    let store = SkillStore::load(skills_dir.path(), table).unwrap();
    let mut retrieval = RetrievalPipeline::open(&config).unwrap();
    retrieval.build_index(&store).unwrap();
    World {
        _dirs: (state, models, skills_dir),
        model,
        store,
        retrieval,
        config,
    }
}

impl World {
    fn cx(&self) -> PlanningContext<'_> {
        PlanningContext {
            skills: &self.store,
            retrieval: &self.retrieval,
            config: &self.config,
        }
    }
}

#[test]
fn constrained_output_always_parses_and_validates_against_the_schema() {
    let w = world();
    let mut planner = thinker::build_planner(&w.config).unwrap();
    assert_eq!(planner.name(), "mistralrs:tiny-llama");
    let schema = plan_schema(&w.store, w.config.max_plan_steps);
    let validator = jsonschema::validator_for(&schema).unwrap();
    let requests = [
        "remove duplicates in Downloads, then sort the rest into folders by type",
        "zip the reports folder",
        "rename all photos to {date}_{n}",
        "how big is my Documents folder?",
    ];
    for text in requests {
        let streamed = Mutex::new(String::new());
        let sink = |piece: &str| streamed.lock().unwrap().push_str(piece);
        let control = PlanControl {
            cancel: None,
            on_token: Some(&sink),
        };
        let request = PlanRequest {
            text: text.into(),
            root_name: Some("Downloads".into()),
            entries: vec!["reports".into(), "Photos 2023".into()],
            learned: Vec::new(),
        };
        let planned = planner.plan(&request, &w.cx(), &control).unwrap();
        // The accepted answer is JSON valid against the schema, and it was streamed.
        let response = planned.response.clone().expect("the model's answer");
        let value: serde_json::Value = serde_json::from_str(&response)
            .unwrap_or_else(|e| panic!("{text}: the answer is not JSON ({e}): {response}"));
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{text}: {errors:?}\n{response}");
        assert!(streamed.into_inner().unwrap().ends_with(&response));
        // ... it is the plan (or the question) returned, and a plan passes the validator too.
        support::assert_answer_is_planned(&value, &planned);
        if planned.clarification.is_none() {
            assert!(validate_plan(&planned.plan, &w.store, 3).is_empty());
            assert!(!planned.plan.steps.is_empty() && planned.plan.steps.len() <= 3);
        }
        let prompt = planned.prompt.as_deref().unwrap();
        // The last turn is the request (and its parts, when it asks for several things).
        let last = prompt.rsplit("[User]\n").next().unwrap();
        assert!(last.contains(&format!("Request: {text}")), "{prompt}");
        // Usage is reported.
        let u = &planned.usage;
        assert!(u.attempts >= 1, "{text}: {:?}", planned.notes);
        eprintln!("{text}: {u:?} {:?}", planned.notes);
        assert!(u.prompt_tokens > 100, "{u:?}");
        assert!(u.completion_tokens > 10, "{u:?}");
        assert!(u.latency_ms > 0.0, "{u:?}");
    }
}

#[test]
fn cancelling_from_the_token_stream_stops_generation() {
    let w = world();
    let mut planner = LlmPlanner::load(&w.model, LlmLimits::from_config(&w.config)).unwrap();
    let token = CancelToken::new();
    let pieces = Mutex::new(0usize);
    let sink = |_: &str| {
        let mut n = pieces.lock().unwrap();
        *n += 1;
        if *n == 3 {
            token.cancel();
        }
    };
    let control = PlanControl {
        cancel: Some(&token),
        on_token: Some(&sink),
    };
    let err = planner
        .plan(&PlanRequest::new("zip the reports"), &w.cx(), &control)
        .unwrap_err();
    assert_eq!(err.code(), "CANCELLED", "{err}");
    let n = *pieces.lock().unwrap();
    assert!(n < 8, "generation went on for {n} pieces after the cancel");
    // The planner is still usable afterwards.
    planner
        .plan(
            &PlanRequest::new("zip the reports"),
            &w.cx(),
            &PlanControl::default(),
        )
        .unwrap();
}

#[test]
fn limits_raise_resource_exhaustion() {
    let w = world();
    let limits = LlmLimits {
        max_context_tokens: 200,
        ..LlmLimits::from_config(&w.config)
    };
    let mut planner = LlmPlanner::load(&w.model, limits).unwrap();
    let err = planner
        .plan(
            &PlanRequest::new("zip the reports"),
            &w.cx(),
            &PlanControl::default(),
        )
        .unwrap_err();
    assert_eq!(err.code(), "RESOURCE_EXHAUSTED", "{err}");
    assert!(
        err.to_string().contains("max_context_tokens (200)"),
        "{err}"
    );

    planner.limits = LlmLimits {
        max_turns: 0,
        ..LlmLimits::from_config(&w.config)
    };
    let err = planner
        .plan(
            &PlanRequest::new("zip the reports"),
            &w.cx(),
            &PlanControl::default(),
        )
        .unwrap_err();
    assert_eq!(err.code(), "RESOURCE_EXHAUSTED", "{err}");
    assert!(err.to_string().contains("max_turns (0)"), "{err}");
}

#[test]
fn bad_model_locations_get_clear_errors() {
    let w = world();
    let limits = LlmLimits::from_config(&w.config);
    let err = LlmPlanner::load(Path::new("models/tiny"), limits).unwrap_err();
    assert_eq!(err.code(), "MODEL_INVALID");
    assert!(err.to_string().contains("absolute"), "{err}");

    let absent = w.model.with_file_name("absent");
    let err = LlmPlanner::load(&absent, limits).unwrap_err();
    assert_eq!(err.code(), "MODEL_NOT_FOUND");
    assert!(err.to_string().contains("absent"), "{err}");

    let not_gguf = w.model.join("config.json");
    let err = LlmPlanner::load(&not_gguf, limits).unwrap_err();
    assert!(err.to_string().contains(".gguf"), "{err}");

    std::fs::write(w.model.join("model.safetensors"), b"not safetensors").unwrap();
    let err = LlmPlanner::load(&w.model, limits).unwrap_err();
    assert_eq!(err.code(), "MODEL_INVALID");
    assert!(err.to_string().contains("tiny-llama"), "{err}");

    std::fs::remove_file(w.model.join("model.safetensors")).unwrap();
    let err = LlmPlanner::load(&w.model, limits).unwrap_err();
    assert!(err.to_string().contains("model.safetensors"), "{err}");

    std::fs::remove_file(w.model.join("tokenizer.json")).unwrap();
    let err = LlmPlanner::load(&w.model, limits).unwrap_err();
    assert!(err.to_string().contains("tokenizer.json: missing"), "{err}");

    let config = PipelineConfig {
        thinker_model_path: None,
        ..w.config.clone()
    };
    let err = thinker::build_planner(&config).map(|_| ()).unwrap_err();
    assert_eq!(err.code(), "MODEL_NOT_CONFIGURED");
}

/// The default with a model (`thinker_rules_first`): a plain request the rule planner is sure of
/// is its plan and the model reads nothing, and so is a request it asks the person about; a clause
/// whose skill it chose by less than `planner_sure_margin` is the model's to choose.
#[test]
fn rules_first_asks_the_model_only_when_unsure() {
    let mut w = world();
    w.config.thinker_rules_first = true;
    let mut planner = thinker::build_planner(&w.config).unwrap();
    assert_eq!(planner.name(), "rule, then mistralrs:tiny-llama");
    let plan = |w: &World, planner: &mut Box<dyn Planner>, text: &str| {
        let tokens = Mutex::new(0usize);
        let sink = |_: &str| *tokens.lock().unwrap() += 1;
        let control = PlanControl {
            cancel: None,
            on_token: Some(&sink),
        };
        let request = PlanRequest {
            text: text.into(),
            root_name: Some("Downloads".into()),
            entries: vec!["reports".into()],
            learned: Vec::new(),
        };
        let planned = planner.plan(&request, &w.cx(), &control).unwrap();
        (planned, tokens.into_inner().unwrap())
    };
    let (sure, tokens) = plan(&w, &mut planner, "zip the reports folder");
    assert_eq!(sure.usage.planner, "rule (sure)", "{:?}", sure.notes);
    assert_eq!((tokens, sure.usage.completion_tokens), (0, 0));
    assert_eq!(sure.plan.steps[0].skill, "archive-files");
    assert!(thinker::rules_are_sure(&sure, w.config.planner_sure_margin));

    // Not understood: the rule planner's question stands, the model is not asked to guess.
    let (asks, tokens) = plan(&w, &mut planner, "frobnicate the blorps quietly");
    assert_eq!(asks.usage.planner, "rule (asks)", "{:?}", asks.notes);
    assert!(asks.clarification.is_some());
    assert_eq!(tokens, 0);
    // When no margin is enough (planner_sure_margin 1.0), a request the rules read two ways: the
    // model chooses between the readings (`tests/judge.rs`), the steps are the rules'.
    w.config.planner_sure_margin = 1.0;
    let (unsure, _) = plan(&w, &mut planner, "show me what reports holds");
    assert_eq!(
        unsure.usage.planner, "rule, readings chosen by mistralrs:tiny-llama",
        "{:?}",
        unsure.notes
    );
    assert!(
        unsure
            .notes
            .iter()
            .any(|n| n.contains("mistralrs:tiny-llama chose")
                || n.contains("mistralrs:tiny-llama leaned to")),
        "{:?}",
        unsure.notes
    );
    assert!(validate_plan(&unsure.plan, &w.store, w.config.max_plan_steps).is_empty());
}

#[test]
fn drafted_tool_declarations_always_make_a_skill_that_loads() {
    let w = world();
    let mut planner = thinker::build_planner(&w.config).unwrap();
    let request = thinker::ToolDraftRequest {
        name: "sort-screenshots".into(),
        description: "Find screenshots and sort them into folders by month.".into(),
        tags: vec!["screenshots".into()],
    };
    let validator =
        jsonschema::validator_for(&thinker::tool_draft_schema(w.store.table())).unwrap();
    let drafted = planner
        .draft_tools(&request, &w.cx(), &PlanControl::default())
        .unwrap()
        .expect("a model planner drafts");
    let response = drafted.response.clone().unwrap();
    let value: serde_json::Value = serde_json::from_str(&response).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&value)
        .map(|e| e.to_string())
        .collect();
    assert!(errors.is_empty(), "{errors:?}\n{response}");
    assert!((1..=thinker::MAX_DRAFTED_TOOLS).contains(&drafted.tools.len()));
    assert!(
        drafted
            .prompt
            .as_deref()
            .unwrap()
            .contains("Skill `sort-screenshots`")
    );
    eprintln!("drafted: {:?} {:?}", drafted.usage, drafted.notes);

    // Scaffolded with those tools into a skills folder of its own, the skill loads with them.
    let dir = tempfile::tempdir().unwrap();
    let template = w.store.dir().join(skills::TEMPLATE_DIR);
    std::fs::create_dir(dir.path().join(skills::TEMPLATE_DIR)).unwrap();
    for f in ["SKILL.md", "vis.json"] {
        std::fs::copy(
            template.join(f),
            dir.path().join(skills::TEMPLATE_DIR).join(f),
        )
        .unwrap();
    }
    let mut store = SkillStore::load(dir.path(), w.store.table().clone()).unwrap();
    let spec = skills::ScaffoldSpec {
        name: &request.name,
        description: &request.description,
        tags: &request.tags,
        tools: &drafted.tools,
    };
    store.scaffold_with(&spec).unwrap();
    let loaded = store.get("sort-screenshots").unwrap();
    let mut declared: Vec<&String> = loaded.definition.tools.keys().collect();
    let mut wanted: Vec<&String> = drafted.tools.iter().map(|t| &t.name).collect();
    declared.sort();
    wanted.sort();
    assert_eq!(declared, wanted);
    let vis = loaded.vis.as_ref().unwrap();
    let mut in_vis: Vec<&String> = vis["tools"].as_object().unwrap().keys().collect();
    in_vis.sort();
    assert_eq!(in_vis, wanted);
}

#[test]
fn a_model_planner_describes_a_tool_within_the_description_schema() {
    let w = world();
    // Through every wrapper `build_planner` puts around the model (workflow, rules first,
    // fallback), so each passes the call on.
    let mut planner = thinker::build_planner(&PipelineConfig {
        thinker_rules_first: true,
        ..w.config.clone()
    })
    .unwrap();
    let skill = &w.store.get("remove-duplicates").unwrap().definition;
    let validator = jsonschema::validator_for(&thinker::description_schema()).unwrap();
    match planner.describe_tool(skill, "scan", &PlanControl::default()) {
        Ok(Some(d)) => {
            let value = serde_json::to_value(&d.description).unwrap();
            let errors: Vec<String> = validator
                .iter_errors(&value)
                .map(|e| e.to_string())
                .collect();
            assert!(errors.is_empty(), "{errors:?}\n{value}");
            assert!(d.usage.planner.starts_with("mistralrs:"), "{:?}", d.usage);
        }
        Ok(None) => panic!("a model planner must describe, not leave it to the rules"),
        // Random weights may keep writing summaries with no words in them: the loop says so.
        Err(e) => assert!(
            ["PLANNER_INVALID_OUTPUT", "RESOURCE_EXHAUSTED"].contains(&e.code()),
            "{e}"
        ),
    }
}
