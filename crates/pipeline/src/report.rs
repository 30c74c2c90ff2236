//! Plain-words summaries of step results and of the whole run ("Removed 3 duplicate files (saved
//! 12 MB). Organized 44 files into 4 subfolders."). Pure.

use sandbox::human_bytes;
use serde_json::Value;

fn count(v: &Value, key: &str) -> usize {
    match v.get(key) {
        Some(Value::Array(a)) => a.len(),
        Some(Value::Number(n)) => n.as_u64().unwrap_or(0) as usize,
        _ => 0,
    }
}

fn bytes(v: &Value, key: &str) -> u64 {
    v.get(key).and_then(Value::as_u64).unwrap_or(0)
}

/// The reason of the first skipped item ("already exists", ...), for a step that did nothing.
fn skip_reason(data: &Value) -> String {
    data.get("skipped")
        .and_then(|s| s.get(0))
        .and_then(|s| s.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or("was skipped")
        .to_owned()
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One sentence for one step's result, by the operation that produced it.
/// Most characters of a file's text shown in a report.
const ANSWER_CHARS: usize = 4000;

/// What a read-only step found, for the person to read in the report: a file's text, or its
/// embedded metadata as `key: value` lines. `None` for steps whose summary says it all.
pub fn answer(operation: &str, data: &Value) -> Option<String> {
    match operation {
        "summarize" => data
            .get("summary")
            .and_then(Value::as_str)
            .filter(|s| !s.is_empty())
            .map(|s| {
                format!(
                    "Summary ({}):\n{s}",
                    data["by"].as_str().unwrap_or("extracted")
                )
            }),
        "extract_text" => {
            let text = data.get("text")?.as_str()?.trim_end();
            let shown: String = text.chars().take(ANSWER_CHARS).collect();
            let rest = text.chars().count().saturating_sub(ANSWER_CHARS);
            Some(if rest > 0 {
                format!("{shown}\n… ({rest} more characters)")
            } else {
                shown
            })
            .filter(|t| !t.is_empty())
        }
        "read_metadata" => {
            let mut lines = Vec::new();
            if let Some(m) = data.get("modified").and_then(Value::as_str) {
                lines.push(format!("modified: {m}"));
            }
            if let Some(Value::Object(e)) = data.get("embedded") {
                for (k, v) in e {
                    let v = match v {
                        Value::Bool(true) if k == "exif" => continue,
                        Value::String(s) => s.clone(),
                        Value::Object(gps) if k == "gps" => {
                            format!("{}, {}", gps["latitude"], gps["longitude"])
                        }
                        other => other.to_string(),
                    };
                    lines.push(format!("{}: {v}", k.replace('_', " ")));
                }
            }
            if let Some(e) = data.get("embedded_error").and_then(Value::as_str) {
                lines.push(format!("could not read its metadata: {e}"));
            }
            (!lines.is_empty()).then(|| lines.join("\n"))
        }
        _ => None,
    }
}

pub fn summarize(operation: &str, params: &serde_json::Map<String, Value>, data: &Value) -> String {
    let target = params
        .get("target")
        .and_then(Value::as_str)
        .unwrap_or("the target folder");
    match operation {
        "remove_duplicates" => format!(
            "Removed {} (saved {})",
            plural(count(data, "count"), "duplicate file", "duplicate files"),
            human_bytes(bytes(data, "freed_bytes"))
        ),
        "organize_by_type" => {
            let skipped = count(data, "skipped");
            format!(
                "Organized {} into {}{}",
                plural(count(data, "moved"), "file", "files"),
                plural(count(data, "folders"), "subfolder", "subfolders"),
                if skipped > 0 {
                    format!(" ({skipped} left in place)")
                } else {
                    String::new()
                }
            )
        }
        "move_into_folders" => format!(
            "Moved {} into {}",
            plural(count(data, "moved"), "file", "files"),
            plural(count(data, "folders"), "folder", "folders")
        ),
        "classify" => {
            let sure = count(data, "assignments");
            let left = count(data, "left_in_place");
            // A model that read them is named (its `by` is the planner's name for it).
            let with = data
                .get("by")
                .and_then(Value::as_str)
                .and_then(|b| b.strip_prefix("mistralrs:"))
                .map(|m| format!(" with {m}"))
                .unwrap_or_default();
            format!(
                "Read {}{with} for what they are about: {sure} sorted{}",
                plural(count(data, "count"), "file", "files"),
                if left > 0 {
                    format!(", {left} left where they are")
                } else {
                    String::new()
                }
            )
        }
        "delete_node" => format!(
            "Deleted {} (freeing {})",
            plural(count(data, "count"), "item", "items"),
            human_bytes(bytes(data, "freed_bytes"))
        ),
        "move_node" => format!(
            "Moved {} to {target}",
            plural(count(data, "moved"), "item", "items")
        ),
        "copy_node" => format!(
            "Copied {} to {target}",
            plural(count(data, "copied"), "item", "items")
        ),
        "rename_node" | "batch_rename" => {
            format!("Renamed {}", plural(count(data, "moved"), "item", "items"))
        }
        "create_node" => {
            let created: Vec<&str> = data
                .get("created")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            format!("Created {}", created.join(", "))
        }
        "create_archive" if count(data, "created") == 0 => {
            format!("Did not pack anything: {target} {}", skip_reason(data))
        }
        "create_archive" => format!(
            "Packed {} ({}) into {}",
            plural(count(data, "files"), "file", "files"),
            human_bytes(bytes(data, "source_bytes")),
            data.get("path").and_then(Value::as_str).unwrap_or(target)
        ),
        "extract_archive" if count(data, "created") == 0 => {
            format!("Did not extract anything: {target} {}", skip_reason(data))
        }
        "extract_archive" => format!(
            "Extracted {} into {}",
            plural(count(data, "count"), "entry", "entries"),
            data.get("path").and_then(Value::as_str).unwrap_or(target)
        ),
        "find_duplicates" => format!(
            "Found {} of duplicates ({} extra, {} wasted)",
            plural(count(data, "group_count"), "group", "groups"),
            plural(count(data, "duplicate_count"), "copy", "copies"),
            human_bytes(bytes(data, "wasted_bytes"))
        ),
        "get_children" | "find" => {
            format!("Found {}", plural(count(data, "count"), "item", "items"))
        }
        "analyze_directory" => data
            .get("summary")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| {
                format!(
                    "{} using {}",
                    plural(count(data, "file_count"), "file", "files"),
                    human_bytes(bytes(data, "total_size"))
                )
            }),
        "get_metadata" => format!(
            "{}: {}",
            data.get("path").and_then(Value::as_str).unwrap_or("item"),
            human_bytes(bytes(data, "total_size").max(bytes(data, "size")))
        ),
        "extract_text" => {
            let text = data.get("text").and_then(Value::as_str).unwrap_or("");
            let path = data
                .get("path")
                .and_then(Value::as_str)
                .unwrap_or("the file");
            match data.get("kind").and_then(Value::as_str) {
                Some("image" | "audio") => format!(
                    "Read the {} of {path}",
                    if data["kind"] == "image" {
                        "EXIF"
                    } else {
                        "tags"
                    }
                ),
                _ => format!(
                    "Read {} of {path}{}",
                    plural(text.lines().count(), "line", "lines"),
                    if data["truncated"] == true {
                        " (the beginning)"
                    } else {
                        ""
                    }
                ),
            }
        }
        "read_metadata" => format!(
            "{}: {}{}",
            data.get("path").and_then(Value::as_str).unwrap_or("item"),
            human_bytes(bytes(data, "total_size").max(bytes(data, "size"))),
            data.get("content_kind")
                .and_then(Value::as_str)
                .map(|k| format!(", {k}"))
                .unwrap_or_default()
        ),
        "content_search" => format!(
            "Found {} about \"{}\"",
            plural(count(data, "count"), "file", "files"),
            data.get("query").and_then(Value::as_str).unwrap_or("")
        ),
        "skill_match" => {
            let top = data
                .get("hits")
                .and_then(|h| h.get(0))
                .map(|h| {
                    format!(
                        "{}/{}",
                        h["skill"].as_str().unwrap_or(""),
                        h["tool"].as_str().unwrap_or("")
                    )
                })
                .unwrap_or_else(|| "nothing".into());
            format!("Best skill for that: {top}")
        }
        "scaffold_skill" => {
            let name = params.get("name").and_then(Value::as_str).unwrap_or("");
            let drafted: Vec<&str> = data["drafted"]["tools"]
                .as_array()
                .map(|a| a.iter().filter_map(|t| t["name"].as_str()).collect())
                .unwrap_or_default();
            if drafted.is_empty() {
                format!("Will create the skill {name} from the template")
            } else {
                format!(
                    "Will create the skill {name} with {} drafted tool{}: {}",
                    drafted.len(),
                    if drafted.len() == 1 { "" } else { "s" },
                    drafted.join(", ")
                )
            }
        }
        other => format!("{other} done"),
    }
}

/// "11 changes simulated (3 deletions · 4 moves · 4 new folders)", or "no change simulated".
pub(crate) fn simulated(ops: &[sandbox::ChangeOp]) -> String {
    match ops.len() {
        0 => "no change simulated".to_owned(),
        1 => format!("1 change simulated ({})", sandbox::count_text(ops)),
        n => format!("{n} changes simulated ({})", sandbox::count_text(ops)),
    }
}

/// One line for a finished commit: "12 change(s) written, 3 item(s) moved to the trash".
pub(crate) fn commit_summary(r: &sandbox::CommitReport) -> String {
    let mut parts = vec![format!("{} change(s) written", r.applied)];
    if r.trashed > 0 {
        parts.push(format!("{} item(s) moved to the trash", r.trashed));
    }
    if r.deleted > r.trashed {
        parts.push(format!("{} deleted for good", r.deleted - r.trashed));
    }
    if r.restored > 0 {
        parts.push(format!("{} item(s) back from the trash", r.restored));
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Regression: archive summaries read keys the primitives never return ("Packed 0 items").
    #[test]
    fn archive_summaries_use_what_the_primitives_return() {
        let params = json!({"target": "Downloads.zip"})
            .as_object()
            .unwrap()
            .clone();
        let cases = [
            (
                "create_archive",
                json!({"created": ["Downloads.zip"], "path": "Downloads.zip", "files": 6, "source_bytes": 2048}),
                "Packed 6 files (2.0 KB) into Downloads.zip",
            ),
            (
                "create_archive",
                json!({"created": [], "skipped": [{"path": ["Downloads"], "reason": "already exists"}]}),
                "Did not pack anything: Downloads.zip already exists",
            ),
            (
                "extract_archive",
                json!({"created": ["x"], "path": "x", "count": 3, "nodes": 4}),
                "Extracted 3 entries into x",
            ),
        ];
        for (op, data, want) in cases {
            assert_eq!(summarize(op, &params, &data), want, "{op} {data}");
        }
    }
}
