//! A model choosing between the rule planner's readings of one part of a request: when the rules
//! read a clause more than one way and are not sure which (its margin is below
//! `planner_sure_margin`), a model is shown the request, the clause and the readings (each with
//! its steps, parameters filled by the rules, and what its tool does) and answers with one of
//! them by name; the alternatives it weighed where it wrote the name say how sure it is. The
//! rules keep what they are good at (splitting, places, parameters, chaining); the model only
//! decides what they could not. The prompt, schema and check are here (pure); the conversation is
//! the LLM planner's.

use contracts::PlanStep;
use serde::Deserialize;
use serde_json::{Value, json};
use skills::SkillStore;

use crate::PlanControl;
use crate::read::{Piece, choice_probabilities};

/// Most readings shown for one clause.
pub const MAX_READINGS: usize = 4;
/// Readings scored at most this far below the best are shown (the rules' scores; see
/// `rules::UNDERSTOOD_FLOOR` for their scale).
pub const READING_WINDOW: f32 = 0.3;
/// A choice the model made with at least this probability is taken without the near-miss
/// picker; below it the picker still shows, with the model's choice first.
pub const MODEL_SURE: f32 = 0.8;

/// One way the rules read a clause: the steps it plans (the last one does what the clause asks).
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    pub steps: Vec<PlanStep>,
}

impl Reading {
    /// `skill/tool` of the step that does what the clause asks: the name the model answers with.
    pub fn action(&self) -> String {
        self.steps
            .last()
            .map_or_else(String::new, |s| format!("{}/{}", s.skill, s.tool))
    }
}

/// What the model is asked about one clause.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadingQuestion<'a> {
    /// The whole request, for context.
    pub request: &'a str,
    /// The part of it being read.
    pub clause: &'a str,
    /// The rules' readings, best first (distinct actions).
    pub readings: Vec<Reading>,
}

/// The model's answer: the chosen reading and how likely it found each one.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    pub chosen: usize,
    /// Same order as the readings; sums to 1.
    pub probabilities: Vec<f32>,
    /// The model's name, for the plan's notes.
    pub by: String,
}

impl Judgement {
    pub fn probability(&self) -> f32 {
        self.probabilities.get(self.chosen).copied().unwrap_or(0.0)
    }
}

/// Chooses between readings (a model; `Planner::judge`).
pub trait ReadingJudge {
    fn choose(
        &mut self,
        question: &ReadingQuestion,
        skills: &SkillStore,
        control: &PlanControl,
    ) -> crate::Result<Judgement>;
}

/// One step as the model reads it: `skill/tool {"param": value, …}`.
fn step_line(step: &PlanStep) -> String {
    let params = Value::Object(step.params.clone().into_iter().collect());
    format!("{}/{} {}", step.skill, step.tool, params)
}

/// What the reading's tool does, from its declaration (its summary when it was described).
fn tool_summary(skills: &SkillStore, step: &PlanStep) -> String {
    let Some((_, tool)) = skills.tool(&step.skill, &step.tool) else {
        return String::new();
    };
    let summary = tool
        .described
        .as_ref()
        .map(|d| d.summary.as_str())
        .filter(|s| !s.trim().is_empty())
        .unwrap_or(&tool.description);
    summary.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The system message (what to do and the readings) and the user message (request and clause).
pub fn judge_prompt(question: &ReadingQuestion, skills: &SkillStore) -> (String, String) {
    let mut system = String::from(
        "You help a file assistant understand a person's request. The assistant read one part \
         of the request in more than one way. Each reading is what the assistant would do, as \
         steps with their parameters, and what its last step's tool does:\n",
    );
    for r in &question.readings {
        let Some((last, before)) = r.steps.split_last() else {
            continue;
        };
        // `- skill/tool {params}: what it does`, the steps before it (which select what it
        // acts on) after a "with".
        let params = Value::Object(last.params.clone().into_iter().collect());
        system.push_str(&format!("- {} {params}", r.action()));
        let summary = tool_summary(skills, last);
        if !summary.is_empty() {
            system.push_str(&format!(": {}", summary.trim_end_matches('.')));
        }
        if !before.is_empty() {
            let steps: Vec<String> = before.iter().map(step_line).collect();
            system.push_str(&format!(" (after {})", steps.join(", then ")));
        }
        system.push('\n');
    }
    system.push_str(
        "Choose the reading that does what the person asked in that part, nothing more and \
         nothing else. Answer with JSON only: \"reading\" is the chosen reading's name, written \
         exactly as above.",
    );
    let user = format!(
        "Request: {}\nThe part to read: {}",
        question.request.trim(),
        question.clause.trim()
    );
    (system, user)
}

/// The answer's shape: one of the readings by name.
pub fn judge_schema(question: &ReadingQuestion) -> Value {
    let names: Vec<String> = question.readings.iter().map(Reading::action).collect();
    json!({
        "type": "object",
        "properties": {"reading": {"enum": names}},
        "required": ["reading"],
        "additionalProperties": false,
        "x-guidance": {"whitespace_flexible": false, "item_separator": ", ", "key_separator": ": "},
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct JudgeAnswer {
    reading: String,
}

/// The chosen reading's index, or what is wrong with the answer.
pub fn check_judgement(text: &str, question: &ReadingQuestion) -> Result<usize, String> {
    let answer: JudgeAnswer =
        serde_json::from_str(text).map_err(|e| format!("not the asked JSON: {e}"))?;
    question
        .readings
        .iter()
        .position(|r| r.action() == answer.reading)
        .ok_or_else(|| {
            let names: Vec<String> = question.readings.iter().map(Reading::action).collect();
            format!(
                "`{}` is not one of the readings ({})",
                answer.reading,
                names.join(", ")
            )
        })
}

/// How likely the model found each reading, from the alternatives it weighed where it wrote
/// the name.
pub fn judgement_probabilities(
    pieces: &[Piece],
    question: &ReadingQuestion,
    chosen: usize,
) -> Vec<f32> {
    let names: Vec<String> = question.readings.iter().map(Reading::action).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    choice_probabilities(pieces, "reading", &names, chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(n: u32, skill: &str, tool: &str, params: Value) -> PlanStep {
        PlanStep {
            step: n,
            skill: skill.into(),
            tool: tool.into(),
            description: String::new(),
            params: params
                .as_object()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .collect(),
        }
    }

    fn question() -> ReadingQuestion<'static> {
        ReadingQuestion {
            request: "gimme the cliffnotes version of Reading/ai-essay.pdf",
            clause: "gimme the cliffnotes version of Reading/ai-essay.pdf",
            readings: vec![
                Reading {
                    steps: vec![step(
                        1,
                        "parse-content",
                        "extract_text",
                        json!({"path": "Reading/ai-essay.pdf"}),
                    )],
                },
                Reading {
                    steps: vec![step(
                        1,
                        "parse-content",
                        "summarize",
                        json!({"path": "Reading/ai-essay.pdf"}),
                    )],
                },
            ],
        }
    }

    #[test]
    fn the_answer_names_one_reading() {
        let q = question();
        assert_eq!(
            check_judgement(r#"{"reading": "parse-content/summarize"}"#, &q),
            Ok(1)
        );
        let wrong = check_judgement(r#"{"reading": "manage-files/list"}"#, &q).unwrap_err();
        assert!(wrong.contains("not one of the readings"), "{wrong}");
        assert!(check_judgement("summarize", &q).is_err());
        let schema = judge_schema(&q);
        assert_eq!(
            schema["properties"]["reading"]["enum"],
            json!(["parse-content/extract_text", "parse-content/summarize"])
        );
    }

    #[test]
    fn the_model_weighs_the_names_where_it_writes_them() {
        let q = question();
        // The model wrote `parse-content/summarize` and had weighed "…/extract" at 0.2.
        let piece = |text: &str, alternatives: &[(&str, f32)]| Piece {
            text: text.into(),
            alternatives: alternatives
                .iter()
                .map(|(t, p)| ((*t).to_owned(), *p))
                .collect(),
        };
        let pieces = vec![
            piece("{\"reading\": \"", &[]),
            piece("parse-content/", &[]),
            piece("sum", &[("sum", 0.8), ("extract", 0.2)]),
            piece("marize\"}", &[]),
        ];
        let p = judgement_probabilities(&pieces, &q, 1);
        assert!(
            (p[1] - 0.8).abs() < 1e-5 && (p[0] - 0.2).abs() < 1e-5,
            "{p:?}"
        );
    }
}
