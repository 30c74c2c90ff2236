//! What a clause says about an archive to make: its format (also from the target's name), how hard
//! to compress, and whether the originals go afterwards. Pure.

use std::sync::LazyLock;

use regex::Regex;

use super::Slots;
use super::lexicon::*;
use super::places::is_archive_name;

/// The archive format `text` names ("tar.zst", "tarball", "zip"), if any.
pub(super) fn format_in(text: &str) -> Option<&'static str> {
    let text = text.to_lowercase();
    // "Backup/ml-papers.tar", "a plain tar": a tar with no compression.
    if text.ends_with(".tar")
        || ["plain tar", "uncompressed tar", "tar without compression"]
            .iter()
            .any(|p| text.contains(p))
    {
        return Some("tar");
    }
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
        if text.contains(word) || text.ends_with(word.trim()) && word.starts_with(' ') {
            return Some(fmt);
        }
    }
    None
}

/// Reads the archive words of `text` into `s` (the format of an archive named as the target is
/// read once the places are known: "which files are packed in mail.tar.zst" makes nothing).
pub(super) fn read(s: &mut Slots, text: &mut String) {
    let lower_text = text.to_lowercase();
    s.format = format_in(text).map(str::to_owned);
    // "… and delete the originals", not "without deleting the originals".
    if let Some(m) = DELETE_ORIGINALS.find(&lower_text) {
        let before: Vec<&str> = lower_text[..m.start()].split_whitespace().collect();
        let negated = before
            .iter()
            .rev()
            .take(2)
            .any(|w| matches!(*w, "without" | "not" | "don't" | "never" | "no"));
        s.delete_originals = !negated;
        // "remove the clips themselves": what goes is what was packed, no kind of file to pick.
        if s.delete_originals && lower_text.len() == text.len() {
            super::cut(text, m.range());
        }
    }
    // "zstd level 19", "at compression level 6".
    let words: Vec<&str> = lower_text.split_whitespace().collect();
    s.level = words.windows(2).find_map(|w| {
        (w[0] == "level" || w[0] == "-l")
            .then(|| w[1].trim_end_matches([',', ';', '.']).parse::<u64>().ok())
            .flatten()
            .filter(|l| *l <= 22)
    });
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

/// "put Documents/School/Year 10 into a zip file, Backup/year-10.zip": a format said after
/// "into a" names the archive to make, not a kind of file to select; an archive's name said after
/// it is where that archive goes.
pub(super) fn archive_to_make(s: &mut Slots, text: &str) {
    static TO_MAKE: LazyLock<Regex> = LazyLock::new(|| {
        re(
            r"(?i)\b(?:into|as|in|to)\s+(?:a|an|one|a single)\s+\.?(zip|7z|tgz|tarball|tar(?:\.gz|\.zst|\.bz2|\.xz)?)\b(?:\s+(?:file|archive|folder))?",
        )
    });
    let Some(c) = TO_MAKE.captures(text) else {
        return;
    };
    let format = c[1].to_lowercase();
    s.extensions.retain(|e| *e != format);
    let after = &text[c.get(0).map_or(0, |m| m.end())..];
    if s.targets.is_empty()
        && s.objects.len() >= 2
        && let Some(i) = s
            .objects
            .iter()
            .rposition(|o| is_archive_name(o) && after.contains(o.as_str()))
        && i > 0
    {
        let target = s.objects.remove(i);
        s.targets.push(target);
    }
}
