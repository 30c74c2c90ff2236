//! Archives through the sandbox: create (verified) → commit → list → extract, and zip-slip refusal.

use std::io::Write;

use contracts::ErrorCode;
use serde_json::json;

use crate::support::{open, open_dir};

#[test]
fn zip_and_tar_gz_round_trip_through_commit() {
    for (target, format) in [
        ("backup.zip", "zip"),
        ("backup.tar.gz", "tar.gz"),
        ("backup.tar.zst", "tar.zst"),
    ] {
        let mut fx = open(&[
            ("docs/a.txt", "alpha"),
            ("docs/sub/b.txt", "beta"),
            ("c.txt", "gamma"),
        ]);
        let out = fx.run(
            "create_archive",
            json!({"source": ["docs", "c.txt"], "target": target, "delete_originals": true}),
        );
        assert_eq!(out["files"], 3);
        assert_eq!(out["format"], format);
        assert_eq!(
            fx.sandbox.render_diff(),
            format!(
                "+ archive docs, c.txt -> {target}\n- delete docs/ (9 B)\n- delete c.txt (5 B)\n"
            )
        );
        fx.sandbox.commit(None).unwrap();
        assert_eq!(
            fx.disk().lines().count(),
            1,
            "only the archive is left: {}",
            fx.disk()
        );

        let mut fx = open_dir(fx.dir);
        let listing = fx.run("list_archive", json!({"path": target}));
        let names: Vec<&str> = listing["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            ["docs", "docs/a.txt", "docs/sub", "docs/sub/b.txt", "c.txt"]
        );
        fx.run("extract_archive", json!({"path": target}));
        assert!(fx.sandbox.graph().contains("backup/docs/sub/b.txt"));
        fx.sandbox.commit(None).unwrap();
        assert_eq!(
            std::fs::read_to_string(fx.dir.path().join("backup/docs/sub/b.txt")).unwrap(),
            "beta"
        );
        assert_eq!(
            std::fs::read_to_string(fx.dir.path().join("backup/c.txt")).unwrap(),
            "gamma"
        );
    }
}

#[test]
fn zip_slip_entries_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = std::fs::File::create(dir.path().join("evil.zip")).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default();
    zip.start_file("fine.txt", opts).unwrap();
    zip.write_all(b"ok").unwrap();
    zip.start_file("../../escaped.txt", opts).unwrap();
    zip.write_all(b"pwned").unwrap();
    zip.add_symlink("passwd", "/etc/passwd", opts).unwrap();
    zip.finish().unwrap();
    let mut fx = open_dir(dir);
    let listing = fx.run("list_archive", json!({"path": "evil.zip"}));
    assert_eq!(
        listing["unsafe_entries"],
        json!(["../../escaped.txt", "passwd"])
    );
    assert_eq!(
        listing["refused"][1]["reason"],
        "a link (it could point anywhere)"
    );
    let e = fx.fail("extract_archive", json!({"path": "evil.zip"}));
    assert_eq!(e.code(), "ARCHIVE_UNSAFE");
    assert!(
        e.to_string()
            .contains("`../../escaped.txt`: a `..` that climbs out of the target folder"),
        "{e}"
    );
    assert!(fx.sandbox.changes().is_empty());
}

#[test]
fn archive_problems_are_clear() {
    let mut fx = open(&[("a.txt", "a"), ("not-an-archive.txt", "x")]);
    assert_eq!(
        fx.fail("list_archive", json!({"path": "not-an-archive.txt"}))
            .code(),
        "CONTENT_UNREADABLE"
    );
    assert_eq!(
        fx.fail(
            "create_archive",
            json!({"source": "a.txt", "target": "x.rar", "format": "rar"})
        )
        .code(),
        "INVALID_PARAM"
    );
    assert_eq!(
        fx.fail(
            "create_archive",
            json!({"source": "missing.txt", "target": "x.zip"})
        )
        .code(),
        "NOT_FOUND"
    );
    // An archive made in this plan cannot be listed until it is committed.
    fx.run("create_archive", json!({"source": "a.txt", "target": "a"}));
    assert!(fx.sandbox.graph().contains("a.zip"));
    assert_eq!(
        fx.fail("list_archive", json!({"path": "a.zip"})).code(),
        "CONTENT_UNREADABLE"
    );
}

#[test]
fn the_compression_level_is_chosen_checked_and_used() {
    // Compressible text: a higher level gives a smaller tar.zst.
    let text = "the quick brown fox jumps over the lazy dog, again and again\n".repeat(4000);
    let mut sizes = Vec::new();
    for level in [1, 19] {
        let mut fx = open(&[("log.txt", text.as_str())]);
        let out = fx.run(
            "create_archive",
            json!({"source": "log.txt", "target": "log", "format": "tar.zst", "level": level}),
        );
        assert_eq!(
            (out["path"].as_str(), out["level"].as_i64()),
            (Some("log.tar.zst"), Some(level))
        );
        fx.sandbox.commit(None).unwrap();
        sizes.push(
            std::fs::metadata(fx.dir.path().join("log.tar.zst"))
                .unwrap()
                .len(),
        );
    }
    assert!(
        sizes[1] < sizes[0],
        "level 19 packs tighter than level 1: {sizes:?}"
    );

    let mut fx = open(&[("a.txt", "a")]);
    for (params, problem) in [
        (
            json!({"source": "a.txt", "target": "a.tar.zst", "level": 23}),
            "must be 1..=22 for tar.zst, got 23",
        ),
        (
            json!({"source": "a.txt", "target": "a.zip", "level": 10}),
            "must be 0..=9 for zip",
        ),
        (
            json!({"source": "a.txt", "target": "a.tar", "level": 5}),
            "tar is not compressed",
        ),
        (
            json!({"source": "a.txt", "target": "a.tar.gz", "level": "max"}),
            "must be a whole number",
        ),
    ] {
        let e = fx.fail("create_archive", params.clone());
        assert_eq!(e.code(), "INVALID_PARAM", "{params}");
        assert!(e.to_string().contains(problem), "{params}: {e}");
    }
}

/// A tar of these entries (name, kind, link target, bytes), written byte by byte: the tar crate
/// refuses hostile names.
fn tar_of(entries: &[(&str, tar::EntryType, Option<&str>, &[u8])]) -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    for (name, kind, link, data) in entries {
        let mut h = tar::Header::new_gnu();
        let raw = &mut h.as_old_mut().name;
        raw[..name.len()].copy_from_slice(name.as_bytes());
        h.set_entry_type(*kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        if let Some(l) = link {
            h.set_link_name(l).unwrap();
        }
        h.set_cksum();
        b.append(&h, *data).unwrap();
    }
    b.into_inner().unwrap()
}

/// A tar whose entries try to escape: `..`, an absolute path, a symlink and a hardlink to
/// outside.
fn hostile_tar() -> Vec<u8> {
    use tar::EntryType::{Link, Regular, Symlink};
    tar_of(&[
        ("fine.txt", Regular, None, b"ok"),
        ("../escaped.txt", Regular, None, b"pwned"),
        ("/tmp/absolute.txt", Regular, None, b"pwned"),
        ("link", Symlink, Some("/etc/passwd"), b""),
        ("hard", Link, Some("/etc/passwd"), b""),
    ])
}

/// The entries of the public zip-slip corpus's Windows archives (`zip-slip-win.zip`, its tar twin)
/// and their relatives: backslash separators, drive letters, network paths, a `..` hidden after a
/// folder, and two names that become one path once `\` is read as a separator.
const FROM_WINDOWS: [(&str, &str); 6] = [
    (r"..\..\..\..\Temp\evil.txt", "climbs out"),
    (r"C:\Windows\System32\evil.dll", "a drive letter (`C:`)"),
    (r"\\server\share\evil.txt", "a network path"),
    (r"docs\..\..\evil.txt", "climbs out"),
    (r"/etc/evil.txt", "an absolute path"),
    ("docs/notes.txt", "a second entry for `docs/notes.txt`"),
];

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts = zip::write::SimpleFileOptions::default();
    for (name, data) in entries {
        zip.start_file(*name, opts).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

#[test]
fn archives_from_windows_are_read_as_windows_reads_them_and_escapes_are_archive_unsafe() {
    use tar::EntryType::Regular;
    // Regression: a tar entry `..\..\Temp\evil.txt` was extracted on Linux as one file with
    // backslashes in its name (on Windows it would have escaped), and the zip twin was refused as
    // CONTENT_UNREADABLE, which says nothing of the danger.
    let mut named: Vec<(&str, &[u8])> = vec![(r"docs\notes.txt", b"good")];
    named.extend(FROM_WINDOWS.iter().map(|(n, _)| (*n, b"pwned" as &[u8])));
    let tar = tar_of(
        &named
            .iter()
            .map(|(n, d)| (*n, Regular, None, *d))
            .collect::<Vec<_>>(),
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("from-windows.tar"), &tar).unwrap();
    std::fs::write(dir.path().join("from-windows.zip"), zip_of(&named)).unwrap();
    let mut fx = open_dir(dir);
    for name in ["from-windows.tar", "from-windows.zip"] {
        let listing = fx.run("list_archive", json!({"path": name}));
        let refused = listing["refused"].as_array().unwrap();
        assert_eq!(refused.len(), FROM_WINDOWS.len(), "{name}: {listing}");
        for ((stored, why), got) in FROM_WINDOWS.iter().zip(refused) {
            assert_eq!(got["name"], *stored, "{name}");
            assert!(
                got["reason"].as_str().unwrap().contains(why),
                "{name}: {got}"
            );
        }
        // The first entry is the one that may be extracted, at the path Windows would give it.
        assert_eq!(listing["entries"][0]["name"], "docs/notes.txt", "{name}");
        let e = fx.fail("extract_archive", json!({"path": name}));
        assert_eq!(e.code(), "ARCHIVE_UNSAFE", "{name}");
        let message = e.to_string();
        for (stored, _) in FROM_WINDOWS {
            assert!(
                message.contains(stored),
                "{name}: every entry is named: {message}"
            );
        }
        // The commit-time extractor refuses as well, before writing anything.
        let target = fx.dir.path().join(format!("{name}.out"));
        let format = sandbox::ArchiveFormat::from_name(name).unwrap();
        let err = sandbox::archive_extract(&fx.dir.path().join(name), &target, format).unwrap_err();
        assert!(err.to_string().contains("unsafe entry"), "{name}: {err}");
        assert!(!target.exists(), "{name}: nothing written");
    }
    assert!(fx.sandbox.changes().is_empty());
    let outside = fx.dir.path().parent().unwrap();
    assert!(!outside.join("evil.txt").exists() && !outside.join("Temp").exists());
}

#[test]
fn backslash_separated_entries_extract_into_folders() {
    use tar::EntryType::{Directory, Regular};
    let tar = tar_of(&[
        (r"photos\", Directory, None, b""),
        (r"photos\2024\beach.jpg", Regular, None, b"jpeg bytes"),
        (r".\readme.txt", Regular, None, b"read me"),
    ]);
    let zip = zip_of(&[
        (r"photos\2024\beach.jpg", b"jpeg bytes"),
        (r"readme.txt", b"read me"),
    ]);
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.tar"), tar).unwrap();
    std::fs::write(dir.path().join("b.zip"), zip).unwrap();
    let mut fx = open_dir(dir);
    for (archive, folder) in [("a.tar", "a"), ("b.zip", "b")] {
        let listing = fx.run("list_archive", json!({"path": archive}));
        assert_eq!(listing["refused"], json!([]), "{archive}");
        fx.run("extract_archive", json!({"path": archive}));
        assert!(
            fx.sandbox
                .graph()
                .contains(&format!("{folder}/photos/2024/beach.jpg")),
            "{archive}: {}",
            fx.sandbox.render_diff()
        );
    }
    fx.sandbox.commit(None).unwrap();
    for folder in ["a", "b"] {
        let root = fx.dir.path().join(folder);
        assert_eq!(
            std::fs::read(root.join("photos/2024/beach.jpg")).unwrap(),
            b"jpeg bytes"
        );
        assert_eq!(std::fs::read(root.join("readme.txt")).unwrap(), b"read me");
    }
}

#[test]
fn tar_slip_absolute_paths_and_links_are_refused_in_every_tar_format() {
    use std::io::Write;
    let raw = hostile_tar();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&raw).unwrap();
    let gz = gz.finish().unwrap();
    let zst = zstd::encode_all(&raw[..], 3).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (name, bytes) in [
        ("evil.tar", &raw),
        ("evil.tar.gz", &gz),
        ("evil.tar.zst", &zst),
    ] {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let mut fx = open_dir(dir);
    for name in ["evil.tar", "evil.tar.gz", "evil.tar.zst"] {
        let listing = fx.run("list_archive", json!({"path": name}));
        assert_eq!(
            listing["unsafe_entries"],
            json!(["../escaped.txt", "/tmp/absolute.txt", "link", "hard"]),
            "{name}: {listing}"
        );
        let e = fx.fail("extract_archive", json!({"path": name}));
        assert_eq!(e.code(), "ARCHIVE_UNSAFE", "{name}");
        // The commit-time extractor refuses too (the archive could change after the plan).
        let target = fx.dir.path().join(format!("{name}.out"));
        let format = sandbox::ArchiveFormat::from_name(name).unwrap();
        let err = sandbox::archive_extract(&fx.dir.path().join(name), &target, format).unwrap_err();
        assert!(err.to_string().contains("unsafe entry"), "{name}: {err}");
        assert!(!target.exists(), "{name}: nothing written");
    }
    assert!(fx.sandbox.changes().is_empty());
    assert!(!fx.dir.path().parent().unwrap().join("escaped.txt").exists());
    assert!(!std::path::Path::new("/tmp/absolute.txt").exists());
}
