//! Scope Weaver's desktop app: a Tauri v2 shell over `engine::Engine`. It opens the windows
//! (spotlight bar, graph, SKILL.md editor, settings), registers the global shortcut, forwards the
//! engine's notices to every window as Tauri events, and exposes the engine as commands.
//!
//! Architecture invariant: this is the only crate that knows Tauri; the commands are one-line
//! adapters, and everything they do is tested without a window in `crates/engine`.

mod commands;
mod shortcut;
mod windows;

use std::sync::{Arc, OnceLock};

use engine::{Engine, EngineOptions, Notice};
use tauri::Emitter;

/// Loads the config and the engine before any window exists; notices reach the windows once
/// the app is up.
fn open_engine(app: Arc<OnceLock<tauri::AppHandle>>) -> Result<Arc<Engine>, String> {
    let config = engine::load_app_config().map_err(|e| e.to_string())?;
    let engine = Engine::open(
        EngineOptions::new(config),
        Arc::new(move |notice: Notice| {
            if let Some(app) = app.get()
                && let Err(e) = app.emit(notice.channel(), engine::notice_payload(&notice))
            {
                tracing::warn!("emitting {}: {e}", notice.channel());
            }
        }),
    )
    .map_err(|e| e.to_string())?;
    if let Err(e) = engine.watch_skills() {
        tracing::warn!("skills are not watched for edits: {}", e.payload().message);
    }
    // Watched folders: handled in the background, their changes parked in the inbox.
    engine.watch_in_background();
    // The drop folder (`drop_folder`), if one is configured.
    engine.tasks_in_background();
    Ok(engine)
}

/// Starts the app (blocks until it quits). A configuration or skills folder that cannot be
/// loaded is reported on stderr with exit code 2, before any window opens.
pub fn run() {
    let config = engine::load_app_config().unwrap_or_default();
    let _telemetry = audit::init_telemetry(&audit::LogSettings {
        stderr: std::env::args().any(|a| a == "-v" || a == "--verbose"),
        ..audit::LogSettings::from_config(&config, "scope-weaver-app")
    });
    let handle = Arc::new(OnceLock::new());
    let engine = match open_engine(handle.clone()) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("scope-weaver-app: {e}");
            std::process::exit(2);
        }
    };
    let result = tauri::Builder::default()
        .plugin(tauri_plugin_global_shortcut::Builder::new().build())
        .plugin(tauri_plugin_dialog::init())
        .manage(Arc::clone(&engine))
        .invoke_handler(commands::handler())
        .on_window_event(windows::on_event)
        .setup(move |app| {
            let _ = handle.set(app.handle().clone());
            shortcut::register(app.handle(), &engine.config().shortcut);
            // The working folder: configured, or the home folder. Scanned off the main thread.
            let root = engine.config().working_root.clone().or_else(dirs::home_dir);
            if let Some(root) = root {
                let engine = Arc::clone(&engine);
                std::thread::spawn(move || {
                    if let Err(e) = engine.set_root(&root) {
                        tracing::warn!(
                            "working folder {}: {}",
                            root.display(),
                            e.payload().message
                        );
                    }
                });
            }
            // The bar appears once the graph window is up, placed and focused by `show` (a
            // window manager would place it by its own rules while the app starts).
            let handle = app.handle().clone();
            std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(400));
                let _ = windows::show(&handle, windows::BAR);
            });
            Ok(())
        })
        .run(tauri::generate_context!("../tauri.conf.json"));
    if let Err(e) = result {
        eprintln!("scope-weaver-app: {e}");
        std::process::exit(1);
    }
}
