//! What the persistent embedding cache gives the embedded default. Embeds chunk-sized texts
//! with the word-vector embedder directly, then through `CachedEmbedder` (first pass: misses
//! written to the file; reopened; second pass: hits read back), and prints a Markdown table.
//!
//! `cargo bench -p retrieval --no-default-features --bench embed_cache [-- TEXTS]`

use std::time::Instant;

use retrieval::Embedder;
use retrieval::embed::{CachedEmbedder, Matryoshka, WordsEmbedder};

const DIMS: usize = 384;

/// Chunk-sized texts (~80 words) from a fixed vocabulary, all different.
fn texts(n: usize) -> Vec<String> {
    const WORDS: &[&str] = &[
        "invoice",
        "total",
        "amount",
        "due",
        "payment",
        "customer",
        "order",
        "shipping",
        "recipe",
        "flour",
        "sugar",
        "oven",
        "minutes",
        "meeting",
        "agenda",
        "minutes",
        "action",
        "budget",
        "project",
        "report",
        "quarter",
        "sales",
        "growth",
        "photo",
        "holiday",
        "beach",
        "family",
        "contract",
        "signature",
        "date",
        "address",
        "phone",
        "the",
        "of",
        "and",
        "for",
        "with",
        "from",
        "this",
        "that",
        "we",
        "will",
        "please",
        "send",
        "attached",
        "review",
        "notes",
    ];
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    (0..n)
        .map(|i| {
            let mut t = format!("document {i}:");
            for _ in 0..80 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                t.push(' ');
                t.push_str(WORDS[(state % WORDS.len() as u64) as usize]);
            }
            t
        })
        .collect()
}

fn per_text_us(n: usize, f: impl FnOnce()) -> f64 {
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64() * 1e6 / n as f64
}

/// The process's resident memory in KiB (Linux; 0 elsewhere).
fn rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmRSS:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        })
        .unwrap_or(0)
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(20_000);
    let texts = texts(n);
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let embedder = || Matryoshka::new(WordsEmbedder::new(DIMS), DIMS);
    let direct = embedder();
    direct.embed_documents(&refs[..10]).unwrap();
    let direct_us = per_text_us(n, || {
        for batch in refs.chunks(32) {
            direct.embed_documents(batch).unwrap();
        }
    });
    let dir = tempfile::tempdir().unwrap();
    let cached = CachedEmbedder::open(embedder(), dir.path()).unwrap();
    let miss_us = per_text_us(n, || {
        for batch in refs.chunks(32) {
            cached.embed_documents(batch).unwrap();
        }
    });
    let size = std::fs::metadata(cached.path()).unwrap().len() as f64 / (1 << 20) as f64;
    drop(cached);
    let before = rss_kib();
    let t = Instant::now();
    let cached = CachedEmbedder::open(embedder(), dir.path()).unwrap();
    let open_ms = t.elapsed().as_secs_f64() * 1e3;
    let held = rss_kib().saturating_sub(before) as f64 / 1024.0;
    let hit_us = per_text_us(n, || {
        for batch in refs.chunks(32) {
            cached.embed_documents(batch).unwrap();
        }
    });
    assert_eq!(cached.stats().hits as usize, n);
    println!("embedded default (words, {DIMS} dims), {n} texts of ~80 words\n");
    println!(
        "| embed directly | through the cache, miss | cache file | open the cache | memory it holds | through the cache, hit |"
    );
    println!("|---|---|---|---|---|---|");
    println!(
        "| {direct_us:.1} µs | {miss_us:.1} µs | {size:.0} MiB | {open_ms:.0} ms | {held:.1} MiB | {hit_us:.1} µs |"
    );
}
