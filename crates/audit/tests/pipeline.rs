//! The audit log under the orchestrator: a run of the seed's request leaves a complete, verifiable
//! trail on either backend, and a log that cannot record (full, locked) stops the run before the
//! commit, so nothing reaches the disk unaudited.

use std::path::{Path, PathBuf};
use std::time::Duration;

use audit::{AuditLog, AuditStore, StoreOptions, task_tree};
use config::{DeleteMode, PipelineConfig};
use contracts::ErrorCode;
use pipeline::{AutoApprove, Orchestrator, PipelineError, RunOptions, RunReport};
use retrieval::RetrievalPipeline;
use sandbox::{Sandbox, SandboxConfig, ScanOptions};
use skills::SkillStore;
use sqlx::Connection;
use thinker::RulePlanner;

const SEED_REQUEST: &str = "Clean up my Downloads folder – remove duplicates, then organize the \
                            remaining files into subfolders by type";

struct World {
    dir: tempfile::TempDir,
    config: PipelineConfig,
}

fn world() -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("Downloads");
    std::fs::create_dir_all(&root).unwrap();
    for (name, body) in [
        ("holiday.jpg", "jpeg"),
        ("holiday (1).jpg", "jpeg"),
        ("report.pdf", "pdf"),
        ("song.mp3", "mp3"),
    ] {
        std::fs::write(root.join(name), body).unwrap();
    }
    let config = PipelineConfig {
        state_dir: Some(dir.path().join("state")),
        delete_mode: DeleteMode::Permanent,
        ..PipelineConfig::default()
    };
    World { dir, config }
}

impl World {
    fn root(&self) -> PathBuf {
        self.dir.path().join("Downloads")
    }

    fn files(&self) -> Vec<String> {
        let mut out: Vec<String> = walk(&self.root());
        out.sort();
        out
    }

    fn run(&self, store: AuditStore) -> (Result<RunReport, PipelineError>, AuditLog) {
        let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
        let skills_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
        let mut skills = SkillStore::load(&skills_dir, table).unwrap();
        let mut retrieval = RetrievalPipeline::open(&self.config).unwrap();
        retrieval.build_index(&skills).unwrap();
        let mut sandbox = Sandbox::open(
            &self.root(),
            SandboxConfig::from_pipeline(&self.config),
            &ScanOptions::default(),
        )
        .unwrap();
        retrieval.index_sandbox(&mut sandbox).unwrap();
        let mut log = AuditLog::new(store);
        let result = Orchestrator {
            config: &self.config,
            skills: &mut skills,
            retrieval: &mut retrieval,
            sandbox: &mut sandbox,
            planner: &mut RulePlanner,
            audit: Some(&mut log),
        }
        .run(
            SEED_REQUEST,
            &RunOptions::default(),
            &mut AutoApprove::default(),
        );
        (result, log)
    }
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    out
}

#[test]
fn a_run_leaves_a_complete_verifiable_trail_on_postgres() {
    let Ok(admin) = std::env::var("SCOPE_WEAVER_TEST_POSTGRES") else {
        assert!(
            std::env::var_os("SCOPE_WEAVER_TEST_REQUIRE_POSTGRES").is_none(),
            "SCOPE_WEAVER_TEST_POSTGRES is not set (run scripts/test.sh)"
        );
        eprintln!("skipped: no PostgreSQL (SCOPE_WEAVER_TEST_POSTGRES is not set)");
        return;
    };
    let w = world();
    let name = format!("sw_pipeline_{}", std::process::id());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let mut c = sqlx::PgConnection::connect(&admin).await.unwrap();
        sqlx::query(&format!("DROP DATABASE IF EXISTS {name}"))
            .execute(&mut c)
            .await
            .unwrap();
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut c)
            .await
            .unwrap();
    });
    let url = format!("{}/{name}", admin.rsplit_once('/').unwrap().0);
    let (result, log) = w.run(AuditStore::connect(&url).unwrap());
    let report = result.unwrap();
    assert!(report.committed);
    // One of the two identical photos is gone (equal times: either may be kept).
    let files = w.files();
    assert_eq!(files.len(), 3, "{files:?}");
    assert!(files.contains(&"report.pdf".to_owned()) && files.contains(&"song.mp3".to_owned()));
    let store = log.store();
    assert_eq!(store.backend(), "postgres");
    assert!(store.verify().unwrap().ok());
    let entries = store.run_entries(&report.id).unwrap();
    let tree = serde_json::to_value(task_tree(&entries).unwrap()).unwrap();
    assert_eq!(tree["status"], "done");
    assert_eq!(tree["sub_tasks"].as_array().unwrap().len(), 3);
    let kinds: Vec<&str> = entries.iter().map(|e| e.kind.as_str()).collect();
    for kind in [
        "task",
        "plan",
        "subtask",
        "cap_task",
        "skill_matched",
        "committed",
        "finished",
    ] {
        assert!(kinds.contains(&kind), "no `{kind}` entry in {kinds:?}");
    }
}

#[test]
fn a_full_audit_log_stops_the_run_before_the_commit() {
    let w = world();
    let before = w.files();
    let path = w.dir.path().join("audit.sqlite");
    // Room for the schema and the first records of the run, not for all of them.
    let capped = StoreOptions {
        max_bytes: Some(48 * 1024),
        ..StoreOptions::default()
    };
    let (result, log) = w.run(AuditStore::open_with(&path, capped).unwrap());
    let err = result.unwrap_err();
    assert_eq!(err.code(), "AUDIT_DISK_FULL", "{err}");
    assert_eq!(w.files(), before, "nothing may reach the disk unaudited");
    // The records written before the disk filled up are intact, and the run is in them.
    let store = log.store();
    let report = store.verify().unwrap();
    assert!(report.ok(), "{report:?}");
    let id = log.run_id().unwrap();
    assert!(
        store.run_entries(id).unwrap().len() > 1,
        "the cap should hit in the middle of the run"
    );
}

#[test]
fn a_locked_audit_log_stops_the_run_and_changes_nothing() {
    let w = world();
    let before = w.files();
    let path = w.dir.path().join("audit.sqlite");
    drop(AuditStore::open(&path).unwrap());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut holder = rt
        .block_on(sqlx::SqliteConnection::connect(&format!(
            "sqlite://{}",
            path.display()
        )))
        .unwrap();
    rt.block_on(sqlx::query("BEGIN EXCLUSIVE").execute(&mut holder))
        .unwrap();
    let short = StoreOptions {
        lock_timeout: Duration::from_millis(100),
        ..StoreOptions::default()
    };
    let (result, _log) = w.run(AuditStore::open_with(&path, short).unwrap());
    let err = result.unwrap_err();
    assert_eq!(err.code(), "AUDIT_LOCKED", "{err}");
    assert_eq!(w.files(), before);
}
