//! RulePlanner: the embedded default planner. Splits the request into clauses, ranks (skill, tool)
//! pairs for each clause with the retrieval pipeline, re-scores them by trigger phrases and by how
//! well the clause's extracted parameters fit each tool, and chains steps with `$step(n).field`.

mod clause;
mod earlier;
mod extract;
mod fill;
mod learn;
mod lexicon;
mod normalize;
mod rest;
mod score;
mod values;

use std::collections::BTreeMap;

use contracts::{Plan, PlanStep, ToolDefinition};
use serde_json::Value;

pub use clause::{Clause, split, split_with};
pub use extract::{Grounding, Slots, extract};

use crate::{
    Judgement, PlanControl, PlanRequest, Planned, Planner, PlanningContext, Reading, ReadingJudge,
    ReadingQuestion, Result, ThinkerError,
};

/// Below this combined score a clause is not understood and the person is asked.
pub const UNDERSTOOD_FLOOR: f32 = 0.25;
/// The score of carrying out what the step before previewed, when the person asks for it: as
/// sure as a reading gets.
const CARRIED_OUT: f32 = 1.0;

/// How many ranked (skill, tool) pairs are re-scored per clause.
const CANDIDATES: usize = 18;

/// The embedded planner; no model.
#[derive(Debug, Default, Clone)]
pub struct RulePlanner;

impl Planner for RulePlanner {
    fn name(&self) -> String {
        "rule".into()
    }

    fn plan(
        &mut self,
        request: &PlanRequest,
        cx: &PlanningContext,
        control: &PlanControl,
    ) -> Result<Planned> {
        self.plan_judged(request, cx, control, None)
    }
}

impl RulePlanner {
    /// Plans `request`; a clause the rules read more than one way without being sure which
    /// (margin below `planner_sure_margin`) is decided by `judge` when there is one (a model;
    /// `judge.rs`).
    pub fn plan_judged(
        &mut self,
        request: &PlanRequest,
        cx: &PlanningContext,
        control: &PlanControl,
        judge: Option<&mut (dyn ReadingJudge + '_)>,
    ) -> Result<Planned> {
        let started = std::time::Instant::now();
        let grounding = Grounding {
            root_name: request.root_name.clone(),
            entries: request.entries.clone(),
        };
        let vocab = normalize::vocabulary(cx.skills);
        let takers = slot_takers(cx.skills);
        tracing::debug!(?takers, "slot takers");
        let mut builder = PlanBuilder {
            cx,
            grounding: &grounding,
            vocab: &vocab,
            last_target: None,
            steps: Vec::new(),
            returns: Vec::new(),
            place: None,
            notes: Vec::new(),
            not_understood: Vec::new(),
            confidence: BTreeMap::new(),
            learned: &request.learned,
            slot_takers: takers,
            header_place: None,
            header_object: None,
            header_file: None,
            judge,
            judged_by: None,
            request: &request.text,
            control,
        };
        // A request in another language is read in English; names that exist stay as written.
        let english = lexicon::lexicon()
            .to_english(&request.text, |w| {
                let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '/');
                grounding.entry(w).is_some()
            })
            .map(|(language, english)| {
                builder
                    .notes
                    .push(format!("read as {language}: \"{english}\""));
                english
            });
        let clauses = split_with(
            english.as_deref().unwrap_or(&request.text),
            &trigger_verbs(cx.skills),
        );
        let has_body = clauses.iter().any(|c| !c.header);
        // Parts before this one were taken as the rest of an earlier part's tool.
        let mut taken_to = 0;
        for (i, c) in clauses.iter().enumerate() {
            if control.is_cancelled() {
                return Err(ThinkerError::Cancelled);
            }
            if i < taken_to {
                continue;
            }
            // The rest a tool may take: up to a part said after "then" (a step of its own).
            let rest: Vec<&str> = clauses[i + 1..]
                .iter()
                .take_while(|c| !c.sequenced)
                .map(|c| c.text.as_str())
                .collect();
            if c.header && has_body {
                let mut slots = extract(&c.text, &grounding);
                if let Some(name) = extract::only_a_name(&c.text) {
                    slots.locations = vec![name];
                    slots.objects.clear();
                }
                builder.take_place(&slots);
                builder.header_place = builder.place.clone().filter(|p| p != ".");
                builder.header_file = slots
                    .locations
                    .iter()
                    .chain(&slots.objects)
                    .find(|p| looks_like_file(p))
                    .cloned();
                // "my e-reader backup is Downloads/ebooks.zip: unpack it": a heading that
                // names a file is about that file, whatever else it calls a folder.
                builder.header_object = slots
                    .objects
                    .iter()
                    .find(|o| !looks_like_file(o) && *o != ".")
                    .filter(|_| builder.header_file.is_none())
                    .cloned();
                // A heading that names no place may still say what the rest is ("new skill:
                // receipt-filer, it moves …"); read as anything else it is taken back.
                if builder.place.is_none() && builder.header_file.is_none() {
                    let mark = builder.mark();
                    builder.clause(&c.text)?;
                    if builder.take_rest(&mark, None, &rest) {
                        taken_to = i + 1 + rest.len();
                        continue;
                    }
                    builder.restore(mark);
                }
                continue;
            }
            let mark = builder.mark();
            builder.clause(&c.text)?;
            if builder.take_rest(&mark, Some(&c.text), &rest) {
                taken_to = i + 1 + rest.len();
            }
        }
        let clarification = if builder.not_understood.is_empty() {
            None
        } else if builder.steps.is_empty() {
            Some(format!(
                "I could not tell what to do with \"{}\". Say what should happen and where, e.g. \
                 \"remove duplicates in Downloads\" or \"sort Desktop by type\".",
                builder.not_understood.join("\", \"")
            ))
        } else {
            Some(format!(
                "I understood {} step(s) but not \"{}\". Rephrase that part, or answer with \
                 nothing to go on without it.",
                builder.steps.len(),
                builder.not_understood.join("\", \"")
            ))
        };
        Ok(Planned {
            plan: Plan {
                steps: builder.steps,
            },
            clarification,
            notes: builder.notes,
            usage: crate::PlanUsage {
                planner: match &builder.judged_by {
                    Some(by) => format!("rule, readings chosen by {by}"),
                    None => "rule".into(),
                },
                latency_ms: started.elapsed().as_secs_f64() * 1000.0,
                ..Default::default()
            },
            prompt: None,
            response: None,
            fallback: None,
            confidence: builder.confidence,
            workflow: None,
        })
    }
}

/// One way of doing a clause: the steps it takes and how well they fit.
#[derive(Debug, Clone)]
struct Candidate {
    score: f32,
    /// Required parameters of its tool the clause does not give.
    missing: usize,
    steps: Vec<(PlanStep, Emitted)>,
    place: Option<String>,
}

impl Candidate {
    /// The skill that does what the clause asks (the last step; earlier ones select for it).
    fn skill(&self) -> &str {
        self.steps.last().map_or("", |(s, _)| s.skill.as_str())
    }

    /// `skill/tool` of the step that does what the clause asks.
    fn action(&self) -> String {
        self.steps
            .last()
            .map_or_else(String::new, |(s, _)| format!("{}/{}", s.skill, s.tool))
    }
}

struct PlanBuilder<'a, 'j> {
    cx: &'a PlanningContext<'a>,
    grounding: &'a Grounding,
    vocab: &'a normalize::Vocabulary,
    /// Where the last move/copy/extract put things ("... then remove duplicates there").
    last_target: Option<String>,
    steps: Vec<PlanStep>,
    /// What each emitted step leaves (same order as `steps`).
    returns: Vec<Emitted>,
    /// The folder the request is about so far.
    place: Option<String>,
    notes: Vec<String>,
    not_understood: Vec<String>,
    /// Step number → the margin of its clause's reading (see `Planned::confidence`).
    confidence: BTreeMap<u32, f32>,
    /// The person's earlier choices (`PlanRequest::learned`).
    learned: &'a [contracts::LearnedChoice],
    /// The folder a header named ("the desktop is a mess – sort everything by type"):
    /// "everything" in the clauses after it is everything there.
    header_place: Option<String>,
    /// The folder a header names as what it is about ("I never want to lose Writing/Novel").
    header_object: Option<String>,
    /// The file a header named ("Documents/report.pdf: summarize it"): what the first clause
    /// acts on when it names nothing itself.
    header_file: Option<String>,
    /// For each slot of a request, how many tools of the catalogue have a parameter it fills.
    slot_takers: BTreeMap<String, usize>,
    /// Decides between readings of a clause the rules are unsure of (a model), when there is one.
    judge: Option<&'a mut (dyn ReadingJudge + 'j)>,
    /// The judge's name once it chose a reading.
    judged_by: Option<String>,
    /// The whole request, as the judge is shown it.
    request: &'a str,
    control: &'a PlanControl<'a>,
}

/// The first word of every trigger of the catalogue (skill-wide and per tool) that is not a
/// small word: the verbs the skills are asked with, which start a clause as the lexicon's do.
fn trigger_verbs(skills: &skills::SkillStore) -> std::collections::BTreeSet<String> {
    skills
        .skills()
        .flat_map(|s| {
            let d = &s.definition;
            d.triggers
                .iter()
                .chain(d.tools.values().flat_map(|t| t.planning.triggers.iter()))
                .filter_map(|t| t.split_whitespace().next())
                .map(str::to_lowercase)
                .filter(|w| w.chars().all(char::is_alphabetic))
                .filter(|w| !retrieval::text::is_stop_word(w) && !clause::is_question_word(w))
                // "files changed in the last {modified_after}" opens with a noun: an imperative
                // does not end in -s.
                .filter(|w| !w.ends_with('s') || lexicon::lexicon().action_verbs.contains(w))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// How many tools take each slot (through `fill` or a parameter of the slot's name).
fn slot_takers(skills: &skills::SkillStore) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for s in skills.skills() {
        for tool in s.definition.tools.values() {
            let slots: std::collections::BTreeSet<&str> = tool
                .required_params
                .iter()
                .chain(&tool.optional_params)
                .filter_map(|p| tool.planning.slot_for(p))
                .collect();
            for slot in slots {
                *out.entry(slot.to_owned()).or_insert(0) += 1;
            }
        }
    }
    out
}

/// What an emitted step leaves for later steps: its result type and the field of it that is a
/// selection (the tool's `selects`).
#[derive(Debug, Clone)]
struct Emitted {
    return_type: String,
    selects: Option<String>,
}

impl Emitted {
    fn of(tool: &ToolDefinition) -> Emitted {
        Emitted {
            return_type: tool.return_type.clone(),
            selects: tool.planning.selects.clone(),
        }
    }
}

/// `skill/tool` as a reading retrieval did not rank.
fn unranked(skill: &str, tool: &str) -> retrieval::SkillHit {
    retrieval::SkillHit {
        skill: skill.to_owned(),
        tool: tool.to_owned(),
        score: 0.0,
        skill_score: 0.0,
        tool_score: 0.0,
        vector: 0.0,
        bm25: 0.0,
    }
}

/// `skill/tool` as a reading: as retrieval ranked it, if it did.
fn as_ranked(ranking: &retrieval::SkillRanking, skill: &str, tool: &str) -> retrieval::SkillHit {
    ranking
        .hits
        .iter()
        .find(|h| h.skill == skill && h.tool == tool)
        .cloned()
        .unwrap_or_else(|| unranked(skill, tool))
}

fn looks_like_file(p: &str) -> bool {
    p.rsplit('/')
        .next()
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(stem, ext)| !stem.is_empty() && (1..=5).contains(&ext.len()))
}

impl PlanBuilder<'_, '_> {
    fn take_place(&mut self, s: &Slots) {
        let folder = s
            .locations
            .iter()
            .chain(&s.objects)
            .find(|p| !looks_like_file(p))
            .cloned()
            .or_else(|| s.whole_root.then(|| ".".to_owned()));
        if folder.is_some() {
            self.place = folder;
        }
    }

    fn clause(&mut self, text: &str) -> Result<()> {
        let mut slots = extract(
            &normalize::filter_typos_fixed(text, self.vocab),
            self.grounding,
        );
        self.bind_references(text, &mut slots);
        tracing::trace!(clause = %text, ?slots, "slots");
        // "are there duplicates in X? just list them": the look before shows them already.
        if clause::only_asks_to_see_them(text)
            && self
                .steps
                .last()
                .and_then(|s| self.cx.skills.tool(&s.skill, &s.tool))
                .is_some_and(|(_, t)| !t.mutates())
        {
            return Ok(());
        }
        // What the clause says not to do is no evidence for a tool that does it.
        let affirmed = clause::affirmed(text);
        let matched = normalize::for_matching(&affirmed, &slots, self.vocab, true);
        let described = normalize::for_matching(&affirmed, &slots, self.vocab, false);
        let whole =
            normalize::for_matching(&clause::without_negations(text), &slots, self.vocab, false);
        // "how many files would Downloads/Zoom end up with? nothing moves yet": said as if,
        // negations and all, with the casual phrases read and the places out.
        let as_written = format!(
            " {} ",
            normalize::for_matching(text, &slots, self.vocab, true)
                .to_lowercase()
                .replace(['?', ',', '!', '.'], " ")
        );
        slots.as_if = lexicon::lexicon()
            .hypothetical_phrases
            .iter()
            .any(|p| as_written.contains(&format!(" {p} ")));
        let ranking = self.cx.retrieval.match_skill(&matched)?;
        // What the person chose before for a clause like this one: their choice is a reading
        // even when retrieval does not rank it.
        let lessons = learn::lessons(&described, self.learned);
        let mut hits = self.readings(&ranking, &slots, (&matched, &affirmed), &lessons);
        // "…, then actually do it": the tool the step before previewed, on the same place.
        let carried_out = self
            .previewed_by_last_step()
            .filter(|_| clause::carries_out(text));
        if let Some((skill, tool, place)) = &carried_out {
            hits = vec![unranked(skill, tool)];
            if slots.locations.is_empty()
                && slots.objects.is_empty()
                && let Some(p) = place
            {
                slots.locations.push(p.clone());
            }
        }
        tracing::debug!(clause = %text, %matched, hits = hits.len(), "reading");
        let mut candidates: Vec<Candidate> = hits
            .iter()
            .filter_map(|hit| self.candidate(&matched, &described, &whole, &slots, hit))
            .collect();
        for c in &mut candidates {
            // What the person saw previewed and asks to be done is what they asked for.
            if carried_out.is_some() {
                c.score = c.score.max(CARRIED_OUT);
            }
            c.score += learn::adjustment(&described, &c.action(), &lessons);
            // What the person chose is not held against for what it still needs: the run asks.
            if lessons.iter().any(|l| l.chosen == c.action()) {
                c.score += fill::MISSING_REQUIRED * c.missing as f32;
            }
            tracing::debug!(clause = %text, reading = %c.action(), score = c.score, "candidate");
        }
        // The first of equals wins, as the ranking ordered them.
        let best_at = candidates
            .iter()
            .enumerate()
            .fold(None::<(usize, f32)>, |acc, (i, c)| match acc {
                Some((_, s)) if c.score <= s => acc,
                _ => Some((i, c.score)),
            })
            .map(|(i, _)| i);
        let best_at = best_at.map(|i| self.change_said_first(text, &candidates, i));
        let mut best = best_at.map(|i| candidates.swap_remove(i));
        // How far the reading is ahead of the best reading with another skill (or of the floor).
        let mut margin = best.as_ref().map(|b| {
            let other = candidates
                .iter()
                .filter(|c| c.skill() != b.skill())
                .map(|c| c.score)
                .fold(UNDERSTOOD_FLOOR, f32::max);
            b.score - other
        });
        if let (Some(b), Some(m)) = (best.as_mut(), margin.as_mut()) {
            self.judge_reading(text, b, m, &mut candidates)?;
        }
        if let Some(lesson) = best
            .as_ref()
            .and_then(|b| lessons.iter().find(|l| l.chosen == b.action()))
        {
            self.notes.push(format!(
                "learned from your choice on {}: \"{}\" is {}",
                lesson.day(),
                lesson.text,
                lesson.chosen
            ));
        }
        self.keep(text, best, margin, &slots);
        Ok(())
    }

    /// "remove empty files in Downloads": a clause that opens with a change is that change, not
    /// only the look-up that selects for it, when the best change is nearly as good (its
    /// selection step comes with it).
    fn change_said_first(&self, text: &str, candidates: &[Candidate], best: usize) -> usize {
        const NEARLY: f32 = 0.2;
        let tool = |c: &Candidate| {
            c.steps
                .last()
                .and_then(|(s, _)| self.cx.skills.tool(&s.skill, &s.tool))
                .map(|(_, t)| t)
        };
        let selects_only =
            tool(&candidates[best]).is_some_and(|t| !t.mutates() && t.planning.selects.is_some());
        if !selects_only || !score::opens_with_a_change(text) {
            return best;
        }
        candidates
            .iter()
            .enumerate()
            .filter(|(_, c)| tool(c).is_some_and(|t| t.mutates()))
            .filter(|(_, c)| c.score >= candidates[best].score - NEARLY)
            .max_by(|(_, a), (_, b)| a.score.total_cmp(&b.score))
            .map_or(best, |(i, _)| i)
    }

    /// Binds what the clause points at to what the request said before: "there" (where the last
    /// step put things, or the place the request is about), "the whole thing", "everything"
    /// after a header or a step, "it" after a header naming a folder or a file, and a bare name
    /// that ends a path said before.
    fn bind_references(&mut self, text: &str, slots: &mut Slots) {
        // "there": where the last step put things, else the place the request is about
        // ("analyze Projects, then pack everything in there…"); "everything" is everything there.
        let lower = text.to_lowercase();
        let in_there = ["in there", "from there", "inside there", "under there"]
            .iter()
            .any(|p| lower.contains(p));
        let that_folder = ["that folder", "that directory", "the same folder"]
            .iter()
            .any(|p| lower.contains(p));
        let put_somewhere = self
            .last_target
            .clone()
            .or_else(|| self.last_created().filter(|_| in_there));
        // "make a folder Taxes/2026 and put payslip.pdf in there": after a verb of placing and
        // the thing placed, "there" is where it goes.
        let placing = retrieval::text::words(text)
            .first()
            .is_some_and(|w| lexicon::lexicon().placing_verbs.contains(w))
            && !slots.objects.is_empty();
        if slots.there
            && placing
            && slots.targets.is_empty()
            && let Some(t) = self
                .last_created()
                .or(self.last_target.clone())
                .or_else(|| self.place.clone().filter(|p| p != "."))
        {
            slots.locations.retain(|l| *l != t);
            slots.targets.push(t);
        } else if slots.there
            && slots.locations.is_empty()
            && let Some(t) = put_somewhere
                .clone()
                .or_else(|| self.place.clone().filter(|p| p != "." && in_there))
        {
            slots.locations.push(t);
            slots.whole_root &= !in_there;
        } else if that_folder
            && put_somewhere.is_none()
            && slots.locations.is_empty()
            && slots.objects.is_empty()
            && let Some(p) = self.place.clone().filter(|p| p != ".")
        {
            // "delete every .bak file in X, then compress that folder": with nothing put
            // anywhere before, the folder the request is about (not the files just deleted).
            slots.objects.push(p);
        } else if slots.there
            && slots.targets.is_empty()
            && let Some(t) = self.last_created().or(self.last_target.clone())
        {
            // "shift each pdf from Downloads/Receipts in there": with a place of its own,
            // "there" is where things go (the folder made before, or the last target).
            slots.targets.push(t);
        }
        // "…, then pack the whole thing": the folder the request is about.
        if slots.whole_place
            && slots.locations.is_empty()
            && slots.objects.is_empty()
            && let Some(p) = self.place.clone().filter(|p| p != ".")
        {
            slots.objects.push(p);
        }
        // "everything" after a header, or after a step in a folder ("delete the empty folders
        // in Hausaufgaben, then sort everything by type"), is everything there.
        if slots.whole_root
            && slots.locations.is_empty()
            && slots.objects.is_empty()
            && let Some(p) = self
                .header_place
                .clone()
                .or_else(|| self.place.clone().filter(|_| !self.steps.is_empty()))
        {
            slots.locations.push(p);
            slots.whole_root = false;
        }
        // "I never want to lose Writing/Novel — stash a spare of it on Backup/Cloud": "it" is
        // the folder the header names as what it is about (not "the names in Samples/Drums").
        if self.steps.is_empty()
            && slots.refers_back
            && slots.objects.is_empty()
            && let Some(p) = self.header_object.clone()
            && !slots.locations.contains(&p)
        {
            slots.objects.push(p);
            slots.refers_back = false;
        }
        if self.steps.is_empty()
            && slots.locations.is_empty()
            && slots.objects.is_empty()
            && let Some(f) = self.header_file.take()
        {
            slots.objects.push(f);
            slots.refers_back = false;
        }
        // "wipe the 0 KB files out of Dev/api-server/logs, then tar.gz that logs folder": a
        // bare name that ends a path said before is that path.
        // "Fire Brigade/Rosters: … goes to Archive/Fire Brigade, then an overview of Fire
        // Brigade": a name that opens a path said is that folder itself.
        let said_before = self.paths_said();
        for p in slots.locations.iter_mut().chain(slots.objects.iter_mut()) {
            let opens_a_path = said_before.iter().any(|k| {
                k.split_once('/')
                    .is_some_and(|(first, _)| first.eq_ignore_ascii_case(p))
            });
            if !p.contains('/')
                && !opens_a_path
                && let Some(full) = said_before.iter().find(|k| {
                    k.rsplit('/')
                        .next()
                        .is_some_and(|last| last.eq_ignore_ascii_case(p))
                })
            {
                p.clone_from(full);
            }
        }
    }

    /// The readings of a clause: what retrieval ranks first, a tool whose trigger the clause
    /// says, a tool made for the kind of file named, the meta skills when the clause asks what the
    /// agent can do, and what the person chose before for a clause like it.
    fn readings(
        &self,
        ranking: &retrieval::SkillRanking,
        slots: &Slots,
        (matched, affirmed): (&str, &str),
        lessons: &[&contracts::LearnedChoice],
    ) -> Vec<retrieval::SkillHit> {
        let mut hits: Vec<retrieval::SkillHit> =
            ranking.hits.iter().take(CANDIDATES).cloned().collect();
        // A tool whose trigger the clause says word for word (its slots filled) is a reading,
        // ranked or not.
        for s in self.cx.skills.skills() {
            for tool in s.definition.tools.keys() {
                let says_trigger = score::says_trigger_whole(&s.definition, tool, affirmed)
                    || score::says_trigger_whole(&s.definition, tool, matched)
                    || score::trigger_frame_said(&s.definition, tool, matched).is_some()
                    || score::trigger_frame_said(&s.definition, tool, affirmed).is_some();
                if says_trigger
                    && !hits
                        .iter()
                        .any(|h| h.skill == s.definition.name && h.tool == *tool)
                {
                    hits.push(unranked(&s.definition.name, tool));
                }
            }
        }
        // "… could live in Archive/old.tar.gz": a tool that makes that kind of file at its
        // target is a reading, ranked or not; so is one made for the kind of the one file the
        // clause names ("which files are in Requiem [hotfix].zip" lists an archive).
        let kind_of = |p: &String| {
            let name = p.rsplit('/').next().unwrap_or(p).to_lowercase();
            sandbox::category_of(name.rsplit_once('.').map(|(_, e)| e))
        };
        let target_kinds: Vec<&str> = slots
            .targets
            .iter()
            .filter(|t| looks_like_file(t))
            .map(kind_of)
            .collect();
        let files: Vec<&String> = slots
            .objects
            .iter()
            .chain(&slots.locations)
            .filter(|p| looks_like_file(p))
            .collect();
        let object_kinds: Vec<&str> = match files.as_slice() {
            [one] => vec![kind_of(one)],
            _ => Vec::new(),
        };
        tracing::trace!(?target_kinds, ?object_kinds, "kinds named");
        for s in self.cx.skills.skills() {
            let d = &s.definition;
            for (name, tool) in &d.tools {
                let makes_it = tool
                    .planning
                    .makes
                    .iter()
                    .any(|k| target_kinds.contains(&k.as_str()));
                // Only a tool made for that kind alone (not one that reads every kind).
                let reads_it = tool.planning.reads.len() == 1
                    && object_kinds.contains(&tool.planning.reads[0].as_str());
                if (makes_it || reads_it)
                    && !hits.iter().any(|h| h.skill == d.name && h.tool == *name)
                {
                    hits.push(as_ranked(ranking, &d.name, name));
                }
            }
        }
        // "can u convert wav to flac?" asks what the agent can do: looking its skills up is a
        // reading, ranked or not.
        if slots.asks_ability {
            for s in self.cx.skills.skills() {
                let d = &s.definition;
                for (name, _) in d.tools.iter().filter(|(_, t)| !t.mutates()) {
                    let known = hits.iter().any(|h| h.skill == d.name && h.tool == *name);
                    if d.tags.iter().any(|t| t == "meta") && !known {
                        hits.push(as_ranked(ranking, &d.name, name));
                    }
                }
            }
        }
        // "check Pictures for duplicate photos and put them in a folder called X": a clause
        // pointing back at the last step is offered the sibling that takes that step's result
        // (`takes_from`), ranked or not.
        if slots.refers_back
            && let Some(last) = self.steps.last()
            && let Some(s) = self
                .cx
                .skills
                .skills()
                .find(|s| s.definition.name == last.skill)
        {
            let d = &s.definition;
            for (name, tool) in &d.tools {
                let takes_the_last = tool
                    .planning
                    .takes_from
                    .values()
                    .any(|from| from.split_once('.').is_some_and(|(t, _)| t == last.tool));
                if takes_the_last && !hits.iter().any(|h| h.skill == d.name && h.tool == *name) {
                    hits.push(as_ranked(ranking, &d.name, name));
                }
            }
        }
        for l in lessons {
            let Some((skill, tool)) = l.chosen.split_once('/') else {
                continue;
            };
            if !hits.iter().any(|h| h.skill == skill && h.tool == tool) {
                hits.push(as_ranked(ranking, skill, tool));
            }
        }
        hits
    }

    /// Keeps the best reading's steps when it is understood (its place and target become what
    /// later clauses refer to), else notes the clause as not understood.
    fn keep(&mut self, text: &str, best: Option<Candidate>, margin: Option<f32>, slots: &Slots) {
        match best {
            Some(c) if c.score >= UNDERSTOOD_FLOOR => {
                if let Some(p) = c.place {
                    self.place = Some(p);
                }
                if let Some(t) = c
                    .steps
                    .last()
                    .and_then(|(s, _)| s.params.get("target"))
                    .and_then(Value::as_str)
                {
                    self.last_target = Some(t.to_owned());
                }
                self.hand_back(&c.steps, slots);
                if self.said_again(&c.steps) {
                    return;
                }
                for (step, ret) in c.steps {
                    self.confidence.insert(step.step, margin.unwrap_or(0.0));
                    self.steps.push(step);
                    self.returns.push(ret);
                }
            }
            other => {
                if let Some(c) = other {
                    self.notes.push(format!(
                        "\"{text}\": best guess {} scored {:.2}, below {UNDERSTOOD_FLOOR}",
                        c.steps
                            .last()
                            .map(|(s, _)| format!("{}/{}", s.skill, s.tool))
                            .unwrap_or_default(),
                        c.score
                    ));
                }
                self.not_understood.push(text.to_owned());
                self.take_place(slots);
            }
        }
    }

    /// When the rules are unsure of `best` (`margin` below `planner_sure_margin`) and a judge
    /// is there, it chooses between `best` and the other readings close to it (distinct actions,
    /// within `READING_WINDOW`). When the judge is sure of its choice (`MODEL_SURE`), that reading
    /// becomes `best` and the margin is raised to the sure margin, so no picker shows; a judge
    /// that is not sure leaves the rules' choice and the picker. A judge that fails leaves the
    /// rules' choice too (and says so); cancelling cancels the plan.
    fn judge_reading(
        &mut self,
        text: &str,
        best: &mut Candidate,
        margin: &mut f32,
        candidates: &mut [Candidate],
    ) -> Result<()> {
        let sure = self.cx.config.planner_sure_margin;
        if *margin >= sure || best.score < UNDERSTOOD_FLOOR {
            return Ok(());
        }
        let Some(judge) = self.judge.as_deref_mut() else {
            return Ok(());
        };
        let floor = (best.score - crate::READING_WINDOW).max(UNDERSTOOD_FLOOR);
        let mut others: Vec<usize> = (0..candidates.len())
            .filter(|&i| candidates[i].score >= floor)
            .collect();
        others.sort_by(|&a, &b| candidates[b].score.total_cmp(&candidates[a].score));
        let mut shown = vec![best.action()];
        let mut picked: Vec<usize> = Vec::new();
        for i in others {
            let action = candidates[i].action();
            if shown.len() < crate::MAX_READINGS && !shown.contains(&action) {
                shown.push(action);
                picked.push(i);
            }
        }
        if picked.is_empty() {
            return Ok(());
        }
        let reading = |c: &Candidate| Reading {
            steps: c.steps.iter().map(|(s, _)| s.clone()).collect(),
        };
        let question = ReadingQuestion {
            request: self.request,
            clause: text,
            readings: std::iter::once(reading(best))
                .chain(picked.iter().map(|&i| reading(&candidates[i])))
                .collect(),
        };
        let judgement: Judgement = match judge.choose(&question, self.cx.skills, self.control) {
            Ok(j) => j,
            Err(ThinkerError::Cancelled) => return Err(ThinkerError::Cancelled),
            Err(e) => {
                self.notes.push(format!(
                    "\"{text}\": the model could not choose between readings ({e}); the rules' \
                     choice stands"
                ));
                return Ok(());
            }
        };
        let p = judgement.probability();
        self.judged_by = Some(judgement.by.clone());
        let chosen = question.readings[judgement.chosen].action();
        if p < crate::MODEL_SURE {
            // A model that is not sure either does not overrule the rules: the person picks.
            self.notes.push(if judgement.chosen == 0 {
                format!(
                    "\"{text}\": {} leaned to the rules' {chosen} too ({:.0} %) of {} readings, \
                     not sure enough to settle it",
                    judgement.by,
                    p * 100.0,
                    question.readings.len(),
                )
            } else {
                format!(
                    "\"{text}\": {} leaned to {chosen} ({:.0} %) of {} readings, not sure enough \
                     to overrule the rules' {}",
                    judgement.by,
                    p * 100.0,
                    question.readings.len(),
                    best.action()
                )
            });
            return Ok(());
        }
        let rules_choice = best.action();
        if judgement.chosen > 0 {
            std::mem::swap(best, &mut candidates[picked[judgement.chosen - 1]]);
        }
        self.notes.push(format!(
            "\"{text}\": {} chose {chosen} ({:.0} %) from {} readings{}",
            judgement.by,
            p * 100.0,
            question.readings.len(),
            if judgement.chosen > 0 {
                format!(" (the rules' first was {rules_choice})")
            } else {
                String::new()
            }
        ));
        *margin = margin.max(sure);
        Ok(())
    }
}
