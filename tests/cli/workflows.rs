//! Saved workflows end to end on a real folder and a real audit log: the same request committed
//! in three folders is suggested as a workflow, saved from its run, found first for "tidy Music"
//! (top five with scores), run there from its trigger with its postconditions checked on the
//! disk; a trigger naming no folder here is planned as usual; a failing precondition stops a run
//! before anything is simulated.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::{Env, copy_tree};
use crate::run::{events_of, find};

const FOLDERS: [&str; 4] = ["Downloads", "Desktop", "Inbox", "Music"];

/// A home whose folders each hold a photo twice (under two names), a PDF and a song.
fn home() -> Env {
    let mut files: Vec<(String, String)> = Vec::new();
    for f in FOLDERS {
        files.push((format!("{f}/photo.jpg"), format!("{f} photo bytes")));
        files.push((format!("{f}/photo copy.jpg"), format!("{f} photo bytes")));
        files.push((format!("{f}/report.pdf"), format!("{f} report")));
        files.push((format!("{f}/song.mp3"), format!("{f} song")));
    }
    let spec: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    Env::new(&spec)
}

struct World {
    env: Env,
    skills: PathBuf,
}

impl World {
    fn new() -> World {
        let env = home();
        let skills = env.home.path().join("skills");
        copy_tree(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
            &skills,
        );
        World { env, skills }
    }

    fn run(&self, args: &[&str]) -> Output {
        self.env
            .cmd(args)
            .env("SCOPE_WEAVER_SKILLS_DIR", &self.skills)
            .output()
            .unwrap()
    }

    fn json(&self, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        let out = self.run(&all);
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    /// Runs `request` in the home folder, approved; the run's events.
    fn commit(&self, request: &str) -> Vec<Value> {
        let out = self.run(&["--json", "run", "--root", self.env.root(), "--yes", request]);
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        events_of(&out)
    }

    fn top_level_files(&self, folder: &str) -> Vec<String> {
        let mut out: Vec<String> = std::fs::read_dir(self.env.root.path().join(folder))
            .unwrap()
            .map(|e| e.unwrap())
            .filter(|e| e.file_type().unwrap().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        out.sort();
        out
    }
}

#[test]
fn a_request_committed_three_times_becomes_a_workflow_that_runs_from_its_trigger() {
    let w = World::new();
    let mut last_run = String::new();
    for folder in &FOLDERS[..3] {
        let events = w.commit(&format!(
            "remove duplicates in {folder}, then sort the rest by type"
        ));
        let report = &find(&events, "done")["report"];
        assert_eq!(report["committed"], true, "{report}");
        last_run = report["id"].as_str().unwrap().to_owned();
        assert!(
            w.top_level_files(folder).is_empty(),
            "{folder}: {:?}",
            w.top_level_files(folder)
        );
    }

    // Mined from the audit log: one sequence, three runs, newest first.
    let suggested = w.json(&["workflows", "suggest"]);
    let suggestions = suggested["suggestions"].as_array().unwrap();
    assert_eq!(suggestions.len(), 1, "{suggested}");
    let s = &suggestions[0];
    assert_eq!(s["runs"].as_array().unwrap().len(), 3);
    assert_eq!(s["runs"][0], last_run.as_str());
    assert_eq!(
        s["folders"],
        serde_json::json!(["Inbox", "Desktop", "Downloads"])
    );
    let signature: Vec<&str> = s["signature"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        signature.starts_with(&["remove-duplicates/scan", "remove-duplicates/remove"]),
        "{signature:?}"
    );
    assert_eq!(signature.last(), Some(&"organize-by-type/organize"));

    // Saved from the newest run (by a prefix of its id): a SKILL.md that loads.
    let saved = w.json(&["workflows", "save", &last_run[..8], "tidy"]);
    assert_eq!(saved["ok"], true, "{saved}");
    let saved = &saved["saved"];
    assert_eq!(saved["folder"], "Inbox");
    assert_eq!(saved["triggers"][0], "tidy {path}");
    assert_eq!(
        saved["postconditions"],
        serde_json::json!(["no_duplicates on {path}", "no_loose_files on {path}"])
    );
    assert!(w.skills.join("tidy/SKILL.md").is_file());
    let validate = w.run(&["skills", "validate"]);
    assert!(
        validate.status.success(),
        "{}",
        String::from_utf8_lossy(&validate.stdout)
    );
    // Covered now: not suggested again. The same name twice is refused.
    assert_eq!(
        w.json(&["workflows", "suggest"])["suggestions"],
        serde_json::json!([])
    );
    let again = w.json(&["workflows", "save", &last_run, "tidy"]);
    assert_eq!(again["error"]["code"], "SKILL_EXISTS", "{again}");

    // The top five for "tidy Music": the workflow first (it would run, on Music), then skills.
    let matched = w.json(&["workflows", "match", "tidy Music", "--root", w.env.root()]);
    let rows = matched["matches"].as_array().unwrap();
    assert!(rows.len() <= 5 && rows.len() >= 2, "{matched}");
    assert_eq!(rows[0]["kind"], "workflow");
    assert_eq!(rows[0]["name"], "tidy");
    assert_eq!(rows[0]["runs"], true);
    assert_eq!(rows[0]["slots"]["path"], "Music");
    assert!(rows[1..].iter().all(|r| r["kind"] == "skill"), "{matched}");

    // A dry run first: the postconditions are judged on the simulated folder; nothing moves.
    let dry = w.run(&[
        "--json",
        "run",
        "--root",
        w.env.root(),
        "--dry-run",
        "tidy Music",
    ]);
    let dry_events = events_of(&dry);
    let simulated = &find(&dry_events, "done")["report"];
    assert_eq!(simulated["committed"], false);
    assert_eq!(
        simulated["conditions"].as_array().unwrap().len(),
        2,
        "{simulated}"
    );
    assert!(
        simulated["text"]
            .as_str()
            .unwrap()
            .contains("2 of 2 postcondition(s) would hold after the commit"),
        "{simulated}"
    );
    assert_eq!(w.top_level_files("Music").len(), 4);

    // Run from its trigger: the workflow's steps on Music, its postconditions on the disk.
    let events = w.commit("tidy my Music folder");
    let planned = find(&events, "planned");
    assert_eq!(
        planned["plan"]["steps"][0]["params"]["path"], "Music",
        "{planned}"
    );
    assert!(
        planned["notes"][0]
            .as_str()
            .unwrap()
            .contains("the saved workflow `tidy`"),
        "{planned}"
    );
    let before = find(&events, "conditions");
    assert_eq!(before["when"], "before");
    assert_eq!(before["outcomes"][0]["holds"], true);
    let report = &find(&events, "done")["report"];
    assert_eq!(report["committed"], true, "{report}");
    assert_eq!(report["workflow"], "tidy");
    let conditions = report["conditions"].as_array().unwrap();
    assert_eq!(conditions.len(), 2, "{report}");
    assert!(conditions.iter().all(|c| c["holds"] == true), "{report}");
    assert!(
        report["text"]
            .as_str()
            .unwrap()
            .contains("2 of 2 postcondition(s) hold"),
        "{report}"
    );
    assert!(w.top_level_files("Music").is_empty());
    assert!(
        w.env
            .data_home()
            .join("Trash/files")
            .read_dir()
            .unwrap()
            .count()
            >= 4
    );

    // A trigger whose folder is not here is not the workflow: planned as usual, and said why.
    let plan = w.json(&["plan", "--root", w.env.root(), "tidy Nowhere"]);
    let notes = plan["notes"].to_string();
    assert!(
        notes.contains("not the saved workflow `tidy`: no folder named \\\"Nowhere\\\" here"),
        "{plan}"
    );
}

#[test]
fn a_failing_precondition_stops_the_run_before_anything_is_simulated() {
    let w = World::new();
    std::fs::create_dir_all(w.skills.join("hoard")).unwrap();
    std::fs::write(
        w.skills.join("hoard/SKILL.md"),
        r#"---
name: hoard
description: Sort a folder by type, if the disk has a lot of room.
triggers: ["hoard {path}"]
parameters: [{name: path, type: path}]
steps:
  - {skill: organize-by-type, tool: organize, params: {path: "{path}"}}
preconditions:
  - {check: exists, path: "{path}"}
  - {check: free_space, path: "{path}", value: 900000 TB, message: Hoarding needs room}
---
"#,
    )
    .unwrap();
    let before = w.top_level_files("Music");
    let out = w.run(&[
        "--json",
        "run",
        "--root",
        w.env.root(),
        "--yes",
        "hoard Music",
    ]);
    assert!(!out.status.success());
    let events = events_of(&out);
    let checked = find(&events, "conditions");
    assert_eq!(checked["outcomes"][0]["holds"], true, "{checked}");
    assert_eq!(checked["outcomes"][1]["holds"], false, "{checked}");
    assert_eq!(checked["outcomes"][1]["message"], "Hoarding needs room");
    let failed = events
        .iter()
        .find(|e| e["ok"] == false || e["event"] == "failed")
        .unwrap();
    assert!(
        failed.to_string().contains("PRECONDITION_FAILED"),
        "{failed}"
    );
    assert!(
        events.iter().all(|e| e["event"] != "dispatched"),
        "nothing ran"
    );
    assert_eq!(w.top_level_files("Music"), before);
}
