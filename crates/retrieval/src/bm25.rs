//! BM25 (Okapi) keyword index over the same documents as a vector index, keyed by the same ids.
//! Pure in-memory structure; documents come and go one at a time (hot reload, re-indexing).

use std::collections::HashMap;

use crate::text::terms;

const K1: f32 = 1.2;
const B: f32 = 0.75;

#[derive(Debug, Clone, Default)]
struct Doc {
    tf: HashMap<String, u32>,
    len: u32,
}

/// Term statistics of a changing set of documents.
#[derive(Debug, Clone, Default)]
pub struct Bm25Index {
    docs: HashMap<u64, Doc>,
    df: HashMap<String, u32>,
    total_len: u64,
}

impl Bm25Index {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// Adds or replaces the document `key`.
    pub fn insert(&mut self, key: u64, text: &str) {
        self.remove(key);
        let mut tf: HashMap<String, u32> = HashMap::new();
        let mut len = 0;
        for t in terms(text) {
            *tf.entry(t).or_default() += 1;
            len += 1;
        }
        for t in tf.keys() {
            *self.df.entry(t.clone()).or_default() += 1;
        }
        self.total_len += u64::from(len);
        self.docs.insert(key, Doc { tf, len });
    }

    pub fn remove(&mut self, key: u64) {
        if let Some(doc) = self.docs.remove(&key) {
            self.total_len -= u64::from(doc.len);
            for t in doc.tf.keys() {
                if let Some(n) = self.df.get_mut(t) {
                    *n -= 1;
                    if *n == 0 {
                        self.df.remove(t);
                    }
                }
            }
        }
    }

    /// BM25 scores of the documents sharing a term with `query` (others score 0), best first.
    pub fn search(&self, query: &str, filter: impl Fn(u64) -> bool) -> Vec<(u64, f32)> {
        let n = self.docs.len() as f32;
        if n == 0.0 {
            return Vec::new();
        }
        let avg = (self.total_len as f32 / n).max(1.0);
        let mut q = terms(query);
        q.sort();
        q.dedup();
        let idf: Vec<(String, f32)> = q
            .into_iter()
            .filter_map(|t| {
                let df = *self.df.get(&t)? as f32;
                Some((t, ((n - df + 0.5) / (df + 0.5) + 1.0).ln()))
            })
            .collect();
        let mut out: Vec<(u64, f32)> = self
            .docs
            .iter()
            .filter(|(k, _)| filter(**k))
            .filter_map(|(k, d)| {
                let mut s = 0.0;
                for (t, w) in &idf {
                    if let Some(&f) = d.tf.get(t) {
                        let f = f as f32;
                        s += w * f * (K1 + 1.0) / (f + K1 * (1.0 - B + B * d.len as f32 / avg));
                    }
                }
                (s > 0.0).then_some((*k, s))
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_by_rare_terms_and_forgets_removed_docs() {
        let mut ix = Bm25Index::new();
        ix.insert(1, "remove duplicate files, keep one copy");
        ix.insert(2, "sort files into folders by type");
        ix.insert(3, "compress files into a zip archive");
        let hits = ix.search("delete duplicates", |_| true);
        assert_eq!(hits.iter().map(|h| h.0).collect::<Vec<_>>(), [1]);
        let hits = ix.search("files by type", |_| true);
        assert_eq!(hits[0].0, 2);
        ix.remove(2);
        assert!(ix.search("type", |_| true).is_empty());
        ix.insert(1, "zip zip zip");
        assert_eq!(ix.search("duplicate", |_| true), []);
        assert_eq!(
            ix.search("zip", |k| k != 1)
                .iter()
                .map(|h| h.0)
                .collect::<Vec<_>>(),
            [3]
        );
        assert_eq!(ix.len(), 2);
    }
}
