//! Scoring a plan's parameters against a labelled case's `params` (eval/plans.jsonl):
//! `{"skill/tool": {"param": value, ...}}` — some step of that tool must carry every listed value
//! (a value the step leaves out counts as the tool's declared default). Values are compared as a
//! person reads them: paths without `~/`, `./` or a trailing `/`, any case, extensions without
//! their dot, lists (or comma-separated strings) as sets, sizes in bytes (`100MB` = `100 MB` =
//! 100,000,000 or 104,857,600), ages in days (`2 weeks` = `14d`), and `{"any_of": [...]}` when
//! several values are right. A value the plan takes from an earlier step (`$step(1).created[0]`)
//! is not judged: it is only known at run time.

use std::collections::BTreeMap;

use contracts::Plan;
use serde_json::{Map, Value};

/// Each tool's declared defaults (`skill/tool` → the planning key `defaults`).
pub type ToolDefaults = BTreeMap<String, BTreeMap<String, Value>>;

/// `"100MB"`, `"1.5 GiB"`, `"8 KB"` as bytes, decimal and binary readings of the unit.
fn size_bytes(s: &str) -> Option<[u64; 2]> {
    let s = s.trim().to_lowercase();
    let digits = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (number, unit) = s.split_at(digits);
    let n: f64 = number.parse().ok()?;
    let power = match unit.trim().trim_end_matches('s') {
        "" | "b" | "byte" => 0,
        "k" | "kb" | "kib" => 1,
        "m" | "mb" | "mib" => 2,
        "g" | "gb" | "gib" => 3,
        "t" | "tb" | "tib" => 4,
        _ => return None,
    };
    Some([
        (n * 1000f64.powi(power)).round() as u64,
        (n * 1024f64.powi(power)).round() as u64,
    ])
}

/// `"30d"`, `"30 days"`, `"2 weeks"`, `"2w"` as a number of days; a date stays as it is.
fn age_days(s: &str) -> Option<String> {
    let s = s.trim().to_lowercase();
    let digits = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (number, unit) = s.split_at(digits);
    let n: u64 = number.parse().ok()?;
    let days = match unit.trim().trim_end_matches('s') {
        "d" | "day" => n,
        "w" | "week" => n * 7,
        "y" | "year" => n * 365,
        _ => return None,
    };
    Some(format!("{days}d"))
}

/// One value as a set of normalised words (`"PDF, .docx"` and `["docx", "pdf"]` are the same).
fn normalised(key: &str, value: &Value) -> Vec<String> {
    let one = |s: &str| {
        let mut s = s.trim().to_lowercase();
        for prefix in ["~/", "./"] {
            if let Some(rest) = s.strip_prefix(prefix) {
                s = rest.to_owned();
            }
        }
        let s = s.trim_end_matches('/');
        if key.contains("extension") {
            s.trim_start_matches('.').to_owned()
        } else {
            s.to_owned()
        }
    };
    // "Invoices, Recipes and Meeting notes" lists the same three names as the array.
    let listed = |s: &str| -> Vec<String> {
        s.split(',')
            .flat_map(|part| part.split(" and "))
            .flat_map(|part| part.split(" und "))
            .map(one)
            .collect()
    };
    let mut out: Vec<String> = match value {
        Value::String(s) if key.contains("extension") => s.split(',').map(one).collect(),
        Value::String(s) if key == "categories" || key == "tags" => listed(s),
        // A rename or folder pattern without an extension keeps the file's own (batch-rename's
        // rule): `scan_{n:03}` names the same files as `scan_{n:03}.{ext}`.
        Value::String(s) if key == "pattern" && !pattern_has_extension(s) => {
            vec![one(&format!("{s}.{{ext}}"))]
        }
        Value::String(s) => vec![one(s)],
        Value::Array(items) => items.iter().flat_map(|v| normalised(key, v)).collect(),
        Value::Null => Vec::new(),
        other => vec![other.to_string()],
    };
    out.retain(|s| !s.is_empty());
    out.sort();
    out.dedup();
    out
}

/// Whether a name pattern ends in an extension of its own (`.jpg`, `.{ext}`).
fn pattern_has_extension(pattern: &str) -> bool {
    pattern.rsplit_once('.').is_some_and(|(stem, ext)| {
        !stem.is_empty() && !ext.is_empty() && !ext.contains('/') && !ext.contains('}')
            || ext == "{ext}"
    })
}

/// Whether `got` is the labelled `expected` value of `key`.
fn value_matches(key: &str, expected: &Value, got: Option<&Value>) -> bool {
    if let Some(alternatives) = expected.get("any_of").and_then(Value::as_array) {
        return alternatives.iter().any(|a| value_matches(key, a, got));
    }
    let Some(got) = got else {
        return false;
    };
    // An earlier step's result (`$step(1).created[0]`) cannot be known before the run: a plan
    // that chains the steps is not judged on that value.
    if got
        .as_str()
        .is_some_and(|s| contracts::Reference::parse(s).is_ok())
    {
        return true;
    }
    if normalised(key, got) == normalised(key, expected) {
        return true;
    }
    let text = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    let (Some(e), Some(g)) = (text(expected), text(got)) else {
        return false;
    };
    if (key.contains("size") || key.contains("bytes"))
        && let (Some(e), Some(g)) = (size_bytes(&e), size_bytes(&g))
    {
        return e.iter().any(|b| g.contains(b));
    }
    if key.starts_with("modified")
        && let (Some(e), Some(g)) = (age_days(&e), age_days(&g))
    {
        return e == g;
    }
    false
}

/// What the plan misses of `expected` (empty: every labelled value is there), one line each:
/// `remove-duplicates/remove keep: expected "newest", got "oldest"`.
pub fn param_misses(
    plan: &Plan,
    expected: &Map<String, Value>,
    defaults: &ToolDefaults,
) -> Vec<String> {
    let mut misses = Vec::new();
    for (tool, wanted) in expected {
        let Some(wanted) = wanted.as_object() else {
            continue;
        };
        // Each step's parameters, with the tool's defaults for what it leaves out.
        let steps: Vec<Map<String, Value>> = plan
            .steps
            .iter()
            .filter(|s| format!("{}/{}", s.skill, s.tool) == *tool)
            .map(|s| {
                let mut params = s.params.clone();
                for (k, v) in defaults.get(tool).into_iter().flatten() {
                    params.entry(k.clone()).or_insert_with(|| v.clone());
                }
                params
            })
            .collect();
        if steps.is_empty() {
            misses.push(format!("no step uses {tool}"));
            continue;
        }
        let fits = |params: &Map<String, Value>| {
            wanted
                .iter()
                .all(|(k, v)| value_matches(k, v, params.get(k)))
        };
        if steps.iter().any(fits) {
            continue;
        }
        // Say what the closest step (the first) has instead.
        let first = &steps[0];
        for (k, v) in wanted {
            if !value_matches(k, v, first.get(k)) {
                misses.push(format!(
                    "{tool} {k}: expected {v}, got {}",
                    first.get(k).map_or("nothing".to_owned(), Value::to_string)
                ));
            }
        }
    }
    misses
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn plan(steps: Value) -> Plan {
        serde_json::from_value(json!({ "steps": steps })).unwrap()
    }

    #[test]
    fn labelled_values_are_compared_as_a_person_reads_them() {
        let p = plan(json!([
            {"step": 1, "skill": "remove-duplicates", "tool": "scan", "params": {"path": "~/Downloads/"}},
            {"step": 2, "skill": "remove-duplicates", "tool": "remove",
             "params": {"groups": "$step(1).groups", "keep": "newest"}},
            {"step": 3, "skill": "search-files", "tool": "find",
             "params": {"path": ".", "extension": "PDF,.docx"}}
        ]));
        let expected = |v: Value| v.as_object().unwrap().clone();
        let none = ToolDefaults::new();
        assert!(
            param_misses(
                &p,
                &expected(json!({
                    "remove-duplicates/scan": {"path": "Downloads"},
                    "remove-duplicates/remove": {"keep": {"any_of": ["latest", "newest"]}},
                    "search-files/find": {"extension": ["docx", "pdf"]}
                })),
                &none
            )
            .is_empty()
        );
        assert_eq!(
            param_misses(
                &p,
                &expected(json!({
                    "remove-duplicates/remove": {"keep": "oldest"},
                    "archive-files/create": {"target": "a.zip"},
                    "search-files/find": {"extension": "pdf", "min_size": "1mb"}
                })),
                &none
            ),
            [
                "remove-duplicates/remove keep: expected \"oldest\", got \"newest\"",
                "no step uses archive-files/create",
                "search-files/find extension: expected \"pdf\", got \"PDF,.docx\"",
                "search-files/find min_size: expected \"1mb\", got nothing",
            ]
        );
    }

    #[test]
    fn sizes_ages_and_declared_defaults_count_as_what_they_mean() {
        let p = plan(json!([
            {"step": 1, "skill": "search-files", "tool": "find",
             "params": {"path": "Downloads", "min_size": 104857600, "modified_before": "2 weeks"}},
            {"step": 2, "skill": "remove-duplicates", "tool": "remove", "params": {}}
        ]));
        let labels = json!({
            "search-files/find": {"min_size": "100MB", "modified_before": "14d"},
            "remove-duplicates/remove": {"keep": "newest"}
        });
        let labels = labels.as_object().unwrap();
        let mut defaults = ToolDefaults::new();
        assert_eq!(
            param_misses(&p, labels, &defaults),
            ["remove-duplicates/remove keep: expected \"newest\", got nothing"]
        );
        defaults.insert(
            "remove-duplicates/remove".into(),
            [("keep".to_owned(), json!("newest"))].into(),
        );
        assert!(param_misses(&p, labels, &defaults).is_empty());
        assert_eq!(size_bytes("8 KB"), Some([8000, 8192]));
        let same = |key: &str, a: Value, b: Value| value_matches(key, &a, Some(&b));
        assert!(same(
            "categories",
            json!("Invoices, Recipes and Meeting notes"),
            json!("Invoices, Recipes, Meeting notes")
        ));
        assert!(same(
            "pattern",
            json!("scan_{n:03}.{ext}"),
            json!("scan_{n:03}")
        ));
        assert!(!same(
            "pattern",
            json!("scan_{n:03}.jpg"),
            json!("scan_{n:03}")
        ));
        assert!(same(
            "pattern",
            json!("{year}/{month}"),
            json!("{year}/{month}")
        ));
        assert_eq!(size_bytes("old"), None);
        assert_eq!(age_days("30 days").as_deref(), Some("30d"));
        assert_eq!(age_days("2022-01-01"), None);
    }
}
