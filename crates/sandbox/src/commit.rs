//! Commit: the only place the sandbox writes to disk.
//!
//! Before touching anything, every staged change is checked against the disk as it is now, through
//! a virtual overlay that replays the changes in order (so "move a into the folder created two steps
//! earlier" is judged correctly). Any conflict stops the commit with nothing changed. Then the changes
//! are applied in order, each recorded in the journal (see `journal.rs`) so a crash can be finished.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use config::DeleteMode;
use serde::{Deserialize, Serialize};

use crate::graph::ChangeOp;
use crate::node::{Fingerprint, NodeKind, ROOT_ID, is_within, parent_of};
use crate::scan::fingerprint;

/// Why a change cannot be applied safely.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Conflict {
    /// The file on disk is not the one the scan saw (edited, replaced, resized).
    ChangedSinceScan {
        path: String,
        expected: String,
        found: String,
    },
    /// The source is gone from disk.
    SourceMissing { path: String },
    /// Something already sits where the change would put a file.
    TargetExists { path: String },
    /// The folder the change writes into does not exist (or is not a folder).
    ParentMissing { path: String },
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Conflict::ChangedSinceScan {
                path,
                expected,
                found,
            } => {
                write!(
                    f,
                    "`{path}` changed on disk since the scan (expected {expected}, found {found})"
                )
            }
            Conflict::SourceMissing { path } => write!(f, "`{path}` no longer exists on disk"),
            Conflict::TargetExists { path } => write!(
                f,
                "`{path}` already exists on disk; it would be overwritten"
            ),
            Conflict::ParentMissing { path } => {
                write!(f, "the folder for `{path}` does not exist on disk")
            }
        }
    }
}

fn describe(fp: &Fingerprint) -> String {
    match (fp.kind, fp.size) {
        (NodeKind::Dir, _) => "a folder".into(),
        (NodeKind::Symlink, _) => "a symlink".into(),
        (NodeKind::File, Some(size)) => format!(
            "a {size}-byte file modified at {}ns",
            fp.mtime_ns.unwrap_or(0)
        ),
        (NodeKind::File, None) => "a file".into(),
    }
}

fn same(expect: &Fingerprint, found: &Fingerprint) -> bool {
    expect.kind == found.kind
        && (expect.kind == NodeKind::Dir
            || (expect.size == found.size && expect.mtime_ns == found.mtime_ns))
}

/// What a path is in the overlay.
#[derive(Debug, Clone, PartialEq, Eq)]
enum VState {
    Absent,
    /// On disk at this root-relative path (possibly under another name, after a move).
    OnDisk {
        at: String,
        fingerprint: Fingerprint,
    },
    /// Made by this commit.
    Created {
        kind: NodeKind,
    },
}

impl VState {
    fn kind(&self) -> Option<NodeKind> {
        match self {
            VState::Absent => None,
            VState::OnDisk { fingerprint, .. } => Some(fingerprint.kind),
            VState::Created { kind } => Some(*kind),
        }
    }
}

#[derive(Debug, Clone)]
enum Entry {
    Absent,
    Alias(VState),
}

/// The disk as it will be after the changes replayed so far.
struct Overlay<'a> {
    root: &'a Path,
    entries: HashMap<String, Entry>,
    /// The system trash's item ids, listed once when a change restores from it.
    trash: std::cell::OnceCell<Vec<crate::history::TrashedEntry>>,
}

fn disk_path(root: &Path, id: &str) -> PathBuf {
    if id == ROOT_ID {
        root.to_owned()
    } else {
        root.join(id)
    }
}

impl<'a> Overlay<'a> {
    fn new(root: &'a Path) -> Self {
        Overlay {
            root,
            entries: HashMap::new(),
            trash: std::cell::OnceCell::new(),
        }
    }

    fn disk(&self, id: &str) -> VState {
        match std::fs::symlink_metadata(disk_path(self.root, id)) {
            Ok(meta) => VState::OnDisk {
                at: id.to_owned(),
                fingerprint: fingerprint(&meta),
            },
            Err(_) => VState::Absent,
        }
    }

    fn lookup(&self, id: &str) -> VState {
        let mut cur = id;
        loop {
            if let Some(entry) = self.entries.get(cur) {
                let suffix = &id[cur.len()..];
                return match entry {
                    Entry::Absent => VState::Absent,
                    Entry::Alias(state) if suffix.is_empty() => state.clone(),
                    Entry::Alias(VState::OnDisk { at, .. }) => {
                        let inner = if at == ROOT_ID {
                            suffix.trim_start_matches('/').to_owned()
                        } else {
                            format!("{at}{suffix}")
                        };
                        self.disk(&inner)
                    }
                    // Inside a folder this commit created, only explicitly created entries exist.
                    Entry::Alias(_) => VState::Absent,
                };
            }
            match parent_of(cur) {
                Some(p) => cur = p,
                None => return self.disk(id),
            }
        }
    }

    fn is_dir(&self, id: &str) -> bool {
        self.lookup(id).kind() == Some(NodeKind::Dir)
    }

    /// Moves every entry at or below `from` to the same place under `to`.
    fn rekey(&mut self, from: &str, to: &str, keep_source: bool) {
        let keys: Vec<String> = self
            .entries
            .keys()
            .filter(|k| is_within(k, from))
            .cloned()
            .collect();
        for k in keys {
            let e = if keep_source {
                self.entries[&k].clone()
            } else {
                self.entries.remove(&k).expect("key listed")
            };
            self.entries.insert(format!("{to}{}", &k[from.len()..]), e);
        }
    }

    fn clear_below(&mut self, id: &str) {
        self.entries.retain(|k, _| !is_within(k, id));
    }

    fn source(
        &self,
        path: &str,
        expect: Option<&Fingerprint>,
        out: &mut Vec<Conflict>,
    ) -> Option<VState> {
        let s = self.lookup(path);
        match &s {
            VState::Absent => {
                out.push(Conflict::SourceMissing {
                    path: path.to_owned(),
                });
                return None;
            }
            VState::OnDisk {
                fingerprint: found, ..
            } => {
                if let Some(exp) = expect
                    && !same(exp, found)
                {
                    out.push(Conflict::ChangedSinceScan {
                        path: path.to_owned(),
                        expected: describe(exp),
                        found: describe(found),
                    });
                }
            }
            VState::Created { .. } => {}
        }
        Some(s)
    }

    fn target(&self, path: &str, out: &mut Vec<Conflict>) -> bool {
        let mut ok = true;
        if self.lookup(path) != VState::Absent {
            out.push(Conflict::TargetExists {
                path: path.to_owned(),
            });
            ok = false;
        }
        if !self.is_dir(parent_of(path).unwrap_or(ROOT_ID)) {
            out.push(Conflict::ParentMissing {
                path: path.to_owned(),
            });
            ok = false;
        }
        ok
    }

    fn apply(&mut self, op: &ChangeOp, out: &mut Vec<Conflict>) {
        match op {
            ChangeOp::CreateDir { path } => {
                if self.target(path, out) {
                    self.entries.insert(
                        path.clone(),
                        Entry::Alias(VState::Created {
                            kind: NodeKind::Dir,
                        }),
                    );
                }
            }
            ChangeOp::CreateFile { path, .. } => {
                if self.target(path, out) {
                    self.entries.insert(
                        path.clone(),
                        Entry::Alias(VState::Created {
                            kind: NodeKind::File,
                        }),
                    );
                }
            }
            ChangeOp::Move {
                from, to, expect, ..
            } => {
                let s = self.source(from, expect.as_ref(), out);
                if self.target(to, out)
                    && let Some(s) = s
                {
                    self.rekey(from, to, false);
                    self.entries.entry(to.clone()).or_insert(Entry::Alias(s));
                    self.entries.insert(from.clone(), Entry::Absent);
                }
            }
            ChangeOp::Copy {
                from, to, expect, ..
            } => {
                let s = self.source(from, expect.as_ref(), out);
                if self.target(to, out)
                    && let Some(s) = s
                {
                    self.rekey(from, to, true);
                    self.entries.entry(to.clone()).or_insert(Entry::Alias(s));
                }
            }
            ChangeOp::CreateArchive {
                sources, target, ..
            } => {
                let mut ok = true;
                for s in sources {
                    ok &= self.source(s, None, out).is_some();
                }
                if self.target(target, out) && ok {
                    self.entries.insert(
                        target.clone(),
                        Entry::Alias(VState::Created {
                            kind: NodeKind::File,
                        }),
                    );
                }
            }
            ChangeOp::ExtractArchive {
                archive,
                target,
                merge: Some(entries),
            } => {
                // The folder must still be there, and every name an entry takes still free.
                let s = self.source(archive, None, out);
                let folder = self.source(target, None, out).is_some();
                if s.is_some() && folder {
                    for e in entries {
                        let to = crate::node::join(target, &e.to);
                        if self.target(&to, out) {
                            let kind = if e.is_dir {
                                NodeKind::Dir
                            } else {
                                NodeKind::File
                            };
                            self.entries
                                .insert(to, Entry::Alias(VState::Created { kind }));
                        }
                    }
                }
            }
            ChangeOp::ExtractArchive {
                archive, target, ..
            } => {
                let s = self.source(archive, None, out);
                if self.target(target, out) && s.is_some() {
                    self.entries.insert(
                        target.clone(),
                        Entry::Alias(VState::Created {
                            kind: NodeKind::Dir,
                        }),
                    );
                }
            }
            ChangeOp::Delete { path, expect, .. } => {
                if self.source(path, expect.as_ref(), out).is_some() {
                    self.clear_below(path);
                    self.entries.insert(path.clone(), Entry::Absent);
                }
            }
            // Both files must be there as scanned; `path` stays (as a link).
            ChangeOp::Hardlink {
                path,
                to,
                expect,
                expect_to,
                ..
            } => {
                self.source(path, expect.as_ref(), out);
                self.source(to, expect_to.as_ref(), out);
            }
            ChangeOp::Restore {
                path,
                kind,
                trashed,
                ..
            } => {
                if self.target(path, out) {
                    let trash = self.trash.get_or_init(crate::trash_can::list);
                    if !crate::trash_can::contains(trashed, trash) {
                        out.push(Conflict::SourceMissing {
                            path: format!("{path} (in the trash)"),
                        });
                    }
                    self.entries
                        .insert(path.clone(), Entry::Alias(VState::Created { kind: *kind }));
                }
            }
            ChangeOp::RemoveDir { path } => {
                if let Some(s) = self.source(path, None, out) {
                    if s.kind() == Some(NodeKind::Dir) {
                        self.clear_below(path);
                        self.entries.insert(path.clone(), Entry::Absent);
                    } else {
                        out.push(Conflict::ChangedSinceScan {
                            path: path.clone(),
                            expected: "a folder".into(),
                            found: "not a folder".into(),
                        });
                    }
                }
            }
            ChangeOp::Unlink { path, to, .. } => {
                self.source(path, None, out);
                self.source(to, None, out);
            }
            ChangeOp::Tag { path, .. } => {
                self.source(path, None, out);
            }
        }
    }
}

/// Checks `ops` against the disk under `root`; empty when the commit can go ahead.
pub fn precheck(root: &Path, ops: &[ChangeOp]) -> Vec<Conflict> {
    let mut overlay = Overlay::new(root);
    let mut conflicts = Vec::new();
    for op in ops {
        overlay.apply(op, &mut conflicts);
    }
    conflicts.dedup();
    conflicts
}

/// What a finished commit did, in numbers.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct CommitReport {
    pub applied: usize,
    pub created: usize,
    pub moved: usize,
    pub copied: usize,
    pub deleted: usize,
    /// Files replaced by a hardlink to an identical file.
    #[serde(default)]
    pub linked: usize,
    /// Deletes that went to the system trash (the rest were permanent).
    pub trashed: usize,
    /// Entries brought back from the system trash (an undo).
    #[serde(default)]
    pub restored: usize,
    /// Empty folders removed (an undo of folders a run created).
    #[serde(default)]
    pub removed_folders: usize,
    /// Files that were hardlinks and got their own copy back (an undo).
    #[serde(default)]
    pub unlinked: usize,
    /// Files whose tags were set.
    #[serde(default)]
    pub tagged: usize,
    /// The history record of this commit (`scope-weaver undo RUN_ID`); `None` when it could not
    /// be written (then `warnings` says why).
    #[serde(default)]
    pub run_id: Option<String>,
    /// Problems after the changes were made (the disk is changed; these do not undo it).
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Where every file the scan saw went (checked before the first change).
    #[serde(default)]
    pub accounting: Option<crate::conserve::Accounting>,
    /// The disk was checked against the simulated graph after the commit and matched.
    #[serde(default)]
    pub verified: bool,
    pub freed_bytes: u64,
    pub journal: Option<PathBuf>,
}

impl CommitReport {
    pub fn count(&mut self, op: &ChangeOp, delete_mode: DeleteMode) {
        self.applied += 1;
        match op {
            ChangeOp::CreateDir { .. }
            | ChangeOp::CreateFile { .. }
            | ChangeOp::CreateArchive { .. }
            | ChangeOp::ExtractArchive { .. } => self.created += 1,
            ChangeOp::Move { .. } => self.moved += 1,
            ChangeOp::Copy { .. } => self.copied += 1,
            ChangeOp::Hardlink { size, .. } => {
                self.linked += 1;
                self.freed_bytes += size;
            }
            ChangeOp::Restore { .. } => self.restored += 1,
            ChangeOp::RemoveDir { .. } => self.removed_folders += 1,
            ChangeOp::Unlink { .. } => self.unlinked += 1,
            ChangeOp::Tag { .. } => self.tagged += 1,
            ChangeOp::Delete { size, .. } => {
                self.deleted += 1;
                self.freed_bytes += size;
                if delete_mode == DeleteMode::Trash {
                    self.trashed += 1;
                }
            }
        }
    }
}

/// Applies one change to the disk. Never overwrites: a target that appeared since the precheck fails.
pub fn apply_op(
    root: &Path,
    op: &ChangeOp,
    delete_mode: DeleteMode,
    started_at: i64,
) -> std::io::Result<()> {
    use std::io::{Error, ErrorKind, Write};
    let exists_err = |p: &Path| {
        Error::new(
            ErrorKind::AlreadyExists,
            format!("{} already exists", p.display()),
        )
    };
    let free = |p: &Path| -> std::io::Result<()> {
        match std::fs::symlink_metadata(p) {
            Ok(_) => Err(exists_err(p)),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(e),
        }
    };
    match op {
        ChangeOp::CreateDir { path } => std::fs::create_dir(disk_path(root, path)),
        ChangeOp::CreateFile { path, content } => {
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(disk_path(root, path))?;
            if let Some(c) = content {
                f.write_all(c.as_bytes())?;
            }
            f.sync_all()
        }
        ChangeOp::Move { from, to, .. } => {
            let (src, dst) = (disk_path(root, from), disk_path(root, to));
            free(&dst)?;
            match std::fs::rename(&src, &dst) {
                Ok(()) => Ok(()),
                // Across file systems: copy, then remove the original.
                Err(e) if e.raw_os_error() == Some(18) => {
                    copy_tree(&src, &dst)?;
                    remove_tree(&src)
                }
                Err(e) => Err(e),
            }
        }
        ChangeOp::Copy { from, to, .. } => {
            let dst = disk_path(root, to);
            free(&dst)?;
            copy_tree(&disk_path(root, from), &dst)
        }
        ChangeOp::CreateArchive {
            sources,
            target,
            format,
            level,
        } => crate::archive::create(root, sources, &disk_path(root, target), *format, *level),
        ChangeOp::ExtractArchive {
            archive,
            target,
            merge,
        } => {
            let format = crate::archive::ArchiveFormat::from_name(archive)
                .ok_or_else(|| Error::other(format!("{archive} is not a known archive type")))?;
            let (archive, target) = (disk_path(root, archive), disk_path(root, target));
            match merge {
                None => crate::archive::extract(&archive, &target, format),
                Some(entries) => crate::archive::extract_into(&archive, &target, format, entries),
            }
        }
        ChangeOp::Hardlink { path, to, .. } => {
            // Link under a temporary name, then rename it over `path`: atomic, and `path`
            // never goes missing.
            let (p, kept) = (disk_path(root, path), disk_path(root, to));
            let tmp = link_temp(&p);
            free(&tmp)?;
            std::fs::hard_link(&kept, &tmp)?;
            std::fs::rename(&tmp, &p).inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
        }
        ChangeOp::Restore { path, trashed, .. } => {
            let dst = disk_path(root, path);
            free(&dst)?;
            crate::trash_can::restore(trashed)
        }
        ChangeOp::RemoveDir { path } => std::fs::remove_dir(disk_path(root, path)),
        ChangeOp::Tag { path, tags, .. } => crate::tags::write(&disk_path(root, path), tags),
        ChangeOp::Unlink { path, mtime_ns, .. } => {
            // Copy the shared bytes under a temporary name, then rename it over `path`: atomic,
            // and `path` never goes missing.
            let p = disk_path(root, path);
            let tmp = unlink_temp(&p);
            free(&tmp)?;
            let written = (|| {
                let meta = std::fs::metadata(&p)?;
                let mut input = std::fs::File::open(&p)?;
                let mut output = std::fs::OpenOptions::new()
                    .write(true)
                    .create_new(true)
                    .open(&tmp)?;
                std::io::copy(&mut input, &mut output)?;
                output.set_permissions(meta.permissions())?;
                if let Some(ns) = mtime_ns {
                    let at = std::time::UNIX_EPOCH
                        + std::time::Duration::from_nanos(u64::try_from(*ns).unwrap_or(0));
                    output.set_modified(at)?;
                }
                output.sync_all()?;
                std::fs::rename(&tmp, &p)
            })();
            written.inspect_err(|_| {
                let _ = std::fs::remove_file(&tmp);
            })
        }
        ChangeOp::Delete { path, .. } => {
            let p = disk_path(root, path);
            std::fs::symlink_metadata(&p)?;
            match delete_mode {
                DeleteMode::Trash => crate::trash_can::delete(&p, started_at),
                DeleteMode::Permanent => remove_tree(&p),
            }
        }
    }
}

/// The temporary name a hardlink is made under before it replaces `path`.
pub(crate) fn link_temp(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".sw-link");
    path.with_file_name(name)
}

/// The temporary name a hardlink's own copy is written under before it replaces `path`.
pub(crate) fn unlink_temp(path: &Path) -> PathBuf {
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".sw-unlink");
    path.with_file_name(name)
}

fn remove_tree(p: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(p)?.is_dir() {
        std::fs::remove_dir_all(p)
    } else {
        std::fs::remove_file(p)
    }
}

/// Copies a file, symlink or folder tree; never overwrites.
pub fn copy_tree(src: &Path, dst: &Path) -> std::io::Result<()> {
    let meta = std::fs::symlink_metadata(src)?;
    let ft = meta.file_type();
    if ft.is_symlink() {
        let target = std::fs::read_link(src)?;
        #[cfg(unix)]
        return std::os::unix::fs::symlink(target, dst);
        #[cfg(not(unix))]
        return Err(std::io::Error::other(format!(
            "cannot copy symlink to {}",
            target.display()
        )));
    }
    if ft.is_dir() {
        std::fs::create_dir(dst)?;
        for entry in std::fs::read_dir(src)? {
            let entry = entry?;
            copy_tree(&entry.path(), &dst.join(entry.file_name()))?;
        }
        return Ok(());
    }
    let mut input = std::fs::File::open(src)?;
    let mut output = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(dst)?;
    std::io::copy(&mut input, &mut output)?;
    output.set_permissions(meta.permissions())?;
    output.sync_all()
}
