//! A writer killed mid-append (SIGKILL, on both backends) loses no acknowledged record and leaves
//! no half record: the chain verifies and holds every entry whose append returned. The test binary
//! re-runs itself as the writer (`AUDIT_CRASH_WRITER` set).

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use audit::AuditStore;
use serde_json::json;

const WRITER: &str = "AUDIT_CRASH_WRITER";

/// The child: appends forever, printing the seq of each acknowledged record.
#[test]
fn writer() {
    let Ok(target) = std::env::var(WRITER) else {
        return;
    };
    let store = AuditStore::connect(&target).unwrap();
    for i in 0.. {
        let e = store
            .append(
                "rcrash",
                "event",
                &json!({"i": i, "pad": "x".repeat(i % 3000)}),
            )
            .unwrap();
        println!("acked {}", e.seq);
    }
}

fn kill_mid_append(target: &str) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "writer", "--nocapture", "--test-threads", "1"])
        .env(WRITER, target)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut last = 0i64;
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    for line in lines {
        let line = line.unwrap();
        if let Some(n) = line.strip_prefix("acked ") {
            last = n.parse().unwrap();
            if last >= 150 {
                break;
            }
        }
    }
    child.kill().unwrap(); // SIGKILL: no destructors, no rollback by the writer
    child.wait().unwrap();
    let store = AuditStore::connect(target).unwrap();
    let report = store.verify().unwrap();
    assert!(report.ok(), "{target}: {report:?}");
    let head = store.head().unwrap().unwrap();
    assert!(
        head.count >= last,
        "{target}: acknowledged {last} records, the log holds {}",
        head.count
    );
    // And the log goes on from where it stopped.
    let next = store
        .append("rcrash", "event", &json!({"after": true}))
        .unwrap();
    assert_eq!(next.seq, head.count + 1);
    assert!(store.verify().unwrap().ok());
}

#[test]
fn a_killed_writer_loses_no_acknowledged_record() {
    if std::env::var_os(WRITER).is_some() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    kill_mid_append(&dir.path().join("audit.sqlite").display().to_string());
    match std::env::var("SCOPE_WEAVER_TEST_POSTGRES") {
        Ok(admin) => {
            let name = format!("sw_crash_{}", std::process::id());
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                use sqlx::Connection;
                let mut c = sqlx::PgConnection::connect(&admin).await.unwrap();
                sqlx::query(&format!("CREATE DATABASE {name}"))
                    .execute(&mut c)
                    .await
                    .unwrap();
            });
            kill_mid_append(&format!("{}/{name}", admin.rsplit_once('/').unwrap().0));
        }
        Err(_) => assert!(
            std::env::var_os("SCOPE_WEAVER_TEST_REQUIRE_POSTGRES").is_none(),
            "SCOPE_WEAVER_TEST_POSTGRES is not set (run scripts/test.sh)"
        ),
    }
}
