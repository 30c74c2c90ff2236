//! Watching the saved folders live: first every folder that changed while nothing watched is
//! handled (catch-up), then a `notify` watcher on each folder reports arrivals; a folder is
//! handled once it has been quiet for its watch's settle time. Changes the engine itself made
//! (a trusted watch's commit) start one more handling, which finds nothing to do.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::sync::{Arc, mpsc};
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher};

use crate::Engine;
use crate::error::{EngineError, Result};
use crate::watch::{Watch, WatchOutcome};

/// How often the loop looks at its stop check when nothing happens.
const TICK: Duration = Duration::from_millis(200);

impl Engine {
    /// Handles the saved watches (those named by `only`, or all) until `stop` says so: catch-up
    /// first, then live. Each handling is reported to `report` (an error there does not stop the
    /// others). `catch_up_only` returns after the catch-up; otherwise `ready` is called once the
    /// folders are being watched.
    pub fn watch_folders(
        &self,
        only: &[String],
        catch_up_only: bool,
        stop: &dyn Fn() -> bool,
        ready: &dyn Fn(),
        report: &mut dyn FnMut(&Watch, Result<WatchOutcome>),
    ) -> Result<()> {
        let chosen = |w: &Watch| only.is_empty() || only.contains(&w.id);
        let watches: Vec<Watch> = self.watches()?.into_iter().filter(chosen).collect();
        if watches.is_empty() {
            return Err(EngineError::Coded {
                code: "NO_WATCHES".into(),
                message: "no folder is watched: add one with `scope-weaver watch ROOT --folder F --request R`".into(),
            });
        }
        for w in &watches {
            if self.watch_is_behind(w) {
                report(w, self.handle_watch(w));
            }
        }
        if catch_up_only {
            return Ok(());
        }
        let (tx, rx) = mpsc::channel::<PathBuf>();
        let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
            if let Ok(event) = res
                && !matches!(event.kind, EventKind::Access(_))
            {
                for p in event.paths {
                    let _ = tx.send(p);
                }
            }
        })
        .map_err(|e| EngineError::Coded {
            code: "WATCH_FAILED".into(),
            message: e.to_string(),
        })?;
        for w in &watches {
            watcher
                .watch(&w.path(), RecursiveMode::NonRecursive)
                .map_err(|e| EngineError::Coded {
                    code: "WATCH_FAILED".into(),
                    message: format!("{}: {e}", w.path().display()),
                })?;
        }
        ready();
        // Watch id → when its folder last changed.
        let mut quiet_since: BTreeMap<String, Instant> = BTreeMap::new();
        while !stop() {
            match rx.recv_timeout(TICK) {
                Ok(path) => {
                    let folder = path.parent().map(PathBuf::from);
                    for w in &watches {
                        let dir = w.path();
                        if path == dir || folder.as_deref() == Some(dir.as_path()) {
                            quiet_since.insert(w.id.clone(), Instant::now());
                        }
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
            let settled: Vec<String> = quiet_since
                .iter()
                .filter(|(id, at)| {
                    watches
                        .iter()
                        .find(|w| &w.id == *id)
                        .is_some_and(|w| at.elapsed() >= Duration::from_secs(w.settle_secs))
                })
                .map(|(id, _)| id.clone())
                .collect();
            for id in settled {
                quiet_since.remove(&id);
                // Re-read: `last_handled_ms` moves with each handling.
                let Some(w) = self.watches()?.into_iter().find(|w| w.id == id) else {
                    continue;
                };
                if self.watch_is_behind(&w) {
                    match self.handle_watch(&w) {
                        // A request of the person's is running: try again once it may be done.
                        Err(EngineError::Busy) => {
                            quiet_since.insert(w.id.clone(), Instant::now());
                        }
                        outcome => report(&w, outcome),
                    }
                }
            }
        }
        drop(watcher);
        Ok(())
    }

    /// The app's watcher: every saved watch, on a thread of its own, started over whenever the
    /// watches change; outcomes go out as `Notice::InboxChanged` (from `handle_watch`).
    pub fn watch_in_background(self: &Arc<Self>) {
        let engine = Arc::downgrade(self);
        std::thread::spawn(move || {
            loop {
                let Some(e) = engine.upgrade() else { return };
                let generation = e.watch_generation.load(Ordering::SeqCst);
                let changed = || {
                    engine
                        .upgrade()
                        .is_none_or(|e| e.watch_generation.load(Ordering::SeqCst) != generation)
                };
                let result = e.watch_folders(&[], false, &changed, &|| {}, &mut |w, outcome| {
                    if let Err(err) = outcome {
                        tracing::warn!("watch {}: {}", w.id, err.payload().message);
                    }
                });
                drop(e);
                if let Err(err) = result {
                    if !matches!(&err, EngineError::Coded { code, .. } if code == "NO_WATCHES") {
                        tracing::warn!("watching folders: {}", err.payload().message);
                    }
                    // Nothing to watch (or it failed): look again when the watches change.
                    while !changed() {
                        std::thread::sleep(Duration::from_millis(500));
                    }
                }
            }
        });
    }
}
