//! Checking a tool's planning keys (`triggers`, `keywords`, `defaults`, `when_said`,
//! `when_denied`, `asked_with`, `acts_on`, `reads`, `makes`, `selects`, `fill`, `previews`,
//! `keeps_source`, …) against what the tool takes, into a
//! `ToolPlanning`. Pure; every problem is reported with the line of its key.

use std::collections::BTreeMap;
use std::path::Path;

use contracts::{
    ActsOn, ParamType, PrimitiveSpec, REQUEST_SLOTS, ToolPlanning, WordRule, strip_placeholders,
    trigger_placeholders,
};
use serde_json::Value;

use crate::diagnostic::Diagnostic;
use crate::parser::ToolDraft;

/// The planning keys a tool declaration may carry.
pub const PLANNING_KEYS: &[&str] = &[
    "triggers",
    "keywords",
    "asked_with",
    "defaults",
    "when_said",
    "when_denied",
    "acts_on",
    "reads",
    "makes",
    "selects",
    "fill",
    "takes_from",
    "ensures",
    "takes_rest",
    "previews",
    "keeps_source",
];

struct Check<'a> {
    tool: &'a ToolDraft,
    spec: &'a PrimitiveSpec,
    file: &'a Path,
    diags: &'a mut Vec<Diagnostic>,
}

impl Check<'_> {
    /// A list of kinds of file (organize-by-type's categories); an unknown one is an error.
    fn kinds(&mut self, key: &str, value: &Value, line: usize) -> Vec<String> {
        let mut out = Vec::new();
        for kind in self.strings(key, value, line) {
            if contracts::file_kinds::CATEGORIES
                .iter()
                .any(|(c, _)| *c == kind)
            {
                out.push(kind);
            } else {
                let known: Vec<&str> = contracts::file_kinds::CATEGORIES
                    .iter()
                    .map(|(c, _)| *c)
                    .collect();
                self.error(
                    line,
                    format!(
                        "`{key}`: {kind} is no kind of file; the kinds are {}",
                        known.join(", ")
                    ),
                );
            }
        }
        out
    }

    fn error(&mut self, line: usize, message: String) {
        self.diags.push(Diagnostic::error(
            self.file,
            line,
            "BAD_PLANNING_KEY",
            format!("tool `{}`: {message}", self.tool.name),
        ));
    }

    fn takes(&self, param: &str) -> bool {
        self.tool
            .required
            .iter()
            .chain(&self.tool.optional)
            .any(|p| p == param)
    }

    fn takes_list(&self) -> String {
        let all: Vec<&str> = self
            .tool
            .required
            .iter()
            .chain(&self.tool.optional)
            .map(String::as_str)
            .collect();
        all.join(", ")
    }

    fn strings(&mut self, key: &str, v: &Value, line: usize) -> Vec<String> {
        match v {
            Value::Null => Vec::new(),
            Value::String(s) => vec![s.clone()],
            Value::Array(items) if items.iter().all(Value::is_string) => items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => {
                self.error(line, format!("`{key}` must be a list of phrases"));
                Vec::new()
            }
        }
    }

    /// Parameter values (`defaults`, a rule's `set`): each a parameter the tool takes, of its type.
    fn values(&mut self, key: &str, v: &Value, line: usize) -> BTreeMap<String, Value> {
        let Value::Object(m) = v else {
            self.error(
                line,
                format!("`{key}` must be a mapping of parameter: value"),
            );
            return BTreeMap::new();
        };
        let mut out = BTreeMap::new();
        // Sorted, so the diagnostics come in the same order whatever the map keeps.
        let mut entries: Vec<(&String, &Value)> = m.iter().collect();
        entries.sort_by_key(|(k, _)| *k);
        for (param, value) in entries {
            if !self.takes(param) {
                let hint = contracts::closest(
                    param,
                    self.tool
                        .required
                        .iter()
                        .chain(&self.tool.optional)
                        .map(String::as_str),
                )
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
                let takes = self.takes_list();
                self.error(
                    line,
                    format!("`{key}` sets `{param}`, which the tool does not take{hint}; it takes: {takes}"),
                );
                continue;
            }
            let ty = self.spec.param(param).map_or(ParamType::Any, |p| p.ty);
            let fits = match ty {
                ParamType::Bool => value.is_boolean(),
                ParamType::Int => value.is_u64() || value.is_i64(),
                ParamType::Str | ParamType::Date | ParamType::Path => value.is_string(),
                ParamType::Size => value.is_string() || value.is_u64(),
                ParamType::Paths => value.is_string() || value.is_array(),
                ParamType::Any => true,
            };
            if !fits {
                self.error(
                    line,
                    format!(
                        "`{key}`: `{param}` takes {}; {value} does not fit",
                        ty.as_str()
                    ),
                );
                continue;
            }
            out.insert(param.clone(), value.clone());
        }
        out
    }

    fn triggers(&mut self, v: &Value, line: usize) -> Vec<String> {
        let triggers = self.strings("triggers", v, line);
        for t in &triggers {
            for p in trigger_placeholders(t) {
                if !self.takes(p) {
                    let takes = self.takes_list();
                    self.error(
                        line,
                        format!("trigger \"{t}\" has `{{{p}}}`, which the tool does not take; it takes: {takes}"),
                    );
                }
            }
            if strip_placeholders(t).split_whitespace().next().is_none() {
                self.error(
                    line,
                    format!("trigger \"{t}\" has no words besides its slots"),
                );
            }
        }
        triggers
    }

    /// `when_said` / `when_denied`: `[{words: [...], set: {param: value}}]`.
    fn word_rules(&mut self, key: &str, v: &Value, line: usize) -> Vec<WordRule> {
        let Value::Array(rules) = v else {
            self.error(
                line,
                format!("`{key}` must be a list of {{words: [...], set: {{param: value}}}}"),
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for rule in rules {
            let (Some(words), Some(set)) = (rule.get("words"), rule.get("set")) else {
                self.error(line, format!("`{key}`: {rule} needs `words` and `set`"));
                continue;
            };
            let words = self.strings(&format!("{key}.words"), words, line);
            let set = self.values(&format!("{key}.set"), set, line);
            if !words.is_empty() && !set.is_empty() {
                out.push(WordRule { words, set });
            }
        }
        out
    }

    /// `param: tool.field`; the tool is checked against its siblings by `resolve`.
    fn takes_from(&mut self, v: &Value, line: usize) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let Value::Object(m) = v else {
            self.error(
                line,
                "`takes_from` must be a mapping of parameter: tool.field".into(),
            );
            return out;
        };
        let mut entries: Vec<(&String, &Value)> = m.iter().collect();
        entries.sort_by_key(|(k, _)| *k);
        for (param, from) in entries {
            if !self.takes(param) {
                let takes = self.takes_list();
                self.error(line, format!("`takes_from` names `{param}`, which the tool does not take; it takes: {takes}"));
                continue;
            }
            match from.as_str().and_then(|f| f.split_once('.')) {
                Some((t, f)) if !t.is_empty() && !f.is_empty() => {
                    out.insert(param.clone(), format!("{t}.{f}"));
                }
                _ => self.error(
                    line,
                    format!("`takes_from`: `{param}` must come from `tool.field`, found {from}"),
                ),
            }
        }
        out
    }

    fn fill(&mut self, v: &Value, line: usize) -> BTreeMap<String, Option<String>> {
        let mut out = BTreeMap::new();
        let Value::Object(m) = v else {
            self.error(line, "`fill` must be a mapping of parameter: slot".into());
            return out;
        };
        let mut entries: Vec<(&String, &Value)> = m.iter().collect();
        entries.sort_by_key(|(k, _)| *k);
        for (param, slot) in entries {
            if !self.takes(param) {
                let takes = self.takes_list();
                self.error(
                    line,
                    format!(
                        "`fill` names `{param}`, which the tool does not take; it takes: {takes}"
                    ),
                );
                continue;
            }
            match slot {
                Value::Null => {
                    out.insert(param.clone(), None);
                }
                Value::String(s) if REQUEST_SLOTS.iter().any(|(n, _)| n == s) => {
                    out.insert(param.clone(), Some(s.clone()));
                }
                other => {
                    let known: Vec<&str> = REQUEST_SLOTS.iter().map(|(n, _)| *n).collect();
                    let hint = other
                        .as_str()
                        .and_then(|s| contracts::closest(s, known.iter().copied()))
                        .map(|c| format!("did you mean `{c}`? "))
                        .unwrap_or_default();
                    self.error(
                        line,
                        format!(
                            "`fill`: {other} is not something a request says; {hint}known: {}",
                            known.join(", ")
                        ),
                    );
                }
            }
        }
        out
    }
}

/// The tool's planning keys, checked. Problems go to `diags`; what is valid is kept.
pub fn planning(
    tool: &ToolDraft,
    spec: &PrimitiveSpec,
    file: &Path,
    diags: &mut Vec<Diagnostic>,
) -> ToolPlanning {
    let mut check = Check {
        tool,
        spec,
        file,
        diags,
    };
    let mut out = ToolPlanning::default();
    for (key, value, line) in &tool.planning {
        let line = *line;
        match key.as_str() {
            "triggers" => out.triggers = check.triggers(value, line),
            "keywords" => {
                out.keywords = check
                    .strings("keywords", value, line)
                    .into_iter()
                    .map(|w| w.to_lowercase())
                    .collect();
            }
            "asked_with" => {
                out.asked_with = check
                    .strings("asked_with", value, line)
                    .into_iter()
                    .map(|w| w.to_lowercase())
                    .collect();
                if out.asked_with.is_empty() && value.is_array() {
                    check.error(
                        line,
                        "`asked_with` lists the words one of which asks for the tool; it is empty"
                            .to_owned(),
                    );
                }
            }
            "defaults" => out.defaults = check.values("defaults", value, line),
            "when_said" => out.when_said = check.word_rules("when_said", value, line),
            "when_denied" => out.when_denied = check.word_rules("when_denied", value, line),
            "acts_on" => match value.as_str().and_then(ActsOn::parse) {
                Some(a) => out.acts_on = a,
                None => {
                    let known: Vec<&str> = ActsOn::ALL.iter().map(|(n, _)| *n).collect();
                    check.error(
                        line,
                        format!(
                            "`acts_on` must be one of {}, found {value}",
                            known.join(", ")
                        ),
                    );
                }
            },
            "reads" => out.reads = check.kinds("reads", value, line),
            "makes" if !check.takes("target") => check.error(
                line,
                "`makes` names what the tool makes at its `target`, and it takes no `target`"
                    .to_owned(),
            ),
            "makes" => out.makes = check.kinds("makes", value, line),
            "selects" => match value.as_str() {
                Some(f)
                    if !f.is_empty()
                        && f.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') =>
                {
                    out.selects = Some(f.to_owned());
                }
                _ => check.error(
                    line,
                    format!(
                        "`selects` must name a field of the result (e.g. `nodes`), found {value}"
                    ),
                ),
            },
            "fill" => out.fill = check.fill(value, line),
            "takes_rest" => match value.as_str() {
                Some(param)
                    if check.takes(param)
                        && check
                            .spec
                            .param(param)
                            .is_none_or(|p| matches!(p.ty, ParamType::Str | ParamType::Any)) =>
                {
                    out.takes_rest = Some(param.to_owned());
                }
                _ => {
                    let takes = check.takes_list();
                    check.error(
                        line,
                        format!(
                            "`takes_rest` must name a text parameter the tool takes, found \
                             {value}; it takes: {takes}"
                        ),
                    );
                }
            },
            "takes_from" => out.takes_from = check.takes_from(value, line),
            "previews" => match value.as_str() {
                Some(sibling) if !sibling.is_empty() && !sibling.contains(char::is_whitespace) => {
                    out.previews = Some(sibling.to_owned());
                }
                _ => check.error(
                    line,
                    format!("`previews` must name a tool of this skill, found {value}"),
                ),
            },
            "keeps_source" => match value.as_bool() {
                Some(keeps) if !keeps || check.takes("source") && check.spec.mutates => {
                    out.keeps_source = keeps;
                }
                Some(_) => check.error(
                    line,
                    "`keeps_source` is for a tool that changes files and takes a `source`; this \
                     one does not"
                        .to_owned(),
                ),
                None => check.error(
                    line,
                    format!("`keeps_source` must be true or false, found {value}"),
                ),
            },
            "ensures" => {
                for name in check.strings("ensures", value, line) {
                    match contracts::ConditionCheck::parse(&name) {
                        Some(c) if !c.takes_value() => out.ensures.push(c),
                        _ => {
                            let known: Vec<&str> = contracts::ConditionCheck::ALL
                                .iter()
                                .filter(|c| !c.takes_value())
                                .map(|c| c.name())
                                .collect();
                            check.error(
                                line,
                                format!(
                                    "`ensures`: `{name}` is not a check; known: {}",
                                    known.join(", ")
                                ),
                            );
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}
