// Attention over an F16, Q8_0 or Q4_0 KV cache in F32 with AVX2, FMA and F16C (AttendFn).
//
// The keys are taken in blocks of 8, each widened to F32 once into L1 for all the query rows of
// the tile (a GQA group's heads at one or several positions). Per block, three passes over the
// rows, so that each row's chain of dependent steps overlaps the other rows' (one row's alone
// leaves the FMA units idle most of the time):
// - the scores: 8 dot products as 8 lane vectors, reduced to one vector of 8 scores; two rows at
//   a time share every load of a key;
// - the softmax: the block's maximum (rescaling the row's sums when it rises), one vector exp;
// - the values: weight times value into the row's F32 accumulators, two rows' accumulators held
//   in registers for the block, sharing every load of a value.
// Quantized keys and values are widened the same way, one row of blocks at a time
// (int8 times the block's scale, exact as the scalar dequantizer), so the cache is read as it
// is stored and nothing larger than a block of 8 rows is ever widened. A row's result depends
// only on its query, the keys it sees and the block boundaries (multiples of 8 from key 0),
// never on its tile or its partner row.
#include "kernels/attention_tile.h"
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/avx2_util.h"
#include "kernels/x86_avx2/expf_avx2.h"
#include "kernels/x86_avx2/kv_prefetch.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace hearth::kernels::avx2 {
namespace {

constexpr int kKeyBlock = 8;                     // keys per block: one vector of scores per row
constexpr int64_t kPrefetchKeys = 4 * kKeyBlock; // how far ahead the cache rows are asked for
// Floats of query rows and accumulators one pass over the keys keeps (8 KB each, in L1): 32
// rows of 64, 16 of 128. A tile with more rows takes more passes.
constexpr int64_t kPassFloats = 2048;
constexpr int64_t kMaxPassRows = 64;

inline __m256 load_halves(const uint16_t* p) {
    return _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

// Widens one row of head_dim halves to `chunks` vectors of floats, zero beyond head_dim.
template <int kChunks>
[[gnu::always_inline]] inline void widen_row(const uint16_t* src, int64_t head_dim, int chunks, float* dst) {
    if constexpr (kChunks != 0) { // head_dim == 8 * kChunks
#pragma GCC unroll 16
        for (int c = 0; c < kChunks; ++c)
            _mm256_store_ps(dst + 8 * c, load_halves(src + 8 * c));
    } else {
        const int whole = static_cast<int>(head_dim / 8);
        for (int c = 0; c < whole; ++c)
            _mm256_store_ps(dst + 8 * c, load_halves(src + 8 * c));
        if (whole < chunks) {
            uint16_t tail[8] = {};
            std::memcpy(tail, src + 8 * whole, static_cast<size_t>(head_dim - 8 * whole) * sizeof(uint16_t));
            _mm256_store_ps(dst + 8 * whole, load_halves(tail));
        }
    }
}

// 8 int8 quants times their block's scale: the product of two floats rounds once, as in the
// scalar dequantizer.
inline __m256 widen_quants(__m128i quants, __m256 scale) {
    return _mm256_mul_ps(_mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(quants)), scale);
}

// One row of Q8_0 blocks (head_dim a multiple of 32) to floats.
inline void widen_row_q8_0(const BlockQ8_0* blocks, int64_t head_dim, float* dst) {
    for (int64_t b = 0; b < head_dim / 32; ++b, dst += 32) {
        const __m256 scale = _mm256_set1_ps(fp16_to_fp32(blocks[b].d));
        for (int c = 0; c < 4; ++c)
            _mm256_store_ps(
                dst + 8 * c,
                widen_quants(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(blocks[b].qs + 8 * c)), scale));
    }
}

// One row of Q4_0 blocks to floats: element j of a block is the low nibble of byte j, element
// j + 16 the high one, each minus 8.
inline void widen_row_q4_0(const BlockQ4_0* blocks, int64_t head_dim, float* dst) {
    const __m128i low_nibbles = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
    for (int64_t b = 0; b < head_dim / 32; ++b, dst += 32) {
        const __m256 scale = _mm256_set1_ps(fp16_to_fp32(blocks[b].d));
        const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks[b].qs));
        const __m128i low = _mm_sub_epi8(_mm_and_si128(packed, low_nibbles), eight);
        const __m128i high = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(packed, 4), low_nibbles), eight);
        _mm256_store_ps(dst, widen_quants(low, scale));
        _mm256_store_ps(dst + 8, widen_quants(_mm_srli_si128(low, 8), scale));
        _mm256_store_ps(dst + 16, widen_quants(high, scale));
        _mm256_store_ps(dst + 24, widen_quants(_mm_srli_si128(high, 8), scale));
    }
}

// Row j of a KV head widened to `chunks` vectors of floats (zero beyond head_dim). Quantized
// rows have head_dim a multiple of 32, so no tail.
template <int kChunks>
[[gnu::always_inline]] inline void widen_kv_row(const KvRows& rows, int64_t j, int64_t head_dim, int chunks,
                                                float* dst) {
    const char* row = static_cast<const char*>(rows.data) + static_cast<size_t>(j) * rows.row_bytes;
    switch (rows.type) {
    case TensorType::Q8_0:
        return widen_row_q8_0(reinterpret_cast<const BlockQ8_0*>(row), head_dim, dst);
    case TensorType::Q4_0:
        return widen_row_q4_0(reinterpret_cast<const BlockQ4_0*>(row), head_dim, dst);
    default:
        return widen_row<kChunks>(reinterpret_cast<const uint16_t*>(row), head_dim, chunks, dst);
    }
}

// The dot products of 4 keys, 8 lanes each, folded into one vector: lane k (k < 4) holds the
// sum of lanes 0..3 of v[k], lane k + 4 that of lanes 4..7.
[[gnu::always_inline]] inline __m256 fold_4(const __m256 (&v)[4]) {
    return _mm256_hadd_ps(_mm256_hadd_ps(v[0], v[1]), _mm256_hadd_ps(v[2], v[3]));
}

// Lane j: the whole dot product of key j, from the folds of keys 0..3 and 4..7.
[[gnu::always_inline]] inline __m256 join_folds(__m256 low, __m256 high) {
    return _mm256_add_ps(_mm256_permute2f128_ps(low, high, 0x20), _mm256_permute2f128_ps(low, high, 0x31));
}

inline float sum_of_lanes(__m256 x) {
    const __m128 four = _mm_add_ps(_mm256_castps256_ps128(x), _mm256_extractf128_ps(x, 1));
    const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
    return _mm_cvtss_f32(_mm_add_ss(two, _mm_movehdup_ps(two)));
}

// Every lane: the maximum of x's lanes.
inline __m256 max_of_lanes(__m256 x) {
    x = _mm256_max_ps(x, _mm256_permute2f128_ps(x, x, 0x01));
    x = _mm256_max_ps(x, _mm256_shuffle_ps(x, x, 0x4E));
    return _mm256_max_ps(x, _mm256_shuffle_ps(x, x, 0xB1));
}

// The 8 scores of one block for R query rows (1 or 2), before the scale: lane j of scores[r] is
// q[r] . key j. The keys are rows of chunks * 8 floats. Two rows share every load of a key
// (loads, not FMAs, would bound one row alone); each row's sums are the same whatever R.
template <int kChunks, int R>
[[gnu::always_inline]] inline void block_scores(const float* const (&q)[R], const float* keys, int chunks,
                                                __m256 (&scores)[R]) {
    if constexpr (kChunks != 0) chunks = kChunks;
    const int64_t row = 8 * static_cast<int64_t>(chunks);
    __m256 folds[2][R];
#pragma GCC unroll 1
    for (int half = 0; half < 2; ++half) { // keys 0..3, then 4..7: 4R accumulators
        const float* half_keys = keys + 4 * half * row;
        __m256 lanes[R][4];
#pragma GCC unroll 2
        for (int r = 0; r < R; ++r)
            for (__m256& l : lanes[r])
                l = _mm256_setzero_ps();
#pragma GCC unroll 16
        for (int c = 0; c < chunks; ++c) {
            __m256 q_chunk[R];
#pragma GCC unroll 2
            for (int r = 0; r < R; ++r)
                q_chunk[r] = keep_in_register(_mm256_load_ps(q[r] + 8 * c));
#pragma GCC unroll 4
            for (int j = 0; j < 4; ++j) {
                const __m256 k = _mm256_load_ps(half_keys + j * row + 8 * c);
#pragma GCC unroll 2
                for (int r = 0; r < R; ++r)
                    lanes[r][j] = _mm256_fmadd_ps(k, q_chunk[r], lanes[r][j]);
            }
        }
#pragma GCC unroll 2
        for (int r = 0; r < R; ++r)
            folds[half][r] = fold_4(lanes[r]);
    }
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r)
        scores[r] = join_folds(folds[0][r], folds[1][r]);
}

// acc[r][0 .. 8N) += the sum over the block's keys j of weights[r][j] * value row j, for R rows
// (1 or 2) whose R * N accumulators stay in registers for the block; two rows share every load
// of a value. Each row's sums are the same whatever R and N.
template <int R, int N>
[[gnu::always_inline]] inline void accumulate_chunks(float* const (&acc)[R], const float* const (&weights)[R],
                                                     const float* values, int64_t row, int64_t first_float) {
    __m256 a[R][N];
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int i = 0; i < N; ++i)
            a[r][i] = _mm256_load_ps(acc[r] + first_float + 8 * i);
#pragma GCC unroll 8
    for (int j = 0; j < kKeyBlock; ++j) {
        __m256 w[R];
#pragma GCC unroll 2
        for (int r = 0; r < R; ++r)
            w[r] = _mm256_broadcast_ss(weights[r] + j);
#pragma GCC unroll 8
        for (int i = 0; i < N; ++i) {
            __m256 v = _mm256_load_ps(values + j * row + first_float + 8 * i);
            if constexpr (R > 1) v = keep_in_register(v);
#pragma GCC unroll 2
            for (int r = 0; r < R; ++r)
                a[r][i] = _mm256_fmadd_ps(v, w[r], a[r][i]);
        }
    }
#pragma GCC unroll 2
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 8
        for (int i = 0; i < N; ++i)
            _mm256_store_ps(acc[r] + first_float + 8 * i, a[r][i]);
}

template <int kChunks, int R>
[[gnu::always_inline]] inline void accumulate_values(float* const (&acc)[R], const float* const (&weights)[R],
                                                     const float* values, int chunks) {
    constexpr int kGroup = R == 1 ? 8 : 4; // chunks per pass: 8 accumulators
    if constexpr (kChunks != 0) {
        constexpr int kWhole = kChunks / kGroup * kGroup, kRest = kChunks % kGroup;
#pragma GCC unroll 4
        for (int c = 0; c < kWhole; c += kGroup)
            accumulate_chunks<R, kGroup>(acc, weights, values, 8 * kChunks, 8 * c);
        if constexpr (kRest != 0) accumulate_chunks<R, kRest>(acc, weights, values, 8 * kChunks, 8 * kWhole);
    } else {
        const int64_t row = 8 * static_cast<int64_t>(chunks);
        int c = 0;
        for (; c + 4 <= chunks; c += 4)
            accumulate_chunks<R, 4>(acc, weights, values, row, 8 * c);
        for (; c < chunks; ++c)
            accumulate_chunks<R, 1>(acc, weights, values, row, 8 * c);
    }
}

// One query row's online softmax: its running maximum and the sum of its weights, 8 lanes that
// are added at the end.
struct RowSoftmax {
    float max;
    __m256 sum;
};

// cap * tanh(score / cap) for 8 scores, tanh(x) = sign(x) (1 - 2 / (e^2|x| + 1)): within ~1e-7
// of tanh absolutely (the cancellation near 0 costs relative, not absolute, accuracy), which
// is what a softmax is sensitive to.
[[gnu::always_inline]] inline __m256 soft_cap(__m256 scores, float cap) {
    const __m256 sign_bit = _mm256_set1_ps(-0.0f);
    const __m256 x = _mm256_mul_ps(scores, _mm256_set1_ps(1.0f / cap));
    const __m256 magnitude = _mm256_andnot_ps(sign_bit, x);
    const __m256 e = exp_f32x8(_mm256_add_ps(magnitude, magnitude));
    const __m256 one = _mm256_set1_ps(1.0f);
    const __m256 t = _mm256_sub_ps(one, _mm256_div_ps(_mm256_set1_ps(2.0f), _mm256_add_ps(e, one)));
    return _mm256_mul_ps(_mm256_or_ps(t, _mm256_and_ps(sign_bit, x)), _mm256_set1_ps(cap));
}

// One row's scores of a block, of which it sees lanes [skipped, valid) (skipped: keys before
// its sliding window), to its weights: the new maximum (rescaling what came before when it
// rises), then exp(score - max).
[[gnu::always_inline]] inline __m256 block_weights(__m256 scores, int valid, int chunks, RowSoftmax& row,
                                                   float* acc, int skipped = 0) {
    if (valid < kKeyBlock) {
        const __m256 beyond = _mm256_castsi256_ps(
            _mm256_cmpgt_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(valid - 1)));
        scores = _mm256_blendv_ps(scores, _mm256_set1_ps(-INFINITY), beyond);
    }
    if (skipped > 0) {
        const __m256 before = _mm256_castsi256_ps(
            _mm256_cmpgt_epi32(_mm256_set1_epi32(skipped), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)));
        scores = _mm256_blendv_ps(scores, _mm256_set1_ps(-INFINITY), before);
    }
    const float block_max = _mm256_cvtss_f32(max_of_lanes(scores));
    if (block_max > row.max) {
        if (row.max != -INFINITY) { // otherwise there is nothing to rescale yet
            const __m256 rescale = exp_f32x8(_mm256_set1_ps(row.max - block_max));
            row.sum = _mm256_mul_ps(row.sum, rescale);
            for (int c = 0; c < chunks; ++c)
                _mm256_store_ps(acc + 8 * c, _mm256_mul_ps(_mm256_load_ps(acc + 8 * c), rescale));
        }
        row.max = block_max;
    }
    // While every score so far is -inf, the weights are exp(-inf) = 0, not exp(-inf - -inf).
    const float shift = row.max == -INFINITY ? 0.0f : row.max;
    const __m256 weights = exp_f32x8(_mm256_sub_ps(scores, _mm256_set1_ps(shift)));
    row.sum = _mm256_add_ps(row.sum, weights);
    return weights;
}

// kLimited: the tile has a sliding window or soft-capping (t.limits); the plain instances
// compile without a trace of either.
template <int kChunks, bool kLimited> void attend_tile(const Tile& t) {
    const int chunks = kChunks != 0 ? kChunks : static_cast<int>((t.head_dim + 7) / 8);
    const int64_t padded = 8 * static_cast<int64_t>(chunks);
    const int64_t rows = t.n_heads * t.n_positions;
    const int64_t pass_rows = std::clamp<int64_t>(kPassFloats / padded, 1, kMaxPassRows);
    alignas(32) float query[kPassFloats > kMaxAttentionHeadDim ? kPassFloats : kMaxAttentionHeadDim];
    alignas(32) float acc[sizeof query / sizeof(float)];
    alignas(32) float key_block[kKeyBlock * kMaxAttentionHeadDim];
    alignas(32) float value_block[kKeyBlock * kMaxAttentionHeadDim];
    RowSoftmax softmax[kMaxPassRows];
    int64_t keys_seen[kMaxPassRows];
    int64_t first_key[kMaxPassRows];                    // the first key in the row's window (kLimited)
    alignas(32) float weights[kMaxPassRows][kKeyBlock]; // a block's scores, then its weights
    const auto offset = [&t](int64_t r) {
        return static_cast<size_t>(r / t.n_heads) * t.position_stride +
               static_cast<size_t>(r % t.n_heads) * t.head_stride;
    };
    for (int64_t first_row = 0; first_row < rows; first_row += pass_rows) {
        const int64_t n_rows = std::min(pass_rows, rows - first_row);
        for (int64_t r = 0; r < n_rows; ++r) {
            float* row_query = query + r * padded;
            std::memcpy(row_query, t.q + offset(first_row + r),
                        static_cast<size_t>(t.head_dim) * sizeof(float));
            std::fill(row_query + t.head_dim, row_query + padded, 0.0f);
            std::fill(acc + r * padded, acc + (r + 1) * padded, 0.0f);
            softmax[r] = {-INFINITY, _mm256_setzero_ps()};
            keys_seen[r] = t.n_keys + (first_row + r) / t.n_heads;
            if constexpr (kLimited)
                first_key[r] = t.limits.window > 0 ? std::max<int64_t>(0, keys_seen[r] - t.limits.window) : 0;
        }
        const int64_t pass_keys = keys_seen[n_rows - 1]; // rows go position by position
        int64_t first_active = 0;                        // rows before it have seen all their keys
        // Blocks stay multiples of 8 from key 0 (a row's bits do not depend on its tile); those
        // before the first row's window are skipped (the first row's window starts earliest).
        int64_t first_block = 0;
        if constexpr (kLimited) first_block = first_key[0] / kKeyBlock * kKeyBlock;
        for (int64_t first = first_block; first < pass_keys; first += kKeyBlock) {
            const int in_block = static_cast<int>(std::min<int64_t>(kKeyBlock, pass_keys - first));
            prefetch_kv_rows(t.keys, t.values, first + kPrefetchKeys, kKeyBlock, pass_keys);
            for (int j = 0; j < kKeyBlock; ++j) {
                float* key_row = key_block + j * padded;
                float* value_row = value_block + j * padded;
                if (j < in_block) {
                    widen_kv_row<kChunks>(t.keys, first + j, t.head_dim, chunks, key_row);
                    widen_kv_row<kChunks>(t.values, first + j, t.head_dim, chunks, value_row);
                } else { // past the last key: weight 0 times value 0 leaves the sums as they are
                    std::fill(key_row, key_row + padded, 0.0f);
                    std::fill(value_row, value_row + padded, 0.0f);
                }
            }
            while (keys_seen[first_active] <= first)
                ++first_active;
            // Three passes over the rows, each a chain of dependent steps per row (dot products
            // -> reduction; maximum -> exp; value FMAs) that the other rows' chains overlap.
            const __m256 scale = _mm256_set1_ps(t.scale);
            int64_t r = first_active;
            for (; r + 1 < n_rows; r += 2) {
                __m256 scores[2];
                block_scores<kChunks, 2>({query + r * padded, query + (r + 1) * padded}, key_block, chunks,
                                         scores);
                _mm256_store_ps(weights[r], _mm256_mul_ps(scores[0], scale));
                _mm256_store_ps(weights[r + 1], _mm256_mul_ps(scores[1], scale));
            }
            if (r < n_rows) {
                __m256 scores[1];
                block_scores<kChunks, 1>({query + r * padded}, key_block, chunks, scores);
                _mm256_store_ps(weights[r], _mm256_mul_ps(scores[0], scale));
            }
            if constexpr (kLimited)
                if (t.limits.softcap > 0)
                    for (r = first_active; r < n_rows; ++r)
                        _mm256_store_ps(weights[r], soft_cap(_mm256_load_ps(weights[r]), t.limits.softcap));
            for (r = first_active; r < n_rows; ++r) {
                const int valid = static_cast<int>(std::min<int64_t>(kKeyBlock, keys_seen[r] - first));
                int skipped = 0;
                if constexpr (kLimited)
                    skipped = static_cast<int>(std::clamp<int64_t>(first_key[r] - first, 0, kKeyBlock));
                _mm256_store_ps(weights[r], block_weights(_mm256_load_ps(weights[r]), valid, chunks,
                                                          softmax[r], acc + r * padded, skipped));
            }
            for (r = first_active; r + 1 < n_rows; r += 2)
                accumulate_values<kChunks, 2>({acc + r * padded, acc + (r + 1) * padded},
                                              {weights[r], weights[r + 1]}, value_block, chunks);
            if (r < n_rows)
                accumulate_values<kChunks, 1>({acc + r * padded}, {weights[r]}, value_block, chunks);
        }
        for (int64_t r = 0; r < n_rows; ++r) {
            const float sum = sum_of_lanes(softmax[r].sum);
            float* row_out = t.out + offset(first_row + r);
            const float* row_acc = acc + r * padded;
            const int whole = static_cast<int>(t.head_dim / 8);
            for (int c = 0; c < whole; ++c)
                _mm256_storeu_ps(row_out + 8 * c,
                                 _mm256_div_ps(_mm256_load_ps(row_acc + 8 * c), _mm256_set1_ps(sum)));
            for (int64_t d = 8 * whole; d < t.head_dim; ++d)
                row_out[d] = row_acc[d] / sum;
        }
    }
}

template <bool kLimited> void attend_tile_of_head_size(const Tile& t) {
    switch (t.head_dim) { // the common head sizes with the loops unrolled; the rest at run time
    case 32:
        return attend_tile<4, kLimited>(t);
    case 64:
        return attend_tile<8, kLimited>(t);
    case 96:
        return attend_tile<12, kLimited>(t);
    case 128:
        return attend_tile<16, kLimited>(t);
    default:
        return attend_tile<0, kLimited>(t);
    }
}

} // namespace

void attend(const float* q, float* out, size_t head_stride, size_t position_stride, int64_t n_heads,
            int64_t n_positions, KvRows keys, KvRows values, int64_t n_keys, int64_t head_dim, float scale,
            AttentionLimits limits) {
    const Tile tile{q,    out,    head_stride, position_stride, n_heads, n_positions,
                    keys, values, n_keys,      head_dim,        scale,   limits};
    if (limits.window > 0 || limits.softcap > 0)
        attend_tile_of_head_size<true>(tile);
    else
        attend_tile_of_head_size<false>(tile);
}

void expf_8(const float* in, float* out) {
    _mm256_storeu_ps(out, exp_f32x8(_mm256_loadu_ps(in)));
}

} // namespace hearth::kernels::avx2
