//! Read-only primitives that need file bytes: duplicate detection and text extraction.
//!
//! These read the disk (never write it). Bytes are read from where the scan found them
//! (`Node::content_from`), so they work on nodes the plan has already moved.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use crate::error::{Result, SandboxError};
use crate::graph::{FileSystemGraph, GraphError};
use crate::node::{Node, NodeKind};
use crate::ops::OpContext;
use crate::params::Params;

const BLOCK: u64 = 4096;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn hash_range(path: &Path, start: u64, len: u64) -> std::io::Result<[u8; 32]> {
    let mut f = File::open(path)?;
    f.seek(SeekFrom::Start(start))?;
    let mut buf = vec![0u8; len as usize];
    let mut read = 0;
    while read < buf.len() {
        match f.read(&mut buf[read..])? {
            0 => break,
            n => read += n,
        }
    }
    Ok(Sha256::digest(&buf[..read]).into())
}

fn hash_full(path: &Path) -> std::io::Result<[u8; 32]> {
    let mut f = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 128 * 1024];
    loop {
        match f.read(&mut buf)? {
            0 => break,
            n => hasher.update(&buf[..n]),
        }
    }
    Ok(hasher.finalize().into())
}

/// Splits every group by a key computed per member, dropping groups left with one member.
/// Members whose key cannot be computed are reported and dropped.
fn refine<'a, K: std::hash::Hash + Eq + Ord>(
    groups: Vec<Vec<&'a Node>>,
    issues: &mut Vec<Value>,
    key: impl Fn(&Node) -> std::io::Result<K> + Sync,
) -> Vec<Vec<&'a Node>> {
    let mut out = Vec::new();
    for group in groups {
        let mut by_key: BTreeMap<K, Vec<&'a Node>> = BTreeMap::new();
        for n in group {
            match key(n) {
                Ok(k) => by_key.entry(k).or_default().push(n),
                Err(e) => issues.push(json!({"path": n.id, "message": e.to_string()})),
            }
        }
        out.extend(by_key.into_values().filter(|g| g.len() > 1));
    }
    out
}

/// `find_duplicates`: size → first block → last block → full SHA-256 (the fclones pipeline).
pub fn find_duplicates(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    if !g.require(&path)?.is_dir() {
        return Err(GraphError::NotADirectory(path).into());
    }
    let min_size = p.size("min_size")?.unwrap_or(1);
    let extensions: Vec<String> = p
        .list("extension")?
        .into_iter()
        .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
        .collect();
    let recursive = p.bool("recursive", true)?;
    let pool: Vec<&Node> = if recursive {
        g.subtree(&path)
    } else {
        g.children(&path)
    };
    let candidates = pool.into_iter().filter(|n| {
        n.kind == NodeKind::File
            && n.size >= min_size
            && n.origin.is_some()
            && n.content_from.is_some()
            && (extensions.is_empty()
                || n.extension.as_ref().is_some_and(|e| extensions.contains(e)))
    });

    let mut by_size: HashMap<u64, Vec<&Node>> = HashMap::new();
    for n in candidates {
        by_size.entry(n.size).or_default().push(n);
    }
    // Hardlinks are one file under several names: keep one name per inode for hashing.
    let mut hardlinks: Vec<Vec<String>> = Vec::new();
    let mut groups: Vec<Vec<&Node>> = Vec::new();
    for (_, members) in by_size {
        if members.len() < 2 {
            continue;
        }
        let mut by_inode: BTreeMap<(u64, u64), Vec<&Node>> = BTreeMap::new();
        let mut distinct: Vec<&Node> = Vec::new();
        for n in members {
            match n.origin.as_ref().and_then(|o| o.inode) {
                Some(ino) => by_inode.entry(ino).or_default().push(n),
                None => distinct.push(n),
            }
        }
        for (_, mut same) in by_inode {
            same.sort_by(|a, b| a.id.cmp(&b.id));
            if same.len() > 1 {
                hardlinks.push(same.iter().map(|n| n.id.clone()).collect());
            }
            distinct.push(same[0]);
        }
        if distinct.len() > 1 {
            groups.push(distinct);
        }
    }
    let disk = |n: &Node| {
        cx.scope
            .disk_path(n.content_from.as_deref().expect("filtered on content_from"))
    };
    let mut issues = Vec::new();
    let groups = refine(groups, &mut issues, |n| hash_range(&disk(n), 0, BLOCK));
    let groups = refine(groups, &mut issues, |n| {
        if n.size > 2 * BLOCK {
            hash_range(&disk(n), n.size - BLOCK, BLOCK)
        } else {
            Ok([0u8; 32])
        }
    });
    let groups = refine(groups, &mut issues, |n| hash_full(&disk(n)));

    let mut rows: Vec<(u64, Value)> = groups
        .into_iter()
        .map(|mut members| {
            members.sort_by(|a, b| a.id.cmp(&b.id));
            let size = members[0].size;
            let hash = hash_full(&disk(members[0])).map(|h| hex(&h)).unwrap_or_default();
            let wasted = size * (members.len() as u64 - 1);
            let paths: Vec<&str> = members.iter().map(|n| n.id.as_str()).collect();
            (wasted, json!({"hash": hash, "size": size, "count": paths.len(), "paths": paths, "wasted_bytes": wasted}))
        })
        .collect();
    rows.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.1["paths"][0].as_str().cmp(&b.1["paths"][0].as_str()))
    });
    let duplicate_count: u64 = rows
        .iter()
        .map(|(_, r)| r["count"].as_u64().unwrap_or(1) - 1)
        .sum();
    let wasted: u64 = rows.iter().map(|(w, _)| w).sum();
    hardlinks.sort();
    Ok(json!({
        "path": path,
        "group_count": rows.len(),
        "duplicate_count": duplicate_count,
        "wasted_bytes": wasted,
        "groups": rows.into_iter().map(|(_, r)| r).collect::<Vec<_>>(),
        "hardlinks": hardlinks,
        "issues": issues,
    }))
}

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
