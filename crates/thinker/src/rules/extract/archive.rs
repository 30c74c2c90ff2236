//! What a clause says about an archive to make: its format (also from the archive's name), how hard
//! to compress, and whether the originals go afterwards. Pure.

use super::Slots;
use super::lexicon::*;

/// Reads the archive words of `text` (and of its quoted or protected names) into `s`.
pub(super) fn read(s: &mut Slots, text: &str, quoted: &[String]) {
    let lower_text = text.to_lowercase();
    // The format may be in the name of the archive to make ("into Archive/old.tar.gz").
    let with_names = std::iter::once(text)
        .chain(quoted.iter().map(String::as_str))
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    for (word, fmt) in [
        ("tar.zst", "tar.zst"),
        ("zstd", "tar.zst"),
        ("zst", "tar.zst"),
        ("tar.gz", "tar.gz"),
        ("tarball", "tar.gz"),
        ("tgz", "tar.gz"),
        (".tar", "tar.gz"),
        (" tar ", "tar.gz"),
        ("zip", "zip"),
    ] {
        if with_names.contains(word) || with_names.ends_with(word.trim()) && word.starts_with(' ') {
            s.format = Some(fmt.into());
            break;
        }
    }
    if DELETE_ORIGINALS.is_match(&lower_text) {
        s.delete_originals = true;
    }
    // "with maximum compression", "as small as possible", "fast", "without compression".
    let said = |ws: &[&str]| ws.iter().any(|w| lower_text.contains(w));
    if said(&[
        "max compression",
        "maximum compression",
        "best compression",
        "highest compression",
        "strongest compression",
        "as small as possible",
        "smallest",
    ]) {
        s.compression = Some("max");
    } else if said(&[
        "no compression",
        "without compression",
        "uncompressed",
        "store only",
    ]) {
        s.compression = Some("none");
    } else if said(&[
        "fastest",
        "fast compression",
        "quick compression",
        "compress quickly",
    ]) {
        s.compression = Some("fast");
    }
}
