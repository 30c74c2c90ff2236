//! `scope-weaver eval-similar --photos DIR`: how well similar photos are found. Every photo in DIR
//! (real photographs: `scripts/fetch-photos.sh`) is written into a temporary `Photos` folder with
//! seven altered copies (resized to a half and a quarter, recompressed hard, brightened, with more
//! contrast, cropped, blurred); `remove-duplicates scan similar: true` then runs at each threshold,
//! and every pair of files in one group is judged: right when both come from the same photo.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};
use image::imageops::{self, FilterType};
use image::{ImageFormat, RgbImage};
use serde_json::{Value, json};

use crate::commands::{Env, open_sandbox};
use crate::output::print_json;

/// Differing bits (of 256) tried.
const THRESHOLDS: &[u32] = &[
    4, 6, 8, 10, 12, 14, 16, 20, 24, 32, 40, 48, 56, 64, 72, 80, 96,
];

/// The altered copies written for each photo: name suffix and how it is made.
type Alteration = (&'static str, fn(&RgbImage) -> (RgbImage, ImageFormat, u8));

const ALTERATIONS: &[Alteration] = &[
    ("half", |i| (half(i, 2), ImageFormat::Jpeg, 90)),
    ("quarter", |i| (half(i, 4), ImageFormat::Png, 0)),
    ("q30", |i| (i.clone(), ImageFormat::Jpeg, 30)),
    ("bright", |i| {
        (imageops::colorops::brighten(i, 25), ImageFormat::Jpeg, 90)
    }),
    ("contrast", |i| {
        (imageops::colorops::contrast(i, 20.0), ImageFormat::Jpeg, 90)
    }),
    ("crop", |i| (crop(i, 0.04), ImageFormat::Jpeg, 90)),
    ("blur", |i| (imageops::blur(i, 1.5), ImageFormat::Jpeg, 90)),
];

fn half(img: &RgbImage, by: u32) -> RgbImage {
    imageops::resize(
        img,
        img.width() / by,
        img.height() / by,
        FilterType::Triangle,
    )
}

fn crop(img: &RgbImage, share: f32) -> RgbImage {
    let (dx, dy) = (
        (img.width() as f32 * share) as u32,
        (img.height() as f32 * share) as u32,
    );
    imageops::crop_imm(img, dx, dy, img.width() - 2 * dx, img.height() - 2 * dy).to_image()
}

fn write(img: &RgbImage, path: &Path, format: ImageFormat, quality: u8) -> Result<()> {
    if format == ImageFormat::Jpeg {
        std::fs::write(path, sandbox::parse::samples::encoded_jpeg(img, quality))?;
    } else {
        img.save_with_format(path, format)?;
    }
    Ok(())
}

/// Writes every photo of `photos` and its altered copies into `into`; returns each file's name
/// and the photo it comes from.
fn write_corpus(photos: &Path, into: &Path) -> Result<Vec<(String, String)>> {
    let mut sources: Vec<_> = std::fs::read_dir(photos)
        .with_context(|| format!("reading {}", photos.display()))?
        .collect::<Result<_, _>>()?;
    sources.sort_by_key(|e| e.file_name());
    let mut files = Vec::new();
    for entry in sources {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(stem) = name
            .rsplit_once('.')
            .filter(|(_, ext)| matches!(ext.to_ascii_lowercase().as_str(), "jpg" | "jpeg" | "png"))
            .map(|(stem, _)| stem.to_owned())
        else {
            continue;
        };
        let img: RgbImage = image::open(entry.path())
            .with_context(|| format!("decoding {name}"))?
            .into_rgb8();
        let original = format!("{stem}.jpg");
        write(&img, &into.join(&original), ImageFormat::Jpeg, 95)?;
        files.push((original, stem.clone()));
        for (suffix, alter) in ALTERATIONS {
            let (altered, format, quality) = alter(&img);
            let ext = if format == ImageFormat::Png {
                "png"
            } else {
                "jpg"
            };
            let file = format!("{stem}-{suffix}.{ext}");
            write(&altered, &into.join(&file), format, quality)?;
            files.push((file, stem.clone()));
        }
    }
    if files.is_empty() {
        bail!(
            "no .jpg or .png photos in {} (fetch real ones with scripts/fetch-photos.sh)",
            photos.display()
        );
    }
    Ok(files)
}

/// Pairwise precision and recall of the groups against the photos the files come from.
fn score(groups: &Value, source_of: &dyn Fn(&str) -> Option<String>, truth_pairs: usize) -> Value {
    let (mut right, mut wrong) = (0usize, 0usize);
    let mut mixed = Vec::new();
    for g in groups.as_array().into_iter().flatten() {
        let paths: Vec<&str> = g["paths"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let mut wrong_here = 0;
        for (i, a) in paths.iter().enumerate() {
            for b in &paths[i + 1..] {
                if source_of(a) == source_of(b) {
                    right += 1;
                } else {
                    wrong_here += 1;
                }
            }
        }
        if wrong_here > 0 {
            mixed.push(json!(paths));
        }
        wrong += wrong_here;
    }
    json!({
        "precision": 100.0 * right as f64 / (right + wrong).max(1) as f64,
        "recall": 100.0 * right as f64 / truth_pairs.max(1) as f64,
        "pairs_right": right,
        "pairs_wrong": wrong,
        "mixed_groups": mixed,
    })
}

/// For each alteration, the share of its copies that are in their photo's group (with the
/// re-saved original).
fn found_by_alteration(groups: &Value) -> Value {
    let mut with_original = std::collections::HashSet::new();
    for g in groups.as_array().into_iter().flatten() {
        let names: Vec<&str> = g["paths"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.as_str()?.rsplit('/').next())
            .collect();
        for n in &names {
            let stem = n.rsplit_once('.').map_or(*n, |(s, _)| s);
            if let Some((photo, _)) = stem.rsplit_once('-')
                && names.contains(&format!("{photo}.jpg").as_str())
            {
                with_original.insert(stem.to_owned());
            }
        }
    }
    let photos = |suffix: &str| {
        with_original
            .iter()
            .filter(|s| s.ends_with(&format!("-{suffix}")))
            .count()
    };
    ALTERATIONS
        .iter()
        .map(|(suffix, _)| (suffix.to_string(), json!(photos(suffix))))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

pub fn eval_similar_cmd(
    env: &Env,
    photos: &Path,
    only: Option<u32>,
    failures: bool,
) -> Result<ExitCode> {
    let dir = tempfile::tempdir()?;
    let folder = dir.path().join("Photos");
    std::fs::create_dir(&folder)?;
    let files = write_corpus(photos, &folder)?;
    let mut per_photo: std::collections::HashMap<&str, usize> = Default::default();
    for (_, source) in &files {
        *per_photo.entry(source).or_default() += 1;
    }
    let truth_pairs: usize = per_photo.values().map(|n| n * (n - 1) / 2).sum();
    let source_of = |path: &str| -> Option<String> {
        let name = path.rsplit('/').next()?;
        files
            .iter()
            .find(|(f, _)| f == name)
            .map(|(_, s)| s.clone())
    };
    let mut sandbox = open_sandbox(env, dir.path())?;
    let mut rows = Vec::new();
    let thresholds = only.map_or_else(|| THRESHOLDS.to_vec(), |t| vec![t]);
    for threshold in thresholds {
        let params = json!({"path": "Photos", "similar": true, "threshold": threshold});
        let started = Instant::now();
        let result = sandbox.call("find_duplicates", params.as_object().expect("an object"))?;
        let seconds = started.elapsed().as_secs_f64();
        let mut row = score(&result.data["groups"], &source_of, truth_pairs);
        row["found_by_alteration"] = found_by_alteration(&result.data["groups"]);
        row["threshold"] = json!(threshold);
        row["groups"] = result.data["group_count"].clone();
        row["images_per_second"] = json!(files.len() as f64 / seconds);
        row["unreadable"] = json!(result.data["issues"].as_array().map_or(0, Vec::len));
        if !failures {
            row.as_object_mut()
                .expect("an object")
                .remove("mixed_groups");
        }
        rows.push(row);
    }
    let exact = sandbox.call(
        "find_duplicates",
        json!({"path": "Photos"}).as_object().expect("an object"),
    )?;
    let out = json!({
        "photos": per_photo.len(),
        "files": files.len(),
        "alterations": ALTERATIONS.iter().map(|(s, _)| *s).collect::<Vec<_>>(),
        "same_photo_pairs": truth_pairs,
        "identical_groups_by_bytes": exact.data["group_count"],
        "default_threshold": sandbox::SIMILAR_DEFAULT_THRESHOLD,
        "thresholds": rows,
    });
    if env.json {
        print_json(&out);
    } else {
        println!(
            "{} photos, {} files ({} altered copies each), {} same-photo pairs; by bytes: {} group(s)",
            out["photos"],
            out["files"],
            ALTERATIONS.len(),
            truth_pairs,
            out["identical_groups_by_bytes"]
        );
        println!("| threshold (bits of 256) | precision | recall | groups | images/s |");
        println!("|---|---|---|---|---|");
        for r in out["thresholds"].as_array().into_iter().flatten() {
            println!(
                "| {} | {:.1}% | {:.1}% | {} | {:.0} |",
                r["threshold"],
                r["precision"].as_f64().unwrap_or(0.0),
                r["recall"].as_f64().unwrap_or(0.0),
                r["groups"],
                r["images_per_second"].as_f64().unwrap_or(0.0)
            );
            println!(
                "    with their original, of {}: {}",
                out["photos"], r["found_by_alteration"]
            );
            for m in r["mixed_groups"].as_array().into_iter().flatten() {
                println!("    mixed: {m}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
