//! Whether a part of a request asks for an action: a verb that is one (not a noun after a
//! determiner, a word of a file's name, what the person did), a question, a phrase for one. Pure.

use super::{Verbs, opens_with_an_action_noun};

/// Words that open a question.
pub(super) const QUESTION_WORDS: &[&str] = &[
    "what", "what's", "whats", "which", "how", "where", "who", "why", "when", "is", "are", "do",
    "does", "can", "could",
];

/// Whether `word` opens a question (a trigger's first word that is no verb).
pub(in crate::rules) fn is_question_word(word: &str) -> bool {
    QUESTION_WORDS.contains(&word)
}

/// The words of `text` in lower case, without the punctuation around them (an apostrophe stays).
fn bare_lower_words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_lowercase()
        })
        .collect()
}

/// An action verb anywhere, or a question (a question asks to look).
pub(super) fn has_action(text: &str, verbs: &Verbs) -> bool {
    let words = bare_lower_words(text);
    // As written: "no," answers, "no" names nothing.
    let raw: Vec<String> = text.split_whitespace().map(str::to_lowercase).collect();
    let written: Vec<&str> = text.split_whitespace().collect();
    let in_a_name = words_of_file_names(text);
    let told_in_the_past = told_in_the_past(&words);
    words
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()))
        || opens_with_an_action_noun(text)
        || words.iter().enumerate().any(|(i, w)| {
            // "biggest file wins", "the file": a verb after a determiner or a superlative is
            // a noun there.
            // So is one after "no" ("has no proper name"), one word between at most, and one
            // after a determiner and a word for its size or whole ("in one long list").
            let noun = i > 0
                && (NOUN_MARKERS.contains(&words[i - 1].as_str()) || words[i - 1].ends_with("est"))
                || (1..=2).any(|k| i >= k && raw[i - k] == "no")
                // "duplicate photos in Pictures/Family, find em": "duplicate" before a plural
                // with nowhere for copies to go says which files.
                || w == "duplicate"
                    && words.get(i + 1).is_some_and(|n| n.ends_with('s'))
                    && !words[i..]
                        .iter()
                        .any(|n| matches!(n.as_str(), "to" | "into" | "onto" | "on"))
                // "a muddle of shift rotas": a verb's plain form right after "of" names a thing.
                || i > 0 && raw[i - 1] == "of" && !w.ends_with("ing")
                // "twice under new names": right after a preposition (or one and a word saying
                // which) a verb's spelling names or says which thing.
                || (1..=2).any(|k| {
                    i >= k
                        && ["under", "with", "without", "into", "from", "for", "by"]
                            .contains(&raw[i - k].as_str())
                        && (k == 1 || ["new", "old", "other", "different", "same"]
                            .contains(&words[i - 1].as_str()))
                })
                // "no time to read it", "takes ages to copy": what there is no time for is
                // not asked.
                || i >= 3 && raw[i - 3] == "no" && words[i - 1] == "to"
                || i >= 2
                    && words[i - 1] == "to"
                    && ["ages", "forever", "long", "hours"].contains(&words[i - 2].as_str())
                // "the WhatsApp export": a verb after a determiner and a name is a noun.
                || i >= 2
                    && NOUN_MARKERS.contains(&words[i - 2].as_str())
                    && written[i - 1].starts_with(char::is_uppercase)
                    && !written[i - 1].ends_with([',', ';', ':', '.', '!', '?'])
                || i >= 2
                    && (NOUN_MARKERS.contains(&words[i - 2].as_str()) || words[i - 2] == "one")
                    && SIZE_WORDS.contains(&words[i - 1].as_str())
                // "the regional entry list just came out": a verb's spelling after a
                // determiner and words that say which, with nothing after it to act on.
                || (2..=3).any(|k| {
                    i >= k
                        && NOUN_MARKERS.contains(&words[i - k].as_str())
                        && words[i - k + 1..i].iter().zip(&written[i - k + 1..i]).all(|(b, w)| {
                            b.len() > 2
                                && w.chars().all(char::is_lowercase)
                                && !verbs.is_action(b)
                                && !crate::rules::lexicon::lexicon().statement_verbs.contains(b.as_str())
                        })
                        && !written[i].ends_with([',', ';', ':'])
                        && words.get(i + 1).is_some_and(|n| {
                            matches!(n.as_str(), "just" | "came" | "arrived" | "went" | "is" | "was")
                        })
                })
                // "Downloads/Montreal move is a heap of …": a verb between a folder's name
                // with a capital and a verb said of it ends that name.
                || i >= 1
                    && written[i - 1].contains('/')
                    && written[i - 1]
                        .rsplit('/')
                        .next()
                        .is_some_and(|last| last.starts_with(char::is_uppercase))
                    && !written[i - 1].ends_with([',', ';', ':', '.', '!', '?'])
                    && !written[i].ends_with([',', ';', ':', '.', '!', '?'])
                    && words.get(i + 1).is_some_and(|n| {
                        crate::rules::lexicon::lexicon().statement_verbs.contains(n.as_str())
                    });
            // "PDFs that I rarely open": a verb in a relative clause says what the person
            // does, it asks for nothing.
            let relative = {
                let before: Vec<&str> = words[..i]
                    .iter()
                    .rev()
                    .map(String::as_str)
                    .skip_while(|b| {
                        b.ends_with("ly")
                            || matches!(*b, "never" | "often" | "always" | "sometimes" | "still")
                    })
                    .take(2)
                    .collect();
                matches!(before.as_slice(), [subject, rel]
                    if matches!(*subject, "i" | "we") && matches!(*rel, "that" | "which"))
            };
            // "I scanned a few coins twice": what the person did tells, it asks for nothing.
            let narrated = narrated_at(&words, i, told_in_the_past) || back_then(&words, i);
            // "Desktop/old listing photos.zip": a word of a file's name acts on nothing.
            verbs.is_action(w)
                && !noun
                && !relative
                && !narrated
                && !in_a_name[i]
                && words.get(i + 1).is_none_or(|n| n != "format")
                // "I need an Invoices folder inside X": a folder needed is one to make.
                || matches!(w.as_str(), "need" | "needs" | "want" | "wants")
                    && words
                        .get(i + 1)
                        .is_some_and(|n| matches!(n.as_str(), "a" | "an" | "another" | "one"))
                    && words[i + 1..]
                        .iter()
                        .take(4)
                        .any(|n| matches!(n.as_str(), "folder" | "subfolder" | "directory"))
                // "the folder needs copying onto USB": what a thing needs done is asked.
                || i > 0
                    && ["needs", "need", "wants", "want"].contains(&words[i - 1].as_str())
                    && gerund_of_an_action(w, verbs)
                // "X.zip should be extracted to Pictures/Van build": a change said in the
                // passive after a word that wants it.
                || !in_a_name[i] && !narrated && crate::rules::score::asked_done_at(&words, i)
        })
}

/// "Back in June I split it into type folders", "yesterday we moved …": with a time gone by,
/// what the person did is told whatever the verb's form.
fn told_in_the_past(words: &[String]) -> bool {
    words.windows(2).any(|p| {
        matches!(p[0].as_str(), "ago" | "yesterday")
            || p[0] == "back" && p[1] == "in"
            || p[0] == "in" && crate::rules::extract::calendar_word(&p[1])
            || p[0] == "last"
                && matches!(
                    p[1].as_str(),
                    "year"
                        | "month"
                        | "week"
                        | "time"
                        | "summer"
                        | "winter"
                        | "spring"
                        | "autumn"
                        | "weekend"
                        | "night"
                )
    })
}

/// "I scanned a few coins twice": the verb at `words[i]` tells what the person did (said after
/// "I" or "we" in the past), it asks for nothing.
fn narrated_at(words: &[String], i: usize, told_in_the_past: bool) -> bool {
    let subject = words[..i]
        .iter()
        .rev()
        .find(|b| !b.ends_with("ly") && !matches!(b.as_str(), "already" | "just"));
    // "they save to Downloads as .svg", "she files everything under Misc": what someone else
    // does, said right after "they", "he" or "she", tells (a verb of going says where things
    // go: "they go in Documents").
    let told_of_others = i > 0
        && matches!(words[i - 1].as_str(), "they" | "he" | "she")
        && !crate::rules::lexicon::lexicon()
            .going_verbs
            .contains_key(words[i].as_str())
        && !matches!(words[i].as_str(), "go" | "goes");
    told_of_others
        || (words[i].ends_with("ed") || told_in_the_past)
            && subject.is_some_and(|b| matches!(b.as_str(), "i" | "we" | "i've" | "we've"))
        // "when I've seen it, delete …": what the person has done is told.
        || words[i].ends_with('n')
            && i > 0
            && matches!(words[i - 1].as_str(), "i've" | "we've")
}

/// "back in June", "back then": "back" says when, it backs nothing up.
fn back_then(words: &[String], i: usize) -> bool {
    words[i] == "back"
        && words
            .get(i + 1)
            .is_some_and(|n| matches!(n.as_str(), "in" | "then" | "when"))
}

/// "Back in June I split it into type folders": a part whose only action verbs tell what the
/// person did.
pub(super) fn only_tells_what_was_done(text: &str, verbs: &Verbs) -> bool {
    let words = bare_lower_words(text);
    let past = told_in_the_past(&words);
    let told: Vec<bool> = (0..words.len())
        .filter(|&i| verbs.is_action(&words[i]) && !back_then(&words, i))
        .map(|i| narrated_at(&words, i, past))
        .collect();
    !told.is_empty() && told.iter().all(|t| *t)
}

/// "copying", "zipping", "moving": an action verb said with "-ing".
pub(super) fn gerund_of_an_action(word: &str, verbs: &Verbs) -> bool {
    word.strip_suffix("ing").is_some_and(|stem| {
        let undoubled = stem
            .len()
            .checked_sub(1)
            .filter(|&n| n > 0 && stem.as_bytes()[n] == stem.as_bytes()[n - 1])
            .map(|n| &stem[..n]);
        verbs.is_action(stem)
            || verbs.is_action(&format!("{stem}e"))
            || undoubled.is_some_and(|u| verbs.is_action(u))
    })
}

/// Words for how long, big or whole a thing is: a verb after one and a determiner is a noun
/// ("one long list", "the full list").
pub(super) const SIZE_WORDS: &[&str] = &[
    "long", "short", "full", "whole", "complete", "big", "huge", "single", "proper",
];

/// For each word of `text`, whether it is inside a file's name that goes on past a space
/// ("Desktop/old listing photos.zip").
pub(super) fn words_of_file_names(text: &str) -> Vec<bool> {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut inside = vec![false; tokens.len()];
    let mut i = 0;
    while i < tokens.len() {
        match crate::rules::extract::file_path_end(&tokens, i) {
            Some(end) => {
                inside[i..end].iter_mut().for_each(|w| *w = true);
                i = end;
            }
            None => {
                // "in Projects/Amiga restore; list it": a verb's form that names the folder.
                inside[i] |= crate::rules::extract::verb_in_a_name(&tokens, i);
                i += 1;
            }
        }
    }
    inside
}

/// "Desktop/Screenshots should live under Pictures": a phrase of the lexicon that reads as an
/// action ("should live under" → "move to") says one, though no action verb is written.
pub(super) fn says_an_action_in_a_phrase(text: &str, verbs: &Verbs) -> bool {
    let text = format!(" {} ", text.to_lowercase().replace([',', ';'], " "));
    let lex = crate::rules::lexicon::lexicon();
    // "track it down": a phrasal verb with what it acts on inside it.
    let said = |from: &str| {
        text.contains(&format!(" {from} "))
            || from.split_once(' ').is_some_and(|(verb, particle)| {
                lex.verb_particles.contains(particle)
                    && ["it", "them", "those", "these"]
                        .iter()
                        .any(|p| text.contains(&format!(" {verb} {p} {particle} ")))
            })
    };
    lex.phrases.iter().any(|(from, to)| {
        let read: Vec<String> = to.split_whitespace().map(str::to_owned).collect();
        said(from.trim())
            && (read.first().is_some_and(|first| verbs.is_action(first))
                // "should be kept on" → "should be copied to": a change wanted in the passive.
                || (0..read.len()).any(|i| crate::rules::score::asked_done_at(&read, i)))
    })
}

/// "Desktop is chaos again", "I'd prefer jazz-001.tif", "a folder for every day I opened the
/// hives": a part with a verb of any kind says something (a wish, a state) a change may answer;
/// one without ("supplier PDFs, the lot") only names things.
pub(super) fn says_a_verb_of_any_kind(text: &str) -> bool {
    const SAID_OF_A_SUBJECT: &[&str] = &[
        "i", "we", "you", "it", "they", "he", "she", "these", "those", "is", "are", "was", "were",
        "be", "been", "has", "have", "had", "may", "might", "can", "could", "should", "would",
        "will", "must", "shall", "need", "needs", "want", "wants", "let", "lets", "deserves",
        "deserve", "become", "becomes", "prefer",
    ];
    let lex = crate::rules::lexicon::lexicon();
    // ("all over the shop": a phrase the lexicon reads says something.)
    let padded = format!(" {} ", text.to_lowercase().replace([',', ';', '.'], " "));
    text.contains('?')
        || lex
            .phrases
            .iter()
            .any(|(from, _)| padded.contains(&format!(" {} ", from.trim())))
        || text.split_whitespace().any(|raw| {
            let w = raw
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '’')
                .to_lowercase();
            let stem = w.split(['\'', '’']).next().unwrap_or(&w);
            SAID_OF_A_SUBJECT.contains(&stem)
                || w.len() > 4 && (w.ends_with("ed") || w.ends_with("ing"))
                || lex.statement_verbs.contains(w.as_str())
                || lex.look_verbs.contains(w.as_str())
                || lex.change_verbs.contains(w.as_str())
                // "these go wherever …": a verb of going.
                || lex.going_verbs.contains_key(w.as_str())
        })
}

/// Words after which a verb is a noun ("the file", "every copy").
pub(in crate::rules) const NOUN_MARKERS: &[&str] = &[
    "the", "a", "an", "each", "every", "this", "that", "my", "your", "any",
    // "my fiancé wants his own copy of …": after a possessive or "own", a verb is a noun.
    "his", "her", "their", "our", "its", "own",
];
