//! Similar photos on real image files: resized, recompressed and brightened copies of a picture
//! form one group with their sizes and resolutions, other pictures stay apart, the largest copy
//! is the one kept unless the person chooses, and a file that is not an image is reported.

use std::path::Path;

use contracts::ErrorCode;
use image::{ImageFormat, RgbImage, imageops::FilterType};
use serde_json::{Value, json};

use crate::support::{group_paths, open_dir};

fn picture(seed: u64, width: u32, height: u32) -> RgbImage {
    sandbox::parse::samples::picture(seed, width, height)
}

fn save_jpeg(img: &RgbImage, path: &Path, quality: u8) {
    std::fs::write(path, sandbox::parse::samples::encoded_jpeg(img, quality)).unwrap();
}

/// `Photos/` with picture 1 and three altered copies, picture 2 and a smaller copy, picture 3
/// alone, and a `.jpg` that is not an image.
fn photos() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let photos = dir.path().join("Photos");
    std::fs::create_dir(&photos).unwrap();
    let beach = picture(1, 640, 480);
    save_jpeg(&beach, &photos.join("beach.jpg"), 92);
    image::imageops::resize(&beach, 320, 240, FilterType::Triangle)
        .save_with_format(photos.join("beach-small.png"), ImageFormat::Png)
        .unwrap();
    save_jpeg(&beach, &photos.join("beach-whatsapp.jpg"), 35);
    save_jpeg(
        &image::imageops::colorops::brighten(&beach, 18),
        &photos.join("beach-edited.jpg"),
        90,
    );
    let hills = picture(2, 800, 600);
    save_jpeg(&hills, &photos.join("hills.jpg"), 90);
    save_jpeg(
        &image::imageops::resize(&hills, 400, 300, FilterType::Lanczos3),
        &photos.join("hills-400.jpg"),
        85,
    );
    save_jpeg(&picture(3, 640, 480), &photos.join("city.jpg"), 90);
    std::fs::write(photos.join("notes.jpg"), "this is text, not a jpeg").unwrap();
    dir
}

#[test]
fn altered_copies_of_a_photo_are_one_group_with_their_resolutions() {
    let mut fx = open_dir(photos());
    // Byte comparison sees nothing: every file differs.
    let exact = fx.run("find_duplicates", json!({"path": "Photos"}));
    assert_eq!(exact["group_count"], 0);

    let d = fx.run(
        "find_duplicates",
        json!({"path": "Photos", "similar": true}),
    );
    let mut found: Vec<Vec<String>> = group_paths(&d)
        .into_iter()
        .map(|mut g| {
            g.sort();
            g
        })
        .collect();
    found.sort();
    assert_eq!(
        found,
        [
            vec![
                "Photos/beach-edited.jpg",
                "Photos/beach-small.png",
                "Photos/beach-whatsapp.jpg",
                "Photos/beach.jpg",
            ],
            vec!["Photos/hills-400.jpg", "Photos/hills.jpg"],
        ],
        "{d:#}"
    );
    assert_eq!(d["group_count"], 2, "{d:#}");
    assert_eq!(
        (d["similar"].as_bool(), d["threshold"].as_u64()),
        (Some(true), Some(72))
    );
    for g in d["groups"].as_array().unwrap() {
        let images = g["images"].as_array().unwrap();
        // The copy with the most pixels first, then the others with their distance to it.
        let pixels: Vec<u64> = images
            .iter()
            .map(|i| i["width"].as_u64().unwrap() * i["height"].as_u64().unwrap())
            .collect();
        assert!(pixels.windows(2).all(|w| w[0] >= w[1]), "{g:#}");
        assert_eq!(images[0]["distance"], 0);
        assert!(images.iter().all(|i| i["size"].as_u64().unwrap() > 0));
    }
    let hills = &d["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["count"] == 2)
        .unwrap()["images"];
    assert_eq!(
        (hills[0]["width"].as_u64(), hills[1]["width"].as_u64()),
        (Some(800), Some(400))
    );
    // The file that is not an image is reported, not guessed.
    let issues = d["issues"].as_array().unwrap();
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0]["path"], "Photos/notes.jpg");
    assert!(
        issues[0]["message"]
            .as_str()
            .unwrap()
            .contains("not a readable image")
    );
}

#[test]
fn the_largest_similar_photo_stays_unless_the_person_chooses() {
    let mut fx = open_dir(photos());
    let d = fx.run(
        "find_duplicates",
        json!({"path": "Photos", "similar": true}),
    );
    let removed = fx.run("remove_duplicates", json!({"groups": d["groups"]}));
    let mut kept: Vec<&str> = removed["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        ["Photos/beach.jpg", "Photos/hills.jpg"],
        "{removed:#}"
    );
    assert_eq!(removed["count"], 4);
    fx.sandbox.commit(None).unwrap();
    let mut left: Vec<String> = std::fs::read_dir(fx.dir.path().join("Photos"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["beach.jpg", "city.jpg", "hills.jpg", "notes.jpg"]);

    // Asked for the smallest path, the person gets it.
    let mut fx = open_dir(photos());
    let d = fx.run(
        "find_duplicates",
        json!({"path": "Photos", "similar": true}),
    );
    let removed = fx.run(
        "remove_duplicates",
        json!({"groups": d["groups"], "keep": "shortest_path"}),
    );
    assert!(
        removed["kept"]
            .as_array()
            .unwrap()
            .contains(&json!("Photos/hills.jpg"))
    );
}

#[test]
fn a_threshold_is_checked_and_tightens_the_groups() {
    let mut fx = open_dir(photos());
    let strict = fx.run(
        "find_duplicates",
        json!({"path": "Photos", "similar": true, "threshold": 0}),
    );
    let loose = fx.run(
        "find_duplicates",
        json!({"path": "Photos", "similar": true}),
    );
    let members = |d: &Value| -> u64 {
        d["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| g["count"].as_u64().unwrap())
            .sum()
    };
    assert!(members(&strict) < members(&loose), "{strict:#}");
    for (params, problem) in [
        (
            json!({"path": "Photos", "similar": true, "threshold": 257}),
            "must be 0..=256",
        ),
        (
            json!({"path": "Photos", "threshold": 10}),
            "add similar: true",
        ),
    ] {
        let e = fx.fail("find_duplicates", params.clone());
        assert_eq!(e.code(), "INVALID_PARAM", "{params}");
        assert!(e.to_string().contains(problem), "{params}: {e}");
    }
}
