//! Duplicate files, the fclones way: `find_duplicates` narrows candidates by size, then by a hash
//! of the first block, of the last block, and of the whole content (each stage hashed in
//! parallel, each file read only as far as needed); hardlinks are one file. `remove_duplicates`
//! keeps one file per group (by policy, path priority, or reference folders that are never
//! touched) and removes, moves or hardlinks the rest — in the graph only, like every method.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

use rayon::prelude::*;
use serde_json::{Value, json};
use sha2::{Digest as _, Sha256};

use super::similar;
use super::{OpContext, Placement, delete_one, mkdir_p, move_one, place};
use crate::error::{Result, SandboxError};
use crate::graph::{ChangeOp, FileSystemGraph, GraphError};
use crate::hash_cache::{Digest, FileKey, HashCache, Stage};
use crate::node::{Node, NodeKind, ROOT_ID, is_within, join, parent_of};
use crate::params::Params;

/// Bytes hashed at the start and at the end of a file before its whole content is.
const BLOCK: u64 = 4096;
const READ_BUF: usize = 128 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algo {
    Xxh3,
    Sha256,
}

impl Algo {
    fn hex(self, d: &Digest) -> String {
        let n = match self {
            Algo::Xxh3 => 16,
            Algo::Sha256 => 32,
        };
        d[..n].iter().map(|b| format!("{b:02x}")).collect()
    }

    /// Hashes `len` bytes from `start` (to the end of the file when `len` is `None`).
    fn hash(self, path: &Path, start: u64, len: Option<u64>) -> std::io::Result<Digest> {
        let mut f = File::open(path)?;
        if start > 0 {
            f.seek(SeekFrom::Start(start))?;
        }
        let mut reader: Box<dyn Read> = match len {
            Some(n) => Box::new(f.take(n)),
            None => Box::new(f),
        };
        let mut buf = vec![0u8; READ_BUF];
        let mut out = [0u8; 32];
        match self {
            Algo::Xxh3 => {
                let mut h = xxhash_rust::xxh3::Xxh3::new();
                loop {
                    match reader.read(&mut buf)? {
                        0 => break,
                        n => h.update(&buf[..n]),
                    }
                }
                out[..16].copy_from_slice(&h.digest128().to_le_bytes());
            }
            Algo::Sha256 => {
                let mut h = Sha256::new();
                loop {
                    match reader.read(&mut buf)? {
                        0 => break,
                        n => h.update(&buf[..n]),
                    }
                }
                out.copy_from_slice(&h.finalize());
            }
        }
        Ok(out)
    }
}

/// Splits every group by a key computed per member (all members of all groups in parallel),
/// dropping groups left with one member. Members whose key cannot be computed are reported.
fn refine<'a>(
    groups: Vec<Vec<&'a Node>>,
    issues: &mut Vec<Value>,
    key: impl Fn(&Node) -> std::io::Result<Digest> + Sync,
) -> Vec<(Digest, Vec<&'a Node>)> {
    let flat: Vec<(usize, &'a Node)> = groups
        .iter()
        .enumerate()
        .flat_map(|(i, g)| g.iter().map(move |n| (i, *n)))
        .collect();
    let keyed: Vec<(usize, &'a Node, std::io::Result<Digest>)> =
        flat.into_par_iter().map(|(i, n)| (i, n, key(n))).collect();
    let mut by_key: BTreeMap<(usize, Digest), Vec<&'a Node>> = BTreeMap::new();
    for (i, n, k) in keyed {
        match k {
            Ok(k) => by_key.entry((i, k)).or_default().push(n),
            Err(e) => issues.push(json!({"path": n.id, "message": e.to_string()})),
        }
    }
    by_key
        .into_iter()
        .filter(|(_, g)| g.len() > 1)
        .map(|((_, k), g)| (k, g))
        .collect()
}

/// `find_duplicates`: size → first block → last block → whole content; with `similar`, groups of
/// photos that look alike instead (perceptual hashes within `threshold` bits).
pub fn find_duplicates(g: &FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let path = p.path("path", cx.scope, g)?;
    if !g.require(&path)?.is_dir() {
        return Err(GraphError::NotADirectory(path).into());
    }
    let min_size = p.size("min_size")?.unwrap_or(1);
    let max_size = p.size("max_size")?;
    let extensions: Vec<String> = p
        .list("extension")?
        .into_iter()
        .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
        .collect();
    let recursive = p.bool("recursive", true)?;
    let exclude = p.opt_paths("exclude", cx.scope, g)?;
    let algo = match p.choice("hash", &["xxh3", "sha256"], "xxh3")?.as_str() {
        "sha256" => Algo::Sha256,
        _ => Algo::Xxh3,
    };
    let format = p.choice("format", &["json", "text", "csv"], "json")?;
    let similar = p.bool("similar", false)?;
    let threshold = match p.int("threshold")? {
        None => similar::DEFAULT_THRESHOLD,
        Some(t) if (0..=i64::from(similar::HASH_BITS)).contains(&t) => t as u32,
        Some(t) => {
            return Err(SandboxError::InvalidParam {
                method: p.method.to_owned(),
                name: "threshold".into(),
                message: format!(
                    "must be 0..={} differing bits of the photos' hashes, got {t}",
                    similar::HASH_BITS
                ),
            });
        }
    };
    if p.get("threshold").is_some() && !similar {
        return Err(SandboxError::InvalidParam {
            method: p.method.to_owned(),
            name: "threshold".into(),
            message: "applies to similar photos only; add similar: true".into(),
        });
    }
    let pool: Vec<&Node> = if recursive {
        g.subtree(&path)
    } else {
        g.children(&path)
    };
    let candidates = pool.into_iter().filter(|n| {
        n.kind == NodeKind::File
            && n.size >= min_size
            && max_size.is_none_or(|m| n.size <= m)
            && n.origin.is_some()
            && n.content_from.is_some()
            && !exclude.iter().any(|e| is_within(&n.id, e))
            && (extensions.is_empty()
                || n.extension.as_ref().is_some_and(|e| extensions.contains(e)))
            && (!similar
                || n.extension
                    .as_ref()
                    .is_some_and(|e| similar::IMAGE_EXTENSIONS.contains(&e.as_str())))
    });
    let disk = |n: &Node| {
        cx.scope
            .disk_path(n.content_from.as_deref().expect("filtered on content_from"))
    };
    let mut issues = Vec::new();
    let (rows, hardlinks) = if similar {
        let rows = similar::similar_groups(candidates.collect(), disk, threshold, &mut issues);
        (rows, Vec::new())
    } else {
        identical_groups(candidates, algo, disk, cx.hashes, &mut issues)
    };
    let mut out = finish_scan(
        path, algo, similar, threshold, rows, hardlinks, issues, &format,
    )?;
    if let Some(cache) = cx.hashes.filter(|_| !similar) {
        // A cache that cannot be written costs the next scan time, not this one its result.
        if let Err(e) = cache.save() {
            tracing::warn!(error = %e, "the hash cache could not be saved");
        }
        let (hits, misses) = cache.counts();
        out["hash_cache"] = json!({"hits": hits, "misses": misses});
    }
    Ok(out)
}

/// What identifies a file's bytes for the hash cache: its device and inode, size and
/// modification time as scanned (`None` where the platform does not say).
fn cache_key(n: &Node, algo: Algo) -> Option<FileKey> {
    let origin = n.origin.as_ref()?;
    let (dev, ino) = origin.inode?;
    Some(FileKey {
        dev,
        ino,
        size: origin.fingerprint.size?,
        mtime_ns: origin.fingerprint.mtime_ns?,
        algo: match algo {
            Algo::Xxh3 => 0,
            Algo::Sha256 => 1,
        },
    })
}

/// A stage's hash of `n`: from the cache when the file is unchanged, else computed (and kept).
fn cached(
    hashes: Option<&HashCache>,
    n: &Node,
    algo: Algo,
    stage: Stage,
    compute: impl FnOnce() -> std::io::Result<Digest>,
) -> std::io::Result<Digest> {
    let key = hashes.and_then(|_| cache_key(n, algo));
    if let (Some(cache), Some(key)) = (hashes, key.as_ref())
        && let Some(d) = cache.get(key, stage)
    {
        return Ok(d);
    }
    let d = compute()?;
    if let (Some(cache), Some(key)) = (hashes, key) {
        cache.put(key, stage, d);
    }
    Ok(d)
}

/// Groups of byte-identical files among `candidates`, each as `(wasted bytes, group)`, and the
/// names that are already one file (hardlinks).
fn identical_groups<'a>(
    candidates: impl Iterator<Item = &'a Node>,
    algo: Algo,
    disk: impl Fn(&Node) -> std::path::PathBuf + Sync,
    hashes: Option<&HashCache>,
    issues: &mut Vec<Value>,
) -> (Vec<(u64, Value)>, Vec<Vec<String>>) {
    let mut by_size: HashMap<u64, Vec<&Node>> = HashMap::new();
    for n in candidates {
        by_size.entry(n.size).or_default().push(n);
    }
    // Hardlinks are one file under several names: hash one name per inode, list the others.
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
    // Files of at most one block are settled by the first stage: it read all of them.
    let mut finished: Vec<(Digest, Vec<&Node>)> = Vec::new();
    let mut open: Vec<Vec<&Node>> = Vec::new();
    for (k, g) in refine(groups, issues, |n| {
        cached(hashes, n, algo, Stage::First, || {
            algo.hash(&disk(n), 0, Some(BLOCK))
        })
    }) {
        if g[0].size <= BLOCK {
            finished.push((k, g));
        } else {
            open.push(g);
        }
    }
    let open: Vec<Vec<&Node>> = refine(open, issues, |n| {
        if n.size > 2 * BLOCK {
            cached(hashes, n, algo, Stage::Last, || {
                algo.hash(&disk(n), n.size - BLOCK, Some(BLOCK))
            })
        } else {
            Ok([0u8; 32])
        }
    })
    .into_iter()
    .map(|(_, g)| g)
    .collect();
    finished.extend(refine(open, issues, |n| {
        cached(hashes, n, algo, Stage::Whole, || {
            algo.hash(&disk(n), 0, None)
        })
    }));

    let rows: Vec<(u64, Value)> = finished
        .into_iter()
        .map(|(digest, mut members)| {
            members.sort_by(|a, b| a.id.cmp(&b.id));
            let size = members[0].size;
            let wasted = size * (members.len() as u64 - 1);
            let paths: Vec<&str> = members.iter().map(|n| n.id.as_str()).collect();
            (
                wasted,
                json!({"hash": algo.hex(&digest), "size": size, "count": paths.len(),
                       "paths": paths, "wasted_bytes": wasted}),
            )
        })
        .collect();
    hardlinks.sort();
    (rows, hardlinks)
}

/// The scan's result from its groups: largest waste first, totals, and the report asked for.
#[allow(clippy::too_many_arguments)]
fn finish_scan(
    path: String,
    algo: Algo,
    similar: bool,
    threshold: u32,
    mut rows: Vec<(u64, Value)>,
    hardlinks: Vec<Vec<String>>,
    issues: Vec<Value>,
    format: &str,
) -> Result<Value> {
    rows.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then_with(|| a.1["paths"][0].as_str().cmp(&b.1["paths"][0].as_str()))
    });
    let duplicate_count: u64 = rows
        .iter()
        .map(|(_, r)| r["count"].as_u64().unwrap_or(1) - 1)
        .sum();
    let wasted: u64 = rows.iter().map(|(w, _)| w).sum();
    let groups: Vec<Value> = rows.into_iter().map(|(_, r)| r).collect();
    let hash = match (similar, algo) {
        (true, _) => "perceptual (gradient, 256 bits)",
        (false, Algo::Xxh3) => "xxh3-128",
        (false, Algo::Sha256) => "sha256",
    };
    let mut out = json!({
        "path": path,
        "hash": hash,
        "group_count": groups.len(),
        "duplicate_count": duplicate_count,
        "wasted_bytes": wasted,
        "groups": groups,
        "hardlinks": hardlinks,
        "issues": issues,
    });
    if similar {
        out["similar"] = json!(true);
        out["threshold"] = json!(threshold);
    }
    match format {
        "text" => out["report"] = json!(report_text(&out)),
        "csv" => out["report"] = json!(report_csv(&out)),
        _ => {}
    }
    Ok(out)
}

/// The groups as fclones prints them: a header per group, then its paths.
fn report_text(result: &Value) -> String {
    let mut s = format!(
        "{} group(s), {} redundant file(s), {} wasted\n",
        result["group_count"],
        result["duplicate_count"],
        crate::graph::human_bytes(result["wasted_bytes"].as_u64().unwrap_or(0))
    );
    for g in result["groups"].as_array().into_iter().flatten() {
        s.push_str(&format!(
            "{} {} * {}:\n",
            g["hash"].as_str().unwrap_or(""),
            crate::graph::human_bytes(g["size"].as_u64().unwrap_or(0)),
            g["count"]
        ));
        for p in g["paths"].as_array().into_iter().flatten() {
            s.push_str(&format!("    {}\n", p.as_str().unwrap_or("")));
        }
    }
    s
}

/// One line per file: `group,hash,size,count,path` (RFC 4180 quoting).
fn report_csv(result: &Value) -> String {
    fn field(s: &str) -> String {
        if s.contains([',', '"', '\n', '\r']) {
            format!("\"{}\"", s.replace('"', "\"\""))
        } else {
            s.to_owned()
        }
    }
    let mut s = String::from("group,hash,size,count,path\n");
    for (i, g) in result["groups"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        for p in g["paths"].as_array().into_iter().flatten() {
            s.push_str(&format!(
                "{},{},{},{},{}\n",
                i + 1,
                g["hash"].as_str().unwrap_or(""),
                g["size"],
                g["count"],
                field(p.as_str().unwrap_or(""))
            ));
        }
    }
    s
}

/// Replaces `path` by a hardlink to `to` (same content; `path`'s own copy is freed at commit).
fn link_one(g: &mut FileSystemGraph, cx: &OpContext, path: &str, to: &str) -> Result<u64> {
    let node = g.require(path)?.clone();
    let keeper = g.require(to)?.clone();
    let (Some(origin), Some(kept)) = (node.origin.as_ref(), keeper.origin.as_ref()) else {
        return Err(SandboxError::InvalidParam {
            method: "remove_duplicates".into(),
            name: "action".into(),
            message: format!(
                "`{path}` or `{to}` exists only in the plan so far; hardlinks join files on disk"
            ),
        });
    };
    if let (Some((dev_a, _)), Some((dev_b, _))) = (origin.inode, kept.inode)
        && dev_a != dev_b
    {
        return Err(SandboxError::InvalidParam {
            method: "remove_duplicates".into(),
            name: "action".into(),
            message: format!(
                "`{path}` and `{to}` are on different file systems; a hardlink cannot join them \
                 (use action=remove or action=move)"
            ),
        });
    }
    let inode = kept.inode;
    g.update(path, |n| {
        if let Some(o) = n.origin.as_mut() {
            o.inode = inode;
        }
    })?;
    g.record(
        cx.snapshot,
        ChangeOp::Hardlink {
            path: path.to_owned(),
            to: to.to_owned(),
            size: node.size,
            expect: Some(origin.fingerprint.clone()),
            expect_to: Some(kept.fingerprint.clone()),
        },
    );
    Ok(node.size)
}

/// The index of the first folder of `priority` holding `id` (`priority.len()` if none).
fn rank(id: &str, priority: &[String]) -> usize {
    priority
        .iter()
        .position(|p| is_within(id, p))
        .unwrap_or(priority.len())
}

/// `remove_duplicates`: one survivor per group; the rest removed, moved or hardlinked.
pub fn remove_duplicates(g: &mut FileSystemGraph, cx: &OpContext, p: &Params) -> Result<Value> {
    let invalid = |name: &str, message: String| SandboxError::InvalidParam {
        method: p.method.to_owned(),
        name: name.to_owned(),
        message,
    };
    let groups_value = p.required("groups")?;
    let groups = match groups_value {
        Value::Object(o) => o.get("groups").cloned().unwrap_or(Value::Null),
        other => other.clone(),
    };
    let Value::Array(groups) = groups else {
        return Err(invalid(
            "groups",
            "must be the `groups` list from remove-duplicates scan".into(),
        ));
    };
    // Without a choice: the newest of identical copies (all the same bytes), the largest of
    // similar photos (the others are smaller or worse copies of it).
    let keep = match p.get("keep") {
        Some(_) => Some(p.choice(
            "keep",
            &[
                "newest",
                "oldest",
                "shortest_path",
                "longest_path",
                "largest",
            ],
            "newest",
        )?),
        None => None,
    };
    let action = p.choice("action", &["remove", "move", "hardlink"], "remove")?;
    let exclude = p.opt_paths("exclude", cx.scope, g)?;
    let reference = p.opt_paths("reference", cx.scope, g)?;
    let priority = p.opt_paths("priority", cx.scope, g)?;
    let target = match action.as_str() {
        "move" => Some(if p.get("target").is_some() {
            p.path("target", cx.scope, g)?
        } else {
            return Err(invalid(
                "target",
                "action=move needs `target`, the folder the extra copies go to".into(),
            ));
        }),
        _ => None,
    };
    let policy = p.conflict(cx.on_conflict)?;
    let (mut deleted, mut moved, mut linked, mut kept) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut skipped: Vec<Value> = Vec::new();
    let (mut freed, mut skipped_groups) = (0u64, 0usize);
    let mut similar_groups = 0usize;
    for group in &groups {
        let raw_paths = match group {
            Value::Object(o) => o.get("paths").cloned().unwrap_or(Value::Null),
            Value::Array(_) => group.clone(),
            _ => Value::Null,
        };
        let Value::Array(raw) = raw_paths else {
            return Err(invalid(
                "groups",
                format!("has an entry without `paths`: {group}"),
            ));
        };
        let mut members: Vec<Node> = Vec::new();
        for r in raw.iter().filter_map(Value::as_str) {
            let id = cx.scope.resolve(r, g)?;
            if exclude.iter().any(|e| is_within(&id, e)) {
                continue;
            }
            // Gone already (an earlier step removed it): nothing to keep or act on.
            if let Some(n) = g.node(&id) {
                members.push(n.clone());
            }
        }
        if members.len() < 2 {
            skipped_groups += 1;
            continue;
        }
        let pixels = similar::pixels_by_path(group);
        similar_groups += usize::from(!pixels.is_empty());
        let keep = keep.as_deref().unwrap_or(if pixels.is_empty() {
            "newest"
        } else {
            "largest"
        });
        // Most pixels (similar photos), then most bytes.
        let largest = |n: &Node| (pixels.get(&n.id).copied().unwrap_or(0), n.size);
        let in_reference = |n: &Node| reference.iter().any(|r| is_within(&n.id, r));
        // Reference copies first (they are never touched), then the priority folders, then
        // the keep policy; ties by path.
        members.sort_by(|a, b| {
            in_reference(b)
                .cmp(&in_reference(a))
                .then_with(|| rank(&a.id, &priority).cmp(&rank(&b.id, &priority)))
                .then_with(|| match keep {
                    "oldest" => a.modified_at.cmp(&b.modified_at),
                    "largest" => largest(b).cmp(&largest(a)),
                    "shortest_path" => a.id.len().cmp(&b.id.len()),
                    "longest_path" => b.id.len().cmp(&a.id.len()),
                    _ => b.modified_at.cmp(&a.modified_at),
                })
                .then_with(|| a.id.cmp(&b.id))
        });
        let keeper = members[0].id.clone();
        kept.push(keeper.clone());
        for m in &members[1..] {
            if in_reference(m) {
                continue;
            }
            match action.as_str() {
                "move" => {
                    let base = target.as_deref().unwrap_or(ROOT_ID);
                    let desired = join(base, &m.id);
                    if let Some(parent) = parent_of(&desired) {
                        mkdir_p(g, cx, parent)?;
                    }
                    match place(g, cx, desired, policy)? {
                        Placement::At(to) => {
                            moved.push(move_one(g, cx, &m.id, &to)?);
                        }
                        Placement::Skip(why) => skipped.push(json!({"path": m.id, "reason": why})),
                    }
                }
                "hardlink" => {
                    freed += link_one(g, cx, &m.id, &keeper)?;
                    linked.push(json!({"path": m.id, "to": keeper}));
                }
                _ => {
                    freed += delete_one(g, cx, &m.id)?;
                    deleted.push(m.id.clone());
                }
            }
        }
    }
    let count = deleted.len() + moved.len() + linked.len();
    // Similar photos are not the same bytes: the person looks at every group, whatever the
    // approval mode.
    let needs_review = (similar_groups > 0 && count > 0).then(|| {
        format!(
            "{similar_groups} group(s) of similar photos: they are not identical copies, so look \
             at each group (sizes and resolutions) before approving"
        )
    });
    Ok(json!({
        "needs_review": needs_review,
        "action": action,
        "deleted": deleted,
        "moved": moved,
        "linked": linked,
        "skipped": skipped,
        "count": count,
        "kept": kept,
        "freed_bytes": freed,
        "groups_processed": groups.len() - skipped_groups,
        "groups_skipped": skipped_groups,
    }))
}
