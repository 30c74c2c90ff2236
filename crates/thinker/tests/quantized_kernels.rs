//! The patched candle kernels the local model runs on (vendor/PATCHES.md): the AVX2
//! dot products for Q5_0 and Q4_1 blocks agree with candle's scalar ones; a quantized matmul
//! over many rows (the batched prefill path) agrees with the row-by-row path and with an f32
//! matmul of the dequantized weights, for every weight type the shipped GGUF files use; and the
//! 8-bit integer kernel for a prompt times Q4K or Q6K weights gives exactly `vec_dot`'s sums (Q4K
//! with AVX-512 VNNI and without).
use candle_core::quantized::k_quants::{
    BATCHED_MATMUL_MIN_ROWS, BlockQ4_1, BlockQ4K, BlockQ5_0, BlockQ6K, BlockQ8_0, BlockQ8K,
    GgmlType,
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
        // Many rows: weights dequantized once, f32 GEMM (exact up to float reordering); K-quant
        // weights in 8-bit integers (the prompt quantized as for one row; checked exactly
        // below). Odd column counts exercise the last, narrower tile.
        let bound = if matches!(dtype, GgmlDType::Q4K | GgmlDType::Q6K) {
            0.02
        } else {
            1e-4
        };
        for (m, n) in [(rows, 200), (rows + 37, 1000), (300, 72)] {
            let error = matmul_error(dtype, m, k, n);
            assert!(
                error < bound,
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

/// A prompt times K-quant weights in 8-bit integers (`avx_prompt`, vendor/PATCHES.md) gives each
/// cell the dot product `vec_dot` gives for that weight row and that prompt row in Q8K: the same
/// integer sums, only float additions reordered. Sizes cover whole 64×64 tiles, a tile's last
/// rows below a group of four, and Qwen2.5-1.5B's widest input (8,960).
fn prompt_matmul_is_the_row_by_row_dot_product<T: GgmlType<VecDotType = BlockQ8K>>() {
    let dev = Device::Cpu;
    for (m, k, n, seed) in [
        (16, 256, 16, 1),
        (64, 1536, 128, 2),
        (135, 512, 70, 3),
        (67, 8960, 5, 4),
    ] {
        assert!(m >= BATCHED_MATMUL_MIN_ROWS);
        let w_values = values(n * k, seed);
        let x_values = values(m * k, seed + 100);
        let w = Tensor::from_vec(w_values.clone(), (n, k), &dev).unwrap();
        let x = Tensor::from_vec(x_values.clone(), (m, k), &dev).unwrap();
        let q = QTensor::quantize(&w, T::DTYPE).unwrap();
        let got = QMatMul::from_qtensor(q).unwrap().forward(&x).unwrap();
        let got: Vec<Vec<f32>> = got.to_vec2().unwrap();

        let weights: Vec<T> = blocks(&w_values);
        let rows: Vec<BlockQ8K> = blocks(&x_values);
        let kb = k / 256;
        for (i, got_row) in got.iter().enumerate() {
            for (j, &cell) in got_row.iter().enumerate() {
                let want = T::vec_dot(
                    k,
                    &weights[j * kb..(j + 1) * kb],
                    &rows[i * kb..(i + 1) * kb],
                );
                assert!(
                    (cell - want).abs() <= 1e-4 * want.abs().max(1.0),
                    "{:?} {m}×{k}·{n}, cell ({i}, {j}): {cell} vs the dot product {want}",
                    T::DTYPE
                );
            }
        }
    }
}

#[test]
fn a_prompt_times_q4k_weights_is_the_row_by_row_dot_product() {
    prompt_matmul_is_the_row_by_row_dot_product::<BlockQ4K>();
}

#[test]
fn a_prompt_times_q6k_weights_is_the_row_by_row_dot_product() {
    prompt_matmul_is_the_row_by_row_dot_product::<BlockQ6K>();
}

/// The Q4K check on the AVX2 kernel a CPU without AVX-512 VNNI runs (Q6K takes the f32 path
/// there): this test binary again, with the switch that keeps it (read once per process).
#[test]
fn the_kernel_without_vnni_gives_the_same_dot_products() {
    if std::env::var_os("SCOPE_WEAVER_NO_VNNI").is_some() {
        return;
    }
    let status = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["a_prompt_times_q4k", "--test-threads", "1"])
        .env("SCOPE_WEAVER_NO_VNNI", "1")
        .status()
        .unwrap();
    assert!(status.success(), "the AVX2 kernel: {status}");
}
