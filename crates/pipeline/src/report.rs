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

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One sentence for one step's result, by the operation that produced it.
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
        "create_archive" => format!(
            "Packed {} into {target}",
            plural(
                count(data, "entries").max(count(data, "sources")),
                "item",
                "items"
            )
        ),
        "extract_archive" => format!(
            "Extracted {}",
            plural(
                count(data, "created").max(count(data, "entries")),
                "entry",
                "entries"
            )
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
        "extract_text" => format!(
            "Read {} characters",
            data.get("text").and_then(Value::as_str).map_or(0, str::len)
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
        "scaffold_skill" => format!(
            "Will create the skill {}",
            params.get("name").and_then(Value::as_str).unwrap_or("")
        ),
        other => format!("{other} done"),
    }
}
