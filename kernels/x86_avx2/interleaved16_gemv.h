#pragma once
// Decode (matrix x vector) over Q4_K, Q6_K and Q8_0 weights repacked in groups of 16 rows
// (interleaved_rows.h), written once against a vector of weight rows V and included by the AVX2
// tier (gemv_interleaved16_avx2.cpp) and the VNNI tiers (x86_vnni_shared/gemv_interleaved16.h):
// V is 8 rows in a ymm (AVX2, with vpmaddubsw; AVX-VNNI) or 16 in a zmm (AVX-512).
// Each vector of 4 quants per row meets 4 activation bytes broadcast in one int8 dot product,
// every row summing in its own int32 lane, exactly; the sub-blocks' integer scales and the
// offsets (Q4_K's mins) apply per super-block in int32, and the two float scales
// once per super-block. The anonymous namespace gives each tier's translation unit its own copy.
//
// V provides: kRows; Int, Float; zero_int, zero; loadu_int, broadcast_int (4 bytes);
// dot (acc + u8 x s8 per dword), dot_words (acc + int16 pairs); add, mul_int; nibble_low
// (& 0x0F), nibble_high (>> 4 & 0x0F); widen_u8 (kRows bytes to int32), widen_u8_pairs
// (2 kRows bytes to int16 pairs); widen_f16 (kRows halves); to_float,
// broadcast_float, mul, fmadd, fnmadd; store (y, v). For Q6_K also: set1_int, sub, widen_i8
// (kRows int8 to int32), shift_left_words<n>, shift_right_words<n>, and six_bits(low, high):
// (low & 0x0F) | (high & 0x30) per byte. For Q8_0 also: dot_q8 (acc + (w + kQ8Offset) x s per
// dword, for signed w and s: VNNI adds 128 to w to make it unsigned, AVX2 moves w's sign onto s)
// and kQ8Offset.
#include "kernels/block_formats.h"
#include "kernels/decode_prefetch.h"
#include "kernels/fp16.h"
#include "kernels/interleaved_rows.h"
#include <cstdint>
#include <immintrin.h>
#include <vector>

namespace hearth::kernels {
namespace {

template <class V> constexpr int kVectorsPerGroup = kInterleavedRows / V::kRows;

// Each super-block asks for the lines the CPU's plan says ahead of it (decode_prefetch.h; always
// inlined, as prefetch_weight_lines is).
template <class Block>
[[gnu::always_inline]] inline void prefetch_ahead(const Block& b, const DecodePrefetch& plan) {
    prefetch_weight_lines(reinterpret_cast<const char*>(&b) + plan.group_bytes_ahead, sizeof(Block),
                          plan.into_l2);
}

// The 32-element sums of a Q8_K block's sub-block pairs (2p, 2p + 1), as int16 pairs.
inline void q8_K_pair_sums(const BlockQ8_K& a, int32_t (&pairs)[4]) {
    const __m128i low = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.bsums));
    const __m128i high = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a.bsums + 8));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(pairs), _mm_hadd_epi16(low, high));
}

// A repacked super-block's six-bit scales and mins, all 16 rows: scales[j][row] for sub-block
// j, mins[p][row] the pair (min 2p, min 2p + 1), as the kernel's widening loads want them.
struct alignas(32) UnpackedQ4KScales {
    uint8_t scales[8][kInterleavedRows]; // [2p + i]: pair p, sub-block 2p + i
    uint8_t mins[4][kInterleavedRows][2];
};

// Two sub-block pairs (32 bytes of each split field) per 256-bit step: the 16-bit shifts carry
// bits across bytes, and the masks keep only each byte's own.
inline void unpack_q4_K_scales(const InterleavedQ4_K& b, UnpackedQ4KScales& out) {
    const __m256i low4 = _mm256_set1_epi8(0x0F), high2 = _mm256_set1_epi8(0x30);
    for (int p = 0; p < 4; p += 2) {
        const __m256i scale_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.scale_low[p]));
        const __m256i min_low = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.min_low[p]));
        const __m256i high = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b.high[p]));
        const __m256i scale_even = _mm256_or_si256(_mm256_and_si256(scale_low, low4),
                                                   _mm256_and_si256(_mm256_slli_epi16(high, 4), high2));
        const __m256i scale_odd = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(scale_low, 4), low4),
                                                  _mm256_and_si256(_mm256_slli_epi16(high, 2), high2));
        const __m256i min_even =
            _mm256_or_si256(_mm256_and_si256(min_low, low4), _mm256_and_si256(high, high2));
        const __m256i min_odd = _mm256_or_si256(_mm256_and_si256(_mm256_srli_epi16(min_low, 4), low4),
                                                _mm256_and_si256(_mm256_srli_epi16(high, 2), high2));
        // Lane i of each vector is pair p + i.
        _mm_store_si128(reinterpret_cast<__m128i*>(out.scales[2 * p]), _mm256_castsi256_si128(scale_even));
        _mm_store_si128(reinterpret_cast<__m128i*>(out.scales[2 * p + 1]), _mm256_castsi256_si128(scale_odd));
        _mm_store_si128(reinterpret_cast<__m128i*>(out.scales[2 * p + 2]),
                        _mm256_extracti128_si256(scale_even, 1));
        _mm_store_si128(reinterpret_cast<__m128i*>(out.scales[2 * p + 3]),
                        _mm256_extracti128_si256(scale_odd, 1));
        const __m256i rows_low = _mm256_unpacklo_epi8(min_even, min_odd);  // rows 0-7 of each pair
        const __m256i rows_high = _mm256_unpackhi_epi8(min_even, min_odd); // rows 8-15
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.mins[p]),
                           _mm256_permute2x128_si256(rows_low, rows_high, 0x20));
        _mm256_store_si256(reinterpret_cast<__m256i*>(out.mins[p + 1]),
                           _mm256_permute2x128_si256(rows_low, rows_high, 0x31));
    }
}

template <class V> inline const uint8_t* bytes_of(const void* p) {
    return static_cast<const uint8_t*>(p);
}

// Q4_K: row . a = d * sum_j scale_j * (q_j . a_j) - dmin * sum_j min_j * sum(a_j).
template <class V>
void gemv_q4_K_interleaved16(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                             const void* activation, float* y) {
    constexpr int H = kVectorsPerGroup<V>;
    constexpr size_t kBytes = sizeof(typename V::Int);
    const int64_t blocks = n / QK_K;
    const auto* groups = static_cast<const InterleavedQ4_K*>(packed);
    const auto* a = static_cast<const BlockQ8_K*>(activation);
    const DecodePrefetch& prefetch = decode_prefetch();
    for (int64_t g = group_begin; g < group_end; ++g) {
        const InterleavedQ4_K* w = groups + g * blocks;
        typename V::Float acc[H];
        for (int h = 0; h < H; ++h)
            acc[h] = V::zero();
        for (int64_t i = 0; i < blocks; ++i) {
            const InterleavedQ4_K& b = w[i];
            const BlockQ8_K& x = a[i];
            prefetch_ahead(b, prefetch);
            typename V::Int scaled[H], offset[H];
            for (int h = 0; h < H; ++h)
                scaled[h] = offset[h] = V::zero_int();
            int32_t pair_sums[4];
            q8_K_pair_sums(x, pair_sums);
            UnpackedQ4KScales unpacked;
            unpack_q4_K_scales(b, unpacked);
#pragma GCC unroll 4
            for (int p = 0; p < 4; ++p) {
                typename V::Int low[H], high[H];
                for (int h = 0; h < H; ++h)
                    low[h] = high[h] = V::zero_int();
#pragma GCC unroll 8
                for (int c = 0; c < 8; ++c) {
                    const typename V::Int a_low = V::broadcast_int(bytes_of<V>(x.qs + 64 * p + 4 * c));
                    const typename V::Int a_high = V::broadcast_int(bytes_of<V>(x.qs + 64 * p + 32 + 4 * c));
                    for (int h = 0; h < H; ++h) {
                        const typename V::Int q = V::loadu_int(b.qs[p][c] + h * kBytes);
                        low[h] = V::dot(low[h], V::nibble_low(q), a_low);
                        high[h] = V::dot(high[h], V::nibble_high(q), a_high);
                    }
                }
                const typename V::Int sums = V::broadcast_int(bytes_of<V>(&pair_sums[p]));
                for (int h = 0; h < H; ++h) {
                    scaled[h] = V::add(
                        scaled[h], V::mul_int(low[h], V::widen_u8(unpacked.scales[2 * p] + h * V::kRows)));
                    scaled[h] =
                        V::add(scaled[h],
                               V::mul_int(high[h], V::widen_u8(unpacked.scales[2 * p + 1] + h * V::kRows)));
                    offset[h] =
                        V::dot_words(offset[h], V::widen_u8_pairs(unpacked.mins[p][h * V::kRows]), sums);
                }
            }
            const typename V::Float da = V::broadcast_float(x.d);
            for (int h = 0; h < H; ++h) {
                acc[h] =
                    V::fmadd(V::to_float(scaled[h]), V::mul(V::widen_f16(b.d + h * V::kRows), da), acc[h]);
                acc[h] = V::fnmadd(V::to_float(offset[h]), V::mul(V::widen_f16(b.dmin + h * V::kRows), da),
                                   acc[h]);
            }
        }
        for (int h = 0; h < H; ++h)
            V::store(y + g * kInterleavedRows + h * V::kRows, acc[h]);
    }
}

// Q6_K: row . a = d * sum_j scale_j * (q_j . a_j - 32 * sum(a_j)), with q the unsigned six-bit
// quants (0..63) and j the 16 sub-blocks of 16. Each step u takes ql(u), ql(u + 16) and qh(u),
// side by side in memory: the chunks u, u + 16, u + 32 and u + 48, so sub-blocks s, s + 4, s + 8
// and s + 12 for u / 4 = s.
template <class V>
void gemv_q6_K_interleaved16(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                             const void* activation, float* y) {
    constexpr int H = kVectorsPerGroup<V>;
    constexpr size_t kBytes = sizeof(typename V::Int);
    const int64_t blocks = n / QK_K;
    const auto* groups = static_cast<const InterleavedQ6_K*>(packed);
    const auto* a = static_cast<const BlockQ8_K*>(activation);
    const DecodePrefetch& prefetch = decode_prefetch();
    for (int64_t g = group_begin; g < group_end; ++g) {
        const InterleavedQ6_K* w = groups + g * blocks;
        typename V::Float acc[H];
        for (int h = 0; h < H; ++h)
            acc[h] = V::zero();
        for (int64_t i = 0; i < blocks; ++i) {
            const InterleavedQ6_K& b = w[i];
            const BlockQ8_K& x = a[i];
            prefetch_ahead(b, prefetch);
            typename V::Int scaled[H];
            for (int h = 0; h < H; ++h)
                scaled[h] = V::zero_int();
#pragma GCC unroll 4
            for (int s = 0; s < 4; ++s) {
                typename V::Int sums[4][H];
                for (int k = 0; k < 4; ++k)
                    for (int h = 0; h < H; ++h)
                        sums[k][h] = V::zero_int();
#pragma GCC unroll 4
                for (int t = 0; t < 4; ++t) {
                    const int u = 4 * s + t;
                    typename V::Int activations[4];
                    for (int k = 0; k < 4; ++k)
                        activations[k] = V::broadcast_int(bytes_of<V>(x.qs + 64 * k + 4 * u));
                    for (int h = 0; h < H; ++h) {
                        const typename V::Int low = V::loadu_int(b.steps[u][0] + h * kBytes);
                        const typename V::Int high = V::loadu_int(b.steps[u][1] + h * kBytes);
                        const typename V::Int top = V::loadu_int(b.steps[u][2] + h * kBytes);
                        sums[0][h] =
                            V::dot(sums[0][h], V::six_bits(low, V::template shift_left_words<4>(top)),
                                   activations[0]);
                        sums[1][h] =
                            V::dot(sums[1][h], V::six_bits(high, V::template shift_left_words<2>(top)),
                                   activations[1]);
                        sums[2][h] =
                            V::dot(sums[2][h], V::six_bits(V::template shift_right_words<4>(low), top),
                                   activations[2]);
                        sums[3][h] = V::dot(sums[3][h],
                                            V::six_bits(V::template shift_right_words<4>(high),
                                                        V::template shift_right_words<2>(top)),
                                            activations[3]);
                    }
                }
                for (int k = 0; k < 4; ++k) {
                    const int j = 4 * k + s;
                    const typename V::Int offset = V::set1_int(32 * x.bsums[j]);
                    for (int h = 0; h < H; ++h)
                        scaled[h] = V::add(scaled[h], V::mul_int(V::sub(sums[k][h], offset),
                                                                 V::widen_i8(b.scales[j] + h * V::kRows)));
                }
            }
            const typename V::Float da = V::broadcast_float(x.d);
            for (int h = 0; h < H; ++h)
                acc[h] =
                    V::fmadd(V::to_float(scaled[h]), V::mul(V::widen_f16(b.d + h * V::kRows), da), acc[h]);
        }
        for (int h = 0; h < H; ++h)
            V::store(y + g * kInterleavedRows + h * V::kRows, acc[h]);
    }
}

// Per Q8_0 block of the activation row, prepared once per call: its scale as a float and
// -offset * sum(x), the term that takes the offset back out of dot_q8's sums. Rows of up to
// kStackBlocks blocks (32768 columns) keep them on the stack, wider ones in the thread's
// storage, grown once: decode allocates nothing per token.
class Q8_0Terms {
public:
    Q8_0Terms(const BlockQ8_0* a, int64_t blocks, int32_t offset) {
        if (blocks > kStackBlocks) {
            thread_local std::vector<Term> wide;
            if (wide.size() < static_cast<size_t>(blocks)) wide.resize(static_cast<size_t>(blocks));
            terms_ = wide.data();
        }
        const __m256i bias = _mm256_set1_epi8(static_cast<char>(0x80));
        for (int64_t i = 0; i < blocks; ++i) {
            // sum(x) from the biased bytes' sums of absolute differences with zero.
            const __m256i biased =
                _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[i].qs)), bias);
            const __m256i sad = _mm256_sad_epu8(biased, _mm256_setzero_si256());
            __m128i s = _mm_add_epi64(_mm256_castsi256_si128(sad), _mm256_extracti128_si256(sad, 1));
            s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
            const int32_t sum = _mm_cvtsi128_si32(s) - QK8_0 * 128;
            terms_[i] = {fp16_to_fp32(a[i].d), -offset * sum};
        }
    }
    Q8_0Terms(const Q8_0Terms&) = delete;
    Q8_0Terms& operator=(const Q8_0Terms&) = delete;
    float scale(int64_t block) const { return terms_[block].scale; }
    int32_t offset_term(int64_t block) const { return terms_[block].offset_term; }

private:
    static constexpr int64_t kStackBlocks = 1024;
    struct Term {
        float scale;
        int32_t offset_term;
    };
    Term stack_[kStackBlocks];
    Term* terms_ = stack_;
};

// Q8_0: row . a = sum over blocks of d * dx * (q . x), each block's integer dot exact, then
// one product of the two scales and one FMA, as the row-major kernels do.
template <class V>
void gemv_q8_0_interleaved16(int64_t n, const void* packed, int64_t group_begin, int64_t group_end,
                             const void* activation, float* y) {
    constexpr int H = kVectorsPerGroup<V>;
    constexpr size_t kBytes = sizeof(typename V::Int);
    const int64_t pairs = n / InterleavedQ8_0::kColumns;
    const auto* groups = static_cast<const InterleavedQ8_0*>(packed);
    const auto* a = static_cast<const BlockQ8_0*>(activation);
    const Q8_0Terms terms(a, 2 * pairs, V::kQ8Offset);
    const DecodePrefetch& prefetch = decode_prefetch();
    for (int64_t g = group_begin; g < group_end; ++g) {
        const InterleavedQ8_0* w = groups + g * pairs;
        typename V::Float acc[H];
        for (int h = 0; h < H; ++h)
            acc[h] = V::zero();
        for (int64_t i = 0; i < pairs; ++i) {
            const InterleavedQ8_0& b = w[i];
            prefetch_ahead(b, prefetch);
#pragma GCC unroll 2
            for (int j = 0; j < 2; ++j) {
                const int64_t block = 2 * i + j;
                const uint8_t* x = bytes_of<V>(a[block].qs);
                typename V::Int sums[H];
                for (int h = 0; h < H; ++h)
                    sums[h] = V::set1_int(terms.offset_term(block));
#pragma GCC unroll 8
                for (int c = 0; c < QK8_0 / 4; ++c) {
                    const typename V::Int xc = V::broadcast_int(x + 4 * c);
                    for (int h = 0; h < H; ++h)
                        sums[h] = V::dot_q8(sums[h], V::loadu_int(bytes_of<V>(b.qs[j][c]) + h * kBytes), xc);
                }
                const typename V::Float dx = V::broadcast_float(terms.scale(block));
                for (int h = 0; h < H; ++h)
                    acc[h] = V::fmadd(V::to_float(sums[h]), V::mul(V::widen_f16(b.d[j] + h * V::kRows), dx),
                                      acc[h]);
            }
        }
        for (int h = 0; h < H; ++h)
            V::store(y + g * kInterleavedRows + h * V::kRows, acc[h]);
    }
}

} // namespace
} // namespace hearth::kernels
