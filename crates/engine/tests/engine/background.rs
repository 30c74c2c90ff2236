//! Work the engine does on its own: watched folders, the drop folder, background content indexes.

use super::*;

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
