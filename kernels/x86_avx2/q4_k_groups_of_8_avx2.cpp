// Q4_K x Q8_K in the order of llama.cpp's CPU backend for matrices whose row count is a
// multiple of 8. On AVX2 CPUs llama.cpp repacks those Q4_K matrices at load into blocks that
// interleave 8 rows (ggml-cpu/repack.cpp, q4_K_8x8_q8_K). Its kernels sum each super-block's
// integers exactly and add them with FMAs, the scale term and the min term apart:
//     S = sum_j scale_j * dot_j,  M = sum_j min_j * (sum of the 32 activations of sub-block j)
//     acc  = fma(float(S), fp16(d)    * d_a, acc)
//     accm = fma(float(M), fp16(dmin) * d_a, accm),   result = acc - accm
// Its gemv (one activation row) adds once per super-block; its gemm (activation rows 4 at a
// time) adds once per pair of sub-blocks (j = 2p, 2p + 1), four times per super-block. A
// matmul of B activation rows sends rows [0, B - B % 4) through the gemm and the rest through
// the gemv, so row b's rounding depends on where it stands in the batch; so it does here.
// The rows stay row-major here; 8 rows are reduced together in registers, row r in lane r.
#include "kernels/block_formats.h"
#include "kernels/x86_avx2/avx2_k_quants.h"
#include "kernels/x86_avx2/avx2_kernels.h"
#include "kernels/x86_avx2/dword_transpose.h"
#include "kernels/x86_avx2/groups_of_8.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace hearth::kernels::avx2 {
namespace {

constexpr int kRows = kGroupRows; // rows reduced together, as llama.cpp interleaves them
constexpr int kBatchTile = 4;     // activation rows per pass over a group; llama.cpp's gemm takes 4
constexpr int kPairs = QK_K / 64;

// Lane r = the sum of the 8 int32 of v[r] (exact: the order of integer adds does not matter).
inline __m256i reduce_8_rows(const __m256i (&v)[kRows]) {
    const __m256i p01 = _mm256_hadd_epi32(v[0], v[1]), p23 = _mm256_hadd_epi32(v[2], v[3]);
    const __m256i p45 = _mm256_hadd_epi32(v[4], v[5]), p67 = _mm256_hadd_epi32(v[6], v[7]);
    // Dword r of each lane: row r (resp. 4 + r) summed over that lane's half.
    const __m256i q0123 = _mm256_hadd_epi32(p01, p23), q4567 = _mm256_hadd_epi32(p45, p67);
    return _mm256_add_epi32(_mm256_permute2x128_si256(q0123, q4567, 0x20),
                            _mm256_permute2x128_si256(q0123, q4567, 0x31));
}

// What every activation row reuses of one super-block of the 8 rows.
struct GroupBlock {
    alignas(32) uint32_t scale_pairs[kRows][8]; // row r, sub-block j: scale j in both int16 halves
    __m256i min_pairs[kPairs];                  // pair p: dword r = (min 2p, min 2p + 1) of row r
    __m256 d, dmin;                             // lane r: row r's fp16 d and dmin
};

inline void unpack_group_block(const BlockQ4_K* const (&blocks)[kRows], GroupBlock& g) {
    __m128i mins[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
        const __m256i bytes = unpack_k4_scale_bytes(blocks[r]->scales);
        _mm256_store_si256(reinterpret_cast<__m256i*>(g.scale_pairs[r]), k4_scale_pairs(bytes));
        mins[r] = k4_mins(bytes); // dword p = (min 2p, min 2p + 1)
    }
    // Transpose 8 rows x 4 dwords: rows 0-3 in the low lane, 4-7 in the high one.
    const __m256i r0 = _mm256_setr_m128i(mins[0], mins[4]), r1 = _mm256_setr_m128i(mins[1], mins[5]);
    const __m256i r2 = _mm256_setr_m128i(mins[2], mins[6]), r3 = _mm256_setr_m128i(mins[3], mins[7]);
    const __m256i t0 = _mm256_unpacklo_epi32(r0, r1), t1 = _mm256_unpackhi_epi32(r0, r1);
    const __m256i t2 = _mm256_unpacklo_epi32(r2, r3), t3 = _mm256_unpackhi_epi32(r2, r3);
    g.min_pairs[0] = _mm256_unpacklo_epi64(t0, t2);
    g.min_pairs[1] = _mm256_unpackhi_epi64(t0, t2);
    g.min_pairs[2] = _mm256_unpacklo_epi64(t1, t3);
    g.min_pairs[3] = _mm256_unpackhi_epi64(t1, t3);
    // d and dmin open each block as two fp16: one dword per row, then d apart from dmin.
    const __m256i both =
        _mm256_setr_epi32(static_cast<int>(load_u32(reinterpret_cast<const uint8_t*>(blocks[0]))),
                          static_cast<int>(load_u32(reinterpret_cast<const uint8_t*>(blocks[1]))),
                          static_cast<int>(load_u32(reinterpret_cast<const uint8_t*>(blocks[2]))),
                          static_cast<int>(load_u32(reinterpret_cast<const uint8_t*>(blocks[3]))),
                          static_cast<int>(load_u32(reinterpret_cast<const uint8_t*>(blocks[4]))),
                          static_cast<int>(load_u32(reinterpret_cast<const uint8_t*>(blocks[5]))),
                          static_cast<int>(load_u32(reinterpret_cast<const uint8_t*>(blocks[6]))),
                          static_cast<int>(load_u32(reinterpret_cast<const uint8_t*>(blocks[7]))));
    const __m128i split = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    const __m256i halves = _mm256_permute4x64_epi64(
        _mm256_shuffle_epi8(both, _mm256_setr_m128i(split, split)), _MM_SHUFFLE(3, 1, 2, 0));
    g.d = _mm256_cvtph_ps(_mm256_castsi256_si128(halves));
    g.dmin = _mm256_cvtph_ps(_mm256_extracti128_si256(halves, 1));
}

// Row r of activation b: lane r of acc[b] - acc_min[b], for the group's valid rows.
template <int RN>
inline void store_rows(const __m256 (&acc)[RN], const __m256 (&acc_min)[RN], float* out, int64_t y_stride,
                       int valid_rows) {
#pragma GCC unroll 4
    for (int b = 0; b < RN; ++b) {
        store_group_lanes(_mm256_sub_ps(acc[b], acc_min[b]), out + b * y_stride, valid_rows);
    }
}

// What one activation block brings to a group's super-block: the scale products, rounded
// first as in llama.cpp (d_w * d_a, then one FMA), and per dword p the sums of the activations
// of sub-blocks 2p and 2p + 1 (int16), for the min term.
struct ActivationTerms {
    __m256 scale, min_scale;
    __m256i sub_block_sums;
};
inline ActivationTerms activation_terms(const GroupBlock& g, const BlockQ8_K& ab) {
    const __m256 da = _mm256_set1_ps(ab.d);
    return {_mm256_mul_ps(g.d, da), _mm256_mul_ps(g.dmin, da),
            _mm256_broadcastsi128_si256(_mm_hadd_epi16(load128(ab.bsums), load128(ab.bsums + 8)))};
}

// Prefill reads every group once per 4 activation rows, so the group is decoded once, into a
// panel those passes share, with its rows interleaved as llama.cpp repacks them: per
// sub-block j and 4 quants c, one vector of the 8 rows' 4 bytes (row r in dword r), and per
// sub-block the rows' scales (dword r: row r's, in both int16 halves). Then maddubs against 4
// activation bytes broadcast puts each row's partial sums in its own dword: no horizontal
// reduction, and 8 chunks summed in int16 (|sum| <= 8 * 2 * 15 * 128 fits) before one madd
// with the scales. Integer sums are exact, so the results are those of the gemm order above.
// Decode (batch < 4) streams the blocks as they are.
struct alignas(32) Bytes32 {
    uint8_t bytes[32];
};
struct GroupPanel {
    std::vector<Bytes32> quants; // (block, sub-block j, chunk c): rows' quants 4c..4c+3 of j
    std::vector<Bytes32> scales; // (block, sub-block j)
    std::vector<GroupBlock> headers;
};
constexpr int kSubBlocks = QK_K / 32;

inline void decode_group(int64_t blocks, const BlockQ4_K* const (&rows)[kRows], GroupPanel& panel) {
    if (panel.headers.size() < static_cast<size_t>(blocks)) { // once per thread and width
        panel.headers.resize(static_cast<size_t>(blocks));
        panel.quants.resize(static_cast<size_t>(blocks) * kSubBlocks * 8);
        panel.scales.resize(static_cast<size_t>(blocks) * kSubBlocks);
    }
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    for (int64_t i = 0; i < blocks; ++i) {
        const BlockQ4_K* blocks_i[kRows];
        for (int r = 0; r < kRows; ++r)
            blocks_i[r] = rows[r] + i;
        GroupBlock& g = panel.headers[static_cast<size_t>(i)];
        unpack_group_block(blocks_i, g);
        auto* quants =
            reinterpret_cast<__m256i*>(panel.quants.data() + static_cast<size_t>(i) * kSubBlocks * 8);
        for (int p = 0; p < kPairs; ++p) {
            __m256i low[kRows], high[kRows];
            for (int r = 0; r < kRows; ++r) {
                const __m256i q = load256(blocks_i[r]->qs + 32 * p);
                low[r] = _mm256_and_si256(q, low4);                        // sub-block 2p
                high[r] = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4); // sub-block 2p + 1
            }
            __m256i chunks[8];
            transpose_8x8_dwords(low, chunks);
            for (int c = 0; c < 8; ++c)
                _mm256_store_si256(quants + (2 * p) * 8 + c, chunks[c]);
            transpose_8x8_dwords(high, chunks);
            for (int c = 0; c < 8; ++c)
                _mm256_store_si256(quants + (2 * p + 1) * 8 + c, chunks[c]);
        }
        __m256i by_row[kRows], by_sub_block[8];
        for (int r = 0; r < kRows; ++r)
            by_row[r] = _mm256_load_si256(reinterpret_cast<const __m256i*>(g.scale_pairs[r]));
        transpose_8x8_dwords(by_row, by_sub_block);
        auto* scales = reinterpret_cast<__m256i*>(panel.scales.data() + static_cast<size_t>(i) * kSubBlocks);
        for (int j = 0; j < kSubBlocks; ++j)
            _mm256_store_si256(scales + j, by_sub_block[j]);
    }
}

// llama.cpp's gemm order for 4 activation rows over a decoded group: one FMA per pair of
// sub-blocks (group_times_activations below, its gemv order, adds once per super-block).
void panel_times_4_activations(int64_t blocks, const GroupPanel& panel, const char* a, size_t a_stride,
                               float* out, int64_t y_stride, int valid_rows) {
    constexpr int RN = kBatchTile;
    __m256 acc[RN], acc_min[RN];
#pragma GCC unroll 8
    for (int b = 0; b < RN; ++b)
        acc[b] = acc_min[b] = _mm256_setzero_ps();
    for (int64_t i = 0; i < blocks; ++i) {
        const GroupBlock& g = panel.headers[static_cast<size_t>(i)];
        const auto* quants =
            reinterpret_cast<const __m256i*>(panel.quants.data() + static_cast<size_t>(i) * kSubBlocks * 8);
        const auto* scales =
            reinterpret_cast<const __m256i*>(panel.scales.data() + static_cast<size_t>(i) * kSubBlocks);
#pragma GCC unroll 4
        for (int b = 0; b < RN; ++b) {
            const auto& ab = reinterpret_cast<const BlockQ8_K*>(a + b * a_stride)[i];
            const auto [scale, min_scale, sub_block_sums] = activation_terms(g, ab);
#pragma GCC unroll 4
            for (int p = 0; p < kPairs; ++p) {
                __m256i pair_sum = _mm256_setzero_si256();
#pragma GCC unroll 2
                for (int j = 2 * p; j < 2 * p + 2; ++j) {
                    __m256i sum16 = _mm256_setzero_si256();
#pragma GCC unroll 8
                    for (int c = 0; c < 8; ++c) {
                        int32_t x4;
                        std::memcpy(&x4, ab.qs + 32 * j + 4 * c, sizeof x4);
                        sum16 = _mm256_add_epi16(sum16,
                                                 _mm256_maddubs_epi16(_mm256_load_si256(quants + j * 8 + c),
                                                                      _mm256_set1_epi32(x4)));
                    }
                    pair_sum =
                        _mm256_add_epi32(pair_sum, _mm256_madd_epi16(sum16, _mm256_load_si256(scales + j)));
                }
                const __m256i pair_min = _mm256_madd_epi16(
                    g.min_pairs[p], _mm256_shuffle_epi32(sub_block_sums, _MM_SHUFFLE(p, p, p, p)));
                acc[b] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(pair_sum), scale, acc[b]);
                acc_min[b] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(pair_min), min_scale, acc_min[b]);
            }
        }
    }
    store_rows<RN>(acc, acc_min, out, y_stride, valid_rows);
}

// One group of 8 weight rows (rows[r]; a group at the end of the range repeats its last row)
// times RN activation rows, in the order of llama.cpp's gemv. Writes lanes
// [0, valid_rows) of out[b * y_stride + r]. prefetch, when set, is the next group's first
// byte: it is asked for at the pace this group is read, one group ahead (decode streams the
// weights once; see matmul.cpp).
template <int RN>
void group_times_activations(int64_t blocks, const BlockQ4_K* const (&rows)[kRows], const char* a,
                             size_t a_stride, float* out, int64_t y_stride, int valid_rows,
                             const char* prefetch) {
    __m256 acc[RN], acc_min[RN];
#pragma GCC unroll 8
    for (int b = 0; b < RN; ++b)
        acc[b] = acc_min[b] = _mm256_setzero_ps();
    const __m256i low4 = _mm256_set1_epi8(0x0F);
    GroupBlock g;
    for (int64_t i = 0; i < blocks; ++i) {
        if (prefetch != nullptr) {
            // 8 blocks = 1152 bytes = 18 lines per step.
#pragma GCC unroll 18
            for (int line = 0; line < kRows * int(sizeof(BlockQ4_K)) / 64; ++line)
                _mm_prefetch(prefetch + 64 * line, _MM_HINT_T0);
            prefetch += kRows * sizeof(BlockQ4_K);
        }
        const BlockQ4_K* blocks_i[kRows];
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r)
            blocks_i[r] = rows[r] + i;
        unpack_group_block(blocks_i, g);
#pragma GCC unroll 4
        for (int b = 0; b < RN; ++b) {
            const auto& ab = reinterpret_cast<const BlockQ8_K*>(a + b * a_stride)[i];
            const auto [scale, min_scale, sub_block_sums] = activation_terms(g, ab);
            __m256i sum = _mm256_setzero_si256(), sum_min = _mm256_setzero_si256();
#pragma GCC unroll 4
            for (int p = 0; p < kPairs; ++p) {
                const __m256i x_low = load256(ab.qs + 64 * p), x_high = load256(ab.qs + 64 * p + 32);
                __m256i v[kRows];
#pragma GCC unroll 8
                for (int r = 0; r < kRows; ++r) {
                    const __m256i q = load256(blocks_i[r]->qs + 32 * p);
                    const __m256i q_low = _mm256_and_si256(q, low4);
                    const __m256i q_high = _mm256_and_si256(_mm256_srli_epi16(q, 4), low4);
                    const __m256i low = _mm256_madd_epi16(_mm256_maddubs_epi16(q_low, x_low),
                                                          _mm256_set1_epi32(int(g.scale_pairs[r][2 * p])));
                    const __m256i high =
                        _mm256_madd_epi16(_mm256_maddubs_epi16(q_high, x_high),
                                          _mm256_set1_epi32(int(g.scale_pairs[r][2 * p + 1])));
                    v[r] = _mm256_add_epi32(low, high);
                }
                sum = _mm256_add_epi32(sum, reduce_8_rows(v));
                sum_min = _mm256_add_epi32(
                    sum_min, _mm256_madd_epi16(g.min_pairs[p], _mm256_shuffle_epi32(
                                                                   sub_block_sums, _MM_SHUFFLE(p, p, p, p))));
            }
            acc[b] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum), scale, acc[b]);
            acc_min[b] = _mm256_fmadd_ps(_mm256_cvtepi32_ps(sum_min), min_scale, acc_min[b]);
        }
    }
    store_rows<RN>(acc, acc_min, out, y_stride, valid_rows);
}

using GroupFn = void (*)(int64_t, const BlockQ4_K* const (&)[kRows], const char*, size_t, float*, int64_t,
                         int, const char*);
// llama.cpp's gemv order for the 1..3 activation rows left after its gemm's tiles of 4.
constexpr GroupFn kGemvFns[kBatchTile - 1] = {group_times_activations<1>, group_times_activations<2>,
                                              group_times_activations<3>};

} // namespace

void gemm_q4_K_q8_K_groups_of_8(int64_t n, const void* weights, size_t weight_row_bytes, int64_t row_begin,
                                int64_t row_end, const void* activations, size_t activation_row_bytes,
                                int64_t batch, float* y, int64_t y_stride) {
    const char* w = static_cast<const char*>(weights);
    const char* a = static_cast<const char*>(activations);
    const int64_t blocks = n / QK_K;
    // llama.cpp's gemm takes rows [0, batch - batch % 4), its gemv the rest.
    const int64_t gemm_rows = batch - batch % kBatchTile;
    thread_local GroupPanel panel;
    for (int64_t r = row_begin; r < row_end; r += kRows) {
        const int valid_rows = static_cast<int>(std::min<int64_t>(kRows, row_end - r));
        const BlockQ4_K* rows[kRows];
        group_rows(w, weight_row_bytes, r, valid_rows, rows);
        const char* next_group = w + (r + kRows) * weight_row_bytes;
        if (gemm_rows > 0) {
            decode_group(blocks, rows, panel);
            for (int64_t b = 0; b < gemm_rows; b += kBatchTile)
                panel_times_4_activations(blocks, panel, a + b * activation_row_bytes, activation_row_bytes,
                                          y + b * y_stride + r, y_stride, valid_rows);
        }
        if (gemm_rows < batch)
            kGemvFns[batch - gemm_rows - 1](blocks, rows, a + gemm_rows * activation_row_bytes,
                                            activation_row_bytes, y + gemm_rows * y_stride + r, y_stride,
                                            valid_rows, gemm_rows == 0 ? next_group : nullptr);
    }
}

} // namespace hearth::kernels::avx2
