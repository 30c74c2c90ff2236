//! Audit log benchmarks, printed as a Markdown table (and written to `$BENCH_OUT` when set):
//! records per second appended with the hash chain (one durable transaction each) against plain
//! INSERTs of the same rows with the same settings, and `verify` over 100k records against
//! reading the same rows without checking them — on SQLite, and on PostgreSQL when
//! `SCOPE_WEAVER_TEST_POSTGRES` names a server (scripts/bench-audit.sh starts one with fsync on).
//!
//! Run: `bash scripts/bench-audit.sh` (env: `BENCH_APPENDS`, `BENCH_VERIFY_RECORDS`).

use std::time::{Duration, Instant};

use audit::{AuditStore, ChainHead, Entry, next_entry};
use futures_util::TryStreamExt;
use serde_json::{Value, json};
use sqlx::Connection;

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A record the size of a typical `dispatched` event.
fn body(i: usize) -> Value {
    json!({
        "event": "dispatched", "step": i % 7, "skill": "organize-by-type", "tool": "organize",
        "primitive": "graph", "operation": "organize_by_type", "mutates": true, "ok": true,
        "params": {"path": "Downloads", "recursive": false, "by": "type"},
        "summary": format!("Organized {} files into 5 subfolders", i % 100),
        "data": {"moved": (0..8).map(|k| format!("Downloads/file-{i}-{k}.pdf")).collect::<Vec<_>>()},
        "ms": 1.25,
    })
}

fn fmt(d: Duration) -> String {
    let ms = d.as_secs_f64() * 1e3;
    if ms < 1.0 {
        format!("{:.1} µs", ms * 1e3)
    } else if ms < 10_000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1e3)
    }
}

/// A plain table of the same columns, for the baselines.
const PLAIN_SQLITE: &str = "CREATE TABLE IF NOT EXISTS plain (seq INTEGER PRIMARY KEY, id TEXT, \
    at TEXT, run_id TEXT, kind TEXT, body TEXT, previous_hash TEXT, hash TEXT)";
const PLAIN_PG: &str = "CREATE TABLE IF NOT EXISTS plain (seq BIGINT PRIMARY KEY, id TEXT, \
    at TEXT, run_id TEXT, kind TEXT, body TEXT, previous_hash TEXT, hash TEXT)";

enum Raw {
    Sqlite(sqlx::SqliteConnection),
    Pg(sqlx::PgConnection),
}

impl Raw {
    async fn exec(&mut self, sql: &str) {
        match self {
            Raw::Sqlite(c) => sqlx::query(sql).execute(c).await.map(|_| ()),
            Raw::Pg(c) => sqlx::query(sql).execute(c).await.map(|_| ()),
        }
        .unwrap();
    }

    /// One durable transaction with one row, like an append but without the chain.
    async fn insert_plain(&mut self, e: &Entry, placeholders: &str) {
        let sql = format!(
            "INSERT INTO plain (seq, id, at, run_id, kind, body, previous_hash, hash) VALUES ({placeholders})"
        );
        macro_rules! bind {
            ($q:expr) => {
                $q.bind(e.seq)
                    .bind(&e.id)
                    .bind(&e.at)
                    .bind(&e.run_id)
                    .bind(&e.kind)
                    .bind(&e.body)
                    .bind(&e.previous_hash)
                    .bind(&e.hash)
            };
        }
        match self {
            Raw::Sqlite(c) => {
                let mut tx = c.begin_with("BEGIN IMMEDIATE").await.unwrap();
                bind!(sqlx::query(&sql)).execute(&mut *tx).await.unwrap();
                tx.commit().await.unwrap();
            }
            Raw::Pg(c) => {
                let mut tx = c.begin().await.unwrap();
                bind!(sqlx::query(&sql)).execute(&mut *tx).await.unwrap();
                tx.commit().await.unwrap();
            }
        }
    }

    /// Streams every row of `table` and touches each body (no hashing, no checks).
    async fn read_all(&mut self, table: &str) -> usize {
        let sql = format!(
            "SELECT seq, id, at, run_id, kind, body, previous_hash, hash FROM {table} ORDER BY seq"
        );
        let mut n = 0;
        match self {
            Raw::Sqlite(c) => {
                let mut rows = sqlx::query_as::<
                    _,
                    (i64, String, String, String, String, String, String, String),
                >(&sql)
                .fetch(c);
                while let Some(r) = rows.try_next().await.unwrap() {
                    n += std::hint::black_box(r.5.len()).min(1);
                }
            }
            Raw::Pg(c) => {
                let mut rows = sqlx::query_as::<
                    _,
                    (i64, String, String, String, String, String, String, String),
                >(&sql)
                .fetch(c);
                while let Some(r) = rows.try_next().await.unwrap() {
                    n += std::hint::black_box(r.5.len()).min(1);
                }
            }
        }
        n
    }

    /// Writes a valid chain of `n` entries into the store's own tables in one transaction (a
    /// fast way to build a big log for `verify`; appends are measured separately).
    async fn bulk_chain(&mut self, n: usize, pg: bool) {
        let (prefix, ph, head_sql) = if pg {
            (
                "scope_weaver.",
                "$1, $2, $3, $4, $5, $6, $7, $8",
                "INSERT INTO scope_weaver.chain_head (id, count, hash) VALUES (1, $1, $2) \
                 ON CONFLICT (id) DO UPDATE SET count = EXCLUDED.count, hash = EXCLUDED.hash",
            )
        } else {
            (
                "",
                "?, ?, ?, ?, ?, ?, ?, ?",
                "INSERT INTO chain_head (id, count, hash) VALUES (1, ?, ?) \
                 ON CONFLICT (id) DO UPDATE SET count = excluded.count, hash = excluded.hash",
            )
        };
        let insert = format!(
            "INSERT INTO {prefix}entries (seq, id, at, run_id, kind, body, previous_hash, hash) VALUES ({ph})"
        );
        self.exec("BEGIN").await;
        let mut head: Option<ChainHead> = None;
        for i in 0..n {
            let e = next_entry(
                head.as_ref(),
                format!("a{:08}-bench", i + 1),
                "2026-11-21T00:00:00.000000Z".into(),
                format!("r{:06}", i / 50),
                "dispatched".into(),
                &body(i),
            );
            macro_rules! run {
                ($c:expr) => {
                    sqlx::query(&insert)
                        .bind(e.seq)
                        .bind(&e.id)
                        .bind(&e.at)
                        .bind(&e.run_id)
                        .bind(&e.kind)
                        .bind(&e.body)
                        .bind(&e.previous_hash)
                        .bind(&e.hash)
                        .execute($c)
                        .await
                        .map(|_| ())
                };
            }
            match self {
                Raw::Sqlite(c) => run!(c),
                Raw::Pg(c) => run!(c),
            }
            .unwrap();
            head = Some(ChainHead {
                count: e.seq,
                hash: e.hash,
            });
        }
        let h = head.unwrap();
        match self {
            Raw::Sqlite(c) => sqlx::query(head_sql)
                .bind(h.count)
                .bind(&h.hash)
                .execute(c)
                .await
                .map(|_| ()),
            Raw::Pg(c) => sqlx::query(head_sql)
                .bind(h.count)
                .bind(&h.hash)
                .execute(c)
                .await
                .map(|_| ()),
        }
        .unwrap();
        self.exec("COMMIT").await;
    }
}

struct Row {
    backend: &'static str,
    appends: usize,
    chain: Duration,
    plain: Duration,
    verified: usize,
    verify: Duration,
    read: Duration,
}

fn bench_backend(
    backend: &'static str,
    target: &str,
    raw_url: &str,
    appends: usize,
    verify_n: usize,
) -> Row {
    let rt = rt();
    let pg = backend == "postgres";
    let store = AuditStore::connect(target).unwrap();
    // Appends with the chain.
    let t = Instant::now();
    for i in 0..appends {
        store.append("rbench", "dispatched", &body(i)).unwrap();
    }
    let chain = t.elapsed();
    assert!(store.verify().unwrap().ok());
    drop(store);
    // The same rows, plain, with the same durability settings.
    let entries = AuditStore::connect(target).unwrap().entries().unwrap();
    let mut raw = rt.block_on(async {
        if pg {
            let mut c = sqlx::PgConnection::connect(raw_url).await.unwrap();
            sqlx::query(PLAIN_PG).execute(&mut c).await.unwrap();
            Raw::Pg(c)
        } else {
            let mut c = sqlx::SqliteConnection::connect(raw_url).await.unwrap();
            for p in [
                "PRAGMA journal_mode = WAL",
                "PRAGMA synchronous = FULL",
                PLAIN_SQLITE,
            ] {
                sqlx::query(p).execute(&mut c).await.unwrap();
            }
            Raw::Sqlite(c)
        }
    });
    let ph = if pg {
        "$1, $2, $3, $4, $5, $6, $7, $8"
    } else {
        "?, ?, ?, ?, ?, ?, ?, ?"
    };
    let t = Instant::now();
    rt.block_on(async {
        for e in &entries {
            raw.insert_plain(e, ph).await;
        }
    });
    let plain = t.elapsed();
    // A big chain for verify: the store's own tables, emptied and bulk-filled.
    rt.block_on(async {
        let prefix = if pg { "scope_weaver." } else { "" };
        raw.exec(&format!("DELETE FROM {prefix}entries")).await;
        raw.exec(&format!("DELETE FROM {prefix}chain_head")).await;
        raw.bulk_chain(verify_n, pg).await;
    });
    let store = AuditStore::connect(target).unwrap();
    let t = Instant::now();
    let report = store.verify().unwrap();
    let verify = t.elapsed();
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.checked, verify_n);
    let t = Instant::now();
    let read_n = rt.block_on(raw.read_all(if pg {
        "scope_weaver.entries"
    } else {
        "entries"
    }));
    let read = t.elapsed();
    assert_eq!(read_n, verify_n);
    Row {
        backend,
        appends,
        chain,
        plain,
        verified: verify_n,
        verify,
        read,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs this too: keep that quick.
    let quick = !std::env::args().any(|a| a == "--bench");
    let appends = env_usize("BENCH_APPENDS", if quick { 20 } else { 2000 });
    let verify_n = env_usize("BENCH_VERIFY_RECORDS", if quick { 200 } else { 100_000 });
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    let file = dir.path().join("audit.sqlite");
    rows.push(bench_backend(
        "sqlite",
        &file.display().to_string(),
        &format!("sqlite://{}", file.display()),
        appends,
        verify_n,
    ));
    match std::env::var("SCOPE_WEAVER_TEST_POSTGRES") {
        Ok(admin) => {
            let name = format!("sw_bench_{}", std::process::id());
            rt().block_on(async {
                let mut c = sqlx::PgConnection::connect(&admin).await.unwrap();
                sqlx::query(&format!("CREATE DATABASE {name}"))
                    .execute(&mut c)
                    .await
                    .unwrap();
            });
            let url = format!("{}/{name}", admin.rsplit_once('/').unwrap().0);
            rows.push(bench_backend("postgres", &url, &url, appends, verify_n));
        }
        Err(_) => eprintln!("PostgreSQL skipped: SCOPE_WEAVER_TEST_POSTGRES is not set"),
    }
    let mut out = String::new();
    out.push_str(
        "| backend | records | append with the chain (1 durable tx each) | plain INSERT, same settings | ratio | chain records/s |\n|---|---|---|---|---|---|\n",
    );
    for r in &rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.2}× | {:.0} |\n",
            r.backend,
            r.appends,
            fmt(r.chain),
            fmt(r.plain),
            r.chain.as_secs_f64() / r.plain.as_secs_f64(),
            r.appends as f64 / r.chain.as_secs_f64()
        ));
    }
    out.push_str(
        "\n| backend | records | `verify` (stream + SHA-256 + links) | read the rows only | ratio | per record |\n|---|---|---|---|---|---|\n",
    );
    for r in &rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {:.2}× | {} |\n",
            r.backend,
            r.verified,
            fmt(r.verify),
            fmt(r.read),
            r.verify.as_secs_f64() / r.read.as_secs_f64(),
            fmt(r.verify / r.verified as u32)
        ));
    }
    print!("{out}");
    if let Ok(path) = std::env::var("BENCH_OUT") {
        std::fs::write(&path, &out).unwrap();
        eprintln!("wrote {path}");
    }
}
