//! Audio tags and stream properties through lofty: ID3v1/v2 (MP3, WAV, AIFF), Vorbis comments
//! (FLAC, Ogg, Opus), MP4 atoms (M4A/AAC), APE, RIFF INFO.

use std::io::{Read, Seek};

use lofty::prelude::*;
use lofty::probe::Probe;
use serde_json::{Map, Value, json};

use super::{ContentKind, ParseError, Parsed};

pub fn parse_audio<R: Read + Seek>(reader: R) -> Result<Parsed, ParseError> {
    let bad = |message: String| ParseError::Format {
        format: "audio",
        message,
    };
    let probe = Probe::new(reader)
        .guess_file_type()
        .map_err(ParseError::Io)?;
    if probe.file_type().is_none() {
        return Err(bad("not a recognised audio format".into()));
    }
    let file = probe.read().map_err(|e| bad(e.to_string()))?;
    let mut m = Map::new();
    m.insert("format".into(), json!(format!("{:?}", file.file_type())));
    let props = file.properties();
    let secs = props.duration().as_secs_f64();
    if secs > 0.0 {
        m.insert(
            "duration_seconds".into(),
            json!((secs * 10.0).round() / 10.0),
        );
    }
    if let Some(b) = props.audio_bitrate().filter(|b| *b > 0) {
        m.insert("bitrate_kbps".into(), json!(b));
    }
    if let Some(r) = props.sample_rate().filter(|r| *r > 0) {
        m.insert("sample_rate".into(), json!(r));
    }
    if let Some(c) = props.channels().filter(|c| *c > 0) {
        m.insert("channels".into(), json!(c));
    }
    if let Some(tag) = file.primary_tag().or_else(|| file.first_tag()) {
        for (key, value) in [
            ("title", tag.title()),
            ("artist", tag.artist()),
            ("album", tag.album()),
            ("genre", tag.genre()),
            ("comment", tag.comment()),
        ] {
            if let Some(v) = value.map(|v| v.trim().to_owned()).filter(|v| !v.is_empty()) {
                m.insert(key.into(), json!(v));
            }
        }
        for (key, item) in [
            ("album_artist", ItemKey::AlbumArtist),
            ("composer", ItemKey::Composer),
        ] {
            if let Some(v) = tag
                .get_string(item)
                .map(str::trim)
                .filter(|v| !v.is_empty())
            {
                m.insert(key.into(), json!(v));
            }
        }
        if let Some(d) = tag.date() {
            m.insert("year".into(), json!(d.year));
            m.insert("date".into(), json!(d.to_string()));
        }
        if let Some(t) = tag.track() {
            m.insert("track".into(), json!(t));
        }
        if let Some(t) = tag.track_total() {
            m.insert("track_total".into(), json!(t));
        }
        if let Some(d) = tag.disk() {
            m.insert("disc".into(), json!(d));
        }
        if !tag.pictures().is_empty() {
            m.insert("cover_art".into(), json!(tag.pictures().len()));
        }
    }
    let text = describe(&m);
    Ok(Parsed {
        kind: ContentKind::Audio,
        text,
        metadata: m,
        truncated: false,
    })
}

/// One line per tag ("Title: …", "Artist: …"), for people and for the ContentIndex.
fn describe(m: &Map<String, Value>) -> String {
    let mut lines = Vec::new();
    for (key, label) in [
        ("title", "Title"),
        ("artist", "Artist"),
        ("album", "Album"),
        ("album_artist", "Album artist"),
        ("composer", "Composer"),
        ("genre", "Genre"),
        ("year", "Year"),
        ("track", "Track"),
        ("comment", "Comment"),
    ] {
        match m.get(key) {
            Some(Value::String(s)) => lines.push(format!("{label}: {s}")),
            Some(v @ Value::Number(_)) => lines.push(format!("{label}: {v}")),
            _ => {}
        }
    }
    if let Some(d) = m.get("duration_seconds").and_then(Value::as_f64) {
        let s = d.round() as u64;
        lines.push(format!("Length: {}:{:02}", s / 60, s % 60));
    }
    lines.join("\n")
}
