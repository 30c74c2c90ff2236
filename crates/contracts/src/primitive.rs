//! The primitive type system: every tool invokes exactly one primitive, and the table says which exist.

use serde::{Deserialize, Serialize};

/// The family a primitive belongs to; decides which dispatcher runs it.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Serialize,
    Deserialize,
    schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum PrimitiveKind {
    /// A method of the sandbox's file-system graph.
    Graph,
    /// A query against a vector/keyword index. Never mutates.
    Retrieval,
    /// An operation on the skill store itself (scaffolding a new skill).
    Skill,
    /// Reserved: a direct call to the thinker model (summaries, classification). Never mutates.
    Llm,
}

impl PrimitiveKind {
    pub const ALL: [PrimitiveKind; 4] = [
        PrimitiveKind::Graph,
        PrimitiveKind::Retrieval,
        PrimitiveKind::Skill,
        PrimitiveKind::Llm,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            PrimitiveKind::Graph => "graph",
            PrimitiveKind::Retrieval => "retrieval",
            PrimitiveKind::Skill => "skill",
            PrimitiveKind::Llm => "llm",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// The declaration key naming the operation for this family (`method`, `query_type`, ...).
    pub fn operation_key(self) -> &'static str {
        match self {
            PrimitiveKind::Graph => "method",
            PrimitiveKind::Retrieval => "query_type",
            PrimitiveKind::Skill => "operation",
            PrimitiveKind::Llm => "task",
        }
    }
}

impl std::fmt::Display for PrimitiveKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct GraphPrimitive {
    /// Name of the `FileSystemGraph` method to call.
    pub method: String,
    pub mutates: bool,
    pub scope_enforced: bool,
    pub return_type: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RetrievalPrimitive {
    /// `skill_match` | `content_search`.
    pub query_type: String,
    pub scope_enforced: bool,
    pub return_type: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct SkillPrimitive {
    pub operation: String,
    pub mutates: bool,
    pub return_type: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct LlmPrimitive {
    pub task: String,
    pub return_type: String,
}

/// The one primitive a tool invokes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "primitive_type", rename_all = "snake_case")]
pub enum Primitive {
    Graph(GraphPrimitive),
    Retrieval(RetrievalPrimitive),
    Skill(SkillPrimitive),
    Llm(LlmPrimitive),
}

impl Primitive {
    pub fn kind(&self) -> PrimitiveKind {
        match self {
            Primitive::Graph(_) => PrimitiveKind::Graph,
            Primitive::Retrieval(_) => PrimitiveKind::Retrieval,
            Primitive::Skill(_) => PrimitiveKind::Skill,
            Primitive::Llm(_) => PrimitiveKind::Llm,
        }
    }

    /// The method / query type / operation / task name.
    pub fn operation(&self) -> &str {
        match self {
            Primitive::Graph(p) => &p.method,
            Primitive::Retrieval(p) => &p.query_type,
            Primitive::Skill(p) => &p.operation,
            Primitive::Llm(p) => &p.task,
        }
    }

    /// Drives HITL mode `key`. Retrieval and LLM primitives never mutate.
    pub fn mutates(&self) -> bool {
        match self {
            Primitive::Graph(p) => p.mutates,
            Primitive::Skill(p) => p.mutates,
            Primitive::Retrieval(_) | Primitive::Llm(_) => false,
        }
    }

    pub fn scope_enforced(&self) -> bool {
        match self {
            Primitive::Graph(p) => p.scope_enforced,
            Primitive::Retrieval(p) => p.scope_enforced,
            Primitive::Skill(_) | Primitive::Llm(_) => false,
        }
    }

    pub fn return_type(&self) -> &str {
        match self {
            Primitive::Graph(p) => &p.return_type,
            Primitive::Retrieval(p) => &p.return_type,
            Primitive::Skill(p) => &p.return_type,
            Primitive::Llm(p) => &p.return_type,
        }
    }
}

/// The type of a primitive parameter, used to validate plans before dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ParamType {
    /// One path inside the working root.
    Path,
    /// One path or a list of paths (or node objects with a `path`/`id` field).
    Paths,
    Str,
    Int,
    Bool,
    /// A byte size: a number or a string like `10MB`.
    Size,
    /// A date (`2024-05-01`), a timestamp, or an age (`7d`).
    Date,
    /// Any JSON value (usually a reference to an earlier step's output).
    Any,
}

impl ParamType {
    pub fn as_str(self) -> &'static str {
        match self {
            ParamType::Path => "path",
            ParamType::Paths => "paths",
            ParamType::Str => "str",
            ParamType::Int => "int",
            ParamType::Bool => "bool",
            ParamType::Size => "size",
            ParamType::Date => "date",
            ParamType::Any => "any",
        }
    }
}

/// One parameter a primitive accepts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ParamSpec {
    pub name: String,
    #[serde(rename = "type")]
    pub ty: ParamType,
    /// Allowed values when the parameter is an enumeration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    pub doc: String,
}

impl ParamSpec {
    pub fn new(name: &str, ty: ParamType, doc: &str) -> Self {
        Self {
            name: name.to_owned(),
            ty,
            choices: Vec::new(),
            doc: doc.to_owned(),
        }
    }

    pub fn choices(mut self, choices: &[&str]) -> Self {
        self.choices = choices.iter().map(|c| (*c).to_owned()).collect();
        self
    }
}

/// What one primitive is: its family, name, whether it mutates, and its parameters.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct PrimitiveSpec {
    pub kind: PrimitiveKind,
    pub name: String,
    pub mutates: bool,
    pub required: Vec<ParamSpec>,
    pub optional: Vec<ParamSpec>,
    pub return_type: String,
    pub summary: String,
}

impl PrimitiveSpec {
    pub fn new(
        kind: PrimitiveKind,
        name: &str,
        mutates: bool,
        required: Vec<ParamSpec>,
        optional: Vec<ParamSpec>,
        return_type: &str,
        summary: &str,
    ) -> Self {
        PrimitiveSpec {
            kind,
            name: name.to_owned(),
            mutates,
            required,
            optional,
            return_type: return_type.to_owned(),
            summary: summary.to_owned(),
        }
    }

    pub fn param(&self, name: &str) -> Option<&ParamSpec> {
        self.required
            .iter()
            .chain(&self.optional)
            .find(|p| p.name == name)
    }
}

/// Every primitive the engine can dispatch. Skills are validated against it at load time.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrimitiveTable {
    specs: Vec<PrimitiveSpec>,
}

impl PrimitiveTable {
    pub fn new(specs: Vec<PrimitiveSpec>) -> Self {
        Self { specs }
    }

    /// A table holding both tables' primitives (later entries lose on a name clash).
    pub fn merged(mut self, other: PrimitiveTable) -> Self {
        for spec in other.specs {
            if self.get(spec.kind, &spec.name).is_none() {
                self.specs.push(spec);
            }
        }
        self
    }

    pub fn get(&self, kind: PrimitiveKind, name: &str) -> Option<&PrimitiveSpec> {
        self.specs.iter().find(|s| s.kind == kind && s.name == name)
    }

    pub fn names(&self, kind: PrimitiveKind) -> Vec<&str> {
        self.specs
            .iter()
            .filter(|s| s.kind == kind)
            .map(|s| s.name.as_str())
            .collect()
    }

    pub fn iter(&self) -> impl Iterator<Item = &PrimitiveSpec> {
        self.specs.iter()
    }
}
