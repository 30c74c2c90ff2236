//! The LLM planner's prompt for the worked example, rendered as text and compared with a file
//! (`UPDATE_EXPECT=1 cargo test --test prompt` rewrites it): the system message (rules and every
//! skill's tools) and the skills' worked examples as earlier turns, the same for every request,
//! then the user message (folder, the guidance of the best-matching skills in their own words,
//! the request).

mod support;

use config::PipelineConfig;
use support::{PlanningWorld, shipped_skills};
use thinker::{PlanRequest, Role, build_prompt, worked_examples};

fn world(skills_dir: &std::path::Path) -> PlanningWorld {
    PlanningWorld::new(skills_dir, PipelineConfig::default())
}

#[test]
fn the_worked_example_prompt() {
    let w = world(&shipped_skills());
    let request = PlanRequest {
        text:
            "Clean up my Downloads folder – remove duplicates, then organize the remaining files \
               into subfolders by type"
                .into(),
        root_name: Some("home".into()),
        entries: vec!["Downloads".into(), "Documents".into(), "Pictures".into()],
        learned: Vec::new(),
    };
    let prompt = build_prompt(&request, &w.cx(), w.config.planner_guidance_skills).unwrap();
    let rendered: String = prompt
        .turns()
        .iter()
        .map(|(role, text)| format!("=== {role:?} ({} bytes)\n{text}\n", text.len()))
        .collect();
    expect_test::expect_file!["snapshots/worked_example_prompt.txt"].assert_eq(&rendered);
}

#[test]
fn the_system_message_is_the_same_for_every_request() {
    let w = world(&shipped_skills());
    let a = build_prompt(&PlanRequest::new("zip the reports"), &w.cx(), 2).unwrap();
    let b = build_prompt(&PlanRequest::new("how big is Music?"), &w.cx(), 2).unwrap();
    assert_eq!(a.system, b.system);
    assert_eq!(a.examples, b.examples);
    let (ta, tb) = (a.turns(), b.turns());
    assert_eq!(ta[..ta.len() - 1], tb[..tb.len() - 1]);
    assert_ne!(a.user, b.user);
    assert!(a.user.ends_with("Request: zip the reports"));
}

#[test]
fn a_skill_written_in_the_editor_teaches_the_planner_in_its_own_words() {
    // A plain Agent Skills file (name and description only) contributes its body when it matches.
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(shipped_skills()).unwrap() {
        let entry = entry.unwrap();
        let to = dir.path().join(entry.file_name());
        std::fs::create_dir_all(&to).unwrap();
        std::fs::copy(entry.path().join("SKILL.md"), to.join("SKILL.md")).unwrap();
    }
    let own = dir.path().join("tidy-screenshots");
    std::fs::create_dir_all(&own).unwrap();
    std::fs::write(
        own.join("SKILL.md"),
        "---\nname: tidy-screenshots\ndescription: \"Tidy screenshots: move every screenshot \
         image into a Screenshots folder.\"\n---\n\n# Tidy screenshots\n\nScreenshots are the files \
         named `Screenshot*.png`. Find them with search-files `find` (pattern \
         `Screenshot*.png`), then move them with manage-files `move` into `Screenshots`.\n",
    )
    .unwrap();
    let w = world(dir.path());
    assert!(w.store.get("tidy-screenshots").is_some());
    let prompt = build_prompt(&PlanRequest::new("tidy the screenshots"), &w.cx(), 2).unwrap();
    assert!(
        prompt.skills.iter().any(|s| s == "tidy-screenshots"),
        "{:?}",
        prompt.skills
    );
    assert!(
        prompt.user.contains(
            "How to plan with tidy-screenshots:\n# Tidy screenshots\n\nScreenshots are the files"
        ),
        "{}",
        prompt.user
    );
    // An instruction-only skill has no tools: it is not in the catalogue of tools.
    assert!(!prompt.system.contains("tidy-screenshots"));
    // With no guidance slots (a shorter prompt), its text is still its only way in.
    let lean = build_prompt(&PlanRequest::new("tidy the screenshots"), &w.cx(), 0).unwrap();
    assert_eq!(lean.skills, ["tidy-screenshots"]);
    // A tool skill's guidance is left out then: its worked examples are in the opening.
    let plain = build_prompt(&PlanRequest::new("zip the reports"), &w.cx(), 0).unwrap();
    assert!(plain.skills.is_empty(), "{:?}", plain.skills);
}

#[test]
fn every_shipped_skill_teaches_by_a_worked_example_that_validates() {
    let w = world(&shipped_skills());
    let prompt = build_prompt(&PlanRequest::new("zip the reports"), &w.cx(), 0).unwrap();
    for skill in w.store.skills() {
        let name = skill.definition.name.as_str();
        if name == "skill-template" || skill.definition.is_instruction_only() {
            continue;
        }
        let taught = prompt
            .examples
            .iter()
            .any(|e| e.plan.steps.iter().any(|s| s.skill == name));
        assert!(taught, "{name} has no worked example");
    }
    // Each is a request turn and its plan turn, after the system message and the "ask" example.
    let turns = prompt.turns();
    assert_eq!(turns.len(), 1 + 2 + 2 * prompt.examples.len() + 1);
    assert_eq!(turns[0].0, Role::System);
    assert!(turns[2].1.starts_with("{\"question\":"), "{}", turns[2].1);
    assert_eq!(turns[4].0, Role::Assistant);
    assert!(
        turns[4].1.starts_with("{\"steps\":[{\"skill\":"),
        "{}",
        turns[4].1
    );
}

#[test]
fn an_example_that_does_not_validate_is_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let skill = dir.path().join("tidy-logs");
    std::fs::create_dir_all(&skill).unwrap();
    std::fs::write(
        skill.join("SKILL.md"),
        "---\nname: tidy-logs\ndescription: Delete old log files from a folder.\n---\n\n\
         # Tidy logs\n\n## Planner guidance\n\n- Find, then delete.\n\n\
         Example: \"delete the logs in Temp\"\n\n```json\n\
         [{\"step\": 1, \"skill\": \"tidy-logs\", \"tool\": \"sweep\", \"params\": {\"path\": \"Temp\"}}]\n```\n\n\
         Example: \"list the logs\"\n\n```json\n\
         [{\"step\": 1, \"skill\": \"tidy-logs\", \"tool\": \"list\", \"params\": {\"path\": \".\"}}]\n```\n\n\
         ## Tools\n\n### list -- List the files in a folder\n\
         primitive: graph | method: get_children | mutates: false | required: [path] | optional: []\n",
    )
    .unwrap();
    let w = world(dir.path());
    let loaded = w.store.get("tidy-logs").expect("the skill loads");
    let examples = worked_examples(&loaded.definition, &w.store);
    // `sweep` is not a tool of the skill: that example would teach a wrong plan.
    assert_eq!(examples.len(), 1, "{examples:?}");
    assert_eq!(examples[0].request, "list the logs");
    assert_eq!(examples[0].plan.steps[0].tool, "list");
}
