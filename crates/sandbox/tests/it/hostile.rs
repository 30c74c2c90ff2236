//! Hostile inputs through the skills' methods on real folders: names with newlines, names that
//! are not UTF-8, symlink loops inside the tree. Each test commits and checks the disk.

use expect_test::expect;
use serde_json::json;

use crate::support::{Fixture, open_dir};

/// The entry names `list_archive` reports for the archive at `path`.
fn entry_names(fx: &mut Fixture, path: &str) -> Vec<String> {
    let listed = fx.run("list_archive", json!({"path": path}));
    listed["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A newline in a name cannot fake a line of the diff, and the file is sorted, archived and
/// listed under its real name.
#[cfg(unix)]
#[test]
fn a_newline_in_a_name_is_escaped_in_the_diff_and_the_file_is_handled_for_real() {
    let dir = tempfile::tempdir().unwrap();
    let evil = "report\n- delete notes.txt.pdf";
    std::fs::write(dir.path().join(evil), "pdf bytes").unwrap();
    std::fs::write(dir.path().join("notes.txt"), "keep me").unwrap();
    let mut fx = open_dir(dir);
    fx.run("organize_by_type", json!({"path": "."}));
    let f = fx.run("find", json!({"path": ".", "extension": "pdf"}));
    assert_eq!(f["nodes"][0]["path"], format!("Documents/{evil}"));
    fx.run(
        "create_archive",
        json!({"source": ["Documents"], "target": "docs.zip"}),
    );
    expect![[r#"
        + mkdir  Documents/
        ~ move   notes.txt -> Documents/notes.txt
        ~ move   report\n- delete notes.txt.pdf -> Documents/report\n- delete notes.txt.pdf
        + archive Documents -> docs.zip
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
    fx.sandbox.commit(None).unwrap();
    let root = fx.sandbox.root().to_owned();
    assert_eq!(
        std::fs::read_to_string(root.join("Documents").join(evil)).unwrap(),
        "pdf bytes"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("Documents/notes.txt")).unwrap(),
        "keep me"
    );
    let mut fx = open_dir(fx.dir);
    let names = entry_names(&mut fx, "docs.zip");
    assert!(names.contains(&format!("Documents/{evil}")), "{names:?}");
    // A new name with a control character is refused with a clear error.
    let e = fx.fail(
        "rename_node",
        json!({"path": "docs.zip", "new_name": "a\nb.zip"}),
    );
    assert!(e.to_string().contains("control characters"), "{e}");
}

/// A file whose name is not UTF-8 is not in the graph, but moving its folder moves it too and
/// archiving the folder keeps its bytes: nothing is lost.
#[cfg(target_os = "linux")]
#[test]
fn a_name_that_is_not_utf8_travels_with_its_folder() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let bad = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::create_dir(dir.path().join("box")).unwrap();
    std::fs::write(dir.path().join("box").join(bad), "latin-1").unwrap();
    std::fs::write(dir.path().join("box/a.txt"), "a").unwrap();
    let mut fx = open_dir(dir);
    assert_eq!(fx.sandbox.issues().len(), 1);
    fx.run(
        "move_node",
        json!({"source": "box", "target": "Archive/box"}),
    );
    fx.run(
        "create_archive",
        json!({"source": ["Archive/box"], "target": "box.tar.gz"}),
    );
    fx.sandbox.commit(None).unwrap();
    let root = fx.sandbox.root().to_owned();
    assert_eq!(
        std::fs::read_to_string(root.join("Archive/box").join(bad)).unwrap(),
        "latin-1"
    );
    let mut fx = open_dir(fx.dir);
    let listed = fx.run("list_archive", json!({"path": "box.tar.gz"}));
    assert_eq!(listed["entries"].as_array().unwrap().len(), 3, "{listed}");
}

/// Symlink loops inside the tree: the scan records them without following, and analyze, find,
/// duplicates and archives all finish; the archive leaves links out.
#[cfg(unix)]
#[test]
fn symlink_loops_inside_the_tree_do_not_hang_anything() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("a/b")).unwrap();
    std::fs::write(root.join("a/b/file.txt"), "same").unwrap();
    std::fs::write(root.join("a/copy.txt"), "same").unwrap();
    std::os::unix::fs::symlink("..", root.join("a/b/up")).unwrap();
    std::os::unix::fs::symlink("loop2", root.join("a/loop1")).unwrap();
    std::os::unix::fs::symlink("loop1", root.join("a/loop2")).unwrap();
    let mut fx = open_dir(dir);
    let a = fx.run("analyze_directory", json!({"path": "."}));
    assert_eq!(
        (a["file_count"].as_u64(), a["symlink_count"].as_u64()),
        (Some(2), Some(3))
    );
    assert_eq!(a["duplicates"]["group_count"], 1);
    let f = fx.run("find", json!({"path": ".", "glob": "*.txt"}));
    assert_eq!(f["count"], 2, "{f}");
    fx.run(
        "create_archive",
        json!({"source": ["a"], "target": "a.zip"}),
    );
    fx.sandbox.commit(None).unwrap();
    let mut fx = open_dir(fx.dir);
    let names = entry_names(&mut fx, "a.zip");
    assert!(
        !names
            .iter()
            .any(|n| n.contains("loop") || n.ends_with("up")),
        "{names:?}"
    );
}

/// Deleting (or moving) a folder that holds a name the scan could not list takes that entry
/// too: the result names it and warns, so the approval shows what the graph cannot.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_holding_unlisted_names_says_so_when_it_is_deleted() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let bad = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::create_dir(dir.path().join("box")).unwrap();
    std::fs::write(dir.path().join("box").join(bad), "latin-1").unwrap();
    std::fs::write(dir.path().join("keep.txt"), "k").unwrap();
    let mut fx = open_dir(dir);
    let out = fx.run("delete_node", json!({"path": "box"}));
    assert_eq!(out["unlisted"][0]["path"], "box/caf\u{fffd}.txt", "{out}");
    assert_eq!(out["unlisted"][0]["with"], "box");
    let warning = out["warning"].as_str().unwrap();
    assert!(
        warning
            .starts_with("`box` holds entries the scan could not list; they are deleted with it"),
        "{warning}"
    );
    // A call that touches no such folder carries no warning.
    let out = fx.run("delete_node", json!({"path": "keep.txt"}));
    assert!(out.get("warning").is_none(), "{out}");
}
