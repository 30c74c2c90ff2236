//! `scope-weaver run` end to end: the seed's request on a real folder (duplicates to the trash,
//! files sorted), `--dry-run` leaving the disk alone, `--json` as one event per line, and the LLM
//! planner on a tiny generated model facing the whole pipeline.

use std::path::PathBuf;
use std::process::Output;
use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::{Env, files_below};

pub(crate) const SEED_REQUEST: &str = "Clean up my Downloads folder – remove duplicates, then organize the \
                            remaining files into subfolders by type";

/// A folder named Downloads (the request names it) with a duplicate pair and mixed types.
pub(crate) fn downloads() -> (Env, PathBuf) {
    let env = Env::new(&[
        ("Downloads/holiday.jpg", "jpeg bytes"),
        ("Downloads/holiday (1).jpg", "jpeg bytes"),
        ("Downloads/report.pdf", "pdf bytes"),
        ("Downloads/notes.txt", "meeting notes"),
        ("Downloads/song.mp3", "mp3 bytes"),
        ("Downloads/clip.mp4", "mp4 bytes"),
        ("Downloads/photos.zip", "zip bytes"),
    ]);
    let root = env.root.path().join("Downloads");
    // The copy is older: keep=newest keeps holiday.jpg.
    let old = SystemTime::now() - Duration::from_secs(30 * 86_400);
    std::fs::File::options()
        .write(true)
        .open(root.join("holiday (1).jpg"))
        .unwrap()
        .set_modified(old)
        .unwrap();
    (env, root)
}

/// Every stdout line is one JSON object; returns them.
pub(crate) fn events_of(out: &Output) -> Vec<Value> {
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| {
                panic!("not one JSON object per line ({e}): {l}\n{stdout}{}", {
                    String::from_utf8_lossy(&out.stderr)
                })
            })
        })
        .collect()
}

pub(crate) fn find<'a>(events: &'a [Value], kind: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["event"] == kind)
        .unwrap_or_else(|| panic!("no `{kind}` event in {events:?}"))
}

#[test]
fn the_seed_request_commits_with_duplicates_in_the_trash() {
    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    let out = env.run(&["--json", "run", "--root", root_arg, "--yes", SEED_REQUEST]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events_of(&out);
    // The validated plan is among the events.
    let plan = &find(&events, "planned")["plan"]["steps"];
    let tools: Vec<String> = plan
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            format!(
                "{}/{}",
                s["skill"].as_str().unwrap(),
                s["tool"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        tools,
        [
            "remove-duplicates/scan",
            "remove-duplicates/remove",
            "organize-by-type/organize"
        ]
    );
    // Stage events: 13 stages, each started and finished, in seed order.
    let started: Vec<&str> = events
        .iter()
        .filter(|e| e["event"] == "stage_started" && e["step"].is_null())
        .map(|e| e["stage"].as_str().unwrap())
        .collect();
    assert_eq!(started, ["input", "think", "validate_plan", "commit"]);
    let report = &find(&events, "done")["report"];
    assert_eq!(report["committed"], true, "{report}");
    assert_eq!(
        report["text"],
        "Removed 1 duplicate file (saved 10 B). Organized 6 files into 5 subfolders. Committed: \
         12 change(s) written, 1 item(s) moved to the trash. Nothing lost: 7 files accounted for, \
         1 to the trash; the disk matches the plan."
    );
    assert_eq!(
        files_below(&root),
        [
            "Archives/photos.zip",
            "Audio/song.mp3",
            "Documents/notes.txt",
            "Documents/report.pdf",
            "Images/holiday.jpg",
            "Video/clip.mp4",
        ]
    );
    let trashed = env.data_home().join("Trash/files/holiday (1).jpg");
    assert_eq!(std::fs::read_to_string(trashed).unwrap(), "jpeg bytes");

    // The run left a complete, verifiable trail.
    let runs = env.json(&["audit", "list"]);
    let id = runs[0]["run_id"].as_str().unwrap().to_owned();
    assert_eq!(runs[0]["committed"], true, "{runs}");
    assert_eq!(runs[0]["steps"], 3);
    let shown = env.json(&["audit", "show", &id]);
    let task = &shown["task"];
    assert_eq!(task["status"], "done");
    assert_eq!(task["sub_tasks"].as_array().unwrap().len(), 3);
    assert_eq!(
        task["sub_tasks"][1]["cap_tasks"][0]["cap_name"],
        "remove-duplicates/remove"
    );
    assert_eq!(task["sub_tasks"][1]["cap_tasks"][0]["status"], "Processed");
    let text = String::from_utf8_lossy(&env.run(&["audit", "show", &id]).stdout).into_owned();
    assert!(
        text.contains("rollback") || text.contains("call     step 2 remove-duplicates/remove"),
        "{text}"
    );
    let verify = env.run(&["audit", "verify"]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let stats = env.json(&["audit", "stats"]);
    assert_eq!(stats["runs"], 1);
    assert_eq!(stats["steps_matched"], 3);
}

#[test]
fn dry_run_shows_the_diff_and_changes_nothing() {
    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    let before = files_below(&root);
    let out = env.run(&["run", "--root", root_arg, "--dry-run", SEED_REQUEST]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("- delete holiday (1).jpg"), "{stderr}");
    assert!(
        stderr.contains("~ move   report.pdf -> Documents/report.pdf"),
        "{stderr}"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("Removed 1 duplicate file"), "{stdout}");
    assert_eq!(files_below(&root), before);
    assert!(!env.data_home().join("Trash").exists());
}

#[test]
fn without_a_request_each_line_of_stdin_runs_with_the_planner_loaded_once() {
    use std::io::Write;
    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    let before = files_below(&root);
    let mut child = env
        .cmd(&["--json", "run", "--root", root_arg, "--yes"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Blank lines are skipped; the second request sees the first one's changes on disk.
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"remove duplicates in Downloads\n\nsort Downloads by type\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events_of(&out);
    let reports: Vec<&Value> = events
        .iter()
        .filter(|e| e["event"] == "done")
        .map(|e| &e["report"])
        .collect();
    assert_eq!(reports.len(), 2, "{events:?}");
    assert_eq!(reports[0]["request"], "remove duplicates in Downloads");
    assert_eq!(reports[1]["request"], "sort Downloads by type");
    assert_ne!(reports[0]["id"], reports[1]["id"]);
    assert!(
        reports.iter().all(|r| r["committed"] == true),
        "{reports:?}"
    );
    let after = files_below(&root);
    assert_ne!(after, before);
    assert!(
        after.iter().any(|p| p.starts_with("Documents/")),
        "{after:?}"
    );
    assert!(!after.contains(&"holiday (1).jpg".to_owned()), "{after:?}");
}

#[test]
fn the_llm_planner_runs_the_pipeline_on_a_tiny_model() {
    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    let model = env.home.path().join("models/tiny-llama");
    tiny_models::write_llama(&model).unwrap();
    let before = files_below(&root);
    let run = |rules_first: &str| {
        env.cmd(&[
            "--json",
            "run",
            "--root",
            root_arg,
            "--dry-run",
            "zip the reports",
        ])
        .env("SCOPE_WEAVER_THINKER_BACKEND", "mistralrs")
        .env("SCOPE_WEAVER_THINKER_MODEL_PATH", &model)
        .env("SCOPE_WEAVER_THINKER_RULES_FIRST", rules_first)
        .env("SCOPE_WEAVER_TOP_K", "2")
        .env("SCOPE_WEAVER_MAX_PLAN_STEPS", "2")
        .env("SCOPE_WEAVER_MAX_CONTEXT_TOKENS", "16384")
        .env("HF_HOME", env.home.path().join("hf"))
        .output()
        .unwrap()
    };
    // By default the rule planner, sure of this plain request, plans it and the model is not
    // asked (no tokens).
    let events = events_of(&run("true"));
    let planned = find(&events, "planned");
    assert_eq!(planned["planner"], "rule (sure)", "{planned}");
    assert_eq!(planned["usage"]["completion_tokens"], 0);
    assert!(!events.iter().any(|e| e["event"] == "token"));
    // With the model asked for every request.
    let events = events_of(&run("false"));
    let planned = find(&events, "planned");
    assert_eq!(planned["planner"], "mistralrs:tiny-llama", "{planned}");
    assert!(planned["usage"]["completion_tokens"].as_u64().unwrap() > 0);
    // The model's text streamed out as token events before the plan.
    let streamed: String = events
        .iter()
        .filter(|e| e["event"] == "token")
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    assert!(streamed.starts_with("{\"steps\":["), "{streamed}");
    // Random weights plan nonsense paths: each step fails or is skipped with a code; the run
    // still ends with a report, and nothing on disk changed.
    let report = &find(&events, "done")["report"];
    for step in report["steps"].as_array().unwrap() {
        if step["status"] != "done" {
            assert!(step["error"]["code"].is_string(), "{step}");
        }
    }
    assert_eq!(report["committed"], false);
    assert_eq!(files_below(&root), before);

    // A model path that does not exist: a coded error, before any request runs.
    let out = env
        .cmd(&["--json", "run", "--root", root_arg, "zip the reports"])
        .env("SCOPE_WEAVER_THINKER_BACKEND", "mistralrs")
        .env(
            "SCOPE_WEAVER_THINKER_MODEL_PATH",
            model.with_file_name("absent"),
        )
        .output()
        .unwrap();
    assert!(!out.status.success());
    let events = events_of(&out);
    assert_eq!(events.last().unwrap()["error"]["code"], "MODEL_NOT_FOUND");
}

#[test]
fn the_audit_log_can_live_in_postgresql() {
    let Ok(url) = std::env::var("SCOPE_WEAVER_TEST_POSTGRES") else {
        assert!(
            std::env::var_os("SCOPE_WEAVER_TEST_REQUIRE_POSTGRES").is_none(),
            "SCOPE_WEAVER_TEST_POSTGRES is not set (run scripts/test.sh)"
        );
        eprintln!("skipped: no PostgreSQL (SCOPE_WEAVER_TEST_POSTGRES is not set)");
        return;
    };
    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    let out = env
        .cmd(&[
            "--json",
            "run",
            "--root",
            root_arg,
            "--dry-run",
            SEED_REQUEST,
        ])
        .env("SCOPE_WEAVER_AUDIT_DB", &url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let events = events_of(&out);
    let id = find(&events, "done")["report"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let audit = |args: &[&str]| {
        let mut all = vec!["--json", "audit"];
        all.extend_from_slice(args);
        let out = env
            .cmd(&all)
            .env("SCOPE_WEAVER_AUDIT_DB", &url)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice::<Value>(&out.stdout).unwrap()
    };
    let shown = audit(&["show", &id]);
    assert_eq!(shown["task"]["status"], "done");
    assert_eq!(shown["task"]["sub_tasks"].as_array().unwrap().len(), 3);
    let verified = audit(&["verify"]);
    assert_eq!(verified["broken"], Value::Null, "{verified}");
    // Nothing of it went to a local SQLite file.
    assert!(!env.state().join("audit.sqlite").exists());
}

/// A small tmpfs, unmounted on drop (needs root; `None` where mounting is not allowed).
struct SmallDisk(PathBuf);

impl SmallDisk {
    fn mount(at: PathBuf, size: &str) -> Option<SmallDisk> {
        std::fs::create_dir_all(&at).unwrap();
        let ok = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&at)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        ok.then_some(SmallDisk(at))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_under_the_audit_log_stops_the_run_before_the_commit() {
    let (env, root) = downloads();
    let root_arg = root.to_str().unwrap();
    let Some(disk) = SmallDisk::mount(env.home.path().join("small"), "8m") else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    };
    let db = disk.0.join("audit.sqlite");
    let with_db = |args: &[&str]| {
        env.cmd(args)
            .env("SCOPE_WEAVER_AUDIT_DB", &db)
            .output()
            .unwrap()
    };
    // A first run creates the log; then the disk fills up.
    let first = with_db(&["run", "--root", root_arg, "--dry-run", SEED_REQUEST]);
    assert!(
        first.status.success(),
        "{}",
        String::from_utf8_lossy(&first.stderr)
    );
    let mut filler = std::fs::File::create(disk.0.join("filler")).unwrap();
    let block = vec![0u8; 4096];
    while std::io::Write::write_all(&mut filler, &block).is_ok() {}
    drop(filler);
    let before = files_below(&root);
    let out = with_db(&["--json", "run", "--root", root_arg, "--yes", SEED_REQUEST]);
    assert!(!out.status.success());
    let last: Value = String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .map(|l| serde_json::from_str(l).unwrap())
        .unwrap();
    assert_eq!(last["error"]["code"], "AUDIT_DISK_FULL", "{last}");
    assert_eq!(
        files_below(&root),
        before,
        "nothing may reach the disk unaudited"
    );
    // Room again: the log verifies, with every record it acknowledged.
    std::fs::remove_file(disk.0.join("filler")).unwrap();
    let verify = with_db(&["audit", "verify"]);
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
}

#[test]
fn skill_create_with_the_llm_planner_drafts_tools_that_load() {
    let env = Env::new(&[("notes.txt", "x")]);
    let skills = env.home.path().join("skills");
    super::copy_tree(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
        &skills,
    );
    let model = env.home.path().join("models/tiny-llama");
    tiny_models::write_llama(&model).unwrap();
    let llm = |args: &[&str]| {
        let out = env
            .cmd(args)
            .env("SCOPE_WEAVER_SKILLS_DIR", &skills)
            .env("SCOPE_WEAVER_THINKER_BACKEND", "mistralrs")
            .env("SCOPE_WEAVER_THINKER_MODEL_PATH", &model)
            .env("SCOPE_WEAVER_MAX_CONTEXT_TOKENS", "16384")
            .output()
            .unwrap();
        let body: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{e}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.success(), body)
    };
    let root = env.root();
    let args = |commit: bool| {
        let mut a = vec![
            "--json",
            "tool",
            "skill-create",
            "create",
            "--root",
            root,
            "name=sort-shots",
            "description=Sort screenshots into folders by month",
        ];
        if commit {
            a.push("--commit");
        }
        a
    };
    // Preview: the drafted declarations, nothing written.
    let (ok, preview) = llm(&args(false));
    assert!(ok, "{preview}");
    assert!(preview["committed"].is_null(), "{preview}");
    let declarations = preview["result"]["drafted"]["declarations"]
        .as_array()
        .unwrap();
    assert!(!declarations.is_empty(), "{preview}");
    assert!(
        declarations[0].as_str().unwrap().starts_with("### "),
        "{preview}"
    );
    assert!(!skills.join("sort-shots").exists());
    // Commit: the folder is written with drafted tools, and it validates.
    let (ok, created) = llm(&args(true));
    assert!(ok, "{created}");
    let text = std::fs::read_to_string(skills.join("sort-shots/SKILL.md")).unwrap();
    for t in created["result"]["drafted"]["tools"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        assert!(text.contains(&format!("### {name} -- ")), "{name}\n{text}");
    }
    assert!(!text.contains("### example_list"), "{text}");
    let out = env
        .cmd(&["skills", "validate"])
        .env("SCOPE_WEAVER_SKILLS_DIR", &skills)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// "delete the 2 largest files in Videos" deletes the two largest, not the first two found
/// (issue 19: the count was a cap on an unsorted find).
#[test]
fn the_largest_files_are_the_ones_changed() {
    let env = Env::new(&[
        ("Videos/a-small.mp4", &"a".repeat(100)),
        ("Videos/b-huge.mp4", &"b".repeat(5_000)),
        ("Videos/c-tiny.mp4", &"c".repeat(10)),
        ("Videos/d-big.mp4", &"d".repeat(3_000)),
        ("Videos/e-mid.mp4", &"e".repeat(1_000)),
    ]);
    let before = files_below(env.root.path());
    let out = env.run(&[
        "run",
        "--root",
        env.root.path().to_str().unwrap(),
        "--dry-run",
        "-y",
        "delete the 2 largest files in Videos",
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("- delete Videos/b-huge.mp4"), "{stderr}");
    assert!(stderr.contains("- delete Videos/d-big.mp4"), "{stderr}");
    assert!(!stderr.contains("a-small"), "{stderr}");
    assert!(!stderr.contains("c-tiny"), "{stderr}");
    assert_eq!(files_below(env.root.path()), before);
}
