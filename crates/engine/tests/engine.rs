//! The engine as the desktop app drives it, without a window: a request runs on one thread while
//! another answers its questions (as the bar does), rolls back from the graph window, cancels;
//! skill saves re-embed only that skill; settings are validated as a whole.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use config::{DeleteMode, PipelineConfig};
use engine::{Engine, EngineOptions, Message, Notice, Question, RunRequest, Settings};
use serde_json::json;

const SEED: &str = "Clean up my Downloads folder – remove duplicates, then organize the remaining \
                    files into subfolders by type";

struct World {
    _state: tempfile::TempDir,
    home: tempfile::TempDir,
    skills: tempfile::TempDir,
    engine: Arc<Engine>,
    notices: Arc<Mutex<Vec<Notice>>>,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn world() -> World {
    world_with(|_| {})
}

fn world_with(configure: impl FnOnce(&mut PipelineConfig)) -> World {
    let state = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let skills = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
        skills.path(),
    );
    let d = home.path().join("Downloads");
    std::fs::create_dir_all(d.join("old")).unwrap();
    for (name, body) in [
        ("report_v1.pdf", "quarterly report\n"),
        ("report_final.pdf", "quarterly report\n"),
        ("beach.jpg", "JPEG holiday\n"),
        ("beach (1).jpg", "JPEG holiday\n"),
        ("old/beach.jpg", "JPEG holiday\n"),
        ("song.mp3", "ID3 song\n"),
        ("export.csv", "a,b\n1,2\n"),
    ] {
        std::fs::write(d.join(name), body).unwrap();
    }
    let mut config = PipelineConfig {
        state_dir: Some(state.path().to_owned()),
        delete_mode: DeleteMode::Permanent,
        ..PipelineConfig::default()
    };
    configure(&mut config);
    let notices = Arc::new(Mutex::new(Vec::new()));
    let sink = notices.clone();
    let engine = Engine::open(
        EngineOptions {
            config,
            skills_dir: skills.path().to_owned(),
            config_file: Some(state.path().join("config.yaml")),
            model_fallback: true,
        },
        Arc::new(move |n| sink.lock().unwrap().push(n)),
    )
    .unwrap();
    engine.set_root(home.path()).unwrap();
    World {
        _state: state,
        home,
        skills,
        engine,
        notices,
    }
}

/// Starts `request` on its own thread; its messages arrive on the returned receiver.
fn start(
    engine: &Arc<Engine>,
    request: RunRequest,
) -> (
    mpsc::Receiver<Message>,
    std::thread::JoinHandle<engine::Result<pipeline::RunReport>>,
) {
    let (tx, rx) = mpsc::channel();
    let engine = engine.clone();
    let handle = std::thread::spawn(move || {
        let mut sink = move |m: Message| {
            let _ = tx.send(m);
        };
        engine.run(&request, &mut sink)
    });
    (rx, handle)
}

fn next_question(rx: &mpsc::Receiver<Message>) -> Option<(u64, Question)> {
    loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Message::Question { id, question }) => return Some((id, *question)),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
}

fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p: PathBuf = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn the_seed_request_runs_while_another_thread_answers_and_commits() {
    let w = world();
    let (rx, handle) = start(
        &w.engine,
        RunRequest {
            request: SEED.into(),
            ..RunRequest::default()
        },
    );
    let mut asked = Vec::new();
    while let Some((id, q)) = next_question(&rx) {
        match q {
            Question::ReviewStep { review } => {
                asked.push(format!(
                    "step {} {}/{} destructive={} ops={}",
                    review.step,
                    review.skill,
                    review.tool,
                    review.destructive,
                    review.ops.len()
                ));
                // The graph window sees the step's simulated changes while it waits.
                let view = w.engine.graph_view(&[], 60).unwrap();
                assert!(
                    view.nodes
                        .iter()
                        .any(|n| n.status != sandbox::ViewStatus::Unchanged)
                );
                w.engine
                    .answer(id, &json!({"decision": "approve"}))
                    .unwrap();
            }
            Question::ReviewDiff { review } => {
                asked.push(format!("diff {} changes", review.changes.len()));
                // A wrong answer is refused with its code and the question stays open.
                let e = w
                    .engine
                    .answer(id, &json!({"decision": "maybe"}))
                    .unwrap_err();
                assert_eq!(e.payload().code, "INVALID_ANSWER");
                w.engine.answer(id, &json!({"decision": "commit"})).unwrap();
            }
            other => panic!("unexpected question {other:?}"),
        }
    }
    let report = handle.join().unwrap().unwrap();
    assert!(report.committed, "{}", report.text);
    expect_test::expect![[r#"
        [
            "step 2 remove-duplicates/remove destructive=true ops=3",
            "step 3 organize-by-type/organize destructive=false ops=8",
            "diff 11 changes",
        ]
    "#]]
    .assert_debug_eq(&asked);
    expect_test::expect![[r#"
        [
            "Audio/song.mp3",
            "Data/export.csv",
            "Documents/report_final.pdf",
            "Images/beach (1).jpg",
        ]
    "#]]
    .assert_debug_eq(&files(&w.home.path().join("Downloads")));
    // After the run the view shows the disk as committed, with nothing pending.
    let view = w.engine.graph_view(&["Downloads".into()], 60).unwrap();
    let pending: Vec<_> = view
        .nodes
        .iter()
        .filter(|n| n.status != sandbox::ViewStatus::Unchanged)
        .map(|n| (&n.id, n.status))
        .collect();
    assert!(pending.is_empty(), "{pending:?}");
    assert!(view.nodes.iter().any(|n| n.id == "Downloads/Images"));
    let notices = w.notices.lock().unwrap();
    assert!(notices.iter().any(|n| matches!(
        n,
        Notice::Pipeline { event, .. } if matches!(**event, pipeline::Event::Committed { .. })
    )));
    assert!(
        notices
            .iter()
            .any(|n| matches!(n, Notice::GraphChanged { reason } if reason == "delta"))
    );
    drop(notices);
    let history = w.engine.history(5).unwrap();
    assert_eq!(history[0].request, SEED);
    assert_eq!(history[0].committed, Some(true));
}

#[test]
fn a_rollback_point_clicked_in_the_graph_window_undoes_the_later_steps() {
    let w = world();
    let (rx, handle) = start(
        &w.engine,
        RunRequest {
            request: SEED.into(),
            hitl: Some("bypass".into()),
            ..RunRequest::default()
        },
    );
    // No diff review is open yet: refused.
    assert_eq!(
        w.engine.rollback_to("snap-3").unwrap_err().payload().code,
        "NOT_AT_REVIEW"
    );
    let mut rounds = 0;
    while let Some((id, q)) = next_question(&rx) {
        let Question::ReviewDiff { review } = q else {
            panic!("bypass asks only for the diff")
        };
        rounds += 1;
        if rounds == 1 {
            assert_eq!(review.rollback_points.len(), 2);
            w.engine
                .rollback_to(&review.rollback_points[1].snapshot)
                .unwrap();
        } else {
            assert!(review.ops.iter().all(|op| op.is_destructive()));
            w.engine.answer(id, &json!({"decision": "commit"})).unwrap();
        }
    }
    let report = handle.join().unwrap().unwrap();
    assert_eq!(rounds, 2);
    assert!(report.committed);
    assert!(!w.home.path().join("Downloads/Images").exists());
    assert!(!w.home.path().join("Downloads/beach.jpg").exists());
}

#[test]
fn cancelling_while_a_question_waits_writes_nothing_and_frees_the_engine() {
    let w = world();
    let before = files(w.home.path());
    let (rx, handle) = start(
        &w.engine,
        RunRequest {
            request: SEED.into(),
            ..RunRequest::default()
        },
    );
    let (_id, _q) = next_question(&rx).unwrap();
    // A second request while one runs is refused at once.
    let mut sink = |_m: Message| {};
    let busy = w
        .engine
        .run(
            &RunRequest {
                request: "list Downloads".into(),
                ..RunRequest::default()
            },
            &mut sink,
        )
        .unwrap_err();
    assert_eq!(busy.payload().code, "RUN_BUSY");
    w.engine.cancel();
    let err = handle.join().unwrap().unwrap_err();
    assert_eq!(err.payload().code, "CANCELLED");
    assert_eq!(files(w.home.path()), before);
    assert_eq!(w.engine.waiting_questions(), 0);
    assert!(!w.engine.is_running());
}

#[test]
fn saving_a_skill_re_embeds_it_and_a_broken_edit_keeps_the_previous_version() {
    let w = world();
    let text = w.engine.skill_source("archive-files").unwrap().text;
    // A new description (the folded block up to `tags:`) that no other skill shares.
    let start = text.find("description:").unwrap();
    let end = text.find("\ntags:").unwrap();
    let edited = format!(
        "{}description: Feed the quokka colony and brush every wombat.{}",
        &text[..start],
        &text[end..]
    );
    assert!(
        w.engine
            .skill_check("archive-files", &edited)
            .iter()
            .all(|d| !d.is_error())
    );
    let saved = w.engine.skill_save("archive-files", &edited).unwrap();
    assert_eq!(saved.outcome, "loaded");
    assert!(saved.reembedded);
    let ranking = w
        .engine
        .skill_search("feed the quokkas and brush the wombats")
        .unwrap();
    assert_eq!(ranking.hits[0].skill, "archive-files");

    let broken = text.replacen("name:", "nmae:", 1);
    let problems = w.engine.skill_check("archive-files", &broken);
    assert!(
        problems.iter().any(|d| d.is_error() && d.line > 0),
        "{problems:?}"
    );
    let saved = w.engine.skill_save("archive-files", &broken).unwrap();
    assert_eq!(saved.outcome, "kept_previous");
    assert!(!saved.diagnostics.is_empty());
    assert_eq!(
        std::fs::read_to_string(w.skills.path().join("archive-files/SKILL.md")).unwrap(),
        broken
    );
    // The last good version still answers.
    assert_eq!(
        w.engine
            .skill_search("feed the quokkas and brush the wombats")
            .unwrap()
            .hits[0]
            .skill,
        "archive-files"
    );
    let listed = w.engine.skills_list().unwrap();
    let archive = listed.iter().find(|s| s.name == "archive-files").unwrap();
    assert!(archive.diagnostics.iter().any(skills::Diagnostic::is_error));
    assert_eq!(listed.len(), 11);

    let created = w
        .engine
        .skill_create("rename-photos", "Rename holiday photos by date")
        .unwrap();
    assert_eq!(created.outcome, "loaded");
    assert_eq!(w.engine.skills_list().unwrap().len(), 12);
    assert_eq!(w.engine.agents()[0].skills, 12);
    assert_eq!(
        w.engine.skill_source("../etc").unwrap_err().payload().code,
        "UNKNOWN_SKILL"
    );
}

/// Seed 002: `describe_skills` writes a skill's descriptions.json (derived from its SKILL.md when
/// no model plans), the skill is embedded again with them, a current one is left alone unless
/// forced, and an edit of the SKILL.md makes it stale until it is written again.
#[test]
fn skills_are_described_stored_with_the_skill_and_embedded_with_it() {
    let w = world();
    let folder = w.skills.path().join("archive-files");
    let file = folder.join(skills::DESCRIPTIONS_FILE);
    let _ = std::fs::remove_file(&file);
    // Derived at load meanwhile: the editor's list says so.
    let info = |w: &World| {
        let listed = w.engine.skills_list().unwrap();
        listed
            .into_iter()
            .find(|s| s.name == "archive-files")
            .unwrap()
    };
    let origin = info(&w).descriptions.unwrap();
    assert!(!origin.stored && origin.reason.as_deref() == Some("no descriptions.json"));
    assert!(info(&w).tools.iter().all(|t| t.described.is_some()));

    let done = w.engine.describe_skills(&[], false).unwrap();
    let outcome = |done: &[engine::SkillDescribed], name: &str| {
        done.iter()
            .find(|d| d.name == name)
            .map(|d| (d.outcome.clone(), d.generated_by.clone(), d.tools))
    };
    assert_eq!(
        outcome(&done, "archive-files"),
        Some(("written".into(), "derived".into(), 3))
    );
    assert_eq!(
        outcome(&done, "skill_template"),
        None,
        "the template is not described"
    );
    // Written once, current after that: derived again only on request (no model here).
    let again = w.engine.describe_skills(&[], false).unwrap();
    assert!(
        again
            .iter()
            .filter(|d| d.tools > 0)
            .all(|d| d.outcome == "current"),
        "{again:?}"
    );
    let stored: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(stored["generated_by"], "derived");
    assert!(
        stored["tools"]["create"]["examples"]
            .as_array()
            .unwrap()
            .len()
            >= 2,
        "{stored}"
    );
    let origin = info(&w).descriptions.unwrap();
    assert!(origin.stored, "{origin:?}");

    // Forced, it is written again; an edit makes it stale (derived again at load).
    let forced = w
        .engine
        .describe_skills(&["archive-files".to_owned()], true)
        .unwrap();
    assert_eq!(forced[0].outcome, "written");
    let text = w.engine.skill_source("archive-files").unwrap().text;
    w.engine
        .skill_save("archive-files", &format!("{text}\n"))
        .unwrap();
    let origin = info(&w).descriptions.unwrap();
    assert!(!origin.stored, "{origin:?}");
    assert_eq!(
        w.engine
            .describe_skills(&["no-such-skill".to_owned()], false)
            .unwrap_err()
            .payload()
            .code,
        "UNKNOWN_SKILL"
    );
}

#[test]
fn settings_report_every_problem_and_leave_the_file_as_it_was() {
    let w = world();
    let mut s = w.engine.settings();
    s.thinker_backend = "gpt".into();
    s.hitl_mode = "sometimes".into();
    let err = w.engine.set_settings(&s).unwrap_err().payload();
    assert_eq!(err.code, "CONFIG_INVALID");
    assert!(
        err.message.contains("thinker_backend") && err.message.contains("hitl_mode"),
        "{}",
        err.message
    );
    let file = s.config_file.clone().unwrap();
    assert!(!file.exists());

    let good = Settings {
        hitl_mode: "all".into(),
        shortcut: "Ctrl+Shift+K".into(),
        ..w.engine.settings()
    };
    let saved = w.engine.set_settings(&good).unwrap();
    assert_eq!(saved.hitl_mode, "all");
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("Ctrl+Shift+K")
    );
    assert_eq!(w.engine.info().shortcut, "Ctrl+Shift+K");

    // The drop folder is chosen here too: absolute only; the app's task loop reads it each round.
    let relative = Settings {
        drop_folder: Some("tasks".into()),
        ..w.engine.settings()
    };
    let err = w.engine.set_settings(&relative).unwrap_err().payload();
    assert!(err.message.contains("drop_folder"), "{}", err.message);
    let tasks = tempfile::tempdir().unwrap();
    let with_tasks = Settings {
        drop_folder: Some(tasks.path().to_owned()),
        thinker_rules_first: false,
        ..w.engine.settings()
    };
    let saved = w.engine.set_settings(&with_tasks).unwrap();
    assert_eq!(saved.drop_folder.as_deref(), Some(tasks.path()));
    assert!(!saved.thinker_rules_first);
    assert_eq!(w.engine.config().drop_folder.as_deref(), Some(tasks.path()));
}

/// The engine embeds with the built-in `words` embedder, and skill matching works on it.
fn assert_embedded_embedder_matches_skills(w: &World) {
    assert!(
        w.engine.info().embedder.starts_with("words"),
        "{}",
        w.engine.info().embedder
    );
    assert_eq!(
        w.engine
            .skill_search("remove duplicate files")
            .unwrap()
            .hits[0]
            .skill,
        "remove-duplicates"
    );
}

/// The model-loading notices so far, as "component state".
fn model_progress(w: &World) -> Vec<String> {
    w.notices
        .lock()
        .unwrap()
        .iter()
        .filter_map(|n| match n {
            Notice::ModelProgress {
                component, state, ..
            } => Some(format!("{component} {state}")),
            _ => None,
        })
        .collect()
}

#[test]
fn a_model_chosen_in_settings_loads_in_the_background_and_a_broken_one_falls_back() {
    let w = world();
    let progress = model_progress;
    let wait_for = |w: &World, state: &str| {
        for _ in 0..600 {
            if progress(w).iter().any(|p| p == state) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("no `{state}` in {:?}", progress(w));
    };
    // Opening announced the embedded defaults as ready; only what follows counts.
    assert!(progress(&w).contains(&"planner ready".to_owned()));
    w.notices.lock().unwrap().clear();
    // A real (tiny, random-weight) BERT folder: loaded, and the engine reports it.
    let model = tempfile::tempdir().unwrap();
    tiny_models::write_bert(model.path(), 32).unwrap();
    let bert = Settings {
        embedding_backend: "bert".into(),
        embedding_model_path: Some(model.path().to_owned()),
        ..w.engine.settings()
    };
    w.engine.set_settings(&bert).unwrap();
    wait_for(&w, "embedder ready");
    for _ in 0..600 {
        if w.engine.info().embedder.starts_with("bert") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        w.engine.info().embedder.starts_with("bert"),
        "{}",
        w.engine.info().embedder
    );
    // A folder without a model: failed, then the embedded default again.
    let empty = tempfile::tempdir().unwrap();
    let broken = Settings {
        embedding_model_path: Some(empty.path().to_owned()),
        ..bert
    };
    w.engine.set_settings(&broken).unwrap();
    wait_for(&w, "embedder fallback");
    assert!(progress(&w).contains(&"embedder failed".to_owned()));
    for _ in 0..600 {
        if w.engine.info().embedder.starts_with("words") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    // Skill matching still works on the fallback.
    assert_embedded_embedder_matches_skills(&w);
}

#[test]
fn a_committed_run_is_undone_from_the_window_after_its_diff_is_approved() {
    let w = world();
    let downloads = w.home.path().join("Downloads");
    let before = files(&downloads);
    let (rx, handle) = start(
        &w.engine,
        RunRequest {
            request: SEED.into(),
            hitl: Some("bypass".into()),
            ..RunRequest::default()
        },
    );
    while let Some((id, _)) = next_question(&rx) {
        w.engine.answer(id, &json!({"decision": "commit"})).unwrap();
    }
    let run = handle.join().unwrap().unwrap();
    assert!(run.committed);
    let runs = w.engine.committed_runs(10);
    assert_eq!(
        runs[0].id, run.id,
        "the history record carries the request's id"
    );

    let (tx, rx) = mpsc::channel();
    let engine = w.engine.clone();
    let id = run.id.clone();
    let undo = std::thread::spawn(move || {
        engine.undo(Some(&id), false, &mut move |m: Message| {
            let _ = tx.send(m);
        })
    });
    let mut reviewed = 0;
    while let Some((id, q)) = next_question(&rx) {
        let Question::ReviewDiff { review } = q else {
            panic!("unexpected question {q:?}");
        };
        assert!(
            review.summary.contains("Nothing lost"),
            "{}",
            review.summary
        );
        reviewed += 1;
        w.engine.answer(id, &json!({"decision": "commit"})).unwrap();
    }
    let report = undo.join().unwrap().unwrap();
    assert_eq!(reviewed, 1);
    assert!(report.committed, "{}", report.text);
    // Permanent deletions (this world's delete mode) are the only thing that does not come back.
    assert_eq!(report.plan.not_restorable.len(), 3, "{:?}", report.plan);
    let now = files(&downloads);
    let missing: Vec<&String> = before.iter().filter(|f| !now.contains(f)).collect();
    assert_eq!(missing.len(), 3, "{missing:?}");
    assert!(now.iter().all(|f| before.contains(f)), "{now:?}");
    let runs = w.engine.committed_runs(10);
    assert_eq!(runs[1].undone_by.as_deref(), Some(report.id.as_str()));
    // Undoing again what is undone is refused with its code.
    let e = w.engine.undo(Some(&run.id), true, &mut |_| {}).unwrap_err();
    assert_eq!(e.payload().code, "RUN_ALREADY_UNDONE");
}

#[test]
fn an_interrupted_commit_is_found_and_finished_from_the_window() {
    let w = world();
    assert!(w.engine.pending_recovery().unwrap().is_none());
    let root = std::fs::canonicalize(w.home.path()).unwrap();
    let state = w.engine.config().state_dir();
    // The run was in the audit log when it stopped (no status after its request).
    let mut audit_log =
        audit::AuditLog::new(audit::AuditStore::connect(&w.engine.config().audit_db()).unwrap());
    audit_log
        .record_event(&pipeline::Event::Request {
            id: "r-killed".into(),
            text: "move the song up".into(),
        })
        .unwrap();
    // A commit that stopped before its one change: the journal is all that is left of it.
    let header = sandbox::JournalHeader {
        version: 1,
        root: root.clone(),
        delete_mode: DeleteMode::Permanent,
        ops: vec![sandbox::ChangeOp::Move {
            from: "Downloads/song.mp3".into(),
            to: "song.mp3".into(),
            kind: sandbox::NodeKind::File,
            expect: None,
        }],
        started_at: 0,
        run: Some(sandbox::RunLabel {
            id: "r-killed".into(),
            request: "move the song up".into(),
            undoes: None,
        }),
    };
    let path = sandbox::journal_path(&state, &root);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, serde_json::to_string(&header).unwrap() + "\n").unwrap();

    let pending = w
        .engine
        .pending_recovery()
        .unwrap()
        .expect("found at start");
    assert_eq!(pending.pending, ["~ move   Downloads/song.mp3 -> song.mp3"]);
    let done = w.engine.finish_recovery().unwrap().unwrap();
    assert!(done.finished, "{done:?}");
    assert!(root.join("song.mp3").exists());
    assert!(w.engine.pending_recovery().unwrap().is_none());
    // The finished commit is in the history, so it can be undone; the audit log says the run
    // was committed (by the recovery).
    let runs = w.engine.committed_runs(5);
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].id, "r-killed");
    let history = w.engine.history(5).unwrap();
    assert_eq!(history[0].run_id, "r-killed");
    assert_eq!(history[0].committed, Some(true), "{history:?}");
    assert_eq!(history[0].status, "done");
}

/// A watch that sorts Downloads by type after a 1 s settle time, not trusted.
fn watch_downloads(w: &World) -> engine::Watch {
    w.engine
        .watch_add(
            w.home.path(),
            "Downloads",
            "sort Downloads by type",
            1,
            false,
        )
        .unwrap()
}

#[test]
fn a_watched_folder_is_handled_in_the_background_and_its_inbox_item_approved_from_the_window() {
    let w = world();
    let engine = &w.engine;
    let inbox_notices = || {
        w.notices
            .lock()
            .unwrap()
            .iter()
            .filter(|n| matches!(n, Notice::InboxChanged { .. }))
            .count()
    };
    engine.watch_in_background();
    // Added from the Settings window: the background watcher starts over with it and catches up.
    let watch = watch_downloads(&w);
    let wait = |what: &str, done: &dyn Fn() -> bool| {
        let start = std::time::Instant::now();
        while !done() {
            assert!(start.elapsed() < Duration::from_secs(60), "{what}");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait("the catch-up parks the folder's changes", &|| {
        engine.inbox().unwrap().len() == 1
    });
    assert!(inbox_notices() >= 1);
    let item = engine.inbox().unwrap().remove(0);
    assert_eq!(item.watch, watch.id);
    assert!(!item.destructive);
    assert!(
        item.changes
            .iter()
            .any(|c| c.contains("Downloads/song.mp3")),
        "{:?}",
        item.changes
    );
    assert!(
        w.home.path().join("Downloads/song.mp3").exists(),
        "simulated only"
    );

    // Approved from the bar: a run like any other, its diff review answered by the window.
    let (tx, rx) = mpsc::channel();
    let approving = {
        let engine = engine.clone();
        let id = item.id.clone();
        std::thread::spawn(move || {
            engine.approve_inbox_item(&id, &mut move |m: Message| {
                let _ = tx.send(m);
            })
        })
    };
    while let Some((id, question)) = next_question(&rx) {
        let answer = match question {
            Question::ReviewDiff { .. } => json!({"decision": "commit"}),
            Question::ReviewStep { .. } => json!({"decision": "approve"}),
            Question::ChooseSkill { .. } => json!(0),
            _ => json!(null),
        };
        engine.answer(id, &answer).unwrap();
    }
    let report = approving.join().unwrap().unwrap();
    assert!(report.committed, "{}", report.text);
    assert!(w.home.path().join("Downloads/Audio/song.mp3").exists());
    assert!(engine.inbox().unwrap().is_empty());

    // A file arriving later is handled once the folder is quiet for the settle time.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(w.home.path().join("Downloads/clip.mp4"), "mp4").unwrap();
    wait("the new file is parked", &|| {
        engine
            .inbox()
            .unwrap()
            .iter()
            .any(|i| i.changes.iter().any(|c| c.contains("clip.mp4")))
    });
    assert!(engine.watch_remove(&watch.id).unwrap());
}

/// The bar's "Graph" on an inbox item: the graph window draws what approving it would do now
/// (simulated again on the folder as it is), and nothing on disk changes.
#[test]
fn an_inbox_item_is_drawn_in_the_graph_window_without_touching_the_disk() {
    let w = world();
    let engine = &w.engine;
    let watch = watch_downloads(&w);
    let engine::WatchOutcome::Parked { item } = engine.handle_watch(&watch).unwrap() else {
        panic!("the sort waits in the inbox");
    };
    let before = files(w.home.path());
    let shown = engine.inbox_preview(&item.id).unwrap();
    assert_eq!(shown.root, w.home.path().display().to_string());
    assert!(
        shown.changes > 0 && shown.counts.contains("move"),
        "{shown:?}"
    );
    assert_eq!(files(w.home.path()), before, "simulated only");
    assert!(
        w.notices
            .lock()
            .unwrap()
            .iter()
            .any(|n| matches!(n, Notice::GraphChanged { reason } if reason == "inbox"))
    );
    let view = engine.graph_view(&[], 200).unwrap();
    let song = view
        .nodes
        .iter()
        .find(|n| n.id == "Downloads/Audio/song.mp3")
        .expect("the moved file is drawn where it would go");
    assert_eq!(song.status, sandbox::ViewStatus::Moved);
    assert_eq!(song.from.as_deref(), Some("Downloads/song.mp3"));

    // Once the folder already looks like that, the preview says there is nothing to do.
    std::fs::create_dir_all(w.home.path().join("Downloads/Audio")).unwrap();
    std::fs::rename(
        w.home.path().join("Downloads/song.mp3"),
        w.home.path().join("Downloads/Audio/song.mp3"),
    )
    .unwrap();
    let again = engine.inbox_preview(&item.id).unwrap();
    assert!(again.changes < shown.changes, "{again:?} after {shown:?}");
    assert_eq!(
        engine.inbox_preview("nope").unwrap_err().payload().code,
        "INBOX_ITEM_NOT_FOUND"
    );
}

#[test]
fn a_task_dropped_into_the_configured_drop_folder_is_answered_and_parked_in_the_background() {
    let state = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let drop = home.path().join("tasks");
    std::fs::create_dir_all(home.path().join("Downloads")).unwrap();
    std::fs::create_dir_all(&drop).unwrap();
    std::fs::write(home.path().join("Downloads/report.pdf"), "pdf").unwrap();
    let config = PipelineConfig {
        state_dir: Some(state.path().to_owned()),
        drop_folder: Some(drop.clone()),
        ..PipelineConfig::default()
    };
    let engine = Engine::open(
        EngineOptions {
            config,
            skills_dir: Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
            config_file: None,
            model_fallback: true,
        },
        Arc::new(|_| {}),
    )
    .unwrap();
    engine.tasks_in_background();
    let task = json!({"request": "sort Downloads by type", "root": home.path()});
    std::fs::write(drop.join("sort.json"), task.to_string()).unwrap();
    let answer = drop.join("sort.answer.json");
    let start = std::time::Instant::now();
    while !answer.exists() {
        assert!(start.elapsed() < Duration::from_secs(60), "no answer");
        std::thread::sleep(Duration::from_millis(50));
    }
    let answered: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&answer).unwrap()).unwrap();
    assert_eq!(answered["outcome"]["outcome"], "parked", "{answered}");
    assert!(drop.join("done/sort.json").exists());
    assert_eq!(engine.inbox().unwrap().len(), 1);
    assert!(
        home.path().join("Downloads/report.pdf").exists(),
        "simulated only"
    );
}

/// Picking a model that takes long to load, then changing one's mind: the cancel keeps the models
/// in use, saves the model settings back as they were, and whatever the load still produces is
/// dropped without a word. The model folder's config.json is a named pipe, so the load waits
/// for the test to write it.
#[test]
fn a_model_load_can_be_cancelled_and_the_models_in_use_stay() {
    let w = world();
    let model = tempfile::tempdir().unwrap();
    tiny_models::write_bert(model.path(), 32).unwrap();
    let config_json = model.path().join("config.json");
    let text = std::fs::read_to_string(&config_json).unwrap();
    std::fs::remove_file(&config_json).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(&config_json)
        .status()
        .unwrap();
    assert!(made.success());
    let states = model_progress;
    w.notices.lock().unwrap().clear();
    let before = w.engine.settings();
    assert!(
        w.engine.cancel_model_load().unwrap().is_none(),
        "nothing loads"
    );
    let bert = Settings {
        embedding_backend: "bert".into(),
        embedding_model_path: Some(model.path().to_owned()),
        ..before.clone()
    };
    w.engine.set_settings(&bert).unwrap();
    for _ in 0..200 {
        if states(&w).contains(&"embedder loading".to_owned()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(25));
    }
    assert_eq!(states(&w), ["embedder loading"]);

    let restored = w
        .engine
        .cancel_model_load()
        .unwrap()
        .expect("a load under way");
    assert_eq!(restored.embedding_backend, before.embedding_backend);
    assert_eq!(restored.embedding_model_path, None);
    let file = std::fs::read_to_string(restored.config_file.unwrap()).unwrap();
    assert!(!file.contains("bert"), "saved back: {file}");
    assert_eq!(states(&w), ["embedder loading", "embedder cancelled"]);
    assert!(w.engine.cancel_model_load().unwrap().is_none(), "once");

    // The load gets its file and finishes: its model is dropped, nothing more is announced.
    std::fs::write(&config_json, text).unwrap();
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(states(&w), ["embedder loading", "embedder cancelled"]);
    assert_embedded_embedder_matches_skills(&w);
}

/// How many content indexes the state folder holds.
fn content_indexes(state: &Path) -> usize {
    std::fs::read_dir(state.join("index"))
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().into_string().ok())
                .filter(|n| n.starts_with("content-") && n.ends_with(".json"))
                .count()
        })
        .unwrap_or(0)
}

/// A small folder is indexed for search in the background as soon as it is chosen; one with more
/// files than `content_index_background_files` is not (the graph window still shows it, and a
/// run that does not search by content never reads its files).
#[test]
fn only_a_small_folder_is_indexed_in_the_background() {
    let small = world();
    let waited = std::time::Instant::now();
    while content_indexes(small._state.path()) == 0 {
        assert!(
            waited.elapsed() < Duration::from_secs(60),
            "the background index never appeared"
        );
        std::thread::sleep(Duration::from_millis(50));
    }

    let took = waited.elapsed();

    let big = world_with(|c| c.content_index_background_files = 3);
    // Three times what the small folder's index took: long enough for it to have appeared.
    std::thread::sleep((took * 3).max(Duration::from_millis(300)));
    assert_eq!(content_indexes(big._state.path()), 0);
    let view = big.engine.graph_view(&["Downloads".into()], 100).unwrap();
    assert!(sandbox::render_view(&view).contains("report_final.pdf"));
    let (rx, handle) = start(
        &big.engine,
        RunRequest {
            request: "how much space does Downloads use".into(),
            dry_run: true,
            hitl: Some("bypass".into()),
            ..RunRequest::default()
        },
    );
    drop(rx);
    handle.join().unwrap().unwrap();
    assert_eq!(content_indexes(big._state.path()), 0);
}
