//! The model backends on tiny generated models (real formats, real loaders): BERT through candle,
//! Qwen3-Embedding through mistral.rs; clear errors for missing and corrupt folders.

use contracts::ErrorCode;
use retrieval::Embedder;
use retrieval::embed::{BertEmbedder, MistralEmbedder};

fn assert_unit(v: &[f32]) {
    let n: f32 = v.iter().map(|x| x * x).sum();
    assert!((n - 1.0).abs() < 1e-3, "norm² {n}");
}

#[test]
fn bert_folder_loads_and_embeds() {
    let dir = tempfile::tempdir().unwrap();
    tiny_models::write_bert(dir.path(), 32).unwrap();
    let e = BertEmbedder::load(dir.path()).unwrap();
    assert_eq!(e.dims(), 32);
    assert!(e.fingerprint().starts_with("bert:"), "{}", e.fingerprint());
    let v = e
        .embed_documents(&["sort files by type", "remove duplicate photos", ""])
        .unwrap();
    assert_eq!(v.len(), 3);
    v.iter().for_each(|v| assert_unit(v));
    assert_ne!(v[0], v[1]);
    // Batched and single embeddings agree (padding does not leak into the mean).
    let single = e.embed_document("sort files by type").unwrap();
    let diff: f32 = single.iter().zip(&v[0]).map(|(a, b)| (a - b).abs()).sum();
    assert!(diff < 1e-3, "batch vs single differ by {diff}");
    // Prompts from config_sentence_transformers.json make queries differ from documents.
    std::fs::write(
        dir.path().join("config_sentence_transformers.json"),
        r#"{"prompts": {"query": "query: ", "document": "passage: "}}"#,
    )
    .unwrap();
    let e = BertEmbedder::load(dir.path()).unwrap();
    assert_ne!(
        e.embed_query("zip the reports").unwrap(),
        e.embed_document("zip the reports").unwrap()
    );
}

#[test]
fn bert_errors_name_the_broken_file() {
    let dir = tempfile::tempdir().unwrap();
    tiny_models::write_bert(dir.path(), 32).unwrap();
    std::fs::write(dir.path().join("model.safetensors"), b"not safetensors").unwrap();
    let err = BertEmbedder::load(dir.path()).unwrap_err();
    assert_eq!(err.code(), "MODEL_INVALID");
    assert!(err.to_string().contains("model.safetensors"), "{err}");

    tiny_models::write_bert(dir.path(), 32).unwrap();
    std::fs::remove_file(dir.path().join("tokenizer.json")).unwrap();
    let err = BertEmbedder::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("tokenizer.json: missing"), "{err}");

    let err = BertEmbedder::load(&dir.path().join("absent")).unwrap_err();
    assert_eq!(err.code(), "MODEL_NOT_FOUND");
}

#[test]
fn mistralrs_embedding_model_loads_offline_and_embeds() {
    let dir = tempfile::tempdir().unwrap();
    tiny_models::write_qwen3_embedding(dir.path(), 64).unwrap();
    let e = MistralEmbedder::load(dir.path()).unwrap();
    assert_eq!(e.dims(), 64);
    let v = e
        .embed_documents(&["sort files by type", "remove duplicate photos", ""])
        .unwrap();
    assert_eq!(v.len(), 3);
    v.iter().for_each(|v| assert_unit(v));
    assert_ne!(v[0], v[1]);
    assert_eq!(v[0], e.embed_document("sort files by type").unwrap());
    // Qwen3 models get an instruction in front of queries.
    assert_ne!(
        e.embed_query("sort files by type").unwrap(),
        e.embed_document("sort files by type").unwrap()
    );
    // Usable from inside another tokio runtime (the desktop app's situation).
    let rt = tokio::runtime::Runtime::new().unwrap();
    let inside = rt.block_on(async { e.embed_document("sort files by type").unwrap() });
    assert_eq!(inside, v[0]);
}

#[test]
fn mistralrs_refuses_what_it_cannot_run() {
    let dir = tempfile::tempdir().unwrap();
    tiny_models::write_bert(dir.path(), 32).unwrap();
    let err = MistralEmbedder::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("embedding_backend: bert"), "{err}");
    let err = MistralEmbedder::load(&dir.path().join("nope")).unwrap_err();
    assert_eq!(err.code(), "MODEL_NOT_FOUND");
}
