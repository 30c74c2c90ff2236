//! Watched folders and the approval inbox (issue 21, seed 000's approval queue): a watch attaches
//! a request (a saved workflow's trigger, or any request) to a folder. When files arrive and the
//! folder has been quiet for the watch's settle time, the request is planned and simulated; what
//! it would change waits in the inbox for the person, or — for a watch marked trusted — is
//! committed at once when nothing in it is destructive. Nothing destructive ever runs unapproved.
//! Watches and the inbox are files under `<state_dir>` (`watches.json`, `inbox/<id>.json`), so
//! they survive restarts; a watch remembers when it last handled its folder, and a folder holding
//! anything newer is handled again on start (files that arrived while nothing watched).

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use pipeline::AutoApprove;
use serde::{Deserialize, Serialize};

use std::sync::atomic::Ordering;

use crate::error::{EngineError, Result};
use crate::{Engine, Notice, RunSettings};

/// A request attached to a folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Watch {
    pub id: String,
    /// The working folder the request runs in.
    pub root: PathBuf,
    /// The watched folder, relative to `root` (`.` for the root itself).
    pub folder: String,
    pub request: String,
    /// Quiet time after the last change before the folder is touched.
    pub settle_secs: u64,
    /// Commit non-destructive changes without asking (destructive ones still wait in the inbox).
    pub trusted: bool,
    /// When the folder's last handling started (milliseconds since 1970), if ever: anything
    /// that changed in it after that is handled again.
    #[serde(default)]
    pub last_handled_ms: Option<u64>,
}

impl Watch {
    pub fn path(&self) -> PathBuf {
        if self.folder == "." {
            self.root.clone()
        } else {
            self.root.join(&self.folder)
        }
    }
}

/// Simulated changes waiting for the person.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct InboxItem {
    pub id: String,
    pub watch: String,
    pub root: PathBuf,
    pub request: String,
    /// When it was simulated (RFC 3339).
    pub at: String,
    /// The diff, one line per change.
    pub changes: Vec<String>,
    /// "3 moves · 1 deletion".
    pub counts: String,
    /// Something in it deletes (or is otherwise marked destructive).
    pub destructive: bool,
    /// The simulated run's report.
    pub summary: String,
    /// Set when the item is a given plan (a task file's `call` or `plan`): approving runs it,
    /// not `request` planned again.
    #[serde(default)]
    pub plan: Option<contracts::Plan>,
}

/// What handling a watched folder did.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum WatchOutcome {
    /// The request changes nothing there now.
    NothingToDo { watch: String },
    /// Committed without asking (a trusted watch, nothing destructive).
    Committed {
        watch: String,
        run_id: String,
        summary: String,
    },
    /// Waiting in the inbox.
    Parked { item: Box<InboxItem> },
}

fn millis(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> EngineError {
    EngineError::Write {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Writes `value` as JSON through a temporary file (never a half-written file).
pub(crate) fn write_json(path: &Path, value: &impl Serialize) -> Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| io_error(dir, e))?;
    }
    let tmp = path.with_extension("json.saving");
    let text = serde_json::to_string_pretty(value).expect("serialises");
    std::fs::write(&tmp, text)
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|e| io_error(path, e))
}

/// The newest change time of anything directly in `folder` (a file arriving, renamed in or
/// written), in milliseconds since 1970.
fn newest_change(folder: &Path) -> Option<u64> {
    std::fs::read_dir(folder)
        .ok()?
        .filter_map(|e| e.ok()?.metadata().ok())
        .filter_map(|m| {
            let modified = m.modified().ok()?;
            #[cfg(unix)]
            let changed = {
                use std::os::unix::fs::MetadataExt;
                UNIX_EPOCH
                    + Duration::from_secs(m.ctime().max(0) as u64)
                    + Duration::from_nanos(m.ctime_nsec().max(0) as u64)
            };
            #[cfg(not(unix))]
            let changed = modified;
            Some(millis(modified.max(changed)))
        })
        .max()
}

impl Engine {
    fn watches_file(&self) -> PathBuf {
        self.config().state_dir().join("watches.json")
    }

    fn inbox_dir(&self) -> PathBuf {
        self.config().state_dir().join("inbox")
    }

    /// The saved watches.
    pub fn watches(&self) -> Result<Vec<Watch>> {
        let file = self.watches_file();
        match std::fs::read_to_string(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(io_error(&file, e)),
            Ok(text) => serde_json::from_str(&text).map_err(|e| EngineError::Coded {
                code: "WATCHES_INVALID".into(),
                message: format!("{} is not a list of watches: {e}", file.display()),
            }),
        }
    }

    fn save_watches(&self, watches: &[Watch]) -> Result<()> {
        write_json(&self.watches_file(), &watches)
    }

    /// Attaches `request` to `folder` of `root` (replacing a watch of the same folder).
    pub fn watch_add(
        &self,
        root: &Path,
        folder: &str,
        request: &str,
        settle_secs: u64,
        trusted: bool,
    ) -> Result<Watch> {
        let root = std::fs::canonicalize(root).map_err(|e| EngineError::BadRoot {
            path: root.display().to_string(),
            message: e.to_string(),
        })?;
        let folder = folder.trim().trim_end_matches('/');
        let folder = if folder.is_empty() { "." } else { folder };
        let sandbox = crate::Ledger::new(self.config())
            .open_sandbox(&root, &sandbox::ScanOptions::default())?;
        let id = sandbox.resolve(folder)?;
        if !sandbox.graph().node(&id).is_some_and(|n| n.is_dir()) {
            return Err(EngineError::Coded {
                code: "WATCH_NOT_A_FOLDER".into(),
                message: format!("`{folder}` is not a folder of {}", root.display()),
            });
        }
        if request.trim().is_empty() {
            return Err(EngineError::InvalidAnswer("a watch needs a request".into()));
        }
        let folder = if id == sandbox::ROOT_ID {
            ".".to_owned()
        } else {
            id
        };
        let mut watches = self.watches()?;
        let previous = watches
            .iter()
            .position(|w| w.root == root && w.folder == folder);
        let watch = Watch {
            id: previous.map_or_else(|| watch_id(&root, &folder), |i| watches[i].id.clone()),
            root,
            folder,
            request: request.trim().to_owned(),
            settle_secs,
            trusted,
            last_handled_ms: previous.and_then(|i| watches[i].last_handled_ms),
        };
        match previous {
            Some(i) => watches[i] = watch.clone(),
            None => watches.push(watch.clone()),
        }
        self.save_watches(&watches)?;
        self.watch_generation.fetch_add(1, Ordering::SeqCst);
        Ok(watch)
    }

    /// Forgets watch `id`: `false` when there is none.
    pub fn watch_remove(&self, id: &str) -> Result<bool> {
        let mut watches = self.watches()?;
        let before = watches.len();
        watches.retain(|w| w.id != id);
        self.save_watches(&watches)?;
        self.watch_generation.fetch_add(1, Ordering::SeqCst);
        Ok(watches.len() != before)
    }

    /// Whether anything in the watched folder changed after it was last handled.
    pub fn watch_is_behind(&self, watch: &Watch) -> bool {
        match (watch.last_handled_ms, newest_change(&watch.path())) {
            (_, None) => false,
            (None, Some(_)) => true,
            (Some(handled), Some(newest)) => newest > handled,
        }
    }

    /// Plans and simulates the watch's request on its folder as it is now; commits it when the
    /// watch is trusted and nothing in it is destructive, else parks it in the inbox (replacing
    /// an older item of the same watch). The watch remembers the time.
    pub fn handle_watch(&self, watch: &Watch) -> Result<WatchOutcome> {
        // Taken before the scan: whatever changes from here on is newer and handled again (a
        // trusted commit's own changes once more, which then finds nothing to do).
        let started = millis(SystemTime::now());
        let outcome =
            self.settle_request(&watch.id, &watch.root, &watch.request, None, watch.trusted)?;
        let mut watches = self.watches()?;
        if let Some(w) = watches.iter_mut().find(|w| w.id == watch.id) {
            w.last_handled_ms = Some(started);
        }
        self.save_watches(&watches)?;
        Ok(outcome)
    }

    /// Simulates `request` in `root`: nothing to do; committed (when `trusted`, nothing in it
    /// is destructive and no step asked for review); or parked in the inbox under `source` (replacing `source`'s older item).
    pub(crate) fn settle_request(
        &self,
        source: &str,
        root: &Path,
        request: &str,
        given: Option<&contracts::Plan>,
        trusted: bool,
    ) -> Result<WatchOutcome> {
        let plan = given.map(|p| self.check_plan(p)).transpose()?;
        let ledger = crate::Ledger::new(self.config());
        let mut sandbox = ledger.open_sandbox(root, &sandbox::ScanOptions::default())?;
        let simulate = RunSettings {
            hitl: Some(config::HitlMode::Bypass),
            dry_run: true,
            request_id: None,
            plan: plan.clone(),
        };
        let report = self.run_in(
            &mut sandbox,
            request,
            &simulate,
            &mut AutoApprove::default(),
        )?;
        let ops: Vec<sandbox::ChangeOp> = sandbox.changes().iter().map(|c| c.op.clone()).collect();
        let destructive = ops.iter().any(|op| op.kind().destructive);
        let outcome = if ops.is_empty() {
            WatchOutcome::NothingToDo {
                watch: source.to_owned(),
            }
        } else if trusted && !destructive && report.needs_review.is_empty() {
            let mut sandbox = ledger.open_sandbox(root, &sandbox::ScanOptions::default())?;
            let commit = RunSettings {
                hitl: Some(config::HitlMode::Bypass),
                dry_run: false,
                request_id: None,
                plan,
            };
            let done = self.run_in(&mut sandbox, request, &commit, &mut AutoApprove::default())?;
            WatchOutcome::Committed {
                watch: source.to_owned(),
                run_id: done.id,
                summary: done.text,
            }
        } else {
            let item = InboxItem {
                id: format!("{source}-{}", report.id),
                watch: source.to_owned(),
                root: root.to_owned(),
                request: request.to_owned(),
                at: humantime::format_rfc3339_seconds(SystemTime::now()).to_string(),
                changes: ops.iter().map(sandbox::ChangeOp::render).collect(),
                counts: sandbox::count_text(&ops),
                destructive,
                summary: report.text,
                plan: given.cloned(),
            };
            for old in self.inbox()?.into_iter().filter(|i| i.watch == source) {
                self.inbox_discard(&old.id)?;
            }
            write_json(&self.inbox_dir().join(format!("{}.json", item.id)), &item)?;
            WatchOutcome::Parked {
                item: Box::new(item),
            }
        };
        self.emit(Notice::InboxChanged {
            count: self.inbox()?.len(),
            outcome: Some(outcome.clone()),
        });
        Ok(outcome)
    }

    /// What waits for approval, oldest first.
    pub fn inbox(&self) -> Result<Vec<InboxItem>> {
        let dir = self.inbox_dir();
        let entries = match std::fs::read_dir(&dir) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io_error(&dir, e)),
            Ok(rd) => rd,
        };
        let mut items: Vec<InboxItem> = Vec::new();
        for e in entries.filter_map(|e| e.ok()) {
            let path = e.path();
            if path.extension().is_none_or(|x| x != "json") {
                continue;
            }
            match std::fs::read_to_string(&path)
                .ok()
                .and_then(|t| serde_json::from_str(&t).ok())
            {
                Some(item) => items.push(item),
                None => tracing::warn!("{}: not an inbox item; left alone", path.display()),
            }
        }
        items.sort_by(|a, b| a.at.cmp(&b.at).then_with(|| a.id.cmp(&b.id)));
        Ok(items)
    }

    /// The inbox item `id`.
    pub fn inbox_item(&self, id: &str) -> Result<InboxItem> {
        self.inbox()?
            .into_iter()
            .find(|i| i.id == id)
            .ok_or_else(|| EngineError::Coded {
                code: "INBOX_ITEM_NOT_FOUND".into(),
                message: format!("nothing named `{id}` waits in the inbox"),
            })
    }

    /// Removes item `id` from the inbox (after it was approved and run, or to drop it).
    pub fn inbox_discard(&self, id: &str) -> Result<()> {
        let item = self.inbox_item(id)?;
        let path = self.inbox_dir().join(format!("{}.json", item.id));
        std::fs::remove_file(&path).map_err(|e| io_error(&path, e))?;
        self.emit(Notice::InboxChanged {
            count: self.inbox()?.len(),
            outcome: None,
        });
        Ok(())
    }

    /// Runs inbox item `id`'s request now, in its folder as it is on disk (a run like any other:
    /// its questions and the diff review go to `sink`); the item leaves the inbox when the run
    /// commits.
    pub fn approve_inbox_item(
        &self,
        id: &str,
        sink: &mut (dyn FnMut(crate::Message) + Send),
    ) -> Result<pipeline::RunReport> {
        let item = self.inbox_item(id)?;
        let request = crate::RunRequest {
            request: item.request.clone(),
            dry_run: false,
            hitl: None,
            plan: item.plan.clone(),
        };
        let report = self.run_at(&item.root, &request, sink)?;
        if report.committed {
            self.inbox_discard(id)?;
        }
        Ok(report)
    }
}

impl Engine {
    /// Shows inbox item `id` in the graph window: its request (or plan) simulated again on its
    /// folder as it is now (what approving it would do), the changes drawn on the tree (moved,
    /// added, deleted as ghosts). Writes nothing; the simulation is audited like any dry run.
    pub fn inbox_preview(&self, id: &str) -> Result<InboxPreview> {
        let item = self.inbox_item(id)?;
        let plan = item.plan.as_ref().map(|p| self.check_plan(p)).transpose()?;
        let ledger = crate::Ledger::new(self.config());
        let mut sandbox = ledger.open_sandbox(&item.root, &sandbox::ScanOptions::default())?;
        let simulate = RunSettings {
            hitl: Some(config::HitlMode::Bypass),
            dry_run: true,
            request_id: None,
            plan,
        };
        self.run_in(
            &mut sandbox,
            &item.request,
            &simulate,
            &mut AutoApprove::default(),
        )?;
        let ops: Vec<sandbox::ChangeOp> = sandbox.changes().iter().map(|c| c.op.clone()).collect();
        let preview = InboxPreview {
            id: item.id,
            root: item.root.display().to_string(),
            changes: ops.len(),
            counts: sandbox::count_text(&ops),
        };
        *self
            .view
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(crate::ViewSource::from_sandbox(sandbox));
        self.emit(Notice::GraphChanged {
            reason: "inbox".into(),
        });
        Ok(preview)
    }
}

/// What the graph window shows of an inbox item (`inbox_preview`).
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct InboxPreview {
    pub id: String,
    /// The folder the graph now shows.
    pub root: String,
    /// How many changes approving it would make now (0: nothing to do any more).
    pub changes: usize,
    /// "3 moves · 1 deletion".
    pub counts: String,
}

/// A watch's id: the folder's name and a short hash of where it is.
fn watch_id(root: &Path, folder: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(root.join(folder).as_os_str().as_encoded_bytes());
    let name: String = Path::new(folder)
        .file_name()
        .or_else(|| root.file_name())
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let hex: String = digest[..3].iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{hex}", name.trim_matches('-'))
}
