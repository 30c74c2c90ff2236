//! The engine as the desktop app drives it, without a window: a request runs on one thread while
//! another answers its questions (as the bar does), rolls back from the graph window, cancels;
//! skill saves re-embed only that skill; settings are validated as a whole.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use config::{DeleteMode, PipelineConfig};
use engine::{Engine, EngineOptions, Message, Notice, Question, RunRequest, Settings};
use serde_json::json;

const SEED: &str = "Clean up my Downloads folder – remove duplicates, then organize the remaining \
                    files into subfolders by type";

struct World {
    _state: tempfile::TempDir,
    home: tempfile::TempDir,
    skills: tempfile::TempDir,
    engine: Arc<Engine>,
    notices: Arc<Mutex<Vec<Notice>>>,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn world() -> World {
    world_with(|_| {})
}

fn world_with(configure: impl FnOnce(&mut PipelineConfig)) -> World {
    let state = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let skills = tempfile::tempdir().unwrap();
    copy_dir(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
        skills.path(),
    );
    let d = home.path().join("Downloads");
    std::fs::create_dir_all(d.join("old")).unwrap();
    for (name, body) in [
        ("report_v1.pdf", "quarterly report\n"),
        ("report_final.pdf", "quarterly report\n"),
        ("beach.jpg", "JPEG holiday\n"),
        ("beach (1).jpg", "JPEG holiday\n"),
        ("old/beach.jpg", "JPEG holiday\n"),
        ("song.mp3", "ID3 song\n"),
        ("export.csv", "a,b\n1,2\n"),
    ] {
        std::fs::write(d.join(name), body).unwrap();
    }
    let mut config = PipelineConfig {
        state_dir: Some(state.path().to_owned()),
        delete_mode: DeleteMode::Permanent,
        ..PipelineConfig::default()
    };
    configure(&mut config);
    let notices = Arc::new(Mutex::new(Vec::new()));
    let sink = notices.clone();
    let engine = Engine::open(
        EngineOptions {
            config,
            skills_dir: skills.path().to_owned(),
            config_file: Some(state.path().join("config.yaml")),
            model_fallback: true,
        },
        Arc::new(move |n| sink.lock().unwrap().push(n)),
    )
    .unwrap();
    engine.set_root(home.path()).unwrap();
    World {
        _state: state,
        home,
        skills,
        engine,
        notices,
    }
}

/// Starts `request` on its own thread; its messages arrive on the returned receiver.
fn start(
    engine: &Arc<Engine>,
    request: RunRequest,
) -> (
    mpsc::Receiver<Message>,
    std::thread::JoinHandle<engine::Result<pipeline::RunReport>>,
) {
    let (tx, rx) = mpsc::channel();
    let engine = engine.clone();
    let handle = std::thread::spawn(move || {
        let mut sink = move |m: Message| {
            let _ = tx.send(m);
        };
        engine.run(&request, &mut sink)
    });
    (rx, handle)
}

fn next_question(rx: &mpsc::Receiver<Message>) -> Option<(u64, Question)> {
    loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Message::Question { id, question }) => return Some((id, *question)),
            Ok(_) => {}
            Err(_) => return None,
        }
    }
}

fn files(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p: PathBuf = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}

mod background;
mod runs;
mod skills_and_models;
