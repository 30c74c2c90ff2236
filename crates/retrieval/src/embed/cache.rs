//! A persistent embedding cache for model embedders: vectors keyed by SHA-256 of (model
//! fingerprint, role, text), appended to one file per fingerprint under `<state_dir>/embeddings/`.
//!
//! The file is append-only: a record is `key[32] | len u32 LE | len × f32 LE`. A torn last record
//! (crash mid-append) is cut off on open; a file of another fingerprint is never read. Memory holds
//! only where each vector sits in the file (44 bytes an entry, not the vector), so a cache of a
//! few hundred thousand chunks costs megabytes, not the file's size; a hit reads its vector back.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use super::{Embedder, Role};
use crate::error::io_err;
use crate::{Result, RetrievalError};

const MAGIC: &[u8; 8] = b"SWEMB01\n";

type Key = [u8; 32];

/// Where a cached vector's floats start in the file, and how many there are.
#[derive(Debug, Clone, Copy)]
struct Slot {
    offset: u64,
    len: u32,
}

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
    /// The slots and the file they are in, under one lock (a hit seeks, an append seeks back).
    store: Mutex<(HashMap<Key, Slot>, File)>,
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

/// The cache file of embeddings by `fingerprint` inside `dir`.
pub fn cache_file(dir: &Path, fingerprint: &str) -> PathBuf {
    let tag: String = Sha256::digest(fingerprint.as_bytes())
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect();
    dir.join(format!("{tag}.vec"))
}

impl<E: Embedder> CachedEmbedder<E> {
    /// Opens (or creates) the cache file for `inner`'s fingerprint inside `dir`.
    pub fn open(inner: E, dir: &Path) -> Result<Self> {
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let path = cache_file(dir, inner.fingerprint());
        let (slots, valid_len) = read_slots(&path, inner.fingerprint())?;
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
        Ok(CachedEmbedder {
            inner,
            path,
            store: Mutex::new((slots, file)),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            entries: self.store.lock().expect("cache lock").0.len(),
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }

    pub fn inner(&self) -> &E {
        &self.inner
    }
}

/// Where every complete record of a cache file keeps its vector, and the length of the valid
/// prefix (0 when the file is missing, foreign or has a damaged header). Streams the file: the
/// vectors are skipped, never held.
fn read_slots(path: &Path, fingerprint: &str) -> Result<(HashMap<Key, Slot>, u64)> {
    let mut slots = HashMap::new();
    let file = match File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((slots, 0)),
        Err(e) => {
            return Err(RetrievalError::Io {
                path: path.into(),
                source: e,
            });
        }
    };
    let total = file.metadata().map_err(io_err(path))?.len();
    let mut reader = BufReader::with_capacity(1 << 16, file);
    let fp = fingerprint.as_bytes();
    let mut header = vec![0u8; MAGIC.len() + 4 + fp.len()];
    if reader.read_exact(&mut header).is_err()
        || &header[..MAGIC.len()] != MAGIC
        || header[MAGIC.len()..MAGIC.len() + 4] != (fp.len() as u32).to_le_bytes()
        || &header[MAGIC.len() + 4..] != fp
    {
        return Ok((slots, 0));
    }
    let mut at = header.len() as u64;
    let mut head = [0u8; 36];
    while at + 36 <= total {
        reader.read_exact(&mut head).map_err(io_err(path))?;
        let k: Key = head[..32].try_into().expect("32 bytes");
        let len = u32::from_le_bytes(head[32..].try_into().expect("4 bytes"));
        let end = at + 36 + u64::from(len) * 4;
        if end > total {
            break;
        }
        slots.insert(
            k,
            Slot {
                offset: at + 36,
                len,
            },
        );
        reader
            .seek_relative(i64::from(len) * 4)
            .map_err(io_err(path))?;
        at = end;
    }
    Ok((slots, at))
}

/// Reads the vector in `slot` from `file`.
fn read_vector(file: &mut File, slot: Slot) -> std::io::Result<Vec<f32>> {
    let mut bytes = vec![0u8; slot.len as usize * 4];
    file.seek(SeekFrom::Start(slot.offset))?;
    file.read_exact(&mut bytes)?;
    Ok(bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
        .collect())
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
            let mut store = self.store.lock().expect("cache lock");
            let (slots, file) = &mut *store;
            keys.iter()
                .map(|k| match slots.get(k) {
                    Some(&slot) => read_vector(file, slot).map(Some),
                    None => Ok(None),
                })
                .collect::<std::io::Result<_>>()
                .map_err(io_err(&self.path))?
        };
        let missing: Vec<usize> = (0..texts.len()).filter(|i| out[*i].is_none()).collect();
        self.hits
            .fetch_add((texts.len() - missing.len()) as u64, Ordering::Relaxed);
        self.misses
            .fetch_add(missing.len() as u64, Ordering::Relaxed);
        if missing.is_empty() {
            return Ok(out.into_iter().map(|v| v.expect("filled")).collect());
        }
        // Duplicate texts within one call are embedded once.
        let mut unique: Vec<usize> = Vec::new();
        for &i in &missing {
            if !unique.iter().any(|&u| keys[u] == keys[i]) {
                unique.push(i);
            }
        }
        let batch: Vec<&str> = unique.iter().map(|&i| texts[i]).collect();
        let vectors = self.inner.embed(&batch, role)?;
        let mut store = self.store.lock().expect("cache lock");
        let (slots, file) = &mut *store;
        let start = file.seek(SeekFrom::End(0)).map_err(io_err(&self.path))?;
        let mut at = start;
        let mut record = Vec::new();
        let mut placed = Vec::new();
        let mut fresh: HashMap<Key, Vec<f32>> = HashMap::new();
        for (&i, v) in unique.iter().zip(vectors) {
            record.extend(keys[i]);
            record.extend((v.len() as u32).to_le_bytes());
            record.extend(v.iter().flat_map(|x| x.to_le_bytes()));
            let len = v.len() as u32;
            placed.push((
                keys[i],
                Slot {
                    offset: at + 36,
                    len,
                },
            ));
            at += 36 + u64::from(len) * 4;
            fresh.insert(keys[i], v);
        }
        if let Err(e) = file.write_all(&record) {
            // A part written (disk full) is cut off, so the next record starts where it should.
            let _ = file.set_len(start);
            return Err(io_err(&self.path)(e));
        }
        slots.extend(placed);
        for &i in &missing {
            out[i] = fresh.get(&keys[i]).cloned();
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
            // Hits in the same session read back what was just appended.
            assert_eq!(c.embed_documents(&texts).unwrap(), v);
            assert_eq!(c.stats().hits, 3);
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
