//! What the planner learns from the audit log: the near-miss choices people made (the `near_miss`
//! record of a run whose chosen skill is not the planned one, with the step's text from the run's
//! `plan`), minus the ones they asked to forget (`forget_choice` records). Append-only: forgetting
//! adds a record, the chain keeps both.

use std::collections::{BTreeMap, BTreeSet};

use contracts::LearnedChoice;
use serde_json::{Value, json};

use crate::error::Result;
use crate::sink::AuditLog;

impl AuditLog {
    /// Every choice still remembered, oldest first.
    pub fn learned_choices(&self) -> Result<Vec<LearnedChoice>> {
        let entries = self.store().entries()?;
        let forgotten: BTreeSet<String> = entries
            .iter()
            .filter(|e| e.kind == "forget_choice")
            .filter_map(|e| serde_json::from_str::<Value>(&e.body).ok())
            .filter_map(|b| b["choice"].as_str().map(str::to_owned))
            .collect();
        // The latest plan of each run: step number → its text.
        let mut steps: BTreeMap<&str, BTreeMap<u64, String>> = BTreeMap::new();
        let mut out = Vec::new();
        for e in &entries {
            let Ok(body) = serde_json::from_str::<Value>(&e.body) else {
                continue;
            };
            match e.kind.as_str() {
                "plan" => {
                    let texts = body["plan"]["steps"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|s| {
                            Some((s["step"].as_u64()?, s["description"].as_str()?.to_owned()))
                        })
                        .collect();
                    steps.insert(e.run_id.as_str(), texts);
                }
                "near_miss" if !forgotten.contains(&e.id) => {
                    let chosen = &body["chosen"];
                    if chosen.is_null() || chosen["planned"].as_bool() == Some(true) {
                        continue;
                    }
                    let planned = body["candidates"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .find(|c| c["planned"].as_bool() == Some(true));
                    let text = body["step"]
                        .as_u64()
                        .and_then(|n| steps.get(e.run_id.as_str())?.get(&n).cloned());
                    let (Some(planned), Some(text)) = (planned, text) else {
                        continue;
                    };
                    let name = |c: &Value| {
                        format!(
                            "{}/{}",
                            c["skill"].as_str().unwrap_or_default(),
                            c["tool"].as_str().unwrap_or_default()
                        )
                    };
                    out.push(LearnedChoice {
                        id: e.id.clone(),
                        run_id: e.run_id.clone(),
                        at: e.at.clone(),
                        text,
                        planned: name(planned),
                        chosen: name(chosen),
                    });
                }
                _ => {}
            }
        }
        Ok(out)
    }

    /// Forgets the choice recorded as `id`: `false` when no remembered choice has that id.
    pub fn forget_choice(&self, id: &str) -> Result<bool> {
        let Some(choice) = self.learned_choices()?.into_iter().find(|c| c.id == id) else {
            return Ok(false);
        };
        self.store()
            .append(&choice.run_id, "forget_choice", &json!({"choice": id}))?;
        Ok(true)
    }
}
