//! The engine's errors: each has a stable code; windows get `{code, message}` (`ErrorPayload`).

use contracts::{ErrorCode, ErrorPayload};

#[derive(Debug, thiserror::Error)]
pub enum EngineError {
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
    #[error("skill `{skill}` has no tool `{tool}`; it has: {has}")]
    UnknownTool {
        skill: String,
        tool: String,
        has: String,
    },
    /// A tool called with parameters it lacks or does not take (every problem in the message).
    #[error("{0}")]
    InvalidParams(String),
    /// A given plan (a task file's) that does not fit the loaded skills: every problem.
    #[error("the plan cannot run: {0}")]
    InvalidPlan(String),
    #[error("cannot write {path}: {message}")]
    Write { path: String, message: String },
    /// An error from a crate below (sandbox, pipeline, skills, …), with its own code.
    #[error("{message}")]
    Coded { code: String, message: String },
}

impl ErrorCode for EngineError {
    fn code(&self) -> &'static str {
        match self {
            EngineError::Busy => "RUN_BUSY",
            EngineError::NoRoot => "ROOT_MISSING",
            EngineError::BadRoot { .. } => "ROOT_INVALID",
            EngineError::UnknownQuestion(_) => "UNKNOWN_QUESTION",
            EngineError::InvalidAnswer(_) => "INVALID_ANSWER",
            EngineError::NotAtReview => "NOT_AT_REVIEW",
            EngineError::UnknownSkill(_) => "UNKNOWN_SKILL",
            EngineError::UnknownTool { .. } => "UNKNOWN_TOOL",
            EngineError::InvalidParams(_) => "INVALID_PARAMS",
            EngineError::InvalidPlan(_) => "INVALID_PLAN",
            EngineError::Write { .. } => "WRITE_FAILED",
            // Errors from below keep their own code; see `payload`.
            EngineError::Coded { .. } => "ENGINE_ERROR",
        }
    }
}

impl EngineError {
    /// What a window receives.
    pub fn payload(&self) -> ErrorPayload {
        match self {
            EngineError::Coded { code, message } => ErrorPayload::new(code, message),
            other => ErrorPayload::new(other.code(), other.to_string()),
        }
    }

    /// Wraps a lower crate's error, keeping its code.
    pub fn coded(e: &impl ErrorCode) -> Self {
        EngineError::Coded {
            code: e.code().to_owned(),
            message: e.to_string(),
        }
    }
}

impl serde::Serialize for EngineError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.payload().serialize(s)
    }
}

macro_rules! from_coded {
    ($($t:ty),*) => {$(
        impl From<$t> for EngineError {
            fn from(e: $t) -> Self {
                EngineError::coded(&e)
            }
        }
    )*};
}
from_coded!(
    pipeline::PipelineError,
    sandbox::SandboxError,
    retrieval::RetrievalError,
    skills::SkillError,
    thinker::ThinkerError,
    audit::AuditError,
    config::ConfigError
);

pub type Result<T, E = EngineError> = std::result::Result<T, E>;
