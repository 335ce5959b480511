// Attention of one query over an F16 KV cache with F16C and FMA, at exactly the reference's
// roundings (attention_ref.cpp): the value accumulator lives as 8 halves per register and is
// rounded to F16 after each fused multiply-add, as the scalar code does per element, and the
// score's dot product sums in the reference's (and ggml's AVX2 F16 dot's) order: four 8-wide
// F32 accumulators over steps of 32, folded (0 + 2) + (1 + 3), the tail added in double.
#include "kernels/reference/reference_kernels.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"
#include "kernels/x86_avx2/expf_avx2.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace hearth::kernels::avx2 {
namespace {

constexpr int kRound = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;

inline __m256 load_halves(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// dot(q16, k) in ggml's order: q16 holds the query already rounded to F16.
inline float dot_f16(const uint16_t* q16, const uint16_t* k, int64_t n) {
    const int64_t whole = n & ~int64_t(31);
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    for (int64_t i = 0; i < whole; i += 32) {
        s0 = _mm256_fmadd_ps(load_halves(q16 + i), load_halves(k + i), s0);
        s1 = _mm256_fmadd_ps(load_halves(q16 + i + 8), load_halves(k + i + 8), s1);
        s2 = _mm256_fmadd_ps(load_halves(q16 + i + 16), load_halves(k + i + 16), s2);
        s3 = _mm256_fmadd_ps(load_halves(q16 + i + 24), load_halves(k + i + 24), s3);
    }
    s0 = _mm256_add_ps(s0, s2);
    s1 = _mm256_add_ps(s1, s3);
    s0 = _mm256_add_ps(s0, s1);
    const __m128 t0 = _mm_add_ps(_mm256_castps256_ps128(s0), _mm256_extractf128_ps(s0, 1));
    const __m128 t1 = _mm_hadd_ps(t0, t0);
    double sum = _mm_cvtss_f32(_mm_hadd_ps(t1, t1));
    for (int64_t i = whole; i < n; ++i)
        sum += static_cast<double>(_cvtsh_ss(q16[i]) * _cvtsh_ss(k[i]));
    return static_cast<float>(sum);
}

// One query, any head size that is a multiple of 8 (the group kernel below takes multiples of 32).
void attend(const float* q, const uint16_t* keys, const uint16_t* values, size_t kv_stride, int64_t n_keys,
            int64_t head_dim, float scale, float* out) {
    const int64_t dim = head_dim;
    alignas(32) uint16_t q16[kMaxAttentionHeadDim];
    alignas(32) uint16_t acc[kMaxAttentionHeadDim]; // the F16 accumulator
    for (int64_t d = 0; d < dim; d += 8) {
        _mm_store_si128(reinterpret_cast<__m128i*>(q16 + d), _mm256_cvtps_ph(_mm256_loadu_ps(q + d), kRound));
        _mm_store_si128(reinterpret_cast<__m128i*>(acc + d), _mm_setzero_si128());
    }
    float max_score = -INFINITY, sum = 0.0f;
    for (int64_t j = 0; j < n_keys; ++j) {
        const float score = dot_f16(q16, keys + static_cast<size_t>(j) * kv_stride, dim) * scale;
        float weight = 1.0f;
        if (score > max_score) {
            const __m256 rescale = _mm256_set1_ps(std::exp(max_score - score));
#pragma GCC unroll 16
            for (int64_t d = 0; d < dim; d += 8) {
                auto* a = reinterpret_cast<__m128i*>(acc + d);
                _mm_store_si128(
                    a, _mm256_cvtps_ph(_mm256_mul_ps(_mm256_cvtph_ps(_mm_load_si128(a)), rescale), kRound));
            }
            sum = std::fma(sum, _mm256_cvtss_f32(rescale), 1.0f); // ggml's S = S*ms + vs, fused
            max_score = score;
        } else {
            weight = std::exp(score - max_score);
            sum += weight;
        }
        const uint16_t* v = values + static_cast<size_t>(j) * kv_stride;
        const __m256 w = _mm256_set1_ps(weight);
#pragma GCC unroll 16
        for (int64_t d = 0; d < dim; d += 8) {
            auto* a = reinterpret_cast<__m128i*>(acc + d);
            const __m256 updated = _mm256_fmadd_ps(load_halves(v + d), w, _mm256_cvtph_ps(_mm_load_si128(a)));
            _mm_store_si128(a, _mm256_cvtps_ph(updated, kRound));
        }
    }
    const __m256 inv_sum = _mm256_set1_ps(1.0f / sum);
    for (int64_t d = 0; d < dim; d += 8)
        _mm256_storeu_ps(out + d, _mm256_mul_ps(load_halves(acc + d), inv_sum));
}

// The query heads of one GQA group (up to kGroup) over the same keys and values, keys taken 8 at
// a time. Per query every operation is the one attend() does, in the same order, but:
// - each key and value is widened to F32 once for all the queries;
// - the 8 scores of a block are reduced together (reduce_8_lanes, ggml's order per key);
// - the running maximum is a prefix maximum over the block (decide_block), so that every exp
//   of the block (the rescale when a key sets a new maximum, the weight otherwise) is one
//   vector expf, libm's to the bit, and the running sum is one branch-free FMA per key;
// - the F16 accumulators are held as floats rounded to F16 (round_to_f16), in L1;
// - the blocks are software-pipelined: the keys of block b + 1 are widened and scored between
//   the value updates of block b, so that the FMA-bound scores overlap the conversion-bound
//   round trips.
// Measured on Zen 5 (bench_avx2_kernels, head size 64, 7 heads), ~26 cycles per (key, head):
// - the values with their F16 round trips ~12: a vcvtps2ph + vcvtph2ps round trip of 8 issues
//   every ~1.5 cycles at best, and magic-number rounding (exact over F16's whole range) is more
//   operations and measured slower, alone and mixed with the conversions;
// - the scores ~5, which overlap the values less than their ports suggest;
// - the softmax decisions ~7, 4 of them the double-precision expf;
// - the widening ~2.
// Tried and slower: accumulators as halves in memory (the store of vcvtps2ph is dearer, 7.3
// against 6.4 ns per pair); 14 of them in registers (the code before this one, 6.9); deciding
// block b + 1 during block b as well (6.9 to 8.3).
// Head sizes that are multiples of 32 (ggml's dot then has no tail).
constexpr int64_t kGroup = 8;
constexpr int kKeyBlock = 8;

// Lane k: ggml's horizontal sum of v[k], ((l0 + l4) + (l1 + l5)) + ((l2 + l6) + (l3 + l7)).
[[gnu::always_inline]] inline __m256 reduce_8_lanes(const __m256 (&v)[kKeyBlock]) {
    __m256 folded[4]; // low half: v[2i]'s lanes l + (l + 4); high half: v[2i + 1]'s
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i)
        folded[i] = _mm256_add_ps(_mm256_permute2f128_ps(v[2 * i], v[2 * i + 1], 0x20),
                                  _mm256_permute2f128_ps(v[2 * i], v[2 * i + 1], 0x31));
    // Pairwise twice: the low half ends as keys 0, 2, 4, 6 and the high half as 1, 3, 5, 7.
    const __m256 sums =
        _mm256_hadd_ps(_mm256_hadd_ps(folded[0], folded[1]), _mm256_hadd_ps(folded[2], folded[3]));
    return _mm256_permutevar8x32_ps(sums, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

// What one head does with one block of keys, decided before the values are touched.
struct BlockWeights {
    alignas(32) float weight[kKeyBlock]; // the value's weight (1 where the key sets a new maximum)
    // What came before is multiplied by: exp(old max - new max) where the key sets a new
    // maximum, else 1 (the running sum always; the accumulators only where it is not 1).
    alignas(32) float rescale[kKeyBlock];
    uint32_t new_max = 0; // bit k: key k sets a new maximum
};

inline __m256 round_to_f16(__m256 x) {
    return _mm256_cvtph_ps(_mm256_cvtps_ph(x, kRound));
}

// Lane k: the maximum of lanes 0..k (no lane may be NaN).
inline __m256 prefix_max(__m256 x) {
    const __m256 lowest = _mm256_set1_ps(-INFINITY);
    x = _mm256_max_ps(x,
                      _mm256_blend_ps(_mm256_permutevar8x32_ps(x, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)),
                                      lowest, 0x01));
    x = _mm256_max_ps(x,
                      _mm256_blend_ps(_mm256_permutevar8x32_ps(x, _mm256_setr_epi32(0, 0, 0, 1, 2, 3, 4, 5)),
                                      lowest, 0x03));
    return _mm256_max_ps(x, _mm256_blend_ps(lowest, _mm256_permute2f128_ps(x, x, 0x00), 0xF0));
}

// The online softmax's decisions for one head and one block of scores, all 8 keys at once, as
// the scalar loop takes them one after another: a key above the running maximum of the keys
// before it sets a new maximum and rescales what came before by exp(old max - new max); any
// other is weighted by exp(score - max). One vector expf for the block. Returns the maximum.
[[gnu::always_inline]] inline float decide_block(__m256 score, int keys_here, float running_max,
                                                 BlockWeights& out) {
    const __m256 valid = _mm256_castsi256_ps(
        _mm256_cmpgt_epi32(_mm256_set1_epi32(keys_here), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
    // The maximum never takes a NaN score or a padding lane (the scalar comparison is false).
    const __m256 comparable = _mm256_and_ps(valid, _mm256_cmp_ps(score, score, _CMP_ORD_Q));
    const __m256 through =
        _mm256_max_ps(prefix_max(_mm256_blendv_ps(_mm256_set1_ps(-INFINITY), score, comparable)),
                      _mm256_set1_ps(running_max));
    const __m256 before =
        _mm256_blend_ps(_mm256_permutevar8x32_ps(through, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)),
                        _mm256_set1_ps(running_max), 0x01);
    const __m256 is_new = _mm256_and_ps(valid, _mm256_cmp_ps(score, before, _CMP_GT_OQ));
    const __m256 exponent = _mm256_and_ps(
        valid, _mm256_blendv_ps(_mm256_sub_ps(score, before), _mm256_sub_ps(before, score), is_new));
    const __m256 e = expf_like_libm(exponent);
    const __m256 one = _mm256_set1_ps(1.0f);
    _mm256_store_ps(out.weight, _mm256_blendv_ps(e, one, is_new));
    _mm256_store_ps(out.rescale, _mm256_blendv_ps(one, e, is_new));
    out.new_max = static_cast<uint32_t>(_mm256_movemask_ps(is_new));
    return _mm256_cvtss_f32(_mm256_permutevar8x32_ps(through, _mm256_set1_epi32(7)));
}

// Widens one key and one value row of F16 to F32: the keys into registers (all the group's
// queries take their dot with it there), the values to the block's buffer.
template <int64_t D>
[[gnu::always_inline]] inline void widen_row(const uint16_t* key_row, const uint16_t* value_row,
                                             __m256 (&key)[D / 8], float* value) {
#pragma GCC unroll 16
    for (int64_t i = 0; i < D / 8; ++i) {
        key[i] = load_halves(key_row + 8 * i);
        _mm256_store_ps(value + 8 * i, load_halves(value_row + 8 * i));
    }
}

// dot(q16, key) in ggml's order (see dot_f16) as 8 lanes, folded later by reduce_8_lanes.
template <int64_t D>
[[gnu::always_inline]] inline __m256 dot_lanes(const float* q16, const __m256 (&key)[D / 8]) {
    __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
#pragma GCC unroll 16
    for (int64_t i = 0; i < D / 8; ++i)
        s[i % 4] = _mm256_fmadd_ps(_mm256_load_ps(q16 + 8 * i), key[i], s[i % 4]);
    return _mm256_add_ps(_mm256_add_ps(s[0], s[2]), _mm256_add_ps(s[1], s[3]));
}

// One key's value into one head's F16 accumulator: the rescale first where the key sets a new
// maximum, then the FMA, each rounded to F16.
template <int64_t D>
[[gnu::always_inline]] inline void accumulate_value(float* acc, const float* value,
                                                    const BlockWeights& weights, int k) {
    if (weights.new_max >> k & 1) {
        const __m256 r = _mm256_broadcast_ss(&weights.rescale[k]);
#pragma GCC unroll 16
        for (int64_t i = 0; i < D / 8; ++i)
            _mm256_store_ps(acc + 8 * i, round_to_f16(_mm256_mul_ps(_mm256_load_ps(acc + 8 * i), r)));
    }
    const __m256 w = _mm256_broadcast_ss(&weights.weight[k]);
#pragma GCC unroll 16
    for (int64_t i = 0; i < D / 8; ++i) {
        const __m256 product_sum =
            _mm256_fmadd_ps(_mm256_load_ps(value + 8 * i), w, _mm256_load_ps(acc + 8 * i));
        _mm256_store_ps(acc + 8 * i, round_to_f16(product_sum));
    }
}

template <int64_t D>
void attend_group(const float* q, size_t q_stride, int64_t n_queries, const uint16_t* keys,
                  const uint16_t* values, size_t kv_stride, int64_t n_keys, float scale, float* out,
                  size_t out_stride) {
    static_assert(D % 32 == 0 && D <= kMaxAttentionHeadDim);
    alignas(32) float q16[kGroup][D];         // the queries rounded to F16, held as floats
    alignas(32) float acc[kGroup][D];         // the F16 accumulators, held as floats
    alignas(32) float value[2][kKeyBlock][D]; // this block's values and the next's, widened
    float max_score[kGroup], sum[kGroup];
    BlockWeights weights[kGroup];
    __m256 lanes[kGroup][kKeyBlock];
    __m256 scores[kGroup];
    for (int64_t h = 0; h < n_queries; ++h) {
        for (int64_t d = 0; d < D; d += 8) {
            const __m128i half =
                _mm256_cvtps_ph(_mm256_loadu_ps(q + static_cast<size_t>(h) * q_stride + d), kRound);
            _mm256_store_ps(q16[h] + d, _mm256_cvtph_ps(half));
            _mm256_store_ps(acc[h] + d, _mm256_setzero_ps());
        }
        max_score[h] = -INFINITY;
        sum[h] = 0.0f;
    }
    const auto row = [kv_stride](const uint16_t* base, int64_t j) {
        return base + static_cast<size_t>(j) * kv_stride;
    };
    // Widens key k of the block at `first` (zero past the keys) and takes every query's dot with it.
    const auto score_key = [&](int64_t first, int k, float* value_out) {
        __m256 key[D / 8];
        if (first + k < n_keys) {
            widen_row<D>(row(keys, first + k), row(values, first + k), key, value_out);
        } else {
#pragma GCC unroll 16
            for (int64_t i = 0; i < D / 8; ++i)
                key[i] = _mm256_setzero_ps(); // padding: a finite score that decide_block ignores
        }
        for (int64_t h = 0; h < n_queries; ++h)
            lanes[h][k] = dot_lanes<D>(q16[h], key);
    };
    const auto finish_scores = [&] {
        for (int64_t h = 0; h < n_queries; ++h)
            scores[h] = _mm256_mul_ps(reduce_8_lanes(lanes[h]), _mm256_set1_ps(scale));
    };
    // Block 0 is scored ahead; then, per block, its decisions, and its values with the next
    // block's keys widened and scored between them.
    for (int k = 0; k < kKeyBlock; ++k)
        score_key(0, k, value[0][k]);
    finish_scores();
    int current = 0;
    for (int64_t first = 0; first < n_keys; first += kKeyBlock) {
        const int keys_here = static_cast<int>(std::min<int64_t>(kKeyBlock, n_keys - first));
        for (int64_t h = 0; h < n_queries; ++h)
            max_score[h] = decide_block(scores[h], keys_here, max_score[h], weights[h]);
        // The sums, one chain per head (ggml's S = S*ms + vs, fused): interleaved, they overlap.
        for (int k = 0; k < keys_here; ++k)
            for (int64_t h = 0; h < n_queries; ++h)
                sum[h] = std::fma(sum[h], weights[h].rescale[k], weights[h].weight[k]);
        const int64_t next = first + kKeyBlock;
        if (next < n_keys) {
            for (int k = 0; k < kKeyBlock; ++k) { // a full block: only the last may be short
                score_key(next, k, value[current ^ 1][k]);
                for (int64_t h = 0; h < n_queries; ++h)
                    accumulate_value<D>(acc[h], value[current][k], weights[h], k);
            }
            finish_scores();
        } else {
            for (int k = 0; k < keys_here; ++k)
                for (int64_t h = 0; h < n_queries; ++h)
                    accumulate_value<D>(acc[h], value[current][k], weights[h], k);
        }
        current ^= 1;
    }
    for (int64_t h = 0; h < n_queries; ++h) {
        const __m256 inv_sum = _mm256_set1_ps(1.0f / sum[h]);
        for (int64_t d = 0; d < D; d += 8)
            _mm256_storeu_ps(out + static_cast<size_t>(h) * out_stride + d,
                             _mm256_mul_ps(_mm256_load_ps(acc[h] + d), inv_sum));
    }
}

// The group kernel for a head size known at compile time (multiples of 32 up to 128); false
// for other sizes.
bool attend_group_by_size(const float* q, size_t q_stride, int64_t n_queries, const uint16_t* keys,
                          const uint16_t* values, size_t kv_stride, int64_t n_keys, int64_t head_dim,
                          float scale, float* out, size_t out_stride) {
    using Kernel = void (*)(const float*, size_t, int64_t, const uint16_t*, const uint16_t*, size_t, int64_t,
                            float, float*, size_t);
    static constexpr Kernel kBySize[] = {attend_group<32>, attend_group<64>, attend_group<96>,
                                         attend_group<128>};
    if (head_dim % 32 != 0 || head_dim < 32 || head_dim / 32 > int64_t{std::size(kBySize)}) return false;
    kBySize[head_dim / 32 - 1](q, q_stride, n_queries, keys, values, kv_stride, n_keys, scale, out,
                               out_stride);
    return true;
}

} // namespace

void attend_group_f16(const float* q, size_t q_stride, int64_t n_queries, const uint16_t* keys,
                      const uint16_t* values, size_t kv_stride, int64_t n_keys, int64_t head_dim, float scale,
                      float* out, size_t out_stride) {
    for (int64_t first = 0; first < n_queries; first += kGroup) {
        const int64_t count = std::min(kGroup, n_queries - first);
        const float* q_part = q + static_cast<size_t>(first) * q_stride;
        float* out_part = out + static_cast<size_t>(first) * out_stride;
        if (attend_group_by_size(q_part, q_stride, count, keys, values, kv_stride, n_keys, head_dim, scale,
                                 out_part, out_stride))
            continue;
        for (int64_t h = 0; h < count; ++h) // other head sizes: one query at a time
            attend_f16(q_part + static_cast<size_t>(h) * q_stride, keys, values, kv_stride, n_keys, head_dim,
                       scale, out_part + static_cast<size_t>(h) * out_stride);
    }
}

void expf_8(const float* in, float* out) {
    _mm256_storeu_ps(out, expf_like_libm(_mm256_loadu_ps(in)));
}

void attend_f16(const float* q, const uint16_t* keys, const uint16_t* values, size_t kv_stride,
                int64_t n_keys, int64_t head_dim, float scale, float* out) {
    if (attend_group_by_size(q, static_cast<size_t>(head_dim), 1, keys, values, kv_stride, n_keys, head_dim,
                             scale, out, static_cast<size_t>(head_dim)))
        return;
    if (head_dim % 8 == 0 && head_dim <= kMaxAttentionHeadDim)
        return attend(q, keys, values, kv_stride, n_keys, head_dim, scale, out);
    attend_f16_ref(q, keys, values, kv_stride, n_keys, head_dim, scale, out);
}

} // namespace hearth::kernels::avx2
