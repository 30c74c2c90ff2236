//! Retrieval: one shared [`Embedder`] (lexical default, mistral.rs, BERT via candle) feeding two
//! usearch-backed hybrid indexes — the [`SkillIndex`] (which skill and tool fits a step) and the
//! [`ContentIndex`] (which files are about something) — with BM25 keyword scores mixed in by
//! seed 000's five combine methods, confidence for near-miss detection, and hot reload.
//!
//! Indexes receive vectors; they never own an embedder. The pipeline owns the one embedder.

mod bm25;
mod chunk;
pub mod classify;
mod content_index;
pub mod embed;
mod error;
mod hybrid;
mod index;
mod pipeline;
mod primitives;
mod reader;
mod skill_index;
mod tasks;
pub mod text;
mod vector;
mod watch;

pub use bm25::Bm25Index;
pub use chunk::{Chunk, ChunkSpec, chunk_plain, chunk_text};
pub use content_index::{ContentDoc, ContentHit, ContentIndex, SyncReport, readable_text, within};
/// Which trigger phrases of a skill belong to one of its tools (defined beside the skill types).
pub use contracts::triggers_for_tool;
pub use embed::{Embedder, Role, build_embedder};
pub use error::{Result, RetrievalError};
pub use hybrid::{combine, normalise_bm25};
pub use index::{Doc, HybridIndex, Mix, Scored};
pub use pipeline::{BuildReport, ContentResults, RetrievalPipeline, stale_warning};
pub use primitives::{call_retrieval, reads_content_index};
pub use reader::{CALIBRATION_POWER, ModelChoice, ModelReader, PRIOR_FLOOR};
pub use skill_index::{
    InstructionHit, SKILL_WEIGHT, SkillDoc, SkillHit, SkillIndex, SkillRanking, is_confident,
    skill_docs,
};
pub use tasks::{GUIDANCE_FILES, call_task};
pub use vector::VectorStore;
pub use watch::{Burst, DEBOUNCE, HotReload, SkillWatcher, apply_skill_change};
