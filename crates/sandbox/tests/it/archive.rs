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
    zip.finish().unwrap();
    let mut fx = open_dir(dir);
    let listing = fx.run("list_archive", json!({"path": "evil.zip"}));
    assert_eq!(listing["unsafe_entries"], json!(["../../escaped.txt"]));
    let e = fx.fail("extract_archive", json!({"path": "evil.zip"}));
    assert_eq!(e.code(), "CONTENT_UNREADABLE");
    assert!(
        e.to_string()
            .contains("entry `../../escaped.txt` would land outside"),
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

/// A tar whose entries try to escape: `..`, an absolute path, a symlink and a hardlink to
/// outside. Written byte by byte (the tar crate refuses such names), in every tar flavour.
fn hostile_tar() -> Vec<u8> {
    let mut b = tar::Builder::new(Vec::new());
    let mut add = |name: &str, kind: tar::EntryType, link: Option<&str>, data: &[u8]| {
        let mut h = tar::Header::new_gnu();
        let raw = &mut h.as_old_mut().name;
        raw[..name.len()].copy_from_slice(name.as_bytes());
        h.set_entry_type(kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        if let Some(l) = link {
            h.set_link_name(l).unwrap();
        }
        h.set_cksum();
        b.append(&h, data).unwrap();
    };
    add("fine.txt", tar::EntryType::Regular, None, b"ok");
    add("../escaped.txt", tar::EntryType::Regular, None, b"pwned");
    add("/tmp/absolute.txt", tar::EntryType::Regular, None, b"pwned");
    add("link", tar::EntryType::Symlink, Some("/etc/passwd"), b"");
    add("hard", tar::EntryType::Link, Some("/etc/passwd"), b"");
    b.into_inner().unwrap()
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
        assert_eq!(e.code(), "CONTENT_UNREADABLE", "{name}");
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
