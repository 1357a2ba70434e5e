//! The encoder's work besides its large matrix products, as fused passes over `f32` slices:
//! attention (scores, mask, softmax and the weighted sum of values, head by head, without
//! materialising the (b, heads, l, l) score tensors), bias + GELU, and bias + residual + layer
//! norm.
//!
//! Safe Rust written so that it vectorises: every kernel runs inside [`pulp::Arch::dispatch`],
//! which compiles it a second time with the CPU's wider instructions (AVX2 and FMA on x86-64)
//! and picks that version at run time; the fixed-size inner loops then become vector code.
//! `exp` and `erf` are polynomial approximations (relative error ≈ 1e-7, tested against
//! libm) instead of one libm call per element. Work is spread over rayon's pool, the one
//! candle's matrix products use.

use pulp::{Simd, WithSimd};
use rayon::prelude::*;

/// Rows per parallel task in the row-wise kernels (enough work to amortise a task).
const ROWS_PER_TASK: usize = 16;

/// Runs `op` compiled for the widest instruction set this CPU has that is worth it: AVX2 +
/// FMA on x86-64 (pulp's `Arch` only picks it with a crate feature that would rebuild candle's
/// matmul crates, so it is detected here), the platform default elsewhere.
#[inline(always)]
fn vectorized<R>(op: impl WithSimd<Output = R>) -> R {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = pulp::x86::V3::try_new() {
        return Simd::vectorize(simd, op);
    }
    pulp::Arch::new().dispatch(op)
}

/// `e^x`, relative error ≤ 2e-7 for x in [-87, 88]; clamped outside (0 below, e^88 above).
#[inline(always)]
pub(super) fn exp(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_359_4;
    const LN2_LO: f32 = -2.121_944_4e-4;
    // 1.5 · 2^23: adding it rounds to an integer, which then sits in the low mantissa bits.
    const SHIFTER: f32 = 12_582_912.0;
    let x = x.clamp(-87.0, 88.0);
    let t = x.mul_add(LOG2E, SHIFTER);
    let n = t - SHIFTER;
    let r = n.mul_add(-LN2_HI, x);
    let r = n.mul_add(-LN2_LO, r);
    // Cephes' expf polynomial on [-ln2/2, ln2/2].
    let p = 1.987_569_1e-4f32;
    let p = p.mul_add(r, 1.398_199_9e-3);
    let p = p.mul_add(r, 8.333_452e-3);
    let p = p.mul_add(r, 4.166_579_6e-2);
    let p = p.mul_add(r, 1.666_666_5e-1);
    let p = p.mul_add(r, 0.5);
    let p = p.mul_add(r * r, r) + 1.0;
    // 2^n from the integer in t's low bits: (n + 127) << 23 is 2^n's bit pattern.
    let scale = f32::from_bits(t.to_bits().wrapping_add(127) << 23);
    p * scale
}

/// `erf(x)`, absolute error ≈ 1e-7: a rational approximation on [-4, 4] (erf(±4) rounds to
/// ±1 in f32).
#[inline(always)]
pub(super) fn erf(x: f32) -> f32 {
    let x = x.clamp(-4.0, 4.0);
    let x2 = x * x;
    let p = (-2.726_142_3e-10f32).mul_add(x2, 2.770_681_4e-8);
    let p = p.mul_add(x2, -2.101_024e-6);
    let p = p.mul_add(x2, -5.692_506_4e-5);
    let p = p.mul_add(x2, -7.349_906_3e-4);
    let p = p.mul_add(x2, -2.954_600_1e-3);
    let p = p.mul_add(x2, -1.609_603_3e-2);
    let q = (-1.456_607_2e-5f32).mul_add(x2, -2.133_740_6e-4);
    let q = q.mul_add(x2, -1.682_827e-3);
    let q = q.mul_add(x2, -7.373_329e-3);
    let q = q.mul_add(x2, -1.426_474e-2);
    x * p / q
}

/// The exact (erf-based) GELU of `x`.
#[inline(always)]
pub(super) fn gelu_erf(x: f32) -> f32 {
    0.5 * x * (1.0 + erf(x * std::f32::consts::FRAC_1_SQRT_2))
}

/// Which activation [`bias_activation`] applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Act {
    GeluErf,
    GeluTanh,
    Relu,
}

#[inline(always)]
fn gelu_tanh(x: f32) -> f32 {
    // tanh(u) = 1 - 2 / (e^{2u} + 1)
    let u = 0.797_884_6 * x.mul_add(0.044_715 * x * x, x);
    let t = 1.0 - 2.0 / (exp(2.0 * u) + 1.0);
    0.5 * x * (1.0 + t)
}

/// `y[r] = act(y[r] + bias)` for each row `r` of `y` (rows of `bias.len()`).
pub(super) fn bias_activation(y: &mut [f32], bias: &[f32], act: Act) {
    struct Op<'a> {
        rows: &'a mut [f32],
        bias: &'a [f32],
        act: Act,
    }
    impl WithSimd for Op<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, _: S) {
            for row in self.rows.chunks_exact_mut(self.bias.len()) {
                match self.act {
                    Act::GeluErf => {
                        for (v, &b) in row.iter_mut().zip(self.bias) {
                            *v = gelu_erf(*v + b);
                        }
                    }
                    Act::GeluTanh => {
                        for (v, &b) in row.iter_mut().zip(self.bias) {
                            *v = gelu_tanh(*v + b);
                        }
                    }
                    Act::Relu => {
                        for (v, &b) in row.iter_mut().zip(self.bias) {
                            *v = (*v + b).max(0.0);
                        }
                    }
                }
            }
        }
    }
    let width = bias.len();
    y.par_chunks_mut(width * ROWS_PER_TASK).for_each(|rows| vectorized(Op { rows, bias, act }));
}

/// `y[r] = layer_norm(y[r] + bias + residual[r]) · gamma + beta`, row by row.
pub(super) fn bias_residual_layer_norm(
    y: &mut [f32],
    residual: &[f32],
    bias: &[f32],
    gamma: &[f32],
    beta: &[f32],
    eps: f32,
) {
    struct Op<'a> {
        rows: &'a mut [f32],
        residual: &'a [f32],
        bias: &'a [f32],
        gamma: &'a [f32],
        beta: &'a [f32],
        eps: f32,
    }
    impl WithSimd for Op<'_> {
        type Output = ();
        #[inline(always)]
        fn with_simd<S: Simd>(self, _: S) {
            let width = self.bias.len();
            for (row, res) in
                self.rows.chunks_exact_mut(width).zip(self.residual.chunks_exact(width))
            {
                for ((v, &r), &b) in row.iter_mut().zip(res).zip(self.bias) {
                    *v += r + b;
                }
                let mean = sum(row) / width as f32;
                for v in row.iter_mut() {
                    *v -= mean;
                }
                let var = sum_squares(row) / width as f32;
                let inv = 1.0 / (var + self.eps).sqrt();
                for ((v, &g), &b) in row.iter_mut().zip(self.gamma).zip(self.beta) {
                    *v = (*v * inv).mul_add(g, b);
                }
            }
        }
    }
    let width = bias.len();
    y.par_chunks_mut(width * ROWS_PER_TASK)
        .zip(residual.par_chunks(width * ROWS_PER_TASK))
        .for_each(|(rows, residual)| {
            vectorized(Op { rows, residual, bias, gamma, beta, eps });
        });
}

/// Sum with eight independent partial sums (so it vectorises).
#[inline(always)]
fn sum(xs: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = xs.chunks_exact(8);
    let tail: f32 = chunks.remainder().iter().sum();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[inline(always)]
fn sum_squares(xs: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let chunks = xs.chunks_exact(8);
    let tail: f32 = chunks.remainder().iter().map(|x| x * x).sum();
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = x.mul_add(x, *a);
        }
    }
    acc.iter().sum::<f32>() + tail
}

#[inline(always)]
fn max(xs: &[f32]) -> f32 {
    let mut acc = [f32::NEG_INFINITY; 8];
    let chunks = xs.chunks_exact(8);
    let tail = chunks.remainder().iter().fold(f32::NEG_INFINITY, |m, &x| m.max(x));
    for c in chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a = a.max(x);
        }
    }
    acc.iter().fold(tail, |m, &x| m.max(x))
}

/// Query rows per block in [`attention`].
const QR: usize = 4;

/// The shape of one [`attention`] call.
#[derive(Debug, Clone, Copy)]
pub(super) struct AttentionShape {
    /// Sequences in the batch.
    pub batch: usize,
    /// Padded length of each sequence.
    pub len: usize,
    pub heads: usize,
    pub head_dim: usize,
}

/// Multi-head self-attention from fused projections.
///
/// `qkv`: (batch·len, 3·hidden) rows `[q | k | v]` without their bias, the query part already
/// scaled by 1/√head_dim (and `bias` likewise); `valid[s]`: the number of real tokens of
/// sequence `s` (the rest is padding: no query attends to it). Returns the context vectors,
/// (batch·len, hidden), heads side by side as in BERT.
pub(super) fn attention(
    qkv: &[f32],
    bias: &[f32],
    valid: &[usize],
    shape: AttentionShape,
) -> Vec<f32> {
    let AttentionShape { batch, len, heads, head_dim } = shape;
    let hidden = heads * head_dim;
    assert_eq!(qkv.len(), batch * len * 3 * hidden, "qkv shape");
    assert_eq!(bias.len(), 3 * hidden, "qkv bias shape");
    assert_eq!(valid.len(), batch, "one length per sequence");
    let mut out = vec![0f32; batch * len * hidden];
    if out.is_empty() {
        return out;
    }
    // Sequences in parallel, and the heads of each (so one sequence still uses every thread).
    out.par_chunks_mut(len * hidden).zip(valid).enumerate().for_each(|(s, (out, &valid))| {
        let rows = &qkv[s * len * 3 * hidden..(s + 1) * len * 3 * hidden];
        let valid = valid.clamp(1, len);
        let contexts: Vec<Vec<f32>> = (0..heads)
            .into_par_iter()
            .map(|head| vectorized(Head { rows, bias, valid, len, hidden, head, head_dim }))
            .collect();
        // Heads side by side: row i of head h goes to columns h·head_dim.. of row i.
        for (h, ctx) in contexts.iter().enumerate() {
            for (row, c) in out.chunks_exact_mut(hidden).zip(ctx.chunks_exact(head_dim)) {
                row[h * head_dim..(h + 1) * head_dim].copy_from_slice(c);
            }
        }
    });
    out
}

/// One head of one sequence: returns its (len, head_dim) context vectors (0 for padding).
struct Head<'a> {
    rows: &'a [f32],
    bias: &'a [f32],
    valid: usize,
    len: usize,
    hidden: usize,
    head: usize,
    head_dim: usize,
}

impl WithSimd for Head<'_> {
    type Output = Vec<f32>;

    #[inline(always)]
    fn with_simd<S: Simd>(self, simd: S) -> Vec<f32> {
        let Head { rows, bias, valid: n, len, hidden, head, head_dim: hd } = self;
        // Two vectors of keys (or value dimensions) per block: 16 floats with AVX2.
        let kb = 2 * S::F32_LANES;
        let stride = 3 * hidden;
        let part = |i: usize, which: usize| {
            let at = i * stride + which * hidden + head * hd;
            let b = &bias[which * hidden + head * hd..][..hd];
            rows[at..at + hd].iter().zip(b).map(|(x, b)| x + b)
        };
        // Keys transposed, (hd, np), zero beyond n; values (n, hdp), zero beyond hd; queries
        // (qp, hd), zero beyond n. Only real tokens' queries are computed: a padding position's
        // context stays 0 (nothing reads it).
        let np = n.div_ceil(kb) * kb;
        let hdp = hd.div_ceil(kb) * kb;
        let qp = n.div_ceil(QR) * QR;
        let mut kt = vec![0f32; hd * np];
        let mut v = vec![0f32; n * hdp];
        let mut q = vec![0f32; qp * hd];
        for j in 0..n {
            for (d, x) in part(j, 1).enumerate() {
                kt[d * np + j] = x;
            }
            for (dst, x) in v[j * hdp..].iter_mut().zip(part(j, 2)) {
                *dst = x;
            }
            for (dst, x) in q[j * hd..].iter_mut().zip(part(j, 0)) {
                *dst = x;
            }
        }
        let zero = simd.splat_f32s(0.0);
        let mut ctx = vec![0f32; len * hd];
        let mut scores = vec![0f32; QR * np];
        for (block, qb) in q.chunks_exact(QR * hd).enumerate() {
            // Scores of QR queries against kb keys at a time, in 2·QR vector accumulators.
            for j0 in (0..np).step_by(kb) {
                let mut acc = [[zero; 2]; QR];
                for d in 0..hd {
                    let k = S::as_simd_f32s(&kt[d * np + j0..d * np + j0 + kb]).0;
                    let (k0, k1) = (k[0], k[1]);
                    for (r, a) in acc.iter_mut().enumerate() {
                        let qv = simd.splat_f32s(qb[r * hd + d]);
                        a[0] = simd.mul_add_e_f32s(qv, k0, a[0]);
                        a[1] = simd.mul_add_e_f32s(qv, k1, a[1]);
                    }
                }
                for (r, a) in acc.iter().enumerate() {
                    let out = S::as_mut_simd_f32s(&mut scores[r * np + j0..r * np + j0 + kb]).0;
                    out[0] = a[0];
                    out[1] = a[1];
                }
            }
            // Softmax over the n real keys (padding keys get exactly 0 weight: skipped).
            let mut inv = [0f32; QR];
            for (r, inv) in inv.iter_mut().enumerate() {
                let row = &mut scores[r * np..r * np + n];
                let m = max(row);
                for x in row.iter_mut() {
                    *x = exp(*x - m);
                }
                *inv = 1.0 / sum(row);
            }
            // Weighted sum of values, kb dimensions at a time; normalised at the end.
            for d0 in (0..hdp).step_by(kb) {
                let mut acc = [[zero; 2]; QR];
                for j in 0..n {
                    let vj = S::as_simd_f32s(&v[j * hdp + d0..j * hdp + d0 + kb]).0;
                    let (v0, v1) = (vj[0], vj[1]);
                    for (r, a) in acc.iter_mut().enumerate() {
                        let p = simd.splat_f32s(scores[r * np + j]);
                        a[0] = simd.mul_add_e_f32s(p, v0, a[0]);
                        a[1] = simd.mul_add_e_f32s(p, v1, a[1]);
                    }
                }
                for (r, a) in acc.iter().enumerate() {
                    let i = block * QR + r;
                    if i >= n {
                        break;
                    }
                    let mut lanes = [0f32; 64];
                    let lanes = &mut lanes[..kb];
                    let out = S::as_mut_simd_f32s(lanes).0;
                    out[0] = a[0];
                    out[1] = a[1];
                    let width = kb.min(hd - d0);
                    for (dst, &x) in ctx[i * hd + d0..][..width].iter_mut().zip(lanes.iter()) {
                        *dst = x * inv[r];
                    }
                }
            }
        }
        ctx
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_libm() {
        let mut worst = 0f32;
        let mut x = -87.0f32;
        while x < 88.0 {
            let (got, want) = (exp(x), x.exp());
            worst = worst.max(((got - want) / want).abs());
            x += 0.001_3;
        }
        assert!(worst < 5e-7, "worst relative error {worst}");
        assert_eq!(exp(-1000.0), exp(-87.0));
        assert!(exp(-1000.0) < 1e-37);
    }

    #[test]
    fn erf_matches_libm() {
        let mut worst = 0f32;
        let mut x = -6.0f32;
        while x < 6.0 {
            let want = candle_core::cpu::erf::erf_f32(x);
            worst = worst.max((erf(x) - want).abs());
            x += 0.000_7;
        }
        assert!(worst < 5e-7, "worst absolute error {worst}");
    }

    #[test]
    fn gelu_matches_the_exact_formula() {
        let mut x = -10.0f32;
        while x < 10.0 {
            let want = 0.5 * x * (1.0 + candle_core::cpu::erf::erf_f32(x / 2f32.sqrt()));
            let got = gelu_erf(x);
            assert!((got - want).abs() <= 1e-6 * (1.0 + want.abs()), "{x}: {got} vs {want}");
            x += 0.003_1;
        }
    }

    /// Attention written the plain way: scores, masked softmax, weighted sum, per head.
    fn naive_attention(qkv: &[f32], bias: &[f32], valid: &[usize], s: AttentionShape) -> Vec<f32> {
        let hidden = s.heads * s.head_dim;
        let mut out = vec![0f32; s.batch * s.len * hidden];
        let at = |b: usize, i: usize, which: usize, h: usize, d: usize| {
            let col = which * hidden + h * s.head_dim + d;
            qkv[(b * s.len + i) * 3 * hidden + col] + bias[col]
        };
        for b in 0..s.batch {
            for h in 0..s.heads {
                for i in 0..valid[b] {
                    let scores: Vec<f64> = (0..valid[b])
                        .map(|j| {
                            (0..s.head_dim)
                                .map(|d| {
                                    f64::from(at(b, i, 0, h, d)) * f64::from(at(b, j, 1, h, d))
                                })
                                .sum()
                        })
                        .collect();
                    let m = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let e: Vec<f64> = scores.iter().map(|x| (x - m).exp()).collect();
                    let total: f64 = e.iter().sum();
                    for d in 0..s.head_dim {
                        let c: f64 = e
                            .iter()
                            .enumerate()
                            .map(|(j, p)| p * f64::from(at(b, j, 2, h, d)))
                            .sum();
                        out[(b * s.len + i) * hidden + h * s.head_dim + d] = (c / total) as f32;
                    }
                }
            }
        }
        out
    }

    #[test]
    fn attention_matches_the_plain_computation_with_padding() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0
        };
        // MiniLM's head size, an odd one, and one smaller than a vector.
        for (heads, head_dim) in [(3, 32), (2, 12), (2, 4)] {
            let s = AttentionShape { batch: 3, len: 37, heads, head_dim };
            let hidden = heads * head_dim;
            let qkv: Vec<f32> = (0..s.batch * s.len * 3 * hidden).map(|_| next()).collect();
            let bias: Vec<f32> = (0..3 * hidden).map(|_| next()).collect();
            let valid = [37, 1, 20];
            let got = attention(&qkv, &bias, &valid, s);
            let want = naive_attention(&qkv, &bias, &valid, s);
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!((g - w).abs() < 1e-5, "{heads}×{head_dim}, element {i}: {g} vs {w}");
            }
        }
    }

    #[test]
    fn layer_norm_and_activation_match_the_formulas() {
        let width = 40;
        let y0: Vec<f32> = (0..3 * width).map(|i| ((i * 37) % 23) as f32 * 0.3 - 3.0).collect();
        let residual: Vec<f32> = (0..3 * width).map(|i| ((i * 11) % 7) as f32 * 0.1).collect();
        let bias: Vec<f32> = (0..width).map(|i| i as f32 * 0.01).collect();
        let gamma: Vec<f32> = (0..width).map(|i| 1.0 + i as f32 * 0.02).collect();
        let beta: Vec<f32> = (0..width).map(|i| i as f32 * -0.03).collect();
        let mut y = y0.clone();
        bias_residual_layer_norm(&mut y, &residual, &bias, &gamma, &beta, 1e-12);
        for r in 0..3 {
            let x: Vec<f64> = (0..width)
                .map(|c| f64::from(y0[r * width + c] + residual[r * width + c] + bias[c]))
                .collect();
            let mean = x.iter().sum::<f64>() / width as f64;
            let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / width as f64;
            for c in 0..width {
                let want =
                    (x[c] - mean) / (var + 1e-12).sqrt() * f64::from(gamma[c]) + f64::from(beta[c]);
                let got = f64::from(y[r * width + c]);
                assert!((got - want).abs() < 1e-5, "row {r} col {c}: {got} vs {want}");
            }
        }
        let mut z = y0.clone();
        bias_activation(&mut z, &bias, Act::GeluErf);
        for (i, (&got, &x)) in z.iter().zip(&y0).enumerate() {
            let x = x + bias[i % width];
            let want = 0.5 * x * (1.0 + candle_core::cpu::erf::erf_f32(x / 2f32.sqrt()));
            assert!((got - want).abs() < 1e-6, "{x}: {got} vs {want}");
        }
        let mut z = y0.clone();
        bias_activation(&mut z, &bias, Act::GeluTanh);
        for (i, (&got, &x)) in z.iter().zip(&y0).enumerate() {
            let x = x + bias[i % width];
            let want = 0.5
                * x
                * (1.0 + ((2.0 / std::f32::consts::PI).sqrt() * (x + 0.044715 * x * x * x)).tanh());
            assert!((got - want).abs() < 1e-5, "{x}: {got} vs {want}");
        }
    }
}
