//! `PipelineConfig`: every lever of the pipeline, loaded as defaults < YAML file < `SCOPE_WEAVER_*` env.
//!
//! The defaults are `config/default.yaml` itself (compiled in), so the documented file and the code
//! cannot drift apart. Loading reports every problem at once, each naming its key, its source and the
//! allowed values.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_yaml::{Mapping, Value};

mod levers;

pub use levers::{
    ChunkStrategy, CombineMethod, ConflictPolicy, DeleteMode, EmbeddingBackend, HitlMode,
    LogFormat, LogLevel, ThinkerBackend, VectorQuantization,
};

/// The documented defaults, compiled in.
pub const DEFAULT_YAML: &str = include_str!("../../../config/default.yaml");
/// Prefix of environment overrides: `SCOPE_WEAVER_HITL_MODE=all`.
pub const ENV_PREFIX: &str = "SCOPE_WEAVER_";
/// Environment variable naming the user YAML file.
pub const ENV_CONFIG_FILE: &str = "SCOPE_WEAVER_CONFIG";
/// Environment variables under the prefix that are not levers (debugging hooks, the file path,
/// test harness settings such as `SCOPE_WEAVER_TEST_POSTGRES`).
const ENV_NOT_LEVERS: &[&str] = &["CONFIG", "LOG"];
const ENV_NOT_LEVER_PREFIXES: &[&str] = &["DEBUG_", "TEST_"];

/// Every lever. Field docs live in `config/default.yaml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PipelineConfig {
    pub skill_match_threshold: f32,
    pub confidence_gap: f32,
    pub skill_index_descriptions: bool,
    pub planner_sure_margin: f32,
    pub classify_sure_margin: f32,
    pub thinker_reads_files: bool,
    pub classify_model_sure: f32,
    pub classify_model_calibrate: bool,
    pub top_k: usize,
    pub content_min_similarity: f32,
    /// Extra type categories for organize-by-type, looked up before the built-in table:
    /// folder name → extensions.
    pub categories: BTreeMap<String, Vec<String>>,
    pub hybrid_alpha: f32,
    pub combine_method: CombineMethod,
    pub hitl_mode: HitlMode,
    pub thinker_backend: ThinkerBackend,
    pub thinker_model_path: Option<PathBuf>,
    pub thinker_rules_first: bool,
    pub max_plan_steps: usize,
    pub planner_retries: u32,
    pub max_turns: u32,
    pub max_context_tokens: usize,
    pub planner_guidance_skills: usize,
    pub embedding_backend: EmbeddingBackend,
    pub embedding_model_path: Option<PathBuf>,
    pub embedding_dims: usize,
    pub vector_quantization: VectorQuantization,
    pub chunk_strategy: ChunkStrategy,
    pub chunk_size: usize,
    pub chunk_overlap: usize,
    pub working_root: Option<PathBuf>,
    pub drop_folder: Option<PathBuf>,
    pub block_on_stale: bool,
    pub content_index_background_files: usize,
    pub delete_mode: DeleteMode,
    pub on_conflict: ConflictPolicy,
    pub protected_paths: Vec<String>,
    pub skills_dir: PathBuf,
    pub state_dir: Option<PathBuf>,
    pub audit_db: Option<String>,
    pub log_format: LogFormat,
    pub log_level: LogLevel,
    pub otlp_endpoint: Option<String>,
    pub shortcut: String,
}

/// Where a value came from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    File(PathBuf),
    Env(String),
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Source::Default => f.write_str("config/default.yaml"),
            Source::File(p) => write!(f, "{}", p.display()),
            Source::Env(var) => write!(f, "environment variable {var}"),
        }
    }
}

/// One thing wrong with the configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigProblem {
    pub key: String,
    pub source: Source,
    pub message: String,
}

impl std::fmt::Display for ConfigProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` (from {}): {}", self.key, self.source, self.message)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("config file {path} is not valid YAML: {message}")]
    Syntax { path: PathBuf, message: String },
    #[error("invalid configuration:\n{}", .0.iter().map(|p| format!("  - {p}")).collect::<Vec<_>>().join("\n"))]
    Invalid(Vec<ConfigProblem>),
}

impl contracts::ErrorCode for ConfigError {
    fn code(&self) -> &'static str {
        match self {
            ConfigError::Read { .. } => "CONFIG_UNREADABLE",
            ConfigError::Syntax { .. } => "CONFIG_SYNTAX",
            ConfigError::Invalid(_) => "CONFIG_INVALID",
        }
    }
}

pub type Result<T, E = ConfigError> = std::result::Result<T, E>;

impl Default for PipelineConfig {
    fn default() -> Self {
        serde_yaml::from_str(DEFAULT_YAML).expect("config/default.yaml matches PipelineConfig")
    }
}

impl PipelineConfig {
    /// Loads from the process: `file` (or `$SCOPE_WEAVER_CONFIG`, or the user's config file if it
    /// exists) and the process environment.
    pub fn load(file: Option<&Path>) -> Result<Self> {
        let env: Vec<(String, String)> = std::env::vars().collect();
        let file = file.map(Path::to_path_buf).or_else(|| {
            env.iter()
                .find(|(k, _)| k == ENV_CONFIG_FILE)
                .map(|(_, v)| PathBuf::from(v))
                .or_else(|| {
                    dirs::config_dir()
                        .map(|d| d.join("scope-weaver/config.yaml"))
                        .filter(|p| p.is_file())
                })
        });
        Self::load_from(file.as_deref(), env)
    }

    /// Loads from explicit sources: defaults < `file` < `env` (only `SCOPE_WEAVER_*` entries count).
    pub fn load_from(
        file: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Self> {
        let mut merged: Mapping =
            serde_yaml::from_str(DEFAULT_YAML).expect("default.yaml is a mapping");
        let mut sources: BTreeMap<String, Source> = merged
            .keys()
            .filter_map(Value::as_str)
            .map(|k| (k.to_owned(), Source::Default))
            .collect();
        let known: Vec<String> = sources.keys().cloned().collect();
        let mut problems = Vec::new();

        if let Some(path) = file {
            let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
                path: path.to_owned(),
                source,
            })?;
            let value: Value = serde_yaml::from_str(&text).map_err(|e| ConfigError::Syntax {
                path: path.to_owned(),
                message: e.to_string(),
            })?;
            match value {
                Value::Null => {}
                Value::Mapping(map) => {
                    for (k, v) in map {
                        let key = k
                            .as_str()
                            .map(str::to_owned)
                            .unwrap_or_else(|| format!("{k:?}"));
                        let source = Source::File(path.to_owned());
                        if known.contains(&key) {
                            merged.insert(Value::String(key.clone()), v);
                            sources.insert(key, source);
                        } else {
                            problems.push(unknown_key(&key, source, &known));
                        }
                    }
                }
                _ => {
                    return Err(ConfigError::Syntax {
                        path: path.to_owned(),
                        message: "the top level must be a mapping of `key: value` lines".into(),
                    });
                }
            }
        }

        let mut env: Vec<(String, String)> = env
            .into_iter()
            .filter(|(k, _)| k.starts_with(ENV_PREFIX))
            .collect();
        env.sort();
        for (var, raw) in env {
            let rest = &var[ENV_PREFIX.len()..];
            if ENV_NOT_LEVERS.contains(&rest)
                || ENV_NOT_LEVER_PREFIXES.iter().any(|p| rest.starts_with(p))
            {
                continue;
            }
            let key = rest.to_ascii_lowercase();
            let source = Source::Env(var.clone());
            if !known.contains(&key) {
                problems.push(unknown_key(&key, source, &known));
                continue;
            }
            // Values are YAML scalars: `0.8`, `true`, `null`, or plain text.
            let value = if raw.trim().is_empty() {
                Value::Null
            } else {
                serde_yaml::from_str::<Value>(&raw).unwrap_or(Value::String(raw.clone()))
            };
            merged.insert(Value::String(key.clone()), value);
            sources.insert(key, source);
        }

        // Check each overridden key alone against the defaults, so every bad value is reported.
        let defaults: Mapping =
            serde_yaml::from_str(DEFAULT_YAML).expect("default.yaml is a mapping");
        for (key, source) in &sources {
            if *source == Source::Default {
                continue;
            }
            let mut probe = defaults.clone();
            let k = Value::String(key.clone());
            probe.insert(k.clone(), merged[&k].clone());
            if let Err(e) = serde_yaml::from_value::<PipelineConfig>(Value::Mapping(probe)) {
                problems.push(ConfigProblem {
                    key: key.clone(),
                    source: source.clone(),
                    message: tidy(&e, key),
                });
            }
        }
        if !problems.is_empty() {
            return Err(ConfigError::Invalid(problems));
        }
        let config: PipelineConfig =
            serde_yaml::from_value(Value::Mapping(merged)).map_err(|e| {
                ConfigError::Invalid(vec![ConfigProblem {
                    key: "*".into(),
                    source: Source::Default,
                    message: tidy(&e, ""),
                }])
            })?;
        let problems: Vec<ConfigProblem> = config
            .range_problems()
            .into_iter()
            .map(|(key, message)| ConfigProblem {
                source: sources.get(key).cloned().unwrap_or(Source::Default),
                key: key.to_owned(),
                message,
            })
            .collect();
        if problems.is_empty() {
            Ok(config)
        } else {
            Err(ConfigError::Invalid(problems))
        }
    }

    /// Values that parse but make no sense (a threshold above 1, an overlap bigger than the chunk).
    fn range_problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        let unit = |out: &mut Vec<(&'static str, String)>, key: &'static str, v: f32| {
            if !(0.0..=1.0).contains(&v) || v.is_nan() {
                out.push((key, format!("must be between 0.0 and 1.0, got {v}")));
            }
        };
        unit(
            &mut out,
            "skill_match_threshold",
            self.skill_match_threshold,
        );
        unit(&mut out, "confidence_gap", self.confidence_gap);
        unit(&mut out, "planner_sure_margin", self.planner_sure_margin);
        unit(&mut out, "classify_sure_margin", self.classify_sure_margin);
        unit(&mut out, "classify_model_sure", self.classify_model_sure);
        unit(
            &mut out,
            "content_min_similarity",
            self.content_min_similarity,
        );
        unit(&mut out, "hybrid_alpha", self.hybrid_alpha);
        for (key, v) in [
            ("top_k", self.top_k),
            ("max_plan_steps", self.max_plan_steps),
            ("max_context_tokens", self.max_context_tokens),
            ("embedding_dims", self.embedding_dims),
            ("chunk_size", self.chunk_size),
        ] {
            if v == 0 {
                out.push((key, "must be at least 1".to_owned()));
            }
        }
        if self.max_turns == 0 {
            out.push(("max_turns", "must be at least 1".to_owned()));
        }
        if self.chunk_overlap >= self.chunk_size && self.chunk_size > 0 {
            out.push((
                "chunk_overlap",
                format!(
                    "must be smaller than chunk_size ({}), got {}",
                    self.chunk_size, self.chunk_overlap
                ),
            ));
        }
        if let Some(dir) = &self.drop_folder
            && !dir.is_absolute()
        {
            out.push((
                "drop_folder",
                format!("must be an absolute path, not {}", dir.display()),
            ));
        }
        if self.thinker_backend == ThinkerBackend::Mistralrs && self.thinker_model_path.is_none() {
            out.push((
                "thinker_model_path",
                "must be set when thinker_backend is mistralrs".to_owned(),
            ));
        }
        if !self.embedding_backend.is_embedded() && self.embedding_model_path.is_none() {
            out.push((
                "embedding_model_path",
                format!(
                    "must be set when embedding_backend is {}",
                    self.embedding_backend.as_str()
                ),
            ));
        }
        for (key, path) in [
            ("thinker_model_path", &self.thinker_model_path),
            ("embedding_model_path", &self.embedding_model_path),
        ] {
            if let Some(p) = path
                && !p.is_absolute()
            {
                out.push((
                    key,
                    format!("must be an absolute path, got {}", p.display()),
                ));
            }
        }
        out
    }

    /// Where journals, caches and indexes live.
    pub fn state_dir(&self) -> PathBuf {
        self.state_dir
            .clone()
            .or_else(|| dirs::data_local_dir().map(|d| d.join("scope-weaver")))
            .unwrap_or_else(|| PathBuf::from(".scope-weaver"))
    }

    /// The audit database location (a file path or a `postgres://` URL).
    pub fn audit_db(&self) -> String {
        self.audit_db
            .clone()
            .unwrap_or_else(|| self.state_dir().join("audit.sqlite").display().to_string())
    }

    /// The levers as YAML, for `scope-weaver config show`.
    pub fn to_yaml(&self) -> String {
        serde_yaml::to_string(self).expect("config serialises")
    }
}

fn unknown_key(key: &str, source: Source, known: &[String]) -> ConfigProblem {
    let suggestion = contracts::closest(key, known.iter().map(String::as_str))
        .map(|k| format!(" (did you mean `{k}`?)"))
        .unwrap_or_default();
    ConfigProblem {
        key: key.to_owned(),
        source,
        message: format!("unknown setting{suggestion}"),
    }
}

/// serde_yaml prefixes messages with a position inside our probe document, which means nothing to
/// the person: keep only the message.
fn tidy(e: &serde_yaml::Error, key: &str) -> String {
    let text = e.to_string();
    let text = text.split(" at line ").next().unwrap_or(&text);
    let text = text.strip_prefix(&format!("{key}: ")).unwrap_or(text);
    text.replace("unknown variant", "invalid value")
}

#[cfg(test)]
mod tests;
