//! Stages 11–13 of the orchestrator: the person's decision on each changing step (approve,
//! override parameters, roll back to the step's snapshot), the final diff review, the commit and
//! the plain-words report.

use super::*;

impl Orchestrator<'_> {
    pub(super) fn hitl(
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
        let mutates = tool.mutates();
        let result = work.result.as_ref().expect("dispatched");
        // A method may say its changes need a person's eyes whatever the mode.
        let needs_review = result.data["needs_review"].as_str().filter(|_| mutates);
        if let Some(why) = needs_review {
            run.report
                .needs_review
                .push(format!("step {}: {why}", work.step.step));
        }
        let ask = needs_review.is_some()
            || match run.hitl {
                HitlMode::All => true,
                HitlMode::Key => mutates,
                HitlMode::Bypass => false,
            };
        if !ask {
            return Ok(State::Step(i, Stage::Stage));
        }
        let ops: Vec<sandbox::ChangeOp> = self.sandbox.changes()[work.changes_before..]
            .iter()
            .map(|c| c.op.clone())
            .collect();
        let spec = self
            .skills
            .table()
            .get(tool.primitive.kind(), tool.primitive.operation());
        let unset: Vec<contracts::ParamSpec> = tool
            .required_params
            .iter()
            .chain(&tool.optional_params)
            .filter(|name| !work.resolved.contains_key(name.as_str()))
            .map(|name| {
                spec.and_then(|s| s.param(name))
                    .cloned()
                    .unwrap_or_else(|| contracts::ParamSpec::new(name, ParamType::Any, ""))
            })
            .collect();
        let review = StepReview {
            step: work.step.step,
            description: work.step.description.clone(),
            skill: work.step.skill.clone(),
            tool: work.step.tool.clone(),
            mutates,
            destructive: ops.iter().any(sandbox::ChangeOp::is_destructive),
            params: work.resolved.clone(),
            summary: summarize(tool.primitive.operation(), &work.resolved, &result.data),
            data: result.data.clone(),
            changes: ops.iter().map(sandbox::ChangeOp::render).collect(),
            ops,
            unset,
        };
        let snapshot = result.snapshot_id.clone();
        match ui.review_step(&review) {
            Decision::Approve => {
                ui.event(&Event::Approved {
                    step: work.step.step,
                });
                Ok(State::Step(i, Stage::Stage))
            }
            Decision::Override(params) if work.overrides < MAX_OVERRIDES => {
                let undone = if snapshot.is_empty() {
                    0
                } else {
                    self.sandbox.rollback(&snapshot)?
                };
                let _ = undone;
                ui.sandbox_changed(self.sandbox);
                work.overrides += 1;
                run.report.overrides += 1;
                ui.event(&Event::Overridden {
                    step: work.step.step,
                    params: params.clone(),
                });
                work.params = params;
                work.result = None;
                run.deferred.retain(|d| d.step.step != work.step.step);
                Ok(State::Step(i, Stage::ValidateParams))
            }
            Decision::Override(_) | Decision::RollBack => {
                let undone = if snapshot.is_empty() {
                    0
                } else {
                    self.sandbox.rollback(&snapshot)?
                };
                run.report.rollbacks += 1;
                let n = work.step.step;
                run.deferred.retain(|d| d.step.step != n);
                ui.event(&Event::RolledBack {
                    step: n,
                    snapshot: snapshot.clone(),
                    undone,
                });
                ui.sandbox_changed(self.sandbox);
                let step = run.report.plan.steps[i].clone();
                run.context.mark_unavailable(n);
                Self::outcome(
                    run,
                    &step,
                    StepStatus::RolledBack,
                    format!("rolled back ({undone} change(s) undone)"),
                    None,
                );
                run.work = None;
                Ok(State::Step(i + 1, Stage::Embed))
            }
        }
    }

    pub(super) fn review(&mut self, run: &mut Run, ui: &mut dyn Interaction) -> Result<State> {
        // Rolling back to an earlier step asks again, with the smaller diff.
        let mut rounds = 0;
        loop {
            let ops: Vec<sandbox::ChangeOp> = self
                .sandbox
                .changes()
                .iter()
                .map(|c| c.op.clone())
                .collect();
            if ops.is_empty() && run.deferred.is_empty() {
                let text = self.final_text(run, None);
                return Ok(report_and_end(run, ui, text));
            }
            let review = DiffReview {
                summary: format!(
                    "{}\nNothing lost: {}.",
                    self.final_text(run, None),
                    self.sandbox.accounting().summary()
                ),
                changes: ops.iter().map(sandbox::ChangeOp::render).collect(),
                ops,
                dry_run: run.options.dry_run,
                rollback_points: run.points.clone(),
            };
            let decision = ui.review_diff(&review);
            if let DiffDecision::RollBackTo(snapshot) = &decision {
                rounds += 1;
                if rounds <= run.report.plan.steps.len() + 1 {
                    self.roll_back_to(run, ui, snapshot)?;
                    continue;
                }
            }
            if run.options.dry_run {
                let mut text = format!(
                    "{}\nDry run: {}, nothing was written.",
                    review.summary,
                    crate::report::simulated(&review.ops)
                );
                for line in self.simulate_postconditions(run, ui) {
                    text.push('\n');
                    text.push_str(&line);
                }
                return Ok(report_and_end(run, ui, text));
            }
            let approved = decision == DiffDecision::Commit;
            ui.event(&Event::DiffReviewed {
                changes: review.changes.len(),
                approved,
            });
            if !approved {
                let text = format!(
                    "{}\nNot committed: the change was declined, nothing was written.",
                    review.summary
                );
                return Ok(report_and_end(run, ui, text));
            }
            // What the person saw is the limit of what the commit may write.
            self.sandbox.approve(sandbox::Approval::of(&review.ops));
            return Ok(State::Commit);
        }
    }

    /// Undoes the staged steps from `snapshot` on (the person clicked a rollback point).
    fn roll_back_to(
        &mut self,
        run: &mut Run,
        ui: &mut dyn Interaction,
        snapshot: &str,
    ) -> Result<()> {
        let Some(at) = run.points.iter().position(|p| p.snapshot == snapshot) else {
            ui.event(&Event::Warning {
                step: None,
                message: format!("{snapshot} is not a rollback point of this run"),
            });
            return Ok(());
        };
        let undone = self.sandbox.rollback(snapshot)?;
        let gone = run.points.split_off(at);
        for point in &gone {
            run.deferred.retain(|d| d.step.step != point.step);
            run.context.mark_unavailable(point.step);
            if let Some(o) = run.report.steps.iter_mut().find(|o| o.step == point.step) {
                o.status = StepStatus::RolledBack;
                o.summary = "rolled back at the final review".to_owned();
            }
            run.report.rollbacks += 1;
        }
        ui.event(&Event::RolledBack {
            step: gone[0].step,
            snapshot: snapshot.to_owned(),
            undone,
        });
        ui.sandbox_changed(self.sandbox);
        Ok(())
    }

    pub(super) fn commit(&mut self, run: &mut Run, ui: &mut dyn Interaction) -> Result<State> {
        let mut progress = |done: usize, total: usize, _op: &sandbox::ChangeOp| {
            ui.event(&Event::CommitProgress { done, total });
        };
        self.sandbox.label_commit(sandbox::RunLabel {
            id: run.report.id.clone(),
            request: run.report.request.clone(),
            undoes: None,
        });
        let report = self.sandbox.commit(Some(&mut progress))?;
        for message in &report.warnings {
            ui.event(&Event::Warning {
                step: None,
                message: message.clone(),
            });
        }
        run.report.committed = true;
        run.report.applied_changes = report.applied;
        run.report.commit = Some(report.clone());
        self.create_deferred_skills(run)?;
        ui.event(&Event::Committed {
            applied: report.applied,
            summary: commit_summary(&report),
        });
        ui.sandbox_changed(self.sandbox);
        match self.retrieval.update_content(self.sandbox) {
            Ok(sync) => {
                ui.event(&Event::Reindexed {
                    embedded: sync.embedded_files,
                    removed: sync.removed_files,
                    pending: sync.pending_files,
                    unreadable: sync.unreadable.clone(),
                });
                for message in reindex_warnings(&sync) {
                    ui.event(&Event::Warning {
                        step: None,
                        message,
                    });
                }
            }
            Err(e) => ui.event(&Event::Warning {
                step: None,
                message: format!("the content index could not be updated: {e}"),
            }),
        }
        let conditions = self.check_postconditions(run, ui);
        run.report.text = self.final_text(run, Some(&report));
        for line in conditions {
            run.report.text.push('\n');
            run.report.text.push_str(&line);
        }
        ui.event(&Event::Report {
            text: run.report.text.clone(),
        });
        Ok(State::Done)
    }

    /// The final report: what each mutating step did, then what was skipped and why.
    pub(super) fn final_text(&self, run: &Run, commit: Option<&CommitReport>) -> String {
        let mut lines: Vec<String> = Vec::new();
        let mut last_read: Option<String> = None;
        for o in &run.report.steps {
            let mutates = self
                .skills
                .tool(&o.skill, &o.tool)
                .is_some_and(|(_, t)| t.mutates());
            match o.status {
                StepStatus::Done if mutates => lines.push(format!("{}.", o.summary)),
                StepStatus::Done => last_read = Some(o.summary.clone()),
                StepStatus::RolledBack => lines.push(format!(
                    "Step {} ({}/{}) was rolled back.",
                    o.step, o.skill, o.tool
                )),
                StepStatus::Skipped | StepStatus::Failed => lines.push(format!(
                    "Step {} ({}/{}) {}: {}",
                    o.step,
                    o.skill,
                    o.tool,
                    if o.status == StepStatus::Skipped {
                        "was skipped"
                    } else {
                        "failed"
                    },
                    o.error
                        .as_ref()
                        .map_or(o.summary.as_str(), |e| e.message.as_str())
                )),
            }
        }
        if lines.is_empty()
            && let Some(r) = last_read
        {
            lines.push(format!("{r}."));
        }
        if let Some(c) = commit {
            lines.push(format!("Committed: {}.", commit_summary(c)));
            if let Some(a) = &c.accounting {
                lines.push(format!(
                    "Nothing lost: {}{}.",
                    a.summary(),
                    if c.verified {
                        "; the disk matches the plan"
                    } else {
                        ""
                    }
                ));
            }
        }
        // What the reading steps found, below the summary (a file's text, its metadata).
        let answers: Vec<&str> = run
            .report
            .steps
            .iter()
            .filter(|o| o.status == StepStatus::Done)
            .filter_map(|o| o.answer.as_deref())
            .collect();
        let mut text = lines.join(" ");
        for a in answers {
            text.push_str("\n\n");
            text.push_str(a);
        }
        text
    }
}

/// Ends the run with `text` as its report.
fn report_and_end(run: &mut Run, ui: &mut dyn Interaction, text: String) -> State {
    run.report.text = text;
    ui.event(&Event::Report {
        text: run.report.text.clone(),
    });
    State::Done
}

/// The stale-node warnings of a ContentIndex sync: files left stale, files indexed by name only.
pub(crate) fn reindex_warnings(sync: &retrieval::SyncReport) -> Vec<String> {
    let mut out = Vec::new();
    if sync.pending_files > 0 {
        out.push(format!(
            "{} file(s) stay stale in the content index until their change is committed",
            sync.pending_files
        ));
    }
    if !sync.unreadable.is_empty() {
        let sample: Vec<&str> = sync.unreadable.iter().take(3).map(String::as_str).collect();
        let more = if sync.unreadable.len() > 3 {
            ", …"
        } else {
            ""
        };
        out.push(format!(
            "{} file(s) could not be read and are indexed by name only ({}{more})",
            sync.unreadable.len(),
            sample.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::reindex_warnings;

    #[test]
    fn reindex_warnings_name_stale_and_unreadable_files() {
        let quiet = retrieval::SyncReport::default();
        assert!(reindex_warnings(&quiet).is_empty());
        let sync = retrieval::SyncReport {
            pending_files: 2,
            unreadable: vec![
                "a.bin".into(),
                "b.bin".into(),
                "c.bin".into(),
                "d.bin".into(),
            ],
            ..retrieval::SyncReport::default()
        };
        expect_test::expect![[r#"
            [
                "2 file(s) stay stale in the content index until their change is committed",
                "4 file(s) could not be read and are indexed by name only (a.bin, b.bin, c.bin, …)",
            ]
        "#]]
        .assert_debug_eq(&reindex_warnings(&sync));
    }
}
