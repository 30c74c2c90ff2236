//! Plan quality as a test with floors: the rule planner scored on `eval/plans.jsonl` by the same
//! scorer a person runs (`scope-weaver plan --file`). Raise a floor when the planner gets better;
//! never lower one.

use std::path::Path;

use super::Env;

/// Share of `eval/plans.jsonl` planned with the right skills in the right order (percent).
const PLAN_ACCURACY_FLOOR: f64 = 77.0;
/// Share of clear requests planned without asking (percent).
const ACTS_WHEN_CLEAR_FLOOR: f64 = 77.0;

#[test]
fn the_rule_planner_stays_above_its_floors_on_the_labelled_requests() {
    let env = Env::new(&[]);
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../eval/plans.jsonl");
    let score = env.json(&["plan", "--file", file.to_str().unwrap()]);
    let accuracy = score["accuracy"].as_f64().expect("accuracy");
    assert!(
        score["total"].as_u64().unwrap() >= 132,
        "the labelled set only grows: {score}"
    );
    assert!(
        accuracy >= PLAN_ACCURACY_FLOOR,
        "plan accuracy {accuracy:.1}% fell below {PLAN_ACCURACY_FLOOR}% (by kind: {})",
        score["by_kind"]
    );
    let clear = &score["acts_when_clear"];
    let acts = clear["accuracy"]
        .as_f64()
        .expect("acts_when_clear.accuracy");
    assert!(
        acts >= ACTS_WHEN_CLEAR_FLOOR,
        "acts without asking on {acts:.1}% of clear requests, below {ACTS_WHEN_CLEAR_FLOOR}%: {clear}"
    );
}
