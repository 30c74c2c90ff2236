//! Workflow skills (a SKILL.md with `steps:`): a good one loads with its parameters, steps and
//! conditions; a broken one reports every problem with its line; a run's plan saved as a
//! workflow loads back and plans the same steps.

use std::collections::BTreeMap;
use std::path::Path;

use expect_test::expect;
use skills::{SkillStore, check_skill_md, engine_primitive_table, workflow_from_run};

fn table() -> contracts::PrimitiveTable {
    engine_primitive_table(sandbox::graph_primitive_table())
}

const TIDY: &str = r#"---
name: tidy
description: Remove duplicates, then sort the rest by type.
triggers: ["tidy {path}", "tidy up"]
parameters:
  - {name: path, type: path, default: Downloads}
steps:
  - {skill: remove-duplicates, tool: scan, params: {path: "{path}", extension: jpg}}
  - {skill: remove-duplicates, tool: remove, params: {groups: "$step(1).groups"}}
  - {skill: organize-by-type, tool: organize, params: {path: "{path}"}}
preconditions:
  - {check: exists, path: "{path}"}
  - {check: free_space, path: "{path}", value: 1 GB}
postconditions:
  - {check: no_loose_files, path: "{path}", message: Everything should be in a folder}
---

# Tidy
"#;

#[test]
fn a_workflow_skill_loads_with_its_steps_parameters_and_conditions() {
    let file = Path::new("skills/tidy/SKILL.md");
    let (def, diags) = check_skill_md(TIDY, file, &table());
    assert!(diags.is_empty(), "{diags:?}");
    let def = def.unwrap();
    assert!(def.tools.is_empty() && !def.is_instruction_only());
    let w = def.workflow.unwrap();
    assert_eq!(w.parameters[0].default.as_deref(), Some("Downloads"));
    assert_eq!(w.steps.len(), 3);
    assert_eq!(w.preconditions.len(), 2);
    let plan = w.plan("tidy", &BTreeMap::from([("path".into(), "Desktop".into())]));
    // Keys sorted: serde_json keeps insertion order when a crate of the workspace asks for it.
    let rendered: Vec<String> = plan
        .steps
        .iter()
        .map(|s| {
            let params: BTreeMap<&String, &serde_json::Value> = s.params.iter().collect();
            format!(
                "{} {}/{} {}",
                s.step,
                s.skill,
                s.tool,
                serde_json::to_string(&params).unwrap()
            )
        })
        .collect();
    expect![[r#"
        [
            "1 remove-duplicates/scan {\"extension\":\"jpg\",\"path\":\"Desktop\"}",
            "2 remove-duplicates/remove {\"groups\":\"$step(1).groups\"}",
            "3 organize-by-type/organize {\"path\":\"Desktop\"}",
        ]
    "#]]
    .assert_debug_eq(&rendered);
}

#[test]
fn a_broken_workflow_reports_every_problem() {
    let text = r#"---
name: broken
description: Every mistake at once.
triggers: ["tidy {folder}"]
parameters:
  - {name: path, type: folder}
  - {name: size}
steps:
  - {skill: remove-duplicates, tool: remove, params: {groups: "$step(2).groups", path: "{where}"}}
  - {skill: remove-duplicates}
preconditions:
  - {check: is_sunny}
  - {check: free_space, path: "{path}"}
---

### scan -- a tool a workflow must not declare
primitive: graph | method: find_duplicates | mutates: false | required: [path]
"#;
    let (def, diags) = check_skill_md(text, Path::new("skills/broken/SKILL.md"), &table());
    assert!(def.is_none());
    let rendered: String = diags.iter().map(|d| format!("{d}\n")).collect();
    expect![[r#"
        skills/broken/SKILL.md:4: error[UNKNOWN_SLOT]: trigger "tidy {folder}" fills `{folder}`, which is not a declared parameter
        skills/broken/SKILL.md:5: error[BAD_PARAMETER]: parameter `path` has type `folder`; use one of path, text
        skills/broken/SKILL.md:5: error[UNFILLED_PARAMETER]: parameter `size` has no default and no trigger fills it
        skills/broken/SKILL.md:8: error[BAD_STEP_REFERENCE]: step 1 refers to `$step(2)`: a step may only use an earlier step's result
        skills/broken/SKILL.md:8: error[BAD_STEP]: step 2: missing field `tool`
        skills/broken/SKILL.md:8: error[UNKNOWN_SLOT]: `{where}` is used but not declared under `parameters`
        skills/broken/SKILL.md:11: error[BAD_CONDITION]: preconditions 1: unknown check `is_sunny`; use one of exists, no_duplicates, no_loose_files, free_space
        skills/broken/SKILL.md:11: error[BAD_CONDITION]: preconditions 2: `free_space` needs a `value`
        skills/broken/SKILL.md:16: error[WORKFLOW_WITH_TOOLS]: a workflow (a skill with `steps:`) runs other skills' tools and declares none of its own; move this tool to a skill of its own
    "#]]
    .assert_eq(&rendered);
}

#[test]
fn a_committed_plan_saved_as_a_workflow_loads_back_and_plans_the_same_steps_elsewhere() {
    let store = SkillStore::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
        table(),
    )
    .unwrap();
    let steps: Vec<contracts::PlanStep> = serde_json::from_value(serde_json::json!([
        {"step": 1, "skill": "remove-duplicates", "tool": "scan", "params": {"path": "Downloads", "recursive": true}},
        {"step": 2, "skill": "remove-duplicates", "tool": "remove", "params": {"groups": "$step(1).groups", "keep": "newest", "reference": ["Downloads/Keep"]}},
        {"step": 3, "skill": "organize-by-type", "tool": "organize", "params": {"path": "Downloads", "recursive": false}}
    ]))
    .unwrap();
    let saved = workflow_from_run(
        "tidy-up",
        "Remove duplicates in downloads, then sort the rest by type.",
        "run1",
        &steps,
        &store,
    );
    assert_eq!(
        saved.triggers,
        [
            "tidy up {path}",
            "Remove duplicates in {path}, then sort the rest by type"
        ]
    );
    let (def, diags) = check_skill_md(
        &saved.skill_md,
        Path::new("skills/tidy-up/SKILL.md"),
        store.table(),
    );
    assert!(diags.is_empty(), "{diags:?}\n{}", saved.skill_md);
    let w = def.unwrap().workflow.unwrap();
    assert_eq!(w, saved.workflow);
    assert_eq!(w.source_runs, ["run1"]);
    // What the tools ensure, with the scan's own filters.
    let post: Vec<String> = w
        .postconditions
        .iter()
        .map(|c| {
            format!(
                "{} {} {}",
                c.check.name(),
                c.path.as_deref().unwrap(),
                serde_json::Value::Object(c.params.clone())
            )
        })
        .collect();
    assert_eq!(
        post,
        [
            "no_duplicates {path} {\"recursive\":true}",
            "no_loose_files {path} {}"
        ]
    );
    let plan = w.plan(
        "tidy-up",
        &BTreeMap::from([("path".into(), "Desktop".into())]),
    );
    let mut expected = steps.clone();
    expected[0].params["path"] = "Desktop".into();
    expected[1].params["reference"] = serde_json::json!(["Desktop/Keep"]);
    expected[2].params["path"] = "Desktop".into();
    for (got, want) in plan.steps.iter().zip(&expected) {
        assert_eq!(
            (&got.skill, &got.tool, &got.params),
            (&want.skill, &want.tool, &want.params)
        );
    }
}

/// Values the request said word for word become parameters of their own (their default what the
/// run used), so the saved trigger takes another extension or target as well as another folder.
#[test]
fn values_the_request_said_are_lifted_into_parameters_of_their_own() {
    let store = SkillStore::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills"),
        table(),
    )
    .unwrap();
    let steps: Vec<contracts::PlanStep> = serde_json::from_value(serde_json::json!([
        {"step": 1, "skill": "manage-files", "tool": "find", "params": {"path": "Downloads", "extension": "pdf", "recursive": false}},
        {"step": 2, "skill": "manage-files", "tool": "move", "params": {"source": "$step(1).nodes", "target": "Documents/PDFs"}}
    ]))
    .unwrap();
    let saved = workflow_from_run(
        "file-pdfs",
        "Move the pdf files in Downloads into Documents/PDFs",
        "run7",
        &steps,
        &store,
    );
    assert_eq!(
        saved.triggers,
        [
            "file pdfs {path}",
            "Move the {extension} files in {path} into {target}"
        ]
    );
    let (def, diags) = check_skill_md(
        &saved.skill_md,
        Path::new("skills/file-pdfs/SKILL.md"),
        store.table(),
    );
    assert!(diags.is_empty(), "{diags:?}\n{}", saved.skill_md);
    let w = def.unwrap().workflow.unwrap();
    let params: Vec<String> = w
        .parameters
        .iter()
        .map(|p| {
            format!(
                "{} {} = {:?}: {}",
                p.name, p.r#type, p.default, p.description
            )
        })
        .collect();
    expect![[r#"
        [
            "path path = Some(\"Downloads\"): The folder to work on",
            "extension text = Some(\"pdf\"): `extension` of manage-files/find (the run said \"pdf\")",
            "target text = Some(\"Documents/PDFs\"): `target` of manage-files/move (the run said \"Documents/PDFs\")",
        ]
    "#]]
    .assert_debug_eq(&params);
    // Said again with other values, the same steps with those values.
    let plan = w.plan(
        "file-pdfs",
        &BTreeMap::from([
            ("path".into(), "Desktop".into()),
            ("extension".into(), "jpg".into()),
            ("target".into(), "Pictures/Trips".into()),
        ]),
    );
    assert_eq!(plan.steps[0].params["extension"], "jpg");
    assert_eq!(plan.steps[0].params["path"], "Desktop");
    assert_eq!(plan.steps[1].params["target"], "Pictures/Trips");
    assert_eq!(plan.steps[1].params["source"], "$step(1).nodes");
    // A value the request did not say stays as it was (`recursive`), and a trigger that leaves
    // a slot out takes its default.
    assert_eq!(plan.steps[0].params["recursive"], false);
    let defaults = w.plan(
        "file-pdfs",
        &w.parameters
            .iter()
            .map(|p| (p.name.clone(), p.default.clone().unwrap()))
            .collect(),
    );
    assert_eq!(defaults.steps[1].params["target"], "Documents/PDFs");
}
