//! Commit on real folders: applied in order, conflicts stop it before damage, the journal recovers.

use contracts::ErrorCode;
use expect_test::expect;
use serde_json::json;

use crate::support::{open, write_tree};

#[test]
fn commit_applies_staged_changes_in_order() {
    let mut fx = open(&[
        ("a.txt", "A"),
        ("b.jpg", "B"),
        ("old/c.txt", "C"),
        ("trash-me.log", "L"),
    ]);
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
    fx.run("delete_node", json!({"path": "trash-me.log"}));
    let report = fx.sandbox.commit(None).unwrap();
    assert_eq!(
        (
            report.applied,
            report.created,
            report.moved,
            report.copied,
            report.deleted
        ),
        (8, 3, 3, 1, 1)
    );
    assert_eq!(report.trashed, 0, "permanent mode in this fixture");
    expect![[r#"
        Docs/
        Docs/a.txt (A)
        Docs/c.txt (C)
        Docs/readme.md (# hi)
        Images/
        Images/b-copy.jpg (B)
        archive/
        b.jpg (B)
    "#]]
    .assert_eq(&fx.disk());
    // The graph now mirrors the disk, history is settled, and a second round works.
    assert!(fx.sandbox.changes().is_empty());
    assert!(fx.sandbox.pending_journal().is_none());
    fx.run(
        "move_node",
        json!({"source": "Docs/a.txt", "target": "archive"}),
    );
    fx.sandbox.commit(None).unwrap();
    assert!(fx.dir.path().join("archive/a.txt").exists());
}

#[test]
fn unapproved_changes_block_the_commit() {
    let mut fx = open(&[("a.txt", "A")]);
    fx.sandbox
        .call("delete_node", json!({"path": "a.txt"}).as_object().unwrap())
        .unwrap();
    let e = fx.sandbox.commit(None).unwrap_err();
    assert_eq!(e.code(), "UNSTAGED_CHANGES");
    assert!(fx.dir.path().join("a.txt").exists());
}

#[test]
fn conflicts_stop_the_commit_before_any_change() {
    let mut fx = open(&[
        ("edited.txt", "v1"),
        ("gone.txt", "x"),
        ("free.txt", "f"),
        ("keep/", ""),
    ]);
    fx.run("move_node", json!({"source": "free.txt", "target": "keep"})); // fine on its own
    fx.run(
        "move_node",
        json!({"source": "edited.txt", "target": "keep"}),
    );
    fx.run("delete_node", json!({"path": "gone.txt"}));
    fx.run(
        "create_node",
        json!({"path": "keep", "name": "new.txt", "type": "file", "content": "n"}),
    );
    // Meanwhile, on disk: edited.txt changes, gone.txt disappears, keep/new.txt appears.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(fx.dir.path().join("edited.txt"), "version two").unwrap();
    std::fs::remove_file(fx.dir.path().join("gone.txt")).unwrap();
    std::fs::write(fx.dir.path().join("keep/new.txt"), "someone else's").unwrap();
    let before = fx.disk();
    let e = fx.sandbox.commit(None).unwrap_err();
    assert_eq!(e.code(), "COMMIT_CONFLICT");
    let text = e.to_string();
    let text: String = text
        .lines()
        .map(|l| l.split(" (expected").next().unwrap().to_owned() + "\n")
        .collect();
    expect![[r#"
        commit stopped before changing anything; 3 conflict(s):
          - `edited.txt` changed on disk since the scan
          - `gone.txt` no longer exists on disk
          - `keep/new.txt` already exists on disk; it would be overwritten
    "#]]
    .assert_eq(&text);
    assert_eq!(fx.disk(), before, "nothing touched");
    assert_eq!(
        fx.sandbox.changes().len(),
        4,
        "the plan is kept for the person to fix or roll back"
    );
}

#[test]
fn a_failure_mid_commit_leaves_a_journal_that_recovery_finishes() {
    let mut fx = open(&[("a.txt", "A"), ("b.txt", "B"), ("c.txt", "C")]);
    fx.run(
        "move_node",
        json!({"source": ["a.txt", "b.txt", "c.txt"], "target": "sorted"}),
    );
    let root = fx.dir.path().to_owned();
    // After the first change lands, something else grabs the second change's target.
    let mut sabotage = |done: usize, _total: usize, _op: &sandbox::ChangeOp| {
        if done == 1 {
            std::fs::write(root.join("sorted/a.txt"), "intruder").unwrap();
        }
    };
    let e = fx.sandbox.commit(Some(&mut sabotage)).unwrap_err();
    assert_eq!(e.code(), "COMMIT_FAILED");
    assert!(e.to_string().contains("1 change(s) were applied"), "{e}");
    let journal = fx.sandbox.pending_journal().expect("journal kept");

    // A new commit refuses to run over an unfinished one.
    let e = fx.sandbox.commit(None).unwrap_err();
    assert_eq!(e.code(), "PENDING_JOURNAL");

    // Report only: nothing changes.
    let report = sandbox::recover(&root, fx.state.path(), false)
        .unwrap()
        .unwrap();
    assert_eq!(
        (
            report.total,
            report.done_before,
            report.pending.len(),
            report.finished
        ),
        (4, 1, 3, false)
    );
    assert!(journal.exists());
    // Completing while the intruder is there is refused with the conflict named.
    let report = sandbox::recover(&root, fx.state.path(), true)
        .unwrap()
        .unwrap();
    assert!(!report.finished);
    assert_eq!(report.conflicts.len(), 1, "{:?}", report.conflicts);
    // The person moves the intruder away; recovery finishes the commit.
    std::fs::rename(root.join("sorted/a.txt"), root.join("intruder.txt")).unwrap();
    let report = sandbox::recover(&root, fx.state.path(), true)
        .unwrap()
        .unwrap();
    assert!(report.finished, "{report:?}");
    assert_eq!(report.completed.unwrap().applied, 3);
    assert!(!journal.exists());
    assert_eq!(
        fx.disk(),
        "intruder.txt (intruder)\nsorted/\nsorted/a.txt (A)\nsorted/b.txt (B)\nsorted/c.txt (C)\n"
    );
    assert!(
        sandbox::recover(&root, fx.state.path(), true)
            .unwrap()
            .is_none()
    );
}

#[test]
fn recovery_decides_the_change_in_doubt_from_the_disk() {
    // Simulate a crash right after a move landed but before its journal line was written.
    let mut fx = open(&[("a.txt", "A"), ("b.txt", "B")]);
    fx.run(
        "move_node",
        json!({"source": ["a.txt", "b.txt"], "target": "d"}),
    );
    let root = fx.dir.path().to_owned();
    let ops: Vec<sandbox::ChangeOp> = fx.sandbox.changes().iter().map(|c| c.op.clone()).collect();
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
    // mkdir done and journaled; the first move done but not journaled; a torn line at the end.
    std::fs::write(
        &path,
        format!(
            "{}\n{{\"done\":0}}\n{{\"do",
            serde_json::to_string(&header).unwrap()
        ),
    )
    .unwrap();
    write_tree(&root, &[("d/", "")]);
    std::fs::rename(root.join("a.txt"), root.join("d/a.txt")).unwrap();
    let report = sandbox::recover(&root, fx.state.path(), false)
        .unwrap()
        .unwrap();
    assert_eq!(
        report.in_doubt,
        Some((
            "~ move   a.txt -> d/a.txt".into(),
            sandbox::InDoubt::Applied
        ))
    );
    let report = sandbox::recover(&root, fx.state.path(), true)
        .unwrap()
        .unwrap();
    assert!(report.finished);
    assert_eq!(report.completed.unwrap().applied, 1);
    assert_eq!(fx.disk(), "d/\nd/a.txt (A)\nd/b.txt (B)\n");
}

#[test]
fn every_commit_accounts_for_every_file_and_checks_the_disk() {
    let mut fx = open(&[("a.txt", "A"), ("b.txt", "B"), ("gone.log", "L")]);
    fx.run("move_node", json!({"source": "a.txt", "target": "Docs"}));
    fx.run("delete_node", json!({"path": "gone.log"}));
    let before = fx.sandbox.accounting();
    assert_eq!(
        before.summary(),
        "3 files accounted for, 1 deleted for good"
    );
    let report = fx.sandbox.commit(None).unwrap();
    assert_eq!(report.accounting, Some(before));
    assert!(report.verified);
}

#[test]
fn a_file_removed_behind_the_engines_back_during_commit_is_reported_by_the_verification() {
    let mut fx = open(&[("a.txt", "A"), ("b.txt", "B")]);
    fx.run(
        "move_node",
        json!({"source": ["a.txt", "b.txt"], "target": "Docs"}),
    );
    let root = fx.dir.path().to_owned();
    // Something else deletes the first moved file while the commit is still running.
    let mut progress = |done: usize, _total: usize, _op: &sandbox::ChangeOp| {
        if done == 2 {
            std::fs::remove_file(root.join("Docs/a.txt")).unwrap();
        }
    };
    let err = fx.sandbox.commit(Some(&mut progress)).unwrap_err();
    assert_eq!(err.code(), "COMMIT_UNVERIFIED");
    let message = err.to_string();
    assert!(
        message.contains("`Docs/a.txt` is missing on disk"),
        "{message}"
    );
    assert!(message.contains("scope-weaver undo"), "{message}");
    // The run is recorded all the same: it can be undone.
    let (records, _) = sandbox::history_list(fx.state.path());
    assert_eq!(records.len(), 1);
}

#[test]
fn a_change_injected_after_the_review_is_refused_by_the_approval_and_nothing_is_written() {
    let mut fx = open(&[("a.txt", "A"), ("b.txt", "B")]);
    fx.run("move_node", json!({"source": "a.txt", "target": "Docs"}));
    let reviewed: Vec<sandbox::ChangeOp> =
        fx.sandbox.changes().iter().map(|c| c.op.clone()).collect();
    fx.sandbox.approve(sandbox::Approval::of(&reviewed));
    // Below the planner, something adds a change the person never saw.
    fx.run("delete_node", json!({"path": "b.txt"}));
    let before = fx.disk();
    let err = fx.sandbox.commit(None).unwrap_err();
    assert_eq!(err.code(), "PLAN_LIMIT");
    assert!(
        err.to_string()
            .contains("- delete b.txt (1 B) was not approved"),
        "{err}"
    );
    assert_eq!(fx.disk(), before);
    assert!(fx.sandbox.pending_journal().is_none());
}

#[test]
fn git_folders_and_configured_places_are_never_changed() {
    let mut fx = open(&[
        ("project/.git/HEAD", "ref: main"),
        ("project/main.rs", "fn main() {}"),
    ]);
    fx.run(
        "move_node",
        json!({"source": "project/.git", "target": "elsewhere"}),
    );
    let err = fx.sandbox.commit(None).unwrap_err();
    assert_eq!(err.code(), "PROTECTED_PATH");
    assert!(err.to_string().contains("`project/.git`"), "{err}");
    assert!(fx.dir.path().join("project/.git/HEAD").exists());
}
