//! A prompt times Q4K and Q6K weights (Qwen2.5-1.5B's shapes): the 8-bit integer kernel
//! (`avx_prompt_q4k`, vendor/PATCHES.md) against the dequantize-then-f32-GEMM path it replaced,
//! side by side in one run (AVX-512 VNNI where the CPU has it). The second path runs in a child process of this bench with
//! `SCOPE_WEAVER_NO_INT8_PROMPT=1` (candle reads the switch once per process).
//!
//! `cargo bench -p thinker --bench quantized_matmul` prints a table (GFLOP/s: 2·m·k·n per second).

use std::process::Command;
use std::time::Instant;

use candle_core::quantized::{GgmlDType, QMatMul, QTensor};
use candle_core::{Device, Module, Tensor};

/// (weights, prompt rows, inputs, outputs, what it is in Qwen2.5-1.5B Q4_K_M).
const SHAPES: [(GgmlDType, usize, usize, usize, &str); 4] = [
    (GgmlDType::Q4K, 512, 1536, 1536, "attention q / output"),
    (GgmlDType::Q4K, 512, 1536, 8960, "FFN gate / up"),
    (
        GgmlDType::Q4K,
        512,
        8960,
        1536,
        "FFN down (half the layers)",
    ),
    (GgmlDType::Q6K, 512, 8960, 1536, "FFN down (the other half)"),
];
const CHILD: &str = "SCOPE_WEAVER_BENCH_CHILD";

/// GFLOP/s of each shape in this process (best of five after a warm-up).
fn measure() -> Vec<f64> {
    let dev = Device::Cpu;
    SHAPES
        .iter()
        .map(|&(dtype, m, k, n, _)| {
            let w = Tensor::randn(0f32, 1.0, (n, k), &dev).unwrap();
            let x = Tensor::randn(0f32, 1.0, (m, k), &dev).unwrap();
            let mm = QMatMul::from_qtensor(QTensor::quantize(&w, dtype).unwrap()).unwrap();
            mm.forward(&x).unwrap();
            let best = (0..5)
                .map(|_| {
                    let t = Instant::now();
                    mm.forward(&x).unwrap();
                    t.elapsed().as_secs_f64()
                })
                .fold(f64::INFINITY, f64::min);
            2.0 * (m * k * n) as f64 / best / 1e9
        })
        .collect()
}

fn main() {
    if std::env::var_os(CHILD).is_some() {
        let figures: Vec<String> = measure().iter().map(f64::to_string).collect();
        println!("{}", figures.join(" "));
        return;
    }
    let int8 = measure();
    let out = Command::new(std::env::current_exe().unwrap())
        .env(CHILD, "1")
        .env("SCOPE_WEAVER_NO_INT8_PROMPT", "1")
        .output()
        .expect("run the f32 path in a child process");
    let f32_path: Vec<f64> = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .map(|v| v.parse().unwrap())
        .collect();
    println!(
        "| weights | shape (m×k·n) | in Qwen2.5-1.5B | f32 GEMM GFLOP/s | int8 GFLOP/s | ratio |"
    );
    println!("|---|---|---|---|---|---|");
    for (i, &(dtype, m, k, n, what)) in SHAPES.iter().enumerate() {
        println!(
            "| {dtype:?} | {m}×{k}·{n} | {what} | {:.1} | {:.1} | {:.2}× |",
            f32_path[i],
            int8[i],
            int8[i] / f32_path[i]
        );
    }
}
