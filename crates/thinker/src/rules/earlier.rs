//! What the plan so far says, for a later part to point back at: the selection "them" means,
//! the file or folder made, the paths said ("that logs folder"), and what a preview previewed
//! ("…, then actually do it").

use serde_json::Value;

use super::{Emitted, PlanBuilder, looks_like_file};
use contracts::PlanStep;

impl PlanBuilder<'_, '_> {
    /// The tool the last step previews (its `previews`), of the same skill, and the place the
    /// preview looked at.
    pub(super) fn previewed_by_last_step(&self) -> Option<(String, String, Option<String>)> {
        let last = self.steps.last()?;
        let (_, tool) = self.cx.skills.tool(&last.skill, &last.tool)?;
        let previewed = tool.planning.previews.clone()?;
        let place = ["path", "source"]
            .iter()
            .find_map(|k| last.params.get(*k).and_then(Value::as_str))
            .map(str::to_owned);
        Some((last.skill.clone(), previewed, place))
    }

    /// The latest emitted step (or one of `pending`) whose output is a selection.
    pub(super) fn last_selection(&self, pending: &[(PlanStep, Emitted)]) -> Option<String> {
        let base = self.steps.len();
        for (i, (_, e)) in pending.iter().enumerate().rev() {
            if let Some(f) = &e.selects {
                return Some(format!("$step({}).{f}", base + i + 1));
            }
        }
        for (i, e) in self.returns.iter().enumerate().rev() {
            if let Some(f) = &e.selects {
                return Some(format!("$step({}).{f}", i + 1));
            }
        }
        None
    }

    /// The `path` literal of the latest step (what "it" means after "read config.yaml").
    /// The paths the steps so far name (not what they take from earlier steps), and the place
    /// the request is about: those with a folder in them.
    pub(super) fn paths_said(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |v: &Value| {
            let items = match v {
                Value::Array(items) => items.iter().filter_map(Value::as_str).collect(),
                Value::String(s) => vec![s.as_str()],
                _ => Vec::new(),
            };
            for p in items {
                if p.contains('/') && !p.starts_with('$') && !out.iter().any(|o| o == p) {
                    out.push(p.to_owned());
                }
            }
        };
        for s in &self.steps {
            for k in ["path", "source", "target"] {
                if let Some(v) = s.params.get(k) {
                    add(v);
                }
            }
        }
        for p in [&self.place, &self.header_place].into_iter().flatten() {
            add(&Value::String(p.clone()));
        }
        out
    }

    pub(super) fn last_path_literal(&self) -> Option<String> {
        self.steps
            .iter()
            .zip(&self.returns)
            .rev()
            .find_map(|(s, r)| {
                let text = |k: &str| s.params.get(k).and_then(Value::as_str);
                // "write a todo.txt in Projects/site …, then show me its text": the file made.
                if r.return_type == "Created"
                    && let (Some(folder), Some(name)) = (text("path"), text("name"))
                    && looks_like_file(name)
                    && !folder.starts_with('$')
                {
                    return Some(format!("{folder}/{name}"));
                }
                text("path")
                    .filter(|p| !p.starts_with('$') && looks_like_file(p))
                    .map(str::to_owned)
            })
    }

    /// The folder the latest step only looked at, whole ("let me see its contents first, then
    /// pack it"): what "it" means after it, rather than the entries it listed.
    pub(super) fn folder_just_looked_at(&self) -> Option<String> {
        const LOOKING_WHOLE: &[&str] = &["path", "recursive", "include_hidden", "kind"];
        let (step, emitted) = self.steps.iter().zip(&self.returns).next_back()?;
        let path = step.params.get("path")?.as_str()?;
        let whole = step
            .params
            .keys()
            .all(|k| LOOKING_WHOLE.contains(&k.as_str()));
        // "what kinds of file make X so heavy? … compress it": a look that reports on the folder
        // (no list of its files) looked at it whole too.
        let reported_on = || {
            self.cx
                .skills
                .tool(&step.skill, &step.tool)
                .is_some_and(|(_, t)| !t.mutates())
        };
        ((emitted.return_type == "NodeList" || reported_on())
            && whole
            && !path.starts_with('$')
            && !looks_like_file(path))
        .then(|| path.to_owned())
    }

    /// The folder an earlier `create` step made ("make a folder X ... move the PDFs into it").
    pub(super) fn last_created(&self) -> Option<String> {
        self.returns
            .iter()
            .enumerate()
            .rev()
            .find(|(_, r)| r.return_type == "Created")
            .filter(|(i, _)| {
                self.steps[*i]
                    .params
                    .get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t == "dir")
            })
            .map(|(i, _)| format!("$step({}).created[0]", i + 1))
    }
}

/// How to do it, said in a clause whose own steps have no place for it: "read each letter and
/// split them into Lab Results, Referrals and Invoices" names the categories of the step that
/// read the letters. Filters are not handed back: they select, and an earlier selection is done.
const HANDED_BACK: &[&str] = &[
    "categories",
    "tags",
    "keep",
    "priority",
    "format",
    "case",
    "sentences",
    "content",
    "compression",
];

impl PlanBuilder<'_, '_> {
    /// Gives a value of `slots` that none of `new` steps took to the earlier step they read
    /// from (a `$step(n)` reference), when that step's tool takes it and has none yet.
    pub(super) fn hand_back(&mut self, new: &[(PlanStep, Emitted)], slots: &super::Slots) {
        let read_from: Vec<usize> = new
            .iter()
            .flat_map(|(s, _)| s.params.values().flat_map(step_refs))
            .filter(|n| (1..=self.steps.len()).contains(n))
            .collect();
        let Some(&earlier) = read_from.first() else {
            return;
        };
        for (slot, has) in super::values::slot_presence(slots) {
            if !has || !HANDED_BACK.contains(&slot) {
                continue;
            }
            if new.iter().any(|(s, _)| s.params.contains_key(slot)) {
                continue;
            }
            let Some((value, _)) = super::values::slot_value(slot, slots) else {
                continue;
            };
            let step = &self.steps[earlier - 1];
            let takes = self
                .cx
                .skills
                .tool(&step.skill, &step.tool)
                .is_some_and(|(_, t)| {
                    t.required_params
                        .iter()
                        .chain(&t.optional_params)
                        .any(|p| p == slot)
                });
            if takes && !step.params.contains_key(slot) {
                self.steps[earlier - 1]
                    .params
                    .insert(slot.to_owned(), value);
            }
        }
    }
}

impl PlanBuilder<'_, '_> {
    /// "which .tif scans in Stamps/Scans are exact duplicates? csv report please": a clause that
    /// is the last step's tool again, on the same things, only says more of how. Its values join
    /// that step (true when they did); a value said differently is a step of its own. The same
    /// look said again is no step at all (true).
    pub(super) fn said_again(&mut self, new: &[(PlanStep, Emitted)]) -> bool {
        if new.len() > 1 {
            return self.steps_said_again(new);
        }
        let [(step, _)] = new else {
            return false;
        };
        let Some(last) = self.steps.last_mut() else {
            return false;
        };
        if last.skill != step.skill || last.tool != step.tool {
            return false;
        }
        let differs = step
            .params
            .iter()
            .any(|(k, v)| last.params.get(k).is_some_and(|old| old != v));
        let adds = step.params.keys().any(|k| !last.params.contains_key(k));
        // "whats inside Documents/School/Maths? list everything": the same look again shows
        // nothing more.
        let looks = self
            .cx
            .skills
            .tool(&step.skill, &step.tool)
            .is_some_and(|(_, t)| !t.mutates());
        if !differs && !adds && looks {
            return true;
        }
        // "Desktop/photo.jpg belongs in Documents/ID, move it there": the same change again, on
        // what the step before changed, is no step.
        let on_its_result = |v: &Value| step_refs(v) == [last.step as usize];
        if !adds
            && step
                .params
                .iter()
                .all(|(k, v)| last.params.get(k) == Some(v) || on_its_result(v))
            && step.params.values().any(on_its_result)
        {
            return true;
        }
        if differs || !adds {
            return false;
        }
        for (k, v) in &step.params {
            last.params.entry(k.clone()).or_insert_with(|| v.clone());
        }
        true
    }
}

impl PlanBuilder<'_, '_> {
    /// "X has the Dvořák in triplicate. Get rid of the identical ones and keep the newest": the
    /// same steps again (the same tools, what they say agreeing, each result taken alike) are
    /// the steps before, with what the new ones add.
    fn steps_said_again(&mut self, new: &[(PlanStep, Emitted)]) -> bool {
        let Some(from) = self.steps.len().checked_sub(new.len()) else {
            return false;
        };
        let same = self.steps[from..].iter().zip(new).all(|(old, (step, _))| {
            old.skill == step.skill
                && old.tool == step.tool
                && step.params.iter().all(|(k, v)| {
                    old.params.get(k).is_none_or(|o| {
                        o == v || !step_refs(o).is_empty() && !step_refs(v).is_empty()
                    })
                })
        });
        if !same {
            return false;
        }
        for (old, (step, _)) in self.steps[from..].iter_mut().zip(new) {
            for (k, v) in &step.params {
                old.params.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
        true
    }
}

/// The step numbers `value` refers to (`"$step(2).nodes"`, in a list too).
fn step_refs(value: &Value) -> Vec<usize> {
    match value {
        Value::String(s) => s
            .strip_prefix("$step(")
            .and_then(|r| r.split_once(')'))
            .and_then(|(n, _)| n.parse().ok())
            .into_iter()
            .collect(),
        Value::Array(items) => items.iter().flat_map(step_refs).collect(),
        _ => Vec::new(),
    }
}
