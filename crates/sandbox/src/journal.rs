//! The commit journal: an append-only file that survives a crash mid-commit, and recovery from it.
//!
//! Format (JSON lines): a header `{version, root, delete_mode, ops, started_at}`, then one
//! `{"done": i}` line per applied change, each flushed to disk before the next change starts. After a
//! crash at most one change is in doubt (the first one not marked done); recovery inspects the disk
//! to decide whether it happened, then finishes the rest or reports it.

use std::collections::BTreeSet;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use config::DeleteMode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::commit::{CommitReport, Conflict, apply_op, precheck};
use crate::error::{Result, SandboxError};
use crate::graph::ChangeOp;
use crate::history::RunLabel;

pub const JOURNAL_VERSION: u32 = 1;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JournalHeader {
    pub version: u32,
    pub root: PathBuf,
    pub delete_mode: DeleteMode,
    pub ops: Vec<ChangeOp>,
    pub started_at: i64,
    /// The run committing (its history record is written when the commit finishes, here or in
    /// recovery).
    #[serde(default)]
    pub run: Option<RunLabel>,
}

#[derive(Debug, Serialize, Deserialize)]
struct DoneLine {
    done: usize,
}

/// Where the journal of a root lives: one per working root, named by a hash of the root's path.
pub fn journal_path(state_dir: &Path, root: &Path) -> PathBuf {
    let digest = Sha256::digest(root.to_string_lossy().as_bytes());
    let tag: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    state_dir
        .join("journals")
        .join(format!("commit-{tag}.journal"))
}

fn journal_err(path: &Path, message: impl Into<String>) -> SandboxError {
    SandboxError::Journal {
        path: path.to_owned(),
        message: message.into(),
    }
}

/// An open journal being written by a running commit.
#[derive(Debug)]
pub struct Journal {
    path: PathBuf,
    file: File,
}

impl Journal {
    /// Creates the journal; fails if one already exists (an earlier commit was interrupted).
    pub fn create(path: &Path, header: &JournalHeader) -> Result<Journal> {
        let dir = path.parent().expect("journal path has a parent");
        std::fs::create_dir_all(dir).map_err(|e| journal_err(path, e.to_string()))?;
        let mut file = OpenOptions::new()
            .append(true)
            .create_new(true)
            .open(path)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::AlreadyExists {
                    let (remaining, total) = read(path)
                        .map(|s| (s.pending().len(), s.header.ops.len()))
                        .unwrap_or((0, 0));
                    SandboxError::PendingJournal {
                        path: path.to_owned(),
                        remaining,
                        total,
                    }
                } else {
                    journal_err(path, e.to_string())
                }
            })?;
        let line = serde_json::to_string(header).expect("header serialises");
        writeln!(file, "{line}")
            .and_then(|_| file.sync_all())
            .map_err(|e| journal_err(path, e.to_string()))?;
        // Make the new directory entry durable too.
        if let Ok(d) = File::open(dir) {
            let _ = d.sync_all();
        }
        Ok(Journal {
            path: path.to_owned(),
            file,
        })
    }

    fn append(path: &Path) -> Result<Journal> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| journal_err(path, e.to_string()))?;
        Ok(Journal {
            path: path.to_owned(),
            file,
        })
    }

    pub fn mark_done(&mut self, index: usize) -> Result<()> {
        writeln!(self.file, "{{\"done\":{index}}}")
            .and_then(|_| self.file.sync_data())
            .map_err(|e| journal_err(&self.path, e.to_string()))
    }

    /// The commit finished: the journal is no longer needed.
    pub fn finish(self) -> Result<()> {
        std::fs::remove_file(&self.path).map_err(|e| journal_err(&self.path, e.to_string()))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A journal read back from disk.
#[derive(Debug, Clone)]
pub struct JournalState {
    pub header: JournalHeader,
    pub done: BTreeSet<usize>,
}

impl JournalState {
    pub fn pending(&self) -> Vec<usize> {
        (0..self.header.ops.len())
            .filter(|i| !self.done.contains(i))
            .collect()
    }
}

/// Reads a journal; a torn last line (crash while writing it) is ignored.
pub fn read(path: &Path) -> Result<JournalState> {
    let file = File::open(path).map_err(|e| journal_err(path, e.to_string()))?;
    let mut lines = BufReader::new(file).lines();
    let first = lines
        .next()
        .ok_or_else(|| journal_err(path, "empty journal"))?
        .map_err(|e| journal_err(path, e.to_string()))?;
    let header: JournalHeader = serde_json::from_str(&first)
        .map_err(|e| journal_err(path, format!("unreadable header: {e}")))?;
    if header.version != JOURNAL_VERSION {
        return Err(journal_err(
            path,
            format!("journal version {} is not supported", header.version),
        ));
    }
    let mut done = BTreeSet::new();
    for line in lines.map_while(std::result::Result::ok) {
        if let Ok(d) = serde_json::from_str::<DoneLine>(&line)
            && d.done < header.ops.len()
        {
            done.insert(d.done);
        }
    }
    Ok(JournalState { header, done })
}

/// Whether the change in doubt after a crash took place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InDoubt {
    Applied,
    NotApplied,
    /// Half done (a partly written file or copy made by this commit); cleaned up and redone.
    Partial,
    Unclear(String),
}

pub(crate) fn inspect(root: &Path, op: &ChangeOp) -> InDoubt {
    let at = |p: &str| root.join(p);
    let exists = |p: &str| std::fs::symlink_metadata(at(p)).is_ok();
    match op {
        ChangeOp::CreateDir { path } => {
            if at(path).is_dir() {
                InDoubt::Applied
            } else {
                InDoubt::NotApplied
            }
        }
        ChangeOp::CreateFile { path, content } => match std::fs::symlink_metadata(at(path)) {
            Err(_) => InDoubt::NotApplied,
            Ok(m) if m.len() == content.as_ref().map_or(0, |c| c.len() as u64) => InDoubt::Applied,
            Ok(_) => InDoubt::Partial,
        },
        ChangeOp::Move { from, to, .. } => match (exists(from), exists(to)) {
            (true, false) => InDoubt::NotApplied,
            (false, true) => InDoubt::Applied,
            (true, true) => InDoubt::Unclear(format!("both `{from}` and `{to}` exist")),
            (false, false) => InDoubt::Unclear(format!("neither `{from}` nor `{to}` exists")),
        },
        ChangeOp::Copy { from, to, kind, .. } => {
            if !exists(to) {
                InDoubt::NotApplied
            } else if *kind == crate::node::NodeKind::File
                && std::fs::metadata(at(from)).map(|m| m.len()).ok()
                    == std::fs::metadata(at(to)).map(|m| m.len()).ok()
            {
                InDoubt::Applied
            } else {
                InDoubt::Partial
            }
        }
        ChangeOp::Delete { path, .. } => {
            if exists(path) {
                InDoubt::NotApplied
            } else {
                InDoubt::Applied
            }
        }
        ChangeOp::Hardlink { path, to, .. } => {
            if std::fs::symlink_metadata(crate::commit::link_temp(&at(path))).is_ok() {
                return InDoubt::Partial;
            }
            match (same_file(&at(path), &at(to)), exists(path), exists(to)) {
                (Some(true), _, _) => InDoubt::Applied,
                (Some(false), _, _) => InDoubt::NotApplied,
                (None, false, _) => InDoubt::Unclear(format!("`{path}` is gone")),
                (None, _, _) => InDoubt::Unclear(format!("cannot compare `{path}` with `{to}`")),
            }
        }
        ChangeOp::Restore { path, trashed, .. } => {
            let in_trash = crate::trash_can::contains(trashed, &crate::trash_can::list());
            match (exists(path), in_trash) {
                (false, _) => InDoubt::NotApplied,
                (true, false) => InDoubt::Applied,
                // The trash makes an empty placeholder first, then renames the entry over it.
                (true, true) => InDoubt::Partial,
            }
        }
        ChangeOp::RemoveDir { path } => {
            if exists(path) {
                InDoubt::NotApplied
            } else {
                InDoubt::Applied
            }
        }
        ChangeOp::Unlink { path, to, .. } => {
            if std::fs::symlink_metadata(crate::commit::unlink_temp(&at(path))).is_ok() {
                return InDoubt::Partial;
            }
            match same_file(&at(path), &at(to)) {
                Some(true) => InDoubt::NotApplied,
                Some(false) => InDoubt::Applied,
                None => InDoubt::Unclear(format!("cannot compare `{path}` with `{to}`")),
            }
        }
        // One attribute written in one call: the tags are either the new ones or the old ones.
        ChangeOp::Tag { path, tags, before } => match crate::tags::read(&at(path)) {
            Ok(now) if now == *tags => InDoubt::Applied,
            Ok(now) if now == *before => InDoubt::NotApplied,
            Ok(now) => InDoubt::Unclear(format!(
                "`{path}` has the tags {now:?}, neither {before:?} nor {tags:?}"
            )),
            Err(e) => InDoubt::Unclear(format!("cannot read the tags of `{path}`: {e}")),
        },
        // Into an existing folder: the staging folder is there until every entry is placed.
        ChangeOp::ExtractArchive {
            archive,
            target,
            merge: Some(entries),
        } => {
            let staging = crate::archive::staging_dir(&at(target), &at(archive));
            let placed = entries
                .iter()
                .filter(|e| exists(&format!("{target}/{}", e.to)))
                .count();
            if std::fs::symlink_metadata(&staging).is_ok() {
                InDoubt::Partial
            } else if placed == entries.len() {
                InDoubt::Applied
            } else if placed == 0 {
                InDoubt::NotApplied
            } else {
                InDoubt::Unclear(format!(
                    "{placed} of the {} entries extracted into `{target}` are there",
                    entries.len()
                ))
            }
        }
        // Half-written archives or extractions are removed and redone.
        ChangeOp::CreateArchive { target, .. } | ChangeOp::ExtractArchive { target, .. } => {
            if exists(target) {
                InDoubt::Partial
            } else {
                InDoubt::NotApplied
            }
        }
    }
}

/// Are `a` and `b` one file (same device and inode)? `None` where that cannot be told.
fn same_file(a: &Path, b: &Path) -> Option<bool> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let (ma, mb) = (std::fs::metadata(a).ok()?, std::fs::metadata(b).ok()?);
        Some(ma.dev() == mb.dev() && ma.ino() == mb.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = (a, b);
        None
    }
}

fn clean_partial(root: &Path, op: &ChangeOp) -> std::io::Result<()> {
    if let ChangeOp::ExtractArchive {
        archive,
        target,
        merge: Some(entries),
    } = op
    {
        return crate::archive::undo_extract_into(&root.join(archive), &root.join(target), entries);
    }
    let p = match op {
        // Only an empty placeholder is removed; anything else is left for the person.
        ChangeOp::Restore { path, .. } => {
            let p = root.join(path);
            let meta = std::fs::symlink_metadata(&p)?;
            return if meta.is_dir() {
                std::fs::remove_dir(p)
            } else if meta.len() == 0 {
                std::fs::remove_file(p)
            } else {
                Err(std::io::Error::other(format!(
                    "`{path}` is not the empty placeholder the trash makes"
                )))
            };
        }
        ChangeOp::Unlink { path, .. } => crate::commit::unlink_temp(&root.join(path)),
        ChangeOp::CreateFile { path, .. } => root.join(path),
        ChangeOp::Copy { to, .. } => root.join(to),
        ChangeOp::Hardlink { path, .. } => crate::commit::link_temp(&root.join(path)),
        ChangeOp::CreateArchive { target, .. } | ChangeOp::ExtractArchive { target, .. } => {
            root.join(target)
        }
        _ => return Ok(()),
    };
    if std::fs::symlink_metadata(&p)?.is_dir() {
        std::fs::remove_dir_all(p)
    } else {
        std::fs::remove_file(p)
    }
}

/// What recovery found and did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RecoveryReport {
    pub journal: PathBuf,
    pub root: PathBuf,
    pub total: usize,
    /// Changes applied before the interruption.
    pub done_before: usize,
    /// The change that was running when the commit stopped, and what the disk says about it.
    pub in_doubt: Option<(String, InDoubt)>,
    /// Changes not applied (yet): rendered one-liners.
    pub pending: Vec<String>,
    pub conflicts: Vec<Conflict>,
    /// Changes applied by this recovery.
    pub completed: Option<CommitReport>,
    /// True when everything is applied and the journal is gone.
    pub finished: bool,
}

/// Inspects an interrupted commit's journal; with `complete`, applies the remaining changes.
pub fn recover(path: &Path, complete: bool) -> Result<RecoveryReport> {
    let state = read(path)?;
    let root = state.header.root.clone();
    let mode = state.header.delete_mode;
    let mut pending = state.pending();
    let mut in_doubt = None;
    let mut report = RecoveryReport {
        journal: path.to_owned(),
        root: root.clone(),
        total: state.header.ops.len(),
        done_before: state.done.len(),
        in_doubt: None,
        pending: Vec::new(),
        conflicts: Vec::new(),
        completed: None,
        finished: false,
    };
    if let Some(&first) = pending.first() {
        let op = &state.header.ops[first];
        let verdict = inspect(&root, op);
        in_doubt = Some((op.render(), verdict.clone()));
        if complete {
            match verdict {
                InDoubt::Applied => {
                    Journal::append(path)?.mark_done(first)?;
                    pending.remove(0);
                }
                InDoubt::Partial => clean_partial(&root, op).map_err(|e| {
                    journal_err(path, format!("cleaning up `{}`: {e}", op.render()))
                })?,
                InDoubt::NotApplied => {}
                InDoubt::Unclear(why) => {
                    report.in_doubt = in_doubt;
                    report.pending = pending
                        .iter()
                        .map(|&i| state.header.ops[i].render())
                        .collect();
                    report.conflicts.push(Conflict::TargetExists { path: why });
                    return Ok(report);
                }
            }
        }
    }
    report.in_doubt = in_doubt;
    report.pending = pending
        .iter()
        .map(|&i| state.header.ops[i].render())
        .collect();
    if !complete {
        return Ok(report);
    }
    let remaining: Vec<ChangeOp> = pending
        .iter()
        .map(|&i| state.header.ops[i].clone())
        .collect();
    // Fingerprints were taken before the first change; files the commit already touched are judged
    // by the overlay, the rest must still match.
    let conflicts = precheck(&root, &remaining);
    if !conflicts.is_empty() {
        report.conflicts = conflicts;
        return Ok(report);
    }
    let mut journal = Journal::append(path)?;
    let mut done = CommitReport::default();
    // What each change left behind: unknown for those applied before the interruption.
    let mut after = vec![None; state.header.ops.len()];
    for &i in &pending {
        let op = &state.header.ops[i];
        apply_op(&root, op, mode, state.header.started_at).map_err(|e| {
            SandboxError::CommitFailed {
                index: i,
                op: op.render(),
                message: e.to_string(),
                done: done.applied,
                journal_kept: true,
            }
        })?;
        journal.mark_done(i)?;
        after[i] = crate::history::stat_after(&root, op);
        done.count(op, mode);
    }
    // The history record before the journal goes, so a finished commit always has one.
    let state_dir = path
        .parent()
        .and_then(Path::parent)
        .expect("journals live in <state_dir>/journals");
    let label = state
        .header
        .run
        .clone()
        .unwrap_or_else(|| RunLabel::unnamed(&root));
    match crate::history::record_commit(
        state_dir,
        &root,
        label,
        mode,
        &state.header.ops,
        after,
        state.header.started_at,
    ) {
        Ok(id) => done.run_id = Some(id),
        Err(e) => done.warnings.push(format!("the run cannot be undone: {e}")),
    }
    journal.finish()?;
    report.pending.clear();
    report.completed = Some(done);
    report.finished = true;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::{InDoubt, inspect};
    use crate::graph::ChangeOp;

    #[test]
    fn a_tag_change_in_doubt_is_judged_by_the_tags_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "a").unwrap();
        let op = ChangeOp::Tag {
            path: "a.txt".into(),
            tags: vec!["New".into()],
            before: vec!["Old".into()],
        };
        crate::tags::write(&file, &["Old".to_owned()]).unwrap();
        assert_eq!(inspect(dir.path(), &op), InDoubt::NotApplied);
        crate::tags::write(&file, &["New".to_owned()]).unwrap();
        assert_eq!(inspect(dir.path(), &op), InDoubt::Applied);
        crate::tags::write(&file, &["Other".to_owned()]).unwrap();
        assert!(matches!(inspect(dir.path(), &op), InDoubt::Unclear(why) if why.contains("Other")));
    }
}
