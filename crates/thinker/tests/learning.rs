//! Learning from corrections, measured: `eval/corrections.jsonl` holds choices a person made in the
//! near-miss picker and, for each, held-out paraphrases it should teach; plus control requests it
//! must not change. Replaying the choices raises accuracy on the paraphrases and leaves the
//! controls as they were.

mod support;

use config::PipelineConfig;
use contracts::LearnedChoice;
use serde_json::Value;
use support::PlanningWorld;
use thinker::{PlanControl, PlanRequest, Planner, RulePlanner};

fn skill_of(world: &PlanningWorld, text: &str, learned: &[LearnedChoice]) -> Option<String> {
    let request = PlanRequest {
        text: text.into(),
        root_name: None,
        entries: ["Documents", "Downloads", "Desktop", "Work"]
            .map(str::to_owned)
            .to_vec(),
        learned: learned.to_vec(),
    };
    let planned = RulePlanner
        .plan(&request, &world.cx(), &PlanControl::default())
        .unwrap();
    planned.plan.steps.last().map(|s| s.skill.clone())
}

fn right(world: &PlanningWorld, cases: &[(String, String)], learned: &[LearnedChoice]) -> usize {
    cases
        .iter()
        .filter(|(request, skill)| {
            skill_of(world, request, learned).is_some_and(|got| skill.split('|').any(|s| s == got))
        })
        .count()
}

#[test]
fn replaying_the_persons_choices_raises_accuracy_on_held_out_paraphrases() {
    let world = PlanningWorld::shipped(PipelineConfig::default());
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/corrections.jsonl"),
    )
    .unwrap();
    let (mut learned, mut held_out, mut controls) = (Vec::new(), Vec::new(), Vec::new());
    let cases = |v: &Value| -> Vec<(String, String)> {
        v.as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                (
                    c["request"].as_str().unwrap().to_owned(),
                    c["skill"].as_str().unwrap().to_owned(),
                )
            })
            .collect()
    };
    for (i, line) in text.lines().filter(|l| !l.trim().is_empty()).enumerate() {
        let item: Value = serde_json::from_str(line).unwrap();
        if let Some(choice) = item.get("choice") {
            learned.push(LearnedChoice {
                id: format!("c{i}"),
                run_id: format!("r{i}"),
                at: "2026-11-24T10:00:00Z".into(),
                text: choice["text"].as_str().unwrap().into(),
                planned: choice["planned"].as_str().unwrap().into(),
                chosen: choice["chosen"].as_str().unwrap().into(),
            });
        }
        held_out.extend(cases(&item["held_out"]));
        controls.extend(cases(&item["controls"]));
    }
    for (request, skill) in &held_out {
        let got = skill_of(&world, request, &learned);
        if got.as_deref() != Some(skill.as_str()) {
            eprintln!("still wrong after learning: {request:?} → {got:?}, expected {skill}");
        }
    }
    let before = right(&world, &held_out, &[]);
    let after = right(&world, &held_out, &learned);
    eprintln!(
        "held-out paraphrases right: {before}/{n} before, {after}/{n} after replaying {} choices",
        learned.len(),
        n = held_out.len()
    );
    assert!(after > before, "learning did not help: {before} → {after}");
    assert!(
        after * 10 >= held_out.len() * 8,
        "{after}/{} held-out paraphrases right after learning",
        held_out.len()
    );
    assert_eq!(
        right(&world, &controls, &learned),
        right(&world, &controls, &[]),
        "a choice changed how unrelated requests are planned"
    );
    assert_eq!(right(&world, &controls, &learned), controls.len());
}
