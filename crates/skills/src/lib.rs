//! Skills: the SKILL.md format (frontmatter + tool declarations in long or compact form), file:line
//! diagnostics that list every problem, and the `SkillStore` that loads a directory of skill folders.
//!
//! Parsing is pure; the store reads files. Tools are validated against the engine's primitive table
//! (graph methods from the sandbox, plus the retrieval and skill primitives declared here).

mod descriptions;
mod diagnostic;
mod guidance;
mod parser;
mod planning;
mod resolve;
mod scaffold;
mod store;
mod workflow;

use contracts::{ParamSpec, ParamType, PrimitiveKind, PrimitiveSpec, PrimitiveTable};

pub use descriptions::{
    DERIVED, DESCRIPTIONS_FILE, DescriptionOrigin, DescriptionsFile, MAX_EXAMPLES, MAX_TAGS,
    derive_descriptions, fill_trigger, read_descriptions, skill_md_digest, write_descriptions,
};
pub use diagnostic::{Diagnostic, Severity};
pub use guidance::{GuidanceExample, PLANNER_GUIDANCE, guidance_examples, section};
pub use parser::{CHUNK_STRATEGIES, SkillDraft, ToolDraft, parse_skill_md};
pub use planning::PLANNING_KEYS;
pub use resolve::resolve;
pub use scaffold::{ScaffoldSpec, ToolDeclaration, scaffold_skill_md, scaffold_vis};
pub use workflow::{SavedWorkflow, WorkflowSuggestion, suggest_workflows, workflow_from_run};

/// Parses and checks one SKILL.md text: the definition if it has no errors, and every diagnostic in
/// line order. Pure; used by the store and by the editor's live diagnostics.
pub fn check_skill_md(
    text: &str,
    file: &std::path::Path,
    table: &PrimitiveTable,
) -> (Option<contracts::SkillDefinition>, Vec<Diagnostic>) {
    let (draft, mut diags) = parse_skill_md(text, file);
    let mut def = None;
    if let Some(draft) = draft {
        let (d, more) = resolve(&draft, table, file);
        diags.extend(more);
        def = d.filter(|_| !diags.iter().any(Diagnostic::is_error));
    }
    diags.sort_by_key(|d| d.line);
    (def, diags)
}
pub use store::{
    LoadedSkill, ReloadOutcome, SKILL_FILE, SkillError, SkillStore, TEMPLATE_DIR, load_folder,
};

/// Retrieval query types (dispatched by the retrieval pipeline). They never mutate.
pub fn retrieval_primitive_table() -> PrimitiveTable {
    let top_k = || {
        ParamSpec::new(
            "top_k",
            ParamType::Int,
            "how many results (default: config top_k)",
        )
    };
    PrimitiveTable::new(vec![
        PrimitiveSpec::new(
            PrimitiveKind::Retrieval,
            "content_search",
            false,
            vec![ParamSpec::new(
                "query",
                ParamType::Str,
                "what the files should be about",
            )],
            vec![
                ParamSpec::new("path", ParamType::Path, "search only below this folder"),
                top_k(),
            ],
            "Hits",
            "Semantic + keyword search over file contents (ContentIndex).",
        ),
        PrimitiveSpec::new(
            PrimitiveKind::Retrieval,
            "skill_match",
            false,
            vec![ParamSpec::new(
                "query",
                ParamType::Str,
                "what the person wants to do",
            )],
            vec![top_k()],
            "SkillHits",
            "Find skills and tools by description (SkillIndex).",
        ),
    ])
}

/// Operations on the skill store itself.
pub fn skill_primitive_table() -> PrimitiveTable {
    PrimitiveTable::new(vec![PrimitiveSpec::new(
        PrimitiveKind::Skill,
        "scaffold_skill",
        true,
        vec![
            ParamSpec::new(
                "name",
                ParamType::Str,
                "new skill name: lowercase letters, digits, hyphens",
            ),
            ParamSpec::new(
                "description",
                ParamType::Str,
                "what the skill does (embedded for retrieval)",
            ),
        ],
        vec![ParamSpec::new(
            "tags",
            ParamType::Str,
            "comma-separated tags",
        )],
        "Created",
        "Create a new skill folder from skill_template.",
    )])
}

/// The `llm` primitive's tasks: reading files for what they are about. With a model configured
/// the Thinker does them; without one, the shared embedder (`classify` only).
pub fn llm_primitive_table() -> PrimitiveTable {
    PrimitiveTable::new(vec![
        PrimitiveSpec::new(
            PrimitiveKind::Llm,
            "classify",
            false,
            vec![ParamSpec::new(
                "path",
                ParamType::Path,
                "the folder whose files are sorted",
            )],
            vec![
                ParamSpec::new(
                    "categories",
                    ParamType::Any,
                    "the categories: names (\"Invoices, Recipes and Meeting notes\"), a list, or \
                 {name: description}; default: the folder's .scope-weaver.md, else its folders",
                ),
                ParamSpec::new(
                    "extension",
                    ParamType::Str,
                    "only files with these extensions",
                ),
                ParamSpec::new(
                    "min_confidence",
                    ParamType::Any,
                    "how far the closest category must lead the next (default: classify_sure_margin)",
                ),
            ],
            "Assignments",
            "Decide which category each file of a folder belongs in, by what it is about; files it \
         is unsure of are asked about.",
        ),
        PrimitiveSpec::new(
            PrimitiveKind::Llm,
            "suggest_names",
            false,
            vec![ParamSpec::new(
                "path",
                ParamType::Path,
                "the folder whose files are named",
            )],
            vec![
                ParamSpec::new(
                    "pattern",
                    ParamType::Str,
                    "the name to make: {title} {date} {date:%Y-%m} {author} {camera} {name} \
                 (default \"{date} {title}\"); the extension is kept",
                ),
                ParamSpec::new(
                    "extension",
                    ParamType::Str,
                    "only files with these extensions",
                ),
            ],
            "Names",
            "A descriptive name for each file of a folder from its content: its title, date, \
         author or camera; files with nothing to go by keep their names.",
        ),
        PrimitiveSpec::new(
            PrimitiveKind::Llm,
            "summarize",
            false,
            vec![ParamSpec::new(
                "path",
                ParamType::Path,
                "a file, or a folder whose documents are summarized one line each",
            )],
            vec![ParamSpec::new(
                "sentences",
                ParamType::Int,
                "how many sentences for a file (default 3)",
            )],
            "Summary",
            "What a file or a folder's documents are about, in a few sentences.",
        ),
    ])
}

/// The whole engine's table: the sandbox's graph methods plus retrieval, skill and llm primitives.
pub fn engine_primitive_table(graph: PrimitiveTable) -> PrimitiveTable {
    graph
        .merged(retrieval_primitive_table())
        .merged(skill_primitive_table())
        .merged(llm_primitive_table())
}
