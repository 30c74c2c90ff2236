//! The sandbox: a scoped, in-memory FileSystemGraph of `working_root` on which every agent action is
//! simulated, with O(changes) snapshots, rollback, a staged buffer and a journaled commit.
//!
//! Architecture invariant: the disk is written only by `Sandbox::commit` (and journal recovery).
//! Graph methods are pure; the scan and the content primitives only read.

mod archive;
mod categories;
mod commit;
mod conditions;
mod conserve;
mod content;
mod error;
mod graph;
pub mod hash_cache;
mod history;
mod id_index;
mod journal;
mod limit;
pub mod naming;
mod node;
mod op_kind;
mod ops;
mod params;
pub mod parse;
mod primitives;
mod scan;
mod scope;
pub mod summary;
pub mod tags;
mod trash_can;
mod undo;
mod view;

use std::path::{Path, PathBuf};

use config::{ConflictPolicy, DeleteMode, PipelineConfig};
use contracts::{ExecutionResult, PrimitiveKind, PrimitiveTable};
use serde_json::{Map, Value};

pub use archive::{
    ArchiveFormat, entry_path as archive_entry_path, extract as archive_extract,
    staging_dir as archive_staging_dir,
};
pub use categories::{CATEGORIES, CategoryTable, category_of, sniff_extension};
pub use commit::{CommitReport, Conflict};
pub use conserve::Accounting;
pub use content::parse_file;
pub use error::{Result, SandboxError};
pub use graph::{Change, ChangeOp, FileSystemGraph, GraphError, SnapshotId, human_bytes};
pub use history::{
    HISTORY_VERSION, RecordedChange, RunLabel, RunRecord, TrashedEntry, fresh_id,
    list as history_list, undone_by,
};
pub use journal::{InDoubt, JournalHeader, RecoveryReport, journal_path};
pub use limit::Approval;
pub use node::{Fingerprint, Node, NodeKind, Origin, ROOT_ID, join as join_id};
pub use op_kind::{OP_KINDS, OpKind, count_text};
pub use ops::SIMILAR_DEFAULT_THRESHOLD;
pub use ops::node_view;
pub use params::{format_time, now_secs, parse_date, parse_size};
pub use primitives::graph_primitive_table;
pub use scan::{ScanIssue, ScanOptions};
pub use scope::{Scope, ScopeError};
pub use trash_can::RecordedTrash;
pub use undo::{UndoKept, UndoPlan};
pub use view::{
    Totals, TreeView, ViewKind, ViewNode, ViewOptions, ViewStatus, render_view, tree_view,
};

/// The levers the sandbox uses.
#[derive(Debug, Clone)]
pub struct SandboxConfig {
    pub delete_mode: DeleteMode,
    pub on_conflict: ConflictPolicy,
    /// Where commit journals live.
    pub state_dir: PathBuf,
    /// The config's own type categories (organize-by-type).
    pub categories: CategoryTable,
    /// Globs (relative to the root) of places no change may touch; the state folder and the
    /// system trash are protected besides.
    pub protected_paths: Vec<String>,
}

impl SandboxConfig {
    pub fn from_pipeline(c: &PipelineConfig) -> Self {
        SandboxConfig {
            delete_mode: c.delete_mode,
            on_conflict: c.on_conflict,
            state_dir: c.state_dir(),
            categories: CategoryTable::new(
                c.categories
                    .iter()
                    .map(|(name, exts)| (name.clone(), exts.clone())),
            ),
            protected_paths: c.protected_paths.clone(),
        }
    }
}

/// Test and demo hook: every commit (a run's, an undo's, `tool --commit`, from the CLI or the app)
/// pauses this many milliseconds after each change it writes, so that it can be interrupted on
/// purpose (kill -9 tests of recovery).
pub const ENV_DEBUG_COMMIT_DELAY: &str = "SCOPE_WEAVER_DEBUG_COMMIT_DELAY_MS";

fn debug_commit_delay() -> Option<std::time::Duration> {
    std::env::var(ENV_DEBUG_COMMIT_DELAY)
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
        .map(std::time::Duration::from_millis)
}

/// Called after each change is written during a commit (progress display).
pub type CommitProgress<'a> = &'a mut dyn FnMut(usize, usize, &ChangeOp);

#[derive(Debug)]
pub struct Sandbox {
    scope: Scope,
    graph: FileSystemGraph,
    config: SandboxConfig,
    issues: Vec<ScanIssue>,
    table: PrimitiveTable,
    /// The run the next commit belongs to (its history record); a fresh id when unset.
    label: Option<RunLabel>,
    /// What the person approved at the final review; when set, the commit writes nothing else.
    approval: Option<Approval>,
    /// The files as the scan (or the last commit) left them: what the conservation check
    /// accounts for.
    scanned: Vec<String>,
    /// The persistent hash cache of duplicate finding, opened at its first use.
    hash_cache: std::sync::OnceLock<hash_cache::HashCache>,
}

impl Sandbox {
    /// Scans `root` into a new sandbox.
    pub fn open(root: &Path, config: SandboxConfig, options: &ScanOptions) -> Result<Sandbox> {
        let canonical = std::fs::canonicalize(root).map_err(|e| SandboxError::BadRoot {
            path: root.to_owned(),
            message: e.to_string(),
        })?;
        let out = scan::scan(&canonical, options)?;
        let home = std::env::home_dir();
        let scanned = files_of(&out.graph);
        Ok(Sandbox {
            scope: Scope::new(canonical, home),
            graph: out.graph,
            config,
            issues: out.issues,
            table: graph_primitive_table(),
            label: None,
            approval: None,
            scanned,
            hash_cache: std::sync::OnceLock::new(),
        })
    }

    pub fn root(&self) -> &Path {
        self.scope.root()
    }

    pub fn scope(&self) -> &Scope {
        &self.scope
    }

    /// The graph and its pending changes, the sandbox given up.
    pub fn into_graph(self) -> (FileSystemGraph, Vec<Change>) {
        let changes = self.graph.changes().to_vec();
        (self.graph, changes)
    }

    pub fn graph(&self) -> &FileSystemGraph {
        &self.graph
    }

    pub fn config(&self) -> &SandboxConfig {
        &self.config
    }

    /// Entries the scan could not read.
    pub fn issues(&self) -> &[ScanIssue] {
        &self.issues
    }

    /// Resolves a path argument to a node id, enforcing the scope.
    pub fn resolve(&self, path: &str) -> Result<String> {
        Ok(self.scope.resolve(path, &self.graph)?)
    }

    /// Runs one graph method on the graph. A snapshot is taken first; if the method fails, the graph
    /// is rolled back to it, so a failed call leaves no trace.
    pub fn call(&mut self, method: &str, params: &Map<String, Value>) -> Result<ExecutionResult> {
        let before = self.graph.changes().len();
        let hashes = self.hash_cache.get_or_init(|| {
            hash_cache::HashCache::open(&hash_cache::HashCache::path_in(&self.config.state_dir))
        });
        let mut result = call_graph_method(
            &mut self.graph,
            &self.scope,
            &self.table,
            self.config.on_conflict,
            &self.config.categories,
            Some(hashes),
            method,
            params,
        )?;
        self.note_unlisted(before, &mut result.data);
        Ok(result)
    }

    /// Folders this call deletes, moves, copies or archives may hold entries the scan could not
    /// list (names that are not UTF-8, unreadable folders): they go with the folder, so the
    /// result names them (`unlisted`) and says so (`warning`).
    fn note_unlisted(&self, before: usize, data: &mut Value) {
        let mut carried: Vec<(&str, &'static str)> = Vec::new();
        for change in &self.graph.changes()[before.min(self.graph.changes().len())..] {
            match &change.op {
                ChangeOp::Delete { path, .. } => carried.push((path, "deleted")),
                ChangeOp::Move { from, .. } => carried.push((from, "moved")),
                ChangeOp::Copy { from, .. } => carried.push((from, "copied")),
                ChangeOp::CreateArchive { sources, .. } => {
                    carried.extend(sources.iter().map(|s| (s.as_str(), "archived")));
                }
                _ => {}
            }
        }
        let mut unlisted = Vec::new();
        let mut lines = Vec::new();
        for issue in &self.issues {
            if let Some((folder, verb)) = carried
                .iter()
                .find(|(p, _)| *p != issue.path && node::is_within(&issue.path, p))
            {
                unlisted.push(serde_json::json!({"path": issue.path, "message": issue.message, "with": folder}));
                lines.push(format!("`{}` ({})", issue.path, issue.message));
                if lines.len() == 1 {
                    lines[0] = format!(
                        "`{folder}` holds entries the scan could not list; they are {verb} with it: {}",
                        lines[0]
                    );
                }
            }
        }
        if let (false, Some(map)) = (unlisted.is_empty(), data.as_object_mut()) {
            map.insert("unlisted".into(), Value::Array(unlisted));
            map.insert("warning".into(), Value::String(lines.join(", ")));
        }
    }

    pub fn snapshot(&mut self) -> SnapshotId {
        self.graph.snapshot()
    }

    /// Restores the graph to a snapshot (`snap-3` or `3`); changes made since are discarded.
    pub fn rollback(&mut self, snapshot: &str) -> Result<usize> {
        let id: SnapshotId = snapshot
            .parse()
            .map_err(|_| SandboxError::Graph(GraphError::UnknownSnapshot(snapshot.to_owned())))?;
        Ok(self.graph.rollback(id)?)
    }

    /// Accepts the changes of the step that took `snapshot` into the staged buffer.
    pub fn stage(&mut self, snapshot: &str) -> Result<usize> {
        let id: SnapshotId = snapshot
            .parse()
            .map_err(|_| SandboxError::Graph(GraphError::UnknownSnapshot(snapshot.to_owned())))?;
        Ok(self.graph.stage(id))
    }

    /// All changes since the scan (or the last commit), staged or not.
    pub fn changes(&self) -> &[Change] {
        self.graph.changes()
    }

    /// The pending diff as readable lines.
    pub fn render_diff(&self) -> String {
        let mut out = String::new();
        for c in self.graph.changes() {
            out.push_str(&c.op.render());
            if !c.staged {
                out.push_str("   [not approved]");
            }
            out.push('\n');
        }
        out
    }

    /// Nodes whose content index entry is missing or out of date.
    pub fn stale_nodes(&self) -> Vec<&Node> {
        let mut out: Vec<&Node> = self
            .graph
            .nodes()
            .filter(|n| n.kind == NodeKind::File)
            .filter(|n| {
                n.dirty
                    || n.indexed_at
                        .is_none_or(|i| n.modified_at.is_some_and(|m| m > i))
            })
            .collect();
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// Records that the content index embedded these nodes at `at` (epoch seconds).
    pub fn mark_indexed(&mut self, ids: &[String], at: i64) {
        for id in ids {
            self.graph.settle_node(id, |n| {
                n.indexed_at = Some(at);
                n.dirty = false;
            });
        }
    }

    /// The journal file of this root (exists only while a commit runs or after one was interrupted).
    pub fn journal_path(&self) -> PathBuf {
        journal_path(&self.config.state_dir, self.root())
    }

    /// An interrupted commit that must be recovered before the next commit.
    pub fn pending_journal(&self) -> Option<PathBuf> {
        Some(self.journal_path()).filter(|p| p.exists())
    }

    /// Where every file the scan saw is after the pending change (kept, to the trash, deleted,
    /// linked), checked against the simulated graph; `unaccounted` lists what would be lost.
    pub fn accounting(&self) -> Accounting {
        let ops: Vec<ChangeOp> = self.graph.changes().iter().map(|c| c.op.clone()).collect();
        conserve::account(&self.scanned, &ops, &self.graph, self.config.delete_mode)
    }

    /// Limits the next commit to exactly the changes the person approved (`Approval::of` the
    /// reviewed changes): anything else makes it refuse with `PLAN_LIMIT`, before any change.
    pub fn approve(&mut self, approval: Approval) {
        self.approval = Some(approval);
    }

    /// Names the run the next commit belongs to (its id and request go into the history record).
    pub fn label_commit(&mut self, label: RunLabel) {
        self.label = Some(label);
    }

    /// The label the next commit will carry, if one was set.
    pub fn commit_label(&self) -> Option<&RunLabel> {
        self.label.as_ref()
    }

    /// Plans the undo of a committed run of this root on the graph (see `undo.rs`): the changes
    /// are made under a new snapshot, not staged; stage it (`stage`) to approve them, then commit.
    /// The next commit is labelled as the undo of `record`.
    pub fn stage_undo(&mut self, record: &RunRecord) -> Result<UndoPlan> {
        if record.root != self.root() {
            return Err(SandboxError::UndoOtherRoot {
                run: record.run.id.clone(),
                root: record.root.clone(),
            });
        }
        let plan = undo::plan_undo(&mut self.graph, record, self.scope.root(), now_secs());
        self.label = Some(RunLabel {
            id: fresh_id("u", &record.run.id),
            request: format!("undo {}", record.run.id),
            undoes: Some(record.run.id.clone()),
        });
        Ok(plan)
    }

    /// Writes every staged change to disk, in order; refuses if any change is unapproved or any
    /// conflict is found (nothing is touched then). Deletes follow `delete_mode`.
    pub fn commit(&mut self, progress: Option<CommitProgress>) -> Result<CommitReport> {
        if let Some(first) = self.graph.changes().iter().find(|c| !c.staged) {
            return Err(SandboxError::Unstaged {
                count: self.graph.changes().iter().filter(|c| !c.staged).count(),
                first: first.op.render(),
            });
        }
        let ops: Vec<ChangeOp> = self.graph.changes().iter().map(|c| c.op.clone()).collect();
        if ops.is_empty() {
            return Ok(CommitReport::default());
        }
        let journal_path = self.journal_path();
        if journal_path.exists() {
            let state = journal::read(&journal_path)?;
            return Err(SandboxError::PendingJournal {
                path: journal_path,
                remaining: state.pending().len(),
                total: state.header.ops.len(),
            });
        }
        let _span = tracing::info_span!("commit", ops = ops.len()).entered();
        if let Some(approval) = self.approval.take() {
            let beyond = approval.exceeded_by(&ops);
            if !beyond.is_empty() {
                tracing::error!(
                    changes = beyond.len(),
                    "commit refused: beyond the approval"
                );
                return Err(SandboxError::PlanLimit(beyond));
            }
        }
        let mut places = limit::trash_places();
        places.push(self.config.state_dir.clone());
        let protected = limit::Protected::new(&self.config.protected_paths, places)
            .map_err(|e| SandboxError::Protected(vec![e]))?;
        let touching = protected.violations(self.root(), &ops);
        if !touching.is_empty() {
            return Err(SandboxError::Protected(touching));
        }
        let accounting = self.accounting();
        if !accounting.unaccounted.is_empty() {
            tracing::error!(
                unaccounted = accounting.unaccounted.len(),
                "commit refused: files would be lost"
            );
            return Err(SandboxError::Unaccounted(accounting.unaccounted));
        }
        let conflicts = commit::precheck(self.root(), &ops);
        if !conflicts.is_empty() {
            tracing::warn!(
                conflicts = conflicts.len(),
                "commit refused: the disk changed"
            );
            return Err(SandboxError::Conflicts(conflicts));
        }
        let header = JournalHeader {
            version: journal::JOURNAL_VERSION,
            root: self.root().to_owned(),
            delete_mode: self.config.delete_mode,
            ops: ops.clone(),
            started_at: now_secs(),
            run: Some(
                self.label
                    .take()
                    .unwrap_or_else(|| RunLabel::unnamed(self.root())),
            ),
        };
        let mut journal = journal::Journal::create(&journal_path, &header)?;
        let mut report = CommitReport {
            journal: Some(journal.path().to_owned()),
            accounting: Some(accounting),
            ..CommitReport::default()
        };
        let mut progress = progress;
        let pause = debug_commit_delay();
        let mut after = Vec::with_capacity(ops.len());
        for (i, op) in ops.iter().enumerate() {
            tracing::debug!(index = i, op = %op.render(), "applying");
            if let Err(e) =
                commit::apply_op(self.root(), op, self.config.delete_mode, header.started_at)
            {
                tracing::error!(index = i, op = %op.render(), error = %e, "commit stopped");
                // Refused before anything changed (a locked folder, say): nothing to recover.
                let untouched = i == 0 && journal::inspect(self.root(), op) == InDoubt::NotApplied;
                if untouched {
                    journal.finish()?;
                }
                return Err(SandboxError::CommitFailed {
                    index: i,
                    op: op.render(),
                    message: e.to_string(),
                    done: report.applied,
                    journal_kept: !untouched,
                });
            }
            journal.mark_done(i)?;
            after.push(history::stat_after(self.root(), op));
            report.count(op, self.config.delete_mode);
            if let Some(cb) = progress.as_mut() {
                cb(i + 1, ops.len(), op);
            }
            if let Some(pause) = pause {
                std::thread::sleep(pause);
            }
        }
        // The history record before the journal goes, so a finished commit always has one.
        match history::record_commit(
            &self.config.state_dir,
            self.root(),
            header.run.clone().expect("set above"),
            self.config.delete_mode,
            &ops,
            after,
            header.started_at,
        ) {
            Ok(id) => report.run_id = Some(id),
            Err(e) => {
                tracing::error!(error = %e, "the history record could not be written");
                report
                    .warnings
                    .push(format!("this run cannot be undone: {e}"));
            }
        }
        journal.finish()?;
        report.journal = None;
        let problems = conserve::verify_disk(self.root(), &self.graph, &ops);
        report.verified = problems.is_empty();
        self.after_commit();
        if !problems.is_empty() {
            tracing::error!(problems = problems.len(), "the disk differs from the plan");
            return Err(SandboxError::Unverified {
                run_id: report.run_id.clone(),
                problems,
            });
        }
        tracing::info!(applied = report.applied, "committed");
        Ok(report)
    }

    /// The graph now mirrors the disk: refresh identities of changed nodes, forget history.
    fn after_commit(&mut self) {
        let changed: Vec<String> = self
            .graph
            .nodes()
            .filter(|n| n.dirty || n.origin.is_none())
            .map(|n| n.id.clone())
            .collect();
        for id in changed {
            if let Ok(fresh) = scan::stat_node(self.root(), &self.scope.disk_path(&id)) {
                self.graph.settle_node(&id, |n| {
                    n.origin = fresh.origin;
                    n.size = fresh.size;
                    n.modified_at = fresh.modified_at;
                    n.content_from = fresh.content_from;
                    // `dirty` stays set: the content index still has to catch up (stale_nodes).
                });
            }
        }
        self.graph.settle();
        self.scanned = files_of(&self.graph);
    }

    /// networkx-style node-link JSON of the graph for the UI.
    pub fn node_link_json(&self) -> Value {
        self.graph
            .node_link_json(&self.root().display().to_string())
    }
}

/// The ids of the files in `graph`, as the conservation check counts them.
fn files_of(graph: &FileSystemGraph) -> Vec<String> {
    graph
        .nodes()
        .filter(|n| n.kind == NodeKind::File)
        .map(|n| n.id.clone())
        .collect()
}

/// Runs one graph method on a graph (pure, no disk writes): what `Sandbox::call` does, usable on a
/// graph built in memory. Snapshot first; on failure the graph is rolled back to it.
#[allow(clippy::too_many_arguments)] // the sandbox's parts a method reads, each by reference
pub fn call_graph_method(
    graph: &mut FileSystemGraph,
    scope: &Scope,
    table: &PrimitiveTable,
    on_conflict: ConflictPolicy,
    categories: &CategoryTable,
    hashes: Option<&hash_cache::HashCache>,
    method: &str,
    params: &Map<String, Value>,
) -> Result<ExecutionResult> {
    let spec = table
        .get(PrimitiveKind::Graph, method)
        .ok_or_else(|| SandboxError::UnknownMethod(method.to_owned()))?;
    primitives::check_params(spec, params)?;
    let snapshot = graph.snapshot();
    let cx = ops::OpContext {
        scope,
        on_conflict,
        categories,
        now: now_secs(),
        snapshot,
        conflicts: Default::default(),
        hashes,
    };
    let p = params::Params::new(method, params);
    match primitives::dispatch(graph, &cx, method, &p) {
        // `on_conflict: ask` met names that exist: nothing of the call stays, and the error
        // lists them all so the person can choose skip, rename or fail for the retry.
        Ok(_) if !cx.conflicts.borrow().is_empty() => {
            graph.rollback(snapshot).expect("snapshot just taken");
            Err(SandboxError::ConflictsToResolve {
                method: method.to_owned(),
                paths: cx.conflicts.take(),
            })
        }
        Ok(data) => Ok(ExecutionResult::success(snapshot.to_string(), data)),
        Err(e) => {
            graph.rollback(snapshot).expect("snapshot just taken");
            Err(e)
        }
    }
}

/// Looks for an interrupted commit of `root`; with `complete`, finishes it.
pub fn recover(root: &Path, state_dir: &Path, complete: bool) -> Result<Option<RecoveryReport>> {
    let canonical = std::fs::canonicalize(root).map_err(|e| SandboxError::BadRoot {
        path: root.to_owned(),
        message: e.to_string(),
    })?;
    let path = journal_path(state_dir, &canonical);
    if !path.exists() {
        return Ok(None);
    }
    journal::recover(&path, complete).map(Some)
}
