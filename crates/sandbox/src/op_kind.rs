//! What each kind of change is called and how it is drawn, in one table: the diff line's sigil
//! and verb (`ChangeOp::render`), the words a count of them takes, the heading, icon and emphasis
//! the windows give a group of them (generated into `ui/src/generated/op-kinds.json`).

use serde::Serialize;

use crate::graph::ChangeOp;

/// One kind of change (a `ChangeOp` variant).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct OpKind {
    /// The change's `op` tag in JSON.
    pub op: &'static str,
    /// The diff line's first character: `+` adds, `-` removes, `~` moves, `=` relinks.
    pub sigil: char,
    /// The diff line's verb.
    pub verb: &'static str,
    /// A group's heading ("Move").
    pub title: &'static str,
    /// One of them ("move"), and several ("moves").
    pub noun: &'static str,
    pub noun_plural: &'static str,
    /// The windows' icon for it.
    pub icon: &'static str,
    /// Loses data unless undone (deletions): shown first, highlighted, approved apart.
    pub destructive: bool,
}

const fn kind(
    op: &'static str,
    sigil: char,
    verb: &'static str,
    title: &'static str,
    (noun, noun_plural): (&'static str, &'static str),
    icon: &'static str,
    destructive: bool,
) -> OpKind {
    OpKind {
        op,
        sigil,
        verb,
        title,
        noun,
        noun_plural,
        icon,
        destructive,
    }
}

/// Every kind of change, in the order a list of changes groups them.
#[rustfmt::skip]
pub const OP_KINDS: &[OpKind] = &[
    kind("delete", '-', "delete", "Delete", ("deletion", "deletions"), "trash", true),
    kind("hardlink", '=', "link", "Replace by hardlink", ("hardlink", "hardlinks"), "link", false),
    kind("move", '~', "move", "Move", ("move", "moves"), "move", false),
    kind("copy", '+', "copy", "Copy", ("copy", "copies"), "copy", false),
    kind("create_dir", '+', "mkdir", "Create folder", ("new folder", "new folders"), "folder", false),
    kind("create_file", '+', "create", "Create file", ("new file", "new files"), "file", false),
    kind("create_archive", '+', "archive", "Create archive", ("archive", "archives"), "archive", false),
    kind("extract_archive", '+', "extract", "Extract archive", ("extraction", "extractions"), "archive", false),
    kind("restore", '+', "restore", "Restore from the trash", ("restore", "restores"), "file", false),
    kind("unlink", '=', "unlink", "Give back its own copy", ("unlink", "unlinks"), "link", false),
    kind("remove_dir", '-', "rmdir", "Remove empty folder", ("removed folder", "removed folders"), "folder", false),
    kind("tag", '#', "tag", "Tag", ("tagged file", "tagged files"), "tag", false),
];

impl ChangeOp {
    /// This change's kind: its words, sigil and icon.
    pub fn kind(&self) -> &'static OpKind {
        let op = match self {
            ChangeOp::Delete { .. } => "delete",
            ChangeOp::Hardlink { .. } => "hardlink",
            ChangeOp::Move { .. } => "move",
            ChangeOp::Copy { .. } => "copy",
            ChangeOp::CreateDir { .. } => "create_dir",
            ChangeOp::CreateFile { .. } => "create_file",
            ChangeOp::CreateArchive { .. } => "create_archive",
            ChangeOp::ExtractArchive { .. } => "extract_archive",
            ChangeOp::Restore { .. } => "restore",
            ChangeOp::Unlink { .. } => "unlink",
            ChangeOp::RemoveDir { .. } => "remove_dir",
            ChangeOp::Tag { .. } => "tag",
        };
        OP_KINDS
            .iter()
            .find(|k| k.op == op)
            .expect("every ChangeOp variant has a kind")
    }
}

/// "3 deletions · 4 moves · 1 new folder": how many changes of each kind, in `OP_KINDS` order.
pub fn count_text(ops: &[ChangeOp]) -> String {
    OP_KINDS
        .iter()
        .filter_map(|k| {
            let n = ops.iter().filter(|op| op.kind().op == k.op).count();
            (n > 0).then(|| format!("{n} {}", if n == 1 { k.noun } else { k.noun_plural }))
        })
        .collect::<Vec<_>>()
        .join(" · ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_the_json_tag_of_its_change() {
        let ops: Vec<ChangeOp> = vec![
            ChangeOp::CreateDir { path: "a".into() },
            ChangeOp::file_move("a", "b"),
            ChangeOp::RemoveDir { path: "a".into() },
        ];
        for op in &ops {
            let json = serde_json::to_value(op).unwrap();
            assert_eq!(json["op"], op.kind().op);
        }
        let tags: std::collections::BTreeSet<&str> = OP_KINDS.iter().map(|k| k.op).collect();
        assert_eq!(tags.len(), OP_KINDS.len(), "one row per kind");
        assert_eq!(
            count_text(&[ops[0].clone(), ops[1].clone(), ops[1].clone()]),
            "2 moves · 1 new folder"
        );
    }
}
