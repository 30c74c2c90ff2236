//! ContentIndex through the pipeline: real folders, scope clipping, binaries by name, stale
//! warnings before commit, blocking when configured, re-indexing after commit.

use contracts::ErrorCode;
use retrieval::{ContentResults, RetrievalPipeline, call_retrieval};
use sandbox::{Sandbox, SandboxConfig, ScanOptions};
use serde_json::json;

use crate::support::config;

fn folder() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in [
        (
            "Documents/lease.txt",
            "Rental agreement. The tenant pays a security deposit of two months rent \
             before moving in. The deposit is returned within thirty days.",
        ),
        (
            "Documents/budget.md",
            "# Q3 budget\n\nMarketing spend rises by ten percent.\n\nTravel is frozen.",
        ),
        (
            "Code/server.py",
            "def handle_request(req):\n    return route(req.path)\n",
        ),
        ("Downloads/holiday_beach.jpg", "\u{1}\u{0}binary"),
        (
            "Downloads/notes.html",
            "<html><script>var x</script><p>Pick up the <b>passport</b> on Friday.</p></html>",
        ),
    ] {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

fn open(dir: &std::path::Path, state: &std::path::Path) -> Sandbox {
    let cfg = config(state);
    Sandbox::open(
        dir,
        SandboxConfig::from_pipeline(&cfg),
        &ScanOptions::default(),
    )
    .unwrap()
}

fn paths(r: &ContentResults) -> Vec<&str> {
    r.hits.iter().map(|h| h.path.as_str()).collect()
}

#[test]
fn finds_files_by_meaning_within_the_scope() {
    let (dir, state) = (folder(), tempfile::tempdir().unwrap());
    let mut sb = open(dir.path(), state.path());
    let mut p = RetrievalPipeline::open(&config(state.path())).unwrap();
    let report = p.index_sandbox(&mut sb).unwrap();
    assert_eq!(report.embedded_files, 5, "{report:?}");
    assert!(sb.stale_nodes().is_empty());

    let r = p
        .query_content(&sb, "security deposit for the apartment", ".", 3)
        .unwrap();
    assert_eq!(paths(&r)[0], "Documents/lease.txt", "{r:#?}");
    assert!(r.hits[0].snippet.contains("deposit"));
    assert_eq!(r.warning, None);

    // HTML is read without its markup; binaries are found by name only.
    let r = p.query_content(&sb, "passport", ".", 1).unwrap();
    assert_eq!(paths(&r), ["Downloads/notes.html"]);
    assert!(!r.hits[0].snippet.contains("<b>"), "{}", r.hits[0].snippet);
    let r = p.query_content(&sb, "beach holiday photo", ".", 1).unwrap();
    assert_eq!(paths(&r), ["Downloads/holiday_beach.jpg"]);

    // Clipped to the scope.
    let r = p.query_content(&sb, "security deposit", "Code", 5).unwrap();
    assert!(paths(&r).iter().all(|p| p.starts_with("Code/")), "{r:#?}");

    // The same through the primitive, with a scope path.
    let v = call_retrieval(
        &p,
        Some(&sb),
        "content_search",
        json!({"query": "budget travel", "path": "Documents", "top_k": 2})
            .as_object()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(v["paths"][0], "Documents/budget.md");
    let err = call_retrieval(
        &p,
        Some(&sb),
        "content_search",
        json!({"query": "x", "path": "/etc"}).as_object().unwrap(),
    )
    .unwrap_err();
    assert_eq!(err.code(), "SCOPE_VIOLATION");
    let err = call_retrieval(
        &p,
        Some(&sb),
        "content_search",
        json!({}).as_object().unwrap(),
    )
    .unwrap_err();
    assert_eq!(err.code(), "INVALID_PARAMS");
}

#[test]
fn uncommitted_changes_warn_or_block_then_commit_reindexes() {
    let (dir, state) = (folder(), tempfile::tempdir().unwrap());
    std::fs::create_dir(dir.path().join("Archive")).unwrap();
    let mut sb = open(dir.path(), state.path());
    let mut p = RetrievalPipeline::open(&config(state.path())).unwrap();
    p.index_sandbox(&mut sb).unwrap();

    let r = sb
        .call(
            "move_node",
            json!({"source": "Documents/lease.txt", "target": "Archive"})
                .as_object()
                .unwrap(),
        )
        .unwrap();
    assert!(r.ok, "{r:?}");
    sb.stage(&r.snapshot_id).unwrap();
    let res = p.query_content(&sb, "security deposit", ".", 3).unwrap();
    assert_eq!(res.stale, ["Archive/lease.txt"]);
    expect_test::expect![[r#"Content index out of date for 1 nodes (Archive/lease.txt); results for them may be stale until the changes are committed and re-indexed."#]]
        .assert_eq(res.warning.as_deref().unwrap());
    // A sync before commit leaves the planned change pending.
    let report = p.update_content(&mut sb).unwrap();
    assert_eq!(report.pending_files, 1);

    let mut blocking = config(state.path());
    blocking.block_on_stale = true;
    let mut strict = RetrievalPipeline::open(&blocking).unwrap();
    strict.index_sandbox(&mut sb).unwrap();
    let err = strict.query_content(&sb, "deposit", ".", 3).unwrap_err();
    assert_eq!(err.code(), "STALE_CONTENT_INDEX");
    // A scope without stale nodes is fine.
    strict.query_content(&sb, "budget", "Documents", 3).unwrap();

    sb.commit(None).unwrap();
    let report = p.update_content(&mut sb).unwrap();
    assert_eq!(
        (report.embedded_files, report.removed_files),
        (1, 1),
        "{report:?}"
    );
    let res = p.query_content(&sb, "security deposit", ".", 1).unwrap();
    assert_eq!(paths(&res), ["Archive/lease.txt"]);
    assert!(res.stale.is_empty() && res.warning.is_none());
}

#[test]
fn a_reopened_folder_reuses_the_saved_index() {
    let (dir, state) = (folder(), tempfile::tempdir().unwrap());
    let cfg = config(state.path());
    let mut sb = open(dir.path(), state.path());
    RetrievalPipeline::open(&cfg)
        .unwrap()
        .index_sandbox(&mut sb)
        .unwrap();
    std::fs::write(
        dir.path().join("Documents/budget.md"),
        "Travel budget doubled for Q4.",
    )
    .unwrap();
    let mut sb = open(dir.path(), state.path());
    let mut p = RetrievalPipeline::open(&cfg).unwrap();
    let report = p.index_sandbox(&mut sb).unwrap();
    assert_eq!(
        (report.kept_files, report.embedded_files),
        (4, 1),
        "{report:?}"
    );
    let r = p.query_content(&sb, "Q4 travel doubled", ".", 1).unwrap();
    assert_eq!(paths(&r), ["Documents/budget.md"]);
}

#[test]
fn rebuild_all_indexes_reembeds_skills_and_content() {
    let (dir, state) = (folder(), tempfile::tempdir().unwrap());
    let mut sb = open(dir.path(), state.path());
    let store = crate::support::load_store(&crate::support::repo_skills());
    let counting = crate::support::Counting::new();
    let mut p = RetrievalPipeline::with_embedder(&config(state.path()), counting.clone()).unwrap();
    p.build_index(&store).unwrap();
    p.index_sandbox(&mut sb).unwrap();
    let first = counting.take();
    let report = p.rebuild_all_indexes(&store, Some(&mut sb)).unwrap();
    assert!(report.rebuilt && report.embedded.len() == 11, "{report:?}");
    assert_eq!(counting.take(), first, "everything embedded again, once");
    let r = p.query_content(&sb, "security deposit", ".", 1).unwrap();
    assert_eq!(paths(&r), ["Documents/lease.txt"]);
}

#[test]
fn a_stopped_index_keeps_what_it_did_and_the_next_sync_goes_on_from_there() {
    let (dir, state) = (folder(), tempfile::tempdir().unwrap());
    let cfg = config(state.path());
    let mut sb = open(dir.path(), state.path());
    let asked = std::cell::Cell::new(0);
    // Stop when asked before the third file.
    let stop = || {
        asked.set(asked.get() + 1);
        asked.get() > 2
    };
    let report = RetrievalPipeline::open(&cfg)
        .unwrap()
        .index_sandbox_until(&mut sb, &stop)
        .unwrap();
    assert_eq!(
        (report.embedded_files, report.stopped_files),
        (2, 3),
        "{report:?}"
    );
    assert_eq!(
        sb.stale_nodes().len(),
        3,
        "the files not reached stay stale"
    );

    // Another process later: the two saved files are kept, the other three embedded.
    let mut sb = open(dir.path(), state.path());
    let mut p = RetrievalPipeline::open(&cfg).unwrap();
    let report = p.index_sandbox(&mut sb).unwrap();
    assert_eq!(
        (
            report.kept_files,
            report.embedded_files,
            report.stopped_files
        ),
        (2, 3, 0),
        "{report:?}"
    );
    assert!(sb.stale_nodes().is_empty());
    let r = p.query_content(&sb, "security deposit", ".", 1).unwrap();
    assert_eq!(paths(&r), ["Documents/lease.txt"]);
}

/// Regression: a query no file is about listed every file with a near-zero score.
#[test]
fn a_query_no_file_is_about_finds_nothing() {
    let (dir, state) = (folder(), tempfile::tempdir().unwrap());
    let mut sb = open(dir.path(), state.path());
    let mut p = RetrievalPipeline::open(&config(state.path())).unwrap();
    p.index_sandbox(&mut sb).unwrap();
    // (Not "taxes": with word vectors a budget is about money, so it is near taxes.)
    let r = p.query_content(&sb, "volcano eruption", ".", 5).unwrap();
    assert_eq!(paths(&r), Vec::<&str>::new(), "{r:#?}");
    // The file that names it first; by meaning a weaker hit may follow.
    let r = p.query_content(&sb, "passport", ".", 5).unwrap();
    assert_eq!(paths(&r)[0], "Downloads/notes.html", "{r:#?}");
}

/// PDFs by their text, photos by their EXIF, songs by their tags, Word files by their text.
#[test]
fn pdfs_photos_songs_and_office_files_are_found_by_what_they_hold() {
    use sandbox::parse::samples::{self, PhotoInfo, SongInfo};
    let (dir, state) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (name, bytes) in [
        (
            "scan_0042.pdf",
            samples::pdf(
                "",
                "",
                "2024",
                &["Invoice from the plumber for the kitchen sink"],
            ),
        ),
        (
            "IMG_2231.jpg",
            samples::jpeg(&PhotoInfo {
                taken: Some("2019:12:24 18:00:00"),
                make: Some("NIKON CORPORATION"),
                model: Some("NIKON D750"),
                width: 10,
                height: 10,
                ..Default::default()
            }),
        ),
        (
            "track03.mp3",
            samples::mp3(
                &SongInfo {
                    title: "Clair de Lune",
                    artist: "Debussy",
                    album: "Suite bergamasque",
                    ..Default::default()
                },
                1,
            ),
        ),
        (
            "doc1.docx",
            samples::docx("", "", &["Minutes of the garden committee"]),
        ),
    ] {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let mut sb = open(dir.path(), state.path());
    let mut p = RetrievalPipeline::open(&config(state.path())).unwrap();
    let report = p.index_sandbox(&mut sb).unwrap();
    assert_eq!(report.embedded_files, 4, "{report:?}");
    for (query, want) in [
        ("plumber invoice", "scan_0042.pdf"),
        ("photos taken with the nikon", "IMG_2231.jpg"),
        ("debussy", "track03.mp3"),
        ("garden committee minutes", "doc1.docx"),
    ] {
        let r = p.query_content(&sb, query, ".", 1).unwrap();
        assert_eq!(paths(&r), [want], "{query}: {r:#?}");
    }
}
