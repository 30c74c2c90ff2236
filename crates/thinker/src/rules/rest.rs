//! A tool that takes the rest of the request (`takes_rest` in its SKILL.md): once a part of the
//! request reads as it, what follows describes what it is for ("new skill: receipt-filer, it
//! moves receipt PDFs …"), and none of it is planned as a step of its own, up to a part said
//! after "then".

use serde_json::{Value, json};

use super::extract::{Grounding, extract};
use super::{PlanBuilder, looks_like_file};

/// What the plan held before a part was read, to take the reading back.
pub(super) struct Mark {
    steps: usize,
    notes: usize,
    not_understood: usize,
    place: Option<String>,
    last_target: Option<String>,
}

impl PlanBuilder<'_, '_> {
    pub(super) fn mark(&self) -> Mark {
        Mark {
            steps: self.steps.len(),
            notes: self.notes.len(),
            not_understood: self.not_understood.len(),
            place: self.place.clone(),
            last_target: self.last_target.clone(),
        }
    }

    pub(super) fn restore(&mut self, mark: Mark) {
        self.steps.truncate(mark.steps);
        self.returns.truncate(mark.steps);
        self.confidence
            .retain(|step, _| (*step as usize) <= mark.steps);
        self.notes.truncate(mark.notes);
        self.not_understood.truncate(mark.not_understood);
        self.place = mark.place;
        self.last_target = mark.last_target;
    }

    /// When the part just read (after `mark`) ended in a step whose tool takes the rest of the
    /// request, `rest` (the parts after it, `said` the part itself when it is more than a
    /// heading) becomes that parameter, and a required `name` the request does not fill is the
    /// name it gives ("called X", "call it X", or a name written like `receipt-filer`). True
    /// when the rest was taken: none of `rest` is planned.
    pub(super) fn take_rest(&mut self, mark: &Mark, said: Option<&str>, rest: &[&str]) -> bool {
        if self.steps.len() <= mark.steps {
            return false;
        }
        let step = self.steps.last_mut().expect("a step was read");
        let Some((_, tool)) = self.cx.skills.tool(&step.skill, &step.tool) else {
            return false;
        };
        let Some(param) = tool.planning.takes_rest.clone() else {
            return false;
        };
        let text: Vec<&str> = said.into_iter().chain(rest.iter().copied()).collect();
        let text = text.join(", ");
        if !rest.is_empty() {
            step.params.insert(param, json!(text));
        }
        let needs_name = tool.required_params.iter().any(|p| p == "name")
            && step.params.get("name").is_none_or(Value::is_null);
        if needs_name && let Some(name) = given_name(&text, self.grounding) {
            step.params.insert("name".into(), json!(name));
        }
        true
    }
}

/// The name a description gives what it describes: said after "called", "named" or "call it",
/// else one word written as a name is (lower case, joined with hyphens: `receipt-filer`).
fn given_name(text: &str, grounding: &Grounding) -> Option<String> {
    if let Some(name) = extract(text, grounding).name {
        return Some(name);
    }
    let words: Vec<&str> = text.split_whitespace().collect();
    let trimmed = |w: &str| {
        w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-' && c != '_')
            .to_owned()
    };
    if let Some(i) = words
        .windows(2)
        .position(|w| w[0].eq_ignore_ascii_case("call") && w[1].eq_ignore_ascii_case("it"))
        && let Some(next) = words.get(i + 2)
    {
        return Some(trimmed(next)).filter(|n| !n.is_empty());
    }
    words.iter().map(|w| trimmed(w)).find(|w| {
        w.contains(['-', '_'])
            && !looks_like_file(w)
            && w.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
            && w.chars().next().is_some_and(|c| c.is_ascii_lowercase())
    })
}
