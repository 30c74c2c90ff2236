//! Where categories come from: the request's list ("into Invoices, Recipes and Meeting notes"),
//! and the guidance file a person keeps beside a folder. Pure: text in, specs out.
//!
//! A guidance file is `.scope-weaver.md` (each `## Heading` is a category; the lines under it
//! describe it and may list examples) or `.scope-weaver.yaml` (`categories:` mapping a name to a
//! description, or to `{description, examples}`).

use serde_json::Value;

use crate::{Result, RetrievalError};

/// A category as the person named or described it, before it is given a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CategorySpec {
    pub name: String,
    pub description: String,
}

impl CategorySpec {
    fn named(name: &str) -> Option<CategorySpec> {
        let name = name
            .trim()
            .trim_matches(|c: char| c == '"' || c == '\'' || c == '.');
        (!name.is_empty()).then(|| CategorySpec {
            name: name.to_owned(),
            description: String::new(),
        })
    }
}

/// The `categories` parameter: a list of names, a text listing them ("Invoices, Recipes and
/// Meeting notes"), or a map of name to description.
pub fn categories_from_param(value: Option<&Value>) -> Result<Vec<CategorySpec>> {
    let bad = |v: &Value| {
        RetrievalError::Params(format!(
            "`categories` must be names (\"Invoices, Recipes\"), a list of names, or a map of \
             name to description; got {v}"
        ))
    };
    Ok(match value {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => split_names(s),
        Some(Value::Array(items)) => {
            let mut out = Vec::new();
            for item in items {
                match item {
                    Value::String(s) => out.extend(CategorySpec::named(s)),
                    other => return Err(bad(other)),
                }
            }
            out
        }
        Some(Value::Object(map)) => {
            let mut out = Vec::new();
            for (name, desc) in map {
                let description = match desc {
                    Value::String(s) => s.clone(),
                    Value::Null => String::new(),
                    other => return Err(bad(other)),
                };
                out.extend(CategorySpec::named(name).map(|c| CategorySpec { description, ..c }));
            }
            out
        }
        Some(other) => return Err(bad(other)),
    })
}

/// "Invoices, Recipes and Meeting notes" → three names; "or", "&" and ";" separate too.
fn split_names(s: &str) -> Vec<CategorySpec> {
    let mut text = format!(" {s} ");
    for sep in [" and ", " or ", " & ", ";"] {
        text = text.replace(sep, ",");
    }
    let mut out: Vec<CategorySpec> = Vec::new();
    for part in text.split(',') {
        if let Some(c) = CategorySpec::named(part)
            && !out.iter().any(|o| o.name.eq_ignore_ascii_case(&c.name))
        {
            out.push(c);
        }
    }
    out
}

/// The categories a guidance file describes. `yaml` picks the format; every problem is an error
/// naming the file's line or key, so a typo never silently drops a category.
pub fn parse_guidance(text: &str, yaml: bool) -> Result<Vec<CategorySpec>> {
    if yaml {
        return parse_yaml(text);
    }
    let mut out: Vec<CategorySpec> = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        if let Some(name) = trimmed.strip_prefix("## ") {
            out.extend(CategorySpec::named(name));
        } else if let Some(last) = out.last_mut()
            && !trimmed.is_empty()
            && !trimmed.starts_with('#')
        {
            let words = trimmed.trim_start_matches(['-', '*', ' ']);
            if !last.description.is_empty() {
                last.description.push(' ');
            }
            last.description.push_str(words);
        }
    }
    Ok(out)
}

fn parse_yaml(text: &str) -> Result<Vec<CategorySpec>> {
    let doc: serde_yaml::Value = serde_yaml::from_str(text)
        .map_err(|e| RetrievalError::Params(format!("guidance file: {e}")))?;
    let Some(map) = doc.get("categories").and_then(|c| c.as_mapping()) else {
        return Err(RetrievalError::Params(
            "guidance file: expected a `categories:` map of name to description".into(),
        ));
    };
    let mut out = Vec::new();
    let mut problems = Vec::new();
    for (k, v) in map {
        let Some(name) = k.as_str() else {
            problems.push(format!("a category name must be text, got {k:?}"));
            continue;
        };
        let description = match v {
            serde_yaml::Value::String(s) => s.clone(),
            serde_yaml::Value::Null => String::new(),
            serde_yaml::Value::Mapping(m) => {
                let mut d = m
                    .get("description")
                    .and_then(|d| d.as_str())
                    .unwrap_or("")
                    .to_owned();
                match m.get("examples") {
                    None => {}
                    Some(serde_yaml::Value::Sequence(ex)) => {
                        for e in ex.iter().filter_map(|e| e.as_str()) {
                            d.push_str(". ");
                            d.push_str(e);
                        }
                    }
                    Some(_) => problems.push(format!("`{name}`: `examples` must be a list")),
                }
                d
            }
            _ => {
                problems.push(format!(
                    "`{name}`: give a description or {{description, examples}}"
                ));
                continue;
            }
        };
        out.extend(CategorySpec::named(name).map(|c| CategorySpec { description, ..c }));
    }
    if !problems.is_empty() {
        return Err(RetrievalError::Params(format!(
            "guidance file: {}",
            problems.join("; ")
        )));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(v: &[CategorySpec]) -> Vec<&str> {
        v.iter().map(|c| c.name.as_str()).collect()
    }

    #[test]
    fn a_request_lists_categories_in_words_or_as_a_list() {
        let v = categories_from_param(Some(&json!("Invoices, Recipes and Meeting notes"))).unwrap();
        assert_eq!(names(&v), ["Invoices", "Recipes", "Meeting notes"]);
        let v = categories_from_param(Some(&json!(["Work", "Home", "work"]))).unwrap();
        assert_eq!(names(&v), ["Work", "Home", "work"]);
        let v =
            categories_from_param(Some(&json!({"Taxes": "letters from the tax office"}))).unwrap();
        assert_eq!(v[0].description, "letters from the tax office");
        let e = categories_from_param(Some(&json!(42))).unwrap_err();
        assert!(e.to_string().contains("`categories` must be"), "{e}");
    }

    #[test]
    fn a_markdown_guidance_file_describes_a_category_per_heading() {
        let md = "# How I file things\n\nIntro.\n\n## Invoices\nBills from shops and \
                  services.\n- e.g. the electricity bill\n\n## Recipes\nAnything to cook.\n\
                  ```\n## not a heading\n```\n";
        let v = parse_guidance(md, false).unwrap();
        assert_eq!(names(&v), ["Invoices", "Recipes"]);
        assert_eq!(
            v[0].description,
            "Bills from shops and services. e.g. the electricity bill"
        );
    }

    #[test]
    fn a_yaml_guidance_file_reports_every_problem() {
        let y = "categories:\n  Invoices: bills and amounts due\n  Recipes:\n    description: \
                 cooking\n    examples: [banana bread]\n";
        let v = parse_guidance(y, true).unwrap();
        assert_eq!(v[1].description, "cooking. banana bread");
        let bad = "categories:\n  A: [1, 2]\n  B:\n    examples: nope\n";
        let e = parse_guidance(bad, true).unwrap_err().to_string();
        assert!(e.contains("`A`") && e.contains("`B`"), "{e}");
        assert!(parse_guidance("- just a list", true).is_err());
    }
}
