//! What the words around a place say of it: a person's name before a possessive, a container
//! named before an apposition, files said with where they went, a noun an adjective describes.
//! Pure.

use super::super::lexicon::*;
use super::{LOCATION_PREPS, TARGET_PREPS};
use crate::rules::lexicon::lexicon;

/// Words for what things are put into, said before its name ("into one archive, X.zip").
pub(super) const CONTAINER_WORDS: &[&str] =
    &["archive", "zip", "tarball", "file", "bundle", "package"];

/// "zip Aunt Margit's letters": a name written with a capital before another's possessive
/// ("Margit's") is a person's, no place.
pub(super) fn persons_name(words: &[&str], i: usize) -> bool {
    words
        .get(i)
        .is_some_and(|w| w.starts_with(char::is_uppercase))
        && words.get(i + 1).is_some_and(|n| {
            n.starts_with(char::is_uppercase) && (n.ends_with("'s") || n.ends_with("’s"))
        })
}

/// "the files copied off Dad's old PC into Documents/From Dad's PC are all in one heap": files
/// said with where they were put, then what they are there: the place is where they are.
fn files_that_went_there(words: &[&str], i: usize) -> bool {
    let lower = |w: &str| w.trim_end_matches([',', ';', ':', '.']).to_lowercase();
    let said_of_them = words.get(i + 2).is_some_and(|w| {
        matches!(
            lower(w).as_str(),
            "are" | "were" | "is" | "was" | "sit" | "lie"
        )
    });
    let put = |w: &str| {
        let w = lower(w);
        w.len() > 4 && w.ends_with("ed") || matches!(w.as_str(), "put" | "sent" | "kept")
    };
    said_of_them
        && (i.saturating_sub(6)..i).any(|k| {
            k >= 1
                && put(words[k])
                && (FILE_NOUNS.contains(&lower(words[k - 1]).as_str())
                    || CATEGORY_WORDS
                        .iter()
                        .any(|(c, _)| *c == lower(words[k - 1])))
        })
}

/// "show me what got put into Desktop/Documents", "whatever was moved to Archive": a place said
/// of what went there before is where those files are now, not where anything goes.
pub(super) fn says_what_went_there(words: &[&str], i: usize) -> bool {
    let lower = |j: usize| words[j].to_lowercase();
    files_that_went_there(words, i)
        || i >= 3
            && {
                let done = lower(i - 1);
                done.ends_with("ed")
                    || matches!(done.as_str(), "put" | "sent" | "set" | "kept" | "left")
            }
            && matches!(
                lower(i - 2).as_str(),
                "got" | "get" | "gets" | "was" | "were" | "been" | "is" | "are"
            )
            && words[i.saturating_sub(6)..i - 2].iter().any(|w| {
                matches!(
                    w.to_lowercase().as_str(),
                    "what" | "whatever" | "everything" | "anything" | "which"
                )
            })
}

/// Whether `next` goes on from `raw` as the noun it describes: a plain word in lower case, no
/// link, verb or word for a folder ("the old folder" may name one).
pub(super) fn a_noun_follows(raw: &str, next: Option<&&str>) -> bool {
    // "Aunt Margit's old PC": a short name in capitals after a word in lower case is a noun.
    if raw.starts_with(char::is_lowercase)
        && !raw.ends_with([',', ';', ':', '.', '!', '?', ')'])
        && next.is_some_and(|n| {
            (2..=4).contains(&n.len()) && n.chars().all(|c| c.is_ascii_uppercase())
        })
    {
        return true;
    }
    // As written: "my Camera Uploads" goes on naming.
    let Some(next) = next.filter(|n| n.chars().all(|c| c.is_ascii_lowercase())) else {
        return false;
    };
    let next: &str = next;
    !raw.ends_with([',', ';', ':', '.', '!', '?', ')'])
        && next.len() > 2
        && next.chars().all(|c| c.is_ascii_lowercase())
        && !LOCATION_PREPS.contains(&next)
        && !TARGET_PREPS.contains(&next)
        && !DETERMINERS.contains(&next)
        && !is_folder_noun(next)
        && !lexicon().action_verbs.contains(next)
        && !lexicon().statement_verbs.contains(next)
        && !["and", "or", "but", "then", "please", "too", "first"].contains(&next)
        && !retrieval::text::is_stop_word(next)
}
