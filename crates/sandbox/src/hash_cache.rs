//! The persistent hash cache of duplicate finding (fclones and czkawka keep one): the hashes of a
//! file's first block, last block and whole content, keyed by device, inode, size and
//! modification time, so a file that has not changed since is not read again. Stored beside the
//! state (`<state_dir>/hash-cache.bin`, fixed-size binary records, written atomically); a file
//! that changed has another size or time and simply misses. A missing or damaged cache file is an
//! empty cache, never an error.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A content hash (XXH3-128 in the first 16 bytes, or SHA-256).
pub type Digest = [u8; 32];

/// Which hash of a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stage {
    First,
    Last,
    Whole,
}

/// Identifies a file's bytes: where it is (device, inode), how big and when last written, and
/// the hash algorithm (0 XXH3, 1 SHA-256).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileKey {
    pub dev: u64,
    pub ino: u64,
    pub size: u64,
    pub mtime_ns: i64,
    pub algo: u8,
}

/// Where a file's hashes are in [`Inner::digests`] (`First`, `Last`, `Whole`; index + 1, 0 when not
/// known), and whether this session used the entry. 16 bytes an entry: most files have one hash
/// (those of one block), so three digests inline would be mostly empty.
#[derive(Debug, Clone, Copy, Default)]
struct Hashes {
    at: [u32; 3],
    used: bool,
}

fn stage_index(stage: Stage) -> usize {
    match stage {
        Stage::First => 0,
        Stage::Last => 1,
        Stage::Whole => 2,
    }
}

const MAGIC: &[u8; 8] = b"SWHASH01";
/// dev, ino, size, mtime (8 each), algo, present flags, three digests.
const RECORD: usize = 8 * 4 + 2 + 32 * 3;
/// Entries kept at most; beyond, only those used since the cache was opened are written.
const MAX_ENTRIES: usize = 2_000_000;

/// The cache of one state folder.
#[derive(Debug)]
pub struct HashCache {
    path: PathBuf,
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    /// Whether `entries` holds the file's records yet.
    loaded: bool,
    entries: HashMap<FileKey, Hashes>,
    /// Every digest the entries point at.
    digests: Vec<Digest>,
    changed: bool,
    hits: u64,
    misses: u64,
}

impl HashCache {
    /// The cache stored at `path` (empty when the file is missing or not a cache). The file is
    /// read when a hash is first asked for or stored, so a run that compares no contents never
    /// loads it.
    pub fn open(path: &Path) -> HashCache {
        HashCache {
            path: path.to_owned(),
            inner: Mutex::new(Inner::default()),
        }
    }

    /// The cache file of a state folder.
    pub fn path_in(state_dir: &Path) -> PathBuf {
        state_dir.join("hash-cache.bin")
    }

    /// The state as it is, loaded or not.
    fn state(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The state with the file's records loaded.
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        let mut inner = self.state();
        if !inner.loaded {
            inner.loaded = true;
            (inner.entries, inner.digests) = read(&self.path).unwrap_or_else(|e| {
                if e.kind() != std::io::ErrorKind::NotFound {
                    tracing::warn!(path = %self.path.display(), error = %e, "hash cache unreadable; starting empty");
                }
                (HashMap::new(), Vec::new())
            });
        }
        inner
    }

    pub fn get(&self, key: &FileKey, stage: Stage) -> Option<Digest> {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let found = inner.entries.get_mut(key).and_then(|h| {
            let at = h.at[stage_index(stage)];
            h.used |= at != 0;
            (at != 0).then(|| inner.digests[at as usize - 1])
        });
        if found.is_some() {
            inner.hits += 1;
        } else {
            inner.misses += 1;
        }
        found
    }

    pub fn put(&self, key: FileKey, stage: Stage, digest: Digest) {
        let mut guard = self.lock();
        let inner = &mut *guard;
        let h = inner.entries.entry(key).or_default();
        h.used = true;
        let at = &mut h.at[stage_index(stage)];
        if *at == 0 {
            inner.digests.push(digest);
            *at = inner.digests.len() as u32;
        } else {
            inner.digests[*at as usize - 1] = digest;
        }
        inner.changed = true;
    }

    /// (hits, misses) since the cache was opened.
    pub fn counts(&self) -> (u64, u64) {
        let inner = self.state();
        (inner.hits, inner.misses)
    }

    /// Writes the cache when it changed (to a temporary file, then renamed over the old one).
    pub fn save(&self) -> std::io::Result<()> {
        // Changed means loaded: a cache nobody used is not read to be written back.
        let mut inner = self.state();
        if !inner.changed {
            return Ok(());
        }
        if inner.entries.len() > MAX_ENTRIES {
            inner.entries.retain(|_, h| h.used);
        }
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let tmp = self.path.with_extension("bin.tmp");
        let mut out = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        out.write_all(MAGIC)?;
        for (k, h) in &inner.entries {
            let mut rec = [0u8; RECORD];
            rec[0..8].copy_from_slice(&k.dev.to_le_bytes());
            rec[8..16].copy_from_slice(&k.ino.to_le_bytes());
            rec[16..24].copy_from_slice(&k.size.to_le_bytes());
            rec[24..32].copy_from_slice(&k.mtime_ns.to_le_bytes());
            rec[32] = k.algo;
            let mut flags = 0u8;
            for (i, &at) in h.at.iter().enumerate() {
                if at != 0 {
                    flags |= 1 << i;
                    rec[34 + 32 * i..66 + 32 * i].copy_from_slice(&inner.digests[at as usize - 1]);
                }
            }
            rec[33] = flags;
            out.write_all(&rec)?;
        }
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, &self.path)?;
        inner.changed = false;
        Ok(())
    }
}

/// The entries and digests of a cache file, read a record at a time.
fn read(path: &Path) -> std::io::Result<(HashMap<FileKey, Hashes>, Vec<Digest>)> {
    let file = std::fs::File::open(path)?;
    let len = file.metadata()?.len() as usize;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, file);
    let mut magic = [0u8; 8];
    if len < MAGIC.len() || reader.read_exact(&mut magic).is_err() || &magic != MAGIC {
        return Err(std::io::Error::other("not a Scope Weaver hash cache"));
    }
    let body = len - MAGIC.len();
    if !body.is_multiple_of(RECORD) {
        return Err(std::io::Error::other("truncated hash cache"));
    }
    let u64_at =
        |r: &[u8], at: usize| u64::from_le_bytes(r[at..at + 8].try_into().expect("8 bytes"));
    let mut entries = HashMap::with_capacity(body / RECORD);
    let mut digests = Vec::new();
    let mut rec = [0u8; RECORD];
    for _ in 0..body / RECORD {
        reader.read_exact(&mut rec)?;
        let key = FileKey {
            dev: u64_at(&rec, 0),
            ino: u64_at(&rec, 8),
            size: u64_at(&rec, 16),
            mtime_ns: u64_at(&rec, 24) as i64,
            algo: rec[32],
        };
        let flags = rec[33];
        let mut h = Hashes::default();
        for (i, at) in h.at.iter_mut().enumerate() {
            if flags & (1 << i) != 0 {
                digests.push(rec[34 + 32 * i..66 + 32 * i].try_into().expect("32 bytes"));
                *at = digests.len() as u32;
            }
        }
        entries.insert(key, h);
    }
    Ok((entries, digests))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cache file in a fresh folder, and one file's key.
    fn fixture() -> (tempfile::TempDir, PathBuf, FileKey) {
        let dir = tempfile::tempdir().unwrap();
        let path = HashCache::path_in(dir.path());
        let key = FileKey {
            dev: 1,
            ino: 2,
            size: 3,
            mtime_ns: -4,
            algo: 0,
        };
        (dir, path, key)
    }

    #[test]
    fn hashes_survive_a_restart_and_a_damaged_file_is_an_empty_cache() {
        let (_dir, path, key) = fixture();
        let cache = HashCache::open(&path);
        assert_eq!(cache.get(&key, Stage::First), None);
        cache.put(key, Stage::First, [7; 32]);
        cache.put(key, Stage::Whole, [9; 32]);
        cache.save().unwrap();

        let again = HashCache::open(&path);
        assert_eq!(again.get(&key, Stage::First), Some([7; 32]));
        assert_eq!(again.get(&key, Stage::Last), None);
        assert_eq!(again.get(&key, Stage::Whole), Some([9; 32]));
        // Another time or size is another file.
        assert_eq!(
            again.get(&FileKey { mtime_ns: 5, ..key }, Stage::First),
            None
        );
        assert_eq!(again.counts(), (2, 2));

        std::fs::write(&path, b"SWHASH01 truncated").unwrap();
        assert_eq!(HashCache::open(&path).get(&key, Stage::First), None);
        std::fs::write(&path, b"something else").unwrap();
        assert_eq!(HashCache::open(&path).get(&key, Stage::First), None);
    }

    /// Opening costs nothing: the file is read when a hash is first asked for, and a cache that
    /// was never used is not written back (a run that compares no contents leaves it alone).
    #[test]
    fn the_file_is_read_at_first_use_and_left_alone_when_unused() {
        let (_dir, path, key) = fixture();
        let opened_early = HashCache::open(&path);
        let unused = HashCache::open(&path);
        let writer = HashCache::open(&path);
        writer.put(key, Stage::Whole, [5; 32]);
        writer.save().unwrap();
        // Written after `opened_early` was opened, read at its first use.
        assert_eq!(opened_early.get(&key, Stage::Whole), Some([5; 32]));
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();
        unused.save().unwrap();
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            written
        );
        assert_eq!(unused.counts(), (0, 0));
    }
}
