//! The patched candle kernels the local model runs on (vendor/PATCHES.md): the AVX2
//! dot products for Q5_0 and Q4_1 blocks agree with candle's scalar ones, and a quantized matmul
//! over many rows (the batched prefill path) agrees with the row-by-row path and with an f32
//! matmul of the dequantized weights, for every weight type the shipped GGUF files use.

use candle_core::quantized::k_quants::{
    BATCHED_MATMUL_MIN_ROWS, BlockQ4_1, BlockQ4K, BlockQ5_0, BlockQ6K, BlockQ8_0, GgmlType,
};
use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{Device, Module, Tensor};

/// Deterministic values in [-1, 1) (xorshift), so a failure reproduces.
fn values(len: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

fn blocks<T: GgmlType>(xs: &[f32]) -> Vec<T> {
    let mut out = vec![T::zeros(); xs.len() / T::BLCK_SIZE];
    T::from_float(xs, &mut out);
    out
}

/// `vec_dot` (SIMD where compiled in) against `vec_dot_unopt` (scalar) on the same blocks.
fn dot_agrees<T: GgmlType>(k: usize) {
    for seed in 1..20 {
        let xs: Vec<T> = blocks(&values(k, seed));
        let ys: Vec<T::VecDotType> = blocks(&values(k, seed + 1000));
        let fast = T::vec_dot(k, &xs, &ys);
        let scalar = T::vec_dot_unopt(k, &xs, &ys);
        let tolerance = 1e-4 * scalar.abs().max(1.0);
        assert!(
            (fast - scalar).abs() <= tolerance,
            "{:?} k={k} seed={seed}: vec_dot {fast} vs scalar {scalar}",
            T::DTYPE
        );
    }
}

#[test]
fn simd_dot_products_match_the_scalar_ones() {
    dot_agrees::<BlockQ5_0>(896);
    dot_agrees::<BlockQ4_1>(576);
    dot_agrees::<BlockQ8_0>(896);
    dot_agrees::<BlockQ4K>(4864);
    dot_agrees::<BlockQ6K>(4864);
    // Qwen2.5-1.5B: Q4_K attention and FFN weights over 1,536 and 8,960 inputs, Q6_K down.
    dot_agrees::<BlockQ4K>(1536);
    dot_agrees::<BlockQ4K>(8960);
    dot_agrees::<BlockQ6K>(8960);
}

fn relative_error(got: &Tensor, want: &Tensor) -> f32 {
    let diff = (got - want)
        .unwrap()
        .sqr()
        .unwrap()
        .sum_all()
        .unwrap()
        .to_scalar::<f32>()
        .unwrap();
    let norm = want
        .sqr()
        .unwrap()
        .sum_all()
        .unwrap()
        .to_scalar::<f32>()
        .unwrap();
    (diff / norm).sqrt()
}

/// `x (m×k) · wᵀ` through the quantized matmul against the f32 matmul of the dequantized `w`.
fn matmul_error(dtype: GgmlDType, m: usize, k: usize, n: usize) -> f32 {
    let dev = Device::Cpu;
    let w = Tensor::from_vec(values(n * k, 7), (n, k), &dev).unwrap();
    let q = QTensor::quantize(&w, dtype).unwrap();
    let reference_w = q.dequantize(&dev).unwrap();
    let x = Tensor::from_vec(values(m * k, 11), (m, k), &dev).unwrap();
    let want = x.matmul(&reference_w.t().unwrap()).unwrap();
    let got = QMatMul::from_qtensor(q).unwrap().forward(&x).unwrap();
    assert_eq!(got.dims(), &[m, n]);
    relative_error(&got, &want)
}

#[test]
fn batched_matmul_matches_the_dequantized_product() {
    let rows = BATCHED_MATMUL_MIN_ROWS;
    for (dtype, k) in [
        (GgmlDType::Q5_0, 896),
        (GgmlDType::Q4_1, 576),
        (GgmlDType::Q8_0, 896),
        (GgmlDType::Q4K, 512),
        (GgmlDType::Q6K, 512),
        (GgmlDType::Q4K, 1536),
        (GgmlDType::Q6K, 8960),
    ] {
        // Many rows: weights dequantized once, f32 GEMM (exact up to float reordering). Odd
        // column counts exercise the last, narrower tile.
        for (m, n) in [(rows, 200), (rows + 37, 1000), (300, 72)] {
            let error = matmul_error(dtype, m, k, n);
            assert!(
                error < 1e-4,
                "{dtype:?} {m}×{k}·{n}: relative error {error}"
            );
        }
        // One row (generating a token): activations quantized to 8 bits, a small error.
        let error = matmul_error(dtype, 1, k, 300);
        assert!(error < 0.02, "{dtype:?} 1×{k}: relative error {error}");
        // Below the threshold: the row-by-row path, same bound.
        let error = matmul_error(dtype, rows - 1, k, 130);
        assert!(
            error < 0.02,
            "{dtype:?} {}×{k}: relative error {error}",
            rows - 1
        );
    }
}
