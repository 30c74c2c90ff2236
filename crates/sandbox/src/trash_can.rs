//! The system trash, as commits and undos use it: moving a deleted entry there, finding where it
//! went, telling whether it is still there, and putting it back.
//!
//! Where the `trash` crate can list and restore (freedesktop, Windows), it does all of it and the
//! trash's own records say where an entry went. Where it cannot (macOS), entries are moved into the
//! trash folder (`~/.Trash`) by this module under a name derived from the original path and the
//! commit's start ([`RecordedTrash`]), so the commit's record — or a recovery after a crash —
//! finds each one again without a listing, and an undo moves it back.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::history::TrashedEntry;

/// Moves `path` to the system trash (for a commit that started at `started_at`, epoch seconds).
pub fn delete(path: &Path, started_at: i64) -> std::io::Result<()> {
    system::delete(path, started_at)
}

/// Where the trash put the deleted `paths` (absolute) since `since` (epoch seconds, the commit's
/// start): the newest matching item for each.
pub fn find(paths: &[PathBuf], since: i64) -> HashMap<PathBuf, TrashedEntry> {
    if paths.is_empty() {
        return HashMap::new();
    }
    system::find(paths, since)
}

/// The items in the system trash, where the platform can list them (else empty; [`contains`]
/// then asks the disk).
pub fn list() -> Vec<TrashedEntry> {
    system::list()
}

/// Whether a trashed entry is still in the trash (it may have been emptied or put back by hand).
pub fn contains(entry: &TrashedEntry, listing: &[TrashedEntry]) -> bool {
    system::contains(entry, listing)
}

/// Moves a trashed entry back to where it was; never overwrites.
pub fn restore(entry: &TrashedEntry) -> std::io::Result<()> {
    system::restore(entry)
}

/// The newest item of `listing` for each of `paths`, deleted since `since`.
fn newest_of(
    listing: Vec<TrashedEntry>,
    paths: &[PathBuf],
    since: i64,
) -> HashMap<PathBuf, TrashedEntry> {
    let mut found: HashMap<PathBuf, TrashedEntry> = HashMap::new();
    for item in listing {
        let original = item.original_parent.join(&item.name);
        if item.time_deleted + 1 < since || !paths.contains(&original) {
            continue;
        }
        if found
            .get(&original)
            .is_none_or(|f| f.time_deleted <= item.time_deleted)
        {
            found.insert(original, item);
        }
    }
    found
}

/// A trash folder this module moves entries into and out of by name (macOS's `~/.Trash`; any
/// folder in tests). The name of a trashed entry is its own with a tag derived from its original
/// path and the commit's start — `report (sw-1a2b3c4d).pdf` — so it can be found again from the
/// commit's record alone, and two commits never collide.
#[derive(Debug, Clone)]
pub struct RecordedTrash {
    pub dir: PathBuf,
}

impl RecordedTrash {
    /// Where `original` goes for a commit started at `started_at`.
    pub fn place_for(&self, original: &Path, started_at: i64) -> PathBuf {
        let mut hash = Sha256::new();
        hash.update(original.as_os_str().as_encoded_bytes());
        hash.update(started_at.to_le_bytes());
        let tag: String = hash.finalize()[..4]
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = original
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Folders and dotfiles keep the tag at the end; files keep their extension last.
        let tagged = match name.rsplit_once('.') {
            Some((stem, ext)) if !stem.is_empty() && !original.is_dir() => {
                format!("{stem} (sw-{tag}).{ext}")
            }
            _ => format!("{name} (sw-{tag})"),
        };
        self.dir.join(tagged)
    }

    /// Moves `path` into the trash folder; refuses to overwrite anything there.
    pub fn delete(&self, path: &Path, started_at: i64) -> std::io::Result<()> {
        let place = self.place_for(path, started_at);
        if std::fs::symlink_metadata(&place).is_ok() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!("{} is already in the trash", place.display()),
            ));
        }
        std::fs::create_dir_all(&self.dir)?;
        std::fs::rename(path, &place)
    }

    /// The entries of `paths` this trash holds for the commit started at `since`.
    pub fn find(&self, paths: &[PathBuf], since: i64) -> HashMap<PathBuf, TrashedEntry> {
        paths
            .iter()
            .filter_map(|original| {
                let place = self.place_for(original, since);
                std::fs::symlink_metadata(&place).ok()?;
                Some((
                    original.clone(),
                    TrashedEntry {
                        id: place,
                        name: original.file_name()?.to_string_lossy().into_owned(),
                        original_parent: original.parent()?.to_owned(),
                        time_deleted: since,
                    },
                ))
            })
            .collect()
    }

    /// Whether the entry is still where it was put.
    pub fn contains(entry: &TrashedEntry) -> bool {
        std::fs::symlink_metadata(&entry.id).is_ok()
    }

    /// Moves the entry back to where it was; never overwrites.
    pub fn restore(entry: &TrashedEntry) -> std::io::Result<()> {
        let back = entry.original_parent.join(&entry.name);
        if std::fs::symlink_metadata(&back).is_ok() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                format!(
                    "{} exists; the trashed entry stays in the trash",
                    back.display()
                ),
            ));
        }
        std::fs::create_dir_all(&entry.original_parent)?;
        std::fs::rename(&entry.id, &back)
    }
}

/// The trash crate's own listing and restore (Windows, freedesktop).
#[cfg(any(
    target_os = "windows",
    all(
        unix,
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_os = "android")
    )
))]
mod system {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use crate::history::TrashedEntry;

    pub fn delete(path: &Path, _started_at: i64) -> std::io::Result<()> {
        trash::delete(path)
            .map_err(|e| std::io::Error::other(format!("moving to the trash failed: {e}")))
    }

    pub fn find(paths: &[PathBuf], since: i64) -> HashMap<PathBuf, TrashedEntry> {
        super::newest_of(list(), paths, since)
    }

    pub fn list() -> Vec<TrashedEntry> {
        match trash::os_limited::list() {
            Ok(items) => items
                .into_iter()
                .map(|i| TrashedEntry {
                    id: PathBuf::from(i.id),
                    name: i.name.to_string_lossy().into_owned(),
                    original_parent: i.original_parent,
                    time_deleted: i.time_deleted,
                })
                .collect(),
            Err(e) => {
                tracing::warn!(error = %e, "the system trash could not be listed");
                Vec::new()
            }
        }
    }

    pub fn contains(entry: &TrashedEntry, listing: &[TrashedEntry]) -> bool {
        listing.iter().any(|i| i.id == entry.id)
    }

    pub fn restore(entry: &TrashedEntry) -> std::io::Result<()> {
        let item = trash::TrashItem {
            id: entry.id.clone().into_os_string(),
            name: entry.name.clone().into(),
            original_parent: entry.original_parent.clone(),
            time_deleted: entry.time_deleted,
        };
        trash::os_limited::restore_all([item])
            .map_err(|e| std::io::Error::other(format!("restoring from the trash failed: {e}")))
    }
}

/// The platforms whose trash the crate cannot list (macOS): the user's trash folder, by name. An
/// entry on another volume (which has a trash of its own) goes through the crate and is not
/// found again: an undo reports it as not restorable before anything is approved.
#[cfg(not(any(
    target_os = "windows",
    all(
        unix,
        not(target_os = "macos"),
        not(target_os = "ios"),
        not(target_os = "android")
    )
)))]
mod system {
    use std::collections::HashMap;
    use std::path::{Path, PathBuf};

    use super::RecordedTrash;
    use crate::history::TrashedEntry;

    fn users_trash() -> Option<RecordedTrash> {
        std::env::var_os("HOME").map(|home| RecordedTrash {
            dir: PathBuf::from(home).join(".Trash"),
        })
    }

    pub fn delete(path: &Path, started_at: i64) -> std::io::Result<()> {
        match users_trash().map(|t| t.delete(path, started_at)) {
            Some(Ok(())) => Ok(()),
            // Another volume (rename cannot cross it) or no home folder: the platform's trash.
            _ => trash::delete(path)
                .map_err(|e| std::io::Error::other(format!("moving to the trash failed: {e}"))),
        }
    }

    pub fn find(paths: &[PathBuf], since: i64) -> HashMap<PathBuf, TrashedEntry> {
        users_trash()
            .map(|t| t.find(paths, since))
            .unwrap_or_default()
    }

    pub fn list() -> Vec<TrashedEntry> {
        Vec::new()
    }

    pub fn contains(entry: &TrashedEntry, _listing: &[TrashedEntry]) -> bool {
        RecordedTrash::contains(entry)
    }

    pub fn restore(entry: &TrashedEntry) -> std::io::Result<()> {
        RecordedTrash::restore(entry)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The macOS path, run here on a folder standing in for `~/.Trash`: a commit's deletes are
    /// found again from their original paths and the commit's start alone, a second commit never
    /// collides with the first, and a restore puts each back without overwriting.
    #[test]
    fn a_recorded_trash_finds_and_restores_by_name_alone() {
        let home = tempfile::tempdir().unwrap();
        let root = home.path().join("Downloads");
        std::fs::create_dir_all(root.join("old")).unwrap();
        std::fs::write(root.join("report.pdf"), "pdf").unwrap();
        std::fs::write(root.join("old/a.txt"), "a").unwrap();
        std::fs::write(root.join(".hidden"), "h").unwrap();
        let trash = RecordedTrash {
            dir: home.path().join(".Trash"),
        };
        let started = 1_700_000_000;
        let paths = [
            root.join("report.pdf"),
            root.join("old"),
            root.join(".hidden"),
        ];
        for p in &paths {
            trash.delete(p, started).unwrap();
        }
        let mut names: Vec<String> = std::fs::read_dir(&trash.dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names.len(), 3);
        assert!(
            names
                .iter()
                .any(|n| n.starts_with("report (sw-") && n.ends_with(").pdf"))
        );
        assert!(names.iter().any(|n| n.starts_with(".hidden (sw-")));

        // The same name deleted again by a later commit goes elsewhere.
        std::fs::write(root.join("report.pdf"), "pdf, version 2").unwrap();
        trash
            .delete(&root.join("report.pdf"), started + 60)
            .unwrap();

        let found = trash.find(&paths, started);
        assert_eq!(found.len(), 3);
        let entry = &found[&root.join("report.pdf")];
        assert_eq!(entry.name, "report.pdf");
        assert_eq!(entry.original_parent, root);
        assert!(RecordedTrash::contains(entry));
        assert!(
            trash.find(&paths, started + 1).is_empty(),
            "another commit's"
        );

        // Putting back never overwrites: a new report.pdf is in the way.
        std::fs::write(root.join("report.pdf"), "new").unwrap();
        assert!(RecordedTrash::restore(entry).is_err());
        assert_eq!(
            std::fs::read_to_string(root.join("report.pdf")).unwrap(),
            "new"
        );
        std::fs::remove_file(root.join("report.pdf")).unwrap();
        for p in &paths {
            RecordedTrash::restore(&found[p]).unwrap();
        }
        assert_eq!(
            std::fs::read_to_string(root.join("report.pdf")).unwrap(),
            "pdf"
        );
        assert_eq!(
            std::fs::read_to_string(root.join("old/a.txt")).unwrap(),
            "a"
        );
        assert!(root.join(".hidden").exists());
        assert!(!RecordedTrash::contains(entry));
        // The later commit's copy is still in the trash, found by its own start.
        let later = trash.find(&[root.join("report.pdf")], started + 60);
        assert_eq!(later.len(), 1);
    }
}
