//! The graph window's view of the sandbox: the visible part of the tree (expanded folders only,
//! long folders cut to a `+N files` node), each node's before/after status from the pending
//! changes, and a deterministic box-packing layout. Pure: reads the graph and the change log.

use std::collections::{BTreeSet, HashMap, HashSet};

use serde::Serialize;

use crate::graph::{Change, ChangeOp, FileSystemGraph};
use crate::node::{NodeKind, ROOT_ID, name_of, parent_of};

/// Width and height of a leaf's cell (icon plus a two-line label).
const CELL_W: f64 = 120.0;
const CELL_H: f64 = 84.0;
/// Space between a folder's border and its children, and above them for the folder's label.
const PAD: f64 = 24.0;
const HEADER: f64 = 28.0;

/// What the window asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewOptions {
    /// Folders whose children are shown (the root always is).
    pub expanded: BTreeSet<String>,
    /// Most children listed per folder; the rest become one `more` node.
    pub limit: usize,
    /// Also expand every folder that holds a pending change.
    pub expand_changed: bool,
}

impl Default for ViewOptions {
    fn default() -> Self {
        ViewOptions {
            expanded: BTreeSet::new(),
            limit: 60,
            expand_changed: true,
        }
    }
}

/// A node's state relative to the scan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ViewStatus {
    Unchanged,
    Added,
    Moved,
    /// Gone in the plan; shown as a ghost where it was.
    Deleted,
    /// A folder with a pending change somewhere below it, or a file replaced by a hardlink.
    Changed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ViewKind {
    Dir,
    File,
    Symlink,
    /// Stands for the children of a folder beyond the limit.
    More,
}

/// One visible node. Positions are the centre of the node's box in layout units.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct ViewNode {
    pub id: String,
    pub parent: Option<String>,
    pub label: String,
    pub kind: ViewKind,
    pub ext: Option<String>,
    /// Bytes: the file's, or everything below a folder.
    pub size: u64,
    /// Files below a folder (all depths); for `more`, how many children it stands for.
    pub files: u64,
    pub expanded: bool,
    pub status: ViewStatus,
    /// Where a moved node was at the scan.
    pub from: Option<String>,
    pub x: f64,
    pub y: f64,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct Totals {
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct TreeView {
    pub root_path: String,
    pub total: Totals,
    /// Parents before their children.
    pub nodes: Vec<ViewNode>,
}

/// What the pending changes did, per path.
#[derive(Debug, Default)]
struct Statuses {
    added: HashSet<String>,
    /// Destination → where it was at the scan.
    moved: HashMap<String, String>,
    linked: HashSet<String>,
    /// Deleted paths (as they were when deleted) with kind and size.
    deleted: Vec<(String, NodeKind, u64)>,
}

impl Statuses {
    fn from_changes(changes: &[Change]) -> Statuses {
        let mut s = Statuses::default();
        for change in changes {
            match &change.op {
                ChangeOp::CreateDir { path }
                | ChangeOp::CreateFile { path, .. }
                | ChangeOp::Restore { path, .. } => {
                    s.added.insert(path.clone());
                }
                ChangeOp::RemoveDir { path } => {
                    if !s.added.remove(path) {
                        s.moved.remove(path);
                        s.deleted.push((path.clone(), NodeKind::Dir, 0));
                    }
                }
                ChangeOp::Copy { to, .. } => {
                    s.added.insert(to.clone());
                }
                ChangeOp::CreateArchive { target, .. } => {
                    s.added.insert(target.clone());
                }
                ChangeOp::ExtractArchive {
                    target,
                    merge: None,
                    ..
                } => {
                    s.added.insert(target.clone());
                }
                ChangeOp::ExtractArchive {
                    target,
                    merge: Some(entries),
                    ..
                } => {
                    s.added
                        .extend(entries.iter().map(|e| crate::node::join(target, &e.to)));
                }
                ChangeOp::Move { from, to, .. } => {
                    if s.added.remove(from) {
                        s.added.insert(to.clone());
                    } else {
                        let origin = s.moved.remove(from).unwrap_or_else(|| from.clone());
                        s.moved.insert(to.clone(), origin);
                    }
                }
                ChangeOp::Delete {
                    path, kind, size, ..
                } => {
                    if !s.added.remove(path) {
                        s.moved.remove(path);
                        s.deleted.push((path.clone(), *kind, *size));
                    }
                }
                ChangeOp::Hardlink { path, .. } | ChangeOp::Unlink { path, .. } => {
                    s.linked.insert(path.clone());
                }
                // The file stays where it is, with its bytes; the diff names the tags.
                ChangeOp::Tag { .. } => {}
            }
        }
        s
    }

    /// The node's own status (its nearest changed ancestor decides for nodes inside a moved or
    /// added folder), and where it was.
    fn of(&self, id: &str) -> (ViewStatus, Option<String>) {
        let mut at = Some(id);
        while let Some(p) = at {
            if p == ROOT_ID {
                break;
            }
            if self.added.contains(p) {
                return (ViewStatus::Added, None);
            }
            if let Some(origin) = self.moved.get(p) {
                let from = format!("{origin}{}", &id[p.len()..]);
                return (ViewStatus::Moved, Some(from));
            }
            at = parent_of(p);
        }
        if self.linked.contains(id) {
            return (ViewStatus::Changed, None);
        }
        (ViewStatus::Unchanged, None)
    }

    /// Every path a change touched (destinations and deleted paths).
    fn touched(&self) -> impl Iterator<Item = &str> {
        self.added
            .iter()
            .chain(self.moved.keys())
            .chain(self.moved.values())
            .chain(self.linked.iter())
            .map(String::as_str)
            .chain(self.deleted.iter().map(|(p, _, _)| p.as_str()))
    }
}

/// Builds the visible tree with statuses and positions.
pub fn tree_view(
    graph: &FileSystemGraph,
    changes: &[Change],
    root_path: &str,
    options: &ViewOptions,
) -> TreeView {
    let statuses = Statuses::from_changes(changes);
    // Files and bytes below every folder, in one pass.
    let mut below: HashMap<&str, (u64, u64)> = HashMap::new();
    let mut total = Totals::default();
    for n in graph.nodes() {
        match n.kind {
            NodeKind::Dir => total.dirs += u64::from(n.id != ROOT_ID),
            NodeKind::File | NodeKind::Symlink => {
                total.files += 1;
                total.bytes += n.size;
                let mut at = parent_of(&n.id);
                while let Some(p) = at {
                    let e = below.entry(p).or_default();
                    e.0 += 1;
                    e.1 += n.size;
                    at = parent_of(p);
                }
            }
        }
    }
    let mut expanded: HashSet<String> = options
        .expanded
        .iter()
        .filter(|id| graph.node(id).is_some_and(|n| n.is_dir()))
        .cloned()
        .collect();
    expanded.insert(ROOT_ID.to_owned());
    // Folders with a change below them: marked, and opened on request.
    let mut changed_dirs: HashSet<String> = HashSet::new();
    for path in statuses.touched() {
        let mut at = parent_of(path);
        while let Some(p) = at {
            if !changed_dirs.insert(p.to_owned()) {
                break;
            }
            at = parent_of(p);
        }
    }
    if options.expand_changed {
        expanded.extend(
            changed_dirs
                .iter()
                .filter(|id| graph.node(id).is_some())
                .cloned(),
        );
    }
    let mut ghosts: HashMap<&str, Vec<&(String, NodeKind, u64)>> = HashMap::new();
    for d in &statuses.deleted {
        if let Some(p) = parent_of(&d.0)
            && !graph.contains(&d.0)
        {
            ghosts.entry(p).or_default().push(d);
        }
    }

    let root = graph.root();
    let mut nodes = Vec::new();
    let (root_files, root_bytes) = below.get(ROOT_ID).copied().unwrap_or_default();
    nodes.push(ViewNode {
        id: ROOT_ID.to_owned(),
        parent: None,
        label: root_label(root_path, &root.name),
        kind: ViewKind::Dir,
        ext: None,
        size: root_bytes,
        files: root_files,
        expanded: true,
        status: if changed_dirs.contains(ROOT_ID) {
            ViewStatus::Changed
        } else {
            ViewStatus::Unchanged
        },
        from: None,
        x: 0.0,
        y: 0.0,
    });
    let cx = Context {
        graph,
        statuses: &statuses,
        below: &below,
        expanded: &expanded,
        changed_dirs: &changed_dirs,
        ghosts: &ghosts,
        limit: options.limit.max(1),
    };
    cx.children_of(ROOT_ID, &mut nodes);
    layout(&mut nodes);
    TreeView {
        root_path: root_path.to_owned(),
        total,
        nodes,
    }
}

fn root_label(root_path: &str, name: &str) -> String {
    std::path::Path::new(root_path)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| {
            if root_path.is_empty() {
                name.to_owned()
            } else {
                root_path.to_owned()
            }
        })
}

struct Context<'a> {
    graph: &'a FileSystemGraph,
    statuses: &'a Statuses,
    below: &'a HashMap<&'a str, (u64, u64)>,
    expanded: &'a HashSet<String>,
    changed_dirs: &'a HashSet<String>,
    ghosts: &'a HashMap<&'a str, Vec<&'a (String, NodeKind, u64)>>,
    limit: usize,
}

impl Context<'_> {
    /// Appends the children of the expanded folder `id` (and, recursively, of expanded subfolders).
    fn children_of(&self, id: &str, out: &mut Vec<ViewNode>) {
        let mut kids: Vec<ViewNode> = self
            .graph
            .children(id)
            .into_iter()
            .map(|n| {
                let (mut status, from) = self.statuses.of(&n.id);
                let (files, size) = if n.is_dir() {
                    self.below.get(n.id.as_str()).copied().unwrap_or_default()
                } else {
                    (0, n.size)
                };
                if n.is_dir()
                    && status == ViewStatus::Unchanged
                    && self.changed_dirs.contains(&n.id)
                {
                    status = ViewStatus::Changed;
                }
                ViewNode {
                    id: n.id.clone(),
                    parent: Some(id.to_owned()),
                    label: n.name.clone(),
                    kind: match n.kind {
                        NodeKind::Dir => ViewKind::Dir,
                        NodeKind::File => ViewKind::File,
                        NodeKind::Symlink => ViewKind::Symlink,
                    },
                    ext: n.extension.clone(),
                    size,
                    files,
                    expanded: n.is_dir() && self.expanded.contains(&n.id),
                    status,
                    from,
                    x: 0.0,
                    y: 0.0,
                }
            })
            .collect();
        for (path, kind, size) in self.ghosts.get(id).into_iter().flatten() {
            kids.push(ViewNode {
                id: path.clone(),
                parent: Some(id.to_owned()),
                label: name_of(path).to_owned(),
                kind: if *kind == NodeKind::Dir {
                    ViewKind::Dir
                } else {
                    ViewKind::File
                },
                ext: crate::node::extension_of(name_of(path)).filter(|_| *kind != NodeKind::Dir),
                size: *size,
                files: 0,
                expanded: false,
                status: ViewStatus::Deleted,
                from: None,
                x: 0.0,
                y: 0.0,
            });
        }
        // Folders first, then changed entries, then the rest; by name within each group.
        kids.sort_by(|a, b| {
            let rank = |n: &ViewNode| {
                (
                    n.kind != ViewKind::Dir,
                    n.status == ViewStatus::Unchanged,
                    n.label.to_lowercase(),
                )
            };
            rank(a).cmp(&rank(b))
        });
        let hidden = kids.len().saturating_sub(self.limit);
        if hidden > 0 {
            kids.truncate(self.limit);
            let mut more_id = format!("more:{id}");
            while self.graph.contains(&more_id) {
                more_id.push('~');
            }
            kids.push(ViewNode {
                id: more_id,
                parent: Some(id.to_owned()),
                label: format!("+{hidden} more"),
                kind: ViewKind::More,
                ext: None,
                size: 0,
                files: hidden as u64,
                expanded: false,
                status: ViewStatus::Unchanged,
                from: None,
                x: 0.0,
                y: 0.0,
            });
        }
        for kid in kids {
            let open = kid.expanded && kid.status != ViewStatus::Deleted;
            let kid_id = kid.id.clone();
            out.push(kid);
            if open {
                self.children_of(&kid_id, out);
            }
        }
    }
}

/// Shelf packing, bottom-up: each expanded folder is a box holding its children's boxes in rows
/// (roughly as wide as tall); leaves are one cell. Then positions top-down.
fn layout(nodes: &mut [ViewNode]) {
    let index: HashMap<String, usize> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.clone(), i))
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (i, n) in nodes.iter().enumerate() {
        if let Some(p) = n.parent.as_ref().and_then(|p| index.get(p)) {
            children[*p].push(i);
        }
    }
    // Sizes, children before parents (nodes are listed parents first).
    let mut size = vec![(CELL_W, CELL_H); nodes.len()];
    let mut offsets = vec![(0.0, 0.0); nodes.len()];
    for i in (0..nodes.len()).rev() {
        if children[i].is_empty() {
            continue;
        }
        let area: f64 = children[i].iter().map(|&c| size[c].0 * size[c].1).sum();
        let widest = children[i].iter().map(|&c| size[c].0).fold(0.0, f64::max);
        let row_limit = (area.sqrt() * 1.3).max(widest).max(CELL_W * 3.0);
        let (mut x, mut y, mut row_h, mut width) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
        for &c in &children[i] {
            let (w, h) = size[c];
            if x > 0.0 && x + w > row_limit {
                y += row_h;
                x = 0.0;
                row_h = 0.0;
            }
            offsets[c] = (x + w / 2.0, y + h / 2.0);
            x += w;
            row_h = row_h.max(h);
            width = width.max(x);
        }
        size[i] = (width + 2.0 * PAD, y + row_h + PAD + HEADER);
    }
    // Positions: a box's children sit below its header, inside its padding.
    let mut stack = vec![(0usize, 0.0_f64, 0.0_f64)];
    while let Some((i, cx, cy)) = stack.pop() {
        nodes[i].x = cx.round();
        nodes[i].y = cy.round();
        let (w, h) = size[i];
        let (left, top) = (cx - w / 2.0 + PAD, cy - h / 2.0 + HEADER);
        for &c in &children[i] {
            stack.push((c, left + offsets[c].0, top + offsets[c].1));
        }
    }
}

/// Readable form for tests: one node per line, indented under its parent, with its position.
pub fn render_view(view: &TreeView) -> String {
    let mut depth: HashMap<&str, usize> = HashMap::new();
    let mut out = String::new();
    for n in &view.nodes {
        let d = n
            .parent
            .as_deref()
            .and_then(|p| depth.get(p))
            .map_or(0, |d| d + 1);
        depth.insert(&n.id, d);
        let status = match n.status {
            ViewStatus::Unchanged => "",
            ViewStatus::Added => " [added]",
            ViewStatus::Moved => " [moved]",
            ViewStatus::Deleted => " [deleted]",
            ViewStatus::Changed => " [changed]",
        };
        let from = n
            .from
            .as_ref()
            .map(|f| format!(" from {f}"))
            .unwrap_or_default();
        let tag = match n.kind {
            ViewKind::Dir if n.expanded => format!("/ ({} files)", n.files),
            ViewKind::Dir => format!("/ ({} files, collapsed)", n.files),
            _ => String::new(),
        };
        out.push_str(&format!(
            "{}{}{tag}{status}{from} @{},{}\n",
            "  ".repeat(d),
            n.label,
            n.x,
            n.y
        ));
    }
    out
}
