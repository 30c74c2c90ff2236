//! Text and metadata extraction for parse-content, batch-rename's `{exif.date}` and the
//! ContentIndex: plain text, markdown, code, CSV, JSON, HTML, PDF, office documents, EXIF of
//! images and audio tags.
//!
//! Pure core: every parser reads from the `Read + Seek` it is handed and never opens a file;
//! `content.rs` (extract_text) and the retrieval crate's ContentIndex do the IO.

mod audio;
pub mod markup;
mod office;
mod pdf;
mod photo;
pub mod samples;

use std::io::{BufRead, Read, Seek};

use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::categories::sniff_extension;

/// What a file holds, as far as extraction is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ContentKind {
    Text,
    Markdown,
    Code,
    Csv,
    Json,
    Html,
    Pdf,
    Office,
    Image,
    Audio,
    Binary,
}

impl ContentKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ContentKind::Text => "text",
            ContentKind::Markdown => "markdown",
            ContentKind::Code => "code",
            ContentKind::Csv => "csv",
            ContentKind::Json => "json",
            ContentKind::Html => "html",
            ContentKind::Pdf => "pdf",
            ContentKind::Office => "office",
            ContentKind::Image => "image",
            ContentKind::Audio => "audio",
            ContentKind::Binary => "binary",
        }
    }

    /// Kinds whose whole text is the file itself (read up to the byte limit).
    pub fn is_plain(self) -> bool {
        matches!(
            self,
            ContentKind::Text
                | ContentKind::Markdown
                | ContentKind::Code
                | ContentKind::Csv
                | ContentKind::Json
                | ContentKind::Html
        )
    }
}

/// What extraction found: the text (summary lines for images and audio) and the metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct Parsed {
    pub kind: ContentKind,
    pub text: String,
    pub metadata: Map<String, Value>,
    /// The text stops at the byte limit; the file holds more.
    pub truncated: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    #[error("binary file with no text or metadata to extract")]
    Binary,
    #[error("{format} could not be read: {message}")]
    Format {
        format: &'static str,
        message: String,
    },
    #[error("{0}")]
    Io(#[from] std::io::Error),
}

const MARKDOWN: &[&str] = &["markdown", "md", "mdx", "rst"];
const CODE: &[&str] = &[
    "bash", "bat", "c", "cc", "cpp", "cs", "css", "go", "h", "hpp", "java", "js", "jsx", "kt",
    "lua", "php", "pl", "ps1", "py", "r", "rb", "rs", "scala", "scss", "sh", "sql", "swift", "ts",
    "tsx", "zsh",
];
const TEXT: &[&str] = &[
    "cfg", "conf", "env", "ini", "log", "srt", "tex", "toml", "txt", "vtt", "yaml", "yml",
];
const PDF: &[&str] = &["pdf"];
const OFFICE: &[&str] = &["docx", "pptx", "xlsx", "odt", "ods", "odp", "epub"];
const IMAGE: &[&str] = &[
    "arw", "avif", "bmp", "cr2", "dng", "gif", "heic", "heif", "jpeg", "jpg", "nef", "orf", "png",
    "raf", "rw2", "tif", "tiff", "webp",
];
const AUDIO: &[&str] = &[
    "aac", "aif", "aiff", "ape", "flac", "m4a", "m4b", "mp3", "mpc", "oga", "ogg", "opus", "spx",
    "wav", "wv",
];
/// Extensions that are never text even when their first bytes look like it.
const BINARY: &[&str] = &[
    "7z", "avi", "bin", "class", "db", "dll", "dmg", "doc", "exe", "gz", "iso", "jar", "mkv",
    "mov", "mp4", "o", "ppt", "rar", "so", "sqlite", "tar", "tgz", "wasm", "webm", "xls", "xz",
    "zip", "zst",
];

/// The kind of a file from its extension, or (without one, or an unknown one) from its first
/// bytes: magic numbers, then "does it decode as text".
pub fn kind_of(extension: Option<&str>, head: &[u8]) -> ContentKind {
    let by_ext = |e: &str| {
        let e = e.to_ascii_lowercase();
        let e = e.as_str();
        Some(match e {
            "csv" | "tsv" => ContentKind::Csv,
            "json" | "jsonl" | "ndjson" | "geojson" => ContentKind::Json,
            "html" | "htm" | "xhtml" | "xml" | "svg" => ContentKind::Html,
            _ if MARKDOWN.contains(&e) => ContentKind::Markdown,
            _ if CODE.contains(&e) => ContentKind::Code,
            _ if TEXT.contains(&e) => ContentKind::Text,
            _ if PDF.contains(&e) => ContentKind::Pdf,
            _ if OFFICE.contains(&e) => ContentKind::Office,
            _ if IMAGE.contains(&e) => ContentKind::Image,
            _ if AUDIO.contains(&e) => ContentKind::Audio,
            _ if BINARY.contains(&e) => ContentKind::Binary,
            _ => return None,
        })
    };
    if let Some(kind) = extension.and_then(by_ext) {
        return kind;
    }
    if let Some(kind) = sniff_extension(head).and_then(by_ext) {
        return kind;
    }
    if looks_like_text(head) {
        ContentKind::Text
    } else {
        ContentKind::Binary
    }
}

/// No NUL byte and at most 1% undecodable characters.
pub fn looks_like_text(bytes: &[u8]) -> bool {
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return false;
    }
    let sample = &bytes[..bytes.len().min(1 << 16)];
    let chunks: Vec<_> = sample.utf8_chunks().collect();
    let (mut chars, mut bad) = (0, 0);
    for (i, chunk) in chunks.iter().enumerate() {
        chars += chunk.valid().chars().count();
        // A multi-byte character cut at the end of a sample is not a decoding error.
        let cut_at_end = i + 1 == chunks.len() && chunk.invalid().len() < 4;
        if !chunk.invalid().is_empty() && !cut_at_end {
            bad += 1;
        }
    }
    bad * 100 <= (chars + bad).max(1)
}

/// Extracts a file's text (at most `max_text` bytes of it) and metadata. `extension` is the
/// file's own (lowercase, without the dot) or `None`; the kind falls back to the first bytes.
pub fn parse<R: BufRead + Seek>(
    reader: &mut R,
    extension: Option<&str>,
    max_text: usize,
) -> Result<Parsed, ParseError> {
    let start = reader.stream_position()?;
    let mut head = Vec::new();
    reader.by_ref().take(512).read_to_end(&mut head)?;
    reader.seek(std::io::SeekFrom::Start(start))?;
    let kind = kind_of(extension, &head);
    match kind {
        ContentKind::Binary => Err(ParseError::Binary),
        ContentKind::Pdf => {
            let mut bytes = Vec::new();
            reader.take(MAX_PDF_BYTES + 1).read_to_end(&mut bytes)?;
            if bytes.len() as u64 > MAX_PDF_BYTES {
                return Err(ParseError::Format {
                    format: "PDF",
                    message: format!("larger than {} MiB", MAX_PDF_BYTES >> 20),
                });
            }
            pdf::parse_pdf(&bytes, max_text)
        }
        ContentKind::Office => {
            let ext = extension
                .map(str::to_ascii_lowercase)
                .or_else(|| sniff_extension(&head).map(str::to_owned))
                .unwrap_or_default();
            office::parse_office(reader, &ext, max_text)
        }
        ContentKind::Image => photo::parse_image(reader),
        ContentKind::Audio => audio::parse_audio(reader),
        plain => {
            let mut bytes = Vec::new();
            reader.take(max_text as u64 + 1).read_to_end(&mut bytes)?;
            let truncated = bytes.len() > max_text;
            bytes.truncate(max_text);
            // A character cut by the limit is dropped, not shown as a replacement character.
            if let Err(e) = std::str::from_utf8(&bytes)
                && e.error_len().is_none()
            {
                bytes.truncate(e.valid_up_to());
            }
            if !looks_like_text(&bytes) {
                return Err(ParseError::Binary);
            }
            let raw = String::from_utf8_lossy(&bytes).into_owned();
            Ok(parse_plain(plain, raw, truncated))
        }
    }
}

/// The date a photo was taken, from its EXIF, as `YYYY-MM-DDTHH:MM:SS`.
pub fn date_taken<R: BufRead + Seek>(reader: &mut R) -> Option<String> {
    photo::date_taken(reader)
}

/// Most bytes of a PDF loaded to extract its text.
pub const MAX_PDF_BYTES: u64 = 256 << 20;

fn parse_plain(kind: ContentKind, raw: String, truncated: bool) -> Parsed {
    let mut metadata = Map::new();
    let text = match kind {
        ContentKind::Html => {
            if let Some(t) = markup::title_of(&raw) {
                metadata.insert("title".into(), json!(t));
            }
            markup::markup_to_text(&raw)
        }
        ContentKind::Markdown => {
            let headings = markdown_headings(&raw);
            if let Some((_, t)) = headings.iter().find(|(level, _)| *level == 1) {
                metadata.insert("title".into(), json!(t));
            }
            if !headings.is_empty() {
                let list: Vec<Value> = headings
                    .iter()
                    .take(100)
                    .map(|(l, t)| json!({"level": l, "text": t}))
                    .collect();
                metadata.insert("headings".into(), Value::Array(list));
            }
            raw
        }
        ContentKind::Csv => {
            table_metadata(&raw, &mut metadata);
            raw
        }
        ContentKind::Json => {
            json_metadata(&raw, truncated, &mut metadata);
            raw
        }
        _ => raw,
    };
    Parsed {
        kind,
        text,
        metadata,
        truncated,
    }
}

/// ATX headings (`# Title`) outside fenced code blocks.
fn markdown_headings(text: &str) -> Vec<(usize, String)> {
    let mut fenced = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        if t.starts_with("```") || t.starts_with("~~~") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let level = t.chars().take_while(|c| *c == '#').count();
        if (1..=6).contains(&level) && t[level..].starts_with(' ') {
            out.push((
                level,
                t[level..].trim().trim_end_matches('#').trim().to_owned(),
            ));
        }
    }
    out
}

/// Rows, columns, the separator and the header row of a CSV/TSV text (quotes respected).
fn table_metadata(text: &str, m: &mut Map<String, Value>) {
    let first = text.lines().next().unwrap_or_default();
    let sep = [',', ';', '\t', '|']
        .into_iter()
        .max_by_key(|s| first.matches(*s).count())
        .filter(|s| first.contains(*s))
        .unwrap_or(',');
    let rows = text.lines().filter(|l| !l.trim().is_empty()).count();
    let header = split_row(first, sep);
    m.insert("separator".into(), json!(sep.to_string()));
    m.insert("rows".into(), json!(rows));
    m.insert("columns".into(), json!(header.len()));
    m.insert("header".into(), json!(header));
}

fn split_row(line: &str, sep: char) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            c if c == sep && !quoted => cells.push(std::mem::take(&mut cell).trim().to_owned()),
            c => cell.push(c),
        }
    }
    cells.push(cell.trim().to_owned());
    cells
}

/// Valid or not (with where it breaks), the top-level type, keys or length. JSON Lines count
/// their records.
fn json_metadata(text: &str, truncated: bool, m: &mut Map<String, Value>) {
    if truncated {
        m.insert("valid".into(), Value::Null);
        return;
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) => {
            m.insert("valid".into(), json!(true));
            match &v {
                Value::Object(o) => {
                    m.insert("type".into(), json!("object"));
                    // Sorted, whatever order serde_json keeps maps in.
                    let mut keys: Vec<&String> = o.keys().collect();
                    keys.sort();
                    keys.truncate(100);
                    m.insert("keys".into(), json!(keys));
                }
                Value::Array(a) => {
                    m.insert("type".into(), json!("array"));
                    m.insert("length".into(), json!(a.len()));
                }
                other => {
                    m.insert("type".into(), json!(json_type(other)));
                }
            }
        }
        Err(e) => {
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            if lines.len() > 1
                && lines
                    .iter()
                    .all(|l| serde_json::from_str::<Value>(l).is_ok())
            {
                m.insert("valid".into(), json!(true));
                m.insert("type".into(), json!("lines"));
                m.insert("records".into(), json!(lines.len()));
            } else {
                m.insert("valid".into(), json!(false));
                m.insert(
                    "error".into(),
                    json!(format!("line {} column {}: {e}", e.line(), e.column())),
                );
            }
        }
    }
}

fn json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The text cut to at most `max` bytes at a character boundary; `true` when something was cut.
pub(crate) fn clip(mut text: String, max: usize) -> (String, bool) {
    if text.len() <= max {
        return (text, false);
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    (text, true)
}
