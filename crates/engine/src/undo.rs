//! Undo and recovery for the windows: the committed runs, undoing one (a run of its own: the
//! diff review goes to the window as a question, like any run's), and the interrupted commit of
//! the working folder, found and reported or finished.

use pipeline::{CommittedRun, UndoReport};
use sandbox::{RecoveryReport, ScanOptions};

use crate::ledger::Ledger;
use crate::questions::Message;
use crate::{Engine, EngineError, Notice, Result, ViewSource, lock, read, write};

impl Engine {
    /// The committed runs and interrupted commits under the current configuration's state folder.
    pub fn ledger(&self) -> Ledger {
        Ledger::new(self.config())
    }

    /// Committed runs of every folder, newest first.
    pub fn committed_runs(&self, limit: usize) -> Vec<CommittedRun> {
        let (runs, _) = self.ledger().committed_runs(None);
        runs.into_iter().take(limit).collect()
    }

    /// Undoes a committed run (`run_id`, or the newest in effect) on the calling thread: events
    /// and the diff review go to `sink`, the answer comes through [`Engine::answer`]. One run or
    /// undo at a time (`RUN_BUSY`).
    pub fn undo(
        &self,
        run_id: Option<&str>,
        dry_run: bool,
        sink: &mut (dyn FnMut(Message) + Send),
    ) -> Result<UndoReport> {
        let (cancel, _running) = self.start_run()?;
        let ledger = self.ledger();
        let record = ledger.find_run(run_id)?;
        let mut sandbox = ledger.open_sandbox(&record.root, &ScanOptions::default())?;
        let mut core = lock(&self.core);
        if core.audit.is_none() {
            core.audit = Some(ledger.open_audit()?);
        }
        let showing = read(&self.root)
            .is_some_and(|r| std::fs::canonicalize(r).is_ok_and(|r| r == record.root));
        let mut ui = self.window_interaction(&record.run.id, sink, cancel, showing);
        let audit = core.audit.as_mut().expect("opened above");
        let report = ledger.undo(&mut sandbox, &record, dry_run, &mut ui, audit)?;
        if showing && !report.committed {
            // The graph window shows the disk as it is, not the declined undo.
            if let Ok(fresh) = ledger.open_sandbox(&record.root, &ScanOptions::default()) {
                write(&self.view, Some(ViewSource::of(&fresh)));
            }
        }
        self.emit(Notice::GraphChanged {
            reason: "finished".into(),
        });
        Ok(report)
    }

    /// The interrupted commit of the working folder, if there is one: what was done, what is in
    /// doubt and what is left. The bar shows it before anything else.
    pub fn pending_recovery(&self) -> Result<Option<RecoveryReport>> {
        let root = read(&self.root).ok_or(EngineError::NoRoot)?;
        self.ledger().recover(&root, false)
    }

    /// Finishes the interrupted commit of the working folder (the rest of its changes, after
    /// deciding the one in doubt from the disk), or reports what blocks it.
    pub fn finish_recovery(&self) -> Result<Option<RecoveryReport>> {
        let (_cancel, _running) = self.start_run()?;
        let root = read(&self.root).ok_or(EngineError::NoRoot)?;
        self.ledger().recover(&root, true)
    }
}
