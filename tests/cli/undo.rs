//! `scope-weaver undo` and `history` end to end: the seed run undone to the exact tree (the
//! duplicate back from a real freedesktop trash), after a restart, with a file edited since, the
//! undo undone, and an undo killed half way finished by `recover`.

use std::path::Path;
use std::process::Stdio;

use serde_json::Value;

use super::{Env, kill_after_journal_lines, mixed_files};
use crate::run::{SEED_REQUEST, downloads, events_of, find};

/// Every entry below `root` with its bytes (folders as `name/`), sorted: the exact tree.
fn exact_tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    fn walk(root: &Path, dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(root).unwrap().to_string_lossy().into_owned();
            if p.is_dir() {
                out.push((format!("{rel}/"), Vec::new()));
                walk(root, &p, out);
            } else {
                out.push((rel, std::fs::read(&p).unwrap()));
            }
        }
    }
    walk(root, root, &mut out);
    out.sort();
    out
}

pub(crate) fn done_report(out: &std::process::Output) -> Value {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    find(&events_of(out), "done")["report"].clone()
}

#[test]
fn the_seed_run_is_undone_to_the_exact_tree_and_the_undo_can_be_undone() {
    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    let before = exact_tree(&root);
    let run = done_report(&env.run(&["--json", "run", "--root", root_arg, "--yes", SEED_REQUEST]));
    assert_eq!(run["committed"], true);
    let run_id = run["id"].as_str().unwrap().to_owned();
    let after_run = exact_tree(&root);
    let trashed = env.data_home().join("Trash/files/holiday (1).jpg");
    assert!(trashed.exists());

    // Every command is a new process: the history is what survives a restart.
    let history = env.json(&["history"]);
    assert_eq!(history["runs"][0]["id"], run_id.as_str(), "{history}");
    assert_eq!(history["runs"][0]["request"], SEED_REQUEST);
    assert_eq!(history["runs"][0]["undone_by"], Value::Null);

    // A dry run shows the undo and writes nothing.
    let dry = done_report(&env.run(&["--json", "undo", "--dry-run"]));
    assert_eq!(dry["committed"], false);
    assert!(dry["plan"]["changes"].as_u64().unwrap() > 0, "{dry}");
    assert_eq!(exact_tree(&root), after_run);

    let out = env.run(&["--json", "undo", "--yes"]);
    let events = events_of(&out);
    let planned = find(&events, "undo_planned");
    assert_eq!(planned["undoes"], run_id.as_str());
    assert_eq!(planned["kept"], Value::Array(vec![]));
    assert_eq!(planned["not_restorable"], Value::Array(vec![]));
    let undo = done_report(&out);
    assert_eq!(undo["committed"], true, "{undo}");
    assert_eq!(
        exact_tree(&root),
        before,
        "every path and every byte is back"
    );
    assert!(
        !trashed.exists(),
        "the duplicate came back out of the trash"
    );
    let undo_id = undo["id"].as_str().unwrap().to_owned();

    // Nothing left to undo; the run cannot be undone twice.
    let none = env.json(&["undo", "--yes"]);
    assert_eq!(none["error"]["code"], "NOTHING_TO_UNDO", "{none}");
    let twice = env.json(&["undo", &run_id, "--yes"]);
    assert_eq!(twice["error"]["code"], "RUN_ALREADY_UNDONE", "{twice}");
    let history = env.json(&["history"]);
    assert_eq!(history["runs"][0]["undoes"], run_id.as_str());
    assert_eq!(history["runs"][1]["undone_by"], undo_id.as_str());

    // Undoing the undo makes the run's changes again, the duplicate back to the trash.
    let redo = done_report(&env.run(&["--json", "undo", &undo_id, "--yes"]));
    assert_eq!(redo["committed"], true, "{redo}");
    assert_eq!(exact_tree(&root), after_run);
    assert!(trashed.exists());

    // The undos are in the audit log, and the chain holds.
    let runs = env.json(&["audit", "list"]);
    let requests: Vec<&str> = runs
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["request"].as_str())
        .collect();
    assert!(
        requests
            .iter()
            .any(|r| r.starts_with(&format!("undo {run_id}"))),
        "{runs}"
    );
    let verify = env.run(&["audit", "verify"]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stdout)
    );
}

#[test]
fn a_file_edited_since_the_run_is_named_and_kept_and_the_rest_undone() {
    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    done_report(&env.run(&["--json", "run", "--root", root_arg, "--yes", SEED_REQUEST]));
    std::fs::write(root.join("Documents/notes.txt"), "meeting notes, edited").unwrap();

    let out = env.run(&["--json", "undo", "--yes"]);
    let events = events_of(&out);
    let kept = &find(&events, "undo_planned")["kept"];
    assert_eq!(kept[0]["path"], "Documents/notes.txt", "{kept}");
    assert_eq!(kept[0]["reason"], "changed since the run");
    assert_eq!(done_report(&out)["committed"], true);
    let tree: Vec<String> = exact_tree(&root).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        tree,
        [
            "Documents/",
            "Documents/notes.txt",
            "clip.mp4",
            "holiday (1).jpg",
            "holiday.jpg",
            "photos.zip",
            "report.pdf",
            "song.mp3"
        ]
    );
    assert_eq!(
        std::fs::read_to_string(root.join("Documents/notes.txt")).unwrap(),
        "meeting notes, edited"
    );
}

#[test]
fn an_undo_killed_half_way_is_finished_by_recover_and_recorded() {
    let env = mixed_files(80);
    let before = exact_tree(env.root.path());
    let sorted = env.json(&[
        "tool",
        "organize-by-type",
        "organize",
        "--root",
        env.root(),
        "path=.",
        "--commit",
    ]);
    assert!(sorted["committed"]["run_id"].is_string(), "{sorted}");
    let after_run = exact_tree(env.root.path());

    let child = env
        .cmd(&["undo", "--yes"])
        .env("SCOPE_WEAVER_DEBUG_COMMIT_DELAY_MS", "25")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    kill_after_journal_lines(&env, child, 10);
    let half = exact_tree(env.root.path());
    assert_ne!(half, before);
    assert_ne!(half, after_run);

    let done = env.json(&["recover", env.root(), "--complete"]);
    assert_eq!(done["report"]["finished"], true, "{done}");
    assert_eq!(exact_tree(env.root.path()), before);
    // Recovery wrote the undo's record: it shows as the undo of the run, and can be undone.
    let history = env.json(&["history"]);
    let undo_id = history["runs"][0]["id"].as_str().unwrap().to_owned();
    assert!(history["runs"][0]["undoes"].is_string(), "{history}");
    let redo = done_report(&env.run(&["--json", "undo", &undo_id, "--yes"]));
    assert_eq!(redo["committed"], true);
    assert_eq!(exact_tree(env.root.path()), after_run);
}

/// `learned` lists what planning learned from the person's picks (nothing before any run, and no
/// audit log is created to say so); forgetting an unknown choice is a clear error.
#[test]
fn learned_choices_are_listed_and_an_unknown_one_cannot_be_forgotten() {
    let env = Env::new(&[]);
    let listed = env.json(&["learned"]);
    assert_eq!(listed["learned"], serde_json::json!([]), "{listed}");
    let out = env.run(&["learned"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("Nothing learned yet"));
    let out = env.run(&["learned", "--forget", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No learned choice nope"));
}
