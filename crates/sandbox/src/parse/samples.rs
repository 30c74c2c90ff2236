//! Small files in real formats, written byte by byte: a PDF with a text layer and document
//! information, a JPEG with EXIF, an MP3 with ID3v2 tags, a DOCX; and pictures with a photo's
//! structure (for similar-photo tests). For the tests of every crate
//! that reads content, and for demo folders. Nothing here is read back by the parsers' own code.

use std::io::{Cursor, Write};

/// A PDF 1.4 with one page per entry of `pages` (lines split on `\n`, Helvetica 12pt) and an
/// Info dictionary with Title, Author and CreationDate (`D:YYYYMMDDHHmmSS`).
pub fn pdf(title: &str, author: &str, created: &str, pages: &[&str]) -> Vec<u8> {
    let n = pages.len();
    // Objects: 1 catalog, 2 pages, 3 font, 4 info, then per page: page, content.
    let mut objects: Vec<String> = Vec::new();
    objects.push("<< /Type /Catalog /Pages 2 0 R >>".into());
    let kids: Vec<String> = (0..n).map(|i| format!("{} 0 R", 5 + 2 * i)).collect();
    objects.push(format!(
        "<< /Type /Pages /Kids [{}] /Count {n} >>",
        kids.join(" ")
    ));
    objects.push(
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>".into(),
    );
    objects.push(format!(
        "<< /Title ({}) /Author ({}) /CreationDate (D:{created}) /Producer (scope-weaver samples) >>",
        pdf_escape(title),
        pdf_escape(author)
    ));
    for (i, page) in pages.iter().enumerate() {
        let mut stream = String::from("BT /F1 12 Tf 14 TL 72 720 Td\n");
        for line in page.lines() {
            stream.push_str(&format!("({}) Tj T*\n", pdf_escape(line)));
        }
        stream.push_str("ET");
        objects.push(format!(
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents {} 0 R >>",
            6 + 2 * i
        ));
        objects.push(format!(
            "<< /Length {} >>\nstream\n{stream}\nendstream",
            stream.len()
        ));
    }
    let mut out = b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(out.len());
        write!(out, "{} 0 obj\n{body}\nendobj\n", i + 1).expect("vec write");
    }
    let xref = out.len();
    write!(out, "xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).expect("vec write");
    for o in offsets {
        writeln!(out, "{o:010} 00000 n ").expect("vec write");
    }
    write!(
        out,
        "trailer\n<< /Size {} /Root 1 0 R /Info 4 0 R >>\nstartxref\n{xref}\n%%EOF\n",
        objects.len() + 1
    )
    .expect("vec write");
    out
}

fn pdf_escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('(', "\\(")
        .replace(')', "\\)")
}

/// EXIF for a photo: when it was taken (`YYYY:MM:DD HH:MM:SS`), the camera, and where.
#[derive(Clone, Debug, Default)]
pub struct PhotoInfo<'a> {
    pub taken: Option<&'a str>,
    pub make: Option<&'a str>,
    pub model: Option<&'a str>,
    /// (latitude, longitude) in degrees; negative is south / west.
    pub gps: Option<(f64, f64)>,
    pub width: u16,
    pub height: u16,
}

/// A JPEG stream (SOI, APP1 EXIF, SOF0 with the size, EOI) whose EXIF says what `info` says.
pub fn jpeg(info: &PhotoInfo) -> Vec<u8> {
    use exif::{Field, In, Rational, Tag, Value};
    let ascii = |tag, s: &str| Field {
        tag,
        ifd_num: In::PRIMARY,
        value: Value::Ascii(vec![s.as_bytes().to_vec()]),
    };
    let mut fields = Vec::new();
    if let Some(t) = info.taken {
        fields.push(ascii(Tag::DateTimeOriginal, t));
        fields.push(ascii(Tag::DateTime, t));
    }
    if let Some(m) = info.make {
        fields.push(ascii(Tag::Make, m));
    }
    if let Some(m) = info.model {
        fields.push(ascii(Tag::Model, m));
    }
    fields.push(Field {
        tag: Tag::PixelXDimension,
        ifd_num: In::PRIMARY,
        value: Value::Long(vec![u32::from(info.width)]),
    });
    fields.push(Field {
        tag: Tag::PixelYDimension,
        ifd_num: In::PRIMARY,
        value: Value::Long(vec![u32::from(info.height)]),
    });
    if let Some((lat, lon)) = info.gps {
        let dms = |deg: f64| {
            let d = deg.abs();
            let m = (d.fract() * 60.0).floor();
            let s = ((d.fract() * 60.0 - m) * 60.0 * 1000.0).round() as u32;
            Value::Rational(vec![
                Rational::from((d.floor() as u32, 1)),
                Rational::from((m as u32, 1)),
                Rational::from((s, 1000)),
            ])
        };
        let gps = |tag, value| Field {
            tag,
            ifd_num: In::PRIMARY,
            value,
        };
        fields.push(gps(Tag::GPSLatitude, dms(lat)));
        fields.push(ascii(
            Tag::GPSLatitudeRef,
            if lat < 0.0 { "S" } else { "N" },
        ));
        fields.push(gps(Tag::GPSLongitude, dms(lon)));
        fields.push(ascii(
            Tag::GPSLongitudeRef,
            if lon < 0.0 { "W" } else { "E" },
        ));
    }
    let mut writer = exif::experimental::Writer::new();
    for f in &fields {
        writer.push_field(f);
    }
    let mut tiff = Cursor::new(Vec::new());
    writer
        .write(&mut tiff, false)
        .expect("EXIF of known fields");
    let tiff = tiff.into_inner();
    let mut out = vec![0xFF, 0xD8, 0xFF, 0xE1];
    out.extend_from_slice(&((tiff.len() + 8) as u16).to_be_bytes());
    out.extend_from_slice(b"Exif\0\0");
    out.extend_from_slice(&tiff);
    // SOF0: 8-bit, height, width, 1 component.
    out.extend_from_slice(&[0xFF, 0xC0, 0x00, 0x0B, 0x08]);
    out.extend_from_slice(&info.height.to_be_bytes());
    out.extend_from_slice(&info.width.to_be_bytes());
    out.extend_from_slice(&[0x01, 0x01, 0x11, 0x00]);
    out.extend_from_slice(&[0xFF, 0xD9]);
    out
}

/// Tags of a song.
#[derive(Clone, Debug, Default)]
pub struct SongInfo<'a> {
    pub title: &'a str,
    pub artist: &'a str,
    pub album: &'a str,
    pub year: u16,
    pub track: u32,
    pub genre: &'a str,
}

/// An MP3: an ID3v2.4 tag (UTF-8 text frames) and `seconds` of silent 128 kbit/s MPEG-1
/// Layer III frames at 44.1 kHz.
pub fn mp3(song: &SongInfo, seconds: u32) -> Vec<u8> {
    let mut frames = Vec::new();
    for (id, text) in [
        ("TIT2", song.title.to_owned()),
        ("TPE1", song.artist.to_owned()),
        ("TALB", song.album.to_owned()),
        ("TDRC", song.year.to_string()),
        ("TRCK", song.track.to_string()),
        ("TCON", song.genre.to_owned()),
    ] {
        if text.is_empty() || text == "0" {
            continue;
        }
        let mut body = vec![3u8]; // UTF-8
        body.extend_from_slice(text.as_bytes());
        frames.extend_from_slice(id.as_bytes());
        frames.extend_from_slice(&syncsafe(body.len() as u32));
        frames.extend_from_slice(&[0, 0]);
        frames.extend_from_slice(&body);
    }
    let mut out = b"ID3\x04\x00\x00".to_vec();
    out.extend_from_slice(&syncsafe(frames.len() as u32));
    out.extend_from_slice(&frames);
    // 144 * 128000 / 44100 = 417 bytes a frame, 1152 samples each.
    let count = (u64::from(seconds) * 44_100).div_ceil(1152);
    for _ in 0..count {
        out.extend_from_slice(&[0xFF, 0xFB, 0x90, 0x00]);
        out.extend(std::iter::repeat_n(0u8, 417 - 4));
    }
    out
}

fn syncsafe(n: u32) -> [u8; 4] {
    [
        ((n >> 21) & 0x7F) as u8,
        ((n >> 14) & 0x7F) as u8,
        ((n >> 7) & 0x7F) as u8,
        (n & 0x7F) as u8,
    ]
}

/// A Word document (Office Open XML) with one paragraph per entry and a title and author.
pub fn docx(title: &str, author: &str, paragraphs: &[&str]) -> Vec<u8> {
    let esc = |s: &str| {
        s.replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
    };
    let body: String = paragraphs
        .iter()
        .map(|p| {
            format!(
                "<w:p><w:r><w:t xml:space=\"preserve\">{}</w:t></w:r></w:p>",
                esc(p)
            )
        })
        .collect();
    let parts = [
        (
            "[Content_Types].xml",
            r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>"#.to_owned(),
        ),
        (
            "_rels/.rels",
            r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>"#.to_owned(),
        ),
        (
            "word/document.xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}</w:body></w:document>"#
            ),
        ),
        (
            "docProps/core.xml",
            format!(
                r#"<?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>{}</dc:title><dc:creator>{}</dc:creator></cp:coreProperties>"#,
                esc(title),
                esc(author)
            ),
        ),
    ];
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (name, text) in parts {
        zip.start_file(name, options).expect("zip in memory");
        zip.write_all(text.as_bytes()).expect("zip in memory");
    }
    zip.finish().expect("zip in memory").into_inner()
}

/// A picture with structure, like a photo's: a gradient sky and a dozen overlapping rectangles
/// and ellipses whose places and colours follow `seed` (different seeds, different pictures).
pub fn picture(seed: u64, width: u32, height: u32) -> image::RgbImage {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = move |n: u32| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) % u64::from(n)) as u32
    };
    let top = [next(256) as u8, next(256) as u8, next(256) as u8];
    let mut img = image::RgbImage::from_fn(width, height, |_, y| {
        let t = y as f32 / height as f32;
        image::Rgb(top.map(|c| (f32::from(c) * (1.0 - t) + 40.0 * t) as u8))
    });
    for _ in 0..12 {
        let (cx, cy) = (next(width), next(height));
        let (rx, ry) = (20 + next(width / 3), 20 + next(height / 3));
        let colour = image::Rgb([next(256) as u8, next(256) as u8, next(256) as u8]);
        let round = next(2) == 0;
        for y in cy.saturating_sub(ry)..(cy + ry).min(height) {
            for x in cx.saturating_sub(rx)..(cx + rx).min(width) {
                let (dx, dy) = (
                    (x as f32 - cx as f32) / rx as f32,
                    (y as f32 - cy as f32) / ry as f32,
                );
                if !round || dx * dx + dy * dy <= 1.0 {
                    img.put_pixel(x, y, colour);
                }
            }
        }
    }
    img
}

/// `img` as a JPEG at `quality` (1–100).
pub fn encoded_jpeg(img: &image::RgbImage, quality: u8) -> Vec<u8> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(img)
        .expect("an RGB image encodes");
    out
}
