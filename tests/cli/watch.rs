//! Watched folders and the inbox end to end, with a real `notify` watcher on real folders: a
//! watch simulates its request and parks the changes in the inbox (nothing written) until they
//! are approved; a trusted watch commits what deletes nothing and parks what does; a folder that
//! changed while nothing watched is handled on the next start; a file arriving while the watcher
//! runs is handled once the folder is quiet for the settle time.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::Env;

fn home() -> Env {
    Env::new(&[
        ("Downloads/report.pdf", "pdf bytes"),
        ("Downloads/photo.jpg", "jpeg bytes"),
        ("Desktop/photo.jpg", "same bytes"),
        ("Desktop/photo copy.jpg", "same bytes"),
        ("Inbox/song.mp3", "mp3 bytes"),
        ("Inbox/notes.txt", "notes"),
    ])
}

fn top_files(env: &Env, folder: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(env.root.path().join(folder))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().unwrap().is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// One JSON object per stdout line.
fn lines(out: &std::process::Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn handled(events: &[Value]) -> Vec<&Value> {
    events.iter().filter(|e| e["event"] == "handled").collect()
}

#[test]
fn a_watch_parks_its_changes_in_the_inbox_until_approved_and_catches_up_after_a_restart() {
    let env = home();
    let root = env.root();
    let events = lines(&env.run(&[
        "--json",
        "watch",
        root,
        "--folder",
        "Downloads",
        "--request",
        "sort Downloads by type",
        "--once",
    ]));
    let watch_id = events[0]["watch"]["id"].as_str().unwrap().to_owned();
    let h = handled(&events);
    assert_eq!(h.len(), 1, "{events:?}");
    assert_eq!(h[0]["result"]["outcome"], "parked", "{events:?}");
    let item = &h[0]["result"]["item"];
    assert_eq!(item["destructive"], false);
    assert!(
        item["counts"].as_str().unwrap().contains("2 moves"),
        "{item}"
    );
    // Simulated only: nothing moved.
    assert_eq!(top_files(&env, "Downloads"), ["photo.jpg", "report.pdf"]);

    let inbox = env.json(&["inbox"]);
    assert_eq!(inbox["items"].as_array().unwrap().len(), 1, "{inbox}");
    let id = inbox["items"][0]["id"].as_str().unwrap().to_owned();

    // Nothing new since: a restart handles nothing.
    let again = lines(&env.run(&["--json", "watch", "--once"]));
    assert!(handled(&again).is_empty(), "{again:?}");

    // Approved: the request runs on the folder as it is now; the item leaves the inbox.
    let out = env.run(&["inbox", "approve", &id, "--yes"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(top_files(&env, "Downloads").is_empty());
    assert_eq!(env.json(&["inbox"])["items"], serde_json::json!([]));

    // A file that arrives while nothing watches is handled on the next start.
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(env.root.path().join("Downloads/song.mp3"), "mp3").unwrap();
    let caught = lines(&env.run(&["--json", "watch", "--once"]));
    let h = handled(&caught);
    assert_eq!(h.len(), 1, "{caught:?}");
    assert_eq!(h[0]["watch"], watch_id.as_str());
    assert_eq!(h[0]["result"]["outcome"], "parked");
    let list = env.json(&["watch", "--list"]);
    assert_eq!(list["watches"][0]["request"], "sort Downloads by type");
    // Discarded: gone, nothing written.
    let item = env.json(&["inbox"])["items"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(env.json(&["inbox", "discard", &item])["ok"], true);
    assert_eq!(top_files(&env, "Downloads"), ["song.mp3"]);
}

#[test]
fn a_trusted_watch_commits_what_deletes_nothing_and_parks_what_deletes() {
    let env = home();
    let root = env.root();
    let sorted = lines(&env.run(&[
        "--json",
        "watch",
        root,
        "--folder",
        "Inbox",
        "--request",
        "sort Inbox by type",
        "--trusted",
        "--once",
    ]));
    let h = handled(&sorted);
    assert_eq!(h[0]["result"]["outcome"], "committed", "{sorted:?}");
    assert!(top_files(&env, "Inbox").is_empty());
    assert!(env.root.path().join("Inbox/Audio/song.mp3").exists());

    let dedupe = lines(&env.run(&[
        "--json",
        "watch",
        root,
        "--folder",
        "Desktop",
        "--request",
        "remove duplicates in Desktop",
        "--trusted",
        "--once",
    ]));
    let h = handled(&dedupe);
    assert_eq!(h[0]["result"]["outcome"], "parked", "{dedupe:?}");
    assert_eq!(h[0]["result"]["item"]["destructive"], true);
    assert_eq!(
        top_files(&env, "Desktop"),
        ["photo copy.jpg", "photo.jpg"],
        "nothing deleted unapproved"
    );
}

#[test]
fn a_file_arriving_while_the_watcher_runs_is_handled_after_the_settle_time() {
    let env = home();
    let root = env.root();
    // Saved and caught up first (the folder's own files), then watched live.
    let first = lines(&env.run(&[
        "--json",
        "watch",
        root,
        "--folder",
        "Downloads",
        "--request",
        "sort Downloads by type",
        "--settle",
        "1",
        "--once",
    ]));
    assert_eq!(handled(&first).len(), 1);
    let mut child = env
        .cmd(&["--json", "watch"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel::<Value>();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if let Ok(v) = serde_json::from_str(&line) {
                let _ = tx.send(v);
            }
        }
    });
    let wait_for = |kind: &str| -> Value {
        let start = Instant::now();
        loop {
            let left = Duration::from_secs(60).saturating_sub(start.elapsed());
            let v = rx
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no `{kind}` line in 60 s"));
            if v["event"] == kind {
                return v;
            }
        }
    };
    wait_for("watching");
    std::thread::sleep(Duration::from_millis(1100));
    std::fs::write(env.root.path().join("Downloads/clip.mp4"), "mp4 bytes").unwrap();
    let arrived = Instant::now();
    let h = wait_for("handled");
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        arrived.elapsed() >= Duration::from_secs(1),
        "handled before the settle time"
    );
    assert_eq!(h["result"]["outcome"], "parked", "{h}");
    let changes = h["result"]["item"]["changes"].to_string();
    assert!(changes.contains("clip.mp4"), "{changes}");
    // One item per watch: the newer simulation replaced the first.
    assert_eq!(env.json(&["inbox"])["items"].as_array().unwrap().len(), 1);
}
