#pragma once
// Decode and small batches over Q4_K, Q6_K and Q8_0 weights repacked in groups of 16 rows
// (interleaved_rows.h), written once against a vector of weight rows V and included by the AVX2
// tier (gemv_interleaved16_avx2.cpp) and the VNNI tiers (x86_vnni_shared/gemv_interleaved16.h):
// V is 8 rows in a ymm (AVX2, with vpmaddubsw; AVX-VNNI) or 16 in a zmm (AVX-512).
// Each vector of 4 quants per row meets 4 activation bytes broadcast in one int8 dot product,
// every row summing in its own int32 lane, exactly; the sub-blocks' integer scales and the
// offsets (Q4_K's mins) apply per super-block in int32, and the two float scales
// once per super-block. A group's quants, once decoded, meet several activation rows (a verify
// pass's drafted tokens), so a few rows cost little more than one.
// The anonymous namespace gives each tier's translation unit its own copy.
//
// V provides: kRows; Int, Float; zero_int, zero; loadu_int, broadcast_int (4 bytes);
// dot (acc + u8 x s8 per dword), dot_words (acc + int16 pairs); add, mul_int; nibble_low
// (& 0x0F), nibble_high (>> 4 & 0x0F); widen_u8 (kRows bytes to int32), widen_u8_pairs
// (2 kRows bytes to int16 pairs); widen_f16 (kRows halves); to_float,
// broadcast_float, mul, fmadd, fnmadd; store (y, v). For Q6_K also: set1_int, sub, widen_i8
// (kRows int8 to int32), shift_left_words<n>, shift_right_words<n>, and six_bits(low, high):
// (low & 0x0F) | (high & 0x30) per byte. For Q8_0 also: dot_q8 (acc + (w + kQ8Offset) x s per
// dword, for signed w and s: VNNI adds 128 to w to make it unsigned, AVX2 moves w's sign onto s)
// and kQ8Offset. Optionally the members of kSumsInWords, which keep sub-block sums in int16 words.
#include "kernels/block_formats.h"
#include "kernels/decode_prefetch.h"
#include "kernels/fp16.h"
#include "kernels/interleaved_rows.h"
#include "kernels/x86_avx2/avx2_util.h"
#include <cstdint>
#include <immintrin.h>
#include <vector>

namespace hearth::kernels {
namespace {

template <class V> constexpr int kVectorsPerGroup = kInterleavedRows / V::kRows;

// Each super-block asks for the lines the CPU's plan says ahead of it, if the plan prefetches
// blocks of its size (decode_prefetch.h; always inlined, as prefetch_weight_lines is).
template <class Block>
[[gnu::always_inline]] inline void prefetch_ahead(const Block& b, const DecodePrefetch& plan) {
    if (sizeof(Block) > plan.longest_prefetched_block) return;
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

// The activation rows a kernel multiplies per pass over a group, its quants decoded once for
// all of them: as many as the registers hold beside the decoded quants (16 zmm rows: 4; two
// ymm halves: 2).
template <class V> constexpr int kRowsPerPass = kVectorsPerGroup<V> == 1 ? 4 : 2;

// Calls run.template operator()<M>(first) for runs of M activation rows covering [0, batch):
// runs of kMax, then one shorter run for what is left.
template <int kMax, class Run>
[[gnu::always_inline]] inline void tail_run(int64_t first, int64_t left, Run& run) {
    if constexpr (kMax > 0) {
        if (left == kMax)
            run.template operator()<kMax>(first);
        else
            tail_run<kMax - 1>(first, left, run);
    }
}
template <int kMax, class Run> [[gnu::always_inline]] inline void in_runs(int64_t batch, Run&& run) {
    int64_t first = 0;
    for (; first + kMax <= batch; first += kMax)
        run.template operator()<kMax>(first);
    tail_run<kMax - 1>(first, batch - first, run);
}

// The activation rows of one pass: row m at base + m * stride.
template <class Block, int M> struct ActivationRows {
    const Block* row[M];
    ActivationRows(const void* base, size_t stride) {
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m)
            row[m] = reinterpret_cast<const Block*>(static_cast<const char*>(base) + m * stride);
    }
};

// Whether V sums a sub-block's products in int16 words (dot_into_words: acc + the u8 x s8 pair
// sums, as vpmaddubsw gives them) and widens them once per sub-block, by a vpmaddwd with the
// scale in both words (widen_u8_in_words, widen_i8_in_words): on AVX2 one multiply per 32
// products instead of two. Exact while the words hold: Q4_K sums 8 steps of pairs of nibbles
// (<= 15) times bytes (>= -128), at most 8 x 2 x 15 x 128 = 30720; Q6_K two steps of six bits.
// Q6_K also takes widen_i8_pairs (two rows of int8 scales as int16 pairs), shift_left_dwords<n>
// and keep (a sum held in a register as written, so that the compiler does not regroup a chain
// of them into a tree of products that outgrows the registers).
template <class V>
constexpr bool kSumsInWords = requires(typename V::Int v, const uint8_t* p, const int8_t* s) {
    V::keep(v);
    V::dot_into_words(v, v, v);
    V::widen_u8_in_words(p);
    V::widen_i8_in_words(s);
    V::widen_i8_pairs(s, s);
    V::template shift_left_dwords<5>(v);
};

// The members of kSumsInWords for 8 rows in a ymm, with vpmaddubsw (AVX2 and AVX-VNNI alike):
// Rows8 supplies the rest (widen_u8; dot_words, which AVX-VNNI fuses with its add).
template <class Rows8> struct YmmWordSums : Rows8 {
    using Int = __m256i;
    static Int keep(Int v) { return avx2::keep_in_register(v); }
    static Int dot_into_words(Int acc, Int u, Int s) {
        return avx2::keep_in_register(_mm256_add_epi16(acc, _mm256_maddubs_epi16(u, s)));
    }
    static Int widen_u8_in_words(const uint8_t* p) {
        const Int v = Rows8::widen_u8(p);
        return _mm256_or_si256(v, _mm256_slli_epi32(v, 16));
    }
    static Int widen_i8_in_words(const int8_t* p) {
        const __m128i v = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
        return _mm256_cvtepi8_epi16(_mm_unpacklo_epi8(v, v));
    }
    static Int widen_i8_pairs(const int8_t* first, const int8_t* second) {
        return _mm256_cvtepi8_epi16(
            _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(first)),
                              _mm_loadl_epi64(reinterpret_cast<const __m128i*>(second))));
    }
    template <int N> static Int shift_left_dwords(Int v) { return _mm256_slli_epi32(v, N); }
};

// Q4_K one group vector at a time (gemm_q4_K_interleaved16_rows) leaves registers for 4 rows,
// its sums in words (AVX2) or in int32 (the VNNI tiers), against passes of 2 rows over both
// vectors; one thread, 2048 x 2048 in cache: AVX2 (Zen 4) 4 rows 219 -> 184 us, 8 rows 434 -> 356
// (5 rows a pass: 8 rows 420); AVX-VNNI (Xeon, family 6 model 207) 3 rows 200-210 -> 166-170, 8
// rows 475-507 -> 422-446. AVX-512 passes of 8 rows: 5-6 rows 4-6% faster in a verify pass, 8
// rows 1-4% slower (Llama-3.2-1B): not taken.
constexpr int kQ4KRowsPerPass = 4;

// Q6_K's sums in words take a sub-block at a time, which leaves registers for 4 rows. AVX-512's
// int32 sums measured the same as its words (zmm maddubs) did.
template <class V> constexpr int kQ6KRowsPerPass = kSumsInWords<V> ? 4 : kRowsPerPass<V>;

// Q4_K: row . a = d * sum_j scale_j * (q_j . a_j) - dmin * sum_j min_j * sum(a_j), for M
// activation rows at once, over the group's vectors [HFirst, HFirst + HCount).
template <class V, int M, int HFirst = 0, int HCount = kVectorsPerGroup<V>>
[[gnu::always_inline]] inline void q4_K_group(int64_t blocks, const InterleavedQ4_K* w,
                                              const ActivationRows<BlockQ8_K, M>& a, float* y,
                                              int64_t y_stride, const DecodePrefetch& prefetch) {
    constexpr int H = kVectorsPerGroup<V>;
    constexpr size_t kBytes = sizeof(typename V::Int);
    typename V::Float acc[M][H];
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
        for (int h = HFirst; h < HFirst + HCount; ++h)
            acc[m][h] = V::zero();
    for (int64_t i = 0; i < blocks; ++i) {
        const InterleavedQ4_K& b = w[i];
        prefetch_ahead(b, prefetch);
        typename V::Int scaled[M][H];
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
            for (int h = HFirst; h < HFirst + HCount; ++h)
                scaled[m][h] = V::zero_int();
        UnpackedQ4KScales unpacked;
        unpack_q4_K_scales(b, unpacked);
#pragma GCC unroll 4
        for (int p = 0; p < 4; ++p) {
            typename V::Int low[M][H], high[M][H];
#pragma GCC unroll 8
            for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
                for (int h = HFirst; h < HFirst + HCount; ++h)
                    low[m][h] = high[m][h] = V::zero_int();
#pragma GCC unroll 8
            for (int c = 0; c < 8; ++c) {
                typename V::Int a_low[M], a_high[M];
#pragma GCC unroll 8
                for (int m = 0; m < M; ++m) {
                    a_low[m] = V::broadcast_int(bytes_of<V>(a.row[m][i].qs + 64 * p + 4 * c));
                    a_high[m] = V::broadcast_int(bytes_of<V>(a.row[m][i].qs + 64 * p + 32 + 4 * c));
                }
#pragma GCC unroll 8
                for (int h = HFirst; h < HFirst + HCount; ++h) {
                    const typename V::Int q = V::loadu_int(b.qs[p][c] + h * kBytes);
                    const typename V::Int q_low = V::nibble_low(q), q_high = V::nibble_high(q);
#pragma GCC unroll 8
                    for (int m = 0; m < M; ++m) {
                        if constexpr (kSumsInWords<V>) {
                            low[m][h] = V::dot_into_words(low[m][h], q_low, a_low[m]);
                            high[m][h] = V::dot_into_words(high[m][h], q_high, a_high[m]);
                        } else {
                            low[m][h] = V::dot(low[m][h], q_low, a_low[m]);
                            high[m][h] = V::dot(high[m][h], q_high, a_high[m]);
                        }
                    }
                }
            }
#pragma GCC unroll 8
            for (int h = HFirst; h < HFirst + HCount; ++h) {
                if constexpr (kSumsInWords<V>) {
                    // Each dword's two word sums times the row's scale, in both words.
                    const typename V::Int scale_low =
                        V::widen_u8_in_words(unpacked.scales[2 * p] + h * V::kRows);
                    const typename V::Int scale_high =
                        V::widen_u8_in_words(unpacked.scales[2 * p + 1] + h * V::kRows);
#pragma GCC unroll 8
                    for (int m = 0; m < M; ++m) {
                        scaled[m][h] = V::dot_words(scaled[m][h], low[m][h], scale_low);
                        scaled[m][h] = V::dot_words(scaled[m][h], high[m][h], scale_high);
                    }
                } else {
                    const typename V::Int scale_low = V::widen_u8(unpacked.scales[2 * p] + h * V::kRows);
                    const typename V::Int scale_high = V::widen_u8(unpacked.scales[2 * p + 1] + h * V::kRows);
#pragma GCC unroll 8
                    for (int m = 0; m < M; ++m) {
                        scaled[m][h] = V::add(scaled[m][h], V::mul_int(low[m][h], scale_low));
                        scaled[m][h] = V::add(scaled[m][h], V::mul_int(high[m][h], scale_high));
                    }
                }
            }
        }
        // The offsets once the sums are done: their terms (the mins and the activations' sums)
        // are not needed while the quants are summed, and so hold no registers then.
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m) {
            int32_t pair_sums[4];
            q8_K_pair_sums(a.row[m][i], pair_sums);
            const typename V::Float da = V::broadcast_float(a.row[m][i].d);
#pragma GCC unroll 8
            for (int h = HFirst; h < HFirst + HCount; ++h) {
                typename V::Int offset = V::zero_int();
#pragma GCC unroll 4
                for (int p = 0; p < 4; ++p)
                    offset = V::dot_words(offset, V::widen_u8_pairs(unpacked.mins[p][h * V::kRows]),
                                          V::broadcast_int(bytes_of<V>(&pair_sums[p])));
                acc[m][h] = V::fmadd(V::to_float(scaled[m][h]), V::mul(V::widen_f16(b.d + h * V::kRows), da),
                                     acc[m][h]);
                acc[m][h] = V::fnmadd(V::to_float(offset), V::mul(V::widen_f16(b.dmin + h * V::kRows), da),
                                      acc[m][h]);
            }
        }
    }
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
        for (int h = HFirst; h < HFirst + HCount; ++h)
            V::store(y + m * y_stride + h * V::kRows, acc[m][h]);
}

// Quant k (chunk u + 16k) of step u, group vector h, as six unsigned bits.
template <class V>
[[gnu::always_inline]] inline typename V::Int q6_K_quant(const InterleavedQ6_K& b, int u, int h, int k) {
    constexpr size_t kBytes = sizeof(typename V::Int);
    const typename V::Int bits = V::loadu_int(b.steps[u][k % 2] + h * kBytes);
    const typename V::Int top = V::loadu_int(b.steps[u][2] + h * kBytes);
    switch (k) {
    case 0:
        return V::six_bits(bits, V::template shift_left_words<4>(top));
    case 1:
        return V::six_bits(bits, V::template shift_left_words<2>(top));
    case 2:
        return V::six_bits(V::template shift_right_words<4>(bits), top);
    default:
        return V::six_bits(V::template shift_right_words<4>(bits), V::template shift_right_words<2>(top));
    }
}

// Q6_K's four quant vectors of step u, group vector h (the sub-blocks s, s + 4, s + 8 and s + 12
// for u = 4s..4s+3), each load once: the compiler merges the repeated loads of the high bits.
template <class V>
[[gnu::always_inline]] inline void q6_K_quants(const InterleavedQ6_K& b, int u, int h,
                                               typename V::Int (&q)[4]) {
#pragma GCC unroll 4
    for (int k = 0; k < 4; ++k)
        q[k] = q6_K_quant<V>(b, u, h, k);
}

// Step u's products added to acc[m][k] (row m, sub-block s + 4k for u / 4 = s) by Dot: V::dot
// (int32 lanes) or V::dot_into_words (int16 words).
template <class V, int M, class Dot>
[[gnu::always_inline]] inline void q6_K_step(const InterleavedQ6_K& b, const ActivationRows<BlockQ8_K, M>& a,
                                             int64_t i, int h, int u, typename V::Int (&acc)[M][4], Dot dot) {
    typename V::Int q[4];
    q6_K_quants<V>(b, u, h, q);
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
        for (int k = 0; k < 4; ++k)
            acc[m][k] = dot(acc[m][k], q[k], V::broadcast_int(bytes_of<V>(a.row[m][i].qs + 64 * k + 4 * u)));
}

// Every row's four sub-block sums set to zero.
template <class V, int M> [[gnu::always_inline]] inline void zero_sums(typename V::Int (&acc)[M][4]) {
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
        for (int k = 0; k < 4; ++k)
            acc[m][k] = V::zero_int();
}

// scaled[m] += sum_j scale_j * (q_j . a_j - 32 * sum(a_j)) over the super-block's 16 sub-blocks,
// for group vector h: each sub-block's dot product in int32 (dot), then times its scale.
template <class V, int M>
[[gnu::always_inline]] inline void q6_K_sums(const InterleavedQ6_K& b, const ActivationRows<BlockQ8_K, M>& a,
                                             int64_t i, int h, typename V::Int (&scaled)[M]) {
#pragma GCC unroll 4
    for (int s = 0; s < 4; ++s) {
        typename V::Int sums[M][4];
        zero_sums<V, M>(sums);
#pragma GCC unroll 4
        for (int t = 0; t < 4; ++t)
            q6_K_step<V, M>(b, a, i, h, 4 * s + t, sums,
                            [](auto acc, auto q, auto x) { return V::dot(acc, q, x); });
#pragma GCC unroll 8
        for (int k = 0; k < 4; ++k) {
            const int j = 4 * k + s;
            const typename V::Int scale = V::widen_i8(b.scales[j] + h * V::kRows);
#pragma GCC unroll 8
            for (int m = 0; m < M; ++m) {
                const typename V::Int offset = V::set1_int(32 * a.row[m][i].bsums[j]);
                scaled[m] = V::add(scaled[m], V::mul_int(V::sub(sums[m][k], offset), scale));
            }
        }
    }
}

// The same sum with each sub-block's products kept in int16 words over two steps (2 x 2 x 63 x
// 128 = 32256 at most) and widened by its scale in both words; the offsets' 32 * sum_j scale_j *
// sum(a_j) once per super-block, from pairs of sub-blocks. The same integers as q6_K_sums. One
// sub-block at a time, its quants decoded as they are used: M rows' words, their scaled sums
// and one quant vector fit the registers up to M = 4 (all four sub-blocks of a step at once
// spilled from M = 1 on, and ran at 3.5-3.9 cycles per 32 products against 3.2).
template <class V, int M>
[[gnu::always_inline]] inline void q6_K_sums_in_words(const InterleavedQ6_K& b,
                                                      const ActivationRows<BlockQ8_K, M>& a, int64_t i, int h,
                                                      typename V::Int (&scaled)[M]) {
#pragma GCC unroll 4
    for (int s = 0; s < 4; ++s) {
#pragma GCC unroll 2
        for (int half = 0; half < 2; ++half) {
#pragma GCC unroll 4
            for (int k = 0; k < 4; ++k) {
                typename V::Int words[M];
#pragma GCC unroll 8
                for (int m = 0; m < M; ++m)
                    words[m] = V::zero_int();
#pragma GCC unroll 2
                for (int t = 2 * half; t < 2 * half + 2; ++t) {
                    const int u = 4 * s + t;
                    const typename V::Int q = q6_K_quant<V>(b, u, h, k);
#pragma GCC unroll 8
                    for (int m = 0; m < M; ++m)
                        words[m] = V::dot_into_words(
                            words[m], q, V::broadcast_int(bytes_of<V>(a.row[m][i].qs + 64 * k + 4 * u)));
                }
                const typename V::Int scale = V::widen_i8_in_words(b.scales[4 * k + s] + h * V::kRows);
#pragma GCC unroll 8
                for (int m = 0; m < M; ++m)
                    scaled[m] = V::keep(V::dot_words(scaled[m], words[m], scale));
            }
        }
    }
    typename V::Int offset[M];
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
        offset[m] = V::zero_int();
#pragma GCC unroll 8
    for (int p = 0; p < 8; ++p) {
        const typename V::Int scales =
            V::widen_i8_pairs(b.scales[2 * p] + h * V::kRows, b.scales[2 * p + 1] + h * V::kRows);
#pragma GCC unroll 8
        for (int m = 0; m < M; ++m)
            offset[m] = V::keep(
                V::dot_words(offset[m], scales, V::broadcast_int(bytes_of<V>(&a.row[m][i].bsums[2 * p]))));
    }
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
        scaled[m] = V::sub(scaled[m], V::template shift_left_dwords<5>(offset[m]));
}

// The same activation rows, their addresses hidden from the compiler: each group vector's pass
// loads its own broadcasts instead of keeping the first's for the next (which spilled).
template <int M>
[[gnu::always_inline]] inline ActivationRows<BlockQ8_K, M>
apart_from_other_halves(ActivationRows<BlockQ8_K, M> a) {
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
        __asm__("" : "+r"(a.row[m]));
    return a;
}

// Q6_K: row . a = d * sum_j scale_j * (q_j . a_j - 32 * sum(a_j)), with q the unsigned six-bit
// quants (0..63) and j the 16 sub-blocks of 16, for M activation rows at once. Each step u takes
// ql(u), ql(u + 16) and qh(u), side by side in memory: the chunks u, u + 16, u + 32 and u + 48,
// so sub-blocks s, s + 4, s + 8 and s + 12 for u / 4 = s. The vectors of a group's rows go one
// after the other (h outermost), so that M rows' sums fit the registers.
template <class V, int M>
[[gnu::always_inline]] inline void q6_K_group(int64_t blocks, const InterleavedQ6_K* w,
                                              const ActivationRows<BlockQ8_K, M>& a, float* y,
                                              int64_t y_stride, const DecodePrefetch& prefetch) {
    constexpr int H = kVectorsPerGroup<V>;
    typename V::Float acc[M][H];
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
        for (int h = 0; h < H; ++h)
            acc[m][h] = V::zero();
    for (int64_t i = 0; i < blocks; ++i) {
        const InterleavedQ6_K& b = w[i];
        prefetch_ahead(b, prefetch);
#pragma GCC unroll 8
        for (int h = 0; h < H; ++h) {
            typename V::Int scaled[M];
#pragma GCC unroll 8
            for (int m = 0; m < M; ++m)
                scaled[m] = V::zero_int();
            if constexpr (kSumsInWords<V>)
                q6_K_sums_in_words<V, M>(b, apart_from_other_halves(a), i, h, scaled);
            else
                q6_K_sums<V, M>(b, a, i, h, scaled);
            const typename V::Float d = V::widen_f16(b.d + h * V::kRows);
#pragma GCC unroll 8
            for (int m = 0; m < M; ++m)
                acc[m][h] =
                    V::fmadd(V::to_float(scaled[m]), V::mul(d, V::broadcast_float(a.row[m][i].d)), acc[m][h]);
        }
    }
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
        for (int h = 0; h < H; ++h)
            V::store(y + m * y_stride + h * V::kRows, acc[m][h]);
}

// Per Q8_0 block of each activation row, prepared once per call: its scale as a float and
// -offset * sum(x), the term that takes the offset back out of dot_q8's sums. Up to
// kStackTerms (32768 columns of one row, or 15 rows of 2048) stay on the stack, more in the
// thread's storage, grown once: decode allocates nothing per token.
class Q8_0Terms {
public:
    Q8_0Terms(const void* activations, size_t row_stride, int64_t rows, int64_t blocks, int32_t offset)
        : blocks_(blocks) {
        const int64_t count = rows * blocks;
        if (count > kStackTerms) {
            thread_local std::vector<Term> wide;
            if (wide.size() < static_cast<size_t>(count)) wide.resize(static_cast<size_t>(count));
            terms_ = wide.data();
        }
        const __m256i bias = _mm256_set1_epi8(static_cast<char>(0x80));
        for (int64_t r = 0; r < rows; ++r) {
            const auto* a =
                reinterpret_cast<const BlockQ8_0*>(static_cast<const char*>(activations) + r * row_stride);
            for (int64_t i = 0; i < blocks; ++i) {
                // sum(x) from the biased bytes' sums of absolute differences with zero.
                const __m256i biased =
                    _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a[i].qs)), bias);
                const __m256i sad = _mm256_sad_epu8(biased, _mm256_setzero_si256());
                __m128i s = _mm_add_epi64(_mm256_castsi256_si128(sad), _mm256_extracti128_si256(sad, 1));
                s = _mm_add_epi64(s, _mm_unpackhi_epi64(s, s));
                const int32_t sum = _mm_cvtsi128_si32(s) - QK8_0 * 128;
                terms_[r * blocks + i] = {fp16_to_fp32(a[i].d), -offset * sum};
            }
        }
    }
    Q8_0Terms(const Q8_0Terms&) = delete;
    Q8_0Terms& operator=(const Q8_0Terms&) = delete;
    float scale(int64_t row, int64_t block) const { return terms_[row * blocks_ + block].scale; }
    int32_t offset_term(int64_t row, int64_t block) const {
        return terms_[row * blocks_ + block].offset_term;
    }

private:
    static constexpr int64_t kStackTerms = 1024;
    struct Term {
        float scale;
        int32_t offset_term;
    };
    int64_t blocks_;
    Term stack_[kStackTerms];
    Term* terms_ = stack_;
};

// Q8_0: row . a = sum over blocks of d * dx * (q . x), each block's integer dot exact, then
// one product of the two scales and one FMA, as the row-major kernels do; for M activation rows
// at once, rows first_row.. of the call's.
template <class V, int M>
[[gnu::always_inline]] inline void q8_0_group(int64_t pairs, const InterleavedQ8_0* w,
                                              const ActivationRows<BlockQ8_0, M>& a, const Q8_0Terms& terms,
                                              int64_t first_row, float* y, int64_t y_stride,
                                              const DecodePrefetch& prefetch) {
    constexpr int H = kVectorsPerGroup<V>;
    constexpr size_t kBytes = sizeof(typename V::Int);
    typename V::Float acc[M][H];
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
        for (int h = 0; h < H; ++h)
            acc[m][h] = V::zero();
    for (int64_t i = 0; i < pairs; ++i) {
        const InterleavedQ8_0& b = w[i];
        prefetch_ahead(b, prefetch);
#pragma GCC unroll 2
        for (int j = 0; j < 2; ++j) {
            const int64_t block = 2 * i + j;
            typename V::Int sums[M][H];
#pragma GCC unroll 8
            for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
                for (int h = 0; h < H; ++h)
                    sums[m][h] = V::set1_int(terms.offset_term(first_row + m, block));
#pragma GCC unroll 8
            for (int c = 0; c < QK8_0 / 4; ++c) {
                typename V::Int xc[M];
#pragma GCC unroll 8
                for (int m = 0; m < M; ++m)
                    xc[m] = V::broadcast_int(bytes_of<V>(a.row[m][block].qs) + 4 * c);
#pragma GCC unroll 8
                for (int h = 0; h < H; ++h) {
                    const typename V::Int q = V::loadu_int(bytes_of<V>(b.qs[j][c]) + h * kBytes);
#pragma GCC unroll 8
                    for (int m = 0; m < M; ++m)
                        sums[m][h] = V::dot_q8(sums[m][h], q, xc[m]);
                }
            }
#pragma GCC unroll 8
            for (int h = 0; h < H; ++h) {
                const typename V::Float d = V::widen_f16(b.d[j] + h * V::kRows);
#pragma GCC unroll 8
                for (int m = 0; m < M; ++m)
                    acc[m][h] =
                        V::fmadd(V::to_float(sums[m][h]),
                                 V::mul(d, V::broadcast_float(terms.scale(first_row + m, block))), acc[m][h]);
            }
        }
    }
#pragma GCC unroll 8
    for (int m = 0; m < M; ++m)
#pragma GCC unroll 8
        for (int h = 0; h < H; ++h)
            V::store(y + m * y_stride + h * V::kRows, acc[m][h]);
}

// What a pass over one group asks for ahead. Decode's pass (one activation row, the group's first
// read) asks as the plan says. A later pass over a group read before asks for the next group's
// lines (group_bytes on), into L2, while it works from cache; so does a group's only pass when it
// has kRowsHidingMemory rows or more, its arithmetic long enough for the next group to arrive
// meanwhile (the first of several passes keeps the plan: avx512 pp16 lost 4% without it).
// Verify passes over memory on 2 threads, Zen 4, ms, the plan's way / the next group's
// (bench_kernels verify_pool, 3 interleaved rounds): Q6_K 128256 x 2048, 4 rows, avx2 13.3-13.8 /
// 9.9-11.6, avx512 7.5-8.8 / 7.0-7.8; Q6_K 16384 x 8192, 4 rows, avx2 8.4-9.1 / 4.5-5.3. Fewer
// rows: avx512 2 rows 5.6-6.9 / 7.1-7.5, 3 rows 6.7-7.4 / 7.0-8.4 (worse), avx2 3 rows 8.8-9.7 /
// 8.2-8.8. Not Q8_0, whose arithmetic is light: 151936 x 896, avx512, 4 rows over 1 row 0.99-1.09
// / 1.11-1.47 (3 rounds).
constexpr int kRowsHidingMemory = 4;
// Whether the pass over activation rows [first, first + rows) of `batch` asks for the next group.
inline bool streams_next_group(int64_t first, int rows, int64_t batch) {
    return first > 0 || (rows == batch && rows >= kRowsHidingMemory);
}
inline DecodePrefetch pass_prefetch(const DecodePrefetch& plan, bool next_group_ahead, size_t group_bytes) {
    if (!next_group_ahead) return plan;
    DecodePrefetch next = plan;
    next.group_bytes_ahead = group_bytes;
    next.into_l2 = true;
    next.longest_prefetched_block = SIZE_MAX;
    return next;
}

// Group by group over rows [row_begin, row_end) (whole groups), runs of up to kRowsPerPass
// activation rows: run.template operator()<M>(g, first, rows, out) with the run's first row in
// the batch, its M activation rows and where its results go.
template <class V, class Block, int kRows = kRowsPerPass<V>, class Run>
[[gnu::always_inline]] inline void for_group_runs(int64_t row_begin, int64_t row_end, const void* activations,
                                                  size_t activation_row_bytes, int64_t batch, float* y,
                                                  int64_t y_stride, Run&& run) {
    const auto* a = static_cast<const char*>(activations);
    for (int64_t g = row_begin / kInterleavedRows; g < row_end / kInterleavedRows; ++g)
        in_runs<kRows>(batch, [&]<int M>(int64_t first) {
            run.template operator()<M>(
                g, first, ActivationRows<Block, M>(a + first * activation_row_bytes, activation_row_bytes),
                y + first * y_stride + g * kInterleavedRows);
        });
}

// GemmFns over repacked rows (row_begin and row_end whole groups) for decode and small batches:
// group by group, each group's quants decoded once per kRowsPerPass activation rows. Each row's
// result is bit for bit what a batch of that row alone gives, so a verify pass over drafted
// tokens scores each as decode would.
template <class V>
void gemm_q4_K_interleaved16_rows(int64_t n, const void* packed, size_t, int64_t row_begin, int64_t row_end,
                                  const void* activations, size_t activation_row_bytes, int64_t batch,
                                  float* y, int64_t y_stride) {
    const int64_t blocks = n / QK_K;
    const auto* groups = static_cast<const InterleavedQ4_K*>(packed);
    const DecodePrefetch& plan = decode_prefetch();
    const size_t group_bytes = blocks * sizeof(InterleavedQ4_K);
    for_group_runs<V, BlockQ8_K, kQ4KRowsPerPass>(
        row_begin, row_end, activations, activation_row_bytes, batch, y, y_stride,
        [&]<int M>(int64_t g, int64_t first, const ActivationRows<BlockQ8_K, M>& rows, float* out) {
            const DecodePrefetch prefetch =
                pass_prefetch(plan, streams_next_group(first, M, batch), group_bytes);
            if constexpr (kVectorsPerGroup<V> == 2 && M > 1) {
                // The ymm tiers' two halves and several rows: one half at a time, the group's
                // super-block headers read twice (from L1: a group of 8-16 super-blocks is 18-37
                // KB), so that the rows' sums fit the 16 ymm registers; both halves at once
                // spilled AVX-VNNI's int32 sums (two rows cost 2.06 times one) and held AVX2's
                // int16 word sums to 2 rows a pass.
                q4_K_group<V, M, 0, 1>(blocks, groups + g * blocks, rows, out, y_stride, prefetch);
                q4_K_group<V, M, 1, 1>(blocks, groups + g * blocks, rows, out, y_stride,
                                       pass_prefetch(plan, true, group_bytes));
            } else {
                q4_K_group<V, M>(blocks, groups + g * blocks, rows, out, y_stride, prefetch);
            }
        });
}

template <class V>
void gemm_q6_K_interleaved16_rows(int64_t n, const void* packed, size_t, int64_t row_begin, int64_t row_end,
                                  const void* activations, size_t activation_row_bytes, int64_t batch,
                                  float* y, int64_t y_stride) {
    const int64_t blocks = n / QK_K;
    const auto* groups = static_cast<const InterleavedQ6_K*>(packed);
    const DecodePrefetch& plan = decode_prefetch();
    for_group_runs<V, BlockQ8_K, kQ6KRowsPerPass<V>>(
        row_begin, row_end, activations, activation_row_bytes, batch, y, y_stride,
        [&]<int M>(int64_t g, int64_t first, const ActivationRows<BlockQ8_K, M>& rows, float* out) {
            const DecodePrefetch prefetch =
                pass_prefetch(plan, streams_next_group(first, M, batch), blocks * sizeof(InterleavedQ6_K));
            q6_K_group<V, M>(blocks, groups + g * blocks, rows, out, y_stride, prefetch);
        });
}

template <class V>
void gemm_q8_0_interleaved16_rows(int64_t n, const void* packed, size_t, int64_t row_begin, int64_t row_end,
                                  const void* activations, size_t activation_row_bytes, int64_t batch,
                                  float* y, int64_t y_stride) {
    const int64_t pairs = n / InterleavedQ8_0::kColumns;
    const auto* groups = static_cast<const InterleavedQ8_0*>(packed);
    const Q8_0Terms terms(activations, activation_row_bytes, batch, 2 * pairs, V::kQ8Offset);
    const DecodePrefetch& plan = decode_prefetch();
    for_group_runs<V, BlockQ8_0>(
        row_begin, row_end, activations, activation_row_bytes, batch, y, y_stride,
        [&]<int M>(int64_t g, int64_t first, const ActivationRows<BlockQ8_0, M>& rows, float* out) {
            const DecodePrefetch prefetch = pass_prefetch(plan, first > 0, pairs * sizeof(InterleavedQ8_0));
            q8_0_group<V, M>(pairs, groups + g * pairs, rows, terms, first, out, y_stride, prefetch);
        });
}

} // namespace
} // namespace hearth::kernels
