//! The session's errors: each has a stable code; windows get `{code, message}` (`ErrorPayload`).

use contracts::{ErrorCode, ErrorPayload};

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("a request is already running; wait for it or cancel it")]
    Busy,
    #[error("no working folder is set; choose one in Settings")]
    NoRoot,
    #[error("`{path}` is not a folder that can be opened: {message}")]
    BadRoot { path: String, message: String },
    #[error("no question {0} is waiting for an answer")]
    UnknownQuestion(u64),
    #[error("that answer does not fit the question: {0}")]
    InvalidAnswer(String),
    #[error("rollback points can be used only while the final diff review is open")]
    NotAtReview,
    #[error("no skill named `{0}`")]
    UnknownSkill(String),
    #[error("cannot write {path}: {message}")]
    Write { path: String, message: String },
    #[error("{message}")]
    Engine { code: String, message: String },
}

impl ErrorCode for SessionError {
    fn code(&self) -> &'static str {
        match self {
            SessionError::Busy => "RUN_BUSY",
            SessionError::NoRoot => "ROOT_MISSING",
            SessionError::BadRoot { .. } => "ROOT_INVALID",
            SessionError::UnknownQuestion(_) => "UNKNOWN_QUESTION",
            SessionError::InvalidAnswer(_) => "INVALID_ANSWER",
            SessionError::NotAtReview => "NOT_AT_REVIEW",
            SessionError::UnknownSkill(_) => "UNKNOWN_SKILL",
            SessionError::Write { .. } => "WRITE_FAILED",
            // Engine errors keep their own code; see `payload`.
            SessionError::Engine { .. } => "ENGINE_ERROR",
        }
    }
}

impl SessionError {
    /// What a window receives.
    pub fn payload(&self) -> ErrorPayload {
        match self {
            SessionError::Engine { code, message } => ErrorPayload::new(code, message),
            other => ErrorPayload::new(other.code(), other.to_string()),
        }
    }

    /// Wraps an engine crate's error, keeping its code.
    pub fn engine(e: &impl ErrorCode) -> Self {
        SessionError::Engine {
            code: e.code().to_owned(),
            message: e.to_string(),
        }
    }
}

impl serde::Serialize for SessionError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.payload().serialize(s)
    }
}

macro_rules! from_engine {
    ($($t:ty),*) => {$(
        impl From<$t> for SessionError {
            fn from(e: $t) -> Self {
                SessionError::engine(&e)
            }
        }
    )*};
}
from_engine!(
    pipeline::PipelineError,
    sandbox::SandboxError,
    retrieval::RetrievalError,
    skills::SkillError,
    thinker::ThinkerError,
    audit::AuditError,
    config::ConfigError
);

pub type Result<T, E = SessionError> = std::result::Result<T, E>;
