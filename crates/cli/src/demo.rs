//! `scope-weaver demo DIR`: writes a demo "home" to try requests on. Its Downloads holds
//! duplicates and a mix of real-format files (a PDF with text, photos with EXIF, a song with
//! tags, a Word document), as in the seed's worked example.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use sandbox::parse::samples::{self, PhotoInfo, SongInfo};

use crate::commands::Env;
use crate::output::print_json;

/// (path below DIR, content). Equal contents are the duplicates.
fn demo_files() -> Vec<(&'static str, Vec<u8>)> {
    let report = samples::pdf(
        "Quarterly report",
        "Finance team",
        "20240412093000",
        &["Quarterly report Q1 2024\nRevenue grew 12 percent; costs fell 3 percent."],
    );
    let beach = samples::jpeg(&PhotoInfo {
        taken: Some("2023:08:14 17:42:10"),
        make: Some("FUJIFILM"),
        model: Some("X-T4"),
        gps: Some((43.695_2, 7.271_4)),
        width: 4160,
        height: 3120,
    });
    let song = samples::mp3(
        &SongInfo {
            title: "Harbour Lights",
            artist: "The Demo Band",
            album: "Sample Tapes",
            year: 2019,
            track: 3,
            genre: "Jazz",
        },
        2,
    );
    let letter = samples::docx(
        "Lease renewal",
        "Sam Doe",
        &[
            "Dear landlord,",
            "I would like to renew the lease for another year.",
        ],
    );
    vec![
        ("Downloads/report_v1.pdf", report.clone()),
        ("Downloads/report_final.pdf", report),
        ("Downloads/beach.jpg", beach.clone()),
        ("Downloads/beach (1).jpg", beach.clone()),
        ("Downloads/old/beach.jpg", beach),
        ("Downloads/song.mp3", song),
        ("Downloads/lease.docx", letter),
        (
            "Downloads/export.csv",
            b"city,visits\nNice,4\nLyon,2\n".to_vec(),
        ),
        (
            "Downloads/setup.exe",
            b"MZ\x90\x00\x03\x00\x00\x00installer".to_vec(),
        ),
        (
            "Downloads/notes.txt",
            b"meeting notes: book the venue, send the agenda\n".to_vec(),
        ),
        ("Documents/taxes-2024.txt", b"tax return 2024\n".to_vec()),
        ("Pictures/", Vec::new()),
    ]
}

pub fn demo_cmd(env: &Env, dir: &Path) -> Result<ExitCode> {
    if dir.exists() && dir.read_dir()?.next().is_some() {
        bail!(
            "{} is not empty; the demo folder is written only into a new or empty folder",
            dir.display()
        );
    }
    let files = demo_files();
    for (path, bytes) in &files {
        let p = dir.join(path.trim_end_matches('/'));
        if path.ends_with('/') {
            std::fs::create_dir_all(&p)?;
            continue;
        }
        std::fs::create_dir_all(p.parent().expect("below DIR"))?;
        std::fs::write(&p, bytes).with_context(|| format!("writing {}", p.display()))?;
    }
    if env.json {
        let list: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        print_json(&serde_json::json!({"root": dir, "files": list}));
    } else {
        println!(
            "Demo folder written to {} ({} entries)",
            dir.display(),
            files.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}
