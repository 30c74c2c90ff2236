//! What a model planner writes, and how it becomes the `Plan` contract. The model writes as few
//! tokens as a plan needs: per step only the skill, the tool and the parameters, in the order they
//! run (the step number is the position; the description is the tool's own), or one question when
//! the request does not say what to act on. Every decoded token costs a forward pass on a laptop
//! CPU, and a small model asked for prose copies its prompt.

use contracts::{Plan, PlanStep};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use skills::SkillStore;

/// One step as the model writes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelStep {
    pub skill: String,
    pub tool: String,
    #[serde(default)]
    pub params: Map<String, Value>,
    /// Kept when an answer carries one (older answer shapes); never asked for.
    #[serde(default, skip_serializing)]
    pub description: String,
}

/// A model's answer: a plan, or a question for the person.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelAnswer {
    Plan(Vec<ModelStep>),
    Question(String),
}

#[derive(Serialize, Deserialize)]
struct Steps {
    steps: Vec<ModelStep>,
}

#[derive(Serialize)]
struct Question<'a> {
    question: &'a str,
}

impl ModelAnswer {
    /// Parses an answer's text; the message says what is wrong with it.
    pub fn parse(text: &str) -> Result<ModelAnswer, String> {
        let value: Value = serde_json::from_str(text.trim())
            .map_err(|e| format!("the answer is not JSON ({e})"))?;
        if let Some(question) = value.get("question") {
            let question = question
                .as_str()
                .map(str::trim)
                .filter(|q| !q.is_empty())
                .ok_or("`question` must be the question to ask, as text")?;
            return Ok(ModelAnswer::Question(question.to_owned()));
        }
        let Steps { steps } = serde_json::from_value(value)
            .map_err(|e| format!("the answer is not a JSON plan ({e})"))?;
        Ok(ModelAnswer::Plan(steps))
    }
}

/// The plan contract for `steps`: numbered by position, each described by its tool's own words
/// when the model wrote no description.
pub fn into_plan(steps: Vec<ModelStep>, store: &SkillStore) -> Plan {
    let steps = steps
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let description = if s.description.trim().is_empty() {
                store
                    .get(&s.skill)
                    .and_then(|l| l.definition.tools.get(&s.tool))
                    .map(|t| t.description.clone())
                    .unwrap_or_default()
            } else {
                s.description
            };
            PlanStep {
                step: u32::try_from(i + 1).unwrap_or(u32::MAX),
                description,
                skill: s.skill,
                tool: s.tool,
                params: s.params,
            }
        })
        .collect();
    Plan { steps }
}

/// The answer a model should write for `plan` (a worked example), in the compact shape its
/// output is constrained to.
pub fn answer_text(plan: &Plan) -> String {
    let steps: Vec<ModelStep> = plan
        .steps
        .iter()
        .map(|s| ModelStep {
            skill: s.skill.clone(),
            tool: s.tool.clone(),
            params: s.params.clone(),
            description: String::new(),
        })
        .collect();
    // Serialised from structs, so the keys come in the schema's order (skill, tool, params).
    serde_json::to_string(&Steps { steps }).expect("a plan serialises")
}

/// The answer text of a question.
pub fn question_text(question: &str) -> String {
    serde_json::to_string(&Question { question }).expect("a question serialises")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_is_a_plan_or_a_question_and_says_what_is_wrong() {
        let plan = ModelAnswer::parse(
            r#"{"steps":[{"skill":"manage-files","tool":"list","params":{"path":"."}}]}"#,
        )
        .unwrap();
        assert!(matches!(&plan, ModelAnswer::Plan(s) if s.len() == 1 && s[0].tool == "list"));
        assert_eq!(
            ModelAnswer::parse(r#"{"question": "Which folder?"}"#).unwrap(),
            ModelAnswer::Question("Which folder?".into())
        );
        assert!(
            ModelAnswer::parse(r#"{"question": " "}"#)
                .unwrap_err()
                .contains("question")
        );
        assert!(
            ModelAnswer::parse(r#"{"steps":[{"tool":"x"}]}"#)
                .unwrap_err()
                .contains("missing field `skill`")
        );
        assert!(ModelAnswer::parse("{").unwrap_err().contains("not JSON"));
    }

    #[test]
    fn the_example_answer_is_compact_and_round_trips() {
        let plan = Plan {
            steps: vec![PlanStep {
                step: 1,
                description: "ignored".into(),
                skill: "manage-files".into(),
                tool: "list".into(),
                params: serde_json::from_str(r#"{"path":"."}"#).unwrap(),
            }],
        };
        let text = answer_text(&plan);
        assert_eq!(
            text,
            r#"{"steps":[{"skill":"manage-files","tool":"list","params":{"path":"."}}]}"#
        );
        assert!(matches!(
            ModelAnswer::parse(&text),
            Ok(ModelAnswer::Plan(_))
        ));
        assert_eq!(question_text("Which?"), r#"{"question":"Which?"}"#);
    }
}
