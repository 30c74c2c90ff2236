//! Typos fixed against the planner's vocabulary: edit distance with a unique best word, never
//! inside a file's name, a quote or an extension. Pure.

use super::super::lexicon::lexicon;
use super::{Vocabulary, is_everyday_english};

/// Optimal-string-alignment distance: Levenshtein plus adjacent transpositions ("remvoe").
pub fn osa_distance(a: &str, b: &str) -> usize {
    strsim::osa_distance(a, b)
}

/// `text` with its misspelt words written right ("delete the emtpy folders": `empty`, "keping
/// the newst"), and borrowed words for a filter or a kind of file read as it ("vacíos"), so the
/// request's values are read. Only lower-case words change; names, paths and quoted text stay
/// as written.
pub fn filter_typos_fixed(text: &str, vocab: &Vocabulary) -> String {
    fixed(text, vocab, true)
}

/// `text` with its typos fixed and every other word as written ("get rid of tehm" → "… them";
/// "junk drawer" stays): what a request is split at.
pub fn typos_fixed(text: &str, vocab: &Vocabulary) -> String {
    fixed(text, vocab, false)
}

/// Typos fixed, and with `synonyms` the lexicon's casual words for filters read as them.
fn fixed(text: &str, vocab: &Vocabulary, synonyms: bool) -> String {
    let mut quoted = false;
    let mut after_a_path = false;
    let inside_a_name = inside_a_file_name(text);
    text.split(' ')
        .enumerate()
        .map(|(i, raw)| {
            if inside_a_name[i] {
                return raw.to_owned();
            }
            // "Downloads/Wedding stuff": a word for anything at all after a path may be the
            // end of its name, and says no kind of file to read.
            // ("Backup/House docs": a casual word after a name with a capital may be the end
            // of the name, and stays as written.)
            let follows_a_path = std::mem::replace(
                &mut after_a_path,
                raw.contains('/')
                    && !raw.ends_with([',', ';', ':', '.', '!', '?'])
                    && raw
                        .rsplit('/')
                        .next()
                        .is_some_and(|last| last.starts_with(char::is_uppercase)),
            );
            let opens = raw.starts_with(['"', '\'', '`']);
            let closes = raw.ends_with(['"', '\'', '`']);
            let inside = quoted || opens;
            quoted = inside && !(closes && (raw.len() > 1 || !opens));
            let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?']);
            // A borrowed or casual word is the lexicon's, not a typo ("archivos" is no
            // "archives"); one meaning a kind of file or a filter is read as it ("vacíos").
            let lower_case = !inside && word.chars().all(|c| c.is_lowercase());
            let fixed = match lexicon().synonyms.get(word) {
                Some(_) if !synonyms => None,
                Some(w)
                    if follows_a_path
                        && (w == "files" || super::super::extract::names_a_kind_of_thing(w)) =>
                {
                    None
                }
                Some(w) => (lower_case && super::super::extract::filter_word(w)).then(|| w.clone()),
                None => (lower_case && word.is_ascii())
                    .then(|| correct(word, vocab))
                    .flatten(),
            };
            match fixed {
                Some(w) => raw.replacen(word, &w, 1),
                None => raw.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// For each word of `text` (split at spaces), whether it lies between a path and the file name
/// that ends it, with no stop between ("Downloads/old Airbnb payout 2022.csv"): a word of a
/// name, never a typo to fix.
fn inside_a_file_name(text: &str) -> Vec<bool> {
    const STOPS: [char; 6] = [',', ';', ':', '.', '!', '?'];
    let words: Vec<&str> = text.split(' ').collect();
    let mut inside = vec![false; words.len()];
    for (start, w) in words.iter().enumerate() {
        if !w.contains('/') || w.ends_with(STOPS) {
            continue;
        }
        let run = words[start + 1..].iter().take(5).position(|w| {
            super::super::looks_like_file(w.trim_end_matches(STOPS))
                || w.ends_with(STOPS)
                || w.contains('/')
        });
        if let Some(end) = run.filter(|&end| {
            let last = words[start + 1 + end];
            !last.contains('/') && super::super::looks_like_file(last.trim_end_matches(STOPS))
        }) {
            inside[start + 1..start + 1 + end].fill(true);
        }
    }
    inside
}

/// The vocabulary word `word` is most likely a misspelling of, if any: distance 1 for words of
/// 4–6 letters, 2 for longer ones, and a unique best candidate.
pub fn correct(word: &str, vocab: &Vocabulary) -> Option<String> {
    // "wav to flac": a file type's extension is spelt right, whatever word it is near.
    if sandbox::CATEGORIES
        .iter()
        .any(|(_, exts)| exts.contains(&word))
    {
        return None;
    }
    let n = word.chars().count();
    if n == 3 && !vocab.contains(word) && word.chars().all(|c| c.is_ascii_lowercase()) {
        // Three letters: only a swap of two neighbours ("zpi" → "zip") is safe to undo, or a
        // dropped vowel of a verb the lexicon acts on ("fnd" → "find", "mve" → "move"), when
        // only one such word fits.
        let swapped: Vec<&String> = vocab
            .targets
            .iter()
            .filter(|v| v.len() == 3 && osa_distance(word, v) == 1 && sorted(v) == sorted(word))
            .collect();
        if let [only] = swapped.as_slice() {
            return Some((*only).clone());
        }
        if !swapped.is_empty() || is_everyday_english(word) || lexicon().common_words.contains(word)
        {
            return None;
        }
        let lex = lexicon();
        let vowel_dropped: Vec<&String> = vocab
            .targets
            .iter()
            .filter(|v| {
                v.len() == 4
                    && lex.action_verbs.contains(v.as_str())
                    && v.char_indices().any(|(i, c)| {
                        "aeiou".contains(c) && format!("{}{}", &v[..i], &v[i + 1..]) == word
                    })
            })
            .collect();
        return match vowel_dropped.as_slice() {
            [only] => Some((*only).clone()),
            _ => None,
        };
    }
    // "backups" is no misspelt "backup": a plural of a word known is spelt right, and so is
    // one of an everyday word ("spares" is not "spaces").
    let plural_of_a_known_word = ["s", "es"].iter().any(|end| {
        word.strip_suffix(end).is_some_and(|stem| {
            vocab.contains(stem) || stem.len() >= 4 && is_everyday_english(stem)
        })
    });
    if n < 4
        || vocab.contains(word)
        || plural_of_a_known_word
        || lexicon().common_words.contains(word)
        || is_everyday_english(word)
        || !word.chars().all(|c| c.is_ascii_alphabetic())
    {
        return None;
    }
    let limit = if n <= 6 { 1 } else { 2 };
    let mut best: Option<(usize, &String)> = None;
    let mut tie = false;
    for v in &vocab.targets {
        if v.len().abs_diff(n) > limit {
            continue;
        }
        let d = osa_distance(word, v);
        if d > limit {
            continue;
        }
        match best {
            Some((bd, _)) if d > bd => {}
            Some((bd, _)) if d == bd => tie = true,
            _ => {
                best = Some((d, v));
                tie = false;
            }
        }
    }
    match best {
        Some((_, v)) if !tie => Some(v.clone()),
        // "kepe" is "keep", not "kept": of words as near, the one with the same letters, two
        // of them swapped, is the likeliest.
        Some((1, _)) => {
            let mut swapped = vocab.targets.iter().filter(|v| {
                v.chars().count() == n && osa_distance(word, v) == 1 && sorted(v) == sorted(word)
            });
            match (swapped.next(), swapped.next()) {
                (Some(v), None) => Some(v.clone()),
                _ => None,
            }
        }
        _ => None,
    }
}

fn sorted(w: &str) -> Vec<char> {
    let mut c: Vec<char> = w.chars().collect();
    c.sort_unstable();
    c
}
