//! Read-only primitives that need file bytes: text extraction and embedded metadata
//! (parse-content), through the pure parsers of `parse` (duplicates: `ops::duplicates`).
//!
//! These read the disk (never write it). Bytes are read from where the scan found them
//! (`Node::content_from`), so they work on nodes the plan has already moved.

use std::fs::File;
use std::io::BufReader;
use std::path::PathBuf;

use serde_json::{Value, json};

use crate::error::{Result, SandboxError};
use crate::graph::FileSystemGraph;
use crate::node::{Node, NodeKind};
use crate::ops::OpContext;
use crate::params::Params;
use crate::parse::{self, ParseError, Parsed};
use crate::scope::Scope;

/// Where a file's bytes are on disk, or why they cannot be read.
fn bytes_on_disk(node: &Node, path: &str, scope: &Scope) -> Result<PathBuf> {
    if node.kind != NodeKind::File {
        return Err(SandboxError::Content {
            path: path.to_owned(),
            message: "not a file".into(),
        });
    }
    let Some(from) = node.content_from.as_deref() else {
        return Err(SandboxError::Content {
            path: path.to_owned(),
            message: "the file exists only in the plan so far; commit first to read it".into(),
        });
    };
    Ok(scope.disk_path(from))
}

/// Parses the file at `disk` (text up to `max_text` bytes).
pub fn parse_file(
    disk: &std::path::Path,
    extension: Option<&str>,
    max_text: usize,
) -> std::result::Result<Parsed, ParseError> {
    let mut reader = BufReader::new(File::open(disk)?);
    parse::parse(&mut reader, extension, max_text)
}

/// The EXIF facts of a photo the plan may sort or rename by: `date_taken` (ISO) and
/// `camera_model`. Empty for other files and for files that exist only in the plan.
pub(crate) fn photo_facts(scope: &Scope, node: &Node) -> serde_json::Map<String, Value> {
    let Some(from) = node.content_from.as_deref() else {
        return serde_json::Map::new();
    };
    // Known non-image extensions are settled without opening the file.
    if node.extension.is_some()
        && parse::kind_of(node.extension.as_deref(), &[]) != parse::ContentKind::Image
    {
        return serde_json::Map::new();
    }
    let Ok(file) = File::open(scope.disk_path(from)) else {
        return serde_json::Map::new();
    };
    let mut reader = BufReader::new(file);
    let mut head = Vec::with_capacity(512);
    if std::io::Read::read_to_end(&mut std::io::Read::take(&mut reader, 512), &mut head).is_err()
        || parse::kind_of(node.extension.as_deref(), &head) != parse::ContentKind::Image
        || std::io::Seek::rewind(&mut reader).is_err()
    {
        return serde_json::Map::new();
    }
    parse::parse(&mut reader, node.extension.as_deref(), 0)
        .map(|p| p.metadata)
        .unwrap_or_default()
}

fn parsed(g: &FileSystemGraph, cx: &OpContext, path: &str, max: usize) -> Result<Parsed> {
    let node = g.require(path)?;
    let disk = bytes_on_disk(node, path, cx.scope)?;
    parse_file(&disk, node.extension.as_deref(), max).map_err(|e| SandboxError::Content {
        path: path.to_owned(),
        message: match e {
            ParseError::Binary => {
                "binary file (no text to extract); use metadata for its properties".into()
            }
            other => other.to_string(),
        },
    })
}

/// `extract_text`: the text of a file (plain text, markdown, code, CSV, JSON, HTML without its
/// tags, PDF text, office documents; for images and audio their EXIF and tags as lines) and
/// what the format says about it.
pub fn extract_text(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    let max = p.int("max_bytes")?.unwrap_or(1 << 20).clamp(1, 64 << 20) as usize;
    let parsed = parsed(g, cx, &path, max)?;
    Ok(json!({
        "path": path,
        "kind": parsed.kind.as_str(),
        "bytes": parsed.text.len(),
        "lines": parsed.text.lines().count(),
        "truncated": parsed.truncated,
        "text": parsed.text,
        "metadata": parsed.metadata,
    }))
}

/// `read_metadata`: a file's properties plus what its format records (EXIF, audio tags, PDF and
/// office document properties, CSV/JSON shape, markdown headings), without the text.
pub fn read_metadata(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let mut out = crate::ops::get_metadata(g, cx, p)?;
    let path = p.path("path", cx.scope, g)?;
    if g.require(&path)?.kind != NodeKind::File {
        return Ok(out);
    }
    let node = g.require(&path)?;
    let disk = bytes_on_disk(node, &path, cx.scope)?;
    let obj = out.as_object_mut().expect("metadata is an object");
    match parse_file(&disk, node.extension.as_deref(), 1 << 20) {
        Ok(parsed) => {
            obj.insert("content_kind".into(), json!(parsed.kind.as_str()));
            obj.insert("embedded".into(), Value::Object(parsed.metadata));
        }
        Err(ParseError::Binary) => {
            obj.insert("content_kind".into(), json!("binary"));
        }
        // A damaged file still has its size and dates; say what could not be read.
        Err(e) => {
            obj.insert("embedded_error".into(), json!(e.to_string()));
        }
    }
    Ok(out)
}
