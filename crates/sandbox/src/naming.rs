//! Descriptive file names from what a file says about itself, without a model: its title (PDF
//! and office document properties, a Markdown `# heading`, audio tags, else its first line of
//! text), its date (when the document was created or the photo taken, else when the file was
//! last modified), author and camera, filled into a pattern the person can edit
//! (`{date} {title}`). Pure: the facts come from the parsers.

use serde_json::{Map, Value};

/// The pattern used when the person gives none.
pub const DEFAULT_NAME_PATTERN: &str = "{date} {title}";

/// The longest title kept (characters), cut at a word.
const TITLE_CHARS: usize = 60;
/// The most words of a first line of text used as a title.
const FIRST_LINE_WORDS: usize = 8;

/// What a file says about itself, as far as names go.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileFacts {
    pub title: Option<String>,
    /// Where the title came from ("PDF title", "first heading", "first line").
    pub title_from: Option<&'static str>,
    /// ISO 8601 (`2024-03-05` or `2024-03-05T10:00:00`).
    pub date: Option<String>,
    pub date_from: Option<&'static str>,
    pub author: Option<String>,
    pub camera: Option<String>,
    /// The file's current name without its extension.
    pub stem: String,
}

fn text_of(metadata: &Map<String, Value>, key: &str) -> Option<String> {
    metadata
        .get(key)
        .and_then(Value::as_str)
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|s| !s.is_empty())
}

/// The facts of a file from its parsed metadata and text, its current stem and its modification
/// time (ISO, for files whose format records no date).
pub fn facts(
    metadata: &Map<String, Value>,
    text: &str,
    stem: &str,
    modified: Option<&str>,
) -> FileFacts {
    let (title, title_from) = match text_of(metadata, "title") {
        Some(t) => (Some(t), Some("the document's title")),
        None => match first_line(text) {
            Some(t) => (Some(t), Some("its first line")),
            None => (None, None),
        },
    };
    let dated = [
        ("created", "created"),
        ("date_taken", "taken"),
        ("date", "dated"),
    ]
    .into_iter()
    .find_map(|(key, from)| Some((text_of(metadata, key)?, from)));
    let (date, date_from) = match (dated, modified) {
        (Some((d, from)), _) => (Some(d), Some(from)),
        (None, Some(m)) => (Some(m.to_owned()), Some("last modified")),
        (None, None) => (None, None),
    };
    FileFacts {
        title: title.map(|t| shorten(&t)),
        title_from,
        date,
        date_from,
        author: text_of(metadata, "author").or_else(|| text_of(metadata, "artist")),
        camera: text_of(metadata, "camera_model"),
        stem: stem.to_owned(),
    }
}

/// The first line of text with letters in it, as a title: at most a few words, no Markdown marks.
fn first_line(text: &str) -> Option<String> {
    let line = text
        .lines()
        .map(|l| {
            l.trim()
                .trim_start_matches(['#', '>', '-', '*', ' '])
                .trim()
        })
        .find(|l| l.chars().filter(|c| c.is_alphabetic()).count() >= 3)?;
    let words: Vec<&str> = line.split_whitespace().take(FIRST_LINE_WORDS).collect();
    Some(words.join(" "))
}

/// At most `TITLE_CHARS` characters, cut at a word.
pub fn shorten(title: &str) -> String {
    if title.chars().count() <= TITLE_CHARS {
        return title.to_owned();
    }
    let mut out = String::new();
    for word in title.split_whitespace() {
        if out.chars().count() + word.chars().count() + 1 > TITLE_CHARS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// `date` (ISO) in `format` (`%Y`, `%m`, `%d`, `%H`, `%M`, `%S`).
pub fn format_date(iso: &str, format: &str) -> String {
    let part = |from: usize, to: usize| iso.get(from..to).unwrap_or("00");
    format
        .replace("%Y", part(0, 4))
        .replace("%m", part(5, 7))
        .replace("%d", part(8, 10))
        .replace("%H", part(11, 13))
        .replace("%M", part(14, 16))
        .replace("%S", part(17, 19))
}

/// A name a file system on any platform holds: no separators or characters Windows forbids, no
/// control characters, spaces collapsed, no leading or trailing dots and spaces.
pub fn clean_name(name: &str) -> String {
    let replaced: String = name
        .chars()
        .map(|c| match c {
            '/' | '\\' | ':' | '|' => '-',
            '<' | '>' | '"' | '?' | '*' => ' ',
            c if c.is_control() => ' ',
            c => c,
        })
        .collect();
    replaced
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .trim_matches(['.', ' ', '-'])
        .to_owned()
}

/// Fills `pattern` with the facts: `{title}`, `{date}` / `{date:%Y-%m}`, `{author}`, `{camera}`,
/// `{name}` (the current name). A placeholder whose fact is missing is the reason the file is
/// not named; an unknown one is an error for the whole pattern (`Err(Err(..))`).
pub fn fill(pattern: &str, facts: &FileFacts) -> Result<String, Result<String, String>> {
    let mut out = String::new();
    let mut rest = pattern;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| Err("unclosed `{` in the pattern".to_owned()))?
            + open;
        let field = &rest[open + 1..close];
        let (key, format) = field
            .split_once(':')
            .map_or((field, None), |(k, f)| (k, Some(f)));
        let missing = |what: &str| Ok(format!("no {what} to name it by"));
        let value = match key.trim() {
            "title" => facts.title.clone().ok_or_else(|| missing("title"))?,
            "date" => facts
                .date
                .as_deref()
                .map(|d| format_date(d, format.unwrap_or("%Y-%m-%d")))
                .ok_or_else(|| missing("date"))?,
            "author" => facts.author.clone().ok_or_else(|| missing("author"))?,
            "camera" => facts.camera.clone().ok_or_else(|| missing("camera"))?,
            "name" => facts.stem.clone(),
            other => {
                return Err(Err(format!(
                    "unknown placeholder `{{{other}}}` (use title, date, date:%Y-%m, author, \
                     camera, name)"
                )));
            }
        };
        out.push_str(&value);
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    let name = clean_name(&out);
    if name.is_empty() {
        return Err(Ok("the pattern gives an empty name".into()));
    }
    Ok(name)
}

/// Why a name was chosen, in a few words ("the document's title, created 2024-03-05").
pub fn reason(facts: &FileFacts, pattern: &str) -> String {
    let mut parts = Vec::new();
    if pattern.contains("{title") {
        parts.extend(facts.title_from.map(str::to_owned));
    }
    if pattern.contains("{date") {
        parts.extend(
            facts
                .date_from
                .zip(facts.date.as_deref())
                .map(|(from, d)| format!("{from} {}", format_date(d, "%Y-%m-%d"))),
        );
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn names_come_from_the_title_and_date_a_file_records() {
        let meta = json!({"title": "Invoice  ACME\n420 EUR", "created": "2024-03-05T10:00:00", "author": "ACME GmbH"});
        let f = facts(
            meta.as_object().unwrap(),
            "ignored",
            "scan_0042",
            Some("2026-01-01"),
        );
        assert_eq!(f.title.as_deref(), Some("Invoice ACME 420 EUR"));
        assert_eq!(
            fill(DEFAULT_NAME_PATTERN, &f),
            Ok("2024-03-05 Invoice ACME 420 EUR".into())
        );
        assert_eq!(
            fill("{date:%Y-%m} {title}", &f),
            Ok("2024-03 Invoice ACME 420 EUR".into())
        );
        assert_eq!(
            fill("{author} - {name}", &f),
            Ok("ACME GmbH - scan_0042".into())
        );
        assert_eq!(
            reason(&f, DEFAULT_NAME_PATTERN),
            "the document's title, created 2024-03-05"
        );

        // No title property: the first line with words; no date: when it was last modified.
        let f = facts(
            &Map::new(),
            "\n# Pancakes for Sunday\nflour, eggs",
            "IMG_4107",
            Some("2025-11-02T08:00:00"),
        );
        assert_eq!(
            fill(DEFAULT_NAME_PATTERN, &f),
            Ok("2025-11-02 Pancakes for Sunday".into())
        );
        assert_eq!(f.date_from, Some("last modified"));

        // Nothing to go by: the reason, not a guess; a bad pattern is an error.
        let f = facts(&Map::new(), "   \n 12 34 \n", "blank", Some("2025-01-01"));
        assert_eq!(
            fill(DEFAULT_NAME_PATTERN, &f),
            Err(Ok("no title to name it by".into()))
        );
        assert!(matches!(fill("{size}", &f), Err(Err(m)) if m.contains("unknown placeholder")));
    }

    #[test]
    fn names_hold_on_every_platform_and_stay_short() {
        assert_eq!(
            clean_name("Q1/Q2: report? <draft> ."),
            "Q1-Q2- report draft"
        );
        let long = "word ".repeat(30);
        let f = facts(
            &json!({"title": long}).as_object().unwrap().clone(),
            "",
            "x",
            None,
        );
        assert!(f.title.unwrap().chars().count() <= TITLE_CHARS);
    }
}
