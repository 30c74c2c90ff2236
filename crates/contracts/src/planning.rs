//! How the rule planner chooses and fills a tool: the planning keys of a tool's declaration in
//! SKILL.md (`triggers`, `keywords`, `defaults`, `when_said`, `when_denied`, `acts_on`, `selects`,
//! `fill`).
//!
//! This is data, not code: a skill written in the editor carries its own planning knowledge, and
//! the planner has no branch on a skill's or a method's name.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the person said that the rule planner can read from a request ("slots"): the names a
/// tool's `fill` may use.
pub const REQUEST_SLOTS: &[(&str, &str)] = &[
    (
        "locations",
        "the folder a clause is about (\"in Downloads\")",
    ),
    (
        "objects",
        "what is named right after the verb (\"delete old.log\")",
    ),
    (
        "targets",
        "a destination (\"to Archive\", \"into Documents/PDFs\")",
    ),
    ("name", "\"called X\", \"named X\""),
    (
        "extensions",
        "file extensions and kind words (\"pdf\", \"photos\")",
    ),
    ("glob", "a wildcard (\"*.tmp\")"),
    ("min_size", "\"over 100 MB\""),
    ("max_size", "\"under 1 KB\""),
    ("modified_after", "\"from the last 7 days\""),
    ("modified_before", "\"older than a year\""),
    ("keep", "which copy stays (\"keep the newest\")"),
    (
        "exclude",
        "folders to leave alone (\"except Pictures/Library\")",
    ),
    ("format", "an archive format (\"as tar.gz\")"),
    (
        "compression",
        "how hard to compress (\"maximum compression\")",
    ),
    ("pattern", "a folder pattern (\"{year}/{month}\")"),
    (
        "name_pattern",
        "a file-name pattern (\"{n}_{name}\", or \"{name}\" with a case or replace rule)",
    ),
    ("find", "text to replace in names"),
    ("replace", "its replacement"),
    ("case", "\"lowercase\", \"uppercase\""),
    ("recursive", "\"everywhere\", \"including subfolders\""),
    ("empty", "\"empty\""),
    ("kind", "files or folders only"),
    ("limit", "\"the 10 largest\""),
    (
        "sentences",
        "how long a summary is (\"in three sentences\")",
    ),
    ("start", "the first number of a numbering"),
    ("max_bytes", "\"the first 8 KB\""),
    ("query", "what a search is about"),
    (
        "categories",
        "the person's own categories (\"into Invoices, Recipes and Meeting notes\")",
    ),
    ("content", "text for a new file"),
    (
        "tags",
        "tags to give (\"tag … with Taxes 2024\", \"label … as paid\")",
    ),
    ("delete_originals", "\"and delete the originals\""),
];

/// What a tool's `path` / `source` names.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ActsOn {
    /// A folder, taken from where the request is (the default).
    #[default]
    Folder,
    /// One file: a named file, or the first of an earlier step's selection.
    File,
    /// One file or folder.
    Node,
    /// Several files: named files, or a selection of the files in a folder.
    Files,
    /// Files or folders, whole: a named folder (or the folder the request is about) is taken as
    /// it is.
    Nodes,
}

impl ActsOn {
    pub const ALL: &[(&str, ActsOn)] = &[
        ("folder", ActsOn::Folder),
        ("file", ActsOn::File),
        ("node", ActsOn::Node),
        ("files", ActsOn::Files),
        ("nodes", ActsOn::Nodes),
    ];

    pub fn parse(s: &str) -> Option<ActsOn> {
        Self::ALL.iter().find(|(n, _)| *n == s).map(|(_, a)| *a)
    }

    /// One named thing that may be a file (not only a folder).
    pub fn one_file(self) -> bool {
        matches!(self, ActsOn::File | ActsOn::Node)
    }
}

/// Parameter values chosen by words of the request: `{words: [day, daily], set: {pattern: …}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct WordRule {
    pub words: Vec<String>,
    pub set: BTreeMap<String, Value>,
}

/// The planning keys of one tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct ToolPlanning {
    /// Phrases asking for this tool, with `{param}` slots (`"sort {path} by date"`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub triggers: Vec<String>,
    /// Words that, said in a request, point at this tool rather than at its sibling tools; a
    /// sibling with no keywords is the skill's choice when none of them is said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub keywords: Vec<String>,
    /// Words one of which a part of a request must say for it to be read as this tool (casual
    /// words and phrases read as the lexicon's first: "get rid of" says "delete"): a tool that
    /// destroys is planned only when asked to ("make a new folder in Documents" deletes nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub asked_with: Vec<String>,
    /// Values used when the request does not say (`{keep: newest}`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub defaults: BTreeMap<String, Value>,
    /// Values chosen by words in the request; for each parameter the first rule that matches wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when_said: Vec<WordRule>,
    /// Values chosen by words in what the request says not to do ("skip the duplicate check"
    /// → `{duplicates: false}`); never evidence for the tool.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub when_denied: Vec<WordRule>,
    /// What `path` / `source` names.
    #[serde(default)]
    pub acts_on: ActsOn,
    /// The kinds of file (organize-by-type's categories: `Archives`, `Documents`, …) the tool
    /// reads: a named file of another kind counts against it, one of these kinds for it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reads: Vec<String>,
    /// The kinds of file the tool makes at its `target` (`create` makes `Archives`): a target
    /// named as a file of one of them counts for the tool, and against a tool that puts things
    /// in a folder there ("X could live in Archive/old.tar.gz" packs, it moves nothing).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub makes: Vec<String>,
    /// The field of the result that is a selection a later step can act on (`nodes`, `paths`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selects: Option<String>,
    /// Parameters taken from a sibling tool's result, as `tool.field` (`{groups: scan.groups}`):
    /// that tool runs first unless an earlier step already did.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub takes_from: BTreeMap<String, String>,
    /// Which slot of the request fills a parameter when it is not the one of the same name;
    /// `null`: never filled from the request.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub fill: BTreeMap<String, Option<String>>,
    /// What holds on the folder the tool acted on once its changes are committed
    /// (`[no_duplicates]`): a saved workflow checks it after each run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ensures: Vec<crate::ConditionCheck>,
    /// A text parameter that takes the rest of the request once a part of it reads as this
    /// tool (`description`: "new skill: receipt-filer, it moves receipts …" describes a skill;
    /// the moving is not a step of this plan).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub takes_rest: Option<String>,
    /// The sibling tool whose changes this read-only tool shows beforehand (`preview_categories`
    /// previews `organize`): "…, then actually do it" after it runs that tool on the same place.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previews: Option<String>,
    /// The tool leaves its `source` where it is (a copy): a later step that names no place acts
    /// on that source, not on what the tool made at its `target` ("copy X to Backup/X, and only
    /// then sort it by day" sorts X).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub keeps_source: bool,
}

impl ToolPlanning {
    /// The slot that fills `param`: the tool's `fill`, else the slot of the same name (a few
    /// parameters are named differently from what the person says).
    pub fn slot_for<'a>(&'a self, param: &'a str) -> Option<&'a str> {
        match self.fill.get(param) {
            Some(slot) => slot.as_deref(),
            None => Some(match param {
                "extension" => "extensions",
                "top_n" => "limit",
                "level" => "compression",
                p => p,
            }),
        }
    }

    /// Values the request's words choose: the first matching rule per parameter.
    pub fn said_values(&self, said: impl Fn(&str) -> bool) -> BTreeMap<String, Value> {
        first_matching(&self.when_said, said)
    }

    /// Values the words of what the request says not to do choose (`when_denied`).
    pub fn denied_values(&self, denied: impl Fn(&str) -> bool) -> BTreeMap<String, Value> {
        first_matching(&self.when_denied, denied)
    }
}

/// Per parameter, the value of the first rule one of whose words is `said`.
fn first_matching(rules: &[WordRule], said: impl Fn(&str) -> bool) -> BTreeMap<String, Value> {
    let mut out = BTreeMap::new();
    for rule in rules {
        if rule.words.iter().any(|w| said(w)) {
            for (k, v) in &rule.set {
                out.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    out
}

/// `{param}` names in a trigger phrase.
pub fn trigger_placeholders(trigger: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = trigger;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        out.push(rest[open + 1..open + close].trim());
        rest = &rest[open + close + 1..];
    }
    out
}

/// A trigger phrase without its `{param}` slots: the words a request must say.
pub fn strip_placeholders(t: &str) -> String {
    let mut out = String::new();
    let mut depth = 0i32;
    for ch in t.chars() {
        match ch {
            '{' => depth += 1,
            '}' => depth = (depth - 1).max(0),
            c if depth == 0 => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_rule_that_matches_sets_a_parameter() {
        let p: ToolPlanning = serde_json::from_value(serde_json::json!({
            "when_said": [
                {"words": ["day", "daily"], "set": {"pattern": "{year}/{month}/{day}"}},
                {"words": ["month"], "set": {"pattern": "{year}/{month}"}},
                {"words": ["year"], "set": {"pattern": "{year}"}},
                {"words": ["modified"], "set": {"date": "modified"}}
            ]
        }))
        .unwrap();
        let said = |ws: &'static [&'static str]| move |w: &str| ws.contains(&w);
        assert_eq!(
            p.said_values(said(&["month", "year"]))["pattern"],
            "{year}/{month}"
        );
        assert_eq!(p.said_values(said(&["year"]))["pattern"], "{year}");
        let both = p.said_values(said(&["daily", "modified"]));
        assert_eq!(both["pattern"], "{year}/{month}/{day}");
        assert_eq!(both["date"], "modified");
        assert!(p.said_values(said(&["type"])).is_empty());
    }

    #[test]
    fn a_parameter_is_filled_from_its_slot_unless_the_tool_says_otherwise() {
        let mut p = ToolPlanning::default();
        assert_eq!(p.slot_for("extension"), Some("extensions"));
        assert_eq!(p.slot_for("keep"), Some("keep"));
        p.fill.insert("reference".into(), Some("exclude".into()));
        p.fill.insert("exclude".into(), None);
        assert_eq!(p.slot_for("reference"), Some("exclude"));
        assert_eq!(p.slot_for("exclude"), None);
    }

    #[test]
    fn placeholders_are_read_from_triggers() {
        assert_eq!(
            trigger_placeholders("sort {path} by {pattern}"),
            ["path", "pattern"]
        );
        assert_eq!(strip_placeholders("sort {path} by date"), "sort by date");
    }
}
