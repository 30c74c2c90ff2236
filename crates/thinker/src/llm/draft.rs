//! The drafting conversation of skill-create: the primitive operations in the prompt, the answer
//! constrained to `tool_draft_schema`, and the same bounded repair loop as planning, fed with the
//! problems of the SKILL.md the draft would make.

use std::time::Instant;

use super::{ChatModel, Conversation, LlmLimits, Role, converse};
use crate::draft::{check_draft, draft_prompt, tool_draft_schema};
use crate::{DraftedTools, PlanControl, PlanningContext, Result, ToolDraftRequest};

/// Drafts `request`'s tools; `None` when no skill can be made under that name (an invalid or
/// taken name, no template), which the scaffold itself then reports.
pub(crate) fn draft_with(
    model: &dyn ChatModel,
    name: &str,
    limits: LlmLimits,
    request: &ToolDraftRequest,
    cx: &PlanningContext,
    control: &PlanControl,
) -> Result<Option<DraftedTools>> {
    let started = Instant::now();
    let _span =
        tracing::info_span!("llm_draft_tools", model = name, skill = %request.name).entered();
    let bare = skills::ScaffoldSpec {
        name: &request.name,
        description: &request.description,
        tags: &request.tags,
        tools: &[],
    };
    if cx.skills.get(&request.name).is_some() || cx.skills.scaffold_preview(&bare).is_err() {
        return Ok(None);
    }
    let table = cx.skills.table();
    let schema = tool_draft_schema(table);
    let (system, user) = draft_prompt(request, table);
    let prompt_text = format!("{system}\n\n{user}");
    let accepted = converse(
        model,
        name,
        limits,
        Conversation {
            messages: vec![(Role::System, system), (Role::User, user)],
            schema: &schema,
            noun: "tool list",
            notes: Vec::new(),
            weighed: false,
        },
        control,
        |text| check_draft(text, request, cx.skills),
    )?;
    let mut usage = accepted.usage;
    usage.latency_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(Some(DraftedTools {
        tools: accepted.value,
        notes: accepted.notes,
        usage,
        prompt: Some(prompt_text),
        response: Some(accepted.text),
    }))
}
