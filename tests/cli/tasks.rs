//! The drop folder end to end: task files are taken oldest first and answered beside themselves
//! (the changes parked in the inbox, or committed for a trusted task that deletes nothing), then
//! moved to done/; a file that is not a task gets an error file and stays, and is not taken
//! again until it changes.

use serde_json::{Value, json};

use super::Env;

/// The home folder of `env`'s files and an empty drop folder beside it.
fn drop_folder(env: &Env) -> (std::path::PathBuf, std::path::PathBuf) {
    let home = env.root.path().join("home");
    let drop = env.root.path().join("drop");
    std::fs::create_dir_all(&drop).unwrap();
    (home, drop)
}

fn read(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn dropped_tasks_are_answered_bad_ones_get_an_error_file_and_nothing_is_lost() {
    let env = Env::new(&[
        ("home/Downloads/report.pdf", "pdf"),
        ("home/Downloads/photo.jpg", "jpeg"),
        ("home/Inbox/song.mp3", "mp3"),
    ]);
    let home = env.root.path().join("home");
    let drop = env.root.path().join("drop");
    std::fs::create_dir_all(&drop).unwrap();
    let write = |name: &str, body: &str| std::fs::write(drop.join(name), body).unwrap();
    write(
        "1-sort.json",
        &json!({"request": "sort Downloads by type", "root": home}).to_string(),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        "2-trusted.json",
        &json!({"request": "sort Inbox by type", "root": home, "trusted": true}).to_string(),
    );
    write("3-broken.json", "{\"request\": \"sort\", ");
    write(
        "4-incomplete.json",
        &json!({"request": "", "root": "relative/path"}).to_string(),
    );

    let out = env.run(&["--json", "tasks", drop.to_str().unwrap(), "--once"]);
    // Two bad files: the command says so with its exit code, after answering every task.
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let answers: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["answer"].clone())
        .collect();
    let order: Vec<&str> = answers
        .iter()
        .map(|a| a["task"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "1-sort.json",
            "2-trusted.json",
            "3-broken.json",
            "4-incomplete.json"
        ]
    );

    let parked = read(&drop.join("1-sort.answer.json"));
    assert_eq!(parked["outcome"]["outcome"], "parked", "{parked}");
    assert!(home.join("Downloads/report.pdf").exists(), "simulated only");
    assert!(drop.join("done/1-sort.json").exists());
    let inbox = env.json(&["inbox"]);
    assert_eq!(
        inbox["items"][0]["request"], "sort Downloads by type",
        "{inbox}"
    );

    assert_eq!(
        read(&drop.join("2-trusted.answer.json"))["outcome"]["outcome"],
        "committed"
    );
    assert!(home.join("Inbox/Audio/song.mp3").exists());

    let broken = read(&drop.join("3-broken.error.json"));
    assert_eq!(broken["error"]["code"], "TASK_INVALID");
    assert!(
        drop.join("3-broken.json").exists(),
        "a bad task stays where it was"
    );
    let incomplete = read(&drop.join("4-incomplete.error.json"));
    let message = incomplete["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("no `request`") && message.contains("absolute"),
        "{message}"
    );

    // Nothing new: the bad files are not taken again until they change.
    let again = env.run(&["--json", "tasks", drop.to_str().unwrap(), "--once"]);
    assert!(again.status.success());
    assert!(
        again.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        "3-broken.json",
        &json!({"request": "sort Downloads by type", "root": home}).to_string(),
    );
    let fixed = env.run(&["--json", "tasks", drop.to_str().unwrap(), "--once"]);
    assert!(
        fixed.status.success(),
        "{}",
        String::from_utf8_lossy(&fixed.stdout)
    );
    assert!(drop.join("done/3-broken.json").exists());
}

/// A task can be one tool call (seed 000's CapTask shape): no planner, the tool's own parameter
/// check, then the same simulate → inbox (or trusted commit) path; approving the parked item runs
/// the call again, through the journal and the audit log, and it can be undone.
#[test]
fn a_task_that_calls_one_tool_is_checked_parked_approved_and_undoable() {
    let env = Env::new(&[
        ("home/Downloads/old.log", "log"),
        ("home/Downloads/notes.txt", "notes"),
    ]);
    let (home, drop) = drop_folder(&env);
    let write =
        |name: &str, body: Value| std::fs::write(drop.join(name), body.to_string()).unwrap();
    write(
        "1-delete.json",
        json!({"call": {"skill": "manage-files", "tool": "delete",
                        "params": {"path": "Downloads/old.log"}}, "root": home, "trusted": true}),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        "2-move.json",
        json!({"call": {"skill": "manage-files", "tool": "move",
                        "params": {"source": "Downloads/notes.txt", "target": "Notes"}},
               "root": home, "trusted": true}),
    );
    write(
        "3-unknown.json",
        json!({"call": {"skill": "manage-files", "tool": "teleport"}, "root": home}),
    );
    write(
        "4-both.json",
        json!({"request": "tidy", "call": {"skill": "manage-files", "tool": "list"}, "root": home}),
    );
    let out = env.run(&["--json", "tasks", drop.to_str().unwrap(), "--once"]);
    assert_eq!(out.status.code(), Some(1), "two bad task files");

    // A delete waits for approval even from a trusted task; nothing is deleted yet.
    let parked = read(&drop.join("1-delete.answer.json"));
    assert_eq!(parked["outcome"]["outcome"], "parked", "{parked}");
    let item = &parked["outcome"]["item"];
    assert_eq!(item["plan"]["steps"][0]["tool"], "delete", "{item}");
    assert_eq!(
        item["request"],
        "manage-files/delete path=Downloads/old.log"
    );
    assert!(home.join("Downloads/old.log").exists());
    // A move from a trusted task is committed.
    let moved = read(&drop.join("2-move.answer.json"));
    assert_eq!(moved["outcome"]["outcome"], "committed", "{moved}");
    assert!(home.join("Notes/notes.txt").exists());
    // A call the skills cannot take is a bad task, with the tool's own words.
    let unknown = read(&drop.join("3-unknown.error.json"));
    assert_eq!(unknown["error"]["code"], "TASK_INVALID");
    let message = unknown["error"]["message"].as_str().unwrap();
    assert!(message.contains("no tool `teleport`"), "{message}");
    let both = read(&drop.join("4-both.error.json"));
    assert!(
        both["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not several"),
        "{both}"
    );

    // Approving runs the call itself (not the words planned again) and commits it.
    let id = item["id"].as_str().unwrap();
    let approved = env.run(&["--json", "inbox", "approve", id, "--yes"]);
    assert!(
        approved.status.success(),
        "{}",
        String::from_utf8_lossy(&approved.stderr)
    );
    assert!(!home.join("Downloads/old.log").exists());
    assert_eq!(
        std::fs::read_to_string(env.data_home().join("Trash/files/old.log")).unwrap(),
        "log"
    );
    // Both tool calls are runs in the history, and the delete can be undone.
    let history = env.json(&["history"]);
    let requests: Vec<&str> = history["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["request"].as_str().unwrap())
        .collect();
    assert!(
        requests.contains(&"manage-files/delete path=Downloads/old.log"),
        "{history}"
    );
    let undo = env.run(&["--json", "undo", "--yes"]);
    assert!(
        undo.status.success(),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(home.join("Downloads/old.log")).unwrap(),
        "log"
    );
}

/// A task can be a whole plan (steps with `$step(n)` references, as a planner makes them): checked
/// against the skills first (a bad one gets an error file naming every problem), then parked or
/// committed like any task. A task that failed for a passing reason waits beside itself until its
/// pause is over, unless it is changed.
#[test]
fn a_task_with_a_plan_is_checked_and_run_and_a_waiting_retry_is_respected() {
    let env = Env::new(&[
        ("home/Inbox/a.pdf", "same"),
        ("home/Inbox/b.pdf", "same"),
        ("home/Inbox/song.mp3", "mp3"),
    ]);
    let (home, drop) = drop_folder(&env);
    let write =
        |name: &str, body: Value| std::fs::write(drop.join(name), body.to_string()).unwrap();
    write(
        "1-plan.json",
        json!({"plan": {"steps": [
            {"step": 1, "description": "sort Inbox by type", "skill": "organize-by-type",
             "tool": "organize", "params": {"path": "Inbox"}},
            {"step": 2, "description": "analyze it", "skill": "analyze-directory",
             "tool": "analyze", "params": {"path": "Inbox"}}
        ]}, "root": home, "trusted": true}),
    );
    write(
        "2-bad-plan.json",
        json!({"plan": {"steps": [
            {"step": 1, "skill": "manage-files", "tool": "teleport", "params": {}},
            {"step": 2, "skill": "nowhere", "tool": "list", "params": {"path": "$step(7).nodes"}}
        ]}, "root": home}),
    );
    let out = env.run(&["--json", "tasks", drop.to_str().unwrap(), "--once"]);
    assert_eq!(out.status.code(), Some(1), "one bad task file");
    let done = read(&drop.join("1-plan.answer.json"));
    assert_eq!(done["outcome"]["outcome"], "committed", "{done}");
    assert!(home.join("Inbox/Documents/a.pdf").exists());
    assert!(home.join("Inbox/Audio/song.mp3").exists());
    let history = env.json(&["history"]);
    assert_eq!(
        history["runs"][0]["request"], "sort Inbox by type; then analyze it",
        "{history}"
    );
    let bad = read(&drop.join("2-bad-plan.error.json"));
    assert_eq!(bad["error"]["code"], "TASK_INVALID");
    let message = bad["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("`plan`:")
            && message.contains("teleport")
            && message.contains("nowhere"),
        "{message}"
    );

    // A task that failed for a passing reason waits until its pause is over ...
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        "3-later.json",
        json!({"request": "sort Inbox by type", "root": home}),
    );
    std::thread::sleep(std::time::Duration::from_millis(20));
    let far = u64::MAX / 2;
    write(
        "3-later.retry.json",
        json!({"attempts": 1, "next_at_ms": far,
               "error": {"code": "COMMIT_FAILED", "message": "a file was locked"}}),
    );
    let out = env.run(&["--json", "tasks", drop.to_str().unwrap(), "--once"]);
    assert!(out.status.success());
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(drop.join("3-later.json").exists());
    // ... unless the person changes it: then it is taken at once, and the wait is forgotten.
    std::thread::sleep(std::time::Duration::from_millis(20));
    write(
        "3-later.json",
        json!({"request": "sort Inbox by type", "root": home, "trusted": true}),
    );
    let out = env.run(&["--json", "tasks", drop.to_str().unwrap(), "--once"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(drop.join("done/3-later.json").exists());
    assert!(!drop.join("3-later.retry.json").exists());
}
