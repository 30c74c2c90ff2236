//! What a run refuses or stops on: paths outside the root, files changed before the commit, conflicts.

use super::*;

#[test]
fn a_path_outside_the_root_is_refused_and_nothing_outside_is_touched() {
    let mut w = world(&[("a.txt", "a\n", 1)]);
    std::fs::write(w.dir.path().join("outside.txt"), "precious").unwrap();
    let plan = Plan {
        steps: vec![PlanStep {
            step: 1,
            description: "delete the file".into(),
            skill: "manage-files".into(),
            tool: "delete".into(),
            params: json!({"path": ["../outside.txt"]})
                .as_object()
                .unwrap()
                .clone(),
        }],
    };
    let mut ui = Scripted::default();
    let report = w
        .run(
            &mut Fixed(plan),
            "delete ../outside.txt",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap();
    assert_eq!(report.steps[0].status, StepStatus::Failed);
    let code = &report.steps[0].error.as_ref().unwrap().code;
    assert!(code.contains("SCOPE") || code.contains("OUTSIDE"), "{code}");
    assert!(!report.committed);
    assert_eq!(
        std::fs::read_to_string(w.dir.path().join("outside.txt")).unwrap(),
        "precious"
    );
}

#[test]
fn a_file_changed_on_disk_before_commit_stops_the_commit_with_nothing_written() {
    let mut w = world(&[("a.pdf", "a\n", 1), ("b.jpg", "b\n", 1)]);
    let root = w.root();
    let mut ui = Scripted {
        before_commit: Some(Box::new(move || {
            std::fs::write(root.join("a.pdf"), "edited behind the sandbox's back").unwrap();
        })),
        ..Scripted::default()
    };
    let err = w
        .run(
            &mut RulePlanner,
            "sort this folder by type",
            HitlMode::Bypass,
            &mut ui,
        )
        .unwrap_err();
    assert_eq!(contracts::ErrorCode::code(&err), "COMMIT_CONFLICT", "{err}");
    assert!(err.to_string().contains("a.pdf"), "{err}");
    expect_test::expect![[r#"
        a.pdf
        b.jpg"#]]
    .assert_eq(&w.tree());
}

/// `on_conflict: ask` (from the config): the step stops on the clashing names, the person is
/// asked once for all of them, and the step runs again with the answer.
#[test]
fn a_conflict_is_asked_about_and_the_answer_used() {
    for (answer, expected) in [
        (
            "skip",
            expect_test::expect![[r#"
                Archive/
                Archive/a.pdf
                Archive/b.pdf
                a.pdf"#]],
        ),
        (
            "rename",
            expect_test::expect![[r#"
                Archive/
                Archive/a (2).pdf
                Archive/a.pdf
                Archive/b.pdf"#]],
        ),
    ] {
        let mut w = world(&[
            ("a.pdf", "new a", 1),
            ("b.pdf", "b", 1),
            ("Archive/a.pdf", "old a", 9),
        ]);
        w.config.on_conflict = config::ConflictPolicy::Ask;
        let mut ui = Scripted {
            answers: [("on_conflict".to_owned(), json!(answer))].into(),
            ..Scripted::default()
        };
        let report = w
            .run(
                &mut RulePlanner,
                "move the PDFs to Archive",
                HitlMode::Bypass,
                &mut ui,
            )
            .unwrap();
        assert!(report.committed, "{report:#?}");
        let asked = ui.events.iter().any(|e| {
            matches!(e, Event::Clarification { question, answer: Some(a), .. }
                if question.contains("`Archive/a.pdf`") && a == answer)
        });
        assert!(asked, "{:#?}", ui.events);
        expected.assert_eq(&w.tree());
        assert_eq!(
            std::fs::read_to_string(w.root().join("Archive/a.pdf")).unwrap(),
            "old a"
        );
    }
}
