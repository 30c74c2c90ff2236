//! Test support: configs with a temp state dir, a copy of the shipped skills, a counting embedder.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use config::PipelineConfig;
use retrieval::embed::LexicalEmbedder;
use retrieval::{Embedder, Role};

pub fn repo_skills() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../skills")
}

/// Default config whose state (indexes, caches) lives in `state`.
pub fn config(state: &Path) -> PipelineConfig {
    PipelineConfig {
        state_dir: Some(state.to_owned()),
        ..PipelineConfig::default()
    }
}

/// Copies the shipped skills into a fresh temp folder (tests edit them).
pub fn skills_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(&repo_skills(), dir.path());
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

pub fn load_store(dir: &Path) -> skills::SkillStore {
    let table = skills::engine_primitive_table(sandbox::graph_primitive_table());
    skills::SkillStore::load(dir, table).unwrap()
}

/// The lexical embedder, counting how many texts it embedded.
#[derive(Debug)]
pub struct Counting {
    inner: LexicalEmbedder,
    pub texts: AtomicUsize,
}

impl Counting {
    pub fn new() -> Arc<Counting> {
        Arc::new(Counting {
            inner: LexicalEmbedder::new(384),
            texts: AtomicUsize::new(0),
        })
    }

    pub fn take(&self) -> usize {
        self.texts.swap(0, Ordering::SeqCst)
    }
}

impl Embedder for Counting {
    fn fingerprint(&self) -> &str {
        self.inner.fingerprint()
    }
    fn dims(&self) -> usize {
        self.inner.dims()
    }
    fn embed(&self, texts: &[&str], role: Role) -> retrieval::Result<Vec<Vec<f32>>> {
        self.texts.fetch_add(texts.len(), Ordering::SeqCst);
        self.inner.embed(texts, role)
    }
}
