//! A SKILL.md body's sections and its worked examples (`Example: "request"` followed by a fenced
//! `json` block with the plan), read the same way by the planner's prompt and by the tools'
//! derived descriptions. Pure.

/// A Markdown section's text: from the `## {title}` heading to the next `## ` heading.
pub fn section<'a>(markdown: &'a str, title: &str) -> Option<&'a str> {
    let mut start = None;
    let mut offset = 0;
    for line in markdown.split_inclusive('\n') {
        let heading = line.trim_end();
        if let Some(start) = start {
            if heading.starts_with("## ") {
                return Some(markdown[start..offset].trim());
            }
        } else if heading.strip_prefix("## ").map(str::trim) == Some(title) {
            start = Some(offset + line.len());
        }
        offset += line.len();
    }
    start.map(|s| markdown[s..].trim())
}

/// The section of a SKILL.md body that teaches the planner.
pub const PLANNER_GUIDANCE: &str = "Planner guidance";

/// One worked example as written: the request and the text of its `json` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GuidanceExample {
    pub request: String,
    pub json: String,
}

/// The request of an `Example: "…"` line: its first quoted text.
fn quoted(line: &str) -> Option<&str> {
    let (open, close) = if line.contains('“') {
        ('“', '”')
    } else {
        ('"', '"')
    };
    let start = line.find(open)? + open.len_utf8();
    let len = line[start..].find(close)?;
    Some(line[start..start + len].trim()).filter(|q| !q.is_empty())
}

/// The worked examples of a skill body's "Planner guidance": each `Example: "request"` line
/// followed by a fenced `json` block; an example line without a block is left out.
pub fn guidance_examples(instructions: &str) -> Vec<GuidanceExample> {
    let Some(section) = section(instructions, PLANNER_GUIDANCE) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut request: Option<&str> = None;
    let mut block: Option<String> = None;
    for line in section.lines() {
        let trimmed = line.trim();
        if let Some(json) = block.as_mut() {
            if trimmed.starts_with("```") {
                let json = block.take().unwrap_or_default();
                if let Some(request) = request.take() {
                    out.push(GuidanceExample {
                        request: request.to_owned(),
                        json,
                    });
                }
            } else {
                json.push_str(line);
                json.push('\n');
            }
        } else if trimmed.starts_with("Example") {
            request = quoted(trimmed);
        } else if trimmed.starts_with("```json") && request.is_some() {
            block = Some(String::new());
        }
    }
    out
}

impl GuidanceExample {
    /// The (skill, tool) pairs its plan names, in step order; empty when the block is not a plan.
    pub fn tools(&self) -> Vec<(String, String)> {
        let Ok(value) = serde_json::from_str::<serde_json::Value>(self.json.trim()) else {
            return Vec::new();
        };
        let steps = value
            .as_array()
            .or_else(|| value.get("steps").and_then(serde_json::Value::as_array));
        steps
            .into_iter()
            .flatten()
            .filter_map(|s| {
                Some((
                    s.get("skill")?.as_str()?.to_owned(),
                    s.get("tool")?.as_str()?.to_owned(),
                ))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_section_runs_to_the_next_heading_of_its_level() {
        let md = "# Title\n\n## When to use\nwhen\n\n## Planner guidance\n- one\n### sub\n- two\n\n## Tools\nx\n";
        assert_eq!(
            section(md, "Planner guidance"),
            Some("- one\n### sub\n- two")
        );
        assert_eq!(section(md, "Tools"), Some("x"));
        assert_eq!(section(md, "Missing"), None);
    }

    #[test]
    fn examples_need_their_json_block_and_name_their_tools() {
        let md = "## Planner guidance\n\nExample: \"tidy Downloads\"\n\n```json\n[{\"step\": 1, \"skill\": \"a\", \"tool\": \"x\"}, {\"skill\": \"b\", \"tool\": \"y\"}]\n```\n\nExample: “no block”\n\n## Tools\n";
        let examples = guidance_examples(md);
        assert_eq!(examples.len(), 1, "{examples:?}");
        assert_eq!(examples[0].request, "tidy Downloads");
        assert_eq!(
            examples[0].tools(),
            vec![("a".into(), "x".into()), ("b".into(), "y".into())]
        );
    }
}
