//! Archives: zip and tar listing (read-only), and the commit-time writers for creating and
//! extracting them. Entry names are read the way Windows would read them (`\` is a separator) and
//! refused when they would land outside the extraction folder (zip-slip: `..`, absolute paths, drive
//! letters, network paths), when they are links, or when the platform cannot hold the name.

use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ArchiveFormat {
    Zip,
    #[serde(rename = "tar.gz")]
    TarGz,
    #[serde(rename = "tar.zst")]
    TarZst,
    Tar,
}

impl ArchiveFormat {
    pub fn from_name(name: &str) -> Option<Self> {
        let n = name.to_ascii_lowercase();
        if n.ends_with(".zip") {
            Some(ArchiveFormat::Zip)
        } else if n.ends_with(".tar.gz") || n.ends_with(".tgz") {
            Some(ArchiveFormat::TarGz)
        } else if n.ends_with(".tar.zst") || n.ends_with(".tzst") {
            Some(ArchiveFormat::TarZst)
        } else if n.ends_with(".tar") {
            Some(ArchiveFormat::Tar)
        } else {
            None
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s
            .trim()
            .trim_start_matches('.')
            .to_ascii_lowercase()
            .as_str()
        {
            "zip" => Some(ArchiveFormat::Zip),
            "tar.gz" | "tgz" | "gz" | "targz" => Some(ArchiveFormat::TarGz),
            "tar.zst" | "tzst" | "zst" | "zstd" | "tarzst" => Some(ArchiveFormat::TarZst),
            "tar" => Some(ArchiveFormat::Tar),
            _ => None,
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            ArchiveFormat::Zip => "zip",
            ArchiveFormat::TarGz => "tar.gz",
            ArchiveFormat::TarZst => "tar.zst",
            ArchiveFormat::Tar => "tar",
        }
    }

    /// The compression levels the format takes and its default (`None`: not compressed).
    pub fn levels(self) -> Option<(std::ops::RangeInclusive<i32>, i32)> {
        match self {
            ArchiveFormat::Zip | ArchiveFormat::TarGz => Some((0..=9, 6)),
            ArchiveFormat::TarZst => Some((1..=22, 3)),
            ArchiveFormat::Tar => None,
        }
    }

    /// The archive's name without its archive extension (`photos.tar.gz` → `photos`).
    pub fn stem(name: &str) -> &str {
        let lower = name.to_ascii_lowercase();
        for ext in [".tar.gz", ".tgz", ".tar.zst", ".tzst", ".zip", ".tar"] {
            if lower.ends_with(ext) && name.len() > ext.len() {
                return &name[..name.len() - ext.len()];
            }
        }
        name
    }
}

/// One entry of an archive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// Path inside the archive, `/`-separated, without a trailing slash: normalised (`\` read as a
    /// separator, `./` dropped) for an entry that may be extracted, as stored for a refused one.
    pub name: String,
    pub size: u64,
    pub is_dir: bool,
    /// Why extracting it is refused: it would write outside the target folder, it is a link, or
    /// the platform cannot hold its name. `None`: the entry may be extracted at `name`.
    pub refused: Option<String>,
}

impl Entry {
    pub fn safe(&self) -> bool {
        self.refused.is_none()
    }
}

/// Names Windows reserves for devices, with or without an extension (`CON`, `nul.txt`).
const WINDOWS_DEVICE_NAMES: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8",
    "COM9", "LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

/// An entry's stored name as a relative `/`-separated path inside the target folder, read the way
/// Windows reads it, or why it cannot be extracted. `windows`: also refuse the names Windows
/// cannot hold (reserved device names, `<>:"|?*`, control characters, a trailing dot or space).
pub fn entry_path(raw: &str, windows: bool) -> Result<String, String> {
    let name = raw.replace('\\', "/");
    if name.starts_with("//") {
        return Err("a network path (`\\\\server\\share`)".into());
    }
    if name.starts_with('/') {
        return Err("an absolute path".into());
    }
    let bytes = name.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(format!("a drive letter (`{}`)", &name[..2]));
    }
    let mut parts = Vec::new();
    for part in name.split('/') {
        match part {
            "" | "." => {}
            ".." => return Err("a `..` that climbs out of the target folder".into()),
            _ => {
                if windows && let Some(why) = windows_cannot_hold(part) {
                    return Err(why);
                }
                parts.push(part);
            }
        }
    }
    if parts.is_empty() {
        return Err("an empty name".into());
    }
    // `./C:/x` is `C:/x` once `./` is gone: Windows would read a drive there too.
    let first = parts[0].as_bytes();
    if first.len() >= 2 && first[0].is_ascii_alphabetic() && first[1] == b':' {
        return Err(format!("a drive letter (`{}`)", &parts[0][..2]));
    }
    Ok(parts.join("/"))
}

fn windows_cannot_hold(part: &str) -> Option<String> {
    let stem = part.split('.').next().unwrap_or(part).trim_end();
    if WINDOWS_DEVICE_NAMES
        .iter()
        .any(|d| d.eq_ignore_ascii_case(stem))
    {
        return Some(format!("a name Windows reserves for a device (`{part}`)"));
    }
    if let Some(c) = part
        .chars()
        .find(|c| matches!(c, '<' | '>' | ':' | '"' | '|' | '?' | '*') || c.is_control())
    {
        return Some(format!(
            "a character Windows forbids in names ({c:?} in `{part}`)"
        ));
    }
    if part.ends_with('.') || part.ends_with(' ') {
        return Some(format!(
            "a name ending in a dot or space, which Windows drops (`{part}`)"
        ));
    }
    None
}

/// Builds the entry for a stored name: refused when `link`, when its path is unsafe, or when an
/// earlier file entry already lands on the same path (`a\b.txt` and `a/b.txt`).
fn entry(
    raw: &str,
    size: u64,
    is_dir: bool,
    link: bool,
    seen: &mut std::collections::HashSet<String>,
) -> Entry {
    let shown = raw.trim_end_matches(['/', '\\']).trim_start_matches("./");
    let refused = match entry_path(raw, cfg!(windows)) {
        _ if link => Err("a link (it could point anywhere)".to_owned()),
        Ok(path) if !is_dir && !seen.insert(path.clone()) => {
            Err(format!("a second entry for `{path}`"))
        }
        other => other,
    };
    match refused {
        Ok(name) => Entry {
            name,
            size,
            is_dir,
            refused: None,
        },
        Err(why) => Entry {
            name: shown.to_owned(),
            size,
            is_dir,
            refused: Some(why),
        },
    }
}

/// Every refused entry with its reason, one per line, or `None` when all may be extracted.
pub fn refusals(entries: &[Entry]) -> Option<String> {
    let lines: Vec<String> = entries
        .iter()
        .filter_map(|e| Some(format!("`{}`: {}", e.name, e.refused.as_ref()?)))
        .collect();
    (!lines.is_empty()).then(|| lines.join("; "))
}

/// Lists an archive's entries.
pub fn list(path: &Path, format: ArchiveFormat) -> std::io::Result<Vec<Entry>> {
    let file = File::open(path)?;
    match format {
        ArchiveFormat::Zip => {
            let mut zip = zip::ZipArchive::new(file).map_err(std::io::Error::other)?;
            let mut out = Vec::with_capacity(zip.len());
            let mut seen = std::collections::HashSet::new();
            for i in 0..zip.len() {
                let f = zip.by_index(i).map_err(std::io::Error::other)?;
                let raw = f.name().map_err(std::io::Error::other)?.into_owned();
                out.push(entry(&raw, f.size(), f.is_dir(), f.is_symlink(), &mut seen));
            }
            Ok(out)
        }
        ArchiveFormat::TarGz => tar_list(tar::Archive::new(flate2::read::GzDecoder::new(file))),
        ArchiveFormat::TarZst => {
            tar_list(tar::Archive::new(zstd::stream::read::Decoder::new(file)?))
        }
        ArchiveFormat::Tar => tar_list(tar::Archive::new(file)),
    }
}

fn tar_list<R: Read>(mut archive: tar::Archive<R>) -> std::io::Result<Vec<Entry>> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for e in archive.entries()? {
        let e = e?;
        let raw = String::from_utf8_lossy(&e.path_bytes()).into_owned();
        let kind = e.header().entry_type();
        let size = e.header().size().unwrap_or(0);
        let link = !(kind.is_file() || kind.is_dir());
        out.push(entry(&raw, size, kind.is_dir(), link, &mut seen));
    }
    Ok(out)
}

/// Every file and folder below each source, as (disk path, name inside the archive).
fn collect(root: &Path, sources: &[String]) -> std::io::Result<Vec<(PathBuf, String, bool)>> {
    let mut out = Vec::new();
    fn walk(
        disk: &Path,
        name: &str,
        out: &mut Vec<(PathBuf, String, bool)>,
    ) -> std::io::Result<()> {
        let meta = std::fs::symlink_metadata(disk)?;
        if meta.is_dir() {
            out.push((disk.to_owned(), name.to_owned(), true));
            let mut kids: Vec<_> = std::fs::read_dir(disk)?.collect::<Result<_, _>>()?;
            kids.sort_by_key(|e| e.file_name());
            for k in kids {
                walk(
                    &k.path(),
                    &format!("{name}/{}", k.file_name().to_string_lossy()),
                    out,
                )?;
            }
        } else if meta.is_file() {
            out.push((disk.to_owned(), name.to_owned(), false));
        }
        // Symlinks are not archived (they could point anywhere).
        Ok(())
    }
    for s in sources {
        let name = s.rsplit('/').next().unwrap_or(s);
        walk(&root.join(s), name, &mut out)?;
    }
    Ok(out)
}

/// Writes the archive (never overwriting) at `level` (the format's default when `None`) and
/// verifies it by reading it back.
pub fn create(
    root: &Path,
    sources: &[String],
    target: &Path,
    format: ArchiveFormat,
    level: Option<i32>,
) -> std::io::Result<()> {
    let items = collect(root, sources)?;
    let level = level.or(format.levels().map(|(_, default)| default));
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(target)?;
    match format {
        ArchiveFormat::Zip => {
            let mut zip = zip::ZipWriter::new(file);
            let options = zip::write::SimpleFileOptions::default()
                .compression_method(zip::CompressionMethod::Deflated)
                .compression_level(level.map(i64::from))
                .large_file(true);
            for (disk, name, is_dir) in &items {
                if *is_dir {
                    zip.add_directory(name.as_str(), options)
                        .map_err(std::io::Error::other)?;
                } else {
                    zip.start_file(name.as_str(), options)
                        .map_err(std::io::Error::other)?;
                    std::io::copy(&mut File::open(disk)?, &mut zip)?;
                }
            }
            zip.finish().map_err(std::io::Error::other)?.sync_all()?;
        }
        ArchiveFormat::TarGz | ArchiveFormat::TarZst | ArchiveFormat::Tar => {
            let writer: Box<dyn Write> = match format {
                ArchiveFormat::TarGz => Box::new(flate2::write::GzEncoder::new(
                    file,
                    flate2::Compression::new(level.unwrap_or(6).clamp(0, 9) as u32),
                )),
                ArchiveFormat::TarZst => Box::new(
                    zstd::stream::write::Encoder::new(file, level.unwrap_or(3))?.auto_finish(),
                ),
                _ => Box::new(file),
            };
            let mut tar = tar::Builder::new(writer);
            tar.follow_symlinks(false);
            for (disk, name, is_dir) in &items {
                if *is_dir {
                    tar.append_dir(name, disk)?;
                } else {
                    tar.append_path_with_name(disk, name)?;
                }
            }
            tar.into_inner()?.flush()?;
            File::open(target)?.sync_all()?;
        }
    }
    // Verify: every file is in the archive with its size, before anything (like deleting the
    // originals) relies on it.
    let listed = list(target, format)?;
    for (disk, name, is_dir) in items.iter().filter(|(_, _, d)| !d) {
        let size = std::fs::metadata(disk)?.len();
        if !listed
            .iter()
            .any(|e| e.name == *name && e.size == size && e.is_dir == *is_dir)
        {
            return Err(std::io::Error::other(format!(
                "verification failed: `{name}` is missing or truncated in the archive"
            )));
        }
    }
    Ok(())
}

/// Extracts into `target` (which must not exist yet). Refuses unsafe entries before writing anything.
pub fn extract(archive: &Path, target: &Path, format: ArchiveFormat) -> std::io::Result<()> {
    let entries = list(archive, format)?;
    if let Some(refused) = refusals(&entries) {
        return Err(std::io::Error::other(format!("unsafe entry {refused}")));
    }
    // The entries in stored order, each at its normalised path.
    let mut paths = entries.into_iter().map(|e| e.name);
    let changed = || std::io::Error::other("the archive changed while it was extracted");
    std::fs::create_dir(target)?;
    let write_file = |rel: &str, reader: &mut dyn Read| -> std::io::Result<()> {
        let dest = target.join(rel);
        if let Some(parent) = dest.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&dest)?;
        std::io::copy(reader, &mut out)?;
        out.sync_all()
    };
    match format {
        ArchiveFormat::Zip => {
            let mut zip =
                zip::ZipArchive::new(File::open(archive)?).map_err(std::io::Error::other)?;
            for i in 0..zip.len() {
                let mut f = zip.by_index(i).map_err(std::io::Error::other)?;
                let name = paths.next().ok_or_else(changed)?;
                if f.is_dir() {
                    std::fs::create_dir_all(target.join(&name))?;
                } else {
                    write_file(&name, &mut f)?;
                }
            }
        }
        ArchiveFormat::TarGz | ArchiveFormat::TarZst | ArchiveFormat::Tar => {
            let file = File::open(archive)?;
            let reader: Box<dyn Read> = match format {
                ArchiveFormat::TarGz => Box::new(flate2::read::GzDecoder::new(file)),
                ArchiveFormat::TarZst => Box::new(zstd::stream::read::Decoder::new(file)?),
                _ => Box::new(file),
            };
            let mut tar = tar::Archive::new(reader);
            for entry in tar.entries()? {
                let mut entry = entry?;
                let name = paths.next().ok_or_else(changed)?;
                if entry.header().entry_type().is_dir() {
                    std::fs::create_dir_all(target.join(&name))?;
                } else {
                    write_file(&name, &mut entry)?;
                }
            }
        }
    }
    Ok(())
}

/// Where `extract_into` unpacks `archive` before placing its entries: a hidden folder inside the
/// target (same file system, so entries are placed by hard links). Recovery looks for it.
pub fn staging_dir(target: &Path, archive: &Path) -> PathBuf {
    let name = archive
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.join(format!(".scope-weaver-extracting-{name}"))
}

/// Extracts the listed entries of `archive` into the existing folder `target`, each at its
/// `to`: the whole archive is unpacked into `staging_dir` first (refusing unsafe entries), then
/// every listed file is linked (or, where links are not supported, copied) to a name that must
/// still be free — an existing file is never overwritten — and the staging folder is removed.
pub fn extract_into(
    archive: &Path,
    target: &Path,
    format: ArchiveFormat,
    entries: &[crate::graph::ExtractedEntry],
) -> std::io::Result<()> {
    let staging = staging_dir(target, archive);
    extract(archive, &staging, format)?;
    let placed = (|| {
        for e in entries {
            let to = target.join(&e.to);
            if e.is_dir {
                match std::fs::create_dir(&to) {
                    Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists && to.is_dir() => {}
                    other => other?,
                }
                continue;
            }
            let from = staging.join(&e.entry);
            match std::fs::hard_link(&from, &to) {
                Ok(()) => {}
                Err(err) if err.kind() == std::io::ErrorKind::AlreadyExists => return Err(err),
                // No hard links here (FAT, some network shares): a copy to a new file.
                Err(_) => {
                    let mut out = std::fs::OpenOptions::new()
                        .write(true)
                        .create_new(true)
                        .open(&to)?;
                    std::io::copy(&mut File::open(&from)?, &mut out)?;
                    out.sync_all()?;
                }
            }
        }
        Ok(())
    })();
    placed?;
    std::fs::remove_dir_all(&staging)
}

/// After an interrupted `extract_into`: removes what it placed (files identical to their staged
/// copy, then the folders it created if empty) and the staging folder, so it can run again.
/// Files that are not the staged copy are left alone.
pub fn undo_extract_into(
    archive: &Path,
    target: &Path,
    entries: &[crate::graph::ExtractedEntry],
) -> std::io::Result<()> {
    let staging = staging_dir(target, archive);
    for e in entries.iter().filter(|e| !e.is_dir) {
        let (to, staged) = (target.join(&e.to), staging.join(&e.entry));
        if same_content(&to, &staged) {
            std::fs::remove_file(&to)?;
        }
    }
    for e in entries.iter().rev().filter(|e| e.is_dir) {
        // Only when empty: anything else in it is not this extraction's.
        let _ = std::fs::remove_dir(target.join(&e.to));
    }
    match std::fs::remove_dir_all(&staging) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Both are files with the same bytes (a hard link to the other counts).
fn same_content(a: &Path, b: &Path) -> bool {
    let (Ok(ma), Ok(mb)) = (std::fs::symlink_metadata(a), std::fs::symlink_metadata(b)) else {
        return false;
    };
    if !ma.is_file() || !mb.is_file() || ma.len() != mb.len() {
        return false;
    }
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::entry_path;

    #[test]
    fn entry_paths_are_read_as_windows_reads_them() {
        for (raw, windows, want) in [
            (r"docs\notes.txt", false, Ok("docs/notes.txt")),
            (r".\a\\b\", false, Ok("a/b")),
            (r"..\..\Temp\evil.txt", false, Err("climbs out")),
            (r"a/b/../../../x", false, Err("climbs out")),
            (r"C:\evil.txt", false, Err("a drive letter (`C:`)")),
            ("c:evil.txt", false, Err("a drive letter (`c:`)")),
            // Found by the fuzzer: a drive letter behind `./`.
            ("./a:a", false, Err("a drive letter (`a:`)")),
            (r"\\?\C:\evil.txt", false, Err("a network path")),
            ("//server/share/x", false, Err("a network path")),
            ("/etc/passwd", false, Err("an absolute path")),
            ("./", false, Err("an empty name")),
            // Names Linux holds but Windows cannot: refused only where Windows reads them.
            ("docs/CON", false, Ok("docs/CON")),
            ("docs/CON", true, Err("reserves for a device (`CON`)")),
            ("nul.txt", true, Err("reserves for a device")),
            ("Com1.tar.gz", true, Err("reserves for a device")),
            ("console.txt", true, Ok("console.txt")),
            ("notes:stream", true, Err("forbids in names (':'")),
            ("what?.txt", true, Err("forbids in names ('?'")),
            ("trailing. ", true, Err("ending in a dot or space")),
            ("folder./x", true, Err("ending in a dot or space")),
        ] {
            let got = entry_path(raw, windows);
            match (&got, want) {
                (Ok(path), Ok(want)) => assert_eq!(path, want, "{raw}"),
                (Err(why), Err(want)) => assert!(why.contains(want), "{raw}: {why}"),
                _ => panic!("{raw} (windows: {windows}): {got:?}, want {want:?}"),
            }
        }
    }
}
