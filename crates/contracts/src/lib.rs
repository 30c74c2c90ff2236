//! Contracts: the typed boundary between pipeline stages (plans, primitives, skills, results, references).
//!
//! Nothing here does IO. Every other engine crate depends on this one; it depends on no engine crate.

mod cpu;
mod error;
mod execution;
pub mod file_kinds;
mod learned;
mod plan;
mod planning;
mod primitive;
mod reference;
mod skill;
mod suggest;
mod workflow;

pub use cpu::{cpu_mismatch_message, missing_cpu_features};
pub use error::{ErrorCode, ErrorPayload};
pub use execution::{ExecutionResult, PipelineContext, StepStatus, ValidationResult};
pub use learned::LearnedChoice;
pub use plan::{Plan, PlanStep, ToolCall};
pub use planning::{
    ActsOn, REQUEST_SLOTS, ToolPlanning, WordRule, strip_placeholders, trigger_placeholders,
};
pub use primitive::{
    GraphPrimitive, LlmPrimitive, ParamSpec, ParamType, Primitive, PrimitiveKind, PrimitiveSpec,
    PrimitiveTable, RetrievalPrimitive, SkillPrimitive,
};
pub use reference::{PathSegment, Reference, ReferenceError, find_references};
pub use skill::{SkillDefinition, ToolDefinition, ToolDescription, triggers_for_tool};
pub use suggest::{closest, edit_distance};
pub use workflow::{
    Condition, ConditionCheck, ConditionOutcome, ExecutedRun, Workflow, WorkflowParameter,
    WorkflowStep, WorkflowUse, fill_slots,
};
