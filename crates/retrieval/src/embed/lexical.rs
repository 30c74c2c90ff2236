//! The default embedder: deterministic hashed features (stemmed words, word pairs, character
//! n-grams) folded into a fixed number of dimensions. No model, no download, same vector on every
//! machine; character n-grams make it tolerant of typos ("remvoe duplcates").

use super::{Embedder, Role, normalize};
use crate::Result;
use crate::text::{content_words, fnv1a, stem};

const WORD_WEIGHT: f32 = 1.0;
const PAIR_WEIGHT: f32 = 0.5;
const GRAM_WEIGHT: f32 = 0.3;

/// Hashed bag of words + character n-grams ("feature hashing" with a sign bit).
#[derive(Debug, Clone)]
pub struct LexicalEmbedder {
    dims: usize,
    fingerprint: String,
}

impl LexicalEmbedder {
    pub fn new(dims: usize) -> Self {
        let dims = dims.max(8);
        LexicalEmbedder {
            dims,
            fingerprint: format!("lexical-v1/d{dims}"),
        }
    }

    fn add(&self, v: &mut [f32], feature: &str, kind: u64, weight: f32) {
        let h = fnv1a(feature.as_bytes(), kind);
        let sign = if h >> 63 == 1 { -1.0 } else { 1.0 };
        v[(h % self.dims as u64) as usize] += sign * weight;
    }

    /// The vector of one text. Queries and documents are embedded alike.
    pub fn vector(&self, text: &str) -> Vec<f32> {
        let mut v = vec![0.0f32; self.dims];
        let content = content_words(text);
        let mut prev: Option<String> = None;
        for w in &content {
            let s = stem(w);
            self.add(&mut v, &s, 1, WORD_WEIGHT);
            if let Some(p) = &prev {
                self.add(&mut v, &format!("{p} {s}"), 2, PAIR_WEIGHT);
            }
            let padded: Vec<char> = format!("<{w}>").chars().collect();
            for n in [3usize, 4] {
                for gram in padded.windows(n) {
                    let g: String = gram.iter().collect();
                    self.add(&mut v, &g, 3 + n as u64, GRAM_WEIGHT);
                }
            }
            prev = Some(s);
        }
        normalize(&mut v);
        v
    }
}

impl Embedder for LexicalEmbedder {
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
    fn deterministic_and_normalised() {
        let e = LexicalEmbedder::new(384);
        let a = e.vector("Remove duplicate photos");
        assert_eq!(a, e.vector("Remove duplicate photos"));
        let norm: f32 = a.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-5);
        assert!(e.vector("!?").iter().all(|x| *x == 0.0));
        assert!(e.vector("what can you do").iter().any(|x| *x != 0.0));
    }

    #[test]
    fn typos_stay_close_unrelated_texts_do_not() {
        let e = LexicalEmbedder::new(384);
        let clean = e.vector("remove duplicates");
        let typo = e.vector("remvoe duplcates");
        let other = e.vector("compress the photos into a zip archive");
        let (near, far) = (cosine(&clean, &typo), cosine(&clean, &other));
        assert!(near > 0.3, "typo similarity {near}");
        assert!(far < 0.15, "unrelated similarity {far}");
    }
}
