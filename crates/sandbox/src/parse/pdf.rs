//! PDF text and document information through lopdf (pages' text in reading order as the
//! content streams draw it; Title, Author, Subject, Creator, Producer, dates).

use lopdf::{Document, Object};
use serde_json::{Map, Value, json};

use super::{ContentKind, ParseError, Parsed, clip};

/// Most decompressed bytes of one page's content streams (a "zip bomb" page stops here).
const MAX_PAGE_CONTENT: usize = 64 << 20;

pub fn parse_pdf(bytes: &[u8], max_text: usize) -> Result<Parsed, ParseError> {
    let bad = |message: String| ParseError::Format {
        format: "PDF",
        message,
    };
    let doc = Document::load_mem(bytes).map_err(|e| bad(e.to_string()))?;
    let pages: Vec<u32> = doc.get_pages().keys().copied().collect();
    let mut metadata = Map::new();
    metadata.insert("pages".into(), json!(pages.len()));
    if doc.is_encrypted() {
        metadata.insert("encrypted".into(), json!(true));
    }
    for (key, name) in [
        (&b"Title"[..], "title"),
        (b"Author", "author"),
        (b"Subject", "subject"),
        (b"Keywords", "keywords"),
        (b"Creator", "creator"),
        (b"Producer", "producer"),
    ] {
        if let Some(v) = info_string(&doc, key) {
            metadata.insert(name.into(), json!(v));
        }
    }
    for (key, name) in [(&b"CreationDate"[..], "created"), (b"ModDate", "modified")] {
        if let Some(v) = info_string(&doc, key).and_then(|d| pdf_date(&d)) {
            metadata.insert(name.into(), json!(v));
        }
    }
    let mut text = String::new();
    let mut unreadable = Vec::new();
    for page in &pages {
        if text.len() > max_text {
            break;
        }
        match doc.extract_text_with_limit(&[*page], MAX_PAGE_CONTENT) {
            Ok(t) => {
                let t = t.trim();
                if !t.is_empty() {
                    if !text.is_empty() {
                        text.push_str("\n\n");
                    }
                    text.push_str(t);
                }
            }
            Err(_) => unreadable.push(*page),
        }
    }
    if !unreadable.is_empty() {
        metadata.insert("unreadable_pages".into(), json!(unreadable));
    }
    if text.is_empty() && !pages.is_empty() {
        metadata.insert(
            "note".into(),
            Value::from("no text layer (a scanned PDF needs OCR, which is not done here)"),
        );
    }
    let (text, truncated) = clip(text, max_text);
    Ok(Parsed {
        kind: ContentKind::Pdf,
        text,
        metadata,
        truncated,
    })
}

fn info_string(doc: &Document, key: &[u8]) -> Option<String> {
    let info = match doc.trailer.get(b"Info").ok()? {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        other => other,
    };
    let value = info.as_dict().ok()?.get(key).ok()?;
    let value = match value {
        Object::Reference(id) => doc.get_object(*id).ok()?,
        other => other,
    };
    let s = lopdf::decode_text_string(value).ok()?;
    let s = s.trim().trim_matches('\0').to_owned();
    (!s.is_empty()).then_some(s)
}

/// `D:20240503142211+02'00'` → `2024-05-03T14:22:11`; partial dates keep what they have.
fn pdf_date(raw: &str) -> Option<String> {
    let d = raw.strip_prefix("D:").unwrap_or(raw);
    let digits: String = d.chars().take_while(char::is_ascii_digit).collect();
    if digits.len() < 4 {
        return None;
    }
    let part =
        |from: usize, default: &str| digits.get(from..from + 2).unwrap_or(default).to_owned();
    Some(format!(
        "{}-{}-{}T{}:{}:{}",
        &digits[..4],
        part(4, "01"),
        part(6, "01"),
        part(8, "00"),
        part(10, "00"),
        part(12, "00")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pdf_dates_read_partial_forms() {
        assert_eq!(
            pdf_date("D:20240503142211+02'00'").as_deref(),
            Some("2024-05-03T14:22:11")
        );
        assert_eq!(pdf_date("D:2024").as_deref(), Some("2024-01-01T00:00:00"));
        assert_eq!(pdf_date("yesterday"), None);
    }
}
