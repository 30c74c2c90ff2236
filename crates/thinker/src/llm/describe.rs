//! The describing conversation: one tool's summary, example requests and tags, constrained to
//! `description_schema` and checked by `check_description`, with the same bounded repair loop as
//! planning.

use std::time::Instant;

use contracts::SkillDefinition;

use super::{ChatModel, Conversation, LlmLimits, Role, converse};
use crate::describe::{check_description, description_prompt, description_schema};
use crate::{DescribedTool, PlanControl, Result};

/// Describes `skill`'s tool `tool`.
pub(crate) fn describe_with(
    model: &dyn ChatModel,
    name: &str,
    limits: LlmLimits,
    skill: &SkillDefinition,
    tool: &str,
    control: &PlanControl,
) -> Result<DescribedTool> {
    let started = Instant::now();
    let _span =
        tracing::info_span!("llm_describe_tool", model = name, skill = %skill.name, tool).entered();
    let schema = description_schema();
    let (system, user) = description_prompt(skill, tool);
    let accepted = converse(
        model,
        name,
        limits,
        Conversation {
            messages: vec![(Role::System, system), (Role::User, user)],
            schema: &schema,
            noun: "description",
            notes: Vec::new(),
            weighed: false,
        },
        control,
        check_description,
    )?;
    let mut usage = accepted.usage;
    usage.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(DescribedTool {
        description: accepted.value,
        usage,
    })
}
