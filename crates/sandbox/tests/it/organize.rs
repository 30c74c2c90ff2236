//! organize_by_type / organize_by_date on real folders: sidecars and split pieces stay with their
//! file, files without an extension are typed by their bytes, date folders, folder patterns, the
//! config's category table, bad patterns, the result on disk after commit; and rename_each (each
//! file to the name a list gives it).

use std::time::{Duration, UNIX_EPOCH};

use config::{ConflictPolicy, DeleteMode};
use contracts::ErrorCode;
use expect_test::expect;
use sandbox::{CategoryTable, Sandbox, SandboxConfig, ScanOptions};
use serde_json::json;

use crate::support::{Fixture, disk_tree, open, open_dir, tree};

/// Sets a file's modification time to `secs` after the epoch.
fn touch(fx: &Fixture, path: &str, secs: u64) {
    let f = std::fs::File::options()
        .write(true)
        .open(fx.dir.path().join(path))
        .unwrap();
    f.set_modified(UNIX_EPOCH + Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn sidecars_and_split_pieces_go_with_their_file_and_bytes_type_files_without_extension() {
    let mut fx = open(&[
        ("film.mkv", "video"),
        ("film.en.srt", "1\n00:00 --> 00:01\nhi"),
        ("film.srt", "1\n00:00 --> 00:01\nhi"),
        ("IMG_0001.CR2", "raw"),
        ("IMG_0001.CR2.xmp", "<x:xmpmeta/>"),
        ("IMG_0002.xmp", "<x:xmpmeta/> orphan"),
        ("backup.zip", "PK\u{3}\u{4}"),
        ("backup.z01", "piece"),
        ("show.part1.rar", "Rar!"),
        ("show.part2.rar", "Rar!"),
        ("scan", "%PDF-1.7 no extension"),
        ("README", "plain words, no extension"),
        ("album.flac", "fLaC"),
        ("album.cue", "FILE album.flac"),
    ]);
    let out = fx.run("organize_by_type", json!({"path": "."}));
    expect![[r#"
        + mkdir  Images/
        ~ move   IMG_0001.CR2 -> Images/IMG_0001.CR2
        ~ move   IMG_0001.CR2.xmp -> Images/IMG_0001.CR2.xmp
        + mkdir  Other/
        ~ move   IMG_0002.xmp -> Other/IMG_0002.xmp
        ~ move   README -> Other/README
        + mkdir  Audio/
        ~ move   album.cue -> Audio/album.cue
        ~ move   album.flac -> Audio/album.flac
        + mkdir  Archives/
        ~ move   backup.z01 -> Archives/backup.z01
        ~ move   backup.zip -> Archives/backup.zip
        + mkdir  Video/
        ~ move   film.en.srt -> Video/film.en.srt
        ~ move   film.mkv -> Video/film.mkv
        ~ move   film.srt -> Video/film.srt
        + mkdir  Documents/
        ~ move   scan -> Documents/scan
        ~ move   show.part1.rar -> Archives/show.part1.rar
        ~ move   show.part2.rar -> Archives/show.part2.rar
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
    assert_eq!(out["sniffed"], json!([{"path": "scan", "as": "pdf"}]));
    let together: Vec<(&str, &str)> = out["kept_together"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["path"].as_str().unwrap(), t["with"].as_str().unwrap()))
        .collect();
    assert_eq!(
        together,
        [
            ("IMG_0001.CR2.xmp", "IMG_0001.CR2"),
            ("album.cue", "album.flac"),
            ("backup.z01", "backup.zip"),
            ("film.en.srt", "film.mkv"),
            ("film.srt", "film.mkv"),
            ("show.part2.rar", "show.part1.rar"),
        ]
    );
}

#[test]
fn by_date_sorts_into_year_and_month_and_sidecars_follow_their_file() {
    let fx = open(&[
        ("a.jpg", "a"),
        ("a.xmp", "sidecar written later"),
        ("b.pdf", "b"),
        ("c.txt", "c"),
        ("2023/05/old.txt", "already sorted"),
    ]);
    touch(&fx, "a.jpg", 1_684_000_000); // 2023-05-13
    touch(&fx, "a.xmp", 1_710_000_000); // 2024-03-09, but it belongs to a.jpg
    touch(&fx, "b.pdf", 1_710_000_000); // 2024-03-09
    touch(&fx, "c.txt", 1_600_000_000); // 2020-09-13
    touch(&fx, "2023/05/old.txt", 1_684_000_000);
    // Re-open so the scan reads the times just set.
    let mut fx = open_dir(fx.dir);
    fx.run("organize_by_date", json!({"path": ".", "recursive": true}));
    expect![[r#"
        ~ move   a.jpg -> 2023/05/a.jpg
        ~ move   a.xmp -> 2023/05/a.xmp
        + mkdir  2024/
        + mkdir  2024/03/
        ~ move   b.pdf -> 2024/03/b.pdf
        + mkdir  2020/
        + mkdir  2020/09/
        ~ move   c.txt -> 2020/09/c.txt
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
}

#[test]
fn a_pattern_combines_type_and_date_and_a_bad_one_lists_every_problem() {
    let fx = open(&[("a.jpg", "a"), ("b.pdf", "b")]);
    touch(&fx, "a.jpg", 1_684_000_000);
    touch(&fx, "b.pdf", 1_710_000_000);
    let mut fx = open_dir(fx.dir);
    fx.run(
        "organize_by_type",
        json!({"path": ".", "target": "Sorted", "pattern": "{category}/{year}"}),
    );
    expect![[r#"
        + mkdir  Sorted/
        + mkdir  Sorted/Images/
        + mkdir  Sorted/Images/2023/
        ~ move   a.jpg -> Sorted/Images/2023/a.jpg
        + mkdir  Sorted/Documents/
        + mkdir  Sorted/Documents/2024/
        ~ move   b.pdf -> Sorted/Documents/2024/b.pdf
    "#]]
    .assert_eq(&fx.sandbox.render_diff());

    let e = fx.fail(
        "organize_by_date",
        json!({"path": ".", "pattern": "../{yr}/{month"}),
    );
    assert_eq!(e.code(), "INVALID_PARAM");
    let message = e.to_string();
    for problem in ["unknown placeholder `{yr}`", "without its `}`", "`..`"] {
        assert!(message.contains(problem), "{problem} in {message}");
    }
}

#[test]
fn the_configs_categories_come_first_and_the_sort_lands_on_disk() {
    let dir = tree(&[("a.jpg", "a"), ("b.svg", "<svg/>"), ("c.csv", "1,2")]);
    let state = tempfile::tempdir().unwrap();
    let config = SandboxConfig {
        protected_paths: vec!["**/.git".into()],
        delete_mode: DeleteMode::Permanent,
        on_conflict: ConflictPolicy::Fail,
        state_dir: state.path().to_owned(),
        categories: CategoryTable::new([
            ("Photos".to_owned(), vec!["jpg".to_owned()]),
            ("Design".to_owned(), vec![".SVG".to_owned()]),
        ]),
    };
    let mut sb = Sandbox::open(dir.path(), config, &ScanOptions::default()).unwrap();
    // A call's own categories come before the config's.
    let r = sb
        .call(
            "organize_by_type",
            json!({"path": ".", "categories": {"Sheets": ["csv"]}})
                .as_object()
                .unwrap(),
        )
        .unwrap();
    assert_eq!(
        r.data["by_category"],
        json!({"Design": 1, "Photos": 1, "Sheets": 1})
    );
    sb.stage(&r.snapshot_id).unwrap();
    sb.commit(None).unwrap();
    expect![[r#"
        Design/
        Design/b.svg (<svg/>)
        Photos/
        Photos/a.jpg (a)
        Sheets/
        Sheets/c.csv (1,2)
    "#]]
    .assert_eq(&disk_tree(dir.path()));
}

/// "sort the photos by date": only the chosen extensions move; a photo's sidecar follows it.
#[test]
fn only_the_chosen_extensions_are_sorted_and_their_sidecars_follow() {
    let fx = open(&[
        ("IMG_1.jpg", "jpeg"),
        ("IMG_1.xmp", "<xmp/>"),
        ("report.pdf", "pdf"),
    ]);
    for f in ["IMG_1.jpg", "IMG_1.xmp", "report.pdf"] {
        touch(&fx, f, 1_600_000_000); // 2020-09
    }
    let mut fx = open_dir(fx.dir);
    fx.run(
        "organize_by_date",
        json!({"path": ".", "extension": "jpg,png", "date": "modified"}),
    );
    expect![[r#"
        + mkdir  2020/
        + mkdir  2020/09/
        ~ move   IMG_1.jpg -> 2020/09/IMG_1.jpg
        ~ move   IMG_1.xmp -> 2020/09/IMG_1.xmp
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
}

/// move_into_folders (what a classify step decided): missing folders made, an existing one used,
/// a file already in place left alone; one bad entry stops the whole call with every problem.
#[test]
fn files_move_into_the_folders_a_list_gives_them_and_a_bad_list_moves_nothing() {
    let mut fx = open(&[
        ("Inbox/bill.pdf", "due"),
        ("Inbox/cake.md", "flour"),
        ("Inbox/recipe/old.md", "eggs"),
        ("Inbox/recipe/pie.md", "apples"),
    ]);
    let e = fx.fail(
        "move_into_folders",
        json!({"assignments": [
            {"path": "Inbox/bill.pdf", "folder": "../outside"},
            {"path": "Inbox/cake.md"},
        ]}),
    );
    assert_eq!(e.code(), "INVALID_PARAM");
    let message = e.to_string();
    assert!(
        message.contains("entry 0") && message.contains("entry 1"),
        "{message}"
    );
    assert_eq!(fx.sandbox.render_diff(), "");

    let out = fx.run(
        "move_into_folders",
        json!({"assignments": [
            {"path": "Inbox/bill.pdf", "folder": "Inbox/Invoices", "category": "Invoices"},
            {"path": "Inbox/cake.md", "folder": "Inbox/recipe", "category": "Recipes"},
            {"path": "Inbox/recipe/pie.md", "folder": "Inbox/recipe", "category": "Recipes"},
        ]}),
    );
    expect![[r#"
        + mkdir  Inbox/Invoices/
        ~ move   Inbox/bill.pdf -> Inbox/Invoices/bill.pdf
        ~ move   Inbox/cake.md -> Inbox/recipe/cake.md
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
    assert_eq!(out["by_category"], json!({"Invoices": 1, "Recipes": 1}));
    assert_eq!(out["folders"], json!(["Inbox/Invoices", "Inbox/recipe"]));
}

#[test]
fn rename_each_checks_every_entry_first_keeps_extensions_and_meets_taken_names() {
    let mut fx = open(&[
        ("Inbox/scan_1.pdf", "a"),
        ("Inbox/scan_2.pdf", "b"),
        ("Inbox/Invoice.pdf", "c"),
        ("Inbox/same.txt", "d"),
    ]);
    // One bad entry of three: nothing is renamed, and every problem is named.
    let e = fx.fail(
        "rename_each",
        json!({"names": [
            {"path": "Inbox/scan_1.pdf", "name": "Lease"},
            {"path": "Inbox/missing.pdf", "name": "x"},
            {"path": "Inbox/scan_2.pdf", "name": "a/b"},
        ]}),
    );
    assert_eq!(e.code(), "INVALID_PARAM");
    let message = e.to_string();
    assert!(
        message.contains("entry 1") && message.contains("entry 2"),
        "{message}"
    );
    assert!(fx.sandbox.changes().is_empty());

    let out = fx.run(
        "rename_each",
        json!({"names": [
            {"path": "Inbox/scan_1.pdf", "name": "Lease"},
            {"path": "Inbox/scan_2.pdf", "name": "Invoice"},
            {"path": "Inbox/same.txt", "name": "same"},
        ], "on_conflict": "rename"}),
    );
    assert_eq!(out["count"], 2, "{out}");
    assert_eq!(out["skipped"][0]["reason"], "name unchanged");
    let g = fx.sandbox.graph();
    assert!(g.contains("Inbox/Lease.pdf"));
    assert!(
        g.contains("Inbox/Invoice (2).pdf"),
        "the taken name is not overwritten"
    );
    assert!(g.contains("Inbox/Invoice.pdf"));
}
