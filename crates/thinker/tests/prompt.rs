//! The LLM planner's prompt for the worked example, rendered as text and compared with a file
//! (`UPDATE_EXPECT=1 cargo test --test prompt` rewrites it): the system message (rules and every
//! skill's tools; the same for every request) and the user message (folder, the guidance of the
//! best-matching skills in their own words, the request).

mod support;

use config::PipelineConfig;
use support::{PlanningWorld, shipped_skills};
use thinker::{PlanRequest, build_prompt};

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
    };
    let prompt = build_prompt(&request, &w.cx(), w.config.planner_guidance_skills).unwrap();
    let rendered = format!(
        "=== system ({} bytes)\n{}\n=== user ({} bytes)\n{}\n",
        prompt.system.len(),
        prompt.system,
        prompt.user.len(),
        prompt.user
    );
    expect_test::expect_file!["snapshots/worked_example_prompt.txt"].assert_eq(&rendered);
}

#[test]
fn the_system_message_is_the_same_for_every_request() {
    let w = world(&shipped_skills());
    let a = build_prompt(&PlanRequest::new("zip the reports"), &w.cx(), 2).unwrap();
    let b = build_prompt(&PlanRequest::new("how big is Music?"), &w.cx(), 2).unwrap();
    assert_eq!(a.system, b.system);
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
}
