//! The Thinker reading files for the `llm` primitive's tasks: what a loaded language model offers
//! `classify`, `suggest_names` and `summarize` (the thinker crate implements it on the planner's
//! own model). Without one the tasks run on the embedder and the files' own metadata.

use crate::Result;
use crate::classify::{Category, FileText};

/// A model's choice of category for one file.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelChoice {
    /// Index of the chosen category.
    pub category: usize,
    /// How likely the model thought each category, in the categories' order (0..1, summing to
    /// about 1; from its token probabilities where the category was decided).
    pub probabilities: Vec<f32>,
    /// The model's one-line reason.
    pub reason: String,
}

impl ModelChoice {
    /// The chosen category's probability: what "sure" is measured on.
    pub fn confidence(&self) -> f32 {
        self.probabilities
            .get(self.category)
            .copied()
            .unwrap_or(0.0)
    }

    /// The choice corrected for the model's lean towards some categories whatever the file says:
    /// each probability divided by the square root ([`CALIBRATION_POWER`]) of the one the model
    /// gave that category for a file with no content (`prior`, floored at [`PRIOR_FLOOR`]),
    /// renormalised; the most likely category after the correction is the choice ("contextual
    /// calibration", Zhao et al. 2021, taken halfway: the full correction over-corrects a model
    /// whose answer for an empty file is itself a guess; BENCHMARKS.md, "Organize by meaning").
    pub fn calibrated(&self, prior: &[f32]) -> ModelChoice {
        let mut probabilities: Vec<f32> = self
            .probabilities
            .iter()
            .zip(prior.iter().chain(std::iter::repeat(&1.0)))
            .map(|(p, q)| p / q.max(PRIOR_FLOOR).powf(CALIBRATION_POWER))
            .collect();
        let total: f32 = probabilities.iter().sum();
        if total <= 0.0 || !total.is_finite() {
            return self.clone();
        }
        probabilities.iter_mut().for_each(|p| *p /= total);
        let category = probabilities
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
            .map_or(self.category, |(i, _)| i);
        ModelChoice {
            category,
            probabilities,
            reason: self.reason.clone(),
        }
    }

    /// The most likely category after the chosen one.
    pub fn runner_up(&self) -> Option<(usize, f32)> {
        self.probabilities
            .iter()
            .copied()
            .enumerate()
            .filter(|(i, p)| *i != self.category && *p > 0.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))
    }
}

/// The least prior probability a category is divided by when a choice is calibrated: a
/// category the model never gives an empty file is not raised without bound.
pub const PRIOR_FLOOR: f32 = 0.05;
/// How much of the model's lean a calibrated choice takes out (1 = all of it).
pub const CALIBRATION_POWER: f32 = 0.5;

/// A language model reading files (the Thinker): one call per file.
pub trait ModelReader {
    /// The model's name, for the result's `by`.
    fn name(&self) -> String;
    /// Which of `categories` `file` belongs to.
    fn classify(&mut self, file: &FileText, categories: &[Category]) -> Result<ModelChoice>;
    /// A short descriptive title for `file` from what it is about ("Invoice ACME 420 EUR"),
    /// for its new name.
    fn title(&mut self, file: &FileText) -> Result<String>;
    /// A summary of `file` in at most `sentences` sentences.
    fn summarize(&mut self, file: &FileText, sentences: usize) -> Result<String>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lean_the_model_has_for_any_file_is_taken_out_of_its_choice() {
        // The model gives "Travel" (2) to everything, an empty file included.
        let choice = ModelChoice {
            category: 2,
            probabilities: vec![0.30, 0.10, 0.60],
            reason: "a trip".into(),
        };
        let c = choice.calibrated(&[0.05, 0.2, 0.8]);
        assert_eq!(c.category, 0, "{c:?}");
        let sum: f32 = c.probabilities.iter().sum();
        assert!((sum - 1.0).abs() < 1e-5);
        // 0.30/√0.05, 0.10/√0.2, 0.60/√0.8 = 1.342, 0.224, 0.671, renormalised.
        assert!((c.probabilities[0] - 1.342 / 2.237).abs() < 1e-3, "{c:?}");
        // A prior of 0 is floored: the category is raised, not made infinite.
        let c = choice.calibrated(&[0.0, 0.5, 0.5]);
        assert_eq!(c.category, 0);
        assert!(c.probabilities[0] < 1.0);
        assert_eq!(c.confidence(), c.probabilities[0]);
        assert_eq!(c.runner_up().map(|r| r.0), Some(2));
    }
}
