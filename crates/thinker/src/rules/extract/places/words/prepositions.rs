//! The word before a place read as the preposition it says: a misspelt "into", a verb's way of
//! saying where things go ("go under", "belongs with"), where folders are made, a borrowed one.
//! Pure.

use super::super::super::lexicon::*;
use super::super::{LOCATION_PREPS, TARGET_PREPS, misspelt_target_prep};
use super::WordPass;
use crate::rules::lexicon::lexicon;
use crate::rules::looks_like_file;

impl WordPass<'_> {
    /// The word at `i` as a preposition where it says one: a misspelt "into" before a path, a
    /// verb's way of saying where things go ("go under", "belongs with"), a borrowed one.
    pub(super) fn as_preposition(&self, i: usize, w: String, prev: &str) -> String {
        let words = self.words;
        // "extrct x.tar.gz innto Config", "too Recipes/Restored": a misspelt "into" or "to"
        // right before a path.
        let before_a_path = words.get(i + 1).is_some_and(|n| {
            let n = (self.lookup)(n).unwrap_or_else(|| (*n).to_owned());
            n.contains('/') || n.starts_with('~')
        });
        // "there are dupes all over Books": all through it. "peek into X.tar.gz": a look into a
        // place is in it.
        let looks_in = matches!(
            prev,
            "peek" | "peer" | "glance" | "look" | "peeking" | "looking"
        );
        let w = if w == "over" && prev == "all" || w == "into" && looks_in {
            "in".to_owned()
        } else {
            w
        };
        let w = if before_a_path
            && !TARGET_PREPS.contains(&w.as_str())
            && !LOCATION_PREPS.contains(&w.as_str())
        {
            misspelt_target_prep(&w).map_or(w, str::to_owned)
        } else {
            w
        };
        // "those folders go under Archive/Sorted", "X belongs with Y": where they go. So is
        // the place after "a copy of X" ("a duplicate of X.pdf in Accountant").
        let lex = lexicon();
        // So is the place of "a second one on Y", "drop a copy in Y".
        let copy_noun = |k: usize| lex.copy_nouns.contains(&words[k].to_lowercase());
        let after_a_copy_of = matches!(w.as_str(), "in" | "on" | "inside" | "at")
            && (i >= 3 && words[i - 2].eq_ignore_ascii_case("of") && copy_noun(i - 3)
                // "put copies of the matches on USB/Flying club": copies placed (not "delete
                // the resized copies of the photos in Photos", where they are).
                || i >= 5
                    && words[i - 3].eq_ignore_ascii_case("of")
                    && ["the", "those", "these", "my"]
                        .contains(&words[i - 2].to_lowercase().as_str())
                    && {
                        let noun = words[i - 4].to_lowercase();
                        let one = noun
                            .strip_suffix("ies")
                            .map(|stem| format!("{stem}y"))
                            .or_else(|| noun.strip_suffix('s').map(str::to_owned))
                            .unwrap_or(noun);
                        lex.copy_nouns.contains(&one)
                    }
                    && lex.placing_verbs.contains(&words[i - 5].to_lowercase())
                || i >= 2
                    && (copy_noun(i - 1) || words[i - 1].eq_ignore_ascii_case("one"))
                    && ["a", "another", "second", "spare", "extra"]
                        .contains(&words[i - 2].to_lowercase().as_str())
                // "make a safety copy at Backup/Llama trek": one word says which copy.
                || i >= 3
                    && copy_noun(i - 1)
                    && ["a", "an", "another"].contains(&words[i - 3].to_lowercase().as_str()));
        let two_before = (i >= 2).then(|| {
            format!(
                "{} {}",
                words[i - 2].to_lowercase(),
                prev.trim_end_matches([',', ';'])
            )
        });
        // "put Screenshots/a.png in Taxes/Proof", "stash it in X": after a verb of placing and
        // the thing placed (a path or a pointer back), where it goes.
        let placed = matches!(w.as_str(), "in" | "inside" | "on" | "under")
            && i >= 2
            && lex.placing_verbs.contains(&words[0].to_lowercase())
            && {
                let thing = prev.trim_end_matches([',', ';']);
                lex.back_references.contains(thing)
                    || (self.lookup)(words[i - 1])
                        .is_some_and(|p| p.contains('/') || looks_like_file(&p))
            };
        // "put the category folders in Tabletop/Sorted", "park the spares in Diving/_dupes": so
        // after such a verb later in the clause and what it places ("the", "those"), unless a place to put them
        // follows ("put the pdfs in Documents into Archive", "… in Downloads/Handy in monthly
        // folders", "stash the files in Downloads somewhere safe").
        let set_down = matches!(w.as_str(), "in" | "inside" | "on" | "under")
            && (2..=4).filter(|k| *k <= i).any(|k| {
                // Not said of what was done ("where did I put the receipts in Documents?").
                let done = i > k
                    && matches!(
                        words[i - k - 1].to_lowercase().as_str(),
                        "i" | "you" | "we" | "they" | "did" | "had" | "have" | "i've" | "i'd"
                    );
                // What it places is named ("the spares", "the category folders"), and where
                // is a path ("in Diving/_dupes").
                let the_things = matches!(
                    words[i - k + 1].to_lowercase().as_str(),
                    "the" | "those" | "these"
                );
                // "build those type folders inside Backup/Old job": folders made somewhere are
                // put there.
                let verb = words[i - k].to_lowercase();
                let sets_down = lex.setting_down_verbs.contains(&verb)
                    || lex.making_words.contains(&verb) && is_folder_noun(words[i - 1]);
                let to_a_path = words
                    .get(i + 1)
                    .and_then(|n| (self.lookup)(n))
                    .is_some_and(|p| p.contains('/'));
                !done
                    && the_things
                    && to_a_path
                    && sets_down
                    && words[i - k..i].iter().all(|x| {
                        let l = x.to_lowercase();
                        !x.ends_with([',', ';', ':'])
                            && !LOCATION_PREPS.contains(&l.as_str())
                            && !TARGET_PREPS.contains(&l.as_str())
                    })
            })
            && !words[i + 1..].iter().any(|n| {
                let n = n.trim_end_matches([',', ';', ':', '.']).to_lowercase();
                TARGET_PREPS.contains(&n.as_str())
                    || matches!(n.as_str(), "in" | "inside" | "somewhere" | "elsewhere")
            });
        let going = [
            Some(prev.trim_end_matches([',', ';']).to_owned()),
            two_before,
        ]
        .iter()
        .flatten()
        .any(|v| {
            lex.going_verbs
                .get(v)
                .is_some_and(|preps| preps.contains(&w))
        });
        // "with the category folders created over in Documents/Montreal exchange": where
        // folders are made is where things go.
        // "Give them type folders, and build those under Documents/Dig 2026": so is where they
        // are to be built.
        let folders_made_there = matches!(w.as_str(), "in" | "inside" | "under") && {
            let back = if matches!(prev, "over" | "up") { 2 } else { 1 };
            i > back
                && (matches!(
                    words[i - back].to_lowercase().as_str(),
                    "created" | "made" | "built" | "set"
                ) && is_folder_noun(words[i - back - 1])
                    || i > back + 1
                        && matches!(
                            words[i - back - 1].to_lowercase().as_str(),
                            "build" | "create" | "make" | "put"
                        )
                        && matches!(
                            words[i - back].to_lowercase().as_str(),
                            "those" | "them" | "these"
                        )
                        && words[..i - back - 1].iter().any(|w| is_folder_noun(w)))
        };
        let w = if after_a_copy_of || placed || set_down || going || folders_made_there {
            "into".to_owned()
        } else {
            w
        };
        // A borrowed place word the lexicon reads as one ("de", "dans") is that preposition.
        match lex.synonyms.get(&w) {
            Some(p)
                if LOCATION_PREPS.contains(&p.as_str()) || TARGET_PREPS.contains(&p.as_str()) =>
            {
                p.clone()
            }
            _ => w,
        }
    }
}
