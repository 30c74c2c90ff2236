//! End-to-end tests of the `scope-weaver` binary on real temp folders: commit, trash, crash recovery.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

mod by_meaning;
mod every_tool;
mod logs;
mod offline;
mod permissions;
mod plan_quality;
mod run;
mod similar;
mod tasks;
mod undo;
mod watch;
mod workflows;

struct Env {
    home: tempfile::TempDir,
    root: tempfile::TempDir,
}

impl Env {
    fn new(files: &[(&str, &str)]) -> Env {
        let root = tempfile::tempdir().unwrap();
        for (p, c) in files {
            let path = root.path().join(p);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, c).unwrap();
        }
        Env {
            home: tempfile::tempdir().unwrap(),
            root,
        }
    }

    fn data_home(&self) -> PathBuf {
        self.home.path().join("data")
    }

    fn state(&self) -> PathBuf {
        self.home.path().join("state")
    }

    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_scope-weaver"));
        c.args(args)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.home.path())
            .env("XDG_DATA_HOME", self.data_home())
            .env("XDG_CONFIG_HOME", self.home.path().join("config"))
            .env("SCOPE_WEAVER_STATE_DIR", self.state())
            .env(
                "SCOPE_WEAVER_SKILLS_DIR",
                Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
            );
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd(args).output().unwrap()
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

    fn root(&self) -> &str {
        self.root.path().to_str().unwrap()
    }
}

/// The names of the entries directly in `dir`, sorted.
fn sorted_names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// A folder of `n` files of four types at its top (something to sort, slowly).
fn mixed_files(n: usize) -> Env {
    let files: Vec<(String, String)> = (0..n)
        .map(|i| {
            let ext = ["jpg", "pdf", "mp3", "csv"][i % 4];
            (format!("file{i:03}.{ext}"), format!("content {i}"))
        })
        .collect();
    let spec: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    Env::new(&spec)
}

/// Waits until the running commit's journal marks `n` changes done, then kills it (-9); returns
/// how many were marked done by then.
fn kill_after_journal_lines(env: &Env, mut child: std::process::Child, n: usize) -> usize {
    let journals = env.state().join("journals");
    let start = Instant::now();
    let done_lines = loop {
        let done = std::fs::read_dir(&journals)
            .ok()
            .and_then(|mut rd| rd.next())
            .and_then(|e| std::fs::read_to_string(e.unwrap().path()).ok())
            .map_or(0, |t| {
                t.lines().filter(|l| l.starts_with("{\"done\"")).count()
            });
        if done >= n {
            break done;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the commit never started"
        );
        assert!(
            child.try_wait().unwrap().is_none(),
            "the commit finished before it could be interrupted"
        );
        std::thread::sleep(Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    done_lines
}

/// Copies a folder tree (the shipped skills into a folder a test may write).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

fn files_below(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            }
        }
    }
    walk(root, root, &mut out);
    out.sort();
    out
}

#[test]
fn delete_goes_to_the_trash_by_default_and_permanent_when_configured() {
    let env = Env::new(&[("old.log", "log"), ("keep.txt", "k"), ("gone.tmp", "tmp")]);
    let out = env.json(&[
        "tool",
        "manage-files",
        "delete",
        "--root",
        env.root(),
        "path=old.log",
        "--commit",
    ]);
    assert_eq!(out["committed"]["trashed"], 1, "{out}");
    assert!(!env.root.path().join("old.log").exists());
    let trashed = env.data_home().join("Trash/files/old.log");
    assert_eq!(
        std::fs::read_to_string(&trashed).unwrap(),
        "log",
        "old.log is in the trash"
    );
    assert!(
        env.data_home()
            .join("Trash/info/old.log.trashinfo")
            .exists()
    );

    let out = env
        .cmd(&[
            "--json",
            "tool",
            "manage-files",
            "delete",
            "--root",
            env.root(),
            "path=gone.tmp",
            "--commit",
        ])
        .env("SCOPE_WEAVER_DELETE_MODE", "permanent")
        .output()
        .unwrap();
    let out: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(out["committed"]["deleted"], 1);
    assert_eq!(out["committed"]["trashed"], 0);
    assert!(!env.root.path().join("gone.tmp").exists());
    assert!(!env.data_home().join("Trash/files/gone.tmp").exists());
    assert_eq!(files_below(env.root.path()), ["keep.txt"]);
}

#[test]
fn a_commit_killed_half_way_is_reported_and_completed_on_the_next_start() {
    let env = mixed_files(120);
    let original = files_below(env.root.path());
    let child = env
        .cmd(&[
            "tool",
            "organize-by-type",
            "organize",
            "--root",
            env.root(),
            "path=.",
            "--commit",
        ])
        .env("SCOPE_WEAVER_DEBUG_COMMIT_DELAY_MS", "25")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait until the journal shows some, but not all, changes applied; then kill -9.
    let done_lines = kill_after_journal_lines(&env, child, 10);
    assert!(done_lines < 124);

    // Nothing is lost: every file is either still at the top or already sorted.
    let after_crash = files_below(env.root.path());
    assert_eq!(after_crash.len(), 120);
    assert!(
        after_crash.iter().any(|f| !f.contains('/')),
        "some files not moved yet"
    );

    // The next start warns about it; a new commit is refused until it is resolved.
    let scan = env.run(&["scan", env.root()]);
    assert!(String::from_utf8_lossy(&scan.stderr).contains("interrupted commit is pending"));
    let refused = env.json(&[
        "tool",
        "manage-files",
        "create",
        "--root",
        env.root(),
        "path=.",
        "name=x",
        "type=dir",
        "--commit",
    ]);
    assert_eq!(refused["error"]["code"], "PENDING_JOURNAL", "{refused}");

    // Report, then complete.
    let report = env.json(&["recover", env.root()]);
    assert_eq!(report["pending"], true);
    assert!(!report["report"]["pending"].as_array().unwrap().is_empty());
    let done = env.json(&["recover", env.root(), "--complete"]);
    assert_eq!(done["report"]["finished"], true, "{done}");
    let sorted = files_below(env.root.path());
    assert_eq!(sorted.len(), 120);
    assert!(
        sorted.iter().all(|f| f.contains('/')),
        "every file sorted: {sorted:?}"
    );
    assert!(sorted.contains(&"Images/file000.jpg".to_owned()));
    assert_eq!(env.json(&["recover", env.root()])["pending"], false);

    // The finished commit is a committed run like any other: undo puts every file back.
    let undo = env.run(&["--json", "undo", "--yes"]);
    assert!(
        undo.status.success(),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    assert_eq!(files_below(env.root.path()), original);
}

#[test]
fn json_output_and_errors_carry_codes() {
    let env = Env::new(&[("a.txt", "a"), ("b/c.pdf", "c")]);
    let scan = env.json(&["scan", env.root()]);
    assert_eq!(scan["analysis"]["file_count"], 2);
    assert_eq!(scan["nodes"], 4);

    let escape = env.json(&[
        "tool",
        "manage-files",
        "move",
        "--root",
        env.root(),
        "source=a.txt",
        "target=../../etc",
    ]);
    assert_eq!(escape["ok"], false);
    assert_eq!(escape["error"]["code"], "SCOPE_VIOLATION");

    let missing = env.json(&[
        "tool",
        "manage-files",
        "move",
        "--root",
        env.root(),
        "source=a.txt",
    ]);
    assert_eq!(missing["error"]["code"], "INVALID_PARAMS");
    let unknown = env.json(&["tool", "manage-files", "teleport", "--root", env.root()]);
    assert_eq!(unknown["error"]["code"], "UNKNOWN_TOOL");

    // Simulated by default: the disk is untouched without --commit.
    let sim = env.json(&[
        "tool",
        "manage-files",
        "move",
        "--root",
        env.root(),
        "source=a.txt",
        "target=b",
    ]);
    assert_eq!(
        sim["diff"],
        serde_json::json!(["~ move   a.txt -> b/a.txt"])
    );
    assert!(env.root.path().join("a.txt").exists());

    let bad_config = env
        .cmd(&["scan", env.root()])
        .env("SCOPE_WEAVER_HITL_MODE", "sometimes")
        .output()
        .unwrap();
    assert!(!bad_config.status.success());
    let text = String::from_utf8_lossy(&bad_config.stderr);
    assert!(
        text.contains("error[CONFIG_INVALID]")
            && text.contains("`hitl_mode`")
            && text.contains("`all`, `key`, `bypass`"),
        "{text}"
    );

    let graph = env.json(&["graph", "export", env.root()]);
    assert_eq!(graph["nodes"].as_array().unwrap().len(), 4);
    assert_eq!(graph["links"].as_array().unwrap().len(), 3);
}

#[test]
fn skills_validate_reports_file_and_line_and_fails() {
    let env = Env::new(&[]);
    let skills = env.home.path().join("skills");
    std::fs::create_dir_all(skills.join("ok")).unwrap();
    std::fs::write(
        skills.join("ok/SKILL.md"),
        "---\nname: ok\ndescription: fine\n---\n",
    )
    .unwrap();
    std::fs::create_dir_all(skills.join("bad")).unwrap();
    std::fs::write(skills.join("bad/SKILL.md"), "---\nname: bad\ndescription: d\n---\n### t\nprimitive: graph | method: nope | mutates: false\n").unwrap();
    let out = env.run(&["--skills", skills.to_str().unwrap(), "skills", "validate"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad/SKILL.md:5: error[UNKNOWN_METHOD]"),
        "{err}"
    );
    let ok = env.run(&["skills", "validate"]);
    assert!(
        ok.status.success(),
        "shipped skills validate: {}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

/// Regression: a SKILL.md with one bad trigger dropped the whole skill from planning without a
/// word, and its requests quietly went to another skill.
#[test]
fn plan_says_which_skill_it_left_out_for_errors() {
    let env = Env::new(&[]);
    let skills = env.home.path().join("skills");
    std::fs::create_dir_all(skills.join("tidy")).unwrap();
    std::fs::write(
        skills.join("tidy/SKILL.md"),
        "---\nname: tidy\ndescription: Delete files.\n---\n### delete -- Delete files\nprimitive: graph | method: delete_node | mutates: true | required: [path]\ntriggers: [\"remove every {extension} file in {path}\"]\n",
    )
    .unwrap();
    let out = env.run(&[
        "--skills",
        skills.to_str().unwrap(),
        "plan",
        "delete old.log",
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("tidy/SKILL.md:7: error[BAD_PLANNING_KEY]")
            && err.contains("left out of planning"),
        "{err}"
    );
    let ok = env.run(&["plan", "delete old.log"]);
    assert!(
        !String::from_utf8_lossy(&ok.stderr).contains("left out"),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
}

#[test]
fn skills_search_ranks_with_scores_and_says_confident_or_near_miss() {
    let env = Env::new(&[]);
    let v = env.json(&[
        "skills",
        "search",
        "remove duplicates in Downloads",
        "--top",
        "3",
    ]);
    assert_eq!(v["ok"], true, "{v}");
    assert_eq!(v["hits"][0]["skill"], "remove-duplicates", "{v}");
    assert_eq!(v["hits"].as_array().unwrap().len(), 3);
    assert_ne!(v["runner_ups"][0]["skill"], "remove-duplicates");
    let out = env.run(&["skills", "search", "bake a chocolate cake"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(text.contains("near-miss"), "{text}");
    assert!(text.contains("runner-ups"), "{text}");
    // The index persists: a second run embeds nothing new.
    let out = env.run(&["skills", "search", "zip the reports"]);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("indexed"));
    // Batch mode: one JSON ranking per line.
    let file = env.home.path().join("requests.jsonl");
    std::fs::write(
        &file,
        "{\"request\": \"sort downloads by type\"}\nzip the reports\n",
    )
    .unwrap();
    let out = env.run(&["skills", "search", "--file", file.to_str().unwrap()]);
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["hits"][0]["skill"], "organize-by-type");
    assert_eq!(lines[1]["hits"][0]["skill"], "archive-files");
}

#[test]
fn search_finds_files_by_content_and_the_search_tool_runs() {
    let env = Env::new(&[
        (
            "Documents/lease.txt",
            "The tenant pays a security deposit of two months rent.",
        ),
        (
            "Documents/recipe.md",
            "Whisk the eggs, fold in the flour, bake for twenty minutes.",
        ),
        ("Code/main.rs", "fn main() { println!(\"hello\"); }"),
    ]);
    let v = env.json(&["search", env.root(), "rental deposit", "--top", "2"]);
    assert_eq!(v["result"]["hits"][0]["path"], "Documents/lease.txt", "{v}");
    let out = env.run(&["search", env.root(), "baking eggs", "--path", "Documents"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .next()
            .unwrap()
            .ends_with("Documents/recipe.md"),
        "{text}"
    );
    assert!(text.contains("Whisk the eggs"), "{text}");
    // The second run reuses the saved content index.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("0 file(s) embedded"), "{err}");

    let v = env.json(&[
        "tool",
        "search-files",
        "search",
        "--root",
        env.root(),
        "query=security deposit",
        "top_k=1",
    ]);
    assert_eq!(
        v["result"]["paths"],
        serde_json::json!(["Documents/lease.txt"]),
        "{v}"
    );
    let v = env.json(&[
        "tool",
        "skill-search",
        "search",
        "--root",
        env.root(),
        "query=compress a folder",
    ]);
    assert_eq!(v["result"]["hits"][0]["skill"], "archive-files", "{v}");
    let v = env.json(&["search", env.root(), "x", "--path", "/etc"]);
    assert_eq!(v["error"]["code"], "SCOPE_VIOLATION", "{v}");
}

#[test]
fn skills_watch_reloads_an_edited_skill() {
    let env = Env::new(&[]);
    let skills = env.home.path().join("skills");
    let from = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills");
    for name in ["archive-files", "manage-files"] {
        std::fs::create_dir_all(skills.join(name)).unwrap();
        std::fs::copy(
            from.join(name).join("SKILL.md"),
            skills.join(name).join("SKILL.md"),
        )
        .unwrap();
    }
    let mut child = env
        .cmd(&[
            "--skills",
            skills.to_str().unwrap(),
            "skills",
            "watch",
            "--count",
            "1",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the watcher is up (it says so on stderr), then edit one description.
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.contains("watching") {
        line.clear();
        assert!(
            std::io::BufRead::read_line(&mut stderr, &mut line).unwrap() > 0,
            "watcher died"
        );
    }
    let file = skills.join("archive-files/SKILL.md");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(
        &file,
        text.replacen("description: >", "description: >\n  Pack a wombat.", 1),
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.starts_with("reloaded archive-files: 4 document(s) re-embedded"),
        "{stdout}"
    );
}

#[test]
fn duplicates_report_as_csv_and_a_protected_folder_keeps_the_originals() {
    let env = Env::new(&[
        ("Library/a.jpg", "AAAA"),
        ("Downloads/a.jpg", "AAAA"),
        ("Downloads/b.txt", "B"),
    ]);
    let out = env.run(&[
        "tool",
        "remove-duplicates",
        "scan",
        "--root",
        env.root(),
        "path=.",
        "format=csv",
        "hash=sha256",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("group,hash,size,count,path\n1,"),
        "{stdout}"
    );
    let rows = stdout.lines().take_while(|l| !l.is_empty()).count();
    assert_eq!(rows, 3, "{stdout}");
    {
        // The whole pipeline from a request: the protected folder holds the originals, which
        // stay; their copy elsewhere goes.
        let out = env.run(&[
            "--json",
            "run",
            "--root",
            env.root(),
            "--yes",
            "remove duplicates, never touch Library",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains(r#""reference":["Library"]"#), "{stdout}");
        assert!(env.root.path().join("Library/a.jpg").exists());
        assert!(!env.root.path().join("Downloads/a.jpg").exists());
    }
}

#[test]
fn a_reader_that_goes_away_stops_the_output_quietly() {
    let env = Env::new(&[]);
    let mut child = env
        .cmd(&["--json", "skills", "list"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Like `| head -c 0`: the reader closes its end before reading anything.
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(
        out.status.success() || out.status.code() == Some(141),
        "{:?} {stderr}",
        out.status
    );
}
