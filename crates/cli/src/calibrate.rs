//! Calibrating when the near-miss picker shows: every step of the clear labelled requests, with
//! whether retrieval alone was sure, the planner's margin and whether the step's skill was right;
//! for each candidate `planner_sure_margin`, the share of steps that would ask and the precision of
//! those that would not.

use serde_json::{Value, json};

/// Margins tried; 1.0 is "planner margin never trusted" (retrieval alone decides).
const MARGINS: &[f32] = &[0.0, 0.02, 0.05, 0.08, 0.10, 0.12, 0.15, 0.20, 0.30, 1.0];

#[derive(Debug, Default)]
pub struct Calibration {
    /// (retrieval sure, planner margin, skill right) per step.
    steps: Vec<(bool, Option<f32>, bool)>,
}

/// At one margin: steps that would show the picker, steps accepted, accepted and right.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    pub margin: f32,
    pub steps: usize,
    pub picker: usize,
    pub accepted: usize,
    pub accepted_right: usize,
}

impl Row {
    pub fn picker_share(&self) -> f64 {
        100.0 * self.picker as f64 / self.steps.max(1) as f64
    }

    pub fn precision(&self) -> f64 {
        100.0 * self.accepted_right as f64 / self.accepted.max(1) as f64
    }

    fn json(&self) -> Value {
        json!({
            "margin": self.margin, "steps": self.steps, "picker": self.picker,
            "picker_share": self.picker_share(), "accepted": self.accepted,
            "accepted_right": self.accepted_right, "precision": self.precision(),
        })
    }
}

impl Calibration {
    pub fn add(&mut self, retrieval_sure: bool, margin: Option<f32>, right: bool) {
        self.steps.push((retrieval_sure, margin, right));
    }

    pub fn at(&self, margin: f32) -> Row {
        let mut row = Row {
            margin,
            steps: self.steps.len(),
            picker: 0,
            accepted: 0,
            accepted_right: 0,
        };
        for &(sure, m, right) in &self.steps {
            if pipeline::needs_picker(sure, sure, m, margin) {
                row.picker += 1;
            } else {
                row.accepted += 1;
                row.accepted_right += usize::from(right);
            }
        }
        row
    }

    pub fn json(&self, configured: f32) -> Value {
        json!({
            "configured": self.at(configured).json(),
            "by_margin": MARGINS.iter().map(|m| self.at(*m).json()).collect::<Vec<_>>(),
        })
    }

    pub fn print(&self, configured: f32) {
        println!(
            "\nnear-miss picker on the steps of clear requests, by `planner_sure_margin` \
             (configured: {configured:.2})\n\n| margin | steps | picker shown | accepted right |\n|---|---|---|---|"
        );
        for m in MARGINS {
            let r = self.at(*m);
            println!(
                "| {:.2}{} | {} | {} ({:.1}%) | {}/{} ({:.1}%) |",
                m,
                if (*m - configured).abs() < 1e-6 {
                    " ←"
                } else {
                    ""
                },
                r.steps,
                r.picker,
                r.picker_share(),
                r.accepted_right,
                r.accepted,
                r.precision()
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_higher_margin_asks_more_and_accepts_only_what_retrieval_or_the_planner_is_sure_of() {
        let mut c = Calibration::default();
        c.add(true, Some(0.01), true); // retrieval sure: never asks
        c.add(false, Some(0.30), true); // planner sure up to 0.30
        c.add(false, Some(0.05), false); // a wrong step the planner was not sure of
        c.add(false, None, true); // a model's step: only retrieval decides
        let low = c.at(0.0);
        assert_eq!((low.picker, low.accepted, low.accepted_right), (1, 3, 2));
        let mid = c.at(0.10);
        assert_eq!((mid.picker, mid.accepted, mid.accepted_right), (2, 2, 2));
        assert_eq!(mid.precision(), 100.0);
        let off = c.at(1.0);
        assert_eq!((off.picker, off.accepted), (3, 1));
    }
}
