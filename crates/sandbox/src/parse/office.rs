//! Office documents (zip of XML): Word/Writer text, PowerPoint/Impress slides, Excel/Calc
//! strings and cells, EPUB chapters; title and author from the document properties.

use std::io::{Read, Seek};

use serde_json::{Map, json};

use super::markup::{element_text, markup_to_text};
use super::{ContentKind, ParseError, Parsed, clip};

/// Most decompressed bytes read from one part of the archive.
const MAX_PART: u64 = 64 << 20;

pub fn parse_office<R: Read + Seek>(
    reader: R,
    ext: &str,
    max_text: usize,
) -> Result<Parsed, ParseError> {
    let bad = |message: String| ParseError::Format {
        format: "office document",
        message,
    };
    let mut zip = zip::ZipArchive::new(reader).map_err(|e| bad(e.to_string()))?;
    let mut names: Vec<String> = zip
        .file_names()
        .filter_map(|n| n.ok().map(|n| n.into_owned()))
        .collect();
    names.sort_by_key(|n| part_order(n));
    let parts: Vec<&String> = names.iter().filter(|n| is_text_part(ext, n)).collect();
    if parts.is_empty() {
        return Err(bad(format!("no text parts found for .{ext}")));
    }
    let mut text = String::new();
    let mut slides = 0;
    for name in parts {
        if text.len() > max_text {
            break;
        }
        let xml = read_part(&mut zip, name)?;
        let body = markup_to_text(&xml);
        if name.starts_with("ppt/slides/slide") {
            slides += 1;
        }
        if !body.is_empty() {
            if !text.is_empty() {
                text.push_str("\n\n");
            }
            text.push_str(&body);
        }
    }
    let mut metadata = Map::new();
    for core in ["docProps/core.xml", "meta.xml"] {
        if zip.index_for_name(core).is_some() {
            let xml = read_part(&mut zip, core)?;
            for (tag, key) in [
                ("dc:title", "title"),
                ("dc:creator", "author"),
                ("dc:subject", "subject"),
                ("dcterms:created", "created"),
                ("meta:creation-date", "created"),
            ] {
                if let Some(v) = element_text(&xml, tag) {
                    metadata.insert(key.into(), json!(v));
                }
            }
        }
    }
    if ext == "pptx" {
        metadata.insert("slides".into(), json!(slides));
    }
    let (text, truncated) = clip(text, max_text);
    Ok(Parsed {
        kind: ContentKind::Office,
        text,
        metadata,
        truncated,
    })
}

fn read_part<R: Read + Seek>(
    zip: &mut zip::ZipArchive<R>,
    name: &str,
) -> Result<String, ParseError> {
    let mut bytes = Vec::new();
    zip.by_name(name)
        .map_err(|e| ParseError::Format {
            format: "office document",
            message: format!("{name}: {e}"),
        })?
        .take(MAX_PART)
        .read_to_end(&mut bytes)?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The parts that hold a document's text, by format.
fn is_text_part(ext: &str, name: &str) -> bool {
    match ext {
        "docx" => {
            name == "word/document.xml"
                || name.starts_with("word/footnotes")
                || name.starts_with("word/endnotes")
        }
        "pptx" => name.starts_with("ppt/slides/slide") && name.ends_with(".xml"),
        "xlsx" => name == "xl/sharedStrings.xml",
        "odt" | "ods" | "odp" => name == "content.xml",
        "epub" => {
            (name.ends_with(".xhtml") || name.ends_with(".html") || name.ends_with(".htm"))
                && !name.contains("nav")
        }
        _ => false,
    }
}

/// Slides in their number order (slide2 before slide10); everything else by name.
fn part_order(name: &str) -> (String, u32) {
    let digits: String = name
        .trim_end_matches(".xml")
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let prefix = name[..name.len() - digits.len() - name.ends_with(".xml") as usize * 4].to_owned();
    (prefix, digits.parse().unwrap_or(0))
}
