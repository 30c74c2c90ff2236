//! RulePlanner: the embedded default planner. Splits the request into clauses, ranks (skill, tool)
//! pairs for each clause with the retrieval pipeline, re-scores them by trigger phrases and by how
//! well the clause's extracted parameters fit each tool, and chains steps with `$step(n).field`.

mod beyond;
mod clause;
mod earlier;
mod extract;
mod fill;
mod learn;
mod lexicon;
mod normalize;
mod readings;
mod references;
mod rest;
mod score;
mod unasked;
mod values;

use std::collections::BTreeMap;

use contracts::{Plan, PlanStep, ToolDefinition};
use serde_json::Value;

pub use clause::{Clause, split, split_with};
pub use extract::{Grounding, Slots, extract};
use readings::unranked;

use crate::{
    PlanControl, PlanRequest, Planned, Planner, PlanningContext, ReadingJudge, Result, ThinkerError,
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
            said: Vec::new(),
        }
        .with_names_said(&request.text);
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
            only_named: Vec::new(),
            confidence: BTreeMap::new(),
            learned: &request.learned,
            slot_takers: takers,
            header_place: None,
            header_object: None,
            header_file: None,
            quoted_before: None,
            judge,
            judged_by: None,
            request: &request.text,
            control,
        };
        let english = builder.in_english(&request.text);
        // Typos are fixed before the request is split: "get rid of tehm" refers back as "them"
        // does, "delte" opens a step as "delete" does.
        let fixed =
            normalize::typos_fixed(english.as_deref().unwrap_or(&request.text), builder.vocab);
        let clauses = split_with(&fixed, &trigger_verbs(cx.skills));
        tracing::debug!(?clauses, "clauses");
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
            if let Some(q) = clauses[..i]
                .iter()
                .rev()
                .find_map(|c| extract::last_quoted(&c.text))
            {
                builder.quoted_before = Some(q);
            }
            // The rest a tool may take: up to a part said after "then" (a step of its own).
            let rest: Vec<&str> = clauses[i + 1..]
                .iter()
                .take_while(|c| !c.sequenced)
                .map(|c| c.text.as_str())
                .collect();
            if c.header && has_body {
                if builder.header(&c.text, &rest)? {
                    taken_to = i + 1 + rest.len();
                }
                continue;
            }
            let mark = builder.mark();
            builder.clause(&c.text)?;
            if builder.take_rest(&mark, Some(&c.text), &rest) {
                taken_to = i + 1 + rest.len();
            }
        }
        let clarification = builder.clarification();
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
    /// Whether one of its tool's triggers is said (`trigger_bonus` above nothing).
    triggered: bool,
    /// Its tool is asked for only with words (`asked_with`) the part does not say: never
    /// planned.
    unasked: bool,
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
    /// Parts that name things and say nothing to do with them ("supplier PDFs, the lot"): no
    /// change is read into them; asked about when nothing else in the request is understood.
    only_named: Vec<String>,
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
    /// The last text quoted in the parts before this one ("they all start with 'Screenshot_';
    /// replace that bit with 'game_'": "that bit" is it).
    quoted_before: Option<String>,
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

fn looks_like_file(p: &str) -> bool {
    let name = p.rsplit('/').next().unwrap_or(p);
    name.rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && (1..=5).contains(&ext.len()))
        || p.contains('/') && is_dotfile(name)
}

/// Folders whose names start with a dot (".git", ".config"): everything else so named inside a
/// path is a settings file (".zshrc", ".zsh_aliases", ".DS_Store").
const DOT_FOLDERS: &[&str] = &[
    "git",
    "config",
    "ssh",
    "cache",
    "local",
    "thumbnails",
    "trash",
    "vscode",
    "idea",
    "npm",
    "cargo",
    "rustup",
    "venv",
    "gnupg",
    "mozilla",
    "docker",
    "kube",
    "m2",
    "gradle",
    "github",
];

/// ".zshrc", ".DS_Store": a name that starts with a dot and is no dot-folder.
fn is_dotfile(name: &str) -> bool {
    name.strip_prefix('.').is_some_and(|rest| {
        (2..=24).contains(&rest.len())
            && rest.starts_with(|c: char| c.is_ascii_alphabetic())
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
            && !DOT_FOLDERS.contains(&rest.to_lowercase().as_str())
    })
}

/// "how many files would Downloads/Zoom end up with? nothing moves yet": said as if, negations
/// and all, with the casual phrases read and the places out.
fn said_as_if(text: &str, slots: &Slots, vocab: &normalize::Vocabulary) -> bool {
    let as_written = format!(
        " {} ",
        normalize::for_matching(text, slots, vocab, true)
            .to_lowercase()
            .replace(['?', ',', '!', '.'], " ")
    );
    lexicon::lexicon()
        .hypothetical_phrases
        .iter()
        .any(|p| as_written.contains(&format!(" {p} ")))
}

impl PlanBuilder<'_, '_> {
    /// A request in another language, read in English (names that exist stay as written), with
    /// a note saying so.
    fn in_english(&mut self, text: &str) -> Option<String> {
        let grounding = self.grounding;
        let (language, english) = lexicon::lexicon().to_english(text, |w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '/');
            grounding.entry(w).is_some()
        })?;
        self.notes
            .push(format!("read as {language}: \"{english}\""));
        Some(english)
    }

    /// The question for the parts the rules did not understand, if any.
    fn clarification(&self) -> Option<String> {
        if self.not_understood.is_empty() && (self.only_named.is_empty() || !self.steps.is_empty())
        {
            None
        } else if self.steps.is_empty() {
            let parts: Vec<&str> = self
                .only_named
                .iter()
                .chain(&self.not_understood)
                .map(String::as_str)
                .collect();
            Some(format!(
                "I could not tell what to do with \"{}\". Say what should happen and where, e.g. \
                 \"remove duplicates in Downloads\" or \"sort Desktop by type\".",
                parts.join("\", \"")
            ))
        } else {
            Some(format!(
                "I understood {} step(s) but not \"{}\". Rephrase that part, or answer with \
                 nothing to go on without it.",
                self.steps.len(),
                self.not_understood.join("\", \"")
            ))
        }
    }

    /// A heading ("Downloads: …", "the desktop is a mess – …"): the place, file or folder the
    /// rest is about. True when it also said what to do and took `rest` as that tool's rest.
    fn header(&mut self, text: &str, rest: &[&str]) -> Result<bool> {
        let mut slots = extract(text, self.grounding);
        if let Some(name) = extract::only_a_name(text) {
            slots.locations = vec![name];
            slots.objects.clear();
        }
        // "I saved the visa forms to Downloads again and again": where a heading says things
        // went is where they are now.
        if slots
            .locations
            .iter()
            .chain(&slots.objects)
            .all(|p| looks_like_file(p))
            && let Some(t) = slots.targets.iter().find(|t| !looks_like_file(t))
        {
            slots.locations.push(t.clone());
        }
        self.take_place(&slots);
        self.header_place = self.place.clone().filter(|p| p != ".");
        // "… shots came zipped as Downloads/parkrun-photos-march.zip": a file a heading says
        // things became is the file the rest is about.
        self.header_file = slots
            .locations
            .iter()
            .chain(&slots.objects)
            .chain(&slots.targets)
            .find(|p| looks_like_file(p))
            .cloned();
        // "my e-reader backup is Downloads/ebooks.zip: unpack it": a heading that
        // names a file is about that file, whatever else it calls a folder.
        self.header_object = slots
            .objects
            .iter()
            .find(|o| !looks_like_file(o) && *o != ".")
            .filter(|_| self.header_file.is_none())
            .cloned();
        // A heading that names no place may still say what the rest is ("new skill:
        // receipt-filer, it moves …"); read as anything else it is taken back.
        if self.place.is_none() && self.header_file.is_none() {
            let mark = self.mark();
            self.clause(text)?;
            if self.take_rest(&mark, None, rest) {
                return Ok(true);
            }
            self.restore(mark);
        }
        Ok(false)
    }

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
        // "could you remove the wind noise from my videos?" asks what the agent can do.
        if !slots.asks_ability && self.asks_beyond_the_tools(text) {
            slots.asks_ability = true;
        }
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
        // "open 'vetiver accord.txt' in it and show me the recipe": the text read is shown.
        if clause::only_asks_to_see_what_was_read(text)
            && self
                .steps
                .last()
                .and_then(|s| self.cx.skills.tool(&s.skill, &s.tool))
                .is_some_and(|(_, t)| !t.mutates() && t.planning.acts_on == contracts::ActsOn::File)
        {
            return Ok(());
        }
        if self.sets_a_value_of_the_last_step(text, &slots)
            || self.sets_where_the_last_steps_folders_go(text, &slots)
        {
            return Ok(());
        }
        // What the clause says not to do is no evidence for a tool that does it.
        let affirmed = clause::affirmed(text);
        // "turn the folder into a tar.zst and delete the clips when they're safely inside": the
        // originals' removal belongs to the archive, no evidence for a tool that deletes.
        let ranked_text = if slots.delete_originals {
            extract::DELETE_ORIGINALS
                .replace_all(&affirmed.to_lowercase(), "")
                .into_owned()
        } else {
            affirmed.clone()
        };
        let matched = normalize::for_matching(&ranked_text, &slots, self.vocab, true);
        let described = normalize::for_matching(&affirmed, &slots, self.vocab, false);
        let whole =
            normalize::for_matching(&clause::without_negations(text), &slots, self.vocab, false);
        slots.as_if = said_as_if(text, &slots, self.vocab);
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
            .filter_map(|hit| self.candidate(&matched, &described, (&whole, text), &slots, hit))
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
        // A tool not asked for with its words is never planned; when it reads the part best,
        // the part is checked for only naming things first ("supplier PDFs, the lot").
        let top = candidates
            .iter()
            .fold(None::<&Candidate>, |acc, c| match acc {
                Some(b) if c.score <= b.score => acc,
                _ => Some(c),
            });
        if top.is_some_and(|t| t.unasked && self.change_read_into_names(text, t, &slots)) {
            self.note_only_named(text, &slots);
            return Ok(());
        }
        candidates.retain(|c| !c.unasked);
        let (mut best, mut margin) = self.best_reading(text, &mut candidates);
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
        if best
            .as_ref()
            .is_some_and(|b| self.change_read_into_names(text, b, &slots))
        {
            self.note_only_named(text, &slots);
            return Ok(());
        }
        self.keep(text, best, margin, &slots);
        Ok(())
    }

    /// "zip Documents/Old job into Backup/old-job.zip and delete the folder": a part that only
    /// says a phrase of the last step's tool's `when_said` ("delete the folder" → its
    /// `delete_originals`) and names no place of its own sets that value there; it is no step of
    /// its own (deleting the archive just made is never what was meant).
    fn sets_a_value_of_the_last_step(&mut self, text: &str, slots: &Slots) -> bool {
        // Words that link the part or point at the thing, not what is said of it.
        const LINKS: &[&str] = &[
            "and",
            "then",
            "also",
            "afterwards",
            "after",
            "that",
            "please",
            "the",
            "this",
            "those",
            "these",
            "too",
        ];
        let said = |text: &str| -> Vec<String> {
            retrieval::text::words(text)
                .into_iter()
                .filter(|w| !LINKS.contains(&w.as_str()))
                .collect()
        };
        let Some(last) = self.steps.last_mut() else {
            return false;
        };
        let Some((_, tool)) = self.cx.skills.tool(&last.skill, &last.tool) else {
            return false;
        };
        if !(slots.locations.is_empty() && slots.targets.is_empty() && slots.objects.is_empty()) {
            return false;
        }
        let words = said(text);
        let rule = tool.planning.when_said.iter().find(|rule| {
            rule.words
                .iter()
                .any(|phrase| phrase.contains(' ') && said(phrase) == words)
        });
        let Some(rule) = rule else {
            return false;
        };
        for (param, value) in &rule.set {
            if tool.optional_params.contains(param) || tool.required_params.contains(param) {
                last.params
                    .entry(param.clone())
                    .or_insert_with(|| value.clone());
            }
        }
        true
    }

    /// The best reading of a clause (taken out of `candidates`) and how far it is ahead of the
    /// best reading with another skill, or of the floor.
    fn best_reading(
        &self,
        text: &str,
        candidates: &mut Vec<Candidate>,
    ) -> (Option<Candidate>, Option<f32>) {
        // The first of equals wins, as the ranking ordered them.
        let best_at = candidates
            .iter()
            .enumerate()
            .fold(None::<(usize, f32)>, |acc, (i, c)| match acc {
                Some((_, s)) if c.score <= s => acc,
                _ => Some((i, c.score)),
            })
            .map(|(i, _)| i);
        let best_at = best_at.map(|i| self.change_said_first(text, candidates, i));
        let best = best_at.map(|i| candidates.swap_remove(i));
        // How far the reading is ahead of the best reading with another skill (or of the floor).
        // A reading that makes the same change is no other choice ("rename it to X" by either
        // skill that renames one file runs one primitive with the same parameters).
        let margin = best.as_ref().map(|b| {
            let other = candidates
                .iter()
                .filter(|c| c.skill() != b.skill() && !self.same_change(b, c))
                .map(|c| c.score)
                .fold(UNDERSTOOD_FLOOR, f32::max);
            b.score - other
        });
        (best, margin)
    }

    /// "tidy Downloads into per-type folders, and make those folders live in Documents/Sorted",
    /// "…, and build those type folders inside Backup/Old job": a part that only says where
    /// "those folders" go, with no place of its own, sets the last step's `target` when its
    /// tool takes one and none is set; it is no step of its own.
    fn sets_where_the_last_steps_folders_go(&mut self, text: &str, slots: &Slots) -> bool {
        let [target] = slots.targets.as_slice() else {
            return false;
        };
        if !slots.objects.is_empty() {
            return false;
        }
        let words = retrieval::text::words(text);
        let its_folders = words.iter().enumerate().any(|(i, w)| {
            extract::is_folder_noun(w)
                && w.ends_with('s')
                && words[i.saturating_sub(2)..i]
                    .iter()
                    .any(|d| matches!(d.as_str(), "those" | "these" | "the" | "its"))
        });
        let Some(last) = self.steps.last_mut() else {
            return false;
        };
        let takes_a_target = self
            .cx
            .skills
            .tool(&last.skill, &last.tool)
            .is_some_and(|(_, tool)| tool.optional_params.iter().any(|p| p == "target"));
        // ("… rather than inside Downloads itself": the place the step works in is no other.)
        let its_place = |l: &String| last.params.get("path").and_then(Value::as_str) == Some(l);
        if !(its_folders && takes_a_target && slots.locations.iter().all(its_place))
            || last.params.get("target").is_some_and(|v| !v.is_null())
        {
            return false;
        }
        last.params
            .insert("target".into(), serde_json::json!(target));
        true
    }

    /// Whether two readings run the same primitives with the same parameters, step for step.
    fn same_change(&self, a: &Candidate, b: &Candidate) -> bool {
        let primitive = |s: &PlanStep| {
            self.cx
                .skills
                .tool(&s.skill, &s.tool)
                .map(|(_, t)| t.primitive.clone())
        };
        a.steps.len() == b.steps.len()
            && a.steps.iter().zip(&b.steps).all(|((x, _), (y, _))| {
                x.params == y.params && primitive(x).is_some() && primitive(x) == primitive(y)
            })
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
}
