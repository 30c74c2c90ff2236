//! usearch (HNSW) against exact brute-force cosine on 100k × 384 unit vectors, in one run:
//! build time, index size, query latency, speed ratio and recall@10, for f32 / f16 / i8.
//!
//! `cargo bench -p retrieval --no-default-features --bench vectors [-- N DIMS QUERIES]`
//! Prints a Markdown table (copied into BENCHMARKS.md).

use std::time::Instant;

use config::VectorQuantization;
use retrieval::VectorStore;

/// A deterministic uniform generator in [-1, 1).
fn rng(seed: u64) -> impl FnMut() -> f32 {
    let mut s = seed;
    move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

fn unit(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// Vectors with topic structure (like embeddings of related texts): 2000 random topic centres,
/// each vector a centre plus as much noise again, normalised.
fn dataset(n: usize, dims: usize) -> Vec<Vec<f32>> {
    let mut next = rng(7);
    let centres: Vec<Vec<f32>> = (0..2000)
        .map(|_| (0..dims).map(|_| next()).collect())
        .collect();
    (0..n)
        .map(|i| {
            unit(
                centres[i % centres.len()]
                    .iter()
                    .map(|x| x + next())
                    .collect(),
            )
        })
        .collect()
}

/// Queries: stored vectors with fresh noise (a paraphrase of something indexed).
fn queries(data: &[Vec<f32>], count: usize) -> Vec<Vec<f32>> {
    let mut next = rng(99);
    (0..count)
        .map(|i| {
            let base = &data[(i * 7919) % data.len()];
            unit(base.iter().map(|x| x + 0.05 * next()).collect())
        })
        .collect()
}

/// The peer: exact top-k by scanning every vector (what a numpy cosine store does).
fn brute_force(data: &[f32], dims: usize, q: &[f32], k: usize) -> Vec<u64> {
    let mut scored: Vec<(f32, u64)> = data
        .chunks_exact(dims)
        .enumerate()
        .map(|(i, v)| (v.iter().zip(q).map(|(a, b)| a * b).sum::<f32>(), i as u64))
        .collect();
    let k = k.min(scored.len());
    scored.select_nth_unstable_by(k - 1, |a, b| b.0.total_cmp(&a.0));
    scored.truncate(k);
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.into_iter().map(|s| s.1).collect()
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(100_000);
    let dims = args.get(1).copied().unwrap_or(384);
    let queries_n = args.get(2).copied().unwrap_or(500);
    let k = 10;
    let data = dataset(n, dims);
    let flat: Vec<f32> = data.iter().flatten().copied().collect();
    let qs = queries(&data, queries_n);

    let t = Instant::now();
    let truth: Vec<Vec<u64>> = qs.iter().map(|q| brute_force(&flat, dims, q, k)).collect();
    let brute_ms = t.elapsed().as_secs_f64() * 1e3 / queries_n as f64;

    println!(
        "usearch vs brute-force cosine: {n} vectors × {dims} dims, {queries_n} queries, k = {k}\n"
    );
    println!(
        "| precision | build | index size | query (usearch) | query (brute force) | speed-up | recall@10 |"
    );
    println!("|---|---|---|---|---|---|---|");
    for q in [
        VectorQuantization::F32,
        VectorQuantization::F16,
        VectorQuantization::I8,
    ] {
        let mut store = VectorStore::new(dims, q).unwrap();
        store.reserve(n).unwrap();
        let t = Instant::now();
        for (i, v) in data.iter().enumerate() {
            store.add(i as u64, v).unwrap();
        }
        let build = t.elapsed().as_secs_f64();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bench.usearch");
        store.save(&path).unwrap();
        let size = std::fs::metadata(&path).unwrap().len() as f64 / (1 << 20) as f64;
        let t = Instant::now();
        let found: Vec<Vec<u64>> = qs
            .iter()
            .map(|v| {
                store
                    .search(v, k)
                    .unwrap()
                    .into_iter()
                    .map(|h| h.0)
                    .collect()
            })
            .collect();
        let ann_ms = t.elapsed().as_secs_f64() * 1e3 / queries_n as f64;
        let hits: usize = found
            .iter()
            .zip(&truth)
            .map(|(f, t)| f.iter().filter(|x| t.contains(x)).count())
            .sum();
        let recall = hits as f64 / (queries_n * k) as f64;
        println!(
            "| {q} | {build:.1} s | {size:.0} MiB | {ann_ms:.3} ms | {brute_ms:.2} ms | {:.0}× | {recall:.3} |",
            brute_ms / ann_ms
        );
    }
}
