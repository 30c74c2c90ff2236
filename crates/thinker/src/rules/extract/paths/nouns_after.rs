//! Nouns in lower case after a folder's name written with a capital ("Shop/Product photos",
//! "Documents/Household bills", "Documents/Old school reports"): they go on the name when a firm
//! end follows them. Pure.

use super::super::lexicon::DETERMINERS;
use super::super::lexicon::is_folder_noun;
use super::super::places;
use super::never_in_a_name;
use crate::rules::lexicon::lexicon;

/// Words for anything at all: "sort Downloads/Misc files by type" acts on the folder's files.
const ANY_THING: &[&str] = &[
    "file", "files", "item", "items", "thing", "things", "one", "ones", "lot", "rest",
];

/// Words for what is measured of a folder: "how big is Unity/Projects total size?".
const MEASURES: &[&str] = &[
    "total", "size", "sizes", "space", "usage", "weight", "count", "number", "amount", "length",
];

/// Verbs said of a name right after it, beyond the lexicon's `statement_verbs`.
pub(super) const VERBS_AFTER: &[&str] = &[
    "came", "come", "went", "belong", "belongs", "contains", "contain", "holds", "hold", "should",
    "could", "would", "can", "will", "must", "needs", "carry", "carries", "sit", "sits", "live",
    "lives", "turned", "seems", "looks", "keeps", "takes", "eats", "fills", "go", "mixes", "runs",
    "grew", "grows", "goes", "dates",
];

/// Ordinals said as words: "Pictures/Baby first week", "Videos/Second honeymoon" go on with the
/// noun they count.
const ORDINAL_WORDS: &[&str] = &["first", "second", "third", "fourth", "fifth", "last"];

/// Words for no one and nothing in particular: "nothing in PhD/Literature moves".
const NOBODY: &[&str] = &[
    "nothing",
    "anything",
    "everything",
    "something",
    "nobody",
    "anybody",
    "everybody",
    "someone",
    "anyone",
    "everyone",
    "none",
    // Nowhere in particular: "it's filed under Documents/Flat share somewhere".
    "somewhere",
    "anywhere",
    "everywhere",
    "nowhere",
];

/// Words after which the part of the sentence plainly goes on with something else: a link, where
/// things go or come from, a verb said of the folder.
const FIRM_AFTER: &[&str] = &[
    "and", "then", "by", "to", "on", "into", "onto", "from", "as", "is", "are", "was", "were",
    "has", "have", "had", "so", "but", "because", "once", "when", "while", "if", "please",
    "should", "could", "would", "can", "will", "must", "needs", "came", "come", "went", "got",
    "belong", "belongs", "nobody", "nothing", "none",
    // "Documents/Book club at the moment", "Documents/Visa application up as …", "Documents/Swim
    // club not edited …", "Documents/Flat share older than …": a preposition, a particle, a
    // negation or a comparison after the nouns.
    "at", "up", "not", "older", "newer", "bigger", "larger", "smaller", "with", "for",
    // "Pictures/Birds/Heron burst now has …", "belongs in Archive/Night school now".
    "now", "first",
    // "copy Pictures/Narrowboat trip across to …": a particle of the verb.
    "across", "over", "back", "along", "away", "off", "out", "down",
];

/// Whether one or two nouns in lower case from `words[at]` go on the name `last` (a folder's
/// last part written with a capital, one word or two with the first of these nouns), ending
/// firmly: at a stop, the end of the request, or a word of `FIRM_AFTER`.
/// After a question word whose verb is still to come (`asked`: "what Documents/Old school
/// reports contains"), only a verb after the nouns ends the name.
pub(super) fn nouns_go_on(last: &str, words: &[&str], at: usize, asked: bool) -> bool {
    let parts = last.split(' ').count();
    if !last.starts_with(char::is_uppercase) || parts > 2 {
        return false;
    }
    let acted_on = verb_before(words, at);
    (1..=3 - parts).any(|n| {
        let Some(run) = words.get(at..at + n) else {
            return false;
        };
        let (end, inside) = run.split_last().expect("n ≥ 1");
        // "Backup/Job hunt 2026 first": a year goes on the name (`joins` takes it), and what
        // follows it says where the name ends.
        let year_after = plain(end) && words.get(at + n).is_some_and(|w| year(w));
        let after = words.get(at + n + usize::from(year_after)).copied();
        inside
            .iter()
            .all(|w| plain(w) && (noun(w) || ORDINAL_WORDS.contains(w)))
            && (noun(end)
                || verb_as_a_noun(end, after)
                || n == 1 && activity_at_a_stop(last, end, after)
                || verb_at_a_stop(last, words, at, n, end, after))
            // "Work/Reports stuff untouched …": after a plural, "stuff" is what it holds.
            && !(bare(end) == "stuff" && last.ends_with('s'))
            && (firm_end(end, after)
                || verb_after(after)
                || year_after && !plain(words[at + n])
                || verb_on_what_follows(words, at + n + usize::from(year_after)))
            // "nothing in PhD/Literature moves;", "Videos/Drohne platzt aus …": with no verb
            // before it, the word after a name is as likely its verb; only a plural that is
            // no verb ("Documents/Bank statements from …") or a verb after it ("Documents/Old
            // school reports came off …") makes it a noun; at the end, a plural is as likely
            // the verb ("the one in Ebooks/Kindle survives").
            && (acted_on
                || verb_after(after)
                || plural_noun(end) && plain(end) && after.is_some()
                // "Documents/Soap making: list …": a heading.
                || end.ends_with(':')
                || verb_on_what_follows(words, at + n))
            && (!asked || verb_after(after))
    })
}

/// Whether the part of the sentence before the path at or before `words[at]` says something
/// of it ("wipe Documents/Household bills", "go through Documents/Old school reports"), so the
/// path is not what the part is about ("nothing in PhD/Literature moves", "Videos/Drohne …").
fn verb_before(words: &[&str], at: usize) -> bool {
    // "Jiwoo sent me a whole folder, Downloads/Hangul starter pack.": said of a folder named
    // before it.
    let slash = words[..at].iter().rposition(|w| w.contains('/'));
    if slash
        .and_then(|s| s.checked_sub(1))
        .is_some_and(|b| words[b].ends_with(',') && is_folder_noun(words[b]))
    {
        return true;
    }
    words[..at]
        .iter()
        .rev()
        .skip_while(|w| !w.contains('/'))
        .skip(1)
        .take_while(|w| plain(w))
        .any(|w| {
            let l = w.to_lowercase();
            !places::LOCATION_PREPS.contains(&l.as_str())
                && !DETERMINERS.contains(&l.as_str())
                && !NOBODY.contains(&l.as_str())
                // "ideally the one in Ebooks/Kindle survives".
                && !["one", "ones", "each", "any", "some", "both", "either", "neither", "ideally"]
                    .contains(&l.as_str())
        })
}

/// Whether `after` is a verb said of the name before it ("came", "is", "has").
fn verb_after(after: Option<&str>) -> bool {
    after.is_some_and(|w| {
        let w = w
            .trim_end_matches([',', ';', ':', '.', '!', '?'])
            .to_lowercase();
        NOBODY.contains(&w.as_str())
            || FIRM_AFTER.contains(&w.as_str()) && lexicon().statement_verbs.contains(&w)
            || VERBS_AFTER.contains(&w.as_str())
            // "were Videos/VHS transfers sorted into …": a participle said of it.
            || w.len() > 5 && w.ends_with("ed") && w.chars().all(|c| c.is_ascii_lowercase())
    })
}

/// A plural that is no verb said of something ("statements", not "moves" or "scans").
fn plural_noun(raw: &str) -> bool {
    let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
    let lex = lexicon();
    word.ends_with('s')
        && !lex.action_verbs.contains(word.trim_end_matches('s'))
        && !lex.action_verbs.contains(word.trim_end_matches("es"))
        && !lex.change_verbs.contains(word.trim_end_matches('s'))
}

/// "Pictures/Van build go from …": a verb's plain form names a thing when a verb said of it
/// follows.
fn verb_as_a_noun(raw: &str, after: Option<&str>) -> bool {
    let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
    let lex = lexicon();
    word.len() > 3
        && word.chars().all(|c| c.is_ascii_lowercase())
        && !word.ends_with('s')
        && !["ly", "ing", "ed"].iter().any(|end| word.ends_with(end))
        && lex.action_verbs.contains(word)
        && !lex.statement_verbs.contains(word)
        // Not at the end: "… to Fotos/Entwürfe move" is German's verb put last, "make the
        // names in Music/Rock lowercase" what to do.
        && verb_after(after)
}

/// "Documents/Soap making: list …": a word in -ing after a one-word name written with a capital
/// names an activity when the name plainly ends on it (a stop, the end of the request), unless
/// the lexicon reads it otherwise ("clashing").
fn activity_at_a_stop(last: &str, raw: &str, after: Option<&str>) -> bool {
    let word = bare(raw);
    let lex = lexicon();
    !last.contains(' ')
        && (!plain(raw) && !raw.ends_with('?') || after.is_none())
        && word.len() > 5
        && word.ends_with("ing")
        && word.chars().all(|c| c.is_ascii_lowercase())
        && !lex.synonyms.contains_key(word)
        && !lex.common_words.contains(word)
        && !lex.clash_words.iter().any(|w| w == word)
        && !lex.filler_leads.iter().any(|w| w == word)
        && !lex.empty_phrases.iter().any(|w| w == word)
}

/// "unpack … into Music/Ukulele group; any song …", "a whole folder, Downloads/Hangul starter
/// pack. Please …": a verb's plain form at a stop names a thing when the sentence already has its
/// action before the name, or a noun before it goes on the name ("starter pack"). Not a verb put
/// last with nothing before it ("… nach Fotos/Entwürfe move.": German's order).
fn verb_at_a_stop(
    last: &str,
    words: &[&str],
    at: usize,
    n: usize,
    raw: &str,
    after: Option<&str>,
) -> bool {
    let word = bare(raw);
    let lex = lexicon();
    let acted_before = || {
        words[..at]
            .iter()
            .rev()
            .skip(1)
            .take_while(|w| !w.ends_with(['.', '!', '?', ';']))
            .any(|w| lex.action_verbs.contains(&w.to_lowercase()))
    };
    // "back up Documents/Job hunt onto …", "over to Music/Ukulele group and check …", "on
    // Backup/Family archive first": a link after it ends the part as a stop does.
    let link_after = after.is_some_and(|a| {
        matches!(
            bare(a).to_lowercase().as_str(),
            "and" | "then" | "first" | "onto" | "into" | "to"
        )
    });
    // (Not "Documents/Rowing club goes onto …": a verb said of it.)
    let said_of_it = word.ends_with('s') || lex.going_verbs.contains_key(word);
    (!plain(raw) && !raw.ends_with('?')
        || after.is_none()
        || link_after && !said_of_it && acted_before())
        && word.len() > 3
        && word.chars().all(|c| c.is_ascii_lowercase())
        && lex.action_verbs.contains(word)
        && !lex.statement_verbs.contains(word)
        // "make the names in Music/Rock lowercase": how they should be.
        && !lex.case_words.values().flatten().any(|w| w == word)
        && (n > 1
            || last.contains(' ') && words[at - 1].starts_with(char::is_lowercase)
            // "Music/Ukulele group: replace …": a heading.
            || raw.ends_with(':')
            || acted_before()
            // "… and onto External disk/VOD archive": after "onto" the sentence is English,
            // whose verb is not put last ("… nach Fotos/Entwürfe move" is German's order).
            || after.is_none() && target_said_before(words, at))
}

/// Whether "into" or "onto" comes right before the path the name at `words[at]` goes on ("to"
/// may be a German "nach" read, whose verb comes last).
fn target_said_before(words: &[&str], at: usize) -> bool {
    let Some(slash) = words[..at].iter().rposition(|w| w.contains('/')) else {
        return false;
    };
    // ("onto External disk/VOD archive": the words of the name before its slash are skipped.)
    words[..slash]
        .iter()
        .rev()
        .take(3)
        .find(|w| !w.starts_with(char::is_uppercase))
        .is_some_and(|b| matches!(b.to_lowercase().as_str(), "into" | "onto"))
}

/// "in Documents/Car accident claim put each paper under …": an action with what it acts on
/// after it ("put each", "move the") starts the part after the name.
fn verb_on_what_follows(words: &[&str], at: usize) -> bool {
    let (Some(verb), Some(object)) = (words.get(at), words.get(at + 1)) else {
        return false;
    };
    plain(verb)
        && lexicon().action_verbs.contains(&verb.to_lowercase())
        && !crate::rules::clause::is_question_word(&verb.to_lowercase())
        && (DETERMINERS.contains(&object.to_lowercase().as_str())
            || ["each", "every", "all", "them", "it", "everything"]
                .contains(&object.to_lowercase().as_str()))
}

/// "2026": a year, with the stop after it if any.
fn year(raw: &str) -> bool {
    let w = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
    w.len() == 4
        && (w.starts_with("19") || w.starts_with("20"))
        && w.chars().all(|c| c.is_ascii_digit())
}

/// A word without the stop after it.
fn bare(raw: &str) -> &str {
    raw.trim_end_matches([',', ';', ':', '.', '!', '?'])
}

/// A word with no stop after it.
fn plain(raw: &str) -> bool {
    !raw.ends_with([',', ';', ':', '.', '!', '?', ')'])
}

/// A word in lower case that may name: not a word for anything at all, one that never names, a
/// manner, a participle, a verb said of the folder or a word the lexicon reads otherwise.
fn noun(raw: &str) -> bool {
    let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
    let lex = lexicon();
    word.len() > 2
        && word.chars().all(|c| c.is_lowercase())
        && !["ly", "ing", "ed"].iter().any(|end| word.ends_with(end))
        && !ANY_THING.contains(&word)
        // "Scans runs from …": a verb said of the name.
        && !VERBS_AFTER.contains(&word)
        // "Downloads/Wedding stuff": a word for anything at all names too.
        && (word == "stuff" || !lex.synonyms.contains_key(word))
        && !NOBODY.contains(&word)
        && !MEASURES.contains(&word)
        && !never_in_a_name(word)
        && !lex.statement_verbs.contains(word)
        && !lex.case_words.values().flatten().any(|w| w == word)
        && !lex.filler_leads.iter().any(|w| w == word)
        && !lex.empty_phrases.iter().any(|w| w == word)
}

/// Whether the name plainly ends after `raw`.
fn firm_end(raw: &str, after: Option<&str>) -> bool {
    !plain(raw)
        || after.is_none_or(|w| {
            let w = w
                .trim_end_matches([',', ';', ':', '.', '!', '?', ')'])
                .to_lowercase();
            // "Documents/Flat share mostly from …": a manner ends it too.
            FIRM_AFTER.contains(&w.as_str()) || w.len() > 4 && w.ends_with("ly")
        })
}
