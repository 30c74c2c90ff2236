//! Graph methods on real scanned folders, rendered as readable text (tree + pending diff).

use contracts::ErrorCode;
use expect_test::expect;
use serde_json::json;

use crate::support::{Fixture, open};

fn downloads() -> Fixture {
    open(&[
        ("report.pdf", "report-v1"),
        ("report_final.pdf", "report-v1"),
        ("photo.jpg", "jpeg-bytes"),
        ("photo (copy).jpg", "jpeg-bytes"),
        ("song.mp3", "mp3"),
        ("notes.txt", "notes"),
        ("data.csv", "a,b\n1,2\n"),
        ("setup.exe", "MZ"),
        ("README", "no extension"),
        ("old/", ""),
        ("old/photo.jpg", "jpeg-bytes"),
        ("empty/", ""),
    ])
}

fn view(fx: &Fixture) -> String {
    format!(
        "{}--\n{}",
        fx.sandbox.graph().render_tree(false),
        fx.sandbox.render_diff()
    )
}

#[test]
fn scan_builds_the_tree() {
    let fx = downloads();
    expect![[r#"
        ./
          README (12 B)
          data.csv (8 B)
          empty/
          notes.txt (5 B)
          old/
            photo.jpg (10 B)
          photo (copy).jpg (10 B)
          photo.jpg (10 B)
          report.pdf (9 B)
          report_final.pdf (9 B)
          setup.exe (2 B)
          song.mp3 (3 B)
    "#]]
    .assert_eq(&fx.sandbox.graph().render_tree(true));
    assert!(fx.sandbox.issues().is_empty());
}

#[test]
fn organize_by_type_then_rename_and_delete() {
    let mut fx = downloads();
    let out = fx.run("organize_by_type", json!({"path": "."}));
    assert_eq!(out["count"], 9);
    assert_eq!(
        out["by_category"],
        json!({"Audio": 1, "Data": 1, "Documents": 3, "Images": 2, "Installers": 1, "Other": 1})
    );
    fx.run(
        "rename_node",
        json!({"path": "Documents/notes.txt", "new_name": "todo.txt"}),
    );
    fx.run("delete_node", json!({"path": "empty"}));
    expect![[r#"
        ./
          Audio/
            song.mp3
          Data/
            data.csv
          Documents/
            report.pdf
            report_final.pdf
            todo.txt
          Images/
            photo (copy).jpg
            photo.jpg
          Installers/
            setup.exe
          Other/
            README
          old/
            photo.jpg
        --
        + mkdir  Other/
        ~ move   README -> Other/README
        + mkdir  Data/
        ~ move   data.csv -> Data/data.csv
        + mkdir  Documents/
        ~ move   notes.txt -> Documents/notes.txt
        + mkdir  Images/
        ~ move   photo (copy).jpg -> Images/photo (copy).jpg
        ~ move   photo.jpg -> Images/photo.jpg
        ~ move   report.pdf -> Documents/report.pdf
        ~ move   report_final.pdf -> Documents/report_final.pdf
        + mkdir  Installers/
        ~ move   setup.exe -> Installers/setup.exe
        + mkdir  Audio/
        ~ move   song.mp3 -> Audio/song.mp3
        ~ move   Documents/notes.txt -> Documents/todo.txt
        - delete empty/ (0 B)
    "#]]
    .assert_eq(&view(&fx));
}

#[test]
fn find_filters_are_combinable() {
    let mut fx = downloads();
    let cases = [
        (
            json!({"path": ".", "extension": "jpg"}),
            vec!["old/photo.jpg", "photo (copy).jpg", "photo.jpg"],
        ),
        (
            json!({"path": ".", "extension": ".JPG", "recursive": false}),
            vec!["photo (copy).jpg", "photo.jpg"],
        ),
        (
            json!({"path": ".", "glob": "report*.pdf"}),
            vec!["report.pdf", "report_final.pdf"],
        ),
        (
            json!({"path": ".", "glob": "old/*.jpg"}),
            vec!["old/photo.jpg"],
        ),
        (
            json!({"path": ".", "name": "PHOTO", "kind": "file", "max_size": "10"}),
            vec!["old/photo.jpg", "photo (copy).jpg", "photo.jpg"],
        ),
        (
            json!({"path": ".", "regex": "^[a-z]+\\.(csv|txt)$"}),
            vec!["data.csv", "notes.txt"],
        ),
        (
            json!({"path": ".", "min_size": "9B", "limit": 2}),
            vec!["README", "old/photo.jpg"],
        ),
        (json!({"path": ".", "empty": true}), vec!["empty"]),
        (json!({"path": ".", "kind": "dir"}), vec!["empty", "old"]),
        (
            json!({"path": ".", "modified_before": "1990-01-01"}),
            vec![],
        ),
        (
            json!({"path": ".", "modified_after": "1 day ago", "extension": "exe"}),
            vec!["setup.exe"],
        ),
    ];
    for (params, want) in cases {
        let out = fx.run("find", params.clone());
        let mut got: Vec<&str> = out["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["path"].as_str().unwrap())
            .collect();
        if params.get("limit").is_none() {
            got.sort();
        }
        assert_eq!(got, want, "find {params}");
    }
    for (params, code) in [
        (json!({"path": ".", "glob": "[unclosed"}), "INVALID_PARAM"),
        (json!({"path": ".", "min_size": "huge"}), "INVALID_PARAM"),
        (
            json!({"path": ".", "modified_after": "someday"}),
            "INVALID_PARAM",
        ),
        (json!({"path": ".", "kind": "socket"}), "INVALID_PARAM"),
        (json!({"path": ".", "colour": "red"}), "UNKNOWN_PARAM"),
        (json!({"path": "notes.txt"}), "NOT_A_DIRECTORY"),
        (json!({}), "MISSING_PARAM"),
    ] {
        let e = fx.fail("find", params.clone());
        assert_eq!(e.code(), code, "find {params}: {e}");
    }
}

#[test]
fn metadata_has_directory_aggregates() {
    let mut fx = downloads();
    let m = fx.run("get_metadata", json!({"path": "."}));
    assert_eq!(m["file_count"], 10);
    assert_eq!(m["dir_count"], 2);
    assert_eq!(m["total_size"], 78);
    assert_eq!(m["extensions"]["jpg"], 3);
    assert_eq!(m["extensions"]["(none)"], 1);
    let a = fx.run("analyze_directory", json!({"path": ".", "top_n": 2}));
    assert_eq!(a["largest"].as_array().unwrap().len(), 2);
    assert_eq!(a["empty_dirs"], json!(["empty"]));
    assert_eq!(a["by_category"][0]["category"], "Images");
    assert!(
        a["summary"]
            .as_str()
            .unwrap()
            .starts_with("10 files in 2 folders")
    );
}

#[test]
fn duplicates_are_found_by_content_and_hardlinks_are_one_file() {
    let mut fx = downloads();
    #[cfg(unix)]
    {
        std::fs::hard_link(
            fx.dir.path().join("song.mp3"),
            fx.dir.path().join("song-link.mp3"),
        )
        .unwrap();
        // Rescan to see the hardlink.
        fx = crate::support::open_dir(fx.dir);
    }
    let d = fx.run("find_duplicates", json!({"path": "."}));
    let groups = crate::support::group_paths(&d);
    assert_eq!(
        groups,
        vec![
            vec!["old/photo.jpg", "photo (copy).jpg", "photo.jpg"],
            vec!["report.pdf", "report_final.pdf"]
        ]
    );
    assert_eq!(d["duplicate_count"], 3);
    assert_eq!(d["wasted_bytes"], 2 * 10 + 9);
    #[cfg(unix)]
    assert_eq!(d["hardlinks"], json!([["song-link.mp3", "song.mp3"]]));

    // analyze-directory: the duplicate share, and the hardlinked song counted once (as `du`).
    let a = fx.run("analyze_directory", json!({"path": "."}));
    assert_eq!(a["total_size"], 78, "{a}");
    assert_eq!(a["duplicates"]["wasted_bytes"], 29);
    assert_eq!(a["duplicates"]["share"], 0.372);
    assert!(
        a["summary"]
            .as_str()
            .unwrap()
            .ends_with("duplicates waste 29 B (37.2%)"),
        "{a}"
    );
    #[cfg(unix)]
    assert_eq!(a["hardlinks"]["extra_names"], 1);
    let a = fx.run(
        "analyze_directory",
        json!({"path": ".", "duplicates": false}),
    );
    assert_eq!(a["duplicates"], json!(null));

    // The person excludes the report pair; the rest is removed keeping the shortest path.
    let r = fx.run(
        "remove_duplicates",
        json!({"groups": d["groups"], "keep": "shortest_path", "exclude": ["report.pdf", "report_final.pdf"]}),
    );
    assert_eq!(r["kept"], json!(["photo.jpg"]));
    assert_eq!(r["deleted"], json!(["old/photo.jpg", "photo (copy).jpg"]));
    assert_eq!(r["groups_skipped"], 1);
    assert_eq!(r["freed_bytes"], 20);
}

#[test]
fn batch_rename_patterns_collisions_and_swaps() {
    let mut fx = open(&[("a.txt", "1"), ("b.txt", "2"), ("c.JPG", "3")]);
    let out = fx.run(
        "batch_rename",
        json!({"source": ["a.txt", "b.txt", "c.JPG"], "pattern": "file_{n:03}", "case": "lower"}),
    );
    assert_eq!(
        out["moved"],
        json!([{"from": "a.txt", "to": "file_001.txt"}, {"from": "b.txt", "to": "file_002.txt"}, {"from": "c.JPG", "to": "file_003.jpg"}])
    );
    // Collision: two files would get the same name.
    let e = fx.fail(
        "batch_rename",
        json!({"source": ["file_001.txt", "file_002.txt"], "pattern": "same.{ext}"}),
    );
    assert_eq!(e.code(), "INVALID_PARAM");
    assert!(e.to_string().contains("the same name `same.txt`"), "{e}");
    // Swap: 001 <-> 002 through temporary names.
    let out = fx.run("batch_rename", json!({"source": ["file_001.txt", "file_002.txt"], "pattern": "{name}", "find": "00(1|2)", "replace": "X$1"}));
    assert_eq!(out["count"], 2);
    let e = fx.fail(
        "batch_rename",
        json!({"source": "file_X1.txt", "pattern": "{bogus}"}),
    );
    assert!(
        e.to_string().contains("unknown placeholder `{bogus}`"),
        "{e}"
    );
    // A chain onto names held by the batch itself (1→2, 2→3) goes through temporary names.
    let mut chain = open(&[("1.txt", "one"), ("2.txt", "two")]);
    let out = chain.run(
        "batch_rename",
        json!({"source": ["1.txt", "2.txt"], "pattern": "{n}", "start": 2}),
    );
    assert_eq!(
        out["moved"],
        json!([{"from": "1.txt", "to": "2.txt"}, {"from": "2.txt", "to": "3.txt"}])
    );
    chain.sandbox.commit(None).unwrap();
    assert_eq!(chain.disk(), "2.txt (one)\n3.txt (two)\n");
}

/// A pattern ending in an extension gives the files that extension ("rename the .jpeg files to
/// .jpg"); it is not appended after the old one.
#[test]
fn a_pattern_ending_in_an_extension_changes_the_extension() {
    let mut fx = open(&[
        ("camera/a.jpeg", "1"),
        ("camera/b.JPEG", "2"),
        ("camera/c.png", "3"),
    ]);
    let out = fx.run(
        "batch_rename",
        json!({"source": ["camera/a.jpeg", "camera/b.JPEG"], "pattern": "{name}.jpg"}),
    );
    assert_eq!(
        out["moved"],
        json!([{"from": "camera/a.jpeg", "to": "camera/a.jpg"}, {"from": "camera/b.JPEG", "to": "camera/b.jpg"}])
    );
    fx.sandbox.commit(None).unwrap();
    assert_eq!(
        fx.disk(),
        "camera/\ncamera/a.jpg (1)\ncamera/b.jpg (2)\ncamera/c.png (3)\n"
    );
}

/// `ask`: one call finds every clash, lists them all in the error and leaves the graph as it was.
#[test]
fn ask_lists_every_conflict_and_changes_nothing() {
    let mut fx = open(&[
        ("a.txt", "1"),
        ("b.txt", "2"),
        ("c.txt", "3"),
        ("dir/a.txt", "old a"),
        ("dir/b.txt", "old b"),
    ]);
    let before = fx.sandbox.render_diff();
    let e = fx.fail(
        "move_node",
        json!({"source": ["a.txt", "b.txt", "c.txt"], "target": "dir", "on_conflict": "ask"}),
    );
    assert_eq!(e.code(), "CONFLICT_ASK");
    expect![[r#"`move_node`: 2 already exist (`dir/a.txt`, `dir/b.txt`); choose on_conflict skip, rename or fail"#]]
        .assert_eq(&e.to_string());
    assert_eq!(
        fx.sandbox.render_diff(),
        before,
        "nothing of the call stays"
    );
    // Without clashes `ask` just does the work.
    let out = fx.run(
        "move_node",
        json!({"source": "c.txt", "target": "dir", "on_conflict": "ask"}),
    );
    assert_eq!(out["count"], 1);
}

#[test]
fn conflicts_follow_the_policy() {
    let mut fx = open(&[("a.txt", "1"), ("dir/a.txt", "2")]);
    let e = fx.fail("move_node", json!({"source": "a.txt", "target": "dir"}));
    assert_eq!(e.code(), "ALREADY_EXISTS");
    let out = fx.run(
        "move_node",
        json!({"source": "a.txt", "target": "dir", "on_conflict": "skip"}),
    );
    assert_eq!(out["count"], 0);
    let out = fx.run(
        "move_node",
        json!({"source": "a.txt", "target": "dir", "on_conflict": "rename"}),
    );
    assert_eq!(
        out["moved"],
        json!([{"from": "a.txt", "to": "dir/a (2).txt"}])
    );
    let e = fx.fail("move_node", json!({"source": "dir", "target": "dir/inner"}));
    assert_eq!(e.code(), "MOVE_INTO_ITSELF");
    let e = fx.fail("delete_node", json!({"path": "."}));
    assert_eq!(e.code(), "ROOT_PROTECTED");
    let e = fx.fail("rename_node", json!({"path": "dir", "new_name": "x/y"}));
    assert_eq!(e.code(), "INVALID_PARAM");
    let e = fx.fail("no_such_method", json!({}));
    assert_eq!(e.code(), "UNKNOWN_METHOD");
}

#[test]
fn create_copy_and_text() {
    let mut fx = open(&[("src/a.txt", "hello\nworld\n"), ("bin.dat", "\0\0\x01")]);
    fx.run(
        "create_node",
        json!({"path": "new/deeper", "name": "hello.md", "type": "file", "content": "# Hi"}),
    );
    fx.run(
        "create_node",
        json!({"path": ".", "name": "Images, Documents", "type": "dir"}),
    );
    // Regression: a name with a space is one name (it was split into "Taxes" and "2024").
    fx.run(
        "create_node",
        json!({"path": ".", "name": "Taxes 2024", "type": "dir"}),
    );
    fx.run("copy_node", json!({"source": "src", "target": "backup"}));
    fx.run("copy_node", json!({"source": "src/a.txt", "target": "src"}));
    let t = fx.run("extract_text", json!({"path": "backup/a.txt"}));
    assert_eq!(t["text"], "hello\nworld\n");
    assert_eq!(t["lines"], 2);
    assert_eq!(
        fx.fail("extract_text", json!({"path": "bin.dat"})).code(),
        "CONTENT_UNREADABLE"
    );
    assert_eq!(
        fx.fail("extract_text", json!({"path": "new/deeper/hello.md"}))
            .code(),
        "CONTENT_UNREADABLE"
    );
    expect![[r#"
        + mkdir  new/
        + mkdir  new/deeper/
        + create new/deeper/hello.md (4 bytes)
        + mkdir  Images/
        + mkdir  Documents/
        + mkdir  Taxes 2024/
        + copy   src/ -> backup
        + copy   src/a.txt -> src/a (2).txt
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
}

/// Regression: `move the PDFs` answered with target "Archive" renamed the one PDF found to a
/// file called "Archive". A list of sources (even of one) goes into a folder; one file given
/// alone goes into a folder unless the target names a file like it; one folder takes the path.
#[test]
fn transfer_targets_are_folders_unless_they_name_the_item() {
    let mut fx = open(&[
        ("Downloads/report.pdf", "pdf"),
        ("notes.txt", "n"),
        ("memo.txt", "m"),
        ("photos/a.jpg", "j"),
    ]);
    fx.run(
        "move_node",
        json!({"source": ["Downloads/report.pdf"], "target": "Archive"}),
    );
    fx.run(
        "move_node",
        json!({"source": "notes.txt", "target": "Keep"}),
    );
    fx.run(
        "move_node",
        json!({"source": "memo.txt", "target": "Old/memo-2024.txt"}),
    );
    fx.run("copy_node", json!({"source": "photos", "target": "backup"}));
    expect![[r#"
        + mkdir  Archive/
        ~ move   Downloads/report.pdf -> Archive/report.pdf
        + mkdir  Keep/
        ~ move   notes.txt -> Keep/notes.txt
        + mkdir  Old/
        ~ move   memo.txt -> Old/memo-2024.txt
        + copy   photos/ -> backup
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
}
