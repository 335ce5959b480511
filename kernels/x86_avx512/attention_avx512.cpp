// Attention over an F16, Q8_0 or Q4_0 KV cache in F32 with AVX-512 (kernel_table.h's AttendFn),
// for head sizes that are multiples of 8 (the table gives the others to the AVX2 kernel). Tiles of
// several positions (prefill) put query rows side by side, as below; a tile of one position
// (decode) puts keys side by side instead (attend_position, further down), and so does a verify
// pass's tile of several positions (attend_as_decode), each row with decode's bits.
//
// The FMA units bound the work (2 * head_dim multiply-adds per key and row), so the layout keeps
// everything else off them: no horizontal sums and no shuffles per key and row. Query rows go
// side by side in a vector, 16 to a 512-bit one (8 to a 256-bit one for a tile of 8 rows or
// fewer). Keys come in blocks of 16, widened to F32 once for all the rows of the tile. Per block:
// - the scores: per key, one vector of the rows' scores, chains of FMAs over the quarters of the
//   head's elements added pairwise, each element of the key broadcast from L1 (8 keys at a
//   time, two quarters side by side: 16 chains overlap and no partial sum leaves the
//   registers). The queries carry the scale times log2 e, so that scores come in powers of 2
//   and the softmax needs 2^x, cheaper than e^x (with soft-capping the queries carry the scale
//   alone and the capped scores are multiplied by log2 e);
// - the softmax, lane for lane: the new maximum, what came before rescaled by
//   2^(old max - new max), the weights 2^(score - max), summed in one fixed tree (key j + 8
//   onto j, then j + 4, j + 2, j + 1) onto the running sum with one fma;
// - the values: the rows' outputs transposed (element d of the rows in one vector), each value
//   element broadcast times the key's weights, accumulated in key order.
// Each lane does the same operations in the same order whatever the vector width, the tile and
// the other lanes, so a row's result depends only on its query and the keys it sees: blocks are
// multiples of 16 from key 0, and a block a row sees none of changes nothing of that row.
#include "kernels/block_formats.h"
#include "kernels/fp16.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/kv_prefetch.h"
#include "kernels/x86_avx512/attention_rows.h"
#include "kernels/x86_avx512/avx512_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <immintrin.h>
#include <type_traits>

namespace hearth::kernels::avx512 {
namespace {

constexpr int kBlock = 16; // keys per block

// Floats of transposed queries one pass keeps (and as many of outputs): 4 groups of 16 rows of
// 64, 2 of 128. A group of the largest head size takes a pass alone.
constexpr int64_t kPassFloats = 4096;
constexpr int64_t kGroupFloatsMax = 16 * kMaxAttentionHeadDim;
constexpr int64_t kBufferFloats = kPassFloats > kGroupFloatsMax ? kPassFloats : kGroupFloatsMax;

// --- Widening one block of keys or values to F32 rows of head_dim ---------------------------

// Int8 quants times their block's scale: one rounding, as in the scalar dequantizer.
inline __m512 widen_quants(__m128i quants, __m512 scale) {
    return _mm512_mul_ps(_mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(quants)), scale);
}

// n F16 values (a multiple of 8) to F32.
void widen_f16(const uint16_t* halves, int64_t n, float* dst) {
    int64_t c = 0;
    for (; c + 16 <= n; c += 16)
        _mm512_storeu_ps(dst + c,
                         _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(halves + c))));
    if (c < n)
        _mm256_storeu_ps(dst + c,
                         _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(halves + c))));
}

void widen_row(const KvRows& rows, int64_t j, int64_t head_dim, float* dst) {
    const char* row = static_cast<const char*>(rows.data) + static_cast<size_t>(j) * rows.row_bytes;
    switch (rows.type) {
    case TensorType::Q8_0: {
        const auto* blocks = reinterpret_cast<const BlockQ8_0*>(row);
        for (int64_t b = 0; b < head_dim / 32; ++b, dst += 32) {
            const __m512 scale = _mm512_set1_ps(fp16_to_fp32(blocks[b].d));
            for (int half = 0; half < 2; ++half)
                _mm512_storeu_ps(
                    dst + 16 * half,
                    widen_quants(_mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks[b].qs) + half),
                                 scale));
        }
        return;
    }
    case TensorType::Q4_0: { // element i: the low nibble of byte i, element i + 16 the high one, each minus 8
        const auto* blocks = reinterpret_cast<const BlockQ4_0*>(row);
        const __m128i low_nibbles = _mm_set1_epi8(0x0f), eight = _mm_set1_epi8(8);
        for (int64_t b = 0; b < head_dim / 32; ++b, dst += 32) {
            const __m512 scale = _mm512_set1_ps(fp16_to_fp32(blocks[b].d));
            const __m128i packed = _mm_loadu_si128(reinterpret_cast<const __m128i*>(blocks[b].qs));
            const __m128i low = _mm_sub_epi8(_mm_and_si128(packed, low_nibbles), eight);
            const __m128i high = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(packed, 4), low_nibbles), eight);
            _mm512_storeu_ps(dst, widen_quants(low, scale));
            _mm512_storeu_ps(dst + 16, widen_quants(high, scale));
        }
        return;
    }
    default:
        widen_f16(reinterpret_cast<const uint16_t*>(row), head_dim, dst);
    }
}

// F16 rows of head_dim without gaps between them: the KV cache's own layout.
bool gapless_f16(const KvRows& rows, int64_t head_dim) {
    return rows.type == TensorType::F16 && rows.row_bytes == static_cast<size_t>(head_dim) * sizeof(uint16_t);
}

// Rows first .. first + 15 to dst (16 rows of head_dim); rows from `present` on are zeros (past
// the last key: weight 0 times value 0 leaves every sum as it is). F16 rows without gaps
// between them (the cache's layout) widen as one run, with no call or type switch per row.
void widen_block(const KvRows& rows, int64_t first, int present, int64_t head_dim, float* dst) {
    if (gapless_f16(rows, head_dim)) {
        const int64_t n = present * head_dim;
        widen_f16(static_cast<const uint16_t*>(rows.data) + static_cast<size_t>(first) * head_dim, n, dst);
        std::fill(dst + n, dst + kBlock * head_dim, 0.0f);
        return;
    }
    for (int j = 0; j < kBlock; ++j) {
        float* row = dst + j * head_dim;
        if (j < present)
            widen_row(rows, first + j, head_dim, row);
        else
            std::fill(row, row + head_dim, 0.0f);
    }
}

template <class L, bool kLimited>
RowGroup<L> start_group(const Tile& t, int64_t first_row, float* transposed_queries, float* outputs) {
    std::fill(outputs, outputs + t.head_dim * L::kLanes, 0.0f);
    return start_rows<L>(t, first_row, kLimited, transposed_queries);
}

// One block of 16 keys for one group: scores, softmax, values. kHeadDim: the head size, or 0
// for one known only at run time (with it known, each key's row is an offset in the
// instruction, not one more register).
template <class L, bool kLimited, int kHeadDim>
[[gnu::always_inline]] inline void group_block(const Tile& t, RowGroup<L>& g, int64_t first,
                                               const float* key_block, const float* value_block,
                                               const float* transposed_queries, float* outputs) {
    using V = typename L::V;
    constexpr int kLanes = L::kLanes;
    const int64_t head_dim = kHeadDim != 0 ? kHeadDim : t.head_dim;
    // Each score in 4 chains over quarters of the head, added pairwise: the error of a chain of
    // a quarter of the products, not of all of them (one chain over the whole head doubles the
    // error of peaked softmaxes). 8 keys at a time, quarters 0 and 1 side by side, then 2 and 3:
    // 16 chains in flight beside 2 queries and the block's scores, of which a few spill, where
    // all 16 keys' 4 quarters at once spilled 48 partial sums per block.
    V blocks[1][kBlock];
    V(&s)[kBlock] = blocks[0];
    const int64_t quarter_size = head_dim / 4;
#pragma GCC unroll 2
    for (int keys = 0; keys < kBlock; keys += 8) {
#pragma GCC unroll 2
        for (int half = 0; half < 2; ++half) {
            V even[8], odd[8]; // quarters 2 * half and 2 * half + 1
#pragma GCC unroll 8
            for (int j = 0; j < 8; ++j)
                even[j] = odd[j] = L::zero();
            const int64_t from = 2 * half * quarter_size;
#pragma GCC unroll 2
            for (int64_t d = from; d < from + quarter_size; ++d) {
                const V q0 = L::load(transposed_queries + d * kLanes);
                const V q1 = L::load(transposed_queries + (d + quarter_size) * kLanes);
#pragma GCC unroll 8
                for (int j = 0; j < 8; ++j) {
                    even[j] = L::fmadd(L::set1(key_block[(keys + j) * head_dim + d]), q0, even[j]);
                    odd[j] =
                        L::fmadd(L::set1(key_block[(keys + j) * head_dim + d + quarter_size]), q1, odd[j]);
                }
            }
#pragma GCC unroll 8
            for (int j = 0; j < 8; ++j)
                s[keys + j] =
                    half == 0 ? L::add(even[j], odd[j]) : L::add(s[keys + j], L::add(even[j], odd[j]));
        }
    }
    const V rescale = softmax_block<L, 1>(t, g, first, kLimited, blocks);

    // outputs[d][lane] = outputs[d][lane] * rescale, then + value[j][d] * weight[j] for each key.
    const bool rescaled = L::not_equal(rescale, L::set1(1.0f)) != 0;
    constexpr int kElements = 8; // output vectors in registers at a time, beside the 16 weights
    for (int64_t d = 0; d < head_dim; d += kElements) {
        V o[kElements];
#pragma GCC unroll 8
        for (int i = 0; i < kElements; ++i) {
            o[i] = L::load(outputs + (d + i) * kLanes);
            if (rescaled) o[i] = L::mul(o[i], rescale);
        }
#pragma GCC unroll 16
        for (int j = 0; j < kBlock; ++j)
#pragma GCC unroll 8
            for (int i = 0; i < kElements; ++i)
                o[i] = L::fmadd(L::set1(value_block[j * head_dim + d + i]), s[j], o[i]);
#pragma GCC unroll 8
        for (int i = 0; i < kElements; ++i)
            L::store(outputs + (d + i) * kLanes, o[i]);
    }
}

template <class L, bool kLimited, int kHeadDim> void attend_tile(const Tile& t) {
    constexpr int kLanes = L::kLanes;
    const int64_t rows = t.rows(), head_dim = t.head_dim;
    const int64_t groups = (rows + kLanes - 1) / kLanes;
    const int64_t group_floats = kLanes * head_dim;
    // Heads of 8 would fit twice the groups a pass keeps track of: as many as it has room for.
    constexpr int64_t kMostGroups = kPassFloats / (kLanes * 16);
    const int64_t groups_per_pass = std::clamp<int64_t>(kPassFloats / group_floats, 1, kMostGroups);
    alignas(64) float transposed_queries[kBufferFloats];
    alignas(64) float outputs[kBufferFloats];
    alignas(64) float key_block[kBlock * kMaxAttentionHeadDim];
    alignas(64) float value_block[kBlock * kMaxAttentionHeadDim];
    RowGroup<L> pass[kMostGroups];
    for (int64_t first_group = 0; first_group < groups; first_group += groups_per_pass) {
        const int64_t n_groups = std::min(groups_per_pass, groups - first_group);
        int64_t pass_keys = 0, first_block = INT64_MAX;
        for (int64_t i = 0; i < n_groups; ++i) {
            pass[i] =
                start_group<L, kLimited>(t, (first_group + i) * kLanes, transposed_queries + i * group_floats,
                                         outputs + i * group_floats);
            pass_keys = std::max(pass_keys, pass[i].most_keys);
            first_block = std::min(first_block, pass[i].earliest_window / kBlock * kBlock);
        }
        for (int64_t first = first_block; first < pass_keys; first += kBlock) {
            const int present = static_cast<int>(std::min<int64_t>(kBlock, pass_keys - first));
            widen_block(t.keys, first, present, head_dim, key_block);
            widen_block(t.values, first, present, head_dim, value_block);
            for (int64_t i = 0; i < n_groups; ++i) {
                RowGroup<L>& g = pass[i];
                // Blocks a group's rows see none of change nothing of them: skip those.
                if (first >= g.most_keys) continue;
                if constexpr (kLimited)
                    if (first + kBlock <= g.earliest_window) continue;
                group_block<L, kLimited, kHeadDim>(t, g, first, key_block, value_block,
                                                   transposed_queries + i * group_floats,
                                                   outputs + i * group_floats);
            }
        }
        for (int64_t i = 0; i < n_groups; ++i) {
            const RowGroup<L>& g = pass[i];
            alignas(64) float sums[kLanes];
            L::store(sums, g.sum);
            const float* group_outputs = outputs + i * group_floats;
            for (int lane = 0; lane < kLanes && g.first_row + lane < rows; ++lane) {
                float* out = t.out + t.offset(g.first_row + lane);
                for (int64_t d = 0; d < head_dim; ++d)
                    out[d] = group_outputs[d * kLanes + lane] / sums[lane];
            }
        }
    }
}

// Tiles of 8 rows or fewer (decode) in 256-bit vectors, where 16 lanes would be half empty.
template <bool kLimited, int kHeadDim> void attend_tile(const Tile& t) {
    if (t.rows() > Lanes8::kLanes)
        attend_tile<Lanes16, kLimited, kHeadDim>(t);
    else
        attend_tile<Lanes8, kLimited, kHeadDim>(t);
}

// --- One position (decode): the keys side by side ----------------------------------------
//
// A decode tile has one row per query head of the group (1 to 8 in the models we run), too few
// to fill the lanes with rows. Here each row's 16 scores of a block come as one vector instead:
// per key, FMAs along the head's elements (16 at a time, each key shared by all the rows of a
// pass), then the 16 keys' partial vectors folded into one vector of 16 scores by a fixed tree
// of shuffles and adds; the softmax takes the block's 16 weights in one 2^x; the values go along
// the head's elements too, each weight broadcast, each value vector shared by the pass's rows.
// A row's operations and their order depend only on its query and the keys it sees, never on
// the other rows: the same bits in any tile of one position.
// The rows go in passes of up to 8, a kernel instance per row count, each key and value vector
// widened once per pass and used by all its rows; an F16 cache's full blocks are widened in
// registers straight from the cache, with no copy in L1. Partial blocks, quantized caches and
// head sizes known only at run time go through a widened copy, with the same operations from
// there.

constexpr int kDecodeRows = 8; // rows of a pass: their values' accumulators fill 16 registers
// A verify pass's tiles (attend_as_decode) go 4 rows at a time: passes of 8 of 2-4 positions
// took 1.2-1.4x the time of passes of 4 (Llama-3.2-1B's groups of 4 heads of 64, 256 keys).
constexpr int kVerifyRows = 4;
// In decode a layer's keys and values come from memory (the weights streamed past since the
// last token evicted them): the rows 2 blocks ahead are asked for in L1 (kv_prefetch.h).
constexpr int64_t kDecodePrefetchKeys = 2 * kBlock;

// Key or value j's chunk c (16 elements) of a block, as F32: from a widened block, or straight
// from an F16 cache's rows.
struct WidenedRows {
    const float* block;
    int64_t head_dim;
    [[gnu::always_inline]] __m512 operator()(int j, int64_t c) const {
        return _mm512_load_ps(block + j * head_dim + 16 * c);
    }
};
struct F16Rows {
    const uint16_t* block;
    int64_t head_dim;
    [[gnu::always_inline]] __m512 operator()(int j, int64_t c) const {
        return _mm512_cvtph_ps(
            _mm256_loadu_si256(reinterpret_cast<const __m256i*>(block + j * head_dim + 16 * c)));
    }
};

// Lanes 0..3 of each 128-bit quarter of the result: the sums of p[0..3] over that quarter.
[[gnu::always_inline]] inline __m512 fold_4_keys(const __m512 (&p)[4]) {
    const __m512 p01 = _mm512_add_ps(_mm512_unpacklo_ps(p[0], p[1]), _mm512_unpackhi_ps(p[0], p[1]));
    const __m512 p23 = _mm512_add_ps(_mm512_unpacklo_ps(p[2], p[3]), _mm512_unpackhi_ps(p[2], p[3]));
    return _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(_mm512_castps_pd(p01), _mm512_castps_pd(p23))),
                         _mm512_castpd_ps(_mm512_unpackhi_pd(_mm512_castps_pd(p01), _mm512_castps_pd(p23))));
}

// Two fold_4_keys results (keys a, keys b) to one: quarters 0..1 keys a summed over the
// quarters' halves, 2..3 keys b.
[[gnu::always_inline]] inline __m512 fold_halves(__m512 a, __m512 b) {
    return _mm512_add_ps(_mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(2, 0, 2, 0)),
                         _mm512_shuffle_f32x4(a, b, _MM_SHUFFLE(3, 1, 3, 1)));
}

// The 16 scores of a block for R rows (queries R rows of head_dim): lane j of scores[r] is
// query r . key j. Row r's partial vector of key j: an FMA chain over the head's chunks in
// order. Keys are widened a few at a time (as many as 16 registers hold) and used by every row.
template <int R, int kHeadDim, class Rows>
[[gnu::always_inline]] inline void decode_scores(const float* query, Rows keys, int64_t head_dim,
                                                 __m512 (&scores)[R]) {
    if constexpr (kHeadDim != 0) head_dim = kHeadDim;
    constexpr int kChunks = kHeadDim / 16;
    constexpr int kKeysAtOnce = kChunks <= 4 ? 4 : kChunks <= 8 ? 2 : 1;
    __m512 quads[R][4]; // per 4 keys: the fold of their partial vectors
#pragma GCC unroll 4
    for (int quad = 0; quad < 4; ++quad) {
        __m512 p[R][4];
#pragma GCC unroll 4
        for (int j0 = 0; j0 < 4; j0 += kKeysAtOnce) {
            if constexpr (kChunks != 0) {
                __m512 k[kKeysAtOnce][kChunks];
#pragma GCC unroll 4
                for (int jj = 0; jj < kKeysAtOnce; ++jj)
#pragma GCC unroll 16
                    for (int c = 0; c < kChunks; ++c)
                        k[jj][c] = keys(4 * quad + j0 + jj, c);
#pragma GCC unroll 8
                for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
                    for (int jj = 0; jj < kKeysAtOnce; ++jj)
                        p[r][j0 + jj] = _mm512_setzero_ps();
#pragma GCC unroll 16
                    for (int c = 0; c < kChunks; ++c) {
                        const __m512 q = _mm512_load_ps(query + r * kHeadDim + 16 * c);
#pragma GCC unroll 4
                        for (int jj = 0; jj < kKeysAtOnce; ++jj)
                            p[r][j0 + jj] = _mm512_fmadd_ps(k[jj][c], q, p[r][j0 + jj]);
                    }
                }
            } else { // the head size known at run time: the 4 keys' chunks loaded per row
#pragma GCC unroll 8
                for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
                    for (int j = 0; j < 4; ++j)
                        p[r][j] = _mm512_setzero_ps();
                    for (int64_t c = 0; c < head_dim / 16; ++c) {
                        const __m512 q = _mm512_load_ps(query + r * head_dim + 16 * c);
#pragma GCC unroll 4
                        for (int j = 0; j < 4; ++j)
                            p[r][j] = _mm512_fmadd_ps(keys(4 * quad + j, c), q, p[r][j]);
                    }
                }
            }
        }
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r)
            quads[r][quad] = fold_4_keys(p[r]);
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
        scores[r] = fold_halves(fold_halves(quads[r][0], quads[r][1]), fold_halves(quads[r][2], quads[r][3]));
}

// Row r of acc (R rows of head_dim) += the sum over the block's keys j, in order, of
// weights[r][j] * value row j. Each value vector is widened once and used by every row.
template <int R, int kHeadDim, class Rows>
[[gnu::always_inline]] inline void decode_values(float* acc, const float (*weights)[kBlock], Rows values,
                                                 int64_t head_dim) {
    if constexpr (kHeadDim != 0) head_dim = kHeadDim;
    constexpr int kChunks = R <= 4 ? 4 : 2; // accumulators in registers: at most 16
    for (int64_t c0 = 0; c0 < head_dim / 16; c0 += kChunks) {
        const int chunks = static_cast<int>(std::min<int64_t>(kChunks, head_dim / 16 - c0));
        __m512 a[R][kChunks];
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
            for (int i = 0; i < kChunks; ++i)
                if (i < chunks) a[r][i] = _mm512_load_ps(acc + r * head_dim + 16 * (c0 + i));
#pragma GCC unroll 16
        for (int j = 0; j < kBlock; ++j)
#pragma GCC unroll 4
            for (int i = 0; i < kChunks; ++i)
                if (i < chunks) {
                    const __m512 v = values(j, c0 + i);
#pragma GCC unroll 8
                    for (int r = 0; r < R; ++r)
                        a[r][i] = _mm512_fmadd_ps(v, _mm512_set1_ps(weights[r][j]), a[r][i]);
                }
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
            for (int i = 0; i < kChunks; ++i)
                if (i < chunks) _mm512_store_ps(acc + r * head_dim + 16 * (c0 + i), a[r][i]);
    }
}

// The 16 lanes' sum in _mm512_reduce_add_ps's order (halves added, then quarters, then pairs),
// once per row, in scalars: inlined here, that intrinsic trips GCC 12's false uninitialized
// warning (bug 105593).
inline float sum_lanes(__m512 x) {
    alignas(64) float lanes[16];
    _mm512_store_ps(lanes, x);
    for (int width = 8; width >= 1; width /= 2)
        for (int i = 0; i < width; ++i)
            lanes[i] = lanes[i + width] + lanes[i];
    return lanes[0];
}

struct DecodeRow {
    float max;  // the running maximum (in powers of 2), -inf before any key
    __m512 sum; // of the weights, lane by lane
};

// Rows first_row .. first_row + R - 1 of a decode tile. The limits (window, soft cap) are read
// at run time: a few operations per block, where instances of their own doubled the compile time.
// A tile of several positions (a verify pass's, attend_as_decode) gives each row its own keys:
// the blocks span what any of the pass's rows sees, and a row's lanes outside its own keys weigh
// exactly 0 (fma(v, 0, acc) is acc), so its bits are those of a tile of its one position.
template <int R, int kHeadDim> void attend_position_rows(const Tile& t, int64_t first_row) {
    const int64_t head_dim = kHeadDim != 0 ? kHeadDim : t.head_dim;
    int64_t row_keys[R], row_first_key[R]; // each row's keys and the first in its window
    for (int r = 0; r < R; ++r) {
        row_keys[r] = t.keys_seen(first_row + r);
        row_first_key[r] = t.first_key(first_row + r); // 0 without a window
    }
    const int64_t n_keys = *std::max_element(row_keys, row_keys + R);
    const int64_t first_key = *std::min_element(row_first_key, row_first_key + R);
    const bool capped = t.limits.softcap > 0;
    const float factor = capped ? t.scale : t.scale * kLog2E;
    // The F16 cache's layout (rows without gaps) is read in place; other rows are widened.
    const bool in_place = kHeadDim != 0 && gapless_f16(t.keys, head_dim) && gapless_f16(t.values, head_dim);
    const auto* keys_f16 = static_cast<const uint16_t*>(t.keys.data);
    const auto* values_f16 = static_cast<const uint16_t*>(t.values.data);
    alignas(64) float query[kDecodeRows * kMaxAttentionHeadDim];
    alignas(64) float acc[kDecodeRows * kMaxAttentionHeadDim];
    alignas(64) float key_block[kBlock * kMaxAttentionHeadDim];
    alignas(64) float value_block[kBlock * kMaxAttentionHeadDim];
    alignas(64) float weights[R][kBlock];
    DecodeRow rows[R];
    for (int r = 0; r < R; ++r) {
        const float* q = t.q + t.offset(first_row + r);
        for (int64_t d = 0; d < head_dim; ++d)
            query[r * head_dim + d] = q[d] * factor;
        std::fill(acc + r * head_dim, acc + (r + 1) * head_dim, 0.0f);
        rows[r] = {-INFINITY, _mm512_setzero_ps()};
    }
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    for (int64_t first = first_key / kBlock * kBlock; first < n_keys; first += kBlock) {
        const int present = static_cast<int>(std::min<int64_t>(kBlock, n_keys - first));
        prefetch_kv_rows(t.keys, t.values, first + kDecodePrefetchKeys, kBlock, n_keys);
        const bool direct = in_place && present == kBlock;
        if (!direct) {
            widen_block(t.keys, first, present, head_dim, key_block);
            widen_block(t.values, first, present, head_dim, value_block);
        }
        // Lanes past the row's last key or before its window weigh nothing.
        const __m512i key = _mm512_add_epi32(lane, _mm512_set1_epi32(static_cast<int32_t>(first)));
        __m512 scores[R];
        if (direct)
            decode_scores<R, kHeadDim>(query, F16Rows{keys_f16 + first * head_dim, head_dim}, head_dim,
                                       scores);
        else
            decode_scores<R, kHeadDim>(query, WidenedRows{key_block, head_dim}, head_dim, scores);
        for (int r = 0; r < R; ++r) {
            __mmask16 seen =
                _mm512_cmplt_epi32_mask(key, _mm512_set1_epi32(static_cast<int32_t>(row_keys[r])));
            if (first < row_first_key[r])
                seen &=
                    _mm512_cmpge_epi32_mask(key, _mm512_set1_epi32(static_cast<int32_t>(row_first_key[r])));
            __m512 x = scores[r];
            if (capped) x = _mm512_mul_ps(soft_cap<Lanes16>(x, t.limits.softcap), _mm512_set1_ps(kLog2E));
            x = _mm512_mask_blend_ps(seen, _mm512_set1_ps(-INFINITY), x);
            DecodeRow& row = rows[r];
            const float block_max = _mm512_reduce_max_ps(x);
            if (block_max > row.max) {
                if (row.max != -INFINITY) { // otherwise there is nothing to rescale yet
                    const __m512 rescale = exp2_f32x16(_mm512_set1_ps(row.max - block_max));
                    row.sum = _mm512_mul_ps(row.sum, rescale);
                    float* row_acc = acc + r * head_dim;
                    for (int64_t c = 0; c < head_dim; c += 16)
                        _mm512_store_ps(row_acc + c, _mm512_mul_ps(_mm512_load_ps(row_acc + c), rescale));
                }
                row.max = block_max;
            }
            // While every score so far is -inf, the weights are 2^(-inf - 0) = 0.
            const float shift = row.max == -INFINITY ? 0.0f : row.max;
            const __m512 w = exp2_f32x16(_mm512_sub_ps(x, _mm512_set1_ps(shift)));
            row.sum = _mm512_add_ps(row.sum, w);
            _mm512_store_ps(weights[r], w);
        }
        if (direct)
            decode_values<R, kHeadDim>(acc, weights, F16Rows{values_f16 + first * head_dim, head_dim},
                                       head_dim);
        else
            decode_values<R, kHeadDim>(acc, weights, WidenedRows{value_block, head_dim}, head_dim);
    }
    for (int r = 0; r < R; ++r) {
        const __m512 total = _mm512_set1_ps(sum_lanes(rows[r].sum));
        float* out = t.out + t.offset(first_row + r);
        for (int64_t c = 0; c < head_dim; c += 16)
            _mm512_storeu_ps(out + c, _mm512_div_ps(_mm512_load_ps(acc + r * head_dim + c), total));
    }
}

// Rows first_row .. first_row + rows - 1 (rows <= N) through the instance for their count.
template <int kHeadDim, int N> void attend_rows(const Tile& t, int64_t first_row, int64_t rows) {
    if constexpr (N > 1)
        if (rows < N) return attend_rows<kHeadDim, N - 1>(t, first_row, rows);
    attend_position_rows<N, kHeadDim>(t, first_row);
}

// The tile's rows (position by position) in passes, each pass a kernel for its row count: up to
// kMostRows at head sizes 64 and 128, 4 at others (the models with those have groups of 1 to 4;
// it keeps the kernels' compile time in bounds).
template <int kHeadDim, int kMostRows = kDecodeRows> void attend_position(const Tile& t) {
    constexpr int kPassRows = kHeadDim == 64 || kHeadDim == 128 ? kMostRows : 4;
    for (int64_t first_row = 0; first_row < t.rows(); first_row += kPassRows)
        attend_rows<kHeadDim, kPassRows>(t, first_row, std::min<int64_t>(kPassRows, t.rows() - first_row));
}

// run(std::integral_constant<int, kHeadDim>) for the common head sizes, whose rows are then
// constant offsets in the instructions; run(... 0) for the rest, sized at run time.
template <class Run> void with_head_dim(int64_t head_dim, Run run) {
    switch (head_dim) {
    case 64:
        return run(std::integral_constant<int, 64>{});
    case 128:
        return run(std::integral_constant<int, 128>{});
    case 256:
        return run(std::integral_constant<int, 256>{});
    default:
        return run(std::integral_constant<int, 0>{});
    }
}

// Every tile through the kernels a tile of one position takes (kAsDecode: a verify pass's
// positions, each row as decoding it would give it; the table's attention_as_decode), or tiles of
// several positions through the prefill kernels (the table's attention).
template <bool kAsDecode>
void attend_tiles(const float* q, float* out, size_t head_stride, size_t position_stride, int64_t n_heads,
                  int64_t n_positions, KvRows keys, KvRows values, int64_t n_keys, int64_t head_dim,
                  float scale, AttentionLimits limits) {
    const Tile tile{q,    out,    head_stride, position_stride, n_heads, n_positions,
                    keys, values, n_keys,      head_dim,        scale,   limits};
    const bool limited = limits.window > 0 || limits.softcap > 0;
    if (head_dim % 16 != 0) {
        // Head sizes of 16k + 8 (the vision tower's 72): rows side by side in every tile, also
        // of one position, whose keys-side-by-side kernel reads a head 16 elements at a time.
        // Only an F16 cache holds rows of such sizes (the quantized blocks hold 32).
        if (keys.type != TensorType::F16 || values.type != TensorType::F16)
            return avx2::attend(q, out, head_stride, position_stride, n_heads, n_positions, keys, values,
                                n_keys, head_dim, scale, limits);
        return limited ? attend_tile<true, 0>(tile) : attend_tile<false, 0>(tile);
    }
    with_head_dim(head_dim, [&](auto size) {
        constexpr int kHeadDim = decltype(size)::value;
        if (n_positions == 1)
            attend_position<kHeadDim>(tile);
        else if constexpr (kAsDecode)
            attend_position<kHeadDim, kVerifyRows>(tile);
        else
            limited ? attend_tile<true, kHeadDim>(tile) : attend_tile<false, kHeadDim>(tile);
    });
}

} // namespace

// GCC 12 reports the intrinsics' undefined source vectors as used uninitialized once inlined
// into a function this small (GCC bug 105593, fixed in GCC 13).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
void exp2_16(const float* in, float* out) {
    _mm512_storeu_ps(out, exp2_f32x16(_mm512_loadu_ps(in)));
}

void exp2_8(const float* in, float* out) {
    _mm256_storeu_ps(out, exp2_f32x8(_mm256_loadu_ps(in)));
}
#pragma GCC diagnostic pop

void add_attention_kernels(KernelTable& table) {
    // Head sizes of 8k: each row's elements in whole vectors of 16, or of 8 at the end.
    table.attention.put_first({{.name = "attend",
                                .backend = cpu(Isa::Avx512),
                                .guard = {.width_multiple = 8},
                                .fn = attend_tiles<false>}});
    table.attention_as_decode.put_first({{.name = "attend_as_decode",
                                          .backend = cpu(Isa::Avx512),
                                          .guard = {.width_multiple = 8},
                                          .fn = attend_tiles<true>}});
}

} // namespace hearth::kernels::avx512
