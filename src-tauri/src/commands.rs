//! The app's commands: one-line adapters from the windows' `invoke` calls to `engine::Engine`.
//! Work that may take a while runs on the blocking pool, never on the main thread; every error
//! reaches the window as `{code, message}`.

use std::path::PathBuf;
use std::sync::Arc;

use contracts::ErrorPayload;
use engine::{Engine, Message, RunRequest, Settings};
use serde::Deserialize;
use serde_json::Value;
use tauri::ipc::Channel;
use tauri::{AppHandle, Manager, State};
use tauri_plugin_dialog::DialogExt;

type Shared<'a> = State<'a, Arc<Engine>>;
type Reply<T> = Result<T, ErrorPayload>;

/// Runs `f` with the engine on the blocking pool.
async fn blocking<T: Send + 'static>(
    engine: &Shared<'_>,
    f: impl FnOnce(&Engine) -> engine::Result<T> + Send + 'static,
) -> Reply<T> {
    let engine = Arc::clone(engine.inner());
    tauri::async_runtime::spawn_blocking(move || f(&engine))
        .await
        .map_err(|e| ErrorPayload::new("INTERNAL", e.to_string()))?
        .map_err(|e| e.payload())
}

/// Like `blocking`, for methods that need the engine's `Arc` (they start background work).
async fn blocking_arc<T: Send + 'static>(
    engine: Arc<Engine>,
    f: impl FnOnce(&Arc<Engine>) -> engine::Result<T> + Send + 'static,
) -> Reply<T> {
    tauri::async_runtime::spawn_blocking(move || f(&engine))
        .await
        .map_err(|e| ErrorPayload::new("INTERNAL", e.to_string()))?
        .map_err(|e| e.payload())
}

#[tauri::command]
pub fn app_info(engine: Shared<'_>) -> engine::AppInfo {
    engine.info()
}

#[tauri::command]
pub fn agents(engine: Shared<'_>) -> Vec<engine::Agent> {
    engine.agents()
}

#[tauri::command]
pub fn open_window(app: AppHandle, label: String) -> Reply<()> {
    crate::windows::show(&app, &label)
}

#[tauri::command]
pub fn hide_bar(app: AppHandle) -> Reply<()> {
    crate::windows::hide(&app, crate::windows::BAR)
}

#[tauri::command]
pub async fn set_root(engine: Shared<'_>, path: PathBuf) -> Reply<engine::RootSummary> {
    let engine = Arc::clone(engine.inner());
    blocking_arc(engine, move |e| e.set_root(&path)).await
}

#[tauri::command]
pub async fn pick_folder(app: AppHandle) -> Reply<Option<String>> {
    Ok(app
        .dialog()
        .file()
        .blocking_pick_folder()
        .map(|p| p.to_string()))
}

#[derive(Debug, Deserialize)]
pub struct FileFilter {
    name: String,
    extensions: Vec<String>,
}

#[tauri::command]
pub async fn pick_file(app: AppHandle, filters: Option<Vec<FileFilter>>) -> Reply<Option<String>> {
    let dialog = filters
        .unwrap_or_default()
        .into_iter()
        .fold(app.dialog().file(), |d, f| {
            d.add_filter(
                f.name,
                &f.extensions.iter().map(String::as_str).collect::<Vec<_>>(),
            )
        });
    Ok(dialog.blocking_pick_file().map(|p| p.to_string()))
}

#[tauri::command(rename_all = "snake_case")]
pub async fn run_request(
    engine: Shared<'_>,
    request: String,
    dry_run: Option<bool>,
    hitl: Option<String>,
    on_event: Channel<Message>,
) -> Reply<pipeline::RunReport> {
    let request = RunRequest {
        request,
        dry_run: dry_run.unwrap_or(false),
        hitl,
        plan: None,
    };
    blocking(&engine, move |e| {
        e.run(&request, &mut |m| drop(on_event.send(m)))
    })
    .await
}

#[tauri::command]
pub fn answer(engine: Shared<'_>, id: u64, answer: Value) -> Reply<()> {
    engine.answer(id, &answer).map_err(|e| e.payload())
}

#[tauri::command]
pub fn cancel_run(engine: Shared<'_>) {
    engine.cancel();
}

#[tauri::command]
pub fn rollback_to(engine: Shared<'_>, snapshot: String) -> Reply<()> {
    engine.rollback_to(&snapshot).map_err(|e| e.payload())
}

#[tauri::command]
pub async fn history(engine: Shared<'_>, limit: Option<usize>) -> Reply<Vec<audit::RunSummary>> {
    blocking(&engine, move |e| e.history(limit.unwrap_or(20))).await
}

#[tauri::command]
pub async fn committed_runs(
    engine: Shared<'_>,
    limit: Option<usize>,
) -> Reply<Vec<pipeline::CommittedRun>> {
    blocking(&engine, move |e| Ok(e.committed_runs(limit.unwrap_or(20)))).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn undo_run(
    engine: Shared<'_>,
    run_id: Option<String>,
    dry_run: Option<bool>,
    on_event: Channel<Message>,
) -> Reply<pipeline::UndoReport> {
    blocking(&engine, move |e| {
        e.undo(run_id.as_deref(), dry_run.unwrap_or(false), &mut |m| {
            drop(on_event.send(m))
        })
    })
    .await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn workflow_save(
    engine: Shared<'_>,
    run_id: String,
    name: String,
) -> Reply<engine::WorkflowSaved> {
    blocking(&engine, move |e| e.save_workflow(&run_id, &name)).await
}

#[tauri::command]
pub async fn workflow_suggestions(engine: Shared<'_>) -> Reply<Vec<skills::WorkflowSuggestion>> {
    blocking(&engine, |e| e.suggest_workflows()).await
}

#[tauri::command]
pub async fn workflow_matches(
    engine: Shared<'_>,
    request: String,
) -> Reply<Vec<engine::RequestMatch>> {
    blocking(&engine, move |e| {
        e.match_request(&request, e.working_root().as_deref())
    })
    .await
}

#[tauri::command]
pub async fn watches_list(engine: Shared<'_>) -> Reply<Vec<engine::Watch>> {
    blocking(&engine, |e| e.watches()).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn watch_add(
    engine: Shared<'_>,
    folder: String,
    request: String,
    settle_secs: Option<u64>,
    trusted: Option<bool>,
) -> Reply<engine::Watch> {
    blocking(&engine, move |e| {
        let root = e.working_root().ok_or(engine::EngineError::NoRoot)?;
        e.watch_add(
            &root,
            &folder,
            &request,
            settle_secs.unwrap_or(5),
            trusted.unwrap_or(false),
        )
    })
    .await
}

#[tauri::command]
pub async fn watch_remove(engine: Shared<'_>, id: String) -> Reply<bool> {
    blocking(&engine, move |e| e.watch_remove(&id)).await
}

#[tauri::command]
pub async fn inbox_list(engine: Shared<'_>) -> Reply<Vec<engine::InboxItem>> {
    blocking(&engine, |e| e.inbox()).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn inbox_approve(
    engine: Shared<'_>,
    id: String,
    on_event: Channel<Message>,
) -> Reply<pipeline::RunReport> {
    blocking(&engine, move |e| {
        e.approve_inbox_item(&id, &mut |m| drop(on_event.send(m)))
    })
    .await
}

#[tauri::command]
pub async fn inbox_discard(engine: Shared<'_>, id: String) -> Reply<()> {
    blocking(&engine, move |e| e.inbox_discard(&id)).await
}

/// Draws an inbox item's changes in the graph window (simulated again on its folder as it is).
#[tauri::command]
pub async fn inbox_preview(engine: Shared<'_>, id: String) -> Reply<engine::InboxPreview> {
    blocking(&engine, move |e| e.inbox_preview(&id)).await
}

/// Writes the named skills' descriptions.json (every skill when `names` is empty).
#[tauri::command]
pub async fn skills_describe(
    engine: Shared<'_>,
    names: Option<Vec<String>>,
    force: Option<bool>,
) -> Reply<Vec<engine::SkillDescribed>> {
    blocking(&engine, move |e| {
        e.describe_skills(&names.unwrap_or_default(), force.unwrap_or(false))
    })
    .await
}

#[tauri::command]
pub async fn pending_recovery(engine: Shared<'_>) -> Reply<Option<sandbox::RecoveryReport>> {
    blocking(&engine, |e| e.pending_recovery()).await
}

#[tauri::command]
pub async fn finish_recovery(engine: Shared<'_>) -> Reply<Option<sandbox::RecoveryReport>> {
    blocking(&engine, |e| e.finish_recovery()).await
}

#[tauri::command]
pub async fn graph_view(
    engine: Shared<'_>,
    expanded: Option<Vec<String>>,
    limit: Option<usize>,
) -> Reply<sandbox::TreeView> {
    blocking(&engine, move |e| {
        e.graph_view(&expanded.unwrap_or_default(), limit.unwrap_or(60))
    })
    .await
}

#[tauri::command]
pub async fn skills_list(engine: Shared<'_>) -> Reply<Vec<engine::SkillInfo>> {
    blocking(&engine, Engine::skills_list).await
}

#[tauri::command]
pub async fn skill_source(engine: Shared<'_>, name: String) -> Reply<engine::SkillSource> {
    blocking(&engine, move |e| e.skill_source(&name)).await
}

#[tauri::command]
pub async fn skill_check(
    engine: Shared<'_>,
    name: String,
    text: String,
) -> Reply<Vec<skills::Diagnostic>> {
    blocking(&engine, move |e| Ok(e.skill_check(&name, &text))).await
}

#[tauri::command]
pub async fn skill_save(
    engine: Shared<'_>,
    name: String,
    text: String,
) -> Reply<engine::SkillSaved> {
    blocking(&engine, move |e| e.skill_save(&name, &text)).await
}

#[tauri::command]
pub async fn skill_create(
    engine: Shared<'_>,
    name: String,
    description: String,
) -> Reply<engine::SkillSaved> {
    blocking(&engine, move |e| e.skill_create(&name, &description)).await
}

#[tauri::command]
pub async fn skill_search(engine: Shared<'_>, query: String) -> Reply<Vec<retrieval::SkillHit>> {
    blocking(&engine, move |e| e.skill_search(&query).map(|r| r.hits)).await
}

#[tauri::command]
pub fn settings_get(engine: Shared<'_>) -> Settings {
    engine.settings()
}

#[tauri::command]
pub async fn settings_set(
    app: AppHandle,
    engine: Shared<'_>,
    settings: Settings,
) -> Reply<Settings> {
    let engine = Arc::clone(engine.inner());
    let saved = blocking_arc(engine, move |e| e.set_settings(&settings)).await?;
    crate::shortcut::register(&app, &saved.shortcut);
    Ok(saved)
}

/// Stops waiting for the models Settings started loading; the models in use stay and their
/// settings are saved back (`None`: nothing was loading).
#[tauri::command]
pub fn model_load_cancel(engine: Shared<'_>) -> Reply<Option<Settings>> {
    engine.cancel_model_load().map_err(|e| e.payload())
}

/// Every command, for the builder.
pub fn handler() -> impl Fn(tauri::ipc::Invoke) -> bool + Send + Sync + 'static {
    tauri::generate_handler![
        app_info,
        agents,
        open_window,
        hide_bar,
        set_root,
        pick_folder,
        pick_file,
        run_request,
        answer,
        cancel_run,
        rollback_to,
        history,
        committed_runs,
        undo_run,
        workflow_save,
        workflow_suggestions,
        workflow_matches,
        watches_list,
        watch_add,
        watch_remove,
        inbox_list,
        inbox_approve,
        inbox_discard,
        inbox_preview,
        skills_describe,
        pending_recovery,
        finish_recovery,
        graph_view,
        skills_list,
        skill_source,
        skill_check,
        skill_save,
        skill_create,
        skill_search,
        settings_get,
        settings_set,
        model_load_cancel
    ]
}

/// The engine the app manages (tests and setup).
pub fn engine(app: &AppHandle) -> Arc<Engine> {
    Arc::clone(app.state::<Arc<Engine>>().inner())
}
