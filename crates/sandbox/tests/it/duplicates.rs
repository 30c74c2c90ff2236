//! remove-duplicates as fclones does it, on real folders: the staged hashes tell apart files that
//! differ only at the end or only in the middle; keep policies, path priority and reference
//! folders choose the survivor; remove, move and hardlink actions commit for real; text and CSV
//! reports.

use contracts::ErrorCode;
use expect_test::expect;
use serde_json::json;

use crate::support::{Fixture, group_paths, open, open_dir, tree};

/// `n` bytes of a repeating pattern with `mark` written at `at`.
fn bytes(n: usize, at: usize, mark: u8) -> String {
    let mut v: Vec<u8> = (0..n).map(|i| b'a' + (i % 23) as u8).collect();
    v[at] = mark;
    String::from_utf8(v).unwrap()
}

#[test]
fn every_stage_of_the_pipeline_tells_files_apart() {
    let n = 20_000;
    let base = bytes(n, 0, b'a');
    let fx_files = [
        ("same-1.bin", base.clone()),
        ("same-2.bin", base.clone()),
        ("differs-at-start.bin", bytes(n, 10, b'#')),
        ("differs-at-end.bin", bytes(n, n - 10, b'#')),
        ("differs-in-middle.bin", bytes(n, n / 2, b'#')),
        ("small-1.txt", "tiny".to_owned()),
        ("small-2.txt", "tiny".to_owned()),
        ("small-3.txt", "tinz".to_owned()),
    ];
    let spec: Vec<(&str, &str)> = fx_files.iter().map(|(p, c)| (*p, c.as_str())).collect();
    let mut fx = open(&spec);
    for hash in ["xxh3", "sha256"] {
        let d = fx.run("find_duplicates", json!({"path": ".", "hash": hash}));
        assert_eq!(
            group_paths(&d),
            [
                vec!["same-1.bin", "same-2.bin"],
                vec!["small-1.txt", "small-2.txt"]
            ],
            "{hash}"
        );
        let len = d["groups"][0]["hash"].as_str().unwrap().len();
        assert_eq!(len, if hash == "xxh3" { 32 } else { 64 });
        assert_eq!(d["wasted_bytes"], n as u64 + 4);
    }
    // Size filters and exclusions narrow the search.
    let d = fx.run("find_duplicates", json!({"path": ".", "max_size": 100}));
    assert_eq!(group_paths(&d), [vec!["small-1.txt", "small-2.txt"]]);
    let d = fx.run(
        "find_duplicates",
        json!({"path": ".", "exclude": ["same-2.bin"]}),
    );
    assert_eq!(group_paths(&d), [vec!["small-1.txt", "small-2.txt"]]);
}

fn library() -> Fixture {
    open(&[
        ("Library/a.jpg", "AAAA"),
        ("Library/b.jpg", "BBBB"),
        ("Library/b-again.jpg", "BBBB"),
        ("Downloads/a.jpg", "AAAA"),
        ("Downloads/a (1).jpg", "AAAA"),
        ("Downloads/old/c.txt", "CC"),
        ("Desktop/c.txt", "CC"),
    ])
}

#[test]
fn reference_folders_are_never_touched_and_their_copies_go() {
    let mut fx = library();
    let d = fx.run("find_duplicates", json!({"path": "."}));
    let r = fx.run(
        "remove_duplicates",
        json!({"groups": d["groups"], "reference": ["Library"], "priority": ["Desktop"]}),
    );
    // a: the Library copy stays, both Downloads copies go. b: both copies are in the reference
    // folder, so both stay. c: Desktop is preferred over Downloads/old.
    assert_eq!(
        r["kept"],
        json!(["Library/a.jpg", "Library/b-again.jpg", "Desktop/c.txt"])
    );
    assert_eq!(
        r["deleted"],
        json!([
            "Downloads/a (1).jpg",
            "Downloads/a.jpg",
            "Downloads/old/c.txt"
        ])
    );
    expect![[r#"
        - delete Downloads/a (1).jpg (4 B)
        - delete Downloads/a.jpg (4 B)
        - delete Downloads/old/c.txt (2 B)
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
}

#[test]
fn extra_copies_can_move_to_a_folder_keeping_their_paths() {
    let mut fx = library();
    let d = fx.run("find_duplicates", json!({"path": "Downloads"}));
    let e = fx.fail(
        "remove_duplicates",
        json!({"groups": d["groups"], "action": "move"}),
    );
    assert_eq!(e.code(), "INVALID_PARAM");
    assert!(e.to_string().contains("needs `target`"), "{e}");
    let r = fx.run(
        "remove_duplicates",
        json!({"groups": d["groups"], "action": "move", "target": "Duplicates", "keep": "shortest_path"}),
    );
    assert_eq!(
        r["moved"],
        json!([{"from": "Downloads/a (1).jpg", "to": "Duplicates/Downloads/a (1).jpg"}])
    );
    assert_eq!(r["freed_bytes"], 0);
    fx.sandbox.commit(None).unwrap();
    expect![[r#"
        Desktop/
        Desktop/c.txt (CC)
        Downloads/
        Downloads/a.jpg (AAAA)
        Downloads/old/
        Downloads/old/c.txt (CC)
        Duplicates/
        Duplicates/Downloads/
        Duplicates/Downloads/a (1).jpg (AAAA)
        Library/
        Library/a.jpg (AAAA)
        Library/b-again.jpg (BBBB)
        Library/b.jpg (BBBB)
    "#]]
    .assert_eq(&fx.disk());
}

#[cfg(unix)]
#[test]
fn extra_copies_can_become_hardlinks_and_a_rescan_sees_one_file() {
    use std::os::unix::fs::MetadataExt;
    let mut fx = library();
    let d = fx.run("find_duplicates", json!({"path": "."}));
    let r = fx.run(
        "remove_duplicates",
        json!({"groups": d["groups"], "action": "hardlink", "reference": ["Library"]}),
    );
    assert_eq!(r["count"], 3);
    assert_eq!(r["freed_bytes"], 4 + 4 + 2);
    expect![[r#"
        = link   Downloads/a (1).jpg => Library/a.jpg (frees 4 B)
        = link   Downloads/a.jpg => Library/a.jpg (frees 4 B)
        = link   Downloads/old/c.txt => Desktop/c.txt (frees 2 B)
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
    // Within the plan the links already count as one file.
    let again = fx.run("find_duplicates", json!({"path": "."}));
    assert_eq!(
        group_paths(&again),
        [vec!["Library/b-again.jpg", "Library/b.jpg"]]
    );
    let report = fx.sandbox.commit(None).unwrap();
    assert_eq!(report.linked, 3);
    let ino = |p: &str| std::fs::metadata(fx.dir.path().join(p)).unwrap().ino();
    assert_eq!(ino("Downloads/a.jpg"), ino("Library/a.jpg"));
    assert_eq!(ino("Downloads/a (1).jpg"), ino("Library/a.jpg"));
    assert_eq!(ino("Downloads/old/c.txt"), ino("Desktop/c.txt"));
    assert_ne!(ino("Library/b.jpg"), ino("Library/b-again.jpg"));
    // No temporary link is left behind, and the names are all still there.
    assert_eq!(fx.disk().lines().count(), 11, "{}", fx.disk());
    let fx = open_dir(fx.dir);
    let mut fx = fx;
    let d = fx.run("find_duplicates", json!({"path": "."}));
    assert_eq!(d["hardlinks"].as_array().unwrap().len(), 2, "{d}");
}

#[test]
fn a_hardlink_is_refused_at_commit_when_a_file_changed_since_the_scan() {
    let mut fx = library();
    let d = fx.run("find_duplicates", json!({"path": "Downloads"}));
    fx.run(
        "remove_duplicates",
        json!({"groups": d["groups"], "action": "hardlink"}),
    );
    // The kept file is edited behind the sandbox's back: linking to it would lose nothing
    // visible, but it is no longer the content that was compared.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(fx.dir.path().join("Downloads/a.jpg"), "AAAA but edited").unwrap();
    let e = fx.sandbox.commit(None).unwrap_err();
    assert_eq!(e.code(), "COMMIT_CONFLICT", "{e}");
    assert!(e.to_string().contains("Downloads/a.jpg"), "{e}");
    assert_eq!(
        std::fs::read_to_string(fx.dir.path().join("Downloads/a (1).jpg")).unwrap(),
        "AAAA"
    );
}

#[test]
fn reports_come_as_text_and_csv() {
    let dir = tree(&[
        ("x/one.txt", "same"),
        ("y/one, two.txt", "same"),
        ("z.txt", "other"),
    ]);
    let mut fx = open_dir(dir);
    let text = fx.run(
        "find_duplicates",
        json!({"path": ".", "format": "text", "hash": "sha256"}),
    );
    expect![[r#"
        1 group(s), 1 redundant file(s), 4 B wasted
        0967115f2813a3541eaef77de9d9d5773f1c0c04314b0bbfe4ff3b3b1c55b5d5 4 B * 2:
            x/one.txt
            y/one, two.txt
    "#]]
    .assert_eq(text["report"].as_str().unwrap());
    let csv = fx.run(
        "find_duplicates",
        json!({"path": ".", "format": "csv", "hash": "sha256"}),
    );
    expect![[r#"
        group,hash,size,count,path
        1,0967115f2813a3541eaef77de9d9d5773f1c0c04314b0bbfe4ff3b3b1c55b5d5,4,2,x/one.txt
        1,0967115f2813a3541eaef77de9d9d5773f1c0c04314b0bbfe4ff3b3b1c55b5d5,4,2,"y/one, two.txt"
    "#]]
    .assert_eq(csv["report"].as_str().unwrap());
    assert!(
        fx.run("find_duplicates", json!({"path": "."}))
            .get("report")
            .is_none()
    );
}

#[cfg(unix)]
#[test]
fn a_hardlink_interrupted_before_its_rename_is_redone_by_recovery() {
    use std::os::unix::fs::MetadataExt;
    let mut fx = open(&[("a.txt", "SAME"), ("copy.txt", "SAME")]);
    let d = fx.run("find_duplicates", json!({"path": "."}));
    fx.run(
        "remove_duplicates",
        json!({"groups": d["groups"], "action": "hardlink", "keep": "shortest_path"}),
    );
    let root = fx.dir.path().to_owned();
    let ops: Vec<sandbox::ChangeOp> = fx.sandbox.changes().iter().map(|c| c.op.clone()).collect();
    assert_eq!(ops.len(), 1);
    // The crash came after the link was made under its temporary name, before the rename.
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
    std::fs::write(
        &path,
        format!("{}\n", serde_json::to_string(&header).unwrap()),
    )
    .unwrap();
    std::fs::hard_link(root.join("a.txt"), root.join("copy.txt.sw-link")).unwrap();
    let report = sandbox::recover(&root, fx.state.path(), false)
        .unwrap()
        .unwrap();
    assert_eq!(
        report.in_doubt.map(|(_, d)| d),
        Some(sandbox::InDoubt::Partial)
    );
    let report = sandbox::recover(&root, fx.state.path(), true)
        .unwrap()
        .unwrap();
    assert!(report.finished, "{report:?}");
    let ino = |p: &str| std::fs::metadata(root.join(p)).unwrap().ino();
    assert_eq!(ino("copy.txt"), ino("a.txt"));
    assert_eq!(fx.disk(), "a.txt (SAME)\ncopy.txt (SAME)\n");
}

/// The persistent hash cache: a second scan after a restart reads no file it hashed before, a
/// file changed since (new bytes, same size) is read again, and the groups stay right.
#[test]
fn a_second_scan_reads_only_what_changed() {
    let n = 20_000;
    let base = bytes(n, 0, b'a');
    let mut fx = open(&[
        ("a.bin", base.as_str()),
        ("b.bin", base.as_str()),
        ("c.bin", bytes(n, n - 1, b'z').as_str()),
    ]);
    let first = fx.run("find_duplicates", json!({"path": "."}));
    assert_eq!(group_paths(&first), [vec!["a.bin", "b.bin"]]);
    assert_eq!(first["hash_cache"]["hits"], 0);
    let stored = sandbox::hash_cache::HashCache::path_in(fx.state.path());
    assert!(stored.exists());

    // A restart: a new sandbox on the same folder and state.
    let reopen = |fx: &Fixture| {
        let mut config = fx.sandbox.config().clone();
        config.state_dir = fx.state.path().to_owned();
        sandbox::Sandbox::open(fx.dir.path(), config, &sandbox::ScanOptions::default()).unwrap()
    };
    fx.sandbox = reopen(&fx);
    let second = fx.run("find_duplicates", json!({"path": "."}));
    assert_eq!(group_paths(&second), group_paths(&first));
    assert_eq!(second["hash_cache"]["misses"], 0, "{second}");
    assert!(
        second["hash_cache"]["hits"].as_u64().unwrap() >= 3,
        "{second}"
    );

    // b.bin gets other bytes of the same size (and a later time): it is read again and leaves
    // the group; a.bin comes from the cache.
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(fx.dir.path().join("b.bin"), bytes(n, 10, b'q')).unwrap();
    fx.sandbox = reopen(&fx);
    let third = fx.run("find_duplicates", json!({"path": "."}));
    assert!(group_paths(&third).is_empty(), "{third}");
    assert!(
        third["hash_cache"]["misses"].as_u64().unwrap() >= 1,
        "{third}"
    );
    assert!(
        third["hash_cache"]["hits"].as_u64().unwrap() >= 1,
        "{third}"
    );
}
