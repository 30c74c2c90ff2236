//! The thinker (pipeline stage 2): turns a request in plain words into a `Plan`.
//!
//! Two planners behind one trait: `RulePlanner`, the embedded default (clauses, retrieval, trigger
//! phrases, parameter extraction), and `LlmPlanner` on mistral.rs (a local model, output
//! constrained to the plan's JSON Schema, bounded repair loop). Plan validation and the schema live
//! here too. Architecture invariant: no planner touches the disk or the sandbox; they read the
//! skill store and the skill index only.

mod answer;
mod combined;
mod describe;
mod draft;
mod error;
mod fallback;
mod given;
mod judge;
#[cfg(feature = "mistralrs")]
mod llm;
mod prompt;
mod read;
pub mod rules;
mod schema;
mod validate;
mod workflow;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use config::{PipelineConfig, ThinkerBackend};
use contracts::{Plan, SkillDefinition};
use retrieval::RetrievalPipeline;
use serde::Serialize;
use skills::SkillStore;

pub use answer::{ModelAnswer, ModelStep, answer_text, into_plan};
pub use combined::{RulesWhenSure, rules_are_sure, rules_decide};
pub use describe::{
    DescribedTool, MIN_EXAMPLES, check_description, description_prompt, description_schema,
};
pub use draft::{
    DraftedTools, MAX_DRAFTED_TOOLS, ToolDraftRequest, check_draft, draft_prompt, tool_draft_schema,
};
pub use error::{Result, ThinkerError, render_problems};
pub use fallback::{Fallback, WithRuleFallback};
pub use given::{GIVEN_PLANNER, GivenPlan};
pub use judge::{
    Judgement, MAX_READINGS, MODEL_SURE, READING_WINDOW, Reading, ReadingJudge, ReadingQuestion,
    check_judgement, judge_prompt, judge_schema, judgement_probabilities,
};
#[cfg(feature = "mistralrs")]
pub use llm::{GenerationTiming, LlmLimits, LlmPlanner};
pub use prompt::{
    PromptParts, Role, WorkedExample, build_prompt, skill_guidance, system_prompt, worked_examples,
};
pub use read::{
    Piece, category_probabilities, category_prompt, category_schema, check_category, check_summary,
    check_title, summary_prompt, summary_schema, title_prompt, title_schema,
};
pub use rules::RulePlanner;
pub use schema::{MAX_STRING, allowed_pairs, is_template, plan_schema};
pub use validate::{PlanProblem, validate_plan};
pub use workflow::{WorkflowFirst, WorkflowMatch, match_workflows};

/// A request and what the planner may know about the working folder.
#[derive(Debug, Clone, Default)]
pub struct PlanRequest {
    pub text: String,
    /// The working root's folder name ("Downloads"): "my Downloads folder" then means the root.
    pub root_name: Option<String>,
    /// Relative paths of folders (and files) under the root, to recognise names in the request.
    pub entries: Vec<String>,
    /// Choices the person made before (the near-miss picker, from the audit log): the rule
    /// planner leans towards them for clauses that say much the same.
    pub learned: Vec<contracts::LearnedChoice>,
}

impl PlanRequest {
    pub fn new(text: impl Into<String>) -> Self {
        PlanRequest {
            text: text.into(),
            ..Default::default()
        }
    }
}

/// What planning reads: the skills, the skill index, the levers.
#[derive(Debug, Clone, Copy)]
pub struct PlanningContext<'a> {
    pub skills: &'a SkillStore,
    pub retrieval: &'a RetrievalPipeline,
    pub config: &'a PipelineConfig,
}

/// Cancels a running plan (or a whole run) from another thread.
#[derive(Debug, Clone, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Called with each piece of text the model generates (for streaming to the UI).
pub type TokenSink<'a> = &'a (dyn Fn(&str) + Sync);

/// Cancellation and streaming for one planning call.
#[derive(Clone, Copy, Default)]
pub struct PlanControl<'a> {
    pub cancel: Option<&'a CancelToken>,
    pub on_token: Option<TokenSink<'a>>,
}

impl std::fmt::Debug for PlanControl<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PlanControl")
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}

impl PlanControl<'_> {
    pub fn is_cancelled(&self) -> bool {
        self.cancel.is_some_and(CancelToken::is_cancelled)
    }
}

/// Token usage and latency of one planning call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, schemars::JsonSchema)]
pub struct PlanUsage {
    /// `rule` or the model's name.
    pub planner: String,
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    /// Model calls made (1 + repairs).
    pub attempts: u32,
    pub latency_ms: f64,
}

/// A plan and what the planner wants the person to know or answer.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Planned {
    pub plan: Plan,
    /// Set when part of the request was not understood: the orchestrator asks this question.
    pub clarification: Option<String>,
    pub notes: Vec<String>,
    pub usage: PlanUsage,
    /// The prompt a model was given (system and user message), for the audit log.
    pub prompt: Option<String>,
    /// The model's accepted answer, verbatim.
    pub response: Option<String>,
    /// Set when the configured model failed to plan and this plan is the rule planner's.
    pub fallback: Option<Fallback>,
    /// How sure the planner is of each step's skill (step number → margin of its clause's best
    /// reading over the best reading with another skill). Empty when the planner cannot say (a
    /// model); the orchestrator skips the near-miss picker for steps at or above
    /// `planner_sure_margin`.
    pub confidence: BTreeMap<u32, f32>,
    /// Set when a saved workflow's trigger matched: the plan is its steps with the slots filled;
    /// the orchestrator checks its conditions.
    pub workflow: Option<contracts::WorkflowUse>,
}

/// Stage 2 of the pipeline.
pub trait Planner: Send {
    fn name(&self) -> String;

    fn plan(
        &mut self,
        request: &PlanRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Planned>;

    /// Drafts the tool declarations of a new skill from its name and description (skill-create).
    /// `None` when this planner has no model to draft with: the rule planner leaves the
    /// template's example tools for the author to replace.
    fn draft_tools(
        &mut self,
        _request: &ToolDraftRequest,
        _cx: &PlanningContext,
        _control: &PlanControl,
    ) -> Result<Option<DraftedTools>> {
        Ok(None)
    }

    /// Describes one of `skill`'s tools for people and for matching: a summary, example
    /// requests and tags (seed 002). `None` when this planner has no model to write with: the
    /// descriptions derived from the SKILL.md stand.
    fn describe_tool(
        &mut self,
        _skill: &SkillDefinition,
        _tool: &str,
        _control: &PlanControl,
    ) -> Result<Option<DescribedTool>> {
        Ok(None)
    }

    /// The model that reads files for the `llm` primitive's tasks (classify, suggest_names,
    /// summarize), cancelled through `control`. `None` when this planner has no model: the tasks
    /// run on the embedder and the files' own metadata.
    fn reader<'s>(
        &'s mut self,
        _control: PlanControl<'s>,
    ) -> Option<Box<dyn retrieval::ModelReader + 's>> {
        None
    }

    /// The model that chooses between the rule planner's readings of a clause it is unsure of
    /// (`thinker_rules_first`), cancelled through `control`. `None` when this planner has no
    /// model.
    fn judge<'s>(&'s mut self, _control: PlanControl<'s>) -> Option<Box<dyn ReadingJudge + 's>> {
        None
    }
}

/// The planner the config asks for: the rule planner by default, the LLM planner when
/// `thinker_backend: mistralrs` (its model loads here, so errors surface before any request),
/// with the rule planner behind it for requests the model cannot plan and, under
/// `thinker_rules_first`, in front of it for requests the rule planner is sure of; either way a request
/// that says a saved workflow's trigger is planned as that workflow.
pub fn build_planner(config: &PipelineConfig) -> Result<Box<dyn Planner>> {
    let inner: Box<dyn Planner> = match config.thinker_backend {
        ThinkerBackend::Rule => Box::new(RulePlanner),
        #[cfg(feature = "mistralrs")]
        ThinkerBackend::Mistralrs => {
            let path = config
                .thinker_model_path
                .as_deref()
                .ok_or(ThinkerError::ModelNotConfigured)?;
            let model = LlmPlanner::load(path, LlmLimits::from_config(config))?;
            let model = Box::new(WithRuleFallback::new(Box::new(model)));
            if config.thinker_rules_first {
                Box::new(RulesWhenSure::new(model))
            } else {
                model
            }
        }
        #[cfg(not(feature = "mistralrs"))]
        ThinkerBackend::Mistralrs => return Err(ThinkerError::Unavailable),
    };
    Ok(Box::new(WorkflowFirst::new(inner)))
}

/// The embedded planner (the rule planner), with saved workflows matched first.
pub fn embedded_planner() -> Box<dyn Planner> {
    Box::new(WorkflowFirst::new(Box::new(RulePlanner)))
}
