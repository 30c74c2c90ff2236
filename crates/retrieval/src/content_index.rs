//! ContentIndex: what the files of a sandbox say. Text-bearing files (text, markdown, code, csv,
//! json, html, PDF, office documents; photos by their EXIF, songs by their tags, all through
//! `sandbox::parse`) are chunked and embedded; other files are indexed by name and metadata only.
//! Kept in step with the sandbox: nodes changed since indexing are "stale" until re-indexed.

use std::collections::{BTreeMap, BTreeSet};

use sandbox::parse::ParseError;
use sandbox::{Node, NodeKind, Sandbox, category_of};
use serde::{Deserialize, Serialize};

use crate::chunk::{ChunkSpec, chunk_text};
use crate::embed::Embedder;
use crate::index::{HybridIndex, Mix};
use crate::{Result, RetrievalError};

/// Most bytes of text taken from one file for indexing.
pub const MAX_TEXT_BYTES: usize = 1 << 20;

/// One document of the ContentIndex: a chunk of a file, or a file's name and metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContentDoc {
    pub path: String,
    pub chunk: usize,
    /// Byte range of the chunk in the file's text (0..0 for metadata-only documents).
    pub start: usize,
    pub end: usize,
    /// Whether the document carries the file's content (false: name and metadata only).
    pub text_bearing: bool,
    pub size: u64,
    pub modified_at: Option<i64>,
}

/// A file that matched a content query (its best chunk).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ContentHit {
    pub path: String,
    pub score: f32,
    pub vector: f32,
    pub bm25: f32,
    pub chunk: usize,
    pub snippet: String,
}

/// What `sync` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SyncReport {
    /// Files (re-)read and embedded.
    pub embedded_files: usize,
    pub embedded_chunks: usize,
    /// Files whose documents were still current.
    pub kept_files: usize,
    /// Files whose documents were dropped (gone from the graph, or changed).
    pub removed_files: usize,
    /// Files changed in the plan but not committed: left stale until commit.
    pub pending_files: usize,
    /// Files that could not be read (indexed by name only).
    pub unreadable: Vec<String>,
    /// Files left for later because the sync was asked to stop (what was done is kept).
    pub stopped_files: usize,
}

/// Is `id` at or below the folder `scope` (both root-relative ids, root = ".")?
pub fn within(id: &str, scope: &str) -> bool {
    scope == "." || id == scope || id.strip_prefix(scope).is_some_and(|r| r.starts_with('/'))
}

/// The searchable text of a file, or `None` when it has none: what `sandbox::parse` extracts
/// (HTML without tags, PDF and office text, EXIF and audio tags as lines).
pub fn readable_text(node: &Node, bytes: &[u8]) -> Option<String> {
    let mut reader = std::io::Cursor::new(bytes);
    sandbox::parse::parse(&mut reader, node.extension.as_deref(), bytes.len())
        .ok()
        .map(|p| p.text)
        .filter(|t| !t.trim().is_empty())
}

/// Name words, extension and category: what a file without readable text is found by.
fn metadata_text(node: &Node) -> String {
    let ext = node.extension.as_deref();
    let stem = node
        .name
        .rsplit_once('.')
        .map_or(node.name.as_str(), |(s, _)| s);
    format!(
        "{} {} {} file",
        stem.replace(['_', '-', '.'], " "),
        ext.unwrap_or(""),
        category_of(ext).to_lowercase()
    )
}

/// The content of one sandbox, searchable.
#[derive(Debug)]
pub struct ContentIndex {
    pub(crate) index: HybridIndex<ContentDoc>,
}

impl ContentIndex {
    pub fn new(index: HybridIndex<ContentDoc>) -> Self {
        ContentIndex { index }
    }

    pub fn inner(&self) -> &HybridIndex<ContentDoc> {
        &self.index
    }

    /// Indexed files and their (size, modified_at) at indexing time.
    fn indexed_files(&self) -> BTreeMap<String, (u64, Option<i64>)> {
        self.index
            .docs()
            .map(|(_, d)| (d.meta.path.clone(), (d.meta.size, d.meta.modified_at)))
            .collect()
    }

    /// Brings the index in line with the sandbox: drops documents of files that are gone or
    /// changed, embeds new and changed files, and marks them indexed in the graph. Files changed
    /// only in the plan (not yet committed) are left stale.
    /// `stop` is asked before each file: when it says yes, the files done so far are kept and
    /// marked indexed, the rest stay stale (`stopped_files`), and a later sync goes on from there.
    pub fn sync(
        &mut self,
        sandbox: &mut Sandbox,
        embedder: &dyn Embedder,
        spec: &ChunkSpec,
        stop: &dyn Fn() -> bool,
    ) -> Result<SyncReport> {
        let mut report = SyncReport::default();
        let committed = sandbox.changes().is_empty();
        let indexed = self.indexed_files();
        let mut live: BTreeSet<String> = BTreeSet::new();
        let mut todo: Vec<Node> = Vec::new();
        let mut current: Vec<String> = Vec::new();
        for n in sandbox.graph().nodes().filter(|n| n.kind == NodeKind::File) {
            live.insert(n.id.clone());
            if n.dirty && !committed {
                report.pending_files += 1;
                continue;
            }
            // Current: indexed with the same size and mtime, and not changed by the agent since.
            let current_doc = !n.dirty && indexed.get(&n.id) == Some(&(n.size, n.modified_at));
            if current_doc {
                report.kept_files += 1;
                current.push(n.id.clone());
            } else {
                todo.push(n.clone());
            }
        }
        // Forget files that left the graph or will be re-read.
        let redo: BTreeSet<&str> = todo.iter().map(|n| n.id.as_str()).collect();
        let gone: BTreeSet<String> = indexed
            .keys()
            .filter(|p| redo.contains(p.as_str()) || (!live.contains(*p) && committed))
            .cloned()
            .collect();
        report.removed_files = gone.len();
        self.index.remove_where(|d| gone.contains(&d.path))?;
        let scope = sandbox.scope().clone();
        for (done, node) in todo.iter().enumerate() {
            if stop() {
                report.stopped_files = todo.len() - done;
                break;
            }
            let (docs, unreadable) = read_docs(node, &scope, spec, embedder)?;
            if unreadable {
                report.unreadable.push(node.id.clone());
            }
            let texts: Vec<&str> = docs.iter().map(|(_, t)| t.as_str()).collect();
            let vectors = embedder.embed_documents(&texts)?;
            report.embedded_chunks += texts.len();
            for ((meta, text), v) in docs.into_iter().zip(vectors) {
                self.index.insert(meta, text, &v)?;
            }
            report.embedded_files += 1;
            current.push(node.id.clone());
        }
        sandbox.mark_indexed(&current, sandbox::now_secs());
        Ok(report)
    }

    /// The best-matching files below `scope`, one hit per file (its best chunk).
    pub fn search(
        &self,
        query: &str,
        vector: &[f32],
        scope: &str,
        top_k: usize,
        mix: Mix,
        min_similarity: f32,
    ) -> Result<Vec<ContentHit>> {
        let scored = self
            .index
            .search(vector, query, top_k * 4, mix, |d| within(&d.path, scope))?;
        // Unrelated files still get a (small) mixed score; a hit must share a word with the
        // query or be close in meaning.
        let scored = scored
            .into_iter()
            .filter(|s| s.bm25 > 0.0 || s.vector >= min_similarity);
        let mut seen = BTreeSet::new();
        let mut hits = Vec::new();
        for s in scored {
            let Some(doc) = self.index.doc(s.key) else {
                continue;
            };
            if !seen.insert(doc.meta.path.clone()) {
                continue;
            }
            hits.push(ContentHit {
                path: doc.meta.path.clone(),
                score: s.score,
                vector: s.vector,
                bm25: s.bm25,
                chunk: doc.meta.chunk,
                snippet: snippet(&doc.text),
            });
            if hits.len() == top_k {
                break;
            }
        }
        Ok(hits)
    }
}

fn snippet(text: &str) -> String {
    let body = text.split_once(": ").map_or(text, |(_, b)| b);
    let flat: String = body.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > 160 {
        flat.chars().take(157).collect::<String>() + "..."
    } else {
        flat
    }
}

/// The documents of one file: its chunks (prefixed with the file name) or one metadata document.
fn read_docs(
    node: &Node,
    scope: &sandbox::Scope,
    spec: &ChunkSpec,
    embedder: &dyn Embedder,
) -> Result<(Vec<(ContentDoc, String)>, bool)> {
    let meta = |chunk, start, end, text_bearing| ContentDoc {
        path: node.id.clone(),
        chunk,
        start,
        end,
        text_bearing,
        size: node.size,
        modified_at: node.modified_at,
    };
    let disk = scope.disk_path(node.content_from.as_deref().unwrap_or(&node.id));
    let text = match sandbox::parse_file(&disk, node.extension.as_deref(), MAX_TEXT_BYTES) {
        Ok(parsed) => parsed.text,
        Err(ParseError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(RetrievalError::Io {
                path: disk,
                source: e,
            });
        }
        Err(ParseError::Io(_)) => {
            return Ok((vec![(meta(0, 0, 0, false), metadata_text(node))], true));
        }
        // Binaries and files their format's parser rejects are found by name and metadata.
        Err(ParseError::Binary | ParseError::Format { .. }) => String::new(),
    };
    if text.trim().is_empty() {
        return Ok((vec![(meta(0, 0, 0, false), metadata_text(node))], false));
    }
    let chunks = chunk_text(&text, spec, embedder)?;
    Ok((
        chunks
            .into_iter()
            .map(|c| {
                let t = format!("{}: {}", node.name, c.text);
                (meta(c.index, c.start, c.end, true), t)
            })
            .collect(),
        false,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_containment() {
        assert!(within("a/b.txt", "."));
        assert!(within("a/b.txt", "a"));
        assert!(!within("ab/c.txt", "a"));
        assert!(within("a", "a"));
    }

    #[test]
    fn html_loses_tags_scripts_and_styles() {
        let n = Node::new("site/index.html".into(), NodeKind::File);
        let html = b"<html><style>p{}</style><p>Hello <b>world</b></p><script>x()</script>!</html>";
        assert_eq!(readable_text(&n, html).as_deref(), Some("Hello world\n!"));
    }

    #[test]
    fn binaries_are_metadata_only() {
        let mut n = Node::new("photos/IMG_0001.jpg".into(), NodeKind::File);
        assert_eq!(readable_text(&n, b"\xff\xd8\xff\xe0 jfif"), None);
        assert_eq!(metadata_text(&n), "IMG 0001 jpg images file");
        n = Node::new("notes/todo".into(), NodeKind::File);
        assert_eq!(readable_text(&n, b"buy milk").as_deref(), Some("buy milk"));
        assert_eq!(readable_text(&n, b"bu\0y"), None);
    }
}
