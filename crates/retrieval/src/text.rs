//! Text normalisation shared by the lexical embedder and BM25: words, light stemming, stop words.
//!
//! Pure functions. Both keyword signals see the same tokens, so a word that matches in one matches
//! in the other.

/// Words that carry no meaning for matching a request to a skill or a file.
const STOP_WORDS: &[&str] = &[
    "a", "about", "all", "an", "and", "any", "are", "as", "at", "be", "by", "can", "could", "do",
    "for", "from", "have", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on",
    "or", "our", "please", "so", "some", "that", "the", "them", "then", "there", "these", "this",
    "those", "to", "up", "us", "want", "was", "we", "what", "which", "will", "with", "would",
    "you", "your",
];

pub fn is_stop_word(w: &str) -> bool {
    STOP_WORDS.binary_search(&w).is_ok()
}

/// Lower-cased alphanumeric words (Unicode-aware), in order, stop words kept.
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for ch in text.chars() {
        if ch.is_alphanumeric() {
            cur.extend(ch.to_lowercase());
        } else if !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// A crude suffix stripper: enough to make "files"/"file", "renaming"/"rename", "sorted"/"sort"
/// meet. Never shortens a word below three characters.
pub fn stem(word: &str) -> String {
    let w = word;
    let n = w.chars().count();
    if n <= 3 || !w.is_ascii() {
        return w.to_owned();
    }
    for (suffix, keep) in [
        ("ations", "ate"),
        ("ation", "ate"),
        ("ing", ""),
        ("ies", "y"),
        ("ied", "y"),
        ("es", ""),
        ("ed", ""),
        ("ly", ""),
        ("er", ""),
        ("s", ""),
        ("e", ""),
    ] {
        if let Some(base) = w.strip_suffix(suffix)
            && base.len() >= 3
            && !(suffix == "s" && base.ends_with('s'))
        {
            return format!("{base}{keep}");
        }
    }
    w.to_owned()
}

/// The words that carry meaning: stop words dropped, unless the text has nothing else ("what can
/// you do?" keeps all its words).
pub fn content_words(text: &str) -> Vec<String> {
    let all = words(text);
    let content: Vec<String> = all.iter().filter(|w| !is_stop_word(w)).cloned().collect();
    if content.is_empty() { all } else { content }
}

/// Content terms: stemmed content words. What BM25 indexes.
pub fn terms(text: &str) -> Vec<String> {
    content_words(text).into_iter().map(|w| stem(&w)).collect()
}

/// FNV-1a, 64 bit: a fixed hash so lexical vectors are identical across runs and machines.
pub fn fnv1a(bytes: &[u8], seed: u64) -> u64 {
    let mut h = 0xcbf2_9ce4_8422_2325u64 ^ seed;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn stemming_meets_inflections() {
        for (a, b) in [
            ("files", "file"),
            ("renaming", "rename"),
            ("sorted", "sort"),
            ("duplicates", "duplicate"),
            ("copies", "copy"),
            ("archives", "archive"),
        ] {
            assert_eq!(stem(a), stem(b), "{a} vs {b}");
        }
        assert_eq!(stem("class"), "class");
    }

    #[test]
    fn terms_drop_stop_words_and_punctuation() {
        assert_eq!(
            terms("Remove the duplicates in ~/Downloads!"),
            ["remov", "duplicat", "download"]
        );
        assert_eq!(words("Größe Ordner"), ["größe", "ordner"]);
        assert_eq!(terms("what can you do?"), ["what", "can", "you", "do"]);
    }
}
