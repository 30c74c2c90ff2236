//! LlmPlanner: a local model run by mistral.rs (a GGUF file or a safetensors folder, never the hub),
//! prompted with the top-k retrieved skills, its output constrained to the plan's JSON Schema; an
//! invalid plan is sent back with its problems (bounded repair loop, seed 004's "reparse"), with
//! per-call limits on turns and context tokens.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Instant;

use config::PipelineConfig;
use contracts::Plan;
use either::Either;
use mistralrs::{
    Constraint, GgufModelBuilder, Model, ModelDType, RequestBuilder, Response, TextMessageRole,
    TextMessages, TextModelBuilder, TokenSource,
};
use serde::Serialize;

use crate::answer::{ModelAnswer, into_plan};
use crate::read::Piece;
use crate::{
    DraftedTools, PlanControl, PlanRequest, PlanUsage, Planned, Planner, PlanningContext, Result,
    Role, ThinkerError, ToolDraftRequest, build_prompt, plan_schema, render_problems,
    validate_plan,
};

/// Least room for the answer: below it a call is refused as resource exhaustion.
const MIN_OUTPUT_TOKENS: usize = 32;
/// Most tokens one answer may take.
const MAX_OUTPUT_TOKENS: usize = 4096;
/// Chunks read after a constrained answer is complete before the stream is left without the
/// engine's own end (it normally comes with the next chunk).
const CHUNKS_AFTER_COMPLETE_JSON: usize = 3;
/// Finished conversations whose KV cache the model keeps for prefix reuse. Every planning prompt
/// starts with the same rules, catalogue and worked examples, so the last two are enough to find
/// that prefix; each holds the KV rows of a whole prompt (tens to hundreds of MB).
const PREFIX_CACHE_SEQUENCES: usize = 2;

/// Per-call limits of the LLM planner (seed 004's handler configuration).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LlmLimits {
    /// Model calls per request, the first one included.
    pub max_turns: u32,
    /// Prompt + output tokens of one call.
    pub max_context_tokens: usize,
    /// Repairs of an invalid plan before giving up.
    pub retries: u32,
    /// Skills whose planner guidance the prompt discloses.
    pub guidance_skills: usize,
    pub max_steps: usize,
}

impl LlmLimits {
    pub fn from_config(c: &PipelineConfig) -> Self {
        LlmLimits {
            max_turns: c.max_turns,
            max_context_tokens: c.max_context_tokens,
            retries: c.planner_retries,
            guidance_skills: c.planner_guidance_skills,
            max_steps: c.max_plan_steps,
        }
    }
}

/// One model answer: its text, token counts and why it stopped.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Answer {
    pub text: String,
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    pub finish: Option<String>,
    /// Each generated piece of text in order, with the alternatives the model weighed for it
    /// (only when asked for: [`ChatModel::generate_weighed`]).
    pub pieces: Vec<Piece>,
}

/// Alternatives reported per generated token by [`ChatModel::generate_weighed`].
const WEIGHED_ALTERNATIVES: usize = 32;

/// What the repair loop needs from a model: token counting and one constrained generation.
pub(crate) trait ChatModel {
    /// Prompt tokens of `messages` with the chat template applied.
    fn count_tokens(&self, messages: &[(Role, String)]) -> Result<usize>;
    /// Most tokens (prompt + output) the model itself can attend to, when it says.
    fn context_length(&self) -> Option<usize>;
    fn generate(
        &self,
        messages: &[(Role, String)],
        schema: &serde_json::Value,
        max_len: usize,
        control: &PlanControl,
    ) -> Result<Answer>;

    /// Like `generate`, with each generated piece and the alternatives weighed for it
    /// (`Answer::pieces`). A model that cannot say gives the pieces without alternatives.
    fn generate_weighed(
        &self,
        messages: &[(Role, String)],
        schema: &serde_json::Value,
        max_len: usize,
        control: &PlanControl,
    ) -> Result<Answer> {
        self.generate(messages, schema, max_len, control)
    }
}

/// The mistral.rs planner; owns its model and a runtime to drive it from sync code.
pub struct LlmPlanner {
    model: Model,
    runtime: tokio::runtime::Runtime,
    name: String,
    pub limits: LlmLimits,
}

impl std::fmt::Debug for LlmPlanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LlmPlanner")
            .field("name", &self.name)
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

/// Runs `fut` on `rt` from a scoped thread (safe inside another runtime, e.g. the desktop app).
fn block_on<F>(rt: &tokio::runtime::Runtime, fut: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    std::thread::scope(|s| {
        s.spawn(|| rt.block_on(fut))
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

fn invalid(path: &Path, message: impl Into<String>) -> ThinkerError {
    ThinkerError::ModelInvalid {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// Checks a model location before mistral.rs sees it: a path that does not exist would be taken
/// for a hub id (a network attempt), so it is refused here with the file that is missing.
fn check_model_path(path: &Path) -> Result<()> {
    if !path.is_absolute() {
        return Err(invalid(
            path,
            "thinker_model_path must be an absolute path (models never come from a hub)",
        ));
    }
    if !path.exists() {
        return Err(ThinkerError::ModelMissing {
            path: path.to_owned(),
        });
    }
    if path.is_file() {
        let is_gguf = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("gguf"));
        if !is_gguf {
            return Err(invalid(
                path,
                "a model file must be a .gguf file; otherwise give the safetensors folder",
            ));
        }
        return Ok(());
    }
    for file in ["config.json", "tokenizer.json"] {
        if !path.join(file).is_file() {
            return Err(invalid(&path.join(file), "missing"));
        }
    }
    let has_weights = std::fs::read_dir(path)
        .map_err(|e| invalid(path, e.to_string()))?
        .filter_map(|e| e.ok())
        .any(|e| e.file_name().to_string_lossy().ends_with(".safetensors"));
    if !has_weights {
        return Err(invalid(
            &path.join("model.safetensors"),
            "missing (no *.safetensors weights in the folder)",
        ));
    }
    Ok(())
}

impl LlmPlanner {
    /// Loads the model at `path` (absolute; a `.gguf` file or a safetensors folder) on the CPU.
    pub fn load(path: &Path, limits: LlmLimits) -> Result<Self> {
        check_model_path(path)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .map_err(|e| ThinkerError::Generation(format!("starting the model runtime: {e}")))?;
        let path_buf: PathBuf = path.to_owned();
        let model = block_on(&runtime, async move {
            if path_buf.is_file() {
                let dir = path_buf.parent().unwrap_or(Path::new("/")).to_owned();
                let file = path_buf
                    .file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default();
                GgufModelBuilder::new(dir.display().to_string(), vec![file])
                    .with_token_source(TokenSource::None)
                    .with_force_cpu()
                    .with_prefix_cache_n(Some(PREFIX_CACHE_SEQUENCES))
                    .build()
                    .await
            } else {
                TextModelBuilder::new(path_buf.display().to_string())
                    .with_token_source(TokenSource::None)
                    .with_force_cpu()
                    .with_prefix_cache_n(Some(PREFIX_CACHE_SEQUENCES))
                    .with_dtype(ModelDType::F32)
                    .build()
                    .await
            }
        })
        .map_err(|e| invalid(path, format!("mistral.rs could not load it: {e:#}")))?;
        let name = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Ok(LlmPlanner {
            model,
            runtime,
            name,
            limits,
        })
    }
}

fn text_messages(messages: &[(Role, String)]) -> TextMessages {
    messages
        .iter()
        .fold(TextMessages::new(), |m, (role, text)| {
            let role = match role {
                Role::System => TextMessageRole::System,
                Role::User => TextMessageRole::User,
                Role::Assistant => TextMessageRole::Assistant,
            };
            m.add_message(role, text)
        })
}

impl ChatModel for LlmPlanner {
    fn count_tokens(&self, messages: &[(Role, String)]) -> Result<usize> {
        let model = &self.model;
        let m = text_messages(messages);
        block_on(&self.runtime, async move {
            model
                .tokenize(Either::Left(m), None, true, true, None)
                .await
        })
        .map(|t| t.len())
        .map_err(|e| ThinkerError::Generation(format!("tokenizing the prompt: {e}")))
    }

    fn context_length(&self) -> Option<usize> {
        self.model.max_sequence_length().ok().flatten()
    }

    /// One constrained generation, streamed to the token sink; cancellable per chunk.
    fn generate(
        &self,
        messages: &[(Role, String)],
        schema: &serde_json::Value,
        max_len: usize,
        control: &PlanControl,
    ) -> Result<Answer> {
        self.constrained(messages, schema, max_len, control, 0)
    }

    fn generate_weighed(
        &self,
        messages: &[(Role, String)],
        schema: &serde_json::Value,
        max_len: usize,
        control: &PlanControl,
    ) -> Result<Answer> {
        self.constrained(messages, schema, max_len, control, WEIGHED_ALTERNATIVES)
    }
}

impl LlmPlanner {
    /// One generation constrained to `schema`, with `alternatives` weighed per token.
    fn constrained(
        &self,
        messages: &[(Role, String)],
        schema: &serde_json::Value,
        max_len: usize,
        control: &PlanControl,
        alternatives: usize,
    ) -> Result<Answer> {
        let constraint = Constraint::JsonSchema(schema.clone());
        self.stream(messages, Some(constraint), max_len, control, alternatives)
            .map(|(answer, _)| answer)
    }
}

/// How long one generation took (`LlmPlanner::time_generation`, for benchmarks).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GenerationTiming {
    pub prompt_tokens: usize,
    pub completion_tokens: usize,
    /// From the request to the first generated token: reading the prompt (prefill) and one step.
    pub first_token_ms: f64,
    pub total_ms: f64,
}

impl GenerationTiming {
    /// Prompt tokens read per second (the whole time to the first token counted as prefill).
    pub fn prefill_tokens_per_s(&self) -> f64 {
        self.prompt_tokens as f64 / (self.first_token_ms / 1000.0)
    }

    /// Tokens generated per second after the first one.
    pub fn decode_tokens_per_s(&self) -> f64 {
        let after_first = self.total_ms - self.first_token_ms;
        if self.completion_tokens < 2 || after_first <= 0.0 {
            return 0.0;
        }
        (self.completion_tokens - 1) as f64 / (after_first / 1000.0)
    }
}

impl LlmPlanner {
    /// Generates up to `max_tokens` after the conversation `messages`, greedy and unconstrained,
    /// and times it (benchmarks compare this with llama.cpp on the same prompt).
    pub fn time_generation(
        &self,
        messages: &[(Role, String)],
        max_tokens: usize,
    ) -> Result<GenerationTiming> {
        let started = Instant::now();
        let (answer, first) =
            self.stream(messages, None, max_tokens, &PlanControl::default(), 0)?;
        let total_ms = started.elapsed().as_secs_f64() * 1000.0;
        Ok(GenerationTiming {
            prompt_tokens: answer.prompt_tokens,
            completion_tokens: answer.completion_tokens,
            first_token_ms: first.map_or(total_ms, |d| d.as_secs_f64() * 1000.0),
            total_ms,
        })
    }

    /// Greedy, unconstrained text after the conversation `messages` (at most `max_tokens`): what
    /// the model says on its own, for checking a model file against another engine.
    pub fn complete(&self, messages: &[(Role, String)], max_tokens: usize) -> Result<String> {
        let (answer, _) = self.stream(messages, None, max_tokens, &PlanControl::default(), 0)?;
        Ok(answer.text)
    }

    /// One generation streamed to the token sink, cancellable per chunk; also returns when the
    /// first piece of text arrived. With `alternatives` > 0 each piece comes with that many
    /// alternatives the model weighed (`Answer::pieces`).
    fn stream(
        &self,
        messages: &[(Role, String)],
        constraint: Option<Constraint>,
        max_len: usize,
        control: &PlanControl,
        alternatives: usize,
    ) -> Result<(Answer, Option<std::time::Duration>)> {
        // Greedy: temperature 0 is mistral.rs's argmax sampler. Its default (temperature 1 with
        // top-k 1) picks the same tokens but reports every alternative as impossible.
        let mut request = RequestBuilder::from(text_messages(messages))
            .set_sampler_max_len(max_len)
            .set_sampler_temperature(0.0);
        if alternatives > 0 {
            request = request
                .return_logprobs(true)
                .set_sampler_topn_logprobs(alternatives);
        }
        let constrained = constraint.is_some();
        if let Some(constraint) = constraint {
            request = request.set_constraint(constraint);
        }
        let model = &self.model;
        let started = Instant::now();
        block_on(&self.runtime, async move {
            let mut stream = model
                .stream_chat_request(request)
                .await
                .map_err(|e| ThinkerError::Generation(e.to_string()))?;
            let mut answer = Answer::default();
            let mut first = None;
            // Streamed pieces, one per generated token: the count when the stream is left
            // before the engine reports its usage.
            let mut pieces = 0;
            let mut chunks_after_complete = 0;
            while let Some(response) = stream.next().await {
                if control.is_cancelled() {
                    // Dropping the stream ends the sequence in the engine.
                    return Err(ThinkerError::Cancelled);
                }
                match response {
                    Response::Chunk(chunk) => {
                        for choice in &chunk.choices {
                            if let Some(piece) = &choice.delta.content {
                                first.get_or_insert_with(|| started.elapsed());
                                pieces += 1;
                                answer.text.push_str(piece);
                                if alternatives > 0 {
                                    answer.pieces.push(Piece {
                                        text: piece.clone(),
                                        alternatives: choice
                                            .logprobs
                                            .iter()
                                            .flat_map(|l| &l.top_logprobs)
                                            .filter_map(|t| {
                                                Some((t.bytes.clone()?, 10f32.powf(t.logprob)))
                                            })
                                            .collect(),
                                    });
                                }
                                if let Some(sink) = control.on_token {
                                    sink(piece);
                                }
                            }
                            if choice.finish_reason.is_some() {
                                answer.finish.clone_from(&choice.finish_reason);
                            }
                        }
                        if let Some(u) = &chunk.usage {
                            answer.prompt_tokens = u.prompt_tokens;
                            answer.completion_tokens = u.completion_tokens;
                        }
                        if answer.finish.is_none() && constrained && is_complete_json(&answer.text)
                        {
                            // The constrained value is complete. The engine (patched) then ends
                            // the sequence with the model's end-of-turn token, and only a sequence
                            // that ends in the engine is kept for prefix reuse: wait a few chunks
                            // for that before leaving the stream anyway.
                            chunks_after_complete += 1;
                            if chunks_after_complete > CHUNKS_AFTER_COMPLETE_JSON {
                                answer.finish = Some("stop".into());
                            }
                        }
                        if answer.finish.is_some() {
                            break;
                        }
                    }
                    Response::Done(done) => {
                        answer.prompt_tokens = done.usage.prompt_tokens;
                        answer.completion_tokens = done.usage.completion_tokens;
                        break;
                    }
                    Response::ModelError(e, _) | Response::CompletionModelError(e, _) => {
                        return Err(ThinkerError::Generation(e));
                    }
                    Response::InternalError(e) | Response::ValidationError(e) => {
                        return Err(ThinkerError::Generation(e.to_string()));
                    }
                    _ => {}
                }
            }
            if control.is_cancelled() {
                return Err(ThinkerError::Cancelled);
            }
            if answer.completion_tokens == 0 {
                answer.completion_tokens = pieces;
            }
            Ok((answer, first))
        })
    }
}

/// Whether `text` is one whole JSON value (what a schema constraint allows, and nothing after).
fn is_complete_json(text: &str) -> bool {
    let text = text.trim_end();
    (text.ends_with('}') || text.ends_with(']'))
        && serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
}

/// What an accepted answer is: a valid plan, or a question for the person.
enum PlanAnswer {
    Plan(Plan),
    Question(String),
}

/// Parses and validates one answer; the problems as one message when it is not a valid plan.
fn check_answer(text: &str, cx: &PlanningContext, max_steps: usize) -> Result<PlanAnswer, String> {
    let steps = match ModelAnswer::parse(text)? {
        ModelAnswer::Question(q) => return Ok(PlanAnswer::Question(q)),
        ModelAnswer::Plan(steps) => steps,
    };
    let plan = into_plan(steps, cx.skills);
    let problems = validate_plan(&plan, cx.skills, max_steps);
    if problems.is_empty() {
        Ok(PlanAnswer::Plan(plan))
    } else {
        Err(render_problems(&problems))
    }
}

impl Planner for LlmPlanner {
    fn name(&self) -> String {
        format!("mistralrs:{}", self.name)
    }

    fn plan(
        &mut self,
        request: &PlanRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Planned> {
        let name = self.name();
        plan_with(&*self, &name, self.limits, request, cx, control)
    }

    fn draft_tools(
        &mut self,
        request: &ToolDraftRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Option<DraftedTools>> {
        let name = self.name();
        draft::draft_with(&*self, &name, self.limits, request, cx, control)
    }

    fn describe_tool(
        &mut self,
        skill: &contracts::SkillDefinition,
        tool: &str,
        control: &PlanControl,
    ) -> Result<Option<crate::DescribedTool>> {
        let name = self.name();
        describe::describe_with(&*self, &name, self.limits, skill, tool, control).map(Some)
    }

    fn reader<'s>(
        &'s mut self,
        control: PlanControl<'s>,
    ) -> Option<Box<dyn retrieval::ModelReader + 's>> {
        Some(Box::new(read::LlmReader::new(
            &*self,
            self.name(),
            self.limits,
            control,
        )))
    }

    fn judge<'s>(
        &'s mut self,
        control: PlanControl<'s>,
    ) -> Option<Box<dyn crate::ReadingJudge + 's>> {
        Some(Box::new(judge::LlmJudge {
            model: &*self,
            name: self.name(),
            limits: self.limits,
            control,
        }))
    }
}

/// The planning conversation: prompt with the top-k skills, constrained answer, and a bounded
/// repair loop that feeds the validation problems back (seed 004's "reparse").
pub(crate) fn plan_with(
    model: &dyn ChatModel,
    name: &str,
    limits: LlmLimits,
    request: &PlanRequest,
    cx: &PlanningContext,
    control: &PlanControl,
) -> Result<Planned> {
    let started = Instant::now();
    let _span = tracing::info_span!("llm_plan", model = name).entered();
    let prompt = build_prompt(request, cx, limits.guidance_skills)?;
    let schema = plan_schema(cx.skills, limits.max_steps);
    let prompt_text = prompt.render();
    let messages = prompt.turns();
    let notes = vec![if prompt.skills.is_empty() {
        "no skill's planner guidance shown to the model".to_owned()
    } else {
        format!(
            "planner guidance shown to the model: {}",
            prompt.skills.join(", ")
        )
    }];
    let accepted = converse(
        model,
        name,
        limits,
        Conversation {
            messages,
            schema: &schema,
            noun: "plan",
            notes,
            weighed: false,
        },
        control,
        |text| check_answer(text, cx, limits.max_steps),
    )?;
    let mut usage = accepted.usage;
    usage.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    let (plan, clarification) = match accepted.value {
        PlanAnswer::Plan(plan) => (plan, None),
        PlanAnswer::Question(q) => (Plan::default(), Some(q)),
    };
    Ok(Planned {
        plan,
        clarification,
        notes: accepted.notes,
        usage,
        prompt: Some(prompt_text),
        response: Some(accepted.text),
        fallback: None,
        confidence: Default::default(),
        workflow: None,
    })
}

/// The opening of a constrained conversation.
pub(crate) struct Conversation<'a> {
    pub messages: Vec<(Role, String)>,
    pub schema: &'a serde_json::Value,
    /// What the model writes ("plan"), for the repair messages.
    pub noun: &'a str,
    pub notes: Vec<String>,
    /// Whether the accepted answer's pieces come with the alternatives the model weighed.
    pub weighed: bool,
}

impl<'a> Conversation<'a> {
    /// One question: a system and a user message, no notes yet.
    pub(crate) fn question(
        (system, user): (String, String),
        schema: &'a serde_json::Value,
        noun: &'a str,
        weighed: bool,
    ) -> Self {
        Conversation {
            messages: vec![(Role::System, system), (Role::User, user)],
            schema,
            noun,
            notes: Vec::new(),
            weighed,
        }
    }
}

/// An answer that passed its check, with the conversation's usage and notes.
pub(crate) struct Accepted<T> {
    pub value: T,
    pub text: String,
    pub usage: PlanUsage,
    pub notes: Vec<String>,
    /// The accepted answer's pieces (with alternatives when the conversation was `weighed`).
    pub pieces: Vec<Piece>,
}

/// Constrained answers under the limits, each checked by `check`; a rejected answer is sent
/// back with its problems until one passes or the turns and retries run out.
pub(crate) fn converse<T>(
    model: &dyn ChatModel,
    name: &str,
    limits: LlmLimits,
    conversation: Conversation,
    control: &PlanControl,
    check: impl Fn(&str) -> std::result::Result<T, String>,
) -> Result<Accepted<T>> {
    let Conversation {
        mut messages,
        schema,
        noun,
        mut notes,
        weighed,
    } = conversation;
    let mut usage = PlanUsage {
        planner: name.to_owned(),
        ..PlanUsage::default()
    };
    // The configured budget, never more than the model itself can attend to.
    let (context, context_source) = match model.context_length() {
        Some(n) if n < limits.max_context_tokens => (n, "the model's context length"),
        _ => (limits.max_context_tokens, "max_context_tokens"),
    };
    let attempts_allowed = 1 + limits.retries;
    let mut last_problem = String::new();
    let mut last_answer: Option<String> = None;
    for attempt in 1..=attempts_allowed {
        if control.is_cancelled() {
            return Err(ThinkerError::Cancelled);
        }
        if attempt > limits.max_turns {
            return Err(ThinkerError::ResourceExhausted(format!(
                "max_turns ({}) reached without a valid {noun}{}",
                limits.max_turns,
                if last_problem.is_empty() {
                    String::new()
                } else {
                    format!("; last problem: {last_problem}")
                }
            )));
        }
        let prompt_tokens = model.count_tokens(&messages)?;
        let room = context.saturating_sub(prompt_tokens);
        if room < MIN_OUTPUT_TOKENS {
            return Err(ThinkerError::ResourceExhausted(format!(
                "the prompt takes {prompt_tokens} tokens, leaving {room} of {context_source} \
                 ({context}) for the {noun}"
            )));
        }
        let max_len = room.min(MAX_OUTPUT_TOKENS);
        let answer = if weighed {
            model.generate_weighed(&messages, schema, max_len, control)?
        } else {
            model.generate(&messages, schema, max_len, control)?
        };
        usage.attempts = attempt;
        usage.prompt_tokens += if answer.prompt_tokens > 0 {
            answer.prompt_tokens
        } else {
            prompt_tokens
        };
        usage.completion_tokens += answer.completion_tokens;
        tracing::debug!(
            attempt,
            prompt_tokens = answer.prompt_tokens,
            completion_tokens = answer.completion_tokens,
            finish = answer.finish.as_deref(),
            "model answered"
        );
        match check(&answer.text) {
            Ok(value) => {
                if attempt > 1 {
                    notes.push(format!("{noun} repaired after {attempt} attempts"));
                }
                return Ok(Accepted {
                    value,
                    text: answer.text,
                    usage,
                    notes,
                    pieces: answer.pieces,
                });
            }
            Err(problem) => {
                let cut_off = answer.finish.as_deref() == Some("length");
                let problem = if cut_off {
                    format!(
                        "{problem} (the answer was cut off after {} tokens)",
                        answer.completion_tokens
                    )
                } else {
                    problem
                };
                if last_answer.as_deref() == Some(answer.text.as_str()) {
                    return Err(ThinkerError::InvalidOutput {
                        attempts: attempt,
                        last: format!("no progress: the repair repeated the answer ({problem})"),
                    });
                }
                notes.push(format!("attempt {attempt} rejected: {problem}"));
                let feedback = if cut_off {
                    // The cut-off text would only fill the context: ask for a shorter answer.
                    format!(
                        "Your {noun} was cut off after {} tokens. Return a shorter {noun} \
                         as JSON only.",
                        answer.completion_tokens
                    )
                } else {
                    messages.push((Role::Assistant, answer.text.clone()));
                    format!(
                        "That {noun} is invalid: {problem}. Return the corrected {noun} as JSON only."
                    )
                };
                messages.push((Role::User, feedback));
                tracing::info!(attempt, problem = %problem, "answer rejected, asking for a repair");
                last_problem = problem;
                last_answer = Some(answer.text);
            }
        }
    }
    Err(ThinkerError::InvalidOutput {
        attempts: attempts_allowed,
        last: last_problem,
    })
}

mod describe;
mod draft;
mod judge;
mod read;
#[cfg(test)]
mod tests;
