//! A saved workflow's conditions in a run: the preconditions on the scanned folder before the
//! first step (any failing stops the run, `PRECONDITION_FAILED`), the postconditions on a fresh
//! scan of the disk after the commit (reported, and a warning for each that does not hold).

use contracts::{ConditionOutcome, WorkflowUse};
use sandbox::{Sandbox, ScanOptions};

use super::{Orchestrator, Run};
use crate::events::{ConditionTime, Event};
use crate::interaction::Interaction;
use crate::{PipelineError, Result};

/// One line per outcome: "no_duplicates on Desktop: holds (0 duplicate group(s), ...)".
pub fn outcome_lines(outcomes: &[ConditionOutcome]) -> Vec<String> {
    outcomes
        .iter()
        .map(|o| {
            let path = if o.path == "." {
                "the working folder"
            } else {
                &o.path
            };
            format!(
                "{} on {path}: {} ({}){}",
                o.check.name(),
                if o.holds { "holds" } else { "does not hold" },
                o.detail,
                o.message
                    .as_deref()
                    .map(|m| format!(" - {m}"))
                    .unwrap_or_default()
            )
        })
        .collect()
}

fn event(workflow: &WorkflowUse, when: ConditionTime, outcomes: &[ConditionOutcome]) -> Event {
    Event::Conditions {
        workflow: workflow.name.clone(),
        when,
        outcomes: outcomes.to_vec(),
    }
}

impl Orchestrator<'_> {
    /// The workflow's preconditions, on the folder as scanned.
    pub(super) fn check_preconditions(
        &mut self,
        run: &Run,
        ui: &mut dyn Interaction,
    ) -> Result<()> {
        let Some(w) = run
            .workflow
            .as_ref()
            .filter(|w| !w.preconditions.is_empty())
        else {
            return Ok(());
        };
        let outcomes = self.sandbox.check_conditions(&w.preconditions, &w.slots);
        ui.event(&event(w, ConditionTime::Before, &outcomes));
        let failed: Vec<ConditionOutcome> = outcomes.into_iter().filter(|o| !o.holds).collect();
        if failed.is_empty() {
            return Ok(());
        }
        Err(PipelineError::PreconditionFailed {
            workflow: w.name.clone(),
            failed: outcome_lines(&failed),
        })
    }

    /// The workflow's postconditions, on a fresh scan of the disk after the commit: the report's
    /// lines about them.
    pub(super) fn check_postconditions(
        &mut self,
        run: &mut Run,
        ui: &mut dyn Interaction,
    ) -> Vec<String> {
        let Some(w) = run
            .workflow
            .clone()
            .filter(|w| !w.postconditions.is_empty())
        else {
            return Vec::new();
        };
        let rescan = Sandbox::open(
            self.sandbox.root(),
            self.sandbox.config().clone(),
            &ScanOptions::default(),
        );
        let outcomes = match rescan {
            Ok(mut disk) => disk.check_conditions(&w.postconditions, &w.slots),
            Err(e) => {
                ui.event(&Event::Warning {
                    step: None,
                    message: format!("the workflow's postconditions could not be checked: {e}"),
                });
                return Vec::new();
            }
        };
        report_postconditions(run, ui, &w, outcomes, ConditionTime::After)
    }

    /// A dry run's postconditions, on the simulated folder: whether they would hold.
    pub(super) fn simulate_postconditions(
        &mut self,
        run: &mut Run,
        ui: &mut dyn Interaction,
    ) -> Vec<String> {
        let Some(w) = run
            .workflow
            .clone()
            .filter(|w| !w.postconditions.is_empty())
        else {
            return Vec::new();
        };
        let outcomes = self.sandbox.check_conditions(&w.postconditions, &w.slots);
        report_postconditions(run, ui, &w, outcomes, ConditionTime::Simulated)
    }
}

/// The postconditions' event, a warning for each that does not hold, and the report's lines.
fn report_postconditions(
    run: &mut Run,
    ui: &mut dyn Interaction,
    w: &WorkflowUse,
    outcomes: Vec<ConditionOutcome>,
    when: ConditionTime,
) -> Vec<String> {
    ui.event(&event(w, when, &outcomes));
    let (after, verb) = match when {
        ConditionTime::Simulated => ("simulating", "would hold after the commit"),
        _ => ("after", "hold on the disk"),
    };
    for o in outcomes.iter().filter(|o| !o.holds) {
        ui.event(&Event::Warning {
            step: None,
            message: format!(
                "{after} the workflow `{}`: {}",
                w.name,
                outcome_lines(std::slice::from_ref(o)).concat()
            ),
        });
    }
    let held = outcomes.iter().filter(|o| o.holds).count();
    let mut lines = vec![format!(
        "Workflow `{}`: {held} of {} postcondition(s) {verb}.",
        w.name,
        outcomes.len()
    )];
    lines.extend(
        outcome_lines(&outcomes)
            .into_iter()
            .map(|l| format!("- {l}")),
    );
    run.report.conditions = outcomes;
    lines
}
