//! The last per-step stages before a step's changes are simulated: its parameters checked
//! against the tool's declaration (asking for what is missing), then the call itself.

use std::time::Instant;

use contracts::{ErrorPayload, ExecutionResult, ParamType, PlanStep, Primitive};
use serde_json::{Value, json};
use thinker::PlanControl;

use super::{Orchestrator, Run, State, StepStatus, conflicts, payload, unsure};
use crate::Result;
use crate::events::{Event, Stage};
use crate::interaction::{Interaction, ParamQuestion};
use crate::report::summarize;

impl Orchestrator<'_> {
    pub(super) fn validate_params(
        &mut self,
        i: usize,
        run: &mut Run,
        ui: &mut dyn Interaction,
    ) -> Result<State> {
        let work = run.work.as_mut().expect("step work");
        let (_, tool) = self
            .skills
            .tool(&work.step.skill, &work.step.tool)
            .expect("loaded");
        let spec = self
            .skills
            .table()
            .get(tool.primitive.kind(), tool.primitive.operation());
        let v = tool.validate_params(&work.params);
        if !v.extra.is_empty() {
            for e in &v.extra {
                work.params.remove(e);
            }
            ui.event(&Event::ExtraParams {
                step: work.step.step,
                params: v.extra.clone(),
            });
        }
        for missing in &v.missing {
            let p = spec.and_then(|s| s.param(missing));
            let ty = p.map(|p| p.ty);
            let suggestion = match (missing.as_str(), ty) {
                ("path", Some(ParamType::Path)) => Some(json!(".")),
                _ => None,
            };
            let question = ParamQuestion {
                step: work.step.step,
                skill: work.step.skill.clone(),
                tool: work.step.tool.clone(),
                param: missing.clone(),
                ty,
                doc: p.map(|p| p.doc.clone()).unwrap_or_default(),
                question: question_for(missing, &work.step),
                suggestion,
                choices: p.map(|p| p.choices.clone()).unwrap_or_default(),
            };
            let answer = ui.clarify_param(&question);
            ui.event(&Event::Clarification {
                step: Some(work.step.step),
                question: question.question.clone(),
                answer: answer.as_ref().map(|a| match a {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                }),
            });
            match answer {
                Some(value) => {
                    work.params.insert(missing.clone(), value);
                }
                None => {
                    let e = ErrorPayload::new(
                        "MISSING_PARAMS",
                        format!(
                            "step {} ({}/{}) needs `{missing}` and none was given",
                            work.step.step, work.step.skill, work.step.tool
                        ),
                    );
                    return Ok(self.skip(i, run, ui, StepStatus::Skipped, e));
                }
            }
        }
        Ok(State::Step(i, Stage::Resolve))
    }

    pub(super) fn dispatch(
        &mut self,
        i: usize,
        run: &mut Run,
        ui: &mut dyn Interaction,
    ) -> Result<State> {
        let work = run.work.as_mut().expect("step work");
        let (_, tool) = self
            .skills
            .tool(&work.step.skill, &work.step.tool)
            .expect("loaded");
        let primitive = tool.primitive.clone();
        let started = Instant::now();
        work.changes_before = self.sandbox.changes().len();
        let outcome: std::result::Result<ExecutionResult, ErrorPayload> = match &primitive {
            Primitive::Graph(g) => {
                conflicts::call_asking(self.sandbox, &g.method, &mut work.resolved, &work.step, ui)
                    .inspect(|r| {
                        if let Some(w) = r.data.get("warning").and_then(Value::as_str) {
                            ui.event(&Event::Warning {
                                step: Some(work.step.step),
                                message: w.to_owned(),
                            });
                        }
                    })
                    .map_err(|e| payload(&e))
            }
            Primitive::Retrieval(r) => {
                let snapshot = self.sandbox.snapshot().to_string();
                retrieval::call_retrieval(
                    self.retrieval,
                    Some(self.sandbox),
                    &r.query_type,
                    &work.resolved,
                )
                .map(|data| {
                    if let Some(w) = data.get("warning").and_then(Value::as_str) {
                        ui.event(&Event::Warning {
                            step: Some(work.step.step),
                            message: w.to_owned(),
                        });
                    }
                    ExecutionResult::success(snapshot, data)
                })
                .map_err(|e| payload(&e))
            }
            Primitive::Llm(l) => {
                let snapshot = self.sandbox.snapshot().to_string();
                let control = PlanControl {
                    cancel: Some(&run.options.cancel),
                    on_token: None,
                };
                let mut reader = if self.config.thinker_reads_files {
                    self.planner.reader(control)
                } else {
                    None
                };
                unsure::call_asking(
                    (
                        self.retrieval,
                        reader
                            .as_mut()
                            .map(|r| &mut **r as &mut dyn retrieval::ModelReader),
                    ),
                    self.sandbox,
                    &l.task,
                    &work.resolved,
                    &work.step,
                    ui,
                )
                .map(|data| ExecutionResult::success(snapshot, data))
                .map_err(|e| payload(&e))
            }
            Primitive::Skill(s) if s.operation == "scaffold_skill" => {
                // Writes to the skills folder: deferred until the sandbox commit.
                let cancel = run.options.cancel.clone();
                self.schedule_skill(&work.step, &work.resolved, (&mut run.deferred, &cancel), ui)
            }
            other => Err(ErrorPayload::new(
                "PRIMITIVE_UNAVAILABLE",
                format!("{} primitives cannot run in a plan yet", other.kind()),
            )),
        };
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        let (ok, data, error) = match &outcome {
            Ok(r) => (true, r.data.clone(), None),
            Err(e) => (false, Value::Null, Some(e.clone())),
        };
        let summary = match &outcome {
            Ok(r) => summarize(primitive.operation(), &work.resolved, &r.data),
            Err(e) => e.message.clone(),
        };
        ui.event(&Event::Dispatched {
            step: work.step.step,
            skill: work.step.skill.clone(),
            tool: work.step.tool.clone(),
            primitive: primitive.kind().to_string(),
            operation: primitive.operation().to_owned(),
            mutates: primitive.mutates(),
            params: work.resolved.clone(),
            ok,
            summary,
            data,
            error,
            ms,
        });
        match outcome {
            Ok(result) => {
                work.result = Some(result);
                Ok(State::Step(i, Stage::Snapshot))
            }
            Err(e) => Ok(self.skip(i, run, ui, StepStatus::Failed, e)),
        }
    }
}

fn question_for(param: &str, step: &PlanStep) -> String {
    let what = format!("step {} ({}/{})", step.step, step.skill, step.tool);
    match param {
        "path" => format!("Which folder or file should {what} work on?"),
        "target" => format!("Where should {what} put the files?"),
        "source" => format!("Which files should {what} act on?"),
        "new_name" => format!("What should the new name be for {what}?"),
        "name" => format!("What name should {what} use?"),
        "pattern" => format!(
            "What naming pattern should {what} use? ({{name}}, {{n:03}}, {{date:%Y-%m-%d}}, {{ext}})"
        ),
        "min_size" => format!("From what size on should {what} count a file (e.g. 100MB)?"),
        "modified_after" => format!("Since when should {what} look (e.g. 7d or 2024-05-01)?"),
        other => format!("{what} needs `{other}`: what should it be?"),
    }
}
