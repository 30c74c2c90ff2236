//! The engine behind the desktop app's windows, with no window in it: one `Engine` owns the loaded
//! skills, the indexes, the planner and the audit log; runs one request at a time on the calling
//! thread while a window answers its questions from another; serves graph views, skill authoring
//! (list, check, save with hot reload, create) and settings.
//!
//! Architecture invariants: nothing here knows Tauri (the app's commands are one-line adapters
//! over `Engine` methods); every failure is a `EngineError` with a stable code; app-wide changes
//! (pipeline events, graph changes, skill reloads, model loading) go out as `Notice`s through one
//! callback; the disk is written only by the pipeline's commit and by `skill_save`/`skill_create`
//! and `settings_set` (the user's own files).

mod authoring;
mod contract;
mod describe;
mod error;
mod ledger;
mod plan;
mod questions;
mod settings;
mod tasks;
mod tool_call;
mod undo;
mod watch;
mod watch_loop;
mod workflows;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock, Weak};
use std::time::Duration;

use config::{HitlMode, PipelineConfig};
use pipeline::{Event, Interaction, Orchestrator, RunOptions, RunReport};
use retrieval::RetrievalPipeline;
use sandbox::{
    Change, FileSystemGraph, Sandbox, SandboxConfig, ScanOptions, TreeView, ViewOptions,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use skills::SkillStore;
use thinker::{CancelToken, Planner};

pub use authoring::{SkillInfo, SkillSaved, SkillSource, ToolInfo};
pub use contract::{ipc_schema, op_kinds};
pub use describe::SkillDescribed;
pub use error::{EngineError, Result};
pub use ledger::Ledger;
pub use plan::{PlanPreview, StepMatch};
pub use questions::{
    Answer, DiffAnswer, Message, Question, QuestionBoard, StepAnswer, WindowInteraction,
};
pub use settings::{Settings, load_app_config};
pub use tasks::{DROP_FOLDER_POLL, TaskAnswer, TaskFile};
pub use watch::{InboxItem, InboxPreview, Watch, WatchOutcome};
pub use workflows::{MIN_REPEATED_RUNS, RequestMatch, TOP_MATCHES, WorkflowSaved};

/// Something every window may want to know. `channel()` names the app-wide event.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(untagged)]
pub enum Notice {
    /// Every event of the running request.
    Pipeline { run_id: String, event: Box<Event> },
    /// Text a model planner generates, as it comes.
    Token { run_id: String, text: String },
    /// The sandbox's graph changed: re-request the view.
    GraphChanged { reason: String },
    /// A skill folder was (re)loaded, from the editor or an external edit.
    SkillsChanged {
        name: String,
        outcome: String,
        reembedded: bool,
        documents: usize,
        diagnostics: Vec<skills::Diagnostic>,
    },
    /// Loading a configured model.
    ModelProgress {
        component: String,
        state: String,
        message: String,
    },
    /// A watched folder was handled, or the inbox changed: how many items wait now.
    InboxChanged {
        count: usize,
        outcome: Option<WatchOutcome>,
    },
}

impl Notice {
    pub fn channel(&self) -> &'static str {
        match self {
            Notice::Pipeline { .. } => "pipeline://event",
            Notice::Token { .. } => "pipeline://token",
            Notice::GraphChanged { .. } => "graph://changed",
            Notice::SkillsChanged { .. } => "skills://changed",
            Notice::ModelProgress { .. } => "models://progress",
            Notice::InboxChanged { .. } => "inbox://changed",
        }
    }
}

/// Where notices go (the app emits them to every window).
pub type Notify = Arc<dyn Fn(Notice) + Send + Sync>;

/// How to start an engine.
#[derive(Debug, Clone)]
pub struct EngineOptions {
    pub config: PipelineConfig,
    pub skills_dir: PathBuf,
    /// The user's YAML config file that Settings writes (`None`: the platform's default place).
    pub config_file: Option<PathBuf>,
    /// A configured model that fails to load: `true` carries on with the embedded default (said
    /// in a `ModelProgress` notice: the app), `false` fails `open` with the model's error (the CLI).
    pub model_fallback: bool,
}

impl EngineOptions {
    /// `config` with the skills folder it names ([`skills_dir`]).
    pub fn new(config: PipelineConfig) -> EngineOptions {
        EngineOptions {
            skills_dir: skills_dir(&config),
            config,
            config_file: None,
            model_fallback: true,
        }
    }
}

/// Where the skills are: `skills_dir` from config when it is absolute or exists here, else the
/// shipped folder beside the executable (installed) or in the source tree (development builds).
pub fn skills_dir(config: &PipelineConfig) -> PathBuf {
    let configured = config.skills_dir.clone();
    if configured.is_absolute() || configured.is_dir() {
        return configured;
    }
    [
        std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(|p| p.join("skills"))),
        Some(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills")),
    ]
    .into_iter()
    .flatten()
    .find(|p| p.is_dir())
    .unwrap_or(configured)
}

/// How one request runs, whichever shell asks.
#[derive(Debug, Clone, Default)]
pub struct RunSettings {
    /// Overrides the configured approval mode.
    pub hitl: Option<HitlMode>,
    pub dry_run: bool,
    /// The run's id (`None`: derived from the request and the time).
    pub request_id: Option<String>,
    /// A plan to run as it is instead of planning the request (a tool call:
    /// [`Engine::tool_call_plan`]); validated, simulated and approved like any plan.
    pub plan: Option<contracts::Plan>,
}

/// What `app_info` shows.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct AppInfo {
    pub root: Option<String>,
    pub shortcut: String,
    pub shortcut_error: Option<String>,
    pub planner: String,
    pub embedder: String,
    pub skills_dir: String,
    pub state_dir: String,
    pub version: String,
}

/// An agent the bar offers.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Agent {
    pub id: String,
    pub name: String,
    pub description: String,
    pub skills: usize,
    pub default: bool,
}

/// A scanned working folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct RootSummary {
    pub files: u64,
    pub dirs: u64,
    pub bytes: u64,
}

/// One request from the bar.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct RunRequest {
    pub request: String,
    #[serde(default)]
    pub dry_run: bool,
    #[serde(default)]
    pub hitl: Option<String>,
    /// A plan to run as it is instead of a request to plan (`request` may then be empty): one
    /// tool call (`ToolCall::plan`) or several steps; checked by [`Engine::check_plan`].
    #[serde(default)]
    pub plan: Option<contracts::Plan>,
}

/// What the graph window draws: the view of the latest graph (scan, or the running request's).
#[derive(Debug, Clone)]
struct ViewSource {
    graph: FileSystemGraph,
    changes: Vec<Change>,
    root_path: String,
}

impl ViewSource {
    /// The view of `sandbox`, which is not needed any more (its graph is not copied).
    fn from_sandbox(sandbox: Sandbox) -> ViewSource {
        let root_path = sandbox.root().display().to_string();
        let (graph, changes) = sandbox.into_graph();
        ViewSource {
            graph,
            changes,
            root_path,
        }
    }

    fn of(sandbox: &Sandbox) -> ViewSource {
        ViewSource {
            graph: sandbox.graph().clone(),
            changes: sandbox.changes().to_vec(),
            root_path: sandbox.root().display().to_string(),
        }
    }
}

/// The parts a run needs exclusively.
struct Core {
    store: SkillStore,
    retrieval: RetrievalPipeline,
    planner: Box<dyn Planner>,
    audit: Option<audit::AuditLog>,
}

/// The engine of one app process.
pub struct Engine {
    config: RwLock<PipelineConfig>,
    skills_dir: PathBuf,
    config_file: Option<PathBuf>,
    core: Mutex<Core>,
    /// The working folder (outside `core`: switching folders never waits for a run or an index).
    root: RwLock<Option<PathBuf>>,
    view: RwLock<Option<ViewSource>>,
    board: QuestionBoard,
    running: Mutex<Option<CancelToken>>,
    /// Skill folders saved while a run held the core; reloaded when it ends.
    pending_reloads: Mutex<Vec<PathBuf>>,
    skill_count: AtomicUsize,
    labels: RwLock<(String, String)>,
    shortcut_error: RwLock<Option<String>>,
    /// Bumped when the watches change: the background watcher starts over with the new set.
    watch_generation: AtomicUsize,
    /// Bumped when a model load starts or is cancelled: a load whose number is no longer current
    /// is dropped when it finishes.
    model_generation: AtomicU64,
    /// The model load under way, if any (`cancel_model_load`).
    model_load: Mutex<Option<settings::ModelLoad>>,
    /// Read-only audit store for the history list (the run's own log is in `Core`).
    history_store: Mutex<Option<audit::AuditStore>>,
    notify: Notify,
}

impl std::fmt::Debug for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Engine")
            .field("skills_dir", &self.skills_dir)
            .finish_non_exhaustive()
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn read<T: Clone>(m: &RwLock<T>) -> T {
    m.read().unwrap_or_else(PoisonError::into_inner).clone()
}

fn write<T>(m: &RwLock<T>, value: T) {
    *m.write().unwrap_or_else(PoisonError::into_inner) = value;
}

/// Clears the running marker when a run ends, however it ends.
struct Running<'a>(&'a Mutex<Option<CancelToken>>);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        *lock(self.0) = None;
    }
}

impl Engine {
    /// Loads the skills, builds the indexes and the planner. A configured model that fails to
    /// load is reported (`ModelProgress` failed → fallback) and the embedded default is used.
    pub fn open(options: EngineOptions, notify: Notify) -> Result<Arc<Engine>> {
        let config = options.config;
        let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
        let store = SkillStore::load(&options.skills_dir, table)?;
        let (retrieval, planner) =
            settings::load_models(&config, &store, &notify, options.model_fallback)?;
        let labels = (
            planner.name(),
            retrieval.embedder().fingerprint().to_owned(),
        );
        let engine = Arc::new(Engine {
            skill_count: AtomicUsize::new(capabilities(&store)),
            core: Mutex::new(Core {
                store,
                retrieval,
                planner,
                audit: None,
            }),
            root: RwLock::new(None),
            config: RwLock::new(config),
            skills_dir: options.skills_dir,
            config_file: options.config_file,
            view: RwLock::new(None),
            board: QuestionBoard::default(),
            running: Mutex::new(None),
            pending_reloads: Mutex::new(Vec::new()),
            labels: RwLock::new(labels),
            shortcut_error: RwLock::new(None),
            history_store: Mutex::new(None),
            watch_generation: AtomicUsize::new(0),
            model_generation: AtomicU64::new(0),
            model_load: Mutex::new(None),
            notify,
        });
        Ok(engine)
    }

    pub fn config(&self) -> PipelineConfig {
        read(&self.config)
    }

    pub fn skills_dir(&self) -> &Path {
        &self.skills_dir
    }

    /// The problems that keep a skill out of planning (its SKILL.md has errors): a skill that
    /// fails to load is skipped, never silently — the shells say so.
    pub fn skill_errors(&self) -> Vec<skills::Diagnostic> {
        lock(&self.core)
            .store
            .diagnostics()
            .iter()
            .filter(|d| d.is_error())
            .cloned()
            .collect()
    }

    /// The working folder, once one is set.
    pub fn working_root(&self) -> Option<PathBuf> {
        read(&self.root)
    }

    pub fn info(&self) -> AppInfo {
        let config = self.config();
        let (planner, embedder) = read(&self.labels);
        AppInfo {
            root: root_display(self),
            shortcut: config.shortcut.clone(),
            shortcut_error: read(&self.shortcut_error),
            planner,
            embedder,
            skills_dir: self.skills_dir.display().to_string(),
            state_dir: config.state_dir().display().to_string(),
            version: env!("CARGO_PKG_VERSION").to_owned(),
        }
    }

    /// The app could not register the global shortcut (shown quietly in the bar).
    pub fn set_shortcut_error(&self, error: Option<String>) {
        write(&self.shortcut_error, error);
    }

    pub fn agents(&self) -> Vec<Agent> {
        vec![Agent {
            id: "files".into(),
            name: "Files".into(),
            description:
                "Cleans up, sorts, deduplicates, renames, searches and archives the files \
                          in your working folder — simulated first, written only after you approve."
                    .into(),
            skills: self.skill_count.load(Ordering::Relaxed),
            default: true,
        }]
    }

    /// Scans `path` as the working folder; the graph view shows it at once. Its contents are
    /// indexed for search on a background thread (up to `content_index_background_files`
    /// files), which stops between files when another folder is chosen or a request starts (a
    /// request that searches by content indexes what is left; the work done is kept).
    pub fn set_root(self: &Arc<Self>, path: &Path) -> Result<RootSummary> {
        if !path.is_dir() {
            return Err(EngineError::BadRoot {
                path: path.display().to_string(),
                message: "not a folder".into(),
            });
        }
        let config = self.config();
        let mut sandbox = Sandbox::open(
            path,
            SandboxConfig::from_pipeline(&config),
            &ScanOptions::default(),
        )
        .map_err(|e| EngineError::BadRoot {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let summary = summary_of(sandbox.graph());
        if self.is_running() {
            return Err(EngineError::Busy);
        }
        write(&self.root, Some(sandbox.root().to_owned()));
        let background = config.content_index_background_files;
        if summary.files > background as u64 {
            // The view keeps the only copy of a big folder's graph; a search indexes it later.
            tracing::info!(
                files = summary.files,
                "{} is indexed when a request searches it by content (more than \
                 content_index_background_files = {background} files)",
                sandbox.root().display()
            );
            write(&self.view, Some(ViewSource::from_sandbox(sandbox)));
            self.emit(Notice::GraphChanged {
                reason: "root".into(),
            });
            return Ok(summary);
        }
        write(&self.view, Some(ViewSource::of(&sandbox)));
        self.emit(Notice::GraphChanged {
            reason: "root".into(),
        });
        let engine = Arc::clone(self);
        let spawned = std::thread::Builder::new()
            .name("content-index".into())
            .spawn(move || {
                let mut core = lock(&engine.core);
                let root = sandbox.root().to_owned();
                let superseded =
                    || read(&engine.root).as_deref() != Some(root.as_path()) || engine.is_running();
                if superseded() {
                    return;
                }
                match core
                    .retrieval
                    .index_sandbox_until(&mut sandbox, &superseded)
                {
                    Ok(sync) if sync.stopped_files > 0 => tracing::info!(
                        embedded = sync.embedded_files,
                        left = sync.stopped_files,
                        "content index of {} stopped (another folder or a request)",
                        root.display()
                    ),
                    Ok(sync) => tracing::info!(
                        embedded = sync.embedded_files,
                        "content index of {} is current",
                        root.display()
                    ),
                    Err(e) => tracing::warn!("content index of {}: {e}", root.display()),
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("content index thread: {e}");
        }
        Ok(summary)
    }

    fn emit(&self, notice: Notice) {
        (self.notify)(notice);
    }

    /// The core, unless a run holds it (then `RUN_BUSY` at once instead of waiting for the
    /// person to finish). Short background work (indexing a new folder) is waited for.
    fn busy_or_lock(&self) -> Result<MutexGuard<'_, Core>> {
        match self.core.try_lock() {
            Ok(g) => Ok(g),
            Err(std::sync::TryLockError::Poisoned(p)) => Ok(p.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) if self.is_running() => Err(EngineError::Busy),
            Err(std::sync::TryLockError::WouldBlock) => Ok(lock(&self.core)),
        }
    }

    /// Marks a run (or undo, or recovery) as running, or `RUN_BUSY`; the marker clears when the
    /// returned guard drops.
    fn start_run(&self) -> Result<(CancelToken, Running<'_>)> {
        let mut running = lock(&self.running);
        if running.is_some() {
            return Err(EngineError::Busy);
        }
        let token = CancelToken::new();
        *running = Some(token.clone());
        Ok((token, Running(&self.running)))
    }

    /// Runs one request from a window on this thread, in the working folder as it is on disk
    /// now. Events and questions go to `sink` (and events also out as `Notice::Pipeline`);
    /// answers come through [`Engine::answer`].
    pub fn run(
        &self,
        request: &RunRequest,
        sink: &mut (dyn FnMut(Message) + Send),
    ) -> Result<RunReport> {
        let root = read(&self.root).ok_or(EngineError::NoRoot)?;
        self.run_at(&root, request, sink)
    }

    /// [`Engine::run`] in `root` rather than the working folder (an inbox item of a watched
    /// folder elsewhere).
    pub fn run_at(
        &self,
        root: &Path,
        request: &RunRequest,
        sink: &mut (dyn FnMut(Message) + Send),
    ) -> Result<RunReport> {
        let plan = request
            .plan
            .as_ref()
            .map(|p| self.check_plan(p))
            .transpose()?;
        let text = match &plan {
            Some(plan) if request.request.trim().is_empty() => plan.text(),
            _ => request.request.clone(),
        };
        let (cancel, _running) = self.start_run()?;
        let hitl = match request.hitl.as_deref() {
            None | Some("") => None,
            Some(h) => Some(HitlMode::parse(h).ok_or_else(|| {
                EngineError::InvalidAnswer(format!("hitl must be one of {}", HitlMode::allowed()))
            })?),
        };
        let config = self.config();
        let mut sandbox = Sandbox::open(
            root,
            SandboxConfig::from_pipeline(&config),
            &ScanOptions::default(),
        )?;
        let scanned = ViewSource::of(&sandbox);
        write(&self.view, Some(scanned.clone()));
        self.emit(Notice::GraphChanged {
            reason: "scan".into(),
        });
        let settings = RunSettings {
            hitl,
            dry_run: request.dry_run,
            request_id: Some(pipeline::request_id(&text)),
            plan,
        };
        let run_id = settings.request_id.clone().unwrap_or_default();
        let mut ui = self.window_interaction(&run_id, sink, cancel.clone(), true);
        let result = self.run_started(&cancel, &mut sandbox, &text, &settings, &mut ui);
        // The graph window shows the disk again: as committed, or as it was.
        let committed = result.as_ref().is_ok_and(|r| r.committed);
        write(
            &self.view,
            Some(if committed {
                ViewSource::of(&sandbox)
            } else {
                scanned
            }),
        );
        self.emit(Notice::GraphChanged {
            reason: "finished".into(),
        });
        result
    }

    /// Runs one request on `sandbox` (a fresh scan the caller made, with its own progress
    /// display) on this thread; `ui` answers the pipeline's questions (the CLI's terminal).
    /// A model planner's text goes out as `Notice::Token` while it is written.
    pub fn run_in(
        &self,
        sandbox: &mut Sandbox,
        request: &str,
        settings: &RunSettings,
        ui: &mut dyn Interaction,
    ) -> Result<RunReport> {
        let (cancel, _running) = self.start_run()?;
        self.run_started(&cancel, sandbox, request, settings, ui)
    }

    /// The run itself, once it is marked as running: the pipeline with the loaded skills, indexes, planner and audit log.
    fn run_started(
        &self,
        cancel: &CancelToken,
        sandbox: &mut Sandbox,
        request: &str,
        settings: &RunSettings,
        ui: &mut dyn Interaction,
    ) -> Result<RunReport> {
        let config = self.config();
        let mut core = lock(&self.core);
        // Every run leaves its trail: a log that cannot be opened stops it before it starts.
        if core.audit.is_none() {
            core.audit = Some(audit::AuditLog::new(audit::AuditStore::connect(
                &config.audit_db(),
            )?));
        }
        let run_id = settings
            .request_id
            .clone()
            .unwrap_or_else(|| pipeline::request_id(request));
        let tokens = self.notify.clone();
        let id = run_id.clone();
        let options = RunOptions {
            hitl: settings.hitl,
            dry_run: settings.dry_run,
            cancel: cancel.clone(),
            on_token: Some(Arc::new(move |text: &str| {
                tokens(Notice::Token {
                    run_id: id.clone(),
                    text: text.to_owned(),
                })
            })),
            request_id: Some(run_id),
        };
        let core = &mut *core;
        let mut given = settings
            .plan
            .clone()
            .map(|plan| thinker::GivenPlan::new(plan, core.planner.as_mut()));
        let planner: &mut dyn Planner = match given.as_mut() {
            Some(given) => given,
            None => core.planner.as_mut(),
        };
        let mut orchestrator = Orchestrator {
            config: &config,
            skills: &mut core.store,
            retrieval: &mut core.retrieval,
            sandbox,
            planner,
            audit: core
                .audit
                .as_mut()
                .map(|a| a as &mut dyn pipeline::AuditSink),
        };
        let result = orchestrator.run(request, &options, ui);
        self.skill_count
            .store(capabilities(&core.store), Ordering::Relaxed);
        let pending = std::mem::take(&mut *lock(&self.pending_reloads));
        for folder in pending {
            self.reload_locked(core, &folder);
        }
        Ok(result?)
    }

    /// Answers question `id` of the running request.
    pub fn answer(&self, id: u64, answer: &Value) -> Result<()> {
        self.board.answer(id, answer)
    }

    /// Cancels the running request: open questions get the safe answer, nothing is written.
    pub fn cancel(&self) {
        if let Some(token) = lock(&self.running).as_ref() {
            token.cancel();
        }
    }

    pub fn is_running(&self) -> bool {
        lock(&self.running).is_some()
    }

    /// Rolls the pending change back to a step's snapshot while the final review is open.
    pub fn rollback_to(&self, snapshot: &str) -> Result<()> {
        self.board.roll_back_to(snapshot)
    }

    /// Questions now waiting for an answer.
    pub fn waiting_questions(&self) -> usize {
        self.board.waiting()
    }

    /// Recent requests from the audit log, newest first.
    pub fn history(&self, limit: usize) -> Result<Vec<audit::RunSummary>> {
        let mut store = lock(&self.history_store);
        if store.is_none() {
            *store = Some(audit::AuditStore::connect(&self.config().audit_db())?);
        }
        let entries = store.as_ref().expect("opened").entries()?;
        Ok(audit::run_summaries(&entries)
            .into_iter()
            .take(limit)
            .collect())
    }

    /// The visible part of the working folder's tree, laid out.
    pub fn graph_view(&self, expanded: &[String], limit: usize) -> Result<TreeView> {
        let view = self.view.read().unwrap_or_else(PoisonError::into_inner);
        let source = view.as_ref().ok_or(EngineError::NoRoot)?;
        Ok(sandbox::tree_view(
            &source.graph,
            &source.changes,
            &source.root_path,
            &ViewOptions {
                expanded: expanded.iter().cloned().collect(),
                limit: limit.clamp(1, 2000),
                expand_changed: true,
            },
        ))
    }

    /// Watches the skills folder: an external edit reloads (and re-embeds) only that skill and
    /// goes out as `SkillsChanged`. The thread ends when the engine is dropped.
    pub fn watch_skills(self: &Arc<Self>) -> Result<()> {
        let watcher = retrieval::SkillWatcher::start(&self.skills_dir)?;
        let weak: Weak<Engine> = Arc::downgrade(self);
        std::thread::Builder::new()
            .name("skill-watcher".into())
            .spawn(move || {
                loop {
                    let burst = watcher.next_burst(Duration::from_millis(500));
                    let Some(engine) = weak.upgrade() else { break };
                    for folder in burst.map(|b| b.folders).unwrap_or_default() {
                        if let Some(saved) = engine.reload_when_free(&folder)
                            && saved.outcome == "loaded"
                        {
                            engine.describe_after_change(&saved.name);
                        }
                    }
                }
            })
            .map_err(|e| EngineError::Write {
                path: "skill-watcher thread".into(),
                message: e.to_string(),
            })?;
        Ok(())
    }

    /// Reloads a skill folder now, or after the running request if one holds the core.
    fn reload_when_free(&self, folder: &Path) -> Option<SkillSaved> {
        match self.busy_or_lock() {
            Ok(mut core) => Some(self.reload_locked(&mut core, folder)),
            Err(_) => {
                let mut pending = lock(&self.pending_reloads);
                if !pending.iter().any(|p| p == folder) {
                    pending.push(folder.to_owned());
                }
                None
            }
        }
    }

    fn reload_locked(&self, core: &mut Core, folder: &Path) -> SkillSaved {
        let saved = authoring::reload(&mut core.store, &mut core.retrieval, folder);
        self.skill_count
            .store(capabilities(&core.store), Ordering::Relaxed);
        self.emit(Notice::SkillsChanged {
            name: saved.name.clone(),
            outcome: saved.outcome.clone(),
            reembedded: saved.reembedded,
            documents: saved.documents,
            diagnostics: saved.diagnostics.clone(),
        });
        saved
    }
}

fn root_display(engine: &Engine) -> Option<String> {
    read(&engine.root).map(|p| p.display().to_string())
}

/// Loaded skills the planner may use (the template folder is not one).
fn capabilities(store: &SkillStore) -> usize {
    store
        .skills()
        .filter(|s| s.dir.file_name().is_none_or(|n| n != skills::TEMPLATE_DIR))
        .count()
}

fn summary_of(graph: &FileSystemGraph) -> RootSummary {
    let mut s = RootSummary {
        files: 0,
        dirs: 0,
        bytes: 0,
    };
    for n in graph.nodes() {
        if n.is_dir() {
            s.dirs += u64::from(n.id != sandbox::ROOT_ID);
        } else {
            s.files += 1;
            s.bytes += n.size;
        }
    }
    s
}

/// The JSON a window receives for a notice (its payload).
pub fn notice_payload(notice: &Notice) -> Value {
    serde_json::to_value(notice).unwrap_or_else(|e| json!({"error": e.to_string()}))
}
