//! Questions and answers between the run's thread and the windows: the run posts a question
//! (approve this step, pick a skill, review the diff …) to its message sink and waits; a window
//! answers it by id from any thread. `WindowInteraction` is the pipeline's `Interaction` on top.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

use contracts::PlanStep;
use pipeline::{
    Decision, DiffDecision, DiffReview, Event, Interaction, ParamQuestion, SkillCandidate,
    StepReview,
};
use serde::Serialize;
use serde_json::{Map, Value};
use thinker::CancelToken;

use crate::error::{EngineError, Result};
use crate::{Engine, Notice, ViewSource, write};

/// What the person is asked. Serialised as `{"type": "...", ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Question {
    ClarifyRequest {
        question: String,
    },
    ChooseSkill {
        step: PlanStep,
        candidates: Vec<SkillCandidate>,
    },
    ClarifyParam {
        question: ParamQuestion,
    },
    ReviewStep {
        review: StepReview,
    },
    ReviewDiff {
        review: DiffReview,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    ClarifyRequest,
    ChooseSkill { candidates: usize },
    ClarifyParam,
    ReviewStep,
    ReviewDiff,
}

impl Question {
    fn kind(&self) -> Kind {
        match self {
            Question::ClarifyRequest { .. } => Kind::ClarifyRequest,
            Question::ChooseSkill { candidates, .. } => Kind::ChooseSkill {
                candidates: candidates.len(),
            },
            Question::ClarifyParam { .. } => Kind::ClarifyParam,
            Question::ReviewStep { .. } => Kind::ReviewStep,
            Question::ReviewDiff { .. } => Kind::ReviewDiff,
        }
    }
}

/// What the run's channel carries. Serialised as `{"kind": "...", ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Message {
    Event {
        event: Box<Event>,
    },
    Question {
        id: u64,
        question: Box<Question>,
    },
    /// The question was answered (possibly from another window, or by cancelling): close it.
    Answered {
        id: u64,
    },
}

/// How a window answers a `review_step` question: `{"decision": "approve"}`,
/// `{"decision": "override", "params": {…}}` (the step again with these params) or
/// `{"decision": "roll_back"}`.
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "decision", rename_all = "snake_case", deny_unknown_fields)]
pub enum StepAnswer {
    Approve,
    Override { params: Map<String, Value> },
    RollBack,
}

/// How a window answers a `review_diff` question: `{"decision": "commit"}`,
/// `{"decision": "discard"}` or `{"decision": "roll_back_to", "snapshot": "…"}` (one of the
/// review's `rollback_points`).
#[derive(Debug, Clone, PartialEq, Serialize, serde::Deserialize, schemars::JsonSchema)]
#[serde(tag = "decision", rename_all = "snake_case", deny_unknown_fields)]
pub enum DiffAnswer {
    Commit,
    Discard,
    RollBackTo { snapshot: String },
}

/// What a window may send to answer each type of question (`answer(id, payload)`), for the
/// IPC contract: the question's `type` → the schema of its answer.
pub(crate) fn answer_schemas(generator: &mut schemars::SchemaGenerator) -> Map<String, Value> {
    let mut out = Map::new();
    let mut add = |kind: &str, schema: schemars::Schema| {
        out.insert(kind.to_owned(), schema.to_value());
    };
    // The answer text, or null to skip the part that was not understood.
    add(
        "clarify_request",
        generator.subschema_for::<Option<String>>(),
    );
    // The index of a candidate, or null to skip the step.
    add("choose_skill", generator.subschema_for::<Option<u32>>());
    // A value of the parameter's type, or null to leave it out.
    add("clarify_param", generator.subschema_for::<Option<Value>>());
    add("review_step", generator.subschema_for::<StepAnswer>());
    add("review_diff", generator.subschema_for::<DiffAnswer>());
    out
}

/// A checked answer, as the run consumes it.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Text(Option<String>),
    Choice(Option<usize>),
    Value(Option<Value>),
    Step(Decision),
    Diff(DiffDecision),
}

fn invalid(msg: &str) -> EngineError {
    EngineError::InvalidAnswer(msg.to_owned())
}

fn typed<T: serde::de::DeserializeOwned>(answer: &Value) -> Result<T> {
    serde_json::from_value(answer.clone()).map_err(|e| invalid(&e.to_string()))
}

impl Kind {
    /// Checks a window's JSON answer against the question it answers.
    fn parse(self, answer: &Value) -> Result<Answer> {
        match self {
            Kind::ClarifyRequest => match answer {
                Value::Null => Ok(Answer::Text(None)),
                Value::String(s) => Ok(Answer::Text(Some(s.clone()))),
                _ => Err(invalid("expected the answer text or null")),
            },
            Kind::ChooseSkill { candidates } => match answer {
                Value::Null => Ok(Answer::Choice(None)),
                v => match v.as_u64() {
                    Some(i) if (i as usize) < candidates => Ok(Answer::Choice(Some(i as usize))),
                    _ => Err(invalid(&format!(
                        "expected a candidate index below {candidates}, or null to skip"
                    ))),
                },
            },
            Kind::ClarifyParam => Ok(Answer::Value(match answer {
                Value::Null => None,
                v => Some(v.clone()),
            })),
            Kind::ReviewStep => Ok(Answer::Step(match typed::<StepAnswer>(answer)? {
                StepAnswer::Approve => Decision::Approve,
                StepAnswer::Override { params } => Decision::Override(params),
                StepAnswer::RollBack => Decision::RollBack,
            })),
            Kind::ReviewDiff => Ok(Answer::Diff(match typed::<DiffAnswer>(answer)? {
                DiffAnswer::Commit => DiffDecision::Commit,
                DiffAnswer::Discard => DiffDecision::Discard,
                DiffAnswer::RollBackTo { snapshot } => DiffDecision::RollBackTo(snapshot),
            })),
        }
    }
}

/// The questions now waiting, by id.
#[derive(Debug, Default)]
pub struct QuestionBoard {
    inner: Mutex<Board>,
}

#[derive(Debug, Default)]
struct Board {
    next: u64,
    waiting: HashMap<u64, (Kind, Sender<Answer>)>,
}

impl QuestionBoard {
    fn open(&self, kind: Kind, tx: Sender<Answer>) -> u64 {
        let mut b = self.inner.lock().expect("board lock");
        b.next += 1;
        let id = b.next;
        b.waiting.insert(id, (kind, tx));
        id
    }

    fn close(&self, id: u64) {
        self.inner.lock().expect("board lock").waiting.remove(&id);
    }

    /// Answers question `id`; the answer must fit the question.
    pub fn answer(&self, id: u64, answer: &Value) -> Result<()> {
        let b = self.inner.lock().expect("board lock");
        let (kind, tx) = b.waiting.get(&id).ok_or(EngineError::UnknownQuestion(id))?;
        let parsed = kind.parse(answer)?;
        tx.send(parsed)
            .map_err(|_| EngineError::UnknownQuestion(id))
    }

    /// Answers the open final diff review with a rollback (the graph window's rollback points).
    pub fn roll_back_to(&self, snapshot: &str) -> Result<()> {
        let b = self.inner.lock().expect("board lock");
        let (_, tx) = b
            .waiting
            .values()
            .find(|(k, _)| *k == Kind::ReviewDiff)
            .ok_or(EngineError::NotAtReview)?;
        tx.send(Answer::Diff(DiffDecision::RollBackTo(snapshot.to_owned())))
            .map_err(|_| EngineError::NotAtReview)
    }

    /// How many questions wait (tests).
    pub fn waiting(&self) -> usize {
        self.inner.lock().expect("board lock").waiting.len()
    }
}

/// The pipeline's `Interaction` for windows: events and questions go to `sink`, events also to
/// every window (`Notice::Pipeline` under the run's id); answers come through the board. When the
/// run shows in the graph window, each change of its sandbox becomes the view
/// (`Notice::GraphChanged`). A cancelled run gets the safe answer (roll back, discard, skip) at
/// once. Made by `Engine::window_interaction`.
pub struct WindowInteraction<'a> {
    engine: &'a Engine,
    run_id: String,
    sink: &'a mut (dyn FnMut(Message) + Send),
    cancel: CancelToken,
    shows_view: bool,
}

impl Engine {
    /// The windows' side of run `run_id` (see [`WindowInteraction`]).
    pub(crate) fn window_interaction<'a>(
        &'a self,
        run_id: &str,
        sink: &'a mut (dyn FnMut(Message) + Send),
        cancel: CancelToken,
        shows_view: bool,
    ) -> WindowInteraction<'a> {
        WindowInteraction {
            engine: self,
            run_id: run_id.to_owned(),
            sink,
            cancel,
            shows_view,
        }
    }
}

impl std::fmt::Debug for WindowInteraction<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WindowInteraction").finish_non_exhaustive()
    }
}

const POLL: Duration = Duration::from_millis(50);

impl WindowInteraction<'_> {
    /// Posts `question` and waits for its answer; `None` when the run was cancelled.
    fn ask(&mut self, question: Question) -> Option<Answer> {
        let (tx, rx) = mpsc::channel();
        let id = self.engine.board.open(question.kind(), tx);
        (self.sink)(Message::Question {
            id,
            question: Box::new(question),
        });
        let answer = loop {
            match rx.recv_timeout(POLL) {
                Ok(a) => break Some(a),
                Err(RecvTimeoutError::Timeout) if self.cancel.is_cancelled() => break None,
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break None,
            }
        };
        self.engine.board.close(id);
        (self.sink)(Message::Answered { id });
        answer
    }
}

impl Interaction for WindowInteraction<'_> {
    fn event(&mut self, event: &Event) {
        self.engine.emit(Notice::Pipeline {
            run_id: self.run_id.clone(),
            event: Box::new(event.clone()),
        });
        (self.sink)(Message::Event {
            event: Box::new(event.clone()),
        });
    }

    fn sandbox_changed(&mut self, sandbox: &sandbox::Sandbox) {
        if self.shows_view {
            write(&self.engine.view, Some(ViewSource::of(sandbox)));
            self.engine.emit(Notice::GraphChanged {
                reason: "delta".into(),
            });
        }
    }

    fn clarify_request(&mut self, question: &str) -> Option<String> {
        match self.ask(Question::ClarifyRequest {
            question: question.to_owned(),
        }) {
            Some(Answer::Text(t)) => t,
            _ => None,
        }
    }

    fn choose_skill(&mut self, step: &PlanStep, candidates: &[SkillCandidate]) -> Option<usize> {
        match self.ask(Question::ChooseSkill {
            step: step.clone(),
            candidates: candidates.to_vec(),
        }) {
            Some(Answer::Choice(c)) => c,
            _ => None,
        }
    }

    fn clarify_param(&mut self, question: &ParamQuestion) -> Option<Value> {
        match self.ask(Question::ClarifyParam {
            question: question.clone(),
        }) {
            Some(Answer::Value(v)) => v,
            _ => None,
        }
    }

    fn review_step(&mut self, review: &StepReview) -> Decision {
        match self.ask(Question::ReviewStep {
            review: review.clone(),
        }) {
            Some(Answer::Step(d)) => d,
            _ => Decision::RollBack,
        }
    }

    fn review_diff(&mut self, review: &DiffReview) -> DiffDecision {
        match self.ask(Question::ReviewDiff {
            review: review.clone(),
        }) {
            Some(Answer::Diff(d)) => d,
            _ => DiffDecision::Discard,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn answers_are_checked_against_their_question() {
        let cases = [
            (
                Kind::ClarifyRequest,
                json!("only pdfs"),
                "Text(Some(\"only pdfs\"))",
            ),
            (Kind::ClarifyRequest, json!(3), "INVALID_ANSWER"),
            (
                Kind::ChooseSkill { candidates: 2 },
                json!(1),
                "Choice(Some(1))",
            ),
            (
                Kind::ChooseSkill { candidates: 2 },
                json!(2),
                "INVALID_ANSWER",
            ),
            (
                Kind::ChooseSkill { candidates: 2 },
                json!(null),
                "Choice(None)",
            ),
            (
                Kind::ReviewStep,
                json!({"decision": "approve"}),
                "Step(Approve)",
            ),
            (
                Kind::ReviewStep,
                json!({"decision": "override"}),
                "INVALID_ANSWER",
            ),
            (
                Kind::ReviewStep,
                json!({"decision": "override", "params": {"keep": "oldest"}}),
                "Step(Override({\"keep\": String(\"oldest\")}))",
            ),
            (Kind::ReviewStep, json!("yes"), "INVALID_ANSWER"),
            (
                Kind::ReviewDiff,
                json!({"decision": "commit"}),
                "Diff(Commit)",
            ),
            (
                Kind::ReviewDiff,
                json!({"decision": "roll_back_to", "snapshot": "snap-2"}),
                "Diff(RollBackTo(\"snap-2\"))",
            ),
            (
                Kind::ReviewDiff,
                json!({"decision": "roll_back_to"}),
                "INVALID_ANSWER",
            ),
        ];
        for (kind, answer, want) in cases {
            let got = match kind.parse(&answer) {
                Ok(a) => format!("{a:?}"),
                Err(e) => e.payload().code,
            };
            assert_eq!(got, want, "{kind:?} {answer}");
        }
    }
}
