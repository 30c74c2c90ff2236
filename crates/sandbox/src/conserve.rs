//! Nothing lost, proven: before a commit, every file the scan saw is accounted for (its bytes
//! still at one or more paths, in a deletion the person approved, or replaced by a hardlink to
//! identical bytes), by replaying the change log over the scan and checking that the simulated
//! graph agrees with the replay; after the commit, the disk is checked against the graph.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use config::DeleteMode;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::graph::{ChangeOp, FileSystemGraph};
use crate::node::{NodeKind, is_within};

/// Where every scanned file's bytes are after the pending change.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Accounting {
    /// Files the scan saw.
    pub files: usize,
    /// Still at one or more paths.
    pub kept: usize,
    /// In approved deletions going to the system trash.
    pub trashed: usize,
    /// In approved permanent deletions.
    pub deleted: usize,
    /// Replaced by a hardlink to identical bytes.
    pub linked: usize,
    /// Files whose bytes the change would lose without an approved deletion, or where the
    /// simulated graph and the change log disagree: a commit with any is refused.
    pub unaccounted: Vec<String>,
}

impl Accounting {
    /// "342 files accounted for, 3 to the trash".
    pub fn summary(&self) -> String {
        let mut parts = vec![format!(
            "{} file{} accounted for",
            self.files - self.unaccounted.len().min(self.files),
            if self.files == 1 { "" } else { "s" }
        )];
        if self.trashed > 0 {
            parts.push(format!("{} to the trash", self.trashed));
        }
        if self.deleted > 0 {
            parts.push(format!("{} deleted for good", self.deleted));
        }
        if self.linked > 0 {
            parts.push(format!("{} replaced by hardlinks", self.linked));
        }
        parts.join(", ")
    }
}

/// Moves (or copies) every key at or below `from` to the same place below `to`.
fn rekey(map: &mut BTreeMap<String, String>, from: &str, to: &str, keep: bool) {
    let keys: Vec<String> = map
        .range(from.to_owned()..)
        .take_while(|(k, _)| k.starts_with(from))
        .filter(|(k, _)| is_within(k, from))
        .map(|(k, _)| k.clone())
        .collect();
    for k in keys {
        let v = if keep {
            map[&k].clone()
        } else {
            map.remove(&k).expect("listed")
        };
        map.insert(format!("{to}{}", &k[from.len()..]), v);
    }
}

/// Accounts for `scanned` (file id → itself, as the scan saw them) after `changes`, and checks
/// the replay against `graph` (the simulation after the same changes). Pure.
pub fn account(
    scanned: &[String],
    changes: &[ChangeOp],
    graph: &FileSystemGraph,
    delete_mode: DeleteMode,
) -> Accounting {
    let mut at: BTreeMap<String, String> = scanned.iter().map(|s| (s.clone(), s.clone())).collect();
    let mut deleted: HashSet<String> = HashSet::new();
    let mut linked: HashSet<String> = HashSet::new();
    for op in changes {
        match op {
            ChangeOp::Move { from, to, .. } => rekey(&mut at, from, to, false),
            ChangeOp::Copy { from, to, .. } => rekey(&mut at, from, to, true),
            ChangeOp::Delete { path, .. } => {
                let gone: Vec<String> = at
                    .range(path.clone()..)
                    .take_while(|(k, _)| k.starts_with(path.as_str()))
                    .filter(|(k, _)| is_within(k, path))
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in gone {
                    deleted.insert(at.remove(&k).expect("listed"));
                }
            }
            ChangeOp::Hardlink { path, to, .. } => {
                if let (Some(kept), Some(old)) = (at.get(to).cloned(), at.get(path).cloned()) {
                    linked.insert(old);
                    at.insert(path.clone(), kept);
                }
            }
            ChangeOp::CreateDir { .. }
            | ChangeOp::CreateFile { .. }
            | ChangeOp::CreateArchive { .. }
            | ChangeOp::ExtractArchive { .. }
            | ChangeOp::Restore { .. }
            | ChangeOp::RemoveDir { .. }
            | ChangeOp::Unlink { .. }
            | ChangeOp::Tag { .. } => {}
        }
    }
    let present: HashSet<&String> = at.values().collect();
    let mut out = Accounting {
        files: scanned.len(),
        ..Accounting::default()
    };
    for id in scanned {
        if present.contains(id) {
            out.kept += 1;
        } else if deleted.contains(id) {
            match delete_mode {
                DeleteMode::Trash => out.trashed += 1,
                DeleteMode::Permanent => out.deleted += 1,
            }
        } else if linked.contains(id) {
            out.linked += 1;
        } else {
            out.unaccounted.push(format!("`{id}` would be lost"));
        }
    }
    // The simulation must hold what the change log says, where it says.
    for path in at.keys() {
        if graph.node(path).is_none_or(|n| n.kind == NodeKind::Dir) {
            out.unaccounted
                .push(format!("`{path}` is missing from the simulated folder"));
        }
    }
    out
}

/// Checks the disk under `root` after a commit against the simulated graph: every entry the
/// change made or moved is there as the graph has it (files with the graph's size, created files
/// with their exact bytes), and deleted paths are gone. Returns the differences, by path.
pub fn verify_disk(root: &Path, graph: &FileSystemGraph, changes: &[ChangeOp]) -> Vec<String> {
    let mut problems = Vec::new();
    let written: HashMap<&str, &str> = changes
        .iter()
        .filter_map(|op| match op {
            ChangeOp::CreateFile {
                path,
                content: Some(c),
            } => Some((path.as_str(), c.as_str())),
            _ => None,
        })
        .collect();
    for node in graph
        .nodes()
        .filter(|n| n.dirty || n.origin.is_none())
        .filter(|n| n.id != crate::node::ROOT_ID)
    {
        let path = root.join(&node.id);
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            problems.push(format!("`{}` is missing on disk", node.id));
            continue;
        };
        let kind = NodeKind::of(&meta);
        if kind != node.kind {
            problems.push(format!(
                "`{}` is a {} on disk, not a {}",
                node.id,
                kind.as_str(),
                node.kind.as_str()
            ));
            continue;
        }
        if let Some(content) = written.get(node.id.as_str()) {
            let same = std::fs::read(&path)
                .is_ok_and(|bytes| Sha256::digest(&bytes) == Sha256::digest(content.as_bytes()));
            if !same {
                problems.push(format!("`{}` does not hold the bytes written", node.id));
            }
        } else if kind == NodeKind::File && node.content_from.is_some() && meta.len() != node.size {
            problems.push(format!(
                "`{}` is {} bytes on disk, {} expected",
                node.id,
                meta.len(),
                node.size
            ));
        }
    }
    for op in changes {
        if let ChangeOp::Delete { path, .. } | ChangeOp::RemoveDir { path } = op
            && !graph.contains(path)
            && std::fs::symlink_metadata(root.join(path)).is_ok()
        {
            problems.push(format!("`{path}` is still on disk"));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::node::{Node, ROOT_ID};

    fn graph(files: &[&str]) -> FileSystemGraph {
        let mut nodes = Vec::new();
        let mut dirs = HashSet::new();
        for f in files {
            let mut at = *f;
            while let Some(p) = crate::node::parent_of(at).filter(|p| *p != ROOT_ID) {
                if dirs.insert(p.to_owned()) {
                    nodes.push(Node::new(p.to_owned(), NodeKind::Dir));
                }
                at = p;
            }
            let mut n = Node::new((*f).to_owned(), NodeKind::File);
            n.content_from = Some((*f).to_owned());
            nodes.push(n);
        }
        FileSystemGraph::from_nodes(Node::new(ROOT_ID.to_owned(), NodeKind::Dir), nodes)
    }

    fn mv(from: &str, to: &str) -> ChangeOp {
        ChangeOp::file_move(from, to)
    }

    fn del(path: &str) -> ChangeOp {
        ChangeOp::Delete {
            path: path.into(),
            kind: NodeKind::File,
            size: 1,
            expect: None,
        }
    }

    #[test]
    fn moves_copies_deletes_and_links_are_accounted_for() {
        let scanned = ["a", "b", "c", "d"].map(String::from);
        let after = graph(&["x/a", "b", "b2", "d"]);
        let ops = [
            mv("a", "x/a"),
            ChangeOp::Copy {
                from: "b".into(),
                to: "b2".into(),
                kind: NodeKind::File,
                expect: None,
            },
            del("c"),
            ChangeOp::Hardlink {
                path: "d".into(),
                to: "b".into(),
                size: 1,
                expect: None,
                expect_to: None,
            },
        ];
        let a = account(&scanned, &ops, &after, DeleteMode::Trash);
        assert_eq!((a.files, a.kept, a.trashed, a.linked), (4, 2, 1, 1));
        assert!(a.unaccounted.is_empty(), "{a:?}");
        assert_eq!(
            a.summary(),
            "4 files accounted for, 1 to the trash, 1 replaced by hardlinks"
        );
    }

    #[test]
    fn a_file_the_simulation_dropped_without_a_recorded_deletion_is_unaccounted() {
        let scanned = ["a", "b"].map(String::from);
        // The graph lost `b`, but no change says so.
        let a = account(
            &scanned,
            &[mv("a", "x/a")],
            &graph(&["x/a"]),
            DeleteMode::Trash,
        );
        assert_eq!(a.unaccounted, ["`b` is missing from the simulated folder"]);
        // A move whose target the simulation does not hold.
        let a = account(
            &scanned,
            &[mv("a", "y/a")],
            &graph(&["x/a", "b"]),
            DeleteMode::Trash,
        );
        assert_eq!(
            a.unaccounted,
            ["`y/a` is missing from the simulated folder"]
        );
    }
}
