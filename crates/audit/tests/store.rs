//! The audit store on both backends — a real SQLite file and a real PostgreSQL server (the URL in
//! `SCOPE_WEAVER_TEST_POSTGRES`, which scripts/test.sh starts): appends survive reopening,
//! tampering with the stored rows directly (edit, delete, insert, reorder, cut the tail) is caught
//! at the first broken link, a locked chain is a clear `AUDIT_LOCKED`, a full disk a clear
//! `AUDIT_DISK_FULL`, and concurrent writers extend one chain.

use std::time::Duration;

use audit::{AuditStore, StoreOptions, next_entry};
use contracts::ErrorCode;
use serde_json::json;
use sqlx::Connection;

/// Where the PostgreSQL tests run. Without a server they are skipped, unless
/// `SCOPE_WEAVER_TEST_REQUIRE_POSTGRES` is set (CI sets it): then a missing server fails them.
fn postgres_admin_url() -> Option<String> {
    match std::env::var("SCOPE_WEAVER_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            assert!(
                std::env::var_os("SCOPE_WEAVER_TEST_REQUIRE_POSTGRES").is_none(),
                "SCOPE_WEAVER_TEST_REQUIRE_POSTGRES is set but SCOPE_WEAVER_TEST_POSTGRES is not: \
                 run the tests through scripts/test.sh, which starts a server"
            );
            eprintln!("skipped: no PostgreSQL (SCOPE_WEAVER_TEST_POSTGRES is not set)");
            None
        }
    }
}

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A fresh, empty audit location on one backend.
struct Fixture {
    target: String,
    /// PostgreSQL: the URL of the test database with `search_path=scope_weaver`, for tampering.
    raw_pg: Option<String>,
    _dir: tempfile::TempDir,
}

#[derive(Debug, Clone, Copy)]
enum Backend {
    Sqlite,
    Postgres,
}

impl Fixture {
    fn new(backend: Backend) -> Option<Fixture> {
        let dir = tempfile::tempdir().unwrap();
        match backend {
            Backend::Sqlite => Some(Fixture {
                target: dir.path().join("audit.sqlite").display().to_string(),
                raw_pg: None,
                _dir: dir,
            }),
            Backend::Postgres => {
                let admin = postgres_admin_url()?;
                let name = format!(
                    "sw_test_{}",
                    dir.path()
                        .file_name()
                        .unwrap()
                        .to_string_lossy()
                        .to_lowercase()
                        .replace(|c: char| !c.is_ascii_alphanumeric(), "_")
                );
                rt().block_on(async {
                    let mut c = sqlx::PgConnection::connect(&admin).await.unwrap();
                    sqlx::query(&format!("CREATE DATABASE {name}"))
                        .execute(&mut c)
                        .await
                        .unwrap();
                });
                let (base, _) = admin.rsplit_once('/').unwrap();
                let target = format!("{base}/{name}");
                Some(Fixture {
                    raw_pg: Some(format!("{target}?options=-c%20search_path%3Dscope_weaver")),
                    target,
                    _dir: dir,
                })
            }
        }
    }

    fn open(&self) -> AuditStore {
        AuditStore::connect(&self.target).unwrap()
    }

    fn filled(backend: Backend, n: usize) -> Option<Fixture> {
        let f = Fixture::new(backend)?;
        let store = f.open();
        for i in 0..n {
            store
                .append(
                    "r1",
                    "event",
                    &json!({"n": i, "text": format!("record {i}")}),
                )
                .unwrap();
        }
        Some(f)
    }

    /// Runs raw SQL against the stored rows, as someone editing them by hand would.
    fn tamper(&self, sql: &[&str]) {
        rt().block_on(async {
            match &self.raw_pg {
                None => {
                    let url = format!("sqlite://{}", self.target);
                    let mut c = sqlx::SqliteConnection::connect(&url).await.unwrap();
                    for s in sql {
                        sqlx::query(s).execute(&mut c).await.unwrap();
                    }
                }
                Some(url) => {
                    let mut c = sqlx::PgConnection::connect(url).await.unwrap();
                    for s in sql {
                        sqlx::query(s).execute(&mut c).await.unwrap();
                    }
                }
            }
        });
    }

    fn broken_at(&self) -> (i64, String) {
        let report = self.open().verify().unwrap();
        let b = report.broken.expect("the chain should be broken");
        (b.seq, b.reason)
    }
}

const BACKENDS: [Backend; 2] = [Backend::Sqlite, Backend::Postgres];

#[test]
fn appends_persist_and_verify() {
    for backend in BACKENDS {
        let Some(f) = Fixture::filled(backend, 20) else {
            continue;
        };
        let store = f.open();
        let report = store.verify().unwrap();
        assert!(report.ok(), "{backend:?}: {report:?}");
        assert_eq!(report.checked, 20);
        let head = store.head().unwrap().unwrap();
        assert_eq!(head.count, 20);
        assert_eq!(report.head.as_deref(), Some(head.hash.as_str()));
        let entries = store.entries().unwrap();
        assert_eq!(entries[4].value()["n"], 4);
        assert_eq!(store.run_entries("r1").unwrap().len(), 20);
        assert_eq!(store.run_entries("r2").unwrap().len(), 0);
    }
}

#[test]
fn the_same_records_hash_the_same_on_both_backends() {
    // The chain is a property of the records, not of the database.
    let Some(pg) = Fixture::new(Backend::Postgres) else {
        return;
    };
    let lite = Fixture::new(Backend::Sqlite).unwrap();
    let (a, b) = (lite.open(), pg.open());
    for i in 0..3 {
        a.append("r1", "event", &json!({"n": i})).unwrap();
        b.append("r1", "event", &json!({"n": i})).unwrap();
    }
    let (ea, eb) = (a.entries().unwrap(), b.entries().unwrap());
    for (x, y) in ea.iter().zip(&eb) {
        assert_eq!((x.seq, &x.id, &x.body), (y.seq, &y.id, &y.body));
        assert_eq!(x.compute_hash(), x.hash);
        assert_eq!(y.compute_hash(), y.hash);
        // Same record, same time: the same hash on either backend.
        let mut moved = y.clone();
        moved.at.clone_from(&x.at);
        moved.previous_hash.clone_from(&x.previous_hash);
        assert_eq!(moved.compute_hash(), x.hash);
    }
    assert_eq!(a.backend(), "sqlite");
    assert_eq!(b.backend(), "postgres");
}

#[test]
fn an_edited_record_is_named() {
    for backend in BACKENDS {
        let Some(f) = Fixture::filled(backend, 6) else {
            continue;
        };
        f.tamper(&[
            r#"UPDATE entries SET body = '{"n":3,"text":"nothing happened"}' WHERE seq = 4"#,
        ]);
        let (seq, why) = f.broken_at();
        assert_eq!(seq, 4, "{backend:?}");
        assert!(why.contains("edited"), "{why}");
    }
}

#[test]
fn a_deleted_record_is_named() {
    for backend in BACKENDS {
        let Some(f) = Fixture::filled(backend, 6) else {
            continue;
        };
        f.tamper(&["DELETE FROM entries WHERE seq = 2"]);
        let (seq, why) = f.broken_at();
        assert_eq!(seq, 2, "{backend:?}");
        assert!(why.contains("missing"), "{why}");
    }
}

#[test]
fn a_deleted_and_renumbered_record_breaks_the_link() {
    for backend in BACKENDS {
        let Some(f) = Fixture::filled(backend, 6) else {
            continue;
        };
        f.tamper(&[
            "DELETE FROM entries WHERE seq = 2",
            "UPDATE entries SET seq = seq + 1000 WHERE seq > 2",
            "UPDATE entries SET seq = seq - 1001 WHERE seq > 1000",
            "UPDATE chain_head SET count = 5",
        ]);
        let (seq, why) = f.broken_at();
        assert_eq!(seq, 2, "{backend:?}");
        assert!(why.contains("previous_hash"), "{why}");
    }
}

#[test]
fn an_inserted_record_is_named() {
    for backend in BACKENDS {
        let Some(f) = Fixture::filled(backend, 6) else {
            continue;
        };
        let entries = f.open().entries().unwrap();
        // A forged entry that links correctly to entry 3 and carries a correct hash of its own.
        let forged = next_entry(
            Some(&audit::ChainHead {
                count: 3,
                hash: entries[2].hash.clone(),
            }),
            "forged".into(),
            entries[2].at.clone(),
            "r1".into(),
            "event".into(),
            &json!({"n": "forged"}),
        );
        f.tamper(&[
            "UPDATE entries SET seq = seq + 100 WHERE seq > 3",
            "UPDATE entries SET seq = seq - 99 WHERE seq > 100",
            &format!(
                "INSERT INTO entries (seq, id, at, run_id, kind, body, previous_hash, hash) \
                 VALUES (4, '{}', '{}', 'r1', 'event', '{}', '{}', '{}')",
                forged.id, forged.at, forged.body, forged.previous_hash, forged.hash
            ),
            "UPDATE chain_head SET count = 7",
        ]);
        let (seq, why) = f.broken_at();
        assert_eq!(
            seq, 5,
            "{backend:?}: the entry after the forgery no longer links"
        );
        assert!(why.contains("previous_hash"), "{why}");
    }
}

#[test]
fn reordered_records_are_named() {
    for backend in BACKENDS {
        let Some(f) = Fixture::filled(backend, 6) else {
            continue;
        };
        f.tamper(&[
            "UPDATE entries SET seq = 100 WHERE seq = 3",
            "UPDATE entries SET seq = 3 WHERE seq = 4",
            "UPDATE entries SET seq = 4 WHERE seq = 100",
        ]);
        let (seq, _) = f.broken_at();
        assert_eq!(seq, 3, "{backend:?}");
    }
}

#[test]
fn a_cut_tail_is_named() {
    for backend in BACKENDS {
        let Some(f) = Fixture::filled(backend, 6) else {
            continue;
        };
        f.tamper(&["DELETE FROM entries WHERE seq > 4"]);
        let (seq, why) = f.broken_at();
        assert_eq!(seq, 5, "{backend:?}");
        assert!(why.contains("head"), "{why}");
    }
}

#[test]
fn a_locked_chain_is_a_clear_error_and_records_nothing() {
    let short = StoreOptions {
        lock_timeout: Duration::from_millis(200),
        ..StoreOptions::default()
    };
    // SQLite: another process holds the file's write lock.
    let f = Fixture::filled(Backend::Sqlite, 2).unwrap();
    let store = AuditStore::connect_with(&f.target, short).unwrap();
    let rt = rt();
    let mut holder = rt
        .block_on(sqlx::SqliteConnection::connect(&format!(
            "sqlite://{}",
            f.target
        )))
        .unwrap();
    rt.block_on(sqlx::query("BEGIN EXCLUSIVE").execute(&mut holder))
        .unwrap();
    let err = store.append("r1", "event", &json!({"n": 9})).unwrap_err();
    assert_eq!(err.code(), "AUDIT_LOCKED", "{err}");
    assert!(err.to_string().contains("audit.sqlite"), "{err}");
    rt.block_on(sqlx::query("ROLLBACK").execute(&mut holder))
        .unwrap();
    assert_eq!(store.head().unwrap().unwrap().count, 2);
    assert!(store.verify().unwrap().ok());

    // PostgreSQL: another session holds the chain head's table.
    let Some(f) = Fixture::filled(Backend::Postgres, 2) else {
        return;
    };
    let store = AuditStore::connect_with(&f.target, short).unwrap();
    let mut holder = rt
        .block_on(sqlx::PgConnection::connect(f.raw_pg.as_deref().unwrap()))
        .unwrap();
    rt.block_on(async {
        sqlx::query("BEGIN").execute(&mut holder).await.unwrap();
        sqlx::query("LOCK TABLE chain_head IN ACCESS EXCLUSIVE MODE")
            .execute(&mut holder)
            .await
            .unwrap();
    });
    let err = store.append("r1", "event", &json!({"n": 9})).unwrap_err();
    assert_eq!(err.code(), "AUDIT_LOCKED", "{err}");
    rt.block_on(sqlx::query("ROLLBACK").execute(&mut holder))
        .unwrap();
    assert_eq!(store.head().unwrap().unwrap().count, 2);
    assert!(store.verify().unwrap().ok());
}

#[test]
fn a_full_database_is_a_clear_error_and_keeps_the_chain_whole() {
    let f = Fixture::new(Backend::Sqlite).unwrap();
    // Room for the schema and a few records, then SQLite reports SQLITE_FULL, as on a full disk.
    let capped = StoreOptions {
        max_bytes: Some(64 * 1024),
        ..StoreOptions::default()
    };
    let store = AuditStore::connect_with(&f.target, capped).unwrap();
    let big = "x".repeat(4000);
    let mut written = 0;
    let err = loop {
        match store.append("r1", "event", &json!({"n": written, "pad": big})) {
            Ok(_) => written += 1,
            Err(e) => break e,
        }
        assert!(written < 1000, "the cap never applied");
    };
    assert_eq!(err.code(), "AUDIT_DISK_FULL", "{err}");
    assert!(err.to_string().contains("nothing was recorded"), "{err}");
    assert!(written > 0);
    drop(store);
    // Every record that was acknowledged is there, and the chain is intact.
    let store = f.open();
    let report = store.verify().unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.checked, written);
}

#[test]
fn concurrent_writers_extend_one_chain() {
    for backend in BACKENDS {
        let Some(f) = Fixture::new(backend) else {
            continue;
        };
        drop(f.open());
        std::thread::scope(|s| {
            for w in 0..3 {
                let target = f.target.clone();
                s.spawn(move || {
                    let store = AuditStore::connect(&target).unwrap();
                    for i in 0..15 {
                        store
                            .append(&format!("w{w}"), "event", &json!({"i": i}))
                            .unwrap();
                    }
                });
            }
        });
        let store = f.open();
        let report = store.verify().unwrap();
        assert!(report.ok(), "{backend:?}: {report:?}");
        assert_eq!(report.checked, 45, "{backend:?}");
        for w in 0..3 {
            assert_eq!(store.run_entries(&format!("w{w}")).unwrap().len(), 15);
        }
    }
}

#[test]
fn an_unreachable_server_is_unavailable_and_the_password_stays_hidden() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://alice:s3cret@127.0.0.1:{port}/audit");
    let err = AuditStore::connect(&url).unwrap_err();
    assert_eq!(err.code(), "AUDIT_UNAVAILABLE", "{err}");
    let text = err.to_string();
    assert!(text.contains("alice:***@127.0.0.1"), "{text}");
    assert!(!text.contains("s3cret"), "{text}");
}
