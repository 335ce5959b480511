// Reference kernels of the K-quants (super-blocks of 256 elements), dotted with Q8_K
// activations. Every weight block is first decoded to 256 small integers plus integer
// scales and mins per sub-block, so that dequantize and vec_dot share one reading of
// each layout: value = (d * scale[s]) * q - (dmin * min[s]) for sub-block s.
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/reference/quant_search.h"
#include "kernels/reference/reference_kernels.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>

namespace hearth::kernels {
namespace {

constexpr float kAllZero = 1e-15f;

struct DecodedBlock {
    int8_t q[QK_K];      // quants with their offset removed (signed for Q3_K and Q6_K)
    int16_t scale[16];   // integer scale per sub-block
    int16_t min[16];     // integer min per sub-block (0 for the symmetric types)
    int sub_blocks = 16; // 16 sub-blocks of 16, or 8 of 32
    float d = 0, dmin = 0;
};

int clamp_int(int v, int lo, int hi) {
    return std::min(hi, std::max(lo, v));
}

// Q2_K and Q3_K keep 2-bit quants the same way: in each half of 128 elements, element
// 32k + l (k < 4, l < 32) sits at bits 2k..2k+1 of qs[half * 32 + l].
int two_bit(const uint8_t* qs, int e) {
    const int half = e / 128, k = (e % 128) / 32, l = e % 32;
    return (qs[half * 32 + l] >> (2 * k)) & 3;
}

void pack_two_bit(const uint8_t* L, uint8_t* qs) {
    for (int half = 0; half < 2; ++half)
        for (int l = 0; l < 32; ++l) {
            const uint8_t* src = L + half * 128 + l;
            qs[half * 32 + l] =
                static_cast<uint8_t>(src[0] | (src[32] << 2) | (src[64] << 4) | (src[96] << 6));
        }
}

// Q4_K and Q5_K keep 4-bit quants in four groups of 64: element 64g + l is the low nibble of
// qs[32g + l] for l < 32 and the high nibble of qs[32g + l - 32] otherwise.
int four_bit(const uint8_t* qs, int e) {
    const int group = e / 64, r = e % 64;
    return r < 32 ? qs[group * 32 + r] & 0x0f : qs[group * 32 + r - 32] >> 4;
}

void pack_four_bit(const uint8_t* L, uint8_t* qs) {
    for (int group = 0; group < 4; ++group)
        for (int l = 0; l < 32; ++l)
            qs[group * 32 + l] =
                static_cast<uint8_t>((L[group * 64 + l] & 0x0f) | ((L[group * 64 + l + 32] & 0x0f) << 4));
}

// The 12 scale bytes of Q4_K/Q5_K: 8 six-bit scales and 8 six-bit mins. Sub-blocks 0-3 use the
// low 6 bits of bytes 0-3 (scales) and 4-7 (mins); sub-blocks 4-7 keep their low 4 bits in the
// nibbles of bytes 8-11 and their top 2 bits in the top bits of bytes 0-3 (scales) and 4-7 (mins).
void pack_scale_min_k4(const uint8_t* scales, const uint8_t* mins, uint8_t* packed) {
    for (int j = 0; j < 4; ++j) {
        packed[j] = static_cast<uint8_t>((scales[j] & 63) | ((scales[j + 4] >> 4) << 6));
        packed[j + 4] = static_cast<uint8_t>((mins[j] & 63) | ((mins[j + 4] >> 4) << 6));
        packed[j + 8] = static_cast<uint8_t>((scales[j + 4] & 0x0f) | ((mins[j + 4] & 0x0f) << 4));
    }
}

// Q3_K's 16 six-bit scales (stored +32): low 4 bits in the nibbles of bytes 0-7 (sub-block j
// in the low nibble of byte j for j < 8, the high nibble of byte j-8 otherwise), top 2 bits at
// bits 2*(j/4) of byte 8 + j%4.
void pack_scales_q3_K(const uint8_t* biased, uint8_t* packed) {
    std::memset(packed, 0, 12);
    for (int j = 0; j < 16; ++j) {
        const uint8_t low = biased[j] & 0x0f;
        packed[j % 8] |= static_cast<uint8_t>(j < 8 ? low : low << 4);
        packed[8 + j % 4] |= static_cast<uint8_t>((biased[j] >> 4) << (2 * (j / 4)));
    }
}

// ---- Decoders

void decode(const BlockQ2_K& b, DecodedBlock& out) {
    out.sub_blocks = 16;
    out.d = fp16_to_fp32(b.d);
    out.dmin = fp16_to_fp32(b.dmin);
    for (int s = 0; s < 16; ++s) {
        out.scale[s] = b.scales[s] & 0x0f;
        out.min[s] = b.scales[s] >> 4;
    }
    for (int e = 0; e < QK_K; ++e)
        out.q[e] = static_cast<int8_t>(two_bit(b.qs, e));
}

void decode(const BlockQ3_K& b, DecodedBlock& out) {
    out.sub_blocks = 16;
    out.d = fp16_to_fp32(b.d);
    out.dmin = 0;
    int8_t scales[16];
    unpack_scales_q3_K(b.scales, scales);
    for (int s = 0; s < 16; ++s) {
        out.scale[s] = scales[s];
        out.min[s] = 0;
    }
    // The high bit of element e is bit e/32 of hmask[e % 32]; a clear bit means "minus 4".
    for (int e = 0; e < QK_K; ++e) {
        const bool high = (b.hmask[e % 32] >> (e / 32)) & 1;
        out.q[e] = static_cast<int8_t>(two_bit(b.qs, e) + (high ? 0 : -4));
    }
}

void decode_scale_min_k4(const uint8_t* packed, DecodedBlock& out) {
    out.sub_blocks = 8;
    for (int s = 0; s < 8; ++s) {
        uint8_t scale, min;
        unpack_scale_min_k4(s, packed, &scale, &min);
        out.scale[s] = scale;
        out.min[s] = min;
    }
}

void decode(const BlockQ4_K& b, DecodedBlock& out) {
    out.d = fp16_to_fp32(b.d);
    out.dmin = fp16_to_fp32(b.dmin);
    decode_scale_min_k4(b.scales, out);
    for (int e = 0; e < QK_K; ++e)
        out.q[e] = static_cast<int8_t>(four_bit(b.qs, e));
}

void decode(const BlockQ5_K& b, DecodedBlock& out) {
    out.d = fp16_to_fp32(b.d);
    out.dmin = fp16_to_fp32(b.dmin);
    decode_scale_min_k4(b.scales, out);
    // The fifth bit of element e is bit e/32 of qh[e % 32].
    for (int e = 0; e < QK_K; ++e) {
        const int high = (b.qh[e % 32] >> (e / 32)) & 1;
        out.q[e] = static_cast<int8_t>(four_bit(b.qs, e) | (high << 4));
    }
}

void decode(const BlockQ6_K& b, DecodedBlock& out) {
    out.sub_blocks = 16;
    out.d = fp16_to_fp32(b.d);
    out.dmin = 0;
    for (int s = 0; s < 16; ++s) {
        out.scale[s] = b.scales[s];
        out.min[s] = 0;
    }
    // In each half of 128, element 32k + l: low 4 bits in ql[64 half + l + 32 (k & 1)], low nibble
    // for k < 2 and high nibble otherwise; top 2 bits at bits 2k of qh[32 half + l].
    for (int e = 0; e < QK_K; ++e) {
        const int half = e / 128, k = (e % 128) / 32, l = e % 32;
        const uint8_t low_byte = b.ql[half * 64 + l + 32 * (k & 1)];
        const int low = k < 2 ? low_byte & 0x0f : low_byte >> 4;
        const int high = (b.qh[half * 32 + l] >> (2 * k)) & 3;
        out.q[e] = static_cast<int8_t>((low | (high << 4)) - 32);
    }
}

template <class Block> void dequantize_k(const void* src, float* dst, int64_t n) {
    assert(n % QK_K == 0);
    const auto* blocks = static_cast<const Block*>(src);
    DecodedBlock decoded;
    for (int64_t b = 0; b < n / QK_K; ++b, dst += QK_K) {
        decode(blocks[b], decoded);
        const int sub_size = QK_K / decoded.sub_blocks;
        for (int s = 0; s < decoded.sub_blocks; ++s) {
            const float scale = decoded.d * decoded.scale[s];
            const float offset = decoded.dmin * decoded.min[s];
            for (int i = s * sub_size; i < (s + 1) * sub_size; ++i)
                dst[i] = scale * decoded.q[i] - offset;
        }
    }
}

// Integer dot per sub-block, scaled by the weight's integer scale; the mins meet the sums of the
// activation quants, which Q8_K keeps per 16 elements (bsums).
template <class Block> float vec_dot_k(int64_t n, const void* weights, const void* activations) {
    assert(n % QK_K == 0);
    const auto* w = static_cast<const Block*>(weights);
    const auto* a = static_cast<const BlockQ8_K*>(activations);
    DecodedBlock decoded;
    float sum = 0;
    for (int64_t b = 0; b < n / QK_K; ++b) {
        decode(w[b], decoded);
        const int sub_size = QK_K / decoded.sub_blocks;
        const int bsums_per_sub = sub_size / 16;
        int scaled_dot = 0, scaled_min = 0;
        for (int s = 0; s < decoded.sub_blocks; ++s) {
            int dot = 0;
            for (int i = s * sub_size; i < (s + 1) * sub_size; ++i)
                dot += decoded.q[i] * a[b].qs[i];
            int activation_sum = 0;
            for (int k = 0; k < bsums_per_sub; ++k)
                activation_sum += a[b].bsums[s * bsums_per_sub + k];
            scaled_dot += decoded.scale[s] * dot;
            scaled_min += decoded.min[s] * activation_sum;
        }
        sum += a[b].d *
               (decoded.d * static_cast<float>(scaled_dot) - decoded.dmin * static_cast<float>(scaled_min));
    }
    return sum;
}

// Largest of a set of positive scales, and largest-magnitude of a set of signed ones.
float max_of(const float* v, int n) {
    return *std::max_element(v, v + n);
}
float signed_extreme(const float* v, int n) {
    float extreme = 0;
    for (int i = 0; i < n; ++i)
        if (std::fabs(v[i]) > std::fabs(extreme)) extreme = v[i];
    return extreme;
}

// Quantizes a super-block with asymmetric sub-blocks of 32 (Q4_K, Q5_K): search a scale and min
// per sub-block, store them as 6-bit multiples of d and dmin, then requantize every element with
// the scales as stored. Returns the quants (0..nmax) in L.
void quantize_scale_min_k4(const float* x, int nmax, float rmin, float rdelta, int nstep, fp16_bits& d_out,
                           fp16_bits& dmin_out, uint8_t* packed_scales, uint8_t* L) {
    float scales[8], mins[8], weights[32];
    for (int s = 0; s < 8; ++s) {
        const float* xs = x + 32 * s;
        float sum_x2 = 0;
        for (int l = 0; l < 32; ++l)
            sum_x2 += xs[l] * xs[l];
        const float rms = std::sqrt(sum_x2 / 32);
        for (int l = 0; l < 32; ++l)
            weights[l] = rms + std::fabs(xs[l]);
        scales[s] =
            fit_scale_and_min(32, nmax, xs, weights, L + 32 * s, &mins[s], rmin, rdelta, nstep, false);
    }
    const float max_scale = max_of(scales, 8), max_min = max_of(mins, 8);
    const float inverse_scale = max_scale > 0 ? 63.f / max_scale : 0.f;
    const float inverse_min = max_min > 0 ? 63.f / max_min : 0.f;
    uint8_t ls[8], lm[8];
    for (int s = 0; s < 8; ++s) {
        ls[s] = static_cast<uint8_t>(clamp_int(nearest_int(inverse_scale * scales[s]), 0, 63));
        lm[s] = static_cast<uint8_t>(clamp_int(nearest_int(inverse_min * mins[s]), 0, 63));
    }
    pack_scale_min_k4(ls, lm, packed_scales);
    d_out = fp32_to_fp16(max_scale / 63.f);
    dmin_out = fp32_to_fp16(max_min / 63.f);

    const float d = fp16_to_fp32(d_out), dmin = fp16_to_fp32(dmin_out);
    for (int s = 0; s < 8; ++s) {
        const float step = d * ls[s];
        if (step == 0) continue;
        const float offset = dmin * lm[s];
        for (int l = 0; l < 32; ++l)
            L[32 * s + l] =
                static_cast<uint8_t>(clamp_int(nearest_int((x[32 * s + l] + offset) / step), 0, nmax));
    }
}

} // namespace

void unpack_scale_min_k4(int j, const uint8_t* scales, uint8_t* scale, uint8_t* min) {
    if (j < 4) {
        *scale = scales[j] & 63;
        *min = scales[j + 4] & 63;
    } else {
        *scale = static_cast<uint8_t>((scales[j + 4] & 0x0f) | ((scales[j - 4] >> 6) << 4));
        *min = static_cast<uint8_t>((scales[j + 4] >> 4) | ((scales[j] >> 6) << 4));
    }
}

void unpack_scales_q3_K(const uint8_t* packed, int8_t* scales) {
    for (int j = 0; j < 16; ++j) {
        const int low = j < 8 ? packed[j] & 0x0f : packed[j - 8] >> 4;
        const int high = (packed[8 + j % 4] >> (2 * (j / 4))) & 3;
        scales[j] = static_cast<int8_t>((low | (high << 4)) - 32);
    }
}

// ---- Q2_K: value = d * scale * q - dmin * min, 4-bit scale and min per 16, q in 0..3

void quantize_row_q2_K_ref(const float* src, void* dst, int64_t n) {
    assert(n % QK_K == 0);
    auto* blocks = static_cast<BlockQ2_K*>(dst);
    uint8_t L[QK_K];
    float scales[16], mins[16], weights[16];
    for (int64_t b = 0; b < n / QK_K; ++b, src += QK_K) {
        BlockQ2_K& y = blocks[b];
        for (int s = 0; s < 16; ++s) {
            for (int l = 0; l < 16; ++l)
                weights[l] = std::fabs(src[16 * s + l]);
            scales[s] =
                fit_scale_and_min(16, 3, src + 16 * s, weights, L + 16 * s, &mins[s], -0.5f, 0.1f, 15, true);
        }
        const float max_scale = max_of(scales, 16), max_min = max_of(mins, 16);
        for (int s = 0; s < 16; ++s) {
            const int ls = max_scale > 0 ? clamp_int(nearest_int(15.f / max_scale * scales[s]), 0, 15) : 0;
            const int lm = max_min > 0 ? clamp_int(nearest_int(15.f / max_min * mins[s]), 0, 15) : 0;
            y.scales[s] = static_cast<uint8_t>(ls | (lm << 4));
        }
        y.d = fp32_to_fp16(max_scale > 0 ? max_scale / 15.f : 0.f);
        y.dmin = fp32_to_fp16(max_min > 0 ? max_min / 15.f : 0.f);

        const float d = fp16_to_fp32(y.d), dmin = fp16_to_fp32(y.dmin);
        for (int s = 0; s < 16; ++s) {
            const float step = d * (y.scales[s] & 0x0f);
            if (step == 0) continue;
            const float offset = dmin * (y.scales[s] >> 4);
            for (int l = 0; l < 16; ++l)
                L[16 * s + l] =
                    static_cast<uint8_t>(clamp_int(nearest_int((src[16 * s + l] + offset) / step), 0, 3));
        }
        pack_two_bit(L, y.qs);
    }
}

void dequantize_row_q2_K_ref(const void* src, float* dst, int64_t n) {
    dequantize_k<BlockQ2_K>(src, dst, n);
}

float vec_dot_q2_K_q8_K_ref(int64_t n, const void* weights, const void* activations) {
    return vec_dot_k<BlockQ2_K>(n, weights, activations);
}

// ---- Q3_K: value = d * (scale - 32) * (q - 4), 6-bit scale per 16, q in 0..7 (2 bits + hmask)

void quantize_row_q3_K_ref(const float* src, void* dst, int64_t n) {
    assert(n % QK_K == 0);
    auto* blocks = static_cast<BlockQ3_K*>(dst);
    int8_t L[QK_K];
    float scales[16];
    for (int64_t b = 0; b < n / QK_K; ++b, src += QK_K) {
        BlockQ3_K& y = blocks[b];
        for (int s = 0; s < 16; ++s)
            scales[s] = fit_symmetric_scale_iterative(16, 4, src + 16 * s, L + 16 * s);
        const float extreme = signed_extreme(scales, 16);
        uint8_t biased[16] = {};
        if (extreme != 0) {
            const float inverse = -32.f / extreme;
            for (int s = 0; s < 16; ++s)
                biased[s] = static_cast<uint8_t>(clamp_int(nearest_int(inverse * scales[s]), -32, 31) + 32);
            y.d = fp32_to_fp16(1 / inverse);
        } else {
            y.d = fp32_to_fp16(0.f);
        }
        pack_scales_q3_K(biased, y.scales);

        int8_t stored[16];
        unpack_scales_q3_K(y.scales, stored);
        const float d = fp16_to_fp32(y.d);
        for (int s = 0; s < 16; ++s) {
            const float step = d * stored[s];
            if (step == 0) continue;
            for (int l = 0; l < 16; ++l)
                L[16 * s + l] =
                    static_cast<int8_t>(clamp_int(nearest_int(src[16 * s + l] / step), -4, 3) + 4);
        }
        // The third bit of each quant goes to hmask, the low two to qs.
        uint8_t low[QK_K];
        std::memset(y.hmask, 0, sizeof(y.hmask));
        for (int e = 0; e < QK_K; ++e) {
            if (L[e] > 3) y.hmask[e % 32] |= static_cast<uint8_t>(1u << (e / 32));
            low[e] = static_cast<uint8_t>(L[e] & 3);
        }
        pack_two_bit(low, y.qs);
    }
}

void dequantize_row_q3_K_ref(const void* src, float* dst, int64_t n) {
    dequantize_k<BlockQ3_K>(src, dst, n);
}

float vec_dot_q3_K_q8_K_ref(int64_t n, const void* weights, const void* activations) {
    return vec_dot_k<BlockQ3_K>(n, weights, activations);
}

// ---- Q4_K: value = d * scale * q - dmin * min, 6-bit scale and min per 32, q in 0..15

void quantize_row_q4_K_ref(const float* src, void* dst, int64_t n) {
    assert(n % QK_K == 0);
    auto* blocks = static_cast<BlockQ4_K*>(dst);
    uint8_t L[QK_K];
    for (int64_t b = 0; b < n / QK_K; ++b, src += QK_K) {
        BlockQ4_K& y = blocks[b];
        quantize_scale_min_k4(src, 15, -1.f, 0.1f, 20, y.d, y.dmin, y.scales, L);
        pack_four_bit(L, y.qs);
    }
}

void dequantize_row_q4_K_ref(const void* src, float* dst, int64_t n) {
    dequantize_k<BlockQ4_K>(src, dst, n);
}

float vec_dot_q4_K_q8_K_ref(int64_t n, const void* weights, const void* activations) {
    return vec_dot_k<BlockQ4_K>(n, weights, activations);
}

// ---- Q5_K: as Q4_K with a fifth bit per quant in qh, q in 0..31

void quantize_row_q5_K_ref(const float* src, void* dst, int64_t n) {
    assert(n % QK_K == 0);
    auto* blocks = static_cast<BlockQ5_K*>(dst);
    uint8_t L[QK_K];
    for (int64_t b = 0; b < n / QK_K; ++b, src += QK_K) {
        BlockQ5_K& y = blocks[b];
        quantize_scale_min_k4(src, 31, -0.5f, 0.1f, 15, y.d, y.dmin, y.scales, L);
        std::memset(y.qh, 0, sizeof(y.qh));
        for (int e = 0; e < QK_K; ++e)
            if (L[e] > 15) y.qh[e % 32] |= static_cast<uint8_t>(1u << (e / 32));
        pack_four_bit(L, y.qs); // keeps the low nibbles only
    }
}

void dequantize_row_q5_K_ref(const void* src, float* dst, int64_t n) {
    dequantize_k<BlockQ5_K>(src, dst, n);
}

float vec_dot_q5_K_q8_K_ref(int64_t n, const void* weights, const void* activations) {
    return vec_dot_k<BlockQ5_K>(n, weights, activations);
}

// ---- Q6_K: value = d * scale * (q - 32), int8 scale per 16, q in 0..63

void quantize_row_q6_K_ref(const float* src, void* dst, int64_t n) {
    assert(n % QK_K == 0);
    auto* blocks = static_cast<BlockQ6_K*>(dst);
    int8_t L[QK_K];
    float scales[16];
    for (int64_t b = 0; b < n / QK_K; ++b, src += QK_K) {
        BlockQ6_K& y = blocks[b];
        for (int s = 0; s < 16; ++s)
            scales[s] = fit_symmetric_scale(16, 32, src + 16 * s, L + 16 * s);
        const float extreme = signed_extreme(scales, 16);
        if (std::fabs(extreme) < kAllZero) {
            std::memset(&y, 0, sizeof(y));
            continue;
        }
        const float inverse = -128.f / extreme;
        y.d = fp32_to_fp16(1 / inverse);
        for (int s = 0; s < 16; ++s)
            y.scales[s] = static_cast<int8_t>(clamp_int(nearest_int(inverse * scales[s]), -128, 127));

        const float d = fp16_to_fp32(y.d);
        for (int s = 0; s < 16; ++s) {
            const float step = d * y.scales[s];
            if (step == 0) continue;
            for (int l = 0; l < 16; ++l)
                L[16 * s + l] =
                    static_cast<int8_t>(clamp_int(nearest_int(src[16 * s + l] / step), -32, 31) + 32);
        }
        for (int half = 0; half < 2; ++half) {
            const int8_t* q = L + 128 * half;
            for (int l = 0; l < 32; ++l) {
                y.ql[64 * half + l] = static_cast<uint8_t>((q[l] & 0x0f) | ((q[l + 64] & 0x0f) << 4));
                y.ql[64 * half + l + 32] =
                    static_cast<uint8_t>((q[l + 32] & 0x0f) | ((q[l + 96] & 0x0f) << 4));
                y.qh[32 * half + l] = static_cast<uint8_t>((q[l] >> 4) | ((q[l + 32] >> 4) << 2) |
                                                           ((q[l + 64] >> 4) << 4) | ((q[l + 96] >> 4) << 6));
            }
        }
    }
}

void dequantize_row_q6_K_ref(const void* src, float* dst, int64_t n) {
    dequantize_k<BlockQ6_K>(src, dst, n);
}

float vec_dot_q6_K_q8_K_ref(int64_t n, const void* weights, const void* activations) {
    return vec_dot_k<BlockQ6_K>(n, weights, activations);
}

// ---- Q8_K: the activations of the K-quant dot products

void quantize_row_q8_K_ref(const float* src, void* dst, int64_t n) {
    assert(n % QK_K == 0);
    auto* blocks = static_cast<BlockQ8_K*>(dst);
    for (int64_t b = 0; b < n / QK_K; ++b, src += QK_K) {
        BlockQ8_K& y = blocks[b];
        // llama.cpp's quantize_row_q8_K (x86 too): the scale takes the sign of the first value of
        // largest magnitude, -127 / max, so the quants come out negated and d = 1 / scale.
        float amax = 0, max = 0;
        for (int e = 0; e < QK_K; ++e)
            if (std::fabs(src[e]) > amax) {
                amax = std::fabs(src[e]);
                max = src[e];
            }
        if (amax == 0) {
            y = BlockQ8_K{};
            continue;
        }
        const float inverse = -127.f / max;
        y.d = 1 / inverse;
        for (int e = 0; e < QK_K; ++e)
            y.qs[e] = static_cast<int8_t>(std::min(127, nearest_int(inverse * src[e])));
        for (int j = 0; j < QK_K / 16; ++j) {
            int sum = 0;
            for (int l = 0; l < 16; ++l)
                sum += y.qs[16 * j + l];
            y.bsums[j] = static_cast<int16_t>(sum);
        }
    }
}

void dequantize_row_q8_K_ref(const void* src, float* dst, int64_t n) {
    const auto* blocks = static_cast<const BlockQ8_K*>(src);
    for (int64_t b = 0; b < n / QK_K; ++b, dst += QK_K)
        for (int e = 0; e < QK_K; ++e)
            dst[e] = blocks[b].d * blocks[b].qs[e];
}

float vec_dot_q8_K_q8_K_ref(int64_t n, const void* weights, const void* activations) {
    const auto* w = static_cast<const BlockQ8_K*>(weights);
    const auto* a = static_cast<const BlockQ8_K*>(activations);
    float sum = 0;
    for (int64_t b = 0; b < n / QK_K; ++b) {
        int dot = 0;
        for (int e = 0; e < QK_K; ++e)
            dot += w[b].qs[e] * a[b].qs[e];
        sum += w[b].d * a[b].d * static_cast<float>(dot);
    }
    return sum;
}

} // namespace hearth::kernels
