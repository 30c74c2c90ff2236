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
