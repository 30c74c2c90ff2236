//! Workflow skills (seed 003): a SKILL.md whose frontmatter lists `steps:` — a saved plan with
//! `{param}` slots — plus its `parameters`, `preconditions` and `postconditions`. Parsing and
//! checking (`parse`), turning a run's plan into a workflow SKILL.md (`save`), and finding step
//! sequences people repeat (`mine`). Pure: no IO.

mod mine;
mod parse;
mod save;

pub use mine::{WorkflowSuggestion, suggest_workflows};
pub(crate) use parse::{WORKFLOW_KEYS, parse_workflow};
pub use save::{SavedWorkflow, workflow_from_run};
