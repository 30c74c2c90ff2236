//! The kinds of file: the extension → category table organize-by-type sorts by and
//! analyze-directory counts by, and which a skill's `reads` names. Pure data.

/// (folder name, extensions). Order matters only for display.
pub const CATEGORIES: &[(&str, &[&str])] = &[
    (
        "Images",
        &[
            "jpg", "jpeg", "png", "gif", "bmp", "tif", "tiff", "webp", "heic", "heif", "svg",
            "ico", "raw", "cr2", "cr3", "nef", "arw", "dng", "orf", "rw2", "psd", "xcf", "avif",
        ],
    ),
    (
        "Documents",
        &[
            "pdf", "doc", "docx", "odt", "rtf", "txt", "md", "markdown", "tex", "pages", "xls",
            "xlsx", "ods", "ppt", "pptx", "odp", "key", "numbers", "rst", "org",
        ],
    ),
    (
        "Audio",
        &[
            "mp3", "wav", "flac", "aac", "ogg", "oga", "opus", "m4a", "wma", "aiff", "aif", "mid",
            "midi",
        ],
    ),
    (
        "Video",
        &[
            "mp4", "mkv", "mov", "avi", "wmv", "webm", "m4v", "mpg", "mpeg", "flv", "3gp", "srt",
            "vtt", "ass",
        ],
    ),
    (
        "Archives",
        &[
            "zip", "tar", "gz", "tgz", "bz2", "xz", "zst", "7z", "rar", "lz", "lzma", "cab",
        ],
    ),
    (
        "Code",
        &[
            "rs", "py", "js", "ts", "tsx", "jsx", "c", "h", "cpp", "hpp", "cc", "java", "kt", "go",
            "rb", "php", "swift", "cs", "sh", "bash", "zsh", "ps1", "lua", "pl", "r", "scala",
            "sql", "html", "htm", "css", "scss", "vue", "svelte", "ipynb",
        ],
    ),
    (
        "Data",
        &[
            "csv", "tsv", "json", "jsonl", "ndjson", "xml", "yaml", "yml", "toml", "ini",
            "parquet", "sqlite", "db", "avro", "arrow", "geojson",
        ],
    ),
    (
        "Installers",
        &[
            "exe", "msi", "dmg", "pkg", "deb", "rpm", "apk", "appimage", "flatpak", "snap", "iso",
            "img",
        ],
    ),
    ("Fonts", &["ttf", "otf", "woff", "woff2", "eot"]),
    (
        "Ebooks",
        &["epub", "mobi", "azw", "azw3", "fb2", "djvu", "cbz", "cbr"],
    ),
];

pub const OTHER: &str = "Other";

/// The category folder for an extension (lower-case, no dot); `Other` when unknown or missing.
pub fn category_of(extension: Option<&str>) -> &'static str {
    let Some(ext) = extension else { return OTHER };
    CATEGORIES
        .iter()
        .find(|(_, exts)| exts.contains(&ext))
        .map_or(OTHER, |(name, _)| name)
}
