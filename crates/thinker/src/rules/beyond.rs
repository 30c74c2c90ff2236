//! Requests for what no tool does: "can u transcribe my recordings into notation?" (a verb no
//! tool knows), "could you remove the wind noise from my helmet cam videos?" (taking something
//! that is no file out of files), "put subtitles on my salsa videos" (putting something on
//! files). They ask what the agent can do; the file tools are not offered to do something else
//! to the files (deleting the videos). Pure.

use std::collections::BTreeSet;

use super::extract::{Slots, extract, names_a_kind_of_thing};
use super::{PlanBuilder, lexicon::lexicon, trigger_verbs};

/// Verbs that take something out of what follows "from" ("remove the background from …").
const TAKING_OUT: &[&str] = &["remove", "delete", "strip", "erase", "cut", "take", "get"];
/// Verbs that put something on what follows "on" or "to" ("put subtitles on …").
const PUTTING_ON: &[&str] = &["put", "add", "stick", "slap", "burn", "overlay", "stamp"];
/// Words that name files, whatever kind ("the blurry ones", "the extras", "everything").
const FILE_WORDS: &[&str] = &[
    "ones",
    "one",
    "extras",
    "extra",
    "copies",
    "duplicates",
    "dupes",
    "doubles",
    "junk",
    "clutter",
    "rubbish",
    "everything",
    "all",
    "any",
    "rest",
    "lot",
    "items",
    "things",
    "versions",
    "folder",
    "folders",
];

impl PlanBuilder<'_, '_> {
    /// Whether `text` asks for something no tool does (see the module's doc).
    pub(super) fn asks_beyond_the_tools(&self, text: &str) -> bool {
        let words: Vec<String> = text
            .split_whitespace()
            .map(|w| {
                w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '/' && c != '.')
                    .to_lowercase()
            })
            .filter(|w| !w.is_empty())
            .collect();
        let Some(at) = verb_after_an_ability_lead(&words).or_else(|| first_verb_at(&words)) else {
            return false;
        };
        let verb = words[at].as_str();
        let asked = verb_after_an_ability_lead(&words) == Some(at);
        if asked && !self.known_verb(verb) {
            return true;
        }
        self.takes_a_thing_out_of_files(&words, at) || self.puts_a_thing_on_files(&words, at)
    }

    /// A verb of the lexicon, a skill's trigger or an everyday word, or one letter off one
    /// ("shfit").
    fn known_verb(&self, word: &str) -> bool {
        let lex = lexicon();
        let triggers = trigger_verbs(self.cx.skills);
        let sets: [&BTreeSet<String>; 10] = [
            &lex.action_verbs,
            &lex.change_verbs,
            &lex.look_verbs,
            &lex.general_verbs,
            &lex.placing_verbs,
            &lex.setting_down_verbs,
            &lex.common_words,
            &lex.making_words,
            &lex.statement_verbs,
            &triggers,
        ];
        if !word.chars().all(char::is_alphabetic)
            || sets.iter().any(|s| s.contains(word))
            || lex.synonyms.contains_key(word)
        {
            return true;
        }
        word.chars().count() >= 4
            && [
                &lex.action_verbs,
                &lex.change_verbs,
                &lex.look_verbs,
                &triggers,
            ]
            .iter()
            .flat_map(|s| s.iter())
            .any(|k| strsim::damerau_levenshtein(word, k) <= 1)
    }

    /// "remove the wind noise from my helmet cam videos": what is taken out names no file, and
    /// what it comes out of is a kind of file, not a place.
    fn takes_a_thing_out_of_files(&self, words: &[String], at: usize) -> bool {
        if !TAKING_OUT.contains(&words[at].as_str()) {
            return false;
        }
        let Some(from) = words[at + 1..]
            .iter()
            .position(|w| w == "from")
            .map(|i| at + 1 + i)
        else {
            return false;
        };
        // "get rid of", "take out": the particle is part of the verb.
        let thing: Vec<&String> = words[at + 1..from]
            .iter()
            .filter(|w| !matches!(w.as_str(), "rid" | "of" | "out" | "off"))
            .collect();
        !thing.is_empty() && !self.names_files(&thing) && self.files_not_a_place(&words[from + 1..])
    }

    /// "put subtitles on my salsa videos": something put on a kind of file, not into a place.
    fn puts_a_thing_on_files(&self, words: &[String], at: usize) -> bool {
        if !PUTTING_ON.contains(&words[at].as_str()) {
            return false;
        }
        let Some(on) = words[at + 1..]
            .iter()
            .position(|w| matches!(w.as_str(), "on" | "onto" | "over"))
            .map(|i| at + 1 + i)
        else {
            return false;
        };
        on > at + 1 && self.files_not_a_place(&words[on + 1..])
    }

    /// Words that name files: a file noun, a kind of file, a name, a place, an amount.
    fn names_files(&self, words: &[&String]) -> bool {
        let lex = lexicon();
        words.iter().any(|w| {
            names_a_kind_of_thing(w)
                || FILE_WORDS.contains(&w.as_str())
                || lex.back_references.contains(w.as_str())
                || lex.copy_nouns.contains(w.trim_end_matches('s'))
                || w.contains(['.', '/'])
                || w.chars().any(|c| c.is_ascii_digit())
        }) || {
            let text: Vec<&str> = words.iter().map(|w| w.as_str()).collect();
            let s = extract(&text.join(" "), self.grounding);
            said_of_files(&s)
        }
    }

    /// What follows the preposition is a kind of file ("my helmet cam videos"), with no place.
    fn files_not_a_place(&self, words: &[String]) -> bool {
        let end = words
            .iter()
            .position(|w| {
                w.ends_with([',', ';']) || matches!(w.as_str(), "and" | "then" | "into" | "to")
            })
            .unwrap_or(words.len());
        let part = &words[..end];
        if part.is_empty() || part.iter().any(|w| w.contains('/')) {
            return false;
        }
        // "product fotos": casual words for kinds read as the kinds.
        let lex = lexicon();
        let read: Vec<&str> = part
            .iter()
            .map(|w| lex.synonyms.get(w).map_or(w.as_str(), String::as_str))
            .collect();
        let s = extract(&read.join(" "), self.grounding);
        !s.extensions.is_empty() && s.locations.is_empty() && s.targets.is_empty()
    }
}

/// What the extracted words say about which files: a kind, a place, a name, an amount, a date.
fn said_of_files(s: &Slots) -> bool {
    !s.extensions.is_empty()
        || !s.locations.is_empty()
        || !s.objects.is_empty()
        || s.name.is_some()
        || s.glob.is_some()
        || s.min_size.is_some()
        || s.max_size.is_some()
        || s.modified_after.is_some()
        || s.modified_before.is_some()
        || s.empty
}

/// The word right after an ability lead and its fillers ("could you please transcribe").
fn verb_after_an_ability_lead(words: &[String]) -> Option<usize> {
    let lex = lexicon();
    lex.ability_leads.iter().find_map(|lead| {
        let lead: Vec<&str> = lead.split_whitespace().collect();
        let start = words
            .windows(lead.len())
            .position(|w| w.iter().zip(&lead).all(|(a, b)| a == b))?;
        (start + lead.len()..words.len()).find(|&i| !lex.ability_fillers.contains(&words[i]))
    })
}

/// The first word of a part that opens with a verb of taking out or putting on.
fn first_verb_at(words: &[String]) -> Option<usize> {
    words
        .iter()
        .take(2)
        .position(|w| TAKING_OUT.contains(&w.as_str()) || PUTTING_ON.contains(&w.as_str()))
}
