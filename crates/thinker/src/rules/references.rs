//! What a clause points at, bound to what the request said before: "there", "that folder",
//! "the whole thing", "everything", "it", and a bare name that ends a path said before.

use super::{PlanBuilder, Slots, lexicon};

impl PlanBuilder<'_, '_> {
    /// Binds what the clause points at to what the request said before: "there" (where the last
    /// step put things, or the place the request is about), "the whole thing", "everything"
    /// after a header or a step, "it" after a header naming a folder or a file, and a bare name
    /// that ends a path said before.
    pub(super) fn bind_references(&mut self, text: &str, slots: &mut Slots) {
        self.bind_there(text, slots);
        self.bind_the_whole(slots);
        self.bind_to_the_header(text, slots);
        self.complete_bare_names(slots);
        self.bind_that_bit(slots);
    }

    /// "they all start with 'Screenshot_'; replace that bit with 'game_'": text replaced inside
    /// names that is "that" is the text quoted in a part before.
    fn bind_that_bit(&self, slots: &mut Slots) {
        if let Some(find) = &mut slots.find
            && matches!(find.to_lowercase().as_str(), "that" | "this" | "it")
            && let Some(q) = &self.quoted_before
        {
            *find = q.clone();
        }
    }

    /// "there", "in there" and "that folder": where the last step put things, the folder made
    /// before, or the place the request is about.
    fn bind_there(&mut self, text: &str, slots: &mut Slots) {
        // "there": where the last step put things, else the place the request is about
        // ("analyze Projects, then pack everything in there…"); "everything" is everything there.
        let lower = text.to_lowercase();
        let in_there = ["in there", "from there", "inside there", "under there"]
            .iter()
            .any(|p| lower.contains(p));
        let that_folder = ["that folder", "that directory", "the same folder"]
            .iter()
            .any(|p| lower.contains(p));
        // "What files does Documents/Tortoise have? … read me 'weights.txt' from it": a file
        // named bare "from it" is in the folder the request is about.
        let of_it = [" from it", " in it", " inside it"]
            .iter()
            .any(|p| lower.ends_with(p));
        // "put a copy of the folder on Backup/House" after a heading naming it: the folder is
        // what is acted on, whatever place the clause names besides.
        let the_folder_itself = [
            "of the folder",
            "the folder itself",
            // "…, the folder needs copying onto USB/Home school": said of the folder.
            "the folder needs",
            "the folder should",
            "the folder must",
            "the folder can",
        ]
        .iter()
        .any(|p| lower.contains(p))
            // "Videos/Open mic: turn the folder into a single tar.zst", "zip the folder": the
            // folder a verb acts on, with nowhere for it to go (after "copy the folder onto X"
            // the folder may be the one the step before worked in).
            || slots.targets.is_empty() && {
                let words = retrieval::text::words(&lower);
                let lex = lexicon::lexicon();
                words.windows(3).any(|w| {
                    w[1] == "the"
                        && matches!(w[2].as_str(), "folder" | "directory")
                        && (lex.action_verbs.contains(&w[0])
                            || lex.synonyms.get(&w[0]).is_some_and(|s| lex.change_verbs.contains(s))
                            || !retrieval::text::is_stop_word(&w[0])
                                && w[0].chars().all(|c| c.is_ascii_lowercase())
                                && !w[0].ends_with("ed"))
                })
            };
        let put_somewhere = self
            .last_target
            .clone()
            .or_else(|| self.last_created().filter(|_| in_there));
        // "make a folder Taxes/2026 and put payslip.pdf in there": after a verb of placing and
        // the thing placed, "there" is where it goes; so after one that a place follows ("move
        // it there": the verbs `verbs_before_a_target` reads as).
        let lex = lexicon::lexicon();
        let placing = retrieval::text::words(text).first().is_some_and(|w| {
            lex.placing_verbs.contains(w) || lex.verbs_before_a_target.values().any(|v| v == w)
        }) && (!slots.objects.is_empty() || slots.refers_back);
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
        } else if (that_folder && slots.locations.is_empty() || the_folder_itself)
            && put_somewhere.is_none()
            && slots.objects.is_empty()
            && let Some(p) = self.place.clone().filter(|p| p != ".")
        {
            // "delete every .bak file in X, then compress that folder": with nothing put
            // anywhere before, the folder the request is about (not the files just deleted).
            slots.objects.push(p);
        } else if (that_folder || in_there || of_it)
            && slots.locations.is_empty()
            && !slots.objects.is_empty()
            && slots
                .objects
                .iter()
                .all(|o| !o.contains('/') && super::looks_like_file(o))
            && let Some(p) = put_somewhere
                .clone()
                .or_else(|| self.place.clone().filter(|p| p != "."))
        {
            // "list Projects/woodworking/plans, then read me 'cut list.txt' from that folder":
            // a file named bare is in that folder.
            for o in &mut slots.objects {
                *o = format!("{p}/{o}");
            }
        } else if slots.there
            && slots.targets.is_empty()
            && let Some(t) = self.last_created().or(self.last_target.clone())
        {
            // "shift each pdf from Downloads/Receipts in there": with a place of its own,
            // "there" is where things go (the folder made before, or the last target).
            slots.targets.push(t);
        }
    }

    /// "the whole thing" and "everything": the folder the request is about, or the one its
    /// header names.
    fn bind_the_whole(&self, slots: &mut Slots) {
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
    }

    /// "it" in the first step: the folder or the file the header names as what it is about.
    fn bind_to_the_header(&mut self, text: &str, slots: &mut Slots) {
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
        // "Downloads/lecture-slides.zip: unpack under Uni/Statistics": a folder the file is not
        // in is where it goes (`target_param`), and the file is still what the clause acts on.
        let elsewhere = |f: &str| match slots.locations.as_slice() {
            [] => true,
            [place] => {
                place.contains('/')
                    && !super::looks_like_file(place)
                    && !f.starts_with(&format!("{place}/"))
            }
            _ => false,
        };
        if self.steps.is_empty()
            && slots.objects.is_empty()
            && self.header_file.as_deref().is_some_and(elsewhere)
            && let Some(f) = self.header_file.take()
        {
            slots.objects.push(f);
            slots.refers_back = false;
        }
        // "I forgot what I saved in Projects/garden planner, can you list it for me?", "I'm done
        // with Documents/Old job, let me see its contents": with no step before, "it" right
        // after an action, or "its contents", is the one place the clause names (not "the day it
        // was last changed", said of each file).
        if self.steps.is_empty()
            && slots.refers_back
            && slots.objects.len() + slots.locations.len() == 1
            && acts_on_it(text)
        {
            slots.refers_back = false;
        }
    }

    /// A bare name that ends (or opens) a path said before is that path (or that folder).
    fn complete_bare_names(&self, slots: &mut Slots) {
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
            } else if let Some(full) = self.path_with_the_word(p) {
                p.clone_from(&full);
            }
        }
    }

    /// "Keep a copy of Projects/Vespa restoration in Backup/Vespa and then remove the project
    /// folder": a bare word in lower case that names no folder here but is a word of one path
    /// said before (a plural's "s" aside) is that path.
    fn path_with_the_word(&self, word: &str) -> Option<String> {
        let singular = |w: &str| w.trim_end_matches('s').to_lowercase();
        let plain = word.len() > 2 && word.chars().all(|c| c.is_lowercase());
        if !plain || self.grounding.entry(word).is_some() {
            return None;
        }
        let mut having: Vec<String> = self
            .paths_said()
            .into_iter()
            .filter(|p| p.split(['/', ' ']).any(|w| singular(w) == singular(word)))
            .collect();
        (having.len() == 1).then(|| having.remove(0))
    }
}

/// An action verb right before "it" or "them" ("list it", "sort them"), or what a folder holds
/// ("its contents").
fn acts_on_it(text: &str) -> bool {
    let lex = lexicon::lexicon();
    retrieval::text::words(text).windows(2).any(|w| {
        lex.action_verbs.contains(&w[0]) && lex.back_references.contains(&w[1])
            || w[0] == "its"
                && matches!(w[1].as_str(), "contents" | "content" | "entries" | "files")
    })
}
