//! The steps a candidate inserts before itself: a selection of the files it acts on, or the
//! sibling tool its parameter is taken from (`takes_from`), filled from the clause. Pure.

use contracts::{ActsOn, PlanStep, PrimitiveKind, SkillDefinition, ToolDefinition};
use serde_json::{Map, json};

use super::{Draft, Emitted, Entries, Fill};
use crate::rules::extract::Slots;
use crate::rules::score::describe_selection;
use crate::rules::values::slot_value;
use crate::rules::{PlanBuilder, looks_like_file};

impl PlanBuilder<'_, '_> {
    /// Inserts a selection step over `place` and points `name` at its result; with `top`, of
    /// the folder's own entries only.
    pub(super) fn select_into(
        &self,
        d: &mut Draft,
        name: &str,
        place: Option<String>,
        top: Option<Entries>,
    ) -> Option<Fill> {
        let top = top.or((d.tool.planning.acts_on == ActsOn::Files).then_some(Entries::Files));
        let (step, consumed, field) = self.selection_step(d.slots, place.clone(), top)?;
        // The selection made for this tool takes the filters for it.
        d.taken.extend(consumed.iter().map(|s| (*s).to_owned()));
        d.used.extend(consumed);
        let emitted = Emitted {
            return_type: String::new(),
            selects: Some(field.clone()),
        };
        d.pending.push((step, emitted));
        let r = format!("$step({}).{field}", self.steps.len() + d.pending.len());
        d.params.insert(name.into(), json!(r));
        d.new_place = place;
        Some(Fill::Selection)
    }

    /// A parameter taken from a sibling tool's result (`takes_from`): an earlier step of that
    /// tool, or the tool run first.
    pub(super) fn taken_from(&self, d: &mut Draft, name: &str) -> Fill {
        let Some((sibling, field)) = d.tool.planning.takes_from[name].split_once('.') else {
            return Fill::Missing;
        };
        let earlier = self
            .steps
            .iter()
            .rposition(|s| s.skill == d.skill.name && s.tool == sibling);
        if let Some(i) = earlier.filter(|i| d.slots.refers_back || *i + 1 == self.steps.len()) {
            d.continues = d.slots.refers_back;
            d.params
                .insert(name.into(), json!(format!("$step({}).{field}", i + 1)));
            return Fill::Reference;
        }
        let Some(tool) = d.skill.tool(sibling) else {
            return Fill::Missing;
        };
        let (mut step, used) = self.producer(d.skill, tool, d.slots, d.clause_place.clone());
        // Values the clause's words choose for the sibling ("the resized copies" → similar).
        for (k, v) in tool.planning.said_values(|w| d.says(w)) {
            let declared = tool.optional_params.contains(&k);
            if declared && !step.params.contains_key(&k) {
                step.params.insert(k, v);
            }
        }
        // What the sibling takes from the clause counts for this way of doing it.
        d.taken.extend(used.iter().map(|s| (*s).to_owned()));
        d.used.extend(used);
        d.pending_missing += tool
            .required_params
            .iter()
            .filter(|r| !step.params.contains_key(r.as_str()))
            .count();
        d.pending.push((step, Emitted::of(tool)));
        d.params.insert(
            name.into(),
            json!(format!(
                "$step({}).{field}",
                self.steps.len() + d.pending.len()
            )),
        );
        Fill::Reference
    }

    /// A read-only step selecting the files a mutating step acts on: a tool that declares
    /// `selects`, takes only a `path`, and accepts every filter the clause gives (the simplest
    /// such tool). Returns the step, the slots it used and the field that holds the selection.
    fn selection_step(
        &self,
        slots: &Slots,
        place: Option<String>,
        top: Option<Entries>,
    ) -> Option<(PlanStep, Vec<&'static str>, String)> {
        let accepts = |t: &ToolDefinition, p: &str| {
            t.required_params
                .iter()
                .chain(&t.optional_params)
                .any(|x| x == p)
        };
        let filters: Vec<&str> = SELECTION_FILTERS
            .iter()
            .copied()
            .filter(|f| slot_value(f, slots).is_some())
            .collect();
        // "the three biggest files": a selection ranked by size takes a tool that ranks
        // (`top_n`), where one takes every filter; else the first files found would do.
        let choose = |ranked: bool| {
            let mut choice: Option<(&SkillDefinition, &ToolDefinition)> = None;
            for loaded in self.cx.skills.skills() {
                for t in loaded.definition.tools.values() {
                    // A preview shows a change; it selects nothing for one.
                    let ok = t.planning.selects.is_some()
                        && t.planning.previews.is_none()
                        && !t.mutates()
                        && t.primitive.kind() == PrimitiveKind::Graph
                        && t.required_params.iter().all(|r| r == "path")
                        && (if ranked {
                            accepts(t, "top_n")
                        } else {
                            accepts(t, "kind")
                        })
                        && filters.iter().all(|f| accepts(t, param_for_filter(f)));
                    // Prefer the tool with the fewest params that still accepts everything.
                    let better = choice
                        .is_none_or(|(_, c)| t.optional_params.len() < c.optional_params.len());
                    if ok && better {
                        choice = Some((&loaded.definition, t));
                    }
                }
            }
            choice
        };
        let ranked = slots.by_size && slots.limit.is_some();
        let (skill, tool) = ranked
            .then(|| choose(true))
            .flatten()
            .or_else(|| choose(false))?;
        let mut params = Map::new();
        params.insert(
            "path".into(),
            json!(place.clone().unwrap_or_else(|| ".".into())),
        );
        let used = optional_from_slots(tool, slots, &mut params);
        if !params.contains_key("kind")
            && accepts(tool, "kind")
            && !slots.empty
            && top != Some(Entries::All)
        {
            params.insert("kind".into(), json!("file"));
        }
        // The files directly in the folder unless the request says everywhere.
        if top.is_some() && !params.contains_key("recursive") && accepts(tool, "recursive") {
            params.insert("recursive".into(), json!(false));
        }
        for (k, v) in &tool.planning.defaults {
            params.entry(k.clone()).or_insert_with(|| v.clone());
        }
        let description = describe_selection(slots, place.as_deref());
        let field = tool.planning.selects.clone()?;
        Some((
            PlanStep {
                step: 0,
                description,
                skill: skill.name.clone(),
                tool: tool.name.clone(),
                params,
            },
            used,
            field,
        ))
    }

    /// The sibling `tool` run first (the `scan` before a `remove`), on the clause's folder.
    fn producer(
        &self,
        skill: &SkillDefinition,
        tool: &ToolDefinition,
        slots: &Slots,
        clause_place: Option<String>,
    ) -> (PlanStep, Vec<&'static str>) {
        let mut params = Map::new();
        let place = clause_place
            .or(slots.objects.iter().find(|o| !looks_like_file(o)).cloned())
            .or(self.inherited_place());
        if let Some(p) = &place {
            params.insert("path".into(), json!(p));
        }
        let used = optional_from_slots(tool, slots, &mut params);
        let step = PlanStep {
            step: 0,
            description: format!(
                "{} in {}",
                tool.description.to_lowercase(),
                place.as_deref().unwrap_or("the folder")
            ),
            skill: skill.name.clone(),
            tool: tool.name.clone(),
            params,
        };
        (step, used)
    }
}

/// The filters a selection step must carry over from the clause (slot names).
const SELECTION_FILTERS: &[&str] = &[
    "name",
    "glob",
    "extensions",
    "min_size",
    "max_size",
    "modified_after",
    "modified_before",
    "empty",
];

fn param_for_filter(slot: &str) -> &str {
    match slot {
        "extensions" => "extension",
        s => s,
    }
}

/// Fills each optional parameter of `tool` that a slot of the clause says; returns the slots
/// used.
fn optional_from_slots(
    tool: &ToolDefinition,
    slots: &Slots,
    params: &mut Map<String, serde_json::Value>,
) -> Vec<&'static str> {
    let mut used = Vec::new();
    for name in &tool.optional_params {
        if let Some((v, slot)) = tool
            .planning
            .slot_for(name)
            .and_then(|s| slot_value(s, slots))
        {
            params.insert(name.clone(), v);
            used.push(slot);
        }
    }
    used
}
