//! A new skill, however it is asked for (a `skill-create` step in a run, the editor's "New
//! skill", `scope-weaver tool skill-create create`): a model planner drafts its tool declarations,
//! then the folder is written from the template, loaded and indexed. The one place that does it.

use retrieval::RetrievalPipeline;
use serde_json::{Value, json};
use skills::{ScaffoldSpec, SkillStore, ToolDeclaration};
use thinker::{PlanControl, Planner, PlanningContext, ThinkerError, ToolDraftRequest};

use crate::Result;

/// A skill to be created, with the tools the planner drafted for it (empty: the template's
/// example tools stay).
#[derive(Debug, Clone)]
pub struct SkillDraft {
    pub request: ToolDraftRequest,
    pub tools: Vec<ToolDeclaration>,
    /// What a person reviews: the tools, their declarations as they will read in the SKILL.md,
    /// the model's notes and usage, its prompt and answer (`None`: nothing was drafted).
    pub shown: Option<Value>,
    /// Why the planner could not draft tools (the template's example tools are kept).
    pub warning: Option<String>,
}

impl SkillDraft {
    pub fn spec(&self) -> ScaffoldSpec<'_> {
        ScaffoldSpec {
            name: &self.request.name,
            description: &self.request.description,
            tags: &self.request.tags,
            tools: &self.tools,
        }
    }

    /// The drafted declarations as the SKILL.md will read.
    pub fn declarations(&self, store: &SkillStore) -> Vec<String> {
        self.tools.iter().map(|t| t.render(store.table())).collect()
    }
}

/// Asks the planner for `request`'s tools. A rule planner drafts nothing; a model that fails is
/// a warning, not an error. Only cancelling is an error.
pub fn draft_skill(
    planner: &mut dyn Planner,
    cx: &PlanningContext,
    request: ToolDraftRequest,
    control: &PlanControl,
) -> std::result::Result<SkillDraft, ThinkerError> {
    let mut draft = SkillDraft {
        request,
        tools: Vec::new(),
        shown: None,
        warning: None,
    };
    match planner.draft_tools(&draft.request, cx, control) {
        Ok(Some(drafted)) => {
            let declarations: Vec<String> = drafted
                .tools
                .iter()
                .map(|t| t.render(cx.skills.table()))
                .collect();
            draft.shown = Some(json!({
                "tools": drafted.tools,
                "declarations": declarations,
                "usage": drafted.usage,
                "notes": drafted.notes,
                "prompt": drafted.prompt,
                "response": drafted.response,
            }));
            draft.tools = drafted.tools;
        }
        Ok(None) => {}
        Err(ThinkerError::Cancelled) => return Err(ThinkerError::Cancelled),
        Err(e) => {
            draft.warning = Some(format!(
                "the planner could not draft tools for `{}` ({e}); the template's example tools \
                 are kept",
                draft.request.name
            ));
        }
    }
    Ok(draft)
}

/// Writes the skill folder from the template (it must load, or nothing is written), loads it
/// and indexes it. Returns the skill's name and how many documents were embedded.
pub fn create_skill(
    store: &mut SkillStore,
    retrieval: &mut RetrievalPipeline,
    draft: &SkillDraft,
) -> Result<(String, usize)> {
    let created = store.scaffold_with(&draft.spec())?;
    let documents = retrieval.hot_reload(store, &created)?;
    Ok((created, documents))
}
