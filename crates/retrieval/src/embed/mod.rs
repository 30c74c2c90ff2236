//! The Embedder: one shared instance turns skill descriptions, plan steps and file contents into
//! vectors. Backends: `words` (default: shipped word vectors + lexical features, no download),
//! `lexical` (hashed features only), `mistralrs` (EmbeddingGemma,
//! Qwen3-Embedding), `bert` (sentence-transformers folders via candle).
//!
//! Indexes never own an embedder: they receive vectors. `embed_query` and `embed_document` differ
//! where the model wants prefixes ("query: ..."); every backend is wrapped in [`Matryoshka`]
//! truncation to `embedding_dims` and, through [`CachedEmbedder`], a persistent cache.

#[cfg(feature = "bert")]
mod bert;
mod cache;
mod lexical;
#[cfg(feature = "mistralrs")]
mod mistral;
mod model_dir;
mod words;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use config::{EmbeddingBackend, PipelineConfig};

#[cfg(feature = "bert")]
pub use bert::BertEmbedder;
pub use cache::{CacheStats, CachedEmbedder};
pub use lexical::LexicalEmbedder;
#[cfg(feature = "mistralrs")]
pub use mistral::MistralEmbedder;
pub use model_dir::{ModelDir, PromptStyle};
pub use words::{MEANING_SHARE, WordVectors, WordsEmbedder};

use crate::{Result, RetrievalError};

/// Whether a text is something to find (document) or something to look with (query).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    Query,
    Document,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Query => "query",
            Role::Document => "document",
        }
    }
}

/// Turns texts into L2-normalised vectors of `dims()` floats.
pub trait Embedder: Send + Sync + std::fmt::Debug {
    /// Identifies the model and its output (backend, weights, dims): vectors from different
    /// fingerprints are not comparable, and a changed fingerprint rebuilds the indexes.
    fn fingerprint(&self) -> &str;
    fn dims(&self) -> usize;
    /// One vector per text, in order.
    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>>;

    fn embed_documents(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts, Role::Document)
    }
    fn embed_queries(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
        self.embed(texts, Role::Query)
    }
    fn embed_document(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.embed(&[text], Role::Document)?.remove(0))
    }
    fn embed_query(&self, text: &str) -> Result<Vec<f32>> {
        Ok(self.embed(&[text], Role::Query)?.remove(0))
    }
}

/// Scales `v` to unit length (a zero vector stays zero).
pub fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

/// Cosine similarity of two unit vectors (their dot product).
pub fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Matryoshka truncation: keeps the first `dims` components and re-normalises. Models trained
/// that way (EmbeddingGemma, Qwen3-Embedding) keep most of their quality at a fraction of the size.
/// `dims` larger than the model's output leaves the model's size (there is nothing to pad with).
#[derive(Debug)]
pub struct Matryoshka<E> {
    inner: E,
    dims: usize,
    fingerprint: String,
}

impl<E: Embedder> Matryoshka<E> {
    pub fn new(inner: E, dims: usize) -> Self {
        let dims = dims.clamp(1, inner.dims());
        let fingerprint = if dims == inner.dims() {
            inner.fingerprint().to_owned()
        } else {
            format!("{}|mrl{dims}", inner.fingerprint())
        };
        Matryoshka {
            inner,
            dims,
            fingerprint,
        }
    }
}

impl<E: Embedder> Embedder for Matryoshka<E> {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>> {
        let mut out = self.inner.embed(texts, role)?;
        for v in &mut out {
            v.truncate(self.dims);
            normalize(v);
        }
        Ok(out)
    }
}

/// Where the cache file of an embedder lives under the state directory.
pub fn cache_dir(state_dir: &Path) -> PathBuf {
    state_dir.join("embeddings")
}

/// Builds the configured embedder: backend, Matryoshka truncation, persistent cache under
/// `<state_dir>/embeddings/`. With no model configured this is the embedded default (`words`).
pub fn build_embedder(config: &PipelineConfig) -> Result<Arc<dyn Embedder>> {
    let dims = config.embedding_dims;
    let model_path = || {
        config.embedding_model_path.clone().ok_or_else(|| {
            RetrievalError::Config(format!(
                "embedding_backend is {} but embedding_model_path is not set; point it at a local \
                 model folder, or use embedding_backend: words",
                config.embedding_backend
            ))
        })
    };
    let cache = cache_dir(&config.state_dir());
    Ok(match config.embedding_backend {
        EmbeddingBackend::Words => Arc::new(CachedEmbedder::open(
            Matryoshka::new(WordsEmbedder::new(dims), dims),
            &cache,
        )?),
        EmbeddingBackend::Lexical => Arc::new(CachedEmbedder::open(
            Matryoshka::new(LexicalEmbedder::new(dims), dims),
            &cache,
        )?),
        #[cfg(feature = "bert")]
        EmbeddingBackend::Bert => Arc::new(CachedEmbedder::open(
            Matryoshka::new(BertEmbedder::load(&model_path()?)?, dims),
            &cache,
        )?),
        #[cfg(feature = "mistralrs")]
        EmbeddingBackend::Mistralrs => Arc::new(CachedEmbedder::open(
            Matryoshka::new(MistralEmbedder::load(&model_path()?)?, dims),
            &cache,
        )?),
        #[allow(unreachable_patterns)]
        other => {
            let _ = model_path;
            return Err(RetrievalError::Config(format!(
                "embedding_backend {other} is not available: this build left out the `{other}`                  feature of the retrieval crate"
            )));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matryoshka_truncates_and_renormalises() {
        let e = Matryoshka::new(LexicalEmbedder::new(64), 16);
        assert_eq!(e.dims(), 16);
        assert_eq!(e.fingerprint(), "lexical-v1/d64|mrl16");
        let v = e.embed_document("sort downloads by type").unwrap();
        assert_eq!(v.len(), 16);
        let norm: f32 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4, "{norm}");
        // Larger than the model: the model's size, same fingerprint.
        let e = Matryoshka::new(LexicalEmbedder::new(64), 384);
        assert_eq!((e.dims(), e.fingerprint()), (64, "lexical-v1/d64"));
    }
}
