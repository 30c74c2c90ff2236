//! A file's tags on disk: the freedesktop extended attribute `user.xdg.tags` (comma-separated),
//! which file managers on Linux read. macOS keeps the same attribute (Finder's own tags, a binary
//! plist in `com.apple.metadata:_kMDItemUserTags`, are not written yet); Windows has none, so
//! tagging there is refused.

use std::path::Path;

/// The attribute holding the tags.
pub const TAGS_ATTRIBUTE: &str = "user.xdg.tags";

/// Tags as a sorted, de-duplicated list (case kept, trimmed, empty ones dropped).
pub fn normalize(tags: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in tags {
        let t = t.trim().replace(',', " ");
        if !t.is_empty() && !out.iter().any(|o| o.eq_ignore_ascii_case(&t)) {
            out.push(t);
        }
    }
    out.sort_by_key(|t| t.to_lowercase());
    out
}

/// The tags of the file at `path` (none when it has no attribute).
#[cfg(unix)]
pub fn read(path: &Path) -> std::io::Result<Vec<String>> {
    Ok(match xattr::get(path, TAGS_ATTRIBUTE)? {
        Some(bytes) => normalize(
            String::from_utf8_lossy(&bytes)
                .split(',')
                .map(str::to_owned),
        ),
        None => Vec::new(),
    })
}

/// Gives the file at `path` exactly `tags` (removes the attribute when there are none).
#[cfg(unix)]
pub fn write(path: &Path, tags: &[String]) -> std::io::Result<()> {
    if tags.is_empty() {
        match xattr::remove(path, TAGS_ATTRIBUTE) {
            Err(e) if xattr_absent(&e) => Ok(()),
            other => other,
        }
    } else {
        xattr::set(path, TAGS_ATTRIBUTE, tags.join(",").as_bytes())
    }
}

#[cfg(unix)]
fn xattr_absent(e: &std::io::Error) -> bool {
    // ENODATA on Linux, ENOATTR on macOS.
    e.raw_os_error()
        .is_some_and(|c| c == libc::ENODATA || c == 93)
}

#[cfg(not(unix))]
pub fn read(_path: &Path) -> std::io::Result<Vec<String>> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "tags (extended attributes) are not supported on this system",
    ))
}

#[cfg(not(unix))]
pub fn write(_path: &Path, _tags: &[String]) -> std::io::Result<()> {
    read(_path).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_through_the_extended_attribute() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a.txt");
        std::fs::write(&f, "a").unwrap();
        assert_eq!(read(&f).unwrap(), Vec::<String>::new());
        let tags = normalize(["Work".into(), " 2024 ".into(), "work".into(), "".into()]);
        assert_eq!(tags, ["2024", "Work"]);
        write(&f, &tags).unwrap();
        assert_eq!(read(&f).unwrap(), tags);
        write(&f, &[]).unwrap();
        assert_eq!(read(&f).unwrap(), Vec::<String>::new());
        write(&f, &[]).unwrap();
    }
}
