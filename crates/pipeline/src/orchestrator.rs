//! The orchestrator: an explicit state machine over the 13 stages, driving the planner, the skill
//! index, the sandbox and the person (through `Interaction`).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use config::{HitlMode, PipelineConfig};
use contracts::{
    ErrorCode, ErrorPayload, ExecutionResult, ParamType, PipelineContext, PlanStep, Primitive,
    ReferenceError,
};
use retrieval::RetrievalPipeline;
use sandbox::{CommitReport, Sandbox};
use serde::Serialize;
use serde_json::{Map, Value};
use skills::SkillStore;
use thinker::{CancelToken, PlanControl, PlanRequest, Planner, PlanningContext, validate_plan};

use crate::audit::{AuditSink, Audited};
use crate::events::{Event, SkillCandidate, Stage};
use crate::interaction::{
    Decision, DiffDecision, DiffReview, Interaction, RollbackPoint, StepReview,
};
use crate::report::{commit_summary, summarize};
use crate::{PipelineError, Result};

mod approval;
mod conditions;
mod conflicts;
mod dispatch;
mod new_skill;
mod unsure;

/// How many times the person may override one step's params.
const MAX_OVERRIDES: usize = 3;
/// How many clarification rounds the planner gets.
const MAX_CLARIFICATIONS: usize = 2;

/// Receives the planner's tokens as they are generated.
pub type TokenStream = Arc<dyn Fn(&str) + Send + Sync>;

/// Options of one run.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Overrides `hitl_mode` from the config.
    pub hitl: Option<HitlMode>,
    /// Plan and simulate, show the diff, write nothing.
    pub dry_run: bool,
    pub cancel: CancelToken,
    /// Planner tokens as they are generated (LLM planner).
    pub on_token: Option<TokenStream>,
    /// The request's id; `None` gives a fresh one (see `request_id`).
    pub request_id: Option<String>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("hitl", &self.hitl)
            .field("dry_run", &self.dry_run)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Done,
    RolledBack,
    Skipped,
    Failed,
}

/// What became of one plan step.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct StepOutcome {
    pub step: u32,
    pub skill: String,
    pub tool: String,
    pub status: StepStatus,
    pub summary: String,
    pub error: Option<ErrorPayload>,
    /// What a read-only step found for the person to read (a file's text, its metadata).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

/// The result of a run.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct RunReport {
    /// The request's id in the audit log and the trace.
    pub id: String,
    pub request: String,
    pub planner: String,
    pub plan: contracts::Plan,
    pub steps: Vec<StepOutcome>,
    pub dry_run: bool,
    pub committed: bool,
    pub applied_changes: usize,
    /// The final report in plain words.
    pub text: String,
    /// Total time per stage, milliseconds.
    pub stage_ms: BTreeMap<Stage, f64>,
    pub near_misses: usize,
    pub overrides: usize,
    pub rollbacks: usize,
    /// The saved workflow the request ran, if one's trigger matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub workflow: Option<String>,
    /// Its postconditions as found on the disk after the commit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<contracts::ConditionOutcome>,
    /// What the commit did, in numbers (with the run's history id); `None` when nothing was
    /// committed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<CommitReport>,
    /// Why steps asked for a person's eyes whatever the approval mode (a method's
    /// `needs_review`, e.g. similar photos that are not identical copies): such a run is never
    /// committed by a trusted watch or task.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub needs_review: Vec<String>,
}

/// The states of the machine. Per-step states carry the step's index in the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Input,
    Think,
    ValidatePlan,
    Step(usize, Stage),
    Review,
    Commit,
    Done,
}

/// What one step carries between its stages.
#[derive(Debug, Clone)]
struct StepWork {
    step: PlanStep,
    params: Map<String, Value>,
    resolved: Map<String, Value>,
    result: Option<ExecutionResult>,
    changes_before: usize,
    overrides: usize,
}

/// Runs requests against one sandbox.
pub struct Orchestrator<'a> {
    pub config: &'a PipelineConfig,
    pub skills: &'a mut SkillStore,
    pub retrieval: &'a mut RetrievalPipeline,
    pub sandbox: &'a mut Sandbox,
    pub planner: &'a mut dyn Planner,
    /// The audit log every event goes to first; `None` runs without one (tests, tooling).
    pub audit: Option<&'a mut dyn AuditSink>,
}

impl std::fmt::Debug for Orchestrator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Orchestrator")
            .field("root", &self.sandbox.root())
            .finish_non_exhaustive()
    }
}

/// The per-run state the machine mutates.
struct Run<'r> {
    request: String,
    options: &'r RunOptions,
    hitl: HitlMode,
    report: RunReport,
    context: PipelineContext,
    work: Option<StepWork>,
    /// Skill-store operations (scaffold) run after the sandbox commit.
    deferred: Vec<new_skill::DeferredSkill>,
    /// Staged steps that changed the graph, oldest first: where the final review can roll back to.
    points: Vec<RollbackPoint>,
    /// The planner's confidence per step (`Planned::confidence`).
    confidence: BTreeMap<u32, f32>,
    /// The saved workflow the plan came from (its conditions are checked).
    workflow: Option<contracts::WorkflowUse>,
}

fn payload(e: &impl ErrorCode) -> ErrorPayload {
    e.to_payload()
}

fn candidate(hit: &retrieval::SkillHit, planned: bool) -> SkillCandidate {
    SkillCandidate {
        skill: hit.skill.clone(),
        tool: hit.tool.clone(),
        score: hit.score,
        planned,
    }
}

impl<'a> Orchestrator<'a> {
    /// Takes one request through every stage. A failed or skipped step does not stop the run;
    /// an invalid plan, a commit conflict, cancellation or an audit log that cannot record does.
    pub fn run(
        &mut self,
        request: &str,
        options: &RunOptions,
        ui: &mut dyn Interaction,
    ) -> Result<RunReport> {
        let id = options
            .request_id
            .clone()
            .unwrap_or_else(|| crate::trace::request_id(request));
        let span = tracing::info_span!("request", id = %id);
        let _in_request = span.enter();
        let sink = self.audit.take();
        let mut audited = Audited {
            ui,
            sink,
            failure: None,
        };
        let result = match self.drive(&id, request, options, &mut audited) {
            Ok(report) => {
                audited.event(&Event::Finished {
                    committed: report.committed,
                    dry_run: report.dry_run,
                    text: report.text.clone(),
                    stage_ms: report.stage_ms.clone(),
                });
                match audited.failure.take() {
                    Some(f) => Err(PipelineError::Audit(f)),
                    None => Ok(report),
                }
            }
            Err(e) => {
                audited.event(&Event::Failed {
                    code: e.code().to_owned(),
                    message: e.to_string(),
                });
                Err(e)
            }
        };
        self.audit = audited.sink;
        result
    }

    fn drive(
        &mut self,
        id: &str,
        request: &str,
        options: &RunOptions,
        ui: &mut Audited<'_, 'a>,
    ) -> Result<RunReport> {
        let hitl = options.hitl.unwrap_or(self.config.hitl_mode);
        let mut run = Run {
            request: request.trim().to_owned(),
            options,
            hitl,
            report: RunReport {
                id: id.to_owned(),
                request: request.trim().to_owned(),
                planner: self.planner.name(),
                plan: contracts::Plan::default(),
                steps: Vec::new(),
                dry_run: options.dry_run,
                committed: false,
                applied_changes: 0,
                text: String::new(),
                stage_ms: BTreeMap::new(),
                near_misses: 0,
                overrides: 0,
                rollbacks: 0,
                workflow: None,
                conditions: Vec::new(),
                commit: None,
                needs_review: Vec::new(),
            },
            context: PipelineContext::default(),
            work: None,
            deferred: Vec::new(),
            points: Vec::new(),
            confidence: BTreeMap::new(),
            workflow: None,
        };
        let mut state = State::Input;
        // The stage now running: events mark each change of (stage, step), so the final diff
        // review and the commit are one stage 13, as in seed 001's table.
        let mut open: Option<(Stage, Option<u32>, Instant)> = None;
        let mut stage_span: Option<tracing::span::EnteredSpan> = None;
        while state != State::Done {
            if options.cancel.is_cancelled() {
                return Err(PipelineError::Cancelled);
            }
            if let State::Step(i, _) = state
                && i >= run.report.plan.steps.len()
            {
                state = State::Review;
            }
            let (stage, step) = match state {
                State::Input => (Stage::Input, None),
                State::Think => (Stage::Think, None),
                State::ValidatePlan => (Stage::ValidatePlan, None),
                State::Step(i, s) => (s, run.report.plan.steps.get(i).map(|p| p.step)),
                State::Review | State::Commit => (Stage::Commit, None),
                State::Done => unreachable!(),
            };
            if open.map(|(s, n, _)| (s, n)) != Some((stage, step)) {
                if let Some((s, n, started)) = open.take() {
                    Self::finish_stage(&mut run, ui, s, n, started);
                }
                drop(stage_span.take());
                stage_span = Some(
                    tracing::info_span!(
                        "stage",
                        stage = stage.label(),
                        number = stage.number(),
                        step
                    )
                    .entered(),
                );
                ui.event(&Event::StageStarted { stage, step });
                open = Some((stage, step, Instant::now()));
            }
            state = self.advance(state, &mut run, ui)?;
            // Nothing goes further, above all not to the disk, once the trail has a gap.
            if let Some(f) = ui.failure.take() {
                return Err(PipelineError::Audit(f));
            }
        }
        if let Some((s, n, started)) = open {
            Self::finish_stage(&mut run, ui, s, n, started);
        }
        Ok(run.report)
    }

    fn finish_stage(
        run: &mut Run,
        ui: &mut dyn Interaction,
        stage: Stage,
        step: Option<u32>,
        started: Instant,
    ) {
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        *run.report.stage_ms.entry(stage).or_default() += ms;
        ui.event(&Event::StageFinished { stage, step, ms });
    }

    fn advance(&mut self, state: State, run: &mut Run, ui: &mut dyn Interaction) -> Result<State> {
        match state {
            State::Input => {
                ui.event(&Event::Request {
                    id: run.report.id.clone(),
                    text: run.request.clone(),
                });
                if run.request.is_empty() {
                    return Err(PipelineError::NothingToDo);
                }
                Ok(State::Think)
            }
            State::Think => self.think(run, ui),
            State::ValidatePlan => {
                let problems =
                    validate_plan(&run.report.plan, self.skills, self.config.max_plan_steps);
                if !problems.is_empty() {
                    return Err(PipelineError::InvalidPlan(problems));
                }
                self.check_preconditions(run, ui)?;
                self.index_content_if_read(run, ui);
                Ok(State::Step(0, Stage::Embed))
            }
            State::Step(i, stage) => {
                if i >= run.report.plan.steps.len() {
                    return Ok(State::Review);
                }
                self.step_stage(i, stage, run, ui)
            }
            State::Review => self.review(run, ui),
            State::Commit => self.commit(run, ui),
            State::Done => Ok(State::Done),
        }
    }

    /// Brings the folder's content index up to date when a step of the plan searches it, before
    /// any step changes the graph (so it indexes what is on disk). A plan that does not search
    /// by content never reads the folder's files for it.
    fn index_content_if_read(&mut self, run: &Run, ui: &mut dyn Interaction) {
        let reads = run.report.plan.steps.iter().any(|s| {
            self.skills
                .tool(&s.skill, &s.tool)
                .is_some_and(|(_, t)| match &t.primitive {
                    Primitive::Retrieval(r) => retrieval::reads_content_index(&r.query_type),
                    _ => false,
                })
        });
        if !reads {
            return;
        }
        let cancel = &run.options.cancel;
        if let Err(e) = self
            .retrieval
            .index_sandbox_until(self.sandbox, &|| cancel.is_cancelled())
        {
            ui.event(&Event::Warning {
                step: None,
                message: format!("the content index could not be brought up to date: {e}"),
            });
        }
    }

    fn think(&mut self, run: &mut Run, ui: &mut dyn Interaction) -> Result<State> {
        let (root_name, entries) = grounding(self.sandbox);
        let mut text = run.request.clone();
        let sink = run.options.on_token.clone();
        let sink_fn = move |t: &str| {
            if let Some(s) = &sink {
                s(t)
            }
        };
        for round in 0..=MAX_CLARIFICATIONS {
            let cx = PlanningContext {
                skills: self.skills,
                retrieval: self.retrieval,
                config: self.config,
            };
            let control = PlanControl {
                cancel: Some(&run.options.cancel),
                on_token: Some(&sink_fn),
            };
            let request = PlanRequest {
                text: text.clone(),
                root_name: root_name.clone(),
                entries: entries.clone(),
                learned: self
                    .audit
                    .as_deref()
                    .map(|a| a.learned())
                    .unwrap_or_default(),
            };
            let planned = self.planner.plan(&request, &cx, &control)?;
            if let Some(fallback) = &planned.fallback {
                ui.event(&Event::Warning {
                    step: None,
                    message: fallback.message(),
                });
            }
            run.report.planner.clone_from(&planned.usage.planner);
            ui.event(&Event::Planned {
                planner: planned.usage.planner.clone(),
                plan: planned.plan.clone(),
                usage: planned.usage.clone(),
                notes: planned.notes.clone(),
                prompt: planned.prompt.clone(),
                response: planned.response.clone(),
            });
            match &planned.clarification {
                Some(q) if round < MAX_CLARIFICATIONS => {
                    let answer = ui.clarify_request(q).filter(|a| !a.trim().is_empty());
                    ui.event(&Event::Clarification {
                        step: None,
                        question: q.clone(),
                        answer: answer.clone(),
                    });
                    match answer {
                        // Nothing was understood: the answer says it again in other words.
                        Some(a) if planned.plan.steps.is_empty() => {
                            text = a;
                            continue;
                        }
                        Some(a) => {
                            text = format!("{text}; {a}");
                            continue;
                        }
                        None if planned.plan.steps.is_empty() => {
                            return Err(PipelineError::NothingToDo);
                        }
                        None => {}
                    }
                }
                _ => {}
            }
            if planned.plan.steps.is_empty() {
                return Err(PipelineError::NothingToDo);
            }
            run.report.plan = planned.plan;
            run.confidence = planned.confidence;
            run.report.workflow = planned.workflow.as_ref().map(|w| w.name.clone());
            run.workflow = planned.workflow;
            return Ok(State::ValidatePlan);
        }
        Err(PipelineError::NothingToDo)
    }

    fn outcome(
        run: &mut Run,
        step: &PlanStep,
        status: StepStatus,
        summary: String,
        error: Option<ErrorPayload>,
    ) {
        run.report.steps.push(StepOutcome {
            step: step.step,
            skill: step.skill.clone(),
            tool: step.tool.clone(),
            status,
            summary,
            error,
            answer: None,
        });
    }

    /// Gives up on step `i`: later steps referencing it get `DEPENDENCY_UNAVAILABLE`.
    fn skip(
        &mut self,
        i: usize,
        run: &mut Run,
        ui: &mut dyn Interaction,
        status: StepStatus,
        error: ErrorPayload,
    ) -> State {
        let step = run.report.plan.steps[i].clone();
        run.context.mark_unavailable(step.step);
        if status == StepStatus::Skipped {
            ui.event(&Event::Skipped {
                step: step.step,
                code: error.code.clone(),
                reason: error.message.clone(),
            });
        }
        Self::outcome(run, &step, status, error.message.clone(), Some(error));
        run.work = None;
        State::Step(i + 1, Stage::Embed)
    }

    fn step_stage(
        &mut self,
        i: usize,
        stage: Stage,
        run: &mut Run,
        ui: &mut dyn Interaction,
    ) -> Result<State> {
        let step = run.report.plan.steps[i].clone();
        let n = step.step;
        match stage {
            Stage::Embed => {
                // The step description becomes a query vector (inside `query_skill`, next stage);
                // here the step's work record starts.
                run.work = Some(StepWork {
                    params: step.params.clone(),
                    step,
                    resolved: Map::new(),
                    result: None,
                    changes_before: 0,
                    overrides: 0,
                });
                Ok(State::Step(i, Stage::Match))
            }
            Stage::Match => {
                let ranking = self.retrieval.query_skill(&step)?;
                let planned_hit = ranking
                    .hits
                    .iter()
                    .find(|h| h.skill == step.skill && h.tool == step.tool)
                    .or_else(|| ranking.hits.iter().find(|h| h.skill == step.skill));
                let top = ranking.top();
                let agrees = top.is_some_and(|t| t.skill == step.skill);
                let runner_ups: Vec<SkillCandidate> = ranking
                    .runner_ups()
                    .iter()
                    .take(3)
                    .map(|h| candidate(h, false))
                    .collect();
                // Confidence is per skill; when the skill agrees, the planned tool is the match.
                let tool = match top {
                    Some(_) if agrees => step.tool.clone(),
                    Some(t) => t.tool.clone(),
                    None => String::new(),
                };
                ui.event(&Event::SkillMatched {
                    step: n,
                    skill: top.map(|t| t.skill.clone()).unwrap_or_default(),
                    tool,
                    score: top.map_or(0.0, |t| t.score),
                    confident: ranking.confident,
                    runner_ups: runner_ups.clone(),
                });
                let margin = run.confidence.get(&step.step).copied();
                if !needs_picker(
                    ranking.confident,
                    agrees,
                    margin,
                    self.config.planner_sure_margin,
                ) {
                    return Ok(State::Step(i, Stage::Load));
                }
                // Near-miss: the person picks; the planner's choice first.
                let mut candidates = vec![SkillCandidate {
                    skill: step.skill.clone(),
                    tool: step.tool.clone(),
                    score: planned_hit.map_or(0.0, |h| h.score),
                    planned: true,
                }];
                let mut seen = vec![step.skill.clone()];
                for h in &ranking.hits {
                    if candidates.len() >= 4 {
                        break;
                    }
                    if !seen.contains(&h.skill) {
                        seen.push(h.skill.clone());
                        candidates.push(candidate(h, false));
                    }
                }
                let choice = ui.choose_skill(&step, &candidates);
                let chosen = choice.and_then(|c| candidates.get(c).cloned());
                run.report.near_misses += 1;
                ui.event(&Event::NearMiss {
                    step: n,
                    candidates: candidates.clone(),
                    chosen: chosen.clone(),
                    by: if chosen.as_ref().is_some_and(|c| c.planned) && choice == Some(0) {
                        "person_or_auto".into()
                    } else {
                        "person".into()
                    },
                });
                let Some(chosen) = chosen else {
                    return Ok(self.skip(
                        i,
                        run,
                        ui,
                        StepStatus::Skipped,
                        ErrorPayload::new("DECLINED", "no skill chosen for this step"),
                    ));
                };
                if !chosen.planned {
                    let work = run.work.as_mut().expect("step work");
                    work.step.skill = chosen.skill.clone();
                    work.step.tool = chosen.tool.clone();
                    run.report.plan.steps[i].skill = chosen.skill;
                    run.report.plan.steps[i].tool = chosen.tool;
                }
                Ok(State::Step(i, Stage::Load))
            }
            Stage::Load => {
                let work = run.work.as_ref().expect("step work");
                if self
                    .skills
                    .tool(&work.step.skill, &work.step.tool)
                    .is_none()
                {
                    let e = ErrorPayload::new(
                        "UNKNOWN_TOOL",
                        format!("`{}/{}` is not loaded", work.step.skill, work.step.tool),
                    );
                    return Ok(self.skip(i, run, ui, StepStatus::Failed, e));
                }
                Ok(State::Step(i, Stage::ValidateParams))
            }
            Stage::ValidateParams => self.validate_params(i, run, ui),
            Stage::Resolve => {
                let work = run.work.as_mut().expect("step work");
                match run.context.resolve_params(&work.params) {
                    Ok(resolved) => {
                        if resolved != work.params {
                            ui.event(&Event::ReferencesResolved {
                                step: n,
                                params: resolved.clone(),
                            });
                        }
                        work.resolved = resolved;
                        Ok(State::Step(i, Stage::Dispatch))
                    }
                    Err(e) => {
                        let status = if matches!(e, ReferenceError::DependencyUnavailable { .. }) {
                            StepStatus::Skipped
                        } else {
                            StepStatus::Failed
                        };
                        Ok(self.skip(i, run, ui, status, payload(&e)))
                    }
                }
            }
            Stage::Dispatch => self.dispatch(i, run, ui),
            Stage::Snapshot => {
                let work = run.work.as_ref().expect("step work");
                let result = work.result.as_ref().expect("dispatched");
                let ops: Vec<sandbox::ChangeOp> = self.sandbox.changes()[work.changes_before..]
                    .iter()
                    .map(|c| c.op.clone())
                    .collect();
                ui.event(&Event::GraphDelta {
                    step: n,
                    snapshot: result.snapshot_id.clone(),
                    changes: ops.iter().map(sandbox::ChangeOp::render).collect(),
                    ops,
                });
                ui.sandbox_changed(self.sandbox);
                Ok(State::Step(i, Stage::Hitl))
            }
            Stage::Hitl => self.hitl(i, run, ui),
            Stage::Stage => {
                let work = run.work.take().expect("step work");
                let result = work.result.expect("dispatched");
                let made = self.sandbox.changes().len() - work.changes_before;
                if !result.snapshot_id.is_empty() && made > 0 {
                    self.sandbox.stage(&result.snapshot_id)?;
                    run.points.push(RollbackPoint {
                        step: n,
                        snapshot: result.snapshot_id.clone(),
                        skill: work.step.skill.clone(),
                        tool: work.step.tool.clone(),
                        changes: made,
                    });
                }
                let (_, tool) = self
                    .skills
                    .tool(&work.step.skill, &work.step.tool)
                    .expect("loaded");
                let summary = summarize(tool.primitive.operation(), &work.resolved, &result.data);
                let answer = crate::report::answer(tool.primitive.operation(), &result.data);
                run.context.record(n, result);
                Self::outcome(run, &work.step, StepStatus::Done, summary, None);
                if let Some(last) = run.report.steps.last_mut() {
                    last.answer = answer;
                }
                Ok(State::Step(i + 1, Stage::Embed))
            }
            other => unreachable!("stage {other:?} is not a per-step stage"),
        }
    }
}

/// Whether the person is asked to pick the skill of a step (the near-miss picker): not when
/// retrieval is confident and agrees with the planner, and not when the planner's own margin for
/// the step is at least `sure_margin` (calibrated on `eval/plans.jsonl`: `scope-weaver plan --file
/// --calibrate`, table in BENCHMARKS.md).
pub fn needs_picker(
    retrieval_confident: bool,
    agrees: bool,
    planner_margin: Option<f32>,
    sure_margin: f32,
) -> bool {
    let retrieval_sure = retrieval_confident && agrees;
    let planner_sure = planner_margin.is_some_and(|m| m >= sure_margin);
    !(retrieval_sure || planner_sure)
}

/// What the planner may know of the working folder: its name and the folders under it (two
/// levels), as the scan saw them. The same for a run and for `scope-weaver plan`.
pub fn grounding(sandbox: &Sandbox) -> (Option<String>, Vec<String>) {
    let root_name = sandbox
        .root()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned());
    let entries = sandbox
        .graph()
        .nodes()
        .filter(|n| n.is_dir() && n.id != sandbox::ROOT_ID && n.id.matches('/').count() < 2)
        .map(|n| n.id.clone())
        .collect();
    (root_name, entries)
}
