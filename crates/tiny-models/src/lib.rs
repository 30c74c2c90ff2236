//! Tiny random-weight models in real formats for tests: a sentence-transformers BERT folder (for
//! candle), a Qwen3-Embedding-style folder and a Llama chat text model (both for mistral.rs).
//! Weights are deterministic pseudo-random numbers; tokenizers and configs are what the real
//! loaders expect.
//! See `shared/notes/tiny-models.md` for the recipes and their pitfalls.

use std::collections::BTreeMap;
use std::path::Path;

use safetensors::{Dtype, tensor::TensorView};
use serde_json::{Value, json};

/// A deterministic xorshift generator: the same model bytes on every run.
#[derive(Debug)]
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

/// Tensors by name, as f32 little-endian bytes with shapes.
#[derive(Debug, Default)]
struct Weights {
    tensors: BTreeMap<String, (Vec<usize>, Vec<u8>)>,
}

impl Weights {
    fn random(&mut self, rng: &mut Rng, name: &str, shape: &[usize], scale: f32) {
        let n: usize = shape.iter().product();
        let bytes = (0..n)
            .flat_map(|_| (rng.next() * scale).to_le_bytes())
            .collect();
        self.tensors
            .insert(name.to_owned(), (shape.to_vec(), bytes));
    }

    fn constant(&mut self, name: &str, shape: &[usize], value: f32) {
        let n: usize = shape.iter().product();
        let bytes = (0..n).flat_map(|_| value.to_le_bytes()).collect();
        self.tensors
            .insert(name.to_owned(), (shape.to_vec(), bytes));
    }

    fn write(&self, path: &Path) -> std::io::Result<()> {
        let views: Vec<(String, TensorView<'_>)> = self
            .tensors
            .iter()
            .map(|(n, (shape, bytes))| {
                let view =
                    TensorView::new(Dtype::F32, shape.clone(), bytes).expect("shape matches bytes");
                (n.clone(), view)
            })
            .collect();
        safetensors::serialize_to_file(views, None, path).map_err(std::io::Error::other)
    }
}

fn write_json(path: &Path, value: &Value) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, serde_json::to_vec_pretty(value)?)
}

fn added(id: usize, content: &str) -> Value {
    json!({"id": id, "content": content, "single_word": false, "lstrip": false, "rstrip": false,
           "normalized": false, "special": true})
}

/// Words the tiny BERT vocabulary knows whole; everything else is spelled with letter pieces.
const BERT_WORDS: &[&str] = &[
    "file",
    "files",
    "folder",
    "sort",
    "remove",
    "delete",
    "duplicate",
    "duplicates",
    "zip",
    "archive",
    "rename",
    "search",
    "find",
    "type",
    "photos",
    "downloads",
    "by",
    "the",
    "in",
    "into",
    "and",
    "to",
    "of",
    "a",
];

/// Writes a sentence-transformers BERT folder (config.json, tokenizer.json, model.safetensors,
/// modules.json, 1_Pooling/config.json) with `hidden` dimensions into `dir`.
pub fn write_bert(dir: &Path, hidden: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut vocab: Vec<String> = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for c in ('a'..='z').chain('0'..='9') {
        vocab.push(c.to_string());
        vocab.push(format!("##{c}"));
    }
    for p in ".,!?'\"-_/~():;".chars() {
        vocab.push(p.to_string());
    }
    vocab.extend(BERT_WORDS.iter().map(|w| w.to_string()));
    let vocab_map: serde_json::Map<String, Value> = vocab
        .iter()
        .enumerate()
        .map(|(i, t)| (t.clone(), json!(i)))
        .collect();
    let special = |t: &str, id: usize| json!({"id": t, "ids": [id], "tokens": [t]});
    write_json(
        &dir.join("tokenizer.json"),
        &json!({
            "version": "1.0", "truncation": null, "padding": null,
            "added_tokens": (0..5).map(|i| added(i, &vocab[i])).collect::<Vec<_>>(),
            "normalizer": {"type": "BertNormalizer", "clean_text": true,
                           "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
            "pre_tokenizer": {"type": "BertPreTokenizer"},
            "post_processor": {"type": "TemplateProcessing",
                "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                           {"Sequence": {"id": "A", "type_id": 0}},
                           {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                         {"Sequence": {"id": "A", "type_id": 0}},
                         {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                         {"Sequence": {"id": "B", "type_id": 1}},
                         {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                "special_tokens": {"[CLS]": special("[CLS]", 2), "[SEP]": special("[SEP]", 3)}},
            "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": true},
            "model": {"type": "WordPiece", "unk_token": "[UNK]",
                      "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
                      "vocab": vocab_map},
        }),
    )?;
    let (layers, inter, positions) = (2, hidden * 2, 128);
    write_json(
        &dir.join("config.json"),
        &json!({
            "architectures": ["BertModel"], "model_type": "bert",
            "vocab_size": vocab.len(), "hidden_size": hidden, "num_hidden_layers": layers,
            "num_attention_heads": 4, "intermediate_size": inter, "hidden_act": "gelu",
            "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
            "max_position_embeddings": positions, "type_vocab_size": 2,
            "initializer_range": 0.02, "layer_norm_eps": 1e-12, "pad_token_id": 0,
            "position_embedding_type": "absolute",
        }),
    )?;
    write_json(
        &dir.join("modules.json"),
        &json!([
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
        ]),
    )?;
    write_json(
        &dir.join("1_Pooling/config.json"),
        &pooling(hidden, "pooling_mode_mean_tokens"),
    )?;
    std::fs::create_dir_all(dir.join("2_Normalize"))?;
    let mut rng = Rng(0x5eed_ba5e_0000_0001);
    let mut w = Weights::default();
    let v = vocab.len();
    w.random(
        &mut rng,
        "embeddings.word_embeddings.weight",
        &[v, hidden],
        0.5,
    );
    w.random(
        &mut rng,
        "embeddings.position_embeddings.weight",
        &[positions, hidden],
        0.05,
    );
    w.random(
        &mut rng,
        "embeddings.token_type_embeddings.weight",
        &[2, hidden],
        0.05,
    );
    w.constant("embeddings.LayerNorm.weight", &[hidden], 1.0);
    w.constant("embeddings.LayerNorm.bias", &[hidden], 0.0);
    for l in 0..layers {
        let p = format!("encoder.layer.{l}");
        for (name, out, inp) in [
            ("attention.self.query", hidden, hidden),
            ("attention.self.key", hidden, hidden),
            ("attention.self.value", hidden, hidden),
            ("attention.output.dense", hidden, hidden),
            ("intermediate.dense", inter, hidden),
            ("output.dense", hidden, inter),
        ] {
            w.random(&mut rng, &format!("{p}.{name}.weight"), &[out, inp], 0.2);
            w.constant(&format!("{p}.{name}.bias"), &[out], 0.0);
        }
        for ln in ["attention.output.LayerNorm", "output.LayerNorm"] {
            w.constant(&format!("{p}.{ln}.weight"), &[hidden], 1.0);
            w.constant(&format!("{p}.{ln}.bias"), &[hidden], 0.0);
        }
    }
    w.write(&dir.join("model.safetensors"))
}

fn pooling(hidden: usize, mode: &str) -> Value {
    let mut cfg = json!({
        "word_embedding_dimension": hidden,
        "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": false,
        "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false,
        "pooling_mode_weightedmean_tokens": false, "pooling_mode_lasttoken": false,
        "include_prompt": true,
    });
    cfg[mode] = json!(true);
    cfg
}

/// GPT-2's byte → printable character table used by byte-level BPE.
fn byte_chars() -> Vec<char> {
    let mut printable: Vec<u32> = (b'!' as u32..=b'~' as u32)
        .chain(0xA1..=0xAC)
        .chain(0xAE..=0xFF)
        .collect();
    let mut chars: Vec<u32> = printable.clone();
    let mut n = 0;
    for b in 0..256u32 {
        if !printable.contains(&b) {
            printable.push(b);
            chars.push(256 + n);
            n += 1;
        }
    }
    let mut table = vec!['\0'; 256];
    for (b, c) in printable.into_iter().zip(chars) {
        table[b as usize] = char::from_u32(c).expect("valid char");
    }
    table
}

/// A byte-level BPE tokenizer: the 256 byte characters plus `<|endoftext|>`, `<|im_start|>`,
/// `<|im_end|>`; a post-processor appends `<|endoftext|>` when `append_eos`.
pub fn byte_level_tokenizer(append_eos: bool) -> (Value, usize) {
    let chars = byte_chars();
    let mut vocab = serde_json::Map::new();
    for (i, c) in chars.iter().enumerate() {
        vocab.insert(c.to_string(), json!(i));
    }
    let specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"];
    let post = if append_eos {
        json!({"type": "TemplateProcessing",
            "single": [{"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}],
            "pair": [{"Sequence": {"id": "A", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "<|endoftext|>", "type_id": 1}}],
            "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [256],
                                                  "tokens": ["<|endoftext|>"]}}})
    } else {
        Value::Null
    };
    let byte_level = json!({"type": "ByteLevel", "add_prefix_space": false,
                            "trim_offsets": true, "use_regex": true});
    (
        json!({
            "version": "1.0", "truncation": null, "padding": null,
            "added_tokens": specials.iter().enumerate().map(|(i, s)| added(256 + i, s)).collect::<Vec<_>>(),
            "normalizer": null,
            "pre_tokenizer": byte_level,
            "post_processor": post,
            "decoder": byte_level,
            "model": {"type": "BPE", "dropout": null, "unk_token": null,
                      "continuing_subword_prefix": null, "end_of_word_suffix": null,
                      "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
                      "vocab": vocab, "merges": []},
        }),
        256 + specials.len(),
    )
}

/// Writes a Qwen3-Embedding-style folder (config, byte-level tokenizer that appends
/// `<|endoftext|>`, last-token pooling, weights without the `model.` prefix) with `hidden` dims.
pub fn write_qwen3_embedding(dir: &Path, hidden: usize) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let (tokenizer, vocab) = byte_level_tokenizer(true);
    write_json(&dir.join("tokenizer.json"), &tokenizer)?;
    write_json(
        &dir.join("tokenizer_config.json"),
        &json!({"eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
                "model_max_length": 512}),
    )?;
    let (layers, heads, kv_heads, head_dim, inter) = (2, 4, 2, hidden / 4, hidden * 2);
    write_json(
        &dir.join("config.json"),
        &json!({
            "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3",
            "vocab_size": vocab, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads,
            "num_key_value_heads": kv_heads, "head_dim": head_dim, "hidden_act": "silu",
            "max_position_embeddings": 512, "rms_norm_eps": 1e-6, "rope_theta": 10000.0,
            "tie_word_embeddings": true, "sliding_window": null, "max_window_layers": layers,
            "use_sliding_window": false, "attention_bias": false, "torch_dtype": "float32",
            "bos_token_id": 256, "eos_token_id": 256,
        }),
    )?;
    write_json(
        &dir.join("modules.json"),
        &json!([
            {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
            {"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"},
        ]),
    )?;
    write_json(
        &dir.join("1_Pooling/config.json"),
        &pooling(hidden, "pooling_mode_lasttoken"),
    )?;
    std::fs::create_dir_all(dir.join("2_Normalize"))?;
    let mut rng = Rng(0x5eed_ba5e_0000_0002);
    let mut w = Weights::default();
    w.random(&mut rng, "embed_tokens.weight", &[vocab, hidden], 0.5);
    for l in 0..layers {
        let p = format!("layers.{l}");
        for (name, out, inp) in [
            ("self_attn.q_proj", heads * head_dim, hidden),
            ("self_attn.k_proj", kv_heads * head_dim, hidden),
            ("self_attn.v_proj", kv_heads * head_dim, hidden),
            ("self_attn.o_proj", hidden, heads * head_dim),
            ("mlp.gate_proj", inter, hidden),
            ("mlp.up_proj", inter, hidden),
            ("mlp.down_proj", hidden, inter),
        ] {
            w.random(&mut rng, &format!("{p}.{name}.weight"), &[out, inp], 0.2);
        }
        w.constant(&format!("{p}.self_attn.q_norm.weight"), &[head_dim], 1.0);
        w.constant(&format!("{p}.self_attn.k_norm.weight"), &[head_dim], 1.0);
        w.constant(&format!("{p}.input_layernorm.weight"), &[hidden], 1.0);
        w.constant(
            &format!("{p}.post_attention_layernorm.weight"),
            &[hidden],
            1.0,
        );
    }
    w.constant("norm.weight", &[hidden], 1.0);
    w.write(&dir.join("model.safetensors"))
}

/// The id of `<|endoftext|>` in [`byte_level_tokenizer`]: the first token after the 256 bytes.
const ENDOFTEXT_ID: usize = 256;

/// ChatML (the Qwen chat format): `<|im_start|>{role}\n{content}<|im_end|>\n` per message, then
/// `<|im_start|>assistant\n` when a generation prompt is asked for.
const CHATML_TEMPLATE: &str = concat!(
    "{% for message in messages %}",
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}",
    "{% endfor %}",
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}",
);

/// Context length of [`write_llama`]: with one token per byte the planner prompt is ~4–5k tokens,
/// and random weights write long strings.
pub const LLAMA_MAX_POSITIONS: usize = 16384;

/// Writes a tiny random-weight Llama chat model (`LlamaForCausalLM`: 64 hidden, 2 layers, 4 heads,
/// 2 KV heads, F32) that mistral.rs loads as a plain text model: config.json, model.safetensors,
/// tokenizer.json (byte-level BPE, no post-processor, `vocab_size` exactly its size so a grammar
/// can mask every id), tokenizer_config.json with a ChatML template and `<|endoftext|>` as EOS,
/// generation_config.json. For tests of the LLM planner: its output is noise, so use it with
/// constrained (JSON Schema) decoding, where every completion still parses.
pub fn write_llama(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let (tokenizer, vocab) = byte_level_tokenizer(false);
    write_json(&dir.join("tokenizer.json"), &tokenizer)?;
    write_json(
        &dir.join("tokenizer_config.json"),
        &json!({"chat_template": CHATML_TEMPLATE, "eos_token": "<|endoftext|>",
                "pad_token": "<|endoftext|>", "add_bos_token": false, "add_eos_token": false,
                "model_max_length": LLAMA_MAX_POSITIONS, "clean_up_tokenization_spaces": false}),
    )?;
    let (hidden, layers, heads, kv_heads, inter) = (64, 2, 4, 2, 128);
    let head_dim = hidden / heads;
    write_json(
        &dir.join("config.json"),
        &json!({
            "architectures": ["LlamaForCausalLM"], "model_type": "llama",
            "vocab_size": vocab, "hidden_size": hidden, "intermediate_size": inter,
            "num_hidden_layers": layers, "num_attention_heads": heads,
            "num_key_value_heads": kv_heads, "hidden_act": "silu",
            "max_position_embeddings": LLAMA_MAX_POSITIONS, "rms_norm_eps": 1e-5,
            "rope_theta": 10000.0, "rope_scaling": null, "tie_word_embeddings": false,
            "attention_bias": false, "mlp_bias": false, "torch_dtype": "float32",
            "bos_token_id": ENDOFTEXT_ID, "eos_token_id": ENDOFTEXT_ID,
        }),
    )?;
    write_json(
        &dir.join("generation_config.json"),
        &json!({"bos_token_id": ENDOFTEXT_ID, "eos_token_id": ENDOFTEXT_ID,
                "pad_token_id": ENDOFTEXT_ID}),
    )?;
    let mut rng = Rng(0x5eed_ba5e_0000_0003);
    let mut w = Weights::default();
    w.random(&mut rng, "model.embed_tokens.weight", &[vocab, hidden], 0.5);
    for l in 0..layers {
        let p = format!("model.layers.{l}");
        for (name, out, inp) in [
            ("self_attn.q_proj", heads * head_dim, hidden),
            ("self_attn.k_proj", kv_heads * head_dim, hidden),
            ("self_attn.v_proj", kv_heads * head_dim, hidden),
            ("self_attn.o_proj", hidden, heads * head_dim),
            ("mlp.gate_proj", inter, hidden),
            ("mlp.up_proj", inter, hidden),
            ("mlp.down_proj", hidden, inter),
        ] {
            w.random(&mut rng, &format!("{p}.{name}.weight"), &[out, inp], 0.2);
        }
        w.constant(&format!("{p}.input_layernorm.weight"), &[hidden], 1.0);
        w.constant(
            &format!("{p}.post_attention_layernorm.weight"),
            &[hidden],
            1.0,
        );
    }
    w.constant("model.norm.weight", &[hidden], 1.0);
    w.random(&mut rng, "lm_head.weight", &[vocab, hidden], 0.2);
    w.write(&dir.join("model.safetensors"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_json(path: &Path) -> Value {
        serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
    }

    #[test]
    fn llama_folder_is_consistent() {
        let dir = tempfile::tempdir().unwrap();
        write_llama(dir.path()).unwrap();

        let tok = tokenizers::Tokenizer::from_file(dir.path().join("tokenizer.json")).unwrap();
        let v = tok.get_vocab_size(true);
        assert_eq!(v, 259);
        let eot = tok.token_to_id("<|endoftext|>").unwrap() as u64;
        let (im_start, im_end) = (
            tok.token_to_id("<|im_start|>").unwrap(),
            tok.token_to_id("<|im_end|>").unwrap(),
        );
        // No post-processor: nothing is appended; specials are single tokens; bytes round-trip.
        let text = "<|im_start|>user\nTri les fichiers {\"a\": [1, 2]} ✓<|im_end|>\n";
        let enc = tok.encode(text, true).unwrap();
        assert_eq!(enc.get_ids()[0], im_start);
        assert!(enc.get_ids().contains(&im_end));
        assert_ne!(*enc.get_ids().last().unwrap() as u64, eot);
        assert_eq!(tok.decode(enc.get_ids(), false).unwrap(), text);

        let config = read_json(&dir.path().join("config.json"));
        assert_eq!(config["architectures"], json!(["LlamaForCausalLM"]));
        assert_eq!(config["vocab_size"].as_u64(), Some(v as u64));
        assert_eq!(config["bos_token_id"].as_u64(), Some(eot));
        assert_eq!(config["eos_token_id"].as_u64(), Some(eot));
        assert_eq!(config["tie_word_embeddings"], json!(false));
        assert!(config["max_position_embeddings"].as_u64().unwrap() >= 4096);
        let generation = read_json(&dir.path().join("generation_config.json"));
        assert_eq!(generation["eos_token_id"].as_u64(), Some(eot));
        let tok_config = read_json(&dir.path().join("tokenizer_config.json"));
        assert_eq!(tok_config["eos_token"], json!("<|endoftext|>"));
        assert!(tok_config.get("bos_token").is_none());
        let template = tok_config["chat_template"].as_str().unwrap();
        assert!(
            template.contains("'<|im_start|>assistant\\n'"),
            "{template}"
        );

        let bytes = std::fs::read(dir.path().join("model.safetensors")).unwrap();
        let st = safetensors::SafeTensors::deserialize(&bytes).unwrap();
        let mut expected: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        expected.insert("model.embed_tokens.weight".into(), vec![v, 64]);
        expected.insert("model.norm.weight".into(), vec![64]);
        expected.insert("lm_head.weight".into(), vec![v, 64]);
        for l in 0..2 {
            for (name, shape) in [
                ("self_attn.q_proj.weight", vec![64, 64]),
                ("self_attn.k_proj.weight", vec![32, 64]),
                ("self_attn.v_proj.weight", vec![32, 64]),
                ("self_attn.o_proj.weight", vec![64, 64]),
                ("mlp.gate_proj.weight", vec![128, 64]),
                ("mlp.up_proj.weight", vec![128, 64]),
                ("mlp.down_proj.weight", vec![64, 128]),
                ("input_layernorm.weight", vec![64]),
                ("post_attention_layernorm.weight", vec![64]),
            ] {
                expected.insert(format!("model.layers.{l}.{name}"), shape);
            }
        }
        let actual: BTreeMap<String, Vec<usize>> = st
            .tensors()
            .into_iter()
            .map(|(name, view)| {
                assert_eq!(view.dtype(), Dtype::F32, "{name}");
                (name, view.shape().to_vec())
            })
            .collect();
        assert_eq!(actual, expected);
        let norm = st.tensor("model.norm.weight").unwrap();
        assert!(
            norm.data()
                .chunks_exact(4)
                .all(|b| f32::from_le_bytes(b.try_into().unwrap()) == 1.0)
        );

        // Deterministic: the same bytes on every run.
        let again = tempfile::tempdir().unwrap();
        write_llama(again.path()).unwrap();
        assert_eq!(
            std::fs::read(again.path().join("model.safetensors")).unwrap(),
            bytes
        );
    }
}
