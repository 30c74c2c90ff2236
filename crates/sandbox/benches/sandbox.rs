//! Sandbox benchmarks, printed as a Markdown table (and written to `$BENCH_OUT` when set):
//! scan of a generated 200k-file tree vs `find ROOT | wc -l` in the same run, and snapshot + rollback
//! vs a full graph clone (the prototype's `G.copy()`) at 10k / 100k / 1M nodes, and duplicate
//! finding on a generated tree vs `fclones group` (when fclones is installed; `$FCLONES` names it),
//! analyze_directory vs `du -s` and archive creation vs `tar czf` / `tar --zstd` (`peers.rs`).
//!
//! Run: `bash scripts/bench-sandbox.sh` (env: `BENCH_SCAN_FILES`, `BENCH_DUP_FILES` change the sizes).

mod peers;

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use config::{ConflictPolicy, DeleteMode};
use sandbox::{
    FileSystemGraph, Node, NodeKind, SandboxConfig, ScanOptions, Scope, call_graph_method,
    graph_primitive_table,
};
use serde_json::json;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn time<T>(runs: usize, mut f: impl FnMut() -> T) -> Duration {
    median(
        (0..runs)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn ms(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 1e-4 {
        "< 0.1 µs".to_owned()
    } else if ms < 1.0 {
        format!("{:.1} µs", ms * 1e3)
    } else {
        format!("{ms:.1} ms")
    }
}

fn make_tree(root: &Path, files: usize) {
    let per_dir = 500;
    for i in 0..files {
        let dir = root.join(format!(
            "d{:03}/s{:03}",
            i / (per_dir * 20),
            (i / per_dir) % 20
        ));
        if i % per_dir == 0 {
            std::fs::create_dir_all(&dir).unwrap();
        }
        std::fs::write(dir.join(format!("f{i:06}.txt")), b"x").unwrap();
    }
}

fn scan_bench(out: &mut String) {
    let files: usize = std::env::var("BENCH_SCAN_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let dir = tempfile::tempdir().unwrap();
    let t = Instant::now();
    make_tree(dir.path(), files);
    eprintln!(
        "generated {files} files in {:.1}s",
        t.elapsed().as_secs_f64()
    );
    let config = SandboxConfig {
        protected_paths: vec!["**/.git".into()],
        delete_mode: DeleteMode::Trash,
        on_conflict: ConflictPolicy::Fail,
        state_dir: dir.path().join(".state"),
        categories: sandbox::CategoryTable::default(),
    };
    let root = dir.path().to_str().unwrap().to_owned();
    let mut nodes = 0;
    let mut lines = 0;
    let find = time(5, || {
        let o = Command::new("sh")
            .arg("-c")
            .arg(format!("find '{root}' | wc -l"))
            .output()
            .unwrap();
        lines = String::from_utf8_lossy(&o.stdout)
            .trim()
            .parse::<usize>()
            .unwrap();
    });
    let mut analyze = String::new();
    peers::analyze_bench(dir.path(), &mut analyze);
    // Like for like: find also stats every entry for size and mtime, as the scan does. The two
    // take turns (seven rounds, medians), so both see the same machine.
    let (mut ours, mut find_stat) = (Vec::new(), Vec::new());
    for _ in 0..7 {
        ours.push(time(1, || {
            let sb = sandbox::Sandbox::open(dir.path(), config.clone(), &ScanOptions::default())
                .unwrap();
            nodes = sb.graph().len();
        }));
        find_stat.push(time(1, || {
            Command::new("sh")
                .arg("-c")
                .arg(format!("find '{root}' -printf '%s %T@\\n' | wc -l"))
                .output()
                .unwrap()
        }));
    }
    let (ours, find_stat) = (median(ours), median(find_stat));
    assert_eq!(nodes, lines, "both saw every entry");
    out.push_str("| scan | entries | scope-weaver scan (stat + graph) | `find ROOT \\| wc -l` | ratio | `find -printf '%s %T@'` (stats too) | ratio |\n|---|---|---|---|---|---|---|\n");
    out.push_str(&format!(
        "| generated tree | {nodes} | {} | {} | {:.2}× | {} | {:.2}× |\n\n",
        ms(ours),
        ms(find),
        ours.as_secs_f64() / find.as_secs_f64(),
        ms(find_stat),
        ours.as_secs_f64() / find_stat.as_secs_f64()
    ));
    out.push_str(&analyze);
}

fn graph_of(n: usize) -> FileSystemGraph {
    let mut root = Node::new(".".into(), NodeKind::Dir);
    root.name = "root".into();
    let per_dir = 1000;
    let mut nodes = Vec::with_capacity(n);
    let dirs = n.div_ceil(per_dir + 1);
    for d in 0..dirs {
        nodes.push(Node::new(format!("d{d:05}"), NodeKind::Dir));
    }
    for i in 0..n.saturating_sub(dirs + 1) {
        let mut f = Node::new(format!("d{:05}/f{i:07}.jpg", i % dirs), NodeKind::File);
        f.size = 1000;
        nodes.push(f);
    }
    FileSystemGraph::from_nodes(root, nodes)
}

fn snapshot_bench(out: &mut String) {
    out.push_str("| graph nodes | full clone (`G.copy()`) | snapshot | snapshot + step (move 100 files) + rollback | ratio (clone / snapshot+rollback) |\n|---|---|---|---|---|\n");
    let table = graph_primitive_table();
    let scope = Scope::new("/bench-root".into(), None);
    for n in [10_000usize, 100_000, 1_000_000] {
        let mut g = graph_of(n);
        assert_eq!(g.len(), n);
        let clone = time(5, || g.clone());
        let snap = time(5, || g.snapshot());
        let sources: Vec<String> = g
            .children("d00000")
            .iter()
            .take(100)
            .map(|c| c.id.clone())
            .collect();
        let params = json!({"source": sources, "target": "moved"});
        let params = params.as_object().unwrap();
        let before = g.fingerprint_state().len();
        let cycle = time(5, || {
            let s = g.snapshot();
            let r = call_graph_method(
                &mut g,
                &scope,
                &table,
                ConflictPolicy::Fail,
                &sandbox::CategoryTable::default(),
                None,
                "move_node",
                params,
            )
            .unwrap();
            assert!(r.ok);
            g.rollback(s).unwrap()
        });
        assert_eq!(g.len(), before);
        out.push_str(&format!(
            "| {n} | {} | {} | {} | {:.0}× |\n",
            ms(clone),
            ms(snap),
            ms(cycle),
            clone.as_secs_f64() / cycle.as_secs_f64()
        ));
    }
    out.push('\n');
}

/// A tree for duplicate finding: files of mixed sizes (log-distributed, 100 B to 4 MB), a quarter
/// of them copies of earlier ones, and a tenth the same size as another file but different in the
/// last bytes (so every stage of the pipeline has work). Deterministic.
fn make_dup_tree(root: &Path, files: usize) -> u64 {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        seed >> 33
    };
    // Largest file (log-distributed from 100 B): 4 MB unless `BENCH_DUP_MAX_BYTES` says.
    let max_bytes: f64 = std::env::var("BENCH_DUP_MAX_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4_000_000.0);
    let mut written: Vec<(std::path::PathBuf, Vec<u8>)> = Vec::new();
    let mut total = 0u64;
    for i in 0..files {
        let dir = root.join(format!("d{:02}/s{:02}", i % 37, (i / 37) % 11));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("f{i:06}.bin"));
        let roll = next() % 100;
        let bytes: Vec<u8> = if roll < 25 && !written.is_empty() {
            written[(next() as usize) % written.len()].1.clone()
        } else if roll < 35 && !written.is_empty() {
            let mut b = written[(next() as usize) % written.len()].1.clone();
            let n = b.len();
            b[n - 1] ^= 0xff;
            b
        } else {
            let exp = 100.0f64 * (max_bytes / 100.0).powf((next() % 1000) as f64 / 1000.0);
            let n = exp as usize;
            let fill = next();
            (0..n)
                .map(|k| (k as u64).wrapping_mul(fill) as u8 ^ (k >> 7) as u8)
                .collect()
        };
        total += bytes.len() as u64;
        std::fs::write(&path, &bytes).unwrap();
        if written.len() < 4000 {
            written.push((path, bytes));
        }
    }
    total
}

/// Groups in fclones' default text output: one header line (`hash, size * count:`) per group.
fn fclones_groups(stdout: &str) -> usize {
    stdout
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with(' ') && l.trim_end().ends_with(':'))
        .count()
}

fn duplicates_bench(out: &mut String) {
    let files: usize = std::env::var("BENCH_DUP_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let fclones = std::env::var("FCLONES").unwrap_or_else(|_| "fclones".into());
    if Command::new(&fclones).arg("--version").output().is_err() {
        eprintln!(
            "duplicates: skipped ({fclones} not found; scripts/bench-sandbox.sh installs it)"
        );
        return;
    }
    // Not under a dot-folder: fclones skips hidden paths by default.
    let dir = tempfile::Builder::new()
        .prefix("sw-bench-dups")
        .tempdir()
        .unwrap();
    let bytes = make_dup_tree(dir.path(), files);
    // Each run gets its own state folder, so its hash cache starts empty: every file is read.
    let config_in = |state_dir: &Path| SandboxConfig {
        protected_paths: vec!["**/.git".into()],
        delete_mode: DeleteMode::Trash,
        on_conflict: ConflictPolicy::Fail,
        state_dir: state_dir.to_owned(),
        categories: sandbox::CategoryTable::default(),
    };
    let params = json!({"path": "."});
    let params = params.as_object().unwrap();
    let mut ours_groups = 0;
    let scan = |hash: &str, state_dir: &Path| -> usize {
        let mut p = params.clone();
        p.insert("hash".into(), json!(hash));
        let mut sb =
            sandbox::Sandbox::open(dir.path(), config_in(state_dir), &ScanOptions::default())
                .unwrap();
        let r = sb.call("find_duplicates", &p).unwrap();
        r.data["group_count"].as_u64().unwrap() as usize
    };
    let mut run_ours = |hash: &str| {
        time(3, || {
            let state = tempfile::tempdir().unwrap();
            ours_groups = scan(hash, state.path());
        })
    };
    // Warm the page cache once, so both read from memory.
    run_ours("xxh3");
    let ours = run_ours("xxh3");
    let ours_sha = run_ours("sha256");
    let mut theirs_groups = 0;
    let theirs = time(3, || {
        let o = Command::new(&fclones)
            .arg("group")
            .arg(dir.path())
            .stderr(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success());
        theirs_groups = fclones_groups(&String::from_utf8_lossy(&o.stdout));
    });
    assert_eq!(ours_groups, theirs_groups, "both found the same groups");
    let version = Command::new(&fclones)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    out.push_str(&format!(
        "| duplicates ({version}) | files | data | groups | scope-weaver scan + find_duplicates (xxh3) | `fclones group` | ratio | with sha256 | ratio |\n|---|---|---|---|---|---|---|---|---|\n"
    ));
    out.push_str(&format!(
        "| generated tree | {files} | {:.0} MB | {ours_groups} | {} | {} | {:.2}× | {} | {:.2}× |\n\n",
        bytes as f64 / 1e6,
        ms(ours),
        ms(theirs),
        ours.as_secs_f64() / theirs.as_secs_f64(),
        ms(ours_sha),
        ours_sha.as_secs_f64() / theirs.as_secs_f64(),
    ));

    // A second scan over the unchanged tree with the hash caches: ours (beside the state) and
    // fclones' (`--cache`, under its own HOME here). With `BENCH_DROP_CACHES=1` (root) the page
    // cache is dropped before every timed run, as after a reboot: then the first scan reads every
    // byte from the disk and the second only what the cache cannot vouch for.
    let cold = std::env::var("BENCH_DROP_CACHES").is_ok_and(|v| v == "1");
    let drop_caches = || {
        if cold {
            let _ = Command::new("sync").status();
            std::fs::write("/proc/sys/vm/drop_caches", "3")
                .expect("dropping the page cache (root)");
        }
    };
    let state = tempfile::tempdir().unwrap();
    drop_caches();
    let ours_first = time(1, || scan("xxh3", state.path()));
    let ours_second = time(3, || {
        drop_caches();
        scan("xxh3", state.path())
    });
    let fclones_home = tempfile::tempdir().unwrap();
    let fclones_cached = || {
        let o = Command::new(&fclones)
            .args(["group", "--cache"])
            .arg(dir.path())
            .env("HOME", fclones_home.path())
            .env("XDG_CACHE_HOME", fclones_home.path().join(".cache"))
            .stderr(std::process::Stdio::null())
            .output()
            .unwrap();
        assert!(o.status.success());
        assert_eq!(
            fclones_groups(&String::from_utf8_lossy(&o.stdout)),
            ours_groups
        );
    };
    drop_caches();
    let theirs_first = time(1, fclones_cached);
    let theirs_second = time(3, || {
        drop_caches();
        fclones_cached()
    });
    let page_cache = if cold {
        "page cache dropped"
    } else {
        "page cache warm"
    };
    out.push_str(
        "| hash cache | files | first scan (empty cache) | second scan (unchanged tree) | speed-up | `fclones group --cache` first | second | ours / theirs, second |\n|---|---|---|---|---|---|---|---|\n",
    );
    out.push_str(&format!(
        "| generated tree, {page_cache} | {files} | {} | {} | {:.1}× | {} | {} | {:.2}× |\n\n",
        ms(ours_first),
        ms(ours_second),
        ours_first.as_secs_f64() / ours_second.as_secs_f64(),
        ms(theirs_first),
        ms(theirs_second),
        ours_second.as_secs_f64() / theirs_second.as_secs_f64(),
    ));
}

fn main() {
    // `cargo bench` passes `--bench`; any other filter argument is ignored.
    // `BENCH_ONLY=duplicates` (or scan, snapshots, archives) runs one part.
    let only = std::env::var("BENCH_ONLY").ok();
    let wanted = |part: &str| only.as_deref().is_none_or(|o| o == part);
    let mut out = String::new();
    if wanted("duplicates") {
        duplicates_bench(&mut out);
    }
    if wanted("scan") {
        scan_bench(&mut out);
    }
    if wanted("snapshots") {
        snapshot_bench(&mut out);
    }
    if wanted("archives") {
        peers::archive_bench(&mut out);
    }
    println!("{out}");
    if let Ok(path) = std::env::var("BENCH_OUT") {
        std::fs::write(path, &out).unwrap();
    }
}
