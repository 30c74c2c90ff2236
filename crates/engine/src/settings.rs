//! Settings: the working folder, the planner and embedder backends with their local model files,
//! the approval mode and the global shortcut. Saving validates every key (all problems at once),
//! writes the user's YAML file, and loads changed models in the background; a model that fails
//! to load leaves the embedded default in place.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use config::{EmbeddingBackend, PipelineConfig, ThinkerBackend};
use retrieval::RetrievalPipeline;
use serde::{Deserialize, Serialize};
use serde_yaml::{Mapping, Value as Yaml};
use skills::SkillStore;
use thinker::Planner;

use crate::error::{EngineError, Result};

use crate::{Engine, Notice, Notify, lock, read, write};

/// The levers the Settings window edits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Settings {
    pub working_root: Option<PathBuf>,
    pub thinker_backend: String,
    pub thinker_model_path: Option<PathBuf>,
    /// With a model: the rule planner's plan, the model choosing between its readings of a part it
    /// is unsure of (`thinker::RulesWhenSure`); `false`: the model plans every request.
    #[serde(default = "rules_first_default")]
    pub thinker_rules_first: bool,
    pub embedding_backend: String,
    pub embedding_model_path: Option<PathBuf>,
    pub hitl_mode: String,
    pub shortcut: String,
    /// Task files dropped here are taken by the app (absolute; none: no drop folder).
    #[serde(default)]
    pub drop_folder: Option<PathBuf>,
    /// Where they are saved (read-only).
    #[serde(default)]
    pub config_file: Option<PathBuf>,
}

/// The settings that decide which models are loaded.
fn model_keys(
    c: &PipelineConfig,
) -> (
    ThinkerBackend,
    Option<&PathBuf>,
    bool,
    EmbeddingBackend,
    Option<&PathBuf>,
) {
    (
        c.thinker_backend,
        c.thinker_model_path.as_ref(),
        c.thinker_rules_first,
        c.embedding_backend,
        c.embedding_model_path.as_ref(),
    )
}

/// A model load `set_settings` started and nobody has cancelled yet.
#[derive(Debug, Clone)]
pub(crate) struct ModelLoad {
    pub generation: u64,
    /// The configuration before (what cancelling saves back) and the one being loaded.
    pub before: PipelineConfig,
    pub after: PipelineConfig,
}

fn rules_first_default() -> bool {
    true
}

fn progress(notify: &Notify, component: &str, state: &str, message: String) {
    notify(Notice::ModelProgress {
        component: component.into(),
        state: state.into(),
        message,
    });
}

/// The configured embedder and planner. A model that fails to load is reported (`failed`) and,
/// with `fallback`, replaced by the embedded default (`fallback`); without, it is the error.
pub(crate) fn load_models(
    config: &PipelineConfig,
    store: &SkillStore,
    notify: &Notify,
    fallback: bool,
) -> Result<(RetrievalPipeline, Box<dyn Planner>)> {
    Ok((
        load_retrieval(config, store, notify, fallback)?,
        load_planner(config, notify, fallback)?,
    ))
}

fn load_retrieval(
    config: &PipelineConfig,
    store: &SkillStore,
    notify: &Notify,
    fallback: bool,
) -> Result<RetrievalPipeline> {
    let model = !config.embedding_backend.is_embedded();
    if model {
        progress(
            notify,
            "embedder",
            "loading",
            format!("loading the {} embedder", config.embedding_backend),
        );
    }
    let loaded = RetrievalPipeline::open(config).and_then(|mut r| {
        r.build_index(store)?;
        Ok(r)
    });
    match loaded {
        Ok(r) => {
            // The embedded default is announced too, so a window never shows a model that is
            // no longer in use as "ready".
            let what = r.embedder().fingerprint().to_owned();
            let message = if model {
                what
            } else {
                format!("the embedded default ({what})")
            };
            progress(notify, "embedder", "ready", message);
            Ok(r)
        }
        Err(e) => {
            progress(notify, "embedder", "failed", e.to_string());
            if !fallback {
                return Err(e.into());
            }
            let fallback = PipelineConfig {
                embedding_backend: EmbeddingBackend::Words,
                embedding_model_path: None,
                ..config.clone()
            };
            progress(
                notify,
                "embedder",
                "fallback",
                "using the embedded default (word vectors + lexical)".into(),
            );
            let mut r =
                RetrievalPipeline::open(&fallback).expect("the embedded default needs no model");
            // Regression: the fallback must index the skills too, or nothing matches.
            if let Err(e) = r.build_index(store) {
                tracing::warn!("skill index on the fallback embedder: {e}");
            }
            Ok(r)
        }
    }
}

fn load_planner(
    config: &PipelineConfig,
    notify: &Notify,
    fallback: bool,
) -> Result<Box<dyn Planner>> {
    let model = config.thinker_backend != ThinkerBackend::Rule;
    if model {
        progress(
            notify,
            "planner",
            "loading",
            format!("loading the {} planner", config.thinker_backend),
        );
    }
    match thinker::build_planner(config) {
        Ok(p) => {
            let message = if model {
                p.name()
            } else {
                "the embedded rule planner".to_owned()
            };
            progress(notify, "planner", "ready", message);
            Ok(p)
        }
        Err(e) => {
            progress(notify, "planner", "failed", e.to_string());
            if !fallback {
                return Err(e.into());
            }
            progress(
                notify,
                "planner",
                "fallback",
                "using the embedded rule planner".into(),
            );
            Ok(thinker::embedded_planner())
        }
    }
}

/// The app's configuration: like `PipelineConfig::load`, except that a user file named by
/// `$SCOPE_WEAVER_CONFIG` that does not exist yet is not an error (Settings creates it).
pub fn load_app_config() -> Result<PipelineConfig> {
    let env: Vec<(String, String)> = std::env::vars().collect();
    let named = env
        .iter()
        .find(|(k, _)| k == config::ENV_CONFIG_FILE)
        .map(|(_, v)| PathBuf::from(v));
    let file = match named {
        Some(p) => Some(p).filter(|p| p.exists()),
        None => dirs::config_dir()
            .map(|d| d.join("scope-weaver/config.yaml"))
            .filter(|p| p.is_file()),
    };
    Ok(PipelineConfig::load_from(file.as_deref(), env)?)
}

impl Engine {
    /// The user's config file that Settings writes.
    pub fn config_file(&self) -> Option<PathBuf> {
        self.config_file.clone().or_else(|| {
            std::env::var_os(config::ENV_CONFIG_FILE)
                .map(PathBuf::from)
                .or_else(|| dirs::config_dir().map(|d| d.join("scope-weaver/config.yaml")))
        })
    }

    pub fn settings(&self) -> Settings {
        let c = self.config();
        Settings {
            working_root: c.working_root.clone(),
            thinker_backend: c.thinker_backend.as_str().into(),
            thinker_model_path: c.thinker_model_path.clone(),
            thinker_rules_first: c.thinker_rules_first,
            embedding_backend: c.embedding_backend.as_str().into(),
            embedding_model_path: c.embedding_model_path.clone(),
            hitl_mode: c.hitl_mode.as_str().into(),
            shortcut: c.shortcut.clone(),
            drop_folder: c.drop_folder.clone(),
            config_file: self.config_file(),
        }
    }

    /// Validates and saves `settings`, then applies them: a new working folder is scanned, new
    /// models load on a background thread (progress as `ModelProgress`; `cancel_model_load`
    /// stops waiting for them).
    pub fn set_settings(self: &Arc<Self>, settings: &Settings) -> Result<Settings> {
        let before = self.config();
        let config = self.save_settings(settings)?;
        if config.working_root != before.working_root
            && let Some(root) = &config.working_root
        {
            self.set_root(root)?;
        }
        if model_keys(&config) != model_keys(&before) {
            let generation = self.model_generation.fetch_add(1, Ordering::SeqCst) + 1;
            *lock(&self.model_load) = Some(ModelLoad {
                generation,
                before: before.clone(),
                after: config.clone(),
            });
            let engine = Arc::clone(self);
            std::thread::spawn(move || Engine::reload_models(&engine, &config, generation));
        }
        Ok(self.settings())
    }

    /// Stops waiting for the models `set_settings` started loading: the models in use stay, the
    /// model settings are saved back as they were, and whatever the load still produces is
    /// dropped unannounced (`ModelProgress` `cancelled` now). `None` when nothing is loading.
    pub fn cancel_model_load(&self) -> Result<Option<Settings>> {
        // Held to the end: the loader swaps its models in only under this lock, so it cannot
        // slip in between saving the settings back and stopping it. A save that fails leaves the
        // load going (and cancellable again).
        let mut under_way = lock(&self.model_load);
        let Some(load) = under_way.clone() else {
            return Ok(None);
        };
        let before = &load.before;
        let restored = Settings {
            thinker_backend: before.thinker_backend.as_str().into(),
            thinker_model_path: before.thinker_model_path.clone(),
            thinker_rules_first: before.thinker_rules_first,
            embedding_backend: before.embedding_backend.as_str().into(),
            embedding_model_path: before.embedding_model_path.clone(),
            ..self.settings()
        };
        self.save_settings(&restored)?;
        self.model_generation.fetch_add(1, Ordering::SeqCst);
        *under_way = None;
        drop(under_way);
        let (planner, embedder) = read(&self.labels);
        let after = &load.after;
        let changed = model_keys(after);
        let was = model_keys(before);
        if (changed.0, changed.1, changed.2) != (was.0, was.1, was.2) {
            progress(
                &self.notify,
                "planner",
                "cancelled",
                format!("loading cancelled; still planning with {planner}"),
            );
        }
        if (changed.3, changed.4) != (was.3, was.4) {
            progress(
                &self.notify,
                "embedder",
                "cancelled",
                format!("loading cancelled; still embedding with {embedder}"),
            );
        }
        Ok(Some(self.settings()))
    }

    /// Validates `settings` (every problem at once) and writes them to the user's config file,
    /// which they replace only when the whole file is valid; the engine's config becomes the
    /// result. Nothing is loaded or scanned here.
    fn save_settings(&self, settings: &Settings) -> Result<PipelineConfig> {
        let file = self.config_file().ok_or_else(|| EngineError::Write {
            path: "config file".into(),
            message: "no config directory on this system".into(),
        })?;
        let mut map: Mapping = match std::fs::read_to_string(&file) {
            Ok(text) => serde_yaml::from_str::<Option<Mapping>>(&text)
                .map_err(|e| {
                    EngineError::coded(&config::ConfigError::Syntax {
                        path: file.clone(),
                        message: e.to_string(),
                    })
                })?
                .unwrap_or_default(),
            Err(_) => Mapping::new(),
        };
        let path = |p: &Option<PathBuf>| match p {
            Some(p) if !p.as_os_str().is_empty() => Yaml::String(p.display().to_string()),
            _ => Yaml::Null,
        };
        for (key, value) in [
            ("working_root", path(&settings.working_root)),
            (
                "thinker_backend",
                Yaml::String(settings.thinker_backend.clone()),
            ),
            ("thinker_model_path", path(&settings.thinker_model_path)),
            (
                "thinker_rules_first",
                Yaml::Bool(settings.thinker_rules_first),
            ),
            ("drop_folder", path(&settings.drop_folder)),
            (
                "embedding_backend",
                Yaml::String(settings.embedding_backend.clone()),
            ),
            ("embedding_model_path", path(&settings.embedding_model_path)),
            ("hitl_mode", Yaml::String(settings.hitl_mode.clone())),
            (
                "shortcut",
                Yaml::String(settings.shortcut.trim().to_owned()),
            ),
        ] {
            map.insert(Yaml::String(key.into()), value);
        }
        let text = serde_yaml::to_string(&map).map_err(|e| EngineError::Write {
            path: file.display().to_string(),
            message: e.to_string(),
        })?;
        // Validate the whole file (every problem at once) before it replaces the old one.
        if let Some(dir) = file.parent() {
            std::fs::create_dir_all(dir).map_err(|e| EngineError::Write {
                path: dir.display().to_string(),
                message: e.to_string(),
            })?;
        }
        let tmp = file.with_extension("yaml.saving");
        let written = std::fs::write(&tmp, &text).map_err(|e| EngineError::Write {
            path: tmp.display().to_string(),
            message: e.to_string(),
        });
        written?;
        let env: Vec<(String, String)> = std::env::vars().collect();
        let config = match PipelineConfig::load_from(Some(&tmp), env) {
            Ok(c) => c,
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                return Err(e.into());
            }
        };
        std::fs::rename(&tmp, &file).map_err(|e| EngineError::Write {
            path: file.display().to_string(),
            message: e.to_string(),
        })?;
        write(&self.config, config.clone());
        Ok(config)
    }

    /// Loads the configured models and swaps them in (after the running request, if any), unless
    /// the load was cancelled or superseded meanwhile (then its notices stop and the result is
    /// dropped).
    fn reload_models(self: &Arc<Self>, config: &PipelineConfig, generation: u64) {
        let store = {
            let core = lock(&self.core);
            core.store.clone()
        };
        let engine = Arc::downgrade(self);
        let wanted = move || {
            engine
                .upgrade()
                .is_some_and(|e| e.model_generation.load(Ordering::SeqCst) == generation)
        };
        let inner = self.notify.clone();
        let still_wanted = wanted.clone();
        let notify: Notify = Arc::new(move |n| {
            if still_wanted() {
                inner(n);
            }
        });
        // With a fallback only the embedded defaults' own failure can end up here.
        let loaded = load_models(config, &store, &notify, true);
        if !wanted() {
            tracing::info!("a cancelled or superseded model load finished; dropped");
            return;
        }
        let (retrieval, planner) = match loaded {
            Ok(loaded) => loaded,
            Err(e) => {
                tracing::warn!("loading models: {e}");
                return;
            }
        };
        let labels = (
            planner.name(),
            retrieval.embedder().fingerprint().to_owned(),
        );
        let mut core = lock(&self.core);
        {
            // Checked again under the load lock: a cancel from now on finds nothing loading.
            let mut load = lock(&self.model_load);
            if !wanted() {
                return;
            }
            if load.as_ref().is_some_and(|l| l.generation == generation) {
                *load = None;
            }
        }
        let root = read(&self.root);
        core.retrieval = retrieval;
        core.planner = planner;
        drop(core);
        write(&self.labels, labels);
        if let Some(root) = root
            && let Err(e) = self.set_root(&root)
        {
            tracing::warn!("re-indexing {}: {e}", root.display());
        }
    }
}
