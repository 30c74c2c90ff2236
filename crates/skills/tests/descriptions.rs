//! Self-describing tools: descriptions derived from a SKILL.md, stored beside it, stale when the
//! SKILL.md changes, a broken file reported and ignored.

use std::path::Path;

use expect_test::expect;
use skills::{DESCRIPTIONS_FILE, SkillStore, engine_primitive_table, write_descriptions};

fn table() -> contracts::PrimitiveTable {
    engine_primitive_table(sandbox::graph_primitive_table())
}

const SKILL: &str = r#"---
name: tidy-screens
description: >
  Clear old screenshots off the Desktop. Moves them to an archive folder.
tags: [screenshots, desktop]
triggers:
  - "clear screenshots from {path}"
---

# Tidy screens

## Planner guidance

Example: "get the old screenshots off my Desktop"

```json
[{"step": 1, "skill": "tidy-screens", "tool": "shots", "params": {"path": "Desktop"}}]
```

## Tools

### shots -- Find screenshots in a folder
primitive: graph | method: find | required: [path] | optional: [extension]
triggers: ["find {extension} screenshots in {path}"]
keywords: [screenshot]
"#;

fn write_skill(dir: &Path, text: &str) -> std::path::PathBuf {
    let folder = dir.join("tidy-screens");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("SKILL.md"), text).unwrap();
    folder
}

fn shots(store: &SkillStore) -> contracts::ToolDescription {
    store.get("tidy-screens").unwrap().definition.tools["shots"]
        .described
        .clone()
        .expect("every tool is described")
}

#[test]
fn without_a_file_the_tools_are_described_from_their_skill_md() {
    let dir = tempfile::tempdir().unwrap();
    write_skill(dir.path(), SKILL);
    let store = SkillStore::load(dir.path(), table()).unwrap();
    let origin = &store.get("tidy-screens").unwrap().descriptions;
    assert!(!origin.stored);
    assert_eq!(origin.generated_by, "derived");
    assert_eq!(origin.reason.as_deref(), Some("no descriptions.json"));
    expect![[r#"
        ToolDescription {
            summary: "Find screenshots in a folder.",
            examples: [
                "get the old screenshots off my Desktop",
                "find … screenshots in Downloads",
                "clear screenshots from Downloads",
            ],
            tags: [
                "screenshot",
                "screenshots",
                "desktop",
            ],
        }
    "#]]
    .assert_debug_eq(&shots(&store));
}

#[test]
fn a_stored_file_is_used_until_the_skill_md_changes() {
    let dir = tempfile::tempdir().unwrap();
    let folder = write_skill(dir.path(), SKILL);
    let mut tools = std::collections::BTreeMap::new();
    tools.insert(
        "shots".to_owned(),
        contracts::ToolDescription {
            summary: "Finds the screen captures cluttering a folder.".into(),
            examples: vec!["where are my screen grabs".into()],
            tags: vec!["screenshots".into()],
        },
    );
    write_descriptions(&folder, SKILL, "qwen.gguf", &tools).unwrap();
    let mut store = SkillStore::load(dir.path(), table()).unwrap();
    let origin = store.get("tidy-screens").unwrap().descriptions.clone();
    assert!(origin.stored && origin.by_model(), "{origin:?}");
    assert_eq!(shots(&store).examples, vec!["where are my screen grabs"]);

    // An edit makes the file stale: the derived descriptions stand until it is written again.
    std::fs::write(
        folder.join("SKILL.md"),
        SKILL.replace("old screenshots", "screenshots"),
    )
    .unwrap();
    store.reload(&folder);
    let origin = store.get("tidy-screens").unwrap().descriptions.clone();
    assert!(!origin.stored);
    assert!(
        origin
            .reason
            .as_deref()
            .unwrap()
            .contains("(qwen.gguf) was written for another version"),
        "{origin:?}"
    );
    assert_eq!(
        shots(&store).examples[0],
        "get the screenshots off my Desktop"
    );
}

#[test]
fn a_broken_file_is_reported_and_the_skill_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let folder = write_skill(dir.path(), SKILL);
    std::fs::write(folder.join(DESCRIPTIONS_FILE), "{\"generated_by\": \n oops").unwrap();
    let store = SkillStore::load(dir.path(), table()).unwrap();
    assert!(store.get("tidy-screens").is_some());
    let d: Vec<String> = store
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(d.len(), 1, "{d:?}");
    assert!(
        d[0].contains("BAD_DESCRIPTIONS") && d[0].contains(":2"),
        "{d:?}"
    );

    // A tool the skill does not have is named, the rest is used.
    let mut tools = std::collections::BTreeMap::new();
    tools.insert("gone".to_owned(), contracts::ToolDescription::default());
    write_descriptions(&folder, SKILL, "derived", &tools).unwrap();
    let store = SkillStore::load(dir.path(), table()).unwrap();
    let d: Vec<String> = store
        .diagnostics()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert!(
        d.len() == 1 && d[0].contains("`gone` is not a tool of `tidy-screens`"),
        "{d:?}"
    );
    assert!(shots(&store).summary.starts_with("Find screenshots"));
}
