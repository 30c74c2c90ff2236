//! Path parameters: the one file or folder a tool acts on, or the several paths it takes (named
//! files, an earlier selection, or a selection step inserted for it).

use contracts::{ActsOn, PlanStep};
use serde_json::{Value, json};

use super::{Draft, Entries, Fill, declared_param};
use crate::rules::{PlanBuilder, Slots, looks_like_file};

impl PlanBuilder<'_, '_> {
    /// One path: a file the clause names (joined to its folder), or a folder.
    pub(super) fn path_param(&self, d: &mut Draft, name: &str) -> Fill {
        let slots = d.slots;
        let acts_on = d.tool.planning.acts_on;
        // A tool that takes a file or a folder takes the file the clause names, in its folder.
        let names_a_file = slots.objects.first().is_some_and(|o| looks_like_file(o));
        let value = if acts_on == ActsOn::File || acts_on == ActsOn::Node && names_a_file {
            // "unpack Aunt Rosa sent Downloads/family-tree.zip": a tool that acts on one file
            // takes the file named, not a name said before it.
            let object = slots
                .objects
                .iter()
                .find(|o| looks_like_file(o))
                .or(slots.objects.first());
            let joined = object.map(|o| match &d.clause_place {
                Some(l) if l != "." && !o.contains('/') && !looks_like_file(l) => {
                    format!("{l}/{o}")
                }
                _ => o.clone(),
            });
            joined.or(d.clause_place.clone())
        } else {
            // "add a notes.txt to Projects/birdhouse": for a tool with no target, where things
            // go is where it acts.
            let takes_target = d
                .tool
                .required_params
                .iter()
                .chain(&d.tool.optional_params)
                .any(|p| p == "target");
            d.clause_place
                .clone()
                .or(d.folder_object.clone())
                .or(slots.targets.first().filter(|_| !takes_target).cloned())
                .or(slots.objects.first().cloned())
        };
        // "where is driving-licence.pdf": a tool that looks through a folder for things by name
        // looks for a file named without its folder everywhere, not inside it.
        let takes = |p: &str| declared_param(d.tool, p);
        // So does "find report.pdf in Documents", in that folder.
        if acts_on == ActsOn::Folder
            && !d.tool.mutates()
            && takes("name")
            && slots.name.is_none()
            && let Some(file) = slots
                .objects
                .first()
                .filter(|o| looks_like_file(o) && !o.contains('/'))
        {
            d.params.insert("name".into(), json!(file));
            if takes("recursive") {
                d.params.insert("recursive".into(), json!(true));
            }
            let place = d.clause_place.clone().unwrap_or_else(|| ".".to_owned());
            d.params.insert(name.into(), json!(place));
            return Fill::Stated;
        }
        if let Some(v) = value {
            // The request is about that folder from now on ("…, and show me the folder").
            if d.new_place.is_none() && !looks_like_file(&v) {
                d.new_place = Some(v.clone());
            }
            d.params.insert(name.into(), json!(v));
            return Fill::Stated;
        }
        if acts_on.one_file() {
            return self.one_file_said_before(d, name);
        }
        // "where's my file called passport-scan.pdf": a file looked for by its name, with no
        // folder said, is looked for everywhere.
        let looked_for_by_name = slots
            .name
            .as_deref()
            .is_some_and(|n| looks_like_file(n) && !n.contains('/'));
        if acts_on == ActsOn::Folder
            && !d.tool.mutates()
            && takes("name")
            && looked_for_by_name
            && self.inherited_place().is_none()
        {
            if takes("recursive") {
                d.params.insert("recursive".into(), json!(true));
            }
            d.params.insert(name.into(), json!("."));
            return Fill::Inherited;
        }
        match self
            .originals_copied(slots)
            .or_else(|| self.inherited_place())
        {
            Some(p) => {
                d.params.insert(name.into(), json!(p));
                d.new_place = Some(p);
                Fill::Inherited
            }
            None => Fill::Missing,
        }
    }

    /// "copy X to Backup/X, then split the originals into …": the originals are the one folder
    /// the step before copied (or otherwise left where it was), not where it put them.
    fn originals_copied(&self, slots: &Slots) -> Option<String> {
        if !slots.originals {
            return None;
        }
        let last = self.steps.last()?;
        let source = match last.params.get("source")? {
            Value::String(s) => s.clone(),
            Value::Array(a) if a.len() == 1 => a[0].as_str()?.to_owned(),
            _ => return None,
        };
        (!source.starts_with('$') && !looks_like_file(&source)).then_some(source)
    }

    /// The folder a clause naming none acts on: where the step before put things, if it put
    /// them in a folder ("extract x.tar.gz into Documents/Invoices, then split the invoices
    /// into …"), unless it left its source where it was (`keeps_source`: "copy X to Backup, and
    /// only then sort it by day" sorts X); else the request's place.
    /// The source of the step before, when that step leaves its source where it was
    /// (`keeps_source`), as a list of paths or the selection it was.
    fn source_kept_by_last_step(&self) -> Option<Value> {
        let last = self.steps.last().filter(|s| {
            self.cx
                .skills
                .tool(&s.skill, &s.tool)
                .is_some_and(|(_, t)| t.planning.keeps_source)
        })?;
        match last.params.get("source")? {
            Value::String(p) if p.starts_with('$') => Some(json!(p)),
            Value::String(p) => Some(json!([p])),
            Value::Array(a) if !a.is_empty() => Some(Value::Array(a.clone())),
            _ => None,
        }
    }

    /// `$step(n).…`: the folder step n chose its files in, if it names one.
    fn folder_a_selection_was_made_in(&self, reference: &str) -> Option<String> {
        let n: u32 = reference
            .strip_prefix("$step(")?
            .split_once(')')?
            .0
            .parse()
            .ok()?;
        let step = self.steps.iter().find(|s| s.step == n)?;
        step.params
            .get("path")
            .and_then(Value::as_str)
            .filter(|p| !p.starts_with('$') && *p != ".")
            .map(str::to_owned)
    }

    pub(super) fn inherited_place(&self) -> Option<String> {
        let kept = self.steps.last().filter(|s| {
            self.cx
                .skills
                .tool(&s.skill, &s.tool)
                .is_some_and(|(_, t)| t.planning.keeps_source)
        });
        if let Some(source) = kept.and_then(|s| match s.params.get("source")? {
            Value::String(p) => Some(p.clone()),
            Value::Array(a) if a.len() == 1 => a[0].as_str().map(str::to_owned),
            _ => None,
        }) {
            // ("copy the photos in Pictures/Canoe trip to Backup/Canoe": what was copied was
            // chosen in a folder, which stays the place.)
            let source = self
                .folder_a_selection_was_made_in(&source)
                .unwrap_or(source);
            if !source.starts_with('$') && !looks_like_file(&source) {
                return Some(source);
            }
        }
        let put_there = self
            .last_target
            .clone()
            .filter(|t| !looks_like_file(t))
            .filter(|_| {
                self.steps
                    .last()
                    .is_some_and(|s| s.params.contains_key("target"))
            });
        put_there.or(self.place.clone())
    }

    /// Several paths: named files, an earlier selection, or a selection step made here.
    pub(super) fn paths_param(&self, d: &mut Draft, name: &str) -> Option<Fill> {
        let slots = d.slots;
        let acts_on = d.tool.planning.acts_on;
        let files: Vec<&String> = slots
            .objects
            .iter()
            .filter(|o| looks_like_file(o))
            .collect();
        let selection_wanted = slots.has_filter() || acts_on == ActsOn::Files && files.is_empty();
        let fill = if !files.is_empty() && !slots.has_filter() {
            // "delete old.log from the Logs folder": each file named is in the clause's folder;
            // "mark Invoices/inv-0193.pdf and inv-0194.pdf": a bare name after a path is in
            // that path's folder.
            let mut folder_before: Option<String> = None;
            let joined: Vec<String> = files
                .iter()
                .map(|o| {
                    let path = match (&d.clause_place, &folder_before) {
                        (Some(l), _) if l != "." && !o.contains('/') && !looks_like_file(l) => {
                            format!("{l}/{o}")
                        }
                        (_, Some(f)) if !o.contains('/') => format!("{f}/{o}"),
                        _ => (*o).clone(),
                    };
                    folder_before = path.rsplit_once('/').map(|(f, _)| f.to_owned());
                    path
                })
                .collect();
            d.params.insert(name.into(), json!(joined));
            Fill::Stated
        } else if slots.has_filter() && d.clause_place.is_some() {
            let place = d.clause_place.clone();
            self.select_into(d, name, place, None)?
        } else if let Some(folder) = self
            .folder_just_looked_at()
            .filter(|_| slots.refers_back && d.folder_object.is_none() && says_it_alone(d))
        {
            if slots.has_filter() {
                // "list X, then delete the clips in it older than two weeks": the files chosen
                // in the folder looked at, never the folder whole.
                self.select_into(d, name, Some(folder), None)?
            } else {
                // "let me see its contents first, then pack it": "it" is the folder looked at.
                d.params.insert(name.into(), json!([folder]));
                Fill::Reference
            }
        } else if let Some(source) = self.source_kept_by_last_step().filter(|_| {
            (slots.refers_back || !selection_wanted)
                && d.folder_object.is_none()
                && !speaks_of_copies(d)
        }) {
            // "copy X to Backup/X, then delete it from here": what a copy left where it was is
            // what "it" is (deleting the copy just made would undo the step).
            d.params.insert(name.into(), source);
            Fill::Reference
        } else if let Some(r) = self
            .last_selection(&d.pending)
            // "copy Camera/SD Card into it": a folder named is what goes, "it" where.
            .filter(|_| d.folder_object.is_none() && (slots.refers_back || !selection_wanted))
        {
            d.params.insert(name.into(), json!(r));
            Fill::Reference
        } else if selection_wanted {
            let place = d
                .clause_place
                .clone()
                .or(d.folder_object.clone())
                .or(self.place.clone());
            self.select_into(d, name, place, None)?
        } else if let Some(o) = d.folder_object.clone().or(slots.objects.first().cloned()) {
            d.params.insert(name.into(), json!([o]));
            Fill::Stated
        } else if let Some(p) = self.last_path_literal().filter(|_| slots.refers_back) {
            d.params.insert(name.into(), json!([p]));
            Fill::Reference
        } else if let Some(p) = d
            .clause_place
            .clone()
            .filter(|p| acts_on == ActsOn::Nodes && p != ".")
        {
            // "zip up the tax stuff in Documents/Taxes": the folder is taken whole.
            d.params.insert(name.into(), json!([p]));
            Fill::Stated
        } else if let [first, _, ..] = slots.locations.as_slice()
            && d.tool.required_params.iter().any(|r| r == "target")
            && slots.targets.is_empty()
        {
            // "a second copy of Pictures/Best sitting on Backup/USB": the first of two places is
            // what goes, the last where (the `target` parameter).
            d.params.insert(name.into(), json!([first]));
            Fill::Stated
        } else if let Some(p) = self
            .last_path_literal()
            .filter(|_| slots.objects.is_empty() && slots.locations.is_empty())
        {
            // "pull up EXIF info for IMG_0891.jpg, plus send a copy to Shared/Grandma": a
            // clause naming nothing to act on acts on the file named before.
            d.params.insert(name.into(), json!([p]));
            Fill::Inherited
        } else if let Some(p) = d.clause_place.clone().filter(|p| p != ".") {
            // "move the files in Downloads to Archive/Stale": what is directly in the folder,
            // not the folder ("move Downloads to …" names it as the object); "everything in
            // Temp" its folders too.
            let entries = if d.words.contains("everything") {
                Entries::All
            } else {
                Entries::Files
            };
            self.select_into(d, name, Some(p), Some(entries))?
        } else if let Some(p) = self.place.clone().filter(|p| {
            p != "."
                && self.steps.is_empty()
                && d.pending.is_empty()
                && !slots.refers_back
                && !slots.targets.is_empty()
                && slots.objects.is_empty()
                && slots.locations.is_empty()
                && d.tool.required_params.iter().any(|r| r == "target")
        }) {
            // "Pictures/Llama trek: make a safety copy at Backup/Llama trek": what the first
            // step sends where it says, naming nothing, is the folder the request is about.
            d.params.insert(name.into(), json!([p]));
            Fill::Inherited
        } else {
            Fill::Missing
        };
        Some(fill)
    }

    /// The one file a clause naming none acts on: the file the step before made or found, the
    /// file named before, or the file the request is about.
    fn one_file_said_before(&self, d: &mut Draft, name: &str) -> Fill {
        let slots = d.slots;
        // "write a todo.txt …, then show me its text": the file the step before made, by
        // its name.
        let made = self
            .last_path_literal()
            .filter(|p| self.steps.last().is_some_and(|s| made_by(s, p)));
        match self.last_selection(&d.pending) {
            Some(_) if slots.refers_back && made.is_some() => {
                d.params.insert(name.into(), json!(made));
                Fill::Reference
            }
            // "… the tenant's email about the boiler — find it and give me the gist": a
            // clause naming nothing, right after a search, is about what it found.
            Some(r)
                if slots.refers_back
                    || slots.objects.is_empty()
                        && slots.locations.is_empty()
                        && r.starts_with(&format!("$step({})", self.steps.len()))
                        && self.steps.last().is_some_and(|s| {
                            self.cx
                                .skills
                                .tool(&s.skill, &s.tool)
                                .is_some_and(|(_, t)| !t.mutates())
                        }) =>
            {
                d.params.insert(name.into(), json!(format!("{r}[0]")));
                Fill::Reference
            }
            // "look inside backup.zip, then extract it": the file named before.
            _ => match self.last_path_literal().filter(|_| slots.refers_back) {
                Some(p) => {
                    d.params.insert(name.into(), json!(p));
                    Fill::Reference
                }
                // "is anything worth keeping in old.zip? show me the contents": a clause
                // naming nothing is about the file the request is about.
                None => match self.place.clone().filter(|p| {
                    looks_like_file(p) && slots.objects.is_empty() && slots.locations.is_empty()
                }) {
                    Some(p) => {
                        d.params.insert(name.into(), json!(p));
                        d.new_place = Some(p);
                        Fill::Inherited
                    }
                    // "list the entries of X.zip, and unless something's off, unpack into
                    // Y": the file the step just before looked at.
                    None => match self
                        .steps
                        .last()
                        .and_then(|s| s.params.get("path"))
                        .and_then(Value::as_str)
                        .filter(|p| {
                            !p.starts_with('$')
                                && looks_like_file(p)
                                && slots.objects.is_empty()
                                && slots.locations.is_empty()
                        }) {
                        Some(p) => {
                            d.params.insert(name.into(), json!(p));
                            Fill::Inherited
                        }
                        None => Fill::Missing,
                    },
                },
            },
        }
    }
}

/// Whether `step` made the file at `path` (a folder and a new name).
fn made_by(step: &PlanStep, path: &str) -> bool {
    let text = |k: &str| step.params.get(k).and_then(Value::as_str);
    matches!((text("path"), text("name")), (Some(f), Some(n)) if format!("{f}/{n}") == path)
}

/// Whether the clause points back with "it" alone, not at many things ("them", "those").
/// "… then rename the copies there", "zip the backup": a part that speaks of the copies made.
fn speaks_of_copies(d: &Draft) -> bool {
    const COPIES: &[&str] = &[
        "copy",
        "copies",
        "duplicate",
        "duplicates",
        "there",
        "backup",
        "backups",
        "clone",
    ];
    d.said_text
        .split(' ')
        .any(|w| COPIES.contains(&w.trim_matches(|c: char| !c.is_alphanumeric())))
}

fn says_it_alone(d: &Draft) -> bool {
    const MANY: &[&str] = &["them", "em", "those", "these", "they", "all", "everything"];
    let words: Vec<&str> = d.said_text.split(' ').collect();
    words.contains(&"it") && !words.iter().any(|w| MANY.contains(w))
}
