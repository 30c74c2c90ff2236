//! A persistent embedding cache: vectors keyed by SHA-256 of (model fingerprint, role, text), kept
//! in memory and appended to one file per fingerprint under `<state_dir>/embeddings/`.
//!
//! The file is append-only: a record is `key[32] | len u32 LE | len × f32 LE`. A torn last record
//! (crash mid-append) is cut off on open; a file of another fingerprint is never read.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use super::{Embedder, Role};
use crate::error::io_err;
use crate::{Result, RetrievalError};

const MAGIC: &[u8; 8] = b"SWEMB01\n";

type Key = [u8; 32];

/// Hit and miss counts since the cache was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct CacheStats {
    pub entries: usize,
    pub hits: u64,
    pub misses: u64,
}

/// Wraps an embedder with the persistent cache. Same fingerprint and dims as the inner embedder.
#[derive(Debug)]
pub struct CachedEmbedder<E> {
    inner: E,
    path: PathBuf,
    memory: Mutex<HashMap<Key, Vec<f32>>>,
    file: Mutex<File>,
    hits: AtomicU64,
    misses: AtomicU64,
}

fn key(fingerprint: &str, role: Role, text: &str) -> Key {
    let mut h = Sha256::new();
    h.update(fingerprint.as_bytes());
    h.update([0]);
    h.update(role.as_str().as_bytes());
    h.update([0]);
    h.update(text.as_bytes());
    h.finalize().into()
}

impl<E: Embedder> CachedEmbedder<E> {
    /// Opens (or creates) the cache file for `inner`'s fingerprint inside `dir`.
    pub fn open(inner: E, dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let tag: String = Sha256::digest(inner.fingerprint().as_bytes())
            .iter()
            .take(8)
            .map(|b| format!("{b:02x}"))
            .collect();
        let path = dir.join(format!("{tag}.vec"));
        let (memory, valid_len) = read_cache(&path, inner.fingerprint())?;
        let mut file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .read(true)
            .write(true)
            .open(&path)
            .map_err(io_err(&path))?;
        file.set_len(valid_len).map_err(io_err(&path))?;
        if valid_len == 0 {
            let fp = inner.fingerprint().as_bytes();
            let mut header = MAGIC.to_vec();
            header.extend((fp.len() as u32).to_le_bytes());
            header.extend(fp);
            file.write_all(&header).map_err(io_err(&path))?;
        }
        use std::io::Seek;
        file.seek(std::io::SeekFrom::End(0))
            .map_err(io_err(&path))?;
        Ok(CachedEmbedder {
            inner,
            path,
            memory: Mutex::new(memory),
            file: Mutex::new(file),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            entries: self.memory.lock().expect("cache lock").len(),
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    pub fn inner(&self) -> &E {
        &self.inner
    }
}

/// Reads every complete record of a cache file; returns them and the length of the valid prefix
/// (0 when the file is missing, foreign or has a damaged header).
fn read_cache(path: &Path, fingerprint: &str) -> Result<(HashMap<Key, Vec<f32>>, u64)> {
    let mut map = HashMap::new();
    let mut bytes = Vec::new();
    match File::open(path) {
        Ok(mut f) => {
            f.read_to_end(&mut bytes).map_err(io_err(path))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((map, 0)),
        Err(e) => {
            return Err(RetrievalError::Io {
                path: path.into(),
                source: e,
            });
        }
    }
    let fp = fingerprint.as_bytes();
    let header_len = MAGIC.len() + 4 + fp.len();
    if bytes.len() < header_len
        || &bytes[..MAGIC.len()] != MAGIC
        || bytes[MAGIC.len()..MAGIC.len() + 4] != (fp.len() as u32).to_le_bytes()
        || &bytes[MAGIC.len() + 4..header_len] != fp
    {
        return Ok((map, 0));
    }
    let mut at = header_len;
    while at + 36 <= bytes.len() {
        let k: Key = bytes[at..at + 32].try_into().expect("32 bytes");
        let n = u32::from_le_bytes(bytes[at + 32..at + 36].try_into().expect("4 bytes")) as usize;
        let end = at + 36 + n * 4;
        if end > bytes.len() {
            break;
        }
        let v = bytes[at + 36..end]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        map.insert(k, v);
        at = end;
    }
    Ok((map, at as u64))
}

impl<E: Embedder> Embedder for CachedEmbedder<E> {
    fn fingerprint(&self) -> &str {
        self.inner.fingerprint()
    }
    fn dims(&self) -> usize {
        self.inner.dims()
    }
    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>> {
        let keys: Vec<Key> = texts
            .iter()
            .map(|t| key(self.inner.fingerprint(), role, t))
            .collect();
        let mut out: Vec<Option<Vec<f32>>> = {
            let memory = self.memory.lock().expect("cache lock");
            keys.iter().map(|k| memory.get(k).cloned()).collect()
        };
        let missing: Vec<usize> = (0..texts.len()).filter(|i| out[*i].is_none()).collect();
        self.hits
            .fetch_add((texts.len() - missing.len()) as u64, Ordering::Relaxed);
        self.misses
            .fetch_add(missing.len() as u64, Ordering::Relaxed);
        if !missing.is_empty() {
            // Duplicate texts within one call are embedded once.
            let mut unique: Vec<usize> = Vec::new();
            for &i in &missing {
                if !unique.iter().any(|&u| keys[u] == keys[i]) {
                    unique.push(i);
                }
            }
            let batch: Vec<&str> = unique.iter().map(|&i| texts[i]).collect();
            let vectors = self.inner.embed(&batch, role)?;
            let mut record = Vec::new();
            let mut memory = self.memory.lock().expect("cache lock");
            for (&i, v) in unique.iter().zip(vectors) {
                record.extend(keys[i]);
                record.extend((v.len() as u32).to_le_bytes());
                record.extend(v.iter().flat_map(|x| x.to_le_bytes()));
                memory.insert(keys[i], v);
            }
            for &i in &missing {
                out[i] = memory.get(&keys[i]).cloned();
            }
            drop(memory);
            let mut file = self.file.lock().expect("cache file lock");
            file.write_all(&record).map_err(io_err(&self.path))?;
        }
        Ok(out.into_iter().map(|v| v.expect("filled")).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::embed::LexicalEmbedder;

    #[test]
    fn persists_across_opens_and_survives_a_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let texts = ["sort downloads", "remove duplicates", "sort downloads"];
        let first = {
            let c = CachedEmbedder::open(LexicalEmbedder::new(32), dir.path()).unwrap();
            let v = c.embed_documents(&texts).unwrap();
            assert_eq!(c.stats().misses, 3);
            assert_eq!(c.stats().entries, 2);
            // A query of the same text is a different entry.
            c.embed_query("sort downloads").unwrap();
            assert_eq!(c.stats().entries, 3);
            v
        };
        let c = CachedEmbedder::open(LexicalEmbedder::new(32), dir.path()).unwrap();
        assert_eq!(c.stats().entries, 3);
        assert_eq!(c.embed_documents(&texts).unwrap(), first);
        assert_eq!((c.stats().hits, c.stats().misses), (3, 0));
        // Tear the last record: the rest still loads and the file is usable.
        let path = c.path().to_owned();
        drop(c);
        let len = std::fs::metadata(&path).unwrap().len();
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.set_len(len - 10).unwrap();
        let c = CachedEmbedder::open(LexicalEmbedder::new(32), dir.path()).unwrap();
        assert_eq!(c.stats().entries, 2);
        c.embed_query("sort downloads").unwrap();
        let c = CachedEmbedder::open(LexicalEmbedder::new(32), dir.path()).unwrap();
        assert_eq!(c.stats().entries, 3);
        // Another fingerprint has its own file.
        let other = CachedEmbedder::open(LexicalEmbedder::new(64), dir.path()).unwrap();
        assert_eq!(other.stats().entries, 0);
        assert_ne!(other.path(), path);
    }
}
