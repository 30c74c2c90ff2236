//! parse-content on real files: text kinds, PDF, office documents, EXIF, audio tags, damaged files.

use contracts::ErrorCode;
use expect_test::expect;
use sandbox::parse::samples::{self, PhotoInfo, SongInfo};
use serde_json::{Value, json};

use crate::support::open_dir;

fn folder(files: &[(&str, Vec<u8>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
    dir
}

fn photo() -> Vec<u8> {
    samples::jpeg(&PhotoInfo {
        taken: Some("2021:07:14 09:30:05"),
        make: Some("Canon"),
        model: Some("Canon EOS R5"),
        gps: Some((48.858_37, -2.294_48)),
        width: 6000,
        height: 4000,
    })
}

fn song() -> Vec<u8> {
    samples::mp3(
        &SongInfo {
            title: "Paranoid Android",
            artist: "Radiohead",
            album: "OK Computer",
            year: 1997,
            track: 2,
            genre: "Rock",
        },
        3,
    )
}

/// Renders what extract_text returned: kind, flags, metadata and the text.
fn render(v: &Value) -> String {
    format!(
        "kind={} lines={} truncated={}\nmetadata={}\n---\n{}",
        v["kind"].as_str().unwrap(),
        v["lines"],
        v["truncated"],
        // Sorted: key order must not depend on serde_json's `preserve_order` feature.
        serde_json::to_string(
            &v["metadata"]
                .as_object()
                .unwrap()
                .iter()
                .collect::<std::collections::BTreeMap<_, _>>()
        )
        .unwrap(),
        v["text"].as_str().unwrap()
    )
}

#[test]
fn every_format_gives_its_text_and_metadata() {
    let dir = folder(&[
        (
            "report.pdf",
            samples::pdf(
                "Quarterly Report (Q3)",
                "Ada Lovelace",
                "20240503142211",
                &["Revenue grew 12% in Q3.\nCosts fell.", "Outlook: steady growth"],
            ),
        ),
        ("beach.jpg", photo()),
        ("song.mp3", song()),
        (
            "letter.docx",
            samples::docx("Letter", "Grace Hopper", &["Dear team,", "The compiler works & ships."]),
        ),
        (
            "page.html",
            b"<html><head><title>Recipes</title></head><body><h1>Bread</h1><p>Flour &amp; water</p><script>x()</script></body></html>".to_vec(),
        ),
        ("data.csv", b"name;\"city; state\";age\nAda;London;36\nAlan;Wilmslow;41\n".to_vec()),
        ("conf.json", br#"{"name": "sw", "debug": true}"#.to_vec()),
        ("notes.md", b"# Plan\n\n```\n# not a heading\n```\n## Steps\ntext\n".to_vec()),
    ]);
    let mut fx = open_dir(dir);
    let mut out = String::new();
    for f in [
        "report.pdf",
        "beach.jpg",
        "song.mp3",
        "letter.docx",
        "page.html",
        "data.csv",
        "conf.json",
        "notes.md",
    ] {
        let v = fx.run("extract_text", json!({"path": f}));
        out.push_str(&format!("== {f}\n{}\n", render(&v)));
    }
    expect![[r#"
        == report.pdf
        kind=pdf lines=4 truncated=false
        metadata={"author":"Ada Lovelace","created":"2024-05-03T14:22:11","pages":2,"producer":"scope-weaver samples","title":"Quarterly Report (Q3)"}
        ---
        Revenue grew 12% in Q3.
        Costs fell.

        Outlook: steady growth
        == beach.jpg
        kind=image lines=4 truncated=false
        metadata={"camera_make":"Canon","camera_model":"Canon EOS R5","date_taken":"2021-07-14T09:30:05","exif":true,"gps":{"latitude":48.85837,"longitude":-2.29448},"height":4000,"width":6000}
        ---
        Photo taken 2021-07-14 09:30:05
        Camera: Canon EOS R5
        Size: 6000 × 4000 pixels
        Location: 48.85837, -2.29448
        == song.mp3
        kind=audio lines=7 truncated=false
        metadata={"album":"OK Computer","artist":"Radiohead","bitrate_kbps":128,"channels":2,"date":"1997","duration_seconds":3.0,"format":"Mpeg","genre":"Rock","sample_rate":44100,"title":"Paranoid Android","track":2,"year":1997}
        ---
        Title: Paranoid Android
        Artist: Radiohead
        Album: OK Computer
        Genre: Rock
        Year: 1997
        Track: 2
        Length: 0:03
        == letter.docx
        kind=office lines=2 truncated=false
        metadata={"author":"Grace Hopper","title":"Letter"}
        ---
        Dear team,
        The compiler works & ships.
        == page.html
        kind=html lines=3 truncated=false
        metadata={"title":"Recipes"}
        ---
        Recipes
        Bread
        Flour & water
        == data.csv
        kind=csv lines=3 truncated=false
        metadata={"columns":3,"header":["name","city; state","age"],"rows":3,"separator":";"}
        ---
        name;"city; state";age
        Ada;London;36
        Alan;Wilmslow;41

        == conf.json
        kind=json lines=1 truncated=false
        metadata={"keys":["debug","name"],"type":"object","valid":true}
        ---
        {"name": "sw", "debug": true}
        == notes.md
        kind=markdown lines=7 truncated=false
        metadata={"headings":[{"level":1,"text":"Plan"},{"level":2,"text":"Steps"}],"title":"Plan"}
        ---
        # Plan

        ```
        # not a heading
        ```
        ## Steps
        text

    "#]]
    .assert_eq(&out);
}

#[test]
fn read_metadata_adds_what_the_format_records() {
    let mut fx = open_dir(folder(&[
        ("DCIM/IMG_0001.jpg", photo()),
        ("a.bin", vec![0, 1, 2, 0]),
    ]));
    let m = fx.run("read_metadata", json!({"path": "DCIM/IMG_0001.jpg"}));
    assert_eq!(m["content_kind"], "image");
    assert_eq!(m["embedded"]["date_taken"], "2021-07-14T09:30:05");
    assert_eq!(m["embedded"]["gps"]["longitude"], -2.29448);
    assert_eq!(m["size"], photo().len());
    let b = fx.run("read_metadata", json!({"path": "a.bin"}));
    assert_eq!(b["content_kind"], "binary");
    assert!(b.get("embedded").is_none());
    // A folder keeps its aggregates.
    let d = fx.run("read_metadata", json!({"path": "DCIM"}));
    assert_eq!(d["file_count"], 1);
}

#[test]
fn long_text_stops_at_max_bytes_on_a_character_boundary() {
    let text = "é".repeat(100); // 200 bytes
    let pdf = samples::pdf("t", "a", "2024", &[&"word ".repeat(200)]);
    let mut fx = open_dir(folder(&[("a.txt", text.into_bytes()), ("b.pdf", pdf)]));
    let v = fx.run("extract_text", json!({"path": "a.txt", "max_bytes": 51}));
    assert_eq!(v["text"].as_str().unwrap(), "é".repeat(25));
    assert_eq!(v["truncated"], true);
    let v = fx.run("extract_text", json!({"path": "b.pdf", "max_bytes": 20}));
    assert_eq!(v["text"].as_str().unwrap().len(), 20);
    assert_eq!(v["truncated"], true);
}

#[test]
fn damaged_and_mislabelled_files_get_clear_errors() {
    let mut pdf = samples::pdf("t", "a", "2024", &["hello"]);
    pdf.truncate(40);
    let mut fx = open_dir(folder(&[
        ("broken.pdf", pdf),
        ("broken.docx", b"PK\x03\x04 not really".to_vec()),
        ("noise.mp3", vec![0x55; 4096]),
        ("program.exe", b"MZ\x90\x00\x03\x00\x00\x00".to_vec()),
        // A JPEG whose EXIF is damaged still reports its size from the frame header.
        ("cut.jpg", {
            let mut j = photo();
            j[30] ^= 0xFF;
            j
        }),
        // No extension: sniffed by magic number.
        (
            "scan",
            samples::pdf("Scan", "me", "2024", &["sniffed text"]),
        ),
    ]));
    let mut out = String::new();
    for f in ["broken.pdf", "broken.docx", "noise.mp3", "program.exe"] {
        let e = fx.fail("extract_text", json!({"path": f}));
        out.push_str(&format!("{f}: {} {e}\n", e.code()));
    }
    expect![[r#"
        broken.pdf: CONTENT_UNREADABLE cannot read `broken.pdf`: PDF could not be read: failed parsing cross reference table
        broken.docx: CONTENT_UNREADABLE cannot read `broken.docx`: office document could not be read: invalid Zip archive: Could not find EOCD
        noise.mp3: CONTENT_UNREADABLE cannot read `noise.mp3`: audio could not be read: not a recognised audio format
        program.exe: CONTENT_UNREADABLE cannot read `program.exe`: binary file (no text to extract); use metadata for its properties
    "#]]
    .assert_eq(&out);
    let v = fx.run("extract_text", json!({"path": "scan"}));
    assert_eq!(
        (v["kind"].as_str(), v["text"].as_str()),
        (Some("pdf"), Some("sniffed text"))
    );
    let v = fx.run("read_metadata", json!({"path": "broken.pdf"}));
    assert!(
        v["embedded_error"]
            .as_str()
            .unwrap()
            .starts_with("PDF could not be read"),
        "{v}"
    );
    let v = fx.run("extract_text", json!({"path": "cut.jpg"}));
    assert_eq!(v["kind"], "image");
}

fn shot(taken: &str, model: &str) -> Vec<u8> {
    samples::jpeg(&PhotoInfo {
        taken: Some(taken),
        make: Some("Apple"),
        model: Some(model),
        width: 8,
        height: 8,
        ..Default::default()
    })
}

/// Photos go by when they were taken (EXIF), other files by their modification time;
/// `date: modified` turns that off.
#[test]
fn photos_are_sorted_and_renamed_by_when_they_were_taken() {
    let dir = folder(&[
        ("DCIM/IMG_0001.jpg", shot("2019:06:01 10:00:00", "iPhone 8")),
        (
            "DCIM/IMG_0002.jpg",
            shot("2021:12:31 23:59:59", "iPhone 13/Pro"),
        ),
        ("DCIM/no_exif.png", b"\x89PNG\r\n\x1a\n".to_vec()),
    ]);
    // Without EXIF, the modification time decides: 2015-03-01.
    let png = std::fs::File::options()
        .write(true)
        .open(dir.path().join("DCIM/no_exif.png"))
        .unwrap();
    png.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_425_168_000))
        .unwrap();
    drop(png);
    let mut fx = open_dir(dir);
    let r = fx.run(
        "batch_rename",
        json!({"source": ["DCIM/IMG_0001.jpg", "DCIM/IMG_0002.jpg", "DCIM/no_exif.png"],
               "pattern": "{exif.date:%Y%m%d_%H%M%S}_{exif.camera}_{n:02}"}),
    );
    assert_eq!(r["skipped"][0]["reason"], "no EXIF date taken", "{r}");
    let r = fx.run(
        "organize_by_date",
        json!({"path": "DCIM", "pattern": "{year}"}),
    );
    assert_eq!(r["dated_by_exif"].as_array().unwrap().len(), 2, "{r}");
    expect![[r#"
        ~ move   DCIM/IMG_0001.jpg -> DCIM/20190601_100000_iPhone 8_01.jpg
        ~ move   DCIM/IMG_0002.jpg -> DCIM/20211231_235959_iPhone 13-Pro_02.jpg
        + mkdir  DCIM/2019/
        ~ move   DCIM/20190601_100000_iPhone 8_01.jpg -> DCIM/2019/20190601_100000_iPhone 8_01.jpg
        + mkdir  DCIM/2021/
        ~ move   DCIM/20211231_235959_iPhone 13-Pro_02.jpg -> DCIM/2021/20211231_235959_iPhone 13-Pro_02.jpg
        + mkdir  DCIM/2015/
        ~ move   DCIM/no_exif.png -> DCIM/2015/no_exif.png
    "#]]
    .assert_eq(&fx.sandbox.render_diff());
    let e = fx.fail(
        "batch_rename",
        json!({"source": ["DCIM/2019/20190601_100000_iPhone 8_01.jpg"], "pattern": "{exif.when}"}),
    );
    assert!(e.to_string().contains("exif.date, exif.camera"), "{e}");
}

#[test]
fn sorting_by_modification_date_ignores_exif_when_asked() {
    let dir = folder(&[("a.jpg", shot("2001:01:01 00:00:00", "x"))]);
    let mut fx = open_dir(dir);
    let r = fx.run(
        "organize_by_date",
        json!({"path": ".", "pattern": "{year}", "date": "modified"}),
    );
    assert_eq!(r["dated_by_exif"], json!([]));
    assert_ne!(r["folders"][0], "2001", "{r}");
}
