//! The thinker's error type; every variant carries a stable code for the UI.

use std::path::PathBuf;

use contracts::ErrorCode;

use crate::validate::PlanProblem;

#[derive(Debug, thiserror::Error)]
pub enum ThinkerError {
    #[error("the plan is not valid: {}", render_problems(.0))]
    InvalidPlan(Vec<PlanProblem>),
    #[error("the planner's output was still invalid after {attempts} attempt(s): {last}")]
    InvalidOutput { attempts: u32, last: String },
    #[error("planner model {path} does not exist (models load only from local files and folders)")]
    ModelMissing { path: PathBuf },
    #[error("{path}: {message}")]
    ModelInvalid { path: PathBuf, message: String },
    #[error(
        "thinker_model_path is not set; thinker_backend: mistralrs needs an absolute path to a GGUF file or a safetensors folder"
    )]
    ModelNotConfigured,
    #[error("this build has no LLM planner (built without the `mistralrs` feature)")]
    Unavailable,
    #[error("the planner model failed: {0}")]
    Generation(String),
    #[error("resource limit reached: {0}")]
    ResourceExhausted(String),
    #[error("planning was cancelled")]
    Cancelled,
    #[error(transparent)]
    Retrieval(#[from] retrieval::RetrievalError),
}

pub fn render_problems(problems: &[PlanProblem]) -> String {
    problems
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

impl ErrorCode for ThinkerError {
    fn code(&self) -> &'static str {
        match self {
            ThinkerError::InvalidPlan(_) => "PLAN_INVALID",
            ThinkerError::InvalidOutput { .. } => "PLANNER_INVALID_OUTPUT",
            ThinkerError::ModelMissing { .. } => "MODEL_NOT_FOUND",
            ThinkerError::ModelInvalid { .. } => "MODEL_INVALID",
            ThinkerError::ModelNotConfigured => "MODEL_NOT_CONFIGURED",
            ThinkerError::Unavailable => "PLANNER_UNAVAILABLE",
            ThinkerError::Generation(_) => "GENERATION_FAILED",
            ThinkerError::ResourceExhausted(_) => "RESOURCE_EXHAUSTED",
            ThinkerError::Cancelled => "CANCELLED",
            ThinkerError::Retrieval(e) => e.code(),
        }
    }
}

pub type Result<T, E = ThinkerError> = std::result::Result<T, E>;
