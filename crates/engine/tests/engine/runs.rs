//! A request run with questions answered from another thread, rolled back, cancelled, undone, finished after a crash.

use super::*;

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
