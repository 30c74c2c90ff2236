//! Undo of committed runs on real folders: every kind of change turned back to the exact tree, a
//! file changed since the run kept and named, permanent deletions reported, an undo undone.

use expect_test::expect;
use sandbox::{RunRecord, UndoPlan};
use serde_json::json;

use crate::support::{Fixture, open};

/// The newest history record of the fixture's state folder.
fn last_record(fx: &Fixture) -> RunRecord {
    let (records, broken) = sandbox::history_list(fx.state.path());
    assert!(broken.is_empty(), "{broken:?}");
    records
        .last()
        .cloned()
        .expect("a committed run has a record")
}

/// Rescans (as after a restart), plans the undo of the newest run, approves and commits it.
fn undo_last(fx: Fixture) -> (Fixture, UndoPlan) {
    let record = last_record(&fx);
    let mut fx = rescan(fx);
    let plan = fx.sandbox.stage_undo(&record).unwrap();
    fx.sandbox.stage(&plan.snapshot.to_string()).unwrap();
    fx.sandbox.commit(None).unwrap();
    (fx, plan)
}

/// The fixture after a restart: a fresh scan of its folder, the same state folder.
fn rescan(fx: Fixture) -> Fixture {
    let sandbox = reopen(&fx);
    Fixture { sandbox, ..fx }
}

/// A sandbox on the fixture's folder writing to the fixture's state folder.
fn reopen(fx: &Fixture) -> sandbox::Sandbox {
    let mut config = fx.sandbox.config().clone();
    config.state_dir = fx.state.path().to_owned();
    sandbox::Sandbox::open(fx.dir.path(), config, &sandbox::ScanOptions::default()).unwrap()
}

#[test]
fn moves_renames_copies_and_created_files_and_folders_are_undone_to_the_exact_tree() {
    let mut fx = open(&[
        ("a.txt", "A"),
        ("b.jpg", "B"),
        ("old/c.txt", "C"),
        ("old/deep/d.txt", "D"),
    ]);
    let before = fx.disk();
    fx.run(
        "create_node",
        json!({"path": "Docs", "name": "readme.md", "type": "file", "content": "# hi"}),
    );
    fx.run(
        "move_node",
        json!({"source": ["a.txt", "old/c.txt"], "target": "Docs"}),
    );
    fx.run(
        "copy_node",
        json!({"source": "b.jpg", "target": "Images/b-copy.jpg"}),
    );
    fx.run("rename_node", json!({"path": "old", "new_name": "archive"}));
    let report = fx.sandbox.commit(None).unwrap();
    let id = report
        .run_id
        .clone()
        .expect("the commit has a history record");
    assert_eq!(last_record(&fx).run.id, id);
    assert_ne!(fx.disk(), before);

    let (fx, plan) = undo_last(fx);
    assert!(plan.kept.is_empty(), "{plan:?}");
    assert_eq!(plan.run, id);
    // The made files go (the undo's own record keeps them restorable); the tree is as it was.
    assert_eq!(fx.disk(), before);
    let undo = last_record(&fx);
    assert_eq!(undo.run.undoes.as_deref(), Some(id.as_str()));
    expect![[r#"
        ~ move   archive/ -> old
        - delete Images/b-copy.jpg (1 B)
        - rmdir  Images/ (empty)
        ~ move   Docs/c.txt -> old/c.txt
        ~ move   Docs/a.txt -> a.txt
        - delete Docs/readme.md (4 B)
        - rmdir  Docs/ (empty)
    "#]]
    .assert_eq(
        &undo
            .changes
            .iter()
            .map(|c| c.op.render() + "\n")
            .collect::<String>(),
    );
}

#[test]
fn a_file_changed_since_the_run_is_kept_and_named_and_the_rest_is_undone() {
    let mut fx = open(&[("a.txt", "A"), ("b.txt", "B")]);
    fx.run(
        "move_node",
        json!({"source": ["a.txt", "b.txt"], "target": "Notes"}),
    );
    fx.sandbox.commit(None).unwrap();
    std::fs::write(fx.dir.path().join("Notes/b.txt"), "B, edited after the run").unwrap();

    let (fx, plan) = undo_last(fx);
    assert_eq!(
        plan.kept
            .iter()
            .map(|k| format!("{}: {}", k.path, k.reason))
            .collect::<Vec<_>>(),
        [
            "Notes/b.txt: changed since the run",
            "Notes: the folder holds entries that stay"
        ]
    );
    expect![[r#"
        Notes/
        Notes/b.txt (B, edited after the run)
        a.txt (A)
    "#]]
    .assert_eq(&fx.disk());
}

#[test]
fn a_place_taken_since_the_run_is_not_overwritten() {
    let mut fx = open(&[("a.txt", "A")]);
    fx.run("rename_node", json!({"path": "a.txt", "new_name": "b.txt"}));
    fx.sandbox.commit(None).unwrap();
    std::fs::write(fx.dir.path().join("a.txt"), "a new a").unwrap();
    let (fx, plan) = undo_last(fx);
    assert_eq!(plan.changes, 0);
    assert_eq!(plan.kept[0].path, "b.txt");
    assert!(plan.kept[0].reason.contains("`a.txt` is taken"), "{plan:?}");
    expect![[r#"
        a.txt (a new a)
        b.txt (A)
    "#]]
    .assert_eq(&fx.disk());
}

#[test]
fn an_undo_is_undone_by_its_own_record() {
    let mut fx = open(&[("a.txt", "A"), ("b.txt", "B")]);
    fx.run("move_node", json!({"source": "a.txt", "target": "Sorted"}));
    fx.sandbox.commit(None).unwrap();
    let after_run = fx.disk();
    let (fx, _) = undo_last(fx);
    assert_ne!(fx.disk(), after_run);
    let (fx, plan) = undo_last(fx);
    assert!(plan.kept.is_empty(), "{plan:?}");
    assert_eq!(fx.disk(), after_run);
    let (records, _) = sandbox::history_list(fx.state.path());
    let undone = sandbox::undone_by(&records);
    // The run is in effect again: its undo was undone.
    assert_eq!(records.len(), 3);
    assert!(!undone.contains_key(&records[0].run.id));
    assert_eq!(undone.get(&records[1].run.id), Some(&records[2].run.id));
}

#[test]
fn permanent_deletions_are_reported_as_not_restorable_before_anything_is_written() {
    let mut fx = open(&[("keep.txt", "K"), ("gone.log", "L")]);
    fx.run("delete_node", json!({"path": "gone.log"}));
    fx.run(
        "rename_node",
        json!({"path": "keep.txt", "new_name": "kept.txt"}),
    );
    fx.sandbox.commit(None).unwrap();
    let record = last_record(&fx);
    assert_eq!(record.unrestorable().len(), 1);
    let mut sb = reopen(&fx);
    let plan = sb.stage_undo(&record).unwrap();
    assert_eq!(plan.not_restorable, ["`gone.log` was deleted permanently"]);
    assert_eq!(plan.changes, 1, "the rename is still undone");
}

#[test]
fn archives_and_extractions_are_undone() {
    let mut fx = open(&[("docs/a.txt", "alpha"), ("c.txt", "gamma")]);
    let before = fx.disk();
    fx.run(
        "create_archive",
        json!({"source": ["docs", "c.txt"], "target": "backup.zip"}),
    );
    fx.sandbox.commit(None).unwrap();
    let mut fx = rescan(fx);
    fx.run("extract_archive", json!({"path": "backup.zip"}));
    fx.sandbox.commit(None).unwrap();
    assert!(fx.dir.path().join("backup/docs/a.txt").exists());
    let (fx, _) = undo_last(fx);
    assert!(!fx.dir.path().join("backup").exists());
    let (fx, _) = undo_last_in_effect(fx);
    assert_eq!(fx.disk(), before);
}

/// Undoes the newest run that is in effect and not itself an undo (what `scope-weaver undo` picks).
fn undo_last_in_effect(fx: Fixture) -> (Fixture, UndoPlan) {
    let (records, _) = sandbox::history_list(fx.state.path());
    let undone = sandbox::undone_by(&records);
    let record = records
        .iter()
        .rev()
        .find(|r| r.run.undoes.is_none() && !undone.contains_key(&r.run.id))
        .cloned()
        .unwrap();
    let mut fx = rescan(fx);
    let plan = fx.sandbox.stage_undo(&record).unwrap();
    fx.sandbox.stage(&plan.snapshot.to_string()).unwrap();
    fx.sandbox.commit(None).unwrap();
    (fx, plan)
}

#[cfg(unix)]
#[test]
fn hardlinked_duplicates_get_their_own_copies_back_with_their_times() {
    use std::os::unix::fs::MetadataExt;
    let mut fx = open(&[("Library/a.jpg", "AAAA"), ("Downloads/a.jpg", "AAAA")]);
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(86_400);
    std::fs::File::options()
        .write(true)
        .open(fx.dir.path().join("Downloads/a.jpg"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    let mtime = |fx: &Fixture, p: &str| {
        std::fs::metadata(fx.dir.path().join(p))
            .unwrap()
            .modified()
            .unwrap()
    };
    fx.sandbox = reopen(&fx);
    let before = mtime(&fx, "Downloads/a.jpg");
    let d = fx.run("find_duplicates", json!({"path": "."}));
    fx.run(
        "remove_duplicates",
        json!({"groups": d["groups"], "action": "hardlink", "reference": ["Library"]}),
    );
    fx.sandbox.commit(None).unwrap();
    let ino = |fx: &Fixture, p: &str| std::fs::metadata(fx.dir.path().join(p)).unwrap().ino();
    assert_eq!(ino(&fx, "Downloads/a.jpg"), ino(&fx, "Library/a.jpg"));
    let (fx, plan) = undo_last(fx);
    assert!(plan.kept.is_empty(), "{plan:?}");
    assert_ne!(ino(&fx, "Downloads/a.jpg"), ino(&fx, "Library/a.jpg"));
    assert_eq!(
        std::fs::read_to_string(fx.dir.path().join("Downloads/a.jpg")).unwrap(),
        "AAAA"
    );
    assert_eq!(mtime(&fx, "Downloads/a.jpg"), before);
    assert!(!fx.dir.path().join("Downloads/a.jpg.sw-unlink").exists());
}

#[test]
fn tags_are_written_as_extended_attributes_and_an_undo_takes_them_back() {
    let fx = open(&[
        ("Inbox/bill.pdf", "pdf"),
        ("Inbox/recipe.md", "md"),
        ("Inbox/notes.txt", "txt"),
    ]);
    let tags_of = |fx: &Fixture, p: &str| sandbox::tags::read(&fx.dir.path().join(p)).unwrap();
    sandbox::tags::write(&fx.dir.path().join("Inbox/notes.txt"), &["Old".to_owned()]).unwrap();
    // Read again after a restart: the tags on disk are the ones the plan starts from.
    let mut fx = rescan(fx);
    let out = fx.run(
            "tag_files",
            json!({"source": ["Inbox/bill.pdf", "Inbox/notes.txt"], "add": "Taxes 2024, Paid", "remove": "old"}),
        );
    assert_eq!(out["count"], 2, "{out}");
    // By a classify step's assignments: each file its category; nothing moves.
    let out = fx.run(
            "tag_files",
            json!({"assignments": [{"path": "Inbox/recipe.md", "category": "Recipes", "folder": "Inbox/Recipes"}]}),
        );
    assert_eq!(out["tagged"][0]["tags"], json!(["Recipes"]), "{out}");
    assert_eq!(
        fx.sandbox.render_diff(),
        "# tag    Inbox/bill.pdf: Paid, Taxes 2024 (was no tags)\n\
             # tag    Inbox/notes.txt: Paid, Taxes 2024 (was Old)\n\
             # tag    Inbox/recipe.md: Recipes (was no tags)\n"
    );
    fx.sandbox.commit(None).unwrap();
    assert_eq!(tags_of(&fx, "Inbox/bill.pdf"), ["Paid", "Taxes 2024"]);
    assert_eq!(tags_of(&fx, "Inbox/notes.txt"), ["Paid", "Taxes 2024"]);
    assert_eq!(tags_of(&fx, "Inbox/recipe.md"), ["Recipes"]);
    assert!(
        fx.dir.path().join("Inbox/recipe.md").exists(),
        "nothing moved"
    );

    // Someone changes one file's tags after the run: the undo keeps that file, and says why.
    sandbox::tags::write(&fx.dir.path().join("Inbox/recipe.md"), &["Mine".to_owned()]).unwrap();
    let (fx, plan) = undo_last(fx);
    assert_eq!(plan.kept.len(), 1, "{:?}", plan.kept);
    assert_eq!(plan.kept[0].path, "Inbox/recipe.md");
    assert!(
        plan.kept[0].reason.contains("tags changed"),
        "{:?}",
        plan.kept
    );
    assert_eq!(tags_of(&fx, "Inbox/bill.pdf"), Vec::<String>::new());
    assert_eq!(tags_of(&fx, "Inbox/notes.txt"), ["Old"]);
    assert_eq!(tags_of(&fx, "Inbox/recipe.md"), ["Mine"]);
}

#[test]
fn tag_files_refuses_what_it_cannot_do_and_changes_nothing_twice() {
    use contracts::ErrorCode;
    let mut fx = open(&[("a.txt", "a")]);
    for (params, problem) in [
        (json!({"source": "a.txt"}), "name the tags"),
        (
            json!({"source": "a.txt", "add": "x", "assignments": []}),
            "not both",
        ),
        (
            json!({"assignments": [{"path": "a.txt"}]}),
            "needs `path` and `category`",
        ),
    ] {
        let e = fx.fail("tag_files", params.clone());
        assert_eq!(e.code(), "INVALID_PARAM", "{params}");
        assert!(e.to_string().contains(problem), "{params}: {e}");
    }
    assert_eq!(
        fx.fail("tag_files", json!({"add": "x"})).code(),
        "MISSING_PARAM"
    );
    fx.run("tag_files", json!({"source": "a.txt", "add": "x"}));
    // The same tags again: nothing more to do.
    let again = fx.run("tag_files", json!({"source": "a.txt", "add": "X"}));
    assert_eq!(
        (again["count"].as_u64(), again["unchanged"][0].as_str()),
        (Some(0), Some("a.txt"))
    );
    assert_eq!(fx.sandbox.changes().len(), 1);
}
