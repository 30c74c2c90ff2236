//! The graph window's view: statuses from pending changes, ghosts of deleted files, automatic and
//! requested expansion, `+N more` nodes, and a layout in which no two leaves overlap.

use std::collections::BTreeSet;

use sandbox::{ViewKind, ViewOptions, render_view, tree_view};
use serde_json::json;

use crate::support::{open, params};

fn options(expanded: &[&str]) -> ViewOptions {
    ViewOptions {
        expanded: expanded
            .iter()
            .map(|s| (*s).to_owned())
            .collect::<BTreeSet<_>>(),
        ..ViewOptions::default()
    }
}

#[test]
fn statuses_follow_the_pending_changes_and_changed_folders_open_themselves() {
    let mut fx = open(&[
        ("Downloads/beach.jpg", "JPEG"),
        ("Downloads/beach (1).jpg", "JPEG"),
        ("Downloads/export.csv", "a,b"),
        ("Downloads/old/x.txt", "x"),
        ("Music/song.mp3", "ID3"),
    ]);
    let before = tree_view(
        fx.sandbox.graph(),
        fx.sandbox.changes(),
        "/home/u",
        &options(&[]),
    );
    expect_test::expect![[r#"
        u/ (5 files) @0,0
          Downloads/ (4 files, collapsed) @-60,2
          Music/ (1 files, collapsed) @60,2
    "#]]
    .assert_eq(&render_view(&before));

    fx.sandbox
        .call(
            "delete_node",
            &params(json!({"path": "Downloads/beach.jpg"})),
        )
        .unwrap();
    fx.sandbox
        .call("organize_by_type", &params(json!({"path": "Downloads"})))
        .unwrap();
    let after = tree_view(
        fx.sandbox.graph(),
        fx.sandbox.changes(),
        "/home/u",
        &options(&[]),
    );
    expect_test::expect![[r#"
        u/ (4 files) [changed] @0,0
          Downloads/ (3 files) [changed] @0,-40
            Data/ (1 files) [added] @-84,-80
              export.csv [moved] from Downloads/export.csv @-84,-78
            Images/ (1 files) [added] @84,-80
              beach (1).jpg [moved] from Downloads/beach (1).jpg @84,-78
            old/ (1 files, collapsed) @-108,30
            beach.jpg [deleted] @12,30
          Music/ (1 files, collapsed) @-132,138
    "#]]
    .assert_eq(&render_view(&after));
    assert_eq!(after.total.files, 4);
}

#[test]
fn a_long_folder_shows_the_limit_then_one_more_node_and_changed_files_come_first() {
    let files: Vec<(String, &str)> = (0..250)
        .map(|i| (format!("big/f{i:03}.txt"), "x"))
        .collect();
    let spec: Vec<(&str, &str)> = files.iter().map(|(p, c)| (p.as_str(), *c)).collect();
    let mut fx = open(&spec);
    fx.sandbox
        .call(
            "rename_node",
            &params(json!({"path": "big/f249.txt", "new_name": "last.txt"})),
        )
        .unwrap();
    let view = tree_view(
        fx.sandbox.graph(),
        fx.sandbox.changes(),
        "/data",
        &ViewOptions {
            limit: 10,
            ..options(&["big"])
        },
    );
    let names: Vec<&str> = view.nodes.iter().map(|n| n.label.as_str()).collect();
    assert_eq!(names.len(), 1 + 1 + 10 + 1, "{names:?}");
    assert_eq!(names[2], "last.txt", "the changed file is listed first");
    let more = view.nodes.last().unwrap();
    assert_eq!(more.kind, ViewKind::More);
    assert_eq!(more.label, "+240 more");
    assert_eq!(more.parent.as_deref(), Some("big"));
}

#[test]
fn leaves_never_overlap_and_sit_inside_their_folders_box() {
    let mut spec: Vec<(String, &str)> = Vec::new();
    for d in 0..6 {
        for f in 0..(d * 7 + 1) {
            spec.push((format!("d{d}/sub{}/f{f}.txt", f % 3), "x"));
        }
    }
    let spec: Vec<(&str, &str)> = spec.iter().map(|(p, c)| (p.as_str(), *c)).collect();
    let fx = open(&spec);
    let expanded: Vec<String> = fx
        .sandbox
        .graph()
        .nodes()
        .filter(|n| n.is_dir())
        .map(|n| n.id.clone())
        .collect();
    let expanded: Vec<&str> = expanded.iter().map(String::as_str).collect();
    let view = tree_view(
        fx.sandbox.graph(),
        fx.sandbox.changes(),
        "/r",
        &options(&expanded),
    );
    let leaves: Vec<_> = view
        .nodes
        .iter()
        .filter(|n| {
            !view
                .nodes
                .iter()
                .any(|c| c.parent.as_deref() == Some(&n.id))
        })
        .collect();
    assert!(leaves.len() > 60);
    for (i, a) in leaves.iter().enumerate() {
        for b in &leaves[i + 1..] {
            let apart = (a.x - b.x).abs() >= 119.0 || (a.y - b.y).abs() >= 83.0;
            assert!(
                apart,
                "{} @{},{} overlaps {} @{},{}",
                a.id, a.x, a.y, b.id, b.x, b.y
            );
        }
    }
    // Same input, same layout.
    let again = tree_view(
        fx.sandbox.graph(),
        fx.sandbox.changes(),
        "/r",
        &options(&expanded),
    );
    assert_eq!(view, again);
}

#[test]
fn a_hundred_thousand_files_give_a_small_view() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for d in 0..100 {
        let sub = root.join(format!("d{d:02}"));
        std::fs::create_dir(&sub).unwrap();
        for f in 0..1000 {
            std::fs::File::create(sub.join(format!("{f}.bin"))).unwrap();
        }
    }
    let fx = crate::support::open_dir(dir);
    let view = tree_view(
        fx.sandbox.graph(),
        fx.sandbox.changes(),
        "/r",
        &options(&["d07"]),
    );
    assert_eq!(view.total.files, 100_000);
    // The root's 100 folders (60 shown + one more node) and d07's first 60 files + one more node.
    assert_eq!(view.nodes.len(), 1 + 61 + 61);
    let d07 = view.nodes.iter().find(|n| n.id == "d07").unwrap();
    assert_eq!(d07.files, 1000);
}
