//! Read-only primitives that need file bytes: text extraction (duplicates: `ops::duplicates`).
//!
//! These read the disk (never write it). Bytes are read from where the scan found them
//! (`Node::content_from`), so they work on nodes the plan has already moved.

use std::fs::File;
use std::io::Read;

use serde_json::{Value, json};

use crate::error::{Result, SandboxError};
use crate::graph::FileSystemGraph;
use crate::node::NodeKind;
use crate::ops::OpContext;
use crate::params::Params;

/// `extract_text`: the text of a file (UTF-8, lossy), refusing binaries.
pub fn extract_text(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    let node = g.require(&path)?;
    if node.kind != NodeKind::File {
        return Err(SandboxError::Content {
            path,
            message: "not a file".into(),
        });
    }
    let Some(from) = node.content_from.as_deref() else {
        return Err(SandboxError::Content {
            path,
            message: "the file exists only in the plan so far; commit first to read it".into(),
        });
    };
    let max = p.int("max_bytes")?.unwrap_or(1 << 20).clamp(1, 64 << 20) as u64;
    let disk = cx.scope.disk_path(from);
    let mut buf = Vec::new();
    File::open(&disk)
        .and_then(|f| f.take(max).read_to_end(&mut buf))
        .map_err(|e| SandboxError::Content {
            path: path.clone(),
            message: e.to_string(),
        })?;
    if buf.iter().take(8192).any(|&b| b == 0) {
        return Err(SandboxError::Content {
            path,
            message: "binary file (no text to extract); use get_metadata for its properties".into(),
        });
    }
    let text = String::from_utf8_lossy(&buf).into_owned();
    Ok(json!({
        "path": path,
        "bytes": buf.len(),
        "lines": text.lines().count(),
        "truncated": (buf.len() as u64) < node.size,
        "text": text,
    }))
}
