//! The worked example, and rolling back steps or to a snapshot at the final review.

use super::*;

#[test]
fn worked_example_removes_duplicates_except_the_excluded_pair_then_sorts_by_type() {
    let mut w = world(&downloads());
    let mut ui = Scripted::default();
    // Step 2 (remove) pauses in `key` mode; the person keeps both report versions.
    ui.overrides.insert(
        2,
        json!({"exclude": ["report_v1.pdf", "report_final.pdf"]})
            .as_object()
            .unwrap()
            .clone(),
    );
    let report = w
        .run(
            &mut RulePlanner,
            "Clean up my Downloads folder – remove duplicates, then organize the remaining files \
             into subfolders by type",
            HitlMode::Key,
            &mut ui,
        )
        .unwrap();
    let plan: Vec<String> = report
        .plan
        .steps
        .iter()
        .map(|s| format!("{}/{}", s.skill, s.tool))
        .collect();
    assert_eq!(
        plan,
        [
            "remove-duplicates/scan",
            "remove-duplicates/remove",
            "organize-by-type/organize"
        ]
    );
    assert!(report.committed);
    assert_eq!(report.overrides, 1);
    // Only mutating steps were reviewed (key mode); step 2 twice (before and after the override).
    assert_eq!(ui.reviews, [2, 2, 3]);
    expect_test::expect![[r#"
        Audio/
        Audio/song.mp3
        Data/
        Data/export.csv
        Documents/
        Documents/notes.txt
        Documents/report_final.pdf
        Documents/report_v1.pdf
        Images/
        Images/beach.jpg
        Installers/
        Installers/setup.exe
        old/"#]]
    .assert_eq(&w.tree());
    assert!(
        report.text.starts_with(
            "Removed 2 duplicate files (saved 26 B). Organized 7 files into 5 subfolders."
        ),
        "{}",
        report.text
    );
    assert!(
        ui.events
            .iter()
            .any(|e| matches!(e, Event::Reindexed { .. }))
    );
}

#[test]
fn final_review_rolls_back_to_a_step_then_commits_the_rest() {
    let mut w = world(&downloads());
    // At the final diff review the person undoes the sorting (step 3) and keeps the dedup.
    let mut ui = Scripted {
        roll_back_to: Some("snap-3".into()),
        ..Scripted::default()
    };
    let report = w
        .run(
            &mut RulePlanner,
            "remove duplicates in Downloads, then sort the rest into folders by type",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap();
    let points: Vec<String> = ui.diff_reviews[0]
        .rollback_points
        .iter()
        .map(|p| {
            format!(
                "{} {} {}/{} {}",
                p.step, p.snapshot, p.skill, p.tool, p.changes
            )
        })
        .collect();
    expect_test::expect![[r#"
        [
            "2 snap-2 remove-duplicates/remove 3",
            "3 snap-3 organize-by-type/organize 11",
        ]
    "#]]
    .assert_debug_eq(&points);
    // Asked again with only step 2's changes, all of them deletes.
    assert_eq!(ui.diff_reviews.len(), 2);
    assert_eq!(ui.diff_reviews[1].rollback_points.len(), 1);
    assert!(ui.diff_reviews[1].ops.iter().all(|op| op.is_destructive()));
    assert!(report.committed);
    assert_eq!(report.rollbacks, 1);
    assert_eq!(report.steps[2].status, StepStatus::RolledBack);
    let rolled: Vec<&Event> = ui
        .events
        .iter()
        .filter(|e| matches!(e, Event::RolledBack { .. }))
        .collect();
    expect_test::expect![[r#"
        [
            RolledBack {
                step: 3,
                snapshot: "snap-3",
                undone: 28,
            },
        ]
    "#]]
    .assert_debug_eq(&rolled);
    expect_test::expect![[r#"
        beach.jpg
        export.csv
        notes.txt
        old/
        report_final.pdf
        setup.exe
        song.mp3"#]]
    .assert_eq(&w.tree());
}

#[test]
fn a_rollback_point_that_does_not_exist_is_a_warning_and_the_diff_is_asked_again() {
    let mut w = world(&downloads());
    let mut ui = Scripted {
        roll_back_to: Some("snap-99".into()),
        ..Scripted::default()
    };
    let report = w
        .run(
            &mut RulePlanner,
            "remove duplicates in Downloads",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap();
    assert!(report.committed);
    assert_eq!(ui.diff_reviews.len(), 2);
    assert!(ui.events.iter().any(|e| matches!(
        e,
        Event::Warning { message, .. } if message.contains("snap-99")
    )));
}

#[test]
fn rolling_back_a_step_skips_its_dependents_with_dependency_unavailable() {
    let mut w = world(&[
        ("Temp/a.log", "x\n", 1),
        ("Temp/b.log", "y\n", 1),
        ("keep.txt", "k\n", 1),
    ]);
    let mut ui = Scripted {
        roll_back: vec![1],
        ..Scripted::default()
    };
    let report = w
        .run(
            &mut RulePlanner,
            "find all .log files in Temp and delete them",
            HitlMode::All,
            &mut ui,
        )
        .unwrap();
    let statuses: Vec<(u32, StepStatus)> =
        report.steps.iter().map(|s| (s.step, s.status)).collect();
    assert_eq!(
        statuses,
        [(1, StepStatus::RolledBack), (2, StepStatus::Skipped)]
    );
    assert_eq!(
        report.steps[1].error.as_ref().unwrap().code,
        "DEPENDENCY_UNAVAILABLE"
    );
    assert!(!report.committed);
    assert!(w.root().join("Temp/a.log").exists() && w.root().join("Temp/b.log").exists());
}
