//! The repair loop and the limits, driven by a scripted model (the real mistral.rs model is
//! exercised in `tests/llm.rs`; here the answers must be chosen, so a script stands in for it).

use std::cell::RefCell;
use std::path::Path;

use config::PipelineConfig;
use contracts::ErrorCode;
use retrieval::RetrievalPipeline;
use skills::SkillStore;

use super::*;

/// Answers from a list, one per call; records what it was asked.
struct Scripted {
    answers: RefCell<Vec<&'static str>>,
    seen: RefCell<Vec<Vec<(Role, String)>>>,
    context: Option<usize>,
}

impl Scripted {
    fn new(answers: &[&'static str]) -> Self {
        Scripted {
            answers: RefCell::new(answers.iter().rev().copied().collect()),
            seen: RefCell::new(Vec::new()),
            context: None,
        }
    }
}

impl ChatModel for Scripted {
    fn count_tokens(&self, messages: &[(Role, String)]) -> Result<usize> {
        // One token per four bytes, as a rough tokenizer would.
        Ok(messages.iter().map(|(_, t)| t.len() / 4 + 4).sum())
    }

    fn context_length(&self) -> Option<usize> {
        self.context
    }

    fn generate(
        &self,
        messages: &[(Role, String)],
        _schema: &serde_json::Value,
        _max_len: usize,
        _control: &PlanControl,
    ) -> Result<Answer> {
        self.seen.borrow_mut().push(messages.to_vec());
        let text = self.answers.borrow_mut().pop().expect("script ran out");
        Ok(Answer {
            text: text.to_owned(),
            prompt_tokens: 0,
            completion_tokens: text.len() / 4,
            finish: Some("stop".into()),
            pieces: Vec::new(),
        })
    }
}

struct World {
    _state: tempfile::TempDir,
    store: SkillStore,
    retrieval: RetrievalPipeline,
    config: PipelineConfig,
}

fn world() -> World {
    let state = tempfile::tempdir().unwrap();
    let config = PipelineConfig {
        state_dir: Some(state.path().to_owned()),
        ..PipelineConfig::default()
    };
    let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let store = SkillStore::load(&dir, table).unwrap();
    let mut retrieval = RetrievalPipeline::open(&config).unwrap();
    retrieval.build_index(&store).unwrap();
    World {
        _state: state,
        store,
        retrieval,
        config,
    }
}

impl World {
    fn plan(&self, model: &Scripted, limits: LlmLimits) -> Result<Planned> {
        let cx = PlanningContext {
            skills: &self.store,
            retrieval: &self.retrieval,
            config: &self.config,
        };
        let request = PlanRequest::new("remove duplicates in Downloads");
        plan_with(
            model,
            "scripted",
            limits,
            &request,
            &cx,
            &PlanControl::default(),
        )
    }

    fn limits(&self) -> LlmLimits {
        LlmLimits::from_config(&self.config)
    }
}

const VALID: &str = r#"{"steps": [{"step": 1, "description": "find duplicates", "skill": "remove-duplicates", "tool": "scan", "params": {"path": "Downloads"}}, {"step": 2, "description": "remove them", "skill": "remove-duplicates", "tool": "remove", "params": {"groups": "$step(1).groups"}}]}"#;
const FORWARD: &str = r#"{"steps": [{"step": 1, "description": "remove", "skill": "remove-duplicates", "tool": "remove", "params": {"groups": "$step(2).groups"}}, {"step": 2, "description": "scan", "skill": "remove-duplicates", "tool": "scan", "params": {"path": "Downloads"}}]}"#;
const UNKNOWN: &str = r#"{"steps": [{"step": 1, "description": "x", "skill": "remove-dupes", "tool": "scan", "params": {}}]}"#;

#[test]
fn a_valid_first_answer_is_the_plan() {
    let w = world();
    let model = Scripted::new(&[VALID]);
    let planned = w.plan(&model, w.limits()).unwrap();
    assert_eq!(planned.plan.steps.len(), 2);
    assert_eq!(planned.usage.attempts, 1);
    assert_eq!(planned.usage.planner, "scripted");
    assert!(planned.usage.prompt_tokens > 0 && planned.usage.completion_tokens > 0);
    // Progressive disclosure: the system message lists every skill's tools, the worked examples
    // follow as earlier turns; by default (planner_guidance_skills: 0) the last message is the
    // request alone, and with a guidance slot it carries the matching skill's guidance only.
    let seen = model.seen.borrow();
    let (system, user) = (&seen[0][0].1, &seen[0].last().unwrap().1);
    assert!(system.contains("\nremove-duplicates: "), "{system}");
    assert!(system.contains("\nskill-create: "), "{system}");
    assert!(!user.contains("How to plan with"), "{user}");
    let guided = Scripted::new(&[VALID]);
    let limits = LlmLimits {
        guidance_skills: 1,
        ..w.limits()
    };
    w.plan(&guided, limits).unwrap();
    let seen = guided.seen.borrow();
    let user = &seen[0].last().unwrap().1;
    assert!(
        user.contains("How to plan with remove-duplicates:"),
        "{user}"
    );
    assert!(!user.contains("How to plan with skill-create:"), "{user}");
}

#[test]
fn a_compact_answer_is_numbered_and_described_by_its_tools() {
    let w = world();
    let model = Scripted::new(&[
        r#"{"steps":[{"skill":"remove-duplicates","tool":"scan","params":{"path":"Downloads"}},{"skill":"remove-duplicates","tool":"remove","params":{"groups":"$step(1).groups"}}]}"#,
    ]);
    let planned = w.plan(&model, w.limits()).unwrap();
    let steps: Vec<(u32, &str)> = planned
        .plan
        .steps
        .iter()
        .map(|s| (s.step, s.description.as_str()))
        .collect();
    assert_eq!(
        steps,
        [
            (1, "Find groups of identical files and the space they waste"),
            (
                2,
                "Delete the extra copies in each duplicate group, keeping one"
            )
        ]
    );
}

#[test]
fn a_question_is_asked_instead_of_a_guessed_plan() {
    let w = world();
    let model = Scripted::new(&[r#"{"question":"Which folder should I clean?"}"#]);
    let planned = w.plan(&model, w.limits()).unwrap();
    assert!(planned.plan.steps.is_empty());
    assert_eq!(
        planned.clarification.as_deref(),
        Some("Which folder should I clean?")
    );
}

#[test]
fn invalid_answers_are_sent_back_with_every_problem_and_repaired() {
    let w = world();
    let model = Scripted::new(&["not json", FORWARD, VALID]);
    let planned = w.plan(&model, w.limits()).unwrap();
    assert_eq!(planned.usage.attempts, 3);
    assert!(
        planned.notes.iter().any(|n| n.contains("repaired after 3")),
        "{:?}",
        planned.notes
    );
    let seen = model.seen.borrow();
    // Second call: the bad answer and why it was refused.
    let feedback = &seen[1].last().unwrap().1;
    assert!(feedback.contains("not JSON"), "{feedback}");
    let answered = &seen[1][seen[1].len() - 2];
    assert_eq!(*answered, (Role::Assistant, "not json".to_owned()));
    // Third call: the forward reference is named.
    let feedback = &seen[2].last().unwrap().1;
    assert!(
        feedback.contains("may only use earlier steps"),
        "{feedback}"
    );
}

#[test]
fn repairs_are_bounded_and_the_last_problem_is_reported() {
    let w = world();
    let model = Scripted::new(&["[]", FORWARD, UNKNOWN]);
    let err = w.plan(&model, w.limits()).unwrap_err();
    assert_eq!(err.code(), "PLANNER_INVALID_OUTPUT");
    let message = err.to_string();
    assert!(message.contains("3 attempt"), "{message}");
    assert!(
        message.contains("no skill named `remove-dupes`"),
        "{message}"
    );
    assert!(
        message.contains("remove-duplicates"),
        "did-you-mean missing: {message}"
    );
}

#[test]
fn a_repeated_answer_stops_the_loop_early() {
    let w = world();
    let model = Scripted::new(&[UNKNOWN, UNKNOWN, VALID]);
    let err = w.plan(&model, w.limits()).unwrap_err();
    assert_eq!(err.code(), "PLANNER_INVALID_OUTPUT");
    assert!(err.to_string().contains("no progress"), "{err}");
    assert_eq!(model.seen.borrow().len(), 2);
}

#[test]
fn limits_raise_resource_exhaustion() {
    let w = world();
    // Too few turns for the repair the answer needs.
    let limits = LlmLimits {
        max_turns: 1,
        ..w.limits()
    };
    let err = w.plan(&Scripted::new(&[UNKNOWN]), limits).unwrap_err();
    assert_eq!(err.code(), "RESOURCE_EXHAUSTED");
    assert!(err.to_string().contains("max_turns (1)"), "{err}");
    assert!(err.to_string().contains("remove-dupes"), "{err}");

    // A prompt that leaves no room for the answer.
    let limits = LlmLimits {
        max_context_tokens: 64,
        ..w.limits()
    };
    let err = w.plan(&Scripted::new(&[VALID]), limits).unwrap_err();
    assert_eq!(err.code(), "RESOURCE_EXHAUSTED");
    assert!(err.to_string().contains("max_context_tokens (64)"), "{err}");

    // The model's own context length caps the configured budget.
    let mut model = Scripted::new(&[VALID]);
    model.context = Some(100);
    let err = w.plan(&model, w.limits()).unwrap_err();
    assert!(
        err.to_string().contains("the model's context length (100)"),
        "{err}"
    );
}

#[test]
fn cancellation_before_a_turn_stops_planning() {
    let w = world();
    let cx = PlanningContext {
        skills: &w.store,
        retrieval: &w.retrieval,
        config: &w.config,
    };
    let token = crate::CancelToken::new();
    token.cancel();
    let control = PlanControl {
        cancel: Some(&token),
        on_token: None,
    };
    let model = Scripted::new(&[VALID]);
    let err = plan_with(
        &model,
        "scripted",
        w.limits(),
        &PlanRequest::new("zip the reports"),
        &cx,
        &control,
    )
    .unwrap_err();
    assert_eq!(err.code(), "CANCELLED");
    assert!(model.seen.borrow().is_empty());
}

fn draft(w: &World, model: &Scripted, name: &str) -> Result<Option<DraftedTools>> {
    let cx = PlanningContext {
        skills: &w.store,
        retrieval: &w.retrieval,
        config: &w.config,
    };
    let request = ToolDraftRequest {
        name: name.into(),
        description: "Find screenshots and sort them into a Screenshots folder by month.".into(),
        tags: vec!["screenshots".into()],
    };
    draft::draft_with(
        model,
        "scripted",
        w.limits(),
        &request,
        &cx,
        &PlanControl::default(),
    )
}

const DRAFT_OK: &str = r#"{"tools": [{"name": "find_screenshots", "summary": "Find screenshots by name", "primitive": "graph", "operation": "find", "optional": ["glob", "extension"]}, {"name": "sort_by_month", "summary": "Sort them into month folders", "primitive": "graph", "operation": "organize_by_date", "optional": ["target", "pattern"]}]}"#;
const DRAFT_BAD: &str = r#"{"tools": [{"name": "find_screenshots", "summary": "Find screenshots", "primitive": "graph", "operation": "find", "optional": ["colour"]}, {"name": "find_screenshots", "summary": "Again", "primitive": "graph", "operation": "shred", "optional": []}]}"#;

#[test]
fn drafted_tools_are_checked_against_the_primitive_table_and_repaired() {
    let w = world();
    let model = Scripted::new(&[DRAFT_BAD, DRAFT_OK]);
    let drafted = draft(&w, &model, "sort-screenshots").unwrap().unwrap();
    let names: Vec<_> = drafted.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["find_screenshots", "sort_by_month"]);
    // Required parameters come from the primitive table, not from the model.
    assert_eq!(drafted.tools[1].required, ["path"]);
    assert_eq!(drafted.tools[1].optional, ["target", "pattern"]);
    assert_eq!(drafted.usage.attempts, 2);
    let seen = model.seen.borrow();
    // The prompt lists the operations with their parameters.
    assert!(
        seen[0][0].1.contains("graph organize_by_date (path; "),
        "{}",
        seen[0][0].1
    );
    assert!(seen[0][1].1.contains("Skill `sort-screenshots`"));
    // Every problem of the bad draft went back in one message.
    let feedback = &seen[1].last().unwrap().1;
    assert!(
        feedback.starts_with("That tool list is invalid"),
        "{feedback}"
    );
    assert!(
        feedback.contains("`colour` is not a parameter of graph find"),
        "{feedback}"
    );
    assert!(
        feedback.contains("there is no graph operation `shred`"),
        "{feedback}"
    );
}

#[test]
fn no_draft_for_a_taken_or_invalid_name() {
    let w = world();
    let model = Scripted::new(&[]);
    assert!(draft(&w, &model, "manage-files").unwrap().is_none());
    assert!(draft(&w, &model, "Bad Name").unwrap().is_none());
    assert!(model.seen.borrow().is_empty());
}

#[test]
fn a_repeated_tool_name_is_numbered_and_a_repeated_tool_dropped() {
    let w = world();
    let twice = r#"{"tools": [{"name": "find_shots", "summary": "Find screenshots", "primitive": "graph", "operation": "find", "optional": []}, {"name": "find_shots", "summary": "Find screenshots", "primitive": "graph", "operation": "find", "optional": []}, {"name": "find_shots", "summary": "Sort them", "primitive": "graph", "operation": "organize_by_date", "optional": []}]}"#;
    let drafted = draft(&w, &Scripted::new(&[twice]), "sort-screenshots")
        .unwrap()
        .unwrap();
    let names: Vec<_> = drafted.tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["find_shots", "find_shots_2"]);
}

#[test]
fn a_tool_description_is_constrained_checked_and_repaired() {
    let w = world();
    let skill = &w.store.get("remove-duplicates").unwrap().definition;
    let model = Scripted::new(&[
        r#"{"summary": "Finds copies.", "examples": ["find duplicates in Music"], "tags": ["duplicates"]}"#,
        r#"{"summary": "Finds files that are exact copies of each other and tells how much space they waste.", "examples": ["find duplicates in Music", "which photos in Pictures are copies", "how much space do the copies in Downloads waste"], "tags": ["duplicates", "space"]}"#,
    ]);
    let described = describe::describe_with(
        &model,
        "scripted",
        w.limits(),
        skill,
        "scan",
        &PlanControl::default(),
    )
    .unwrap();
    assert_eq!(described.usage.attempts, 2);
    assert_eq!(described.description.examples.len(), 3);
    let seen = model.seen.borrow();
    // The skill's own words and the requests its SKILL.md names for the tool are in the prompt.
    let first = &seen[0][1].1;
    assert!(
        first.contains("What it does: Find groups of identical files"),
        "{first}"
    );
    assert!(
        first.contains("It is part of this: Find and delete duplicate files"),
        "{first}"
    );
    assert!(
        first.contains("Not to be confused with: Delete the extra copies"),
        "{first}"
    );
    assert!(
        first.contains("\"find duplicate files in Downloads\""),
        "{first}"
    );
    assert!(
        !first.contains("scan"),
        "the tool's name is left out: {first}"
    );
    let feedback = &seen[1].last().unwrap().1;
    assert!(feedback.contains("at least 3"), "{feedback}");
}

fn inbox_categories() -> Vec<retrieval::classify::Category> {
    ["Invoices", "Recipes"]
        .iter()
        .map(|n| retrieval::classify::Category {
            name: (*n).into(),
            description: String::new(),
            folder: format!("Inbox/{n}"),
            exists: false,
            source: retrieval::classify::CategorySource::Request,
            examples: Vec::new(),
        })
        .collect()
}

#[test]
fn a_file_read_into_a_category_that_is_not_one_is_sent_back_and_repaired() {
    use retrieval::ModelReader;
    let model = Scripted::new(&[
        r#"{"category": "Bills", "reason": "amount due"}"#,
        r#"{"category": "Invoices", "reason": "amount due"}"#,
    ]);
    let mut reader = read::LlmReader::new(
        &model,
        "scripted".into(),
        LlmLimits::from_config(&PipelineConfig::default()),
        PlanControl::default(),
    );
    let file = retrieval::classify::FileText {
        path: "Inbox/scan.pdf".into(),
        name: "scan.pdf".into(),
        text: "ACME GmbH. Amount due: 420 EUR".into(),
    };
    let choice = reader.classify(&file, &inbox_categories()).unwrap();
    assert_eq!(choice.category, 0);
    assert_eq!(choice.reason, "amount due");
    // The scripted model weighs nothing: its choice is certain.
    assert_eq!(choice.probabilities, [1.0, 0.0]);
    let seen = model.seen.borrow();
    let repair = &seen[1].last().unwrap().1;
    assert!(
        repair.contains("`Bills` is not one of the categories (Invoices, Recipes)"),
        "{repair}"
    );
    assert!(seen[0][1].1.contains("Amount due: 420 EUR"));
}

#[test]
fn a_cancelled_reading_says_so_with_its_code() {
    use retrieval::ModelReader;
    let model = Scripted::new(&[]);
    let token = crate::CancelToken::new();
    token.cancel();
    let control = PlanControl {
        cancel: Some(&token),
        on_token: None,
    };
    let mut reader = read::LlmReader::new(
        &model,
        "scripted".into(),
        LlmLimits::from_config(&PipelineConfig::default()),
        control,
    );
    let file = retrieval::classify::FileText {
        path: "a.txt".into(),
        name: "a.txt".into(),
        text: "text".into(),
    };
    let err = reader.title(&file).unwrap_err();
    assert_eq!(ErrorCode::code(&err), "CANCELLED");
}
