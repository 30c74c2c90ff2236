//! The approved change is a hard limit: a commit writes only changes the person saw in the final
//! review (the same operations on the same paths, no more of them), whatever a later step or a bug
//! below the planner produced; and no change ever touches a protected place (`.git` folders and
//! the config's `protected_paths`, the app's own state folder, the system trash).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

use crate::graph::ChangeOp;
use crate::node::{ROOT_ID, parent_of};

/// What the person approved at the final review: exactly these changes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Approval {
    ops: Vec<ChangeOp>,
}

impl Approval {
    /// The changes shown in the review that was approved.
    pub fn of(ops: &[ChangeOp]) -> Approval {
        Approval { ops: ops.to_vec() }
    }

    /// Every change in `ops` the approval does not cover (each approved change covers one).
    pub(crate) fn exceeded_by(&self, ops: &[ChangeOp]) -> Vec<String> {
        let key = |op: &ChangeOp| serde_json::to_string(op).expect("a change serialises");
        let mut left: HashMap<String, usize> = HashMap::new();
        for op in &self.ops {
            *left.entry(key(op)).or_default() += 1;
        }
        let mut out = Vec::new();
        for op in ops {
            match left.get_mut(&key(op)) {
                Some(n) if *n > 0 => *n -= 1,
                _ => out.push(format!("{} was not approved", op.render())),
            }
        }
        out
    }
}

/// The paths a change writes, removes or replaces (sources it only reads are not listed).
fn touched(op: &ChangeOp) -> Vec<&str> {
    match op {
        ChangeOp::Move { from, to, .. } => vec![from, to],
        ChangeOp::Copy { to, .. } => vec![to],
        ChangeOp::CreateArchive { target, .. } | ChangeOp::ExtractArchive { target, .. } => {
            vec![target]
        }
        ChangeOp::CreateDir { path }
        | ChangeOp::CreateFile { path, .. }
        | ChangeOp::Delete { path, .. }
        | ChangeOp::Hardlink { path, .. }
        | ChangeOp::Restore { path, .. }
        | ChangeOp::RemoveDir { path }
        | ChangeOp::Unlink { path, .. }
        | ChangeOp::Tag { path, .. } => vec![path],
    }
}

/// The places no change may touch under one root.
#[derive(Debug, Clone)]
pub struct Protected {
    globs: GlobSet,
    /// Absolute places (the app's state folder, the system trash).
    places: Vec<PathBuf>,
}

impl Protected {
    /// `patterns` are globs relative to the root (a bad one is reported, not ignored).
    pub fn new(patterns: &[String], places: Vec<PathBuf>) -> Result<Protected, String> {
        let mut b = GlobSetBuilder::new();
        for p in patterns {
            b.add(Glob::new(p).map_err(|e| format!("protected path `{p}`: {e}"))?);
        }
        Ok(Protected {
            globs: b.build().map_err(|e| e.to_string())?,
            places,
        })
    }

    fn covers(&self, root: &Path, id: &str) -> bool {
        let mut at = Some(id);
        while let Some(p) = at.filter(|p| *p != ROOT_ID) {
            if self.globs.is_match(p) {
                return true;
            }
            at = parent_of(p);
        }
        let abs = root.join(id);
        self.places.iter().any(|place| abs.starts_with(place))
    }

    /// Every change in `ops` that touches a protected place, named.
    pub(crate) fn violations(&self, root: &Path, ops: &[ChangeOp]) -> Vec<String> {
        ops.iter()
            .filter_map(|op| {
                touched(op)
                    .into_iter()
                    .find(|p| self.covers(root, p))
                    .map(|p| format!("{} touches `{p}`, which is protected", op.render()))
            })
            .collect()
    }
}

/// The system trash folders a change under `root` could reach (freedesktop: the home trash and
/// `.Trash`/`.Trash-<uid>` folders; matched by name below the root).
pub fn trash_places() -> Vec<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::home_dir().map(|h| h.join(".local/share")));
    data.map(|d| vec![d.join("Trash")]).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mv(from: &str, to: &str) -> ChangeOp {
        ChangeOp::file_move(from, to)
    }

    #[test]
    fn only_approved_changes_pass_each_once() {
        let approval = Approval::of(&[mv("a", "b")]);
        assert!(approval.exceeded_by(&[mv("a", "b")]).is_empty());
        assert_eq!(
            approval.exceeded_by(&[mv("a", "b"), mv("a", "b"), mv("c", "d")]),
            [
                "~ move   a -> b was not approved",
                "~ move   c -> d was not approved"
            ]
        );
    }

    #[test]
    fn git_folders_globs_and_absolute_places_are_protected() {
        let root = Path::new("/r");
        let p = Protected::new(
            &["**/.git".to_owned(), "keep/*.db".to_owned()],
            vec![PathBuf::from("/r/.state")],
        )
        .unwrap();
        let bad = p.violations(
            root,
            &[
                mv("src/.git/HEAD", "HEAD"),
                mv("a", ".git"),
                mv("keep/x.db", "x.db"),
                mv(".state/audit.sqlite", "a.sqlite"),
                mv("ok.txt", "fine.txt"),
            ],
        );
        assert_eq!(bad.len(), 4, "{bad:?}");
        assert!(bad[0].contains("`src/.git/HEAD`"));
        assert!(Protected::new(&["[".to_owned()], vec![]).is_err());
    }
}
