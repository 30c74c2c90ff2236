//! Names written with capitals: the words before a path that are part of it ("Calibre
//! Library/imports"), and a header that is only a name ("Steam Library:"). Pure.

use super::lexicon::*;
use super::places;

/// Words that are never the start of a name written before a path.
pub(super) const NEVER_NAME_STARTS: &[&str] = &[
    "and", "or", "but", "then", "please", "pls", "hey", "hi", "ok", "okay", "so", "also", "i",
    "is", "are", "it", "its", "all", "every", "each", "any", "some", "just", "now", "yes", "no",
    "only", "both", "same", "via", "with", "without", "for", "at", "on", "by",
];

/// "Calibre Library/imports", "3D Prints/STL", "Old PC/Downloads": a name with a space before
/// its first slash. Up to two words written with a capital just before a path that starts with
/// one go with it, unless the lexicon knows them as something else (a verb, even misspelt, "in",
/// "the", a question word): "Zip Photos/2023" and "In Music/Live" stay as they are. The words
/// are taken off `out`.
pub(super) fn name_before_path(out: &mut Vec<String>, path: String) -> String {
    if !path.starts_with(|c: char| c.is_uppercase() || c.is_ascii_digit()) {
        // "onto External drive/Videos": a word in lower case goes on a name written with a
        // capital before it.
        let first = path.split('/').next().unwrap_or_default();
        return match out.last() {
            Some(w)
                if path.contains('/')
                    && name_like(w)
                    && (super::paths::tail_word(first) || activity(first))
                    && !COMMON_FOLDERS.contains(&first) =>
            {
                let name = format!("{w} {path}");
                out.pop();
                name
            }
            _ => path,
        };
    }
    let mut name = path;
    for _ in 0..2 {
        match out.last() {
            Some(w) if name_like(w) => {
                name = format!("{w} {name}");
                out.pop();
            }
            _ => break,
        }
    }
    name
}

/// "3D printing/Models", "Cycling/…": a word for an activity in -ing, after a name and before
/// a slash, is the folder's name.
fn activity(word: &str) -> bool {
    word.len() > 5
        && word.ends_with("ing")
        && word.chars().all(|c| c.is_ascii_lowercase())
        && !super::never_in_a_name(word)
}

/// A word written as a name: with a capital (or digits and a capital), and none the lexicon
/// knows as something else (a verb, even misspelt, "in", "the", a question word).
pub(super) fn name_like(w: &str) -> bool {
    let lex = crate::rules::lexicon::lexicon();
    let stem = w.trim_end_matches("'s").trim_end_matches("’s");
    let mut chars = stem.chars();
    let first = chars.next();
    let l = w.to_lowercase();
    !stem.is_empty()
        && stem.chars().all(char::is_alphanumeric)
        && (first.is_some_and(char::is_uppercase)
            || first.is_some_and(|c| c.is_ascii_digit()) && stem.chars().any(char::is_uppercase))
        && !lex.action_verbs.contains(&l)
        && !lex.change_verbs.contains(&l)
        && !lex.look_verbs.contains(&l)
        && !lex.synonyms.contains_key(&l)
        && !lex.misspells_an_action(&l)
        && !DETERMINERS.contains(&l.as_str())
        && !FOLDER_NOUNS.contains(&l.as_str())
        && !places::LOCATION_PREPS.contains(&l.as_str())
        && !places::TARGET_PREPS.contains(&l.as_str())
        && !NEVER_NAME_STARTS.contains(&l.as_str())
        && !crate::rules::clause::is_question_word(&l)
}

/// "Steam Library", "Hörbücher": a header that is only a name (one to three words written as
/// names) names the folder the request is about.
pub(in crate::rules) fn only_a_name(header: &str) -> Option<String> {
    let header = header.trim().trim_end_matches([':', ',', ' ']);
    let words: Vec<&str> = header.split_whitespace().collect();
    ((1..=3).contains(&words.len())
        && words.iter().all(|w| name_like(w))
        && !words.iter().any(|w| {
            crate::rules::lexicon::lexicon()
                .common_words
                .contains(&w.to_lowercase())
        }))
    .then(|| header.to_owned())
}
