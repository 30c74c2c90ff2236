//! Scope Weaver patch: a prompt's rows times K-quant weights (Q4K, Q6K) in 8-bit integers, tiled.
//!
//! The batched path in `k_quants::matmul` dequantizes the weights and multiplies in f32; on
//! Qwen2.5-1.5B that GEMM was 73 % of reading a prompt and ran at the f32 FMA limit. Here the
//! prompt's rows are quantized to Q8K once (as for generating a token) and each weight row's
//! unpacked values (unsigned: Q4K's nibbles, Q6K's 6 bits before its −32) are multiplied with four
//! prompt rows at a time, 32 products per instruction instead of 8: `vpdpbusd`/`vpdpwssd` where
//! the CPU has AVX-512 VNNI (runtime detection), `vpmaddubsw`/`vpmaddwd` otherwise. Work is cut
//! into tiles of prompt rows × weight rows that stay in cache. What the kernel leaves out — Q4K's
//! minimums (`dmin · min · Σ q8` per 32 values), Q6K's offset (`32 · scale · Σ q8` per 16) — is one
//! small f32 GEMM over the Q8K blocks' partial sums at the end.
//!
//! The integer arithmetic is exactly `vec_dot`'s: only the order of float additions differs
//! (tested in `crates/thinker/tests/quantized_kernels.rs`).

use super::k_quants::{BlockQ4K, BlockQ6K, BlockQ8K, GgmlType, QK_K};
use byteorder::{ByteOrder, LittleEndian};
use rayon::prelude::*;

#[cfg(target_arch = "x86")]
use core::arch::x86::*;
#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;

/// Prompt rows multiplied with the same weight rows at a time (they share the unpacked weights).
const GROUP: usize = 4;
/// Prompt rows and weight rows of one task.
const TILE_ROWS: usize = 64;
const TILE_COLS: usize = 64;
/// Blocks of `k` taken at a time, so four prompt rows' part (9 KB) stays in L1 while every
/// weight row of the tile passes.
const CHUNK_BLOCKS: usize = 8;
/// Q8K keeps the sum of every 16 values (`bsums`).
const Q8K_SUMS: usize = QK_K / 16;

/// A weight block ready for the kernel: per pair of 32-value chunks `j` (values 64j..64j+64) the
/// 16-bit scales laid out as `_mm256_packs_epi32` lays out the two chunks' 4-value sums (per
/// 128-bit lane: chunk A's four sums, then chunk B's; the lower lane holds values 0–15 of each
/// chunk, the upper 16–31), and the block's factor.
#[derive(Clone, Copy)]
#[repr(C, align(32))]
struct Prepared {
    scales: [[i16; 16]; 4],
    d: f32,
}

impl Default for Prepared {
    fn default() -> Self {
        Self {
            scales: [[0; 16]; 4],
            d: 0.0,
        }
    }
}

/// A weight block's 256 values as unsigned bytes in order (eight 32-byte vectors).
type Unpacked = [__m256i; 8];

/// What the kernel reads a weight block's values from.
trait Operands {
    /// The unsigned values of chunks A (values 64j..64j+32) and B (64j+32..64j+64).
    ///
    /// # Safety
    /// AVX2.
    unsafe fn operands(&self, j: usize) -> (__m256i, __m256i);
}

impl Operands for Unpacked {
    #[inline(always)]
    unsafe fn operands(&self, j: usize) -> (__m256i, __m256i) {
        (self[2 * j], self[2 * j + 1])
    }
}

/// A K-quant weight type the kernel multiplies.
trait PromptWeights: GgmlType + Operands + Sync {
    /// Q8K 16-value sums per correction term (Q4K: a minimum per 32 values; Q6K: per 16).
    const SUMS_PER_TERM: usize;
    /// Whether a tile unpacks its blocks once before multiplying (Q6K: its values take three
    /// loads and a dozen operations) rather than on every use (Q4K: one load, three
    /// operations, half the bytes to read).
    const UNPACK_FIRST: bool;
    /// The block ready for the kernel, and per correction term what multiplies `d_x · Σ q8`
    /// (subtracted): `QK_K / 16 / SUMS_PER_TERM` of them.
    fn prepare(&self, corrections: &mut [f32]) -> Prepared;
}

/// Per 128-bit lane: four of `a` then four of `b`; the upper lane `c` and `d`.
fn packed(a: i16, b: i16, c: i16, d: i16) -> [i16; 16] {
    [a, a, a, a, b, b, b, b, c, c, c, c, d, d, d, d]
}

impl PromptWeights for BlockQ4K {
    const SUMS_PER_TERM: usize = 2;
    const UNPACK_FIRST: bool = false;

    fn prepare(&self, corrections: &mut [f32]) -> Prepared {
        const KMASK1: u32 = 0x3f3f3f3f;
        const KMASK2: u32 = 0x0f0f0f0f;
        const KMASK3: u32 = 0x03030303;
        let mut utmp = [0u32; 4];
        LittleEndian::read_u32_into(&self.scales, &mut utmp[0..3]);
        utmp[3] = ((utmp[2] >> 4) & KMASK2) | (((utmp[1] >> 6) & KMASK3) << 4);
        let uaux = utmp[1] & KMASK1;
        utmp[1] = (utmp[2] & KMASK2) | (((utmp[0] >> 6) & KMASK3) << 4);
        utmp[2] = uaux;
        utmp[0] &= KMASK1;
        // Bytes 0..8: the eight 32-value sub-blocks' scales; 8..16: their minimums.
        let mut bytes = [0u8; 16];
        LittleEndian::write_u32_into(&utmp, &mut bytes);
        let dmin = self.dmin.to_f32();
        for (s, c) in corrections.iter_mut().enumerate() {
            *c = dmin * bytes[8 + s] as f32;
        }
        let mut out = Prepared {
            d: self.d.to_f32(),
            ..Default::default()
        };
        for (j, scales) in out.scales.iter_mut().enumerate() {
            // Chunk A is sub-block 2j (low nibbles), B is 2j + 1 (high nibbles), 32 values each.
            let (a, b) = (bytes[2 * j] as i16, bytes[2 * j + 1] as i16);
            *scales = packed(a, b, a, b);
        }
        out
    }
}

impl Operands for BlockQ4K {
    #[inline(always)]
    unsafe fn operands(&self, j: usize) -> (__m256i, __m256i) {
        let bits = _mm256_loadu_si256(self.qs.as_ptr().add(32 * j) as *const __m256i);
        let m4 = _mm256_set1_epi8(0xF);
        (
            _mm256_and_si256(bits, m4),
            _mm256_and_si256(_mm256_srli_epi16(bits, 4), m4),
        )
    }
}

impl PromptWeights for BlockQ6K {
    const SUMS_PER_TERM: usize = 1;
    const UNPACK_FIRST: bool = true;

    fn prepare(&self, corrections: &mut [f32]) -> Prepared {
        let d = self.d.to_f32();
        // The values are stored +32: Σ (q − 32)·q8 = Σ q·q8 − 32 · Σ q8 per 16-value sub-block.
        for (c, &scale) in corrections.iter_mut().zip(&self.scales) {
            *c = 32.0 * d * scale as f32;
        }
        let mut out = Prepared {
            d,
            ..Default::default()
        };
        for (j, scales) in out.scales.iter_mut().enumerate() {
            // Pair j is half j / 2 (128 values, 8 scales); A and B are its chunks 2(j % 2) and
            // 2(j % 2) + 1, each two 16-value sub-blocks.
            let base = 8 * (j / 2) + 4 * (j % 2);
            let sc = |i: usize| self.scales[base + i] as i16;
            *scales = packed(sc(0), sc(2), sc(1), sc(3));
        }
        out
    }
}

impl Operands for BlockQ6K {
    #[inline(always)]
    unsafe fn operands(&self, j: usize) -> (__m256i, __m256i) {
        let (half, second) = (j / 2, j % 2 == 1);
        let ql1 = _mm256_loadu_si256(self.ql.as_ptr().add(64 * half) as *const __m256i);
        let ql2 = _mm256_loadu_si256(self.ql.as_ptr().add(64 * half + 32) as *const __m256i);
        let qh = _mm256_loadu_si256(self.qh.as_ptr().add(32 * half) as *const __m256i);
        let m4 = _mm256_set1_epi8(0xF);
        let m2 = _mm256_set1_epi8(3);
        let high = |shift: i32| {
            let bits = match shift {
                0 => qh,
                2 => _mm256_srli_epi16(qh, 2),
                4 => _mm256_srli_epi16(qh, 4),
                _ => _mm256_srli_epi16(qh, 6),
            };
            _mm256_slli_epi16(_mm256_and_si256(bits, m2), 4)
        };
        if second {
            // Chunks 2 and 3: the high nibbles, bits 4–5 and 6–7 of qh.
            (
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql1, 4), m4), high(4)),
                _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(ql2, 4), m4), high(6)),
            )
        } else {
            (
                _mm256_or_si256(_mm256_and_si256(ql1, m4), high(0)),
                _mm256_or_si256(_mm256_and_si256(ql2, m4), high(2)),
            )
        }
    }
}

/// `Σ_blocks d_w · d_x · Σ scale · (q · q8)` of `W` weight rows with `R` prompt rows over the
/// same blocks (the dot products without the corrections), added to `out[w][r]`.
///
/// # Safety
/// AVX2 (and AVX-512 VNNI with VL if `VNNI`); every slice holds the same number of blocks.
#[inline(always)]
unsafe fn dot_tile<O: Operands, const W: usize, const R: usize, const VNNI: bool>(
    weights: [&[O]; W],
    prepared: [&[Prepared]; W],
    rows: [&[BlockQ8K]; R],
    out: &mut [[f32; GROUP]; W],
) {
    let mut acc = [[_mm256_setzero_ps(); R]; W];
    for b in 0..rows[0].len() {
        let mut sumi = [[_mm256_setzero_si256(); R]; W];
        for j in 0..QK_K / 64 {
            let mut ops = [(_mm256_setzero_si256(), _mm256_setzero_si256()); W];
            for w in 0..W {
                ops[w] = weights[w].get_unchecked(b).operands(j);
            }
            for r in 0..R {
                let q8 = rows[r].get_unchecked(b).qs.as_ptr().add(64 * j);
                let q8a = _mm256_loadu_si256(q8 as *const __m256i);
                let q8b = _mm256_loadu_si256(q8.add(32) as *const __m256i);
                for w in 0..W {
                    let (op_a, op_b) = ops[w];
                    // Read where it is used (a memory operand), not held in a register.
                    let sc = prepared[w].get_unchecked(b).scales.get_unchecked(j);
                    let scales = _mm256_load_si256(sc.as_ptr() as *const __m256i);
                    if VNNI {
                        // Sums of four products (|·| ≤ 4 · 63 · 128 < 2¹⁵), the two chunks'
                        // packed side by side, times their scales and added.
                        let zero = _mm256_setzero_si256();
                        let sa = _mm256_dpbusd_epi32(zero, op_a, q8a);
                        let sb = _mm256_dpbusd_epi32(zero, op_b, q8b);
                        let both = _mm256_packs_epi32(sa, sb);
                        sumi[w][r] = _mm256_dpwssd_epi32(sumi[w][r], both, scales);
                    } else {
                        // Sums of two products, times the scale of their 16 values.
                        let scale_a = _mm256_unpacklo_epi64(scales, scales);
                        let scale_b = _mm256_unpackhi_epi64(scales, scales);
                        let pa = _mm256_madd_epi16(scale_a, _mm256_maddubs_epi16(op_a, q8a));
                        let pb = _mm256_madd_epi16(scale_b, _mm256_maddubs_epi16(op_b, q8b));
                        sumi[w][r] = _mm256_add_epi32(sumi[w][r], _mm256_add_epi32(pa, pb));
                    }
                }
            }
        }
        for w in 0..W {
            let dw = prepared[w].get_unchecked(b).d;
            for r in 0..R {
                let d = _mm256_set1_ps(dw * rows[r].get_unchecked(b).d);
                acc[w][r] = _mm256_fmadd_ps(d, _mm256_cvtepi32_ps(sumi[w][r]), acc[w][r]);
            }
        }
    }
    for w in 0..W {
        for r in 0..R {
            out[w][r] += super::avx::hsum_float_8(acc[w][r]);
        }
    }
}

/// `dot_tile` for the 1 to `GROUP` prompt rows in `rows`.
///
/// # Safety
/// As `dot_tile`.
#[inline(always)]
unsafe fn dot_weight_rows<O: Operands, const W: usize, const VNNI: bool>(
    weights: [&[O]; W],
    prepared: [&[Prepared]; W],
    rows: &[&[BlockQ8K]],
    out: &mut [[f32; GROUP]; W],
) {
    macro_rules! tile {
        ($r:literal) => {
            dot_tile::<O, W, $r, VNNI>(weights, prepared, std::array::from_fn(|i| rows[i]), out)
        };
    }
    match rows.len() {
        4 => tile!(4),
        3 => tile!(3),
        2 => tile!(2),
        1 => tile!(1),
        _ => unreachable!("1 to {GROUP} rows"),
    }
}

/// A raw pointer that tasks writing disjoint cells of one output may share.
#[derive(Clone, Copy)]
struct DstPtr(*mut f32);
unsafe impl Send for DstPtr {}
unsafe impl Sync for DstPtr {}

/// What every tile reads: the prompt in Q8K (m rows of kb blocks), the weights and their
/// prepared blocks (n rows of kb blocks).
struct Inputs<'a, T> {
    m: usize,
    n: usize,
    kb: usize,
    lhs_q: &'a [BlockQ8K],
    rhs_t: &'a [T],
    prepared: &'a [Prepared],
}

/// Scope Weaver patch: `SCOPE_WEAVER_NO_VNNI=1` keeps the AVX2 kernel on a CPU with AVX-512
/// VNNI, to compare.
fn vnni_enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| {
        std::env::var_os("SCOPE_WEAVER_NO_VNNI").is_none()
            && std::is_x86_feature_detected!("avx512vnni")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512bw")
    })
}

/// `tile` with AVX-512 VNNI (`vpdpbusd`, `vpdpwssd`) and its 32 vector registers.
///
/// # Safety
/// As `tile`, on a CPU with these features.
#[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vl,avx512vnni")]
unsafe fn tile_vnni<T: PromptWeights>(inputs: &Inputs<T>, t: usize, dst_ptr: DstPtr) {
    tile::<T, 4, true>(inputs, t, dst_ptr)
}

/// Tile `t` (`TILE_ROWS` prompt rows × `TILE_COLS` weight rows) of `dst`, without the
/// corrections; `WN` weight rows at a time.
///
/// # Safety
/// AVX2 (and what `VNNI` needs); `dst_ptr` holds m×n floats; no other task writes this tile.
#[inline(always)]
unsafe fn tile<T: PromptWeights, const WN: usize, const VNNI: bool>(
    inputs: &Inputs<T>,
    t: usize,
    dst_ptr: DstPtr,
) {
    let Inputs {
        m,
        n,
        kb,
        lhs_q,
        rhs_t,
        prepared,
    } = *inputs;
    let col_tiles = n.div_ceil(TILE_COLS);
    let (r0, c0) = ((t / col_tiles) * TILE_ROWS, (t % col_tiles) * TILE_COLS);
    let (r1, c1) = ((r0 + TILE_ROWS).min(m), (c0 + TILE_COLS).min(n));
    let mut sums = TileSums {
        c0,
        groups: TILE_ROWS / GROUP,
        cells: vec![[0f32; GROUP]; (c1 - c0) * TILE_ROWS / GROUP],
    };
    let mut unpacked: Vec<Unpacked> = Vec::new();
    for k0 in (0..kb).step_by(CHUNK_BLOCKS) {
        let k1 = (k0 + CHUNK_BLOCKS).min(kb);
        let chunk = Chunk {
            rows: r0..r1,
            cols: c0..c1,
            row: |r: usize| &lhs_q[r * kb + k0..r * kb + k1],
            ready: |c: usize| &prepared[c * kb + k0..c * kb + k1],
        };
        if T::UNPACK_FIRST {
            // The tile's weights in this chunk unpacked once, for all its groups of prompt rows.
            let blocks = k1 - k0;
            unpacked.clear();
            for block in (c0..c1).flat_map(|c| &rhs_t[c * kb + k0..c * kb + k1]) {
                let mut values = [_mm256_setzero_si256(); 8];
                for j in 0..QK_K / 64 {
                    (values[2 * j], values[2 * j + 1]) = block.operands(j);
                }
                unpacked.push(values);
            }
            let weight = |c: usize| &unpacked[(c - c0) * blocks..(c - c0 + 1) * blocks];
            chunk_sums::<_, WN, VNNI>(&chunk, weight, &mut sums);
        } else {
            let weight = |c: usize| &rhs_t[c * kb + k0..c * kb + k1];
            chunk_sums::<_, WN, VNNI>(&chunk, weight, &mut sums);
        }
    }
    for c in c0..c1 {
        for r in r0..r1 {
            let cell = sums.cells[sums.at(c, (r - r0) / GROUP)][(r - r0) % GROUP];
            // SAFETY: cell (r, c) of dst (m×n) is in this task's tile, which no other task writes.
            unsafe { *dst_ptr.0.add(r * n + c) = cell };
        }
    }
}

/// A tile's sums, one entry per (weight row, group of prompt rows), over the chunks of k.
struct TileSums {
    c0: usize,
    groups: usize,
    cells: Vec<[f32; GROUP]>,
}

impl TileSums {
    fn at(&self, c: usize, g: usize) -> usize {
        (c - self.c0) * self.groups + g
    }
}

/// One chunk of `k` of a tile: its prompt rows' and weight rows' blocks in that chunk.
struct Chunk<'a, Row: Fn(usize) -> &'a [BlockQ8K], Ready: Fn(usize) -> &'a [Prepared]> {
    rows: std::ops::Range<usize>,
    cols: std::ops::Range<usize>,
    row: Row,
    ready: Ready,
}

/// Adds a chunk's dot products to the tile's sums, `WN` weight rows at a time.
///
/// # Safety
/// As `tile`; `weight(c)` holds as many blocks as `row(r)` and `ready(c)`.
#[inline(always)]
unsafe fn chunk_sums<'a, 'w, O: Operands + 'w, const WN: usize, const VNNI: bool>(
    chunk: &Chunk<'a, impl Fn(usize) -> &'a [BlockQ8K], impl Fn(usize) -> &'a [Prepared]>,
    weight: impl Fn(usize) -> &'w [O],
    sums: &mut TileSums,
) {
    let (r0, r1) = (chunk.rows.start, chunk.rows.end);
    let (c0, c1) = (chunk.cols.start, chunk.cols.end);
    for (g, g0) in (r0..r1).step_by(GROUP).enumerate() {
        let rows: Vec<&[BlockQ8K]> = (g0..(g0 + GROUP).min(r1)).map(&chunk.row).collect();
        let mut c = c0;
        while c + WN <= c1 {
            let mut part: [[f32; GROUP]; WN] =
                std::array::from_fn(|i| sums.cells[sums.at(c + i, g)]);
            let w = std::array::from_fn(|i| weight(c + i));
            let p = std::array::from_fn(|i| (chunk.ready)(c + i));
            dot_weight_rows::<O, WN, VNNI>(w, p, &rows, &mut part);
            for (i, s) in part.into_iter().enumerate() {
                let at = sums.at(c + i, g);
                sums.cells[at] = s;
            }
            c += WN;
        }
        while c < c1 {
            let at = sums.at(c, g);
            let mut one = [sums.cells[at]];
            dot_weight_rows::<O, 1, VNNI>([weight(c)], [(chunk.ready)(c)], &rows, &mut one);
            sums.cells[at] = one[0];
            c += 1;
        }
    }
}

/// `dst (m×n) = lhs (m×k) · rhs_tᵀ` with `rhs_t` n rows of k / 256 blocks of `T`.
fn matmul<T: PromptWeights>(
    (m, k, n): (usize, usize, usize),
    lhs: &[f32],
    rhs_t: &[T],
    dst: &mut [f32],
) {
    let kb = k / QK_K;
    let terms_per_block = Q8K_SUMS / T::SUMS_PER_TERM;
    let terms = kb * terms_per_block;
    // The prompt in Q8K, and per row and correction term `d_x · Σ q8`.
    let mut lhs_q = vec![BlockQ8K::zeros(); m * kb];
    let mut lhs_sums = vec![0f32; m * terms];
    lhs_q
        .par_chunks_mut(kb)
        .zip(lhs_sums.par_chunks_mut(terms))
        .zip(lhs.par_chunks(k))
        .for_each(|((q, sums), x)| {
            BlockQ8K::from_float(x, q);
            for (block, sums) in q.iter().zip(sums.chunks_mut(terms_per_block)) {
                for (sum, part) in sums.iter_mut().zip(block.bsums.chunks(T::SUMS_PER_TERM)) {
                    *sum = block.d * part.iter().map(|&s| s as i32).sum::<i32>() as f32;
                }
            }
        });
    // Each weight block prepared, and per weight row and term what multiplies those sums.
    let mut prepared = vec![Prepared::default(); n * kb];
    let mut corrections = vec![0f32; n * terms];
    prepared
        .par_chunks_mut(kb)
        .zip(corrections.par_chunks_mut(terms))
        .zip(rhs_t.par_chunks(kb))
        .for_each(|((out, corrections), row)| {
            for ((out, block), c) in out
                .iter_mut()
                .zip(row)
                .zip(corrections.chunks_mut(terms_per_block))
            {
                *out = block.prepare(c);
            }
        });

    let inputs = Inputs {
        m,
        n,
        kb,
        lhs_q: &lhs_q,
        rhs_t,
        prepared: &prepared,
    };
    let dst_ptr = DstPtr(dst.as_mut_ptr());
    let tiles = m.div_ceil(TILE_ROWS) * n.div_ceil(TILE_COLS);
    let vnni = vnni_enabled();
    (0..tiles).into_par_iter().for_each(|t| {
        // SAFETY: AVX2 (this module is compiled only then), AVX-512 VNNI when detected; the
        // inputs are sized as `tile` expects and tiles write disjoint cells of `dst`.
        unsafe {
            if vnni {
                tile_vnni(&inputs, t, dst_ptr)
            } else {
                tile::<T, 2, false>(&inputs, t, dst_ptr)
            }
        }
    });

    // dst -= lhs_sums (m × terms) · correctionsᵀ, in f32.
    // SAFETY: the sizes are those of the buffers: dst m×n (row stride n), lhs_sums m×terms,
    // corrections n×terms read as its transpose.
    unsafe {
        gemm::gemm(
            m,
            n,
            terms,
            dst.as_mut_ptr(),
            1,
            n as isize,
            true,
            lhs_sums.as_ptr(),
            1,
            terms as isize,
            corrections.as_ptr(),
            terms as isize,
            1,
            1f32,
            -1f32,
            false,
            false,
            false,
            gemm::Parallelism::Rayon(rayon::current_num_threads()),
        )
    }
}

/// `matmul` for the weight types this kernel is faster for (`k` a multiple of 256): Q4K, and Q6K
/// with VNNI; `false` for others (the caller multiplies them another way).
pub(crate) fn try_matmul<T: GgmlType>(
    mkn: (usize, usize, usize),
    lhs: &[f32],
    rhs_t: &[T],
    dst: &mut [f32],
) -> bool {
    if !mkn.1.is_multiple_of(QK_K) {
        return false;
    }
    // SAFETY: each cast is to the type `T` is (its dtype says so); same length, same layout.
    unsafe {
        match T::DTYPE {
            super::GgmlDType::Q4K => {
                let rhs =
                    std::slice::from_raw_parts(rhs_t.as_ptr() as *const BlockQ4K, rhs_t.len());
                matmul(mkn, lhs, rhs, dst);
                true
            }
            // Without VNNI, Q6K's unpacking costs what the integers save (0.95× the f32 path
            // in `cargo bench -p thinker --bench quantized_matmul`).
            super::GgmlDType::Q6K if vnni_enabled() => {
                let rhs =
                    std::slice::from_raw_parts(rhs_t.as_ptr() as *const BlockQ6K, rhs_t.len());
                matmul(mkn, lhs, rhs, dst);
                true
            }
            _ => false,
        }
    }
}
