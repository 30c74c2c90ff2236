//! Nodes of the file-system graph: one file, directory or symlink, keyed by its path relative to the root.

use serde::{Deserialize, Serialize};

/// What a node is on disk. Symlinks are recorded, never followed.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum NodeKind {
    File,
    Dir,
    Symlink,
}

impl NodeKind {
    /// What `symlink_metadata` says an entry is.
    pub fn of(meta: &std::fs::Metadata) -> NodeKind {
        if meta.file_type().is_symlink() {
            NodeKind::Symlink
        } else if meta.is_dir() {
            NodeKind::Dir
        } else {
            NodeKind::File
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            NodeKind::File => "file",
            NodeKind::Dir => "dir",
            NodeKind::Symlink => "symlink",
        }
    }
}

/// The on-disk identity of a node at scan time; commit refuses to act if the disk no longer matches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Fingerprint {
    pub kind: NodeKind,
    /// Files only; directories' sizes change with their contents and are not compared.
    pub size: Option<u64>,
    /// Modification time in nanoseconds since the epoch (files and symlinks).
    pub mtime_ns: Option<i64>,
}

/// Where a scanned node lives on disk (inode identity, for hardlink recognition).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Origin {
    pub fingerprint: Fingerprint,
    /// (device, inode) on Unix; `None` where the platform does not say.
    pub inode: Option<(u64, u64)>,
    pub nlink: u64,
}

/// One node of the FileSystemGraph.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// Path relative to the working root with `/` separators; the root itself is `.`.
    pub id: String,
    pub name: String,
    pub kind: NodeKind,
    /// Lower-case extension without the dot (`tar.gz` counts as `gz`).
    pub extension: Option<String>,
    /// Bytes for files, 0 for directories (aggregates are computed on demand).
    pub size: u64,
    /// Seconds since the epoch.
    pub modified_at: Option<i64>,
    /// When the ContentIndex last embedded this node's content (seconds since the epoch).
    pub indexed_at: Option<i64>,
    /// For symlinks: the link's target text as stored on disk.
    pub link_target: Option<String>,
    /// Set for nodes that came from the scan; `None` for nodes the agent created.
    pub origin: Option<Origin>,
    /// True once the agent changed this node (moved, renamed, created, copied) since the scan.
    pub dirty: bool,
    /// Scan-time id of the bytes this node holds: its own for scanned files, the source's for copies,
    /// `None` for files the agent created (their content lives in the change log).
    pub content_from: Option<String>,
}

pub const ROOT_ID: &str = ".";

impl Node {
    pub fn new(id: String, kind: NodeKind) -> Self {
        let name = name_of(&id).to_owned();
        let extension = if kind == NodeKind::File {
            extension_of(&name)
        } else {
            None
        };
        Node {
            id,
            name,
            kind,
            extension,
            size: 0,
            modified_at: None,
            indexed_at: None,
            link_target: None,
            origin: None,
            dirty: false,
            content_from: None,
        }
    }

    pub fn is_dir(&self) -> bool {
        self.kind == NodeKind::Dir
    }

    /// Gives the node a new path (and so a new name and extension).
    pub fn set_id(&mut self, id: String) {
        self.name = name_of(&id).to_owned();
        if self.kind == NodeKind::File {
            self.extension = extension_of(&self.name);
        }
        self.id = id;
    }
}

/// Last path component of an id.
pub fn name_of(id: &str) -> &str {
    if id == ROOT_ID {
        ROOT_ID
    } else {
        id.rsplit('/').next().unwrap_or(id)
    }
}

/// Parent id of an id (`None` for the root).
pub fn parent_of(id: &str) -> Option<&str> {
    if id == ROOT_ID {
        None
    } else {
        Some(id.rfind('/').map_or(ROOT_ID, |i| &id[..i]))
    }
}

/// `child` joined under `parent`.
pub fn join(parent: &str, child: &str) -> String {
    if parent == ROOT_ID {
        child.to_owned()
    } else {
        format!("{parent}/{child}")
    }
}

/// True if `id` is `ancestor` or lies below it.
pub fn is_within(id: &str, ancestor: &str) -> bool {
    ancestor == ROOT_ID
        || id == ancestor
        || (id.starts_with(ancestor) && id.as_bytes().get(ancestor.len()) == Some(&b'/'))
}

/// Lower-case extension of a file name; hidden files without another dot have none.
pub fn extension_of(name: &str) -> Option<String> {
    let stem_start = usize::from(name.starts_with('.'));
    name[stem_start..]
        .rfind('.')
        .map(|i| name[stem_start + i + 1..].to_ascii_lowercase())
        .filter(|e| !e.is_empty())
}

/// Stem (name without the last extension).
pub fn stem_of(name: &str) -> &str {
    let stem_start = usize::from(name.starts_with('.'));
    match name[stem_start..].rfind('.') {
        Some(i) if i > 0 => &name[..stem_start + i],
        _ => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_helpers() {
        assert_eq!(name_of("a/b/c.txt"), "c.txt");
        assert_eq!(parent_of("a/b/c.txt"), Some("a/b"));
        assert_eq!(parent_of("a"), Some("."));
        assert_eq!(parent_of("."), None);
        assert_eq!(join(".", "a"), "a");
        assert_eq!(join("a", "b"), "a/b");
        assert!(is_within("a/b", "a"));
        assert!(!is_within("ab/c", "a"));
        assert!(is_within("anything", "."));
        assert_eq!(extension_of("Photo.JPG").as_deref(), Some("jpg"));
        assert_eq!(extension_of(".bashrc"), None);
        assert_eq!(extension_of(".config.yaml").as_deref(), Some("yaml"));
        assert_eq!(extension_of("archive.tar.gz").as_deref(), Some("gz"));
        assert_eq!(extension_of("trailing."), None);
        assert_eq!(stem_of("report.final.pdf"), "report.final");
        assert_eq!(stem_of(".bashrc"), ".bashrc");
    }
}
