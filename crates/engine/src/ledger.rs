//! The committed runs of a state folder — listing them, undoing one, finishing an interrupted
//! commit — wired once for both shells. A `Ledger` needs no model: the CLI's `undo`, `history`
//! and `recover` open one alone; the app's `Engine` holds one for its windows.

use std::path::{Path, PathBuf};

use config::PipelineConfig;
use pipeline::{CommittedRun, Interaction, UndoReport};
use sandbox::{RecoveryReport, RunRecord, Sandbox, SandboxConfig, ScanOptions};

use crate::Result;

/// The history records, journals and audit log under one configuration's state folder.
#[derive(Debug)]
pub struct Ledger {
    config: PipelineConfig,
}

impl Ledger {
    pub fn new(config: PipelineConfig) -> Ledger {
        Ledger { config }
    }

    /// Committed runs, newest first (of `root` only, when given), and the history records that
    /// could not be read (path, why).
    pub fn committed_runs(
        &self,
        root: Option<&Path>,
    ) -> (Vec<CommittedRun>, Vec<(PathBuf, String)>) {
        let root = root.map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.to_owned()));
        let (runs, broken) = pipeline::committed_runs(&self.config.state_dir(), root.as_deref());
        for (path, why) in &broken {
            tracing::warn!(path = %path.display(), "history record unreadable: {why}");
        }
        (runs, broken)
    }

    /// The run `run_id` names (an id or a unique prefix), or the newest run still in effect.
    pub fn find_run(&self, run_id: Option<&str>) -> Result<RunRecord> {
        Ok(pipeline::find_run(&self.config.state_dir(), run_id)?)
    }

    /// The audit log runs and undos are recorded in.
    pub fn open_audit(&self) -> Result<audit::AuditLog> {
        Ok(audit::AuditLog::new(audit::AuditStore::connect(
            &self.config.audit_db(),
        )?))
    }

    /// The choices people made that planning learns from; none when there is no audit log yet
    /// (a plan never creates one).
    pub fn learned(&self) -> Result<Vec<contracts::LearnedChoice>> {
        let target = self.config.audit_db();
        if !audit::is_postgres_url(&target) && !Path::new(&target).exists() {
            return Ok(Vec::new());
        }
        Ok(self.open_audit()?.learned_choices()?)
    }

    /// Forgets a learned choice (`LearnedChoice::id`); `false` when there is none with that id.
    pub fn forget_choice(&self, id: &str) -> Result<bool> {
        Ok(self.open_audit()?.forget_choice(id)?)
    }

    /// A fresh scan of `root` with this configuration's sandbox settings.
    pub fn open_sandbox(&self, root: &Path, scan: &ScanOptions) -> Result<Sandbox> {
        Ok(Sandbox::open(
            root,
            SandboxConfig::from_pipeline(&self.config),
            scan,
        )?)
    }

    /// Undoes `record` on `sandbox` (a fresh scan of its folder): planned on the graph, shown to
    /// `ui` as a diff, committed through the journal when approved, recorded in `audit`.
    pub fn undo(
        &self,
        sandbox: &mut Sandbox,
        record: &RunRecord,
        dry_run: bool,
        ui: &mut dyn Interaction,
        audit: &mut audit::AuditLog,
    ) -> Result<UndoReport> {
        Ok(pipeline::undo_run(
            sandbox,
            record,
            dry_run,
            ui,
            Some(audit as &mut dyn pipeline::AuditSink),
        )?)
    }

    /// The interrupted commit of `root`, if there is one; with `complete`, finishes it. A
    /// finished recovery is recorded in the audit log as the end of the run it completes, so the
    /// run reads as committed (and can be undone) like any other.
    pub fn recover(&self, root: &Path, complete: bool) -> Result<Option<RecoveryReport>> {
        let report = sandbox::recover(root, &self.config.state_dir(), complete)?;
        if let Some(done) = report.as_ref().filter(|r| r.finished)
            && let Some(completed) = &done.completed
            && let Some(run_id) = &completed.run_id
        {
            let audit = self.open_audit()?;
            audit.record_recovery(run_id, completed.applied)?;
        }
        Ok(report)
    }
}
