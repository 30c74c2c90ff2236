//! The audit store on real SQLite files: appends survive reopening, and tampering with the file
//! directly (edit, delete, insert, reorder, cut the tail) is caught at the first broken link; a
//! locked database is a clear `AUDIT_LOCKED`.

use std::path::Path;
use std::time::Duration;

use audit::{AuditStore, next_entry};
use contracts::ErrorCode;
use serde_json::json;
use sqlx::Connection;

/// Runs raw SQL against the file, as someone editing it by hand would.
fn tamper(path: &Path, sql: &[&str]) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let url = format!("sqlite://{}", path.display());
        let mut c = sqlx::SqliteConnection::connect(&url).await.unwrap();
        for s in sql {
            sqlx::query(s).execute(&mut c).await.unwrap();
        }
    });
}

fn filled(n: usize) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("audit.sqlite");
    let store = AuditStore::open(&path).unwrap();
    for i in 0..n {
        store
            .append(
                "r1",
                "event",
                &json!({"n": i, "text": format!("record {i}")}),
            )
            .unwrap();
    }
    (dir, path)
}

fn broken_at(path: &Path) -> (i64, String) {
    let report = AuditStore::open(path).unwrap().verify().unwrap();
    let b = report.broken.expect("the chain should be broken");
    (b.seq, b.reason)
}

#[test]
fn appends_persist_and_verify() {
    let (_dir, path) = filled(20);
    let store = AuditStore::open(&path).unwrap();
    let report = store.verify().unwrap();
    assert!(report.ok(), "{report:?}");
    assert_eq!(report.checked, 20);
    let head = store.head().unwrap().unwrap();
    assert_eq!(head.count, 20);
    assert_eq!(report.head.as_deref(), Some(head.hash.as_str()));
    let entries = store.entries().unwrap();
    assert_eq!(entries[4].value()["n"], 4);
    assert_eq!(store.run_entries("r1").unwrap().len(), 20);
}

#[test]
fn an_edited_record_is_named() {
    let (_dir, path) = filled(6);
    tamper(
        &path,
        &[r#"UPDATE entries SET body = '{"n":3,"text":"nothing happened"}' WHERE seq = 4"#],
    );
    let (seq, why) = broken_at(&path);
    assert_eq!(seq, 4);
    assert!(why.contains("edited"), "{why}");
}

#[test]
fn a_deleted_record_is_named() {
    let (_dir, path) = filled(6);
    tamper(&path, &["DELETE FROM entries WHERE seq = 2"]);
    let (seq, why) = broken_at(&path);
    assert_eq!(seq, 2);
    assert!(why.contains("missing"), "{why}");
}

#[test]
fn a_deleted_and_renumbered_record_breaks_the_link() {
    let (_dir, path) = filled(6);
    tamper(
        &path,
        &[
            "DELETE FROM entries WHERE seq = 2",
            "UPDATE entries SET seq = seq - 1 WHERE seq > 2",
            "UPDATE chain_head SET count = 5",
        ],
    );
    let (seq, why) = broken_at(&path);
    assert_eq!(seq, 2);
    assert!(why.contains("previous_hash"), "{why}");
}

#[test]
fn an_inserted_record_is_named() {
    let (_dir, path) = filled(6);
    let store = AuditStore::open(&path).unwrap();
    let entries = store.entries().unwrap();
    drop(store);
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
    tamper(
        &path,
        &[
            "UPDATE entries SET seq = seq + 100 WHERE seq > 3",
            "UPDATE entries SET seq = seq - 99 WHERE seq > 100",
            &format!(
                "INSERT INTO entries (seq, id, at, run_id, kind, body, previous_hash, hash) \
                 VALUES (4, '{}', '{}', 'r1', 'event', '{}', '{}', '{}')",
                forged.id, forged.at, forged.body, forged.previous_hash, forged.hash
            ),
            "UPDATE chain_head SET count = 7",
        ],
    );
    let (seq, why) = broken_at(&path);
    assert_eq!(seq, 5, "the entry after the forgery no longer links");
    assert!(why.contains("previous_hash"), "{why}");
}

#[test]
fn reordered_records_are_named() {
    let (_dir, path) = filled(6);
    tamper(
        &path,
        &[
            "UPDATE entries SET seq = 100 WHERE seq = 3",
            "UPDATE entries SET seq = 3 WHERE seq = 4",
            "UPDATE entries SET seq = 4 WHERE seq = 100",
        ],
    );
    let (seq, _) = broken_at(&path);
    assert_eq!(seq, 3);
}

#[test]
fn a_cut_tail_is_named() {
    let (_dir, path) = filled(6);
    tamper(&path, &["DELETE FROM entries WHERE seq > 4"]);
    let (seq, why) = broken_at(&path);
    assert_eq!(seq, 5);
    assert!(why.contains("head"), "{why}");
}

#[test]
fn a_locked_database_is_a_clear_error_and_records_nothing() {
    let (_dir, path) = filled(2);
    let store = AuditStore::open_with(&path, Duration::from_millis(200)).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let url = format!("sqlite://{}", path.display());
    let mut holder = rt.block_on(sqlx::SqliteConnection::connect(&url)).unwrap();
    rt.block_on(sqlx::query("BEGIN EXCLUSIVE").execute(&mut holder))
        .unwrap();
    let err = store.append("r1", "event", &json!({"n": 9})).unwrap_err();
    assert_eq!(err.code(), "AUDIT_LOCKED", "{err}");
    assert!(err.to_string().contains("audit.sqlite"), "{err}");
    rt.block_on(sqlx::query("ROLLBACK").execute(&mut holder))
        .unwrap();
    assert_eq!(store.head().unwrap().unwrap().count, 2);
    assert!(store.verify().unwrap().ok());
}
