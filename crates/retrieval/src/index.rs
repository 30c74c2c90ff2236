//! HybridIndex: a VectorStore and a Bm25Index over the same documents, with per-document metadata,
//! hybrid ranking and persistence (`<name>.usearch` + `<name>.json`, tagged with the embedder
//! fingerprint). The SkillIndex and the ContentIndex are both built on it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use config::{CombineMethod, VectorQuantization};
use serde::{Deserialize, Serialize, de::DeserializeOwned};

use crate::bm25::Bm25Index;
use crate::error::io_err;
use crate::hybrid::combine;
use crate::vector::VectorStore;
use crate::{Result, RetrievalError};

/// One indexed document: its metadata and the text BM25 sees.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Doc<M> {
    pub meta: M,
    pub text: String,
}

/// A ranked document with both signals and their mix.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Scored {
    pub key: u64,
    /// The hybrid score in [0, 1].
    pub score: f32,
    /// Cosine similarity of the embeddings.
    pub vector: f32,
    /// Raw BM25 score (0 when no query term occurs).
    pub bm25: f32,
}

/// How to mix the two signals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mix {
    pub method: CombineMethod,
    pub alpha: f32,
}

#[derive(Serialize, Deserialize)]
struct Saved<M> {
    fingerprint: String,
    dims: usize,
    quantization: VectorQuantization,
    next_key: u64,
    docs: BTreeMap<u64, Doc<M>>,
}

/// Vectors + keywords + metadata of one collection.
#[derive(Debug)]
pub struct HybridIndex<M> {
    vectors: VectorStore,
    bm25: Bm25Index,
    docs: BTreeMap<u64, Doc<M>>,
    next_key: u64,
    fingerprint: String,
    quantization: VectorQuantization,
}

impl<M: Clone + Serialize + DeserializeOwned> HybridIndex<M> {
    pub fn new(fingerprint: &str, dims: usize, quantization: VectorQuantization) -> Result<Self> {
        Ok(HybridIndex {
            vectors: VectorStore::new(dims, quantization)?,
            bm25: Bm25Index::new(),
            docs: BTreeMap::new(),
            next_key: 1,
            fingerprint: fingerprint.to_owned(),
            quantization,
        })
    }

    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    pub fn docs(&self) -> impl Iterator<Item = (u64, &Doc<M>)> {
        self.docs.iter().map(|(k, d)| (*k, d))
    }

    pub fn doc(&self, key: u64) -> Option<&Doc<M>> {
        self.docs.get(&key)
    }

    pub fn vectors(&self) -> &VectorStore {
        &self.vectors
    }

    /// Adds a document with its (already computed) vector; returns its key.
    pub fn insert(&mut self, meta: M, text: String, vector: &[f32]) -> Result<u64> {
        let key = self.next_key;
        self.vectors.add(key, vector)?;
        self.next_key += 1;
        self.bm25.insert(key, &text);
        self.docs.insert(key, Doc { meta, text });
        Ok(key)
    }

    /// Removes every document whose metadata matches; returns how many.
    pub fn remove_where(&mut self, pred: impl Fn(&M) -> bool) -> Result<usize> {
        let keys: Vec<u64> = self
            .docs
            .iter()
            .filter(|(_, d)| pred(&d.meta))
            .map(|(k, _)| *k)
            .collect();
        for k in &keys {
            self.vectors.remove(*k)?;
            self.bm25.remove(*k);
            self.docs.remove(k);
        }
        Ok(keys.len())
    }

    /// The `k` best documents for a query (its vector and its text) among those `accept` admits.
    /// Candidates are the union of the nearest vectors and the best BM25 matches; each gets its
    /// exact cosine and raw BM25 score, mixed by `mix`.
    pub fn search(
        &self,
        query_vector: &[f32],
        query_text: &str,
        k: usize,
        mix: Mix,
        accept: impl Fn(&M) -> bool,
    ) -> Result<Vec<Scored>> {
        if self.docs.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let pool = (k * 4).max(32);
        let ok = |key: u64| self.docs.get(&key).is_some_and(|d| accept(&d.meta));
        let dense = self.vectors.search_filtered(query_vector, pool, ok)?;
        let sparse = self.bm25.search(query_text, ok);
        let mut candidates: BTreeMap<u64, (f32, f32)> = BTreeMap::new();
        for (key, cos) in &dense {
            candidates.entry(*key).or_default().0 = *cos;
        }
        for (key, s) in sparse.iter().take(pool) {
            let e = candidates.entry(*key).or_insert_with(|| {
                let cos = self
                    .vectors
                    .get(*key)
                    .map(|v| crate::embed::cosine(&v, query_vector))
                    .unwrap_or(0.0);
                (cos, 0.0)
            });
            e.1 = *s;
        }
        let keys: Vec<u64> = candidates.keys().copied().collect();
        let cos: Vec<f32> = candidates.values().map(|c| c.0).collect();
        let bm: Vec<f32> = candidates.values().map(|c| c.1).collect();
        let scores = combine(mix.method, mix.alpha, &cos, &bm);
        let mut out: Vec<Scored> = keys
            .into_iter()
            .zip(scores)
            .zip(cos.into_iter().zip(bm))
            .map(|((key, score), (vector, bm25))| Scored {
                key,
                score,
                vector,
                bm25,
            })
            .collect();
        out.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.key.cmp(&b.key)));
        out.truncate(k);
        Ok(out)
    }

    fn paths(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
        (
            dir.join(format!("{name}.usearch")),
            dir.join(format!("{name}.json")),
        )
    }

    /// Writes `<dir>/<name>.usearch` and `<dir>/<name>.json` (metadata last), each through a
    /// temp file of this writer's own renamed into place: a crash leaves either the old pair or
    /// a pair the loader rejects and rebuilds, and two processes saving the same index at once
    /// (two `plan` runs after a SKILL.md edit) both succeed.
    pub fn save(&self, dir: &Path, name: &str) -> Result<()> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let (vec_path, meta_path) = Self::paths(dir, name);
        let vec_tmp = temp_beside(&vec_path);
        self.vectors.save(&vec_tmp)?;
        std::fs::rename(&vec_tmp, &vec_path).map_err(io_err(&vec_path))?;
        let saved = Saved {
            fingerprint: self.fingerprint.clone(),
            dims: self.vectors.dims(),
            quantization: self.quantization,
            next_key: self.next_key,
            docs: self.docs.clone(),
        };
        let tmp = temp_beside(&meta_path);
        let json = serde_json::to_vec(&saved).map_err(|e| RetrievalError::Index {
            path: meta_path.clone(),
            message: e.to_string(),
        })?;
        std::fs::write(&tmp, json).map_err(io_err(&tmp))?;
        std::fs::rename(&tmp, &meta_path).map_err(io_err(&meta_path))
    }

    /// Loads a saved index if it exists and was built by the same embedder with the same
    /// dimensions and precision; `Ok(None)` means "rebuild" (missing, stale or unreadable).
    pub fn load(
        dir: &Path,
        name: &str,
        fingerprint: &str,
        dims: usize,
        quantization: VectorQuantization,
    ) -> Result<Option<Self>> {
        let (vec_path, meta_path) = Self::paths(dir, name);
        let Ok(bytes) = std::fs::read(&meta_path) else {
            return Ok(None);
        };
        let Ok(saved) = serde_json::from_slice::<Saved<M>>(&bytes) else {
            return Ok(None);
        };
        if saved.fingerprint != fingerprint
            || saved.dims != dims
            || saved.quantization != quantization
        {
            return Ok(None);
        }
        let Ok(vectors) = VectorStore::load(&vec_path, dims, quantization) else {
            return Ok(None);
        };
        if vectors.len() != saved.docs.len() || saved.docs.keys().any(|k| !vectors.contains(*k)) {
            return Ok(None);
        }
        let mut bm25 = Bm25Index::new();
        for (k, d) in &saved.docs {
            bm25.insert(*k, &d.text);
        }
        Ok(Some(HybridIndex {
            vectors,
            bm25,
            docs: saved.docs,
            next_key: saved.next_key,
            fingerprint: saved.fingerprint,
            quantization,
        }))
    }
}

/// A temp file beside `path` that no other writer uses: this process's id and a counter.
fn temp_beside(path: &Path) -> PathBuf {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.{n}.tmp", std::process::id()));
    path.with_file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: two `plan` runs after a SKILL.md edit rebuilt the skill index at once and
    /// one failed with IO_ERROR, renaming a temp file the other had already moved.
    #[test]
    fn saving_one_index_from_many_writers_at_once_loses_none_and_loads() {
        let dir = tempfile::tempdir().unwrap();
        let mut index: HybridIndex<String> =
            HybridIndex::new("fp", 4, VectorQuantization::F32).unwrap();
        for (i, text) in ["zip the folder", "sort by type", "find duplicates"]
            .iter()
            .enumerate()
        {
            let v = [i as f32 + 1.0, 0.5, 0.25, 1.0];
            index
                .insert((*text).to_owned(), (*text).to_owned(), &v)
                .unwrap();
        }
        std::thread::scope(|scope| {
            for _ in 0..8 {
                scope.spawn(|| index.save(dir.path(), "skills").unwrap());
            }
        });
        let loaded =
            HybridIndex::<String>::load(dir.path(), "skills", "fp", 4, VectorQuantization::F32)
                .unwrap()
                .expect("the saved index loads");
        assert_eq!(loaded.docs.len(), 3);
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temp files left: {left:?}");
    }
}
