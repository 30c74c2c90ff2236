//! VectorStore: an approximate nearest-neighbour index (usearch HNSW, cosine) of unit vectors keyed
//! by u64. Stores f32 by default, f16 or i8 when configured. Persisted as one usearch file.

use std::path::Path;

use config::VectorQuantization;
use usearch::{Index, IndexOptions, MetricKind, ScalarKind};

use crate::{Result, RetrievalError};

/// A usearch index with the bookkeeping the crate needs (capacity growth, errors with paths).
pub struct VectorStore {
    index: Index,
    dims: usize,
    quantization: VectorQuantization,
}

impl std::fmt::Debug for VectorStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorStore")
            .field("dims", &self.dims)
            .field("quantization", &self.quantization)
            .field("len", &self.len())
            .finish()
    }
}

fn index_err(path: &Path, e: impl std::fmt::Display) -> RetrievalError {
    RetrievalError::Index {
        path: path.into(),
        message: e.to_string(),
    }
}

fn options(dims: usize, quantization: VectorQuantization) -> IndexOptions {
    IndexOptions {
        dimensions: dims,
        metric: MetricKind::Cos,
        quantization: match quantization {
            VectorQuantization::F32 => ScalarKind::F32,
            VectorQuantization::F16 => ScalarKind::F16,
            VectorQuantization::I8 => ScalarKind::I8,
        },
        connectivity: 16,
        expansion_add: 128,
        expansion_search: 64,
        multi: false,
    }
}

impl VectorStore {
    pub fn new(dims: usize, quantization: VectorQuantization) -> Result<Self> {
        let index = Index::new(&options(dims, quantization))
            .map_err(|e| index_err(Path::new("(memory)"), e))?;
        Ok(VectorStore {
            index,
            dims,
            quantization,
        })
    }

    /// Loads a saved index; refuses one whose dimensions or precision differ.
    pub fn load(path: &Path, dims: usize, quantization: VectorQuantization) -> Result<Self> {
        let store = VectorStore::new(dims, quantization)?;
        let p = path
            .to_str()
            .ok_or_else(|| index_err(path, "path is not UTF-8"))?;
        store.index.load(p).map_err(|e| index_err(path, e))?;
        if store.index.dimensions() != dims {
            return Err(index_err(
                path,
                format!(
                    "has {} dimensions, expected {dims}",
                    store.index.dimensions()
                ),
            ));
        }
        Ok(store)
    }

    pub fn save(&self, path: &Path) -> Result<()> {
        let p = path
            .to_str()
            .ok_or_else(|| index_err(path, "path is not UTF-8"))?;
        self.index.save(p).map_err(|e| index_err(path, e))
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn len(&self) -> usize {
        self.index.size()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the index occupies in memory.
    pub fn memory_usage(&self) -> usize {
        self.index.memory_usage()
    }

    pub fn contains(&self, key: u64) -> bool {
        self.index.contains(key)
    }

    /// Adds or replaces the vector of `key`.
    pub fn add(&mut self, key: u64, vector: &[f32]) -> Result<()> {
        if vector.len() != self.dims {
            return Err(RetrievalError::Embedding(format!(
                "vector has {} dimensions, the index {}",
                vector.len(),
                self.dims
            )));
        }
        if self.index.contains(key) {
            self.remove(key)?;
        }
        if self.index.size() + 1 > self.index.capacity() {
            let grow = (self.index.capacity() * 2).max(64);
            self.index
                .reserve(grow)
                .map_err(|e| index_err(Path::new("(memory)"), e))?;
        }
        self.index
            .add(key, vector)
            .map_err(|e| index_err(Path::new("(memory)"), e))
    }

    /// Reserves room for `n` vectors in total (faster bulk adds).
    pub fn reserve(&mut self, n: usize) -> Result<()> {
        if n > self.index.capacity() {
            self.index
                .reserve(n)
                .map_err(|e| index_err(Path::new("(memory)"), e))?;
        }
        Ok(())
    }

    pub fn remove(&mut self, key: u64) -> Result<()> {
        self.index
            .remove(key)
            .map(drop)
            .map_err(|e| index_err(Path::new("(memory)"), e))
    }

    /// The stored vector of `key` (after quantization).
    pub fn get(&self, key: u64) -> Option<Vec<f32>> {
        let mut buf = vec![0.0f32; self.dims];
        match self.index.get(key, &mut buf) {
            Ok(n) if n > 0 => Some(buf),
            _ => None,
        }
    }

    /// The `k` nearest keys with their cosine similarity, best first.
    pub fn search(&self, query: &[f32], k: usize) -> Result<Vec<(u64, f32)>> {
        if self.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let m = self
            .index
            .search(query, k)
            .map_err(|e| index_err(Path::new("(memory)"), e))?;
        Ok(m.keys
            .into_iter()
            .zip(m.distances)
            .map(|(k, d)| (k, 1.0 - d))
            .collect())
    }

    /// The `k` nearest keys among those `filter` accepts.
    pub fn search_filtered(
        &self,
        query: &[f32],
        k: usize,
        filter: impl Fn(u64) -> bool,
    ) -> Result<Vec<(u64, f32)>> {
        if self.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let m = self
            .index
            .filtered_search(query, k, filter)
            .map_err(|e| index_err(Path::new("(memory)"), e))?;
        Ok(m.keys
            .into_iter()
            .zip(m.distances)
            .map(|(k, d)| (k, 1.0 - d))
            .collect())
    }

    /// Exact search (every vector compared): the reference for recall measurements.
    pub fn exact_search(&self, query: &[f32], k: usize) -> Result<Vec<(u64, f32)>> {
        if self.is_empty() || k == 0 {
            return Ok(Vec::new());
        }
        let m = self
            .index
            .exact_search(query, k)
            .map_err(|e| index_err(Path::new("(memory)"), e))?;
        Ok(m.keys
            .into_iter()
            .zip(m.distances)
            .map(|(k, d)| (k, 1.0 - d))
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::{Embedder, LexicalEmbedder};

    #[test]
    fn finds_nearest_replaces_removes_and_round_trips() {
        let e = LexicalEmbedder::new(64);
        let texts = [
            "sort files by type",
            "remove duplicate photos",
            "zip the reports",
        ];
        for q in VectorQuantization::ALL {
            let mut s = VectorStore::new(64, *q).unwrap();
            for (i, t) in texts.iter().enumerate() {
                s.add(i as u64, &e.embed_document(t).unwrap()).unwrap();
            }
            let hits = s
                .search(&e.embed_query("duplicate photos").unwrap(), 2)
                .unwrap();
            assert_eq!(hits[0].0, 1, "{q}");
            assert!(hits[0].1 > 0.5, "{q}: {hits:?}");
            s.add(1, &e.embed_document("compress folders").unwrap())
                .unwrap();
            assert_eq!(s.len(), 3);
            s.remove(2).unwrap();
            assert_eq!(s.len(), 2);
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("x.usearch");
            s.save(&path).unwrap();
            let back = VectorStore::load(&path, 64, *q).unwrap();
            assert_eq!(back.len(), 2);
            assert!(back.contains(1) && !back.contains(2));
            assert!(VectorStore::load(&path, 32, *q).is_err());
        }
        let mut s = VectorStore::new(64, VectorQuantization::F32).unwrap();
        assert!(s.add(1, &[1.0; 3]).is_err());
    }
}
