//! The history of committed runs: what each commit changed, recorded durably so that the run can
//! be undone days later and after restarts.
//!
//! One JSON file per commit under `<state_dir>/history/`, named `<committed_at>-<run id>.json`,
//! written atomically (temporary file, fsync, rename) before the commit's journal is removed, so a
//! finished commit always has its record (recovery writes it for an interrupted one). A record
//! holds every change in order, what the path each change produced looked like right after it
//! (an undo names a file edited since as a conflict instead of overwriting it), and where the
//! system trash put each deleted entry.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use config::DeleteMode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{Result, SandboxError};
use crate::graph::ChangeOp;
use crate::node::Fingerprint;

pub const HISTORY_VERSION: u32 = 1;

/// Which run a commit belongs to; the pipeline sets it before committing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunLabel {
    pub id: String,
    /// The request in the person's words (empty for a commit made outside a run).
    #[serde(default)]
    pub request: String,
    /// Set when this commit undoes an earlier run: that run's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
}

impl RunLabel {
    /// A label for a commit made outside a run (`scope-weaver tool --commit`): a fresh id.
    pub fn unnamed(root: &Path) -> RunLabel {
        RunLabel {
            id: fresh_id("c", &root.to_string_lossy()),
            request: String::new(),
            undoes: None,
        }
    }
}

/// A fresh id: `prefix` and 12 hex digits of a hash over the time, the process and `salt`.
pub fn fresh_id(prefix: &str, salt: &str) -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let digest = Sha256::digest(format!("{nanos}\n{}\n{salt}", std::process::id()).as_bytes());
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}{hex}")
}

/// Where the system trash put a deleted entry (the fields of `trash::TrashItem`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct TrashedEntry {
    /// The trash's own id of the item (freedesktop: its `.trashinfo` file).
    pub id: PathBuf,
    pub name: String,
    pub original_parent: PathBuf,
    pub time_deleted: i64,
}

/// One applied change and what it left behind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedChange {
    pub op: ChangeOp,
    /// The path the change produced (`ChangeOp::produced`) right after the change; `None` when
    /// it produced none or it could not be read (then an undo does not compare it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<Fingerprint>,
    /// For a delete that went to the system trash: where it is there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trashed: Option<TrashedEntry>,
}

/// What one commit changed, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub version: u32,
    pub run: RunLabel,
    pub root: PathBuf,
    pub committed_at: i64,
    /// Nanoseconds since the epoch: orders records committed within one second.
    #[serde(default)]
    pub committed_ns: u128,
    pub delete_mode: DeleteMode,
    pub changes: Vec<RecordedChange>,
}

impl RunRecord {
    /// Deletes that cannot be brought back: permanent ones, and trashed ones whose place in the
    /// trash is unknown.
    pub fn unrestorable(&self) -> Vec<&ChangeOp> {
        self.changes
            .iter()
            .filter(|c| matches!(c.op, ChangeOp::Delete { .. }) && c.trashed.is_none())
            .map(|c| &c.op)
            .collect()
    }
}

impl ChangeOp {
    /// The path this change creates or leaves its result at, if any.
    pub fn produced(&self) -> Option<&str> {
        match self {
            ChangeOp::CreateDir { path }
            | ChangeOp::CreateFile { path, .. }
            | ChangeOp::Hardlink { path, .. }
            | ChangeOp::Restore { path, .. }
            | ChangeOp::Unlink { path, .. }
            | ChangeOp::Tag { path, .. } => Some(path),
            ChangeOp::Move { to, .. } | ChangeOp::Copy { to, .. } => Some(to),
            ChangeOp::CreateArchive { target, .. } => Some(target),
            ChangeOp::ExtractArchive {
                target,
                merge: None,
                ..
            } => Some(target),
            ChangeOp::ExtractArchive { merge: Some(_), .. }
            | ChangeOp::Delete { .. }
            | ChangeOp::RemoveDir { .. } => None,
        }
    }
}

fn history_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("history")
}

fn history_err(path: &Path, message: impl Into<String>) -> SandboxError {
    SandboxError::History {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// Writes a record atomically: a temporary file, fsynced, renamed into place, folder fsynced.
pub fn write(state_dir: &Path, record: &RunRecord) -> Result<PathBuf> {
    let dir = history_dir(state_dir);
    std::fs::create_dir_all(&dir).map_err(|e| history_err(&dir, e.to_string()))?;
    let path = dir.join(format!("{}-{}.json", record.committed_ns, record.run.id));
    let tmp = path.with_extension("json.tmp");
    let text = serde_json::to_vec_pretty(record).expect("record serialises");
    std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(&text).and_then(|_| f.sync_all()))
        .and_then(|_| std::fs::rename(&tmp, &path))
        .map_err(|e| history_err(&path, e.to_string()))?;
    if let Ok(d) = std::fs::File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(path)
}

/// Every readable record, oldest first. Unreadable files are skipped and named in the second list.
pub fn list(state_dir: &Path) -> (Vec<RunRecord>, Vec<(PathBuf, String)>) {
    let dir = history_dir(state_dir);
    let mut records = Vec::new();
    let mut broken = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return (records, broken);
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.extension().and_then(|e| e.to_str()) != Some("json") {
            continue;
        }
        match std::fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|b| serde_json::from_slice::<RunRecord>(&b).map_err(|e| e.to_string()))
        {
            Ok(r) if r.version == HISTORY_VERSION => records.push(r),
            Ok(r) => broken.push((
                path,
                format!("record version {} is not supported", r.version),
            )),
            Err(e) => broken.push((path, e)),
        }
    }
    records.sort_by(|a, b| {
        (a.committed_at, a.committed_ns, &a.run.id).cmp(&(
            b.committed_at,
            b.committed_ns,
            &b.run.id,
        ))
    });
    (records, broken)
}

/// Whether each run is in effect or was undone (by a run that is itself in effect), by run id.
pub fn undone_by(records: &[RunRecord]) -> HashMap<String, String> {
    let mut undone: HashMap<String, String> = HashMap::new();
    // Newest first: an undo that was itself undone no longer undoes anything.
    for r in records.iter().rev() {
        if let Some(target) = &r.run.undoes
            && !undone.contains_key(&r.run.id)
        {
            undone.insert(target.clone(), r.run.id.clone());
        }
    }
    undone
}

/// What the path `op` produced looks like on disk now (`None`: it produced none, or it is gone).
pub(crate) fn stat_after(root: &Path, op: &ChangeOp) -> Option<Fingerprint> {
    let path = op.produced()?;
    std::fs::symlink_metadata(root.join(path))
        .ok()
        .map(|m| crate::scan::fingerprint(&m))
}

/// Builds the record of a finished commit (finding where the trash put its deletes) and writes
/// it; returns the run id.
pub(crate) fn record_commit(
    state_dir: &Path,
    root: &Path,
    run: RunLabel,
    delete_mode: DeleteMode,
    ops: &[ChangeOp],
    after: Vec<Option<Fingerprint>>,
    started_at: i64,
) -> Result<String> {
    let deleted: Vec<PathBuf> = ops
        .iter()
        .filter_map(|op| match op {
            ChangeOp::Delete { path, .. } if delete_mode == DeleteMode::Trash => {
                Some(root.join(path))
            }
            _ => None,
        })
        .collect();
    let trashed = crate::trash_can::find(&deleted, started_at);
    let changes = ops
        .iter()
        .zip(after.into_iter().chain(std::iter::repeat(None)))
        .map(|(op, after)| RecordedChange {
            trashed: match op {
                ChangeOp::Delete { path, .. } => trashed.get(&root.join(path)).cloned(),
                _ => None,
            },
            op: op.clone(),
            after,
        })
        .collect();
    let record = RunRecord {
        version: HISTORY_VERSION,
        run,
        root: root.to_owned(),
        committed_at: crate::params::now_secs(),
        committed_ns: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
        delete_mode,
        changes,
    };
    write(state_dir, &record)?;
    Ok(record.run.id)
}
