//! SKILL.md parser: YAML frontmatter plus tool declarations (long YAML form or compact `a: b | c: d`).
//!
//! Pure: text in, a draft and diagnostics out. Every problem is reported, each with its line.
//! A `### name -- summary` heading whose first non-blank line starts with `primitive:` declares a
//! tool; other headings (and anything inside code fences) are instructions.

use std::path::Path;

use contracts::PrimitiveKind;
use serde_yaml::{Mapping, Value};

use crate::diagnostic::Diagnostic;
use crate::planning::PLANNING_KEYS;
use crate::workflow::{WORKFLOW_KEYS, parse_workflow};

/// Frontmatter keys of the public Agent Skills format that we accept and ignore.
const AGENT_SKILLS_KEYS: &[&str] = &["license", "compatibility", "metadata", "allowed-tools"];
const SKILL_KEYS: &[&str] = &[
    "name",
    "id",
    "version",
    "description",
    "tags",
    "uses_retrieval",
    "kb_chunk_strategy",
    "kb_chunk_size",
    "triggers",
    "topic",
];
const TOOL_KEYS: &[&str] = &[
    "primitive",
    "method",
    "query_type",
    "operation",
    "task",
    "mutates",
    "scope_enforced",
    "required",
    "required_params",
    "optional",
    "optional_params",
    "signature",
    "return_type",
    "description",
];
pub const CHUNK_STRATEGIES: &[&str] = &["fixed", "sentence", "paragraph", "semantic"];

/// A tool as written, before it is checked against the primitive table.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDraft {
    pub name: String,
    pub summary: String,
    pub kind: PrimitiveKind,
    pub operation: String,
    pub mutates: Option<bool>,
    pub scope_enforced: Option<bool>,
    pub required: Vec<String>,
    pub optional: Vec<String>,
    pub signature: Option<String>,
    pub return_type: Option<String>,
    /// Planning keys as written (key, value, line); checked by `resolve`.
    pub planning: Vec<(String, serde_json::Value, usize)>,
    /// Line of the `###` heading.
    pub line: usize,
}

/// A SKILL.md as written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SkillDraft {
    pub name: String,
    pub id: Option<String>,
    pub version: Option<String>,
    pub description: String,
    pub tags: Vec<String>,
    pub uses_retrieval: Option<bool>,
    pub kb_chunk_strategy: Option<String>,
    pub kb_chunk_size: Option<usize>,
    pub triggers: Vec<String>,
    /// Words a request about the skill says (lowercase).
    pub topic: Vec<String>,
    /// The saved plan of a workflow skill (its `steps:` and their keys).
    pub workflow: Option<contracts::Workflow>,
    pub tools: Vec<ToolDraft>,
    pub instructions: String,
    /// Line of each frontmatter key, for later diagnostics.
    pub key_lines: Vec<(String, usize)>,
}

impl SkillDraft {
    pub fn line_of(&self, key: &str) -> usize {
        self.key_lines
            .iter()
            .find(|(k, _)| k == key)
            .map_or(1, |(_, l)| *l)
    }
}

struct Ctx<'a> {
    file: &'a Path,
    diags: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn error(&mut self, line: usize, code: &str, message: impl Into<String>) {
        self.diags
            .push(Diagnostic::error(self.file, line, code, message));
    }
    fn warning(&mut self, line: usize, code: &str, message: impl Into<String>) {
        self.diags
            .push(Diagnostic::warning(self.file, line, code, message));
    }
}

fn yaml_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "nothing",
        Value::Bool(_) => "true/false",
        Value::Number(_) => "a number",
        Value::String(_) => "text",
        Value::Sequence(_) => "a list",
        Value::Mapping(_) => "a mapping",
        Value::Tagged(_) => "a tagged value",
    }
}

fn as_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A list of names: `[a, b]`, `- a`, or `- {name: a, type: str}`.
fn name_list(v: &Value) -> Result<Vec<String>, String> {
    match v {
        Value::Null => Ok(Vec::new()),
        Value::String(s) if s.trim().is_empty() => Ok(Vec::new()),
        Value::String(s) => Ok(s
            .split(',')
            .map(|x| x.trim().to_owned())
            .filter(|x| !x.is_empty())
            .collect()),
        Value::Sequence(items) => items
            .iter()
            .map(|i| match i {
                Value::String(s) => Ok(s.clone()),
                Value::Mapping(m) => m
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .ok_or_else(|| "a parameter entry has no `name`".to_owned()),
                other => Err(format!(
                    "a parameter must be a name, found {}",
                    yaml_type(other)
                )),
            })
            .collect(),
        other => Err(format!(
            "must be a list of parameter names, found {}",
            yaml_type(other)
        )),
    }
}

fn yaml_error_line(e: &serde_yaml::Error, first_line: usize) -> usize {
    e.location()
        .map_or(first_line, |l| first_line + l.line().saturating_sub(1))
}

fn is_fence(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("```") || t.starts_with("~~~")
}

/// Parses a SKILL.md. Returns a draft unless the file is unusable; diagnostics list every problem.
pub fn parse_skill_md(text: &str, file: &Path) -> (Option<SkillDraft>, Vec<Diagnostic>) {
    let mut cx = Ctx {
        file,
        diags: Vec::new(),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().collect();
    if lines.first().map(|l| l.trim_end()) != Some("---") {
        cx.error(1, "MISSING_FRONTMATTER", "SKILL.md must start with YAML frontmatter between `---` lines (name, description, ...)");
        return (None, cx.diags);
    }
    let Some(close) = lines
        .iter()
        .skip(1)
        .position(|l| matches!(l.trim_end(), "---" | "..."))
        .map(|p| p + 1)
    else {
        cx.error(
            1,
            "UNCLOSED_FRONTMATTER",
            "the frontmatter opened on line 1 is never closed with `---`",
        );
        return (None, cx.diags);
    };
    let fm_text = lines[1..close].join("\n");
    let fm: Value = match serde_yaml::from_str(&fm_text) {
        Ok(v) => v,
        Err(e) => {
            cx.error(
                yaml_error_line(&e, 2),
                "YAML_SYNTAX",
                format!("frontmatter is not valid YAML: {}", strip_location(&e)),
            );
            return (None, cx.diags);
        }
    };
    let Value::Mapping(fm) = fm else {
        cx.error(
            2,
            "BAD_FRONTMATTER",
            "frontmatter must be `key: value` lines",
        );
        return (None, cx.diags);
    };
    let mut draft = SkillDraft::default();
    for (i, l) in lines[1..close].iter().enumerate() {
        if let Some((k, _)) = l.split_once(':')
            && !l.starts_with([' ', '\t', '-', '#'])
        {
            draft.key_lines.push((k.trim().to_owned(), i + 2));
        }
    }
    frontmatter(&mut cx, &mut draft, &fm);
    body(&mut cx, &mut draft, &lines, close + 1);
    let usable = !draft.name.is_empty() && !draft.description.is_empty();
    (usable.then_some(draft), cx.diags)
}

/// The `key: value` segments of a compact declaration line: split at `|` outside quotes and
/// brackets, so a value may hold one (`defaults: {target: "{source}.{format|zip}"}`).
fn compact_segments(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut quote, mut start) = (0i32, None, 0);
    // A quote opens a value only where a YAML scalar can start ("it's" is no quote).
    let mut prev = ':';
    for (i, ch) in line.char_indices() {
        let opens = matches!(prev, ':' | '[' | '{' | ',' | '|');
        if !ch.is_whitespace() {
            prev = ch;
        }
        match (quote, ch) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'') if opens => quote = Some(ch),
            (None, '[' | '{') => depth += 1,
            (None, ']' | '}') => depth -= 1,
            (None, '|') if depth <= 0 => {
                out.push(&line[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&line[start..]);
    out
}

fn strip_location(e: &serde_yaml::Error) -> String {
    let s = e.to_string();
    s.split(" at line ").next().unwrap_or(&s).to_owned()
}

fn frontmatter(cx: &mut Ctx, d: &mut SkillDraft, fm: &Mapping) {
    let line = |d: &SkillDraft, k: &str| d.line_of(k);
    for (k, _) in fm {
        let key = as_text(k).unwrap_or_default();
        if !SKILL_KEYS.contains(&key.as_str())
            && !AGENT_SKILLS_KEYS.contains(&key.as_str())
            && !WORKFLOW_KEYS.contains(&key.as_str())
        {
            let l = line(d, &key);
            cx.warning(
                l,
                "UNKNOWN_FIELD",
                format!(
                    "unknown frontmatter field `{key}` (ignored); known: {}",
                    SKILL_KEYS.join(", ")
                ),
            );
        }
    }
    match fm.get("name") {
        None => cx.error(1, "MISSING_FIELD", "frontmatter needs `name`"),
        Some(v) => match as_text(v) {
            Some(n) if !n.trim().is_empty() => {
                let n = n.trim().to_owned();
                let ok = n.len() <= 64
                    && n.chars()
                        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                    && !n.starts_with('-')
                    && !n.ends_with('-');
                if !ok {
                    cx.warning(line(d, "name"), "NAME_FORMAT", format!("name `{n}` should be lowercase letters, digits and hyphens (at most 64)"));
                }
                d.name = n;
            }
            _ => cx.error(
                line(d, "name"),
                "BAD_FIELD",
                format!("`name` must be text, found {}", yaml_type(v)),
            ),
        },
    }
    match fm.get("description") {
        None => cx.error(
            1,
            "MISSING_FIELD",
            "frontmatter needs `description` (the text retrieval matches requests against)",
        ),
        Some(v) => {
            match as_text(v) {
                Some(t) if !t.trim().is_empty() => {
                    if t.len() > 1024 {
                        cx.warning(line(d, "description"), "LONG_DESCRIPTION", format!("description is {} characters; keep it under 1024 so it embeds well", t.len()));
                    }
                    d.description = t.split_whitespace().collect::<Vec<_>>().join(" ");
                }
                _ => cx.error(
                    line(d, "description"),
                    "BAD_FIELD",
                    "`description` must be non-empty text",
                ),
            }
        }
    }
    if let Some(v) = fm.get("id") {
        match as_text(v) {
            Some(id) => d.id = Some(id),
            None => cx.error(line(d, "id"), "BAD_FIELD", "`id` must be text"),
        }
    }
    if let Some(v) = fm.get("version") {
        match as_text(v) {
            Some(ver) => d.version = Some(ver),
            None => cx.error(
                line(d, "version"),
                "BAD_FIELD",
                "`version` must be text such as \"1.0\"",
            ),
        }
    }
    for (key, target) in [
        ("tags", &mut d.tags),
        ("triggers", &mut d.triggers),
        ("topic", &mut d.topic),
    ] {
        match fm.get(key) {
            None | Some(Value::Null) => {}
            Some(Value::Sequence(items)) => {
                for (i, item) in items.iter().enumerate() {
                    match as_text(item) {
                        Some(t) => target.push(t),
                        None => {
                            let l = d
                                .key_lines
                                .iter()
                                .find(|(k, _)| k == key)
                                .map_or(1, |(_, l)| *l);
                            cx.error(
                                l,
                                "BAD_FIELD",
                                format!(
                                    "`{key}` item {} must be text, found {}",
                                    i + 1,
                                    yaml_type(item)
                                ),
                            );
                        }
                    }
                }
            }
            Some(other) => {
                let l = d
                    .key_lines
                    .iter()
                    .find(|(k, _)| k == key)
                    .map_or(1, |(_, l)| *l);
                cx.error(
                    l,
                    "BAD_FIELD",
                    format!("`{key}` must be a list, found {}", yaml_type(other)),
                );
            }
        }
    }
    match fm.get("uses_retrieval") {
        None | Some(Value::Null) => {}
        Some(Value::Bool(b)) => d.uses_retrieval = Some(*b),
        Some(other) => cx.error(
            line(d, "uses_retrieval"),
            "BAD_FIELD",
            format!(
                "`uses_retrieval` must be true or false, found {}",
                yaml_type(other)
            ),
        ),
    }
    match fm.get("kb_chunk_strategy") {
        None | Some(Value::Null) => {}
        Some(v) => match as_text(v) {
            Some(s) if CHUNK_STRATEGIES.contains(&s.as_str()) => d.kb_chunk_strategy = Some(s),
            _ => cx.error(
                line(d, "kb_chunk_strategy"),
                "BAD_FIELD",
                format!(
                    "`kb_chunk_strategy` must be one of {}, found `{}`",
                    CHUNK_STRATEGIES.join(", "),
                    as_text(v).unwrap_or_else(|| yaml_type(v).into())
                ),
            ),
        },
    }
    match fm.get("kb_chunk_size") {
        None | Some(Value::Null) => {}
        Some(Value::Number(n)) if n.as_u64().is_some_and(|n| n > 0) => {
            d.kb_chunk_size = n.as_u64().map(|n| n as usize)
        }
        Some(v) => cx.error(
            line(d, "kb_chunk_size"),
            "BAD_FIELD",
            format!(
                "`kb_chunk_size` must be a positive whole number, found {}",
                as_text(v).unwrap_or_else(|| yaml_type(v).into())
            ),
        ),
    }
    let key_lines = d.key_lines.clone();
    let line_of = |key: &str| {
        key_lines
            .iter()
            .find(|(k, _)| k == key)
            .map_or(1, |(_, l)| *l)
    };
    d.workflow = parse_workflow(fm, &line_of, &d.triggers, cx.file, &mut cx.diags);
}

fn body(cx: &mut Ctx, d: &mut SkillDraft, lines: &[&str], start: usize) {
    let mut in_fence = false;
    let mut i = start;
    let mut instructions: Vec<&str> = Vec::new();
    while i < lines.len() {
        let line = lines[i];
        if is_fence(line) {
            in_fence = !in_fence;
        }
        if !in_fence && let Some(heading) = line.strip_prefix("### ") {
            let mut k = i + 1;
            while k < lines.len() && lines[k].trim().is_empty() {
                k += 1;
            }
            if k < lines.len() && lines[k].trim_start().starts_with("primitive:") {
                let mut end = k;
                while end < lines.len()
                    && !lines[end].trim().is_empty()
                    && !lines[end].starts_with('#')
                {
                    end += 1;
                }
                instructions.push(line);
                if let Some(tool) = tool(cx, heading, i + 1, &lines[k..end], k + 1) {
                    if d.tools.iter().any(|t| t.name == tool.name) {
                        cx.error(
                            i + 1,
                            "DUPLICATE_TOOL",
                            format!("tool `{}` is declared twice", tool.name),
                        );
                    } else {
                        d.tools.push(tool);
                    }
                }
                i = end;
                continue;
            }
        }
        instructions.push(line);
        i += 1;
    }
    if in_fence {
        cx.warning(
            lines.len(),
            "UNCLOSED_FENCE",
            "a code fence is never closed; declarations after it were not read",
        );
    }
    d.instructions = instructions.join("\n").trim().to_owned();
}

fn tool(
    cx: &mut Ctx,
    heading: &str,
    line: usize,
    decl: &[&str],
    decl_line: usize,
) -> Option<ToolDraft> {
    let (name, summary) = [" -- ", " — ", " – "]
        .iter()
        .find_map(|sep| heading.split_once(sep))
        .map_or((heading.trim(), ""), |(n, s)| (n.trim(), s.trim()));
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        cx.error(line, "BAD_TOOL_NAME", format!("tool name `{name}` must be letters, digits, `_` or `-` (write `### name -- summary`)"));
        return None;
    }
    // (key, value, line)
    let mut fields: Vec<(String, Value, usize)> = Vec::new();
    let compact = decl.iter().any(|l| l.contains(" | ")) || (decl.len() == 1);
    if compact {
        for (off, l) in decl.iter().enumerate() {
            for seg in compact_segments(l)
                .into_iter()
                .map(str::trim)
                .filter(|s| !s.is_empty())
            {
                let Some((k, v)) = seg.split_once(':') else {
                    cx.error(
                        decl_line + off,
                        "BAD_DECLARATION",
                        format!("tool `{name}`: `{seg}` is not `key: value`"),
                    );
                    continue;
                };
                let value: Value = match serde_yaml::from_str(v.trim()) {
                    Ok(v) => v,
                    Err(e) => {
                        cx.error(
                            decl_line + off,
                            "BAD_DECLARATION",
                            format!(
                                "tool `{name}`: value of `{}` is not valid: {}",
                                k.trim(),
                                strip_location(&e)
                            ),
                        );
                        continue;
                    }
                };
                fields.push((k.trim().to_owned(), value, decl_line + off));
            }
        }
    } else {
        match serde_yaml::from_str::<Value>(&decl.join("\n")) {
            Ok(Value::Mapping(m)) => {
                for (k, v) in m {
                    let key = as_text(&k).unwrap_or_default();
                    let l = decl
                        .iter()
                        .position(|x| {
                            x.trim_start().starts_with(&format!("{key}:")) && !x.starts_with(' ')
                        })
                        .map_or(decl_line, |p| decl_line + p);
                    fields.push((key, v, l));
                }
            }
            Ok(_) => {
                cx.error(
                    decl_line,
                    "BAD_DECLARATION",
                    format!("tool `{name}`: the declaration must be `key: value` lines"),
                );
                return None;
            }
            Err(e) => {
                cx.error(
                    yaml_error_line(&e, decl_line),
                    "YAML_SYNTAX",
                    format!("tool `{name}`: {}", strip_location(&e)),
                );
                return None;
            }
        }
    }
    let get = |k: &str| fields.iter().find(|(key, _, _)| key == k);
    let mut ok = true;
    for (k, _, l) in &fields {
        if !TOOL_KEYS.contains(&k.as_str()) && !PLANNING_KEYS.contains(&k.as_str()) {
            cx.warning(
                *l,
                "UNKNOWN_KEY",
                format!("tool `{name}`: unknown key `{k}` (ignored)"),
            );
        }
    }
    let kind = match get("primitive").map(|(_, v, l)| (as_text(v), *l)) {
        Some((Some(p), l)) => {
            match PrimitiveKind::parse(p.trim()) {
                Some(k) => Some(k),
                None => {
                    cx.error(l, "UNKNOWN_PRIMITIVE", format!("tool `{name}`: primitive `{p}` is not one of graph, retrieval, skill, llm"));
                    None
                }
            }
        }
        _ => {
            cx.error(
                decl_line,
                "BAD_DECLARATION",
                format!("tool `{name}`: `primitive` must be graph, retrieval, skill or llm"),
            );
            None
        }
    };
    let operation = kind.and_then(|k| {
        let key = k.operation_key();
        match get(key).map(|(_, v, _)| as_text(v)) {
            Some(Some(op)) if !op.trim().is_empty() => Some(op.trim().to_owned()),
            _ => {
                cx.error(
                    decl_line,
                    "MISSING_KEY",
                    format!("tool `{name}`: a {k} primitive needs `{key}`"),
                );
                None
            }
        }
    });
    let mut flag = |key: &str| -> Option<bool> {
        match get(key) {
            None => None,
            Some((_, Value::Bool(b), _)) => Some(*b),
            Some((_, v, l)) => {
                cx.error(
                    *l,
                    "BAD_DECLARATION",
                    format!(
                        "tool `{name}`: `{key}` must be true or false, found {}",
                        yaml_type(v)
                    ),
                );
                ok = false;
                None
            }
        }
    };
    let mutates = flag("mutates");
    let scope_enforced = flag("scope_enforced");
    let mut names = |keys: [&str; 2]| -> Vec<String> {
        let Some((k, v, l)) = keys.iter().find_map(|k| get(k)) else {
            return Vec::new();
        };
        match name_list(v) {
            Ok(list) => list,
            Err(msg) => {
                cx.error(*l, "BAD_DECLARATION", format!("tool `{name}`: `{k}` {msg}"));
                ok = false;
                Vec::new()
            }
        }
    };
    let required = names(["required", "required_params"]);
    let optional = names(["optional", "optional_params"]);
    let text = |key: &str| get(key).and_then(|(_, v, _)| as_text(v));
    let summary = if summary.is_empty() {
        text("description").unwrap_or_default()
    } else {
        summary.to_owned()
    };
    let planning = fields
        .iter()
        .filter(|(k, _, _)| PLANNING_KEYS.contains(&k.as_str()))
        .map(|(k, v, l)| {
            let json = serde_json::to_value(v).unwrap_or(serde_json::Value::Null);
            (k.clone(), json, *l)
        })
        .collect();
    let (kind, operation) = (kind?, operation?);
    ok.then(|| ToolDraft {
        name: name.to_owned(),
        summary,
        kind,
        operation,
        mutates,
        scope_enforced,
        required,
        optional,
        signature: text("signature"),
        return_type: text("return_type"),
        planning,
        line,
    })
}
