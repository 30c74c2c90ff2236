//! The Thinker reading files for the `llm` tasks on the planner's own loaded model: one
//! constrained conversation per file (the category with the alternatives the model weighed, a
//! title, a summary), with the same bounded repair loop as planning.

use contracts::ErrorCode;
use retrieval::classify::{Category, FileText};
use retrieval::{ModelChoice, ModelReader, RetrievalError};

use super::{ChatModel, Conversation, LlmLimits, converse};
use crate::read::{
    category_probabilities, category_prompt, category_schema, check_category, check_summary,
    check_title, summary_prompt, summary_schema, title_prompt, title_schema,
};
use crate::{PlanControl, ThinkerError};

/// Reads files with `model` under `control` (cancellation).
pub(crate) struct LlmReader<'a> {
    model: &'a dyn ChatModel,
    name: String,
    limits: LlmLimits,
    control: PlanControl<'a>,
}

impl<'a> LlmReader<'a> {
    pub(crate) fn new(
        model: &'a dyn ChatModel,
        name: String,
        limits: LlmLimits,
        control: PlanControl<'a>,
    ) -> Self {
        LlmReader {
            model,
            name,
            limits,
            control,
        }
    }

    /// One checked answer to `system` + `user`.
    fn ask<T>(
        &self,
        prompt: (String, String),
        schema: &serde_json::Value,
        noun: &str,
        weighed: bool,
        check: impl Fn(&str) -> Result<T, String>,
    ) -> retrieval::Result<(T, Vec<crate::Piece>)> {
        let accepted = converse(
            self.model,
            &self.name,
            self.limits,
            Conversation::question(prompt, schema, noun, weighed),
            &self.control,
            check,
        )
        .map_err(reading)?;
        Ok((accepted.value, accepted.pieces))
    }
}

/// A thinker error as the retrieval crate reports a failed reading (same code).
fn reading(e: ThinkerError) -> RetrievalError {
    RetrievalError::Reading {
        code: e.code(),
        message: e.to_string(),
    }
}

impl ModelReader for LlmReader<'_> {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn classify(
        &mut self,
        file: &FileText,
        categories: &[Category],
    ) -> retrieval::Result<ModelChoice> {
        let _span =
            tracing::info_span!("llm_classify", model = %self.name, path = %file.path).entered();
        let schema = category_schema(categories);
        let ((category, reason), pieces) = self.ask(
            category_prompt(categories, file),
            &schema,
            "answer",
            true,
            |text| check_category(text, categories),
        )?;
        let names: Vec<&str> = categories.iter().map(|c| c.name.as_str()).collect();
        Ok(ModelChoice {
            category,
            probabilities: category_probabilities(&pieces, &names, category),
            reason,
        })
    }

    fn title(&mut self, file: &FileText) -> retrieval::Result<String> {
        let _span =
            tracing::info_span!("llm_title", model = %self.name, path = %file.path).entered();
        self.ask(
            title_prompt(file),
            &title_schema(),
            "title",
            false,
            check_title,
        )
        .map(|(title, _)| title)
    }

    fn summarize(&mut self, file: &FileText, sentences: usize) -> retrieval::Result<String> {
        let _span =
            tracing::info_span!("llm_summarize", model = %self.name, path = %file.path).entered();
        self.ask(
            summary_prompt(file, sentences),
            &summary_schema(sentences),
            "summary",
            false,
            check_summary,
        )
        .map(|(summary, _)| summary)
    }
}
