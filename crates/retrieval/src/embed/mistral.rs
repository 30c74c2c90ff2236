//! Embedding models run by mistral.rs (EmbeddingGemma, Qwen3-Embedding) from a local folder, fully
//! offline: an absolute path, no token, CPU, f32.

use std::future::Future;
use std::path::Path;

use mistralrs::{EmbeddingModelBuilder, EmbeddingRequest, Model, ModelDType, TokenSource};

use super::model_dir::{ModelDir, PromptStyle};
use super::{Embedder, Role, normalize};
use crate::{Result, RetrievalError};

/// Architectures (config.json `architectures[0]`) mistral.rs 0.8 embeds.
const SUPPORTED: &[&str] = &["Gemma3TextModel", "Qwen3ForCausalLM", "Qwen3Model"];

/// A mistral.rs embedding model with its own runtime, usable from sync and async callers alike.
pub struct MistralEmbedder {
    model: Model,
    runtime: Option<tokio::runtime::Runtime>,
    prompts: PromptStyle,
    dims: usize,
    fingerprint: String,
}

impl std::fmt::Debug for MistralEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MistralEmbedder")
            .field("fingerprint", &self.fingerprint)
            .finish_non_exhaustive()
    }
}

/// Runs `fut` to completion on `rt` from a scoped thread, so callers inside another runtime
/// (the desktop app) do not trip tokio's nested-runtime check.
fn block_on<F>(rt: &tokio::runtime::Runtime, fut: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    std::thread::scope(|s| {
        s.spawn(|| rt.block_on(fut))
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
    })
}

impl MistralEmbedder {
    pub fn load(path: &Path) -> Result<Self> {
        let dir = ModelDir::open(path)?;
        let config_path = dir.path.join("config.json");
        let arch = dir.architecture().unwrap_or("(none)").to_owned();
        if !SUPPORTED.contains(&arch.as_str()) {
            return Err(RetrievalError::ModelFile {
                path: config_path,
                message: format!(
                    "architecture {arch} is not an embedding model mistral.rs runs (EmbeddingGemma \
                     `Gemma3TextModel`, Qwen3-Embedding `Qwen3ForCausalLM`); sentence-transformers \
                     BERT models use embedding_backend: bert"
                ),
            });
        }
        let dims = dir
            .config
            .get("hidden_size")
            .and_then(serde_json::Value::as_u64)
            .ok_or_else(|| RetrievalError::ModelFile {
                path: config_path.clone(),
                message: "no hidden_size".into(),
            })? as usize;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("mistralrs-embed")
            .enable_all()
            .build()
            .map_err(|e| RetrievalError::Embedding(e.to_string()))?;
        let builder = EmbeddingModelBuilder::new(dir.path.display().to_string())
            .with_token_source(TokenSource::None)
            .with_force_cpu()
            .with_dtype(ModelDType::F32)
            .with_max_num_seqs(8);
        let model = block_on(&runtime, builder.build()).map_err(|e| RetrievalError::ModelFile {
            path: dir.path.clone(),
            message: format!("mistral.rs could not load the model: {e:#}"),
        })?;
        Ok(MistralEmbedder {
            model,
            runtime: Some(runtime),
            prompts: dir.prompts()?,
            dims,
            fingerprint: format!("{}/d{dims}", dir.fingerprint("mistralrs")),
        })
    }
}

impl Drop for MistralEmbedder {
    fn drop(&mut self) {
        // Dropping a runtime inside another runtime panics; shutting down in the background never does.
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Embedder for MistralEmbedder {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>> {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let prefix = match role {
            Role::Query => &self.prompts.query,
            Role::Document => &self.prompts.document,
        };
        // The engine rejects empty input; an empty text embeds as a lone placeholder word.
        let prompts: Vec<String> = texts
            .iter()
            .map(|t| {
                let t = if t.trim().is_empty() { "empty" } else { t };
                format!("{prefix}{t}")
            })
            .collect();
        let request = EmbeddingRequest::builder()
            .add_prompts(prompts)
            .with_truncate_sequence(true);
        let rt = self.runtime.as_ref().expect("runtime lives until drop");
        let mut vectors = block_on(rt, self.model.generate_embeddings(request))
            .map_err(|e| RetrievalError::Embedding(e.to_string()))?;
        for v in &mut vectors {
            if v.len() != self.dims {
                return Err(RetrievalError::Embedding(format!(
                    "model returned {} dimensions, config.json says {}",
                    v.len(),
                    self.dims
                )));
            }
            normalize(v);
        }
        Ok(vectors)
    }
}
