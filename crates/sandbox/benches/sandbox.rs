//! Sandbox benchmarks, printed as a Markdown table (and written to `$BENCH_OUT` when set):
//! scan of a generated 200k-file tree vs `find ROOT | wc -l` in the same run, and snapshot + rollback
//! vs a full graph clone (the prototype's `G.copy()`) at 10k / 100k / 1M nodes.
//!
//! Run: `cargo bench -p sandbox` (env: `BENCH_SCAN_FILES` to change the tree size).

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
        delete_mode: DeleteMode::Trash,
        on_conflict: ConflictPolicy::Fail,
        state_dir: dir.path().join(".state"),
    };
    let root = dir.path().to_str().unwrap().to_owned();
    let mut nodes = 0;
    let ours = time(5, || {
        let sb =
            sandbox::Sandbox::open(dir.path(), config.clone(), &ScanOptions::default()).unwrap();
        nodes = sb.graph().len();
    });
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
    assert_eq!(nodes, lines, "both saw every entry");
    // Like for like: find also stats every entry for size and mtime, as the scan does.
    let find_stat = time(5, || {
        Command::new("sh")
            .arg("-c")
            .arg(format!("find '{root}' -printf '%s %T@\\n' | wc -l"))
            .output()
            .unwrap()
    });
    out.push_str("| scan | entries | scope-weaver scan (stat + graph) | `find ROOT \\| wc -l` | ratio | `find -printf '%s %T@'` (stats too) | ratio |\n|---|---|---|---|---|---|---|\n");
    out.push_str(&format!(
        "| generated tree | {nodes} | {} | {} | {:.2}× | {} | {:.2}× |\n\n",
        ms(ours),
        ms(find),
        ours.as_secs_f64() / find.as_secs_f64(),
        ms(find_stat),
        ours.as_secs_f64() / find_stat.as_secs_f64()
    ));
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

fn main() {
    // `cargo bench` passes `--bench`; any other filter argument is ignored.
    let mut out = String::new();
    scan_bench(&mut out);
    snapshot_bench(&mut out);
    println!("{out}");
    if let Ok(path) = std::env::var("BENCH_OUT") {
        std::fs::write(path, &out).unwrap();
    }
}
