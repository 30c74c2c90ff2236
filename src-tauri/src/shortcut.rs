//! The global shortcut that shows the bar (`shortcut` in the config, default Alt+Space). A
//! shortcut that cannot be registered (another program owns it, or Wayland) is a warning shown
//! in the bar, never a crash.

use tauri::AppHandle;
use tauri_plugin_global_shortcut::{GlobalShortcutExt, ShortcutState};

/// Replaces the registered shortcut by `shortcut`; the outcome goes to `app_info().shortcut_error`.
pub fn register(app: &AppHandle, shortcut: &str) {
    let engine = crate::commands::engine(app);
    let gs = app.global_shortcut();
    let _ = gs.unregister_all();
    let wayland = std::env::var_os("WAYLAND_DISPLAY").is_some()
        && std::env::var("GDK_BACKEND").map_or(true, |b| b != "x11");
    let result = gs.on_shortcut(shortcut, |app, _shortcut, event| {
        if event.state == ShortcutState::Pressed {
            tracing::info!("global shortcut pressed: toggling the bar");
            crate::windows::toggle_bar(app);
        }
    });
    let error = match result {
        Ok(()) if wayland => Some(format!(
            "{shortcut} may not reach the app under Wayland; start it with GDK_BACKEND=x11 or open the bar from the graph window"
        )),
        Ok(()) => None,
        Err(e) => Some(format!("{shortcut} could not be registered: {e}")),
    };
    if let Some(e) = &error {
        tracing::warn!("global shortcut: {e}");
    }
    engine.set_shortcut_error(error);
}
