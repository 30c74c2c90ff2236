//! The LLM planner's model choosing between the rule planner's readings of a clause (`judge.rs`
//! has the prompt, schema and check): one constrained, weighed answer, with the same bounded
//! repair loop as planning.

use skills::SkillStore;

use super::{ChatModel, Conversation, LlmLimits, converse};
use crate::judge::{
    Judgement, ReadingJudge, ReadingQuestion, check_judgement, judge_prompt, judge_schema,
    judgement_probabilities,
};
use crate::{PlanControl, Result};

/// Chooses readings with `model` under `control` (cancellation).
pub(crate) struct LlmJudge<'a> {
    pub model: &'a dyn ChatModel,
    pub name: String,
    pub limits: LlmLimits,
    pub control: PlanControl<'a>,
}

impl ReadingJudge for LlmJudge<'_> {
    fn choose(
        &mut self,
        question: &ReadingQuestion,
        skills: &SkillStore,
        control: &PlanControl,
    ) -> Result<Judgement> {
        let _span = tracing::info_span!("llm_judge", model = %self.name).entered();
        let prompt = judge_prompt(question, skills);
        let schema = judge_schema(question);
        tracing::debug!(system = %prompt.0, user = %prompt.1, "judge prompt");
        // Either control cancels: the planner's (this request) or the judge's own.
        let cancel = self.control.cancel.or(control.cancel);
        let control = PlanControl {
            cancel,
            on_token: None,
        };
        let accepted = converse(
            self.model,
            &self.name,
            self.limits,
            Conversation::question(prompt, &schema, "answer", true),
            &control,
            |text| check_judgement(text, question),
        )?;
        let chosen = accepted.value;
        let probabilities = judgement_probabilities(&accepted.pieces, question, chosen);
        tracing::debug!(chosen, ?probabilities, "reading chosen");
        Ok(Judgement {
            chosen,
            probabilities,
            by: self.name.clone(),
        })
    }
}
