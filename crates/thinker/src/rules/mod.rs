//! RulePlanner: the embedded default planner. Splits the request into clauses, ranks (skill, tool)
//! pairs for each clause with the retrieval pipeline, re-scores them by trigger phrases and by how
//! well the clause's extracted parameters fit each tool, and chains steps with `$step(n).field`.

mod clause;
mod extract;
mod normalize;
mod score;

use std::collections::BTreeSet;

use contracts::{ParamType, Plan, PlanStep, PrimitiveKind, SkillDefinition, ToolDefinition};
use retrieval::SkillHit;
use serde_json::{Map, Value, json};

pub use clause::{Clause, split};
pub use extract::{Grounding, Slots, extract};

use crate::{PlanControl, PlanRequest, Planned, Planner, PlanningContext, Result, ThinkerError};
use score::{describe_selection, intent_bonus, meta_fit, topic_text, trigger_bonus};

/// Below this combined score a clause is not understood and the person is asked.
pub const UNDERSTOOD_FLOOR: f32 = 0.25;

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
        let started = std::time::Instant::now();
        let grounding = Grounding {
            root_name: request.root_name.clone(),
            entries: request.entries.clone(),
        };
        let vocab = normalize::vocabulary(cx.skills);
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
        };
        let clauses = split(&request.text);
        let has_body = clauses.iter().any(|c| !c.header);
        for c in &clauses {
            if control.is_cancelled() {
                return Err(ThinkerError::Cancelled);
            }
            if c.header && has_body {
                builder.take_place(&extract(&c.text, &grounding));
                continue;
            }
            builder.clause(&c.text)?;
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
                planner: "rule".into(),
                latency_ms: started.elapsed().as_secs_f64() * 1000.0,
                ..Default::default()
            },
            prompt: None,
            response: None,
            fallback: None,
        })
    }
}

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

/// One way of doing a clause: the steps it takes and how well they fit.
#[derive(Debug, Clone)]
struct Candidate {
    score: f32,
    steps: Vec<(PlanStep, String)>,
    place: Option<String>,
}

struct PlanBuilder<'a> {
    cx: &'a PlanningContext<'a>,
    grounding: &'a Grounding,
    vocab: &'a BTreeSet<String>,
    /// Where the last move/copy/extract put things ("... then remove duplicates there").
    last_target: Option<String>,
    steps: Vec<PlanStep>,
    /// Return type of each emitted step (same order as `steps`).
    returns: Vec<String>,
    /// The folder the request is about so far.
    place: Option<String>,
    notes: Vec<String>,
    not_understood: Vec<String>,
}

/// The field of a return type that holds a selection of paths later steps can act on.
fn selection_field(return_type: &str) -> Option<&'static str> {
    Some(match return_type {
        "NodeList" => "nodes",
        "Hits" => "paths",
        "Analysis" => "largest",
        "Moves" | "Copies" => "moved.to",
        "Created" => "created",
        _ => return None,
    })
}

fn looks_like_file(p: &str) -> bool {
    p.rsplit('/')
        .next()
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(stem, ext)| !stem.is_empty() && (1..=5).contains(&ext.len()))
}

/// Tools that act on one file rather than a folder.
fn file_tool(method: &str) -> bool {
    matches!(
        method,
        "extract_text" | "read_metadata" | "list_archive" | "extract_archive" | "rename_node"
    )
}

impl PlanBuilder<'_> {
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
        let mut slots = extract(text, self.grounding);
        if slots.there
            && slots.locations.is_empty()
            && let Some(t) = &self.last_target
        {
            slots.locations.push(t.clone());
        }
        let matched = normalize::for_matching(text, &slots, self.vocab, true);
        let described = normalize::for_matching(text, &Slots::default(), self.vocab, false);
        let ranking = self.cx.retrieval.match_skill(&matched)?;
        let mut best: Option<Candidate> = None;
        for hit in ranking.hits.iter().take(CANDIDATES) {
            if let Some(c) = self.candidate(&matched, &described, &slots, hit)
                && best.as_ref().is_none_or(|b| c.score > b.score)
            {
                best = Some(c);
            }
        }
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
                for (step, ret) in c.steps {
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
                self.take_place(&slots);
            }
        }
        Ok(())
    }

    /// The latest emitted step (or one of `pending`) whose output is a selection.
    fn last_selection(&self, pending: &[(PlanStep, String)]) -> Option<String> {
        let base = self.steps.len();
        for (i, (_, ret)) in pending.iter().enumerate().rev() {
            if let Some(f) = selection_field(ret) {
                return Some(format!("$step({}).{f}", base + i + 1));
            }
        }
        for (i, ret) in self.returns.iter().enumerate().rev() {
            if let Some(f) = selection_field(ret) {
                return Some(format!("$step({}).{f}", i + 1));
            }
        }
        None
    }

    /// The `path` literal of the latest step (what "it" means after "read config.yaml").
    fn last_path_literal(&self) -> Option<String> {
        self.steps.iter().rev().find_map(|s| {
            s.params
                .get("path")
                .and_then(Value::as_str)
                .filter(|p| !p.starts_with('$') && looks_like_file(p))
                .map(str::to_owned)
        })
    }

    /// The folder an earlier `create` step made ("make a folder X ... move the PDFs into it").
    fn last_created(&self) -> Option<String> {
        self.returns
            .iter()
            .enumerate()
            .rev()
            .find(|(_, r)| r.as_str() == "Created")
            .filter(|(i, _)| {
                self.steps[*i]
                    .params
                    .get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t == "dir")
            })
            .map(|(i, _)| format!("$step({}).created[0]", i + 1))
    }

    fn candidate(
        &self,
        text: &str,
        description: &str,
        slots: &Slots,
        hit: &SkillHit,
    ) -> Option<Candidate> {
        let skill = &self.cx.skills.get(&hit.skill)?.definition;
        let tool = skill.tool(&hit.tool)?;
        let spec = self
            .cx
            .skills
            .table()
            .get(tool.primitive.kind(), tool.primitive.operation());
        let ty = |name: &str| spec.and_then(|s| s.param(name)).map(|p| p.ty);
        let method = tool.primitive.operation();

        let mut score = hit.score
            + trigger_bonus(skill, &tool.name, text)
            + intent_bonus(tool, text)
            + meta_fit(skill, text);
        let mut pending: Vec<(PlanStep, String)> = Vec::new();
        let mut params = Map::new();
        let mut used: BTreeSet<&'static str> = BTreeSet::new();
        let clause_place = slots
            .locations
            .first()
            .cloned()
            .or_else(|| slots.whole_root.then(|| ".".to_owned()));
        let folder_object = slots.objects.iter().find(|o| !looks_like_file(o)).cloned();
        let mut new_place = clause_place.clone().or(folder_object.clone());

        let declared: Vec<&String> = tool
            .required_params
            .iter()
            .chain(&tool.optional_params)
            .collect();
        let is_required = |n: &str| tool.required_params.iter().any(|r| r == n);

        for name in &declared {
            let name = name.as_str();
            let required = is_required(name);
            let fill = match (name, ty(name)) {
                ("path", Some(ParamType::Path)) => {
                    let value = if file_tool(method) {
                        let joined = slots.objects.first().map(|o| match &clause_place {
                            Some(l) if l != "." && !o.contains('/') && !looks_like_file(l) => {
                                format!("{l}/{o}")
                            }
                            _ => o.clone(),
                        });
                        joined.or(clause_place.clone()).map(|v| (v, Fill::Stated))
                    } else {
                        clause_place
                            .clone()
                            .or(folder_object.clone())
                            .or(slots.objects.first().cloned())
                            .map(|v| (v, Fill::Stated))
                    };
                    match value {
                        Some((v, f)) => {
                            params.insert(name.into(), json!(v));
                            f
                        }
                        None if file_tool(method) || method == "get_metadata" => {
                            match self.last_selection(&pending) {
                                Some(r) if slots.refers_back => {
                                    params.insert(name.into(), json!(format!("{r}[0]")));
                                    Fill::Reference
                                }
                                // "look inside backup.zip, then extract it": the file named before.
                                _ => match self.last_path_literal().filter(|_| slots.refers_back) {
                                    Some(p) => {
                                        params.insert(name.into(), json!(p));
                                        Fill::Reference
                                    }
                                    None => Fill::Missing,
                                },
                            }
                        }
                        None => match &self.place {
                            Some(p) => {
                                params.insert(name.into(), json!(p));
                                new_place = Some(p.clone());
                                Fill::Inherited
                            }
                            None => Fill::Missing,
                        },
                    }
                }
                ("path" | "source", Some(ParamType::Paths)) => {
                    let files: Vec<&String> = slots
                        .objects
                        .iter()
                        .filter(|o| looks_like_file(o))
                        .collect();
                    let selection_wanted =
                        slots.has_filter() || method == "batch_rename" && files.is_empty();
                    if !files.is_empty() && !slots.has_filter() {
                        params.insert(name.into(), json!(files));
                        Fill::Stated
                    } else if slots.has_filter() && clause_place.is_some() {
                        let place = clause_place.clone();
                        let (step, consumed) = self.selection_step(slots, place.clone(), method)?;
                        used.extend(consumed);
                        pending.push((step, "NodeList".into()));
                        let r = format!("$step({}).nodes", self.steps.len() + pending.len());
                        params.insert(name.into(), json!(r));
                        new_place = place;
                        Fill::Selection
                    } else if let Some(r) = self.last_selection(&pending).filter(|_| {
                        slots.refers_back || (!selection_wanted && folder_object.is_none())
                    }) {
                        params.insert(name.into(), json!(r));
                        Fill::Reference
                    } else if selection_wanted {
                        let place = clause_place
                            .clone()
                            .or(folder_object.clone())
                            .or(self.place.clone());
                        let (step, consumed) = self.selection_step(slots, place.clone(), method)?;
                        used.extend(consumed);
                        pending.push((step, "NodeList".into()));
                        let r = format!("$step({}).nodes", self.steps.len() + pending.len());
                        params.insert(name.into(), json!(r));
                        new_place = place;
                        Fill::Selection
                    } else if let Some(o) = folder_object.clone().or(slots.objects.first().cloned())
                    {
                        params.insert(name.into(), json!([o]));
                        Fill::Stated
                    } else if let Some(p) = self.last_path_literal().filter(|_| slots.refers_back) {
                        params.insert(name.into(), json!([p]));
                        Fill::Reference
                    } else if let Some(p) = clause_place
                        .clone()
                        .filter(|p| method == "create_archive" && p != ".")
                    {
                        // "zip up the tax stuff in Documents/Taxes": the folder is the source.
                        params.insert(name.into(), json!([p]));
                        Fill::Stated
                    } else {
                        Fill::Missing
                    }
                }
                ("target", _) => {
                    if let Some(t) = slots.targets.first() {
                        params.insert(name.into(), json!(t));
                        Fill::Stated
                    } else if let Some(c) = self.last_created().filter(|_| slots.refers_back) {
                        params.insert(name.into(), json!(c));
                        Fill::Reference
                    } else if method == "create_archive" {
                        let base = params
                            .get("source")
                            .and_then(|s| s.as_array())
                            .and_then(|a| a.first())
                            .and_then(Value::as_str)
                            .map(|s| s.trim_end_matches('/').to_owned())
                            .or(folder_object.clone())
                            .filter(|b| b != ".");
                        match base {
                            Some(b) => {
                                let ext = slots.format.as_deref().unwrap_or("zip");
                                params.insert(name.into(), json!(format!("{b}.{ext}")));
                                Fill::Inherited
                            }
                            None => Fill::Missing,
                        }
                    } else {
                        Fill::Missing
                    }
                }
                ("new_name", _) => match slots.targets.first().or(slots.name.as_ref()) {
                    Some(n) => {
                        params.insert(name.into(), json!(n));
                        Fill::Stated
                    }
                    None => Fill::Missing,
                },
                ("name", _) if method == "create_node" || method == "scaffold_skill" => {
                    match slots.name.clone().or(slots.objects.first().cloned()) {
                        Some(n) => {
                            used.insert("name");
                            params.insert(name.into(), json!(n));
                            Fill::Stated
                        }
                        None => Fill::Missing,
                    }
                }
                ("type", _) if method == "create_node" => {
                    let lower = description.to_lowercase();
                    let file = ["file", "note", "document", ".txt", ".md"]
                        .iter()
                        .any(|w| lower.contains(w))
                        && !lower.contains("folder")
                        && !lower.contains("directory");
                    params.insert(name.into(), json!(if file { "file" } else { "dir" }));
                    Fill::Stated
                }
                ("pattern", _) => {
                    let p = slots.pattern.clone().or_else(|| {
                        (slots.case.is_some() || slots.find.is_some()).then(|| "{name}".to_owned())
                    });
                    // A file-name pattern ("{name}", "{exif.date}") is not a folder pattern.
                    let p = p.filter(|p| {
                        method == "batch_rename"
                            || !["{name", "{n", "{exif", "{date", "{parent"]
                                .iter()
                                .any(|x| p.contains(x))
                    });
                    match p {
                        Some(p) => {
                            used.insert("pattern");
                            params.insert(name.into(), json!(p));
                            Fill::Stated
                        }
                        None => Fill::Missing,
                    }
                }
                ("groups", _) => {
                    // Produced by a read-only sibling tool whose result has `groups`.
                    match self.producer(skill, "Duplicates", slots, clause_place.clone()) {
                        Some(step) => {
                            pending.push((step, "Duplicates".into()));
                            params.insert(
                                name.into(),
                                json!(format!(
                                    "$step({}).groups",
                                    self.steps.len() + pending.len()
                                )),
                            );
                            Fill::Reference
                        }
                        None => Fill::Missing,
                    }
                }
                ("query", _) => {
                    let q = slots
                        .query
                        .clone()
                        .unwrap_or_else(|| topic_text(text, slots));
                    if q.is_empty() {
                        Fill::Missing
                    } else {
                        params.insert(name.into(), json!(q));
                        Fill::Stated
                    }
                }
                ("description", _) => {
                    params.insert(name.into(), json!(description));
                    Fill::Stated
                }
                _ => match self.slot_value(name, slots, method) {
                    Some((v, slot)) => {
                        used.insert(slot);
                        params.insert(name.into(), v);
                        Fill::Stated
                    }
                    None => Fill::Missing,
                },
            };
            score += match (fill, required) {
                (Fill::Missing, true) => -0.25,
                (Fill::Missing, false) => 0.0,
                (Fill::Stated, _) => 0.04,
                (Fill::Reference, _) if slots.refers_back => 0.06,
                _ => 0.0,
            };
        }
        // Sorting "by date / month / year" is the date tool's; any other sort is by type (both
        // tools share their trigger phrases, which only say `{path}`).
        if method == "organize_by_date" || method == "organize_by_type" {
            const DATE_WORDS: &[&str] = &[
                "date", "dates", "dated", "month", "months", "monthly", "year", "years", "yearly",
                "day", "days", "daily", "when",
            ];
            let words = retrieval::text::words(text);
            let said = |ws: &[&str]| words.iter().any(|w| ws.contains(&w.as_str()));
            if said(DATE_WORDS) == (method == "organize_by_date") {
                score += 0.08;
            }
            if method == "organize_by_date" && !params.contains_key("pattern") {
                let pattern = if said(&["day", "days", "daily"]) {
                    Some("{year}/{month}/{day}")
                } else if said(&["year", "years", "yearly"])
                    && !said(&["month", "months", "monthly"])
                {
                    Some("{year}")
                } else {
                    None
                };
                if let Some(pattern) = pattern {
                    params.insert("pattern".into(), json!(pattern));
                }
                // Photos go by their EXIF date unless the person asks for the file dates.
                if said(&["modified", "modification", "changed", "edited"]) {
                    params.insert("date".into(), json!("modified"));
                }
            }
        }
        // Asking for what a format records (title, author, camera, artist, ...) is the metadata
        // tool's; asking for the words themselves is the text tool's (both read one `path`).
        if method == "read_metadata" || method == "extract_text" {
            const METADATA_WORDS: &[&str] = &[
                "metadata",
                "properties",
                "title",
                "author",
                "authors",
                "camera",
                "lens",
                "exif",
                "gps",
                "taken",
                "artist",
                "album",
                "genre",
                "tags",
                "bitrate",
                "duration",
                "length",
                "dimensions",
                "resolution",
                "pages",
                "created",
                "iso",
            ];
            let said = retrieval::text::words(text)
                .iter()
                .any(|w| METADATA_WORDS.contains(&w.as_str()));
            if said == (method == "read_metadata") {
                score += 0.08;
            }
        }
        // Defaults that make the usual request do the usual thing.
        if (method == "organize_by_type" || method == "organize_by_date")
            && !params.contains_key("recursive")
        {
            params.insert("recursive".into(), json!(false));
        }
        if method == "remove_duplicates" && !params.contains_key("keep") {
            params.insert("keep".into(), json!("newest"));
        }
        // Specific things the person said that this way of doing it ignores.
        for (slot, present) in slot_presence(slots) {
            if present && !used.contains(slot) {
                score -= 0.07;
            }
        }
        pending.push((
            PlanStep {
                step: 0,
                description: description.to_owned(),
                skill: skill.name.clone(),
                tool: tool.name.clone(),
                params,
            },
            tool.return_type.clone(),
        ));
        // A chain (scan → remove) is backed by the trigger phrases of every tool in it.
        let own = trigger_bonus(skill, &tool.name, text);
        let chain = pending
            .iter()
            .filter(|(s, _)| s.skill == skill.name)
            .map(|(s, _)| trigger_bonus(skill, &s.tool, text))
            .fold(own, f32::max);
        score += chain - own;
        let base = self.steps.len() as u32;
        for (i, (s, _)) in pending.iter_mut().enumerate() {
            s.step = base + i as u32 + 1;
        }
        Some(Candidate {
            score,
            steps: pending,
            place: new_place,
        })
    }

    /// A read-only step selecting the files a mutating step acts on: `find` with the clause's
    /// filters, from the skill that declares those filters.
    fn selection_step(
        &self,
        slots: &Slots,
        place: Option<String>,
        method: &str,
    ) -> Option<(PlanStep, Vec<&'static str>)> {
        let needs_search = slots.min_size.is_some()
            || slots.max_size.is_some()
            || slots.modified_after.is_some()
            || slots.modified_before.is_some()
            || slots.empty;
        // The first loaded tool on `find` that accepts every filter given.
        let mut choice: Option<(&SkillDefinition, &ToolDefinition)> = None;
        for loaded in self.cx.skills.skills() {
            for t in loaded.definition.tools.values() {
                if t.primitive.kind() != PrimitiveKind::Graph || t.primitive.operation() != "find" {
                    continue;
                }
                let accepts = |p: &str| {
                    t.required_params
                        .iter()
                        .chain(&t.optional_params)
                        .any(|x| x == p)
                };
                let ok = (!needs_search
                    || ["min_size", "modified_after", "modified_before", "empty"]
                        .iter()
                        .all(|p| accepts(p)))
                    && t.required_params.iter().all(|r| r == "path");
                let better = choice.is_none_or(|(_, c)| {
                    // Prefer the tool with the fewest params that still accepts everything.
                    let n = |x: &ToolDefinition| x.optional_params.len();
                    n(t) < n(c)
                });
                if ok && better {
                    choice = Some((&loaded.definition, t));
                }
            }
        }
        let (skill, tool) = choice?;
        let accepts = |p: &str| {
            tool.required_params
                .iter()
                .chain(&tool.optional_params)
                .any(|x| x == p)
        };
        let mut params = Map::new();
        params.insert(
            "path".into(),
            json!(place.clone().unwrap_or_else(|| ".".into())),
        );
        let mut used = Vec::new();
        for name in [
            "name",
            "glob",
            "extension",
            "min_size",
            "max_size",
            "modified_after",
            "modified_before",
            "empty",
            "kind",
            "recursive",
            "limit",
        ] {
            if !accepts(name) {
                continue;
            }
            if let Some((v, slot)) = self.slot_value(name, slots, "find") {
                params.insert(name.into(), v);
                used.push(slot);
            }
        }
        if !params.contains_key("kind") && accepts("kind") && !slots.empty {
            params.insert("kind".into(), json!("file"));
        }
        if method == "batch_rename" && !params.contains_key("recursive") && accepts("recursive") {
            params.insert("recursive".into(), json!(false));
        }
        let description = describe_selection(slots, place.as_deref());
        Some((
            PlanStep {
                step: 0,
                description,
                skill: skill.name.clone(),
                tool: tool.name.clone(),
                params,
            },
            used,
        ))
    }

    /// A read-only tool of `skill` returning `return_type` (the `scan` before a `remove`).
    fn producer(
        &self,
        skill: &SkillDefinition,
        return_type: &str,
        slots: &Slots,
        clause_place: Option<String>,
    ) -> Option<PlanStep> {
        let tool = skill
            .tools
            .values()
            .find(|t| !t.mutates() && t.return_type == return_type)?;
        let mut params = Map::new();
        let place = clause_place
            .or(slots.objects.iter().find(|o| !looks_like_file(o)).cloned())
            .or(self.place.clone());
        if let Some(p) = &place {
            params.insert("path".into(), json!(p));
        }
        for name in tool.optional_params.iter() {
            if let Some((v, _)) = self.slot_value(name, slots, tool.primitive.operation()) {
                params.insert(name.clone(), v);
            }
        }
        Some(PlanStep {
            step: 0,
            description: format!(
                "{} in {}",
                tool.description.to_lowercase(),
                place.as_deref().unwrap_or("the folder")
            ),
            skill: skill.name.clone(),
            tool: tool.name.clone(),
            params,
        })
    }

    /// The value of an optional parameter from the slots, and which slot it used.
    fn slot_value(&self, name: &str, s: &Slots, method: &str) -> Option<(Value, &'static str)> {
        let v = match name {
            "extension" if !s.extensions.is_empty() => {
                (json!(s.extensions.join(",")), "extensions")
            }
            "glob" => (json!(s.glob.clone()?), "glob"),
            "name" => (json!(s.name.clone()?), "name"),
            "min_size" => (json!(s.min_size.clone()?), "min_size"),
            "max_size" => (json!(s.max_size.clone()?), "max_size"),
            "modified_after" => (json!(s.modified_after.clone()?), "modified_after"),
            "modified_before" => (json!(s.modified_before.clone()?), "modified_before"),
            "empty" if s.empty => (json!(true), "empty"),
            "kind" => (json!(s.kind.clone()?), "kind"),
            "recursive" => (json!(s.recursive?), "recursive"),
            "limit" | "top_n" => (json!(s.limit?), "limit"),
            "keep" => (json!(s.keep.clone()?), "keep"),
            // For duplicates, a folder the person protects holds the originals: it is a
            // `reference` of the removal (its copies elsewhere go), not left out of the scan.
            "exclude" if method == "find_duplicates" || method == "remove_duplicates" => {
                return None;
            }
            "reference" if method == "remove_duplicates" && !s.exclude.is_empty() => {
                (json!(s.exclude), "exclude")
            }
            "exclude" if !s.exclude.is_empty() => (json!(s.exclude), "exclude"),
            "format" => (json!(s.format.clone()?), "format"),
            "level" => {
                // The format's own range: zip and tar.gz 0–9, tar.zst 1–22 (19 is the usual max).
                let zst = s.format.as_deref() == Some("tar.zst")
                    || s.targets.iter().any(|t| t.ends_with(".zst"));
                let level = match (s.compression?, zst) {
                    ("max", true) => 19,
                    ("max", false) => 9,
                    ("none", false) => 0,
                    (_, _) => 1,
                };
                (json!(level), "compression")
            }
            "case" => (json!(s.case.clone()?), "case"),
            "find" => (json!(s.find.clone()?), "find"),
            "replace" => (json!(s.replace.clone()?), "replace"),
            "content" => (json!(s.content.clone()?), "content"),
            "delete_originals" if s.delete_originals => (json!(true), "delete_originals"),
            "max_bytes" => (json!(s.max_bytes?), "max_bytes"),
            "start" if method == "batch_rename" => (json!(s.start?), "pattern"),
            "include_hidden" | "on_conflict" => return None,
            _ => {
                let _ = method;
                return None;
            }
        };
        Some(v)
    }
}

/// Which specific slots the clause filled (each should be used by the chosen tools).
fn slot_presence(s: &Slots) -> [(&'static str, bool); 18] {
    [
        ("extensions", !s.extensions.is_empty()),
        ("glob", s.glob.is_some()),
        ("min_size", s.min_size.is_some()),
        ("max_size", s.max_size.is_some()),
        ("modified_after", s.modified_after.is_some()),
        ("modified_before", s.modified_before.is_some()),
        ("keep", s.keep.is_some()),
        ("exclude", !s.exclude.is_empty()),
        ("format", s.format.is_some()),
        ("pattern", s.pattern.is_some()),
        ("case", s.case.is_some()),
        ("find", s.find.is_some()),
        ("empty", s.empty),
        ("limit", s.limit.is_some()),
        ("content", s.content.is_some()),
        ("name", s.name.is_some()),
        ("max_bytes", s.max_bytes.is_some()),
        ("compression", s.compression.is_some()),
    ]
}
