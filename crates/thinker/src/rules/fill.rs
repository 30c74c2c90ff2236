//! Filling one candidate tool's parameters from a clause: what the request says (its slots), the
//! tool's planning keys in SKILL.md (`acts_on`, `fill`, `when_said`, `defaults`, `takes_from`,
//! `selects`), and the steps before it. Nothing here names a skill or a method.

use std::collections::BTreeSet;

use contracts::{ParamType, PlanStep, SkillDefinition, ToolDefinition};
use retrieval::SkillHit;
use serde_json::{Map, Value, json};

use super::extract::Slots;
use super::score::{
    as_if_fit, intent_bonus, keyword_fit, meta_fit, object_fit, placeless_change_fit, target_fit,
    topic_fit, topic_text, trigger_bonus, verb_fit,
};
use super::values::{default_value, slot_presence, slot_value};

mod inserted;
mod paths;
use super::{Candidate, Emitted, PlanBuilder, looks_like_file};

/// A clause whose "them" is exactly what this tool takes from an earlier step.
const CONTINUES_BONUS: f32 = 0.4;
/// What a required parameter the clause does not give costs a reading (the run would ask).
pub(super) const MISSING_REQUIRED: f32 = 0.25;
/// What the most telling slot of the request adds to a tool that takes it, divided among every
/// tool that can.
const RARE_SLOT_EVIDENCE: f32 = 0.12;
/// A slot at most this many tools take says which of them the person means.
const RARE_SLOT_TAKERS: usize = 2;
/// A word of the clause that chooses one of the tool's values (`when_said`).
const WHEN_SAID_EVIDENCE: f32 = 0.06;
/// A look whose result a sibling changes things with, for a clause that asks for a change.
const LOOK_ALONE_PENALTY: f32 = 0.15;
/// What a tool loses for each thing said that it ignores.
const IGNORED_SLOT: f32 = 0.07;
/// … for a time, a size or a kind that says which files it is about.
const IGNORED_SELECTION: f32 = 0.12;
/// The slots that say which files by time or size.
const SELECTING_SLOTS: &[&str] = &["modified_after", "modified_before", "min_size", "max_size"];
/// … and by kind ("the pdfs", "*.tmp"), for a tool that acts on files or picks them out (a
/// question about the agent's skills names kinds of files as what it asks about).
const KIND_SLOTS: &[&str] = &["extensions", "glob"];
/// A clause that says "them" but whose tool cannot bind it to anything earlier.
const UNBOUND_PENALTY: f32 = 0.15;

/// Whether a word of the clause is said (and not spent on a value).
type WordSaid<'f> = dyn Fn(&str) -> bool + 'f;

/// How a parameter got its value (drives the fit score).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fill {
    /// Read from this clause.
    Stated,
    /// Carried over from an earlier clause or defaulted.
    Inherited,
    /// A reference to an earlier step's output.
    Reference,
    /// A selection step inserted before this one.
    Selection,
    Missing,
}

/// One (skill, tool) being filled for a clause.
struct Draft<'a> {
    skill: &'a SkillDefinition,
    tool: &'a ToolDefinition,
    slots: &'a Slots,
    /// The clause's words and the step description's.
    words: &'a BTreeSet<String>,
    /// The clause's words in order, for the phrases of `when_said` ("free up space").
    said_text: String,
    /// Where the clause says it happens ("in Downloads"; `.` for the whole root).
    clause_place: Option<String>,
    /// A folder named as the object ("sort Downloads").
    folder_object: Option<String>,
    /// Where the request is after this clause.
    new_place: Option<String>,
    /// Steps inserted before the tool's own step (a selection, a scan).
    pending: Vec<(PlanStep, Emitted)>,
    params: Map<String, Value>,
    /// Slots of the clause this way of doing it accounts for.
    used: BTreeSet<&'static str>,
    /// "them" is bound to what an earlier step of this skill produced for exactly this tool
    /// (`takes_from`): "find duplicates in Music and move them to Music/dupes".
    continues: bool,
    /// The request's slots this tool's own parameters took (`name_pattern`, `min_size`).
    taken: Vec<String>,
    /// Required parameters of inserted steps nothing filled (a scan with no folder).
    pending_missing: usize,
}

impl<'a> Draft<'a> {
    /// A reading with nothing filled yet: where the clause says it happens, and the folder it
    /// names as its object.
    fn new(
        skill: &'a SkillDefinition,
        tool: &'a ToolDefinition,
        slots: &'a Slots,
        words: &'a BTreeSet<String>,
        whole: &str,
    ) -> Draft<'a> {
        let folder_object = slots.objects.iter().find(|o| !looks_like_file(o)).cloned();
        // "everything" is everything in the folder the clause names, if it names one.
        let clause_place = slots
            .locations
            .first()
            .cloned()
            .or_else(|| (slots.whole_root && folder_object.is_none()).then(|| ".".to_owned()));
        Draft {
            skill,
            tool,
            slots,
            words,
            said_text: retrieval::text::words(whole).join(" "),
            new_place: clause_place.clone().or(folder_object.clone()),
            clause_place,
            folder_object,
            pending: Vec::new(),
            params: Map::new(),
            used: BTreeSet::new(),
            continues: false,
            taken: Vec::new(),
            pending_missing: 0,
        }
    }

    /// A word or phrase of a `when_said` rule is said: a word among the clause's words, a phrase
    /// ("free up space", "sha-256") word for word in the clause.
    fn says(&self, word: &str) -> bool {
        let phrase = retrieval::text::words(word);
        match phrase.as_slice() {
            [one] if one == word => self.words.contains(word),
            _ => format!(" {} ", self.said_text).contains(&format!(" {} ", phrase.join(" "))),
        }
    }
}

impl PlanBuilder<'_, '_> {
    pub(super) fn candidate(
        &self,
        text: &str,
        description: &str,
        (whole, written): (&str, &str),
        slots: &Slots,
        hit: &SkillHit,
    ) -> Option<Candidate> {
        let skill = &self.cx.skills.get(&hit.skill)?.definition;
        let tool = skill.tool(&hit.tool)?;
        // "make a new folder in Documents": a tool asked for only with its words (`asked_with`,
        // "delete") is no reading of a part that says none of them.
        let unasked = !tool.planning.asked_with.is_empty()
            && !retrieval::text::words(text)
                .into_iter()
                .chain(retrieval::text::words(written))
                .any(|w| tool.planning.asked_with.contains(&w));
        let spec = self
            .cx
            .skills
            .table()
            .get(tool.primitive.kind(), tool.primitive.operation());
        let ty = |name: &str| spec.and_then(|s| s.param(name)).map(|p| p.ty);
        let affirmed: BTreeSet<String> = retrieval::text::words(text)
            .into_iter()
            .chain(retrieval::text::words(description))
            .collect();
        let said = |w: &str| affirmed.contains(w) && !slots.spent.contains(w);
        // Values are chosen by every word, a condition's too ("if a name is taken, keep both").
        let words: BTreeSet<String> = affirmed
            .iter()
            .cloned()
            .chain(retrieval::text::words(whole))
            .collect();

        // What the tool's triggers back, as the clause is read and as it is written.
        // The folders a path goes through say no trigger's word ("… to Archive/Stale" is no
        // archive); its last part may ("Archive/docs-2021.zip" is a zip).
        let unpathed: String = description
            .split_whitespace()
            .map(|w| w.rsplit('/').next().unwrap_or(w))
            .collect::<Vec<_>>()
            .join(" ");
        let presence = slot_presence(slots);
        let unsaid = |p: &str| presence.iter().any(|(name, has)| *name == p && !has);
        let backed = |tool: &str| {
            trigger_bonus(skill, tool, text, &unsaid)
                .max(trigger_bonus(skill, tool, &unpathed, &unsaid))
        };
        // The verb as written (not one a verb of placing became, "put X in Y" → move).
        let mut score =
            self.reading_score((skill, tool), hit, text, slots, (&words, &said), &backed)
                + verb_fit(tool, written);
        let mut d = Draft::new(skill, tool, slots, &words, whole);
        let declared: Vec<&String> = tool
            .required_params
            .iter()
            .chain(&tool.optional_params)
            .collect();
        let fills = self.fill_params(&mut d, &declared, &ty, (text, description))?;
        let filled = fill_evidence(tool, slots, &fills, &|n| {
            matches!(ty(n), Some(ParamType::Path | ParamType::Paths))
        });
        let continues = if d.continues { CONTINUES_BONUS } else { 0.0 };
        let evidence = self.said_evidence(&d, &declared, text, &said);
        // An inserted step that still needs what nobody said costs as the tool's own would.
        let unfilled = MISSING_REQUIRED * d.pending_missing as f32;
        tracing::trace!(reading = %format!("{}/{}", skill.name, tool.name), filled, continues, evidence, unfilled, "fit");
        score += filled + continues + evidence - unfilled;
        let Draft {
            mut pending,
            params,
            new_place,
            pending_missing,
            ..
        } = d;
        pending.push((
            PlanStep {
                step: 0,
                description: description.to_owned(),
                skill: skill.name.clone(),
                tool: tool.name.clone(),
                params,
            },
            Emitted::of(tool),
        ));
        let rare = |slot: &str| {
            self.slot_takers
                .get(slot)
                .is_some_and(|n| *n <= RARE_SLOT_TAKERS)
        };
        let chain = chain_evidence(skill, tool, &pending, &backed, &said, &rare);
        tracing::trace!(reading = %format!("{}/{}", skill.name, tool.name), chain, "chain");
        score += chain;
        let base = self.steps.len() as u32;
        for (i, (s, _)) in pending.iter_mut().enumerate() {
            s.step = base + i as u32 + 1;
        }
        let missing = pending_missing
            + fills
                .iter()
                .filter(|(n, f)| *f == Fill::Missing && tool.required_params.iter().any(|r| r == n))
                .count();
        Some(Candidate {
            missing,
            score,
            steps: pending,
            place: new_place,
            triggered: backed(&tool.name) > 0.0,
            unasked,
        })
    }

    /// What a reading scores before its parameters are filled: retrieval's rank, the triggers
    /// said, what the clause asks for, the skill's topic and keywords, and what it acts on.
    fn reading_score(
        &self,
        (skill, tool): (&SkillDefinition, &ToolDefinition),
        hit: &SkillHit,
        text: &str,
        slots: &Slots,
        (words, said): (&BTreeSet<String>, &WordSaid),
        backed: &dyn Fn(&str) -> f32,
    ) -> f32 {
        let fit = object_fit(tool, slots, self.place.as_deref(), &looks_like_file);
        // "show what's in Freelance/Invoices" says extract_text's trigger "show me what's in
        // {path}", but about a folder, which that tool cannot read: a trigger said about what
        // the tool cannot take backs it less.
        let backing = if fit < 0.0 {
            backed(&tool.name) / 2.0
        } else {
            backed(&tool.name)
        };
        let meta = meta_fit(skill, tool, text, slots.asks_ability);
        let placeless = if meta < 0.0 {
            placeless_change_fit(tool, slots)
        } else {
            0.0
        };
        let parts = [
            hit.score,
            backing,
            intent_bonus(tool, text, slots.asks_ability || slots.as_if),
            meta + as_if_fit(tool, slots.as_if)
                + topic_fit(
                    skill,
                    &|w| words.contains(w),
                    self.steps.last().is_some_and(|s| s.skill == skill.name),
                ),
            keyword_fit(skill, tool, &said),
            fit + target_fit(tool, slots) + placeless,
        ];
        tracing::trace!(reading = %format!("{}/{}", skill.name, tool.name), ?parts, "ranked, trigger, intent, meta and topic, keyword, object");
        parts.iter().sum()
    }

    /// Every declared parameter filled from the clause, an earlier step, a value a word chooses
    /// or the tool's default; `None` when no plan of this tool can take what the clause says.
    fn fill_params<'d>(
        &self,
        d: &mut Draft,
        declared: &[&'d String],
        ty: &dyn Fn(&str) -> Option<ParamType>,
        (text, description): (&str, &str),
    ) -> Option<Vec<(&'d str, Fill)>> {
        let (tool, slots, words) = (d.tool, d.slots, d.words);
        let mut chosen = tool.planning.said_values(|w| d.says(w));
        // "skip the duplicate check": what the clause says not to do chooses values too.
        for (k, v) in tool.planning.denied_values(|w| slots.denied.contains(w)) {
            chosen.entry(k).or_insert(v);
        }
        let mut fills = Vec::with_capacity(declared.len());
        for &name in declared {
            let mut fill = self.fill_param(d, name, ty(name), text, description)?;
            if fill == Fill::Missing
                && let Some(v) = chosen.get(name.as_str())
            {
                // A value chosen by a word is not evidence for the tool itself ("move" picks
                // an action; it does not make the clause about duplicates).
                d.params.insert(name.clone(), v.clone());
                fill = Fill::Inherited;
            }
            fills.push((name.as_str(), fill));
        }
        // "report the duplicates as csv": a word that chose a value (`when_said`) is not also
        // the kind of file to look at.
        let choosing: BTreeSet<&str> = tool
            .planning
            .when_said
            .iter()
            .flat_map(|r| &r.words)
            .filter(|w| words.contains(w.as_str()))
            .map(String::as_str)
            .collect();
        for (name, fill) in &mut fills {
            if tool.planning.slot_for(name) != Some("extensions") || *fill != Fill::Stated {
                continue;
            }
            let Some(Value::String(list)) = d.params.get(*name) else {
                continue;
            };
            let kept: Vec<&str> = list.split(',').filter(|e| !choosing.contains(e)).collect();
            if kept.is_empty() {
                d.params.remove(*name);
                *fill = Fill::Missing;
            } else {
                let kept = kept.join(",");
                d.params.insert((*name).to_owned(), Value::String(kept));
            }
        }
        // What the request did not say: the tool's defaults (templates may use other params).
        for (name, fill) in &mut fills {
            if *fill == Fill::Missing
                && let Some(v) = default_value(tool, name, &d.params, d.folder_object.as_deref())
            {
                d.params.insert((*name).to_owned(), v);
                *fill = Fill::Inherited;
            }
        }
        Some(fills)
    }

    /// What the clause says for or against a tool beyond its parameters: a look asked for a
    /// change it cannot make, words choosing its values, a rare slot it takes, and what it
    /// leaves unused of what the person said.
    fn said_evidence(
        &self,
        d: &Draft,
        declared: &[&String],
        text: &str,
        said: &dyn Fn(&str) -> bool,
    ) -> f32 {
        let (skill, tool, slots) = (d.skill, d.tool, d.slots);
        let mut score = 0.0;
        // "dedupe Pictures/Osaka": a change asked for is made by the sibling that takes this
        // look's result (`takes_from`), not by the look alone.
        let feeds_a_change = skill.tools.values().any(|t| {
            t.mutates()
                && t.planning
                    .takes_from
                    .values()
                    .any(|from| from.split_once('.').is_some_and(|(s, _)| s == tool.name))
        });
        let words = retrieval::text::words(text);
        let asks_a_change = words.iter().enumerate().any(|(i, w)| {
            super::lexicon::lexicon().change_verbs.contains(w)
                || super::score::asked_done_at(&words, i)
        });
        // "move all files from Downloads, larger than 1 GB, to Archiv/Groß": a look cannot put
        // things where the clause says they go.
        let puts_somewhere = !slots.targets.is_empty() && !declared.iter().any(|p| *p == "target");
        if !tool.mutates() && asks_a_change && (feeds_a_change || puts_somewhere) {
            score -= LOOK_ALONE_PENALTY;
        }
        // Words that choose this tool's values point at it ("swap them for hardlinks", "keep
        // the biggest" are the removal, not the scan), as much as few tools take the value
        // ("subfolders too" chooses `recursive`, which a dozen tools take); words naming what a
        // thing is do not.
        score += tool
            .planning
            .when_said
            .iter()
            .filter(|rule| {
                rule.words
                    .iter()
                    .any(|w| said(w) && !super::extract::names_a_kind_of_thing(w))
            })
            .flat_map(|rule| rule.set.keys())
            .map(|param| {
                let takers = tool
                    .planning
                    .slot_for(param)
                    .and_then(|slot| self.slot_takers.get(slot))
                    .copied()
                    .unwrap_or(1)
                    .max(1);
                WHEN_SAID_EVIDENCE / takers as f32
            })
            .fold(0.0, f32::max);
        // Something said that few tools can take is evidence for them ("like
        // 2024-05-01_scan.pdf" is a name pattern; only a rename takes one): the most telling
        // slot taken counts.
        score += d
            .taken
            .iter()
            .filter_map(|slot| self.slot_takers.get(slot).filter(|n| **n > 0))
            .map(|n| RARE_SLOT_EVIDENCE / *n as f32)
            .fold(0.0, f32::max);
        // Specific things the person said that this way of doing it ignores; a time or a size
        // that says which files ("since Monday", "over 1 GB") most of all.
        let handles_files = tool.mutates() || tool.planning.selects.is_some();
        for (slot, present) in slot_presence(slots) {
            if present && !d.used.contains(slot) {
                // The person's own categories ("under Groceries, Fuel or Household") ignored
                // by a tool that sorts into its own.
                score -= if SELECTING_SLOTS.contains(&slot)
                    || handles_files && KIND_SLOTS.contains(&slot)
                    || slot == "categories"
                {
                    IGNORED_SELECTION
                } else {
                    IGNORED_SLOT
                };
            }
        }
        score
    }

    /// One parameter from the clause, an earlier step, or an inserted step. `None` when no plan
    /// can be made this way at all.
    fn fill_param(
        &self,
        d: &mut Draft,
        name: &str,
        ty: Option<ParamType>,
        text: &str,
        description: &str,
    ) -> Option<Fill> {
        let slots = d.slots;
        let fill = match (name, ty) {
            ("path", Some(ParamType::Path)) => self.path_param(d, name),
            ("path" | "source", Some(ParamType::Paths)) => self.paths_param(d, name)?,
            _ if d.tool.planning.takes_from.contains_key(name) => self.taken_from(d, name),
            ("target", _) => self.target_param(d, name),
            // "rename x.pdf in y.pdf" (German "in"): a second, bare file name is the new one.
            ("new_name", _) => match slots.targets.first().or(slots.name.as_ref()).or(
                match slots.objects.as_slice() {
                    [first, second]
                        if looks_like_file(first)
                            && looks_like_file(second)
                            && !second.contains('/') =>
                    {
                        Some(second)
                    }
                    _ => None,
                },
            ) {
                Some(n) => {
                    d.params.insert(name.into(), json!(n));
                    Fill::Stated
                }
                None => Fill::Missing,
            },
            ("name", _) if d.tool.required_params.iter().any(|r| r == "name") => {
                self.name_param(d, name)
            }
            ("query", _) => self.query_param(d, name, text),
            ("description", _) => {
                d.params.insert(name.into(), json!(description));
                Fill::Stated
            }
            _ => match d
                .tool
                .planning
                .slot_for(name)
                .and_then(|s| slot_value(s, slots))
            {
                Some((v, slot)) => {
                    d.used.insert(slot);
                    if let Some(own) = d.tool.planning.slot_for(name) {
                        d.taken.push(own.to_owned());
                    }
                    d.params.insert(name.into(), v);
                    Fill::Stated
                }
                None => Fill::Missing,
            },
        };
        Some(fill)
    }

    /// Where things go: the place said after "to", the folder made before for "it", or the
    /// last of two places said.
    fn target_param(&self, d: &mut Draft, name: &str) -> Fill {
        let slots = d.slots;
        if let Some(t) = slots.targets.first() {
            d.params.insert(name.into(), json!(t));
            Fill::Stated
        } else if let Some(c) = self.last_created().filter(|_| slots.refers_back) {
            d.params.insert(name.into(), json!(c));
            Fill::Reference
        } else if let [_, .., last] = slots.locations.as_slice()
            && d.tool.required_params.iter().any(|r| r == "target")
        {
            // "a second copy of Pictures/Best sitting on Backup/USB": with no "to", the
            // last of two places is where a tool that needs a target puts things.
            d.params.insert(name.into(), json!(last));
            Fill::Stated
        } else if let [place] = slots.locations.as_slice()
            && !slots.objects.is_empty()
            && slots
                .objects
                .iter()
                .all(|o| o.contains('/') && !o.starts_with(place.as_str()))
        {
            // "stick ~/Desktop/W-2 2024.pdf in Taxes/2024": what is named with its
            // whole path is not in the place said after it; it goes there.
            d.params.insert(name.into(), json!(place));
            Fill::Stated
        } else {
            Fill::Missing
        }
    }

    /// A required name is the thing to make ("create a folder called X", "make X").
    fn name_param(&self, d: &mut Draft, name: &str) -> Fill {
        let slots = d.slots;
        match slots.name.clone().or(slots.objects.first().cloned()) {
            // "new folder Documents/Taxes/2025": the last part is the name, the rest
            // the folder it goes in.
            Some(n) if n.trim_end_matches('/').contains('/') => {
                let n = n.trim_end_matches('/');
                let (parent, last) = n.rsplit_once('/').expect("has a slash");
                d.used.insert("name");
                d.params.insert(name.into(), json!(last));
                let path_said_whole = d
                    .params
                    .get("path")
                    .is_none_or(|p| p.as_str().is_some_and(|p| p.trim_end_matches('/') == n));
                if path_said_whole && declared_param(d.tool, "path") {
                    d.params.insert("path".into(), json!(parent));
                }
                Fill::Stated
            }
            Some(n) => {
                d.used.insert("name");
                d.params.insert(name.into(), json!(n));
                Fill::Stated
            }
            None => Fill::Missing,
        }
    }

    /// What to look for: what the clause says it is about, or the trigger said whole.
    fn query_param(&self, d: &mut Draft, name: &str, text: &str) -> Fill {
        let slots = d.slots;
        let q = slots
            .query
            .clone()
            .unwrap_or_else(|| topic_text(text, slots));
        // "what can you do": a trigger said whole with no topic left is itself the query.
        let whole_trigger = super::score::says_trigger_whole(d.skill, &d.tool.name, text);
        tracing::trace!(%q, %text, "query");
        let q = if q.is_empty() && whole_trigger {
            text.trim().trim_end_matches(['?', '!', '.']).to_owned()
        } else {
            q
        };
        // "that thing I was working on" names nothing to look for.
        // Nor does "in", all that is left of "which files in Downloads are over 1 GB?".
        let lex = super::lexicon::lexicon();
        let words = retrieval::text::words(&q);
        // "need the landlord's thingy": a placeholder for a name, with little else said, names
        // nothing either.
        let said: Vec<&String> = words
            .iter()
            .filter(|w| {
                w.len() > 1 && !retrieval::text::is_stop_word(w) && !lex.vague_words.contains(*w)
            })
            .collect();
        let placeholder = words.iter().any(|w| lex.placeholder_nouns.contains(w));
        let vague = !whole_trigger && (said.is_empty() || placeholder && said.len() <= 2);
        if q.is_empty() || vague {
            Fill::Missing
        } else {
            // "a letter about my refund": what a file is about, said, is evidence for a
            // tool that looks by it.
            if slots.query.is_some() {
                d.taken.push("query".to_owned());
            }
            d.params.insert(name.into(), json!(q));
            Fill::Stated
        }
    }
}

/// What a selection of a folder's own entries takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entries {
    /// Its files ("the files in Downloads").
    Files,
    /// Its files and folders ("everything in Temp").
    All,
}

/// Whether `tool` takes a parameter called `name`.
fn declared_param(tool: &ToolDefinition, name: &str) -> bool {
    tool.required_params
        .iter()
        .chain(&tool.optional_params)
        .any(|p| p == name)
}

/// What the filled parameters say of a tool: a required one left empty counts against it (more
/// when the clause points back at something it cannot bind), one the clause stated for it.
fn fill_evidence(
    tool: &ToolDefinition,
    slots: &Slots,
    fills: &[(&str, Fill)],
    path_like: &dyn Fn(&str) -> bool,
) -> f32 {
    let mut score = 0.0;
    if slots.refers_back
        && fills.iter().any(|(n, f)| {
            *f == Fill::Missing && path_like(n) && tool.required_params.iter().any(|r| r == n)
        })
    {
        score -= UNBOUND_PENALTY;
    }
    for (name, fill) in fills {
        let required = tool.required_params.iter().any(|r| r == name);
        score += match (fill, required) {
            (Fill::Missing, true) => -MISSING_REQUIRED,
            (Fill::Missing, false) => 0.0,
            (Fill::Stated, _) => 0.04,
            (Fill::Reference, _) if slots.refers_back => 0.06,
            _ => 0.0,
        };
    }
    score
}

/// A chain (scan → remove) is backed by the trigger phrases and the keywords of every tool in it
/// ("identical" says the scan a removal runs): what the chain adds over the tool's own.
fn chain_evidence(
    skill: &SkillDefinition,
    tool: &ToolDefinition,
    chain: &[(PlanStep, Emitted)],
    backed: &dyn Fn(&str) -> f32,
    said: &dyn Fn(&str) -> bool,
    rare: &dyn Fn(&str) -> bool,
) -> f32 {
    let in_skill = || chain.iter().filter(|(s, _)| s.skill == skill.name);
    let own = backed(&tool.name);
    let triggers = in_skill().map(|(s, _)| backed(&s.tool)).fold(own, f32::max);
    let own_words = keyword_fit(skill, tool, said);
    let keywords = in_skill()
        .filter_map(|(s, _)| skill.tool(&s.tool))
        .map(|t| keyword_fit(skill, t, said))
        .fold(own_words, f32::max);
    // "rename all of em": a chain that has a model read the files first (an inserted `llm`
    // step), when nothing in the clause asks for what that reading gives, is a guess; not when
    // the reading takes something the person said that few tools take ("under Groceries, Fuel
    // or Household"; not "the pictures", which every selection takes).
    let reads_unasked = chain.iter().any(|(s, _)| {
        s.skill == skill.name
            && s.tool != tool.name
            && skill.tool(&s.tool).is_some_and(|t| {
                t.primitive.kind() == contracts::PrimitiveKind::Llm
                    && !s
                        .params
                        .keys()
                        .filter_map(|k| t.planning.slot_for(k))
                        .any(rare)
            })
    }) && triggers < ASKED_FOR
        && keywords == 0.0;
    let unasked = if reads_unasked { UNASKED_READING } else { 0.0 };
    (triggers - own) + (keywords - own_words) - unasked
}

/// Trigger backing below which a clause has not asked for what a tool does.
const ASKED_FOR: f32 = 0.05;
/// What a chain costs that has a model read the files when the clause did not ask for it.
const UNASKED_READING: f32 = 0.2;
