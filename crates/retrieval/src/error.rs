//! The retrieval crate's error type; every variant carries a stable code for the UI.

use std::path::PathBuf;

use contracts::ErrorCode;

#[derive(Debug, thiserror::Error)]
pub enum RetrievalError {
    #[error("model directory {path} does not exist (models load only from local folders)")]
    ModelMissing { path: PathBuf },
    #[error("{path}: {message}")]
    ModelFile { path: PathBuf, message: String },
    #[error("embedding model failed: {0}")]
    Embedding(String),
    #[error("{0}")]
    Config(String),
    #[error("vector index {path}: {message}")]
    Index { path: PathBuf, message: String },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "Content index out of date for {count} nodes ({sample}); block_on_stale is set, so the \
         search was halted. Commit or re-index first."
    )]
    Stale { count: usize, sample: String },
    #[error("no skill named `{0}` is loaded")]
    UnknownSkill(String),
    #[error("watching {path}: {message}")]
    Watch { path: PathBuf, message: String },
    #[error("invalid parameters: {0}")]
    Params(String),
    /// The model reading a file for an `llm` task failed (its code, e.g. `GENERATION_FAILED`).
    #[error("{message}")]
    Reading { code: &'static str, message: String },
    #[error(transparent)]
    Sandbox(#[from] sandbox::SandboxError),
}

impl ErrorCode for RetrievalError {
    fn code(&self) -> &'static str {
        match self {
            RetrievalError::ModelMissing { .. } => "MODEL_NOT_FOUND",
            RetrievalError::ModelFile { .. } => "MODEL_INVALID",
            RetrievalError::Embedding(_) => "EMBEDDING_FAILED",
            RetrievalError::Config(_) => "CONFIG_INVALID",
            RetrievalError::Index { .. } => "INDEX_ERROR",
            RetrievalError::Io { .. } => "IO_ERROR",
            RetrievalError::Stale { .. } => "STALE_CONTENT_INDEX",
            RetrievalError::UnknownSkill(_) => "UNKNOWN_SKILL",
            RetrievalError::Watch { .. } => "WATCH_FAILED",
            RetrievalError::Params(_) => "INVALID_PARAMS",
            RetrievalError::Reading { code, .. } => code,
            RetrievalError::Sandbox(e) => e.code(),
        }
    }
}

pub type Result<T, E = RetrievalError> = std::result::Result<T, E>;

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> RetrievalError {
    let path = path.into();
    move |source| RetrievalError::Io { path, source }
}
