//! BERT-family sentence-transformers models (all-MiniLM-L6-v2, bge-small, e5-small, ...) run with
//! candle: `model.safetensors` + `tokenizer.json` + `config.json` + the pooling config, from a
//! local folder.

use std::path::Path;

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::model_dir::{ModelDir, Pooling, PromptStyle};
use super::{Embedder, Role, normalize};
use crate::{Result, RetrievalError};

const BATCH: usize = 32;

/// A sentence-transformers BERT model on the CPU.
pub struct BertEmbedder {
    model: BertModel,
    tokenizer: Tokenizer,
    pooling: Pooling,
    prompts: PromptStyle,
    dims: usize,
    fingerprint: String,
    device: Device,
}

impl std::fmt::Debug for BertEmbedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BertEmbedder")
            .field("fingerprint", &self.fingerprint)
            .field("pooling", &self.pooling)
            .finish_non_exhaustive()
    }
}

fn model_err(path: &Path, e: impl std::fmt::Display) -> RetrievalError {
    RetrievalError::ModelFile {
        path: path.into(),
        message: e.to_string(),
    }
}

impl BertEmbedder {
    /// Loads the model folder. Errors name the file that is missing or broken.
    pub fn load(path: &Path) -> Result<Self> {
        let dir = ModelDir::open(path)?;
        let config_path = dir.path.join("config.json");
        let config: Config = serde_json::from_value(dir.config.clone())
            .map_err(|e| model_err(&config_path, format!("not a BERT config: {e}")))?;
        let device = Device::Cpu;
        let mut tensors = std::collections::HashMap::new();
        for w in &dir.weights {
            let t = candle_core::safetensors::load(w, &device)
                .map_err(|e| model_err(w, format!("cannot read weights: {e}")))?;
            tensors.extend(t);
        }
        let vb = VarBuilder::from_tensors(tensors, DType::F32, &device);
        let model = BertModel::load(vb, &config).map_err(|e| {
            model_err(
                &dir.weights[0],
                format!("weights do not match config.json: {e}"),
            )
        })?;
        let mut tokenizer = Tokenizer::from_file(&dir.tokenizer)
            .map_err(|e| model_err(&dir.tokenizer, format!("cannot load tokenizer: {e}")))?;
        let pad_id = tokenizer
            .token_to_id("[PAD]")
            .unwrap_or(config.pad_token_id as u32);
        let pad_token = tokenizer
            .id_to_token(pad_id)
            .unwrap_or_else(|| "[PAD]".into());
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            pad_id,
            pad_token,
            ..Default::default()
        }));
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: config.max_position_embeddings.min(512),
                ..Default::default()
            }))
            .map_err(|e| model_err(&dir.tokenizer, e))?;
        let dims = config.hidden_size;
        let fingerprint = format!("{}/d{dims}", dir.fingerprint("bert"));
        Ok(BertEmbedder {
            model,
            tokenizer,
            pooling: dir.pooling()?,
            prompts: dir.prompts()?,
            dims,
            fingerprint,
            device,
        })
    }

    fn forward(&self, texts: &[String]) -> Result<Vec<Vec<f32>>> {
        let fail = |e: &dyn std::fmt::Display| RetrievalError::Embedding(e.to_string());
        let enc = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(|e| fail(&e))?;
        let (b, len) = (enc.len(), enc[0].get_ids().len());
        let flat = |f: &dyn Fn(&tokenizers::Encoding) -> &[u32]| -> Vec<u32> {
            enc.iter().flat_map(|e| f(e).iter().copied()).collect()
        };
        let ids = Tensor::from_vec(flat(&|e| e.get_ids()), (b, len), &self.device)
            .map_err(|e| fail(&e))?;
        let types = Tensor::from_vec(flat(&|e| e.get_type_ids()), (b, len), &self.device)
            .map_err(|e| fail(&e))?;
        let mask = Tensor::from_vec(flat(&|e| e.get_attention_mask()), (b, len), &self.device)
            .map_err(|e| fail(&e))?;
        let run = || -> candle_core::Result<Vec<Vec<f32>>> {
            let out = self.model.forward(&ids, &types, Some(&mask))?;
            let maskf = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
            let pooled = match self.pooling {
                Pooling::Cls => out.narrow(1, 0, 1)?.squeeze(1)?,
                Pooling::Max => {
                    let neg = ((maskf.ones_like()? - &maskf)? * -1e9)?;
                    out.broadcast_add(&neg)?.max(1)?
                }
                Pooling::LastToken => {
                    let lens: Vec<u32> = enc
                        .iter()
                        .map(|e| e.get_attention_mask().iter().sum::<u32>().max(1) - 1)
                        .collect();
                    let rows: Vec<Tensor> = lens
                        .iter()
                        .enumerate()
                        .map(|(i, &l)| out.get(i)?.get(l as usize))
                        .collect::<candle_core::Result<_>>()?;
                    Tensor::stack(&rows, 0)?
                }
                Pooling::Mean => {
                    let sum = out.broadcast_mul(&maskf)?.sum(1)?;
                    let count = maskf.sum(1)?.clamp(1e-9, f64::MAX)?;
                    sum.broadcast_div(&count)?
                }
            };
            pooled.to_vec2::<f32>()
        };
        let mut vectors = run().map_err(|e| fail(&e))?;
        vectors.iter_mut().for_each(|v| normalize(v));
        Ok(vectors)
    }
}

impl Embedder for BertEmbedder {
    fn fingerprint(&self) -> &str {
        &self.fingerprint
    }
    fn dims(&self) -> usize {
        self.dims
    }
    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>> {
        let prefix = match role {
            Role::Query => &self.prompts.query,
            Role::Document => &self.prompts.document,
        };
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            let batch: Vec<String> = batch.iter().map(|t| format!("{prefix}{t}")).collect();
            out.extend(self.forward(&batch)?);
        }
        Ok(out)
    }
}
