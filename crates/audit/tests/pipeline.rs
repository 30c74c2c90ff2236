//! The audit log under the orchestrator: a run of the seed's request leaves a complete, verifiable
//! trail on either backend, and a log that cannot record (full, locked) stops the run before the
//! commit, so nothing reaches the disk unaudited.

use std::path::{Path, PathBuf};
use std::time::Duration;

use audit::{AuditLog, AuditStore, StoreOptions, task_tree};
use config::{DeleteMode, PipelineConfig};
use contracts::ErrorCode;
use pipeline::{
    AutoApprove, Interaction, Orchestrator, PipelineError, RunOptions, RunReport, SkillCandidate,
};
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
        self.run_with(
            store,
            SEED_REQUEST,
            &self.config,
            &mut AutoApprove::default(),
        )
    }

    fn run_with(
        &self,
        store: AuditStore,
        request: &str,
        config: &PipelineConfig,
        ui: &mut dyn Interaction,
    ) -> (Result<RunReport, PipelineError>, AuditLog) {
        let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
        let skills_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
        let mut skills = SkillStore::load(&skills_dir, table).unwrap();
        let mut retrieval = RetrievalPipeline::open(config).unwrap();
        retrieval.build_index(&skills).unwrap();
        let mut sandbox = Sandbox::open(
            &self.root(),
            SandboxConfig::from_pipeline(config),
            &ScanOptions::default(),
        )
        .unwrap();
        retrieval.index_sandbox(&mut sandbox).unwrap();
        let mut log = AuditLog::new(store);
        let result = Orchestrator {
            config,
            skills: &mut skills,
            retrieval: &mut retrieval,
            sandbox: &mut sandbox,
            planner: &mut RulePlanner,
            audit: Some(&mut log),
        }
        .run(request, &RunOptions::default(), ui);
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

/// At every near-miss, picks the first candidate that is not the planner's; approves the rest.
#[derive(Default)]
struct PicksAnother {
    inner: AutoApprove,
    picked: Vec<String>,
}

impl Interaction for PicksAnother {
    fn event(&mut self, event: &pipeline::Event) {
        self.inner.event(event);
    }

    fn clarify_request(&mut self, _question: &str) -> Option<String> {
        None
    }

    fn choose_skill(
        &mut self,
        _step: &contracts::PlanStep,
        candidates: &[SkillCandidate],
    ) -> Option<usize> {
        let i = candidates.iter().position(|c| !c.planned)?;
        self.picked
            .push(format!("{}/{}", candidates[i].skill, candidates[i].tool));
        Some(i)
    }

    fn clarify_param(&mut self, q: &pipeline::ParamQuestion) -> Option<serde_json::Value> {
        self.inner.clarify_param(q)
    }

    fn review_step(&mut self, r: &pipeline::StepReview) -> pipeline::Decision {
        self.inner.review_step(r)
    }

    fn review_diff(&mut self, r: &pipeline::DiffReview) -> pipeline::DiffDecision {
        self.inner.review_diff(r)
    }
}

/// The rule planner's reading of `text` in the test folder, with `learned` choices.
fn plan_action(
    w: &World,
    text: &str,
    learned: Vec<contracts::LearnedChoice>,
) -> (String, Vec<String>) {
    use thinker::Planner;
    let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
    let skills_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    let skills = SkillStore::load(&skills_dir, table).unwrap();
    let mut retrieval = RetrievalPipeline::open(&w.config).unwrap();
    retrieval.build_index(&skills).unwrap();
    let cx = thinker::PlanningContext {
        skills: &skills,
        retrieval: &retrieval,
        config: &w.config,
    };
    let request = thinker::PlanRequest {
        text: text.into(),
        root_name: Some("Downloads".into()),
        entries: Vec::new(),
        learned,
    };
    let planned = RulePlanner
        .plan(&request, &cx, &thinker::PlanControl::default())
        .unwrap();
    let last = planned.plan.steps.last().expect("a step");
    (format!("{}/{}", last.skill, last.tool), planned.notes)
}

/// A skill the person picks in the near-miss picker is remembered in the audit log, a later
/// request that says much the same is planned as they chose (and says so), and forgetting the
/// choice (`forget_choice`, a record of its own) undoes that.
#[test]
fn a_picked_skill_is_learned_from_the_audit_log_and_can_be_forgotten() {
    let w = world();
    // The picker shows whenever retrieval alone is not sure.
    let config = PipelineConfig {
        planner_sure_margin: 1.0,
        ..w.config.clone()
    };
    let path = w.dir.path().join("audit.sqlite");
    let mut ui = PicksAnother::default();
    // A request no skill is sure of ("summarise" was one, until parse-content could summarize).
    let (_result, log) = w.run_with(
        AuditStore::open(&path).unwrap(),
        "look at report.pdf",
        &config,
        &mut ui,
    );
    let picked = ui
        .picked
        .first()
        .expect("the near-miss picker was shown")
        .clone();
    let learned = log.learned_choices().unwrap();
    assert_eq!(learned.len(), 1, "{learned:?}");
    assert_eq!(learned[0].chosen, picked);
    assert_eq!(learned[0].text, "look at report.pdf");

    let (before, _) = plan_action(&w, "look at song.mp3", Vec::new());
    assert_ne!(before, picked, "the planner already chose it unaided");
    let (after, notes) = plan_action(&w, "look at song.mp3", learned.clone());
    assert_eq!(after, picked);
    assert!(
        notes
            .iter()
            .any(|n| n.starts_with("learned from your choice on ")),
        "{notes:?}"
    );
    // Something else entirely is not affected.
    let (other, _) = plan_action(&w, "remove duplicates", learned.clone());
    assert_eq!(other, "remove-duplicates/remove");

    assert!(log.forget_choice(&learned[0].id).unwrap());
    assert!(!log.forget_choice(&learned[0].id).unwrap());
    assert!(log.learned_choices().unwrap().is_empty());
    assert!(
        log.store().verify().unwrap().ok(),
        "the chain holds the forgetting too"
    );
}
