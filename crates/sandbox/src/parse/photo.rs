//! Image metadata: EXIF (kamadak-exif: JPEG, TIFF and TIFF-based raws, HEIF, PNG, WebP) and
//! pixel dimensions read from the image header when EXIF does not say.

use std::io::{BufRead, Read, Seek, SeekFrom};

use exif::{Exif, In, Tag, Value as ExifValue};
use serde_json::{Map, Value, json};

use super::{ContentKind, ParseError, Parsed};

pub fn parse_image<R: BufRead + Seek>(reader: &mut R) -> Result<Parsed, ParseError> {
    let mut metadata = Map::new();
    let start = reader.stream_position()?;
    match exif::Reader::new().read_from_container(reader) {
        Ok(exif) => read_exif(&exif, &mut metadata),
        Err(exif::Error::NotFound(_) | exif::Error::BlankValue(_)) => {}
        Err(exif::Error::Io(e)) => return Err(ParseError::Io(e)),
        // A damaged EXIF block loses the EXIF fields, not the image.
        Err(e) => {
            metadata.insert("exif_error".into(), json!(e.to_string()));
        }
    }
    if !metadata.contains_key("width") {
        reader.seek(SeekFrom::Start(start))?;
        if let Some((w, h)) = dimensions(reader)? {
            metadata.insert("width".into(), json!(w));
            metadata.insert("height".into(), json!(h));
        }
    }
    let text = describe(&metadata);
    Ok(Parsed {
        kind: ContentKind::Image,
        text,
        metadata,
        truncated: false,
    })
}

/// The date an image was taken (EXIF `DateTimeOriginal`, else `DateTimeDigitized`, else
/// `DateTime`) as `YYYY-MM-DDTHH:MM:SS`, or `None` without EXIF.
pub fn date_taken<R: BufRead + Seek>(reader: &mut R) -> Option<String> {
    let exif = exif::Reader::new().read_from_container(reader).ok()?;
    taken(&exif)
}

fn taken(exif: &Exif) -> Option<String> {
    [Tag::DateTimeOriginal, Tag::DateTimeDigitized, Tag::DateTime]
        .into_iter()
        .find_map(|tag| {
            let field = exif.get_field(tag, In::PRIMARY)?;
            let ExifValue::Ascii(v) = &field.value else {
                return None;
            };
            let d = exif::DateTime::from_ascii(v.first()?).ok()?;
            (d.year > 0 && (1..=12).contains(&d.month) && (1..=31).contains(&d.day)).then(|| {
                format!(
                    "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
                    d.year, d.month, d.day, d.hour, d.minute, d.second
                )
            })
        })
}

fn ascii(exif: &Exif, tag: Tag) -> Option<String> {
    let field = exif.get_field(tag, In::PRIMARY)?;
    let ExifValue::Ascii(v) = &field.value else {
        return None;
    };
    let s = String::from_utf8_lossy(v.first()?)
        .trim_matches(|c: char| c == '\0' || c.is_whitespace())
        .to_owned();
    (!s.is_empty()).then_some(s)
}

fn uint(exif: &Exif, tag: Tag) -> Option<u32> {
    exif.get_field(tag, In::PRIMARY)?.value.get_uint(0)
}

fn rational(exif: &Exif, tag: Tag) -> Option<f64> {
    match &exif.get_field(tag, In::PRIMARY)?.value {
        ExifValue::Rational(v) => v.first().map(|r| r.to_f64()),
        ExifValue::SRational(v) => v.first().map(|r| r.to_f64()),
        _ => None,
    }
    .filter(|f| f.is_finite())
}

/// Degrees from an EXIF GPS triple (degrees, minutes, seconds) and its N/S or E/W reference.
fn coordinate(exif: &Exif, tag: Tag, reference: Tag, negative: u8) -> Option<f64> {
    let ExifValue::Rational(v) = &exif.get_field(tag, In::PRIMARY)?.value else {
        return None;
    };
    let [d, m, s] = [v.first()?, v.get(1)?, v.get(2)?].map(|r| r.to_f64());
    let mut deg = d + m / 60.0 + s / 3600.0;
    if let Some(ExifValue::Ascii(r)) = exif.get_field(reference, In::PRIMARY).map(|f| &f.value)
        && r.first().and_then(|r| r.first()) == Some(&negative)
    {
        deg = -deg;
    }
    deg.is_finite().then_some((deg * 1e6).round() / 1e6)
}

fn read_exif(exif: &Exif, m: &mut Map<String, Value>) {
    m.insert("exif".into(), json!(true));
    if let Some(t) = taken(exif) {
        m.insert("date_taken".into(), json!(t));
    }
    for (tag, key) in [
        (Tag::Make, "camera_make"),
        (Tag::Model, "camera_model"),
        (Tag::LensModel, "lens"),
        (Tag::Software, "software"),
        (Tag::Artist, "artist"),
        (Tag::ImageDescription, "description"),
        (Tag::Copyright, "copyright"),
    ] {
        if let Some(v) = ascii(exif, tag) {
            m.insert(key.into(), json!(v));
        }
    }
    let w = uint(exif, Tag::PixelXDimension).or_else(|| uint(exif, Tag::ImageWidth));
    let h = uint(exif, Tag::PixelYDimension).or_else(|| uint(exif, Tag::ImageLength));
    if let (Some(w), Some(h)) = (w, h) {
        m.insert("width".into(), json!(w));
        m.insert("height".into(), json!(h));
    }
    if let Some(o) = uint(exif, Tag::Orientation) {
        m.insert("orientation".into(), json!(o));
    }
    if let Some(iso) = uint(exif, Tag::PhotographicSensitivity) {
        m.insert("iso".into(), json!(iso));
    }
    if let Some(f) = rational(exif, Tag::FNumber) {
        m.insert("f_number".into(), json!(f));
    }
    if let Some(f) = rational(exif, Tag::FocalLength) {
        m.insert("focal_length_mm".into(), json!(f));
    }
    if let Some(t) = rational(exif, Tag::ExposureTime) {
        m.insert("exposure_seconds".into(), json!(t));
    }
    let lat = coordinate(exif, Tag::GPSLatitude, Tag::GPSLatitudeRef, b'S');
    let lon = coordinate(exif, Tag::GPSLongitude, Tag::GPSLongitudeRef, b'W');
    if let (Some(lat), Some(lon)) = (lat, lon) {
        m.insert("gps".into(), json!({"latitude": lat, "longitude": lon}));
    }
}

/// One line per fact, for people and for the ContentIndex ("photo taken 2024-05-03 with …").
fn describe(m: &Map<String, Value>) -> String {
    let s = |k: &str| m.get(k).and_then(Value::as_str);
    let mut lines = Vec::new();
    if let Some(t) = s("date_taken") {
        lines.push(format!("Photo taken {}", t.replace('T', " ")));
    }
    let camera = [s("camera_make"), s("camera_model")]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>();
    if !camera.is_empty() {
        // Models usually repeat the make ("Canon" + "Canon EOS R5").
        let text = match camera.as_slice() {
            [make, model] if model.starts_with(make) => (*model).to_owned(),
            _ => camera.join(" "),
        };
        lines.push(format!("Camera: {text}"));
    }
    if let Some(l) = s("lens") {
        lines.push(format!("Lens: {l}"));
    }
    if let (Some(w), Some(h)) = (m.get("width"), m.get("height")) {
        lines.push(format!("Size: {w} × {h} pixels"));
    }
    if let Some(gps) = m.get("gps") {
        lines.push(format!(
            "Location: {}, {}",
            gps["latitude"], gps["longitude"]
        ));
    }
    for (k, label) in [
        ("description", "Description"),
        ("artist", "Artist"),
        ("copyright", "Copyright"),
        ("software", "Software"),
    ] {
        if let Some(v) = s(k) {
            lines.push(format!("{label}: {v}"));
        }
    }
    lines.join("\n")
}

/// Width and height from a PNG, GIF, BMP, WebP (VP8X) or JPEG (SOFn) header.
fn dimensions<R: Read + Seek>(r: &mut R) -> std::io::Result<Option<(u32, u32)>> {
    let mut head = [0u8; 32];
    let n = read_up_to(r, &mut head)?;
    let head = &head[..n];
    let be32 = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let le16 = |b: &[u8]| u32::from(u16::from_le_bytes([b[0], b[1]]));
    if head.starts_with(b"\x89PNG\r\n\x1a\n") && n >= 24 {
        return Ok(Some((be32(&head[16..20]), be32(&head[20..24]))));
    }
    if head.starts_with(b"GIF8") && n >= 10 {
        return Ok(Some((le16(&head[6..8]), le16(&head[8..10]))));
    }
    if head.starts_with(b"BM") && n >= 26 {
        let le32 = |b: &[u8]| i32::from_le_bytes([b[0], b[1], b[2], b[3]]).unsigned_abs();
        return Ok(Some((le32(&head[18..22]), le32(&head[22..26]))));
    }
    if head.starts_with(b"RIFF") && head.get(8..16) == Some(b"WEBPVP8X") && n >= 30 {
        let le24 = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], 0]) + 1;
        return Ok(Some((le24(&head[24..27]), le24(&head[27..30]))));
    }
    if !head.starts_with(&[0xFF, 0xD8]) {
        return Ok(None);
    }
    // JPEG: walk the marker segments to the first start-of-frame.
    r.seek(SeekFrom::Start(2))?;
    for _ in 0..512 {
        let mut marker = [0u8; 4];
        if read_up_to(r, &mut marker)? < 4 || marker[0] != 0xFF {
            return Ok(None);
        }
        let len = u16::from_be_bytes([marker[2], marker[3]]);
        let sof = matches!(marker[1], 0xC0..=0xCF) && !matches!(marker[1], 0xC4 | 0xC8 | 0xCC);
        if sof {
            let mut frame = [0u8; 5];
            if read_up_to(r, &mut frame)? < 5 {
                return Ok(None);
            }
            let h = u32::from(u16::from_be_bytes([frame[1], frame[2]]));
            let w = u32::from(u16::from_be_bytes([frame[3], frame[4]]));
            return Ok(Some((w, h)));
        }
        if len < 2 {
            return Ok(None);
        }
        r.seek(SeekFrom::Current(i64::from(len) - 2))?;
    }
    Ok(None)
}

fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}
