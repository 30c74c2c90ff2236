//! Tauri's build step: reads `../tauri.conf.json` and declares the app's commands, so each window's
//! capability file can grant exactly the commands that window uses.

const COMMANDS: &[&str] = &[
    "app_info",
    "agents",
    "open_window",
    "hide_bar",
    "set_root",
    "pick_folder",
    "pick_file",
    "run_request",
    "answer",
    "cancel_run",
    "rollback_to",
    "history",
    "committed_runs",
    "undo_run",
    "workflow_save",
    "workflow_suggestions",
    "workflow_matches",
    "watches_list",
    "watch_add",
    "watch_remove",
    "inbox_list",
    "inbox_approve",
    "inbox_discard",
    "inbox_preview",
    "skills_describe",
    "pending_recovery",
    "finish_recovery",
    "graph_view",
    "skills_list",
    "skill_source",
    "skill_check",
    "skill_save",
    "skill_create",
    "skill_search",
    "settings_get",
    "settings_set",
    "model_load_cancel",
];

fn main() {
    tauri_build::try_build(
        tauri_build::Attributes::new()
            .config_path("../tauri.conf.json")
            .app_manifest(tauri_build::AppManifest::new().commands(COMMANDS)),
    )
    .expect("tauri build step");
}
