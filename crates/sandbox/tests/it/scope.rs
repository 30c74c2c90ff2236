//! Scope escapes: a table of hostile paths, including symlinks, all refused with a message naming the path.

use contracts::ErrorCode;
use expect_test::expect;
use serde_json::json;

use crate::support::{open, tree};

#[cfg(unix)]
#[test]
fn hostile_paths_are_refused_and_inner_paths_resolve() {
    let outside = tree(&[("secret.txt", "s")]);
    let dir = tree(&[("docs/a.txt", "a"), ("inner/b.txt", "b")]);
    let root = dir.path();
    std::os::unix::fs::symlink(outside.path(), root.join("link_out")).unwrap();
    std::os::unix::fs::symlink("inner", root.join("link_in")).unwrap();
    std::os::unix::fs::symlink("../../..", root.join("docs/up")).unwrap();
    std::os::unix::fs::symlink("loop_b", root.join("loop_a")).unwrap();
    std::os::unix::fs::symlink("loop_a", root.join("loop_b")).unwrap();
    let fx = crate::support::open_dir(dir);
    let sb = &fx.sandbox;
    let root_s = sb.root().display().to_string();
    let outside_s = outside.path().display().to_string();

    let cases: Vec<(String, &str)> = vec![
        ("../escape.txt".into(), "err"),
        ("docs/../../escape.txt".into(), "err"),
        ("/etc/passwd".into(), "err"),
        (format!("{outside_s}/secret.txt"), "err"),
        ("link_out/secret.txt".into(), "err"),
        ("docs/up/etc/passwd".into(), "err"),
        ("loop_a/x".into(), "err"),
        ("bad\0name".into(), "err"),
        (format!("{root_s}/../x"), "err"),
        // Allowed:
        ("docs/a.txt".into(), "docs/a.txt"),
        ("./docs//a.txt".into(), "docs/a.txt"),
        ("docs/../inner/b.txt".into(), "inner/b.txt"),
        (format!("{root_s}/docs/a.txt"), "docs/a.txt"),
        (root_s.clone(), "."),
        ("link_in/b.txt".into(), "inner/b.txt"),
        ("link_out".into(), "link_out"), // the link itself: deleting it is fine
    ];
    let mut report = String::new();
    for (arg, want) in &cases {
        let got = sb.resolve(arg);
        let shown = arg
            .replace(&root_s, "ROOT")
            .replace(&outside_s, "OUTSIDE")
            .replace('\0', "\\0");
        match (got, *want) {
            (Ok(id), w) if w != "err" => assert_eq!(id, w, "{shown}"),
            (Err(e), "err") => {
                assert_eq!(e.code(), "SCOPE_VIOLATION", "{shown}");
                let msg = e
                    .to_string()
                    .replace(&root_s, "ROOT")
                    .replace(&outside_s, "OUTSIDE")
                    .replace('\0', "\\0");
                report.push_str(&format!("{shown:<28} {msg}\n"));
            }
            (got, want) => panic!("{shown}: expected {want}, got {got:?}"),
        }
    }
    expect![[r#"
        ../escape.txt                `../escape.txt` climbs above the working root with `..`
        docs/../../escape.txt        `docs/../../escape.txt` climbs above the working root with `..`
        /etc/passwd                  `/etc/passwd` is outside the working root ROOT
        OUTSIDE/secret.txt           `OUTSIDE/secret.txt` is outside the working root ROOT
        link_out/secret.txt          `link_out/secret.txt` goes through the symlink `link_out`, which leads outside the working root (to OUTSIDE)
        docs/up/etc/passwd           `docs/up/etc/passwd` goes through the symlink `docs/up`, which leads outside the working root (to ../../..)
        loop_a/x                     `loop_a/x` goes through too many symlinks (a loop?)
        bad\0name                    `bad\0name` is not a usable path: contains a NUL byte
        ROOT/../x                    `ROOT/../x` is outside the working root ROOT
    "#]]
    .assert_eq(&report);
}

#[test]
fn every_path_param_is_scope_checked_and_a_refused_call_changes_nothing() {
    let mut fx = open(&[("a.txt", "a"), ("b.txt", "b")]);
    let before = fx.sandbox.graph().fingerprint_state();
    for (method, params) in [
        (
            "move_node",
            json!({"source": "a.txt", "target": "../elsewhere"}),
        ),
        (
            "move_node",
            json!({"source": ["b.txt", "/etc/hosts"], "target": "x"}),
        ),
        ("copy_node", json!({"source": "/etc/hosts", "target": "."})),
        ("delete_node", json!({"path": ["a.txt", "../../etc"]})),
        ("rename_node", json!({"path": "../a.txt", "new_name": "z"})),
        (
            "create_node",
            json!({"path": "/tmp", "name": "x", "type": "file"}),
        ),
        ("get_children", json!({"path": ".."})),
        ("find", json!({"path": "/"})),
        (
            "remove_duplicates",
            json!({"groups": [{"paths": ["a.txt", "/etc/passwd"]}]}),
        ),
    ] {
        let e = fx.fail(method, params);
        assert_eq!(e.code(), "SCOPE_VIOLATION", "{method}: {e}");
    }
    assert_eq!(fx.sandbox.graph().fingerprint_state(), before);
    assert!(fx.sandbox.changes().is_empty());
}

#[test]
fn root_name_and_home_forms_resolve_inside() {
    let fx = open(&[("Downloads/a.txt", "a"), ("b.txt", "b")]);
    let sb = &fx.sandbox;
    let root_name = sb
        .root()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    // "<root name>/b.txt" means b.txt inside the root when the root has no child of that name.
    assert_eq!(sb.resolve(&format!("{root_name}/b.txt")).unwrap(), "b.txt");
    // A real child folder wins.
    assert_eq!(sb.resolve("Downloads/a.txt").unwrap(), "Downloads/a.txt");
    if let Some(home) = std::env::home_dir()
        && !sb.root().starts_with(&home)
    {
        assert_eq!(sb.resolve("~/x").unwrap_err().code(), "SCOPE_VIOLATION");
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_name_that_is_not_utf8_is_reported_and_the_scan_goes_on() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tree(&[("fine.txt", "ok")]);
    let bad = std::ffi::OsStr::from_bytes(b"caf\xe9.txt");
    std::fs::write(dir.path().join(bad), "latin-1 name").unwrap();
    let fx = crate::support::open_dir(dir);
    assert!(fx.sandbox.graph().contains("fine.txt"));
    assert_eq!(
        fx.sandbox.graph().len(),
        2,
        "root + fine.txt; the unnamed file is left alone"
    );
    let issues = fx.sandbox.issues();
    assert_eq!(issues.len(), 1);
    assert!(issues[0].message.contains("not valid UTF-8"), "{issues:?}");
}
