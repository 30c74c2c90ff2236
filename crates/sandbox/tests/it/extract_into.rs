//! Extracting into a folder that already exists (`unzip -d`, `tar -C`): folders merge, a taken
//! name follows the conflict policy (rename, skip, ask), nothing is overwritten, and a commit
//! interrupted half way is cleaned up and finished by recovery without touching other files.

use std::io::Write;

use contracts::ErrorCode;
use serde_json::json;

use crate::support::{open, write_tree};

/// `photos.zip` beside an existing `Pictures` folder that already has `a.jpg` and a file `sub`.
fn fixture() -> crate::support::Fixture {
    let fx = open(&[
        ("Pictures/a.jpg", "mine"),
        ("Pictures/keep/old.jpg", "old"),
        ("Pictures/sub", "a file named like the archive's folder"),
    ]);
    let file = std::fs::File::create(fx.dir.path().join("photos.zip")).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default();
    for (name, body) in [
        ("a.jpg", "from the archive"),
        ("b.jpg", "b"),
        ("keep/new.jpg", "new"),
        ("sub/c.jpg", "c"),
    ] {
        zip.start_file(name, opts).unwrap();
        zip.write_all(body.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
    crate::support::open_dir(fx.dir)
}

#[test]
fn renamed_on_conflict_folders_merge_and_nothing_is_overwritten() {
    let mut fx = fixture();
    let out = fx.run(
        "extract_archive",
        json!({"path": "photos.zip", "target": "Pictures", "on_conflict": "rename"}),
    );
    assert_eq!(out["merged"], true);
    assert_eq!(out["files"], 4);
    assert_eq!(
        out["renamed"],
        json!([
            {"entry": "a.jpg", "to": "Pictures/a (2).jpg"},
            {"entry": "sub", "to": "Pictures/sub (2)"},
            {"entry": "sub/c.jpg", "to": "Pictures/sub (2)/c.jpg"},
        ])
    );
    assert_eq!(
        fx.sandbox.render_diff(),
        "+ extract photos.zip -> Pictures/ (into the existing folder: 4 files, 2 renamed)\n"
    );
    fx.sandbox.commit(None).unwrap();
    expect_test::expect![[r#"
        Pictures/
        Pictures/a (2).jpg (from the archive)
        Pictures/a.jpg (mine)
        Pictures/b.jpg (b)
        Pictures/keep/
        Pictures/keep/new.jpg (new)
        Pictures/keep/old.jpg (old)
        Pictures/sub (a file named like the archive's folder)
        Pictures/sub (2)/
        Pictures/sub (2)/c.jpg (c)
        photos.zip ()
    "#]]
    .assert_eq(&fx.disk());
    assert_eq!(
        std::fs::read_to_string(fx.dir.path().join("Pictures/a.jpg")).unwrap(),
        "mine"
    );
}

#[test]
fn skip_leaves_taken_names_and_ask_lists_them_all() {
    let mut fx = fixture();
    let out = fx.run(
        "extract_archive",
        json!({"path": "photos.zip", "target": "Pictures", "on_conflict": "skip"}),
    );
    assert_eq!(out["files"], 2, "{out}");
    assert_eq!(
        out["skipped"],
        json!([
            {"entry": "a.jpg", "reason": "`Pictures/a.jpg` already exists"},
            {"entry": "sub", "reason": "`Pictures/sub` already exists"},
        ])
    );
    fx.sandbox.commit(None).unwrap();
    assert!(fx.dir.path().join("Pictures/keep/new.jpg").is_file());
    assert!(!fx.dir.path().join("Pictures/sub (2)").exists());

    let mut fx = fixture();
    let err = fx.fail(
        "extract_archive",
        json!({"path": "photos.zip", "target": "Pictures", "on_conflict": "ask"}),
    );
    assert_eq!(err.code(), "CONFLICT_ASK");
    assert!(err.to_string().contains("Pictures/a.jpg"), "{err}");
    assert!(err.to_string().contains("Pictures/sub"), "{err}");
    assert!(fx.sandbox.changes().is_empty());
}

#[test]
fn a_name_taken_on_disk_after_the_plan_stops_the_commit() {
    let mut fx = fixture();
    fx.run(
        "extract_archive",
        json!({"path": "photos.zip", "target": "Pictures", "on_conflict": "rename"}),
    );
    write_tree(fx.dir.path(), &[("Pictures/b.jpg", "arrived meanwhile")]);
    let err = fx.sandbox.commit(None).unwrap_err();
    assert_eq!(err.code(), "COMMIT_CONFLICT", "{err}");
    assert!(err.to_string().contains("Pictures/b.jpg"), "{err}");
    assert_eq!(
        std::fs::read_to_string(fx.dir.path().join("Pictures/b.jpg")).unwrap(),
        "arrived meanwhile"
    );
    assert!(!fx.dir.path().join("Pictures/keep/new.jpg").exists());
}

#[test]
fn recovery_removes_only_what_the_interrupted_extraction_placed_then_redoes_it() {
    let mut fx = fixture();
    fx.run(
        "extract_archive",
        json!({"path": "photos.zip", "target": "Pictures", "on_conflict": "rename"}),
    );
    let root = fx.dir.path().to_owned();
    let ops: Vec<sandbox::ChangeOp> = fx.sandbox.changes().iter().map(|c| c.op.clone()).collect();
    // The crash: the archive was staged and two entries placed, then the process died.
    let staging = sandbox::archive_staging_dir(&root.join("Pictures"), &root.join("photos.zip"));
    sandbox::archive_extract(
        &root.join("photos.zip"),
        &staging,
        sandbox::ArchiveFormat::Zip,
    )
    .unwrap();
    std::fs::hard_link(staging.join("b.jpg"), root.join("Pictures/b.jpg")).unwrap();
    std::fs::hard_link(
        staging.join("keep/new.jpg"),
        root.join("Pictures/keep/new.jpg"),
    )
    .unwrap();
    let path = fx.sandbox.journal_path();
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let header = sandbox::JournalHeader {
        version: 1,
        root: fx.sandbox.root().to_owned(),
        delete_mode: config::DeleteMode::Permanent,
        ops,
        started_at: 0,
        run: None,
    };
    std::fs::write(&path, serde_json::to_string(&header).unwrap() + "\n").unwrap();
    let report = sandbox::recover(&root, fx.state.path(), false)
        .unwrap()
        .unwrap();
    assert_eq!(report.in_doubt.unwrap().1, sandbox::InDoubt::Partial);
    let report = sandbox::recover(&root, fx.state.path(), true)
        .unwrap()
        .unwrap();
    assert!(report.finished, "{report:?}");
    assert!(!staging.exists());
    assert_eq!(
        std::fs::read_to_string(root.join("Pictures/a.jpg")).unwrap(),
        "mine"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("Pictures/keep/new.jpg")).unwrap(),
        "new"
    );
    assert!(root.join("Pictures/sub (2)/c.jpg").is_file());
    assert_eq!(
        std::fs::read_to_string(root.join("Pictures/keep/old.jpg")).unwrap(),
        "old"
    );
}
