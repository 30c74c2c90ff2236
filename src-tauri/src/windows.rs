//! The four windows: showing, hiding, and the bar's spotlight behaviour (centred and focused when
//! shown; hidden on Esc or when it loses focus, unless a question waits for an answer). Closing a
//! window hides it, so it opens again where it was.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use contracts::ErrorPayload;
use tauri::{AppHandle, Emitter, Manager, WebviewWindow, WindowEvent};

pub const BAR: &str = "bar";

fn window(app: &AppHandle, label: &str) -> Result<WebviewWindow, ErrorPayload> {
    app.get_webview_window(label)
        .ok_or_else(|| ErrorPayload::new("UNKNOWN_WINDOW", format!("there is no window `{label}`")))
}

fn failed(e: tauri::Error) -> ErrorPayload {
    ErrorPayload::new("WINDOW_FAILED", e.to_string())
}

/// How long the bar must stay unfocused before it hides.
const BLUR_GRACE: Duration = Duration::from_millis(250);
static SHOWN: Mutex<Option<Instant>> = Mutex::new(None);

/// Time since the bar was last shown.
fn lock_shown() -> Instant {
    SHOWN
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .unwrap_or_else(|| Instant::now() - BLUR_GRACE * 10)
}

/// Shows and focuses a window (the bar also centred, and told so to focus its input).
pub fn show(app: &AppHandle, label: &str) -> Result<(), ErrorPayload> {
    let w = window(app, label)?;
    if label == BAR {
        *SHOWN.lock().unwrap_or_else(PoisonError::into_inner) = Some(Instant::now());
        place_bar(&w);
    }
    w.unminimize().map_err(failed)?;
    w.show().map_err(failed)?;
    if label == BAR {
        // Again once mapped: a window manager places a newly mapped window by its own rules.
        place_bar(&w);
    }
    w.set_focus().map_err(failed)?;
    if label == BAR {
        let _ = w.emit_to(BAR, "bar://shown", ());
    }
    Ok(())
}

/// Centres the bar horizontally, a little above the middle (where a launcher is expected), on
/// the monitor it is on.
fn place_bar(w: &WebviewWindow) {
    let (Ok(Some(monitor)), Ok(size)) = (w.current_monitor(), w.outer_size()) else {
        let _ = w.center();
        return;
    };
    let (m, at) = (monitor.size(), monitor.position());
    let x = at.x + (m.width.saturating_sub(size.width) / 2) as i32;
    let y = at.y + (m.height.saturating_sub(size.height) / 3) as i32;
    let _ = w.set_position(tauri::PhysicalPosition::new(x, y));
}

pub fn hide(app: &AppHandle, label: &str) -> Result<(), ErrorPayload> {
    window(app, label)?.hide().map_err(failed)
}

/// Shows the bar if hidden, hides it if shown (the global shortcut).
pub fn toggle_bar(app: &AppHandle) {
    let visible = app
        .get_webview_window(BAR)
        .and_then(|w| w.is_visible().ok())
        .unwrap_or(false);
    tracing::debug!(visible, "toggling the bar");
    let result = if visible {
        hide(app, BAR)
    } else {
        show(app, BAR)
    };
    if let Err(e) = result {
        tracing::warn!("toggling the bar: {}", e.message);
    }
}

/// Window events: close hides; the bar hides when it loses focus while nothing waits on it.
pub fn on_event(window: &tauri::Window, event: &WindowEvent) {
    match event {
        WindowEvent::CloseRequested { api, .. } => {
            api.prevent_close();
            let _ = window.hide();
        }
        WindowEvent::Focused(false) if window.label() == BAR => {
            // Focus flaps while a window is shown and while a key grab is active: hide only if
            // the bar is still unfocused a moment later, and never while the run needs it.
            let window = window.clone();
            std::thread::spawn(move || {
                std::thread::sleep(BLUR_GRACE);
                let engine = crate::commands::engine(window.app_handle());
                let focused = window.is_focused().unwrap_or(true);
                let recent = lock_shown().elapsed() < BLUR_GRACE * 2;
                if !focused && !recent && engine.waiting_questions() == 0 && !engine.is_running() {
                    tracing::debug!("the bar lost focus: hidden");
                    let _ = window.hide();
                }
            });
        }
        _ => {}
    }
}
