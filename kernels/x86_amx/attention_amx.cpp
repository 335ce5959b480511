// Prefill attention on AMX tiles (kernel_table.h's AttendFn) for tiles of several positions over
// an F16 cache; the table gives one position (decode), quantized caches and head sizes that are
// not multiples of 16 or exceed kLargestHead to the AVX-512 tier's kernel.
//
// Why: in prefill at depth the AVX-512 kernel is bound by its FMAs (2 * head_dim per key and
// row). A TDPBF16PS does 8192 multiply-adds at once, where two FMA ports do 32 a cycle, even
// with the products below (5 per pair of operands for the scores, 3 for the values' sums), the
// softmax in zmm and the operands' conversions.
//
// Near exact, not BF16: each operand is split into BF16 pieces. An F16 key or value is exactly the
// sum of two (11 significant bits), an F32 query the sum of three (the top 8 bits of its
// significand, the next 8, the last 8). A product of pieces is exact in F32 and the tiles
// accumulate in F32, so a score is the F32 sum of the products of all pairs of pieces but the
// smallest (query low x key low, below 2^-24 of the product): as close to exact as the AVX-512
// kernel's F32 FMAs, in another order. Scores are amplified into the weights (an error of e in a
// score, in powers of 2, is ln 2 x e relative in its weight), so they keep every bit. A softmax
// weight (0 to 1) is cut to its top 16 bits, two pieces, and the values' sums take weight high x
// value high, high x low and low x high: each term within 2^-15 of itself, the outputs within 2^-15
// of the values' scale (test_attention_kernels), 16 times finer than the F16 cache's own rounding
// of each value (2^-11), and far finer than llama.cpp's F16 value sums (~1e-3 from exact). A
// third weight piece would cost two more products per pair for outputs 1e-7 closer.
//
// Layout (rows of a tile go side by side, as in attention_avx512.cpp, 16 to a group):
// - scores transposed: S^T[key][row] = K[key] . Q^T, K's rows as they are (A tiles of 16 keys x
//   32 elements), the group's queries transposed once per group into pairs of elements (B tiles).
//   One 16 x 16 tile of scores per 16 keys, each row of it one vector of the rows' scores, so the
//   softmax runs lane for lane as in the AVX-512 kernel (no horizontal operations);
// - outputs transposed: O^T[element][row] += V^T[element][key] . P^T[key][row], the weights
//   paired by keys straight from the softmax's vectors (B tiles), the values transposed once per
//   block of 32 keys for every group of the tile (A tiles).
// Each lane's result depends only on its row's query and the keys it sees: blocks start at key
// 0 in steps of 32, and a row's masked keys weigh exactly 0.
#include "kernels/x86_amx/amx_kernels.h"
#include "kernels/x86_amx/amx_tiles.h"
#include "kernels/x86_amx/dword_transpose16.h"
#include "kernels/x86_avx512/attention_rows.h"
#include "kernels/x86_avx512/avx512_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <immintrin.h>
#include <memory>
#include <new>

namespace hearth::kernels::amx {
namespace {

using avx512::Lanes16;

constexpr int kKeys = 32;             // keys per block: the pairs of one tile row
constexpr int kRows = 16;             // query rows per group: one tile's columns
constexpr int64_t kLargestHead = 256; // larger heads stay with the AVX-512 kernel (stack use)
// A pass's query pieces and outputs: 38 groups of head 64 (608 rows), 9 of head 256. Each block
// of keys and values is put in the tiles' layouts once per pass, which costs about what 4
// groups' products do; more groups per pass than fit in L1 cost less than the blocks saved.
constexpr int64_t kPassBytes = 393216;
constexpr int64_t kMostGroups = kPassBytes / 4096; // groups of the smallest head (16)
// The engine's calls: 73 positions of a 7-head group of 64 (32 groups), 32 of 8 x 128.
constexpr int64_t kTileFloats = 32768;
constexpr int kTileBytes = 1024; // 16 rows of 64 bytes
constexpr int kTileHalves = kTileBytes / 2;

// --- Splitting F32 into BF16 pieces ----------------------------------------------------------

// x's top 16 bits as an F32 (a BF16 truncated), and what remains, exact.
[[gnu::always_inline]] inline __m512 top_bits(__m512 x) {
    return _mm512_castsi512_ps(
        _mm512_and_si512(_mm512_castps_si512(x), _mm512_set1_epi32(static_cast<int32_t>(0xffff0000u))));
}
struct Pieces3 {
    __m512 high, middle, low;
};
[[gnu::always_inline]] inline Pieces3 split3(__m512 x) {
    const __m512 high = top_bits(x);
    const __m512 rest = _mm512_sub_ps(x, high);
    const __m512 middle = top_bits(rest);
    return {high, middle, _mm512_sub_ps(rest, middle)};
}
// x's top 16 significant bits as two BF16s: its top 8 and the next 8 (what is left, below
// 2^-16 of x, is dropped).
struct Pieces2 {
    __m512 high, low;
};
[[gnu::always_inline]] inline Pieces2 split2(__m512 x) {
    const __m512 high = top_bits(x);
    return {high, top_bits(_mm512_sub_ps(x, high))};
}

// The BF16s (top halves) of a and b interleaved: 32-bit lane n holds a[n] low, b[n] high, the
// pair layout of a B tile row (or of V^T before its transpose).
[[gnu::always_inline]] inline __m512i pair_halves(__m512 a, __m512 b) {
    const __m512i pick = _mm512_set_epi16(63, 31, 61, 29, 59, 27, 57, 25, 55, 23, 53, 21, 51, 19, 49, 17, 47,
                                          15, 45, 13, 43, 11, 41, 9, 39, 7, 37, 5, 35, 3, 33, 1);
    return _mm512_permutex2var_epi16(_mm512_castps_si512(a), pick, _mm512_castps_si512(b));
}
// The BF16s (top halves) of a's 16 lanes, then b's: 32 consecutive elements of an A tile row.
[[gnu::always_inline]] inline __m512i concat_halves(__m512 a, __m512 b) {
    const __m512i pick = _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31,
                                          29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    return _mm512_permutex2var_epi16(_mm512_castps_si512(a), pick, _mm512_castps_si512(b));
}

// --- One block of keys and values, in the tiles' layouts -------------------------------------

// Keys: per piece (high, low), 32 rows of padded_dim BF16s (A tiles of 16 keys x 32 elements at
// row stride padded_dim). Values transposed: per piece, head_dim rows of 32 keys (A tiles of 16
// elements x 32 keys).
struct BlockPieces {
    uint16_t* keys[2];
    uint16_t* values[2];
};

// 16 elements of an F16 row as F32 (exact), or zeros for a row past the block's last key.
[[gnu::always_inline]] inline __m512 f16_chunk(const uint16_t* row, int64_t d) {
    return row == nullptr ? _mm512_setzero_ps()
                          : _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(row + d)));
}

// Row first + j of an F16 cache, or null from `present` on.
inline const uint16_t* f16_row(const KvRows& rows, int64_t first, int j, int present) {
    if (j >= present) return nullptr;
    return reinterpret_cast<const uint16_t*>(static_cast<const char*>(rows.data) +
                                             static_cast<size_t>(first + j) * rows.row_bytes);
}

// Keys and values first .. first + 31 (those from `present` on are zeros) into their pieces,
// straight from the F16 cache.
void prepare_block(const Tile& t, int64_t first, int present, int64_t padded_dim, const BlockPieces& out) {
    const int64_t head_dim = t.head_dim;
    for (int key = 0; key < kKeys; ++key) {
        const uint16_t* row = f16_row(t.keys, first, key, present);
        for (int64_t d = 0; d < padded_dim; d += 32) {
            const __m512 x0 = f16_chunk(row, d);
            const __m512 x1 = d + 16 < head_dim ? f16_chunk(row, d + 16) : _mm512_setzero_ps();
            const __m512 high0 = top_bits(x0), high1 = top_bits(x1);
            _mm512_store_si512(out.keys[0] + key * padded_dim + d, concat_halves(high0, high1));
            _mm512_store_si512(out.keys[1] + key * padded_dim + d,
                               concat_halves(_mm512_sub_ps(x0, high0), _mm512_sub_ps(x1, high1)));
        }
    }
    // Values: per 16 elements, the pairs of keys side by side, then transposed.
    const uint16_t* value_rows[kKeys];
    for (int key = 0; key < kKeys; ++key)
        value_rows[key] = f16_row(t.values, first, key, present);
    for (int64_t d = 0; d < head_dim; d += 16) {
        __m512i high[16], low[16];
#pragma GCC unroll 16
        for (int pair = 0; pair < 16; ++pair) {
            const __m512 a = f16_chunk(value_rows[2 * pair], d);
            const __m512 b = f16_chunk(value_rows[2 * pair + 1], d);
            const __m512 high_a = top_bits(a), high_b = top_bits(b);
            high[pair] = pair_halves(high_a, high_b);
            low[pair] = pair_halves(_mm512_sub_ps(a, high_a), _mm512_sub_ps(b, high_b));
        }
        transpose16(high);
        transpose16(low);
#pragma GCC unroll 16
        for (int e = 0; e < 16; ++e) {
            _mm512_store_si512(out.values[0] + (d + e) * kKeys, high[e]);
            _mm512_store_si512(out.values[1] + (d + e) * kKeys, low[e]);
        }
    }
}

// --- A group of 16 query rows ----------------------------------------------------------------

// 16 query rows, and where their queries' pieces and outputs are.
struct Group : avx512::RowGroup<Lanes16> {
    uint16_t* query_pieces; // per 32 elements, 3 B tiles (high, middle, low)
    float* outputs;         // O^T: head_dim rows of 16 lanes
};

Group start_group(const Tile& t, int64_t first_row, int64_t padded_dim, uint16_t* query_pieces,
                  float* outputs, bool limited) {
    const int64_t head_dim = t.head_dim;
    alignas(64) float transposed[kLargestHead * kRows];
    Group g{avx512::start_rows<Lanes16>(t, first_row, limited, transposed), query_pieces, outputs};
    for (int64_t d = 0; d < padded_dim; d += 32)
        for (int pair = 0; pair < 16; ++pair) {
            const int64_t e = d + 2 * pair;
            const __m512 a = e < head_dim ? _mm512_load_ps(transposed + e * kRows) : _mm512_setzero_ps();
            const __m512 b =
                e + 1 < head_dim ? _mm512_load_ps(transposed + (e + 1) * kRows) : _mm512_setzero_ps();
            const Pieces3 pa = split3(a), pb = split3(b);
            uint16_t* tiles = query_pieces + (d / 32) * 3 * kTileHalves + pair * 32;
            _mm512_store_si512(tiles, pair_halves(pa.high, pb.high));
            _mm512_store_si512(tiles + kTileHalves, pair_halves(pa.middle, pb.middle));
            _mm512_store_si512(tiles + 2 * kTileHalves, pair_halves(pa.low, pb.low));
        }
    std::fill(outputs, outputs + head_dim * kRows, 0.0f);
    return g;
}

// Tiles: scores 0 (keys 0..15) and 1 (keys 16..31); query pieces 2, 3, 4; key pieces 5, 6, 7.
// scores[j] = the 16 rows' scores of key j (scaled, in powers of 2 unless soft-capped).
void block_scores(const Group& g, const BlockPieces& block, int64_t padded_dim, float (*scores)[kRows]) {
    const size_t key_row_bytes = static_cast<size_t>(padded_dim) * sizeof(uint16_t);
    _tile_zero(0);
    _tile_zero(1);
    for (int64_t d = 0; d < padded_dim; d += 32) {
        const uint16_t* q = g.query_pieces + (d / 32) * 3 * kTileHalves;
        load_tile<2>(q, 64);
        load_tile<3>(q + kTileHalves, 64);
        load_tile<4>(q + 2 * kTileHalves, 64);
        load_tile<5>(block.keys[0] + d, key_row_bytes);
        load_tile<6>(block.keys[0] + 16 * padded_dim + d, key_row_bytes);
        load_tile<7>(block.keys[1] + d, key_row_bytes);
        // Smaller products first into each sum.
        _tile_dpbf16ps(0, 5, 4); // key high x query low
        _tile_dpbf16ps(1, 6, 4);
        _tile_dpbf16ps(0, 7, 3); // key low x query middle
        _tile_dpbf16ps(0, 7, 2); // key low x query high
        load_tile<7>(block.keys[1] + 16 * padded_dim + d, key_row_bytes);
        _tile_dpbf16ps(1, 7, 3);
        _tile_dpbf16ps(1, 7, 2);
        _tile_dpbf16ps(0, 5, 3); // key high x query middle
        _tile_dpbf16ps(1, 6, 3);
        _tile_dpbf16ps(0, 5, 2); // key high x query high
        _tile_dpbf16ps(1, 6, 2);
    }
    _tile_stored(0, scores[0], 64);
    _tile_stored(1, scores[16], 64);
}

// The softmax of a block for a group (softmax_block, as the AVX-512 kernel's, over 32 keys): the
// weights' two pieces paired by keys into 2 B tiles, outputs rescaled.
void block_weights(const Tile& t, Group& g, int64_t first, bool limited, float (*scores)[kRows],
                   uint16_t* weight_pieces) {
    using V = __m512;
    V s[2][16]; // keys 0..15, 16..31
#pragma GCC unroll 2
    for (int half = 0; half < 2; ++half)
#pragma GCC unroll 16
        for (int j = 0; j < 16; ++j)
            s[half][j] = _mm512_load_ps(scores[16 * half + j]);
    const V rescale = avx512::softmax_block<Lanes16, 2>(t, g, first, limited, s);
    if (_mm512_cmp_ps_mask(rescale, _mm512_set1_ps(1.0f), _CMP_NEQ_UQ) != 0)
        for (int64_t d = 0; d < t.head_dim; ++d)
            _mm512_store_ps(g.outputs + d * kRows,
                            _mm512_mul_ps(_mm512_load_ps(g.outputs + d * kRows), rescale));
#pragma GCC unroll 16
    for (int pair = 0; pair < 16; ++pair) {
        const Pieces2 a = split2(s[pair / 8][2 * pair % 16]), b = split2(s[pair / 8][2 * pair % 16 + 1]);
        _mm512_store_si512(weight_pieces + pair * 32, pair_halves(a.high, b.high));
        _mm512_store_si512(weight_pieces + kTileHalves + pair * 32, pair_halves(a.low, b.low));
    }
}

// O^T += V^T . P^T for 32 elements of the head (kChunks = 2; 1 for a last 16), smaller products
// first. Tiles: outputs 0 and 1, value pieces 2, 3 and 7 (low of both chunks, high of the first;
// then 2 takes the second's high, once the products that read it were issued), weight pieces 4
// (high) and 5 (low): each operand is loaded once per block.
template <int kChunks>
void chunk_values(float* outputs, const uint16_t* value_high, const uint16_t* value_low) {
    constexpr int kStride = 16 * kKeys; // halves from one chunk's value tile to the next
    load_tile<0>(outputs, 64);
    load_tile<2>(value_low, 64);
    if constexpr (kChunks == 2) {
        load_tile<1>(outputs + 16 * kRows, 64);
        load_tile<3>(value_low + kStride, 64);
    }
    load_tile<7>(value_high, 64);
    _tile_dpbf16ps(0, 2, 4); // value low x weight high
    if constexpr (kChunks == 2) _tile_dpbf16ps(1, 3, 4);
    _tile_dpbf16ps(0, 7, 5); // value high x weight low, high
    _tile_dpbf16ps(0, 7, 4);
    _tile_stored(0, outputs, 64);
    if constexpr (kChunks == 2) {
        load_tile<2>(value_high + kStride, 64);
        _tile_dpbf16ps(1, 2, 5);
        _tile_dpbf16ps(1, 2, 4);
        _tile_stored(1, outputs + 16 * kRows, 64);
    }
}

void block_values(const Group& g, const BlockPieces& block, int64_t head_dim, const uint16_t* weight_pieces) {
    load_tile<4>(weight_pieces, 64);
    load_tile<5>(weight_pieces + kTileHalves, 64);
    for (int64_t d = 0; d < head_dim; d += 32) {
        float* outputs = g.outputs + d * kRows;
        const uint16_t* high = block.values[0] + d * kKeys;
        const uint16_t* low = block.values[1] + d * kKeys;
        if (head_dim - d >= 32)
            chunk_values<2>(outputs, high, low);
        else
            chunk_values<1>(outputs, high, low);
    }
}

// A group's outputs over their sums, into its rows: 16 elements of the head at a time, divided
// in zmm (each quotient the same IEEE division as one at a time) and transposed from the group's
// lanes into the rows, rather than one scalar division and strided load at a time.
void write_outputs(const Tile& t, const Group& g, int64_t rows) {
    const int valid = static_cast<int>(std::min<int64_t>(kRows, rows - g.first_row));
    for (int64_t d = 0; d < t.head_dim; d += 16) { // head_dim is a multiple of 16 here
        __m512i v[16];
#pragma GCC unroll 16
        for (int k = 0; k < 16; ++k)
            v[k] = _mm512_castps_si512(_mm512_div_ps(_mm512_load_ps(g.outputs + (d + k) * kRows), g.sum));
        transpose16(v); // v[lane]: elements d .. d + 15 of the lane's row
        for (int lane = 0; lane < valid; ++lane)
            _mm512_storeu_ps(t.out + t.offset(g.first_row + lane) + d, _mm512_castsi512_ps(v[lane]));
    }
}

void attend_tile(const Tile& t, bool limited) {
    const int64_t rows = t.rows(), head_dim = t.head_dim;
    const int64_t padded_dim = (head_dim + 31) / 32 * 32;
    const int64_t groups = (rows + kRows - 1) / kRows;
    const int64_t query_halves = padded_dim / 32 * 3 * kTileHalves;
    const int64_t output_floats = head_dim * kRows;
    const int64_t group_bytes = query_halves * 2 + output_floats * 4;
    const int64_t groups_per_pass = std::max<int64_t>(1, kPassBytes / group_bytes);
    // Per thread, allocated on its first prefill and kept (too large for a stack).
    struct alignas(64) PassBuffer {
        unsigned char bytes[kPassBytes];
    };
    thread_local const std::unique_ptr<PassBuffer> scratch = std::make_unique<PassBuffer>();
    unsigned char* const pass_buffer = scratch->bytes;
    alignas(64) uint16_t key_pieces[2][kKeys * kLargestHead];
    alignas(64) uint16_t value_pieces[2][kKeys * kLargestHead];
    alignas(64) float scores[kKeys][kRows];
    alignas(64) uint16_t weight_pieces[2 * kTileHalves];
    const BlockPieces block{{key_pieces[0], key_pieces[1]}, {value_pieces[0], value_pieces[1]}};
    Group pass[kMostGroups];
    const TilesInUse tiles(full_tiles());
    for (int64_t first_group = 0; first_group < groups; first_group += groups_per_pass) {
        const int64_t n_groups = std::min(groups_per_pass, groups - first_group);
        int64_t pass_keys = 0, first_block = INT64_MAX;
        for (int64_t i = 0; i < n_groups; ++i) {
            unsigned char* own = pass_buffer + i * group_bytes;
            pass[i] = start_group(t, (first_group + i) * kRows, padded_dim, reinterpret_cast<uint16_t*>(own),
                                  reinterpret_cast<float*>(own + query_halves * 2), limited);
            pass_keys = std::max(pass_keys, pass[i].most_keys);
            first_block = std::min(first_block, pass[i].earliest_window / kKeys * kKeys);
        }
        for (int64_t first = first_block; first < pass_keys; first += kKeys) {
            const int present = static_cast<int>(std::min<int64_t>(kKeys, pass_keys - first));
            prepare_block(t, first, present, padded_dim, block);
            for (int64_t i = 0; i < n_groups; ++i) {
                Group& g = pass[i];
                // Blocks a group's rows see none of change nothing of them: skip those.
                if (first >= g.most_keys) continue;
                if (limited && first + kKeys <= g.earliest_window) continue;
                block_scores(g, block, padded_dim, scores);
                block_weights(t, g, first, limited, scores, weight_pieces);
                block_values(g, block, head_dim, weight_pieces);
            }
        }
        for (int64_t i = 0; i < n_groups; ++i)
            write_outputs(t, pass[i], rows);
    }
}

void attend(const float* q, float* out, size_t head_stride, size_t position_stride, int64_t n_heads,
            int64_t n_positions, KvRows keys, KvRows values, int64_t n_keys, int64_t head_dim, float scale,
            AttentionLimits limits) {
    const Tile tile{q,    out,    head_stride, position_stride, n_heads, n_positions,
                    keys, values, n_keys,      head_dim,        scale,   limits};
    attend_tile(tile, limits.window > 0 || limits.softcap > 0);
}

} // namespace

// Prefill over F16 caches: tiles of several positions, head sizes of 16k up to kLargestHead.
// Quantized caches stay with the tiers below: their widened keys and values (an int8 times a
// scale) may need more than two BF16 pieces.
void add_attention_kernels(KernelTable& table) {
    table.attention.put_first(
        {{.name = "attend",
          .backend = cpu(Isa::Amx),
          .guard = {.min_batch = 2, .width_multiple = 16, .max_width = kLargestHead, .f16_cache_only = true},
          .fn = attend}});
    table.attention_tile_floats = kTileFloats;
}

} // namespace hearth::kernels::amx
