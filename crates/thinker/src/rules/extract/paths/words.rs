//! Which words go on a name of words written without a folder tree and which end it: plurals,
//! kinds of file, pastimes in -ing, ordinals after a capital; links, adverbs, conjunctions and
//! verbs said of the folder after it. Pure.

use super::super::lexicon::*;
use super::super::places;
use super::{never_in_a_name, nouns_after};

/// "Documents/Tax papers 2023": a year.
pub(in crate::rules::extract) fn a_year(raw: &str) -> bool {
    let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
    word.len() == 4
        && word.chars().all(|c| c.is_ascii_digit())
        && (word.starts_with("19") || word.starts_with("20"))
}

/// "Pictures/Grandpa 80th": a number said as an ordinal.
pub(in crate::rules::extract) fn ordinal(word: &str) -> bool {
    let digits = word.trim_end_matches(char::is_alphabetic);
    !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit())
        && ["st", "nd", "rd", "th"].contains(&&word[digits.len()..])
}

/// A word in lower case that goes on a name written with a capital, beyond `tail_word`: a kind
/// of file or a plural ("Pictures/Game screenshots", "Backup/Phone backups"), an ordinal
/// ("Grandpa 80th"), not a word the lexicon reads otherwise nor one that never names. A word
/// for files only when `kinds_go_on` ("Downloads/Misc files by type" are the folder's files).
pub(in crate::rules::extract) fn tail_word_after_a_capital(raw: &str, kinds_go_on: bool) -> bool {
    let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
    let lex = crate::rules::lexicon::lexicon();
    ordinal(word)
        || word.len() > 2
            && word.chars().all(char::is_lowercase)
            && !["ly", "ing", "ed"].iter().any(|end| word.ends_with(end))
            && !never_in_a_name(word)
            && !lex.statement_verbs.contains(word)
            && !lex.action_verbs.contains(word.trim_end_matches('s'))
            && !lex.action_verbs.contains(word.trim_end_matches("es"))
            && !lex.change_verbs.contains(word.trim_end_matches('s'))
            && !lex.common_words.contains(word)
            && !["items", "things", "bits", "pieces"].contains(&word)
            && !lex.case_words.values().flatten().any(|w| w == word)
            && !lex.filler_leads.iter().any(|w| w == word)
            && !lex.empty_phrases.iter().any(|w| w == word)
            && (kinds_go_on || !FILE_NOUNS.contains(&word))
            && (places::describes_files(word) || word.ends_with('s'))
}

/// "Documents/Bell ringing", "Pictures/Wild swimming", "Documents/Puppy raising": a word in -ing
/// that names a pastime goes on a name written with a capital (up to a clear end); not one of
/// a verb the lexicon reads ("sorting", "using"), nor a word that starts what comes after.
pub(in crate::rules::extract) fn gerund_of_a_name(word: &str) -> bool {
    let lex = crate::rules::lexicon::lexicon();
    let Some(stem) = word.strip_suffix("ing") else {
        return false;
    };
    let undoubled = stem
        .len()
        .checked_sub(1)
        .filter(|&n| n > 1 && stem.as_bytes()[n] == stem.as_bytes()[n - 1])
        .map_or(stem, |n| &stem[..n]);
    let a_verb_read = [stem.to_owned(), format!("{stem}e"), undoubled.to_owned()]
        .iter()
        .any(|v| {
            lex.action_verbs.contains(v.as_str())
                || lex.look_verbs.contains(v.as_str())
                || lex.change_verbs.contains(v.as_str())
                || lex.statement_verbs.contains(v.as_str())
                || lex.synonyms.contains_key(v.as_str())
                || lex.going_verbs.contains_key(v.as_str())
        });
    word.len() >= 5
        && word.chars().all(|c| c.is_ascii_lowercase())
        && !a_verb_read
        && !after_a_name(word)
        && !never_in_a_name(word)
        && !lex.common_words.contains(word)
}

/// Words that start what comes after a name written with a capital, beyond `ends_a_name`: "by
/// type", "first", a comparison, a verb said of it ("holds", "swallowed"), "that has".
pub(in crate::rules::extract) fn after_a_name(word: &str) -> bool {
    const AFTER: &[&str] = &[
        "by",
        "first",
        "older",
        "newer",
        "bigger",
        "larger",
        "smaller",
        "tidier",
        "lighter",
        "holds",
        "hold",
        "contains",
        "contain",
        "including",
        "included",
        "with",
        "without",
        "that",
        "which",
        "who",
        // "Documents/Scouts/Summer camp type folders": the order asked for.
        "type",
        "kind",
    ];
    let l = word
        .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
        .to_lowercase();
    // Adverbs said of the folder ("Documents/Jam stall last changed …", "… Backup/House docs
    // too") and where it is ("Projects/Vespa restoration in Backup/Vespa") never go on a name.
    const ADVERBS: &[&str] = &[
        "last", "still", "about", "also", "already", "now", "again", "too", "here", "there",
        "just", "mostly", "right",
    ];
    // "Backup/Nan tablet before it died": a word that opens a clause of its own.
    const CONJUNCTIONS: &[&str] = &[
        "before", "after", "since", "until", "because", "while", "when", "once", "if",
    ];
    AFTER.contains(&l.as_str())
        || CONJUNCTIONS.contains(&l.as_str())
        // "Pictures/Film scans honestly occupy …": a word for how.
        || l.len() > 5 && l.ends_with("ly") && !NOUNS_IN_LY.contains(&l.as_str())
        || ADVERBS.contains(&l.as_str())
        // (Not "Documents/Tennis club dates from …": a verb comes from somewhere.)
        || !matches!(l.as_str(), "of" | "from") && places::LOCATION_PREPS.contains(&l.as_str())
        || l.len() > 4 && l.ends_with("ed")
}

/// Whether the last part of `path` is a name of words ("Job", "garden", "Phone backup"), not a
/// number or a file, with room for one more word (three at most).
pub(in crate::rules::extract) fn ends_in_a_name_of_words(path: &str) -> bool {
    let last = path.rsplit('/').next().unwrap_or(path);
    let last_word = last.rsplit(' ').next().unwrap_or(last);
    // "Year 9": a small number after a word ends a name of words too.
    let numbered = last.contains(' ')
        && (1..=3).contains(&last_word.len())
        && last_word.chars().all(|c| c.is_ascii_digit());
    numbered
        || last_word.chars().count() >= 2
            && last_word.chars().any(char::is_alphabetic)
            && last_word
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '-' | '\'' | '’'))
            && !crate::rules::looks_like_file(last_word)
            && last.split(' ').count() < 3
}

/// "Projects/bird feeder/parts list.txt": a word in lower case before a slash goes on the name
/// before it (the slash ends it).
pub(in crate::rules::extract) fn goes_on_before_a_slash(path: &str, part: &str) -> bool {
    // "Music/Ukulele group/concert.mp3": before a slash even a verb's form names.
    // So does one in -ing ("Documents/Yoga teaching/class waiver v3.pdf").
    let named_before_a_slash = part.len() > 2
        && part.chars().all(|c| c.is_lowercase())
        && (crate::rules::lexicon::lexicon().action_verbs.contains(part)
            || part.len() > 4 && part.ends_with("ing"))
        && !places::LOCATION_PREPS.contains(&part)
        && !places::TARGET_PREPS.contains(&part);
    ends_in_a_name_of_words(path) && (tail_word(part) || named_before_a_slash)
}

/// Everyday words the lexicon keeps from being "corrected" that are nouns, and name folders.
const COMMON_NOUNS: &[&str] = &["side", "line", "home", "work", "year", "time"];

/// Nouns that end like a manner ("quickly") and name things all the same ("Documents/Shared
/// family").
pub(in crate::rules::extract) const NOUNS_IN_LY: &[&str] = &[
    "family", "assembly", "supply", "reply", "rally", "tally", "ally",
];

/// A word in lower case that may go on a name: not a kind of file ("Work/Reports documents"), a
/// manner ("quickly"), a participle ("keeping", "turned"), a comparison ("older"), a verb said of
/// the folder ("looks", "moves"), a word the lexicon reads ("ovr", "lowercase") or one that never
/// names.
pub(in crate::rules::extract) fn tail_word(raw: &str) -> bool {
    const COMPARED: &[&str] = &[
        "old", "new", "big", "larg", "small", "lat", "earli", "young", "fast", "slow", "high",
        "low", "long", "short", "heavi", "light", "bigg", "fatt", "nic", "clos", "wid",
    ];
    let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
    let lex = crate::rules::lexicon::lexicon();
    // ("Downloads/Wedding stuff": a word for anything at all names too.)
    // ("Documents/Morris side", "Projects/Bus line": an everyday noun names all the same.)
    let read_by_the_lexicon = lex.synonyms.contains_key(word) && word != "stuff"
        || lex.common_words.contains(word) && !COMMON_NOUNS.contains(&word)
        || lex.case_words.values().flatten().any(|w| w == word)
        || lex.filler_leads.iter().any(|w| w == word);
    let verb_said_of_it = nouns_after::VERBS_AFTER.contains(&word)
        || word.ends_with('s')
            && (lex.statement_verbs.contains(word)
                || lex.action_verbs.contains(word.trim_end_matches('s'))
                || lex.action_verbs.contains(word.trim_end_matches("es")));
    word.len() > 2
        && word.chars().all(|c| c.is_lowercase() || c == '-')
        && (!["ly", "ing", "ed"].iter().any(|end| word.ends_with(end))
            || NOUNS_IN_LY.contains(&word))
        && !word
            .strip_suffix("er")
            .is_some_and(|stem| COMPARED.contains(&stem))
        && !verb_said_of_it
        && !read_by_the_lexicon
        // "Summer camp type folders": a word for an order is none of the name.
        && !["type", "types", "kind", "kinds", "category", "categories"].contains(&word)
        && !never_in_a_name(word)
        // "Desktop/Old stuff": a word for anything at all names too, a kind of file does not.
        && (!places::describes_files(word) || word == "stuff")
        && !known_extension(word.trim_end_matches('s'))
}

/// Whether a word plainly starts what comes after a name, so the one before it ends there: a
/// word linking parts ("and", "then", "instead"), where things go ("to"), a verb said of the
/// folder that cannot be a name ("has", "needs", "should") or "folder".
pub(in crate::rules::extract) fn ends_a_name(word: &str) -> bool {
    const LINKS: &[&str] = &[
        "and",
        "then",
        "so",
        "because",
        "since",
        "once",
        "rather",
        "instead",
        "afterwards",
        "beforehand",
        "tonight",
        "today",
        "tomorrow",
        "but",
        "or",
        "while",
        "if",
        "when",
        "please",
        "pls",
        "should",
        "could",
        "would",
        "must",
        "ought",
        "can",
        "will",
        "might",
        "may",
        "shall",
    ];
    let l = word
        .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
        .to_lowercase();
    let lex = crate::rules::lexicon::lexicon();
    LINKS.contains(&l.as_str())
        || places::TARGET_PREPS.contains(&l.as_str())
        || lex.statement_verbs.contains(&l)
        || is_folder_noun(&l)
}

/// A word of a closed class that no name of words goes on with and that follows a noun, not a
/// verb: a quantifier or a demonstrative, a form of "be" or "have" ("Documents/Personal training
/// any more", "Downloads/Cake orders several times over", "Pictures/Fly tying were typed",
/// "Documents/Feis entries right now",
/// "Documents/Kendo/Old gradings these days").
pub(in crate::rules::extract) fn function_word(word: &str) -> bool {
    const CLOSED: &[&str] = &[
        "any", "anymore", "several", "these", "those", "many", "both", "each", "every", "is",
        "are", "was", "were", "has", "have", "had", "been", "right",
    ];
    let l = word
        .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
        .to_lowercase();
    CLOSED.contains(&l.as_str())
}

/// "dot-files in Projects/Amiga restore;", "duplicate Documents/Chimney sweep business onto
/// Backup/…": a verb's base form after a part written with a capital names when the name is
/// what a preposition or a verb before it takes (no verb of its own follows it there) and the
/// name plainly ends after it, or after one more word that goes on a name.
pub(in crate::rules::extract) fn verb_form_names(last: &str, words: &[&str], at: usize) -> bool {
    let lex = crate::rules::lexicon::lexicon();
    let bare = |raw: &str| {
        raw.trim_end_matches([',', ';', ':', '.', '!', '?'])
            .to_lowercase()
    };
    let preposition =
        |w: &str| places::LOCATION_PREPS.contains(&w) || places::TARGET_PREPS.contains(&w);
    let Some(raw) = words.get(at) else {
        return false;
    };
    let word = bare(raw);
    let taken = words[..at]
        .iter()
        .rposition(|w| w.contains('/'))
        .and_then(|slash| slash.checked_sub(1))
        .is_some_and(|before| {
            let b = bare(words[before]);
            preposition(&b) || lex.action_verbs.contains(&b)
        });
    // (Not at the end, nor before a comma: a request read from German says its verb last,
    // "… unter Projekte/Server löschen".)
    let ends_here = |i: usize| {
        words
            .get(i)
            .is_some_and(|w| preposition(&bare(w)) && !w.ends_with([',', ';', ':', '.', '!', '?']))
    };
    last.starts_with(char::is_uppercase)
        && word.len() > 3
        && raw.chars().next().is_some_and(char::is_lowercase)
        && lex.action_verbs.contains(&word)
        && taken
        && (raw.ends_with([';', ':'])
            || ends_here(at + 1)
            // ("… to Documents/Chimney sweep business": after one more word, the end too.)
            || words.get(at + 1).is_some_and(|next| {
                tail_word(next)
                    && (next.ends_with([';', ':']) || ends_here(at + 2) || at + 2 == words.len())
            }))
}
