//! Where the run's trail goes: every event is offered to an `AuditSink` before the person's
//! interface sees it. A sink that cannot record stops the run, and the orchestrator checks it
//! between the final diff review and the commit, so no change reaches the disk unaudited.

use contracts::{ErrorPayload, PlanStep};

use crate::events::{Event, SkillCandidate};
use crate::interaction::{
    Decision, DiffDecision, DiffReview, Interaction, ParamQuestion, StepReview,
};

/// Records the events of runs (the audit log implements it; tests can keep them in memory).
pub trait AuditSink {
    /// Records one event; an error (with a code such as `AUDIT_LOCKED`) stops the run.
    fn record(&mut self, event: &Event) -> Result<(), ErrorPayload>;

    /// The choices people made that planning learns from (none unless the sink remembers).
    fn learned(&self) -> Vec<contracts::LearnedChoice> {
        Vec::new()
    }
}

/// Keeps every event in memory (tests and dry tooling).
#[derive(Debug, Default)]
pub struct RecordedEvents(pub Vec<Event>);

impl AuditSink for RecordedEvents {
    fn record(&mut self, event: &Event) -> Result<(), ErrorPayload> {
        self.0.push(event.clone());
        Ok(())
    }
}

/// The interface the orchestrator talks to: the sink first, then the person's interface.
pub(crate) struct Audited<'u, 's> {
    pub ui: &'u mut dyn Interaction,
    pub sink: Option<&'s mut dyn AuditSink>,
    /// The first failure to record; the run stops at the next state change.
    pub failure: Option<ErrorPayload>,
}

impl Interaction for Audited<'_, '_> {
    fn event(&mut self, event: &Event) {
        crate::trace::trace_event(event);
        if self.failure.is_none()
            && let Some(sink) = self.sink.as_deref_mut()
            && let Err(e) = sink.record(event)
        {
            self.failure = Some(e);
        }
        self.ui.event(event);
    }

    fn sandbox_changed(&mut self, sandbox: &sandbox::Sandbox) {
        self.ui.sandbox_changed(sandbox);
    }

    fn clarify_request(&mut self, question: &str) -> Option<String> {
        self.ui.clarify_request(question)
    }

    fn choose_skill(&mut self, step: &PlanStep, candidates: &[SkillCandidate]) -> Option<usize> {
        self.ui.choose_skill(step, candidates)
    }

    fn clarify_param(&mut self, question: &ParamQuestion) -> Option<serde_json::Value> {
        self.ui.clarify_param(question)
    }

    fn review_step(&mut self, review: &StepReview) -> Decision {
        self.ui.review_step(review)
    }

    fn review_diff(&mut self, review: &DiffReview) -> DiffDecision {
        self.ui.review_diff(review)
    }
}
