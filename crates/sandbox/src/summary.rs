//! Short summaries without a model (Luhn's extractive method): the sentences of a text that
//! carry most of its most frequent content words, in the order the text has them. Stop words of
//! English and German come from the `stop-words` crate. Pure.

use std::collections::HashMap;
use std::sync::LazyLock;

/// The longest sentence kept whole (characters); longer ones are cut at a word.
const SENTENCE_CHARS: usize = 240;
/// Content words counted as a text's significant ones.
const SIGNIFICANT: usize = 12;
/// Sentences shorter than this (words) are headings or fragments, not summary material.
const MIN_WORDS: usize = 4;

static STOP_WORDS: LazyLock<std::collections::HashSet<&'static str>> = LazyLock::new(|| {
    ["en", "de"]
        .into_iter()
        .filter_map(stop_words::lookup)
        .flatten()
        .copied()
        .collect()
});

fn content_words(sentence: &str) -> impl Iterator<Item = String> + '_ {
    sentence
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 3 && w.chars().any(char::is_alphabetic))
        .map(str::to_lowercase)
        .filter(|w| !STOP_WORDS.contains(w.as_str()))
}

/// The text's sentences: split after `.`, `!`, `?` before a space, and at line breaks that end a
/// paragraph or a list item.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let lines: Vec<&str> = block.lines().map(str::trim).collect();
        // A list (or a table) is one sentence per line; prose lines are joined.
        let listy = lines.len() > 1
            && lines
                .iter()
                .filter(|l| l.starts_with(['-', '*', '•']) || l.contains('|'))
                .count()
                * 2
                >= lines.len();
        let parts: Vec<String> = if listy {
            lines.iter().map(|l| (*l).to_owned()).collect()
        } else {
            vec![lines.join(" ")]
        };
        for part in parts {
            let mut start = 0;
            let chars: Vec<(usize, char)> = part.char_indices().collect();
            for (i, (at, c)) in chars.iter().enumerate() {
                let next_is_space = chars.get(i + 1).is_none_or(|(_, n)| n.is_whitespace());
                if matches!(c, '.' | '!' | '?') && next_is_space {
                    push(&mut out, &part[start..at + c.len_utf8()]);
                    start = at + c.len_utf8();
                }
            }
            push(&mut out, &part[start..]);
        }
    }
    out
}

fn push(out: &mut Vec<String>, s: &str) {
    let s = s
        .trim()
        .trim_start_matches(['-', '*', '•', '#', '>', ' '])
        .trim();
    if !s.is_empty() {
        out.push(s.split_whitespace().collect::<Vec<_>>().join(" "));
    }
}

fn shorten(s: &str) -> String {
    if s.chars().count() <= SENTENCE_CHARS {
        return s.to_owned();
    }
    let mut out = String::new();
    for w in s.split_whitespace() {
        if out.chars().count() + w.chars().count() + 2 > SENTENCE_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out.push('…');
    out
}

/// At most `n` sentences of `text` that say most of what it is about, in the text's order.
pub fn summarize(text: &str, n: usize) -> Vec<String> {
    let all = sentences(text);
    let mut freq: HashMap<String, usize> = HashMap::new();
    for s in &all {
        for w in content_words(s) {
            *freq.entry(w).or_default() += 1;
        }
    }
    let mut ranked: Vec<(&String, &usize)> = freq.iter().collect();
    ranked.sort_by(|a, b| b.1.cmp(a.1).then_with(|| a.0.cmp(b.0)));
    // Words said more than once, the most frequent first (all of them in a text that repeats
    // nothing).
    let repeated = ranked.iter().any(|(_, n)| **n > 1);
    let significant: std::collections::HashSet<&str> = ranked
        .iter()
        .filter(|(_, n)| !repeated || **n > 1)
        .take(SIGNIFICANT)
        .map(|(w, _)| w.as_str())
        .collect();
    // Luhn: (significant words in the sentence)² / its words; earlier sentences win ties.
    let mut scored: Vec<(usize, f64)> = all
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let words = s.split_whitespace().count();
            if words < MIN_WORDS {
                return None;
            }
            let hits = content_words(s)
                .filter(|w| significant.contains(w.as_str()))
                .count() as f64;
            (hits > 0.0).then(|| (i, hits * hits / words as f64))
        })
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut chosen: Vec<usize> = scored.iter().take(n).map(|(i, _)| *i).collect();
    chosen.sort_unstable();
    chosen.into_iter().map(|i| shorten(&all[i])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentences_that_carry_the_main_words_are_kept_in_order() {
        let text = "Minutes of the release meeting.\n\n\
            The release of version 2 moves to April because the installer still fails on Windows. \
            Lunch was pizza. \
            Ben fixes the installer and the release notes by Friday. \
            The weather was nice.\n\n\
            - Next meeting: Tuesday\n- Anna books the room for the release review";
        let got = summarize(text, 2);
        // "release", "installer" and "meeting" are said more than once; lunch and weather are not.
        assert_eq!(
            got,
            [
                "Minutes of the release meeting.",
                "Ben fixes the installer and the release notes by Friday."
            ]
        );
        assert_eq!(summarize(text, 3).len(), 3);
        assert!(!summarize(text, 5).iter().any(|s| s.contains("pizza")));
        assert!(summarize("", 3).is_empty());
        assert_eq!(sentences("a list:\n- one item\n- two items").len(), 3);
        let long = format!("{} end.", "release installer ".repeat(40));
        assert!(summarize(&long, 1)[0].ends_with('…'));
    }
}
