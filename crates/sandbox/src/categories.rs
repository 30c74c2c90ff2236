//! The extension → category table used by organize-by-type and analyze-directory.

// The default table is data every crate may read (a skill's `reads` names its categories).
pub use contracts::file_kinds::{CATEGORIES, OTHER, category_of};

/// The category table in use: overrides (the config's `categories`, then a call's) are looked up
/// before the default table. Extensions are kept lower-case without the dot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CategoryTable {
    overrides: Vec<(String, Vec<String>)>,
}

impl CategoryTable {
    pub fn new(overrides: impl IntoIterator<Item = (String, Vec<String>)>) -> Self {
        let overrides = overrides
            .into_iter()
            .map(|(name, exts)| {
                let exts = exts
                    .iter()
                    .map(|e| e.trim().trim_start_matches('.').to_ascii_lowercase())
                    .filter(|e| !e.is_empty())
                    .collect();
                (name, exts)
            })
            .collect();
        CategoryTable { overrides }
    }

    /// This table with `first` looked up before it (a call's own categories).
    pub fn with_first(&self, first: Vec<(String, Vec<String>)>) -> Self {
        let mut all = CategoryTable::new(first).overrides;
        all.extend(self.overrides.iter().cloned());
        CategoryTable { overrides: all }
    }

    /// The category folder for an extension (lower-case, no dot); `Other` when unknown or missing.
    pub fn category(&self, extension: Option<&str>) -> String {
        extension
            .and_then(|e| {
                self.overrides
                    .iter()
                    .find(|(_, exts)| exts.iter().any(|x| x == e))
            })
            .map_or_else(|| category_of(extension).to_owned(), |(c, _)| c.clone())
    }

    /// Every category folder name: the overrides', the defaults' and `Other`.
    pub fn folder_names(&self) -> Vec<String> {
        let mut names: Vec<String> = self.overrides.iter().map(|(c, _)| c.clone()).collect();
        names.extend(CATEGORIES.iter().map(|(c, _)| (*c).to_owned()));
        names.push(OTHER.to_owned());
        names
    }
}

/// (offset, bytes) that must be found in a file's head.
type Magic = (usize, &'static [u8]);

/// Magic numbers: every (offset, bytes) of a row must match; the first matching row wins.
const MAGIC: &[(&[Magic], &str)] = &[
    (&[(0, b"%PDF-")], "pdf"),
    (&[(0, b"\x89PNG\r\n\x1a\n")], "png"),
    (&[(0, b"\xff\xd8\xff")], "jpg"),
    (&[(0, b"GIF87a")], "gif"),
    (&[(0, b"GIF89a")], "gif"),
    (&[(0, b"RIFF"), (8, b"WEBP")], "webp"),
    (&[(0, b"RIFF"), (8, b"WAVE")], "wav"),
    (&[(0, b"RIFF"), (8, b"AVI ")], "avi"),
    (&[(4, b"ftypheic")], "heic"),
    (&[(4, b"ftypheix")], "heic"),
    (&[(4, b"ftypmif1")], "heic"),
    (&[(4, b"ftypqt  ")], "mov"),
    (&[(4, b"ftyp")], "mp4"),
    (&[(0, b"\x1aE\xdf\xa3")], "mkv"),
    (&[(0, b"ID3")], "mp3"),
    (&[(0, b"\xff\xfb")], "mp3"),
    (&[(0, b"\xff\xf3")], "mp3"),
    (&[(0, b"fLaC")], "flac"),
    (&[(0, b"OggS")], "ogg"),
    (&[(0, b"PK\x03\x04")], "zip"),
    (&[(0, b"PK\x05\x06")], "zip"),
    (&[(0, b"\x1f\x8b")], "gz"),
    (&[(0, b"7z\xbc\xaf\x27\x1c")], "7z"),
    (&[(0, b"Rar!\x1a\x07")], "rar"),
    (&[(0, b"\x28\xb5\x2f\xfd")], "zst"),
    (&[(0, b"BZh")], "bz2"),
    (&[(0, b"\xfd7zXZ\x00")], "xz"),
    (&[(257, b"ustar")], "tar"),
    (&[(0, b"SQLite format 3\x00")], "sqlite"),
    (&[(0, b"MZ")], "exe"),
    (&[(0, b"#!")], "sh"),
    (&[(0, b"wOFF")], "woff"),
    (&[(0, b"wOF2")], "woff2"),
];

/// The extension a file's first bytes say it has (magic numbers), for files without one.
pub fn sniff_extension(head: &[u8]) -> Option<&'static str> {
    MAGIC
        .iter()
        .find(|(checks, _)| {
            checks
                .iter()
                .all(|(at, magic)| head.get(*at..at + magic.len()) == Some(*magic))
        })
        .map(|(_, ext)| *ext)
}

/// Files that belong next to another file of the same name: (sidecar extension, the extensions
/// of the files it belongs to). Subtitles go with videos, XMP/THM with photos, CUE/LRC with audio.
pub const SIDECARS: &[(&str, &[&str])] = &[
    ("srt", VIDEO),
    ("vtt", VIDEO),
    ("ass", VIDEO),
    ("ssa", VIDEO),
    ("sub", VIDEO),
    ("idx", VIDEO),
    ("xmp", PHOTOS),
    ("thm", PHOTOS),
    ("aae", PHOTOS),
    ("cue", AUDIO),
    ("lrc", AUDIO),
];
const VIDEO: &[&str] = &[
    "mp4", "mkv", "mov", "avi", "wmv", "webm", "m4v", "mpg", "mpeg", "flv",
];
const PHOTOS: &[&str] = &[
    "jpg", "jpeg", "heic", "heif", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "tif",
    "tiff", "png",
];
const AUDIO: &[&str] = &["flac", "wav", "mp3", "ape", "ogg", "m4a"];

/// The extensions a sidecar extension belongs next to, if it is one.
pub fn sidecar_of(extension: &str) -> Option<&'static [&'static str]> {
    SIDECARS
        .iter()
        .find(|(e, _)| *e == extension)
        .map(|(_, main)| *main)
}

/// One piece of a file split in parts: the name shared by all pieces and the extension of the
/// whole (`film.part2.mkv` → ("film", mkv), `backup.zip.003` → ("backup", zip),
/// `photos.z01` → ("photos", zip), `set.r00` → ("set", rar), `big.iso.part1` → ("big", iso)).
pub fn split_part(name: &str) -> Option<(String, Option<String>)> {
    let lower = name.to_ascii_lowercase();
    let pieces: Vec<&str> = lower.split('.').collect();
    if pieces.len() < 2 || pieces[0].is_empty() {
        return None;
    }
    let last = pieces[pieces.len() - 1];
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let is_part = |s: &str| s.strip_prefix("part").is_some_and(digits);
    let stem_len = |n: usize| pieces[..n].join(".").len();
    let base = |n: usize| name[..stem_len(n)].to_owned();
    let n = pieces.len();
    // name.part2.mkv
    if n >= 3 && is_part(pieces[n - 2]) {
        return Some((base(n - 2), Some(last.to_owned())));
    }
    // name.ext.part1 / name.ext.001
    if n >= 3 && (is_part(last) || (digits(last) && last.len() == 3)) {
        return Some((base(n - 2), Some(pieces[n - 2].to_owned())));
    }
    // name.z01 (split zip), name.r00 (split rar)
    if n >= 2 && last.len() == 3 && digits(&last[1..]) {
        let whole = match &last[..1] {
            "z" => "zip",
            "r" => "rar",
            _ => return None,
        };
        return Some((base(n - 1), Some(whole.to_owned())));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_name_their_whole() {
        let cases = [
            ("film.part2.mkv", Some(("film", Some("mkv")))),
            ("backup.zip.003", Some(("backup", Some("zip")))),
            ("photos.z01", Some(("photos", Some("zip")))),
            ("set.r00", Some(("set", Some("rar")))),
            ("big.iso.part1", Some(("big", Some("iso")))),
            (
                "Report.Final.part10.rar",
                Some(("Report.Final", Some("rar"))),
            ),
            ("movie.mkv", None),
            ("notes.z", None),
            ("v1.2.003.txt", None),
            (".part1", None),
        ];
        for (name, want) in cases {
            let got = split_part(name);
            let want = want.map(|(b, e)| (b.to_owned(), e.map(str::to_owned)));
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn magic_numbers_name_the_type() {
        let mut tar = vec![0u8; 512];
        tar[257..262].copy_from_slice(b"ustar");
        let cases: [(&[u8], Option<&str>); 8] = [
            (b"%PDF-1.7\n", Some("pdf")),
            (b"\x89PNG\r\n\x1a\n....", Some("png")),
            (b"\0\0\0\x18ftypmp42", Some("mp4")),
            (b"ID3\x04", Some("mp3")),
            (b"PK\x03\x04", Some("zip")),
            (&tar, Some("tar")),
            (b"hello world", None),
            (b"", None),
        ];
        for (head, want) in cases {
            assert_eq!(sniff_extension(head), want, "{head:?}");
        }
    }

    #[test]
    fn overrides_come_before_the_defaults() {
        let t = CategoryTable::new([("Photos".to_owned(), vec![".JPG".to_owned()])])
            .with_first(vec![("Vector".to_owned(), vec!["svg".to_owned()])]);
        assert_eq!(t.category(Some("jpg")), "Photos");
        assert_eq!(t.category(Some("svg")), "Vector");
        assert_eq!(t.category(Some("png")), "Images");
        assert_eq!(t.category(None), "Other");
        assert_eq!(t.folder_names()[..2], ["Vector", "Photos"]);
    }
}
