//! Reading a local model folder: which files exist, what the configs say, which prompts the model
//! wants for queries and documents. Every problem names the file it is about.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::{Result, RetrievalError};

/// A checked local model folder (never a hub id).
#[derive(Debug, Clone)]
pub struct ModelDir {
    pub path: PathBuf,
    /// `config.json`, parsed.
    pub config: Value,
    /// Safetensors weight files, in shard order.
    pub weights: Vec<PathBuf>,
    pub tokenizer: PathBuf,
}

/// What to put in front of a text before embedding it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PromptStyle {
    pub query: String,
    pub document: String,
}

impl ModelDir {
    /// Checks that `path` is an existing folder with `config.json`, `tokenizer.json` and
    /// safetensors weights. Relative paths are made absolute (a relative id would look like a hub
    /// id to some loaders).
    pub fn open(path: &Path) -> Result<ModelDir> {
        let path = std::path::absolute(path).map_err(|e| RetrievalError::Io {
            path: path.into(),
            source: e,
        })?;
        if !path.is_dir() {
            return Err(RetrievalError::ModelMissing { path });
        }
        let config_path = path.join("config.json");
        let config = read_json(&config_path)?;
        let tokenizer = path.join("tokenizer.json");
        if !tokenizer.is_file() {
            return Err(RetrievalError::ModelFile {
                path: tokenizer,
                message: "missing: the model folder needs its tokenizer.json".into(),
            });
        }
        let mut weights: Vec<PathBuf> = std::fs::read_dir(&path)
            .map_err(|e| RetrievalError::Io {
                path: path.clone(),
                source: e,
            })?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                    n == "model.safetensors"
                        || (n.starts_with("model-") && n.ends_with(".safetensors"))
                })
            })
            .collect();
        weights.sort();
        if weights.is_empty() {
            return Err(RetrievalError::ModelFile {
                path: path.join("model.safetensors"),
                message: "missing: no model.safetensors (or model-0000N-of-0000M.safetensors) \
                          in the model folder"
                    .into(),
            });
        }
        Ok(ModelDir {
            path,
            config,
            weights,
            tokenizer,
        })
    }

    /// A short identity of the folder: its config, tokenizer and the sizes of its weights.
    pub fn fingerprint(&self, backend: &str) -> String {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(self.config.to_string());
        for f in std::iter::once(&self.tokenizer).chain(&self.weights) {
            let len = std::fs::metadata(f).map(|m| m.len()).unwrap_or(0);
            h.update(
                f.file_name()
                    .map(|n| n.as_encoded_bytes())
                    .unwrap_or_default(),
            );
            h.update(len.to_le_bytes());
        }
        let hash: String = h
            .finalize()
            .iter()
            .take(6)
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("{backend}:{name}@{hash}")
    }

    /// The first entry of `architectures` in config.json.
    pub fn architecture(&self) -> Option<&str> {
        self.config.get("architectures")?.get(0)?.as_str()
    }

    /// Optional JSON file inside the folder (`None` if absent, an error if unreadable or invalid).
    pub fn optional_json(&self, relative: &str) -> Result<Option<Value>> {
        let p = self.path.join(relative);
        if !p.exists() {
            return Ok(None);
        }
        read_json(&p).map(Some)
    }

    /// Sentence-transformers pooling (`1_Pooling/config.json`, or the folder `modules.json` names).
    pub fn pooling(&self) -> Result<Pooling> {
        let mut dir = "1_Pooling".to_owned();
        if let Some(Value::Array(modules)) = self.optional_json("modules.json")? {
            for m in modules {
                if m.get("type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t.ends_with("Pooling"))
                    && let Some(p) = m.get("path").and_then(Value::as_str)
                {
                    dir = p.to_owned();
                }
            }
        }
        let Some(cfg) = self.optional_json(&format!("{dir}/config.json"))? else {
            return Ok(Pooling::Mean);
        };
        let on = |k: &str| cfg.get(k).and_then(Value::as_bool).unwrap_or(false);
        Ok(if on("pooling_mode_cls_token") {
            Pooling::Cls
        } else if on("pooling_mode_lasttoken") {
            Pooling::LastToken
        } else if on("pooling_mode_max_tokens") {
            Pooling::Max
        } else {
            Pooling::Mean
        })
    }

    /// Query/document prompts: `config_sentence_transformers.json`'s `prompts` if present, else
    /// the documented ones for known model families, else none.
    pub fn prompts(&self) -> Result<PromptStyle> {
        let mut style = match self.architecture() {
            Some("Gemma3TextModel") => PromptStyle {
                query: "task: search result | query: ".into(),
                document: "title: none | text: ".into(),
            },
            Some(a) if a.starts_with("Qwen3") => PromptStyle {
                query: "Instruct: Given a request, retrieve the tool or file that fulfils it\n\
                        Query:"
                    .into(),
                document: String::new(),
            },
            _ => PromptStyle::default(),
        };
        if let Some(st) = self.optional_json("config_sentence_transformers.json")?
            && let Some(prompts) = st.get("prompts").and_then(Value::as_object)
        {
            if let Some(q) = prompts.get("query").and_then(Value::as_str) {
                style.query = q.to_owned();
            }
            for k in ["document", "passage", "Retrieval-document"] {
                if let Some(d) = prompts.get(k).and_then(Value::as_str) {
                    style.document = d.to_owned();
                    break;
                }
            }
        }
        Ok(style)
    }
}

/// How token vectors become one sentence vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pooling {
    Mean,
    Cls,
    Max,
    LastToken,
}

fn read_json(path: &Path) -> Result<Value> {
    let text = std::fs::read_to_string(path).map_err(|e| RetrievalError::ModelFile {
        path: path.into(),
        message: if e.kind() == std::io::ErrorKind::NotFound {
            "missing: the model folder needs this file".into()
        } else {
            e.to_string()
        },
    })?;
    serde_json::from_str(&text).map_err(|e| RetrievalError::ModelFile {
        path: path.into(),
        message: format!("not valid JSON: {e}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use contracts::ErrorCode;

    #[test]
    fn missing_and_corrupt_folders_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let err = ModelDir::open(&dir.path().join("nope")).unwrap_err();
        assert_eq!(err.code(), "MODEL_NOT_FOUND");
        let err = ModelDir::open(dir.path()).unwrap_err();
        assert!(err.to_string().contains("config.json: missing"), "{err}");
        std::fs::write(dir.path().join("config.json"), "{not json").unwrap();
        let err = ModelDir::open(dir.path()).unwrap_err();
        assert_eq!(err.code(), "MODEL_INVALID");
        assert!(
            err.to_string().contains("config.json: not valid JSON"),
            "{err}"
        );
        std::fs::write(dir.path().join("config.json"), "{}").unwrap();
        let err = ModelDir::open(dir.path()).unwrap_err();
        assert!(err.to_string().contains("tokenizer.json: missing"), "{err}");
        std::fs::write(dir.path().join("tokenizer.json"), "{}").unwrap();
        let err = ModelDir::open(dir.path()).unwrap_err();
        assert!(
            err.to_string().contains("model.safetensors: missing"),
            "{err}"
        );
    }
}
