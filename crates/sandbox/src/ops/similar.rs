//! Similar photos: a perceptual hash per image (image_hasher's gradient hash, 16×16 = 256 bits)
//! and groups of images whose hashes differ from the group's largest picture in at most
//! `threshold` bits — resized, recompressed or slightly edited copies that a byte comparison
//! cannot see. Each group lists its images with their sizes and resolutions, the one with the
//! most pixels first (the copy worth keeping).

use std::path::{Path, PathBuf};

use image_hasher::{HashAlg, Hasher, HasherConfig, ImageHash};
use rayon::prelude::*;
use serde_json::{Value, json};

use crate::node::Node;

/// The extensions decoded for a similarity scan.
pub const IMAGE_EXTENSIONS: [&str; 8] = ["jpg", "jpeg", "png", "webp", "gif", "bmp", "tif", "tiff"];

/// Bits in one hash.
pub const HASH_BITS: u32 = 256;

/// Differing bits (of 256) up to which two photos are one picture, calibrated on real photos
/// and their resized, recompressed, brightened, cropped and blurred copies (`scope-weaver
/// eval-similar`, BENCHMARKS.md "Similar photos"): no photo mixed with another up to 80 bits,
/// two pairs of photos mixed at 96; 72 keeps a margin.
pub const DEFAULT_THRESHOLD: u32 = 72;

fn hasher() -> Hasher {
    HasherConfig::new()
        .hash_size(16, 16)
        .hash_alg(HashAlg::Gradient)
        .to_hasher()
}

/// One decoded image.
struct Picture<'a> {
    node: &'a Node,
    hash: ImageHash,
    width: u32,
    height: u32,
}

impl Picture<'_> {
    fn pixels(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height)
    }
}

/// A decoded image's hash, width and height, or why it could not be read.
type Decoded = Result<(ImageHash, u32, u32), String>;

fn decode(path: &Path, hasher: &Hasher) -> Decoded {
    let image = image::ImageReader::open(path)
        .map_err(|e| e.to_string())?
        .with_guessed_format()
        .map_err(|e| e.to_string())?
        .decode()
        .map_err(|e| format!("not a readable image: {e}"))?;
    Ok((hasher.hash_image(&image), image.width(), image.height()))
}

/// Groups of similar images among `candidates` (read at `disk(node)`), each as
/// `(wasted bytes, group)`; images that cannot be decoded are reported in `issues`.
pub(super) fn similar_groups(
    candidates: Vec<&Node>,
    disk: impl Fn(&Node) -> PathBuf + Sync,
    threshold: u32,
    issues: &mut Vec<Value>,
) -> Vec<(u64, Value)> {
    let decoded: Vec<(&Node, Decoded)> = candidates
        .into_par_iter()
        .map_init(hasher, |h, n| (n, decode(&disk(n), h)))
        .collect();
    let mut pictures = Vec::with_capacity(decoded.len());
    for (node, result) in decoded {
        match result {
            Ok((hash, width, height)) => pictures.push(Picture {
                node,
                hash,
                width,
                height,
            }),
            Err(message) => issues.push(json!({"path": node.id, "message": message})),
        }
    }
    // The largest pictures first; each joins the group whose first (largest) picture is nearest
    // within the threshold, or starts one. Compared with that first picture only, so a chain of
    // small differences never joins two different photos.
    pictures.sort_by(|a, b| {
        b.pixels()
            .cmp(&a.pixels())
            .then(b.node.size.cmp(&a.node.size))
            .then_with(|| a.node.id.cmp(&b.node.id))
    });
    let mut members: Vec<Vec<&Picture>> = Vec::new();
    for picture in &pictures {
        let nearest = members
            .iter_mut()
            .map(|m| (m[0].hash.dist(&picture.hash), m))
            .filter(|(d, _)| *d <= threshold)
            .min_by_key(|(d, _)| *d);
        match nearest {
            Some((_, m)) => m.push(picture),
            None => members.push(vec![picture]),
        }
    }
    members
        .into_iter()
        .filter(|m| m.len() > 1)
        .map(|m| {
            let best = m[0];
            let wasted: u64 = m[1..].iter().map(|p| p.node.size).sum();
            let images: Vec<Value> = m
                .iter()
                .map(|p| {
                    json!({"path": p.node.id, "size": p.node.size, "width": p.width,
                           "height": p.height, "distance": best.hash.dist(&p.hash)})
                })
                .collect();
            let paths: Vec<&str> = m.iter().map(|p| p.node.id.as_str()).collect();
            (
                wasted,
                json!({"kind": "similar", "hash": best.hash.to_base64(), "size": best.node.size,
                       "count": m.len(), "paths": paths, "images": images,
                       "wasted_bytes": wasted}),
            )
        })
        .collect()
}

/// Pixels of each image a similar group lists (`path` → width × height); empty for a group of
/// identical files.
pub(super) fn pixels_by_path(group: &Value) -> std::collections::HashMap<String, u64> {
    group["images"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|i| {
            let pixels = i["width"].as_u64()? * i["height"].as_u64()?;
            Some((i["path"].as_str()?.to_owned(), pixels))
        })
        .collect()
}
