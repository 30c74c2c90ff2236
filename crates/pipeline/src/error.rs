//! The orchestrator's error type: what stops a run as a whole (a failed step does not).

use contracts::ErrorCode;
use thinker::PlanProblem;

#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    #[error("the plan is not valid: {}", thinker::render_problems(.0))]
    InvalidPlan(Vec<PlanProblem>),
    #[error("nothing to do: the request produced no steps")]
    NothingToDo,
    #[error("the run was cancelled")]
    Cancelled,
    #[error("the audit log could not record the run, so nothing was committed: {}", .0.message)]
    Audit(contracts::ErrorPayload),
    #[error("no committed run to undo")]
    NothingToUndo,
    #[error("no committed run `{0}`")]
    RunNotFound(String),
    #[error("`{id}` names {} runs: {}", .runs.len(), .runs.join(", "))]
    RunAmbiguous { id: String, runs: Vec<String> },
    #[error("run {run} was already undone by {by}; undoing {by} redoes it")]
    RunAlreadyUndone { run: String, by: String },
    #[error("the workflow `{workflow}` cannot run here: {}", .failed.join("; "))]
    PreconditionFailed {
        workflow: String,
        failed: Vec<String>,
    },
    #[error(transparent)]
    Thinker(#[from] thinker::ThinkerError),
    #[error(transparent)]
    Retrieval(#[from] retrieval::RetrievalError),
    #[error(transparent)]
    Sandbox(#[from] sandbox::SandboxError),
    #[error(transparent)]
    Skill(#[from] skills::SkillError),
}

impl ErrorCode for PipelineError {
    fn code(&self) -> &'static str {
        match self {
            PipelineError::InvalidPlan(_) => "PLAN_INVALID",
            PipelineError::NothingToDo => "NOTHING_TO_DO",
            PipelineError::Cancelled => "CANCELLED",
            PipelineError::NothingToUndo => "NOTHING_TO_UNDO",
            PipelineError::RunNotFound(_) => "RUN_NOT_FOUND",
            PipelineError::RunAmbiguous { .. } => "RUN_AMBIGUOUS",
            PipelineError::RunAlreadyUndone { .. } => "RUN_ALREADY_UNDONE",
            PipelineError::PreconditionFailed { .. } => "PRECONDITION_FAILED",
            PipelineError::Audit(p) => match p.code.as_str() {
                "AUDIT_LOCKED" => "AUDIT_LOCKED",
                "AUDIT_DISK_FULL" => "AUDIT_DISK_FULL",
                _ => "AUDIT_UNAVAILABLE",
            },
            PipelineError::Thinker(e) => e.code(),
            PipelineError::Retrieval(e) => e.code(),
            PipelineError::Sandbox(e) => e.code(),
            PipelineError::Skill(e) => e.code(),
        }
    }
}

pub type Result<T, E = PipelineError> = std::result::Result<T, E>;
