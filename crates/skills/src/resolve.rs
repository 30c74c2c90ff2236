//! Checking a parsed SKILL.md against the primitive table and turning it into a `SkillDefinition`.

use std::collections::BTreeMap;
use std::path::Path;

use contracts::{
    GraphPrimitive, LlmPrimitive, Primitive, PrimitiveKind, PrimitiveTable, RetrievalPrimitive,
    SkillDefinition, SkillPrimitive, ToolDefinition,
};

use crate::diagnostic::Diagnostic;
use crate::parser::{SkillDraft, ToolDraft};

fn tool(
    t: &ToolDraft,
    table: &PrimitiveTable,
    file: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Option<ToolDefinition> {
    let name = &t.name;
    let Some(spec) = table.get(t.kind, &t.operation) else {
        let known = table.names(t.kind);
        let hint = contracts::closest(&t.operation, known.iter().copied())
            .map(|c| format!("did you mean `{c}`? "))
            .unwrap_or_default();
        diags.push(Diagnostic::error(
            file,
            t.line,
            "UNKNOWN_METHOD",
            format!(
                "tool `{name}`: {} `{}` does not exist; {hint}known: {}",
                match t.kind {
                    PrimitiveKind::Graph => "graph method",
                    PrimitiveKind::Retrieval => "retrieval query type",
                    PrimitiveKind::Skill => "skill operation",
                    PrimitiveKind::Llm => "llm task",
                },
                t.operation,
                if known.is_empty() {
                    "none yet".to_owned()
                } else {
                    known.join(", ")
                }
            ),
        ));
        return None;
    };
    let before = diags.len();
    if let Some(m) = t.mutates
        && m != spec.mutates
    {
        let why = if spec.mutates {
            format!(
                "`{}` changes files, so approval in `key` mode depends on it",
                spec.name
            )
        } else {
            format!("`{}` never changes anything", spec.name)
        };
        diags.push(Diagnostic::error(
            file,
            t.line,
            "MUTATES_MISMATCH",
            format!("tool `{name}`: declares `mutates: {m}` but {why}"),
        ));
    }
    if t.kind == PrimitiveKind::Graph && t.scope_enforced == Some(false) {
        diags.push(Diagnostic::warning(
            file,
            t.line,
            "SCOPE_ALWAYS_ENFORCED",
            format!("tool `{name}`: graph primitives are always confined to the working root; `scope_enforced: false` has no effect"),
        ));
    }
    let accepted: Vec<&str> = spec
        .required
        .iter()
        .chain(&spec.optional)
        .map(|p| p.name.as_str())
        .collect();
    for p in t.required.iter().chain(&t.optional) {
        if spec.param(p).is_none() {
            let hint = contracts::closest(p, accepted.iter().copied())
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            diags.push(Diagnostic::error(
                file,
                t.line,
                "UNKNOWN_PARAM",
                format!(
                    "tool `{name}`: `{}` does not take `{p}`{hint}; it accepts: {}",
                    spec.name,
                    accepted.join(", ")
                ),
            ));
        }
    }
    for p in &spec.required {
        if !t.required.contains(&p.name) {
            diags.push(Diagnostic::error(
                file,
                t.line,
                "MISSING_REQUIRED_PARAM",
                format!(
                    "tool `{name}`: `{}` requires `{}`; list it under required",
                    spec.name, p.name
                ),
            ));
        }
    }
    for p in &t.required {
        if t.optional.contains(p) {
            diags.push(Diagnostic::warning(
                file,
                t.line,
                "PARAM_TWICE",
                format!("tool `{name}`: `{p}` is both required and optional"),
            ));
        }
    }
    let planning = crate::planning::planning(t, spec, file, diags);
    if diags[before..].iter().any(Diagnostic::is_error) {
        return None;
    }
    let return_type = t
        .return_type
        .clone()
        .unwrap_or_else(|| spec.return_type.clone());
    let optional: Vec<String> = t
        .optional
        .iter()
        .filter(|p| !t.required.contains(p))
        .cloned()
        .collect();
    let signature =
        t.signature.clone().unwrap_or_else(|| {
            let params: Vec<String> =
                t.required
                    .iter()
                    .map(|p| format!("{p}: {}", spec.param(p).map_or("any", |s| s.ty.as_str())))
                    .chain(optional.iter().map(|p| {
                        format!("{p}?: {}", spec.param(p).map_or("any", |s| s.ty.as_str()))
                    }))
                    .collect();
            format!(
                "{}.{}({}) -> {return_type}",
                t.kind,
                spec.name,
                params.join(", ")
            )
        });
    let primitive = match t.kind {
        PrimitiveKind::Graph => Primitive::Graph(GraphPrimitive {
            method: spec.name.clone(),
            mutates: spec.mutates,
            scope_enforced: true,
            return_type: return_type.clone(),
        }),
        PrimitiveKind::Retrieval => Primitive::Retrieval(RetrievalPrimitive {
            query_type: spec.name.clone(),
            scope_enforced: t.scope_enforced.unwrap_or(true),
            return_type: return_type.clone(),
        }),
        PrimitiveKind::Skill => Primitive::Skill(SkillPrimitive {
            operation: spec.name.clone(),
            mutates: spec.mutates,
            return_type: return_type.clone(),
        }),
        PrimitiveKind::Llm => Primitive::Llm(LlmPrimitive {
            task: spec.name.clone(),
            return_type: return_type.clone(),
        }),
    };
    Some(ToolDefinition {
        name: name.clone(),
        description: t.summary.clone(),
        primitive,
        signature,
        required_params: t.required.clone(),
        optional_params: optional,
        return_type,
        planning,
        described: None,
    })
}

/// Checks a draft against the table. `None` when any error was found (all are reported).
pub fn resolve(
    draft: &SkillDraft,
    table: &PrimitiveTable,
    file: &Path,
) -> (Option<SkillDefinition>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut tools = BTreeMap::new();
    for t in &draft.tools {
        if let Some(def) = tool(t, table, file, &mut diags) {
            tools.insert(def.name.clone(), def);
        }
    }
    check_takes_from(draft, &tools, file, &mut diags);
    check_previews(draft, &tools, file, &mut diags);
    let is_workflow = draft.key_lines.iter().any(|(k, _)| k == "steps");
    if let (true, Some(first)) = (is_workflow, draft.tools.first()) {
        diags.push(Diagnostic::error(
            file,
            first.line,
            "WORKFLOW_WITH_TOOLS",
            "a workflow (a skill with `steps:`) runs other skills' tools and declares none of its own; move this tool to a skill of its own",
        ));
    }
    let uses_retrieval = draft
        .tools
        .iter()
        .any(|t| t.kind == PrimitiveKind::Retrieval);
    if let Some(declared) = draft.uses_retrieval
        && declared != uses_retrieval
    {
        diags.push(Diagnostic::warning(
            file,
            draft.line_of("uses_retrieval"),
            "USES_RETRIEVAL_MISMATCH",
            format!(
                "`uses_retrieval: {declared}` but {} tool uses a retrieval primitive; using {uses_retrieval}",
                if uses_retrieval { "a" } else { "no" }
            ),
        ));
    }
    if diags.iter().any(Diagnostic::is_error) {
        return (None, diags);
    }
    let version = draft.version.clone().unwrap_or_else(|| "1.0".to_owned());
    let major = version.split('.').next().unwrap_or("1").to_owned();
    let def = SkillDefinition {
        id: draft
            .id
            .clone()
            .unwrap_or_else(|| format!("skill-{}-v{major}", draft.name)),
        name: draft.name.clone(),
        version,
        description: draft.description.clone(),
        tags: draft.tags.clone(),
        uses_retrieval,
        tools,
        kb_chunk_strategy: draft.kb_chunk_strategy.clone(),
        kb_chunk_size: draft.kb_chunk_size,
        triggers: draft.triggers.clone(),
        topic: draft.topic.iter().map(|w| w.to_lowercase()).collect(),
        instructions: draft.instructions.clone(),
        workflow: draft.workflow.clone(),
    };
    (Some(def), diags)
}

/// `previews` is said by a read-only tool and names a sibling tool of the same skill that
/// changes files.
fn check_previews(
    draft: &SkillDraft,
    tools: &BTreeMap<String, ToolDefinition>,
    file: &Path,
    diags: &mut Vec<Diagnostic>,
) {
    for t in tools.values() {
        let Some(sibling) = &t.planning.previews else {
            continue;
        };
        let line = draft
            .tools
            .iter()
            .find(|d| d.name == t.name)
            .and_then(|d| d.planning.iter().find(|(k, _, _)| k == "previews"))
            .map_or(0, |(_, _, l)| *l);
        let problem = match tools.get(sibling) {
            _ if t.mutates() => Some("a tool that changes files previews nothing".to_owned()),
            None if draft.tools.iter().any(|d| d.name == *sibling) => None,
            None => Some(format!(
                "no tool `{sibling}` in this skill; it has: {}",
                tools.keys().cloned().collect::<Vec<_>>().join(", ")
            )),
            Some(s) if !s.mutates() => Some(format!(
                "`{sibling}` changes nothing, so there is nothing to preview"
            )),
            Some(_) => None,
        };
        if let Some(p) = problem {
            diags.push(Diagnostic::error(
                file,
                line,
                "BAD_PLANNING_KEY",
                format!("tool `{}`: `previews`: {p}", t.name),
            ));
        }
    }
}

/// `takes_from` names a read-only sibling tool of the same skill.
fn check_takes_from(
    draft: &SkillDraft,
    tools: &BTreeMap<String, ToolDefinition>,
    file: &Path,
    diags: &mut Vec<Diagnostic>,
) {
    for t in tools.values() {
        let line = draft
            .tools
            .iter()
            .find(|d| d.name == t.name)
            .and_then(|d| d.planning.iter().find(|(k, _, _)| k == "takes_from"))
            .map_or(0, |(_, _, l)| *l);
        for (param, from) in &t.planning.takes_from {
            let sibling = from.split_once('.').map_or(from.as_str(), |(s, _)| s);
            let declared = draft.tools.iter().any(|d| d.name == sibling);
            let problem = match tools.get(sibling) {
                // A sibling with errors of its own is already reported.
                None if declared => None,
                None => Some(format!(
                    "no tool `{sibling}` in this skill; it has: {}",
                    tools.keys().cloned().collect::<Vec<_>>().join(", ")
                )),
                Some(s) if s.mutates() => Some(format!(
                    "`{sibling}` changes files; a step can only be fed by a read-only tool"
                )),
                Some(_) if sibling == t.name => Some("a tool cannot feed itself".to_owned()),
                Some(_) => None,
            };
            if let Some(p) = problem {
                diags.push(Diagnostic::error(
                    file,
                    line,
                    "BAD_PLANNING_KEY",
                    format!("tool `{}`: `takes_from` for `{param}`: {p}", t.name),
                ));
            }
        }
    }
}
