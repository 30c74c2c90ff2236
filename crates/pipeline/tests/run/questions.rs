//! What the person is asked: a failing model planner, the near-miss picker, missing parameters, rephrasing.

use super::*;

/// A model planner that cannot plan, behind the rule planner (what `build_planner` builds).
struct BrokenModel;

impl Planner for BrokenModel {
    fn name(&self) -> String {
        "mistralrs:broken.gguf".into()
    }
    fn plan(
        &mut self,
        _r: &PlanRequest,
        _c: &PlanningContext,
        _k: &PlanControl,
    ) -> thinker::Result<Planned> {
        Err(thinker::ThinkerError::InvalidOutput {
            attempts: 3,
            last: "step 1: UNKNOWN_TOOL".into(),
        })
    }
}

#[test]
fn a_model_that_cannot_plan_falls_back_to_the_rule_planner_and_the_run_says_so() {
    let mut w = world(&[("a.txt", "same\n", 1), ("b.txt", "same\n", 2)]);
    let mut ui = Scripted::default();
    let mut planner = thinker::WithRuleFallback::new(Box::new(BrokenModel));
    let report = w
        .run(
            &mut planner,
            "remove duplicates in Downloads",
            HitlMode::Key,
            &mut ui,
        )
        .unwrap();
    assert_eq!(report.planner, "rule (fallback from mistralrs:broken.gguf)");
    let warning = ui
        .events
        .iter()
        .find_map(|e| match e {
            Event::Warning {
                step: None,
                message,
            } => Some(message.clone()),
            _ => None,
        })
        .expect("a warning about the fallback");
    assert!(
        warning
            .contains("mistralrs:broken.gguf could not plan this request (PLANNER_INVALID_OUTPUT"),
        "{warning}"
    );
    // The fallback plan went through the same approvals (the delete was shown) and committed.
    assert!(
        ui.events
            .iter()
            .any(|e| matches!(e, Event::Approved { step: 2, .. })),
        "{:?}",
        ui.events
    );
    assert!(report.committed);
    assert_eq!(w.tree(), "a.txt");
}

#[test]
fn near_miss_lets_the_person_pick_another_skill_and_logs_the_choice() {
    let mut w = world(&[("a.pdf", "pdf\n", 1), ("b.jpg", "jpg\n", 1)]);
    // The plan names manage-files/list, but the step says to sort by type.
    let plan = Plan {
        steps: vec![PlanStep {
            step: 1,
            description: "sort the files in this folder into folders by type".into(),
            skill: "manage-files".into(),
            tool: "list".into(),
            params: json!({"path": "."}).as_object().unwrap().clone(),
        }],
    };
    let mut ui = Scripted {
        pick: Some("organize-by-type".into()),
        ..Scripted::default()
    };
    let report = w
        .run(&mut Fixed(plan), "sort by type", HitlMode::Bypass, &mut ui)
        .unwrap();
    assert_eq!(report.near_misses, 1);
    let chosen = ui.events.iter().find_map(|e| match e {
        Event::NearMiss {
            chosen, candidates, ..
        } => Some((chosen.clone(), candidates.len())),
        _ => None,
    });
    let (chosen, n) = chosen.expect("near-miss logged");
    assert_eq!(chosen.unwrap().skill, "organize-by-type");
    assert!(n >= 2);
    assert_eq!(report.steps[0].skill, "organize-by-type");
    assert!(w.root().join("Documents/a.pdf").exists());
    assert!(w.root().join("Images/b.jpg").exists());
}

#[test]
fn a_missing_parameter_is_asked_for_and_the_answer_used() {
    let mut w = world(&[
        ("a.pdf", "a\n", 1),
        ("b.pdf", "b\n", 1),
        ("c.txt", "c\n", 1),
    ]);
    std::fs::create_dir(w.root().join("Archive")).unwrap();
    let mut ui = Scripted::default();
    ui.answers.insert("target".into(), json!("Archive"));
    let report = w
        .run(&mut RulePlanner, "move the PDFs", HitlMode::Bypass, &mut ui)
        .unwrap();
    assert!(ui.events.iter().any(|e| matches!(
        e,
        Event::Clarification { step: Some(_), answer: Some(a), .. } if a == "Archive"
    )));
    assert!(report.committed, "{report:#?}");
    assert!(w.root().join("Archive/a.pdf").exists() && w.root().join("Archive/b.pdf").exists());
    assert!(w.root().join("c.txt").exists());
}

/// Regression: the answer to a request nothing was understood of was appended to it, so the
/// same question came back about the words already asked about.
#[test]
fn a_rephrased_request_replaces_one_nothing_was_understood_of() {
    let mut w = world(&[("a.pdf", "a\n", 1), ("b.jpg", "b\n", 1)]);
    let mut ui = Scripted {
        rephrasings: vec!["sort the files by type".into(), "unexpected".into()],
        answers: [("path".to_owned(), json!("."))].into(),
        ..Scripted::default()
    };
    let report = w
        .run(&mut RulePlanner, "make it nice", HitlMode::Bypass, &mut ui)
        .unwrap();
    let asked: Vec<_> = ui
        .events
        .iter()
        .filter_map(|e| match e {
            Event::Clarification {
                step: None,
                question,
                answer,
            } => Some((question.clone(), answer.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(asked.len(), 1, "asked once: {asked:#?}");
    assert!(asked[0].0.contains("make it nice"), "{asked:#?}");
    assert_eq!(ui.rephrasings, ["unexpected"]);
    assert!(report.committed, "{report:#?}");
    assert!(w.root().join("Documents/a.pdf").exists());
    assert!(w.root().join("Images/b.jpg").exists());
}

#[test]
fn an_unanswered_clarification_skips_the_step_and_changes_nothing() {
    let mut w = world(&[("a.pdf", "a\n", 1)]);
    let mut ui = Scripted::default();
    let report = w
        .run(&mut RulePlanner, "move the PDFs", HitlMode::Bypass, &mut ui)
        .unwrap();
    let last = report.steps.last().unwrap();
    assert_eq!(last.status, StepStatus::Skipped);
    assert_eq!(last.error.as_ref().unwrap().code, "MISSING_PARAMS");
    assert!(!report.committed);
    assert!(w.root().join("a.pdf").exists());
}
