//! analyze-directory against `du -s` and archive creation against `tar czf` / `tar --zstd`,
//! each pair in the same run on the same generated tree (a module of the `sandbox` bench).

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

use super::{ms, time};
use config::{ConflictPolicy, DeleteMode};
use sandbox::{SandboxConfig, ScanOptions};

fn config(delete: DeleteMode) -> SandboxConfig {
    SandboxConfig {
        protected_paths: vec!["**/.git".into()],
        delete_mode: delete,
        on_conflict: ConflictPolicy::Fail,
        state_dir: tempfile::tempdir().unwrap().keep(),
        categories: sandbox::CategoryTable::default(),
    }
}

fn call(root: &Path, method: &str, params: Value) -> Value {
    let mut sb =
        sandbox::Sandbox::open(root, config(DeleteMode::Trash), &ScanOptions::default()).unwrap();
    sb.call(method, params.as_object().unwrap()).unwrap().data
}

/// `analyze_directory` (scan + aggregates) on `root` against `du -s --apparent-size` (which also
/// stats every entry and counts hardlinks once).
pub fn analyze_bench(root: &Path, out: &mut String) {
    let r = root.to_str().unwrap();
    let mut ours_bytes = 0;
    let ours = time(5, || {
        let a = call(
            root,
            "analyze_directory",
            json!({"path": ".", "duplicates": false}),
        );
        ours_bytes = a["total_size"].as_u64().unwrap();
    });
    let with_dups = time(3, || {
        call(root, "analyze_directory", json!({"path": "."}))["duplicates"]["share"].clone()
    });
    let mut du_bytes = 0u64;
    let du = time(5, || {
        let o = Command::new("du")
            .args(["-s", "--apparent-size", "-B1", r])
            .output()
            .unwrap();
        du_bytes = String::from_utf8_lossy(&o.stdout)
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
    });
    // du also counts the folders' own entries; files alone must agree with find's sum.
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "find '{r}' -type f -printf '%s\\n' | awk '{{s+=$1}} END {{print s}}'"
        ))
        .output()
        .unwrap();
    let file_bytes: u64 = String::from_utf8_lossy(&o.stdout).trim().parse().unwrap();
    assert_eq!(
        ours_bytes, file_bytes,
        "analyze and find agree on the files' bytes"
    );
    out.push_str("| analyze | scope-weaver scan + analyze_directory | `du -s --apparent-size` | ratio | with the duplicate share (hashes candidates) | ratio to du |\n|---|---|---|---|---|---|\n");
    out.push_str(&format!(
        "| same tree ({} files' bytes; du {} with folders) | {} | {} | {:.2}× | {} | {:.2}× |\n\n",
        ours_bytes,
        du_bytes,
        ms(ours),
        ms(du),
        ours.as_secs_f64() / du.as_secs_f64(),
        ms(with_dups),
        with_dups.as_secs_f64() / du.as_secs_f64(),
    ));
}

/// A folder of `files` files: three quarters text (words from a small vocabulary, compressible
/// like prose or logs), one quarter pseudo-random bytes (like photos or archives).
fn make_archive_tree(root: &Path, files: usize) -> u64 {
    const WORDS: &[&str] = &[
        "invoice", "report", "quarter", "budget", "meeting", "notes", "project", "deadline",
        "customer", "revenue", "the", "and", "of", "to", "in", "for", "with", "on", "summary",
        "draft", "final", "review", "team", "plan", "travel", "receipt", "total", "tax", "2024",
        "error", "warning", "request", "served", "ms", "user", "login", "export", "import",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut total = 0;
    for i in 0..files {
        let dir = root.join(format!("folder{:02}", i % 20));
        std::fs::create_dir_all(&dir).unwrap();
        let size = 1_000 + (next() % 200_000) as usize;
        let bytes: Vec<u8> = if i % 4 == 3 {
            (0..size).map(|_| next() as u8).collect()
        } else {
            let mut t = String::with_capacity(size + 16);
            while t.len() < size {
                t.push_str(WORDS[(next() % WORDS.len() as u64) as usize]);
                t.push(if next() % 12 == 0 { '\n' } else { ' ' });
            }
            t.into_bytes()
        };
        total += bytes.len() as u64;
        std::fs::write(
            dir.join(format!(
                "file{i:05}.{}",
                if i % 4 == 3 { "bin" } else { "txt" }
            )),
            bytes,
        )
        .unwrap();
    }
    total
}

/// create_archive (simulate, then commit: the archive is written at commit) against `tar`.
pub fn archive_bench(out: &mut String) {
    let files: usize = std::env::var("BENCH_ARCHIVE_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    let bytes = make_archive_tree(&dir.path().join("data"), files);
    eprintln!(
        "generated {files} files ({} MB) in {:.1}s",
        bytes / 1_000_000,
        t.elapsed().as_secs_f64()
    );
    let root = dir.path();
    let ours = |target: &str| {
        let out = root.join(target);
        let mut size = 0;
        let d = time(3, || {
            let _ = std::fs::remove_file(&out);
            let mut sb = sandbox::Sandbox::open(
                root,
                config(DeleteMode::Permanent),
                &ScanOptions::default(),
            )
            .unwrap();
            let p = json!({"source": ["data"], "target": target});
            let r = sb.call("create_archive", p.as_object().unwrap()).unwrap();
            sb.stage(&r.snapshot_id).unwrap();
            sb.commit(None).unwrap();
            size = std::fs::metadata(&out).unwrap().len();
        });
        (d, size)
    };
    let theirs = |args: &[&str], target: &str| {
        let out = root.join(target);
        let mut size = 0;
        let d = time(3, || {
            let _ = std::fs::remove_file(&out);
            let status = Command::new("tar")
                .args(args)
                .arg(&out)
                .arg("-C")
                .arg(root)
                .arg("data")
                .status()
                .unwrap();
            assert!(status.success());
            size = std::fs::metadata(&out).unwrap().len();
        });
        (d, size)
    };
    let (gz, gz_size) = ours("ours.tar.gz");
    let (tgz, tgz_size) = theirs(&["czf"], "theirs.tar.gz");
    out.push_str(&format!(
        "| archive ({files} files, {} MB) | scope-weaver create_archive + commit | size | `tar` | size | ratio |\n|---|---|---|---|---|---|\n",
        bytes / 1_000_000
    ));
    out.push_str(&format!(
        "| tar.gz (gzip level 6) | {} | {:.1} MB | {} (`tar czf`) | {:.1} MB | {:.2}× |\n",
        ms(gz),
        gz_size as f64 / 1e6,
        ms(tgz),
        tgz_size as f64 / 1e6,
        gz.as_secs_f64() / tgz.as_secs_f64()
    ));
    if Command::new("zstd").arg("--version").output().is_ok() {
        let (zst, zst_size) = ours("ours.tar.zst");
        let (tzst, tzst_size) = theirs(&["--zstd", "-cf"], "theirs.tar.zst");
        out.push_str(&format!(
            "| tar.zst (zstd level 3) | {} | {:.1} MB | {} (`tar --zstd -cf`) | {:.1} MB | {:.2}× |\n",
            ms(zst),
            zst_size as f64 / 1e6,
            ms(tzst),
            tzst_size as f64 / 1e6,
            zst.as_secs_f64() / tzst.as_secs_f64()
        ));
    }
    out.push('\n');
}
