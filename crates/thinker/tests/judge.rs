//! The rule planner handing a clause it is unsure of to a judge (`RulePlanner::plan_judged`, the
//! `ReadingJudge` trait a model implements): what the judge is shown, how its choice and its
//! certainty change the plan and the near-miss picker, and that a failing judge loses nothing.
//! The judge here answers from a script (the rule planner's side of the trait); the model's side
//! runs on real weights in `real_model.rs`.

mod support;

use config::PipelineConfig;
use support::PlanningWorld;
use thinker::{
    Judgement, PlanControl, PlanRequest, Planned, ReadingJudge, ReadingQuestion, RulePlanner,
    ThinkerError,
};

/// A request the rules alone are unsure of (was "gimme the cliffnotes version of …" until
/// "cliffnotes" was read as "summarize").
const UNSURE: &str = "anything interesting in Reading/longform/ai-essay.pdf";

/// The action chosen (`None`: the reading shown second, after the rules' own) and its probability.
type Choice = (Option<String>, f32);

/// Answers every question with `answer`, or with `error`; remembers what it was asked.
struct ScriptedJudge {
    answer: Result<Choice, fn() -> ThinkerError>,
    asked: Vec<(String, String, Vec<String>)>,
}

impl ScriptedJudge {
    fn choosing(action: &str, p: f32) -> Self {
        ScriptedJudge {
            answer: Ok((Some(action.to_owned()), p)),
            asked: Vec::new(),
        }
    }

    /// Overrules the rules: chooses the reading shown second.
    fn choosing_another(p: f32) -> Self {
        ScriptedJudge {
            answer: Ok((None, p)),
            asked: Vec::new(),
        }
    }
}

impl ReadingJudge for ScriptedJudge {
    fn choose(
        &mut self,
        question: &ReadingQuestion,
        _skills: &skills::SkillStore,
        _control: &PlanControl,
    ) -> thinker::Result<Judgement> {
        let actions: Vec<String> = question.readings.iter().map(|r| r.action()).collect();
        self.asked.push((
            question.request.to_owned(),
            question.clause.to_owned(),
            actions.clone(),
        ));
        let (action, p) = self.answer.clone().map_err(|make| make())?;
        let action = action.unwrap_or_else(|| actions[1].clone());
        let chosen = actions
            .iter()
            .position(|a| *a == action)
            .unwrap_or_else(|| panic!("{action} is not among {actions:?}"));
        let rest = (1.0 - p) / (actions.len() - 1) as f32;
        Ok(Judgement {
            chosen,
            probabilities: (0..actions.len())
                .map(|i| if i == chosen { p } else { rest })
                .collect(),
            by: "scripted".into(),
        })
    }
}

fn plan(
    world: &PlanningWorld,
    text: &str,
    judge: Option<&mut ScriptedJudge>,
) -> thinker::Result<Planned> {
    let request = PlanRequest {
        text: text.into(),
        root_name: None,
        entries: ["Reading/longform/ai-essay.pdf", "reports"]
            .map(str::to_owned)
            .to_vec(),
        learned: Vec::new(),
    };
    RulePlanner.plan_judged(
        &request,
        &world.cx(),
        &PlanControl::default(),
        judge.map(|j| j as &mut dyn ReadingJudge),
    )
}

fn actions(planned: &Planned) -> Vec<String> {
    planned
        .plan
        .steps
        .iter()
        .map(|s| format!("{}/{}", s.skill, s.tool))
        .collect()
}

/// One of the plan's notes contains `needle`.
fn assert_note(planned: &Planned, needle: &str) {
    assert!(
        planned.notes.iter().any(|n| n.contains(needle)),
        "no note with {needle:?}: {:?}",
        planned.notes
    );
}

fn world() -> PlanningWorld {
    PlanningWorld::shipped(PipelineConfig::default())
}

#[test]
fn the_judge_is_shown_the_close_readings_and_its_sure_choice_is_the_plan() {
    let world = world();
    let sure_margin = world.config.planner_sure_margin;
    let alone = plan(&world, UNSURE, None).unwrap();
    let first = actions(&alone);
    // The rules alone are unsure of this clause (otherwise this test tests nothing).
    assert!(alone.confidence[&1] < sure_margin, "{:?}", alone.confidence);

    let mut judge = ScriptedJudge::choosing_another(0.9);
    let judged = plan(&world, UNSURE, Some(&mut judge)).unwrap();
    assert_eq!(judge.asked.len(), 1);
    let (request, clause, shown) = &judge.asked[0];
    assert_eq!((request.as_str(), clause.as_str()), (UNSURE, UNSURE));
    // The rules' own first choice first, then other actions, each once, at most MAX_READINGS.
    assert_eq!(shown[0], first[0]);
    let chosen = shown[1].clone();
    assert!(
        (2..=thinker::MAX_READINGS).contains(&shown.len()),
        "{shown:?}"
    );
    let mut distinct = shown.clone();
    distinct.dedup();
    assert_eq!(&distinct, shown);

    assert_eq!(actions(&judged), std::slice::from_ref(&chosen));
    assert_eq!(
        judged.plan.steps[0]
            .params
            .get("path")
            .and_then(|p| p.as_str()),
        Some("Reading/longform/ai-essay.pdf"),
        "the rules' parameters come with the chosen reading"
    );
    assert!(judged.confidence[&1] >= sure_margin, "sure: no picker");
    assert_eq!(judged.usage.planner, "rule, readings chosen by scripted");
    assert_note(&judged, &format!("scripted chose {chosen} (90 %)"));
}

#[test]
fn a_judge_that_is_not_sure_does_not_overrule_the_rules() {
    let world = world();
    let alone = plan(&world, UNSURE, None).unwrap();
    let mut judge = ScriptedJudge::choosing_another(0.5);
    let judged = plan(&world, UNSURE, Some(&mut judge)).unwrap();
    assert_eq!(judge.asked.len(), 1);
    let other = judge.asked[0].2[1].clone();
    // The rules' choice and margin stand: the person picks in the near-miss picker.
    assert_eq!(actions(&judged), actions(&alone));
    assert_eq!(judged.confidence, alone.confidence);
    assert!(judged.confidence[&1] < world.config.planner_sure_margin);
    assert_note(&judged, &format!("scripted leaned to {other} (50 %)"));
    // Leaning to the rules' own choice settles nothing either.
    let first = actions(&alone)[0].clone();
    let mut agreeing = ScriptedJudge::choosing(&first, 0.6);
    let judged = plan(&world, UNSURE, Some(&mut agreeing)).unwrap();
    assert_eq!(judged.confidence, alone.confidence);
    assert_note(&judged, &format!("leaned to the rules' {first} too (60 %)"));
}

#[test]
fn a_failing_judge_leaves_the_rules_choice_and_cancelling_cancels() {
    let world = world();
    let alone = plan(&world, UNSURE, None).unwrap();
    let mut failing = ScriptedJudge {
        answer: Err(|| ThinkerError::Generation("the model stopped".into())),
        asked: Vec::new(),
    };
    let judged = plan(&world, UNSURE, Some(&mut failing)).unwrap();
    assert_eq!(failing.asked.len(), 1);
    assert_eq!(actions(&judged), actions(&alone));
    assert_eq!(judged.confidence, alone.confidence);
    assert_note(
        &judged,
        "the model could not choose between readings (the planner model failed: the model stopped)",
    );
    let mut cancelled = ScriptedJudge {
        answer: Err(|| ThinkerError::Cancelled),
        asked: Vec::new(),
    };
    let err = plan(&world, UNSURE, Some(&mut cancelled)).unwrap_err();
    assert!(matches!(err, ThinkerError::Cancelled), "{err}");
}

#[test]
fn a_clause_the_rules_are_sure_of_is_not_judged() {
    let world = world();
    let mut judge = ScriptedJudge::choosing("manage-files/list", 1.0);
    let planned = plan(&world, "zip the reports folder", Some(&mut judge)).unwrap();
    assert!(judge.asked.is_empty(), "{:?}", judge.asked);
    assert_eq!(actions(&planned), ["archive-files/create"]);
    assert_eq!(planned.usage.planner, "rule");
}
