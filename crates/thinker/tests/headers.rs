//! A request that opens with what it is about and then says what to do ("Documents/report.pdf:
//! summarize it", "Downloads – sort it by type"): the header's file or folder is what the first
//! step acts on, through the shipped skills and the rule planner.

mod support;

use config::PipelineConfig;
use support::PlanningWorld;

/// `skill/tool path` of each step planned for `text`.
fn steps(world: &PlanningWorld, text: &str) -> Vec<String> {
    support::rule_plan(world, text)
        .iter()
        .map(|s| {
            let path = s.params.get("path").and_then(|p| p.as_str()).unwrap_or("-");
            format!("{}/{} {path}", s.skill, s.tool)
        })
        .collect()
}

#[test]
fn a_file_named_in_a_header_is_what_the_first_step_acts_on() {
    let world = PlanningWorld::shipped(PipelineConfig::default());
    // Regression: the header's file was dropped (only a folder in a header was kept), so the
    // step asked for its path.
    for text in [
        "Documents/report.pdf: summarize it",
        "Documents/report.pdf – summarize it",
    ] {
        assert_eq!(
            steps(&world, text),
            ["parse-content/summarize Documents/report.pdf"],
            "{text}"
        );
    }
    // A folder in a header still sets the place.
    assert_eq!(
        steps(&world, "Downloads – sort it by type"),
        ["organize-by-type/organize Downloads"]
    );
}

#[test]
fn a_header_that_is_only_a_name_is_the_folder() {
    let world = PlanningWorld::shipped(PipelineConfig::default());
    assert_eq!(
        steps(&world, "Steam Library: which 8 files are the fattest?"),
        ["analyze-directory/analyze Steam Library"]
    );
    // In German too: the name stays as written, not translated ("Hörbücher" is no
    // "audiobooks").
    assert_eq!(
        steps(
            &world,
            "Hörbücher: doppelte Dateien bitte durch Hardlinks ersetzen"
        ),
        [
            "remove-duplicates/scan Hörbücher",
            "remove-duplicates/remove -"
        ]
    );
}
